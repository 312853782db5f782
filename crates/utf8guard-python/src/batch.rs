//! Record batches and tables through the Arrow PyCapsule interface:
//! `validate_batch` and `batch_binary_to_string`.
//!
//! A record batch comes as a struct-typed array (`__arrow_c_array__`: a
//! pyarrow `RecordBatch`, ...), a table or reader as a stream of them
//! (`__arrow_c_stream__`: a pyarrow `Table` or `RecordBatchReader`, a
//! polars `DataFrame`, ...). Each batch's columns are imported without a
//! copy; only the ones that are, or hold, binary or string values are
//! read. A converted batch is
//! exported again as an `ArrowBatch` (`__arrow_c_array__`), a stream as an
//! `ArrowStream` (`__arrow_c_stream__`), sharing the input's buffers.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{
    make_array, Array, ArrayRef, RecordBatch, RecordBatchIterator, RecordBatchOptions, StructArray,
};
use arrow_data::ArrayData;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

use crate::arrow::{self, Failure, Fix};
use crate::layout::{self, Sizes};
use crate::values;

/// A record batch made by utf8guard, exported through the Arrow PyCapsule
/// interface as a struct array: `pyarrow.record_batch(result)` takes it
/// without a copy.
#[pyclass(frozen, module = "utf8guard", name = "ArrowBatch")]
#[derive(Debug)]
pub struct ArrowBatch {
    batch: RecordBatch,
}

impl ArrowBatch {
    /// The columns.
    pub(crate) fn arrays(&self) -> Vec<ArrayData> {
        self.batch.columns().iter().map(|c| c.to_data()).collect()
    }
}

#[pymethods]
impl ArrowBatch {
    /// The batch as a pair of PyCapsules, `(schema, array)`: a struct
    /// array of the columns, its schema with the batch's metadata.
    /// `requested_schema` is ignored. Each call exports the batch anew.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        let schema =
            FFI_ArrowSchema::try_from(self.batch.schema().as_ref()).map_err(arrow::arrow_error)?;
        let array = FFI_ArrowArray::new(&StructArray::from(self.batch.clone()).into_data());
        // As `ArrowArray`'s: each capsule owns its struct, released by the
        // consumer that moves it out or by the struct's Drop.
        let schema = PyCapsule::new_with_value(py, schema, arrow::SCHEMA)?;
        let array = PyCapsule::new_with_value(py, array, arrow::ARRAY)?;
        PyTuple::new(py, [schema.into_any(), array.into_any()])
    }

    /// The number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }

    /// The columns' names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        column_names(self.batch.schema_ref())
    }

    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }

    fn __repr__(&self) -> String {
        format!(
            "ArrowBatch(num_rows={}, schema={})",
            self.batch.num_rows(),
            describe(self.batch.schema_ref())
        )
    }
}

/// Record batches made by utf8guard, exported through the Arrow PyCapsule
/// interface as a stream: `pyarrow.table(result)`,
/// `pyarrow.RecordBatchReader.from_stream(result)` (or any consumer of
/// `__arrow_c_stream__`) take them without a copy.
#[pyclass(frozen, module = "utf8guard", name = "ArrowStream")]
#[derive(Debug)]
pub struct ArrowStream {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

impl ArrowStream {
    /// The columns of every batch.
    pub(crate) fn arrays(&self) -> Vec<ArrayData> {
        let columns = self.batches.iter().flat_map(|b| b.columns());
        columns.map(|c| c.to_data()).collect()
    }
}

#[pymethods]
impl ArrowStream {
    /// The batches as an `arrow_array_stream` PyCapsule.
    /// `requested_schema` is ignored. Each call exports the batches anew,
    /// so the stream can be read more than once.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = RecordBatchIterator::new(
            self.batches.clone().into_iter().map(Ok),
            Arc::clone(&self.schema),
        );
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        // The capsule owns the stream: a consumer moves it out (leaving a
        // released one), else its Drop releases it.
        PyCapsule::new_with_value(py, stream, arrow::STREAM)
    }

    /// The number of rows, over all the batches.
    #[getter]
    fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// The number of batches.
    #[getter]
    fn num_batches(&self) -> usize {
        self.batches.len()
    }

    /// The columns' names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        column_names(&self.schema)
    }

    fn __repr__(&self) -> String {
        format!(
            "ArrowStream(num_rows={}, num_batches={}, schema={})",
            self.num_rows(),
            self.batches.len(),
            describe(&self.schema)
        )
    }
}

