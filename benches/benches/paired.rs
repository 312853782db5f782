//! The goals' comparisons, timed in pairs: the contestants of each take
//! turns round after round on the same input (see `utf8guard_bench::paired`
//! for why), so that a change in the machine's speed falls on all of them.
//!
//! Comparisons (`group/label`, the same inputs as the criterion groups of
//! the same name in `validate` and `ingest`):
//! - `lipsum/<script>`: utf8guard's two entry points against std, simdutf8
//!   and simdutf on each lipsum file.
//!   With `UTF8GUARD_KERNEL=sse42` (the SSE4.2 level, with
//!   `SIMDUTF_FORCE_IMPLEMENTATION=westmere`), simdutf8's SSE4.2 kernel
//!   joins them, called directly (`simdutf8 basic sse42`), here and in
//!   `mixed/` and `strings/`.
//! - `mixed/<script>`: the same on Wikipedia-like text in ten scripts,
//!   each mixed with the ASCII of wiki markup (30-60% of the bytes), made
//!   by `utf8guard_bench::wikitext` (the `wikitext` binary prints each
//!   input's share of ASCII and of ASCII blocks).
//! - `short-ascii/<n>`, `short-text/<n>` (n = 8, 16, 24, 32): the same
//!   implementations on 4096 different strings of n bytes, one by one.
//! - `strings/<class>/<n>`: the same on 4096 strings of each size from 1 B
//!   to 1 KiB, all ASCII (`ascii`) or each with a non-ASCII character
//!   (`text`), 0-7 bytes apart so that they start at every offset of a
//!   cache line (see `inputs::Strings`). From 32 bytes on, with `read
//!   only`: a loop that only reads each string (32-byte loads, no test until
//!   its end), the ceiling the memory of this machine puts on any validator
//!   of the same strings.
//! - `invalid-1MiB/<entry point>`: the valid input against the inputs with
//!   an error in their last bytes.
//! - `dialects/<script>/<kernel>`: every dialect of the UTF-8 family on
//!   each SIMD kernel, on the lipsum file in that dialect (supplementary
//!   characters as surrogate pairs in CESU-8 and modified UTF-8, Corrected
//!   UTF-8's offsets), against strict UTF-8 on the same text: throughputs
//!   compared (the encodings differ in length). `dialects-long/<kernel>`:
//!   RFC 2279 and Corrected UTF-8 on text with 5- and 6-byte sequences.
//! - `cesu8/<script>`, `mutf8/<script>`: utf8guard's CESU-8 and modified
//!   UTF-8 validation against the Rust crates that check them
//!   (`simd_cesu8`'s strict decoders, `cesu8`).
//! - `transcode/...`: the transcoders. `transcode/unchanged/<pair>/<script>`:
//!   text that needs no change (UTF-8 to CESU-8 on the files without
//!   supplementary characters, WTF-8 to UTF-8 on every file) against
//!   `validate` and a copy into a buffer; `transcode/cesu8-to-utf8/Emoji`
//!   and `transcode/utf8-to-cesu8/Emoji` against the `simd_cesu8` and
//!   `cesu8` crates' conversions (which take the text as a `str`, already
//!   valid), and `transcode/utf8-to-cesu8/emoji-every-<n>` the same on 1 MiB
//!   of the Latin lipsum with an emoji every `n` bytes or so;
//!   `transcode/wtf8-to-utf16/<script>` and
//!   `transcode/utf16-to-wtf8/<script>` against simdutf's validating
//!   conversions and std's `encode_utf16` (from a `str`) and
//!   `String::from_utf16`; `transcode/corrected-to-utf8/<script>`
//!   and `transcode/utf8-to-corrected/<script>` for their throughput, with
//!   the reference conversion (the scalar decoder and encoder, a code point
//!   at a time) beside them. `transcode/latin1-to-utf8/<text>`,
//!   `transcode/utf8-to-latin1/<text>`, `transcode/windows1252-to-utf8/<text>`
//!   and `transcode/utf8-to-windows1252/<text>` (on the Latin lipsum and on
//!   French, German and typographic text, where the encoding holds it)
//!   against simdutf's Latin-1 conversions and encoding_rs, with each
//!   available kernel's vector steps beside them (`utf8guard <kernel>
//!   steps`; the scalar kernel's is the portable loop);
//!   `transcode/utf8-to-utf32/<script>` and `transcode/utf32-to-utf8/<script>`
//!   against simdutf and std.
//! - `par-256MiB`, `par-64MiB`, `stream-64MiB`, `lossy/<input>`,
//!   `chunks/<input>`, `offsets-1M`: the
//!   ingestion APIs against their sequential or std counterparts; with the
//!   parallel API on 256 MiB, a loop that only reads the buffer (on one
//!   thread and on two), for the ceiling the machine's memory sets.
//!   `par-64MiB` takes 64 MiB slices of 256 MiB of text in turn, so that
//!   each call's bytes come from memory, as `beyond-cache/` does: there
//!   `par` cuts chunks shorter than the 16 MiB from which a single call
//!   sends the prefetch hints of a long input.
//! - `repair/...`: the repair policies against std's `from_utf8_lossy`,
//!   `validate` and a copy, and `Utf8Reader` (see `paired/repair.rs`).
//! - `beyond-cache/1-core`: 256 MiB of text, far beyond the caches: the
//!   main implementations, each vector kernel of utf8guard forced (and the
//!   AVX2 and AVX-512 kernels with shuffles instead of loads), and a loop that only
//!   reads the buffer, with and without prefetch hints (the faster is the
//!   ceiling set by memory); and the dispatched
//!   entry point with its prefetch hints forced on and off. (By default the
//!   kernels send them on x86_64 CPUs other than AMD's.)
//!   `beyond-cache/1-core-ascii`: the same with 256 MiB of ASCII.
//!   `beyond-cache/2-cores`: `par::validate` against the peers run on each
//!   half in two threads, and reading on two threads (with and without
//!   the hints); `par::validate` with
//!   the hints forced on and off too.
//! - `file-200MiB`: a file in the page cache validated the ways a command
//!   could read it: mapped (its pages faulted in as read, or up front), or
//!   read with `pread` into 1 MiB buffers, on two threads and on one; and
//!   `pread` alone (what `dd bs=1M` costs). Also `file-200MiB/written-4KiB`,
//!   the same file written 4 KiB at a time.
//! - `scalar-vs-std/<class>/<input>`: the portable kernel (what targets
//!   without a vector kernel run), forced with `Kernel::Scalar`, against std
//!   on every class of input: `lipsum/<script>`, `corpora/<file>` (the
//!   project's synthetic corpora), `long/ascii-1MiB` and `long/text-1MiB`,
//!   and strings of each size from 1 B to 1 KiB, `ascii/<n>` and `text/<n>`
//!   (4096 of them, one by one). Where the dispatcher chose the scalar
//!   kernel (`UTF8GUARD_KERNEL=scalar`, or a CPU without vector kernels),
//!   `utf8guard::validate` runs too; beside strings of 32 bytes or more,
//!   `read only`, as in `strings/`.
//!
//! Usage: `paired [--out FILE] [FILTER...]`: only the comparisons whose
//! `group/label` contains one of the filters run, and none that contains a
//! filter written `!FILTER`; each outcome is printed as a summary and, with
//! `--out`, written to FILE as one JSON line.
//! `UTF8GUARD_BENCH_MODE=quick` gives each comparison an eighth of the time.

use std::borrow::Cow;

#[path = "paired/repair.rs"]
mod repair;

use utf8guard::{par, Decoded, Dialect, Kernel, Policy, Status, StreamValidator, Transcoder};
use utf8guard_bench::inputs::{self, column, damaged, ingest_text, repeated, ErrorAt, SHORT_POOL};
use utf8guard_bench::paired::Comparison;
use utf8guard_bench::runner::Runner;
use utf8guard_bench::{
    assert_agrees, for_each_validator, one_by_one, Mode, Validator, Verdict, Visit,
};

/// The implementations the report's headline compares (no forced kernel:
/// the dispatched entry points stand for utf8guard), and simdutf8's SSE4.2
/// kernel, which `for_each_validator` visits at the SSE4.2 level only.
const MAIN: [&str; 10] = [
    "utf8guard",
    "utf8guard from_utf8",
    "std",
    "simdutf8 basic",
    "simdutf8 compat",
    "ps-simdutf8 basic",
    "ps-simdutf8 compat",
    "simdutf",
    "simdutf with_errors",
    "simdutf8 basic sse42",
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
            one_by_one(strings)
                .filter(|s| v.check(s) == Verdict::Valid)
                .count() as u64
        });
    }
}

