//! UTF-32, in native `u32` units (the caller handles byte order), to and
//! from UTF-8.
//!
//! Out of UTF-8, the kernel validates first ([`crate::utf8_input`]), then
//! the valid text is converted without checking. Into UTF-8, each unit is
//! checked (a surrogate or a value above U+10FFFF has no UTF-8 form). With
//! the AVX2 or AVX-512 kernel active, both directions run AVX2 steps of 16
//! bytes or units ([`crate::utf32_simd`]) in a loop compiled for AVX2; with
//! the SSE4.2, NEON or simd128 kernel, the steps written once over the
//! conversions' vector layer (`vector`), in a loop compiled for that
//! instruction set. The steps into UTF-8 stop before a block with a unit
//! that has no form (the generic ones before any unit from U+0800 up), and
//! the scalar loop, which is the reference, converts that block one unit at
//! a time (it reports or replaces the unit), as it converts the ends the
//! steps leave: so every result is the scalar loop's.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::mem::MaybeUninit;

use crate::ascii;
use crate::encode::EncodeError;
use crate::kernel::Kernel;
#[cfg(feature = "alloc")]
use crate::transcode::append_whole;
use crate::transcode::{as_room, Cause, Policy, Progress, Status, TranscodeError};
use crate::utf8_input::{self, Convert, Stop};

#[cfg(vector_kernels)]
mod vector;

/// UTF-8 into UTF-32, for [`utf8_input::convert`].
struct ToUtf32 {
    /// Whether the AVX2 steps run (chosen once a call).
    #[cfg(target_arch = "x86_64")]
    avx2: bool,
    /// The kernel whose generic steps run, if it has any (`vector`).
    #[cfg_attr(not(vector_kernels), allow(dead_code))]
    kernel: Kernel,
}

impl Convert for ToUtf32 {
    // Room that may be uninitialized: the vector form writes into spare
    // capacity.
    type Unit = MaybeUninit<u32>;
    const REPLACEMENT: MaybeUninit<u32> = MaybeUninit::new(0xFFFD);

    #[inline]
    fn valid(&self, src: &[u8], dst: &mut [MaybeUninit<u32>]) -> (usize, usize, Stop) {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `avx2` is set only where the CPU has AVX2
            // (`utf8_to_utf32_with`).
            return unsafe { valid_avx2(src, dst) };
        }
        #[cfg(vector_kernels)]
        if let Some(done) = vector::from_utf8_valid(self.kernel, src, dst) {
            return done;
        }
        valid_loop(src, dst, |_, _, r, w| (r, w))
    }

    #[inline]
    fn ascii(&self, src: &[u8], dst: &mut [MaybeUninit<u32>]) -> usize {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: as in `valid`.
            return unsafe { crate::utf32_simd::ascii_prefix(src, dst) };
        }
        #[cfg(vector_kernels)]
        if let Some(read) = vector::ascii_prefix(self.kernel, src, dst) {
            return read;
        }
        let _ = (src, dst);
        0
    }
}

/// [`valid_loop`] compiled for AVX2 as a whole, so that the vector steps
/// inline into it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn valid_avx2(src: &[u8], dst: &mut [MaybeUninit<u32>]) -> (usize, usize, Stop) {
    // A closure in a `#[target_feature]` function has its features: the
    // call is safe and inlined.
    valid_loop(src, dst, |src, dst, r, w| {
        crate::utf32_simd::from_utf8(src, dst, r, w)
    })
}

/// [`Convert::valid`] for UTF-32: `vector(src, dst, r, w)` converts what
/// it can from `src[r..]` into `dst[w..]` and returns the new `r` (a
/// character start) and `w`; between its calls, and after it, characters
/// are decoded one at a time.
#[inline(always)]
fn valid_loop(
    src: &[u8],
    dst: &mut [MaybeUninit<u32>],
    mut vector: impl FnMut(&[u8], &mut [MaybeUninit<u32>], usize, usize) -> (usize, usize),
) -> (usize, usize, Stop) {
    let (mut r, mut w) = (0, 0);
    // Where the vector steps are tried again: they stop only near the
    // end of `src` or of the room, so a block later is soon enough.
    let mut vector_at = 0;
    loop {
        if r >= vector_at {
            (r, w) = vector(src, dst, r, w);
            vector_at = r + ascii::BLOCK;
        }
        let Some(&b) = src.get(r) else {
            break;
        };
        // A block widened at once, its ASCII prefix kept, where a run
        // starts (two ASCII bytes in a row: widening a block at each
        // space between words cost more than it saved).
        if b < 0x80 && src.get(r + 1).is_some_and(|&next| next < 0x80) {
            if let (Some((block, n)), Some(units)) =
                (ascii::run_at(src, r), dst.get_mut(w..w + ascii::BLOCK))
            {
                for (unit, &b) in units.iter_mut().zip(block) {
                    unit.write(u32::from(b));
                }
                r += n;
                w += n;
                continue;
            }
        }
        let Some(unit) = dst.get_mut(w) else {
            return (r, w, Stop::Full);
        };
        if b < 0x80 {
            unit.write(u32::from(b));
            r += 1;
        } else {
            let (cp, len) = utf8_input::decode_valid(&src[r..]);
            unit.write(cp);
            r += len;
        }
        w += 1;
    }
    (r, w, Stop::Done)
}

