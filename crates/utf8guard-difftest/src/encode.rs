//! Encoders for the dialects of the UTF-8 family: code points in, the
//! dialect's bytes out. The generators write text in each dialect with
//! them.
//!
//! These are the test side's own encoders, written from each dialect's
//! definition (the grammars of [`utf8guard_dfa::grammar`] and the
//! specifications they cite), not from the library's code:
//!
//! - **UTF-8**, **Unicode 3.1**, **RFC 2279**: the bit pattern of RFC 2279
//!   in shortest form (1 to 6 bytes). Unicode 3.1 and RFC 2279 encode
//!   surrogate code points like any other; a generator that wants Unicode
//!   3.1's "irregular" 6-byte pair pushes the two surrogates.
//! - **WTF-8**: as Unicode 3.1, except that a trail surrogate pushed right
//!   after a lead surrogate joins it: the two become the 4-byte form of
//!   their supplementary code point (WTF-8 never has a lead followed by a
//!   trail).
//! - **CESU-8**: a supplementary code point is its UTF-16 surrogate pair,
//!   each half in 3 bytes; surrogate code points alone are not encodable
//!   (CESU-8 has no lone surrogates).
//! - **Modified UTF-8**: CESU-8's pairs, U+0000 as `C0 80`, and lone
//!   surrogates in 3 bytes.
//! - **Corrected UTF-8**: the value minus the offset of its length, in the
//!   same bit pattern: 2 bytes for U+00A0..U+089F (offset `0xA0`), 3 bytes
//!   for U+08A0..U+D7FF (offset `0x8A0`) and U+E000..U+1109F (offset
//!   `0x10A0`, from `EC BD A0` on), 4 bytes from U+110A0 (offset
//!   `0x110A0`), 5 bytes from U+2110A0 (offset `0x2110A0`), 6 bytes from
//!   U+42110A0 (offset `0x42110A0`) up to U+8421109F. U+0000, the C1
//!   controls U+0080..U+009F and the surrogates are not encodable (the
//!   magic number and the reserved `FE`/`FF` runs are not code points:
//!   [`CORRECTED_MAGIC`] and [`reserved_run`]).
//!
//! ```
//! use utf8guard::Dialect;
//! use utf8guard_difftest::encode::encode;
//!
//! assert_eq!(encode(Dialect::Cesu8, &[0x1F600]), b"\xED\xA0\xBD\xED\xB8\x80");
//! assert_eq!(encode(Dialect::Mutf8, &[0]), b"\xC0\x80");
//! assert_eq!(encode(Dialect::Wtf8, &[0xD83D, 0xDE00]), "😀".as_bytes());
//! assert_eq!(encode(Dialect::Corrected, &[0xCF]), b"\xC0\xAF");
//! ```

use utf8guard::Dialect;

use crate::rng::Rng;

pub use utf8guard_dfa::grammar::CORRECTED_MAGIC;

/// The largest code point of RFC 2279.
pub const RFC2279_MAX: u32 = 0x7FFF_FFFF;

/// The largest code point of Corrected UTF-8.
pub const CORRECTED_MAX: u32 = 0x8421_109F;

/// Corrected UTF-8's ranges: first code point, last code point, length of
/// the sequences, offset subtracted before the bits are laid out.
const CORRECTED_RANGES: [(u32, u32, usize, u32); 7] = [
    (0x01, 0x7F, 1, 0),
    (0xA0, 0x89F, 2, 0xA0),
    (0x8A0, 0xD7FF, 3, 0x8A0),
    (0xE000, 0x1_109F, 3, 0x10A0),
    (0x1_10A0, 0x21_109F, 4, 0x1_10A0),
    (0x21_10A0, 0x421_109F, 5, 0x21_10A0),
    (0x421_10A0, CORRECTED_MAX, 6, 0x421_10A0),
];

/// `cp` is a UTF-16 surrogate, U+D800..U+DFFF.
pub const fn is_surrogate(cp: u32) -> bool {
    0xD800 <= cp && cp <= 0xDFFF
}

/// `cp` is a lead (high) surrogate, U+D800..U+DBFF.
pub const fn is_lead_surrogate(cp: u32) -> bool {
    0xD800 <= cp && cp <= 0xDBFF
}

/// `cp` is a trail (low) surrogate, U+DC00..U+DFFF.
pub const fn is_trail_surrogate(cp: u32) -> bool {
    0xDC00 <= cp && cp <= 0xDFFF
}

