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
    all(target_arch = "aarch64", target_feature = "neon")
))]
pub(crate) mod lookup;
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_feature = "neon")
))]
pub(crate) mod simd;

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod sse42;

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
pub(crate) mod neon;

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
