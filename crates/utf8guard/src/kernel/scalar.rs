//! The portable kernel: what every target without a vector kernel runs
//! (RISC-V, POWER, s390x, 32-bit ARM, WebAssembly without SIMD, `no_std`
//! builds), in plain Rust without `unsafe` (but for two calls on x86-64:
//! the same code compiled for BMI2, see [`validate_out_of_line`] and
//! [`validate_long`]). (The other
//! dialects of the UTF-8 family run their own automata here, with ASCII
//! skipped 16 bytes at a time: see [`validate_dialect`].)
//!
//! Bytes are either skipped as ASCII, 64 at a time, skipped as runs of
//! well-formed 4-byte characters, 8 at a time (and, but on x86-64, of
//! 3-byte ones, 6 at a time), or run through
//! the shift DFA of [`crate::small`]: one table load that does not depend on
//! the state and one shift that does, per byte, with no branch. Most of the
//! work is in switching between them cheaply:
//!
//! ```text
//! ASCII mode (between characters):
//!     skip 128-byte pairs of chunks while the OR of their 16 words has no
//!         high bit
//!     at a pair that is not all ASCII: its first non-ASCII byte p, word by
//!         word
//!     an isolated character (the common case in English text): run the DFA
//!         over the 4 bytes from p; if it ends between characters and the
//!         16 bytes after them are ASCII, carry on in ASCII mode after those
//!         20 bytes
//!     otherwise: DFA mode after those 4 bytes, in the DFA's state there
//!     (fewer than 147 bytes left: skip 64-byte chunks, then DFA mode from
//!         the first non-ASCII byte, from a mask of the last chunk's high
//!         bits)
//! DFA mode:
//!     between characters, skip a run of 4-byte characters (but on x86-64,
//!         or of 3-byte ones), two at a time with word operations (emoji;
//!         CJK); after a run of 64 bytes or more, the blocks start again
//!         from 32 bytes
//!     run the DFA over a block: 32 bytes, doubling up to 512 while the text
//!         stays non-ASCII, ended at a character start; from 256 bytes, two
//!         chains over the two halves of the block (split at a character
//!         start) take turns byte by byte, since each step of one chain
//!         waits for the step before it (on x86-64 the second chain takes
//!         its bytes out of 8-byte words)
//!     a block that ends in the reject state is where the error is
//!     back to ASCII mode when a block ends between characters and the next
//!         16 bytes are ASCII
//! ```
//!
//! Inputs shorter than 64 bytes take the word test for ASCII of
//! [`crate::small`], then the DFA over all their bytes.
//!
//! # Errors
//!
//! The DFA's reject state is absorbing, so a block is checked by its last
//! state only. The kernel returns the start of the block in which the DFA
//! rejected (or of the last block, when the input ends inside a character):
//! everything before it was accepted, up to a character that the block goes
//! on to finish, so `super::locate` finds the exact error from at most 3
//! bytes before it, scanning at most one block (under 1 KiB: a last block
//! takes in the rest of the input when that is less than another block).
//!
//! # Endianness
//!
//! Words are read with `from_ne_bytes` where only "does any byte have its
//! high bit set" is asked, which is the same question in either byte order;
//! where a byte's position is needed, with `from_le_bytes`, so that byte `i`
//! of a chunk is bits `8i..8i + 8` of its word on every target.

use crate::small::{self, shift_run, shift_step, ShiftState, SHIFT_ACCEPT, SHIFT_REJECT};

use utf8guard_dfa::State;

use super::dialects::Spec;

/// Bytes per ASCII test in ASCII mode.
const CHUNK: usize = 64;
/// Bytes the DFA runs over from the first non-ASCII byte of a chunk, for
/// an isolated character: the longest character.
const ISOLATED: usize = 4;
/// The first block of DFA mode.
const MIN_BLOCK: usize = 32;
/// The largest block, and so the most `locate` scans after an error.
const MAX_BLOCK: usize = 512;
/// Blocks at least this long run as two interleaved chains.
const TWO_CHAINS: usize = 256;
/// ASCII bytes after a block, or after an isolated character, that send
/// the kernel back to (or keep it in) ASCII mode.
const RESUME: usize = 16;
/// How far after the offset of an `Err` the error can be: within the last
/// block, which takes in the rest of the input when that is shorter than
/// two blocks.
#[cfg_attr(not(test), allow(dead_code))] // the contract of `validate`, tested
const MAX_ERROR_DISTANCE: usize = 2 * MAX_BLOCK;
/// Bytes per ASCII-skipping step of [`validate_dialect`]: two words.
const DIALECT_CHUNK: usize = 16;

