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
    let o = difftest(&["check", "--hex", "61 ED A0 80"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(
        stdout(&o),
        "hex input of 4 bytes: every subject agrees \
         (valid_up_to 1, error_len Some(1), Surrogate)\n"
    );
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
