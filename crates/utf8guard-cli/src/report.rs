//! What is found in one input, and how it is shown: text for people, JSON
//! for programs.

use std::fmt::Write;
use std::path::Path;

use rayon::prelude::*;

use utf8guard::{Dialect, ErrorKind};

use crate::family;
use crate::hex::hex;
use crate::json;
use crate::position::{CharCounts, Cursor};
use crate::sniff::{self, Nature};
use crate::wide::Wide;

/// Bytes of context shown before an error, when the input has them.
pub const CONTEXT_BEFORE: usize = 8;
/// Bytes of context shown in all: the error, and what follows it.
pub const CONTEXT_WIDTH: usize = 16;

/// Findings rendered into one piece of a report: a few hundred KiB of
/// text, enough to make handing pieces to the threads and writing them
/// cost little.
const FINDINGS_PER_PIECE: usize = 2048;

/// The bytes around an error, kept inline: a report may hold up to a
/// million findings.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Context {
    bytes: [u8; CONTEXT_WIDTH],
    len: u8,
}

impl Context {
    /// The first [`CONTEXT_WIDTH`] bytes of `bytes`.
    pub fn new(bytes: &[u8]) -> Context {
        let mut context = Context {
            bytes: [0; CONTEXT_WIDTH],
            len: 0,
        };
        context.extend(bytes);
        context
    }

    /// Appends as much of `more` as fits.
    pub fn extend(&mut self, more: &[u8]) {
        let len = usize::from(self.len);
        let take = more.len().min(CONTEXT_WIDTH - len);
        self.bytes[len..len + take].copy_from_slice(&more[..take]);
        self.len += take as u8;
    }
}

impl std::ops::Deref for Context {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:02X?}", &**self)
    }
}

/// One invalid sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Byte offset of the first invalid byte: bytes before it are valid
    /// (since the previous finding).
    pub offset: u64,
    /// Length of the invalid sequence; `None` when the input ends inside a
    /// sequence.
    pub len: Option<usize>,
    /// Why it is invalid.
    pub kind: ErrorKind,
    /// Line and column of `offset`.
    pub at: Cursor,
    /// Offset of `context[0]` in the input.
    pub context_start: u64,
    /// Bytes around the error: up to [`CONTEXT_BEFORE`] before it, and up
    /// to [`CONTEXT_WIDTH`] in all.
    pub context: Context,
}

impl Finding {
    /// The finding for the error at `offset` in `input`, which is all in
    /// memory.
    pub fn in_slice(
        input: &[u8],
        offset: usize,
        len: Option<usize>,
        kind: ErrorKind,
        at: Cursor,
    ) -> Finding {
        let start = offset - offset.min(CONTEXT_BEFORE);
        let end = input.len().min(start + CONTEXT_WIDTH);
        Finding {
            offset: offset as u64,
            len,
            kind,
            at,
            context_start: start as u64,
            context: Context::new(&input[start..end]),
        }
    }

    /// How many more context bytes after the error would fill the window.
    pub fn context_missing(&self) -> usize {
        CONTEXT_WIDTH - self.context.len()
    }

    /// Index of the first invalid byte in `context`.
    fn at_in_context(&self) -> usize {
        (self.offset - self.context_start) as usize
    }

    /// The invalid bytes: the sequence of `len` bytes, or for an input that
    /// ends inside a sequence, the bytes from `offset` to the end.
    pub fn invalid_bytes(&self) -> &[u8] {
        let at = self.at_in_context();
        match self.len {
            Some(n) => &self.context[at..(at + n).min(self.context.len())],
            None => &self.context[at..],
        }
    }

    /// The byte after the invalid sequence, if the input has one.
    fn next_byte(&self) -> Option<u8> {
        let after = self.at_in_context() + self.len?;
        self.context.get(after).copied()
    }

    /// The cause in words, naming the bytes involved, for an error of
    /// dialect `d`.
    pub fn explanation(&self, d: Dialect) -> String {
        let bytes = self.invalid_bytes();
        let hex = hex(bytes);
        let first = bytes.first().copied().unwrap_or(0);
        let name = family::title(d);
        // For these kinds the invalid sequence is the lead byte alone; the
        // byte after it is the one out of range.
        let second = self.next_byte().unwrap_or(0);
        match self.kind {
            ErrorKind::UnexpectedContinuation => format!(
                "{first:02X} is a continuation byte (80..BF) where a character must start"
            ),
            ErrorKind::InvalidByte if first == 0xC0 || first == 0xC1 => format!(
                "{first:02X} never appears in {name}: it could only start an overlong 2-byte form"
            ),
            ErrorKind::InvalidByte => match d {
                Dialect::Cesu8 | Dialect::Mutf8 => format!(
                    "{first:02X} never appears in {name}, which has no sequences of 4 bytes \
                     or more (but surrogate pairs of two 3-byte sequences)"
                ),
                Dialect::Rfc2279 => format!(
                    "{first:02X} never appears in {name}, which has no sequences of 7 bytes \
                     or more"
                ),
                // FE and FF never encoded anything, even in RFC 2279.
                _ if first >= 0xFE => format!(
                    "{first:02X} never appears in {name}: FE and FF start no sequence, not \
                     even in RFC 2279"
                ),
                _ => format!(
                    "{first:02X} never appears in {name} (F5..FD would start sequences for \
                     values above U+10FFFF)"
                ),
            },
            ErrorKind::Overlong => match first {
                0xC0 => format!(
                    "C0 {second:02X} would encode a code point below U+0080 in 2 bytes \
                     (only C0 80, for U+0000, is allowed)"
                ),
                0xE0 => format!(
                    "E0 {second:02X} would encode a code point below U+0800 in 3 bytes (after E0 comes A0..BF)"
                ),
                0xF8 => format!(
                    "F8 {second:02X} would encode a code point below U+200000 in 5 bytes \
                     (after F8 comes 88..BF)"
                ),
                0xFC => format!(
                    "FC {second:02X} would encode a code point below U+4000000 in 6 bytes \
                     (after FC comes 84..BF)"
                ),
                _ => format!(
                    "F0 {second:02X} would encode a code point below U+10000 in 4 bytes (after F0 comes 90..BF)"
                ),
            },
            ErrorKind::Surrogate => format!(
                "ED {second:02X} would encode a UTF-16 surrogate, U+D800..U+DFFF (after ED comes 80..9F)"
            ),
            ErrorKind::TooLarge => format!(
                "F4 {second:02X} would encode a code point above U+10FFFF (after F4 comes 80..8F)"
            ),
            ErrorKind::TooShort => {
                let expected = sequence_name(d, bytes);
                match self.next_byte() {
                    Some(next) => format!(
                        "{hex} starts a {expected}, but the next byte, {next:02X}, \
                         is not a continuation byte (80..BF)"
                    ),
                    None => format!("{hex} starts a {expected} that is cut short"),
                }
            }
            ErrorKind::Incomplete if d == Dialect::Corrected && first == 0x00 => format!(
                "the input ends inside the magic number {}: {hex}",
                crate::hex::hex(&family::MAGIC)
            ),
            ErrorKind::Incomplete => format!(
                "the input ends inside a {}: {hex}",
                sequence_name(d, bytes)
            ),
            ErrorKind::Nul => match d {
                Dialect::Mutf8 => {
                    "00 never appears in modified UTF-8, which writes U+0000 as C0 80".to_owned()
                }
                Dialect::Corrected => format!(
                    "00 appears in Corrected UTF-8 only inside the magic number {} at the \
                     start of the input",
                    crate::hex::hex(&family::MAGIC)
                ),
                _ => format!("00 never appears in {name}"),
            },
            ErrorKind::LoneSurrogate => self.lone_surrogate(name),
            ErrorKind::SurrogatePair => self.surrogate_pair(),
            ErrorKind::FourByteForm => self.four_byte_form(name),
            _ => format!("{hex}: {}", self.kind.description()),
        }
    }