/// Converts UTF-8 to UTF-32, appending to `out`. With [`Policy::Strict`],
/// an ill-formed sequence is a [`Cause::Malformed`] error (at std's
/// `valid_up_to`, `error_len` its maximal subpart), and `out` holds the
/// conversion of everything before it; with [`Policy::Replace`], each
/// maximal subpart becomes U+FFFD, as `String::from_utf8_lossy` does.
///
/// ```
/// use utf8guard::{utf8_to_utf32, Policy};
///
/// let mut units = Vec::new();
/// utf8_to_utf32("aé😀".as_bytes(), Policy::Strict, &mut units).unwrap();
/// assert_eq!(units, [0x61, 0xE9, 0x1F600]);
///
/// units.clear();
/// let err = utf8_to_utf32(b"ab\xED\xA0\x80", Policy::Strict, &mut units).unwrap_err();
/// assert_eq!((err.offset(), err.error_len()), (2, Some(1)));
/// utf8_to_utf32(b"\xED\xA0\x80", Policy::Replace, &mut units).unwrap();
/// assert_eq!(units, [0x61, 0x62, 0xFFFD, 0xFFFD, 0xFFFD]);
/// ```
#[cfg(feature = "alloc")]
pub fn utf8_to_utf32(
    input: &[u8],
    policy: Policy,
    out: &mut Vec<u32>,
) -> Result<(), TranscodeError> {
    // Never more units than bytes. Into the vector's spare capacity, not
    // zeroed first (docs/TUNING.md, "UTF-8 to UTF-16 into a vector,
    // zeroed by chunks").
    // SAFETY: the converter writes each unit it counts, in order.
    unsafe {
        append_whole(out, input.len(), input.len(), |room| {
            utf8_to_utf32_with(input, policy, room, true, crate::dispatch::active())
        })
    }
}

/// Converts UTF-8 to UTF-32 into a caller's buffer (no allocation):
/// [`utf8_to_utf32`] a piece at a time, with the conventions of
/// [`wtf8_to_utf16_into`](crate::wtf8_to_utf16_into): an `output` as long
/// as `input` always has room for all of it ([`utf32_len_from_utf8`]
/// units, for valid input); without `last`, a sequence the input ends
/// inside is left unread, to be passed again with what follows; error
/// offsets count bytes from the start of `input`.
/// Past `written`, `output` may hold scratch (blocks of 16 or 32 units
/// are stored whole).
///
/// [`utf32_len_from_utf8`]: crate::utf32_len_from_utf8
///
/// ```
/// use utf8guard::{utf8_to_utf32_into, Policy, Status};
///
/// let mut units = [0u32; 4];
/// let p = utf8_to_utf32_into(b"a\xF0\x9F", Policy::Strict, &mut units, false);
/// assert_eq!((p.read, p.written, p.result), (1, 1, Ok(Status::InputEmpty)));
/// let p = utf8_to_utf32_into(b"a\xF0\x9F", Policy::Replace, &mut units, true);
/// assert_eq!((p.read, p.written), (3, 2));
/// assert_eq!(units[..2], [0x61, 0xFFFD]);
/// ```
pub fn utf8_to_utf32_into(
    input: &[u8],
    policy: Policy,
    output: &mut [u32],
    last: bool,
) -> Progress {
    let kernel = crate::dispatch::active();
    // SAFETY: the converter writes only units.
    utf8_to_utf32_with(input, policy, unsafe { as_room(output) }, last, kernel)
}

/// Whether `kernel`'s steps are the AVX2 ones: the AVX2 and AVX-512
/// kernels' (not the scalar one's, so that forcing it tests the portable
/// path).
#[cfg(target_arch = "x86_64")]
#[inline]
fn avx2_steps(kernel: Kernel) -> bool {
    crate::dispatch::level_for(kernel) != crate::cpu::Level::Scalar
}

/// Whether the active kernel's steps are the AVX2 ones.
#[cfg(all(feature = "alloc", target_arch = "x86_64"))]
#[inline]
fn vectors() -> bool {
    avx2_steps(crate::dispatch::active())
}

/// [`utf8_to_utf32_into`] with the steps of `kernel`, which must be
/// available on this CPU (the AVX2 ones, the generic ones, or none), into
/// room that may be uninitialized: it writes the units it counts as
/// written, in order, and may store scratch after them.
fn utf8_to_utf32_with(
    input: &[u8],
    policy: Policy,
    output: &mut [MaybeUninit<u32>],
    last: bool,
    kernel: Kernel,
) -> Progress {
    let convert = ToUtf32 {
        #[cfg(target_arch = "x86_64")]
        avx2: avx2_steps(kernel),
        kernel,
    };
    utf8_input::convert(&convert, input, policy, output, last)
}

