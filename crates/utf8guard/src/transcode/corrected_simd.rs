//! A vector block converter between UTF-8 and Corrected UTF-8 for the text
//! where every sequence keeps its length (1, 2 or 3 bytes on both sides:
//! Cyrillic, Greek, Hebrew, Arabic, the Indic scripts, Hangul, CJK, ...).
//!
//! Both encodings lay a value out in the same bit fields; only the value
//! differs by an offset: a 2-byte Corrected value `v` is the code point
//! `v + 0xA0`, a 3-byte one `v + 0x8A0` below `EC BD A0` (code points below
//! U+D800) and `v + 0x10A0` from there (from U+E000). All three offsets
//! have `0x20` in their last 6-bit field, so each sequence's last byte just
//! flips bit 5, and the field before it takes a carry (adding) where that
//! bit was set, or a borrow (subtracting) where it was clear. The field
//! before the last moves by the offset's middle field (`0x22` for `0x8A0`,
//! `0x02` for `0x10A0`) and the lead's by `2` (2-byte) or `0`/`1` (3-byte),
//! each plus the carry or borrow from the field after it.
//!
//! Each byte's new value thus depends on its sequence's other bytes: at
//! most two before it and two after. The input is in memory, so the
//! converter loads the block five times, at offsets -2 to +2, and every
//! lane sees its neighbours; a byte's role (lead, middle or last byte) is
//! known from the lead bytes one or two lanes before it. It stops before
//! the first item whose length would change or that needs the careful
//! path: `00` (U+0000 is special in Corrected UTF-8), `F0..FF` (4 bytes and
//! longer, Corrected UTF-8's reserved runs), C1 controls (UTF-8 `C2
//! 80..9F`) and U+0800..U+089F (which Corrected UTF-8 writes in 2 bytes)
//! one way, the Corrected values that become U+0800..U+089F (3 bytes in
//! UTF-8) and U+10000 and above the other way.
//!
//! The input was checked well formed by the dialect's kernel, so the
//! converter does not check it again: a continuation byte is the middle
//! byte of a 3-byte sequence when the byte before it is a 3-byte lead, and
//! so on.

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

/// Which way a block converter goes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Way {
    /// UTF-8 to Corrected UTF-8 (the offsets subtracted).
    ToCorrected,
    /// Corrected UTF-8 to UTF-8 (the offsets added).
    FromCorrected,
}

/// Why [`Blocks::convert`] returned (on other targets than x86-64, where
/// there is no block converter, always [`Stop::Room`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) enum Stop {
    /// Before an item a block cannot convert (the scalar loops take it).
    Item,
    /// After blocks of ASCII only, which the copy phase moves faster.
    Clean,
    /// Too near the end of the input or of the output for a block.
    Room,
}

/// How many bytes a block converts (at most: it ends between sequences).
pub(super) const BLOCK: usize = 32;

/// How many all-ASCII blocks in a row send the converter back (then to the
/// copy phase).
#[cfg(target_arch = "x86_64")]
const CLEAN_BLOCKS: usize = 4;

/// A block converter the CPU can run: made only by [`Blocks::new`], once it
/// found AVX2 on this CPU and the dispatched kernel at that level or above.
#[derive(Clone, Copy, Debug)]
pub(super) struct Blocks {
    way: Way,
}

impl Blocks {
    /// The block converter for `way`, if the dispatched kernel is AVX2 or
    /// AVX-512 (not forced lower) and the CPU has AVX2.
    pub(super) fn new(way: Way) -> Option<Blocks> {
        match crate::dispatch::level() {
            crate::cpu::Level::Scalar => {
                let _ = way;
                None
            }
            #[cfg(target_arch = "x86_64")]
            _ => Some(Blocks { way }),
        }
    }

    /// Converts blocks of `src` from `i` into `dst` from `w`, while every
    /// sequence in a block keeps its length. `src` is well formed in the
    /// source dialect (checked by a kernel), and `i` is between two of its
    /// sequences. The blocks run only where `i >= 2` and `i + BLOCK + 2 <=
    /// src.len()` (the loads at offsets -2..+2 stay in `src`) and where
    /// `dst` has `BLOCK` bytes of room (each block stores all of them; past
    /// the bytes reported written, `dst` holds scratch). Returns where it
    /// stopped in both (between two sequences) and why.
    pub(super) fn convert(
        self,
        src: &[u8],
        dst: &mut [u8],
        i: usize,
        w: usize,
    ) -> (usize, usize, Stop) {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `Blocks::new` made `self` only after it found AVX2 on
            // this CPU.
            unsafe { convert_avx2(self.way, src, dst, i, w) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (self.way, src, dst);
            (i, w, Stop::Room)
        }
    }
}

