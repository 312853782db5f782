//! Wikipedia-like text: a script's words mixed with the ASCII of wiki
//! markup, made deterministically from a seed.
//!
//! The lipsum corpora hold one script each, with little ASCII between its
//! words (0-12% of their bytes). Articles of a Wikipedia in another script
//! than Latin are not like that: their source mixes the script with links
//! (`[[...]]`), templates (`{{...}}`), references (`<ref>` holding a citation
//! with its URL, dates and publisher), numbers, Latin names and the spaces
//! and punctuation between words, so that 30-60% of their bytes are ASCII
//! (Vietnamese, whose letters are mostly ASCII, about 65%), in runs of a
//! few bytes to a few hundred. A validator then meets blocks
//! of pure ASCII, of pure script and of both, one after the other, rather
//! than text of one kind throughout: the workload of
//! `mixed/<script>` in the paired benchmark.
//!
//! The words are made from each script's Unicode blocks (syllables of
//! consonants and vowel signs for Devanagari and Thai, Hangul syllables,
//! ideographs with kana, and so on), not taken from a corpus, so that the
//! text is the same wherever it is made; what it says means nothing, but
//! its mix of byte lengths and of ASCII is the one real articles have.
//!
//! ```
//! use utf8guard_bench::wikitext::{ascii_share, wikitext, Script};
//!
//! let text = wikitext(Script::Hindi, 64 << 10, 1);
//! assert_eq!(text.len(), 64 << 10);
//! assert_eq!(text, wikitext(Script::Hindi, 64 << 10, 1));
//! let share = ascii_share(text.as_bytes());
//! assert!((0.3..0.6).contains(&share), "{share}");
//! ```

use crate::inputs::{Named, Rng};

/// Bytes of each `mixed/<script>` input: like the lipsum files, it stays in
/// the second-level cache.
pub const MIXED_LEN: usize = 128 << 10;

/// The seed of the `mixed/<script>` inputs.
pub const MIXED_SEED: u64 = 0x5769_6b69;

/// The scripts the generator writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Script {
    Arabic,
    Chinese,
    Greek,
    Hebrew,
    Hindi,
    Japanese,
    Korean,
    Russian,
    Thai,
    Vietnamese,
}

impl Script {
    /// Every script, in the order of their names.
    pub const ALL: [Script; 10] = [
        Script::Arabic,
        Script::Chinese,
        Script::Greek,
        Script::Hebrew,
        Script::Hindi,
        Script::Japanese,
        Script::Korean,
        Script::Russian,
        Script::Thai,
        Script::Vietnamese,
    ];

