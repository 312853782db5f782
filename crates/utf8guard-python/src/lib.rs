//! Python bindings of utf8guard: `import utf8guard`.
//!
//! Built by maturin (`pyproject.toml`) as the extension module
//! `utf8guard._utf8guard`, which the package `utf8guard`
//! (`python/utf8guard/__init__.py`) re-exports. Every function takes any
//! object with the buffer protocol and reads its bytes in place
//! (`buffer::Input`); see `docs/PYTHON.md` for the Python API.

use pyo3::exceptions::{PyIndexError, PyTypeError, PyUnicodeDecodeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::type_object::PyTypeInfo;
use pyo3::types::{PyBytes, PyString};
use utf8guard::Dialect;

mod arrow;
mod batch;
mod buffer;
mod fastcall;
mod files;
mod layout;
mod names;
mod pystr;
mod reader;
mod transcode;
mod values;

use buffer::Input;
use names::{Decoding, Handler, Policy};

/// Inputs at least this long are validated with the GIL released, so that
/// other Python threads run meanwhile; shorter ones take less time than
/// releasing and taking back the GIL is worth.
const DETACH_AT: usize = 64 * 1024;

/// Whether to check `input` with the GIL released: it is long enough to be
/// worth it, and read-only. A writable buffer (a bytearray, an array, or a
/// read-only memoryview of one) keeps the GIL, so that no Python thread
/// writes into it while it is read: a write during the read would be a
/// data race on the slice.
pub(crate) fn detach(input: &Input) -> bool {
    input.readonly() && input.bytes().len() >= DETACH_AT
}

/// The first ill-formed sequence that `check` found.
///
/// Not an exception: `check` returns it (and `None` for valid input).
/// `start`/`valid_up_to` is the length of the longest valid prefix, `end`
/// the end of the ill-formed sequence (its maximal subpart), `error_len`
/// its length (`None` when the input ends inside a sequence, and then
/// `end` is the input's length), `kind` the cause's name and `reason` its
/// description, `encoding` the dialect's name.
///
/// It pickles and copies (`__reduce__`, through the constructor), so that
/// it crosses processes: `multiprocessing.Pool().map(check_file, paths)`
/// sends each result back pickled.
#[pyclass(frozen, eq, get_all, module = "utf8guard", name = "Utf8Error")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Utf8Error {
    /// The dialect checked, by its name (`"utf-8"`, `"cesu-8"`, ...).
    encoding: String,
    /// The length of the longest well-formed prefix.
    valid_up_to: u64,
    /// The same as `valid_up_to` (the name of `UnicodeDecodeError`).
    start: u64,
    /// Where the ill-formed sequence ends.
    end: u64,
    /// Its length; `None` when the input ends inside a sequence.
    error_len: Option<usize>,
    /// The cause, as a name (`"invalid_byte"`, `"overlong"`, ...).
    kind: String,
    /// The cause, described (`"overlong encoding"`, ...).
    reason: String,
}

impl Utf8Error {
    /// `error` of `dialect`, the ill-formed sequence at `start..end` of
    /// the input (a file's offsets, `error`'s own counted from a block).
    pub(crate) fn at(dialect: Dialect, error: &utf8guard::Utf8Error, start: u64, end: u64) -> Self {
        Utf8Error {
            encoding: dialect.name().to_owned(),
            valid_up_to: start,
            start,
            end,
            error_len: error.error_len(),
            kind: error.kind().name().to_owned(),
            reason: error.kind().description().to_owned(),
        }
    }
}

#[pymethods]
impl Utf8Error {
    /// The error with these attributes (`start` is `valid_up_to`): what
    /// unpickling and `copy` call, with the values `__reduce__` gives.
    #[new]
    #[pyo3(signature = (encoding, valid_up_to, end, error_len, kind, reason))]
    fn new(
        encoding: String,
        valid_up_to: u64,
        end: u64,
        error_len: Option<usize>,
        kind: String,
        reason: String,
    ) -> Self {
        Utf8Error {
            encoding,
            valid_up_to,
            start: valid_up_to,
            end,
            error_len,
            kind,
            reason,
        }
    }

