//! The NEON kernel (aarch64): the lookup algorithm on 128-bit vectors.

use core::arch::aarch64::*;

use super::dialects::{self, Spec};
use super::lookup;
use super::simd::SimdU8;

/// The conversions' operations on this type (`SimdConvert`).
// In a file of its own beside this one: the ISA named in its name, as
// every file of raw intrinsics is.
#[path = "neon_convert.rs"]
mod convert;

/// 16 bytes in a NEON register. NEON is part of the aarch64 baseline this
/// crate is built for; the constructors are `unsafe` only to share the
/// [`SimdU8`] contract.
#[derive(Clone, Copy)]
pub(crate) struct V128(uint8x16_t);

impl SimdU8 for V128 {
    const LANES: usize = 16;
    type Block = [Self; 4];
    type Half = Self;

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        // SAFETY: NEON is available (caller, and the aarch64 baseline).
        V128(unsafe { vdupq_n_u8(byte) })
    }

    #[inline(always)]
    unsafe fn table(entries: &[u8; 16]) -> Self {
        // SAFETY: `entries` is 16 readable bytes.
        V128(unsafe { vld1q_u8(entries.as_ptr()) })
    }

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes at `ptr`.
        V128(unsafe { vld1q_u8(ptr) })
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
        // SAFETY: NEON is available (see the type's documentation).
        V128(unsafe { vorrq_u8(self.0, other.0) })
    }

    #[inline(always)]
    fn and(self, other: Self) -> Self {
        // SAFETY: NEON is available (see the type's documentation).
        V128(unsafe { vandq_u8(self.0, other.0) })
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: NEON is available (see the type's documentation).
        V128(unsafe { veorq_u8(self.0, other.0) })
    }

    #[inline(always)]
    fn and_not(self, other: Self) -> Self {
        // SAFETY: NEON is available (see the type's documentation).
        V128(unsafe { vbicq_u8(self.0, other.0) })
    }

    #[inline(always)]
    fn eq(self, other: Self) -> Self {
        // SAFETY: NEON is available (see the type's documentation).
        V128(unsafe { vceqq_u8(self.0, other.0) })
    }

    #[inline(always)]
    fn signed_min(self, other: Self) -> Self {
        // SAFETY: NEON is available (see the type's documentation).
        V128(unsafe {
            vreinterpretq_u8_s8(vminq_s8(
                vreinterpretq_s8_u8(self.0),
                vreinterpretq_s8_u8(other.0),
            ))
        })
    }

    #[inline(always)]
    fn min(self, other: Self) -> Self {
        // SAFETY: NEON is available (see the type's documentation).
        V128(unsafe { vminq_u8(self.0, other.0) })
    }

    #[inline(always)]
    fn high_nibbles(self) -> Self {
        // SAFETY: NEON is available (see the type's documentation).
        V128(unsafe { vshrq_n_u8::<4>(self.0) })
    }

    #[inline(always)]
    fn lookup(self, table: Self) -> Self {
        // SAFETY: NEON is available (see the type's documentation).
        V128(unsafe { vqtbl1q_u8(table.0, self.0) })
    }

    #[inline(always)]
    fn wrapping_add(self, other: Self) -> Self {
        // SAFETY: NEON is available (see the type's documentation).
        V128(unsafe { vaddq_u8(self.0, other.0) })
    }

    #[inline(always)]
    fn saturating_sub(self, other: Self) -> Self {
        // SAFETY: NEON is available (see the type's documentation).
        V128(unsafe { vqsubq_u8(self.0, other.0) })
    }

    #[inline(always)]
    fn prev<const N: i32>(self, prev: Self) -> Self {
        // SAFETY: NEON is available (see the type's documentation).
        V128(unsafe {
            match N {
                1 => vextq_u8::<15>(prev.0, self.0),
                2 => vextq_u8::<14>(prev.0, self.0),
                3 => vextq_u8::<13>(prev.0, self.0),
                4 => vextq_u8::<12>(prev.0, self.0),
                5 => vextq_u8::<11>(prev.0, self.0),
                _ => unreachable!("prev::<{N}>"),
            }
        })
    }

    #[inline(always)]
    fn is_ascii(self) -> bool {
        // SAFETY: NEON is available (see the type's documentation).
        unsafe { vmaxvq_u8(self.0) < 0x80 }
    }

    #[inline(always)]
    fn any(self) -> bool {
        // SAFETY: NEON is available (see the type's documentation).
        unsafe { vmaxvq_u8(self.0) != 0 }
    }
}

/// Strict UTF-8 validation with NEON (see [`lookup::validate`]).
pub(crate) fn validate(bytes: &[u8]) -> Result<(), usize> {
    // SAFETY: NEON is part of the aarch64 baseline.
    unsafe { lookup::validate::<V128, false, dialects::Utf8>(bytes) }
}

/// Validation of dialect `D` with NEON (see [`lookup::validate`]).
pub(crate) fn validate_dialect<D: Spec>(bytes: &[u8]) -> Result<(), usize> {
    // SAFETY: NEON is part of the aarch64 baseline.
    unsafe { lookup::validate::<V128, false, D>(bytes) }
}

/// Validation of dialect `D` with NEON, a cheaper check over the whole
/// input first (see [`dialects::dialect_first`]).
pub(crate) fn validate_dialect_first<D: Spec>(bytes: &[u8]) -> Result<(), usize> {
    let first = if D::SCREEN_FIRST {
        // SAFETY: NEON is part of the aarch64 baseline.
        unsafe { lookup::validate::<V128, false, D::Screen>(bytes) }
    } else {
        validate(bytes)
    };
    dialects::dialect_first::<D>(bytes, first, validate_dialect::<D>)
}
