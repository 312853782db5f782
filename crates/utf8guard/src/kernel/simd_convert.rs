//! The vector operations the conversions need beyond the validator's, as a
//! companion trait of [`SimdU8`] that the same vector types implement once
//! per instruction set, each in a file named for it beside its kernel
//! (`sse42/convert.rs`, `avx2/convert.rs`, `avx512/convert.rs`,
//! `neon/convert.rs`, `simd128/convert.rs`).
//!
//! The contract is [`SimdU8`]'s: a value can only be made by an `unsafe`
//! constructor whose caller promises the instruction set, so holding one
//! proves it, and the operations on values are safe. Stores and the
//! constructors from memory are `unsafe` for their pointers as well.
//!
//! Several operations work within each 128-bit lane of the vector, as the
//! byte shuffles of x86 do: a conversion written over them takes a vector
//! as `LANES / 16` lanes of 16 bytes, each with its own shuffle control,
//! and stores each lane's result on its own. On the 128-bit instruction
//! sets a vector is one such lane.

use super::simd::SimdU8;

/// The conversions' operations on a vector of `LANES` bytes.
pub(crate) trait SimdConvert: SimdU8 {
    /// An unaligned store of the `LANES` bytes.
    ///
    /// # Safety
    /// `ptr` must be valid for writes of `LANES` bytes.
    unsafe fn store(self, ptr: *mut u8);

    /// An unaligned store of the 16 bytes of 128-bit lane `k` (below
    /// `LANES / 16`).
    ///
    /// # Safety
    /// `ptr` must be valid for writes of 16 bytes.
    unsafe fn store_lane(self, k: usize, ptr: *mut u8);

    /// An unaligned store of the 8 bytes of 64-bit element `k` (below
    /// `LANES / 8`): bytes `8k..8k + 8`.
    ///
    /// # Safety
    /// `ptr` must be valid for writes of 8 bytes.
    unsafe fn store_u64(self, k: usize, ptr: *mut u8);

    /// The vector whose 128-bit lane `k` holds the 16 bytes `row(k)`.
    ///
    /// # Safety
    /// The CPU must support this type's instruction set.
    unsafe fn from_rows<'a>(row: impl Fn(usize) -> &'a [u8; 16]) -> Self;

    /// The vector whose 64-bit element `k` holds `word(k)` (little-endian:
    /// its low byte first).
    ///
    /// # Safety
    /// The CPU must support this type's instruction set.
    unsafe fn from_u64s(word: impl Fn(usize) -> u64) -> Self;

    /// Bit `i` set where lane `i` has its high bit set.
    fn mask(self) -> u64;

    /// Lane-wise signed comparison: `FF` where `self < other` as `i8`,
    /// else `00`.
    fn signed_lt(self, other: Self) -> Self;

    /// Each byte shifted right by `N` bits (1 to 7), zeros shifted in.
    fn shr<const N: i32>(self) -> Self;

    /// `if_set` in the lanes where `self` is `FF`, `if_clear` where it is
    /// `00` (`self` must hold only those).
    fn select(self, if_set: Self, if_clear: Self) -> Self;

    /// Lane-wise lookup in a table of 32 entries: `rows[i / 16][i % 16]` for
    /// `i` the lane's low 5 bits (its high 3 bits do not matter).
    fn lookup32(self, rows: &[[u8; 16]; 2]) -> Self;

    /// Lane-wise lookup in a table of 64 entries: `rows[i / 16][i % 16]` for
    /// `i` the lane's value, which must be below 64.
    fn lookup64(self, rows: &[[u8; 16]; 4]) -> Self;

    /// Within each 128-bit lane, the bytes of `self` and `other` taken in
    /// turn from the lane's first 8: `s0 o0 s1 o1 .. s7 o7`.
    fn zip_low(self, other: Self) -> Self;

    /// The same from the lane's last 8 bytes.
    fn zip_high(self, other: Self) -> Self;

    /// Within each 128-bit lane, the 2-byte units of `self` and `other`
    /// taken in turn from the lane's first 4.
    fn zip16_low(self, other: Self) -> Self;

    /// The same from the lane's last 4 units.
    fn zip16_high(self, other: Self) -> Self;

    /// Within each 128-bit lane, byte `i` of the result is byte
    /// `control[i]` of the same lane of `self`, or zero where `control[i]`
    /// has its high bit set (every other control byte must be below 16).
    fn shuffle(self, control: Self) -> Self;

    /// Each 16-bit unit (little-endian: its low byte first) shifted right
    /// by `N` bits (1 to 15), zeros shifted in.
    fn shr16<const N: i32>(self) -> Self;

    /// Within each 128-bit lane, the four 32-bit units of `self`, then the
    /// four of `other`, each read as an `i32` and narrowed to 16 bits with
    /// unsigned saturation (below 0: 0; above `FFFF`: `FFFF`).
    fn pack32(self, other: Self) -> Self;

    /// Within each 128-bit lane, the eight 16-bit units of `self`, then the
    /// eight of `other`, each read as an `i16` and narrowed to a byte with
    /// unsigned saturation (below 0: 0; above `FF`: `FF`).
    fn pack16(self, other: Self) -> Self;
}

