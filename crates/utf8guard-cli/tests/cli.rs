//! The `utf8guard` command as a user runs it: every subcommand, option and
//! exit status, special inputs, and agreement with std and `isutf8`.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};

use assert_cmd::Command;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_utf8guard");

/// The command, with no kernel forced from the environment.
fn cmd() -> Command {
    let mut c = Command::new(BIN);
    c.env_remove("UTF8GUARD_KERNEL");
    c
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn stdout_of(output: &std::process::Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr_of(output: &std::process::Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8")
}

/// The report of the command run with `args` on `target`, which must be
/// found invalid (exit status 1).
fn invalid_report(args: &[&str], target: &Path) -> String {
    let output = cmd().args(args).arg(target).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    stdout_of(&output)
}

/// Every error std finds when decoding goes on after each invalid sequence:
/// (offset, length).
fn std_errors(bytes: &[u8]) -> Vec<(u64, Option<u64>)> {
    let mut out = Vec::new();
    let mut pos = 0;
    while let Err(e) = std::str::from_utf8(&bytes[pos..]) {
        let at = pos + e.valid_up_to();
        out.push((at as u64, e.error_len().map(|n| n as u64)));
        match e.error_len() {
            Some(n) => pos = at + n,
            None => break,
        }
    }
    out
}

/// Line and column (1-based, in characters with each invalid sequence as
/// one U+FFFD) of `offset`, from std's lossy decoding.
fn std_line_column(bytes: &[u8], offset: usize) -> (u64, u64) {
    let before = &bytes[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count() as u64
        + 1;
    (line, column)
}

/// Parses `--json` output: one object per line.
fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

/// (offset, length, line, column) of each error of a JSON report.
fn json_errors(report: &Value) -> Vec<(u64, Option<u64>, u64, u64)> {
    report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["offset"].as_u64().unwrap(),
                e["length"].as_u64(),
                e["line"].as_u64().unwrap(),
                e["column"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// What the JSON report's errors must be, from std.
fn expected_errors(bytes: &[u8]) -> Vec<(u64, Option<u64>, u64, u64)> {
    std_errors(bytes)
        .into_iter()
        .map(|(at, len)| {
            let (line, column) = std_line_column(bytes, at as usize);
            (at, len, line, column)
        })
        .collect()
}

/// Text with errors of every kind spread over lines.
fn sample_with_errors() -> Vec<u8> {
    let mut bytes = Vec::new();
    bytes.extend_from_slice("Grüße, κόσμε 🌍\n".as_bytes());
    bytes.extend_from_slice(b"caf\xE9 au lait \x93quoted\x94\n");
    bytes.extend_from_slice(b"cesu \xED\xA0\xBD\xED\xB8\x80 overlong \xC0\xAF \xE0\x80\x80\n");
    bytes.extend_from_slice(b"big \xF4\x90\x80\x80 bad \xFF\xFE short \xE2\x82x \xF0\x9F\x98\n");
    bytes.extend_from_slice("日本語 end \u{10FFFF}".as_bytes());
    bytes.extend_from_slice(b" \xF0\x9F\x98");
    bytes
}

// ------------------------------------------------------------- check ----

#[test]
fn a_valid_file_prints_nothing_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ok.txt");
    fs::write(&path, "Grüße 🌍 日本語 κόσμε\n").unwrap();
    cmd().arg(&path).assert().code(0).stdout("").stderr("");
}

#[test]
fn the_report_on_an_invalid_file_is_exact_and_matches_the_help() {
    let expected = "\
customers-latin1.csv:2:6: invalid UTF-8 at byte 18: multi-byte sequence cut short
  E9 starts a 3-byte sequence, but the next byte, 20, is not a continuation byte (80..BF)
  hint: in Latin-1 or Windows-1252, E9 is U+00E9 'é': is the file in that encoding? If so, `utf8guard convert --from windows-1252 --to utf-8` converts it (or `utf8guard repair -r windows-1252`, for a file that mixes the two)
        10  74 79 0A 31 2C 4A 6F 73 E9 20 4D FC 6C 6C 65 72  |ty.1,Jos. M.ller|
                                    ^^                                ^
customers-latin1.csv: more errors follow (--all or --max-errors N shows them)
";
    cmd()
        .current_dir(repo_root().join("corpora/demo/invalid"))
        .arg("customers-latin1.csv")
        .assert()
        .code(1)
        .stdout(expected)
        .stderr("");
    // `--help` shows the same report as its example.
    let help = cmd().arg("--help").output().unwrap();
    let help = stdout_of(&help);
    for line in expected.lines() {
        assert!(
            help.contains(&format!("\n  {line}\n")),
            "--help lacks the line {line:?}"
        );
    }
}

#[test]
fn all_reports_every_error_with_std_positions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sample.txt");
    let bytes = sample_with_errors();
    fs::write(&path, &bytes).unwrap();
    let output = cmd()
        .arg("--all")
        .arg("--json")
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let reports = json_lines(&stdout_of(&output));
    assert_eq!(reports.len(), 1);
    let expected = expected_errors(&bytes);
    assert_eq!(json_errors(&reports[0]), expected);
    // The positions spelled out, so that a shared mistake cannot hide.
    let offsets: Vec<u64> = expected.iter().map(|e| e.0).collect();
    assert_eq!(
        offsets,
        [
            28, 38, 45, 52, 53, 54, 55, 56, 57, 68, 69, 71, 72, 73, 79, 80, 81, 82, 88, 89, 97,
            101, 124
        ]
    );
    assert_eq!(expected[0], (28, Some(1), 2, 4));
    assert_eq!(*expected.last().unwrap(), (124, None, 5, 11));
    assert_eq!(reports[0]["more_errors"], false);

    // The text report has a header line per error, in the same order.
    let text = cmd().arg("--all").arg(&path).output().unwrap();
    let headers: Vec<String> = stdout_of(&text)
        .lines()
        .filter(|l| l.contains(": invalid UTF-8 at byte "))
        .map(|l| l[path.to_str().unwrap().len()..].to_owned())
        .collect();
    let expected_headers: Vec<String> = expected
        .iter()
        .map(|(at, _, line, column)| format!(":{line}:{column}: invalid UTF-8 at byte {at}"))
        .collect();
    assert_eq!(headers.len(), expected_headers.len());
    for (got, want) in headers.iter().zip(&expected_headers) {
        assert!(got.starts_with(want), "{got} vs {want}");
    }
}

#[test]
fn max_errors_limits_the_report_and_says_more_follow() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sample.txt");
    fs::write(&path, sample_with_errors()).unwrap();
    let output = cmd()
        .args(["--json", "--max-errors", "3"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let reports = json_lines(&stdout_of(&output));
    assert_eq!(
        json_errors(&reports[0]),
        [
            (28, Some(1), 2, 4),
            (38, Some(1), 2, 14),
            (45, Some(1), 2, 21)
        ]
    );
    assert_eq!(reports[0]["more_errors"], true);

    let text = cmd().args(["-m", "3"]).arg(&path).output().unwrap();
    let text = stdout_of(&text);
    assert_eq!(text.matches(": invalid UTF-8 at byte ").count(), 3);
    assert!(text.ends_with(&format!(
        "{}: more errors follow (the report stops at --max-errors 3)\n",
        path.display()
    )));
    // Without a limit given, the first error only.
    let text = cmd().arg(&path).output().unwrap();
    assert!(stdout_of(&text).ends_with(&format!(
        "{}: more errors follow (--all or --max-errors N shows them)\n",
        path.display()
    )));

    // As many as there are: nothing more follows.
    let output = cmd()
        .args(["--json", "-m", "23"])
        .arg(&path)
        .output()
        .unwrap();
    let reports = json_lines(&stdout_of(&output));
    assert_eq!(reports[0]["errors"].as_array().unwrap().len(), 23);
    assert_eq!(reports[0]["more_errors"], false);
}

/// Runs the command with `args` on a pipe that holds `input` and is
/// closed (`open`: false) or kept open by a writer that writes no more.
#[cfg(unix)]
fn on_a_pipe(args: &[&str], input: &[u8], open: bool) -> std::process::Output {
    use std::io::Write;
    let (reader, mut writer) = std::io::pipe().unwrap();
    writer.write_all(input).unwrap();
    let kept = open.then_some(writer);
    let output = StdCommand::new(BIN)
        .args(args)
        .env_remove("UTF8GUARD_KERNEL")
        .stdin(reader)
        .output()
        .unwrap();
    drop(kept);
    output
}

#[cfg(unix)]
#[test]
fn a_stream_stops_once_the_report_is_full() {
    // Reading stops at the limit. A pipe whose end was read says whether
    // more errors follow; one that stays open does not tell (a stream may
    // never end): the report says they may.
    let mut input = b"ok\n".repeat(1000);
    input.extend_from_slice(&[0xFF; 10]);
    let output = on_a_pipe(&["-m", "2", "-"], &input, false);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout_of(&output);
    assert_eq!(text.matches(": invalid UTF-8 at byte ").count(), 2);
    assert!(
        text.ends_with("-: more errors follow (the report stops at --max-errors 2)\n"),
        "{text}"
    );
    // More errors in what was read: they follow, open pipe or not.
    let output = on_a_pipe(&["-m", "2", "-"], &input, true);
    assert!(stdout_of(&output)
        .ends_with("-: more errors follow (the report stops at --max-errors 2)\n"));
    // None in what was read, on a pipe that stays open: not known.
    let mut two = b"ok\n".repeat(1000);
    two.extend_from_slice(&[0xFF; 2]);
    two.extend_from_slice(&b"ok\n".repeat(10));
    let output = on_a_pipe(&["-m", "2", "-"], &two, true);
    let text = stdout_of(&output);
    assert_eq!(text.matches(": invalid UTF-8 at byte ").count(), 2);
    assert!(
        text.ends_with(
            "-: more errors may follow: reading stopped here (the report stops at --max-errors 2)\n"
        ),
        "{text}"
    );
    // As many as there are: nothing more follows.
    let output = on_a_pipe(&["-m", "10", "-"], &input, false);
    let text = stdout_of(&output);
    assert_eq!(text.matches(": invalid UTF-8 at byte ").count(), 10);
    assert!(!text.contains("more errors"), "{text}");
    // In JSON: true, false, or null when not known.
    for (args, open, more) in [
        (&["--json", "-"][..], false, Value::Bool(true)),
        (&["--json", "-m", "10", "-"], false, Value::Bool(false)),
        (&["--json", "-m", "2", "-"], true, Value::Null),
    ] {
        let output = on_a_pipe(args, if open { &two } else { &input }, open);
        let reports = json_lines(&stdout_of(&output));
        assert_eq!(reports[0]["more_errors"], more, "{args:?}, open {open}");
        assert_eq!(json_errors(&reports[0])[0], (3000, Some(1), 1001, 1));
    }
}

/// Runs `command` and waits at most `limit` for it to end; `None` if it
/// did not (it is then killed).
fn run_within(mut command: StdCommand, limit: std::time::Duration) -> Option<std::process::Output> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    None
}

#[test]
fn an_endless_device_or_pipe_is_answered_at_its_first_error() {
    let second = std::time::Duration::from_secs(1);
    if Path::new("/dev/urandom").exists() {
        // With --all, --max-errors bounds the reading.
        for args in [
            &["/dev/urandom"][..],
            &["-l", "/dev/urandom"],
            &["-m", "100", "/dev/urandom"],
        ] {
            let mut command = StdCommand::new(BIN);
            command.env_remove("UTF8GUARD_KERNEL").args(args);
            let output = run_within(command, second)
                .unwrap_or_else(|| panic!("`utf8guard {args:?}` still ran after a second"));
            assert_eq!(output.status.code(), Some(1), "{args:?}");
        }
    }
    // A writer that never stops, into standard input: the writer is cut
    // off (as by `head`) once the error is found.
    let mut command = StdCommand::new("sh");
    command
        .env_remove("UTF8GUARD_KERNEL")
        .args([
            "-c",
            "while :; do printf 'text \\377 '; done | \"$0\" -; echo \"status $?\"",
        ])
        .arg(BIN);
    let output = run_within(command, 10 * second).expect("the pipe was read forever");
    let text = stdout_of(&output);
    assert!(
        text.starts_with("-:1:6: invalid UTF-8 at byte 5: "),
        "{text}"
    );
    assert!(text.ends_with("status 1\n"), "{text}");
}

#[test]
fn binary_data_and_utf16_are_named_once_instead_of_hints_per_byte() {
    let dir = tempfile::tempdir().unwrap();
    let utf16: Vec<u8> = "\u{FEFF}Grüße, café, ÿ\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let mut gzip = b"\x1F\x8B\x08\x00\x00\x00\x00\x00\x00\x03".to_vec();
    gzip.extend((0..2000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
    let cases: [(&str, &[u8], &str); 3] = [
        (
            "utf16.txt",
            &utf16,
            "UTF-16LE text (it starts with the byte order mark FF FE), not UTF-8: \
             `utf8guard convert --from utf-16 --to utf-8` converts it, and \
             `utf8guard --encoding auto` checks it as UTF-16LE",
        ),
        ("data.gz", &gzip, "binary data (gzip), not text"),
        (
            "russian-1251.txt",
            b"\xCF\xF0\xE8\xE2\xE5\xF2, \xEC\xE8\xF0!\n",
            "non-ASCII bytes in a row that are not UTF-8: is the file in an 8-bit \
             encoding for another script (a Windows or ISO 8859 code page, KOI8-R)?",
        ),
    ];
    for (name, bytes, hint) in cases {
        let path = dir.path().join(name);
        fs::write(&path, bytes).unwrap();
        let output = cmd().arg("--all").arg(&path).output().unwrap();
        let text = stdout_of(&output);
        assert_eq!(output.status.code(), Some(1));
        let hints: Vec<&str> = text.lines().filter(|l| l.starts_with("  hint: ")).collect();
        if name == "russian-1251.txt" {
            // A hint per error, none of them Latin-1's.
            assert!(!text.contains("Latin-1"), "{text}");
            assert!(hints.iter().all(|h| h[8..] == *hint), "{text}");
        } else {
            // Once, under the first error.
            assert_eq!(hints, [format!("  hint: {hint}")], "{text}");
            assert!(
                text.lines().nth(2).unwrap().starts_with("  hint: "),
                "{text}"
            );
        }
        // The same from a stream, and in JSON (the first error's hint).
        let output = cmd()
            .args(["--json", "-"])
            .write_stdin(bytes.to_vec())
            .output()
            .unwrap();
        let report = &json_lines(&stdout_of(&output))[0];
        assert_eq!(report["errors"][0]["hint"], hint, "{name}");
    }
}

/// The UTF-16 and UTF-32 hints send the user to the command's own
/// `convert` and `--encoding auto`, which do what they say.
#[test]
fn unicode_hints_name_convert_and_encoding_auto() {
    let dir = tempfile::tempdir().unwrap();
    let utf16be: Vec<u8> = "\u{FEFF}Grüße\n"
        .encode_utf16()
        .flat_map(u16::to_be_bytes)
        .collect();
    let utf32le: Vec<u8> = "\u{FEFF}Grüße\n"
        .chars()
        .flat_map(|c| u32::from(c).to_le_bytes())
        .collect();
    let cases = [
        ("utf16be.txt", utf16be, "UTF-16BE", "FE FF", "utf-16"),
        ("utf32le.txt", utf32le, "UTF-32LE", "FF FE 00 00", "utf-32"),
    ];
    for (name, bytes, title, mark, from) in cases {
        let path = dir.path().join(name);
        fs::write(&path, &bytes).unwrap();
        let output = cmd().arg(&path).output().unwrap();
        assert_eq!(output.status.code(), Some(1));
        let text = stdout_of(&output);
        let hints: Vec<&str> = text.lines().filter(|l| l.starts_with("  hint: ")).collect();
        assert_eq!(
            hints,
            [format!(
                "  hint: {title} text (it starts with the byte order mark {mark}), not UTF-8: \
                 `utf8guard convert --from {from} --to utf-8` converts it, and \
                 `utf8guard --encoding auto` checks it as {title}"
            )]
        );
        cmd()
            .args(["convert", "--from", from, "--to", "utf-8"])
            .arg(&path)
            .assert()
            .code(0)
            .stdout("Grüße\n");
        cmd()
            .args(["--encoding", "auto"])
            .arg(&path)
            .assert()
            .code(0)
            .stdout(format!(
                "{}: note: starts with a {title} byte order mark ({mark}), checked as {title}\n",
                path.display()
            ));
    }
}

/// UTF-32 without a byte order mark is text, as `--help` says, not binary
/// data; the hint names `convert`, which the tests then run.
#[test]
fn utf32_without_a_byte_order_mark_is_named() {
    let utf32 = |text: &str, big_endian: bool| -> Vec<u8> {
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
    };
    let cases = [
        (
            utf32("Grüße, 日本\n", false),
            "-:1:9: invalid UTF-8 at byte 8: byte that never appears in UTF-8\n\
             \x20 FC never appears in UTF-8 (F5..FD would start sequences for values above U+10FFFF)\n\
             \x20 hint: UTF-32LE text without a byte order mark (4-byte code units whose high \
             bytes are zero), not UTF-8: `utf8guard convert --from utf-32le --to utf-8` converts it\n\
             \x20        0  47 00 00 00 72 00 00 00 FC 00 00 00 DF 00 00 00  |G...r...........|\n\
             \x20                                   ^^                                ^\n\
             -: more errors follow (--all or --max-errors N shows them)\n",
            "utf-32le",
        ),
        (
            utf32("hé\n", true),
            "-:1:8: invalid UTF-8 at byte 7: multi-byte sequence cut short\n\
             \x20 E9 starts a 3-byte sequence, but the next byte, 00, is not a continuation byte (80..BF)\n\
             \x20 hint: UTF-32BE text without a byte order mark (4-byte code units whose high \
             bytes are zero), not UTF-8: `utf8guard convert --from utf-32be --to utf-8` converts it\n\
             \x20        0  00 00 00 68 00 00 00 E9 00 00 00 0A              |...h........|\n\
             \x20                                ^^                                  ^\n",
            "utf-32be",
        ),
    ];
    for (input, report, from) in cases {
        cmd()
            .arg("-")
            .write_stdin(input.clone())
            .assert()
            .code(1)
            .stdout(report.to_owned());
        let text = if from == "utf-32le" {
            "Grüße, 日本\n"
        } else {
            "hé\n"
        };
        cmd()
            .args(["convert", "--from", from, "--to", "utf-8"])
            .write_stdin(input)
            .assert()
            .code(0)
            .stdout(text);
    }
}

/// German in Latin-1 gets Latin-1's hint on every error, though two of its
/// letters stand side by side; text in another script's code page still
/// gets that one.
#[test]
fn latin1_letters_side_by_side_are_latin1() {
    let output = cmd()
        .args(["--all", "-"])
        .write_stdin(&b"Gr\xFC\xDFe aus M\xFCnchen, sch\xF6ne Stra\xDFe\n"[..])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = stdout_of(&output);
    let hints: Vec<&str> = text.lines().filter(|l| l.starts_with("  hint: ")).collect();
    let latin1 = |byte: &str, c: &str| {
        format!(
            "  hint: in Latin-1 or Windows-1252, {byte} is {c}: is the file in that encoding? \
             If so, `utf8guard convert --from windows-1252 --to utf-8` converts it (or \
             `utf8guard repair -r windows-1252`, for a file that mixes the two)"
        )
    };
    assert_eq!(
        hints,
        [
            latin1("FC", "U+00FC 'ü'"),
            latin1("DF", "U+00DF 'ß'"),
            latin1("FC", "U+00FC 'ü'"),
            latin1("F6", "U+00F6 'ö'"),
            latin1("DF", "U+00DF 'ß'"),
        ]
    );
    // Two letters of Russian in Windows-1251 among others: another script.
    let output = cmd()
        .args(["--all", "-"])
        .write_stdin(&b"\xE4\xE0, \xEC\xE8\xF0\n"[..])
        .output()
        .unwrap();
    let text = stdout_of(&output);
    let hints: Vec<&str> = text.lines().filter(|l| l.starts_with("  hint: ")).collect();
    assert_eq!(
        hints,
        ["  hint: non-ASCII bytes in a row that are not UTF-8: is the file in an 8-bit \
             encoding for another script (a Windows or ISO 8859 code page, KOI8-R)?"; 5]
    );
}

#[test]
fn a_missing_file_is_status_2_and_the_others_are_still_checked() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.txt");
    let bad = dir.path().join("bad.txt");
    let missing = dir.path().join("missing.txt");
    fs::write(&good, "fine\n").unwrap();
    fs::write(&bad, b"x\xFF").unwrap();
    let output = cmd().arg(&good).arg(&missing).arg(&bad).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr_of(&output),
        format!(
            "utf8guard: {}: No such file or directory\n",
            missing.display()
        )
    );
    let stdout = stdout_of(&output);
    assert!(stdout.starts_with(&format!(
        "{}:1:2: invalid UTF-8 at byte 1: byte that never appears in UTF-8\n",
        bad.display()
    )));
}

#[test]
fn json_has_one_object_per_input_with_the_documented_fields() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.txt");
    let bad = dir.path().join("bad.txt");
    let missing = dir.path().join("missing.txt");
    fs::write(&good, "ok ✓\n").unwrap();
    fs::write(&bad, b"ab\xE2\x82").unwrap();
    let output = cmd()
        .arg("--json")
        .arg(&good)
        .arg(&bad)
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stderr_of(&output), "");
    let reports = json_lines(&stdout_of(&output));
    assert_eq!(reports.len(), 3);

    let keys = |v: &Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    let top = [
        "bytes",
        "error",
        "errors",
        "more_errors",
        "path",
        "path_exact",
        "status",
    ];
    for report in &reports {
        assert_eq!(keys(report), top);
    }
    assert_eq!(reports[0]["path"], good.to_str().unwrap());
    assert_eq!(reports[0]["path_exact"], true);
    assert_eq!(reports[0]["status"], "valid");
    assert_eq!(reports[0]["bytes"], 7);
    assert_eq!(reports[0]["errors"], Value::Array(vec![]));
    assert_eq!(reports[0]["error"], Value::Null);

    assert_eq!(reports[1]["status"], "invalid");
    assert_eq!(reports[1]["bytes"], 4);
    let error = &reports[1]["errors"][0];
    let mut error_keys = keys(error);
    error_keys.sort();
    assert_eq!(
        error_keys,
        [
            "bytes",
            "column",
            "context",
            "context_offset",
            "description",
            "explanation",
            "hint",
            "kind",
            "length",
            "line",
            "offset"
        ]
    );
    assert_eq!(error["offset"], 2);
    assert_eq!(error["line"], 1);
    assert_eq!(error["column"], 3);
    assert_eq!(error["length"], Value::Null);
    assert_eq!(error["kind"], "incomplete");
    assert_eq!(
        error["description"],
        "input ends inside a multi-byte sequence"
    );
    assert_eq!(
        error["explanation"],
        "the input ends inside a 3-byte sequence: E2 82"
    );
    assert_eq!(error["hint"], Value::Null);
    assert_eq!(error["bytes"], "E2 82");
    assert_eq!(error["context_offset"], 0);
    assert_eq!(error["context"], "61 62 E2 82");

    assert_eq!(reports[2]["status"], "error");
    assert_eq!(reports[2]["error"], "No such file or directory");
    assert_eq!(reports[2]["bytes"], 0);
}

#[test]
fn every_kind_has_its_json_name() {
    let cases: &[(&[u8], &str, Option<u64>)] = &[
        (b"\x80", "unexpected_continuation", Some(1)),
        (b"\xC0\x80", "invalid_byte", Some(1)),
        (b"\xE0\x80\x80", "overlong", Some(1)),
        (b"\xED\xA0\x80", "surrogate", Some(1)),
        (b"\xF4\x90\x80\x80", "too_large", Some(1)),
        (b"\xE2\x82x", "too_short", Some(2)),
        (b"\xE2\x82", "incomplete", None),
    ];
    for &(input, kind, length) in cases {
        let output = cmd().arg("--json").write_stdin(input).output().unwrap();
        assert_eq!(output.status.code(), Some(1));
        let report = &json_lines(&stdout_of(&output))[0];
        assert_eq!(report["path"], "-");
        assert_eq!(report["errors"][0]["kind"], kind, "{input:02X?}");
        assert_eq!(
            report["errors"][0]["length"].as_u64(),
            length,
            "{input:02X?}"
        );
    }
}

#[test]
fn quiet_prints_nothing_but_unreadable_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.txt");
    let bad = dir.path().join("bad.txt");
    fs::write(&good, "fine\n").unwrap();
    fs::write(&bad, b"\xFF").unwrap();
    cmd()
        .arg("-q")
        .arg(&good)
        .assert()
        .code(0)
        .stdout("")
        .stderr("");
    cmd()
        .arg("--quiet")
        .arg(&good)
        .arg(&bad)
        .assert()
        .code(1)
        .stdout("")
        .stderr("");
    let missing = dir.path().join("nope");
    cmd()
        .arg("-q")
        .arg(&bad)
        .arg(&missing)
        .assert()
        .code(2)
        .stdout("")
        .stderr(format!(
            "utf8guard: {}: No such file or directory\n",
            missing.display()
        ));
}

