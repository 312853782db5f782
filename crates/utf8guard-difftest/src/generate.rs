//! Synthetic text per script: seeded, reproducible, any size.
//!
//! Each [`Script`] is a small model of running text: words of a typical
//! length drawn from the script's letters (with combining marks where the
//! script uses them), separated by spaces, punctuation and line breaks.
//! The point is not linguistic realism but the byte patterns validators
//! meet in practice: the mix of 1-, 2-, 3- and 4-byte characters, how long
//! the ASCII runs between them are, and which lead bytes occur. Between them
//! the scripts reach every row of Unicode's Table 3-7, including the edges
//! of the ranges (`E0 A0..`, `ED 80..9F`, `F0 90..`, `F4 80..8F`).
//!
//! The same text can be written in any dialect of the family
//! ([`Script::generate_in`]): its code points go through that dialect's
//! encoder ([`crate::encode`]), and what only the dialect has is mixed in
//! between the words (lone surrogates, Unicode 3.1's irregular pairs,
//! U+0000 in modified UTF-8, 5- and 6-byte characters, Corrected UTF-8's
//! reserved runs and magic number; see [`dialect_extra_bytes`]).

use utf8guard::Dialect;

use crate::encode::{self, can_encode};
use crate::rng::Rng;

/// A writing system (or mix) the generator can imitate.
///
/// ```
/// use utf8guard_difftest::Script;
///
/// let text = Script::Cyrillic.generate(42, 1000);
/// assert_eq!(text.len(), 1000);
/// assert!(std::str::from_utf8(&text).is_ok());
/// assert_eq!(text, Script::Cyrillic.generate(42, 1000)); // reproducible
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Script {
    /// English-like text and source code: almost all ASCII, a rare accented
    /// letter, symbol or emoji.
    Ascii,
    /// Latin script with accents (French, German, Polish, Vietnamese...).
    Latin,
    /// Cyrillic (Russian, Ukrainian...): 2-byte letters, ASCII spaces.
    Cyrillic,
    /// Greek, with tonos.
    Greek,
    /// Arabic, with occasional harakat and Arabic-Indic digits.
    Arabic,
    /// Hebrew, with occasional niqqud.
    Hebrew,
    /// Devanagari (Hindi): 3-byte `E0 A4..A5` with vowel signs and virama.
    Devanagari,
    /// Thai: 3-byte `E0 B8..B9`, few spaces.
    Thai,
    /// Chinese and Japanese: 3-byte ideographs, kana, CJK punctuation, a
    /// few 4-byte Extension B ideographs, no spaces.
    Cjk,
    /// Korean Hangul syllables, up to `ED 9E A3` (U+D7A3).
    Hangul,
    /// Emoji with ZWJ sequences, skin tones and flags, and other 4-byte
    /// characters (mathematical letters, historic scripts, the
    /// supplementary private use planes up to U+10FFFD).
    Emoji,
    /// All of the above, switching every few words, plus the code points
    /// at the edges of every encoding length.
    Mixed,
}

/// A weighted range of code points.
type Range = (u32, u32, u32);

/// What one script's text is made of.
struct Model {
    /// Letters, weighted.
    letters: &'static [Range],
    /// Combining marks that may follow a letter.
    marks: &'static [Range],
    /// One letter in `mark_rate` gets a mark (0: never).
    mark_rate: usize,
    /// Word length in letters.
    word: (usize, usize),
    /// One word in `space_rate` is followed by a space (1: always).
    space_rate: usize,
    /// Punctuation that ends a clause or sentence.
    punct: &'static [&'static str],
}

const ASCII_LETTERS: &[Range] = &[(0x61, 0x7A, 20), (0x41, 0x5A, 2), (0x30, 0x39, 1)];

const MODEL_LATIN: Model = Model {
    letters: &[
        (0x61, 0x7A, 60),
        (0xE0, 0xFF, 6),
        (0xC0, 0xDE, 1),
        (0x100, 0x17F, 4),
        (0x1EA0, 0x1EF9, 2),
    ],
    marks: &[(0x300, 0x323, 1)],
    mark_rate: 200,
    word: (2, 10),
    space_rate: 1,
    punct: &[".", ",", ";", ":", "!", "?", " «", "» ", " –", "’"],
};

