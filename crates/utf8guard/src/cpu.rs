//! What this CPU can run: every test of its features in the crate, made
//! once each (`cpufeatures` caches the answer), and its vendor. The kernels,
//! the dispatcher and the transcoders ask here, and nowhere else.

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

/// `true` when the CPU has what the SSE4.2 kernel needs: SSSE3, SSE4.1 and
/// SSE4.2.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_sse42() -> bool {
    cpuid_sse42::get()
}

/// `true` when the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx2() -> bool {
    cpuid_avx2::get()
}

/// `true` when the CPU has what the AVX-512 kernel needs: AVX-512F and BW,
/// and BMI2.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx512() -> bool {
    cpuid_avx512::get()
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
// Asked by the vector kernels' memory policy, which a target without
// vector kernels does not compile.
#[cfg_attr(not(vector_kernels), allow(dead_code))]
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

/// The widest vectors the transcoders' loops may use with a kernel active:
/// its own (never wider than a forced kernel), where this CPU has them.
/// A level above `Scalar` is made only by `dispatch::level_for`, after
/// testing the CPU: holding one proves the features it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    /// The target's baseline (SSE2 on x86-64).
    Scalar,
    /// AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512 F and BW, and AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// AVX-512 F, BW and VBMI, and AVX2.
    #[cfg(target_arch = "x86_64")]
    Vbmi,
}
