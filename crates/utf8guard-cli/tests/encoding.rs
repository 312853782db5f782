//! `utf8guard check --encoding NAME`: every member of the UTF-8 family, on
//! files, on standard input (sequences split across reads), with `--all`,
//! `--json`, `--jobs` on inputs large enough to be split, `--stats`, and
//! Corrected UTF-8's magic number and reserved runs.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command as StdCommand, Stdio};
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_utf8guard");

/// Corrected UTF-8's magic number.
const MAGIC: &[u8] = b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0A";

/// The command, with no kernel forced from the environment.
fn cmd() -> Command {
    let mut c = Command::new(BIN);
    c.env_remove("UTF8GUARD_KERNEL");
    c
}

/// An error of a JSON report: (offset, length, kind, line, column).
type Found = (u64, Option<u64>, String, u64, u64);

/// The errors of a JSON report.
fn errors_of(report: &Value) -> Vec<Found> {
    report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["offset"].as_u64().unwrap(),
                e["length"].as_u64(),
                e["kind"].as_str().unwrap().to_owned(),
                e["line"].as_u64().unwrap(),
                e["column"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// `(offset, length, kind, line, column)` as the tests write them.
fn found(list: &[(u64, Option<u64>, &str, u64, u64)]) -> Vec<Found> {
    list.iter()
        .map(|&(at, len, kind, line, col)| (at, len, kind.to_owned(), line, col))
        .collect()
}

/// The one JSON report of a run, and its exit status.
fn json_report(output: &std::process::Output) -> (i32, Value) {
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    let mut lines = stdout.lines();
    let report = serde_json::from_str(lines.next().expect("a report")).unwrap();
    assert_eq!(lines.next(), None, "one report");
    (output.status.code().unwrap(), report)
}

/// Checks `bytes` as `encoding` with `args` (and `--json`), as a file and
/// on standard input, which must agree but for the path; returns the
/// status and the report of the file.
fn check_both(encoding: &str, bytes: &[u8], args: &[&str]) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.txt");
    fs::write(&path, bytes).unwrap();
    let run = |c: &mut Command| {
        json_report(
            &c.args(["--json", "--encoding", encoding])
                .args(args)
                .output()
                .unwrap(),
        )
    };
    let (code, file) = run(cmd().arg(&path));
    // A pipe, written and closed: streamed, to its end.
    let (reader, mut writer) = std::io::pipe().unwrap();
    std::io::Write::write_all(&mut writer, bytes).unwrap();
    drop(writer);
    let mut piped = StdCommand::new(env!("CARGO_BIN_EXE_utf8guard"));
    piped.env_remove("UTF8GUARD_KERNEL").stdin(reader);
    let (stdin_code, mut stdin) = json_report(
        &piped
            .args(["--json", "--encoding", encoding])
            .args(args)
            .output()
            .unwrap(),
    );
    assert_eq!(stdin_code, code, "{encoding} {bytes:02X?}");
    stdin["path"] = file["path"].clone();
    if stdin["more_errors"].is_null() {
        // Reading stopped at the last error reported: whether more follow
        // is not known, nor whether another encoding accepts the whole.
        assert_eq!(args, [] as [&str; 0]);
        stdin["more_errors"] = file["more_errors"].clone();
        stdin["errors"][0]["hint"] = file["errors"][0]["hint"].clone();
        // Nor where a reserved run after it is.
        if stdin.get("reserved_run") != file.get("reserved_run") {
            assert_eq!(stdin["reserved_run"], Value::Null);
            stdin["reserved_run"] = file["reserved_run"].clone();
        }
    }
    assert_eq!(stdin, file, "{encoding} {bytes:02X?}");
    (code, file)
}

/// Every error of `bytes` in `encoding`, with `--all`, from a file and
/// from standard input.
fn all_errors(encoding: &str, bytes: &[u8]) -> Vec<Found> {
    let (code, report) = check_both(encoding, bytes, &["--all"]);
    assert_eq!(report["encoding"], encoding);
    let errors = errors_of(&report);
    assert_eq!(code, if errors.is_empty() { 0 } else { 1 });
    assert_eq!(
        report["status"],
        if code == 0 { "valid" } else { "invalid" }
    );
    errors
}

#[test]
fn each_encoding_accepts_its_own_forms_and_reports_exact_errors() {
    // (encoding, valid, invalid, every error of the invalid input)
    #[allow(clippy::type_complexity)]
    let cases: &[(&str, &[u8], &[u8], &[(u64, Option<u64>, &str, u64, u64)])] = &[
        (
            "utf-8",
            "Grüße 🌍\n".as_bytes(),
            // A CESU-8 pair: each surrogate's ED alone, then its
            // continuation bytes.
            b"x\xED\xA0\xBD\xED\xB8\x80",
            &[
                (1, Some(1), "surrogate", 1, 2),
                (2, Some(1), "unexpected_continuation", 1, 3),
                (3, Some(1), "unexpected_continuation", 1, 4),
                (4, Some(1), "surrogate", 1, 5),
                (5, Some(1), "unexpected_continuation", 1, 6),
                (6, Some(1), "unexpected_continuation", 1, 7),
            ],
        ),
        (
            "unicode-3.1",
            // A pair, a lone trail, a lone lead at the end.
            b"a\xED\xA0\xBD\xED\xB8\x80 \xED\xB0\x80\xED\xA0\x80",
            // No 5-byte forms.
            b"ab\xF8\x88\x80\x80\x80",
            &[
                (2, Some(1), "invalid_byte", 1, 3),
                (3, Some(1), "unexpected_continuation", 1, 4),
                (4, Some(1), "unexpected_continuation", 1, 5),
                (5, Some(1), "unexpected_continuation", 1, 6),
                (6, Some(1), "unexpected_continuation", 1, 7),
            ],
        ),
        (
            "wtf-8",
            // A lone lead, a trail then a lead, a 4-byte form.
            b"a\xED\xA0\xBD b\xED\xB0\x80\xED\xA0\x80 \xF0\x9F\x98\x80",
            // A lead then a trail: the trail's ED is the error (column 3:
            // the lead counts as one).
            b"x\xED\xA0\xBD\xED\xB8\x80y",
            &[
                (4, Some(1), "surrogate_pair", 1, 3),
                (5, Some(1), "unexpected_continuation", 1, 4),
                (6, Some(1), "unexpected_continuation", 1, 5),
            ],
        ),
        (
            "cesu-8",
            // A pair counts as two columns: the error after it is at 3.
            b"a\xED\xA0\xBD\xED\xB8\x80\n\xE2\x82\xAC",
            // A lone trail; a lone lead before z; a 4-byte form; a lead,
            // then a lead that is no trail (4 bytes of a pair's start),
            // then a pair's trail alone.
            b"a\xED\xB8\x80 \xED\xA0\xBDz \xF0\x9F\x98\x80 \xED\xA0\xBD\xED\xA0\xBD\xED\xB8\x80",
            &[
                (1, Some(1), "lone_surrogate", 1, 2),
                (2, Some(1), "unexpected_continuation", 1, 3),
                (3, Some(1), "unexpected_continuation", 1, 4),
                (5, Some(3), "lone_surrogate", 1, 6),
                (10, Some(1), "four_byte_form", 1, 9),
                (11, Some(1), "unexpected_continuation", 1, 10),
                (12, Some(1), "unexpected_continuation", 1, 11),
                (13, Some(1), "unexpected_continuation", 1, 12),
                (15, Some(4), "lone_surrogate", 1, 14),
                (19, Some(1), "unexpected_continuation", 1, 15),
                (20, Some(1), "unexpected_continuation", 1, 16),
                (21, Some(1), "lone_surrogate", 1, 17),
                (22, Some(1), "unexpected_continuation", 1, 18),
                (23, Some(1), "unexpected_continuation", 1, 19),
            ],
        ),
        (
            "mutf-8",
            // C0 80, a lone lead, a pair.
            b"\xC0\x80 \xED\xA0\xBD \xED\xA0\xBD\xED\xB8\x80",
            // 00; another overlong 2-byte form; a 4-byte form.
            b"a\x00b\xC0\x81 \xF0\x9F\x98\x80",
            &[
                (1, Some(1), "nul", 1, 2),
                (3, Some(1), "overlong", 1, 4),
                (4, Some(1), "unexpected_continuation", 1, 5),
                (6, Some(1), "four_byte_form", 1, 7),
                (7, Some(1), "unexpected_continuation", 1, 8),
                (8, Some(1), "unexpected_continuation", 1, 9),
                (9, Some(1), "unexpected_continuation", 1, 10),
            ],
        ),
        (
            "rfc2279",
            // 5 and 6 bytes (one column each), a surrogate.
            b"a\xF8\x88\x80\x80\x80 \xFC\x84\x80\x80\x80\x80 \xED\xA0\x80",
            // FE; an overlong 5-byte form; a 6-byte sequence cut short.
            b"a\xFE \xF8\x80\x80\x80\x80 \xFC\x84\x80",
            &[
                (1, Some(1), "invalid_byte", 1, 2),
                (3, Some(1), "overlong", 1, 4),
                (4, Some(1), "unexpected_continuation", 1, 5),
                (5, Some(1), "unexpected_continuation", 1, 6),
                (6, Some(1), "unexpected_continuation", 1, 7),
                (7, Some(1), "unexpected_continuation", 1, 8),
                (9, None, "incomplete", 1, 10),
            ],
        ),
        (
            "corrected-utf-8",
            // The magic number, reserved runs, a 6-byte sequence.
            b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0Aok \xFE\x80\x80 \xFF \xFC\x80\x80\x80\x80\x80",
            // After the first error the magic number is not at the start
            // of a check: its 00 is an error; a 00 in text.
            b"\x80\xEF\xB7\x9D\xED\xB2\xAE\x00\x0A \xFE\x80 z\x00",
            &[
                (0, Some(1), "unexpected_continuation", 1, 1),
                (7, Some(1), "nul", 1, 4),
                (14, Some(1), "nul", 2, 5),
            ],
        ),
    ];
    for &(encoding, valid, invalid, expected) in cases {
        assert_eq!(all_errors(encoding, valid), [], "{encoding}");
        assert_eq!(all_errors(encoding, invalid), found(expected), "{encoding}");
        // Without --all, the first one, and more follow.
        let (code, report) = check_both(encoding, invalid, &[]);
        assert_eq!(code, 1);
        assert_eq!(errors_of(&report), found(&expected[..1]), "{encoding}");
        assert_eq!(report["more_errors"], expected.len() > 1, "{encoding}");
    }
}

#[test]
fn names_are_taken_in_any_case_with_aliases() {
    let pair = b"\xED\xA0\xBD\xED\xB8\x80";
    for name in ["cesu-8", "CESU8", "cesu", "Cesu_8"] {
        let (code, report) = check_both(name, pair, &[]);
        assert_eq!((code, &report["encoding"]), (0, &Value::from("cesu-8")));
    }
    for name in ["java", "MUTF8", "modified-utf-8", "Modified_UTF8"] {
        let (code, report) = check_both(name, b"\xC0\x80", &[]);
        assert_eq!((code, &report["encoding"]), (0, &Value::from("mutf-8")));
    }
    // Without --encoding, no encoding field; with utf8, "utf-8".
    let output = cmd().arg("--json").write_stdin("ok").output().unwrap();
    let (_, report) = json_report(&output);
    assert_eq!(report.get("encoding"), None);
    let (code, report) = check_both("UTF8", pair, &[]);
    assert_eq!((code, &report["encoding"]), (1, &Value::from("utf-8")));
}

#[test]
fn an_unknown_encoding_is_a_usage_error_that_lists_the_names() {
    cmd()
        .args(["--encoding", "utf-16", "-"])
        .write_stdin("ok")
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            "error: invalid value 'utf-16' for '--encoding <NAME>': unknown encoding; known: \
             utf-8, unicode-3.1, wtf-8, cesu-8, mutf-8, rfc2279, corrected-utf-8, auto\n\n\
             For more information, try '--help'.\n",
        );
}

