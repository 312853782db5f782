//! [`SimdConvert`] on NEON (aarch64). A vector is one 128-bit lane; the
//! table lookups of 32 and 64 entries are single `tbl` instructions.

use core::arch::aarch64::*;

use super::super::simd_convert::SimdConvert;
use super::V128;

/// Each lane's bit in its half of a movemask.
static BITS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];

impl SimdConvert for V128 {
    #[inline(always)]
    unsafe fn store(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees 16 writable bytes at `ptr`; NEON is
        // available (see the type's documentation).
        unsafe { vst1q_u8(ptr, self.0) }
    }

    #[inline(always)]
    unsafe fn store_lane(self, k: usize, ptr: *mut u8) {
        debug_assert_eq!(k, 0);
        // SAFETY: the caller's promise; the one lane is the vector.
        unsafe { self.store(ptr) }
    }

    #[inline(always)]
    unsafe fn store_u64(self, k: usize, ptr: *mut u8) {
        // SAFETY: the caller guarantees 8 writable bytes at `ptr`; NEON is
        // available.
        unsafe {
            let half = if k == 0 {
                vget_low_u8(self.0)
            } else {
                vget_high_u8(self.0)
            };
            vst1_u8(ptr, half)
        }
    }

    #[inline(always)]
    unsafe fn from_rows<'a>(row: impl Fn(usize) -> &'a [u8; 16]) -> Self {
        // SAFETY: the row is 16 readable bytes; NEON is available.
        V128(unsafe { vld1q_u8(row(0).as_ptr()) })
    }

    #[inline(always)]
    unsafe fn from_u64s(word: impl Fn(usize) -> u64) -> Self {
        // SAFETY: NEON is available. `vcreate_u8` takes the word's low byte
        // as lane 0 (little-endian lanes, whatever the memory order).
        V128(unsafe { vcombine_u8(vcreate_u8(word(0)), vcreate_u8(word(1))) })
    }

    #[inline(always)]
    fn mask(self) -> u64 {
        // SAFETY: NEON is available; `BITS` is 16 readable bytes. Each lane
        // becomes its bit where its high bit is set (the arithmetic shift
        // spreads that bit), and three rounds of pairwise sums add the bits
        // of lanes 0-7 into byte 0 and of lanes 8-15 into byte 1.
        unsafe {
            let set = vreinterpretq_u8_s8(vshrq_n_s8::<7>(vreinterpretq_s8_u8(self.0)));
            let bits = vandq_u8(set, vld1q_u8(BITS.as_ptr()));
            let sums = vpaddq_u8(bits, bits);
            let sums = vpaddq_u8(sums, sums);
            let sums = vpaddq_u8(sums, sums);
            u64::from(vgetq_lane_u16::<0>(vreinterpretq_u16_u8(sums)))
        }
    }

    #[inline(always)]
    fn signed_lt(self, other: Self) -> Self {
        // SAFETY: NEON is available.
        V128(unsafe { vcltq_s8(vreinterpretq_s8_u8(self.0), vreinterpretq_s8_u8(other.0)) })
    }

    #[inline(always)]
    fn shr<const N: i32>(self) -> Self {
        // SAFETY: NEON is available; `N` is 1 to 7 (the trait's contract),
        // within the 1 to 8 the instruction takes.
        V128(unsafe { vshrq_n_u8::<N>(self.0) })
    }

    #[inline(always)]
    fn select(self, if_set: Self, if_clear: Self) -> Self {
        // SAFETY: NEON is available.
        V128(unsafe { vbslq_u8(self.0, if_set.0, if_clear.0) })
    }

    #[inline(always)]
    fn lookup32(self, rows: &[[u8; 16]; 2]) -> Self {
        // SAFETY: NEON is available; each row is 16 readable bytes. `tbl`
        // with two registers looks up indices below 32.
        V128(unsafe {
            let table = uint8x16x2_t(vld1q_u8(rows[0].as_ptr()), vld1q_u8(rows[1].as_ptr()));
            vqtbl2q_u8(table, vandq_u8(self.0, vdupq_n_u8(0x1F)))
        })
    }

    #[inline(always)]
    fn lookup64(self, rows: &[[u8; 16]; 4]) -> Self {
        // SAFETY: NEON is available; each row is 16 readable bytes. `tbl`
        // with four registers looks up indices below 64.
        V128(unsafe {
            let table = uint8x16x4_t(
                vld1q_u8(rows[0].as_ptr()),
                vld1q_u8(rows[1].as_ptr()),
                vld1q_u8(rows[2].as_ptr()),
                vld1q_u8(rows[3].as_ptr()),
            );
            vqtbl4q_u8(table, self.0)
        })
    }

    #[inline(always)]
    fn zip_low(self, other: Self) -> Self {
        // SAFETY: NEON is available.
        V128(unsafe { vzip1q_u8(self.0, other.0) })
    }

    #[inline(always)]
    fn zip_high(self, other: Self) -> Self {
        // SAFETY: NEON is available.
        V128(unsafe { vzip2q_u8(self.0, other.0) })
    }

    #[inline(always)]
    fn zip16_low(self, other: Self) -> Self {
        // SAFETY: NEON is available.
        V128(unsafe {
            vreinterpretq_u8_u16(vzip1q_u16(
                vreinterpretq_u16_u8(self.0),
                vreinterpretq_u16_u8(other.0),
            ))
        })
    }

    #[inline(always)]
    fn zip16_high(self, other: Self) -> Self {
        // SAFETY: NEON is available.
        V128(unsafe {
            vreinterpretq_u8_u16(vzip2q_u16(
                vreinterpretq_u16_u8(self.0),
                vreinterpretq_u16_u8(other.0),
            ))
        })
    }

    #[inline(always)]
    fn shuffle(self, control: Self) -> Self {
        // SAFETY: NEON is available. `tbl` gives zero for an index of 16 or
        // more, so for every control byte with its high bit set.
        V128(unsafe { vqtbl1q_u8(self.0, control.0) })
    }

    #[inline(always)]
    fn shr16<const N: i32>(self) -> Self {
        // SAFETY: NEON is available; `N` is 1 to 15 (the trait's contract),
        // within the 1 to 16 the instruction takes.
        V128(unsafe { vreinterpretq_u8_u16(vshrq_n_u16::<N>(vreinterpretq_u16_u8(self.0))) })
    }

    #[inline(always)]
    fn pack32(self, other: Self) -> Self {
        // SAFETY: NEON is available. `sqxtun` narrows signed units with
        // unsigned saturation.
        V128(unsafe {
            let low = vqmovun_s32(vreinterpretq_s32_u8(self.0));
            let high = vqmovun_s32(vreinterpretq_s32_u8(other.0));
            vreinterpretq_u8_u16(vcombine_u16(low, high))
        })
    }

    #[inline(always)]
    fn pack16(self, other: Self) -> Self {
        // SAFETY: NEON is available. `sqxtun` narrows signed units with
        // unsigned saturation.
        V128(unsafe {
            let low = vqmovun_s16(vreinterpretq_s16_u8(self.0));
            let high = vqmovun_s16(vreinterpretq_s16_u8(other.0));
            vcombine_u8(low, high)
        })
    }
}