fn mixed(r: &mut Runner) {
    if !r.might_want("mixed") {
        return;
    }
    for file in &utf8guard_bench::wikitext::mixed() {
        let mut cmp = Comparison::new("mixed", &file.name, file.bytes.len() as u64);
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

/// A lipsum file in each dialect's encoding.
struct Encoded {
    name: String,
    utf8: Vec<u8>,
    cesu8: Vec<u8>,
    mutf8: Vec<u8>,
    corrected: Vec<u8>,
}

impl Encoded {
    fn new(file: &inputs::Named) -> Encoded {
        let text = std::str::from_utf8(&file.bytes).expect("lipsum is UTF-8");
        let encoded = Encoded {
            name: file.name.clone(),
            utf8: file.bytes.clone(),
            cesu8: simd_cesu8::encode(text).into_owned(),
            mutf8: simd_cesu8::mutf8::encode(text).into_owned(),
            corrected: inputs::corrected_text(text).expect("lipsum has no C1 control"),
        };
        for &d in Dialect::ALL {
            assert!(d.validate(encoded.bytes(d)), "{} in {d}", file.name);
        }
        encoded
    }

    /// The text as the dialect writes it (strict UTF-8's bytes are also
    /// Unicode 3.1's, WTF-8's and RFC 2279's).
    fn bytes(&self, d: Dialect) -> &[u8] {
        match d {
            Dialect::Cesu8 => &self.cesu8,
            Dialect::Mutf8 => &self.mutf8,
            Dialect::Corrected => &self.corrected,
            _ => &self.utf8,
        }
    }
}

fn dialects(r: &mut Runner) {
    if !["dialects", "cesu8/", "mutf8/"]
        .iter()
        .any(|id| r.wanted(id))
    {
        return;
    }
    let files = match inputs::lipsum() {
        Ok(files) => files,
        Err(why) => {
            eprintln!("paired: dialects skipped: {why}");
            return;
        }
    };
    let encoded: Vec<Encoded> = files.iter().map(Encoded::new).collect();
    let kernels: Vec<Kernel> = Kernel::available()
        .filter(|&k| k != Kernel::Scalar)
        .collect();
    for file in &encoded {
        for &kernel in &kernels {
            let label = format!("{}/{kernel}", file.name);
            let mut cmp = Comparison::new("dialects", &label, file.utf8.len() as u64);
            if !r.wanted(&cmp.id()) {
                continue;
            }
            for &d in Dialect::ALL {
                let input = file.bytes(d);
                cmp.add_sized(d.name(), input.len() as u64, move || {
                    u64::from(kernel.validate_dialect(d, std::hint::black_box(input)))
                });
            }
            r.run(cmp, 2.0);
        }
    }
    // Text with 5- and 6-byte sequences (the lipsum files end to end).
    let all: String = encoded
        .iter()
        .map(|f| std::str::from_utf8(&f.utf8).expect("UTF-8"))
        .collect();
    let code_points = inputs::long_sequence_text(&all, 2279);
    let (mut rfc, mut corrected) = (Vec::new(), Vec::new());
    for &cp in &code_points {
        rfc.extend_from_slice(&Dialect::Rfc2279.encode(cp).expect("up to U+7FFFFFFF"));
        corrected.extend_from_slice(&Dialect::Corrected.encode(cp).expect("encodable"));
    }
    assert!(Dialect::Rfc2279.validate(&rfc) && Dialect::Corrected.validate(&corrected));
    for &kernel in &kernels {
        let mut cmp = Comparison::new("dialects-long", kernel.name(), all.len() as u64);
        if !r.wanted(&cmp.id()) {
            continue;
        }
        let (all, rfc, corrected) = (all.as_bytes(), &rfc[..], &corrected[..]);
        cmp.add("utf-8 (the text without them)", move || {
            u64::from(kernel.validate(std::hint::black_box(all)))
        });
        cmp.add_sized("rfc2279", rfc.len() as u64, move || {
            u64::from(kernel.validate_dialect(Dialect::Rfc2279, std::hint::black_box(rfc)))
        });
        cmp.add_sized("corrected-utf-8", corrected.len() as u64, move || {
            u64::from(kernel.validate_dialect(Dialect::Corrected, std::hint::black_box(corrected)))
        });
        r.run(cmp, 3.0);
    }
    // The crates that validate CESU-8 and modified UTF-8 (by decoding it).
    for file in &encoded {
        let cesu = &file.cesu8[..];
        let mut cmp = Comparison::new("cesu8", &file.name, cesu.len() as u64);
        if r.wanted(&cmp.id()) {
            assert!(simd_cesu8::decode_strict(cesu).is_ok() && cesu8::from_cesu8(cesu).is_ok());
            cmp.add("utf8guard", move || {
                u64::from(Dialect::Cesu8.validate(std::hint::black_box(cesu)))
            });
            cmp.add("simd_cesu8 decode_strict", move || {
                simd_cesu8::decode_strict(std::hint::black_box(cesu)).map_or(0, |s| s.len() as u64)
            });
            cmp.add("cesu8 from_cesu8", move || {
                cesu8::from_cesu8(std::hint::black_box(cesu)).map_or(0, |s| s.len() as u64)
            });
            r.run(cmp, 2.0);
        }
        let mutf = &file.mutf8[..];
        let mut cmp = Comparison::new("mutf8", &file.name, mutf.len() as u64);
        if r.wanted(&cmp.id()) {
            assert!(simd_cesu8::mutf8::decode_strict(mutf).is_ok());
            assert!(cesu8::from_java_cesu8(mutf).is_ok());
            cmp.add("utf8guard", move || {
                u64::from(Dialect::Mutf8.validate(std::hint::black_box(mutf)))
            });
            cmp.add("simd_cesu8 mutf8::decode_strict", move || {
                simd_cesu8::mutf8::decode_strict(std::hint::black_box(mutf))
                    .map_or(0, |s| s.len() as u64)
            });
            cmp.add("cesu8 from_java_cesu8", move || {
                cesu8::from_java_cesu8(std::hint::black_box(mutf)).map_or(0, |s| s.len() as u64)
            });
            r.run(cmp, 2.0);
        }
    }
}

/// Converts all of `input` from `from` to `to` into `out` (large enough),
/// strictly; returns the bytes written.
fn transcode_into(from: Dialect, to: Dialect, input: &[u8], out: &mut [u8]) -> usize {
    let p = Transcoder::new(from, to, Policy::Strict).transcode(input, out, true);
    assert_eq!((p.result, p.read), (Ok(Status::InputEmpty), input.len()));
    p.written
}

/// The reference conversion of well-formed `input`: the scalar decoder,
/// then the encoder, a code point at a time, into `out`.
fn reference_into(from: Dialect, to: Dialect, input: &[u8], out: &mut Vec<u8>) -> usize {
    out.clear();
    for item in from.decode(input) {
        let Decoded::Char { code_point, .. } = item else {
            panic!("ill-formed input")
        };
        out.extend_from_slice(&to.encode(code_point).expect("encodable"));
    }
    out.len()
}

/// The labels of the `transcode` comparisons on a lipsum file (those that
/// apply to it).
const TRANSCODE_LABELS: [&str; 8] = [
    "unchanged/utf8-to-cesu8",
    "unchanged/wtf8-to-utf8",
    "cesu8-to-utf8",
    "utf8-to-cesu8",
    "wtf8-to-utf16",
    "utf16-to-wtf8",
    "corrected-to-utf8",
    "utf8-to-corrected",
];

fn transcode(r: &mut Runner) {
    let files = match inputs::lipsum() {
        Ok(files) => files,
        Err(why) => {
            eprintln!("paired: transcode skipped: {why}");
            return;
        }
    };
    let wanted = files.iter().any(|f| {
        TRANSCODE_LABELS
            .iter()
            .any(|label| r.wanted(&format!("transcode/{label}/{}", f.name)))
    });
    if !wanted {
        return;
    }
    let encoded: Vec<Encoded> = files.iter().map(Encoded::new).collect();
    // Text that needs no change.
    for file in &encoded {
        let supplementary = file.utf8.iter().any(|&b| b >= 0xF0);
        for (from, to) in [
            (Dialect::Utf8, Dialect::Cesu8),
            (Dialect::Wtf8, Dialect::Utf8),
        ] {
            if supplementary && to == Dialect::Cesu8 {
                continue;
            }
            let label = format!("unchanged/{}-to-{}/{}", short(from), short(to), file.name);
            let input = &file.utf8[..];
            let mut cmp = Comparison::new("transcode", &label, input.len() as u64);
            if !r.wanted(&cmp.id()) {
                continue;
            }
            let mut out = vec![0u8; 2 * input.len() + 16];
            let n = transcode_into(from, to, input, &mut out);
            assert_eq!(&out[..n], input, "{label}: changed");
            cmp.add("utf8guard", move || {
                transcode_into(from, to, std::hint::black_box(input), &mut out) as u64
            });
            let mut copy = vec![0u8; input.len()];
            cmp.add("validate + copy", move || {
                let input = std::hint::black_box(input);
                if !utf8guard::validate(input) {
                    return 0;
                }
                copy.copy_from_slice(input);
                std::hint::black_box(&copy).len() as u64
            });
            r.run(cmp, 2.0);
        }
    }
    // CESU-8 against the crates, on the text where every character changes.
    for file in encoded.iter().filter(|f| f.name == "Emoji") {
        let (utf8, cesu) = (&file.utf8[..], &file.cesu8[..]);
        let text = std::str::from_utf8(utf8).expect("lipsum is UTF-8");
        let mut cmp = Comparison::new("transcode", "cesu8-to-utf8/Emoji", cesu.len() as u64);
        if r.wanted(&cmp.id()) {
            add_cesu8_to_utf8(&mut cmp, cesu, text);
            r.run(cmp, 2.0);
        }
        let mut cmp = Comparison::new("transcode", "utf8-to-cesu8/Emoji", utf8.len() as u64);
        if r.wanted(&cmp.id()) {
            let ours = utf8guard::transcode(Dialect::Utf8, Dialect::Cesu8, utf8, Policy::Strict);
            assert_eq!(ours.as_deref(), Ok(cesu));
            add_utf8_to_cesu8(&mut cmp, text);
            r.run(cmp, 2.0);
        }
    }
    // WTF-8 and UTF-16, against std on valid text.
    for file in &encoded {
        let utf8 = &file.utf8[..];
        let text = std::str::from_utf8(utf8).expect("lipsum is UTF-8");
        let units: Vec<u16> = text.encode_utf16().collect();
        let label = format!("wtf8-to-utf16/{}", file.name);
        let mut cmp = Comparison::new("transcode", &label, utf8.len() as u64);
        if r.wanted(&cmp.id()) {
            let mut ours = Vec::new();
            utf8guard::wtf8_to_utf16(utf8, Policy::Strict, &mut ours).expect("valid");
            assert_eq!(ours, units);
            cmp.add("utf8guard wtf8_to_utf16", move || {
                let mut out = Vec::new();
                utf8guard::wtf8_to_utf16(std::hint::black_box(utf8), Policy::Strict, &mut out)
                    .map_or(0, |()| out.len() as u64)
            });
            // The same text converted as UTF-8 (surrogates' forms refused),
            // simdutf's contract.
            cmp.add("utf8guard utf8_to_utf16", move || {
                let mut out = Vec::new();
                utf8guard::utf8_to_utf16(std::hint::black_box(utf8), Policy::Strict, &mut out)
                    .map_or(0, |()| out.len() as u64)
            });
            // simdutf's validating conversion into a buffer of the input's
            // length in units (an upper bound, so no length pass first).
            cmp.add("simdutf convert_utf8_to_utf16le", move || {
                let src = std::hint::black_box(utf8);
                let mut out: Vec<u16> = Vec::with_capacity(src.len());
                // SAFETY: `out` has room for `src.len()` units, the most
                // that `src.len()` bytes of UTF-8 convert to; `set_len`
                // covers only the units simdutf wrote.
                unsafe {
                    let n =
                        simdutf::convert_utf8_to_utf16le(src.as_ptr(), src.len(), out.as_mut_ptr());
                    out.set_len(n);
                }
                out.len() as u64
            });
            // Both into a buffer of the caller's, allocated once.
            let mut buf = vec![0u16; utf8.len()];
            cmp.add("utf8guard wtf8_to_utf16_into", move || {
                let src = std::hint::black_box(utf8);
                let p = utf8guard::wtf8_to_utf16_into(src, Policy::Strict, &mut buf, true);
                p.result.map_or(0, |_| p.written as u64)
            });
            let mut buf = vec![0u16; utf8.len()];
            cmp.add("simdutf convert_utf8_to_utf16le (buffer)", move || {
                let src = std::hint::black_box(utf8);
                // SAFETY: `buf` has room for `src.len()` units, the most
                // that `src.len()` bytes of UTF-8 convert to.
                let n = unsafe {
                    simdutf::convert_utf8_to_utf16le(src.as_ptr(), src.len(), buf.as_mut_ptr())
                };
                n as u64
            });
            cmp.add("std encode_utf16 collect", move || {
                std::hint::black_box(text)
                    .encode_utf16()
                    .collect::<Vec<u16>>()
                    .len() as u64
            });
            r.run(cmp, 2.0);
        }
        let label = format!("utf16-to-wtf8/{}", file.name);
        let mut cmp = Comparison::new("transcode", &label, utf8.len() as u64);
        if r.wanted(&cmp.id()) {
            let units = &units;
            let mut ours = Vec::new();
            utf8guard::utf16_to_wtf8(units, &mut ours);
            assert_eq!(ours, utf8);
            cmp.add("utf8guard utf16_to_wtf8", move || {
                let mut out = Vec::new();
                utf8guard::utf16_to_wtf8(std::hint::black_box(units), &mut out);
                out.len() as u64
            });
            // Lone surrogates refused, simdutf's contract.
            cmp.add("utf8guard utf16_to_utf8", move || {
                let mut out = Vec::new();
                utf8guard::utf16_to_utf8(std::hint::black_box(units), Policy::Strict, &mut out)
                    .map_or(0, |()| out.len() as u64)
            });
            // simdutf's validating conversion into a buffer of 3 bytes a
            // unit (an upper bound, so no length pass first).
            cmp.add("simdutf convert_utf16le_to_utf8", move || {
                let src = std::hint::black_box(units);
                let mut out: Vec<u8> = Vec::with_capacity(3 * src.len());
                // SAFETY: `out` has room for `3 * src.len()` bytes, the most
                // that `src.len()` units convert to; `set_len` covers only
                // the bytes simdutf wrote.
                unsafe {
                    let n =
                        simdutf::convert_utf16le_to_utf8(src.as_ptr(), src.len(), out.as_mut_ptr());
                    out.set_len(n);
                }
                out.len() as u64
            });
            // Both into a buffer of the caller's, allocated once.
            let mut buf = vec![0u8; 3 * units.len()];
            cmp.add("utf8guard utf16_to_wtf8_into", move || {
                let p = utf8guard::utf16_to_wtf8_into(std::hint::black_box(units), &mut buf, true);
                p.written as u64
            });
            let mut buf = vec![0u8; 3 * units.len()];
            cmp.add("simdutf convert_utf16le_to_utf8 (buffer)", move || {
                let src = std::hint::black_box(units);
                // SAFETY: `buf` has room for `3 * src.len()` bytes, the
                // most that `src.len()` units convert to.
                let n = unsafe {
                    simdutf::convert_utf16le_to_utf8(src.as_ptr(), src.len(), buf.as_mut_ptr())
                };
                n as u64
            });
            cmp.add("std String::from_utf16", move || {
                String::from_utf16(std::hint::black_box(units)).map_or(0, |s| s.len() as u64)
            });
            r.run(cmp, 2.0);
        }
    }
    // Corrected UTF-8, where every non-ASCII character changes.
    for file in &encoded {
        for (from, to) in [
            (Dialect::Corrected, Dialect::Utf8),
            (Dialect::Utf8, Dialect::Corrected),
        ] {
            let (input, output) = (file.bytes(from), file.bytes(to));
            let label = format!("{}-to-{}/{}", short(from), short(to), file.name);
            let mut cmp = Comparison::new("transcode", &label, input.len() as u64);
            if !r.wanted(&cmp.id()) {
                continue;
            }
            let mut out = vec![0u8; 2 * input.len() + 16];
            let n = transcode_into(from, to, input, &mut out);
            assert_eq!(&out[..n], output);
            let mut reference = Vec::new();
            reference_into(from, to, input, &mut reference);
            assert_eq!(reference, output);
            cmp.add("utf8guard", move || {
                transcode_into(from, to, std::hint::black_box(input), &mut out) as u64
            });
            cmp.add("reference (decode + encode)", move || {
                reference_into(from, to, std::hint::black_box(input), &mut reference) as u64
            });
            r.run(cmp, 2.0);
        }
    }
}

/// A dialect's short name in the comparisons' labels.
fn short(d: Dialect) -> &'static str {
    match d {
        Dialect::Utf8 => "utf8",
        Dialect::Cesu8 => "cesu8",
        Dialect::Wtf8 => "wtf8",
        Dialect::Corrected => "corrected",
        other => other.name(),
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

/// Strings of every size from 1 B to 1 KiB, ASCII and with a non-ASCII
/// character, validated one by one: `strings/<class>/<n>`.
fn strings_by_size(r: &mut Runner) {
    if !r.might_want("strings/") {
        return;
    }
    let (texts, _) = inputs::text_sources();
    let sources: Vec<&[u8]> = texts.iter().map(Vec::as_slice).collect();
    let classes = inputs::string_classes(&sources).unwrap_or_else(|why| panic!("strings/{why}"));
    for (label, strings) in &classes {
        if !r.wanted(&format!("strings/{label}")) {
            continue;
        }
        let slices = strings.slices();
        let mut cmp = Comparison::new("strings", label, strings.total_bytes() as u64);
        for_each_validator(&mut OnStrings {
            cmp: &mut cmp,
            strings: &slices,
            label,
        });
        #[cfg(target_arch = "x86_64")]
        if slices[0].len() >= 32 && is_x86_feature_detected!("avx2") {
            let strings = &slices;
            cmp.add("read only", move || {
                one_by_one(strings).fold(0, |acc, s| {
                    // SAFETY: AVX2 was detected; the string is at least 32
                    // bytes long.
                    acc ^ u64::from(unsafe { read_avx2(s) })
                })
            });
        }
        // Each vector kernel called directly (no dispatch, no small-input
        // paths of the entry point).
        for kernel in Kernel::available().filter(|&k| k != Kernel::Scalar) {
            cmp.add(
                format!("utf8guard {kernel} kernel"),
                count_valid(&slices, move |s| kernel.validate(s)),
            );
        }
        r.run(cmp, 1.5);
    }
}

/// The high bits of every byte of `bytes`, or'd together by lanes: a read
/// of each byte with 32-byte loads (the last one overlapping its neighbour)
/// and nothing else, not even a branch until the end.
///
/// # Safety
/// The CPU must support AVX2, and `bytes` must be at least 32 bytes long.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn read_avx2(bytes: &[u8]) -> u32 {
    use std::arch::x86_64::*;
    let (len, ptr) = (bytes.len(), bytes.as_ptr());
    // SAFETY: `len >= 32` (caller): each load is inside `bytes`.
    unsafe {
        let mut acc = _mm256_loadu_si256(ptr.add(len - 32).cast());
        let mut at = 0;
        while at + 32 <= len {
            acc = _mm256_or_si256(acc, _mm256_loadu_si256(ptr.add(at).cast()));
            at += 32;
        }
        _mm256_movemask_epi8(acc) as u32
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
    let ids = [
        "par-256MiB",
        "par-64MiB",
        "stream-64MiB",
        "lossy/",
        "chunks/",
        "offsets-1M",
    ];
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
        cmp.add("read only, 1 thread", || read_only(&input, false));
        cmp.add("read only, 2 threads", || {
            let (a, b) = input.split_at(input.len() / 2);
            std::thread::scope(|s| {
                let other = s.spawn(|| read_only(b, false));
                read_only(a, false) | other.join().expect("the reading thread")
            })
        });
        r.run(cmp, 10.0);
    }

    if r.wanted("par-64MiB") {
        // Four slices of 64 MiB of one buffer, each call on the slice after
        // the last call's, whoever made it: the 192 MiB read since a slice
        // was last read push it out of the caches.
        let buffer = repeated(&text, 256 << 20);
        let slices: Vec<&[u8]> = (0..4)
            .map(|i| {
                let (mut start, mut end) = (i << 26, (i + 1) << 26);
                while buffer[start] & 0xC0 == 0x80 {
                    start -= 1;
                }
                while end < buffer.len() && buffer[end] & 0xC0 == 0x80 {
                    end -= 1;
                }
                &buffer[start..end]
            })
            .collect();
        assert!(slices
            .iter()
            .all(|s| utf8guard::validate(s) && par::validate(s)));
        let next = std::cell::Cell::new(0);
        let slice = || {
            let i = next.get();
            next.set((i + 1) % slices.len());
            slices[i]
        };
        let mut cmp = Comparison::new("par-64MiB", "", 64 << 20);
        cmp.add("sequential/validate", || {
            u64::from(utf8guard::validate(slice()))
        });
        cmp.add("par/validate", || u64::from(par::validate(slice())));
        r.run(cmp, 4.0);
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

    // `utf8_chunks` against `<[u8]>::utf8_chunks`: every chunk visited.
    for (label, input) in [("valid", &text[..]), ("0.1%-invalid", &bad[..])] {
        let mut cmp = Comparison::new("chunks", label, input.len() as u64);
        if !r.wanted(&cmp.id()) {
            continue;
        }
        let theirs: Vec<_> = input
            .utf8_chunks()
            .map(|c| (c.valid(), c.invalid()))
            .collect();
        let ours: Vec<_> = utf8guard::utf8_chunks(input)
            .map(|c| (c.valid(), c.invalid()))
            .collect();
        assert_eq!(ours, theirs);
        cmp.add("std", move || {
            input
                .utf8_chunks()
                .map(|c| (c.valid().len() + 3 * c.invalid().len()) as u64)
                .sum()
        });
        cmp.add("utf8guard", move || {
            utf8guard::utf8_chunks(input)
                .map(|c| (c.valid().len() + 3 * c.invalid().len()) as u64)
                .sum()
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

/// Reads `bytes` and does next to nothing with them: the OR of 32-byte
/// loads, four a step, where AVX2 is available (else [`or_words`]). With
/// `hints`, each step also asks for its cache lines [`READ_AHEAD`] bytes
/// ahead, into the second-level cache, as the kernels do on inputs that
/// long where their hints are on. Without, the hardware prefetchers alone
/// bring the bytes; the faster of the two ways is the ceiling that memory
/// sets. On 256 MiB of text on Sapphire Rapids (six runs, in turns) the
/// 8-byte words read at 10.0-11.7 GB/s, the 32-byte loads at 12.1-13.9,
/// with the hints at 14.1-15.8 (into the first-level cache 2 KiB ahead:
/// 12.9-14.9).
fn read_only(bytes: &[u8], hints: bool) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was detected.
        return u64::from(unsafe {
            if hints {
                read_avx2_ahead::<true>(bytes)
            } else {
                read_avx2_ahead::<false>(bytes)
            }
        });
    }
    let _ = hints;
    or_words(bytes)
}

/// How far ahead [`read_only`] asks for cache lines: as far as the kernels
/// do on inputs of 16 MiB or more.
#[cfg(target_arch = "x86_64")]
const READ_AHEAD: usize = 8192;

/// [`read_only`] with AVX2: the high bits of the bytes of each 128-byte
/// step, or'd together by lanes (the tail shorter than a step, where there
/// is one, read with one 32-byte load at a time, the last overlapping).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn read_avx2_ahead<const HINTS: bool>(bytes: &[u8]) -> u32 {
    use std::arch::x86_64::*;
    let (len, ptr) = (bytes.len(), bytes.as_ptr());
    let mut acc = _mm256_setzero_si256();
    let mut at = 0;
    while at + 128 <= len {
        if HINTS {
            // Hints read nothing the program sees and cannot fault; the
            // address is inside `bytes` all the same.
            let ahead = ptr.wrapping_add((at + READ_AHEAD).min(len - 1));
            _mm_prefetch::<_MM_HINT_T1>(ahead.cast());
            _mm_prefetch::<_MM_HINT_T1>(ahead.wrapping_add(64).cast());
        }
        // SAFETY: `at + 128 <= len`: the four loads are inside `bytes`.
        let step = unsafe {
            let a = _mm256_or_si256(
                _mm256_loadu_si256(ptr.add(at).cast()),
                _mm256_loadu_si256(ptr.add(at + 32).cast()),
            );
            let b = _mm256_or_si256(
                _mm256_loadu_si256(ptr.add(at + 64).cast()),
                _mm256_loadu_si256(ptr.add(at + 96).cast()),
            );
            _mm256_or_si256(a, b)
        };
        acc = _mm256_or_si256(acc, step);
        at += 128;
    }
    if len >= 32 {
        while at < len {
            let from = at.min(len - 32);
            // SAFETY: `from + 32 <= len`.
            acc = _mm256_or_si256(acc, unsafe { _mm256_loadu_si256(ptr.add(from).cast()) });
            at += 32;
        }
    } else {
        // Shorter than a vector: byte by byte.
        let tail = bytes.iter().fold(0, |a, &b| a | b);
        acc = _mm256_set1_epi8(tail as i8);
    }
    _mm256_movemask_epi8(acc) as u32
}

/// The OR of every 8-byte word of `bytes` (a tail shorter than a word is
/// left out): a loop the compiler vectorizes, which reads every byte once
/// and does next to nothing with it.
fn or_words(bytes: &[u8]) -> u64 {
    bytes.chunks_exact(8).fold(0, |acc, w| {
        acc | u64::from_ne_bytes(w.try_into().expect("8 bytes"))
    })
}

/// `input` cut in two at the character boundary nearest its middle.
fn halves(input: &[u8]) -> (&[u8], &[u8]) {
    let mut mid = input.len() / 2;
    while mid > 0 && input[mid] & 0xC0 == 0x80 {
        mid -= 1;
    }
    input.split_at(mid)
}

/// `check` on each half of `input`, on two threads.
fn on_two_threads(input: &[u8], check: impl Fn(&[u8]) -> bool + Sync) -> u64 {
    let (a, b) = halves(input);
    std::thread::scope(|s| {
        let other = s.spawn(|| check(b));
        u64::from(check(a)) + u64::from(other.join().expect("the other thread"))
    })
}

/// 256 MiB of text, far beyond this machine's caches: every implementation
/// on one core, with what only reading the buffer takes beside them, and
/// the same on 256 MiB of ASCII; then
/// on two cores (the peers on each half in two threads, utf8guard's `par`).
fn beyond_cache(r: &mut Runner) {
    let two = "beyond-cache/2-cores";
    if !r.might_want("beyond-cache/") {
        return;
    }
    let input = repeated(&ingest_text(), 256 << 20);
    let input = &input[..];
    let ascii = if r.wanted("beyond-cache/1-core-ascii") {
        inputs::ascii(256 << 20, 1)
    } else {
        Vec::new()
    };
    for (label, input) in [("1-core", input), ("1-core-ascii", &ascii[..])] {
        if input.is_empty() || !r.wanted(&format!("beyond-cache/{label}")) {
            continue;
        }
        let mut cmp = Comparison::new("beyond-cache", label, input.len() as u64);
        let mut on_input = OnInput {
            cmp: &mut cmp,
            input,
            label: "beyond-cache",
        };
        for_each_validator(&mut on_input);
        for kernel in Kernel::available().filter(|&k| k != Kernel::Scalar) {
            cmp.add(format!("utf8guard {kernel}"), move || {
                u64::from(kernel.validate(std::hint::black_box(input)))
            });
        }
        // Both vector widths with the look-behind shifted in, as the
        // AVX-512 kernel does from `SHUFFLES_FROM` on: whether AVX2 should
        // too.
        #[cfg(target_arch = "x86_64")]
        if Kernel::Avx2.is_available() {
            cmp.add("utf8guard avx2-shuffled", move || {
                u64::from(utf8guard::__bench::avx2_shuffled(input) == Some(true))
            });
        }
        #[cfg(target_arch = "x86_64")]
        if Kernel::Avx512.is_available() {
            cmp.add("utf8guard avx512-shuffled", move || {
                u64::from(utf8guard::__bench::avx512_shuffled(input) == Some(true))
            });
        }
        // The dispatched kernel with its prefetch hints forced either way
        // (the CPU's default sends them except on AMD CPUs).
        for (name, on) in [("on", true), ("off", false)] {
            cmp.add(format!("utf8guard, prefetch {name}"), move || {
                utf8guard::__bench::with_prefetch(Some(on), || {
                    u64::from(utf8guard::validate(std::hint::black_box(input)))
                })
            });
        }
        cmp.add("read only", move || read_only(input, false));
        cmp.add("read only, prefetch", move || read_only(input, true));
        r.run(cmp, 20.0);
    }
    if r.wanted(two) {
        let mut cmp = Comparison::new("beyond-cache", "2-cores", input.len() as u64);
        cmp.add("utf8guard par", move || u64::from(par::validate(input)));
        for (name, on) in [("on", true), ("off", false)] {
            cmp.add(format!("utf8guard par, prefetch {name}"), move || {
                utf8guard::__bench::with_prefetch(Some(on), || u64::from(par::validate(input)))
            });
        }
        cmp.add("simdutf8 basic, 2 threads", move || {
            on_two_threads(input, |h| simdutf8::basic::from_utf8(h).is_ok())
        });
        cmp.add("simdutf, 2 threads", move || {
            on_two_threads(input, simdutf::validate_utf8)
        });
        for (name, hints) in [
            ("read only, 2 threads", false),
            ("read only, prefetch, 2 threads", true),
        ] {
            cmp.add(name, move || {
                let (a, b) = halves(input);
                std::thread::scope(|s| {
                    let other = s.spawn(|| read_only(b, hints));
                    read_only(a, hints) | other.join().expect("the reading thread")
                })
            });
        }
        r.run(cmp, 20.0);
    }
}

/// `file` from `start` to `end` read with `pread` in pieces of `piece`
/// bytes into one buffer, each piece validated as part of a stream.
#[cfg(unix)]
fn pread_valid(file: &std::fs::File, start: u64, end: u64, piece: usize) -> bool {
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0; piece];
    let mut stream = StreamValidator::new();
    let mut at = start;
    while at < end {
        let n = (end - at).min(piece as u64) as usize;
        file.read_exact_at(&mut buf[..n], at)
            .expect("reading the file");
        if stream.update(&buf[..n]).is_err() {
            return false;
        }
        at += n as u64;
    }
    stream.finish().is_ok()
}

/// A 200 MiB file in the page cache, validated whole the ways a command
/// could read it: mapped, its pages faulted in as they are read (what the
/// command does with two threads) or up front, by two threads or one, and
/// validated by `par::validate` or `validate`; or read with `pread` in 1
/// MiB pieces (on two threads, each its half, or one); beside them,
/// `pread` alone, what `dd bs=1M` does. Twice: `file-200MiB/` written in
/// one piece, and `file-200MiB/written-4KiB` written 4 KiB at a time (on
/// Linux the page cache may then hold it in 4 KiB folios, where in one
/// piece it takes folios of up to 2 MiB, which a fault maps whole).
#[cfg(unix)]
fn file_in_page_cache(r: &mut Runner) {
    for (label, piece) in [("", None), ("written-4KiB", Some(4096))] {
        if r.wanted(&format!("file-200MiB/{label}")) {
            file_in_page_cache_written(r, label, piece);
        }
    }
}

/// [`file_in_page_cache`] of a file written in pieces of `piece` bytes
/// (in one piece for `None`).
#[cfg(unix)]
fn file_in_page_cache_written(r: &mut Runner, label: &str, piece: Option<usize>) {
    use memmap2::{Advice, Mmap, MmapOptions};
    use std::io::Write;
    use std::os::unix::fs::FileExt;
    let path = std::env::temp_dir().join(format!("utf8guard-paired-{}.txt", std::process::id()));
    let text = repeated(&ingest_text(), 200 << 20);
    let mut out = std::fs::File::create(&path).expect("creating the file");
    for part in text.chunks(piece.unwrap_or(text.len())) {
        out.write_all(part).expect("writing the file");
    }
    drop((out, text));
    let file = std::fs::File::open(&path).expect("opening the file");
    let len = file.metadata().expect("its size").len();
    // The two halves of the file, cut at a character boundary.
    let mid = {
        let mut head = [0; 4];
        file.read_exact_at(&mut head, len / 2)
            .expect("reading the file");
        len / 2 + head.iter().take_while(|&&b| b & 0xC0 == 0x80).count() as u64
    };
    let file = &file;
    let map = |populate_threads: usize| -> Mmap {
        if populate_threads == 0 {
            // SAFETY: as below.
            return unsafe { MmapOptions::new().map(file) }.expect("mapping");
        }
        if populate_threads == 1 {
            // SAFETY: the file is this benchmark's own, and nothing writes
            // it while it is mapped.
            return unsafe { MmapOptions::new().populate().map(file) }.expect("mapping");
        }
        // SAFETY: as above.
        let map = unsafe { MmapOptions::new().map(file) }.expect("mapping");
        let half = (map.len() / 2).next_multiple_of(4096);
        std::thread::scope(|s| {
            s.spawn(|| map.advise_range(Advice::PopulateRead, half, map.len() - half));
            let _ = map.advise_range(Advice::PopulateRead, 0, half);
        });
        map
    };
    assert!(utf8guard::validate(&map(1)) && pread_valid(file, 0, len, 1 << 20));
    let mut cmp = Comparison::new("file-200MiB", label, len);
    cmp.add("map, par::validate (faults as read)", move || {
        u64::from(par::validate(&map(0)))
    });
    cmp.add("map, populate on 2 threads, par::validate", move || {
        u64::from(par::validate(&map(2)))
    });
    cmp.add("map, populate, validate", move || {
        u64::from(utf8guard::validate(&map(1)))
    });
    cmp.add("pread 1 MiB pieces, 2 threads", move || {
        std::thread::scope(|s| {
            let other = s.spawn(|| pread_valid(file, mid, len, 1 << 20));
            u64::from(pread_valid(file, 0, mid, 1 << 20))
                + u64::from(other.join().expect("the other thread"))
        })
    });
    cmp.add("pread 1 MiB pieces, 1 thread", move || {
        u64::from(pread_valid(file, 0, len, 1 << 20))
    });
    cmp.add("pread alone, 1 MiB pieces (dd bs=1M)", move || {
        let mut buf = vec![0; 1 << 20];
        let mut at = 0;
        while at < len {
            let n = (len - at).min(1 << 20) as usize;
            file.read_exact_at(&mut buf[..n], at)
                .expect("reading the file");
            at += n as u64;
        }
        u64::from(buf[0])
    });
    r.run(cmp, 10.0);
    let _ = std::fs::remove_file(&path);
}

#[cfg(not(unix))]
fn file_in_page_cache(_: &mut Runner) {}

/// A contestant that validates each input in turn and counts the valid
/// ones; generic, so that `check` is inlined as a user's call would be.
fn count_valid<'a>(
    inputs: &'a [&'a [u8]],
    check: impl Fn(&[u8]) -> bool + 'a,
) -> impl FnMut() -> u64 + 'a {
    move || one_by_one(inputs).filter(|s| check(s)).count() as u64
}

