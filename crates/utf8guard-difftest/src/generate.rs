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
        let end = out.len() + len;
        let mut w = Writer { out, end };
        while !w.full() {
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

/// Appends characters up to a byte limit; what does not fit is dropped, and
/// [`Writer::pad`] fills the last bytes with ASCII.
struct Writer<'a> {
    out: &'a mut Vec<u8>,
    end: usize,
}

impl Writer<'_> {
    fn full(&self) -> bool {
        self.out.len() >= self.end
    }

    fn char(&mut self, c: char) {
        if self.out.len() + c.len_utf8() <= self.end {
            let mut buf = [0u8; 4];
            self.out
                .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
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

    #[test]
    fn names_round_trip() {
        for &script in Script::ALL {
            assert_eq!(Script::from_name(script.name()), Some(script));
        }
        assert_eq!(Script::from_name("klingon"), None);
    }
}
