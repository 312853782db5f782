//! Vector steps for UTF-32, written once over the conversions' vector
//! layer ([`SimdConvert`]) and instantiated for the 128-bit instruction
//! sets (SSE4.2, NEON, simd128); the AVX2 and AVX-512 kernels keep their
//! own steps ([`crate::utf32_simd`]).
//!
//! Out of UTF-8, a step takes 16 bytes, checked well formed by a kernel and
//! starting between two characters. ASCII is widened as it is. Otherwise,
//! where no byte leads a 4-byte form, every byte lane computes the 16-bit
//! code unit of the sequence it would start, from its byte and the two
//! after it; the lanes that start one (all but continuation bytes) are kept
//! by a byte shuffle per eight lanes, then widened. A sequence that starts
//! in a step's last bytes ends in the next step, where its continuation
//! bytes start nothing. A step with a 4-byte lead ends the steps; the
//! scalar loop takes a block before they start again (further on after
//! each try that converts nothing: [`Retry`]).
//!
//! Into UTF-8, a step takes 16 units. ASCII is narrowed (32 units at a time
//! while it lasts, after an ASCII step); units below U+0800
//! are narrowed to 16 bits, made into a lead and a second byte each, and
//! each eight are packed by a shuffle chosen by which need two bytes. A
//! step with a unit from U+0800 up (a 3- or 4-byte form, a surrogate, a
//! value above U+10FFFF) ends the steps, so that the exact scalar loop
//! converts, reports or replaces it.
//!
//! The loops themselves are in `utf32.rs`, generic over their steps; here
//! they are compiled for each instruction set as a whole, so that the
//! steps inline into them.

use core::mem::MaybeUninit;

use super::Stop;
use crate::kernel::simd::SimdU8;
use crate::kernel::simd_convert::SimdConvert;
use crate::kernel::Kernel;
use crate::legacy::{EXPAND, ONES};
use crate::transcode::{Policy, Progress, KEEP16};

/// The instruction set's entry points, compiled for it as a whole.
pub(super) trait Entries: SimdConvert {
    /// `valid_loop` with this type's steps out of UTF-8.
    ///
    /// # Safety
    /// The CPU must support this type's instruction set.
    unsafe fn from_utf8_valid(src: &[u8], dst: &mut [MaybeUninit<u32>]) -> (usize, usize, Stop);

    /// The ASCII at the start of `src` widened into `dst` (see
    /// [`ascii_from_utf8`]); returns the bytes read.
    ///
    /// # Safety
    /// The CPU must support this type's instruction set.
    unsafe fn ascii_prefix(src: &[u8], dst: &mut [MaybeUninit<u32>]) -> usize;

    /// `to_utf8_loop` with this type's steps into UTF-8.
    ///
    /// # Safety
    /// The CPU must support this type's instruction set.
    unsafe fn to_utf8(input: &[u32], policy: Policy, output: &mut [MaybeUninit<u8>]) -> Progress;
}

