//! Repair policies: what stands in the text for each ill-formed sequence
//! of bytes that should have been UTF-8.
//!
//! Every policy works on the maximal subparts that
//! [`from_utf8_lossy`](crate::from_utf8_lossy) replaces (the JDK's takes a
//! surrogate's 3-byte form as one), through the same two-phase loop (the
//! kernel over valid runs, a character at a time after an error), and
//! differs only in what it writes for one. The surrogate escape writes lone
//! surrogates, which a `str` cannot hold, so it has functions of its own
//! that return bytes (WTF-8).

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use crate::dispatch;
use crate::legacy::windows_1252;
use crate::lossy::{self, Shape};

/// What [`repair`] writes for each ill-formed sequence.
///
/// Each policy equals, on every input, the decoder named with it. The
/// names (and aliases) are those of [`from_name`](Self::from_name), used by
/// the command and the DataFusion functions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Replacement {
    /// One U+FFFD per maximal subpart: `String::from_utf8_lossy`, the
    /// WHATWG Encoding Standard's decoder, CPython's `replace`.
    /// `maximal-subpart` (`std`, `whatwg`).
    #[default]
    MaximalSubpart,
    /// What the JDK's `new String(bytes, StandardCharsets.UTF_8)` gives:
    /// one U+FFFD per maximal subpart, but one for a whole surrogate's
    /// 3-byte form (`ED A0 80` is one, where the other decoders see three),
    /// and one for a prefix of it that is cut short (`ED A0`). What a
    /// Spark-compatible engine must produce. `jvm` (`java`).
    Jvm,
    /// One U+FFFD per byte of each ill-formed sequence, as Go's `for range`
    /// over a string. `per-byte` (`go`).
    PerByte,
    /// Each byte of an ill-formed sequence read as Windows-1252, per the
    /// WHATWG index (`80` is `€`; the five bytes it leaves unassigned, `81`,
    /// `8D`, `8F`, `90` and `9D`, are the C1 controls of the same value):
    /// text mixing UTF-8 and Windows-1252 comes out right.
    /// `windows-1252` (`cp1252`).
    Windows1252,
    /// Each byte of an ill-formed sequence read as Latin-1 (the code point
    /// of the byte's value). `latin-1` (`iso-8859-1`).
    Latin1,
    /// `\xNN` (lower-case hex) for each byte of an ill-formed sequence:
    /// CPython's `backslashreplace`. `backslash`.
    Backslash,
    /// Nothing: ill-formed sequences are removed, as CPython's `ignore`
    /// does. `drop` (`ignore`).
    Drop,
}

impl Replacement {
    /// Every policy, the default first.
    pub const ALL: [Replacement; 7] = [
        Replacement::MaximalSubpart,
        Replacement::Jvm,
        Replacement::PerByte,
        Replacement::Windows1252,
        Replacement::Latin1,
        Replacement::Backslash,
        Replacement::Drop,
    ];

