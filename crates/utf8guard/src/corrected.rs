//! Corrected UTF-8 documents: the rules of the specification beyond the
//! byte grammar, as a lint.
//!
//! The Corrected UTF-8 specification asks more of a *document* (a file)
//! than of a string: a magic number at its start, no U+0000 but in it, and
//! the Unix definition of a text file. [`lint`] checks each of these rules
//! and reports every place that breaks one, as a [`Finding`] with its byte
//! offset, line, column and [`Rule`]; each rule has the [`Level`] the
//! specification gives it:
//!
//! | Rule | Level | The specification |
//! |---|---|---|
//! | [`IllFormed`](Rule::IllFormed) | MUST | not well-formed Corrected UTF-8 (what [`Dialect::check`] rejects, but for `00`) |
//! | [`Nul`](Rule::Nul) | MUST NOT | U+0000 "MUST NOT appear in a Corrected UTF-8 document except as part of the magic number" |
//! | [`MagicNumber`](Rule::MagicNumber) | SHOULD | the magic number "SHOULD be present at the beginning of any file" |
//! | [`CarriageReturn`](Rule::CarriageReturn) | SHOULD NOT | U+000D "SHOULD NOT appear" |
//! | [`LineSeparator`](Rule::LineSeparator) | SHOULD NOT | U+2028 "SHOULD NOT appear" |
//! | [`ParagraphSeparator`](Rule::ParagraphSeparator) | SHOULD NOT | U+2029 "also SHOULD NOT appear" |
//! | [`Control`](Rule::Control) | SHOULD NOT | "the other C0 controls [...] also SHOULD NOT appear" |
//! | [`FinalNewline`](Rule::FinalNewline) | SHOULD | documents "SHOULD conform to the Unix definition of a text file": "the last character in the file should be U+000A" |
//!
//! The choices the specification leaves open, and what is chosen here:
//!
//! - **Which controls.** The C0 controls are U+0000..U+001F. The only one
//!   the specification keeps is U+000A ("the only one that should appear in
//!   a normal text file"), so U+0009 (tab) is reported too, as
//!   [`Control`](Rule::Control). U+007F (delete) is not a C0 control and is
//!   not reported; the C1 controls cannot be encoded at all.
//! - **Ill-formed input** is not a reason to stop: each ill-formed sequence
//!   (its maximal subpart, as [`Dialect::decode`] finds it) is a finding of
//!   its own, at level MUST, and the document rules go on after it, so one
//!   pass shows everything. A `00` byte is both ill formed (outside the
//!   magic number, Corrected UTF-8 has no `00`) and the U+0000 rule: it is
//!   reported once, as [`Nul`](Rule::Nul).
//! - **The magic number elsewhere** than at offset 0 is not skipped: its
//!   `00` is a [`Nul`](Rule::Nul) finding there.
//! - **The final newline.** The finding is placed at the end of the input
//!   (offset = its length), where the U+000A is missing. A document with no
//!   text (empty, or the magic number alone) has no last character and so
//!   no such finding, as an empty file is a Unix text file. The last item
//!   being an ill-formed sequence or a reserved `FE`/`FF` run counts as a
//!   last character that is not U+000A.
//! - **The magic number missing** is reported at offset 0, also for an
//!   empty input (the rule is about files, and an empty file has none).
//!   Strings whose encoding is known otherwise need none: callers that lint
//!   such strings skip that finding.
//! - **Reserved runs** (`FE`/`FF` and the continuation bytes after them)
//!   are well formed and break no rule.
//!
//! Positions: byte offsets count from 0 in the whole input, magic number
//! included. Lines and columns count from 1; a line ends at each `0A` byte,
//! the magic number's own included (so the text after the magic number
//! starts on line 2, as an editor shows the file); a column counts the
//! characters before it on its line, an ill-formed sequence or a reserved
//! run as one.

use core::fmt;
use core::iter::FusedIterator;

use crate::decode::{Decode, Decoded, MAGIC};
use crate::dialect::Dialect;
use crate::error::ErrorKind;

/// How strongly the specification states a rule (RFC 2119's key words).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// MUST or MUST NOT: a document that breaks it is not Corrected UTF-8.
    Must,
    /// SHOULD or SHOULD NOT: a recommendation.
    Should,
}

