//! `utf8guard check --encoding auto`: the magic number chooses Corrected
//! UTF-8, a UTF-8 byte order mark is noted, a UTF-16 or UTF-32 one selects
//! that encoding; files and standard input alike.

use std::fs;

mod common;

use common::{cmd, MAGIC};
use serde_json::Value;

#[test]
fn the_magic_number_chooses_corrected_utf8() {
    // C0 AF is Ï in Corrected UTF-8, an error in UTF-8.
    let doc = [MAGIC, b"\xC0\xAF\n"].concat();
    let note = "-: note: starts with the magic number EF B7 9D ED B2 AE 00 0A\n";
    cmd()
        .args(["check", "--encoding", "auto"])
        .write_stdin(doc.clone())
        .assert()
        .code(0)
        .stdout(note)
        .stderr("");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.txt");
    fs::write(&path, &doc).unwrap();
    let out = cmd()
        .args(["check", "-e", "auto", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["encoding"], "corrected-utf-8");
    assert_eq!(report["magic_number"], true);
    assert_eq!(report["status"], "valid");
    // Without it, the same bytes are checked as UTF-8.
    cmd()
        .args(["check", "--encoding", "auto", "--quiet"])
        .write_stdin(&b"\xC0\xAF\n"[..])
        .assert()
        .code(1);
}

#[test]
fn a_utf8_byte_order_mark_is_noted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bom.txt");
    fs::write(&path, b"\xEF\xBB\xBFhello\n").unwrap();
    cmd()
        .args(["check", "--encoding", "auto"])
        .arg(&path)
        .assert()
        .code(0)
        .stdout(format!(
            "{}: note: starts with a UTF-8 byte order mark (EF BB BF), checked as UTF-8\n",
            path.display()
        ));
    let out = cmd()
        .args(["check", "--encoding", "auto", "--json", "-"])
        .write_stdin(&b"\xEF\xBB\xBF\xFF"[..])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["encoding"], "utf-8");
    assert_eq!(
        report["note"],
        "starts with a UTF-8 byte order mark (EF BB BF), checked as UTF-8"
    );
    assert_eq!(report["errors"][0]["offset"], 3);
}

/// `text` in UTF-16 or UTF-32 (`unit` 2 or 4 bytes), with its byte order
/// mark, and a lone surrogate (UTF-16) or a surrogate (UTF-32) after it.
fn wide(text: &str, unit: usize, big_endian: bool, surrogate: bool) -> Vec<u8> {
    let mut units: Vec<u32> = if unit == 2 {
        format!("\u{FEFF}{text}")
            .encode_utf16()
            .map(u32::from)
            .collect()
    } else {
        format!("\u{FEFF}{text}").chars().map(u32::from).collect()
    };
    if surrogate {
        units.push(0xD800);
        units.push(u32::from(b'!'));
    }
    units
        .iter()
        .flat_map(|&u| {
            let bytes = if unit == 2 {
                (u as u16).to_le_bytes().to_vec()
            } else {
                u.to_le_bytes().to_vec()
            };
            if big_endian {
                bytes.into_iter().rev().collect::<Vec<u8>>()
            } else {
                bytes
            }
        })
        .collect()
}

/// A UTF-16 or UTF-32 byte order mark selects that encoding: valid text
/// exits 0 with a note that names it (files and standard input alike); a
/// lone surrogate is an error at its byte offset, in text and JSON.
#[test]
fn a_utf16_or_utf32_byte_order_mark_selects_it() {
    let dir = tempfile::tempdir().unwrap();
    let text = "h\u{E9}\u{20AC}\u{1F600}\nx";
    for (unit, big_endian, title, name, mark) in [
        (2, false, "UTF-16LE", "utf-16le", "FF FE"),
        (2, true, "UTF-16BE", "utf-16be", "FE FF"),
        (4, false, "UTF-32LE", "utf-32le", "FF FE 00 00"),
        (4, true, "UTF-32BE", "utf-32be", "00 00 FE FF"),
    ] {
        let note = format!("starts with a {title} byte order mark ({mark}), checked as {title}");
        let path = dir.path().join(format!("{name}.txt"));
        fs::write(&path, wide(text, unit, big_endian, false)).unwrap();
        cmd()
            .args(["check", "--encoding", "auto"])
            .arg(&path)
            .assert()
            .code(0)
            .stderr("")
            .stdout(format!("{}: note: {note}\n", path.display()));
        cmd()
            .args(["check", "--encoding", "auto", "-"])
            .write_stdin(wide(text, unit, big_endian, false))
            .assert()
            .code(0)
            .stdout(format!("-: note: {note}\n"));
        // The surrogate comes after the mark, the 5 characters of the first
        // line (the pair is two units in UTF-16) and "x": line 2, column 2.
        let units_before = 1 + if unit == 2 { 7 } else { 6 };
        let offset = unit * units_before;
        let bad = dir.path().join(format!("{name}-bad.txt"));
        fs::write(&bad, wide(text, unit, big_endian, true)).unwrap();
        let out = cmd()
            .args(["check", "--encoding", "auto"])
            .arg(&bad)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let report = String::from_utf8(out.stdout).unwrap();
        let kind = if unit == 2 {
            "surrogate that is not half of a surrogate pair"
        } else {
            "surrogate code point, which is not a character"
        };
        assert!(
            report.starts_with(&format!(
                "{}:2:2: invalid {title} at byte {offset}: {kind}\n",
                bad.display()
            )),
            "{report}"
        );
        assert!(
            report.ends_with(&format!("{}: note: {note}\n", bad.display())),
            "{report}"
        );
        let out = cmd()
            .args(["check", "--encoding", "auto", "--json", "-"])
            .write_stdin(wide(text, unit, big_endian, true))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["encoding"], name);
        assert_eq!(report["note"], note.as_str());
        assert_eq!(report["status"], "invalid");
        assert_eq!(report["errors"][0]["offset"], offset);
        assert_eq!(report["errors"][0]["length"], unit);
        let kind = if unit == 2 {
            "lone_surrogate"
        } else {
            "surrogate"
        };
        assert_eq!(report["errors"][0]["kind"], kind);
        // `-l` lists it among the files that are not valid.
        cmd()
            .args(["--encoding", "auto", "-l"])
            .arg(&path)
            .arg(&bad)
            .assert()
            .code(1)
            .stdout(format!("{}\n", bad.display()));
    }
}