/// The scalar kernel against std, on one batch of inputs validated one by
/// one (a single input for files), each checked against std first.
fn scalar_comparison<'a>(label: &str, inputs: &'a [&'a [u8]]) -> Comparison<'a> {
    let bytes = inputs.iter().map(|s| s.len() as u64).sum();
    let mut cmp = Comparison::new("scalar-vs-std", label, bytes);
    for input in inputs {
        assert_eq!(
            Kernel::Scalar.validate(input),
            std::str::from_utf8(input).is_ok(),
            "{label}"
        );
        assert_eq!(
            Kernel::Scalar.from_utf8(input).map_err(|e| e.valid_up_to()),
            std::str::from_utf8(input).map_err(|e| e.valid_up_to()),
            "{label}"
        );
    }
    cmp.add(
        "std",
        count_valid(inputs, |s| std::str::from_utf8(s).is_ok()),
    );
    cmp.add(
        "utf8guard scalar",
        count_valid(inputs, |s| Kernel::Scalar.validate(s)),
    );
    cmp.add(
        "utf8guard scalar from_utf8",
        count_valid(inputs, |s| Kernel::Scalar.from_utf8(s).is_ok()),
    );
    if utf8guard::active_kernel() == Kernel::Scalar {
        cmp.add(
            "utf8guard (dispatched: scalar)",
            count_valid(inputs, utf8guard::validate),
        );
    }
    // Beside strings, the loop that only reads them (as in `strings/`):
    // the ceiling that where they sit in memory puts on any validator.
    #[cfg(target_arch = "x86_64")]
    if inputs.len() > 1 && inputs.iter().all(|s| s.len() >= 32) && is_x86_feature_detected!("avx2")
    {
        cmp.add("read only", move || {
            one_by_one(inputs).fold(0, |acc, s| {
                // SAFETY: AVX2 was detected; the string is at least 32
                // bytes long.
                acc ^ u64::from(unsafe { read_avx2(s) })
            })
        });
    }
    cmp
}

fn scalar_vs_std(r: &mut Runner) {
    let mut files = inputs::labeled("lipsum", inputs::lipsum());
    files.extend(inputs::labeled("corpora", inputs::corpora("synthetic")));
    let text = ingest_text();
    files.push(("long/ascii-1MiB".into(), inputs::ascii(1 << 20, 5)));
    files.push(("long/text-1MiB".into(), repeated(&text, 1 << 20)));
    for (label, bytes) in &files {
        if r.wanted(&format!("scalar-vs-std/{label}")) {
            let one = [bytes.as_slice()];
            r.run(scalar_comparison(label, &one), 1.5);
        }
    }
    let (texts, _) = inputs::text_sources();
    let sources: Vec<&[u8]> = texts.iter().map(Vec::as_slice).collect();
    let classes =
        inputs::string_classes(&sources).unwrap_or_else(|why| panic!("scalar-vs-std/{why}"));
    for (label, strings) in &classes {
        if r.wanted(&format!("scalar-vs-std/{label}")) {
            let slices = strings.slices();
            r.run(scalar_comparison(label, &slices), 1.5);
        }
    }
}

/// The contestants of UTF-8 to CESU-8 on `text`: utf8guard's transcoder
/// and the crates' (which take the text as a `str`, already valid), after
/// a check that the crates write what utf8guard writes.
fn add_utf8_to_cesu8<'a>(cmp: &mut Comparison<'a>, text: &'a str) {
    let utf8 = text.as_bytes();
    let ours = utf8guard::transcode(Dialect::Utf8, Dialect::Cesu8, utf8, Policy::Strict);
    assert_eq!(ours.as_deref(), Ok(&*simd_cesu8::encode(text)));
    assert_eq!(ours.as_deref(), Ok(&*cesu8::to_cesu8(text)));
    cmp.add("utf8guard transcode", move || {
        let input = std::hint::black_box(utf8);
        utf8guard::transcode(Dialect::Utf8, Dialect::Cesu8, input, Policy::Strict)
            .map_or(0, |v| v.len() as u64)
    });
    cmp.add("simd_cesu8 encode", move || {
        simd_cesu8::encode(std::hint::black_box(text)).len() as u64
    });
    cmp.add("cesu8 to_cesu8", move || {
        cesu8::to_cesu8(std::hint::black_box(text)).len() as u64
    });
}

