//! Decoding the dialects into code points: the scalar reference decoder.
//!
//! [`Dialect::decode`] walks an input one sequence at a time. A well-formed
//! sequence is decoded here, by the bit layout every dialect shares (RFC
//! 2279's: a lead byte whose high bits give the length, then 6 bits per
//! continuation byte) and each dialect's own rules on top: the shortest
//! form, the highest code point, what becomes of surrogates, Corrected
//! UTF-8's offsets. Anything else is an error, and the error itself (where
//! it starts, its maximal subpart, its cause) is taken from the dialect's
//! reference automaton, run from the start of the failed sequence, so that
//! it is exactly the error [`Dialect::check`] reports.

use core::iter::FusedIterator;

use utf8guard_dfa::{Automaton, Fault, Invalid, State};

use crate::bytes::is_continuation;
use crate::dialect::Dialect;
use crate::error::Utf8Error;

/// Corrected UTF-8's magic number, `EF B7 9D ED B2 AE 00 0A`.
pub(crate) const MAGIC: &[u8] = &utf8guard_dfa::grammar::CORRECTED_MAGIC;

/// One step of [`Dialect::decode`]: a code point, a reserved run, or an
/// ill-formed sequence, each with where it is in the input.
///
/// ```
/// use utf8guard::{Decoded, Dialect, ErrorKind};
///
/// let items: Vec<Decoded> = Dialect::Cesu8.decode(b"a\xED\xA0\xBD\xED\xB8\x80\xFF").collect();
/// assert_eq!(items[0], Decoded::Char { code_point: 0x61, offset: 0, len: 1 });
/// // A surrogate pair is one code point.
/// assert_eq!(items[1], Decoded::Char { code_point: 0x1F600, offset: 1, len: 6 });
/// let Decoded::Invalid { error, len } = items[2] else { panic!() };
/// assert_eq!((error.valid_up_to(), error.error_len(), len), (7, Some(1), 1));
/// assert_eq!(error.kind(), ErrorKind::InvalidByte);
/// assert_eq!(items.len(), 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decoded {
    /// A well-formed sequence of `len` bytes at `offset`, and the code point
    /// it encodes. A `u32`, not a `char`: surrogates, and RFC 2279's and
    /// Corrected UTF-8's code points above U+10FFFF, are code points too.
    Char {
        /// The code point.
        code_point: u32,
        /// Where its sequence starts in the input.
        offset: usize,
        /// How many bytes its sequence has (6 for a surrogate pair).
        len: usize,
    },
    /// A Corrected UTF-8 run reserved for future use: an `FE` or `FF` and the
    /// continuation bytes after it. Well formed, but it encodes no code
    /// point known today.
    Reserved {
        /// Where the run starts in the input.
        offset: usize,
        /// How many bytes the run has (at least 1).
        len: usize,
    },
    /// An ill-formed sequence: the maximal subpart at
    /// [`error.valid_up_to()`](Utf8Error::valid_up_to), with its
    /// [`error_len`](Utf8Error::error_len) and [`kind`](Utf8Error::kind)
    /// exactly as [`Dialect::check`] reports the first error of an input;
    /// decoding goes on after it as at the start of an input (but for the
    /// magic number, which only counts at offset 0). When the input ends
    /// inside a sequence (`error_len()` is `None`), this is the last item,
    /// and `len` covers the rest of the input.
    Invalid {
        /// Where and why; `valid_up_to()` is the offset of these bytes.
        error: Utf8Error,
        /// How many bytes the error covers.
        len: usize,
    },
}

impl Decoded {
    /// Where the item starts in the input.
    pub fn offset(&self) -> usize {
        match *self {
            Decoded::Char { offset, .. } | Decoded::Reserved { offset, .. } => offset,
            Decoded::Invalid { error, .. } => error.valid_up_to(),
        }
    }

    /// How many bytes of the input the item covers.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        match *self {
            Decoded::Char { len, .. }
            | Decoded::Reserved { len, .. }
            | Decoded::Invalid { len, .. } => len,
        }
    }

    /// The code point, for a [`Char`](Decoded::Char).
    pub fn code_point(&self) -> Option<u32> {
        match *self {
            Decoded::Char { code_point, .. } => Some(code_point),
            _ => None,
        }
    }
}

