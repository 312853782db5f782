//! `utf8guard lint`: Corrected UTF-8 documents against the rules of its
//! specification ([`utf8guard::corrected::lint`]).

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use utf8guard::corrected::{self, Finding, Rule};
use utf8guard::ErrorKind;

use crate::args::lint::LintArgs;
use crate::hex::hex;
use crate::io_error::io_message;
use crate::json;
use crate::path_name::{message_name, shown_name};

/// Runs `lint`; returns the exit status.
pub fn run(args: &LintArgs) -> u8 {
    let stdin = [PathBuf::from("-")];
    let paths = if args.paths.is_empty() {
        &stdin[..]
    } else {
        &args.paths
    };
    // A report to a descriptor that was closed would be lost (std writes
    // to the /dev/null that stands in for it).
    if let Err(e) = crate::descriptors::check_open(1) {
        eprintln!("utf8guard: standard output: {}", io_message(&e));
        return 2;
    }
    let mut out = BufWriter::new(io::stdout().lock());
    let (mut found, mut failed) = (false, false);
    for path in paths {
        match report(path, args.json, &mut out) {
            Ok(Verdict::Clean) => {}
            Ok(Verdict::Findings) => found = true,
            Ok(Verdict::Unreadable) => failed = true,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return 2,
            Err(e) => {
                eprintln!("utf8guard: cannot write the report: {}", io_message(&e));
                return 2;
            }
        }
    }
    if failed {
        2
    } else {
        u8::from(found)
    }
}

/// What one input turned out to be.
enum Verdict {
    Clean,
    Findings,
    Unreadable,
}

/// Lints the input at `path` and writes its report, each finding as it is
/// found; fails only when `out` does.
fn report(path: &Path, as_json: bool, out: &mut impl Write) -> io::Result<Verdict> {
    let input = open(path).map_err(Failure::Read);
    if as_json {
        return report_json(path, input, out);
    }
    let name = shown_name(path, io::stdout().is_terminal());
    let mut text = String::new();
    let mut verdict = Verdict::Clean;
    let linted = input.and_then(|reader| {
        lint_stream(reader, PIECE, |f| {
            verdict = Verdict::Findings;
            text.clear();
            render_text(&name, &f, &mut text);
            out.write_all(text.as_bytes())
        })
    });
    let verdict = match linted {
        Ok(_) => verdict,
        Err(Failure::Read(reason)) => {
            // What is reported already goes out first, so that the two
            // streams interleave in order on a terminal.
            out.flush()?;
            eprintln!("utf8guard: {}: {reason}", message_name(path));
            Verdict::Unreadable
        }
        Err(Failure::Write(e)) => return Err(e),
    };
    out.flush()?;
    Ok(verdict)
}

/// [`report`] in JSON. The findings go out as they are found, so the
/// object names its status and length after them: nothing of an input,
/// neither its bytes nor its findings, is held whole.
fn report_json(
    path: &Path,
    input: Result<Box<dyn Read>, Failure>,
    out: &mut impl Write,
) -> io::Result<Verdict> {
    let mut text = String::new();
    render_json_head(path, &mut text);
    out.write_all(text.as_bytes())?;
    let (mut findings, mut read) = (0u64, 0u64);
    let linted = input.and_then(|reader| {
        let reader = Counted {
            inner: reader,
            count: &mut read,
        };
        lint_stream(reader, PIECE, |f| {
            text.clear();
            if findings > 0 {
                text.push(',');
            }
            findings += 1;
            render_json_finding(&f, &mut text);
            out.write_all(text.as_bytes())
        })
    });
    let (verdict, status, bytes, error) = match linted {
        Ok(len) if findings == 0 => (Verdict::Clean, "clean", len, None),
        Ok(len) => (Verdict::Findings, "findings", len, None),
        Err(Failure::Read(reason)) => (Verdict::Unreadable, "error", read, Some(reason)),
        Err(Failure::Write(e)) => return Err(e),
    };
    text.clear();
    text.push(']');
    json::push_key(&mut text, "status", false);
    json::push_str(&mut text, status);
    json::push_key(&mut text, "bytes", false);
    let _ = write!(text, "{bytes}");
    json::push_key(&mut text, "error", false);
    match error {
        Some(reason) => json::push_str(&mut text, &reason),
        None => text.push_str("null"),
    }
    text.push_str("}\n");
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(verdict)
}

