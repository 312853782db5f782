//! How `repair -o OUT` and `convert -o OUT` write OUT: through the
//! process's own descriptor when OUT is its standard output or error,
//! through a private temporary file renamed over a regular OUT, with OUT's
//! owner, group, mode and extended attributes kept, never over a file this
//! user may not write or could not give back to its owner, and without a
//! temporary file left behind by a signal.
//!
//! The tests of other users (`setpriv` to nobody) and of file flags
//! (`chattr`) need root; without it they say so and pass.
#![cfg(target_os = "linux")]

use std::fs::{self, File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_utf8guard");

/// `caf\xE9 ok\n` repaired by the default policy.
const REPAIRED: &[u8] = "caf\u{FFFD} ok\n".as_bytes();

fn command() -> Command {
    let mut c = Command::new(BIN);
    c.env_remove("UTF8GUARD_KERNEL");
    c
}

/// A directory with the input `F` in it (`caf\xE9 ok\n`).
fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("F");
    fs::write(&input, b"caf\xE9 ok\n").unwrap();
    (dir, input)
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

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// The tests run by other users: root, and `setpriv`, are needed.
fn can_switch_users() -> bool {
    if !is_root() || Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("SKIPPED: needs root and setpriv to run the command as another user");
        return false;
    }
    true
}

