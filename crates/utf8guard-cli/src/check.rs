//! Checking one input: files in memory (mapped or read), streams in chunks.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use utf8guard::{Dialect, ErrorKind};

use crate::family;
use crate::mapped::Mapping;
use crate::position::{CharCounts, Cursor};
use crate::progress::Progress;
use crate::report::{Finding, More, Outcome, Status};

/// Files at least this large are memory-mapped; smaller ones are read,
/// which costs less than setting up and tearing down a mapping.
pub const MMAP_MIN: u64 = 1 << 20;

/// The report on a mapped file that was truncated while it was read.
pub const CHANGED: &str = "the file changed while it was read (it was truncated): not checked";

/// Mapped files are validated in slices of this size, so that the progress
/// bar moves on a single huge file.
const SLICE: usize = 64 << 20;

/// What to look for, and what to record.
#[derive(Clone, Copy, Debug)]
pub struct ScanOptions {
    /// Errors to report per input, at least 1.
    pub max_errors: usize,
    /// After the last reported error, look on to tell whether more follow.
    pub look_for_more: bool,
    /// Count characters by encoded length.
    pub count_chars: bool,
    /// Validate large inputs across the thread pool.
    pub parallel: bool,
    /// Record the line and column of each error (off when the report does
    /// not show them, which spares a stream the counting of every line).
    pub positions: bool,
    /// The member of the UTF-8 family to check.
    pub dialect: Dialect,
    /// For an invalid input, look for the other dialects that accept all
    /// of it, for a hint (when the report shows hints).
    pub hints: bool,
}

/// An error at an offset of the slice it was found in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Error {
    pub offset: usize,
    pub len: Option<usize>,
    pub kind: ErrorKind,
}

impl Error {
    pub fn from_utf8(err: utf8guard::Utf8Error) -> Error {
        Error {
            offset: err.valid_up_to(),
            len: err.error_len(),
            kind: err.kind(),
        }
    }
}

/// The first error of `bytes`, a part of an input that starts at its
/// offset 0 when `at_start`, in one validation, sequential or split across
/// the pool (which keeps inputs under its threshold, 1 MiB, sequential).
fn validate_part(bytes: &[u8], parallel: bool, dialect: Dialect, at_start: bool) -> Option<Error> {
    #[cfg(test)]
    if parallel && bytes.len() >= utf8guard::par::THRESHOLD {
        tests::PARALLEL_CALLS.with(|n| n.set(n.get() + 1));
    }
    family::check(dialect, bytes, at_start, parallel)
}

/// Bytes searched on the calling thread before the rest of an input is
/// split across the pool. After an error, the next one is often near (text
/// in another encoding, binary data): looking for it here costs no fork and
/// join of the pool per error, which cost more than the search when errors
/// are a few bytes apart; a long valid run still goes to the pool, one
/// fork per 1 MiB of it at most.
const NEAR: usize = utf8guard::par::THRESHOLD;

/// The first error in `bytes` (the input from its offset 0 when
/// `at_start`, else the rest after an error), validated in slices of about
/// `slice` bytes so that progress is reported as it goes: the first slice
/// (about [`NEAR`] bytes) on this thread, the others across the pool when
/// `opts.parallel`. Slices are cut where every dialect's automaton is in
/// its plain state (see [`family::cut`]), so each is checked on its own.
fn first_error(
    bytes: &[u8],
    at_start: bool,
    slice: usize,
    opts: &ScanOptions,
    progress: &Progress,
) -> Option<Error> {
    let mut pos = 0;
    while pos < bytes.len() {
        let (len, parallel) = if pos == 0 {
            (slice.min(NEAR), false)
        } else {
            (slice, opts.parallel)
        };
        let end = family::cut(bytes, pos + len, at_start);
        let part = &bytes[pos..end];
        match validate_part(part, parallel, opts.dialect, at_start && pos == 0) {
            None => {
                progress.inc(part.len() as u64);
                pos = end;
            }
            Some(e) => {
                progress.inc(e.offset as u64);
                return Some(Error {
                    offset: pos + e.offset,
                    ..e
                });
            }
        }
    }
    None
}

impl Outcome {
    /// Fills in the report on `bytes`, an input that is all in memory.
    fn scan(&mut self, bytes: &[u8], opts: &ScanOptions, progress: &Progress) {
        self.bytes = bytes.len() as u64;
        self.dialect = opts.dialect;
        (self.status, self.counts) = scan_slice(bytes, opts, progress);
        self.look_at_head(bytes);
        if opts.dialect == Dialect::Corrected {
            let checked = self.checked_up_to() as usize;
            self.reserved_run = family::first_reserved_run(&bytes[..checked]).map(|at| at as u64);
        }
        if opts.hints && matches!(self.status, Status::Invalid { .. }) {
            self.valid_in = family::accepting(opts.dialect, bytes, opts.parallel);
        }
    }
}