/// A reader that counts the bytes it gives.
struct Counted<'a, R> {
    inner: R,
    count: &'a mut u64,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        *self.count += n as u64;
        Ok(n)
    }
}

/// Why linting an input stopped.
enum Failure {
    /// The input could not be read: the reason.
    Read(String),
    /// The report could not be written.
    Write(io::Error),
}

/// The input, opened, or why it cannot be.
fn open(path: &Path) -> Result<Box<dyn Read>, String> {
    if path.as_os_str() == "-" {
        // A closed descriptor is an error, not an empty input.
        crate::descriptors::check_open(0).map_err(|e| io_message(&e))?;
        if io::stdin().is_terminal() {
            eprintln!("utf8guard: reading standard input (end it with Ctrl-D; --help for usage)");
        }
        crate::pipe::widen(io::stdin());
        return Ok(Box::new(io::stdin().lock()));
    }
    let file = File::open(path).map_err(|e| io_message(&e))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err("is a directory".into());
    }
    crate::pipe::widen(&file);
    Ok(Box::new(file))
}

/// Bytes asked of each read, and the least that a piece holds before it is
/// linted (the last piece may hold less).
const PIECE: usize = 256 << 10;

/// `true` for a continuation byte, `80..BF`.
fn is_cont(b: u8) -> bool {
    (0x80..=0xBF).contains(&b)
}

