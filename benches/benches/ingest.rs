//! The ingestion APIs against their sequential and std counterparts, side
//! by side in one run.
//!
//! Groups (criterion group ids):
//! - `par-256MiB`: `par::validate` and `par::from_utf8` against the
//!   sequential `validate` and `from_utf8` (and simdutf8) on 256 MiB of text.
//! - `par-threshold`: sequential against split validation (one chunk per
//!   pool thread, and four) by input size: where splitting starts to pay,
//!   which sets `par::THRESHOLD`.
//! - `stream-64MiB`: `StreamValidator` fed 64 KiB (and 4 KiB) chunks against
//!   one `from_utf8` call over the same 64 MiB.
//! - `lossy`: `from_utf8_lossy` against `String::from_utf8_lossy` on valid
//!   text and on text with 0.1% of its bytes invalid (one invalid byte
//!   inserted every thousand bytes on average).
//! - `offsets-1M`: `validate_offsets` over a million short strings against
//!   a loop of `std::str::from_utf8` (and of `utf8guard::from_utf8`, and
//!   `validate_batch`) per string.
//!
//! The text is the shared lipsum corpora (`../shared/corpora/lipsum`), or,
//! when that folder is absent, generated multilingual text (said on stderr).

use std::borrow::Cow;
use std::hint::black_box;
use std::path::Path;

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use utf8guard::{par, StreamValidator};

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;

/// Valid UTF-8 text: the lipsum corpora, concatenated, or generated text.
fn text() -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora/lipsum");
    let mut text = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut paths: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(".utf8.txt"))
            .collect();
        paths.sort();
        for path in paths {
            text.extend_from_slice(&std::fs::read(&path).expect("reading a corpus file"));
        }
    }
    if text.is_empty() {
        eprintln!(
            "ingest: corpus folder {} is absent or empty; using generated text",
            dir.display()
        );
        let words = [
            "lorem",
            "ipsum",
            "Größe",
            "café",
            "naïve",
            "Ελληνικά",
            "русский",
            "עברית",
            "العربية",
            "हिन्दी",
            "日本語",
            "中文",
            "한국어",
            "😀",
            "🚀",
            "dolor",
            "sit",
            "amet",
        ];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        while text.len() < 800 * KIB {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            text.extend_from_slice(words[(x % words.len() as u64) as usize].as_bytes());
            text.push(if x.is_multiple_of(11) { b'\n' } else { b' ' });
        }
    }
    assert!(
        std::str::from_utf8(&text).is_ok(),
        "the bench text must be valid"
    );
    text
}

/// `text` repeated to exactly `len` bytes, cut at a character boundary
/// (then padded with ASCII).
fn repeated(text: &[u8], len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        let take = text.len().min(len - out.len());
        out.extend_from_slice(&text[..take]);
    }
    while std::str::from_utf8(&out).is_err() {
        out.pop();
    }
    out.resize(len, b' ');
    out
}

/// `text` with 0.1% of its bytes invalid: one byte that can never be part
/// of a character (`FF`, a stray `80`, `C0`, `F8`) inserted between two
/// characters every thousand bytes on average, at pseudo-random places.
fn damaged(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + text.len() / 1000 + 1);
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = 0;
    for (i, &byte) in text.iter().enumerate() {
        if i >= next && byte & 0xC0 != 0x80 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            out.push([0xFF, 0x80, 0xC0, 0xF8][(x >> 32) as usize % 4]);
            next = i + 1 + (x % 1999) as usize;
        }
        out.push(byte);
    }
    out
}

fn par_256mib(c: &mut Criterion, text: &[u8]) {
    let input = repeated(text, 256 * MIB);
    assert!(utf8guard::validate(&input) && par::validate(&input));
    eprintln!("ingest: rayon pool of {} threads", pool_threads());
    let mut group = c.benchmark_group("par-256MiB");
    group.throughput(Throughput::Bytes(input.len() as u64));
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.bench_function("sequential/validate", |b| {
        b.iter(|| utf8guard::validate(black_box(&input)))
    });
    group.bench_function("par/validate", |b| {
        b.iter(|| par::validate(black_box(&input)))
    });
    group.bench_function("sequential/from_utf8", |b| {
        b.iter(|| utf8guard::from_utf8(black_box(&input)).is_ok())
    });
    group.bench_function("par/from_utf8", |b| {
        b.iter(|| par::from_utf8(black_box(&input)).is_ok())
    });
    group.bench_function("simdutf8/basic", |b| {
        b.iter(|| simdutf8::basic::from_utf8(black_box(&input)).is_ok())
    });
    group.finish();
}

