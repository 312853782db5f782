//! What an input that is not UTF-8 is, when its first bytes tell: text in
//! UTF-16 or UTF-32 (by its byte order mark or its zero bytes), a binary
//! format known by its magic number, or binary data. The report then says
//! so once, instead of a hint per byte that would take binary data for
//! text in some 8-bit encoding.

use std::fmt;

use crate::hex::hex;

/// Bytes of the start of an input that are looked at.
pub const HEAD: usize = 4096;

/// What the start of an input shows it to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nature {
    /// Text in another Unicode encoding: its name, and the byte order mark
    /// it starts with (`None`: recognised by its zero bytes).
    Unicode {
        encoding: &'static str,
        bom: Option<&'static [u8]>,
    },
    /// A binary format, named after its magic number.
    Format(&'static str),
    /// Binary data: zero bytes or control characters among the first ones.
    Binary,
}

/// Byte order marks, longest first (the UTF-32LE one starts like the
/// UTF-16LE one).
const BOMS: [(&[u8], &str); 4] = [
    (b"\xFF\xFE\x00\x00", "UTF-32LE"),
    (b"\x00\x00\xFE\xFF", "UTF-32BE"),
    (b"\xFF\xFE", "UTF-16LE"),
    (b"\xFE\xFF", "UTF-16BE"),
];

/// Magic numbers of common binary formats.
const MAGIC: [(&[u8], &str); 22] = [
    (b"\x1F\x8B", "gzip"),
    (b"\x28\xB5\x2F\xFD", "zstd"),
    (b"\xFD7zXZ\x00", "xz"),
    (b"BZh", "bzip2"),
    (b"7z\xBC\xAF\x27\x1C", "7-Zip"),
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),
    (b"PK\x07\x08", "zip"),
    (b"%PDF-", "PDF"),
    (b"\x89PNG\r\n\x1A\n", "PNG"),
    (b"\xFF\xD8\xFF", "JPEG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"\x7FELF", "ELF"),
    (b"\xCF\xFA\xED\xFE", "Mach-O"),
    (b"\xCE\xFA\xED\xFE", "Mach-O"),
    (b"\xCA\xFE\xBA\xBE", "Java class or Mach-O universal"),
    (b"\x00asm", "WebAssembly"),
    (b"\xDE\x12\x04\x95", "gettext .mo"),
    (b"\x95\x04\x12\xDE", "gettext .mo"),
    (b"SQLite format 3\x00", "SQLite"),
    (b"\x1A\x45\xDF\xA3", "Matroska/WebM"),
];

/// What `head`, the first bytes of an input (up to [`HEAD`]), shows it to
/// be; `None` when it may well be text in an 8-bit encoding.
pub fn sniff(head: &[u8]) -> Option<Nature> {
    let head = &head[..head.len().min(HEAD)];
    if let Some(&(bom, encoding)) = BOMS.iter().find(|(bom, _)| head.starts_with(bom)) {
        return Some(Nature::Unicode {
            encoding,
            bom: Some(bom),
        });
    }
    if let Some(&(_, format)) = MAGIC.iter().find(|(magic, _)| head.starts_with(magic)) {
        return Some(Nature::Format(format));
    }
    // UTF-32 first: its zero bytes would make it binary data. UTF-16 text
    // hardly passes for it: every second unit would have to be below 0011.
    if let Some(encoding) = utf32_without_bom(head).or_else(|| utf16_without_bom(head)) {
        return Some(Nature::Unicode {
            encoding,
            bom: None,
        });
    }
    // Text has no zero bytes, and few controls besides tab, line and page
    // breaks and escape.
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | 0x1B))
        .count();
    let nul = head.contains(&0);
    (nul || controls * 100 > head.len()).then_some(Nature::Binary)
}

/// UTF-32 text without a byte order mark: at least two 4-byte units, and
/// every one, read in one byte order, a character that text holds (a
/// scalar value, no control but tab, line and page breaks and escape).
/// Every such unit has a zero high byte, which the zero bytes of binary
/// data seldom make.
fn utf32_without_bom(head: &[u8]) -> Option<&'static str> {
    if head.len() < 8 {
        return None;
    }
    let text = |big_endian: bool| {
        head.chunks_exact(4).all(|unit| {
            let unit = [unit[0], unit[1], unit[2], unit[3]];
            let value = if big_endian {
                u32::from_be_bytes(unit)
            } else {
                u32::from_le_bytes(unit)
            };
            char::from_u32(value).is_some_and(|c| {
                !c.is_control() || matches!(c, '\t' | '\n' | '\u{B}' | '\u{C}' | '\r' | '\u{1B}')
            })
        })
    };
    if text(false) {
        Some("UTF-32LE")
    } else if text(true) {
        Some("UTF-32BE")
    } else {
        None
    }
}

/// UTF-16 text of mostly Latin letters, without a byte order mark: most
/// bytes at odd offsets (little-endian) or even ones (big-endian) are 00,
/// and next to none of the others.
fn utf16_without_bom(head: &[u8]) -> Option<&'static str> {
    let pairs = head.len() / 2;
    if pairs < 4 {
        return None;
    }
    let zeros = |parity: usize| {
        head.iter()
            .skip(parity)
            .step_by(2)
            .take(pairs)
            .filter(|&&b| b == 0)
            .count()
    };
    let (even, odd) = (zeros(0), zeros(1));
    let most = |n: usize| n * 10 >= pairs * 7;
    let few = |n: usize| n * 20 <= pairs;
    if most(odd) && few(even) {
        Some("UTF-16LE")
    } else if most(even) && few(odd) {
        Some("UTF-16BE")
    } else {
        None
    }
}