    /// How pickle and `copy` rebuild it: the class and its constructor's
    /// arguments.
    #[allow(clippy::type_complexity)]
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> (
        Bound<'py, pyo3::types::PyType>,
        (String, u64, u64, Option<usize>, String, String),
    ) {
        let e = slf.get();
        (
            slf.get_type(),
            (
                e.encoding.clone(),
                e.valid_up_to,
                e.end,
                e.error_len,
                e.kind.clone(),
                e.reason.clone(),
            ),
        )
    }

    fn __repr__(&self) -> String {
        let error_len = match self.error_len {
            Some(n) => n.to_string(),
            None => "None".to_owned(),
        };
        // The names and descriptions are ASCII without quotes: a Python
        // string literal is the text in single quotes.
        format!(
            "Utf8Error(encoding='{}', valid_up_to={}, error_len={}, end={}, kind='{}', reason='{}')",
            self.encoding, self.valid_up_to, error_len, self.end, self.kind, self.reason
        )
    }

    fn __str__(&self) -> String {
        format!(
            "{} at bytes {}..{}: {}",
            self.encoding, self.start, self.end, self.reason
        )
    }
}

/// `True` when `data` (any object with the buffer protocol: bytes,
/// bytearray, memoryview, mmap, array, ...) is well-formed UTF-8.
///
/// The bytes are read in place, never copied. Read-only inputs (bytes, a
/// read-only memoryview or mmap) of 64 KiB or more are validated with the
/// GIL released, so other threads run meanwhile; a writable one (a
/// bytearray, an array) keeps the GIL, so that no thread writes into it
/// while it is read.
#[pyfunction]
#[pyo3(signature = (data, /))]
fn validate(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<bool> {
    let input = Input::new(data)?;
    let bytes = input.bytes();
    if !detach(&input) {
        return Ok(utf8guard::validate(bytes));
    }
    // Outside the GIL, `bytes` stays valid: the export (`input`) is held
    // across the call, so the memory stays allocated and in place, and it
    // is read-only, so no one writes into it.
    Ok(py.detach(|| utf8guard::validate(bytes)))
}

/// `None` when `data` is well formed in `encoding`, else the first error,
/// as a `Utf8Error` (returned, not raised); with `all=True`, the list of
/// every error (empty for valid data), each as `check` would find it after
/// the one before, as `check_file(path, all=True)` gives a file's.
///
/// `encoding` is a member of the UTF-8 family, by any name or alias that
/// the library knows, in any case: `utf-8` (`utf8`, `strict`),
/// `unicode-3.1`, `wtf-8`, `cesu-8`, `mutf-8` (`java`), `rfc2279`,
/// `corrected-utf-8` (`corrected`). Unknown names raise `LookupError`.
/// The GIL is released as in `validate`.
#[pyfunction]
#[pyo3(signature = (data, /, encoding = "utf-8", all = false))]
fn check<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    encoding: &str,
    all: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let dialect = names::dialect(encoding)?;
    let input = Input::new(data)?;
    let bytes = input.bytes();
    let limit = if all { usize::MAX } else { 1 };
    let find = || errors(dialect, bytes, limit);
    // As in `validate`: the export is held across the call.
    let found = if detach(&input) {
        py.detach(find)
    } else {
        find()
    };
    if all {
        return Ok(pyo3::types::PyList::new(py, found)?.into_any());
    }
    found
        .into_iter()
        .next()
        .into_pyobject(py)
        .map(Bound::into_any)
}

/// The first `limit` errors of `bytes` in `dialect`: each found by checking
/// from where the one before ended; an input cut short inside a sequence
/// ends the list.
fn errors(dialect: Dialect, bytes: &[u8], limit: usize) -> Vec<Utf8Error> {
    let mut found = Vec::new();
    let mut at = 0;
    while found.len() < limit {
        let Err(e) = dialect.check(&bytes[at..]) else {
            break;
        };
        let start = at + e.valid_up_to();
        let Some(len) = e.error_len() else {
            found.push(Utf8Error::at(dialect, &e, start as u64, bytes.len() as u64));
            break;
        };
        let end = start + len;
        found.push(Utf8Error::at(dialect, &e, start as u64, end as u64));
        at = end;
    }
    found
}

