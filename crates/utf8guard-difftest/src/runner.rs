//! The input makers of each category, as steps a driver can interleave:
//! the `difftest` binary runs them until its time is spent, the tests run a
//! fixed number of each. Each step makes its inputs for every dialect of
//! the harness in turn, each checked in its own dialect.

use utf8guard::Dialect;

use crate::corpus::CorpusFile;
use crate::encode;
use crate::exhaustive::{self, Builder};
use crate::generate::{self, Script};
use crate::harness::{Category, Harness, Mismatch};
use crate::mutate::{self, random_multibyte_char, Mutation, Piece};
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
    /// The corpus re-encoded in each dialect of the harness where that
    /// changes it ([`encode::transcode`]): per dialect, per file, `None`
    /// where the file is the same.
    transcoded: Vec<(Dialect, Vec<Option<Vec<u8>>>)>,
    corpus_visits: usize,
    synthetic_visits: usize,
    exhaustive_next: u64,
    builder: Builder,
    buf: Vec<u8>,
}

/// File `index` of the corpus, in `dialect`.
fn corpus_file<'a>(
    corpus: &'a [CorpusFile],
    transcoded: &'a [(Dialect, Vec<Option<Vec<u8>>>)],
    dialect: Dialect,
    index: usize,
) -> &'a [u8] {
    transcoded
        .iter()
        .find(|(d, _)| *d == dialect)
        .and_then(|(_, files)| files[index].as_deref())
        .unwrap_or(&corpus[index].bytes)
}

impl Runner {
    /// A runner whose inputs all derive from `seed`, over `corpus`.
    pub fn new(harness: Harness, seed: u64, corpus: Vec<CorpusFile>) -> Runner {
        let transcoded = harness
            .dialects()
            .iter()
            .filter(|&&d| d != Dialect::Utf8)
            .map(|&d| {
                let files = corpus
                    .iter()
                    .map(|f| Some(encode::transcode(d, &f.bytes)).filter(|t| *t != f.bytes))
                    .collect();
                (d, files)
            })
            .collect();
        Runner {
            harness,
            rng: Rng::derive(seed, 0xD1FF),
            corpus,
            transcoded,
            corpus_visits: 0,
            synthetic_visits: 0,
            exhaustive_next: 0,
            builder: Builder::new(),
            buf: Vec::new(),
        }
    }