fn column_names(schema: &Schema) -> Vec<String> {
    schema.fields().iter().map(|f| f.name().clone()).collect()
}

/// `name: Type, ...`, for the reprs.
fn describe(schema: &Schema) -> String {
    let fields: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| format!("{}: {}", f.name(), f.data_type()))
        .collect();
    format!("[{}]", fields.join(", "))
}

/// One record batch imported: the batch, and its columns as imported
/// (not sliced: the batch's rows are `offset..offset + num_rows` of each).
struct Imported {
    batch: RecordBatch,
    columns: Vec<ArrayData>,
    offset: usize,
}

/// The record batches of `obj`, with their schema, and whether `obj` was
/// one batch (`__arrow_c_array__`) rather than a stream. The layout of
/// each column whose type `reads` takes is checked against `sizes`.
fn import(
    obj: &Bound<'_, PyAny>,
    sizes: &Sizes,
    reads: fn(&DataType) -> bool,
) -> PyResult<(SchemaRef, Vec<Imported>, bool)> {
    let (field, chunks, one) = if obj.hasattr("__arrow_c_array__")? {
        let (data, field) = arrow::import_array(obj)?;
        (field, vec![data], true)
    } else if obj.hasattr("__arrow_c_stream__")? {
        let (field, chunks) = arrow::import_stream(obj)?;
        (field, chunks, false)
    } else {
        return Err(PyTypeError::new_err(format!(
            "expected an Arrow record batch or table (an object with __arrow_c_array__ or \
             __arrow_c_stream__), got {}",
            obj.get_type().name()?
        )));
    };
    let DataType::Struct(fields) = field.data_type() else {
        return Err(PyTypeError::new_err(format!(
            "expected a record batch (a struct-typed Arrow array) or a stream of them, got {}",
            field.data_type()
        )));
    };
    let schema = Arc::new(Schema::new(fields.clone()).with_metadata(field.metadata().clone()));
    let batches = obj.py().detach(|| {
        chunks
            .into_iter()
            .map(|data| batch(&schema, data, sizes, reads))
            .collect::<PyResult<Vec<_>>>()
    })?;
    Ok((schema, batches, one))
}

/// One imported struct array as a record batch of `schema`, its layout
/// checked: every column's buffers against its type, and, for a column
/// whose type `reads` takes, every offset (or view, or key) inside its
/// buffers, at every depth; the values themselves are left to the
/// functions.
fn batch(
    schema: &SchemaRef,
    data: ArrayData,
    sizes: &Sizes,
    reads: fn(&DataType) -> bool,
) -> PyResult<Imported> {
    if data.null_count() != 0 {
        return Err(PyValueError::new_err(
            "a struct array with null rows is not a record batch",
        ));
    }
    let (offset, len) = (data.offset(), data.len());
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(data.child_data().len());
    for (index, (field, child)) in schema.fields().iter().zip(data.child_data()).enumerate() {
        // The struct's own offset and length apply to its children: each
        // must cover them, or slicing it would panic.
        if child.len() < offset + len {
            return Err(PyValueError::new_err(format!(
                "column {:?} has {} rows, fewer than the batch's {}",
                field.name(),
                child.len(),
                offset + len
            )));
        }
        let place = format!("column {index} ({:?})", field.name());
        child
            .validate()
            .map_err(|e| PyValueError::new_err(format!("{place}: {e}")))?;
        if len > 0 && reads(child.data_type()) {
            layout::check(child, sizes, &place).map_err(PyValueError::new_err)?;
        }
        // Sliced as a typed array: a struct column's own children are
        // sliced with it (arrow-rs's `ArrayData::slice` of a struct would
        // slice them twice once made an array).
        columns.push(make_array(child.clone()).slice(offset, len));
    }
    let options = RecordBatchOptions::new().with_row_count(Some(len));
    let batch = RecordBatch::try_new_with_options(Arc::clone(schema), columns, &options)
        .map_err(arrow::arrow_error)?;
    Ok(Imported {
        batch,
        columns: data.child_data().to_vec(),
        offset,
    })
}

