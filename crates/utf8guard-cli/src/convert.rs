//! `utf8guard convert`: between the members of the UTF-8 family, UTF-16,
//! UTF-32, Latin-1 and Windows-1252, streamed in constant memory, written
//! to a temporary file that is renamed into place only once the whole
//! input is converted.
//!
//! The pairs the library converts in one step (within the family; UTF-8 or
//! WTF-8 and UTF-16; UTF-8 to UTF-32 or a single-byte encoding) take it;
//! every other goes through UTF-8 (WTF-8 when the target holds lone
//! surrogates) in two stages, a piece at a time ([`Chain`]).

use std::fs::{self, File};
use std::io::{self, IsTerminal, Read, Write};
use std::path::Path;

use utf8guard::{
    Cause, Dialect, EncodeError, Policy, Progress, SingleByte, Status, TranscodeError, Transcoder,
};

use crate::args::convert::{ConvertArgs, Format, Order};
use crate::family;
use crate::io_error::io_message;
use crate::output::Output;
use crate::path_name::message_name;

/// Bytes read at a time.
const PIECE: usize = 64 << 10;

impl Format {
    fn title(self) -> &'static str {
        match self {
            Format::Family(d) => family::title(d),
            Format::Utf16(Order::Little) => "UTF-16LE",
            Format::Utf16(Order::Big) => "UTF-16BE",
            Format::Utf16(Order::Mark) => "UTF-16",
            Format::Utf32(Order::Little) => "UTF-32LE",
            Format::Utf32(Order::Big) => "UTF-32BE",
            Format::Utf32(Order::Mark) => "UTF-32",
            Format::Single(SingleByte::Latin1) => "Latin-1",
            Format::Single(SingleByte::Windows1252) => "Windows-1252",
        }
    }

    /// What `--replace` writes in this encoding, in words.
    fn replacement_name(self) -> &'static str {
        match self {
            Format::Single(_) => "?",
            _ => "U+FFFD",
        }
    }
}

/// Why a conversion stopped.
#[derive(Debug)]
enum Failure {
    /// The input cannot be converted: the message names the offset and
    /// the cause (exit status 1).
    Input(String),
    /// The input could not be read.
    Read(io::Error),
    /// The output could not be written.
    Write(io::Error),
}

/// Runs `convert`; returns the exit status.
pub fn run(args: &ConvertArgs) -> u8 {
    let policy = if args.replace {
        Policy::Replace
    } else {
        Policy::Strict
    };
    let mut converter =
        match Converter::new(args.from, args.to, policy, args.magic_number, args.bom) {
            Ok(c) => c,
            Err(message) => {
                eprintln!("utf8guard: {message}");
                return 2;
            }
        };
    let input = args.input.as_deref().unwrap_or(Path::new("-"));
    let output = args.output.as_deref().filter(|p| p.as_os_str() != "-");
    match convert(input, output, args.force, &mut converter) {
        Ok(()) => {
            let (count, first) = converter.replacements();
            if let Some(first) = first {
                let what = if count == 1 { "sequence" } else { "sequences" };
                eprintln!(
                    "utf8guard: {}: {count} {what} replaced with {}, the first at byte {first}",
                    message_name(input),
                    args.to.replacement_name()
                );
            }
            0
        }
        Err(Outcome::Closed) => 2,
        Err(Outcome::Status(status, message)) => {
            eprintln!("utf8guard: {message}");
            status
        }
    }
}

/// How a failed run ends.
enum Outcome {
    /// Standard output was closed by its reader: stop quietly.
    Closed,
    /// A status and the message for stderr.
    Status(u8, String),
}

fn trouble(message: String) -> Outcome {
    Outcome::Status(2, message)
}

fn convert(
    input: &Path,
    output: Option<&Path>,
    force: bool,
    converter: &mut Converter,
) -> Result<(), Outcome> {
    let stdin = input.as_os_str() == "-";
    let in_name = message_name(input);
    let cannot_read = |e: io::Error| trouble(format!("{in_name}: {}", io_message(&e)));
    let (reader, meta): (Box<dyn Read>, Option<fs::Metadata>) = if stdin {
        if io::stdin().is_terminal() {
            eprintln!("utf8guard: reading standard input (end it with Ctrl-D; --help for usage)");
        }
        // A closed descriptor is an error, not an empty input.
        let meta = match crate::output::stdin_metadata() {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::Unsupported => None,
            Err(e) => return Err(cannot_read(e)),
        };
        crate::pipe::widen(io::stdin());
        (Box::new(io::stdin().lock()), meta)
    } else {
        let file = File::open(input).map_err(cannot_read)?;
        let meta = file.metadata().map_err(cannot_read)?;
        if meta.is_dir() {
            return Err(trouble(format!("{in_name}: is a directory")));
        }
        crate::pipe::widen(&file);
        (Box::new(file), Some(meta))
    };
    if let (Some(out), Some(meta)) = (output, &meta) {
        crate::output::refuse_input(out, meta, "convert").map_err(trouble)?;
    }
    let out_name = output.map_or("standard output".into(), message_name);
    let mut writer = Output::open(output, PIECE, force).map_err(trouble)?;
    // Only a whole conversion replaces a file OUT: after any failure the
    // temporary file is removed as `writer` drops.
    let result = converter
        .stream(reader, &mut writer)
        .and_then(|()| writer.finish().map_err(Failure::Write));
    result.map_err(|failure| match failure {
        Failure::Input(message) => Outcome::Status(1, format!("{in_name}: {message}")),
        Failure::Read(e) => trouble(format!("{in_name}: read error: {}", io_message(&e))),
        Failure::Write(e) if output.is_none() && e.kind() == io::ErrorKind::BrokenPipe => {
            Outcome::Closed
        }
        Failure::Write(e) => trouble(crate::output::failure_message(&out_name, &e)),
    })
}

/// One conversion, fed the input a piece at a time: the byte order mark
/// of `utf-16` and `utf-32` input read (and dropped) first, the one of the
/// output (or Corrected UTF-8's magic number) written first.
struct Converter {
    from: Format,
    to: Format,
    policy: Policy,
    magic: bool,
    /// Written before the first output.
    prefix: Vec<u8>,
    /// The conversion proper, made once the input's byte order is known.
    inner: Option<Inner>,
}

/// The byte order mark of UTF-16 or UTF-32 (`unit` 2 or 4 bytes).
fn bom(unit: usize, big_endian: bool) -> Vec<u8> {
    let mut mark = if unit == 2 {
        0xFEFFu16.to_le_bytes().to_vec()
    } else {
        0xFEFFu32.to_le_bytes().to_vec()
    };
    if big_endian {
        mark.reverse();
    }
    mark
}

