//! Fast UTF-8 validation of Apache Arrow columns with utf8guard.
//!
//! Arrow checks string data with `std::str::from_utf8`: the whole values
//! buffer of a `Utf8` array at once, and every value of a `Utf8View` array
//! one call at a time. This crate does the same checks with utf8guard's
//! SIMD kernels and batch APIs, for the conversions that ingestion needs:
//!
//! - zero-copy conversions: [`binary_to_string`] (`Binary` to `Utf8`,
//!   `LargeBinary` to `LargeUtf8`) and [`binary_view_to_string_view`]
//!   (`BinaryView` to `Utf8View`), which validate the values and hand the
//!   same buffers to `new_unchecked`;
//! - re-validation of string arrays from untrusted sources (the C Data
//!   Interface, IPC read with validation skipped): [`validate_string`] and
//!   [`validate_string_view`]; and of binary arrays: [`validate_binary`],
//!   [`validate_binary_view`]; for any of the six types, [`validate`] and
//!   [`invalid_values`];
//! - the lossy forms: invalid values to null, as Arrow's `cast` with
//!   `safe: true` ([`binary_to_string_or_null`],
//!   [`binary_view_to_string_view_or_null`]), or repaired with U+FFFD as
//!   `String::from_utf8_lossy` repairs ([`binary_to_string_lossy`],
//!   [`binary_view_to_string_view_lossy`]), or under any of utf8guard's
//!   repair policies ([`Replacement`]: the JDK's decoder, Windows-1252 or
//!   Latin-1 for the bytes of mixed files, `\xNN`, dropped;
//!   [`binary_to_string_repaired`], [`binary_view_to_string_view_repaired`]);
//! - a whole record batch at once: [`validate_batch`] checks every binary
//!   and string column, [`repair_batch`] makes every string column UTF-8
//!   (for batches from IPC, the C Data Interface or Parquet whose strings
//!   were never checked).
//!
//! Errors name the row, the byte offset inside the row's value and the
//! cause ([`Error`]).
//!
//! ```
//! use arrow_array::{Array, BinaryArray};
//! use utf8guard::ErrorKind;
//!
//! let column = BinaryArray::from(vec![&b"plain"[..], "Größe".as_bytes(), b"bad \xC3\x28"]);
//! let err = utf8guard_arrow::binary_to_string(&column).unwrap_err();
//! assert_eq!(err.row(), Some(2));
//! assert_eq!(err.utf8_error().unwrap().valid_up_to(), 4);
//! assert_eq!(err.kind(), Some(ErrorKind::TooShort));
//!
//! let good = utf8guard_arrow::binary_to_string(&column.slice(0, 2)).unwrap();
//! assert_eq!(good.value(1), "Größe");
//! ```
//!
//! # Which Arrow
//!
//! The crate is built on the `arrow-array`, `arrow-buffer`, `arrow-data`
//! and `arrow-schema` crates of Arrow 59, not on `arrow` whole. Arrow 59 is
//! the version DataFusion 55 uses, and DataFusion 55 the version the newest
//! Ballista release (55) is built on: arrays made by any of the three pass
//! to these functions as they are. (Arrow 60 is out, but a crate built on
//! it could not take DataFusion's or Ballista's arrays.)
//!
//! # Dialects
//!
//! Every check here is of strict UTF-8, the only encoding Arrow's string
//! types allow. Values in another member of the family (CESU-8 from
//! Oracle, modified UTF-8 from the JVM) convert to it with
//! `utf8guard::transcode`, a value at a time.
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod ascii;
mod batch;
mod error;
mod offsets;
mod views;

use arrow_array::cast::AsArray;
use arrow_array::Array;
use arrow_buffer::{BooleanBufferBuilder, NullBuffer};
use arrow_schema::DataType;

