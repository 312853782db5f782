//! `utf8guard convert` to and from UTF-16 and UTF-32 (with and without a
//! byte order mark), Latin-1 and Windows-1252: round trips, exact bytes,
//! errors and their offsets, `--replace`, `--bom`, and the same bytes as
//! CPython's codecs of the same names where `python3` is installed.

use std::process::Command as Process;

mod common;

use common::cmd;

/// `convert --from FROM --to TO [extra]` on standard input: (status,
/// stdout, stderr).
fn convert(from: &str, to: &str, extra: &[&str], input: &[u8]) -> (i32, Vec<u8>, String) {
    let out = cmd()
        .args(["convert", "--from", from, "--to", to])
        .args(extra)
        .write_stdin(input.to_vec())
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        out.stdout,
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Converted without an error or a message.
fn converted(from: &str, to: &str, extra: &[&str], input: &[u8]) -> Vec<u8> {
    let (status, out, stderr) = convert(from, to, extra, input);
    assert_eq!((status, stderr.as_str()), (0, ""), "{from} -> {to}");
    out
}

/// Characters of every UTF-8 width.
const TEXT: &str = "plain ASCII, caf\u{E9} \u{3A9}\u{3BC}\u{3AD}\u{3B3}\u{3B1}, \
                    \u{20AC}5 \u{65E5}\u{672C}, \u{1F600}\u{1D11E}\n";
/// What Latin-1 and Windows-1252 hold.
const LATIN: &str = "Jos\u{E9} M\u{FC}ller, K\u{F6}ln \u{A0}\u{BF}\u{FF}\n";
/// Windows-1252's own characters (its bytes 80..9F).
const CP1252: &str = "\u{20AC} \u{201C}quoted\u{201D} \u{2013} \u{153}uvre \u{2122}\n";

fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    text.encode_utf16()
        .flat_map(|u| {
            if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            }
        })
        .collect()
}

fn utf32(text: &str, big_endian: bool) -> Vec<u8> {
    text.chars()
        .flat_map(|c| {
            let u = u32::from(c);
            if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            }
        })
        .collect()
}

#[test]
fn utf8_to_each_encoding_and_back() {
    let cases: [(&str, &str, Vec<u8>); 10] = [
        ("utf-16le", TEXT, utf16(TEXT, false)),
        ("utf-16be", TEXT, utf16(TEXT, true)),
        (
            "utf-16",
            TEXT,
            [&b"\xFF\xFE"[..], &utf16(TEXT, false)].concat(),
        ),
        ("utf-32le", TEXT, utf32(TEXT, false)),
        ("utf-32be", TEXT, utf32(TEXT, true)),
        (
            "utf-32",
            TEXT,
            [&b"\xFF\xFE\x00\x00"[..], &utf32(TEXT, false)].concat(),
        ),
        ("latin-1", LATIN, LATIN.chars().map(|c| c as u8).collect()),
        (
            "iso-8859-1",
            LATIN,
            LATIN.chars().map(|c| c as u8).collect(),
        ),
        (
            "windows-1252",
            CP1252,
            b"\x80 \x93quoted\x94 \x96 \x9Cuvre \x99\n".to_vec(),
        ),
        ("cp1252", LATIN, LATIN.chars().map(|c| c as u8).collect()),
    ];
    for (name, text, bytes) in cases {
        assert_eq!(
            converted("utf-8", name, &[], text.as_bytes()),
            bytes,
            "to {name}"
        );
        assert_eq!(
            converted(name, "utf-8", &[], &bytes),
            text.as_bytes(),
            "from {name}"
        );
    }
}

