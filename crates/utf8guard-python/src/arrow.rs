//! Arrow arrays through the Arrow PyCapsule interface: `validate_array` and
//! `binary_to_string`.
//!
//! An input is any object with `__arrow_c_array__` (a pyarrow `Array`, a
//! nanoarrow or arro3 array, ...) or `__arrow_c_stream__` (a pyarrow
//! `ChunkedArray`, a polars `Series`, ...). Its structs are moved out of
//! the capsules (the capsules keep released ones, as the protocol asks of
//! a consumer) and imported with arrow-rs's C Data Interface without a
//! copy. The result, an `ArrowArray`, exports itself again through
//! `__arrow_c_array__`, sharing the buffers it was built on.

use std::ffi::CStr;

use arrow_array::ffi::{from_ffi, to_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{Array, BinaryArray, BinaryViewArray, LargeBinaryArray};
use arrow_data::ArrayData;
use arrow_schema::{ArrowError, DataType, Field};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyList, PyTuple};
use utf8guard::Replacement;

use crate::names::{self, Handler, Policy};

pyo3::create_exception!(
    utf8guard,
    ArrowUtf8Error,
    pyo3::exceptions::PyValueError,
    "A row of an Arrow array that is not UTF-8: `row` (counted from the first row of the \
     input, across the chunks of a stream), `offset` (the byte inside the row's value where it \
     stops being UTF-8), `error_len` (None when the value ends inside a character), `kind`, \
     and for a record batch or table the column's name and index (`column`, `column_index`; \
     None for an array)."
);

pub(crate) const SCHEMA: &CStr = c"arrow_schema";
pub(crate) const ARRAY: &CStr = c"arrow_array";
pub(crate) const STREAM: &CStr = c"arrow_array_stream";

/// An Arrow array made by utf8guard, exported through the Arrow PyCapsule
/// interface: `pyarrow.array(result)` (or any consumer of
/// `__arrow_c_array__`) takes it without a copy.
#[pyclass(frozen, module = "utf8guard", name = "ArrowArray")]
#[derive(Debug)]
pub struct ArrowArray {
    pub(crate) data: ArrayData,
}

#[pymethods]
impl ArrowArray {
    /// The array as a pair of PyCapsules, `(schema, array)`, as the Arrow
    /// PyCapsule interface asks. `requested_schema` is ignored (the array
    /// has one type). Each call exports the array anew.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        let (array, schema) = to_ffi(&self.data).map_err(arrow_error)?;
        // Each capsule owns its struct: a consumer moves it out (leaving a
        // released one); one that does not leaves it to the struct's Drop,
        // which calls its release callback.
        let schema = PyCapsule::new_with_value(py, schema, SCHEMA)?;
        let array = PyCapsule::new_with_value(py, array, ARRAY)?;
        PyTuple::new(py, [schema.into_any(), array.into_any()])
    }

    /// The Arrow type, as arrow-rs writes it (`Utf8`, `LargeUtf8`,
    /// `Utf8View`).
    #[getter]
    fn r#type(&self) -> String {
        self.data.data_type().to_string()
    }

    /// The number of null rows.
    #[getter]
    fn null_count(&self) -> usize {
        self.data.null_count()
    }

    fn __len__(&self) -> usize {
        self.data.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "ArrowArray(type={}, len={}, null_count={})",
            self.data.data_type(),
            self.data.len(),
            self.data.null_count()
        )
    }
}

/// An `ArrowError` as a Python `ValueError`.
pub(crate) fn arrow_error(error: ArrowError) -> PyErr {
    PyValueError::new_err(format!("Arrow: {error}"))
}

/// The chunks of `obj` (one for an array, each of a stream's), as
/// binary-typed arrays whose layout was checked.
fn import(obj: &Bound<'_, PyAny>) -> PyResult<Vec<ArrayData>> {
    let py = obj.py();
    let chunks = if obj.hasattr("__arrow_c_array__")? {
        vec![import_array(obj)?.0]
    } else if obj.hasattr("__arrow_c_stream__")? {
        import_stream(obj)?.1
    } else {
        return Err(PyTypeError::new_err(format!(
            "expected an Arrow array (an object with __arrow_c_array__ or __arrow_c_stream__), \
             got {}",
            obj.get_type().name()?
        )));
    };
    // Outside the GIL: the checks read every offset (or view).
    py.detach(|| chunks.into_iter().map(as_binary).collect())
}

