//! Inputs and outputs that change or fail under the command: an OUT that is
//! standard input, a run killed or failing halfway, a mapped file truncated
//! while it is read, closed standard descriptors, a read-only OUT.

mod common;

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::cmd;

const BIN: &str = env!("CARGO_BIN_EXE_utf8guard");

fn std_cmd() -> Command {
    let mut c = Command::new(BIN);
    c.env_remove("UTF8GUARD_KERNEL");
    c
}

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn an_out_that_is_standard_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.csv");
    let original = b"name\nJos\xE9\n".to_vec();
    let commands: [&[&str]; 3] = [
        &["repair", "-o"],
        &["repair", "-", "-o"],
        &[
            "convert",
            "-f",
            "utf-8",
            "-t",
            "utf-16le",
            "--replace",
            "-",
            "-o",
        ],
    ];
    for args in commands {
        fs::write(&path, &original).unwrap();
        let out = std_cmd()
            .args(args)
            .arg(&path)
            .stdin(File::open(&path).unwrap())
            .output()
            .unwrap();
        let verb = args[0];
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            format!(
                "utf8guard: {}: the output is the input itself; {verb} never changes its input \
                 (write elsewhere, then move the result)\n",
                path.display()
            )
        );
        assert_eq!(fs::read(&path).unwrap(), original, "{args:?}");
        assert_eq!(names_in(dir.path()), ["f.csv"]);
    }
    // Reading and writing one device harms nothing.
    std_cmd()
        .args(["repair", "-o", "/dev/null"])
        .stdin(File::open("/dev/null").unwrap())
        .status()
        .map(|s| assert_eq!(s.code(), Some(0)))
        .unwrap();
}

/// `repair` and `convert` with OUT on a file system that refuses writes
/// past 64 KiB (`ulimit -f`, SIGXFSZ ignored: EFBIG): OUT keeps its old
/// contents, and no temporary file is left.
#[cfg(target_os = "linux")]
#[test]
fn a_write_failing_halfway_leaves_out_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.txt");
    fs::write(&input, b"Jos\xE9 M\xFCller \xE2\x82\xAC\n".repeat(40_000)).unwrap();
    let out = dir.path().join("out.txt");
    for sub in ["repair", "convert -f utf-8 -t cesu-8 --replace"] {
        fs::write(&out, b"old").unwrap();
        let script = format!(
            "trap '' XFSZ; ulimit -f 64; exec '{BIN}' {sub} '{}' -o '{}'",
            input.display(),
            out.display()
        );
        let result = Command::new("sh")
            .args(["-c", &script])
            .env_remove("UTF8GUARD_KERNEL")
            .output()
            .unwrap();
        assert_eq!(result.status.code(), Some(2), "{sub}");
        assert_eq!(
            String::from_utf8(result.stderr).unwrap(),
            format!(
                "utf8guard: {}: write error: File too large\n",
                out.display()
            ),
        );
        assert_eq!(fs::read(&out).unwrap(), b"old", "{sub}");
        assert_eq!(names_in(dir.path()), ["big.txt", "out.txt"]);
    }
}

