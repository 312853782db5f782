//! Where `repair` and `convert` write what they make.
//!
//! Standard output, an OUT that is the process's own standard output or
//! error under another name (`-o /dev/stdout`), and an OUT that is not a
//! regular file (a device such as /dev/null, a FIFO) are written as the
//! work goes, as a shell redirection would write them.
//!
//! A regular OUT is replaced: the new contents are written to a temporary
//! file in OUT's directory, created private (0600), given OUT's owner,
//! group and extended attributes, and renamed over OUT by
//! [`Output::finish`] once everything is written and synced, with OUT's
//! mode. A run that fails, is killed by SIGINT, SIGTERM or SIGHUP, or is
//! refused never leaves a partial OUT, and an existing OUT stays as it was
//! until the new one is whole. Whatever can be known before the work (OUT
//! is a directory, this user may not write it, its owner could not be
//! kept, no temporary file can be created beside it) is refused before
//! anything is read ([`target`]).

mod replace;
mod signals;
mod target;

use std::fs::{File, Metadata};
use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::descriptors;
use crate::io_error::io_message;
use crate::path_name::message_name;
use replace::Pending;
use target::Destination;

/// Where the output goes.
enum Sink {
    /// Standard output through a descriptor of its own (a duplicate of 1),
    /// not std's `Stdout`: its line buffering searches every buffer written
    /// for the last newline and splits the write there, which cost
    /// `convert` a pass over its output and a system call for each tail.
    #[cfg(unix)]
    Stdout(File),
    #[cfg(not(unix))]
    Stdout(io::StdoutLock<'static>),
    Stderr(io::Stderr),
    File(File),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(out) => out.write(buf),
            Sink::Stderr(err) => err.write(buf),
            Sink::File(file) => file.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(out) => out.flush(),
            Sink::Stderr(err) => err.flush(),
            Sink::File(file) => file.flush(),
        }
    }
}

/// Standard output as a [`Sink`], after what std's `Stdout` holds.
#[cfg(unix)]
fn stdout_sink() -> io::Result<Sink> {
    use std::os::fd::AsFd;
    let mut stdout = io::stdout().lock();
    stdout.flush()?;
    Ok(Sink::Stdout(File::from(
        stdout.as_fd().try_clone_to_owned()?,
    )))
}

#[cfg(not(unix))]
fn stdout_sink() -> io::Result<Sink> {
    Ok(Sink::Stdout(io::stdout().lock()))
}

/// The output of one run, buffered.
pub struct Output {
    writer: BufWriter<Sink>,
    pending: Option<Pending>,
}

impl Output {
    /// Standard output, or the file `out`, buffered `capacity` bytes at a
    /// time. An existing read-only OUT is refused unless `force` (as `cp`
    /// does), and so is one this user may not write, or not replace
    /// without changing its owner or group. The error is the message to
    /// show.
    pub fn open(out: Option<&Path>, capacity: usize, force: bool) -> Result<Output, String> {
        let destination = match out {
            None => Destination::Stdout,
            Some(out) => target::destination(out, force)?,
        };
        let sink = match destination {
            Destination::Stdout => {
                // A closed descriptor would swallow every write: std treats
                // it as a sink that accepts everything.
                descriptors::check_open(1)
                    .map_err(|e| format!("standard output: {}", io_message(&e)))?;
                crate::pipe::widen(io::stdout());
                stdout_sink().map_err(|e| format!("standard output: {}", io_message(&e)))?
            }
            Destination::Stderr => {
                descriptors::check_open(2)
                    .map_err(|e| format!("standard error: {}", io_message(&e)))?;
                Sink::Stderr(io::stderr())
            }
            Destination::Direct(file) => {
                crate::pipe::widen(&file);
                Sink::File(file)
            }
            Destination::Replace { target, existing } => {
                let name = message_name(out.unwrap_or(&target));
                let (pending, file) = replace::begin(&target, existing.as_ref(), &name)?;
                return Ok(Output {
                    writer: BufWriter::with_capacity(capacity, Sink::File(file)),
                    pending: Some(pending),
                });
            }
        };
        Ok(Output {
            writer: BufWriter::with_capacity(capacity, sink),
            pending: None,
        })
    }

    /// Flushes what is buffered and, for a regular OUT, syncs the
    /// temporary file, gives it OUT's mode and renames it over OUT. On
    /// error the temporary file is removed (when `self` drops) and OUT is
    /// left as it was; an error of those last steps says which failed
    /// ([`failure_message`]).
    pub fn finish(mut self) -> io::Result<()> {
        self.writer.flush()?;
        let Some(pending) = self.pending.take() else {
            return Ok(());
        };
        let Sink::File(file) = self.writer.get_ref() else {
            unreachable!("a pending replacement writes a file");
        };
        // On error `pending` drops here, removing the temporary file.
        pending.commit(file)
    }
}

/// The message for an error of [`Output`]'s writes or of its
/// [`Output::finish`]: `OUT: write error: ...`, or the step of the
/// replacement that failed.
pub fn failure_message(out_name: &str, e: &io::Error) -> String {
    match replace::failed_step(e) {
        Some(step) => format!("{out_name}: {step}"),
        None => format!("{out_name}: write error: {}", io_message(e)),
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output")
            .field("pending", &self.pending)
            .finish()
    }
}

/// The metadata of what standard input reads (`fstat` of descriptor 0):
/// an error when it was closed.
pub fn stdin_metadata() -> io::Result<Metadata> {
    descriptors::metadata(0)
}

/// Refuses an `out` that is the input under any name: the same regular
/// file (on Unix, device and inode) as `input`, the metadata of the named
/// input or of what standard input reads. (Reading and writing one device,
/// such as /dev/null, harms nothing.) `verb` names the subcommand.
pub fn refuse_input(out: &Path, input: &Metadata, verb: &str) -> Result<(), String> {
    if input.is_file() && std::fs::metadata(out).is_ok_and(|m| same_file(input, &m)) {
        return Err(format!(
            "{}: the output is the input itself; {verb} never changes its input \
             (write elsewhere, then move the result)",
            message_name(out)
        ));
    }
    Ok(())
}

/// `a` and `b` are the metadata of the same file (on Unix: its device and
/// inode; elsewhere never known, so `false`).
#[cfg(unix)]
pub(crate) fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
pub(crate) fn same_file(_: &Metadata, _: &Metadata) -> bool {
    false
}