    /// The policy's name, as [`from_name`](Self::from_name) reads it.
    pub fn name(self) -> &'static str {
        match self {
            Replacement::MaximalSubpart => "maximal-subpart",
            Replacement::Jvm => "jvm",
            Replacement::PerByte => "per-byte",
            Replacement::Windows1252 => "windows-1252",
            Replacement::Latin1 => "latin-1",
            Replacement::Backslash => "backslash",
            Replacement::Drop => "drop",
        }
    }

    /// The policy named `name`, or an alias of it, in any case and with
    /// `_` for `-` (as [`Dialect::from_name`](crate::Dialect::from_name)
    /// reads encodings): `maximal-subpart` (`replace`, `std`, `whatwg`),
    /// `jvm` (`java`), `per-byte` (`go`), `windows-1252` (`cp1252`),
    /// `latin-1` (`latin1`, `iso-8859-1`, `iso8859-1`, the names
    /// [`SingleByte::from_name`](crate::SingleByte::from_name) reads),
    /// `backslash` (`backslashreplace`), `drop` (`ignore`). The command,
    /// the SQL functions and the Python package read policies by these
    /// names (CPython's handler names among them).
    ///
    /// ```
    /// use utf8guard::Replacement;
    /// assert_eq!(Replacement::from_name("cp1252"), Some(Replacement::Windows1252));
    /// assert_eq!(Replacement::from_name("Windows-1252"), Some(Replacement::Windows1252));
    /// assert_eq!(Replacement::from_name("ignore"), Some(Replacement::Drop));
    /// assert_eq!(Replacement::from_name("surrogateescape"), None); // see `escape`
    /// assert_eq!(Replacement::from_name("latin1"), Some(Replacement::Latin1));
    /// assert_eq!(Replacement::from_name("maximal_subpart"), Some(Replacement::MaximalSubpart));
    /// assert_eq!(Replacement::from_name("replace"), Some(Replacement::MaximalSubpart));
    /// ```
    pub fn from_name(name: &str) -> Option<Replacement> {
        const NAMES: [(&str, Replacement); 18] = [
            ("maximal-subpart", Replacement::MaximalSubpart),
            ("replace", Replacement::MaximalSubpart),
            ("std", Replacement::MaximalSubpart),
            ("whatwg", Replacement::MaximalSubpart),
            ("jvm", Replacement::Jvm),
            ("java", Replacement::Jvm),
            ("per-byte", Replacement::PerByte),
            ("go", Replacement::PerByte),
            ("windows-1252", Replacement::Windows1252),
            ("cp1252", Replacement::Windows1252),
            ("latin-1", Replacement::Latin1),
            ("iso-8859-1", Replacement::Latin1),
            ("latin1", Replacement::Latin1),
            ("iso8859-1", Replacement::Latin1),
            ("backslash", Replacement::Backslash),
            ("backslashreplace", Replacement::Backslash),
            ("drop", Replacement::Drop),
            ("ignore", Replacement::Drop),
        ];
        let same = |known: &str| {
            known.len() == name.len()
                && known
                    .bytes()
                    .zip(name.bytes())
                    .all(|(k, n)| k.eq_ignore_ascii_case(&n) || (k == b'-' && n == b'_'))
        };
        NAMES.iter().find(|(known, _)| same(known)).map(|&(_, r)| r)
    }
}

impl fmt::Display for Replacement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Replacement {
    type Err = UnknownReplacement;

    fn from_str(name: &str) -> Result<Replacement, UnknownReplacement> {
        Replacement::from_name(name).ok_or(UnknownReplacement)
    }
}

/// A name that [`Replacement::from_name`] does not know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownReplacement;

impl fmt::Display for UnknownReplacement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown replacement policy; known: ")?;
        for (i, r) in Replacement::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(r.name())?;
        }
        Ok(())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for UnknownReplacement {}

/// Converts bytes to a string, writing for each ill-formed sequence what
/// `replacement` says; borrowed when the input is valid, and at the speed
/// of [`from_utf8`](crate::from_utf8) on mostly valid input.
/// `repair(bytes, Replacement::MaximalSubpart)` is
/// [`from_utf8_lossy`](crate::from_utf8_lossy).
///
/// ```
/// use utf8guard::{repair, Replacement};
///
/// // A line of Windows-1252 among UTF-8 ones.
/// let mixed = b"caf\xC3\xA9\ncaf\xE9 \x80\n";
/// assert_eq!(repair(mixed, Replacement::Windows1252), "café\ncafé €\n");
/// assert_eq!(repair(mixed, Replacement::MaximalSubpart), "café\ncaf\u{FFFD} \u{FFFD}\n");
/// assert_eq!(repair(b"\xED\xA0\x80!", Replacement::Jvm), "\u{FFFD}!");
/// assert_eq!(repair(b"\xED\xA0\x80!", Replacement::MaximalSubpart), "\u{FFFD}\u{FFFD}\u{FFFD}!");
/// assert_eq!(repair(b"\xF0\x9F\x98!", Replacement::PerByte), "\u{FFFD}\u{FFFD}\u{FFFD}!");
/// assert_eq!(repair(b"\xF0\x9F\x98!", Replacement::Backslash), "\\xf0\\x9f\\x98!");
/// assert_eq!(repair(b"\xF0\x9F\x98!", Replacement::Drop), "!");
/// ```
pub fn repair(bytes: &[u8], replacement: Replacement) -> Cow<'_, str> {
    let first = match dispatch::run(bytes) {
        // SAFETY: the active kernel accepted all of `bytes`.
        Ok(()) => return Cow::Borrowed(unsafe { core::str::from_utf8_unchecked(bytes) }),
        Err(offset) => offset,
    };
    let mut out = String::with_capacity(lossy::capacity(bytes.len()));
    push_repaired(&mut out, bytes, first, replacement);
    Cow::Owned(out)
}