/// `repair -o OUT` killed halfway (SIGKILL, while it waits for more of its
/// input) leaves the old OUT whole: what it wrote so far went to a
/// temporary file.
#[cfg(target_os = "linux")]
#[test]
fn a_repair_killed_halfway_leaves_out_as_it_was() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    fs::write(&out, b"old").unwrap();
    let mut child = std_cmd()
        .args(["repair", "-", "-o"])
        .arg(&out)
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut writer = child.stdin.take().unwrap();
    // More than the output buffer (1 MiB): some of it is written out.
    writer
        .write_all(&b"Jos\xE9 M\xFCller\n".repeat(300_000))
        .unwrap();
    writer.flush().unwrap();
    let temp = |dir: &Path| {
        names_in(dir)
            .into_iter()
            .find(|n| n.starts_with(".out.txt.utf8guard-"))
            .map(|n| dir.join(n))
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let written = temp(dir.path()).and_then(|t| fs::metadata(t).ok());
        if written.is_some_and(|m| m.len() > 0) {
            break;
        }
        // Without a temporary file, OUT itself would be written.
        assert_eq!(fs::read(&out).unwrap(), b"old");
        assert!(Instant::now() < deadline, "nothing written in 20 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    drop(writer);
    assert_eq!(fs::read(&out).unwrap(), b"old");
}

/// Runs `command`, which maps `file` (a large regular file), and truncates
/// the file to `keep` bytes as soon as the mapping is seen in
/// /proc/PID/maps; its output, which must have status 2.
#[cfg(target_os = "linux")]
fn truncate_while_mapped(mut command: Command, file: &Path, keep: u64) -> std::process::Output {
    use std::os::unix::fs::MetadataExt;
    // The command may be done before the file is truncated: try again (a
    // few times at most; a SIGBUS ends the test at once, whatever the try).
    for _ in 0..10 {
        fs::write(file, big_contents()).unwrap();
        let ino = fs::metadata(file).unwrap().ino().to_string();
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let maps = PathBuf::from(format!("/proc/{}/maps", child.id()));
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut truncated = false;
        while Instant::now() < deadline {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            // (Unreadable while the child execs.)
            let Ok(text) = fs::read_to_string(&maps) else {
                continue;
            };
            if text
                .lines()
                .any(|l| l.split_whitespace().nth(4) == Some(ino.as_str()))
            {
                File::options()
                    .write(true)
                    .open(file)
                    .unwrap()
                    .set_len(keep)
                    .unwrap();
                truncated = true;
                break;
            }
        }
        let output = child.wait_with_output().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            output.status.signal(),
            None,
            "killed by a signal: {output:?}"
        );
        if truncated && output.status.code() == Some(2) {
            return output;
        }
    }
    panic!("the command never saw its file truncated in 10 tries");
}

/// 256 MiB of ASCII text: a file of it is mapped, and its pages all read
/// by the scan.
#[cfg(target_os = "linux")]
fn big_contents() -> Vec<u8> {
    let line = b"2026-11-29 07:00:00 INFO request served in 12 ms\n";
    line.repeat((256 << 20) / line.len())
}

#[cfg(target_os = "linux")]
fn big_file(dir: &Path) -> PathBuf {
    let path = dir.join("big.log");
    fs::write(&path, big_contents()).unwrap();
    path
}

#[cfg(target_os = "linux")]
#[test]
fn a_file_truncated_while_checked_is_reported_and_the_others_still_are() {
    let dir = tempfile::tempdir().unwrap();
    let big = big_file(dir.path());
    let other = dir.path().join("other.txt");
    fs::write(&other, b"caf\xE9\n").unwrap();
    let changed = format!(
        "utf8guard: {}: the file changed while it was read (it was truncated): not checked\n",
        big.display()
    );
    for jobs in ["1", "2"] {
        let mut command = std_cmd();
        command
            .args(["--jobs", jobs, "--no-progress", "-l"])
            .arg(&big)
            .arg(&other);
        let output = truncate_while_mapped(command, &big, 4096);
        assert_eq!(String::from_utf8_lossy(&output.stderr), changed);
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            format!("{}\n", other.display())
        );
        // In JSON, the same as an error line.
        let mut command = std_cmd();
        command.args(["--jobs", jobs, "--json"]).arg(&big);
        let output = truncate_while_mapped(command, &big, 0);
        let line = String::from_utf8_lossy(&output.stdout);
        assert!(line.contains("\"status\":\"error\""), "{line}");
        assert!(
            line.contains("the file changed while it was read"),
            "{line}"
        );
    }
    // A file redirected to standard input is mapped too.
    let mut command = std_cmd();
    command
        .args(["--jobs", "1", "-"])
        .stdin(File::open(&big).unwrap());
    let output = truncate_while_mapped(command, &big, 100);
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "utf8guard: -: the file changed while it was read (it was truncated): not checked\n"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_file_truncated_while_repaired_leaves_no_out() {
    let dir = tempfile::tempdir().unwrap();
    let big = big_file(dir.path());
    let out = dir.path().join("out.txt");
    let mut command = std_cmd();
    command.arg("repair").arg(&big).arg("-o").arg(&out);
    let output = truncate_while_mapped(command, &big, 4096);
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!(
            "utf8guard: {}: the file changed while it was read (it was truncated): not repaired\n",
            big.display()
        )
    );
    assert_eq!(names_in(dir.path()), ["big.log"]);
}

