//! Choosing the kernel: detected once, cached, overridable.
//!
//! The choice is kept twice: its id in one atomic byte (for
//! [`active_kernel`](crate::active_kernel)) and its entry point in an atomic
//! pointer. The first call detects the CPU's features ([`crate::cpu`]),
//! honours `UTF8GUARD_KERNEL` (with the `std` feature; a value that names no
//! usable kernel is ignored) and stores both; every later call is a load of
//! the pointer and an indirect call. `validate` and `from_utf8` are inlined
//! into every caller, and this keeps their code there small; a `match` on
//! the id, a jump table and a call per kernel, made them too large for the
//! compiler to inline when they were only `#[inline]`, and every string
//! paid a call more (`strings/<class>/<n>` in the paired benchmark). Two
//! threads racing on the first call both detect and store the same answer.

use core::sync::atomic::{AtomicPtr, AtomicU8, Ordering};

use crate::kernel::Kernel;
use crate::{cpu, kernel};

const UNRESOLVED: u8 = 0;
static ACTIVE: AtomicU8 = AtomicU8::new(UNRESOLVED);

/// The fastest kernel this CPU supports.
pub(crate) fn detect() -> Kernel {
    Kernel::ALL
        .iter()
        .rev()
        .copied()
        .find(|&k| k.is_available())
        .unwrap_or(Kernel::Scalar)
}

/// The kernel `UTF8GUARD_KERNEL` names, if it is set and usable; a value
/// that is not is ignored, and `kernel_override` says why.
#[cfg(feature = "std")]
fn forced() -> Option<Kernel> {
    crate::env_override::forced()
}

#[cfg(not(feature = "std"))]
fn forced() -> Option<Kernel> {
    None
}

/// A kernel's entry point. `unsafe` because the x86 kernels require their
/// instruction set; one is stored in [`ENTRY`] only once that was checked.
pub(crate) type Entry = unsafe fn(&[u8]) -> Result<(), usize>;

/// The active kernel's entry point, or [`first_run`] until the first call
/// resolved it: one load and an indirect call per validation, where a match
/// on [`ACTIVE`] was a load, a jump table and a call.
static ENTRY: AtomicPtr<()> = AtomicPtr::new(first_run as Entry as *mut ());

/// The entry point of `kernel`, which must be available on this CPU.
fn entry(kernel: Kernel) -> Entry {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => kernel::avx512::strict_entry(),
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => kernel::avx2::validate,
        #[cfg(target_arch = "x86_64")]
        Kernel::Sse42 => kernel::sse42::validate,
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        Kernel::Neon => kernel::neon::validate,
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Kernel::Simd128 => kernel::simd128::validate,
        Kernel::Scalar => kernel::scalar::validate_out_of_line,
    }
}

/// Run the active kernel on a chunk of a long input the way a single call
/// on the whole input would: on a CPU that takes prefetch hints, with the
/// hints of a long input (the vector kernels' `validate_far_hinted`); on
/// one that does not, with the AVX-512 kernel's look-behind shifted in
/// (see [`crate::kernel::lookup`]'s `SHUFFLES_FROM`).
#[cfg(target_arch = "x86_64")]
pub(crate) fn run_far(bytes: &[u8]) -> Result<(), usize> {
    if kernel::lookup::memory().hints {
        let active = active();
        let vbmi = active == Kernel::Avx512 && cpu::has_avx512_vbmi();
        return match far_hinted_entry(active, vbmi) {
            // SAFETY: the entry point is the active kernel's, whose
            // features the CPU has (it was chosen for them), with VBMI
            // where the `vpermb` one is taken.
            Some(hinted) => unsafe { hinted(bytes) },
            None => run(bytes),
        };
    }
    if active() != Kernel::Avx512 {
        return run(bytes);
    }
    let far: Entry = if cpu::has_avx512_vbmi() {
        kernel::avx512::vbmi::validate_far
    } else {
        kernel::avx512::validate_shuffled
    };
    // SAFETY: the AVX-512 kernel is active, so the CPU has what it needs
    // (AVX-512F and BW, BMI2), and VBMI where its entry point is taken.
    unsafe { far(bytes) }
}