/// Appends the repair of `bytes` to `out`, given `first`, a kernel's
/// offset for `bytes` (see `lossy::push_lossy`).
fn push_repaired(out: &mut String, bytes: &[u8], first: usize, replacement: Replacement) {
    // One monomorphised loop per policy: the closure is what differs.
    match replacement {
        Replacement::MaximalSubpart => lossy::push_lossy(out, bytes, first),
        Replacement::Jvm => lossy::push_repaired::<true, _>(
            out,
            bytes,
            first,
            Some(&Shape::FFFD),
            &mut |out, _, _, _| {
                out.push('\u{FFFD}');
            },
        ),
        Replacement::PerByte => lossy::push_repaired::<false, _>(
            out,
            bytes,
            first,
            Some(&Shape::FFFD),
            &mut |out, bytes, start, end| {
                let subpart = &bytes[start..end];
                for _ in subpart {
                    out.push('\u{FFFD}');
                }
            },
        ),
        Replacement::Windows1252 => lossy::push_repaired::<false, _>(
            out,
            bytes,
            first,
            Some(&Shape::WINDOWS_1252),
            &mut |out, bytes, start, end| {
                let subpart = &bytes[start..end];
                for &b in subpart {
                    out.push(windows_1252(b));
                }
            },
        ),
        Replacement::Latin1 => lossy::push_repaired::<false, _>(
            out,
            bytes,
            first,
            Some(&Shape::LATIN1),
            &mut |out, bytes, start, end| {
                let subpart = &bytes[start..end];
                for &b in subpart {
                    out.push(char::from(b));
                }
            },
        ),
        Replacement::Backslash => lossy::push_repaired::<false, _>(
            out,
            bytes,
            first,
            Some(&Shape::BACKSLASH),
            &mut |out, bytes, start, end| {
                let subpart = &bytes[start..end];
                for &b in subpart {
                    out.push_ascii([b'\\', b'x', hex_digit(b >> 4), hex_digit(b & 0xF)]);
                }
            },
        ),
        Replacement::Drop => lossy::push_repaired::<false, _>(
            out,
            bytes,
            first,
            Some(&Shape::DROP),
            &mut |_, _, _, _| {},
        ),
    }
}

/// Appends what `replacement` writes for one unit of its own (a maximal
/// subpart, or for `Jvm` a surrogate's form).
fn write_unit(replacement: Replacement, out: &mut lossy::Text<'_>, unit: &[u8]) {
    match replacement {
        Replacement::MaximalSubpart | Replacement::Jvm => out.push('\u{FFFD}'),
        Replacement::PerByte => unit.iter().for_each(|_| out.push('\u{FFFD}')),
        Replacement::Windows1252 => unit.iter().for_each(|&b| out.push(windows_1252(b))),
        Replacement::Latin1 => unit.iter().for_each(|&b| out.push(char::from(b))),
        Replacement::Backslash => unit
            .iter()
            .for_each(|&b| out.push_ascii([b'\\', b'x', hex_digit(b >> 4), hex_digit(b & 0xF)])),
        Replacement::Drop => {}
    }
}

/// Repairs a stream given in pieces, split anywhere, under one policy: the
/// pieces' outputs put together are [`repair`]'s output for the whole
/// stream. It holds back, between pieces, the end of a piece that could
/// start a character (at most 3 bytes), and counts what it replaced.
///
/// ```
/// use utf8guard::{Repairer, Replacement};
///
/// let mut repairer = Repairer::new(Replacement::Windows1252);
/// let mut text = String::new();
/// for piece in [&b"caf\xC3"[..], b"\xA9 / caf\xE9", b" \xE2\x82", b"\xAC"] {
///     repairer.push(piece, &mut text);
/// }
/// repairer.finish(&mut text);
/// assert_eq!(text, "café / café €");
/// assert_eq!((repairer.replacements(), repairer.first_replacement()), (1, Some(11)));
/// ```
#[derive(Clone, Debug)]
pub struct Repairer {
    replacement: Replacement,
    held: Held,
    replaced: u64,
    first: Option<u64>,
}

impl Repairer {
    /// A repairer at the start of a stream.
    pub fn new(replacement: Replacement) -> Repairer {
        Repairer {
            replacement,
            held: Held::default(),
            replaced: 0,
            first: None,
        }
    }

