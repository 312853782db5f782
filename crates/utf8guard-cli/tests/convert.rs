//! `utf8guard convert`: round trips between the members of the family and
//! UTF-16, `--replace`, `--magic-number`, standard input and output, and
//! what a failed run leaves behind (nothing).

use std::fs;
use std::path::Path;

mod common;

use common::{cmd, MAGIC};

/// `convert --from FROM --to TO [extra]` on standard input: (status,
/// stdout, stderr).
fn convert_stdin(from: &str, to: &str, extra: &[&str], input: &[u8]) -> (i32, Vec<u8>, String) {
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

/// Converts `input` from `from` to `to` and back, through files; checks
/// both directions' bytes.
fn round_trip(dir: &Path, from: &str, to: &str, input: &[u8], expected: &[u8]) {
    let a = dir.join(format!("{from}.in"));
    let b = dir.join(format!("{from}-{to}.out"));
    let c = dir.join(format!("{from}-{to}-{from}.out"));
    fs::write(&a, input).unwrap();
    cmd()
        .args(["convert", "--from", from, "--to", to])
        .arg(&a)
        .arg("-o")
        .arg(&b)
        .assert()
        .code(0)
        .stdout("")
        .stderr("");
    assert_eq!(fs::read(&b).unwrap(), expected, "{from} -> {to}");
    cmd()
        .args(["convert", "--from", to, "--to", from])
        .arg(&b)
        .arg("-o")
        .arg(&c)
        .assert()
        .code(0);
    assert_eq!(fs::read(&c).unwrap(), input, "{to} -> {from}");
    // The input is never touched, and no temporary file is left.
    assert_eq!(fs::read(&a).unwrap(), input);
    let leftovers: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("utf8guard-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn cesu8_and_utf8_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    round_trip(
        dir.path(),
        "cesu-8",
        "utf-8",
        b"smile \xED\xA0\xBD\xED\xB8\x80 \xC3\xA9!\n",
        "smile 😀 é!\n".as_bytes(),
    );
}

#[test]
fn modified_utf8_and_utf8_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    round_trip(
        dir.path(),
        "mutf-8",
        "utf-8",
        b"a\xC0\x80b\xED\xA0\xBD\xED\xB8\x80",
        b"a\x00b\xF0\x9F\x98\x80",
    );
}

#[test]
fn utf16_and_wtf8_round_trip_with_lone_surrogates() {
    let dir = tempfile::tempdir().unwrap();
    // a, a lone lead, 😀, a lone trail, €.
    let wtf8: &[u8] = b"a\xED\xA0\x80\xF0\x9F\x98\x80\xED\xB0\x80\xE2\x82\xAC";
    let units: [u16; 6] = [0x61, 0xD800, 0xD83D, 0xDE00, 0xDC00, 0x20AC];
    let le: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
    let be: Vec<u8> = units.iter().flat_map(|u| u.to_be_bytes()).collect();
    round_trip(dir.path(), "wtf-8", "utf-16le", wtf8, &le);
    round_trip(dir.path(), "wtf-8", "utf-16be", wtf8, &be);
}

#[test]
fn corrected_utf8_with_the_magic_number() {
    let dir = tempfile::tempdir().unwrap();
    // Ï is C0 AF in Corrected UTF-8 (U+00CF - 0xA0), € is E1 A0 8C
    // (U+20AC - 0x8A0).
    let text = "Ï€\n";
    let (status, corrected, stderr) = convert_stdin(
        "utf-8",
        "corrected-utf-8",
        &["--magic-number"],
        text.as_bytes(),
    );
    assert_eq!((status, stderr.as_str()), (0, ""));
    assert_eq!(corrected, [MAGIC, b"\xC0\xAF\xE1\xA0\x8C\n"].concat());
    round_trip(
        dir.path(),
        "corrected-utf-8",
        "utf-8",
        &corrected[8..],
        text.as_bytes(),
    );
    // The magic number is dropped on the way back.
    let (status, back, _) = convert_stdin("corrected", "utf-8", &[], &corrected);
    assert_eq!((status, back), (0, text.as_bytes().to_vec()));
    // Only Corrected UTF-8 has one.
    let (status, out, stderr) = convert_stdin("utf-8", "cesu-8", &["-M"], b"x");
    assert_eq!((status, out), (2, vec![]));
    assert_eq!(
        stderr,
        "utf8guard: --magic-number: only Corrected UTF-8 has a magic number, not CESU-8\n"
    );
}