/// The first column of `imported` with a value that is not UTF-8, as
/// `(index, failure)`.
fn first_error(imported: &Imported) -> Option<(usize, Failure)> {
    let len = imported.batch.num_rows();
    imported
        .columns
        .iter()
        .enumerate()
        .filter(|(_, column)| values::holds_text(column.data_type()))
        .find_map(|(index, column)| {
            arrow::first_bad_in(column, imported.offset, len)
                .err()
                .map(|failure| (index, failure))
        })
}

/// Checks that every value of every binary and string column of an Arrow
/// record batch or table is UTF-8, and of every column holding them (a
/// dictionary, list, map or struct of them, at any depth); returns `None`,
/// or raises `ArrowUtf8Error` naming the first column that is not (in
/// column order, batch by batch): its `column` name and `column_index`,
/// the `row` (counted from the first row of the input, across a stream's
/// batches), the `path` from the row's value to the bad one (a struct
/// field's name, a list element's index), `dictionary_index` for a
/// dictionary's value, the byte `offset` inside the value, `error_len` and
/// `kind`.
///
/// `batch` is any object with `__arrow_c_array__` of a struct type (a
/// pyarrow `RecordBatch`, ...) or `__arrow_c_stream__` (a pyarrow `Table`
/// or `RecordBatchReader`, a polars `DataFrame`, ...). Columns that hold
/// no binary or string values are not read. As in `validate_array`, a
/// null slot's bytes are not read, and `buffer_sizes` and `trust_offsets`
/// say what is known of the buffers' sizes. The buffers are read in place,
/// with the GIL released.
///
/// A stream is read to its end: a pyarrow `RecordBatchReader` has no rows
/// left after the call, and passing it again raises `ValueError` (the
/// package's `_arrow_input` remembers the readers it read); pass a `Table`
/// to check the same rows more than once. A pandas `DataFrame` is read
/// through `pyarrow.Table.from_pandas` (rows counted by position).
#[pyfunction]
#[pyo3(signature = (batch, /, *, buffer_sizes = None, trust_offsets = false))]
pub fn validate_batch(
    py: Python<'_>,
    batch: &Bound<'_, PyAny>,
    buffer_sizes: Option<HashMap<usize, usize>>,
    trust_offsets: bool,
) -> PyResult<()> {
    let (input, sizes) = arrow::input(batch, buffer_sizes, trust_offsets)?;
    let (schema, batches, _) = import(&input, &sizes, values::holds_text)?;
    let result = py.detach(|| {
        let mut first_row = 0;
        for imported in &batches {
            if let Some((index, failure)) = first_error(imported) {
                return Err((index, failure, first_row));
            }
            first_row += imported.batch.num_rows();
        }
        Ok(())
    });
    result.map_err(|(index, failure, first_row)| {
        let name = schema.field(index).name();
        arrow::failure_error(py, failure, first_row, Some((index, name)))
    })
}

