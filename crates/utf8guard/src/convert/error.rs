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
/// stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConvertError {
    offset: usize,
    kind: ConvertErrorKind,
}

impl ConvertError {
    pub(crate) fn new(offset: usize, kind: ConvertErrorKind) -> ConvertError {
        ConvertError { offset, kind }
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
        ConvertError::new(e.offset(), e.cause().into())
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