impl Level {
    /// `"MUST"` or `"SHOULD"`.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A rule of the Corrected UTF-8 specification that a document breaks (see
/// the [module documentation](self) for the table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// The bytes are not well-formed Corrected UTF-8; the kind is
    /// [`Dialect::check`]'s (never [`ErrorKind::Nul`]: that is
    /// [`Rule::Nul`]).
    IllFormed(ErrorKind),
    /// U+0000 (a `00` byte) outside the magic number at offset 0.
    Nul,
    /// The document does not start with the magic number
    /// `EF B7 9D ED B2 AE 00 0A`.
    MagicNumber,
    /// U+000D CARRIAGE RETURN.
    CarriageReturn,
    /// U+2028 LINE SEPARATOR.
    LineSeparator,
    /// U+2029 PARAGRAPH SEPARATOR.
    ParagraphSeparator,
    /// A C0 control other than U+0000, U+000A and U+000D (which have rules
    /// of their own): U+0001..U+0009, U+000B, U+000C, U+000E..U+001F. The
    /// value is the control's code point.
    Control(u8),
    /// The last character is not U+000A.
    FinalNewline,
}

impl Rule {
    /// The level the specification gives the rule.
    pub const fn level(self) -> Level {
        match self {
            Rule::IllFormed(_) | Rule::Nul => Level::Must,
            _ => Level::Should,
        }
    }

    /// A short name for the rule, for programs: `"ill-formed"`, `"nul"`,
    /// `"magic-number"`, `"carriage-return"`, `"line-separator"`,
    /// `"paragraph-separator"`, `"control"` or `"final-newline"`.
    pub const fn name(self) -> &'static str {
        match self {
            Rule::IllFormed(_) => "ill-formed",
            Rule::Nul => "nul",
            Rule::MagicNumber => "magic-number",
            Rule::CarriageReturn => "carriage-return",
            Rule::LineSeparator => "line-separator",
            Rule::ParagraphSeparator => "paragraph-separator",
            Rule::Control(_) => "control",
            Rule::FinalNewline => "final-newline",
        }
    }
}

impl fmt::Display for Rule {
    /// What is wrong, in words.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Rule::IllFormed(kind) => write!(f, "not well-formed Corrected UTF-8: {kind}"),
            Rule::Nul => f.write_str("U+0000, which must not appear outside the magic number"),
            Rule::MagicNumber => {
                f.write_str("the file does not start with the magic number EF B7 9D ED B2 AE 00 0A")
            }
            Rule::CarriageReturn => f.write_str("U+000D CARRIAGE RETURN, which should not appear"),
            Rule::LineSeparator => f.write_str("U+2028 LINE SEPARATOR, which should not appear"),
            Rule::ParagraphSeparator => {
                f.write_str("U+2029 PARAGRAPH SEPARATOR, which should not appear")
            }
            Rule::Control(c) => write!(f, "C0 control U+{c:04X}, which should not appear"),
            Rule::FinalNewline => f.write_str("the last character is not U+000A"),
        }
    }
}

/// One place where a document breaks a [`Rule`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Finding {
    /// Byte offset of the character, sequence or point in question, from
    /// the start of the input.
    pub offset: usize,
    /// Bytes it covers: the character's sequence, the maximal subpart of an
    /// ill-formed sequence (the rest of the input when it ends inside one);
    /// 0 for [`Rule::MagicNumber`] and [`Rule::FinalNewline`], which are
    /// about something missing.
    pub len: usize,
    /// Line number, from 1: one more than the `0A` bytes before `offset`.
    pub line: usize,
    /// Column, from 1: one more than the characters between the start of
    /// the line and `offset`.
    pub column: usize,
    /// The rule broken.
    pub rule: Rule,
}

impl Finding {
    /// The level of the rule broken.
    pub const fn level(&self) -> Level {
        self.rule.level()
    }
}

/// Checks `bytes` as a Corrected UTF-8 document: an iterator of the
/// [`Finding`]s, in order of offset (the missing magic number first, the
/// missing final newline last). An input that yields none follows every
/// rule, MUST and SHOULD.
///
/// ```
/// use utf8guard::corrected::{lint, Level, Rule};
///
/// // The magic number, "a", CR LF, tab, "b": no final newline.
/// let doc = b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0Aa\r\n\tb";
/// let found: Vec<_> = lint(doc).map(|f| (f.offset, f.line, f.column, f.rule)).collect();
/// assert_eq!(
///     found,
///     [
///         (9, 2, 2, Rule::CarriageReturn),
///         (11, 3, 1, Rule::Control(0x09)),
///         (13, 3, 3, Rule::FinalNewline),
///     ]
/// );
///
/// // No magic number, and a 00 byte: a MUST rule broken.
/// let found: Vec<_> = lint(b"a\x00\n").collect();
/// assert_eq!(found[0].rule, Rule::MagicNumber);
/// assert_eq!((found[1].offset, found[1].rule, found[1].level()), (1, Rule::Nul, Level::Must));
/// assert_eq!(found.len(), 2);
/// ```
pub fn lint(bytes: &[u8]) -> Lint<'_> {
    Lint::new(bytes)
}

