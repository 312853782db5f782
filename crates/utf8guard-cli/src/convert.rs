//! `utf8guard convert`: between the members of the UTF-8 family, UTF-16,
//! UTF-32, Latin-1 and Windows-1252, streamed in constant memory, written
//! to a temporary file that is renamed into place only once the whole
//! input is converted. The conversion is the library's [`Converter`];
//! this reads, writes, and words its errors.

use std::fs::{self, File};
use std::io::{self, IsTerminal, Read, Write};
use std::path::Path;

use utf8guard::{
    ByteOrder, ConvertError, ConvertErrorKind, Converter, Encoding, OptionError, Policy, SingleByte,
};

use crate::args::convert::ConvertArgs;
use crate::family;
use crate::io_error::io_message;
use crate::mapped::{Mapping, CHANGED_CONVERT, MMAP_MIN};
use crate::output::Output;
use crate::path_name::message_name;

/// Bytes read at a time.
const PIECE: usize = 64 << 10;

/// The output's buffer: smaller than what a piece converts to, so that
/// each piece's output is written as it is rather than copied into the
/// buffer first.
const OUT_BUFFER: usize = 16 << 10;

/// The encoding's name in prose: "UTF-16LE", "Latin-1", "CESU-8", ...
fn title(encoding: Encoding) -> &'static str {
    match encoding {
        Encoding::Family(d) => family::title(d),
        Encoding::Utf16(ByteOrder::Little) => "UTF-16LE",
        Encoding::Utf16(ByteOrder::Big) => "UTF-16BE",
        Encoding::Utf16(ByteOrder::Mark) => "UTF-16",
        Encoding::Utf32(ByteOrder::Little) => "UTF-32LE",
        Encoding::Utf32(ByteOrder::Big) => "UTF-32BE",
        Encoding::Utf32(ByteOrder::Mark) => "UTF-32",
        Encoding::Single(SingleByte::Latin1) => "Latin-1",
        Encoding::Single(SingleByte::Windows1252) => "Windows-1252",
    }
}

/// What `--replace` writes in this encoding, in words.
fn replacement_name(encoding: Encoding) -> &'static str {
    match encoding {
        Encoding::Single(_) => "?",
        _ => "U+FFFD",
    }
}

/// Why a conversion stopped.
#[derive(Debug)]
enum Failure {
    /// The input cannot be converted (exit status 1).
    Input(ConvertError),
    /// The input could not be read.
    Read(io::Error),
    /// The output could not be written.
    Write(io::Error),
    /// The mapped input was truncated while it was read.
    Changed,
}