/// The iterator of [`Dialect::decode`].
#[derive(Clone, Debug)]
pub struct Decode<'a> {
    dialect: Dialect,
    bytes: &'a [u8],
    pos: usize,
    /// The item before `pos` was a WTF-8 lead surrogate.
    after_lead: bool,
    magic: bool,
    /// Offset 0 of `bytes` is the start of the document, where an input
    /// that is a proper prefix of Corrected UTF-8's magic number ends
    /// inside it.
    document_start: bool,
    done: bool,
}

impl<'a> Decode<'a> {
    pub(crate) fn new(dialect: Dialect, bytes: &'a [u8]) -> Self {
        let magic = dialect == Dialect::Corrected && bytes.starts_with(MAGIC);
        Decode {
            dialect,
            bytes,
            pos: if magic { MAGIC.len() } else { 0 },
            after_lead: false,
            magic,
            document_start: true,
            done: false,
        }
    }

    /// Decoding from `pos`, a point between sequences past any magic
    /// number, after a WTF-8 lead surrogate or not; `document_start` when
    /// offset 0 of `bytes` is the start of the document (a piece of a
    /// stream after the first is not).
    pub(crate) fn resume(
        dialect: Dialect,
        bytes: &'a [u8],
        pos: usize,
        after_lead: bool,
        document_start: bool,
    ) -> Self {
        Decode {
            dialect,
            bytes,
            pos,
            after_lead,
            magic: false,
            document_start,
            done: false,
        }
    }

    /// The last item was a lead surrogate that a trail may not follow
    /// (WTF-8).
    pub(crate) fn after_lead(&self) -> bool {
        self.after_lead
    }

    /// The input started with Corrected UTF-8's magic number, which was
    /// skipped (the first item is at offset 8).
    pub fn magic_number(&self) -> bool {
        self.magic
    }

    /// The offset of the next item: the input before it has been decoded.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// The error at `self.pos`, where no well-formed sequence starts.
    fn error(&self) -> Decoded {
        let at = self.pos;
        let automaton = self.dialect.automaton();
        let mut state = State::ACCEPT;
        if self.after_lead {
            for &b in &[0xED, 0xA0, 0x80] {
                state = automaton.next(state, b);
            }
        }
        let mut invalid = pin(automaton, self.bytes, at, state);
        // A document that is a proper prefix of the magic number ends
        // inside it.
        if self.dialect == Dialect::Corrected
            && self.document_start
            && !self.magic
            && !self.bytes.is_empty()
            && self.bytes.len() < MAGIC.len()
            && MAGIC.starts_with(self.bytes)
        {
            invalid = Invalid {
                valid_up_to: at,
                error_len: None,
                fault: Fault::Incomplete,
            };
        }
        let error = Utf8Error::from_dfa(0, invalid);
        let len = error.error_len().unwrap_or(self.bytes.len() - at);
        Decoded::Invalid { error, len }
    }
}

/// The automaton's error for the sequence at `at`, started in `state`
/// (between sequences). The decoder found none there, so the automaton
/// must reject within that sequence.
fn pin(automaton: &Automaton, bytes: &[u8], at: usize, mut state: State) -> Invalid {
    for (i, &b) in bytes.iter().enumerate().skip(at) {
        let next = automaton.next(state, b);
        if next == State::REJECT {
            return Invalid {
                valid_up_to: at,
                error_len: Some((i - at).max(1)),
                fault: automaton.fault(state, &bytes[at..=i]),
            };
        }
        state = next;
        if automaton.is_accepting(state) {
            break;
        }
    }
    if automaton.is_accepting(state) {
        // The automaton took a sequence the decoder refused: a defect the
        // tests look for. Report one invalid byte rather than loop.
        debug_assert!(false, "decoder and automaton disagree at {at}");
        return Invalid {
            valid_up_to: at,
            error_len: Some(1),
            fault: Fault::InvalidByte,
        };
    }
    Invalid {
        valid_up_to: at,
        error_len: None,
        fault: Fault::Incomplete,
    }
}