/// Bytes of `value` in every lane.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn splat(value: u8) -> __m256i {
    _mm256_set1_epi8(value as i8)
}

/// Lanes where `x & mask == bits` (all ones there, zeros elsewhere).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn masked_eq(x: __m256i, mask: u8, bits: u8) -> __m256i {
    _mm256_cmpeq_epi8(_mm256_and_si256(x, splat(mask)), splat(bits))
}

/// Lanes where the byte is `value`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn equal(x: __m256i, value: u8) -> __m256i {
    _mm256_cmpeq_epi8(x, splat(value))
}

/// Lanes where the byte, taken unsigned, is greater than `bound`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn above(x: __m256i, bound: u8) -> __m256i {
    // Unsigned order is the signed order of the bytes with their top bit
    // flipped.
    _mm256_cmpgt_epi8(_mm256_xor_si256(x, splat(0x80)), splat(bound ^ 0x80))
}

/// Lanes of 2-byte leads (`C0..DF`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn lead2(x: __m256i) -> __m256i {
    masked_eq(x, 0xE0, 0xC0)
}

/// Lanes of 3-byte leads (`E0..EF`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn lead3(x: __m256i) -> __m256i {
    masked_eq(x, 0xF0, 0xE0)
}

/// The body of [`Blocks::convert`], with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn convert_avx2(
    way: Way,
    src: &[u8],
    dst: &mut [u8],
    mut i: usize,
    mut w: usize,
) -> (usize, usize, Stop) {
    let mut ascii_blocks = 0;
    while i >= 2 && i + BLOCK + 2 <= src.len() && dst.len() - w >= BLOCK {
        let at = src[i - 2..i + BLOCK + 2].as_ptr();
        // SAFETY: `at` points to the `BLOCK + 4` bytes `src[i - 2..i + BLOCK
        // + 2]`, so each 32-byte load at `at + 0 ..= at + 4` reads inside
        // them; unaligned loads take any address.
        let [p2, p1, c, n1, n2] = unsafe {
            [
                _mm256_loadu_si256(at.cast()),
                _mm256_loadu_si256(at.add(1).cast()),
                _mm256_loadu_si256(at.add(2).cast()),
                _mm256_loadu_si256(at.add(3).cast()),
                _mm256_loadu_si256(at.add(4).cast()),
            ]
        };
        let new = match way {
            Way::ToCorrected => to_corrected(p1, c, n1, n2),
            Way::FromCorrected => from_corrected(p1, c, n1, n2),
        };
        let out = by_role(p2, p1, c, new);
        let stop = _mm256_or_si256(nul_or_long(c), new.stop);
        let stop = _mm256_movemask_epi8(stop) as u32;
        let to = dst[w..w + BLOCK].as_mut_ptr();
        // SAFETY: `to` points to the `BLOCK` (32) bytes `dst[w..w + BLOCK]`;
        // unaligned stores take any address.
        unsafe { _mm256_storeu_si256(to.cast(), out) };
        if stop != 0 {
            // Every lane in `stop` is a sequence's first byte.
            let n = stop.trailing_zeros() as usize;
            return (i + n, w + n, Stop::Item);
        }
        // A block may end inside a sequence: the next starts with the rest
        // of it, whose lanes find their lead one or two lanes back (the
        // lead's lane converted it with the lanes after it, in this block's
        // loads).
        i += BLOCK;
        w += BLOCK;
        if _mm256_movemask_epi8(c) == 0 {
            ascii_blocks += 1;
            if ascii_blocks == CLEAN_BLOCKS {
                return (i, w, Stop::Clean);
            }
        } else {
            ascii_blocks = 0;
        }
    }
    // Back to the start of the sequence the last block's end may cut (its
    // lead is at most 2 bytes back: blocks pass no longer sequence, and
    // the first block starts with one).
    while src
        .get(i)
        .is_some_and(|&b| crate::bytes::is_continuation(b))
    {
        i -= 1;
        w -= 1;
    }
    (i, w, Stop::Room)
}