#[test]
fn every_pair_of_the_new_encodings_round_trips() {
    let wide = [
        "utf-16le", "utf-16be", "utf-16", "utf-32le", "utf-32be", "utf-32",
    ];
    let others = ["cesu-8", "modified-utf-8", "wtf-8", "utf-8"];
    for a in wide {
        let there = converted("utf-8", a, &[], TEXT.as_bytes());
        for b in wide.iter().chain(&others) {
            let through = converted(a, b, &[], &there);
            let back = converted(b, a, &[], &through);
            assert_eq!(back, there, "{a} -> {b} -> {a}");
            assert_eq!(
                converted(b, "utf-8", &[], &through),
                TEXT.as_bytes(),
                "{a} -> {b}"
            );
        }
        for single in ["latin-1", "windows-1252"] {
            let latin = converted(
                a,
                single,
                &[],
                &converted("utf-8", a, &[], LATIN.as_bytes()),
            );
            assert_eq!(converted(single, "utf-8", &[], &latin), LATIN.as_bytes());
            let again = converted(single, a, &[], &latin);
            assert_eq!(
                converted(a, "utf-8", &[], &again),
                LATIN.as_bytes(),
                "{single} -> {a}"
            );
        }
    }
    // Between the two single-byte encodings, and into the family.
    let cp = converted("utf-8", "cp1252", &[], CP1252.as_bytes());
    assert_eq!(converted("cp1252", "cesu-8", &[], &cp), CP1252.as_bytes());
    assert_eq!(
        converted("latin-1", "windows-1252", &[], b"caf\xE9"),
        b"caf\xE9"
    );
}

#[test]
fn byte_order_marks_read_and_written() {
    // `utf-16`: the byte order of the mark, which is dropped; little-endian
    // without one (as CPython's codec).
    assert_eq!(
        converted("utf-16", "utf-8", &[], b"\xFE\xFF\x00h\x00i"),
        b"hi"
    );
    assert_eq!(
        converted("utf-16", "utf-8", &[], b"\xFF\xFEh\x00i\x00"),
        b"hi"
    );
    assert_eq!(converted("utf-16", "utf-8", &[], b"h\x00i\x00"), b"hi");
    assert_eq!(
        converted("utf-32", "utf-8", &[], b"\x00\x00\xFE\xFF\x00\x00\x00h"),
        b"h"
    );
    assert_eq!(converted("utf-32", "utf-8", &[], b"h\x00\x00\x00"), b"h");
    // Only the first one is a mark; and utf-16le keeps it as a character.
    assert_eq!(
        converted("utf-16", "utf-8", &[], b"\xFF\xFE\xFF\xFEh\x00"),
        "\u{FEFF}h".as_bytes()
    );
    assert_eq!(
        converted("utf-16le", "utf-8", &[], b"\xFF\xFEh\x00"),
        "\u{FEFF}h".as_bytes()
    );
    // Written: a mark then little-endian; --bom adds one to the others.
    assert_eq!(converted("utf-8", "utf-16", &[], b"h"), b"\xFF\xFEh\x00");
    assert_eq!(converted("utf-8", "utf-32", &[], b""), b"\xFF\xFE\x00\x00");
    assert_eq!(
        converted("utf-8", "utf-16", &["--bom"], b"h"),
        b"\xFF\xFEh\x00"
    );
    assert_eq!(
        converted("utf-8", "utf-16be", &["--bom"], b"h"),
        b"\xFE\xFF\x00h"
    );
    assert_eq!(
        converted("latin-1", "utf-32be", &["--bom"], b"h"),
        b"\x00\x00\xFE\xFF\x00\x00\x00h"
    );
    assert_eq!(
        converted("utf-16le", "utf-8", &["-B"], b"h\x00"),
        b"\xEF\xBB\xBFh"
    );
}

