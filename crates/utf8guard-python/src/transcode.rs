//! `transcode`: between the dialects of the UTF-8 family, UTF-16, UTF-32,
//! Latin-1 and Windows-1252; the conversion is the core's `Converter`,
//! this file the names, the GIL and CPython's error fields.

use pyo3::exceptions::{PyLookupError, PyUnicodeDecodeError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use utf8guard::{
    ByteOrder, ConvertError, ConvertErrorKind, Converter, Dialect, EncodeError, Encoding, Policy,
    SingleByte,
};

use crate::buffer::Input;

/// The encoding's name in messages (`utf-16-le`, as CPython spells it).
fn name(encoding: Encoding) -> &'static str {
    match encoding {
        Encoding::Utf16(ByteOrder::Little) => "utf-16-le",
        Encoding::Utf16(ByteOrder::Big) => "utf-16-be",
        Encoding::Utf32(ByteOrder::Little) => "utf-32-le",
        Encoding::Utf32(ByteOrder::Big) => "utf-32-be",
        other => other.name(),
    }
}

/// The encoding called `name`: a dialect's name or alias (as `check`
/// takes them), `utf-16`, `utf-16-le`, `utf-16-be`, `utf-32`, `utf-32-le`,
/// `utf-32-be` (any case, `_` or nothing for `-`), or Latin-1 (`latin-1`,
/// `latin1`, `iso-8859-1`, `l1`, `cp819`) or Windows-1252
/// (`windows-1252`, `cp1252`).
fn encoding(name: &str) -> PyResult<Encoding> {
    let folded: String = name
        .chars()
        .filter(|&c| c != '-' && c != '_')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    match folded.as_str() {
        "utf16le" => Ok(Encoding::Utf16(ByteOrder::Little)),
        "utf16be" => Ok(Encoding::Utf16(ByteOrder::Big)),
        "utf16" => Ok(Encoding::Utf16(ByteOrder::Mark)),
        "utf32le" => Ok(Encoding::Utf32(ByteOrder::Little)),
        "utf32be" => Ok(Encoding::Utf32(ByteOrder::Big)),
        "utf32" => Ok(Encoding::Utf32(ByteOrder::Mark)),
        "latin1" | "iso88591" | "l1" | "cp819" => Ok(Encoding::Single(SingleByte::Latin1)),
        "windows1252" | "cp1252" => Ok(Encoding::Single(SingleByte::Windows1252)),
        _ => match Dialect::from_name(name) {
            Some(dialect) => Ok(Encoding::Family(dialect)),
            None => {
                let dialects: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
                Err(PyLookupError::new_err(format!(
                    "unknown encoding: '{name}'; transcode() takes {}, utf-16, utf-16-le, \
                     utf-16-be, utf-32, utf-32-le, utf-32-be, latin-1 (latin1, iso-8859-1, l1, \
                     cp819), windows-1252 (cp1252)",
                    dialects.join(", ")
                )))
            }
        },
    }
}

/// CPython's reason for a byte or character its charmap codecs lack.
const UNDEFINED: &str = "character maps to <undefined>";

/// Where and why a conversion stopped, in bytes of the input.
#[derive(Debug)]
struct Failure {
    start: usize,
    end: usize,
    reason: String,
}

/// `error` of converting `input` from `from` to `to` as CPython's
/// `UnicodeDecodeError` has it: the bytes of the input, and CPython's
/// words where CPython has the codec.
fn failure(
    error: &ConvertError,
    order: Option<ByteOrder>,
    from: Encoding,
    to: Encoding,
    input: &[u8],
) -> Failure {
    let start = error.offset();
    let cut_short = error.error_len().is_none();
    let end = match error.kind() {
        // Into the family's other members (no CPython codec), the
        // surrogate's own 2 bytes, even a lead that the input ends after.
        ConvertErrorKind::Unencodable(EncodeError::Surrogate)
            if matches!(from, Encoding::Utf16(_)) && !cpython_utf16(to) =>
        {
            start + 2
        }
        _ => error.error_len().map_or(input.len(), |n| start + n),
    };
    let reason = match error.kind() {
        ConvertErrorKind::Malformed(_) if from == Encoding::Family(Dialect::Utf8) => {
            // As `crate::unicode_decode_error`.
            match input.get(start) {
                _ if cut_short => "unexpected end of data",
                Some(0xC2..=0xF4) => "invalid continuation byte",
                _ => "invalid start byte",
            }
            .to_owned()
        }
        ConvertErrorKind::Malformed(kind) => kind.description().to_owned(),
        ConvertErrorKind::NotACharacter(0xD800..=0xDFFF) => {
            "code point in surrogate code point range(0xd800, 0xe000)".to_owned()
        }
        ConvertErrorKind::NotACharacter(_) => "code point not in range(0x110000)".to_owned(),
        ConvertErrorKind::TruncatedUnit(_) => "truncated data".to_owned(),
        ConvertErrorKind::Unencodable(EncodeError::Surrogate)
            if matches!(from, Encoding::Utf16(_)) && cpython_utf16(to) =>
        {
            // As CPython's UTF-16 decoder: a low surrogate alone is an
            // "illegal encoding"; a high one cut short by the end the
            // "unexpected end of data", followed by anything but a low one
            // an "illegal UTF-16 surrogate".
            let pair = input.get(start..start + 2).map_or([0, 0], |p| [p[0], p[1]]);
            let unit = if order == Some(ByteOrder::Big) {
                u16::from_be_bytes(pair)
            } else {
                u16::from_le_bytes(pair)
            };
            match unit {
                _ if cut_short => "unexpected end of data",
                0xDC00..=0xDFFF => "illegal encoding",
                _ => "illegal UTF-16 surrogate",
            }
            .to_owned()
        }
        ConvertErrorKind::Unencodable(EncodeError::NotInCharset)
            if matches!(to, Encoding::Single(_)) =>
        {
            match to {
                Encoding::Single(SingleByte::Latin1) => "ordinal not in range(256)",
                _ => UNDEFINED,
            }
            .to_owned()
        }
        ConvertErrorKind::Unencodable(why) => format!("cannot be encoded in the target: {why}"),
        ConvertErrorKind::Reserved => {
            "a reserved FE/FF run, which the target cannot hold".to_owned()
        }
        _ => "cannot be converted".to_owned(),
    };
    Failure { start, end, reason }
}