/// Checks an input that is all in memory.
pub fn scan_slice(bytes: &[u8], opts: &ScanOptions, progress: &Progress) -> (Status, CharCounts) {
    scan_slice_with(bytes, opts, progress, SLICE)
}

fn scan_slice_with(
    bytes: &[u8],
    opts: &ScanOptions,
    progress: &Progress,
    slice: usize,
) -> (Status, CharCounts) {
    let mut findings = Vec::new();
    let mut counts = CharCounts::default();
    let mut cursor = Cursor::default();
    let mut pos = 0;
    let mut more = More::No;
    loop {
        if findings.len() == opts.max_errors && !opts.look_for_more {
            break;
        }
        let Some(err) = first_error(&bytes[pos..], pos == 0, slice, opts, progress) else {
            if opts.count_chars {
                counts.add(&CharCounts::of_in(
                    &bytes[pos..],
                    opts.dialect,
                    opts.parallel,
                ));
            }
            pos = bytes.len();
            break;
        };
        let at = pos + err.offset;
        let valid = &bytes[pos..at];
        if opts.count_chars {
            counts.add(&CharCounts::of_in(valid, opts.dialect, opts.parallel));
        }
        if findings.len() == opts.max_errors {
            more = More::Yes;
            pos = at;
            break;
        }
        // Without positions the cursor stays at the start: it is not shown.
        if opts.positions && opts.parallel {
            cursor.advance_parallel(valid);
        } else if opts.positions {
            cursor.advance(valid);
        }
        findings.push(Finding::in_slice(bytes, at, err.len, err.kind, cursor));
        match err.len {
            Some(n) => {
                cursor.advance_invalid();
                pos = at + n;
                progress.inc(n as u64);
            }
            None => {
                progress.inc((bytes.len() - at) as u64);
                pos = bytes.len();
                break;
            }
        }
    }
    // Whatever was not scanned leaves the total.
    progress.skip((bytes.len() - pos) as u64);
    let status = if findings.is_empty() {
        Status::Valid
    } else {
        Status::Invalid { findings, more }
    };
    (status, counts)
}

