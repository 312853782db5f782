//! A vector loop for UTF-16 without surrogates into UTF-8 (the same bytes
//! in WTF-8): the Basic Multilingual Plane, 1 to 3 bytes a unit.
//!
//! Each step takes 16 units. All below U+0080, they are packed into 16
//! bytes. All below U+0800 (the alphabets of Europe and the Middle East,
//! spaces and punctuation among them), each 16-bit lane holds its one or
//! two bytes, and a byte shuffle per eight lanes, looked up by which of
//! them are ASCII, keeps the bytes that count. Otherwise each unit's one
//! to three bytes are made in two 16-bit lanes, interleaved into a 32-bit
//! lane a unit, and a shuffle per four units, looked up by their lengths,
//! packs them. Eight surrogate
//! pairs, aligned on 32-bit lanes (emoji, and the other supplementary
//! planes), become eight 4-byte forms; any other step with a surrogate (a
//! lone one, which WTF-8 writes in 3 bytes, or pairs mixed with other
//! units) stops the loop: the scalar loop converts it.
//!
//! On x86-64 with the AVX2 or AVX-512 kernel active; elsewhere, and under
//! the scalar and SSE4.2 kernels, it converts nothing.

use core::mem::MaybeUninit;

use crate::cpu::Level;

/// Whether [`to_utf8`] converts anything at `level` (the machine's, with
/// its active kernel: [`crate::dispatch::level`]).
#[inline]
pub(super) fn available(level: Level) -> bool {
    level != Level::Scalar
}

/// The units a step takes.
pub(super) const STEP: usize = 16;

/// The room in bytes a step wants: it stores up to 16 bytes at up to 36
/// bytes on.
#[cfg(target_arch = "x86_64")]
const ROOM: usize = 64;

/// Converts the units at the start of `src` into UTF-8 at the start of
/// `dst`, a step of [`STEP`] units at a time: it stops before a step that
/// holds a surrogate, when fewer than `STEP` units are left, and when
/// `dst` has fewer than 64 bytes left (past those written it may hold
/// scratch). `level` is [`crate::dispatch::level`]'s answer. Returns
/// the units read and the bytes written.
#[inline]
pub(super) fn to_utf8(level: Level, src: &[u16], dst: &mut [MaybeUninit<u8>]) -> (usize, usize) {
    match level {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level` (from `dispatch::level`) found AVX2 on this CPU
        // (AVX-512 implies it).
        Level::Avx2 | Level::Avx512 | Level::Vbmi => unsafe { x86::to_utf8_avx2(src, dst) },
        _ => {
            let _ = (src, dst);
            (0, 0)
        }
    }
}

/// An upper bound of the length of `units` in WTF-8: 1 byte a unit below
/// U+0080, 2 below U+0800, 3 from there (a surrogate pair, 4 bytes, counts
/// 6). Counted with vectors where the vector kernels are active, much
/// faster than [`to_utf8`] converts, so that the output is reserved once
/// (docs/TUNING.md, "WTF-8 length bound").
#[cfg(feature = "alloc")]
pub(super) fn wtf8_len_bound(units: &[u16]) -> usize {
    match crate::dispatch::level() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level` found AVX2 on this CPU (AVX-512 implies it).
        Level::Avx2 | Level::Avx512 | Level::Vbmi => unsafe { x86::len_bound_avx2(units) },
        _ => len_bound(units),
    }
}

/// [`wtf8_len_bound`], as a loop the compiler turns into vector code: it
/// counts in 16-bit lanes, over pieces short enough for them not to wrap.
#[cfg(feature = "alloc")]
#[inline(always)]
fn len_bound(units: &[u16]) -> usize {
    units
        .chunks(1 << 14)
        .map(|piece| {
            let extra = piece.iter().fold(0u16, |sum, &u| {
                sum.wrapping_add(u16::from(u >= 0x80) + u16::from(u >= 0x800))
            });
            usize::from(extra)
        })
        .sum::<usize>()
        + units.len()
}

#[cfg(target_arch = "x86_64")]
pub(super) mod x86 {
    use super::super::bmp_simd::COUNT;
    use super::{ROOM, STEP};
    use core::arch::x86_64::*;
    use core::mem::MaybeUninit;

    /// For each set of eight 16-bit lanes holding one byte (bit `k`: lane
    /// `k`; the others hold two), the byte shuffle that packs the lanes'
    /// bytes, in order, at the front of a vector.
    static TWO: [[u8; 16]; 256] = {
        let mut t = [[0x80u8; 16]; 256];
        let mut ones = 0;
        while ones < 256 {
            let (mut lane, mut to) = (0, 0);
            while lane < 8 {
                t[ones][to] = 2 * lane as u8;
                to += 1;
                if ones >> lane & 1 == 0 {
                    t[ones][to] = 2 * lane as u8 + 1;
                    to += 1;
                }
                lane += 1;
            }
            ones += 1;
        }
        t
    };