/// Imports the array of `obj.__arrow_c_array__()`, with its schema as a
/// field (its name, and for a record batch the schema's metadata).
pub(crate) fn import_array(obj: &Bound<'_, PyAny>) -> PyResult<(ArrayData, Field)> {
    let pair = obj.call_method0("__arrow_c_array__")?;
    let (schema, array): (Bound<'_, PyCapsule>, Bound<'_, PyCapsule>) = pair.extract()?;
    let schema_ptr = schema
        .pointer_checked(Some(SCHEMA))?
        .cast::<FFI_ArrowSchema>();
    let array_ptr = array.pointer_checked(Some(ARRAY))?.cast::<FFI_ArrowArray>();
    // SAFETY: the capsule named "arrow_schema" holds an `ArrowSchema`
    // struct (the protocol's contract, checked by the name), which the
    // capsule keeps alive while `schema` is held; it is only borrowed.
    let schema = unsafe { schema_ptr.as_ref() };
    if schema.release.is_none() {
        return Err(PyValueError::new_err(
            "the Arrow schema was already released",
        ));
    }
    let field = Field::try_from(schema).map_err(arrow_error)?;
    // SAFETY: the capsule named "arrow_array" holds an `ArrowArray` struct,
    // aligned, initialised, and alive while `array` is held. `from_raw`
    // moves it out and leaves a released struct (release = NULL) in its
    // place, as the protocol asks of a consumer: the capsule's destructor
    // then has nothing to release.
    let array = unsafe { FFI_ArrowArray::from_raw(array_ptr.as_ptr()) };
    if array.is_released() {
        return Err(PyValueError::new_err(
            "the Arrow array was already released (moved out by another consumer)",
        ));
    }
    // SAFETY: `array` and `schema` come from a producer of the C Data
    // Interface, which promises that the buffers match the schema's type.
    // Their layout is checked before anything reads them (`as_binary`).
    let data = unsafe { from_ffi(array, schema) }.map_err(arrow_error)?;
    Ok((data, field))
}

/// Imports every chunk of `obj.__arrow_c_stream__()`, and the stream's
/// schema as a field.
pub(crate) fn import_stream(obj: &Bound<'_, PyAny>) -> PyResult<(Field, Vec<ArrayData>)> {
    let capsule = obj.call_method0("__arrow_c_stream__")?;
    let capsule = capsule.cast_into::<PyCapsule>()?;
    let ptr = capsule
        .pointer_checked(Some(STREAM))?
        .cast::<FFI_ArrowArrayStream>();
    // SAFETY: the capsule named "arrow_array_stream" holds an
    // `ArrowArrayStream` struct, alive while `capsule` is held; `from_raw`
    // moves it out and leaves a released one, as for an array. Our copy
    // is released when it is dropped.
    let mut stream = unsafe { FFI_ArrowArrayStream::from_raw(ptr.as_ptr()) };
    let (Some(get_schema), Some(get_next)) = (stream.get_schema, stream.get_next) else {
        return Err(PyValueError::new_err(
            "the Arrow stream was already released",
        ));
    };
    let mut schema = FFI_ArrowSchema::empty();
    // SAFETY: the stream is live (not released), and `schema` is a
    // released struct for the callback to fill, as the C Stream Interface
    // specifies.
    let status = unsafe { get_schema(&mut stream, &mut schema) };
    if status != 0 {
        return Err(stream_error(&mut stream, status));
    }
    let field = Field::try_from(&schema).map_err(arrow_error)?;
    let mut chunks = Vec::new();
    loop {
        let mut array = FFI_ArrowArray::empty();
        // SAFETY: as for `get_schema`: a live stream, a released struct
        // to fill. The stream is read on one thread, under the GIL.
        let status = unsafe { get_next(&mut stream, &mut array) };
        if status != 0 {
            return Err(stream_error(&mut stream, status));
        }
        if array.is_released() {
            break; // the end of the stream
        }
        // SAFETY: a chunk of the stream is of the stream's schema (the C
        // Stream Interface's contract); its layout is checked before
        // anything reads it (`as_binary`).
        chunks.push(unsafe { from_ffi(array, &schema) }.map_err(arrow_error)?);
    }
    Ok((field, chunks))
}

/// The error of a stream's callback that returned `status`.
fn stream_error(stream: &mut FFI_ArrowArrayStream, status: i32) -> PyErr {
    let message = match stream.get_last_error {
        // SAFETY: the stream is live; the callback returns NULL or a
        // NUL-terminated string valid until the next call on the stream,
        // which is copied at once.
        Some(last_error) => unsafe {
            let text = last_error(stream);
            if text.is_null() {
                None
            } else {
                Some(CStr::from_ptr(text).to_string_lossy().into_owned())
            }
        },
        None => None,
    };
    PyValueError::new_err(format!(
        "the Arrow stream failed (errno {status}): {}",
        message.as_deref().unwrap_or("no message")
    ))
}

