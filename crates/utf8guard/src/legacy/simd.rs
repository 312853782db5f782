//! Vector steps for the single-byte encodings (x86_64, AVX2).
//!
//! Into UTF-8, a step takes 32 bytes: all ASCII, they are stored as they
//! are; otherwise each group of 8 becomes up to 16 bytes by one shuffle,
//! chosen by the group's mask of bytes above `7F`, of the pairs (lead,
//! second byte) made for every byte. Out of UTF-8 (already validated), a
//! step takes 32 bytes whose only non-ASCII characters are `C2`/`C3` ones
//! (U+0080..U+00FF): each continuation byte becomes its character's byte,
//! and each group of 8 drops its lead bytes by a shuffle chosen by their
//! mask. For Windows-1252, a block with its characters above U+00FF
//! (`E2 80 9C` for `“`, `C5 92` for `Œ`...) looks each character's byte up
//! by the last two bytes of its form and keeps only its last byte.
//! Anything else (other characters, U+0080..U+009F) is left to the
//! byte-at-a-time loops, which also report the errors.
//!
//! The loops themselves are in `legacy.rs`, generic over whether the steps
//! run; here they are compiled for AVX2 as a whole, so that the steps
//! inline into them (a call per block, across target features, cost what
//! the shuffles saved).

use core::arch::x86_64::{
    __m128i, __m256i, _mm256_add_epi8, _mm256_alignr_epi8, _mm256_and_si256, _mm256_andnot_si256,
    _mm256_blendv_epi8, _mm256_broadcastsi128_si256, _mm256_castsi128_si256,
    _mm256_castsi256_si128, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_extracti128_si256,
    _mm256_inserti128_si256, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
    _mm256_permute2x128_si256, _mm256_set1_epi8, _mm256_set_epi64x, _mm256_setzero_si256,
    _mm256_shuffle_epi8, _mm256_slli_epi16, _mm256_srli_epi16, _mm256_storeu_si256,
    _mm256_unpackhi_epi16, _mm256_unpackhi_epi8, _mm256_unpacklo_epi16, _mm256_unpacklo_epi8,
    _mm_loadu_si128, _mm_storel_epi64, _mm_storeu_si128, _mm_unpackhi_epi64,
};

use super::SingleByte;
use crate::cpu::Level;
use crate::transcode::{Policy, Progress, Status, TranscodeError};
use crate::utf8_input::{self, Stop};

/// Whether the vector steps run: with the AVX2 or AVX-512 kernel active
/// (so that forcing the scalar or SSE4.2 kernel tests the portable loops).
#[inline]
pub(super) fn available() -> bool {
    crate::dispatch::level() != Level::Scalar
}

/// `single_byte_to_utf8_into`'s loop compiled for AVX2.
///
/// # Safety
///
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn to_utf8_avx2(
    encoding: SingleByte,
    input: &[u8],
    output: &mut [u8],
) -> Progress {
    super::to_utf8_loop::<true>(encoding, input, output)
}

/// The valid-input loop of `utf8_to_single_byte_into` compiled for AVX2.
///
/// # Safety
///
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn from_utf8_avx2(
    encoding: SingleByte,
    src: &[u8],
    dst: &mut [u8],
) -> (usize, usize, Stop) {
    super::from_utf8_loop::<true>(encoding, src, dst)
}

/// `utf8_to_single_byte_into` on a CPU with AVX2: blocks of ASCII and
/// Latin-1 letters are checked and converted by [`compress_checked`]
/// without the kernel; from a block that is not such, a piece of
/// [`PIECE`] bytes goes the general way (the kernel, then
/// [`from_utf8_loop`](super::from_utf8_loop), which reports the errors).
///
/// # Safety
///
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn from_utf8_into_avx2(
    encoding: SingleByte,
    input: &[u8],
    policy: Policy,
    output: &mut [u8],
    last: bool,
) -> Progress {
    let windows = encoding == SingleByte::Windows1252;
    let convert = super::ToSingleByte(encoding);
    let (mut at, mut w) = (0, 0);
    loop {
        let from = at;
        while let (Some(block), Some(out)) = (input.get(at..at + 32), output.get_mut(w..w + 32)) {
            let (block, out) = (block.try_into().expect("32"), out.try_into().expect("32"));
            // SAFETY: this function is compiled for AVX2.
            match unsafe { compress_checked::<true>(block, out, windows) } {
                // ASCII: the run that may follow is copied as it is.
                Some((32, 32)) => {
                    at += 32;
                    w += 32;
                    // SAFETY: as above.
                    let n = unsafe { ascii_run(&input[at..], &mut output[w..]) };
                    at += n;
                    w += n;
                }
                Some((read, written)) => {
                    at += read;
                    w += written;
                }
                None => break,
            }
        }
        // Where the checked steps left the first block after a piece too,
        // the text is not of such blocks: the rest goes the general way,
        // whose kernel windows grow long (rounds of a piece each were 20%
        // slower on typographic text).
        let piece = if at == from && at != 0 {
            input.len()
        } else {
            PIECE
        };
        // To the end when little is left; a character cut by the piece's
        // end is left for the next round.
        let end = if input.len() - at < piece.saturating_mul(2) {
            input.len()
        } else {
            at + piece
        };
        let p = general(
            &convert,
            &input[at..end],
            policy,
            &mut output[w..],
            last && end == input.len(),
        );
        at += p.read;
        w += p.written;
        match p.result {
            Ok(Status::InputEmpty) if end < input.len() => continue,
            Ok(status) => {
                return Progress {
                    read: at,
                    written: w,
                    result: Ok(status),
                }
            }
            Err(e) => {
                let offset = at - p.read + e.offset();
                return Progress {
                    read: at,
                    written: w,
                    result: Err(TranscodeError::new(offset, e.error_len(), e.cause())),
                };
            }
        }
    }
}

/// `utf8_input::convert`, kept out of [`from_utf8_into_avx2`]: inlined
/// there, typographic text was about 5% slower.
#[inline(never)]
fn general(
    convert: &super::ToSingleByte,
    input: &[u8],
    policy: Policy,
    output: &mut [u8],
    last: bool,
) -> Progress {
    utf8_input::convert(convert, input, policy, output, last)
}

