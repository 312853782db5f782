//! Lone bytes replaced by byte shuffles (x86_64, SSSE3).
//!
//! In text of a single-byte encoding read as UTF-8, most bytes above `7F`
//! are maximal subparts of one byte: no lead byte among them is followed
//! by a continuation byte. A block of 16 such bytes is two halves of 8. In
//! a half, each byte above `7F` becomes the `width` bytes a policy writes
//! for it ([`Shape`]): one shuffle, chosen by the half's mask, moves each
//! ASCII byte to its place and copies each flagged byte into all the places
//! of its replacement, where the shape's bytes are made from it (a
//! constant, ORed with the byte's top two bits, its low six, or a hex digit
//! of a nibble). A half makes up to 8 * 4 = 32 bytes: one vector, or two
//! where the replacements are long.

use alloc::vec::Vec;
use core::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_cmpgt_epi8, _mm_loadl_epi64, _mm_loadu_si128, _mm_movemask_epi8,
    _mm_or_si128, _mm_set1_epi8, _mm_shuffle_epi8, _mm_srli_epi16, _mm_storeu_si128,
};

use super::Shape;

/// The most bytes a shape writes for one byte (`\xNN`).
pub(super) const MAX_WIDTH: usize = 4;

/// For each mask of 8 bytes (bit `i`: byte `i` is above `7F`) and each
/// replacement width: where each byte of the output comes from, and its
/// role: 0 for an ASCII byte, `1 + j` for byte `j` of a replacement (`0x80`
/// where the output has ended, which the shuffles read as zero).
struct Tables {
    source: [[u8; 32]; 256],
    role: [[u8; 32]; 256],
}

static TABLES: [Tables; MAX_WIDTH + 1] = [tables(0), tables(1), tables(2), tables(3), tables(4)];

const fn tables(width: usize) -> Tables {
    let mut t = Tables {
        source: [[0x80; 32]; 256],
        role: [[0x80; 32]; 256],
    };
    let mut mask = 0;
    while mask < 256 {
        let mut out = 0;
        let mut i = 0;
        while i < 8 {
            let flagged = mask >> i & 1 == 1;
            let n = if flagged { width } else { 1 };
            let mut j = 0;
            while j < n {
                t.source[mask][out] = i as u8;
                t.role[mask][out] = if flagged { 1 + j as u8 } else { 0 };
                out += 1;
                j += 1;
            }
            i += 1;
        }
        mask += 1;
    }
    t
}

