//! Exhaustive short sequences: every sequence of 1, 2 and 3 bytes and every
//! 4-byte sequence whose first byte is `F0..F4`, each placed in valid text
//! at an offset next to a vector or block boundary.
//!
//! The sequences are numbered `0..TOTAL`: first the 256 one-byte sequences,
//! then the 65,536 two-byte ones, the 2^24 three-byte ones and the 5 * 2^24
//! four-byte ones, in lexicographic order within each length. A pass over
//! the whole space puts each sequence in one [`Placement`]; the placement
//! rotates with the sequence number and the pass, so consecutive sequences
//! (which differ in their last byte) land at different offsets and later
//! passes move every sequence on.
//!
//! 4-byte sequences with other first bytes (which the DFA rejects at the
//! first or second byte) are sampled at random by [`sample_other_four`],
//! and for the dialects with longer sequences, 5- and 6-byte sequences led
//! by `F8..FF` by [`sample_long`].
//!
//! In a dialect other than strict UTF-8 the same sequences are placed in
//! text of that dialect ([`Builder::build_in`]): the valid text before
//! them is made of the dialect's own characters (surrogate pairs, lone
//! surrogates, 5- and 6-byte characters, reserved runs), so that a
//! sequence meets each of them right before it.

use utf8guard::Dialect;

use crate::encode::{self, can_encode};
use crate::rng::Rng;

/// Number of 1-byte sequences.
const ONE: u64 = 1 << 8;
/// Number of 2-byte sequences.
const TWO: u64 = 1 << 16;
/// Number of 3-byte sequences.
const THREE: u64 = 1 << 24;
/// Number of 4-byte sequences starting with `F0..F4`.
const FOUR: u64 = 5 << 24;

/// Size of the exhaustive space: all 1- to 3-byte sequences and the 4-byte
/// sequences led by `F0..F4`.
pub const TOTAL: u64 = ONE + TWO + THREE + FOUR;

/// Index of the first sequence of each length, 1 to 4.
pub const FIRST_OF_LEN: [u64; 4] = [0, ONE, ONE + TWO, ONE + TWO + THREE];

/// The sequence number `index` (in `0..TOTAL`) of the exhaustive space.
///
/// ```
/// use utf8guard_difftest::exhaustive::{sequence, FIRST_OF_LEN, TOTAL};
///
/// assert_eq!(sequence(0).as_slice(), &[0x00]);
/// assert_eq!(sequence(FIRST_OF_LEN[1] + 0x1234).as_slice(), &[0x12, 0x34]);
/// assert_eq!(sequence(FIRST_OF_LEN[3]).as_slice(), &[0xF0, 0, 0, 0]);
/// assert_eq!(sequence(TOTAL - 1).as_slice(), &[0xF4, 0xFF, 0xFF, 0xFF]);
/// ```
pub fn sequence(index: u64) -> Sequence {
    let (len, n) = if index < FIRST_OF_LEN[1] {
        (1, index)
    } else if index < FIRST_OF_LEN[2] {
        (2, index - FIRST_OF_LEN[1])
    } else if index < FIRST_OF_LEN[3] {
        (3, index - FIRST_OF_LEN[2])
    } else {
        (4, index - FIRST_OF_LEN[3] + (0xF0 << 24))
    };
    let be = (n as u32).to_be_bytes();
    let mut bytes = [0u8; 6];
    bytes[..len].copy_from_slice(&be[4 - len..]);
    Sequence { bytes, len }
}

/// A short byte sequence, up to 6 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sequence {
    bytes: [u8; 6],
    len: usize,
}

