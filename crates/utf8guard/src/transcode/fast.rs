//! The transcoders' fast converters: tight loops over input that a vector
//! kernel has already found well formed.
//!
//! Each loop reads a lead byte, takes the sequence's length from it and
//! decodes without checking what the kernel checked; it writes the target's
//! bytes directly. It stops before anything that needs the careful path (a
//! code point the target cannot hold, a lone surrogate, a reserved run, a
//! sequence that is not whole in the part it was given), which then
//! converts that one item and reports any error exactly.

use core::mem::MaybeUninit;

use super::corrected_simd::{Blocks, Stop, Way, BLOCK};
use crate::decode::is_lead;
use crate::decode::{combine, corrected_offset};
use crate::dialect::Dialect;
use crate::error::Utf8Error;
use crate::kernel;

/// The first window the kernel checks ahead of the fast converter; each
/// window that is valid to its end doubles the next, up to [`WINDOW_MAX`].
/// Small at first so that, in input with many errors, checking ahead costs
/// little more than converting.
pub(super) const WINDOW_MIN: usize = 256;

/// The largest window checked at once (it stays in the cache while it is
/// converted).
pub(super) const WINDOW_MAX: usize = 64 * 1024;

/// How many unchanged bytes in a row end the fast converter's loop of
/// items: it copies and patches again (see `copy_and_patch`), and after
/// more of them hands back to the transcoder's copy phase (a validated
/// copy at the speed of `memcpy`).
pub(super) const CLEAN_RUN: usize = 128;

/// The most bytes the fast converter's scalar loop converts, after the
/// block converter stopped, before it tries blocks again.
const MAX_SKIP: usize = 1024;

/// The room the fast converter wants before each step: each stores 8 bytes
/// (an ASCII block, or an item of up to 6 bytes and scratch).
const STEP_ROOM: usize = 8;

/// The length of the longest prefix of `bytes` that is well formed in
/// `dialect`, where `bytes` starts between two sequences of a document but
/// not at its start (Corrected UTF-8's magic number is not skipped there).
pub(super) fn valid_prefix(dialect: Dialect, bytes: &[u8]) -> usize {
    let result = match dialect {
        Dialect::Utf8 => crate::validate::from_utf8(bytes).map(drop),
        _ => {
            // SAFETY: the active kernel is one this CPU supports.
            let (_, result) = unsafe {
                kernel::check_dialect_part(crate::dispatch::active(), dialect, bytes, false)
            };
            result
        }
    };
    result.map_or_else(|e: Utf8Error| e.valid_up_to(), |()| bytes.len())
}

/// The next window's length after one of `len` bytes of which `valid` were
/// well formed: doubled when the window was valid up to its last sequence
/// (which its end may cut), back to the start after an error.
pub(super) fn next_window(len: usize, valid: usize) -> usize {
    if valid + 6 >= len {
        (len * 2).clamp(WINDOW_MIN, WINDOW_MAX)
    } else {
        WINDOW_MIN
    }
}

/// A dialect as a constant of the converters' type parameters.
mod code {
    pub const UTF8: u8 = 0;
    pub const UNICODE31: u8 = 1;
    pub const WTF8: u8 = 2;
    pub const CESU8: u8 = 3;
    pub const MUTF8: u8 = 4;
    pub const RFC2279: u8 = 5;
    pub const CORRECTED: u8 = 6;
}

const fn code_of(dialect: Dialect) -> u8 {
    match dialect {
        Dialect::Utf8 => code::UTF8,
        Dialect::Unicode31 => code::UNICODE31,
        Dialect::Wtf8 => code::WTF8,
        Dialect::Cesu8 => code::CESU8,
        Dialect::Mutf8 => code::MUTF8,
        Dialect::Rfc2279 => code::RFC2279,
        Dialect::Corrected => code::CORRECTED,
    }
}

/// Converts `src`, well formed in `from` (checked by a kernel; it starts
/// between sequences, never right after a WTF-8 lead surrogate) into `to`
/// at the start of `dst`, until an item that needs the careful path, the
/// end of `src`, a full `dst`, or a long run of unchanged bytes. Returns
/// the bytes read and written; the bytes read end between two sequences.
pub(super) fn convert(from: Dialect, to: Dialect, src: &[u8], dst: &mut [u8]) -> (usize, usize) {
    macro_rules! dispatch {
        ($($f:ident),*) => {
            match code_of(from) {
                $(code::$f => dispatch!(@to $f),)*
                _ => unreachable!(),
            }
        };
        (@to $f:ident) => {
            match code_of(to) {
                code::UTF8 => pair::<{ code::$f }, { code::UTF8 }>(src, dst),
                code::UNICODE31 => pair::<{ code::$f }, { code::UNICODE31 }>(src, dst),
                code::WTF8 => pair::<{ code::$f }, { code::WTF8 }>(src, dst),
                code::CESU8 => pair::<{ code::$f }, { code::CESU8 }>(src, dst),
                code::MUTF8 => pair::<{ code::$f }, { code::MUTF8 }>(src, dst),
                code::RFC2279 => pair::<{ code::$f }, { code::RFC2279 }>(src, dst),
                _ => pair::<{ code::$f }, { code::CORRECTED }>(src, dst),
            }
        };
    }
    dispatch!(UTF8, UNICODE31, WTF8, CESU8, MUTF8, RFC2279, CORRECTED)
}

/// ASCII bits of eight bytes.
const HIGH: u64 = 0x8080_8080_8080_8080;
const ONES: u64 = 0x0101_0101_0101_0101;

/// `true` when one of the eight bytes of `x` (all ASCII) is zero.
#[inline(always)]
fn has_zero(x: u64) -> bool {
    x.wrapping_sub(ONES) & !x & HIGH != 0
}

