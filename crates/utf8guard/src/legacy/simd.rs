//! Vector steps for the single-byte encodings (x86_64, AVX2).
//!
//! Into UTF-8, a step takes 32 bytes: all ASCII, they are stored as they
//! are; otherwise each group of 8 becomes up to 16 bytes by one shuffle,
//! chosen by the group's mask of bytes above `7F`, of the pairs (lead,
//! second byte) made for every byte. Out of UTF-8 (already validated), a
//! step takes 32 bytes whose only non-ASCII characters are `C2`/`C3` ones
//! (U+0080..U+00FF): each continuation byte becomes its character's byte,
//! and each group of 8 drops its lead bytes by a shuffle chosen by their
//! mask. Anything else (Windows-1252's `80`..`9F`, other characters) is
//! left to the byte-at-a-time loops, which also report the errors.
//!
//! The loops themselves are in `legacy.rs`, generic over whether the steps
//! run; here they are compiled for AVX2 as a whole, so that the steps
//! inline into them (a call per block, across target features, cost what
//! the shuffles saved).

use core::arch::x86_64::{
    __m128i, __m256i, _mm256_alignr_epi8, _mm256_and_si256, _mm256_andnot_si256,
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
        // Groups 1 and 3 are the upper halves of their 16-byte lanes.
        // (No carry: every byte of a row is below 88.)
        let row = |k: u32, add: u64| COMPRESS[group(leads, k)].wrapping_add(add) as i64;
        let upper = 0x0808_0808_0808_0808;
        let control = _mm256_set_epi64x(row(3, upper), row(2, 0), row(1, upper), row(0, 0));
        let packed = _mm256_shuffle_epi8(bytes, control);
        let (lo, hi) = (
            _mm256_castsi256_si128(packed),
            _mm256_extracti128_si256::<1>(packed),
        );
        let kept = |k: u32| 8 - usize::from(ONES[group(leads, k)]);
        let at1 = kept(0);
        let at2 = at1 + kept(1);
        let at3 = at2 + kept(2);
        let dst = out.as_mut_ptr();
        _mm_storel_epi64(dst.cast::<__m128i>(), lo);
        _mm_storel_epi64(dst.add(at1).cast::<__m128i>(), _mm_unpackhi_epi64(lo, lo));
        _mm_storel_epi64(dst.add(at2).cast::<__m128i>(), hi);
        _mm_storel_epi64(dst.add(at3).cast::<__m128i>(), _mm_unpackhi_epi64(hi, hi));
        // A lead in the last byte is dropped here and read by the next step.
        Some((32 - (leads >> 31) as usize, at3 + kept(3)))
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
}