impl Sequence {
    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// A random 4-byte sequence whose first byte is not `F0..F4`, with the
/// other bytes drawn mostly from the values where UTF-8's ranges change.
pub fn sample_other_four(rng: &mut Rng) -> Sequence {
    const EDGES: &[u8] = &[
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED,
        0xEF, 0xF0, 0xF4, 0xF5, 0xFF,
    ];
    let lead = loop {
        let b = rng.byte(0, 0xFF);
        if !(0xF0..=0xF4).contains(&b) {
            break b;
        }
    };
    let mut bytes = [lead, 0, 0, 0, 0, 0];
    for b in &mut bytes[1..4] {
        *b = if rng.one_in(2) {
            *rng.pick(EDGES)
        } else {
            rng.byte(0, 0xFF)
        };
    }
    Sequence { bytes, len: 4 }
}

/// A random 5- or 6-byte sequence led by `F8..FF`: the second byte mostly
/// at the edges of RFC 2279's narrowed ranges (`F8 88..`, `FC 84..`), the
/// others mostly continuation bytes, sometimes a byte that ends the
/// sequence early.
pub fn sample_long(rng: &mut Rng) -> Sequence {
    const SECOND: &[u8] = &[0x7F, 0x80, 0x83, 0x84, 0x87, 0x88, 0xBF, 0xC0];
    const OTHER: &[u8] = &[0x00, 0x41, 0x7F, 0xC0, 0xED, 0xF8, 0xFE, 0xFF];
    let len = rng.range(5, 6);
    let mut bytes = [rng.byte(0xF8, 0xFF), 0, 0, 0, 0, 0];
    bytes[1] = if rng.one_in(2) {
        *rng.pick(SECOND)
    } else {
        rng.byte(0x80, 0xBF)
    };
    for b in &mut bytes[2..len] {
        *b = if rng.one_in(6) {
            *rng.pick(OTHER)
        } else {
            rng.byte(0x80, 0xBF)
        };
    }
    Sequence { bytes, len }
}

/// What surrounds a sequence: how many bytes of valid text come before it,
/// which text, and what follows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Bytes of valid text before the sequence.
    pub offset: usize,
    /// What the text before is made of: 0 ASCII, 1 two-byte characters,
    /// 2 a mix of 2-, 3- and 4-byte characters (ASCII only where needed to
    /// make the length exact).
    pub filler: u8,
    /// What follows: 0 nothing (the sequence ends the input), 1 ASCII to
    /// the end of the 64-byte block, 2 ASCII to the end of the next block,
    /// 3 ASCII to the end of the fifth block after it (a run long enough
    /// for the kernels' multi-block ASCII steps).
    pub suffix: u8,
}

/// The offsets at which sequences are placed: the start of the input and,
/// for each boundary of a 16-, 32- and 64-byte vector or block, of the
/// second block, of a 256-byte run and of a 256-byte run after the first
/// block, the four offsets that make a sequence of up to 4 bytes straddle
/// it, the boundary itself and the offset after it.
pub const OFFSETS: &[usize] = &[
    0, 1, 2, 3, 12, 13, 14, 15, 16, 17, 28, 29, 30, 31, 32, 33, 60, 61, 62, 63, 64, 65, 124, 125,
    126, 127, 128, 129, 252, 253, 254, 255, 256, 257, 316, 317, 318, 319, 320, 321,
];

/// Number of suffix kinds (see [`Placement::suffix`]).
const SUFFIXES: u64 = 4;

/// Number of distinct placements.
pub const PLACEMENTS: u64 = OFFSETS.len() as u64 * SUFFIXES * 3;

/// The placement of sequence `index` in pass `pass`.
pub fn placement(index: u64, pass: u64) -> Placement {
    let p = (index + pass) % PLACEMENTS;
    let offsets = OFFSETS.len() as u64;
    Placement {
        offset: OFFSETS[(p % offsets) as usize],
        suffix: ((p / offsets) % SUFFIXES) as u8,
        filler: ((p / offsets / SUFFIXES) % 3) as u8,
    }
}

/// The units the text before a sequence is made of, per kind of filler
/// (see [`Placement::filler`]).
type Fillers = [Vec<Vec<u8>>; 3];

/// Builds the inputs of the exhaustive category.
#[derive(Debug, Default)]
pub struct Builder {
    buf: Vec<u8>,
    /// The filler units of each dialect met so far.
    fillers: Vec<(Dialect, Fillers)>,
}

impl Builder {
    /// A builder with an empty buffer.
    pub fn new() -> Builder {
        Builder::default()
    }

    /// `seq` at `placement`: valid text, the sequence, then the suffix.
    pub fn build(&mut self, seq: &[u8], placement: Placement) -> &[u8] {
        self.build_in(Dialect::Utf8, seq, placement)
    }