/// The other errors: a value above 10FFFF in UTF-32, an input that ends
/// inside a code unit; each with its byte offset.
#[test]
fn wide_errors_and_their_offsets() {
    let cases: [(&[u8], &str); 4] = [
        (
            b"\xFF\xFE\x00\x00a\x00\x00\x00\x00\x00\x11\x00",
            "-:1:3: invalid UTF-32LE at byte 8: code point above U+10FFFF\n  \
             00 00 11 00 is 110000, above 10FFFF, the highest code point\n",
        ),
        (
            b"\xFE\xFF\x00a\x00",
            "-:1:3: invalid UTF-16BE at byte 4: input ends inside a 2-byte code unit\n  \
             the input ends inside a 2-byte code unit: 00\n",
        ),
        (
            b"\x00\x00\xFE\xFF\x00\x00",
            "-:1:2: invalid UTF-32BE at byte 4: input ends inside a 4-byte code unit\n  \
             the input ends inside a 4-byte code unit: 00 00\n",
        ),
        (
            b"\xFF\xFEa\x00\x00\xDCb\x00",
            "-:1:3: invalid UTF-16LE at byte 4: surrogate that is not half of a surrogate pair\n  \
             00 DC is a trail surrogate, U+DC00, with no lead surrogate (D800..DBFF) before \
             it: UTF-16LE has surrogates only in pairs\n",
        ),
    ];
    for (input, start) in cases {
        let report = check_invalid(&["check", "--encoding", "auto"], input);
        assert!(report.starts_with(start), "{report}");
    }
}

/// What `args` print for `input` on standard input, which they find invalid.
fn check_invalid(args: &[&str], input: &[u8]) -> String {
    let out = cmd()
        .args(args)
        .write_stdin(input.to_vec())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8(out.stdout).unwrap()
}

/// A lead surrogate, then one last byte: one finding from the lead to the
/// end (CPython's decoder: "unexpected end of data", bytes 2-4), as the
/// repair writes one U+FFFD for it; in either byte order.
#[test]
fn a_lead_surrogate_and_an_odd_last_byte_are_one_finding() {
    let cases: [(&[u8], &str); 2] = [
        (
            b"\xFF\xFE\x00\xD8\x41",
            "-:1:2: invalid UTF-16LE at byte 2: input ends inside a 2-byte code unit\n  \
             00 D8 is a lead surrogate, U+D800, and the input ends inside the next 2-byte \
             code unit: 41\n         0  FF FE 00 D8 41 ",
        ),
        (
            b"\xFE\xFF\xD8\x00\x41",
            "-:1:2: invalid UTF-16BE at byte 2: input ends inside a 2-byte code unit\n  \
             D8 00 is a lead surrogate, U+D800, and the input ends inside the next 2-byte \
             code unit: 41\n         0  FE FF D8 00 41 ",
        ),
    ];
    for (input, start) in cases {
        let report = check_invalid(&["check", "--all", "--encoding", "auto"], input);
        assert!(report.starts_with(start), "{report}");
        assert_eq!(report.matches("invalid UTF-16").count(), 1, "{report}");
        let json = check_invalid(&["check", "--all", "--json", "--encoding", "auto"], input);
        assert_eq!(json.matches("\"offset\"").count(), 1, "{json}");
    }
}

#[test]
fn plain_text_is_utf8() {
    cmd()
        .args(["check", "--encoding", "auto"])
        .write_stdin(&b"ok\n"[..])
        .assert()
        .code(0)
        .stdout("");
    // Short inputs, shorter than the magic number, are read whole.
    cmd()
        .args(["check", "--encoding", "auto"])
        .write_stdin(&b"\xEF\xB7"[..])
        .assert()
        .code(1);
}
