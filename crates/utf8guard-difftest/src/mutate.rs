//! Ways to break valid text: the malformation classes of UTF-8 and the
//! mutations that put them (or plain damage) at chosen positions.

use crate::rng::Rng;

/// A class of ill-formed byte sequence.
///
/// Inserted between two characters of valid text, each class makes the
/// input invalid at exactly the insertion point, for the reason
/// [`expected_fault`](Self::expected_fault) names.
///
/// ```
/// use utf8guard_difftest::{Malformation, Rng};
///
/// let mut rng = Rng::new(1);
/// let bytes = Malformation::Surrogate.bytes(&mut rng);
/// assert_eq!(&bytes[..1], b"\xED");
/// assert!((0xA0..=0xBF).contains(&bytes[1]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Malformation {
    /// One to three continuation bytes (`80..BF`) with no lead byte.
    StrayContinuation,
    /// `C0` or `C1` alone: bytes that can only start overlong forms.
    C0C1,
    /// A byte `F5..FF`, alone or followed by continuation bytes (the old
    /// 5- and 6-byte forms and code points above U+10FFFF).
    F5ToFF,
    /// `C0..C1 80..BF`: an ASCII character in two bytes.
    Overlong2,
    /// `E0 80..9F 80..BF`: a code point below U+0800 in three bytes.
    Overlong3,
    /// `F0 80..8F 80..BF 80..BF`: a code point below U+10000 in four bytes.
    Overlong4,
    /// `ED A0..BF 80..BF`: a UTF-16 surrogate.
    Surrogate,
    /// `F4 90..BF 80..BF 80..BF`: a code point above U+10FFFF.
    AboveMax,
    /// The first 1 to 3 bytes of a 2-, 3- or 4-byte character, without the
    /// rest.
    CutShort,
}

impl Malformation {
    /// Every class.
    pub const ALL: &'static [Malformation] = &[
        Malformation::StrayContinuation,
        Malformation::C0C1,
        Malformation::F5ToFF,
        Malformation::Overlong2,
        Malformation::Overlong3,
        Malformation::Overlong4,
        Malformation::Surrogate,
        Malformation::AboveMax,
        Malformation::CutShort,
    ];

    /// A short name for reports.
    pub const fn name(self) -> &'static str {
        match self {
            Malformation::StrayContinuation => "stray-continuation",
            Malformation::C0C1 => "c0-c1",
            Malformation::F5ToFF => "f5-ff",
            Malformation::Overlong2 => "overlong-2",
            Malformation::Overlong3 => "overlong-3",
            Malformation::Overlong4 => "overlong-4",
            Malformation::Surrogate => "surrogate",
            Malformation::AboveMax => "above-10ffff",
            Malformation::CutShort => "cut-short",
        }
    }

    /// One random instance of the class.
    pub fn bytes(self, rng: &mut Rng) -> Vec<u8> {
        let cont = |rng: &mut Rng| rng.byte(0x80, 0xBF);
        match self {
            Malformation::StrayContinuation => (0..rng.range(1, 3)).map(|_| cont(rng)).collect(),
            Malformation::C0C1 => vec![rng.byte(0xC0, 0xC1)],
            Malformation::F5ToFF => {
                let mut v = vec![rng.byte(0xF5, 0xFF)];
                for _ in 0..rng.range(0, 5) {
                    v.push(cont(rng));
                }
                v
            }
            Malformation::Overlong2 => vec![rng.byte(0xC0, 0xC1), cont(rng)],
            Malformation::Overlong3 => vec![0xE0, rng.byte(0x80, 0x9F), cont(rng)],
            Malformation::Overlong4 => vec![0xF0, rng.byte(0x80, 0x8F), cont(rng), cont(rng)],
            Malformation::Surrogate => vec![0xED, rng.byte(0xA0, 0xBF), cont(rng)],
            Malformation::AboveMax => vec![0xF4, rng.byte(0x90, 0xBF), cont(rng), cont(rng)],
            Malformation::CutShort => {
                let c = random_multibyte_char(rng);
                let mut buf = [0u8; 4];
                let full = c.encode_utf8(&mut buf).len();
                buf[..rng.range(1, full - 1)].to_vec()
            }
        }
    }

    /// The fault the reference DFA reports when an instance is inserted
    /// between two characters of valid text (for [`CutShort`](Self::CutShort):
    /// when a character start follows it; at the end of the input it is
    /// [`Fault::Incomplete`](utf8guard_dfa::Fault::Incomplete)).
    pub const fn expected_fault(self) -> utf8guard_dfa::Fault {
        use utf8guard_dfa::Fault;
        match self {
            Malformation::StrayContinuation => Fault::UnexpectedContinuation,
            Malformation::C0C1 | Malformation::F5ToFF | Malformation::Overlong2 => {
                Fault::InvalidByte
            }
            Malformation::Overlong3 | Malformation::Overlong4 => Fault::Overlong,
            Malformation::Surrogate => Fault::Surrogate,
            Malformation::AboveMax => Fault::TooLarge,
            Malformation::CutShort => Fault::TooShort,
        }
    }
}