#[test]
fn replace_writes_u_fffd() {
    let (status, out, stderr) =
        convert_stdin("wtf-8", "utf-8", &["--replace"], b"ab\xED\xA0\x80c\xFF");
    assert_eq!(
        (status, stderr.as_str()),
        (
            0,
            "utf8guard: -: 2 sequences replaced with U+FFFD, the first at byte 2\n"
        )
    );
    assert_eq!(out, "ab\u{FFFD}c\u{FFFD}".as_bytes());
    // In the target's own form: CESU-8's U+FFFD is EF BF BD too; Corrected
    // UTF-8's is EE BD 9D (U+FFFD - 0x10A0).
    let (status, out, stderr) = convert_stdin("utf-8", "corrected-utf-8", &["-r"], b"a\x80");
    assert_eq!(status, 0);
    assert_eq!(out, b"a\xEE\xBD\x9D");
    assert_eq!(
        stderr,
        "utf8guard: -: 1 sequence replaced with U+FFFD, the first at byte 1\n"
    );
    // Nothing replaced: nothing said.
    let (status, out, stderr) = convert_stdin("cesu-8", "utf-8", &["-r"], b"fine");
    assert_eq!((status, &out[..], stderr.as_str()), (0, &b"fine"[..], ""));
    // UTF-16 on either side: a lone surrogate into UTF-8, an odd last byte;
    // WTF-8 to UTF-16 (validated by a transcoder first).
    let (status, out, stderr) = convert_stdin("utf-16le", "utf-8", &["-r"], b"a\x00\x00\xD8b\x00c");
    assert_eq!(status, 0);
    assert_eq!(out, "a\u{FFFD}b\u{FFFD}".as_bytes());
    assert_eq!(
        stderr,
        "utf8guard: -: 2 sequences replaced with U+FFFD, the first at byte 2\n"
    );
    let (status, out, stderr) = convert_stdin(
        "wtf-8",
        "utf-16be",
        &["-r"],
        b"a\xED\xA0\x80\xED\xB0\x80\xC0",
    );
    assert_eq!(status, 0);
    // The trail after a lead is an error at its first byte (a lead and a
    // trail must be the 4-byte form), and its other two bytes are stray
    // continuation bytes: three U+FFFD, and one for C0.
    assert_eq!(out, b"\x00a\xD8\x00\xFF\xFD\xFF\xFD\xFF\xFD\xFF\xFD");
    assert_eq!(
        stderr,
        "utf8guard: -: 4 sequences replaced with U+FFFD, the first at byte 4\n"
    );
}

#[test]
fn strict_errors_name_the_offset_and_cause() {
    let (status, out, stderr) = convert_stdin("cesu-8", "utf-8", &[], b"ok\xED\xA0\xBDx");
    assert_eq!(status, 1);
    assert_eq!(out, b"ok");
    assert_eq!(
        stderr,
        "utf8guard: -: invalid CESU-8 at byte 2: surrogate that is not half of a surrogate pair\n"
    );
    let (status, _, stderr) = convert_stdin("wtf-8", "utf-8", &[], b"ab\xED\xA0\x80");
    assert_eq!(status, 1);
    assert_eq!(
        stderr,
        "utf8guard: -: cannot convert to UTF-8 at byte 2: surrogate code point, \
         which this encoding cannot hold\n"
    );
    let (status, _, stderr) = convert_stdin("utf-16le", "utf-8", &[], b"a\x00\x00\xD8b\x00");
    assert_eq!(status, 1);
    assert_eq!(
        stderr,
        "utf8guard: -: cannot convert to UTF-8 at byte 2: surrogate code point, \
         which this encoding cannot hold\n"
    );
    let (status, _, stderr) = convert_stdin("utf-16be", "wtf-8", &[], b"\x00a\x00");
    assert_eq!(status, 1);
    assert_eq!(
        stderr,
        "utf8guard: -: invalid UTF-16BE at byte 2: input ends inside a 2-byte code unit\n"
    );
}

/// `convert --from cesu-8 --to utf-8 IN -o OUT`.
fn cesu8_to_utf8(input: &Path, output: &Path) -> assert_cmd::assert::Assert {
    cmd()
        .args(["convert", "--from", "cesu-8", "--to", "utf-8"])
        .arg(input)
        .arg("-o")
        .arg(output)
        .assert()
}