/// How much of the input goes the general way after a block the checked
/// steps leave: a kernel call's worth.
const PIECE: usize = 256;

/// How many bytes [`ascii_run`] takes at a time.
const RUN: usize = 128;

/// Copies the ASCII at the start of `input` to `output`, [`RUN`] bytes at a
/// time while both have them, and returns how many bytes that is (a
/// multiple of [`RUN`]; the caller's steps take the rest). A block is one
/// test of its four vectors ORed, and four stores: text that is all ASCII
/// goes at the speed of the caches, where a step per 32 bytes paid its
/// bookkeeping each time.
///
/// # Safety
///
/// The CPU must have AVX2 (the caller is compiled for it).
#[inline(always)]
pub(super) unsafe fn ascii_run(input: &[u8], output: &mut [u8]) -> usize {
    let mut n = 0;
    while let (Some(src), Some(dst)) = (input.get(n..n + RUN), output.get_mut(n..n + RUN)) {
        // SAFETY: the loads read the `RUN` bytes of `src`, the stores write
        // the `RUN` bytes of `dst`. AVX2 is the caller's promise.
        unsafe {
            let at = |k: usize| _mm256_loadu_si256(src.as_ptr().add(32 * k).cast::<__m256i>());
            let v = [at(0), at(1), at(2), at(3)];
            let any = _mm256_or_si256(_mm256_or_si256(v[0], v[1]), _mm256_or_si256(v[2], v[3]));
            if _mm256_movemask_epi8(any) != 0 {
                break;
            }
            for (k, &v) in v.iter().enumerate() {
                _mm256_storeu_si256(dst.as_mut_ptr().add(32 * k).cast::<__m256i>(), v);
            }
        }
        n += RUN;
    }
    n
}

/// For each mask of 8 bytes (bit `i`: byte `i` is above `7F`), the shuffle
/// of the 16 bytes (lead, second) of the 8 that keeps both of a flagged
/// byte and the second (the byte itself) of an ASCII one.
static EXPAND: [[u8; 16]; 256] = {
    let mut rows = [[0x80; 16]; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut i, mut out) = (0, 0);
        while i < 8 {
            if mask >> i & 1 == 1 {
                rows[mask][out] = 2 * i as u8;
                out += 1;
            }
            rows[mask][out] = 2 * i as u8 + 1;
            out += 1;
            i += 1;
        }
        mask += 1;
    }
    rows
};

/// For each mask of 8 bytes (bit `i`: byte `i` is dropped), the indices of
/// the bytes kept, in order, as the 8 bytes of a `u64` (the rest `0x80`).
static COMPRESS: [u64; 256] = {
    let mut rows = [0; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut row = [0x80u8; 8];
        let (mut i, mut out) = (0, 0);
        while i < 8 {
            if mask >> i & 1 == 0 {
                row[out] = i as u8;
                out += 1;
            }
            i += 1;
        }
        rows[mask] = u64::from_le_bytes(row);
        mask += 1;
    }
    rows
};

/// How many bits of each byte value are set (`popcnt` is not part of the
/// AVX2 target feature).
static ONES: [u8; 256] = {
    let mut ones = [0; 256];
    let mut b = 0;
    while b < 256 {
        ones[b] = (b as u8).count_ones() as u8;
        b += 1;
    }
    ones
};

/// Byte `k` (0 to 3) of `mask`.
#[inline(always)]
fn group(mask: u32, k: u32) -> usize {
    (mask >> (8 * k) & 0xFF) as usize
}

/// Converts the 32 bytes of `block` to UTF-8 at the start of `out`, and
/// returns how many bytes that is; `None` (nothing written) when
/// `windows` and the block holds a byte of `80`..`9F`, whose characters
/// are not U+0080..U+009F.
///
/// # Safety
///
/// The CPU must have AVX2 (the caller is compiled for it).
#[inline(always)]
pub(super) unsafe fn expand(block: &[u8; 32], out: &mut [u8; 64], windows: bool) -> Option<usize> {
    // SAFETY: the loads read the 32 bytes of `block` and 16 of rows of
    // `EXPAND`; the stores write `out[..32]`, or 16 bytes at each of
    // `at[0..4]`, each at most 48 (three groups of at most 16 bytes), so
    // within its 64. AVX2 is the caller's promise.
    unsafe {
        let v = _mm256_loadu_si256(block.as_ptr().cast::<__m256i>());
        let high = _mm256_movemask_epi8(v) as u32;
        if high == 0 {
            _mm256_storeu_si256(out.as_mut_ptr().cast::<__m256i>(), v);
            return Some(32);
        }
        if windows {
            // `80`..`9F` are the signed bytes below `A0`.
            let c1 = _mm256_cmpgt_epi8(_mm256_set1_epi8(0xA0u8 as i8), v);
            if _mm256_movemask_epi8(c1) != 0 {
                return None;
            }
        }
        // From a byte b above 7F: C0 | b >> 6, then 80 | b & 3F (b with
        // its bit 6 cleared); an ASCII byte stays as it is.
        let lead = _mm256_or_si256(
            _mm256_and_si256(_mm256_srli_epi16::<6>(v), _mm256_set1_epi8(0x03)),
            _mm256_set1_epi8(0xC0u8 as i8),
        );
        let flagged = _mm256_cmpgt_epi8(_mm256_setzero_si256(), v);
        let second = _mm256_andnot_si256(_mm256_and_si256(flagged, _mm256_set1_epi8(0x40)), v);
        // The pairs of bytes 0..8 and 16..24, then of 8..16 and 24..32.
        let pairs_a = _mm256_unpacklo_epi8(lead, second);
        let pairs_b = _mm256_unpackhi_epi8(lead, second);
        let rows = |lo: usize, hi: usize| {
            let lo = _mm_loadu_si128(EXPAND[lo].as_ptr().cast::<__m128i>());
            let hi = _mm_loadu_si128(EXPAND[hi].as_ptr().cast::<__m128i>());
            _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
        };
        let a = _mm256_shuffle_epi8(pairs_a, rows(group(high, 0), group(high, 2)));
        let b = _mm256_shuffle_epi8(pairs_b, rows(group(high, 1), group(high, 3)));
        let len = |k: u32| 8 + usize::from(ONES[group(high, k)]);
        let at1 = len(0);
        let at2 = at1 + len(1);
        let at3 = at2 + len(2);
        let dst = out.as_mut_ptr();
        _mm_storeu_si128(dst.cast::<__m128i>(), _mm256_castsi256_si128(a));
        _mm_storeu_si128(dst.add(at1).cast::<__m128i>(), _mm256_castsi256_si128(b));
        _mm_storeu_si128(
            dst.add(at2).cast::<__m128i>(),
            _mm256_extracti128_si256::<1>(a),
        );
        _mm_storeu_si128(
            dst.add(at3).cast::<__m128i>(),
            _mm256_extracti128_si256::<1>(b),
        );
        Some(at3 + len(3))
    }
}

