//! The scalar reference for utf8guard: a byte-at-a-time DFA generated from the
//! table of well-formed UTF-8 byte sequences.
//!
//! This crate is the oracle. Every SIMD kernel, every streaming or parallel
//! API, is tested against it (and against `core::str::from_utf8`). It is
//! written to be *obviously* right rather than fast:
//!
//! * the only input is [`WELL_FORMED`], a transcription of Unicode's
//!   Table 3-7 ("Well-Formed UTF-8 Byte Sequences"), which is the same set as
//!   the ABNF of RFC 3629 and Table 3.1B of Corrigendum #1;
//! * the automaton is the trie of those rows, built by a `const fn` at compile
//!   time: a state is "inside row `r`, `d` bytes read", so every state can be
//!   named in terms of the table;
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
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// An inclusive range of byte values, `lo..=hi`.
pub type ByteRange = (u8, u8);

/// The well-formed UTF-8 byte sequences, one row per line of Unicode's
/// Table 3-7. A sequence is well formed exactly when it matches one row,
/// byte by byte.
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

/// A state of the automaton.
///
/// [`State::ACCEPT`] is "between characters" (also the start state),
/// [`State::REJECT`] is the sink entered on an ill-formed byte; every other
/// state is "inside row `row()` of [`WELL_FORMED`], `depth()` bytes read".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct State(u8);

/// Number of states: accept, reject, and one per (row, depth) with
/// `1 <= depth < row length`.
const fn count_states() -> usize {
    let mut n = 2;
    let mut r = 0;
    while r < WELL_FORMED.len() {
        n += WELL_FORMED[r].len() - 1;
        r += 1;
    }
    n
}

/// How many states the automaton has (19 inner states plus accept and reject).
pub const STATE_COUNT: usize = count_states();

/// For each state: the row of [`WELL_FORMED`] it is in and how many bytes of
/// that row have been read. Accept and reject have depth 0.
const STATE_INFO: [(u8, u8); STATE_COUNT] = {
    let mut info = [(0u8, 0u8); STATE_COUNT];
    let mut next = 2;
    let mut r = 0;
    while r < WELL_FORMED.len() {
        let mut d = 1;
        while d < WELL_FORMED[r].len() {
            info[next] = (r as u8, d as u8);
            next += 1;
            d += 1;
        }
        r += 1;
    }
    info
};

/// The state "inside row `row`, `depth` bytes read".
const fn inner_state(row: usize, depth: usize) -> u8 {
    let mut s = 2;
    while s < STATE_COUNT {
        if STATE_INFO[s].0 as usize == row && STATE_INFO[s].1 as usize == depth {
            return s as u8;
        }
        s += 1;
    }
    panic!("no such state");
}

const fn in_range(b: u8, range: ByteRange) -> bool {
    range.0 <= b && b <= range.1
}

/// The transition table, `TRANSITIONS[state][byte]`, derived from
/// [`WELL_FORMED`] and nothing else.
const TRANSITIONS: [[u8; 256]; STATE_COUNT] = {
    let mut table = [[State::REJECT.0; 256]; STATE_COUNT];
    let mut b = 0;
    while b < 256 {
        // From "between characters": the lead byte picks the row (the first
        // ranges of the rows are disjoint).
        let mut r = 0;
        while r < WELL_FORMED.len() {
            let row = WELL_FORMED[r];
            if in_range(b as u8, row[0]) {
                table[State::ACCEPT.0 as usize][b] = if row.len() == 1 {
                    State::ACCEPT.0
                } else {
                    inner_state(r, 1)
                };
            }
            r += 1;
        }
        // From inside a row: the next byte must be in that row's next range.
        let mut s = 2;
        while s < STATE_COUNT {
            let (r, d) = (STATE_INFO[s].0 as usize, STATE_INFO[s].1 as usize);
            let row = WELL_FORMED[r];
            if in_range(b as u8, row[d]) {
                table[s][b] = if d + 1 == row.len() {
                    State::ACCEPT.0
                } else {
                    inner_state(r, d + 1)
                };
            }
            s += 1;
        }
        b += 1;
    }
    table
};

impl State {
    /// Between characters: the start state, and the only accepting one.
    pub const ACCEPT: State = State(0);
    /// An ill-formed byte was seen. Stays here.
    pub const REJECT: State = State(1);

