//! `utf8guard convert`: from one member of the UTF-8 family (or UTF-16) to
//! another, streamed in constant memory, written to a temporary file that
//! is renamed into place only once the whole input is converted.

use std::fs::{self, File};
use std::io::{self, IsTerminal, Read, Write};
use std::path::Path;

use utf8guard::{Cause, Dialect, EncodeError, Policy, TranscodeError, Transcoder};

use crate::args::convert::{ConvertArgs, Format};
use crate::family;
use crate::io_error::io_message;
use crate::output::Output;
use crate::path_name::message_name;

/// Bytes read at a time.
const PIECE: usize = 64 << 10;

impl Format {
    fn title(self) -> &'static str {
        match self {
            Format::Family(d) => family::title(d),
            Format::Utf16 { big_endian: false } => "UTF-16LE",
            Format::Utf16 { big_endian: true } => "UTF-16BE",
        }
    }
}

/// Why a conversion stopped.
#[derive(Debug)]
enum Failure {
    /// The input cannot be converted: the message names the offset and
    /// the cause (exit status 1).
    Input(String),
    /// The input could not be read.
    Read(io::Error),
    /// The output could not be written.
    Write(io::Error),
}

/// Runs `convert`; returns the exit status.
pub fn run(args: &ConvertArgs) -> u8 {
    let policy = if args.replace {
        Policy::Replace
    } else {
        Policy::Strict
    };
    let mut converter = match Converter::new(args.from, args.to, policy, args.magic_number) {
        Ok(c) => c,
        Err(message) => {
            eprintln!("utf8guard: {message}");
            return 2;
        }
    };
    let input = args.input.as_deref().unwrap_or(Path::new("-"));
    let output = args.output.as_deref().filter(|p| p.as_os_str() != "-");
    match convert(input, output, args.force, &mut converter) {
        Ok(()) => {
            let (count, first) = converter.replacements();
            if let Some(first) = first {
                let what = if count == 1 { "sequence" } else { "sequences" };
                eprintln!(
                    "utf8guard: {}: {count} {what} replaced with U+FFFD, the first at byte {first}",
                    message_name(input)
                );
            }
            0
        }
        Err(Outcome::Closed) => 2,
        Err(Outcome::Status(status, message)) => {
            eprintln!("utf8guard: {message}");
            status
        }
    }
}

/// How a failed run ends.
enum Outcome {
    /// Standard output was closed by its reader: stop quietly.
    Closed,
    /// A status and the message for stderr.
    Status(u8, String),
}

fn trouble(message: String) -> Outcome {
    Outcome::Status(2, message)
}

fn convert(
    input: &Path,
    output: Option<&Path>,
    force: bool,
    converter: &mut Converter,
) -> Result<(), Outcome> {
    let stdin = input.as_os_str() == "-";
    let in_name = message_name(input);
    let cannot_read = |e: io::Error| trouble(format!("{in_name}: {}", io_message(&e)));
    let (reader, meta): (Box<dyn Read>, Option<fs::Metadata>) = if stdin {
        if io::stdin().is_terminal() {
            eprintln!("utf8guard: reading standard input (end it with Ctrl-D; --help for usage)");
        }
        // A closed descriptor is an error, not an empty input.
        let meta = match crate::output::stdin_metadata() {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::Unsupported => None,
            Err(e) => return Err(cannot_read(e)),
        };
        crate::pipe::widen(io::stdin());
        (Box::new(io::stdin().lock()), meta)
    } else {
        let file = File::open(input).map_err(cannot_read)?;
        let meta = file.metadata().map_err(cannot_read)?;
        if meta.is_dir() {
            return Err(trouble(format!("{in_name}: is a directory")));
        }
        crate::pipe::widen(&file);
        (Box::new(file), Some(meta))
    };
    if let (Some(out), Some(meta)) = (output, &meta) {
        crate::output::refuse_input(out, meta, "convert").map_err(trouble)?;
    }
    let out_name = output.map_or("standard output".into(), message_name);
    let mut writer = Output::open(output, PIECE, force).map_err(trouble)?;
    // Only a whole conversion replaces a file OUT: after any failure the
    // temporary file is removed as `writer` drops.
    let result = converter
        .stream(reader, &mut writer)
        .and_then(|()| writer.finish().map_err(Failure::Write));
    result.map_err(|failure| match failure {
        Failure::Input(message) => Outcome::Status(1, format!("{in_name}: {message}")),
        Failure::Read(e) => trouble(format!("{in_name}: read error: {}", io_message(&e))),
        Failure::Write(e) if output.is_none() && e.kind() == io::ErrorKind::BrokenPipe => {
            Outcome::Closed
        }
        Failure::Write(e) => trouble(format!("{out_name}: write error: {}", io_message(&e))),
    })
}

