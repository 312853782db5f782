//! The stages to and from UTF-16 and UTF-32.

use alloc::vec::Vec;
use core::mem::MaybeUninit;

use super::{ConvertError, ConvertErrorKind, Encoding, Tally};
use crate::dialect::Dialect;
use crate::encode::EncodeError;
use crate::transcode::{
    to_utf16_room, utf16_to_utf8, utf16_to_wtf8, utf8_to_utf16, wtf8_to_utf16, Cause, Policy,
    Status, TranscodeError,
};
use crate::utf32::utf32_to_utf8_into;

/// Where WTF-8 `bytes`, of which more follow, can be cut so that
/// converting the two sides apart gives what converting them together
/// does: before an unfinished sequence in the last 3 bytes (as `repair`
/// cuts), and before a lead surrogate that ends the rest, which a trail
/// surrogate in the next piece would make an error (WTF-8 writes that pair
/// as a 4-byte form).
fn wtf8_cut(bytes: &[u8]) -> usize {
    let mut cut = crate::stream::trim_partial_utf8(bytes);
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
#[derive(Debug)]
pub(super) struct ToUtf16 {
    from: Dialect,
    big_endian: bool,
    policy: Policy,
    /// Bytes read by earlier calls.
    consumed: usize,
    units: Vec<u16>,
    /// U+FFFD written in place of ill-formed sequences.
    pub(super) replaced: Tally,
}

impl ToUtf16 {
    pub(super) fn new(from: Dialect, big_endian: bool, policy: Policy) -> Self {
        ToUtf16 {
            from,
            big_endian,
            policy,
            consumed: 0,
            units: Vec::new(),
            replaced: Tally::default(),
        }
    }

    pub(super) fn feed(
        &mut self,
        input: &[u8],
        last: bool,
        out: &mut Vec<u8>,
    ) -> Result<usize, ConvertError> {
        let mut cut = if last { input.len() } else { wtf8_cut(input) };
        // Strictly, so that each ill-formed sequence is counted (and named)
        // where it is replaced: one U+FFFD per maximal subpart.
        let mut done = 0;
        loop {
            let rest = &input[done..cut];
            let Err(e) = self.put_strict(rest, out) else {
                break;
            };
            if !last && e.error_len().is_none() {
                // A sequence the cut ends (`DC` before a held `FE`) is cut
                // short by the byte after it, not by the end of the input:
                // it waits for the next piece, which names the error.
                cut = done + e.offset();
                break;
            }
            let at = self.consumed + done + e.offset();
            if self.policy == Policy::Strict {
                let Cause::Malformed(kind) = e.cause() else {
                    unreachable!("UTF-8 and WTF-8 to UTF-16 fail only on ill-formed input")
                };
                return Err(ConvertError::new(
                    at,
                    ConvertErrorKind::Malformed(kind),
                    e.error_len(),
                ));
            }
            put_units(&[0xFFFD], self.big_endian, out);
            self.replaced.note(at);
            done += e.offset() + e.error_len().unwrap_or(rest.len() - e.offset());
        }
        self.consumed += cut;
        Ok(cut)
    }

    /// Converts `input` strictly, appending the units to `out` (those
    /// before an error too).
    fn put_strict(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), TranscodeError> {
        let start = out.len();
        // Room for a unit per byte, and one more to align the units.
        out.reserve(2 * input.len() + 1);
        // Straight into the output's spare capacity where it is aligned
        // for units (as it is from the allocator): a buffer of units then
        // copied made the conversion three times slower on long text.
        // SAFETY: two uninitialized bytes are an uninitialized `u16`, and
        // `align_to_mut` puts in its middle part only what is aligned.
        let (head, room, _) =
            unsafe { out.spare_capacity_mut().align_to_mut::<MaybeUninit<u16>>() };
        if head.is_empty() && room.len() >= input.len() {
            let p = to_utf16_room(self.from, input, Policy::Strict, room, true);
            // SAFETY: the converter initialized the first `written` units.
            unsafe { out.set_len(start + 2 * p.written) };
            if self.big_endian != cfg!(target_endian = "big") {
                for pair in out[start..].chunks_exact_mut(2) {
                    pair.swap(0, 1);
                }
            }
            return p.result.map(drop);
        }
        self.units.clear();
        let result = match self.from {
            Dialect::Utf8 => utf8_to_utf16(input, Policy::Strict, &mut self.units),
            _ => wtf8_to_utf16(input, Policy::Strict, &mut self.units),
        };
        put_units(&self.units, self.big_endian, out);
        result
    }
}

pub(super) fn put_units(units: &[u16], big_endian: bool, out: &mut Vec<u8>) {
    if big_endian {
        put(units, out, u16::to_be_bytes);
    } else {
        put(units, out, u16::to_le_bytes);
    }
}

pub(super) fn put_units32(units: &[u32], big_endian: bool, out: &mut Vec<u8>) {
    if big_endian {
        put(units, out, u32::to_be_bytes);
    } else {
        put(units, out, u32::to_le_bytes);
    }
}

/// Appends `units` to `out` as `bytes` of each: into room made first, a
/// fixed-size copy per unit, which compiles to vector stores (an
/// `extend_from_slice` per unit checked the capacity each time and did
/// not vectorize).
fn put<U: Copy, const N: usize>(units: &[U], out: &mut Vec<u8>, bytes: impl Fn(U) -> [u8; N]) {
    let start = out.len();
    let len = N * units.len();
    // Into the spare capacity, not zeroed first.
    out.reserve(len);
    for (room, &u) in out.spare_capacity_mut()[..len]
        .chunks_exact_mut(N)
        .zip(units)
    {
        room.copy_from_slice(&bytes(u).map(MaybeUninit::new));
    }
    // SAFETY: the loop initialized `len` bytes after the vector's end.
    unsafe { out.set_len(start + len) };
}

/// UTF-16 to WTF-8 (or UTF-8, where a lone surrogate is an error or
/// U+FFFD), a piece at a time.
#[derive(Debug)]
pub(super) struct Utf16ToWtf8 {
    big_endian: bool,
    strict_utf8: bool,
    policy: Policy,
    /// Bytes read by earlier calls (and a byte order mark before them).
    consumed: usize,
    units: Vec<u16>,
    /// U+FFFD written in place of what could not be converted.
    pub(super) replaced: Tally,
}

impl Utf16ToWtf8 {
    /// From UTF-16 to WTF-8, or to UTF-8 when `to` cannot hold lone
    /// surrogates (or, `reading_first`, is no member of the UTF-8 family:
    /// see [`Converter::with_reading_errors_first`](super::Converter::with_reading_errors_first));
    /// the input starts at offset `base`.
    pub(super) fn new(
        big_endian: bool,
        to: Encoding,
        policy: Policy,
        base: usize,
        reading_first: bool,
    ) -> Self {
        let family = matches!(to, Encoding::Family(_));
        Utf16ToWtf8 {
            big_endian,
            strict_utf8: !to.holds_surrogates() || (reading_first && !family),
            policy,
            consumed: base,
            units: Vec::new(),
            replaced: Tally::default(),
        }
    }

    fn unit(&self, pair: &[u8]) -> u16 {
        let pair = [pair[0], pair[1]];
        if self.big_endian {
            u16::from_be_bytes(pair)
        } else {
            u16::from_le_bytes(pair)
        }
    }

    pub(super) fn feed(
        &mut self,
        input: &[u8],
        last: bool,
        out: &mut Vec<u8>,
    ) -> Result<usize, ConvertError> {
        if self.big_endian == cfg!(target_endian = "big") {
            // Input in this CPU's byte order, at an even address (a mapped
            // file, a buffer from the allocator): its units as they are,
            // not copied out first.
            let whole = input.len() - input.len() % 2;
            // SAFETY: any two bytes are a `u16`, and `align_to` puts in
            // its middle part only what is aligned for one.
            let (head, units, _) = unsafe { input[..whole].align_to::<u16>() };
            if head.is_empty() {
                return self.convert(units, input.len(), last, out);
            }
        }
        let mut units = core::mem::take(&mut self.units);
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
    ) -> Result<usize, ConvertError> {
        let surrogate = |at, len| {
            ConvertError::new(
                at,
                ConvertErrorKind::Unencodable(EncodeError::Surrogate),
                len,
            )
        };
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
            while let Err(e) = utf16_to_utf8(&units[done..], Policy::Strict, out) {
                let k = done + e.offset();
                let at = self.consumed + 2 * k;
                if self.policy == Policy::Strict {
                    // A lead surrogate that ends the input is a pair cut
                    // short: it runs to the end.
                    let cut_short =
                        last && !lead_cut_short && k + 1 == units.len() && is_lead(units[k]);
                    return Err(surrogate(at, (!cut_short).then_some(2)));
                }
                self.replaced.replace(at, out);
                done += e.offset() + 1;
            }
        } else {
            utf16_to_wtf8(units, out);
        }
        let mut read = 2 * units.len();
        if last && len % 2 == 1 {
            let at = self.consumed + read;
            if self.policy == Policy::Strict {
                return Err(if lead_cut_short {
                    surrogate(at, None)
                } else {
                    ConvertError::new(at, ConvertErrorKind::TruncatedUnit(2), None)
                });
            }
            self.replaced.replace(at, out);
            read = len;
        }
        self.consumed += read;
        Ok(read)
    }

    /// How many bytes of `input` (from the start of the last piece fed)
    /// the first `chars` characters it was converted to came from.
    pub(super) fn skip(&self, input: &[u8], chars: usize) -> usize {
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

/// UTF-32 to UTF-8, a piece at a time. A surrogate or a value above
/// U+10FFFF is ill-formed input.
#[derive(Debug)]
pub(super) struct Utf32ToUtf8 {
    big_endian: bool,
    policy: Policy,
    /// Bytes read by earlier calls (and a byte order mark before them).
    consumed: usize,
    units: Vec<u32>,
    bytes: Vec<u8>,
    /// U+FFFD written in place of what could not be converted.
    pub(super) replaced: Tally,
}

impl Utf32ToUtf8 {
    pub(super) fn new(big_endian: bool, policy: Policy, base: usize) -> Self {
        Utf32ToUtf8 {
            big_endian,
            policy,
            consumed: base,
            units: Vec::new(),
            bytes: Vec::new(),
            replaced: Tally::default(),
        }
    }

    pub(super) fn feed(
        &mut self,
        input: &[u8],
        last: bool,
        out: &mut Vec<u8>,
    ) -> Result<usize, ConvertError> {
        let big_endian = self.big_endian;
        let mut bytes = core::mem::take(&mut self.bytes);
        if big_endian == cfg!(target_endian = "big") {
            // As for UTF-16: units in this CPU's byte order, aligned, are
            // converted where they are.
            let whole = input.len() - input.len() % 4;
            // SAFETY: any four bytes are a `u32`, and `align_to` puts in
            // its middle part only what is aligned for one.
            let (head, units, _) = unsafe { input[..whole].align_to::<u32>() };
            if head.is_empty() {
                if bytes.len() < 4 * units.len() {
                    bytes.resize(4 * units.len(), 0);
                }
                let result = self.convert(units, &mut bytes, input.len(), last, out);
                self.bytes = bytes;
                return result;
            }
        }
        let mut units = core::mem::take(&mut self.units);
        units.clear();
        units.extend(input.chunks_exact(4).map(|u| {
            let u = [u[0], u[1], u[2], u[3]];
            if big_endian {
                u32::from_be_bytes(u)
            } else {
                u32::from_le_bytes(u)
            }
        }));
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
    ) -> Result<usize, ConvertError> {
        let mut i = 0;
        while i < units.len() {
            let p = utf32_to_utf8_into(&units[i..], Policy::Strict, bytes);
            out.extend_from_slice(&bytes[..p.written]);
            match p.result {
                Ok(Status::InputEmpty) => i = units.len(),
                Ok(_) => i += p.read,
                Err(e) => {
                    let k = i + e.offset();
                    let at = self.consumed + 4 * k;
                    if self.policy == Policy::Strict {
                        return Err(ConvertError::new(
                            at,
                            ConvertErrorKind::NotACharacter(units[k]),
                            Some(4),
                        ));
                    }
                    self.replaced.replace(at, out);
                    i = k + 1;
                }
            }
        }
        let mut read = 4 * units.len();
        if last && !len.is_multiple_of(4) {
            let at = self.consumed + read;
            if self.policy == Policy::Strict {
                return Err(ConvertError::new(
                    at,
                    ConvertErrorKind::TruncatedUnit(4),
                    None,
                ));
            }
            self.replaced.replace(at, out);
            read = len;
        }
        self.consumed += read;
        Ok(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn a_sequence_ended_by_the_cut_waits_for_the_next_piece() {
        // Whole, `DC FE` is a sequence cut short by `FE`; cut after `FE`,
        // the same, not one that the input ends inside.
        let input = b"a\xDC\xFE\x80";
        let mut stage = ToUtf16::new(Dialect::Utf8, false, Policy::Strict);
        let mut out = Vec::new();
        assert_eq!(stage.feed(&input[..3], false, &mut out), Ok(1));
        let e = stage.feed(&input[1..], true, &mut out).unwrap_err();
        assert_eq!(
            (e.offset(), e.kind()),
            (1, ConvertErrorKind::Malformed(ErrorKind::TooShort))
        );
        assert_eq!(out, b"a\x00");
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
