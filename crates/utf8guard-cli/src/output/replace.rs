//! Replacing a regular OUT: a private temporary file beside it, given its
//! owner, group and extended attributes, then its mode and its name.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use super::signals::Watch;
use super::target::directory_of;
use crate::io_error::io_message;

/// A temporary file waiting to be renamed over its target. Dropped before
/// [`Pending::commit`], it removes the temporary file.
#[derive(Debug)]
pub(super) struct Pending {
    temp: PathBuf,
    target: PathBuf,
    /// The mode the new OUT gets: the replaced file's, set-id bits
    /// included (its owner and group are kept), or a new file's.
    mode: u32,
    /// Set once the temporary file has become OUT.
    renamed: bool,
    /// Removes the temporary file if a signal ends the process first.
    _watch: Watch,
}

/// Creates the temporary file for `target` (`existing`: its metadata, if
/// it exists), private, with `existing`'s owner, group and extended
/// attributes. `name` is OUT as the messages show it.
pub(super) fn begin(
    target: &Path,
    existing: Option<&Metadata>,
    name: &str,
) -> Result<(Pending, File), String> {
    let dir = directory_of(target);
    let (temp, file) = create_temp(target).map_err(|e| {
        let mut message = format!(
            "{name}: cannot create a temporary file in {}: {}; nothing was written",
            dir.display(),
            io_message(&e)
        );
        if existing.is_some() {
            // Replacing needs the directory; writing in place would leave
            // a half file after a failure, so it is left to the user.
            message.push_str(" (to write into OUT in place, redirect standard output: > OUT)");
        }
        message
    })?;
    let pending = Pending {
        _watch: Watch::new(&temp),
        temp,
        target: target.to_path_buf(),
        mode: existing.map_or_else(new_file_mode, mode_of),
        renamed: false,
    };
    if let Some(meta) = existing {
        keep_owner(&file, meta).map_err(|e| {
            format!(
                "{name}: cannot keep its owner and group: {}",
                io_message(&e)
            )
        })?;
        copy_attributes(target, &file).map_err(|e| {
            format!(
                "{name}: cannot keep its extended attributes: {}",
                io_message(&e)
            )
        })?;
    }
    Ok((pending, file))
}

impl Pending {
    /// Syncs `file` (the temporary file), gives it its mode and renames it
    /// over the target. An error names the step ([`failed_step`]).
    pub(super) fn commit(mut self, file: &File) -> io::Result<()> {
        file.sync_all()?;
        set_mode(file, self.mode).map_err(|e| step("cannot set the mode of the new file", e))?;
        fs::rename(&self.temp, &self.target).map_err(|e| {
            step(
                "cannot rename the temporary file over it (the old file is left as it was)",
                e,
            )
        })?;
        self.renamed = true;
        Ok(())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        // Before the watch over it ends (the fields drop after this).
        if !self.renamed {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// An error of one step of the replacement, told from a write error by
/// [`failed_step`].
#[derive(Debug)]
struct StepError {
    step: &'static str,
    source: io::Error,
}

impl std::fmt::Display for StepError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.step, io_message(&self.source))
    }
}

impl std::error::Error for StepError {}

fn step(step: &'static str, source: io::Error) -> io::Error {
    io::Error::new(source.kind(), StepError { step, source })
}

/// The message of an error that [`Pending::commit`] made at one of its
/// steps, `None` for any other error.
pub(super) fn failed_step(e: &io::Error) -> Option<String> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<StepError>())
        .map(ToString::to_string)
}

/// The longest file name most file systems take, in bytes.
const NAME_MAX: usize = 255;

/// A new file beside `target`, named `.NAME.utf8guard-PID.tmp` (with a
/// counter after PID if that is taken, and NAME cut short when the whole
/// would pass [`NAME_MAX`]), readable and writable by this user alone.
fn create_temp(target: &Path) -> io::Result<(PathBuf, File)> {
    let dir = directory_of(target);
    let name = target
        .file_name()
        .map_or(&b"output"[..], |n| n.as_encoded_bytes());
    let pid = std::process::id();
    let mut attempt = 0u32;
    loop {
        let suffix = if attempt == 0 {
            format!(".utf8guard-{pid}.tmp")
        } else {
            format!(".utf8guard-{pid}-{attempt}.tmp")
        };
        let kept = shortened(name, NAME_MAX - 1 - suffix.len());
        let mut temp_name = Vec::with_capacity(NAME_MAX);
        temp_name.push(b'.');
        temp_name.extend_from_slice(kept);
        temp_name.extend_from_slice(suffix.as_bytes());
        let path = dir.join(os_str(&temp_name));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        match options.open(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(e),
        }
    }
}

