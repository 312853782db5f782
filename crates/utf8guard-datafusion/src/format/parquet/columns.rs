//! The batches Arrow's reader gives (string columns as bytes) turned into
//! batches of the table's types: bytes repaired or checked into strings,
//! other columns cast as DataFusion's schema adapter casts them.

use std::sync::Arc;

use datafusion::arrow::array::RecordBatchOptions;
use datafusion::arrow::array::{new_null_array, Array, ArrayRef, AsArray, RecordBatch};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, SchemaRef};
use datafusion::parquet::file::metadata::RowGroupMetaData;
use datafusion_common::{exec_datafusion_err, DataFusionError, Result};
use utf8guard_arrow::Error;

use crate::policy::StringHandling;

/// Where the rows a reader gives come from: the row groups it reads, in
/// order, so that a row of its output can be named by row group and row.
pub(crate) struct RowGroupSpans {
    /// Each group read: its index, its first row in the file, its rows.
    spans: Vec<(usize, usize, usize)>,
    /// The rows of the reader's output so far.
    read: usize,
}

impl RowGroupSpans {
    /// The spans of `groups` (indices into `all`, in reading order).
    pub(crate) fn new(all: &[RowGroupMetaData], groups: &[usize]) -> RowGroupSpans {
        let mut first = Vec::with_capacity(all.len());
        let mut rows = 0;
        for group in all {
            first.push(rows);
            rows += usize::try_from(group.num_rows()).unwrap_or(0);
        }
        let spans = groups
            .iter()
            .map(|&g| {
                let rows = usize::try_from(all[g].num_rows()).unwrap_or(0);
                (g, first[g], rows)
            })
            .collect();
        RowGroupSpans { spans, read: 0 }
    }

    /// The row group, the row in the file and the row in the group of row
    /// `row` of the batch being read.
    fn locate(&self, row: usize) -> Option<(usize, usize, usize)> {
        let mut at = self.read + row;
        for &(group, first, rows) in &self.spans {
            if at < rows {
                return Some((group, first + at, at));
            }
            at -= rows;
        }
        None
    }
}

/// Makes a reader's batches into the table's.
pub(crate) struct TableColumns {
    /// The columns the scan reads, with the table's types.
    pub(crate) schema: SchemaRef,
    pub(crate) strings: StringHandling,
    /// Named in errors.
    pub(crate) file: String,
}

impl TableColumns {
    /// `batch`, read from the file, with the columns of `self.schema` (a
    /// column the file lacks is all nulls); `spans` places its rows.
    pub(crate) fn convert(
        &self,
        batch: &RecordBatch,
        spans: &mut RowGroupSpans,
    ) -> Result<RecordBatch> {
        let rows = batch.num_rows();
        let columns = self
            .schema
            .fields()
            .iter()
            .map(|field| match batch.column_by_name(field.name()) {
                Some(column) => self.column(column, field, spans),
                None => Ok(new_null_array(field.data_type(), rows)),
            })
            .collect::<Result<Vec<_>>>()?;
        spans.read += rows;
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        Ok(RecordBatch::try_new_with_options(
            Arc::clone(&self.schema),
            columns,
            &options,
        )?)
    }

    /// One column with the type of `field`: bytes that the table reads as
    /// strings repaired or checked, anything else cast.
    fn column(&self, column: &ArrayRef, field: &Field, spans: &RowGroupSpans) -> Result<ArrayRef> {
        let bytes = matches!(
            column.data_type(),
            DataType::Binary | DataType::LargeBinary | DataType::BinaryView
        );
        let column = if bytes && holds_strings(field.data_type()) {
            match self.strings {
                StringHandling::Repair(replacement) => {
                    crate::functions::repair(column, replacement)?
                }
                StringHandling::Validate => {
                    checked(column).map_err(|error| self.invalid(error, field, spans))?
                }
            }
        } else {
            Arc::clone(column)
        };
        if column.data_type() == field.data_type() {
            return Ok(column);
        }
        Ok(cast(&column, field.data_type())?)
    }

    /// The error for a value of `field` that is not UTF-8, saying where.
    fn invalid(&self, error: Error, field: &Field, spans: &RowGroupSpans) -> DataFusionError {
        let Error::Invalid { row, error } = error else {
            return exec_datafusion_err!(
                "Parquet file {}, column {}: {error}",
                self.file,
                field.name()
            );
        };
        let Some((group, in_file, in_group)) = spans.locate(row) else {
            return exec_datafusion_err!(
                "Parquet file {}: more rows than its row groups hold",
                self.file
            );
        };
        exec_datafusion_err!(
            "Parquet file {}, row group {group}, row {in_file} (row {in_group} of the row group), \
             column {}: invalid UTF-8 at byte {} of the value ({})",
            self.file,
            field.name(),
            error.valid_up_to(),
            error.kind()
        )
    }
}

/// Whether a column of `data_type` holds strings (a dictionary's values
/// included): bytes read for it are text.
pub(crate) fn holds_strings(data_type: &DataType) -> bool {
    match data_type {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
        DataType::Dictionary(_, values) => holds_strings(values),
        _ => false,
    }
}

/// Bytes as strings of the same width, or the first value that is not
/// UTF-8.
fn checked(column: &ArrayRef) -> Result<ArrayRef, Error> {
    Ok(match column.data_type() {
        DataType::Binary => Arc::new(utf8guard_arrow::binary_to_string(
            column.as_binary::<i32>(),
        )?),
        DataType::LargeBinary => Arc::new(utf8guard_arrow::binary_to_string(
            column.as_binary::<i64>(),
        )?),
        _ => Arc::new(utf8guard_arrow::binary_view_to_string_view(
            column.as_binary_view(),
        )?),
    })
}