/// The command as `nobody` (no groups but nogroup), run from a copy in
/// `dir`, which any user may run.
fn as_nobody(dir: &Path) -> Command {
    let copy = dir.join("utf8guard-copy");
    // A link where it can be, as in cli.rs: a copy is open for writing
    // for a moment, and a process another test forks then may hold it
    // open, so running the copy could fail with "Text file busy".
    if !copy.exists() && fs::hard_link(BIN, &copy).is_err() {
        fs::copy(BIN, &copy).unwrap();
        fs::set_permissions(&copy, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut c = Command::new("setpriv");
    c.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"])
        .arg(copy)
        .env_remove("UTF8GUARD_KERNEL");
    c
}

fn uid_of(user: &str) -> u32 {
    let out = Command::new("id").args(["-u", user]).output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

fn gid_of(group: &str) -> u32 {
    let out = Command::new("getent")
        .args(["group", group])
        .output()
        .unwrap();
    let line = String::from_utf8(out.stdout).unwrap();
    line.split(':').nth(2).unwrap().trim().parse().unwrap()
}

fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

fn chown(path: &Path, uid: u32, gid: u32) {
    std::os::unix::fs::chown(path, Some(uid), Some(gid)).unwrap();
}

#[test]
fn an_out_that_is_standard_output_is_written_through_it() {
    let (dir, input) = setup();
    // Opened for appending, as `>> app.txt` opens it.
    let app = dir.path().join("app.txt");
    fs::write(&app, b"old\n").unwrap();
    let out = command()
        .args(["repair", "-o", "/dev/stdout"])
        .arg(&input)
        .stdout(OpenOptions::new().append(true).open(&app).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(fs::read(&app).unwrap(), [&b"old\n"[..], REPAIRED].concat());

    // Opened for writing, after a header, as `{ echo header; ...; } > out`:
    // written at the descriptor's offset, after which more can follow.
    let shared = dir.path().join("out.txt");
    let mut file = File::create(&shared).unwrap();
    file.write_all(b"header\n").unwrap();
    for (sub, expected) in [
        (&["repair", "-o", "/dev/stdout"][..], REPAIRED),
        (
            &[
                "convert",
                "-f",
                "utf-8",
                "-t",
                "utf-8",
                "--replace",
                "-o",
                "/proc/self/fd/1",
            ],
            REPAIRED,
        ),
    ] {
        let status = command()
            .args(sub)
            .arg(&input)
            .stdout(file.try_clone().unwrap())
            .status()
            .unwrap();
        assert!(matches!(status.code(), Some(0 | 1)), "{sub:?}");
        file.write_all(b"footer\n").unwrap();
        let mut want = b"header\n".to_vec();
        want.extend_from_slice(expected);
        want.extend_from_slice(b"footer\n");
        assert_eq!(fs::read(&shared).unwrap(), want, "{sub:?}");
        file.set_len(0).unwrap();
        file.seek(SeekFrom::Start(0)).unwrap();
        file.write_all(b"header\n").unwrap();
    }

    // The file the shell redirected to, named: written through the
    // descriptor too, not replaced.
    fs::write(&app, b"old\n").unwrap();
    let out = command()
        .args(["repair", "-o"])
        .arg(&app)
        .arg(&input)
        .stdout(OpenOptions::new().append(true).open(&app).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(fs::read(&app).unwrap(), [&b"old\n"[..], REPAIRED].concat());
    assert_eq!(names_in(dir.path()), ["F", "app.txt", "out.txt"]);
}

#[test]
fn an_out_that_is_standard_error_is_written_through_it() {
    let (dir, input) = setup();
    let log = dir.path().join("log.txt");
    fs::write(&log, b"log\n").unwrap();
    let out = command()
        .args(["repair", "-o", "/dev/stderr"])
        .arg(&input)
        .stderr(OpenOptions::new().append(true).open(&log).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(fs::read(&log).unwrap(), [&b"log\n"[..], REPAIRED].concat());
}

/// Descriptors opened on /dev/null for reading and writing, as Python's
/// `subprocess.DEVNULL` and systemd's `StandardInput=null` open them, are
/// descriptors like any other, not closed ones.
#[test]
fn dev_null_open_both_ways_is_not_a_closed_descriptor() {
    let (_dir, input) = setup();
    let null = || {
        OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")
            .unwrap()
    };
    for (args, code) in [
        (&["repair"][..], 1),
        (
            &["convert", "-f", "utf-8", "-t", "utf-16le", "--replace"],
            0,
        ),
        (&["check"], 1),
        (&["lint"], 1),
    ] {
        let out = command()
            .args(args)
            .arg(&input)
            .stdin(null())
            .stdout(null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
    }
    for args in [
        &["check", "-"][..],
        &["check", "-e", "auto", "-"],
        &["repair"],
    ] {
        let out = command()
            .args(args)
            .stdin(null())
            .stdout(null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{args:?}");
    }
}

#[test]
fn an_out_this_user_may_not_write_is_refused() {
    if !can_switch_users() {
        return;
    }
    let (dir, input) = setup();
    chmod(dir.path(), 0o777);
    chmod(&input, 0o644);
    let out = dir.path().join("root.txt");
    for force in [false, true] {
        fs::write(&out, b"root's\n").unwrap();
        chmod(&out, 0o644);
        let mut c = as_nobody(dir.path());
        c.arg("repair").arg(&input).arg("-o").arg(&out);
        if force {
            c.arg("--force");
        }
        let result = c.output().unwrap();
        assert_eq!(result.status.code(), Some(2), "--force {force}");
        assert_eq!(
            stderr(&result),
            format!(
                "utf8guard: {}: permission denied (this user may not write it); not replaced\n",
                out.display()
            )
        );
        assert_eq!(fs::read(&out).unwrap(), b"root's\n");
        assert_eq!(fs::metadata(&out).unwrap().uid(), 0);
    }
    // Writable, but another user's: replacing it would take it from them.
    chmod(&out, 0o666);
    let result = as_nobody(dir.path())
        .arg("repair")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(2));
    assert_eq!(
        stderr(&result),
        format!(
            "utf8guard: {}: belongs to another user; replacing it would make it this user's, \
             so it is not replaced (to write into it in place, redirect standard output: > OUT)\n",
            out.display()
        )
    );
    assert_eq!(fs::read(&out).unwrap(), b"root's\n");
    // The way it names: in place, through the shell.
    let result = as_nobody(dir.path())
        .arg("repair")
        .arg(&input)
        .stdout(
            OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(&out)
                .unwrap(),
        )
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(1));
    assert_eq!(fs::read(&out).unwrap(), REPAIRED);
    assert_eq!(fs::metadata(&out).unwrap().uid(), 0);
}

/// A writable OUT in a directory that allows no new file: refused before
/// the work, naming the temporary file, with the way to write in place.
#[test]
fn a_directory_without_room_for_a_temporary_file_is_named() {
    if !can_switch_users() {
        return;
    }
    let (dir, input) = setup();
    chmod(&input, 0o644);
    let locked = dir.path().join("locked");
    fs::create_dir(&locked).unwrap();
    let out = locked.join("out.txt");
    fs::write(&out, b"old\n").unwrap();
    let nobody = (uid_of("nobody"), gid_of("nogroup"));
    chown(&out, nobody.0, nobody.1);
    chown(&locked, nobody.0, nobody.1);
    chmod(&locked, 0o555);
    chmod(dir.path(), 0o755);
    let result = as_nobody(dir.path())
        .arg("repair")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(2));
    assert_eq!(
        stderr(&result),
        format!(
            "utf8guard: {}: cannot create a temporary file in {}: Permission denied; nothing \
             was written (to write into OUT in place, redirect standard output: > OUT)\n",
            out.display(),
            locked.display()
        )
    );
    assert_eq!(fs::read(&out).unwrap(), b"old\n");
    chmod(&locked, 0o755);
}

/// As root, the replaced file keeps its owner, group, mode (set-id bits
/// included) and extended attributes.
#[test]
fn owner_group_mode_and_attributes_are_kept() {
    if !can_switch_users() {
        return;
    }
    let (dir, input) = setup();
    let out = dir.path().join("theirs.txt");
    let nobody = (uid_of("nobody"), gid_of("nogroup"));
    for mode in [0o640, 0o4755, 0o2750] {
        fs::write(&out, b"old\n").unwrap();
        chown(&out, nobody.0, nobody.1);
        chmod(&out, mode);
        let tagged = rustix::fs::setxattr(
            &out,
            "user.origin",
            b"field notes",
            rustix::fs::XattrFlags::empty(),
        );
        let result = command()
            .arg("repair")
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
        let meta = fs::metadata(&out).unwrap();
        assert_eq!(fs::read(&out).unwrap(), REPAIRED);
        assert_eq!((meta.uid(), meta.gid()), nobody, "mode {mode:o}");
        assert_eq!(meta.mode() & 0o7777, mode, "mode {mode:o}");
        match tagged {
            Ok(()) => {
                let mut value = [0u8; 64];
                let n = rustix::fs::getxattr(&out, "user.origin", &mut value[..]).unwrap();
                assert_eq!(&value[..n], b"field notes");
            }
            Err(e) => eprintln!("SKIPPED: the extended attribute ({e}): not on this file system"),
        }
    }
}

/// A temporary file appears 0600 whatever OUT's mode, and a new OUT gets
/// the mode a shell gives a new file.
#[test]
fn the_temporary_file_is_private() {
    let (dir, _input) = setup();
    let out = dir.path().join("shared.txt");
    fs::write(&out, b"old\n").unwrap();
    chmod(&out, 0o644);
    let (mut child, temp) = repair_waiting_for_input(&out);
    let meta = fs::metadata(&temp).unwrap();
    assert_eq!(meta.mode() & 0o7777, 0o600);
    drop(child.stdin.take());
    assert_eq!(child.wait().unwrap().code(), Some(1));
    assert_eq!(fs::metadata(&out).unwrap().mode() & 0o7777, 0o644);

    let new = dir.path().join("new.txt");
    let (mut child, _temp) = repair_waiting_for_input(&new);
    drop(child.stdin.take());
    assert_eq!(child.wait().unwrap().code(), Some(1));
    let umask = fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("Umask:"))
        .map(|v| u32::from_str_radix(v.trim(), 8).unwrap())
        .unwrap();
    assert_eq!(fs::metadata(&new).unwrap().mode() & 0o777, 0o666 & !umask);
}

/// `repair - -o out` with its input coming through a pipe that is kept
/// open: returns once the temporary file holds some output, with its path.
// The child is returned to the caller, who waits for it.
#[allow(clippy::zombie_processes)]
fn repair_waiting_for_input(out: &Path) -> (Child, PathBuf) {
    use std::os::unix::process::CommandExt;
    let mut c = command();
    c.args(["repair", "-", "-o"])
        .arg(out)
        .stdin(Stdio::piped())
        .stderr(Stdio::null());
    // SAFETY: between fork and exec, only `signal`, which is
    // async-signal-safe: the signals the tests send take their default
    // action even where the test runner was started with them ignored.
    unsafe {
        c.pre_exec(|| {
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::signal(signal, libc::SIG_DFL);
            }
            Ok(())
        });
    }
    let mut child = c.spawn().unwrap();
    let stdin = child.stdin.as_mut().unwrap();
    // More than the output buffer (1 MiB): some of it is written out.
    stdin
        .write_all(&b"Jos\xE9 M\xFCller\n".repeat(150_000))
        .unwrap();
    stdin.flush().unwrap();
    let dir = out.parent().unwrap();
    let prefix = format!(".{}.utf8guard-", out.file_name().unwrap().to_str().unwrap());
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let temp = names_in(dir)
            .into_iter()
            .find(|n| n.starts_with(&prefix))
            .map(|n| dir.join(n));
        if let Some(temp) = temp.filter(|t| fs::metadata(t).is_ok_and(|m| m.len() > 0)) {
            return (child, temp);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("nothing written in 20 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_signal_removes_the_temporary_file() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        let (dir, _input) = setup();
        let out = dir.path().join("out.txt");
        fs::write(&out, b"old\n").unwrap();
        let (mut child, temp) = repair_waiting_for_input(&out);
        assert!(temp.exists());
        // SAFETY: kill only sends a signal to the child, which is still
        // running (not yet waited for).
        assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
        let status = child.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(signal), "ended by the signal itself");
        assert_eq!(fs::read(&out).unwrap(), b"old\n");
        assert_eq!(names_in(dir.path()), ["F", "out.txt"], "signal {signal}");
    }
}

#[test]
fn links_lead_to_their_target() {
    let (dir, input) = setup();
    let d = dir.path();
    // A dangling link: its target is created, the link stays.
    std::os::unix::fs::symlink("made.txt", d.join("link")).unwrap();
    let result = command()
        .args(["repair", "-o"])
        .arg(d.join("link"))
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
    assert!(fs::symlink_metadata(d.join("link")).unwrap().is_symlink());
    assert_eq!(fs::read(d.join("made.txt")).unwrap(), REPAIRED);

    // A link to a file: the file is replaced, the link stays.
    fs::write(d.join("made.txt"), b"old\n").unwrap();
    let result = command()
        .args(["repair", "-o"])
        .arg(d.join("link"))
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(1));
    assert!(fs::symlink_metadata(d.join("link")).unwrap().is_symlink());
    assert_eq!(fs::read(d.join("made.txt")).unwrap(), REPAIRED);

    // A loop: reported, and nothing replaced.
    std::os::unix::fs::symlink("loop2", d.join("loop1")).unwrap();
    std::os::unix::fs::symlink("loop1", d.join("loop2")).unwrap();
    let result = command()
        .args(["repair", "-o"])
        .arg(d.join("loop1"))
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(2));
    assert_eq!(
        stderr(&result),
        format!(
            "utf8guard: {}: Too many levels of symbolic links\n",
            d.join("loop1").display()
        )
    );
    assert!(fs::symlink_metadata(d.join("loop1")).unwrap().is_symlink());

    // A hard link: OUT is a new file, and the other name keeps the old
    // contents (as after `sed -i`; docs/CLI.md).
    fs::write(d.join("one.txt"), b"old\n").unwrap();
    fs::hard_link(d.join("one.txt"), d.join("two.txt")).unwrap();
    let result = command()
        .args(["repair", "-o"])
        .arg(d.join("one.txt"))
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(1));
    assert_eq!(fs::read(d.join("one.txt")).unwrap(), REPAIRED);
    assert_eq!(fs::read(d.join("two.txt")).unwrap(), b"old\n");
}

