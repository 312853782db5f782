//! Vector steps for the single-byte encodings, written once over the
//! conversions' vector layer ([`SimdConvert`]) and instantiated for each
//! instruction set (SSE4.2, AVX2, NEON, simd128).
//!
//! Into UTF-8, a step takes one vector of bytes: all ASCII, they are stored
//! as they are; otherwise each group of 8 becomes up to 16 bytes by one
//! shuffle, chosen by the group's mask of bytes above `7F`, of the pairs
//! (lead, second byte) made for every byte. Out of UTF-8 (already
//! validated), a step takes one vector whose only non-ASCII characters are
//! `C2`/`C3` ones (U+0080..U+00FF): each continuation byte becomes its
//! character's byte, and each group of 8 drops its lead bytes by a shuffle
//! chosen by their mask. For Windows-1252, a vector with its characters
//! above U+00FF (`E2 80 9C` for `“`, `C5 92` for `Œ`...) looks each
//! character's byte up by the last two bytes of its form and keeps only
//! its last byte. Anything else (other characters, U+0080..U+009F) is left
//! to the byte-at-a-time loops, which also report the errors.
//!
//! The shuffles work within 128-bit lanes (the layer's definition): a
//! vector is `LANES / 16` lanes, each with its own shuffle control and its
//! own stores.
//!
//! The loops themselves are in `legacy.rs`, generic over their steps
//! ([`Steps`]); here they are compiled for each instruction set as a
//! whole, so that the steps inline into them (a call per block, across
//! target features, cost what the shuffles saved).

use core::mem::MaybeUninit;

use super::{SingleByte, Steps};
use crate::kernel::simd::SimdU8;
use crate::kernel::simd_convert::SimdConvert;
use crate::kernel::Kernel;
use crate::transcode::{Policy, Progress, Status, TranscodeError};
use crate::utf8_input::{self, Convert, Stop};

/// A vector type's steps: a value of it proves the instruction set.
impl<V: SimdConvert> Steps for V {
    const BLOCK: usize = V::LANES;
    const WINDOWS_ROOM: usize = 3 * V::LANES + 16;

    #[inline(always)]
    fn expand(self, block: &[u8], out: &mut [MaybeUninit<u8>], windows: bool) -> Option<usize> {
        expand(self, block, out, windows)
    }

    #[inline(always)]
    fn expand_windows(self, block: &[u8], out: &mut [MaybeUninit<u8>]) -> usize {
        expand_windows(self, block, out)
    }

    #[inline(always)]
    fn ascii_run(self, input: &[u8], output: &mut [MaybeUninit<u8>]) -> usize {
        ascii_run(self, input, output)
    }

    #[inline(always)]
    fn compress(
        self,
        block: &[u8],
        out: &mut [MaybeUninit<u8>],
        windows: bool,
    ) -> Option<(usize, usize)> {
        compress_checked::<V, false>(self, block, out, windows)
    }

    #[inline(always)]
    fn compress_windows(self, block: &[u8], out: &mut [MaybeUninit<u8>]) -> Option<(usize, usize)> {
        compress_windows(self, block, out)
    }
}

/// The instruction set's entry points, compiled for it as a whole.
pub(super) trait Entries: SimdConvert {
    /// `single_byte_to_utf8_into`'s loop.
    ///
    /// # Safety
    /// The CPU must support this type's instruction set.
    unsafe fn to_utf8(
        encoding: SingleByte,
        input: &[u8],
        output: &mut [MaybeUninit<u8>],
    ) -> Progress;

    /// The valid-input loop of `utf8_to_single_byte_into`.
    ///
    /// # Safety
    /// The CPU must support this type's instruction set.
    unsafe fn from_utf8_valid(
        encoding: SingleByte,
        src: &[u8],
        dst: &mut [MaybeUninit<u8>],
    ) -> (usize, usize, Stop);

