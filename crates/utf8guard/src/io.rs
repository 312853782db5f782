//! Validating UTF-8 as it is read through [`std::io`].
//!
//! [`Utf8Reader`] wraps a reader and passes its bytes through, validated;
//! [`validate_reader`] and [`validate_file`] check a whole source without
//! keeping it. Invalid data is reported as an [`io::Error`] of kind
//! [`InvalidData`](io::ErrorKind::InvalidData) that carries the
//! [`Utf8Error`], placed in the whole stream; [`utf8_error`] gets it back.

use std::fs::File;
use std::io::{self, BufRead, Read};
use std::path::Path;

use crate::bytes::char_width;
use crate::error::Utf8Error;
use crate::stream::StreamValidator;

/// The longest character, in bytes.
const MAX_CHAR: usize = 4;

/// The buffer size of [`validate_reader`] and [`validate_file`].
const CHUNK: usize = 256 * 1024;

/// The [`io::Error`] for invalid data: kind
/// [`InvalidData`](io::ErrorKind::InvalidData), carrying `error`.
///
/// ```
/// let err = utf8guard::from_utf8(b"ok\xFF").unwrap_err();
/// let io_err = utf8guard::io::invalid_data(err);
/// assert_eq!(io_err.kind(), std::io::ErrorKind::InvalidData);
/// assert_eq!(utf8guard::io::utf8_error(&io_err), Some(err));
/// ```
pub fn invalid_data(error: Utf8Error) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, error)
}

/// The [`Utf8Error`] inside an [`io::Error`] made by this module, if it is
/// one: the position and cause of invalid data.
///
/// It is the error's payload ([`io::Error::get_ref`]); note that
/// `io::Error` answers [`source`](std::error::Error::source) with the
/// payload's own source, which a `Utf8Error` does not have, so look here
/// rather than there.
///
/// ```
/// use std::io::Read;
///
/// let mut reader = utf8guard::Utf8Reader::new(&b"abc\xC0def"[..]);
/// let mut text = Vec::new();
/// let err = reader.read_to_end(&mut text).unwrap_err();
/// let utf8 = utf8guard::io::utf8_error(&err).unwrap();
/// assert_eq!((utf8.valid_up_to(), utf8.error_len()), (3, Some(1)));
/// assert_eq!(text, b"abc");
/// ```
pub fn utf8_error(error: &io::Error) -> Option<Utf8Error> {
    if error.kind() != io::ErrorKind::InvalidData {
        return None;
    }
    error.get_ref()?.downcast_ref::<Utf8Error>().copied()
}

/// Reads `reader` to its end and checks that it is UTF-8, without keeping
/// the data. Returns the number of bytes read.
///
/// Invalid data gives an [`io::Error`] of kind
/// [`InvalidData`](io::ErrorKind::InvalidData) carrying the [`Utf8Error`]
/// (see [`utf8_error`]), its offset counted from the first byte read; it
/// stops at the first error. An input that ends inside a character is an
/// error with [`error_len`](Utf8Error::error_len) `None`. Reads that are
/// [`Interrupted`](io::ErrorKind::Interrupted) are retried; other read
/// errors are returned as they are.
///
/// ```
/// let text = "Ünïcödé ".repeat(10_000);
/// assert_eq!(utf8guard::io::validate_reader(text.as_bytes())?, text.len() as u64);
///
/// let mut bad = text.into_bytes();
/// bad[70_001] = b'\xFF';
/// let err = utf8guard::io::validate_reader(&bad[..]).unwrap_err();
/// assert_eq!(utf8guard::io::utf8_error(&err).unwrap().valid_up_to(), 70_001);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn validate_reader<R: Read>(mut reader: R) -> io::Result<u64> {
    let mut buf = vec![0u8; CHUNK];
    let mut stream = StreamValidator::new();
    let mut total = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        total += n as u64;
        stream.update(&buf[..n]).map_err(invalid_data)?;
    }
    stream.finish().map_err(invalid_data)?;
    Ok(total)
}