/// One conversion, fed the input a piece at a time.
enum Converter {
    /// Between two members of the family.
    Family {
        transcoder: Transcoder,
        from: Dialect,
        to: Dialect,
    },
    /// WTF-8 (or, first validated by a transcoder to WTF-8, UTF-8) to
    /// UTF-16.
    ToUtf16 {
        first: Option<(Transcoder, Vec<u8>)>,
        stage: Wtf8ToUtf16,
    },
    /// UTF-16 to WTF-8 or UTF-8.
    FromUtf16(Utf16ToWtf8),
}

impl Converter {
    fn new(from: Format, to: Format, policy: Policy, magic: bool) -> Result<Converter, String> {
        if magic && to != Format::Family(Dialect::Corrected) {
            return Err(format!(
                "--magic-number: only Corrected UTF-8 has a magic number, not {}",
                to.title()
            ));
        }
        let wtf8_or_utf8 = |f| matches!(f, Format::Family(Dialect::Wtf8 | Dialect::Utf8));
        match (from, to) {
            (Format::Family(from), Format::Family(to)) => Ok(Converter::Family {
                transcoder: Transcoder::new(from, to, policy).with_magic_number(magic),
                from,
                to,
            }),
            (Format::Family(d), Format::Utf16 { big_endian }) if wtf8_or_utf8(from) => {
                Ok(Converter::ToUtf16 {
                    // UTF-8 is validated (and repaired, with Replace) by a
                    // transcoder to WTF-8 first; so is WTF-8 with Replace,
                    // which counts what it replaces.
                    first: (d == Dialect::Utf8 || policy == Policy::Replace)
                        .then(|| (Transcoder::new(d, Dialect::Wtf8, policy), Vec::new())),
                    stage: Wtf8ToUtf16::new(big_endian, policy),
                })
            }
            (Format::Utf16 { big_endian }, Format::Family(d)) if wtf8_or_utf8(to) => Ok(
                Converter::FromUtf16(Utf16ToWtf8::new(big_endian, d == Dialect::Utf8, policy)),
            ),
            _ => Err(format!(
                "cannot convert {} to {}: UTF-16 converts to and from utf-8 and wtf-8 only",
                from.title(),
                to.title()
            )),
        }
    }

    /// Converts what it can of `input` (all of it with `last`), appending
    /// to `out`; returns how many bytes of `input` it read. What is left is
    /// a tail that more input may complete, to be given again.
    fn feed(&mut self, input: &[u8], last: bool, out: &mut Vec<u8>) -> Result<usize, Failure> {
        match self {
            Converter::Family {
                transcoder,
                from,
                to,
            } => transcoder.transcode_to_vec(input, out, last).map_err(|e| {
                Failure::Input(transcode_message(
                    &e,
                    Format::Family(*from),
                    Format::Family(*to),
                ))
            }),
            Converter::ToUtf16 { first, stage } => match first {
                None => stage.feed(input, last, out),
                Some((t, mid)) => {
                    let first_result = t.transcode_to_vec(input, mid, last);
                    // Valid WTF-8 now: the second stage finds no error. On
                    // an error of the first, `mid` holds whole characters:
                    // all of it goes through.
                    let done = match first_result {
                        Ok(read) => last && read == input.len(),
                        Err(_) => true,
                    };
                    let used = stage.feed(mid, done, out)?;
                    mid.drain(..used);
                    first_result.map_err(|e| {
                        let to = Format::Utf16 {
                            big_endian: stage.big_endian,
                        };
                        Failure::Input(transcode_message(&e, Format::Family(Dialect::Utf8), to))
                    })
                }
            },
            Converter::FromUtf16(stage) => stage.feed(input, last, out),
        }
    }

