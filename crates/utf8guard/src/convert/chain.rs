//! A conversion in two stages: the input to UTF-8 (WTF-8 when the target
//! holds lone surrogates), then to the target, a piece at a time; or, from
//! UTF-8 to UTF-32 or a single-byte encoding, the second stage alone.
//! Offsets of the second stage's errors are traced back to the input.

use alloc::vec::Vec;

use super::wide::{put_units, put_units32, Utf16ToWtf8, Utf32ToUtf8};
use super::{ByteOrder, ConvertError, ConvertErrorKind, Encoding, Tally, REPLACEMENT};
use crate::decode::{Decoded, MAGIC};
use crate::dialect::Dialect;
use crate::legacy::{
    single_byte_to_utf8, utf8_to_single_byte, utf8_to_single_byte_into, SingleByte,
};
use crate::transcode::{
    wtf8_to_utf16, Cause, Policy, Progress, Status, TranscodeError, Transcoder,
};
use crate::utf32::{utf8_to_utf32, utf8_to_utf32_into};

/// The first stage of a [`Chain`]: the input to UTF-8 (or WTF-8).
#[derive(Debug)]
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
    /// Converts `input` (all of it with `last`) to UTF-8 or WTF-8, appended
    /// to `out`; returns how much it read. On an error, `out` holds the
    /// conversion of what came before it.
    fn decode(
        &mut self,
        input: &[u8],
        last: bool,
        out: &mut Vec<u8>,
    ) -> Result<usize, ConvertError> {
        match self {
            Decoder::Direct => unreachable!("the second stage reads the input itself"),
            Decoder::Family { transcoder, .. } => transcoder
                .transcode_to_vec(input, out, last)
                .map_err(ConvertError::from),
            Decoder::Utf16(stage) => stage.feed(input, last, out),
            Decoder::Utf32(stage) => stage.feed(input, last, out),
            Decoder::Single(encoding) => {
                single_byte_to_utf8(*encoding, input, out);
                Ok(input.len())
            }
        }
    }

    /// The number of bytes at the start of `input` (the last piece fed)
    /// that the first `chars` characters written came from; `None` when an
    /// ill-formed sequence, which the first stage replaced, comes first.
    fn skip(&self, input: &[u8], at_start: bool, chars: usize) -> Option<usize> {
        match self {
            Decoder::Direct => None,
            Decoder::Family { from, .. } => {
                if chars == 0 {
                    // Past a magic number at the start of the document.
                    let magic = at_start && *from == Dialect::Corrected && input.starts_with(MAGIC);
                    return Some(if magic { MAGIC.len() } else { 0 });
                }
                let mut n = 0;
                for item in from.decode(input) {
                    match item {
                        Decoded::Char { .. } => {
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

    /// For `error` of the first stage, a character of a member of the
    /// family that UTF-8 cannot hold (a lone surrogate), the first error
    /// in reading the rest of `input` (the piece that starts at stream
    /// offset `base`) as WTF-8 would, which comes before it in
    /// [`Chain::reading_first`]'s order.
    fn reading_error_after(
        &self,
        input: &[u8],
        base: usize,
        error: &ConvertError,
        last: bool,
    ) -> Option<ConvertError> {
        let Decoder::Family { from, .. } = self else {
            return None;
        };
        if !matches!(error.kind(), ConvertErrorKind::Unencodable(_)) {
            return None;
        }
        let at = error.offset().checked_sub(base)?;
        let mut out = Vec::new();
        let mut reader = Transcoder::new(*from, Dialect::Wtf8, Policy::Strict);
        let e = reader
            .transcode_to_vec(input.get(at..)?, &mut out, last)
            .err()?;
        Some(ConvertError::from(e).shifted(base + at))
    }

    fn tally(&self) -> Tally {
        match self {
            Decoder::Direct | Decoder::Single(_) => Tally::default(),
            Decoder::Family { transcoder, .. } => Tally::of(transcoder),
            Decoder::Utf16(stage) => stage.replaced,
            Decoder::Utf32(stage) => stage.replaced,
        }
    }
}

/// The second stage of a [`Chain`]: UTF-8 (or WTF-8) to the target.
#[derive(Debug)]
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

/// An error of the second stage: at an offset of its input, why, and how
/// many bytes of it (`None`: to its end) it covers.
struct Stop {
    at: usize,
    cause: Cause,
    len: Option<usize>,
}

/// How long the run of characters that `encoding` cannot hold at the
/// start of the UTF-8 `text` is (at least 1 byte): CPython's charmap
/// encoders report the whole run as one error.
fn unencodable_run(encoding: SingleByte, text: &[u8]) -> usize {
    // A piece of a stream may end inside a character: the whole ones.
    let text = match core::str::from_utf8(text) {
        Ok(text) => text,
        Err(e) => core::str::from_utf8(&text[..e.valid_up_to()]).unwrap_or_default(),
    };
    let run: usize = text
        .chars()
        .take_while(|&c| encoding.encode(c).is_none())
        .map(char::len_utf8)
        .sum();
    run.max(1)
}

impl Encoder {
    /// Converts `input` (all of it with `last`) to `out`; returns how much
    /// it read. With `direct`, `input` is the conversion's input (UTF-8),
    /// else the first stage's output, in which U+FFFD replaced what the
    /// first stage could not convert: it is not counted again.
    fn feed(
        &mut self,
        input: &[u8],
        last: bool,
        policy: Policy,
        direct: bool,
        out: &mut Vec<u8>,
        replaced: &mut Tally,
    ) -> Result<usize, Stop> {
        let stop = |e: TranscodeError| Stop {
            at: e.offset(),
            cause: e.cause(),
            len: e.error_len(),
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
                replaced.add(t.replacements(), t.first_replacement());
                Ok(read)
            }
            Encoder::Utf16 { big_endian, units } => {
                units.clear();
                wtf8_to_utf16(input, policy, units).map_err(stop)?;
                put_units(units, *big_endian, out);
                Ok(input.len())
            }
            Encoder::Utf32 { big_endian, units } => {
                let (written, result) = if last {
                    // Into the spare capacity: no room zeroed first.
                    units.clear();
                    let result = utf8_to_utf32(input, policy, units);
                    (&units[..], result.map(|()| input.len()))
                } else {
                    if units.len() < input.len() {
                        units.resize(input.len(), 0);
                    }
                    let room = &mut units[..input.len()];
                    let p = utf8_to_utf32_into(input, policy, room, last);
                    (&room[..p.written], p.result.map(|_| p.read))
                };
                put_units32(written, *big_endian, out);
                let read = result.map_err(stop)?;
                if policy == Policy::Strict {
                    // Nothing replaced: no U+FFFD to count.
                    return Ok(read);
                }
                // U+FFFD written, less those of the input (counted only
                // where some were written: text seldom has any).
                let written = written.iter().filter(|&&u| u == 0xFFFD).count();
                let already = if written == 0 {
                    0
                } else {
                    count_replacements(&input[..read])
                };
                if written > already {
                    replaced.count += (written - already) as u64;
                    if replaced.first.is_none() {
                        replaced.first = first_replaced(input, direct, |src| {
                            // A room of its own, refilled: one as long as
                            // the input cost a zeroed allocation of it.
                            let mut room = [0; 256];
                            utf8_to_utf32_into(src, Policy::Strict, &mut room, last)
                        });
                    }
                }
                Ok(read)
            }
            Encoder::Single { encoding, bytes } => {
                let start = out.len();
                let result = if last {
                    // Straight into the output's spare capacity: no room
                    // zeroed first, no copy.
                    utf8_to_single_byte(*encoding, input, policy, out).map(|()| input.len())
                } else {
                    if bytes.len() < input.len() {
                        bytes.resize(input.len(), 0);
                    }
                    let room = &mut bytes[..input.len()];
                    let p = utf8_to_single_byte_into(*encoding, input, policy, room, last);
                    out.extend_from_slice(&room[..p.written]);
                    p.result.map(|_| p.read)
                };
                let encoding = *encoding;
                let read = result.map_err(|e| {
                    let mut stop = stop(e);
                    if let Cause::Unencodable(_) = stop.cause {
                        stop.len = Some(unencodable_run(encoding, &input[stop.at..]));
                    }
                    stop
                })?;
                if policy == Policy::Strict {
                    // Nothing replaced: no `?` to count.
                    return Ok(read);
                }
                // `?` written, less those of the input (and, after a first
                // stage, less the U+FFFD it wrote).
                let count = |bytes: &[u8]| count_byte(bytes, b'?');
                let written = count(&out[start..]);
                let mut already = count(&input[..read]);
                if !direct && written > already {
                    already += count_replacements(&input[..read]);
                }
                if written > already {
                    replaced.count += (written - already) as u64;
                    if replaced.first.is_none() {
                        replaced.first = first_replaced(input, direct, |src| {
                            let mut room = [0; 1024];
                            utf8_to_single_byte_into(encoding, src, Policy::Strict, &mut room, last)
                        });
                    }
                }
                Ok(read)
            }
        }
    }
}

/// The first ill-formed sequence of the UTF-8 `rest` (the input after an
/// error in writing), at an offset of `rest`; not one that the end of a
/// piece that is not the `last` cuts short.
fn malformed_after(rest: &[u8], last: bool) -> Option<ConvertError> {
    let e = Dialect::Utf8.check(rest).err()?;
    if !last && e.error_len().is_none() {
        return None;
    }
    let kind = ConvertErrorKind::Malformed(e.kind());
    Some(ConvertError::new(e.valid_up_to(), kind, e.error_len()))
}

/// How many times `byte` is in `bytes`: counted in 8 bits a block of 255
/// bytes, which compiles to vector compares (a `usize` count per byte took
/// as long as the conversion).
fn count_byte(bytes: &[u8], byte: u8) -> usize {
    bytes
        .chunks(255)
        .map(|block| {
            block
                .iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from(b == byte))) as usize
        })
        .sum()
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

/// A conversion through UTF-8 or WTF-8 (see the module's comment).
#[derive(Debug)]
pub(super) struct Chain {
    decoder: Decoder,
    encoder: Encoder,
    /// The first stage's output for the current piece.
    mid: Vec<u8>,
    policy: Policy,
    /// An error of the first stage comes before one of the second (see
    /// [`Converter::with_reading_errors_first`](super::Converter::with_reading_errors_first)).
    reading_first: bool,
    /// Input bytes read by earlier calls (and a byte order mark before them).
    consumed: usize,
    /// What the second stage replaced (at offsets of the input).
    replaced: Tally,
}

impl Chain {
    pub(super) fn new(
        from: Encoding,
        to: Encoding,
        policy: Policy,
        base: usize,
        reading_first: bool,
    ) -> Chain {
        let mid = if to.holds_surrogates() {
            Dialect::Wtf8
        } else {
            Dialect::Utf8
        };
        let decoder = match from {
            Encoding::Family(Dialect::Utf8) if mid == Dialect::Utf8 => Decoder::Direct,
            Encoding::Family(d) => Decoder::Family {
                transcoder: Transcoder::new(d, mid, policy),
                from: d,
            },
            Encoding::Utf16(order) => {
                let big_endian = order == ByteOrder::Big;
                Decoder::Utf16(Utf16ToWtf8::new(
                    big_endian,
                    to,
                    policy,
                    base,
                    reading_first,
                ))
            }
            Encoding::Utf32(order) => {
                Decoder::Utf32(Utf32ToUtf8::new(order == ByteOrder::Big, policy, base))
            }
            Encoding::Single(encoding) => Decoder::Single(encoding),
        };
        let encoder = match to {
            Encoding::Family(d) if d == mid => Encoder::Copy,
            Encoding::Family(d) => Encoder::Family { from: mid, to: d },
            Encoding::Utf16(order) => Encoder::Utf16 {
                big_endian: order == ByteOrder::Big,
                units: Vec::new(),
            },
            Encoding::Utf32(order) => Encoder::Utf32 {
                big_endian: order == ByteOrder::Big,
                units: Vec::new(),
            },
            Encoding::Single(encoding) => Encoder::Single {
                encoding,
                bytes: Vec::new(),
            },
        };
        Chain {
            decoder,
            encoder,
            mid: Vec::new(),
            policy,
            reading_first,
            consumed: base,
            replaced: Tally::default(),
        }
    }

    pub(super) fn feed(
        &mut self,
        input: &[u8],
        last: bool,
        out: &mut Vec<u8>,
    ) -> Result<usize, ConvertError> {
        let base = self.consumed;
        // What the second stage replaced in this call, at offsets of its
        // input.
        let mut replaced = Tally::default();
        if let Decoder::Direct = self.decoder {
            let result = self
                .encoder
                .feed(input, last, self.policy, true, out, &mut replaced);
            self.replaced
                .add(replaced.count, replaced.first.map(|at| base + at));
            let read = result.map_err(|stop| {
                if self.reading_first && matches!(stop.cause, Cause::Unencodable(_)) {
                    if let Some(e) = malformed_after(&input[stop.at..], last) {
                        return e.shifted(base + stop.at);
                    }
                }
                ConvertError::new(base + stop.at, stop.cause.into(), stop.len)
            })?;
            self.consumed += read;
            return Ok(read);
        }
        if let Encoder::Copy = self.encoder {
            // The first stage writes the target itself: straight into
            // `out`, not through `mid` (a copy of everything).
            let read = self.decoder.decode(input, last, out)?;
            self.consumed += read;
            return Ok(read);
        }
        let mut mid = core::mem::take(&mut self.mid);
        mid.clear();
        let mut first = self.decoder.decode(input, last, &mut mid);
        if self.reading_first {
            if let Err(e) = &first {
                if let Some(earlier) = self.decoder.reading_error_after(input, base, e, last) {
                    first = Err(earlier);
                }
            }
        }
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
            let len = stop
                .len
                .map(|n| trace(stop.at + n).map_or(n, |end| end - at));
            ConvertError::new(at, stop.cause.into(), len)
        });
        self.mid = mid;
        self.replaced.add(replaced.count, first_replaced);
        if let Some(error) = error {
            if self.reading_first {
                first?;
            }
            return Err(error);
        }
        let read = first?;
        self.consumed += read;
        Ok(read)
    }

    /// What both stages replaced.
    pub(super) fn tally(&self) -> Tally {
        let first = self.decoder.tally();
        let first_at = match (first.first, self.replaced.first) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Tally {
            count: first.count + self.replaced.count,
            first: first_at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_counted_past_a_block_and_past_255() {
        // 255 bytes a block, counted in 8 bits: every byte a match, and
        // matches on both sides of a block's end.
        assert_eq!(count_byte(&[b'?'; 600], b'?'), 600);
        let mut bytes = vec![b'a'; 600];
        for at in [0, 254, 255, 256, 599] {
            bytes[at] = b'?';
        }
        assert_eq!(count_byte(&bytes, b'?'), 5);
        assert_eq!(count_byte(&bytes, b'a'), 595);
        assert_eq!(count_byte(b"", b'?'), 0);
    }
}