/// `data` as the binary type of the same layout (`Utf8` as `Binary`,
/// `LargeUtf8` as `LargeBinary`, `Utf8View` as `BinaryView`), its offsets
/// or views checked against its buffers.
pub(crate) fn as_binary(data: ArrayData) -> PyResult<ArrayData> {
    let binary = match data.data_type() {
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => return checked(data),
        DataType::Utf8 => DataType::Binary,
        DataType::LargeUtf8 => DataType::LargeBinary,
        DataType::Utf8View => DataType::BinaryView,
        other => {
            return Err(PyTypeError::new_err(format!(
                "{other} is not a binary or string type (Binary, LargeBinary, BinaryView, \
                 Utf8, LargeUtf8, Utf8View)"
            )))
        }
    };
    // SAFETY: each string type has exactly the layout of its binary type
    // (the same buffers, the same offsets or views); it only adds that the
    // values are UTF-8, which a binary type does not require. The buffers
    // are checked against the binary type (`checked`) before anything
    // reads the values.
    let data = unsafe { data.into_builder().data_type(binary).build_unchecked() };
    checked(data)
}

/// `data` (of a binary type) with its layout checked: buffer lengths, and
/// every offset (or view) inside the values; what arrow-rs's safe
/// constructors check, and what imported arrays may not have been checked
/// for. The values themselves (bytes) need no check for a binary type.
fn checked(data: ArrayData) -> PyResult<ArrayData> {
    if data.is_empty() {
        // An empty slice is exported with its offset and without the
        // values it does not cover, which arrow-rs's import measures as 0
        // bytes and then finds the first offset past: nothing to read.
        return Ok(ArrayData::new_empty(data.data_type()));
    }
    data.validate_data().map_err(arrow_error)?;
    Ok(data)
}

/// An error of `utf8guard_arrow`, its row counted from the input's first
/// row (`first_row`: the rows of the stream's chunks before this one).
pub(crate) fn row_error(py: Python<'_>, error: utf8guard_arrow::Error, first_row: usize) -> PyErr {
    column_error(py, error, first_row, None)
}

/// As `row_error`, for the column `(index, name)` of a record batch: the
/// message and the exception's `column` and `column_index` name it.
pub(crate) fn column_error(
    py: Python<'_>,
    error: utf8guard_arrow::Error,
    first_row: usize,
    column: Option<(usize, &str)>,
) -> PyErr {
    match error {
        utf8guard_arrow::Error::Invalid { row, error } => {
            let row = first_row + row;
            let prefix = match column {
                Some((index, name)) => format!("column {index} ({name:?}), "),
                None => String::new(),
            };
            let message = format!(
                "{prefix}row {row}: invalid UTF-8 at byte {} of the value ({})",
                error.valid_up_to(),
                error.kind()
            );
            let err = ArrowUtf8Error::new_err(message);
            let value = err.value(py);
            let set = || -> PyResult<()> {
                value.setattr("column", column.map(|(_, name)| name))?;
                value.setattr("column_index", column.map(|(index, _)| index))?;
                value.setattr("row", row)?;
                value.setattr("offset", error.valid_up_to())?;
                value.setattr("error_len", error.error_len())?;
                value.setattr("kind", error.kind().name())?;
                Ok(())
            };
            match set() {
                Ok(()) => err,
                Err(e) => e,
            }
        }
        utf8guard_arrow::Error::Unsupported(data_type) => {
            PyTypeError::new_err(format!("{data_type} is not a binary or string type"))
        }
        other => match column {
            Some((index, name)) => {
                PyValueError::new_err(format!("column {index} ({name:?}): {other}"))
            }
            None => PyValueError::new_err(other.to_string()),
        },
    }
}

/// What `binary_to_string` does with a value that is not UTF-8.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fix {
    /// Raise `ArrowUtf8Error`.
    Strict,
    /// Make it null.
    Null,
    /// Repair it.
    Repair(Replacement),
}

/// The `errors` that `binary_to_string` takes.
pub(crate) fn fix(errors: &str) -> PyResult<Fix> {
    if errors == "null" {
        return Ok(Fix::Null);
    }
    match names::decode_handler(errors)? {
        Handler::Strict => Ok(Fix::Strict),
        Handler::Repair(Policy::Text(replacement)) => Ok(Fix::Repair(replacement)),
        Handler::Repair(Policy::Escape) => Err(PyValueError::new_err(
            "surrogateescape writes lone surrogates, which an Arrow string cannot hold",
        )),
    }
}