const MODEL_CYRILLIC: Model = Model {
    letters: &[
        (0x430, 0x44F, 30),
        (0x410, 0x42F, 2),
        (0x451, 0x451, 1),
        (0x454, 0x457, 1),
    ],
    marks: &[],
    mark_rate: 0,
    word: (2, 11),
    space_rate: 1,
    punct: &[".", ",", "!", "?", " —", " «", "»"],
};

const MODEL_GREEK: Model = Model {
    letters: &[
        (0x3B1, 0x3C9, 30),
        (0x391, 0x3A9, 2),
        (0x3AC, 0x3AF, 3),
        (0x3CA, 0x3CE, 2),
    ],
    marks: &[],
    mark_rate: 0,
    word: (2, 10),
    space_rate: 1,
    punct: &[".", ",", ";", "·", "!"],
};

const MODEL_ARABIC: Model = Model {
    letters: &[(0x621, 0x64A, 40), (0x660, 0x669, 1), (0x671, 0x6D3, 2)],
    marks: &[(0x64B, 0x652, 1)],
    mark_rate: 12,
    word: (2, 8),
    space_rate: 1,
    punct: &["،", ".", "؛", "؟", "!"],
};

const MODEL_HEBREW: Model = Model {
    letters: &[(0x5D0, 0x5EA, 30), (0x5F0, 0x5F2, 1)],
    marks: &[(0x5B0, 0x5BC, 1)],
    mark_rate: 15,
    word: (2, 8),
    space_rate: 1,
    punct: &[".", ",", "״", "׳", "!", "?"],
};

const MODEL_DEVANAGARI: Model = Model {
    letters: &[(0x915, 0x939, 30), (0x905, 0x914, 6), (0x966, 0x96F, 1)],
    marks: &[(0x93E, 0x94C, 6), (0x94D, 0x94D, 2), (0x902, 0x903, 1)],
    mark_rate: 2,
    word: (1, 6),
    space_rate: 1,
    punct: &["।", ",", "॥", "?"],
};

const MODEL_THAI: Model = Model {
    letters: &[(0xE01, 0xE2E, 30), (0xE40, 0xE44, 4), (0xE50, 0xE59, 1)],
    marks: &[(0xE31, 0xE3A, 3), (0xE47, 0xE4E, 2)],
    mark_rate: 3,
    word: (2, 9),
    space_rate: 6,
    punct: &[" ", "ๆ", "ฯ"],
};

const MODEL_CJK: Model = Model {
    letters: &[
        (0x4E00, 0x9FFF, 60),
        (0x3041, 0x3096, 15),
        (0x30A1, 0x30FA, 6),
        (0x3400, 0x4DBF, 1),
        (0xFF10, 0xFF5A, 1),
        (0x20000, 0x2A6DF, 1),
    ],
    marks: &[],
    mark_rate: 0,
    word: (1, 12),
    space_rate: 50,
    punct: &["、", "。", "「", "」", "，", "！", "？", "・"],
};

const MODEL_HANGUL: Model = Model {
    letters: &[
        (0xAC00, 0xD7A3, 40),
        (0x3131, 0x318E, 1),
        (0xD7B0, 0xD7FB, 1),
    ],
    marks: &[],
    mark_rate: 0,
    word: (1, 5),
    space_rate: 1,
    punct: &[".", ",", "!", "?"],
};

const MODEL_EMOJI: Model = Model {
    letters: &[
        (0x1F600, 0x1F64F, 20),
        (0x1F300, 0x1F5FF, 15),
        (0x1F680, 0x1F6FF, 6),
        (0x1F900, 0x1F9FF, 8),
        (0x2600, 0x27BF, 4),
        (0x1D400, 0x1D7FF, 3),
        (0x10330, 0x1034A, 1),
        (0x10000, 0x1007F, 1),
        (0xF0000, 0xFFFFD, 1),
        (0x100000, 0x10FFFD, 1),
    ],
    marks: &[(0x1F3FB, 0x1F3FF, 2), (0xFE0F, 0xFE0F, 1)],
    mark_rate: 6,
    word: (1, 4),
    space_rate: 2,
    punct: &["!", "!!", "?", "...", " ❤️", "\u{200D}"],
};

