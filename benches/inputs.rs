//! The benchmark inputs: generated text, the shared lipsum corpora, the
//! project's corpora, invalid inputs with the error at a chosen place, and
//! batches of short strings.
//!
//! Everything generated is deterministic (a fixed seed), so two runs time
//! the same bytes.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Environment variable overriding where the lipsum corpora are read from.
pub const LIPSUM_ENV: &str = "UTF8GUARD_LIPSUM_DIR";

/// Environment variable overriding where the project's corpora are read from.
pub const CORPORA_ENV: &str = "UTF8GUARD_CORPORA_DIR";

/// How many different strings each short-string benchmark (criterion's and
/// the paired one) cycles through.
pub const SHORT_POOL: usize = 4096;

/// Largest file the benchmarks load from a corpus folder.
const MAX_CORPUS_FILE: u64 = 64 << 20;

/// A small, fast, deterministic generator (SplitMix64). Not for anything
/// but making test data.
///
/// ```
/// let mut a = utf8guard_bench::inputs::Rng::new(7);
/// let mut b = utf8guard_bench::inputs::Rng::new(7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert!(a.below(10) < 10);
/// ```
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose output depends only on `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`; `n` must not be 0.
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "Rng::below(0)");
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// `true` when a character starts at `at` (or `at` is the end).
fn is_char_boundary(bytes: &[u8], at: usize) -> bool {
    at == bytes.len() || (bytes[at] as i8) >= -0x40
}

/// Printable ASCII: letters, digits, spaces and punctuation, as in text.
const ASCII_ALPHABET: &[u8] =
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789     .,;:!?-'\"()\n";

/// `len` bytes of printable ASCII.
///
/// ```
/// let text = utf8guard_bench::inputs::ascii(100, 1);
/// assert_eq!(text.len(), 100);
/// assert!(text.is_ascii());
/// ```
pub fn ascii(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    (0..len)
        .map(|_| ASCII_ALPHABET[rng.below(ASCII_ALPHABET.len())])
        .collect()
}

/// Appends exactly `len` bytes of random well-formed UTF-8: each character
/// is 1, 2, 3 or 4 bytes long with equal chance (among the lengths that
/// still fit), its scalar value uniform within that length's range.
fn push_random_text(out: &mut Vec<u8>, len: usize, rng: &mut Rng) {
    let end = out.len() + len;
    let mut buf = [0u8; 4];
    while out.len() < end {
        let width = 1 + rng.below((end - out.len()).min(4));
        let scalar = loop {
            let (lo, hi) = match width {
                1 => (0x20, 0x7E),
                2 => (0x80, 0x7FF),
                3 => (0x800, 0xFFFF),
                _ => (0x1_0000, 0x10_FFFF),
            };
            // Surrogates are not scalar values: draw again.
            if let Some(c) = char::from_u32(lo + rng.below((hi - lo + 1) as usize) as u32) {
                break c;
            }
        };
        out.extend_from_slice(scalar.encode_utf8(&mut buf).as_bytes());
    }
}

/// `len` bytes of random 1-4-byte text (see the module docs); always valid.
///
/// ```
/// let text = utf8guard_bench::inputs::random_text(1000, 1);
/// assert_eq!(text.len(), 1000);
/// assert!(std::str::from_utf8(&text).is_ok());
/// ```
pub fn random_text(len: usize, seed: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    push_random_text(&mut out, len, &mut Rng::new(seed));
    out
}

/// Where an invalid input has its first error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorAt {
    /// No error: the valid input the others are compared with.
    Nowhere,
    /// A stray byte `0xFF` as the first byte.
    Start,
    /// A stray byte `0xFF` at the first character boundary from the middle.
    Middle,
    /// A stray byte `0xFF` as the last byte.
    End,
    /// The input ends inside a four-byte character (its first two bytes).
    TruncatedEnd,
}

impl ErrorAt {
    /// All positions, the valid input first.
    pub const ALL: [ErrorAt; 5] = [
        ErrorAt::Nowhere,
        ErrorAt::Start,
        ErrorAt::Middle,
        ErrorAt::End,
        ErrorAt::TruncatedEnd,
    ];

