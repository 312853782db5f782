//! The goals' comparisons, timed in pairs: the contestants of each take
//! turns round after round on the same input (see `utf8guard_bench::paired`
//! for why), so that a change in the machine's speed falls on all of them.
//!
//! Comparisons (`group/label`, the same inputs as the criterion groups of
//! the same name in `validate` and `ingest`):
//! - `lipsum/<script>`: utf8guard's two entry points against std, simdutf8
//!   and simdutf on each lipsum file.
//! - `short-ascii/<n>`, `short-text/<n>` (n = 8, 16, 24, 32): the same
//!   implementations on 4096 different strings of n bytes, one by one.
//! - `invalid-1MiB/<entry point>`: the valid input against the inputs with
//!   an error in their last bytes.
//! - `par-256MiB`, `stream-64MiB`, `lossy/<input>`, `offsets-1M`: the
//!   ingestion APIs against their sequential or std counterparts; with the
//!   parallel API, a loop that only reads the buffer (on one thread and on
//!   two), for the ceiling the machine's memory sets.
//!
//! Usage: `paired [--out FILE] [FILTER...]`: only the comparisons whose
//! `group/label` contains one of the filters run; each outcome is printed
//! as a summary and, with `--out`, written to FILE as one JSON line.
//! `UTF8GUARD_BENCH_MODE=quick` gives each comparison an eighth of the time.

use std::borrow::Cow;

use utf8guard::{par, StreamValidator};
use utf8guard_bench::inputs::{self, column, damaged, ingest_text, repeated, ErrorAt, SHORT_POOL};
use utf8guard_bench::paired::{Comparison, Runner};
use utf8guard_bench::{assert_agrees, for_each_validator, Mode, Validator, Verdict, Visit};

/// The implementations the report's headline compares (no forced kernel:
/// the dispatched entry points stand for utf8guard).
const MAIN: [&str; 7] = [
    "utf8guard",
    "utf8guard from_utf8",
    "std",
    "simdutf8 basic",
    "simdutf8 compat",
    "simdutf",
    "simdutf with_errors",
];

/// A verdict as a number for `black_box`: every field a benchmark must not
/// skip computing goes into it.
fn word(verdict: Verdict) -> u64 {
    match verdict {
        Verdict::Valid => u64::MAX,
        Verdict::Invalid => u64::MAX - 1,
        Verdict::Error {
            valid_up_to,
            error_len,
        } => ((valid_up_to as u64) << 3) | error_len.map_or(0, |n| n as u64),
        Verdict::ErrorAt { valid_up_to } => valid_up_to as u64,
    }
}

/// Adds the main implementations as contestants, each validating `input`
/// (checked against std first).
struct OnInput<'c, 'a> {
    cmp: &'c mut Comparison<'a>,
    input: &'a [u8],
    label: &'a str,
}

impl Visit for OnInput<'_, '_> {
    fn visit<V: Validator + Copy + 'static>(&mut self, v: &V) {
        if !MAIN.contains(&v.name().as_str()) {
            return;
        }
        assert_agrees(v, self.input, self.label);
        let (v, input) = (*v, self.input);
        self.cmp
            .add(v.name(), move || word(v.check(std::hint::black_box(input))));
    }
}

/// The same on a batch of strings, validated one by one.
struct OnStrings<'c, 'a> {
    cmp: &'c mut Comparison<'a>,
    strings: &'a [&'a [u8]],
    label: &'a str,
}

impl Visit for OnStrings<'_, '_> {
    fn visit<V: Validator + Copy + 'static>(&mut self, v: &V) {
        if !MAIN.contains(&v.name().as_str()) {
            return;
        }
        for s in self.strings {
            assert_agrees(v, s, self.label);
        }
        let (v, strings) = (*v, self.strings);
        self.cmp.add(v.name(), move || {
            strings
                .iter()
                .filter(|s| v.check(std::hint::black_box(s)) == Verdict::Valid)
                .count() as u64
        });
    }
}

fn lipsum(r: &mut Runner) {
    let files = match inputs::lipsum() {
        Ok(files) => files,
        Err(why) => {
            eprintln!("paired: lipsum skipped: {why}");
            return;
        }
    };
    for file in &files {
        let mut cmp = Comparison::new("lipsum", &file.name, file.bytes.len() as u64);
        if !r.wanted(&cmp.id()) {
            continue;
        }
        for_each_validator(&mut OnInput {
            cmp: &mut cmp,
            input: &file.bytes,
            label: &file.name,
        });
        r.run(cmp, 4.0);
    }
}

fn short_strings(r: &mut Runner) {
    let (texts, _) = inputs::text_sources();
    let sources: Vec<&[u8]> = texts.iter().map(Vec::as_slice).collect();
    for (group, want_ascii) in [("short-ascii", true), ("short-text", false)] {
        for len in [8, 16, 24, 32] {
            let label = len.to_string();
            if !r.wanted(&format!("{group}/{label}")) {
                continue;
            }
            let strings = inputs::windows(&sources, len, SHORT_POOL, want_ascii, len as u64)
                .unwrap_or_else(|why| panic!("{group}: {why}"));
            let slices = strings.slices();
            let mut cmp = Comparison::new(group, &label, strings.total_bytes() as u64);
            for_each_validator(&mut OnStrings {
                cmp: &mut cmp,
                strings: &slices,
                label: &label,
            });
            r.run(cmp, 2.0);
        }
    }
}

