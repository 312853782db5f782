//! Lossy conversion: every ill-formed sequence becomes U+FFFD.
//!
//! The input is first validated whole by the kernels; valid input is
//! borrowed as is. Otherwise the output is built from the valid stretches
//! between errors, each found by the kernels, with one U+FFFD for each
//! maximal subpart (the `error_len` of the error), which is the rule of
//! `String::from_utf8_lossy` and of the Unicode standard's "substitution of
//! maximal subparts". Right after an error, where more errors are likely
//! (binary data, another encoding), a short window is decoded with the
//! reference DFA instead, so that dense errors do not cost a kernel call
//! each; the first window without an error hands back to the kernels.

use alloc::borrow::Cow;
use alloc::string::String;

/// U+FFFD REPLACEMENT CHARACTER.
const REPLACEMENT: &str = "\u{FFFD}";

/// How many bytes after an error are decoded by the DFA before going back
/// to the kernels.
const DENSE_WINDOW: usize = 32;

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
    match crate::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(error) => {
            // Room for the input, and for a few replacements longer than
            // the bytes they replace.
            let mut out = String::with_capacity(bytes.len() + 16);
            let start = error.valid_up_to();
            push_valid(&mut out, &bytes[..start]);
            out.push_str(REPLACEMENT);
            if let Some(len) = error.error_len() {
                replace_rest(&mut out, &bytes[start + len..]);
            }
            Cow::Owned(out)
        }
    }
}

/// How a stretch of valid bytes ends.
enum Stop {
    /// At the end of what was examined, on a character boundary.
    Clean,
    /// At an ill-formed sequence of this many bytes.
    Invalid(usize),
    /// At a character that the end of the input cuts short.
    Truncated,
}

/// Appends the lossy conversion of `rest`, which follows an error, to `out`.
fn replace_rest(out: &mut String, mut rest: &[u8]) {
    // `true` right after an error: decode a window with the DFA.
    let mut dense = true;
    while !rest.is_empty() {
        let (valid, stop) = if dense {
            let window = &rest[..rest.len().min(DENSE_WINDOW)];
            match utf8guard_dfa::validate(window) {
                Ok(()) => {
                    dense = false;
                    (window.len(), Stop::Clean)
                }
                Err(invalid) => match invalid.error_len {
                    Some(len) => (invalid.valid_up_to, Stop::Invalid(len)),
                    None if window.len() == rest.len() => (invalid.valid_up_to, Stop::Truncated),
                    // The window, not the input, ends inside a character:
                    // leave that character to the kernels.
                    None => {
                        dense = false;
                        (invalid.valid_up_to, Stop::Clean)
                    }
                },
            }
        } else {
            match crate::from_utf8(rest) {
                Ok(_) => (rest.len(), Stop::Clean),
                Err(error) => {
                    dense = true;
                    match error.error_len() {
                        Some(len) => (error.valid_up_to(), Stop::Invalid(len)),
                        None => (error.valid_up_to(), Stop::Truncated),
                    }
                }
            }
        };
        push_valid(out, &rest[..valid]);
        match stop {
            Stop::Clean => rest = &rest[valid..],
            Stop::Invalid(len) => {
                out.push_str(REPLACEMENT);
                rest = &rest[valid + len..];
            }
            Stop::Truncated => {
                out.push_str(REPLACEMENT);
                return;
            }
        }
    }
}

/// Appends bytes already known to be valid UTF-8.
#[inline]
fn push_valid(out: &mut String, valid: &[u8]) {
    // SAFETY: every caller passes a prefix that a validator (a kernel via
    // `from_utf8`, or the reference DFA) reported as well formed: the bytes
    // before an error's `valid_up_to`, or a whole slice found valid.
    out.push_str(unsafe { core::str::from_utf8_unchecked(valid) });
}
