//! Streaming conversion between any two of the encodings the crate reads
//! and writes: the members of the UTF-8 family, UTF-16, UTF-32, Latin-1
//! and Windows-1252.
//!
//! The pairs the crate converts in one step (within the family; UTF-8 or
//! WTF-8 and UTF-16; UTF-8 to UTF-32 or a single-byte encoding) take it;
//! every other goes through UTF-8 (WTF-8 when the target holds lone
//! surrogates) in two stages, a piece at a time (`chain`). The stages to
//! and from UTF-16 and UTF-32 are in `wide`.

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
pub enum ByteOrder {
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
///
/// ```
/// use utf8guard::{ByteOrder, Dialect, Encoding, SingleByte};
///
/// assert_eq!(Encoding::from_name("UTF-16BE"), Some(Encoding::Utf16(ByteOrder::Big)));
/// assert_eq!(Encoding::from_name("cesu-8"), Some(Encoding::Family(Dialect::Cesu8)));
/// assert_eq!(Encoding::from_name("cp1252"), Some(Encoding::Single(SingleByte::Windows1252)));
/// assert_eq!(Encoding::Utf32(ByteOrder::Mark).name(), "utf-32");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// A member of the UTF-8 family.
    Family(Dialect),
    /// UTF-16.
    Utf16(ByteOrder),
    /// UTF-32.
    Utf32(ByteOrder),
    /// Latin-1 or Windows-1252.
    Single(SingleByte),
}

impl Encoding {
    /// The encoding's name: the dialect's ([`Dialect::name`]), `utf-16le`,
    /// `utf-16be`, `utf-16`, `utf-32le`, `utf-32be`, `utf-32`, or the
    /// single-byte encoding's ([`SingleByte::name`]).
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Family(d) => d.name(),
            Encoding::Utf16(ByteOrder::Little) => "utf-16le",
            Encoding::Utf16(ByteOrder::Big) => "utf-16be",
            Encoding::Utf16(ByteOrder::Mark) => "utf-16",
            Encoding::Utf32(ByteOrder::Little) => "utf-32le",
            Encoding::Utf32(ByteOrder::Big) => "utf-32be",
            Encoding::Utf32(ByteOrder::Mark) => "utf-32",
            Encoding::Single(single) => single.name(),
        }
    }

    /// The encoding a name stands for, in any case: `utf-16le`, `utf-16be`,
    /// `utf-16`, `utf-32le`, `utf-32be`, `utf-32` (or without the hyphen),
    /// the names [`SingleByte::from_name`] and then [`Dialect::from_name`]
    /// take.
    pub fn from_name(name: &str) -> Option<Encoding> {
        let wide = [
            ("utf-16le", "utf16le", Encoding::Utf16(ByteOrder::Little)),
            ("utf-16be", "utf16be", Encoding::Utf16(ByteOrder::Big)),
            ("utf-16", "utf16", Encoding::Utf16(ByteOrder::Mark)),
            ("utf-32le", "utf32le", Encoding::Utf32(ByteOrder::Little)),
            ("utf-32be", "utf32be", Encoding::Utf32(ByteOrder::Big)),
            ("utf-32", "utf32", Encoding::Utf32(ByteOrder::Mark)),
        ];
        let known = |n: &str| n.eq_ignore_ascii_case(name);
        if let Some(&(_, _, encoding)) = wide.iter().find(|(a, b, _)| known(a) || known(b)) {
            return Some(encoding);
        }
        if let Some(single) = SingleByte::from_name(name) {
            return Some(Encoding::Single(single));
        }
        Dialect::from_name(name).map(Encoding::Family)
    }

    /// The encoding holds lone surrogates: UTF-16, and WTF-8 and the other
    /// members of the family that write them one by one.
    fn holds_surrogates(self) -> bool {
        match self {
            Encoding::Family(d) => d.encode(0xD800).is_ok(),
            Encoding::Utf16(_) => true,
            _ => false,
        }
    }
}

