//! Where the bytes come from: whether and how far ahead the main loop
//! sends prefetch hints ([`hints_help`], [`prefetch`]), and the length from
//! which 64-byte vectors shift their look-behind in instead of loading it
//! ([`SHUFFLES_FROM`]). These choices follow the memory an input most
//! likely comes from and the CPU's vendor; they change how fast the
//! [algorithm](super) runs, not what it checks. Each is explained in
//! docs/TUNING.md.

use core::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

use super::rules::BLOCK;

// Named in the documentation only.
#[cfg(doc)]
use super::validate_located;

/// How far ahead of the bytes being checked the main loop asks for cache
/// lines, on x86_64 CPUs where [`hints_help`] says the hints pay, for inputs
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

/// Whether the main loop's prefetch hints are sent: [`HINTS_UNKNOWN`] until
/// the first input long enough for them asks [`hints_help`].
static HINTS: AtomicU8 = AtomicU8::new(HINTS_UNKNOWN);
const HINTS_UNKNOWN: u8 = 0;
const HINTS_ON: u8 = 1;
const HINTS_OFF: u8 = 2;

/// `true` when the main loop should send prefetch hints on this CPU: on
/// x86_64, unless it is an AMD (or Hygon) one. There the hardware
/// prefetchers alone keep up with memory and the hints slowed the kernels;
/// on Intel they are what brings the kernels to the speed of reading
/// (docs/TUNING.md, "No prefetch hints on AMD"). Asked once, for the first
/// input long enough to be prefetched; one load after that.
#[inline(always)]
pub(crate) fn hints_help() -> bool {
    match HINTS.load(Ordering::Relaxed) {
        HINTS_ON => true,
        HINTS_OFF => false,
        _ => decide_hints(),
    }
}

#[cold]
#[inline(never)]
fn decide_hints() -> bool {
    let on = cfg!(target_arch = "x86_64") && !crate::cpu::is_amd();
    HINTS.store(if on { HINTS_ON } else { HINTS_OFF }, Ordering::Relaxed);
    on
}

/// Sets whether the main loop sends prefetch hints: `Some` forces them on
/// or off, `None` goes back to the CPU's default ([`hints_help`]). For the
/// benchmarks and tests, which compare and cover both ways on any machine.
#[cfg(target_arch = "x86_64")]
pub(crate) fn force_hints(on: Option<bool>) {
    let value = match on {
        Some(true) => HINTS_ON,
        Some(false) => HINTS_OFF,
        None => HINTS_UNKNOWN,
    };
    HINTS.store(value, Ordering::Relaxed);
}

/// Inputs from this long on take their look-behind bytes by shuffles of
/// the vectors before, not by loads, with 64-byte vectors on CPUs without
/// prefetch hints ([`hints_help`]). Each of the loads at offsets -1 to -3
/// spans two cache lines, which costs far more when the lines come from
/// memory; in the caches the loads are the faster way, and the two cross
/// near this length (docs/TUNING.md, "Shuffled look-behind for long
/// inputs").
pub(super) const SHUFFLES_FROM: usize = 16 << 20;

/// [`SHUFFLES_FROM`], or what the tests set ([`force_shuffles_from`]).
static SHUFFLES_MIN: AtomicUsize = AtomicUsize::new(SHUFFLES_FROM);

#[inline(always)]
pub(super) fn shuffles_from() -> usize {
    SHUFFLES_MIN.load(Ordering::Relaxed)
}

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
    len >= shuffles_from()
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
    len >= shuffles_from() / 8 && !hints_help()
}

/// Sets the length from which 64-byte vectors take the look-behind by
/// shuffles (`None`: [`SHUFFLES_FROM`]), so that the tests cover that way
/// on short inputs.
#[cfg(target_arch = "x86_64")]
pub(crate) fn force_shuffles_from(len: Option<usize>) {
    SHUFFLES_MIN.store(len.unwrap_or(SHUFFLES_FROM), Ordering::Relaxed);
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
