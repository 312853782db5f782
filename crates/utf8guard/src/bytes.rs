//! What a byte is in UTF-8, for the code that moves over text a byte at a
//! time: a continuation byte or not, and what a lead byte says of the
//! character it starts.
//!
//! The byte-at-a-time code reads Table 3-7 through [`LEADS`], which is
//! derived at compile time from the oracle's rows
//! ([`utf8guard_dfa::WELL_FORMED`]): the table is written once, there.

use utf8guard_dfa::{ByteRange, WELL_FORMED};

/// `true` for a continuation byte, `80..BF`.
#[inline(always)]
pub(crate) fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// What Table 3-7 says of a byte as the first of a sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lead {
    /// The length of the sequence it starts: 1 for ASCII, 2 to 4 for a lead
    /// byte, 0 for a byte that starts none (a continuation byte, `C0`, `C1`,
    /// `F5..FF`).
    pub(crate) width: u8,
    /// The range the second byte must be in (for a width of 2 or more). The
    /// bytes after it are any continuation bytes: every row says so, which
    /// the construction checks.
    pub(crate) second: ByteRange,
}

/// [`Lead`] for each byte value.
pub(crate) static LEADS: [Lead; 256] = leads(&WELL_FORMED);

/// The leads of a table of rows: each byte of a row's first range starts a
/// sequence of that row's length. Panics (at compile time) if two rows share
/// a lead byte or a row's third or fourth range is not `80..BF`, which the
/// code reading [`LEADS`] relies on.
const fn leads(rows: &[&[ByteRange]]) -> [Lead; 256] {
    let none = Lead {
        width: 0,
        second: (0, 0),
    };
    let mut table = [none; 256];
    let mut r = 0;
    while r < rows.len() {
        let row = rows[r];
        let mut k = 2;
        while k < row.len() {
            assert!(row[k].0 == 0x80 && row[k].1 == 0xBF);
            k += 1;
        }
        let second = if row.len() > 1 { row[1] } else { (0, 0) };
        let mut b = row[0].0 as usize;
        while b <= row[0].1 as usize {
            assert!(table[b].width == 0, "two rows start with one byte");
            table[b] = Lead {
                width: row.len() as u8,
                second,
            };
            b += 1;
        }
        r += 1;
    }
    table
}

/// The length of the character that `lead` starts, for a lead byte of a
/// well-formed multi-byte character.
#[inline]
pub(crate) fn char_width(lead: u8) -> usize {
    LEADS[usize::from(lead)].width as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte pair's verdict from [`LEADS`] is the oracle's: a lead
    /// followed by a byte in its second range starts a well-formed sequence
    /// (finished with continuation bytes), and any other pair does not.
    /// Under Miri, which checks for undefined behaviour rather than the
    /// table, every lead with a sample of the second bytes (the ranges'
    /// ends among them).
    #[test]
    fn leads_agree_with_the_oracle() {
        let every: [u8; 256] = core::array::from_fn(|b| b as u8);
        let sample = [0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF];
        let seconds: &[u8] = if cfg!(miri) { &sample } else { &every };
        for lead in 0..=255u8 {
            let info = LEADS[usize::from(lead)];
            if lead < 0x80 {
                assert_eq!(info.width, 1);
                continue;
            }
            for &second in seconds {
                let mut seq = [lead, second, 0x80, 0x80];
                let width = usize::from(info.width.max(2));
                let fits = info.width >= 2 && (info.second.0..=info.second.1).contains(&second);
                assert_eq!(
                    utf8guard_dfa::is_valid(&seq[..width]),
                    fits,
                    "{lead:02X} {second:02X}"
                );
                if fits {
                    seq[width - 1] = 0x41;
                    assert!(!utf8guard_dfa::is_valid(&seq[..width]));
                }
            }
        }
    }

    #[test]
    fn char_width_follows_the_lead() {
        assert_eq!(char_width(0xC3), 2);
        assert_eq!(char_width(0xE0), 3);
        assert_eq!(char_width(0xED), 3);
        assert_eq!(char_width(0xF4), 4);
    }
}