/// Code points at the edges of every row of Table 3-7 and of every
/// encoding length.
const EDGES: &[char] = &[
    '\u{7F}',
    '\u{80}',
    '\u{7FF}',
    '\u{800}',
    '\u{FFF}',
    '\u{1000}',
    '\u{CFFF}',
    '\u{D000}',
    '\u{D7FF}',
    '\u{E000}',
    '\u{FFFD}',
    '\u{FFFF}',
    '\u{10000}',
    '\u{3FFFF}',
    '\u{40000}',
    '\u{FFFFF}',
    '\u{100000}',
    '\u{10FFFF}',
];

impl Script {
    /// Every script, in a fixed order.
    pub const ALL: &'static [Script] = &[
        Script::Ascii,
        Script::Latin,
        Script::Cyrillic,
        Script::Greek,
        Script::Arabic,
        Script::Hebrew,
        Script::Devanagari,
        Script::Thai,
        Script::Cjk,
        Script::Hangul,
        Script::Emoji,
        Script::Mixed,
    ];

    /// The script's name, as used on the command line and in file names.
    pub const fn name(self) -> &'static str {
        match self {
            Script::Ascii => "ascii",
            Script::Latin => "latin",
            Script::Cyrillic => "cyrillic",
            Script::Greek => "greek",
            Script::Arabic => "arabic",
            Script::Hebrew => "hebrew",
            Script::Devanagari => "devanagari",
            Script::Thai => "thai",
            Script::Cjk => "cjk",
            Script::Hangul => "hangul",
            Script::Emoji => "emoji",
            Script::Mixed => "mixed",
        }
    }

    /// The script with that [`name`](Self::name).
    pub fn from_name(name: &str) -> Option<Script> {
        Script::ALL.iter().copied().find(|s| s.name() == name)
    }

    fn model(self) -> Option<&'static Model> {
        Some(match self {
            Script::Latin => &MODEL_LATIN,
            Script::Cyrillic => &MODEL_CYRILLIC,
            Script::Greek => &MODEL_GREEK,
            Script::Arabic => &MODEL_ARABIC,
            Script::Hebrew => &MODEL_HEBREW,
            Script::Devanagari => &MODEL_DEVANAGARI,
            Script::Thai => &MODEL_THAI,
            Script::Cjk => &MODEL_CJK,
            Script::Hangul => &MODEL_HANGUL,
            Script::Emoji => &MODEL_EMOJI,
            Script::Ascii | Script::Mixed => return None,
        })
    }

    /// Exactly `len` bytes of well-formed UTF-8 text in this script, the
    /// same for the same `(seed, len)` on every platform.
    pub fn generate(self, seed: u64, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len);
        self.generate_into(&mut Rng::derive(seed, self as u64), len, &mut out);
        out
    }

    /// Append exactly `len` bytes of text in this script to `out`, drawing
    /// from `rng`.
    pub fn generate_into(self, rng: &mut Rng, len: usize, out: &mut Vec<u8>) {
        self.generate_in(Dialect::Utf8, rng, len, out);
    }

    /// Append exactly `len` bytes of text in this script, written in
    /// `dialect`, to `out`, drawing from `rng`. Well formed in `dialect`
    /// when `out` is empty or ends between sequences (after a WTF-8 lead
    /// surrogate the text may start with a trail surrogate, which joins
    /// it; Corrected UTF-8's magic number, when the text starts with it, is
    /// well formed only at the start of an input). For
    /// [`Dialect::Utf8`] this is [`generate_into`](Self::generate_into).
    ///
    /// ```
    /// use utf8guard::Dialect;
    /// use utf8guard_difftest::{Rng, Script};
    ///
    /// let mut text = Vec::new();
    /// Script::Emoji.generate_in(Dialect::Cesu8, &mut Rng::new(3), 500, &mut text);
    /// assert_eq!(text.len(), 500);
    /// assert!(utf8guard_dfa::CESU8.is_valid(&text));
    /// ```
    pub fn generate_in(self, dialect: Dialect, rng: &mut Rng, len: usize, out: &mut Vec<u8>) {
        let end = out.len() + len;
        let extras = dialect != Dialect::Utf8;
        let mut w = Writer { out, end, dialect };
        if dialect == Dialect::Corrected && w.out.is_empty() && rng.one_in(3) {
            w.raw(&encode::CORRECTED_MAGIC);
        }
        while !w.full() {
            if extras && rng.one_in(5) {
                dialect_extra(dialect, rng, &mut w);
            }
            match self {
                Script::Ascii => ascii_sentence(rng, &mut w),
                Script::Mixed => {
                    if rng.one_in(8) {
                        w.char(*rng.pick(EDGES));
                    }
                    let other = Script::ALL[rng.below(Script::ALL.len() - 1)];
                    let words = rng.range(1, 12);
                    match other.model() {
                        Some(model) => {
                            for _ in 0..words {
                                model_word(model, rng, &mut w);
                            }
                        }
                        None => ascii_sentence(rng, &mut w),
                    }
                }
                _ => {
                    if let Some(model) = self.model() {
                        model_word(model, rng, &mut w);
                    }
                }
            }
        }
        w.pad();
    }
}

