//! The dialects of the UTF-8 family, validated by the same kernels.

use core::fmt;
use core::str::FromStr;

/// A member of the UTF-8 family: which byte sequences are well formed.
///
/// | Dialect | What is well formed | Met in |
/// | --- | --- | --- |
/// | [`Utf8`](Self::Utf8) | RFC 3629 / Unicode Table 3-7: 1 to 4 bytes, no surrogates, up to U+10FFFF | everything today |
/// | [`Unicode31`](Self::Unicode31) | Corrigendum #1's Table 3.1B: strict UTF-8 plus the 3-byte surrogates, alone or two in a row | Python's `surrogatepass`, old Unicode 3.1 data |
/// | [`Wtf8`](Self::Wtf8) | Unicode 3.1 minus a lead surrogate right before a trail (that pair must be its 4-byte form) | Windows file names, JavaScript strings, WebAssembly |
/// | [`Cesu8`](Self::Cesu8) | UTR #26: strict UTF-8's BMP, supplementary characters only as surrogate pairs, no 4-byte forms | Oracle, MySQL's old `utf8`, SAP, Android |
/// | [`Mutf8`](Self::Mutf8) | JVM spec 4.4.7: CESU-8's forms, `C0 80` for U+0000, no `00` byte, lone surrogates allowed | class files, JNI, `DataOutput.writeUTF` |
/// | [`Rfc2279`](Self::Rfc2279) | RFC 2279: 1 to 6 bytes, shortest form, up to U+7FFFFFFF, surrogates allowed | data from before 2003, ISO 10646 |
/// | [`Corrected`](Self::Corrected) | Corrected UTF-8: 1 to 6 bytes with offsets (no overlong form exists), no `00` but in the magic number, reserved `FE`/`FF` runs well formed | Corrected UTF-8 documents |
///
/// Each dialect is validated by every [`Kernel`](crate::Kernel) with the same algorithm
/// (its own tables and a few checks of its own), and errors are reported as
/// for strict UTF-8: [`Utf8Error::valid_up_to`](crate::Utf8Error::valid_up_to) is the length of the
/// longest well-formed prefix, [`Utf8Error::error_len`](crate::Utf8Error::error_len) the length of the
/// maximal subpart (the longest prefix of a well-formed sequence found
/// there; `None` when the input ends inside one), [`Utf8Error::kind`](crate::Utf8Error::kind) the
/// cause.
///
/// ```
/// use utf8guard::{Dialect, ErrorKind};
///
/// // U+1F600 as a CESU-8 surrogate pair.
/// let cesu = b"smile \xED\xA0\xBD\xED\xB8\x80";
/// assert!(Dialect::Cesu8.validate(cesu));
/// assert!(!Dialect::Utf8.validate(cesu));
///
/// // A lone surrogate: fine in WTF-8, an error in CESU-8.
/// let lone = b"\xED\xA0\xBD!";
/// assert!(Dialect::Wtf8.validate(lone));
/// let err = Dialect::Cesu8.check(lone).unwrap_err();
/// assert_eq!((err.valid_up_to(), err.error_len()), (0, Some(3)));
/// assert_eq!(err.kind(), ErrorKind::LoneSurrogate);
///
/// assert_eq!("java".parse::<Dialect>(), Ok(Dialect::Mutf8));
/// assert_eq!(Dialect::Mutf8.to_string(), "mutf-8");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// Strict UTF-8 (RFC 3629, Unicode Table 3-7): what [`validate`](crate::validate)
    /// and [`from_utf8`](crate::from_utf8) check.
    Utf8,
    /// Unicode 3.1 (Corrigendum #1, Table 3.1B): strict UTF-8 plus the
    /// 3-byte forms of the surrogates, `ED A0..BF 80..BF`, alone or paired
    /// (the "irregular" 6-byte form of a supplementary character).
    Unicode31,
    /// WTF-8: Unicode 3.1's sequences, except a lead surrogate immediately
    /// followed by a trail surrogate (that pair must be the 4-byte form).
    Wtf8,
    /// CESU-8 (Unicode Technical Report #26): supplementary characters only
    /// as surrogate pairs (6 bytes), never as 4-byte forms; no lone
    /// surrogates; no `C0 80`.
    Cesu8,
    /// Java's modified UTF-8: like CESU-8, but `00` never appears, `C0 80`
    /// encodes U+0000, and lone surrogates are well formed.
    Mutf8,
    /// RFC 2279: the original 1-to-6-byte UTF-8 up to U+7FFFFFFF, in
    /// shortest form, surrogates included; `C0`, `C1`, `FE`, `FF` never
    /// appear.
    Rfc2279,
    /// Corrected UTF-8: every sequence of 1 to 6 bytes of the right shape is
    /// the unique encoding of one code point (up to U+8421109F); `00` only
    /// in the magic number `EF B7 9D ED B2 AE 00 0A` at offset 0; a run of
    /// an `FE` or `FF` and the continuation bytes after it is reserved for
    /// future use, and well formed ([`Dialect::inspect`] says where the
    /// first one is).
    Corrected,
}

