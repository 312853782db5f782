//! The scalar reference for utf8guard: for each dialect of the UTF-8
//! family, a byte-at-a-time automaton generated from the table of its
//! well-formed byte sequences.
//!
//! This crate is the oracle. Every SIMD kernel, every streaming or parallel
//! API, is tested against it (and, for strict UTF-8, against
//! `core::str::from_utf8`). It is written to be *obviously* right rather
//! than fast:
//!
//! * the only inputs are the tables of [`grammar`], one per dialect, each a
//!   transcription of its specification's table ([`WELL_FORMED`] is
//!   Unicode's Table 3-7), plus the few rules that are not rows, as data;
//! * each automaton ([`automaton`]) is built from its table by a `const fn`
//!   at compile time: a state is "these rows still match, `d` bytes read",
//!   so every state can be named in terms of the table;
//! * errors follow the *maximal subpart* rule that `core::str::from_utf8`
//!   implements: the error length is the number of bytes of the longest
//!   prefix of a well-formed sequence that was read before the offending
//!   byte (at least 1), or "none" when the input ends inside a sequence.
//!
//! No `unsafe`, `no_std`, no allocation.
//!
//! ```
//! use utf8guard_dfa::{validate, Fault};
//!
//! assert!(validate("grüße, 世界 🌍".as_bytes()).is_ok());
//!
//! // `ED A0 80` would be the surrogate U+D800: invalid after the lead byte.
//! let err = validate(b"ab\xED\xA0\x80").unwrap_err();
//! assert_eq!(err.valid_up_to, 2);
//! assert_eq!(err.error_len, Some(1));
//! assert_eq!(err.fault, Fault::Surrogate);
//!
//! // The same bytes are a lone surrogate, well formed in WTF-8.
//! assert!(utf8guard_dfa::WTF8.is_valid(b"ab\xED\xA0\x80"));
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod automaton;
pub mod grammar;

pub use automaton::{
    Automaton, Scan, ALL, CESU8, CORRECTED, MUTF8, RFC2279, UNICODE_3_1, UTF8, WTF8,
};

/// An inclusive range of byte values, `lo..=hi`.
pub type ByteRange = (u8, u8);

/// The well-formed UTF-8 byte sequences, one row per line of Unicode's
/// Table 3-7 (the rows of [`grammar::UTF8`]). A sequence is well formed
/// exactly when it matches one row, byte by byte.
///
/// | Code points        | 1st    | 2nd    | 3rd    | 4th    |
/// |--------------------|--------|--------|--------|--------|
/// | U+0000..U+007F     | 00..7F |        |        |        |
/// | U+0080..U+07FF     | C2..DF | 80..BF |        |        |
/// | U+0800..U+0FFF     | E0     | A0..BF | 80..BF |        |
/// | U+1000..U+CFFF     | E1..EC | 80..BF | 80..BF |        |
/// | U+D000..U+D7FF     | ED     | 80..9F | 80..BF |        |
/// | U+E000..U+FFFF     | EE..EF | 80..BF | 80..BF |        |
/// | U+10000..U+3FFFF   | F0     | 90..BF | 80..BF | 80..BF |
/// | U+40000..U+FFFFF   | F1..F3 | 80..BF | 80..BF | 80..BF |
/// | U+100000..U+10FFFF | F4     | 80..8F | 80..BF | 80..BF |
pub const WELL_FORMED: [&[ByteRange]; 9] = [
    &[(0x00, 0x7F)],
    &[(0xC2, 0xDF), (0x80, 0xBF)],
    &[(0xE0, 0xE0), (0xA0, 0xBF), (0x80, 0xBF)],
    &[(0xE1, 0xEC), (0x80, 0xBF), (0x80, 0xBF)],
    &[(0xED, 0xED), (0x80, 0x9F), (0x80, 0xBF)],
    &[(0xEE, 0xEF), (0x80, 0xBF), (0x80, 0xBF)],
    &[(0xF0, 0xF0), (0x90, 0xBF), (0x80, 0xBF), (0x80, 0xBF)],
    &[(0xF1, 0xF3), (0x80, 0xBF), (0x80, 0xBF), (0x80, 0xBF)],
    &[(0xF4, 0xF4), (0x80, 0x8F), (0x80, 0xBF), (0x80, 0xBF)],
];