impl Converter {
    fn new(
        from: Format,
        to: Format,
        policy: Policy,
        magic: bool,
        with_bom: bool,
    ) -> Result<Converter, String> {
        if magic && to != Format::Family(Dialect::Corrected) {
            return Err(format!(
                "--magic-number: only Corrected UTF-8 has a magic number, not {}",
                to.title()
            ));
        }
        let prefix = match to {
            Format::Utf16(order) if with_bom || order == Order::Mark => bom(2, order == Order::Big),
            Format::Utf32(order) if with_bom || order == Order::Mark => bom(4, order == Order::Big),
            Format::Family(Dialect::Corrected) | Format::Single(_) if with_bom => {
                return Err(format!("--bom: {} has no byte order mark", to.title()));
            }
            Format::Family(d) if with_bom => d
                .encode(0xFEFF)
                .map(|e| e.as_bytes().to_vec())
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        // Out of the family, the magic number is written here (within it,
        // by the transcoder).
        let prefix = if magic && !matches!(from, Format::Family(_)) {
            family::MAGIC.to_vec()
        } else {
            prefix
        };
        Ok(Converter {
            from,
            to,
            policy,
            magic,
            prefix,
            inner: None,
        })
    }

    /// Converts what it can of `input` (all of it with `last`), appending
    /// to `out`; returns how many bytes of `input` it read. What is left is
    /// a tail that more input may complete, to be given again.
    fn feed(&mut self, input: &[u8], last: bool, out: &mut Vec<u8>) -> Result<usize, Failure> {
        if let Some(inner) = &mut self.inner {
            return inner.feed(input, last, out);
        }
        // The byte order of `utf-16` and `utf-32` input: its byte order
        // mark's (dropped), little-endian without one.
        let (from, skip) = match self.from {
            Format::Utf16(Order::Mark) | Format::Utf32(Order::Mark) => {
                let utf16 = matches!(self.from, Format::Utf16(_));
                let unit = if utf16 { 2 } else { 4 };
                if input.len() < unit && !last {
                    return Ok(0);
                }
                let order = if input.starts_with(&bom(unit, false)) {
                    Some(Order::Little)
                } else if input.starts_with(&bom(unit, true)) {
                    Some(Order::Big)
                } else {
                    None
                };
                let skip = if order.is_some() { unit } else { 0 };
                let order = order.unwrap_or(Order::Little);
                let from = if utf16 {
                    Format::Utf16(order)
                } else {
                    Format::Utf32(order)
                };
                (from, skip)
            }
            from => (from, 0),
        };
        let mut inner = Inner::new(from, self.from, self.to, self.policy, self.magic, skip);
        out.extend_from_slice(&self.prefix);
        let read = inner.feed(&input[skip..], last, out);
        self.inner = Some(inner);
        Ok(skip + read?)
    }

    /// How many sequences were replaced (with U+FFFD, or `?`), and the
    /// offset in the input of the first.
    fn replacements(&self) -> (u64, Option<usize>) {
        self.inner.as_ref().map_or((0, None), Inner::replacements)
    }

    /// Converts all of `reader` into `writer`, a piece at a time.
    fn stream(&mut self, mut reader: impl Read, writer: &mut impl Write) -> Result<(), Failure> {
        let mut buf = vec![0u8; PIECE];
        let mut out = Vec::with_capacity(PIECE * 2);
        let mut len = 0;
        loop {
            let n = match reader.read(&mut buf[len..]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Failure::Read(e)),
            };
            len += n;
            let last = n == 0;
            out.clear();
            // On an error, `out` holds the conversion of what came before
            // it, which goes out first (to standard output; a file is
            // removed anyway).
            let fed = self.feed(&buf[..len], last, &mut out);
            writer.write_all(&out).map_err(Failure::Write)?;
            let read = fed?;
            if last {
                return Ok(());
            }
            buf.copy_within(read..len, 0);
            len -= read;
        }
    }
}

/// The conversion proper, the input's byte order known.
enum Inner {
    /// Between two members of the family.
    Family {
        transcoder: Transcoder,
        from: Dialect,
        to: Dialect,
    },
    /// UTF-8 or WTF-8 to UTF-16.
    ToUtf16(ToUtf16),
    /// UTF-16 to WTF-8 or UTF-8.
    FromUtf16(Utf16ToWtf8),
    /// Everything else.
    Chain(Box<Chain>),
}

impl Inner {
    /// The conversion from `from` (its byte order known; `named`, as the
    /// user named it) to `to`, of input that starts at offset `base`.
    fn new(
        from: Format,
        named: Format,
        to: Format,
        policy: Policy,
        magic: bool,
        base: usize,
    ) -> Inner {
        let wtf8_or_utf8 = |d| matches!(d, Dialect::Wtf8 | Dialect::Utf8);
        match (from, to) {
            (Format::Family(from), Format::Family(to)) => Inner::Family {
                transcoder: Transcoder::new(from, to, policy).with_magic_number(magic),
                from,
                to,
            },
            (Format::Family(d), Format::Utf16(order)) if wtf8_or_utf8(d) => {
                Inner::ToUtf16(ToUtf16::new(d, order == Order::Big, policy))
            }
            (Format::Utf16(order), Format::Family(d)) if wtf8_or_utf8(d) => Inner::FromUtf16(
                Utf16ToWtf8::new(order == Order::Big, named, to, policy, base),
            ),
            _ => Inner::Chain(Box::new(Chain::new(from, named, to, policy, base))),
        }
    }

    fn feed(&mut self, input: &[u8], last: bool, out: &mut Vec<u8>) -> Result<usize, Failure> {
        match self {
            Inner::Family {
                transcoder,
                from,
                to,
            } => transcoder.transcode_to_vec(input, out, last).map_err(|e| {
                Failure::Input(transcode_message(
                    &e,
                    Format::Family(*from),
                    Format::Family(*to),
                ))
            }),
            Inner::ToUtf16(stage) => stage.feed(input, last, out),
            Inner::FromUtf16(stage) => stage.feed(input, last, out),
            Inner::Chain(chain) => chain.feed(input, last, out),
        }
    }

    fn replacements(&self) -> (u64, Option<usize>) {
        match self {
            Inner::Family { transcoder, .. } => {
                (transcoder.replacements(), transcoder.first_replacement())
            }
            Inner::ToUtf16(stage) => (stage.replaced, stage.first_replaced),
            Inner::FromUtf16(stage) => (stage.replaced, stage.first_replaced),
            Inner::Chain(chain) => chain.replacements(),
        }
    }
}

/// The message for a transcoder's error.
fn transcode_message(e: &TranscodeError, from: Format, to: Format) -> String {
    message(e.offset(), e.cause(), from, to)
}

/// The message for an error at input offset `at`.
fn message(at: usize, cause: Cause, from: Format, to: Format) -> String {
    match cause {
        Cause::Malformed(kind) => {
            let what = match from {
                Format::Family(d) => family::describe(kind, d),
                _ => kind.description().to_owned(),
            };
            format!("invalid {} at byte {at}: {what}", from.title())
        }
        Cause::Unencodable(why) => unencodable(at, to, why),
        Cause::Reserved => format!(
            "cannot convert to {} at byte {at}: reserved FE/FF run, which only Corrected \
             UTF-8 holds",
            to.title()
        ),
        _ => format!("cannot convert to {} at byte {at}", to.title()),
    }
}

fn unencodable(at: usize, to: Format, why: EncodeError) -> String {
    format!("cannot convert to {} at byte {at}: {why}", to.title())
}

/// Where WTF-8 `bytes`, of which more follow, can be cut so that
/// converting the two sides apart gives what converting them together
/// does: before an unfinished sequence in the last 3 bytes (as `repair`
/// cuts), and before a lead surrogate that ends the rest, which a trail
/// surrogate in the next piece would make an error (WTF-8 writes that pair
/// as a 4-byte form).
fn wtf8_cut(bytes: &[u8]) -> usize {
    let mut cut = utf8guard::trim_partial_utf8(bytes);
    if cut >= 3
        && bytes[cut - 3] == 0xED
        && (0xA0..=0xAF).contains(&bytes[cut - 2])
        && bytes[cut - 1] & 0xC0 == 0x80
    {
        cut -= 3;
    }
    cut
}