/// `data` decoded as UTF-8 to a `str`: `bytes(data).decode(encoding, errors)`.
///
/// `encoding` is UTF-8 (`utf-8`, `utf8`, and every alias CPython's
/// `codecs.lookup` knows: `u8`, `utf`, `cp65001`, ...) or `utf-8-sig` (a
/// leading byte-order mark dropped; an error's `object` and positions are
/// then those of the bytes after it, as CPython's). Other names raise
/// `LookupError` (the other dialects are for `check` only).
///
/// `errors` is CPython's `strict` (raise `UnicodeDecodeError`, with the
/// attributes CPython's own decoder gives), `surrogatepass`, `replace`,
/// `ignore`, `backslashreplace` or `surrogateescape`; one of the policies
/// that CPython lacks, by any name `repair` takes (`jvm`, `per-byte`,
/// `windows-1252`, `latin-1`, ...); or the name of a handler registered
/// with `codecs.register_error`, called at each ill-formed sequence as
/// CPython calls it. Unknown names raise `LookupError` (at once, where
/// CPython waits for the first error).
///
/// The validation or repair runs with the GIL released for read-only
/// inputs of 64 KiB or more, as in `validate`; the `str` is made with it.
/// `surrogatepass` and registered handlers keep the GIL past the first
/// error.
#[pyfunction]
#[pyo3(signature = (data, /, encoding = "utf-8", errors = "strict"))]
fn decode<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    encoding: &str,
    errors: &str,
) -> PyResult<Bound<'py, PyString>> {
    if let Ok(object) = data.cast::<PyBytes>() {
        if encoding == "utf-8" && errors == "strict" && object.as_bytes().len() < SMALL {
            return small_strict(py, object);
        }
    }
    let decoding = names::decoding(py, encoding)?;
    let handler = names::decode_handler(py, errors)?;
    let input = Input::new(data)?;
    let mut bytes = input.bytes();
    if decoding == Decoding::Utf8Sig {
        bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    }
    // As in `validate`: the export is held across the call, and the bytes
    // (and the `Cow`s borrowing them) are read only. The `str` is made with
    // the GIL (`PyUnicode_New`) and filled without it (`pystr::build`).
    let detach = detach(&input);
    let policy = match handler {
        Handler::Repair(policy) => policy,
        handler => {
            return match pystr::decode_strict(py, bytes, detach)? {
                Ok(text) => Ok(text),
                Err(e) if matches!(handler, Handler::Strict) => {
                    let (end, reason) = cpython_error(bytes, e.valid_up_to(), e.error_len());
                    let object = PyBytes::new(py, bytes).into_any();
                    Err(unicode_decode_error(&object, e.valid_up_to(), end, reason))
                }
                Err(_) => decode_calling(py, bytes, &handler),
            }
        }
    };
    pystr::build_repaired(py, bytes, |piece| repaired(piece, policy), detach)
}

/// Inputs shorter than this, as `bytes` with the default arguments, go to
/// CPython's own decoder: for them the cost is the call, not the text, and
/// exporting a buffer and looking names up cost more than the decoding.
pub(crate) const SMALL: usize = 16 * 1024;

/// A short `bytes` decoded by CPython's UTF-8 decoder (`PyUnicode_DecodeUTF8`),
/// whose `str` and strict exception `decode` gives for any input.
fn small_strict<'py>(
    py: Python<'py>,
    object: &Bound<'py, PyBytes>,
) -> PyResult<Bound<'py, PyString>> {
    let bytes = object.as_bytes();
    let len = bytes.len() as ffi::Py_ssize_t;
    // SAFETY: the GIL is held (`py`); `bytes` is the immutable contents of
    // `object`, alive for the call, `len` bytes long; the errors name is a
    // NUL-terminated C string. The call returns a new reference or NULL with
    // an exception set, which `from_owned_ptr_or_err` turns into `Err`.
    let text = unsafe {
        Bound::from_owned_ptr_or_err(
            py,
            ffi::PyUnicode_DecodeUTF8(bytes.as_ptr().cast(), len, c"strict".as_ptr()),
        )?
    };
    Ok(text.cast_into::<PyString>()?)
}