/// The UTF-8 length of each unit: 1 to 4, and 3 (U+FFFD's) for a surrogate
/// or a value above U+10FFFF.
#[cfg(feature = "alloc")]
#[inline(always)]
fn utf8_width(u: u32) -> u32 {
    1 + u32::from(u >= 0x80) + u32::from(u >= 0x800) + u32::from(u >= 0x1_0000)
        - u32::from(u > 0x10_FFFF)
}

/// The bytes [`utf32_to_utf8`] writes with [`Policy::Replace`] (at least as
/// many as with [`Policy::Strict`]): summed without branches, in chunks
/// whose sums fit in 32 bits.
#[cfg(feature = "alloc")]
fn utf8_len_from_utf32(input: &[u32]) -> usize {
    // With AVX2, 8 units an instruction where SSE2 takes 4: the pass cost
    // a Latin text more than its conversion.
    #[cfg(target_arch = "x86_64")]
    if vectors() && crate::cpu::has_avx2() {
        // SAFETY: the CPU has AVX2.
        return unsafe { utf8_len_avx2(input) };
    }
    utf8_len_sum(input)
}

/// [`utf8_len_sum`] compiled for AVX2.
#[cfg(all(feature = "alloc", target_arch = "x86_64"))]
#[target_feature(enable = "avx2")]
fn utf8_len_avx2(input: &[u32]) -> usize {
    utf8_len_sum(input)
}

/// [`utf8_len_from_utf32`] itself.
#[cfg(feature = "alloc")]
#[inline(always)]
fn utf8_len_sum(input: &[u32]) -> usize {
    input
        .chunks(1 << 20)
        .map(|chunk| chunk.iter().fold(0u32, |s, &u| s + utf8_width(u)) as usize)
        .sum()
}

/// Converts UTF-32 to UTF-8, appending to `out`. A surrogate
/// (U+D800..U+DFFF) is [`Cause::Unencodable`]`(`[`EncodeError::Surrogate`]`)`
/// and a value above U+10FFFF
/// [`Cause::Unencodable`]`(`[`EncodeError::TooLarge`]`)`, at the offset of
/// the unit (counted in units); with [`Policy::Replace`], each becomes
/// U+FFFD.
///
/// ```
/// use utf8guard::{utf32_to_utf8, Cause, EncodeError, Policy};
///
/// let mut bytes = Vec::new();
/// utf32_to_utf8(&[0x61, 0xE9, 0x1F600], Policy::Strict, &mut bytes).unwrap();
/// assert_eq!(bytes, "aé😀".as_bytes());
///
/// bytes.clear();
/// let err = utf32_to_utf8(&[0x61, 0xD800], Policy::Strict, &mut bytes).unwrap_err();
/// assert_eq!((err.offset(), err.cause()), (1, Cause::Unencodable(EncodeError::Surrogate)));
/// assert_eq!(bytes, b"a");
/// utf32_to_utf8(&[0x11_0000], Policy::Replace, &mut bytes).unwrap();
/// assert_eq!(bytes, "a\u{FFFD}".as_bytes());
/// ```
#[cfg(feature = "alloc")]
pub fn utf32_to_utf8(
    input: &[u32],
    policy: Policy,
    out: &mut Vec<u8>,
) -> Result<(), TranscodeError> {
    // Into the vector's spare capacity, not zeroed first.
    // SAFETY: the converter writes each byte it counts, in order.
    unsafe {
        append_whole(out, utf8_len_from_utf32(input), input.len(), |room| {
            utf32_to_utf8_with(input, policy, room, crate::dispatch::active())
        })
    }
}

/// Units narrowed at a time.
const NARROW_BLOCK: usize = 16;

/// The [`NARROW_BLOCK`] units at `src[at..]`, if they are there and all
/// ASCII.
#[inline(always)]
fn ascii_units(src: &[u32], at: usize) -> Option<&[u32; NARROW_BLOCK]> {
    let units: &[u32; NARROW_BLOCK] = src.get(at..at + NARROW_BLOCK)?.try_into().ok()?;
    (units.iter().fold(0, |any, &u| any | u) < 0x80).then_some(units)
}

/// Converts UTF-32 to UTF-8 into a caller's buffer (no allocation):
/// [`utf32_to_utf8`] a piece at a time, whole characters only
/// ([`Status::OutputFull`] when the next does not fit; an `output` 4 times
/// as long as `input` always has room for all of it). `read` and error
/// offsets count units from the start of `input`.
/// Past `written`, `output` may hold scratch (each character is stored
/// as 4 bytes, and vector steps 16 bytes at a time, where there is room).
///
/// ```
/// use utf8guard::{utf32_to_utf8_into, Policy, Status};
///
/// let mut bytes = [0u8; 4];
/// let p = utf32_to_utf8_into(&[0x61, 0x20AC, 0x62], Policy::Strict, &mut bytes);
/// assert_eq!((p.read, p.written, p.result), (2, 4, Ok(Status::OutputFull)));
/// assert_eq!(&bytes, "a€".as_bytes());
/// ```
pub fn utf32_to_utf8_into(input: &[u32], policy: Policy, output: &mut [u8]) -> Progress {
    let kernel = crate::dispatch::active();
    // SAFETY: the converter writes only bytes.
    utf32_to_utf8_with(input, policy, unsafe { as_room(output) }, kernel)
}