/// Writes `value` in `len` (2 to 4) bytes of the UTF-8 layout at `dst[..len]`.
#[inline(always)]
pub(super) fn put(dst: &mut [MaybeUninit<u8>], value: u32, len: usize) {
    match len {
        2 => {
            let d = &mut dst[..2];
            d[0].write(0xC0 | (value >> 6) as u8);
            d[1].write(0x80 | (value & 0x3F) as u8);
        }
        3 => {
            let d = &mut dst[..3];
            d[0].write(0xE0 | (value >> 12) as u8);
            d[1].write(0x80 | ((value >> 6) & 0x3F) as u8);
            d[2].write(0x80 | (value & 0x3F) as u8);
        }
        _ => {
            let d = &mut dst[..4];
            d[0].write(0xF0 | (value >> 18) as u8);
            d[1].write(0x80 | ((value >> 12) & 0x3F) as u8);
            d[2].write(0x80 | ((value >> 6) & 0x3F) as u8);
            d[3].write(0x80 | (value & 0x3F) as u8);
        }
    }
}

/// Writes `value` (any code point or surrogate) in UTF-8's layout at the
/// start of `dst` when it fits; returns its length, or `None` (nothing
/// written) when `dst` is too short. The unit loops' last step.
#[inline]
pub(super) fn put_fitting(dst: &mut [MaybeUninit<u8>], value: u32) -> Option<usize> {
    let len = match value {
        0..0x80 => 1,
        0x80..0x800 => 2,
        0x800..0x1_0000 => 3,
        _ => 4,
    };
    if dst.len() < len {
        return None;
    }
    if len == 1 {
        dst[0].write(value as u8);
    } else {
        put(dst, value, len);
    }
    Some(len)
}

/// `value` in `len` (1 to 4) bytes of UTF-8's layout, the first byte in
/// the lowest bits.
#[inline(always)]
fn layout_word(value: u32, len: usize) -> u64 {
    let v = u64::from(value);
    match len {
        1 => v,
        2 => 0x80C0 | v >> 6 | (v & 0x3F) << 8,
        3 => 0x80_80E0 | v >> 12 | (v >> 6 & 0x3F) << 8 | (v & 0x3F) << 16,
        _ => {
            0x8080_80F0 | v >> 18 | (v >> 12 & 0x3F) << 8 | (v >> 6 & 0x3F) << 16 | (v & 0x3F) << 24
        }
    }
}

/// Bytes 0, 1, 3, 4 of a surrogate pair in its 6-byte form:
/// `ED A_ __ ED B_ __`.
const PAIR_MASK: u64 = 0x00F0_FF00_F0FF;
const PAIR_BITS: u64 = 0x00B0_ED00_A0ED;

/// The code point at the start of `x` (the next 8 bytes of well-formed
/// input of dialect `F`, or the last ones padded with zeros) and its
/// length; `None` for what the careful path converts: U+0000 where it is
/// special, a lone surrogate (or a pair whose trail is not in `x`), a
/// sequence longer than 4 bytes, a reserved run.
#[inline(always)]
fn decode_word<const F: u8>(x: u64) -> Option<(u32, usize)> {
    let pairs_in = matches!(F, code::CESU8 | code::MUTF8 | code::UNICODE31);
    let b0 = x as u8;
    let byte = |k: u32| (x >> (8 * k)) as u32 & 0x3F;
    match b0 {
        0x00 if matches!(F, code::MUTF8 | code::CORRECTED) => None,
        0x00..=0x7F => Some((u32::from(b0), 1)),
        0xC0..=0xDF => {
            let value = u32::from(b0 & 0x1F) << 6 | byte(1);
            // Modified UTF-8's C0 80 is U+0000, its one overlong form.
            let cp = if F == code::CORRECTED {
                value + 0xA0
            } else {
                value
            };
            Some((cp, 2))
        }
        0xE0..=0xEF => {
            let value = u32::from(b0 & 0x0F) << 12 | byte(1) << 6 | byte(2);
            if F == code::CORRECTED {
                Some((corrected_offset(value, 3), 3))
            } else if !(0xD800..0xE000).contains(&value) {
                Some((value, 3))
            } else if pairs_in && x & PAIR_MASK == PAIR_BITS {
                let trail = 0xDC00 | (byte(4) & 0x0F) << 6 | byte(5);
                Some((combine(value, trail), 6))
            } else {
                None
            }
        }
        0xF0..=0xF7 => {
            let value = u32::from(b0 & 0x07) << 18 | byte(1) << 12 | byte(2) << 6 | byte(3);
            let cp = if F == code::CORRECTED {
                corrected_offset(value, 4)
            } else {
                value
            };
            Some((cp, 4))
        }
        _ => None,
    }
}

/// The bytes of `cp` (from [`decode_word`]) in dialect `T`, the first in
/// the lowest bits, and how many; `None` for what the careful path
/// converts: code points the target cannot hold, above U+10FFFF, and
/// U+0000 into Corrected UTF-8.
#[inline(always)]
fn encode_word<const T: u8>(cp: u32) -> Option<(u64, usize)> {
    if cp > 0x10_FFFF {
        return None;
    }
    if T == code::CORRECTED {
        let (value, len) = match cp {
            0x01..=0x7F => (cp, 1),
            0xA0..=0x89F => (cp - 0xA0, 2),
            0x8A0..=0xD7FF => (cp - 0x8A0, 3),
            0xE000..=0x1_109F => (cp - 0x10A0, 3),
            0x1_10A0.. => (cp - 0x1_10A0, 4),
            // U+0000 (from C0 80), C1 controls, surrogates.
            _ => return None,
        };
        return Some((layout_word(value, len), len));
    }
    // The decoder gives no surrogates (a pair is one code point).
    match cp {
        0 if T == code::MUTF8 => Some((0x80C0, 2)),
        0x00..=0x7F => Some((u64::from(cp), 1)),
        0x80..=0x7FF => Some((layout_word(cp, 2), 2)),
        0x800..=0xFFFF => Some((layout_word(cp, 3), 3)),
        _ if matches!(T, code::CESU8 | code::MUTF8) => Some((pair_word(cp), 6)),
        _ => Some((layout_word(cp, 4), 4)),
    }
}