    /// The policy.
    pub fn replacement(&self) -> Replacement {
        self.replacement
    }

    /// How many units were replaced so far (maximal subparts; for `Jvm`,
    /// with a surrogate's form as one), whatever each was replaced with.
    pub fn replacements(&self) -> u64 {
        self.replaced
    }

    /// The stream offset of the first unit replaced, if any.
    pub fn first_replacement(&self) -> Option<u64> {
        self.first
    }

    /// How many bytes were pushed so far.
    pub fn bytes_pushed(&self) -> u64 {
        self.held.pushed()
    }

    /// Appends the repair of the next piece of the stream to `out`, but for
    /// its last bytes when they could start a character (held for the
    /// next piece or for [`finish`](Self::finish)).
    pub fn push(&mut self, piece: &[u8], out: &mut String) {
        let Repairer {
            replacement,
            held,
            replaced,
            first,
        } = self;
        held.push(piece, &mut |segment, base| {
            repair_segment(*replacement, segment, base, out, replaced, first);
        });
    }

    /// Appends the repair of what is held: the stream ended, so an
    /// unfinished character is a unit to replace.
    pub fn finish(&mut self, out: &mut String) {
        let Repairer {
            replacement,
            held,
            replaced,
            first,
        } = self;
        held.finish(&mut |segment, base| {
            repair_segment(*replacement, segment, base, out, replaced, first);
        });
    }
}

/// Appends the repair of `bytes`, whose end is the end of a unit, found at
/// the stream offset `base`; counts the units replaced in `replaced` and
/// notes the first one's offset in `first`.
fn repair_segment(
    replacement: Replacement,
    bytes: &[u8],
    base: u64,
    out: &mut String,
    replaced: &mut u64,
    first: &mut Option<u64>,
) {
    let at = match dispatch::run(bytes) {
        Ok(()) => {
            // SAFETY: the active kernel accepted all of `bytes`.
            out.push_str(unsafe { core::str::from_utf8_unchecked(bytes) });
            return;
        }
        Err(at) => at,
    };
    let mut unit = |out: &mut lossy::Text<'_>, bytes: &[u8], start: usize, end: usize| {
        *replaced += 1;
        if first.is_none() {
            *first = Some(base + start as u64);
        }
        write_unit(replacement, out, &bytes[start..end]);
    };
    if replacement == Replacement::Jvm {
        lossy::push_repaired::<true, _>(out, bytes, at, None, &mut unit);
    } else {
        lossy::push_repaired::<false, _>(out, bytes, at, None, &mut unit);
    }
}

/// [`escape`] of a stream given in pieces, split anywhere: the pieces'
/// outputs put together are `escape`'s output for the whole stream. As a
/// [`Repairer`], it holds back the end of a piece that could start a
/// character, and counts what it escaped.
///
/// ```
/// let mut escaper = utf8guard::Escaper::new();
/// let mut out = Vec::new();
/// for piece in [&b"caf\xC3"[..], b"\xA9 / caf\xE9"] {
///     escaper.push(piece, &mut out);
/// }
/// escaper.finish(&mut out);
/// assert_eq!(out, b"caf\xC3\xA9 / caf\xED\xB3\xA9");
/// assert_eq!((escaper.replacements(), escaper.first_replacement()), (1, Some(11)));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Escaper {
    held: Held,
    escaped: u64,
    first: Option<u64>,
}

impl Escaper {
    /// An escaper at the start of a stream.
    pub fn new() -> Escaper {
        Escaper::default()
    }

    /// How many units (maximal subparts) were escaped so far, each byte of
    /// one becoming a lone surrogate.
    pub fn replacements(&self) -> u64 {
        self.escaped
    }

    /// The stream offset of the first unit escaped, if any.
    pub fn first_replacement(&self) -> Option<u64> {
        self.first
    }

    /// How many bytes were pushed so far.
    pub fn bytes_pushed(&self) -> u64 {
        self.held.pushed()
    }

    /// Appends the escape of the next piece of the stream to `out`, but
    /// for its last bytes when they could start a character (held for the
    /// next piece or for [`finish`](Self::finish)).
    pub fn push(&mut self, piece: &[u8], out: &mut Vec<u8>) {
        let Escaper {
            held,
            escaped,
            first,
        } = self;
        held.push(piece, &mut |segment, base| {
            escape_segment(segment, base, out, escaped, first);
        });
    }

