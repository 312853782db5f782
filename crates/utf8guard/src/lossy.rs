//! Lossy conversion: every ill-formed sequence becomes U+FFFD.
//!
//! Two phases alternate. The fast phase runs the active kernel over the
//! rest of the input: valid input is borrowed as is, and otherwise the
//! kernel names where the next error is (on the x86 kernels, past the
//! first block, the byte that shows it; otherwise the block holding it);
//! everything before
//! the start of the character at that offset is valid and copied as is. The
//! slow phase decodes from there one character at a time (words of ASCII
//! at a time), writing one U+FFFD per maximal subpart (the rule of
//! `String::from_utf8_lossy`, and the Unicode standard's "substitution of
//! maximal subparts"), and hands back to the kernel once it has seen
//! [`CLEAN_RUN`] valid bytes after an error. Sparse errors thus cost a
//! kernel call and a few bytes of decoding each (a few dozen where the
//! kernel names a block), and dense errors
//! (binary data, another encoding) cost no kernel call at all.

use alloc::borrow::Cow;
use alloc::string::String;

use crate::bytes::{is_continuation, LEADS};
use crate::dispatch;

/// U+FFFD REPLACEMENT CHARACTER.
const REPLACEMENT: &str = "\u{FFFD}";

/// How many valid bytes after an error send the decoding back to the
/// kernel.
const CLEAN_RUN: usize = 8;

const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Converts bytes to a string, replacing each ill-formed sequence with
/// U+FFFD: exactly what [`String::from_utf8_lossy`] returns, borrowed when
/// the input is valid, at the speed of [`from_utf8`](crate::from_utf8) on
/// mostly valid input.
///
/// ```
/// use std::borrow::Cow;
///
/// // Valid input is borrowed.
/// assert!(matches!(utf8guard::from_utf8_lossy(b"valid"), Cow::Borrowed("valid")));
///
/// // One U+FFFD per maximal subpart: F0 9F 98 is one (a truncated emoji),
/// // C0 and AF are two (C0 can never start a character).
/// let bytes = b"a\xF0\x9F\x98b\xC0\xAFc";
/// let text = utf8guard::from_utf8_lossy(bytes);
/// assert_eq!(text, "a\u{FFFD}b\u{FFFD}\u{FFFD}c");
/// assert_eq!(text, String::from_utf8_lossy(bytes));
/// ```
pub fn from_utf8_lossy(bytes: &[u8]) -> Cow<'_, str> {
    let first = match dispatch::run(bytes) {
        // SAFETY: the active kernel accepted all of `bytes`.
        Ok(()) => return Cow::Borrowed(unsafe { core::str::from_utf8_unchecked(bytes) }),
        Err(offset) => offset,
    };
    let mut out = String::with_capacity(capacity(bytes.len()));
    push_lossy(&mut out, bytes, first);
    Cow::Owned(out)
}

/// Room for `len` bytes of input and, without growing, for a replacement
/// longer than what it replaces in one byte in 500.
pub(crate) fn capacity(len: usize) -> usize {
    len + len / 256 + 16
}

/// Appends the lossy conversion of `bytes` to `out`, given `first`, a
/// kernel's offset for `bytes` (or any offset the bytes before which are
/// well formed but for an unfinished character in their last 3 bytes, such
/// as an error's `valid_up_to`).
pub(crate) fn push_lossy(out: &mut String, bytes: &[u8], first: usize) {
    push_repaired::<false, _>(out, bytes, first, &mut |out, _, _, _| {
        out.push_str(REPLACEMENT)
    });
}

/// [`push_lossy`] with `replace` in place of U+FFFD: it is given `bytes`
/// and where each maximal subpart starts and ends (the unfinished
/// character at the end of the input is one), and appends what stands for
/// it. (The bounds are passed, not the slice, so that a `replace` that
/// does not look at the bytes leaves no bounds check behind.)
///
/// With `SURROGATES_WHOLE`, a surrogate's 3-byte form (`ED A0..BF
/// 80..BF`), or a prefix of it cut short, is one unit where Unicode's rule
/// makes one of each byte: the JDK's UTF-8 decoder replaces them so.
pub(crate) fn push_repaired<const SURROGATES_WHOLE: bool, F>(
    out: &mut String,
    bytes: &[u8],
    first: usize,
    replace: &mut F,
) where
    F: FnMut(&mut String, &[u8], usize, usize),
{
    let mut at = 0;
    let mut flagged = first;
    loop {
        // The kernel validated `bytes[at..flagged]` up to, possibly, an
        // unfinished character in its last 3 bytes.
        let start = at + crate::kernel::character_start(&bytes[at..], flagged - at);
        push_valid(out, &bytes[at..start]);
        at = decode_replacing::<SURROGATES_WHOLE, F>(out, bytes, start, replace);
        if at == bytes.len() {
            return;
        }
        match dispatch::run(&bytes[at..]) {
            Ok(()) => {
                push_valid(out, &bytes[at..]);
                return;
            }
            Err(offset) => flagged = at + offset,
        }
    }
}

