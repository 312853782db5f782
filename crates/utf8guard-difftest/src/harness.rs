//! The comparison: the oracles and every subject on each input, counts
//! per subject, per dialect and per category, and a shrunk reproducer on a
//! mismatch.
//!
//! Each dialect is a *lane*: its oracle (for strict UTF-8 the reference DFA
//! and `core::str::from_utf8`, which must agree; for the other dialects the
//! dialect's automaton) and its subjects. An input is checked in one lane
//! ([`Harness::check_in`]) or in all of them ([`Harness::check`]).

use std::fmt;
use std::time::{Duration, Instant};

use utf8guard::{Dialect, ErrorKind, Kernel};

pub use crate::answer::hex;
use crate::answer::{Answer, Context, Found, Inspected, Truth};
use crate::rng::Rng;
use crate::subject::{registry_in, Subject};

/// Where an input came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    /// Files of the project's corpora, the shared corpora or a directory
    /// given on the command line, whole and in slices.
    Corpus,
    /// Generated text per script.
    Synthetic,
    /// Valid text with one mutation: truncation, bit flip, deletion or an
    /// inserted malformation.
    Mutation,
    /// Every short sequence, placed at block-boundary offsets.
    Exhaustive,
    /// Random mixes of characters, malformations and random bytes.
    Random,
    /// Inputs handed in from outside: the fuzz target, replayed files.
    External,
}

impl Category {
    /// Every category.
    pub const ALL: &'static [Category] = &[
        Category::Corpus,
        Category::Synthetic,
        Category::Mutation,
        Category::Exhaustive,
        Category::Random,
        Category::External,
    ];

    /// The category's name.
    pub const fn name(self) -> &'static str {
        match self {
            Category::Corpus => "corpus",
            Category::Synthetic => "synthetic",
            Category::Mutation => "mutation",
            Category::Exhaustive => "exhaustive",
            Category::Random => "random",
            Category::External => "external",
        }
    }

    /// The category with that name.
    pub fn from_name(name: &str) -> Option<Category> {
        Category::ALL.iter().copied().find(|c| c.name() == name)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Inputs and bytes checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    /// Number of inputs.
    pub inputs: u64,
    /// Total bytes of those inputs.
    pub bytes: u64,
}

impl Count {
    fn add(&mut self, bytes: usize) {
        self.inputs += 1;
        self.bytes += bytes as u64;
    }
}

/// A subject (or an oracle) disagreed with the truth.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// The subject's name (`std-vs-dfa` when the two oracles disagree).
    pub subject: String,
    /// The dialect the input was checked in.
    pub dialect: Dialect,
    /// Where the input came from.
    pub category: Category,
    /// The input as found.
    pub input: Vec<u8>,
    /// The smallest input found that still shows the mismatch.
    pub shrunk: Vec<u8>,
    /// The right answer for `shrunk`.
    pub expected: Answer,
    /// The subject's answer for `shrunk`.
    pub got: Answer,
    /// The seed of the subject's random stream for this check.
    pub check_seed: u64,
    /// The subject's random choices on `shrunk` (its [`Context::note`]),
    /// empty if it made none or said nothing.
    pub note: String,
    /// How long the shrinking took.
    pub shrink_time: Duration,
    /// The other subjects that are also wrong on `shrunk`, with their
    /// answers: they point at the code that all of them share.
    pub also_wrong: Vec<(String, Answer)>,
}

