//! The few vector operations the lookup algorithm needs, as a trait that
//! each instruction set implements once: `sse42.rs`, `avx2.rs` and
//! `avx512.rs` on x86_64, `neon.rs` on aarch64, `simd128.rs` on wasm32.
//!
//! A value of a type implementing [`SimdU8`] can only be made by its
//! `unsafe` constructors ([`SimdU8::splat`], [`SimdU8::load`],
//! [`SimdU8::table`]), whose contract is that the CPU supports the
//! instruction set. Holding a value is therefore proof that the features are
//! there, which is why the operations on values are safe to call. All
//! methods are `#[inline(always)]` so that they are compiled inside the
//! kernel's `#[target_feature]` function, with its features enabled.

/// A vector of `LANES` bytes.
pub(crate) trait SimdU8: Copy {
    /// Bytes per vector.
    const LANES: usize;
    /// A 64-byte block as `64 / LANES` vectors.
    type Block: Copy + AsRef<[Self]>;
    /// The next narrower vector type, for inputs shorter than one of these
    /// vectors; `Self` where there is none. Its instruction set must be
    /// implied by this one's (AVX2 implies SSE4.2, AVX-512 implies AVX2),
    /// so that holding a `Self` proves that a `Half` may be made too.
    type Half: SimdU8;
    /// Whether a kernel of the shuffle strategy (`LOADS = false` in
    /// `lookup`) checks strings of 64 bytes to `lookup::straight_max`
    /// straight through too, each vector after the first with its
    /// look-behind shifted in from the vector before (the last, which may
    /// overlap it, loads its own from the input), before the blocks. The
    /// kernels of the load strategy always do.
    const SHUFFLED_STRAIGHT: bool = false;

    /// Every lane set to `byte`.
    ///
    /// # Safety
    /// The CPU must support this type's instruction set.
    unsafe fn splat(byte: u8) -> Self;

    /// A 16-entry lookup table, repeated in every 128-bit lane.
    ///
    /// # Safety
    /// The CPU must support this type's instruction set.
    unsafe fn table(entries: &[u8; 16]) -> Self;

    /// An unaligned load of `LANES` bytes.
    ///
    /// # Safety
    /// The CPU must support this type's instruction set, and `ptr` must be
    /// valid for reads of `LANES` bytes.
    unsafe fn load(ptr: *const u8) -> Self;

    /// An unaligned load of 64 bytes, as `64 / LANES` vectors.
    ///
    /// # Safety
    /// The CPU must support this type's instruction set, and `ptr` must be
    /// valid for reads of 64 bytes.
    unsafe fn load_block(ptr: *const u8) -> Self::Block;

