//! The kernels: one generic SIMD algorithm ([`lookup`]) over a small vector
//! trait ([`simd`]), its instantiations per instruction set, the scalar
//! fallback, and [`locate`], which turns "the first bad block is here" into
//! an exact error.
//!
//! Every kernel has the same signature: `Ok(())` for valid input, or
//! `Err(offset)` where the bytes before `offset` are well formed apart from,
//! possibly, an unfinished character in their last 3 bytes.

pub(crate) mod scalar;

#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_feature = "neon"),
    all(target_arch = "wasm32", target_feature = "simd128")
))]
pub(crate) mod lookup;
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_feature = "neon"),
    all(target_arch = "wasm32", target_feature = "simd128")
))]
pub(crate) mod simd;

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;
#[cfg(target_arch = "x86_64")]
pub(crate) mod sse42;

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
pub(crate) mod neon;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub(crate) mod simd128;

use crate::error::Utf8Error;

/// Find the exact first error of `bytes`, given a kernel's `Err(offset)`.
///
/// Backs up from `offset` to the start of the character it may be inside
/// (at most 3 bytes), then runs the reference DFA from there; the DFA stops
/// at the first error, inside the block the kernel flagged. Returns `Ok` if
/// the DFA finds nothing, which would mean the kernel was wrong about an
/// error; the result is then still the truth, since the bytes before the
/// start were checked by the kernel and the rest by the DFA.
pub(crate) fn locate(bytes: &[u8], offset: usize) -> Result<(), Utf8Error> {
    let offset = offset.min(bytes.len());
    let mut start = offset;
    for back in 1..=offset.min(3) {
        let byte = bytes[offset - back];
        if byte >= 0xC0 {
            // A lead byte: a character starts here.
            start = offset - back;
            break;
        }
        if byte < 0x80 {
            // ASCII: the character after it starts at `offset`.
            break;
        }
    }
    match utf8guard_dfa::validate(&bytes[start..]) {
        Ok(()) => Ok(()),
        Err(invalid) => Err(Utf8Error::from_dfa(start, invalid)),
    }
}

/// Small enough for Miri: every available kernel on inputs of every length
/// up to a few blocks, each in an allocation of exactly its own size so
/// that a read past the end is caught.
#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use crate::Kernel;

    /// The vector kernels' block (where there are any, their `BLOCK`), and
    /// the scalar kernel's chunk: the lengths the tests probe around.
    const BLOCK: usize = 64;
    #[cfg(any(
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_feature = "neon"),
        all(target_arch = "wasm32", target_feature = "simd128")
    ))]
    const _: () = assert!(BLOCK == super::lookup::BLOCK);

    fn check_all_kernels(bytes: &[u8]) {
        let exact: Vec<u8> = bytes.to_vec();
        let expected = utf8guard_dfa::validate(&exact);
        for kernel in Kernel::available() {
            let got = kernel.from_utf8(&exact);
            match (got, expected) {
                (Ok(_), Ok(())) => {}
                (Err(e), Err(x)) => {
                    assert_eq!(e.valid_up_to(), x.valid_up_to, "{kernel} on {exact:02X?}");
                    assert_eq!(e.error_len(), x.error_len, "{kernel} on {exact:02X?}");
                }
                (got, _) => panic!("{kernel}: {got:?} vs {expected:?} on {exact:02X?}"),
            }
            assert_eq!(kernel.validate(&exact), expected.is_ok(), "{kernel}");
        }
        assert_eq!(crate::validate(&exact), expected.is_ok(), "dispatched");
    }

    #[test]
    fn kernels_enabled_at_compile_time_are_available() {
        // Under Miri, detection finds nothing; features enabled with
        // `-C target-feature` must still make their kernels run.
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        assert!(Kernel::Avx2.is_available());
        #[cfg(all(target_arch = "x86_64", target_feature = "sse4.2"))]
        assert!(Kernel::Sse42.is_available());
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        assert!(Kernel::Simd128.is_available());
        assert!(Kernel::Scalar.is_available());
    }

    #[test]
    fn vector_operations_match_their_definitions() {
        #[cfg(target_arch = "x86_64")]
        {
            if Kernel::Sse42.is_available() {
                // SAFETY: SSE4.2 was just detected.
                unsafe { super::simd::check_operations::<super::sse42::V128>() };
            }
            if Kernel::Avx2.is_available() {
                // SAFETY: AVX2 was just detected.
                unsafe { super::simd::check_operations::<super::avx2::V256>() };
            }
            if Kernel::Avx512.is_available() {
                // SAFETY: AVX-512F and BW were just detected.
                unsafe { super::simd::check_operations::<super::avx512::V512>() };
            }
        }
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        // SAFETY: NEON is enabled at compile time.
        unsafe {
            super::simd::check_operations::<super::neon::V128>()
        };
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: simd128 is enabled at compile time.
        unsafe {
            super::simd::check_operations::<super::simd128::V128>()
        };
    }

    #[test]
    fn every_length_up_to_three_blocks() {
        let text = "a€é😀".repeat(20);
        let text = text.as_bytes();
        let step = if cfg!(miri) { 7 } else { 1 };
        for len in (0..=3 * BLOCK + 3).step_by(step) {
            let len = len.min(text.len());
            check_all_kernels(&text[..len]);
            check_all_kernels(&std::vec![b'x'; len]);
        }
    }

    /// The lengths where the kernels change how they reach their bytes: a
    /// whole vector, a vector plus less than 3 bytes of look-behind for an
    /// overlapping last vector, a whole block, a block plus a tail too short
    /// for an overlapping last block. Every one of them under Miri too.
    #[test]
    fn lengths_at_vector_and_block_edges() {
        let text = "é€😀a".repeat(30);
        let text = text.as_bytes();
        let block = BLOCK;
        let mut lengths = std::vec::Vec::new();
        for edge in [16, 32, block, 2 * block, 4 * block] {
            lengths.extend(edge - 1..=edge + 4);
        }
        for len in lengths {
            check_all_kernels(&text[..len]);
            check_all_kernels(&std::vec![b'x'; len]);
            // An input that ends inside a character at that length.
            let mut cut = std::vec![b'y'; len];
            cut[len - 1] = 0xF0;
            check_all_kernels(&cut);
        }
    }

    #[test]
    fn errors_near_block_edges() {
        let base = std::vec![b'a'; 2 * BLOCK + 5];
        for at in [0, 1, 15, 16, 31, 32, 62, 63, 64, 65, 127, 128, 130, 132] {
            for bad in [&b"\xFF"[..], b"\xE2\x82", b"\xED\xA0\x80", b"\xF0\x9F\x98"] {
                let mut input = base.clone();
                let end = (at + bad.len()).min(input.len());
                input[at..end].copy_from_slice(&bad[..end - at]);
                check_all_kernels(&input);
                check_all_kernels(&input[..end]);
            }
        }
    }

    #[test]
    fn locate_backs_up_to_the_character_start() {
        // The kernel flags the block at 64; the 4-byte character started at 62.
        let mut input = std::vec![b'a'; 62];
        input.extend_from_slice(b"\xF0\x9F\x98");
        let err = super::locate(&input, 64).unwrap_err();
        assert_eq!((err.valid_up_to(), err.error_len()), (62, None));
    }
}
