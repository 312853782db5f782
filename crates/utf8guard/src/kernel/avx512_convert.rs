//! [`SimdConvert`] on AVX-512 (F and BW). The byte shuffles and unpacks
//! work within each 128-bit lane, which is the trait's definition of them;
//! comparisons give mask registers, turned into vectors of 00/FF where the
//! trait returns one.

use core::arch::x86_64::*;

use super::super::simd_convert::SimdConvert;
use super::V512;

impl<const VBMI: bool> SimdConvert for V512<VBMI> {
    #[inline(always)]
    unsafe fn store(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees 64 writable bytes at `ptr`; a
        // `V512` exists only on a CPU with AVX-512F.
        unsafe { _mm512_storeu_si512(ptr.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn store_lane(self, k: usize, ptr: *mut u8) {
        // SAFETY: the caller guarantees 16 writable bytes at `ptr`; a
        // `V512` exists only on a CPU with AVX-512F.
        unsafe { _mm_storeu_si128(ptr.cast(), lane(self.0, k)) }
    }

    #[inline(always)]
    unsafe fn store_u64(self, k: usize, ptr: *mut u8) {
        // SAFETY: the caller guarantees 8 writable bytes at `ptr`; a `V512`
        // exists only on a CPU with AVX-512F.
        unsafe {
            let lane = lane(self.0, k / 2);
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
        // SAFETY: each row is 16 readable bytes; the caller guarantees
        // AVX-512F.
        V512(unsafe {
            let load = |k: usize| row(k).as_ptr().cast::<__m128i>();
            let v = _mm512_castsi128_si512(_mm_loadu_si128(load(0)));
            let v = _mm512_inserti32x4::<1>(v, _mm_loadu_si128(load(1)));
            let v = _mm512_inserti32x4::<2>(v, _mm_loadu_si128(load(2)));
            _mm512_inserti32x4::<3>(v, _mm_loadu_si128(load(3)))
        })
    }

    #[inline(always)]
    unsafe fn from_u64s(word: impl Fn(usize) -> u64) -> Self {
        // SAFETY: the caller guarantees AVX-512F.
        V512(unsafe {
            _mm512_set_epi64(
                word(7) as i64,
                word(6) as i64,
                word(5) as i64,
                word(4) as i64,
                word(3) as i64,
                word(2) as i64,
                word(1) as i64,
                word(0) as i64,
            )
        })
    }

    #[inline(always)]
    fn mask(self) -> u64 {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW.
        unsafe { _mm512_movepi8_mask(self.0) }
    }

    #[inline(always)]
    fn signed_lt(self, other: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW.
        V512(unsafe { _mm512_movm_epi8(_mm512_cmplt_epi8_mask(self.0, other.0)) })
    }

    #[inline(always)]
    fn shr<const N: i32>(self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512F and BW. The
        // 16-bit shift brings bits of the next byte into each low byte; the
        // mask clears them.
        V512(unsafe {
            // (The shift's count is a `u32` here, `N` an `i32`.)
            let shifted = match N {
                1 => _mm512_srli_epi16::<1>(self.0),
                2 => _mm512_srli_epi16::<2>(self.0),
                3 => _mm512_srli_epi16::<3>(self.0),
                4 => _mm512_srli_epi16::<4>(self.0),
                5 => _mm512_srli_epi16::<5>(self.0),
                6 => _mm512_srli_epi16::<6>(self.0),
                7 => _mm512_srli_epi16::<7>(self.0),
                _ => unreachable!("shr::<{N}>"),
            };
            _mm512_and_si512(shifted, _mm512_set1_epi8((0xFFu8 >> N) as i8))
        })
    }

    #[inline(always)]
    fn select(self, if_set: Self, if_clear: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW. The blend
        // takes `if_set` where the lane's high bit, the whole lane for a
        // mask of 00 and FF, is set.
        V512(unsafe { _mm512_mask_blend_epi8(_mm512_movepi8_mask(self.0), if_clear.0, if_set.0) })
    }

    #[inline(always)]
    fn lookup32(self, rows: &[[u8; 16]; 2]) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512F and BW; each
        // row is 16 readable bytes. Each row is repeated in every 128-bit
        // lane, so the in-lane `vpshufb` of the low 4 bits is a full
        // lookup; bit 4 chooses the row.
        V512(unsafe {
            let low = _mm512_and_si512(self.0, _mm512_set1_epi8(0x0F));
            let row0 = _mm512_broadcast_i32x4(_mm_loadu_si128(rows[0].as_ptr().cast()));
            let row1 = _mm512_broadcast_i32x4(_mm_loadu_si128(rows[1].as_ptr().cast()));
            let upper = _mm512_test_epi8_mask(self.0, _mm512_set1_epi8(0x10));
            _mm512_mask_blend_epi8(
                upper,
                _mm512_shuffle_epi8(row0, low),
                _mm512_shuffle_epi8(row1, low),
            )
        })
    }

    #[inline(always)]
    fn lookup64(self, rows: &[[u8; 16]; 4]) -> Self {
        // SAFETY: as in `lookup32`. The indices are below 64, so bit 7 is
        // clear and `vpshufb` takes their low 4 bits; bits 4 and 5 choose
        // among the four rows' bytes. (No closure: it would not inherit the
        // caller's target features, and the shuffles would become calls.)
        V512(unsafe {
            let mut r = [_mm512_setzero_si512(); 4];
            for (r, row) in r.iter_mut().zip(rows) {
                let row = _mm512_broadcast_i32x4(_mm_loadu_si128(row.as_ptr().cast()));
                *r = _mm512_shuffle_epi8(row, self.0);
            }
            let [r0, r1, r2, r3] = r;
            let bit4 = _mm512_test_epi8_mask(self.0, _mm512_set1_epi8(0x10));
            let bit5 = _mm512_test_epi8_mask(self.0, _mm512_set1_epi8(0x20));
            _mm512_mask_blend_epi8(
                bit5,
                _mm512_mask_blend_epi8(bit4, r0, r1),
                _mm512_mask_blend_epi8(bit4, r2, r3),
            )
        })
    }

    #[inline(always)]
    fn zip_low(self, other: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW.
        V512(unsafe { _mm512_unpacklo_epi8(self.0, other.0) })
    }

    #[inline(always)]
    fn zip_high(self, other: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW.
        V512(unsafe { _mm512_unpackhi_epi8(self.0, other.0) })
    }

    #[inline(always)]
    fn zip16_low(self, other: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW.
        V512(unsafe { _mm512_unpacklo_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn zip16_high(self, other: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW.
        V512(unsafe { _mm512_unpackhi_epi16(self.0, other.0) })
    }

    #[inline(always)]
    fn shuffle(self, control: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW; `vpshufb`
        // shuffles within each 128-bit lane and zeroes the lanes whose
        // control has bit 7 set.
        V512(unsafe { _mm512_shuffle_epi8(self.0, control.0) })
    }

    #[inline(always)]
    fn shr16<const N: i32>(self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW. (The count
        // in a register: the immediate form takes a `u32`, `N` is an
        // `i32`.)
        V512(unsafe { _mm512_srl_epi16(self.0, _mm_cvtsi32_si128(N)) })
    }

    #[inline(always)]
    fn pack32(self, other: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW; `vpackusdw`
        // packs within each 128-bit lane, saturating signed units to
        // `0..=FFFF`.
        V512(unsafe { _mm512_packus_epi32(self.0, other.0) })
    }

    #[inline(always)]
    fn pack16(self, other: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW; `vpackuswb`
        // packs within each 128-bit lane, saturating signed units to
        // `0..=FF`.
        V512(unsafe { _mm512_packus_epi16(self.0, other.0) })
    }
}

/// 128-bit lane `k` (0 to 3) of `v`.
///
/// # Safety
/// The CPU must have AVX-512F.
#[inline(always)]
unsafe fn lane(v: __m512i, k: usize) -> __m128i {
    // SAFETY: the caller's promise.
    unsafe {
        match k {
            0 => _mm512_castsi512_si128(v),
            1 => _mm512_extracti32x4_epi32::<1>(v),
            2 => _mm512_extracti32x4_epi32::<2>(v),
            _ => _mm512_extracti32x4_epi32::<3>(v),
        }
    }
}
