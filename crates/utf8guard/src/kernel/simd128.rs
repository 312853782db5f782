//! The WebAssembly kernel (`wasm32` built with the `simd128` feature): the
//! lookup algorithm on 128-bit vectors.
//!
//! WebAssembly has no run-time feature detection: a module either uses
//! SIMD instructions or not, and one that does fails to load on an engine
//! without them. So this kernel exists exactly when the crate is compiled
//! with `-C target-feature=+simd128`, and is then always available.

use core::arch::wasm32::*;

use super::dialects::{self, Spec};
use super::lookup;
use super::simd::SimdU8;

/// The conversions' operations on this type (`SimdConvert`).
// In a file of its own beside this one: the ISA named in its name, as
// every file of raw intrinsics is.
#[path = "simd128_convert.rs"]
mod convert;

/// 16 bytes in a `v128`. The `simd128` feature is enabled at compile time
/// for this type to exist; the constructors are `unsafe` only to share the
/// [`SimdU8`] contract.
#[derive(Clone, Copy)]
pub(crate) struct V128(v128);

impl SimdU8 for V128 {
    const LANES: usize = 16;
    type Block = [Self; 4];
    type Half = Self;
    /// Straight through up to 1 KiB, not only to 256 bytes as the SSE4.2
    /// kernel: under V8 text strings of 64 B to 1 KiB ran faster that way
    /// than through the blocks (docs/TUNING.md, "Straight check of
    /// strings").
    const SHUFFLED_STRAIGHT: bool = true;

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        V128(u8x16_splat(byte))
    }

    #[inline(always)]
    unsafe fn table(entries: &[u8; 16]) -> Self {
        // SAFETY: `entries` is 16 readable bytes.
        unsafe { Self::load(entries.as_ptr()) }
    }

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes at `ptr`; the read
        // makes no assumption about their alignment.
        V128(unsafe { ptr.cast::<v128>().read_unaligned() })
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
        V128(v128_or(self.0, other.0))
    }

    #[inline(always)]
    fn and(self, other: Self) -> Self {
        V128(v128_and(self.0, other.0))
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        V128(v128_xor(self.0, other.0))
    }

    #[inline(always)]
    fn and_not(self, other: Self) -> Self {
        V128(v128_andnot(self.0, other.0))
    }

    #[inline(always)]
    fn eq(self, other: Self) -> Self {
        V128(u8x16_eq(self.0, other.0))
    }

    #[inline(always)]
    fn signed_min(self, other: Self) -> Self {
        V128(i8x16_min(self.0, other.0))
    }

    #[inline(always)]
    fn min(self, other: Self) -> Self {
        V128(u8x16_min(self.0, other.0))
    }

    #[inline(always)]
    fn high_nibbles(self) -> Self {
        V128(u8x16_shr(self.0, 4))
    }

    #[inline(always)]
    fn lookup(self, table: Self) -> Self {
        // Lanes of `self` are below 16 (the trait's contract), so none is
        // zeroed for being out of range.
        V128(u8x16_swizzle(table.0, self.0))
    }

    #[inline(always)]
    fn wrapping_add(self, other: Self) -> Self {
        V128(u8x16_add(self.0, other.0))
    }

    #[inline(always)]
    fn saturating_sub(self, other: Self) -> Self {
        V128(u8x16_sub_sat(self.0, other.0))
    }

    #[inline(always)]
    fn prev<const N: i32>(self, prev: Self) -> Self {
        // Lanes 0..16 of the shuffle's input are `prev`, 16..32 are `self`:
        // lane i takes input lane 16 - N + i.
        let (p, s) = (prev.0, self.0);
        V128(match N {
            1 => u8x16_shuffle::<15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30>(
                p, s,
            ),
            2 => u8x16_shuffle::<14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29>(
                p, s,
            ),
            3 => u8x16_shuffle::<13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28>(
                p, s,
            ),
            4 => u8x16_shuffle::<12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27>(
                p, s,
            ),
            5 => u8x16_shuffle::<11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26>(
                p, s,
            ),
            _ => unreachable!("prev::<{N}>"),
        })
    }

    #[inline(always)]
    fn is_ascii(self) -> bool {
        u8x16_bitmask(self.0) == 0
    }

    #[inline(always)]
    fn any(self) -> bool {
        v128_any_true(self.0)
    }
}

/// Strict UTF-8 validation with `simd128` (see [`lookup::validate`]), with
/// the look-behind bytes made by shuffles, which under V8 ran well ahead of
/// overlapping loads (docs/TUNING.md, "Look-behind with simd128").
pub(crate) fn validate(bytes: &[u8]) -> Result<(), usize> {
    // SAFETY: `simd128` is enabled at compile time (this module's cfg).
    unsafe { lookup::validate::<V128, false, dialects::Utf8>(bytes) }
}

/// Validation of dialect `D` with `simd128` (see [`lookup::validate`]).
pub(crate) fn validate_dialect<D: Spec>(bytes: &[u8]) -> Result<(), usize> {
    // SAFETY: `simd128` is enabled at compile time (this module's cfg).
    unsafe { lookup::validate::<V128, false, D>(bytes) }
}

/// Validation of dialect `D` with `simd128`, a cheaper check over the whole
/// input first (see [`dialects::dialect_first`]).
pub(crate) fn validate_dialect_first<D: Spec>(bytes: &[u8]) -> Result<(), usize> {
    let first = if D::SCREEN_FIRST {
        // SAFETY: `simd128` is enabled at compile time (this module's cfg).
        unsafe { lookup::validate::<V128, false, D::Screen>(bytes) }
    } else {
        validate(bytes)
    };
    dialects::dialect_first::<D>(bytes, first, validate_dialect::<D>)
}