/// The value laid out in the 4-byte sequence `x` (first byte lowest).
#[inline(always)]
fn four_byte_value(x: u32) -> u32 {
    (x & 0x07) << 18 | (x >> 8 & 0x3F) << 12 | (x >> 16 & 0x3F) << 6 | (x >> 24 & 0x3F)
}

/// The code point of the surrogate pair at the start of `x` (its 6-byte
/// form, checked with [`PAIR_MASK`]).
#[inline(always)]
fn pair_code_point(x: u64) -> u32 {
    let byte = |k: u32| (x >> (8 * k)) as u32 & 0x3F;
    0x1_0000 + ((byte(1) & 0x0F) << 16 | byte(2) << 10 | (byte(4) & 0x0F) << 6 | byte(5))
}

/// The surrogate pair of the supplementary code point `cp` in its 6-byte
/// form, the first byte lowest.
#[inline(always)]
fn pair_word(cp: u32) -> u64 {
    let offset = cp - 0x1_0000;
    layout_word(0xD800 | offset >> 10, 3) | layout_word(0xDC00 | (offset & 0x3FF), 3) << 24
}

/// The surrogate pair (6-byte form, first byte lowest) of the 4-byte
/// sequence `x` (up to U+10FFFF), bit field to bit field: `F0|a 80|b 80|c
/// 80|d` is `ED A0|u 80|(b&F)<<2|c>>4 ED B0|c&F 80|d` with `u` the plane
/// less one, `(a << 2 | b >> 4) - 1`.
#[inline(always)]
fn pair_of_four(x: u32) -> u64 {
    let x = u64::from(x);
    let (a, b, c, d) = (x & 0x07, x >> 8 & 0x3F, x >> 16 & 0x3F, x >> 24 & 0x3F);
    let u = (a << 2 | b >> 4) - 1;
    0x80B0_ED80_A0ED | u << 8 | ((b & 0x0F) << 2 | c >> 4) << 16 | (c & 0x0F) << 32 | d << 40
}

/// Two 4-byte sequences, bit fields one to a byte: the lead's (3 bits) in
/// the highest byte of each half, the first sequence in the high half (the
/// bytes of [`corrected_fours`]'s word swapped).
const FOUR_FIELDS: u64 = 0x073F_3F3F_073F_3F3F;

/// Corrected UTF-8's offset of 4-byte values, `0x1_10A0`, laid out the
/// same way (fields `0`, `0x11`, `0x02`, `0x20`), for both halves.
const FOUR_OFFSET: u64 = 0x0011_0220_0011_0220;

/// U+10FFFF laid out the same way (one half).
const FOUR_MAX: u32 = 0x040F_3F3F;

/// The two 4-byte sequences of `x` (its 8 bytes, first byte lowest; each
/// `F0..F7 80..BF 80..BF 80..BF`), from UTF-8's layout of a code point
/// into Corrected UTF-8 (`to`) or back, with each bit field one to a byte
/// so that the offset moves every field at once, a borrow or a carry
/// going from a field to the next through the byte's top bits. `None`
/// (the careful path takes it) when either changes length, a code point
/// below U+110A0 going into Corrected UTF-8 (3 bytes there), or ends above
/// U+10FFFF coming out of it. RFC 2279's 4-byte forms beyond U+10FFFF, up
/// to U+1FFFFF, are 4-byte Corrected values, which this writes as the
/// careful path does.
#[inline(always)]
fn corrected_fours(x: u64, to: bool) -> Option<u64> {
    let fields = x.swap_bytes() & FOUR_FIELDS;
    let moved = if to {
        // A field below the offset's borrows from the one above it: its
        // byte wraps, and its low 6 bits are the field's new value. A code
        // point below the offset takes the borrow into its lead's byte,
        // whose top bit it sets.
        let moved = fields.wrapping_sub(FOUR_OFFSET);
        if moved & 0x8000_0000_8000_0000 != 0 {
            return None;
        }
        moved
    } else {
        // The top bits of the three lower fields' bytes set, so that a sum
        // of 64 or more carries into the byte above; the lead's sum (at
        // most 8) stays in its byte.
        let moved = (fields | 0x00C0_C0C0_00C0_C0C0).wrapping_add(FOUR_OFFSET);
        let above_max = |half: u32| half & 0xFF3F_3F3F > FOUR_MAX;
        if above_max((moved >> 32) as u32) || above_max(moved as u32) {
            return None;
        }
        moved
    };
    Some((moved & FOUR_FIELDS | 0xF080_8080_F080_8080).swap_bytes())
}