    /// The bytes from the first invalid one to the end of the context.
    fn rest(&self) -> &[u8] {
        &self.context[self.at_in_context()..]
    }

    /// A CESU-8 surrogate that is not half of a pair: a trail with no lead
    /// before it, or a lead not followed by a trail.
    fn lone_surrogate(&self, name: &str) -> String {
        let bytes = self.invalid_bytes();
        match *self.rest() {
            [0xED, b @ 0xB0..=0xBF, ..] => format!(
                "ED {b:02X} starts a trail surrogate (U+DC00..U+DFFF) with no lead surrogate \
                 before it: {name} has surrogates only in pairs"
            ),
            [0xED, b @ 0xA0..=0xAF, c, ..] => {
                let lead = surrogate(b, c);
                let lead_hex = hex(&bytes[..bytes.len().min(3)]);
                if bytes.len() > 3 {
                    format!(
                        "{lead_hex} is a lead surrogate, U+{lead:04X}, and the ED after it does \
                         not start a trail surrogate (ED B0..BF): {name} has surrogates only \
                         in pairs"
                    )
                } else {
                    format!(
                        "{lead_hex} is a lead surrogate, U+{lead:04X}, not followed by a trail \
                         surrogate (ED B0..BF 80..BF): {name} has surrogates only in pairs"
                    )
                }
            }
            _ => format!("{}: {}", hex(bytes), self.kind.description()),
        }
    }

    /// In WTF-8, a trail surrogate right after a lead surrogate.
    fn surrogate_pair(&self) -> String {
        let at = self.at_in_context();
        let lead = at.checked_sub(3).map(|i| &self.context[i..at]);
        let trail = &self.rest()[..self.rest().len().min(3)];
        match (lead, trail) {
            (Some(&[0xED, l1, l2]), &[0xED, t1, t2]) => {
                let (high, low) = (surrogate(l1, l2), surrogate(t1, t2));
                let cp = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                let form = char::from_u32(cp).map_or_else(String::new, |c| {
                    format!(", {} for {}", utf8_hex(c), show(c))
                });
                format!(
                    "{} is a trail surrogate, U+{low:04X}, right after the lead surrogate {}, \
                     U+{high:04X}: WTF-8 requires the pair's 4-byte form{form}",
                    hex(trail),
                    hex(lead.unwrap_or_default())
                )
            }
            _ => format!(
                "{} starts a trail surrogate right after a lead surrogate: WTF-8 requires \
                 the pair's 4-byte form",
                hex(trail)
            ),
        }
    }

    /// In CESU-8 or modified UTF-8, a lead byte of a 4-byte form.
    fn four_byte_form(&self, name: &str) -> String {
        let rest = self.rest();
        let form = rest.get(..4).and_then(|b| std::str::from_utf8(b).ok());
        match form.and_then(|s| s.chars().next()) {
            Some(c) => {
                let cp = c as u32 - 0x10000;
                let pair: Vec<u8> = [0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF)]
                    .into_iter()
                    .flat_map(|s| {
                        [
                            0xE0 | (s >> 12) as u8,
                            0x80 | (s >> 6 & 0x3F) as u8,
                            0x80 | (s & 0x3F) as u8,
                        ]
                    })
                    .collect();
                format!(
                    "{} is the 4-byte form of {}, which {name} does not have: it writes a \
                     supplementary character as a surrogate pair, here {}",
                    hex(&rest[..4]),
                    show(c),
                    hex(&pair)
                )
            }
            None => format!(
                "{:02X} starts a 4-byte form, which {name} does not have: it writes a \
                 supplementary character as a surrogate pair (ED A0..AF 80..BF ED B0..BF 80..BF)",
                rest.first().copied().unwrap_or(0)
            ),
        }
    }
}