    /// `utf8_to_single_byte_into`, checked steps first ([`from_utf8_into`]).
    ///
    /// # Safety
    /// The CPU must support this type's instruction set.
    unsafe fn from_utf8_into(
        encoding: SingleByte,
        input: &[u8],
        policy: Policy,
        output: &mut [MaybeUninit<u8>],
        last: bool,
    ) -> Progress;
}

/// [`Entries`] for vector type `$v`, compiled with target features
/// `$features`.
macro_rules! entries {
    ($v:ty, $features:literal) => {
        impl Entries for $v {
            #[target_feature(enable = $features)]
            unsafe fn to_utf8(
                encoding: SingleByte,
                input: &[u8],
                output: &mut [MaybeUninit<u8>],
            ) -> Progress {
                // SAFETY: this function's contract.
                let proof = unsafe { <$v as SimdU8>::splat(0) };
                super::to_utf8_loop(proof, encoding, input, output)
            }

            #[target_feature(enable = $features)]
            unsafe fn from_utf8_valid(
                encoding: SingleByte,
                src: &[u8],
                dst: &mut [MaybeUninit<u8>],
            ) -> (usize, usize, Stop) {
                // SAFETY: this function's contract.
                let proof = unsafe { <$v as SimdU8>::splat(0) };
                super::from_utf8_loop(proof, encoding, src, dst)
            }

            #[target_feature(enable = $features)]
            unsafe fn from_utf8_into(
                encoding: SingleByte,
                input: &[u8],
                policy: Policy,
                output: &mut [MaybeUninit<u8>],
                last: bool,
            ) -> Progress {
                // SAFETY: this function's contract.
                let proof = unsafe { <$v as SimdU8>::splat(0) };
                from_utf8_into(proof, encoding, input, policy, output, last)
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
entries!(crate::kernel::sse42::V128, "sse4.2");
#[cfg(target_arch = "x86_64")]
entries!(crate::kernel::avx2::V256, "avx2");
#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
entries!(crate::kernel::neon::V128, "neon");
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
entries!(crate::kernel::simd128::V128, "simd128");

/// The vector type whose steps run with `kernel`, which must be available,
/// as `V::Entries` calls: `$call` with `$V` named as that type, or `None`
/// where `kernel` has none (the scalar kernel).
macro_rules! with_vectors {
    ($kernel:expr, |$V:ident| $call:expr) => {
        match $kernel {
            // The AVX-512 kernel runs the AVX2 steps: its CPU has AVX2,
            // checked here all the same as `dispatch::level_for` does.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 | Kernel::Avx512 if crate::cpu::has_avx2() => {
                type $V = crate::kernel::avx2::V256;
                Some($call)
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse42 => {
                type $V = crate::kernel::sse42::V128;
                Some($call)
            }
            #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
            Kernel::Neon => {
                type $V = crate::kernel::neon::V128;
                Some($call)
            }
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128 => {
                type $V = crate::kernel::simd128::V128;
                Some($call)
            }
            _ => None,
        }
    };
}

/// `single_byte_to_utf8_into` with `kernel`'s vectors; `None` where it has
/// none. `kernel` must be available on this CPU.
#[inline]
pub(super) fn to_utf8(
    kernel: Kernel,
    encoding: SingleByte,
    input: &[u8],
    output: &mut [MaybeUninit<u8>],
) -> Option<Progress> {
    debug_assert!(kernel.is_available());
    // SAFETY: `kernel` is available, and the instruction set of its
    // vectors is the kernel's (AVX2 for the AVX-512 kernel is tested).
    with_vectors!(kernel, |V| unsafe { V::to_utf8(encoding, input, output) })
}

/// `utf8_to_single_byte_into` with `kernel`'s vectors; `None` where it has
/// none. `kernel` must be available on this CPU.
#[inline]
pub(super) fn from_utf8_into_with(
    kernel: Kernel,
    encoding: SingleByte,
    input: &[u8],
    policy: Policy,
    output: &mut [MaybeUninit<u8>],
    last: bool,
) -> Option<Progress> {
    debug_assert!(kernel.is_available());
    // SAFETY: as in `to_utf8`.
    with_vectors!(kernel, |V| unsafe {
        V::from_utf8_into(encoding, input, policy, output, last)
    })
}

/// UTF-8 into a single-byte encoding with `V`'s loop, for
/// [`utf8_input::convert`]: the value of `V` proves its instruction set.
struct ToSingleByteWith<V>(SingleByte, V);

impl<V: Entries> Convert for ToSingleByteWith<V> {
    type Unit = MaybeUninit<u8>;
    const REPLACEMENT: MaybeUninit<u8> = super::ToSingleByte::REPLACEMENT;

    #[inline]
    fn valid(&self, src: &[u8], dst: &mut [MaybeUninit<u8>]) -> (usize, usize, Stop) {
        // SAFETY: a value of `V` exists only where the CPU has its
        // instruction set.
        unsafe { V::from_utf8_valid(self.0, src, dst) }
    }
}

/// `utf8_to_single_byte_into` with `V`'s steps: blocks of ASCII and
/// Latin-1 letters are checked and converted by [`compress_checked`]
/// without the kernel; from a block that is not such, a piece of
/// [`PIECE`] bytes goes the general way (the kernel, then `V`'s
/// valid-input loop, which reports the errors).
#[inline(always)]
fn from_utf8_into<V: Entries>(
    proof: V,
    encoding: SingleByte,
    input: &[u8],
    policy: Policy,
    output: &mut [MaybeUninit<u8>],
    last: bool,
) -> Progress {
    let n = V::LANES;
    let windows = encoding == SingleByte::Windows1252;
    let convert = ToSingleByteWith(encoding, proof);
    let (mut at, mut w) = (0, 0);
    loop {
        let from = at;
        while let (Some(block), Some(out)) = (input.get(at..at + n), output.get_mut(w..w + n)) {
            match compress_checked::<V, true>(proof, block, out, windows) {
                // ASCII: the run that may follow is copied as it is.
                Some((read, written)) if read == n && written == n => {
                    at += n;
                    w += n;
                    let run = ascii_run(proof, &input[at..], &mut output[w..]);
                    at += run;
                    w += run;
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

/// `utf8_input::convert`, kept out of [`from_utf8_into`]: inlined there,
/// typographic text was about 5% slower.
#[inline(never)]
fn general<V: Entries>(
    convert: &ToSingleByteWith<V>,
    input: &[u8],
    policy: Policy,
    output: &mut [MaybeUninit<u8>],
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
/// multiple of [`RUN`]; the caller's steps take the rest). A run is one
/// test of its vectors ORed, and their stores: text that is all ASCII goes
/// at the speed of the caches, where a step per vector paid its
/// bookkeeping each time.
#[inline(always)]
fn ascii_run<V: SimdConvert>(_proof: V, input: &[u8], output: &mut [MaybeUninit<u8>]) -> usize {
    let lanes = V::LANES;
    let mut n = 0;
    while let (Some(src), Some(dst)) = (input.get(n..n + RUN), output.get_mut(n..n + RUN)) {
        // SAFETY: the loads read within the `RUN` bytes of `src`, the
        // stores write within the `RUN` bytes of `dst` (`RUN` is a multiple
        // of every vector's width). The instruction set is proved by
        // `_proof`.
        unsafe {
            // The vectors loaded once, kept for the stores (loaded again
            // for them, they were loaded twice).
            let mut v = [_proof; RUN / 16];
            let v = &mut v[..RUN / lanes];
            for (k, v) in v.iter_mut().enumerate() {
                *v = V::load(src.as_ptr().add(k * lanes));
            }
            let any = v.iter().fold(v[0], |any, &v| any.or(v));
            if !any.is_ascii() {
                break;
            }
            for (k, v) in v.iter().enumerate() {
                v.store(dst.as_mut_ptr().cast::<u8>().add(k * lanes));
            }
        }
        n += RUN;
    }
    n
}

/// For each mask of 8 bytes (bit `i`: byte `i` is above `7F`), the shuffle
/// of the 16 bytes (lead, second) of the 8 that keeps both of a flagged
/// byte and the second (the byte itself) of an ASCII one.
pub(crate) static EXPAND: [[u8; 16]; 256] = {
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

/// How many bits of each byte value are set (a `popcnt` instruction is not
/// part of every instruction set the steps are compiled for).
pub(crate) static ONES: [u8; 256] = {
    let mut ones = [0; 256];
    let mut b = 0;
    while b < 256 {
        ones[b] = (b as u8).count_ones() as u8;
        b += 1;
    }
    ones
};

/// Byte `k` of `mask`: the bits of group `k` of 8 lanes.
#[inline(always)]
fn group(mask: u64, k: usize) -> usize {
    (mask >> (8 * k) & 0xFF) as usize
}

/// The mask of a vector's `lanes` lanes.
#[inline(always)]
fn full(lanes: usize) -> u64 {
    u64::MAX >> (64 - lanes)
}

/// Converts the `V::LANES` bytes of `block` to UTF-8 at the start of `out`
/// (at least twice as long), and returns how many bytes that is; `None`
/// (nothing written) when `windows` and the block holds a byte of
/// `80`..`9F`, whose characters are not U+0080..U+009F.
#[inline(always)]
fn expand<V: SimdConvert>(
    _proof: V,
    block: &[u8],
    out: &mut [MaybeUninit<u8>],
    windows: bool,
) -> Option<usize> {
    let n = V::LANES;
    assert!(block.len() == n && out.len() >= 2 * n);
    // SAFETY: the load reads the `n` bytes of `block`; the rows are 16
    // bytes of `EXPAND`; the stores write `out[..n]`, or 16 bytes at each
    // group pair's offset, the last at most `2n - 16` (the groups before it
    // at most 16 bytes each), so within `out`. The instruction set is
    // proved by `_proof`.
    unsafe {
        let v = V::load(block.as_ptr());
        let high = v.mask();
        if high == 0 {
            v.store(out.as_mut_ptr().cast::<u8>());
            return Some(n);
        }
        // `80`..`9F` are the signed bytes below `A0`.
        if windows && v.signed_lt(V::splat(0xA0)).any() {
            return None;
        }
        // From a byte b above 7F: C0 | b >> 6, then 80 | b & 3F (b with
        // its bit 6 cleared); an ASCII byte stays as it is.
        let lead = v.shr::<6>().or(V::splat(0xC0));
        let flagged = v.signed_lt(V::splat(0));
        let second = v.and_not(flagged.and(V::splat(0x40)));
        // In each lane, the pairs of its first 8 bytes, then of its last 8.
        let pairs_a = lead.zip_low(second);
        let pairs_b = lead.zip_high(second);
        let a = pairs_a.shuffle(V::from_rows(|k| &EXPAND[group(high, 2 * k)]));
        let b = pairs_b.shuffle(V::from_rows(|k| &EXPAND[group(high, 2 * k + 1)]));
        let len = |g: usize| 8 + usize::from(ONES[group(high, g)]);
        let dst = out.as_mut_ptr().cast::<u8>();
        let mut at = 0;
        for k in 0..n / 16 {
            a.store_lane(k, dst.add(at));
            at += len(2 * k);
            b.store_lane(k, dst.add(at));
            at += len(2 * k + 1);
        }
        Some(at)
    }
}

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

/// Converts the `V::LANES` bytes of Windows-1252 in `block`, where some are
/// in `80`..`9F`, to UTF-8 at the start of `out` (at least
/// `Steps::WINDOWS_ROOM` long), and returns how many bytes that is. Every
/// byte gets its form's three bytes (from the byte itself, or looked up by
/// its low 5 bits in `80`..`9F`), in a 4-byte slot; each group of 4 slots
/// is then shuffled, as its bytes' lengths say, into at most 12 bytes.
#[inline(always)]
fn expand_windows<V: SimdConvert>(_proof: V, block: &[u8], out: &mut [MaybeUninit<u8>]) -> usize {
    let n = V::LANES;
    assert!(block.len() == n && out.len() >= <V as Steps>::WINDOWS_ROOM);
    // SAFETY: the load reads the `n` bytes of `block`; the rows are 16
    // bytes of `WINDOWS_C1` and `SLOTS`; the stores write 16 bytes at each
    // group's offset, the last at most `3n - 12` (the groups before it at
    // most 12 bytes each), so within `out`'s `3n + 16`. The instruction set
    // is proved by `_proof`.
    unsafe {
        let v = V::load(block.as_ptr());
        let zero = V::splat(0);
        let c1 = v.signed_lt(V::splat(0xA0));
        let flagged = v.signed_lt(zero);
        // As in `expand`, from `A0` up; then `80`..`9F` from the tables.
        let lead = v.shr::<6>().or(V::splat(0xC0));
        let second = v.and_not(V::splat(0x40)).and(flagged);
        let first = c1.select(v.lookup32(&WINDOWS_C1[0]), flagged.select(lead, v));
        let second = c1.select(v.lookup32(&WINDOWS_C1[1]), second);
        let third = v.lookup32(&WINDOWS_C1[2]).and(c1);
        let two = flagged.mask();
        let three = !third.eq(zero).mask() & full(n);
        // In each lane, the slots of bytes 0..4, 4..8, 8..12 and 12..16:
        // group `4k + j` of 4 bytes is lane `k` of `slots[j]`.
        let (a, b) = (first.zip_low(second), third.zip_low(zero));
        let (c, d) = (first.zip_high(second), third.zip_high(zero));
        let slots = [
            a.zip16_low(b),
            a.zip16_high(b),
            c.zip16_low(d),
            c.zip16_high(d),
        ];
        let key = |g: usize| ((two >> (4 * g) & 0xF) | (three >> (4 * g) & 0xF) << 4) as usize;
        let mut bytes = [zero; 4];
        for (j, (bytes, slot)) in bytes.iter_mut().zip(slots).enumerate() {
            *bytes = slot.shuffle(V::from_rows(|k| &SLOTS[key(4 * k + j)]));
        }
        let dst = out.as_mut_ptr().cast::<u8>();
        let mut at = 0;
        for k in 0..n / 16 {
            for (j, bytes) in bytes.iter().enumerate() {
                bytes.store_lane(k, dst.add(at));
                at += usize::from(SLOT_LEN[key(4 * k + j)]);
            }
        }
        at
    }
}

/// Converts the characters that start in `block` (`V::LANES` bytes of
/// well-formed UTF-8 that starts with a character) into the single-byte
/// encoding at the start of `out` (at least as long): the bytes read (all,
/// or all but the last when it is a lead) and written. `None` (nothing
/// written) when a character is not ASCII nor U+00A0..U+00FF, or, without
/// `windows`, U+0080..U+009F.
///
/// With `CHECK`, on input not known to be well formed: `None` also where it
/// is not, or where its first byte continues a character. Where the only
/// bytes above `7F` are `C2`, `C3` and continuation bytes, it is well
/// formed exactly when the continuation bytes are the bytes after the
/// leads (a lead in the last byte is left for the next block, which checks
/// it).
#[inline(always)]
fn compress_checked<V: SimdConvert, const CHECK: bool>(
    proof: V,
    block: &[u8],
    out: &mut [MaybeUninit<u8>],
    windows: bool,
) -> Option<(usize, usize)> {
    let n = V::LANES;
    assert!(block.len() == n && out.len() >= n);
    // SAFETY: the load reads the `n` bytes of `block`; the store writes
    // `out[..n]`. The instruction set is proved by `proof`.
    unsafe {
        let v = V::load(block.as_ptr());
        let high = v.mask();
        if high == 0 {
            v.store(out.as_mut_ptr().cast::<u8>());
            return Some((n, n));
        }
        // Leads from C4 up: as signed bytes, above C3 (and below 0).
        let big = V::splat(0xC3).signed_lt(v).mask();
        if big & high != 0 {
            return None;
        }
        let leads = V::splat(0xBF).signed_lt(v).mask() & high;
        if CHECK {
            // C0 and C1 are never leads; C2 and C3 are the signed bytes
            // above C1 (and those above C3 are out already).
            let good = V::splat(0xC1).signed_lt(v).mask() & high;
            if good != leads || high & !leads != (leads << 1) & full(n) {
                return None;
            }
        }
        // Each byte's predecessor (zero before the first, which starts a
        // character).
        let prev = v.prev::<1>(V::splat(0));
        if windows {
            // C2 then 80..9F: U+0080..U+009F, most of which Windows-1252
            // lacks (the byte loop writes the five it has).
            let c2 = prev.eq(V::splat(0xC2));
            let c1 = v.signed_lt(V::splat(0xA0));
            if c2.and(c1).any() {
                return None;
            }
        }
        // The input is valid, so a continuation byte follows C2 (it is the
        // character's byte) or C3 (the byte is it plus 40).
        let c3 = prev.eq(V::splat(0xC3));
        let bytes = v.or(c3.and(V::splat(0x40)));
        // A lead in the last byte is dropped here and read by the next step.
        Some((
            n - (leads >> (n - 1)) as usize,
            pack(proof, bytes, leads, out),
        ))
    }
}

/// Stores the bytes of `bytes` whose bits in `drop` are clear, in order,
/// at the start of `out` (at least `V::LANES` long), and returns how many:
/// each group of 8 by a shuffle chosen by its bits, stored 8 bytes at a
/// time.
#[inline(always)]
fn pack<V: SimdConvert>(_proof: V, bytes: V, drop: u64, out: &mut [MaybeUninit<u8>]) -> usize {
    let n = V::LANES;
    assert!(out.len() >= n);
    // SAFETY: the stores write 8 bytes at each group's offset, the last at
    // most `n - 8` (the groups before it at most 8 bytes each), so within
    // `out`. The instruction set is proved by `_proof`.
    unsafe {
        // The odd groups are the upper halves of their 16-byte lanes. (No
        // carry: every byte of a row is below 88.)
        let upper = 0x0808_0808_0808_0808;
        let control = V::from_u64s(|k| {
            COMPRESS[group(drop, k)].wrapping_add(if k % 2 == 1 { upper } else { 0 })
        });
        let packed = bytes.shuffle(control);
        let dst = out.as_mut_ptr().cast::<u8>();
        let mut at = 0;
        for k in 0..n / 8 {
            packed.store_u64(k, dst.add(at));
            at += 8 - usize::from(ONES[group(drop, k)]);
        }
        at
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

/// [`compress_checked`] for Windows-1252 where the block also holds its
/// characters above U+00FF (curly quotes, dashes, `€`, `Œ`...): each
/// character's last byte becomes its character's byte (looked up in
/// [`TYPOGRAPHIC`] for those), and its other bytes are dropped. The bytes
/// read are all, or fewer where a character is cut by the block's end.
/// `None` (nothing written) where a character is none of ASCII,
/// U+00A0..U+00FF and those 27.
#[inline(always)]
fn compress_windows<V: SimdConvert>(
    proof: V,
    block: &[u8],
    out: &mut [MaybeUninit<u8>],
) -> Option<(usize, usize)> {
    let n = V::LANES;
    assert!(block.len() == n && out.len() >= n);
    // SAFETY: the load reads the `n` bytes of `block`, the table the 16 of
    // `TYPOGRAPHIC.offset`; `pack` writes within `out`. The instruction set
    // is proved by `proof`.
    unsafe {
        let v = V::load(block.as_ptr());
        let high = v.mask();
        // Leads from E0 up (signed bytes above DF, and below 0): only E2,
        // whose 3-byte characters the table knows by their second byte.
        let three = V::splat(0xDF).signed_lt(v).mask() & high;
        let e2 = v.eq(V::splat(0xE2)).mask();
        if three != e2 {
            return None;
        }
        // Continuation bytes, 80..BF: the signed bytes below C0.
        let is_cont = v.signed_lt(V::splat(0xC0));
        let cont = is_cont.mask();
        let leads = high & !cont;
        // A character cut by the block's end (a lead in the last byte, or
        // E2 in the one before) is left for the next step.
        let read = n - (leads >> (n - 1)) as usize - 2 * (e2 >> (n - 2) & 1) as usize;
        let cut = u64::MAX.checked_shl(read as u32).unwrap_or(0) & full(n);
        // All but the last byte of each character, and the cut one.
        let drop = leads | cont & (cont >> 1) | cut;
        let prev = v.prev::<1>(V::splat(0));
        let c2 = prev.eq(V::splat(0xC2));
        let c3 = prev.eq(V::splat(0xC3));
        let offset = V::table(&TYPOGRAPHIC.offset);
        let nibble = prev.and(V::splat(0x0F));
        let slot = v.wrapping_add(nibble.lookup(offset)).and(V::splat(0x3F));
        let known = slot.lookup64(&TYPOGRAPHIC.first).eq(prev).and(is_cont);
        // After C2, 80..9F is U+0080..U+009F, left to the byte loop as in
        // `compress_checked`.
        let c1 = v.signed_lt(V::splat(0xA0));
        let latin = c3.or(c2.and_not(c1));
        let good = known.or(latin).mask();
        if cont & !drop & !good != 0 {
            return None;
        }
        let latin = v.or(c3.and(V::splat(0x40)));
        let bytes = known.select(slot.lookup64(&TYPOGRAPHIC.byte), latin);
        Some((read, pack(proof, bytes, drop, out)))
    }
}

#[cfg(test)]
mod tests {
    //! The loops with each instruction set's vector steps against the same
    //! loops without them, byte for byte, at every alignment and length
    //! around the blocks, with the interesting bytes or characters at every
    //! position.

    extern crate std;
    use std::vec::Vec;
    use std::{format, vec};

    use super::super::{from_utf8_loop, to_utf8_loop, NoSteps, SingleByte, ToSingleByte};
    use super::*;
    use crate::transcode::Policy;
    use crate::utf8_input::{self, Convert};

    const ENCODINGS: [SingleByte; 2] = [SingleByte::Latin1, SingleByte::Windows1252];

    /// The kernels with vector steps on this CPU, each instantiation once:
    /// the AVX-512 kernel runs the AVX2 steps, tested as AVX2's.
    fn kernels() -> Vec<Kernel> {
        let own_steps = |k: Kernel| {
            #[cfg(target_arch = "x86_64")]
            if k == Kernel::Avx512 {
                return false;
            }
            k != Kernel::Scalar
        };
        Kernel::available().filter(|&k| own_steps(k)).collect()
    }

    /// How far apart the cases of the longest tests are taken: all of them
    /// natively, a sample under emulation (scripts/test.sh sets
    /// `UTF8GUARD_TEST_EMULATED` for the NEON tests under qemu-aarch64).
    fn stride() -> usize {
        if std::env::var_os("UTF8GUARD_TEST_EMULATED").is_some() {
            5
        } else {
            1
        }
    }

    /// Whether a vector kernel is here; if not, the test is skipped.
    fn has_vectors() -> bool {
        if !kernels().is_empty() {
            return true;
        }
        std::eprintln!("skipped: no vector kernel here");
        false
    }

    /// `bytes` as the loops' room.
    fn room_of(bytes: &mut [u8]) -> &mut [MaybeUninit<u8>] {
        // SAFETY: the loops write initialized bytes only.
        unsafe { crate::transcode::as_room(bytes) }
    }

    /// Both loops into outputs of `room` bytes, which must agree.
    fn same_to_utf8(encoding: SingleByte, input: &[u8], room: usize) {
        let mut slow = vec![0u8; room];
        let q = to_utf8_loop(NoSteps, encoding, input, room_of(&mut slow));
        for kernel in kernels() {
            let mut fast = vec![0u8; room];
            let p = to_utf8(kernel, encoding, input, room_of(&mut fast)).expect("vector steps");
            assert_eq!(
                (p.read, p.written, p.result),
                (q.read, q.written, q.result),
                "{kernel}: {encoding:?} {input:02X?} room {room}"
            );
            assert_eq!(
                fast[..p.written],
                slow[..q.written],
                "{kernel}: {encoding:?} {input:02X?}"
            );
        }
    }

    /// Text with ASCII, then `bytes` written over it, one at each position
    /// in turn, at every offset of a larger buffer.
    #[test]
    fn to_utf8_with_a_high_byte_at_every_position() {
        if !has_vectors() {
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
        if !has_vectors() {
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

    /// UTF-8 into `encoding` by `valid`'s loop, with the vectors of a
    /// kernel (available here) or without, for `utf8_input::convert`.
    struct Loop(SingleByte, Option<Kernel>);

    impl Convert for Loop {
        type Unit = MaybeUninit<u8>;
        const REPLACEMENT: MaybeUninit<u8> = ToSingleByte::REPLACEMENT;

        fn valid(&self, src: &[u8], dst: &mut [MaybeUninit<u8>]) -> (usize, usize, Stop) {
            match self.1 {
                Some(kernel) => {
                    let run = with_vectors!(kernel, |V| {
                        // SAFETY: the kernel is available (`kernels`).
                        unsafe { V::from_utf8_valid(self.0, src, dst) }
                    });
                    run.expect("vector steps")
                }
                None => from_utf8_loop(NoSteps, self.0, src, dst),
            }
        }
    }

    /// Both loops through `utf8_input::convert`, which must agree: what
    /// was read and written, the status or the error (offset, length,
    /// cause); and the checked entry point of each kernel.
    fn same_from_utf8(encoding: SingleByte, input: &[u8], policy: Policy, room: usize) {
        let (mut fast, mut slow) = (vec![0u8; room], vec![0u8; room]);
        for last in [true, false] {
            let q = utf8_input::convert(
                &Loop(encoding, None),
                input,
                policy,
                room_of(&mut slow),
                last,
            );
            for kernel in kernels() {
                let with = Loop(encoding, Some(kernel));
                let p = utf8_input::convert(&with, input, policy, room_of(&mut fast), last);
                let what = format!("{kernel}: {encoding:?} {policy:?} {input:02X?} room {room}");
                assert_eq!((p.read, p.written), (q.read, q.written), "{what}");
                assert_eq!(p.result, q.result, "{what}");
                assert_eq!(fast[..p.written], slow[..q.written], "{what}");
                let p =
                    from_utf8_into_with(kernel, encoding, input, policy, room_of(&mut fast), last)
                        .expect("vector steps");
                assert_eq!((p.read, p.written), (q.read, q.written), "{what}");
                assert_eq!(p.result, q.result, "{what}");
                assert_eq!(fast[..p.written], slow[..q.written], "{what}");
            }
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
        if !has_vectors() {
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
                let lens = (0..=20).chain(lens).chain(runs.iter().copied());
                for len in lens.step_by(stride()) {
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
        if !has_vectors() {
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
        if !has_vectors() {
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
        if !has_vectors() {
            return;
        }
        let text: Vec<u8> = "« Il a dit : “c’est 10 € – pas plus…” » et l’œuvre coûte 20 €. \
                             ‘Ça’ suffit — Šárka, Œdipe, Ÿves, ƒ ˜ ˆ ™ ž. "
            .repeat(6)
            .into_bytes();
        let starts = |text: &[u8], p: usize| text.get(p).is_none_or(|&b| b & 0xC0 != 0x80);
        for encoding in ENCODINGS {
            let lens = (0..=20).chain([30, 31, 32, 33, 34, 62, 63, 64, 65, 66, 97, 130, 200]);
            for len in lens.step_by(stride()) {
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
        if !has_vectors() {
            return;
        }
        let text: Vec<u8> = "“c’est 10 € – pas plus…” Œdipe, ƒ ˜ ™ ž. "
            .repeat(4)
            .into_bytes();
        let cuts: Vec<usize> = (0..48).filter(|&p| text[p] & 0xC0 != 0x80).collect();
        let chars = (0x80..0x3000)
            .chain([0xFFFD, 0x1_F600])
            .filter_map(char::from_u32)
            .step_by(stride());
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