/// A tree: a.txt valid, b.txt invalid, sub/c.txt invalid, sub/d.txt valid.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    fs::write(dir.path().join("b.txt"), b"beta \xFF\n").unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    fs::write(dir.path().join("sub/c.txt"), b"\xC3").unwrap();
    fs::write(dir.path().join("sub/d.txt"), "δέλτα\n").unwrap();
    dir
}

#[test]
fn list_names_invalid_inputs_and_invert_names_valid_ones() {
    let dir = tree();
    let root = dir.path().display().to_string();
    cmd()
        .arg("--list")
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(format!("{root}/b.txt\n{root}/sub/c.txt\n"))
        .stderr("");
    cmd()
        .arg("--invert")
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(format!("{root}/a.txt\n{root}/sub/d.txt\n"))
        .stderr("");
    cmd()
        .args(["-l", "-i"])
        .arg(dir.path().join("a.txt"))
        .assert()
        .code(0)
        .stdout(format!("{root}/a.txt\n"));
    // Standard input is listed as `-`.
    cmd()
        .arg("-l")
        .write_stdin(&b"\x80"[..])
        .assert()
        .code(1)
        .stdout("-\n");
}

#[test]
fn directories_are_walked_in_name_order_whatever_the_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let mut expected = Vec::new();
    for i in 0..40 {
        let name = format!("f{:02}.txt", 39 - i);
        let body: Vec<u8> = if i % 3 == 0 {
            format!("file {i} \u{1F600}").into_bytes()
        } else {
            let mut b = format!("file {i} ").into_bytes();
            b.push(0x80 + i as u8);
            b
        };
        fs::write(dir.path().join(&name), &body).unwrap();
        expected.push((name, body));
    }
    expected.sort();
    let run = |jobs: &str| invalid_report(&["--json", "--all", "--jobs", jobs], dir.path());
    let one = run("1");
    assert_eq!(run("2"), one);
    assert_eq!(run("4"), one);
    let reports = json_lines(&one);
    assert_eq!(reports.len(), 40);
    for (report, (name, body)) in reports.iter().zip(&expected) {
        assert_eq!(
            report["path"],
            dir.path().join(name).to_str().unwrap(),
            "order"
        );
        assert_eq!(json_errors(report), expected_errors(body), "{name}");
    }
}

