//! `Utf8Reader` (as `Read` and as `BufRead`), `validate_reader` and
//! `validate_file` against `from_utf8` on the whole input: the bytes passed
//! through are exactly the valid prefix, and the error is the same.

mod common;

use std::io::{self, BufRead, BufReader, Read};

use common::{filler, MALFORMED, TRUNCATED};
use proptest::prelude::*;
use utf8guard::io::{utf8_error, validate_file, validate_reader};
use utf8guard::{ErrorKind, RepairReader, Replacement, Utf8Error, Utf8Reader};

/// A reader that gives its data in reads of the given sizes (cycling), with
/// an `Interrupted` error before every other read when `interrupt` is set.
struct Chunked<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    turn: usize,
    interrupt: bool,
}

impl<'a> Chunked<'a> {
    fn new(data: &'a [u8], sizes: &[usize]) -> Self {
        Chunked {
            data,
            sizes: sizes.to_vec(),
            turn: 0,
            interrupt: false,
        }
    }
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.turn += 1;
        if self.interrupt && self.turn.is_multiple_of(2) {
            return Err(io::Error::from(io::ErrorKind::Interrupted));
        }
        let size = self.sizes[self.turn % self.sizes.len()].max(1);
        let n = size.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// What reading `input` must give: the valid prefix, then the error.
fn expected(input: &[u8]) -> (&[u8], Option<Utf8Error>) {
    match utf8guard::from_utf8(input) {
        Ok(_) => (input, None),
        Err(e) => (&input[..e.valid_up_to()], Some(e)),
    }
}

/// An error as the tests compare it: offset in the whole stream, length
/// of the bad sequence, cause.
type Placed = (usize, Option<usize>, ErrorKind);

fn placed(e: Utf8Error, at: usize) -> Placed {
    (at + e.valid_up_to(), e.error_len(), e.kind())
}

/// What reading all of `input`, on past each error, must give: every
/// valid byte, and each error in turn (each found by `from_utf8` on what
/// follows the last one's bad sequence, placed in the whole input).
fn expected_all(input: &[u8]) -> (Vec<u8>, Vec<Placed>) {
    let mut good = Vec::new();
    let mut errors = Vec::new();
    let mut at = 0;
    loop {
        match utf8guard::from_utf8(&input[at..]) {
            Ok(_) => {
                good.extend_from_slice(&input[at..]);
                return (good, errors);
            }
            Err(e) => {
                good.extend_from_slice(&input[at..at + e.valid_up_to()]);
                errors.push(placed(e, at));
                match e.error_len() {
                    Some(bad) => at += e.valid_up_to() + bad,
                    None => return (good, errors),
                }
            }
        }
    }
}

/// Reads on past every error, with `step` (a read, or a `fill_buf` and
/// `consume`) until it gives 0 bytes, and asserts that what came through is
/// [`expected_all`]'s. Each error must be returned once: the number of
/// steps is bounded.
fn assert_reads_on(
    input: &[u8],
    what: &str,
    mut step: impl FnMut(&mut Vec<u8>) -> io::Result<usize>,
) {
    let (good, errors) = expected_all(input);
    let mut got = Vec::new();
    let mut got_errors = Vec::new();
    for _ in 0..4 * input.len() + 16 {
        match step(&mut got) {
            Ok(0) => {
                assert_eq!(got, good, "{what}: bytes passed through on {input:02X?}");
                assert_eq!(got_errors, errors, "{what}: errors on {input:02X?}");
                return;
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => got_errors.push(placed(utf8_error(&e).expect(what), 0)),
        }
    }
    panic!("{what}: no end on {input:02X?} (errors so far: {got_errors:?})");
}

/// Assert that an outcome of reading `input` is right: `got` is what was
/// passed through, `result` how it ended.
fn assert_outcome(input: &[u8], got: &[u8], result: io::Result<()>, what: &str) {
    let (prefix, error) = expected(input);
    assert_eq!(got, prefix, "{what}: bytes passed through on {input:02X?}");
    match (result, error) {
        (Ok(()), None) => {}
        (Err(err), Some(e)) => {
            assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{what}");
            assert_eq!(utf8_error(&err), Some(e), "{what}: error on {input:02X?}");
            assert_eq!(err.to_string(), e.to_string());
        }
        (result, error) => panic!("{what}: {result:?}, expected {error:?} on {input:02X?}"),
    }
}

/// Read with `Read::read` into buffers of `buf_len` bytes until the end or
/// an error; with buffers of 4 bytes or more, every read is whole
/// characters.
fn read_all(input: &[u8], sizes: &[usize], buf_len: usize, interrupt: bool) {
    let mut inner = Chunked::new(input, sizes);
    inner.interrupt = interrupt;
    let mut reader = Utf8Reader::new(inner);
    let mut got = Vec::new();
    let mut buf = vec![0u8; buf_len];
    let result = loop {
        match reader.read(&mut buf) {
            Ok(0) => break Ok(()),
            Ok(n) => {
                if buf_len >= 4 {
                    assert!(std::str::from_utf8(&buf[..n]).is_ok(), "partial character");
                }
                got.extend_from_slice(&buf[..n]);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => break Err(e),
        }
    };
    let what = format!("read, sizes {sizes:?}, buffer {buf_len}");
    assert_outcome(input, &got, result, &what);
    // Reading on past every error.
    let mut inner = Chunked::new(input, sizes);
    inner.interrupt = interrupt;
    let mut reader = Utf8Reader::new(inner);
    assert_reads_on(input, &what, |got| {
        let n = reader.read(&mut buf)?;
        if buf_len >= 4 {
            assert!(std::str::from_utf8(&buf[..n]).is_ok(), "partial character");
        }
        got.extend_from_slice(&buf[..n]);
        Ok(n)
    });
}

/// Read through `BufRead` over a `BufReader` of `capacity`, consuming at
/// most `step` bytes at a time.
fn buf_read_all(input: &[u8], sizes: &[usize], capacity: usize, step: usize) {
    let inner = BufReader::with_capacity(capacity, Chunked::new(input, sizes));
    let mut reader = Utf8Reader::new(inner);
    let mut got = Vec::new();
    let result = loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) => break Err(e),
        };
        if buf.is_empty() {
            break Ok(());
        }
        let n = buf.len().min(step);
        got.extend_from_slice(&buf[..n]);
        reader.consume(n);
    };
    let what = format!("buf_read, sizes {sizes:?}, capacity {capacity}, step {step}");
    assert_outcome(input, &got, result, &what);
    let inner = BufReader::with_capacity(capacity, Chunked::new(input, sizes));
    let mut reader = Utf8Reader::new(inner);
    assert_reads_on(input, &what, |got| {
        let buf = reader.fill_buf()?;
        let n = buf.len().min(step);
        got.extend_from_slice(&buf[..n]);
        reader.consume(n);
        Ok(n)
    });
}

