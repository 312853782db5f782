//! Every binary and string column of a record batch in one call: for the
//! batches of IPC, the C Data Interface or Parquet whose strings were never
//! checked.

use std::fmt;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{ArrowError, DataType};

use crate::offsets::{convert_rows, Fix};
use crate::views::convert_views;
use crate::{Error, Replacement};

/// A column of a batch whose values are not all UTF-8 (or whose layout
/// cannot be read): its index, its name, and the column's [`Error`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnError {
    column: usize,
    name: String,
    error: Error,
}

impl ColumnError {
    /// The column's index in the batch.
    pub fn column(&self) -> usize {
        self.column
    }

    /// The column's name in the batch's schema.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What is wrong in the column: the row, the offset in its value and
    /// the cause.
    pub fn error(&self) -> &Error {
        &self.error
    }
}

impl fmt::Display for ColumnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {} ({}): {}", self.column, self.name, self.error)
    }
}

impl std::error::Error for ColumnError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// As Arrow reports a value that is not UTF-8: an
/// [`ArrowError::InvalidArgumentError`] with this error's message.
impl From<ColumnError> for ArrowError {
    fn from(error: ColumnError) -> ArrowError {
        ArrowError::InvalidArgumentError(error.to_string())
    }
}

/// Whether `data_type` is one whose values are bytes that should be text,
/// or are: the binary and string types, the columns [`validate_batch`] and
/// [`repair_batch`] read.
///
/// ```
/// use arrow_schema::DataType;
/// use utf8guard_arrow::holds_text;
///
/// assert!(holds_text(&DataType::BinaryView));
/// assert!(!holds_text(&DataType::Int32));
/// ```
pub fn holds_text(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
            | DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
    )
}

/// Checks every binary and string column of `batch` ([`validate`](crate::validate)
/// on each, in column order): the first one that is not UTF-8 is the error.
/// Columns of other types, nested ones included, are not looked at.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, BinaryArray, Int32Array, RecordBatch, StringArray};
///
/// let batch = RecordBatch::try_from_iter([
///     ("id", Arc::new(Int32Array::from(vec![1, 2])) as ArrayRef),
///     ("name", Arc::new(StringArray::from(vec!["Ana", "Bo"])) as ArrayRef),
///     ("raw", Arc::new(BinaryArray::from(vec![&b"ok"[..], b"caf\xE9"])) as ArrayRef),
/// ])
/// .unwrap();
/// let err = utf8guard_arrow::validate_batch(&batch).unwrap_err();
/// assert_eq!((err.column(), err.name(), err.error().row()), (2, "raw", Some(1)));
/// ```
pub fn validate_batch(batch: &RecordBatch) -> Result<(), ColumnError> {
    let schema = batch.schema();
    for (column, (field, array)) in schema.fields().iter().zip(batch.columns()).enumerate() {
        if holds_text(array.data_type()) {
            crate::validate(array.as_ref()).map_err(|error| ColumnError {
                column,
                name: field.name().clone(),
                error,
            })?;
        }
    }
    Ok(())
}

/// `batch` with every value of its string columns (`Utf8`, `LargeUtf8`,
/// `Utf8View`) made UTF-8: the columns that are valid, as nearly all are,
/// shared as they are; the others rebuilt with each ill-formed sequence
/// replaced as `replacement` says. The schema is unchanged. Binary columns
/// are left as they are (their bytes need not be text): convert the ones
/// that hold text with [`binary_to_string_repaired`](crate::binary_to_string_repaired)
/// or [`binary_view_to_string_view_repaired`](crate::binary_view_to_string_view_repaired).
///
/// A string column whose layout cannot be read (offsets or views outside
/// its buffers) cannot be repaired: it is the error.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, RecordBatch, StringArray};
/// use utf8guard::Replacement;
///
/// let names: ArrayRef = Arc::new(StringArray::from(vec!["Ana", "Bo"]));
/// let batch = RecordBatch::try_from_iter([("name", Arc::clone(&names))]).unwrap();
/// let repaired = utf8guard_arrow::repair_batch(&batch, Replacement::Windows1252).unwrap();
/// // Valid: the same column, not a copy.
/// assert!(Arc::ptr_eq(repaired.column(0), &names));
/// ```
pub fn repair_batch(
    batch: &RecordBatch,
    replacement: Replacement,
) -> Result<RecordBatch, ColumnError> {
    let schema = batch.schema();
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (column, (field, array)) in schema.fields().iter().zip(batch.columns()).enumerate() {
        let repaired = repair_column(array, replacement).map_err(|error| ColumnError {
            column,
            name: field.name().clone(),
            error,
        })?;
        columns.push(repaired);
    }
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok(RecordBatch::try_new_with_options(schema, columns, &options)
        .expect("the same schema, columns of the same types and lengths"))
}

/// A string column made UTF-8 (itself when it is); any other column as it
/// is.
fn repair_column(array: &ArrayRef, replacement: Replacement) -> Result<ArrayRef, Error> {
    let string = matches!(
        array.data_type(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    );
    if !string {
        return Ok(Arc::clone(array));
    }
    match crate::validate(array.as_ref()) {
        Ok(()) => return Ok(Arc::clone(array)),
        Err(Error::Invalid { .. }) => {}
        Err(broken) => return Err(broken),
    }
    let fix = Fix::Repair(replacement);
    Ok(match array.data_type() {
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            Arc::new(convert_rows(a.offsets(), a.values(), a.nulls(), fix))
        }
        DataType::LargeUtf8 => {
            let a = array.as_string::<i64>();
            Arc::new(convert_rows(a.offsets(), a.values(), a.nulls(), fix))
        }
        _ => {
            let a = array.as_string_view();
            Arc::new(convert_views(a.views(), a.data_buffers(), a.nulls(), fix))
        }
    })
}
