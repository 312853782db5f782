//! Validation throughput of utf8guard against std, simdutf8 and simdutf,
//! side by side in one run.
//!
//! Groups (criterion group ids; the report script relies on them):
//! - `lipsum`: the shared lipsum corpora, one file at a time (in cache).
//! - `corpora`: the project's generated corpora, `corpora/synthetic` (valid
//!   text per script), when present.
//! - `corpora-malformed`: `corpora/malformed` (text with one class of error
//!   each): the time to the answer. Full mode only.
//! - `ascii`, `random`: pure ASCII and random 1-4-byte text, by size.
//! - `short-ascii`, `short-text`: thousands of different 8-32-byte strings
//!   (all ASCII, or with non-ASCII characters) validated one after the other.
//! - `parser`: 10 000 strings of 8-64 bytes, half of them non-ASCII.
//! - `invalid-1MiB`: 1 MiB of random text, valid or with its first error at
//!   the start, the middle or the end: the time to the answer.
//!
//! `UTF8GUARD_BENCH_MODE=quick` measures briefly and fewer sizes.

use std::hint::black_box;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput};
use utf8guard_bench::inputs::{self, ErrorAt, Strings, SHORT_POOL};
use utf8guard_bench::{
    assert_agrees, for_each_validator, note, one_by_one, Mode, Validator, Verdict, Visit,
};

/// Inputs this large are timed with flat sampling: a linear sample plan
/// would need far more iterations than the measurement time allows.
const FLAT_FROM: usize = 1 << 20;

/// Benchmarks every implementation on one input.
struct OneInput<'a, 'g> {
    group: &'a mut BenchmarkGroup<'g, WallTime>,
    label: &'a str,
    input: &'a [u8],
}

impl Visit for OneInput<'_, '_> {
    fn visit<V: Validator + Copy + 'static>(&mut self, v: &V) {
        assert_agrees(v, self.input, self.label);
        self.group.bench_with_input(
            BenchmarkId::new(v.name(), self.label),
            self.input,
            |b, input| b.iter(|| v.check(black_box(input))),
        );
    }
}

/// Benchmarks every implementation on a batch of strings, validated one by
/// one in order.
struct Batch<'a, 'g> {
    group: &'a mut BenchmarkGroup<'g, WallTime>,
    label: &'a str,
    strings: &'a [&'a [u8]],
}

impl Visit for Batch<'_, '_> {
    fn visit<V: Validator + Copy + 'static>(&mut self, v: &V) {
        for s in self.strings {
            assert_agrees(v, s, self.label);
        }
        self.group.bench_with_input(
            BenchmarkId::new(v.name(), self.label),
            self.strings,
            |b, strings| {
                b.iter(|| {
                    let mut valid = 0usize;
                    for s in one_by_one(strings) {
                        valid += usize::from(v.check(s) == Verdict::Valid);
                    }
                    valid
                })
            },
        );
    }
}

fn one_input(group: &mut BenchmarkGroup<'_, WallTime>, label: &str, input: &[u8]) {
    group.throughput(Throughput::Bytes(input.len() as u64));
    group.sampling_mode(if input.len() >= FLAT_FROM {
        SamplingMode::Flat
    } else {
        SamplingMode::Auto
    });
    for_each_validator(&mut OneInput {
        group,
        label,
        input,
    });
}

fn batch(group: &mut BenchmarkGroup<'_, WallTime>, label: &str, strings: &Strings) {
    let slices = strings.slices();
    group.throughput(Throughput::Bytes(strings.total_bytes() as u64));
    for_each_validator(&mut Batch {
        group,
        label,
        strings: &slices,
    });
}

fn lipsum(c: &mut Criterion) {
    let files = match inputs::lipsum() {
        Ok(files) => files,
        Err(why) => {
            note("skipped", &format!("lipsum: {why}"));
            return;
        }
    };
    note("lipsum", &inputs::lipsum_dir().display().to_string());
    let mut group = c.benchmark_group("lipsum");
    for file in &files {
        one_input(&mut group, &file.name, &file.bytes);
    }
    group.finish();
}

fn corpora(c: &mut Criterion, mode: Mode) {
    for (folder, group_name) in [("synthetic", "corpora"), ("malformed", "corpora-malformed")] {
        if folder == "malformed" && mode == Mode::Quick {
            note("skipped", "corpora-malformed: left out in quick mode");
            continue;
        }
        let files = match inputs::corpora(folder) {
            Ok(files) => files,
            Err(why) => {
                note("skipped", &format!("{group_name}: {why}"));
                continue;
            }
        };
        let mut group = c.benchmark_group(group_name);
        for file in &files {
            one_input(&mut group, &file.name, &file.bytes);
        }
        group.finish();
    }
}

fn sizes(c: &mut Criterion, mode: Mode, name: &str, make: fn(usize, u64) -> Vec<u8>) {
    let mut group = c.benchmark_group(name);
    for &size in mode.sizes() {
        let input = make(size, size as u64);
        one_input(&mut group, &size.to_string(), &input);
    }
    group.finish();
}

fn short_strings(c: &mut Criterion, sources: &[&[u8]]) {
    for (name, want_ascii) in [("short-ascii", true), ("short-text", false)] {
        let mut group = c.benchmark_group(name);
        for len in [8, 16, 24, 32] {
            let strings = inputs::windows(sources, len, SHORT_POOL, want_ascii, len as u64)
                .unwrap_or_else(|why| panic!("{name}: {why}"));
            batch(&mut group, &len.to_string(), &strings);
        }
        group.finish();
    }
}

fn parser(c: &mut Criterion, sources: &[&[u8]]) {
    let strings = inputs::parser_batch(sources, 10_000, 64).unwrap_or_else(|why| panic!("{why}"));
    let mut group = c.benchmark_group("parser");
    batch(&mut group, "10000-strings", &strings);
    group.finish();
}

fn invalid(c: &mut Criterion) {
    let mut group = c.benchmark_group("invalid-1MiB");
    for at in ErrorAt::ALL {
        let (input, _) = at.input(1 << 20, 1);
        one_input(&mut group, at.name(), &input);
    }
    group.finish();
}

fn main() {
    let mode = Mode::from_env();
    let mut c = mode.criterion();
    note("mode", mode.name());
    utf8guard_bench::note_kernels();

    let (texts, origin) = inputs::text_sources();
    note("short_strings_source", &origin);
    let sources: Vec<&[u8]> = texts.iter().map(Vec::as_slice).collect();

    lipsum(&mut c);
    corpora(&mut c, mode);
    short_strings(&mut c, &sources);
    parser(&mut c, &sources);
    sizes(&mut c, mode, "ascii", inputs::ascii);
    sizes(&mut c, mode, "random", inputs::random_text);
    invalid(&mut c);

    c.final_summary();
}
