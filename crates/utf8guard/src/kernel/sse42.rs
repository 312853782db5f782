//! The SSE4.2 kernel: the lookup algorithm on 128-bit vectors (`pshufb` is
//! SSSE3, `ptest` SSE4.1).

use core::arch::x86_64::*;

use super::dialects::{self, Spec};
use super::lookup;
use super::simd::SimdU8;

/// The conversions' operations on this type (`SimdConvert`).
// In a file of its own beside this one: the ISA named in its name, as
// every file of raw intrinsics is.
#[path = "sse42_convert.rs"]
mod convert;

/// 16 bytes in an SSE register. Only made by the `unsafe` constructors of
/// [`SimdU8`], whose contract is that the CPU has SSE4.2.
#[derive(Clone, Copy)]
pub(crate) struct V128(__m128i);

impl SimdU8 for V128 {
    const LANES: usize = 16;
    type Block = [Self; 4];
    type Half = Self;

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        // SAFETY: the caller guarantees SSE4.2.
        V128(unsafe { _mm_set1_epi8(byte as i8) })
    }

    #[inline(always)]
    unsafe fn table(entries: &[u8; 16]) -> Self {
        // SAFETY: `entries` is 16 readable bytes; SSE2 is part of x86_64.
        V128(unsafe { _mm_loadu_si128(entries.as_ptr().cast()) })
    }

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes at `ptr`.
        V128(unsafe { _mm_loadu_si128(ptr.cast()) })
    }

    #[inline(always)]
    unsafe fn load_block(ptr: *const u8) -> [Self; 4] {
        // SAFETY: the caller guarantees 64 readable bytes at `ptr`.
        unsafe {
            [
                Self::load(ptr),
                Self::load(ptr.add(16)),
                Self::load(ptr.add(32)),
                Self::load(ptr.add(48)),
            ]
        }
    }

    #[inline(always)]
    fn or(self, other: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2.
        V128(unsafe { _mm_or_si128(self.0, other.0) })
    }

    #[inline(always)]
    fn and(self, other: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2.
        V128(unsafe { _mm_and_si128(self.0, other.0) })
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2.
        V128(unsafe { _mm_xor_si128(self.0, other.0) })
    }

    #[inline(always)]
    fn and_not(self, other: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSE2 included).
        V128(unsafe { _mm_andnot_si128(other.0, self.0) })
    }

    #[inline(always)]
    fn eq(self, other: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSE2 included).
        V128(unsafe { _mm_cmpeq_epi8(self.0, other.0) })
    }

    #[inline(always)]
    fn signed_min(self, other: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSE4.1 included).
        V128(unsafe { _mm_min_epi8(self.0, other.0) })
    }

    #[inline(always)]
    fn min(self, other: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2 (SSE2 included).
        V128(unsafe { _mm_min_epu8(self.0, other.0) })
    }

    #[inline(always)]
    fn high_nibbles(self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2.
        V128(unsafe { _mm_and_si128(_mm_srli_epi16::<4>(self.0), _mm_set1_epi8(0x0F)) })
    }

    #[inline(always)]
    fn lookup(self, table: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2, hence SSSE3.
        V128(unsafe { _mm_shuffle_epi8(table.0, self.0) })
    }

    #[inline(always)]
    fn wrapping_add(self, other: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2.
        V128(unsafe { _mm_add_epi8(self.0, other.0) })
    }

    #[inline(always)]
    fn saturating_sub(self, other: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2.
        V128(unsafe { _mm_subs_epu8(self.0, other.0) })
    }

    #[inline(always)]
    fn prev<const N: i32>(self, prev: Self) -> Self {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2, hence SSSE3.
        V128(unsafe {
            match N {
                1 => _mm_alignr_epi8::<15>(self.0, prev.0),
                2 => _mm_alignr_epi8::<14>(self.0, prev.0),
                3 => _mm_alignr_epi8::<13>(self.0, prev.0),
                4 => _mm_alignr_epi8::<12>(self.0, prev.0),
                5 => _mm_alignr_epi8::<11>(self.0, prev.0),
                _ => unreachable!("prev::<{N}>"),
            }
        })
    }

    #[inline(always)]
    fn is_ascii(self) -> bool {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2.
        unsafe { _mm_movemask_epi8(self.0) == 0 }
    }

    #[inline(always)]
    fn any(self) -> bool {
        // SAFETY: a `V128` exists only on a CPU with SSE4.2, hence SSE4.1.
        unsafe { _mm_testz_si128(self.0, self.0) == 0 }
    }
}

x86_entry_points!(V128, "sse4.2", "SSE4.2");
