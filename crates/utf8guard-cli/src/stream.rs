//! Checking a stream (standard input, a pipe, a FIFO, a device) in constant
//! memory with [`utf8guard::StreamValidator`].
//!
//! Bytes are read in fixed-size chunks and fed to the validator; only the
//! last few bytes of the stream are kept, for the context shown around an
//! error that straddles two chunks. After an error, a new validator starts
//! right after the invalid sequence, in the dialect's plain state away from
//! the stream's start, which is how `--all` goes on. Reading
//! stops once the errors to report are found (and the context of the last
//! one is complete): a stream may never end (`/dev/urandom`, a pipe from a
//! program that goes on writing), so whether more errors follow is left
//! unknown ([`More::Unknown`]) rather than read for, unless what was read
//! (with one read more, when it does not wait) shows another error or the
//! end. A writer into a pipe then sees it closed, as it would with `head`.
//!
//! For the hint that names the other dialects accepting all of an invalid
//! input, the first [`HINT_HEAD`] bytes are kept: a stream read to its end
//! within them is checked in the other dialects like a file; a longer one,
//! or one whose reading stopped, is not.

use std::io::{self, Read};

use utf8guard::{Dialect, StreamValidator};

use crate::family;
use crate::io_error::io_message;
use crate::position::{CharCounts, Cursor};
use crate::progress::Progress;
use crate::report::{Context, Finding, More, Outcome, Status, CONTEXT_BEFORE};
use crate::scan::ScanOptions;
use crate::sniff;

/// Bytes asked of each `read`.
const CHUNK: usize = 256 << 10;

/// Bytes of the stream kept from before the current chunk: the context
/// before an error, which may start up to [`CONTEXT_BEFORE`] bytes before
/// the error, itself up to 7 bytes before the chunk (an unfinished sequence
/// carried over, at most 5 bytes, or a prefix of Corrected UTF-8's magic
/// number, at most 7).
const TAIL: usize = CONTEXT_BEFORE + 8;

/// Bytes of the start of a stream kept for the hint on the other dialects
/// (when the report shows hints): as much as a file has before it is
/// mapped.
pub const HINT_HEAD: usize = crate::mapped::MMAP_MIN as usize;