pub use batch::{holds_text, repair_batch, validate_batch, ColumnError};
pub use error::Error;
pub use offsets::{
    binary_to_string, binary_to_string_lossy, binary_to_string_or_null, binary_to_string_repaired,
    validate_binary, validate_string,
};
pub use utf8guard::{ErrorKind, Replacement, Utf8Error};
pub use views::{
    binary_view_to_string_view, binary_view_to_string_view_lossy,
    binary_view_to_string_view_or_null, binary_view_to_string_view_repaired, validate_binary_view,
    validate_string_view,
};

/// Checks that every row of a binary or string array is UTF-8: `Binary`,
/// `LargeBinary`, `BinaryView`, `Utf8`, `LargeUtf8` or `Utf8View`. The
/// first row that is not is the error; an array of another type is
/// [`Error::Unsupported`].
///
/// ```
/// use arrow_array::{ArrayRef, LargeBinaryArray};
/// use std::sync::Arc;
///
/// let column: ArrayRef = Arc::new(LargeBinaryArray::from(vec![&b"a"[..], b"\xE0\x80\x80"]));
/// let err = utf8guard_arrow::validate(&column).unwrap_err();
/// assert_eq!(err.row(), Some(1));
/// assert_eq!(err.kind(), Some(utf8guard::ErrorKind::Overlong));
/// ```
pub fn validate(array: &dyn Array) -> Result<(), Error> {
    match array.data_type() {
        DataType::Binary => validate_binary(array.as_binary::<i32>()),
        DataType::LargeBinary => validate_binary(array.as_binary::<i64>()),
        DataType::Utf8 => validate_string(array.as_string::<i32>()),
        DataType::LargeUtf8 => validate_string(array.as_string::<i64>()),
        DataType::BinaryView => validate_binary_view(array.as_binary_view()),
        DataType::Utf8View => validate_string_view(array.as_string_view()),
        other => Err(Error::Unsupported(other.clone())),
    }
}

/// Every row of a binary or string array (the types of [`validate`]) whose
/// value is not UTF-8, in row order, with the error inside the value.
/// Null rows are checked too: drop them with the array's null buffer if
/// they do not matter.
///
/// A column with a few bad rows is searched about as fast as a valid one
/// is validated: the values are scanned in bulk, and each bad row is then
/// checked alone.
///
/// ```
/// use arrow_array::BinaryViewArray;
///
/// let column = BinaryViewArray::from(vec![&b"\xFF"[..], b"good", b"b\xC3d"]);
/// let bad: Vec<(usize, usize)> = utf8guard_arrow::invalid_values(&column)
///     .unwrap()
///     .iter()
///     .map(|(row, e)| (*row, e.valid_up_to()))
///     .collect();
/// assert_eq!(bad, [(0, 0), (2, 1)]);
/// ```
pub fn invalid_values(array: &dyn Array) -> Result<Vec<(usize, Utf8Error)>, Error> {
    match array.data_type() {
        DataType::Binary => {
            let a = array.as_binary::<i32>();
            offsets::invalid_rows(a.offsets(), a.value_data())
        }
        DataType::LargeBinary => {
            let a = array.as_binary::<i64>();
            offsets::invalid_rows(a.offsets(), a.value_data())
        }
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            offsets::invalid_rows(a.offsets(), a.value_data())
        }
        DataType::LargeUtf8 => {
            let a = array.as_string::<i64>();
            offsets::invalid_rows(a.offsets(), a.value_data())
        }
        DataType::BinaryView => {
            let a = array.as_binary_view();
            views::invalid_view_rows(a.views(), a.data_buffers())
        }
        DataType::Utf8View => {
            let a = array.as_string_view();
            views::invalid_view_rows(a.views(), a.data_buffers())
        }
        other => Err(Error::Unsupported(other.clone())),
    }
}

/// `nulls` with the rows of `bad` made null too.
pub(crate) fn nulls_without(
    nulls: Option<&NullBuffer>,
    rows: usize,
    bad: &[(usize, Utf8Error)],
) -> Option<NullBuffer> {
    let mut valid = BooleanBufferBuilder::new(rows);
    valid.append_n(rows, true);
    for &(row, _) in bad {
        valid.set_bit(row, false);
    }
    NullBuffer::union(nulls, Some(&NullBuffer::new(valid.finish())))
}