    /// `seq` at `placement` in text of `dialect`: the text before it is
    /// well formed in `dialect` ([`filler_units`]), the suffix is ASCII.
    pub fn build_in(&mut self, dialect: Dialect, seq: &[u8], placement: Placement) -> &[u8] {
        let k = match self.fillers.iter().position(|(d, _)| *d == dialect) {
            Some(k) => k,
            None => {
                self.fillers.push((dialect, filler_units(dialect)));
                self.fillers.len() - 1
            }
        };
        let units = &self.fillers[k].1[placement.filler as usize % 3];
        let buf = &mut self.buf;
        buf.clear();
        fill(buf, placement.offset, units);
        buf.extend_from_slice(seq);
        let end = match placement.suffix {
            0 => buf.len(),
            1 => (buf.len() / 64 + 1) * 64,
            2 => (buf.len() / 64 + 2) * 64,
            _ => (buf.len() / 64 + 6) * 64,
        };
        buf.resize(end, b'z');
        buf
    }
}

/// The units of the three kinds of filler in `dialect`: `a`; `é`; and a
/// mix of `é € 😀 ж 한 U+10FFFF` with what the dialect adds (a lone lead
/// surrogate and an irregular pair in Unicode 3.1; a lone lead and a lone
/// trail, never adjacent, in WTF-8; U+0000 and a lone surrogate in
/// modified UTF-8; surrogates and 4-, 5- and 6-byte characters above
/// U+10FFFF in RFC 2279; 5- and 6-byte characters and a reserved run in
/// Corrected UTF-8). Each unit is one or two sequences, well formed in
/// the dialect, and so is any cycle of them.
pub fn filler_units(dialect: Dialect) -> [Vec<Vec<u8>>; 3] {
    let one = |cps: &[u32]| -> Vec<Vec<u8>> {
        cps.iter()
            .filter(|&&cp| can_encode(dialect, cp))
            .map(|&cp| encode::encode(dialect, &[cp]))
            .collect()
    };
    let mut mixed = one(&[0xE9, 0x20AC, 0x1_F600, 0x436, 0xD55C, 0x10_FFFF]);
    match dialect {
        Dialect::Unicode31 => {
            mixed.extend(one(&[0xD800]));
            mixed.push(encode::encode(dialect, &[0xD83D, 0xDE00]));
        }
        // The lead and the trail apart, so that no lead comes right before
        // a trail, even when the units wrap around.
        Dialect::Wtf8 => {
            mixed.insert(3, encode::encode(dialect, &[0xDBFF]));
            mixed.insert(5, encode::encode(dialect, &[0xDC00]));
        }
        Dialect::Mutf8 => mixed.extend(one(&[0, 0xDBFF])),
        Dialect::Rfc2279 => mixed.extend(one(&[0xDFFF, 0x11_0000, 0x20_0000, 0x7FFF_FFFF])),
        Dialect::Corrected => {
            mixed.extend(one(&[0x21_10A0, encode::CORRECTED_MAX]));
            mixed.push(vec![0xFE, 0x80, 0xBF]);
        }
        _ => {}
    }
    [vec![b"a".to_vec()], one(&[0xE9]), mixed]
}