/// [`utf32_to_utf8_into`] with the steps of `kernel`, which must be
/// available on this CPU (the AVX2 ones, the generic ones, or none), into
/// room that may be uninitialized: it writes the bytes it counts as
/// written, in order, and may store scratch after them.
#[inline]
fn utf32_to_utf8_with(
    input: &[u32],
    policy: Policy,
    output: &mut [MaybeUninit<u8>],
    kernel: Kernel,
) -> Progress {
    #[cfg(target_arch = "x86_64")]
    if avx2_steps(kernel) {
        // SAFETY: the AVX2 steps are the AVX2 and AVX-512 kernels' where the
        // CPU has AVX2 (`dispatch::level_for`).
        return unsafe { to_utf8_avx2(input, policy, output) };
    }
    #[cfg(vector_kernels)]
    if let Some(progress) = vector::to_utf8_into(kernel, input, policy, output) {
        return progress;
    }
    // Only the vector paths, where the target has them, read the kernel.
    let _ = kernel;
    to_utf8_loop(input, policy, output, |_, _, i, w| (i, w))
}

/// [`to_utf8_loop`] compiled for AVX2 as a whole, so that the vector
/// steps inline into it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn to_utf8_avx2(input: &[u32], policy: Policy, output: &mut [MaybeUninit<u8>]) -> Progress {
    // A closure in a `#[target_feature]` function has its features: the
    // call is safe and inlined.
    to_utf8_loop(input, policy, output, |src, dst, i, w| {
        crate::utf32_simd::to_utf8(src, dst, i, w)
    })
}

/// [`utf32_to_utf8_into`]: `vector(src, dst, i, w)` converts what it can
/// from `src[i..]` into `dst[w..]`, stopping before any unit that has no
/// UTF-8 form, and returns the new `i` and `w`; between its calls, and
/// after it, the units are converted one at a time, which finds, reports
/// or replaces those that have none.
#[inline(always)]
fn to_utf8_loop(
    input: &[u32],
    policy: Policy,
    output: &mut [MaybeUninit<u8>],
    mut vector: impl FnMut(&[u32], &mut [MaybeUninit<u8>], usize, usize) -> (usize, usize),
) -> Progress {
    let (mut i, mut w) = (0, 0);
    // Where the vector steps are tried again: after a block they stopped
    // before, converted one unit at a time.
    let mut vector_at = 0;
    let status = loop {
        if i >= vector_at {
            (i, w) = vector(input, output, i, w);
            vector_at = i + NARROW_BLOCK;
        }
        let Some(&unit) = input.get(i) else {
            break Status::InputEmpty;
        };
        // A block of ASCII narrowed at once, where a run starts (two ASCII
        // units in a row: not at each space between words).
        if unit < 0x80 && input.get(i + 1).is_some_and(|&u| u < 0x80) {
            if let (Some(units), Some(bytes)) =
                (ascii_units(input, i), output.get_mut(w..w + NARROW_BLOCK))
            {
                for (b, &u) in bytes.iter_mut().zip(units) {
                    b.write(u as u8);
                }
                i += NARROW_BLOCK;
                w += NARROW_BLOCK;
                continue;
            }
        }
        let value = match unit {
            0xD800..=0xDFFF | 0x11_0000.. => {
                let why = if unit > 0x10_FFFF {
                    EncodeError::TooLarge
                } else {
                    EncodeError::Surrogate
                };
                if policy == Policy::Strict {
                    let error = TranscodeError::new(i, Some(1), Cause::Unencodable(why));
                    return Progress {
                        read: i,
                        written: w,
                        result: Err(error),
                    };
                }
                0xFFFD
            }
            _ => unit,
        };
        let (form, len) = utf8_form(value);
        // With room for 4 bytes, one fixed-size store (the bytes past the
        // form are overwritten by what follows, or left past `written`).
        let bytes = form.to_le_bytes().map(MaybeUninit::new);
        if let Some(dst) = output.get_mut(w..w + 4) {
            dst.copy_from_slice(&bytes);
        } else if let Some(dst) = output.get_mut(w..w + len) {
            dst.copy_from_slice(&bytes[..len]);
        } else {
            break Status::OutputFull;
        }
        i += 1;
        w += len;
    };
    Progress {
        read: i,
        written: w,
        result: Ok(status),
    }
}