/// A file of 24 600 errors, more than one piece of a report holds: U+1F600
/// as a surrogate pair in CESU-8 (six errors for strict UTF-8), 4100 times
/// between ASCII. Also the directory that holds it, and its bytes.
fn many_errors_file() -> (tempfile::TempDir, PathBuf, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cesu8.txt");
    let bytes = b"x \xED\xA0\xBD\xED\xB8\x80 ".repeat(4100);
    fs::write(&path, &bytes).unwrap();
    (dir, path, bytes)
}

/// The report of `args` on `path` with 1, 2 and 3 jobs: the same each time.
fn same_report_with_1_to_3_jobs(args: &[&str], path: &Path) -> String {
    let run = |jobs: &str| invalid_report(&[args, &["-j", jobs]].concat(), path);
    let one = run("1");
    assert_eq!(run("2"), one);
    assert_eq!(run("3"), one);
    one
}

/// A text report of more errors than one piece of it holds (it is made and
/// written a piece of 2048 errors at a time, the pieces of a round on all
/// of `--jobs`' threads): the same whatever the number of jobs, every
/// error once and in order, where std finds it, and the hint that only the
/// first error gets (here, that the input is valid CESU-8) only once.
#[test]
fn a_long_text_report_is_the_same_with_any_number_of_jobs() {
    let (_dir, path, bytes) = many_errors_file();
    let one = same_report_with_1_to_3_jobs(&["--all"], &path);
    let prefix = format!("{}:", path.display());
    let offsets: Vec<u64> = one
        .lines()
        .filter(|line| line.starts_with(&prefix))
        .map(|line| {
            let (_, rest) = line.split_once(" at byte ").expect("a line per error");
            rest.split(':').next().unwrap().parse().unwrap()
        })
        .collect();
    let expected: Vec<u64> = std_errors(&bytes).into_iter().map(|(at, _)| at).collect();
    assert_eq!(expected.len(), 6 * 4100);
    assert_eq!(offsets, expected);
    let whole_input_hints = one
        .lines()
        .filter(|line| line.starts_with("  hint: the whole input is valid CESU-8"))
        .count();
    assert_eq!(whole_input_hints, 1);
}