/// Every operation of a vector type against its definition on bytes, as
/// [`super::simd::check_operations`] does for [`SimdU8`].
///
/// # Safety
/// The CPU must support `V`'s instruction set.
#[cfg(test)]
pub(crate) unsafe fn check_convert_operations<V: SimdConvert>() {
    extern crate std;
    use std::vec::Vec;
    let n = V::LANES;
    let a: Vec<u8> = (0..64u32).map(|i| (i * 37 + 11) as u8).collect();
    let b: Vec<u8> = (0..64u32).map(|i| (i * 91 + 200) as u8).collect();
    let stored = |v: V| {
        let mut out = [0u8; 64];
        // SAFETY: `out` has room for 64 bytes, the widest vector.
        unsafe { v.store(out.as_mut_ptr()) };
        out[..n].to_vec()
    };
    // SAFETY: the caller guarantees the instruction set; every pointer
    // below has at least LANES readable or writable bytes.
    unsafe {
        let (va, vb) = (V::load(a.as_ptr()), V::load(b.as_ptr()));
        assert_eq!(stored(va), a[..n]);
        for k in 0..n / 16 {
            let mut out = [0u8; 16];
            va.store_lane(k, out.as_mut_ptr());
            assert_eq!(out, a[16 * k..16 * k + 16]);
        }
        for k in 0..n / 8 {
            let mut out = [0u8; 8];
            va.store_u64(k, out.as_mut_ptr());
            assert_eq!(out, a[8 * k..8 * k + 8]);
        }
        let rows: [[u8; 16]; 4] = core::array::from_fn(|k| core::array::from_fn(|i| b[16 * k + i]));
        assert_eq!(stored(V::from_rows(|k| &rows[k])), b[..n]);
        let words: [u64; 8] =
            core::array::from_fn(|k| u64::from_le_bytes(a[8 * k..8 * k + 8].try_into().unwrap()));
        assert_eq!(stored(V::from_u64s(|k| words[k])), a[..n]);
        let mask = (0..n).fold(0u64, |m, i| m | u64::from(a[i] >> 7) << i);
        assert_eq!(va.mask(), mask);
        let map = |f: &dyn Fn(u8, u8) -> u8| -> Vec<u8> { (0..n).map(|i| f(a[i], b[i])).collect() };
        assert_eq!(
            stored(va.signed_lt(vb)),
            map(&|x, y| if (x as i8) < (y as i8) { 0xFF } else { 0 })
        );
        assert_eq!(stored(va.shr::<1>()), map(&|x, _| x >> 1));
        assert_eq!(stored(va.shr::<4>()), map(&|x, _| x >> 4));
        assert_eq!(stored(va.shr::<6>()), map(&|x, _| x >> 6));
        assert_eq!(stored(va.shr::<7>()), map(&|x, _| x >> 7));
        let choice = va.signed_lt(vb);
        assert_eq!(
            stored(choice.select(va, vb)),
            map(&|x, y| if (x as i8) < (y as i8) { x } else { y })
        );
        let table: [u8; 64] = core::array::from_fn(|i| (i as u8).wrapping_mul(77) ^ 0x3C);
        let rows64: [[u8; 16]; 4] =
            core::array::from_fn(|k| core::array::from_fn(|i| table[16 * k + i]));
        let rows32: [[u8; 16]; 2] = [rows64[0], rows64[1]];
        assert_eq!(
            stored(va.lookup32(&rows32)),
            map(&|x, _| table[usize::from(x & 31)])
        );
        let below64: Vec<u8> = a.iter().map(|x| x & 63).collect();
        assert_eq!(
            stored(V::load(below64.as_ptr()).lookup64(&rows64)),
            below64[..n]
                .iter()
                .map(|&x| table[usize::from(x)])
                .collect::<Vec<u8>>()
        );
        // The in-lane operations, lane by lane.
        type Lanes<'a> = &'a dyn Fn(&[u8], &[u8]) -> Vec<u8>;
        let per_lane = |f: Lanes| -> Vec<u8> {
            (0..n / 16)
                .flat_map(|k| f(&a[16 * k..16 * k + 16], &b[16 * k..16 * k + 16]))
                .collect()
        };
        let zip = |x: &[u8], y: &[u8], unit: usize| -> Vec<u8> {
            x.chunks(unit)
                .zip(y.chunks(unit))
                .flat_map(|(p, q)| p.iter().chain(q).copied())
                .collect()
        };
        assert_eq!(
            stored(va.zip_low(vb)),
            per_lane(&|x, y| zip(&x[..8], &y[..8], 1))
        );
        assert_eq!(
            stored(va.zip_high(vb)),
            per_lane(&|x, y| zip(&x[8..], &y[8..], 1))
        );
        assert_eq!(
            stored(va.zip16_low(vb)),
            per_lane(&|x, y| zip(&x[..8], &y[..8], 2))
        );
        assert_eq!(
            stored(va.zip16_high(vb)),
            per_lane(&|x, y| zip(&x[8..], &y[8..], 2))
        );
        // A control of indices below 16 and of bytes with the high bit set.
        let control: Vec<u8> = (0..64u8)
            .map(|i| {
                if i % 5 == 3 {
                    0x80 | i
                } else {
                    i.wrapping_mul(7) & 15
                }
            })
            .collect();
        let shuffled: Vec<u8> = (0..n)
            .map(|i| {
                let c = control[i];
                if c & 0x80 != 0 {
                    0
                } else {
                    a[i / 16 * 16 + usize::from(c)]
                }
            })
            .collect();
        assert_eq!(stored(va.shuffle(V::load(control.as_ptr()))), shuffled);
        // The 16- and 32-bit units, little-endian.
        let units16 = |x: &[u8]| -> Vec<u16> {
            x.chunks(2)
                .map(|u| u16::from_le_bytes([u[0], u[1]]))
                .collect()
        };
        let bytes16 = |u: Vec<u16>| -> Vec<u8> { u.iter().flat_map(|u| u.to_le_bytes()).collect() };
        for (shifted, by) in [
            (va.shr16::<1>(), 1),
            (va.shr16::<6>(), 6),
            (va.shr16::<8>(), 8),
            (va.shr16::<15>(), 15),
        ] {
            let expected = bytes16(units16(&a[..n]).iter().map(|u| u >> by).collect());
            assert_eq!(stored(shifted), expected, "shr16::<{by}>");
        }
        let pack32 = |x: &[u8], y: &[u8]| -> Vec<u8> {
            let clamp = |u: &[u8]| {
                let v = i32::from_le_bytes([u[0], u[1], u[2], u[3]]);
                (v.clamp(0, 0xFFFF) as u16).to_le_bytes()
            };
            x.chunks(4).chain(y.chunks(4)).flat_map(clamp).collect()
        };
        assert_eq!(stored(va.pack32(vb)), per_lane(&pack32));
        let pack16 = |x: &[u8], y: &[u8]| -> Vec<u8> {
            let clamp = |u: &[u8]| i16::from_le_bytes([u[0], u[1]]).clamp(0, 0xFF) as u8;
            x.chunks(2).chain(y.chunks(2)).map(clamp).collect()
        };
        assert_eq!(stored(va.pack16(vb)), per_lane(&pack16));
        // Values in range, which saturation leaves as they are.
        let small: Vec<u8> = (0..64u32)
            .map(|i| if i % 2 == 1 { 0 } else { (i * 29) as u8 & 0x7F })
            .collect();
        let vs = V::load(small.as_ptr());
        let evens: Vec<u8> = (0..n / 16)
            .flat_map(|k| {
                let even = small[16 * k..16 * k + 16].iter().step_by(2);
                even.clone().chain(even).copied()
            })
            .collect();
        assert_eq!(stored(vs.pack16(vs)), evens);
    }
}

#[cfg(test)]
mod tests {
    /// Each vector type this CPU (or this build) has, against the
    /// definitions.
    #[test]
    fn every_operation_on_every_vector_type() {
        #[cfg(target_arch = "x86_64")]
        {
            use crate::kernel::Kernel;
            if Kernel::Sse42.is_available() {
                // SAFETY: SSE4.2 was just detected.
                unsafe { super::check_convert_operations::<super::super::sse42::V128>() };
            }
            if Kernel::Avx2.is_available() {
                // SAFETY: AVX2 was just detected.
                unsafe { super::check_convert_operations::<super::super::avx2::V256>() };
            }
            if Kernel::Avx512.is_available() {
                // SAFETY: AVX-512F and BW were just detected.
                unsafe { super::check_convert_operations::<super::super::avx512::V512>() };
            }
        }
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        // SAFETY: NEON is enabled at compile time.
        unsafe {
            super::check_convert_operations::<super::super::neon::V128>()
        };
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: simd128 is enabled at compile time.
        unsafe {
            super::check_convert_operations::<super::super::simd128::V128>()
        };
    }
}