/// The iterator of [`lint`].
#[derive(Clone, Debug)]
pub struct Lint<'a> {
    bytes: &'a [u8],
    items: Decode<'a>,
    /// The magic-number finding is still to be given.
    magic_missing: bool,
    /// Line and column of the next item.
    line: usize,
    column: usize,
    /// The last item was U+000A (`None`: there was no item yet).
    last_was_newline: Option<bool>,
    done: bool,
}

impl<'a> Lint<'a> {
    fn new(bytes: &'a [u8]) -> Lint<'a> {
        let items = Dialect::Corrected.decode(bytes);
        let magic = items.magic_number();
        Lint {
            bytes,
            items,
            magic_missing: !magic,
            // The magic number ends with 0A: the text starts on line 2.
            line: if magic { 2 } else { 1 },
            column: 1,
            last_was_newline: None,
            done: false,
        }
    }

    /// The rule that a decoded item breaks, if any.
    fn rule_of(item: &Decoded) -> Option<Rule> {
        match *item {
            Decoded::Char { code_point, .. } => match code_point {
                0x0D => Some(Rule::CarriageReturn),
                0x2028 => Some(Rule::LineSeparator),
                0x2029 => Some(Rule::ParagraphSeparator),
                // U+0000 cannot be a Char: `00` is an error of its own.
                0x01..=0x1F if code_point != 0x0A => Some(Rule::Control(code_point as u8)),
                _ => None,
            },
            Decoded::Reserved { .. } => None,
            Decoded::Invalid { error, .. } => Some(match error.kind() {
                ErrorKind::Nul => Rule::Nul,
                kind => Rule::IllFormed(kind),
            }),
        }
    }
}

impl Iterator for Lint<'_> {
    type Item = Finding;

