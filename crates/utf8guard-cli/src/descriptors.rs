//! The standard descriptors as the process found them.
//!
//! Rust's runtime opens /dev/null (for reading and writing) in place of a
//! standard descriptor that is closed when the process starts, so that no
//! file opened later takes its number. A closed standard input then reads
//! as empty, and a closed standard output swallows everything: the
//! command would answer "valid" for input it never saw, or drop its
//! report. Such a stand-in cannot be told from a /dev/null that the caller
//! gave on purpose (Python's `subprocess.DEVNULL`, systemd's
//! `StandardInput=null`, `1<>/dev/null`), so on Linux the descriptors are
//! looked at before the runtime starts, by a function in `.init_array`,
//! which the C library runs before `main`. Elsewhere a closed descriptor
//! is not told from /dev/null.

use std::fs::Metadata;
use std::io;

#[cfg(any(target_os = "linux", target_os = "android"))]
mod at_start {
    use std::sync::atomic::{AtomicU8, Ordering};

    /// Bit `fd` is set when descriptor `fd` (0, 1 or 2) was closed.
    static CLOSED: AtomicU8 = AtomicU8::new(0);

    extern "C" fn record_closed_descriptors() {
        for fd in 0..3 {
            // SAFETY: F_GETFD only reads the descriptor's flags; on a
            // descriptor that is not open it fails with EBADF and changes
            // nothing.
            if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
                CLOSED.fetch_or(1 << fd, Ordering::Relaxed);
            }
        }
    }

    // Run by the C library's start-up code before `main`, and so before
    // the Rust runtime replaces closed descriptors.
    #[used]
    #[link_section = ".init_array"]
    static RECORD: extern "C" fn() = record_closed_descriptors;

    pub fn was_closed(fd: i32) -> bool {
        CLOSED.load(Ordering::Relaxed) & (1 << fd) != 0
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
mod at_start {
    pub fn was_closed(_fd: i32) -> bool {
        false
    }
}

/// EBADF when standard descriptor `fd` (0, 1 or 2) was closed when the
/// process started.
pub fn check_open(fd: i32) -> io::Result<()> {
    if at_start::was_closed(fd) {
        #[cfg(unix)]
        return Err(io::Error::from_raw_os_error(libc::EBADF));
        #[cfg(not(unix))]
        return Err(io::Error::from(io::ErrorKind::NotConnected));
    }
    Ok(())
}

/// The metadata of what standard descriptor `fd` refers to (`fstat`): an
/// error when it was closed as the process started. Where nothing can be
/// known of it, `Unsupported`.
#[cfg(unix)]
pub fn metadata(fd: i32) -> io::Result<Metadata> {
    check_open(fd)?;
    current_metadata(fd)
}

/// The metadata of what standard descriptor `fd` refers to now: the
/// runtime's /dev/null if it was closed.
#[cfg(unix)]
pub fn current_metadata(fd: i32) -> io::Result<Metadata> {
    use std::os::fd::AsFd;
    let owned = match fd {
        0 => io::stdin().as_fd().try_clone_to_owned(),
        1 => io::stdout().as_fd().try_clone_to_owned(),
        _ => io::stderr().as_fd().try_clone_to_owned(),
    }?;
    std::fs::File::from(owned).metadata()
}

#[cfg(not(unix))]
pub fn metadata(_fd: i32) -> io::Result<Metadata> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

#[cfg(not(unix))]
pub fn current_metadata(fd: i32) -> io::Result<Metadata> {
    metadata(fd)
}