/// The room [`expand_windows`] needs: 3 bytes a byte, and the last
/// store's 16 from at most 84.
pub(super) const WINDOWS_ROOM: usize = 112;

/// The first, second and third bytes of the UTF-8 forms of Windows-1252's
/// `80`..`9F` (0 past their length), by the byte's low 5 bits, as two rows
/// of 16 each.
static WINDOWS_C1: [[[u8; 16]; 2]; 3] = {
    let table = super::utf8_table(true);
    let mut rows = [[[0; 16]; 2]; 3];
    let mut k = 0;
    while k < 32 {
        let form = table[0x80 + k];
        let mut j = 0;
        while j < 3 {
            if j < form[3] as usize {
                rows[j][k / 16][k % 16] = form[j];
            }
            j += 1;
        }
        k += 1;
    }
    rows
};

/// For each group of 4 bytes, by `two | three << 4` (bit `i` of `two`: byte
/// `i` takes 2 bytes or more; of `three`: 3), the shuffle of its 4-byte
/// slots (first, second, third byte, 0) that keeps its form.
static SLOTS: [[u8; 16]; 256] = {
    let mut rows = [[0x80; 16]; 256];
    let mut key = 0;
    while key < 256 {
        let (mut i, mut out) = (0, 0);
        while i < 4 {
            let len = 1 + (key >> i & 1) + (key >> (4 + i) & 1);
            let mut j = 0;
            while j < len {
                rows[key][out] = (4 * i + j) as u8;
                out += 1;
                j += 1;
            }
            i += 1;
        }
        key += 1;
    }
    rows
};

/// The length of a group of 4 bytes by its key in [`SLOTS`].
static SLOT_LEN: [u8; 256] = {
    let mut lens = [0; 256];
    let mut key = 0;
    while key < 256 {
        lens[key] = 4 + (key as u8).count_ones() as u8;
        key += 1;
    }
    lens
};

/// Converts the 32 bytes of Windows-1252 in `block`, where some are in
/// `80`..`9F`, to UTF-8 at the start of `out`, and returns how many bytes
/// that is. Every byte gets its form's three bytes (from the byte itself,
/// or looked up by its low 5 bits in `80`..`9F`), in a 4-byte slot; each
/// group of 4 slots is then shuffled, as its bytes' lengths say, into at
/// most 12 bytes.
///
/// # Safety
///
/// The CPU must have AVX2 (the caller is compiled for it).
#[inline(always)]
pub(super) unsafe fn expand_windows(block: &[u8; 32], out: &mut [u8; WINDOWS_ROOM]) -> usize {
    // SAFETY: the loads read the 32 bytes of `block`, 16-byte rows of
    // `WINDOWS_C1` and `SLOTS`; the stores write 16 bytes at each of eight
    // offsets, each at most 84 (seven groups of at most 12 bytes), so
    // within `out`'s 112. AVX2 is the caller's promise.
    unsafe {
        let v = _mm256_loadu_si256(block.as_ptr().cast::<__m256i>());
        let zero = _mm256_setzero_si256();
        let low = _mm256_and_si256(v, _mm256_set1_epi8(0x0F));
        // Bit 4 of each byte moved to its bit 7, which `blendv` reads.
        let upper = _mm256_slli_epi16::<3>(v);
        let look = |rows: &[[u8; 16]; 2]| {
            let row = |k: usize| {
                _mm256_broadcastsi128_si256(_mm_loadu_si128(rows[k].as_ptr().cast::<__m128i>()))
            };
            _mm256_blendv_epi8(
                _mm256_shuffle_epi8(row(0), low),
                _mm256_shuffle_epi8(row(1), low),
                upper,
            )
        };
        let c1 = _mm256_cmpgt_epi8(_mm256_set1_epi8(0xA0u8 as i8), v);
        let flagged = _mm256_cmpgt_epi8(zero, v);
        // As in `expand`, from `A0` up; then `80`..`9F` from the tables.
        let lead = _mm256_or_si256(
            _mm256_and_si256(_mm256_srli_epi16::<6>(v), _mm256_set1_epi8(0x03)),
            _mm256_set1_epi8(0xC0u8 as i8),
        );
        let second = _mm256_and_si256(_mm256_andnot_si256(_mm256_set1_epi8(0x40), v), flagged);
        let first = _mm256_blendv_epi8(
            _mm256_blendv_epi8(v, lead, flagged),
            look(&WINDOWS_C1[0]),
            c1,
        );
        let second = _mm256_blendv_epi8(second, look(&WINDOWS_C1[1]), c1);
        let third = _mm256_and_si256(look(&WINDOWS_C1[2]), c1);
        let two = _mm256_movemask_epi8(flagged) as u32;
        let three = !(_mm256_movemask_epi8(_mm256_cmpeq_epi8(third, zero)) as u32);
        // Slots of bytes 0..4 and 16..20, 4..8 and 20..24, and so on.
        let (a, b) = (
            _mm256_unpacklo_epi8(first, second),
            _mm256_unpacklo_epi8(third, zero),
        );
        let (c, d) = (
            _mm256_unpackhi_epi8(first, second),
            _mm256_unpackhi_epi8(third, zero),
        );
        let slots = [
            _mm256_unpacklo_epi16(a, b),
            _mm256_unpackhi_epi16(a, b),
            _mm256_unpacklo_epi16(c, d),
            _mm256_unpackhi_epi16(c, d),
        ];
        let key = |g: u32| ((two >> (4 * g) & 0xF) | (three >> (4 * g) & 0xF) << 4) as usize;
        let row = |g: u32| _mm_loadu_si128(SLOTS[key(g)].as_ptr().cast::<__m128i>());
        // Groups j and 4 + j are the lanes of `slots[j]`: one shuffle.
        let mut bytes = [_mm256_setzero_si256(); 4];
        for (j, (bytes, &slot)) in bytes.iter_mut().zip(&slots).enumerate() {
            let j = j as u32;
            let rows = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(row(j)), row(4 + j));
            *bytes = _mm256_shuffle_epi8(slot, rows);
        }
        let dst = out.as_mut_ptr();
        let mut at = 0;
        for lane in 0..2 {
            for (j, &bytes) in bytes.iter().enumerate() {
                let half = if lane == 0 {
                    _mm256_castsi256_si128(bytes)
                } else {
                    _mm256_extracti128_si256::<1>(bytes)
                };
                _mm_storeu_si128(dst.add(at).cast::<__m128i>(), half);
                at += usize::from(SLOT_LEN[key(4 * lane + j as u32)]);
            }
        }
        at
    }
}

