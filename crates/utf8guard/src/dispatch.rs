//! Choosing the kernel: detected once, cached, overridable.
//!
//! The choice is kept in one atomic byte. The first call detects the CPU's
//! features (with `cpufeatures`), honours `UTF8GUARD_KERNEL` (with the `std`
//! feature; a value that names no usable kernel is ignored) and stores the
//! kernel; every later call is an atomic load and a direct call. Two threads racing on the first call both detect and store
//! the same answer.

use core::sync::atomic::{AtomicU8, Ordering};

use crate::kernel;
use crate::Kernel;

#[cfg(target_arch = "x86_64")]
cpufeatures::new!(cpuid_avx2, "avx2");
#[cfg(target_arch = "x86_64")]
cpufeatures::new!(cpuid_avx512, "avx512f", "avx512bw");
#[cfg(target_arch = "x86_64")]
cpufeatures::new!(cpuid_sse42, "ssse3", "sse4.1", "sse4.2");

/// The environment variable that forces a kernel.
pub const KERNEL_ENV: &str = "UTF8GUARD_KERNEL";

const UNRESOLVED: u8 = 0;
static ACTIVE: AtomicU8 = AtomicU8::new(UNRESOLVED);

/// `true` when the CPU this runs on can execute `kernel`.
pub(crate) fn is_available(kernel: Kernel) -> bool {
    match kernel {
        Kernel::Scalar => true,
        #[cfg(target_arch = "x86_64")]
        Kernel::Sse42 => cpuid_sse42::get(),
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => cpuid_avx2::get(),
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 => cpuid_avx512::get(),
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        Kernel::Neon => true,
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Kernel::Simd128 => true,
    }
}

/// The fastest kernel this CPU supports.
pub(crate) fn detect() -> Kernel {
    Kernel::ALL
        .iter()
        .rev()
        .copied()
        .find(|&k| is_available(k))
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

#[cold]
#[inline(never)]
fn resolve() -> Kernel {
    let kernel = forced().unwrap_or_else(detect);
    ACTIVE.store(kernel as u8, Ordering::Relaxed);
    kernel
}

/// The kernel `validate` and `from_utf8` use.
pub(crate) fn active() -> Kernel {
    match Kernel::from_id(ACTIVE.load(Ordering::Relaxed)) {
        Some(kernel) => kernel,
        None => resolve(),
    }
}

/// Run the active kernel.
#[inline]
pub(crate) fn run(bytes: &[u8]) -> Result<(), usize> {
    match ACTIVE.load(Ordering::Relaxed) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the id of AVX-512 is stored only after it was detected
        // (or forced, which is honoured only for an available kernel).
        id if id == Kernel::Avx512 as u8 => unsafe { kernel::avx512::validate(bytes) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for AVX2.
        id if id == Kernel::Avx2 as u8 => unsafe { kernel::avx2::validate(bytes) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, for SSE4.2.
        id if id == Kernel::Sse42 as u8 => unsafe { kernel::sse42::validate(bytes) },
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        id if id == Kernel::Neon as u8 => kernel::neon::validate(bytes),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        id if id == Kernel::Simd128 as u8 => kernel::simd128::validate(bytes),
        id if id == Kernel::Scalar as u8 => kernel::scalar::validate(bytes),
        _ => resolve().run(bytes),
    }
}