    /// The script's name, as the lipsum files name theirs.
    pub fn name(self) -> &'static str {
        match self {
            Script::Arabic => "Arabic",
            Script::Chinese => "Chinese",
            Script::Greek => "Greek",
            Script::Hebrew => "Hebrew",
            Script::Hindi => "Hindi",
            Script::Japanese => "Japanese",
            Script::Korean => "Korean",
            Script::Russian => "Russian",
            Script::Thai => "Thai",
            Script::Vietnamese => "Vietnamese",
        }
    }

    /// Whether words are separated by spaces (Thai, Chinese and Japanese
    /// write phrases without them).
    fn spaced(self) -> bool {
        !matches!(self, Script::Chinese | Script::Japanese | Script::Thai)
    }

    /// How many of a hundred items of a sentence are markup rather than
    /// words, and how many of a hundred sentences end with a reference:
    /// set so that each script's share of ASCII is what articles in it
    /// have (scripts of 3-byte characters with few spaces need more markup
    /// for the same share; Vietnamese is mostly ASCII letters already).
    fn markup(self) -> (usize, usize) {
        match self {
            Script::Vietnamese => (2, 3),
            Script::Korean => (12, 30),
            Script::Hebrew => (14, 35),
            Script::Russian | Script::Greek | Script::Arabic => (16, 40),
            Script::Hindi => (22, 55),
            Script::Thai => (42, 95),
            Script::Chinese | Script::Japanese => (28, 70),
        }
    }

    /// One word (for Chinese, Japanese and Thai: a short phrase).
    fn word(self, rng: &mut Rng, out: &mut String) {
        let pick = |rng: &mut Rng, from: u32, to: u32| -> char {
            char::from_u32(from + rng.below((to - from + 1) as usize) as u32).expect("a scalar")
        };
        match self {
            Script::Arabic => {
                for _ in 0..2 + rng.below(6) {
                    out.push(pick(rng, 0x0628, 0x063A));
                    if rng.below(3) == 0 {
                        out.push(pick(rng, 0x0641, 0x064A));
                    }
                }
            }
            Script::Hebrew => {
                for _ in 0..2 + rng.below(5) {
                    out.push(pick(rng, 0x05D0, 0x05EA));
                }
            }
            Script::Greek => {
                const TONOS: [char; 7] = ['ά', 'έ', 'ή', 'ί', 'ό', 'ύ', 'ώ'];
                for _ in 0..2 + rng.below(9) {
                    if rng.below(8) == 0 {
                        out.push(TONOS[rng.below(TONOS.len())]);
                    } else {
                        out.push(pick(rng, 0x03B1, 0x03C9));
                    }
                }
            }
            Script::Russian => {
                for _ in 0..2 + rng.below(9) {
                    out.push(pick(rng, 0x0430, 0x044F));
                }
            }
            Script::Hindi => {
                for _ in 0..1 + rng.below(4) {
                    out.push(pick(rng, 0x0915, 0x0939));
                    match rng.below(6) {
                        0 => {
                            // A conjunct: virama and a second consonant.
                            out.push('\u{094D}');
                            out.push(pick(rng, 0x0915, 0x0939));
                        }
                        1 | 2 => out.push(pick(rng, 0x093E, 0x094C)),
                        3 => out.push('\u{0902}'),
                        _ => {}
                    }
                }
            }
            Script::Thai => {
                for _ in 0..2 + rng.below(5) {
                    if rng.below(4) == 0 {
                        out.push(pick(rng, 0x0E40, 0x0E44));
                    }
                    out.push(pick(rng, 0x0E01, 0x0E2E));
                    if rng.below(2) == 0 {
                        out.push(pick(rng, 0x0E30, 0x0E39));
                    }
                    if rng.below(4) == 0 {
                        out.push(pick(rng, 0x0E48, 0x0E4B));
                    }
                    if rng.below(3) == 0 {
                        out.push(pick(rng, 0x0E01, 0x0E2E));
                    }
                }
            }
            Script::Korean => {
                for _ in 0..1 + rng.below(4) {
                    out.push(pick(rng, 0xAC00, 0xD7A3));
                }
            }
            Script::Chinese => {
                for _ in 0..2 + rng.below(7) {
                    out.push(pick(rng, 0x4E00, 0x9FA5));
                }
                if rng.below(3) == 0 {
                    out.push(['，', '、', '的'][rng.below(3)]);
                }
            }
            Script::Japanese => {
                for _ in 0..1 + rng.below(3) {
                    out.push(pick(rng, 0x4E00, 0x9FA5));
                }
                if rng.below(4) == 0 {
                    for _ in 0..2 + rng.below(5) {
                        out.push(pick(rng, 0x30A1, 0x30F3));
                    }
                    out.push('ー');
                }
                for _ in 0..1 + rng.below(4) {
                    out.push(pick(rng, 0x3041, 0x3093));
                }
                if rng.below(4) == 0 {
                    out.push('、');
                }
            }
            Script::Vietnamese => {
                const ONSETS: [&str; 22] = [
                    "b", "c", "ch", "d", "đ", "g", "gi", "h", "k", "kh", "l", "m", "n", "ng", "nh",
                    "ph", "qu", "s", "t", "th", "tr", "v",
                ];
                const VOWELS: &str =
                    "aaeiouyàáảãạăằắẳẵặâầấẩẫậèéẻẽẹêềếểễệìíỉĩịòóỏõọôồốổỗộơờớởỡợùúủũụưừứửữựỳýỷỹỵ";
                const CODAS: [&str; 9] = ["", "", "n", "ng", "nh", "c", "ch", "t", "m"];
                let vowels: Vec<char> = VOWELS.chars().collect();
                out.push_str(ONSETS[rng.below(ONSETS.len())]);
                out.push(vowels[rng.below(vowels.len())]);
                if rng.below(3) == 0 {
                    out.push(['i', 'u', 'ơ', 'ê'][rng.below(4)]);
                }
                out.push_str(CODAS[rng.below(CODAS.len())]);
            }
        }
    }

    /// The full stop that ends a sentence.
    fn full_stop(self) -> &'static str {
        match self {
            Script::Chinese | Script::Japanese => "。",
            Script::Hindi => " ।",
            Script::Thai => " ",
            _ => ".",
        }
    }

    /// A language code, as citations give it.
    fn code(self) -> &'static str {
        match self {
            Script::Arabic => "ar",
            Script::Chinese => "zh",
            Script::Greek => "el",
            Script::Hebrew => "he",
            Script::Hindi => "hi",
            Script::Japanese => "ja",
            Script::Korean => "ko",
            Script::Russian => "ru",
            Script::Thai => "th",
            Script::Vietnamese => "vi",
        }
    }
}