/// `true` when [`push`] can write `cp` in `dialect` on its own, as a
/// well-formed sequence.
///
/// ```
/// use utf8guard::Dialect;
/// use utf8guard_difftest::encode::can_encode;
///
/// assert!(can_encode(Dialect::Wtf8, 0xD800));
/// assert!(!can_encode(Dialect::Cesu8, 0xD800));
/// assert!(can_encode(Dialect::Rfc2279, 0x7FFF_FFFF));
/// assert!(!can_encode(Dialect::Corrected, 0x85));
/// ```
pub fn can_encode(dialect: Dialect, cp: u32) -> bool {
    match dialect {
        Dialect::Utf8 | Dialect::Cesu8 => cp <= 0x10_FFFF && !is_surrogate(cp),
        Dialect::Unicode31 | Dialect::Wtf8 | Dialect::Mutf8 => cp <= 0x10_FFFF,
        Dialect::Rfc2279 => cp <= RFC2279_MAX,
        Dialect::Corrected => CORRECTED_RANGES
            .iter()
            .any(|&(lo, hi, _, _)| lo <= cp && cp <= hi),
        _ => false,
    }
}

/// The bit pattern shared by the family: `value` in `len` bytes, the lead
/// byte's high bits saying the length, 6 bits per continuation byte.
/// `value` must fit (`len * 5 + 1` bits from 2 bytes on).
fn lay_out(value: u32, len: usize, out: &mut Vec<u8>) {
    if len == 1 {
        out.push(value as u8);
        return;
    }
    // The lead byte: `len` one bits, a zero, then the top bits of the value.
    let marker = !(0xFFu8 >> len);
    let shift = 6 * (len - 1);
    out.push(marker | (value >> shift) as u8);
    for k in (0..len - 1).rev() {
        out.push(0x80 | ((value >> (6 * k)) & 0x3F) as u8);
    }
}

/// The shortest length of RFC 2279's pattern that holds `cp`.
fn shortest_len(cp: u32) -> usize {
    match cp {
        0..=0x7F => 1,
        0x80..=0x7FF => 2,
        0x800..=0xFFFF => 3,
        0x1_0000..=0x1F_FFFF => 4,
        0x20_0000..=0x3FF_FFFF => 5,
        _ => 6,
    }
}

/// The two surrogates of a supplementary code point.
fn surrogate_pair(cp: u32) -> (u32, u32) {
    let v = cp - 0x1_0000;
    (0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF))
}

/// The code point whose surrogate pair is `lead`, `trail`.
fn combine(lead: u32, trail: u32) -> u32 {
    0x1_0000 + ((lead - 0xD800) << 10) + (trail - 0xDC00)
}

/// The lead surrogate that a WTF-8 text ends with, if it does: its last
/// three bytes are `ED A0..AF 80..BF` (`ED` is never a continuation byte,
/// so they are one sequence).
fn ends_with_lead_surrogate(out: &[u8]) -> Option<u32> {
    match *out {
        [.., 0xED, b1 @ 0xA0..=0xAF, b2 @ 0x80..=0xBF] => {
            Some(0xD000 | (u32::from(b1 & 0x3F) << 6) | u32::from(b2 & 0x3F))
        }
        _ => None,
    }
}

/// Append the encoding of `cp` in `dialect` to `out`, which holds text of
/// that dialect (in WTF-8, a trail surrogate joins a lead surrogate at the
/// end of `out` into one 4-byte sequence).
///
/// # Panics
/// If `cp` is not [encodable](can_encode) in `dialect`.
pub fn push(dialect: Dialect, cp: u32, out: &mut Vec<u8>) {
    assert!(
        can_encode(dialect, cp),
        "U+{cp:04X} is not encodable in {dialect}"
    );
    match dialect {
        Dialect::Cesu8 | Dialect::Mutf8 if cp >= 0x1_0000 => {
            let (lead, trail) = surrogate_pair(cp);
            lay_out(lead, 3, out);
            lay_out(trail, 3, out);
        }
        Dialect::Mutf8 if cp == 0 => out.extend_from_slice(&[0xC0, 0x80]),
        Dialect::Wtf8 if is_trail_surrogate(cp) => match ends_with_lead_surrogate(out) {
            Some(lead) => {
                out.truncate(out.len() - 3);
                lay_out(combine(lead, cp), 4, out);
            }
            None => lay_out(cp, 3, out),
        },
        Dialect::Corrected => {
            let &(_, _, len, offset) = CORRECTED_RANGES
                .iter()
                .find(|&&(lo, hi, _, _)| lo <= cp && cp <= hi)
                .expect("checked by can_encode");
            lay_out(cp - offset, len, out);
        }
        _ => lay_out(cp, shortest_len(cp), out),
    }
}