/// A cheap digest of an input (its length and up to 32 bytes at each end),
/// so that the random stream a subject gets depends only on the seed and
/// the input: a check can be replayed, and a fuzz target is deterministic.
fn fingerprint(input: &[u8]) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325 ^ input.len() as u64;
    let head = &input[..input.len().min(32)];
    let tail = &input[input.len().saturating_sub(32)..];
    for &b in head.iter().chain(tail) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "MISMATCH: subject {} on a {} input of {} bytes, in {}",
            self.subject,
            self.category.name(),
            self.input.len(),
            self.dialect
        )?;
        writeln!(f, "  shrunk to {} bytes (hex):", self.shrunk.len())?;
        writeln!(f, "    {}", hex(&self.shrunk))?;
        writeln!(f, "  expected: {}", self.expected)?;
        write!(f, "  got:      {}", self.got)?;
        if !self.note.is_empty() {
            write!(f, "\n  subject's choices: {}", self.note)?;
        }
        if self.also_wrong.is_empty() && self.subject != "std-vs-dfa" {
            write!(f, "\n  every other subject is right on the shrunk input")?;
        }
        for (name, answer) in &self.also_wrong {
            write!(f, "\n  also wrong: {name}: {answer}")?;
        }
        Ok(())
    }
}

/// The truth for one input in `dialect`: for strict UTF-8 [`oracle`]'s,
/// for the others the dialect's automaton's (its error, and on the way the
/// magic number and first reserved run). `Err` if the two oracles of
/// strict UTF-8 disagree.
///
/// ```
/// use utf8guard::{Dialect, ErrorKind};
/// use utf8guard_difftest::dialect_oracle;
///
/// let truth = dialect_oracle(Dialect::Cesu8, b"a\xED\xB0\x80").unwrap();
/// let found = truth.result.unwrap_err();
/// assert_eq!((found.valid_up_to, found.error_len), (1, Some(1)));
/// assert_eq!(found.kind, Some(ErrorKind::LoneSurrogate));
/// ```
pub fn dialect_oracle(dialect: Dialect, input: &[u8]) -> Result<Truth, (Answer, Answer)> {
    if dialect == Dialect::Utf8 {
        return oracle(input).map(Truth::plain);
    }
    let scan = automaton(dialect).scan(input);
    Ok(Truth {
        result: scan.result.map_err(|e| Found {
            valid_up_to: e.valid_up_to,
            error_len: e.error_len,
            kind: Some(ErrorKind::from(e.fault)),
        }),
        inspected: Inspected {
            magic_number: scan.magic,
            first_reserved_run: scan.first_run,
        },
    })
}

/// The reference automaton of `dialect`.
pub fn automaton(dialect: Dialect) -> &'static utf8guard_dfa::Automaton {
    let k = Dialect::ALL
        .iter()
        .position(|&d| d == dialect)
        .expect("a dialect of Dialect::ALL");
    let automaton = utf8guard_dfa::ALL[k];
    debug_assert_eq!(automaton.grammar().name, dialect.name());
    automaton
}

/// The truth for one input, from the reference DFA; `Err` if the two
/// oracles (the DFA and `core::str::from_utf8`) disagree.
pub fn oracle(input: &[u8]) -> Result<Result<(), Found>, (Answer, Answer)> {
    let dfa = utf8guard_dfa::validate(input).map_err(|e| Found {
        valid_up_to: e.valid_up_to,
        error_len: e.error_len,
        kind: Some(ErrorKind::from(e.fault)),
    });
    let std = core::str::from_utf8(input).map(|_| ()).map_err(|e| Found {
        valid_up_to: e.valid_up_to(),
        error_len: e.error_len(),
        kind: None,
    });
    let agree = match (&dfa, &std) {
        (Ok(()), Ok(())) => true,
        (Err(d), Err(s)) => d.valid_up_to == s.valid_up_to && d.error_len == s.error_len,
        _ => false,
    };
    if agree {
        Ok(dfa)
    } else {
        Err((Answer::Exact(dfa), Answer::Exact(std)))
    }
}

