//! utf8guard against std and simdutf8 compiled for the same target, on the
//! targets the main benchmarks do not build for (they link C++ and use
//! threads): WebAssembly, and big-endian s390x under qemu. Timed in turns,
//! the `paired` method of the main benchmarks: each round runs every
//! contestant once for about a millisecond, in an order that rotates;
//! ratios are medians of per-round ratios.
//!
//! As WebAssembly (`wasm32-wasip1`), with `-C target-feature=+simd128`
//! (utf8guard then dispatches to its `simd128` kernel, simdutf8 uses its
//! `simd128` implementation) or without (both run scalar code), under
//! Node.js's WASI, from the workspace root:
//!
//! ```sh
//! RUSTFLAGS="-C target-feature=+simd128" cargo build --release \
//!     --target wasm32-wasip1 --manifest-path benches/portable/Cargo.toml
//! WASI_PREOPENS=$PWD/../shared/corpora/lipsum UTF8GUARD_LIPSUM_DIR=$PWD/../shared/corpora/lipsum \
//!     node --no-liftoff --single-threaded scripts/wasi-run.mjs \
//!     benches/portable/target/wasm32-wasip1/release/utf8guard-bench-portable.wasm \
//!     [--quick] [--out FILE] [FILTER...]
//! ```
//!
//! (`--no-liftoff`: V8 compiles the module with its optimizing compiler
//! from the start, instead of its baseline compiler first, so every
//! contestant runs optimized code from its first turn.)
//!
//! On s390x, with the cross linker and qemu of `scripts/test.sh` (emulated:
//! the times say how many instructions each contestant runs, translated,
//! not how fast a real s390x is):
//!
//! ```sh
//! cargo build --release --target s390x-unknown-linux-gnu --manifest-path benches/portable/Cargo.toml
//! qemu-s390x -L /usr/s390x-linux-gnu \
//!     benches/portable/target/s390x-unknown-linux-gnu/release/utf8guard-bench-portable --quick
//! ```
//!
//! Comparisons (`group/label`, the group naming the target:
//! `wasm32-simd128`, `wasm32`, `s390x`): `lipsum/<script>` (when the lipsum
//! corpora are readable), `ascii-64KiB`, `random-64KiB` (1- to 4-byte
//! characters), and strings of 1 B to 1 KiB, `ascii/<n>` and `text/<n>`
//! (4096 of them, one by one); and `dialects/<script>`: each lipsum file
//! in every dialect of the family, validated by utf8guard's active kernel
//! (the `dialects` group of the `paired` target, for the kernel of this
//! target: ratios against strict UTF-8 on the same text). With
//! `--out FILE`, one JSON line per comparison, as the `paired` target
//! writes them.

use std::fs::File;
use std::hint::black_box;
use std::io::Write as _;
use std::time::Duration;

#[allow(dead_code)]
#[path = "../../inputs.rs"]
mod inputs;
#[allow(dead_code)]
#[path = "../../paired.rs"]
mod paired;

use paired::{Comparison, Outcome};
use utf8guard::{Dialect, Kernel, Policy};

/// A contestant: validates each input in turn and counts the valid ones.
fn count_valid<'a>(
    inputs: &'a [&'a [u8]],
    check: impl Fn(&[u8]) -> bool + 'a,
) -> impl FnMut() -> u64 + 'a {
    move || inputs.iter().filter(|s| check(black_box(s))).count() as u64
}

/// The contestants on `inputs`, each checked against std first.
fn comparison<'a>(label: &str, inputs: &'a [&'a [u8]]) -> Comparison<'a> {
    for input in inputs {
        let expected = std::str::from_utf8(input).map_err(|e| e.valid_up_to());
        assert_eq!(
            utf8guard::from_utf8(input).map_err(|e| e.valid_up_to()),
            expected
        );
        assert_eq!(
            simdutf8::compat::from_utf8(input).map_err(|e| e.valid_up_to()),
            expected
        );
        assert_eq!(simdutf8::basic::from_utf8(input).is_ok(), expected.is_ok());
        assert_eq!(Kernel::Scalar.validate(input), expected.is_ok());
    }
    let bytes = inputs.iter().map(|s| s.len() as u64).sum();
    let mut cmp = Comparison::new(&group(), label, bytes);
    cmp.add(
        "std",
        count_valid(inputs, |s| std::str::from_utf8(s).is_ok()),
    );
    cmp.add(
        "simdutf8 basic",
        count_valid(inputs, |s| simdutf8::basic::from_utf8(s).is_ok()),
    );
    cmp.add(
        "simdutf8 compat",
        count_valid(inputs, |s| simdutf8::compat::from_utf8(s).is_ok()),
    );
    cmp.add("utf8guard", count_valid(inputs, utf8guard::validate));
    cmp.add(
        "utf8guard from_utf8",
        count_valid(inputs, |s| utf8guard::from_utf8(s).is_ok()),
    );
    cmp.add(
        "utf8guard scalar",
        count_valid(inputs, |s| Kernel::Scalar.validate(s)),
    );
    cmp
}

/// Each dialect of the family on a lipsum file, `inputs` (made by
/// [`in_every_dialect`]; strict UTF-8 first, the reference of the
/// ratios), validated whole by the active kernel.
fn dialect_comparison<'a>(label: &str, inputs: &'a [(Dialect, Vec<u8>)]) -> Comparison<'a> {
    let mut cmp = Comparison::new(&group(), label, inputs[0].1.len() as u64);
    let kernel = utf8guard::active_kernel();
    for (d, bytes) in inputs {
        let (d, bytes) = (*d, bytes.as_slice());
        assert!(kernel.validate_dialect(d, bytes), "{label} in {d}");
        cmp.add_sized(d.name(), bytes.len() as u64, move || {
            u64::from(kernel.validate_dialect(d, black_box(bytes)))
        });
    }
    cmp
}