impl Dialect {
    /// Every dialect, strict UTF-8 first.
    pub const ALL: &'static [Dialect] = &[
        Dialect::Utf8,
        Dialect::Unicode31,
        Dialect::Wtf8,
        Dialect::Cesu8,
        Dialect::Mutf8,
        Dialect::Rfc2279,
        Dialect::Corrected,
    ];

    /// The dialect's name: `"utf-8"`, `"unicode-3.1"`, `"wtf-8"`,
    /// `"cesu-8"`, `"mutf-8"`, `"rfc2279"` or `"corrected-utf-8"`.
    pub const fn name(self) -> &'static str {
        match self {
            Dialect::Utf8 => "utf-8",
            Dialect::Unicode31 => "unicode-3.1",
            Dialect::Wtf8 => "wtf-8",
            Dialect::Cesu8 => "cesu-8",
            Dialect::Mutf8 => "mutf-8",
            Dialect::Rfc2279 => "rfc2279",
            Dialect::Corrected => "corrected-utf-8",
        }
    }

    /// What the dialect is, in one line (for help texts).
    pub const fn summary(self) -> &'static str {
        match self {
            Dialect::Utf8 => "strict UTF-8 (RFC 3629): 1-4 bytes, no surrogates, up to U+10FFFF",
            Dialect::Unicode31 => {
                "Unicode 3.1 (Corrigendum #1): UTF-8 plus 3-byte surrogates, alone or paired"
            }
            Dialect::Wtf8 => "WTF-8: lone surrogates allowed, a surrogate pair must be 4 bytes",
            Dialect::Cesu8 => {
                "CESU-8 (UTR #26): supplementary characters as 6-byte surrogate pairs only"
            }
            Dialect::Mutf8 => {
                "Java's modified UTF-8: CESU-8 forms, C0 80 for U+0000, no 00, lone surrogates"
            }
            Dialect::Rfc2279 => "RFC 2279: 1-6 bytes up to U+7FFFFFFF, shortest form, surrogates",
            Dialect::Corrected => {
                "Corrected UTF-8: 1-6 bytes with offsets, no 00, reserved FE/FF runs, magic number"
            }
        }
    }

    /// The dialect with that name or a common alias, in any case: the
    /// names of [`name`](Self::name), and for example `utf8`, `strict`,
    /// `unicode31`, `wtf8`, `cesu8`, `cesu`, `mutf8`, `java`,
    /// `modified-utf-8`, `rfc-2279`, `corrected`. `_` may stand for `-`.
    ///
    /// ```
    /// use utf8guard::Dialect;
    ///
    /// assert_eq!(Dialect::from_name("CESU8"), Some(Dialect::Cesu8));
    /// assert_eq!(Dialect::from_name("modified_utf_8"), Some(Dialect::Mutf8));
    /// assert_eq!(Dialect::from_name("utf-16"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Dialect> {
        const ALIASES: &[(&str, Dialect)] = &[
            ("utf8", Dialect::Utf8),
            ("strict", Dialect::Utf8),
            ("rfc3629", Dialect::Utf8),
            ("rfc-3629", Dialect::Utf8),
            ("unicode31", Dialect::Unicode31),
            ("unicode-31", Dialect::Unicode31),
            ("utf-8-3.1", Dialect::Unicode31),
            ("surrogatepass", Dialect::Unicode31),
            ("wtf8", Dialect::Wtf8),
            ("cesu8", Dialect::Cesu8),
            ("cesu", Dialect::Cesu8),
            ("mutf8", Dialect::Mutf8),
            ("java", Dialect::Mutf8),
            ("modified-utf-8", Dialect::Mutf8),
            ("modified-utf8", Dialect::Mutf8),
            ("rfc-2279", Dialect::Rfc2279),
            ("corrected", Dialect::Corrected),
            ("corrected-utf8", Dialect::Corrected),
        ];
        let mut buf = [0u8; 32];
        let name = name.as_bytes();
        if name.len() > buf.len() {
            return None;
        }
        for (slot, &b) in buf.iter_mut().zip(name) {
            *slot = if b == b'_' {
                b'-'
            } else {
                b.to_ascii_lowercase()
            };
        }
        let wanted = &buf[..name.len()];
        Dialect::ALL
            .iter()
            .map(|&d| (d.name(), d))
            .chain(ALIASES.iter().copied())
            .find(|(n, _)| n.as_bytes() == wanted)
            .map(|(_, d)| d)
    }

    /// The dialect's reference automaton.
    pub(crate) fn automaton(self) -> &'static utf8guard_dfa::Automaton {
        match self {
            Dialect::Utf8 => &utf8guard_dfa::UTF8,
            Dialect::Unicode31 => &utf8guard_dfa::UNICODE_3_1,
            Dialect::Wtf8 => &utf8guard_dfa::WTF8,
            Dialect::Cesu8 => &utf8guard_dfa::CESU8,
            Dialect::Mutf8 => &utf8guard_dfa::MUTF8,
            Dialect::Rfc2279 => &utf8guard_dfa::RFC2279,
            Dialect::Corrected => &utf8guard_dfa::CORRECTED,
        }
    }

    /// The longest well-formed sequence, in bytes (6 for CESU-8's surrogate
    /// pairs, RFC 2279 and Corrected UTF-8; a reserved run of Corrected
    /// UTF-8, which has no bound, is not a sequence here).
    pub fn max_sequence_len(self) -> usize {
        let grammar = self.automaton().grammar();
        grammar
            .rows
            .iter()
            .enumerate()
            .filter(|&(r, _)| Some(r) != grammar.run_row)
            .map(|(_, row)| row.len())
            .max()
            .unwrap_or(1)
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a [`Dialect`] from a name it does not know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UnknownDialect;

impl fmt::Display for UnknownDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown dialect; known: ")?;
        for (i, d) in Dialect::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(d.name())?;
        }
        Ok(())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for UnknownDialect {}

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Dialect::from_name(s).ok_or(UnknownDialect)
    }
}

/// What [`Dialect::inspect`] learned of a well-formed input besides its
/// well-formedness.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Inspection {
    pub(crate) magic_number: bool,
    pub(crate) first_reserved_run: Option<usize>,
}

impl Inspection {
    /// The input starts with Corrected UTF-8's magic number
    /// (`EF B7 9D ED B2 AE 00 0A`).
    pub fn magic_number(&self) -> bool {
        self.magic_number
    }

    /// The offset of the first reserved `FE`/`FF` run of a Corrected UTF-8
    /// input, if it has one.
    pub fn first_reserved_run(&self) -> Option<usize> {
        self.first_reserved_run
    }
}