    /// Appends the escape of what is held: the stream ended, so an
    /// unfinished character is a unit to escape.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        let Escaper {
            held,
            escaped,
            first,
        } = self;
        held.finish(&mut |segment, base| {
            escape_segment(segment, base, out, escaped, first);
        });
    }
}

/// The part of a stream that its repair holds between pieces: the end of
/// the input so far that could start a character, and where it is. It
/// hands the rest on in segments that end where units end.
#[derive(Clone, Copy, Debug, Default)]
struct Held {
    /// The end of the input so far that could start a character.
    bytes: [u8; 3],
    len: u8,
    /// The stream offset of `bytes[0]` (of the next byte when none is held).
    offset: u64,
}

impl Held {
    /// Gives `segment` the bytes of the next piece (after those held), in
    /// segments that end where units end, each with its stream offset;
    /// holds its last bytes when they could start a character.
    fn push(&mut self, piece: &[u8], segment: &mut impl FnMut(&[u8], u64)) {
        let mut piece = piece;
        if self.len > 0 {
            // The held bytes with the continuation bytes that follow them
            // (at most 3 are needed): the unit they make ends there, since
            // a unit ends before any byte that is not a continuation byte.
            let conts = piece
                .iter()
                .take(3)
                .take_while(|&&b| b & 0xC0 == 0x80)
                .count();
            let held = usize::from(self.len);
            let mut head = [0u8; 6];
            head[..held].copy_from_slice(&self.bytes[..held]);
            head[held..held + conts].copy_from_slice(&piece[..conts]);
            piece = &piece[conts..];
            self.len = 0;
            let head = &head[..held + conts];
            if piece.is_empty() {
                // The piece ended too: the head may still be unfinished.
                self.push_cut(head, segment);
                return;
            }
            self.emit(head, segment);
        }
        self.push_cut(piece, segment);
    }

    /// Gives `segment` what is held: the stream ended.
    fn finish(&mut self, segment: &mut impl FnMut(&[u8], u64)) {
        let held = self.bytes;
        let len = usize::from(self.len);
        self.len = 0;
        self.emit(&held[..len], segment);
    }

    /// Gives `segment` `bytes` but for an unfinished character at its end,
    /// which is held.
    fn push_cut(&mut self, bytes: &[u8], segment: &mut impl FnMut(&[u8], u64)) {
        let cut = crate::stream::trim_partial_utf8(bytes);
        self.emit(&bytes[..cut], segment);
        let rest = &bytes[cut..];
        self.bytes[..rest.len()].copy_from_slice(rest);
        self.len = rest.len() as u8;
    }

    /// Takes the bytes held (and their count) back: the stream goes on
    /// from them, at the same offset.
    #[cfg(feature = "std")]
    fn take(&mut self) -> ([u8; 3], usize) {
        let len = usize::from(self.len);
        self.len = 0;
        (self.bytes, len)
    }

    /// Holds `tail` (at most 3 bytes; nothing may be held).
    #[cfg(feature = "std")]
    fn hold(&mut self, tail: &[u8]) {
        debug_assert_eq!(self.len, 0);
        self.bytes[..tail.len()].copy_from_slice(tail);
        self.len = tail.len() as u8;
    }

    /// Accounts for `len` bytes that continue the stream and need no
    /// repair, given nowhere (nothing may be held).
    #[cfg(feature = "std")]
    fn skip(&mut self, len: usize) {
        debug_assert_eq!(self.len, 0);
        self.offset += len as u64;
    }

    /// The bytes given so far, held ones included.
    fn pushed(&self) -> u64 {
        self.offset + u64::from(self.len)
    }

    fn emit(&mut self, bytes: &[u8], segment: &mut impl FnMut(&[u8], u64)) {
        let base = self.offset;
        self.offset += bytes.len() as u64;
        segment(bytes, base);
    }
}

