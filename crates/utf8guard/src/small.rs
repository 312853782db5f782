//! The path for short inputs, the common case for parsers (keys, field
//! values): most are ASCII, and for them calling a kernel at all (a
//! dispatch, a block copy) would cost more than the check. Overlapping
//! word loads answer "all ASCII?" in a handful of instructions; anything
//! else goes to the kernel.

/// Inputs shorter than this take the short path first.
pub(crate) const SHORT: usize = 64;

const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_ne_bytes(w)
}

#[inline(always)]
fn half_word(bytes: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&bytes[at..at + 4]);
    u32::from_ne_bytes(w)
}

/// `true` when `bytes` is shorter than [`SHORT`] and all ASCII.
#[inline(always)]
pub(crate) fn is_short_ascii(bytes: &[u8]) -> bool {
    let len = bytes.len();
    if len >= SHORT {
        return false;
    }
    if len >= 8 {
        // Words at 0, 8, 16, ... and one ending exactly at the end; they
        // overlap when `len` is not a multiple of 8.
        let mut acc = word(bytes, len - 8);
        let mut at = 0;
        while at + 8 < len {
            acc |= word(bytes, at);
            at += 8;
        }
        acc & HIGH_BITS == 0
    } else if len >= 4 {
        (half_word(bytes, 0) | half_word(bytes, len - 4)) & 0x8080_8080 == 0
    } else {
        bytes.iter().fold(0, |acc, &b| acc | b) < 0x80
    }
}