/// Alternate `read` with tiny buffers and `fill_buf`/`consume`.
fn mixed_read_all(input: &[u8], sizes: &[usize], capacity: usize) {
    let inner = BufReader::with_capacity(capacity, Chunked::new(input, sizes));
    let mut reader = Utf8Reader::new(inner);
    let mut got = Vec::new();
    let mut turn = 0usize;
    let result = loop {
        turn += 1;
        let step = if turn.is_multiple_of(3) {
            let mut buf = [0u8; 2];
            reader
                .read(&mut buf)
                .inspect(|&n| got.extend_from_slice(&buf[..n]))
        } else {
            match reader.fill_buf() {
                Ok(buf) => {
                    let n = buf.len().min(turn % 5 + 1);
                    got.extend_from_slice(&buf[..n]);
                    reader.consume(n);
                    Ok(n)
                }
                Err(e) => Err(e),
            }
        };
        match step {
            Ok(0) => break Ok(()),
            Ok(_) => {}
            Err(e) => break Err(e),
        }
    };
    assert_outcome(input, &got, result, "mixed read and fill_buf");
    let inner = BufReader::with_capacity(capacity, Chunked::new(input, sizes));
    let mut reader = Utf8Reader::new(inner);
    let mut turn = 0usize;
    assert_reads_on(input, "mixed read and fill_buf, reading on", |got| {
        turn += 1;
        if turn.is_multiple_of(3) {
            let mut buf = [0u8; 2];
            let n = reader.read(&mut buf)?;
            got.extend_from_slice(&buf[..n]);
            Ok(n)
        } else {
            let buf = reader.fill_buf()?;
            let n = buf.len().min(turn % 5 + 1);
            got.extend_from_slice(&buf[..n]);
            reader.consume(n);
            Ok(n)
        }
    });
}

