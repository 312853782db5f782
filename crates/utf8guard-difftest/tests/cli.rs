//! The `difftest` binary: its commands, outputs and exit statuses.

use std::process::{Command, Output};

use utf8guard_difftest::Script;

fn difftest(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_difftest"))
        .args(args)
        .env_remove("UTF8GUARD_KERNEL")
        .output()
        .expect("run difftest")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn check_replays_an_input_and_prints_the_truth() {
    let o = difftest(&["check", "--dialect", "utf-8", "--hex", "61 ED A0 80"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(
        stdout(&o),
        "hex input of 4 bytes:\n  utf-8: every subject agrees \
         (valid_up_to 1, error_len Some(1), Surrogate)\n"
    );
}

#[test]
fn check_prints_the_truth_in_every_dialect() {
    let o = difftest(&["check", "--hex", "61 ED A0 80"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(
        stdout(&o),
        "hex input of 4 bytes:\n\
         \x20 utf-8: every subject agrees (valid_up_to 1, error_len Some(1), Surrogate)\n\
         \x20 unicode-3.1: every subject agrees (valid)\n\
         \x20 wtf-8: every subject agrees (valid)\n\
         \x20 cesu-8: every subject agrees (valid_up_to 1, error_len None, Incomplete)\n\
         \x20 mutf-8: every subject agrees (valid)\n\
         \x20 rfc2279: every subject agrees (valid)\n\
         \x20 corrected-utf-8: every subject agrees (valid)\n"
    );
    let o = difftest(&[
        "check",
        "--dialect",
        "corrected",
        "--dialect",
        "java",
        "--hex",
        "EF B7 9D ED B2 AE 00 0A 61 FF 80",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(
        stdout(&o),
        "hex input of 11 bytes:\n\
         \x20 mutf-8: every subject agrees (valid_up_to 6, error_len Some(1), Nul)\n\
         \x20 corrected-utf-8: every subject agrees \
         (valid, magic number, first reserved run at 9)\n"
    );
}

#[test]
fn check_reads_a_fuzz_input_whose_first_byte_picks_the_dialect() {
    let path = std::env::temp_dir().join(format!("difftest-fuzz-{}.bin", std::process::id()));
    // Selector 3: CESU-8; a lone trail surrogate.
    std::fs::write(&path, b"\x03ab\xED\xB0\x80").expect("write the input");
    let name = path.to_str().expect("utf-8 temp path");
    let o = difftest(&["check", "--fuzz-input", name]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "{name} (5 bytes):\n  cesu-8: every subject agrees \
             (valid_up_to 2, error_len Some(1), LoneSurrogate)\n"
        )
    );
}

#[test]
fn unknown_dialects_are_refused() {
    for args in [
        &["--dialect", "utf-16"][..],
        &["check", "--dialect", "utf-16", "--hex", "61"],
    ] {
        let o = difftest(args);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(
                "unknown dialect utf-16; dialects: utf-8, unicode-3.1, wtf-8, cesu-8, \
                 mutf-8, rfc2279, corrected-utf-8"
            ),
            "{err}"
        );
    }
}

#[test]
fn a_run_in_chosen_dialects_tests_only_their_subjects() {
    let o = difftest(&[
        "--seconds",
        "1",
        "--seed",
        "3",
        "--dialect",
        "cesu-8",
        "--dialect",
        "wtf8",
        "--only",
        "random",
        "--no-default-corpora",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("dialects wtf-8, cesu-8,"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("scalar.check_dialect(cesu-8) ")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("StreamValidator::with_dialect(wtf-8) ")),
        "{out}"
    );
    assert!(out.lines().any(|l| l.starts_with("cesu-8 ")), "{out}");
    assert!(!out.contains("from_utf8"), "{out}");
    assert!(!out.contains("(mutf-8)"), "{out}");
    assert!(out.contains("\n0 mismatches in "), "{out}");
}

#[test]
fn a_short_run_prints_counts_per_category_and_subject() {
    let o = difftest(&[
        "--seconds",
        "1",
        "--seed",
        "5",
        "--only",
        "random",
        "--only",
        "exhaustive",
        "--no-default-corpora",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("seed 5 (0x5)"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("random ")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("exhaustive ")), "{out}");
    assert!(!out.lines().any(|l| l.starts_with("mutation ")), "{out}");
    assert!(
        out.lines().any(|l| l.starts_with("scalar.from_utf8 ")),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.starts_with("StreamValidator ")),
        "{out}"
    );
    for subject in [
        "par::check_split ",
        "Utf8Reader::read ",
        "Utf8Reader::fill_buf ",
        "io::validate_reader ",
    ] {
        assert!(out.lines().any(|l| l.starts_with(subject)), "{out}");
    }
    assert!(out.contains("\n0 mismatches in "), "{out}");
}

#[test]
fn a_kernel_can_be_chosen_and_unknown_names_are_refused() {
    let o = difftest(&[
        "--seconds",
        "0.2",
        "--seed",
        "1",
        "--kernel",
        "scalar",
        "--only",
        "random",
        "--no-default-corpora",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("active kernel scalar"), "{out}");
    assert!(!out.contains("sse42."), "{out}");

    let o = difftest(&["--kernel", "avx1024"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--kernel avx1024: unknown kernel; available: scalar"),
        "{err}"
    );
}

#[test]
fn generate_writes_the_generators_text() {
    let path = std::env::temp_dir().join(format!("difftest-cli-{}.txt", std::process::id()));
    let o = difftest(&[
        "generate",
        "--script",
        "greek",
        "--size",
        "3KiB",
        "--seed",
        "9",
        "--out",
        path.to_str().expect("utf-8 temp path"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let written = std::fs::read(&path).expect("generated file");
    let _ = std::fs::remove_file(&path);
    assert_eq!(written, Script::Greek.generate(9, 3072));
}