/// The first `max` bytes of `name` at most, cut before a UTF-8 character
/// rather than inside it.
fn shortened(name: &[u8], max: usize) -> &[u8] {
    if name.len() <= max {
        return name;
    }
    let mut end = max;
    while end > 0 && (name[end] & 0xC0) == 0x80 {
        end -= 1;
    }
    &name[..end]
}

#[cfg(unix)]
fn os_str(bytes: &[u8]) -> &std::ffi::OsStr {
    std::os::unix::ffi::OsStrExt::from_bytes(bytes)
}

#[cfg(not(unix))]
fn os_str(bytes: &[u8]) -> std::ffi::OsString {
    String::from_utf8_lossy(bytes).into_owned().into()
}

/// The permission bits of `meta`, set-id and sticky bits included.
#[cfg(unix)]
fn mode_of(meta: &Metadata) -> u32 {
    use std::os::unix::fs::MetadataExt;
    meta.mode() & 0o7777
}

#[cfg(not(unix))]
fn mode_of(meta: &Metadata) -> u32 {
    if meta.permissions().readonly() {
        0o444
    } else {
        0o666
    }
}

/// The mode a shell redirection gives a new file: 0666 less the umask.
fn new_file_mode() -> u32 {
    0o666 & !umask()
}

/// The process's umask, read where it can be without changing it.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn umask() -> u32 {
    let from_status = fs::read_to_string("/proc/self/status").ok().and_then(|s| {
        s.lines()
            .find_map(|line| line.strip_prefix("Umask:"))
            .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
    });
    from_status.unwrap_or_else(|| {
        // Set and restored at once: the command creates no other file
        // meanwhile.
        use rustix::fs::Mode;
        let old = rustix::process::umask(Mode::from_raw_mode(0o077));
        rustix::process::umask(old);
        old.as_raw_mode()
    })
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn umask() -> u32 {
    0o022
}

#[cfg(unix)]
fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    let mut permissions = file.metadata()?.permissions();
    permissions.set_readonly(mode & 0o222 == 0);
    file.set_permissions(permissions)
}

/// Gives `file` the owner and group of `meta` where they differ (a new
/// file belongs to the user who runs the command, and may take its
/// directory's group).
#[cfg(unix)]
fn keep_owner(file: &File, meta: &Metadata) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let now = file.metadata()?;
    if now.uid() == meta.uid() && now.gid() == meta.gid() {
        return Ok(());
    }
    std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()))
}

#[cfg(not(unix))]
fn keep_owner(_file: &File, _meta: &Metadata) -> io::Result<()> {
    Ok(())
}

/// Copies the extended attributes of `from` onto `to`: the user's own
/// (`user.*`), access control lists (`system.*`) and, where this user may
/// set them, security labels and trusted attributes, which a file system
/// or a policy may refuse to anyone but the system.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn copy_attributes(from: &Path, to: &File) -> io::Result<()> {
    use rustix::fs::{fsetxattr, getxattr, listxattr, XattrFlags};
    let mut names = Vec::new();
    match listxattr(from, spare(&mut names, 256)) {
        Ok(n) => names.truncate(n),
        Err(rustix::io::Errno::RANGE) => {
            let size = rustix::fs::listxattr_query(from)?;
            let n = listxattr(from, spare(&mut names, size))?;
            names.truncate(n);
        }
        Err(rustix::io::Errno::NOTSUP) => return Ok(()),
        Err(e) => return Err(e.into()),
    }
    let mut value = Vec::new();
    for name in names.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = os_str(name);
        let size = rustix::fs::getxattr_query(from, name)?;
        let n = getxattr(from, name, spare(&mut value, size))?;
        value.truncate(n);
        if let Err(e) = fsetxattr(to, name, &value, XattrFlags::empty()) {
            let bytes = name.as_encoded_bytes();
            let optional = bytes.starts_with(b"security.") || bytes.starts_with(b"trusted.");
            if !optional {
                return Err(e.into());
            }
        }
    }
    Ok(())
}

/// `buf` cleared and grown to `len` zeroed bytes, to be filled.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn spare(buf: &mut Vec<u8>, len: usize) -> &mut [u8] {
    buf.clear();
    buf.resize(len, 0);
    buf
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn copy_attributes(_from: &Path, _to: &File) -> io::Result<()> {
    Ok(())
}