const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// `true` when none of the `N` bytes (a multiple of 8) has its high bit
/// set: one test of the OR of their words.
#[inline(always)]
fn is_ascii_chunk<const N: usize>(chunk: &[u8; N]) -> bool {
    let (words, _) = chunk.as_chunks::<8>();
    let any = words.iter().fold(0, |acc, w| acc | u64::from_ne_bytes(*w));
    any & HIGH_BITS == 0
}

/// The number of bytes in the leading 128-byte pairs of chunks of `bytes`
/// that are all ASCII.
#[inline(always)]
fn ascii_pairs(bytes: &[u8]) -> usize {
    let (pairs, _) = bytes.as_chunks::<{ 2 * CHUNK }>();
    pairs.iter().take_while(|pair| is_ascii_chunk(pair)).count() * 2 * CHUNK
}

/// The number of bytes in the leading 64-byte chunks of `bytes` that are
/// all ASCII: the pairs of [`ascii_pairs`], then the chunk after them (the
/// first half of a pair that is not all ASCII, or a last lone chunk).
#[inline(always)]
fn ascii_chunks(bytes: &[u8]) -> usize {
    let skipped = ascii_pairs(bytes);
    match bytes[skipped..].first_chunk::<CHUNK>() {
        Some(chunk) if is_ascii_chunk(chunk) => skipped + CHUNK,
        _ => skipped,
    }
}

/// Bit `i` set when byte `i` of the chunk is not ASCII.
#[inline(always)]
fn non_ascii_mask(chunk: &[u8; CHUNK]) -> u64 {
    let (words, _) = chunk.as_chunks::<8>();
    let mut mask = 0;
    for (i, w) in words.iter().enumerate() {
        // Byte j of the word has its high bit at bit 8j + 7; the multiply
        // adds a copy of that bit at 56 + j for every j (the other copies
        // land elsewhere and never carry into the top byte).
        let high = u64::from_le_bytes(*w) & HIGH_BITS;
        mask |= (high.wrapping_mul(0x0002_0408_1020_4081) >> 56) << (8 * i);
    }
    mask
}

/// `1` for a continuation byte (`80..BF`), else `0`.
#[inline(always)]
fn continuation_bit(byte: u8) -> usize {
    usize::from((byte as i8) < -0x40)
}

/// `at` moved back to the start of the character it is in: at most 3
/// bytes, without a branch. With more than 3 continuation bytes before it
/// the input is ill formed, and the position returned is inside them.
/// Needs `3 <= at < bytes.len()`.
#[inline(always)]
fn character_start(bytes: &[u8], at: usize) -> usize {
    let back1 = continuation_bit(bytes[at]);
    let back2 = back1 & continuation_bit(bytes[at - 1]);
    let back3 = back2 & continuation_bit(bytes[at - 2]);
    at - back1 - back2 - back3
}

/// The DFA's state after `bytes[start..end]`, from `state` at `start`,
/// with two chains: the first from `state` up to the character start
/// nearest the middle, the second from there (from between characters).
/// The first must end between characters for the two to join.
/// Needs `end - start >= 8`.
///
/// The first chain loads its bytes one by one; with `WORDS`, the second
/// loads 8 at a time and takes each out of the word with a shift, else it
/// loads them one by one too. See [`SECOND_CHAIN_WORDS`].
#[inline(always)]
fn run_two_chains<const WORDS: bool>(
    state: ShiftState,
    bytes: &[u8],
    start: usize,
    end: usize,
) -> ShiftState {
    let middle = character_start(bytes, start + (end - start) / 2);
    let together = (middle - start).min(end - middle);
    let (mut first, mut second) = (state, SHIFT_ACCEPT);
    let firsts = &bytes[start..start + together];
    let seconds = &bytes[middle..middle + together];
    let (firsts, seconds) = if WORDS {
        let (first_words, first_rest) = firsts.as_chunks::<8>();
        let (second_words, second_rest) = seconds.as_chunks::<8>();
        for (a, b) in first_words.iter().zip(second_words) {
            let w = u64::from_le_bytes(*b);
            for (k, &a) in a.iter().enumerate() {
                first = shift_step(first, a);
                second = shift_step(second, (w >> (8 * k)) as u8);
            }
        }
        (first_rest, second_rest)
    } else {
        (firsts, seconds)
    };
    for (&a, &b) in firsts.iter().zip(seconds) {
        first = shift_step(first, a);
        second = shift_step(second, b);
    }
    // The halves differ by at most 3 bytes each way.
    let first = shift_run(first, &bytes[start + together..middle]);
    let second = shift_run(second, &bytes[middle + together..end]);
    if first == SHIFT_ACCEPT {
        second
    } else {
        SHIFT_REJECT
    }
}

