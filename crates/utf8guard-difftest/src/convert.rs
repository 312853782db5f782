//! The conversions between UTF-8 and the encodings users convert from
//! (Latin-1, Windows-1252, UTF-32), written again for the difftest's
//! subjects: the reference decodes with `core::str::from_utf8` and
//! `String::from_utf8_lossy`, and maps characters with its own
//! Windows-1252 table (the one of [`crate::repair_reference`], from
//! WHATWG's index), not with the library's code.
//!
//! A subject converts its input (read as UTF-8, as the single-byte
//! encoding, or as the UTF-32 text [`units`] makes of it, by the
//! direction) through the `Vec`
//! form, the `_into` form with room for everything, the `_into` form with
//! little room at each call, or (out of UTF-8) pieces of the input with
//! `last` unset until the end; the answer is the output and, under
//! [`Policy::Strict`], where and why it stopped.

use std::fmt;

use utf8guard::{Cause, EncodeError, Policy, Progress, SingleByte, Status, TranscodeError};

use crate::answer::{Answer, Context};
use crate::repair_reference::windows_1252;
use crate::subject::Subject;

/// A conversion and its policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conversion {
    /// UTF-8 to UTF-32 (output: the units as little-endian bytes).
    Utf8ToUtf32(Policy),
    /// UTF-32 (the units [`units`] makes of the input) to UTF-8.
    Utf32ToUtf8(Policy),
    /// UTF-8 to a single-byte encoding.
    Utf8ToSingleByte(SingleByte, Policy),
    /// A single-byte encoding to UTF-8 (every byte is a character).
    SingleByteToUtf8(SingleByte),
}

impl fmt::Display for Conversion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let policy = |p: &Policy| match p {
            Policy::Strict => "strict",
            _ => "replace",
        };
        match self {
            Conversion::Utf8ToUtf32(p) => write!(f, "utf8_to_utf32 ({})", policy(p)),
            Conversion::Utf32ToUtf8(p) => write!(f, "utf32_to_utf8 ({})", policy(p)),
            Conversion::Utf8ToSingleByte(e, p) => {
                write!(f, "utf8_to_single_byte {} ({})", e.name(), policy(p))
            }
            Conversion::SingleByteToUtf8(e) => write!(f, "single_byte_to_utf8 {}", e.name()),
        }
    }
}

/// Why a strict conversion stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// Ill-formed UTF-8 (its kind is the validators' business).
    Malformed,
    /// A character the single-byte encoding has no byte for.
    NotInCharset,
    /// A UTF-32 unit that is a surrogate.
    Surrogate,
    /// A UTF-32 unit above U+10FFFF.
    TooLarge,
}

/// Where (in input bytes, or UTF-32 units), how long (`None`: the input
/// ends inside it) and why a strict conversion stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stop {
    /// The offset of what could not be converted.
    pub offset: usize,
    /// Its length.
    pub len: Option<usize>,
    /// Why.
    pub why: Why,
}

impl Stop {
    /// The stop a library error describes, its offset moved by `base`.
    fn of(error: &TranscodeError, base: usize) -> Stop {
        let why = match error.cause() {
            Cause::Malformed(_) => Why::Malformed,
            Cause::Unencodable(EncodeError::NotInCharset) => Why::NotInCharset,
            Cause::Unencodable(EncodeError::Surrogate) => Why::Surrogate,
            Cause::Unencodable(EncodeError::TooLarge) => Why::TooLarge,
            // Nothing these conversions report.
            _ => return broken(base + error.offset()),
        };
        Stop {
            offset: base + error.offset(),
            len: error.error_len(),
            why,
        }
    }
}

/// A conversion's output and, under [`Policy::Strict`], where it stopped
/// (the output then holds what comes before).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Converted {
    /// The output bytes (UTF-32 units as little-endian bytes).
    pub output: Vec<u8>,
    /// Where a strict conversion stopped.
    pub stop: Option<Stop>,
}

impl fmt::Display for Converted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", crate::answer::hex(&self.output))?;
        if let Some(stop) = self.stop {
            write!(
                f,
                ", stopped at {} ({:?}, {:?})",
                stop.offset, stop.len, stop.why
            )?;
        }
        Ok(())
    }
}