impl Finding {
    /// A likely cause, when the bytes match a common mix-up: text in
    /// Windows-1252 or Latin-1, an emoji in CESU-8 (surrogates encoded one
    /// by one), an overlong form hiding an ASCII character, modified
    /// UTF-8's `C0 80`, a 5- or 6-byte form; `d` is the dialect checked.
    pub fn hint(&self, d: Dialect) -> Option<String> {
        let at = self.at_in_context();
        let rest = &self.context[at..];
        let first = *rest.first()?;
        let cont = |b: u8| b & 0xC0 == 0x80;
        let low6 = |b: u8| u32::from(b & 0x3F);
        let name = family::title(d);
        // ED A0..AF xx ED B0..BF yy: a high and a low surrogate.
        if let [0xED, hi @ 0xA0..=0xAF, h2, 0xED, lo @ 0xB0..=0xBF, l2, ..] = *rest {
            if cont(h2) && cont(l2) {
                let high = 0xD000 | low6(hi) << 6 | low6(h2);
                let low = 0xD000 | low6(lo) << 6 | low6(l2);
                let cp = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                let c = char::from_u32(cp)?;
                return Some(format!(
                    "{} is a UTF-16 surrogate pair encoded as two 3-byte sequences \
                     (CESU-8, as Java's modified UTF-8 and MySQL's utf8mb3 write it); \
                     {} is {} in UTF-8",
                    hex(&rest[..6]),
                    show(c),
                    utf8_hex(c)
                ));
            }
        }
        // The 5- and 6-byte forms of RFC 2279 and Corrected UTF-8.
        if !family::has_long_forms(d) {
            let len = match first {
                0xF8..=0xFB => 5,
                0xFC..=0xFD => 6,
                _ => 0,
            };
            if len > 0 && rest.len() >= len && rest[1..len].iter().all(|&b| cont(b)) {
                return Some(format!(
                    "{} is a {len}-byte sequence, an RFC 2279 / Corrected UTF-8 form, which \
                     {name} does not have (--encoding rfc2279 or corrected-utf-8 reads it)",
                    hex(&rest[..len])
                ));
            }
        }
        if let [0xC0, 0x80, ..] = *rest {
            return Some(format!(
                "C0 80 is modified UTF-8's U+0000 (an overlong form, as Java writes it); \
                 U+0000 is 00 in {name}"
            ));
        }
        // Overlong forms: the value they hide.
        let overlong = match *rest {
            [b @ (0xC0 | 0xC1), c1, ..] if cont(c1) => {
                Some((2, u32::from(b & 0x1F) << 6 | low6(c1)))
            }
            [0xE0, c1 @ 0x80..=0x9F, c2, ..] if cont(c2) => Some((3, low6(c1) << 6 | low6(c2))),
            [0xF0, c1 @ 0x80..=0x8F, c2, c3, ..] if cont(c2) && cont(c3) => {
                Some((4, low6(c1) << 12 | low6(c2) << 6 | low6(c3)))
            }
            _ => None,
        };
        if let Some((len, cp)) = overlong {
            let c = char::from_u32(cp)?;
            return Some(format!(
                "{} is an overlong form of {}, which is {} in {name}",
                hex(&rest[..len]),
                show(c),
                utf8_hex(c)
            ));
        }
        // A lone non-ASCII byte between ASCII bytes, or two in a row among
        // mostly ASCII letters: accented letters of text in Latin-1 or
        // Windows-1252, as in "Jos\xE9 M\xFCller" or "Gr\xFC\xDFe". Runs of
        // three or more, or of two among more non-ASCII bytes than ASCII
        // letters, are the letters of another script in its 8-bit code page
        // (Cyrillic in Windows-1251 or KOI8-R, Greek, Hebrew, ...): naming
        // Latin-1 there would mislead.
        let before = at.checked_sub(1).map(|i| self.context[i]);
        let after = rest.get(1).copied();
        // Letters of those scripts sit at C0..FF in their code pages; a
        // continuation byte next to the error is UTF-8 gone wrong instead.
        let letter_or_ascii = |b: Option<u8>| b.is_none_or(|b| !(0x80..0xC0).contains(&b));
        let context = &self.context[..];
        let run_start = context[..at]
            .iter()
            .rposition(|&b| b < 0x80)
            .map_or(0, |i| i + 1);
        let run_end = context[at..]
            .iter()
            .position(|&b| b < 0x80)
            .map_or(context.len(), |i| at + i);
        let non_ascii = context.iter().filter(|&&b| b >= 0x80).count();
        let letters = context.iter().filter(|b| b.is_ascii_alphabetic()).count();
        let run = run_end - run_start;
        let another_script = run >= 3 || (run == 2 && non_ascii > letters);
        let among_letters = letter_or_ascii(before) && letter_or_ascii(after);
        if self.len == Some(1) && first >= 0xC0 && among_letters && another_script {
            return Some(
                "non-ASCII bytes in a row that are not UTF-8: is the file in an 8-bit \
                 encoding for another script (a Windows or ISO 8859 code page, KOI8-R)?"
                    .to_owned(),
            );
        }
        if self.len == Some(1) && first >= 0x80 && among_letters && !another_script {
            let c = windows_1252(first)?;
            let which = if first >= 0xA0 {
                "Latin-1 or Windows-1252"
            } else {
                "Windows-1252"
            };
            return Some(format!(
                "in {which}, {first:02X} is {}: is the file in that encoding? If so, \
                 `utf8guard convert --from windows-1252 --to utf-8` converts it (or \
                 `utf8guard repair -r windows-1252`, for a file that mixes the two)",
                show(c)
            ));
        }
        None
    }
}

/// The character a Windows-1252 byte stands for (Latin-1 from A0 on);
/// `None` for the five bytes it leaves undefined.
fn windows_1252(byte: u8) -> Option<char> {
    const C1: [u16; 32] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
        0x0152, 0, 0x017D, 0, 0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC,
        0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ];
    match byte {
        0x80..=0x9F => match C1[usize::from(byte - 0x80)] {
            0 => None,
            cp => char::from_u32(u32::from(cp)),
        },
        _ => Some(char::from(byte)),
    }
}

/// A character for a message: `U+00E9 'é'`, or only the code point for
/// controls and invisible characters.
fn show(c: char) -> String {
    let visible = !c.is_control() && !c.is_whitespace() && c != '\u{AD}';
    if visible {
        format!("U+{:04X} '{c}'", c as u32)
    } else {
        format!("U+{:04X}", c as u32)
    }
}

fn utf8_hex(c: char) -> String {
    let mut buf = [0u8; 4];
    hex(c.encode_utf8(&mut buf).as_bytes())
}

