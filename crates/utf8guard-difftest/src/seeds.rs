//! The files the generator writes: the project's `corpora/` and the seed
//! corpus of the fuzz target.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::generate::Script;
use crate::mutate::{char_start, Malformation, Mutation};
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

/// Seeds for the fuzz target, as `(file name, contents)`: short texts in
/// every script, each malformation class inserted at several offsets around
/// the 16-, 32- and 64-byte boundaries, and truncated texts. Small on
/// purpose: the fuzzer grows the corpus from them.
pub fn fuzz_seeds() -> Vec<(PathBuf, Vec<u8>)> {
    let mut seeds = Vec::new();
    let mut rng = Rng::derive(CORPORA_SEED, 0xF022);
    for &script in Script::ALL {
        for len in [15, 63, 200, 1500] {
            seeds.push((
                PathBuf::from(format!("text-{}-{len}", script.name())),
                script.generate(CORPORA_SEED, len),
            ));
        }
    }
    for &class in Malformation::ALL {
        for at in [0, 14, 31, 62, 63, 64, 100] {
            let script = *rng.pick(Script::ALL);
            let base = script.generate(rng.next_u64(), 130);
            let at = char_start(&base, at);
            let input = Mutation::Insert {
                at,
                bytes: class.bytes(&mut rng),
            }
            .apply(&base);
            seeds.push((
                PathBuf::from(format!("{}-at-{at}-{}", class.name(), script.name())),
                input,
            ));
        }
    }
    for &script in Script::ALL {
        let text = script.generate(CORPORA_SEED + 1, 128);
        let cut = (64..text.len()).find(|&i| text[i] >= 0x80).unwrap_or(65) + 1;
        seeds.push((
            PathBuf::from(format!("truncated-{}", script.name())),
            text[..cut.min(text.len())].to_vec(),
        ));
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
        assert!(seeds.iter().all(|s| s.1.len() <= 1500 + 8));
    }
}