#[test]
fn outs_that_cannot_be_files_are_refused_before_the_work() {
    let (dir, input) = setup();
    let d = dir.path();
    for (out, message) in [
        (
            d.join("missing_dir/"),
            "no such directory (OUT names the file to write)".to_owned(),
        ),
        (
            d.join("missing_dir/out.txt"),
            format!(
                "{}: No such file or directory",
                d.join("missing_dir").display()
            ),
        ),
        (d.join("F/out.txt"), "Not a directory".to_owned()),
        (d.to_path_buf(), "is a directory".to_owned()),
    ] {
        let result = command()
            .args(["repair", "-o"])
            .arg(&out)
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(result.status.code(), Some(2), "{}", out.display());
        assert_eq!(
            stderr(&result),
            format!("utf8guard: {}: {message}\n", out.display())
        );
    }
    assert_eq!(names_in(d), ["F"]);
}

/// Names of up to 255 bytes, the longest a file system takes, are written
/// through a temporary name cut short to fit.
#[test]
fn the_longest_names_are_written() {
    let (dir, input) = setup();
    for name in ["a".repeat(255), "é".repeat(127), "x".repeat(231)] {
        let out = dir.path().join(&name);
        let result = command()
            .args(["repair", "-o"])
            .arg(&out)
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
        assert_eq!(fs::read(&out).unwrap(), REPAIRED);
        fs::remove_file(&out).unwrap();
        assert_eq!(names_in(dir.path()), ["F"]);
    }
}

