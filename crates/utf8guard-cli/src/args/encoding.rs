//! `--encoding`: the names of the UTF-8 family that `check` and `repair`
//! take, `check`'s `auto`, and the help that lists them.

use utf8guard::Dialect;

/// What `check --encoding` was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// A member of the UTF-8 family.
    Named(Dialect),
    /// Chosen per input by its first bytes.
    Auto,
}

impl Encoding {
    /// The dialect named, if one was.
    pub fn named(self) -> Option<Dialect> {
        match self {
            Encoding::Named(d) => Some(d),
            Encoding::Auto => None,
        }
    }
}

/// Parses `check --encoding`: `auto`, or a name of the family.
pub fn parse(name: &str) -> Result<Encoding, String> {
    if name.eq_ignore_ascii_case("auto") {
        return Ok(Encoding::Auto);
    }
    parse_encoding(name)
        .map(Encoding::Named)
        .map_err(|e| format!("{e}, auto"))
}

/// Parses `--encoding`: a name of [`Dialect::ALL`] or an alias, in any case.
pub fn parse_encoding(name: &str) -> Result<Dialect, String> {
    Dialect::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
        format!("unknown encoding; known: {}", names.join(", "))
    })
}

/// The long help of `--encoding`: each dialect's name and summary.
pub fn encoding_help() -> String {
    let mut help = "\
Check another member of the UTF-8 family instead of strict UTF-8:
"
    .to_owned();
    for d in Dialect::ALL {
        help.push_str(&format!("  {:<16} {}\n", d.name(), d.summary()));
    }
    help.push_str(&format!(
        "  {:<16} {}\n",
        "auto",
        "chosen per input: corrected-utf-8 when it starts with the magic
                   number; UTF-16 or UTF-32 (LE or BE) when it starts with
                   that byte order mark, checked as that encoding (errors:
                   lone surrogates in UTF-16, surrogates and values above
                   10FFFF in UTF-32, an input that ends inside a code unit;
                   in JSON, `encoding` is utf-16le, ...); else utf-8. A note
                   names the byte order mark and the encoding (in JSON,
                   `note`)"
    ));
    help.push_str(
        "\
Names are taken in any case, with aliases such as utf8, cesu8, java,
modified-utf-8, wtf8, corrected. Reports name the encoding (\"invalid CESU-8
at byte ...\"), and explain the errors it has of its own (a 00 byte, a lone
surrogate, a surrogate pair where WTF-8 needs the 4-byte form, a 4-byte
form in CESU-8). In Corrected UTF-8, a note (text) says that the input
starts with the magic number and where its first reserved FE/FF run is (well
formed), when it has them; in JSON, `magic_number` and `reserved_run`.
`repair` works on UTF-8 only.
[default: utf-8]",
    );
    help
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_or_a_name() {
        assert_eq!(parse("AUTO"), Ok(Encoding::Auto));
        assert_eq!(parse("cesu8"), Ok(Encoding::Named(Dialect::Cesu8)));
        assert!(parse("latin-1")
            .unwrap_err()
            .ends_with("corrected-utf-8, auto"));
    }
}
