//! Line and column of a byte offset, and character counts by encoded length.
//!
//! Lines are counted by `\n` bytes. A column counts characters: every byte
//! that does not continue a character (`80..BF`) starts one, and an invalid
//! sequence counts as one character, the U+FFFD that `repair` would put in
//! its place. Both are 1-based in reports.

use utf8guard::Dialect;

/// Where a scan has got to: the line and column of the next byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    /// Completed lines: `\n` bytes seen.
    pub line: u64,
    /// Characters seen since the last `\n`.
    pub column: u64,
}

impl Cursor {
    /// Moves past well-formed bytes (or bytes counted as such).
    pub fn advance(&mut self, bytes: &[u8]) {
        match memrchr_newline(bytes) {
            Some(last) => {
                self.line += count_newlines(&bytes[..last]) + 1;
                self.column = count_char_starts(&bytes[last + 1..]);
            }
            None => self.column += count_char_starts(bytes),
        }
    }

    /// [`advance`](Self::advance), with the counting of a large input
    /// spread over the thread pool.
    pub fn advance_parallel(&mut self, bytes: &[u8]) {
        if bytes.len() < PARALLEL_MIN {
            return self.advance(bytes);
        }
        match memrchr_newline(bytes) {
            Some(last) => {
                self.line += par_sum(&bytes[..last], count_newlines) + 1;
                self.column = par_sum(&bytes[last + 1..], count_char_starts);
            }
            None => self.column += par_sum(bytes, count_char_starts),
        }
    }

    /// Moves past one invalid sequence (it holds no `\n`: an ASCII byte
    /// always ends an invalid sequence before it).
    pub fn advance_invalid(&mut self) {
        self.column += 1;
    }

    /// The cursor `bytes` earlier, where `bytes` holds no `\n` and ends at
    /// the current position.
    pub fn back(&mut self, bytes: &[u8]) {
        debug_assert!(!bytes.contains(&b'\n'));
        self.column -= count_char_starts(bytes).min(self.column);
    }

    /// 1-based line number.
    pub fn line_number(&self) -> u64 {
        self.line + 1
    }

    /// 1-based column number, in characters.
    pub fn column_number(&self) -> u64 {
        self.column + 1
    }
}

/// Inputs at least this large are counted across the thread pool.
const PARALLEL_MIN: usize = 1 << 20;

/// `count` over `bytes`, in 1 MiB pieces on the rayon pool (on this thread
/// under 1 MiB, without a call into the pool, which would make it).
fn par_sum(bytes: &[u8], count: fn(&[u8]) -> u64) -> u64 {
    use rayon::prelude::*;
    if bytes.len() < PARALLEL_MIN {
        return count(bytes);
    }
    crate::pool::ready();
    bytes.par_chunks(PARALLEL_MIN).map(count).sum()
}

fn memrchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().rposition(|&b| b == b'\n')
}

// Counting goes 32 bytes at a time into 32 byte-sized lane counters, one
// per position, for up to 255 rounds before the lanes are added up: the
// compiler turns the inner loop into vector compares and subtractions (a
// plain per-byte loop into a single counter vectorizes far worse).

/// Lanes: bytes counted per round.
const LANES: usize = 32;
/// Rounds per block: a lane counter holds at most 255.
const ROUNDS: usize = 255;

/// How many bytes of `bytes` satisfy `test`.
#[inline(always)]
fn count_bytes(bytes: &[u8], test: impl Fn(u8) -> bool) -> u64 {
    let mut total = 0u64;
    let mut blocks = bytes.chunks_exact(LANES * ROUNDS);
    for block in &mut blocks {
        let mut lanes = [0u8; LANES];
        for round in block.chunks_exact(LANES) {
            for (lane, &b) in lanes.iter_mut().zip(round) {
                *lane += u8::from(test(b));
            }
        }
        total += lanes.iter().map(|&n| u64::from(n)).sum::<u64>();
    }
    total + blocks.remainder().iter().filter(|&&b| test(b)).count() as u64
}

/// Defines a counting function whose body is compiled twice, as it is and
/// with AVX2 enabled, and picks one at run time. The word loops are the same
/// code either way; with AVX2 the compiler turns them into 256-bit vector
/// code instead of the SSE2 baseline's 128-bit code.
macro_rules! with_avx2 {
    ($(#[$doc:meta])* fn $name:ident($arg:ident: &[u8]) -> $ret:ty $body:block) => {
        $(#[$doc])*
        fn $name($arg: &[u8]) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                fn avx2($arg: &[u8]) -> $ret $body
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2, the one requirement of a
                    // `#[target_feature(enable = "avx2")]` function.
                    return unsafe { avx2($arg) };
                }
            }
            $body
        }
    };
}