/// Runs the subjects of each dialect on the inputs of that dialect and
/// keeps count.
///
/// ```
/// use utf8guard::Dialect;
/// use utf8guard_difftest::{Category, Harness};
///
/// let mut harness = Harness::new(1, None);
/// // In every dialect.
/// harness.check(Category::Random, b"abc\xE2\x82").unwrap();
/// assert_eq!(harness.category_count(Category::Random).bytes, 5 * 7);
/// // In one.
/// harness.check_in(Category::Random, Dialect::Mutf8, b"\xC0\x80").unwrap();
/// assert_eq!(harness.lane_count(Dialect::Mutf8, Category::Random).inputs, 2);
/// ```
#[derive(Debug)]
pub struct Harness {
    subjects: Vec<Subject>,
    subject_counts: Vec<Count>,
    /// The dialects that have subjects, in the order of `Dialect::ALL`.
    dialects: Vec<Dialect>,
    /// Per dialect (in the order of `dialects`), per category.
    lane_counts: Vec<[Count; 6]>,
    cx: Context,
    seed: u64,
    shrink_budget: Duration,
}

impl Harness {
    /// A harness over [`registry_in`]`(only, Dialect::ALL)`, whose
    /// subjects' random streams derive from `seed`.
    pub fn new(seed: u64, only: Option<Kernel>) -> Harness {
        Harness::for_dialects(seed, only, Dialect::ALL)
    }

    /// A harness over [`registry_in`]`(only, dialects)`.
    pub fn for_dialects(seed: u64, only: Option<Kernel>, dialects: &[Dialect]) -> Harness {
        Harness::with_subjects(seed, registry_in(only, dialects))
    }

    /// A harness over the given subjects.
    pub fn with_subjects(seed: u64, subjects: Vec<Subject>) -> Harness {
        let dialects: Vec<Dialect> = Dialect::ALL
            .iter()
            .copied()
            .filter(|&d| subjects.iter().any(|s| s.dialect() == d))
            .collect();
        Harness {
            subject_counts: vec![Count::default(); subjects.len()],
            subjects,
            lane_counts: vec![[Count::default(); 6]; dialects.len()],
            dialects,
            cx: Context {
                rng: Rng::new(seed),
                scratch: Vec::new(),
                note: String::new(),
            },
            seed,
            shrink_budget: Duration::from_secs(60),
        }
    }

    /// One harness per subject, each with a shrink budget of 20 s: for a
    /// fuzz target whose first input byte picks the subject
    /// ([`Harness::check_picked`]), so that each gets every input that
    /// picks it.
    pub fn one_per_subject(subjects: Vec<Subject>) -> Vec<Harness> {
        subjects
            .into_iter()
            .map(|subject| {
                let mut harness = Harness::with_subjects(0, vec![subject]);
                harness.set_shrink_budget(Duration::from_secs(20));
                harness
            })
            .collect()
    }

    /// Checks `data` after its first byte, in strict UTF-8's lane, with the
    /// harness of `harnesses` that byte picks (modulo their number);
    /// panics with the shrunk mismatch, as a fuzz target must.
    pub fn check_picked(harnesses: &mut [Harness], data: &[u8]) {
        let Some((&pick, input)) = data.split_first() else {
            return;
        };
        let harness = &mut harnesses[usize::from(pick) % harnesses.len()];
        if let Err(mismatch) = harness.check_in(Category::External, Dialect::Utf8, input) {
            panic!("{mismatch}");
        }
    }

    /// How long shrinking a mismatch may take at most (default 60 s).
    pub fn set_shrink_budget(&mut self, budget: Duration) {
        self.shrink_budget = budget;
    }

    /// The subjects' names, in order.
    pub fn subject_names(&self) -> impl Iterator<Item = &str> {
        self.subjects.iter().map(|s| s.name())
    }

    /// Inputs and bytes checked by each subject.
    pub fn subject_counts(&self) -> impl Iterator<Item = (&str, Count)> {
        self.subjects
            .iter()
            .map(|s| s.name())
            .zip(self.subject_counts.iter().copied())
    }

    /// The dialects that have subjects (the lanes), in the order of
    /// [`Dialect::ALL`].
    pub fn dialects(&self) -> &[Dialect] {
        &self.dialects
    }

