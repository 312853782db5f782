//! The input makers of each category, as steps a driver can interleave:
//! the `difftest` binary runs them until its time is spent, the tests run a
//! fixed number of each.

use crate::corpus::CorpusFile;
use crate::exhaustive::{self, Builder};
use crate::generate::Script;
use crate::harness::{Category, Harness, Mismatch};
use crate::mutate::{self, random_multibyte_char, Malformation, Mutation};
use crate::rng::Rng;

/// Result of a step: the first mismatch stops it.
pub type StepResult = Result<(), Box<Mismatch>>;

/// A harness plus the state of every input maker.
#[derive(Debug)]
pub struct Runner {
    /// The harness that checks the inputs and keeps count.
    pub harness: Harness,
    rng: Rng,
    corpus: Vec<CorpusFile>,
    corpus_visits: usize,
    synthetic_visits: usize,
    exhaustive_next: u64,
    builder: Builder,
    buf: Vec<u8>,
}

impl Runner {
    /// A runner whose inputs all derive from `seed`, over `corpus`.
    pub fn new(harness: Harness, seed: u64, corpus: Vec<CorpusFile>) -> Runner {
        Runner {
            harness,
            rng: Rng::derive(seed, 0xD1FF),
            corpus,
            corpus_visits: 0,
            synthetic_visits: 0,
            exhaustive_next: 0,
            builder: Builder::new(),
            buf: Vec::new(),
        }
    }

    /// The corpus files.
    pub fn corpus(&self) -> &[CorpusFile] {
        &self.corpus
    }

    /// The next position in the exhaustive space (counting passes: pass
    /// `p` covers `p * TOTAL .. (p + 1) * TOTAL`).
    pub fn exhaustive_position(&self) -> u64 {
        self.exhaustive_next
    }

    /// Start the exhaustive category at `position` instead of 0.
    pub fn set_exhaustive_position(&mut self, position: u64) {
        self.exhaustive_next = position;
    }

    /// One step of `category` with the default batch sizes.
    ///
    /// # Errors
    /// The first mismatch.
    pub fn step(&mut self, category: Category) -> StepResult {
        match category {
            Category::Corpus => self.corpus_step(8),
            Category::Synthetic => self.synthetic_step(4 << 20),
            Category::Mutation => self.mutation_step(),
            Category::Exhaustive => self.exhaustive_step(20_000),
            Category::Random => self.random_step(1_000),
            Category::External => Ok(()),
        }
    }

    /// The next corpus file: whole, then `slices` slices whose start offset
    /// moves through every residue modulo 64 over successive visits and
    /// whose end is cut by 0 to 63 bytes, then two random windows. Does
    /// nothing without corpus files.
    ///
    /// # Errors
    /// The first mismatch.
    pub fn corpus_step(&mut self, slices: usize) -> StepResult {
        if self.corpus.is_empty() {
            return Ok(());
        }
        let visit = self.corpus_visits;
        self.corpus_visits += 1;
        let file = &self.corpus[visit % self.corpus.len()];
        let bytes = &file.bytes;
        let round = visit / self.corpus.len();
        self.harness.check(Category::Corpus, bytes)?;
        let len = bytes.len();
        for j in 0..slices {
            let start = ((round * slices + j) % 64).min(len);
            let end = len - self.rng.below(64.min(len - start + 1));
            self.harness.check(Category::Corpus, &bytes[start..end])?;
        }
        for _ in 0..2 {
            let size = self.rng.log_size(1, len.max(1)).min(len);
            let start = self.rng.below(len - size + 1);
            self.harness
                .check(Category::Corpus, &bytes[start..start + size])?;
        }
        Ok(())
    }

    /// A text in the next script, of a random size up to `max_len` bytes
    /// (new text each time), checked whole and as three slices that shift
    /// its alignment.
    ///
    /// # Errors
    /// The first mismatch.
    pub fn synthetic_step(&mut self, max_len: usize) -> StepResult {
        let script = Script::ALL[self.synthetic_visits % Script::ALL.len()];
        self.synthetic_visits += 1;
        let len = self.rng.log_size(1, max_len);
        self.buf.clear();
        script.generate_into(&mut self.rng, len, &mut self.buf);
        let text = &self.buf;
        self.harness.check(Category::Synthetic, text)?;
        for _ in 0..3 {
            let start = self.rng.below(64.min(len + 1));
            let end = len - self.rng.below(64.min(len - start + 1));
            self.harness.check(Category::Synthetic, &text[start..end])?;
        }
        Ok(())
    }

    /// A base text (generated in a random script, or a window of a corpus
    /// file) of 3 to 64 blocks and one [`mutate::round`] of mutations of
    /// it.
    ///
    /// # Errors
    /// The first mismatch.
    pub fn mutation_step(&mut self) -> StepResult {
        let len = self.rng.log_size(192, 4096);
        let mut base = Vec::with_capacity(len);
        if !self.corpus.is_empty() && self.rng.one_in(3) {
            let file = &self.corpus[self.rng.below(self.corpus.len())].bytes;
            let size = len.min(file.len());
            let start = self.rng.below(file.len() - size + 1);
            base.extend_from_slice(&file[start..start + size]);
        } else {
            let script = *self.rng.pick(Script::ALL);
            script.generate_into(&mut self.rng, len, &mut base);
        }
        self.mutate(&base)
    }