/// Validate `bytes`. `Err(offset)`: the bytes before `offset` are a
/// well-formed prefix (possibly ending inside a character of which at most
/// 3 bytes precede `offset`), and the first error is less than
/// [`MAX_ERROR_DISTANCE`] bytes after it.
#[inline(always)]
pub(crate) fn validate(bytes: &[u8]) -> Result<(), usize> {
    // Short inputs here, inlined into the caller; the rest in a function of
    // its own, whose prologue (it needs many registers) they do not pay.
    let len = bytes.len();
    let valid = if len < 4 {
        small::short_is_valid(bytes)
    } else if len < CHUNK {
        small::is_short_ascii(bytes) || small::shift_dfa_is_valid(bytes)
    } else if len <= SHORT_ASCII_MAX && is_ascii_up_to_256(bytes) {
        true
    } else {
        return validate_long(bytes);
    };
    if valid {
        Ok(())
    } else {
        Err(0)
    }
}

/// [`validate`], not inlined: for callers that choose the kernel at run
/// time ([`crate::Kernel::Scalar`], the dispatcher). On x86-64 CPUs with
/// BMI2, compiled for it, as [`validate_long`] is: the shift DFA that
/// checks non-ASCII inputs of 4 to 63 bytes then takes one `shrx` with
/// the table entry as its memory operand per byte, where without BMI2
/// each step is a load, a copy of the state to `cl` and a `shr`
/// (docs/TUNING.md, "Shift DFA compiled for BMI2").
#[inline(never)]
pub(crate) fn validate_out_of_line(bytes: &[u8]) -> Result<(), usize> {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::has_bmi2() {
        // SAFETY: the CPU has BMI2.
        return unsafe { validate_bmi2(bytes) };
    }
    validate(bytes)
}

/// [`validate`] compiled for BMI2.
///
/// # Safety
/// The CPU must have BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
unsafe fn validate_bmi2(bytes: &[u8]) -> Result<(), usize> {
    validate(bytes)
}

/// Inputs up to this long are first tested for ASCII as a whole, before
/// [`validate_long`] is called.
const SHORT_ASCII_MAX: usize = 4 * CHUNK;

/// `true` when `bytes`, of 64 to 256 bytes, is all ASCII: its 64-byte
/// chunks, then its last 64 bytes.
#[inline(always)]
fn is_ascii_up_to_256(bytes: &[u8]) -> bool {
    let (chunks, _) = bytes.as_chunks::<CHUNK>();
    let last: &[u8; CHUNK] = bytes[bytes.len() - CHUNK..]
        .try_into()
        .unwrap_or(&[0x80; CHUNK]);
    chunks.iter().all(is_ascii_chunk) && is_ascii_chunk(last)
}

/// [`validate`] for inputs of at least [`CHUNK`] bytes.
///
/// On x86-64 CPUs with BMI2 the same code is compiled for it, which makes
/// the DFA's shifts `shrx` rather than `shr` by `cl`. The latter leaves the
/// flags as they were when the count is zero, so it depends on the flags
/// of the instruction before it, which may tie the two chains of a block
/// (meant to run side by side) together; `shrx` touches no flags. Without
/// BMI2 the speed also changed with where the loop fell in the binary;
/// with it, it is both steadier and faster (docs/TUNING.md, "Long loop
/// compiled for BMI2").
#[inline(never)]
fn validate_long(bytes: &[u8]) -> Result<(), usize> {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::has_bmi2() {
        // SAFETY: the CPU has BMI2.
        return unsafe { validate_long_bmi2(bytes) };
    }
    long(bytes)
}

/// [`validate_long`] compiled for BMI2.
///
/// # Safety
/// The CPU must have BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
unsafe fn validate_long_bmi2(bytes: &[u8]) -> Result<(), usize> {
    long(bytes)
}

