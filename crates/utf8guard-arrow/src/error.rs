//! The error type: which row, where in its value, and why.

use std::fmt;

use arrow_schema::{ArrowError, DataType};
use utf8guard::{BatchError, ErrorKind, Utf8Error};

/// Why an array's values are not all UTF-8, or why its layout cannot be
/// read.
///
/// [`Invalid`](Self::Invalid) names the row, the byte offset inside the
/// row's value where the value stops being UTF-8, and the cause. The other
/// variants are about the array's structure, which only arrays built
/// without Arrow's checks (unsafe constructors, the C Data Interface, IPC
/// read with validation skipped) can get wrong.
///
/// ```
/// use arrow_array::BinaryArray;
/// use utf8guard::ErrorKind;
///
/// let array = BinaryArray::from(vec![&b"ok"[..], b"caf\xC3", b"\xFF"]);
/// let err = utf8guard_arrow::validate_binary(&array).unwrap_err();
/// assert_eq!(err.row(), Some(1));
/// assert_eq!(err.utf8_error().unwrap().valid_up_to(), 3);
/// assert_eq!(err.utf8_error().unwrap().kind(), ErrorKind::Incomplete);
/// assert_eq!(
///     err.to_string(),
///     "row 1: invalid UTF-8 at byte 3 of the value (input ends inside a multi-byte sequence)"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The value of row `row` is not UTF-8. `error` counts from the start
    /// of the value: [`valid_up_to`](Utf8Error::valid_up_to) is the byte
    /// offset inside the value, [`kind`](Utf8Error::kind) the cause, and
    /// [`error_len`](Utf8Error::error_len) the length of the bad sequence
    /// (`None` when the value ends inside a character).
    Invalid {
        /// The row, counted from the array's first row (of the slice, for
        /// a sliced array).
        row: usize,
        /// Where in the value, and why.
        error: Utf8Error,
    },
    /// The offsets are negative, decreasing or past the end of the values
    /// buffer.
    Offsets(BatchError),
    /// The view of row `row` names a data buffer the array does not have,
    /// or bytes past the end of that buffer.
    View {
        /// The row.
        row: usize,
        /// The data buffer the view names.
        buffer: u32,
        /// The view's offset in that buffer.
        offset: u32,
        /// The view's length.
        len: u32,
    },
    /// The array is not of a binary or string type.
    Unsupported(DataType),
}

impl Error {
    /// The row the error is about (`None` for [`Offsets`](Self::Offsets),
    /// which is about an offset).
    pub fn row(&self) -> Option<usize> {
        match *self {
            Error::Invalid { row, .. } | Error::View { row, .. } => Some(row),
            Error::Offsets(_) | Error::Unsupported(_) => None,
        }
    }

    /// The error inside the value, for [`Invalid`](Self::Invalid).
    pub fn utf8_error(&self) -> Option<Utf8Error> {
        match *self {
            Error::Invalid { error, .. } => Some(error),
            _ => None,
        }
    }

    /// The cause, for [`Invalid`](Self::Invalid).
    pub fn kind(&self) -> Option<ErrorKind> {
        self.utf8_error().map(|e| e.kind())
    }

    /// The error of a string of a batch, with the string's index as the row.
    pub(crate) fn from_batch(error: BatchError) -> Error {
        match error.utf8_error() {
            Some(utf8) => Error::Invalid {
                row: error.index(),
                error: utf8,
            },
            None => Error::Offsets(error),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Invalid { row, error } => write!(
                f,
                "row {row}: invalid UTF-8 at byte {} of the value ({})",
                error.valid_up_to(),
                error.kind()
            ),
            Error::Offsets(error) => write!(f, "malformed offsets: {error}"),
            Error::View {
                row,
                buffer,
                offset,
                len,
            } => write!(
                f,
                "row {row}: the view's {len} bytes at offset {offset} of data buffer {buffer} \
                 are outside the array's buffers"
            ),
            Error::Unsupported(data_type) => {
                write!(f, "{data_type} is not a binary or string type")
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Invalid { error, .. } => Some(error),
            Error::Offsets(error) => Some(error),
            Error::View { .. } | Error::Unsupported(_) => None,
        }
    }
}

/// As Arrow reports a value that is not UTF-8: an
/// [`ArrowError::InvalidArgumentError`] with this error's message.
impl From<Error> for ArrowError {
    fn from(error: Error) -> ArrowError {
        ArrowError::InvalidArgumentError(error.to_string())
    }
}