/// The code points `cps` in `dialect`, one after the other (see [`push`]).
///
/// # Panics
/// If one of them is not encodable in `dialect`.
pub fn encode(dialect: Dialect, cps: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(cps.len() * 3);
    for &cp in cps {
        push(dialect, cp, &mut out);
    }
    out
}

/// UTF-8 bytes re-encoded in `dialect`: each well-formed character is
/// written as the dialect writes it (characters it cannot encode, such as
/// U+0000 or a C1 control in Corrected UTF-8, are left out), each
/// ill-formed byte is copied as it is. For strict UTF-8 the result is the
/// input.
///
/// ```
/// use utf8guard::Dialect;
/// use utf8guard_difftest::encode::transcode;
///
/// let text = "a😀\0".as_bytes();
/// assert_eq!(transcode(Dialect::Cesu8, text), b"a\xED\xA0\xBD\xED\xB8\x80\0");
/// assert_eq!(transcode(Dialect::Mutf8, b"\xFFa\0"), b"\xFFa\xC0\x80");
/// ```
pub fn transcode(dialect: Dialect, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if can_encode(dialect, c as u32) {
                push(dialect, c as u32, &mut out);
            }
        }
        out.extend_from_slice(chunk.invalid());
    }
    out
}

/// A reserved run of Corrected UTF-8: `FE` or `FF`, then `len`
/// continuation bytes.
pub fn reserved_run(rng: &mut Rng, len: usize, out: &mut Vec<u8>) {
    out.push(rng.byte(0xFE, 0xFF));
    out.extend((0..len).map(|_| rng.byte(0x80, 0xBF)));
}

/// The code points at which each dialect's encoding changes length or
/// offset, or its repertoire ends: both sides of every edge, where the
/// dialect can encode them.
pub fn edges(dialect: Dialect) -> &'static [u32] {
    match dialect {
        Dialect::Utf8 | Dialect::Cesu8 => &[
            0x7F, 0x80, 0x7FF, 0x800, 0xFFF, 0x1000, 0xD7FF, 0xE000, 0xFFFF, 0x1_0000, 0x10_FFFF,
        ],
        Dialect::Unicode31 | Dialect::Wtf8 => &[
            0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xFFFF,
            0x1_0000, 0x10_FFFF,
        ],
        Dialect::Mutf8 => &[
            0x00, 0x01, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xFFFF,
            0x1_0000, 0x10_FFFF,
        ],
        Dialect::Rfc2279 => &[
            0x7F,
            0x80,
            0x7FF,
            0x800,
            0xD800,
            0xDFFF,
            0xFFFF,
            0x1_0000,
            0x10_FFFF,
            0x11_0000,
            0x1F_FFFF,
            0x20_0000,
            0x3FF_FFFF,
            0x400_0000,
            RFC2279_MAX,
        ],
        Dialect::Corrected => &[
            0x01,
            0x7F,
            0xA0,
            0x89F,
            0x8A0,
            0xD7FF,
            0xE000,
            0x1_109F,
            0x1_10A0,
            0x21_109F,
            0x21_10A0,
            0x421_109F,
            0x421_10A0,
            CORRECTED_MAX,
        ],
        _ => &[],
    }
}

