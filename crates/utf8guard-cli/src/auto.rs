//! `check --encoding auto`: the encoding of each input chosen by its first
//! bytes.
//!
//! - Corrected UTF-8's magic number (`EF B7 9D ED B2 AE 00 0A`) selects
//!   `corrected-utf-8`;
//! - a UTF-8 byte order mark (`EF BB BF`) is noted, and the input checked
//!   as UTF-8 (the mark is U+FEFF, valid UTF-8);
//! - a UTF-16 or UTF-32 byte order mark selects that encoding, in that
//!   byte order ([`crate::wide`]), with a note that names it;
//! - anything else is checked as UTF-8.

use std::fs::File;
use std::io::{self, Cursor, Read};
use std::path::Path;

use utf8guard::Dialect;

use crate::check;
use crate::family::MAGIC;
use crate::hex::hex;
use crate::io_error::io_message;
use crate::progress::Progress;
use crate::report::Outcome;
use crate::scan::ScanOptions;
use crate::walk::Input;
use crate::wide::Wide;

/// The UTF-8 byte order mark.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// What the first bytes of an input choose: check as this dialect, with a
/// note for the report, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Choice(Dialect, Option<String>);

/// The choice for an input that starts with `head` (its first 8 bytes, or
/// all of it if shorter).
fn choose(head: &[u8]) -> Choice {
    if head.starts_with(&MAGIC) {
        return Choice(Dialect::Corrected, None);
    }
    if head.starts_with(UTF8_BOM) {
        return Choice(
            Dialect::Utf8,
            Some("starts with a UTF-8 byte order mark (EF BB BF), checked as UTF-8".into()),
        );
    }
    Choice(Dialect::Utf8, None)
}

/// Reads up to 8 bytes from `reader`: fewer only at its end.
fn read_head(reader: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(MAGIC.len());
    reader.take(MAGIC.len() as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// Checks one input with the encoding its first bytes choose.
pub fn check(input: &Input, opts: &ScanOptions, progress: &Progress) -> Outcome {
    let (path, outcome) = match input {
        Input::Stdin => (Path::new("-"), Outcome::stdin()),
        Input::File { path, .. } | Input::Stream { path } => (path.as_path(), Outcome::named(path)),
        Input::Failed { path, reason } => return Outcome::failed(path, reason.clone()),
    };
    let failed = |e: io::Error| Outcome::failed(path, io_message(&e));
    // UTF-16 or UTF-32 by its byte order mark.
    let wide = |(wide, mark): (Wide, &[u8]), outcome: Outcome, reader: &mut dyn Read| {
        let mut outcome = wide.check(reader, outcome, opts, progress);
        outcome.wide = Some(wide);
        outcome.note = Some(format!(
            "starts with a {} byte order mark ({}), checked as {}",
            wide.title(),
            hex(mark),
            wide.title()
        ));
        outcome
    };
    let choose_for = |head: &[u8]| {
        let Choice(dialect, note) = choose(head);
        (ScanOptions { dialect, ..*opts }, note)
    };
    match input {
        Input::File { .. } => {
            // A regular file is read again from its start.
            let head = File::open(path).and_then(|mut f| read_head(&mut f));
            let head = match head {
                Ok(head) => head,
                Err(e) => return failed(e),
            };
            if let Some(found) = Wide::by_mark(&head) {
                return match File::open(path) {
                    Ok(mut file) => wide(found, Outcome::named(path), &mut file),
                    Err(e) => failed(e),
                };
            }
            let (opts, note) = choose_for(&head);
            let mut outcome = check::check_path(path, &opts, progress);
            outcome.note = note;
            outcome
        }
        _ => {
            // A stream: the bytes read to choose go first to the check.
            let file;
            let (mut reader, ready): (Box<dyn Read>, Box<dyn Fn() -> bool>) = match input {
                Input::Stdin => {
                    // A closed descriptor is an error, not an empty input.
                    if let Err(e) = crate::descriptors::check_open(0) {
                        return failed(e);
                    }
                    crate::pipe::widen(io::stdin());
                    let ready = || crate::stream::ready(&io::stdin());
                    (Box::new(io::stdin().lock()), Box::new(ready))
                }
                _ => match File::open(path) {
                    Ok(f) => {
                        crate::pipe::widen(&f);
                        file = f;
                        (Box::new(&file), Box::new(|| crate::stream::ready(&file)))
                    }
                    Err(e) => return failed(e),
                },
            };
            let head = match read_head(&mut reader) {
                Ok(head) => head,
                Err(e) => return failed(e),
            };
            // A short head is the whole input: reading the stream again
            // would wait for a second end of input (a second Ctrl-D on a
            // terminal).
            if head.len() < MAGIC.len() {
                reader = Box::new(io::empty());
            }
            if let Some(found) = Wide::by_mark(&head) {
                let mut reader = Cursor::new(head.clone()).chain(reader);
                return wide(found, outcome, &mut reader);
            }
            let (opts, note) = choose_for(&head);
            let reader = Cursor::new(head).chain(reader);
            let mut outcome = crate::stream::check_reader(reader, outcome, &opts, progress, &ready);
            outcome.note = note;
            outcome
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_bytes_choose() {
        assert_eq!(choose(&MAGIC), Choice(Dialect::Corrected, None));
        assert_eq!(choose(b"plain"), Choice(Dialect::Utf8, None));
        assert_eq!(choose(b""), Choice(Dialect::Utf8, None));
        // A prefix of the magic number is not it.
        assert_eq!(choose(&MAGIC[..7]), Choice(Dialect::Utf8, None));
        assert_eq!(
            choose(b"\xEF\xBB\xBFx"),
            Choice(
                Dialect::Utf8,
                Some("starts with a UTF-8 byte order mark (EF BB BF), checked as UTF-8".into())
            )
        );
        // A UTF-16 or UTF-32 byte order mark is not UTF-8's.
        assert_eq!(
            Wide::by_mark(b"\xFF\xFE\x00\x00").map(|(w, _)| w.title()),
            Some("UTF-32LE")
        );
        assert_eq!(
            Wide::by_mark(b"\xFF\xFEa\x00").map(|(w, _)| w.title()),
            Some("UTF-16LE")
        );
        assert_eq!(Wide::by_mark(b"\xEF\xBB\xBF"), None);
    }
}
