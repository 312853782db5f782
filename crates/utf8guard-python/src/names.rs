//! The names that the Python functions take: encodings (the dialects of
//! the UTF-8 family), error handlers and repair policies.
//!
//! Each function's `LookupError` lists exactly the names that function
//! takes, so that no message offers a name the function then refuses.

use pyo3::exceptions::PyLookupError;
use pyo3::prelude::*;
use utf8guard::{Dialect, Replacement};

/// The dialect called `name` (any name or alias that
/// [`Dialect::from_name`] knows, in any case, `_` for `-`), for `check`.
pub fn dialect(name: &str) -> PyResult<Dialect> {
    Dialect::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
        PyLookupError::new_err(format!(
            "unknown encoding: '{name}'; check() takes {}",
            known.join(", ")
        ))
    })
}

/// What `decode` decodes: UTF-8, with or without a leading byte-order mark
/// dropped (CPython's `utf-8-sig`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoding {
    /// UTF-8.
    Utf8,
    /// UTF-8 after a leading `EF BB BF`, if there is one.
    Utf8Sig,
}

/// The encodings `decode` takes.
const DECODE_ENCODINGS: &str = "utf-8 and utf-8-sig, by any name codecs.lookup() gives them \
     (utf8, u8, utf, cp65001, utf_8_sig, ...); check() validates the other dialects";

/// The encoding `decode` is given: the library's names of strict UTF-8, or
/// any name CPython's `codecs.lookup` resolves to `utf-8` or `utf-8-sig`
/// (its aliases, `u8` and `cp65001` among them), asked of CPython only
/// for a name other than the common spellings.
pub fn decoding(py: Python<'_>, name: &str) -> PyResult<Decoding> {
    if matches!(name, "utf-8" | "utf8" | "UTF-8" | "utf_8") {
        return Ok(Decoding::Utf8);
    }
    if Dialect::from_name(name) == Some(Dialect::Utf8) {
        return Ok(Decoding::Utf8);
    }
    let unknown = || {
        PyLookupError::new_err(format!(
            "unknown encoding: '{name}'; decode() takes {DECODE_ENCODINGS}"
        ))
    };
    let codec = py
        .import("codecs")?
        .call_method1("lookup", (name,))
        .map_err(|_| unknown())?;
    match codec.getattr("name")?.extract::<String>()?.as_str() {
        "utf-8" => Ok(Decoding::Utf8),
        "utf-8-sig" => Ok(Decoding::Utf8Sig),
        _ => Err(unknown()),
    }
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

/// Every policy by its names: the library's (the command's
/// `--replacement`) and CPython's error handlers of the same effect.
const POLICIES: &[(&[&str], Policy)] = &[
    (
        &["maximal-subpart", "replace", "std", "whatwg"],
        Policy::Text(Replacement::MaximalSubpart),
    ),
    (&["jvm", "java"], Policy::Text(Replacement::Jvm)),
    (&["per-byte", "go"], Policy::Text(Replacement::PerByte)),
    (
        &["windows-1252", "cp1252"],
        Policy::Text(Replacement::Windows1252),
    ),
    (
        &["latin-1", "iso-8859-1"],
        Policy::Text(Replacement::Latin1),
    ),
    (
        &["backslash", "backslashreplace"],
        Policy::Text(Replacement::Backslash),
    ),
    (&["drop", "ignore"], Policy::Text(Replacement::Drop)),
    (&["escape", "surrogateescape"], Policy::Escape),
];

/// The policy called `name`, by any of its names: the library's reading
/// (any case, `_` for `-`, the aliases the command and the SQL functions
/// take), and the surrogate escape's.
pub fn policy(name: &str) -> Option<Policy> {
    if let Some(replacement) = Replacement::from_name(name) {
        return Some(Policy::Text(replacement));
    }
    ["escape", "surrogateescape"]
        .iter()
        .any(|known| known.eq_ignore_ascii_case(name))
        .then_some(Policy::Escape)
}

/// The policies' names, each as `name (alias, ...)`, but those `skip`
/// refuses.
fn policy_names(skip: impl Fn(Policy) -> bool) -> String {
    let listed: Vec<String> = POLICIES
        .iter()
        .filter(|&&(_, policy)| !skip(policy))
        .map(|(names, _)| format!("{} ({})", names[0], names[1..].join(", ")))
        .collect();
    listed.join(", ")
}

/// The policy `repair` and `repair_file` are given: every name of
/// `POLICIES`, which `decode` takes too.
pub fn repair_policy(name: &str) -> PyResult<Policy> {
    policy(name).ok_or_else(|| {
        PyLookupError::new_err(format!(
            "unknown replacement policy '{name}'; repair() takes {}",
            policy_names(|_| false)
        ))
    })
}

/// What `decode` does with an ill-formed sequence.
#[derive(Debug)]
pub enum Handler {
    /// Raise `UnicodeDecodeError`.
    Strict,
    /// Replace it.
    Repair(Policy),
    /// CPython's `surrogatepass`: a surrogate's 3-byte form is that
    /// surrogate; any other ill-formed sequence raises as `Strict`.
    SurrogatePass,
    /// A handler registered with `codecs.register_error`, called as
    /// CPython's decoders call it.
    Registered(Py<PyAny>),
}

/// The error handler `decode` is given: `strict`, `surrogatepass`, a
/// policy by any name `repair` takes, or else a handler registered with
/// `codecs.register_error` (looked up at once: an unknown name raises
/// before the input is read, where CPython waits for the first error).
pub fn decode_handler(py: Python<'_>, name: &str) -> PyResult<Handler> {
    match name {
        "strict" => return Ok(Handler::Strict),
        "surrogatepass" => return Ok(Handler::SurrogatePass),
        _ => {}
    }
    if let Some(policy) = policy(name) {
        return Ok(Handler::Repair(policy));
    }
    match py.import("codecs")?.call_method1("lookup_error", (name,)) {
        Ok(handler) => Ok(Handler::Registered(handler.unbind())),
        Err(e) if e.is_instance_of::<PyLookupError>(py) => Err(PyLookupError::new_err(format!(
            "unknown error handler name '{name}'; decode() takes strict, surrogatepass, {}, \
             or the name of a handler registered with codecs.register_error()",
            policy_names(|_| false)
        ))),
        Err(e) => Err(e),
    }
}

/// The `errors` the Arrow functions take: `strict`, `null`, and every
/// policy that writes UTF-8 (not the surrogate escape, which the caller
/// refuses with its reason).
pub fn arrow_policy(name: &str) -> PyResult<Option<Policy>> {
    if name == "strict" || name == "null" {
        return Ok(None);
    }
    policy(name).map(Some).ok_or_else(|| {
        PyLookupError::new_err(format!(
            "unknown error handler name '{name}'; binary_to_string() and \
             batch_binary_to_string() take strict, null, {}",
            policy_names(|p| p == Policy::Escape)
        ))
    })
}