/// `--jobs` beyond the number of logical CPUs starts only as many threads
/// as there are CPUs (`--jobs 1024` made a 1 GB file take 11 s instead of
/// 0.2 s), and the report stays the same.
#[test]
fn jobs_beyond_the_cpus_are_capped_at_the_cpus() {
    let (dir, path, _) = many_errors_file();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Two inputs: the threads are started.
    fs::copy(&path, dir.path().join("copy.txt")).unwrap();
    let run = |jobs: &str| {
        let output = cmd()
            .args(["--all", "--stats", "--jobs", jobs])
            .arg(dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        let stderr = stderr_of(&output);
        let time = stderr.lines().find(|l| l.contains("time:")).unwrap();
        let (before, _) = time.rsplit_once(" job").unwrap();
        let threads: usize = before.rsplit(' ').next().unwrap().parse().unwrap();
        (stdout_of(&output), threads)
    };
    let (one, threads) = run("1");
    assert_eq!(threads, 1);
    for jobs in ["2", "1024"] {
        let (report, threads) = run(jobs);
        assert_eq!(report, one, "--jobs {jobs}");
        assert_eq!(threads, cpus.min(jobs.parse().unwrap()), "--jobs {jobs}");
    }
}

/// `--all --json` on an input with more errors than a piece of its line
/// holds (the line is written 2048 errors at a time, as the text report
/// is): one valid JSON line, the same whatever the number of jobs, every
/// error once and in order, where std finds it, and the hint that only
/// the first error gets only on the first.
#[test]
fn a_long_json_line_is_the_same_with_any_number_of_jobs() {
    let (_dir, path, bytes) = many_errors_file();
    let one = same_report_with_1_to_3_jobs(&["--all", "--json"], &path);
    let reports = json_lines(&one);
    assert_eq!(reports.len(), 1);
    let offsets: Vec<(u64, Option<u64>)> = json_errors(&reports[0])
        .into_iter()
        .map(|(at, len, _, _)| (at, len))
        .collect();
    assert_eq!(offsets.len(), 6 * 4100);
    assert_eq!(offsets, std_errors(&bytes));
    let hints: Vec<usize> = reports[0]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            e["hint"]
                .as_str()
                .is_some_and(|h| h.contains("the whole input is valid CESU-8"))
        })
        .map(|(i, _)| i)
        .collect();
    assert_eq!(hints, [0]);
    assert_eq!(reports[0]["more_errors"], Value::Bool(false));
}

#[test]
fn every_kernel_gives_the_same_report() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sample.txt");
    let mut bytes = "Grüße 🌍 ".repeat(20_000).into_bytes();
    bytes.extend_from_slice(&sample_with_errors());
    bytes.extend_from_slice("κόσμε".repeat(1000).as_bytes());
    fs::write(&path, &bytes).unwrap();
    let reference = cmd().args(["--all", "--json"]).arg(&path).output().unwrap();
    let reports = json_lines(&stdout_of(&reference));
    assert_eq!(json_errors(&reports[0]), expected_errors(&bytes));
    let mut tried = 0;
    for kernel in utf8guard::Kernel::available() {
        for jobs in ["1", "2"] {
            let output = cmd()
                .args(["--all", "--json", "--kernel", kernel.name(), "-j", jobs])
                .arg(&path)
                .output()
                .unwrap();
            assert_eq!(
                output.stdout, reference.stdout,
                "kernel {kernel}, {jobs} jobs"
            );
            assert_eq!(output.status.code(), Some(1));
        }
        // The environment variable chooses the same way.
        let output = cmd()
            .env("UTF8GUARD_KERNEL", kernel.name())
            .args(["--all", "--json"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(output.stdout, reference.stdout, "UTF8GUARD_KERNEL={kernel}");
        tried += 1;
    }
    assert!(tried >= 1);
}

/// The kernels this CPU can run, as the messages list them.
fn available_kernels() -> String {
    let names: Vec<&str> = utf8guard::Kernel::available().map(|k| k.name()).collect();
    names.join(", ")
}

#[test]
fn an_unknown_kernel_is_a_usage_error_not_a_panic() {
    let available = available_kernels();
    cmd()
        .args(["--kernel", "warp9", "-"])
        .write_stdin("x")
        .assert()
        .code(2)
        .stdout("")
        .stderr(format!(
            "utf8guard: --kernel warp9: unknown kernel; available: {available}\n"
        ));
    cmd()
        .env("UTF8GUARD_KERNEL", "turbo")
        .write_stdin("x")
        .assert()
        .code(2)
        .stdout("")
        .stderr(format!(
            "utf8guard: UTF8GUARD_KERNEL=turbo: unknown kernel; available: {available}\n"
        ));
    // Every subcommand that validates refuses it, lint too.
    let subcommands: [&[&str]; 4] = [
        &["check"],
        &["repair"],
        &["convert", "-f", "utf-8", "-t", "utf-16le"],
        &["lint"],
    ];
    for args in subcommands {
        cmd()
            .env("UTF8GUARD_KERNEL", "turbo")
            .args(args)
            .write_stdin("x")
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!(
                "utf8guard: UTF8GUARD_KERNEL=turbo: unknown kernel; available: {available}\n"
            ));
    }
    // --kernel wins over the environment.
    cmd()
        .env("UTF8GUARD_KERNEL", "turbo")
        .args(["--kernel", "scalar"])
        .write_stdin("x")
        .assert()
        .code(0)
        .stderr("");
}

#[test]
fn a_kernel_of_another_cpu_is_not_available_and_names_are_in_any_case() {
    let available = available_kernels();
    let foreign = if cfg!(target_arch = "x86_64") {
        "neon"
    } else {
        "avx2"
    };
    cmd()
        .args(["--kernel", foreign, "-"])
        .write_stdin("x")
        .assert()
        .code(2)
        .stdout("")
        .stderr(format!(
            "utf8guard: --kernel {foreign}: not available on this CPU; available: {available}\n"
        ));
    cmd()
        .env("UTF8GUARD_KERNEL", foreign)
        .write_stdin("x")
        .assert()
        .code(2)
        .stderr(format!(
            "utf8guard: UTF8GUARD_KERNEL={foreign}: not available on this CPU; available: {available}\n"
        ));
    for name in ["SCALAR", "Scalar"] {
        cmd()
            .env("UTF8GUARD_KERNEL", name)
            .args(["--stats", "-"])
            .write_stdin("x")
            .assert()
            .code(0)
            .stderr(predicates::str::contains("kernel scalar (forced)"));
        cmd()
            .args(["--kernel", name, "--stats", "-"])
            .write_stdin("x")
            .assert()
            .code(0)
            .stderr(predicates::str::contains("kernel scalar (forced)"));
    }
}