    /// Every mutation of one round over `base`.
    ///
    /// # Errors
    /// The first mismatch.
    pub fn mutate(&mut self, base: &[u8]) -> StepResult {
        let mut input = Vec::with_capacity(base.len() + 8);
        for m in mutate::round(base, &mut self.rng) {
            m.apply_into(base, &mut input);
            self.harness.check(Category::Mutation, &input)?;
        }
        Ok(())
    }

    /// The next `count` sequences of the exhaustive space, plus one sampled
    /// 4-byte sequence with another lead byte for every 16.
    ///
    /// # Errors
    /// The first mismatch.
    pub fn exhaustive_step(&mut self, count: u64) -> StepResult {
        let start = self.exhaustive_next;
        self.exhaustive_next += count;
        self.exhaustive_range(start, start + count)?;
        for _ in 0..count / 16 {
            let seq = exhaustive::sample_other_four(&mut self.rng);
            let p = exhaustive::placement(self.rng.next_u64(), 0);
            let input = self.builder.build(seq.as_slice(), p);
            self.harness.check(Category::Exhaustive, input)?;
        }
        Ok(())
    }

    /// Positions `start..end` of the exhaustive space (counting passes, see
    /// [`exhaustive_position`](Self::exhaustive_position)).
    ///
    /// # Errors
    /// The first mismatch.
    pub fn exhaustive_range(&mut self, start: u64, end: u64) -> StepResult {
        for i in start..end {
            let (pass, index) = (i / exhaustive::TOTAL, i % exhaustive::TOTAL);
            let seq = exhaustive::sequence(index);
            let input = self
                .builder
                .build(seq.as_slice(), exhaustive::placement(index, pass));
            self.harness.check(Category::Exhaustive, input)?;
        }
        Ok(())
    }

    /// Every sequence with index in `indices` at every placement.
    ///
    /// # Errors
    /// The first mismatch.
    pub fn exhaustive_all_placements(&mut self, indices: std::ops::Range<u64>) -> StepResult {
        for index in indices {
            let seq = exhaustive::sequence(index);
            for pass in 0..exhaustive::PLACEMENTS {
                let p = exhaustive::placement(index, pass);
                let input = self.builder.build(seq.as_slice(), p);
                self.harness.check(Category::Exhaustive, input)?;
            }
        }
        Ok(())
    }

    /// `count` random inputs (see [`random_input`]).
    ///
    /// # Errors
    /// The first mismatch.
    pub fn random_step(&mut self, count: usize) -> StepResult {
        let mut input = Vec::new();
        for _ in 0..count {
            random_input(&mut self.rng, &mut input);
            self.harness.check(Category::Random, &input)?;
        }
        Ok(())
    }
}

/// A random input of up to about 2 KiB, in one of three styles: valid text
/// with at most one defect, a free mix of ASCII runs, characters,
/// malformations and random bytes, or uniformly random bytes.
pub fn random_input(rng: &mut Rng, out: &mut Vec<u8>) {
    out.clear();
    let target = rng.log_size(0, 2048);
    let style = rng.below(8);
    if style == 0 {
        out.extend((0..target).map(|_| rng.byte(0, 0xFF)));
        return;
    }
    let clean = style < 4;
    while out.len() < target {
        match rng.below(if clean { 7 } else { 10 }) {
            0..=2 => {
                // An ASCII run, sometimes up to the next block boundary.
                let n = match rng.below(8) {
                    0 | 1 => 64 - out.len() % 64,
                    2 => rng.range(200, 700),
                    _ => rng.range(1, 70),
                };
                out.extend((0..n).map(|_| rng.byte(0x20, 0x7E)));
            }
            3..=5 => {
                let c = random_multibyte_char(rng);
                let mut buf = [0u8; 4];
                let bytes = c.encode_utf8(&mut buf).as_bytes();
                for _ in 0..rng.range(1, 8) {
                    out.extend_from_slice(bytes);
                }
            }
            6 => {
                let script = *rng.pick(Script::ALL);
                let n = rng.range(1, 200);
                script.generate_into(rng, n, out);
            }
            7 | 8 => out.extend(rng.pick(Malformation::ALL).bytes(rng)),
            _ => out.push(rng.byte(0x80, 0xFF)),
        }
    }
    if clean && rng.one_in(2) {
        let at = rng.below(out.len() + 1);
        let class = *rng.pick(Malformation::ALL);
        let m = Mutation::Insert {
            at,
            bytes: class.bytes(rng),
        };
        let base = std::mem::take(out);
        m.apply_into(&base, out);
    }
}
