//! The kernels: one generic SIMD algorithm ([`lookup`]) over a small vector
//! trait ([`simd`]), its instantiations per instruction set, the scalar
//! fallback, and [`locate`], which turns "the first bad block is here" (or,
//! from the x86 kernels, "the byte that shows the first error is here")
//! into an exact error.
//!
//! Every kernel has the same signature: `Ok(())` for valid input, or
//! `Err(offset)` where the bytes before `offset` are well formed apart from,
//! possibly, an unfinished character in their last 3 bytes. The kernels of
//! the other dialects ([`dialect_fn`]) keep the same contract with their
//! own longest sequence; [`check_dialect`] turns their answer into an exact
//! error.

mod choice;

// The dialects' tables serve the vector kernels; on a target with none of
// them only their names and automata are used.
#[cfg_attr(not(vector_kernels), allow(dead_code))]
pub(crate) mod dialects;
pub(crate) mod scalar;

#[cfg(vector_kernels)]
pub(crate) mod lookup;
#[cfg(vector_kernels)]
pub(crate) mod simd;
#[cfg(vector_kernels)]
pub(crate) mod simd_convert;

/// The entry points of an x86 kernel for vector type `$v` with target
/// features `$features` (which `$cpu` names in the docs): strict UTF-8's,
/// `validate`, and the two functions it calls out of line; the one for
/// `par`'s chunks of a long input; and the dialects' two.
///
/// With 64-byte vectors an input of up to 64 bytes is one masked load and
/// one check, with no test for ASCII first: `validate` and `from_utf8` have
/// tested it inline (`small::SHORT`), so a second ASCII test and two
/// 32-byte vectors in place only cost time (docs/TUNING.md, "Inline ASCII
/// test up to 64 bytes").
///
/// An ASCII string longer than that up to 1 KiB, and a text string of 64 B
/// to the straight check's bound that it passes, are done in the entry
/// point, which has no stack frame; an input under 64 bytes in `validate_text`,
/// whose frame is one `sub rsp`; the others, on to where an error is, in
/// `validate_located`, whose frame saves registers. Each other split was
/// slower (docs/TUNING.md, "Entry points in three functions"):
/// - the whole kernel in one function sets up the frame on every call;
/// - with the blocks' loop beside the straight check and the path of short
///   inputs in one function called from here, as it was, short text
///   strings paid that function's frame, and so they did with the
///   straight check in that function rather than here;
/// - a function of their own for inputs under 64 bytes, called from here,
///   gives this one a second callee, and LLVM then saves a register at its
///   entry, before the ASCII front.
#[cfg(target_arch = "x86_64")]
macro_rules! x86_entry_points {
    ($v:ty, $features:literal, $cpu:literal) => {
        /// Strict UTF-8 validation (see [`lookup::validate`] and
        /// `kernel::x86_entry_points`).
        ///
        /// # Safety
        #[doc = concat!("The CPU must support ", $cpu, ".")]
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn validate(bytes: &[u8]) -> Result<(), usize> {
            // SAFETY: this function's own contract.
            if let Some(whole) = unsafe { <$v as $crate::kernel::simd::SimdU8>::load_whole(bytes) }
            {
                // SAFETY: as above.
                return if unsafe { lookup::valid_whole::<$v, dialects::Utf8>(whole) } {
                    Ok(())
                } else {
                    Err(0)
                };
            }
            if bytes.len() <= crate::small::SHORT {
                // Not all ASCII (`crate::validate` tests that inline), and
                // not scanned for it: 35 to 64 bytes with 32-byte vectors
                // as two vectors ([`lookup::valid_pair`]). Laid out apart
                // (`lookup::apart`), so that the longer strings, which the
                // ASCII front scans, take the branches they took before.
                lookup::apart();
                if lookup::takes_pair::<$v, dialects::Utf8>(bytes.len()) {
                    // SAFETY: this function's own contract; the length is
                    // one `valid_pair` takes.
                    if unsafe { lookup::valid_pair::<$v, dialects::Utf8>(bytes) } {
                        return Ok(());
                    }
                // SAFETY: this function's own contract; 0 is what
                // `lookup::ascii_front` returns for an input this short.
                } else if unsafe { lookup::valid_straight::<$v, dialects::Utf8>(bytes, 0) } {
                    return Ok(());
                }
                // SAFETY: as above.
                return unsafe { validate_text(bytes, 0) };
            }
            // SAFETY: this function's own contract.
            let Some(start) = (unsafe {
                lookup::ascii_front::<$v, dialects::Utf8>(bytes, crate::small::SHORT + 1)
            }) else {
                return Ok(());
            };
            // SAFETY: as above; `start` is where the front left off.
            if unsafe { lookup::valid_straight::<$v, dialects::Utf8>(bytes, start) } {
                return Ok(());
            }
            // SAFETY: as above.
            unsafe { validate_text(bytes, start) }
        }

        /// [`validate`] of an input the straight check did not pass or did
        /// not take: one under 64 bytes here, the others in
        /// [`validate_located`].
        ///
        /// # Safety
        #[doc = concat!("The CPU must support ", $cpu, ", and `start` must be")]
        /// what [`lookup::ascii_front`] returned for `bytes`.
        #[target_feature(enable = $features)]
        #[inline(never)]
        unsafe fn validate_text(bytes: &[u8], start: usize) -> Result<(), usize> {
            if bytes.len() < lookup::BLOCK {
                // SAFETY: this function's own contract.
                return unsafe { lookup::validate_short::<$v, true, dialects::Utf8>(bytes) };
            }
            // SAFETY: as above; the input is at least a block long.
            unsafe { validate_located(bytes, start, false) }
        }

        /// [`validate`] of a piece of a longer input checked piece by piece
        /// (`par`'s chunks of a long input), on a CPU that takes prefetch
        /// hints: with the hints a single call on the whole input would
        /// send (`far` in [`lookup::validate_located`]).
        ///
        /// # Safety
        #[doc = concat!("The CPU must support ", $cpu, ".")]
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn validate_far_hinted(bytes: &[u8]) -> Result<(), usize> {
            if bytes.len() <= lookup::ASCII_SCAN_MAX {
                // SAFETY: this function's own contract.
                return unsafe { validate(bytes) };
            }
            // SAFETY: as above; 0 is where `lookup::ascii_front` starts an
            // input longer than `ASCII_SCAN_MAX`, which is longer than a
            // block.
            unsafe { validate_located(bytes, 0, true) }
        }

        /// [`validate_text`] of an input of at least 64 bytes: the blocks,
        /// which say where an error is; `far` as in
        /// [`lookup::validate_located`].
        ///
        /// # Safety
        /// As [`validate_text`], and `bytes` must be at least
        /// [`lookup::BLOCK`] long.
        #[target_feature(enable = $features)]
        #[inline(never)]
        unsafe fn validate_located(bytes: &[u8], start: usize, far: bool) -> Result<(), usize> {
            // SAFETY: this function's own contract.
            unsafe { lookup::validate_located::<$v, true, dialects::Utf8>(bytes, start, far) }
        }

        /// Validation of dialect `D` (see [`lookup::validate`]).
        ///
        /// # Safety
        #[doc = concat!("The CPU must support ", $cpu, ".")]
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn validate_dialect<D: Spec>(bytes: &[u8]) -> Result<(), usize> {
            // SAFETY: this function's own contract.
            unsafe { lookup::validate::<$v, true, D>(bytes) }
        }

        /// Validation of dialect `D`, a cheaper check over the whole input
        /// first: its screen, or strict UTF-8 (see
        /// [`dialects::dialect_first`]).
        ///
        /// # Safety
        #[doc = concat!("The CPU must support ", $cpu, ".")]
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn validate_dialect_first<D: Spec>(bytes: &[u8]) -> Result<(), usize> {
            // SAFETY: this function's own contract, for both checks.
            let first = unsafe {
                if D::SCREEN_FIRST {
                    lookup::validate::<$v, true, D::Screen>(bytes)
                } else {
                    validate(bytes)
                }
            };
            // SAFETY: as above.
            dialects::dialect_first::<D>(bytes, first, |rest| unsafe {
                validate_dialect::<D>(rest)
            })
        }
    };
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512;
#[cfg(target_arch = "x86_64")]
pub(crate) mod sse42;

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
pub(crate) mod neon;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub(crate) mod simd128;

pub use choice::{Kernel, KernelNameError};

use crate::bytes::{is_continuation, LEADS};
use crate::dialect::{Dialect, Inspection};
use crate::error::{ErrorKind, Utf8Error};
use utf8guard_dfa::{Automaton, Invalid, State};

/// A kernel's entry point for one dialect: the contract of the module.
///
/// # Safety
/// The CPU must support the kernel it was made for (see [`dialect_fn`]).
pub(crate) type DialectFn = unsafe fn(&[u8]) -> Result<(), usize>;

/// The entry point of `kernel` for `dialect`. Calling it is safe where
/// `kernel` is available.
pub(crate) fn dialect_fn(kernel: Kernel, dialect: Dialect) -> DialectFn {
    dialects::for_each_spec!(dialect, |S| match kernel {
        Kernel::Scalar => scalar::validate_dialect::<S> as DialectFn,
        #[cfg(target_arch = "x86_64")]
        Kernel::Sse42 => {
            plain_or_first::<S>(
                sse42::validate_dialect::<S>,
                sse42::validate_dialect_first::<S>,
            )
        }
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => {
            plain_or_first::<S>(
                avx2::validate_dialect::<S>,
                avx2::validate_dialect_first::<S>,
            )
        }
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => avx512::dialect_entry::<S>(),
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        Kernel::Neon => {
            plain_or_first::<S>(
                neon::validate_dialect::<S>,
                neon::validate_dialect_first::<S>,
            )
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Kernel::Simd128 => plain_or_first::<S>(
            simd128::validate_dialect::<S>,
            simd128::validate_dialect_first::<S>,
        ),
    })
}

/// A vector kernel's entry point for dialect `D`: `first`, its cheaper
/// check over the whole input first, for the dialects that have one
/// ([`dialects::Spec::SCREEN_FIRST`], [`dialects::Spec::UTF8_FIRST`]),
/// else `plain`.
#[cfg(vector_kernels)]
#[inline(always)]
fn plain_or_first<D: dialects::Spec>(plain: DialectFn, first: DialectFn) -> DialectFn {
    if D::SCREEN_FIRST || D::UTF8_FIRST {
        first
    } else {
        plain
    }
}

/// The vector check that passes exactly the well-formed UTF-8 without a
/// byte from `F0` on (and, with `no_nul`, without `00`): CESU-8's screen
/// (strict UTF-8's families but for the 4-byte sequences, which it flags
/// from their lead; with `no_nul`, [`dialects::BmpWithoutNul`]), run as a
/// dialect of its own. What UTF-8 text that goes into CESU-8 (modified
/// UTF-8) unchanged must be, in one pass over it. Its `Err` offset is a
/// kernel's: the bytes before it pass, but for a sequence it may cut and,
/// with `no_nul`, a `00` right before it. `None` for the scalar kernel,
/// whose automata are the dialects' own, not these checks.
pub(crate) fn bmp_utf8_fn(kernel: Kernel, no_nul: bool) -> Option<DialectFn> {
    fn pick<S: dialects::Spec>(kernel: Kernel) -> Option<DialectFn> {
        match kernel {
            Kernel::Scalar => None,
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse42 => Some(sse42::validate_dialect::<S>),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => Some(avx2::validate_dialect::<S>),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 if crate::cpu::has_avx512_vbmi() => {
                Some(avx512::vbmi::validate_dialect::<S>)
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => Some(avx512::validate_dialect::<S>),
            #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
            Kernel::Neon => Some(neon::validate_dialect::<S>),
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128 => Some(simd128::validate_dialect::<S>),
        }
    }
    if no_nul {
        pick::<dialects::BmpWithoutNul>(kernel)
    } else {
        pick::<dialects::Cesu8Screen>(kernel)
    }
}

/// Where a kernel's error may start: `offset` backed up over the unfinished
/// sequence it may be inside (to the nearest lead byte among the bytes a
/// sequence of the dialect may have before it), and, where a surrogate-pair
/// rule makes the sequence before matter, over a lead surrogate too. Not
/// before `floor`, where the automaton was between sequences.
fn sequence_start(dialect: Dialect, bytes: &[u8], offset: usize, floor: usize) -> usize {
    let automaton = dialect.automaton();
    let longest = automaton
        .grammar()
        .rows
        .iter()
        .map(|row| row.len())
        .max()
        .unwrap_or(1);
    let mut start = offset;
    // A `00` right before `offset` (where a dialect without it flags it: as
    // the byte before the flagged block's first) is a sequence of its own.
    if offset > floor && bytes[offset - 1] == 0 {
        start = offset - 1;
    }
    for back in 1..=(offset - floor).min(longest - 1) {
        let byte = bytes[offset - back];
        if byte >= 0xC0 {
            start = offset - back;
            break;
        }
        if byte < 0x80 {
            break;
        }
    }
    let pairs = dialects::for_each_spec!(dialect, |S| {
        <S as dialects::Spec>::PAIRS != dialects::Pairs::Free
    });
    if pairs {
        let lead_at =
            |q: usize| q + 1 < bytes.len() && bytes[q] == 0xED && bytes[q + 1] & 0xF0 == 0xA0;
        // A lead surrogate whose trail would be checked at `offset` or
        // later: the error may be that it has none (its second byte is at
        // most 3 bytes before the trail's).
        if let Some(q) = (offset.saturating_sub(4).max(floor)..offset).find(|&q| lead_at(q)) {
            start = start.min(q);
        }
        // The sequence at `start` may be a trail, whose lead decides.
        if start >= floor + 3 && lead_at(start - 3) {
            start -= 3;
        }
    }
    start
}

/// Where the automaton, run from `from` between sequences, stops.
enum Stop {
    /// At an ill-formed sequence.
    Error(Invalid),
    /// At the end of the input, well formed.
    End,
    /// At `at`, between sequences, at or after the point asked for.
    At(usize),
}

/// Run `automaton` over `bytes` from `from` (between sequences) until an
/// error, the end, or the first point at or after `until` where it is
/// between sequences in its plain state. Notes the first reserved run.
fn run_automaton(
    automaton: &Automaton,
    bytes: &[u8],
    from: usize,
    until: usize,
    first_run: &mut Option<usize>,
) -> Stop {
    let mut state = State::ACCEPT;
    let mut seq_start = from;
    for (i, &b) in bytes.iter().enumerate().skip(from) {
        if state == State::ACCEPT && i >= until {
            return Stop::At(i);
        }
        if automaton.is_accepting(state) {
            seq_start = i;
        }
        let next = automaton.next(state, b);
        if next == State::REJECT {
            return Stop::Error(Invalid {
                valid_up_to: seq_start,
                error_len: Some((i - seq_start).max(1)),
                fault: automaton.fault(state, &bytes[seq_start..=i]),
            });
        }
        if first_run.is_none() && automaton.in_run(next) {
            *first_run = Some(i);
        }
        state = next;
    }
    if automaton.is_accepting(state) {
        Stop::End
    } else {
        Stop::Error(Invalid {
            valid_up_to: seq_start,
            error_len: None,
            fault: utf8guard_dfa::Fault::Incomplete,
        })
    }
}

/// Check `bytes` as `dialect` with `kernel`: the kernel finds the first
/// block it flags, the dialect's automaton pins the error down from the
/// start of the sequence it is in, or (where the block is well formed
/// after all: Corrected UTF-8's reserved runs) goes on to the next point
/// between sequences past the block, from where the kernel takes over
/// again.
///
/// # Safety
/// The CPU must support `kernel`.
pub(crate) unsafe fn check_dialect(
    kernel: Kernel,
    dialect: Dialect,
    bytes: &[u8],
) -> Result<Inspection, Utf8Error> {
    // SAFETY: the caller's contract.
    let (inspection, result) = unsafe { check_dialect_part(kernel, dialect, bytes, true) };
    result.map(|()| inspection)
}

/// [`check_dialect`] on a part of an input that starts between sequences,
/// at its start (where a magic number may stand) or not. What was learned
/// is returned with the error too (it holds for the bytes before it).
///
/// # Safety
/// The CPU must support `kernel`.
pub(crate) unsafe fn check_dialect_part(
    kernel: Kernel,
    dialect: Dialect,
    bytes: &[u8],
    at_start: bool,
) -> (Inspection, Result<(), Utf8Error>) {
    // SAFETY: the caller guarantees that the CPU supports `kernel`, which
    // is what `dialect_fn`'s entry point needs.
    unsafe { check_dialect_with(dialect_fn(kernel, dialect), dialect, bytes, at_start) }
}

/// The AVX-512 kernel's entry point for `dialect` with `vpshufb` for the
/// nibble lookups, which [`dialect_fn`] does not choose on a CPU with
/// AVX-512VBMI for most dialects: for the tests (`__bench`).
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx512_vpshufb_dialect_fn(dialect: Dialect) -> DialectFn {
    dialects::for_each_spec!(dialect, |S| avx512::vpshufb_dialect_entry::<S>())
}

/// [`check_dialect_part`] with the kernel entry point `run` for `dialect`.
///
/// # Safety
/// The CPU must support what `run` needs.
pub(crate) unsafe fn check_dialect_with(
    run: DialectFn,
    dialect: Dialect,
    bytes: &[u8],
    at_start: bool,
) -> (Inspection, Result<(), Utf8Error>) {
    let automaton = dialect.automaton();
    let mut inspection = Inspection::default();
    let mut pos = 0;
    if let Some(magic) = automaton.grammar().magic.filter(|_| at_start) {
        if bytes.starts_with(magic) {
            pos = magic.len();
            inspection.magic_number = true;
        } else if magic.starts_with(bytes) {
            // A proper prefix of the magic number: a few bytes.
            let result = automaton.validate(bytes);
            return (inspection, result.map_err(|e| Utf8Error::from_dfa(0, e)));
        }
    }
    loop {
        // SAFETY: the caller guarantees that the CPU supports `kernel`.
        let Err(offset) = (unsafe { run(&bytes[pos..]) }) else {
            return (inspection, Ok(()));
        };
        let flagged = pos + offset;
        let from = sequence_start(dialect, bytes, flagged, pos);
        let until = flagged + FLAGGED_SPAN;
        match run_automaton(
            automaton,
            bytes,
            from,
            until,
            &mut inspection.first_reserved_run,
        ) {
            Stop::Error(invalid) => return (inspection, Err(Utf8Error::from_dfa(0, invalid))),
            Stop::End => return (inspection, Ok(())),
            Stop::At(at) => pos = at,
        }
    }
}

/// How far past a kernel's `Err(offset)` its error may lie: in the block
/// at `offset` or the one after it (the kernels test two 64-byte blocks at
/// a time), or in a sequence that ends there.
const FLAGGED_SPAN: usize = 2 * 64 + 8;

/// Where the character that a strict UTF-8 kernel's `Err(offset)` may be
/// inside starts: the bytes before `offset` (taken as at most
/// `bytes.len()`) are well formed but for an unfinished character in their
/// last 3 bytes, so the nearest lead byte among those, reached over
/// continuation bytes only, or else `offset` itself. Every byte before it
/// is well-formed UTF-8 and ends a character.
pub(crate) fn character_start(bytes: &[u8], offset: usize) -> usize {
    let offset = offset.min(bytes.len());
    for back in 1..=offset.min(3) {
        let byte = bytes[offset - back];
        if byte >= 0xC0 {
            // A lead byte: a character starts here.
            return offset - back;
        }
        if byte < 0x80 {
            // ASCII: the character after it starts at `offset`.
            break;
        }
    }
    offset
}

/// Find the exact first error of `bytes`, given a kernel's `Err(offset)`.
///
/// **The kernels' contract**, on which `from_utf8`'s soundness rests: a
/// kernel that returns `Err(offset)` promises that `bytes[..offset]` is
/// well formed but for a character that starts in its last 3 bytes and is
/// unfinished at `offset`; so the bytes before [`character_start`] are
/// valid UTF-8.
///
/// Backs up from `offset` to that character start (at most 3 bytes), then
/// decodes from there ([`first_error`]) up to the first error, inside the
/// block the kernel flagged (at most 3 bytes on, where the kernel names the
/// byte that shows it), or to the end. Returns `Ok` only when it decoded
/// to the end with no error: then all of `bytes` is valid, the part before
/// the start by the contract and the rest by the decoding.
pub(crate) fn locate(bytes: &[u8], offset: usize) -> Result<(), Utf8Error> {
    let start = character_start(bytes, offset);
    debug_assert!(
        core::str::from_utf8(&bytes[..start]).is_ok(),
        "a kernel broke its contract: an error before its offset {offset}"
    );
    first_error(bytes, start)
}

/// The first error of `bytes[start..]`, `start` being the start of a
/// character, with what the reference DFA would say of it (`valid_up_to`,
/// `error_len`, kind; a test holds the two to the same answers on every
/// sequence of up to 3 bytes, and of 4 from a 4-byte lead). The steps to
/// the error are strict UTF-8's own decoding ([`check_character`], which
/// the lossy conversion uses too), not the DFA: the DFA, generic over the
/// dialects, is slow to start, where this takes the few steps to the error
/// (docs/TUNING.md, "Locating an error"). The kind is the oracle's, from the
/// few bytes of the failed sequence.
fn first_error(bytes: &[u8], start: usize) -> Result<(), Utf8Error> {
    let mut i = start;
    while let Some(&lead) = bytes.get(i) {
        if lead < 0x80 {
            i += 1;
            continue;
        }
        match check_character(bytes, i) {
            Ok(width) => i += width,
            Err(None) => return Err(Utf8Error::new(i, None, ErrorKind::Incomplete)),
            Err(Some(n)) => return Err(Utf8Error::new(i, Some(n as u8), fault_at(bytes, i, n))),
        }
    }
    Ok(())
}

/// Why the maximal subpart of `n` bytes at `i` is ill formed: the
/// reference automaton's fault for the subpart and the byte that ended it
/// (a byte that cannot start a sequence ends its own subpart of one).
#[cold]
fn fault_at(bytes: &[u8], i: usize, n: usize) -> ErrorKind {
    let dfa = &utf8guard_dfa::UTF8;
    let read = if LEADS[usize::from(bytes[i])].width == 0 {
        0
    } else {
        n
    };
    let state = bytes[i..i + read]
        .iter()
        .fold(State::ACCEPT, |s, &b| dfa.next(s, b));
    ErrorKind::from(dfa.fault(state, &bytes[i..=i + read]))
}

/// Checks the character that starts with the non-ASCII byte `bytes[i]`:
/// `Ok(width)` when it is well formed; `Err(Some(n))` when the `n` bytes
/// from `i` are an ill-formed maximal subpart; `Err(None)` when the input
/// ends inside a character that could still be well formed.
#[inline]
pub(crate) fn check_character(bytes: &[u8], i: usize) -> Result<usize, Option<usize>> {
    let lead = LEADS[usize::from(bytes[i])];
    if lead.width < 2 {
        // A continuation byte, or one that never appears in UTF-8.
        return Err(Some(1));
    }
    let (low, high) = lead.second;
    match bytes.get(i + 1) {
        None => return Err(None),
        Some(&b) if b < low || b > high => return Err(Some(1)),
        Some(_) => {}
    }
    let width = usize::from(lead.width);
    for k in 2..width {
        match bytes.get(i + k) {
            None => return Err(None),
            Some(&b) if !is_continuation(b) => return Err(Some(k)),
            Some(_) => {}
        }
    }
    Ok(width)
}

/// Small enough for Miri: every available kernel on inputs of every length
/// up to a few blocks, each in an allocation of exactly its own size so
/// that a read past the end is caught.
#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use crate::kernel::Kernel;

    /// The vector kernels' block (where there are any, their `BLOCK`), and
    /// the scalar kernel's chunk: the lengths the tests probe around.
    const BLOCK: usize = 64;
    #[cfg(vector_kernels)]
    const _: () = assert!(BLOCK == super::lookup::BLOCK);

    /// `first_error` gives the DFA's answer (`valid_up_to`, `error_len`,
    /// kind) on every sequence of up to 3 bytes, on every 4-byte one that
    /// starts with a 4-byte lead (its last two bytes from a set that has
    /// each range the rules tell apart), and on 2-byte sequences after
    /// characters it must walk over. Not under Miri: there is no `unsafe`
    /// in `first_error`, and the millions of cases would take hours.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn first_error_gives_the_dfas_answer() {
        fn check(bytes: &[u8]) {
            let want =
                utf8guard_dfa::validate(bytes).map_err(|e| crate::error::Utf8Error::from_dfa(0, e));
            assert_eq!(super::first_error(bytes, 0), want, "{bytes:02X?}");
        }
        let every: Vec<u8> = (0..=255).collect();
        let ranges: &[u8] = &[
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
            0xE1, 0xED, 0xEF, 0xF0, 0xF3, 0xF4, 0xF5, 0xFF,
        ];
        check(&[]);
        for &a in &every {
            check(&[a]);
            for &b in &every {
                check(&[a, b]);
                check(&[b'a', 0xC3, 0xA9, 0xF0, 0x9F, 0x98, 0x80, a, b]);
                for &c in &every {
                    check(&[a, b, c]);
                }
                if (0xF0..=0xF4).contains(&a) {
                    for &c in ranges {
                        for &d in ranges {
                            check(&[a, b, c, d]);
                        }
                    }
                }
            }
        }
    }

    fn check_all_kernels(bytes: &[u8]) {
        let exact: Vec<u8> = bytes.to_vec();
        let expected = utf8guard_dfa::validate(&exact);
        for kernel in Kernel::available() {
            let got = kernel.from_utf8(&exact);
            match (got, expected) {
                (Ok(_), Ok(())) => {}
                (Err(e), Err(x)) => {
                    assert_eq!(e.valid_up_to(), x.valid_up_to, "{kernel} on {exact:02X?}");
                    assert_eq!(e.error_len(), x.error_len, "{kernel} on {exact:02X?}");
                }
                (got, _) => panic!("{kernel}: {got:?} vs {expected:?} on {exact:02X?}"),
            }
            assert_eq!(kernel.validate(&exact), expected.is_ok(), "{kernel}");
        }
        assert_eq!(
            crate::validate::validate(&exact),
            expected.is_ok(),
            "dispatched"
        );
    }

    #[test]
    fn kernels_enabled_at_compile_time_are_available() {
        // Under Miri, detection finds nothing; features enabled with
        // `-C target-feature` must still make their kernels run.
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        assert!(Kernel::Avx2.is_available());
        #[cfg(all(target_arch = "x86_64", target_feature = "sse4.2"))]
        assert!(Kernel::Sse42.is_available());
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        assert!(Kernel::Simd128.is_available());
        assert!(Kernel::Scalar.is_available());
    }

    #[test]
    fn vector_operations_match_their_definitions() {
        #[cfg(target_arch = "x86_64")]
        {
            if Kernel::Sse42.is_available() {
                // SAFETY: SSE4.2 was just detected.
                unsafe { super::simd::check_operations::<super::sse42::V128>() };
            }
            if Kernel::Avx2.is_available() {
                // SAFETY: AVX2 was just detected.
                unsafe { super::simd::check_operations::<super::avx2::V256>() };
            }
            if Kernel::Avx512.is_available() {
                // SAFETY: AVX-512F and BW were just detected.
                unsafe { super::simd::check_operations::<super::avx512::V512>() };
                if crate::cpu::has_avx512_vbmi() {
                    // SAFETY: AVX-512F, BW, BMI2 and VBMI were detected.
                    unsafe { super::simd::check_operations::<super::avx512::V512<true>>() };
                }
            }
        }
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        // SAFETY: NEON is enabled at compile time.
        unsafe {
            super::simd::check_operations::<super::neon::V128>()
        };
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: simd128 is enabled at compile time.
        unsafe {
            super::simd::check_operations::<super::simd128::V128>()
        };
    }

    #[test]
    fn every_length_up_to_three_blocks() {
        let text = "a€é😀".repeat(20);
        let text = text.as_bytes();
        let step = if cfg!(miri) { 7 } else { 1 };
        for len in (0..=3 * BLOCK + 3).step_by(step) {
            let len = len.min(text.len());
            check_all_kernels(&text[..len]);
            check_all_kernels(&std::vec![b'x'; len]);
        }
    }

    /// The lengths where the kernels change how they reach their bytes: a
    /// whole vector, a vector plus less than 3 bytes of look-behind for an
    /// overlapping last vector, a whole block, a block plus a tail too short
    /// for an overlapping last block. Every one of them under Miri too.
    #[test]
    fn lengths_at_vector_and_block_edges() {
        let text = "é€😀a".repeat(30);
        let text = text.as_bytes();
        let block = BLOCK;
        let mut lengths = std::vec::Vec::new();
        for edge in [16, 32, block, 2 * block, 4 * block] {
            lengths.extend(edge - 1..=edge + 4);
        }
        for len in lengths {
            check_all_kernels(&text[..len]);
            check_all_kernels(&std::vec![b'x'; len]);
            // An input that ends inside a character at that length.
            let mut cut = std::vec![b'y'; len];
            cut[len - 1] = 0xF0;
            check_all_kernels(&cut);
        }
    }

    #[test]
    fn errors_near_block_edges() {
        let base = std::vec![b'a'; 2 * BLOCK + 5];
        for at in [0, 1, 15, 16, 31, 32, 62, 63, 64, 65, 127, 128, 130, 132] {
            for bad in [&b"\xFF"[..], b"\xE2\x82", b"\xED\xA0\x80", b"\xF0\x9F\x98"] {
                let mut input = base.clone();
                let end = (at + bad.len()).min(input.len());
                input[at..end].copy_from_slice(&bad[..end - at]);
                check_all_kernels(&input);
                check_all_kernels(&input[..end]);
            }
        }
    }

    /// Inputs of ASCII with one character, one error or one unfinished
    /// sequence in them, at the lengths where the kernels' entry points
    /// scan for ASCII before the rest of the kernel takes over (64 B to
    /// 1 KiB) and around them, the character at every block's edges: the
    /// rest must start where the scan stopped, with the right look-behind.
    #[test]
    fn one_character_after_an_ascii_prefix() {
        let lengths = [
            63, 64, 65, 127, 128, 129, 255, 256, 257, 300, 511, 512, 1023, 1024, 1025,
        ];
        let pieces: [&[u8]; 5] = [
            b"\xC3\xA9",
            b"\xF0\x9F\x98\x80",
            b"\xFF",
            b"\xE2\x82",
            b"\xED\xA0\x80",
        ];
        let step = if cfg!(miri) { 5 } else { 1 };
        for &len in lengths.iter().step_by(step) {
            let mut places = std::vec![0, 1, len / 2, len - 1];
            for edge in (BLOCK..len).step_by(BLOCK) {
                places.extend([edge - 4, edge - 3, edge - 2, edge - 1, edge, edge + 1]);
            }
            for &at in &places {
                for piece in pieces {
                    let mut input = std::vec![b'a'; len];
                    let end = (at + piece.len()).min(len);
                    input[at..end].copy_from_slice(&piece[..end - at]);
                    check_all_kernels(&input);
                }
            }
        }
    }

    /// Every dialect on every available kernel against its automaton, in
    /// an allocation of exactly the input's size (Miri sees any read past
    /// it).
    fn check_all_kernels_dialect(dialect: crate::Dialect, bytes: &[u8]) {
        let exact: Vec<u8> = bytes.to_vec();
        let expected = dialect
            .automaton()
            .validate(&exact)
            .map_err(|e| (e.valid_up_to, e.error_len));
        for kernel in Kernel::available() {
            let got = kernel
                .check_dialect(dialect, &exact)
                .map_err(|e| (e.valid_up_to(), e.error_len()));
            assert_eq!(got, expected, "{dialect} on {kernel}: {exact:02X?}");
            assert_eq!(kernel.validate_dialect(dialect, &exact), expected.is_ok());
        }
        // The AVX-512 entry points with `vpshufb`, which a CPU with
        // AVX-512VBMI runs for only some dialects.
        #[cfg(target_arch = "x86_64")]
        if Kernel::Avx512.is_available() {
            let run = super::avx512_vpshufb_dialect_fn(dialect);
            // SAFETY: the AVX-512 kernel's features were just checked.
            let (_, got) = unsafe { super::check_dialect_with(run, dialect, &exact, true) };
            let got = got.map_err(|e| (e.valid_up_to(), e.error_len()));
            assert_eq!(got, expected, "{dialect} on avx512 (vpshufb): {exact:02X?}");
        }
    }

    /// The lengths around every vector and block edge, with text of each
    /// dialect (its longest sequences included) and with an error or an
    /// unfinished sequence at the end.
    #[test]
    fn dialects_at_vector_and_block_edges() {
        let pieces: [&[u8]; 7] = [
            "é€😀a".as_bytes(),
            b"a\xED\xA0\x80\xED\xB0\x80",
            b"\xED\xB0\x80\xED\xA0\x80b",
            b"\xED\xA0\xBD\xED\xB8\x80c",
            b"\xC0\x80\xED\xA0\xBDd",
            b"\xFD\xBF\xBF\xBF\xBF\xBF\xF8\x88\x80\x80\x80e",
            b"\xFC\x80\x80\x80\x80\x80\xFE\x80\x80f",
        ];
        let block = BLOCK;
        let mut lengths = std::vec::Vec::new();
        for edge in [16, 32, block, 2 * block + 3] {
            lengths.extend(edge - 1..=edge + 5);
        }
        let step = if cfg!(miri) { 3 } else { 1 };
        for (d, &dialect) in crate::Dialect::ALL.iter().enumerate() {
            for (p, piece) in pieces.into_iter().enumerate() {
                // Under Miri, the plain text and the dialect's own.
                if cfg!(miri) && p != 0 && p != d {
                    continue;
                }
                let text = piece.repeat(40);
                for &len in lengths.iter().step_by(step) {
                    check_all_kernels_dialect(dialect, &text[..len]);
                    let mut bad = text[..len].to_vec();
                    bad[len - 1] = 0xFF;
                    check_all_kernels_dialect(dialect, &bad);
                    bad[len - 1] = 0x00;
                    check_all_kernels_dialect(dialect, &bad);
                }
            }
        }
    }

    /// The kernels' spec of each dialect checks against the automaton that
    /// `Dialect` names (two lists of the same seven pairs).
    #[test]
    fn each_dialects_spec_has_the_dialects_automaton() {
        for &dialect in crate::dialect::Dialect::ALL {
            let spec = super::dialects::for_each_spec!(dialect, |S| {
                <S as super::dialects::Spec>::AUTOMATON
            });
            assert!(core::ptr::eq(spec, dialect.automaton()), "{dialect}");
        }
    }

    /// Every kernel's entry point for each dialect names the block of an
    /// error that follows a long well-formed prefix (its `Err(offset)` is
    /// at most [`super::FLAGGED_SPAN`] bytes before the error), also where
    /// the prefix holds the dialect's own forms, after which the entry
    /// points that check strict UTF-8 or the dialect's screen first
    /// (`Spec::UTF8_FIRST`, `Spec::SCREEN_FIRST`) go on with the dialect's
    /// check: the offset is the input's, not the part's.
    #[test]
    fn dialect_entry_points_name_the_block_of_the_error() {
        use crate::dialect::Dialect;
        for &dialect in Dialect::ALL {
            let encode = |cps: &[u32]| -> Vec<u8> {
                cps.iter()
                    .filter_map(|&cp| dialect.encode(cp).ok())
                    .flat_map(|e| e.to_vec())
                    .collect()
            };
            let text = encode(&[0xE9, 0x20AC, 0x61, 0x1_F600, 0x62]);
            // A lone surrogate, a 5-byte form: where the dialect has them.
            let own = encode(&[0xD800, 0x61, 0x20_0000, 0x63]);
            let cases: &[(usize, usize)] = if cfg!(miri) {
                &[(0, 200), (50, 70)]
            } else {
                &[(0, 200), (100, 1000), (1500, 3000), (50, 70)]
            };
            for &(prefix_at, len) in cases {
                let mut input = Vec::new();
                while input.len() < len {
                    if input.len() >= prefix_at && input.len() < prefix_at + text.len() {
                        input.extend_from_slice(&own);
                    }
                    input.extend_from_slice(&text);
                }
                let at = input.len();
                input.extend_from_slice(b"\x80");
                input.extend_from_slice(&text);
                let expected = dialect.automaton().validate(&input).unwrap_err();
                assert_eq!(expected.valid_up_to, at, "{dialect}");
                for kernel in Kernel::available() {
                    let run = super::dialect_fn(kernel, dialect);
                    // SAFETY: the kernel is available.
                    let offset = unsafe { run(&input) }.unwrap_err();
                    assert!(
                        offset <= at && at - offset <= super::FLAGGED_SPAN,
                        "{dialect} on {kernel}: Err({offset}), the error at {at} (own forms at {prefix_at})"
                    );
                }
            }
        }
    }

    #[test]
    fn locate_backs_up_to_the_character_start() {
        // The kernel flags the block at 64; the 4-byte character started at 62.
        let mut input = std::vec![b'a'; 62];
        input.extend_from_slice(b"\xF0\x9F\x98");
        let err = super::locate(&input, 64).unwrap_err();
        assert_eq!((err.valid_up_to(), err.error_len()), (62, None));
    }

    /// The x86 vector kernels return, for strict UTF-8, the byte at which
    /// their checks flag the first error (from the first block's end on,
    /// before a truncated end): 0 to 3 bytes after the start of the
    /// ill-formed sequence, whatever block or pair of blocks it falls in
    /// (`first_flagged` in the lookup algorithm).
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    #[test]
    fn vector_kernels_flag_the_byte_that_shows_the_error() {
        // Characters of each width, then the ill-formed sequences put in
        // place of one, each with how far after its start it shows.
        let pieces = ["a", "é", "€", "😀", "aé€😀"];
        let faults: [(&[u8], usize); 9] = [
            (b"\x80", 0),
            (b"\xFF", 1),
            (b"\xC0\xAF", 1),
            (b"\xC2A", 1),
            (b"\xE0\x80\x80", 1),
            (b"\xED\xA0\x80", 1),
            (b"\xE1\x80A", 2),
            (b"\xF4\x90\x80\x80", 1),
            (b"\xF1\x80\x80A", 3),
        ];
        for kernel in Kernel::available().filter(|&k| k != Kernel::Scalar) {
            for piece in pieces {
                let text = piece.repeat(1200);
                for len in [200, 1000, 4000] {
                    let clean = &text[..text.floor_char_boundary(len)];
                    for &(fault, shows) in &faults {
                        for at in (64..clean.len() - 8).step_by(7) {
                            let at = clean.ceil_char_boundary(at);
                            let mut bad = clean.as_bytes()[..at].to_vec();
                            bad.extend_from_slice(fault);
                            bad.extend_from_slice(&clean.as_bytes()[at..]);
                            assert_eq!(
                                kernel.run(&bad),
                                Err(at + shows),
                                "{kernel}: {fault:02X?} at {at} of {len} ({piece})"
                            );
                        }
                    }
                }
            }
        }
    }

    /// `bmp_utf8_fn`'s check passes exactly the well-formed UTF-8 without a
    /// byte from `F0` on, with every kernel that has one (every one but the
    /// scalar kernel): every pair of bytes, and every 4-byte character's
    /// lead, at each place around the end of a block in ASCII and in
    /// 2- and 3-byte text; and on a flagged input, the bytes before the
    /// character its offset may cut are such text.
    #[test]
    #[cfg_attr(miri, ignore)] // 65536 inputs per text and place per kernel
    fn bmp_utf8_check_passes_exactly_utf8_below_f0() {
        let texts = [b"abcdefgh".repeat(20), "é€".repeat(40).into_bytes()];
        let places = [
            0,
            1,
            BLOCK - 3,
            BLOCK - 2,
            BLOCK - 1,
            BLOCK,
            BLOCK + 1,
            2 * BLOCK - 1,
        ];
        for kernel in Kernel::available() {
            for no_nul in [false, true] {
                check_bmp_utf8(kernel, no_nul, &texts, &places);
            }
        }
    }

    fn check_bmp_utf8(kernel: Kernel, no_nul: bool, texts: &[Vec<u8>], places: &[usize]) {
        {
            let Some(check) = super::bmp_utf8_fn(kernel, no_nul) else {
                assert_eq!(kernel, Kernel::Scalar);
                return;
            };
            let mut inputs = Vec::new();
            for text in texts {
                for &at in places {
                    for a in 0..=255u8 {
                        for b in 0..=255u8 {
                            let mut input = text.clone();
                            input[at..at + 2].copy_from_slice(&[a, b]);
                            inputs.push(input);
                        }
                    }
                    let mut input = text.clone();
                    input[at..at + 4].copy_from_slice("😀".as_bytes());
                    inputs.push(input.clone());
                    inputs.push(input[..at + 3].to_vec());
                }
            }
            for input in &inputs {
                let inside = |b: &u8| *b < 0xF0 && (!no_nul || *b != 0);
                let want = core::str::from_utf8(input).is_ok() && input.iter().all(inside);
                // SAFETY: `kernel` is available.
                let got = unsafe { check(input) };
                assert_eq!(got.is_ok(), want, "{kernel} on {input:02X?}");
                if let Err(offset) = got {
                    let before = &input[..super::character_start(input, offset)];
                    assert!(
                        core::str::from_utf8(before).is_ok(),
                        "{kernel} {input:02X?}"
                    );
                    assert!(before.iter().all(|&b| b < 0xF0), "{kernel} {input:02X?}");
                }
            }
        }
    }
}
