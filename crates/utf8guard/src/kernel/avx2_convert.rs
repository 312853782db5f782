//! [`SimdConvert`] on AVX2. The byte shuffles, unpacks and alignments of
//! AVX2 work within each 128-bit lane, which is the trait's definition of
//! them.

use core::arch::x86_64::*;

use super::super::simd_convert::SimdConvert;
use super::V256;

impl SimdConvert for V256 {
    #[inline(always)]
    unsafe fn store(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees 32 writable bytes at `ptr`; a
        // `V256` exists only on a CPU with AVX2.
        unsafe { _mm256_storeu_si256(ptr.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn store_lane(self, k: usize, ptr: *mut u8) {
        // SAFETY: the caller guarantees 16 writable bytes at `ptr`; a
        // `V256` exists only on a CPU with AVX2.
        unsafe {
            let lane = if k == 0 {
                _mm256_castsi256_si128(self.0)
            } else {
                _mm256_extracti128_si256::<1>(self.0)
            };
            _mm_storeu_si128(ptr.cast(), lane)
        }
    }

    #[inline(always)]
    unsafe fn store_u64(self, k: usize, ptr: *mut u8) {
        // SAFETY: the caller guarantees 8 writable bytes at `ptr`; a `V256`
        // exists only on a CPU with AVX2.
        unsafe {
            let lane = if k < 2 {
                _mm256_castsi256_si128(self.0)
            } else {
                _mm256_extracti128_si256::<1>(self.0)
            };
            let v = if k.is_multiple_of(2) {
                lane
            } else {
                _mm_unpackhi_epi64(lane, lane)
            };
            _mm_storel_epi64(ptr.cast(), v)
        }
    }

    #[inline(always)]
    unsafe fn from_rows<'a>(row: impl Fn(usize) -> &'a [u8; 16]) -> Self {
        // SAFETY: each row is 16 readable bytes; the caller guarantees AVX2.
        V256(unsafe {
            let lo = _mm_loadu_si128(row(0).as_ptr().cast());
            let hi = _mm_loadu_si128(row(1).as_ptr().cast());
            _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
        })
    }

    #[inline(always)]
    unsafe fn from_u64s(word: impl Fn(usize) -> u64) -> Self {
        // SAFETY: the caller guarantees AVX2.
        V256(unsafe {
            _mm256_set_epi64x(
                word(3) as i64,
                word(2) as i64,
                word(1) as i64,
                word(0) as i64,
            )
        })
    }

    #[inline(always)]
    fn mask(self) -> u64 {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        unsafe { _mm256_movemask_epi8(self.0) as u32 as u64 }
    }

    #[inline(always)]
    fn signed_lt(self, other: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        V256(unsafe { _mm256_cmpgt_epi8(other.0, self.0) })
    }

    #[inline(always)]
    fn shr<const N: i32>(self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2. The 16-bit shift
        // brings bits of the next byte into each low byte; the mask clears
        // them.
        V256(unsafe {
            _mm256_and_si256(
                _mm256_srli_epi16::<N>(self.0),
                _mm256_set1_epi8((0xFFu8 >> N) as i8),
            )
        })
    }

    #[inline(always)]
    fn select(self, if_set: Self, if_clear: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2. `vpblendvb`
        // reads each lane's high bit, the whole lane for 00 and FF.
        V256(unsafe { _mm256_blendv_epi8(if_clear.0, if_set.0, self.0) })
    }

    #[inline(always)]
    fn lookup32(self, rows: &[[u8; 16]; 2]) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2; each row is 16
        // readable bytes. Each row is repeated in both 128-bit lanes, so
        // the in-lane `vpshufb` of the low 4 bits (bit 7 clear) is a full
        // lookup; bit 4, shifted to bit 7 (the 16-bit shift moves other
        // bits only below it), chooses the row.
        V256(unsafe {
            let low = _mm256_and_si256(self.0, _mm256_set1_epi8(0x0F));
            let row0 = _mm256_broadcastsi128_si256(_mm_loadu_si128(rows[0].as_ptr().cast()));
            let row1 = _mm256_broadcastsi128_si256(_mm_loadu_si128(rows[1].as_ptr().cast()));
            _mm256_blendv_epi8(
                _mm256_shuffle_epi8(row0, low),
                _mm256_shuffle_epi8(row1, low),
                _mm256_slli_epi16::<3>(self.0),
            )
        })
    }

    #[inline(always)]
    fn lookup64(self, rows: &[[u8; 16]; 4]) -> Self {
        // SAFETY: as in `lookup32`. The indices are below 64, so bit 7 is
        // clear and `vpshufb` takes their low 4 bits; bits 4 and 5, each
        // shifted to bit 7, choose among the four rows' bytes. (No closure:
        // it would not inherit the caller's target features, and the
        // shuffles would become calls.)
        V256(unsafe {
            let mut r = [_mm256_setzero_si256(); 4];
            for (r, row) in r.iter_mut().zip(rows) {
                let row = _mm256_broadcastsi128_si256(_mm_loadu_si128(row.as_ptr().cast()));
                *r = _mm256_shuffle_epi8(row, self.0);
            }
            let [r0, r1, r2, r3] = r;
            let (bit4, bit5) = (
                _mm256_slli_epi16::<3>(self.0),
                _mm256_slli_epi16::<2>(self.0),
            );
            _mm256_blendv_epi8(
                _mm256_blendv_epi8(r0, r1, bit4),
                _mm256_blendv_epi8(r2, r3, bit4),
                bit5,
            )
        })
    }

    #[inline(always)]
    fn zip_low(self, other: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        V256(unsafe { _mm256_unpacklo_epi8(self.0, other.0) })
    }

    #[inline(always)]
    fn zip_high(self, other: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        V256(unsafe { _mm256_unpackhi_epi8(self.0, other.0) })
    }

    #[inline(always)]
    fn zip16_low(self, other: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        V256(unsafe { _mm256_unpacklo_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn zip16_high(self, other: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        V256(unsafe { _mm256_unpackhi_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn shuffle(self, control: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2; `vpshufb`
        // shuffles within each 128-bit lane and zeroes the lanes whose
        // control has bit 7 set.
        V256(unsafe { _mm256_shuffle_epi8(self.0, control.0) })
    }

    #[inline(always)]
    fn shr16<const N: i32>(self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        V256(unsafe { _mm256_srli_epi16::<N>(self.0) })
    }

    #[inline(always)]
    fn pack32(self, other: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2; `vpackusdw`
        // packs within each 128-bit lane, saturating signed units to
        // `0..=FFFF`.
        V256(unsafe { _mm256_packus_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn pack16(self, other: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2; `vpackuswb`
        // packs within each 128-bit lane, saturating signed units to
        // `0..=FF`.
        V256(unsafe { _mm256_packus_epi16(self.0, other.0) })
    }
}
