//! The path for short inputs, the common case for parsers (keys, field
//! values). Calling a kernel costs a dispatch, vector constants and, below
//! one vector, a copy of the input into a padded buffer: more than the
//! check itself when the input is a few bytes long. So:
//!
//! * inputs of up to [`SHORT`] bytes that are all ASCII are recognised
//!   with a few overlapping loads, inlined into the caller of `validate`
//!   and `from_utf8` (which are these tests, the test of one 2-byte
//!   character, [`non_ascii_pair_is_valid`], and one call: the kernel's, or
//!   [`short_is_valid_out_of_line`]);
//! * non-ASCII inputs shorter than [`SHORT_DFA`] run a "shift DFA": the
//!   minimal UTF-8 automaton (9 states) packed so that one 64-bit table
//!   entry per byte holds the next state for every current state, 6 bits
//!   each. A step is a load that does not depend on the state and one
//!   shift that does: about a cycle per byte, with no branch;
//! * everything else goes to the kernel.
//!
//! The minimal automaton here is checked against the reference DFA on
//! every input of up to 3 bytes and on all 4-byte sequences with a 4-byte
//! lead byte (the tests of `validate` and `from_utf8`).

/// Inputs of up to this many bytes try the all-ASCII test first, and the
/// kernels leave them that test: the AVX-512 kernel checks a whole input
/// of up to 64 bytes with no ASCII shortcut, and the others scan for ASCII
/// only above this length. Testing inline up to 32 bytes only gained a
/// little on text strings of 64 bytes and lost more on ASCII ones
/// (docs/TUNING.md, "Inline ASCII test up to 64 bytes").
pub(crate) const SHORT: usize = 64;
/// Non-ASCII inputs shorter than this run the shift DFA instead of a kernel.
/// From 16 bytes on, a vector kernel checks the input in place with one or
/// two 16-byte vectors, no slower than the DFA's byte-serial chain there
/// (docs/TUNING.md, "Shift DFA below 16 bytes").
pub(crate) const SHORT_DFA: usize = 16;

use utf8guard_dfa::{ByteRange, WELL_FORMED};

const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_ne_bytes(w)
}

#[inline(always)]
fn half_word(bytes: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&bytes[at..at + 4]);
    u32::from_ne_bytes(w)
}

/// `true` when `bytes` is at most [`SHORT`] bytes long and all ASCII.
#[inline(always)]
pub(crate) fn is_short_ascii(bytes: &[u8]) -> bool {
    let len = bytes.len();
    if len > SHORT {
        return false;
    }
    if len >= 16 {
        long_is_ascii(bytes)
    } else if len >= 8 {
        (word(bytes, 0) | word(bytes, len - 8)) & HIGH_BITS == 0
    } else if len >= 4 {
        (half_word(bytes, 0) | half_word(bytes, len - 4)) & 0x8080_8080 == 0
    } else if len > 0 {
        // The first, middle and last byte: every byte of 1 to 3.
        (bytes[0] | bytes[len / 2] | bytes[len - 1]) < 0x80
    } else {
        true
    }
}

/// `true` when `bytes`, of 16 to [`SHORT`] bytes, is all ASCII: the first
/// and the last 16 bytes, and from 33 bytes on the first and the last 32,
/// in 16-byte vectors (SSE2, which every x86_64 CPU has): faster than the
/// 64-bit words below (docs/TUNING.md, "SSE2 ASCII test of 16 to 64
/// bytes").
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn long_is_ascii(bytes: &[u8]) -> bool {
    use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128};
    let len = bytes.len();
    debug_assert!((16..=SHORT).contains(&len));
    let at = |offset: usize| -> __m128i {
        let piece = &bytes[offset..offset + 16];
        // SAFETY: `piece` is 16 readable bytes; SSE2 is part of the
        // x86_64 baseline.
        unsafe { _mm_loadu_si128(piece.as_ptr().cast()) }
    };
    // SAFETY: SSE2 is part of the x86_64 baseline.
    unsafe {
        let mut acc = _mm_or_si128(at(0), at(len - 16));
        if len > 32 {
            acc = _mm_or_si128(acc, _mm_or_si128(at(16), at(len - 32)));
        }
        _mm_movemask_epi8(acc) == 0
    }
}

