//! The error type, compatible with `core::str::Utf8Error`, and its cause.

use core::fmt;

/// Why a byte sequence is not UTF-8.
///
/// ```
/// use utf8guard::{from_utf8, ErrorKind};
///
/// assert_eq!(from_utf8(b"\xC0\xAF").unwrap_err().kind(), ErrorKind::InvalidByte);
/// assert_eq!(from_utf8(b"\xED\xA0\x80").unwrap_err().kind(), ErrorKind::Surrogate);
/// assert_eq!(from_utf8(b"\xE2\x82").unwrap_err().kind(), ErrorKind::Incomplete);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A continuation byte (`80..BF`) where a character must start.
    UnexpectedContinuation,
    /// A byte that never appears in UTF-8: `C0`, `C1` (only ever the start
    /// of an overlong 2-byte form) or `F5..FF`.
    InvalidByte,
    /// An overlong encoding: `E0 80..9F` or `F0 80..8F`.
    Overlong,
    /// A UTF-16 surrogate code point (U+D800..U+DFFF): `ED A0..BF`.
    Surrogate,
    /// A code point above U+10FFFF: `F4 90..BF`.
    TooLarge,
    /// A multi-byte sequence cut short by a byte that is not a continuation
    /// byte.
    TooShort,
    /// The input ends inside a multi-byte sequence.
    Incomplete,
    /// A `00` byte, in a dialect without one (modified UTF-8 writes U+0000
    /// as `C0 80`; Corrected UTF-8 has it only in its magic number).
    Nul,
    /// In CESU-8, a surrogate that is not half of a pair: a lead surrogate
    /// not followed by a trail, or a trail with no lead before it.
    LoneSurrogate,
    /// In WTF-8, a lead surrogate followed by a trail surrogate: that pair
    /// must be the 4-byte form of its code point.
    SurrogatePair,
    /// In CESU-8 or modified UTF-8, a 4-byte form (`F0..F4`): a
    /// supplementary code point must be a surrogate pair there.
    FourByteForm,
}

impl ErrorKind {
    /// A short description in words, e.g. `"overlong encoding"`.
    pub const fn description(self) -> &'static str {
        match self {
            ErrorKind::UnexpectedContinuation => "unexpected continuation byte",
            ErrorKind::InvalidByte => "byte that never appears in UTF-8",
            ErrorKind::Overlong => "overlong encoding",
            ErrorKind::Surrogate => "UTF-16 surrogate code point",
            ErrorKind::TooLarge => "code point above U+10FFFF",
            ErrorKind::TooShort => "multi-byte sequence cut short",
            ErrorKind::Incomplete => "input ends inside a multi-byte sequence",
            ErrorKind::Nul => "00 byte, which this encoding does not allow",
            ErrorKind::LoneSurrogate => "surrogate that is not half of a surrogate pair",
            ErrorKind::SurrogatePair => "surrogate pair, which must be a 4-byte sequence here",
            ErrorKind::FourByteForm => "4-byte sequence, where a surrogate pair is required",
        }
    }

    /// A stable name in `snake_case`, for machines: e.g. `"overlong"`,
    /// `"unexpected_continuation"` (what the command's JSON reports say).
    ///
    /// ```
    /// use utf8guard::ErrorKind;
    ///
    /// let kind = utf8guard::from_utf8(b"\xC0\xAF").unwrap_err().kind();
    /// assert_eq!((kind, kind.name()), (ErrorKind::InvalidByte, "invalid_byte"));
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::UnexpectedContinuation => "unexpected_continuation",
            ErrorKind::InvalidByte => "invalid_byte",
            ErrorKind::Overlong => "overlong",
            ErrorKind::Surrogate => "surrogate",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::TooShort => "too_short",
            ErrorKind::Incomplete => "incomplete",
            ErrorKind::Nul => "nul",
            ErrorKind::LoneSurrogate => "lone_surrogate",
            ErrorKind::SurrogatePair => "surrogate_pair",
            ErrorKind::FourByteForm => "four_byte_form",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