const LATIN_FIRST: [&str; 16] = [
    "Johann", "Maria", "Pierre", "Anna", "William", "Carlos", "Ahmed", "Elena", "Hans", "Sofia",
    "Thomas", "Isabel", "Peter", "Julia", "Robert", "Clara",
];
const LATIN_LAST: [&str; 16] = [
    "Bach", "Curie", "Newton", "Garcia", "Smith", "Schmidt", "Rossi", "Dubois", "Nakamura",
    "Ivanov", "Kowalski", "Jensen", "Silva", "Martin", "Novak", "Laurent",
];
const SITES: [&str; 8] = [
    "www.bbc.co.uk",
    "www.nytimes.com",
    "archive.org",
    "www.unesco.org",
    "books.google.com",
    "www.census.gov",
    "www.britannica.com",
    "doi.org",
];
const PARAMS: [&str; 8] = [
    "population_total",
    "area_total_km2",
    "elevation_m",
    "established_date",
    "website",
    "coordinates",
    "timezone",
    "postal_code",
];

/// Writes the text of one article after another into a `String`.
struct Writer {
    script: Script,
    rng: Rng,
    out: String,
}

impl Writer {
    fn words(&mut self, n: usize) {
        for k in 0..n {
            if k > 0 && self.script.spaced() {
                self.out.push(' ');
            }
            self.script.word(&mut self.rng, &mut self.out);
        }
    }

    fn number(&mut self, below: usize) {
        let n = self.rng.below(below);
        self.out.push_str(&n.to_string());
    }

    fn year(&mut self) {
        let y = 1700 + self.rng.below(325);
        self.out.push_str(&y.to_string());
    }

    fn date(&mut self) {
        self.year();
        let (m, d) = (1 + self.rng.below(12), 1 + self.rng.below(28));
        self.out.push_str(&format!("-{m:02}-{d:02}"));
    }

    fn latin_name(&mut self) {
        let first = LATIN_FIRST[self.rng.below(LATIN_FIRST.len())];
        let last = LATIN_LAST[self.rng.below(LATIN_LAST.len())];
        self.out.push_str(first);
        self.out.push(' ');
        self.out.push_str(last);
    }

    /// A URL whose path is a date and a slug of Latin words.
    fn url(&mut self, site: &str) {
        self.out.push_str("https://");
        self.out.push_str(site);
        self.out.push('/');
        self.date();
        for k in 0..2 + self.rng.below(4) {
            self.out.push(if k == 0 { '/' } else { '-' });
            let word = LATIN_LAST[self.rng.below(LATIN_LAST.len())];
            self.out.push_str(&word.to_ascii_lowercase());
        }
        self.out.push_str(".html");
    }

    /// A link to another article, with the text shown in the script.
    fn link(&mut self) {
        self.out.push_str("[[");
        let n = 1 + self.rng.below(3);
        self.words(n);
        if self.rng.below(3) == 0 {
            self.out.push('|');
            let n = 1 + self.rng.below(2);
            self.words(n);
        }
        self.out.push_str("]]");
    }

