//! A vector loop for text of 1- to 3-byte sequences (the Basic Multilingual
//! Plane, and in WTF-8 the lone surrogates) into UTF-16.
//!
//! Each step takes 16 bytes: widened to 16-bit lanes, with the one and two
//! bytes after each lane beside it (two more loads, one and two bytes on),
//! every lane computes the code unit of the sequence it would start, 1, 2
//! or 3 bytes long after its first byte; then only the lanes holding a
//! first byte are kept, eight lanes at a time, by a byte shuffle looked up
//! by the eight lanes' bits (a table of 256 shuffles, 4 KiB), and stored.
//! The sequence that starts in a step's last two bytes may end after it:
//! the loads one and two bytes on already hold its other bytes, and in the
//! next step, which starts right after this one, they are continuation
//! bytes, which start nothing. (So where a step starts does not depend on
//! the bytes before it, and the steps do not wait for each other: making
//! the next step start after the last sequence ran at about half the
//! speed.) A step with a 4-byte lead stops the loop (4-byte forms have
//! their own loop, [`super::pairs_simd`]). After a step of 3-byte forms
//! only, with leads from `E1` up (CJK, kana, Hangul), runs of them go 30
//! bytes at a time, each form's bytes at fixed places
//! ([`x86::three_byte_run`], which UTF-32 takes too).
//!
//! It makes `wtf8_to_utf16` faster than std's `encode_utf16` on every
//! script, CJK and Hindi included (docs/TUNING.md, "WTF-8 to UTF-16 vector
//! loop").
//!
//! The input was checked well formed by a kernel and starts between two
//! sequences, so nothing is checked here but the lead of a 4-byte form.
//! On x86-64 with the AVX2 or AVX-512 kernel active; elsewhere, and under
//! the scalar and SSE4.2 kernels, it converts nothing.

use core::mem::MaybeUninit;

use crate::cpu::Level;
use crate::dispatch::level;

/// Whether [`to_utf16`] converts anything on this machine, with its active
/// kernel.
#[inline]
pub(super) fn available() -> bool {
    level() != Level::Scalar
}

/// The bytes a step takes.
pub(super) const STEP: usize = 16;