/// `bytes` decoded with `handler` (`surrogatepass` or a registered one)
/// called at each ill-formed sequence, as CPython's UTF-8 decoder calls
/// its error handler: with a `UnicodeDecodeError` whose `object` is the
/// input, `start`, `end` and `reason` those of `strict`; the handler gives
/// the text to put there and where to go on (counted from the end when
/// negative). The valid runs are decoded as `decode` does, each to a `str`
/// of its own, and the pieces joined.
fn decode_calling<'py>(
    py: Python<'py>,
    bytes: &[u8],
    handler: &Handler,
) -> PyResult<Bound<'py, PyString>> {
    let object = PyBytes::new(py, bytes).into_any();
    let mut pieces = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let Some(chunk) = utf8guard::utf8_chunks(&bytes[at..]).next() else {
            break;
        };
        let valid = chunk.valid().as_bytes();
        if !valid.is_empty() {
            pieces.push(pystr::build(py, valid, pystr::Layout::of(valid), false)?);
        }
        let invalid = chunk.invalid();
        if invalid.is_empty() {
            break;
        }
        let start = at + valid.len();
        // The chunk's invalid part is the maximal subpart, or the rest of
        // the input when a lead byte's sequence is cut short by its end.
        let cut = start + invalid.len() == bytes.len() && matches!(invalid[0], 0xC2..=0xF4);
        let (end, reason) = cpython_error(bytes, start, (!cut).then_some(invalid.len()));
        match handler {
            Handler::Registered(call) => {
                let exc = PyUnicodeDecodeError::type_object(py)
                    .call1(("utf-8", &object, start, end, reason))?;
                let answer = call.bind(py).call1((exc,))?;
                let Ok((text, next)) = answer.extract::<(Bound<'py, PyString>, isize)>() else {
                    return Err(PyTypeError::new_err(
                        "decoding error handler must return (str, int) tuple",
                    ));
                };
                let len = bytes.len() as isize;
                let next = if next < 0 { next + len } else { next };
                if !(0..=len).contains(&next) {
                    return Err(PyIndexError::new_err(format!(
                        "position {next} from error handler out of bounds"
                    )));
                }
                pieces.push(text);
                at = next as usize;
            }
            _ => {
                // `surrogatepass`: a surrogate's 3-byte form (`ED A0..BF
                // 80..BF`) is that surrogate, a lone one in WTF-8, which
                // `build` writes; anything else raises as `strict`.
                let surrogate = bytes.get(start..start + 3).filter(|s| {
                    s[0] == 0xED && (0xA0..=0xBF).contains(&s[1]) && (0x80..=0xBF).contains(&s[2])
                });
                let Some(surrogate) = surrogate else {
                    return Err(unicode_decode_error(&object, start, end, reason));
                };
                pieces.push(pystr::build(
                    py,
                    surrogate,
                    pystr::Layout::of(surrogate),
                    false,
                )?);
                at = start + 3;
            }
        }
    }
    match pieces.len() {
        0 => Ok(PyString::new(py, "")),
        1 => Ok(pieces.swap_remove(0)),
        _ => Ok(PyString::new(py, "")
            .call_method1("join", (pieces,))?
            .cast_into::<PyString>()?),
    }
}

/// `bytes` repaired as `policy` says: valid UTF-8, or, for the surrogate
/// escape, WTF-8 whose lone surrogates (U+DC80..U+DCFF, 3 bytes each) are
/// the escaped bytes.
fn repaired(bytes: &[u8], policy: Policy) -> std::borrow::Cow<'_, [u8]> {
    match policy {
        Policy::Text(replacement) => match utf8guard::repair(bytes, replacement) {
            std::borrow::Cow::Borrowed(text) => std::borrow::Cow::Borrowed(text.as_bytes()),
            std::borrow::Cow::Owned(text) => std::borrow::Cow::Owned(text.into_bytes()),
        },
        Policy::Escape => utf8guard::escape(bytes),
    }
}