/// What the invalid `bytes` of dialect `d` start: "3-byte sequence", or
/// in CESU-8 "6-byte surrogate pair" (a lead surrogate starts one).
fn sequence_name(d: Dialect, bytes: &[u8]) -> String {
    if let (Dialect::Cesu8, [0xED, 0xA0..=0xAF, ..]) = (d, bytes) {
        return "6-byte surrogate pair".to_owned();
    }
    let len = match bytes.first().copied().unwrap_or(0) {
        0xFC.. => 6,
        0xF8.. => 5,
        0xF0.. => 4,
        0xE0.. => 3,
        _ => 2,
    };
    format!("{len}-byte sequence")
}

/// The surrogate code point of `ED b c`.
fn surrogate(b: u8, c: u8) -> u32 {
    0xD000 | u32::from(b & 0x3F) << 6 | u32::from(c & 0x3F)
}

/// Whether more errors follow the last one reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum More {
    /// None: the input was read to its end.
    No,
    /// At least one more: the limit on reported errors cut the report.
    Yes,
    /// Not known: reading a stream stopped when the report was full.
    Unknown,
}

/// What limits the errors reported per input, for the line that says more
/// errors follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The default: the first error only.
    First,
    /// `--max-errors N`.
    MaxErrors(usize),
    /// `--all`, which stops at [`crate::args::check::ALL_LIMIT`] errors.
    All,
}

impl Limit {
    /// The line after the last error reported, when more follow or may
    /// follow; `None` when there is nothing to say.
    fn more_line(self, more: More) -> Option<String> {
        let limit = match self {
            Limit::First => "--all or --max-errors N shows them".to_owned(),
            Limit::MaxErrors(n) => format!("the report stops at --max-errors {n}"),
            Limit::All => format!(
                "--all stops at {} errors per input",
                crate::args::check::ALL_LIMIT
            ),
        };
        match more {
            More::No => None,
            More::Yes => Some(format!("more errors follow ({limit})")),
            More::Unknown => Some(format!(
                "more errors may follow: reading stopped here ({limit})"
            )),
        }
    }
}

/// The result of checking one input.
#[derive(Debug)]
pub enum Status {
    /// Well-formed UTF-8.
    Valid,
    /// Not UTF-8: the errors found, in order, and whether more exist past
    /// the limit on reported errors.
    Invalid { findings: Vec<Finding>, more: More },
    /// The input could not be read (or not entirely).
    Failed(String),
}

/// The report on one input.
#[derive(Debug)]
pub struct Outcome {
    /// The name shown: the path as given or found, as its bytes (which
    /// need not be UTF-8), or `-` for standard input (as it is named on
    /// the command line).
    pub name: Vec<u8>,
    /// `false` when the path is not valid Unicode: JSON then shows a lossy
    /// copy of `name`.
    pub name_exact: bool,
    /// Bytes in the input (or read before a failure).
    pub bytes: u64,
    /// Characters in the well-formed parts that were scanned.
    pub counts: CharCounts,
    /// The verdict.
    pub status: Status,
    /// What an invalid input is, when its first bytes tell (binary data,
    /// UTF-16 text): said once, instead of a hint per error.
    pub nature: Option<Nature>,
    /// The member of the UTF-8 family it was checked as.
    pub dialect: Dialect,
    /// It starts with Corrected UTF-8's magic number.
    pub magic_number: bool,
    /// In Corrected UTF-8, the offset of the first reserved `FE`/`FF` run
    /// in the part checked: up to the end of the last error reported, or
    /// all of the input when no more errors follow.
    pub reserved_run: Option<u64>,
    /// For an invalid input: the other dialects that accept all of it,
    /// from the most specific (empty when not looked for).
    pub valid_in: Vec<Dialect>,
    /// What `--encoding auto` noted when it chose the encoding (a UTF-8
    /// byte order mark), shown as a note.
    pub note: Option<String>,
    /// Checked as UTF-16 or UTF-32 (`--encoding auto`, by its byte order
    /// mark) rather than as `dialect`.
    pub wide: Option<Wide>,
}

impl Outcome {
    /// An input that could not be read at all.
    pub fn failed(path: &Path, message: String) -> Outcome {
        let mut outcome = Outcome::named(path);
        outcome.status = Status::Failed(message);
        outcome
    }

    /// A valid, empty outcome for `path`, to be filled in.
    pub fn named(path: &Path) -> Outcome {
        #[cfg(unix)]
        let name = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
        #[cfg(not(unix))]
        let name = path.to_string_lossy().into_owned().into_bytes();
        Outcome {
            name_exact: path.to_str().is_some(),
            name,
            bytes: 0,
            counts: CharCounts::default(),
            status: Status::Valid,
            nature: None,
            dialect: Dialect::Utf8,
            magic_number: false,
            reserved_run: None,
            valid_in: Vec::new(),
            note: None,
            wide: None,
        }
    }

    /// Looks at the first bytes of an input: for Corrected UTF-8's magic
    /// number, and, when it was found invalid, to tell text in an 8-bit
    /// encoding from binary data or UTF-16 text.
    pub fn look_at_head(&mut self, head: &[u8]) {
        self.magic_number = head.starts_with(&family::MAGIC);
        if matches!(self.status, Status::Invalid { .. }) {
            // The magic number declares Corrected UTF-8 text: its 00 byte
            // does not make the input binary data.
            let text = if self.magic_number {
                &head[family::MAGIC.len()..]
            } else {
                head
            };
            self.nature = sniff::sniff(text);
        }
    }

    /// Where the part of the input that was checked for errors (and
    /// reserved runs) ends: the end of the last error reported when more
    /// errors follow or may follow (the rest was not, or not wholly, read),
    /// else the end of the input.
    pub fn checked_up_to(&self) -> u64 {
        match &self.status {
            Status::Invalid {
                findings,
                more: More::Yes | More::Unknown,
            } => findings
                .last()
                .map_or(0, |f| f.offset + f.len.unwrap_or(0) as u64),
            _ => self.bytes,
        }
    }

