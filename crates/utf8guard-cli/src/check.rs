//! Checking one input: files in memory (mapped or read), streams in chunks.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::io_error::io_message;
use crate::mapped::{Mapping, CHANGED, MMAP_MIN};
use crate::progress::Progress;
use crate::report::Outcome;
use crate::scan::ScanOptions;

/// Checks the file at `path`: mapped when large, read when small, streamed
/// when it is not a regular file (a FIFO, a terminal, a device).
pub fn check_path(path: &Path, opts: &ScanOptions, progress: &Progress) -> Outcome {
    let mut outcome = Outcome::named(path);
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) => return Outcome::failed(path, io_message(&e)),
    };
    let meta = match file.metadata() {
        Ok(meta) => meta,
        Err(e) => return Outcome::failed(path, io_message(&e)),
    };
    if meta.is_dir() {
        return Outcome::failed(path, "is a directory".to_owned());
    }
    // Not a regular file, or one whose size says nothing (those of /proc
    // report 0, and some are larger than memory): read as a stream, in
    // constant memory.
    if !meta.is_file() || meta.len() == 0 {
        crate::pipe::widen(&file);
        let ready = || crate::stream::ready(&file);
        return crate::stream::check_reader(&file, outcome, opts, progress, &ready);
    }
    if meta.len() >= MMAP_MIN {
        if let Ok(map) = map(&file, 0, meta.len(), opts.parallel) {
            outcome.scan(&map, opts, progress);
            if map.truncated() {
                return Outcome::failed(path, CHANGED.to_owned());
            }
            return outcome;
        }
    }
    // Small files and files that cannot be mapped: read them whole, up to
    // the size they had when opened, as a mapping would (a file that grows
    // while it is read cannot take all memory).
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    if let Err(e) = (&file).take(meta.len()).read_to_end(&mut bytes) {
        progress.skip(meta.len());
        return Outcome::failed(path, format!("read error: {}", io_message(&e)));
    }
    outcome.scan(&bytes, opts, progress);
    if bytes.len() as u64 != meta.len() {
        // The file shrank while it was read: the bar was told
        // `meta.len()`.
        progress.skip(meta.len().saturating_sub(bytes.len() as u64));
    }
    outcome
}

/// Checks standard input. A regular file behind it (`utf8guard < file`) of
/// [`MMAP_MIN`] bytes or more from its current offset is mapped like a named
/// file, and its offset is then moved to the end, where reading it would
/// have left it (so a script that goes on reading its standard input finds
/// it consumed, as after a stream); anything else is streamed.
pub fn check_stdin(opts: &ScanOptions, progress: &Progress) -> Outcome {
    // A closed descriptor reads as empty through std: say what it is.
    if let Err(e) = crate::output::stdin_metadata() {
        if e.kind() != std::io::ErrorKind::Unsupported {
            return Outcome::failed(Path::new("-"), io_message(&e));
        }
    }
    #[cfg(unix)]
    if let Some(outcome) = map_stdin(opts, progress) {
        return outcome;
    }
    crate::pipe::widen(std::io::stdin());
    let ready = || crate::stream::ready(&std::io::stdin());
    crate::stream::check_reader(
        std::io::stdin().lock(),
        Outcome::stdin(),
        opts,
        progress,
        &ready,
    )
}

/// The mapped path of [`check_stdin`]: `None` when standard input is not a
/// regular file, is too short to be worth mapping, or cannot be mapped.
#[cfg(unix)]
fn map_stdin(opts: &ScanOptions, progress: &Progress) -> Option<Outcome> {
    use std::io::{Seek, SeekFrom};
    use std::os::fd::AsFd;
    // A duplicate of descriptor 0 shares its offset, which is where a
    // reader would start and where it is left.
    let mut file = File::from(std::io::stdin().as_fd().try_clone_to_owned().ok()?);
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let start = file.stream_position().ok()?;
    let len = meta.len().checked_sub(start)?;
    if len < MMAP_MIN {
        return None;
    }
    let map = map(&file, start, len, opts.parallel).ok()?;
    let mut outcome = Outcome::stdin();
    outcome.scan(&map, opts, progress);
    if map.truncated() {
        outcome = Outcome::failed(Path::new("-"), CHANGED.to_owned());
    }
    // Best effort, as for any reader that stops at the end.
    let _ = file.seek(SeekFrom::Start(start + len));
    Some(outcome)
}

/// Maps `len` bytes of `file` from `offset` for reading. With `parallel`
/// (the pool has two threads or more) its pages are left to be faulted in
/// as the threads read their parts; without, they are faulted in up front
/// (`MAP_POPULATE`), where that and faulting in as read measure the same.
/// Faulting in up front on two threads cost more than letting each thread
/// fault in its part, most of all for files held in 4 KiB folios (figures:
/// docs/TUNING.md, "Mapping large files").
fn map(file: &File, offset: u64, len: u64, parallel: bool) -> std::io::Result<Mapping> {
    let len = usize::try_from(len)
        .map_err(|_| std::io::Error::other("too large to map in this address space"))?;
    // (A file too small to be split has no need of the pool, nor of the
    // number of CPUs.)
    let populate = !parallel || len < utf8guard::par::THRESHOLD || crate::pool::threads() < 2;
    Mapping::new(file, offset, len, populate)
}