/// The reference: what `conversion` makes of `input`.
pub fn reference(conversion: Conversion, input: &[u8]) -> Converted {
    match conversion {
        Conversion::Utf8ToUtf32(policy) => {
            let (text, stop) = decode(input, policy);
            let output = text
                .chars()
                .flat_map(|c| u32::from(c).to_le_bytes())
                .collect();
            Converted { output, stop }
        }
        Conversion::Utf8ToSingleByte(encoding, policy) => {
            let (text, stop) = decode(input, policy);
            let mut output = Vec::new();
            let mut offset = 0;
            for c in text.chars() {
                match byte_of(encoding, c) {
                    Some(b) => output.push(b),
                    None if policy == Policy::Strict => {
                        let stop = Some(Stop {
                            offset,
                            len: Some(c.len_utf8()),
                            why: Why::NotInCharset,
                        });
                        return Converted { output, stop };
                    }
                    None => output.push(b'?'),
                }
                offset += c.len_utf8();
            }
            Converted { output, stop }
        }
        Conversion::SingleByteToUtf8(encoding) => {
            let text: String = input.iter().map(|&b| char_of(encoding, b)).collect();
            Converted {
                output: text.into_bytes(),
                stop: None,
            }
        }
        Conversion::Utf32ToUtf8(policy) => {
            let mut text = String::new();
            for (i, unit) in units(input).into_iter().enumerate() {
                let why = match unit {
                    0xD800..=0xDFFF => Why::Surrogate,
                    0x11_0000.. => Why::TooLarge,
                    _ => {
                        text.push(char::from_u32(unit).expect("a scalar value"));
                        continue;
                    }
                };
                if policy == Policy::Strict {
                    let stop = Some(Stop {
                        offset: i,
                        len: Some(1),
                        why,
                    });
                    return Converted {
                        output: text.into_bytes(),
                        stop,
                    };
                }
                text.push('\u{FFFD}');
            }
            Converted {
                output: text.into_bytes(),
                stop: None,
            }
        }
    }
}

/// `input` decoded by std: strictly, up to the first error (and where it
/// is), or with U+FFFD for each maximal subpart.
fn decode(input: &[u8], policy: Policy) -> (String, Option<Stop>) {
    if policy != Policy::Strict {
        return (String::from_utf8_lossy(input).into_owned(), None);
    }
    match std::str::from_utf8(input) {
        Ok(text) => (text.to_owned(), None),
        Err(e) => {
            let text = std::str::from_utf8(&input[..e.valid_up_to()]).expect("the valid prefix");
            let stop = Stop {
                offset: e.valid_up_to(),
                len: e.error_len(),
                why: Why::Malformed,
            };
            (text.to_owned(), Some(stop))
        }
    }
}

/// The character `b` is in `encoding`.
fn char_of(encoding: SingleByte, b: u8) -> char {
    match encoding {
        SingleByte::Windows1252 => windows_1252(b),
        _ => char::from(b),
    }
}

/// The byte of `c` in `encoding`: its value where the encoding is
/// Latin-1 there, else a search of Windows-1252's `80`..`9F`.
fn byte_of(encoding: SingleByte, c: char) -> Option<u8> {
    let latin1 = u8::try_from(u32::from(c)).ok();
    match encoding {
        SingleByte::Windows1252 => latin1
            .filter(|&b| char_of(encoding, b) == c)
            .or_else(|| (0x80..=0x9Fu8).find(|&b| char_of(encoding, b) == c)),
        _ => latin1,
    }
}

/// The UTF-32 text an input stands for: its characters read as UTF-8, and
/// for each byte `b` of an ill-formed sequence a unit UTF-32 cannot hold:
/// from `80`..`BF` a surrogate (`D800 + 16 * (b - 80)`), from `C0` up a
/// value above U+10FFFF (`110000 + b`, and `FFFFFFFF` for `FF`). Text in
/// every script, with bad units where the input has bad bytes.
pub fn units(bytes: &[u8]) -> Vec<u32> {
    let mut units = Vec::new();
    for chunk in bytes.utf8_chunks() {
        units.extend(chunk.valid().chars().map(u32::from));
        units.extend(chunk.invalid().iter().map(|&b| match b {
            0x80..=0xBF => 0xD800 + 16 * u32::from(b - 0x80),
            0xFF => u32::MAX,
            _ => 0x11_0000 + u32::from(b),
        }));
    }
    units
}

/// Every conversion, both policies where there are two.
pub fn conversions() -> Vec<Conversion> {
    let mut all = Vec::new();
    for policy in [Policy::Strict, Policy::Replace] {
        all.push(Conversion::Utf8ToUtf32(policy));
        all.push(Conversion::Utf32ToUtf8(policy));
        for encoding in [SingleByte::Latin1, SingleByte::Windows1252] {
            all.push(Conversion::Utf8ToSingleByte(encoding, policy));
        }
    }
    for encoding in [SingleByte::Latin1, SingleByte::Windows1252] {
        all.push(Conversion::SingleByteToUtf8(encoding));
    }
    all
}