/// UTF-8 or WTF-8 to UTF-16, a piece at a time.
struct ToUtf16 {
    from: Dialect,
    big_endian: bool,
    policy: Policy,
    /// Bytes read by earlier calls.
    consumed: usize,
    units: Vec<u16>,
    /// U+FFFD written in place of ill-formed sequences.
    replaced: u64,
    /// The input offset of the first one.
    first_replaced: Option<usize>,
}

impl ToUtf16 {
    fn new(from: Dialect, big_endian: bool, policy: Policy) -> Self {
        ToUtf16 {
            from,
            big_endian,
            policy,
            consumed: 0,
            units: Vec::new(),
            replaced: 0,
            first_replaced: None,
        }
    }

    fn feed(&mut self, input: &[u8], last: bool, out: &mut Vec<u8>) -> Result<usize, Failure> {
        let cut = if last { input.len() } else { wtf8_cut(input) };
        self.units.clear();
        // Strictly, so that each ill-formed sequence is counted (and named)
        // where it is replaced: one U+FFFD per maximal subpart.
        let mut done = 0;
        loop {
            let rest = &input[done..cut];
            let result = match self.from {
                Dialect::Utf8 => utf8guard::utf8_to_utf16(rest, Policy::Strict, &mut self.units),
                _ => utf8guard::wtf8_to_utf16(rest, Policy::Strict, &mut self.units),
            };
            let Err(e) = result else { break };
            let at = self.consumed + done + e.offset();
            if self.policy == Policy::Strict {
                // The units before the error too.
                put_units(&self.units, self.big_endian, out);
                let Cause::Malformed(kind) = e.cause() else {
                    unreachable!("UTF-8 and WTF-8 to UTF-16 fail only on ill-formed input")
                };
                let what = family::describe(kind, self.from);
                return Err(Failure::Input(format!(
                    "invalid {} at byte {at}: {what}",
                    Format::Family(self.from).title()
                )));
            }
            self.units.push(0xFFFD);
            self.replaced += 1;
            self.first_replaced.get_or_insert(at);
            done += e.offset() + e.error_len().unwrap_or(rest.len() - e.offset());
        }
        put_units(&self.units, self.big_endian, out);
        self.consumed += cut;
        Ok(cut)
    }
}

fn put_units(units: &[u16], big_endian: bool, out: &mut Vec<u8>) {
    out.reserve(units.len() * 2);
    for &u in units {
        let bytes = if big_endian {
            u.to_be_bytes()
        } else {
            u.to_le_bytes()
        };
        out.extend_from_slice(&bytes);
    }
}

fn put_units32(units: &[u32], big_endian: bool, out: &mut Vec<u8>) {
    out.reserve(units.len() * 4);
    for &u in units {
        let bytes = if big_endian {
            u.to_be_bytes()
        } else {
            u.to_le_bytes()
        };
        out.extend_from_slice(&bytes);
    }
}

/// UTF-16 to WTF-8 (or UTF-8, where a lone surrogate is an error or
/// U+FFFD), a piece at a time.
struct Utf16ToWtf8 {
    big_endian: bool,
    strict_utf8: bool,
    policy: Policy,
    /// The source and the target, as named (for messages).
    from: Format,
    to: Format,
    /// Bytes read by earlier calls (and a byte order mark before them).
    consumed: usize,
    units: Vec<u16>,
    /// U+FFFD written in place of what could not be converted.
    replaced: u64,
    /// The input offset of the first thing replaced.
    first_replaced: Option<usize>,
}

const REPLACEMENT: &[u8] = "\u{FFFD}".as_bytes();

impl Utf16ToWtf8 {
    /// From UTF-16 (`from`, as named) to WTF-8, or to UTF-8 when `to`
    /// cannot hold lone surrogates; the input starts at offset `base`.
    fn new(big_endian: bool, from: Format, to: Format, policy: Policy, base: usize) -> Self {
        Utf16ToWtf8 {
            big_endian,
            strict_utf8: !holds_surrogates(to),
            policy,
            from,
            to,
            consumed: base,
            units: Vec::new(),
            replaced: 0,
            first_replaced: None,
        }
    }

    /// Writes U+FFFD for what starts at input offset `at`.
    fn replace(&mut self, at: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(REPLACEMENT);
        self.replaced += 1;
        self.first_replaced.get_or_insert(at);
    }

    fn unit(&self, pair: &[u8]) -> u16 {
        let pair = [pair[0], pair[1]];
        if self.big_endian {
            u16::from_be_bytes(pair)
        } else {
            u16::from_le_bytes(pair)
        }
    }

    fn feed(&mut self, input: &[u8], last: bool, out: &mut Vec<u8>) -> Result<usize, Failure> {
        let mut units = std::mem::take(&mut self.units);
        units.clear();
        units.extend(input.chunks_exact(2).map(|pair| self.unit(pair)));
        let result = self.convert(&units, input.len(), last, out);
        self.units = units;
        result
    }

    fn convert(
        &mut self,
        units: &[u16],
        len: usize,
        last: bool,
        out: &mut Vec<u8>,
    ) -> Result<usize, Failure> {
        let mut units = units;
        // A lead surrogate at the end may pair with the next piece's first
        // unit: it waits for it.
        if !last && units.last().is_some_and(|&u| is_lead(u)) {
            units = &units[..units.len() - 1];
        }
        // A lead surrogate before the odd byte that ends the input is a
        // pair cut short: one error with that byte, one U+FFFD, as CPython
        // and WHATWG decode it (a target that holds lone surrogates keeps
        // the lead, as CPython's surrogatepass does).
        let lead_cut_short =
            last && len % 2 == 1 && self.strict_utf8 && units.last().is_some_and(|&u| is_lead(u));
        if lead_cut_short {
            units = &units[..units.len() - 1];
        }
        if self.strict_utf8 {
            // Strictly, so that each lone surrogate is counted (and named)
            // where it is replaced.
            let mut done = 0;
            while let Err(e) = utf8guard::utf16_to_utf8(&units[done..], Policy::Strict, out) {
                let at = self.consumed + 2 * (done + e.offset());
                if self.policy == Policy::Strict {
                    return Err(Failure::Input(unencodable(
                        at,
                        self.to,
                        EncodeError::Surrogate,
                    )));
                }
                self.replace(at, out);
                done += e.offset() + 1;
            }
        } else {
            utf8guard::utf16_to_wtf8(units, out);
        }
        let mut read = 2 * units.len();
        if last && len % 2 == 1 {
            let at = self.consumed + read;
            if self.policy == Policy::Strict {
                return Err(Failure::Input(if lead_cut_short {
                    unencodable(at, self.to, EncodeError::Surrogate)
                } else {
                    format!(
                        "invalid {} at byte {at}: input ends inside a 2-byte code unit",
                        self.from.title()
                    )
                }));
            }
            self.replace(at, out);
            read = len;
        }
        self.consumed += read;
        Ok(read)
    }