/// The contestants of CESU-8 to UTF-8 on `cesu` (`text` in CESU-8):
/// utf8guard's transcoder and the crates', after a check that each writes
/// `text`.
fn add_cesu8_to_utf8<'a>(cmp: &mut Comparison<'a>, cesu: &'a [u8], text: &str) {
    let ours = utf8guard::transcode(Dialect::Cesu8, Dialect::Utf8, cesu, Policy::Strict);
    assert_eq!(ours.as_deref(), Ok(text.as_bytes()));
    assert_eq!(simd_cesu8::decode_strict(cesu).as_deref(), Ok(text));
    assert_eq!(cesu8::from_cesu8(cesu).ok().as_deref(), Some(text));
    cmp.add("utf8guard transcode", move || {
        let input = std::hint::black_box(cesu);
        utf8guard::transcode(Dialect::Cesu8, Dialect::Utf8, input, Policy::Strict)
            .map_or(0, |v| v.len() as u64)
    });
    cmp.add("simd_cesu8 decode_strict", move || {
        simd_cesu8::decode_strict(std::hint::black_box(cesu)).map_or(0, |s| s.len() as u64)
    });
    cmp.add("cesu8 from_cesu8", move || {
        cesu8::from_cesu8(std::hint::black_box(cesu)).map_or(0, |s| s.len() as u64)
    });
}

