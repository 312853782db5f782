//! [`SimdConvert`] on SSE4.2 (SSSE3's `pshufb`, SSE4.1's `pblendvb`).

use core::arch::x86_64::*;

use super::super::simd_convert::SimdConvert;
use super::V128;

impl SimdConvert for V128 {
    #[inline(always)]
    unsafe fn store(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees 16 writable bytes at `ptr`; a
        // `V128` exists only on a CPU with SSE4.2 (SSE2 included).
        unsafe { _mm_storeu_si128(ptr.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn store_lane(self, k: usize, ptr: *mut u8) {
        debug_assert_eq!(k, 0);
        // SAFETY: the caller's promise; the one lane is the vector.
        unsafe { self.store(ptr) }
    }

    #[inline(always)]
    unsafe fn store_u64(self, k: usize, ptr: *mut u8) {
        // SAFETY: the caller guarantees 8 writable bytes at `ptr`; a `V128`
        // exists only on a CPU with SSE4.2 (SSE2 included).
        unsafe {
            let v = if k == 0 {
                self.0
            } else {
                _mm_unpackhi_epi64(self.0, self.0)
            };
            _mm_storel_epi64(ptr.cast(), v)
        }
    }

    #[inline(always)]
    unsafe fn from_rows<'a>(row: impl Fn(usize) -> &'a [u8; 16]) -> Self {
        // SAFETY: the row is 16 readable bytes; the caller guarantees SSE4.2.
        V128(unsafe { _mm_loadu_si128(row(0).as_ptr().cast()) })
    }

    #[inline(always)]
    unsafe fn from_u64s(word: impl Fn(usize) -> u64) -> Self {
        // SAFETY: the caller guarantees SSE4.2 (SSE2 included).
        V128(unsafe { _mm_set_epi64x(word(1) as i64, word(0) as i64) })
    }

    #[inline(always)]
    fn mask(self) -> u64 {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSE2 included).
        unsafe { _mm_movemask_epi8(self.0) as u32 as u64 }
    }

    #[inline(always)]
    fn signed_lt(self, other: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSE2 included).
        V128(unsafe { _mm_cmpgt_epi8(other.0, self.0) })
    }

    #[inline(always)]
    fn shr<const N: i32>(self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSE2 included).
        // The 16-bit shift brings bits of the next byte into each low byte;
        // the mask clears them.
        V128(unsafe {
            _mm_and_si128(
                _mm_srli_epi16::<N>(self.0),
                _mm_set1_epi8((0xFFu8 >> N) as i8),
            )
        })
    }

    #[inline(always)]
    fn select(self, if_set: Self, if_clear: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSE4.1
        // included). `pblendvb` reads each lane's high bit, which is the
        // whole lane for a mask of 00 and FF.
        V128(unsafe { _mm_blendv_epi8(if_clear.0, if_set.0, self.0) })
    }

    #[inline(always)]
    fn lookup32(self, rows: &[[u8; 16]; 2]) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSSE3 and
        // SSE4.1 included); each row is 16 readable bytes. `pshufb` takes
        // the low 4 bits of an index whose bit 7 is clear; bit 4, shifted
        // to bit 7 (the 16-bit shift moves other bits only below it),
        // chooses the row.
        V128(unsafe {
            let low = _mm_and_si128(self.0, _mm_set1_epi8(0x0F));
            let row0 = _mm_loadu_si128(rows[0].as_ptr().cast());
            let row1 = _mm_loadu_si128(rows[1].as_ptr().cast());
            _mm_blendv_epi8(
                _mm_shuffle_epi8(row0, low),
                _mm_shuffle_epi8(row1, low),
                _mm_slli_epi16::<3>(self.0),
            )
        })
    }

    #[inline(always)]
    fn lookup64(self, rows: &[[u8; 16]; 4]) -> Self {
        // SAFETY: as in `lookup32`. The indices are below 64, so bit 7 is
        // clear and `pshufb` takes their low 4 bits; bits 4 and 5, each
        // shifted to bit 7, choose among the four rows' bytes. (No closure:
        // it would not inherit the caller's target features, and the
        // shuffles would become calls.)
        V128(unsafe {
            let mut r = [_mm_setzero_si128(); 4];
            for (r, row) in r.iter_mut().zip(rows) {
                *r = _mm_shuffle_epi8(_mm_loadu_si128(row.as_ptr().cast()), self.0);
            }
            let [r0, r1, r2, r3] = r;
            let (bit4, bit5) = (_mm_slli_epi16::<3>(self.0), _mm_slli_epi16::<2>(self.0));
            _mm_blendv_epi8(
                _mm_blendv_epi8(r0, r1, bit4),
                _mm_blendv_epi8(r2, r3, bit4),
                bit5,
            )
        })
    }

    #[inline(always)]
    fn zip_low(self, other: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSE2 included).
        V128(unsafe { _mm_unpacklo_epi8(self.0, other.0) })
    }

    #[inline(always)]
    fn zip_high(self, other: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSE2 included).
        V128(unsafe { _mm_unpackhi_epi8(self.0, other.0) })
    }

    #[inline(always)]
    fn zip16_low(self, other: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSE2 included).
        V128(unsafe { _mm_unpacklo_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn zip16_high(self, other: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSE2 included).
        V128(unsafe { _mm_unpackhi_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn shuffle(self, control: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSSE3
        // included); `pshufb` zeroes the lanes whose control has bit 7 set.
        V128(unsafe { _mm_shuffle_epi8(self.0, control.0) })
    }

    #[inline(always)]
    fn shr16<const N: i32>(self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSE2 included).
        V128(unsafe { _mm_srli_epi16::<N>(self.0) })
    }

    #[inline(always)]
    fn pack32(self, other: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSE4.1
        // included); `packusdw` saturates signed units to `0..=FFFF`.
        V128(unsafe { _mm_packus_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn pack16(self, other: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSE2 included);
        // `packuswb` saturates signed units to `0..=FF`.
        V128(unsafe { _mm_packus_epi16(self.0, other.0) })
    }
}
