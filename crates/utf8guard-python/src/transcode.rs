//! `transcode`: between the dialects of the UTF-8 family, UTF-16, UTF-32,
//! Latin-1 and Windows-1252.

use std::borrow::Cow;

use pyo3::exceptions::{PyLookupError, PyUnicodeDecodeError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use utf8guard::{Cause, Dialect, EncodeError, Policy, SingleByte, TranscodeError, Transcoder};

use crate::buffer::Input;

/// The byte order of UTF-16 or UTF-32: fixed, or (`Bom`, CPython's
/// `utf-16` and `utf-32`) read from a byte-order mark, which decoding
/// drops (little-endian without one) and encoding writes (little-endian).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    Little,
    Big,
    Bom,
}

/// An encoding `transcode` reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Encoding {
    /// A dialect of the UTF-8 family.
    Family(Dialect),
    /// UTF-16.
    Utf16(Order),
    /// UTF-32.
    Utf32(Order),
    /// Latin-1, or Windows-1252 as WHATWG maps it (the library's, and
    /// `decode`'s and `repair`'s policy): the five bytes CPython's `cp1252`
    /// leaves undefined (`81`, `8D`, `8F`, `90`, `9D`) are the C1 controls
    /// of their value, both ways.
    Single(SingleByte),
}

impl Encoding {
    fn name(self) -> &'static str {
        match self {
            Encoding::Family(dialect) => dialect.name(),
            Encoding::Utf16(Order::Little) => "utf-16-le",
            Encoding::Utf16(Order::Big) => "utf-16-be",
            Encoding::Utf16(Order::Bom) => "utf-16",
            Encoding::Utf32(Order::Little) => "utf-32-le",
            Encoding::Utf32(Order::Big) => "utf-32-be",
            Encoding::Utf32(Order::Bom) => "utf-32",
            Encoding::Single(single) => single.name(),
        }
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
        "utf16le" => Ok(Encoding::Utf16(Order::Little)),
        "utf16be" => Ok(Encoding::Utf16(Order::Big)),
        "utf16" => Ok(Encoding::Utf16(Order::Bom)),
        "utf32le" => Ok(Encoding::Utf32(Order::Little)),
        "utf32be" => Ok(Encoding::Utf32(Order::Big)),
        "utf32" => Ok(Encoding::Utf32(Order::Bom)),
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

impl Failure {
    /// `error`, its offsets in bytes of an input of `len` bytes.
    fn of(error: &TranscodeError, len: usize) -> Failure {
        let start = error.offset();
        Failure {
            start,
            end: error.error_len().map_or(len, |n| start + n),
            reason: reason(error.cause(), None),
        }
    }
}

/// The cause in words; for a character that `to` cannot hold, CPython's
/// words when `to` is one of its codecs.
fn reason(cause: Cause, to: Option<Encoding>) -> String {
    match (cause, to) {
        (Cause::Unencodable(EncodeError::NotInCharset), Some(Encoding::Single(single))) => {
            match single {
                SingleByte::Latin1 => "ordinal not in range(256)".to_owned(),
                _ => UNDEFINED.to_owned(),
            }
        }
        (Cause::Malformed(kind), _) => kind.description().to_owned(),
        (Cause::Unencodable(why), _) => format!("cannot be encoded in the target: {why}"),
        (Cause::Reserved, _) => "a reserved FE/FF run, which the target cannot hold".to_owned(),
        _ => "cannot be converted".to_owned(),
    }
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

/// The conversion: between dialects directly; otherwise the input is
/// decoded whole to WTF-8 (which holds every dialect's code points and
/// every sequence of UTF-16 code units), then encoded, so that, as with
/// CPython's `decode` then `encode`, an error in reading comes before one
/// in writing.
fn convert(from: Encoding, to: Encoding, input: &[u8], policy: Policy) -> Result<Output, Failure> {
    if let (Encoding::Family(a), Encoding::Family(b)) = (from, to) {
        return utf8guard::transcode(a, b, input, policy)
            .map(Output::Bytes)
            .map_err(|e| match e.cause() {
                Cause::Malformed(_) => cpython_reason(from, input, Failure::of(&e, input.len())),
                _ => Failure::of(&e, input.len()),
            });
    }
    // UTF-16 into a target that holds no lone surrogates (as CPython's
    // codecs): each is an error in reading, before the odd byte, and
    // before any in writing; a high surrogate and an odd byte after it
    // are one error.
    let cpython_utf16 = matches!(from, Encoding::Utf16(_))
        && !matches!(to, Encoding::Family(d) if d != Dialect::Utf8);
    let mut pivot =
        decode(from, input, policy, cpython_utf16).map_err(|f| cpython_reason(from, input, f))?;
    if cpython_utf16 {
        let repaired = match pivot
            .utf8(input, from, policy)
            .map_err(|f| cpython_reason(from, input, f))?
        {
            Cow::Owned(text) => Some(text),
            Cow::Borrowed(_) => None,
        };
        if let Some(text) = repaired {
            pivot.text = Cow::Owned(text);
        }
        pivot.utf8 = true;
        if let Some(failure) = pivot.pending.take() {
            return Err(failure);
        }
    }
    let out = encode(&pivot, from, to, input, policy)?;
    match pivot.pending {
        Some(failure) => Err(failure),
        None => Ok(out),
    }
}

/// `failure` of reading UTF-8 or UTF-16 with CPython's reason (for UTF-8,
/// see `crate::unicode_decode_error`); any other as it is.
fn cpython_reason(from: Encoding, input: &[u8], mut failure: Failure) -> Failure {
    if let Encoding::Utf16(order) = from {
        let (little, _) = byte_order(order, input, 2);
        let at = failure.start;
        let Some(pair) = input.get(at..at + 2) else {
            return failure;
        };
        let pair = [pair[0], pair[1]];
        let unit = if little {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        };
        // As CPython's UTF-16 decoder: a low surrogate alone is an
        // "illegal encoding"; a high one without a whole unit after it the
        // "unexpected end of data" (to the end), followed by anything but
        // a low one an "illegal UTF-16 surrogate".
        let (reason, end) = match unit {
            0xDC00..=0xDFFF => ("illegal encoding", at + 2),
            0xD800..=0xDBFF if input.len() < at + 4 => ("unexpected end of data", input.len()),
            0xD800..=0xDBFF => ("illegal UTF-16 surrogate", at + 2),
            _ => return failure,
        };
        failure.reason = reason.to_owned();
        failure.end = end;
        return failure;
    }
    if from == Encoding::Family(Dialect::Utf8) && failure.start < input.len() {
        failure.reason = if failure.end == input.len() && !utf8_complete(&input[failure.start..]) {
            "unexpected end of data"
        } else {
            match input[failure.start] {
                0xC2..=0xF4 => "invalid continuation byte",
                _ => "invalid start byte",
            }
        }
        .to_owned();
    }
    failure
}

/// Whether `tail`, a maximal subpart of ill-formed UTF-8 that runs to the
/// input's end, is not cut short: false when more bytes could complete it.
fn utf8_complete(tail: &[u8]) -> bool {
    utf8guard::from_utf8(tail).map_or_else(|e| e.error_len().is_some(), |_| true)
}

/// The input decoded to WTF-8, and how to find the input's bytes of a
/// character of it.
struct Pivot<'a> {
    text: Cow<'a, [u8]>,
    /// The text is strict UTF-8 (no lone surrogates).
    utf8: bool,
    map: Map,
    /// An error at the input's end (an odd byte of UTF-16), raised only if
    /// nothing before it fails: as CPython's UTF-16 decoder finds a lone
    /// surrogate before it.
    pending: Option<Failure>,
}

/// Where the character at an offset of the pivot starts in the input.
#[derive(Clone, Copy, Debug)]
enum Map {
    /// The pivot is the input.
    Same,
    /// `skip` bytes (a BOM), then `width` bytes a character.
    Fixed { skip: usize, width: usize },
    /// `skip` bytes, then UTF-16: 2 bytes a code unit.
    Utf16 { skip: usize },
    /// The input is in this dialect: its transcoder to WTF-8 says how
    /// much of it makes the pivot's first bytes.
    Family(Dialect),
}

impl Pivot<'_> {
    /// The input offset of the character at `at` of the (well-formed)
    /// pivot.
    fn input_offset(&self, input: &[u8], at: usize) -> usize {
        match self.map {
            Map::Same => at,
            Map::Fixed { skip, width } => skip + width * chars_before(&self.text, at),
            Map::Utf16 { skip } => skip + 2 * units_before(&self.text, at),
            Map::Family(dialect) => {
                if at == 0 {
                    return 0;
                }
                // Only on an error: the input is transcoded again into a
                // buffer that holds the pivot's first `at` bytes; the
                // transcoder writes whole characters, and says how much
                // input they took.
                let mut buf = vec![0; at];
                Transcoder::new(dialect, Dialect::Wtf8, Policy::Strict)
                    .transcode(input, &mut buf, true)
                    .read
            }
        }
    }

