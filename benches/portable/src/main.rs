//! utf8guard as WebAssembly, against std and simdutf8 compiled the same
//! way, timed in turns (the `paired` method of the main benchmarks: each
//! round runs every contestant once for about a millisecond, in an order
//! that rotates; ratios are medians of per-round ratios).
//!
//! Built for `wasm32-wasip1`, with `-C target-feature=+simd128` (utf8guard
//! then dispatches to its `simd128` kernel, simdutf8 uses its `simd128`
//! implementation) or without (both fall back to scalar code), and run
//! under a WebAssembly runtime with WASI, from the workspace root:
//!
//! ```sh
//! RUSTFLAGS="-C target-feature=+simd128" cargo build --release \
//!     --target wasm32-wasip1 --manifest-path benches/wasm/Cargo.toml
//! WASI_PREOPENS=$PWD/../shared/corpora/lipsum UTF8GUARD_LIPSUM_DIR=$PWD/../shared/corpora/lipsum \
//!     node --no-liftoff --single-threaded scripts/wasi-run.mjs \
//!     benches/wasm/target/wasm32-wasip1/release/utf8guard-bench-wasm.wasm [--quick] [--out FILE] [FILTER...]
//! ```
//!
//! (`--no-liftoff`: V8 compiles the module with its optimizing compiler
//! from the start, instead of its baseline compiler first, so every
//! contestant runs optimized code from its first turn.)
//!
//! Comparisons (`group/label`): `wasm/lipsum/<script>` (when the lipsum
//! corpora are readable), `wasm/ascii-64KiB`, `wasm/random-64KiB` (1- to
//! 4-byte characters), and `wasm/short-ascii/<n>`, `wasm/short-text/<n>`
//! for n = 16, 64, 256 (4096 strings, one by one). With `--out FILE`, one
//! JSON line per comparison, as the `paired` target writes them.

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
use utf8guard::Kernel;

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
    let mut cmp = Comparison::new("wasm", label, bytes);
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

fn summary(o: &Outcome) {
    let medians = o.medians();
    println!("{}/{} ({} rounds)", o.group, o.label, o.rounds);
    for (c, name) in o.names.iter().enumerate() {
        println!(
            "  {name:20} {:>8.3} GB/s  x{:.2} vs std  x{:.2} vs simdutf8 basic",
            o.bytes as f64 / medians[c],
            o.paired_ratio(c, 0),
            o.paired_ratio(c, 1),
        );
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
        "wasm bench: simd128 {}, utf8guard kernel {}",
        if cfg!(target_feature = "simd128") {
            "on"
        } else {
            "off"
        },
        utf8guard::active_kernel()
    );
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    match inputs::lipsum() {
        Ok(lipsum) => files.extend(
            lipsum
                .into_iter()
                .map(|f| (format!("lipsum/{}", f.name), f.bytes)),
        ),
        Err(why) => eprintln!("wasm bench: lipsum skipped: {why}"),
    }
    files.push(("ascii-64KiB".into(), inputs::ascii(64 << 10, 1)));
    files.push(("random-64KiB".into(), inputs::random_text(64 << 10, 2)));
    let (texts, _) = inputs::text_sources();
    let sources: Vec<&[u8]> = texts.iter().map(Vec::as_slice).collect();
    let mut batches: Vec<(String, inputs::Strings)> = Vec::new();
    for (class, want_ascii) in [("short-ascii", true), ("short-text", false)] {
        for len in [16, 64, 256] {
            let strings =
                inputs::windows(&sources, len, inputs::SHORT_POOL, want_ascii, len as u64)
                    .unwrap_or_else(|why| panic!("{class}/{len}: {why}"));
            batches.push((format!("{class}/{len}"), strings));
        }
    }

    let wanted = |label: &str| {
        let id = format!("wasm/{label}");
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
}