/// Converts the characters that start in `block`, well-formed UTF-8 that
/// starts with a character, into the single-byte encoding at the start of
/// `out`: the bytes read (32, or 31 when the last byte is a lead) and
/// written. `None` (nothing written) when a character is not ASCII nor
/// U+00A0..U+00FF, or, without `windows`, U+0080..U+009F.
///
/// # Safety
///
/// The CPU must have AVX2 (the caller is compiled for it).
#[inline(always)]
pub(super) unsafe fn compress(
    block: &[u8; 32],
    out: &mut [u8; 32],
    windows: bool,
) -> Option<(usize, usize)> {
    // SAFETY: the caller's promises.
    unsafe { compress_checked::<false>(block, out, windows) }
}

/// [`compress`], and with `CHECK` on input not known to be well formed:
/// `None` also where it is not, or where its first byte continues a
/// character. Where the only bytes above `7F` are `C2`, `C3` and
/// continuation bytes, it is well formed exactly when the continuation
/// bytes are the bytes after the leads (a lead in the last byte is left
/// for the next block, which checks it).
///
/// # Safety
///
/// The CPU must have AVX2 (the caller is compiled for it).
#[inline(always)]
pub(super) unsafe fn compress_checked<const CHECK: bool>(
    block: &[u8; 32],
    out: &mut [u8; 32],
    windows: bool,
) -> Option<(usize, usize)> {
    // SAFETY: the load reads the 32 bytes of `block`; the stores write
    // `out[..32]`, or 8 bytes at each of four offsets, each at most 24
    // (three groups of at most 8 bytes), so within its 32. AVX2 is the
    // caller's promise.
    unsafe {
        let v = _mm256_loadu_si256(block.as_ptr().cast::<__m256i>());
        let high = _mm256_movemask_epi8(v) as u32;
        if high == 0 {
            _mm256_storeu_si256(out.as_mut_ptr().cast::<__m256i>(), v);
            return Some((32, 32));
        }
        // Leads from C4 up: as signed bytes, above C3 (and below 0).
        let big = _mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(0xC3u8 as i8)));
        if big as u32 & high != 0 {
            return None;
        }
        let leads = _mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(0xBFu8 as i8)))
            as u32
            & high;
        if CHECK {
            // C0 and C1 are never leads; C2 and C3 are the signed bytes
            // above C1 (and those above C3 are out already).
            let good = _mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(0xC1u8 as i8)))
                as u32
                & high;
            if good != leads || high & !leads != leads << 1 {
                return None;
            }
        }
        // Each byte's predecessor (zero before the first, which starts a
        // character).
        let prev = _mm256_alignr_epi8::<15>(v, _mm256_permute2x128_si256::<0x08>(v, v));
        if windows {
            // C2 then 80..9F: U+0080..U+009F, most of which Windows-1252
            // lacks (the byte loop writes the five it has).
            let c2 = _mm256_cmpeq_epi8(prev, _mm256_set1_epi8(0xC2u8 as i8));
            let c1 = _mm256_cmpgt_epi8(_mm256_set1_epi8(0xA0u8 as i8), v);
            if _mm256_movemask_epi8(_mm256_and_si256(c2, c1)) != 0 {
                return None;
            }
        }
        // The input is valid, so a continuation byte follows C2 (it is the
        // character's byte) or C3 (the byte is it plus 40).
        let c3 = _mm256_cmpeq_epi8(prev, _mm256_set1_epi8(0xC3u8 as i8));
        let bytes = _mm256_or_si256(v, _mm256_and_si256(c3, _mm256_set1_epi8(0x40)));
        // A lead in the last byte is dropped here and read by the next step.
        Some((32 - (leads >> 31) as usize, pack(bytes, leads, out)))
    }
}