    /// The name benchmarks use: `valid`, `start`, `middle`, `end`,
    /// `truncated-end`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorAt::Nowhere => "valid",
            ErrorAt::Start => "start",
            ErrorAt::Middle => "middle",
            ErrorAt::End => "end",
            ErrorAt::TruncatedEnd => "truncated-end",
        }
    }

    /// `len` bytes of random 1-4-byte text with the error here, and the
    /// `(valid_up_to, error_len)` std reports for it (`None` for the valid
    /// input). `len` must be at least 2.
    ///
    /// ```
    /// use utf8guard_bench::inputs::ErrorAt;
    ///
    /// let (input, error) = ErrorAt::Middle.input(1000, 3);
    /// assert_eq!(input.len(), 1000);
    /// let err = std::str::from_utf8(&input).unwrap_err();
    /// assert_eq!(Some((err.valid_up_to(), err.error_len())), error);
    /// ```
    pub fn input(self, len: usize, seed: u64) -> (Vec<u8>, Option<(usize, Option<usize>)>) {
        assert!(len >= 2, "ErrorAt::input needs at least 2 bytes");
        let mut rng = Rng::new(seed);
        let mut out = Vec::with_capacity(len);
        let (prefix, bad): (usize, &[u8]) = match self {
            ErrorAt::Nowhere => (len, &[]),
            ErrorAt::Start => (0, &[0xFF]),
            ErrorAt::Middle => (len / 2, &[0xFF]),
            ErrorAt::End => (len - 1, &[0xFF]),
            ErrorAt::TruncatedEnd => (len - 2, &[0xF0, 0x9F]),
        };
        push_random_text(&mut out, prefix, &mut rng);
        out.extend_from_slice(bad);
        let rest = len - out.len();
        push_random_text(&mut out, rest, &mut rng);
        let error = match self {
            ErrorAt::Nowhere => None,
            ErrorAt::TruncatedEnd => Some((prefix, None)),
            _ => Some((prefix, Some(1))),
        };
        (out, error)
    }
}

/// A named input read from disk.
#[derive(Clone, Debug)]
pub struct Named {
    /// The file's name (for corpora: its path under the corpus folder).
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// The folder of the shared lipsum corpora: `UTF8GUARD_LIPSUM_DIR`, or
/// `../shared/corpora/lipsum` beside the workspace.
pub fn lipsum_dir() -> PathBuf {
    let dir = match std::env::var_os(LIPSUM_ENV) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora/lipsum"),
    };
    dir.canonicalize().unwrap_or(dir)
}

/// The lipsum files (`*.utf8.txt`), sorted by name, each named by its
/// script (`Arabic`, `Chinese`, ...). `Err` with the reason when the folder
/// is missing, holds none, or a file is not valid UTF-8.
pub fn lipsum() -> Result<Vec<Named>, String> {
    let dir = lipsum_dir();
    let entries = std::fs::read_dir(&dir)
        .map_err(|e| format!("lipsum corpora not found at {}: {e}", dir.display()))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        let Some(file) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(stem) = file.strip_suffix(".utf8.txt") else {
            continue;
        };
        let name = stem.strip_suffix("-Lipsum").unwrap_or(stem).to_string();
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if std::str::from_utf8(&bytes).is_err() {
            return Err(format!("{} is not valid UTF-8", path.display()));
        }
        files.push(Named { name, bytes });
    }
    if files.is_empty() {
        return Err(format!("no *.utf8.txt files in {}", dir.display()));
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

/// The folder of the project's corpora: `UTF8GUARD_CORPORA_DIR`, or
/// `corpora/` at the workspace root.
pub fn corpora_dir() -> PathBuf {
    let dir = match std::env::var_os(CORPORA_ENV) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora"),
    };
    dir.canonicalize().unwrap_or(dir)
}

