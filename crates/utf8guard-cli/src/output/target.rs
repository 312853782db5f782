//! What an OUT names, and whether it may be replaced: decided before any
//! input is read, so that a refusal costs no work.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use crate::io_error::io_message;
use crate::path_name::message_name;

/// Where an OUT's bytes go.
pub(super) enum Destination {
    /// The process's standard output (no OUT, or OUT is the file or
    /// device descriptor 1 refers to).
    Stdout,
    /// OUT is what descriptor 2 refers to.
    Stderr,
    /// A device, a FIFO or a socket: written as it is, never replaced.
    Direct(File),
    /// A regular file, replaced through a temporary file. `target` is the
    /// file itself, past any symbolic links; `existing` its metadata, or
    /// `None` when it is to be created.
    Replace {
        target: PathBuf,
        existing: Option<Metadata>,
    },
}

/// Where the output named `out` goes, or the message that refuses it.
pub(super) fn destination(out: &Path, force: bool) -> Result<Destination, String> {
    let name = message_name(out);
    let fail = |e: io::Error| format!("{name}: {}", io_message(&e));
    match fs::metadata(out) {
        Ok(meta) => {
            // `/dev/stdout`, `/proc/self/fd/1`, or the very file the shell
            // redirected standard output to: written through the
            // descriptor, at its offset and with its append mode, or what
            // the shell (and the commands before and after this one) wrote
            // there would be lost.
            if is_descriptor(1, &meta) {
                return Ok(Destination::Stdout);
            }
            if is_descriptor(2, &meta) {
                return Ok(Destination::Stderr);
            }
            if meta.is_dir() {
                return Err(format!("{name}: is a directory"));
            }
            if !meta.is_file() {
                let file = OpenOptions::new().write(true).open(out).map_err(fail)?;
                return Ok(Destination::Direct(file));
            }
            // A symbolic link to a file: the file it leads to is replaced,
            // and the link stays.
            let target = fs::canonicalize(out).map_err(fail)?;
            replaceable(&target, &meta, force, &name)?;
            Ok(Destination::Replace {
                target,
                existing: Some(meta),
            })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if ends_in_separator(out) {
                return Err(format!(
                    "{name}: no such directory (OUT names the file to write)"
                ));
            }
            // A dangling symbolic link: its target is created, as a shell
            // redirection creates it.
            let target = follow_links(out).map_err(fail)?;
            let dir = directory_of(&target);
            match fs::metadata(dir) {
                Ok(meta) if meta.is_dir() => {}
                Ok(_) => return Err(format!("{name}: {}: not a directory", dir.display())),
                Err(e) => return Err(format!("{name}: {}: {}", dir.display(), io_message(&e))),
            }
            Ok(Destination::Replace {
                target,
                existing: None,
            })
        }
        // A loop of symbolic links (ELOOP) and the rest, as the system
        // names them.
        Err(e) => Err(fail(e)),
    }
}

/// The directory a file `path` is (or would be) in.
pub(super) fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// `out` ends in `/`: it can only name a directory.
fn ends_in_separator(out: &Path) -> bool {
    out.as_os_str()
        .as_encoded_bytes()
        .last()
        .is_some_and(|&b| std::path::is_separator(b as char))
}

/// The path `out` leads to through symbolic links, whether or not a file
/// is there; ELOOP after as many links as Linux follows.
fn follow_links(out: &Path) -> io::Result<PathBuf> {
    let mut path = out.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&path)?;
                path = directory_of(&path).join(link);
            }
            Ok(_) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(path),
            Err(e) => return Err(e),
        }
    }
    #[cfg(unix)]
    return Err(io::Error::from_raw_os_error(libc::ELOOP));
    #[cfg(not(unix))]
    return Err(io::Error::other("too many levels of symbolic links"));
}

/// `meta` is the file behind standard descriptor `fd`, or the /dev/null
/// that stands in for it when it was closed (so that `-o /dev/stdout >&-`
/// is refused as a closed standard output is).
fn is_descriptor(fd: i32, meta: &Metadata) -> bool {
    crate::descriptors::current_metadata(fd).is_ok_and(|m| super::same_file(&m, meta))
}

/// Whether the existing regular file `target` may be replaced by this
/// user: the message that refuses it, if not.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn replaceable(target: &Path, meta: &Metadata, force: bool, name: &str) -> Result<(), String> {
    use rustix::fs::{Access, AtFlags, IFlags, CWD};
    use rustix::process::{getegid, geteuid, getgroups};
    use std::os::unix::fs::MetadataExt;

    // Flags first: the system refuses to replace an append-only or
    // immutable file even to root, and names neither in its error.
    if let Ok(flags) = File::open(target).and_then(|f| Ok(rustix::fs::ioctl_getflags(&f)?)) {
        if flags.contains(IFlags::IMMUTABLE) {
            return Err(format!(
                "{name}: is immutable (chattr +i); it cannot be replaced"
            ));
        }
        if flags.contains(IFlags::APPEND) {
            return Err(format!(
                "{name}: is append-only (chattr +a); it cannot be replaced \
                 (to append to it, redirect standard output: >> OUT)"
            ));
        }
    }
    if !force && meta.permissions().readonly() {
        return Err(format!(
            "{name}: is read-only; not replaced (--force replaces it)"
        ));
    }
    let euid = geteuid();
    let owned = euid.is_root() || meta.uid() == euid.as_raw();
    // Asked of the system, as the effective user: mode bits, ACLs and
    // read-only mounts all count.
    let writable = rustix::fs::accessat(CWD, target, Access::WRITE_OK, AtFlags::EACCESS).is_ok();
    let forced = force && owned;
    if !(writable || forced) {
        return Err(format!(
            "{name}: permission denied (this user may not write it); not replaced"
        ));
    }
    // A new file would belong to this user, and only root can give it to
    // another: replacing another user's file would take it from them.
    if !owned {
        return Err(format!(
            "{name}: belongs to another user; replacing it would make it this \
             user's, so it is not replaced (to write into it in place, \
             redirect standard output: > OUT)"
        ));
    }
    let group_kept = euid.is_root()
        || meta.gid() == getegid().as_raw()
        || getgroups().is_ok_and(|groups| groups.iter().any(|g| g.as_raw() == meta.gid()));
    if !group_kept {
        return Err(format!(
            "{name}: its group is not one of this user's; replacing it would \
             change who may read it, so it is not replaced (to write into it \
             in place, redirect standard output: > OUT)"
        ));
    }
    Ok(())
}

/// Elsewhere the mode bits alone are looked at.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn replaceable(_target: &Path, meta: &Metadata, force: bool, name: &str) -> Result<(), String> {
    if !force && meta.permissions().readonly() {
        return Err(format!(
            "{name}: is read-only; not replaced (--force replaces it)"
        ));
    }
    Ok(())
}