/// Stores the bytes of `bytes` whose bits in `drop` are clear, in order,
/// at the start of `out`, and returns how many: each group of 8 by a
/// shuffle chosen by its bits, stored 8 bytes at a time.
///
/// # Safety
///
/// The CPU must have AVX2 (the caller is compiled for it).
#[inline(always)]
unsafe fn pack(bytes: __m256i, drop: u32, out: &mut [u8; 32]) -> usize {
    // SAFETY: the stores write 8 bytes at each of four offsets, each at
    // most 24 (three groups of at most 8 bytes), so within `out`'s 32;
    // the loads read rows of `COMPRESS` and `ONES` by a byte's value.
    // AVX2 is the caller's promise.
    unsafe {
        // Groups 1 and 3 are the upper halves of their 16-byte lanes.
        // (No carry: every byte of a row is below 88.)
        let row = |k: u32, add: u64| COMPRESS[group(drop, k)].wrapping_add(add) as i64;
        let upper = 0x0808_0808_0808_0808;
        let control = _mm256_set_epi64x(row(3, upper), row(2, 0), row(1, upper), row(0, 0));
        let packed = _mm256_shuffle_epi8(bytes, control);
        let (lo, hi) = (
            _mm256_castsi256_si128(packed),
            _mm256_extracti128_si256::<1>(packed),
        );
        let kept = |k: u32| 8 - usize::from(ONES[group(drop, k)]);
        let at1 = kept(0);
        let at2 = at1 + kept(1);
        let at3 = at2 + kept(2);
        let dst = out.as_mut_ptr();
        _mm_storel_epi64(dst.cast::<__m128i>(), lo);
        _mm_storel_epi64(dst.add(at1).cast::<__m128i>(), _mm_unpackhi_epi64(lo, lo));
        _mm_storel_epi64(dst.add(at2).cast::<__m128i>(), hi);
        _mm_storel_epi64(dst.add(at3).cast::<__m128i>(), _mm_unpackhi_epi64(hi, hi));
        at3 + kept(3)
    }
}

/// Windows-1252's characters above U+00FF (its 27 of `80`..`9F` that are
/// not C1 controls), found by the last two bytes of their UTF-8 forms:
/// the lead of a 2-byte form (`C5`, `C6`, `CB`) or the second byte of a
/// 3-byte one (`80`, `82`, `84`, after `E2`), then the last byte. A
/// character's slot, of 64, is its last byte plus an offset chosen for
/// its first byte (by that byte's low nibble, which the six differ in) so
/// that no two characters share one; the slot holds that first byte, to
/// check, and the character's byte in Windows-1252.
struct Typographic {
    offset: [u8; 16],
    first: [[u8; 16]; 4],
    byte: [[u8; 16]; 4],
}

/// The last two bytes of the UTF-8 form of Windows-1252's byte `80 + k`,
/// if its character is above U+00FF.
const fn last_two(k: usize) -> Option<(u8, u8)> {
    let form = super::utf8_table(true)[0x80 + k];
    match form[3] {
        2 if form[0] != 0xC2 => Some((form[0], form[1])),
        3 => Some((form[1], form[2])),
        _ => None,
    }
}

/// 64 slots as 4 rows of 16, for byte shuffles.
const fn rows(slots: [u8; 64]) -> [[u8; 16]; 4] {
    let mut rows = [[0u8; 16]; 4];
    let mut s = 0;
    while s < 64 {
        rows[s / 16][s % 16] = slots[s];
        s += 1;
    }
    rows
}

static TYPOGRAPHIC: Typographic = {
    let mut offset = [0u8; 16];
    let mut taken = [false; 16];
    let (mut first, mut byte) = ([0u8; 64], [0u8; 64]);
    let mut placed = 0;
    // The first bytes with the most characters first, each at the least
    // offset where its characters find free slots.
    let pages = [0x80u8, 0xC5, 0xCB, 0xC6, 0x82, 0x84];
    let mut i = 0;
    while i < pages.len() {
        let page = pages[i];
        assert!(
            !taken[(page & 0x0F) as usize],
            "two first bytes share a nibble"
        );
        taken[(page & 0x0F) as usize] = true;
        let mut d = 0;
        loop {
            assert!(d < 64, "no offset fits");
            let mut fits = true;
            let mut k = 0;
            while k < 32 {
                if let Some((p, c)) = last_two(k) {
                    if p == page && first[(c as usize + d) & 63] != 0 {
                        fits = false;
                    }
                }
                k += 1;
            }
            if fits {
                break;
            }
            d += 1;
        }
        offset[(page & 0x0F) as usize] = d as u8;
        let mut k = 0;
        while k < 32 {
            if let Some((p, c)) = last_two(k) {
                if p == page {
                    first[(c as usize + d) & 63] = p;
                    byte[(c as usize + d) & 63] = 0x80 + k as u8;
                    placed += 1;
                }
            }
            k += 1;
        }
        i += 1;
    }
    assert!(placed == 27, "a character without a first byte above");
    Typographic {
        offset,
        first: rows(first),
        byte: rows(byte),
    }
};

/// Byte `slot` (0 to 63) of the 64 in `rows`, for each byte of `slot`.
///
/// # Safety
///
/// The CPU must have AVX2 (the caller is compiled for it).
#[inline(always)]
unsafe fn look64(rows: &[[u8; 16]; 4], slot: __m256i) -> __m256i {
    // SAFETY: the loads read the four 16-byte rows. AVX2 is the caller's
    // promise.
    unsafe {
        // (No closures here: they would not inherit the caller's AVX2, and
        // their intrinsics would become calls.) Bits 7 of `slot` are
        // clear: each byte takes its row's byte.
        let mut r = [_mm256_setzero_si256(); 4];
        for (r, row) in r.iter_mut().zip(rows) {
            let row = _mm_loadu_si128(row.as_ptr().cast::<__m128i>());
            *r = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(row), slot);
        }
        let [r0, r1, r2, r3] = r;
        // Bits 4 and 5 of the slot moved to bit 7, which `blendv` reads.
        let (bit4, bit5) = (_mm256_slli_epi16::<3>(slot), _mm256_slli_epi16::<2>(slot));
        _mm256_blendv_epi8(
            _mm256_blendv_epi8(r0, r1, bit4),
            _mm256_blendv_epi8(r2, r3, bit4),
            bit5,
        )
    }
}