/// Appends the 16 bytes of `ahead` (which holds at least 17) to `out`, each
/// byte above `7F` replaced as `shape` says, when each of those is a
/// maximal subpart of its own (no lead byte `C2`..`F4` followed by a
/// continuation byte, the 17th byte included) and `shape` can replace them
/// ([`Shape::high_only`]); otherwise `false`, and nothing is appended.
///
/// # Safety
///
/// The CPU must have SSSE3. (Not compiled for SSSE3 itself: it inlines into
/// its caller, which is.)
#[inline(always)]
pub(super) unsafe fn append(out: &mut Vec<u8>, ahead: &[u8], shape: &Shape) -> bool {
    let block: &[u8; 16] = ahead[..16].try_into().expect("16 bytes");
    let next = ahead[16];
    // SAFETY: the load reads the 16 bytes of `block`; SSE2 is part of
    // x86_64.
    let (high, lead, continuation) = unsafe {
        let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
        // Signed, C2..F4 is -62..-12 and 80..BF is -128..-65.
        let lead = _mm_and_si128(
            _mm_cmpgt_epi8(v, _mm_set1_epi8(0xC1_u8 as i8)),
            _mm_cmpgt_epi8(_mm_set1_epi8(0xF5_u8 as i8), v),
        );
        let continuation = _mm_cmpgt_epi8(_mm_set1_epi8(0xC0_u8 as i8), v);
        (
            _mm_movemask_epi8(v) as u32,
            _mm_movemask_epi8(lead) as u32,
            _mm_movemask_epi8(continuation) as u32,
        )
    };
    let continuation = continuation >> 1 | u32::from(next & 0xC0 == 0x80) << 15;
    if lead & continuation != 0 || (shape.high_only && has_c1(block)) {
        return false;
    }
    let tables = &TABLES[usize::from(shape.width)];
    // Two halves of at most 32 bytes each.
    out.reserve(64);
    let mut len = out.len();
    for half in 0..2 {
        let mask = ((high >> (8 * half)) & 0xFF) as usize;
        let flagged = mask.count_ones() as usize;
        let kept = 8 - flagged + usize::from(shape.width) * flagged;
        // SAFETY: the loads read 8 bytes of `block` (from byte 0 or 8 of
        // its 16), 16 of two table rows of 32 (from byte 0 or 16) and the
        // shape's 16-byte arrays; the stores write 16 bytes at `len` and,
        // where more than 16 are kept, at `len + 16`, all below
        // `out.len() + 64` at the start, which the reservation made room
        // for (at most 2 * 32 bytes are written). SSSE3 is the caller's
        // promise.
        unsafe {
            let src = _mm_loadl_epi64(block.as_ptr().add(8 * half).cast::<__m128i>());
            let dst = out.as_mut_ptr().add(len);
            let source = tables.source[mask].as_ptr();
            let role = tables.role[mask].as_ptr();
            _mm_storeu_si128(dst.cast::<__m128i>(), expand(src, source, role, shape));
            if kept > 16 {
                let second = expand(src, source.add(16), role.add(16), shape);
                _mm_storeu_si128(dst.add(16).cast::<__m128i>(), second);
            }
        }
        len += kept;
    }
    // SAFETY: the bytes up to `len` were written above (within the
    // reservation), after the `out.len()` bytes that were there.
    unsafe { out.set_len(len) };
    true
}

/// 16 bytes of a half's output: `src`'s bytes placed by the 16 `source`
/// indices, each made as its `role` says.
///
/// # Safety
///
/// `source` and `role` must be readable for 16 bytes; SSSE3.
#[inline(always)]
unsafe fn expand(src: __m128i, source: *const u8, role: *const u8, shape: &Shape) -> __m128i {
    // SAFETY: the caller's promise for `source` and `role`; the shape's
    // arrays are 16 bytes each.
    unsafe {
        let source = _mm_loadu_si128(source.cast::<__m128i>());
        let role = _mm_loadu_si128(role.cast::<__m128i>());
        let v = _mm_shuffle_epi8(src, source);
        let by_role =
            |table: &[u8; 16]| _mm_shuffle_epi8(_mm_loadu_si128(table.as_ptr().cast()), role);
        if shape.hex {
            // `\xNN`: the constant bytes, and one lookup of the digits, each
            // lane's nibble picked by its role (no bits of the byte itself).
            let high_digit = by_role(&shape.high_digit);
            let low_digit = by_role(&shape.low_digit);
            let nibble = _mm_or_si128(
                _mm_and_si128(_mm_srli_epi16::<4>(v), high_digit),
                _mm_and_si128(v, low_digit),
            );
            let digits = _mm_shuffle_epi8(
                _mm_loadu_si128(HEX_DIGITS.as_ptr().cast()),
                _mm_and_si128(nibble, _mm_set1_epi8(0x0F)),
            );
            return _mm_or_si128(
                _mm_or_si128(_mm_and_si128(v, by_role(&KEEP)), by_role(&shape.fixed)),
                _mm_and_si128(digits, _mm_or_si128(high_digit, low_digit)),
            );
        }
        let top = _mm_and_si128(_mm_srli_epi16::<6>(v), _mm_set1_epi8(0x03));
        let low = _mm_and_si128(v, _mm_set1_epi8(0x3F));
        _mm_or_si128(
            _mm_or_si128(
                _mm_and_si128(v, by_role(&KEEP)),
                _mm_and_si128(top, by_role(&shape.top)),
            ),
            _mm_or_si128(
                _mm_and_si128(low, by_role(&shape.low)),
                by_role(&shape.fixed),
            ),
        )
    }
}

/// The digits of `\xNN`, as CPython writes them.
const HEX_DIGITS: [u8; 16] = *b"0123456789abcdef";