#[test]
fn a_failed_strict_conversion_writes_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.cesu");
    fs::write(&input, b"fine so far\n\xF0\x9F\x98\x80").unwrap();
    let fresh = dir.path().join("fresh.txt");
    cesu8_to_utf8(&input, &fresh)
        .code(1)
        .stdout("")
        .stderr(format!(
            "utf8guard: {}: invalid CESU-8 at byte 12: 4-byte sequence, where a surrogate \
             pair is required\n",
            input.display()
        ));
    assert!(!fresh.exists());
    // An existing output is left as it was.
    let existing = dir.path().join("existing.txt");
    fs::write(&existing, b"keep me").unwrap();
    cesu8_to_utf8(&input, &existing).code(1);
    assert_eq!(fs::read(&existing).unwrap(), b"keep me");
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut names = names;
    names.sort();
    assert_eq!(names, ["existing.txt", "in.cesu"]);
    // A successful run replaces it.
    fs::write(&input, b"now fine\n").unwrap();
    cesu8_to_utf8(&input, &existing).code(0);
    assert_eq!(fs::read(&existing).unwrap(), b"now fine\n");
}

#[test]
fn the_input_is_never_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    fs::write(&input, b"text\n").unwrap();
    cmd()
        .args(["convert", "--from", "utf-8", "--to", "cesu-8"])
        .arg(&input)
        .arg("-o")
        .arg(&input)
        .assert()
        .code(2)
        .stderr(format!(
            "utf8guard: {}: the output is the input itself; convert never changes its input \
             (write elsewhere, then move the result)\n",
            input.display()
        ));
    assert_eq!(fs::read(&input).unwrap(), b"text\n");
}

#[test]
fn standard_input_and_output_by_dash() {
    cmd()
        .args(["convert", "-f", "utf-8", "-t", "cesu-8", "-", "-o", "-"])
        .write_stdin("😀".as_bytes().to_vec())
        .assert()
        .code(0)
        .stdout(&b"\xED\xA0\xBD\xED\xB8\x80"[..]);
}

#[test]
fn a_large_input_streams_through_pieces() {
    // Larger than a read, with pairs and lone surrogates across every
    // piece boundary.
    let unit: Vec<u16> = vec![0x61, 0xD83D, 0xDE00, 0xD800, 0x20AC, 0xDC00, 0x0A];
    let units: Vec<u16> = unit.iter().copied().cycle().take(7 * 40_001).collect();
    let le: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
    let (status, wtf8, stderr) = convert_stdin("utf-16le", "wtf-8", &[], &le);
    assert_eq!((status, stderr.as_str()), (0, ""));
    let piece: &[u8] = b"a\xF0\x9F\x98\x80\xED\xA0\x80\xE2\x82\xAC\xED\xB0\x80\n";
    assert_eq!(wtf8, piece.repeat(40_001));
    let (status, back, _) = convert_stdin("wtf-8", "utf-16le", &[], &wtf8);
    assert_eq!((status, back == le), (0, true));
}

#[test]
fn options_a_target_lacks_are_usage_errors() {
    let (status, out, stderr) = convert_stdin("utf-8", "latin-1", &["--bom"], b"a");
    assert_eq!((status, out), (2, vec![]));
    assert_eq!(stderr, "utf8guard: --bom: Latin-1 has no byte order mark\n");
    let (status, _, stderr) = convert_stdin("utf-16le", "utf-32", &["--magic-number"], b"a\x00");
    assert_eq!(status, 2);
    assert_eq!(
        stderr,
        "utf8guard: --magic-number: only Corrected UTF-8 has a magic number, not UTF-32\n"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_failing_write_is_reported() {
    let input = tempfile::NamedTempFile::new().unwrap();
    fs::write(input.path(), b"text\n").unwrap();
    cmd()
        .args(["convert", "--from", "utf-8", "--to", "wtf-8"])
        .arg(input.path())
        .args(["-o", "/dev/full"])
        .assert()
        .code(2)
        .stderr("utf8guard: /dev/full: write error: No space left on device\n");
}

#[cfg(unix)]
#[test]
fn a_replaced_output_keeps_its_permissions_and_a_link_its_target() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    fs::write(&input, "😀\n").unwrap();
    let real = dir.path().join("real.cesu");
    fs::write(&real, b"old").unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.path().join("link.cesu");
    symlink(&real, &link).unwrap();
    cmd()
        .args(["convert", "-f", "utf-8", "-t", "cesu-8"])
        .arg(&input)
        .arg("-o")
        .arg(&link)
        .assert()
        .code(0);
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read(&real).unwrap(), b"\xED\xA0\xBD\xED\xB8\x80\n");
    let mode = fs::metadata(&real).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
    // A link to the input is the input.
    let to_input = dir.path().join("to-input");
    symlink(&input, &to_input).unwrap();
    cmd()
        .args(["convert", "-f", "utf-8", "-t", "cesu-8"])
        .arg(&input)
        .arg("-o")
        .arg(&to_input)
        .assert()
        .code(2);
    assert_eq!(fs::read(&input).unwrap(), "😀\n".as_bytes());
}