    /// Inputs and bytes checked in a category, over every dialect (an
    /// input checked in two dialects counts twice).
    pub fn category_count(&self, category: Category) -> Count {
        let mut total = Count::default();
        for counts in &self.lane_counts {
            let c = counts[category.index()];
            total.inputs += c.inputs;
            total.bytes += c.bytes;
        }
        total
    }

    /// Inputs and bytes checked in a category in one dialect.
    pub fn lane_count(&self, dialect: Dialect, category: Category) -> Count {
        match self.dialects.iter().position(|&d| d == dialect) {
            Some(k) => self.lane_counts[k][category.index()],
            None => Count::default(),
        }
    }

    /// Check `input` in every dialect of the harness: [`check_in`](Self::check_in)
    /// for each.
    ///
    /// # Errors
    /// The first disagreement, with a shrunk reproducer.
    pub fn check(&mut self, category: Category, input: &[u8]) -> Result<(), Box<Mismatch>> {
        for k in 0..self.dialects.len() {
            self.check_in(category, self.dialects[k], input)?;
        }
        Ok(())
    }

    /// Check `input` with the oracle and every subject of `dialect` (none,
    /// if the harness has no subject in that dialect).
    ///
    /// # Errors
    /// The first disagreement, with a shrunk reproducer.
    pub fn check_in(
        &mut self,
        category: Category,
        dialect: Dialect,
        input: &[u8],
    ) -> Result<(), Box<Mismatch>> {
        let Some(lane) = self.dialects.iter().position(|&d| d == dialect) else {
            return Ok(());
        };
        let check_seed = self.seed ^ fingerprint(input);
        let truth = match dialect_oracle(dialect, input) {
            Ok(truth) => truth,
            Err(_) => {
                let t = Instant::now();
                let shrunk = shrink(input, self.shrink_budget, |b| oracle(b).is_err());
                let shrink_time = t.elapsed();
                let (dfa, std) = oracle(&shrunk).err().unwrap_or((
                    Answer::Broken("no longer disagree".into()),
                    Answer::Broken("no longer disagree".into()),
                ));
                return Err(Box::new(Mismatch {
                    subject: "std-vs-dfa".into(),
                    dialect,
                    category,
                    input: input.to_vec(),
                    shrunk,
                    expected: dfa,
                    got: std,
                    check_seed,
                    note: String::new(),
                    shrink_time,
                    also_wrong: Vec::new(),
                }));
            }
        };
        self.lane_counts[lane][category.index()].add(input.len());
        for (k, subject) in self.subjects.iter().enumerate() {
            if subject.dialect() != dialect {
                continue;
            }
            self.cx.rng = Rng::new(check_seed);
            self.cx.note.clear();
            let answer = subject.answer(input, &mut self.cx);
            if !answer.agrees(input, &truth) {
                return Err(Box::new(self.report(k, category, input, check_seed)));
            }
            self.subject_counts[k].add(input.len());
        }
        Ok(())
    }

    /// Shrink a failing input for subject `k` and describe the failure.
    fn report(&mut self, k: usize, category: Category, input: &[u8], check_seed: u64) -> Mismatch {
        let subject = &self.subjects[k];
        let dialect = subject.dialect();
        let cx = &mut self.cx;
        let mut fails = |b: &[u8]| {
            cx.rng = Rng::new(check_seed);
            cx.note.clear();
            match dialect_oracle(dialect, b) {
                Ok(truth) => !subject.answer(b, cx).agrees(b, &truth),
                Err(_) => false,
            }
        };
        let t = Instant::now();
        let shrunk = shrink(input, self.shrink_budget, &mut fails);
        let shrink_time = t.elapsed();
        cx.rng = Rng::new(check_seed);
        cx.note.clear();
        let got = subject.answer(&shrunk, cx);
        let note = std::mem::take(&mut cx.note);
        let truth = dialect_oracle(dialect, &shrunk).unwrap_or(Truth::plain(Ok(())));
        let mut also_wrong = Vec::new();
        for (j, other) in self.subjects.iter().enumerate() {
            if j == k || other.dialect() != dialect {
                continue;
            }
            cx.rng = Rng::new(check_seed);
            cx.note.clear();
            let answer = other.answer(&shrunk, cx);
            if !answer.agrees(&shrunk, &truth) {
                also_wrong.push((other.name().to_string(), answer));
            }
        }
        Mismatch {
            subject: subject.name().to_string(),
            dialect,
            category,
            input: input.to_vec(),
            expected: got.expected(&shrunk, &truth),
            got,
            shrunk,
            check_seed,
            note,
            shrink_time,
            also_wrong,
        }
    }
}

