//! The AVX2 kernel: the lookup algorithm on 256-bit vectors.

use core::arch::x86_64::*;

use super::dialects::{self, Spec};
use super::lookup;
use super::simd::SimdU8;

/// The conversions' operations on this type (`SimdConvert`).
// In a file of its own beside this one: the ISA named in its name, as
// every file of raw intrinsics is.
#[path = "avx2_convert.rs"]
mod convert;

/// 32 bytes in an AVX register. Only made by the `unsafe` constructors of
/// [`SimdU8`], whose contract is that the CPU has AVX2.
#[derive(Clone, Copy)]
pub(crate) struct V256(__m256i);

impl SimdU8 for V256 {
    const LANES: usize = 32;
    type Block = [Self; 2];
    type Half = super::sse42::V128;

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        // SAFETY: the caller guarantees AVX2.
        V256(unsafe { _mm256_set1_epi8(byte as i8) })
    }

    #[inline(always)]
    unsafe fn table(entries: &[u8; 16]) -> Self {
        // SAFETY: `entries` is 16 readable bytes; the caller guarantees AVX2.
        V256(unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(entries.as_ptr().cast())) })
    }

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees AVX2 and 32 readable bytes at `ptr`.
        V256(unsafe { _mm256_loadu_si256(ptr.cast()) })
    }

    #[inline(always)]
    unsafe fn load_block(ptr: *const u8) -> [Self; 2] {
        // SAFETY: the caller guarantees AVX2 and 64 readable bytes at `ptr`.
        unsafe { [Self::load(ptr), Self::load(ptr.add(32))] }
    }

    #[inline(always)]
    fn or(self, other: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        V256(unsafe { _mm256_or_si256(self.0, other.0) })
    }

    #[inline(always)]
    fn and(self, other: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        V256(unsafe { _mm256_and_si256(self.0, other.0) })
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        V256(unsafe { _mm256_xor_si256(self.0, other.0) })
    }

    #[inline(always)]
    fn and_not(self, other: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        V256(unsafe { _mm256_andnot_si256(other.0, self.0) })
    }

    #[inline(always)]
    fn eq(self, other: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        V256(unsafe { _mm256_cmpeq_epi8(self.0, other.0) })
    }

    #[inline(always)]
    fn signed_min(self, other: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        V256(unsafe { _mm256_min_epi8(self.0, other.0) })
    }

    #[inline(always)]
    fn min(self, other: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        V256(unsafe { _mm256_min_epu8(self.0, other.0) })
    }

    #[inline(always)]
    fn high_nibbles(self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        V256(unsafe { _mm256_and_si256(_mm256_srli_epi16::<4>(self.0), _mm256_set1_epi8(0x0F)) })
    }

    #[inline(always)]
    fn lookup(self, table: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2. The table is
        // repeated in both 128-bit lanes, so the in-lane shuffle is a full
        // 16-entry lookup.
        V256(unsafe { _mm256_shuffle_epi8(table.0, self.0) })
    }

    #[inline(always)]
    fn wrapping_add(self, other: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        V256(unsafe { _mm256_add_epi8(self.0, other.0) })
    }

    #[inline(always)]
    fn saturating_sub(self, other: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        V256(unsafe { _mm256_subs_epu8(self.0, other.0) })
    }

    #[inline(always)]
    fn prev<const N: i32>(self, prev: Self) -> Self {
        // SAFETY: a `V256` exists only on a CPU with AVX2. `alignr` works
        // within 128-bit lanes, so it is fed [prev.high, self.low] for the
        // bytes that cross the lane boundary.
        V256(unsafe {
            let crossing = _mm256_permute2x128_si256::<0x21>(prev.0, self.0);
            match N {
                1 => _mm256_alignr_epi8::<15>(self.0, crossing),
                2 => _mm256_alignr_epi8::<14>(self.0, crossing),
                3 => _mm256_alignr_epi8::<13>(self.0, crossing),
                4 => _mm256_alignr_epi8::<12>(self.0, crossing),
                5 => _mm256_alignr_epi8::<11>(self.0, crossing),
                _ => unreachable!("prev::<{N}>"),
            }
        })
    }

    #[inline(always)]
    fn is_ascii(self) -> bool {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        unsafe { _mm256_movemask_epi8(self.0) == 0 }
    }

    #[inline(always)]
    fn any(self) -> bool {
        // SAFETY: a `V256` exists only on a CPU with AVX2.
        unsafe { _mm256_testz_si256(self.0, self.0) == 0 }
    }
}

x86_entry_points!(V256, "avx2", "AVX2");

/// The same with the shuffle strategy for the look-behind bytes. Nothing in
/// the library runs it (the AVX2 kernel's entry points load the
/// look-behind past the first block): the benchmarks and the differential
/// tests call it, through `__bench::avx2_shuffled`, to compare the two
/// strategies.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn validate_shuffled(bytes: &[u8]) -> Result<(), usize> {
    // SAFETY: this function's own contract.
    unsafe { lookup::validate::<V256, false, dialects::Utf8>(bytes) }
}