/// Reads the file at `path` and checks that it is UTF-8, as
/// [`validate_reader`] does: returns its length, or the first error.
///
/// ```no_run
/// match utf8guard::io::validate_file("notes.txt") {
///     Ok(len) => println!("{len} bytes of UTF-8"),
///     Err(err) => match utf8guard::io::utf8_error(&err) {
///         Some(e) => println!("not UTF-8 from byte {}", e.valid_up_to()),
///         None => println!("cannot read: {err}"),
///     },
/// }
/// ```
pub fn validate_file<P: AsRef<Path>>(path: P) -> io::Result<u64> {
    validate_reader(File::open(path)?)
}

/// A reader that passes through the bytes of another, validating them as
/// UTF-8 on the way.
///
/// Reading gives the inner reader's bytes unchanged, up to the first
/// error. Invalid data gives an [`io::Error`] of kind
/// [`InvalidData`](io::ErrorKind::InvalidData) carrying the [`Utf8Error`]
/// (see [`utf8_error`]), its offset counted from the first byte of the
/// stream; every valid byte before it is returned first, and the bytes of
/// the ill-formed sequence (a maximal subpart, as
/// [`error_len`](Utf8Error::error_len) counts it) never are. Each error is
/// returned once: reading on after it resumes right after that sequence,
/// as std's readers go on after a line that is not UTF-8. So a loop that
/// skips errors (`lines().filter_map(Result::ok)`) ends, and loses only the
/// bad sequences (over `lines()`, an error cuts its line in two: the part
/// before it is lost with the error, the part after it is the next line);
/// `?`, `read_to_string` and collecting into a `Result` stop at the first.
///
/// The bytes of a character split across the inner reader's reads are
/// held back until the character is complete and checked, so with a
/// buffer of at least 4 bytes every read returns whole characters. An
/// input that ends inside a character is an error, with
/// [`error_len`](Utf8Error::error_len) `None`.
///
/// The first end of input the inner reader reports ends the stream: every
/// read after it returns the end (or the error of an unfinished character,
/// once) without asking the inner reader again, so a terminal needs one
/// Ctrl-D, and an inner reader that is `Interrupted` between its answers
/// is not asked past its end.
///
/// Over a [`BufRead`], `Utf8Reader` is a `BufRead` too, validating the
/// inner buffer in place, each byte once.
///
/// ```
/// use std::io::{BufRead, Read};
/// use utf8guard::Utf8Reader;
///
/// let mut text = String::new();
/// Utf8Reader::new("naïve café".as_bytes()).read_to_string(&mut text)?;
/// assert_eq!(text, "naïve café");
///
/// // Lines through a buffered reader: the third line is cut short.
/// let input = &b"one\ntwo\n\xF0\x9F\x98\n"[..];
/// let mut lines = Utf8Reader::new(std::io::BufReader::new(input)).lines();
/// assert_eq!(lines.next().unwrap()?, "one");
/// assert_eq!(lines.next().unwrap()?, "two");
/// let err = lines.next().unwrap().unwrap_err();
/// let utf8 = utf8guard::io::utf8_error(&err).unwrap();
/// assert_eq!((utf8.valid_up_to(), utf8.error_len()), (8, Some(3)));
///
/// // Collecting stops at the first error; skipping errors goes on after
/// // the bad sequence.
/// let all: Result<Vec<String>, _> = Utf8Reader::new(input).lines().collect();
/// assert!(all.is_err());
/// let input = &b"a\nc\xFF\nd\n"[..];
/// let good: Vec<String> = Utf8Reader::new(input).lines().map_while(|l| l.ok()).collect();
/// assert_eq!(good, ["a"]);
/// let good: Vec<String> = Utf8Reader::new(input).lines().filter_map(Result::ok).collect();
/// assert_eq!(good, ["a", "", "d"]);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Utf8Reader<R> {
    inner: R,
    /// Stream offset of the first byte not yet accepted: the start of
    /// `partial`.
    checked: usize,
    /// Bytes taken from `inner` that start a character not yet complete.
    partial: [u8; MAX_CHAR],
    partial_len: u8,
    /// A validated character (or the rest of a read) not yet handed out,
    /// for reads into buffers too small for a character.
    ready: [u8; MAX_CHAR],
    ready_pos: u8,
    ready_len: u8,
    /// How many bytes at the front of the inner reader's buffer are
    /// validated and not yet consumed (`BufRead` only).
    validated: usize,
    /// An error found and not yet returned (the valid bytes before it go
    /// first), with how many bytes of its sequence are still at the front
    /// of the inner reader, to be skipped when it is returned.
    pending: Option<(Utf8Error, usize)>,
    /// Bytes read from `inner` after an error's sequence, not yet
    /// validated: read again, from `leftover_at`, before `inner` (`Read`
    /// only).
    leftover: Vec<u8>,
    leftover_at: usize,
    /// The first error, once found.
    error: Option<Utf8Error>,
    /// The inner reader reported the end of input. It is not asked again:
    /// a terminal would wait for another Ctrl-D, and a reader that may
    /// answer again after its end would have the stream go on past it.
    eof: bool,
}

