//! `utf8guard repair`: the input with every invalid sequence replaced as
//! `--replacement` says, written as it is produced.

use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};
use std::path::Path;
use std::time::Instant;

use crate::args::repair::{RepairArgs, RepairPolicy};
use crate::io_error::io_message;
use crate::mapped::{Mapping, CHANGED_REPAIR, MMAP_MIN};
use crate::path_name::message_name;
use crate::quantity::{counted, human_bytes};
use utf8guard::{Escaper, Repairer};

/// Bytes converted at a time.
const PIECE: usize = 1 << 20;

/// Runs `repair`; returns the exit status.
pub fn run(args: &RepairArgs) -> u8 {
    match repair(args) {
        Ok(false) => 0,
        Ok(true) => 1,
        // The reader of standard output went away (as `head` does once it
        // has what it wanted): stop quietly, as `check` does, with the
        // status that says the work was not done.
        Err(RepairError::Closed) => 2,
        Err(RepairError::Message(message)) => {
            eprintln!("utf8guard: {message}");
            2
        }
    }
}

/// Why a repair did not finish.
enum RepairError {
    /// Standard output was closed by its reader.
    Closed,
    /// Anything else, said in words.
    Message(String),
}

impl From<String> for RepairError {
    fn from(message: String) -> Self {
        RepairError::Message(message)
    }
}

/// `Ok(true)` when something was replaced.
fn repair(args: &RepairArgs) -> Result<bool, RepairError> {
    let input = args.input.as_deref().unwrap_or(Path::new("-"));
    let output = args.output.as_deref().filter(|p| p.as_os_str() != "-");
    let stdin = input.as_os_str() == "-";
    let policy = args.replacement;
    let in_name = message_name(input);
    let cannot_read = |e: io::Error| format!("{in_name}: {}", io_message(&e));
    if stdin && io::stdin().is_terminal() {
        eprintln!("utf8guard: reading standard input (end it with Ctrl-D; --help for usage)");
    }
    let file = if stdin {
        None
    } else {
        Some(File::open(input).map_err(cannot_read)?)
    };
    // Standard input's too: a closed descriptor is an error, not an empty
    // input, and a file behind it is as much the input as a named one.
    let meta = match &file {
        Some(f) => f.metadata(),
        None => crate::output::stdin_metadata(),
    };
    let meta = match meta {
        Ok(meta) => Some(meta),
        // (Where nothing can be known of standard input: read it.)
        Err(e) if stdin && e.kind() == io::ErrorKind::Unsupported => None,
        Err(e) => return Err(cannot_read(e).into()),
    };
    if meta.as_ref().is_some_and(|m| m.is_dir()) {
        return Err(format!("{in_name}: is a directory").into());
    }
    if let (Some(out), Some(in_meta)) = (output, &meta) {
        crate::output::refuse_input(out, in_meta, "repair")?;
    }
    let mut writer = crate::output::Output::open(output, PIECE, args.force)?;
    let out_name = output.map_or("standard output".into(), message_name);
    let started = Instant::now();
    let mut stream = Stream::new(policy);
    let result = match (file, meta) {
        (Some(file), Some(meta)) if meta.is_file() && meta.len() >= MMAP_MIN => {
            match usize::try_from(meta.len())
                .map_err(io::Error::other)
                .and_then(|len| Mapping::new(&file, 0, len, false))
            {
                Ok(map) => {
                    let result =
                        repair_slice(&map, PIECE, &mut stream, &mut writer).map_err(Failure::Write);
                    // Pages past a new end fault in the kernel too, when it
                    // copies them out of the mapping for a write: that
                    // write fails (EFAULT) with no signal, so the file's
                    // length says what happened as well as the handler.
                    let shrank = file.metadata().map_or(true, |m| m.len() < map.len() as u64);
                    if map.truncated() || shrank {
                        Err(Failure::Changed)
                    } else {
                        result
                    }
                }
                Err(_) => repair_stream(file, &mut stream, &mut writer),
            }
        }
        (Some(file), _) => {
            crate::pipe::widen(&file);
            repair_stream(file, &mut stream, &mut writer)
        }
        (None, _) => {
            crate::pipe::widen(io::stdin());
            repair_stream(io::stdin().lock(), &mut stream, &mut writer)
        }
    };
    // Only a whole result replaces OUT: after any failure the temporary
    // file is removed as `writer` drops.
    let finished = match result {
        Ok(changed) => writer.finish().map(|()| changed).map_err(Failure::Write),
        Err(failure) => Err(failure),
    };
    if args.stats {
        stream.print_stats(policy, started);
    }
    match finished {
        Ok(changed) => Ok(changed),
        Err(Failure::Read(e)) => Err(RepairError::Message(format!(
            "{in_name}: read error: {}",
            io_message(&e)
        ))),
        Err(Failure::Changed) => Err(RepairError::Message(format!("{in_name}: {CHANGED_REPAIR}"))),
        Err(Failure::Write(e)) if output.is_none() && e.kind() == io::ErrorKind::BrokenPipe => {
            Err(RepairError::Closed)
        }
        Err(Failure::Write(e)) => Err(RepairError::Message(crate::output::failure_message(
            &out_name, &e,
        ))),
    }
}

enum Failure {
    Read(io::Error),
    Write(io::Error),
    /// The mapped input was truncated while it was read.
    Changed,
}

/// The repair of one input, a piece at a time: the library's [`Repairer`]
/// for the policies whose output is text, its [`Escaper`] for the
/// surrogate escape. Both hold back the end of a piece that could start a
/// character, so pieces may be cut anywhere.
enum Stream {
    Text(Repairer, String),
    Escape(Escaper, Vec<u8>),
}