/// Converts every binary column of an Arrow record batch or table to a
/// string column, as `binary_to_string` converts an array: `binary` to
/// `string`, `large_binary` to `large_string`, `binary_view` to
/// `string_view`, a dictionary of binary values to a dictionary of
/// strings. String columns and columns of other types are kept as they are
/// (not copied, not read); so are the field names, their nullability and
/// metadata, and the schema's metadata.
///
/// Valid columns are not copied: the result shares the input's buffers.
/// `errors` is as in `binary_to_string`: `"strict"` raises
/// `ArrowUtf8Error` naming the column (`column`, `column_index`), the
/// `row` (counted across a stream's batches) and the byte `offset`;
/// `"null"` makes a value that is not UTF-8 null; a policy name
/// (`"replace"`, `"jvm"`, `"windows-1252"`, ...) repairs it. A null
/// slot's bytes are not read; `buffer_sizes` and `trust_offsets` are as
/// in `validate_array`.
///
/// `batch` is any object with `__arrow_c_array__` of a struct type (a
/// pyarrow `RecordBatch`, ...), which gives an `ArrowBatch`
/// (`__arrow_c_array__`), or with `__arrow_c_stream__` (a pyarrow `Table`
/// or `RecordBatchReader`, a polars `DataFrame`, ...), which gives an
/// `ArrowStream` (`__arrow_c_stream__`); the package's
/// `batch_binary_to_string` turns them into pyarrow objects for pyarrow
/// inputs.
#[pyfunction]
#[pyo3(signature = (batch, /, errors = "strict", *, buffer_sizes = None, trust_offsets = false))]
pub fn batch_binary_to_string<'py>(
    py: Python<'py>,
    batch: &Bound<'py, PyAny>,
    errors: &str,
    buffer_sizes: Option<HashMap<usize, usize>>,
    trust_offsets: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let fix = arrow::fix(errors)?;
    let (input, sizes) = arrow::input(batch, buffer_sizes, trust_offsets)?;
    let (schema, batches, one) = import(&input, &sizes, |t| string_type(t).is_some())?;
    let converted = py.detach(|| {
        let out_schema = string_schema(&schema, fix);
        let mut first_row = 0;
        let mut out = Vec::with_capacity(batches.len());
        for imported in &batches {
            let converted = convert(&imported.batch, &out_schema, fix)
                .map_err(|(index, failure)| (index, failure, first_row))?;
            out.push(converted);
            first_row += imported.batch.num_rows();
        }
        Ok((out_schema, out))
    });
    let (out_schema, mut batches) = converted.map_err(|(index, failure, first_row)| {
        let name = schema.field(index).name();
        arrow::failure_error(py, failure, first_row, Some((index, name)))
    })?;
    if one {
        let batch = batches.pop().expect("a record batch is one batch");
        return Ok(Bound::new(py, ArrowBatch { batch })?.into_any());
    }
    Ok(Bound::new(
        py,
        ArrowStream {
            schema: out_schema,
            batches,
        },
    )?
    .into_any())
}

/// The string type of a binary type, or of a dictionary of one; `None`
/// for any other type.
fn string_type(data_type: &DataType) -> Option<DataType> {
    match data_type {
        DataType::Binary => Some(DataType::Utf8),
        DataType::LargeBinary => Some(DataType::LargeUtf8),
        DataType::BinaryView => Some(DataType::Utf8View),
        DataType::Dictionary(key, values) => {
            let values = string_type(values)?;
            Some(DataType::Dictionary(key.clone(), Box::new(values)))
        }
        _ => None,
    }
}

/// `schema` with its binary fields made string fields (names, nullability
/// and metadata kept; but with `errors="null"` a converted field is made
/// nullable, since bad values become null).
fn string_schema(schema: &Schema, fix: Fix) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| match string_type(f.data_type()) {
            Some(t) => {
                let nullable = f.is_nullable() || matches!(fix, Fix::Null);
                f.as_ref().clone().with_data_type(t).with_nullable(nullable)
            }
            None => f.as_ref().clone(),
        })
        .collect();
    Arc::new(Schema::new(fields).with_metadata(schema.metadata().clone()))
}

/// `batch` with its binary columns converted (of `schema`, from
/// `string_schema`); the error is the first column's that failed, by its
/// index.
fn convert(
    batch: &RecordBatch,
    schema: &SchemaRef,
    fix: Fix,
) -> Result<RecordBatch, (usize, Failure)> {
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (index, column) in batch.columns().iter().enumerate() {
        if string_type(column.data_type()).is_none() {
            columns.push(Arc::clone(column));
            continue;
        }
        let data = arrow::convert(&column.to_data(), fix).map_err(|e| (index, e))?;
        columns.push(make_array(data));
    }
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    Ok(
        RecordBatch::try_new_with_options(Arc::clone(schema), columns, &options)
            .expect("the columns of the schema's types, of the batch's length"),
    )
}