/// Append exactly `len` bytes of valid text made of `units` in turn.
fn fill(buf: &mut Vec<u8>, len: usize, units: &[Vec<u8>]) {
    let end = buf.len() + len;
    let mut k = 0;
    loop {
        let unit = &units[k % units.len()];
        if buf.len() + unit.len() > end {
            break;
        }
        buf.extend_from_slice(unit);
        k += 1;
    }
    buf.resize(end, b'a');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_space_is_numbered_without_gaps_or_overlaps() {
        assert_eq!(TOTAL, 256 + 65_536 + 16_777_216 + 83_886_080);
        assert_eq!(sequence(255).as_slice(), &[0xFF]);
        assert_eq!(sequence(256).as_slice(), &[0x00, 0x00]);
        assert_eq!(sequence(FIRST_OF_LEN[2] - 1).as_slice(), &[0xFF, 0xFF]);
        assert_eq!(sequence(FIRST_OF_LEN[2]).as_slice(), &[0, 0, 0]);
        assert_eq!(
            sequence(FIRST_OF_LEN[3] - 1).as_slice(),
            &[0xFF, 0xFF, 0xFF]
        );
        assert_eq!(
            sequence(FIRST_OF_LEN[3] + (1 << 24)).as_slice(),
            &[0xF1, 0, 0, 0]
        );
        assert_eq!(
            sequence(FIRST_OF_LEN[3] + 0x0312_3456).as_slice(),
            &[0xF3, 0x12, 0x34, 0x56]
        );
    }

    #[test]
    fn placements_put_the_sequence_where_they_say() {
        let mut builder = Builder::new();
        let mut seen = std::collections::HashSet::new();
        for index in 0..PLACEMENTS {
            let p = placement(index, 0);
            seen.insert((p.offset, p.filler, p.suffix));
            let input = builder.build(b"\xFF\xFE", p).to_vec();
            assert_eq!(&input[p.offset..p.offset + 2], b"\xFF\xFE");
            assert!(std::str::from_utf8(&input[..p.offset]).is_ok());
            let tail = &input[p.offset + 2..];
            assert!(tail.iter().all(|&b| b == b'z'));
            match p.suffix {
                0 => assert!(tail.is_empty()),
                1 => assert_eq!(input.len() % 64, 0),
                2 => assert!(input.len().is_multiple_of(64) && tail.len() >= 64),
                _ => assert!(input.len().is_multiple_of(64) && tail.len() >= 320),
            }
            if p.filler == 1 {
                let text = std::str::from_utf8(&input[..p.offset]).unwrap();
                assert_eq!(text.chars().filter(|&c| c == 'é').count(), p.offset / 2);
            }
        }
        assert_eq!(seen.len() as u64, PLACEMENTS);
        // The pass moves every sequence to another placement.
        assert_ne!(placement(5, 0), placement(5, 1));
    }

    #[test]
    fn placements_in_every_dialect_put_the_sequence_after_valid_text() {
        let mut builder = Builder::new();
        for &d in Dialect::ALL {
            let a = utf8guard_dfa::ALL[Dialect::ALL.iter().position(|&x| x == d).unwrap()];
            let units = filler_units(d);
            assert!(units.iter().flatten().all(|u| a.is_valid(u)), "{d}");
            for index in 0..PLACEMENTS {
                let p = placement(index, 3);
                let input = builder.build_in(d, b"\xFF\xFE", p).to_vec();
                assert_eq!(&input[p.offset..p.offset + 2], b"\xFF\xFE", "{d}");
                assert!(a.is_valid(&input[..p.offset]), "{d} {p:?}: {input:02X?}");
            }
            // The mixed filler reaches what only the dialect has.
            let p = Placement {
                offset: 321,
                filler: 2,
                suffix: 0,
            };
            let text = builder.build_in(d, b"", p).to_vec();
            let has = |lead: u8| text.contains(&lead);
            match d {
                Dialect::Cesu8 | Dialect::Mutf8 => assert!(!has(0xF0) && has(0xED)),
                Dialect::Rfc2279 => assert!(has(0xF8) && has(0xFD)),
                Dialect::Corrected => assert!(has(0xF8) && has(0xFD) && has(0xFE)),
                _ => assert!(has(0xF0)),
            }
        }
    }

    #[test]
    fn sampled_long_sequences_are_led_by_f8_to_ff() {
        let mut rng = Rng::new(6);
        let mut lens = [0usize; 7];
        for _ in 0..1000 {
            let s = sample_long(&mut rng);
            assert!(s.as_slice()[0] >= 0xF8);
            lens[s.as_slice().len()] += 1;
        }
        assert!(lens[5] > 400 && lens[6] > 400, "{lens:?}");
    }

    #[test]
    fn sampled_four_byte_sequences_avoid_the_exhaustive_leads() {
        let mut rng = Rng::new(4);
        for _ in 0..1000 {
            let s = sample_other_four(&mut rng);
            assert_eq!(s.as_slice().len(), 4);
            assert!(!(0xF0..=0xF4).contains(&s.as_slice()[0]));
        }
    }
}