/// A state of an automaton.
///
/// [`State::ACCEPT`] (the start) and [`State::REJECT`] (the sink entered on
/// an ill-formed byte) are the same in every [`Automaton`]; other states
/// are described by the automaton they belong to. The methods on `State`
/// itself step the strict UTF-8 automaton ([`UTF8`]), where every state
/// other than these two is "inside row `row()` of [`WELL_FORMED`],
/// `depth()` bytes read".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct State(pub(crate) u8);

/// How many states the strict UTF-8 automaton has (19 inner states plus
/// accept and reject).
pub const STATE_COUNT: usize = {
    const BUILT: automaton::Built = automaton::build(&grammar::UTF8);
    BUILT.count
};

impl State {
    /// Between characters: the start state. In strict UTF-8 the only
    /// accepting one.
    pub const ACCEPT: State = State(0);
    /// An ill-formed byte was seen. Stays here.
    pub const REJECT: State = State(1);

    /// The state's number in its automaton, below
    /// [`Automaton::state_count`].
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The state after reading `byte` in this state, in strict UTF-8.
    #[inline(always)]
    pub fn next(self, byte: u8) -> State {
        UTF8.next(self, byte)
    }

    /// The row of [`WELL_FORMED`] this strict UTF-8 state is inside, if any.
    pub fn row(self) -> Option<usize> {
        // Each inner state of strict UTF-8 is inside one row: the rows'
        // lead byte ranges are disjoint.
        match UTF8.rows_matched(self) {
            0 => None,
            rows => Some(rows.trailing_zeros() as usize),
        }
    }

    /// How many bytes of the current sequence have been read (0 between
    /// characters and in the reject state), in strict UTF-8.
    #[inline]
    pub fn depth(self) -> usize {
        UTF8.depth(self)
    }

    /// The byte values that may come next without rejecting (`None` between
    /// characters, where the lead byte ranges of every row apply), in strict
    /// UTF-8.
    pub fn expected(self) -> Option<ByteRange> {
        self.row().map(|r| WELL_FORMED[r][self.depth()])
    }
}

/// Why a sequence is ill formed.
///
/// The classification is made at the byte that made the automaton reject,
/// from the bytes of the sequence read so far (see [`Automaton::fault`] and
/// [`grammar::Grammar::faults`]).
///
/// Exhaustive on purpose: the engine maps each fault to its `ErrorKind`
/// with a `match` that a new fault must fail to compile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fault {
    /// A continuation byte (`80..BF`) where a character must start.
    UnexpectedContinuation,
    /// A byte that never starts a sequence in this dialect: in strict UTF-8
    /// `C0`, `C1` (they could only start overlong 2-byte forms) or `F5..FF`
    /// (above U+10FFFF, or 5- and 6-byte forms).
    InvalidByte,
    /// An overlong form: in strict UTF-8 `E0 80..9F` or `F0 80..8F` (the
    /// value fits in fewer bytes).
    Overlong,
    /// A UTF-16 surrogate, U+D800..U+DFFF: `ED A0..BF`, in a dialect that
    /// has none.
    Surrogate,
    /// A code point above U+10FFFF: `F4 90..BF`.
    TooLarge,
    /// A multi-byte sequence interrupted by a byte that is not a
    /// continuation byte (ASCII or another lead byte).
    TooShort,
    /// The input ends inside a multi-byte sequence.
    Incomplete,
    /// A `00` byte, in a dialect without one (modified UTF-8 writes U+0000
    /// as `C0 80`; Corrected UTF-8 has it only in its magic number).
    Nul,
    /// A surrogate that must be half of a pair and is not: in CESU-8, a lead
    /// surrogate not followed by a trail, or a trail with no lead before it.
    LoneSurrogate,
    /// A lead surrogate followed by a trail surrogate, in WTF-8, where that
    /// pair must be the 4-byte form of its code point.
    SurrogatePair,
    /// A 4-byte form (`F0..F4`), in CESU-8 or modified UTF-8, where a
    /// supplementary code point is a surrogate pair.
    FourByteForm,
}

/// The first ill-formed sequence of an input, as `core::str::from_utf8`
/// would report it, with its cause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Invalid {
    /// Length of the longest well-formed prefix of the input.
    pub valid_up_to: usize,
    /// Length of the maximal subpart that is invalid (1 to 5), or `None`
    /// when the input ends inside a sequence.
    pub error_len: Option<usize>,
    /// Why it is invalid.
    pub fault: Fault,
}