#[test]
fn stats_count_inputs_bytes_and_characters() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "aé€🌍\n").unwrap(); // 11 bytes
    fs::write(dir.path().join("b.txt"), b"x\xFFy\xC3\xA9").unwrap(); // 5 bytes
                                                                     // With --quiet: nothing on stdout, the statistics on stderr.
    let output = cmd()
        .args(["--stats", "-q", "-j", "1"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout_of(&output), "");
    assert!(
        stderr_of(&output).starts_with("utf8guard: inputs: 2: 1 valid, 1 invalid, 0 unreadable\n")
    );

    let output = cmd()
        .args(["--stats", "--all", "--kernel", "scalar", "-j", "1"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = stderr_of(&output);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 4, "{stderr}");
    assert_eq!(
        lines[0],
        "utf8guard: inputs: 2: 1 valid, 1 invalid, 0 unreadable"
    );
    assert_eq!(lines[1], "utf8guard: bytes: 16 (16 B)");
    // a é € 🌍 \n, then x y é around the invalid byte.
    assert_eq!(
        lines[2],
        "utf8guard: characters in the well-formed parts: 8: 4 of 1 byte, 2 of 2, 1 of 3, 1 of 4"
    );
    assert!(lines[3].starts_with("utf8guard: time: "), "{}", lines[3]);
    assert!(
        lines[3].ends_with("/s, kernel scalar (forced), 1 job"),
        "{}",
        lines[3]
    );
}

#[cfg(unix)]
#[test]
fn symbolic_links_are_followed_only_when_asked() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.txt");
    fs::write(&real, b"\xFF").unwrap();
    symlink(&real, dir.path().join("link.txt")).unwrap();
    let root = dir.path().display().to_string();
    cmd()
        .arg("-l")
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(format!("{root}/real.txt\n"));
    cmd()
        .args(["-l", "--follow"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(format!("{root}/link.txt\n{root}/real.txt\n"));
    // A link named on the command line is followed.
    cmd()
        .arg("-l")
        .arg(dir.path().join("link.txt"))
        .assert()
        .code(1)
        .stdout(format!("{root}/link.txt\n"));

    // A loop and a dangling link, with --follow: errors, status 2.
    symlink(".", dir.path().join("loop")).unwrap();
    symlink("nowhere", dir.path().join("dangling")).unwrap();
    cmd()
        .args(["-l", "-L"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stdout(format!("{root}/link.txt\n{root}/real.txt\n"))
        .stderr(format!(
            "utf8guard: {root}/dangling: broken symbolic link: No such file or directory\n\
             utf8guard: {root}/loop: symbolic link loop: this directory contains itself\n"
        ));
    // Without --follow, both are skipped.
    cmd()
        .arg("-l")
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(format!("{root}/real.txt\n"))
        .stderr("");
}

#[test]
fn empty_files_and_empty_stdin_are_valid() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    fs::write(&empty, b"").unwrap();
    cmd().arg(&empty).assert().code(0).stdout("").stderr("");
    cmd().write_stdin("").assert().code(0).stdout("").stderr("");
    let output = cmd()
        .arg("--json")
        .arg(&empty)
        .arg("-")
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let reports = json_lines(&stdout_of(&output));
    assert_eq!(reports.len(), 2);
    for report in &reports {
        assert_eq!(report["status"], "valid");
        assert_eq!(report["bytes"], 0);
    }
    assert_eq!(reports[1]["path"], "-");
}

#[test]
fn stdin_is_streamed_with_the_positions_a_file_gets() {
    // Errors placed around the 256 KiB reads of the stream, one split
    // across two reads.
    let mut bytes = "Grüße\n".repeat(50_000).into_bytes(); // 400 KB
    let chunk = 256 << 10;
    bytes[chunk - 1] = 0xE2; // E2 | 82 41: cut short across the boundary
    bytes[chunk] = 0x82;
    bytes[chunk + 1] = b'A';
    bytes[chunk + 9] = 0xFF;
    bytes[chunk * 3 / 2] = 0xC0;
    bytes.extend_from_slice(b"\xF0\x9F");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.txt");
    fs::write(&path, &bytes).unwrap();
    let expected = expected_errors(&bytes);
    let chunk = chunk as u64;
    let spans: Vec<(u64, Option<u64>)> = expected.iter().map(|e| (e.0, e.1)).collect();
    assert_eq!(
        spans,
        [
            (chunk - 1, Some(2)),
            (chunk + 9, Some(1)),
            (chunk * 3 / 2, Some(1)),
            (400_000, None)
        ]
    );

    let from_file = cmd().args(["--all", "--json"]).arg(&path).output().unwrap();
    let from_stdin = cmd()
        .args(["--all", "--json"])
        .write_stdin(bytes.clone())
        .output()
        .unwrap();
    for output in [&from_file, &from_stdin] {
        assert_eq!(output.status.code(), Some(1));
        let report = &json_lines(&stdout_of(output))[0];
        assert_eq!(json_errors(report), expected);
        assert_eq!(report["bytes"], bytes.len() as u64);
    }
    // The same context bytes too: the reports differ only in the path.
    let file_text = stdout_of(&from_file).replace(path.to_str().unwrap(), "-");
    assert_eq!(file_text, stdout_of(&from_stdin));
}

#[cfg(unix)]
#[test]
fn a_large_file_on_stdin_is_mapped_from_its_offset_and_left_at_its_end() {
    use std::io::{Seek, SeekFrom};
    // 1.2 MB (over the 1 MiB at which files are mapped) with errors early,
    // in the middle and cut short at the end.
    let mut bytes = "Grüße\nκόσμε 🌍\n".repeat(60_000).into_bytes();
    let len = bytes.len();
    bytes[5] = 0xFF;
    bytes[len / 2] = 0xC0;
    bytes.extend_from_slice(b"\xE2\x82");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.txt");
    fs::write(&path, &bytes).unwrap();

    for skip in [0usize, 7, 4099] {
        let rest = &bytes[skip..];
        let expected = expected_errors(rest);
        let mut file = fs::File::open(&path).unwrap();
        file.seek(SeekFrom::Start(skip as u64)).unwrap();
        let output = StdCommand::new(BIN)
            .env_remove("UTF8GUARD_KERNEL")
            .args(["--all", "--json"])
            .stdin(Stdio::from(file.try_clone().unwrap()))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "skip {skip}");
        let report = &json_lines(&stdout_of(&output))[0];
        assert_eq!(json_errors(report), expected, "skip {skip}");
        assert_eq!(report["bytes"], rest.len() as u64);
        assert_eq!(report["path"], "-");
        // The shared offset is where reading to the end leaves it.
        assert_eq!(file.stream_position().unwrap(), bytes.len() as u64);
        // The same report as the stream path gives for the same bytes.
        let streamed = cmd()
            .args(["--all", "--json"])
            .write_stdin(rest.to_vec())
            .output()
            .unwrap();
        assert_eq!(stdout_of(&output), stdout_of(&streamed), "skip {skip}");
    }
    // Quiet: the exit status alone, valid and invalid.
    let valid = dir.path().join("valid.txt");
    fs::write(&valid, "κόσμε 🌍\n".repeat(100_000)).unwrap();
    for (p, code) in [(&valid, 0), (&path, 1)] {
        let status = StdCommand::new(BIN)
            .arg("-q")
            .stdin(Stdio::from(fs::File::open(p).unwrap()))
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(code));
    }
}

#[test]
fn large_files_are_mapped_and_split_with_the_same_errors() {
    let mut bytes = "Grüße, κόσμε, 日本語, 🌍!\n".repeat(120_000).into_bytes(); // 4.3 MB
    let len = bytes.len();
    bytes[len / 3] = 0xFF;
    bytes[len - 100] = 0xED;
    bytes[len - 99] = 0xA0;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.txt");
    fs::write(&path, &bytes).unwrap();
    let expected = expected_errors(&bytes);
    for jobs in ["1", "2", "3"] {
        let output = cmd()
            .args(["--all", "--json", "-j", jobs])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        assert_eq!(json_errors(&json_lines(&stdout_of(&output))[0]), expected);
        // Without --all: the first error, the one std reports.
        let output = cmd()
            .args(["--json", "-j", jobs])
            .arg(&path)
            .output()
            .unwrap();
        let report = &json_lines(&stdout_of(&output))[0];
        assert_eq!(json_errors(report), expected[..1]);
        assert_eq!(report["more_errors"], true);
    }
}

#[test]
fn a_file_named_like_a_subcommand_is_checked_after_check_or_with_a_path() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("info"), b"\xFF").unwrap();
    cmd()
        .current_dir(dir.path())
        .args(["-l", "./info"])
        .assert()
        .code(1)
        .stdout("./info\n");
    cmd()
        .current_dir(dir.path())
        .args(["check", "-l", "info"])
        .assert()
        .code(1)
        .stdout("info\n");
}

/// A pseudo-terminal: its master, and the terminal a program writes to.
#[cfg(target_os = "linux")]
fn pty() -> (fs::File, fs::File) {
    use std::os::fd::FromRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    // SAFETY: a new descriptor, owned by the File made of it; the name is
    // written into a buffer of the length given.
    unsafe {
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(master >= 0);
        let master_file = fs::File::from_raw_fd(master);
        assert_eq!(libc::grantpt(master), 0);
        assert_eq!(libc::unlockpt(master), 0);
        let mut name = [0 as libc::c_char; 128];
        assert_eq!(libc::ptsname_r(master, name.as_mut_ptr(), name.len()), 0);
        let name = std::ffi::CStr::from_ptr(name.as_ptr()).to_str().unwrap();
        let terminal = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOCTTY)
            .open(name)
            .unwrap();
        (master_file, terminal)
    }
}

