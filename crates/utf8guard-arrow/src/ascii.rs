//! Bulk tests that let a column skip its boundary checks.
//!
//! Most string columns are ASCII, and in ASCII bytes every byte is a
//! character boundary: a column whose covered bytes are all ASCII is valid
//! as soon as its layout is sound (offsets in order and inside the values;
//! views inside their buffers). [`ascii_prefix`] finds how far a buffer is
//! ASCII in one vector pass, and [`non_decreasing`] checks offsets in one
//! pass without a branch per offset; the callers fall back to the full
//! checks (with exact errors) from the first byte that is not ASCII.

/// Bytes tested at a time: the prefix found is a multiple of this, or the
/// whole input.
const BLOCK: usize = 256;

/// The length of the longest prefix of `bytes` made of whole blocks of
/// [`BLOCK`] ASCII bytes, or `bytes.len()` when every byte is ASCII. Every
/// byte before the returned position is ASCII.
pub(crate) fn ascii_prefix(bytes: &[u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU supports AVX-512BW (and so AVX-512F), just
            // detected; the function reads only inside `bytes`.
            return unsafe { ascii_prefix_avx512(bytes) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, just detected.
            return unsafe { ascii_prefix_avx2(bytes) };
        }
    }
    scan(bytes)
}

/// [`scan`] compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn ascii_prefix_avx512(bytes: &[u8]) -> usize {
    scan(bytes)
}

/// [`scan`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn ascii_prefix_avx2(bytes: &[u8]) -> usize {
    scan(bytes)
}

/// [`ascii_prefix`] in plain Rust, written for the compiler to vectorise:
/// the bytes of each block (an array of a fixed size) OR-ed together, then
/// the high bit tested.
#[inline(always)]
fn scan(bytes: &[u8]) -> usize {
    let (blocks, rest) = bytes.as_chunks::<BLOCK>();
    for (k, block) in blocks.iter().enumerate() {
        if block.iter().fold(0u8, |x, &b| x | b) >= 0x80 {
            return k * BLOCK;
        }
    }
    if rest.is_ascii() {
        bytes.len()
    } else {
        blocks.len() * BLOCK
    }
}

/// Whether the offsets never decrease: one comparison per pair, gathered
/// without a branch, a few thousand at a time.
pub(crate) fn non_decreasing<T: Copy + PartialOrd>(offsets: &[T]) -> bool {
    const PAIRS: usize = 4096;
    let mut from = 0;
    while from + 1 < offsets.len() {
        let to = (from + PAIRS + 1).min(offsets.len());
        let part = &offsets[from..to];
        let decreasing = part
            .iter()
            .zip(&part[1..])
            .fold(false, |any, (a, b)| any | (a > b));
        if decreasing {
            return false;
        }
        from = to - 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_stops_at_the_block_of_the_first_high_byte() {
        for len in [0, 1, 31, 255, 256, 257, 511, 512, 1000, 4096] {
            let ascii = vec![b'a'; len];
            assert_eq!(ascii_prefix(&ascii), len, "all ASCII, {len} bytes");
            assert_eq!(scan(&ascii), len);
            for at in [0, 1, len / 2, len.saturating_sub(1)] {
                if at >= len {
                    continue;
                }
                let mut bytes = ascii.clone();
                bytes[at] = 0x80;
                let expected = at / BLOCK * BLOCK;
                assert_eq!(ascii_prefix(&bytes), expected, "{len} bytes, 80 at {at}");
                assert_eq!(scan(&bytes), expected, "{len} bytes, 80 at {at}");
                bytes[at] = 0xFF;
                assert_eq!(ascii_prefix(&bytes), expected, "{len} bytes, FF at {at}");
            }
        }
    }

    #[test]
    fn offsets_in_order_or_not() {
        assert!(non_decreasing::<i32>(&[]));
        assert!(non_decreasing(&[5i32]));
        assert!(non_decreasing(&[0i64, 0, 3, 3, 9]));
        let mut long: Vec<i32> = (0..10_000).collect();
        assert!(non_decreasing(&long));
        // A decrease in every position, including across the parts.
        for at in [1, 4095, 4096, 4097, 8192, 9999] {
            long[at] = long[at - 1] - 1;
            assert!(!non_decreasing(&long), "decrease at {at}");
            long[at] = at as i32;
        }
        assert!(non_decreasing(&long));
    }
}