with_avx2! {
    /// Counts `\n` bytes.
    fn count_newlines(bytes: &[u8]) -> u64 {
        count_bytes(bytes, |b| b == b'\n')
    }
}

with_avx2! {
    /// Counts bytes that are not continuation bytes: characters, for UTF-8.
    fn count_char_starts(bytes: &[u8]) -> u64 {
        count_bytes(bytes, |b| b & 0xC0 != 0x80)
    }
}

/// Characters of well-formed UTF-8, by encoded length; in the other
/// dialects, sequences (a surrogate pair written as two 3-byte sequences
/// counts as two).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CharCounts {
    /// `by_len[0]` counts 1-byte characters (ASCII), up to `by_len[3]` for
    /// 4-byte characters.
    pub by_len: [u64; 4],
    /// In RFC 2279 and Corrected UTF-8 (counted by [`of_in`](Self::of_in)):
    /// sequences of 5 and 6 bytes, and Corrected UTF-8's reserved `FE`/`FF`
    /// runs. Without them, every lead byte from `F0` on counts in
    /// `by_len[3]`.
    pub long: [u64; 3],
}

impl CharCounts {
    /// Counts the characters of `text`, which must be well-formed UTF-8
    /// (otherwise the counts are meaningless, never unsafe). Each byte is
    /// classified alone (ASCII, continuation, lead of 2, 3 or 4 bytes), so
    /// counts of adjacent pieces add up to the count of the whole.
    pub fn of(text: &[u8]) -> CharCounts {
        count_by_class(text)
    }

    /// [`of`](Self::of), with a large input counted across the thread
    /// pool.
    pub fn of_parallel(text: &[u8]) -> CharCounts {
        use rayon::prelude::*;
        if text.len() < PARALLEL_MIN {
            return CharCounts::of(text);
        }
        crate::pool::ready();
        text.par_chunks(PARALLEL_MIN)
            .map(CharCounts::of)
            .reduce(CharCounts::default, |mut a, b| {
                a.add(&b);
                a
            })
    }

    /// The count of `text`, well formed in `dialect`: [`of`](Self::of), or
    /// [`of_parallel`](Self::of_parallel) when `parallel`, with the lead
    /// bytes of 5- and 6-byte sequences and of reserved runs counted apart
    /// in the dialects that have them.
    pub fn of_in(text: &[u8], dialect: Dialect, parallel: bool) -> CharCounts {
        let mut counts = if parallel {
            CharCounts::of_parallel(text)
        } else {
            CharCounts::of(text)
        };
        if crate::family::has_long_forms(dialect) {
            // Leads F8..FB, FC..FD and FE..FF: the bytes from F8, FC and FE
            // on, told apart by difference.
            let from = [0xF8, 0xFC, 0xFE].map(|min| count_at_least(text, min));
            counts.long = [from[0] - from[1], from[1] - from[2], from[2]];
            counts.by_len[3] -= from[0];
        }
        counts
    }

    /// Takes back a count taken before as part of a larger piece (the
    /// classification is per byte, so this is exact).
    pub fn sub(&mut self, other: &CharCounts) {
        let counts = self.by_len.iter_mut().chain(&mut self.long);
        for (a, b) in counts.zip(other.by_len.iter().chain(&other.long)) {
            *a = a.wrapping_sub(*b);
        }
    }

    /// Adds another count.
    pub fn add(&mut self, other: &CharCounts) {
        let counts = self.by_len.iter_mut().chain(&mut self.long);
        for (a, b) in counts.zip(other.by_len.iter().chain(&other.long)) {
            *a += b;
        }
    }

    /// All characters (sequences, and reserved runs).
    pub fn total(&self) -> u64 {
        self.by_len.iter().chain(&self.long).sum()
    }
}

/// Counts the bytes of `text` that are `min` or more.
fn count_at_least(text: &[u8], min: u8) -> u64 {
    count_bytes(text, |b| b >= min)
}