fn check_reader(input: &[u8]) {
    let size_patterns: &[&[usize]] = &[&[1], &[2], &[3], &[1, 2, 3, 5], &[7, 1], &[4096]];
    for sizes in size_patterns {
        for buf_len in [1, 2, 3, 4, 5, 8, 64] {
            read_all(input, sizes, buf_len, false);
        }
        read_all(input, sizes, 5, true);
        for capacity in [1, 2, 3, 4, 7, 64] {
            buf_read_all(input, sizes, capacity, usize::MAX);
            buf_read_all(input, sizes, capacity, 1);
            buf_read_all(input, sizes, capacity, 3);
        }
        mixed_read_all(input, sizes, 5);
    }
    // The whole-reader helper.
    let (prefix, error) = expected(input);
    match (validate_reader(Chunked::new(input, &[3, 1, 4])), error) {
        (Ok(len), None) => assert_eq!(len, input.len() as u64),
        (Err(err), Some(e)) => assert_eq!(utf8_error(&err), Some(e)),
        (result, error) => panic!("validate_reader {result:?}, expected {error:?}"),
    }
    // read_to_end keeps the valid prefix.
    let mut all = Vec::new();
    let result = Utf8Reader::new(input).read_to_end(&mut all).map(|_| ());
    assert_outcome(input, &all, result, "read_to_end");
    assert_eq!(all, prefix);
}

#[test]
fn documented_behaviour() {
    let input = b"abc\xE2\x82\xACdef\xED\xA0\x80xyz";
    let mut reader = Utf8Reader::new(&input[..]);
    let mut buf = [0u8; 64];
    assert_eq!(reader.read(&mut buf).unwrap(), 9);
    assert_eq!(&buf[..9], "abc€def".as_bytes());
    let err = reader.read(&mut buf).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    let e = utf8_error(&err).unwrap();
    assert_eq!(
        (e.valid_up_to(), e.error_len(), e.kind()),
        (9, Some(1), ErrorKind::Surrogate)
    );
    assert_eq!(reader.error(), Some(e));
    assert_eq!(reader.valid_up_to(), 9);
    assert_eq!(
        err.to_string(),
        "invalid utf-8 sequence of 1 bytes from index 9"
    );

    // With a 5-byte buffer, reads stop before a character that does not
    // fit, and the valid bytes before the error come first.
    let mut reader = Utf8Reader::new(&input[..]);
    let mut buf = [0u8; 5];
    assert_eq!(reader.read(&mut buf).unwrap(), 3);
    assert_eq!(&buf[..3], b"abc");
    assert_eq!(reader.read(&mut buf).unwrap(), 5);
    assert_eq!(&buf, "€de".as_bytes());
    assert_eq!(reader.read(&mut buf).unwrap(), 1);
    assert_eq!(&buf[..1], b"f");
    let err = reader.read(&mut buf).unwrap_err();
    assert_eq!(utf8_error(&err), Some(e));
    // Each error once: then reading goes on after the bad sequence
    // (ED A0 80: three errors of one byte, as std counts them).
    for at in [10, 11] {
        let err = reader.read(&mut buf).unwrap_err();
        let next = utf8_error(&err).unwrap();
        assert_eq!((next.valid_up_to(), next.error_len()), (at, Some(1)));
    }
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest).unwrap();
    assert_eq!(rest, b"xyz");
    assert_eq!(reader.read(&mut buf).unwrap(), 0);
    assert_eq!(reader.error(), Some(e));

    // A character split across the inner reads is held back until whole.
    let mut reader = Utf8Reader::new(Chunked::new("x€".as_bytes(), &[2]));
    let mut buf = [0u8; 16];
    assert_eq!(reader.read(&mut buf).unwrap(), 1);
    assert_eq!(reader.read(&mut buf).unwrap(), 3);
    assert_eq!(&buf[..3], "€".as_bytes());
    assert_eq!(reader.read(&mut buf).unwrap(), 0);

    // Truncated at the end.
    let mut text = String::new();
    let err = Utf8Reader::new(&b"ok \xF0\x9F\x98"[..])
        .read_to_string(&mut text)
        .unwrap_err();
    let e = utf8_error(&err).unwrap();
    assert_eq!(
        (e.valid_up_to(), e.error_len(), e.kind()),
        (3, None, ErrorKind::Incomplete)
    );

    // Not every io::Error is a UTF-8 one.
    assert_eq!(utf8_error(&io::Error::other("x")), None);
    assert_eq!(
        utf8_error(&io::Error::from(io::ErrorKind::InvalidData)),
        None
    );
}