/// The body of [`validate_long`].
#[inline(always)]
fn long(bytes: &[u8]) -> Result<(), usize> {
    let len = bytes.len();
    let mut pos = 0;
    let mut block = MIN_BLOCK;
    loop {
        // ASCII mode: `pos` is between characters.
        let ascii_start = pos;
        pos += ascii_pairs(&bytes[pos..]);
        let mut state = SHIFT_ACCEPT;
        if let Some(window) = bytes[pos..].first_chunk::<WINDOW>() {
            // The pair at `pos` is not all ASCII (`ascii_pairs` stopped at
            // it): its first non-ASCII byte, word by word. The loop's exit
            // is often mispredicted, but the instructions per character, not
            // the mispredictions, measured as the cost: masks of the pair's
            // high bits (as the tail below makes for one chunk) cost more.
            // (Were the pair all ASCII, skipping to byte 8 would still be
            // right.)
            let (pair, _) = window
                .split_first_chunk::<PAIR>()
                .unwrap_or((&[0; PAIR], &[]));
            let (words, _) = pair.as_chunks::<8>();
            let (word, high) = words
                .iter()
                .map(|w| u64::from_le_bytes(*w) & HIGH_BITS)
                .enumerate()
                .find(|&(_, high)| high != 0)
                .unwrap_or((0, 0));
            let first = 8 * word + (high.trailing_zeros() / 8) as usize;
            let after = first + ISOLATED;
            state = shift_run(SHIFT_ACCEPT, &window[first..after]);
            let next: &[u8; RESUME] = window[after..after + RESUME]
                .try_into()
                .unwrap_or(&[0x80; RESUME]);
            if state == SHIFT_ACCEPT && is_ascii_chunk(next) {
                // An isolated character: carry on in ASCII mode after it
                // and the ASCII bytes that follow.
                pos += after + RESUME;
                continue;
            }
            if state == SHIFT_REJECT {
                return Err(pos + first);
            }
            // The window ends inside a character, or more text follows:
            // DFA mode after it.
            pos += after;
        } else {
            // Fewer than `WINDOW` bytes left.
            pos += ascii_chunks(&bytes[pos..]);
            if pos == len {
                return Ok(());
            }
            // The last bytes, as the input's last whole chunk (`len >= 64`),
            // without the bytes before `pos`, already checked. (With 64
            // bytes or more left, the chunk at `pos`, which is not all
            // ASCII.)
            let base = (len - CHUNK).min(pos);
            let chunk: &[u8; CHUNK] = bytes[base..base + CHUNK].try_into().unwrap_or(&[0; CHUNK]);
            let mask = non_ascii_mask(chunk) >> (pos - base);
            if mask == 0 {
                return Ok(());
            }
            pos += mask.trailing_zeros() as usize;
        }
        if pos - ascii_start >= CHUNK {
            block = MIN_BLOCK;
        }

        // DFA mode: `pos` is a well-formed prefix, `state` the DFA's state
        // there.
        loop {
            if state == SHIFT_ACCEPT {
                let run_end = wide_run::<THREE_BYTE_RUNS>(bytes, pos);
                if run_end - pos >= WIDE_RESET {
                    block = MIN_BLOCK;
                }
                pos = run_end;
            }
            // A last block shorter than the one before it joins it; others
            // end at a character start, so that the next can begin with a
            // run of wide characters.
            let end = if len - pos <= 2 * block {
                len
            } else {
                character_start(bytes, pos + block)
            };
            // (A block of `TWO_CHAINS` bytes can end up to 3 bytes early at
            // a character start: it still runs as two chains.)
            let after = if end - pos >= TWO_CHAINS - 3 {
                run_two_chains::<SECOND_CHAIN_WORDS>(state, bytes, pos, end)
            } else {
                shift_run(state, &bytes[pos..end])
            };
            if after == SHIFT_REJECT || (end == len && after != SHIFT_ACCEPT) {
                return Err(pos);
            }
            if end == len {
                return Ok(());
            }
            pos = end;
            state = after;
            if block < MAX_BLOCK {
                block *= 2;
            }
            if state == SHIFT_ACCEPT
                && len - pos >= RESUME
                && is_ascii_chunk::<RESUME>(bytes[pos..pos + RESUME].try_into().unwrap_or(&[0; 16]))
            {
                break;
            }
        }
    }
}

/// Bytes per ASCII test in [`validate_long`]'s ASCII mode: two chunks.
const PAIR: usize = 2 * CHUNK;
/// The window of [`validate_long`]'s ASCII mode: a pair of chunks, and
/// after a character that starts at its end, the [`RESUME`] bytes that
/// must be ASCII for the kernel to stay in ASCII mode.
const WINDOW: usize = PAIR + ISOLATED + RESUME - 1;
/// A run of wide characters this long sends DFA mode back to its first
/// block size, to look for the next run soon after this one ends.
const WIDE_RESET: usize = 64;

/// Code points `>> 16` of 4-byte characters (bit set: allowed): planes 1 to
/// 16, not 0 (overlong) nor 17 and up (above U+10FFFF).
const FOUR_BYTE_PLANES: u32 = 0x0001_FFFE;
/// Code points `>> 11` of 3-byte characters: not 0 (overlong, below
/// U+0800) nor 27 (U+D800 to U+DFFF, surrogates).
const THREE_BYTE_TOPS: u32 = !(1 | 1 << 27);

