//! Vector loops for runs of supplementary characters: surrogate pairs in
//! their 6-byte form (CESU-8, modified UTF-8, Unicode 3.1) to 4-byte forms
//! and back, and 4-byte forms to UTF-16 surrogate pairs.
//!
//! Every item of such a run has the same length, so fixed shuffles move
//! the bytes (no tables of compressions): each character's variable bytes
//! are gathered into a 32-bit lane, converted there with shifts and masks,
//! and spread out again. The input was checked well formed by a kernel and
//! starts between two sequences; each block is compared against the shape
//! of the run first (and a 4-byte form's plane against 1..=16, which RFC
//! 2279's longer range needs), and the loop stops before the first block
//! that does not match, which the scalar loops then convert. Each function
//! returns the bytes read and the bytes (or UTF-16 units) written, both
//! whole items; past the written ones, `dst` may hold scratch.
//!
//! On x86-64, with the AVX2 or AVX-512 kernel active: AVX2 (8 characters a
//! step), AVX-512 VBMI (`vpermb`: 10 pairs or 16 4-byte forms a step) and,
//! for UTF-16, AVX-512 F/BW (16 characters a step). Elsewhere, and under
//! the scalar and SSE4.2 kernels, they convert nothing.

use core::mem::MaybeUninit;

use crate::cpu::Level;
use crate::dispatch::level;

/// Converts the run of surrogate pairs (`ED A_ __ ED B_ __`) at the start
/// of `src` into 4-byte forms at the start of `dst`, whole blocks at a
/// time (the scalar loop converts the rest of the run).
#[inline]
pub(super) fn pairs_to_four(src: &[u8], dst: &mut [u8]) -> (usize, usize) {
    match level() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level` found AVX-512 F, BW and VBMI on this CPU.
        Level::Vbmi => unsafe { x86::pairs_to_four_vbmi(src, dst) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level` found AVX2 on this CPU.
        Level::Avx2 | Level::Avx512 => unsafe { x86::pairs_to_four_avx2(src, dst) },
        Level::Scalar => {
            let _ = (src, dst);
            (0, 0)
        }
    }
}

/// Converts the run of 4-byte forms at the start of `src` (up to U+10FFFF:
/// it stops before one beyond) into surrogate pairs in their 6-byte form
/// at the start of `dst`, whole blocks at a time.
#[inline]
pub(super) fn four_to_pairs(src: &[u8], dst: &mut [u8]) -> (usize, usize) {
    match level() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level` found AVX-512 F, BW and VBMI on this CPU.
        Level::Vbmi => unsafe { x86::four_to_pairs_vbmi(src, dst) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level` found AVX2 on this CPU.
        Level::Avx2 | Level::Avx512 => unsafe { x86::four_to_pairs_avx2(src, dst) },
        Level::Scalar => {
            let _ = (src, dst);
            (0, 0)
        }
    }
}