/// ASCII text (the Latin lipsum's) with an emoji every `gap` bytes or so,
/// at least `len` bytes: text that goes into CESU-8 changed here and there,
/// where the transcoder goes back and forth between its phases.
fn emoji_every(latin: &str, gap: usize, len: usize) -> String {
    char_every(latin, '😀', gap, len)
}

/// The Latin lipsum's words with `c` every `gap` bytes or so, at least
/// `len` bytes.
fn char_every(latin: &str, c: char, gap: usize, len: usize) -> String {
    let mut out = String::with_capacity(len + 2 * gap);
    let mut words = latin.split_inclusive(' ').cycle();
    while out.len() < len {
        let start = out.len();
        while out.len() - start < gap {
            out.push_str(words.next().unwrap_or(" "));
        }
        out.push(c);
    }
    out
}

/// `transcode/sparse/<from>-to-<to>/every-<gap>`: pairs of dialects other
/// than UTF-8 and CESU-8 on the Latin lipsum with a character that changes
/// (or, out of CESU-8 into modified UTF-8, that the converter stops at and
/// keeps) every `gap` bytes, against the source dialect's check and a copy
/// of the same bytes. No crate converts these.
fn transcode_sparse(r: &mut Runner, latin: &str) {
    let pairs = [
        (Dialect::Utf8, Dialect::Corrected, 'é'),
        (Dialect::Corrected, Dialect::Utf8, 'é'),
        (Dialect::Wtf8, Dialect::Cesu8, '😀'),
        (Dialect::Cesu8, Dialect::Mutf8, '😀'),
    ];
    for (from, to, c) in pairs {
        for gap in [20, 200] {
            let label = format!("sparse/{}-to-{}/every-{gap}", short(from), short(to));
            let text = char_every(latin, c, gap, 1 << 20);
            let bytes = utf8guard::transcode(Dialect::Utf8, from, text.as_bytes(), Policy::Strict)
                .expect("the text converts");
            let input = &bytes[..];
            let mut cmp = Comparison::new("transcode", &label, input.len() as u64);
            if !r.wanted(&cmp.id()) {
                continue;
            }
            let mut expected = Vec::new();
            reference_into(from, to, input, &mut expected);
            let mut out = vec![0u8; 2 * input.len() + 16];
            let n = transcode_into(from, to, input, &mut out);
            assert_eq!(&out[..n], &expected[..], "{label}");
            cmp.add("utf8guard", move || {
                transcode_into(from, to, std::hint::black_box(input), &mut out) as u64
            });
            let mut copy = vec![0u8; input.len()];
            cmp.add("check + copy", move || {
                let input = std::hint::black_box(input);
                if from.check(input).is_err() {
                    return 0;
                }
                copy.copy_from_slice(input);
                std::hint::black_box(&copy).len() as u64
            });
            r.run(cmp, 2.0);
        }
    }
}

