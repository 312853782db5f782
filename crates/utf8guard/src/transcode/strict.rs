//! Well-formed UTF-8 to and from well-formed UTF-16: the WTF-8 forms'
//! loops, with lone surrogates made errors (or U+FFFD) on both sides.
//!
//! UTF-8 into UTF-16 is the WTF-8 loop run with UTF-8's checks (UTF-8 is
//! WTF-8 without the surrogates' 3-byte forms). UTF-16 into UTF-8 is the
//! WTF-8 loop stopped before each lone surrogate (its vector steps never
//! convert one), which the unit loop here then refuses or replaces.

use core::mem::MaybeUninit;

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

#[cfg(feature = "alloc")]
use super::{append_whole, to_utf16_vec, utf16_simd};
use super::{as_room, fast, to_utf16_room, Cause, Policy, Progress, Status, TranscodeError};
use crate::decode;
use crate::dialect::Dialect;
use crate::error::ErrorKind;

/// Converts UTF-8 to UTF-16, appending to `out`; with [`Policy::Replace`],
/// each maximal subpart of an ill-formed sequence becomes U+FFFD (as
/// [`String::from_utf8_lossy`] counts them). The 3-byte forms of
/// surrogates are ill formed here (see [`wtf8_to_utf16`](crate::wtf8_to_utf16)
/// for WTF-8, which keeps them). Offsets in errors count bytes. On an
/// error, `out` holds the conversion of everything before it.
///
/// ```
/// use utf8guard::{utf8_to_utf16, Cause, ErrorKind, Policy};
///
/// let mut units = Vec::new();
/// utf8_to_utf16("a€😀".as_bytes(), Policy::Strict, &mut units).unwrap();
/// assert_eq!(units, "a€😀".encode_utf16().collect::<Vec<u16>>());
///
/// units.clear();
/// let e = utf8_to_utf16(b"a\xED\xA0\x80", Policy::Strict, &mut units).unwrap_err();
/// assert_eq!((e.offset(), e.error_len()), (1, Some(1)));
/// assert_eq!(e.cause(), Cause::Malformed(ErrorKind::Surrogate));
/// assert_eq!(units, [0x61]);
/// ```
#[cfg(feature = "alloc")]
pub fn utf8_to_utf16(
    input: &[u8],
    policy: Policy,
    out: &mut Vec<u16>,
) -> Result<(), TranscodeError> {
    to_utf16_vec(Dialect::Utf8, input, policy, out)
}

/// Converts UTF-8 to UTF-16 into a caller's buffer (no allocation):
/// [`utf8_to_utf16`] a piece at a time. `written` counts units. An
/// `output` at least as long as `input` always has room for all of it;
/// one of fewer than 2 units may not make progress. `last` says that no
/// input follows: without it, a sequence that the next piece may complete
/// is left unread ([`Status::InputEmpty`] with `read < input.len()`), to be
/// passed again with what follows. The call keeps no state. Error offsets
/// count bytes from the start of `input`.
///
/// ```
/// use utf8guard::{utf8_to_utf16_into, Policy, Status};
///
/// let mut units = [0u16; 4];
/// let p = utf8_to_utf16_into(b"a\xE2\x82", Policy::Strict, &mut units, false);
/// assert_eq!((p.read, p.written, p.result), (1, 1, Ok(Status::InputEmpty)));
/// let p = utf8_to_utf16_into(b"\xE2\x82\xAC\xFF", Policy::Replace, &mut units, true);
/// assert_eq!((p.read, p.written), (4, 2));
/// assert_eq!(units[..2], [0x20AC, 0xFFFD]);
/// ```
pub fn utf8_to_utf16_into(
    input: &[u8],
    policy: Policy,
    output: &mut [u16],
    last: bool,
) -> Progress {
    // SAFETY: the converter writes only units.
    to_utf16_room(
        Dialect::Utf8,
        input,
        policy,
        unsafe { as_room(output) },
        last,
    )
}

