//! Lone bytes replaced by byte shuffles (x86_64, SSSE3).
//!
//! In text of a single-byte encoding read as UTF-8, most bytes above `7F`
//! stand alone between ASCII ones, each a maximal subpart of its own. A
//! block of 16 such bytes is two halves of 8. In a half, its bytes above
//! `7F` (at most 4, none next to another) each become the `width` bytes a
//! policy writes for it ([`Shape`]): one shuffle, chosen by the half's
//! mask, moves each ASCII byte to its place and copies each flagged byte
//! into all the places of its replacement, where the shape's bytes are
//! made from it (a constant, ORed with the byte's top two bits or its low
//! six). At most 8 + 2 * 4 = 16 bytes come out of a half: one vector.

use alloc::vec::Vec;
use core::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_loadl_epi64, _mm_loadu_si128, _mm_or_si128, _mm_set1_epi8,
    _mm_shuffle_epi8, _mm_srli_epi16, _mm_storeu_si128,
};

use super::Shape;

/// For each mask of 8 bytes (bit `i`: byte `i` is above `7F`) and each
/// replacement width: where each byte of the output comes from, and its
/// role: 0 for an ASCII byte, `1 + j` for byte `j` of a replacement (`0x80`
/// where the output has ended, which the shuffles read as zero).
struct Tables {
    source: [[u8; 16]; 256],
    role: [[u8; 16]; 256],
}

static TABLES: [Tables; 4] = [tables(0), tables(1), tables(2), tables(3)];

const fn tables(width: usize) -> Tables {
    let mut t = Tables {
        source: [[0x80; 16]; 256],
        role: [[0x80; 16]; 256],
    };
    let mut mask = 0;
    while mask < 256 {
        let mut out = 0;
        let mut i = 0;
        // Masks with two bits in a row are never used; their entries stop
        // where 16 bytes are full.
        while i < 8 {
            let flagged = mask >> i & 1 == 1;
            let n = if flagged { width } else { 1 };
            let mut j = 0;
            while j < n && out < 16 {
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

/// Appends `block` to `out` with each byte above `7F` replaced as `shape`
/// says; `false` (nothing appended) when `shape` cannot replace one of them
/// ([`Shape::high_only`]).
///
/// # Safety
///
/// The CPU must have SSSE3, and `high` must be the mask of `block`'s bytes
/// above `7F` with no two bits in a row. (Not compiled for SSSE3 itself:
/// it inlines into its caller, which is.)
#[inline(always)]
pub(super) unsafe fn append(out: &mut Vec<u8>, block: &[u8; 16], high: u32, shape: &Shape) -> bool {
    debug_assert_eq!(high & (high >> 1), 0);
    if shape.high_only && has_c1(block) {
        return false;
    }
    let tables = &TABLES[usize::from(shape.width)];
    for half in 0..2 {
        let mask = ((high >> (8 * half)) & 0xFF) as usize;
        let mut bytes = [0u8; 16];
        // SAFETY: the loads read 8 bytes of `block` (from byte 0 or 8 of
        // its 16), 16 of two table rows and the shape's 16-byte arrays; the
        // store writes the 16 of `bytes`. SSSE3 is the caller's promise.
        unsafe {
            let src = _mm_loadl_epi64(block.as_ptr().add(8 * half).cast::<__m128i>());
            let source = _mm_loadu_si128(tables.source[mask].as_ptr().cast::<__m128i>());
            let role = _mm_loadu_si128(tables.role[mask].as_ptr().cast::<__m128i>());
            let v = _mm_shuffle_epi8(src, source);
            let by_role = |table: &[u8; 16]| {
                _mm_shuffle_epi8(_mm_loadu_si128(table.as_ptr().cast::<__m128i>()), role)
            };
            let top = _mm_and_si128(_mm_srli_epi16::<6>(v), _mm_set1_epi8(0x03));
            let low = _mm_and_si128(v, _mm_set1_epi8(0x3F));
            let v = _mm_or_si128(
                _mm_or_si128(
                    _mm_and_si128(v, by_role(&KEEP)),
                    _mm_and_si128(top, by_role(&shape.top)),
                ),
                _mm_or_si128(
                    _mm_and_si128(low, by_role(&shape.low)),
                    by_role(&shape.fixed),
                ),
            );
            _mm_storeu_si128(bytes.as_mut_ptr().cast::<__m128i>(), v);
        }
        // All 16 written, the half's output kept.
        let flagged = mask.count_ones() as usize;
        let kept = 8 - flagged + usize::from(shape.width) * flagged;
        out.extend_from_slice(&bytes);
        out.truncate(out.len() - 16 + kept);
    }
    true
}

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
    use std::vec::Vec;

    /// Every block whose bytes above `7F` stand alone, for every shape: the
    /// shape's bytes for each, computed byte by byte.
    #[test]
    fn every_lone_mask_of_a_half() {
        if !crate::cpu::has_sse42() {
            std::eprintln!("skipped: this CPU has no SSSE3");
            return;
        }
        let highs = [0x80, 0x9D, 0xA0, 0xBF, 0xC3, 0xE9, 0xFF];
        for shape in [
            &Shape::FFFD,
            &Shape::LATIN1,
            &Shape::ESCAPE,
            &Shape::DROP,
            &Shape::WINDOWS_1252,
        ] {
            for mask in 0..256u32 {
                if mask & (mask >> 1) != 0 {
                    continue;
                }
                for (lo, hi) in [(mask, 0), (0, mask), (mask, mask & 0x7F), (mask, 0x55)] {
                    let high = lo | hi << 8;
                    if high & (high >> 1) != 0 {
                        continue;
                    }
                    for start in 0..highs.len() {
                        let mut block = *b"abcdefghijklmnop";
                        for (i, b) in block.iter_mut().enumerate() {
                            if high >> i & 1 == 1 {
                                *b = highs[(start + i) % highs.len()];
                            }
                        }
                        let mut out = std::vec![b'>'];
                        // SAFETY: SSSE3 checked above; `high` is the
                        // block's mask, no two bits in a row.
                        let done = unsafe { append(&mut out, &block, high, shape) };
                        let mut want = std::vec![b'>'];
                        let mut handled = true;
                        for &b in &block {
                            if b < 0x80 {
                                want.push(b);
                            } else if shape.high_only && b < 0xA0 {
                                handled = false;
                            } else {
                                want.extend(shape.bytes(b));
                            }
                        }
                        assert_eq!(done, handled, "{block:02X?}");
                        if !done {
                            want = std::vec![b'>'];
                        }
                        assert_eq!(out, want, "{block:02X?} with {shape:?}");
                    }
                }
            }
        }
    }

    impl Shape {
        /// What the shape writes for `b`, byte by byte.
        fn bytes(&self, b: u8) -> Vec<u8> {
            (0..usize::from(self.width))
                .map(|j| {
                    self.fixed[1 + j] | (b >> 6 & self.top[1 + j]) | (b & 0x3F & self.low[1 + j])
                })
                .collect()
        }
    }
}