impl Iterator for Decode<'_> {
    type Item = Decoded;

    #[inline]
    fn next(&mut self) -> Option<Decoded> {
        if self.done || self.pos >= self.bytes.len() {
            return None;
        }
        let at = self.pos;
        let item = match sequence(self.dialect, self.bytes, at, self.after_lead) {
            Some((Unit::Char(code_point), len)) => {
                self.after_lead = self.dialect == Dialect::Wtf8 && is_lead(code_point);
                Decoded::Char {
                    code_point,
                    offset: at,
                    len,
                }
            }
            Some((Unit::Reserved, len)) => {
                self.after_lead = false;
                Decoded::Reserved { offset: at, len }
            }
            None => {
                let item = self.error();
                self.after_lead = false;
                if let Decoded::Invalid { error, .. } = item {
                    self.done = error.error_len().is_none();
                }
                item
            }
        };
        self.pos = at + item.len();
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.bytes.len().saturating_sub(self.pos);
        if self.done || left == 0 {
            (0, Some(0))
        } else {
            (1, Some(left))
        }
    }
}

impl FusedIterator for Decode<'_> {}

/// What a well-formed sequence holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    /// A code point.
    Char(u32),
    /// A Corrected UTF-8 reserved run.
    Reserved,
}

/// The smallest value of each sequence length in RFC 2279's layout (below
/// it, the form is overlong).
const SHORTEST: [u32; 7] = [0, 0, 0x80, 0x800, 0x1_0000, 0x20_0000, 0x400_0000];

/// `true` for a lead surrogate, U+D800..U+DBFF.
#[inline(always)]
pub(crate) fn is_lead(cp: u32) -> bool {
    (0xD800..0xDC00).contains(&cp)
}

/// The length of a sequence with lead byte `b`, in RFC 2279's layout: 1
/// for ASCII, 2 to 6 for `C0..FD`, 0 for a continuation byte, `FE`, `FF`.
#[inline(always)]
fn shape(b: u8) -> usize {
    match b {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        0xF8..=0xFB => 5,
        0xFC..=0xFD => 6,
        _ => 0,
    }
}

/// The value laid out in the `len` (2 to 6) bytes at `bytes[i..]`, if they
/// are all there and all but the first are continuation bytes.
#[inline(always)]
fn bits(bytes: &[u8], i: usize, len: usize) -> Option<u32> {
    let seq = bytes.get(i..i + len)?;
    let mut value = u32::from(seq[0] & (0x7F >> len));
    for &b in &seq[1..] {
        if !is_continuation(b) {
            return None;
        }
        value = value << 6 | u32::from(b & 0x3F);
    }
    Some(value)
}

/// The trail surrogate `ED B0..BF 80..BF` at `bytes[i..]`, if there is one.
#[inline(always)]
fn trail_at(bytes: &[u8], i: usize) -> Option<u32> {
    match bytes.get(i..i + 3)? {
        &[0xED, b1, b2] if (0xB0..=0xBF).contains(&b1) && is_continuation(b2) => {
            Some(0xD000 | u32::from(b1 & 0x3F) << 6 | u32::from(b2 & 0x3F))
        }
        _ => None,
    }
}

/// The code point of the surrogate pair `lead`, `trail`.
#[inline(always)]
pub(crate) fn combine(lead: u32, trail: u32) -> u32 {
    0x1_0000 + ((lead - 0xD800) << 10) + (trail - 0xDC00)
}

/// The Corrected UTF-8 code point of a sequence of `len` bytes laid out as
/// `value`: the value plus the offset of its length (two offsets for three
/// bytes, split at `EC BD A0`).
#[inline(always)]
pub(crate) fn corrected_offset(value: u32, len: usize) -> u32 {
    match len {
        1 => value,
        2 => value + 0xA0,
        3 if value < 0xCF60 => value + 0x8A0,
        3 => value + 0x10A0,
        4 => value + 0x1_10A0,
        5 => value + 0x21_10A0,
        _ => value + 0x421_10A0,
    }
}