#[test]
fn help_lists_each_encoding_on_a_line() {
    let output = cmd().arg("--help").output().unwrap();
    let help = String::from_utf8(output.stdout).unwrap();
    let lines = [
        "utf-8            strict UTF-8 (RFC 3629): 1-4 bytes, no surrogates, up to U+10FFFF",
        "unicode-3.1      Unicode 3.1 (Corrigendum #1): UTF-8 plus 3-byte surrogates, alone or paired",
        "wtf-8            WTF-8: lone surrogates allowed, a surrogate pair must be 4 bytes",
        "cesu-8           CESU-8 (UTR #26): supplementary characters as 6-byte surrogate pairs only",
        "mutf-8           Java's modified UTF-8: CESU-8 forms, C0 80 for U+0000, no 00, lone surrogates",
        "rfc2279          RFC 2279: 1-6 bytes up to U+7FFFFFFF, shortest form, surrogates",
        "corrected-utf-8  Corrected UTF-8: 1-6 bytes with offsets, no 00, reserved FE/FF runs, magic number",
    ];
    for line in lines {
        assert!(
            help.contains(&format!("\n            {line}\n")),
            "--help lacks {line:?}"
        );
    }
    let short = cmd().arg("-h").output().unwrap();
    assert!(String::from_utf8(short.stdout).unwrap().contains(
        "\n  -e, --encoding <NAME>  Check another member of the UTF-8 family [default: utf-8]\n"
    ));
}

