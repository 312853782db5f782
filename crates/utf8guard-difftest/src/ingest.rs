//! Drivers for the subjects of the parallel and I/O APIs: chunk lengths
//! that make `par` split small inputs, a reader that hands out its bytes in
//! random short reads, and loops that read a [`Read`] or a [`BufRead`] to
//! its end and turn what came out of it into an [`Answer`].
//!
//! The reading loops check the I/O contract themselves, since the harness
//! only compares an answer with the truth: the bytes handed out must be the
//! input's (all of them when it is valid, exactly the first `valid_up_to`
//! when it is not), the error must be of kind
//! [`InvalidData`](io::ErrorKind::InvalidData) carrying a
//! [`utf8guard::Utf8Error`], and the next call after the error must go on
//! right after its bad sequence (the end, bytes, or the next error, as the
//! input has them). A breach is an [`Answer::Broken`] that says what came
//! out; otherwise the answer is the error found (or `Ok`), for the harness
//! to compare with the oracles.

use std::fmt::{self, Write as _};
use std::io::{self, BufRead, BufReader, Read};

use crate::answer::{hex, Answer, Context, Found};
use crate::rng::Rng;

/// A nominal chunk length for `par::check_split` and `par::validate_split`
/// on an input of `len` bytes: always at least 4 (the smallest the split
/// takes), one time in three in `4..=64` (many chunks, cuts next to every
/// kind of character), otherwise up to `len`, log-distributed or uniform
/// (a few chunks, down to one).
///
/// ```
/// use utf8guard_difftest::{ingest::split_len, Rng};
///
/// let mut rng = Rng::new(1);
/// for len in [0, 3, 4, 100, 1 << 20] {
///     let n = split_len(len, &mut rng);
///     assert!((4..=len.max(64)).contains(&n));
/// }
/// ```
pub fn split_len(len: usize, rng: &mut Rng) -> usize {
    match rng.below(3) {
        0 => rng.range(4, 64),
        1 => rng.log_size(4, len.max(4)),
        _ => rng.range(4, len.max(4)),
    }
}

/// How a [`ShortReads`] hands out its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadPlan {
    /// Each read returns `1..=max_read` bytes (fewer at the end of the
    /// data, or when the caller's buffer is shorter).
    pub max_read: usize,
    /// Some reads fail with [`io::ErrorKind::Interrupted`] instead (one in
    /// four on average), which the caller must retry.
    pub interrupt: bool,
}

impl ReadPlan {
    /// A plan for `len` bytes of data: reads of at most 1 to 4 bytes (every
    /// character split across reads), at most 1 to 16 bytes, or at most a
    /// log-distributed size up to `len`; interrupted reads half the time.
    pub fn random(len: usize, rng: &mut Rng) -> ReadPlan {
        let max_read = match rng.below(3) {
            0 => rng.range(1, 4),
            1 => rng.range(1, 16),
            _ => rng.log_size(1, len.max(1)),
        };
        ReadPlan {
            max_read,
            interrupt: rng.one_in(2),
        }
    }
}

impl fmt::Display for ReadPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "inner reads of 1..={} bytes", self.max_read)?;
        if self.interrupt {
            f.write_str(", some Interrupted")?;
        }
        Ok(())
    }
}

/// A reader over a byte slice that returns a random number of bytes per
/// read, as a pipe or a socket does, following a [`ReadPlan`].
///
/// ```
/// use std::io::Read;
/// use utf8guard_difftest::ingest::{ReadPlan, ShortReads};
/// use utf8guard_difftest::Rng;
///
/// let plan = ReadPlan { max_read: 2, interrupt: false };
/// let mut reader = ShortReads::new(b"abcde", plan, Rng::new(1));
/// let mut buf = [0u8; 8];
/// let n = reader.read(&mut buf)?;
/// assert!((1..=2).contains(&n));
/// let mut rest = Vec::new();
/// reader.read_to_end(&mut rest)?;
/// assert_eq!([&buf[..n], &rest[..]].concat(), b"abcde");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct ShortReads<'a> {
    rest: &'a [u8],
    plan: ReadPlan,
    rng: Rng,
}