    /// How many bytes of `input` (from the start of the last piece fed)
    /// the first `chars` characters it was converted to came from.
    fn skip(&self, input: &[u8], chars: usize) -> usize {
        let mut i = 0;
        for _ in 0..chars {
            let Some(pair) = input.get(i..i + 2) else {
                return input.len();
            };
            let pairs_with_next = input
                .get(i + 2..i + 4)
                .is_some_and(|next| (0xDC00..0xE000).contains(&self.unit(next)));
            i += if is_lead(self.unit(pair)) && pairs_with_next {
                4
            } else {
                2
            };
        }
        i.min(input.len())
    }
}

fn is_lead(unit: u16) -> bool {
    (0xD800..0xDC00).contains(&unit)
}

/// `format` holds lone surrogates: UTF-16, and WTF-8 and the other members
/// of the family that write them one by one.
fn holds_surrogates(format: Format) -> bool {
    match format {
        Format::Family(d) => d.encode(0xD800).is_ok(),
        Format::Utf16(_) => true,
        _ => false,
    }
}

/// UTF-32 to UTF-8, a piece at a time. A surrogate or a value above
/// U+10FFFF is ill-formed input.
struct Utf32ToUtf8 {
    big_endian: bool,
    policy: Policy,
    /// The source as named (for messages).
    from: Format,
    /// Bytes read by earlier calls (and a byte order mark before them).
    consumed: usize,
    units: Vec<u32>,
    bytes: Vec<u8>,
    replaced: u64,
    first_replaced: Option<usize>,
}

impl Utf32ToUtf8 {
    fn new(big_endian: bool, from: Format, policy: Policy, base: usize) -> Self {
        Utf32ToUtf8 {
            big_endian,
            policy,
            from,
            consumed: base,
            units: Vec::new(),
            bytes: Vec::new(),
            replaced: 0,
            first_replaced: None,
        }
    }

    fn replace(&mut self, at: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(REPLACEMENT);
        self.replaced += 1;
        self.first_replaced.get_or_insert(at);
    }

    fn feed(&mut self, input: &[u8], last: bool, out: &mut Vec<u8>) -> Result<usize, Failure> {
        let big_endian = self.big_endian;
        let mut units = std::mem::take(&mut self.units);
        units.clear();
        units.extend(input.chunks_exact(4).map(|u| {
            let u = [u[0], u[1], u[2], u[3]];
            if big_endian {
                u32::from_be_bytes(u)
            } else {
                u32::from_le_bytes(u)
            }
        }));
        let mut bytes = std::mem::take(&mut self.bytes);
        if bytes.len() < 4 * units.len() {
            bytes.resize(4 * units.len(), 0);
        }
        let result = self.convert(&units, &mut bytes, input.len(), last, out);
        self.units = units;
        self.bytes = bytes;
        result
    }

    fn convert(
        &mut self,
        units: &[u32],
        bytes: &mut [u8],
        len: usize,
        last: bool,
        out: &mut Vec<u8>,
    ) -> Result<usize, Failure> {
        let mut i = 0;
        while i < units.len() {
            let p = utf8guard::utf32_to_utf8_into(&units[i..], Policy::Strict, bytes);
            out.extend_from_slice(&bytes[..p.written]);
            match p.result {
                Ok(Status::InputEmpty) => i = units.len(),
                Ok(_) => i += p.read,
                Err(e) => {
                    let k = i + e.offset();
                    let at = self.consumed + 4 * k;
                    if self.policy == Policy::Strict {
                        let what = utf32_error(units[k]);
                        return Err(Failure::Input(format!(
                            "invalid {} at byte {at}: {what}",
                            self.from.title()
                        )));
                    }
                    self.replace(at, out);
                    i = k + 1;
                }
            }
        }
        let mut read = 4 * units.len();
        if last && !len.is_multiple_of(4) {
            let at = self.consumed + read;
            if self.policy == Policy::Strict {
                return Err(Failure::Input(format!(
                    "invalid {} at byte {at}: input ends inside a 4-byte code unit",
                    self.from.title()
                )));
            }
            self.replace(at, out);
            read = len;
        }
        self.consumed += read;
        Ok(read)
    }
}

/// Why UTF-32 unit `unit` is not a character.
pub fn utf32_error(unit: u32) -> String {
    if unit > 0x10_FFFF {
        format!("{unit:08X} is above 10FFFF, the highest code point")
    } else {
        format!("{unit:08X} is a surrogate code point (D800..DFFF), not a character")
    }
}

/// The first stage of a [`Chain`]: the input to UTF-8 (or WTF-8).
enum Decoder {
    /// The input is UTF-8, read by the second stage itself.
    Direct,
    Family {
        transcoder: Transcoder,
        from: Dialect,
    },
    Utf16(Utf16ToWtf8),
    Utf32(Utf32ToUtf8),
    Single(SingleByte),
}

impl Decoder {
    /// The number of bytes at the start of `input` (the last piece fed)
    /// that the first `chars` characters written came from; `None` when an
    /// ill-formed sequence, which the first stage replaced, comes first.
    fn skip(&self, input: &[u8], at_start: bool, chars: usize) -> Option<usize> {
        match self {
            Decoder::Direct => None,
            Decoder::Family { from, .. } => {
                if chars == 0 {
                    // Past a magic number at the start of the document.
                    let magic = at_start
                        && *from == Dialect::Corrected
                        && input.starts_with(&family::MAGIC);
                    return Some(if magic { family::MAGIC.len() } else { 0 });
                }
                let mut n = 0;
                for item in from.decode(input) {
                    match item {
                        utf8guard::Decoded::Char { .. } => {
                            n += 1;
                            if n == chars {
                                return Some(item.offset() + item.len());
                            }
                        }
                        _ => return None,
                    }
                }
                Some(input.len())
            }
            Decoder::Utf16(stage) => Some(stage.skip(input, chars)),
            Decoder::Utf32(_) => Some((4 * chars).min(input.len())),
            Decoder::Single(_) => Some(chars.min(input.len())),
        }
    }

    fn replacements(&self) -> (u64, Option<usize>) {
        match self {
            Decoder::Direct | Decoder::Single(_) => (0, None),
            Decoder::Family { transcoder, .. } => {
                (transcoder.replacements(), transcoder.first_replacement())
            }
            Decoder::Utf16(stage) => (stage.replaced, stage.first_replaced),
            Decoder::Utf32(stage) => (stage.replaced, stage.first_replaced),
        }
    }
}

/// The second stage of a [`Chain`]: UTF-8 (or WTF-8) to the target.
enum Encoder {
    /// The target is what the first stage writes.
    Copy,
    /// Another member of the family.
    Family {
        from: Dialect,
        to: Dialect,
    },
    Utf16 {
        big_endian: bool,
        units: Vec<u16>,
    },
    Utf32 {
        big_endian: bool,
        units: Vec<u32>,
    },
    Single {
        encoding: SingleByte,
        bytes: Vec<u8>,
    },
}

/// What the second stage replaced, in one call: how many, and the offset
/// of the first in its input.
#[derive(Default)]
struct Replaced {
    count: u64,
    first: Option<usize>,
}

/// An error of the second stage: at an offset of its input, and why.
struct Stop {
    at: usize,
    cause: Cause,
}