/// Appends characters in a dialect up to a byte limit; what does not fit
/// is dropped, and [`Writer::pad`] fills the last bytes with ASCII.
struct Writer<'a> {
    out: &'a mut Vec<u8>,
    end: usize,
    dialect: Dialect,
}

impl Writer<'_> {
    fn full(&self) -> bool {
        self.out.len() >= self.end
    }

    fn char(&mut self, c: char) {
        self.code_point(c as u32);
    }

    /// The code point in the writer's dialect; left out if the dialect
    /// cannot write it (a C1 control in Corrected UTF-8).
    fn code_point(&mut self, cp: u32) {
        if self.full() || !can_encode(self.dialect, cp) {
            return;
        }
        let before = self.out.len();
        encode::push(self.dialect, cp, self.out);
        // A WTF-8 trail joining the lead before it grows the text by one
        // byte, which fits: the writer was not full.
        if self.out.len() > self.end {
            self.out.truncate(before);
            self.pad();
        }
    }

    /// Bytes that are not a code point (a reserved run, the magic number).
    fn raw(&mut self, bytes: &[u8]) {
        if self.out.len() + bytes.len() <= self.end {
            self.out.extend_from_slice(bytes);
        } else {
            self.pad();
        }
    }

    fn str(&mut self, s: &str) {
        for c in s.chars() {
            self.char(c);
        }
    }

    fn pad(&mut self) {
        while self.out.len() < self.end {
            self.out.push(b' ');
        }
    }
}

/// What a dialect has beyond the scripts' characters, written between two
/// words:
/// - Unicode 3.1: a lone surrogate, or a supplementary character as its
///   "irregular" 6-byte pair;
/// - WTF-8: a lone lead or trail surrogate, a trail then a lead, or a lead
///   then a trail (which the encoder joins into a 4-byte form);
/// - CESU-8: a supplementary character (a pair) or a code point at an edge;
/// - modified UTF-8: U+0000 (`C0 80`), a lone surrogate, or a supplementary
///   character (a pair);
/// - RFC 2279 and Corrected UTF-8: a character of 4, 5 or 6 bytes, often at
///   an edge of its length; in Corrected UTF-8 also a reserved `FE`/`FF` run
///   (sometimes longer than a 64-byte block);
/// - strict UTF-8: nothing.
pub fn dialect_extra_bytes(dialect: Dialect, rng: &mut Rng, out: &mut Vec<u8>) {
    let end = out.len() + 256;
    dialect_extra(dialect, rng, &mut Writer { out, end, dialect });
}

