//! Where the bytes come from: whether and how far ahead the main loop
//! sends prefetch hints ([`prefetch`]), and the length from which 64-byte
//! vectors shift their look-behind in instead of loading it. These choices
//! follow the memory an input most likely comes from and the CPU's vendor;
//! they change how fast the [algorithm](super) runs, not what it checks.
//! The two that depend on the CPU are one [`Memory`] value, decided once
//! for it. Each is explained in docs/TUNING.md.

use core::sync::atomic::{AtomicUsize, Ordering};

use super::rules::BLOCK;

// Named in the documentation only.
#[cfg(doc)]
use super::validate_located;

/// How far ahead of the bytes being checked the main loop asks for cache
/// lines, on x86_64 CPUs where [`Memory::hints`] says the hints pay, for inputs
/// shorter than [`REMOTE_FROM`]: into the first-level cache. The hardware
/// prefetchers alone leave a kernel that does more than read well below the
/// speed of a loop that only reads, on inputs that come from memory. See
/// docs/TUNING.md, "Prefetch distance", for the distances tried.
// Only x86_64 has the hints ([`prefetch`]).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const PREFETCH_DISTANCE: usize = 2048;

/// Inputs from this long on, most likely beyond the caches, are prefetched
/// [`REMOTE_DISTANCE`] ahead into the second-level cache instead (the
/// length from which 64-byte vectors shift their look-behind in where
/// there are no hints, [`SHUFFLES_FROM`]).
pub(super) const REMOTE_FROM: usize = SHUFFLES_FROM;

/// How far ahead the lines of an input of [`REMOTE_FROM`] bytes or more are
/// asked for, into the second-level cache (`prefetcht1`), where the
/// first-level hints [`PREFETCH_DISTANCE`] ahead left the kernels well below
/// the speed of a loop that reads with the same hints. On inputs in the
/// caches these hints cost speed, and shorter inputs gained nothing from
/// them: hence only from [`REMOTE_FROM`] on (docs/TUNING.md, "Far inputs:
/// second-level hints").
// Only x86_64 has the hints ([`prefetch`]).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const REMOTE_DISTANCE: usize = 8192;

/// Inputs from this long on are prefetched in runs of ASCII. Shorter ones
/// are likely in the caches, where the hints slow the ASCII loop (see
/// docs/TUNING.md, "Prefetch in runs of ASCII").
pub(super) const PREFETCH_MIN: usize = 1 << 20;

/// Inputs from this long on are prefetched in the blocks that are not all
/// ASCII. There the hints cost little in the caches, and the pieces of a
/// large input given one at a time, as a
/// [`StreamValidator`](crate::StreamValidator) is, get them too. Such a
/// piece of 64 KiB mostly starts with the last bytes of a character begun
/// in the piece before, which the stream checks with that character, so the
/// kernel sees the piece less those bytes: hence a block less than 64 KiB.
/// Starting lower slowed text in the caches (docs/TUNING.md, "Prefetch in
/// text").
pub(super) const PREFETCH_TEXT_MIN: usize = (64 << 10) - BLOCK;

/// The memory policy of the vector kernels on this CPU: whether the main
/// loop sends prefetch hints, and from which length 64-byte vectors take
/// their look-behind by shuffles. Decided once, when the kernel is chosen
/// (`dispatch`) or when a kernel called directly first needs it; the
/// benchmarks and tests set either part ([`force_hints`],
/// [`force_shuffles_from`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Memory {
    /// `true` when the main loop sends prefetch hints: on x86_64, unless
    /// the CPU is an AMD (or Hygon) one. There the hardware prefetchers
    /// alone keep up with memory and the hints slowed the kernels; on
    /// Intel they are what brings the kernels to the speed of reading
    /// (docs/TUNING.md, "No prefetch hints on AMD").
    pub(crate) hints: bool,
    /// Inputs from this long on take their look-behind bytes by shuffles
    /// of the vectors before, not by loads, with 64-byte vectors on CPUs
    /// without prefetch hints: [`SHUFFLES_FROM`] but in the tests.
    pub(crate) shuffles_from: usize,
}

impl Memory {
    /// This CPU's policy.
    fn for_this_cpu() -> Memory {
        Memory {
            hints: cfg!(target_arch = "x86_64") && !crate::cpu::is_amd(),
            shuffles_from: SHUFFLES_FROM,
        }
    }

    /// One word: the length, the hints and a bit that is set (0 is "not
    /// decided yet"). A length past what fits is as good as infinite.
    fn pack(self) -> usize {
        (self.shuffles_from.min(usize::MAX >> 2) << 2) | (usize::from(self.hints) << 1) | 1
    }

    fn unpack(word: usize) -> Memory {
        Memory {
            hints: word & 2 != 0,
            shuffles_from: word >> 2,
        }
    }
}

/// The [`Memory`] policy, packed; 0 until it is decided.
static POLICY: AtomicUsize = AtomicUsize::new(0);

/// The [`Memory`] policy: one load once it is decided.
#[inline(always)]
pub(crate) fn memory() -> Memory {
    match POLICY.load(Ordering::Relaxed) {
        0 => decide(),
        word => Memory::unpack(word),
    }
}

