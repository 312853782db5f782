//! What a subject says about an input ([`Answer`]), the right answer it is
//! held against ([`Truth`], and for the repairs
//! [`crate::repair_reference`]), and what a subject is handed to answer
//! with ([`Context`]).

use std::fmt;

use utf8guard::{ErrorKind, Replacement, Utf8Error};

use crate::convert::{reference, Conversion, Converted};
use crate::rng::Rng;

/// Where and why an input stops being UTF-8, as a subject reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    /// Length of the longest well-formed prefix.
    pub valid_up_to: usize,
    /// Length of the invalid maximal subpart, `None` at the end of input.
    pub error_len: Option<usize>,
    /// The cause, when the subject reports one.
    pub kind: Option<ErrorKind>,
}

impl Found {
    /// The error a `utf8guard::Utf8Error` describes.
    pub fn from_error(e: &Utf8Error) -> Found {
        Found {
            valid_up_to: e.valid_up_to(),
            error_len: e.error_len(),
            kind: Some(e.kind()),
        }
    }

    /// `true` when `self` (a subject's) agrees with `truth` (the oracle's):
    /// same position and length, and the same kind if the subject has one.
    fn agrees_with(&self, truth: &Found) -> bool {
        self.valid_up_to == truth.valid_up_to
            && self.error_len == truth.error_len
            && (self.kind.is_none() || self.kind == truth.kind)
    }
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid: valid_up_to {}, error_len ", self.valid_up_to)?;
        match self.error_len {
            Some(n) => write!(f, "Some({n})")?,
            None => f.write_str("None")?,
        }
        if let Some(kind) = self.kind {
            write!(f, " ({kind:?})")?;
        }
        Ok(())
    }
}

/// What a check learns of a well-formed input besides its
/// well-formedness: Corrected UTF-8's magic number and first reserved run
/// (`false` and `None` in the other dialects).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Inspected {
    /// The input starts with the magic number.
    pub magic_number: bool,
    /// The offset of the first reserved `FE`/`FF` run.
    pub first_reserved_run: Option<usize>,
}

impl From<utf8guard::Inspection> for Inspected {
    fn from(i: utf8guard::Inspection) -> Inspected {
        Inspected {
            magic_number: i.magic_number(),
            first_reserved_run: i.first_reserved_run(),
        }
    }
}

impl fmt::Display for Inspected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.magic_number {
            f.write_str(", magic number")?;
        }
        if let Some(at) = self.first_reserved_run {
            write!(f, ", first reserved run at {at}")?;
        }
        Ok(())
    }
}

/// The right answer for one input in one dialect, from its oracle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Truth {
    /// `Ok`, or the first error.
    pub result: Result<(), Found>,
    /// What a well-formed input shows besides (for an ill-formed one, what
    /// the part before the error shows).
    pub inspected: Inspected,
}

impl Truth {
    /// The truth for an input with nothing to inspect (strict UTF-8).
    pub fn plain(result: Result<(), Found>) -> Truth {
        Truth {
            result,
            inspected: Inspected::default(),
        }
    }
}

impl fmt::Display for Truth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.result {
            Ok(()) => write!(f, "valid{}", self.inspected),
            Err(found) => write!(
                f,
                "valid_up_to {}, error_len {:?}, {:?}",
                found.valid_up_to,
                found.error_len,
                found.kind.unwrap_or(ErrorKind::Incomplete)
            ),
        }
    }
}

/// What a subject says about one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Only "valid or not" (the `validate` APIs).
    Verdict(bool),
    /// `Ok`, or the exact error (the `from_utf8` APIs).
    Exact(Result<(), Found>),
    /// `Ok` with what was learned on the way, or the exact error
    /// (`Dialect::inspect`, the dialects' `StreamValidator`).
    Inspected(Result<Inspected, Found>),
    /// A lossy conversion's output, compared with
    /// `String::from_utf8_lossy`.
    Lossy(String),
    /// A repair's output under a policy (`None`: the surrogate escape),
    /// compared with [`crate::repair_reference`]'s.
    Repaired(Option<Replacement>, Vec<u8>),
    /// A conversion's output and where it stopped, compared with
    /// [`crate::convert::reference`]'s.
    Converted(Conversion, Box<Converted>),
    /// The subject broke its own contract in a way that has no right
    /// answer to compare (e.g. `Ok` with a string that is not the input).
    Broken(String),
}

