//! `utf8guard check --encoding auto`: the magic number chooses Corrected
//! UTF-8, a UTF-8 byte order mark is noted, a UTF-16 or UTF-32 one is a
//! single message; files and standard input alike.

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

/// A UTF-16 or UTF-32 file is not UTF-8: status 1, listed by `-l` (the
/// way to list the files that are not UTF-8), with a note that says what
/// it is; not an input that cannot be read.
#[test]
fn a_utf16_or_utf32_byte_order_mark_is_not_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let wide = dir.path().join("wide.txt");
    fs::write(&wide, b"\xFF\xFEh\x00i\x00\n\x00").unwrap();
    let plain = dir.path().join("plain.txt");
    fs::write(&plain, b"plain\n").unwrap();
    cmd()
        .args(["--encoding", "auto", "-l"])
        .arg(&wide)
        .arg(&plain)
        .assert()
        .code(1)
        .stderr("")
        .stdout(format!("{}\n", wide.display()));
    let note = "UTF-16LE text by its byte order mark (FF FE), not UTF-8: \
                `utf8guard convert --from utf-16le --to utf-8` converts it";
    let output = cmd()
        .args(["check", "--encoding", "auto"])
        .arg(&wide)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.starts_with(&format!("{}:1:1: invalid UTF-8 at byte 0", wide.display())),
        "{text}"
    );
    assert!(
        text.ends_with(&format!("{}: note: {note}\n", wide.display())),
        "{text}"
    );
    let output = cmd()
        .args(["--encoding", "auto", "--json"])
        .arg(&wide)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["status"], "invalid");
    assert_eq!(report["note"], note);
    let output = cmd()
        .args(["check", "--encoding", "auto"])
        .write_stdin(&b"\x00\x00\xFE\xFF\x00\x00\x00a"[..])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8(output.stdout)
        .unwrap()
        .ends_with("-: note: UTF-32BE text by its byte order mark (00 00 FE FF), not UTF-8\n"));
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