with_avx2! {
    /// [`CharCounts::of`].
    fn count_by_class(text: &[u8]) -> CharCounts {
        // ASCII, continuation bytes, 3-byte leads, 4-byte leads.
        let classes = |b: u8| {
            [
                u8::from(b < 0x80),
                u8::from(b & 0xC0 == 0x80),
                u8::from(b & 0xF0 == 0xE0),
                u8::from(b >= 0xF0),
            ]
        };
        let mut n = [0u64; 4];
        let mut blocks = text.chunks_exact(LANES * ROUNDS);
        for block in &mut blocks {
            let mut lanes = [[0u8; LANES]; 4];
            for round in block.chunks_exact(LANES) {
                for (j, &b) in round.iter().enumerate() {
                    for (class, hit) in classes(b).into_iter().enumerate() {
                        lanes[class][j] += hit;
                    }
                }
            }
            for (total, lanes) in n.iter_mut().zip(&lanes) {
                *total += lanes.iter().map(|&x| u64::from(x)).sum::<u64>();
            }
        }
        for &b in blocks.remainder() {
            for (total, hit) in n.iter_mut().zip(classes(b)) {
                *total += u64::from(hit);
            }
        }
        let two = text.len() as u64 - n[0] - n[1] - n[2] - n[3];
        CharCounts {
            by_len: [n[0], two, n[2], n[3]],
            long: [0; 3],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_characters() {
        let mut c = Cursor::default();
        c.advance("ab\nçé€".as_bytes());
        assert_eq!((c.line_number(), c.column_number()), (2, 4));
        c.advance("🌍\n\nxyz".as_bytes());
        assert_eq!((c.line_number(), c.column_number()), (4, 4));
        c.advance_invalid();
        assert_eq!(c.column_number(), 5);
        c.back(b"\xE2\x82");
        assert_eq!(c.column_number(), 4);
    }

    #[test]
    fn split_advances_equal_one_advance() {
        let text = "Grüße\nκόσμε\r\n日本語\n🌍x".as_bytes();
        let mut whole = Cursor::default();
        whole.advance(text);
        for cut in 0..=text.len() {
            let mut parts = Cursor::default();
            parts.advance(&text[..cut]);
            parts.advance(&text[cut..]);
            assert_eq!(parts, whole, "cut at {cut}");
        }
        assert_eq!((whole.line_number(), whole.column_number()), (4, 3));
    }

    #[test]
    fn lane_counts_equal_byte_counts() {
        // Every byte value, in every lane position, across block edges.
        let mut bytes: Vec<u8> = (0..=255u8).cycle().take(LANES * ROUNDS * 3 + 13).collect();
        bytes.extend((0..=255u8).rev().step_by(3));
        for start in 0..9 {
            let b = &bytes[start..];
            let newlines = b.iter().filter(|&&x| x == b'\n').count() as u64;
            let starts = b.iter().filter(|&&x| x & 0xC0 != 0x80).count() as u64;
            assert_eq!(count_newlines(b), newlines);
            assert_eq!(count_char_starts(b), starts);
            let mut by_class = [0u64; 4];
            for &x in b {
                match x {
                    0x00..=0x7F => by_class[0] += 1,
                    0x80..=0xBF => {}
                    0xC0..=0xDF => by_class[1] += 1,
                    0xE0..=0xEF => by_class[2] += 1,
                    _ => by_class[3] += 1,
                }
            }
            assert_eq!(CharCounts::of(b).by_len, by_class);
        }
    }

    #[test]
    fn parallel_counts_equal_sequential_ones() {
        let mut text = "Grüße\nκόσμε 🌍 日本語 ".repeat(150_000).into_bytes(); // 4.8 MB
        text.extend_from_slice(b"no newline at the end");
        for input in [&text[..], &text[..text.len() - 22], &text[5..1000]] {
            let (mut seq, mut par) = (Cursor::default(), Cursor::default());
            seq.advance(input);
            par.advance_parallel(input);
            assert_eq!(par, seq);
            assert_eq!(CharCounts::of_parallel(input), CharCounts::of(input));
        }
        let mut c = Cursor::default();
        c.advance_parallel(&text);
        assert_eq!((c.line_number(), c.column_number()), (150_001, 34));
    }

    #[test]
    fn counts_by_encoded_length() {
        let counts = CharCounts::of("aé€🌍b€".as_bytes());
        assert_eq!(counts.by_len, [2, 1, 2, 1]);
        assert_eq!(counts.total(), 6);
        let big = "é".repeat(70_000);
        assert_eq!(CharCounts::of(big.as_bytes()).by_len, [0, 70_000, 0, 0]);
    }
}
