//! Line and column of a byte offset, and character counts by encoded length.
//!
//! Lines are counted by `\n` bytes. A column counts characters: every byte
//! that does not continue a character (`80..BF`) starts one, and an invalid
//! sequence counts as one character, the U+FFFD that `repair` would put in
//! its place. Both are 1-based in reports.

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

/// `count` over `bytes`, in 1 MiB pieces on the rayon pool.
fn par_sum(bytes: &[u8], count: fn(&[u8]) -> u64) -> u64 {
    use rayon::prelude::*;
    bytes.par_chunks(PARALLEL_MIN).map(count).sum()
}

fn memrchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().rposition(|&b| b == b'\n')
}

// Counting is done eight bytes at a time in a u64 ("SWAR"): a test sets the
// top bit of each byte lane, `>> 7` turns that into 0 or 1 per lane, and
// up to 255 words are summed lane-wise before the lanes are added up. The
// compiler turns these loops into vector code; a plain per-byte loop gets
// vectorized across the wrong dimension and runs several times slower.

const HIGH: u64 = 0x8080_8080_8080_8080;
const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
/// Words summed per block: a lane holds at most 255.
const WORDS: usize = 255;

#[inline(always)]
fn word(bytes: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(bytes);
    u64::from_le_bytes(w)
}

/// The sum of a u64's eight byte lanes.
#[inline(always)]
fn lane_sum(acc: u64) -> u64 {
    let pairs = (acc & 0x00FF_00FF_00FF_00FF) + ((acc >> 8) & 0x00FF_00FF_00FF_00FF);
    pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48
}

/// Top bit of each byte lane of `x` set where that byte is `\n`.
#[inline(always)]
fn newline_flags(x: u64) -> u64 {
    let y = x ^ 0x0A0A_0A0A_0A0A_0A0A;
    // Zero lanes of `y`, exactly: no carry crosses a lane.
    !(((y & LOW7) + LOW7) | y)
}

/// Top bit of each byte lane set where the byte is a continuation byte
/// (top bits `10`).
#[inline(always)]
fn continuation_flags(x: u64) -> u64 {
    x & !(x << 1)
}

#[inline(always)]
fn count_flags(bytes: &[u8], flags: impl Fn(u64) -> u64, byte: impl Fn(u8) -> bool) -> u64 {
    let mut total = 0u64;
    let mut blocks = bytes.chunks_exact(8 * WORDS);
    for block in &mut blocks {
        let mut acc = 0u64;
        for w in block.chunks_exact(8) {
            acc += (flags(word(w)) & HIGH) >> 7;
        }
        total += lane_sum(acc);
    }
    total + blocks.remainder().iter().filter(|&&b| byte(b)).count() as u64
}

/// Counts `\n` bytes.
fn count_newlines(bytes: &[u8]) -> u64 {
    count_flags(bytes, newline_flags, |b| b == b'\n')
}

/// Counts bytes that are not continuation bytes: characters, for UTF-8.
fn count_char_starts(bytes: &[u8]) -> u64 {
    bytes.len() as u64 - count_flags(bytes, continuation_flags, |b| b & 0xC0 == 0x80)
}

/// Characters of well-formed UTF-8, by encoded length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CharCounts {
    /// `by_len[0]` counts 1-byte characters (ASCII), up to `by_len[3]` for
    /// 4-byte characters.
    pub by_len: [u64; 4],
}

impl CharCounts {
    /// Counts the characters of `text`, which must be well-formed UTF-8
    /// (otherwise the counts are meaningless, never unsafe). Each byte is
    /// classified alone (ASCII, continuation, lead of 2, 3 or 4 bytes), so
    /// counts of adjacent pieces add up to the count of the whole.
    pub fn of(text: &[u8]) -> CharCounts {
        let mut n = [0u64; 4]; // ASCII, continuation, 3-byte leads, 4-byte leads
        let mut blocks = text.chunks_exact(8 * WORDS);
        for block in &mut blocks {
            let mut acc = [0u64; 4];
            for w in block.chunks_exact(8) {
                let x = word(w);
                let (b6, b5, b4) = (x << 1, x << 2, x << 3);
                let lead3 = x & b6 & b5;
                acc[0] += (!x & HIGH) >> 7;
                acc[1] += (x & !b6 & HIGH) >> 7;
                acc[2] += (lead3 & !b4 & HIGH) >> 7;
                acc[3] += (lead3 & b4 & HIGH) >> 7;
            }
            for (total, lanes) in n.iter_mut().zip(acc) {
                *total += lane_sum(lanes);
            }
        }
        for &b in blocks.remainder() {
            n[0] += u64::from(b < 0x80);
            n[1] += u64::from(b & 0xC0 == 0x80);
            n[2] += u64::from(b & 0xF0 == 0xE0);
            n[3] += u64::from(b >= 0xF0);
        }
        let two = text.len() as u64 - n[0] - n[1] - n[2] - n[3];
        CharCounts {
            by_len: [n[0], two, n[2], n[3]],
        }
    }

    /// [`of`](Self::of), with a large input counted across the thread
    /// pool.
    pub fn of_parallel(text: &[u8]) -> CharCounts {
        use rayon::prelude::*;
        if text.len() < PARALLEL_MIN {
            return CharCounts::of(text);
        }
        text.par_chunks(PARALLEL_MIN)
            .map(CharCounts::of)
            .reduce(CharCounts::default, |mut a, b| {
                a.add(&b);
                a
            })
    }

    /// Takes back the count of `bytes`, counted before as part of a larger
    /// piece (the classification is per byte, so this is exact).
    pub fn sub_bytes(&mut self, bytes: &[u8]) {
        let other = CharCounts::of(bytes);
        for (a, b) in self.by_len.iter_mut().zip(other.by_len) {
            *a = a.wrapping_sub(b);
        }
    }

    /// Adds another count.
    pub fn add(&mut self, other: &CharCounts) {
        for (a, b) in self.by_len.iter_mut().zip(other.by_len) {
            *a += b;
        }
    }

    /// All characters.
    pub fn total(&self) -> u64 {
        self.by_len.iter().sum()
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
    fn word_at_a_time_counts_equal_byte_counts() {
        // Every byte value, in every lane position, across block edges.
        let mut bytes: Vec<u8> = (0..=255u8).cycle().take(8 * WORDS * 3 + 13).collect();
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