/// On a terminal, the control characters of a name are shown as `?`, as
/// `ls` shows them: an escape sequence in a name never reaches the
/// terminal. Elsewhere the name is its bytes (see below).
#[cfg(target_os = "linux")]
#[test]
fn control_characters_of_a_name_are_question_marks_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a\x1b[2Jb\x07.txt");
    fs::write(&path, b"\x80").unwrap();
    for args in [&["-l"][..], &[]] {
        let (mut master, terminal) = pty();
        let status = StdCommand::new(BIN)
            .env_remove("UTF8GUARD_KERNEL")
            .args(args)
            .arg("--no-progress")
            .arg(&path)
            .stdout(terminal)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(1));
        let mut shown = Vec::new();
        // Read until the terminal, closed, says EIO.
        let _ = master.read_to_end(&mut shown);
        let shown = String::from_utf8_lossy(&shown);
        let expected = format!("{}/a?[2Jb?.txt", dir.path().display());
        assert!(shown.starts_with(&expected), "{args:?}: {shown:?}");
        assert!(!shown.contains('\x1b'), "{args:?}: {shown:?}");
    }
}

#[cfg(unix)]
#[test]
fn a_path_that_is_not_unicode_is_printed_as_its_bytes() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().as_os_str().as_bytes();
    let path = dir.path().join(OsStr::from_bytes(b"caf\xE9.txt"));
    fs::write(&path, b"\x80").unwrap();
    fs::write(dir.path().join("new\nline.txt"), b"\xFF").unwrap();
    fs::write(dir.path().join("valid.txt"), b"ok").unwrap();
    let raw = |name: &[u8]| [root, b"/", name].concat();
    // JSON is text: a lossy copy, said to be one.
    let output = cmd().arg("--json").arg(&path).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report = &json_lines(&stdout_of(&output))[0];
    assert_eq!(report["path_exact"], false);
    assert_eq!(
        report["path"],
        format!("{}/caf\u{FFFD}.txt", dir.path().display())
    );
    // And the bytes, in hex, to have the name exactly.
    let hex: Vec<String> = raw(b"caf\xE9.txt")
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect();
    assert_eq!(report["path_bytes"], hex.join(" "));
    // The list and the text report: the bytes of the name, as `ls` and
    // `grep -l` print them, so that they can be used again.
    let output = cmd().arg("-l").arg(dir.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        output.stdout,
        [
            raw(b"caf\xE9.txt"),
            b"\n".to_vec(),
            raw(b"new\nline.txt"),
            b"\n".to_vec()
        ]
        .concat()
    );
    let output = cmd().arg(&path).output().unwrap();
    assert!(output
        .stdout
        .starts_with(&[raw(b"caf\xE9.txt"), b":1:1: ".to_vec()].concat()));
    // -0: each name ends with NUL instead (a name may hold a newline);
    // with --invert, the valid ones.
    for (args, expected) in [
        (
            &["-0"][..],
            [
                raw(b"caf\xE9.txt"),
                b"\0".to_vec(),
                raw(b"new\nline.txt"),
                b"\0".to_vec(),
            ]
            .concat(),
        ),
        (
            &["-l", "--null"],
            [
                raw(b"caf\xE9.txt"),
                b"\0".to_vec(),
                raw(b"new\nline.txt"),
                b"\0".to_vec(),
            ]
            .concat(),
        ),
        (
            &["-0", "--invert"],
            [raw(b"valid.txt"), b"\0".to_vec()].concat(),
        ),
    ] {
        let output = cmd().args(args).arg(dir.path()).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert_eq!(output.stdout, expected, "{args:?}");
    }
    // An unreadable one is named by its bytes on stderr too.
    let missing = dir.path().join(OsStr::from_bytes(b"gone\xFF"));
    let output = cmd().arg(&missing).output().unwrap();
    assert_eq!(
        output.stderr,
        [
            b"utf8guard: ".to_vec(),
            raw(b"gone\xFF"),
            b": No such file or directory\n".to_vec()
        ]
        .concat()
    );
}

// ---------------------------------------------------- special inputs ----

fn have(tool: &str) -> bool {
    StdCommand::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[cfg(unix)]
#[test]
fn a_fifo_named_on_the_command_line_is_read_as_a_stream() {
    if !have("mkfifo") {
        eprintln!("SKIPPED: mkfifo not found");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    assert!(StdCommand::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // The writer: a shell that fills the FIFO once a reader opens it.
    let mut writer = StdCommand::new("sh")
        .arg("-c")
        .arg("printf 'line one\\nab\\377cd' > \"$0\"")
        .arg(&fifo)
        .spawn()
        .unwrap();
    let output = cmd()
        .args(["--json", "--all"])
        .arg(&fifo)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let _ = writer.kill();
    let _ = writer.wait();
    assert_eq!(output.status.code(), Some(1));
    let report = &json_lines(&stdout_of(&output))[0];
    assert_eq!(json_errors(report), [(11, Some(1), 2, 3)]);
    assert_eq!(report["bytes"], 14);
}

#[cfg(unix)]
#[test]
fn a_pipe_from_process_substitution_is_read_as_a_stream() {
    if !have("bash") {
        eprintln!("SKIPPED: bash not found");
        return;
    }
    let output = StdCommand::new("bash")
        .arg("-c")
        .arg("\"$0\" --json <(printf 'ok\\n\\xE2\\x82')")
        .arg(BIN)
        .env_remove("UTF8GUARD_KERNEL")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report = &json_lines(&stdout_of(&output))[0];
    assert!(report["path"].as_str().unwrap().starts_with("/dev/fd/"));
    assert_eq!(json_errors(report), [(3, None, 2, 1)]);
}

#[cfg(unix)]
#[test]
fn special_files_inside_directories_are_skipped() {
    if !have("mkfifo") {
        eprintln!("SKIPPED: mkfifo not found");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "fine").unwrap();
    assert!(StdCommand::new("mkfifo")
        .arg(dir.path().join("pipe"))
        .status()
        .unwrap()
        .success());
    let _socket = std::os::unix::net::UnixListener::bind(dir.path().join("sock")).unwrap();
    // Nothing blocks on the FIFO: it is skipped, and counted.
    let output = cmd()
        .arg("--stats")
        .arg(dir.path())
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout_of(&output), "");
    assert!(stderr_of(&output).starts_with(
        "utf8guard: inputs: 1: 1 valid, 0 invalid, 0 unreadable; \
         skipped in directories: 2 special files, 0 symbolic links\n"
    ));
    // One of each: the singular.
    fs::remove_file(dir.path().join("pipe")).unwrap();
    std::os::unix::fs::symlink("a.txt", dir.path().join("link")).unwrap();
    let output = cmd().arg("--stats").arg(dir.path()).output().unwrap();
    assert!(stderr_of(&output).starts_with(
        "utf8guard: inputs: 1: 1 valid, 0 invalid, 0 unreadable; \
         skipped in directories: 1 special file, 1 symbolic link\n"
    ));
}

#[cfg(unix)]
#[test]
fn a_socket_named_on_the_command_line_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sock");
    let _socket = std::os::unix::net::UnixListener::bind(&path).unwrap();
    fs::write(dir.path().join("a.txt"), b"\xFF").unwrap();
    cmd()
        .arg("-l")
        .arg(&path)
        .arg(dir.path().join("a.txt"))
        .assert()
        .code(2)
        .stdout(format!("{}/a.txt\n", dir.path().display()))
        .stderr(format!(
            "utf8guard: {}: is a socket, which cannot be read as a file\n",
            path.display()
        ));
}

#[test]
fn a_directory_given_to_repair_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    cmd()
        .arg("repair")
        .arg(dir.path())
        .assert()
        .code(2)
        .stdout("")
        .stderr(format!(
            "utf8guard: {}: is a directory\n",
            dir.path().display()
        ));
}

/// Runs the command as the unprivileged user `nobody` when the tests run as
/// root (root reads everything, so permissions could not be tested), with
/// a copy of the binary that `nobody` can execute.
#[cfg(unix)]
fn unprivileged(dir: &Path) -> Option<StdCommand> {
    let euid = StdCommand::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&euid.stdout).trim() != "0" {
        return Some(StdCommand::new(BIN));
    }
    if !have("setpriv") {
        return None;
    }
    let bin = dir.join("utf8guard");
    // A link, not a copy, where it can be: a copy is open for writing for
    // a moment, and a process another test forks then holds it open, so
    // running the copy could fail with "Text file busy".
    fs::hard_link(BIN, &bin)
        .or_else(|_| fs::copy(BIN, &bin).map(drop))
        .ok()?;
    let mut c = StdCommand::new("setpriv");
    c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(bin);
    Some(c)
}

#[cfg(unix)]
#[test]
fn unreadable_directories_and_files_are_errors_and_the_rest_is_checked() {
    use std::os::unix::fs::PermissionsExt;
    let outer = tempfile::tempdir().unwrap();
    fs::set_permissions(outer.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let Some(mut command) = unprivileged(outer.path()) else {
        eprintln!("SKIPPED: running as root without setpriv: permissions cannot be tested");
        return;
    };
    let root = outer.path().join("tree");
    fs::create_dir(&root).unwrap();
    fs::write(root.join("a.txt"), b"\xFF").unwrap();
    let locked = root.join("locked");
    fs::create_dir(&locked).unwrap();
    fs::write(locked.join("hidden.txt"), "x").unwrap();
    let secret = root.join("secret.txt");
    fs::write(&secret, "x").unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o000)).unwrap();
    let output = command
        .env_remove("UTF8GUARD_KERNEL")
        .arg("-l")
        .arg(&root)
        .arg(locked.join("hidden.txt"))
        .output()
        .unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr_of(&output));
    assert_eq!(stdout_of(&output), format!("{}/a.txt\n", root.display()));
    // The same words for the same cause: a directory that cannot be
    // listed, a file that cannot be opened, a path that cannot be reached.
    assert_eq!(
        stderr_of(&output),
        format!(
            "utf8guard: {0}/locked: Permission denied\n\
             utf8guard: {0}/secret.txt: Permission denied\n\
             utf8guard: {0}/locked/hidden.txt: Permission denied\n",
            root.display()
        )
    );
}

