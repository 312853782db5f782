//! The AVX-512 kernel: the lookup algorithm on 512-bit vectors (AVX-512F
//! and AVX-512BW for the byte operations, BMI2 for the mask of a short
//! input). One vector is a whole block. On a CPU with AVX-512VBMI as well,
//! the entry points of [`vbmi`] look the nibbles up with `vpermb`, which
//! needs no mask of the index: strict UTF-8's, and those of the dialects
//! whose `Spec::VPERMB` says so.

use core::arch::x86_64::*;

use super::dialects::{self, Spec};
use super::lookup;
use super::simd::SimdU8;

/// The conversions' operations on this type (`SimdConvert`).
// In a file of its own beside this one: the ISA named in its name, as
// every file of raw intrinsics is.
#[path = "avx512_convert.rs"]
mod convert;

/// 64 bytes in a ZMM register. Only made by the `unsafe` constructors of
/// [`SimdU8`], whose contract is that the CPU has AVX-512F, AVX-512BW and
/// BMI2, and with `VBMI` AVX-512VBMI too.
#[derive(Clone, Copy)]
pub(crate) struct V512<const VBMI: bool = false>(__m512i);

impl<const VBMI: bool> SimdU8 for V512<VBMI> {
    const LANES: usize = 64;
    type Block = [Self; 1];
    type Half = super::avx2::V256;

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        // SAFETY: the caller guarantees AVX-512F.
        V512(unsafe { _mm512_set1_epi8(byte as i8) })
    }

    #[inline(always)]
    unsafe fn table(entries: &[u8; 16]) -> Self {
        // SAFETY: `entries` is 16 readable bytes; the caller guarantees
        // AVX-512F.
        V512(unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(entries.as_ptr().cast())) })
    }

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees AVX-512F and 64 readable bytes.
        V512(unsafe { _mm512_loadu_si512(ptr.cast()) })
    }

    #[inline(always)]
    unsafe fn load_whole(bytes: &[u8]) -> Option<Self> {
        let len = bytes.len();
        if len > 64 {
            return None;
        }
        // SAFETY: the caller guarantees BMI2 (this type's contract).
        // `bzhi` keeps the low `len` bits: one per byte of the input.
        let mask = unsafe { _bzhi_u64(u64::MAX, len as u32) };
        // SAFETY: the caller guarantees AVX-512BW. The masked load reads the
        // lanes whose mask bit is set, the `len` bytes of `bytes`, and no
        // others: a masked-off lane is not accessed, cannot fault (Intel
        // SDM, "memory fault suppression" of masked loads) and is zeroed.
        Some(V512(unsafe {
            _mm512_maskz_loadu_epi8(mask, bytes.as_ptr().cast())
        }))
    }

    #[inline(always)]
    unsafe fn load_block(ptr: *const u8) -> [Self; 1] {
        // SAFETY: the caller guarantees AVX-512F and 64 readable bytes.
        [unsafe { Self::load(ptr) }]
    }

    #[inline(always)]
    fn or(self, other: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512F.
        V512(unsafe { _mm512_or_si512(self.0, other.0) })
    }

    #[inline(always)]
    fn and(self, other: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512F.
        V512(unsafe { _mm512_and_si512(self.0, other.0) })
    }

    #[inline(always)]
    fn xor(self, other: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512F.
        V512(unsafe { _mm512_xor_si512(self.0, other.0) })
    }

    #[inline(always)]
    fn and_not(self, other: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512F and BW.
        V512(unsafe { _mm512_andnot_si512(other.0, self.0) })
    }

    #[inline(always)]
    fn eq(self, other: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW.
        V512(unsafe { _mm512_movm_epi8(_mm512_cmpeq_epi8_mask(self.0, other.0)) })
    }

    #[inline(always)]
    fn select_eq2(self, a: Self, other: Self, mask: Self, b: Self, out: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512F and BW. The
        // comparisons give mask registers, and the second runs only in the
        // lanes the first set: no vector of 00/FF is made.
        V512(unsafe {
            let first = _mm512_cmpeq_epi8_mask(self.0, a.0);
            let both = _mm512_mask_cmpeq_epi8_mask(first, _mm512_and_si512(other.0, mask.0), b.0);
            _mm512_maskz_mov_epi8(both, out.0)
        })
    }

    #[inline(always)]
    fn sub_one_where_eq2(
        self,
        lead: Self,
        a: Self,
        other: Self,
        mask: Self,
        b: Self,
        one: Self,
    ) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512F and BW. The
        // comparisons give mask registers; the subtraction writes only the
        // lanes both set and keeps `self` in the others.
        V512(unsafe {
            let first = _mm512_cmpeq_epi8_mask(lead.0, a.0);
            let both = _mm512_mask_cmpeq_epi8_mask(first, _mm512_and_si512(other.0, mask.0), b.0);
            _mm512_mask_sub_epi8(self.0, both, self.0, one.0)
        })
    }

    #[inline(always)]
    fn wrapping_add(self, other: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW.
        V512(unsafe { _mm512_add_epi8(self.0, other.0) })
    }

    #[inline(always)]
    fn signed_min(self, other: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW.
        V512(unsafe { _mm512_min_epi8(self.0, other.0) })
    }

    #[inline(always)]
    fn min(self, other: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512F and BW.
        V512(unsafe { _mm512_min_epu8(self.0, other.0) })
    }

    #[inline(always)]
    fn high_nibbles(self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512F and BW.
        V512(unsafe { _mm512_and_si512(_mm512_srli_epi16::<4>(self.0), _mm512_set1_epi8(0x0F)) })
    }

    #[inline(always)]
    fn lookup(self, table: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW. The table is
        // repeated in all four 128-bit lanes, so the in-lane shuffle is a
        // full 16-entry lookup.
        V512(unsafe { _mm512_shuffle_epi8(table.0, self.0) })
    }

    #[inline(always)]
    fn lookup_high(self, table: Self) -> Self {
        if !VBMI {
            return self.high_nibbles().lookup(table);
        }
        // SAFETY: a `V512<true>` exists only on a CPU with AVX-512BW and
        // VBMI. `vpermb` indexes the 64-byte table with the low 6 bits of
        // each lane; after the 16-bit shift those are the lane's high
        // nibble and two bits of the next lane (or zeros), and the table
        // repeats its 16 entries four times, so the two bits do not matter.
        V512(unsafe { _mm512_permutexvar_epi8(_mm512_srli_epi16::<4>(self.0), table.0) })
    }

    #[inline(always)]
    fn lookup_low(self, table: Self, low_nibble_mask: Self) -> Self {
        if !VBMI {
            return self.and(low_nibble_mask).lookup(table);
        }
        // SAFETY: a `V512<true>` exists only on a CPU with AVX-512BW and
        // VBMI. `vpermb` indexes the table with bits 0-5 of each lane, and
        // the table repeats its 16 entries four times: bits 4 and 5 do not
        // matter (where `vpshufb` needs the mask, as it zeroes a lane whose
        // index has bit 7 set).
        V512(unsafe { _mm512_permutexvar_epi8(self.0, table.0) })
    }

    #[inline(always)]
    fn saturating_sub(self, other: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW.
        V512(unsafe { _mm512_subs_epu8(self.0, other.0) })
    }

    #[inline(always)]
    fn prev<const N: i32>(self, prev: Self) -> Self {
        // SAFETY: a `V512` exists only on a CPU with AVX-512F and BW.
        // `alignr_epi8` works within 128-bit lanes, so it is fed the vector
        // shifted by one lane with the last lane of `prev` shifted in.
        V512(unsafe {
            if N == 4 {
                // A whole 32-bit lane: one instruction across the vector.
                return V512(_mm512_alignr_epi32::<15>(self.0, prev.0));
            }
            let crossing = _mm512_alignr_epi32::<12>(self.0, prev.0);
            match N {
                1 => _mm512_alignr_epi8::<15>(self.0, crossing),
                2 => _mm512_alignr_epi8::<14>(self.0, crossing),
                3 => _mm512_alignr_epi8::<13>(self.0, crossing),
                4 => _mm512_alignr_epi8::<12>(self.0, crossing),
                5 => _mm512_alignr_epi8::<11>(self.0, crossing),
                _ => unreachable!("prev::<{N}>"),
            }
        })
    }

    #[inline(always)]
    fn is_ascii(self) -> bool {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW.
        unsafe { _mm512_movepi8_mask(self.0) == 0 }
    }

    #[inline(always)]
    fn any(self) -> bool {
        // SAFETY: a `V512` exists only on a CPU with AVX-512BW.
        unsafe { _mm512_test_epi8_mask(self.0, self.0) != 0 }
    }
}