/// The lanes where a byte needs the careful path or changes length either
/// way: `00` and `F0..FF` (all the other lanes are ASCII, leads of 2 or 3
/// bytes, continuation bytes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn nul_or_long(c: __m256i) -> __m256i {
    _mm256_or_si256(equal(c, 0x00), masked_eq(c, 0xF0, 0xF0))
}

/// One way's new bytes for each lane, as if it had each role: the middle
/// byte of a 3-byte sequence, a 2-byte lead, a 3-byte lead; and the lanes
/// where the block must stop (besides [`nul_or_long`]'s).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct NewBytes {
    mid: __m256i,
    lead2: __m256i,
    lead3: __m256i,
    stop: __m256i,
}

/// The output bytes of the block `c` (`p2` and `p1` the bytes 2 and 1
/// before each lane): each lane's role comes from its own byte and the
/// leads before it. Last bytes (after a 2-byte lead, or 2 bytes after a
/// 3-byte lead) flip bit 5, and the lanes of no role (ASCII) keep their
/// byte.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn by_role(p2: __m256i, p1: __m256i, c: __m256i, new: NewBytes) -> __m256i {
    let last = _mm256_or_si256(lead2(p1), lead3(p2));
    let out = _mm256_blendv_epi8(c, _mm256_xor_si256(c, splat(0x20)), last);
    let out = _mm256_blendv_epi8(out, new.mid, lead3(p1));
    let out = _mm256_blendv_epi8(out, new.lead2, lead2(c));
    _mm256_blendv_epi8(out, new.lead3, lead3(c))
}

/// A borrow out of a last byte `x` (subtracting `0x20` from its field) as a
/// mask (all ones for 1, so that subtracting the borrow adds the mask).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn borrow(x: __m256i) -> __m256i {
    masked_eq(x, 0x20, 0x00)
}

/// UTF-8 to Corrected UTF-8: the middle byte `m` of the 3-byte sequence
/// `lead m next` less its offset field: the new byte, and the borrow from
/// the lead (a mask).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn middle_less(lead: __m256i, m: __m256i, next: __m256i) -> (__m256i, __m256i) {
    // `d` is 0x22, or 0x02 after EE/EF.
    let d = _mm256_sub_epi8(
        splat(0x22),
        _mm256_and_si256(masked_eq(lead, 0xFE, 0xEE), splat(0x20)),
    );
    let t = _mm256_add_epi8(_mm256_sub_epi8(m, d), borrow(next));
    // Below `80`: a non-negative signed byte (`t` is 5D or more).
    let lend = _mm256_cmpgt_epi8(t, splat(0xFF));
    (
        _mm256_add_epi8(t, _mm256_and_si256(lend, splat(0x40))),
        lend,
    )
}

/// UTF-8 to Corrected UTF-8 on one block: `c` the block, `p1`, `n1`, `n2`
/// the bytes 1 before each lane and 1 and 2 after.
///
/// Per sequence (`b` marks a borrow, 1 or 0): a last byte `x` becomes `x ^
/// 0x20` and lends `b = 1` when its bit 5 is clear; a 2-byte lead `L`
/// becomes `L - 2 - b`, which is below `C0` (a C1 control, U+0080..U+009F)
/// only for `C2` with a borrow; a middle byte `M` after the lead `L`
/// becomes `t = M - d - b` with `d` `0x02` after `EE`/`EF` (`0x10A0`) and
/// `0x22` before (`0x8A0`; strict UTF-8 has no surrogates, so `ED` is
/// below U+D800), plus `0x40` with a borrow `b'` to the lead when `t` is
/// below `80`; the 3-byte lead becomes `L - b'` (`0x8A0`) or `L - 1 - b'`
/// (`0x10A0`), which is below `E0` (U+0800..U+089F) only for `E0` with a
/// borrow.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn to_corrected(p1: __m256i, c: __m256i, n1: __m256i, n2: __m256i) -> NewBytes {
    let (mid_out, _) = middle_less(p1, c, n1);
    let (_, lead3_borrow) = middle_less(c, n1, n2);
    let lead2_borrow = borrow(n1);
    let lead2_out = _mm256_add_epi8(_mm256_sub_epi8(c, splat(2)), lead2_borrow);
    // Masks are -1 where set: adding them subtracts 1.
    let lead3_out = _mm256_add_epi8(_mm256_add_epi8(c, masked_eq(c, 0xFE, 0xEE)), lead3_borrow);
    let c1_control = _mm256_and_si256(equal(c, 0xC2), lead2_borrow);
    let below_8a0 = _mm256_and_si256(equal(c, 0xE0), lead3_borrow);
    NewBytes {
        mid: mid_out,
        lead2: lead2_out,
        lead3: lead3_out,
        stop: _mm256_or_si256(c1_control, below_8a0),
    }
}