/// Checks the file at `path`: mapped when large, read when small, streamed
/// when it is not a regular file (a FIFO, a terminal, a device).
pub fn check_path(path: &Path, opts: &ScanOptions, progress: &Progress) -> Outcome {
    let mut outcome = Outcome::named(path);
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) => return Outcome::failed(path, crate::io_message(&e)),
    };
    let meta = match file.metadata() {
        Ok(meta) => meta,
        Err(e) => return Outcome::failed(path, crate::io_message(&e)),
    };
    if meta.is_dir() {
        return Outcome::failed(path, "is a directory".to_owned());
    }
    if !meta.is_file() {
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
    // Small files, files that cannot be mapped, and files whose size says
    // nothing (those of /proc report 0): read them whole.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    if let Err(e) = (&file).read_to_end(&mut bytes) {
        progress.skip(meta.len());
        return Outcome::failed(path, format!("read error: {}", crate::io_message(&e)));
    }
    outcome.scan(&bytes, opts, progress);
    if bytes.len() as u64 != meta.len() {
        // The size changed while it was read, or was not the size (as in
        // /proc): the bar was told `meta.len()`.
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
            return Outcome::failed(Path::new("-"), crate::io_message(&e));
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

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Calls of the parallel validation on inputs large enough to be
        /// split across the pool, made from this thread.
        pub static PARALLEL_CALLS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    #[test]
    fn dense_errors_cost_no_fork_of_the_pool_each() {
        // 8 MiB of Latin-1 text: an invalid byte every 10 bytes or so.
        let mut input = Vec::new();
        while input.len() < 8 << 20 {
            input.extend_from_slice(b"Jos\xE9 M\xFCller, Stra\xDFe 12, K\xF6ln\n");
        }
        let errors = input.iter().filter(|&&b| b >= 0x80).count();
        let mut parallel = opts(usize::MAX);
        parallel.parallel = true;
        PARALLEL_CALLS.with(|n| n.set(0));
        let (status, _) = scan_slice(&input, &parallel, &Progress::disabled());
        assert_eq!(offsets(&status).len(), errors);
        assert_eq!(PARALLEL_CALLS.with(|n| n.get()), 0);
        // Sparse errors: a long valid run still goes to the pool.
        let mut input = "Grüße ".repeat(1_000_000).into_bytes();
        input[8] = 0xFF;
        input[5_000_000] = 0xFF;
        PARALLEL_CALLS.with(|n| n.set(0));
        let (status, _) = scan_slice(&input, &parallel, &Progress::disabled());
        assert_eq!(offsets(&status).len(), 2);
        assert_eq!(PARALLEL_CALLS.with(|n| n.get()), 2);
    }

    fn opts(max_errors: usize) -> ScanOptions {
        ScanOptions {
            max_errors,
            look_for_more: true,
            count_chars: true,
            parallel: false,
            positions: true,
            dialect: Dialect::Utf8,
            hints: true,
        }
    }

    fn offsets(status: &Status) -> Vec<(u64, Option<usize>, u64, u64)> {
        match status {
            Status::Invalid { findings, .. } => findings
                .iter()
                .map(|f| (f.offset, f.len, f.at.line_number(), f.at.column_number()))
                .collect(),
            _ => vec![],
        }
    }

    #[test]
    fn every_error_with_line_and_column() {
        let input = b"ok\n\xFFa\xC3\xA9\x80\nz\xE2\x82";
        let (status, counts) = scan_slice(input, &opts(usize::MAX), &Progress::disabled());
        assert_eq!(
            offsets(&status),
            vec![(3, Some(1), 2, 1), (7, Some(1), 2, 4), (10, None, 3, 2)]
        );
        assert!(matches!(status, Status::Invalid { more: More::No, .. }));
        // o k \n a é \n z
        assert_eq!(counts.by_len, [6, 1, 0, 0]);
    }

    #[test]
    fn limit_and_more() {
        let input = b"\x80\x80\x80x";
        let (status, _) = scan_slice(input, &opts(2), &Progress::disabled());
        assert_eq!(
            offsets(&status),
            vec![(0, Some(1), 1, 1), (1, Some(1), 1, 2)]
        );
        assert!(matches!(
            status,
            Status::Invalid {
                more: More::Yes,
                ..
            }
        ));
        let (status, _) = scan_slice(b"\x80ab", &opts(1), &Progress::disabled());
        assert!(matches!(status, Status::Invalid { more: More::No, .. }));
    }

    #[test]
    fn slicing_finds_the_same_errors_at_every_slice_size() {
        let mut input = "Grüße 🌍 κόσμε ".repeat(5).into_bytes();
        input.extend_from_slice(b"\xF0\x9F\x98x \xED\xA0\x80 \xE2\x82\xAC\xE2\x82");
        let whole = scan_slice_with(&input, &opts(usize::MAX), &Progress::disabled(), usize::MAX);
        assert_eq!(
            offsets(&whole.0),
            vec![
                (120, Some(3), 1, 71),
                (125, Some(1), 1, 74),
                (126, Some(1), 1, 75),
                (127, Some(1), 1, 76),
                (132, None, 1, 79)
            ]
        );
        for slice in 4..40 {
            let sliced = scan_slice_with(&input, &opts(usize::MAX), &Progress::disabled(), slice);
            assert_eq!(offsets(&sliced.0), offsets(&whole.0), "slice {slice}");
            assert_eq!(sliced.1, whole.1, "slice {slice}");
        }
    }

    #[test]
    fn bytes_left_unread_leave_the_progress_total() {
        // Errors at 100 and 200 of 1 MiB: the first one only is reported,
        // the search for more stops at the second.
        let mut input = vec![b'a'; 1 << 20];
        input[100] = 0xFF;
        input[200] = 0xFF;
        let progress = Progress::new(Some(2 << 20));
        let (status, _) = scan_slice(&input, &opts(1), &progress);
        assert_eq!(offsets(&status).len(), 1);
        // 200 bytes read; the rest of this input will never be: the total
        // is what was read, and the other input.
        assert_eq!(progress.state(), Some((200, Some(200 + (1 << 20)))));
        let mut list = opts(1);
        list.look_for_more = false;
        let progress = Progress::new(Some(1 << 20));
        scan_slice(&input, &list, &progress);
        assert_eq!(progress.state(), Some((101, Some(101))));
    }

    #[test]
    fn valid_and_empty() {
        let (status, counts) = scan_slice(b"", &opts(1), &Progress::disabled());
        assert!(matches!(status, Status::Valid));
        assert_eq!(counts.total(), 0);
        let (status, counts) = scan_slice("a€".as_bytes(), &opts(1), &Progress::disabled());
        assert!(matches!(status, Status::Valid));
        assert_eq!(counts.by_len, [1, 0, 1, 0]);
    }
}