    /// All of `bytes` in one vector, zeros after it, if it fits and this
    /// type loads it without touching the bytes past its end (a masked
    /// load); `None` otherwise, and always for types without masked loads.
    ///
    /// # Safety
    /// The CPU must support this type's instruction set.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load_whole(bytes: &[u8]) -> Option<Self> {
        let _ = bytes;
        None
    }

    fn or(self, other: Self) -> Self;
    fn and(self, other: Self) -> Self;
    fn xor(self, other: Self) -> Self;
    /// `self & !other`, bit by bit.
    #[cfg_attr(not(test), allow(dead_code))] // used by the dialects' checks
    fn and_not(self, other: Self) -> Self;
    /// Lane-wise equality: `FF` where the lanes are equal, else `00`.
    fn eq(self, other: Self) -> Self;
    /// `out` in the lanes where `self` equals `a` and `other & mask` equals
    /// `b`, zero elsewhere.
    #[inline(always)]
    fn select_eq2(self, a: Self, other: Self, mask: Self, b: Self, out: Self) -> Self {
        self.eq(a).and(other.and(mask).eq(b)).and(out)
    }
    /// `self` less one in the lanes where `lead` equals `a` and
    /// `other & mask` equals `b`, unchanged elsewhere: the lanes of the
    /// result that are zero are exactly those where `self` held 1 and the
    /// condition holds, or held zero and it does not. The equality gives
    /// `FF` in the lanes it holds, and adding `FF` subtracts one, so no
    /// constant is needed; AVX-512 subtracts `one` in the lanes of its
    /// comparisons' mask instead.
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
        let _ = one;
        self.wrapping_add(lead.eq(a).and(other.and(mask).eq(b)))
    }
    /// Lane-wise wrapping addition.
    fn wrapping_add(self, other: Self) -> Self;
    /// Lane-wise minimum of the bytes as signed numbers (`80..FF` are
    /// negative).
    fn signed_min(self, other: Self) -> Self;
    /// Lane-wise unsigned minimum.
    #[cfg_attr(not(test), allow(dead_code))] // used by the dialects' checks
    fn min(self, other: Self) -> Self;
    /// Each byte shifted right by 4: its high nibble.
    fn high_nibbles(self) -> Self;
    /// Lane-wise table lookup: `table[self[i]]`, for indices below 16.
    fn lookup(self, table: Self) -> Self;
    /// `table[self[i] >> 4]` in every lane, `table` made by
    /// [`SimdU8::table`].
    #[inline(always)]
    fn lookup_high(self, table: Self) -> Self {
        self.high_nibbles().lookup(table)
    }
    /// `table[self[i] & 15]` in every lane, `table` made by
    /// [`SimdU8::table`]; `low_nibble_mask` holds `0F` in every lane.
    #[inline(always)]
    fn lookup_low(self, table: Self, low_nibble_mask: Self) -> Self {
        self.and(low_nibble_mask).lookup(table)
    }
    /// Lane-wise unsigned saturating subtraction.
    fn saturating_sub(self, other: Self) -> Self;
    /// The vector shifted by `N` (1 to 5) bytes towards higher lanes, with
    /// the last `N` bytes of `prev` shifted in: lane `i` holds the byte
    /// that comes `N` bytes before lane `i` of `self` in the input.
    fn prev<const N: i32>(self, prev: Self) -> Self;
    /// `true` when no lane has its high bit set.
    fn is_ascii(self) -> bool;
    /// `true` when some lane is not zero.
    fn any(self) -> bool;
}