/// A character of 2, 3 or 4 bytes, often at the edge of a row of Table 3-7.
pub fn random_multibyte_char(rng: &mut Rng) -> char {
    const RANGES: &[(u32, u32)] = &[
        (0x80, 0x7FF),
        (0x800, 0xFFF),
        (0x1000, 0xCFFF),
        (0xD000, 0xD7FF),
        (0xE000, 0xFFFF),
        (0x10000, 0x3FFFF),
        (0x40000, 0xFFFFF),
        (0x100000, 0x10FFFF),
    ];
    let (lo, hi) = *rng.pick(RANGES);
    let cp = match rng.below(4) {
        0 => lo,
        1 => hi,
        _ => lo + rng.below((hi - lo + 1) as usize) as u32,
    };
    char::from_u32(cp).unwrap_or('\u{FFFD}')
}

/// One change to an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mutation {
    /// Keep the bytes before `at`.
    Truncate {
        /// New length.
        at: usize,
    },
    /// Flip one bit of the byte at `at`.
    FlipBit {
        /// Position of the byte.
        at: usize,
        /// Bit number, 0 (lowest) to 7.
        bit: u8,
    },
    /// Remove `len` bytes starting at `at`.
    Delete {
        /// First byte removed.
        at: usize,
        /// How many (clamped to the input).
        len: usize,
    },
    /// Insert `bytes` before the byte at `at`.
    Insert {
        /// Where.
        at: usize,
        /// What.
        bytes: Vec<u8>,
    },
}

impl Mutation {
    /// The mutated copy of `base`. Positions past the end are clamped.
    ///
    /// ```
    /// use utf8guard_difftest::Mutation;
    ///
    /// let m = Mutation::Insert { at: 2, bytes: vec![0x80] };
    /// assert_eq!(m.apply(b"abcd"), b"ab\x80cd");
    /// assert_eq!(Mutation::FlipBit { at: 0, bit: 7 }.apply(b"a"), b"\xE1");
    /// ```
    pub fn apply(&self, base: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        self.apply_into(base, &mut out);
        out
    }

    /// [`apply`](Self::apply) into a reused buffer.
    pub fn apply_into(&self, base: &[u8], out: &mut Vec<u8>) {
        out.clear();
        match *self {
            Mutation::Truncate { at } => out.extend_from_slice(&base[..at.min(base.len())]),
            Mutation::FlipBit { at, bit } => {
                out.extend_from_slice(base);
                if let Some(b) = out.get_mut(at) {
                    *b ^= 1 << (bit & 7);
                }
            }
            Mutation::Delete { at, len } => {
                let at = at.min(base.len());
                let end = at.saturating_add(len).min(base.len());
                out.extend_from_slice(&base[..at]);
                out.extend_from_slice(&base[end..]);
            }
            Mutation::Insert { at, ref bytes } => {
                let at = at.min(base.len());
                out.extend_from_slice(&base[..at]);
                out.extend_from_slice(bytes);
                out.extend_from_slice(&base[at..]);
            }
        }
    }
}

/// The start of the character that contains `bytes[at]`, in valid UTF-8:
/// `at` itself when it is a character boundary.
pub fn char_start(bytes: &[u8], at: usize) -> usize {
    let mut at = at.min(bytes.len());
    while at > 0 && at < bytes.len() && (0x80..0xC0).contains(&bytes[at]) {
        at -= 1;
    }
    at
}