    /// The state after reading `byte` in this state.
    #[inline]
    pub const fn next(self, byte: u8) -> State {
        State(TRANSITIONS[self.0 as usize][byte as usize])
    }

    /// The row of [`WELL_FORMED`] this state is inside, if any.
    pub const fn row(self) -> Option<usize> {
        if self.depth() == 0 {
            None
        } else {
            Some(STATE_INFO[self.0 as usize].0 as usize)
        }
    }

    /// How many bytes of the current sequence have been read (0 between
    /// characters and in the reject state).
    #[inline]
    pub const fn depth(self) -> usize {
        STATE_INFO[self.0 as usize].1 as usize
    }

    /// The byte values that may come next without rejecting (`None` between
    /// characters, where the lead byte ranges of every row apply).
    pub const fn expected(self) -> Option<ByteRange> {
        match self.row() {
            Some(r) => Some(WELL_FORMED[r][self.depth()]),
            None => None,
        }
    }
}

/// Why a sequence is ill formed.
///
/// The classification is made at the byte that made the automaton reject,
/// from the state it was in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Fault {
    /// A continuation byte (`80..BF`) where a character must start.
    UnexpectedContinuation,
    /// A byte that never appears in UTF-8: `C0`, `C1` (they could only
    /// start overlong 2-byte forms) or `F5..FF` (above U+10FFFF, or 5- and
    /// 6-byte forms).
    InvalidByte,
    /// An overlong form: `E0 80..9F` or `F0 80..8F` (the value fits in fewer
    /// bytes).
    Overlong,
    /// A UTF-16 surrogate, U+D800..U+DFFF: `ED A0..BF`.
    Surrogate,
    /// A code point above U+10FFFF: `F4 90..BF`.
    TooLarge,
    /// A multi-byte sequence interrupted by a byte that is not a
    /// continuation byte (ASCII or another lead byte).
    TooShort,
    /// The input ends inside a multi-byte sequence.
    Incomplete,
}

/// The first ill-formed sequence of an input, as `core::str::from_utf8`
/// would report it, with its cause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Invalid {
    /// Length of the longest well-formed prefix of the input.
    pub valid_up_to: usize,
    /// Length of the maximal subpart that is invalid (1 to 3), or `None`
    /// when the input ends inside a sequence.
    pub error_len: Option<usize>,
    /// Why it is invalid.
    pub fault: Fault,
}

/// Classify the rejection of `byte` in `state` (which is not [`State::REJECT`]).
const fn classify(state: State, byte: u8) -> Fault {
    match (state.row(), state.depth()) {
        (None, _) => {
            if 0x80 <= byte && byte <= 0xBF {
                Fault::UnexpectedContinuation
            } else {
                Fault::InvalidByte
            }
        }
        (Some(row), depth) => {
            let is_continuation = 0x80 <= byte && byte <= 0xBF;
            if !is_continuation {
                Fault::TooShort
            } else if depth != 1 {
                // Only the second byte of a sequence has a range narrower
                // than 80..BF, so this cannot happen; be explicit anyway.
                Fault::TooShort
            } else {
                // A continuation byte outside the narrowed second-byte range.
                match WELL_FORMED[row][0].0 {
                    0xE0 | 0xF0 => Fault::Overlong,
                    0xED => Fault::Surrogate,
                    0xF4 => Fault::TooLarge,
                    _ => Fault::TooShort,
                }
            }
        }
    }
}

/// Run the automaton over `bytes`, starting between characters, and report
/// the first ill-formed sequence.
///
/// For every input the result is the same as `core::str::from_utf8`:
/// `Ok(())` exactly when that returns `Ok`, and otherwise the same
/// `valid_up_to` and `error_len`.
pub fn validate(bytes: &[u8]) -> Result<(), Invalid> {
    let mut state = State::ACCEPT;
    let mut seq_start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if state == State::ACCEPT {
            seq_start = i;
        }
        let next = state.next(b);
        if next == State::REJECT {
            return Err(Invalid {
                valid_up_to: seq_start,
                error_len: Some(state.depth().max(1)),
                fault: classify(state, b),
            });
        }
        state = next;
    }
    if state == State::ACCEPT {
        Ok(())
    } else {
        Err(Invalid {
            valid_up_to: seq_start,
            error_len: None,
            fault: Fault::Incomplete,
        })
    }
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
