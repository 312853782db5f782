//! `repair/...`: the repair policies (issue "Bad bytes") against std's
//! `String::from_utf8_lossy` and against the validating entry points they
//! build on.
//!
//! - `repair/valid`: valid text (the ingestion text). A `Repairer` writing
//!   into a reused `String` against `validate` and a copy into a reused
//!   vector (the work a repair of valid text cannot avoid when it must
//!   produce an owned copy); `repair` itself, which borrows valid input;
//!   std's `from_utf8_lossy` (which borrows too).
//! - `repair/latin-1`: 1 MiB of Latin-1 text (European words, every
//!   non-ASCII byte ill formed as UTF-8) and `repair/error-every-1KiB`: the
//!   ingestion text with an `FF` between two characters every 1 KiB. Every
//!   policy through `repair`, the escape through `escape`, and std.
//! - `repair/reader-valid`: `RepairReader` against `Utf8Reader` reading the
//!   valid text from memory into a 64 KiB buffer.

use std::io::Read;

use utf8guard::{RepairReader, Repairer, Replacement, Utf8Reader};
use utf8guard_bench::inputs::ingest_text;
use utf8guard_bench::paired::Comparison;
use utf8guard_bench::runner::Runner;

/// Words of languages written in Latin-1, half of them with a letter above
/// U+007F: the text of `repair/latin-1` once encoded.
const LATIN1_WORDS: [&str; 16] = [
    "café", "Größe", "naïve", "élève", "über", "Straße", "garçon", "fiancée", "und", "les", "der",
    "año", "est", "niño", "the", "façade",
];

/// About `len` bytes of `LATIN1_WORDS` in a pseudo-random order, encoded as
/// Latin-1 (one byte a character).
fn latin1_text(len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 16);
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let word = LATIN1_WORDS[(x % LATIN1_WORDS.len() as u64) as usize];
        out.extend(
            word.chars()
                .map(|c| u8::try_from(u32::from(c)).expect("Latin-1")),
        );
        out.push(if x.is_multiple_of(13) { b'\n' } else { b' ' });
    }
    out
}

/// `text` with an `FF` inserted before the first character that starts at
/// least `gap` bytes after the last insertion.
fn error_every(text: &[u8], gap: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + text.len() / gap + 1);
    let mut next = gap;
    for (i, &byte) in text.iter().enumerate() {
        if i >= next && byte & 0xC0 != 0x80 {
            out.push(0xFF);
            next = i + gap;
        }
        out.push(byte);
    }
    out
}

/// The length of `input` repaired by a `Repairer` into `out` (cleared
/// first, its capacity kept from call to call).
fn repair_into(replacement: Replacement, input: &[u8], out: &mut String) -> u64 {
    out.clear();
    let mut repairer = Repairer::new(replacement);
    repairer.push(input, out);
    repairer.finish(out);
    out.len() as u64
}

/// Everything `reader` gives, read into a 64 KiB buffer: the bytes counted.
fn drain(mut reader: impl Read, buf: &mut [u8]) -> u64 {
    let mut total = 0;
    loop {
        match reader.read(buf) {
            Ok(0) => return total,
            Ok(n) => total += n as u64,
            Err(e) => panic!("reading from memory: {e}"),
        }
    }
}

pub fn repair(r: &mut Runner) {
    if !r.might_want("repair") {
        return;
    }
    let text = ingest_text();

    let input = &text[..];
    let mut cmp = Comparison::new("repair", "valid", input.len() as u64);
    if r.wanted(&cmp.id()) {
        assert!(matches!(
            utf8guard::repair(input, Replacement::MaximalSubpart),
            std::borrow::Cow::Borrowed(_)
        ));
        let mut copy = Vec::with_capacity(input.len());
        cmp.add("validate + copy", move || {
            let input = std::hint::black_box(input);
            if !utf8guard::validate(input) {
                return 0;
            }
            copy.clear();
            copy.extend_from_slice(input);
            std::hint::black_box(&copy).len() as u64
        });
        for replacement in [Replacement::MaximalSubpart, Replacement::Jvm] {
            let mut out = String::with_capacity(input.len());
            cmp.add(format!("Repairer {replacement}"), move || {
                repair_into(replacement, std::hint::black_box(input), &mut out)
            });
        }
        cmp.add("repair (borrowed)", move || {
            utf8guard::repair(std::hint::black_box(input), Replacement::MaximalSubpart).len() as u64
        });
        cmp.add("std from_utf8_lossy", move || {
            String::from_utf8_lossy(std::hint::black_box(input)).len() as u64
        });
        r.run(cmp, 3.0);
    }

    let latin1 = latin1_text(1 << 20);
    let sparse = error_every(&text, 1024);
    for (label, input) in [("latin-1", &latin1[..]), ("error-every-1KiB", &sparse[..])] {
        let mut cmp = Comparison::new("repair", label, input.len() as u64);
        if !r.wanted(&cmp.id()) {
            continue;
        }
        assert_eq!(
            utf8guard::repair(input, Replacement::MaximalSubpart),
            String::from_utf8_lossy(input),
            "{label}"
        );
        cmp.add("std from_utf8_lossy", move || {
            String::from_utf8_lossy(std::hint::black_box(input)).len() as u64
        });
        for replacement in Replacement::ALL {
            cmp.add(replacement.name(), move || {
                utf8guard::repair(std::hint::black_box(input), replacement).len() as u64
            });
        }
        cmp.add("escape", move || {
            utf8guard::escape(std::hint::black_box(input)).len() as u64
        });
        r.run(cmp, 3.0);
    }

    let mut cmp = Comparison::new("repair", "reader-valid", input.len() as u64);
    if r.wanted(&cmp.id()) {
        let mut buf = vec![0u8; 64 << 10];
        assert_eq!(drain(Utf8Reader::new(input), &mut buf), input.len() as u64);
        assert_eq!(
            drain(RepairReader::new(input, Replacement::Jvm), &mut buf),
            input.len() as u64
        );
        cmp.add("Utf8Reader", move || {
            drain(Utf8Reader::new(std::hint::black_box(input)), &mut buf)
        });
        for replacement in [Replacement::MaximalSubpart, Replacement::Jvm] {
            let mut buf = vec![0u8; 64 << 10];
            cmp.add(format!("RepairReader {replacement}"), move || {
                drain(
                    RepairReader::new(std::hint::black_box(input), replacement),
                    &mut buf,
                )
            });
        }
        r.run(cmp, 3.0);
    }
}
