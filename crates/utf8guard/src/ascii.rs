//! Blocks of ASCII: the part of most text that every conversion copies (or
//! widens) unchanged.

/// The bytes tested at a time: four 8-byte words, whose union is tested
/// once, so that the test is short and the copy a fixed size.
pub(crate) const BLOCK: usize = 32;

const HIGH: u64 = 0x8080_8080_8080_8080;

/// The [`BLOCK`] bytes at `bytes[at..]`, if they are there, and how many
/// of them are ASCII before the first that is not. A caller copies the
/// whole block (one fixed-size copy) and keeps that many: in text where
/// short ASCII runs alternate with other characters, testing a block, then
/// going a byte at a time through the rest of it, cost more than the copy.
#[inline(always)]
pub(crate) fn run_at(bytes: &[u8], at: usize) -> Option<(&[u8; BLOCK], usize)> {
    let block: &[u8; BLOCK] = bytes.get(at..at + BLOCK)?.try_into().ok()?;
    let word = |k: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&block[8 * k..8 * k + 8]);
        u64::from_le_bytes(w) & HIGH
    };
    let words = [word(0), word(1), word(2), word(3)];
    if words.iter().fold(0, |any, w| any | w) == 0 {
        return Some((block, BLOCK));
    }
    let k = words.iter().position(|&w| w != 0).unwrap_or(0);
    // Little-endian: the lowest high bit is the first byte that is not
    // ASCII.
    Some((block, 8 * k + (words[k].trailing_zeros() / 8) as usize))
}