/// A streaming conversion from one [`Encoding`] to another under a
/// [`Policy`], fed the input a piece at a time, cut anywhere: the output is
/// the same as the conversion of the whole input at once.
///
/// The byte order mark of `utf-16` and `utf-32` input is read (and
/// dropped) first; the one of `utf-16` and `utf-32` output (or any asked
/// for with [`with_byte_order_mark`](Self::with_byte_order_mark), or
/// Corrected UTF-8's magic number with
/// [`with_magic_number`](Self::with_magic_number)) is written first. The
/// pairs the crate converts in one step (within the UTF-8 family; UTF-8 or
/// WTF-8 and UTF-16; UTF-8 to UTF-32 or a single-byte encoding) take it;
/// every other goes through UTF-8 (WTF-8 when the target holds lone
/// surrogates). Error offsets and replacement offsets count bytes of the
/// input stream, a byte order mark included.
///
/// ```
/// use utf8guard::{ByteOrder, ConvertErrorKind, Converter, Encoding, EncodeError, Policy};
///
/// // UTF-16 with a big-endian byte order mark to Latin-1, in two pieces
/// // that cut a code unit in half.
/// let input = b"\xFE\xFF\x00c\x00a\x00f\x00\xE9";
/// let from = Encoding::Utf16(ByteOrder::Mark);
/// let to = Encoding::from_name("latin-1").unwrap();
/// let mut c = Converter::new(from, to, Policy::Strict);
/// let mut out = Vec::new();
/// let read = c.convert_to_vec(&input[..5], &mut out, false).unwrap();
/// assert_eq!(read, 4); // the half unit waits for the rest
/// c.convert_to_vec(&input[read..], &mut out, true).unwrap();
/// assert_eq!(out, b"caf\xE9");
///
/// // The euro sign is not Latin-1: an error at its offset in the input,
/// // or `?` with Policy::Replace, counted.
/// let input = b"\xFF\xFEa\x00\xAC\x20";
/// let mut c = Converter::new(from, to, Policy::Strict);
/// let e = c.convert_to_vec(input, &mut Vec::new(), true).unwrap_err();
/// assert_eq!(e.offset(), 4);
/// assert_eq!(e.kind(), ConvertErrorKind::Unencodable(EncodeError::NotInCharset));
/// let mut c = Converter::new(from, to, Policy::Replace);
/// let mut out = Vec::new();
/// c.convert_to_vec(input, &mut out, true).unwrap();
/// assert_eq!(out, b"a?");
/// assert_eq!((c.replacements(), c.first_replacement()), (1, Some(4)));
/// ```
#[derive(Debug)]
pub struct Converter {
    from: Encoding,
    to: Encoding,
    policy: Policy,
    magic: bool,
    bom: bool,
    reading_first: bool,
    /// The byte order of UTF-16 or UTF-32 input, once known.
    order: Option<ByteOrder>,
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
    /// A conversion from `from` to `to`.
    pub fn new(from: Encoding, to: Encoding, policy: Policy) -> Converter {
        Converter {
            from,
            to,
            policy,
            magic: false,
            bom: false,
            reading_first: false,
            order: None,
            inner: None,
        }
    }

    /// Starts the output with Corrected UTF-8's magic number; an error
    /// unless the target is Corrected UTF-8.
    pub fn with_magic_number(mut self, write: bool) -> Result<Converter, OptionError> {
        if write && self.to != Encoding::Family(Dialect::Corrected) {
            return Err(OptionError::NoMagicNumber);
        }
        self.magic = write;
        Ok(self)
    }

    /// Starts the output with a byte order mark, U+FEFF in the target's
    /// form (`utf-16` and `utf-32` write one anyway); an error for the
    /// encodings that have none: Corrected UTF-8, Latin-1, Windows-1252.
    pub fn with_byte_order_mark(mut self, write: bool) -> Result<Converter, OptionError> {
        let none = matches!(
            self.to,
            Encoding::Family(Dialect::Corrected) | Encoding::Single(_)
        );
        if write && none {
            return Err(OptionError::NoByteOrderMark);
        }
        self.bom = write;
        Ok(self)
    }

