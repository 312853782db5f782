//! Checking an input that is all in memory (a mapped or read file): its
//! errors, found a slice at a time for the progress bar, sequentially or
//! across the thread pool, and the report on it filled in.

use utf8guard::Dialect;

use crate::family::{self, Error};
use crate::position::{CharCounts, Cursor};
use crate::progress::Progress;
use crate::report::{Finding, More, Outcome, Status};

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
    pub fn scan(&mut self, bytes: &[u8], opts: &ScanOptions, progress: &Progress) {
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