    /// How many sequences were replaced with U+FFFD, and the offset in the
    /// input of the first.
    fn replacements(&self) -> (u64, Option<usize>) {
        match self {
            Converter::Family { transcoder, .. }
            | Converter::ToUtf16 {
                first: Some((transcoder, _)),
                ..
            } => (transcoder.replacements(), transcoder.first_replacement()),
            Converter::ToUtf16 { first: None, .. } => (0, None),
            Converter::FromUtf16(stage) => (stage.replaced, stage.first_replaced),
        }
    }

    /// Converts all of `reader` into `writer`, a piece at a time.
    fn stream(&mut self, mut reader: impl Read, writer: &mut impl Write) -> Result<(), Failure> {
        let mut buf = vec![0u8; PIECE];
        let mut out = Vec::with_capacity(PIECE * 2);
        let mut len = 0;
        loop {
            let n = match reader.read(&mut buf[len..]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Failure::Read(e)),
            };
            len += n;
            let last = n == 0;
            out.clear();
            // On an error, `out` holds the conversion of what came before
            // it, which goes out first (to standard output; a file is
            // removed anyway).
            let fed = self.feed(&buf[..len], last, &mut out);
            writer.write_all(&out).map_err(Failure::Write)?;
            let read = fed?;
            if last {
                return Ok(());
            }
            buf.copy_within(read..len, 0);
            len -= read;
        }
    }
}

/// The message for a transcoder's error.
fn transcode_message(e: &TranscodeError, from: Format, to: Format) -> String {
    let at = e.offset();
    match e.cause() {
        Cause::Malformed(kind) => {
            let what = match from {
                Format::Family(d) => family::describe(kind, d),
                Format::Utf16 { .. } => kind.description().to_owned(),
            };
            format!("invalid {} at byte {at}: {what}", from.title())
        }
        Cause::Unencodable(why) => unencodable(at, to, why),
        Cause::Reserved => format!(
            "cannot convert to {} at byte {at}: reserved FE/FF run, which only Corrected \
             UTF-8 holds",
            to.title()
        ),
        _ => format!("cannot convert to {}: {e}", to.title()),
    }
}

fn unencodable(at: usize, to: Format, why: EncodeError) -> String {
    format!("cannot convert to {} at byte {at}: {why}", to.title())
}

/// Where WTF-8 `bytes`, of which more follow, can be cut so that
/// converting the two sides apart gives what converting them together
/// does: before an unfinished sequence in the last 3 bytes (as `repair`
/// cuts), and before a lead surrogate that ends the rest, which a trail
/// surrogate in the next piece would make an error (WTF-8 writes that pair
/// as a 4-byte form).
fn wtf8_cut(bytes: &[u8]) -> usize {
    let mut cut = utf8guard::trim_partial_utf8(bytes);
    if cut >= 3
        && bytes[cut - 3] == 0xED
        && (0xA0..=0xAF).contains(&bytes[cut - 2])
        && bytes[cut - 1] & 0xC0 == 0x80
    {
        cut -= 3;
    }
    cut
}

/// WTF-8 to UTF-16, a piece at a time.
struct Wtf8ToUtf16 {
    big_endian: bool,
    policy: Policy,
    /// Bytes read by earlier calls.
    consumed: usize,
    units: Vec<u16>,
}

impl Wtf8ToUtf16 {
    fn new(big_endian: bool, policy: Policy) -> Self {
        Wtf8ToUtf16 {
            big_endian,
            policy,
            consumed: 0,
            units: Vec::new(),
        }
    }

    fn feed(&mut self, input: &[u8], last: bool, out: &mut Vec<u8>) -> Result<usize, Failure> {
        let cut = if last { input.len() } else { wtf8_cut(input) };
        self.units.clear();
        let result = utf8guard::wtf8_to_utf16(&input[..cut], self.policy, &mut self.units);
        // The units before an error too.
        put_units(&self.units, self.big_endian, out);
        result.map_err(|e| {
            let at = self.consumed + e.offset();
            let Cause::Malformed(kind) = e.cause() else {
                unreachable!("WTF-8 to UTF-16 fails only on ill-formed input")
            };
            let what = family::describe(kind, Dialect::Wtf8);
            Failure::Input(format!("invalid WTF-8 at byte {at}: {what}"))
        })?;
        self.consumed += cut;
        Ok(cut)
    }
}

