//! `utf8guard repair`: the input with every invalid sequence replaced as
//! `--replacement` says, written as it is produced.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};
use std::path::Path;

use crate::check::MMAP_MIN;
use crate::cli::{RepairArgs, RepairPolicy};
use crate::mapped::Mapping;

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
    let in_name = crate::report::message_name(input);
    let cannot_read = |e: io::Error| format!("{in_name}: {}", crate::io_message(&e));
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
    let out_name = output.map_or("standard output".into(), crate::report::message_name);
    let result = match (file, meta) {
        (Some(file), Some(meta)) if meta.is_file() && meta.len() >= MMAP_MIN => {
            match usize::try_from(meta.len())
                .map_err(io::Error::other)
                .and_then(|len| Mapping::new(&file, 0, len, false))
            {
                Ok(map) => {
                    let result =
                        repair_slice(&map, PIECE, policy, &mut writer).map_err(Failure::Write);
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
                Err(_) => repair_stream(file, policy, &mut writer),
            }
        }
        (Some(file), _) => {
            crate::pipe::widen(&file);
            repair_stream(file, policy, &mut writer)
        }
        (None, _) => {
            crate::pipe::widen(io::stdin());
            repair_stream(io::stdin().lock(), policy, &mut writer)
        }
    };
    // Only a whole result replaces OUT: after any failure the temporary
    // file is removed as `writer` drops.
    let finished = match result {
        Ok(changed) => writer.finish().map(|()| changed).map_err(Failure::Write),
        Err(failure) => Err(failure),
    };
    match finished {
        Ok(changed) => Ok(changed),
        Err(Failure::Read(e)) => Err(RepairError::Message(format!(
            "{in_name}: read error: {}",
            crate::io_message(&e)
        ))),
        Err(Failure::Changed) => Err(RepairError::Message(format!(
            "{in_name}: {}",
            crate::check::CHANGED
        ))),
        Err(Failure::Write(e)) if output.is_none() && e.kind() == io::ErrorKind::BrokenPipe => {
            Err(RepairError::Closed)
        }
        Err(Failure::Write(e)) => Err(RepairError::Message(format!(
            "{out_name}: write error: {}",
            crate::io_message(&e)
        ))),
    }
}

enum Failure {
    Read(io::Error),
    Write(io::Error),
    /// The mapped input was truncated while it was read.
    Changed,
}

/// Where `buf` can be cut, when what follows it is not known yet, so that
/// repairing the two sides apart gives what repairing them together does:
/// before the start of an unfinished character in its last 3 bytes, else
/// at its end.
///
/// A cut just before any byte that is not a continuation byte is always
/// safe, since a maximal subpart never contains one past its first byte.
/// And a cut after the last byte is safe when none of the last 3 bytes
/// could start a sequence running past it.
pub fn split_point(buf: &[u8]) -> usize {
    let n = buf.len();
    for back in 1..=n.min(3) {
        let b = buf[n - back];
        if b & 0xC0 != 0x80 {
            return if b >= 0xC0 { n - back } else { n };
        }
    }
    n
}

/// Writes the repaired `piece`; `true` if it had to change. Every policy
/// works on maximal subparts, so [`split_point`] cuts for each of them.
fn write_repaired(piece: &[u8], policy: RepairPolicy, out: &mut impl Write) -> io::Result<bool> {
    let repaired = match policy {
        RepairPolicy::Text(replacement) => match utf8guard::repair(piece, replacement) {
            Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        },
        RepairPolicy::Escape => utf8guard::escape(piece),
    };
    out.write_all(&repaired)?;
    Ok(matches!(repaired, Cow::Owned(_)))
}

/// Repairs an input that is all in memory, `piece` bytes at a time.
fn repair_slice(
    bytes: &[u8],
    piece: usize,
    policy: RepairPolicy,
    out: &mut impl Write,
) -> io::Result<bool> {
    debug_assert!(piece >= 4);
    let mut changed = false;
    let mut pos = 0;
    while pos < bytes.len() {
        let end = bytes.len().min(pos + piece);
        let cut = if end == bytes.len() {
            end
        } else {
            pos + split_point(&bytes[pos..end])
        };
        changed |= write_repaired(&bytes[pos..cut], policy, out)?;
        pos = cut;
    }
    Ok(changed)
}

/// Repairs a stream read in pieces, carrying an unfinished character (at
/// most 3 bytes) from one piece to the next.
fn repair_stream(
    reader: impl Read,
    policy: RepairPolicy,
    out: &mut impl Write,
) -> Result<bool, Failure> {
    repair_stream_with(reader, PIECE, policy, out)
}

fn repair_stream_with(
    mut reader: impl Read,
    piece: usize,
    policy: RepairPolicy,
    out: &mut impl Write,
) -> Result<bool, Failure> {
    let mut buf = vec![0u8; piece + 3];
    let mut carry = 0;
    let mut changed = false;
    loop {
        let n = match reader.read(&mut buf[carry..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::Read(e)),
        };
        let len = carry + n;
        if n == 0 {
            changed |= write_repaired(&buf[..len], policy, out).map_err(Failure::Write)?;
            return Ok(changed);
        }
        let cut = split_point(&buf[..len]);
        changed |= write_repaired(&buf[..cut], policy, out).map_err(Failure::Write)?;
        buf.copy_within(cut..len, 0);
        carry = len - cut;
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

    #[test]
    fn split_point_keeps_unfinished_characters() {
        assert_eq!(split_point(b""), 0);
        assert_eq!(split_point(b"ab"), 2);
        assert_eq!(split_point(b"a\xE2\x82"), 1);
        assert_eq!(split_point(b"a\xE2\x82\xAC"), 1);
        assert_eq!(split_point(b"\x80\x80\x80"), 3);
        assert_eq!(split_point(b"\xF0\x80\x80\x80"), 4);
        assert_eq!(split_point(b"a\x80\x80"), 3);
    }

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
                for piece in 4..=input.len().max(4) + 1 {
                    let mut out = Vec::new();
                    let changed = repair_slice(input, piece, policy, &mut out).unwrap();
                    assert_eq!(out, expected, "{policy:?} {input:02X?} piece {piece}");
                    assert_eq!(changed, invalid);
                }
                for step in 1..=input.len().max(1) + 1 {
                    for piece in [4, 5, 7, 64] {
                        let mut out = Vec::new();
                        let reader = Trickle { data: input, step };
                        let changed = repair_stream_with(reader, piece, policy, &mut out)
                            .unwrap_or_else(|_| panic!("failed"));
                        assert_eq!(out, expected, "{policy:?} {input:02X?} step {step}");
                        assert_eq!(changed, invalid);
                    }
                }
            }
        }
    }
}