/// [`dialect_extra_bytes`] through a writer.
fn dialect_extra(dialect: Dialect, rng: &mut Rng, w: &mut Writer<'_>) {
    let surrogate = |rng: &mut Rng, lead: bool| {
        let base = if lead { 0xD800 } else { 0xDC00 };
        base + rng.below(0x400) as u32
    };
    let supplementary = |rng: &mut Rng| 0x1_0000 + rng.below(0x10_0000) as u32;
    match dialect {
        Dialect::Unicode31 => {
            if rng.one_in(2) {
                let lead = rng.one_in(2);
                w.code_point(surrogate(rng, lead));
            } else {
                let v = supplementary(rng) - 0x1_0000;
                w.code_point(0xD800 + (v >> 10));
                w.code_point(0xDC00 + (v & 0x3FF));
            }
        }
        Dialect::Wtf8 => {
            let (a, b) = (rng.one_in(2), rng.one_in(2));
            w.code_point(surrogate(rng, a));
            if rng.one_in(2) {
                w.code_point(surrogate(rng, b));
            }
        }
        Dialect::Cesu8 => {
            let cp = if rng.one_in(2) {
                supplementary(rng)
            } else {
                encode::random_code_point(dialect, rng)
            };
            w.code_point(cp);
        }
        Dialect::Mutf8 => match rng.below(3) {
            0 => w.code_point(0),
            1 => {
                let lead = rng.one_in(2);
                w.code_point(surrogate(rng, lead));
            }
            _ => w.code_point(supplementary(rng)),
        },
        Dialect::Rfc2279 | Dialect::Corrected => {
            if dialect == Dialect::Corrected && rng.one_in(4) {
                let len = if rng.one_in(8) {
                    rng.range(60, 200)
                } else {
                    rng.range(0, 6)
                };
                let mut run = Vec::with_capacity(len + 1);
                encode::reserved_run(rng, len, &mut run);
                w.raw(&run);
            } else {
                let cp = loop {
                    let cp = encode::random_code_point(dialect, rng);
                    if cp >= 0x1_0000 {
                        break cp;
                    }
                };
                w.code_point(cp);
            }
        }
        _ => {}
    }
}

/// A code point from weighted ranges. The ranges hold no surrogates.
fn pick_char(rng: &mut Rng, ranges: &[Range]) -> char {
    let total: u32 = ranges.iter().map(|r| r.2).sum();
    let mut at = rng.below(total as usize) as u32;
    for &(lo, hi, weight) in ranges {
        if at < weight {
            let cp = lo + rng.below((hi - lo + 1) as usize) as u32;
            return char::from_u32(cp).unwrap_or('\u{FFFD}');
        }
        at -= weight;
    }
    '?'
}

/// One word of a script, with its separator.
fn model_word(model: &Model, rng: &mut Rng, w: &mut Writer<'_>) {
    let letters = rng.range(model.word.0, model.word.1);
    for _ in 0..letters {
        w.char(pick_char(rng, model.letters));
        if model.mark_rate > 0 && rng.one_in(model.mark_rate) {
            w.char(pick_char(rng, model.marks));
        }
    }
    if rng.one_in(9) {
        let punct: &&str = rng.pick(model.punct);
        w.str(punct);
    }
    if rng.one_in(60) {
        w.char('\n');
    } else if rng.one_in(model.space_rate) {
        w.char(' ');
    }
}

