//! The automaton of a [`Grammar`], built at compile time from its rows.
//!
//! A state says which rows the bytes of the current sequence still match
//! and how many of its bytes were read; "between sequences" is a state of
//! its own. The construction is the textbook one for a set of rows that
//! may share a prefix (CESU-8's `ED 80..9F` and `ED A0..AF ... ED B0..BF`
//! rows share their lead byte): each state holds the *set* of rows still
//! matched, and a byte keeps the rows whose next range contains it. When a
//! row is complete, the automaton is between sequences again, in one of
//! three flavours:
//!
//! * plain ([`State::ACCEPT`], also the start);
//! * after a row of a grammar's [`forbidden_pair`](Grammar::forbidden_pair)
//!   lead: the same, except that the trail row may not start here (WTF-8);
//! * inside a run of a [`run_row`](Grammar::run_row): bytes of its last
//!   range extend the run, any other byte starts a new sequence as from the
//!   plain state (Corrected UTF-8's reserved runs).
//!
//! The grammars are unambiguous: no byte string is a whole row and a proper
//! prefix of another, and no sequence starts with a byte that may extend a
//! run. The construction checks both (a compile-time panic otherwise), so
//! "a row is complete" needs no look-ahead.
//!
//! Errors follow the *maximal subpart* rule of `core::str::from_utf8`: the
//! error starts where the failed sequence started, and its length is the
//! number of bytes of that sequence read before the offending byte (at least
//! one), the longest prefix of a well-formed sequence found there.

use crate::grammar::Grammar;
use crate::{ByteRange, Fault, Invalid, State};

/// More states than any grammar here needs (the largest has 29).
const MAX_STATES: usize = 64;

const BOUNDARY: u8 = 0;
const AFTER_LEAD: u8 = 1;
const RUN: u8 = 2;
const INNER: u8 = 3;
const REJECT: u8 = 4;

/// What a state stands for.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StateInfo {
    /// The rows the current sequence still matches (bit `r` for row `r`).
    rows: u32,
    /// Bytes of the current sequence read (0 between sequences).
    depth: u8,
    /// One of the flavours above.
    kind: u8,
}

const fn info(rows: u32, depth: u8, kind: u8) -> StateInfo {
    StateInfo { rows, depth, kind }
}

const fn same(a: StateInfo, b: StateInfo) -> bool {
    a.rows == b.rows && a.depth == b.depth && a.kind == b.kind
}

const fn in_range(b: u8, range: ByteRange) -> bool {
    range.0 <= b && b <= range.1
}

const fn is_row(index: Option<usize>, r: usize) -> bool {
    match index {
        Some(i) => i == r,
        None => false,
    }
}

/// The state after `b` in state `s`, as its [`StateInfo`].
const fn successor(g: &Grammar, s: StateInfo, b: u8) -> StateInfo {
    if s.kind == REJECT {
        return s;
    }
    let trail = match g.forbidden_pair {
        Some((_, trail)) => Some(trail),
        None => None,
    };
    let lead = match g.forbidden_pair {
        Some((lead, _)) => Some(lead),
        None => None,
    };
    if s.kind == RUN {
        let row = g.rows[s.rows.trailing_zeros() as usize];
        if in_range(b, row[row.len() - 1]) {
            return s;
        }
    }
    let starts = s.kind != INNER;
    let depth = if starts { 0 } else { s.depth as usize };
    let mut alive = 0u32;
    let mut r = 0;
    while r < g.rows.len() {
        let row = g.rows[r];
        let candidate = if starts {
            !(s.kind == AFTER_LEAD && is_row(trail, r))
        } else {
            s.rows & (1 << r) != 0
        };
        if candidate && depth < row.len() && in_range(b, row[depth]) {
            alive |= 1 << r;
        }
        r += 1;
    }
    if alive == 0 {
        return info(0, 0, REJECT);
    }
    let depth = depth + 1;
    let mut complete = 0u32;
    let mut r = 0;
    while r < g.rows.len() {
        let len = g.rows[r].len();
        let done = if is_row(g.run_row, r) {
            depth == len - 1
        } else {
            depth == len
        };
        if alive & (1 << r) != 0 && done {
            complete |= 1 << r;
        }
        r += 1;
    }
    if complete == 0 {
        return info(alive, depth as u8, INNER);
    }
    assert!(
        complete == alive && complete.count_ones() == 1,
        "ambiguous grammar: a row is complete where another goes on"
    );
    let r = complete.trailing_zeros() as usize;
    if is_row(g.run_row, r) {
        info(complete, depth as u8, RUN)
    } else if is_row(lead, r) {
        info(0, 0, AFTER_LEAD)
    } else {
        info(0, 0, BOUNDARY)
    }
}