impl<R> Utf8Reader<R> {
    /// Wraps `inner`.
    pub fn new(inner: R) -> Self {
        Utf8Reader {
            inner,
            checked: 0,
            partial: [0; MAX_CHAR],
            partial_len: 0,
            ready: [0; MAX_CHAR],
            ready_pos: 0,
            ready_len: 0,
            validated: 0,
            pending: None,
            leftover: Vec::new(),
            leftover_at: 0,
            error: None,
            eof: false,
        }
    }

    /// The inner reader. Reading from it directly skips validation.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The inner reader, back. Bytes already taken from it and not yet
    /// returned (an unfinished character, the bytes after an error) are
    /// lost.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// How many bytes from the start of the stream are validated: returned
    /// already, or about to be. After an error, the first error's offset.
    pub fn valid_up_to(&self) -> usize {
        match self.error {
            Some(error) => error.valid_up_to(),
            None => self.checked,
        }
    }

    /// The first error, once found.
    pub fn error(&self) -> Option<Utf8Error> {
        self.error
    }

    fn has_ready(&self) -> bool {
        self.ready_pos < self.ready_len
    }

    /// Hand out held bytes of `ready`.
    fn take_ready(&mut self, buf: &mut [u8]) -> usize {
        let held = &self.ready[self.ready_pos as usize..self.ready_len as usize];
        let n = held.len().min(buf.len());
        buf[..n].copy_from_slice(&held[..n]);
        self.ready_pos += n as u8;
        n
    }

    /// Records `error` (placed in the stream), drops the held character,
    /// and moves `checked` past the bad sequence; the caller returns the
    /// error now or leaves it pending.
    fn fail(&mut self, error: Utf8Error) -> io::Error {
        self.error.get_or_insert(error);
        self.partial_len = 0;
        self.checked = error.valid_up_to() + error.error_len().unwrap_or(0);
        invalid_data(error)
    }

    /// The error for a stream that ended inside the held character.
    fn fail_truncated(&mut self) -> io::Error {
        let len = self.partial_len as usize;
        match crate::validate::from_utf8(&self.partial[..len]) {
            Err(error) => self.fail(error.shifted(self.checked)),
            // Unreachable: `partial` holds an unfinished character.
            Ok(_) => io::Error::other("internal error: held bytes were a whole character"),
        }
    }
}