/// Converts the run of 4-byte forms at the start of `src` (up to U+10FFFF)
/// into UTF-16 surrogate pairs at the start of `dst`, whole blocks at a
/// time. Returns the bytes read and the units written.
#[inline]
pub(super) fn four_to_utf16(src: &[u8], dst: &mut [MaybeUninit<u16>]) -> (usize, usize) {
    match level() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level` found AVX-512 F and BW on this CPU.
        Level::Vbmi | Level::Avx512 => unsafe { x86::four_to_utf16_avx512(src, dst) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level` found AVX2 on this CPU.
        Level::Avx2 => unsafe { x86::four_to_utf16_avx2(src, dst) },
        Level::Scalar => {
            let _ = (src, dst);
            (0, 0)
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;
    use core::mem::MaybeUninit;

    /// 32-bit lanes of a vector, with the few operations the conversions
    /// need. Only made by the `unsafe` constructors, whose contract is
    /// that the CPU has the vector's instructions.
    trait Lanes: Copy {
        /// The vector's width in bytes.
        const BYTES: usize;
        /// The vector at `p`.
        ///
        /// # Safety
        /// The CPU must have the vector's instructions; `BYTES` bytes at
        /// `p` readable.
        unsafe fn load(p: *const u8) -> Self;
        /// Stores the vector at `p`.
        ///
        /// # Safety
        /// `BYTES` bytes at `p` writable.
        unsafe fn store(self, p: *mut u8);
        /// `c` in every lane.
        fn splat(self, c: u32) -> Self;
        fn and(self, other: Self) -> Self;
        fn or(self, other: Self) -> Self;
        fn xor(self, other: Self) -> Self;
        fn add(self, other: Self) -> Self;
        fn sub(self, other: Self) -> Self;
        fn shl<const N: i32>(self) -> Self;
        fn shr<const N: i32>(self) -> Self;
        /// `true` when every bit is zero.
        fn is_zero(self) -> bool;

        #[inline(always)]
        fn and_c(self, c: u32) -> Self {
            self.and(self.splat(c))
        }
        #[inline(always)]
        fn or_c(self, c: u32) -> Self {
            self.or(self.splat(c))
        }
    }

    /// An AVX2 register.
    #[derive(Clone, Copy)]
    struct W256(__m256i);

    impl W256 {
        /// # Safety
        /// The CPU must have AVX2.
        #[inline(always)]
        unsafe fn new(v: __m256i) -> W256 {
            W256(v)
        }
    }

    impl Lanes for W256 {
        const BYTES: usize = 32;
        #[inline(always)]
        unsafe fn load(p: *const u8) -> Self {
            // SAFETY: the caller's contract.
            W256(unsafe { _mm256_loadu_si256(p.cast()) })
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut u8) {
            // SAFETY: the caller's contract; a `W256` exists only on a CPU
            // with AVX2.
            unsafe { _mm256_storeu_si256(p.cast(), self.0) }
        }
        #[inline(always)]
        fn splat(self, c: u32) -> Self {
            // SAFETY: a `W256` exists only on a CPU with AVX2.
            W256(unsafe { _mm256_set1_epi32(c as i32) })
        }
        #[inline(always)]
        fn and(self, other: Self) -> Self {
            // SAFETY: a `W256` exists only on a CPU with AVX2.
            W256(unsafe { _mm256_and_si256(self.0, other.0) })
        }
        #[inline(always)]
        fn or(self, other: Self) -> Self {
            // SAFETY: a `W256` exists only on a CPU with AVX2.
            W256(unsafe { _mm256_or_si256(self.0, other.0) })
        }
        #[inline(always)]
        fn xor(self, other: Self) -> Self {
            // SAFETY: a `W256` exists only on a CPU with AVX2.
            W256(unsafe { _mm256_xor_si256(self.0, other.0) })
        }
        #[inline(always)]
        fn add(self, other: Self) -> Self {
            // SAFETY: a `W256` exists only on a CPU with AVX2.
            W256(unsafe { _mm256_add_epi32(self.0, other.0) })
        }
        #[inline(always)]
        fn sub(self, other: Self) -> Self {
            // SAFETY: a `W256` exists only on a CPU with AVX2.
            W256(unsafe { _mm256_sub_epi32(self.0, other.0) })
        }
        #[inline(always)]
        fn shl<const N: i32>(self) -> Self {
            // SAFETY: a `W256` exists only on a CPU with AVX2.
            W256(unsafe { _mm256_slli_epi32::<N>(self.0) })
        }
        #[inline(always)]
        fn shr<const N: i32>(self) -> Self {
            // SAFETY: a `W256` exists only on a CPU with AVX2.
            W256(unsafe { _mm256_srli_epi32::<N>(self.0) })
        }
        #[inline(always)]
        fn is_zero(self) -> bool {
            // SAFETY: a `W256` exists only on a CPU with AVX2.
            unsafe { _mm256_testz_si256(self.0, self.0) == 1 }
        }
    }

    /// An AVX-512 register.
    #[derive(Clone, Copy)]
    struct W512(__m512i);

    impl W512 {
        /// # Safety
        /// The CPU must have AVX-512 F and BW.
        #[inline(always)]
        unsafe fn new(v: __m512i) -> W512 {
            W512(v)
        }
    }

    impl Lanes for W512 {
        const BYTES: usize = 64;
        #[inline(always)]
        unsafe fn load(p: *const u8) -> Self {
            // SAFETY: the caller's contract.
            W512(unsafe { _mm512_loadu_si512(p.cast()) })
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut u8) {
            // SAFETY: the caller's contract; a `W512` exists only on a CPU
            // with AVX-512 F.
            unsafe { _mm512_storeu_si512(p.cast(), self.0) }
        }
        #[inline(always)]
        fn splat(self, c: u32) -> Self {
            // SAFETY: a `W512` exists only on a CPU with AVX-512 F.
            W512(unsafe { _mm512_set1_epi32(c as i32) })
        }
        #[inline(always)]
        fn and(self, other: Self) -> Self {
            // SAFETY: a `W512` exists only on a CPU with AVX-512 F.
            W512(unsafe { _mm512_and_si512(self.0, other.0) })
        }
        #[inline(always)]
        fn or(self, other: Self) -> Self {
            // SAFETY: a `W512` exists only on a CPU with AVX-512 F.
            W512(unsafe { _mm512_or_si512(self.0, other.0) })
        }
        #[inline(always)]
        fn xor(self, other: Self) -> Self {
            // SAFETY: a `W512` exists only on a CPU with AVX-512 F.
            W512(unsafe { _mm512_xor_si512(self.0, other.0) })
        }
        #[inline(always)]
        fn add(self, other: Self) -> Self {
            // SAFETY: a `W512` exists only on a CPU with AVX-512 F.
            W512(unsafe { _mm512_add_epi32(self.0, other.0) })
        }
        #[inline(always)]
        fn sub(self, other: Self) -> Self {
            // SAFETY: a `W512` exists only on a CPU with AVX-512 F.
            W512(unsafe { _mm512_sub_epi32(self.0, other.0) })
        }
        #[inline(always)]
        fn shl<const N: i32>(self) -> Self {
            // SAFETY: a `W512` exists only on a CPU with AVX-512 F.
            W512(unsafe { _mm512_sll_epi32(self.0, _mm_cvtsi32_si128(N)) })
        }
        #[inline(always)]
        fn shr<const N: i32>(self) -> Self {
            // SAFETY: a `W512` exists only on a CPU with AVX-512 F.
            W512(unsafe { _mm512_srl_epi32(self.0, _mm_cvtsi32_si128(N)) })
        }
        #[inline(always)]
        fn is_zero(self) -> bool {
            // SAFETY: a `W512` exists only on a CPU with AVX-512 F.
            unsafe { _mm512_test_epi32_mask(self.0, self.0) == 0 }
        }
    }

    /// The 4-byte forms of the surrogate pairs whose bytes 1, 2, 4 and 5
    /// (`A_ b B_ d` of `ED A_ b ED B_ d`) are in each lane, first byte
    /// lowest. With `u` the high surrogate's 10 bits plus 0x40 (the code
    /// point shifted right by 10), the form is `F0|u>>8`, `80|(u>>2)&3F`,
    /// `80|(u&3)<<4|B_&0F`, `d`.
    #[inline(always)]
    fn four_of_pair<V: Lanes>(x: V) -> V {
        let u = x.and_c(0x0F).shl::<6>().or(x.shr::<8>().and_c(0x3F));
        let u = u.add(x.splat(0x40));
        x.and_c(0xFF0F_0000)
            .or_c(0x0080_80F0)
            .or(u.shr::<8>())
            .or(u.shl::<6>().and_c(0x3F00))
            .or(u.and_c(3).shl::<20>())
    }

    /// The plane less one (`u`) of the 4-byte forms in each lane (first
    /// byte lowest), and a vector that is zero only if every lane holds a
    /// 4-byte form of planes 1 to 16.
    #[inline(always)]
    fn plane_of_four<V: Lanes>(x: V) -> (V, V) {
        let u = x.and_c(0x07).shl::<2>().or(x.shr::<12>().and_c(3));
        let u = u.sub(x.splat(1));
        let bad = x.and_c(0xC0C0_C0F8).xor(x.splat(0x8080_80F0));
        (u, bad.or(u.and_c(0xFFFF_FFF0)))
    }

    /// The variable bytes of the surrogate pairs of the 4-byte forms in
    /// each lane (`F0|a 80|b 80|c 80|d`, planes 1 to 16): `A0|u`,
    /// `80|(b&F)<<2|c>>4`, `B0|c&F`, `80|d` (bytes 1, 2, 4, 5 of
    /// `ED A_ __ ED B_ __`), and the check of [`plane_of_four`].
    #[inline(always)]
    fn pair_of_four<V: Lanes>(x: V) -> (V, V) {
        let (u, bad) = plane_of_four(x);
        let lane = x
            .and_c(0xFF0F_0000)
            .or_c(0x00B0_80A0)
            .or(u)
            .or(x.shl::<2>().and_c(0x3C00))
            .or(x.shr::<12>().and_c(0x300));
        (lane, bad)
    }

    /// The UTF-16 surrogate pairs of the 4-byte forms in each lane (lead
    /// unit lowest), and the check of [`plane_of_four`].
    #[inline(always)]
    fn utf16_of_four<V: Lanes>(x: V) -> (V, V) {
        let (u, bad) = plane_of_four(x);
        let lane = u
            .shl::<6>()
            .or_c(0xDC00_D800)
            .or(x.shr::<6>().and_c(0x3C))
            .or(x.shr::<20>().and_c(3))
            .or(x.shl::<6>().and_c(0x03C0_0000))
            .or(x.shr::<8>().and_c(0x003F_0000));
        (lane, bad)
    }

    /// A table of 16 bytes in both halves of an AVX2 register.
    #[inline(always)]
    fn table2(t: &[u8; 16]) -> W256 {
        // SAFETY: `t` is 16 readable bytes; only called from functions
        // compiled for AVX2, on a CPU with it.
        unsafe {
            W256::new(_mm256_broadcastsi128_si256(_mm_loadu_si128(
                t.as_ptr().cast(),
            )))
        }
    }

    /// A table of 64 bytes in an AVX-512 register.
    #[inline(always)]
    fn table4(t: &[u8; 64]) -> W512 {
        // SAFETY: `t` is 64 readable bytes; only called from functions
        // compiled for AVX-512 F and BW, on a CPU with them.
        unsafe { W512::new(_mm512_loadu_si512(t.as_ptr().cast())) }
    }

    /// Bytes 0, 1, 3, 4 of two surrogate pairs (`ED A_ __ ED B_ __`) and
    /// the bits they must have.
    const PAIR_MASK: [u8; 16] = pattern([0xFF, 0xF0, 0, 0xFF, 0xF0, 0], 12);
    const PAIR_BITS: [u8; 16] = pattern([0xED, 0xA0, 0, 0xED, 0xB0, 0], 12);
    /// Bytes 1, 2, 4, 5 of each of two pairs into lanes 0 and 1 (`LO`) or
    /// 2 and 3 (`HI`), zeros elsewhere.
    const GATHER_LO: [u8; 16] = [
        1, 2, 4, 5, 7, 8, 10, 11, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    ];
    const GATHER_HI: [u8; 16] = [
        0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1, 2, 4, 5, 7, 8, 10, 11,
    ];
    /// Lanes 0 and 1 (`LO`) or 2 and 3 (`HI`) spread into two pairs' bytes
    /// 1, 2, 4, 5, zeros elsewhere (bytes 12 to 15 are scratch).
    const SPREAD_LO: [u8; 16] = [
        0x80, 0, 1, 0x80, 2, 3, 0x80, 4, 5, 0x80, 6, 7, 0x80, 0x80, 0x80, 0x80,
    ];
    const SPREAD_HI: [u8; 16] = [
        0x80, 8, 9, 0x80, 10, 11, 0x80, 12, 13, 0x80, 14, 15, 0x80, 0x80, 0x80, 0x80,
    ];
    /// The `ED` bytes of two pairs.
    const PAIR_EDS: [u8; 16] = pattern([0xED, 0, 0, 0xED, 0, 0], 12);

    /// `period` repeated over the first `len` bytes, zeros after.
    const fn pattern<const N: usize>(period: [u8; 6], len: usize) -> [u8; N] {
        let mut out = [0; N];
        let mut k = 0;
        while k < len {
            out[k] = period[k % 6];
            k += 1;
        }
        out
    }

    /// 16 bytes at `p` and 16 at `q` in the two halves of an AVX2 register.
    ///
    /// # Safety
    /// The CPU must have AVX2; 16 bytes at each of `p` and `q` readable.
    #[inline(always)]
    unsafe fn load_halves(p: *const u8, q: *const u8) -> W256 {
        // SAFETY: the caller's contract.
        unsafe {
            let lo = _mm256_castsi128_si256(_mm_loadu_si128(p.cast()));
            W256::new(_mm256_inserti128_si256::<1>(lo, _mm_loadu_si128(q.cast())))
        }
    }

    /// [`super::pairs_to_four`] with AVX2: 8 pairs (48 bytes, reading 52)
    /// into 32 bytes a step.
    #[target_feature(enable = "avx2")]
    pub(super) fn pairs_to_four_avx2(src: &[u8], dst: &mut [u8]) -> (usize, usize) {
        let (mask, bits) = (table2(&PAIR_MASK), table2(&PAIR_BITS));
        let (lo, hi) = (table2(&GATHER_LO), table2(&GATHER_HI));
        let (mut i, mut w) = (0, 0);
        while let (Some(chunk), Some(out)) = (src.get(i..i + 52), dst.get_mut(w..w + 32)) {
            let p = chunk.as_ptr();
            // SAFETY: `chunk` is 52 bytes: 16 from each of 0, 12, 24, 36.
            // This function is compiled for AVX2, which its caller found.
            let (a, b) = unsafe { (load_halves(p, p.add(12)), load_halves(p.add(24), p.add(36))) };
            if !a.and(mask).xor(bits).or(b.and(mask).xor(bits)).is_zero() {
                break;
            }
            // Lanes: pairs 0, 1, 4, 5 | 2, 3, 6, 7.
            let x = W256(_mm256_or_si256(
                _mm256_shuffle_epi8(a.0, lo.0),
                _mm256_shuffle_epi8(b.0, hi.0),
            ));
            let forms = _mm256_permute4x64_epi64::<0xD8>(four_of_pair(x).0);
            // SAFETY: `out` is 32 writable bytes.
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), forms) };
            i += 48;
            w += 32;
        }
        (i, w)
    }

    /// [`super::four_to_pairs`] with AVX2: 8 forms (32 bytes) into 48
    /// bytes (writing 52) a step.
    #[target_feature(enable = "avx2")]
    pub(super) fn four_to_pairs_avx2(src: &[u8], dst: &mut [u8]) -> (usize, usize) {
        let (lo, hi, eds) = (table2(&SPREAD_LO), table2(&SPREAD_HI), table2(&PAIR_EDS));
        let (mut i, mut w) = (0, 0);
        while let (Some(chunk), Some(out)) = (src.get(i..i + 32), dst.get_mut(w..w + 52)) {
            // SAFETY: `chunk` is 32 readable bytes; this function is
            // compiled for AVX2, which its caller found.
            let x = unsafe { W256::new(_mm256_loadu_si256(chunk.as_ptr().cast())) };
            let (lanes, bad) = pair_of_four(x);
            if !bad.is_zero() {
                break;
            }
            // Pairs 0, 1 | 4, 5 and 2, 3 | 6, 7, 12 bytes in each half.
            let a = _mm256_or_si256(_mm256_shuffle_epi8(lanes.0, lo.0), eds.0);
            let b = _mm256_or_si256(_mm256_shuffle_epi8(lanes.0, hi.0), eds.0);
            let p = out.as_mut_ptr();
            // SAFETY: `out` is 52 writable bytes: 16 at each of 0, 12, 24,
            // 36, in this order (each store's last 4 bytes are scratch that
            // the next overwrites).
            unsafe {
                _mm_storeu_si128(p.cast(), _mm256_castsi256_si128(a));
                _mm_storeu_si128(p.add(12).cast(), _mm256_castsi256_si128(b));
                _mm_storeu_si128(p.add(24).cast(), _mm256_extracti128_si256::<1>(a));
                _mm_storeu_si128(p.add(36).cast(), _mm256_extracti128_si256::<1>(b));
            }
            i += 32;
            w += 48;
        }
        (i, w)
    }

    /// [`super::four_to_utf16`] with AVX2: 8 forms (32 bytes) into 16
    /// units a step.
    #[target_feature(enable = "avx2")]
    pub(super) fn four_to_utf16_avx2(src: &[u8], dst: &mut [MaybeUninit<u16>]) -> (usize, usize) {
        // SAFETY: this function is compiled for AVX2, which its caller
        // found.
        unsafe { four_to_utf16_with::<W256>(src, dst) }
    }

    /// The loop of [`super::four_to_utf16`], with vectors `V`: a vector of
    /// 4-byte forms into as many bytes of UTF-16 a step.
    ///
    /// # Safety
    /// The CPU must have `V`'s instructions.
    #[inline(always)]
    unsafe fn four_to_utf16_with<V: Lanes>(
        src: &[u8],
        dst: &mut [MaybeUninit<u16>],
    ) -> (usize, usize) {
        let (mut i, mut w) = (0, 0);
        let units = V::BYTES / 2;
        while let (Some(chunk), Some(out)) = (src.get(i..i + V::BYTES), dst.get_mut(w..w + units)) {
            // SAFETY: `chunk` is `V::BYTES` readable bytes; the caller
            // guarantees `V`'s instructions.
            let x = unsafe { V::load(chunk.as_ptr()) };
            let (pairs, bad) = utf16_of_four(x);
            if !bad.is_zero() {
                break;
            }
            // SAFETY: `out` is `V::BYTES / 2` writable units, `V::BYTES`
            // bytes.
            unsafe { pairs.store(out.as_mut_ptr().cast()) };
            i += V::BYTES;
            w += units;
        }
        (i, w)
    }

    /// Ten pairs' bytes 0, 1, 3, 4 and the bits they must have.
    const PAIR_MASK_64: [u8; 64] = pattern([0xFF, 0xF0, 0, 0xFF, 0xF0, 0], 60);
    const PAIR_BITS_64: [u8; 64] = pattern([0xED, 0xA0, 0, 0xED, 0xB0, 0], 60);
    /// Pair `k`'s bytes 1, 2, 4, 5 into lane `k` (`k < 10`).
    const GATHER_64: [u8; 64] = {
        let mut t = [0; 64];
        let mut k = 0;
        while k < 10 {
            let from = [1, 2, 4, 5];
            let mut m = 0;
            while m < 4 {
                t[4 * k + m] = (6 * k) as u8 + from[m];
                m += 1;
            }
            k += 1;
        }
        t
    };
    /// Lanes `first..first + 8` spread into 8 pairs' bytes 1, 2, 4, 5
    /// (the `ED` bytes come from elsewhere).
    const fn spread_64(first: usize) -> [u8; 64] {
        let mut t = [0; 64];
        let mut j = 0;
        while j < 48 {
            let lane = 4 * (first + j / 6);
            t[j] = match j % 6 {
                1 => lane,
                2 => lane + 1,
                4 => lane + 2,
                5 => lane + 3,
                _ => 0,
            } as u8;
            j += 1;
        }
        t
    }
    const SPREAD_64_LO: [u8; 64] = spread_64(0);
    const SPREAD_64_HI: [u8; 64] = spread_64(8);
    const PAIR_EDS_64: [u8; 64] = pattern([0xED, 0, 0, 0xED, 0, 0], 48);
    /// The bytes of 8 pairs that are not `ED`.
    const NOT_EDS_48: u64 = {
        let mut m = 0u64;
        let mut j = 0;
        while j < 48 {
            if j % 3 != 0 {
                m |= 1 << j;
            }
            j += 1;
        }
        m
    };

    /// [`super::pairs_to_four`] with AVX-512 VBMI: 10 pairs (60 bytes,
    /// reading 64) into 40 bytes a step.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) fn pairs_to_four_vbmi(src: &[u8], dst: &mut [u8]) -> (usize, usize) {
        let (mask, bits) = (table4(&PAIR_MASK_64), table4(&PAIR_BITS_64));
        let gather = table4(&GATHER_64);
        let (mut i, mut w) = (0, 0);
        while let (Some(chunk), Some(out)) = (src.get(i..i + 64), dst.get_mut(w..w + 40)) {
            // SAFETY: `chunk` is 64 readable bytes; this function is
            // compiled for AVX-512 F and BW, which its caller found.
            let v = unsafe { W512::new(_mm512_loadu_si512(chunk.as_ptr().cast())) };
            if !v.and(mask).xor(bits).is_zero() {
                break;
            }
            let x = W512(_mm512_permutexvar_epi8(gather.0, v.0));
            let forms = four_of_pair(x).0;
            // SAFETY: `out` is 40 writable bytes, the ones the mask stores.
            unsafe { _mm512_mask_storeu_epi8(out.as_mut_ptr().cast(), (1 << 40) - 1, forms) };
            i += 60;
            w += 40;
        }
        (i, w)
    }

    /// [`super::four_to_pairs`] with AVX-512 VBMI: 16 forms (64 bytes)
    /// into 96 bytes a step.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) fn four_to_pairs_vbmi(src: &[u8], dst: &mut [u8]) -> (usize, usize) {
        let (lo, hi) = (table4(&SPREAD_64_LO), table4(&SPREAD_64_HI));
        let eds = table4(&PAIR_EDS_64);
        let (mut i, mut w) = (0, 0);
        while let (Some(chunk), Some(out)) = (src.get(i..i + 64), dst.get_mut(w..w + 96)) {
            // SAFETY: `chunk` is 64 readable bytes; this function is
            // compiled for AVX-512 F and BW, which its caller found.
            let x = unsafe { W512::new(_mm512_loadu_si512(chunk.as_ptr().cast())) };
            let (lanes, bad) = pair_of_four(x);
            if !bad.is_zero() {
                break;
            }
            let a = _mm512_mask_permutexvar_epi8(eds.0, NOT_EDS_48, lo.0, lanes.0);
            let b = _mm512_mask_permutexvar_epi8(eds.0, NOT_EDS_48, hi.0, lanes.0);
            let p = out.as_mut_ptr();
            let keep = (1 << 48) - 1;
            // SAFETY: `out` is 96 writable bytes; the masks store 48 at 0
            // and 48 at 48.
            unsafe {
                _mm512_mask_storeu_epi8(p.cast(), keep, a);
                _mm512_mask_storeu_epi8(p.add(48).cast(), keep, b);
            }
            i += 64;
            w += 96;
        }
        (i, w)
    }

    /// [`super::four_to_utf16`] with AVX-512: 16 forms (64 bytes) into 32
    /// units a step.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) fn four_to_utf16_avx512(src: &[u8], dst: &mut [MaybeUninit<u16>]) -> (usize, usize) {
        // SAFETY: this function is compiled for AVX-512 F and BW, which its
        // caller found.
        unsafe { four_to_utf16_with::<W512>(src, dst) }
    }
}
