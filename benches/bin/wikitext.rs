//! The Wikipedia-like inputs of `mixed/<script>` (`utf8guard_bench::wikitext`):
//! how much of each is ASCII, and how its 64-byte blocks divide into all
//! ASCII, no ASCII and both; with `--out DIR`, each written to
//! `DIR/<script>.txt` too (to look at, or to time with other tools).
//!
//! ```text
//! wikitext [--out DIR] [--size BYTES]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use utf8guard_bench::wikitext::{
    ascii_share, block_kinds, wikitext, Script, MIXED_LEN, MIXED_SEED,
};

fn main() -> ExitCode {
    let mut out: Option<PathBuf> = None;
    let mut size = MIXED_LEN;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--out", Some(dir)) => out = Some(dir.into()),
            ("--size", Some(n)) => match n.parse() {
                Ok(n) => size = n,
                Err(e) => {
                    eprintln!("wikitext: --size {n}: {e}");
                    return ExitCode::from(2);
                }
            },
            _ => {
                eprintln!("usage: wikitext [--out DIR] [--size BYTES]");
                return ExitCode::from(2);
            }
        }
    }
    if let Some(dir) = &out {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("wikitext: {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
    }
    println!("script      bytes    ASCII  blocks: ASCII  none   both");
    for s in Script::ALL {
        let text = wikitext(s, size, MIXED_SEED);
        let (a, n, b) = block_kinds(text.as_bytes());
        println!(
            "{:10} {:>7} {:>7.1}%  {:>12.1}% {:>5.1}% {:>5.1}%",
            s.name(),
            text.len(),
            100.0 * ascii_share(text.as_bytes()),
            100.0 * a,
            100.0 * n,
            100.0 * b
        );
        if let Some(dir) = &out {
            let path = dir.join(format!("{}.txt", s.name()));
            if let Err(e) = std::fs::write(&path, &text) {
                eprintln!("wikitext: {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