impl Encoder {
    /// Converts `input` (all of it with `last`) to `out`; returns how much
    /// it read. With `direct`, `input` is the command's input (UTF-8), else
    /// the first stage's output, in which U+FFFD replaced what the first
    /// stage could not convert: it is not counted again.
    fn feed(
        &mut self,
        input: &[u8],
        last: bool,
        policy: Policy,
        direct: bool,
        out: &mut Vec<u8>,
        replaced: &mut Replaced,
    ) -> Result<usize, Stop> {
        let stop = |e: TranscodeError| Stop {
            at: e.offset(),
            cause: e.cause(),
        };
        match self {
            Encoder::Copy => {
                out.extend_from_slice(input);
                Ok(input.len())
            }
            Encoder::Family { from, to } => {
                // Whole characters: a transcoder of its own each time.
                let mut t = Transcoder::new(*from, *to, policy);
                let read = t.transcode_to_vec(input, out, true).map_err(stop)?;
                replaced.count += t.replacements();
                if replaced.first.is_none() {
                    replaced.first = t.first_replacement();
                }
                Ok(read)
            }
            Encoder::Utf16 { big_endian, units } => {
                units.clear();
                utf8guard::wtf8_to_utf16(input, policy, units).map_err(stop)?;
                put_units(units, *big_endian, out);
                Ok(input.len())
            }
            Encoder::Utf32 { big_endian, units } => {
                if units.len() < input.len() {
                    units.resize(input.len(), 0);
                }
                let room = &mut units[..input.len()];
                let p = utf8guard::utf8_to_utf32_into(input, policy, room, last);
                put_units32(&room[..p.written], *big_endian, out);
                let read = p.result.map(|_| p.read).map_err(stop)?;
                // U+FFFD written, less those of the input.
                let written = room[..p.written].iter().filter(|&&u| u == 0xFFFD).count();
                if written > count_replacements(&input[..read]) {
                    replaced.count += (written - count_replacements(&input[..read])) as u64;
                    if replaced.first.is_none() {
                        replaced.first = first_replaced(input, direct, |src| {
                            let mut room = vec![0; src.len()];
                            utf8guard::utf8_to_utf32_into(src, Policy::Strict, &mut room, last)
                        });
                    }
                }
                Ok(read)
            }
            Encoder::Single { encoding, bytes } => {
                if bytes.len() < input.len() {
                    bytes.resize(input.len(), 0);
                }
                let room = &mut bytes[..input.len()];
                let p = utf8guard::utf8_to_single_byte_into(*encoding, input, policy, room, last);
                let written = &room[..p.written];
                out.extend_from_slice(written);
                let read = p.result.map(|_| p.read).map_err(stop)?;
                // `?` written, less those of the input (and, after a first
                // stage, less the U+FFFD it wrote).
                let count = |bytes: &[u8]| bytes.iter().filter(|&&b| b == b'?').count();
                let mut already = count(&input[..read]);
                if !direct {
                    already += count_replacements(&input[..read]);
                }
                if count(written) > already {
                    replaced.count += (count(written) - already) as u64;
                    if replaced.first.is_none() {
                        let encoding = *encoding;
                        replaced.first = first_replaced(input, direct, |src| {
                            let mut room = vec![0; src.len()];
                            utf8guard::utf8_to_single_byte_into(
                                encoding,
                                src,
                                Policy::Strict,
                                &mut room,
                                last,
                            )
                        });
                    }
                }
                Ok(read)
            }
        }
    }
}

/// How many U+FFFD `utf8` holds.
fn count_replacements(utf8: &[u8]) -> usize {
    utf8.windows(3).filter(|w| *w == REPLACEMENT).count()
}

/// Where the first thing that `convert` (a strict conversion out of
/// UTF-8) replaces in `input` starts: its first error, but, when not
/// `direct`, for the U+FFFD of the first stage.
fn first_replaced(
    input: &[u8],
    direct: bool,
    convert: impl Fn(&[u8]) -> Progress,
) -> Option<usize> {
    let mut pos = 0;
    while pos < input.len() {
        let p = convert(&input[pos..]);
        match p.result {
            Ok(Status::InputEmpty) => return None,
            Ok(_) => pos += p.read.max(1),
            Err(e) => {
                let at = pos + e.offset();
                let len = e.error_len().unwrap_or(input.len() - at);
                if direct || &input[at..at + len] != REPLACEMENT {
                    return Some(at);
                }
                pos = at + len;
            }
        }
    }
    None
}

/// A conversion in two stages: the input to UTF-8 (WTF-8 when the target
/// holds lone surrogates), then to the target, a piece at a time; or, from
/// UTF-8 to UTF-32 or a single-byte encoding, the second stage alone.
/// Offsets of the second stage's errors are traced back to the input.
struct Chain {
    decoder: Decoder,
    encoder: Encoder,
    /// The first stage's output for the current piece.
    mid: Vec<u8>,
    policy: Policy,
    /// The source and the target, as named (for messages).
    from: Format,
    to: Format,
    /// Input bytes read by earlier calls (and a byte order mark before them).
    consumed: usize,
    /// What the second stage replaced: how many, and the input offset of
    /// the first.
    replaced: u64,
    first_replaced: Option<usize>,
}

impl Chain {
    fn new(from: Format, named: Format, to: Format, policy: Policy, base: usize) -> Chain {
        let mid = if holds_surrogates(to) {
            Dialect::Wtf8
        } else {
            Dialect::Utf8
        };
        let decoder = match from {
            Format::Family(Dialect::Utf8) if mid == Dialect::Utf8 => Decoder::Direct,
            Format::Family(d) => Decoder::Family {
                transcoder: Transcoder::new(d, mid, policy),
                from: d,
            },
            Format::Utf16(order) => Decoder::Utf16(Utf16ToWtf8::new(
                order == Order::Big,
                named,
                to,
                policy,
                base,
            )),
            Format::Utf32(order) => {
                Decoder::Utf32(Utf32ToUtf8::new(order == Order::Big, named, policy, base))
            }
            Format::Single(encoding) => Decoder::Single(encoding),
        };
        let encoder = match to {
            Format::Family(d) if d == mid => Encoder::Copy,
            Format::Family(d) => Encoder::Family { from: mid, to: d },
            Format::Utf16(order) => Encoder::Utf16 {
                big_endian: order == Order::Big,
                units: Vec::new(),
            },
            Format::Utf32(order) => Encoder::Utf32 {
                big_endian: order == Order::Big,
                units: Vec::new(),
            },
            Format::Single(encoding) => Encoder::Single {
                encoding,
                bytes: Vec::new(),
            },
        };
        Chain {
            decoder,
            encoder,
            mid: Vec::new(),
            policy,
            from: named,
            to,
            consumed: base,
            replaced: 0,
            first_replaced: None,
        }
    }