/// `data` with every ill-formed sequence replaced as `replacement` says,
/// as UTF-8 `bytes` (the command's `utf8guard repair`).
///
/// `replacement` is `maximal-subpart` (`replace`, `std`, `whatwg`: one
/// U+FFFD per maximal subpart), `jvm` (`java`), `per-byte` (`go`),
/// `windows-1252` (`cp1252`), `latin-1` (`iso-8859-1`), `backslash`
/// (`backslashreplace`), `drop` (`ignore`), or `escape`
/// (`surrogateescape`: each byte as a lone surrogate, written as WTF-8, so
/// the result is WTF-8, not UTF-8): every name `decode` takes but
/// `strict`, `surrogatepass` and registered handlers. Unknown names raise
/// `LookupError`, as in `decode`. The repair runs with the GIL released
/// for read-only inputs of 64 KiB or more, as in `validate`.
#[pyfunction]
#[pyo3(signature = (data, /, replacement = "maximal-subpart"))]
fn repair<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    replacement: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let policy = names::repair_policy(replacement)?;
    let input = Input::new(data)?;
    let bytes = input.bytes();
    let repaired = || repaired(bytes, policy);
    // As in `validate`: the export is held across the call.
    let out = if detach(&input) {
        py.detach(repaired)
    } else {
        repaired()
    };
    Ok(PyBytes::new(py, &out))
}

/// Where CPython's UTF-8 decoder ends the ill-formed sequence at `start`
/// of `bytes`, whose length is `error_len` (`None` when the input ends
/// inside it), and its reason.
///
/// CPython (Objects/stringlib/codecs.h) ends an error at the maximal
/// subpart, as the library does, and names it by what it saw: the input
/// ended inside a sequence ("unexpected end of data"); a byte that starts
/// no sequence ("invalid start byte": `80`..`C1`, `F5`..`FF`); or a lead
/// byte followed by a byte that cannot continue it ("invalid continuation
/// byte", however many bytes were valid before it).
fn cpython_error(bytes: &[u8], start: usize, error_len: Option<usize>) -> (usize, &'static str) {
    match error_len {
        None => (bytes.len(), "unexpected end of data"),
        Some(len) => {
            let reason = match bytes[start] {
                0xC2..=0xF4 => "invalid continuation byte",
                _ => "invalid start byte",
            };
            (start + len, reason)
        }
    }
}

/// The `UnicodeDecodeError` of UTF-8 for `object[start..end]`.
fn unicode_decode_error(
    object: &Bound<'_, PyAny>,
    start: usize,
    end: usize,
    reason: &str,
) -> PyErr {
    PyUnicodeDecodeError::new_err((
        "utf-8",
        object.clone().unbind(),
        start,
        end,
        reason.to_owned(),
    ))
}

/// utf8guard's Python module, `utf8guard._utf8guard`.
#[pymodule]
fn _utf8guard(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    fastcall::add_decode(m, wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(repair, m)?)?;
    m.add_function(wrap_pyfunction!(transcode::transcode, m)?)?;
    m.add_function(wrap_pyfunction!(files::check_file, m)?)?;
    m.add_function(wrap_pyfunction!(files::repair_file, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::validate_array, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::binary_to_string, m)?)?;
    m.add_class::<Utf8Error>()?;
    m.add_class::<reader::RepairStream>()?;
    m.add_function(wrap_pyfunction!(batch::validate_batch, m)?)?;
    m.add_function(wrap_pyfunction!(batch::batch_binary_to_string, m)?)?;
    m.add_class::<arrow::ArrowArray>()?;
    m.add_class::<batch::ArrowBatch>()?;
    m.add_class::<batch::ArrowStream>()?;
    m.add("ArrowUtf8Error", m.py().get_type::<arrow::ArrowUtf8Error>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
