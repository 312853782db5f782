//! The length of a text in another encoding, for sizing a buffer before a
//! conversion: sums of a small number per byte or unit, without branches,
//! in short chunks whose sums fit in narrow lanes, so that the compiler
//! turns each into a vector loop.

/// Bytes summed in narrow lanes at a time: each term is at most 2, so the
/// chunk's sum fits in a byte.
const BYTE_CHUNK: usize = 127;

/// The sum of `term(b)` over `bytes`, where `term` is at most 2.
#[inline(always)]
pub(crate) fn sum_per_byte(bytes: &[u8], term: impl Fn(u8) -> u8) -> usize {
    bytes
        .chunks(BYTE_CHUNK)
        .map(|chunk| {
            let sum = chunk.iter().fold(0u8, |sum, &b| sum.wrapping_add(term(b)));
            usize::from(sum)
        })
        .sum()
}

/// Whether `b` starts a character (is not a continuation byte, `80`..`BF`).
#[inline(always)]
fn starts(b: u8) -> u8 {
    u8::from((b as i8) >= -0x40)
}

/// The number of UTF-16 units of `input`, valid UTF-8: one per character,
/// two for each of 4 bytes. Counted as one per byte that is not a
/// continuation byte plus one per byte from `F0`, which for ill-formed input
/// is no conversion's length (not that of the lossy one).
///
/// ```
/// assert_eq!(utf8guard::utf16_len_from_utf8("aé字😀".as_bytes()), 5);
/// ```
pub fn utf16_len_from_utf8(input: &[u8]) -> usize {
    sum_per_byte(input, |b| starts(b) + u8::from(b >= 0xF0))
}

/// The number of characters of `input`, valid UTF-8: its length in UTF-32.
/// Counted as the bytes that are not continuation bytes, which for
/// ill-formed input is no conversion's length (not that of the lossy one).
///
/// ```
/// assert_eq!(utf8guard::utf32_len_from_utf8("aé字😀".as_bytes()), 4);
/// ```
pub fn utf32_len_from_utf8(input: &[u8]) -> usize {
    sum_per_byte(input, starts)
}

/// Units summed at a time, in 32-bit lanes.
const UNIT_CHUNK: usize = 4096;

/// The number of bytes of `input`, potentially ill-formed UTF-16, in WTF-8
/// (UTF-8 if it is well formed): 1 to 3 per unit, a surrogate pair 4, a
/// lone surrogate 3. Exact for any input: it is the length
/// [`utf16_to_wtf8`](crate::utf16_to_wtf8) writes.
///
/// ```
/// // A pair, then a lone trail surrogate.
/// assert_eq!(utf8guard::utf8_len_from_utf16(&[0x61, 0xE9, 0xD83D, 0xDE00, 0xDC00]), 1 + 2 + 4 + 3);
/// ```
pub fn utf8_len_from_utf16(input: &[u16]) -> usize {
    let Some((&first, _)) = input.split_first() else {
        return 0;
    };
    // Each unit counts 1 to 3 (a surrogate 3), less 2 for each unit that
    // is a trail surrogate after a lead: the pair takes 4. A unit is never
    // both, so the pairs cannot overlap.
    let width = |u: u16| 1 + u16::from(u >= 0x80) + u16::from(u >= 0x800);
    let pairs =
        |(&a, &b): (&u16, &u16)| u16::from(a & 0xFC00 == 0xD800) & u16::from(b & 0xFC00 == 0xDC00);
    let mut total = usize::from(width(first));
    // Each unit after the first with the one before it.
    let mut at = 1;
    while at < input.len() {
        let end = input.len().min(at + UNIT_CHUNK);
        let (units, before) = (&input[at..end], &input[at - 1..end - 1]);
        let widths = units.iter().fold(0u32, |s, &u| s + u32::from(width(u)));
        let pairs = before
            .iter()
            .zip(units)
            .fold(0u32, |s, p| s + u32::from(pairs(p)));
        total += (widths - 2 * pairs) as usize;
        at = end;
    }
    total
}
