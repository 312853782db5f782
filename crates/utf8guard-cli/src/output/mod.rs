//! Where `repair` and `convert` write what they make.
//!
//! Standard output, and an OUT that is not a regular file (a device such
//! as /dev/null, a FIFO), are written as the work goes. A regular OUT is
//! written under a temporary name in its directory and renamed over OUT
//! only by [`Output::finish`], once everything is written and synced: a
//! run that fails, or is killed, never leaves a partial OUT, and an
//! existing OUT stays as it was until the new one is whole. (A run killed
//! by a signal may leave the temporary file, `.OUT.utf8guard-PID.tmp`.)

use std::fs::{self, File, Metadata, OpenOptions, Permissions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::io_error::io_message;
use crate::path_name::message_name;

/// Where the output goes.
enum Sink {
    Stdout(io::StdoutLock<'static>),
    File(File),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(out) => out.write(buf),
            Sink::File(file) => file.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(out) => out.flush(),
            Sink::File(file) => file.flush(),
        }
    }
}

/// A temporary file waiting to be renamed over its target.
struct Pending {
    temp: PathBuf,
    target: PathBuf,
    /// The permissions of the file it replaces.
    permissions: Option<Permissions>,
}

/// The output of one run, buffered.
pub struct Output {
    writer: BufWriter<Sink>,
    pending: Option<Pending>,
}

impl Output {
    /// Standard output, or the file `out`, buffered `capacity` bytes at a
    /// time. An existing read-only OUT is refused unless `force` (as `cp`
    /// does). The error is the message to show.
    pub fn open(out: Option<&Path>, capacity: usize, force: bool) -> Result<Output, String> {
        let Some(out) = out else {
            // A closed descriptor would swallow every write: std treats it
            // as a sink that accepts everything.
            if let Err(e) = stdout_metadata() {
                if e.kind() != io::ErrorKind::Unsupported {
                    return Err(format!("standard output: {}", io_message(&e)));
                }
            }
            crate::pipe::widen(io::stdout());
            return Ok(Output {
                writer: BufWriter::with_capacity(capacity, Sink::Stdout(io::stdout().lock())),
                pending: None,
            });
        };
        let name = message_name(out);
        let existing = fs::metadata(out).ok();
        if let Some(meta) = existing.as_ref().filter(|m| !m.is_file()) {
            if meta.is_dir() {
                return Err(format!("{name}: is a directory"));
            }
            // A device or a FIFO: written as it is, never replaced.
            let file = OpenOptions::new()
                .write(true)
                .open(out)
                .map_err(|e| format!("{name}: {}", io_message(&e)))?;
            crate::pipe::widen(&file);
            return Ok(Output {
                writer: BufWriter::with_capacity(capacity, Sink::File(file)),
                pending: None,
            });
        }
        if !force
            && existing
                .as_ref()
                .is_some_and(|m| m.permissions().readonly())
        {
            return Err(format!(
                "{name}: is read-only; not replaced (--force replaces it)"
            ));
        }
        // A symbolic link to a file: the file it leads to is replaced.
        let target = if existing.is_some() {
            fs::canonicalize(out).unwrap_or_else(|_| out.to_path_buf())
        } else {
            out.to_path_buf()
        };
        let (temp, file) = create_temp(&target)
            .map_err(|e| format!("{name}: cannot create: {}", io_message(&e)))?;
        Ok(Output {
            writer: BufWriter::with_capacity(capacity, Sink::File(file)),
            pending: Some(Pending {
                temp,
                target,
                permissions: existing.map(|m| m.permissions()),
            }),
        })
    }

    /// Flushes what is buffered and, for a regular OUT, syncs the
    /// temporary file and renames it over OUT. On error the temporary file
    /// is removed (when `self` drops) and OUT is left as it was.
    pub fn finish(mut self) -> io::Result<()> {
        self.writer.flush()?;
        let Some(pending) = &self.pending else {
            return Ok(());
        };
        if let Sink::File(file) = self.writer.get_ref() {
            file.sync_all()?;
        }
        if let Some(permissions) = &pending.permissions {
            // The replaced file's permissions, not the defaults.
            fs::set_permissions(&pending.temp, permissions.clone())?;
        }
        fs::rename(&pending.temp, &pending.target)?;
        self.pending = None;
        Ok(())
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

impl Drop for Output {
    fn drop(&mut self) {
        if let Some(pending) = self.pending.take() {
            let _ = fs::remove_file(&pending.temp);
        }
    }
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output")
            .field("pending", &self.pending.as_ref().map(|p| &p.target))
            .finish()
    }
}

/// A new file beside `target`, named `.NAME.utf8guard-PID.tmp` (with a
/// counter after PID if that is taken).
fn create_temp(target: &Path) -> io::Result<(PathBuf, File)> {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let pid = std::process::id();
    let mut attempt = 0u32;
    loop {
        let suffix = if attempt == 0 {
            format!("{pid}")
        } else {
            format!("{pid}-{attempt}")
        };
        let path = dir.join(format!(".{name}.utf8guard-{suffix}.tmp"));
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(e),
        }
    }
}

/// The metadata of what standard input reads (`fstat` of descriptor 0):
/// an error when it was closed.
#[cfg(unix)]
pub fn stdin_metadata() -> io::Result<Metadata> {
    use std::os::fd::AsFd;
    descriptor_metadata(io::stdin().as_fd())
}

/// Elsewhere nothing is known of standard input.
#[cfg(not(unix))]
pub fn stdin_metadata() -> io::Result<Metadata> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// The metadata of what standard output writes: an error when it was
/// closed.
#[cfg(unix)]
fn stdout_metadata() -> io::Result<Metadata> {
    use std::os::fd::AsFd;
    descriptor_metadata(io::stdout().as_fd())
}

#[cfg(not(unix))]
fn stdout_metadata() -> io::Result<Metadata> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// `fstat` of a standard descriptor, or EBADF when it was closed as the
/// process started.
///
/// Rust's runtime opens /dev/null in place of a standard descriptor that
/// is closed at start-up (so that no file opened later takes its number),
/// which makes a closed standard input read as empty, and a closed
/// standard output swallow everything. It opens it for reading and
/// writing; a shell's `< /dev/null` or `> /dev/null` opens it one way: so
/// /dev/null open both ways is taken for the runtime's stand-in.
#[cfg(unix)]
fn descriptor_metadata(fd: std::os::fd::BorrowedFd<'_>) -> io::Result<Metadata> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let meta = File::from(fd.try_clone_to_owned()?).metadata()?;
    let null = || fs::metadata("/dev/null").is_ok_and(|null| null.rdev() == meta.rdev());
    if meta.file_type().is_char_device() && null() {
        // SAFETY: F_GETFL only reads the flags of the descriptor, which
        // `fd` keeps open for the call.
        let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
        if flags >= 0 && flags & libc::O_ACCMODE == libc::O_RDWR {
            return Err(io::Error::from_raw_os_error(libc::EBADF));
        }
    }
    Ok(meta)
}

/// Refuses an `out` that is the input under any name: the same regular
/// file (on Unix, device and inode) as `input`, the metadata of the named
/// input or of what standard input reads. (Reading and writing one device,
/// such as /dev/null, harms nothing.) `verb` names the subcommand.
pub fn refuse_input(out: &Path, input: &Metadata, verb: &str) -> Result<(), String> {
    if input.is_file() && fs::metadata(out).is_ok_and(|m| same_file(input, &m)) {
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
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &Metadata, _: &Metadata) -> bool {
    false
}