    /// The hints for the `i`th finding: what the input is, on the first
    /// one, when its start tells, otherwise the finding's own hint; then, on
    /// the first one, which other dialects accept the whole input (or that
    /// it starts with Corrected UTF-8's magic number).
    fn hints(&self, i: usize, f: &Finding) -> Vec<String> {
        if self.wide.is_some() {
            return Vec::new();
        }
        let own = match self.nature {
            Some(nature) => (i == 0).then(|| nature.to_string()),
            None => f.hint(self.dialect),
        };
        let family = (i == 0)
            .then(|| family::input_hint(self.dialect, &self.valid_in, self.magic_number))
            .flatten();
        own.into_iter().chain(family).collect()
    }

    /// The name of the encoding checked, in reports.
    fn title(&self) -> &'static str {
        self.wide.map_or(family::title(self.dialect), Wide::title)
    }

    /// The cause of finding `f`, in a few words.
    fn describe(&self, f: &Finding) -> String {
        match self.wide {
            Some(wide) => wide.describe(f.kind),
            None => family::describe(f.kind, self.dialect),
        }
    }

    /// The cause of finding `f`, naming its bytes.
    fn explanation(&self, f: &Finding) -> String {
        match self.wide {
            Some(wide) => wide.explain(f),
            None => f.explanation(self.dialect),
        }
    }

    /// A valid, empty outcome for standard input, to be filled in.
    pub fn stdin() -> Outcome {
        Outcome::named(Path::new("-"))
    }

    /// The diagnostics for people: for an invalid input, three lines per
    /// error (position and kind, the cause, the bytes around it in hex with
    /// a marker); in Corrected UTF-8, a note on the magic number and the
    /// first reserved run, when the input has them; else nothing. (The
    /// command writes it as it is made: `render_text_in_pieces`.)
    #[cfg(test)]
    pub fn render_text(&self, limit: Limit, out: &mut Vec<u8>) {
        self.render_text_in_pieces(limit, |piece| {
            out.extend_from_slice(piece);
            true
        });
    }

    /// The text report (as `render_text` makes it) handed to `write` a
    /// piece at a time, in order, so that the report of an input with many
    /// errors (up to a million with `--all`, some 400 MiB of text) is never
    /// held whole. With more than one thread in the rayon pool (`--jobs`), the
    /// pieces of a round are made on all of them: `--all` on 200 MiB of
    /// Latin-1 text spends nearly all its time making the report. Stops,
    /// with `false`, as soon as `write` returns `false`.
    pub fn render_text_in_pieces(
        &self,
        limit: Limit,
        mut write: impl FnMut(&[u8]) -> bool,
    ) -> bool {
        if let Status::Invalid { findings, more } = &self.status {
            let render = |first: usize, some: &[Finding], out: &mut Vec<u8>| {
                self.render_findings(first, some, out);
            };
            if !in_rounds(findings, render, &mut write) {
                return false;
            }
            if let Some(line) = limit.more_line(*more) {
                let mut out = self.name.clone();
                out.extend_from_slice(format!(": {line}\n").as_bytes());
                if !write(&out) {
                    return false;
                }
            }
        }
        for note in self.note.clone().into_iter().chain(self.corrected_note()) {
            let mut out = self.name.clone();
            out.extend_from_slice(format!(": note: {note}\n").as_bytes());
            if !write(&out) {
                return false;
            }
        }
        true
    }

    /// In Corrected UTF-8, what the check learned besides the errors: that
    /// the input starts with the magic number, where its first reserved
    /// run is; `None` when neither.
    fn corrected_note(&self) -> Option<String> {
        if self.dialect != Dialect::Corrected {
            return None;
        }
        let magic = self
            .magic_number
            .then(|| format!("starts with the magic number {}", hex(&family::MAGIC)));
        let run = self.reserved_run.map(|at| {
            format!("first reserved FE/FF run at byte {at} (kept for future use, not an error)")
        });
        match (magic, run) {
            (Some(magic), Some(run)) => Some(format!("{magic}; {run}")),
            (magic, run) => magic.or(run),
        }
    }

    /// The text of `findings`, the first of which is the input's finding
    /// number `first` (from 0: the first one has hints of its own).
    fn render_findings(&self, first: usize, findings: &[Finding], out: &mut Vec<u8>) {
        let mut text = String::new();
        for (i, f) in (first..).zip(findings) {
            out.extend_from_slice(&self.name);
            let _ = writeln!(
                text,
                ":{}:{}: invalid {} at byte {}: {}",
                f.at.line_number(),
                f.at.column_number(),
                self.title(),
                f.offset,
                self.describe(f)
            );
            let _ = writeln!(text, "  {}", self.explanation(f));
            for hint in self.hints(i, f) {
                let _ = writeln!(text, "  hint: {hint}");
            }
            render_hex(f, &mut text);
            out.extend_from_slice(text.as_bytes());
            text.clear();
        }
    }

    /// The JSON object for this input, on one line (see `--help`), with the
    /// `encoding` field when `encoding` is given (`--encoding`). (The
    /// command writes it as it is made: `render_json_in_pieces`.)
    #[cfg(test)]
    pub fn render_json(&self, encoding: Option<Dialect>, out: &mut String) {
        let mut bytes = Vec::new();
        self.render_json_in_pieces(encoding, |piece| {
            bytes.extend_from_slice(piece);
            true
        });
        out.push_str(&String::from_utf8_lossy(&bytes));
    }

    /// The JSON object (as `render_json` makes it) handed to `write` a piece
    /// at a time, in order, as the text report is: the line of an input
    /// with a million errors (`--all`), some 400 MiB, is never held whole.
    /// Stops, with `false`, as soon as `write` returns `false`.
    pub fn render_json_in_pieces(
        &self,
        encoding: Option<Dialect>,
        mut write: impl FnMut(&[u8]) -> bool,
    ) -> bool {
        let mut out = String::new();
        out.push('{');
        json::push_key(&mut out, "path", true);
        json::push_str(&mut out, &String::from_utf8_lossy(&self.name));
        json::push_key(&mut out, "path_exact", false);
        out.push_str(if self.name_exact { "true" } else { "false" });
        if !self.name_exact {
            // JSON strings are Unicode: the exact name goes as its bytes.
            json::push_key(&mut out, "path_bytes", false);
            json::push_str(&mut out, &hex(&self.name));
        }
        if let Some(d) = encoding {
            json::push_key(&mut out, "encoding", false);
            json::push_str(&mut out, self.wide.map_or(d.name(), Wide::name));
        }
        let (status, findings, more, error): (&str, &[Finding], More, Option<&str>) =
            match &self.status {
                Status::Valid => ("valid", &[], More::No, None),
                Status::Invalid { findings, more } => ("invalid", findings, *more, None),
                Status::Failed(message) => ("error", &[], More::No, Some(message)),
            };
        if let Some(note) = &self.note {
            json::push_key(&mut out, "note", false);
            json::push_str(&mut out, note);
        }
        json::push_key(&mut out, "status", false);
        json::push_str(&mut out, status);
        json::push_key(&mut out, "bytes", false);
        let _ = write!(out, "{}", self.bytes);
        if encoding == Some(Dialect::Corrected) {
            json::push_key(&mut out, "magic_number", false);
            out.push_str(if self.magic_number { "true" } else { "false" });
            json::push_key(&mut out, "reserved_run", false);
            match self.reserved_run {
                Some(at) => {
                    let _ = write!(out, "{at}");
                }
                None => out.push_str("null"),
            }
        }
        json::push_key(&mut out, "errors", false);
        out.push('[');
        if !write(out.as_bytes()) {
            return false;
        }
        let render = |first: usize, some: &[Finding], piece: &mut Vec<u8>| {
            // The buffer is empty here (`in_rounds` clears it): a `String`
            // over its allocation, and back.
            let mut text = String::from_utf8(std::mem::take(piece)).unwrap_or_default();
            self.render_json_findings(first, some, &mut text);
            *piece = text.into_bytes();
        };
        if !in_rounds(findings, render, &mut write) {
            return false;
        }
        out.clear();
        out.push(']');
        json::push_key(&mut out, "more_errors", false);
        out.push_str(match more {
            More::No => "false",
            More::Yes => "true",
            More::Unknown => "null",
        });
        json::push_key(&mut out, "error", false);
        match error {
            Some(message) => json::push_str(&mut out, message),
            None => out.push_str("null"),
        }
        out.push_str("}\n");
        write(out.as_bytes())
    }

    /// The JSON objects of `findings`, the errors of this input from its
    /// `first`, each after a comma but the input's first.
    fn render_json_findings(&self, first: usize, findings: &[Finding], out: &mut String) {
        for (i, f) in (first..).zip(findings) {
            if i > 0 {
                out.push(',');
            }
            out.push('{');
            json::push_key(out, "offset", true);
            let _ = write!(out, "{}", f.offset);
            json::push_key(out, "line", false);
            let _ = write!(out, "{}", f.at.line_number());
            json::push_key(out, "column", false);
            let _ = write!(out, "{}", f.at.column_number());
            json::push_key(out, "length", false);
            match f.len {
                Some(n) => {
                    let _ = write!(out, "{n}");
                }
                None => out.push_str("null"),
            }
            json::push_key(out, "kind", false);
            json::push_str(out, f.kind.name());
            json::push_key(out, "description", false);
            json::push_str(out, &self.describe(f));
            json::push_key(out, "explanation", false);
            json::push_str(out, &self.explanation(f));
            json::push_key(out, "hint", false);
            let hints = self.hints(i, f);
            if hints.is_empty() {
                out.push_str("null");
            } else {
                json::push_str(out, &hints.join("; "));
            }
            json::push_key(out, "bytes", false);
            json::push_str(out, &hex(f.invalid_bytes()));
            json::push_key(out, "context_offset", false);
            let _ = write!(out, "{}", f.context_start);
            json::push_key(out, "context", false);
            json::push_str(out, &hex(&f.context));
            out.push('}');
        }
    }
}

