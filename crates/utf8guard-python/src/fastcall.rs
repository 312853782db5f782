//! `decode`'s entry point, written against CPython's C API.
//!
//! The commonest call, `decode(b)` with one short `bytes`, does so little
//! work that the cost of the call is most of its time, and PyO3's
//! trampoline (its thread-local attach count, the panic guard, the
//! argument extraction) cost more than CPython's own `bytes.decode`. This
//! function, `METH_FASTCALL | METH_KEYWORDS` as `bytes.decode` is, hands
//! such a call straight to CPython's UTF-8 decoder, and forwards every
//! other call, unchanged, to the `#[pyfunction]` (kept out of the module's
//! namespace), which takes them all.

use core::cell::UnsafeCell;
use std::sync::OnceLock;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyCFunction;

/// `bytes` shorter than this, passed alone, go to CPython's decoder (the
/// `#[pyfunction]`'s own cutoff, `SMALL`, for the same reason).
const SMALL: ffi::Py_ssize_t = crate::SMALL as ffi::Py_ssize_t;

/// The method definition of the function the module exports as `decode`,
/// and the `#[pyfunction]` it forwards to.
struct Entry {
    /// CPython reads it through a `*mut` pointer (the C API's type), and
    /// never writes it.
    def: UnsafeCell<ffi::PyMethodDef>,
    /// The `#[pyfunction]`; held here for the process's life, which keeps
    /// its own method definition (whose name and doc `def` shares) alive.
    full: Py<PyCFunction>,
}

// SAFETY: `def` is written once, before it is shared (in `OnceLock::set`),
// and then only read, by CPython; `full` is a `Py`, which may be used from
// any thread attached to the interpreter.
unsafe impl Sync for Entry {}
// SAFETY: as for `Sync`: nothing in `Entry` is tied to the thread that made it.
unsafe impl Send for Entry {}

/// Made once: PyO3 initializes a module once per process, and the
/// definition must outlive every function object made from it.
static ENTRY: OnceLock<Entry> = OnceLock::new();

/// Adds `decode` to `module`: a function whose calls of one short `bytes`
/// go to CPython's decoder and whose other calls go to `full`, the
/// `#[pyfunction]` `decode`, whose name and doc (with its text signature,
/// for `inspect.signature`) it takes.
pub(crate) fn add_decode(
    module: &Bound<'_, PyModule>,
    full: Bound<'_, PyCFunction>,
) -> PyResult<()> {
    let py = module.py();
    let func = full.as_ptr().cast::<ffi::PyCFunctionObject>();
    // SAFETY: `full` is a `builtin_function_or_method` (a `PyCFunction`),
    // whose object starts with `PyCFunctionObject`; `m_ml` is its method
    // definition, alive as long as the function is (CPython reads it at
    // each call), and `full` is kept alive for good in `ENTRY` below.
    let (name, doc) = unsafe { ((*(*func).m_ml).ml_name, (*(*func).m_ml).ml_doc) };
    let entry = ENTRY.get_or_init(|| Entry {
        def: UnsafeCell::new(ffi::PyMethodDef {
            ml_name: name,
            ml_meth: ffi::PyMethodDefPointer {
                PyCFunctionFastWithKeywords: decode,
            },
            ml_flags: ffi::METH_FASTCALL | ffi::METH_KEYWORDS,
            ml_doc: doc,
        }),
        full: full.unbind(),
    });
    let module_name = module.name()?;
    // SAFETY: attached (`py`); `entry.def` is a method definition of the
    // `METH_FASTCALL | METH_KEYWORDS` convention that `decode` follows, in
    // a static, so it outlives the function; `module` and `module_name` are
    // live objects, borrowed by the call (it takes its own references).
    // The call returns a new reference, or NULL with an exception set.
    let decode = unsafe {
        Bound::from_owned_ptr_or_err(
            py,
            ffi::PyCFunction_NewEx(entry.def.get(), module.as_ptr(), module_name.as_ptr()),
        )?
    };
    module.add("decode", decode)
}

/// `decode` as CPython calls it (`METH_FASTCALL | METH_KEYWORDS`): `args`
/// holds `nargs` positional arguments and then the values of the keywords
/// named in `kwnames` (NULL when there are none).
///
/// Only C API calls run here, so that nothing unwinds into CPython.
unsafe extern "C" fn decode(
    _module: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    if nargs == 1 && kwnames.is_null() {
        // SAFETY: CPython passes `nargs` (here 1) valid borrowed references
        // at `args`, and holds the interpreter for the call.
        let data = unsafe { *args };
        // SAFETY: `data` is a live object; the check reads its type only.
        if unsafe { ffi::PyBytes_CheckExact(data) } != 0 {
            // SAFETY: `data` is exactly a `bytes`, whose size is its
            // `ob_size` and whose contents (immutable) follow its header.
            let (ptr, len) = unsafe { (ffi::PyBytes_AS_STRING(data), ffi::Py_SIZE(data)) };
            if len < SMALL {
                // SAFETY: `ptr` is `len` bytes, alive for the call (the
                // caller holds `data`); NULL errors means `strict`. The
                // decoder returns a new reference, or NULL with
                // `UnicodeDecodeError` (or `MemoryError`) set, as CPython's
                // `bytes.decode` does, which is what this call returns.
                return unsafe { ffi::PyUnicode_DecodeUTF8(ptr, len, core::ptr::null()) };
            }
        }
    }
    let Some(entry) = ENTRY.get() else {
        // Unreachable: the function is made after `ENTRY` is set.
        // SAFETY: attached (CPython called us); the message is a
        // NUL-terminated C string.
        unsafe {
            ffi::PyErr_SetString(
                ffi::PyExc_SystemError,
                c"utf8guard: decode is not initialized".as_ptr(),
            )
        };
        return core::ptr::null_mut();
    };
    // SAFETY: attached; `args`, `nargs` and `kwnames` are the vectorcall
    // arguments CPython gave this call (without the offset flag: `args[-1]`
    // is not ours to write), passed on unchanged; `full` is alive (held by
    // `ENTRY`). Returns a new reference or NULL with an exception set.
    unsafe { ffi::PyObject_Vectorcall(entry.full.as_ptr(), args, nargs as usize, kwnames) }
}