/// Decides this CPU's [`Memory`] policy, unless it is decided already.
#[cold]
#[inline(never)]
pub(crate) fn decide() -> Memory {
    let policy = Memory::for_this_cpu();
    match POLICY.compare_exchange(0, policy.pack(), Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => policy,
        Err(word) => Memory::unpack(word),
    }
}

/// Sets whether the main loop sends prefetch hints: `Some` forces them on
/// or off, `None` goes back to the CPU's default. For the benchmarks and
/// tests, which compare and cover both ways on any machine.
#[cfg(target_arch = "x86_64")]
pub(crate) fn force_hints(on: Option<bool>) {
    let policy = Memory {
        hints: on.unwrap_or_else(|| Memory::for_this_cpu().hints),
        ..memory()
    };
    POLICY.store(policy.pack(), Ordering::Relaxed);
}

/// Inputs from this long on take their look-behind bytes by shuffles of
/// the vectors before, not by loads, with 64-byte vectors on CPUs without
/// prefetch hints ([`Memory::hints`]). Each of the loads at offsets -1 to -3
/// spans two cache lines, which costs far more when the lines come from
/// memory; in the caches the loads are the faster way, and the two cross
/// near this length (docs/TUNING.md, "Shuffled look-behind for long
/// inputs").
pub(super) const SHUFFLES_FROM: usize = 16 << 20;

/// `true` when `par`'s chunks of an input of `len` bytes are to be checked
/// as pieces of a long input (`dispatch::run_far`), the way a single call
/// on the whole input would check them: their bytes come from beyond the
/// caches as much as its do. On a CPU without prefetch hints that is with
/// the look-behind shifted in, from [`SHUFFLES_FROM`] on; on one with them,
/// with the hints of a long input ([`validate_located`]'s `far`), which
/// from the same length on a single call sends ([`REMOTE_FROM`]) and the
/// chunks, shorter, did not (docs/TUNING.md, "Chunks of a long input in
/// par").
#[cfg(all(target_arch = "x86_64", feature = "rayon"))]
pub(crate) fn far_input(len: usize) -> bool {
    len >= memory().shuffles_from
}

/// `true` when a stream's pieces that walk one stretch of memory of `len`
/// bytes so far are to be checked with the look-behind shifted in: from an
/// eighth of [`SHUFFLES_FROM`] (2 MiB, past the second-level cache) on.
/// Lower than for a single call, because guessing wrong costs more one way
/// than the other: the shifts slow pieces of a buffer in the third-level
/// cache a little, the loads slow pieces of one beyond the caches much more
/// (docs/TUNING.md, "Streams: shuffled look-behind from 2 MiB").
#[cfg(target_arch = "x86_64")]
pub(crate) fn far_stream(len: usize) -> bool {
    let policy = memory();
    len >= policy.shuffles_from / 8 && !policy.hints
}

/// Sets the length from which 64-byte vectors take the look-behind by
/// shuffles (`None`: [`SHUFFLES_FROM`]), so that the tests cover that way
/// on short inputs.
#[cfg(target_arch = "x86_64")]
pub(crate) fn force_shuffles_from(len: Option<usize>) {
    let policy = Memory {
        shuffles_from: len.unwrap_or(SHUFFLES_FROM),
        ..memory()
    };
    POLICY.store(policy.pack(), Ordering::Relaxed);
}

/// A hint to bring the cache line of `bytes[at + ahead]` (of the last byte,
/// if that is past the end) closer: into the second-level cache
/// [`REMOTE_DISTANCE`] ahead when `remote`, else into the first-level cache
/// [`PREFETCH_DISTANCE`] ahead. Nothing on targets without such hints.
#[inline(always)]
pub(super) fn prefetch(bytes: &[u8], at: usize, remote: bool) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0, _MM_HINT_T1};
        let ahead = if remote {
            REMOTE_DISTANCE
        } else {
            PREFETCH_DISTANCE
        };
        let p = bytes
            .as_ptr()
            .wrapping_add((at + ahead).min(bytes.len().saturating_sub(1)));
        // SAFETY: a prefetch reads nothing the program sees and cannot
        // fault; SSE, which it needs, is part of x86_64. The address is in
        // the slice all the same.
        unsafe {
            if remote {
                _mm_prefetch::<_MM_HINT_T1>(p.cast());
            } else {
                _mm_prefetch::<_MM_HINT_T0>(p.cast());
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (bytes, at, remote);
}

#[cfg(test)]
mod tests {
    use super::{Memory, SHUFFLES_FROM};

    #[test]
    fn a_policy_is_one_word_that_is_never_zero() {
        for hints in [false, true] {
            for shuffles_from in [0, 1, 64, SHUFFLES_FROM, usize::MAX >> 2] {
                let policy = Memory {
                    hints,
                    shuffles_from,
                };
                assert_ne!(policy.pack(), 0);
                assert_eq!(Memory::unpack(policy.pack()), policy);
            }
            let endless = Memory {
                hints,
                shuffles_from: usize::MAX,
            };
            assert_eq!(
                Memory::unpack(endless.pack()).shuffles_from,
                usize::MAX >> 2
            );
        }
    }
}
