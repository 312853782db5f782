//! The portable kernel: the reference DFA, with ASCII skipped 16 bytes at a
//! time while it is between characters. For the other dialects, their own
//! automata, the same way.

use utf8guard_dfa::State;

use super::dialects::Spec;

/// Bytes per ASCII-skipping step: two machine words.
const CHUNK: usize = 16;

/// `true` when none of the 16 bytes has its high bit set.
#[inline(always)]
fn is_ascii_chunk(chunk: &[u8; CHUNK]) -> bool {
    let (lo, hi) = chunk.split_at(8);
    let lo = u64::from_ne_bytes(lo.try_into().unwrap_or([0; 8]));
    let hi = u64::from_ne_bytes(hi.try_into().unwrap_or([0; 8]));
    (lo | hi) & 0x8080_8080_8080_8080 == 0
}

/// Validate `bytes`. `Err(offset)`: `offset` is where the first ill-formed
/// sequence starts (the same contract as the SIMD kernels, only sharper).
pub(crate) fn validate(bytes: &[u8]) -> Result<(), usize> {
    let mut state = State::ACCEPT;
    let mut seq_start = 0;
    let mut pos = 0;
    let mut chunks = bytes.chunks_exact(CHUNK);
    for chunk in &mut chunks {
        let chunk: &[u8; CHUNK] = chunk.try_into().unwrap_or(&[0; CHUNK]);
        if state == State::ACCEPT && is_ascii_chunk(chunk) {
            pos += CHUNK;
            continue;
        }
        for &b in chunk {
            if state == State::ACCEPT {
                seq_start = pos;
            }
            state = state.next(b);
            if state == State::REJECT {
                return Err(seq_start);
            }
            pos += 1;
        }
    }
    for &b in chunks.remainder() {
        if state == State::ACCEPT {
            seq_start = pos;
        }
        state = state.next(b);
        if state == State::REJECT {
            return Err(seq_start);
        }
        pos += 1;
    }
    if state == State::ACCEPT {
        Ok(())
    } else {
        Err(seq_start)
    }
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
    let mut chunks = bytes.chunks_exact(CHUNK);
    for chunk in &mut chunks {
        let chunk: &[u8; CHUNK] = chunk.try_into().unwrap_or(&[0; CHUNK]);
        if state == State::ACCEPT && is_ascii_chunk(chunk) {
            let (lo, hi) = chunk.split_at(8);
            let lo = u64::from_ne_bytes(lo.try_into().unwrap_or([0; 8]));
            let hi = u64::from_ne_bytes(hi.try_into().unwrap_or([0; 8]));
            if !S::NO_NUL || !(has_zero_byte(lo) || has_zero_byte(hi)) {
                pos += CHUNK;
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