    /// A reference: a citation template, or a reference named before.
    fn reference(&mut self) {
        let name = self.rng.below(500);
        if self.rng.below(4) == 0 {
            self.out.push_str(&format!("<ref name=\"r{name}\" />"));
            return;
        }
        self.out.push_str(&format!("<ref name=\"r{name}\">"));
        if self.rng.below(2) == 0 {
            let site = SITES[self.rng.below(SITES.len())];
            self.out.push_str("{{cite web |url=");
            let url_at = self.out.len();
            self.url(site);
            let url = self.out[url_at..].to_string();
            self.out.push_str(" |title=");
            let n = 2 + self.rng.below(5);
            self.words(n);
            self.out.push_str(&format!(" |website={site} |date="));
            self.date();
            self.out.push_str(" |access-date=");
            self.date();
            if self.rng.below(2) == 0 {
                self.out
                    .push_str(" |archive-url=https://web.archive.org/web/");
                self.number(1_000_000_000);
                self.out.push('/');
                self.out.push_str(&url);
                self.out.push_str(" |url-status=live");
            }
            self.out
                .push_str(&format!(" |language={}}}}}", self.script.code()));
        } else {
            self.out.push_str("{{cite book |last=");
            self.out
                .push_str(LATIN_LAST[self.rng.below(LATIN_LAST.len())]);
            self.out.push_str(" |first=");
            self.out
                .push_str(LATIN_FIRST[self.rng.below(LATIN_FIRST.len())]);
            self.out.push_str(" |title=");
            let n = 2 + self.rng.below(5);
            self.words(n);
            self.out.push_str(" |year=");
            self.year();
            self.out.push_str(" |page=");
            self.number(900);
            self.out.push_str(" |isbn=978-");
            self.number(10);
            self.out.push('-');
            self.number(100_000);
            self.out.push('-');
            self.number(1000);
            self.out.push_str("}}");
        }
        self.out.push_str("</ref>");
    }

    /// An item of a sentence that is markup, a number or a name.
    fn markup_item(&mut self) {
        match self.rng.below(10) {
            0..=3 => self.link(),
            4 => {
                self.out.push_str("'''");
                let n = 1 + self.rng.below(2);
                self.words(n);
                self.out.push_str("'''");
            }
            5 => {
                self.out.push_str("(''");
                self.latin_name();
                self.out.push_str("'')");
            }
            6 => {
                self.out.push('(');
                self.year();
                self.out.push('\u{2013}');
                self.year();
                self.out.push(')');
            }
            7 => {
                self.number(100_000);
                if self.rng.below(2) == 0 {
                    self.out.push_str(&format!(".{}%", self.rng.below(10)));
                }
            }
            8 => {
                self.out.push_str("{{lang-en|");
                self.latin_name();
                self.out.push_str("}}");
            }
            _ => self.year(),
        }
    }

    fn sentence(&mut self) {
        let (markup, refs) = self.script.markup();
        for k in 0..4 + self.rng.below(14) {
            if k > 0 && (self.script.spaced() || self.rng.below(3) == 0) {
                self.out.push(' ');
            }
            if self.rng.below(100) < markup {
                self.markup_item();
            } else {
                self.script.word(&mut self.rng, &mut self.out);
            }
        }
        self.out.push_str(self.script.full_stop());
        if self.rng.below(100) < refs {
            self.reference();
        }
        self.out.push(' ');
    }

    fn infobox(&mut self) {
        self.out.push_str("{{Infobox settlement\n| name = ");
        let n = 1 + self.rng.below(2);
        self.words(n);
        self.out.push('\n');
        for _ in 0..3 + self.rng.below(5) {
            let param = PARAMS[self.rng.below(PARAMS.len())];
            self.out.push_str(&format!("| {param} = "));
            match self.rng.below(3) {
                0 => self.number(10_000_000),
                1 => {
                    let n = 1 + self.rng.below(3);
                    self.words(n);
                }
                _ => self.date(),
            }
            self.out.push('\n');
        }
        self.out.push_str("}}\n");
    }