impl fmt::Display for Nature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The command's own tools: `convert --from utf-16` (`utf-32`)
            // reads the byte order of the mark and drops it, and
            // `--encoding auto` checks the input in its encoding.
            Nature::Unicode {
                encoding,
                bom: Some(bom),
            } => write!(
                f,
                "{encoding} text (it starts with the byte order mark {}), not UTF-8: \
                 `utf8guard convert --from {} --to utf-8` converts it, and \
                 `utf8guard --encoding auto` checks it as {encoding}",
                hex(bom),
                encoding[..6].to_ascii_lowercase()
            ),
            // Without a mark, `--encoding auto` takes it for UTF-8.
            Nature::Unicode {
                encoding,
                bom: None,
            } => {
                let zeros = if encoding.starts_with("UTF-16") {
                    "zero bytes in every other place"
                } else {
                    "4-byte code units whose high bytes are zero"
                };
                write!(
                    f,
                    "{encoding} text without a byte order mark ({zeros}), not UTF-8: \
                     `utf8guard convert --from {} --to utf-8` converts it",
                    encoding.to_ascii_lowercase()
                )
            }
            Nature::Format(format) => write!(f, "binary data ({format}), not text"),
            Nature::Binary => f.write_str(
                "binary data (zero bytes or control characters near its start), not text",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_order_marks_magic_numbers_and_binary_data() {
        let utf16le: Vec<u8> = "\u{FEFF}héllo"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let utf16be: Vec<u8> = "hello, world"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        let utf32le: Vec<u8> = "Grüße, 日本 😀\n"
            .chars()
            .flat_map(|c| u32::from(c).to_le_bytes())
            .collect();
        let utf32be: Vec<u8> = "hé\n"
            .chars()
            .flat_map(|c| u32::from(c).to_be_bytes())
            .collect();
        let cases: &[(&[u8], Option<&str>)] = &[
            (&utf16le, Some("UTF-16LE text (it starts with the byte order mark FF FE), not UTF-8: `utf8guard convert --from utf-16 --to utf-8` converts it, and `utf8guard --encoding auto` checks it as UTF-16LE")),
            (b"\xFF\xFE\x00\x00h\x00\x00\x00", Some("UTF-32LE text (it starts with the byte order mark FF FE 00 00), not UTF-8: `utf8guard convert --from utf-32 --to utf-8` converts it, and `utf8guard --encoding auto` checks it as UTF-32LE")),
            (b"\xFE\xFF\x00h", Some("UTF-16BE text (it starts with the byte order mark FE FF), not UTF-8: `utf8guard convert --from utf-16 --to utf-8` converts it, and `utf8guard --encoding auto` checks it as UTF-16BE")),
            (&utf16be, Some("UTF-16BE text without a byte order mark (zero bytes in every other place), not UTF-8: `utf8guard convert --from utf-16be --to utf-8` converts it")),
            (&utf32le, Some("UTF-32LE text without a byte order mark (4-byte code units whose high bytes are zero), not UTF-8: `utf8guard convert --from utf-32le --to utf-8` converts it")),
            (&utf32be, Some("UTF-32BE text without a byte order mark (4-byte code units whose high bytes are zero), not UTF-8: `utf8guard convert --from utf-32be --to utf-8` converts it")),
            // Zero bytes, but not UTF-32: controls, or values above 10FFFF.
            (b"\x01\x00\x00\x00\x02\x00\x00\x00", Some("binary data (zero bytes or control characters near its start), not text")),
            (b"a\x00\x00\x00\x00\x00\x11\x00", Some("binary data (zero bytes or control characters near its start), not text")),
            (b"\x1F\x8B\x08\x00\x00\x00\x00\x00\x00\x03", Some("binary data (gzip), not text")),
            (b"\x28\xB5\x2F\xFD\x24", Some("binary data (zstd), not text")),
            (b"\xFD7zXZ\x00\x00", Some("binary data (xz), not text")),
            (b"PK\x03\x04\x14\x00", Some("binary data (zip), not text")),
            (b"%PDF-1.7\n%\xE2\xE3\xCF\xD3", Some("binary data (PDF), not text")),
            (b"\x89PNG\r\n\x1A\n\x00\x00", Some("binary data (PNG), not text")),
            (b"\x7FELF\x02\x01\x01", Some("binary data (ELF), not text")),
            (b"\xDE\x12\x04\x95\x00\x00", Some("binary data (gettext .mo), not text")),
            (b"\x99\x01\x0D\x04\x5F\x2A\x00\x10", Some("binary data (zero bytes or control characters near its start), not text")),
            // Text in 8-bit encodings: nothing to say here.
            (b"Jos\xE9 M\xFCller, K\xF6ln\n\tStra\xDFe\r\n", None),
            (b"\xCF\xF0\xE8\xE2\xE5\xF2, \xEC\xE8\xF0!", None),
            (b"\x1B[1mbold\x1B[0m caf\xE9", None),
            (b"", None),
        ];
        for &(head, expected) in cases {
            assert_eq!(
                sniff(head).map(|n| n.to_string()).as_deref(),
                expected,
                "{head:02X?}"
            );
        }
    }
}