/// Decodes `bytes` from `i`, a character start, into `out`, with what
/// `replace` makes of each maximal subpart, until [`CLEAN_RUN`] valid
/// bytes have followed an error or the input ends. Returns where it
/// stopped: a character start, or the end.
fn decode_replacing<const SURROGATES_WHOLE: bool, F>(
    out: &mut String,
    bytes: &[u8],
    mut i: usize,
    replace: &mut F,
) -> usize
where
    F: FnMut(&mut String, &[u8], usize, usize),
{
    let len = bytes.len();
    // The start of the valid bytes not yet copied to `out`.
    let mut run = i;
    // Until the first error, `stop` is the end of the input; after an
    // error, the end of the clean run that hands back to the kernels.
    let mut stop = len;
    while i < stop {
        i = skip_valid(bytes, i, stop);
        if i >= stop {
            break;
        }
        match crate::kernel::check_character(bytes, i) {
            // `skip_valid` stopped at a character that runs past `stop`.
            Ok(width) => i += width,
            Err(subpart) => {
                push_valid(out, &bytes[run..i]);
                let subpart = if SURROGATES_WHOLE {
                    surrogate_unit(bytes, i).unwrap_or(subpart)
                } else {
                    subpart
                };
                match subpart {
                    Some(n) => {
                        replace(out, bytes, i, i + n);
                        i += n;
                    }
                    // The input ends inside a character: one replacement
                    // for what is left.
                    None => {
                        replace(out, bytes, i, len);
                        return len;
                    }
                }
                run = i;
                stop = len.min(i + CLEAN_RUN);
            }
        }
    }
    push_valid(out, &bytes[run..i]);
    i
}

/// The length of the surrogate's 3-byte form at `i` (`Some(2)` when its
/// last byte is not a continuation byte, `None` when the input ends inside
/// it), or `None` (the outer one) when there is none.
#[inline(never)]
fn surrogate_unit(bytes: &[u8], i: usize) -> Option<Option<usize>> {
    match bytes[i..] {
        [0xED, 0xA0..=0xBF, b2, ..] if b2 & 0xC0 == 0x80 => Some(Some(3)),
        [0xED, 0xA0..=0xBF, _, ..] => Some(Some(2)),
        [0xED, 0xA0..=0xBF] => Some(None),
        _ => None,
    }
}

/// Skips well-formed characters from `i` (a character start) while they
/// start before `stop`: returns the first position at or after `stop`, or
/// of a character that is ill formed or too close to the end of the input
/// to be checked on the fast path.
#[inline(always)]
fn skip_valid(bytes: &[u8], mut i: usize, stop: usize) -> usize {
    while i < stop {
        let Some(&[b0, b1, b2, b3, b4, b5, b6, b7]) = bytes.get(i..i + 8) else {
            break;
        };
        let word = u64::from_le_bytes([b0, b1, b2, b3, b4, b5, b6, b7]);
        if word & HIGH_BITS == 0 {
            i += 8;
            continue;
        }
        // ASCII up to the first byte with its high bit set.
        i += (word & HIGH_BITS).trailing_zeros() as usize / 8;
        if i >= stop {
            break;
        }
        match bytes.get(i..i + 4) {
            Some(&[c0, c1, c2, c3]) => match whole_character(c0, c1, c2, c3) {
                Some(width) => i += width,
                None => return i,
            },
            _ => return i,
        }
    }
    // Near the end of the input: byte by byte, ASCII only.
    while i < stop && i < bytes.len() && bytes[i] < 0x80 {
        i += 1;
    }
    i
}

/// The width of the well-formed character that starts with the
/// non-ASCII byte `b0` and goes on with `b1`, `b2`, `b3` (which may belong
/// to the characters after it), or `None` when it is ill formed. The fast
/// path of [`decode_replacing`], with no bounds to check.
#[inline(always)]
fn whole_character(b0: u8, b1: u8, b2: u8, b3: u8) -> Option<usize> {
    let lead = LEADS[usize::from(b0)];
    let (low, high) = lead.second;
    let whole = match lead.width {
        2 => low <= b1 && b1 <= high,
        3 => low <= b1 && b1 <= high && is_continuation(b2),
        4 => low <= b1 && b1 <= high && is_continuation(b2) && is_continuation(b3),
        _ => false,
    };
    whole.then_some(usize::from(lead.width))
}

/// Appends bytes already known to be valid UTF-8.
#[inline]
fn push_valid(out: &mut String, valid: &[u8]) {
    // SAFETY: every caller passes bytes found well formed: a prefix that
    // the active kernel validated, cut back to a character start (the
    // kernel's contract: everything before its offset is well formed but
    // for an unfinished character in the last 3 bytes; `push_lossy`'s
    // callers give such an offset), or whole
    // characters that `check_character` accepted and ASCII bytes.
    out.push_str(unsafe { core::str::from_utf8_unchecked(valid) });
}