/// A carry out of a last byte `x` (adding `0x20` to its field) as a mask
/// (all ones for 1, so that adding the carry subtracts the mask).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn carry(x: __m256i) -> __m256i {
    masked_eq(x, 0x20, 0x20)
}

/// Corrected UTF-8 to UTF-8: the lanes where the 3-byte sequence `lead m
/// next` is `EC BD A0` or above (offset 0x10A0 rather than 0x8A0); `next`
/// is `A0` or above when its carry bit is set.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn upper(lead: __m256i, m: __m256i, next: __m256i) -> __m256i {
    let m_tail = _mm256_or_si256(
        above(m, 0xBD),
        _mm256_and_si256(equal(m, 0xBD), carry(next)),
    );
    _mm256_or_si256(
        above(lead, 0xEC),
        _mm256_and_si256(equal(lead, 0xEC), m_tail),
    )
}

/// Corrected UTF-8 to UTF-8: the middle byte `m` of the 3-byte sequence
/// `lead m next` plus its offset field (`upper` from [`upper`]): the new
/// byte, and the carry to the lead (a mask).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn middle_more(m: __m256i, next: __m256i, upper: __m256i) -> (__m256i, __m256i) {
    let d = _mm256_sub_epi8(splat(0x22), _mm256_and_si256(upper, splat(0x20)));
    let t = _mm256_sub_epi8(_mm256_add_epi8(m, d), carry(next));
    let give = above(t, 0xBF);
    (
        _mm256_sub_epi8(t, _mm256_and_si256(give, splat(0x40))),
        give,
    )
}

/// Corrected UTF-8 to UTF-8 on one block (the lanes as for
/// [`to_corrected`]).
///
/// Per sequence (`k` marks a carry, 1 or 0): a last byte `x` becomes `x ^
/// 0x20` and carries `k = 1` when its bit 5 is set; a 2-byte lead `L`
/// becomes `L + 2 + k`, above `DF` when the code point is U+0800 or more (3
/// bytes in UTF-8); a 3-byte sequence `L M x` adds `0x8A0` below `EC BD
/// A0` and `0x10A0` from there: its middle byte becomes `t = M + d + k`
/// (`d` `0x22` or `0x02`), less `0x40` with a carry `k'` to the lead when
/// `t` is `C0` or more, and the lead `L + k'` or `L + 1 + k'`, `F0` or more
/// when the code point is U+10000 or more (4 bytes in UTF-8).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn from_corrected(p1: __m256i, c: __m256i, n1: __m256i, n2: __m256i) -> NewBytes {
    let (mid_out, _) = middle_more(c, n1, upper(p1, c, n1));
    let lead_upper = upper(c, n1, n2);
    let (_, lead3_carry) = middle_more(n1, n2, lead_upper);
    let lead2_out = _mm256_sub_epi8(_mm256_add_epi8(c, splat(2)), carry(n1));
    // Masks are -1 where set: subtracting them adds 1.
    let lead3_out = _mm256_sub_epi8(_mm256_sub_epi8(c, lead_upper), lead3_carry);
    let three_bytes = _mm256_and_si256(lead2(c), above(lead2_out, 0xDF));
    let four_bytes = _mm256_and_si256(lead3(c), masked_eq(lead3_out, 0xF0, 0xF0));
    NewBytes {
        mid: mid_out,
        lead2: lead2_out,
        lead3: lead3_out,
        stop: _mm256_or_si256(three_bytes, four_bytes),
    }
}