/// `transcode/utf8-to-cesu8/emoji-every-<gap>` and
/// `transcode/cesu8-to-utf8/emoji-every-<gap>`: UTF-8 to CESU-8 and back on
/// text that changes every `gap` bytes, against the crates; then
/// [`transcode_sparse`].
fn transcode_changing(r: &mut Runner) {
    let files = match inputs::lipsum() {
        Ok(files) => files,
        Err(why) => {
            eprintln!("paired: transcode/utf8-to-cesu8/emoji-every skipped: {why}");
            return;
        }
    };
    let Some(latin) = files.iter().find(|f| f.name == "Latin") else {
        eprintln!("paired: transcode/utf8-to-cesu8/emoji-every skipped: no Latin lipsum");
        return;
    };
    let latin = std::str::from_utf8(&latin.bytes).expect("lipsum is UTF-8");
    for gap in [50, 200, 1000, 5000] {
        let text = emoji_every(latin, gap, 1 << 20);
        let label = format!("utf8-to-cesu8/emoji-every-{gap}");
        let mut cmp = Comparison::new("transcode", &label, text.len() as u64);
        if !r.wanted(&cmp.id()) {
            continue;
        }
        add_utf8_to_cesu8(&mut cmp, &text);
        r.run(cmp, 2.0);
    }
    for gap in [50, 200, 1000, 5000] {
        let text = emoji_every(latin, gap, 1 << 20);
        let cesu = cesu8::to_cesu8(&text).into_owned();
        let label = format!("cesu8-to-utf8/emoji-every-{gap}");
        let mut cmp = Comparison::new("transcode", &label, cesu.len() as u64);
        if !r.wanted(&cmp.id()) {
            continue;
        }
        add_cesu8_to_utf8(&mut cmp, &cesu, &text);
        r.run(cmp, 2.0);
    }
    transcode_sparse(r, latin);
}