impl Answer {
    /// The answer of a `from_utf8`-like function: `Ok` must hand back the
    /// input itself.
    pub fn from_result(input: &[u8], result: Result<&str, Utf8Error>) -> Answer {
        match result {
            Ok(s) if s.as_ptr() == input.as_ptr() && s.len() == input.len() => {
                Answer::Exact(Ok(()))
            }
            Ok(s) => Answer::Broken(format!(
                "Ok with a string of {} bytes at another address than the input",
                s.len()
            )),
            Err(e) => Answer::Exact(Err(Found::from_error(&e))),
        }
    }

    /// `true` when this answer is the right one for `input`, whose truth
    /// is `truth`.
    pub fn agrees(&self, input: &[u8], truth: &Truth) -> bool {
        match (self, &truth.result) {
            (Answer::Verdict(valid), result) => *valid == result.is_ok(),
            (Answer::Exact(Ok(())), Ok(())) => true,
            (Answer::Exact(Err(got)), Err(want)) => got.agrees_with(want),
            (Answer::Exact(_), _) => false,
            (Answer::Inspected(Ok(got)), Ok(())) => *got == truth.inspected,
            (Answer::Inspected(Err(got)), Err(want)) => got.agrees_with(want),
            (Answer::Inspected(_), _) => false,
            (Answer::Lossy(s), _) => *s == String::from_utf8_lossy(input),
            (Answer::Repaired(policy, out), _) => *out == repaired_reference(input, *policy),
            (Answer::Converted(conversion, got), _) => **got == reference(*conversion, input),
            (Answer::Broken(_), _) => false,
        }
    }

    /// The right answer of the same form, for reports.
    pub fn expected(&self, input: &[u8], truth: &Truth) -> Answer {
        match self {
            Answer::Verdict(_) => Answer::Verdict(truth.result.is_ok()),
            Answer::Lossy(_) => Answer::Lossy(String::from_utf8_lossy(input).into_owned()),
            Answer::Repaired(policy, _) => {
                Answer::Repaired(*policy, repaired_reference(input, *policy))
            }
            Answer::Converted(conversion, _) => {
                Answer::Converted(*conversion, Box::new(reference(*conversion, input)))
            }
            Answer::Inspected(_) => Answer::Inspected(truth.result.map(|()| truth.inspected)),
            Answer::Exact(_) | Answer::Broken(_) => Answer::Exact(truth.result),
        }
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Verdict(true) | Answer::Exact(Ok(())) => f.write_str("valid"),
            Answer::Verdict(false) => f.write_str("invalid"),
            Answer::Exact(Err(found)) | Answer::Inspected(Err(found)) => write!(f, "{found}"),
            Answer::Inspected(Ok(inspected)) => write!(f, "valid{inspected}"),
            Answer::Lossy(s) => write!(f, "lossy {s:?}"),
            Answer::Repaired(policy, out) => {
                let name = policy.map_or("escape", Replacement::name);
                write!(f, "repaired ({name}) {:?}", String::from_utf8_lossy(out))
            }
            Answer::Converted(conversion, got) => write!(f, "{conversion}: {got}"),
            Answer::Broken(why) => write!(f, "broken: {why}"),
        }
    }
}

/// Reusable state handed to subjects: a random stream (for subjects that
/// choose chunkings or split points), a scratch buffer, and a note in which
/// a subject may say what it chose.
#[derive(Debug)]
pub struct Context {
    /// Random numbers, seeded per check so that a check can be repeated.
    pub rng: Rng,
    /// A buffer for subjects that need a mutable copy of the input.
    pub scratch: Vec<u8>,
    /// The subject's random choices for this answer (a chunk length, read
    /// sizes), in words: emptied before each answer, shown with a
    /// mismatch.
    pub note: String,
}

/// The reference output of a repair under `policy` (`None`: the escape).
fn repaired_reference(input: &[u8], policy: Option<Replacement>) -> Vec<u8> {
    match policy {
        Some(policy) => crate::repair_reference::repaired(input, policy).into_bytes(),
        None => crate::repair_reference::escaped(input),
    }
}

/// Hex bytes separated by spaces.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&format!("{b:02X}"));
    }
    s
}
