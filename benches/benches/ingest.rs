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

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use utf8guard::{par, StreamValidator};
use utf8guard_bench::inputs::{column, damaged, ingest_text, repeated};

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;

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
    let (values, offsets) = column(text, 1_000_000);
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
    utf8guard_bench::require_kernel_override();
    let text = ingest_text();
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
