//! Streaming conversion between any two of the encodings the crate reads
//! and writes: the members of the UTF-8 family, UTF-16, UTF-32, Latin-1
//! and Windows-1252.
//!
//! The pairs the crate converts in one step (within the family; UTF-8 or
//! WTF-8 and UTF-16; UTF-8 to UTF-32 or a single-byte encoding) take it;
//! every other goes through UTF-8 (WTF-8 when the target holds lone
//! surrogates) in two stages, a piece at a time (`chain`).

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::dialect::Dialect;
use crate::legacy::SingleByte;
use crate::transcode::{Policy, Transcoder};

mod chain;
mod error;
mod wide;

pub use error::{ConvertError, ConvertErrorKind, OptionError};

use chain::Chain;
use wide::{ToUtf16, Utf16ToWtf8};

/// The byte order of UTF-16 or UTF-32.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// Little-endian, without a byte order mark (`utf-16le`).
    Little,
    /// Big-endian, without a byte order mark (`utf-16be`).
    Big,
    /// `utf-16`, `utf-32`: read, the byte order of the input's byte order
    /// mark, which is dropped (little-endian without one); written, a byte
    /// order mark then little-endian (as CPython's `utf-16` and `utf-32`
    /// codecs do).
    Mark,
}

/// An encoding a [`Converter`] reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// A member of the UTF-8 family.
    Family(Dialect),
    /// UTF-16.
    Utf16(Order),
    /// UTF-32.
    Utf32(Order),
    /// Latin-1 or Windows-1252.
    Single(SingleByte),
}

/// One conversion, fed the input a piece at a time: the byte order mark
/// of `utf-16` and `utf-32` input read (and dropped) first, the one of the
/// output (or Corrected UTF-8's magic number) written first.
#[derive(Debug)]
pub struct Converter {
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
    /// A conversion from `from` to `to`; with `magic`, the output starts
    /// with Corrected UTF-8's magic number (`to` must be Corrected UTF-8);
    /// with `with_bom`, with a byte order mark (`to` must have one).
    pub fn new(
        from: Format,
        to: Format,
        policy: Policy,
        magic: bool,
        with_bom: bool,
    ) -> Result<Converter, OptionError> {
        if magic && to != Format::Family(Dialect::Corrected) {
            return Err(OptionError::NoMagicNumber);
        }
        let prefix = match to {
            Format::Utf16(order) if with_bom || order == Order::Mark => bom(2, order == Order::Big),
            Format::Utf32(order) if with_bom || order == Order::Mark => bom(4, order == Order::Big),
            Format::Family(Dialect::Corrected) | Format::Single(_) if with_bom => {
                return Err(OptionError::NoByteOrderMark);
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
            crate::decode::MAGIC.to_vec()
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
    /// a tail that more input may complete, to be given again. On an
    /// error, `out` holds the conversion of what came before it.
    pub fn feed(
        &mut self,
        input: &[u8],
        last: bool,
        out: &mut Vec<u8>,
    ) -> Result<usize, ConvertError> {
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
        let mut inner = Inner::new(from, self.to, self.policy, self.magic, skip);
        out.extend_from_slice(&self.prefix);
        let read = inner.feed(&input[skip..], last, out);
        self.inner = Some(inner);
        Ok(skip + read?)
    }

    /// How many sequences were replaced (with U+FFFD, or `?`), and the
    /// offset in the input of the first.
    pub fn replacements(&self) -> (u64, Option<usize>) {
        self.inner.as_ref().map_or((0, None), Inner::replacements)
    }
}

/// The conversion proper, the input's byte order known.
#[derive(Debug)]
enum Inner {
    /// Between two members of the family.
    Family(Transcoder),
    /// UTF-8 or WTF-8 to UTF-16.
    ToUtf16(ToUtf16),
    /// UTF-16 to WTF-8 or UTF-8.
    FromUtf16(Utf16ToWtf8),
    /// Everything else.
    Chain(Box<Chain>),
}

impl Inner {
    /// The conversion from `from` (its byte order known) to `to`, of input
    /// that starts at offset `base`.
    fn new(from: Format, to: Format, policy: Policy, magic: bool, base: usize) -> Inner {
        let wtf8_or_utf8 = |d| matches!(d, Dialect::Wtf8 | Dialect::Utf8);
        match (from, to) {
            (Format::Family(from), Format::Family(to)) => {
                Inner::Family(Transcoder::new(from, to, policy).with_magic_number(magic))
            }
            (Format::Family(d), Format::Utf16(order)) if wtf8_or_utf8(d) => {
                Inner::ToUtf16(ToUtf16::new(d, order == Order::Big, policy))
            }
            (Format::Utf16(order), Format::Family(d)) if wtf8_or_utf8(d) => {
                Inner::FromUtf16(Utf16ToWtf8::new(order == Order::Big, to, policy, base))
            }
            _ => Inner::Chain(Box::new(Chain::new(from, to, policy, base))),
        }
    }

    fn feed(&mut self, input: &[u8], last: bool, out: &mut Vec<u8>) -> Result<usize, ConvertError> {
        match self {
            Inner::Family(transcoder) => transcoder
                .transcode_to_vec(input, out, last)
                .map_err(ConvertError::from),
            Inner::ToUtf16(stage) => stage.feed(input, last, out),
            Inner::FromUtf16(stage) => stage.feed(input, last, out),
            Inner::Chain(chain) => chain.feed(input, last, out),
        }
    }

    fn replacements(&self) -> (u64, Option<usize>) {
        match self {
            Inner::Family(transcoder) => {
                (transcoder.replacements(), transcoder.first_replacement())
            }
            Inner::ToUtf16(stage) => stage.replaced.pair(),
            Inner::FromUtf16(stage) => stage.replaced.pair(),
            Inner::Chain(chain) => chain.replacements(),
        }
    }
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

/// U+FFFD in UTF-8.
const REPLACEMENT: &[u8] = "\u{FFFD}".as_bytes();

/// What a stage replaced: how many, and the offset of the first.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    count: u64,
    first: Option<usize>,
}

impl Tally {
    /// One replaced at `at`.
    fn note(&mut self, at: usize) {
        self.count += 1;
        self.first.get_or_insert(at);
    }

    /// Writes U+FFFD (in UTF-8) for what starts at `at`.
    fn replace(&mut self, at: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(REPLACEMENT);
        self.note(at);
    }

    /// `count` more, the first of them at `first`.
    fn add(&mut self, count: u64, first: Option<usize>) {
        self.count += count;
        if self.first.is_none() {
            self.first = first;
        }
    }

    fn pair(self) -> (u64, Option<usize>) {
        (self.count, self.first)
    }
}
