//! UTF-32, in native `u32` units (the caller handles byte order), to and
//! from UTF-8.
//!
//! Out of UTF-8, the kernel validates first ([`crate::utf8_input`]), then
//! ASCII runs are widened and the other characters decoded without
//! checking. Into UTF-8, each unit is checked (a surrogate or a value
//! above U+10FFFF has no UTF-8 form) and ASCII runs narrowed a block at a
//! time.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

use crate::ascii;
use crate::encode::EncodeError;
use crate::transcode::{Cause, Policy, Progress, Status, TranscodeError};
use crate::utf8_input::{self, Convert, Stop};

/// UTF-8 into UTF-32, for [`utf8_input::convert`].
struct ToUtf32;

impl Convert for ToUtf32 {
    type Unit = u32;
    const REPLACEMENT: u32 = 0xFFFD;

    #[inline]
    fn valid(&self, src: &[u8], dst: &mut [u32]) -> (usize, usize, Stop) {
        let (mut r, mut w) = (0, 0);
        while let Some(&b) = src.get(r) {
            // A block widened at once, its ASCII prefix kept, where a run
            // starts (two ASCII bytes in a row: widening a block at each
            // space between words cost more than it saved).
            if b < 0x80 && src.get(r + 1).is_some_and(|&next| next < 0x80) {
                if let (Some((block, n)), Some(units)) =
                    (ascii::run_at(src, r), dst.get_mut(w..w + ascii::BLOCK))
                {
                    for (unit, &b) in units.iter_mut().zip(block) {
                        *unit = u32::from(b);
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
                *unit = u32::from(b);
                r += 1;
            } else {
                let (cp, len) = utf8_input::decode_valid(&src[r..]);
                *unit = cp;
                r += len;
            }
            w += 1;
        }
        (r, w, Stop::Done)
    }
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
    // Never more units than bytes.
    let len = out.len();
    out.resize(len + input.len(), 0);
    let progress = utf8_to_utf32_into(input, policy, &mut out[len..], true);
    out.truncate(len + progress.written);
    debug_assert!(progress.result.is_err() || progress.read == input.len());
    progress.result.map(drop)
}

/// Converts UTF-8 to UTF-32 into a caller's buffer (no allocation):
/// [`utf8_to_utf32`] a piece at a time, with the conventions of
/// [`wtf8_to_utf16_into`](crate::wtf8_to_utf16_into): an `output` as long
/// as `input` always has room for all of it ([`utf32_len_from_utf8`]
/// units, for valid input); without `last`, a sequence the input ends
/// inside is left unread, to be passed again with what follows; error
/// offsets count bytes from the start of `input`.
/// Past `written`, `output` may hold scratch (ASCII is widened in whole
/// blocks).
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
    utf8_input::convert(&ToUtf32, input, policy, output, last)
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
    let len = out.len();
    out.resize(len + utf8_len_from_utf32(input), 0);
    let progress = utf32_to_utf8_into(input, policy, &mut out[len..]);
    out.truncate(len + progress.written);
    debug_assert!(progress.result.is_err() || progress.read == input.len());
    progress.result.map(drop)
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
/// as 4 bytes where there is room).
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
    let (mut i, mut w) = (0, 0);
    let status = loop {
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
                    *b = u as u8;
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
        if let Some(dst) = output.get_mut(w..w + 4) {
            dst.copy_from_slice(&form.to_le_bytes());
        } else if let Some(dst) = output.get_mut(w..w + len) {
            dst.copy_from_slice(&form.to_le_bytes()[..len]);
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
