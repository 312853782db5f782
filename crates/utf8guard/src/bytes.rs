//! What a byte is in UTF-8, for the code that moves over text a byte at a
//! time: a continuation byte or not, and the length of the character a lead
//! byte starts.

/// `true` for a continuation byte, `80..BF`.
#[inline(always)]
pub(crate) fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// The length of the character that `lead` starts, for a lead byte of a
/// well-formed multi-byte character.
#[inline]
pub(crate) fn char_width(lead: u8) -> usize {
    match lead {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}