/// The UTF-8 form of scalar value `cp`, its bytes in a little-endian
/// word, and its length.
#[inline(always)]
fn utf8_form(cp: u32) -> (u32, usize) {
    let tail = |shift: u32| 0x80 | ((cp >> shift) & 0x3F);
    if cp < 0x80 {
        (cp, 1)
    } else if cp < 0x800 {
        (0xC0 | (cp >> 6) | tail(0) << 8, 2)
    } else if cp < 0x1_0000 {
        (0xE0 | (cp >> 12) | tail(6) << 8 | tail(0) << 16, 3)
    } else {
        let form = 0xF0 | (cp >> 18) | tail(12) << 8 | tail(6) << 16 | tail(0) << 24;
        (form, 4)
    }
}

/// The AVX2 steps against the scalar loops, which are the reference (and
/// which std checks in turn): every result (`Progress`, the output up to
/// `written`) equal, with every kind of character and every error at every
/// position of texts around the steps' 16 units and bytes, for each error
/// policy and output room.
#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use alloc::string::String;
    use alloc::vec;

    /// The kernels with steps of their own on this CPU, each once: the
    /// AVX2 kernel's (the AVX-512 kernel takes the same), and the generic
    /// steps of SSE4.2, NEON or simd128.
    fn vector_kernels() -> Vec<Kernel> {
        let own_steps = |k: Kernel| {
            #[cfg(target_arch = "x86_64")]
            if k == Kernel::Avx512 {
                return false;
            }
            k != Kernel::Scalar
        };
        Kernel::available().filter(|&k| own_steps(k)).collect()
    }

    /// Runs the scalar path and each kernel's steps out of UTF-8 with
    /// `room` units; checks they agree and returns the result.
    fn both_from_utf8(
        input: &[u8],
        policy: Policy,
        room: usize,
        last: bool,
    ) -> (Progress, Vec<u32>) {
        let mut scalar = vec![0u32; room];
        // SAFETY: the converters write only units.
        let s = utf8_to_utf32_with(
            input,
            policy,
            unsafe { as_room(&mut scalar) },
            last,
            Kernel::Scalar,
        );
        for kernel in vector_kernels() {
            let mut vector = vec![0xAAAA_AAAAu32; room];
            // SAFETY: as above.
            let vector_room = unsafe { as_room(&mut vector) };
            let v = utf8_to_utf32_with(input, policy, vector_room, last, kernel);
            // The message is formatted only on a failure: formatting the
            // input each call was most of the tests' time.
            assert_eq!(
                s, v,
                "{kernel}: {input:02X?} {policy:?} room {room} last {last}"
            );
            assert_eq!(
                scalar[..s.written],
                vector[..v.written],
                "{kernel}: {input:02X?} {policy:?} room {room} last {last}"
            );
        }
        scalar.truncate(s.written);
        (s, scalar)
    }

    /// Both paths on `input` at every policy, `last` and room that count,
    /// the scalar one checked against std with all the room.
    fn check_from_utf8(input: &[u8]) {
        let (strict, units) = both_from_utf8(input, Policy::Strict, input.len(), true);
        match core::str::from_utf8(input) {
            Ok(text) => {
                assert_eq!(strict.result, Ok(Status::InputEmpty));
                assert!(units.iter().copied().eq(text.chars().map(u32::from)));
            }
            Err(e) => {
                let error = strict.result.unwrap_err();
                assert_eq!(
                    (error.offset(), error.error_len()),
                    (e.valid_up_to(), e.error_len())
                );
                let text = core::str::from_utf8(&input[..e.valid_up_to()]).unwrap();
                assert!(units.iter().copied().eq(text.chars().map(u32::from)));
            }
        }
        let (_, replaced) = both_from_utf8(input, Policy::Replace, input.len(), true);
        let lossy = String::from_utf8_lossy(input);
        assert!(
            replaced.iter().copied().eq(lossy.chars().map(u32::from)),
            "{input:02X?}"
        );
        let exact = replaced.len();
        for policy in [Policy::Strict, Policy::Replace] {
            both_from_utf8(input, policy, input.len(), false);
            for room in [
                exact,
                exact.saturating_sub(1),
                exact / 2,
                15,
                16,
                17,
                31,
                32,
                33,
            ] {
                if room <= input.len() {
                    both_from_utf8(input, policy, room, true);
                }
            }
        }
    }

    /// Characters of each length, and ill-formed sequences of each kind.
    const UTF8_ITEMS: &[&[u8]] = &[
        b"a",
        "\u{E9}".as_bytes(),
        "\u{5B57}".as_bytes(),
        "\u{1F600}".as_bytes(),
        "\u{7FF}".as_bytes(),
        "\u{FFFF}".as_bytes(),
        "\u{10FFFF}".as_bytes(),
        b"\x80",
        b"\xBF",
        b"\xC0\xAF",
        b"\xC3",
        b"\xE5\xAD",
        b"\xED\xA0\x80",
        b"\xF0\x9F\x98",
        b"\xF4\x90\x80\x80",
        b"\xF5",
        b"\xFF",
    ];

    /// A few inputs of each kind, short enough for Miri, which checks each
    /// vector load and store against the slice it is in: tight output,
    /// and input that ends right after a step; and the vector forms, with
    /// errors too, which Miri checks write every unit they keep.
    #[test]
    fn vectors_stay_within_their_slices() {
        for text in [
            "abcdefghijklmnopqrstuvwxyz0123456789",
            "\u{E9}\u{5B57}\u{1F600}a b\u{E9}\u{E9}\u{5B57}\u{1F600}\u{1F600}xyz\u{5B57}\u{5B57}",
            "\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}",
            "\u{1F600}\u{1F600}\u{1F600}\u{1F600}\u{1F600}\u{1F600}",
        ] {
            for end in [16, 18, 19, 20, 33, 48, text.len()] {
                let Some(input) = text.as_bytes().get(..end) else {
                    continue;
                };
                check_from_utf8(input);
                if let Ok(text) = core::str::from_utf8(input) {
                    let units: Vec<u32> = text.chars().map(u32::from).collect();
                    check_to_utf8(&units);
                }
                let mut units: Vec<u32> = String::from_utf8_lossy(input)
                    .chars()
                    .map(u32::from)
                    .collect();
                check_vec_forms(input, &units);
                // Units with no UTF-8 form, an ill-formed sequence.
                for (bad, item) in [(0xD800, &b"\xFF"[..]), (0x11_0000, b"\xED\xA0\x80")] {
                    let at = units.len() / 2;
                    units.insert(at, bad);
                    let bytes = [&input[..end / 2], item, &input[end / 2..]].concat();
                    check_vec_forms(&bytes, &units);
                }
            }
        }
    }

    /// The vector forms append what the `_into` forms write, at each
    /// policy: to a vector whose spare capacity holds stale values, and to
    /// a new one, whose room Miri knows uninitialized (it reports any read
    /// of a unit not written).
    fn check_vec_forms(bytes: &[u8], units: &[u32]) {
        use crate::transcode::stale_vector;
        for policy in [Policy::Strict, Policy::Replace] {
            let mut into = vec![0x5A5Au32; bytes.len()];
            let p = utf8_to_utf32_into(bytes, policy, &mut into, true);
            let mut stale = stale_vector(&[0x41, 0xE9], 0xBEEF, bytes.len() + 8);
            let result = utf8_to_utf32(bytes, policy, &mut stale);
            assert_eq!(result, p.result.map(drop), "{bytes:02X?} {policy:?}");
            assert_eq!(stale[..2], [0x41, 0xE9]);
            assert_eq!(stale[2..], into[..p.written], "{bytes:02X?} {policy:?}");
            let mut fresh = Vec::new();
            assert_eq!(utf8_to_utf32(bytes, policy, &mut fresh), result);
            assert_eq!(fresh, into[..p.written]);

            let mut into = vec![0x5Au8; 4 * units.len()];
            let p = utf32_to_utf8_into(units, policy, &mut into);
            let mut stale = stale_vector(b"xy", 0xEE, 4 * units.len() + 8);
            let result = utf32_to_utf8(units, policy, &mut stale);
            assert_eq!(result, p.result.map(drop), "{units:X?} {policy:?}");
            assert_eq!(stale[..2], *b"xy");
            assert_eq!(stale[2..], into[..p.written], "{units:X?} {policy:?}");
            let mut fresh = Vec::new();
            assert_eq!(utf32_to_utf8(units, policy, &mut fresh), result);
            assert_eq!(fresh, into[..p.written]);
        }
    }

    #[test]
    #[cfg_attr(
        any(miri, not(target_arch = "x86_64")),
        ignore = "millions of conversions: minutes under emulation off x86_64 (there the \
                  `steps_on_every_piece` tests check the generic steps)"
    )]
    fn utf8_to_utf32_vectors_equal_the_scalar_loop() {
        let backgrounds: [&[&str]; 5] = [
            &["a"],
            &["\u{E9}"],
            &["\u{5B57}"],
            &["\u{1F600}"],
            &["a", "\u{E9}", "\u{5B57}", "\u{1F600}", "a", " "],
        ];
        let mut input = Vec::new();
        for background in backgrounds {
            for pad in 0..4 {
                let mut chars = Vec::new();
                let mut len = pad;
                // Up to 80 bytes: steps of 16 and blocks of 32 cut at every
                // place.
                while len <= 80 {
                    let c = background[chars.len() % background.len()];
                    chars.push(c);
                    len += c.len();
                    for at in 0..=chars.len() {
                        for item in UTF8_ITEMS {
                            input.clear();
                            input.resize(pad, b'a');
                            for (k, c) in chars.iter().enumerate() {
                                if k == at {
                                    input.extend_from_slice(item);
                                }
                                input.extend_from_slice(c.as_bytes());
                            }
                            if at == chars.len() {
                                input.extend_from_slice(item);
                            }
                            check_from_utf8(&input);
                        }
                    }
                }
            }
        }
    }

    /// Long inputs, past the first windows the kernel checks, with errors
    /// spread through them.
    #[test]
    #[cfg_attr(
        any(miri, not(target_arch = "x86_64")),
        ignore = "millions of conversions: minutes under emulation off x86_64 (there the \
                  `steps_on_every_piece` tests check the generic steps)"
    )]
    fn utf8_to_utf32_vectors_equal_the_scalar_loop_on_long_inputs() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for errors in [0, 1, 3, 20] {
            for _ in 0..20 {
                let mut input = Vec::new();
                while input.len() < 3000 {
                    // Mostly valid characters, in runs.
                    let item = UTF8_ITEMS[next(7)];
                    for _ in 0..next(40) {
                        input.extend_from_slice(item);
                    }
                }
                for _ in 0..errors {
                    let at = next(input.len());
                    let bad = UTF8_ITEMS[7 + next(UTF8_ITEMS.len() - 7)];
                    input.splice(at..at, bad.iter().copied());
                }
                check_from_utf8(&input);
            }
        }
    }

    /// Runs the scalar path and each kernel's steps into UTF-8 with `room`
    /// bytes; checks they agree and returns the result.
    fn both_to_utf8(input: &[u32], policy: Policy, room: usize) -> (Progress, Vec<u8>) {
        let mut scalar = vec![0u8; room];
        // SAFETY: the converters write only bytes.
        let s = utf32_to_utf8_with(
            input,
            policy,
            unsafe { as_room(&mut scalar) },
            Kernel::Scalar,
        );
        for kernel in vector_kernels() {
            let mut vector = vec![0xAAu8; room];
            // SAFETY: as above.
            let v = utf32_to_utf8_with(input, policy, unsafe { as_room(&mut vector) }, kernel);
            // As out of UTF-8: the message only on a failure.
            assert_eq!(s, v, "{kernel}: {input:X?} {policy:?} room {room}");
            assert_eq!(
                scalar[..s.written],
                vector[..v.written],
                "{kernel}: {input:X?} {policy:?} room {room}"
            );
        }
        scalar.truncate(s.written);
        (s, scalar)
    }

    /// Both paths on `input` at every policy and room that count, the
    /// scalar one checked against std with all the room.
    fn check_to_utf8(input: &[u32]) {
        let full = 4 * input.len();
        let (strict, bytes) = both_to_utf8(input, Policy::Strict, full);
        let first_bad = input.iter().position(|&u| char::from_u32(u).is_none());
        let good: String = input[..first_bad.unwrap_or(input.len())]
            .iter()
            .map(|&u| char::from_u32(u).unwrap())
            .collect();
        assert_eq!(bytes, good.as_bytes());
        match first_bad {
            None => assert_eq!(strict.result, Ok(Status::InputEmpty)),
            Some(at) => {
                let error = strict.result.unwrap_err();
                let why = if input[at] > 0x10_FFFF {
                    EncodeError::TooLarge
                } else {
                    EncodeError::Surrogate
                };
                assert_eq!(
                    (error.offset(), error.error_len(), error.cause()),
                    (at, Some(1), Cause::Unencodable(why))
                );
            }
        }
        let (_, replaced) = both_to_utf8(input, Policy::Replace, full);
        let lossy: String = input
            .iter()
            .map(|&u| char::from_u32(u).unwrap_or('\u{FFFD}'))
            .collect();
        assert_eq!(replaced, lossy.as_bytes());
        let exact = replaced.len();
        for policy in [Policy::Strict, Policy::Replace] {
            for room in [
                exact,
                exact.saturating_sub(1),
                exact / 2,
                63,
                64,
                65,
                127,
                128,
            ] {
                if room <= full {
                    both_to_utf8(input, policy, room);
                }
            }
        }
    }

    #[test]
    #[cfg_attr(
        any(miri, not(target_arch = "x86_64")),
        ignore = "millions of conversions: minutes under emulation off x86_64 (there the \
                  `steps_on_every_piece` tests check the generic steps)"
    )]
    fn utf32_to_utf8_vectors_equal_the_scalar_loop() {
        let backgrounds: [&[u32]; 6] = [
            &[0x61],
            &[0xE9],
            &[0x5B57],
            &[0x1F600],
            &[0x61, 0xE9, 0x5B57, 0x1F600, 0x61, 0x20],
            &[
                0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10_FFFF, 0xD7FF, 0xE000,
            ],
        ];
        let items = [
            0x61,
            0x7F,
            0x80,
            0x7FF,
            0x800,
            0xD7FF,
            0xE000,
            0xFFFF,
            0x1_0000,
            0x10_FFFF,
            0xD800,
            0xDBFF,
            0xDC00,
            0xDFFF,
            0x11_0000,
            0x7FFF_FFFF,
            0x8000_0000,
            0xFFFF_FFFF,
        ];
        let mut input = Vec::new();
        for background in backgrounds {
            for len in 0..=80 {
                for at in 0..=len {
                    for item in items {
                        input.clear();
                        input.extend((0..len).map(|k| background[k % background.len()]));
                        input.insert(at, item);
                        check_to_utf8(&input);
                        // A second one a step on: the vectors start again
                        // after the first.
                        if at + 17 <= input.len() {
                            input.insert(at + 17, item);
                            check_to_utf8(&input);
                        }
                    }
                }
            }
        }
    }

    /// Texts of every mix of the forms' lengths (1 and 2 bytes, 1 to 3, 1
    /// to 4, and 3 and 4 alone), for the generic steps' paths: ASCII, the
    /// 16-bit units, and the blocks they leave to the scalar loop.
    const MIXES: [&str; 7] = [
        "the quick brown fox jumps over the lazy dog 0123456789",
        "\u{E9}t\u{E9} \u{436}\u{438}\u{437}\u{43D}\u{44C} \u{7FF}\u{80}x\u{645}\u{631}\u{62D}\u{628}\u{627}",
        "\u{436}\u{438}\u{437}\u{43D}\u{44C}\u{436}\u{438}\u{437}\u{43D}\u{44C}\u{7FF}\u{80}",
        "a\u{E9}\u{5B57}b\u{800}\u{FFFF}\u{D7FF}\u{E000} \u{436}\u{5B57}\u{5B57}c",
        "\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}\u{5B57}",
        "a\u{E9}\u{5B57}\u{1F600}b\u{10000}\u{10FFFF}\u{436} \u{1F600}\u{1F600}xy",
        "\u{1F600}\u{1F600}\u{1F600}\u{1F600}\u{5B57}\u{1F600}\u{1F600}",
    ];

    /// A piece of each text of [`MIXES`], repeated past 70 bytes.
    fn mix_bytes(k: usize) -> Vec<u8> {
        MIXES[k].repeat(1 + 140 / MIXES[k].len()).into_bytes()
    }

    /// The generic steps (and the AVX2 ones) out of UTF-8 against the
    /// scalar loop, on every piece of 0 to 70 bytes of each mix at every
    /// start (so at every alignment, and cut inside characters at either
    /// end), and with each ill-formed sequence at every place in 40 bytes.
    #[test]
    #[cfg_attr(miri, ignore = "hundreds of thousands of conversions")]
    fn utf8_to_utf32_steps_on_every_piece_of_every_mix() {
        for k in 0..MIXES.len() {
            let text = mix_bytes(k);
            for start in 0..20 {
                for len in 0..=70 {
                    let input = &text[start..start + len];
                    for policy in [Policy::Strict, Policy::Replace] {
                        for last in [true, false] {
                            let (p, units) = both_from_utf8(input, policy, len, last);
                            both_from_utf8(input, policy, p.written.saturating_sub(1), last);
                            if policy == Policy::Replace && last {
                                let lossy = String::from_utf8_lossy(input);
                                assert!(units.iter().copied().eq(lossy.chars().map(u32::from)));
                            }
                        }
                    }
                }
            }
            let mut cut = 40;
            while text[cut] & 0xC0 == 0x80 {
                cut += 1;
            }
            for at in (0..=cut).filter(|&at| text[at] & 0xC0 != 0x80) {
                for item in &UTF8_ITEMS[7..] {
                    let input = [&text[..at], item, &text[at..cut]].concat();
                    for policy in [Policy::Strict, Policy::Replace] {
                        both_from_utf8(&input, policy, input.len(), true);
                    }
                }
            }
        }
    }

    /// The generic steps (and the AVX2 ones) into UTF-8 against the scalar
    /// loop: every piece of 0 to 70 units of each mix, at every start,
    /// into all the room and into one byte less than it takes; and each
    /// unit without a UTF-8 form (and those at the steps' bounds) at every
    /// place in 40 units.
    #[test]
    #[cfg_attr(miri, ignore = "hundreds of thousands of conversions")]
    fn utf32_to_utf8_steps_on_every_piece_of_every_mix() {
        let items = [
            0x7F,
            0x80,
            0x7FF,
            0x800,
            0xD7FF,
            0xD800,
            0xDBFF,
            0xDC00,
            0xDFFF,
            0x1_0000,
            0x10_FFFF,
            0x11_0000,
            0x8000_0000,
            0xFFFF_FFFF,
        ];
        for k in 0..MIXES.len() {
            let text: Vec<u32> = core::str::from_utf8(&mix_bytes(k))
                .unwrap()
                .chars()
                .map(u32::from)
                .collect();
            for start in 0..20 {
                for len in 0..=70.min(text.len() - start) {
                    let input = &text[start..start + len];
                    for policy in [Policy::Strict, Policy::Replace] {
                        let (p, _) = both_to_utf8(input, policy, 4 * len);
                        both_to_utf8(input, policy, p.written.saturating_sub(1));
                    }
                }
            }
            for at in 0..=40 {
                for item in items {
                    let mut input = text[..40].to_vec();
                    input.insert(at, item);
                    for policy in [Policy::Strict, Policy::Replace] {
                        let (_, bytes) = both_to_utf8(&input, policy, 4 * input.len());
                        if policy == Policy::Replace {
                            let lossy: String = input
                                .iter()
                                .map(|&u| char::from_u32(u).unwrap_or('\u{FFFD}'))
                                .collect();
                            assert_eq!(bytes, lossy.as_bytes());
                        }
                    }
                }
            }
        }
    }
}
