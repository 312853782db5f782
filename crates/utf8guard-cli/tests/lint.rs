//! `utf8guard lint`: the Corrected UTF-8 document rules, in text and JSON,
//! with their exit statuses.

use std::fs;

mod common;

use common::{cmd, MAGIC};
use serde_json::Value;

#[test]
fn a_conforming_document_is_clean() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("ok.txt");
    fs::write(&doc, [MAGIC, b"one\n\xC0\xAFtwo\n"].concat()).unwrap();
    cmd()
        .arg("lint")
        .arg(&doc)
        .assert()
        .code(0)
        .stdout("")
        .stderr("");
}

#[test]
fn each_finding_on_its_own_line() {
    let doc = [MAGIC, b"a\r\n\tb\x00"].concat();
    cmd()
        .arg("lint")
        .write_stdin(doc)
        .assert()
        .code(1)
        .stderr("")
        .stdout(
            "-:2:2: SHOULD (carriage-return) at byte 9: U+000D CARRIAGE RETURN, which should not appear\n\
             -:3:1: SHOULD (control) at byte 11: C0 control U+0009, which should not appear\n\
             -:3:3: MUST (nul) at byte 13: U+0000, which must not appear outside the magic number\n\
             -:3:4: SHOULD (final-newline) at byte 14: the last character is not U+000A\n",
        );
    cmd()
        .args(["lint", "-"])
        .write_stdin(&b"x\n"[..])
        .assert()
        .code(1)
        .stdout(
            "-:1:1: SHOULD (magic-number) at byte 0: the file does not start with the magic \
             number EF B7 9D ED B2 AE 00 0A\n",
        );
}

#[test]
fn json_one_object_per_input() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.txt");
    let bad = dir.path().join("bad.txt");
    fs::write(&good, [MAGIC, b"fine\n"].concat()).unwrap();
    fs::write(&bad, [MAGIC, b"\x80\n"].concat()).unwrap();
    let missing = dir.path().join("missing.txt");
    let out = cmd()
        .args(["lint", "--json"])
        .args([&good, &bad, &missing])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let reports: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reports.len(), 3);
    assert_eq!(reports[0]["path_exact"], true);
    assert_eq!(reports[0]["status"], "clean");
    assert_eq!(reports[0]["bytes"], 13);
    assert_eq!(reports[0]["findings"], serde_json::json!([]));
    assert_eq!(reports[1]["status"], "findings");
    assert_eq!(
        reports[1]["findings"],
        serde_json::json!([{
            "offset": 8, "length": 1, "line": 2, "column": 1, "level": "MUST",
            "rule": "ill-formed",
            "description": "not well-formed Corrected UTF-8: unexpected continuation byte"
        }])
    );
    assert_eq!(reports[2]["status"], "error");
    assert_eq!(reports[2]["error"], "No such file or directory");
    assert_eq!(out.stderr, b"");
}

#[test]
fn an_unreadable_input_is_status_2_and_the_others_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    fs::write(&bad, [MAGIC, b"x"].concat()).unwrap();
    cmd()
        .arg("lint")
        .arg(dir.path())
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(format!(
            "utf8guard: {}: is a directory\n",
            dir.path().display()
        ))
        .stdout(format!(
            "{}:2:2: SHOULD (final-newline) at byte 9: the last character is not U+000A\n",
            bad.display()
        ));
}

/// A long input is linted in pieces, in bounded memory: 300 MB of lines
/// under a 150 MB address-space limit (it was read whole, and `lint
/// /dev/zero` grew until memory ran out).
#[cfg(target_os = "linux")]
#[test]
fn a_long_input_is_linted_in_bounded_memory() {
    let bin = env!("CARGO_BIN_EXE_utf8guard");
    let out = std::process::Command::new("sh")
        .args([
            "-c",
            "yes 'une ligne' | head -c 300000000 | (ulimit -v 150000; exec \"$0\" lint)",
            bin,
        ])
        .env_remove("UTF8GUARD_KERNEL")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "-:1:1: SHOULD (magic-number) at byte 0: the file does not start with the magic \
         number EF B7 9D ED B2 AE 00 0A\n"
    );
    assert_eq!(out.status.code(), Some(1));
}

/// `--json` prints findings as they are found too: on an endless input
/// full of findings under a 150 MB address-space limit, the first 100,000
/// bytes of the report come (the findings were held until the input ended,
/// and memory ran out first).
#[cfg(target_os = "linux")]
#[test]
fn json_findings_stream_from_an_endless_input() {
    let bin = env!("CARGO_BIN_EXE_utf8guard");
    let out = std::process::Command::new("sh")
        .args([
            "-c",
            "yes \"$(printf 'a\\r')\" | (ulimit -v 150000; exec \"$0\" lint --json) | head -c 100000",
            bin,
        ])
        .env_remove("UTF8GUARD_KERNEL")
        .output()
        .unwrap();
    assert_eq!(
        out.stdout.len(),
        100_000,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let start = "{\"path\":\"-\",\"path_exact\":true,\"findings\":[{\"offset\":0,\"length\":0,\
        \"line\":1,\"column\":1,\"level\":\"SHOULD\",\"rule\":\"magic-number\",";
    assert!(
        out.stdout.starts_with(start.as_bytes()),
        "{}",
        String::from_utf8_lossy(&out.stdout[..300])
    );
    let second = ",{\"offset\":1,\"length\":1,\"line\":1,\"column\":2,\"level\":\"SHOULD\",\
        \"rule\":\"carriage-return\",";
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(second), "{}", &text[..300]);
}