/// A run of items of the same shape that all change, from `src[i..]` into
/// `dst[w..]`: sequences of `L` bytes (2, 3 or 4; 6 for a surrogate pair),
/// without the loop of items' dispatch on the lead byte. Stops before the
/// first item of another shape, or one that [`encode_word`] refuses.
/// Returns where it stopped in both.
#[inline(always)]
fn run<const F: u8, const T: u8, const L: usize>(
    src: &[u8],
    dst: &mut [u8],
    mut i: usize,
    mut w: usize,
) -> (usize, usize) {
    // A supplementary character's two forms: whole blocks with vectors,
    // then two characters a step.
    if L == 6 && T != code::CORRECTED {
        let (r, n) = super::pairs_simd::pairs_to_four(&src[i..], &mut dst[w..]);
        (i, w) = (i + r, w + n);
        while let (Some(chunk), true) = (src.get(i..i + 14), dst.len() - w >= STEP_ROOM) {
            let x = u64::from_le_bytes(chunk[..8].try_into().expect("8 bytes"));
            let y = u64::from_le_bytes(chunk[6..].try_into().expect("8 bytes"));
            if x & PAIR_MASK != PAIR_BITS || y & PAIR_MASK != PAIR_BITS {
                break;
            }
            let word =
                layout_word(pair_code_point(x), 4) | layout_word(pair_code_point(y), 4) << 32;
            dst[w..w + 8].copy_from_slice(&word.to_le_bytes());
            i += 12;
            w += 8;
        }
    }
    if L == 4 && matches!(T, code::CESU8 | code::MUTF8) && F != code::CORRECTED {
        // Up to U+10FFFF only (RFC 2279's go beyond), as below.
        let (r, n) = super::pairs_simd::four_to_pairs(&src[i..], &mut dst[w..]);
        (i, w) = (i + r, w + n);
        while let (Some(chunk), true) = (src.get(i..i + 8), dst.len() - w >= 2 * STEP_ROOM) {
            let x = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            if x & 0xC0C0_C0F8_C0C0_C0F8 != 0x8080_80F0_8080_80F0 {
                break;
            }
            let (first, second) = (x as u32, (x >> 32) as u32);
            // RFC 2279's 4-byte sequences go beyond U+10FFFF (the other
            // dialects' do not).
            if F == code::RFC2279 && four_byte_value(first).max(four_byte_value(second)) > 0x10_FFFF
            {
                break;
            }
            dst[w..w + 8].copy_from_slice(&pair_of_four(first).to_le_bytes());
            dst[w + 6..w + 14].copy_from_slice(&pair_of_four(second).to_le_bytes());
            i += 8;
            w += 12;
        }
    }
    // Four-byte sequences between Corrected UTF-8 and a dialect that
    // writes UTF-8's (emoji, the supplementary planes' CJK): two a step
    // while both stay 4 bytes long and within U+10FFFF.
    let utf8_fours = |d: u8| matches!(d, code::UTF8 | code::UNICODE31 | code::WTF8 | code::RFC2279);
    if L == 4
        && ((F == code::CORRECTED && utf8_fours(T)) || (T == code::CORRECTED && utf8_fours(F)))
    {
        while let (Some(chunk), true) = (src.get(i..i + 8), dst.len() - w >= STEP_ROOM) {
            let x = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            if x & 0xC0C0_C0F8_C0C0_C0F8 != 0x8080_80F0_8080_80F0 {
                break;
            }
            let Some(word) = corrected_fours(x, T == code::CORRECTED) else {
                break;
            };
            dst[w..w + 8].copy_from_slice(&word.to_le_bytes());
            i += 8;
            w += 8;
        }
    }
    // Two-byte sequences between UTF-8 and Corrected UTF-8 (Cyrillic,
    // Greek, Hebrew, Arabic, ...), two a step while both stay 2 bytes long:
    // the value moves by 0xA0.
    if L == 2 && (F == code::CORRECTED) != (T == code::CORRECTED) && F != code::MUTF8 {
        while let (Some(chunk), true) = (src.get(i..i + 4), dst.len() - w >= STEP_ROOM) {
            let x = u32::from_le_bytes(chunk.try_into().expect("4 bytes"));
            if x & 0xC0E0_C0E0 != 0x80C0_80C0 {
                break;
            }
            let first = (x & 0x1F) << 6 | (x >> 8 & 0x3F);
            let second = (x >> 16 & 0x1F) << 6 | (x >> 24 & 0x3F);
            let (first, second) = if F == code::CORRECTED {
                // Up to U+07FF, still 2 bytes in UTF-8.
                if first.max(second) >= 0x800 - 0xA0 {
                    break;
                }
                (first + 0xA0, second + 0xA0)
            } else {
                // From U+00A0 (C1 controls have no Corrected form).
                if first.min(second) < 0xA0 {
                    break;
                }
                (first - 0xA0, second - 0xA0)
            };
            let word = layout_word(first, 2) | layout_word(second, 2) << 16;
            dst[w..w + 4].copy_from_slice(&(word as u32).to_le_bytes());
            i += 4;
            w += 4;
        }
    }
    let (mask, bits) = match L {
        2 => (0xC0E0, 0x80C0),
        3 => (0xC0_C0F0, 0x80_80E0),
        4 => (0xC0C0_C0F8, 0x8080_80F0),
        _ => (PAIR_MASK, PAIR_BITS),
    };
    while let (Some(chunk), true) = (src.get(i..i + 8), dst.len() - w >= STEP_ROOM) {
        let x = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        if x & mask != bits {
            break;
        }
        let byte = |k: u32| (x >> (8 * k)) as u32 & 0x3F;
        let value = match L {
            2 => (x as u32 & 0x1F) << 6 | byte(1),
            3 => (x as u32 & 0x0F) << 12 | byte(1) << 6 | byte(2),
            4 => four_byte_value(x as u32),
            _ => pair_code_point(x),
        };
        let cp = if F == code::CORRECTED {
            corrected_offset(value, L)
        } else if L == 3 && (0xD800..0xE000).contains(&value) {
            break;
        } else {
            value
        };
        let Some((word, written)) = encode_word::<T>(cp) else {
            break;
        };
        dst[w..w + 8].copy_from_slice(&word.to_le_bytes());
        i += L;
        w += written;
    }
    (i, w)
}

/// The bytes [`copy_and_patch`] copies a step.
const PATCH_STEP: usize = 32;

/// The pairs of dialects with a block converter in the loop of items
/// (`corrected_simd.rs`): UTF-8 and Corrected UTF-8, both ways.
const BLOCKS_BETWEEN: [(u8, u8); 2] =
    [(code::UTF8, code::CORRECTED), (code::CORRECTED, code::UTF8)];