/// The smallest input found that still `fails`, starting from `input`
/// (which must fail). Removes chunks of halving size, then single bytes,
/// then replaces bytes by `a` where that keeps the failure (a whole
/// sequence at once, a lead byte and the continuation bytes after it, or a
/// single byte), until nothing changes or `budget` is spent.
///
/// Replacing keeps every offset: a failure that needs its bytes at one
/// offset (a block boundary) can then lose what is before them to the
/// prefix and suffix search, once it is ASCII.
pub fn shrink(input: &[u8], budget: Duration, mut fails: impl FnMut(&[u8]) -> bool) -> Vec<u8> {
    let start = Instant::now();
    let mut best = input.to_vec();
    let mut candidate = Vec::with_capacity(best.len());
    loop {
        let before = best.clone();
        // The shortest failing prefix, then the shortest failing suffix of
        // that (quadratic, so only for inputs of a few KiB): this removes
        // whole valid characters at either end, which byte-wise removal
        // cannot do without making an earlier error.
        if best.len() <= 4096 {
            if let Some(end) = (0..best.len()).find(|&end| fails(&best[..end])) {
                best.truncate(end);
            }
            if let Some(start) = (1..best.len()).rev().find(|&start| fails(&best[start..])) {
                best.drain(..start);
            }
        }
        // Remove chunks, from half the input down to single bytes.
        let mut size = best.len().div_ceil(2).max(1);
        loop {
            let mut at = 0;
            while at < best.len() {
                if start.elapsed() > budget {
                    return best;
                }
                candidate.clear();
                candidate.extend_from_slice(&best[..at]);
                candidate.extend_from_slice(&best[(at + size).min(best.len())..]);
                if fails(&candidate) {
                    std::mem::swap(&mut best, &mut candidate);
                } else {
                    at += size;
                }
            }
            if size == 1 {
                break;
            }
            size = size.div_ceil(2);
        }
        // Simplify: make bytes ASCII where the failure survives it, a
        // whole sequence first (its bytes alone would leave its rest as
        // stray continuation bytes).
        for i in 0..best.len() {
            if start.elapsed() > budget {
                return best;
            }
            if best[i] == b'a' {
                continue;
            }
            let conts = best[i + 1..]
                .iter()
                .take(7)
                .take_while(|&&b| (0x80..0xC0).contains(&b))
                .count();
            let spans = if best[i] >= 0xC0 && conts > 0 {
                vec![i + 1 + conts, i + 1]
            } else {
                vec![i + 1]
            };
            for end in spans {
                let old = best[i..end].to_vec();
                best[i..end].fill(b'a');
                if fails(&best) {
                    break;
                }
                best[i..end].copy_from_slice(&old);
            }
        }
        if best == before {
            return best;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oracle_reports_the_dfa_answer_with_its_kind() {
        assert_eq!(oracle(b"abc"), Ok(Ok(())));
        assert_eq!(
            oracle(b"ab\xED\xA0\x80"),
            Ok(Err(Found {
                valid_up_to: 2,
                error_len: Some(1),
                kind: Some(ErrorKind::Surrogate)
            }))
        );
        assert_eq!(
            oracle(b"\xF0\x9F\x98"),
            Ok(Err(Found {
                valid_up_to: 0,
                error_len: None,
                kind: Some(ErrorKind::Incomplete)
            }))
        );
    }

    #[test]
    fn the_dialect_oracle_is_the_automaton_with_what_it_learned() {
        let mut doc = utf8guard_dfa::grammar::CORRECTED_MAGIC.to_vec();
        doc.extend_from_slice(b"ab\xFF\x80c");
        let truth = dialect_oracle(Dialect::Corrected, &doc).unwrap();
        assert_eq!(truth.result, Ok(()));
        assert_eq!(
            truth.inspected,
            Inspected {
                magic_number: true,
                first_reserved_run: Some(10)
            }
        );
        let truth = dialect_oracle(Dialect::Wtf8, b"\xED\xA0\x80\xED\xB0\x80").unwrap();
        assert_eq!(
            truth.result,
            Err(Found {
                valid_up_to: 3,
                error_len: Some(1),
                kind: Some(ErrorKind::SurrogatePair)
            })
        );
        assert_eq!(
            dialect_oracle(Dialect::Utf8, b"\xC3").unwrap(),
            Truth::plain(oracle(b"\xC3").unwrap())
        );
        for &d in Dialect::ALL {
            assert_eq!(automaton(d).grammar().name, d.name());
        }
    }

    #[test]
    fn an_input_is_checked_in_its_lane_only() {
        let mut harness = Harness::for_dialects(1, None, &[Dialect::Utf8, Dialect::Cesu8]);
        assert_eq!(harness.dialects(), [Dialect::Utf8, Dialect::Cesu8]);
        harness
            .check_in(
                Category::Random,
                Dialect::Cesu8,
                b"\xED\xA0\xBD\xED\xB8\x80",
            )
            .unwrap();
        // Not a lane of this harness: nothing to check.
        harness
            .check_in(Category::Random, Dialect::Wtf8, b"x")
            .unwrap();
        assert_eq!(
            harness.lane_count(Dialect::Cesu8, Category::Random).inputs,
            1
        );
        assert_eq!(
            harness.lane_count(Dialect::Utf8, Category::Random).inputs,
            0
        );
        assert_eq!(
            harness.lane_count(Dialect::Wtf8, Category::Random).inputs,
            0
        );
        for (name, count) in harness.subject_counts() {
            let cesu = name.contains("(cesu-8)");
            assert_eq!(count.inputs, u64::from(cesu), "{name}");
        }
    }

    #[test]
    fn shrinking_keeps_only_what_makes_it_fail() {
        // Fails when the input holds 0xFF somewhere after a 0xC3.
        let fails = |b: &[u8]| {
            b.iter()
                .position(|&x| x == 0xC3)
                .is_some_and(|i| b[i..].contains(&0xFF))
        };
        let input = b"hello \xC3 world \xFF and more \xFF".to_vec();
        let shrunk = shrink(&input, Duration::from_secs(10), fails);
        assert_eq!(shrunk, b"\xC3\xFF");
    }

    #[test]
    fn shrinking_turns_sequences_into_ascii_where_offsets_matter() {
        // Fails when byte 64 is FF after 64 bytes of UTF-8: removing any
        // byte before it moves it; only replacing keeps it there.
        let fails =
            |b: &[u8]| b.len() > 64 && b[64] == 0xFF && std::str::from_utf8(&b[..64]).is_ok();
        let mut input = "é".repeat(100).into_bytes();
        input[64] = 0xFF;
        input[65] = b'x';
        let shrunk = shrink(&input, Duration::from_secs(10), fails);
        assert_eq!(shrunk.len(), 65);
        assert!(shrunk[..64].iter().all(|&b| b == b'a'), "{}", hex(&shrunk));
    }

    #[test]
    fn hex_is_spaced_upper_case() {
        assert_eq!(hex(b"\x00\xAB\x7f"), "00 AB 7F");
        assert_eq!(hex(b""), "");
    }
}