/// Reads `reader` until its end or until the report is settled, and fills
/// in `outcome` (named by the caller). `ready` tells whether a read would
/// not wait: with the report full, the stream is read once more if so,
/// to tell whether more errors follow (its end, or an error, may be there).
pub fn check_reader<R: Read>(
    mut reader: R,
    mut outcome: Outcome,
    opts: &ScanOptions,
    progress: &Progress,
    ready: &dyn Fn() -> bool,
) -> Outcome {
    let mut scan = StreamScan::new(*opts);
    let mut buf = vec![0u8; CHUNK];
    // The first bytes, to tell binary data from text if errors are found,
    // and for the hint on the other dialects.
    let mut head = Vec::new();
    let head_max = if opts.hints { HINT_HEAD } else { sniff::HEAD };
    let mut peeked = false;
    loop {
        match reader.read(&mut buf) {
            Ok(0) => {
                scan.ended = true;
                break;
            }
            Ok(n) => {
                let take = n.min(head_max - head.len());
                head.extend_from_slice(&buf[..take]);
                progress.inc(n as u64);
                scan.feed(&buf[..n]);
                if scan.settled() {
                    // One read more at most, and only one that does not wait
                    // (its end makes the hints on the whole input possible).
                    if peeked || !opts.look_for_more || !ready() {
                        break;
                    }
                    peeked = true;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                outcome.bytes = scan.total;
                outcome.status = Status::Failed(format!(
                    "read error after {} bytes: {}",
                    scan.total,
                    io_message(&e)
                ));
                return outcome;
            }
        }
    }
    outcome.bytes = scan.total;
    outcome.dialect = opts.dialect;
    if opts.dialect == Dialect::Corrected {
        outcome.reserved_run = scan.reserved_run;
        if scan.ended && !scan.more_found {
            // No more errors: what follows the last one counts too.
            outcome.reserved_run = outcome.reserved_run.or(scan.rest_reserved_run);
        }
    }
    // (Its end was read, even when the report was full before it.)
    let read_whole = scan.ended && scan.total == head.len() as u64;
    (outcome.status, outcome.counts) = scan.end();
    outcome.look_at_head(&head);
    if opts.hints && read_whole && matches!(outcome.status, Status::Invalid { .. }) {
        outcome.valid_in = family::accepting(opts.dialect, &head, false);
    }
    outcome
}

/// Whether a read of `source` would not wait (its data, or its end, is
/// there), within 20 ms: a writer that has written all it had is usually
/// gone by then, and a stream that stays open costs no more.
#[cfg(unix)]
pub fn ready<F: std::os::fd::AsFd>(source: &F) -> bool {
    use std::os::fd::AsRawFd;
    let mut poll = libc::pollfd {
        fd: source.as_fd().as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one pollfd, alive for the call, of a descriptor `source`
    // keeps open.
    let n = unsafe { libc::poll(&mut poll, 1, 20) };
    n == 1 && poll.revents & (libc::POLLIN | libc::POLLHUP) != 0
}

/// Elsewhere it is not known: the stream is not read further.
#[cfg(not(unix))]
pub fn ready<F>(_: &F) -> bool {
    false
}

/// A validator of `dialect` for the rest of a stream after an error: in
/// the dialect's plain state, away from the stream's start (where Corrected
/// UTF-8's magic number would count), which one ASCII byte fed to it first
/// gives it. Its offsets count from one byte before the rest.
fn resumed(dialect: Dialect) -> StreamValidator {
    let mut validator = StreamValidator::with_dialect(dialect);
    let fed = validator.update(b" ");
    debug_assert!(fed.is_ok());
    validator
}

/// The state of a scan over a stream fed chunk by chunk.
struct StreamScan {
    opts: ScanOptions,
    /// `None` once the scan has found all it will report.
    validator: Option<StreamValidator>,
    /// Stream offset of the validator's first byte (after an error, of the
    /// ASCII byte it was given before the rest: see [`resumed`]).
    base: u64,
    /// Bytes fed so far.
    total: u64,
    /// The last bytes fed, up to [`TAIL`], ending at `total`.
    tail: Vec<u8>,
    /// Line and column after the bytes accepted so far.
    cursor: Cursor,
    counts: CharCounts,
    findings: Vec<Finding>,
    /// The report was full: the rest is only checked for whether more
    /// errors follow.
    stopped: bool,
    /// With the report full, the check of what follows the last error.
    rest: Option<StreamValidator>,
    /// `rest` found an error: more errors follow.
    more_found: bool,
    /// The stream was read to its end.
    ended: bool,
    /// In Corrected UTF-8, the stream offset of the first reserved run in
    /// what `rest` checked.
    rest_reserved_run: Option<u64>,
    /// In Corrected UTF-8, the stream offset of the first reserved run in
    /// the bytes accepted.
    reserved_run: Option<u64>,
}

impl StreamScan {
    fn new(opts: ScanOptions) -> StreamScan {
        StreamScan {
            opts,
            validator: Some(StreamValidator::with_dialect(opts.dialect)),
            base: 0,
            total: 0,
            tail: Vec::with_capacity(2 * TAIL),
            cursor: Cursor::default(),
            counts: CharCounts::default(),
            findings: Vec::new(),
            stopped: false,
            rest: None,
            more_found: false,
            ended: false,
            rest_reserved_run: None,
            reserved_run: None,
        }
    }

    /// `true` once nothing read later can change the report: no more
    /// errors are looked for, and the context of the last one (which may
    /// take bytes from the next chunk) is complete.
    fn settled(&self) -> bool {
        self.validator.is_none()
            && self
                .findings
                .last()
                .is_none_or(|f| f.context_missing() == 0)
    }

    fn feed(&mut self, chunk: &[u8]) {
        self.fill_context(chunk);
        if self.validator.is_some() {
            self.validate(chunk);
        } else if let Some(rest) = self.rest.as_mut() {
            self.more_found |= rest.update(chunk).is_err();
            self.note_rest_run(chunk, self.total);
        }
        self.total += chunk.len() as u64;
        if chunk.len() >= TAIL {
            self.tail.clear();
            self.tail.extend_from_slice(&chunk[chunk.len() - TAIL..]);
        } else {
            self.tail.extend_from_slice(chunk);
            let excess = self.tail.len().saturating_sub(TAIL);
            self.tail.drain(..excess);
        }
    }

    /// Completes the context of findings that ended at the previous chunk's
    /// end with less than a full window.
    fn fill_context(&mut self, chunk: &[u8]) {
        for f in self.findings.iter_mut().rev() {
            if f.context_start + f.context.len() as u64 != self.total {
                break;
            }
            let take = f.context_missing().min(chunk.len());
            f.context.extend(&chunk[..take]);
        }
    }

    /// Validates `chunk`, which starts at stream offset `self.total`.
    fn validate(&mut self, chunk: &[u8]) {
        // After an error, what follows it may begin in the tail: then the
        // data to go on with is a copy of those bytes and the chunk.
        let mut owned: Vec<u8>;
        let mut data: &[u8] = chunk;
        let mut data_start = self.total;
        let tail_start = self.total - self.tail.len() as u64;
        while let Some(validator) = self.validator.as_mut() {
            let err = match validator.update(data) {
                Ok(()) => {
                    self.accept(data, data_start);
                    return;
                }
                Err(err) => err,
            };
            let at = self.base + err.valid_up_to() as u64;
            // Bring the cursor to the error: forward over the chunk, or back
            // over the unfinished sequence carried from the last chunk,
            // counted already (at most 7 bytes, no newline among them).
            if at >= data_start {
                self.accept(&data[..(at - data_start) as usize], data_start);
            } else {
                self.unaccept_from(at);
            }
            let len = err.error_len().unwrap_or(1);
            let context = self.window(chunk, at);
            self.findings.push(Finding {
                offset: at,
                len: Some(len),
                kind: err.kind(),
                at: self.cursor,
                context_start: context.0,
                context: context.1,
            });
            self.cursor.advance_invalid();
            // Go on right after the invalid sequence.
            let resume = at + len as u64;
            if resume >= data_start {
                data = &data[(resume - data_start) as usize..];
            } else {
                owned = self.tail[(resume - tail_start) as usize..].to_vec();
                owned.extend_from_slice(chunk);
                data = &owned;
            }
            data_start = resume;
            if self.findings.len() == self.opts.max_errors {
                // The report is full: reading on could only tell whether
                // more errors follow, and a stream may never end. What is
                // read already is checked for that.
                self.validator = None;
                self.stopped = true;
                let mut rest = resumed(self.opts.dialect);
                self.more_found = rest.update(data).is_err();
                self.rest = Some(rest);
                self.note_rest_run(data, data_start);
                return;
            }
            self.validator = Some(resumed(self.opts.dialect));
            self.base = resume - 1;
        }
    }

    /// Notes the first reserved run in `bytes`, from stream offset `start`,
    /// checked by `rest` (meaningful only if it finds no error).
    fn note_rest_run(&mut self, bytes: &[u8], start: u64) {
        if self.opts.dialect == Dialect::Corrected && self.rest_reserved_run.is_none() {
            self.rest_reserved_run = family::first_reserved_run(bytes).map(|i| start + i as u64);
        }
    }

    /// Counts `bytes`, from stream offset `start`, as accepted (so far) by
    /// the validator.
    fn accept(&mut self, bytes: &[u8], start: u64) {
        if self.opts.positions {
            self.cursor.advance(bytes);
        }
        if self.opts.count_chars {
            self.counts
                .add(&CharCounts::of_in(bytes, self.opts.dialect, false));
        }
        if self.opts.dialect == Dialect::Corrected && self.reserved_run.is_none() {
            // What is taken back later (an unfinished sequence) holds no
            // FE or FF.
            self.reserved_run = family::first_reserved_run(bytes).map(|i| start + i as u64);
        }
    }

    /// Takes back the bytes from stream offset `at` to the end of the
    /// tail, accepted before as the start of a sequence that turned out ill
    /// formed at `at` (at most 7 bytes, no newline among them).
    fn unaccept_from(&mut self, at: u64) {
        let tail_start = self.total - self.tail.len() as u64;
        let carried = &self.tail[(at - tail_start) as usize..];
        self.cursor.back(carried);
        self.counts
            .sub(&CharCounts::of_in(carried, self.opts.dialect, false));
    }

    /// The context window around an error at `at`: up to
    /// [`CONTEXT_BEFORE`] bytes before it, 16 in all, taken
    /// from the tail and the chunk being fed (the start is never more than
    /// 15 bytes before the chunk, within the tail).
    fn window(&self, chunk: &[u8], at: u64) -> (u64, Context) {
        let tail_start = self.total - self.tail.len() as u64;
        let start = at - at.min(CONTEXT_BEFORE as u64);
        // From the tail (bytes before the chunk), then from the chunk.
        let in_tail = self
            .tail
            .get((start - tail_start) as usize..)
            .unwrap_or(&[]);
        let mut context = Context::new(in_tail);
        let in_chunk = start.saturating_sub(self.total) as usize;
        context.extend(chunk.get(in_chunk..).unwrap_or(&[]));
        (start, context)
    }

    fn end(mut self) -> (Status, CharCounts) {
        if let Some(validator) = self.validator.take() {
            if let Err(err) = validator.finish() {
                // Ends inside a character: those bytes were counted.
                let at = self.base + err.valid_up_to() as u64;
                let tail_start = self.total - self.tail.len() as u64;
                self.unaccept_from(at);
                let start = at - at.min(CONTEXT_BEFORE as u64);
                let context = Context::new(&self.tail[(start - tail_start) as usize..]);
                self.findings.push(Finding {
                    offset: at,
                    len: err.error_len(),
                    kind: err.kind(),
                    at: self.cursor,
                    context_start: start,
                    context,
                });
            }
        }
        let status = if self.findings.is_empty() {
            Status::Valid
        } else {
            Status::Invalid {
                findings: self.findings,
                more: match self.rest {
                    _ if self.more_found => More::Yes,
                    // Read to its end: an unfinished sequence there is one
                    // more error.
                    Some(rest) if self.ended => match rest.finish() {
                        Ok(()) => More::No,
                        Err(_) => More::Yes,
                    },
                    _ if self.stopped => More::Unknown,
                    _ => More::No,
                },
            }
        };
        (status, self.counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::scan_slice;
    use std::path::Path;

    /// A reader that hands out at most `step` bytes per read.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn opts(max_errors: usize, look_for_more: bool) -> ScanOptions {
        ScanOptions {
            max_errors,
            look_for_more,
            count_chars: true,
            parallel: false,
            positions: true,
            dialect: Dialect::Utf8,
            hints: true,
        }
    }

    /// Offset, length, line, column, context offset and context.
    type Seen = (u64, Option<usize>, u64, u64, u64, Vec<u8>);

    fn summary(status: &Status) -> (Vec<Seen>, More) {
        match status {
            Status::Valid => (vec![], More::No),
            Status::Invalid { findings, more } => (
                findings
                    .iter()
                    .map(|f| {
                        (
                            f.offset,
                            f.len,
                            f.at.line_number(),
                            f.at.column_number(),
                            f.context_start,
                            f.context.to_vec(),
                        )
                    })
                    .collect(),
                *more,
            ),
            Status::Failed(m) => panic!("failed: {m}"),
        }
    }

    #[test]
    fn streamed_equals_in_memory_for_every_chunk_size() {
        let inputs: &[&[u8]] = &[
            b"",
            "Grüße\nκόσμε 🌍 日本語\n".as_bytes(),
            b"\xE2\x82",
            b"ab\xE2\x82\xACcd\xE2\x82\nef\xF0\x9F\x98\x80\xF0\x9F\x98",
            b"\x80\x80\xC3\x28line\nnext\xED\xA0\x80 \xF4\x90\x80\x80 \xC0\xAF end\xE0\x80",
            b"0123456789abcdef0123\xFF\xFE0123456789abcdef0123456789\xC3",
        ];
        for input in inputs {
            for (max, more) in [(usize::MAX, true), (1, false), (1, true), (2, true)] {
                let expected = scan_slice(input, &opts(max, more), &Progress::disabled());
                let (expected_findings, _) = summary(&expected.0);
                let truth = scan_slice(input, &opts(max, true), &Progress::disabled());
                let (_, more_truth) = summary(&truth.0);
                for (step, ready) in
                    (1..=input.len().max(1) + 1).flat_map(|s| [(s, true), (s, false)])
                {
                    let reader = Trickle { data: input, step };
                    let outcome = check_reader(
                        reader,
                        Outcome::named(Path::new("x")),
                        &opts(max, more),
                        &Progress::disabled(),
                        &|| ready,
                    );
                    let (findings, streamed_more) = summary(&outcome.status);
                    let case = format!(
                        "input {input:02X?}, step {step}, max {max}, more {more}, ready {ready}"
                    );
                    assert_eq!(findings, expected_findings, "{case}");
                    if streamed_more == More::Unknown {
                        // Reading stopped with the report full: the rest
                        // is not read (but once, when that does not
                        // wait), whether more follow is not known.
                        assert_eq!(findings.len(), max, "{case}");
                        let last = findings.last().unwrap();
                        let read_at_least = (last.4 + last.5.len() as u64).max(last.0 + 1);
                        let reads = if ready && more { 2 } else { 1 };
                        assert!(outcome.bytes >= read_at_least, "{case}");
                        assert!(
                            outcome.bytes < read_at_least + reads * step as u64,
                            "{case}"
                        );
                    } else {
                        // Known from what was read, or read to the end.
                        assert_eq!(streamed_more, more_truth, "{case}");
                        if findings.len() < max {
                            assert_eq!(outcome.bytes, input.len() as u64, "{case}");
                            assert_eq!(outcome.counts, expected.1, "{case}");
                        }
                    }
                }
            }
        }
    }

    /// Endless input: a reader that never runs dry.
    struct Endless(u8);

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            buf.fill(self.0);
            Ok(buf.len())
        }
    }

    #[test]
    fn an_endless_stream_stops_once_the_report_is_full() {
        for max in [1, 2, 1000] {
            // More errors in what was read: they follow.
            let outcome = check_reader(
                Endless(0xFF),
                Outcome::named(Path::new("x")),
                &opts(max, true),
                &Progress::disabled(),
                &|| true,
            );
            let (findings, more) = summary(&outcome.status);
            assert_eq!(findings.len(), max);
            assert_eq!(more, More::Yes);
            // (With one read more, for the end that might be there.)
            assert_eq!(outcome.bytes, 2 * CHUNK as u64);
            // None there, nor in one more read when it does not wait: it
            // is not known whether some follow.
            for (ready, reads) in [(true, 2), (false, 1)] {
                let errors = b"\xFF".repeat(max);
                let outcome = check_reader(
                    io::Cursor::new(&errors).chain(Endless(b'a')),
                    Outcome::named(Path::new("x")),
                    &opts(max, true),
                    &Progress::disabled(),
                    &|| ready,
                );
                let (findings, more) = summary(&outcome.status);
                assert_eq!(findings.len(), max);
                assert_eq!(more, More::Unknown);
                assert_eq!(outcome.bytes, (max + reads * CHUNK) as u64);
            }
        }
    }

    #[test]
    fn a_stream_error_names_position_and_context() {
        let input = b"first line\nsecond \xF0\x9F\x98x line";
        let reader = Trickle {
            data: input,
            step: 3,
        };
        let outcome = check_reader(
            reader,
            Outcome::stdin(),
            &opts(usize::MAX, true),
            &Progress::disabled(),
            &|| true,
        );
        let (findings, more) = summary(&outcome.status);
        assert_eq!(more, More::No);
        assert_eq!(
            findings,
            vec![(
                18,
                Some(3),
                2,
                8,
                10,
                b"\nsecond \xF0\x9F\x98x lin".to_vec()
            )]
        );
    }
}
