//! `transcode`: between the dialects of the UTF-8 family and UTF-16.

use std::borrow::Cow;

use pyo3::exceptions::{PyLookupError, PyUnicodeDecodeError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use utf8guard::{Cause, Dialect, Policy, TranscodeError};

use crate::buffer::Input;
use crate::names;

/// An encoding `transcode` reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Encoding {
    /// A dialect of the UTF-8 family.
    Family(Dialect),
    /// UTF-16, little-endian (`true`) or big-endian, without a BOM.
    Utf16 { little: bool },
}

impl Encoding {
    fn name(self) -> &'static str {
        match self {
            Encoding::Family(dialect) => dialect.name(),
            Encoding::Utf16 { little: true } => "utf-16-le",
            Encoding::Utf16 { little: false } => "utf-16-be",
        }
    }
}

/// The encoding called `name`: a dialect's name or alias (as `check`
/// takes them), or `utf-16-le`/`utf-16-be` (`utf-16le`, `utf_16_le`,
/// `utf16le`, ...).
fn encoding(name: &str) -> PyResult<Encoding> {
    let folded: String = name
        .chars()
        .filter(|&c| c != '-' && c != '_')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    match folded.as_str() {
        "utf16le" => Ok(Encoding::Utf16 { little: true }),
        "utf16be" => Ok(Encoding::Utf16 { little: false }),
        _ => names::dialect(name).map(Encoding::Family),
    }
}

/// Where and why a conversion stopped, in bytes of the input.
struct Failure {
    start: usize,
    end: usize,
    reason: String,
}

impl Failure {
    /// `error`, its offsets in bytes of an input of `len` bytes.
    fn of(error: &TranscodeError, len: usize) -> Failure {
        let start = error.offset();
        Failure {
            start,
            end: error.error_len().map_or(len, |n| start + n),
            reason: reason(error.cause()),
        }
    }
}

/// The cause in words.
fn reason(cause: Cause) -> String {
    match cause {
        Cause::Malformed(kind) => kind.description().to_owned(),
        Cause::Unencodable(why) => format!("cannot be encoded in the target: {why}"),
        Cause::Reserved => "a reserved FE/FF run, which the target cannot hold".to_owned(),
        _ => "cannot be converted".to_owned(),
    }
}

/// `data` converted from the encoding `from_` to `to`, as `bytes`.
///
/// Both encodings are any member of the UTF-8 family by the names `check`
/// takes (`utf-8`, `unicode-3.1`, `wtf-8`, `cesu-8`, `mutf-8`, `rfc2279`,
/// `corrected-utf-8`, and their aliases), or `utf-16-le` / `utf-16-be`
/// (UTF-16 without a byte-order mark; `utf-16le`, `utf_16_le` too).
///
/// `errors` is `"strict"`, which raises `UnicodeDecodeError` (`encoding`
/// the source's name, `start`/`end` the bytes of the input that could not
/// be read, or whose code point the target cannot hold, such as a lone
/// surrogate into UTF-8), or `"replace"`, which writes U+FFFD for each
/// (one per maximal subpart, as CPython's `replace`). Unknown names raise
/// `LookupError`. Read-only inputs of 64 KiB or more are converted with
/// the GIL released.
#[pyfunction]
#[pyo3(signature = (data, /, from_, to, errors = "strict"))]
pub fn transcode<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    from_: &str,
    to: &str,
    errors: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let from = encoding(from_)?;
    let to = encoding(to)?;
    let policy = match errors {
        "strict" => Policy::Strict,
        "replace" => Policy::Replace,
        other => {
            return Err(PyLookupError::new_err(format!(
                "unknown error handler name '{other}'; transcode() takes strict or replace"
            )))
        }
    };
    let input = Input::new(data)?;
    let bytes = input.bytes();
    let result = if crate::detach(&input) {
        // As in `validate`: the export is held across the call.
        py.detach(|| convert(from, to, bytes, policy))
    } else {
        convert(from, to, bytes, policy)
    };
    match result {
        Ok(out) => Ok(PyBytes::new(py, out.as_bytes())),
        Err(f) => {
            let object = PyBytes::new(py, bytes);
            Err(PyUnicodeDecodeError::new_err((
                from.name(),
                object.unbind(),
                f.start,
                f.end,
                f.reason,
            )))
        }
    }
}