#[test]
fn lines_through_buf_read() {
    let reader = Utf8Reader::new(BufReader::with_capacity(3, "héllo\nwörld\n€".as_bytes()));
    let lines: Vec<String> = reader.lines().map(Result::unwrap).collect();
    assert_eq!(lines, ["héllo", "wörld", "€"]);
}

/// `lines()` that skips errors ends: each error is returned once, and the
/// line goes on after its bad sequence (it never did: the same error came
/// back forever).
#[test]
fn lines_go_on_after_an_error() {
    let input = &b"a\nc\xFF\nd\n"[..];
    for capacity in [1, 2, 3, 8, 8192] {
        let reader = Utf8Reader::new(BufReader::with_capacity(capacity, input));
        let items: Vec<Result<String, Placed>> = reader
            .lines()
            .take(10)
            .map(|l| l.map_err(|e| placed(utf8_error(&e).unwrap(), 0)))
            .collect();
        assert_eq!(
            items,
            [
                Ok("a".to_owned()),
                Err((3, Some(1), ErrorKind::InvalidByte)),
                Ok(String::new()),
                Ok("d".to_owned())
            ],
            "capacity {capacity}"
        );
        let reader = Utf8Reader::new(BufReader::with_capacity(capacity, input));
        let good: Vec<String> = reader.lines().map_while(Result::ok).collect();
        assert_eq!(good, ["a"]);
    }
}

#[test]
fn malformed_and_truncated() {
    for &(bad, _) in MALFORMED {
        for style in 0..4 {
            let mut bytes = filler(9, style);
            bytes.extend_from_slice(bad);
            bytes.extend_from_slice(&filler(9, style + 1));
            check_reader(&bytes);
        }
    }
    for &cut in TRUNCATED {
        let mut bytes = filler(10, 2);
        bytes.extend_from_slice(cut);
        check_reader(&bytes);
        bytes.push(b'!');
        check_reader(&bytes);
    }
    check_reader(b"");
    check_reader("a\u{80}\u{800}\u{10000}\u{10FFFF}".as_bytes());
}

#[test]
fn long_input_with_late_error() {
    let mut bytes: Vec<u8> = (0..4).flat_map(|s| filler(50_000, s)).collect();
    read_all(&bytes, &[4096, 1, 333], 1000, false);
    buf_read_all(&bytes, &[4096, 1, 333], 1000, 777);
    bytes.splice(150_000..150_000, *b"\xF4\x90\x80\x80");
    let err = validate_reader(&bytes[..]).unwrap_err();
    let e = utf8_error(&err).unwrap();
    let core = std::str::from_utf8(&bytes).unwrap_err();
    assert_eq!(
        (e.valid_up_to(), e.error_len()),
        (core.valid_up_to(), core.error_len())
    );
    assert_eq!(e.kind(), ErrorKind::TooLarge);
    for capacity in [8192, 65536] {
        buf_read_all(&bytes, &[10_000, 333], capacity, usize::MAX);
    }
    read_all(&bytes, &[65536], 65536, false);
}