/// One chunk converted: the string type of its binary type.
pub(crate) fn convert(data: &ArrayData, fix: Fix) -> Result<ArrayData, utf8guard_arrow::Error> {
    use utf8guard_arrow as ua;
    Ok(match data.data_type() {
        DataType::Binary => {
            let array = BinaryArray::from(data.clone());
            match fix {
                Fix::Strict => ua::binary_to_string(&array)?.into_data(),
                Fix::Null => ua::binary_to_string_or_null(&array).into_data(),
                Fix::Repair(r) => ua::binary_to_string_repaired(&array, r).into_data(),
            }
        }
        DataType::LargeBinary => {
            let array = LargeBinaryArray::from(data.clone());
            match fix {
                Fix::Strict => ua::binary_to_string(&array)?.into_data(),
                Fix::Null => ua::binary_to_string_or_null(&array).into_data(),
                Fix::Repair(r) => ua::binary_to_string_repaired(&array, r).into_data(),
            }
        }
        DataType::BinaryView => {
            let array = BinaryViewArray::from(data.clone());
            match fix {
                Fix::Strict => ua::binary_view_to_string_view(&array)?.into_data(),
                Fix::Null => ua::binary_view_to_string_view_or_null(&array).into_data(),
                Fix::Repair(r) => ua::binary_view_to_string_view_repaired(&array, r).into_data(),
            }
        }
        other => return Err(ua::Error::Unsupported(other.clone())),
    })
}

/// Checks that every value of an Arrow binary or string array is UTF-8;
/// returns `None`, or raises `ArrowUtf8Error` naming the first row that is
/// not (its `row`, the byte `offset` inside the value, `error_len`,
/// `kind`).
///
/// `array` is any object with `__arrow_c_array__` or `__arrow_c_stream__`
/// (a pyarrow `Array` or `ChunkedArray`, ...) of type `binary`,
/// `large_binary`, `binary_view`, `string`, `large_string` or
/// `string_view` (string arrays from untrusted sources are re-validated).
/// Rows count from the input's first row, across a stream's chunks.
/// Every row is checked, null or not (as Arrow's own full validation
/// does: the bytes under a null slot are part of the values all the same). The buffers are read in place, with the GIL
/// released.
#[pyfunction]
#[pyo3(signature = (array, /))]
pub fn validate_array(py: Python<'_>, array: &Bound<'_, PyAny>) -> PyResult<()> {
    let chunks = import(array)?;
    let result = py.detach(|| {
        let mut first_row = 0;
        for data in &chunks {
            let array = arrow_array::make_array(data.clone());
            if let Err(e) = utf8guard_arrow::validate(array.as_ref()) {
                return Err((e, first_row));
            }
            first_row += data.len();
        }
        Ok(())
    });
    result.map_err(|(e, first_row)| row_error(py, e, first_row))
}

/// Converts an Arrow binary array to a string array: `binary` to `string`,
/// `large_binary` to `large_string`, `binary_view` to `string_view` (and a
/// string array to itself, re-validated).
///
/// Valid values are not copied: the result shares the input's buffers.
/// `errors` says what becomes of a value that is not UTF-8: `"strict"`
/// raises `ArrowUtf8Error` naming the row and the byte offset; `"null"`
/// makes it null (as Arrow's safe cast); any other name that `decode`
/// takes (`"replace"`, `"jvm"`, `"windows-1252"`, ...) repairs it as
/// `repair` would. Returns an `ArrowArray` (for an input with
/// `__arrow_c_array__`) or a list of them, one per chunk (for a stream);
/// the package's `binary_to_string` turns them into pyarrow arrays for
/// pyarrow inputs.
#[pyfunction]
#[pyo3(signature = (array, /, errors = "strict"))]
pub fn binary_to_string<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyAny>,
    errors: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let fix = fix(errors)?;
    let is_array = array.hasattr("__arrow_c_array__")?;
    let chunks = import(array)?;
    let converted = py.detach(|| {
        let mut first_row = 0;
        let mut out = Vec::with_capacity(chunks.len());
        for data in &chunks {
            out.push(convert(data, fix).map_err(|e| (e, first_row))?);
            first_row += data.len();
        }
        Ok(out)
    });
    let converted = converted.map_err(|(e, first_row)| row_error(py, e, first_row))?;
    let mut arrays = converted
        .into_iter()
        .map(|data| Bound::new(py, ArrowArray { data }).map(Bound::into_any));
    if is_array {
        return arrays.next().expect("an array is one chunk");
    }
    let arrays: Vec<Bound<'py, PyAny>> = arrays.collect::<PyResult<_>>()?;
    Ok(PyList::new(py, arrays)?.into_any())
}