impl Stream {
    fn new(policy: RepairPolicy) -> Stream {
        match policy {
            RepairPolicy::Text(replacement) => {
                Stream::Text(Repairer::new(replacement), String::new())
            }
            RepairPolicy::Escape => Stream::Escape(Escaper::new(), Vec::new()),
        }
    }

    /// Repairs the next piece of the input (`None`: the input ended) and
    /// writes what is ready.
    fn write(&mut self, piece: Option<&[u8]>, out: &mut impl Write) -> io::Result<()> {
        match self {
            Stream::Text(repairer, text) => {
                text.clear();
                match piece {
                    Some(piece) => repairer.push(piece, text),
                    None => repairer.finish(text),
                }
                out.write_all(text.as_bytes())
            }
            Stream::Escape(escaper, bytes) => {
                bytes.clear();
                match piece {
                    Some(piece) => escaper.push(piece, bytes),
                    None => escaper.finish(bytes),
                }
                out.write_all(bytes)
            }
        }
    }

    /// The units replaced so far, and the offset of the first.
    fn replacements(&self) -> (u64, Option<u64>) {
        match self {
            Stream::Text(repairer, _) => (repairer.replacements(), repairer.first_replacement()),
            Stream::Escape(escaper, _) => (escaper.replacements(), escaper.first_replacement()),
        }
    }

    /// `--stats`: the units replaced (and the first), the bytes read and
    /// the time, on stderr.
    fn print_stats(&self, policy: RepairPolicy, started: Instant) {
        let (replaced, first) = self.replacements();
        let name = match policy {
            RepairPolicy::Text(replacement) => replacement.name(),
            RepairPolicy::Escape => "escape",
        };
        let first = first.map_or(String::new(), |at| format!(", the first at byte {at}"));
        eprintln!(
            "utf8guard: replaced: {} ({name}){first}",
            counted(replaced, "invalid sequence")
        );
        let read = self.bytes_read();
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "utf8guard: bytes: {read} ({}) in {seconds:.3} s ({}/s)",
            human_bytes(read as f64),
            human_bytes(read as f64 / seconds.max(1e-9))
        );
    }

    fn bytes_read(&self) -> u64 {
        match self {
            Stream::Text(repairer, _) => repairer.bytes_pushed(),
            Stream::Escape(escaper, _) => escaper.bytes_pushed(),
        }
    }
}

/// Repairs an input that is all in memory, `piece` bytes at a time; `true`
/// if something was replaced.
fn repair_slice(
    bytes: &[u8],
    piece: usize,
    stream: &mut Stream,
    out: &mut impl Write,
) -> io::Result<bool> {
    for piece in bytes.chunks(piece) {
        stream.write(Some(piece), out)?;
    }
    stream.write(None, out)?;
    Ok(stream.replacements().0 > 0)
}

/// Repairs a stream read in pieces; `true` if something was replaced.
fn repair_stream(
    reader: impl Read,
    stream: &mut Stream,
    out: &mut impl Write,
) -> Result<bool, Failure> {
    repair_stream_with(reader, PIECE, stream, out)
}

fn repair_stream_with(
    mut reader: impl Read,
    piece: usize,
    stream: &mut Stream,
    out: &mut impl Write,
) -> Result<bool, Failure> {
    let mut buf = vec![0u8; piece];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::Read(e)),
        };
        if n == 0 {
            stream.write(None, out).map_err(Failure::Write)?;
            return Ok(stream.replacements().0 > 0);
        }
        stream.write(Some(&buf[..n]), out).map_err(Failure::Write)?;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A reader that hands out at most `step` bytes per read.
    pub(crate) struct Trickle<'a> {
        pub(crate) data: &'a [u8],
        pub(crate) step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    const INPUTS: &[&[u8]] = &[
        b"",
        b"plain",
        "Grüße 🌍 κόσμε".as_bytes(),
        b"\xE2\x82",
        b"a\xE2\x82\xACb\xE2\x82c\xF0\x9F\x98\x80\xF0\x9F\x98",
        b"\x80\x80\x80\xBF\xC3\x28\xED\xA0\x80\xF4\x90\x80\x80\xC0\xAF\xE0\x80\xF5\xFF",
        b"\xF0\x90\x80\xF0\x90\x80\x80\xE1\x80\xE1\x80\x80\xC2",
    ];

    /// Every policy: the pieces' repairs put together are the whole
    /// input's, for every piece size and read size.
    #[test]
    fn pieces_repair_like_the_whole_at_every_size() {
        let policies = utf8guard::Replacement::ALL
            .into_iter()
            .map(RepairPolicy::Text)
            .chain([RepairPolicy::Escape]);
        for policy in policies {
            for input in INPUTS {
                let expected: Vec<u8> = match policy {
                    RepairPolicy::Text(r) => utf8guard::repair(input, r).as_bytes().to_vec(),
                    RepairPolicy::Escape => utf8guard::escape(input).into_owned(),
                };
                let invalid = std::str::from_utf8(input).is_err();
                for piece in 1..=input.len().max(1) + 1 {
                    let mut out = Vec::new();
                    let changed =
                        repair_slice(input, piece, &mut Stream::new(policy), &mut out).unwrap();
                    assert_eq!(out, expected, "{policy:?} {input:02X?} piece {piece}");
                    assert_eq!(changed, invalid);
                }
                for step in 1..=input.len().max(1) + 1 {
                    for piece in [1, 2, 3, 4, 5, 7, 64] {
                        let mut out = Vec::new();
                        let reader = Trickle { data: input, step };
                        let changed =
                            repair_stream_with(reader, piece, &mut Stream::new(policy), &mut out)
                                .unwrap_or_else(|_| panic!("failed"));
                        assert_eq!(out, expected, "{policy:?} {input:02X?} step {step}");
                        assert_eq!(changed, invalid);
                    }
                }
            }
        }
    }
}