/// Runs `convert`; returns the exit status.
pub fn run(args: &ConvertArgs) -> u8 {
    let policy = if args.replace {
        Policy::Replace
    } else {
        Policy::Strict
    };
    let mut converter = match Converter::new(args.from, args.to, policy)
        .with_magic_number(args.magic_number)
        .and_then(|c| c.with_byte_order_mark(args.bom))
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("utf8guard: {}", option_message(e, args.to));
            return 2;
        }
    };
    let input = args.input.as_deref().unwrap_or(Path::new("-"));
    let output = args.output.as_deref().filter(|p| p.as_os_str() != "-");
    match convert(input, output, args.force, &mut converter, args) {
        Ok(()) => {
            let count = converter.replacements();
            if let Some(first) = converter.first_replacement() {
                let what = if count == 1 { "sequence" } else { "sequences" };
                eprintln!(
                    "utf8guard: {}: {count} {what} replaced with {}, the first at byte {first}",
                    message_name(input),
                    replacement_name(args.to)
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
    args: &ConvertArgs,
) -> Result<(), Outcome> {
    let stdin = input.as_os_str() == "-";
    let in_name = message_name(input);
    let cannot_read = |e: io::Error| trouble(format!("{in_name}: {}", io_message(&e)));
    let (file, meta) = if stdin {
        if io::stdin().is_terminal() {
            eprintln!("utf8guard: reading standard input (end it with Ctrl-D; --help for usage)");
        }
        // A closed descriptor is an error, not an empty input.
        let meta = match crate::output::stdin_metadata() {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::Unsupported => None,
            Err(e) => return Err(cannot_read(e)),
        };
        (None, meta)
    } else {
        let file = File::open(input).map_err(cannot_read)?;
        let meta = file.metadata().map_err(cannot_read)?;
        if meta.is_dir() {
            return Err(trouble(format!("{in_name}: is a directory")));
        }
        (Some(file), Some(meta))
    };
    if let (Some(out), Some(meta)) = (output, &meta) {
        crate::output::refuse_input(out, meta, "convert").map_err(trouble)?;
    }
    let out_name = output.map_or("standard output".into(), message_name);
    let mut writer = Output::open(output, OUT_BUFFER, force).map_err(trouble)?;
    let result = match (file, meta) {
        (Some(file), Some(meta)) if meta.is_file() && meta.len() >= MMAP_MIN => {
            convert_file(converter, file, &meta, &mut writer)
        }
        (Some(file), _) => {
            crate::pipe::widen(&file);
            stream(converter, file, &mut writer)
        }
        (None, _) => {
            crate::pipe::widen(io::stdin());
            stream(converter, io::stdin().lock(), &mut writer)
        }
    };
    // Only a whole conversion replaces a file OUT: after any failure the
    // temporary file is removed as `writer` drops.
    let result = result.and_then(|()| writer.finish().map_err(Failure::Write));
    result.map_err(|failure| match failure {
        Failure::Input(e) => {
            let message = message(&e, args.from, args.to);
            Outcome::Status(1, format!("{in_name}: {message}"))
        }
        Failure::Read(e) => trouble(format!("{in_name}: read error: {}", io_message(&e))),
        Failure::Write(e) if output.is_none() && e.kind() == io::ErrorKind::BrokenPipe => {
            Outcome::Closed
        }
        Failure::Write(e) => trouble(crate::output::failure_message(&out_name, &e)),
        Failure::Changed => trouble(format!("{in_name}: {CHANGED_CONVERT}")),
    })
}

/// Converts a regular file of at least [`MMAP_MIN`] bytes, mapped: read
/// into a buffer, every byte was copied out of the page cache once more
/// before its conversion (a third of the time of UTF-16 to UTF-8). A file
/// that cannot be mapped is read.
fn convert_file(
    converter: &mut Converter,
    file: File,
    meta: &fs::Metadata,
    writer: &mut impl Write,
) -> Result<(), Failure> {
    let map = match usize::try_from(meta.len())
        .map_err(io::Error::other)
        .and_then(|len| Mapping::new(&file, 0, len, false))
    {
        Ok(map) => map,
        Err(_) => return stream(converter, file, writer),
    };
    let result = convert_slice(converter, &map, writer);
    // Pages past a new end fault in the kernel too, when it copies them
    // out of the mapping for a write: that write fails (EFAULT) with no
    // signal, so the file's length says what happened as well as the
    // handler.
    let shrank = file.metadata().map_or(true, |m| m.len() < map.len() as u64);
    if map.truncated() || shrank {
        Err(Failure::Changed)
    } else {
        result
    }
}

/// Converts `input` into `writer`, [`PIECE`] bytes at a time, as
/// [`stream`] does with what it reads.
fn convert_slice(
    converter: &mut Converter,
    input: &[u8],
    writer: &mut impl Write,
) -> Result<(), Failure> {
    let mut out = Vec::with_capacity(PIECE * 2);
    let (mut pos, mut end) = (0, PIECE.min(input.len()));
    loop {
        let last = end == input.len();
        out.clear();
        // On an error, `out` holds the conversion of what came before it,
        // which goes out first.
        let fed = converter.convert_to_vec(&input[pos..end], &mut out, last);
        writer.write_all(&out).map_err(Failure::Write)?;
        let read = fed.map_err(Failure::Input)?;
        if last {
            return Ok(());
        }
        // What was left unread (a character cut by the piece's end) is
        // passed again with the next piece, which always reaches further.
        pos += read;
        end = (pos + PIECE).max(end + 1).min(input.len());
    }
}

/// Why `--magic-number` or `--bom` cannot be, in words.
fn option_message(e: OptionError, to: Encoding) -> String {
    match e {
        OptionError::NoMagicNumber => format!(
            "--magic-number: only Corrected UTF-8 has a magic number, not {}",
            title(to)
        ),
        _ => format!("--bom: {} has no byte order mark", title(to)),
    }
}

/// Converts all of `reader` into `writer`, a piece at a time.
fn stream(
    converter: &mut Converter,
    mut reader: impl Read,
    writer: &mut impl Write,
) -> Result<(), Failure> {
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
        // On an error, `out` holds the conversion of what came before it,
        // which goes out first (to standard output; a file is removed
        // anyway).
        let fed = converter.convert_to_vec(&buf[..len], &mut out, last);
        writer.write_all(&out).map_err(Failure::Write)?;
        let read = fed.map_err(Failure::Input)?;
        if last {
            return Ok(());
        }
        buf.copy_within(read..len, 0);
        len -= read;
    }
}

/// The message for a conversion's error: where, and why.
fn message(e: &ConvertError, from: Encoding, to: Encoding) -> String {
    let at = e.offset();
    let invalid = |what: &str| format!("invalid {} at byte {at}: {what}", title(from));
    match e.kind() {
        ConvertErrorKind::Malformed(kind) => invalid(&match from {
            Encoding::Family(d) => family::describe(kind, d),
            _ => kind.description().to_owned(),
        }),
        ConvertErrorKind::NotACharacter(unit) => invalid(&utf32_error(unit)),
        ConvertErrorKind::TruncatedUnit(n) => {
            invalid(&format!("input ends inside a {n}-byte code unit"))
        }
        ConvertErrorKind::Unencodable(why) => {
            format!("cannot convert to {} at byte {at}: {why}", title(to))
        }
        ConvertErrorKind::Reserved => format!(
            "cannot convert to {} at byte {at}: reserved FE/FF run, which only Corrected \
             UTF-8 holds",
            title(to)
        ),
        _ => format!("cannot convert to {} at byte {at}", title(to)),
    }
}

/// Why UTF-32 unit `unit` is not a character.
pub fn utf32_error(unit: u32) -> String {
    if unit > 0x10_FFFF {
        format!("{unit:08X} is above 10FFFF, the highest code point")
    } else {
        format!("{unit:08X} is a surrogate code point (D800..DFFF), not a character")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::convert::parse_format;
    use crate::repair::tests::Trickle;
    use utf8guard::Dialect;

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
        let mut c = Converter::new(from, to, policy);
        let mut out = Vec::new();
        match stream(&mut c, Trickle { data, step }, &mut out) {
            Ok(()) => Ok(out),
            Err(Failure::Input(e)) => Err(message(&e, from, to)),
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
    fn usage_errors_are_refused() {
        let f = |s| parse_format(s).unwrap();
        let err = Converter::new(f("utf-8"), f("cesu-8"), Policy::Strict)
            .with_magic_number(true)
            .err();
        let err = err.map(|e| option_message(e, f("cesu-8")));
        assert_eq!(
            err.as_deref(),
            Some("--magic-number: only Corrected UTF-8 has a magic number, not CESU-8")
        );
        let err = Converter::new(f("utf-8"), f("cp1252"), Policy::Strict)
            .with_byte_order_mark(true)
            .err();
        let err = err.map(|e| option_message(e, f("cp1252")));
        assert_eq!(
            err.as_deref(),
            Some("--bom: Windows-1252 has no byte order mark")
        );
        assert!(parse_format("utf-7").is_err());
        assert_eq!(
            parse_format("ISO-8859-1"),
            Ok(Encoding::Single(SingleByte::Latin1))
        );
        assert_eq!(parse_format("UTF32"), Ok(Encoding::Utf32(ByteOrder::Mark)));
    }

    fn utf32le(text: &str) -> Vec<u8> {
        text.chars()
            .flat_map(|c| u32::from(c).to_le_bytes())
            .collect()
    }

    #[test]
    fn every_pair_through_utf8_in_pieces() {
        let text = "a\u{E9}\u{20AC}\u{1F600}\n";
        let utf16: Vec<u16> = text.encode_utf16().collect();
        let mut with_bom = vec![0xFE, 0xFF];
        with_bom.extend(utf16.iter().flat_map(|u| u.to_be_bytes()));
        // The byte order of `utf-16` from its mark, which is dropped.
        assert_eq!(
            same_at_every_step("utf-16", "utf-32le", false, &with_bom),
            Ok(utf32le(text))
        );
        // `utf-32` without a mark: little-endian; written: a mark first.
        let mut expected = vec![0xFF, 0xFE];
        expected.extend(utf16le(&utf16));
        assert_eq!(
            same_at_every_step("utf-32", "utf-16", false, &utf32le(text)),
            Ok(expected)
        );
        assert_eq!(
            same_at_every_step("utf-32le", "cesu-8", false, &utf32le(text)),
            Ok(b"a\xC3\xA9\xE2\x82\xAC\xED\xA0\xBD\xED\xB8\x80\n".to_vec())
        );
        assert_eq!(
            same_at_every_step("windows-1252", "utf-16le", false, b"\x93caf\xE9\x94 \x80"),
            Ok(utf16le(
                &"\u{201C}caf\u{E9}\u{201D} \u{20AC}"
                    .encode_utf16()
                    .collect::<Vec<_>>()
            ))
        );
        // A character Latin-1 lacks: where it starts in the input.
        assert_eq!(
            same_at_every_step("utf-16le", "latin-1", false, &utf16le(&utf16)),
            Err("cannot convert to Latin-1 at byte 4: character this encoding cannot hold".into())
        );
        assert_eq!(
            same_at_every_step("utf-16le", "latin-1", true, &utf16le(&utf16)),
            Ok(b"a\xE9??\n".to_vec())
        );
        assert_eq!(
            same_at_every_step(
                "cesu-8",
                "windows-1252",
                false,
                b"\xE2\x82\xACx\xED\xA0\xBD\xED\xB8\x80"
            ),
            Err(
                "cannot convert to Windows-1252 at byte 4: character this encoding cannot hold"
                    .into()
            )
        );
        // A lone surrogate: WTF-8 and UTF-16 hold it, UTF-32 does not.
        let lone = utf16le(&[0x61, 0xD800, 0x62]);
        assert_eq!(
            same_at_every_step("utf-16le", "utf-32be", false, &lone),
            Err("cannot convert to UTF-32BE at byte 2: surrogate code point, which this encoding cannot hold".into())
        );
        assert_eq!(
            same_at_every_step("utf-16le", "utf-16be", false, &lone),
            Ok(vec![0, 0x61, 0xD8, 0, 0, 0x62])
        );
        let big = [0x61, 0, 0, 0, 0, 0, 0x11, 0, 0x62, 0];
        assert_eq!(
            same_at_every_step("utf-32le", "utf-16le", false, &big),
            Err(
                "invalid UTF-32LE at byte 4: 00110000 is above 10FFFF, the highest code point"
                    .into()
            )
        );
        assert_eq!(
            same_at_every_step("utf-32le", "latin-1", true, &big),
            Ok(b"a??".to_vec())
        );
        // Corrected UTF-8 holds no C1 control.
        assert_eq!(
            same_at_every_step("latin-1", "corrected-utf-8", false, b"ab\x85"),
            Err("cannot convert to Corrected UTF-8 at byte 2: C1 control (U+0080..U+009F), which Corrected UTF-8 skips".into())
        );
    }

    #[test]
    fn replacements_are_counted_once_from_their_first() {
        let cases: [(&str, &str, &[u8], u64, usize); 5] = [
            // The euro sign, then a lead surrogate and the odd byte after
            // it, which are one.
            ("utf-16le", "latin-1", b"a\x00\xAC\x20\x00\xD8b", 2, 2),
            ("utf-8", "latin-1", b"ab\xE2\x82\xAC\xFF", 2, 2),
            ("cesu-8", "latin-1", b"\xE2\x82\xAC\xFFx", 2, 0),
            ("wtf-8", "windows-1252", b"ab\xC4\x80\xED\xA0\x80", 2, 2),
            (
                "utf-32be",
                "latin-1",
                b"\x00\x00\x00a\x00\x00\xD8\x00\x00\x00\x01\x00",
                2,
                4,
            ),
        ];
        for (from, to, data, count, first) in cases {
            for step in 1..=data.len() {
                let (from_f, to_f) = (parse_format(from).unwrap(), parse_format(to).unwrap());
                let mut c = Converter::new(from_f, to_f, Policy::Replace);
                let mut out = Vec::new();
                stream(&mut c, Trickle { data, step }, &mut out).unwrap();
                assert_eq!(
                    (c.replacements(), c.first_replacement()),
                    (count, Some(first)),
                    "{from} -> {to}, step {step}"
                );
            }
        }
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
                let mut c = Converter::new(from_f, to_f, policy);
                let mut out = Vec::new();
                let result = stream(&mut c, Trickle { data, step }, &mut out);
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

    /// What `stream` writes and how it ends (the message, for a conversion
    /// from `from` to `to`), reading `step` bytes at a time.
    fn streamed(
        c: &mut Converter,
        (from, to): (Encoding, Encoding),
        data: &[u8],
        step: usize,
    ) -> (Vec<u8>, Option<String>) {
        let mut out = Vec::new();
        match stream(c, Trickle { data, step }, &mut out) {
            Ok(()) => (out, None),
            Err(Failure::Input(e)) => (out, Some(message(&e, from, to))),
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
                        Converter::new(Encoding::Family(from), Encoding::Family(to), policy);
                    let formats = (Encoding::Family(from), Encoding::Family(to));
                    let (out, error) = streamed(&mut c, formats, data, step);
                    match utf8guard::transcode(from, to, data, policy) {
                        Ok(whole) => {
                            assert_eq!((out, error), (whole, None), "{from}->{to} {data:02X?}")
                        }
                        Err(e) => {
                            let expected = message(&e.into(), formats.0, formats.1);
                            assert_eq!(error, Some(expected), "{from}->{to} {data:02X?}");
                        }
                    }
                }
            }
            for policy in [Policy::Strict, Policy::Replace] {
                let mut c = Converter::new(
                    Encoding::Family(Dialect::Wtf8),
                    Encoding::Utf16(ByteOrder::Little),
                    policy,
                );
                let formats = (
                    Encoding::Family(Dialect::Wtf8),
                    Encoding::Utf16(ByteOrder::Little),
                );
                let (out, error) = streamed(&mut c, formats, data, step);
                let mut units = Vec::new();
                let whole = utf8guard::wtf8_to_utf16(data, policy, &mut units);
                assert_eq!(error.is_some(), whole.is_err(), "{data:02X?}");
                if let Err(e) = whole {
                    assert!(error.unwrap().contains(&format!("at byte {}:", e.offset())));
                } else {
                    let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
                    assert_eq!(out, bytes, "{data:02X?}");
                }
            }
            // Any bytes are UTF-16 of some units (an odd last byte aside).
            let even = &data[..data.len() & !1];
            let mut c = Converter::new(
                Encoding::Utf16(ByteOrder::Big),
                Encoding::Family(Dialect::Wtf8),
                Policy::Strict,
            );
            let units: Vec<u16> = even
                .chunks_exact(2)
                .map(|p| u16::from_be_bytes([p[0], p[1]]))
                .collect();
            let mut expected = Vec::new();
            utf8guard::utf16_to_wtf8(&units, &mut expected);
            let formats = (
                Encoding::Utf16(ByteOrder::Big),
                Encoding::Family(Dialect::Wtf8),
            );
            assert_eq!(streamed(&mut c, formats, even, step), (expected, None));
        }
    }

    #[test]
    fn chains_stream_as_they_convert_whole() {
        let pairs = [
            ("utf-16le", "latin-1"),
            ("utf-16be", "cp1252"),
            ("utf-16", "utf-32"),
            ("utf-32le", "cesu-8"),
            ("utf-32", "utf-16be"),
            ("latin-1", "utf-16le"),
            ("cp1252", "corrected-utf-8"),
            ("cesu-8", "utf-32be"),
            ("wtf-8", "cp1252"),
            ("corrected-utf-8", "latin-1"),
            ("utf-8", "latin-1"),
            ("utf-8", "utf-32le"),
            ("modified-utf-8", "utf-32"),
        ];
        for (i, data) in soup(0x2545_F491_4F6C_DD1D, 200).iter().enumerate() {
            let step = 1 + i % 7;
            for (from, to) in pairs {
                for policy in [Policy::Strict, Policy::Replace] {
                    let (from_f, to_f) = (parse_format(from).unwrap(), parse_format(to).unwrap());
                    let make = || Converter::new(from_f, to_f, policy);
                    let (mut whole, mut pieces) = (make(), make());
                    let expected = streamed(&mut whole, (from_f, to_f), data, usize::MAX);
                    let got = streamed(&mut pieces, (from_f, to_f), data, step);
                    assert_eq!(got, expected, "{from} -> {to} {policy:?} {data:02X?}");
                    assert_eq!(
                        (pieces.replacements(), pieces.first_replacement()),
                        (whole.replacements(), whole.first_replacement()),
                        "{from} -> {to} {data:02X?}"
                    );
                }
            }
        }
    }
}