/// One subject per conversion (see the module's documentation for the
/// forms it picks from): a harness of their own in the bounded test
/// `tests/conversions.rs` and the fuzz target `convert`. (Not in the
/// registry, whose every input they would add ten conversions to.)
pub fn conversion_subjects() -> Vec<Subject> {
    conversions()
        .into_iter()
        .map(|conversion| {
            Subject::new(conversion.to_string(), move |input, cx| {
                Answer::Converted(conversion, Box::new(convert(conversion, input, cx)))
            })
        })
        .collect()
}

/// The library's answer, through a form picked at random.
fn convert(conversion: Conversion, input: &[u8], cx: &mut Context) -> Converted {
    match conversion {
        Conversion::Utf8ToUtf32(policy) => {
            let (units, stop) = from_utf8(input, cx, 0u32, |input, out, last| {
                utf8guard::utf8_to_utf32_into(input, policy, out, last)
            });
            let vec_form = |units: &mut Vec<u32>| utf8guard::utf8_to_utf32(input, policy, units);
            let (units, stop) = or_vec_form(units, stop, cx, vec_form);
            Converted {
                output: units.iter().flat_map(|u| u.to_le_bytes()).collect(),
                stop,
            }
        }
        Conversion::Utf8ToSingleByte(encoding, policy) => {
            let (output, stop) = from_utf8(input, cx, 0u8, |input, out, last| {
                utf8guard::utf8_to_single_byte_into(encoding, input, policy, out, last)
            });
            let vec_form =
                |out: &mut Vec<u8>| utf8guard::utf8_to_single_byte(encoding, input, policy, out);
            let (output, stop) = or_vec_form(output, stop, cx, vec_form);
            Converted { output, stop }
        }
        Conversion::SingleByteToUtf8(encoding) => {
            if cx.rng.one_in(3) {
                cx.note = "Vec form".into();
                let mut output = Vec::new();
                utf8guard::single_byte_to_utf8(encoding, input, &mut output);
                return Converted { output, stop: None };
            }
            let (output, stop) = into_utf8(input, 3, cx, |input, out| {
                utf8guard::single_byte_to_utf8_into(encoding, input, out)
            });
            Converted { output, stop }
        }
        Conversion::Utf32ToUtf8(policy) => {
            let units = units(input);
            if cx.rng.one_in(3) {
                cx.note = "Vec form".into();
                let mut output = Vec::new();
                let stop = utf8guard::utf32_to_utf8(&units, policy, &mut output)
                    .err()
                    .map(|e| Stop::of(&e, 0));
                return Converted { output, stop };
            }
            let (output, stop) = into_utf8(&units, 4, cx, |input, out| {
                utf8guard::utf32_to_utf8_into(input, policy, out)
            });
            Converted { output, stop }
        }
    }
}

/// The `Vec` form's answer instead of the `_into` one's, one time in three.
fn or_vec_form<T>(
    into: Vec<T>,
    stop: Option<Stop>,
    cx: &mut Context,
    vec_form: impl FnOnce(&mut Vec<T>) -> Result<(), TranscodeError>,
) -> (Vec<T>, Option<Stop>) {
    if !cx.rng.one_in(3) {
        return (into, stop);
    }
    cx.note = "Vec form".into();
    let mut out = Vec::new();
    let stop = vec_form(&mut out).err().map(|e| Stop::of(&e, 0));
    (out, stop)
}

/// Out of UTF-8 through an `_into` form `call(input, output, last)`: one
/// call with room for everything; calls with up to 8 units of room each;
/// or the input in random pieces, each passed with what the last call
/// left unread, `last` set with the final one. Said in `cx.note`.
fn from_utf8<T: Copy>(
    input: &[u8],
    cx: &mut Context,
    zero: T,
    mut call: impl FnMut(&[u8], &mut [T], bool) -> Progress,
) -> (Vec<T>, Option<Stop>) {
    let mut out = Vec::new();
    match cx.rng.below(3) {
        0 => {
            cx.note = "_into, room for all".into();
            let mut buf = vec![zero; input.len()];
            let p = call(input, &mut buf, true);
            out.extend_from_slice(&buf[..p.written]);
            match p.result {
                Err(e) => (out, Some(Stop::of(&e, 0))),
                Ok(Status::InputEmpty) if p.read == input.len() => (out, None),
                Ok(_) => (out, Some(broken(p.read))),
            }
        }
        1 => {
            let most = cx.rng.range(1, 8);
            cx.note = format!("_into, room for at most {most} units a call");
            let mut at = 0;
            let mut buf = vec![zero; most];
            loop {
                let room = cx.rng.range(1, most);
                let p = call(&input[at..], &mut buf[..room], true);
                out.extend_from_slice(&buf[..p.written]);
                match p.result {
                    Err(e) => return (out, Some(Stop::of(&e, at))),
                    Ok(Status::OutputFull) if p.read > 0 => at += p.read,
                    Ok(Status::InputEmpty) if at + p.read == input.len() => return (out, None),
                    Ok(_) => return (out, Some(broken(at + p.read))),
                }
            }
        }
        _ => {
            let pieces = crate::subject::random_pieces(input, cx);
            let mut pending: Vec<u8> = Vec::new();
            let mut consumed = 0;
            let count = pieces.len();
            for (i, piece) in pieces.into_iter().enumerate() {
                pending.extend_from_slice(piece);
                let last = i + 1 == count;
                let mut buf = vec![zero; pending.len()];
                let p = call(&pending, &mut buf, last);
                out.extend_from_slice(&buf[..p.written]);
                match p.result {
                    Err(e) => return (out, Some(Stop::of(&e, consumed))),
                    Ok(Status::InputEmpty) => {}
                    Ok(_) => return (out, Some(broken(consumed + p.read))),
                }
                consumed += p.read;
                pending.drain(..p.read);
            }
            if pending.is_empty() {
                (out, None)
            } else {
                (out, Some(broken(consumed)))
            }
        }
    }
}