/// An append-only or immutable OUT (`chattr +a`, `+i`) cannot be replaced,
/// and is named as such before the work.
#[test]
fn append_only_and_immutable_outs_are_named() {
    if !is_root() || Command::new("chattr").arg("-V").output().is_err() {
        eprintln!("SKIPPED: needs root and chattr");
        return;
    }
    let (dir, input) = setup();
    let out = dir.path().join("log.txt");
    for (flag, message) in [
        (
            "+a",
            "is append-only (chattr +a); it cannot be replaced (to append to it, redirect \
             standard output: >> OUT)",
        ),
        ("+i", "is immutable (chattr +i); it cannot be replaced"),
    ] {
        fs::write(&out, b"old\n").unwrap();
        let set = Command::new("chattr").arg(flag).arg(&out).output().unwrap();
        if !set.status.success() {
            eprintln!(
                "SKIPPED: chattr {flag}: {}",
                String::from_utf8_lossy(&set.stderr).trim()
            );
            return;
        }
        let result = command()
            .args(["repair", "-o"])
            .arg(&out)
            .arg(&input)
            .output()
            .unwrap();
        let unset = flag.replace('+', "-");
        Command::new("chattr")
            .arg(&unset)
            .arg(&out)
            .status()
            .unwrap();
        assert_eq!(result.status.code(), Some(2), "{flag}");
        assert_eq!(
            stderr(&result),
            format!("utf8guard: {}: {message}\n", out.display())
        );
        assert_eq!(fs::read(&out).unwrap(), b"old\n");
    }
}