fn put_units(units: &[u16], big_endian: bool, out: &mut Vec<u8>) {
    out.reserve(units.len() * 2);
    for &u in units {
        let bytes = if big_endian {
            u.to_be_bytes()
        } else {
            u.to_le_bytes()
        };
        out.extend_from_slice(&bytes);
    }
}

/// UTF-16 to WTF-8 (or UTF-8, where a lone surrogate is an error or
/// U+FFFD), a piece at a time.
struct Utf16ToWtf8 {
    big_endian: bool,
    strict_utf8: bool,
    policy: Policy,
    /// Bytes read by earlier calls.
    consumed: usize,
    units: Vec<u16>,
    /// U+FFFD written in place of what could not be converted.
    replaced: u64,
    /// The input offset of the first thing replaced.
    first_replaced: Option<usize>,
}

const REPLACEMENT: &[u8] = "\u{FFFD}".as_bytes();

impl Utf16ToWtf8 {
    fn new(big_endian: bool, strict_utf8: bool, policy: Policy) -> Self {
        Utf16ToWtf8 {
            big_endian,
            strict_utf8,
            policy,
            consumed: 0,
            units: Vec::new(),
            replaced: 0,
            first_replaced: None,
        }
    }

    /// Writes U+FFFD for what starts at input offset `at`.
    fn replace(&mut self, at: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(REPLACEMENT);
        self.replaced += 1;
        self.first_replaced.get_or_insert(at);
    }

    fn feed(&mut self, input: &[u8], last: bool, out: &mut Vec<u8>) -> Result<usize, Failure> {
        self.units.clear();
        self.units.extend(input.chunks_exact(2).map(|pair| {
            let pair = [pair[0], pair[1]];
            if self.big_endian {
                u16::from_be_bytes(pair)
            } else {
                u16::from_le_bytes(pair)
            }
        }));
        // A lead surrogate at the end may pair with the next piece's first
        // unit: it waits for it.
        if !last && self.units.last().is_some_and(|&u| is_lead(u)) {
            self.units.pop();
        }
        let mut done = 0;
        if self.strict_utf8 {
            while let Some(lone) = first_lone_surrogate(&self.units[done..]) {
                let at = done + lone;
                utf8guard::utf16_to_wtf8(&self.units[done..at], out);
                if self.policy == Policy::Strict {
                    let offset = self.consumed + 2 * at;
                    return Err(Failure::Input(unencodable(
                        offset,
                        Format::Family(Dialect::Utf8),
                        EncodeError::Surrogate,
                    )));
                }
                self.replace(self.consumed + 2 * at, out);
                done = at + 1;
            }
        }
        utf8guard::utf16_to_wtf8(&self.units[done..], out);
        let mut read = 2 * self.units.len();
        if last && input.len() % 2 == 1 {
            let at = self.consumed + read;
            if self.policy == Policy::Strict {
                let name = if self.big_endian {
                    "UTF-16BE"
                } else {
                    "UTF-16LE"
                };
                return Err(Failure::Input(format!(
                    "invalid {name} at byte {at}: input ends inside a 2-byte code unit"
                )));
            }
            self.replace(at, out);
            read += 1;
        }
        self.consumed += read;
        Ok(read)
    }
}

fn is_lead(unit: u16) -> bool {
    (0xD800..0xDC00).contains(&unit)
}