/// A write that fails halfway (the file size limit, with SIGXFSZ ignored,
/// makes it fail with EFBIG) leaves neither OUT nor the temporary file.
#[cfg(target_os = "linux")]
#[test]
fn a_write_that_fails_halfway_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.txt");
    fs::write(&input, "é".repeat(200_000)).unwrap();
    let out = dir.path().join("out.cesu");
    let script = format!(
        "trap '' XFSZ; ulimit -f 64; exec '{}' convert -f utf-8 -t cesu-8 '{}' -o '{}'",
        env!("CARGO_BIN_EXE_utf8guard"),
        input.display(),
        out.display()
    );
    let result = std::process::Command::new("sh")
        .args(["-c", &script])
        .env_remove("UTF8GUARD_KERNEL")
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(result.stderr).unwrap(),
        format!(
            "utf8guard: {}: write error: File too large\n",
            out.display()
        )
    );
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["big.txt"]);
}

/// Text in `dialect` holding a little of everything it can hold: ASCII,
/// a newline, 2-, 3- and 4-byte characters, a C1 control, lone surrogates
/// (apart, so never a pair), U+0000, the highest scalar value and the code
/// points past it.
fn sample(dialect: utf8guard::Dialect) -> Vec<u8> {
    [
        0x41,
        0x0A,
        0xE9,
        0x85,
        0x20AC,
        0xD800,
        0x78,
        0xDC00,
        0x1_F600,
        0,
        0x10_FFFF,
        0x11_0000,
        0x7FFF_FFFF,
        0x8421_109F,
    ]
    .iter()
    .filter_map(|&cp| dialect.encode(cp).ok())
    .flat_map(|e| e.to_vec())
    .collect()
}

#[test]
fn every_pair_writes_what_the_library_writes() {
    use utf8guard::{Dialect, Policy, Transcoder};
    for &from in Dialect::ALL {
        let text = sample(from);
        let mut broken = text.clone();
        broken.extend_from_slice(b"\x80z");
        for &to in Dialect::ALL {
            for input in [&text, &broken] {
                for (policy, extra) in [(Policy::Strict, &[][..]), (Policy::Replace, &["-r"][..])] {
                    let mut expected = Vec::new();
                    let library = Transcoder::new(from, to, policy).transcode_to_vec(
                        input,
                        &mut expected,
                        true,
                    );
                    let (status, out, stderr) = convert_stdin(from.name(), to.name(), extra, input);
                    let case = format!("{from} -> {to} {extra:?} on {input:02X?}: {stderr}");
                    assert_eq!(status, if library.is_ok() { 0 } else { 1 }, "{case}");
                    assert_eq!(out, expected, "{case}");
                    match library {
                        Err(e) => {
                            let at = format!("at byte {}:", e.offset());
                            assert!(stderr.contains(&at), "{case}");
                        }
                        Ok(_) => {
                            let t = {
                                let mut t = Transcoder::new(from, to, policy);
                                t.transcode_to_vec(input, &mut Vec::new(), true).unwrap();
                                t
                            };
                            let said = t.first_replacement().map(|at| {
                                format!("replaced with U+FFFD, the first at byte {at}\n")
                            });
                            assert_eq!(said.is_some(), !stderr.is_empty(), "{case}");
                            if let Some(said) = said {
                                assert!(stderr.ends_with(&said), "{case}");
                                let n = t.replacements().to_string();
                                assert!(stderr.contains(&format!(": {n} sequence")), "{case}");
                            }
                        }
                    }
                }
            }
        }
    }
}