/// `true` when `bytes`, of 16 to [`SHORT`] bytes, is all ASCII: the first
/// and the last 16 bytes, and from 33 bytes on the first and the last 32,
/// as overlapping 64-bit words, a fixed number of them for each range of
/// lengths, so no loop.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn long_is_ascii(bytes: &[u8]) -> bool {
    let len = bytes.len();
    debug_assert!((16..=SHORT).contains(&len));
    let mut acc = word(bytes, 0) | word(bytes, 8) | word(bytes, len - 16) | word(bytes, len - 8);
    if len > 32 {
        acc |= word(bytes, 16) | word(bytes, 24) | word(bytes, len - 32) | word(bytes, len - 24);
    }
    acc & HIGH_BITS == 0
}

// The minimal automaton of Table 3-7. Its states other than reject are
// what a well-formed sequence still needs: the tails of the rows of
// `utf8guard_dfa::WELL_FORMED` (the empty tail is "between characters").
// Two places that need the same tail are one state, which is what makes it
// minimal: `E1..EC` and `EE..EF` both leave "two continuation bytes", and
// so does `F0 90..BF`. Strict UTF-8 has 8 tails, so 9 states: with 6 bits
// per state, a table entry holds at most 10.

/// A state is stored as its number times 6: the bit offset of its field in
/// a table entry.
const ACCEPT: u64 = 0;
const REJECT: u64 = 1;
/// Room for the states; [`Tails::count`] says how many there are.
const MAX_STATES: usize = 10;

/// The distinct row tails, numbered as states (0 the empty tail, 1 unused
/// for reject).
struct Tails {
    tails: [&'static [ByteRange]; MAX_STATES],
    count: usize,
}

const fn same_ranges(a: &[ByteRange], b: &[ByteRange]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i].0 != b[i].0 || a[i].1 != b[i].1 {
            return false;
        }
        i += 1;
    }
    true
}

impl Tails {
    const fn of(rows: &'static [&'static [ByteRange]]) -> Tails {
        let mut tails = Tails {
            tails: [&[]; MAX_STATES],
            count: 2,
        };
        let mut r = 0;
        while r < rows.len() {
            let mut depth = 1;
            while depth < rows[r].len() {
                let tail = rows[r].split_at(depth).1;
                if tails.find(tail) == tails.count {
                    assert!(tails.count < MAX_STATES, "too many states for 6-bit fields");
                    tails.tails[tails.count] = tail;
                    tails.count += 1;
                }
                depth += 1;
            }
            r += 1;
        }
        tails
    }

    /// The state whose tail is `tail` (`count` when there is none).
    const fn find(&self, tail: &[ByteRange]) -> usize {
        if tail.is_empty() {
            return ACCEPT as usize;
        }
        let mut s = 2;
        while s < self.count && !same_ranges(self.tails[s], tail) {
            s += 1;
        }
        s
    }
}

/// The states of the shift DFA, but reject.
const TAILS: Tails = Tails::of(&WELL_FORMED);