/// The index of the first surrogate in `units` that is not half of a pair.
fn first_lone_surrogate(units: &[u16]) -> Option<usize> {
    let mut i = 0;
    while i < units.len() {
        let u = units[i];
        if is_lead(u)
            && units
                .get(i + 1)
                .is_some_and(|n| (0xDC00..0xE000).contains(n))
        {
            i += 2;
        } else if (0xD800..0xE000).contains(&u) {
            return Some(i);
        } else {
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::convert::parse_format;
    use crate::repair::tests::Trickle;

    fn run_with(
        from: &str,
        to: &str,
        replace: bool,
        data: &[u8],
        step: usize,
    ) -> Result<Vec<u8>, String> {
        let policy = if replace {
            Policy::Replace
        } else {
            Policy::Strict
        };
        let from = parse_format(from).unwrap();
        let to = parse_format(to).unwrap();
        let mut c = Converter::new(from, to, policy, false).unwrap();
        let mut out = Vec::new();
        match c.stream(Trickle { data, step }, &mut out) {
            Ok(()) => Ok(out),
            Err(Failure::Input(m)) => Err(m),
            Err(other) => panic!("{other:?}"),
        }
    }

    /// The same answer whatever the reads' sizes.
    fn same_at_every_step(
        from: &str,
        to: &str,
        replace: bool,
        data: &[u8],
    ) -> Result<Vec<u8>, String> {
        let whole = run_with(from, to, replace, data, usize::MAX);
        for step in 1..=data.len().max(1) {
            assert_eq!(
                run_with(from, to, replace, data, step),
                whole,
                "{from} -> {to}, step {step}"
            );
        }
        whole
    }

    fn utf16le(units: &[u16]) -> Vec<u8> {
        units.iter().flat_map(|u| u.to_le_bytes()).collect()
    }

    #[test]
    fn wtf8_to_utf16_in_pieces() {
        // a, a lone lead, a pair as 4 bytes, a lone trail, euro.
        let wtf8 = b"a\xED\xA0\x80\xF0\x9F\x98\x80\xED\xB0\x80\xE2\x82\xAC";
        let units = [0x61, 0xD800, 0xD83D, 0xDE00, 0xDC00, 0x20AC];
        assert_eq!(
            same_at_every_step("wtf-8", "utf-16le", false, wtf8),
            Ok(utf16le(&units))
        );
        let be: Vec<u8> = units.iter().flat_map(|u| u.to_be_bytes()).collect();
        assert_eq!(same_at_every_step("wtf-8", "utf-16be", false, wtf8), Ok(be));
        // A lead then a trail, as 3-byte forms: not WTF-8, in any pieces.
        let pair = b"x\xED\xA0\xBD\xED\xB8\x80";
        assert_eq!(
            same_at_every_step("wtf-8", "utf-16le", false, pair),
            Err(
                "invalid WTF-8 at byte 4: surrogate pair, which must be a 4-byte sequence here"
                    .into()
            )
        );
        assert_eq!(
            same_at_every_step("wtf-8", "utf-16le", true, pair),
            Ok(utf16le(&[0x78, 0xD83D, 0xFFFD, 0xFFFD, 0xFFFD]))
        );
    }

    #[test]
    fn utf16_to_wtf8_and_utf8_in_pieces() {
        let units = [0x61, 0xD83D, 0xDE00, 0xDC00, 0xD800];
        let bytes = utf16le(&units);
        assert_eq!(
            same_at_every_step("utf-16le", "wtf-8", false, &bytes),
            Ok(b"a\xF0\x9F\x98\x80\xED\xB0\x80\xED\xA0\x80".to_vec())
        );
        assert_eq!(
            same_at_every_step("utf-16le", "utf-8", false, &bytes),
            Err("cannot convert to UTF-8 at byte 6: surrogate code point, which this encoding cannot hold".into())
        );
        assert_eq!(
            same_at_every_step("utf-16le", "utf-8", true, &bytes),
            Ok("a😀\u{FFFD}\u{FFFD}".as_bytes().to_vec())
        );
        let odd = [&bytes[..6], b"\x41"].concat();
        assert_eq!(
            same_at_every_step("utf-16le", "wtf-8", false, &odd),
            Err("invalid UTF-16LE at byte 6: input ends inside a 2-byte code unit".into())
        );
        assert_eq!(
            same_at_every_step("utf-16le", "wtf-8", true, &odd),
            Ok("a😀\u{FFFD}".as_bytes().to_vec())
        );
    }

    #[test]
    fn utf8_to_utf16_is_validated_first() {
        assert_eq!(
            same_at_every_step("utf-8", "utf-16be", false, "é😀".as_bytes()),
            Ok(vec![0x00, 0xE9, 0xD8, 0x3D, 0xDE, 0x00])
        );
        // A lone surrogate is WTF-8 but not UTF-8.
        assert_eq!(
            same_at_every_step("utf-8", "utf-16le", false, b"ab\xED\xA0\x80"),
            Err("invalid UTF-8 at byte 2: UTF-16 surrogate code point".into())
        );
        assert_eq!(
            same_at_every_step("utf-8", "utf-16le", true, b"ab\xED\xA0\x80"),
            Ok(utf16le(&[0x61, 0x62, 0xFFFD, 0xFFFD, 0xFFFD]))
        );
    }

    #[test]
    fn family_conversions_in_pieces() {
        let cesu = b"smile \xED\xA0\xBD\xED\xB8\x80!";
        assert_eq!(
            same_at_every_step("cesu-8", "utf-8", false, cesu),
            Ok("smile 😀!".as_bytes().to_vec())
        );
        // Corrected UTF-8: the magic number dropped, or written, and a
        // reserved run kept, whatever the reads.
        let corrected = b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0A\xC0\xAF\xFE\x80\x80\x80!";
        assert_eq!(
            same_at_every_step("corrected-utf-8", "corrected-utf-8", false, corrected),
            Ok(b"\xC0\xAF\xFE\x80\x80\x80!".to_vec())
        );
        assert_eq!(
            same_at_every_step("corrected-utf-8", "utf-8", true, corrected),
            Ok("Ï\u{FFFD}!".as_bytes().to_vec())
        );
        assert_eq!(
            same_at_every_step("corrected-utf-8", "utf-8", false, corrected),
            Err(
                "cannot convert to UTF-8 at byte 10: reserved FE/FF run, which only Corrected \
                 UTF-8 holds"
                    .into()
            )
        );
        assert_eq!(
            same_at_every_step("cesu-8", "utf-8", false, b"ok\xED\xA0\xBDx"),
            Err("invalid CESU-8 at byte 2: surrogate that is not half of a surrogate pair".into())
        );
    }

    #[test]
    fn unsupported_pairs_are_refused() {
        let f = |s| parse_format(s).unwrap();
        let err = Converter::new(f("utf-16le"), f("cesu-8"), Policy::Strict, false).err();
        assert_eq!(
            err.as_deref(),
            Some("cannot convert UTF-16LE to CESU-8: UTF-16 converts to and from utf-8 and wtf-8 only")
        );
        let err = Converter::new(f("utf-8"), f("cesu-8"), Policy::Strict, true).err();
        assert_eq!(
            err.as_deref(),
            Some("--magic-number: only Corrected UTF-8 has a magic number, not CESU-8")
        );
        assert!(parse_format("utf-32").is_err());
    }

    #[test]
    fn what_comes_before_an_error_is_written() {
        let cases: [(&str, &str, &[u8], &[u8]); 5] = [
            ("cesu-8", "utf-8", b"ok\xED\xA0\xBDx", b"ok"),
            (
                "utf-8",
                "utf-16be",
                b"abcd\xC0xxxxxxxx",
                b"\x00a\x00b\x00c\x00d",
            ),
            // A lead, then a trail where WTF-8 needs the 4-byte form.
            (
                "wtf-8",
                "utf-16le",
                b"ab\xED\xA0\x80\xED\xB0\x80",
                b"a\x00b\x00\x00\xD8",
            ),
            ("utf-8", "utf-16be", b"a\xC0", b"\x00a"),
            ("utf-16le", "utf-8", b"a\x00\x00\xD8b\x00", b"a"),
        ];
        for (from, to, data, before) in cases {
            for step in 1..=data.len() {
                let policy = Policy::Strict;
                let (from_f, to_f) = (parse_format(from).unwrap(), parse_format(to).unwrap());
                let mut c = Converter::new(from_f, to_f, policy, false).unwrap();
                let mut out = Vec::new();
                let result = c.stream(Trickle { data, step }, &mut out);
                assert!(
                    matches!(result, Err(Failure::Input(_))),
                    "{from} step {step}"
                );
                assert_eq!(out, before, "{from} -> {to}, step {step}");
            }
        }
    }

    /// Inputs made of the fragments where the conversions differ: pairs
    /// and lone surrogates, `C0 80`, 4-byte forms, reserved runs, stray
    /// and cut-short bytes, the magic number.
    fn soup(seed: u64, count: usize) -> Vec<Vec<u8>> {
        const BITS: [&[u8]; 14] = [
            b"a",
            b"\n",
            b"\xC3\xA9",
            b"\xE2\x82\xAC",
            b"\xF0\x9F\x98\x80",
            b"\xED\xA0\xBD",
            b"\xED\xB8\x80",
            b"\xC0\x80",
            b"\xC0\xAF",
            b"\xFE\x80\x80",
            b"\x80",
            b"\xF0\x9F",
            b"\x00",
            b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0A",
        ];
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..count)
            .map(|_| {
                let len = next() % 24;
                (0..len)
                    .flat_map(|_| BITS[(next() % BITS.len() as u64) as usize].iter().copied())
                    .collect()
            })
            .collect()
    }

    /// What `stream` writes and how it ends, reading `step` bytes at a time.
    fn streamed(c: &mut Converter, data: &[u8], step: usize) -> (Vec<u8>, Option<String>) {
        let mut out = Vec::new();
        match c.stream(Trickle { data, step }, &mut out) {
            Ok(()) => (out, None),
            Err(Failure::Input(m)) => (out, Some(m)),
            Err(other) => panic!("{other:?}"),
        }
    }

    #[test]
    fn streaming_matches_the_whole_input_conversion() {
        let pairs = [
            (Dialect::Cesu8, Dialect::Utf8),
            (Dialect::Utf8, Dialect::Cesu8),
            (Dialect::Mutf8, Dialect::Utf8),
            (Dialect::Wtf8, Dialect::Utf8),
            (Dialect::Corrected, Dialect::Utf8),
            (Dialect::Utf8, Dialect::Corrected),
            (Dialect::Corrected, Dialect::Corrected),
        ];
        for (i, data) in soup(0x9E37_79B9_7F4A_7C15, 300).iter().enumerate() {
            let step = 1 + i % 7;
            for (from, to) in pairs {
                for policy in [Policy::Strict, Policy::Replace] {
                    let mut c =
                        Converter::new(Format::Family(from), Format::Family(to), policy, false)
                            .unwrap();
                    let (out, error) = streamed(&mut c, data, step);
                    match utf8guard::transcode(from, to, data, policy) {
                        Ok(whole) => {
                            assert_eq!((out, error), (whole, None), "{from}->{to} {data:02X?}")
                        }
                        Err(e) => {
                            let expected =
                                transcode_message(&e, Format::Family(from), Format::Family(to));
                            assert_eq!(error, Some(expected), "{from}->{to} {data:02X?}");
                        }
                    }
                }
            }
            for policy in [Policy::Strict, Policy::Replace] {
                let mut c = Converter::new(
                    Format::Family(Dialect::Wtf8),
                    Format::Utf16 { big_endian: false },
                    policy,
                    false,
                )
                .unwrap();
                let (out, error) = streamed(&mut c, data, step);
                let mut units = Vec::new();
                let whole = utf8guard::wtf8_to_utf16(data, policy, &mut units);
                assert_eq!(error.is_some(), whole.is_err(), "{data:02X?}");
                if let Err(e) = whole {
                    assert!(error.unwrap().contains(&format!("at byte {}:", e.offset())));
                } else {
                    let mut bytes = Vec::new();
                    put_units(&units, false, &mut bytes);
                    assert_eq!(out, bytes, "{data:02X?}");
                }
            }
            // Any bytes are UTF-16 of some units (an odd last byte aside).
            let even = &data[..data.len() & !1];
            let mut c = Converter::new(
                Format::Utf16 { big_endian: true },
                Format::Family(Dialect::Wtf8),
                Policy::Strict,
                false,
            )
            .unwrap();
            let units: Vec<u16> = even
                .chunks_exact(2)
                .map(|p| u16::from_be_bytes([p[0], p[1]]))
                .collect();
            let mut expected = Vec::new();
            utf8guard::utf16_to_wtf8(&units, &mut expected);
            assert_eq!(streamed(&mut c, even, step), (expected, None));
        }
    }

    #[test]
    fn cuts_keep_sequences_and_lead_surrogates_whole() {
        assert_eq!(wtf8_cut(b"ab"), 2);
        assert_eq!(wtf8_cut(b"a\xE2\x82"), 1);
        assert_eq!(wtf8_cut(b"a\xED\xA0\x80"), 1);
        assert_eq!(wtf8_cut(b"a\xED\xA0\x80\xED\xB0"), 1);
        assert_eq!(wtf8_cut(b"a\xED\xB0\x80b"), 5);
    }
}
