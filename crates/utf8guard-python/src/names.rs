//! The names that the Python functions take: encodings (the dialects of
//! the UTF-8 family), error handlers and repair policies.

use pyo3::exceptions::{PyLookupError, PyValueError};
use pyo3::PyResult;
use utf8guard::{Dialect, Replacement};

/// The dialect called `name` (any name or alias that
/// [`Dialect::from_name`] knows, in any case, `_` for `-`).
pub fn dialect(name: &str) -> PyResult<Dialect> {
    Dialect::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
        PyLookupError::new_err(format!(
            "unknown encoding: '{name}'; known: {}",
            known.join(", ")
        ))
    })
}

/// What replaces an ill-formed sequence: a [`Replacement`] policy, or the
/// surrogate escape (PEP 383), which is not a `str` policy in Rust.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// One of the library's policies.
    Text(Replacement),
    /// Each byte `b` of an ill-formed sequence as U+DC00+`b`.
    Escape,
}

/// What `decode` does with an ill-formed sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handler {
    /// Raise `UnicodeDecodeError`.
    Strict,
    /// Replace it.
    Repair(Policy),
}

/// The names `repair` takes, as the command's `--replacement` does.
const REPAIR_NAMES: &str = "maximal-subpart (std, whatwg), jvm (java), per-byte (go), \
     windows-1252 (cp1252), latin-1 (iso-8859-1), backslash, drop (ignore), \
     escape (surrogateescape)";

/// The policy `repair` is given: the command's names (crates/utf8guard-cli).
pub fn repair_policy(name: &str) -> PyResult<Policy> {
    match name {
        "escape" | "surrogateescape" => Ok(Policy::Escape),
        _ => Replacement::from_name(name)
            .map(Policy::Text)
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "unknown replacement policy '{name}'; known: {REPAIR_NAMES}"
                ))
            }),
    }
}

/// The error handlers `decode` takes.
const HANDLER_NAMES: &str = "strict, replace, ignore, backslashreplace, surrogateescape, \
     and the repair policies jvm, per-byte, windows-1252, latin-1 (or any name repair() takes)";

/// The error handler `decode` is given: CPython's names for the policies
/// CPython has, and every name `repair` takes for the others.
pub fn decode_handler(name: &str) -> PyResult<Handler> {
    match name {
        "strict" => Ok(Handler::Strict),
        "replace" => Ok(Handler::Repair(Policy::Text(Replacement::MaximalSubpart))),
        "backslashreplace" => Ok(Handler::Repair(Policy::Text(Replacement::Backslash))),
        _ => repair_policy(name).map(Handler::Repair).map_err(|_| {
            PyLookupError::new_err(format!(
                "unknown error handler name '{name}'; known: {HANDLER_NAMES}"
            ))
        }),
    }
}