/// The files of one folder of the project's generated corpora (`synthetic`:
/// valid text per script; `malformed`: text with one class of error), sorted
/// by name, each named `<folder>/<file>`. Hidden files and `README.md` are
/// left out. `Err` with the reason when the folder is missing or empty.
pub fn corpora(folder: &str) -> Result<Vec<Named>, String> {
    let dir = corpora_dir().join(folder);
    let entries = std::fs::read_dir(&dir)
        .map_err(|e| format!("project corpora not found at {}: {e}", dir.display()))?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let meta = entry.metadata().map_err(|e| e.to_string())?;
        if name.starts_with('.') || name == "README.md" || !meta.is_file() {
            continue;
        }
        if meta.len() == 0 || meta.len() > MAX_CORPUS_FILE {
            return Err(format!(
                "{}: {} bytes, outside 1..=64 MiB",
                entry.path().display(),
                meta.len()
            ));
        }
        let bytes = std::fs::read(entry.path()).map_err(|e| format!("{name}: {e}"))?;
        files.push(Named {
            name: format!("{folder}/{name}"),
            bytes,
        });
    }
    if files.is_empty() {
        return Err(format!("no files in {}", dir.display()));
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

/// Many short strings stored in one buffer, as a parser finds them in its
/// input: each after 0 to 7 bytes of filler (spaces), as delimiters
/// separate the strings of a real input.
///
/// The filler is there for the strings' addresses. Back to back, strings
/// of a power-of-two length from 64 bytes up would all start at the same
/// offset within a cache line, the one the allocator gave the buffer, and a
/// run would measure that one alignment: which one changes from run to run
/// and build to build, and with it, by up to 1.5x, the speed of the
/// vector validators on 256-byte ASCII strings (Zen 5), in a different
/// direction for each. With the gaps, the strings' starts fall at every
/// offset of a line.
#[derive(Clone, Debug, Default)]
pub struct Strings {
    buf: Vec<u8>,
    spans: Vec<(usize, usize)>,
    bytes: usize,
}

/// The filler before string `i` of a [`Strings`]: 0 to 7 bytes, spread by
/// a multiplicative hash of `i`.
fn gap_before(i: usize) -> usize {
    ((i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 61) as usize
}

impl Strings {
    fn push(&mut self, s: &[u8]) {
        let gap = gap_before(self.spans.len());
        self.buf.resize(self.buf.len() + gap, b' ');
        let start = self.buf.len();
        self.buf.extend_from_slice(s);
        self.spans.push((start, self.buf.len()));
        self.bytes += s.len();
    }

    /// How many strings.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// `true` when there are none.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Their total length in bytes (the filler between them not counted).
    pub fn total_bytes(&self) -> usize {
        self.bytes
    }

    /// The strings, in order.
    pub fn slices(&self) -> Vec<&[u8]> {
        self.spans.iter().map(|&(a, b)| &self.buf[a..b]).collect()
    }
}

/// Draws a window of exactly `len` bytes from a random source that starts
/// and ends on character boundaries and is all ASCII or not, as asked.
/// `None` when a few hundred tries find nothing.
fn draw_window<'a>(
    sources: &[&'a [u8]],
    len: usize,
    want_ascii: bool,
    rng: &mut Rng,
) -> Option<&'a [u8]> {
    for _ in 0..500 {
        let src = sources[rng.below(sources.len())];
        if src.len() < len {
            continue;
        }
        let start = rng.below(src.len() - len + 1);
        if !is_char_boundary(src, start) || !is_char_boundary(src, start + len) {
            continue;
        }
        let window = &src[start..start + len];
        if window.is_ascii() == want_ascii {
            return Some(window);
        }
    }
    None
}

/// `count` different strings of exactly `len` bytes cut out of `sources`
/// at character boundaries: all ASCII (`want_ascii`) or each with at least
/// one non-ASCII character.
///
/// ```
/// use utf8guard_bench::inputs::windows;
///
/// let text = "Über Größe, Gewicht und Güte der Äpfel, Birnen und Kürbisse lässt sich streiten. "
///     .repeat(20);
/// let strings = windows(&[text.as_bytes()], 8, 20, false, 1).unwrap();
/// assert_eq!(strings.len(), 20);
/// for s in strings.slices() {
///     assert_eq!(s.len(), 8);
///     assert!(std::str::from_utf8(s).is_ok() && !s.is_ascii());
/// }
/// ```
///
/// # Errors
/// When the sources do not hold `count` different such strings.
pub fn windows(
    sources: &[&[u8]],
    len: usize,
    count: usize,
    want_ascii: bool,
    seed: u64,
) -> Result<Strings, String> {
    let mut rng = Rng::new(seed);
    let mut seen = HashSet::new();
    let mut out = Strings::default();
    let mut misses = 0;
    while out.len() < count {
        match draw_window(sources, len, want_ascii, &mut rng) {
            Some(w) if seen.insert(w) => out.push(w),
            _ => {
                misses += 1;
                if misses > 10 * count + 1000 {
                    return Err(format!(
                        "only {} different {} strings of {len} bytes in the sources, {count} wanted",
                        out.len(),
                        if want_ascii { "ASCII" } else { "non-ASCII" },
                    ));
                }
            }
        }
    }
    Ok(out)
}

/// `count` strings of exactly `len` bytes cut out of `sources` as
/// [`windows`] cuts them, some of them repeated: for the shortest lengths,
/// of which text holds fewer different strings than a pool needs (there
/// are not 4096 different 2-byte characters in a page of Greek).
///
/// ```
/// use utf8guard_bench::inputs::windows_repeating;
///
/// let strings = windows_repeating(&["Grün".as_bytes()], 2, 10, false, 1).unwrap();
/// assert_eq!(strings.slices(), vec!["ü".as_bytes(); 10]);
/// ```
///
/// # Errors
/// When the sources hold no such string.
pub fn windows_repeating(
    sources: &[&[u8]],
    len: usize,
    count: usize,
    want_ascii: bool,
    seed: u64,
) -> Result<Strings, String> {
    let mut rng = Rng::new(seed);
    let mut out = Strings::default();
    while out.len() < count {
        let window = draw_window(sources, len, want_ascii, &mut rng).ok_or_else(|| {
            format!(
                "no {} string of {len} bytes in the sources",
                if want_ascii { "ASCII" } else { "non-ASCII" }
            )
        })?;
        out.push(window);
    }
    Ok(out)
}

/// The sizes of the string classes of [`string_classes`]: 1 B to 1 KiB.
pub const STRING_SIZES: [usize; 11] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/// Strings of every size of [`STRING_SIZES`], all ASCII (`ascii/<n>`) or
/// each with a non-ASCII character (`text/<n>`, from 2 bytes: no 1-byte
/// string holds one): [`SHORT_POOL`] of each, cut out of `sources` by
/// [`windows_repeating`].
///
/// # Errors
/// When the sources hold no string of some class.
pub fn string_classes(sources: &[&[u8]]) -> Result<Vec<(String, Strings)>, String> {
    let mut classes = Vec::new();
    for (class, want_ascii) in [("ascii", true), ("text", false)] {
        for len in STRING_SIZES {
            if !want_ascii && len < 2 {
                continue;
            }
            let strings = windows_repeating(sources, len, SHORT_POOL, want_ascii, len as u64)
                .map_err(|why| format!("{class}/{len}: {why}"))?;
            classes.push((format!("{class}/{len}"), strings));
        }
    }
    Ok(classes)
}

/// The files of `files` named `<prefix>/<name>` (the name without the
/// folder the project's corpora put before it), or none, said on stderr
/// with the reason, when they could not be read.
pub fn labeled(prefix: &str, files: Result<Vec<Named>, String>) -> Vec<(String, Vec<u8>)> {
    match files {
        Ok(files) => files
            .into_iter()
            .map(|f| {
                let name = f.name.rsplit('/').next().unwrap_or(&f.name).to_string();
                (format!("{prefix}/{name}"), f.bytes)
            })
            .collect(),
        Err(why) => {
            eprintln!("inputs: {prefix} left out: {why}");
            Vec::new()
        }
    }
}

/// A parser's workload: `count` strings of 8 to 64 bytes (uniform), half
/// all-ASCII and half with non-ASCII characters, in random order, cut out
/// of `sources` at character boundaries.
///
/// # Errors
/// When the sources hold too little ASCII or non-ASCII text.
pub fn parser_batch(sources: &[&[u8]], count: usize, seed: u64) -> Result<Strings, String> {
    let mut rng = Rng::new(seed);
    let mut out = Strings::default();
    while out.len() < count {
        let len = 8 + rng.below(57);
        let want_ascii = rng.below(2) == 0;
        let Some(w) = draw_window(sources, len, want_ascii, &mut rng) else {
            return Err(format!(
                "no {} string of {len} bytes found in the sources",
                if want_ascii { "ASCII" } else { "non-ASCII" }
            ));
        };
        out.push(w);
    }
    Ok(out)
}

/// Text to cut short strings from: the lipsum files, or, when they are
/// missing, generated ASCII and random 1-4-byte text (the `String` says
/// which, for the report).
pub fn text_sources() -> (Vec<Vec<u8>>, String) {
    match lipsum() {
        Ok(files) => (
            files.into_iter().map(|f| f.bytes).collect(),
            format!("lipsum corpora ({})", lipsum_dir().display()),
        ),
        Err(why) => (
            vec![ascii(256 << 10, 11), random_text(256 << 10, 12)],
            format!("generated text ({why})"),
        ),
    }
}

/// Valid UTF-8 text for the ingestion benchmarks: the lipsum corpora
/// concatenated, or (said on stderr) generated multilingual text.
pub fn ingest_text() -> Vec<u8> {
    let dir = lipsum_dir();
    let mut text = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut paths: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(".utf8.txt"))
            .collect();
        paths.sort();
        for path in paths {
            text.extend_from_slice(&std::fs::read(&path).expect("reading a corpus file"));
        }
    }
    if text.is_empty() {
        eprintln!(
            "ingest: corpus folder {} is absent or empty; using generated text",
            dir.display()
        );
        let words = [
            "lorem",
            "ipsum",
            "Größe",
            "café",
            "naïve",
            "Ελληνικά",
            "русский",
            "עברית",
            "العربية",
            "हिन्दी",
            "日本語",
            "中文",
            "한국어",
            "😀",
            "🚀",
            "dolor",
            "sit",
            "amet",
        ];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        while text.len() < 800 << 10 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            text.extend_from_slice(words[(x % words.len() as u64) as usize].as_bytes());
            text.push(if x.is_multiple_of(11) { b'\n' } else { b' ' });
        }
    }
    assert!(
        std::str::from_utf8(&text).is_ok(),
        "the bench text must be valid"
    );
    text
}