/// Converts the 1- to 3-byte sequences at the start of `src`, well formed,
/// into UTF-16 at the start of `dst`, a step of [`STEP`] bytes at a time:
/// it stops before a step that holds the lead of a 4-byte form, and when
/// fewer than `STEP + 2` bytes are left. `dst` needs as many units as
/// `src` has bytes (past those written it may hold scratch). Returns the
/// bytes read, whole sequences, and the units written.
#[inline]
pub(super) fn to_utf16(src: &[u8], dst: &mut [MaybeUninit<u16>]) -> (usize, usize) {
    match level() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level` found AVX2 on this CPU (AVX-512 implies it).
        Level::Avx2 | Level::Avx512 | Level::Vbmi => unsafe { x86::to_utf16_avx2(src, dst) },
        _ => {
            let _ = (src, dst);
            (0, 0)
        }
    }
}

/// Widens the ASCII bytes at the start of `src` into `dst`, 32 at a time,
/// while 32 more are all ASCII and `dst` has room for them. ASCII is well
/// formed wherever it stands, so the caller need not have checked `src`.
/// Returns the bytes read, as many as the units written.
#[inline]
pub(super) fn ascii_to_utf16(src: &[u8], dst: &mut [MaybeUninit<u16>]) -> usize {
    match level() {
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 | Level::Avx512 | Level::Vbmi => {
            // SAFETY: `level` found AVX2 on this CPU (AVX-512 implies it).
            unsafe { x86::ascii_run(src, dst, 0, 0) }.0
        }
        _ => {
            let _ = (src, dst);
            0
        }
    }
}

/// How many bits each byte has set (a lookup: `popcnt` is not part of the
/// AVX2 target feature).
#[cfg(target_arch = "x86_64")]
pub(crate) static COUNT: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut bits = 0;
    while bits < 256 {
        t[bits] = (bits as u8).count_ones() as u8;
        bits += 1;
    }
    t
};

/// For each set of eight 16-bit lanes to keep (bit `k`: lane `k`), the
/// byte shuffle that moves them, in order, to the front of a vector (of
/// each 128-bit lane): the UTF-16 and UTF-32 steps of every instruction
/// set use it.
#[cfg(vector_kernels)]
pub(crate) static KEEP: [[u8; 16]; 256] = {
    let mut t = [[0x80u8; 16]; 256];
    let mut bits = 0;
    while bits < 256 {
        let (mut lane, mut to) = (0, 0);
        while lane < 8 {
            if bits >> lane & 1 == 1 {
                t[bits][2 * to] = 2 * lane as u8;
                t[bits][2 * to + 1] = 2 * lane as u8 + 1;
                to += 1;
            }
            lane += 1;
        }
        bits += 1;
    }
    t
};

#[cfg(target_arch = "x86_64")]
pub(super) mod x86 {
    use super::{COUNT, KEEP};
    use core::arch::x86_64::*;
    use core::mem::MaybeUninit;

    /// The code unit of the sequence of 1 to 3 bytes each of the 16 byte
    /// lanes of `x` would start, from the lane's byte and the two after it
    /// (`x1`, `x2`: `x`'s bytes one and two further on), in 16-bit lanes.
    /// Only the lanes that start a sequence mean anything. UTF-32 out of
    /// UTF-8 widens the same units.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn bmp_units(x: __m128i, x1: __m128i, x2: __m128i) -> __m256i {
        let b0 = _mm256_cvtepu8_epi16(x);
        let t1 = _mm256_and_si256(_mm256_cvtepu8_epi16(x1), _mm256_set1_epi16(0x3F));
        let t2 = _mm256_and_si256(_mm256_cvtepu8_epi16(x2), _mm256_set1_epi16(0x3F));
        // 110xxxxx 10yyyyyy: xxxxxyyyyyy.
        let two = _mm256_or_si256(
            _mm256_slli_epi16::<6>(_mm256_and_si256(b0, _mm256_set1_epi16(0x1F))),
            t1,
        );
        // 1110xxxx 10yyyyyy 10zzzzzz: xxxxyyyyyyzzzzzz (the shift by 12
        // drops the lead's high bits).
        let three = _mm256_or_si256(
            _mm256_or_si256(_mm256_slli_epi16::<12>(b0), _mm256_slli_epi16::<6>(t1)),
            t2,
        );
        let is_two = _mm256_cmpgt_epi16(b0, _mm256_set1_epi16(0xBF));
        let is_three = _mm256_cmpgt_epi16(b0, _mm256_set1_epi16(0xDF));
        _mm256_blendv_epi8(_mm256_blendv_epi8(b0, two, is_two), three, is_three)
    }

    /// Widens the ASCII bytes from `src[i..]` into `dst[w..]`, 32 at a
    /// time, while the next 32 are all ASCII and have room; returns the new
    /// `i` and `w`. Each ASCII byte is a whole sequence, so the step after
    /// it starts between two sequences.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn ascii_run(
        src: &[u8],
        dst: &mut [MaybeUninit<u16>],
        i: usize,
        w: usize,
    ) -> (usize, usize) {
        let (Some(src), Some(dst)) = (src.get(i..), dst.get_mut(w..)) else {
            return (i, w);
        };
        let n = src.len().min(dst.len()) / 32 * 32;
        let (src, dst) = (&src[..n], &mut dst[..n]);
        let mut k = 0;
        for (chunk, out) in src.chunks_exact(32).zip(dst.chunks_exact_mut(32)) {
            // SAFETY: `chunk` is 32 readable bytes.
            let x = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
            if _mm256_movemask_epi8(x) != 0 {
                break;
            }
            let q = out.as_mut_ptr();
            // SAFETY: `out` is 32 writable units: 16 at `q` and 16 at
            // `q + 16`.
            unsafe {
                _mm256_storeu_si256(q.cast(), _mm256_cvtepu8_epi16(_mm256_castsi256_si128(x)));
                _mm256_storeu_si256(
                    q.add(16).cast(),
                    _mm256_cvtepu8_epi16(_mm256_extracti128_si256::<1>(x)),
                );
            }
            k += 32;
        }
        (i + k, w + k)
    }

    /// The code units of ten 3-byte forms in `chunk`'s first 30 bytes, five
    /// in the low five 16-bit lanes of each half (the others zero), if its
    /// bytes 0, 3, 6, ..., 27 are all `1110xxxx` leads. `chunk` starts a
    /// sequence of well-formed text, so the other bytes are then their
    /// continuation bytes: each form's bytes stand at fixed places, and two
    /// fixed shuffles gather them, with no table.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn ten_three_byte_forms(chunk: &[u8; 31]) -> Option<__m256i> {
        // Each half: the first byte of form `k` (byte `3k`) in the high
        // byte of lane `k` and its second byte in the low one; then its
        // third; lanes 5-7 zero.
        const FIRST_SECOND: [i8; 16] = [1, 0, 4, 3, 7, 6, 10, 9, 13, 12, -1, -1, -1, -1, -1, -1];
        const THIRD: [i8; 16] = [2, -1, 5, -1, 8, -1, 11, -1, 14, -1, -1, -1, -1, -1, -1, -1];
        const LEADS: [i8; 16] = [-16, 0, 0, -16, 0, 0, -16, 0, 0, -16, 0, 0, -16, 0, 0, 0];
        const LEAD_BITS: [i8; 16] = [-32, 0, 0, -32, 0, 0, -32, 0, 0, -32, 0, 0, -32, 0, 0, 0];
        let halves = |t: [i8; 16]| {
            // SAFETY: `t` is 16 readable bytes.
            unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(t.as_ptr().cast())) }
        };
        let p = chunk.as_ptr();
        // Two windows of 15 bytes, in the halves.
        // SAFETY: `chunk` is 31 readable bytes: 16 at `p` and 16 at
        // `p + 15`.
        let x = unsafe { _mm256_loadu2_m128i(p.add(15).cast(), p.cast()) };
        let ok = _mm256_cmpeq_epi8(_mm256_and_si256(x, halves(LEADS)), halves(LEAD_BITS));
        if _mm256_movemask_epi8(ok) != -1 {
            return None;
        }
        // 1110xxxx 10yyyyyy 10zzzzzz: xxxxyyyyyyzzzzzz.
        let pair = _mm256_shuffle_epi8(x, halves(FIRST_SECOND));
        Some(_mm256_or_si256(
            _mm256_or_si256(
                _mm256_slli_epi16::<4>(_mm256_and_si256(pair, _mm256_set1_epi16(0x0F00))),
                _mm256_slli_epi16::<6>(_mm256_and_si256(pair, _mm256_set1_epi16(0x003F))),
            ),
            _mm256_and_si256(
                _mm256_shuffle_epi8(x, halves(THIRD)),
                _mm256_set1_epi16(0x003F),
            ),
        ))
    }

    /// Whether every byte of `x` that `starts` marks is `E1` or above: the
    /// scripts of U+1000..U+FFFF (CJK, kana, Hangul), not those of
    /// U+0800..U+0FFF (the Indic ones, written with spaces, whose words
    /// seldom make a run of ten 3-byte forms). Only for a step without
    /// ASCII (ASCII is above `E1` as a signed byte).
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn leads_above_e0(x: __m128i, starts: u32) -> bool {
        let above = _mm_movemask_epi8(_mm_cmpgt_epi8(x, _mm_set1_epi8(0xE0u8 as i8))) as u32;
        above & starts == starts
    }

    /// A code unit [`three_byte_run`] stores: UTF-16's, or UTF-32's.
    pub(crate) trait Unit: Sized {
        /// Stores the ten units of [`ten_three_byte_forms`] at `q`, and
        /// scratch up to 13 units on.
        ///
        /// # Safety
        ///
        /// The CPU must have AVX2; `q` must be writable for 13 units.
        unsafe fn store_ten(units: __m256i, q: *mut Self);
    }

    impl Unit for MaybeUninit<u16> {
        #[inline(always)]
        unsafe fn store_ten(units: __m256i, q: *mut MaybeUninit<u16>) {
            // SAFETY: 8 units at `q` and 8 at `q + 5`, within the 13 the
            // caller promises; AVX2 is its promise too.
            unsafe {
                _mm_storeu_si128(q.cast(), _mm256_castsi256_si128(units));
                _mm_storeu_si128(q.add(5).cast(), _mm256_extracti128_si256::<1>(units));
            }
        }
    }

    impl Unit for MaybeUninit<u32> {
        #[inline(always)]
        unsafe fn store_ten(units: __m256i, q: *mut MaybeUninit<u32>) {
            // SAFETY: as for `u16`, widened: 8 units at `q` and at `q + 5`.
            unsafe {
                let low = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(units));
                let high = _mm256_cvtepu16_epi32(_mm256_extracti128_si256::<1>(units));
                _mm256_storeu_si256(q.cast(), low);
                _mm256_storeu_si256(q.add(5).cast(), high);
            }
        }
    }

    /// Converts runs of 3-byte forms from `src[i..]` (past the continuation
    /// bytes at `i`) into `dst[w..]`, ten at a time (30 bytes), while the
    /// next ten are 3-byte forms and have room: [`ten_three_byte_forms`].
    /// Returns the new `i`, a character start, and `w`. CJK text is made
    /// of such runs. Not inlined: in the loops, it slowed the other
    /// scripts' steps.
    #[target_feature(enable = "avx2")]
    #[inline(never)]
    pub(crate) fn three_byte_run<T: Unit>(
        src: &[u8],
        dst: &mut [T],
        i: usize,
        w: usize,
    ) -> (usize, usize) {
        let (mut i, mut w) = (i, w);
        // Past the continuation bytes that end the last sequence before.
        while src.get(i).is_some_and(|&b| b & 0xC0 == 0x80) {
            i += 1;
        }
        // 31 bytes read and 13 units stored.
        while let (Some(chunk), Some(out)) = (src.get(i..i + 31), dst.get_mut(w..w + 13)) {
            let Some(units) = ten_three_byte_forms(chunk.try_into().expect("31 bytes")) else {
                break;
            };
            // SAFETY: `out` is 13 writable units; AVX2 is this function's.
            unsafe { T::store_ten(units, out.as_mut_ptr()) };
            i += 30;
            w += 10;
        }
        (i, w)
    }

    /// [`super::to_utf16`] with AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn to_utf16_avx2(src: &[u8], dst: &mut [MaybeUninit<u16>]) -> (usize, usize) {
        let (mut i, mut w) = (0, 0);
        let (cont_bits, cont, above_e) = (
            _mm_set1_epi8(0xC0u8 as i8),
            _mm_set1_epi8(0x80u8 as i8),
            _mm_set1_epi8(0xEFu8 as i8),
        );
        // Each step stores 8 units twice, the second time at most 8 units
        // on, and writes no more units than it reads bytes: the room is
        // there when `dst` has as many units as `src` has bytes.
        while let (Some(chunk), Some(out)) = (
            src.get(i..i + super::STEP + 2),
            dst.get_mut(w..w + super::STEP),
        ) {
            let p = chunk.as_ptr();
            // SAFETY: `chunk` is 18 readable bytes: 16 at `p`, at `p + 1`
            // and at `p + 2`.
            let (x, x1, x2) = unsafe {
                (
                    _mm_loadu_si128(p.cast()),
                    _mm_loadu_si128(p.add(1).cast()),
                    _mm_loadu_si128(p.add(2).cast()),
                )
            };
            let high_bits = _mm_movemask_epi8(x);
            if high_bits == 0 {
                // ASCII, the most of most text: each byte is its unit, with
                // no shuffle; and so on 32 at a time while it lasts. Only
                // after an ASCII step: tried before every step, the test
                // slowed text with short ASCII runs (docs/TUNING.md, "ASCII
                // into UTF-16").
                // SAFETY: `out` is 16 writable units.
                unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), _mm256_cvtepu8_epi16(x)) };
                i += super::STEP;
                w += super::STEP;
                (i, w) = ascii_run(src, dst, i, w);
                continue;
            }
            // A byte above EF leads a 4-byte form: not for this loop.
            let four = _mm_subs_epu8(x, above_e);
            if _mm_testz_si128(four, four) == 0 {
                break;
            }
            // The lanes that start a sequence: all but continuation bytes.
            let is_cont = _mm_cmpeq_epi8(_mm_and_si128(x, cont_bits), cont);
            let starts = !_mm_movemask_epi8(is_cont) as u32 & 0xFFFF;

            let units = bmp_units(x, x1, x2);

            let (low, high) = (starts & 0xFF, starts >> 8);
            let kept_low = _mm_shuffle_epi8(
                _mm256_castsi256_si128(units),
                // SAFETY: `KEEP[low]` is 16 readable bytes (`low < 256`).
                unsafe { _mm_loadu_si128(KEEP[low as usize].as_ptr().cast()) },
            );
            let kept_high = _mm_shuffle_epi8(
                _mm256_extracti128_si256::<1>(units),
                // SAFETY: as above (`high < 256`).
                unsafe { _mm_loadu_si128(KEEP[high as usize].as_ptr().cast()) },
            );
            let n_low = usize::from(COUNT[low as usize]);
            let q = out.as_mut_ptr();
            // SAFETY: `out` is 16 writable units: 8 at `q`, and 8 at
            // `q + n_low` (`n_low <= 8`).
            unsafe {
                _mm_storeu_si128(q.cast(), kept_low);
                _mm_storeu_si128(q.add(n_low).cast(), kept_high);
            }
            let units = n_low + usize::from(COUNT[high as usize]);
            w += units;
            i += super::STEP;
            // No ASCII and at most six sequences: likely 3-byte forms
            // only (CJK), whose runs go ten at a time.
            if high_bits == 0xFFFF && units <= 6 && leads_above_e0(x, starts) {
                (i, w) = three_byte_run(src, dst, i, w);
            }
        }
        // The last step's last sequence may end after it: past its
        // continuation bytes, the next one starts.
        while src.get(i).is_some_and(|&b| b & 0xC0 == 0x80) {
            i += 1;
        }
        (i, w)
    }
}