/// `findings` rendered by `render` (given the index of its first finding
/// in the input's list, the findings, and a buffer to append to) and handed
/// to `write` [`FINDINGS_PER_PIECE`] at a time, in order. With more than one
/// thread in the rayon pool (`--jobs`), the pieces of a round are made on
/// all of them. Stops, with `false`, as soon as `write` returns `false`.
fn in_rounds(
    findings: &[Finding],
    render: impl Fn(usize, &[Finding], &mut Vec<u8>) + Sync,
    write: &mut impl FnMut(&[u8]) -> bool,
) -> bool {
    if findings.is_empty() {
        return true;
    }
    let threads = if findings.len() > FINDINGS_PER_PIECE {
        crate::pool::ready().max(1)
    } else {
        1
    };
    let round = FINDINGS_PER_PIECE * threads;
    // One buffer per piece of a round, kept from round to round: a new one
    // for each piece cost a fresh mapping of memory, and its page faults,
    // every time.
    let mut pieces = vec![Vec::new(); threads.min(findings.len().div_ceil(FINDINGS_PER_PIECE))];
    for (r, in_round) in findings.chunks(round).enumerate() {
        let first = r * round;
        let used = &mut pieces[..in_round.len().div_ceil(FINDINGS_PER_PIECE)];
        let render = |k: usize, (out, some): (&mut Vec<u8>, &[Finding])| {
            out.clear();
            render(first + k * FINDINGS_PER_PIECE, some, out);
        };
        if used.len() > 1 {
            used.par_iter_mut()
                .zip(in_round.par_chunks(FINDINGS_PER_PIECE))
                .enumerate()
                .for_each(|(k, pair)| render(k, pair));
        } else {
            render(0, (&mut used[0], in_round));
        }
        if !used.iter().all(|p| write(p)) {
            return false;
        }
    }
    true
}