    /// Reports errors as CPython's `bytes.decode` then `str.encode` do:
    /// within a piece (fed whole, within the input), an error in reading
    /// it (an ill-formed sequence, a code unit that is no character or is
    /// cut short, a lone surrogate of UTF-16 that the target cannot hold)
    /// comes before an error in writing (a character the target cannot
    /// hold) even where it is later; and a lone surrogate of UTF-16 is an
    /// error in reading (or U+FFFD) unless the target is a member of the
    /// UTF-8 family that holds it, UTF-16 included (as CPython's UTF-16
    /// decoder; without this option, UTF-16 to UTF-16 keeps it).
    ///
    /// ```
    /// use utf8guard::{ConvertErrorKind, Converter, Encoding, Policy};
    ///
    /// let (utf8, latin1) = (Encoding::from_name("utf-8").unwrap(), Encoding::from_name("latin-1").unwrap());
    /// let input = "€".as_bytes().iter().chain(b"\xFF").copied().collect::<Vec<u8>>();
    /// let mut c = Converter::new(utf8, latin1, Policy::Strict).with_reading_errors_first(true);
    /// let e = c.convert_to_vec(&input, &mut Vec::new(), true).unwrap_err();
    /// assert_eq!((e.offset(), e.error_len()), (3, Some(1)));
    /// assert!(matches!(e.kind(), ConvertErrorKind::Malformed(_)));
    /// ```
    pub fn with_reading_errors_first(mut self, first: bool) -> Converter {
        self.reading_first = first;
        self
    }

    /// The byte order of UTF-16 or UTF-32 input, once known: the one named
    /// or, for `utf-16` and `utf-32` ([`ByteOrder::Mark`]), the one read
    /// from its byte order mark, little-endian without one. `None` before
    /// the first call of [`convert_to_vec`](Self::convert_to_vec) that
    /// read the mark, and for the other encodings.
    ///
    /// ```
    /// use utf8guard::{ByteOrder, Converter, Encoding, Policy};
    ///
    /// let utf8 = Encoding::from_name("utf-8").unwrap();
    /// let mut c = Converter::new(Encoding::Utf16(ByteOrder::Mark), utf8, Policy::Strict);
    /// assert_eq!(c.input_byte_order(), None);
    /// c.convert_to_vec(b"\xFE\xFF\x00a", &mut Vec::new(), true).unwrap();
    /// assert_eq!(c.input_byte_order(), Some(ByteOrder::Big));
    /// ```
    pub fn input_byte_order(&self) -> Option<ByteOrder> {
        self.order
    }