    /// The dialects the runner makes inputs for (those of its harness).
    fn dialects(&self) -> Vec<Dialect> {
        self.harness.dialects().to_vec()
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

    /// The next corpus file, in each dialect (re-encoded): whole, then
    /// `slices` slices whose start offset moves through every residue
    /// modulo 64 over successive visits and whose end is cut by 0 to 63
    /// bytes, then two random windows. Does nothing without corpus files.
    ///
    /// # Errors
    /// The first mismatch.
    pub fn corpus_step(&mut self, slices: usize) -> StepResult {
        if self.corpus.is_empty() {
            return Ok(());
        }
        let visit = self.corpus_visits;
        self.corpus_visits += 1;
        let index = visit % self.corpus.len();
        let round = visit / self.corpus.len();
        for dialect in self.dialects() {
            let bytes = corpus_file(&self.corpus, &self.transcoded, dialect, index);
            let (harness, rng) = (&mut self.harness, &mut self.rng);
            harness.check_in(Category::Corpus, dialect, bytes)?;
            let len = bytes.len();
            for j in 0..slices {
                let start = ((round * slices + j) % 64).min(len);
                let end = len - rng.below(64.min(len - start + 1));
                harness.check_in(Category::Corpus, dialect, &bytes[start..end])?;
            }
            for _ in 0..2 {
                let size = rng.log_size(1, len.max(1)).min(len);
                let start = rng.below(len - size + 1);
                harness.check_in(Category::Corpus, dialect, &bytes[start..start + size])?;
            }
        }
        Ok(())
    }

    /// A text in the next script, in each dialect, of a random size up to
    /// `max_len` bytes (new text each time), checked whole and as three
    /// slices that shift its alignment.
    ///
    /// # Errors
    /// The first mismatch.
    pub fn synthetic_step(&mut self, max_len: usize) -> StepResult {
        let script = Script::ALL[self.synthetic_visits % Script::ALL.len()];
        self.synthetic_visits += 1;
        for dialect in self.dialects() {
            let len = self.rng.log_size(1, max_len);
            self.buf.clear();
            script.generate_in(dialect, &mut self.rng, len, &mut self.buf);
            let text = &self.buf;
            self.harness.check_in(Category::Synthetic, dialect, text)?;
            for _ in 0..3 {
                let start = self.rng.below(64.min(len + 1));
                let end = len - self.rng.below(64.min(len - start + 1));
                self.harness
                    .check_in(Category::Synthetic, dialect, &text[start..end])?;
            }
        }
        Ok(())
    }

    /// In each dialect, a base text (generated in a random script, or a
    /// window of a corpus file) of 3 to 64 blocks and one
    /// [`mutate::round_in`] of mutations of it.
    ///
    /// # Errors
    /// The first mismatch.
    pub fn mutation_step(&mut self) -> StepResult {
        for dialect in self.dialects() {
            let len = self.rng.log_size(192, 4096);
            let mut base = Vec::with_capacity(len);
            if !self.corpus.is_empty() && self.rng.one_in(3) {
                let index = self.rng.below(self.corpus.len());
                let file = corpus_file(&self.corpus, &self.transcoded, dialect, index);
                let size = len.min(file.len());
                let start = self.rng.below(file.len() - size + 1);
                base.extend_from_slice(&file[start..start + size]);
            } else {
                let script = *self.rng.pick(Script::ALL);
                script.generate_in(dialect, &mut self.rng, len, &mut base);
            }
            self.mutate_in(dialect, &base)?;
        }
        Ok(())
    }

    /// Every mutation of one round over `base`, UTF-8 text, checked in
    /// strict UTF-8: [`mutate_in`](Self::mutate_in) for [`Dialect::Utf8`].
    ///
    /// # Errors
    /// The first mismatch.
    pub fn mutate(&mut self, base: &[u8]) -> StepResult {
        self.mutate_in(Dialect::Utf8, base)
    }

    /// Every mutation of one [`mutate::round_in`] over `base`, text of
    /// `dialect`, checked in `dialect`.
    ///
    /// # Errors
    /// The first mismatch.
    pub fn mutate_in(&mut self, dialect: Dialect, base: &[u8]) -> StepResult {
        let mut input = Vec::with_capacity(base.len() + 8);
        for m in mutate::round_in(dialect, base, &mut self.rng) {
            m.apply_into(base, &mut input);
            self.harness.check_in(Category::Mutation, dialect, &input)?;
        }
        Ok(())
    }

    /// The next `count` sequences of the exhaustive space, in each dialect,
    /// plus for every 16 one sampled 4-byte sequence with another lead byte
    /// and, in the dialects other than strict UTF-8, one sampled 5- or
    /// 6-byte sequence.
    ///
    /// # Errors
    /// The first mismatch.
    pub fn exhaustive_step(&mut self, count: u64) -> StepResult {
        let start = self.exhaustive_next;
        self.exhaustive_next += count;
        self.exhaustive_range(start, start + count)?;
        for dialect in self.dialects() {
            for _ in 0..count / 16 {
                let mut samples = vec![exhaustive::sample_other_four(&mut self.rng)];
                if dialect != Dialect::Utf8 {
                    samples.push(exhaustive::sample_long(&mut self.rng));
                }
                for seq in samples {
                    let p = exhaustive::placement(self.rng.next_u64(), 0);
                    let input = self.builder.build_in(dialect, seq.as_slice(), p);
                    self.harness
                        .check_in(Category::Exhaustive, dialect, input)?;
                }
            }
        }
        Ok(())
    }

    /// Positions `start..end` of the exhaustive space (counting passes, see
    /// [`exhaustive_position`](Self::exhaustive_position)), each in every
    /// dialect.
    ///
    /// # Errors
    /// The first mismatch.
    pub fn exhaustive_range(&mut self, start: u64, end: u64) -> StepResult {
        let dialects = self.dialects();
        for i in start..end {
            let (pass, index) = (i / exhaustive::TOTAL, i % exhaustive::TOTAL);
            let seq = exhaustive::sequence(index);
            let p = exhaustive::placement(index, pass);
            for &dialect in &dialects {
                let input = self.builder.build_in(dialect, seq.as_slice(), p);
                self.harness
                    .check_in(Category::Exhaustive, dialect, input)?;
            }
        }
        Ok(())
    }

    /// Every sequence with index in `indices` at every placement, in every
    /// dialect.
    ///
    /// # Errors
    /// The first mismatch.
    pub fn exhaustive_all_placements(&mut self, indices: std::ops::Range<u64>) -> StepResult {
        let dialects = self.dialects();
        for index in indices {
            let seq = exhaustive::sequence(index);
            for pass in 0..exhaustive::PLACEMENTS {
                let p = exhaustive::placement(index, pass);
                for &dialect in &dialects {
                    let input = self.builder.build_in(dialect, seq.as_slice(), p);
                    self.harness
                        .check_in(Category::Exhaustive, dialect, input)?;
                }
            }
        }
        Ok(())
    }

    /// `count` random inputs in each dialect (see [`random_input_in`]).
    ///
    /// # Errors
    /// The first mismatch.
    pub fn random_step(&mut self, count: usize) -> StepResult {
        let mut input = Vec::new();
        for dialect in self.dialects() {
            for _ in 0..count {
                random_input_in(dialect, &mut self.rng, &mut input);
                self.harness.check_in(Category::Random, dialect, &input)?;
            }
        }
        Ok(())
    }
}

/// A random input of up to about 2 KiB, in one of three styles: valid text
/// with at most one defect, a free mix of ASCII runs, characters,
/// malformations and random bytes, or uniformly random bytes.
pub fn random_input(rng: &mut Rng, out: &mut Vec<u8>) {
    random_input_in(Dialect::Utf8, rng, out);
}

/// [`random_input`] for `dialect`: its characters are the dialect's
/// (written by its encoder, with what only the dialect has mixed in:
/// [`generate::dialect_extra_bytes`]), its malformations any [`Piece`]
/// (the [`Foreign`](crate::Foreign) sequences too, outside strict UTF-8).
/// The pieces of the clean style are each well formed in `dialect`; in
/// WTF-8 two of them may still meet as a lead and a trail surrogate.
pub fn random_input_in(dialect: Dialect, rng: &mut Rng, out: &mut Vec<u8>) {
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
            3..=5 if dialect == Dialect::Utf8 => {
                let c = random_multibyte_char(rng);
                let mut buf = [0u8; 4];
                let bytes = c.encode_utf8(&mut buf).as_bytes();
                for _ in 0..rng.range(1, 8) {
                    out.extend_from_slice(bytes);
                }
            }
            3..=5 => {
                let mut bytes = Vec::new();
                if rng.one_in(3) {
                    generate::dialect_extra_bytes(dialect, rng, &mut bytes);
                } else {
                    encode::push(dialect, encode::random_code_point(dialect, rng), &mut bytes);
                }
                for _ in 0..rng.range(1, 8) {
                    out.extend_from_slice(&bytes);
                }
            }
            6 => {
                let script = *rng.pick(Script::ALL);
                let n = rng.range(1, 200);
                script.generate_in(dialect, rng, n, out);
            }
            7 | 8 => out.extend(Piece::random(dialect, rng).bytes(rng)),
            _ => out.push(rng.byte(0x80, 0xFF)),
        }
    }
    if clean && rng.one_in(2) {
        let at = rng.below(out.len() + 1);
        let class = Piece::random(dialect, rng);
        let m = Mutation::Insert {
            at,
            bytes: class.bytes(rng),
        };
        let base = std::mem::take(out);
        m.apply_into(&base, out);
    }
}