/// Run the strict UTF-8 automaton over `bytes`, starting between
/// characters, and report the first ill-formed sequence.
///
/// For every input the result is the same as `core::str::from_utf8`:
/// `Ok(())` exactly when that returns `Ok`, and otherwise the same
/// `valid_up_to` and `error_len`.
pub fn validate(bytes: &[u8]) -> Result<(), Invalid> {
    UTF8.validate(bytes)
}

/// `true` when `bytes` is well-formed UTF-8.
pub fn is_valid(bytes: &[u8]) -> bool {
    validate(bytes).is_ok()
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn check_against_core(bytes: &[u8]) {
        let ours = validate(bytes);
        match core::str::from_utf8(bytes) {
            Ok(_) => assert_eq!(ours, Ok(()), "{bytes:02X?}"),
            Err(e) => {
                let ours = ours.expect_err("core rejects");
                assert_eq!(ours.valid_up_to, e.valid_up_to(), "{bytes:02X?}");
                assert_eq!(ours.error_len, e.error_len(), "{bytes:02X?}");
            }
        }
    }

    #[test]
    fn state_count_matches_table() {
        // 1 + (0 + 1 + 2 + 2 + 2 + 2 + 3 + 3 + 3) inner states... plus
        // accept and reject.
        assert_eq!(STATE_COUNT, 2 + 18);
    }

    #[test]
    fn every_sequence_up_to_three_bytes_matches_core() {
        check_against_core(&[]);
        for a in 0..=255u8 {
            check_against_core(&[a]);
            for b in 0..=255u8 {
                check_against_core(&[a, b]);
                for c in 0..=255u8 {
                    check_against_core(&[a, b, c]);
                }
            }
        }
    }

    #[test]
    fn four_byte_sequences_with_four_byte_leads_match_core() {
        for a in 0xF0..=0xF4u8 {
            for b in 0..=255u8 {
                for c in [0x00, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xE1, 0xF0, 0xFF] {
                    for d in 0..=255u8 {
                        check_against_core(&[a, b, c, d]);
                    }
                }
            }
        }
    }

    #[test]
    fn faults_are_named() {
        let fault = |b: &[u8]| validate(b).unwrap_err().fault;
        assert_eq!(fault(b"\x80"), Fault::UnexpectedContinuation);
        assert_eq!(fault(b"\xC0\xAF"), Fault::InvalidByte);
        assert_eq!(fault(b"\xC1\xBF"), Fault::InvalidByte);
        assert_eq!(fault(b"\xF5\x80\x80\x80"), Fault::InvalidByte);
        assert_eq!(fault(b"\xFF"), Fault::InvalidByte);
        assert_eq!(fault(b"\xE0\x80\xAF"), Fault::Overlong);
        assert_eq!(fault(b"\xF0\x8F\xBF\xBF"), Fault::Overlong);
        assert_eq!(fault(b"\xED\xA0\x80"), Fault::Surrogate);
        assert_eq!(fault(b"\xF4\x90\x80\x80"), Fault::TooLarge);
        assert_eq!(fault(b"\xE2\x82A"), Fault::TooShort);
        assert_eq!(fault(b"\xC3\xC3"), Fault::TooShort);
        assert_eq!(fault(b"\xF0\x9F\x98"), Fault::Incomplete);
    }

    #[test]
    fn error_positions_are_exact() {
        let e = validate(b"abc\xF0\x9F\x98x").unwrap_err();
        assert_eq!((e.valid_up_to, e.error_len), (3, Some(3)));
        let e = validate(b"\xE2\x82").unwrap_err();
        assert_eq!((e.valid_up_to, e.error_len), (0, None));
        let mut long: Vec<u8> = "é".repeat(100).into_bytes();
        long.push(0x80);
        let e = validate(&long).unwrap_err();
        assert_eq!((e.valid_up_to, e.error_len), (200, Some(1)));
    }

    #[test]
    fn expected_ranges_follow_the_table() {
        let s = State::ACCEPT.next(0xE0);
        assert_eq!(s.expected(), Some((0xA0, 0xBF)));
        assert_eq!(s.depth(), 1);
        assert_eq!(State::ACCEPT.expected(), None);
    }
}