/// Whether the second of [`run_two_chains`]'s chains takes its bytes out
/// of 8-byte words rather than loading each. On x86-64, where loading
/// every byte made two loads a byte in each chain (the byte, then its
/// table entry) and the loads set the pace. Not elsewhere: in WebAssembly
/// under Node.js the words made text slower (docs/TUNING.md, "Second chain
/// from words").
const SECOND_CHAIN_WORDS: bool = cfg!(target_arch = "x86_64");

/// Whether [`wide_run`] takes runs of 3-byte characters (CJK, Thai), two
/// at a time from 6 bytes. Not on x86-64, where the DFA's two chains
/// (with [`SECOND_CHAIN_WORDS`]) check them faster. In WebAssembly under
/// Node.js the runs are the faster (docs/TUNING.md, "Runs of wide
/// characters").
const THREE_BYTE_RUNS: bool = !cfg!(target_arch = "x86_64");

/// The end of the run of well-formed 4-byte characters (two per 8-byte
/// word) or, with `THREE`, of 3-byte characters (two per 6 bytes) that
/// starts at `pos`, which is between characters: `pos` itself if there is
/// none. Text in one script of these widths (emoji; CJK) is mostly such
/// runs, checked here faster than by the DFA a byte at a time
/// (docs/TUNING.md, "Runs of wide characters"). `THREE` is
/// [`THREE_BYTE_RUNS`] but in tests.
#[inline(always)]
fn wide_run<const THREE: bool>(bytes: &[u8], pos: usize) -> usize {
    match bytes.get(pos) {
        // Lead bytes F0..F7 at bytes 0 and 4, continuation bytes else; each
        // character's code point >> 16 from the lead's 3 bits and the top 2
        // bits of the first continuation's 6.
        Some(0xF0..) => pairs_of_characters::<8>(
            bytes,
            pos,
            (0xC0C0_C0F8_C0C0_C0F8, 0x8080_80F0_8080_80F0),
            FOUR_BYTE_PLANES,
            |w| {
                (
                    (w & 7) << 2 | (w >> 12) & 3,
                    (w >> 32 & 7) << 2 | (w >> 44) & 3,
                )
            },
        ),
        // Lead bytes E0..EF at bytes 0 and 3, continuation bytes at 1, 2, 4
        // and 5 (bytes 6 and 7 are the next pair's); code point >> 11 from
        // the lead's 4 bits and the top bit of the first continuation's 6.
        Some(0xE0..=0xEF) if THREE => pairs_of_characters::<6>(
            bytes,
            pos,
            (0xC0C0_F0C0_C0F0, 0x8080_E080_80E0),
            THREE_BYTE_TOPS,
            |w| {
                (
                    (w & 0xF) << 1 | (w >> 13) & 1,
                    (w >> 24 & 0xF) << 1 | (w >> 37) & 1,
                )
            },
        ),
        _ => pos,
    }
}

/// [`wide_run`] for characters of `WIDTH / 2` bytes: pairs of them taken
/// from `pos` while the 8 bytes read there, under `pattern.0`, are
/// `pattern.1` (lead and continuation bytes where they belong) and both
/// characters' top code point bits (by `tops`, 5 bits each) are allowed.
#[inline(always)]
fn pairs_of_characters<const WIDTH: usize>(
    bytes: &[u8],
    mut pos: usize,
    pattern: (u64, u64),
    allowed: u32,
    tops: impl Fn(u64) -> (u64, u64),
) -> usize {
    while let Some(word) = bytes[pos..].first_chunk::<8>() {
        let w = u64::from_le_bytes(*word);
        if w & pattern.0 != pattern.1 {
            break;
        }
        let (top0, top1) = tops(w);
        if (allowed >> top0) & (allowed >> top1) & 1 == 0 {
            break;
        }
        pos += WIDTH;
    }
    pos
}

/// `true` when the word has a `00` byte (exact: a borrow out of a zero
/// byte is the only way a high bit can be set in `w - 0x01..01` where `w`
/// had none).
#[inline(always)]
fn has_zero_byte(w: u64) -> bool {
    w.wrapping_sub(0x0101_0101_0101_0101) & !w & 0x8080_8080_8080_8080 != 0
}