/// A reader whose output is valid UTF-8: the bytes of `inner`, repaired
/// under a policy as they are read (a [`Repairer`] over its reads), for any
/// parser that needs text (arrow-csv, `csv`, `serde_json`, ...) to read a
/// file with bad bytes. [`Read`](std::io::Read) and
/// [`BufRead`](std::io::BufRead).
///
/// The first end of input `inner` reports ends the stream (an unfinished
/// character held is repaired then): it is not asked again.
///
/// ```
/// use std::io::BufRead;
/// use utf8guard::{RepairReader, Replacement};
///
/// let file = &b"id,name\n1,Jos\xC3\xA9\n2,Jos\xE9\n"[..]; // a Windows-1252 line
/// let reader = RepairReader::new(file, Replacement::Windows1252);
/// let lines: Vec<String> = reader.lines().collect::<Result<_, _>>()?;
/// assert_eq!(lines, ["id,name", "1,José", "2,José"]);
/// # Ok::<(), std::io::Error>(())
/// ```
#[cfg(feature = "std")]
#[derive(Debug)]
pub struct RepairReader<R> {
    inner: R,
    repairer: Repairer,
    /// What was last read from `inner`.
    input: Vec<u8>,
    /// Repaired text not yet handed out, from `pos`.
    output: String,
    pos: usize,
    /// `inner` reported the end of input; it is not asked again.
    done: bool,
}

#[cfg(feature = "std")]
impl<R: std::io::Read> RepairReader<R> {
    /// Bytes asked of `inner` at a time.
    const READ: usize = 64 * 1024;

    /// A read into a buffer at least this large goes straight into it.
    const DIRECT: usize = 4 * 1024;

    /// Wraps `inner`, repairing under `replacement`.
    pub fn new(inner: R, replacement: Replacement) -> RepairReader<R> {
        RepairReader {
            inner,
            repairer: Repairer::new(replacement),
            input: Vec::new(),
            output: String::new(),
            pos: 0,
            done: false,
        }
    }

    /// How many units were replaced so far, and the stream offset of the
    /// first (see [`Repairer`]).
    pub fn replacements(&self) -> (u64, Option<u64>) {
        (
            self.repairer.replacements(),
            self.repairer.first_replacement(),
        )
    }

    /// The inner reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The inner reader; bytes already read from it and not yet handed out
    /// are lost.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

#[cfg(feature = "std")]
impl<R: std::io::Read> std::io::BufRead for RepairReader<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        while self.pos == self.output.len() && !self.done {
            self.output.clear();
            self.pos = 0;
            self.input.resize(Self::READ, 0);
            let n = self.inner.read(&mut self.input)?;
            if n == 0 {
                self.repairer.finish(&mut self.output);
                self.done = true;
            } else {
                self.repairer.push(&self.input[..n], &mut self.output);
            }
        }
        Ok(&self.output.as_bytes()[self.pos..])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.output.len());
    }
}

#[cfg(feature = "std")]
impl<R: std::io::Read> std::io::Read for RepairReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::io::BufRead;
        // Into the caller's buffer itself when nothing is pending and it is
        // large: the bytes held from the last read, then the inner reader's.
        // What needs no repair is handed out as it came, with no copy (as
        // `Utf8Reader` does), but for an unfinished character at its end,
        // held again; a read that needs a repair is repaired into `output`,
        // as `fill_buf` would.
        if self.pos == self.output.len() && !self.done && buf.len() >= Self::DIRECT {
            let (bytes, held) = self.repairer.held.take();
            buf[..held].copy_from_slice(&bytes[..held]);
            let n = match self.inner.read(&mut buf[held..]) {
                Ok(n) => n,
                Err(e) => {
                    self.repairer.held.hold(&bytes[..held]);
                    return Err(e);
                }
            };
            self.output.clear();
            self.pos = 0;
            if n == 0 {
                self.repairer.held.hold(&bytes[..held]);
                self.repairer.finish(&mut self.output);
                self.done = true;
            } else {
                let piece = &buf[..held + n];
                let cut = crate::stream::trim_partial_utf8(piece);
                if dispatch::run(&piece[..cut]).is_ok() {
                    self.repairer.held.skip(cut);
                    self.repairer.held.hold(&piece[cut..]);
                    if cut > 0 {
                        return Ok(cut);
                    }
                } else {
                    self.repairer.push(piece, &mut self.output);
                }
            }
        }
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

fn hex_digit(nibble: u8) -> u8 {
    b"0123456789abcdef"[usize::from(nibble)]
}