x86_entry_points!(
    V512,
    "avx512f,avx512bw,bmi2",
    "AVX-512F, AVX-512BW and BMI2"
);

/// The AVX-512 kernel's strict entry point: with `vpermb` where the CPU has
/// AVX-512VBMI. The CPU must have what the kernel needs (AVX-512F and BW,
/// BMI2).
pub(crate) fn strict_entry() -> super::DialectFn {
    if crate::cpu::has_avx512_vbmi() {
        vbmi::validate
    } else {
        validate
    }
}

/// The AVX-512 kernel's entry point for dialect `D`: with `vpermb` where
/// the CPU has AVX-512VBMI, for the dialects that measured faster with it
/// (the screened ones first through their screen, those that hold all of
/// UTF-8 through strict UTF-8 first), else with `vpshufb`.
pub(crate) fn dialect_entry<D: Spec>() -> super::DialectFn {
    if crate::cpu::has_avx512_vbmi() {
        if D::SCREEN_FIRST {
            return vbmi::validate_dialect_first::<D>;
        }
        if D::VPERMB {
            return vbmi::validate_dialect::<D>;
        }
        if D::UTF8_FIRST {
            return vbmi::validate_dialect_utf8_first::<D>;
        }
    }
    vpshufb_dialect_entry::<D>()
}