/// The mutations of one round over `base` (normally valid text of several
/// blocks): for every residue `r` of a position modulo 64, a position
/// `64k + r` in `base`, and at it every malformation class inserted (at the
/// raw position and, when that is inside a character, at the character's
/// start), a truncation, a bit flip (the bit cycles with `r`) and a
/// deletion of 1 to 3 bytes. Inputs shorter than a block still get every
/// residue that exists.
///
/// Because an inserted sequence of up to 6 bytes may start at any residue,
/// it lands across the 16-, 32- and 64-byte vector boundaries and in the
/// first, middle and last blocks alike.
pub fn round(base: &[u8], rng: &mut Rng) -> Vec<Mutation> {
    let mut out = Vec::new();
    let n = base.len();
    for r in 0..64usize {
        if r > n {
            break;
        }
        let blocks = (n - r) / 64;
        let at = 64 * rng.range(0, blocks) + r;
        let start = char_start(base, at);
        for &class in Malformation::ALL {
            out.push(Mutation::Insert {
                at,
                bytes: class.bytes(rng),
            });
            if start != at {
                out.push(Mutation::Insert {
                    at: start,
                    bytes: class.bytes(rng),
                });
            }
        }
        out.push(Mutation::Truncate { at });
        if at < n {
            out.push(Mutation::FlipBit {
                at,
                bit: (r % 8) as u8,
            });
            out.push(Mutation::Delete {
                at,
                len: rng.range(1, 3),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Script;
    use utf8guard_dfa::{validate, Fault};

    #[test]
    fn each_class_breaks_text_exactly_where_it_is_inserted() {
        let mut rng = Rng::new(21);
        for &script in Script::ALL {
            let base = script.generate(3, 300);
            for &class in Malformation::ALL {
                for _ in 0..50 {
                    // A character boundary, not the end.
                    let at = char_start(&base, rng.below(base.len()));
                    let bytes = class.bytes(&mut rng);
                    let input = Mutation::Insert {
                        at,
                        bytes: bytes.clone(),
                    }
                    .apply(&base);
                    let err = validate(&input).unwrap_err();
                    assert_eq!(err.valid_up_to, at, "{class:?} {bytes:02X?}");
                    assert_eq!(err.fault, class.expected_fault(), "{class:?} {bytes:02X?}");
                    let len = match class {
                        Malformation::CutShort => bytes.len(),
                        _ => 1,
                    };
                    assert_eq!(err.error_len, Some(len), "{class:?} {bytes:02X?}");
                }
                // At the end of the input.
                let bytes = class.bytes(&mut rng);
                let mut input = base.clone();
                input.extend_from_slice(&bytes);
                let err = validate(&input).unwrap_err();
                assert_eq!(err.valid_up_to, base.len());
                if class == Malformation::CutShort {
                    assert_eq!((err.fault, err.error_len), (Fault::Incomplete, None));
                } else {
                    assert_eq!(err.fault, class.expected_fault(), "{bytes:02X?}");
                }
            }
        }
    }

    #[test]
    fn mutations_do_what_they_say() {
        let base = b"0123456789";
        assert_eq!(Mutation::Truncate { at: 3 }.apply(base), b"012");
        assert_eq!(Mutation::Truncate { at: 99 }.apply(base), base);
        assert_eq!(
            Mutation::FlipBit { at: 1, bit: 0 }.apply(base),
            b"0023456789"
        );
        assert_eq!(Mutation::FlipBit { at: 10, bit: 0 }.apply(base), base);
        assert_eq!(Mutation::Delete { at: 8, len: 3 }.apply(base), b"01234567");
        assert_eq!(Mutation::Delete { at: 0, len: 2 }.apply(base), b"23456789");
        let insert = Mutation::Insert {
            at: 10,
            bytes: b"\xC0".to_vec(),
        };
        assert_eq!(insert.apply(base), b"0123456789\xC0");
    }

    #[test]
    fn a_round_covers_every_residue_of_64() {
        let base = Script::Mixed.generate(1, 1000);
        let mut rng = Rng::new(2);
        let mutations = round(&base, &mut rng);
        let mut residues = [0usize; 64];
        for m in &mutations {
            if let Mutation::Insert { at, .. } = m {
                residues[at % 64] += 1;
            }
        }
        assert!(residues.iter().all(|&n| n >= Malformation::ALL.len()));
        let truncations = mutations
            .iter()
            .filter(|m| matches!(m, Mutation::Truncate { .. }))
            .count();
        assert_eq!(truncations, 64);
        // A short input gets the residues it has.
        let short = round(b"abc", &mut rng);
        let truncations = short
            .iter()
            .filter(|m| matches!(m, Mutation::Truncate { .. }))
            .count();
        assert_eq!(truncations, 4);
    }

    #[test]
    fn char_start_backs_up_to_the_lead_byte() {
        let s = "a€b".as_bytes();
        assert_eq!(char_start(s, 0), 0);
        assert_eq!(char_start(s, 1), 1);
        assert_eq!(char_start(s, 2), 1);
        assert_eq!(char_start(s, 3), 1);
        assert_eq!(char_start(s, 4), 4);
        assert_eq!(char_start(s, 5), 5);
    }
}