    fn feed(&mut self, input: &[u8], last: bool, out: &mut Vec<u8>) -> Result<usize, Failure> {
        let base = self.consumed;
        let mut replaced = Replaced::default();
        if let Decoder::Direct = self.decoder {
            let result = self
                .encoder
                .feed(input, last, self.policy, true, out, &mut replaced);
            self.count(replaced.count, replaced.first.map(|at| base + at));
            let read = result.map_err(|stop| {
                Failure::Input(message(base + stop.at, stop.cause, self.from, self.to))
            })?;
            self.consumed += read;
            return Ok(read);
        }
        let mut mid = std::mem::take(&mut self.mid);
        mid.clear();
        let first = match &mut self.decoder {
            Decoder::Direct => unreachable!("handled above"),
            Decoder::Family { transcoder, from } => transcoder
                .transcode_to_vec(input, &mut mid, last)
                .map_err(|e| Failure::Input(transcode_message(&e, Format::Family(*from), self.to))),
            Decoder::Utf16(stage) => stage.feed(input, last, &mut mid),
            Decoder::Utf32(stage) => stage.feed(input, last, &mut mid),
            Decoder::Single(encoding) => {
                utf8guard::single_byte_to_utf8(*encoding, input, &mut mid);
                Ok(input.len())
            }
        };
        // `mid` holds whole characters, those before any error of the
        // first stage, which come before it.
        let second = self
            .encoder
            .feed(&mid, true, self.policy, false, out, &mut replaced);
        let at_start = base == 0;
        // The input offset of the character at `mid[m..]`.
        let trace = |m: usize| {
            let chars = mid[..m].iter().filter(|&&b| b & 0xC0 != 0x80).count();
            self.decoder.skip(input, at_start, chars).map(|k| base + k)
        };
        let first_replaced = replaced.first.and_then(trace);
        let error = second.err().map(|stop| {
            let at = trace(stop.at).unwrap_or(base);
            Failure::Input(message(at, stop.cause, self.from, self.to))
        });
        self.mid = mid;
        self.count(replaced.count, first_replaced);
        if let Some(error) = error {
            return Err(error);
        }
        let read = first?;
        self.consumed += read;
        Ok(read)
    }

    fn count(&mut self, count: u64, first: Option<usize>) {
        self.replaced += count;
        if self.first_replaced.is_none() {
            self.first_replaced = first;
        }
    }