/// The AVX-512 kernel's entry point for dialect `D` with `vpshufb`: what a
/// CPU without AVX-512VBMI runs.
pub(crate) fn vpshufb_dialect_entry<D: Spec>() -> super::DialectFn {
    if D::SCREEN_FIRST || D::UTF8_FIRST {
        validate_dialect_first::<D>
    } else {
        validate_dialect::<D>
    }
}

/// The entry points with `vpermb` for the nibble lookups: three `and`s
/// fewer per vector, which makes non-ASCII text faster (docs/TUNING.md,
/// "vpermb for strict UTF-8").
pub(crate) mod vbmi {
    use super::{dialects, lookup, Spec, V512};

    x86_entry_points!(
        V512<true>,
        "avx512f,avx512bw,avx512vbmi,bmi2",
        "AVX-512F, AVX-512BW, AVX-512VBMI and BMI2"
    );

    /// Strict UTF-8 with `vpermb` and the look-behind bytes shifted in
    /// (see `lookup::SHUFFLES_FROM`): for the chunks of a long input.
    ///
    /// # Safety
    /// The CPU must support AVX-512F, AVX-512BW, AVX-512VBMI and BMI2.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,bmi2")]
    pub(crate) unsafe fn validate_far(bytes: &[u8]) -> Result<(), usize> {
        // SAFETY: this function's own contract.
        unsafe { lookup::validate::<V512<true>, false, dialects::Utf8>(bytes) }
    }

    /// Validation of dialect `D`, one of those that hold every well-formed
    /// UTF-8 input ([`Spec::UTF8_FIRST`]): [`validate`] first, then, from
    /// the character where it found an error, the dialect's own check
    /// with `vpshufb` ([`super::validate_dialect`]). On text that is
    /// well-formed UTF-8 this runs at strict UTF-8's speed, faster than the
    /// dialect's check with its screen (docs/TUNING.md, "Strict UTF-8
    /// first").
    ///
    /// # Safety
    /// The CPU must support AVX-512F, AVX-512BW, AVX-512VBMI and BMI2.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,bmi2")]
    pub(crate) unsafe fn validate_dialect_utf8_first<D: Spec>(bytes: &[u8]) -> Result<(), usize> {
        // SAFETY: this function's own contract.
        let first = unsafe { validate(bytes) };
        // SAFETY: this function's own contract includes AVX-512F and BW.
        dialects::dialect_first::<D>(bytes, first, |rest| unsafe {
            super::validate_dialect::<D>(rest)
        })
    }
}

/// The same with the shuffle strategy for the look-behind bytes: what
/// `dispatch::run_far` runs, on a CPU that takes no prefetch hints and has
/// no AVX-512VBMI (with VBMI, `vbmi::validate_far`), on `par`'s chunks of
/// an input of 16 MiB or more and on a `StreamValidator`'s pieces of a
/// long stretch of memory (see `lookup::SHUFFLES_FROM`). The benchmarks
/// time it too (`__bench::avx512_shuffled`).
///
/// # Safety
/// The CPU must support AVX-512F and AVX-512BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn validate_shuffled(bytes: &[u8]) -> Result<(), usize> {
    // SAFETY: this function's own contract.
    unsafe { lookup::validate::<V512, false, dialects::Utf8>(bytes) }
}