impl<R: Read> Utf8Reader<R> {
    /// Reads into `out` (at least [`MAX_CHAR`] bytes long) from the inner
    /// reader, after the held bytes of an unfinished character, and returns
    /// the length of the validated prefix of `out`.
    fn read_checked(&mut self, out: &mut [u8]) -> io::Result<usize> {
        debug_assert!(out.len() >= MAX_CHAR);
        loop {
            let held = self.partial_len as usize;
            if held == 0 && self.leftover_at < self.leftover.len() {
                if let Some(result) = self.take_leftover(out) {
                    return result;
                }
            }
            out[..held].copy_from_slice(&self.partial[..held]);
            let from_leftover = self.leftover_at < self.leftover.len();
            let n = if from_leftover {
                let n = (self.leftover.len() - self.leftover_at).min(out.len() - held);
                let at = self.leftover_at;
                out[held..held + n].copy_from_slice(&self.leftover[at..at + n]);
                self.leftover_at += n;
                n
            } else if self.eof {
                0
            } else {
                self.inner.read(&mut out[held..])?
            };
            if n == 0 {
                self.eof = true;
                return if held == 0 {
                    Ok(0)
                } else {
                    Err(self.fail_truncated())
                };
            }
            let filled = held + n;
            let error = match crate::validate::from_utf8(&out[..filled]) {
                Ok(_) => {
                    self.partial_len = 0;
                    self.checked += filled;
                    return Ok(filled);
                }
                Err(error) => error,
            };
            let valid = error.valid_up_to();
            if let Some(bad) = error.error_len() {
                // What follows the bad sequence is read again next time
                // (the held bytes, a valid start, are never past it).
                let rest = filled - (valid + bad);
                if from_leftover {
                    self.leftover_at -= rest;
                } else {
                    self.leftover.clear();
                    self.leftover.extend_from_slice(&out[filled - rest..filled]);
                    self.leftover_at = 0;
                }
                return self.fail_after(error.shifted(self.checked), valid, 0);
            }
            // An unfinished character at the end (at most 3 bytes): hold it.
            let tail = &out[valid..filled];
            self.partial[..tail.len()].copy_from_slice(tail);
            self.partial_len = tail.len() as u8;
            self.checked += valid;
            if valid > 0 {
                return Ok(valid);
            }
            // Only part of a character so far: read on.
        }
    }

    /// The next read from `leftover` with no character held, validated
    /// where it lies so that only what is handed out is copied (an error
    /// every few bytes would otherwise copy the rest of the leftover each
    /// time). `None` when it starts with an unfinished character.
    fn take_leftover(&mut self, out: &mut [u8]) -> Option<io::Result<usize>> {
        let at = self.leftover_at;
        let n = (self.leftover.len() - at).min(out.len());
        let chunk = &self.leftover[at..at + n];
        let (valid, bad) = match crate::validate::from_utf8(chunk) {
            Ok(_) => (n, None),
            Err(error) => (
                error.valid_up_to(),
                error.error_len().map(|bad| (error, bad)),
            ),
        };
        if valid == 0 && bad.is_none() {
            return None;
        }
        out[..valid].copy_from_slice(&chunk[..valid]);
        self.leftover_at += valid;
        let Some((error, bad)) = bad else {
            self.checked += valid;
            return Some(Ok(valid));
        };
        self.leftover_at += bad;
        Some(self.fail_after(error.shifted(self.checked), valid, 0))
    }

    /// After `valid` good bytes, the error `error`: returned now when
    /// there are none, else left pending (with `skip` bytes of its sequence
    /// still in the inner reader) and the good bytes returned first.
    fn fail_after(&mut self, error: Utf8Error, valid: usize, skip: usize) -> io::Result<usize> {
        let err = self.fail(error);
        if valid == 0 {
            return Err(err);
        }
        self.pending = Some((error, skip));
        Ok(valid)
    }
}

impl<R: Read> Read for Utf8Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.has_ready() {
            return Ok(self.take_ready(buf));
        }
        if self.validated > 0 {
            // Bytes validated in place by `fill_buf` come first; the inner
            // reader gives them back from its buffer.
            let len = buf.len().min(self.validated);
            let n = self.inner.read(&mut buf[..len])?;
            self.validated = if n == 0 { 0 } else { self.validated - n };
            return Ok(n);
        }
        if let Some((error, skip)) = self.pending.take() {
            // The bad sequence, still in the inner reader's buffer.
            self.inner.read_exact(&mut [0; MAX_CHAR][..skip])?;
            return Err(invalid_data(error));
        }
        if buf.len() >= MAX_CHAR {
            return self.read_checked(buf);
        }
        // Too small for a whole character: read into a buffer of our own
        // and hold what does not fit.
        let mut own = [0u8; MAX_CHAR];
        let n = self.read_checked(&mut own)?;
        self.ready = own;
        self.ready_pos = 0;
        self.ready_len = n as u8;
        Ok(self.take_ready(buf))
    }
}