    /// What comes before the first output: a byte order mark, or the magic
    /// number out of the family (within it, the transcoder writes it).
    fn prefix(&self) -> Vec<u8> {
        if self.magic && !matches!(self.from, Encoding::Family(_)) {
            return crate::decode::MAGIC.to_vec();
        }
        match self.to {
            Encoding::Utf16(order) if self.bom || order == ByteOrder::Mark => {
                bom(2, order == ByteOrder::Big)
            }
            Encoding::Utf32(order) if self.bom || order == ByteOrder::Mark => {
                bom(4, order == ByteOrder::Big)
            }
            Encoding::Family(d) if self.bom => d
                .encode(0xFEFF)
                .map(|e| e.as_bytes().to_vec())
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// Converts what it can of `input` (all of it with `last`), appending
    /// to `output`; returns how many bytes of `input` it read. What is left
    /// is a tail that more input may complete (a cut sequence or code unit,
    /// a lead surrogate), to be passed again at the start of the next call.
    /// On an error, `output` holds the conversion of everything before it,
    /// and the converter must not be used again.
    pub fn convert_to_vec(
        &mut self,
        input: &[u8],
        output: &mut Vec<u8>,
        last: bool,
    ) -> Result<usize, ConvertError> {
        if let Some(inner) = &mut self.inner {
            return inner.feed(input, last, output);
        }
        // The byte order of `utf-16` and `utf-32` input: its byte order
        // mark's (dropped), little-endian without one.
        let (from, skip) = match self.from {
            Encoding::Utf16(ByteOrder::Mark) | Encoding::Utf32(ByteOrder::Mark) => {
                let utf16 = matches!(self.from, Encoding::Utf16(_));
                let unit = if utf16 { 2 } else { 4 };
                if input.len() < unit && !last {
                    return Ok(0);
                }
                let order = if input.starts_with(&bom(unit, false)) {
                    Some(ByteOrder::Little)
                } else if input.starts_with(&bom(unit, true)) {
                    Some(ByteOrder::Big)
                } else {
                    None
                };
                let skip = if order.is_some() { unit } else { 0 };
                let order = order.unwrap_or(ByteOrder::Little);
                let from = if utf16 {
                    Encoding::Utf16(order)
                } else {
                    Encoding::Utf32(order)
                };
                (from, skip)
            }
            from => (from, 0),
        };
        if let Encoding::Utf16(order) | Encoding::Utf32(order) = from {
            self.order = Some(order);
        }
        let mut inner = Inner::new(
            from,
            self.to,
            self.policy,
            self.magic,
            skip,
            self.reading_first,
        );
        output.extend_from_slice(&self.prefix());
        let read = inner.feed(&input[skip..], last, output);
        self.inner = Some(inner);
        Ok(skip + read?)
    }

    /// How many items were replaced so far (with U+FFFD in the target, or
    /// `?` in Latin-1 and Windows-1252) under [`Policy::Replace`]: one per
    /// maximal subpart of ill-formed input, per code unit that is no
    /// character, per character the target cannot hold.
    pub fn replacements(&self) -> u64 {
        self.tally().count
    }

    /// Where the first item replaced starts, in bytes from the start of
    /// the input stream; `None` if none was.
    pub fn first_replacement(&self) -> Option<usize> {
        self.tally().first
    }

    fn tally(&self) -> Tally {
        self.inner.as_ref().map_or(Tally::default(), Inner::tally)
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
    fn new(
        from: Encoding,
        to: Encoding,
        policy: Policy,
        magic: bool,
        base: usize,
        reading_first: bool,
    ) -> Inner {
        let wtf8_or_utf8 = |d| matches!(d, Dialect::Wtf8 | Dialect::Utf8);
        match (from, to) {
            (Encoding::Family(from), Encoding::Family(to)) => {
                Inner::Family(Transcoder::new(from, to, policy).with_magic_number(magic))
            }
            (Encoding::Family(d), Encoding::Utf16(order)) if wtf8_or_utf8(d) => {
                Inner::ToUtf16(ToUtf16::new(d, order == ByteOrder::Big, policy))
            }
            (Encoding::Utf16(order), Encoding::Family(d)) if wtf8_or_utf8(d) => {
                let big_endian = order == ByteOrder::Big;
                let stage = Utf16ToWtf8::new(big_endian, to, policy, base, reading_first);
                Inner::FromUtf16(stage)
            }
            _ => Inner::Chain(Box::new(Chain::new(from, to, policy, base, reading_first))),
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

    fn tally(&self) -> Tally {
        match self {
            Inner::Family(transcoder) => Tally::of(transcoder),
            Inner::ToUtf16(stage) => stage.replaced,
            Inner::FromUtf16(stage) => stage.replaced,
            Inner::Chain(chain) => chain.tally(),
        }
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

    /// What `transcoder` replaced.
    fn of(transcoder: &Transcoder) -> Tally {
        Tally {
            count: transcoder.replacements(),
            first: transcoder.first_replacement(),
        }
    }
}