#[test]
fn files() {
    let dir = std::env::temp_dir().join(format!("utf8guard-io-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.txt");
    let bad = dir.join("bad.txt");
    let text = "Ἐν ἀρχῇ ἦν ὁ λόγος. ".repeat(20_000);
    std::fs::write(&good, &text).unwrap();
    let mut broken = text.clone().into_bytes();
    // Cut inside a character.
    let cut = (300_000..).find(|&i| broken[i] & 0xC0 == 0x80).unwrap();
    broken.truncate(cut);
    std::fs::write(&bad, &broken).unwrap();

    assert_eq!(validate_file(&good).unwrap(), text.len() as u64);
    let err = validate_file(&bad).unwrap_err();
    let e = utf8_error(&err).unwrap();
    let core = std::str::from_utf8(&broken).unwrap_err();
    assert_eq!(
        (e.valid_up_to(), e.error_len()),
        (core.valid_up_to(), core.error_len())
    );
    let missing = validate_file(dir.join("missing.txt")).unwrap_err();
    assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    assert_eq!(utf8_error(&missing), None);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One answer of a [`Scripted`] reader.
#[derive(Clone, Copy)]
enum Answer {
    /// These bytes, over as many reads as the buffers need.
    Data(&'static [u8]),
    /// The end of input (`Ok(0)`), as a terminal gives at Ctrl-D: the
    /// reader may have more to say after it.
    End,
}

/// A reader that gives its answers in turn, then the end of input for
/// good; with `interrupt`, an `Interrupted` error before every answer.
/// It counts the reads made after its first end of input, and fails the
/// test when the same reader is asked again and again past it.
struct Scripted {
    answers: Vec<Answer>,
    interrupt: bool,
    /// The next read is an `Interrupted` error.
    interrupt_now: bool,
    reads: usize,
    ended: bool,
    reads_after_end: usize,
}

impl Scripted {
    fn new(answers: &[Answer]) -> Self {
        Scripted {
            answers: answers.to_vec(),
            interrupt: false,
            interrupt_now: false,
            reads: 0,
            ended: false,
            reads_after_end: 0,
        }
    }

    fn interrupted(answers: &[Answer]) -> Self {
        Scripted {
            interrupt: true,
            interrupt_now: true,
            ..Scripted::new(answers)
        }
    }
}

impl Read for Scripted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reads += 1;
        if self.ended {
            self.reads_after_end += 1;
            assert!(
                self.reads_after_end < 100,
                "read again and again after the end of input"
            );
        }
        if self.interrupt_now {
            self.interrupt_now = false;
            return Err(io::Error::from(io::ErrorKind::Interrupted));
        }
        self.interrupt_now = self.interrupt;
        let answer = if self.answers.is_empty() {
            Answer::End
        } else {
            self.answers[0]
        };
        match answer {
            Answer::Data(bytes) => {
                let n = bytes.len().min(buf.len());
                buf[..n].copy_from_slice(&bytes[..n]);
                if n == bytes.len() {
                    self.answers.remove(0);
                } else {
                    self.answers[0] = Answer::Data(&bytes[n..]);
                }
                Ok(n)
            }
            Answer::End => {
                if !self.answers.is_empty() {
                    self.answers.remove(0);
                }
                self.ended = true;
                Ok(0)
            }
        }
    }
}

/// One end of input from the inner reader is one end for the caller, and
/// the reader stays at its end: a terminal needs one Ctrl-D, not two.
#[test]
fn end_of_input_read_once_through_buf_read() {
    use Answer::{Data, End};
    let terminal = [Data(b"one\n"), End, Data(b"two\n"), End];
    let mut reader = Utf8Reader::new(BufReader::new(Scripted::new(&terminal)));
    let lines: Vec<String> = (&mut reader).lines().map(Result::unwrap).collect();
    assert_eq!(lines, ["one"]);
    assert_eq!(reader.get_ref().get_ref().reads, 2);
    assert!(reader.fill_buf().unwrap().is_empty());
    let mut line = String::new();
    assert_eq!(reader.read_line(&mut line).unwrap(), 0);
    assert_eq!(reader.get_ref().get_ref().reads, 2);

    // An `Interrupted` error before every answer: `read_until` retries it,
    // and ends at the first end of input, as over a plain `BufReader`.
    let script = Scripted::interrupted(&[Data(b"abc")]);
    let mut plain = BufReader::with_capacity(1, script);
    let mut got = Vec::new();
    assert_eq!(plain.read_until(b'\n', &mut got).unwrap(), 3);
    assert_eq!(
        (got.as_slice(), plain.get_ref().reads_after_end),
        (&b"abc"[..], 0)
    );
    for capacity in [1, 2, 8192] {
        let script = Scripted::interrupted(&[Data(b"abc")]);
        let mut reader = Utf8Reader::new(BufReader::with_capacity(capacity, script));
        let mut got = Vec::new();
        assert_eq!(reader.read_until(b'\n', &mut got).unwrap(), 3);
        assert_eq!(got, b"abc");
        assert_eq!(reader.read_until(b'\n', &mut got).unwrap(), 0);
        let inner = reader.get_ref().get_ref();
        assert_eq!(inner.reads_after_end, 0, "capacity {capacity}");

        let script = Scripted::interrupted(&[Data(b"ab\nc\xC3\xA9\n"), Data(b"d")]);
        let reader = Utf8Reader::new(BufReader::with_capacity(capacity, script));
        let lines: Vec<String> = reader.lines().map(Result::unwrap).collect();
        assert_eq!(lines, ["ab", "c\u{e9}", "d"], "capacity {capacity}");
    }

    // Input that ends inside a character: the error, then the end, with
    // the inner reader asked once past its end.
    for capacity in [1, 2, 8192] {
        let script = Scripted::new(&[Data(b"ab\xC3"), End, Data(b"\xA9")]);
        let mut reader = Utf8Reader::new(BufReader::with_capacity(capacity, script));
        let mut got = Vec::new();
        let err = reader.read_until(b'\n', &mut got).unwrap_err();
        let e = utf8_error(&err).unwrap();
        assert_eq!(
            (got.as_slice(), e.valid_up_to(), e.error_len()),
            (&b"ab"[..], 2, None)
        );
        assert!(reader.fill_buf().unwrap().is_empty());
        assert!(reader.fill_buf().unwrap().is_empty());
        let inner = reader.get_ref().get_ref();
        assert_eq!(inner.reads_after_end, 0, "capacity {capacity}");
    }
}

/// The same through `Read`, into buffers large and small.
#[test]
fn end_of_input_read_once_through_read() {
    use Answer::{Data, End};
    for buf_len in [1, 2, 4, 64] {
        let mut reader = Utf8Reader::new(Scripted::new(&[Data("é\n".as_bytes()), End, Data(b"x")]));
        let mut got = Vec::new();
        let mut buf = vec![0u8; buf_len];
        loop {
            match reader.read(&mut buf).unwrap() {
                0 => break,
                n => got.extend_from_slice(&buf[..n]),
            }
        }
        assert_eq!(got, "é\n".as_bytes());
        assert_eq!(reader.read(&mut buf).unwrap(), 0);
        assert_eq!(reader.get_ref().reads_after_end, 0, "buffer {buf_len}");

        // Ending inside a character.
        let mut reader = Utf8Reader::new(Scripted::new(&[Data(b"ab\xC3"), End, Data(b"\xA9")]));
        let mut got = Vec::new();
        let err = loop {
            match reader.read(&mut buf) {
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) => break e,
            }
        };
        let e = utf8_error(&err).unwrap();
        assert_eq!(
            (got.as_slice(), e.valid_up_to(), e.error_len()),
            (&b"ab"[..], 2, None)
        );
        assert_eq!(reader.read(&mut buf).unwrap(), 0);
        assert_eq!(reader.read(&mut buf).unwrap(), 0);
        assert_eq!(reader.get_ref().reads_after_end, 0, "buffer {buf_len}");
    }

    // `Interrupted` before every answer, through a `BufReader` of one byte.
    let script = Scripted::interrupted(&[Data(b"abc")]);
    let mut reader = BufReader::with_capacity(1, Utf8Reader::new(script));
    let mut got = Vec::new();
    assert_eq!(reader.read_until(b'\n', &mut got).unwrap(), 3);
    assert_eq!(got, b"abc");
    assert_eq!(reader.read_until(b'\n', &mut got).unwrap(), 0);
    assert_eq!(reader.get_ref().get_ref().reads_after_end, 0);
}