#[test]
fn errors_name_the_offset_and_the_cause() {
    let cases: [(&str, &str, &[u8], &str); 7] = [
        (
            "utf-16le",
            "utf-8",
            b"a\x00b",
            "invalid UTF-16LE at byte 2: input ends inside a 2-byte code unit",
        ),
        (
            "utf-16",
            "latin-1",
            b"\xFF\xFEa\x00b",
            "invalid UTF-16 at byte 4: input ends inside a 2-byte code unit",
        ),
        (
            "utf-16be",
            "utf-32le",
            b"\x00a\xD8\x00\x00b",
            "cannot convert to UTF-32LE at byte 2: surrogate code point, which this encoding cannot hold",
        ),
        (
            "utf-32le",
            "utf-8",
            b"a\x00\x00\x00\x00\x00\x11\x00",
            "invalid UTF-32LE at byte 4: 00110000 is above 10FFFF, the highest code point",
        ),
        (
            "utf-32be",
            "utf-16le",
            b"\x00\x00\x00a\x00\x00",
            "invalid UTF-32BE at byte 4: input ends inside a 4-byte code unit",
        ),
        (
            "utf-8",
            "latin-1",
            "caf\u{E9} \u{20AC}".as_bytes(),
            "cannot convert to Latin-1 at byte 6: character this encoding cannot hold",
        ),
        (
            "utf-16le",
            "windows-1252",
            &utf16("ab\u{100}", false),
            "cannot convert to Windows-1252 at byte 4: character this encoding cannot hold",
        ),
    ];
    for (from, to, input, message) in cases {
        let (status, _, stderr) = convert(from, to, &[], input);
        assert_eq!(status, 1, "{from} -> {to}");
        assert_eq!(stderr, format!("utf8guard: -: {message}\n"));
    }
    // A lone surrogate: an error in UTF-8 and Latin-1.
    let (status, out, stderr) = convert("utf-16le", "latin-1", &[], b"a\x00\x00\xD8");
    assert_eq!((status, out), (1, b"a".to_vec()));
    assert_eq!(
        stderr,
        "utf8guard: -: cannot convert to Latin-1 at byte 2: surrogate code point, which this encoding cannot hold\n"
    );
}

#[test]
fn replace_writes_the_targets_replacement() {
    let (status, out, stderr) =
        convert("utf-8", "latin-1", &["--replace"], "é€\u{1F600}".as_bytes());
    assert_eq!((status, out), (0, b"\xE9??".to_vec()));
    assert_eq!(
        stderr,
        "utf8guard: -: 2 sequences replaced with ?, the first at byte 2\n"
    );
    // A lead surrogate and the odd byte after it, at the end: one.
    let (status, out, stderr) = convert("utf-16le", "utf-8", &["-r"], b"a\x00\x00\xD8b");
    assert_eq!((status, out), (0, "a\u{FFFD}".as_bytes().to_vec()));
    assert_eq!(
        stderr,
        "utf8guard: -: 1 sequence replaced with U+FFFD, the first at byte 2\n"
    );
    let (status, out, _) = convert(
        "utf-32le",
        "utf-16be",
        &["-r"],
        b"a\x00\x00\x00\x00\xD8\x00\x00\x01",
    );
    assert_eq!((status, out), (0, b"\x00a\xFF\xFD\xFF\xFD".to_vec()));
    let (status, out, stderr) = convert(
        "utf-32be",
        "cp1252",
        &["-r"],
        b"\x00\x00\x00a\x00\x11\x00\x00\x00\x00\x01\x00",
    );
    assert_eq!((status, out), (0, b"a??".to_vec()));
    assert_eq!(
        stderr,
        "utf8guard: -: 2 sequences replaced with ?, the first at byte 4\n"
    );
}

/// A question for CPython: (codec, errors, `encode` or `decode`, input).
type Request<'a> = (&'a str, &'a str, &'a str, Vec<u8>);

/// A case: our name for the codec, `to` or `from` it, our flags, and the
/// same question for CPython.
type Case<'a> = (&'a str, &'a str, Vec<&'a str>, Request<'a>);

