//! The files the generator writes: the project's `corpora/` and the seed
//! corpus of the fuzz target.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use utf8guard::Dialect;

use crate::generate::Script;
use crate::mutate::{char_start, Foreign, Malformation, Mutation, Piece};
use crate::rng::Rng;

/// The seed of the project's corpora. Changing it changes every file.
pub const CORPORA_SEED: u64 = 0x7574_6638;

/// Size of each synthetic text in `corpora/synthetic/`.
pub const SYNTHETIC_SIZE: usize = 64 << 10;

/// Size of each text in `corpora/malformed/`.
pub const MALFORMED_SIZE: usize = 4 << 10;

/// The project's corpora, as `(path relative to corpora/, contents)`:
///
/// - `synthetic/<script>.txt`: [`SYNTHETIC_SIZE`] bytes of valid text per
///   script;
/// - `malformed/<class>.bin`: [`MALFORMED_SIZE`] bytes of mixed text with
///   instances of one malformation class inserted at a character boundary
///   about a third of the way in (the first error), two thirds of the way
///   and at the very end.
pub fn project_corpora() -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for &script in Script::ALL {
        files.push((
            PathBuf::from(format!("synthetic/{}.txt", script.name())),
            script.generate(CORPORA_SEED, SYNTHETIC_SIZE),
        ));
    }
    for (k, &class) in Malformation::ALL.iter().enumerate() {
        let mut rng = Rng::derive(CORPORA_SEED, 100 + k as u64);
        let mut text = Script::Mixed.generate(CORPORA_SEED + k as u64, MALFORMED_SIZE);
        let end = text.len();
        for at in [end, 2 * end / 3, end / 3] {
            let at = char_start(&text, at);
            text = Mutation::Insert {
                at,
                bytes: class.bytes(&mut rng),
            }
            .apply(&text);
        }
        files.push((
            PathBuf::from(format!("malformed/{}.bin", class.name())),
            text,
        ));
    }
    files
}

/// Write [`project_corpora`] under `dir`.
///
/// # Errors
/// If a directory or file cannot be written.
pub fn write_project_corpora(dir: &Path) -> io::Result<Vec<PathBuf>> {
    write_all(dir, project_corpora())
}

/// The dialect and the bytes of a fuzz input: its first byte picks the
/// dialect (its value modulo the number of dialects, an index into
/// [`Dialect::ALL`]), the rest is the input. An empty input is an empty
/// strict UTF-8 input.
///
/// ```
/// use utf8guard::Dialect;
/// use utf8guard_difftest::seeds::{fuzz_input, fuzz_seed};
///
/// assert_eq!(fuzz_input(b"\x03abc"), (Dialect::Cesu8, &b"abc"[..]));
/// assert_eq!(fuzz_input(&fuzz_seed(Dialect::Wtf8, b"x")), (Dialect::Wtf8, &b"x"[..]));
/// assert_eq!(fuzz_input(b""), (Dialect::Utf8, &b""[..]));
/// ```
pub fn fuzz_input(data: &[u8]) -> (Dialect, &[u8]) {
    match data.split_first() {
        Some((&selector, rest)) => (Dialect::ALL[selector as usize % Dialect::ALL.len()], rest),
        None => (Dialect::Utf8, data),
    }
}

/// The fuzz input that checks `bytes` in `dialect` (see [`fuzz_input`]).
pub fn fuzz_seed(dialect: Dialect, bytes: &[u8]) -> Vec<u8> {
    let index = Dialect::ALL
        .iter()
        .position(|&d| d == dialect)
        .expect("a dialect of Dialect::ALL");
    let mut seed = Vec::with_capacity(bytes.len() + 1);
    seed.push(index as u8);
    seed.extend_from_slice(bytes);
    seed
}