/// `text` repeated to exactly `len` bytes, cut at a character boundary
/// (then padded with ASCII).
pub fn repeated(text: &[u8], len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        let take = text.len().min(len - out.len());
        out.extend_from_slice(&text[..take]);
    }
    while std::str::from_utf8(&out).is_err() {
        out.pop();
    }
    out.resize(len, b' ');
    out
}

/// `text` with 0.1% of its bytes invalid: one byte that can never be part
/// of a character (`FF`, a stray `80`, `C0`, `F8`) inserted between two
/// characters every thousand bytes on average, at pseudo-random places.
pub fn damaged(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + text.len() / 1000 + 1);
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = 0;
    for (i, &byte) in text.iter().enumerate() {
        if i >= next && byte & 0xC0 != 0x80 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            out.push([0xFF, 0x80, 0xC0, 0xF8][(x >> 32) as usize % 4]);
            next = i + 1 + (x % 1999) as usize;
        }
        out.push(byte);
    }
    out
}

/// A column of `count` short strings, Arrow-style: the words of `text`
/// (split at whitespace), cycled, back to back in one values buffer, and
/// the `count + 1` offsets that delimit them.
///
/// # Panics
/// When `text` is not UTF-8 or holds no word.
pub fn column(text: &[u8], count: usize) -> (Vec<u8>, Vec<i32>) {
    let text = std::str::from_utf8(text).expect("the column's text must be valid");
    let words: Vec<&str> = text.split_whitespace().collect();
    assert!(!words.is_empty(), "the column's text holds no word");
    let mut values = Vec::new();
    let mut offsets = vec![0i32];
    for word in words.iter().cycle().take(count) {
        values.extend_from_slice(word.as_bytes());
        offsets.push(i32::try_from(values.len()).expect("values fit i32 offsets"));
    }
    (values, offsets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_is_deterministic_and_spreads() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        let xs: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs[0], xs[1]);
        let mut counts = [0usize; 4];
        for _ in 0..4000 {
            counts[a.below(4)] += 1;
        }
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn random_text_has_exact_length_and_every_width() {
        for len in [0, 1, 2, 3, 4, 5, 7, 64, 1000] {
            let t = random_text(len, len as u64);
            assert_eq!(t.len(), len);
            assert!(std::str::from_utf8(&t).is_ok());
        }
        let t = random_text(100_000, 9);
        let s = std::str::from_utf8(&t).unwrap();
        let mut widths = [0usize; 5];
        for c in s.chars() {
            widths[c.len_utf8()] += 1;
        }
        // Roughly a quarter of the characters of each width.
        for (w, &count) in widths.iter().enumerate().skip(1) {
            let share = count as f64 / s.chars().count() as f64;
            assert!((0.2..0.3).contains(&share), "width {w}: {share}");
        }
    }

    #[test]
    fn ascii_is_ascii() {
        let t = ascii(5000, 3);
        assert_eq!(t.len(), 5000);
        assert!(t.is_ascii());
        assert_ne!(ascii(64, 1), ascii(64, 2));
    }

    #[test]
    fn invalid_inputs_put_the_error_where_they_say() {
        for len in [2, 3, 17, 1000, 4096] {
            for at in ErrorAt::ALL {
                let (input, error) = at.input(len, 5);
                assert_eq!(input.len(), len, "{at:?}");
                let got = std::str::from_utf8(&input)
                    .err()
                    .map(|e| (e.valid_up_to(), e.error_len()));
                assert_eq!(got, error, "{at:?} len {len}");
                let expected = match at {
                    ErrorAt::Nowhere => None,
                    ErrorAt::Start => Some((0, Some(1))),
                    ErrorAt::Middle => Some((len / 2, Some(1))),
                    ErrorAt::End => Some((len - 1, Some(1))),
                    ErrorAt::TruncatedEnd => Some((len - 2, None)),
                };
                assert_eq!(error, expected, "{at:?} len {len}");
            }
        }
    }

    #[test]
    fn windows_are_distinct_exact_and_of_the_asked_class() {
        let mixed = "Ünïcödé text with ASCII words between, 日本語 and Ελληνικά too. ".repeat(50);
        let random = random_text(20_000, 1);
        let words = ascii(20_000, 2);
        let sources = [mixed.as_bytes(), &random[..], &words[..]];
        for len in [8, 16, 24, 32] {
            for want_ascii in [true, false] {
                let strings = windows(&sources, len, 200, want_ascii, 7).unwrap();
                let slices = strings.slices();
                assert_eq!(slices.len(), 200);
                assert_eq!(strings.total_bytes(), 200 * len);
                let distinct: HashSet<_> = slices.iter().collect();
                assert_eq!(distinct.len(), 200);
                for s in slices {
                    assert_eq!(s.len(), len);
                    assert!(std::str::from_utf8(s).is_ok());
                    assert_eq!(s.is_ascii(), want_ascii);
                }
            }
        }
    }

    #[test]
    fn strings_start_at_every_offset_of_a_cache_line() {
        let words = ascii(20_000, 5);
        for len in [64, 256] {
            let strings = windows_repeating(&[&words[..]], len, SHORT_POOL, true, 3).unwrap();
            assert_eq!(strings.total_bytes(), SHORT_POOL * len);
            let base = strings.buf.as_ptr() as usize;
            let mut count = [0usize; 64];
            for s in strings.slices() {
                count[(s.as_ptr() as usize - base) % 64] += 1;
            }
            // 4096 strings over 64 offsets: 64 each on average.
            let (least, most) = (count.iter().min().unwrap(), count.iter().max().unwrap());
            assert!(*least >= 32 && *most <= 128, "{len}: {count:?}");
            let gaps: Vec<_> = strings.spans.windows(2).map(|w| w[1].0 - w[0].1).collect();
            assert!(gaps.iter().all(|&g| g < 8));
            assert!(strings.buf.iter().all(u8::is_ascii));
        }
    }

    #[test]
    fn windows_report_when_the_sources_run_dry() {
        let err = windows(&[b"abcdefghij"], 8, 5, true, 1).unwrap_err();
        assert!(
            err.starts_with("only 3 different ASCII strings of 8 bytes"),
            "{err}"
        );
    }

    #[test]
    fn parser_batch_mixes_lengths_and_classes() {
        let random = random_text(50_000, 2);
        let words = ascii(50_000, 3);
        let batch = parser_batch(&[&random[..], &words[..]], 10_000, 4).unwrap();
        let slices = batch.slices();
        assert_eq!(slices.len(), 10_000);
        let ascii_count = slices.iter().filter(|s| s.is_ascii()).count();
        assert!((4500..5500).contains(&ascii_count), "{ascii_count}");
        assert_eq!(slices.iter().map(|s| s.len()).min(), Some(8));
        assert_eq!(slices.iter().map(|s| s.len()).max(), Some(64));
        assert!(slices.iter().all(|s| std::str::from_utf8(s).is_ok()));
    }

    #[test]
    fn lipsum_loads_when_present() {
        match lipsum() {
            Ok(files) => {
                assert!(!files.is_empty());
                for f in &files {
                    assert!(std::str::from_utf8(&f.bytes).is_ok(), "{}", f.name);
                    assert!(!f.name.contains("Lipsum"), "{}", f.name);
                }
            }
            Err(why) => eprintln!("skipping: {why}"),
        }
    }

    #[test]
    fn generated_corpora_load_when_present() {
        match corpora("synthetic") {
            Ok(files) => {
                for f in &files {
                    assert!(f.name.starts_with("synthetic/"), "{}", f.name);
                    assert!(std::str::from_utf8(&f.bytes).is_ok(), "{}", f.name);
                }
            }
            Err(why) => eprintln!("skipping: {why}"),
        }
        match corpora("malformed") {
            Ok(files) => {
                for f in &files {
                    assert!(std::str::from_utf8(&f.bytes).is_err(), "{}", f.name);
                }
            }
            Err(why) => eprintln!("skipping: {why}"),
        }
        let err = corpora("no-such-folder").unwrap_err();
        assert!(err.starts_with("project corpora not found at "), "{err}");
    }
}