/// A sentence or a line of code, with a rare non-ASCII character.
fn ascii_sentence(rng: &mut Rng, w: &mut Writer<'_>) {
    const RARE: &[char] = &[
        'é', 'ü', 'ñ', 'ß', '€', '—', '“', '”', '…', '✓', '😀', '🚀', 'λ', '中',
    ];
    const CODE: &[&str] = &[
        "fn ", "let ", " = ", "();", "{\n", "}\n", "    ", "->", "::", "&mut ", "// ", "\"", "#[",
        "]\t", "0x", "<", ">",
    ];
    let words = rng.range(3, 18);
    let code = rng.one_in(3);
    for i in 0..words {
        if code && rng.one_in(3) {
            let token: &&str = rng.pick(CODE);
            w.str(token);
        }
        let letters = rng.range(1, 9);
        for _ in 0..letters {
            if rng.one_in(250) {
                w.char(*rng.pick(RARE));
            } else {
                w.char(pick_char(rng, ASCII_LETTERS));
            }
        }
        if i + 1 < words {
            w.char(if rng.one_in(12) { ',' } else { ' ' });
        }
    }
    w.str(if rng.one_in(5) { ".\n" } else { ". " });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Share of the characters of `text` in `lo..=hi`.
    fn share(text: &str, lo: u32, hi: u32) -> f64 {
        let n = text.chars().count();
        let k = text
            .chars()
            .filter(|&c| (lo..=hi).contains(&(c as u32)))
            .count();
        k as f64 / n as f64
    }

    #[test]
    fn every_script_makes_valid_text_of_the_exact_length() {
        for &script in Script::ALL {
            for len in [0, 1, 2, 3, 4, 5, 63, 64, 65, 1000, 4099] {
                let text = script.generate(9, len);
                assert_eq!(text.len(), len, "{script:?}");
                assert!(std::str::from_utf8(&text).is_ok(), "{script:?} {len}");
            }
        }
    }

    #[test]
    fn scripts_are_made_of_their_letters() {
        let text = |s: Script| String::from_utf8(s.generate(5, 20_000)).unwrap();
        assert!(share(&text(Script::Ascii), 0, 0x7F) > 0.99);
        assert!(share(&text(Script::Cyrillic), 0x400, 0x4FF) > 0.7);
        assert!(share(&text(Script::Greek), 0x370, 0x3FF) > 0.7);
        assert!(share(&text(Script::Arabic), 0x600, 0x6FF) > 0.7);
        assert!(share(&text(Script::Hebrew), 0x590, 0x5FF) > 0.7);
        assert!(share(&text(Script::Devanagari), 0x900, 0x97F) > 0.7);
        assert!(share(&text(Script::Thai), 0xE00, 0xE7F) > 0.8);
        assert!(share(&text(Script::Hangul), 0xAC00, 0xD7FF) > 0.6);
        assert!(share(&text(Script::Cjk), 0x3000, 0x9FFF) > 0.8);
        assert!(share(&text(Script::Emoji), 0x10000, 0x10FFFF) > 0.5);
        let latin = text(Script::Latin);
        assert!(share(&latin, 0x80, 0x2FF) > 0.05);
        assert!(share(&latin, 0, 0x7F) > 0.7);
    }

    #[test]
    fn mixed_text_reaches_every_lead_byte_and_second_byte_edge() {
        let text = Script::Mixed.generate(11, 200_000);
        let mut leads = [false; 256];
        for &b in &text {
            leads[b as usize] = true;
        }
        for lead in [
            0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF3, 0xF4,
        ] {
            assert!(leads[lead], "lead {lead:02X} never generated");
        }
        // The narrowed second-byte ranges, at both ends.
        for pair in [
            [0xE0, 0xA0],
            [0xED, 0x9F],
            [0xF0, 0x90],
            [0xF4, 0x8F],
            [0xF4, 0x80],
        ] {
            assert!(
                text.windows(2).any(|w| w == pair),
                "{pair:02X?} never generated"
            );
        }
    }

    #[test]
    fn same_seed_same_text_other_seed_other_text() {
        for &script in Script::ALL {
            assert_eq!(script.generate(1, 3000), script.generate(1, 3000));
            assert_ne!(script.generate(1, 3000), script.generate(2, 3000));
            // A longer text starts like a shorter one.
            let long = script.generate(1, 6000);
            let short = script.generate(1, 3000);
            let common = short.len() - 8;
            assert_eq!(long[..common], short[..common], "{script:?}");
        }
    }

    fn automaton(d: Dialect) -> &'static utf8guard_dfa::Automaton {
        utf8guard_dfa::ALL[Dialect::ALL.iter().position(|&x| x == d).unwrap()]
    }

    #[test]
    fn every_script_makes_valid_text_in_every_dialect() {
        let mut rng = Rng::new(17);
        for &d in Dialect::ALL {
            for &script in Script::ALL {
                for len in [0, 1, 2, 3, 5, 7, 8, 9, 63, 64, 65, 1000, 4099] {
                    let mut text = Vec::new();
                    script.generate_in(d, &mut rng, len, &mut text);
                    assert_eq!(text.len(), len, "{d} {script:?}");
                    assert!(
                        automaton(d).is_valid(&text),
                        "{d} {script:?}: {:?}",
                        automaton(d).validate(&text)
                    );
                }
            }
        }
    }

    #[test]
    fn strict_utf8_text_is_what_it_always_was() {
        let mut a = Vec::new();
        let mut b = Vec::new();
        let (mut r1, mut r2) = (Rng::new(4), Rng::new(4));
        Script::Mixed.generate_into(&mut r1, 5000, &mut a);
        Script::Mixed.generate_in(Dialect::Utf8, &mut r2, 5000, &mut b);
        assert_eq!(a, b);
        assert_eq!(r1.next_u64(), r2.next_u64());
    }

    /// The text of every script in `d`, 20 KB each, with the magic number
    /// at the start of some.
    fn dialect_text(d: Dialect) -> Vec<u8> {
        let mut rng = Rng::new(23);
        let mut all = Vec::new();
        for &script in Script::ALL {
            for _ in 0..4 {
                let mut text = Vec::new();
                script.generate_in(d, &mut rng, 5000, &mut text);
                all.extend_from_slice(&text);
                all.push(b'\n');
            }
        }
        all
    }

    fn holds(text: &[u8], pattern: impl Fn(&[u8]) -> bool, width: usize) -> bool {
        text.windows(width).any(pattern)
    }

    #[test]
    fn dialect_text_holds_what_only_the_dialect_has() {
        let lead = |w: &[u8]| w[0] == 0xED && (0xA0..=0xAF).contains(&w[1]);
        let trail = |w: &[u8]| w[0] == 0xED && (0xB0..=0xBF).contains(&w[1]);
        let pair = |w: &[u8]| lead(w) && trail(&w[3..]);

        let u31 = dialect_text(Dialect::Unicode31);
        assert!(holds(&u31, pair, 6), "irregular pairs");
        assert!(holds(&u31, |w| lead(w) && !trail(&w[3..]), 6), "lone leads");
        assert!(holds(&u31, |w| w[0] == 0xF0, 1), "4-byte forms");

        let wtf8 = dialect_text(Dialect::Wtf8);
        assert!(
            holds(&wtf8, |w| lead(w) && !trail(&w[3..]), 6),
            "lone leads"
        );
        assert!(
            holds(&wtf8, |w| !lead(w) && trail(&w[3..]), 6),
            "lone trails"
        );
        assert!(
            holds(&wtf8, |w| trail(w) && lead(&w[3..]), 6),
            "trail, lead"
        );
        assert!(!holds(&wtf8, pair, 6));

        for d in [Dialect::Cesu8, Dialect::Mutf8] {
            let text = dialect_text(d);
            assert!(holds(&text, pair, 6), "{d}: pairs");
            assert!(!text.iter().any(|&b| b >= 0xF0), "{d}: 4-byte forms");
        }
        let mutf8 = dialect_text(Dialect::Mutf8);
        assert!(holds(&mutf8, |w| w == b"\xC0\x80", 2));
        assert!(!mutf8.contains(&0));
        assert!(
            holds(&mutf8, |w| lead(w) && !trail(&w[3..]), 6),
            "lone leads"
        );

        let rfc = dialect_text(Dialect::Rfc2279);
        for lead in [0xF5, 0xF8, 0xFC, 0xFD] {
            assert!(rfc.contains(&lead), "RFC 2279: {lead:02X}");
        }
        let corrected = dialect_text(Dialect::Corrected);
        for lead in [0xC0, 0xC1, 0xF8, 0xFC, 0xFE, 0xFF] {
            assert!(corrected.contains(&lead), "Corrected: {lead:02X}");
        }
        let mut rng = Rng::new(1);
        let starts = (0..30)
            .filter(|_| {
                let mut text = Vec::new();
                Script::Latin.generate_in(Dialect::Corrected, &mut rng, 100, &mut text);
                text.starts_with(&encode::CORRECTED_MAGIC)
            })
            .count();
        assert!(
            (3..27).contains(&starts),
            "{starts} of 30 start with the magic number"
        );
    }

    #[test]
    fn names_round_trip() {
        for &script in Script::ALL {
            assert_eq!(Script::from_name(script.name()), Some(script));
        }
        assert_eq!(Script::from_name("klingon"), None);
    }
}