/// Between the dialects of [`BLOCKS_BETWEEN`], [`copy_and_patch`] leaves a
/// change to the loop of items when it comes fewer than this many bytes
/// after the one before: below that gap, patching each change is slower
/// than the loop of items and its block converter; at about this gap the
/// two are even (docs/TUNING.md, "Gap between changes into Corrected
/// UTF-8"). (The loop of items keeps the text up to its next clean run, so
/// text whose changes are a little further apart stays in it, as before.)
const BLOCKS_GAP: usize = 32;

/// How many unchanged bytes in a row send [`copy_and_patch`] back to the
/// transcoder's copy phase.
pub(super) const PATCH_CLEAN_RUN: usize = 1024;

/// The bytes that may start an item that dialect `F` writes otherwise in
/// dialect `T`, as the flags of [`first_changed`]: between the dialects
/// that share UTF-8's forms but for a few, a lead from `F0` (a
/// supplementary character into a dialect of surrogate pairs; from RFC
/// 2279, also a code point beyond U+10FFFF or a 5- or 6-byte sequence), a
/// lead surrogate or a lone surrogate (`ED` before `A0..BF`) from a
/// dialect that may hold one, `00` into modified UTF-8 and `C0` from it
/// (which only `C0 80` has there); into or out of Corrected UTF-8, every
/// byte from `80`, and `00` into it. [`copy_and_patch`] takes each
/// flagged item as the loop of items converts it, and may find that it
/// does not change after all.
struct Changes {
    four: bool,
    surrogate: bool,
    nul: bool,
    c0: bool,
    high: bool,
}

const fn changes(from: u8, to: u8) -> Changes {
    let corrected = from == code::CORRECTED || to == code::CORRECTED;
    Changes {
        four: !corrected && (matches!(to, code::CESU8 | code::MUTF8) || from == code::RFC2279),
        surrogate: !corrected
            && matches!(
                from,
                code::UNICODE31 | code::WTF8 | code::CESU8 | code::MUTF8 | code::RFC2279
            ),
        nul: matches!(to, code::MUTF8 | code::CORRECTED),
        c0: !corrected && from == code::MUTF8,
        high: corrected,
    }
}

/// The offset of the first byte of the first [`PATCH_STEP`] bytes of
/// `chunk` (which has one byte more, the look-ahead of a surrogate) that
/// [`changes`] flags for dialect `F` into dialect `T`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn first_changed<const F: u8, const T: u8>(chunk: &[u8; PATCH_STEP + 1]) -> Option<usize> {
    use core::arch::x86_64::*;
    let flags = const { changes(F, T) };
    // SAFETY: `chunk` is 33 readable bytes, read in unaligned loads of 16
    // from offsets 0, 1, 16 and 17; the other intrinsics need SSE2, which
    // every x86_64 CPU has (the target enables it).
    let mask = unsafe {
        let at = |k: usize| _mm_loadu_si128(chunk.as_ptr().add(k).cast());
        // Lanes of `lo..=FF`: those that the unsigned maximum with `lo`
        // leaves as they are.
        let at_least =
            |v: __m128i, lo: u8| _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(lo as i8)), v);
        let is = |v: __m128i, b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
        let changed = |k: usize| {
            let v = at(k);
            let mut m = _mm_setzero_si128();
            if flags.four {
                m = _mm_or_si128(m, at_least(v, 0xF0));
            }
            if flags.surrogate {
                let lead = _mm_and_si128(is(v, 0xED), at_least(at(k + 1), 0xA0));
                m = _mm_or_si128(m, lead);
            }
            if flags.nul {
                m = _mm_or_si128(m, is(v, 0));
            }
            if flags.c0 {
                m = _mm_or_si128(m, is(v, 0xC0));
            }
            if flags.high {
                // The movemask below takes the high bits.
                m = _mm_or_si128(m, v);
            }
            m
        };
        _mm_movemask_epi8(changed(0)) as u32 | (_mm_movemask_epi8(changed(16)) as u32) << 16
    };
    (mask != 0).then(|| mask.trailing_zeros() as usize)
}

/// [`first_changed`] with words: bit 7 of each byte of a word set where its
/// bits 4 to 7 are (`F0..FF`), or where the test for a zero byte sets it
/// in the word or in the word xor the byte looked for (exact for the
/// lowest one). It flags every `ED`, also those of `U+D000..U+D7FF`,
/// which [`copy_and_patch`] then steps over.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn first_changed<const F: u8, const T: u8>(chunk: &[u8; PATCH_STEP + 1]) -> Option<usize> {
    let flags = const { changes(F, T) };
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let lanes = |x: u64| {
        let mut m = 0;
        if flags.four {
            m |= x & x << 1 & x << 2 & x << 3 & HIGH;
        }
        if flags.surrogate {
            m |= zero(x ^ (0xED * ONES));
        }
        if flags.nul {
            m |= zero(x);
        }
        if flags.c0 {
            m |= zero(x ^ (0xC0 * ONES));
        }
        if flags.high {
            m |= x & HIGH;
        }
        m
    };
    chunk[..PATCH_STEP]
        .chunks_exact(8)
        .enumerate()
        .find_map(|(k, word)| {
            let set = lanes(u64::from_le_bytes(word.try_into().expect("8 bytes")));
            (set != 0).then(|| 8 * k + set.trailing_zeros() as usize / 8)
        })
}