impl<'a> ShortReads<'a> {
    /// A reader of `data`, whose read sizes (and interruptions) come from
    /// `rng`.
    pub fn new(data: &'a [u8], plan: ReadPlan, rng: Rng) -> ShortReads<'a> {
        ShortReads {
            rest: data,
            plan,
            rng,
        }
    }
}

impl Read for ShortReads<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() || self.rest.is_empty() {
            return Ok(0);
        }
        if self.plan.interrupt && self.rng.one_in(4) {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = self
            .rng
            .range(1, self.plan.max_read)
            .min(buf.len())
            .min(self.rest.len());
        buf[..n].copy_from_slice(&self.rest[..n]);
        self.rest = &self.rest[n..];
        Ok(n)
    }
}

/// A fresh random stream for a reader, taken from the subject's.
fn reader_rng(cx: &mut Context) -> Rng {
    Rng::new(cx.rng.next_u64())
}

/// The subject `Utf8Reader::read`: a [`utf8guard::Utf8Reader`] over a
/// [`ShortReads`] of `input`, read to its end by [`read_to_end`].
pub fn utf8_reader_read(input: &[u8], cx: &mut Context) -> Answer {
    let plan = ReadPlan::random(input.len(), &mut cx.rng);
    let inner = ShortReads::new(input, plan, reader_rng(cx));
    let _ = write!(cx.note, "{plan}; ");
    read_to_end(input, utf8guard::Utf8Reader::new(inner), cx)
}

/// The subject `Utf8Reader::fill_buf`: a [`utf8guard::Utf8Reader`] over a
/// [`BufReader`] of a small random capacity (1 to 4 bytes, up to 64, or
/// log-distributed up to the input's length) over a [`ShortReads`] of
/// `input`, read to its end by [`fill_buf_to_end`].
pub fn utf8_reader_fill_buf(input: &[u8], cx: &mut Context) -> Answer {
    let plan = ReadPlan::random(input.len(), &mut cx.rng);
    let capacity = match cx.rng.below(3) {
        0 => cx.rng.range(1, 4),
        1 => cx.rng.range(1, 64),
        _ => cx.rng.log_size(1, input.len().max(1)),
    };
    let inner = BufReader::with_capacity(capacity, ShortReads::new(input, plan, reader_rng(cx)));
    let _ = write!(cx.note, "BufReader of capacity {capacity} over {plan}; ");
    fill_buf_to_end(input, utf8guard::Utf8Reader::new(inner), cx)
}

/// The subject `io::validate_reader`: [`utf8guard::io::validate_reader`]
/// over a [`ShortReads`] of `input`. `Ok` must count every byte; an error
/// must be `InvalidData` carrying a `Utf8Error`.
pub fn validate_reader(input: &[u8], cx: &mut Context) -> Answer {
    let plan = ReadPlan::random(input.len(), &mut cx.rng);
    let inner = ShortReads::new(input, plan, reader_rng(cx));
    let _ = write!(cx.note, "{plan}");
    match utf8guard::io::validate_reader(inner) {
        Ok(n) if n == input.len() as u64 => Answer::Exact(Ok(())),
        Ok(n) => Answer::Broken(format!("Ok({n}) for an input of {} bytes", input.len())),
        Err(e) => match utf8guard::io::utf8_error(&e) {
            Some(error) => Answer::Exact(Err(Found::from_error(&error))),
            None => Answer::Broken(format!("an error without a Utf8Error: {e:?}")),
        },
    }
}

/// Reads `reader` to its end with [`Read::read`], retrying `Interrupted`,
/// into buffers of one size for the whole run (1 to 3 bytes, shorter than
/// a character, or 4 bytes to 64 KiB) or of a new size (1 to 64 bytes) for
/// each read; then checks what came out against `input` (see the module
/// documentation). The read after an error must go on after its bad
/// sequence.
pub fn read_to_end(input: &[u8], mut reader: impl Read, cx: &mut Context) -> Answer {
    let fixed = match cx.rng.below(3) {
        0 => Some(cx.rng.range(1, 3)),
        1 => Some(cx.rng.log_size(4, 1 << 16)),
        _ => None,
    };
    match fixed {
        Some(n) => {
            let _ = write!(cx.note, "read buffers of {n} bytes");
        }
        None => cx.note.push_str("read buffers of 1..=64 bytes"),
    }
    let mut buf = std::mem::take(&mut cx.scratch);
    buf.clear();
    buf.resize(fixed.unwrap_or(64), 0);
    let mut out = Vec::with_capacity(input.len());
    let end = loop {
        let size = fixed.unwrap_or_else(|| cx.rng.range(1, 64));
        match reader.read(&mut buf[..size]) {
            Ok(0) => break Ok(()),
            Ok(n) if n > size => {
                cx.scratch = buf;
                return Answer::Broken(format!("read returned {n} into a buffer of {size}"));
            }
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => break Err(e),
        }
        if out.len() > input.len() {
            break Ok(());
        }
    };
    let again = || {
        let size = fixed.unwrap_or(64);
        loop {
            match reader.read(&mut buf[..size]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                result => return result.map(|n| n > 0),
            }
        }
    };
    let answer = settle(input, &out, end, again);
    cx.scratch = buf;
    answer
}