    /// `error` of converting the pivot, in bytes of the input.
    fn failure(
        &self,
        input: &[u8],
        error: &TranscodeError,
        offset: usize,
        to: Encoding,
    ) -> Failure {
        let start = offset + error.offset();
        let end = error.error_len().map_or(self.text.len(), |n| start + n);
        Failure {
            start: self.input_offset(input, start),
            end: self.input_offset(input, end),
            reason: reason(error.cause(), Some(to)),
        }
    }

    /// The pivot as strict UTF-8: itself (checked with the vector kernel
    /// when it may hold lone surrogates), or with each lone surrogate an
    /// error (or U+FFFD).
    fn utf8(&self, input: &[u8], to: Encoding, policy: Policy) -> Result<Cow<'_, [u8]>, Failure> {
        if self.utf8 || utf8guard::validate(&self.text) {
            return Ok(Cow::Borrowed(&self.text));
        }
        utf8guard::transcode(Dialect::Wtf8, Dialect::Utf8, &self.text, policy)
            .map(Cow::Owned)
            .map_err(|e| self.failure(input, &e, 0, to))
    }
}

/// How many characters the well-formed WTF-8 `text[..at]` holds.
fn chars_before(text: &[u8], at: usize) -> usize {
    text[..at.min(text.len())]
        .iter()
        .filter(|&&b| !(0x80..=0xBF).contains(&b))
        .count()
}

