//! What this CPU can run: every test of its features in the crate, made
//! once each (`cpufeatures` caches the answer), and its vendor. The kernels,
//! the dispatcher and the transcoders ask here, and nowhere else.

use crate::kernel::Kernel;

#[cfg(target_arch = "x86_64")]
cpufeatures::new!(cpuid_sse42, "ssse3", "sse4.1", "sse4.2");
#[cfg(target_arch = "x86_64")]
cpufeatures::new!(cpuid_avx2, "avx2");
#[cfg(target_arch = "x86_64")]
cpufeatures::new!(cpuid_avx512, "avx512f", "avx512bw", "bmi2");
#[cfg(target_arch = "x86_64")]
cpufeatures::new!(
    cpuid_avx512_vbmi,
    "avx512f",
    "avx512bw",
    "bmi2",
    "avx512vbmi"
);
#[cfg(target_arch = "x86_64")]
cpufeatures::new!(cpuid_bmi2, "bmi2");

/// `true` when the CPU this runs on can execute `kernel`.
pub(crate) fn can_run(kernel: Kernel) -> bool {
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

/// `true` when the CPU has what the AVX-512 kernel's `vpermb` entry points
/// need: the kernel's own features and AVX-512VBMI.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx512_vbmi() -> bool {
    cpuid_avx512_vbmi::get()
}

/// `true` when the CPU has BMI2: the shift DFA's copies compiled for it
/// (`small`, the scalar kernel) may run.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn has_bmi2() -> bool {
    cpuid_bmi2::get()
}

/// `true` on an x86_64 CPU whose vendor string is AMD's or Hygon's (never
/// under Miri, which has no CPUID).
pub(crate) fn is_amd() -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        // Leaf 0: the vendor string in EBX, EDX, ECX ("Auth" "enti"
        // "cAMD"); the first four bytes tell AMD and Hygon from Intel.
        // `unsafe` before Rust 1.95 (the crate's minimum is older).
        #[allow(unused_unsafe)]
        // SAFETY: every x86_64 CPU has the CPUID instruction, and leaf 0
        // exists on all of them.
        let leaf = unsafe { core::arch::x86_64::__cpuid(0) };
        let first = leaf.ebx.to_le_bytes();
        first == *b"Auth" || first == *b"Hygo"
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    false
}