/// Reads `reader` to its end through [`BufRead::fill_buf`] and
/// [`BufRead::consume`] (consuming the whole buffer or a random part of
/// it), retrying `Interrupted`; one run in four mixes in a [`Read::read`]
/// of 1 to 16 bytes one call in three. Then checks what came out against
/// `input` (see the module documentation). The `fill_buf` after an error
/// must go on after its bad sequence.
pub fn fill_buf_to_end(input: &[u8], mut reader: impl BufRead, cx: &mut Context) -> Answer {
    let mixed = cx.rng.one_in(4);
    cx.note.push_str(if mixed {
        "fill_buf/consume mixed with reads"
    } else {
        "fill_buf/consume"
    });
    let mut out = Vec::with_capacity(input.len());
    let end = loop {
        if mixed && cx.rng.one_in(3) {
            let mut buf = [0u8; 16];
            let size = cx.rng.range(1, buf.len());
            match reader.read(&mut buf[..size]) {
                Ok(0) => break Ok(()),
                Ok(n) if n > size => {
                    return Answer::Broken(format!("read returned {n} into a buffer of {size}"))
                }
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        } else {
            let buf = match reader.fill_buf() {
                Ok([]) => break Ok(()),
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => break Err(e),
            };
            let take = if cx.rng.one_in(2) {
                buf.len()
            } else {
                cx.rng.range(1, buf.len())
            };
            out.extend_from_slice(&buf[..take]);
            reader.consume(take);
        }
        if out.len() > input.len() {
            break Ok(());
        }
    };
    settle(input, &out, end, || loop {
        match reader.fill_buf() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            result => return result.map(|buf| !buf.is_empty()),
        }
    })
}

/// The answer of a reading loop that got `out` and ended with `end`;
/// `again` makes the next call after an error (`Ok(true)` if it gave
/// bytes).
fn settle(
    input: &[u8],
    out: &[u8],
    end: io::Result<()>,
    again: impl FnOnce() -> io::Result<bool>,
) -> Answer {
    let error = match end {
        Ok(()) if out == input => return Answer::Exact(Ok(())),
        Ok(()) => {
            return Answer::Broken(format!(
                "the end of the stream after {} bytes that are not the input's {}: {}",
                out.len(),
                input.len(),
                difference(input, out)
            ))
        }
        Err(e) => e,
    };
    let Some(utf8) = utf8guard::io::utf8_error(&error) else {
        return Answer::Broken(format!(
            "an error that is not InvalidData with a Utf8Error: {error:?}"
        ));
    };
    let valid = utf8.valid_up_to();
    if input.get(..valid) != Some(out) {
        return Answer::Broken(format!(
            "{} bytes came out before the error at valid_up_to {valid}: {}",
            out.len(),
            difference(&input[..valid.min(input.len())], out)
        ));
    }
    // The call after an error goes on right after its bad sequence: the
    // end, bytes, or the next error, each where the input says.
    let next_at = valid + utf8.error_len().unwrap_or(input.len() - valid);
    let rest = &input[next_at.min(input.len())..];
    let expected_next = match utf8guard::from_utf8(rest) {
        _ if rest.is_empty() => Ok(false),
        Err(next) if next.valid_up_to() == 0 => Err((next_at, next.error_len(), next.kind())),
        _ => Ok(true),
    };
    let found = Err(Found::from_error(&utf8));
    match (again(), expected_next) {
        (Ok(more), Ok(expected)) if more == expected => Answer::Exact(found),
        (Err(e), Err(expected)) => match utf8guard::io::utf8_error(&e) {
            Some(next) if (next.valid_up_to(), next.error_len(), next.kind()) == expected => {
                Answer::Exact(found)
            }
            _ => Answer::Broken(format!(
                "after the error {utf8:?}, the next call gave {e:?}, not the error {expected:?}"
            )),
        },
        (got, expected) => Answer::Broken(format!(
            "after the error {utf8:?}, the next call gave {got:?}, expected {expected:?} \
             (Ok(true): bytes, Ok(false): the end)"
        )),
    }
}