/// `SHIFT_TABLE[byte]`: bits `6s .. 6s + 6` hold `6 * next(s, byte)`.
static SHIFT_TABLE: [u64; 256] = {
    const ROWS: &[&[ByteRange]] = &WELL_FORMED;
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        // Every state rejects unless its tail, or from accept a row, goes on
        // with this byte.
        let mut entry = 0u64;
        let mut s = 0;
        while s < MAX_STATES {
            entry |= (REJECT * 6) << (s * 6);
            s += 1;
        }
        let byte = b as u8;
        let mut from = 0;
        while from < TAILS.count {
            let mut next = None;
            if from == ACCEPT as usize {
                let mut r = 0;
                while r < ROWS.len() {
                    let row = ROWS[r];
                    if row[0].0 <= byte && byte <= row[0].1 {
                        next = Some(TAILS.find(row.split_at(1).1));
                    }
                    r += 1;
                }
            } else if from != REJECT as usize {
                let tail = TAILS.tails[from];
                if tail[0].0 <= byte && byte <= tail[0].1 {
                    next = Some(TAILS.find(tail.split_at(1).1));
                }
            }
            if let Some(to) = next {
                entry &= !(63 << (from * 6));
                entry |= ((to as u64) * 6) << (from * 6);
            }
            from += 1;
        }
        table[b] = entry;
        b += 1;
    }
    table
};

/// A state of the shift DFA: its number times 6 in the low 6 bits (the
/// bits above them are left over from the table entry and ignored).
pub(crate) type ShiftState = u64;

/// The shift DFA's state between characters, and its start state.
pub(crate) const SHIFT_ACCEPT: ShiftState = ACCEPT * 6;
/// The shift DFA's state after an ill-formed byte; it never leaves it.
pub(crate) const SHIFT_REJECT: ShiftState = REJECT * 6;

/// The state after `byte` from `state`.
#[inline(always)]
pub(crate) fn shift_step(state: ShiftState, byte: u8) -> ShiftState {
    // Only the low 6 bits of `state` matter: `wrapping_shr` masks the
    // shift amount to them (one `shrx` on x86_64).
    SHIFT_TABLE[byte as usize].wrapping_shr(state as u32)
}

/// The state after `bytes` from `state`, reduced to its 6 bits:
/// [`SHIFT_ACCEPT`], [`SHIFT_REJECT`] or a state inside a character.
#[inline(always)]
pub(crate) fn shift_run(state: ShiftState, bytes: &[u8]) -> ShiftState {
    bytes.iter().fold(state, |s, &b| shift_step(s, b)) & 63
}

/// `true` when `bytes` is well-formed UTF-8, by the shift DFA.
#[inline(always)]
pub(crate) fn shift_dfa_is_valid(bytes: &[u8]) -> bool {
    shift_run(SHIFT_ACCEPT, bytes) == SHIFT_ACCEPT
}

/// `true` when `bytes`, shorter than [`SHORT_DFA`], is well-formed UTF-8.
/// One or two bytes are one test (ASCII, or one 2-byte character), where the
/// shift DFA's dependent steps were slower than std (docs/TUNING.md, "One
/// and two bytes"); other lengths run the DFA, with its steps unrolled for
/// three and four bytes ([`shift_dfa_accepts`]; docs/TUNING.md, "Unrolled
/// DFA for three and four bytes").
#[inline(always)]
pub(crate) fn short_is_valid(bytes: &[u8]) -> bool {
    match *bytes {
        [a] => a < 0x80,
        [a, b] => (a | b) < 0x80 || non_ascii_pair_is_valid(bytes),
        [a, b, c] => shift_dfa_accepts([a, b, c]),
        [a, b, c, d] => shift_dfa_accepts([a, b, c, d]),
        _ => shift_dfa_is_valid(bytes),
    }
}

/// [`shift_dfa_is_valid`] over exactly `N` bytes: its steps unrolled.
#[inline(always)]
pub(crate) fn shift_dfa_accepts<const N: usize>(bytes: [u8; N]) -> bool {
    bytes.into_iter().fold(SHIFT_ACCEPT, shift_step) & 63 == SHIFT_ACCEPT
}