/// [`Entries`] for vector type `$v`, compiled with target features
/// `$features`.
macro_rules! entries {
    ($v:ty, $features:literal) => {
        impl Entries for $v {
            #[target_feature(enable = $features)]
            unsafe fn from_utf8_valid(
                src: &[u8],
                dst: &mut [MaybeUninit<u32>],
            ) -> (usize, usize, Stop) {
                // SAFETY: this function's contract.
                let proof = unsafe { <$v as SimdU8>::splat(0) };
                let mut retry = Retry::new();
                super::valid_loop(src, dst, |src, dst, r, w| {
                    if r < retry.at {
                        return (r, w);
                    }
                    let (to, w) = from_utf8(proof, src, dst, r, w);
                    retry.after(r, to);
                    (to, w)
                })
            }

            #[target_feature(enable = $features)]
            unsafe fn ascii_prefix(src: &[u8], dst: &mut [MaybeUninit<u32>]) -> usize {
                // SAFETY: this function's contract.
                let proof = unsafe { <$v as SimdU8>::splat(0) };
                ascii_from_utf8(proof, src, dst, 0, 0).0
            }

            #[target_feature(enable = $features)]
            unsafe fn to_utf8(
                input: &[u32],
                policy: Policy,
                output: &mut [MaybeUninit<u8>],
            ) -> Progress {
                // SAFETY: this function's contract.
                let proof = unsafe { <$v as SimdU8>::splat(0) };
                let mut retry = Retry::new();
                super::to_utf8_loop(input, policy, output, |src, dst, i, w| {
                    if i < retry.at {
                        return (i, w);
                    }
                    let (to, w) = to_utf8(proof, src, dst, i, w);
                    retry.after(i, to);
                    (to, w)
                })
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
entries!(crate::kernel::sse42::V128, "sse4.2");
#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
entries!(crate::kernel::neon::V128, "neon");
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
entries!(crate::kernel::simd128::V128, "simd128");

/// The vector type whose steps run with `kernel`, which must be available,
/// as `V::Entries` calls: `$call` with `$V` named as that type, or `None`
/// where `kernel` has none here (the scalar kernel; AVX2 and AVX-512, which
/// take `utf32_simd`'s steps).
macro_rules! with_vectors {
    ($kernel:expr, |$V:ident| $call:expr) => {
        match $kernel {
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

/// `valid_loop` with `kernel`'s steps; `None` where it has none. `kernel`
/// must be available on this CPU.
#[inline]
pub(super) fn from_utf8_valid(
    kernel: Kernel,
    src: &[u8],
    dst: &mut [MaybeUninit<u32>],
) -> Option<(usize, usize, Stop)> {
    debug_assert!(kernel.is_available());
    // SAFETY: `kernel` is available, and the instruction set of its
    // vectors is the kernel's.
    with_vectors!(kernel, |V| unsafe { V::from_utf8_valid(src, dst) })
}

/// The ASCII prefix of `src` widened with `kernel`'s vectors; `None` where
/// it has none. `kernel` must be available on this CPU.
#[inline]
pub(super) fn ascii_prefix(
    kernel: Kernel,
    src: &[u8],
    dst: &mut [MaybeUninit<u32>],
) -> Option<usize> {
    debug_assert!(kernel.is_available());
    // SAFETY: as in `from_utf8_valid`.
    with_vectors!(kernel, |V| unsafe { V::ascii_prefix(src, dst) })
}

/// `to_utf8_loop` with `kernel`'s steps; `None` where it has none.
/// `kernel` must be available on this CPU.
#[inline]
pub(super) fn to_utf8_into(
    kernel: Kernel,
    input: &[u32],
    policy: Policy,
    output: &mut [MaybeUninit<u8>],
) -> Option<Progress> {
    debug_assert!(kernel.is_available());
    // SAFETY: as in `from_utf8_valid`.
    with_vectors!(kernel, |V| unsafe { V::to_utf8(input, policy, output) })
}

/// Where the steps are tried again after they converted nothing: in text
/// whose every block they leave (CJK into UTF-8, emoji out of it), a try
/// at each block cost time and saved none, so each such try puts the next
/// one twice as far on, up to [`Retry::MAX`] bytes or units, and a step
/// that converts anything starts over.
struct Retry {
    /// The position before which the steps are not tried.
    at: usize,
    /// How far on the next failed try puts `at`.
    gap: usize,
}

impl Retry {
    const MIN: usize = 32;
    const MAX: usize = 1024;

    #[inline(always)]
    fn new() -> Retry {
        Retry {
            at: 0,
            gap: Retry::MIN,
        }
    }

    /// After the steps went from `from` to `to`.
    #[inline(always)]
    fn after(&mut self, from: usize, to: usize) {
        if to == from {
            self.at = from + self.gap;
            self.gap = (2 * self.gap).min(Retry::MAX);
        } else {
            self.gap = Retry::MIN;
        }
    }
}

/// The bytes of UTF-8 the steps out of UTF-8 read at once: 16, and the two
/// after them (the rest of a 3-byte form that starts in the last two).
pub(super) const FROM_UTF8_READ: usize = 18;
/// The units of room those steps need: 16 (at most a unit a byte, stored
/// as two groups of eight, the second at most eight on).
pub(super) const FROM_UTF8_ROOM: usize = 16;

/// By a byte's low nibble, its low two bits shifted to the top.
static LOW2_AT_6: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        t[i] = ((i & 3) << 6) as u8;
        i += 1;
    }
    t
};

/// By a byte's low nibble, that nibble shifted to the top.
static LOW4_AT_4: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        t[i] = (i << 4) as u8;
        i += 1;
    }
    t
};

/// The ASCII bytes of `x` (16) widened to 32-bit units and stored at `q`.
///
/// # Safety
/// `q` must be valid for writes of 64 bytes.
#[inline(always)]
unsafe fn store_widened<V: SimdConvert>(x: V, q: *mut u8) {
    // SAFETY: `x` proves the instruction set; the caller gives 64 bytes:
    // 16 at `q`, `q + 16`, `q + 32` and `q + 48`.
    unsafe {
        let zero = V::splat(0);
        let (low, high) = (x.zip_low(zero), x.zip_high(zero));
        low.zip16_low(zero).store(q);
        low.zip16_high(zero).store(q.add(16));
        high.zip16_low(zero).store(q.add(32));
        high.zip16_high(zero).store(q.add(48));
    }
}

/// Widens the ASCII bytes from `src[i..]` into `dst[w..]`, 16 at a time,
/// while the next 16 are all ASCII and have room; returns the new `i` and
/// `w`.
#[inline(always)]
fn ascii_from_utf8<V: SimdConvert>(
    _proof: V,
    src: &[u8],
    dst: &mut [MaybeUninit<u32>],
    i: usize,
    w: usize,
) -> (usize, usize) {
    assert_eq!(V::LANES, 16, "steps of one 128-bit lane");
    let (mut i, mut w) = (i, w);
    while let (Some(chunk), Some(out)) = (src.get(i..i + 16), dst.get_mut(w..w + 16)) {
        // SAFETY: `chunk` is 16 readable bytes, `out` 16 writable units (64
        // bytes). The instruction set is proved by `_proof`.
        unsafe {
            let x = V::load(chunk.as_ptr());
            if !x.is_ascii() {
                break;
            }
            store_widened(x, out.as_mut_ptr().cast());
        }
        i += 16;
        w += 16;
    }
    (i, w)
}

/// Converts well-formed UTF-8 from `src[i..]`, a character start, into
/// UTF-32 at `dst[w..]`, a step of 16 bytes at a time, while
/// [`FROM_UTF8_READ`] bytes are left and [`FROM_UTF8_ROOM`] units of room,
/// and stops before a step with a 4-byte lead; returns the new `i`, a
/// character start, and `w`. Past the units written, `dst` may hold
/// scratch.
#[inline(always)]
fn from_utf8<V: SimdConvert>(
    _proof: V,
    src: &[u8],
    dst: &mut [MaybeUninit<u32>],
    i: usize,
    w: usize,
) -> (usize, usize) {
    assert_eq!(V::LANES, 16, "steps of one 128-bit lane");
    let (mut i, mut w) = (i, w);
    while let (Some(chunk), Some(out)) = (
        src.get(i..i + FROM_UTF8_READ),
        dst.get_mut(w..w + FROM_UTF8_ROOM),
    ) {
        let p = chunk.as_ptr();
        let q: *mut u8 = out.as_mut_ptr().cast();
        // SAFETY: `chunk` is 18 readable bytes: 16 at `p`, `p + 1` and
        // `p + 2`; `out` is 16 writable units (64 bytes), and the stores
        // write 16 bytes at `q`, `q + 16`, and at `q + 4 * n_low` and 16 on
        // (`n_low <= 8`). The rows are 16 bytes of `KEEP16`. The
        // instruction set is proved by `_proof`.
        unsafe {
            let x = V::load(p);
            if x.is_ascii() {
                store_widened(x, q);
                i += 16;
                w += 16;
                continue;
            }
            let zero = V::splat(0);
            // Leads of 4-byte forms, F0 up: signed bytes above EF, and
            // below 0.
            if V::splat(0xEF).signed_lt(x).and(x.signed_lt(zero)).any() {
                break;
            }
            let (x1, x2) = (V::load(p.add(1)), V::load(p.add(2)));
            let (low6, low4) = (V::splat(0x3F), V::splat(0x0F));
            let (at6, at4) = (V::table(&LOW2_AT_6), V::table(&LOW4_AT_4));
            // 110aaabb 10cccccc: 00000aaa bbcccccc.
            let high2 = x.shr::<2>().and(V::splat(0x07));
            let low2 = x.lookup_low(at6, low4).or(x1.and(low6));
            // 1110aaaa 10bbbbcc 10dddddd: aaaabbbb ccdddddd.
            let high3 = x.lookup_low(at4, low4).or(x1.shr::<2>().and(low4));
            let low3 = x1.lookup_low(at6, low4).or(x2.and(low6));
            // E0 up are the signed bytes above DF (and ASCII, taken as it
            // is below).
            let three = V::splat(0xDF).signed_lt(x);
            let lead = x.signed_lt(zero);
            let low = lead.select(three.select(low3, low2), x);
            let high = lead.and(three.select(high3, high2));
            // Continuation bytes, 80..BF, are the signed bytes below C0:
            // every other lane starts a character.
            let starts = !x.signed_lt(V::splat(0xC0)).mask();
            let (g0, g1) = ((starts & 0xFF) as usize, (starts >> 8 & 0xFF) as usize);
            let kept0 = low.zip_low(high).shuffle(V::from_rows(|_| &KEEP16[g0]));
            let kept1 = low.zip_high(high).shuffle(V::from_rows(|_| &KEEP16[g1]));
            let n0 = usize::from(ONES[g0]);
            kept0.zip16_low(zero).store(q);
            kept0.zip16_high(zero).store(q.add(16));
            let q1 = q.add(4 * n0);
            kept1.zip16_low(zero).store(q1);
            kept1.zip16_high(zero).store(q1.add(16));
            w += n0 + usize::from(ONES[g1]);
        }
        i += 16;
    }
    // The last step's last sequence may end after it: past its
    // continuation bytes, the next one starts.
    while src.get(i).is_some_and(|&b| b & 0xC0 == 0x80) {
        i += 1;
    }
    (i, w)
}

/// The units of UTF-32 the steps into UTF-8 read at once.
pub(super) const TO_UTF8_READ: usize = 16;
/// The bytes of room they need: 32, the most 16 units below U+0800 take
/// (stored as two groups of 16 bytes, the second at most 16 on).
pub(super) const TO_UTF8_ROOM: usize = 32;

/// The bits of a 32-bit unit (little-endian) set from U+0080 up.
static FROM_0080: [u8; 16] = [
    0x80, 0xFF, 0xFF, 0xFF, 0x80, 0xFF, 0xFF, 0xFF, 0x80, 0xFF, 0xFF, 0xFF, 0x80, 0xFF, 0xFF, 0xFF,
];
/// The bits of a 32-bit unit set from U+0800 up.
static FROM_0800: [u8; 16] = [
    0x00, 0xF8, 0xFF, 0xFF, 0x00, 0xF8, 0xFF, 0xFF, 0x00, 0xF8, 0xFF, 0xFF, 0x00, 0xF8, 0xFF, 0xFF,
];
/// The low byte of each 16-bit unit.
static LOW_BYTES: [u8; 16] = [
    0xFF, 0, 0xFF, 0, 0xFF, 0, 0xFF, 0, 0xFF, 0, 0xFF, 0, 0xFF, 0, 0xFF, 0,
];

/// Narrows the ASCII units from `src[i..]` into `dst[w..]`, 32 at a time,
/// while the next 32 are all ASCII and have room; returns the new `i` and
/// `w`.
#[inline(always)]
fn ascii_to_utf8<V: SimdConvert>(
    _proof: V,
    src: &[u32],
    dst: &mut [MaybeUninit<u8>],
    i: usize,
    w: usize,
) -> (usize, usize) {
    let (mut i, mut w) = (i, w);
    while let (Some(chunk), Some(out)) = (src.get(i..i + 32), dst.get_mut(w..w + 32)) {
        let p: *const u8 = chunk.as_ptr().cast();
        let q: *mut u8 = out.as_mut_ptr().cast();
        // SAFETY: `chunk` is 32 readable units (128 bytes): 16 bytes at
        // `p + 16k` for `k` below 8; `out` is 32 writable bytes, 16 at `q`
        // and `q + 16`. The table is 16 bytes. The instruction set is
        // proved by `_proof`.
        unsafe {
            let mut v = [_proof; 8];
            for (k, v) in v.iter_mut().enumerate() {
                *v = V::load(p.add(16 * k));
            }
            let any = v.iter().fold(V::splat(0), |any, &v| any.or(v));
            if any.and(V::table(&FROM_0080)).any() {
                break;
            }
            let [a, b, c, d, e, f, g, h] = v;
            a.pack32(b).pack16(c.pack32(d)).store(q);
            e.pack32(f).pack16(g.pack32(h)).store(q.add(16));
        }
        i += 32;
        w += 32;
    }
    (i, w)
}

/// Converts UTF-32 from `src[i..]` into UTF-8 at `dst[w..]`, a step of
/// [`TO_UTF8_READ`] units at a time, while that many are left and
/// [`TO_UTF8_ROOM`] bytes of room, and stops before a step that holds a
/// unit from U+0800 up; returns the new `i` and `w`. Past the bytes
/// written, `dst` may hold scratch.
#[inline(always)]
fn to_utf8<V: SimdConvert>(
    _proof: V,
    src: &[u32],
    dst: &mut [MaybeUninit<u8>],
    i: usize,
    w: usize,
) -> (usize, usize) {
    assert_eq!(V::LANES, 16, "steps of one 128-bit lane");
    let (mut i, mut w) = (i, w);
    while let (Some(chunk), Some(out)) = (
        src.get(i..i + TO_UTF8_READ),
        dst.get_mut(w..w + TO_UTF8_ROOM),
    ) {
        let p: *const u8 = chunk.as_ptr().cast();
        let q: *mut u8 = out.as_mut_ptr().cast();
        // SAFETY: `chunk` is 16 readable units (64 bytes): 16 bytes at `p`,
        // `p + 16`, `p + 32` and `p + 48`; `out` is 32 writable bytes: 16
        // at `q` and at `q + n0` (`n0 <= 16`). The tables are 16 bytes, the
        // rows 16 bytes of `EXPAND`. The instruction set is proved by
        // `_proof`.
        unsafe {
            let (a, b) = (V::load(p), V::load(p.add(16)));
            let (c, d) = (V::load(p.add(32)), V::load(p.add(48)));
            let any = a.or(b).or(c.or(d));
            // Every unit below U+0080, so its saturating narrowing is
            // itself.
            if !any.and(V::table(&FROM_0080)).any() {
                a.pack32(b).pack16(c.pack32(d)).store(q);
                i += TO_UTF8_READ;
                w += TO_UTF8_READ;
                // And so on 32 at a time while the ASCII lasts (only after
                // an ASCII step: text with short ASCII runs would pay the
                // test at every step).
                (i, w) = ascii_to_utf8(_proof, src, dst, i, w);
                continue;
            }
            if any.and(V::table(&FROM_0800)).any() {
                break;
            }
            // Below U+0800: 16 bits each, as they are.
            let (u0, u1) = (a.pack32(b), c.pack32(d));
            // The unit shifted right by 6, below 32: below 2 for ASCII,
            // else the lead's low 5 bits.
            let top = u0.shr16::<6>().pack16(u1.shr16::<6>());
            let low_bytes = V::table(&LOW_BYTES);
            let low = u0.and(low_bytes).pack16(u1.and(low_bytes));
            let ascii = top.signed_lt(V::splat(2));
            let lead = top.or(V::splat(0xC0));
            // 10xxxxxx from U+0080 up, the byte itself below.
            let second = ascii.select(low, low.and(V::splat(0x3F)).or(V::splat(0x80)));
            let two = !ascii.mask();
            let (g0, g1) = ((two & 0xFF) as usize, (two >> 8 & 0xFF) as usize);
            // In the pairs (lead, second) of each byte, EXPAND keeps both
            // of a 2-byte form and the second of an ASCII one.
            let x = lead.zip_low(second).shuffle(V::from_rows(|_| &EXPAND[g0]));
            let y = lead.zip_high(second).shuffle(V::from_rows(|_| &EXPAND[g1]));
            let n0 = 8 + usize::from(ONES[g0]);
            x.store(q);
            y.store(q.add(n0));
            w += n0 + 8 + usize::from(ONES[g1]);
        }
        i += TO_UTF8_READ;
    }
    (i, w)
}