#[test]
fn the_text_report_names_the_encoding_and_explains_its_errors() {
    let run = |encoding: &str, bytes: &[u8]| {
        let output = cmd()
            .args(["--encoding", encoding, "--all"])
            .write_stdin(bytes)
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let (code, stdout, stderr) = run("cesu-8", b"a\xED\xA0\xBDb \xF0\x9F\x98\x80");
    assert_eq!((code, stderr.as_str()), (Some(1), ""));
    assert_eq!(
        stdout.lines().take(9).collect::<Vec<_>>(),
        [
            "-:1:2: invalid CESU-8 at byte 1: surrogate that is not half of a surrogate pair",
            "  ED A0 BD is a lead surrogate, U+D83D, not followed by a trail surrogate \
             (ED B0..BF 80..BF): CESU-8 has surrogates only in pairs",
            "  hint: the whole input is valid WTF-8 (--encoding wtf-8); also valid in \
             unicode-3.1, rfc2279, corrected-utf-8",
            "         0  61 ED A0 BD 62 20 F0 9F 98 80                    |a...b ....|",
            "               ^^ ^^ ^^                                        ^^^",
            "-:1:5: invalid CESU-8 at byte 6: 4-byte sequence, where a surrogate pair is required",
            "  F0 9F 98 80 is the 4-byte form of U+1F600 '😀', which CESU-8 does not have: it \
             writes a supplementary character as a surrogate pair, here ED A0 BD ED B8 80",
            "         0  61 ED A0 BD 62 20 F0 9F 98 80                    |a...b ....|",
            "                              ^^                                    ^",
        ]
    );

    let (code, stdout, _) = run("wtf-8", b"\xED\xA0\xBD\xED\xB8\x80");
    assert_eq!(code, Some(1));
    assert_eq!(
        stdout.lines().take(3).collect::<Vec<_>>(),
        [
            "-:1:2: invalid WTF-8 at byte 3: surrogate pair, which must be a 4-byte sequence here",
            "  ED B8 80 is a trail surrogate, U+DE00, right after the lead surrogate ED A0 BD, \
             U+D83D: WTF-8 requires the pair's 4-byte form, F0 9F 98 80 for U+1F600 '😀'",
            "  hint: the whole input is valid CESU-8 (--encoding cesu-8); also valid in mutf-8, \
             unicode-3.1, rfc2279, corrected-utf-8",
        ]
    );

    let (code, stdout, _) = run("mutf-8", b"a\x00");
    assert_eq!(code, Some(1));
    assert_eq!(
        stdout.lines().take(2).collect::<Vec<_>>(),
        [
            "-:1:2: invalid modified UTF-8 at byte 1: 00 byte, which this encoding does not allow",
            "  00 never appears in modified UTF-8, which writes U+0000 as C0 80",
        ]
    );

    // Strict UTF-8 (the default) on a CESU-8 pair: the hint on the pair,
    // as without --encoding, then the encodings that accept the input.
    let (code, stdout, _) = run("utf-8", b"\xED\xA0\xBD\xED\xB8\x80");
    assert_eq!(code, Some(1));
    assert_eq!(
        stdout.lines().skip(2).take(2).collect::<Vec<_>>(),
        [
            "  hint: ED A0 BD ED B8 80 is a UTF-16 surrogate pair encoded as two 3-byte sequences \
             (CESU-8, as Java's modified UTF-8 and MySQL's utf8mb3 write it); U+1F600 '😀' is \
             F0 9F 98 80 in UTF-8",
            "  hint: the whole input is valid CESU-8 (--encoding cesu-8); also valid in mutf-8, \
             unicode-3.1, rfc2279, corrected-utf-8",
        ]
    );
}

#[test]
fn corrected_utf_8_notes_the_magic_number_and_the_first_reserved_run() {
    let doc = [MAGIC, b"ok \xFE\x80\x80 \xFF\n"].concat();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.txt");
    fs::write(&path, &doc).unwrap();
    cmd()
        .current_dir(dir.path())
        .args(["--encoding", "corrected", "doc.txt"])
        .assert()
        .code(0)
        .stdout(
            "doc.txt: note: starts with the magic number EF B7 9D ED B2 AE 00 0A; first \
             reserved FE/FF run at byte 11 (kept for future use, not an error)\n",
        )
        .stderr("");
    let (code, report) = check_both("corrected-utf-8", &doc, &[]);
    assert_eq!(code, 0);
    assert_eq!(report["magic_number"], true);
    assert_eq!(report["reserved_run"], 11);
    // Without the magic number, a valid input without a reserved run
    // prints nothing.
    cmd()
        .args(["--encoding", "corrected"])
        .write_stdin("plain text")
        .assert()
        .code(0)
        .stdout("");
    let (_, report) = check_both("corrected-utf-8", b"plain \xFF", &[]);
    assert_eq!(report["magic_number"], false);
    assert_eq!(report["reserved_run"], 6);
    // Invalid: the run before the first error is reported; after it, in
    // the part not checked, it is not.
    let (code, report) = check_both("corrected-utf-8", b"a\xFE b\x00 \xFF", &[]);
    assert_eq!((code, &report["reserved_run"]), (1, &Value::from(1)));
    let (code, report) = check_both("corrected-utf-8", b"a\x00 \xFF\x00", &[]);
    assert_eq!((code, &report["reserved_run"]), (1, &Value::Null));
    let (code, report) = check_both("corrected-utf-8", b"a\x00 \xFF\x00", &["--all"]);
    assert_eq!((code, &report["reserved_run"]), (1, &Value::from(3)));
    // No more errors: the file was checked to its end.
    let (code, report) = check_both("corrected-utf-8", b"a\x00 \xFF", &[]);
    assert_eq!((code, &report["reserved_run"]), (1, &Value::from(3)));
    // Only the other encodings get the fields.
    let (_, report) = check_both("cesu-8", &doc, &[]);
    assert_eq!(report.get("magic_number"), None);
    assert_eq!(report.get("reserved_run"), None);
    // Strict UTF-8 on the document: the magic number is named.
    let (code, report) = check_both("utf-8", &doc, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        report["errors"][0]["hint"],
        "the input starts with EF B7 9D ED B2 AE 00 0A, the magic number of Corrected UTF-8, \
         and all of it is valid Corrected UTF-8 (--encoding corrected-utf-8)"
    );
}

/// Runs the command on a pipe written in `parts`, with a pause between
/// them so that each arrives in a read of its own; returns the status and
/// the JSON report.
fn check_pipe_in_parts(encoding: &str, parts: &[&[u8]]) -> (i32, Value) {
    let mut child = StdCommand::new(BIN)
        .env_remove("UTF8GUARD_KERNEL")
        .args(["--json", "--all", "--encoding", encoding])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for part in parts {
        stdin.write_all(part).unwrap();
        stdin.flush().unwrap();
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(stdin);
    json_report(&child.wait_with_output().unwrap())
}

#[test]
fn a_stream_keeps_pairs_and_sequences_split_across_reads() {
    // A CESU-8 pair split after each of its bytes.
    let pair: &[u8] = b"\xED\xA0\xBD\xED\xB8\x80";
    for cut in 1..pair.len() {
        let (code, report) = check_pipe_in_parts("cesu-8", &[b"a", &pair[..cut], &pair[cut..]]);
        assert_eq!((code, errors_of(&report)), (0, vec![]), "cut {cut}");
        // In WTF-8 the trail is the error, wherever the cut.
        let (code, report) = check_pipe_in_parts("wtf-8", &[b"a", &pair[..cut], &pair[cut..]]);
        assert_eq!(code, 1);
        assert_eq!(
            errors_of(&report),
            found(&[
                (4, Some(1), "surrogate_pair", 1, 3),
                (5, Some(1), "unexpected_continuation", 1, 4),
                (6, Some(1), "unexpected_continuation", 1, 5),
            ]),
            "cut {cut}"
        );
    }
    // A lead followed by a lead, split at the end of a read: the first
    // pair's maximal subpart is 4 bytes; then a lead at the end of the
    // stream.
    let (code, report) = check_pipe_in_parts(
        "cesu-8",
        &[
            b"ab\xED\xA0",
            b"\xBD",
            b"\xED\xA0\xBDz",
            b"\xED\xA0",
            b"\xBD",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(
        errors_of(&report),
        found(&[
            (2, Some(4), "lone_surrogate", 1, 3),
            (6, Some(1), "unexpected_continuation", 1, 4),
            (7, Some(1), "unexpected_continuation", 1, 5),
            (9, None, "incomplete", 1, 7),
        ])
    );
    // A 6-byte sequence of RFC 2279 split over three reads.
    let (code, report) =
        check_pipe_in_parts("rfc2279", &[b"\n\xFC\x84", b"\x80\x80", b"\x80\x80\x00"]);
    assert_eq!((code, errors_of(&report)), (0, vec![]));
    // Corrected UTF-8's magic number split across reads, then counted
    // only at offset 0.
    let (code, report) = check_pipe_in_parts(
        "corrected",
        &[
            &MAGIC[..3],
            &MAGIC[3..7],
            &MAGIC[7..],
            b"x\xFE",
            b"\x80",
            MAGIC,
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(report["magic_number"], true);
    assert_eq!(report["reserved_run"], 9);
    assert_eq!(errors_of(&report), found(&[(17, Some(1), "nul", 2, 5)]));
}

/// A file of `bytes` in `dir`.
fn file(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = dir.join(name);
    fs::write(&path, bytes).unwrap();
    path
}

/// The JSON report of `path` with `--all` and each number of jobs: the
/// same for all.
fn all_jobs(encoding: &str, path: &Path) -> (i32, Value) {
    let mut first = None;
    for jobs in ["1", "2", "3"] {
        let output = cmd()
            .args(["--json", "--all", "--encoding", encoding, "--jobs", jobs])
            .arg(path)
            .output()
            .unwrap();
        let report = json_report(&output);
        match &first {
            None => first = Some(report),
            Some(first) => assert_eq!(&report, first, "{encoding} --jobs {jobs}"),
        }
    }
    first.unwrap()
}

#[test]
fn large_files_split_across_jobs_keep_pairs_and_long_sequences_whole() {
    let dir = tempfile::tempdir().unwrap();
    // CESU-8: 3.6 MB of surrogate pairs with a newline every 100 pairs,
    // and few other places to cut. Errors: a lone lead right before
    // ASCII, a 4-byte form, a pair with its trail replaced.
    let line = [&b"\xED\xA0\xBD\xED\xB8\x80".repeat(100)[..], b"\n"].concat(); // 601 bytes
    let mut cesu = line.repeat(6000);
    let lone = 2000 * 601 + 594; // the last pair's lead, then ASCII
    cesu[lone + 3..lone + 6].copy_from_slice(b"abc");
    let four = 4000 * 601 + 300;
    cesu[four..four + 6].copy_from_slice(b"\xF0\x9F\x98\x80ab");
    let half = 5999 * 601 + 6;
    cesu[half + 3..half + 6].copy_from_slice(b"\xE2\x82\xAC");
    let path = file(dir.path(), "cesu.txt", &cesu);
    let (code, report) = all_jobs("cesu-8", &path);
    assert_eq!(code, 1);
    assert_eq!(
        errors_of(&report),
        found(&[
            (lone as u64, Some(3), "lone_surrogate", 2001, 199),
            (four as u64, Some(1), "four_byte_form", 4001, 101),
            (
                four as u64 + 1,
                Some(1),
                "unexpected_continuation",
                4001,
                102
            ),
            (
                four as u64 + 2,
                Some(1),
                "unexpected_continuation",
                4001,
                103
            ),
            (
                four as u64 + 3,
                Some(1),
                "unexpected_continuation",
                4001,
                104
            ),
            (half as u64, Some(3), "lone_surrogate", 6000, 3),
        ])
    );

    // WTF-8: lone leads, and one pair (an error) in the middle.
    let line = [&b"\xED\xA0\xBD".repeat(200)[..], b"\n"].concat(); // 601 bytes
    let mut wtf = line.repeat(6000);
    let at = 3000 * 601 + 300;
    wtf[at..at + 3].copy_from_slice(b"\xED\xB8\x80");
    let path = file(dir.path(), "wtf.txt", &wtf);
    let (_, report) = all_jobs("wtf-8", &path);
    assert_eq!(
        errors_of(&report),
        found(&[
            (at as u64, Some(1), "surrogate_pair", 3001, 101),
            (at as u64 + 1, Some(1), "unexpected_continuation", 3001, 102),
            (at as u64 + 2, Some(1), "unexpected_continuation", 3001, 103),
        ])
    );

    // Corrected UTF-8: the magic number at the start (valid) and again in
    // the middle (its 00 an error), 5- and 6-byte sequences and reserved
    // runs.
    let line = b"long \xF8\x88\x80\x80\x80\xFC\x84\x80\x80\x80\x80 run \xFE\x80\x80\n";
    assert_eq!(line.len(), 25);
    let body = line.repeat(140_000);
    let middle = 70_000 * 25;
    let doc = [MAGIC, &body[..middle], MAGIC, &body[middle..]].concat();
    let path = file(dir.path(), "corrected.txt", &doc);
    let (code, report) = all_jobs("corrected", &path);
    assert_eq!(code, 1);
    assert_eq!(report["magic_number"], true);
    assert_eq!(report["reserved_run"], 8 + 21);
    let nul = (8 + middle + 6) as u64;
    assert_eq!(
        errors_of(&report),
        found(&[(nul, Some(1), "nul", 70_002, 3)])
    );

    // RFC 2279: 5- and 6-byte sequences, one 6-byte sequence cut short by
    // an ASCII byte in the middle.
    let line = b"long \xF8\x88\x80\x80\x80\xFC\x84\x80\x80\x80\x80 run\n";
    assert_eq!(line.len(), 21);
    let mut text = line.repeat(180_000);
    let short = 90_000 * 21 + 10;
    text[short + 5] = b'x';
    let path = file(dir.path(), "rfc2279.txt", &text);
    let (_, report) = all_jobs("rfc2279", &path);
    assert_eq!(
        errors_of(&report),
        found(&[(short as u64, Some(5), "too_short", 90_001, 7)])
    );
}

#[test]
fn stats_count_the_encodings_sequences() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(
        dir.path(),
        "s.txt",
        b"a\xF8\x88\x80\x80\x80 \xFC\x84\x80\x80\x80\x80 \xED\xA0\x80 \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\n\xFE",
    );
    let stats = |encoding: &str| {
        let output = cmd()
            .args([
                "--stats",
                "-q",
                "-j",
                "1",
                "--kernel",
                "scalar",
                "--encoding",
                encoding,
            ])
            .arg(&path)
            .output()
            .unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        let lines: Vec<String> = stderr.lines().map(str::to_owned).collect();
        assert_eq!(lines.len(), 4, "{stderr}");
        assert!(
            lines[3].ends_with(&format!(
                "/s, kernel scalar (forced), 1 job, encoding {encoding}"
            )),
            "{}",
            lines[3]
        );
        (output.status.code(), lines[..3].to_vec())
    };
    // a, three spaces, the newline; é; the surrogate and €; the 4-byte
    // form; one of 5 and one of 6 bytes; in Corrected UTF-8, the FE too.
    assert_eq!(
        stats("corrected-utf-8"),
        (
            Some(0),
            vec![
                "utf8guard: inputs: 1: 1 valid, 0 invalid, 0 unreadable".to_owned(),
                "utf8guard: bytes: 29 (29 B)".to_owned(),
                "utf8guard: sequences in the well-formed parts: 12: 5 of 1 byte, 1 of 2, 2 of 3, \
                 1 of 4, 1 of 5, 1 of 6, 1 reserved run"
                    .to_owned(),
            ]
        )
    );
    assert_eq!(
        stats("rfc2279").1[2],
        "utf8guard: sequences in the well-formed parts: 11: 5 of 1 byte, 1 of 2, 2 of 3, \
         1 of 4, 1 of 5, 1 of 6"
    );
    // CESU-8 stops at the F8: a, before it.
    assert_eq!(
        stats("cesu-8").1[2],
        "utf8guard: sequences in the well-formed parts: 1: 1 of 1 byte, 0 of 2, 0 of 3, 0 of 4"
    );
}

#[test]
fn repair_refuses_another_encoding() {
    cmd()
        .args(["repair", "--encoding", "cesu8"])
        .write_stdin("ok")
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            "utf8guard: repair --encoding cesu-8: repair reads and writes strict UTF-8 only; \
             `utf8guard check --encoding cesu-8` checks CESU-8\n",
        );
    cmd()
        .args(["repair", "--encoding", "UTF8"])
        .write_stdin(&b"a\xFFb"[..])
        .assert()
        .code(1)
        .stdout("a\u{FFFD}b");
}

#[test]
fn the_command_guide_shows_the_report_as_it_is() {
    let guide = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/CLI.md"))
        .unwrap();
    // A pipe, written and closed, as printf leaves it.
    let (reader, mut writer) = std::io::pipe().unwrap();
    writer
        .write_all(b"a\xED\xA0\xBDb \xF0\x9F\x98\x80")
        .unwrap();
    drop(writer);
    let output = StdCommand::new(env!("CARGO_BIN_EXE_utf8guard"))
        .env_remove("UTF8GUARD_KERNEL")
        .args(["--encoding", "cesu-8"])
        .stdin(reader)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let shown = format!(
        "$ printf 'a\\xED\\xA0\\xBDb \\xF0\\x9F\\x98\\x80' | utf8guard --encoding cesu-8\n{}```\n",
        String::from_utf8(output.stdout).unwrap()
    );
    assert!(guide.contains(&shown), "docs/CLI.md lacks:\n{shown}");
}