/// A closed standard input is an error, not an empty input; a closed
/// standard output loses no repair in silence.
#[cfg(unix)]
#[test]
fn closed_standard_descriptors_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    fs::write(&input, b"caf\xE9\n").unwrap();
    let run = |script: &str| {
        Command::new("sh")
            .args(["-c", script, BIN, input.to_str().unwrap()])
            .env_remove("UTF8GUARD_KERNEL")
            .output()
            .unwrap()
    };
    for (script, message) in [
        ("exec \"$0\" <&-", "utf8guard: -: Bad file descriptor\n"),
        (
            "exec \"$0\" check - <&-",
            "utf8guard: -: Bad file descriptor\n",
        ),
        (
            "exec \"$0\" repair <&-",
            "utf8guard: -: Bad file descriptor\n",
        ),
        (
            "exec \"$0\" convert -f utf-8 -t cesu-8 <&-",
            "utf8guard: -: Bad file descriptor\n",
        ),
        (
            "exec \"$0\" repair \"$1\" >&-",
            "utf8guard: standard output: Bad file descriptor\n",
        ),
        (
            "exec \"$0\" convert -f utf-8 -t cesu-8 --replace \"$1\" >&-",
            "utf8guard: standard output: Bad file descriptor\n",
        ),
        (
            "exec \"$0\" check -e auto <&-",
            "utf8guard: -: Bad file descriptor\n",
        ),
        (
            "exec \"$0\" lint <&-",
            "utf8guard: -: Bad file descriptor\n",
        ),
        (
            "exec \"$0\" check \"$1\" >&-",
            "utf8guard: standard output: Bad file descriptor\n",
        ),
        (
            "exec \"$0\" check --json \"$1\" >&-",
            "utf8guard: standard output: Bad file descriptor\n",
        ),
        (
            "exec \"$0\" lint \"$1\" >&-",
            "utf8guard: standard output: Bad file descriptor\n",
        ),
        (
            "exec \"$0\" info >&-",
            "utf8guard: standard output: write error: Bad file descriptor\n",
        ),
        (
            "exec \"$0\" repair \"$1\" -o /dev/stdout >&-",
            "utf8guard: standard output: Bad file descriptor\n",
        ),
    ] {
        let output = run(script);
        assert_eq!(output.status.code(), Some(2), "{script}");
        assert_eq!(String::from_utf8_lossy(&output.stderr), message, "{script}");
    }
}

/// A read-only OUT is refused, as `cp` refuses it, unless `--force`.
#[cfg(unix)]
#[test]
fn a_read_only_out_is_replaced_only_with_force() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    fs::write(&input, "😀\n").unwrap();
    let out = dir.path().join("out.txt");
    for sub in [&["repair"][..], &["convert", "-f", "utf-8", "-t", "cesu-8"]] {
        fs::write(&out, b"old").unwrap();
        fs::set_permissions(&out, fs::Permissions::from_mode(0o444)).unwrap();
        cmd()
            .args(sub)
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .assert()
            .code(2)
            .stderr(format!(
                "utf8guard: {}: is read-only; not replaced (--force replaces it)\n",
                out.display()
            ));
        assert_eq!(fs::read(&out).unwrap(), b"old");
        cmd()
            .args(sub)
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .arg("--force")
            .assert()
            .code(0);
        assert_ne!(fs::read(&out).unwrap(), b"old");
        let mode = fs::metadata(&out).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o444, "the replaced file's permissions");
        fs::remove_file(&out).unwrap();
    }
}

