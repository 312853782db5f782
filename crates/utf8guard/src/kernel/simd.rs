//! The few vector operations the lookup algorithm needs, as a trait that
//! each instruction set implements once (`sse42.rs`, `avx2.rs`, `neon.rs`).
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

    fn or(self, other: Self) -> Self;
    fn and(self, other: Self) -> Self;
    fn xor(self, other: Self) -> Self;
    /// Each byte shifted right by 4: its high nibble.
    fn high_nibbles(self) -> Self;
    /// Lane-wise table lookup: `table[self[i]]`, for indices below 16.
    fn lookup(self, table: Self) -> Self;
    /// Lane-wise unsigned saturating subtraction.
    fn saturating_sub(self, other: Self) -> Self;
    /// The vector shifted by `N` (1 to 3) bytes towards higher lanes, with
    /// the last `N` bytes of `prev` shifted in: lane `i` holds the byte
    /// that comes `N` bytes before lane `i` of `self` in the input.
    fn prev<const N: i32>(self, prev: Self) -> Self;
    /// `true` when no lane has its high bit set.
    fn is_ascii(self) -> bool;
    /// `true` when some lane is not zero.
    fn any(self) -> bool;
}