/// Lints what `reader` gives, read `piece` bytes at a time, in pieces of
/// about that size, in memory bounded by a few pieces, and gives `emit` the findings that
/// [`corrected::lint`] finds in the whole input, in order; returns the
/// input's length.
///
/// A piece ends where an item of the decoding starts, so that its items
/// are the whole input's: before a byte other than a continuation byte,
/// inside a run of stray continuation bytes (each an item of its own), or
/// inside a reserved run, whose rest is then skipped (it breaks no rule
/// and counts as one column). A piece after the first is linted after a
/// 0A byte, so that its start is not taken for the start of a document
/// (the magic number, or a prefix of it at the end of the input).
fn lint_stream(
    mut reader: impl Read,
    piece: usize,
    mut emit: impl FnMut(Finding) -> io::Result<()>,
) -> Result<u64, Failure> {
    let mut lint = Pieces {
        data: vec![b'\n'],
        base: 0,
        started: false,
        line: 1,
        column: 1,
        in_run: false,
        final_newline: None,
    };
    let mut emit = |f| emit(f).map_err(Failure::Write);
    loop {
        let len = lint.data.len();
        lint.data.resize(len + piece, 0);
        let read = loop {
            match reader.read(&mut lint.data[len..]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        lint.data.truncate(len + *read.as_ref().unwrap_or(&0));
        match read {
            Ok(0) => {
                lint.finish(&mut emit)?;
                return Ok(lint.base);
            }
            Ok(_) => {}
            Err(e) => {
                let reason = format!("read error: {}", io_message(&e));
                return Err(Failure::Read(reason));
            }
        }
        lint.skip_run();
        while lint.data.len() > piece {
            let Some((end, in_run)) = lint.cut() else {
                break;
            };
            lint.lint(end, false, &mut emit)?;
            lint.in_run = in_run;
            lint.skip_run();
        }
    }
}

/// The state of [`lint_stream`] between pieces.
struct Pieces {
    /// A 0A byte, then the input not linted yet.
    data: Vec<u8>,
    /// The offset in the input of `data[1]`.
    base: u64,
    /// A piece was linted: `data[1]` is not the start of the input.
    started: bool,
    /// Line and column of `data[1]`.
    line: usize,
    column: usize,
    /// `data[1..]` starts with the rest of a reserved run already linted.
    in_run: bool,
    /// The final-newline finding of the last piece, held back: it is the
    /// input's if the input ends there.
    final_newline: Option<Finding>,
}

impl Pieces {
    /// Drops the continuation bytes of a reserved run that a piece ended
    /// in, up to the next item.
    fn skip_run(&mut self) {
        if !self.in_run {
            return;
        }
        let run = self.data[1..].iter().take_while(|&&b| is_cont(b)).count();
        self.data.drain(1..1 + run);
        self.base += run as u64;
        self.in_run = self.data.len() == 1;
    }

    /// Where the next piece can end (an index of `data`), and whether it
    /// ends inside a reserved run; `None` when it cannot yet.
    fn cut(&self) -> Option<(usize, bool)> {
        let bytes = &self.data[1..];
        // The magic number stays whole in the first piece.
        let least = if self.started { 1 } else { 8 };
        if bytes.len() <= least {
            return None;
        }
        match bytes.iter().rposition(|&b| !is_cont(b)) {
            // Stray continuation bytes, each an item of its own.
            None => Some((bytes.len(), false)),
            Some(q) if bytes[q] >= 0xFE => Some((bytes.len() + 1, true)),
            // An item is at most 6 bytes long: the bytes after it are stray.
            Some(q) if bytes.len() > q + 8 => Some((bytes.len(), false)),
            Some(q) if q >= least => Some((q + 1, false)),
            Some(_) => None,
        }
    }

    /// Lints `data[1..end]`, the `last` piece or not, and drops it.
    fn lint(
        &mut self,
        end: usize,
        last: bool,
        emit: &mut impl FnMut(Finding) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let first = !self.started;
        self.started = true;
        self.final_newline = None;
        // The first piece as it is; the others after the 0A of data[0].
        let (bytes, shift) = if first {
            (&self.data[1..end], 0)
        } else {
            (&self.data[..end], 1)
        };
        let piece_end = self.base + (end - 1) as u64;
        let mut end_at = None;
        for mut f in corrected::lint(bytes) {
            if !first {
                if f.rule == Rule::MagicNumber {
                    continue;
                }
                // Line 1 is data[0]'s; line 2 goes on the line of data[1].
                (f.line, f.column) = if f.line == 2 {
                    (self.line, self.column + f.column - 1)
                } else {
                    (self.line + f.line - 2, f.column)
                };
            }
            f.offset = (self.base + (f.offset - shift) as u64) as usize;
            if !last {
                if f.rule == Rule::FinalNewline {
                    end_at = Some((f.line, f.column));
                    self.final_newline = Some(f);
                    continue;
                }
                // The piece ends before a byte that is not a continuation
                // byte: the sequence is cut short, not by the end.
                if f.rule == Rule::IllFormed(ErrorKind::Incomplete)
                    && (f.offset + f.len) as u64 == piece_end
                {
                    f.rule = Rule::IllFormed(ErrorKind::TooShort);
                }
            }
            emit(f)?;
        }
        // Without a final-newline finding, the piece ends after a 0A.
        let newlines = self.data[1..end].iter().filter(|&&b| b == b'\n').count();
        (self.line, self.column) = end_at.unwrap_or((self.line + newlines, 1));
        self.base = piece_end;
        self.data.drain(1..end);
        Ok(())
    }

    /// Lints the rest, at the end of the input.
    fn finish(
        &mut self,
        emit: &mut impl FnMut(Finding) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        if self.data.len() > 1 || !self.started {
            return self.lint(self.data.len(), true, emit);
        }
        // The input ended with the last piece, or in its reserved run.
        match self.final_newline.take() {
            Some(mut f) => {
                f.offset = self.base as usize;
                emit(f)
            }
            None => Ok(()),
        }
    }
}

fn render_text(name: &str, f: &Finding, out: &mut String) {
    let _ = writeln!(
        out,
        "{name}:{}:{}: {} ({}) at byte {}: {}",
        f.line,
        f.column,
        f.level(),
        f.rule.name(),
        f.offset,
        f.rule
    );
}

/// The start of an input's JSON object, up to its findings' `[`. A name
/// that is not UTF-8 is also given exactly, as hex bytes (`path_bytes`).
fn render_json_head(path: &Path, out: &mut String) {
    let bytes = path.as_os_str().as_encoded_bytes();
    let exact = std::str::from_utf8(bytes).is_ok();
    out.push('{');
    json::push_key(out, "path", true);
    json::push_str(out, &String::from_utf8_lossy(bytes));
    json::push_key(out, "path_exact", false);
    out.push_str(if exact { "true" } else { "false" });
    if !exact {
        json::push_key(out, "path_bytes", false);
        json::push_str(out, &hex(bytes));
    }
    json::push_key(out, "findings", false);
    out.push('[');
}

fn render_json_finding(f: &Finding, out: &mut String) {
    let _ = write!(
        out,
        "{{\"offset\":{},\"length\":{},\"line\":{},\"column\":{}",
        f.offset, f.len, f.line, f.column
    );
    json::push_key(out, "level", false);
    json::push_str(out, f.level().name());
    json::push_key(out, "rule", false);
    json::push_str(out, f.rule.name());
    json::push_key(out, "description", false);
    json::push_str(out, &f.rule.to_string());
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use utf8guard::corrected::MAGIC_NUMBER;

    /// A reader that gives at most `most` bytes per read.
    struct Trickle<'a> {
        bytes: &'a [u8],
        most: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.most).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    fn streamed(bytes: &[u8], piece: usize, most: usize) -> (u64, Vec<Finding>) {
        let mut found = Vec::new();
        let reader = Trickle { bytes, most };
        let Ok(len) = lint_stream(reader, piece, |f| {
            found.push(f);
            Ok(())
        }) else {
            panic!("a read or write failed");
        };
        (len, found)
    }

    /// Inputs made of the bytes that start, continue, break and end the
    /// items of Corrected UTF-8, the magic number anywhere, runs of stray
    /// continuation bytes and reserved runs: linted in pieces of any size,
    /// read in any sizes, the findings of the whole input.
    #[test]
    fn pieces_find_what_the_whole_input_has() {
        const BYTES: &[u8] = &[
            b'a', b'\n', b'\r', b'\t', 0, 0x80, 0xBF, 0xB7, 0x9D, 0xB2, 0xAE, 0xC3, 0xC0, 0xE2,
            0xED, 0xEF, 0xF0, 0xF4, 0xF8, 0xFC, 0xFE, 0xFF,
        ];
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for round in 0..4000 {
            let len = next(70);
            let mut doc = Vec::new();
            if round % 3 == 0 {
                doc.extend_from_slice(&MAGIC_NUMBER[..8 - next(3)]);
            }
            while doc.len() < len {
                match next(12) {
                    0 => doc.extend_from_slice(&MAGIC_NUMBER),
                    1 => doc.extend(std::iter::repeat_n(0x80, next(20))),
                    2 => {
                        doc.push(0xFE);
                        doc.extend(std::iter::repeat_n(0xBF, next(30)));
                    }
                    _ => doc.push(BYTES[next(BYTES.len())]),
                }
            }
            let whole = (doc.len() as u64, corrected::lint(&doc).collect::<Vec<_>>());
            for piece in [1, 2, 3, 5, 9, 17, 64] {
                for most in [1, 3, 64] {
                    assert_eq!(
                        streamed(&doc, piece, most),
                        whole,
                        "{doc:02X?}: pieces of {piece}, reads of {most}"
                    );
                }
            }
        }
    }
}