/// The states reachable from the start, and the transitions between them.
pub(crate) struct Built {
    transitions: [[u8; 256]; MAX_STATES],
    states: [StateInfo; MAX_STATES],
    /// How many entries of the arrays are used.
    pub(crate) count: usize,
}

/// Explore the states of grammar `g` from the start, breadth first. State 0
/// is the start ([`State::ACCEPT`]), state 1 the reject sink.
pub(crate) const fn build(g: &Grammar) -> Built {
    assert!(g.rows.len() <= 32, "at most 32 rows");
    let mut states = [info(0, 0, REJECT); MAX_STATES];
    states[0] = info(0, 0, BOUNDARY);
    let mut count = 2;
    let mut transitions = [[1u8; 256]; MAX_STATES];
    let mut i = 0;
    while i < count {
        let mut b = 0;
        while b < 256 {
            let next = successor(g, states[i], b as u8);
            if states[i].kind == RUN && next.kind != RUN {
                // A byte that ends a run starts a sequence: it must not be
                // one that could also have extended the run.
                let row = g.rows[states[i].rows.trailing_zeros() as usize];
                assert!(!in_range(b as u8, row[row.len() - 1]));
            }
            let mut j = 0;
            while j < count && !same(states[j], next) {
                j += 1;
            }
            if j == count {
                assert!(count < MAX_STATES, "too many states");
                states[count] = next;
                count += 1;
            }
            transitions[i][b] = j as u8;
            b += 1;
        }
        i += 1;
    }
    Built {
        transitions,
        states,
        count,
    }
}

/// The first `N` transition rows of `built`.
pub(crate) const fn transitions<const N: usize>(built: &Built) -> [[u8; 256]; N] {
    let mut out = [[0u8; 256]; N];
    let mut i = 0;
    while i < N {
        out[i] = built.transitions[i];
        i += 1;
    }
    out
}

/// The first `N` state descriptions of `built`.
pub(crate) const fn states<const N: usize>(built: &Built) -> [StateInfo; N] {
    let mut out = [info(0, 0, REJECT); N];
    let mut i = 0;
    while i < N {
        out[i] = built.states[i];
        i += 1;
    }
    out
}

/// A dialect's automaton: the reference validator for that dialect.
///
/// ```
/// use utf8guard_dfa::{Fault, CESU8, WTF8};
///
/// // U+1F600 as a CESU-8 surrogate pair; its 4-byte form is not CESU-8.
/// assert!(CESU8.is_valid(b"\xED\xA0\xBD\xED\xB8\x80"));
/// let err = CESU8.validate(b"\xF0\x9F\x98\x80").unwrap_err();
/// assert_eq!((err.valid_up_to, err.error_len, err.fault), (0, Some(1), Fault::FourByteForm));
///
/// // WTF-8 holds lone surrogates, but not a pair of them.
/// assert!(WTF8.is_valid(b"\xED\xA0\xBD"));
/// let err = WTF8.validate(b"\xED\xA0\xBD\xED\xB8\x80").unwrap_err();
/// assert_eq!((err.valid_up_to, err.error_len, err.fault), (3, Some(1), Fault::SurrogatePair));
/// ```
#[derive(Debug)]
pub struct Automaton {
    grammar: &'static Grammar,
    transitions: &'static [[u8; 256]],
    states: &'static [StateInfo],
}