/// `info`, and clap's help and version, when standard output cannot be
/// written: a message and status 2, as the other subcommands give, never a
/// panic (status 101) nor a success.
#[cfg(target_os = "linux")]
#[test]
fn info_help_and_version_report_an_unwritable_output() {
    let commands: [&[&str]; 6] = [
        &["info"],
        &["--help"],
        &["-h"],
        &["--version"],
        &["help", "lint"],
        &["lint", "--help"],
    ];
    for args in commands {
        let out = std_cmd()
            .args(args)
            .stdout(File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "utf8guard: standard output: write error: No space left on device\n",
            "{args:?}"
        );
        // A reader that is gone, as after `head`: silent, but not a success.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = std_cmd().args(args).stdout(writer).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    }
}

/// `--stats` after a report that could not be written counts each input
/// once, as what it was.
#[cfg(target_os = "linux")]
#[test]
fn stats_after_an_unwritable_report_count_the_inputs_once() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    fs::write(&input, b"caf\xE9\n").unwrap();
    let out = std_cmd()
        .args(["check", "--stats"])
        .arg(&input)
        .stdout(File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().take(2).collect();
    assert_eq!(
        lines,
        [
            "utf8guard: cannot write the report: No space left on device",
            "utf8guard: inputs: 1: 0 valid, 1 invalid, 0 unreadable",
        ]
    );
}

/// A regular file whose size says nothing (the files of /proc report 0;
/// /proc/self/pagemap holds gigabytes) is read as a stream, in constant
/// memory, whatever the encoding asked for. Under a 1 GiB address-space
/// limit, reading it whole failed within a second.
#[cfg(target_os = "linux")]
#[test]
fn files_of_size_zero_are_streamed() {
    use std::os::unix::process::CommandExt;
    for encoding in ["utf-8", "auto", "cesu-8"] {
        let mut c = std_cmd();
        c.args(["check", "--all", "-e", encoding, "/proc/self/pagemap"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: between fork and exec, only setrlimit, which is
        // async-signal-safe, on a value built before the fork.
        unsafe {
            c.pre_exec(|| {
                let limit = libc::rlimit {
                    rlim_cur: 1 << 30,
                    rlim_max: 1 << 30,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = c.spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Some(status) = child.try_wait().unwrap() {
                // Done already: with an answer, not a failure to allocate.
                assert!(matches!(status.code(), Some(0 | 1)), "{encoding}: {status}");
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let status = child.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert!(
            status.signal() == Some(libc::SIGKILL) || matches!(status.code(), Some(0 | 1)),
            "{encoding}: {status}"
        );
    }
    // A small file of /proc is read whole all the same.
    let out = std_cmd()
        .args(["check", "/proc/self/status"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `check -e auto` on a terminal ends at the first end of input (Ctrl-D),
/// as every other reader of standard input does, even when the input is
/// shorter than the bytes it looks at to choose.
#[cfg(target_os = "linux")]
#[test]
fn auto_on_a_terminal_ends_at_the_first_end_of_input() {
    use std::io::Write;
    use std::os::fd::{FromRawFd, OwnedFd};
    // SAFETY: posix_openpt returns a new descriptor or -1; grantpt,
    // unlockpt and ptsname_r take that open descriptor, and ptsname_r
    // writes at most the buffer's length.
    let (master, slave) = unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(fd >= 0);
        assert_eq!(libc::grantpt(fd), 0);
        assert_eq!(libc::unlockpt(fd), 0);
        let mut name = [0 as libc::c_char; 128];
        assert_eq!(libc::ptsname_r(fd, name.as_mut_ptr(), name.len()), 0);
        let name = std::ffi::CStr::from_ptr(name.as_ptr())
            .to_str()
            .unwrap()
            .to_owned();
        (File::from(OwnedFd::from_raw_fd(fd)), name)
    };
    for args in [&["check", "-e", "auto", "-"][..], &["check", "-"]] {
        let mut child = std_cmd()
            .args(args)
            .stdin(File::open(&slave).unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // A short line, then the terminal's end-of-file character once.
        (&master).write_all(b"ab\n\x04").unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{args:?}: still reading after one end of input");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(0), "{args:?}");
    }
}