/// `RepairReader` too asks its inner reader once at the end.
#[test]
fn repair_reader_reads_the_end_once() {
    use Answer::{Data, End};
    for buf_len in [1, 4, 8192] {
        let script = Scripted::interrupted(&[Data(b"ab\xC3"), End, Data(b"x")]);
        let mut reader = RepairReader::new(script, Replacement::MaximalSubpart);
        let mut got = Vec::new();
        let mut buf = vec![0u8; buf_len];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(got, "ab\u{FFFD}".as_bytes());
        assert_eq!(reader.read(&mut buf).unwrap(), 0);
        assert_eq!(reader.get_ref().reads_after_end, 0, "buffer {buf_len}");
    }
    let script = Scripted::interrupted(&[Data(b"a\nb"), End, Data(b"x")]);
    let mut reader = RepairReader::new(script, Replacement::MaximalSubpart);
    let lines: Vec<String> = (&mut reader).lines().map(Result::unwrap).collect();
    assert_eq!(lines, ["a", "b"]);
    assert_eq!(reader.get_ref().reads_after_end, 0);
}

fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => any::<String>().prop_map(String::into_bytes),
        1 => prop::sample::select(MALFORMED.iter().map(|m| m.0.to_vec()).collect::<Vec<_>>()),
        1 => prop::sample::select(TRUNCATED.iter().map(|t| t.to_vec()).collect::<Vec<_>>()),
        1 => prop::collection::vec(any::<u8>(), 0..4),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn random_inputs_and_read_sizes(
        pieces in prop::collection::vec(piece(), 0..8),
        sizes in prop::collection::vec(1usize..9, 1..4),
        buf_len in 1usize..12,
        capacity in 1usize..12,
        step in 1usize..6,
    ) {
        let input = pieces.concat();
        read_all(&input, &sizes, buf_len, false);
        buf_read_all(&input, &sizes, capacity, step);
        mixed_read_all(&input, &sizes, capacity);
    }
}