/// The automaton of a grammar, with tables of exactly its size.
macro_rules! automaton {
    ($(#[$doc:meta])* $name:ident = $grammar:path) => {
        $(#[$doc])*
        pub static $name: Automaton = {
            const BUILT: Built = build(&$grammar);
            const N: usize = BUILT.count;
            const TRANSITIONS: [[u8; 256]; N] = transitions::<N>(&BUILT);
            const STATES: [StateInfo; N] = states::<N>(&BUILT);
            Automaton {
                grammar: &$grammar,
                transitions: &TRANSITIONS,
                states: &STATES,
            }
        };
    };
}

automaton!(
    /// Strict UTF-8 ([`grammar::UTF8`](crate::grammar::UTF8)).
    UTF8 = crate::grammar::UTF8
);
automaton!(
    /// Unicode 3.1, Corrigendum #1's Table 3.1B
    /// ([`grammar::UNICODE_3_1`](crate::grammar::UNICODE_3_1)).
    UNICODE_3_1 = crate::grammar::UNICODE_3_1
);
automaton!(
    /// WTF-8 ([`grammar::WTF8`](crate::grammar::WTF8)).
    WTF8 = crate::grammar::WTF8
);
automaton!(
    /// CESU-8 ([`grammar::CESU8`](crate::grammar::CESU8)).
    CESU8 = crate::grammar::CESU8
);
automaton!(
    /// Java's modified UTF-8 ([`grammar::MUTF8`](crate::grammar::MUTF8)).
    MUTF8 = crate::grammar::MUTF8
);
automaton!(
    /// RFC 2279's 1-to-6-byte UTF-8 ([`grammar::RFC2279`](crate::grammar::RFC2279)).
    RFC2279 = crate::grammar::RFC2279
);
automaton!(
    /// Corrected UTF-8 ([`grammar::CORRECTED`](crate::grammar::CORRECTED)).
    CORRECTED = crate::grammar::CORRECTED
);

/// Every automaton, in the order of [`grammar::ALL`](crate::grammar::ALL).
pub static ALL: [&Automaton; 7] = [
    &UTF8,
    &UNICODE_3_1,
    &WTF8,
    &CESU8,
    &MUTF8,
    &RFC2279,
    &CORRECTED,
];

/// What [`Automaton::scan`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scan {
    /// The input's first ill-formed sequence, if any.
    pub result: Result<(), Invalid>,
    /// The input starts with the grammar's magic number.
    pub magic: bool,
    /// The offset of the first reserved run (Corrected UTF-8's `FE`/`FF`)
    /// before the error, if any.
    pub first_run: Option<usize>,
}

impl Automaton {
    /// The grammar this automaton was built from.
    pub fn grammar(&self) -> &'static Grammar {
        self.grammar
    }

    /// How many states it has, the start and the reject sink included.
    pub fn state_count(&self) -> usize {
        self.states.len()
    }

    /// The state after reading `byte` in `state`.
    #[inline(always)]
    pub fn next(&self, state: State, byte: u8) -> State {
        State(self.transitions[state.0 as usize][byte as usize])
    }

    fn info(&self, state: State) -> StateInfo {
        self.states[state.0 as usize]
    }

    /// Between sequences (the input may end here): the start, the state
    /// after a WTF-8 lead surrogate, or inside a reserved run.
    #[inline]
    pub fn is_accepting(&self, state: State) -> bool {
        matches!(self.info(state).kind, BOUNDARY | AFTER_LEAD | RUN)
    }

    /// Inside a reserved run ([`Grammar::run_row`]).
    pub fn in_run(&self, state: State) -> bool {
        self.info(state).kind == RUN
    }

    /// Bytes of the current sequence read so far: 0 between sequences and
    /// in the reject sink; for a reserved run, the bytes before its
    /// repeating range.
    pub fn depth(&self, state: State) -> usize {
        self.info(state).depth as usize
    }

    /// The rows of the grammar that the bytes of the current sequence still
    /// match, as a bit set (bit `r` for row `r`): empty between sequences and
    /// in the reject sink; the run's row inside a reserved run.
    pub fn rows_matched(&self, state: State) -> u32 {
        self.info(state).rows
    }

    /// Why the sequence `sequence` (from its first byte through the byte
    /// that was rejected) is ill formed, the automaton having been in
    /// `state` before that last byte.
    pub fn fault(&self, state: State, sequence: &[u8]) -> Fault {
        let g = self.grammar;
        let byte = sequence[sequence.len() - 1];
        let starts = self.is_accepting(state);
        if let Some((_, trail)) = g.forbidden_pair {
            if !starts && matches(g.rows[trail], sequence, false) {
                return Fault::SurrogatePair;
            }
        }
        for &(fault, pattern) in g.faults {
            if matches(pattern, sequence, true) {
                return fault;
            }
        }
        if !starts {
            Fault::TooShort
        } else if (0x80..=0xBF).contains(&byte) {
            Fault::UnexpectedContinuation
        } else if byte == 0 {
            Fault::Nul
        } else {
            Fault::InvalidByte
        }
    }

    /// The first ill-formed sequence of `bytes`, with the rules of the
    /// grammar that are not rows (the magic number at offset 0).
    pub fn validate(&self, bytes: &[u8]) -> Result<(), Invalid> {
        self.scan(bytes).result
    }

    /// `true` when `bytes` is well formed.
    pub fn is_valid(&self, bytes: &[u8]) -> bool {
        self.validate(bytes).is_ok()
    }

    /// [`validate`](Self::validate), and what else one pass learns: whether
    /// the magic number is there, and where the first reserved run starts.
    pub fn scan(&self, bytes: &[u8]) -> Scan {
        let magic = self.grammar.magic.unwrap_or(&[]);
        let has_magic = !magic.is_empty() && bytes.starts_with(magic);
        let start = if has_magic { magic.len() } else { 0 };
        let (mut result, first_run) = self.run(bytes, start);
        if let Err(invalid) = &mut result {
            // An input that is a proper prefix of the magic number ends
            // inside it: more input may complete it.
            if !has_magic && !magic.is_empty() && magic.starts_with(bytes) {
                invalid.error_len = None;
                invalid.fault = Fault::Incomplete;
            }
        }
        Scan {
            result,
            magic: has_magic,
            first_run,
        }
    }

    /// Run from the start state over `bytes[start..]`.
    fn run(&self, bytes: &[u8], start: usize) -> (Result<(), Invalid>, Option<usize>) {
        let mut state = State::ACCEPT;
        let mut seq_start = start;
        let mut first_run = None;
        for (i, &b) in bytes.iter().enumerate().skip(start) {
            if self.is_accepting(state) {
                seq_start = i;
            }
            let next = self.next(state, b);
            if next == State::REJECT {
                let invalid = Invalid {
                    valid_up_to: seq_start,
                    error_len: Some((i - seq_start).max(1)),
                    fault: self.fault(state, &bytes[seq_start..=i]),
                };
                return (Err(invalid), first_run);
            }
            if first_run.is_none() && self.in_run(next) {
                first_run = Some(i);
            }
            state = next;
        }
        if self.is_accepting(state) {
            (Ok(()), first_run)
        } else {
            let invalid = Invalid {
                valid_up_to: seq_start,
                error_len: None,
                fault: Fault::Incomplete,
            };
            (Err(invalid), first_run)
        }
    }
}

/// `bytes` matches `ranges` byte by byte: all of them (`whole`), or as a
/// prefix of them.
fn matches(ranges: &[ByteRange], bytes: &[u8], whole: bool) -> bool {
    let fits = if whole {
        ranges.len() == bytes.len()
    } else {
        ranges.len() >= bytes.len()
    };
    fits && bytes.iter().zip(ranges).all(|(&b, &r)| in_range(b, r))
}