/// Dialect `F` into dialect `T`, from `src[i..]` (well formed in `F`,
/// checked by a kernel) into `dst[w..]`: 32 bytes are copied a step
/// whatever they hold, and only where one of them starts an item that may
/// change ([`Changes`]) does the step stop to write its new form over the
/// copy. Stops near the end of either buffer, before an item it leaves to
/// the loop of items (one the careful path takes; into or out of Corrected
/// UTF-8, the second of two changed items in a row), or after
/// [`PATCH_CLEAN_RUN`] unchanged bytes; returns where it stopped in both,
/// and how many unchanged bytes it ended with.
///
/// Without it, the loop of items copied ASCII 8 bytes a step, decoded and
/// encoded every other character, and handed back to the copy phase after
/// [`CLEAN_RUN`] unchanged bytes, which validated and scanned a piece for
/// the next change: the two phases took turns at every change, which made
/// text with a change every few hundred bytes several times slower. The
/// copy phase is faster on a long run that does not change, which
/// [`PATCH_CLEAN_RUN`] leaves to it (docs/TUNING.md, "Copy and patch").
#[inline(always)]
fn copy_and_patch<const F: u8, const T: u8>(
    src: &[u8],
    dst: &mut [u8],
    mut i: usize,
    mut w: usize,
) -> (usize, usize, usize) {
    let mut clean = 0;
    while let (Some(chunk), Some(out)) = (
        src.get(i..i + PATCH_STEP + 1),
        dst.get_mut(w..w + PATCH_STEP),
    ) {
        let chunk: &[u8; PATCH_STEP + 1] = chunk.try_into().expect("a step");
        out.copy_from_slice(&chunk[..PATCH_STEP]);
        let Some(at) = first_changed::<F, T>(chunk) else {
            i += PATCH_STEP;
            w += PATCH_STEP;
            clean += PATCH_STEP;
            if clean >= PATCH_CLEAN_RUN {
                break;
            }
            continue;
        };
        i += at;
        w += at;
        if BLOCKS_BETWEEN.contains(&(F, T)) && clean + at < BLOCKS_GAP {
            // Changes close together, which the block converter of the
            // loop of items takes with vectors.
            return (i, w, 0);
        }
        clean = 0;
        // The item at `i`, whole in `src` (which ends between two), but
        // for a surrogate pair that its end cuts.
        let (Some(item), Some(out)) = (src.get(i..i + 8), dst.get_mut(w..w + 8)) else {
            break;
        };
        let x = u64::from_le_bytes(item.try_into().expect("8 bytes"));
        let corrected = F == code::CORRECTED || T == code::CORRECTED;
        let pairs_in = !corrected && matches!(F, code::CESU8 | code::MUTF8 | code::UNICODE31);
        let pairs_out = !corrected && matches!(T, code::CESU8 | code::MUTF8);
        let (read, written, word) = match x as u8 {
            0 if T == code::MUTF8 && !corrected => (1, 2, 0x80C0),
            0xC0 if F == code::MUTF8 && !matches!(T, code::MUTF8 | code::CORRECTED) => (2, 1, 0),
            0xF0.. if pairs_out && F != code::RFC2279 => {
                if item[4] >= 0xF0 {
                    // Two or more in a row (text of emoji): the converter
                    // of runs, with vectors.
                    let (ni, nw) = run::<F, T, 4>(src, dst, i, w);
                    if ni == i {
                        break;
                    }
                    (i, w) = (ni, nw);
                    continue;
                }
                (4, 6, pair_of_four(x as u32))
            }
            _ if pairs_in && !pairs_out && x & PAIR_MASK == PAIR_BITS => {
                if item[6] == 0xED && item.get(7).is_some_and(|&b| b >= 0xA0) {
                    let (ni, nw) = run::<F, T, 6>(src, dst, i, w);
                    if ni == i {
                        break;
                    }
                    (i, w) = (ni, nw);
                    continue;
                }
                (6, 4, layout_word(pair_code_point(x), 4))
            }
            // `ED 80..9F` (U+D000..U+D7FF), which the words find too.
            0xED if !corrected && x >> 8 & 0xE0 == 0x80 => (3, 3, x),
            // Anything else (a lone surrogate, a pair into a dialect of
            // pairs, RFC 2279's forms), as the loop of items converts it.
            _ => {
                let Some((cp, read)) = decode_word::<F>(x) else {
                    break;
                };
                let Some((word, written)) = encode_word::<T>(cp) else {
                    break;
                };
                (read, written, word)
            }
        };
        out.copy_from_slice(&word.to_le_bytes());
        i += read;
        w += written;
        if corrected && src.get(i).is_some_and(|&b| b >= 0x80) {
            // Text where every character changes, for the loop of items
            // and its block converter.
            break;
        }
    }
    // A step's end may cut a character, one that does not change (every
    // item that does is converted whole from its first byte): the
    // converter stops before it, where both buffers hold the same bytes.
    while src.get(i).is_some_and(|&b| b & 0xC0 == 0x80) {
        i -= 1;
        w -= 1;
        clean = clean.saturating_sub(1);
    }
    (i, w, clean)
}

/// The fast converter from dialect `F` to dialect `T` (their codes). Each
/// step reads 8 bytes and writes 8 (of which it keeps the item's): past
/// the bytes it reports written, `dst` holds scratch.
#[inline(never)]
fn pair<const F: u8, const T: u8>(src: &[u8], dst: &mut [u8]) -> (usize, usize) {
    // Between UTF-8 and Corrected UTF-8, the vector block converter where
    // every sequence keeps its length; after it stops at an item, the loop
    // of items goes on alone for `skip` bytes (more after each stop with
    // little done, so that text it cannot convert costs it little).
    let blocks = match (F, T) {
        (code::UTF8, code::CORRECTED) => Blocks::new(Way::ToCorrected),
        (code::CORRECTED, code::UTF8) => Blocks::new(Way::FromCorrected),
        _ => None,
    };
    // The blocks load from two bytes before `i`.
    let mut retry = (2, BLOCK);
    let (mut i, mut w) = (0, 0);
    // Copy and patch while the changes are few; the loop of items where
    // they are many, until it has gone [`CLEAN_RUN`] bytes without one,
    // when copying and patching takes over again.
    loop {
        let start = i;
        let clean;
        (i, w, clean) = copy_and_patch::<F, T>(src, dst, i, w);
        if clean >= PATCH_CLEAN_RUN {
            break;
        }
        let clean;
        (i, w, clean) = items::<F, T>(src, dst, i, w, blocks, &mut retry);
        if i == start || clean < CLEAN_RUN {
            break;
        }
    }
    (i, w)
}