/// Every operation of a vector type against its definition on bytes. Only
/// equality of whole vectors is observable (`xor` then `any`), which is
/// enough: each expected vector is loaded from bytes computed here.
///
/// # Safety
/// The CPU must support `V`'s instruction set.
#[cfg(test)]
pub(crate) unsafe fn check_operations<V: SimdU8>() {
    extern crate std;
    use std::vec::Vec;
    let a: Vec<u8> = (0..64u32).map(|i| (i * 37 + 11) as u8).collect();
    let b: Vec<u8> = (0..64u32).map(|i| (i * 91 + 200) as u8).collect();
    let n = V::LANES;
    // SAFETY: the caller guarantees the instruction set; every pointer
    // below has at least LANES readable bytes.
    unsafe {
        let same = |v: V, bytes: &[u8]| !v.xor(V::load(bytes.as_ptr())).any();
        let (va, vb) = (V::load(a.as_ptr()), V::load(b.as_ptr()));
        let map = |f: fn(u8, u8) -> u8| -> Vec<u8> { (0..n).map(|i| f(a[i], b[i])).collect() };
        assert!(same(va.or(vb), &map(|x, y| x | y)));
        assert!(same(va.and(vb), &map(|x, y| x & y)));
        assert!(same(va.and_not(vb), &map(|x, y| x & !y)));
        assert!(same(va.xor(vb), &map(|x, y| x ^ y)));
        assert!(same(va.min(vb), &map(|x, y| x.min(y))));
        assert!(same(
            va.signed_min(vb),
            &map(|x, y| (x as i8).min(y as i8) as u8)
        ));
        let b_like_a: Vec<u8> = (0..64)
            .map(|i| if i % 3 == 0 { a[i] } else { b[i] })
            .collect();
        let vc = V::load(b_like_a.as_ptr());
        let eq: Vec<u8> = (0..n)
            .map(|i| if a[i] == b_like_a[i] { 0xFF } else { 0 })
            .collect();
        assert!(same(va.eq(vc), &eq));
        let out = V::splat(0x5A);
        let masked: Vec<u8> = (0..n)
            .map(|i| {
                if a[i] == b_like_a[i] && b[i] & 0xF0 == 0xA0 {
                    0x5A
                } else {
                    0
                }
            })
            .collect();
        let select = va.select_eq2(vc, vb, V::splat(0xF0), V::splat(0xA0), out);
        assert!(same(select, &masked));
        // `sub_one_where_eq2`: lanes `4k` are selected (`ED`, then `A_`);
        // in groups of four lanes, `self` is 1, zero, or another value.
        let lead: Vec<u8> = (0..64)
            .map(|i| if i % 2 == 0 { 0xED } else { 0xEE })
            .collect();
        let other: Vec<u8> = (0..64u8)
            .map(|i| if i % 4 < 2 { 0xA0 | (i & 0x0F) } else { 0xB5 })
            .collect();
        let base: Vec<u8> = (0..64).map(|i| [0x01, 0x00, 0x37][(i / 4) % 3]).collect();
        let lessened = V::load(base.as_ptr()).sub_one_where_eq2(
            V::load(lead.as_ptr()),
            V::splat(0xED),
            V::load(other.as_ptr()),
            V::splat(0xF0),
            V::splat(0xA0),
            V::splat(1),
        );
        let expected: Vec<u8> = (0..n)
            .map(|i| base[i].wrapping_sub(u8::from(i % 4 == 0)))
            .collect();
        assert!(same(lessened, &expected));
        assert!(same(va.wrapping_add(vb), &map(|x, y| x.wrapping_add(y))));
        assert!(same(
            va.saturating_sub(vb),
            &map(|x, y| x.saturating_sub(y))
        ));
        assert!(same(va.high_nibbles(), &map(|x, _| x >> 4)));
        // `prev::<N>`: lane i holds the byte N before it in [b, a].
        let joined: Vec<u8> = b[..n].iter().chain(&a[..n]).copied().collect();
        assert!(same(va.prev::<1>(vb), &joined[n - 1..2 * n - 1]));
        assert!(same(va.prev::<2>(vb), &joined[n - 2..2 * n - 2]));
        assert!(same(va.prev::<3>(vb), &joined[n - 3..2 * n - 3]));
        assert!(same(va.prev::<4>(vb), &joined[n - 4..2 * n - 4]));
        assert!(same(va.prev::<5>(vb), &joined[n - 5..2 * n - 5]));
        let table: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(29) ^ 0x5A);
        let nibbles: Vec<u8> = a.iter().map(|x| x & 15).collect();
        let looked_up: Vec<u8> = nibbles.iter().map(|&i| table[i as usize]).collect();
        assert!(same(
            V::load(nibbles.as_ptr()).lookup(V::table(&table)),
            &looked_up
        ));
        // The nibble lookups on every byte value.
        let all: Vec<u8> = (0..=255).collect();
        for bytes in all.chunks(n) {
            let v = V::load(bytes.as_ptr());
            let high: Vec<u8> = bytes.iter().map(|&x| table[usize::from(x >> 4)]).collect();
            let low: Vec<u8> = bytes.iter().map(|&x| table[usize::from(x & 15)]).collect();
            assert!(same(v.lookup_high(V::table(&table)), &high));
            assert!(same(v.lookup_low(V::table(&table), V::splat(0x0F)), &low));
        }
        assert!(V::splat(0x7F).is_ascii() && !V::splat(0x80).is_ascii());
        assert!(!V::splat(0).any() && V::splat(1).any());
    }
}