/// `text` in Corrected UTF-8. `None` if it holds a C1 control or U+0000.
pub fn corrected_text(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        out.extend_from_slice(&utf8guard::Dialect::Corrected.encode(c as u32).ok()?);
    }
    Some(out)
}

/// Text with sequences of 5 and 6 bytes: `text`'s characters, and after
/// every 8th one a code point above U+1FFFFF (alternately of 5 and 6 bytes
/// in RFC 2279), as code points to encode with `Dialect::encode`.
pub fn long_sequence_text(text: &str, seed: u64) -> Vec<u32> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(text.len());
    for (i, c) in text.chars().enumerate() {
        out.push(c as u32);
        if i % 8 == 7 {
            let cp = if i % 16 == 7 {
                0x20_0000 + rng.below(0x3E0_0000) as u32
            } else {
                0x400_0000 + rng.below(0x3C00_0000) as u32
            };
            out.push(cp);
        }
    }
    out
}

#[cfg(test)]
mod dialect_tests {
    use super::*;
    use utf8guard::Dialect;

    #[test]
    fn long_sequence_text_is_well_formed_in_both_dialects() {
        let text = "Grüße, 世界 🌍 and more text ".repeat(20);
        let cps = long_sequence_text(&text, 7);
        let (mut rfc, mut cor) = (Vec::new(), Vec::new());
        for &cp in &cps {
            rfc.extend_from_slice(&Dialect::Rfc2279.encode(cp).unwrap());
            cor.extend_from_slice(&Dialect::Corrected.encode(cp).expect("no C1 control"));
        }
        assert!(Dialect::Rfc2279.validate(&rfc));
        assert!(Dialect::Corrected.validate(&cor));
        assert!(rfc.iter().any(|&b| b >= 0xFC) && rfc.iter().any(|&b| (0xF8..0xFC).contains(&b)));
        assert!(!Dialect::Utf8.validate(&rfc));
        let plain = corrected_text(&text).expect("no C1 control");
        assert!(Dialect::Corrected.validate(&plain));
    }
}
