//! Owned conversions: `String::from_utf8` and its lossy counterpart, which
//! keep the `Vec`'s allocation when the bytes are valid.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::error::Utf8Error;
use crate::lossy;

/// Converts a vector of bytes to a `String` if it is well-formed UTF-8,
/// like [`String::from_utf8`]: the vector's allocation becomes the
/// string's, and an error gives the bytes back.
///
/// ```
/// let text = utf8guard::string_from_utf8(b"caf\xC3\xA9".to_vec()).unwrap();
/// assert_eq!(text, "café");
///
/// let err = utf8guard::string_from_utf8(b"caf\xE9".to_vec()).unwrap_err();
/// assert_eq!(err.utf8_error().valid_up_to(), 3);
/// assert_eq!(err.into_bytes(), b"caf\xE9");
/// ```
#[inline]
pub fn string_from_utf8(bytes: Vec<u8>) -> Result<String, FromUtf8Error> {
    match crate::validate::from_utf8(&bytes) {
        // SAFETY: `from_utf8` just validated these bytes.
        Ok(_) => Ok(unsafe { String::from_utf8_unchecked(bytes) }),
        Err(error) => Err(FromUtf8Error { bytes, error }),
    }
}

/// Converts a vector of bytes to a `String`, replacing each ill-formed
/// sequence with U+FFFD as [`String::from_utf8_lossy`] does: valid bytes
/// become the string in place, with no copy; otherwise see
/// [`FromUtf8Error::into_utf8_lossy`].
///
/// ```
/// let bytes = b"valid".to_vec();
/// let address = bytes.as_ptr();
/// let text = utf8guard::string_from_utf8_lossy(bytes);
/// assert_eq!(text, "valid");
/// assert_eq!(text.as_ptr(), address); // the same allocation
///
/// let text = utf8guard::string_from_utf8_lossy(b"a\xF0\x9F\x98b\xC0\xAF".to_vec());
/// assert_eq!(text, "a\u{FFFD}b\u{FFFD}\u{FFFD}");
/// ```
pub fn string_from_utf8_lossy(bytes: Vec<u8>) -> String {
    match string_from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => e.into_utf8_lossy(),
    }
}

/// The error of [`string_from_utf8`]: the bytes, given back, and where and
/// why they are not UTF-8. The counterpart of std's
/// [`FromUtf8Error`](alloc::string::FromUtf8Error), with the same methods
/// and `Display`.
///
/// ```
/// let err = utf8guard::string_from_utf8(vec![b'a', 0xFF]).unwrap_err();
/// assert_eq!(err.as_bytes(), b"a\xFF");
/// assert_eq!(err.to_string(), "invalid utf-8 sequence of 1 bytes from index 1");
/// assert_eq!(err.utf8_error().kind(), utf8guard::ErrorKind::InvalidByte);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FromUtf8Error {
    bytes: Vec<u8>,
    error: Utf8Error,
}

impl FromUtf8Error {
    /// The bytes that were being converted.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes that were being converted, given back.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Where the bytes stop being UTF-8, and why.
    pub fn utf8_error(&self) -> Utf8Error {
        self.error
    }

    /// The bytes with each ill-formed sequence replaced by U+FFFD, as
    /// [`String::from_utf8_lossy`] makes them. The valid prefix found by
    /// the conversion is neither checked nor copied again: it stays in the
    /// vector's allocation, and only the bytes from the first error on are
    /// copied out and converted.
    ///
    /// ```
    /// let err = utf8guard::string_from_utf8(b"Gr\xFC\xDFe".to_vec()).unwrap_err();
    /// assert_eq!(err.into_utf8_lossy(), "Gr\u{FFFD}\u{FFFD}e");
    /// ```
    pub fn into_utf8_lossy(self) -> String {
        let mut prefix = self.bytes;
        let rest = prefix.split_off(self.error.valid_up_to());
        // SAFETY: the bytes before `valid_up_to` are well-formed UTF-8: that
        // is what the error's `valid_up_to` means.
        let mut out = unsafe { String::from_utf8_unchecked(prefix) };
        out.reserve(lossy::capacity(rest.len()));
        // `rest` starts with the error: an offset of 0 for the kernel.
        lossy::push_lossy(&mut out, &rest, 0);
        out
    }
}

impl fmt::Display for FromUtf8Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.error, f)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for FromUtf8Error {}