/// `kernel`'s entry point for a chunk of a long input on a CPU that takes
/// prefetch hints (the vector kernels' `validate_far_hinted`): for the
/// AVX-512 kernel the one with `vpermb` when `vbmi`, else the one with
/// `vpshufb`. `None` for the scalar kernel, which has none. Calling it
/// needs what the kernel needs, and AVX-512VBMI where `vbmi` chose it.
#[cfg(target_arch = "x86_64")]
pub(crate) fn far_hinted_entry(kernel: Kernel, vbmi: bool) -> Option<Entry> {
    Some(match kernel {
        Kernel::Avx512 if vbmi => kernel::avx512::vbmi::validate_far_hinted,
        Kernel::Avx512 => kernel::avx512::validate_far_hinted,
        Kernel::Avx2 => kernel::avx2::validate_far_hinted,
        Kernel::Sse42 => kernel::sse42::validate_far_hinted,
        Kernel::Scalar => return None,
    })
}

#[cold]
#[inline(never)]
fn resolve() -> Kernel {
    let kernel = forced().unwrap_or_else(detect);
    // The vector kernels' memory policy is this CPU's as well: decided
    // here, once, with the kernel.
    #[cfg(target_arch = "x86_64")]
    kernel::lookup::decide_memory();
    // A kernel chosen by `set` in the meantime stays chosen.
    if let Err(chosen) = ACTIVE.compare_exchange(
        UNRESOLVED,
        kernel as u8,
        Ordering::Relaxed,
        Ordering::Relaxed,
    ) {
        if let Some(chosen) = Kernel::from_id(chosen) {
            return chosen;
        }
    }
    ENTRY.store(entry(kernel) as *mut (), Ordering::Relaxed);
    kernel
}

/// Makes `kernel`, which must be available, the active kernel (see
/// [`crate::set_kernel`]). Every value either atomic holds, at any moment,
/// is an available kernel's: a reader that sees the old id with the new
/// entry point, or the reverse, runs a kernel this CPU has either way.
pub(crate) fn set(kernel: Kernel) -> Result<(), crate::kernel::KernelNameError> {
    if !kernel.is_available() {
        return Err(crate::kernel::KernelNameError::Unavailable);
    }
    ACTIVE.store(kernel as u8, Ordering::Relaxed);
    ENTRY.store(entry(kernel) as *mut (), Ordering::Relaxed);
    Ok(())
}

/// [`ENTRY`]'s value before the first call: resolve, then run.
#[cold]
#[inline(never)]
fn first_run(bytes: &[u8]) -> Result<(), usize> {
    resolve().run(bytes)
}

/// The kernel `validate` and `from_utf8` use.
pub(crate) fn active() -> Kernel {
    match Kernel::from_id(ACTIVE.load(Ordering::Relaxed)) {
        Some(kernel) => kernel,
        None => resolve(),
    }
}

/// The vectors the transcoders may use with the active kernel (see
/// [`level_for`]).
#[inline]
pub(crate) fn level() -> cpu::Level {
    level_for(active())
}

/// The [`Level`](cpu::Level) of `kernel` on this CPU: the AVX-512 levels
/// for the AVX-512 kernel, AVX2 for the AVX2 kernel, the baseline for the
/// others.
pub(crate) fn level_for(kernel: Kernel) -> cpu::Level {
    #[cfg(target_arch = "x86_64")]
    {
        let avx2 = cpu::has_avx2();
        match kernel {
            Kernel::Avx512 if avx2 && cpu::has_avx512() => {
                if cpu::has_avx512_vbmi() {
                    cpu::Level::Vbmi
                } else {
                    cpu::Level::Avx512
                }
            }
            Kernel::Avx2 | Kernel::Avx512 if avx2 => cpu::Level::Avx2,
            _ => cpu::Level::Scalar,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = kernel;
        cpu::Level::Scalar
    }
}

/// Run the active kernel.
#[inline(always)]
pub(crate) fn run(bytes: &[u8]) -> Result<(), usize> {
    let entry = ENTRY.load(Ordering::Relaxed);
    // SAFETY: `ENTRY` holds `first_run` or a value `resolve` stored, both
    // made from an `Entry` (a function pointer and a data pointer have the
    // same size on every target Rust supports, and the round trip through
    // `*mut ()` keeps the address). `resolve` stores only the entry of an
    // available kernel: detected, or forced, which is honoured only for an
    // available kernel; and so does `set`. So the instruction set the entry
    // requires is there.
    unsafe {
        let entry = core::mem::transmute::<*mut (), Entry>(entry);
        entry(bytes)
    }
}