/// CPython's answers to `requests`, each (codec, errors, `encode` or
/// `decode`, input): the bytes, or `None` where it raises; all of them
/// from one `python3` process. `None` when there is no python3.
fn cpython(requests: &[Request]) -> Option<Vec<Option<Vec<u8>>>> {
    use std::io::Write;
    const SCRIPT: &str = "
import sys
for line in sys.stdin:
    codec, errors, way, data = line.split()
    data = bytes.fromhex(data[1:])
    try:
        if way == 'encode':
            out = data.decode('utf-8', errors).encode(codec, errors)
        else:
            out = data.decode(codec, errors).encode('utf-8')
        print('=' + out.hex())
    except UnicodeError:
        print('!')
";
    let mut child = Process::new("python3")
        .args(["-c", SCRIPT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take().unwrap();
    for (codec, errors, way, data) in requests {
        let hex: String = data.iter().map(|b| format!("{b:02x}")).collect();
        writeln!(stdin, "{codec} {errors} {way} ={hex}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "python3");
    let answers = String::from_utf8(out.stdout).unwrap();
    Some(
        answers
            .lines()
            .map(|line| {
                let hex = line.strip_prefix('=')?;
                Some(
                    (0..hex.len())
                        .step_by(2)
                        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                        .collect(),
                )
            })
            .collect(),
    )
}

/// The same bytes as CPython's codecs of the same names, both ways
/// (`errors='strict'` and `'replace'`), and the same refusals; on inputs
/// without Windows-1252's five bytes that CPython leaves undefined (81 8D
/// 8F 90 9D, which WHATWG maps to U+0081...).
#[test]
fn the_same_bytes_as_cpython() {
    let codecs = [
        ("utf-16", "utf-16"),
        ("utf-16le", "utf-16-le"),
        ("utf-16be", "utf-16-be"),
        ("utf-32", "utf-32"),
        ("utf-32le", "utf-32-le"),
        ("utf-32be", "utf-32-be"),
        ("latin-1", "latin-1"),
        ("windows-1252", "cp1252"),
    ];
    let texts = [
        TEXT,
        LATIN,
        CP1252,
        "",
        "\u{FEFF}bom first",
        "a\u{10FFFF}\u{FFFD}z",
    ];
    // (our name, our flags, the request)
    let mut cases: Vec<Case> = Vec::new();
    for (ours, theirs) in codecs {
        for text in texts {
            for (flags, errors) in [(vec![], "strict"), (vec!["--replace"], "replace")] {
                let request = (theirs, errors, "encode", text.as_bytes().to_vec());
                cases.push((ours, "to", flags, request));
            }
        }
    }
    // Ill-formed UTF-8 into the wide encodings: one U+FFFD per maximal
    // subpart (a surrogate's 3-byte form is three), or an error.
    let bad_utf8: [&[u8]; 4] = [
        b"a\xFF\xE2\x82b",
        b"\xED\xA0\x80z",
        b"\xF0\x9F\x98",
        b"x\xC0\x80\xF4\x90\x80\x80",
    ];
    for (ours, theirs) in &codecs[..6] {
        for input in bad_utf8 {
            for (flags, errors) in [(vec![], "strict"), (vec!["--replace"], "replace")] {
                let request = (*theirs, errors, "encode", input.to_vec());
                cases.push((*ours, "to", flags, request));
            }
        }
    }
    // Decoding ill-formed input.
    let bad: [(&str, &str, &[u8]); 6] = [
        ("utf-16le", "utf-16-le", b"a\x00\x00\xD8b\x00"),
        ("utf-16be", "utf-16-be", b"\x00a\xDC\x00"),
        (
            "utf-32le",
            "utf-32-le",
            b"a\x00\x00\x00\x00\x00\x11\x00b\x00\x00\x00",
        ),
        ("utf-32be", "utf-32-be", b"\x00\x00\xD8\x00\x00\x00\x00a"),
        ("utf-16", "utf-16", b"\xFE\xFF\x00a\xD8\x3D\x00b"),
        ("utf-16", "utf-16", b"\xFF\xFEa\x00b"),
    ];
    for (ours, theirs, input) in bad {
        for (flags, errors) in [(vec![], "strict"), (vec!["--replace"], "replace")] {
            cases.push((
                ours,
                "from",
                flags,
                (theirs, errors, "decode", input.to_vec()),
            ));
        }
    }
    // Every byte but CPython's five undefined ones.
    let bytes: Vec<u8> = (0..=255u8)
        .filter(|b| ![0x81, 0x8D, 0x8F, 0x90, 0x9D].contains(b))
        .collect();
    for (ours, theirs) in [("windows-1252", "cp1252"), ("latin-1", "latin-1")] {
        cases.push((
            ours,
            "from",
            vec![],
            (theirs, "strict", "decode", bytes.clone()),
        ));
    }
    let requests: Vec<_> = cases.iter().map(|c| c.3.clone()).collect();
    let Some(answers) = cpython(&requests) else {
        println!("skipped: no python3 to compare with");
        return;
    };
    assert_eq!(answers.len(), cases.len());
    for ((ours, way, flags, (_, errors, _, input)), theirs) in cases.iter().zip(answers) {
        let (from, to) = if *way == "to" {
            ("utf-8", *ours)
        } else {
            (*ours, "utf-8")
        };
        let (status, out, _) = convert(from, to, flags, input);
        match theirs {
            Some(expected) => {
                assert_eq!(status, 0, "{from} -> {to} ({errors}): {input:02X?}");
                assert_eq!(out, expected, "{from} -> {to} ({errors}): {input:02X?}");
                if *way == "to" {
                    // And back, as CPython decodes it.
                    let back = converted(ours, "utf-8", flags, &out);
                    if *errors == "strict" {
                        assert_eq!(back, *input, "{ours} -> utf-8");
                    }
                }
            }
            None => assert_eq!(status, 1, "{from} -> {to}: CPython refuses {input:02X?}"),
        }
    }
}

/// Offsets past the first pieces read (64 KiB), and a surrogate pair cut
/// by a piece's end: the same as in a short input.
#[test]
fn large_inputs_keep_their_offsets() {
    let mut input = b"\xFF\xFE".to_vec();
    input.extend(utf16(&"a".repeat(100_000), false));
    // The pair at byte 200002 is the first character Latin-1 lacks (the
    // euro sign after it another; Windows-1252 holds that one).
    input.extend(utf16("\u{1F600}\u{20AC}", false));
    let (status, out, stderr) = convert("utf-16", "latin-1", &[], &input);
    assert_eq!(status, 1);
    assert_eq!(out.len(), 100_000);
    assert_eq!(
        stderr,
        "utf8guard: -: cannot convert to Latin-1 at byte 200002: character this encoding cannot hold\n"
    );
    let (status, out, stderr) = convert("utf-16", "cp1252", &["--replace"], &input);
    assert_eq!((status, out.len()), (0, 100_002));
    assert_eq!(
        stderr,
        "utf8guard: -: 1 sequence replaced with ?, the first at byte 200002\n"
    );
    // A pair across the first piece's end (65536): whole.
    let mut input = utf16(&"a".repeat(32_767), false);
    input.extend(utf16("\u{1F600}", false));
    let utf8 = converted("utf-16le", "utf-8", &[], &input);
    assert!(utf8.ends_with("a\u{1F600}".as_bytes()));
    assert_eq!(
        converted("utf-16le", "utf-32be", &[], &input).len(),
        4 * 32_768
    );
}

/// A lead surrogate before the odd byte that ends the input is one error
/// with it: one U+FFFD (one `?`), at the lead's offset, as CPython's
/// `utf-16` codecs and WHATWG decode it, in either byte order and after a
/// byte order mark. A target that holds lone surrogates keeps the lead,
/// and replaces the odd byte alone (as CPython's surrogatepass, then
/// replace).
/// A case of a lead surrogate cut short: (from, input, the lead's offset,
/// the text before it, the lead in WTF-8).
type CutShort<'a> = (&'a str, &'a [u8], usize, &'a str, &'a [u8]);

#[test]
fn a_lead_surrogate_cut_short_is_one_error() {
    let inputs: [CutShort; 6] = [
        ("utf-16le", b"\x00\xD8\x41", 0, "", b"\xED\xA0\x80"),
        ("utf-16be", b"\xD8\x00\x41", 0, "", b"\xED\xA0\x80"),
        ("utf-16", b"\xFF\xFE\x00\xD8\x41", 2, "", b"\xED\xA0\x80"),
        ("utf-16", b"\xFE\xFF\xD8\x00\x41", 2, "", b"\xED\xA0\x80"),
        ("utf-16le", b"a\x00\xFF\xDB\xD8", 2, "a", b"\xED\xAF\xBF"),
        ("utf-16be", b"\x00a\xDB\xFF\xDC", 2, "a", b"\xED\xAF\xBF"),
    ];
    for (from, input, at, before, lead) in inputs {
        let utf32: &[u8] = if before.is_empty() { b"" } else { b"a\0\0\0" };
        let cases: [(&str, Vec<u8>, &str); 3] = [
            ("utf-8", format!("{before}\u{FFFD}").into_bytes(), "U+FFFD"),
            ("utf-32le", [utf32, b"\xFD\xFF\0\0"].concat(), "U+FFFD"),
            ("latin-1", format!("{before}?").into_bytes(), "?"),
        ];
        for (to, expected, what) in cases {
            let (status, out, stderr) = convert(from, to, &["--replace"], input);
            assert_eq!((status, out), (0, expected), "{from} -> {to}: {input:02X?}");
            assert_eq!(
                stderr,
                format!("utf8guard: -: 1 sequence replaced with {what}, the first at byte {at}\n"),
            );
        }
        // Without --replace: the error at the lead.
        let (status, out, stderr) = convert(from, "utf-8", &[], input);
        assert_eq!((status, out), (1, before.as_bytes().to_vec()));
        assert_eq!(
            stderr,
            format!(
                "utf8guard: -: cannot convert to UTF-8 at byte {at}: surrogate code point, \
                 which this encoding cannot hold\n"
            ),
        );
        // WTF-8 keeps the lead; the odd byte alone is replaced.
        let (status, out, stderr) = convert(from, "wtf-8", &["--replace"], input);
        let expected = [before.as_bytes(), lead, "\u{FFFD}".as_bytes()].concat();
        assert_eq!(
            (status, out),
            (0, expected),
            "{from} -> wtf-8: {input:02X?}"
        );
        assert_eq!(
            stderr,
            format!(
                "utf8guard: -: 1 sequence replaced with U+FFFD, the first at byte {}\n",
                input.len() - 1
            ),
        );
    }
    // A trail surrogate, or a lead one not last: errors of their own.
    let others: [(&str, &[u8], &str); 4] = [
        ("utf-16le", b"\x00\xDC\x41", "\u{FFFD}\u{FFFD}"),
        ("utf-16be", b"\xDC\x00\x41", "\u{FFFD}\u{FFFD}"),
        ("utf-16le", b"\x00\xDC\x00\xD8\x41", "\u{FFFD}\u{FFFD}"),
        ("utf-16le", b"\x00\xD8a\x00\x41", "\u{FFFD}a\u{FFFD}"),
    ];
    for (from, input, expected) in others {
        let (status, out, _) = convert(from, "utf-8", &["-r"], input);
        assert_eq!(
            (status, out),
            (0, expected.as_bytes().to_vec()),
            "{input:02X?}"
        );
    }
}

/// Every arrangement of lone surrogates (lead, trail), a pair and a
/// letter, up to three units, with and without an odd byte at the end, in
/// both byte orders and after either byte order mark: the same bytes as
/// CPython (`errors='replace'`), and the same refusals (`'strict'`).
#[test]
fn lone_surrogates_and_an_odd_byte_as_cpython() {
    let units: [u16; 4] = [0x0041, 0xD800, 0xDC00, 0xDBFF];
    let mut inputs: Vec<Vec<u16>> = vec![vec![]];
    for len in 1..=3 {
        let shorter: Vec<Vec<u16>> = inputs
            .iter()
            .filter(|s| s.len() == len - 1)
            .cloned()
            .collect();
        for s in shorter {
            for u in units {
                inputs.push([s.clone(), vec![u]].concat());
            }
        }
    }
    // (ours, CPython's, big-endian, byte order mark)
    let orders = [
        ("utf-16le", "utf-16-le", false, &b""[..]),
        ("utf-16be", "utf-16-be", true, &b""[..]),
        ("utf-16", "utf-16", false, &b"\xFF\xFE"[..]),
        ("utf-16", "utf-16", true, &b"\xFE\xFF"[..]),
    ];
    let mut cases: Vec<Case> = Vec::new();
    for (ours, theirs, big_endian, mark) in orders {
        for s in &inputs {
            for odd in [None, Some(b'A')] {
                let mut input = mark.to_vec();
                for u in s {
                    input.extend(if big_endian {
                        u.to_be_bytes()
                    } else {
                        u.to_le_bytes()
                    });
                }
                input.extend(odd);
                for (flags, errors) in [(vec![], "strict"), (vec!["--replace"], "replace")] {
                    cases.push((
                        ours,
                        "from",
                        flags,
                        (theirs, errors, "decode", input.clone()),
                    ));
                }
            }
        }
    }
    let requests: Vec<_> = cases.iter().map(|c| c.3.clone()).collect();
    let Some(answers) = cpython(&requests) else {
        println!("skipped: no python3 to compare with");
        return;
    };
    assert_eq!(answers.len(), cases.len());
    for ((ours, _, flags, (_, errors, _, input)), theirs) in cases.iter().zip(answers) {
        let (status, out, _) = convert(ours, "utf-8", flags, input);
        match theirs {
            Some(expected) => {
                assert_eq!(
                    (status, out),
                    (0, expected),
                    "{ours} ({errors}): {input:02X?}"
                )
            }
            None => assert_eq!(status, 1, "{ours}: CPython refuses {input:02X?}"),
        }
    }
}

/// `--help` names the targets a lone surrogate of UTF-16 survives in, and
/// each does keep it; every other refuses it.
#[test]
fn lone_surrogates_survive_where_the_help_says() {
    let help = cmd().args(["convert", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(
        help.contains(
            "From UTF-16, a lone surrogate becomes itself in UTF-16 and in the members\n\
             of the UTF-8 family that write one (WTF-8, Java's modified UTF-8, Unicode\n\
             3.1's UTF-8 and RFC 2279), and an error (or U+FFFD with --replace)\n\
             elsewhere."
        ),
        "{help}"
    );
    let input = b"a\x00\x00\xD8b\x00";
    let kept: [(&str, &[u8]); 5] = [
        ("utf-16be", b"\x00a\xD8\x00\x00b"),
        ("wtf-8", b"a\xED\xA0\x80b"),
        ("mutf-8", b"a\xED\xA0\x80b"),
        ("unicode-3.1", b"a\xED\xA0\x80b"),
        ("rfc2279", b"a\xED\xA0\x80b"),
    ];
    for (to, expected) in kept {
        assert_eq!(converted("utf-16le", to, &[], input), expected, "{to}");
    }
    for (to, title) in [
        ("utf-8", "UTF-8"),
        ("cesu-8", "CESU-8"),
        ("corrected-utf-8", "Corrected UTF-8"),
        ("utf-32le", "UTF-32LE"),
        ("latin-1", "Latin-1"),
        ("windows-1252", "Windows-1252"),
    ] {
        let (status, _, stderr) = convert("utf-16le", to, &[], input);
        assert_eq!(status, 1, "{to}");
        assert_eq!(
            stderr,
            format!(
                "utf8guard: -: cannot convert to {title} at byte 2: surrogate code point, which \
                 this encoding cannot hold\n"
            )
        );
    }
}
