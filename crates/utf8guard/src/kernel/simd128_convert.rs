//! [`SimdConvert`] on WebAssembly's simd128. A vector is one 128-bit lane;
//! `i8x16.swizzle` gives zero for an index of 16 or more, which makes the
//! larger lookups a sum of shifted ones.

use core::arch::wasm32::*;

use super::super::simd_convert::SimdConvert;
use super::V128;

impl SimdConvert for V128 {
    #[inline(always)]
    unsafe fn store(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees 16 writable bytes at `ptr`
        // (`v128_store` takes any alignment).
        unsafe { v128_store(ptr.cast(), self.0) }
    }

    #[inline(always)]
    unsafe fn store_lane(self, k: usize, ptr: *mut u8) {
        debug_assert_eq!(k, 0);
        // SAFETY: the caller's promise; the one lane is the vector.
        unsafe { self.store(ptr) }
    }

    #[inline(always)]
    unsafe fn store_u64(self, k: usize, ptr: *mut u8) {
        // SAFETY: the caller guarantees 8 writable bytes at `ptr` (the lane
        // store takes any alignment).
        unsafe {
            if k == 0 {
                v128_store64_lane::<0>(self.0, ptr.cast())
            } else {
                v128_store64_lane::<1>(self.0, ptr.cast())
            }
        }
    }

    #[inline(always)]
    unsafe fn from_rows<'a>(row: impl Fn(usize) -> &'a [u8; 16]) -> Self {
        // SAFETY: the row is 16 readable bytes.
        V128(unsafe { v128_load(row(0).as_ptr().cast()) })
    }

    #[inline(always)]
    unsafe fn from_u64s(word: impl Fn(usize) -> u64) -> Self {
        V128(u64x2(word(0), word(1)))
    }

    #[inline(always)]
    fn mask(self) -> u64 {
        u64::from(u8x16_bitmask(self.0))
    }

    #[inline(always)]
    fn signed_lt(self, other: Self) -> Self {
        V128(i8x16_lt(self.0, other.0))
    }

    #[inline(always)]
    fn shr<const N: i32>(self) -> Self {
        V128(u8x16_shr(self.0, N as u32))
    }

    #[inline(always)]
    fn select(self, if_set: Self, if_clear: Self) -> Self {
        V128(v128_bitselect(if_set.0, if_clear.0, self.0))
    }

    #[inline(always)]
    fn lookup32(self, rows: &[[u8; 16]; 2]) -> Self {
        // SAFETY: each row is 16 readable bytes. An index below 16 takes
        // the first row's byte and, less 16, wraps above 15 for a zero from
        // the second; from 16, the other way round.
        V128(unsafe {
            let index = v128_and(self.0, u8x16_splat(0x1F));
            let row0 = v128_load(rows[0].as_ptr().cast());
            let row1 = v128_load(rows[1].as_ptr().cast());
            v128_or(
                i8x16_swizzle(row0, index),
                i8x16_swizzle(row1, u8x16_sub(index, u8x16_splat(16))),
            )
        })
    }

    #[inline(always)]
    fn lookup64(self, rows: &[[u8; 16]; 4]) -> Self {
        // SAFETY: each row is 16 readable bytes. As in `lookup32`: each
        // row's lookup of the index less its start is zero but where the
        // index falls in that row.
        V128(unsafe {
            let mut out = u8x16_splat(0);
            for (k, row) in rows.iter().enumerate() {
                let index = u8x16_sub(self.0, u8x16_splat(16 * k as u8));
                out = v128_or(out, i8x16_swizzle(v128_load(row.as_ptr().cast()), index));
            }
            out
        })
    }

    #[inline(always)]
    fn zip_low(self, other: Self) -> Self {
        V128(i8x16_shuffle::<
            0,
            16,
            1,
            17,
            2,
            18,
            3,
            19,
            4,
            20,
            5,
            21,
            6,
            22,
            7,
            23,
        >(self.0, other.0))
    }

    #[inline(always)]
    fn zip_high(self, other: Self) -> Self {
        V128(i8x16_shuffle::<
            8,
            24,
            9,
            25,
            10,
            26,
            11,
            27,
            12,
            28,
            13,
            29,
            14,
            30,
            15,
            31,
        >(self.0, other.0))
    }

    #[inline(always)]
    fn zip16_low(self, other: Self) -> Self {
        V128(i16x8_shuffle::<0, 8, 1, 9, 2, 10, 3, 11>(self.0, other.0))
    }

    #[inline(always)]
    fn zip16_high(self, other: Self) -> Self {
        V128(i16x8_shuffle::<4, 12, 5, 13, 6, 14, 7, 15>(self.0, other.0))
    }

    #[inline(always)]
    fn shuffle(self, control: Self) -> Self {
        V128(i8x16_swizzle(self.0, control.0))
    }

    #[inline(always)]
    fn shr16<const N: i32>(self) -> Self {
        V128(u16x8_shr(self.0, N as u32))
    }

    #[inline(always)]
    fn pack32(self, other: Self) -> Self {
        // Signed units, narrowed with unsigned saturation.
        V128(u16x8_narrow_i32x4(self.0, other.0))
    }

    #[inline(always)]
    fn pack16(self, other: Self) -> Self {
        // Signed units, narrowed with unsigned saturation.
        V128(u8x16_narrow_i16x8(self.0, other.0))
    }
}