/// The loop of [`pair`] that converts item by item (ASCII 8 bytes at a
/// time, runs of changed items with the block and run converters) from
/// `src[i..]` into `dst[w..]`, until an item that needs the careful path,
/// the end of either buffer, or [`CLEAN_RUN`] unchanged bytes. Returns
/// where it stopped in both, and how many unchanged bytes it ended with.
#[inline(never)]
fn items<const F: u8, const T: u8>(
    src: &[u8],
    dst: &mut [u8],
    mut i: usize,
    mut w: usize,
    blocks: Option<Blocks>,
    retry: &mut (usize, usize),
) -> (usize, usize, usize) {
    let (mut retry_at, mut skip) = *retry;
    // U+0000 is a special case on either side.
    let nul_special =
        matches!(F, code::MUTF8 | code::CORRECTED) || matches!(T, code::MUTF8 | code::CORRECTED);
    let corrected = F == code::CORRECTED || T == code::CORRECTED;
    let pairs_in = matches!(F, code::CESU8 | code::MUTF8 | code::UNICODE31);
    let pairs_out = matches!(T, code::CESU8 | code::MUTF8);
    let mut clean = 0;
    while i < src.len() && dst.len() - w >= STEP_ROOM && clean < CLEAN_RUN {
        if let Some(b) = blocks.filter(|_| i >= retry_at) {
            let (ni, nw, stop) = b.convert(src, dst, i, w);
            if ni > i {
                clean = 0;
            }
            skip = if ni - i >= BLOCK {
                BLOCK
            } else {
                (2 * skip).min(MAX_SKIP)
            };
            (i, w, retry_at) = (ni, nw, ni + skip);
            if stop == Stop::Clean {
                // Blocks of ASCII only: a clean run, as below.
                clean = CLEAN_RUN;
                break;
            }
            continue;
        }
        let x = match src.get(i..i + 8) {
            Some(chunk) => {
                let x = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
                if x & HIGH == 0 && !(nul_special && has_zero(x)) {
                    dst[w..w + 8].copy_from_slice(&x.to_le_bytes());
                    i += 8;
                    w += 8;
                    clean += 8;
                    continue;
                }
                x
            }
            None => {
                let mut tail = [0u8; 8];
                tail[..src.len() - i].copy_from_slice(&src[i..]);
                u64::from_le_bytes(tail)
            }
        };
        // Runs of items that all change: Corrected UTF-8's, a
        // supplementary character's two forms.
        if x as u8 >= 0xC0 {
            let (ni, nw) = match x as u8 {
                0xC0..=0xDF if corrected => run::<F, T, 2>(src, dst, i, w),
                0xE0..=0xEF if corrected => run::<F, T, 3>(src, dst, i, w),
                0xF0..=0xF7 if corrected || pairs_out => run::<F, T, 4>(src, dst, i, w),
                0xED if pairs_in && !pairs_out => run::<F, T, 6>(src, dst, i, w),
                _ => (i, w),
            };
            if ni > i {
                (i, w, clean) = (ni, nw, 0);
                continue;
            }
        }
        let Some((cp, read)) = decode_word::<F>(x) else {
            break;
        };
        if read > src.len() - i {
            // A sequence cut by the end of the part.
            break;
        }
        let Some((word, written)) = encode_word::<T>(cp) else {
            break;
        };
        dst[w..w + 8].copy_from_slice(&word.to_le_bytes());
        let unchanged = read == written && read < 6 && cp != 0 && (read == 1 || !corrected);
        clean = if unchanged { clean + read } else { 0 };
        i += read;
        w += written;
    }
    *retry = (retry_at, skip);
    (i, w, clean)
}