/// The well-formed sequence of `dialect` at `bytes[i..]` (`i` in bounds,
/// between sequences; `after_lead` when the sequence before was a WTF-8
/// lead surrogate), and its length; `None` where none starts (an error, or
/// the input ends inside one).
#[inline]
pub(crate) fn sequence(
    dialect: Dialect,
    bytes: &[u8],
    i: usize,
    after_lead: bool,
) -> Option<(Unit, usize)> {
    let b0 = bytes[i];
    if b0 < 0x80 {
        let nul_forbidden = matches!(dialect, Dialect::Mutf8 | Dialect::Corrected);
        return if b0 == 0 && nul_forbidden {
            None
        } else {
            Some((Unit::Char(u32::from(b0)), 1))
        };
    }
    if dialect == Dialect::Corrected {
        if b0 >= 0xFE {
            let run = bytes[i + 1..]
                .iter()
                .take_while(|&&b| is_continuation(b))
                .count();
            return Some((Unit::Reserved, 1 + run));
        }
        let len = shape(b0);
        if len == 0 {
            return None;
        }
        let value = bits(bytes, i, len)?;
        return Some((Unit::Char(corrected_offset(value, len)), len));
    }
    let longest = match dialect {
        Dialect::Cesu8 | Dialect::Mutf8 => 3,
        Dialect::Rfc2279 => 6,
        _ => 4,
    };
    let len = shape(b0);
    if len == 0 || len > longest {
        return None;
    }
    let value = bits(bytes, i, len)?;
    if value < SHORTEST[len] {
        // Modified UTF-8's `C0 80` is the one overlong form allowed.
        return (dialect == Dialect::Mutf8 && len == 2 && value == 0).then_some((Unit::Char(0), 2));
    }
    if value > 0x10_FFFF && dialect != Dialect::Rfc2279 {
        return None;
    }
    if !(0xD800..0xE000).contains(&value) {
        return Some((Unit::Char(value), len));
    }
    // A surrogate, in its 3-byte form.
    match dialect {
        Dialect::Rfc2279 => Some((Unit::Char(value), 3)),
        Dialect::Wtf8 if after_lead && !is_lead(value) => None,
        Dialect::Wtf8 => Some((Unit::Char(value), 3)),
        Dialect::Unicode31 | Dialect::Mutf8 | Dialect::Cesu8 => {
            if is_lead(value) {
                if let Some(trail) = trail_at(bytes, i + 3) {
                    return Some((Unit::Char(combine(value, trail)), 6));
                }
            }
            // A lone surrogate: only CESU-8 has none.
            (dialect != Dialect::Cesu8).then_some((Unit::Char(value), 3))
        }
        _ => None,
    }
}

impl Dialect {
    /// Decodes `bytes` as this dialect: an iterator of the code points
    /// (each with its offset and length), Corrected UTF-8's reserved runs,
    /// and the errors, in input order, covering the whole input.
    ///
    /// - The surrogate pairs of CESU-8, modified UTF-8 and Unicode 3.1 (the
    ///   6-byte "irregular" form) are one item, the supplementary code
    ///   point; lone surrogates (where well formed) are items of their own,
    ///   as are RFC 2279's surrogates, paired or not.
    /// - Corrected UTF-8's sequences decode with their offsets; a reserved
    ///   `FE`/`FF` run is a [`Decoded::Reserved`] item; the magic number at
    ///   offset 0 is skipped ([`Decode::magic_number`] says it was there).
    /// - An ill-formed sequence is a [`Decoded::Invalid`] item covering its
    ///   maximal subpart, with the `valid_up_to`, `error_len` and `kind`
    ///   that [`check`](Self::check) gives for the first error; decoding
    ///   then goes on after it. An input that ends inside a sequence ends
    ///   with an error whose `error_len()` is `None`.
    ///
    /// The scalar reference decoder: it accepts exactly the inputs the
    /// dialect's reference automaton accepts.
    ///
    /// ```
    /// use utf8guard::{Decoded, Dialect};
    ///
    /// // Corrected UTF-8: the magic number, then C0 AF (U+00CF, Ï) and a
    /// // reserved run.
    /// let doc = b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0A\xC0\xAF\xFE\x80";
    /// let mut items = Dialect::Corrected.decode(doc);
    /// assert!(items.magic_number());
    /// assert_eq!(items.next(), Some(Decoded::Char { code_point: 0xCF, offset: 8, len: 2 }));
    /// assert_eq!(items.next(), Some(Decoded::Reserved { offset: 10, len: 2 }));
    /// assert_eq!(items.next(), None);
    ///
    /// // Modified UTF-8: C0 80 is U+0000; a lone surrogate is itself.
    /// let cps: Vec<u32> = Dialect::Mutf8
    ///     .decode(b"\xC0\x80\xED\xB0\x80")
    ///     .filter_map(|d| d.code_point())
    ///     .collect();
    /// assert_eq!(cps, [0, 0xDC00]);
    /// ```
    pub fn decode(self, bytes: &[u8]) -> Decode<'_> {
        Decode::new(self, bytes)
    }
}