/// Into UTF-8 through an `_into` form `call(input, output)` that writes
/// whole characters of up to `widest` bytes: one call with room for
/// everything, or calls with a little room each.
fn into_utf8<T>(
    input: &[T],
    widest: usize,
    cx: &mut Context,
    mut call: impl FnMut(&[T], &mut [u8]) -> Progress,
) -> (Vec<u8>, Option<Stop>) {
    let most = if cx.rng.one_in(2) {
        widest * input.len()
    } else {
        cx.rng.range(widest, widest + 12)
    };
    cx.note = format!("_into, room for at most {most} bytes a call");
    let mut out = Vec::new();
    let mut buf = vec![0u8; most];
    let mut at = 0;
    loop {
        let room = cx.rng.range(widest.min(most), most);
        let p = call(&input[at..], &mut buf[..room]);
        out.extend_from_slice(&buf[..p.written]);
        match p.result {
            Err(e) => return (out, Some(Stop::of(&e, at))),
            Ok(Status::OutputFull) if p.read > 0 => at += p.read,
            Ok(Status::InputEmpty) if at + p.read == input.len() => return (out, None),
            Ok(_) => return (out, Some(broken(at + p.read))),
        }
    }
}

/// A stop no conversion should report (never equal to the reference's):
/// a call that returned without finishing or progressing, or a cause these
/// conversions do not have.
fn broken(at: usize) -> Stop {
    Stop {
        offset: at,
        len: Some(usize::MAX),
        why: Why::Malformed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference on inputs whose answers are known by heart.
    #[test]
    fn reference_cases() {
        let strict = Conversion::Utf8ToSingleByte(SingleByte::Latin1, Policy::Strict);
        let got = reference(strict, "café €".as_bytes());
        assert_eq!(got.output, b"caf\xE9 ");
        assert_eq!(
            got.stop,
            Some(Stop {
                offset: 6,
                len: Some(3),
                why: Why::NotInCharset
            })
        );
        let cp1252 = Conversion::Utf8ToSingleByte(SingleByte::Windows1252, Policy::Replace);
        assert_eq!(
            reference(cp1252, "€\u{81}\u{80}x\u{FF}".as_bytes()).output,
            b"\x80\x81?x\xFF"
        );
        let from = Conversion::SingleByteToUtf8(SingleByte::Windows1252);
        assert_eq!(
            reference(from, b"\x80\x9D\xE9").output,
            "€\u{9D}é".as_bytes()
        );
        let to32 = Conversion::Utf8ToUtf32(Policy::Strict);
        let got = reference(to32, b"a\xF0\x9F");
        assert_eq!(got.output, [0x61, 0, 0, 0]);
        assert_eq!(got.stop.map(|s| (s.offset, s.len)), Some((1, None)));
        let input = "a\u{FFFD}\u{FFFD}😀".as_bytes();
        assert_eq!(
            units(b"a\x80\xC0\xFF\xF0\x9F\x98\x80"),
            [0x61, 0xD800, 0x11_00C0, u32::MAX, 0x1F600]
        );
        let from32 = Conversion::Utf32ToUtf8(Policy::Replace);
        assert_eq!(
            reference(from32, b"a\x80\xC0\xF0\x9F\x98\x80").output,
            input
        );
        let strict = Conversion::Utf32ToUtf8(Policy::Strict);
        let got = reference(strict, b"ab\xC0");
        assert_eq!(got.output, b"ab");
        assert_eq!(
            got.stop.map(|s| (s.offset, s.why)),
            Some((2, Why::TooLarge))
        );
    }
}