    fn article(&mut self) {
        if self.rng.below(2) == 0 {
            self.infobox();
        }
        if self.rng.below(3) == 0 {
            let name = LATIN_LAST[self.rng.below(LATIN_LAST.len())];
            self.out.push_str(&format!(
                "[[File:{name}_{}.jpg|thumb|250px|",
                self.rng.below(100)
            ));
            let n = 2 + self.rng.below(4);
            self.words(n);
            self.out.push_str("]]\n");
        }
        for section in 0..2 + self.rng.below(4) {
            if section > 0 {
                self.out.push_str("\n== ");
                let n = 1 + self.rng.below(3);
                self.words(n);
                self.out.push_str(" ==\n");
            }
            for _ in 0..1 + self.rng.below(3) {
                for _ in 0..2 + self.rng.below(5) {
                    self.sentence();
                }
                self.out.push_str("\n\n");
            }
            if self.rng.below(4) == 0 {
                for _ in 0..2 + self.rng.below(4) {
                    self.out.push_str("* ");
                    self.link();
                    self.out.push_str(" (");
                    self.year();
                    self.out.push_str(")\n");
                }
            }
        }
        self.out.push_str("\n== ");
        self.words(1);
        self.out.push_str(" ==\n{{reflist}}\n\n");
        for _ in 0..1 + self.rng.below(3) {
            self.out.push_str("[[Category:");
            let n = 1 + self.rng.below(3);
            self.words(n);
            self.out.push_str("]]\n");
        }
        self.out.push('\n');
    }
}

/// `len` bytes of Wikipedia-like text in `script`, the same for the same
/// seed (cut at the last character that ends within `len`, then padded
/// with newlines to exactly `len` bytes).
pub fn wikitext(script: Script, len: usize, seed: u64) -> String {
    let mut w = Writer {
        script,
        rng: Rng::new(seed ^ (script as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        out: String::with_capacity(len + 4096),
    };
    while w.out.len() < len {
        w.article();
    }
    let mut end = len;
    while !w.out.is_char_boundary(end) {
        end -= 1;
    }
    w.out.truncate(end);
    while w.out.len() < len {
        w.out.push('\n');
    }
    w.out
}

/// The share of `bytes` that is ASCII.
pub fn ascii_share(bytes: &[u8]) -> f64 {
    if bytes.is_empty() {
        return 1.0;
    }
    bytes.iter().filter(|b| b.is_ascii()).count() as f64 / bytes.len() as f64
}

/// The share of the 64-byte blocks of `bytes` that are all ASCII, that
/// hold no ASCII, and that hold both: how the text switches between the
/// kinds a validator's loop tells apart.
pub fn block_kinds(bytes: &[u8]) -> (f64, f64, f64) {
    let (mut ascii, mut none) = (0usize, 0usize);
    let blocks = bytes.chunks_exact(64);
    let n = blocks.len().max(1) as f64;
    for block in blocks {
        let count = block.iter().filter(|b| b.is_ascii()).count();
        if count == 64 {
            ascii += 1;
        } else if count == 0 {
            none += 1;
        }
    }
    let (a, z) = (ascii as f64 / n, none as f64 / n);
    (a, z, 1.0 - a - z)
}

/// The `mixed/<script>` inputs: [`MIXED_LEN`] bytes of [`wikitext`] in each
/// script of [`Script::ALL`].
pub fn mixed() -> Vec<Named> {
    Script::ALL
        .iter()
        .map(|&s| Named {
            name: s.name().to_string(),
            bytes: wikitext(s, MIXED_LEN, MIXED_SEED).into_bytes(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_script_mixes_ascii_at_wikipedia_like_shares() {
        for s in Script::ALL {
            let text = wikitext(s, MIXED_LEN, MIXED_SEED);
            assert_eq!(text.len(), MIXED_LEN);
            let share = ascii_share(text.as_bytes());
            let (ascii, none, both) = block_kinds(text.as_bytes());
            assert!(
                (0.30..=0.66).contains(&share),
                "{}: {share:.3} ASCII",
                s.name()
            );
            // Runs of both kinds: a loop meets ASCII blocks and blocks
            // without ASCII, not one kind throughout.
            assert!(
                ascii > 0.02 && both > 0.3,
                "{}: {ascii} {none} {both}",
                s.name()
            );
        }
    }

    #[test]
    fn the_text_is_the_same_for_the_same_seed_only() {
        let a = wikitext(Script::Thai, 10_000, 3);
        assert_eq!(a, wikitext(Script::Thai, 10_000, 3));
        assert_ne!(a, wikitext(Script::Thai, 10_000, 4));
        assert_ne!(a, wikitext(Script::Korean, 10_000, 3));
    }
}