/// The byte order of UTF-16 (`unit` 2) or UTF-32 (`unit` 4) input, and
/// the length of its BOM (dropped).
fn byte_order(order: Order, input: &[u8], unit: usize) -> (bool, usize) {
    let (le, be): (&[u8], &[u8]) = if unit == 2 {
        (b"\xFF\xFE", b"\xFE\xFF")
    } else {
        (b"\xFF\xFE\x00\x00", b"\x00\x00\xFE\xFF")
    };
    match order {
        Order::Little => (true, 0),
        Order::Big => (false, 0),
        Order::Bom if input.starts_with(le) => (true, unit),
        Order::Bom if input.starts_with(be) => (false, unit),
        Order::Bom => (true, 0),
    }
}

/// U+FFFD in UTF-8.
const REPLACEMENT: &[u8] = "\u{FFFD}".as_bytes();

/// `input` in `from` decoded to WTF-8; for UTF-16 with `merge_tail`, a high
/// surrogate and an odd byte after it are left as one lone surrogate.
fn decode(
    from: Encoding,
    input: &[u8],
    policy: Policy,
    merge_tail: bool,
) -> Result<Pivot<'_>, Failure> {
    let owned = |text: Vec<u8>, utf8: bool, map: Map| Pivot {
        text: Cow::Owned(text),
        utf8,
        map,
        pending: None,
    };
    match from {
        Encoding::Family(dialect) => {
            let same = match dialect {
                Dialect::Utf8 => utf8guard::validate(input),
                Dialect::Wtf8 => Dialect::Wtf8.check(input).is_ok(),
                _ => false,
            };
            if same {
                return Ok(Pivot {
                    text: Cow::Borrowed(input),
                    utf8: dialect == Dialect::Utf8,
                    map: Map::Same,
                    pending: None,
                });
            }
            let text = utf8guard::transcode(dialect, Dialect::Wtf8, input, policy)
                .map_err(|e| Failure::of(&e, input.len()))?;
            Ok(owned(text, false, Map::Family(dialect)))
        }
        Encoding::Single(single) => {
            // Every byte has a character, in both encodings.
            let mut text = Vec::with_capacity(input.len());
            utf8guard::single_byte_to_utf8(single, input, &mut text);
            Ok(owned(text, true, Map::Fixed { skip: 0, width: 1 }))
        }
        Encoding::Utf32(order) => {
            let (little, skip) = byte_order(order, input, 4);
            let body = &input[skip..];
            let units: Vec<u32> = body
                .chunks_exact(4)
                .map(|q| {
                    let q = [q[0], q[1], q[2], q[3]];
                    if little {
                        u32::from_le_bytes(q)
                    } else {
                        u32::from_be_bytes(q)
                    }
                })
                .collect();
            let mut text = Vec::with_capacity(body.len());
            utf8guard::utf32_to_utf8(&units, policy, &mut text).map_err(|e| {
                let start = skip + 4 * e.offset();
                let reason = match e.cause() {
                    Cause::Unencodable(EncodeError::Surrogate) => {
                        "code point in surrogate code point range(0xd800, 0xe000)"
                    }
                    _ => "code point not in range(0x110000)",
                };
                Failure {
                    start,
                    end: start + 4,
                    reason: reason.to_owned(),
                }
            })?;
            if !body.len().is_multiple_of(4) {
                match policy {
                    Policy::Strict => {
                        return Err(Failure {
                            start: input.len() - body.len() % 4,
                            end: input.len(),
                            reason: "truncated data".to_owned(),
                        })
                    }
                    // As CPython: one U+FFFD for the 1 to 3 bytes.
                    _ => text.extend_from_slice(REPLACEMENT),
                }
            }
            Ok(owned(text, true, Map::Fixed { skip, width: 4 }))
        }
        Encoding::Utf16(order) => {
            let (little, skip) = byte_order(order, input, 2);
            let body = &input[skip..];
            let units: Vec<u16> = body
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
            let mut text = Vec::with_capacity(body.len() * 3 / 2);
            utf8guard::utf16_to_wtf8(&units, &mut text);
            let mut pending = None;
            let high_last = units.last().is_some_and(|u| (0xD800..=0xDBFF).contains(u));
            if body.len() % 2 == 1 && !(merge_tail && high_last) {
                match policy {
                    Policy::Strict => {
                        pending = Some(Failure {
                            start: input.len() - 1,
                            end: input.len(),
                            reason: "truncated data".to_owned(),
                        })
                    }
                    // As CPython: one U+FFFD for the odd byte.
                    _ => text.extend_from_slice(REPLACEMENT),
                }
            }
            Ok(Pivot {
                text: Cow::Owned(text),
                utf8: false,
                map: Map::Utf16 { skip },
                pending,
            })
        }
    }
}