fn invalid(r: &mut Runner) {
    let cases: Vec<(&str, Vec<u8>)> = [ErrorAt::Nowhere, ErrorAt::End, ErrorAt::TruncatedEnd]
        .into_iter()
        .map(|at| (at.name(), at.input(1 << 20, 1).0))
        .collect();
    for entry in ["utf8guard", "utf8guard from_utf8"] {
        let mut cmp = Comparison::new("invalid-1MiB", entry, 1 << 20);
        if !r.wanted(&cmp.id()) {
            continue;
        }
        for (name, input) in &cases {
            let input = input.as_slice();
            assert_eq!(
                utf8guard::validate(input),
                std::str::from_utf8(input).is_ok()
            );
            if entry == "utf8guard" {
                cmp.add(*name, move || u64::from(utf8guard::validate(input)));
            } else {
                cmp.add(*name, move || match utf8guard::from_utf8(input) {
                    Ok(s) => s.len() as u64,
                    Err(e) => e.valid_up_to() as u64,
                });
            }
        }
        r.run(cmp, 3.0);
    }
}

fn ingest(r: &mut Runner) {
    let ids = ["par-256MiB", "stream-64MiB", "lossy/", "offsets-1M"];
    if !ids.iter().any(|id| r.wanted(id)) {
        return;
    }
    let text = ingest_text();

    if r.wanted("par-256MiB") {
        let input = repeated(&text, 256 << 20);
        assert!(utf8guard::validate(&input) && par::validate(&input));
        let mut cmp = Comparison::new("par-256MiB", "", input.len() as u64);
        cmp.add("sequential/validate", || {
            u64::from(utf8guard::validate(&input))
        });
        cmp.add("par/validate", || u64::from(par::validate(&input)));
        // What reading the buffer costs, validation aside: the ceiling the
        // memory of this machine puts on both.
        cmp.add("read only, 1 thread", || or_words(&input));
        cmp.add("read only, 2 threads", || {
            let (a, b) = input.split_at(input.len() / 2);
            std::thread::scope(|s| {
                let other = s.spawn(|| or_words(b));
                or_words(a) | other.join().expect("the reading thread")
            })
        });
        r.run(cmp, 10.0);
    }

    if r.wanted("stream-64MiB") {
        let input = repeated(&text, 64 << 20);
        let mut cmp = Comparison::new("stream-64MiB", "", input.len() as u64);
        cmp.add("one-shot/from_utf8", || {
            u64::from(utf8guard::from_utf8(&input).is_ok())
        });
        cmp.add("stream/64KiB", || {
            let mut stream = StreamValidator::new();
            for piece in input.chunks(64 << 10) {
                if stream.update(piece).is_err() {
                    break;
                }
            }
            u64::from(stream.finish().is_ok())
        });
        r.run(cmp, 4.0);
    }

    let bad = damaged(&text);
    assert!(matches!(
        utf8guard::from_utf8_lossy(&text),
        Cow::Borrowed(_)
    ));
    assert_eq!(
        utf8guard::from_utf8_lossy(&bad),
        String::from_utf8_lossy(&bad)
    );
    for (label, input) in [("valid", &text[..]), ("0.1%-invalid", &bad[..])] {
        let mut cmp = Comparison::new("lossy", label, input.len() as u64);
        if !r.wanted(&cmp.id()) {
            continue;
        }
        cmp.add("std", move || String::from_utf8_lossy(input).len() as u64);
        cmp.add("utf8guard", move || {
            utf8guard::from_utf8_lossy(input).len() as u64
        });
        r.run(cmp, 3.0);
    }

    if r.wanted("offsets-1M") {
        let (values, offsets) = column(&text, 1_000_000);
        assert_eq!(utf8guard::validate_offsets(&values, &offsets), Ok(()));
        let mut cmp = Comparison::new("offsets-1M", "", values.len() as u64);
        cmp.add("std-loop", || {
            u64::from(
                offsets
                    .windows(2)
                    .all(|w| std::str::from_utf8(&values[w[0] as usize..w[1] as usize]).is_ok()),
            )
        });
        cmp.add("validate_offsets", || {
            u64::from(utf8guard::validate_offsets(&values, &offsets).is_ok())
        });
        r.run(cmp, 3.0);
    }
}

/// The OR of every 8-byte word of `bytes` (a tail shorter than a word is
/// left out): a loop the compiler vectorizes, which reads every byte once
/// and does next to nothing with it.
fn or_words(bytes: &[u8]) -> u64 {
    bytes.chunks_exact(8).fold(0, |acc, w| {
        acc | u64::from_ne_bytes(w.try_into().expect("8 bytes"))
    })
}

fn main() {
    let mut r = Runner::from_args("paired");
    eprintln!(
        "paired: kernel {}, {} mode",
        utf8guard::active_kernel(),
        Mode::from_env().name()
    );
    lipsum(&mut r);
    short_strings(&mut r);
    invalid(&mut r);
    ingest(&mut r);
}