/// [`compress`] for Windows-1252 where the block also holds its
/// characters above U+00FF (curly quotes, dashes, `€`, `Œ`...): each
/// character's last byte becomes its character's byte (looked up in
/// [`TYPOGRAPHIC`] for those), and its other bytes are dropped. The bytes
/// read are 32, or fewer where a character is cut by the block's end.
/// `None` (nothing written) where a character is none of ASCII,
/// U+00A0..U+00FF and those 27.
///
/// # Safety
///
/// The CPU must have AVX2 (the caller is compiled for it).
#[inline(always)]
pub(super) unsafe fn compress_windows(
    block: &[u8; 32],
    out: &mut [u8; 32],
) -> Option<(usize, usize)> {
    // SAFETY: the loads read the 32 bytes of `block` and 16-byte rows of
    // `TYPOGRAPHIC`; `pack` writes within `out`. AVX2 is the caller's
    // promise.
    unsafe {
        let v = _mm256_loadu_si256(block.as_ptr().cast::<__m256i>());
        let high = _mm256_movemask_epi8(v) as u32;
        // Leads from E0 up (signed bytes above DF, and below 0): only E2,
        // whose 3-byte characters the table knows by their second byte.
        let three = _mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(0xDFu8 as i8)))
            as u32
            & high;
        let e2 = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(0xE2u8 as i8))) as u32;
        if three != e2 {
            return None;
        }
        // Continuation bytes, 80..BF: the signed bytes below C0.
        let is_cont = _mm256_cmpgt_epi8(_mm256_set1_epi8(0xC0u8 as i8), v);
        let cont = _mm256_movemask_epi8(is_cont) as u32;
        let leads = high & !cont;
        // A character cut by the block's end (a lead in the last byte, or
        // E2 in the one before) is left for the next step.
        let read = 32 - (leads >> 31) as usize - 2 * (e2 >> 30 & 1) as usize;
        let cut = u32::MAX.checked_shl(read as u32).unwrap_or(0);
        // All but the last byte of each character, and the cut one.
        let drop = leads | cont & (cont >> 1) | cut;
        let prev = _mm256_alignr_epi8::<15>(v, _mm256_permute2x128_si256::<0x08>(v, v));
        let c2 = _mm256_cmpeq_epi8(prev, _mm256_set1_epi8(0xC2u8 as i8));
        let c3 = _mm256_cmpeq_epi8(prev, _mm256_set1_epi8(0xC3u8 as i8));
        let offset = _mm256_broadcastsi128_si256(_mm_loadu_si128(
            TYPOGRAPHIC.offset.as_ptr().cast::<__m128i>(),
        ));
        let nibble = _mm256_and_si256(prev, _mm256_set1_epi8(0x0F));
        let slot = _mm256_and_si256(
            _mm256_add_epi8(v, _mm256_shuffle_epi8(offset, nibble)),
            _mm256_set1_epi8(0x3F),
        );
        let known = _mm256_and_si256(
            _mm256_cmpeq_epi8(look64(&TYPOGRAPHIC.first, slot), prev),
            is_cont,
        );
        // After C2, 80..9F is U+0080..U+009F, left to the byte loop as in
        // `compress`.
        let c1 = _mm256_cmpgt_epi8(_mm256_set1_epi8(0xA0u8 as i8), v);
        let latin = _mm256_or_si256(c3, _mm256_andnot_si256(c1, c2));
        let good = _mm256_movemask_epi8(_mm256_or_si256(known, latin)) as u32;
        if cont & !drop & !good != 0 {
            return None;
        }
        let latin = _mm256_or_si256(v, _mm256_and_si256(c3, _mm256_set1_epi8(0x40)));
        let bytes = _mm256_blendv_epi8(latin, look64(&TYPOGRAPHIC.byte, slot), known);
        Some((read, pack(bytes, drop, out)))
    }
}

#[cfg(test)]
mod tests {
    //! The loops with the vector steps against the same loops without
    //! them, byte for byte, at every alignment and length around the
    //! blocks, with the interesting bytes or characters at every position.

    extern crate std;
    use std::vec::Vec;
    use std::{format, vec};

    use super::super::{from_utf8_loop, to_utf8_loop, SingleByte, ToSingleByte};
    use super::*;
    use crate::transcode::Policy;
    use crate::utf8_input::{self, Convert};

    const ENCODINGS: [SingleByte; 2] = [SingleByte::Latin1, SingleByte::Windows1252];

    fn has_avx2() -> bool {
        if crate::cpu::has_avx2() {
            return true;
        }
        std::eprintln!("skipped: this CPU has no AVX2");
        false
    }

    /// Both loops into outputs of `room` bytes, which must agree.
    fn same_to_utf8(encoding: SingleByte, input: &[u8], room: usize) {
        let (mut fast, mut slow) = (vec![0u8; room], vec![0u8; room]);
        // SAFETY: the caller checked AVX2.
        let p = unsafe { to_utf8_avx2(encoding, input, &mut fast) };
        let q = to_utf8_loop::<false>(encoding, input, &mut slow);
        assert_eq!(
            (p.read, p.written, p.result),
            (q.read, q.written, q.result),
            "{encoding:?} {input:02X?} room {room}"
        );
        assert_eq!(
            fast[..p.written],
            slow[..q.written],
            "{encoding:?} {input:02X?}"
        );
    }

    /// Text with ASCII, then `bytes` written over it, one at each position
    /// in turn, at every offset of a larger buffer.
    #[test]
    fn to_utf8_with_a_high_byte_at_every_position() {
        if !has_avx2() {
            return;
        }
        let base: Vec<u8> = (0..400).map(|i| b'a' + (i % 26) as u8).collect();
        for encoding in ENCODINGS {
            let runs = [159, 160, 161, 191, 192, 193, 288, 289, 320, 352];
            let lens = [31, 32, 33, 40, 47, 48, 63, 64, 65, 66, 95, 96, 97, 130];
            for len in (0..=24).chain(lens).chain(runs) {
                for offset in [0, 1, 3, 7, 8, 15, 16, 31] {
                    for pos in 0..len {
                        for b in [0x80, 0x81, 0x9F, 0xA0, 0xBF, 0xC0, 0xC3, 0xE9, 0xFF] {
                            let mut buf = base.clone();
                            buf[offset + pos] = b;
                            let input = &buf[offset..offset + len];
                            same_to_utf8(encoding, input, 3 * len + 64);
                        }
                    }
                }
            }
        }
    }

