//! Ways to break valid text: the malformation classes of UTF-8, the
//! sequences that divide the dialects of the family ([`Foreign`]), and the
//! mutations that put them (or plain damage) at chosen positions.

use utf8guard::Dialect;

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

/// A sequence that is well formed in some dialects of the family and ill
/// formed in others: inserted into text of one dialect, it is either text
/// of that dialect across the boundaries (its kernels' well-formed paths)
/// or the dialect's own kind of error.
///
/// ```
/// use utf8guard::Dialect;
/// use utf8guard_difftest::{Foreign, Rng};
///
/// let pair = Foreign::SurrogatePair.bytes(&mut Rng::new(1));
/// assert!(utf8guard_dfa::CESU8.is_valid(&pair));
/// assert!(!utf8guard_dfa::WTF8.is_valid(&pair));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Foreign {
    /// A lead surrogate alone, `ED A0..AF 80..BF`: well formed in Unicode
    /// 3.1, WTF-8, modified UTF-8 and RFC 2279; half a pair in CESU-8.
    LeadSurrogate,
    /// A trail surrogate alone, `ED B0..BF 80..BF`.
    TrailSurrogate,
    /// A lead surrogate then a trail: CESU-8's form of a supplementary
    /// character, Unicode 3.1's "irregular" one, WTF-8's error.
    SurrogatePair,
    /// A trail surrogate then a lead: two lone surrogates.
    ReversedPair,
    /// The byte `00`: ill formed in modified and Corrected UTF-8.
    Nul,
    /// `C0 80`: U+0000 in modified UTF-8, U+00A0 in Corrected UTF-8, an
    /// overlong form elsewhere.
    OverlongNul,
    /// `C0 81..BF` or `C1 80..BF`: overlong in modified UTF-8, characters
    /// of Corrected UTF-8.
    C0C1Pair,
    /// A 4-byte character up to U+10FFFF (`F0..F4`): ill formed in CESU-8
    /// and modified UTF-8.
    FourByte,
    /// A 4-byte sequence above U+10FFFF (`F4 90..BF` or `F5..F7`): RFC
    /// 2279 and Corrected UTF-8 only.
    FourByteAbove,
    /// A 5-byte sequence `F8..FB` + 4 continuation bytes, its second byte
    /// often at an edge (`F8 80..87` is overlong in RFC 2279).
    FiveByte,
    /// A 6-byte sequence `FC..FD` + 5 continuation bytes, its second byte
    /// often at an edge (`FC 80..83` is overlong in RFC 2279).
    SixByte,
    /// `FE` or `FF` and 0 to 8 (sometimes up to 150) continuation bytes:
    /// a reserved run in Corrected UTF-8, ill formed elsewhere.
    ReservedRun,
    /// Corrected UTF-8's magic number: anywhere but at offset 0, its `00`
    /// is an error there too.
    Magic,
}