fn pool_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn par_threshold(c: &mut Criterion, text: &[u8]) {
    let threads = pool_threads().max(1);
    let mut group = c.benchmark_group("par-threshold");
    for size in [
        64 * KIB,
        128 * KIB,
        256 * KIB,
        512 * KIB,
        MIB,
        2 * MIB,
        4 * MIB,
    ] {
        let input = repeated(text, size);
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::new("sequential", size), &input, |b, input| {
            b.iter(|| utf8guard::validate(black_box(input)))
        });
        for per_thread in [1, 4] {
            let chunk = size.div_ceil(threads * per_thread);
            let name = format!("split-{per_thread}-per-thread");
            group.bench_with_input(BenchmarkId::new(name, size), &input, |b, input| {
                b.iter(|| par::validate_split(black_box(input), chunk))
            });
        }
    }
    group.finish();
}

fn stream_64mib(c: &mut Criterion, text: &[u8]) {
    let input = repeated(text, 64 * MIB);
    let mut group = c.benchmark_group("stream-64MiB");
    group.throughput(Throughput::Bytes(input.len() as u64));
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.bench_function("one-shot/from_utf8", |b| {
        b.iter(|| utf8guard::from_utf8(black_box(&input)).is_ok())
    });
    for chunk in [64 * KIB, 4 * KIB] {
        group.bench_function(format!("stream/{}KiB", chunk / KIB), |b| {
            b.iter(|| {
                let mut stream = StreamValidator::new();
                for piece in black_box(&input).chunks(chunk) {
                    if stream.update(piece).is_err() {
                        break;
                    }
                }
                stream.finish().is_ok()
            })
        });
    }
    group.bench_function("simdutf8/compat", |b| {
        b.iter(|| simdutf8::compat::from_utf8(black_box(&input)).is_ok())
    });
    group.finish();
}

fn lossy(c: &mut Criterion, text: &[u8]) {
    let bad = damaged(text);
    assert!(matches!(utf8guard::from_utf8_lossy(text), Cow::Borrowed(_)));
    assert_eq!(
        utf8guard::from_utf8_lossy(&bad),
        String::from_utf8_lossy(&bad)
    );
    let mut group = c.benchmark_group("lossy");
    for (label, input) in [("valid", text), ("0.1%-invalid", &bad[..])] {
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.bench_with_input(BenchmarkId::new("std", label), input, |b, input| {
            b.iter(|| String::from_utf8_lossy(black_box(input)).len())
        });
        group.bench_with_input(BenchmarkId::new("utf8guard", label), input, |b, input| {
            b.iter(|| utf8guard::from_utf8_lossy(black_box(input)).len())
        });
    }
    group.finish();
}

fn offsets_1m(c: &mut Criterion, text: &[u8]) {
    // The words of the text (space- and line-separated), cycled: a million
    // short strings of real text, as a column would hold them.
    let text = std::str::from_utf8(text).unwrap();
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut values = Vec::new();
    let mut offsets = vec![0i32];
    for word in words.iter().cycle().take(1_000_000) {
        values.extend_from_slice(word.as_bytes());
        offsets.push(values.len() as i32);
    }
    let strings: Vec<&[u8]> = offsets
        .windows(2)
        .map(|w| &values[w[0] as usize..w[1] as usize])
        .collect();
    assert_eq!(utf8guard::validate_offsets(&values, &offsets), Ok(()));
    eprintln!(
        "ingest: offsets-1M: {} strings, {} bytes of values",
        strings.len(),
        values.len()
    );

    let mut group = c.benchmark_group("offsets-1M");
    group.throughput(Throughput::Elements(strings.len() as u64));
    group.sample_size(20);
    group.bench_function("validate_offsets", |b| {
        b.iter(|| utf8guard::validate_offsets(black_box(&values), black_box(&offsets)).is_ok())
    });
    group.bench_function("std-loop", |b| {
        b.iter(|| {
            black_box(&offsets)
                .windows(2)
                .all(|w| std::str::from_utf8(&values[w[0] as usize..w[1] as usize]).is_ok())
        })
    });
    group.bench_function("utf8guard-loop", |b| {
        b.iter(|| {
            black_box(&offsets)
                .windows(2)
                .all(|w| utf8guard::from_utf8(&values[w[0] as usize..w[1] as usize]).is_ok())
        })
    });
    group.bench_function("validate_batch", |b| {
        b.iter(|| utf8guard::validate_batch(black_box(&strings)).is_ok())
    });
    group.finish();
}

fn ingest(c: &mut Criterion) {
    let text = text();
    eprintln!(
        "ingest: {} bytes of text; kernel {}",
        text.len(),
        utf8guard::active_kernel()
    );
    par_256mib(c, &text);
    par_threshold(c, &text);
    stream_64mib(c, &text);
    lossy(c, &text);
    offsets_1m(c, &text);
}

criterion_group!(benches, ingest);
criterion_main!(benches);