    /// A generator of test bytes (xorshift64*).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
    }

    /// Blocks of every density of high bytes, each into every room up to
    /// what all of it needs, and every byte value once.
    #[test]
    fn to_utf8_at_every_density_and_room() {
        if !has_avx2() {
            return;
        }
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let every: Vec<u8> = (0..=255).collect();
        for encoding in ENCODINGS {
            same_to_utf8(encoding, &every, 1024);
            for density in [0, 1, 2, 4, 8, 16, 32, 64] {
                for len in [7, 8, 9, 16, 17, 32, 33, 64, 65, 100] {
                    let input: Vec<u8> = (0..len)
                        .map(|_| {
                            let x = rng.next();
                            if (x >> 8) % 64 < density {
                                0x80 | x as u8
                            } else {
                                x as u8 & 0x7F
                            }
                        })
                        .collect();
                    for room in 0..=3 * len + 70 {
                        same_to_utf8(encoding, &input, room);
                    }
                }
            }
        }
    }

    /// UTF-8 into `encoding` by `valid`'s loop, with or without the
    /// vectors, for `utf8_input::convert`.
    struct Loop(SingleByte, bool);

    impl Convert for Loop {
        type Unit = u8;
        const REPLACEMENT: u8 = ToSingleByte::REPLACEMENT;

        fn valid(&self, src: &[u8], dst: &mut [u8]) -> (usize, usize, Stop) {
            if self.1 {
                // SAFETY: the tests that make one checked AVX2.
                unsafe { from_utf8_avx2(self.0, src, dst) }
            } else {
                from_utf8_loop::<false>(self.0, src, dst)
            }
        }
    }

    /// Both loops through `utf8_input::convert`, which must agree: what
    /// was read and written, the status or the error (offset, length,
    /// cause).
    fn same_from_utf8(encoding: SingleByte, input: &[u8], policy: Policy, room: usize) {
        let (mut fast, mut slow) = (vec![0u8; room], vec![0u8; room]);
        for last in [true, false] {
            let p = utf8_input::convert(&Loop(encoding, true), input, policy, &mut fast, last);
            let q = utf8_input::convert(&Loop(encoding, false), input, policy, &mut slow, last);
            let what = format!("{encoding:?} {policy:?} {input:02X?} room {room}");
            assert_eq!((p.read, p.written), (q.read, q.written), "{what}");
            assert_eq!(p.result, q.result, "{what}");
            assert_eq!(fast[..p.written], slow[..q.written], "{what}");
            // SAFETY: the tests that call this checked AVX2.
            let p = unsafe { from_utf8_into_avx2(encoding, input, policy, &mut fast, last) };
            assert_eq!((p.read, p.written), (q.read, q.written), "{what}");
            assert_eq!(p.result, q.result, "{what}");
            assert_eq!(fast[..p.written], slow[..q.written], "{what}");
        }
    }

    /// Characters (and broken sequences) that each take another road.
    const PIECES: [&[u8]; 18] = [
        b"\xC2\x80",         // U+0080: Latin-1 only
        b"\xC2\x81",         // U+0081: in both
        b"\xC2\x9F",         // U+009F: Latin-1 only
        b"\xC2\xA0",         // U+00A0
        b"\xC2\xBF",         // U+00BF
        b"\xC3\x80",         // U+00C0
        b"\xC3\xBF",         // U+00FF
        b"\xC4\x80",         // U+0100: in neither
        b"\xC5\x92",         // U+0152: Windows-1252's 8C
        b"\xE2\x82\xAC",     // U+20AC: Windows-1252's 80
        b"\xE4\xB8\xAD",     // U+4E2D: in neither
        b"\xF0\x9F\x98\x80", // U+1F600: in neither
        b"\xC3",             // a lead alone
        b"\xA9",             // a continuation alone
        b"\xC0\xAF",         // an overlong form
        b"\xE2\x82",         // cut short
        b"\xED\xA0\x80",     // a surrogate
        b"\xFF",             // never in UTF-8
    ];

    /// ASCII and Latin-1 text with each piece at every position of blocks
    /// around 8, 16, 32 and 64 bytes long, at every offset, under both
    /// policies.
    #[test]
    fn from_utf8_with_a_character_or_error_at_every_position() {
        if !has_avx2() {
            return;
        }
        // Text of ASCII and é (C3 A9), à (C3 A0) and ° (C2 B0).
        let base: Vec<u8> = "abé dà°fghij°klmnoé pqrstuvwxyzàAB°CDéEFGHIJàKLM°NOPéQRSTUVWXYZ"
            .repeat(4)
            .into_bytes();
        let ascii: Vec<u8> = (0..400).map(|i| b'a' + (i % 26) as u8).collect();
        for encoding in ENCODINGS {
            for text in [&base, &ascii] {
                let lens = [31, 32, 33, 34, 63, 64, 65, 66, 97, 130];
                // Past a first block of ASCII, a run of 128 and what is
                // left of another.
                let runs = [159, 160, 161, 192, 193, 290];
                let runs = if text == &ascii { &runs[..] } else { &[] };
                for len in (0..=20).chain(lens).chain(runs.iter().copied()) {
                    for offset in [0, 1, 2, 5, 16, 31] {
                        let mut start = offset;
                        // Start and end between characters.
                        while text[start] & 0xC0 == 0x80 {
                            start += 1;
                        }
                        let mut end = start + len;
                        while text[end] & 0xC0 == 0x80 {
                            end += 1;
                        }
                        let clean = &text[start..end];
                        for policy in [Policy::Strict, Policy::Replace] {
                            same_from_utf8(encoding, clean, policy, clean.len());
                        }
                        for pos in (0..=clean.len())
                            .filter(|&p| clean.get(p).is_none_or(|&b| b & 0xC0 != 0x80))
                        {
                            for piece in PIECES {
                                let mut input = clean[..pos].to_vec();
                                input.extend_from_slice(piece);
                                input.extend_from_slice(&clean[pos..]);
                                for policy in [Policy::Strict, Policy::Replace] {
                                    same_from_utf8(encoding, &input, policy, input.len());
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Long text, where the AVX2 entry point takes pieces the general way
    /// after a block it leaves: a character or error at every position,
    /// and another one further on, under both policies.
    #[test]
    fn from_utf8_in_pieces_with_a_character_or_error_at_every_position() {
        if !has_avx2() {
            return;
        }
        let text: Vec<u8> = "Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich. "
            .repeat(20)
            .into_bytes();
        let cuts: Vec<usize> = (0..=text.len())
            .filter(|&p| text.get(p).is_none_or(|&b| b & 0xC0 != 0x80))
            .collect();
        for encoding in ENCODINGS {
            for (k, &pos) in cuts.iter().enumerate() {
                let piece = PIECES[k % PIECES.len()];
                let other = PIECES[(k / 3 + 5) % PIECES.len()];
                let later = cuts[(k + 37 * (k % 11) + 1).min(cuts.len() - 1)];
                let input = [
                    &text[..pos],
                    piece,
                    &text[pos..later],
                    other,
                    &text[later..],
                ]
                .concat();
                for policy in [Policy::Strict, Policy::Replace] {
                    same_from_utf8(encoding, &input, policy, input.len());
                }
            }
        }
    }

    /// Latin-1 text at every density of non-ASCII characters, each into
    /// every room up to its length.
    #[test]
    fn from_utf8_at_every_density_and_room() {
        if !has_avx2() {
            return;
        }
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        for encoding in ENCODINGS {
            for density in [0, 1, 2, 4, 8, 16, 32, 64] {
                for len in [7, 8, 9, 16, 17, 32, 33, 64, 65, 100] {
                    let mut input = Vec::new();
                    for _ in 0..len {
                        let x = rng.next();
                        let c = if (x >> 8) % 64 < density {
                            char::from(0x80 | x as u8)
                        } else {
                            char::from(x as u8 & 0x7F)
                        };
                        let mut buf = [0; 4];
                        input.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                    for room in 0..=input.len() + 1 {
                        same_from_utf8(encoding, &input, Policy::Strict, room);
                    }
                }
            }
        }
    }

    /// Windows-1252's characters above U+00FF, their neighbours that it
    /// lacks (the same last byte after another first byte, or the same
    /// last two bytes after another lead), and the other roads.
    const TYPOGRAPHIC_PIECES: [&[u8]; 24] = [
        "€".as_bytes(),      // E2 82 AC: 80
        "…".as_bytes(),      // E2 80 A6: 85
        "“".as_bytes(),      // E2 80 9C: 93
        "—".as_bytes(),      // E2 80 94: 97
        "™".as_bytes(),      // E2 84 A2: 99
        "Œ".as_bytes(),      // C5 92: 8C
        "ž".as_bytes(),      // C5 BE: 9E
        "ƒ".as_bytes(),      // C6 92: 83
        "˜".as_bytes(),      // CB 9C: 98
        "é".as_bytes(),      // C3 A9
        b"\xC2\x81",         // U+0081: Windows-1252's 81, by the byte loop
        b"\xC2\x80",         // U+0080: not in Windows-1252
        b"\xE2\x80\x95",     // U+2015: not in it
        b"\xE2\x82\xAD",     // U+20AD: not in it
        b"\xE2\x84\xA3",     // U+2123: not in it
        b"\xE3\x80\x93",     // U+3013: the last two bytes of U+2013
        b"\xE2\x81\x93",     // U+2053
        b"\xC4\x92",         // U+0112: the last byte of Œ and ƒ
        b"\xC5\x94",         // U+0154
        b"\xCB\x87",         // U+02C7
        b"\xD0\x92",         // U+0412
        b"\xF0\x9F\x98\x80", // U+1F600
        b"\xE2\x80",         // cut short
        b"\xFF",             // never in UTF-8
    ];

    /// Typographic text (each block has characters above U+00FF) with each
    /// piece at every position, at every offset, under both policies, and
    /// into every room for some.
    #[test]
    fn from_utf8_typographic_with_a_character_or_error_at_every_position() {
        if !has_avx2() {
            return;
        }
        let text: Vec<u8> = "« Il a dit : “c’est 10 € – pas plus…” » et l’œuvre coûte 20 €. \
                             ‘Ça’ suffit — Šárka, Œdipe, Ÿves, ƒ ˜ ˆ ™ ž. "
            .repeat(6)
            .into_bytes();
        let starts = |text: &[u8], p: usize| text.get(p).is_none_or(|&b| b & 0xC0 != 0x80);
        for encoding in ENCODINGS {
            for len in (0..=20).chain([30, 31, 32, 33, 34, 62, 63, 64, 65, 66, 97, 130, 200]) {
                for offset in [0, 1, 2, 3, 5, 16, 31] {
                    let mut start = offset;
                    while !starts(&text, start) {
                        start += 1;
                    }
                    let mut end = start + len;
                    while !starts(&text, end) {
                        end += 1;
                    }
                    let clean = &text[start..end];
                    for room in 0..=clean.len() + 1 {
                        same_from_utf8(encoding, clean, Policy::Strict, room);
                    }
                    for pos in (0..=clean.len()).filter(|&p| starts(clean, p)) {
                        for piece in TYPOGRAPHIC_PIECES {
                            let input = [&clean[..pos], piece, &clean[pos..]].concat();
                            for policy in [Policy::Strict, Policy::Replace] {
                                same_from_utf8(encoding, &input, policy, input.len());
                            }
                            if len == 33 && offset == 0 {
                                for room in 0..input.len() {
                                    same_from_utf8(encoding, &input, Policy::Replace, room);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Every character up to U+3000 and a few above, in typographic text
    /// at the positions around a block's end.
    #[test]
    fn from_utf8_typographic_with_every_character() {
        if !has_avx2() {
            return;
        }
        let text: Vec<u8> = "“c’est 10 € – pas plus…” Œdipe, ƒ ˜ ™ ž. "
            .repeat(4)
            .into_bytes();
        let cuts: Vec<usize> = (0..48).filter(|&p| text[p] & 0xC0 != 0x80).collect();
        let chars = (0x80..0x3000)
            .chain([0xFFFD, 0x1_F600])
            .filter_map(char::from_u32);
        for c in chars {
            let mut buf = [0; 4];
            let c = c.encode_utf8(&mut buf).as_bytes();
            for &pos in &cuts {
                let input = [&text[..pos], c, &text[pos..]].concat();
                for policy in [Policy::Strict, Policy::Replace] {
                    same_from_utf8(SingleByte::Windows1252, &input, policy, input.len());
                }
            }
        }
    }
}