// ------------------------------------------------------------ output ----

/// Runs the command with `args`, reads 100 bytes of its output and hangs
/// up, as `head` does; returns its exit status and what it wrote on stderr.
fn hang_up_after_100_bytes(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let mut child = StdCommand::new(BIN)
        .args(args)
        .env_remove("UTF8GUARD_KERNEL")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 100];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (child.wait().unwrap().code(), stderr)
}

#[test]
fn a_closed_stdout_ends_the_run_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.txt");
    // `repair` writes three bytes for each: more than the 1 MiB a pipe it
    // writes to is widened to, so that the hang-up is seen.
    fs::write(&path, b"\x80".repeat(1_000_000)).unwrap();
    // Status 2: the run stopped before the end, without a panic or a
    // message.
    let (status, stderr) = hang_up_after_100_bytes(&["--all".as_ref(), path.as_os_str()]);
    assert_eq!(status, Some(2), "{stderr}");
    assert_eq!(stderr, "");
    // `repair` the same way.
    let (status, stderr) = hang_up_after_100_bytes(&["repair".as_ref(), path.as_os_str()]);
    assert_eq!(status, Some(2), "{stderr}");
    assert_eq!(stderr, "");
}

#[test]
fn repair_reads_standard_input_without_a_path() {
    for args in [&["repair"][..], &["repair", "-"]] {
        cmd()
            .args(args)
            .write_stdin(&b"a\xff"[..])
            .assert()
            .code(1)
            .stdout("a\u{FFFD}")
            .stderr("");
    }
}

// ------------------------------------------------------------ repair ----

#[test]
fn repair_writes_what_std_lossy_writes() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    let output = dir.path().join("out.txt");
    let bytes = sample_with_errors();
    fs::write(&input, &bytes).unwrap();
    let expected = String::from_utf8_lossy(&bytes).into_owned();
    // To a file.
    cmd()
        .arg("repair")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .assert()
        .code(1)
        .stdout("")
        .stderr("");
    assert_eq!(fs::read_to_string(&output).unwrap(), expected);
    assert_eq!(fs::read(&input).unwrap(), bytes, "the input is untouched");
    // To stdout, from a file and from stdin.
    cmd()
        .arg("repair")
        .arg(&input)
        .assert()
        .code(1)
        .stdout(expected.clone());
    cmd()
        .args(["repair", "-", "-o", "-"])
        .write_stdin(bytes.clone())
        .assert()
        .code(1)
        .stdout(expected);
    // Valid input is copied unchanged, status 0.
    let valid = "Grüße 🌍\n";
    cmd()
        .args(["repair", "-"])
        .write_stdin(valid)
        .assert()
        .code(0)
        .stdout(valid);
}

/// `--replacement`: every policy writes what the library's `repair` (or
/// `escape`) does, from a mapped file (over the mapping threshold, errors
/// across the 1 MiB pieces) and from standard input; a mixed file comes
/// out right with `windows-1252`; an unknown name is a usage error.
#[test]
fn repair_with_each_replacement_policy() {
    let mut bytes = "café, naïve ".repeat(200_000).into_bytes(); // 2.8 MB
    for at in [(1usize << 20) - 1, 1 << 20, (2 << 20) + 1] {
        bytes[at] = 0xE9;
    }
    bytes.extend_from_slice(b"\xF0\x9F\x98");
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    let output = dir.path().join("out.txt");
    fs::write(&input, &bytes).unwrap();
    let names = [
        "maximal-subpart",
        "std",
        "jvm",
        "java",
        "per-byte",
        "go",
        "windows-1252",
        "cp1252",
        "latin-1",
        "backslash",
        "drop",
        "ignore",
        "escape",
        "surrogateescape",
    ];
    for name in names {
        let expected: Vec<u8> = match name {
            "escape" | "surrogateescape" => utf8guard::escape(&bytes).into_owned(),
            _ => utf8guard::repair(&bytes, name.parse().unwrap())
                .as_bytes()
                .to_vec(),
        };
        cmd()
            .args(["repair", "--replacement", name])
            .arg(&input)
            .arg("-o")
            .arg(&output)
            .assert()
            .code(1)
            .stderr("");
        assert!(fs::read(&output).unwrap() == expected, "{name}, mapped");
        let piped = cmd()
            .args(["repair", "-r", name])
            .write_stdin(bytes.clone())
            .output()
            .unwrap();
        assert_eq!(piped.status.code(), Some(1), "{name}");
        assert!(piped.stdout == expected, "{name}, standard input");
    }
    cmd()
        .args(["repair", "--replacement", "windows-1252"])
        .write_stdin(&b"caf\xC3\xA9\ncaf\xE9 \x80 \x9C\n"[..])
        .assert()
        .code(1)
        .stdout("café\ncafé € œ\n");
    // Policy names in any case, as encoding names.
    for (name, expected) in [
        ("Windows-1252", "café\ncafé € œ\n"),
        ("CP1252", "café\ncafé € œ\n"),
        ("MAXIMAL-SUBPART", "café\ncaf\u{FFFD} \u{FFFD} \u{FFFD}\n"),
        ("Drop", "café\ncaf  \n"),
        // The aliases the Python package and the SQL functions take too.
        ("latin1", "café\ncafé \u{80} \u{9C}\n"),
        ("ISO8859-1", "café\ncafé \u{80} \u{9C}\n"),
        ("replace", "café\ncaf\u{FFFD} \u{FFFD} \u{FFFD}\n"),
        ("maximal_subpart", "café\ncaf\u{FFFD} \u{FFFD} \u{FFFD}\n"),
        ("backslashreplace", "café\ncaf\\xe9 \\x80 \\x9c\n"),
    ] {
        cmd()
            .args(["repair", "-r", name])
            .write_stdin(&b"caf\xC3\xA9\ncaf\xE9 \x80 \x9C\n"[..])
            .assert()
            .code(1)
            .stdout(expected);
    }
    cmd()
        .args(["repair", "-r", "SurrogateEscape"])
        .write_stdin(&b"caf\xE9"[..])
        .assert()
        .code(1)
        .stdout(&b"caf\xED\xB3\xA9"[..]);
    cmd()
        .args(["repair", "--replacement", "bogus"])
        .write_stdin("x")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains(
            "unknown replacement policy; known: maximal-subpart, jvm, per-byte, \
             windows-1252, latin-1, backslash, drop, escape",
        ));
}

/// `--stats`: the units replaced under the policy, the first one's
/// offset, and the bytes read, on stderr; the output is unchanged.
#[test]
fn repair_stats_count_what_was_replaced() {
    let stats = |args: &[&str], input: &[u8]| {
        let out = cmd()
            .arg("repair")
            .args(args)
            .arg("--stats")
            .write_stdin(input.to_vec())
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        (out.status.code(), out.stdout, stderr)
    };
    let mixed = b"caf\xC3\xA9\ncaf\xE9 \xED\xA0\x80\n";
    let (code, stdout, stderr) = stats(&["-r", "jvm"], mixed);
    assert_eq!(
        (code, &stdout[..]),
        (Some(1), "café\ncaf\u{FFFD} \u{FFFD}\n".as_bytes())
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines[0],
        "utf8guard: replaced: 2 invalid sequences (jvm), the first at byte 9"
    );
    assert!(
        lines[1].starts_with("utf8guard: bytes: 15 (15 B) in "),
        "{stderr}"
    );
    let (_, _, stderr) = stats(&["-r", "std"], mixed);
    assert!(stderr.starts_with(
        "utf8guard: replaced: 4 invalid sequences (maximal-subpart), the first at byte 9\n"
    ));
    let (_, stdout, stderr) = stats(&["-r", "escape"], b"\xFFa");
    assert_eq!(stdout, b"\xED\xB3\xBFa");
    assert!(stderr
        .starts_with("utf8guard: replaced: 1 invalid sequence (escape), the first at byte 0\n"));
    let (code, stdout, stderr) = stats(&[], b"fine");
    assert_eq!((code, &stdout[..]), (Some(0), &b"fine"[..]));
    assert!(stderr.starts_with("utf8guard: replaced: 0 invalid sequences (maximal-subpart)\n"));
}

#[test]
fn repair_of_large_inputs_matches_std() {
    // Over the mapping threshold and many 1 MiB pieces, with errors and
    // characters at and across piece boundaries.
    let mut bytes = "€uro 🌍 ".repeat(400_000).into_bytes(); // 5.6 MB
    for (i, at) in [(1usize << 20) - 1, 1 << 20, (2 << 20) + 1, 3 << 20]
        .into_iter()
        .enumerate()
    {
        bytes[at] = [0xFF, 0x80, 0xE2, 0xC0][i];
    }
    bytes.extend_from_slice(b"\xF0\x9F\x98");
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    let output = dir.path().join("out.txt");
    fs::write(&input, &bytes).unwrap();
    let expected = String::from_utf8_lossy(&bytes).into_owned();
    cmd()
        .arg("repair")
        .arg(&input)
        .arg("--output")
        .arg(&output)
        .assert()
        .code(1);
    assert!(fs::read(&output).unwrap() == expected.as_bytes());
    let from_stdin = cmd()
        .arg("repair")
        .arg("-")
        .write_stdin(bytes.clone())
        .output()
        .unwrap();
    assert_eq!(from_stdin.status.code(), Some(1));
    assert!(from_stdin.stdout == expected.as_bytes());
}