impl Foreign {
    /// Every class.
    pub const ALL: &'static [Foreign] = &[
        Foreign::LeadSurrogate,
        Foreign::TrailSurrogate,
        Foreign::SurrogatePair,
        Foreign::ReversedPair,
        Foreign::Nul,
        Foreign::OverlongNul,
        Foreign::C0C1Pair,
        Foreign::FourByte,
        Foreign::FourByteAbove,
        Foreign::FiveByte,
        Foreign::SixByte,
        Foreign::ReservedRun,
        Foreign::Magic,
    ];

    /// A short name for reports.
    pub const fn name(self) -> &'static str {
        match self {
            Foreign::LeadSurrogate => "lead-surrogate",
            Foreign::TrailSurrogate => "trail-surrogate",
            Foreign::SurrogatePair => "surrogate-pair",
            Foreign::ReversedPair => "reversed-pair",
            Foreign::Nul => "nul",
            Foreign::OverlongNul => "c0-80",
            Foreign::C0C1Pair => "c0-c1-pair",
            Foreign::FourByte => "four-byte",
            Foreign::FourByteAbove => "four-byte-above-10ffff",
            Foreign::FiveByte => "five-byte",
            Foreign::SixByte => "six-byte",
            Foreign::ReservedRun => "reserved-run",
            Foreign::Magic => "magic-number",
        }
    }

    /// One random instance of the class.
    pub fn bytes(self, rng: &mut Rng) -> Vec<u8> {
        let cont = |rng: &mut Rng| rng.byte(0x80, 0xBF);
        let lead = |rng: &mut Rng| [0xED, rng.byte(0xA0, 0xAF), cont(rng)];
        let trail = |rng: &mut Rng| [0xED, rng.byte(0xB0, 0xBF), cont(rng)];
        // A second byte at an edge of a range, or any continuation byte.
        let second = |rng: &mut Rng, edges: &[u8]| {
            if rng.one_in(2) {
                *rng.pick(edges)
            } else {
                cont(rng)
            }
        };
        let mut v = Vec::with_capacity(8);
        match self {
            Foreign::LeadSurrogate => v.extend(lead(rng)),
            Foreign::TrailSurrogate => v.extend(trail(rng)),
            Foreign::SurrogatePair => {
                v.extend(lead(rng));
                v.extend(trail(rng));
            }
            Foreign::ReversedPair => {
                v.extend(trail(rng));
                v.extend(lead(rng));
            }
            Foreign::Nul => v.push(0),
            Foreign::OverlongNul => v.extend([0xC0, 0x80]),
            Foreign::C0C1Pair => {
                let first = rng.byte(0xC0, 0xC1);
                let low = if first == 0xC0 { 0x81 } else { 0x80 };
                v.extend([first, rng.byte(low, 0xBF)]);
            }
            Foreign::FourByte => {
                let c = loop {
                    let c = random_multibyte_char(rng);
                    if c.len_utf8() == 4 {
                        break c;
                    }
                };
                let mut buf = [0u8; 4];
                v.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            Foreign::FourByteAbove => {
                if rng.one_in(2) {
                    v.extend([0xF4, rng.byte(0x90, 0xBF)]);
                } else {
                    v.extend([rng.byte(0xF5, 0xF7), cont(rng)]);
                }
                v.extend([cont(rng), cont(rng)]);
            }
            Foreign::FiveByte => {
                v.extend([rng.byte(0xF8, 0xFB), second(rng, &[0x80, 0x87, 0x88, 0xBF])]);
                v.extend((0..3).map(|_| cont(rng)));
            }
            Foreign::SixByte => {
                v.extend([rng.byte(0xFC, 0xFD), second(rng, &[0x80, 0x83, 0x84, 0xBF])]);
                v.extend((0..4).map(|_| cont(rng)));
            }
            Foreign::ReservedRun => {
                let len = if rng.one_in(8) {
                    rng.range(9, 150)
                } else {
                    rng.range(0, 8)
                };
                crate::encode::reserved_run(rng, len, &mut v);
            }
            Foreign::Magic => v.extend_from_slice(&crate::encode::CORRECTED_MAGIC),
        }
        v
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

/// A class of sequence to insert: a [`Malformation`] or a [`Foreign`]
/// sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    /// Ill formed in strict UTF-8.
    Malformed(Malformation),
    /// Well formed in some dialects only.
    Foreign(Foreign),
}

impl Piece {
    /// One random instance of the class.
    pub fn bytes(self, rng: &mut Rng) -> Vec<u8> {
        match self {
            Piece::Malformed(m) => m.bytes(rng),
            Piece::Foreign(f) => f.bytes(rng),
        }
    }

    /// A random class: any malformation, or in the dialects other than
    /// strict UTF-8, as often a foreign sequence.
    pub fn random(dialect: Dialect, rng: &mut Rng) -> Piece {
        if dialect != Dialect::Utf8 && rng.one_in(2) {
            Piece::Foreign(*rng.pick(Foreign::ALL))
        } else {
            Piece::Malformed(*rng.pick(Malformation::ALL))
        }
    }
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
    round_in(Dialect::Utf8, base, rng)
}

/// [`round`] over text of `dialect`: in the dialects other than strict
/// UTF-8, every [`Foreign`] class is inserted too, as the malformation
/// classes are.
pub fn round_in(dialect: Dialect, base: &[u8], rng: &mut Rng) -> Vec<Mutation> {
    let foreign = if dialect == Dialect::Utf8 {
        &[][..]
    } else {
        Foreign::ALL
    };
    let mut out = Vec::new();
    let n = base.len();
    for r in 0..64usize {
        if r > n {
            break;
        }
        let blocks = (n - r) / 64;
        let at = 64 * rng.range(0, blocks) + r;
        let start = char_start(base, at);
        let classes = Malformation::ALL
            .iter()
            .map(|&m| Piece::Malformed(m))
            .chain(foreign.iter().map(|&f| Piece::Foreign(f)));
        for class in classes {
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
    fn foreign_sequences_divide_the_dialects_as_documented() {
        use utf8guard_dfa as dfa;
        let mut rng = Rng::new(8);
        let valid = |a: &dfa::Automaton, f: Foreign, rng: &mut Rng| {
            let bytes = f.bytes(rng);
            let mut text = b"ab".to_vec();
            text.extend_from_slice(&bytes);
            text.extend_from_slice(b"cd");
            (a.is_valid(&text), bytes)
        };
        // (class, the automata that accept it always, those that never do).
        let cases: &[(Foreign, &[&dfa::Automaton], &[&dfa::Automaton])] = &[
            (
                Foreign::LeadSurrogate,
                &[
                    &dfa::UNICODE_3_1,
                    &dfa::WTF8,
                    &dfa::MUTF8,
                    &dfa::RFC2279,
                    &dfa::CORRECTED,
                ],
                &[&dfa::UTF8, &dfa::CESU8],
            ),
            (
                Foreign::SurrogatePair,
                &[&dfa::UNICODE_3_1, &dfa::CESU8, &dfa::MUTF8, &dfa::RFC2279],
                &[&dfa::UTF8, &dfa::WTF8],
            ),
            (
                Foreign::ReversedPair,
                &[&dfa::UNICODE_3_1, &dfa::WTF8, &dfa::MUTF8],
                &[&dfa::UTF8, &dfa::CESU8],
            ),
            (
                Foreign::Nul,
                &[&dfa::UTF8, &dfa::CESU8, &dfa::RFC2279],
                &[&dfa::MUTF8, &dfa::CORRECTED],
            ),
            (
                Foreign::OverlongNul,
                &[&dfa::MUTF8, &dfa::CORRECTED],
                &[&dfa::UTF8, &dfa::CESU8, &dfa::RFC2279],
            ),
            (
                Foreign::C0C1Pair,
                &[&dfa::CORRECTED],
                &[&dfa::UTF8, &dfa::MUTF8, &dfa::RFC2279],
            ),
            (
                Foreign::FourByte,
                &[&dfa::UTF8, &dfa::WTF8, &dfa::RFC2279, &dfa::CORRECTED],
                &[&dfa::CESU8, &dfa::MUTF8],
            ),
            (
                Foreign::FourByteAbove,
                &[&dfa::RFC2279, &dfa::CORRECTED],
                &[&dfa::UTF8, &dfa::UNICODE_3_1, &dfa::CESU8],
            ),
            (
                Foreign::FiveByte,
                &[&dfa::CORRECTED],
                &[&dfa::UTF8, &dfa::WTF8, &dfa::MUTF8],
            ),
            (
                Foreign::SixByte,
                &[&dfa::CORRECTED],
                &[&dfa::UTF8, &dfa::CESU8, &dfa::MUTF8],
            ),
            (
                Foreign::ReservedRun,
                &[&dfa::CORRECTED],
                &[&dfa::UTF8, &dfa::RFC2279, &dfa::CESU8],
            ),
            (Foreign::Magic, &[], &[&dfa::CORRECTED, &dfa::UTF8]),
        ];
        for &(class, accept, reject) in cases {
            for _ in 0..200 {
                for a in accept {
                    let (ok, bytes) = valid(a, class, &mut rng);
                    assert!(ok, "{} rejects {class:?} {bytes:02X?}", a.grammar().name);
                }
                for a in reject {
                    let (ok, bytes) = valid(a, class, &mut rng);
                    assert!(!ok, "{} accepts {class:?} {bytes:02X?}", a.grammar().name);
                }
            }
        }
        // RFC 2279 takes the 5- and 6-byte forms but the overlong ones.
        let mut seen = [false; 2];
        for _ in 0..400 {
            for class in [Foreign::FiveByte, Foreign::SixByte] {
                let bytes = class.bytes(&mut rng);
                let overlong = matches!(bytes[..2], [0xF8, 0x80..=0x87] | [0xFC, 0x80..=0x83]);
                seen[usize::from(overlong)] = true;
                assert_eq!(dfa::RFC2279.is_valid(&bytes), !overlong, "{bytes:02X?}");
            }
        }
        assert_eq!(seen, [true, true]);
    }

    #[test]
    fn a_dialect_round_inserts_the_foreign_classes_too() {
        let base = Script::Mixed.generate(1, 1000);
        let strict = round(&base, &mut Rng::new(2));
        let dialect = round_in(Dialect::Cesu8, &base, &mut Rng::new(2));
        let inserts = |ms: &[Mutation]| {
            ms.iter()
                .filter(|m| matches!(m, Mutation::Insert { .. }))
                .count()
        };
        // Every residue gets every class, once or twice.
        let per_class = |ms: &[Mutation], classes: usize| {
            let n = inserts(ms);
            assert!((64 * classes..=128 * classes).contains(&n), "{n}");
        };
        per_class(&strict, Malformation::ALL.len());
        per_class(&dialect, Malformation::ALL.len() + Foreign::ALL.len());
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