/// Whether UTF-16 into `to` reads lone surrogates as CPython's UTF-16
/// decoder does (errors): into every target but the family's members
/// other than UTF-8, which keep them (as CPython's `surrogatepass`) or
/// report them in their own words.
fn cpython_utf16(to: Encoding) -> bool {
    !matches!(to, Encoding::Family(d) if d != Dialect::Utf8)
}

/// `data` converted from the encoding `from_` to `to`, as `bytes`.
///
/// Both encodings are any member of the UTF-8 family by the names `check`
/// takes (`utf-8`, `unicode-3.1`, `wtf-8`, `cesu-8`, `mutf-8`, `rfc2279`,
/// `corrected-utf-8`, and their aliases); `utf-16-le`, `utf-16-be`,
/// `utf-32-le`, `utf-32-be` (no byte-order mark; `utf_16_le`, `utf16le`
/// too); `utf-16` and `utf-32`, as CPython's codecs (decoding takes the
/// byte order from a leading BOM and drops it, little-endian without one;
/// encoding writes a BOM, little-endian); `latin-1` (`iso-8859-1`) and
/// `windows-1252` (`cp1252`), WHATWG's mapping, as in `decode` and
/// `repair`: the five bytes CPython's `cp1252` leaves undefined are the C1
/// controls of their value. Between CPython's codecs (UTF-8, UTF-16,
/// UTF-32, Latin-1, `cp1252`) the result is `bytes(data).decode(from_,
/// errors).encode(to, errors)` wherever CPython's has no error for those
/// five (bytes `81`, `8D`, `8F`, `90`, `9D`; U+0081, ...).
///
/// `errors` is `"strict"`, which raises `UnicodeDecodeError` (`encoding`
/// the source's name, `start`/`end` the bytes of the input that could not
/// be read, or whose character the target cannot hold, such as a lone
/// surrogate into UTF-8 or `€` into Latin-1; `reason` CPython's where
/// CPython has the codec), or `"replace"`, which writes U+FFFD for each
/// (one per maximal subpart, as CPython's `replace`), or `?` into Latin-1
/// and Windows-1252. Unknown names raise `LookupError`. Read-only inputs
/// of 64 KiB or more are converted with the GIL released.
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
                "unknown error handler name '{other}'; transcode() takes strict, replace"
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
        Ok(out) => Ok(PyBytes::new(py, &out)),
        Err(f) => {
            let object = PyBytes::new(py, bytes);
            Err(PyUnicodeDecodeError::new_err((
                name(from),
                object.unbind(),
                f.start,
                f.end,
                f.reason,
            )))
        }
    }
}

/// The conversion, its errors as CPython's `decode` then `encode` has
/// them: an error in reading before one in writing.
fn convert(from: Encoding, to: Encoding, input: &[u8], policy: Policy) -> Result<Vec<u8>, Failure> {
    // From UTF-16 into the family's members other than UTF-8, a lone
    // surrogate is the target's to write or refuse (no CPython codec
    // reads first there): errors in the order of the text.
    let reading_first = !matches!(from, Encoding::Utf16(_)) || cpython_utf16(to);
    let mut converter = Converter::new(from, to, policy).with_reading_errors_first(reading_first);
    // Room for the usual case, so that the output is seldom moved.
    let room = match to {
        Encoding::Utf16(_) => 2 * input.len() + 4,
        Encoding::Utf32(_) => 4 * input.len() + 4,
        _ => input.len(),
    };
    let mut out = Vec::with_capacity(room);
    match converter.convert_to_vec(input, &mut out, true) {
        Ok(_) => Ok(out),
        Err(e) => Err(failure(&e, converter.input_byte_order(), from, to, input)),
    }
}
