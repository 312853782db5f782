//! A vector loop for UTF-16 without surrogates into UTF-8 (the same bytes
//! in WTF-8): the Basic Multilingual Plane, 1 to 3 bytes a unit.
//!
//! Each step takes 16 units. All below U+0080, they are packed into 16
//! bytes. All below U+0800 (the alphabets of Europe and the Middle East,
//! spaces and punctuation among them), each 16-bit lane holds its one or
//! two bytes, and a byte shuffle per eight lanes, looked up by which of
//! them are ASCII, keeps the bytes that count. Otherwise each unit is
//! widened to a 32-bit lane holding its one to three bytes, and a shuffle
//! per four lanes, looked up by their lengths, packs them. Eight surrogate
//! pairs, aligned on 32-bit lanes (emoji, and the other supplementary
//! planes), become eight 4-byte forms; any other step with a surrogate (a
//! lone one, which WTF-8 writes in 3 bytes, or pairs mixed with other
//! units) stops the loop: the scalar loop converts it.
//!
//! On x86-64 with the AVX2 or AVX-512 kernel active; elsewhere, and under
//! the scalar and SSE4.2 kernels, it converts nothing.

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
pub(super) fn to_utf8(level: Level, src: &[u16], dst: &mut [u8]) -> (usize, usize) {
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

    /// For four 32-bit lanes, indexed by which hold more than one byte
    /// (bits 0-3) and which hold three (bits 4-7), the byte shuffle that
    /// packs the lanes' bytes at the front of a vector; its byte 15, past
    /// the 12 bytes that four lanes fill at most, holds how many there are.
    static THREE: [[u8; 16]; 256] = {
        let mut t = [[0x80u8; 16]; 256];
        let mut bits = 0;
        while bits < 256 {
            let (mut lane, mut to) = (0, 0);
            while lane < 4 {
                let len = 1 + (bits >> lane & 1) + (bits >> (lane + 4) & 1);
                let mut k = 0;
                while k < len {
                    t[bits][to] = (4 * lane + k) as u8;
                    to += 1;
                    k += 1;
                }
                lane += 1;
            }
            // At most 12 bytes: byte 15 is free.
            t[bits][15] = to as u8;
            bits += 1;
        }
        t
    };

    /// The entry of [`THREE`] for four of eight lanes (`half` 0: lanes 0-3,
    /// 1: lanes 4-7), from the eight lanes' masks of more than one byte and
    /// of three, and its byte count.
    #[inline(always)]
    fn three(more: u32, three: u32, half: u32) -> (&'static [u8; 16], usize) {
        let bits = (more >> (4 * half) & 0xF) | (three >> (4 * half) & 0xF) << 4;
        let entry = &THREE[bits as usize];
        (entry, usize::from(entry[15]))
    }

    /// Eight units in 32-bit lanes, each turned into its UTF-8 bytes (the
    /// first lowest; those above U+07FF in 3 bytes, then U+007F in 2),
    /// with the masks of the lanes above U+007F and above U+07FF.
    #[target_feature(enable = "avx2")]
    fn words(v: __m256i) -> (__m256i, u32, u32) {
        let more = _mm256_cmpgt_epi32(v, _mm256_set1_epi32(0x7F));
        let three = _mm256_cmpgt_epi32(v, _mm256_set1_epi32(0x7FF));
        let low6 = _mm256_set1_epi32(0x3F);
        // 110xxxxx 10yyyyyy.
        let two = _mm256_or_si256(
            _mm256_or_si256(_mm256_srli_epi32::<6>(v), _mm256_set1_epi32(0x80C0)),
            _mm256_slli_epi32::<8>(_mm256_and_si256(v, low6)),
        );
        // 1110xxxx 10yyyyyy 10zzzzzz.
        let three_bytes = _mm256_or_si256(
            _mm256_or_si256(_mm256_srli_epi32::<12>(v), _mm256_set1_epi32(0x80_80E0)),
            _mm256_or_si256(
                _mm256_slli_epi32::<2>(_mm256_and_si256(v, _mm256_set1_epi32(0xFC0))),
                _mm256_slli_epi32::<16>(_mm256_and_si256(v, low6)),
            ),
        );
        let words = _mm256_blendv_epi8(_mm256_blendv_epi8(v, two, more), three_bytes, three);
        let more = _mm256_movemask_ps(_mm256_castsi256_ps(more)) as u32;
        let three = _mm256_movemask_ps(_mm256_castsi256_ps(three)) as u32;
        (words, more, three)
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
    fn ascii_run(src: &[u16], dst: &mut [u8], i: usize, w: usize) -> (usize, usize) {
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
    pub(super) fn to_utf8_avx2(src: &[u16], dst: &mut [u8]) -> (usize, usize) {
        let (mut i, mut w) = (0, 0);
        while let (Some(chunk), Some(out)) = (src.get(i..i + STEP), dst.get_mut(w..w + ROOM)) {
            // SAFETY: `chunk` is 16 readable units, 32 bytes.
            let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
            let q = out.as_mut_ptr();
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
            let mut at = 0;
            for half in [_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v)] {
                let (bytes, more, three) = words(_mm256_cvtepu16_epi32(half));
                let (s0, n0) = self::three(more, three, 0);
                let (s1, n1) = self::three(more, three, 1);
                // SAFETY: each entry of `THREE` is 16 readable bytes.
                let shuffles =
                    unsafe { _mm256_loadu2_m128i(s1.as_ptr().cast(), s0.as_ptr().cast()) };
                let packed = _mm256_shuffle_epi8(bytes, shuffles);
                // SAFETY: `out` is 64 writable bytes; the stores end at
                // most 12 + 12 + 12 + 16 bytes on.
                unsafe {
                    _mm_storeu_si128(q.add(at).cast(), _mm256_castsi256_si128(packed));
                    _mm_storeu_si128(q.add(at + n0).cast(), _mm256_extracti128_si256::<1>(packed));
                }
                at += n0 + n1;
            }
            w += at;
            i += STEP;
        }
        (i, w)
    }
}