    fn next(&mut self) -> Option<Finding> {
        if self.magic_missing {
            self.magic_missing = false;
            return Some(Finding {
                offset: 0,
                len: 0,
                line: 1,
                column: 1,
                rule: Rule::MagicNumber,
            });
        }
        if self.done {
            return None;
        }
        for item in self.items.by_ref() {
            let (line, column) = (self.line, self.column);
            let newline = item.code_point() == Some(0x0A);
            self.last_was_newline = Some(newline);
            if newline {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
            if let Some(rule) = Self::rule_of(&item) {
                return Some(Finding {
                    offset: item.offset(),
                    len: item.len(),
                    line,
                    column,
                    rule,
                });
            }
        }
        self.done = true;
        (self.last_was_newline == Some(false)).then_some(Finding {
            offset: self.bytes.len(),
            len: 0,
            line: self.line,
            column: self.column,
            rule: Rule::FinalNewline,
        })
    }
}

impl FusedIterator for Lint<'_> {}

/// `true` when `bytes` starts with Corrected UTF-8's magic number,
/// `EF B7 9D ED B2 AE 00 0A`.
///
/// ```
/// assert!(utf8guard::corrected::has_magic_number(b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0Atext\n"));
/// assert!(!utf8guard::corrected::has_magic_number(b"text\n"));
/// ```
pub fn has_magic_number(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// The magic number, `EF B7 9D ED B2 AE 00 0A`.
pub const MAGIC_NUMBER: [u8; 8] = utf8guard_dfa::grammar::CORRECTED_MAGIC;

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    const M: &[u8] = &MAGIC_NUMBER;

    fn doc(text: &[u8]) -> Vec<u8> {
        [M, text].concat()
    }

    fn found(bytes: &[u8]) -> Vec<(usize, usize, usize, usize, Rule)> {
        lint(bytes)
            .map(|f| (f.offset, f.len, f.line, f.column, f.rule))
            .collect()
    }

    #[test]
    fn a_conforming_document_has_no_findings() {
        assert_eq!(found(&doc(b"")), []);
        assert_eq!(found(&doc(b"one\ntwo\n")), []);
        // C0 AF is U+00CF; a reserved run; U+007F is not a C0 control.
        assert_eq!(found(&doc(b"\xC0\xAF \xFE\x80\x80 \x7F\n")), []);
    }

    #[test]
    fn the_magic_number_should_start_the_file() {
        assert_eq!(found(b""), [(0, 0, 1, 1, Rule::MagicNumber)]);
        assert_eq!(found(b"ok\n"), [(0, 0, 1, 1, Rule::MagicNumber)]);
        // Later in the file, its 00 is U+0000 where it must not be.
        let late = [b"x\n", M].concat();
        assert_eq!(
            found(&late),
            [(0, 0, 1, 1, Rule::MagicNumber), (8, 1, 2, 3, Rule::Nul)]
        );
    }

    #[test]
    fn each_control_rule_with_its_position() {
        let text = doc(b"a\rb\tc\x0B\x1F\x01\n\xE2\x80\xA8\xE2\x80\xA9\n");
        // U+2028 is E2 80 A8 in UTF-8, but Corrected UTF-8 has other
        // forms: encode them.
        let ls = Dialect::Corrected.encode(0x2028).unwrap();
        let ps = Dialect::Corrected.encode(0x2029).unwrap();
        let mut bytes = doc(b"a\rb\tc\x0B\x1F\x01\n");
        bytes.extend_from_slice(&ls);
        bytes.extend_from_slice(&ps);
        bytes.push(b'\n');
        assert_eq!(ls.as_bytes(), b"\xE1\x9E\x88");
        assert_eq!(ps.as_bytes(), b"\xE1\x9E\x89");
        assert_eq!(
            found(&bytes),
            [
                (9, 1, 2, 2, Rule::CarriageReturn),
                (11, 1, 2, 4, Rule::Control(0x09)),
                (13, 1, 2, 6, Rule::Control(0x0B)),
                (14, 1, 2, 7, Rule::Control(0x1F)),
                (15, 1, 2, 8, Rule::Control(0x01)),
                (17, 3, 3, 1, Rule::LineSeparator),
                (20, 3, 3, 2, Rule::ParagraphSeparator),
            ]
        );
        // The UTF-8 forms of U+2028/2029 decode to other code points in
        // Corrected UTF-8 and break no rule.
        assert_eq!(found(&text)[..5], found(&bytes)[..5]);
        assert_eq!(found(&text).len(), 5);
    }

    #[test]
    fn the_last_character_should_be_a_newline() {
        assert_eq!(found(&doc(b"a")), [(9, 0, 2, 2, Rule::FinalNewline)]);
        assert_eq!(found(&doc(b"a\nb")), [(11, 0, 3, 2, Rule::FinalNewline)]);
        // A reserved run last is a last character that is not U+000A.
        assert_eq!(
            found(&doc(b"\n\xFF\x80")),
            [(11, 0, 3, 2, Rule::FinalNewline)]
        );
        // The magic number alone has no text, so no last character.
        assert_eq!(found(M), []);
    }

    #[test]
    fn ill_formed_sequences_are_findings_and_the_lint_goes_on() {
        // 80: a stray continuation byte; then CR; then C0 cut short.
        let bytes = doc(b"\x80\r\xC0");
        assert_eq!(
            found(&bytes),
            [
                (
                    8,
                    1,
                    2,
                    1,
                    Rule::IllFormed(ErrorKind::UnexpectedContinuation)
                ),
                (9, 1, 2, 2, Rule::CarriageReturn),
                (10, 1, 2, 3, Rule::IllFormed(ErrorKind::Incomplete)),
                (11, 0, 2, 4, Rule::FinalNewline),
            ]
        );
        assert!(found(&bytes)
            .iter()
            .all(|f| (f.4.level() == Level::Must) == matches!(f.4, Rule::IllFormed(_))));
        // A 00 is one finding, Nul, not also an ill-formed one.
        assert_eq!(found(&doc(b"\x00\n")), [(8, 1, 2, 1, Rule::Nul)]);
    }

    #[test]
    fn a_prefix_of_the_magic_number_is_not_the_magic_number() {
        // EF B7 9D is U+10E7D; ED B2 is cut short, as `check` says too.
        assert_eq!(
            found(&M[..5]),
            [
                (0, 0, 1, 1, Rule::MagicNumber),
                (3, 2, 1, 2, Rule::IllFormed(ErrorKind::Incomplete)),
                (5, 0, 1, 3, Rule::FinalNewline),
            ]
        );
        let err = Dialect::Corrected.check(&M[..5]).unwrap_err();
        assert_eq!((err.valid_up_to(), err.error_len()), (3, None));
    }

    #[test]
    fn names_levels_and_words() {
        assert_eq!(Rule::Control(9).name(), "control");
        assert_eq!(Rule::Nul.level().name(), "MUST");
        assert_eq!(Rule::FinalNewline.level(), Level::Should);
        assert_eq!(
            alloc::format!("{}", Rule::Control(9)),
            "C0 control U+0009, which should not appear"
        );
        assert!(has_magic_number(M));
        assert!(!has_magic_number(&M[..7]));
    }
}
