//! On Linux, every subcommand that reads a stream widens the pipe it reads
//! to 1 MiB before its first read, so that a writer such as `cat` does not
//! wait on a 64 KiB pipe after every few pages: standard input and FIFOs
//! named on the command line alike. Each test holds the writing end of the
//! pipe, gives the command its first bytes, and asks the kernel for the
//! pipe's capacity until the command has changed it (or 20 seconds pass).
#![cfg(any(target_os = "linux", target_os = "android"))]

use std::io::{PipeWriter, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Corrected UTF-8's magic number, which `lint` expects first.
const MAGIC: &[u8] = b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0A";

/// The capacity the command asks for.
const WIDE: usize = 1 << 20;

fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_utf8guard"));
    c.env_remove("UTF8GUARD_KERNEL")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// Writes `input` into the pipe of `writer`, waits until the pipe holds
/// [`WIDE`] bytes (the command has widened it), then closes it and returns
/// the capacity seen and the command's exit status.
fn watch(mut child: Child, mut writer: PipeWriter, input: &[u8]) -> (usize, Option<i32>) {
    writer.write_all(input).expect("the first bytes");
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut capacity = rustix::pipe::fcntl_getpipe_size(&writer).expect("a pipe");
    while capacity != WIDE && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
        capacity = rustix::pipe::fcntl_getpipe_size(&writer).expect("a pipe");
    }
    drop(writer);
    let status = child.wait().expect("the command ends");
    (capacity, status.code())
}

/// The command with `args`, reading `input` from a pipe on its standard
/// input: the capacity seen, and the exit status.
fn on_stdin(args: &[&str], input: &[u8]) -> (usize, Option<i32>) {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    let before = rustix::pipe::fcntl_getpipe_size(&writer).expect("a pipe");
    assert!(before < WIDE, "a new pipe holds {before} bytes");
    let child = command(args)
        .stdin(reader)
        .spawn()
        .expect("the command starts");
    watch(child, writer, input)
}

/// The command with `args` and then the path of a FIFO, into which `input`
/// is written: the capacity seen, and the exit status. `None` where
/// `mkfifo` is missing.
fn on_fifo(args: &[&str], input: &[u8]) -> Option<(usize, Option<i32>)> {
    let dir = tempfile::tempdir().expect("a directory");
    let fifo = dir.path().join("fifo");
    match Command::new("mkfifo").arg(&fifo).status() {
        Ok(status) if status.success() => {}
        _ => return None,
    }
    let child = command(args)
        .arg(&fifo)
        .stdin(Stdio::null())
        .spawn()
        .expect("the command starts");
    // Opening for writing waits until the command opens it for reading.
    let writer = open_for_writing(&fifo);
    Some(watch(child, writer, input))
}

fn open_for_writing(fifo: &Path) -> PipeWriter {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(fifo)
        .expect("the FIFO opens");
    PipeWriter::from(std::os::fd::OwnedFd::from(file))
}

/// Each subcommand that reads a stream, with an input it accepts and the
/// status it then ends with.
fn cases() -> Vec<(Vec<&'static str>, Vec<u8>)> {
    let text = b"hello\n".to_vec();
    vec![
        (vec![], text.clone()),
        (vec!["check", "--encoding", "cesu-8"], text.clone()),
        (vec!["check", "--encoding", "auto"], text.clone()),
        (
            vec!["convert", "--from", "utf-8", "--to", "cesu-8"],
            text.clone(),
        ),
        (vec!["repair"], text.clone()),
        (vec!["lint"], [MAGIC, b"hello\n"].concat()),
    ]
}

#[test]
fn standard_input_from_a_pipe_is_widened() {
    for (args, input) in cases() {
        let mut args = args.clone();
        if args.first() == Some(&"lint") {
            args.push("-");
        }
        assert_eq!(on_stdin(&args, &input), (WIDE, Some(0)), "{args:?}");
    }
}

#[test]
fn a_fifo_named_on_the_command_line_is_widened() {
    for (args, input) in cases() {
        let Some(seen) = on_fifo(&args, &input) else {
            eprintln!("SKIPPED: mkfifo not found");
            return;
        };
        assert_eq!(seen, (WIDE, Some(0)), "{args:?}");
    }
}

/// `convert` and `repair` widen the pipe they write to as well: there the
/// reader on the other side waited on a 64 KiB pipe.
#[test]
fn standard_output_into_a_pipe_is_widened() {
    let dir = tempfile::tempdir().expect("a directory");
    let input = dir.path().join("input.txt");
    std::fs::write(&input, "hello \u{e9}\n").expect("the input");
    let input = input.to_str().expect("a UTF-8 path");
    for args in [
        &["convert", "--from", "utf-8", "--to", "cesu-8", input][..],
        &["repair", input][..],
    ] {
        let (mut reader, writer) = std::io::pipe().expect("a pipe");
        let status = command(args)
            .stdin(Stdio::null())
            .stdout(writer)
            .status()
            .expect("the command runs");
        let capacity = rustix::pipe::fcntl_getpipe_size(&reader).expect("a pipe");
        let mut output = String::new();
        std::io::Read::read_to_string(&mut reader, &mut output).expect("the output");
        assert_eq!(
            (capacity, status.code(), output.as_str()),
            (WIDE, Some(0), "hello \u{e9}\n"),
            "{args:?}"
        );
    }
}