    fn replacements(&self) -> (u64, Option<usize>) {
        let (count, first) = self.decoder.replacements();
        let first = match (first, self.first_replaced) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        (count + self.replaced, first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::convert::parse_format;
    use crate::repair::tests::Trickle;

    fn run_with(
        from: &str,
        to: &str,
        replace: bool,
        data: &[u8],
        step: usize,
    ) -> Result<Vec<u8>, String> {
        let policy = if replace {
            Policy::Replace
        } else {
            Policy::Strict
        };
        let from = parse_format(from).unwrap();
        let to = parse_format(to).unwrap();
        let mut c = Converter::new(from, to, policy, false, false).unwrap();
        let mut out = Vec::new();
        match c.stream(Trickle { data, step }, &mut out) {
            Ok(()) => Ok(out),
            Err(Failure::Input(m)) => Err(m),
            Err(other) => panic!("{other:?}"),
        }
    }

    /// The same answer whatever the reads' sizes.
    fn same_at_every_step(
        from: &str,
        to: &str,
        replace: bool,
        data: &[u8],
    ) -> Result<Vec<u8>, String> {
        let whole = run_with(from, to, replace, data, usize::MAX);
        for step in 1..=data.len().max(1) {
            assert_eq!(
                run_with(from, to, replace, data, step),
                whole,
                "{from} -> {to}, step {step}"
            );
        }
        whole
    }

    fn utf16le(units: &[u16]) -> Vec<u8> {
        units.iter().flat_map(|u| u.to_le_bytes()).collect()
    }

    #[test]
    fn wtf8_to_utf16_in_pieces() {
        // a, a lone lead, a pair as 4 bytes, a lone trail, euro.
        let wtf8 = b"a\xED\xA0\x80\xF0\x9F\x98\x80\xED\xB0\x80\xE2\x82\xAC";
        let units = [0x61, 0xD800, 0xD83D, 0xDE00, 0xDC00, 0x20AC];
        assert_eq!(
            same_at_every_step("wtf-8", "utf-16le", false, wtf8),
            Ok(utf16le(&units))
        );
        let be: Vec<u8> = units.iter().flat_map(|u| u.to_be_bytes()).collect();
        assert_eq!(same_at_every_step("wtf-8", "utf-16be", false, wtf8), Ok(be));
        // A lead then a trail, as 3-byte forms: not WTF-8, in any pieces.
        let pair = b"x\xED\xA0\xBD\xED\xB8\x80";
        assert_eq!(
            same_at_every_step("wtf-8", "utf-16le", false, pair),
            Err(
                "invalid WTF-8 at byte 4: surrogate pair, which must be a 4-byte sequence here"
                    .into()
            )
        );
        assert_eq!(
            same_at_every_step("wtf-8", "utf-16le", true, pair),
            Ok(utf16le(&[0x78, 0xD83D, 0xFFFD, 0xFFFD, 0xFFFD]))
        );
    }

    #[test]
    fn utf16_to_wtf8_and_utf8_in_pieces() {
        let units = [0x61, 0xD83D, 0xDE00, 0xDC00, 0xD800];
        let bytes = utf16le(&units);
        assert_eq!(
            same_at_every_step("utf-16le", "wtf-8", false, &bytes),
            Ok(b"a\xF0\x9F\x98\x80\xED\xB0\x80\xED\xA0\x80".to_vec())
        );
        assert_eq!(
            same_at_every_step("utf-16le", "utf-8", false, &bytes),
            Err("cannot convert to UTF-8 at byte 6: surrogate code point, which this encoding cannot hold".into())
        );
        assert_eq!(
            same_at_every_step("utf-16le", "utf-8", true, &bytes),
            Ok("a😀\u{FFFD}\u{FFFD}".as_bytes().to_vec())
        );
        let odd = [&bytes[..6], b"\x41"].concat();
        assert_eq!(
            same_at_every_step("utf-16le", "wtf-8", false, &odd),
            Err("invalid UTF-16LE at byte 6: input ends inside a 2-byte code unit".into())
        );
        assert_eq!(
            same_at_every_step("utf-16le", "wtf-8", true, &odd),
            Ok("a😀\u{FFFD}".as_bytes().to_vec())
        );
    }

    #[test]
    fn utf8_to_utf16_is_validated_first() {
        assert_eq!(
            same_at_every_step("utf-8", "utf-16be", false, "é😀".as_bytes()),
            Ok(vec![0x00, 0xE9, 0xD8, 0x3D, 0xDE, 0x00])
        );
        // A lone surrogate is WTF-8 but not UTF-8.
        assert_eq!(
            same_at_every_step("utf-8", "utf-16le", false, b"ab\xED\xA0\x80"),
            Err("invalid UTF-8 at byte 2: UTF-16 surrogate code point".into())
        );
        assert_eq!(
            same_at_every_step("utf-8", "utf-16le", true, b"ab\xED\xA0\x80"),
            Ok(utf16le(&[0x61, 0x62, 0xFFFD, 0xFFFD, 0xFFFD]))
        );
    }

    #[test]
    fn family_conversions_in_pieces() {
        let cesu = b"smile \xED\xA0\xBD\xED\xB8\x80!";
        assert_eq!(
            same_at_every_step("cesu-8", "utf-8", false, cesu),
            Ok("smile 😀!".as_bytes().to_vec())
        );
        // Corrected UTF-8: the magic number dropped, or written, and a
        // reserved run kept, whatever the reads.
        let corrected = b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0A\xC0\xAF\xFE\x80\x80\x80!";
        assert_eq!(
            same_at_every_step("corrected-utf-8", "corrected-utf-8", false, corrected),
            Ok(b"\xC0\xAF\xFE\x80\x80\x80!".to_vec())
        );
        assert_eq!(
            same_at_every_step("corrected-utf-8", "utf-8", true, corrected),
            Ok("Ï\u{FFFD}!".as_bytes().to_vec())
        );
        assert_eq!(
            same_at_every_step("corrected-utf-8", "utf-8", false, corrected),
            Err(
                "cannot convert to UTF-8 at byte 10: reserved FE/FF run, which only Corrected \
                 UTF-8 holds"
                    .into()
            )
        );
        assert_eq!(
            same_at_every_step("cesu-8", "utf-8", false, b"ok\xED\xA0\xBDx"),
            Err("invalid CESU-8 at byte 2: surrogate that is not half of a surrogate pair".into())
        );
    }

    #[test]
    fn usage_errors_are_refused() {
        let f = |s| parse_format(s).unwrap();
        let err = Converter::new(f("utf-8"), f("cesu-8"), Policy::Strict, true, false).err();
        assert_eq!(
            err.as_deref(),
            Some("--magic-number: only Corrected UTF-8 has a magic number, not CESU-8")
        );
        let err = Converter::new(f("utf-8"), f("cp1252"), Policy::Strict, false, true).err();
        assert_eq!(
            err.as_deref(),
            Some("--bom: Windows-1252 has no byte order mark")
        );
        assert!(parse_format("utf-7").is_err());
        assert_eq!(
            parse_format("ISO-8859-1"),
            Ok(Format::Single(SingleByte::Latin1))
        );
        assert_eq!(parse_format("UTF32"), Ok(Format::Utf32(Order::Mark)));
    }

    fn utf32le(text: &str) -> Vec<u8> {
        text.chars()
            .flat_map(|c| u32::from(c).to_le_bytes())
            .collect()
    }

    #[test]
    fn every_pair_through_utf8_in_pieces() {
        let text = "a\u{E9}\u{20AC}\u{1F600}\n";
        let utf16: Vec<u16> = text.encode_utf16().collect();
        let mut with_bom = vec![0xFE, 0xFF];
        with_bom.extend(utf16.iter().flat_map(|u| u.to_be_bytes()));
        // The byte order of `utf-16` from its mark, which is dropped.
        assert_eq!(
            same_at_every_step("utf-16", "utf-32le", false, &with_bom),
            Ok(utf32le(text))
        );
        // `utf-32` without a mark: little-endian; written: a mark first.
        let mut expected = vec![0xFF, 0xFE];
        expected.extend(utf16le(&utf16));
        assert_eq!(
            same_at_every_step("utf-32", "utf-16", false, &utf32le(text)),
            Ok(expected)
        );
        assert_eq!(
            same_at_every_step("utf-32le", "cesu-8", false, &utf32le(text)),
            Ok(b"a\xC3\xA9\xE2\x82\xAC\xED\xA0\xBD\xED\xB8\x80\n".to_vec())
        );
        assert_eq!(
            same_at_every_step("windows-1252", "utf-16le", false, b"\x93caf\xE9\x94 \x80"),
            Ok(utf16le(
                &"\u{201C}caf\u{E9}\u{201D} \u{20AC}"
                    .encode_utf16()
                    .collect::<Vec<_>>()
            ))
        );
        // A character Latin-1 lacks: where it starts in the input.
        assert_eq!(
            same_at_every_step("utf-16le", "latin-1", false, &utf16le(&utf16)),
            Err("cannot convert to Latin-1 at byte 4: character this encoding cannot hold".into())
        );
        assert_eq!(
            same_at_every_step("utf-16le", "latin-1", true, &utf16le(&utf16)),
            Ok(b"a\xE9??\n".to_vec())
        );
        assert_eq!(
            same_at_every_step(
                "cesu-8",
                "windows-1252",
                false,
                b"\xE2\x82\xACx\xED\xA0\xBD\xED\xB8\x80"
            ),
            Err(
                "cannot convert to Windows-1252 at byte 4: character this encoding cannot hold"
                    .into()
            )
        );
        // A lone surrogate: WTF-8 and UTF-16 hold it, UTF-32 does not.
        let lone = utf16le(&[0x61, 0xD800, 0x62]);
        assert_eq!(
            same_at_every_step("utf-16le", "utf-32be", false, &lone),
            Err("cannot convert to UTF-32BE at byte 2: surrogate code point, which this encoding cannot hold".into())
        );
        assert_eq!(
            same_at_every_step("utf-16le", "utf-16be", false, &lone),
            Ok(vec![0, 0x61, 0xD8, 0, 0, 0x62])
        );
        let big = [0x61, 0, 0, 0, 0, 0, 0x11, 0, 0x62, 0];
        assert_eq!(
            same_at_every_step("utf-32le", "utf-16le", false, &big),
            Err(
                "invalid UTF-32LE at byte 4: 00110000 is above 10FFFF, the highest code point"
                    .into()
            )
        );
        assert_eq!(
            same_at_every_step("utf-32le", "latin-1", true, &big),
            Ok(b"a??".to_vec())
        );
        // Corrected UTF-8 holds no C1 control.
        assert_eq!(
            same_at_every_step("latin-1", "corrected-utf-8", false, b"ab\x85"),
            Err("cannot convert to Corrected UTF-8 at byte 2: C1 control (U+0080..U+009F), which Corrected UTF-8 skips".into())
        );
    }

    #[test]
    fn replacements_are_counted_once_from_their_first() {
        let cases: [(&str, &str, &[u8], u64, usize); 5] = [
            // The euro sign, then a lead surrogate and the odd byte after
            // it, which are one.
            ("utf-16le", "latin-1", b"a\x00\xAC\x20\x00\xD8b", 2, 2),
            ("utf-8", "latin-1", b"ab\xE2\x82\xAC\xFF", 2, 2),
            ("cesu-8", "latin-1", b"\xE2\x82\xAC\xFFx", 2, 0),
            ("wtf-8", "windows-1252", b"ab\xC4\x80\xED\xA0\x80", 2, 2),
            (
                "utf-32be",
                "latin-1",
                b"\x00\x00\x00a\x00\x00\xD8\x00\x00\x00\x01\x00",
                2,
                4,
            ),
        ];
        for (from, to, data, count, first) in cases {
            for step in 1..=data.len() {
                let (from_f, to_f) = (parse_format(from).unwrap(), parse_format(to).unwrap());
                let mut c = Converter::new(from_f, to_f, Policy::Replace, false, false).unwrap();
                let mut out = Vec::new();
                c.stream(Trickle { data, step }, &mut out).unwrap();
                assert_eq!(
                    c.replacements(),
                    (count, Some(first)),
                    "{from} -> {to}, step {step}"
                );
            }
        }
    }

    #[test]
    fn what_comes_before_an_error_is_written() {
        let cases: [(&str, &str, &[u8], &[u8]); 5] = [
            ("cesu-8", "utf-8", b"ok\xED\xA0\xBDx", b"ok"),
            (
                "utf-8",
                "utf-16be",
                b"abcd\xC0xxxxxxxx",
                b"\x00a\x00b\x00c\x00d",
            ),
            // A lead, then a trail where WTF-8 needs the 4-byte form.
            (
                "wtf-8",
                "utf-16le",
                b"ab\xED\xA0\x80\xED\xB0\x80",
                b"a\x00b\x00\x00\xD8",
            ),
            ("utf-8", "utf-16be", b"a\xC0", b"\x00a"),
            ("utf-16le", "utf-8", b"a\x00\x00\xD8b\x00", b"a"),
        ];
        for (from, to, data, before) in cases {
            for step in 1..=data.len() {
                let policy = Policy::Strict;
                let (from_f, to_f) = (parse_format(from).unwrap(), parse_format(to).unwrap());
                let mut c = Converter::new(from_f, to_f, policy, false, false).unwrap();
                let mut out = Vec::new();
                let result = c.stream(Trickle { data, step }, &mut out);
                assert!(
                    matches!(result, Err(Failure::Input(_))),
                    "{from} step {step}"
                );
                assert_eq!(out, before, "{from} -> {to}, step {step}");
            }
        }
    }

    /// Inputs made of the fragments where the conversions differ: pairs
    /// and lone surrogates, `C0 80`, 4-byte forms, reserved runs, stray
    /// and cut-short bytes, the magic number.
    fn soup(seed: u64, count: usize) -> Vec<Vec<u8>> {
        const BITS: [&[u8]; 14] = [
            b"a",
            b"\n",
            b"\xC3\xA9",
            b"\xE2\x82\xAC",
            b"\xF0\x9F\x98\x80",
            b"\xED\xA0\xBD",
            b"\xED\xB8\x80",
            b"\xC0\x80",
            b"\xC0\xAF",
            b"\xFE\x80\x80",
            b"\x80",
            b"\xF0\x9F",
            b"\x00",
            b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0A",
        ];
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..count)
            .map(|_| {
                let len = next() % 24;
                (0..len)
                    .flat_map(|_| BITS[(next() % BITS.len() as u64) as usize].iter().copied())
                    .collect()
            })
            .collect()
    }

    /// What `stream` writes and how it ends, reading `step` bytes at a time.
    fn streamed(c: &mut Converter, data: &[u8], step: usize) -> (Vec<u8>, Option<String>) {
        let mut out = Vec::new();
        match c.stream(Trickle { data, step }, &mut out) {
            Ok(()) => (out, None),
            Err(Failure::Input(m)) => (out, Some(m)),
            Err(other) => panic!("{other:?}"),
        }
    }

    #[test]
    fn streaming_matches_the_whole_input_conversion() {
        let pairs = [
            (Dialect::Cesu8, Dialect::Utf8),
            (Dialect::Utf8, Dialect::Cesu8),
            (Dialect::Mutf8, Dialect::Utf8),
            (Dialect::Wtf8, Dialect::Utf8),
            (Dialect::Corrected, Dialect::Utf8),
            (Dialect::Utf8, Dialect::Corrected),
            (Dialect::Corrected, Dialect::Corrected),
        ];
        for (i, data) in soup(0x9E37_79B9_7F4A_7C15, 300).iter().enumerate() {
            let step = 1 + i % 7;
            for (from, to) in pairs {
                for policy in [Policy::Strict, Policy::Replace] {
                    let mut c = Converter::new(
                        Format::Family(from),
                        Format::Family(to),
                        policy,
                        false,
                        false,
                    )
                    .unwrap();
                    let (out, error) = streamed(&mut c, data, step);
                    match utf8guard::transcode(from, to, data, policy) {
                        Ok(whole) => {
                            assert_eq!((out, error), (whole, None), "{from}->{to} {data:02X?}")
                        }
                        Err(e) => {
                            let expected =
                                transcode_message(&e, Format::Family(from), Format::Family(to));
                            assert_eq!(error, Some(expected), "{from}->{to} {data:02X?}");
                        }
                    }
                }
            }
            for policy in [Policy::Strict, Policy::Replace] {
                let mut c = Converter::new(
                    Format::Family(Dialect::Wtf8),
                    Format::Utf16(Order::Little),
                    policy,
                    false,
                    false,
                )
                .unwrap();
                let (out, error) = streamed(&mut c, data, step);
                let mut units = Vec::new();
                let whole = utf8guard::wtf8_to_utf16(data, policy, &mut units);
                assert_eq!(error.is_some(), whole.is_err(), "{data:02X?}");
                if let Err(e) = whole {
                    assert!(error.unwrap().contains(&format!("at byte {}:", e.offset())));
                } else {
                    let mut bytes = Vec::new();
                    put_units(&units, false, &mut bytes);
                    assert_eq!(out, bytes, "{data:02X?}");
                }
            }
            // Any bytes are UTF-16 of some units (an odd last byte aside).
            let even = &data[..data.len() & !1];
            let mut c = Converter::new(
                Format::Utf16(Order::Big),
                Format::Family(Dialect::Wtf8),
                Policy::Strict,
                false,
                false,
            )
            .unwrap();
            let units: Vec<u16> = even
                .chunks_exact(2)
                .map(|p| u16::from_be_bytes([p[0], p[1]]))
                .collect();
            let mut expected = Vec::new();
            utf8guard::utf16_to_wtf8(&units, &mut expected);
            assert_eq!(streamed(&mut c, even, step), (expected, None));
        }
    }

    #[test]
    fn chains_stream_as_they_convert_whole() {
        let pairs = [
            ("utf-16le", "latin-1"),
            ("utf-16be", "cp1252"),
            ("utf-16", "utf-32"),
            ("utf-32le", "cesu-8"),
            ("utf-32", "utf-16be"),
            ("latin-1", "utf-16le"),
            ("cp1252", "corrected-utf-8"),
            ("cesu-8", "utf-32be"),
            ("wtf-8", "cp1252"),
            ("corrected-utf-8", "latin-1"),
            ("utf-8", "latin-1"),
            ("utf-8", "utf-32le"),
            ("modified-utf-8", "utf-32"),
        ];
        for (i, data) in soup(0x2545_F491_4F6C_DD1D, 200).iter().enumerate() {
            let step = 1 + i % 7;
            for (from, to) in pairs {
                for policy in [Policy::Strict, Policy::Replace] {
                    let (from_f, to_f) = (parse_format(from).unwrap(), parse_format(to).unwrap());
                    let make = || Converter::new(from_f, to_f, policy, false, false).unwrap();
                    let (mut whole, mut pieces) = (make(), make());
                    let expected = streamed(&mut whole, data, usize::MAX);
                    let got = streamed(&mut pieces, data, step);
                    assert_eq!(got, expected, "{from} -> {to} {policy:?} {data:02X?}");
                    assert_eq!(
                        pieces.replacements(),
                        whole.replacements(),
                        "{from} -> {to} {data:02X?}"
                    );
                }
            }
        }
    }

    #[test]
    fn cuts_keep_sequences_and_lead_surrogates_whole() {
        assert_eq!(wtf8_cut(b"ab"), 2);
        assert_eq!(wtf8_cut(b"a\xE2\x82"), 1);
        assert_eq!(wtf8_cut(b"a\xED\xA0\x80"), 1);
        assert_eq!(wtf8_cut(b"a\xED\xA0\x80\xED\xB0"), 1);
        assert_eq!(wtf8_cut(b"a\xED\xB0\x80b"), 5);
    }
}