/// The conversion: between dialects directly; UTF-16 through WTF-8, which
/// holds every sequence of UTF-16 code units.
fn convert(from: Encoding, to: Encoding, input: &[u8], policy: Policy) -> Result<Output, Failure> {
    match (from, to) {
        (Encoding::Family(a), Encoding::Family(b)) => utf8guard::transcode(a, b, input, policy)
            .map(Output::Bytes)
            .map_err(|e| Failure::of(&e, input.len())),
        (Encoding::Family(a), Encoding::Utf16 { little }) => {
            // Strict UTF-8 is WTF-8 without lone surrogates: valid UTF-8
            // (the usual case, checked with the vector kernel) goes
            // straight to UTF-16; invalid UTF-8 takes the transcoder, for
            // its errors and replacements.
            let wtf8: Cow<'_, [u8]> =
                if a == Dialect::Wtf8 || (a == Dialect::Utf8 && utf8guard::validate(input)) {
                    Cow::Borrowed(input)
                } else {
                    let out = utf8guard::transcode(a, Dialect::Wtf8, input, policy)
                        .map_err(|e| Failure::of(&e, input.len()))?;
                    Cow::Owned(out)
                };
            let mut units = Vec::new();
            // WTF-8 written by the transcoder is well formed: an error is
            // of WTF-8 input, whose offsets are the input's.
            utf8guard::wtf8_to_utf16(&wtf8, policy, &mut units)
                .map_err(|e| Failure::of(&e, input.len()))?;
            Ok(Output::Utf16(units_to_bytes(units, little)))
        }
        (Encoding::Utf16 { little }, to) => {
            let mut units: Vec<u16> = input
                .chunks_exact(2)
                .map(|pair| {
                    let pair = [pair[0], pair[1]];
                    if little {
                        u16::from_le_bytes(pair)
                    } else {
                        u16::from_be_bytes(pair)
                    }
                })
                .collect();
            if input.len() % 2 == 1 {
                match policy {
                    Policy::Strict => {
                        // What was before the odd byte must convert first:
                        // the first error is the earliest.
                        convert_units(&units, to, Policy::Strict)?;
                        return Err(Failure {
                            start: input.len() - 1,
                            end: input.len(),
                            reason: "truncated data".to_owned(),
                        });
                    }
                    // As CPython: one U+FFFD for the odd byte.
                    Policy::Replace => units.push(0xFFFD),
                }
            }
            convert_units(&units, to, policy)
        }
    }
}

/// UTF-16 code units to `to`, through WTF-8; an error's offsets in bytes
/// of the UTF-16 input.
fn convert_units(units: &[u16], to: Encoding, policy: Policy) -> Result<Output, Failure> {
    let mut wtf8 = Vec::new();
    utf8guard::utf16_to_wtf8(units, &mut wtf8);
    let family = match to {
        Encoding::Family(Dialect::Wtf8) => return Ok(Output::Bytes(wtf8)),
        Encoding::Family(dialect) => dialect,
        // UTF-16 to UTF-16: through strict UTF-8, which checks for lone
        // surrogates.
        Encoding::Utf16 { .. } => Dialect::Utf8,
    };
    let out = utf8guard::transcode(Dialect::Wtf8, family, &wtf8, policy).map_err(|e| {
        let start = 2 * units_before(&wtf8, e.offset());
        let end = match e.error_len() {
            Some(n) => 2 * units_before(&wtf8, e.offset() + n),
            None => 2 * units.len(),
        };
        Failure {
            start,
            end,
            reason: reason(e.cause()),
        }
    })?;
    match to {
        Encoding::Utf16 { little } => {
            let mut units = Vec::new();
            utf8guard::wtf8_to_utf16(&out, Policy::Strict, &mut units)
                .map_err(|e| Failure::of(&e, out.len()))?;
            Ok(Output::Utf16(units_to_bytes(units, little)))
        }
        Encoding::Family(_) => Ok(Output::Bytes(out)),
    }
}

/// How many UTF-16 code units the well-formed WTF-8 `wtf8[..at]` holds: one
/// per sequence, two for a 4-byte one.
fn units_before(wtf8: &[u8], at: usize) -> usize {
    wtf8[..at.min(wtf8.len())]
        .iter()
        .map(|&b| match b {
            0x80..=0xBF => 0,
            0xF0..=0xFF => 2,
            _ => 1,
        })
        .sum()
}

/// Code units as bytes in the byte order asked.
///
/// Each unit is rewritten in place as the native `u16` whose bytes in
/// memory are the unit's in that order (a no-op, or a byte swap), and the
/// vector is then read as bytes: no second buffer.
fn units_to_bytes(mut units: Vec<u16>, little: bool) -> Utf16Bytes {
    for unit in &mut units {
        *unit = u16::from_ne_bytes(if little {
            unit.to_le_bytes()
        } else {
            unit.to_be_bytes()
        });
    }
    Utf16Bytes(units)
}

/// UTF-16 code units stored so that their bytes in memory are the encoded
/// text (see `units_to_bytes`).
struct Utf16Bytes(Vec<u16>);

impl Utf16Bytes {
    fn as_bytes(&self) -> &[u8] {
        // SAFETY: the pointer is the vector's, valid for reads of its
        // `len * 2` initialised bytes (a `u16` has no padding; `u8` needs
        // no alignment), borrowed for as long as `self` is.
        unsafe { std::slice::from_raw_parts(self.0.as_ptr().cast::<u8>(), self.0.len() * 2) }
    }
}

/// The output of a conversion: bytes of a dialect, or UTF-16.
enum Output {
    Bytes(Vec<u8>),
    Utf16(Utf16Bytes),
}

impl Output {
    fn as_bytes(&self) -> &[u8] {
        match self {
            Output::Bytes(bytes) => bytes,
            Output::Utf16(units) => units.as_bytes(),
        }
    }
}