/// Whether a byte of `block` is in `80`..`9F`: a byte of the block whose
/// top three bits are `100`, found as a zero byte (in each word, the top
/// bits XOR `100`, and the classic test for a zero byte).
#[inline(always)]
fn has_c1(block: &[u8; 16]) -> bool {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    block.chunks_exact(8).any(|word| {
        let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        let x = (word & 0xE0E0_E0E0_E0E0_E0E0) ^ HIGH;
        x.wrapping_sub(LOW) & !x & HIGH != 0
    })
}

/// By role: an ASCII byte is kept as it is.
const KEEP: [u8; 16] = [0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::String;
    use std::vec::Vec;

    /// The bytes a policy writes for a lone byte, `None` where its shape
    /// leaves the byte to the loop.
    type StandsFor = fn(u8) -> Option<Vec<u8>>;

    /// What each shape stands for, written out independently of it.
    fn shapes() -> [(&'static Shape, StandsFor); 6] {
        fn utf8(c: char) -> Vec<u8> {
            String::from(c).into_bytes()
        }
        [
            (&Shape::FFFD, |_| Some(utf8('\u{FFFD}'))),
            (&Shape::LATIN1, |b| Some(utf8(char::from(b)))),
            (&Shape::WINDOWS_1252, |b| {
                (b >= 0xA0).then(|| utf8(crate::legacy::windows_1252(b)))
            }),
            // U+DC00 + b as WTF-8.
            (&Shape::ESCAPE, |b| {
                Some(std::vec![0xED, 0xB0 | b >> 6, 0x80 | b & 0x3F])
            }),
            (&Shape::DROP, |_| Some(Vec::new())),
            (&Shape::BACKSLASH, |b| {
                Some(std::format!("\\x{b:02x}").into_bytes())
            }),
        ]
    }

    /// Every mask of each half, its flagged bytes drawn from lone bytes of
    /// every kind, and the lead bytes that start a sequence when a
    /// continuation byte follows: for every shape, the bytes each stands
    /// for, or `false` where a lead byte meets a continuation byte (the
    /// 17th byte's included) or the shape cannot write a byte.
    #[test]
    fn every_mask_of_a_half() {
        if !crate::cpu::has_sse42() {
            std::eprintln!("skipped: this CPU has no SSSE3");
            return;
        }
        let highs = [0x80, 0x9D, 0xA0, 0xBF, 0xC0, 0xC3, 0xE9, 0xF4, 0xF5, 0xFF];
        let is_lead = |b: u8| (0xC2..=0xF4).contains(&b);
        let is_continuation = |b: u8| b & 0xC0 == 0x80;
        for (shape, stands_for) in shapes() {
            for mask in 0..256u32 {
                for (lo, hi) in [(mask, 0), (0, mask), (mask, mask ^ 0xA5), (0xFF, mask)] {
                    let high = lo | hi << 8;
                    for start in 0..highs.len() {
                        for next in [b'q', 0x80, 0xC3] {
                            let mut ahead = *b"abcdefghijklmnopq";
                            for (i, b) in ahead[..16].iter_mut().enumerate() {
                                if high >> i & 1 == 1 {
                                    *b = highs[(start + 3 * i) % highs.len()];
                                }
                            }
                            ahead[16] = next;
                            let mut out = std::vec![b'>'];
                            // SAFETY: SSSE3 checked above.
                            let done = unsafe { append(&mut out, &ahead, shape) };
                            let lone = ahead
                                .windows(2)
                                .all(|w| !(is_lead(w[0]) && is_continuation(w[1])));
                            let mut want = std::vec![b'>'];
                            let mut handled = lone;
                            for &b in &ahead[..16] {
                                if b < 0x80 {
                                    want.push(b);
                                } else if let Some(bytes) = stands_for(b) {
                                    want.extend(bytes);
                                } else {
                                    handled = false;
                                }
                            }
                            assert_eq!(done, handled, "{ahead:02X?} with {shape:?}");
                            if !done {
                                want = std::vec![b'>'];
                            }
                            assert_eq!(out, want, "{ahead:02X?} with {shape:?}");
                        }
                    }
                }
            }
        }
    }
}