#[test]
fn repair_never_writes_over_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    fs::write(&input, b"x\xFFy").unwrap();
    cmd()
        .arg("repair")
        .arg(&input)
        .arg("-o")
        .arg(&input)
        .assert()
        .code(2)
        .stdout("")
        .stderr(format!(
            "utf8guard: {}: the output is the input itself; repair never changes its input \
             (write elsewhere, then move the result)\n",
            input.display()
        ));
    assert_eq!(fs::read(&input).unwrap(), b"x\xFFy");
    // Nor through another name for the same file.
    #[cfg(unix)]
    {
        let other = dir.path().join("hard-link.txt");
        fs::hard_link(&input, &other).unwrap();
        cmd()
            .arg("repair")
            .arg(&input)
            .arg("-o")
            .arg(&other)
            .assert()
            .code(2);
        std::os::unix::fs::symlink(&input, dir.path().join("sym.txt")).unwrap();
        cmd()
            .arg("repair")
            .arg(&input)
            .arg("-o")
            .arg(dir.path().join("sym.txt"))
            .assert()
            .code(2);
        assert_eq!(fs::read(&input).unwrap(), b"x\xFFy");
    }
    // A missing input: status 2, and no output file is made.
    let out = dir.path().join("out.txt");
    cmd()
        .arg("repair")
        .arg(dir.path().join("nope"))
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(format!(
            "utf8guard: {}: No such file or directory\n",
            dir.path().join("nope").display()
        ));
    assert!(!out.exists());
}

// -------------------------------------------------------------- info ----

#[test]
fn info_names_the_version_the_kernels_and_the_active_one() {
    let output = cmd().arg("info").output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = stdout_of(&output);
    assert!(text.starts_with(&format!("utf8guard {} (", env!("CARGO_PKG_VERSION"))));
    assert!(text.contains("\nCPU features: "));
    let active = utf8guard::active_kernel();
    for &kernel in utf8guard::Kernel::ALL {
        let state = if kernel.is_available() {
            "available"
        } else {
            "not supported by this CPU"
        };
        let mark = if kernel == active { "  (active)" } else { "" };
        let line = format!("\n  {:<7} {state}{mark}\n", kernel.name());
        assert!(text.contains(&line), "{text} lacks {line:?}");
    }
    assert!(text.contains(&format!(
        "\nactive kernel: {active} (the fastest available; "
    )));

    let output = cmd()
        .arg("info")
        .env("UTF8GUARD_KERNEL", "scalar")
        .output()
        .unwrap();
    assert!(
        stdout_of(&output).contains("active kernel: scalar (forced by UTF8GUARD_KERNEL=scalar)")
    );
    // A setting the engine ignores: the problem first, then the report,
    // which names the kernel that runs instead.
    let output = StdCommand::new("sh")
        .args(["-c", "exec \"$0\" info 2>&1", BIN])
        .env("UTF8GUARD_KERNEL", "Bogus")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let text = stdout_of(&output);
    let first = format!(
        "utf8guard: UTF8GUARD_KERNEL=Bogus: unknown kernel; available: {}\n",
        available_kernels()
    );
    assert!(text.starts_with(&first), "{text}");
    assert!(
        text.contains(&format!(
            "\nactive kernel: {active} (the fastest available; UTF8GUARD_KERNEL was ignored, see above)\n"
        )),
        "{text}"
    );
}

// -------------------------------------------------------------- help ----

#[test]
fn help_documents_every_option_exit_status_and_the_json_schema() {
    let help = stdout_of(&cmd().arg("--help").output().unwrap());
    for needle in [
        "--all",
        "--max-errors <N>",
        "--json",
        "--quiet",
        "--list",
        "--invert",
        "--jobs <N>",
        "--kernel <NAME>",
        "--stats",
        "--follow",
        "--no-progress",
        "-0, --null",
        "Print JSON Lines: one JSON object per input and per line",
        "byte offset (in decimal)",
        "Exit status:",
        "0  every input is valid UTF-8",
        "1  some input is not valid UTF-8",
        "2  a usage error",
        "more_errors",
        "path_exact",
        "context_offset",
        "An empty file is valid.",
        "FIFO",
        "repair",
        "info",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}");
    }
    let check_help = stdout_of(&cmd().args(["check", "--help"]).output().unwrap());
    assert!(check_help.contains("--max-errors <N>") && check_help.contains("Exit status:"));
    let repair_help = stdout_of(&cmd().args(["repair", "--help"]).output().unwrap());
    for needle in [
        "--output <OUT>",
        "U+FFFD",
        "never modified",
        "Exit status:",
        "`-`, or none, reads standard input",
        "Output closed early",
    ] {
        assert!(
            repair_help.contains(needle),
            "repair --help lacks {needle:?}"
        );
    }
    cmd()
        .arg("--version")
        .assert()
        .code(0)
        .stdout(format!("utf8guard {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["--bogus"][..],
        &["--json", "--list"],
        &["--quiet", "--all"],
        &["--max-errors", "0"],
        &["--max-errors", "1000001"],
        &["--jobs", "0"],
        &["--jobs", "many"],
        &["repair", "a", "b"],
        &["info", "extra"],
    ] {
        let output = cmd().args(args).write_stdin("").output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout_of(&output), "", "{args:?}");
        assert!(stderr_of(&output).contains("error"), "{args:?}");
    }
}

// ------------------------------------------------------------ corpora ----

#[test]
fn the_demo_corpus_has_three_invalid_files() {
    cmd()
        .current_dir(repo_root())
        .args(["--list", "corpora/demo"])
        .assert()
        .code(1)
        .stdout(
            "corpora/demo/invalid/customers-latin1.csv\n\
             corpora/demo/invalid/mixed-up.txt\n\
             corpora/demo/invalid/truncated.txt\n",
        );
    cmd()
        .current_dir(repo_root())
        .args(["--invert", "corpora/demo"])
        .assert()
        .code(1)
        .stdout(
            "corpora/demo/README.md\n\
             corpora/demo/greetings.txt\n\
             corpora/demo/make-invalid.sh\n\
             corpora/demo/prices.csv\n",
        );
}

#[test]
fn the_shared_lipsum_corpus_is_valid() {
    let lipsum = repo_root().join("../shared/corpora/lipsum");
    if !lipsum.is_dir() {
        eprintln!(
            "SKIPPED: {} is absent (it sits beside the project on development and CI machines)",
            lipsum.display()
        );
        return;
    }
    let output = cmd().arg("--stats").arg(&lipsum).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout_of(&output), "");
    assert!(
        stderr_of(&output).starts_with("utf8guard: inputs: 9: 9 valid, 0 invalid, 0 unreadable\n")
    );
}

// ------------------------------------------------------------- peers ----

/// The first-error offsets of `isutf8` (moreutils), std and utf8guard agree.
#[test]
fn first_error_offsets_agree_with_isutf8_and_std() {
    if !have("isutf8") {
        eprintln!("SKIPPED: isutf8 not found (apt-get install moreutils)");
        return;
    }
    let mut cases: Vec<Vec<u8>> = [
        &b"ab\xE2\x82"[..],
        b"ab\xE2\x82c",
        b"\xE0\x80\x80",
        b"\xF0\x8F\xBF\xBF",
        b"\xF4\x90\x80\x80",
        b"\xED\xA0\x80",
        b"\xC0\xAF",
        b"\xC1\xBF",
        b"\xF5\x80",
        b"\xFF",
        b"\x80",
        b"a\xBF",
        b"\xE1\x80\xE1",
        b"\xF1\x80\x80a",
        b"\xDF\xC0",
        b"\xEF\xBF\xBF\xF8",
        b"\xE0\xA0\x80\xE0\x9F\x80",
        b"\xF0\x90\x80\x80\xF0\x90\x80",
        b"line1\nline2 \xE9t\xE9\n",
    ]
    .iter()
    .map(|c| c.to_vec())
    .collect();
    cases.push(sample_with_errors());
    let mut long = "Grüße 🌍\n".repeat(30_000).into_bytes();
    let at = long.len() - 7;
    long[at] = 0xF8;
    cases.push(long);
    let dir = tempfile::tempdir().unwrap();
    for (i, case) in cases.iter().enumerate() {
        let path = dir.path().join(format!("case{i}"));
        fs::write(&path, case).unwrap();
        let std_offset = std::str::from_utf8(case).unwrap_err().valid_up_to() as u64;
        let peer = StdCommand::new("isutf8").arg(&path).output().unwrap();
        assert_eq!(peer.status.code(), Some(1));
        let text = String::from_utf8_lossy(&peer.stdout);
        let peer_offset: u64 = text
            .split(", byte ")
            .nth(1)
            .and_then(|rest| rest.split(':').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("unexpected isutf8 output {text:?}"));
        let ours = cmd().arg("--json").arg(&path).output().unwrap();
        let report = &json_lines(&stdout_of(&ours))[0];
        let our_offset = report["errors"][0]["offset"].as_u64().unwrap();
        assert_eq!(
            (our_offset, peer_offset),
            (std_offset, std_offset),
            "{case:02X?}"
        );
    }
}
