//! `check --encoding auto` on UTF-16 and UTF-32 text that starts with its
//! byte order mark: checked as that encoding, a piece at a time, in
//! constant memory. Its errors are lone surrogates (UTF-16), surrogates and
//! values above 10FFFF (UTF-32), and an input that ends inside a code unit,
//! reported with `check`'s findings: byte offsets in the input, and lines
//! and columns counted in characters.

use std::io::{self, Read};

use utf8guard::ErrorKind;

use crate::hex::hex;
use crate::io_error::io_message;
use crate::position::{CharCounts, Cursor};
use crate::progress::Progress;
use crate::report::{Context, Finding, More, Outcome, Status, CONTEXT_BEFORE};
use crate::scan::ScanOptions;

/// UTF-16 or UTF-32 in one byte order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wide {
    /// Bytes per code unit: 2 or 4.
    pub unit: usize,
    pub big_endian: bool,
}

/// Bytes read at a time.
const PIECE: usize = 64 << 10;

impl Wide {
    /// The encoding whose byte order mark `head` starts with (UTF-32LE's
    /// mark starts like UTF-16LE's: it is looked for first).
    pub fn by_mark(head: &[u8]) -> Option<(Wide, &'static [u8])> {
        const MARKS: [(&[u8], usize, bool); 4] = [
            (b"\xFF\xFE\x00\x00", 4, false),
            (b"\x00\x00\xFE\xFF", 4, true),
            (b"\xFF\xFE", 2, false),
            (b"\xFE\xFF", 2, true),
        ];
        MARKS
            .iter()
            .find(|(mark, ..)| head.starts_with(mark))
            .map(|&(mark, unit, big_endian)| (Wide { unit, big_endian }, mark))
    }

    /// The encoding's name in reports: `UTF-16LE`, ...
    pub fn title(self) -> &'static str {
        match (self.unit, self.big_endian) {
            (2, false) => "UTF-16LE",
            (2, true) => "UTF-16BE",
            (_, false) => "UTF-32LE",
            (_, true) => "UTF-32BE",
        }
    }

    /// The encoding's name in JSON: `utf-16le`, ...
    pub fn name(self) -> &'static str {
        match (self.unit, self.big_endian) {
            (2, false) => "utf-16le",
            (2, true) => "utf-16be",
            (_, false) => "utf-32le",
            (_, true) => "utf-32be",
        }
    }

    /// The unit at the start of `bytes` (which has one).
    fn unit_at(self, bytes: &[u8]) -> u32 {
        let mut value = 0;
        for k in 0..self.unit {
            let b = if self.big_endian {
                bytes[k]
            } else {
                bytes[self.unit - 1 - k]
            };
            value = value << 8 | u32::from(b);
        }
        value
    }

    /// The cause of an error of this encoding, in a few words.
    pub fn describe(self, kind: ErrorKind) -> String {
        match kind {
            ErrorKind::LoneSurrogate => "surrogate that is not half of a surrogate pair".into(),
            ErrorKind::Surrogate => "surrogate code point, which is not a character".into(),
            ErrorKind::TooLarge => "code point above U+10FFFF".into(),
            ErrorKind::Incomplete => format!("input ends inside a {}-byte code unit", self.unit),
            other => other.description().into(),
        }
    }

    /// The cause in words, naming the bytes involved.
    pub fn explain(self, f: &Finding) -> String {
        let bytes = f.invalid_bytes();
        let shown = hex(bytes);
        if f.kind == ErrorKind::Incomplete && bytes.len() == 3 {
            let lead = self.unit_at(bytes);
            return format!(
                "{} is a lead surrogate, U+{lead:04X}, and the input ends inside the next \
                 2-byte code unit: {:02X}",
                hex(&bytes[..2]),
                bytes[2]
            );
        }
        if f.kind == ErrorKind::Incomplete || bytes.len() < self.unit {
            return format!(
                "the input ends inside a {}-byte code unit: {shown}",
                self.unit
            );
        }
        let value = self.unit_at(bytes);
        match f.kind {
            ErrorKind::LoneSurrogate if value < 0xDC00 => format!(
                "{shown} is a lead surrogate, U+{value:04X}, not followed by a trail surrogate \
                 (DC00..DFFF): {} has surrogates only in pairs",
                self.title()
            ),
            ErrorKind::LoneSurrogate => format!(
                "{shown} is a trail surrogate, U+{value:04X}, with no lead surrogate \
                 (D800..DBFF) before it: {} has surrogates only in pairs",
                self.title()
            ),
            ErrorKind::Surrogate => format!(
                "{shown} is U+{value:04X}, a surrogate code point (D800..DFFF), which {} does \
                 not hold",
                self.title()
            ),
            _ => format!("{shown} is {value:X}, above 10FFFF, the highest code point"),
        }
    }

    /// Checks `reader`, the whole input (byte order mark included), into
    /// `outcome`.
    pub fn check(
        self,
        mut reader: impl Read,
        mut outcome: Outcome,
        opts: &ScanOptions,
        progress: &Progress,
    ) -> Outcome {
        let mut scan = Scan {
            wide: self,
            at: Cursor::default(),
            findings: Vec::new(),
            max: opts.max_errors.max(1),
            more: More::No,
            counts: CharCounts::default(),
        };
        // `buf[..kept]`: the last bytes checked (context for a finding),
        // then those not yet checked; `buf_start` is the offset of
        // `buf[0]` in the input.
        let mut buf: Vec<u8> = Vec::with_capacity(PIECE + 16);
        let mut kept = 0;
        let mut buf_start = 0u64;
        let mut read_total = 0u64;
        let mut piece = vec![0u8; PIECE];
        loop {
            let n = match reader.read(&mut piece) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    outcome.bytes = read_total;
                    outcome.status = Status::Failed(format!("read error: {}", io_message(&e)));
                    return outcome;
                }
            };
            progress.inc(n as u64);
            read_total += n as u64;
            let eof = n == 0;
            // The context of the findings that still lack bytes after them.
            for f in scan
                .findings
                .iter_mut()
                .rev()
                .take(crate::report::CONTEXT_WIDTH)
            {
                let missing = f.context_missing().min(n);
                f.context.extend(&piece[..missing]);
            }
            buf.extend_from_slice(&piece[..n]);
            let done = scan.run(&buf, kept, buf_start, eof);
            let stop = scan.full(opts.look_for_more);
            if eof || stop {
                outcome.bytes = read_total;
                outcome.counts = scan.counts;
                outcome.status = if scan.findings.is_empty() {
                    Status::Valid
                } else {
                    let more = if stop && !eof && scan.more == More::No {
                        More::Unknown
                    } else {
                        scan.more
                    };
                    Status::Invalid {
                        findings: scan.findings,
                        more,
                    }
                };
                return outcome;
            }
            // Keep the context before the next unit, and what is left.
            let keep_from = done.saturating_sub(CONTEXT_BEFORE);
            buf.drain(..keep_from);
            buf_start += keep_from as u64;
            kept = done - keep_from;
        }
    }
}