/// A random code point of `dialect` (encodable on its own), often at one of
/// its [`edges`], otherwise spread over its encoding lengths.
pub fn random_code_point(dialect: Dialect, rng: &mut Rng) -> u32 {
    loop {
        let cp = if rng.one_in(4) {
            *rng.pick(edges(dialect))
        } else {
            // A length, then a value of about that many bits.
            let top: u32 = match dialect {
                Dialect::Rfc2279 => RFC2279_MAX,
                Dialect::Corrected => CORRECTED_MAX,
                _ => 0x10_FFFF,
            };
            let bits = rng.range(7, 32 - top.leading_zeros() as usize);
            let hi = u64::from(top).min((1u64 << bits) - 1);
            rng.range(0, hi as usize) as u32
        };
        if can_encode(dialect, cp) {
            return cp;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn automaton(d: Dialect) -> &'static utf8guard_dfa::Automaton {
        utf8guard_dfa::ALL[Dialect::ALL.iter().position(|&x| x == d).unwrap()]
    }

    /// Every code point of a dialect's repertoire below `limit`, and a
    /// stride through the rest.
    fn repertoire(d: Dialect) -> impl Iterator<Item = u32> {
        let top = match d {
            Dialect::Rfc2279 => RFC2279_MAX,
            Dialect::Corrected => CORRECTED_MAX,
            _ => 0x10_FFFF,
        };
        (0..0x12_0000u32)
            .chain((0x12_0000..=top).step_by(997))
            .chain(edges(d).iter().copied())
            .filter(move |&cp| can_encode(d, cp))
    }

    #[test]
    fn every_encodable_code_point_is_one_well_formed_sequence() {
        for &d in Dialect::ALL {
            let a = automaton(d);
            for cp in repertoire(d) {
                let bytes = encode(d, &[cp]);
                assert!(a.is_valid(&bytes), "{d}: U+{cp:04X} as {bytes:02X?}");
                // One sequence (or one pair): no proper prefix is well
                // formed, but for modified UTF-8's pairs, two 3-byte
                // sequences there.
                let split = (1..bytes.len()).find(|&k| a.is_valid(&bytes[..k]));
                let pair = d == Dialect::Mutf8 && cp >= 0x1_0000;
                assert!(
                    split.is_none() || (pair && split == Some(3)),
                    "{d}: U+{cp:04X} as {bytes:02X?}"
                );
            }
        }
    }

    #[test]
    fn encodings_grow_with_the_code_point() {
        // Longer sequences for larger code points, and within a length the
        // byte strings in the order of their code points: no two code
        // points share an encoding, and with the counts of the ranges
        // every sequence of each shape is used (Corrected UTF-8's rule).
        for d in [Dialect::Utf8, Dialect::Rfc2279, Dialect::Corrected] {
            let mut last: Option<(usize, Vec<u8>)> = None;
            for cp in (0..0x12_0000).filter(|&cp| can_encode(d, cp)) {
                let bytes = encode(d, &[cp]);
                let key = (bytes.len(), bytes);
                if let Some(prev) = &last {
                    assert!(*prev < key, "{d}: U+{cp:04X}");
                }
                last = Some(key);
            }
        }
        // Corrected UTF-8: as many code points in 2 bytes as there are
        // 2-byte sequences (32 lead bytes, 64 continuation bytes), so with
        // the order above each sequence encodes exactly one.
        let twos = (0..0x1_0000)
            .filter(|&cp| can_encode(Dialect::Corrected, cp))
            .filter(|&cp| encode(Dialect::Corrected, &[cp]).len() == 2);
        assert_eq!(twos.count(), 32 * 64);
    }

    #[test]
    fn known_encodings() {
        let cases: &[(Dialect, &[u32], &[u8])] = &[
            (Dialect::Utf8, &[0x10_FFFF], b"\xF4\x8F\xBF\xBF"),
            (Dialect::Cesu8, &[0x1_0000], b"\xED\xA0\x80\xED\xB0\x80"),
            (Dialect::Cesu8, &[0x10_FFFF], b"\xED\xAF\xBF\xED\xBF\xBF"),
            (Dialect::Cesu8, &[0], b"\x00"),
            (Dialect::Mutf8, &[0, 0x41], b"\xC0\x80A"),
            (Dialect::Mutf8, &[0xD800], b"\xED\xA0\x80"),
            (Dialect::Mutf8, &[0x1F600], b"\xED\xA0\xBD\xED\xB8\x80"),
            (Dialect::Wtf8, &[0xD83D], b"\xED\xA0\xBD"),
            (Dialect::Wtf8, &[0xD83D, 0xDE00], b"\xF0\x9F\x98\x80"),
            (
                Dialect::Wtf8,
                &[0xDE00, 0xD83D],
                b"\xED\xB8\x80\xED\xA0\xBD",
            ),
            (
                Dialect::Wtf8,
                &[0xD83D, 0xD83D, 0xDE00],
                b"\xED\xA0\xBD\xF0\x9F\x98\x80",
            ),
            (
                Dialect::Unicode31,
                &[0xD83D, 0xDE00],
                b"\xED\xA0\xBD\xED\xB8\x80",
            ),
            (Dialect::Unicode31, &[0x1F600], "😀".as_bytes()),
            (Dialect::Rfc2279, &[0x20_0000], b"\xF8\x88\x80\x80\x80"),
            (Dialect::Rfc2279, &[0x400_0000], b"\xFC\x84\x80\x80\x80\x80"),
            (
                Dialect::Rfc2279,
                &[RFC2279_MAX],
                b"\xFD\xBF\xBF\xBF\xBF\xBF",
            ),
            (Dialect::Rfc2279, &[0x11_0000], b"\xF4\x90\x80\x80"),
            (Dialect::Rfc2279, &[0xDFFF], b"\xED\xBF\xBF"),
            // The rows of the Corrected UTF-8 specification's table, at
            // both ends.
            (Dialect::Corrected, &[0x7F], b"\x7F"),
            (Dialect::Corrected, &[0xA0], b"\xC0\x80"),
            (Dialect::Corrected, &[0x89F], b"\xDF\xBF"),
            (Dialect::Corrected, &[0x8A0], b"\xE0\x80\x80"),
            (Dialect::Corrected, &[0xD7FF], b"\xEC\xBD\x9F"),
            (Dialect::Corrected, &[0xE000], b"\xEC\xBD\xA0"),
            (Dialect::Corrected, &[0x1_109F], b"\xEF\xBF\xBF"),
            (Dialect::Corrected, &[0x1_10A0], b"\xF0\x80\x80\x80"),
            (Dialect::Corrected, &[0x21_109F], b"\xF7\xBF\xBF\xBF"),
            (Dialect::Corrected, &[0x21_10A0], b"\xF8\x80\x80\x80\x80"),
            (Dialect::Corrected, &[0x421_109F], b"\xFB\xBF\xBF\xBF\xBF"),
            (
                Dialect::Corrected,
                &[0x421_10A0],
                b"\xFC\x80\x80\x80\x80\x80",
            ),
            (
                Dialect::Corrected,
                &[CORRECTED_MAX],
                b"\xFD\xBF\xBF\xBF\xBF\xBF",
            ),
            // The specification's example, and the first six bytes of its
            // magic number (U+10E7D U+ED4E, then U+0000 U+000A, whose
            // U+0000 is no character of Corrected UTF-8).
            (Dialect::Corrected, &[0xCF], b"\xC0\xAF"),
            (
                Dialect::Corrected,
                &[0x1_0E7D, 0xED4E],
                &CORRECTED_MAGIC[..6],
            ),
        ];
        for &(d, cps, bytes) in cases {
            assert_eq!(encode(d, cps), bytes, "{d}: {cps:X?}");
        }
    }

    #[test]
    fn repertoires() {
        for cp in [0, 0x80, 0x9F, 0xD800, 0xDFFF, CORRECTED_MAX + 1] {
            assert!(!can_encode(Dialect::Corrected, cp), "U+{cp:04X}");
        }
        assert!(!can_encode(Dialect::Utf8, 0xD800));
        assert!(!can_encode(Dialect::Cesu8, 0xDC00));
        assert!(!can_encode(Dialect::Wtf8, 0x11_0000));
        assert!(!can_encode(Dialect::Rfc2279, 0x8000_0000));
        assert!(can_encode(Dialect::Mutf8, 0));
        for &d in Dialect::ALL {
            assert!(edges(d).iter().all(|&cp| can_encode(d, cp)), "{d}");
        }
    }

    #[test]
    fn transcoding_keeps_ill_formed_bytes_and_drops_what_cannot_be_written() {
        let bytes = b"x\xF0\x9F\x98\x80\xC2\x85\xFF\x00";
        assert_eq!(transcode(Dialect::Utf8, bytes), bytes);
        assert_eq!(transcode(Dialect::Wtf8, bytes), bytes);
        assert_eq!(
            transcode(Dialect::Cesu8, bytes),
            b"x\xED\xA0\xBD\xED\xB8\x80\xC2\x85\xFF\x00"
        );
        // U+1F600 is 0x1F600 - 0x110A0 in 4 bytes; U+0085 and U+0000 are
        // left out.
        assert_eq!(
            transcode(Dialect::Corrected, bytes),
            b"x\xF0\x8E\x95\xA0\xFF"
        );
    }

    #[test]
    fn random_code_points_are_encodable_and_reach_every_length() {
        let mut rng = Rng::new(5);
        for &d in Dialect::ALL {
            let mut lens = [0usize; 7];
            for _ in 0..5000 {
                let cp = random_code_point(d, &mut rng);
                lens[encode(d, &[cp]).len()] += 1;
            }
            let longest = match d {
                Dialect::Rfc2279 | Dialect::Corrected => 6,
                Dialect::Cesu8 | Dialect::Mutf8 => 6,
                _ => 4,
            };
            for len in 1..=longest {
                if matches!(d, Dialect::Cesu8 | Dialect::Mutf8) && (len == 4 || len == 5) {
                    continue;
                }
                assert!(lens[len] > 20, "{d}: {lens:?}");
            }
        }
    }
}
