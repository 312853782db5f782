//! `utf8guard convert` of files of 1 MiB or more, which it maps rather
//! than reads: the same bytes, messages and statuses as the same input
//! read from standard input, with characters and code units cut by the
//! 64 KiB pieces it converts at a time, and errors past the first MiB.

mod common;

use common::cmd;

/// Characters of every UTF-8 width; 61 bytes, so that the pieces of a
/// long repetition cut it at every offset.
const TEXT: &str = "plain, caf\u{E9} \u{3A9}\u{3BC}\u{3AD}\u{3B3}\u{3B1}, \u{20AC}5 \
                    \u{65E5}\u{672C}, \u{1F600}\u{1D11E}\n";
/// What Windows-1252 holds, its own characters among them.
const LATIN: &str = "Jos\u{E9} M\u{FC}ller \u{201C}K\u{F6}ln\u{201D} \u{20AC}5\n";

/// `text` repeated to at least 1.3 MB.
fn long(text: &str) -> String {
    text.repeat(1_300_000 / text.len() + 1)
}

fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    let unit = |u: u16| {
        if big_endian {
            u.to_be_bytes()
        } else {
            u.to_le_bytes()
        }
    };
    text.encode_utf16().flat_map(unit).collect()
}

fn utf32(text: &str, big_endian: bool) -> Vec<u8> {
    let unit = |c: char| {
        let u = u32::from(c);
        if big_endian {
            u.to_be_bytes()
        } else {
            u.to_le_bytes()
        }
    };
    text.chars().flat_map(unit).collect()
}

fn cp1252(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| match c {
            '\u{20AC}' => 0x80,
            '\u{201C}' => 0x93,
            '\u{201D}' => 0x94,
            c => u8::try_from(u32::from(c)).expect("Latin-1"),
        })
        .collect()
}

/// (status, stdout, stderr) of `convert` of `input`, from a file and from
/// standard input; the file's name in the messages made the same.
fn both_ways(from: &str, to: &str, input: &[u8]) -> [(i32, Vec<u8>, String); 2] {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.txt");
    std::fs::write(&path, input).unwrap();
    let args = ["convert", "--from", from, "--to", to];
    let mapped = cmd().args(args).arg(&path).output().unwrap();
    let read = cmd()
        .args(args)
        .write_stdin(input.to_vec())
        .output()
        .unwrap();
    [mapped, read].map(|out| {
        let stderr = String::from_utf8(out.stderr).unwrap();
        let stderr = stderr
            .replace(&path.display().to_string(), "IN")
            .replace("utf8guard: -:", "utf8guard: IN:");
        (out.status.code().unwrap(), out.stdout, stderr)
    })
}

/// Converted from a mapped file as from standard input, to `want`.
fn converts(from: &str, to: &str, input: &[u8], want: &[u8]) {
    let [mapped, read] = both_ways(from, to, input);
    assert_eq!((mapped.0, mapped.2.as_str()), (0, ""), "{from} -> {to}");
    assert!(mapped.1 == want, "{from} -> {to}: not the expected bytes");
    assert!(read == mapped, "{from} -> {to}: standard input differs");
}

#[test]
fn long_files_convert_as_standard_input_does() {
    let text = long(TEXT);
    // Shifted by one byte, two, three: every cut of every character.
    for shift in ["", "x", "xy", "xyz"] {
        let text = format!("{shift}{text}");
        converts("utf-8", "utf-16le", text.as_bytes(), &utf16(&text, false));
        converts("utf-8", "utf-32be", text.as_bytes(), &utf32(&text, true));
        converts("utf-16le", "utf-8", &utf16(&text, false), text.as_bytes());
        converts("utf-16be", "utf-8", &utf16(&text, true), text.as_bytes());
        converts("utf-32le", "utf-8", &utf32(&text, false), text.as_bytes());
        converts(
            "utf-32be",
            "utf-16le",
            &utf32(&text, true),
            &utf16(&text, false),
        );
        converts(
            "utf-8",
            "cesu-8",
            text.as_bytes(),
            &utf8guard::transcode(
                utf8guard::Dialect::Utf8,
                utf8guard::Dialect::Cesu8,
                text.as_bytes(),
                utf8guard::Policy::Strict,
            )
            .unwrap(),
        );
    }
    let latin = long(LATIN);
    converts("windows-1252", "utf-8", &cp1252(&latin), latin.as_bytes());
    converts("utf-8", "windows-1252", latin.as_bytes(), &cp1252(&latin));
}

#[test]
fn errors_past_the_first_mib_are_where_standard_input_has_them() {
    let text = long(TEXT);
    let at = text.len() - 1000 - (text.len() - 1000) % TEXT.len();
    // An ill-formed byte in UTF-8, and a lone surrogate in UTF-16.
    let mut bad = text.clone().into_bytes();
    bad.insert(at, 0xFF);
    let mut lone = utf16(&text, false);
    let lone_at = utf16(&text[..at], false).len();
    lone.splice(lone_at..lone_at, [0x00, 0xD8, b'A', 0x00]);
    let latin = long(LATIN);
    let latin_at = latin.len() - 1000 - (latin.len() - 1000) % LATIN.len();
    let mut bad_latin = latin.into_bytes();
    bad_latin.insert(latin_at, 0xFF);
    for (from, to, input, offset) in [
        ("utf-8", "utf-16le", &bad, at),
        ("utf-8", "windows-1252", &bad_latin, latin_at),
        ("utf-16le", "utf-8", &lone, lone_at),
    ] {
        let [mapped, read] = both_ways(from, to, input);
        assert_eq!(mapped.0, 1, "{from} -> {to}: {}", mapped.2);
        assert!(
            mapped.2.contains(&format!("at byte {offset}")),
            "{from} -> {to}: {}",
            mapped.2
        );
        assert!(
            read == mapped,
            "{from} -> {to}: standard input differs: {} {:?} {} / {} {:?} {}",
            read.0,
            read.2,
            read.1.len(),
            mapped.0,
            mapped.2,
            mapped.1.len()
        );
    }
}