/// `true` when `bytes`, of at most 2 bytes and not all ASCII, is
/// well-formed UTF-8: one 2-byte character. Inlined into the public
/// functions, where a call to the shift DFA cost more than std's whole
/// check on 2-byte strings (docs/TUNING.md, "One and two bytes").
#[inline(always)]
pub(crate) fn non_ascii_pair_is_valid(bytes: &[u8]) -> bool {
    // Table 3-7's row of 2-byte characters: a lead byte, then any
    // continuation byte (`b as i8 < -0x40`: `b` is `80..BF`).
    const LEADS: ByteRange = WELL_FORMED[1][0];
    const _: () = assert!(WELL_FORMED[1].len() == 2 && WELL_FORMED[1][1].0 == 0x80);
    const _: () = assert!(WELL_FORMED[1][1].1 == 0xBF);
    matches!(*bytes, [a, b] if (LEADS.0..=LEADS.1).contains(&a) && (b as i8) < -0x40)
}

/// [`short_is_valid`] out of line, for the public functions, which are
/// inlined into every caller: their code there stays the tests of ASCII and
/// of one 2-byte character, and one call (with the shift DFA inlined as
/// well, every short class was slower; docs/TUNING.md, "One and two
/// bytes").
#[inline(never)]
pub(crate) fn short_is_valid_out_of_line(bytes: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::has_bmi2() {
        // SAFETY: the CPU has BMI2.
        return unsafe { short_is_valid_bmi2(bytes) };
    }
    short_is_valid(bytes)
}

/// [`short_is_valid`] compiled for BMI2: the shift DFA's steps are one
/// `shrx` each, where `shr` by `cl` needs the state copied to `cl` first
/// (docs/TUNING.md, "Shift DFA compiled for BMI2").
///
/// # Safety
/// The CPU must have BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
unsafe fn short_is_valid_bmi2(bytes: &[u8]) -> bool {
    short_is_valid(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_dfa_matches_the_reference_on_short_inputs() {
        let mut input = [0u8; 3];
        for a in 0..=255u8 {
            assert_eq!(shift_dfa_is_valid(&[a]), utf8guard_dfa::is_valid(&[a]));
            assert_eq!(short_is_valid(&[a]), utf8guard_dfa::is_valid(&[a]));
            // Under Miri, a sample of the second bytes.
            let step = if cfg!(miri) { 15 } else { 1 };
            for b in (0..=255u8).step_by(step) {
                assert_eq!(
                    shift_dfa_is_valid(&[a, b]),
                    utf8guard_dfa::is_valid(&[a, b])
                );
                assert_eq!(short_is_valid(&[a, b]), utf8guard_dfa::is_valid(&[a, b]));
                if cfg!(miri) {
                    continue;
                }
                for c in 0..=255u8 {
                    input = [a, b, c];
                    let valid = utf8guard_dfa::is_valid(&input);
                    assert_eq!(shift_dfa_is_valid(&input), valid);
                    assert_eq!(short_is_valid(&input), valid);
                }
            }
        }
        let _ = input;
    }

    #[test]
    fn short_ascii_sees_every_byte_of_every_length() {
        for len in 0..SHORT + 8 {
            let ascii = [b'a'; SHORT + 8];
            assert_eq!(is_short_ascii(&ascii[..len]), len <= SHORT, "{len}");
            for at in 0..len {
                let mut bytes = ascii;
                bytes[at] = 0x80;
                assert!(!is_short_ascii(&bytes[..len]), "{len}, 0x80 at {at}");
            }
        }
    }

    #[test]
    fn the_minimal_automaton_has_nine_states() {
        // Accept, reject, and one state per distinct tail: one, two and
        // three continuation bytes, and the narrowed second bytes after
        // `E0`, `ED`, `F0` and `F4`.
        assert_eq!(TAILS.count, 9);
    }

    #[test]
    fn reject_is_absorbing() {
        assert!(!shift_dfa_is_valid(b"\xFFabc"));
        assert!(!shift_dfa_is_valid(b"\x80\xC3\xA9"));
        assert!(shift_dfa_is_valid("é€😀".as_bytes()));
    }
}