/// Converts `src`, well-formed WTF-8 that does not end with a lead
/// surrogate unless it ends the input (and does not start right after
/// one), into UTF-16 at the start of `dst`, which has at least `src.len()`
/// units. Returns the units written.
pub(super) fn wtf8_to_utf16(src: &[u8], dst: &mut [MaybeUninit<u16>]) -> usize {
    let dst = &mut dst[..src.len()];
    let (mut i, mut w) = (0, 0);
    let vectors = super::bmp_simd::available();
    // Where the vector loop is tried again after it stopped.
    let mut vectors_from = 0;
    while i < src.len() {
        if vectors && i >= vectors_from {
            let (r, n) = super::bmp_simd::to_utf16(&src[i..], &mut dst[w..]);
            (i, w) = (i + r, w + n);
            // It stopped before a step with a 4-byte form, or near the
            // end: the loop below takes at least that step.
            vectors_from = i + super::bmp_simd::STEP;
            if i == src.len() {
                break;
            }
        }
        let b0 = src[i];
        if b0 < 0x80 {
            if let (Some(chunk), Some(units)) = (src.get(i..i + 8), dst.get_mut(w..w + 8)) {
                let block: [u8; 8] = chunk.try_into().expect("8 bytes");
                if u64::from_le_bytes(block) & HIGH == 0 {
                    for (unit, &b) in units.iter_mut().zip(&block) {
                        unit.write(u16::from(b));
                    }
                    i += 8;
                    w += 8;
                    continue;
                }
            }
            dst[w].write(u16::from(b0));
            i += 1;
            w += 1;
            continue;
        }
        match b0 {
            0xC0..=0xDF => {
                // A run of 2-byte sequences (Cyrillic, Greek, Hebrew,
                // Arabic, ...), two at a time.
                while let (Some(chunk), Some(units)) = (src.get(i..i + 4), dst.get_mut(w..w + 2)) {
                    let x = u32::from_le_bytes(chunk.try_into().expect("4 bytes"));
                    if x & 0xC0E0_C0E0 != 0x80C0_80C0 {
                        break;
                    }
                    units[0].write(((x & 0x1F) << 6 | (x >> 8 & 0x3F)) as u16);
                    units[1].write(((x >> 16 & 0x1F) << 6 | (x >> 24 & 0x3F)) as u16);
                    i += 4;
                    w += 2;
                }
                if src.get(i).is_some_and(|&b| (0xC0..0xE0).contains(&b)) {
                    dst[w].write(u16::from(src[i] & 0x1F) << 6 | u16::from(src[i + 1] & 0x3F));
                    i += 2;
                    w += 1;
                }
            }
            0xE0..=0xEF => {
                let s = &src[i..i + 3];
                dst[w].write(
                    u16::from(b0 & 0x0F) << 12
                        | u16::from(s[1] & 0x3F) << 6
                        | u16::from(s[2] & 0x3F),
                );
                i += 3;
                w += 1;
            }
            _ => {
                // A run of 4-byte forms: whole blocks with vectors first.
                let (r, n) = super::pairs_simd::four_to_utf16(&src[i..], &mut dst[w..]);
                if r > 0 {
                    (i, w) = (i + r, w + n);
                    continue;
                }
                let s = &src[i..i + 4];
                let cp = u32::from(b0 & 0x07) << 18
                    | u32::from(s[1] & 0x3F) << 12
                    | u32::from(s[2] & 0x3F) << 6
                    | u32::from(s[3] & 0x3F);
                let offset = cp - 0x1_0000;
                let units = &mut dst[w..w + 2];
                units[0].write(0xD800 | (offset >> 10) as u16);
                units[1].write(0xDC00 | (offset & 0x3FF) as u16);
                i += 4;
                w += 2;
            }
        }
    }
    w
}

/// Converts UTF-16 units (any, ill-formed too) into WTF-8 at the start of
/// `dst`, which has room for all of it: at least
/// [`wtf8_len_bound`](super::utf16_simd::wtf8_len_bound) bytes (`3 *
/// src.len()` always are; the vector loop stores only where it has room,
/// the scalar one only the bytes of each unit). A lead surrogate that
/// ends `src` is converted alone only when `last`; otherwise it is left.
/// Returns the units read and the bytes written.
pub(super) fn utf16_to_wtf8(
    src: &[u16],
    dst: &mut [MaybeUninit<u8>],
    last: bool,
) -> (usize, usize) {
    utf16_to_8::<true>(src, dst, last)
}

/// [`utf16_to_wtf8`] that stops before a lone surrogate (which UTF-8 does
/// not hold) instead of converting it: what it writes is UTF-8.
pub(super) fn utf16_to_utf8_until_lone(
    src: &[u16],
    dst: &mut [MaybeUninit<u8>],
    last: bool,
) -> (usize, usize) {
    utf16_to_8::<false>(src, dst, last)
}

/// [`utf16_to_wtf8`] (`LONE`: lone surrogates converted) or
/// [`utf16_to_utf8_until_lone`]. The vector loop never converts a lone
/// surrogate: only the unit loop below tells the two apart.
#[inline(always)]
fn utf16_to_8<const LONE: bool>(
    src: &[u16],
    dst: &mut [MaybeUninit<u8>],
    last: bool,
) -> (usize, usize) {
    let (mut i, mut w) = (0, 0);
    let level = crate::dispatch::level();
    let vectors = super::utf16_simd::available(level);
    // Where the vector loop is tried again after it stopped, and how far
    // on it is tried next after converting nothing: in text dense with
    // surrogates (emoji), each try would cost a failed step.
    let (mut vectors_from, mut skip) = (0, super::utf16_simd::STEP);
    while i < src.len() {
        if vectors && i >= vectors_from {
            let (r, n) = super::utf16_simd::to_utf8(level, &src[i..], &mut dst[w..]);
            (i, w) = (i + r, w + n);
            // It stopped before a step with a surrogate, or near the end:
            // the loop below takes at least that step.
            skip = if r == 0 {
                (2 * skip).min(1024)
            } else {
                super::utf16_simd::STEP
            };
            vectors_from = i + skip;
            if i == src.len() {
                break;
            }
        }
        let unit = src[i];
        if unit < 0x80 {
            if let (Some(chunk), Some(bytes)) = (src.get(i..i + 4), dst.get_mut(w..w + 4)) {
                if chunk.iter().fold(0, |acc, &u| acc | u) < 0x80 {
                    for (b, &u) in bytes.iter_mut().zip(chunk) {
                        b.write(u as u8);
                    }
                    i += 4;
                    w += 4;
                    continue;
                }
            }
            dst[w].write(unit as u8);
            i += 1;
            w += 1;
            continue;
        }
        let value = u32::from(unit);
        if value < 0x800 {
            put(&mut dst[w..], value, 2);
            i += 1;
            w += 2;
            continue;
        }
        if is_lead(value) {
            match src.get(i + 1) {
                Some(&next) if (0xDC00..0xE000).contains(&next) => {
                    put(&mut dst[w..], combine(value, u32::from(next)), 4);
                    i += 2;
                    w += 4;
                    continue;
                }
                None if !last => break,
                _ => {}
            }
        }
        if !LONE && (0xD800..0xE000).contains(&value) {
            break;
        }
        put(&mut dst[w..], value, 3);
        i += 1;
        w += 3;
    }
    (i, w)
}