/// Text in Latin-1's letters: French and German sentences, `len` bytes of
/// UTF-8 or so, for the single-byte comparisons (the Latin lipsum is all
/// ASCII).
fn latin1_text(language: &str, len: usize) -> String {
    let sentence = match language {
        "French" => "Le cœur déçu mais l'âme plutôt naïve, Louÿs rêva de crapaüter en canoë au delà des îles, près du mälström où brûlent les novæ. Voilà où ça mène, à force d'économiser : élève, maître, forêt. ",
        "German" => "Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich. Fix, Schwyz! quäkt Jürgen blöd vom Paß. Die Straße führt über Brücken, Gärten und Höfe. ",
        _ => "« Il a dit : “c’est 10 € – pas plus…” » et l’œuvre coûte 20 €. ‘Ça’ suffit — Šárka, Œdipe, Ÿves. ",
    };
    // Without the characters the encodings lack (œ, æ are Windows-1252's
    // only): Latin-1 takes the French and German texts with œ spelled oe.
    let sentence = if language == "Typographic" {
        sentence.to_string()
    } else {
        sentence.replace('œ', "oe").replace('æ', "ae")
    };
    let mut text = String::new();
    while text.len() < len {
        text.push_str(&sentence);
    }
    text
}

/// `transcode/{latin1,windows1252}-to-utf8/<text>` and back:
/// utf8guard's single-byte conversions (into buffers of the most they can
/// write) against simdutf's Latin-1 conversions and encoding_rs (its
/// `mem` Latin-1 functions, which do not check UTF-8, and its Windows-1252
/// decoder and encoder, which take a `str`) on the Latin lipsum (ASCII)
/// and text in Latin-1's letters; `transcode/utf8-to-utf32/<script>` and
/// `transcode/utf32-to-utf8/<script>` against simdutf's validating
/// conversions and std's `chars` on every lipsum file.
fn transcode_single_byte_and_utf32(r: &mut Runner) {
    use utf8guard::SingleByte;
    let files = match inputs::lipsum() {
        Ok(files) => files,
        Err(why) => {
            eprintln!("paired: transcode/latin1, windows1252, utf32 skipped: {why}");
            return;
        }
    };
    let mut texts: Vec<(String, String)> = files
        .iter()
        .filter(|f| f.name == "Latin")
        .map(|f| {
            (
                f.name.clone(),
                String::from_utf8(f.bytes.clone()).expect("UTF-8"),
            )
        })
        .collect();
    for language in ["French", "German", "Typographic"] {
        texts.push((language.to_string(), latin1_text(language, 64 * 1024)));
    }
    for (encoding, short) in [
        (SingleByte::Latin1, "latin1"),
        (SingleByte::Windows1252, "windows1252"),
    ] {
        for (name, text) in &texts {
            let Ok(bytes): Result<Vec<u8>, _> =
                text.chars().map(|c| encoding.encode(c).ok_or(c)).collect()
            else {
                continue;
            };
            let (bytes, utf8) = (&bytes[..], text.as_bytes());
            let label = format!("{short}-to-utf8/{name}");
            let mut cmp = Comparison::new("transcode", &label, bytes.len() as u64);
            if r.wanted(&cmp.id()) {
                let mut out = vec![0u8; 3 * bytes.len()];
                let p = utf8guard::single_byte_to_utf8_into(encoding, bytes, &mut out);
                assert_eq!(&out[..p.written], utf8, "{label}");
                cmp.add("utf8guard single_byte_to_utf8_into", move || {
                    let p = utf8guard::single_byte_to_utf8_into(
                        encoding,
                        std::hint::black_box(bytes),
                        &mut out,
                    );
                    p.written as u64
                });
                cmp.add("utf8guard single_byte_to_utf8 (Vec)", move || {
                    let mut out = Vec::new();
                    utf8guard::single_byte_to_utf8(encoding, std::hint::black_box(bytes), &mut out);
                    out.len() as u64
                });
                // Each kernel's vector steps (the scalar kernel's loop).
                for kernel in Kernel::available() {
                    let mut out = vec![0u8; 3 * bytes.len()];
                    cmp.add(format!("utf8guard {kernel} steps"), move || {
                        let p = utf8guard::__bench::single_byte_to_utf8_into_with(
                            kernel,
                            encoding,
                            std::hint::black_box(bytes),
                            &mut out,
                        );
                        p.map_or(0, |p| p.written as u64)
                    });
                }
                if encoding == SingleByte::Latin1 {
                    let mut out = vec![0u8; 2 * bytes.len()];
                    cmp.add("simdutf convert_latin1_to_utf8", move || {
                        let src = std::hint::black_box(bytes);
                        // SAFETY: `out` has room for 2 bytes a byte, the
                        // most Latin-1 takes in UTF-8.
                        unsafe {
                            simdutf::convert_latin1_to_utf8(
                                src.as_ptr(),
                                src.len(),
                                out.as_mut_ptr(),
                            ) as u64
                        }
                    });
                    let mut out = vec![0u8; 2 * bytes.len()];
                    cmp.add("encoding_rs mem::convert_latin1_to_utf8", move || {
                        encoding_rs::mem::convert_latin1_to_utf8(
                            std::hint::black_box(bytes),
                            &mut out,
                        ) as u64
                    });
                } else {
                    let mut out = vec![0u8; 3 * bytes.len() + 16];
                    cmp.add("encoding_rs decode_to_utf8", move || {
                        let mut decoder =
                            encoding_rs::WINDOWS_1252.new_decoder_without_bom_handling();
                        let (_, _, written) = decoder.decode_to_utf8_without_replacement(
                            std::hint::black_box(bytes),
                            &mut out,
                            true,
                        );
                        written as u64
                    });
                }
                r.run(cmp, 2.0);
            }
            let label = format!("utf8-to-{short}/{name}");
            let mut cmp = Comparison::new("transcode", &label, utf8.len() as u64);
            if r.wanted(&cmp.id()) {
                let mut out = vec![0u8; utf8.len()];
                let p = utf8guard::utf8_to_single_byte_into(
                    encoding,
                    utf8,
                    Policy::Strict,
                    &mut out,
                    true,
                );
                assert_eq!(&out[..p.written], bytes, "{label}");
                cmp.add("utf8guard utf8_to_single_byte_into", move || {
                    let src = std::hint::black_box(utf8);
                    let p = utf8guard::utf8_to_single_byte_into(
                        encoding,
                        src,
                        Policy::Strict,
                        &mut out,
                        true,
                    );
                    p.written as u64
                });
                for kernel in Kernel::available() {
                    let mut out = vec![0u8; utf8.len()];
                    cmp.add(format!("utf8guard {kernel} steps"), move || {
                        let p = utf8guard::__bench::utf8_to_single_byte_into_with(
                            kernel,
                            encoding,
                            std::hint::black_box(utf8),
                            Policy::Strict,
                            &mut out,
                            true,
                        );
                        p.map_or(0, |p| p.written as u64)
                    });
                }
                if encoding == SingleByte::Latin1 {
                    let mut out = vec![0u8; utf8.len()];
                    cmp.add("simdutf convert_utf8_to_latin1", move || {
                        let src = std::hint::black_box(utf8);
                        // SAFETY: `out` has room for a byte a byte, the most
                        // UTF-8 takes in Latin-1.
                        unsafe {
                            simdutf::convert_utf8_to_latin1(
                                src.as_ptr(),
                                src.len(),
                                out.as_mut_ptr(),
                            ) as u64
                        }
                    });
                    let mut out = vec![0u8; utf8.len()];
                    cmp.add(
                        "encoding_rs mem::convert_utf8_to_latin1_lossy (unchecked)",
                        move || {
                            encoding_rs::mem::convert_utf8_to_latin1_lossy(
                                std::hint::black_box(utf8),
                                &mut out,
                            ) as u64
                        },
                    );
                } else {
                    let mut out = vec![0u8; utf8.len() + 16];
                    cmp.add("from_utf8 + encoding_rs encode_from_utf8", move || {
                        let Ok(src) = utf8guard::from_utf8(std::hint::black_box(utf8)) else {
                            return 0;
                        };
                        let mut encoder = encoding_rs::WINDOWS_1252.new_encoder();
                        let (_, _, written) =
                            encoder.encode_from_utf8_without_replacement(src, &mut out, true);
                        written as u64
                    });
                }
                r.run(cmp, 2.0);
            }
        }
    }
    for file in &files {
        let utf8 = &file.bytes[..];
        let text = std::str::from_utf8(utf8).expect("lipsum is UTF-8");
        let units: Vec<u32> = text.chars().map(u32::from).collect();
        let label = format!("utf8-to-utf32/{}", file.name);
        let mut cmp = Comparison::new("transcode", &label, utf8.len() as u64);
        if r.wanted(&cmp.id()) {
            let mut out = vec![0u32; utf8.len()];
            let p = utf8guard::utf8_to_utf32_into(utf8, Policy::Strict, &mut out, true);
            assert_eq!(out[..p.written], units[..], "{label}");
            cmp.add("utf8guard utf8_to_utf32_into", move || {
                let src = std::hint::black_box(utf8);
                utf8guard::utf8_to_utf32_into(src, Policy::Strict, &mut out, true).written as u64
            });
            let mut out = vec![0u32; utf8.len()];
            cmp.add("simdutf convert_utf8_to_utf32", move || {
                let src = std::hint::black_box(utf8);
                // SAFETY: `out` has room for a unit a byte, the most UTF-8
                // takes in UTF-32.
                unsafe {
                    simdutf::convert_utf8_to_utf32(src.as_ptr(), src.len(), out.as_mut_ptr()) as u64
                }
            });
            let mut out = vec![0u32; utf8.len()];
            cmp.add("std from_utf8 + chars", move || {
                let Ok(text) = std::str::from_utf8(std::hint::black_box(utf8)) else {
                    return 0;
                };
                let mut n = 0;
                for (slot, c) in out.iter_mut().zip(text.chars()) {
                    *slot = u32::from(c);
                    n += 1;
                }
                n
            });
            r.run(cmp, 2.0);
        }
        let label = format!("utf32-to-utf8/{}", file.name);
        let mut cmp = Comparison::new("transcode", &label, utf8.len() as u64);
        if r.wanted(&cmp.id()) {
            let units = &units[..];
            let mut out = vec![0u8; 4 * units.len()];
            let p = utf8guard::utf32_to_utf8_into(units, Policy::Strict, &mut out);
            assert_eq!(&out[..p.written], utf8, "{label}");
            cmp.add("utf8guard utf32_to_utf8_into", move || {
                let src = std::hint::black_box(units);
                utf8guard::utf32_to_utf8_into(src, Policy::Strict, &mut out).written as u64
            });
            let mut out = vec![0u8; 4 * units.len()];
            cmp.add("simdutf convert_utf32_to_utf8", move || {
                let src = std::hint::black_box(units);
                // SAFETY: `out` has room for 4 bytes a unit, the most a
                // code point takes in UTF-8.
                unsafe {
                    simdutf::convert_utf32_to_utf8(src.as_ptr(), src.len(), out.as_mut_ptr()) as u64
                }
            });
            let mut out = vec![0u8; 4 * units.len()];
            cmp.add("std char::from_u32 + encode_utf8", move || {
                let mut n = 0;
                for &u in std::hint::black_box(units) {
                    let Some(c) = char::from_u32(u) else {
                        return 0;
                    };
                    n += c.encode_utf8(&mut out[n..]).len();
                }
                n as u64
            });
            r.run(cmp, 2.0);
        }
    }
}

fn main() {
    let mut r = Runner::from_args("paired");
    utf8guard_bench::require_kernel_override();
    eprintln!(
        "paired: kernel {}, {} mode",
        utf8guard::active_kernel(),
        Mode::from_env().name()
    );
    lipsum(&mut r);
    mixed(&mut r);
    dialects(&mut r);
    transcode(&mut r);
    transcode_changing(&mut r);
    transcode_single_byte_and_utf32(&mut r);
    short_strings(&mut r);
    strings_by_size(&mut r);
    invalid(&mut r);
    ingest(&mut r);
    repair::repair(&mut r);
    beyond_cache(&mut r);
    file_in_page_cache(&mut r);
    scalar_vs_std(&mut r);
}