/// Validate `bytes` as the dialect `S` by its automaton. `Err(offset)`:
/// `offset` is where the first ill-formed sequence starts, or where a
/// reserved run starts (which is well formed: as with the vector kernels,
/// the caller's automaton goes over it).
pub(crate) fn validate_dialect<S: Spec>(bytes: &[u8]) -> Result<(), usize> {
    let automaton = S::AUTOMATON;
    let mut state = State::ACCEPT;
    let mut seq_start = 0;
    let mut pos = 0;
    let step = |state: &mut State, seq_start: &mut usize, pos: usize, b: u8| {
        if automaton.is_accepting(*state) {
            *seq_start = pos;
        }
        *state = automaton.next(*state, b);
        *state == State::REJECT || automaton.in_run(*state)
    };
    let mut chunks = bytes.chunks_exact(DIALECT_CHUNK);
    for chunk in &mut chunks {
        let chunk: &[u8; DIALECT_CHUNK] = chunk.try_into().unwrap_or(&[0; DIALECT_CHUNK]);
        if state == State::ACCEPT && is_ascii_chunk(chunk) {
            let (lo, hi) = chunk.split_at(8);
            let lo = u64::from_ne_bytes(lo.try_into().unwrap_or([0; 8]));
            let hi = u64::from_ne_bytes(hi.try_into().unwrap_or([0; 8]));
            if !S::NO_NUL || !(has_zero_byte(lo) || has_zero_byte(hi)) {
                pos += DIALECT_CHUNK;
                continue;
            }
        }
        for &b in chunk {
            if step(&mut state, &mut seq_start, pos, b) {
                return Err(seq_start);
            }
            pos += 1;
        }
    }
    for &b in chunks.remainder() {
        if step(&mut state, &mut seq_start, pos, b) {
            return Err(seq_start);
        }
        pos += 1;
    }
    if automaton.is_accepting(state) {
        Ok(())
    } else {
        Err(seq_start)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;

    /// The kernel against the reference DFA: the same verdict, an `Err`
    /// offset that keeps the kernels' contract and is close to the error,
    /// and the exact error once located.
    fn check(bytes: &[u8]) {
        let expected = utf8guard_dfa::validate(bytes);
        match (validate(bytes), expected) {
            (Ok(()), Ok(())) => {}
            (Err(offset), Err(e)) => {
                assert!(
                    offset <= e.valid_up_to + 3,
                    "{offset} vs {e:?} on {bytes:02X?}"
                );
                assert!(
                    e.valid_up_to < offset + MAX_ERROR_DISTANCE,
                    "{offset} vs {e:?}"
                );
                // The bytes before the offset are a prefix of valid text:
                // nothing wrong in them but a character cut at the end.
                if let Err(before) = utf8guard_dfa::validate(&bytes[..offset]) {
                    assert_eq!(before.error_len, None, "{offset} on {bytes:02X?}");
                }
                let located = super::super::locate(bytes, offset).unwrap_err();
                assert_eq!(
                    (located.valid_up_to(), located.error_len()),
                    (e.valid_up_to, e.error_len),
                    "located from {offset} in {bytes:02X?}"
                );
            }
            (got, _) => panic!("{got:?} vs {expected:?} on {bytes:02X?}"),
        }
    }

    /// Cheaper inputs under Miri. (The kernel has no `unsafe` code, so
    /// Miri can find nothing here that the tests do not; the heavier tests
    /// are left to native runs.)
    fn step() -> usize {
        if cfg!(miri) {
            29
        } else {
            1
        }
    }

    const BAD: [&[u8]; 7] = [
        b"\x80",             // stray continuation
        b"\xFF",             // never in UTF-8
        b"\xC3",             // cut short (before ASCII or a lead byte)
        b"\xE0\x80\x80",     // overlong
        b"\xED\xA0\x80",     // surrogate
        b"\xF4\x90\x80\x80", // above U+10FFFF
        b"\xF0\x9F\x98",     // cut short
    ];

    #[test]
    fn mask_marks_exactly_the_non_ascii_bytes() {
        for i in 0..CHUNK {
            for j in i..CHUNK {
                let mut chunk = [b'a'; CHUNK];
                chunk[i] = 0x80 | i as u8;
                chunk[j] = 0xFF;
                assert_eq!(non_ascii_mask(&chunk), (1 << i) | (1 << j), "{i} {j}");
            }
        }
        assert_eq!(non_ascii_mask(&[0x7F; CHUNK]), 0);
        assert_eq!(non_ascii_mask(&[0x80; CHUNK]), u64::MAX);
    }

    #[test]
    fn character_start_backs_up_at_most_three_bytes() {
        let text = "a€😀é".as_bytes(); // 61 E2 82 AC F0 9F 98 80 C3 A9
        let starts: Vec<usize> = (3..text.len())
            .map(|at| character_start(text, at))
            .collect();
        assert_eq!(starts, [1, 4, 4, 4, 4, 8, 8]);
        // Four continuation bytes: no start within reach.
        assert_eq!(character_start(b"\x80\x80\x80\x80\x80", 4), 1);
    }

    #[test]
    fn two_chains_agree_with_one() {
        let text = "aé€😀".repeat(40);
        let mut bytes = text.into_bytes();
        let len = bytes.len();
        for bad_at in [
            None,
            Some(5),
            Some(len / 2 - 2),
            Some(len / 2),
            Some(len - 1),
        ] {
            if let Some(at) = bad_at {
                bytes[at] = 0xFF;
            }
            for start in 0..8 {
                for end in (start + 8..len).step_by(3 * step()) {
                    let state = shift_run(SHIFT_ACCEPT, &bytes[..start]);
                    for state in [SHIFT_ACCEPT, state] {
                        let one = shift_run(state, &bytes[start..end]);
                        let words = run_two_chains::<true>(state, &bytes, start, end);
                        let loads = run_two_chains::<false>(state, &bytes, start, end);
                        assert_eq!(words, one, "{start}..{end}, 0xFF at {bad_at:?}");
                        assert_eq!(loads, one, "{start}..{end}, 0xFF at {bad_at:?}");
                    }
                }
            }
        }
    }

    /// Every length to past the largest block, in ASCII, in text of each
    /// character width, and in text that alternates: every way the last
    /// chunk, the tail mask and the last block can fall.
    #[test]
    #[cfg_attr(miri, ignore)] // see `step`
    fn every_length_in_each_kind_of_text() {
        let texts = [
            "abcdefg ".repeat(300),
            "é".repeat(1200),
            "€".repeat(800),
            "😀".repeat(600),
            "ab€ é😀 ".repeat(200),
        ];
        for text in &texts {
            let bytes = text.as_bytes();
            for len in (0..=bytes.len().min(2100)).step_by(step()) {
                check(&bytes[..len]);
                check(&bytes[bytes.len() - len..]);
            }
        }
    }

    /// One character at every offset of the 128-byte pair of chunks that
    /// follows ASCII, alone or with a second one (or an error) at every
    /// offset of the window after it (the 4 bytes the DFA runs over, the 16
    /// that must be ASCII) and some beyond: the isolated-character path and
    /// every way out of it, near the end of the input too.
    #[test]
    #[cfg_attr(miri, ignore)] // see `step`
    fn characters_at_every_offset_of_a_pair() {
        let chars: [&[u8]; 5] = [
            "é".as_bytes(),
            "€".as_bytes(),
            "😀".as_bytes(),
            b"\xE2\x82",
            b"\xFF",
        ];
        for prefix in [64, 65, PAIR + 7] {
            for first in (0..PAIR).step_by(step()) {
                for c in chars {
                    let mut input = std::vec![b'x'; prefix + PAIR + WINDOW];
                    let at = prefix + first;
                    input[at..at + c.len()].copy_from_slice(c);
                    check(&input);
                    check(&input[..(at + c.len()).min(input.len())]);
                    check(&input[..at + WINDOW]);
                    let seconds = (first + 1..first + ISOLATED + RESUME + 2)
                        .chain((first + ISOLATED + RESUME + 2..first + PAIR).step_by(13));
                    for second in seconds.step_by(step()) {
                        for d in ["ü".as_bytes(), b"\x80", b"\xF0\x9F\x98\x80"] {
                            let mut input = input.clone();
                            let at = prefix + second;
                            input[at..at + d.len()].copy_from_slice(d);
                            check(&input);
                        }
                    }
                }
            }
        }
    }

    /// Each error at every offset of dense text and of text with ASCII runs,
    /// across the blocks of DFA mode (32, 64, 128, then 256 and 512 with two
    /// chains) and the middle of two-chain blocks.
    #[test]
    #[cfg_attr(miri, ignore)] // see `step`
    fn errors_at_every_offset_of_dfa_blocks() {
        let dense = "дж€😀".repeat(250);
        let sparse = "Größe of the text 😀 and more ASCII words here. ".repeat(60);
        // Runs of wide characters (the first and last of each range among
        // them), and runs cut by ASCII and narrower characters.
        let three = "中文\u{800}\u{D7FF}\u{E000}\u{FFFF}字符".repeat(100);
        let four = "😀🚀\u{10000}\u{10FFFF}".repeat(110);
        let cut = "中文字符中文字符中文 a😀🚀😀🚀😀🚀😀é中文字".repeat(40);
        let texts = [&dense, &sparse, &three, &four, &cut];
        for text in texts.map(|t| t.as_bytes()) {
            for bad in BAD {
                let step = if cfg!(miri) { 97 } else { 1 };
                for at in (0..text.len().min(1600)).step_by(step) {
                    // A malformation at `at` (at a character start or not).
                    let mut input = text[..1700.min(text.len())].to_vec();
                    let end = (at + bad.len()).min(input.len());
                    input[at..end].copy_from_slice(&bad[..end - at]);
                    check(&input);
                    // The input cut inside the malformation.
                    check(&input[..end]);
                }
            }
        }
    }

    /// `wide_run` takes a pair of 3-byte (with `THREE`) or 4-byte characters
    /// exactly when both are well formed by the reference DFA: each lead
    /// byte of the width with every second byte, and third (and fourth)
    /// bytes in and out of the continuation range, in either character of a
    /// pair, after two well-formed pairs. Without `THREE`, no 3-byte
    /// characters. Each input is also validated whole.
    #[test]
    #[cfg_attr(miri, ignore)] // see `step`
    fn wide_runs_take_exactly_the_well_formed_pairs() {
        let well_formed = |pair: &[u8], width: usize| {
            pair.chunks(width).all(|c| {
                c[0] >= 0xF0 - 0x10 * (4 - width as u8) && utf8guard_dfa::validate(c).is_ok()
            })
        };
        assert_eq!(wide_run::<false>("中文中文字符".as_bytes(), 0), 0);
        // (A pair is read as 8 bytes: the last pair, with 6 left, is not taken.)
        assert_eq!(wide_run::<true>("中文中文字符".as_bytes(), 0), 12);
        let tails = [0x80, 0xBF, 0x41, 0xC0];
        for (width, good, leads) in [(3, "中文", 0xE0..=0xEF), (4, "😀🚀", 0xF0..=0xF7)] {
            for lead in leads {
                for second in 0..=255 {
                    for (third, last) in tails.into_iter().zip([0x80, 0x41, 0xBF, 0x80]) {
                        for slot in [0, width] {
                            let mut pair = good.as_bytes().to_vec();
                            pair[slot..slot + 3].copy_from_slice(&[lead, second, third]);
                            if width == 4 {
                                pair[slot + 3] = last;
                            }
                            let mut input = good.repeat(2).into_bytes();
                            input.extend_from_slice(&pair);
                            input.extend_from_slice(good.as_bytes());
                            input.extend_from_slice(b"tail");
                            let mut expected = 0;
                            while input.len() - expected >= 8
                                && well_formed(&input[expected..expected + 2 * width], width)
                            {
                                expected += 2 * width;
                            }
                            assert_eq!(wide_run::<true>(&input, 0), expected, "{input:02X?}");
                            let without = if width == 3 { 0 } else { expected };
                            assert_eq!(wide_run::<false>(&input, 0), without, "{input:02X?}");
                            // The same through the kernel: after ASCII, a
                            // character and two ASCII bytes, DFA mode starts
                            // between characters at the run.
                            let mut long = std::vec![b'.'; 70];
                            long.extend_from_slice("жab".as_bytes());
                            long.extend_from_slice(&input);
                            long.extend_from_slice(&[b'.'; 64]);
                            check(&long);
                        }
                    }
                }
            }
        }
    }

    /// Blocks that end between characters before exactly 15, 16 or 17 bytes
    /// of ASCII: the way back to ASCII mode, and the ways it is refused.
    #[test]
    #[cfg_attr(miri, ignore)] // see `step`
    fn back_to_ascii_after_a_block() {
        for run in 0..100 {
            for ascii in [0, 1, 15, 16, 17, 63, 64, 65, 130] {
                let mut input = "дж".repeat(run).into_bytes();
                input.extend(std::iter::repeat_n(b'z', ascii));
                input.extend_from_slice("ü€".as_bytes());
                input.extend(std::iter::repeat_n(b'z', 70));
                check(&input);
                let at = 2 * run + ascii;
                input[at] = 0x80;
                check(&input);
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)] // see `step`
    fn long_inputs_with_every_block_size() {
        let mut text = "ascii only, ".repeat(100).into_bytes();
        text.extend_from_slice("日本語のテキスト".repeat(200).as_bytes());
        text.extend_from_slice(
            "mostly ASCII with an é now and then; "
                .repeat(100)
                .as_bytes(),
        );
        check(&text);
        let len = text.len();
        for at in (0..len).step_by(if cfg!(miri) { 997 } else { 7 }) {
            let mut bad = text.clone();
            bad[at] = 0xC0;
            check(&bad);
        }
    }
}
