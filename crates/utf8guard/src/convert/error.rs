//! Why a [`Converter`](super::Converter) stopped, or could not be made.

use core::fmt;

use crate::encode::EncodeError;
use crate::error::ErrorKind;
use crate::transcode::{Cause, TranscodeError};

/// Why a conversion stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ConvertErrorKind {
    /// An ill-formed sequence of a member of the UTF-8 family (the kind is
    /// [`Dialect::check`](crate::Dialect::check)'s).
    Malformed(ErrorKind),
    /// A UTF-32 code unit that is no character: a surrogate, or a value
    /// above U+10FFFF.
    NotACharacter(u32),
    /// The input ends inside a code unit of this many bytes (2 for UTF-16,
    /// 4 for UTF-32).
    TruncatedUnit(usize),
    /// A character the target cannot hold.
    Unencodable(EncodeError),
    /// A Corrected UTF-8 reserved `FE`/`FF` run, which no other encoding
    /// holds.
    Reserved,
}

/// Where and why a [`Policy::Strict`](crate::Policy::Strict) conversion
/// stopped. Two errors are equal when their offsets and kinds are (the
/// [`error_len`](Self::error_len) of a run depends on where the pieces
/// were cut).
#[derive(Clone, Copy, Debug)]
pub struct ConvertError {
    offset: usize,
    kind: ConvertErrorKind,
    len: Option<usize>,
}

impl ConvertError {
    /// An error of `len` bytes of input (`None`: to the input's end).
    pub(crate) fn new(offset: usize, kind: ConvertErrorKind, len: Option<usize>) -> ConvertError {
        ConvertError { offset, kind, len }
    }

    /// The same error, `by` bytes later in the input.
    pub(crate) fn shifted(self, by: usize) -> ConvertError {
        ConvertError {
            offset: self.offset + by,
            ..self
        }
    }

    /// The byte offset in the input stream (a byte order mark included)
    /// where the offending item starts.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Why the conversion stopped.
    pub fn kind(&self) -> ConvertErrorKind {
        self.kind
    }

    /// How many bytes of the input, from [`offset`](Self::offset), the
    /// error covers: the maximal subpart of an ill-formed sequence, the
    /// code unit that is no character, the lone surrogate, the character
    /// the target cannot hold; into Latin-1 or Windows-1252, the whole run
    /// of characters the target cannot hold that starts there, as CPython's
    /// encoders report it (of a run that reaches the end of a piece of a
    /// stream, the part in that piece). `None` when the input ends inside
    /// the item (a sequence, a code unit or a surrogate pair cut short): it
    /// runs to the end of the input.
    ///
    /// ```
    /// use utf8guard::{Converter, Encoding, Policy};
    ///
    /// let latin1 = Encoding::from_name("latin-1").unwrap();
    /// let utf8 = Encoding::from_name("utf-8").unwrap();
    /// let mut c = Converter::new(utf8, latin1, Policy::Strict);
    /// let e = c.convert_to_vec("a€😀b".as_bytes(), &mut Vec::new(), true).unwrap_err();
    /// assert_eq!((e.offset(), e.error_len()), (1, Some(7)));
    /// let mut c = Converter::new(utf8, latin1, Policy::Strict);
    /// let e = c.convert_to_vec(b"ab\xF0\x9F", &mut Vec::new(), true).unwrap_err();
    /// assert_eq!((e.offset(), e.error_len()), (2, None));
    /// ```
    pub fn error_len(&self) -> Option<usize> {
        self.len
    }
}

impl PartialEq for ConvertError {
    fn eq(&self, other: &ConvertError) -> bool {
        (self.offset, self.kind) == (other.offset, other.kind)
    }
}

impl Eq for ConvertError {}

impl core::hash::Hash for ConvertError {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        (self.offset, self.kind).hash(state);
    }
}

impl From<Cause> for ConvertErrorKind {
    fn from(cause: Cause) -> ConvertErrorKind {
        match cause {
            Cause::Malformed(kind) => ConvertErrorKind::Malformed(kind),
            Cause::Unencodable(why) => ConvertErrorKind::Unencodable(why),
            Cause::Reserved => ConvertErrorKind::Reserved,
        }
    }
}

impl From<TranscodeError> for ConvertError {
    fn from(e: TranscodeError) -> ConvertError {
        ConvertError::new(e.offset(), e.cause().into(), e.error_len())
    }
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.offset;
        match self.kind {
            ConvertErrorKind::Malformed(kind) => write!(f, "{kind} at offset {at}"),
            ConvertErrorKind::NotACharacter(unit) => {
                write!(
                    f,
                    "UTF-32 code unit {unit:08X}, no character, at offset {at}"
                )
            }
            ConvertErrorKind::TruncatedUnit(n) => {
                write!(f, "input ends inside a {n}-byte code unit at offset {at}")
            }
            ConvertErrorKind::Unencodable(why) => write!(f, "{why} at offset {at}"),
            ConvertErrorKind::Reserved => write!(
                f,
                "reserved FE/FF run, which the target cannot hold, at offset {at}"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ConvertError {}

/// An option the target encoding has no use for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OptionError {
    /// A magic number asked for, but only Corrected UTF-8 has one.
    NoMagicNumber,
    /// A byte order mark asked for, but the target has none (Corrected
    /// UTF-8, Latin-1, Windows-1252).
    NoByteOrderMark,
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OptionError::NoMagicNumber => "only Corrected UTF-8 has a magic number",
            OptionError::NoByteOrderMark => "the target has no byte order mark",
        })
    }
}

#[cfg(feature = "std")]
impl std::error::Error for OptionError {}