/// PEP 383's surrogate escape: each byte `b` of an ill-formed sequence
/// becomes the lone surrogate U+DC00+`b` (U+DC80..U+DCFF), written as
/// WTF-8, so that nothing is lost: [`unescape`] gives the original bytes
/// back. Equal to CPython's
/// `b.decode('utf-8', 'surrogateescape').encode('utf-8', 'surrogatepass')`;
/// borrowed when the input is valid UTF-8.
///
/// ```
/// let escaped = utf8guard::escape(b"caf\xE9");
/// assert_eq!(&escaped[..], b"caf\xED\xB3\xA9");
/// assert_eq!(utf8guard::unescape(&escaped).unwrap(), &b"caf\xE9"[..]);
/// ```
pub fn escape(bytes: &[u8]) -> Cow<'_, [u8]> {
    if dispatch::run(bytes).is_ok() {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(lossy::capacity(bytes.len()));
    // Nothing is counted: lone bytes may be escaped by shuffles.
    push_escaped(&mut out, bytes, Some(&Shape::ESCAPE), |_| {});
    Cow::Owned(out)
}

/// Appends the escape of `bytes` to `out`; `unit` is told the offset of
/// each unit escaped.
fn push_escaped(
    out: &mut Vec<u8>,
    bytes: &[u8],
    lone: Option<&'static Shape>,
    mut unit: impl FnMut(usize),
) {
    let first = match dispatch::run(bytes) {
        Ok(()) => {
            out.extend_from_slice(bytes);
            return;
        }
        Err(offset) => offset,
    };
    lossy::push_repaired_bytes::<false, _>(
        out,
        bytes,
        first,
        lone,
        &mut |out, bytes, start, end| {
            unit(start);
            for &b in &bytes[start..end] {
                // U+DC00 + b, for b in 80..FF: ED, B2 or B3, then the low six
                // bits.
                out.extend_from_slice(&[0xED, 0xB0 | (b >> 6), 0x80 | (b & 0x3F)]);
            }
        },
    );
}

/// Appends the escape of `bytes`, whose end is the end of a unit, found at
/// the stream offset `base`; counts the units escaped in `escaped` and
/// notes the first one's offset in `first`.
fn escape_segment(
    bytes: &[u8],
    base: u64,
    out: &mut Vec<u8>,
    escaped: &mut u64,
    first: &mut Option<u64>,
) {
    if dispatch::run(bytes).is_ok() {
        out.extend_from_slice(bytes);
        return;
    }
    push_escaped(out, bytes, None, |at| {
        *escaped += 1;
        if first.is_none() {
            *first = Some(base + at as u64);
        }
    });
}

/// The bytes that [`escape`] was given back from its output: each escaped
/// byte (U+DC80..U+DCFF, as WTF-8) becomes the byte again, and the rest,
/// which must be well-formed UTF-8, is kept. Borrowed when there is
/// nothing to unescape.
///
/// # Errors
///
/// [`UnescapeError`] where the input is neither UTF-8 nor an escaped byte
/// (another surrogate, say, or bytes that are not UTF-8 at all).
pub fn unescape(bytes: &[u8]) -> Result<Cow<'_, [u8]>, UnescapeError> {
    let mut rest = match crate::validate::from_utf8(bytes) {
        Ok(_) => return Ok(Cow::Borrowed(bytes)),
        Err(_) => bytes,
    };
    let mut out = Vec::with_capacity(bytes.len());
    loop {
        match crate::validate::from_utf8(rest) {
            Ok(_) => {
                out.extend_from_slice(rest);
                return Ok(Cow::Owned(out));
            }
            Err(e) => {
                let at = e.valid_up_to();
                out.extend_from_slice(&rest[..at]);
                match rest[at..] {
                    [0xED, b1 @ (0xB2 | 0xB3), b2, ..] if b2 & 0xC0 == 0x80 => {
                        out.push(((b1 & 0x03) << 6) | (b2 & 0x3F));
                        rest = &rest[at + 3..];
                    }
                    _ => {
                        return Err(UnescapeError {
                            valid_up_to: bytes.len() - rest.len() + at,
                        })
                    }
                }
            }
        }
    }
}

/// Why [`unescape`] failed: the input is not what [`escape`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnescapeError {
    valid_up_to: usize,
}

impl UnescapeError {
    /// The offset of the first sequence that is neither UTF-8 nor an
    /// escaped byte; the input is UTF-8 with escaped bytes before it.
    pub fn valid_up_to(&self) -> usize {
        self.valid_up_to
    }
}

impl fmt::Display for UnescapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the sequence at byte {} is neither UTF-8 nor an escaped byte (U+DC80..U+DCFF)",
            self.valid_up_to
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for UnescapeError {}
