//! The floor of `utf8guard check` on a large file: a process that maps the
//! file and reads every byte once (its pages faulted in as they are read),
//! split across as many threads as the command uses by default, and checks
//! nothing. With `-`, it reads standard input instead, as the command
//! reads a stream: in pieces of 256 KiB, from a pipe widened to 1 MiB
//! first (on Linux), each piece's bytes loaded once.
//! `scripts/bench-report` times it beside the command, whose time cannot
//! go below it by much: the command does all of this and validates too.
//!
//! ```text
//! read-floor FILE
//! read-floor - < STREAM
//! ```

use std::io::Read;
use std::process::ExitCode;

use memmap2::MmapOptions;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: read-floor FILE");
        return ExitCode::from(2);
    };
    if path == "-" {
        return read_stdin();
    }
    let file = match std::fs::File::open(&path) {
        Ok(file) => file,
        Err(e) => {
            eprintln!("read-floor: {}: {e}", path.to_string_lossy());
            return ExitCode::from(2);
        }
    };
    // SAFETY: the mapping is only read, through the slice it derefs to;
    // a file changed while mapped gives other bytes (or SIGBUS on
    // truncation), which only makes this measurement meaningless.
    let map = match unsafe { MmapOptions::new().map(&file) } {
        Ok(map) => map,
        Err(e) => {
            eprintln!("read-floor: {}: {e}", path.to_string_lossy());
            return ExitCode::from(2);
        }
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let part = map.len().div_ceil(threads).next_multiple_of(4096).max(4096);
    let map = &map;
    // Each thread reads its part, faulting its pages in as it goes (as the
    // command's threads do).
    let read = move |start: usize| -> u64 {
        let len = part.min(map.len() - start);
        or_of_words(&map[start..start + len])
    };
    let any = std::thread::scope(|scope| {
        let others: Vec<_> = (part..map.len())
            .step_by(part)
            .map(|start| scope.spawn(move || read(start)))
            .collect();
        let mine = if map.is_empty() { 0 } else { read(0) };
        others
            .into_iter()
            .fold(mine, |acc, h| acc | h.join().unwrap_or(0))
    });
    std::hint::black_box(any);
    ExitCode::SUCCESS
}

/// Reads standard input to its end as `utf8guard` reads a stream (the
/// capacity of its pipe and the size of its reads are the command's).
fn read_stdin() -> ExitCode {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if rustix::pipe::fcntl_getpipe_size(std::io::stdin()).is_ok_and(|size| size < 1 << 20) {
        let _ = rustix::pipe::fcntl_setpipe_size(std::io::stdin(), 1 << 20);
    }
    let mut stdin = std::io::stdin().lock();
    let mut buf = vec![0u8; 256 << 10];
    let mut any = 0;
    loop {
        match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => any |= or_of_words(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                eprintln!("read-floor: standard input: {e}");
                return ExitCode::from(2);
            }
        }
    }
    std::hint::black_box(any);
    ExitCode::SUCCESS
}

/// The OR of every 8-byte word of `bytes` and of its last bytes: every
/// byte is loaded once.
fn or_of_words(bytes: &[u8]) -> u64 {
    let (words, rest) = bytes.as_chunks::<8>();
    let acc = words.iter().fold(0, |acc, w| acc | u64::from_ne_bytes(*w));
    rest.iter().fold(acc, |acc, &b| acc | u64::from(b))
}