/// The pivot encoded in `to`.
fn encode(
    pivot: &Pivot<'_>,
    from: Encoding,
    to: Encoding,
    input: &[u8],
    policy: Policy,
) -> Result<Output, Failure> {
    match to {
        Encoding::Family(Dialect::Wtf8) => Ok(Output::Bytes(pivot.text.to_vec())),
        Encoding::Family(dialect) => {
            utf8guard::transcode(Dialect::Wtf8, dialect, &pivot.text, policy)
                .map(Output::Bytes)
                .map_err(|e| pivot.failure(input, &e, 0, to))
        }
        Encoding::Utf16(order) => {
            // UTF-16 holds lone surrogates, and keeps those of the family's
            // dialects that have them (as CPython's `surrogatepass`); from
            // UTF-16, they are errors, as CPython's decoder makes them.
            let text = if matches!(from, Encoding::Utf16(_)) {
                pivot.utf8(input, to, policy)?
            } else {
                Cow::Borrowed(&pivot.text[..])
            };
            let mut units = Vec::with_capacity(text.len() + 1);
            if order == Order::Bom {
                units.push(0xFEFF);
            }
            // Well-formed WTF-8: no error.
            utf8guard::wtf8_to_utf16(&text, policy, &mut units)
                .map_err(|e| pivot.failure(input, &e, 0, to))?;
            Ok(Output::Utf16(units_to_bytes(units, order != Order::Big)))
        }
        Encoding::Utf32(order) => {
            let text = pivot.utf8(input, to, policy)?;
            let mut units = Vec::with_capacity(text.len() + 1);
            if order == Order::Bom {
                units.push(0xFEFF);
            }
            // Strict UTF-8: no error.
            utf8guard::utf8_to_utf32(&text, policy, &mut units)
                .map_err(|e| pivot.failure(input, &e, 0, to))?;
            let little = order != Order::Big;
            let mut out = Vec::with_capacity(units.len() * 4);
            for unit in units {
                out.extend_from_slice(&if little {
                    unit.to_le_bytes()
                } else {
                    unit.to_be_bytes()
                });
            }
            Ok(Output::Bytes(out))
        }
        Encoding::Single(single) => {
            let text = pivot.utf8(input, to, policy)?;
            let mut out = Vec::with_capacity(text.len());
            utf8guard::utf8_to_single_byte(single, &text, policy, &mut out)
                .map_err(|e| single_failure(pivot, input, &text, &e, 0, single))?;
            Ok(Output::Bytes(out))
        }
    }
}

/// `error` of writing the UTF-8 `text[at..]` in `single`, as CPython's
/// charmap encoders report it: over the whole run of characters the
/// encoding lacks.
fn single_failure(
    pivot: &Pivot<'_>,
    input: &[u8],
    text: &[u8],
    error: &TranscodeError,
    at: usize,
    single: SingleByte,
) -> Failure {
    let start = at + error.offset();
    Failure {
        start: pivot.input_offset(input, start),
        end: pivot.input_offset(input, unencodable_run(text, start, single)),
        reason: reason(error.cause(), Some(Encoding::Single(single))),
    }
}

/// Where the run of characters that `single` lacks,
/// from the one at `start` of the UTF-8 `text`, ends.
fn unencodable_run(text: &[u8], start: usize, single: SingleByte) -> usize {
    // The text is UTF-8: the run's characters are decoded one at a time.
    let rest = std::str::from_utf8(&text[start..]).unwrap_or("");
    let mut end = start;
    for c in rest.chars() {
        if single.encode(c).is_some() {
            break;
        }
        end += c.len_utf8();
    }
    end.max(start + 1)
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