/// `text` (UTF-8) in each dialect, strict UTF-8 first.
fn in_every_dialect(text: &[u8]) -> Vec<(Dialect, Vec<u8>)> {
    let mut all = vec![(Dialect::Utf8, text.to_vec())];
    for &d in Dialect::ALL.iter().filter(|&&d| d != Dialect::Utf8) {
        let bytes = utf8guard::transcode(Dialect::Utf8, d, text, Policy::Strict)
            .unwrap_or_else(|e| panic!("the lipsum text in {d}: {e}"));
        all.push((d, bytes));
    }
    all
}

/// The target, as the comparisons' group: the architecture, and whether
/// WebAssembly's SIMD is compiled in.
fn group() -> String {
    let simd = if cfg!(target_feature = "simd128") {
        "-simd128"
    } else {
        ""
    };
    format!("{}{simd}", std::env::consts::ARCH)
}

fn summary(o: &Outcome) {
    let medians = o.medians();
    println!("{}/{} ({} rounds)", o.group, o.label, o.rounds);
    // Throughput (of each contestant's own input: the dialects' encodings
    // of a text differ in length) against the first contestant's (std, or
    // strict UTF-8 in the dialects' comparisons), and against simdutf8's
    // where it runs.
    let peer = o.names.iter().position(|n| n == "simdutf8 basic");
    for (c, name) in o.names.iter().enumerate() {
        print!(
            "  {name:20} {:>8.3} GB/s  x{:.2} vs {}",
            o.contestant_bytes[c] as f64 / medians[c],
            o.throughput_ratio(c, 0),
            o.names[0],
        );
        match peer {
            Some(p) => println!("  x{:.2} vs simdutf8 basic", o.throughput_ratio(c, p)),
            None => println!(),
        }
    }
}

fn main() {
    let mut filters = Vec::new();
    let mut out = None;
    let mut seconds = 1.0;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => seconds = 0.2,
            "--out" => {
                let path = args.next().expect("--out needs a file");
                out = Some(File::create(&path).unwrap_or_else(|e| panic!("{path}: {e}")));
            }
            flag if flag.starts_with("--") => panic!("unknown option {flag}"),
            filter => filters.push(filter.to_string()),
        }
    }
    eprintln!(
        "portable bench: {}, utf8guard kernel {}",
        group(),
        utf8guard::active_kernel()
    );
    let mut files = inputs::labeled("lipsum", inputs::lipsum());
    files.push(("ascii-64KiB".into(), inputs::ascii(64 << 10, 1)));
    files.push(("random-64KiB".into(), inputs::random_text(64 << 10, 2)));
    let (texts, _) = inputs::text_sources();
    let sources: Vec<&[u8]> = texts.iter().map(Vec::as_slice).collect();
    let batches = inputs::string_classes(&sources).unwrap_or_else(|why| panic!("{why}"));

    let group = group();
    let wanted = |label: &str| {
        let id = format!("{group}/{label}");
        filters.is_empty() || filters.iter().any(|f| id.contains(f.as_str()))
    };
    let mut run = |cmp: Comparison<'_>| {
        let mut cmp = cmp;
        let outcome = cmp.run(
            Duration::from_secs_f64(seconds),
            Duration::from_millis(1),
            10,
        );
        summary(&outcome);
        if let Some(out) = &mut out {
            writeln!(out, "{}", outcome.to_json()).expect("writing the results");
        }
    };
    for (label, bytes) in &files {
        if wanted(label) {
            let one = [bytes.as_slice()];
            run(comparison(label, &one));
        }
    }
    for (label, strings) in &batches {
        if wanted(label) {
            let slices = strings.slices();
            run(comparison(label, &slices));
        }
    }
    for (label, text) in &files {
        let Some(script) = label.strip_prefix("lipsum/") else {
            continue;
        };
        let label = format!("dialects/{script}");
        if wanted(&label) {
            let inputs = in_every_dialect(text);
            run(dialect_comparison(&label, &inputs));
        }
    }
}
