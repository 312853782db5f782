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

use std::collections::HashMap;
use std::ffi::CStr;

use arrow_array::ffi::{from_ffi, to_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{Array, BinaryArray, BinaryViewArray, LargeBinaryArray};
use arrow_buffer::{BooleanBufferBuilder, NullBuffer};
use arrow_data::ArrayData;
use arrow_schema::{ArrowError, DataType, Field};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyList, PyString, PyTuple};
use utf8guard::Replacement;

use crate::layout::{self, Sizes};
use crate::names::{self, Policy};
use crate::values::{self, First, Location, Step};

pyo3::create_exception!(
    utf8guard,
    ArrowUtf8Error,
    pyo3::exceptions::PyValueError,
    "A value of an Arrow array that is not UTF-8: `row` (counted from the first row of the \
     input, across the chunks of a stream; None for a dictionary entry that no row uses), \
     `path` (the steps from the row's value to the bad one: a struct field's name, a list \
     element's index), `dictionary_index` (the entry, for a dictionary's value), `offset` (the \
     byte inside the value where it stops being UTF-8), `error_len` (None when the value ends \
     inside a character), `kind`, and for a record batch or table the column's name and index \
     (`column`, `column_index`; None for an array)."
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

/// The input to read and what is known of its buffers' sizes: from
/// `buffer_sizes` when the caller gives them, else those of a result of
/// this module (an `ArrowArray`, `ArrowBatch` or `ArrowStream`), else from
/// the package's `_arrow_input`, which gives a pyarrow object's (and reads
/// a pyarrow `RecordBatchReader` into a table, whose buffers it can then
/// measure).
pub(crate) fn input<'py>(
    obj: &Bound<'py, PyAny>,
    buffer_sizes: Option<HashMap<usize, usize>>,
    trust_offsets: bool,
) -> PyResult<(Bound<'py, PyAny>, Sizes)> {
    if let Some(known) = buffer_sizes {
        return Ok((obj.clone(), Sizes::new(known, trust_offsets)));
    }
    // The results of the functions here: their buffers are arrow-rs's,
    // whose lengths are known.
    let ours = if let Ok(array) = obj.cast::<ArrowArray>() {
        Some(vec![array.get().data.clone()])
    } else if let Ok(batch) = obj.cast::<crate::batch::ArrowBatch>() {
        Some(batch.get().arrays())
    } else if let Ok(stream) = obj.cast::<crate::batch::ArrowStream>() {
        Some(stream.get().arrays())
    } else {
        None
    };
    if let Some(arrays) = ours {
        let mut known = HashMap::new();
        for data in &arrays {
            buffer_sizes_of(data, &mut known);
        }
        return Ok((obj.clone(), Sizes::new(known, trust_offsets)));
    }
    let helper = obj.py().import("utf8guard")?.getattr("_arrow_input")?;
    let (input, known): (Bound<'py, PyAny>, Option<HashMap<usize, usize>>) =
        helper.call1((obj,))?.extract()?;
    Ok((input, Sizes::new(known.unwrap_or_default(), trust_offsets)))
}

/// Adds the length of every buffer of `data` (its children's, its
/// dictionary's) to `sizes`, by address.
fn buffer_sizes_of(data: &ArrayData, sizes: &mut HashMap<usize, usize>) {
    let nulls = data.nulls().map(|n| n.buffer());
    for buffer in data.buffers().iter().chain(nulls) {
        let size = sizes.entry(buffer.as_ptr() as usize).or_insert(0);
        *size = (*size).max(buffer.len());
    }
    for child in data.child_data() {
        buffer_sizes_of(child, sizes);
    }
}

/// The types an Arrow function reads: whether it takes `data_type`, and
/// what it takes, for the `TypeError`.
pub(crate) struct Accept {
    pub(crate) takes: fn(&DataType) -> bool,
    pub(crate) what: &'static str,
}

/// `validate_array`'s: any type holding binary or string values.
const ANY_TEXT: Accept = Accept {
    takes: values::holds_text,
    what: "nor one holding them (a dictionary, list or struct of them)",
};

/// `binary_to_string`'s: a binary or string type, or a dictionary of one.
pub(crate) const CONVERTIBLE: Accept = Accept {
    takes: convertible,
    what: "nor a dictionary of one",
};

/// Whether `binary_to_string` converts arrays of `data_type`.
fn convertible(data_type: &DataType) -> bool {
    match data_type {
        DataType::Dictionary(_, values) => utf8guard_arrow::holds_text(values),
        other => utf8guard_arrow::holds_text(other),
    }
}

/// The `TypeError` for a type that `accept` does not take.
pub(crate) fn refuse(data_type: &DataType, accept: &Accept) -> PyErr {
    PyTypeError::new_err(format!(
        "{data_type} is not a binary or string type (Binary, LargeBinary, BinaryView, Utf8, \
         LargeUtf8, Utf8View), {}",
        accept.what
    ))
}

/// The chunks of `obj` (one for an array, each of a stream's), of a type
/// that `accept` takes, their layout checked against `sizes`.
fn import(obj: &Bound<'_, PyAny>, sizes: &Sizes, accept: &Accept) -> PyResult<Vec<ArrayData>> {
    let py = obj.py();
    let (field, chunks) = if obj.hasattr("__arrow_c_array__")? {
        let (data, field) = import_array(obj)?;
        (field, vec![data])
    } else if obj.hasattr("__arrow_c_stream__")? {
        import_stream(obj)?
    } else {
        return Err(PyTypeError::new_err(format!(
            "expected an Arrow array (an object with __arrow_c_array__ or __arrow_c_stream__), \
             got {}",
            obj.get_type().name()?
        )));
    };
    if !(accept.takes)(field.data_type()) {
        return Err(refuse(field.data_type(), accept));
    }
    // Outside the GIL: the checks read every offset (or view).
    py.detach(|| {
        chunks
            .into_iter()
            .map(|data| checked(data, sizes, "").map_err(PyValueError::new_err))
            .collect()
    })
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
    // Their layout is checked before anything reads them (`checked`).
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
        // anything reads it (`checked`).
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

/// `data` with its layout checked (`layout::check`: the offsets, views
/// and keys inside their buffers, at every depth), or why not, after
/// `place`.
pub(crate) fn checked(data: ArrayData, sizes: &Sizes, place: &str) -> Result<ArrayData, String> {
    if data.is_empty() {
        // An empty slice is exported with its offset and without the
        // values it does not cover, which arrow-rs's import measures as 0
        // bytes and then finds the first offset past: nothing to read.
        return Ok(ArrayData::new_empty(data.data_type()));
    }
    layout::check(&data, sizes, place)?;
    Ok(data)
}

/// Why a function stopped at a chunk (or a batch's column).
#[derive(Debug)]
pub(crate) enum Failure {
    /// A value that is not UTF-8.
    Bad(First),
    /// A type it does not read inside (`TypeError`).
    Unsupported(String),
    /// Anything else (`ValueError`).
    Other(String),
}

impl From<utf8guard_arrow::Error> for Failure {
    fn from(error: utf8guard_arrow::Error) -> Failure {
        match error {
            utf8guard_arrow::Error::Invalid { row, error } => Failure::Bad(First {
                location: Location::Row(row),
                bad: values::Bad {
                    path: Vec::new(),
                    dictionary: None,
                    error,
                },
            }),
            utf8guard_arrow::Error::Unsupported(data_type) => {
                Failure::Unsupported(format!("{data_type} is not a binary or string type"))
            }
            other => Failure::Other(other.to_string()),
        }
    }
}

/// The first bad value of `data` (checked), as a `Failure`.
pub(crate) fn first_bad(data: &ArrayData) -> Result<(), Failure> {
    first_bad_in(data, 0, data.len())
}

/// The first bad value of the rows `start..start + len` of `data`
/// (checked), as a `Failure` (its row counted from `start`).
pub(crate) fn first_bad_in(data: &ArrayData, start: usize, len: usize) -> Result<(), Failure> {
    match values::first(data, start, len) {
        Ok(None) => Ok(()),
        Ok(Some(first)) => Err(Failure::Bad(first)),
        Err(unsupported) => Err(Failure::Unsupported(unsupported)),
    }
}

/// The exception for `failure` in a chunk whose rows start at `first_row`
/// of the input, in the column `(index, name)` of a record batch: the
/// message and `ArrowUtf8Error`'s attributes name them.
pub(crate) fn failure_error(
    py: Python<'_>,
    failure: Failure,
    first_row: usize,
    column: Option<(usize, &str)>,
) -> PyErr {
    let prefix = match column {
        Some((index, name)) => format!("column {index} ({name:?}), "),
        None => String::new(),
    };
    let first = match failure {
        Failure::Bad(first) => first,
        Failure::Unsupported(message) => return PyTypeError::new_err(format!("{prefix}{message}")),
        Failure::Other(message) => return PyValueError::new_err(format!("{prefix}{message}")),
    };
    let bad = &first.bad;
    let mut steps = String::new();
    for step in &bad.path {
        match step {
            Step::Field(name) => steps.push_str(&format!(", field {name:?}")),
            Step::Element(index) => steps.push_str(&format!(", element {index}")),
        }
    }
    let (row, place) = match &first.location {
        Location::Row(row) => {
            let row = first_row + row;
            let entry = match bad.dictionary {
                Some(entry) => format!(" (dictionary entry {entry})"),
                None => String::new(),
            };
            (Some(row), format!("row {row}{steps}{entry}"))
        }
        Location::Unused(place) => {
            let entry = bad.dictionary.unwrap_or_default();
            (
                None,
                format!("{place} entry {entry}{steps}, which no row uses"),
            )
        }
    };
    let error = bad.error;
    let message = format!(
        "{prefix}{place}: invalid UTF-8 at byte {} of the value ({})",
        error.valid_up_to(),
        error.kind()
    );
    let err = ArrowUtf8Error::new_err(message);
    let value = err.value(py);
    let set = || -> PyResult<()> {
        let mut steps = Vec::with_capacity(bad.path.len());
        for step in &bad.path {
            steps.push(match step {
                Step::Field(name) => PyString::new(py, name).into_any(),
                Step::Element(index) => index.into_pyobject(py)?.into_any(),
            });
        }
        let path = PyTuple::new(py, steps)?;
        value.setattr("column", column.map(|(_, name)| name))?;
        value.setattr("column_index", column.map(|(index, _)| index))?;
        value.setattr("row", row)?;
        value.setattr("path", path)?;
        value.setattr("dictionary_index", bad.dictionary)?;
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
    match names::arrow_policy(errors)? {
        None if errors == "null" => Ok(Fix::Null),
        None => Ok(Fix::Strict),
        Some(Policy::Text(replacement)) => Ok(Fix::Repair(replacement)),
        Some(Policy::Escape) => Err(PyValueError::new_err(
            "surrogateescape writes lone surrogates, which an Arrow string cannot hold",
        )),
    }
}

/// One chunk (checked) converted: a binary or string array to the string
/// type of its layout, a dictionary of one to a dictionary of strings.
pub(crate) fn convert(data: &ArrayData, fix: Fix) -> Result<ArrayData, Failure> {
    match data.data_type() {
        DataType::Dictionary(key, _) => convert_dictionary(data, key, fix),
        _ => convert_text(data, fix),
    }
}

/// A binary or string array converted to the string type of its layout.
///
/// A null row's bytes are not read: when they are the only ones that are
/// not UTF-8, the values are copied without them (as `errors="null"`
/// does), for a result that is UTF-8 throughout (arrow-rs's checks of a
/// string array read every byte).
fn convert_text(data: &ArrayData, fix: Fix) -> Result<ArrayData, Failure> {
    let binary = values::as_binary(data).map_err(Failure::Other)?;
    match to_string(&binary, fix) {
        Err(utf8guard_arrow::Error::Invalid { .. }) if binary.null_count() > 0 => {
            first_bad(&binary)?;
            Ok(to_string(&binary, Fix::Null)?)
        }
        converted => Ok(converted?),
    }
}

/// A dictionary array of binary or string values converted to one of
/// strings: its dictionary converted, its keys shared. With `Fix::Null`,
/// a row whose key names an entry made null is made null too.
fn convert_dictionary(data: &ArrayData, key: &DataType, fix: Fix) -> Result<ArrayData, Failure> {
    if matches!(fix, Fix::Strict) {
        // The error names the first row whose key names a bad entry.
        first_bad(data)?;
    }
    let entries = &data.child_data()[0];
    let converted = convert_text(entries, fix)?;
    let mut nulls = data.nulls().cloned();
    if matches!(fix, Fix::Null) && converted.null_count() > entries.null_count() {
        let mut valid = BooleanBufferBuilder::new(data.len());
        for entry in values::keys(data, key, 0, data.len()) {
            valid.append(entry.is_some_and(|entry| converted.is_valid(entry)));
        }
        nulls = Some(NullBuffer::new(valid.finish()));
    }
    let data_type = DataType::Dictionary(
        Box::new(key.clone()),
        Box::new(converted.data_type().clone()),
    );
    data.clone()
        .into_builder()
        .data_type(data_type)
        .nulls(nulls)
        .child_data(vec![converted])
        .build()
        .map_err(|e| Failure::Other(e.to_string()))
}

/// A binary array (`Binary`, `LargeBinary`, `BinaryView`) converted by
/// `utf8guard_arrow`, every row read.
fn to_string(data: &ArrayData, fix: Fix) -> Result<ArrayData, utf8guard_arrow::Error> {
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
/// `kind`; `path` and `dictionary_index` for a value inside it).
///
/// `array` is any object with `__arrow_c_array__` or `__arrow_c_stream__`
/// (a pyarrow `Array` or `ChunkedArray`, ...) of type `binary`,
/// `large_binary`, `binary_view`, `string`, `large_string` or
/// `string_view` (string arrays from untrusted sources are re-validated),
/// or of a type holding them: a dictionary, list, map or struct of them,
/// at any depth. Rows count from the input's first row, across a stream's
/// chunks. A null slot's bytes are not read. The buffers are read in
/// place, with the GIL released, after their layout is checked: the
/// values buffer's size is checked against `buffer_sizes` (a dict of
/// sizes by address; by default the package finds a pyarrow object's),
/// and an array whose size is not known is refused unless
/// `trust_offsets` is true.
#[pyfunction]
#[pyo3(signature = (array, /, *, buffer_sizes = None, trust_offsets = false))]
pub fn validate_array(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    buffer_sizes: Option<HashMap<usize, usize>>,
    trust_offsets: bool,
) -> PyResult<()> {
    let (input, sizes) = input(array, buffer_sizes, trust_offsets)?;
    let chunks = import(&input, &sizes, &ANY_TEXT)?;
    let result = py.detach(|| {
        let mut first_row = 0;
        for data in &chunks {
            first_bad(data).map_err(|failure| (failure, first_row))?;
            first_row += data.len();
        }
        Ok(())
    });
    result.map_err(|(failure, first_row)| failure_error(py, failure, first_row, None))
}

/// Converts an Arrow binary array to a string array: `binary` to `string`,
/// `large_binary` to `large_string`, `binary_view` to `string_view`, a
/// dictionary of binary values to a dictionary of strings (and a string
/// array to itself, re-validated).
///
/// Valid values are not copied: the result shares the input's buffers.
/// `errors` says what becomes of a value that is not UTF-8: `"strict"`
/// raises `ArrowUtf8Error` naming the row and the byte offset; `"null"`
/// makes it null (as Arrow's safe cast); any other name that `decode`
/// takes (`"replace"`, `"jvm"`, `"windows-1252"`, ...) repairs it as
/// `repair` would. A null slot's bytes are not read. Returns an
/// `ArrowArray` (for an input with `__arrow_c_array__`) or a list of them,
/// one per chunk (for a stream); the package's `binary_to_string` turns
/// them into pyarrow arrays for pyarrow inputs. `buffer_sizes` and
/// `trust_offsets` are as in `validate_array`.
#[pyfunction]
#[pyo3(signature = (array, /, errors = "strict", *, buffer_sizes = None, trust_offsets = false))]
pub fn binary_to_string<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyAny>,
    errors: &str,
    buffer_sizes: Option<HashMap<usize, usize>>,
    trust_offsets: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let fix = fix(errors)?;
    let (input, sizes) = input(array, buffer_sizes, trust_offsets)?;
    let is_array = input.hasattr("__arrow_c_array__")?;
    let chunks = import(&input, &sizes, &CONVERTIBLE)?;
    let converted = py.detach(|| {
        let mut first_row = 0;
        let mut out = Vec::with_capacity(chunks.len());
        for data in &chunks {
            out.push(convert(data, fix).map_err(|failure| (failure, first_row))?);
            first_row += data.len();
        }
        Ok(out)
    });
    let converted =
        converted.map_err(|(failure, first_row)| failure_error(py, failure, first_row, None))?;
    let mut arrays = converted
        .into_iter()
        .map(|data| Bound::new(py, ArrowArray { data }).map(Bound::into_any));
    if is_array {
        return arrays.next().expect("an array is one chunk");
    }
    let arrays: Vec<Bound<'py, PyAny>> = arrays.collect::<PyResult<_>>()?;
    Ok(PyList::new(py, arrays)?.into_any())
}