impl<R: BufRead> BufRead for Utf8Reader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.has_ready() {
            return Ok(&self.ready[self.ready_pos as usize..self.ready_len as usize]);
        }
        if self.validated == 0 {
            if let Some((error, skip)) = self.pending.take() {
                self.inner.consume(skip);
                return Err(invalid_data(error));
            }
            if self.leftover_at < self.leftover.len() {
                // Bytes that `read` took from the inner reader past an
                // error come before its buffer: handed out a character at
                // a time (this only happens when both ways of reading are
                // mixed).
                let mut own = [0u8; MAX_CHAR];
                let n = self.read_checked(&mut own)?;
                self.ready = own;
                self.ready_pos = 0;
                self.ready_len = n as u8;
                return Ok(&self.ready[..n]);
            }
            self.validate_more()?;
            if self.has_ready() {
                return Ok(&self.ready[..self.ready_len as usize]);
            }
            if self.validated == 0 {
                // The end of input: asking the inner reader again would
                // read past it.
                return Ok(&[]);
            }
        }
        let buf = self.inner.fill_buf()?;
        // A well-behaved inner reader still holds the validated bytes.
        let len = self.validated.min(buf.len());
        Ok(&buf[..len])
    }

    fn consume(&mut self, amt: usize) {
        if self.has_ready() {
            let left = self.ready_len - self.ready_pos;
            self.ready_pos += amt.min(left as usize) as u8;
            return;
        }
        let amt = amt.min(self.validated);
        self.validated -= amt;
        self.inner.consume(amt);
    }
}

impl<R: BufRead> Utf8Reader<R> {
    /// Validates the next bytes of the inner buffer in place (setting
    /// `validated`), or completes a character split across inner buffers
    /// into `ready`. Sets neither at the end of the stream.
    fn validate_more(&mut self) -> io::Result<()> {
        loop {
            let buf = if self.eof {
                &[]
            } else {
                self.inner.fill_buf()?
            };
            let held = self.partial_len as usize;
            if buf.is_empty() {
                self.eof = true;
                return if held == 0 {
                    Ok(())
                } else {
                    Err(self.fail_truncated())
                };
            }
            if held > 0 {
                // Complete the held character from the front of the buffer.
                let need = char_width(self.partial[0]) - held;
                let take = need.min(buf.len());
                let mut whole = self.partial;
                whole[held..held + take].copy_from_slice(&buf[..take]);
                let len = held + take;
                match crate::validate::from_utf8(&whole[..len]) {
                    Ok(_) => {
                        self.inner.consume(take);
                        self.partial_len = 0;
                        self.ready = whole;
                        self.ready_pos = 0;
                        self.ready_len = len as u8;
                        self.checked += len;
                        return Ok(());
                    }
                    Err(error) if error.error_len().is_none() => {
                        // Still unfinished: the inner buffer ran out.
                        self.inner.consume(take);
                        self.partial = whole;
                        self.partial_len = len as u8;
                        continue;
                    }
                    Err(error) => {
                        // The bad sequence may run on past the held bytes.
                        let bad = error.error_len().unwrap_or(len);
                        let err = self.fail(error.shifted(self.checked));
                        self.inner.consume(bad.saturating_sub(held));
                        return Err(err);
                    }
                }
            }
            let error = match crate::validate::from_utf8(buf) {
                Ok(_) => {
                    self.validated = buf.len();
                    self.checked += buf.len();
                    return Ok(());
                }
                Err(error) => error,
            };
            let valid = error.valid_up_to();
            if let Some(bad) = error.error_len() {
                let error = error.shifted(self.checked);
                let err = self.fail(error);
                if valid == 0 {
                    self.inner.consume(bad);
                    return Err(err);
                }
                // The valid bytes first; the error once they are consumed,
                // and then the bad sequence is skipped.
                self.validated = valid;
                self.pending = Some((error, bad));
                return Ok(());
            }
            if valid > 0 {
                // The unfinished character stays in the inner buffer until
                // the valid bytes before it are consumed.
                self.validated = valid;
                self.checked += valid;
                return Ok(());
            }
            // The buffer holds only the start of a character: take it.
            let len = buf.len();
            self.partial[..len].copy_from_slice(buf);
            self.partial_len = len as u8;
            self.inner.consume(len);
        }
    }
}