/// The kind of a fault found by the reference automaton
/// ([`utf8guard_dfa`], the oracle the kernels are tested against): the one
/// place the two lists meet. Exhaustive, so a new fault fails to compile
/// here rather than being misreported.
impl From<utf8guard_dfa::Fault> for ErrorKind {
    fn from(fault: utf8guard_dfa::Fault) -> Self {
        use utf8guard_dfa::Fault;
        match fault {
            Fault::UnexpectedContinuation => ErrorKind::UnexpectedContinuation,
            Fault::InvalidByte => ErrorKind::InvalidByte,
            Fault::Overlong => ErrorKind::Overlong,
            Fault::Surrogate => ErrorKind::Surrogate,
            Fault::TooLarge => ErrorKind::TooLarge,
            Fault::TooShort => ErrorKind::TooShort,
            Fault::Nul => ErrorKind::Nul,
            Fault::LoneSurrogate => ErrorKind::LoneSurrogate,
            Fault::SurrogatePair => ErrorKind::SurrogatePair,
            Fault::FourByteForm => ErrorKind::FourByteForm,
            Fault::Incomplete => ErrorKind::Incomplete,
        }
    }
}

/// The error of [`from_utf8`](crate::from_utf8): where the input stops being
/// UTF-8 and why.
///
/// [`valid_up_to`](Self::valid_up_to), [`error_len`](Self::error_len) and
/// the `Display` text are exactly those of `core::str::Utf8Error` for the
/// same input; [`kind`](Self::kind) adds the cause.
///
/// ```
/// let bytes = b"caf\xC3\xA9 \xF0\x9F\x98";
/// let ours = utf8guard::from_utf8(bytes).unwrap_err();
/// let std = std::str::from_utf8(bytes).unwrap_err();
/// assert_eq!(ours.valid_up_to(), std.valid_up_to());
/// assert_eq!(ours.error_len(), std.error_len());
/// assert_eq!(ours.to_string(), std.to_string());
/// ```
///
/// `Debug` shows what std's `Debug` shows, then the kind:
///
/// ```
/// let err = utf8guard::from_utf8(b"abc\xE2\x82").unwrap_err();
/// assert_eq!(
///     format!("{err:?}"),
///     "Utf8Error { valid_up_to: 3, error_len: None, kind: Incomplete }"
/// );
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Utf8Error {
    valid_up_to: usize,
    /// 0 for "none": the input ended inside a sequence.
    error_len: u8,
    kind: ErrorKind,
}

impl Utf8Error {
    /// The error found by the DFA run over `bytes[start..]`.
    pub(crate) fn from_dfa(start: usize, invalid: utf8guard_dfa::Invalid) -> Self {
        Utf8Error {
            valid_up_to: start + invalid.valid_up_to,
            error_len: invalid.error_len.unwrap_or(0) as u8,
            kind: ErrorKind::from(invalid.fault),
        }
    }

    /// An error at `valid_up_to`, of `error_len` bytes (`None`: the input
    /// ended inside a sequence).
    #[inline]
    pub(crate) const fn new(valid_up_to: usize, error_len: Option<u8>, kind: ErrorKind) -> Self {
        Utf8Error {
            valid_up_to,
            error_len: match error_len {
                Some(n) => n,
                None => 0,
            },
            kind,
        }
    }

    /// The same error, seen from `offset` bytes earlier in a longer input.
    pub(crate) fn shifted(self, offset: usize) -> Self {
        Utf8Error {
            valid_up_to: self.valid_up_to + offset,
            ..self
        }
    }

    /// The length of the longest prefix of the input that is valid UTF-8:
    /// `from_utf8(&input[..e.valid_up_to()])` succeeds.
    #[inline]
    pub fn valid_up_to(&self) -> usize {
        self.valid_up_to
    }

    /// `Some(n)`: the `n` bytes (1 to 3; up to 5 in the dialects with longer
    /// sequences) at `valid_up_to` are an invalid
    /// sequence, to be skipped (or replaced by U+FFFD) before decoding goes
    /// on. `None`: the input ended inside a sequence, which more input might
    /// complete.
    #[inline]
    pub fn error_len(&self) -> Option<usize> {
        match self.error_len {
            0 => None,
            n => Some(n as usize),
        }
    }

    /// Why the bytes at [`valid_up_to`](Self::valid_up_to) are invalid.
    #[inline]
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}

/// std's fields, with `error_len` as std shows it (`None`, `Some(n)`), then
/// the kind.
impl fmt::Debug for Utf8Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Utf8Error")
            .field("valid_up_to", &self.valid_up_to)
            .field("error_len", &self.error_len())
            .field("kind", &self.kind)
            .finish()
    }
}

impl fmt::Display for Utf8Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.error_len() {
            Some(len) => write!(
                f,
                "invalid utf-8 sequence of {} bytes from index {}",
                len, self.valid_up_to
            ),
            None => write!(
                f,
                "incomplete utf-8 byte sequence from index {}",
                self.valid_up_to
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Utf8Error {}
