//! Wider pipes for the streams the command reads.
//!
//! A pipe holds 64 KiB by default on Linux. A writer that writes more at a
//! time (`cat` writes 128 KiB) fills it and sleeps until the reader has
//! emptied it, and the reader then sleeps until the writer has filled it
//! again: the two processes take turns on a few pages rather than run side
//! by side, and checking a stream from a pipe went at a quarter of the
//! speed of reading it. Before reading standard input or a FIFO, the
//! command asks the kernel for a pipe of [`CAPACITY`], and so do `convert`
//! and `repair` before writing to standard output. A pipe that already
//! holds as much is left alone, and where the request is refused (above
//! `/proc/sys/fs/pipe-max-size` for an unprivileged process, or past the
//! user's share of pipe memory) the pipe stays as it was: only the speed
//! changes. Other systems: nothing. (Figures: docs/TUNING.md, "Pipe
//! widening".)

#[cfg(any(target_os = "linux", target_os = "android"))]
use std::os::fd::AsFd;

/// The capacity asked for: `/proc/sys/fs/pipe-max-size`'s default, the most
/// an unprivileged process may set.
pub const CAPACITY: usize = 1 << 20;

/// Raises the capacity of the pipe `fd` refers to to [`CAPACITY`] if it is
/// a pipe (or FIFO) holding less; anything else is left alone, and so is a
/// pipe the kernel will not widen.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub fn widen(fd: impl AsFd) {
    let fd = fd.as_fd();
    // F_GETPIPE_SZ fails on anything that is not a pipe.
    if let Ok(size) = rustix::pipe::fcntl_getpipe_size(fd) {
        if size < CAPACITY {
            // Refused: the pipe keeps its capacity, which works as well.
            let _ = rustix::pipe::fcntl_setpipe_size(fd, CAPACITY);
        }
    }
}

/// Nothing where pipes have no settable capacity.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub fn widen<T>(_: T) {}

/// The capacity of the pipe `fd` refers to; `None` if it is not a pipe.
#[cfg(all(test, any(target_os = "linux", target_os = "android")))]
fn capacity(fd: impl AsFd) -> Option<usize> {
    rustix::pipe::fcntl_getpipe_size(fd).ok()
}

#[cfg(all(test, any(target_os = "linux", target_os = "android")))]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_is_widened_and_a_file_left_alone() {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        let before = capacity(&reader).expect("a pipe has a capacity");
        assert!(before < CAPACITY, "a new pipe holds {before} bytes");
        widen(&reader);
        // Both ends see the same pipe.
        assert_eq!(capacity(&reader), Some(CAPACITY));
        assert_eq!(capacity(&writer), Some(CAPACITY));

        let file = tempfile::tempfile().expect("a file");
        widen(&file);
        assert_eq!(capacity(&file), None);
    }
}
