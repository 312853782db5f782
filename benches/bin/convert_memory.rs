//! The library's conversion of a file's bytes already in memory, the
//! reference `scripts/bench-convert` holds the `utf8guard convert` command
//! to: the file is read and laid out as the conversion's input units first,
//! the output buffer made and touched once, and only the conversions are
//! timed.
//!
//! ```text
//! convert-memory FROM TO FILE REPEATS
//! ```
//!
//! FROM and TO are the command's names of the pair (`utf-8`, `utf-16le`,
//! `utf-32le`, `latin1`, `windows-1252`; one side `utf-8`). It prints the
//! fastest of REPEATS conversions in seconds, and exits with 1 if the
//! conversion did not take the whole input.

use std::process::ExitCode;
use std::time::Instant;

use utf8guard::{Policy, SingleByte};

/// One conversion of the whole input into the output, returning the input
/// units it read.
type Run = Box<dyn FnMut() -> usize>;

fn units<const N: usize>(bytes: &[u8]) -> impl Iterator<Item = [u8; N]> + '_ {
    bytes
        .chunks_exact(N)
        .map(|c| c.try_into().expect("N bytes"))
}

fn run_for(from: &str, to: &str, bytes: Vec<u8>) -> Result<(Run, usize), String> {
    let single = |name: &str| SingleByte::from_name(name);
    Ok(match (from, to) {
        ("utf-8", "utf-16le") => {
            let mut out = vec![0u16; bytes.len() + 64];
            let len = bytes.len();
            let run =
                move || utf8guard::utf8_to_utf16_into(&bytes, Policy::Strict, &mut out, true).read;
            (Box::new(run), len)
        }
        ("utf-16le", "utf-8") => {
            let input: Vec<u16> = units::<2>(&bytes).map(u16::from_le_bytes).collect();
            let mut out = vec![0u8; input.len() * 3 + 64];
            let len = input.len();
            let run =
                move || utf8guard::utf16_to_utf8_into(&input, Policy::Strict, &mut out, true).read;
            (Box::new(run), len)
        }
        ("utf-8", "utf-32le") => {
            let mut out = vec![0u32; bytes.len() + 64];
            let len = bytes.len();
            let run =
                move || utf8guard::utf8_to_utf32_into(&bytes, Policy::Strict, &mut out, true).read;
            (Box::new(run), len)
        }
        ("utf-32le", "utf-8") => {
            let input: Vec<u32> = units::<4>(&bytes).map(u32::from_le_bytes).collect();
            let mut out = vec![0u8; input.len() * 4 + 64];
            let len = input.len();
            let run = move || utf8guard::utf32_to_utf8_into(&input, Policy::Strict, &mut out).read;
            (Box::new(run), len)
        }
        (single_from, "utf-8") if single(single_from).is_some() => {
            let encoding = single(single_from).expect("checked");
            let mut out = vec![0u8; bytes.len() * 3 + 64];
            let len = bytes.len();
            let run = move || utf8guard::single_byte_to_utf8_into(encoding, &bytes, &mut out).read;
            (Box::new(run), len)
        }
        ("utf-8", single_to) if single(single_to).is_some() => {
            let encoding = single(single_to).expect("checked");
            let mut out = vec![0u8; bytes.len() + 64];
            let len = bytes.len();
            let run = move || {
                utf8guard::utf8_to_single_byte_into(
                    encoding,
                    &bytes,
                    Policy::Strict,
                    &mut out,
                    true,
                )
                .read
            };
            (Box::new(run), len)
        }
        _ => return Err(format!("no conversion {from} -> {to} here")),
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [from, to, file, repeats] = &args[..] else {
        eprintln!("usage: convert-memory FROM TO FILE REPEATS");
        return ExitCode::from(2);
    };
    let repeats: usize = match repeats.parse() {
        Ok(n) if n > 0 => n,
        _ => {
            eprintln!("convert-memory: REPEATS must be a positive number");
            return ExitCode::from(2);
        }
    };
    let bytes = match std::fs::read(file) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("convert-memory: {file}: {e}");
            return ExitCode::from(2);
        }
    };
    let (mut run, len) = match run_for(from, to, bytes) {
        Ok(pair) => pair,
        Err(why) => {
            eprintln!("convert-memory: {why}");
            return ExitCode::from(2);
        }
    };
    // The first conversion touches the output's pages; it is not timed.
    if run() != len {
        eprintln!("convert-memory: {file} did not convert whole from {from} to {to}");
        return ExitCode::from(1);
    }
    let mut best = f64::INFINITY;
    for _ in 0..repeats {
        let began = Instant::now();
        let read = run();
        best = best.min(began.elapsed().as_secs_f64());
        assert_eq!(read, len);
    }
    println!("{best:.6}");
    ExitCode::SUCCESS
}