/// Converts UTF-16 to UTF-8, appending to `out`: surrogate pairs become
/// 4-byte sequences; a lone surrogate is an error
/// ([`Cause::Malformed`]`(`[`ErrorKind::LoneSurrogate`]`)`, its offset in
/// units, one unit long), or U+FFFD with [`Policy::Replace`] (as
/// [`String::from_utf16_lossy`]). See [`utf16_to_wtf8`](crate::utf16_to_wtf8)
/// for WTF-8, which keeps lone surrogates. On an error, `out` holds the
/// conversion of everything before it.
///
/// ```
/// use utf8guard::{utf16_to_utf8, Policy};
///
/// let mut bytes = Vec::new();
/// utf16_to_utf8(&[0x61, 0xD83D, 0xDE00], Policy::Strict, &mut bytes).unwrap();
/// assert_eq!(bytes, "a😀".as_bytes());
///
/// bytes.clear();
/// let e = utf16_to_utf8(&[0x61, 0xDC00, 0x62], Policy::Strict, &mut bytes).unwrap_err();
/// assert_eq!((e.offset(), e.error_len()), (1, Some(1)));
/// assert_eq!(bytes, b"a");
///
/// bytes.clear();
/// utf16_to_utf8(&[0x61, 0xDC00, 0x62], Policy::Replace, &mut bytes).unwrap();
/// assert_eq!(bytes, "a\u{FFFD}b".as_bytes());
/// ```
#[cfg(feature = "alloc")]
pub fn utf16_to_utf8(
    input: &[u16],
    policy: Policy,
    out: &mut Vec<u8>,
) -> Result<(), TranscodeError> {
    // The WTF-8 bound holds: U+FFFD takes the 3 bytes of the lone
    // surrogate it stands for.
    let bound = utf16_simd::wtf8_len_bound(input);
    // SAFETY: the converter writes each byte it counts, in order.
    unsafe {
        append_whole(out, bound, input.len(), |room| {
            utf16_to_utf8_room(input, policy, room, true)
        })
    }
}

/// Converts UTF-16 to UTF-8 into a caller's buffer (no allocation):
/// [`utf16_to_utf8`] a piece at a time. `read` counts units. An `output`
/// three times as long as `input` always has room for all of it; one of
/// fewer than 4 bytes may not make progress. `last` says that no input
/// follows: without it, a lead surrogate that ends `input` is left unread
/// (the next piece may start with its trail). Error offsets count units
/// from the start of `input`.
///
/// ```
/// use utf8guard::{utf16_to_utf8_into, Policy, Status};
///
/// let mut bytes = [0u8; 8];
/// let p = utf16_to_utf8_into(&[0x61, 0xD83D], Policy::Strict, &mut bytes, false);
/// assert_eq!((p.read, p.written, p.result), (1, 1, Ok(Status::InputEmpty)));
/// let p = utf16_to_utf8_into(&[0xD83D, 0x62], Policy::Strict, &mut bytes, true);
/// assert_eq!(p.result.unwrap_err().offset(), 0);
/// ```
pub fn utf16_to_utf8_into(
    input: &[u16],
    policy: Policy,
    output: &mut [u8],
    last: bool,
) -> Progress {
    // SAFETY: the converter writes only bytes.
    utf16_to_utf8_room(input, policy, unsafe { as_room(output) }, last)
}

/// [`utf16_to_utf8_into`] into room that may be uninitialized: it writes
/// the bytes it counts as written, in order, and may store scratch after
/// them.
fn utf16_to_utf8_room(
    input: &[u16],
    policy: Policy,
    output: &mut [MaybeUninit<u8>],
    last: bool,
) -> Progress {
    let (mut i, mut w) = (0, 0);
    let status = loop {
        if i == input.len() {
            break Status::InputEmpty;
        }
        if output.len() - w >= 3 {
            // Room for the longest conversion: 3 bytes a unit.
            let end = input.len().min(i + (output.len() - w) / 3);
            let whole = last && end == input.len();
            let (read, written) =
                fast::utf16_to_utf8_until_lone(&input[i..end], &mut output[w..], whole);
            (i, w) = (i + read, w + written);
            if read > 0 {
                continue;
            }
        }
        // One item at a time: a lone surrogate, a lead surrogate that ends
        // the input (or the room), or any item when the room is short.
        let value = u32::from(input[i]);
        let (value, units) = if decode::is_lead(value) {
            match input.get(i + 1) {
                Some(&next) if (0xDC00..0xE000).contains(&next) => {
                    (decode::combine(value, u32::from(next)), 2)
                }
                None if !last => break Status::InputEmpty,
                _ => (u32::MAX, 1),
            }
        } else if (0xDC00..0xE000).contains(&value) {
            (u32::MAX, 1)
        } else {
            (value, 1)
        };
        let value = match (value, policy) {
            (u32::MAX, Policy::Strict) => {
                return Progress {
                    read: i,
                    written: w,
                    result: Err(TranscodeError {
                        offset: i,
                        len: Some(1),
                        cause: Cause::Malformed(ErrorKind::LoneSurrogate),
                    }),
                }
            }
            (u32::MAX, Policy::Replace) => 0xFFFD,
            (value, _) => value,
        };
        let Some(len) = fast::put_fitting(&mut output[w..], value) else {
            break Status::OutputFull;
        };
        i += units;
        w += len;
    };
    Progress {
        read: i,
        written: w,
        result: Ok(status),
    }
}