/// The state of a check.
struct Scan {
    wide: Wide,
    /// Line and column of the next unit.
    at: Cursor,
    findings: Vec<Finding>,
    /// Findings to report.
    max: usize,
    /// Whether errors follow the last one reported.
    more: More,
    /// The characters of the valid text.
    counts: CharCounts,
}

impl Scan {
    /// Enough is known: the findings to report, and, when `look_for_more`,
    /// whether more follow.
    fn full(&self, look_for_more: bool) -> bool {
        self.findings.len() >= self.max && (!look_for_more || self.more == More::Yes)
    }

    /// Records an error at `buf[i..]`, `len` bytes long (`None`: to the
    /// end), or that more follow the ones to report.
    fn found(&mut self, buf: &[u8], buf_start: u64, i: usize, len: Option<usize>, kind: ErrorKind) {
        if self.findings.len() >= self.max {
            self.more = More::Yes;
            return;
        }
        let start = i.saturating_sub(CONTEXT_BEFORE);
        let end = buf.len().min(start + crate::report::CONTEXT_WIDTH);
        self.findings.push(Finding {
            offset: buf_start + i as u64,
            len,
            kind,
            at: self.at,
            context_start: buf_start + start as u64,
            context: Context::new(&buf[start..end]),
        });
        self.at.advance_invalid();
    }

    /// Moves the cursor past the character `c`.
    fn advance(&mut self, c: u32) {
        let len = usize::from(c >= 0x80) + usize::from(c >= 0x800) + usize::from(c >= 0x1_0000);
        self.counts.by_len[len] += 1;
        if c == u32::from(b'\n') {
            self.at.line += 1;
            self.at.column = 0;
        } else {
            self.at.column += 1;
        }
    }

    /// Checks `buf[from..]`; returns where it stopped (the end, but for a
    /// unit cut short, or a lead surrogate whose partner is not read yet,
    /// when not `eof`).
    fn run(&mut self, buf: &[u8], from: usize, buf_start: u64, eof: bool) -> usize {
        let unit = self.wide.unit;
        let mut i = from;
        while i + unit <= buf.len() {
            if self.findings.len() >= self.max && self.more == More::Yes {
                return i;
            }
            let u = self.wide.unit_at(&buf[i..]);
            if unit == 4 {
                match u {
                    0xD800..=0xDFFF => self.found(buf, buf_start, i, Some(4), ErrorKind::Surrogate),
                    0x11_0000.. => self.found(buf, buf_start, i, Some(4), ErrorKind::TooLarge),
                    _ => self.advance(u),
                }
                i += 4;
                continue;
            }
            match u {
                0xD800..=0xDBFF => {
                    if i + 4 > buf.len() && !eof {
                        // Its partner may come with the next piece.
                        return i;
                    }
                    if eof && buf.len() - i == 3 {
                        // A lead surrogate, then a last odd byte: one error,
                        // as the repair (one U+FFFD) and CPython's decoder
                        // see it, not a lone surrogate and a cut unit.
                        self.found(buf, buf_start, i, None, ErrorKind::Incomplete);
                        return buf.len();
                    }
                    let next = buf.get(i + 2..i + 4).map(|n| self.wide.unit_at(n));
                    if next.is_some_and(|n| (0xDC00..0xE000).contains(&n)) {
                        self.advance(0x10000);
                        i += 4;
                    } else {
                        self.found(buf, buf_start, i, Some(2), ErrorKind::LoneSurrogate);
                        i += 2;
                    }
                }
                0xDC00..=0xDFFF => {
                    self.found(buf, buf_start, i, Some(2), ErrorKind::LoneSurrogate);
                    i += 2;
                }
                _ => {
                    self.advance(u);
                    i += 2;
                }
            }
        }
        if eof && i < buf.len() {
            self.found(buf, buf_start, i, None, ErrorKind::Incomplete);
            i = buf.len();
        }
        i
    }
}