/// Seeds for the fuzz target, as `(file name, contents)`, each a
/// [`fuzz_seed`] for one dialect: per dialect, short texts in every script
/// (in strict UTF-8, of four lengths; in the others, of two), each
/// malformation class (and outside strict UTF-8 each [`Foreign`] class)
/// inserted at several offsets around the 16-, 32- and 64-byte boundaries,
/// and truncated texts. Small on purpose: the fuzzer grows the corpus from
/// them.
pub fn fuzz_seeds() -> Vec<(PathBuf, Vec<u8>)> {
    let mut seeds = Vec::new();
    let mut rng = Rng::derive(CORPORA_SEED, 0xF022);
    for &dialect in Dialect::ALL {
        let lens: &[usize] = if dialect == Dialect::Utf8 {
            &[15, 63, 200, 1500]
        } else {
            &[63, 600]
        };
        let text = |rng: &mut Rng, script: Script, len: usize| {
            let mut out = Vec::with_capacity(len);
            script.generate_in(dialect, rng, len, &mut out);
            out
        };
        for &script in Script::ALL {
            for &len in lens {
                let name = format!("{dialect}-text-{}-{len}", script.name());
                let bytes = text(&mut rng, script, len);
                seeds.push((PathBuf::from(name), fuzz_seed(dialect, &bytes)));
            }
        }
        let foreign = if dialect == Dialect::Utf8 {
            &[][..]
        } else {
            Foreign::ALL
        };
        let classes = Malformation::ALL
            .iter()
            .map(|&m| (Piece::Malformed(m), m.name()))
            .chain(foreign.iter().map(|&f| (Piece::Foreign(f), f.name())));
        for (class, name) in classes {
            for near in [0, 14, 31, 62, 63, 64, 100] {
                let script = *rng.pick(Script::ALL);
                let base = text(&mut rng, script, 130);
                let at = char_start(&base, near);
                let input = Mutation::Insert {
                    at,
                    bytes: class.bytes(&mut rng),
                }
                .apply(&base);
                let name = format!("{dialect}-{name}-near-{near}-{}", script.name());
                seeds.push((PathBuf::from(name), fuzz_seed(dialect, &input)));
            }
        }
        for &script in Script::ALL {
            let text = text(&mut rng, script, 128);
            let cut = (64..text.len()).find(|&i| text[i] >= 0x80).unwrap_or(65) + 1;
            let name = format!("{dialect}-truncated-{}", script.name());
            let bytes = &text[..cut.min(text.len())];
            seeds.push((PathBuf::from(name), fuzz_seed(dialect, bytes)));
        }
    }
    seeds
}

/// Write [`fuzz_seeds`] into `dir`.
///
/// # Errors
/// If the directory or a file cannot be written.
pub fn write_fuzz_seeds(dir: &Path) -> io::Result<Vec<PathBuf>> {
    write_all(dir, fuzz_seeds())
}

fn write_all(dir: &Path, files: Vec<(PathBuf, Vec<u8>)>) -> io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for (rel, bytes) in files {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(&path, bytes)?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_corpora_fail_at_the_first_insertion() {
        let files = project_corpora();
        let malformed = &files[Script::ALL.len()..];
        assert_eq!(malformed.len(), Malformation::ALL.len());
        for (k, ((path, bytes), &class)) in malformed.iter().zip(Malformation::ALL).enumerate() {
            let err = utf8guard_dfa::validate(bytes).unwrap_err();
            assert_eq!(err.fault, class.expected_fault(), "{}", path.display());
            let original = Script::Mixed.generate(CORPORA_SEED + k as u64, MALFORMED_SIZE);
            let first = char_start(&original, MALFORMED_SIZE / 3);
            assert_eq!(err.valid_up_to, first, "{}", path.display());
        }
    }

    #[test]
    fn fuzz_seeds_are_small_and_named_uniquely() {
        let seeds = fuzz_seeds();
        let names: std::collections::HashSet<_> = seeds.iter().map(|s| &s.0).collect();
        assert_eq!(names.len(), seeds.len());
        assert!(seeds.len() > 100);
        // A selector byte, then at most 1500 bytes of text and an inserted
        // sequence (a reserved run may be long).
        assert!(seeds.iter().all(|s| s.1.len() <= 1 + 1500 + 8), "{:?}", {
            let longest = seeds.iter().max_by_key(|s| s.1.len()).unwrap();
            (&longest.0, longest.1.len())
        });
    }

    #[test]
    fn fuzz_seeds_cover_every_dialect_with_its_own_text() {
        let seeds = fuzz_seeds();
        for &d in Dialect::ALL {
            let mine: Vec<&[u8]> = seeds
                .iter()
                .map(|s| fuzz_input(&s.1))
                .filter(|&(dialect, _)| dialect == d)
                .map(|(_, bytes)| bytes)
                .collect();
            assert!(mine.len() >= 100, "{d}: {}", mine.len());
            let automaton = crate::harness::automaton(d);
            let valid = mine.iter().filter(|b| automaton.is_valid(b)).count();
            // The texts (and a few insertions that are text of the dialect).
            assert!(valid >= Script::ALL.len() * 2, "{d}: {valid} valid");
            assert!(valid < mine.len(), "{d}");
        }
    }
}