/// Where `got` first differs from `want`, for reports.
fn difference(want: &[u8], got: &[u8]) -> String {
    let at = want.iter().zip(got).take_while(|(a, b)| a == b).count();
    let around = |b: &[u8]| hex(&b[at.min(b.len())..(at + 8).min(b.len())]);
    match (want.get(at), got.get(at)) {
        (None, None) => "the same bytes".into(),
        (Some(_), None) => format!("the first {at} bytes, then nothing"),
        _ => format!(
            "from byte {at}: {} instead of {}",
            or_nothing(around(got)),
            or_nothing(around(want))
        ),
    }
}

fn or_nothing(s: String) -> String {
    if s.is_empty() {
        "nothing".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx(seed: u64) -> Context {
        Context {
            rng: Rng::new(seed),
            scratch: Vec::new(),
            note: String::new(),
        }
    }

    #[test]
    fn short_reads_cover_the_data_in_order() {
        let data: Vec<u8> = (0..=255).collect();
        for seed in 0..50 {
            let mut rng = Rng::new(seed);
            let plan = ReadPlan::random(data.len(), &mut rng);
            let mut reader = ShortReads::new(&data, plan, rng);
            let mut out = Vec::new();
            let mut buf = [0u8; 300];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        assert!((1..=plan.max_read).contains(&n), "{n} {plan:?}");
                        out.extend_from_slice(&buf[..n]);
                    }
                    Err(e) => {
                        assert_eq!(e.kind(), io::ErrorKind::Interrupted);
                        assert!(plan.interrupt);
                    }
                }
            }
            assert_eq!(out, data);
        }
    }

    #[test]
    fn the_reader_subjects_answer_exactly() {
        let text = "aé€😀".repeat(30).into_bytes();
        let mut bad = text.clone();
        bad.extend_from_slice(b"x\xE2\x82(");
        let want = Answer::Exact(Err(Found {
            valid_up_to: text.len() + 1,
            error_len: Some(2),
            kind: Some(utf8guard::ErrorKind::TooShort),
        }));
        for seed in 0..200 {
            for subject in [utf8_reader_read, utf8_reader_fill_buf, validate_reader] {
                assert_eq!(subject(&text, &mut cx(seed)), Answer::Exact(Ok(())));
                assert_eq!(subject(&bad, &mut cx(seed)), want);
            }
        }
    }

    #[test]
    fn a_reader_that_leaks_bytes_past_the_error_is_broken() {
        // Passes every byte through, then reports the error.
        struct Leaky<'a>(&'a [u8], bool);
        impl Read for Leaky<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if !self.0.is_empty() {
                    let n = self.0.len().min(buf.len());
                    buf[..n].copy_from_slice(&self.0[..n]);
                    self.0 = &self.0[n..];
                    return Ok(n);
                }
                if self.1 {
                    return Err(utf8guard::io::invalid_data(
                        utf8guard::from_utf8(b"ab\xFFc").unwrap_err(),
                    ));
                }
                Ok(0)
            }
        }
        let answer = read_to_end(b"ab\xFFc", Leaky(b"ab\xFFc", true), &mut cx(1));
        assert_eq!(
            answer,
            Answer::Broken(
                "4 bytes came out before the error at valid_up_to 2: \
                 from byte 2: FF 63 instead of nothing"
                    .into()
            )
        );
        let answer = read_to_end(b"ab\xFFc", Leaky(b"ab", false), &mut cx(1));
        assert_eq!(
            answer,
            Answer::Broken(
                "the end of the stream after 2 bytes that are not the input's 4: \
                 the first 2 bytes, then nothing"
                    .into()
            )
        );
    }

    #[test]
    fn split_lengths_are_small_and_large() {
        let mut rng = Rng::new(4);
        let (mut small, mut large) = (0, 0);
        for _ in 0..300 {
            let n = split_len(10_000, &mut rng);
            assert!((4..=10_000).contains(&n), "{n}");
            if n <= 64 {
                small += 1;
            } else if n > 1000 {
                large += 1;
            }
        }
        assert!(small > 100 && large > 100, "{small} {large}");
    }
}
