//! The portable kernel: the reference DFA, with ASCII skipped 16 bytes at a
//! time while it is between characters.

use utf8guard_dfa::State;

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