    /// Stores the 16 code units of `v`, all below U+0800, at `q` as UTF-8,
    /// one or two bytes each, in order; returns how many bytes (16 to 32).
    /// UTF-32 into UTF-8 narrows its units to these lanes and takes it too.
    ///
    /// # Safety
    ///
    /// `q` must be writable for 32 bytes.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn store_below_0800(v: __m256i, q: *mut u8) -> usize {
        // One or two bytes in each 16-bit lane.
        let ascii = _mm256_cmpgt_epi16(_mm256_set1_epi16(0x80), v);
        let two = _mm256_or_si256(
            _mm256_or_si256(
                _mm256_srli_epi16::<6>(v),
                _mm256_set1_epi16(0x80C0u16 as i16),
            ),
            _mm256_slli_epi16::<8>(_mm256_and_si256(v, _mm256_set1_epi16(0x3F))),
        );
        let lanes = _mm256_blendv_epi8(two, v, ascii);
        // A bit a lane.
        let ones = _mm_movemask_epi8(_mm_packs_epi16(
            _mm256_castsi256_si128(ascii),
            _mm256_extracti128_si256::<1>(ascii),
        )) as u32;
        let (low, high) = (ones & 0xFF, ones >> 8);
        // SAFETY: each entry of `TWO` is 16 readable bytes.
        let shuffles = unsafe {
            _mm256_loadu2_m128i(
                TWO[high as usize].as_ptr().cast(),
                TWO[low as usize].as_ptr().cast(),
            )
        };
        let packed = _mm256_shuffle_epi8(lanes, shuffles);
        let n_low = 16 - usize::from(COUNT[low as usize]);
        // SAFETY: 16 bytes at `q`, and 16 at `q + n_low` (`n_low <= 16`):
        // within the 32 the caller promises.
        unsafe {
            _mm_storeu_si128(q.cast(), _mm256_castsi256_si128(packed));
            _mm_storeu_si128(q.add(n_low).cast(), _mm256_extracti128_si256::<1>(packed));
        }
        n_low + 16 - usize::from(COUNT[high as usize])
    }

    /// For four units of a Basic Multilingual Plane step, the byte shuffle
    /// that packs their UTF-8 bytes from their 32-bit lanes (laid out as
    /// [`store_bmp`] makes them) at the front of a vector. Indexed by two
    /// bits a unit: bit `2k` is set when unit `k` takes more than one
    /// byte, bit `2k + 1` when it takes three; so a row packs four bytes
    /// and one more per bit set.
    static BMP: [[u8; 16]; 256] = {
        let mut t = [[0x80u8; 16]; 256];
        let mut bits = 0;
        while bits < 256 {
            let (mut unit, mut to) = (0, 0);
            while unit < 4 {
                let len = 1 + (bits >> (2 * unit) & 1) + (bits >> (2 * unit + 1) & 1);
                // One byte: byte 0 of the lane; two or three: its last two
                // or three bytes.
                let (mut from, end) = if len == 1 { (0, 1) } else { (4 - len, 4) };
                while from < end {
                    t[bits][to] = (4 * unit + from) as u8;
                    to += 1;
                    from += 1;
                }
                unit += 1;
            }
            bits += 1;
        }
        t
    };

    /// Stores the 16 code units of `v`, none a surrogate, at `q` as
    /// UTF-8, one to three bytes each, in order; returns how many bytes (16
    /// to 48). UTF-32 into UTF-8 narrows its units to these lanes and takes
    /// it too.
    ///
    /// Each unit's bytes are made in 16-bit lanes, two words a unit: the
    /// first holds the unit itself in its low byte (all an ASCII unit
    /// needs) and a 3-byte form's lead in its high byte; the second holds
    /// the next-to-last byte (a 2-byte form's lead or a 3-byte form's
    /// middle byte, which differ in one bit) and the last. Interleaving the
    /// words gives a 32-bit lane a unit, whose one, two or three bytes a
    /// shuffle per four lanes packs.
    ///
    /// # Safety
    ///
    /// `q` must be writable for 64 bytes.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn store_bmp(v: __m256i, q: *mut u8) -> usize {
        let zero = _mm256_setzero_si256();
        let word = |x: u16| _mm256_set1_epi16(x as i16);
        // Lanes of one byte, and of at most two (the compares are signed:
        // masking first keeps them right above U+7FFF).
        let ascii = _mm256_cmpeq_epi16(_mm256_and_si256(v, word(0xFF80)), zero);
        let short = _mm256_cmpeq_epi16(_mm256_and_si256(v, word(0xF800)), zero);
        // 1110xxxx above the unit's low byte.
        let first = _mm256_or_si256(
            _mm256_or_si256(_mm256_and_si256(v, word(0x00FF)), word(0xE000)),
            _mm256_and_si256(_mm256_srli_epi16::<4>(v), word(0x0F00)),
        );
        // 10yyyyyy (110yyyyy for two bytes), then 10zzzzzz.
        let second = _mm256_or_si256(
            _mm256_or_si256(
                _mm256_and_si256(_mm256_srli_epi16::<6>(v), word(0x003F)),
                _mm256_slli_epi16::<8>(_mm256_and_si256(v, word(0x003F))),
            ),
            _mm256_or_si256(word(0x8080), _mm256_and_si256(short, word(0x0040))),
        );
        // Units 0-3 and 8-11, then 4-7 and 12-15 (unpacking works within
        // 128-bit halves).
        let lanes_a = _mm256_unpacklo_epi16(first, second);
        let lanes_b = _mm256_unpackhi_epi16(first, second);
        // Two bits a unit: more than one byte (from the lane's low byte),
        // three bytes (from its high byte).
        let fewer = _mm256_blendv_epi8(ascii, short, word(0xFF00));
        let bits = !(_mm256_movemask_epi8(fewer) as u32);
        if bits == u32::MAX {
            // All 3 bytes long (CJK text): one fixed shuffle, fixed places.
            let pack = _mm256_setr_epi8(
                1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, -1, -1, -1, -1, //
                1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, -1, -1, -1, -1,
            );
            let (pa, pb) = (
                _mm256_shuffle_epi8(lanes_a, pack),
                _mm256_shuffle_epi8(lanes_b, pack),
            );
            // SAFETY: four 16-byte stores, the last 36 bytes on: within the
            // 64 the caller promises.
            unsafe {
                _mm_storeu_si128(q.cast(), _mm256_castsi256_si128(pa));
                _mm_storeu_si128(q.add(12).cast(), _mm256_castsi256_si128(pb));
                _mm_storeu_si128(q.add(24).cast(), _mm256_extracti128_si256::<1>(pa));
                _mm_storeu_si128(q.add(36).cast(), _mm256_extracti128_si256::<1>(pb));
            }
            return 48;
        }
        let row = |k: u32| &BMP[(bits >> (8 * k) & 0xFF) as usize];
        let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
        // SAFETY: each row of `BMP` is 16 readable bytes.
        let (sa, sb) = unsafe {
            (
                _mm256_loadu2_m128i(r2.as_ptr().cast(), r0.as_ptr().cast()),
                _mm256_loadu2_m128i(r3.as_ptr().cast(), r1.as_ptr().cast()),
            )
        };
        let (pa, pb) = (
            _mm256_shuffle_epi8(lanes_a, sa),
            _mm256_shuffle_epi8(lanes_b, sb),
        );
        // Each unit's bytes past its first are the bits set in its pair:
        // counted apart from the rows, so that no store waits for a row.
        let n = |k: u32| 4 + usize::from(COUNT[(bits >> (8 * k) & 0xFF) as usize]);
        let (n0, n1, n2) = (n(0), n(1), n(2));
        // SAFETY: four 16-byte stores, the last at most 36 bytes on: within
        // the 64 the caller promises.
        unsafe {
            _mm_storeu_si128(q.cast(), _mm256_castsi256_si128(pa));
            _mm_storeu_si128(q.add(n0).cast(), _mm256_castsi256_si128(pb));
            _mm_storeu_si128(q.add(n0 + n1).cast(), _mm256_extracti128_si256::<1>(pa));
            _mm_storeu_si128(
                q.add(n0 + n1 + n2).cast(),
                _mm256_extracti128_si256::<1>(pb),
            );
        }
        n0 + n1 + n2 + n(3)
    }

    /// [`super::len_bound`] compiled for AVX2.
    #[cfg(feature = "alloc")]
    #[target_feature(enable = "avx2")]
    pub(super) fn len_bound_avx2(units: &[u16]) -> usize {
        super::len_bound(units)
    }

    /// Narrows the ASCII units from `src[i..]` into `dst[w..]`, 32 at a
    /// time, while the next 32 are all ASCII and have room; returns the new
    /// `i` and `w`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn ascii_run(src: &[u16], dst: &mut [MaybeUninit<u8>], i: usize, w: usize) -> (usize, usize) {
        let (Some(src), Some(dst)) = (src.get(i..), dst.get_mut(w..)) else {
            return (i, w);
        };
        let mut k = 0;
        for (chunk, out) in src.chunks_exact(32).zip(dst.chunks_exact_mut(32)) {
            // SAFETY: `chunk` is 32 readable units: 16 at its start and 16
            // after them.
            let (a, b) = unsafe {
                (
                    _mm256_loadu_si256(chunk.as_ptr().cast()),
                    _mm256_loadu_si256(chunk.as_ptr().add(16).cast()),
                )
            };
            if _mm256_testz_si256(_mm256_or_si256(a, b), _mm256_set1_epi16(0xFF80u16 as i16)) == 0 {
                break;
            }
            // The pack works within 128-bit halves: the permutation puts
            // the four 8-byte groups back in order.
            let bytes = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(a, b));
            // SAFETY: `out` is 32 writable bytes.
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), bytes) };
            k += 32;
        }
        (i + k, w + k)
    }

    /// [`super::to_utf8`] with AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn to_utf8_avx2(src: &[u16], dst: &mut [MaybeUninit<u8>]) -> (usize, usize) {
        let (mut i, mut w) = (0, 0);
        while let (Some(chunk), Some(out)) = (src.get(i..i + STEP), dst.get_mut(w..w + ROOM)) {
            // SAFETY: `chunk` is 16 readable units, 32 bytes.
            let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
            let q: *mut u8 = out.as_mut_ptr().cast();
            if _mm256_testz_si256(v, _mm256_set1_epi16(0xFF80u16 as i16)) == 1 {
                // All ASCII.
                let bytes =
                    _mm_packus_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
                // SAFETY: `out` is 64 writable bytes.
                unsafe { _mm_storeu_si128(q.cast(), bytes) };
                i += STEP;
                w += STEP;
                // And so on 32 at a time while the ASCII lasts (only after
                // an ASCII step, as in the other direction: docs/TUNING.md,
                // "ASCII into UTF-16").
                (i, w) = ascii_run(src, dst, i, w);
                continue;
            }
            let high5 = _mm256_and_si256(v, _mm256_set1_epi16(0xF800u16 as i16));
            if _mm256_testz_si256(high5, high5) == 1 {
                // SAFETY: `out` is 64 writable bytes, more than 32.
                w += unsafe { store_below_0800(v, q) };
                i += STEP;
                continue;
            }
            // A surrogate (D800..DFFF) is for the scalar loop.
            let surrogates = _mm256_cmpeq_epi16(high5, _mm256_set1_epi16(0xD800u16 as i16));
            if _mm256_testz_si256(surrogates, surrogates) == 0 {
                // Eight surrogate pairs, a lead in each even lane and a
                // trail in each odd one, become eight 4-byte forms;
                // anything else with a surrogate is for the scalar loop.
                let pairs = _mm256_cmpeq_epi32(
                    _mm256_and_si256(v, _mm256_set1_epi32(0xFC00_FC00u32 as i32)),
                    _mm256_set1_epi32(0xDC00_D800u32 as i32),
                );
                if _mm256_movemask_epi8(pairs) != -1 {
                    break;
                }
                let ten = _mm256_set1_epi32(0x3FF);
                let cp = _mm256_add_epi32(
                    _mm256_or_si256(
                        _mm256_slli_epi32::<10>(_mm256_and_si256(v, ten)),
                        _mm256_and_si256(_mm256_srli_epi32::<16>(v), ten),
                    ),
                    _mm256_set1_epi32(0x1_0000),
                );
                // 11110www 10xxxxxx 10yyyyyy 10zzzzzz.
                let low6 = |x: __m256i, at: i32| _mm256_and_si256(x, _mm256_set1_epi32(0x3F << at));
                let bytes = _mm256_or_si256(
                    _mm256_or_si256(
                        _mm256_or_si256(
                            _mm256_srli_epi32::<18>(cp),
                            _mm256_set1_epi32(0x8080_80F0u32 as i32),
                        ),
                        low6(_mm256_srli_epi32::<4>(cp), 8),
                    ),
                    _mm256_or_si256(
                        low6(_mm256_slli_epi32::<10>(cp), 16),
                        low6(_mm256_slli_epi32::<24>(cp), 24),
                    ),
                );
                // SAFETY: `out` is 64 writable bytes.
                unsafe { _mm256_storeu_si256(q.cast(), bytes) };
                i += STEP;
                w += 2 * STEP;
                continue;
            }
            // SAFETY: `out` is 64 writable bytes.
            w += unsafe { store_bmp(v, q) };
            i += STEP;
        }
        (i, w)
    }
}