/// One hexdump line of the context, after the (decimal) offset of its
/// first byte, and a marker line under the invalid bytes.
fn render_hex(f: &Finding, out: &mut String) {
    let at = f.at_in_context();
    let marked = at..at + f.invalid_bytes().len();
    let mut hex_line = String::new();
    let mut marker = String::new();
    let mut text = String::new();
    let mut text_marker = String::new();
    for i in 0..CONTEXT_WIDTH {
        let sep = if i > 0 { " " } else { "" };
        hex_line.push_str(sep);
        marker.push_str(sep);
        match f.context.get(i) {
            Some(&b) => {
                let _ = write!(hex_line, "{b:02X}");
                let hit = marked.contains(&i);
                marker.push_str(if hit { "^^" } else { "  " });
                text.push(if b.is_ascii_graphic() || b == b' ' {
                    b as char
                } else {
                    '.'
                });
                text_marker.push(if hit { '^' } else { ' ' });
            }
            None => {
                hex_line.push_str("  ");
                marker.push_str("  ");
            }
        }
    }
    // The offset column is 8 wide, or as wide as the offset when it is
    // longer; the marker line is indented by the same width.
    let offset = f.context_start.to_string();
    let width = offset.len().max(8);
    let _ = writeln!(out, "  {offset:>width$}  {hex_line}  |{text}|");
    let marker_line = format!("  {:width$}  {marker}   {text_marker}", "");
    let _ = writeln!(out, "{}", marker_line.trim_end());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_finding(input: &[u8]) -> Finding {
        let err = utf8guard::from_utf8(input).unwrap_err();
        let mut at = Cursor::default();
        at.advance(&input[..err.valid_up_to()]);
        Finding::in_slice(input, err.valid_up_to(), err.error_len(), err.kind(), at)
    }

    #[test]
    fn too_short_names_the_byte_that_breaks_the_sequence() {
        let f = first_finding(b"line one\ncaf\xE9 au lait");
        assert_eq!(f.offset, 12);
        assert_eq!((f.at.line_number(), f.at.column_number()), (2, 4));
        assert_eq!(f.context_start, 4);
        assert_eq!(&*f.context, b" one\ncaf\xE9 au lai");
        assert_eq!(f.invalid_bytes(), b"\xE9");
        assert_eq!(
            f.explanation(Dialect::Utf8),
            "E9 starts a 3-byte sequence, but the next byte, 20, is not a continuation byte (80..BF)"
        );
    }

    #[test]
    fn explanations_for_each_kind() {
        let cases: &[(&[u8], &str)] = &[
            (b"a\x80", "80 is a continuation byte (80..BF) where a character must start"),
            (b"\xC0\xAF", "C0 never appears in UTF-8: it could only start an overlong 2-byte form"),
            (b"\xFF", "FF never appears in UTF-8: FE and FF start no sequence, not even in RFC 2279"),
            (b"\xFE", "FE never appears in UTF-8: FE and FF start no sequence, not even in RFC 2279"),
            (b"\xF5", "F5 never appears in UTF-8 (F5..FD would start sequences for values above U+10FFFF)"),
            (b"\xFD", "FD never appears in UTF-8 (F5..FD would start sequences for values above U+10FFFF)"),
            (b"\xE0\x80\x80", "E0 80 would encode a code point below U+0800 in 3 bytes (after E0 comes A0..BF)"),
            (b"\xF0\x8F\xBF\xBF", "F0 8F would encode a code point below U+10000 in 4 bytes (after F0 comes 90..BF)"),
            (b"\xED\xA0\x80", "ED A0 would encode a UTF-16 surrogate, U+D800..U+DFFF (after ED comes 80..9F)"),
            (b"\xF4\x90\x80\x80", "F4 90 would encode a code point above U+10FFFF (after F4 comes 80..8F)"),
            (b"\xF0\x9F\x98x", "F0 9F 98 starts a 4-byte sequence, but the next byte, 78, is not a continuation byte (80..BF)"),
            (b"ok \xE2\x82", "the input ends inside a 3-byte sequence: E2 82"),
        ];
        for &(input, expected) in cases {
            assert_eq!(
                first_finding(input).explanation(Dialect::Utf8),
                expected,
                "{input:02X?}"
            );
        }
    }

    #[test]
    fn hints_for_common_mix_ups() {
        let cases: &[(&[u8], Option<&str>)] = &[
            (
                b"caf\xE9 au lait",
                Some("in Latin-1 or Windows-1252, E9 is U+00E9 'é': is the file in that encoding? If so, `utf8guard convert --from windows-1252 --to utf-8` converts it (or `utf8guard repair -r windows-1252`, for a file that mixes the two)"),
            ),
            (
                b"\x93quoted\x94",
                Some("in Windows-1252, 93 is U+201C '“': is the file in that encoding? If so, `utf8guard convert --from windows-1252 --to utf-8` converts it (or `utf8guard repair -r windows-1252`, for a file that mixes the two)"),
            ),
            (
                b"nbsp\xA0",
                Some("in Latin-1 or Windows-1252, A0 is U+00A0: is the file in that encoding? If so, `utf8guard convert --from windows-1252 --to utf-8` converts it (or `utf8guard repair -r windows-1252`, for a file that mixes the two)"),
            ),
            // 81 is undefined in Windows-1252.
            (b"x\x81y", None),
            // Several in a row: another script's code page, not Latin-1
            // (Russian in Windows-1251), or UTF-8 gone wrong.
            (
                b"\xCF\xF0\xE8\xE2\xE5\xF2, \xEC\xE8\xF0",
                Some("non-ASCII bytes in a row that are not UTF-8: is the file in an 8-bit encoding for another script (a Windows or ISO 8859 code page, KOI8-R)?"),
            ),
            // Two Latin-1 letters side by side among ASCII ones: Latin-1.
            (
                b"Gr\xFC\xDFe aus M\xFCnchen",
                Some("in Latin-1 or Windows-1252, FC is U+00FC 'ü': is the file in that encoding? If so, `utf8guard convert --from windows-1252 --to utf-8` converts it (or `utf8guard repair -r windows-1252`, for a file that mixes the two)"),
            ),
            // Two among more non-ASCII bytes than ASCII letters: another
            // script (Russian "да, мир" in Windows-1251).
            (
                b"\xE4\xE0, \xEC\xE8\xF0",
                Some("non-ASCII bytes in a row that are not UTF-8: is the file in an 8-bit encoding for another script (a Windows or ISO 8859 code page, KOI8-R)?"),
            ),
            (b"\xC3\x80\x80", None),
            (b"a\xE9\x80b", None),
            (
                b"smile \xED\xA0\xBD\xED\xB8\x80!",
                Some("ED A0 BD ED B8 80 is a UTF-16 surrogate pair encoded as two 3-byte sequences (CESU-8, as Java's modified UTF-8 and MySQL's utf8mb3 write it); U+1F600 '😀' is F0 9F 98 80 in UTF-8"),
            ),
            (b"..\xC0\xAF..", Some("C0 AF is an overlong form of U+002F '/', which is 2F in UTF-8")),
            (b"\xE0\x81\x81", Some("E0 81 81 is an overlong form of U+0041 'A', which is 41 in UTF-8")),
            (b"\xF0\x82\x82\xAC", Some("F0 82 82 AC is an overlong form of U+20AC '€', which is E2 82 AC in UTF-8")),
            (b"\xC0\x80", Some("C0 80 is modified UTF-8's U+0000 (an overlong form, as Java writes it); U+0000 is 00 in UTF-8")),
            (b"\xF4\x90\x80\x80", None),
            (b"ok \xE2\x82", None),
        ];
        for &(input, expected) in cases {
            assert_eq!(
                first_finding(input).hint(Dialect::Utf8).as_deref(),
                expected,
                "{input:02X?}"
            );
        }
    }

    #[test]
    fn text_report_marks_the_invalid_bytes() {
        let input = b"abc\ndef\xC3\x28xyz";
        let outcome = Outcome {
            status: Status::Invalid {
                findings: vec![first_finding(input)],
                more: More::No,
            },
            bytes: input.len() as u64,
            ..Outcome::named(Path::new("t.bin"))
        };
        let mut out = Vec::new();
        outcome.render_text(Limit::First, &mut out);
        let out = String::from_utf8(out).unwrap();
        assert_eq!(
            out,
            "t.bin:2:4: invalid UTF-8 at byte 7: multi-byte sequence cut short\n\
             \x20 C3 starts a 2-byte sequence, but the next byte, 28, is not a continuation byte (80..BF)\n\
             \x20 hint: in Latin-1 or Windows-1252, C3 is U+00C3 'Ã': is the file in that encoding? If so, `utf8guard convert --from windows-1252 --to utf-8` converts it (or `utf8guard repair -r windows-1252`, for a file that mixes the two)\n\
             \x20        0  61 62 63 0A 64 65 66 C3 28 78 79 7A              |abc.def.(xyz|\n\
             \x20                                ^^                                  ^\n"
        );
    }

    #[test]
    fn the_marker_stays_under_the_bytes_at_any_offset() {
        for (context_start, indent) in [(0, 10), (99_999_992, 10), (123_456_789, 11)] {
            let mut f = first_finding(b"abcdefgh\xFFijk");
            f.offset += context_start;
            f.context_start += context_start;
            let mut out = String::new();
            render_hex(&f, &mut out);
            let lines: Vec<&str> = out.lines().collect();
            let hex_at = lines[0].find("FF").unwrap();
            assert_eq!(lines[1].find("^^"), Some(hex_at), "{out}");
            assert_eq!(lines[0].find("61"), Some(indent + 2), "{out}");
            let column = format!("{context_start:>8}");
            assert!(lines[0].starts_with(&format!("  {column}  61 ")), "{out}");
        }
    }

    #[test]
    fn json_report_has_every_field() {
        let input = b"\xF0\x9F\x98";
        let outcome = Outcome {
            status: Status::Invalid {
                findings: vec![first_finding(input)],
                more: More::Yes,
            },
            bytes: 3,
            ..Outcome::named(Path::new("dir/\"q\".txt"))
        };
        let mut out = String::new();
        outcome.render_json(None, &mut out);
        assert_eq!(
            out,
            concat!(
                r#"{"path":"dir/\"q\".txt","path_exact":true,"status":"invalid","bytes":3,"#,
                r#""errors":[{"offset":0,"line":1,"column":1,"length":null,"kind":"incomplete","#,
                r#""description":"input ends inside a multi-byte sequence","#,
                r#""explanation":"the input ends inside a 4-byte sequence: F0 9F 98","hint":null,"#,
                r#""bytes":"F0 9F 98","context_offset":0,"context":"F0 9F 98"}],"#,
                r#""more_errors":true,"error":null}"#,
                "\n"
            )
        );
    }

    /// The JSON line of an input with many errors is handed out in pieces
    /// of at most `FINDINGS_PER_PIECE` errors, which make the same line.
    #[test]
    fn json_line_comes_in_pieces() {
        let input = b"\xF0\x9F\x98";
        let count = 2 * FINDINGS_PER_PIECE + 5;
        let outcome = Outcome {
            status: Status::Invalid {
                findings: vec![first_finding(input); count],
                more: More::No,
            },
            bytes: 3,
            ..Outcome::named(Path::new("x"))
        };
        let mut pieces = Vec::new();
        assert!(outcome.render_json_in_pieces(None, |piece| {
            pieces.push(piece.to_vec());
            true
        }));
        // The head, three pieces of errors, the tail.
        assert_eq!(pieces.len(), 5);
        let errors_in = |p: &[u8]| p.windows(9).filter(|w| w == b"\"offset\":").count();
        let counts: Vec<usize> = pieces.iter().map(|p| errors_in(p)).collect();
        assert_eq!(counts, [0, FINDINGS_PER_PIECE, FINDINGS_PER_PIECE, 5, 0]);
        let mut whole = String::new();
        outcome.render_json(None, &mut whole);
        assert_eq!(pieces.concat(), whole.as_bytes());
        assert!(whole.starts_with(r#"{"path":"x","#) && whole.ends_with("\"error\":null}\n"));
        // A writer that fails stops the rendering at once.
        let mut calls = 0;
        assert!(!outcome.render_json_in_pieces(None, |_| {
            calls += 1;
            calls < 2
        }));
        assert_eq!(calls, 2);
    }
}
