//! Entry points for the benchmarks that compare internal variants, and the
//! settings they time both ways. Not part of the API: no stability promise.

/// The AVX2 kernel with the look-behind bytes made by shuffles instead
/// of overlapping loads. `None` when the CPU lacks AVX2.
#[cfg(target_arch = "x86_64")]
pub fn avx2_shuffled(bytes: &[u8]) -> Option<bool> {
    if crate::kernel::Kernel::Avx2.is_available() {
        // SAFETY: AVX2 availability was just checked.
        Some(unsafe { crate::kernel::avx2::validate_shuffled(bytes) }.is_ok())
    } else {
        None
    }
}

/// The AVX-512 kernel with shuffles for the look-behind bytes. `None`
/// when the CPU cannot run the AVX-512 kernel.
#[cfg(target_arch = "x86_64")]
pub fn avx512_shuffled(bytes: &[u8]) -> Option<bool> {
    if crate::kernel::Kernel::Avx512.is_available() {
        // SAFETY: AVX-512 availability was just checked.
        Some(unsafe { crate::kernel::avx512::validate_shuffled(bytes) }.is_ok())
    } else {
        None
    }
}

/// [`crate::from_utf8`] with the AVX-512 kernel's strict entry point for
/// CPUs without AVX-512VBMI (`vpshufb` for the nibble lookups), which
/// `Kernel::Avx512` does not run on a CPU that has VBMI: for the tests.
/// `None` when the CPU cannot run the AVX-512 kernel.
#[cfg(target_arch = "x86_64")]
pub fn avx512_without_vbmi(bytes: &[u8]) -> Option<Result<&str, crate::error::Utf8Error>> {
    if !crate::kernel::Kernel::Avx512.is_available() {
        return None;
    }
    // SAFETY: the AVX-512 kernel's features were just checked.
    if let Err(offset) = unsafe { crate::kernel::avx512::validate(bytes) } {
        if let Err(e) = crate::kernel::locate(bytes, offset) {
            return Some(Err(e));
        }
    }
    // SAFETY: validated by the kernel, or past its offset by the DFA.
    Some(Ok(unsafe { core::str::from_utf8_unchecked(bytes) }))
}

/// `kernel`'s strict UTF-8 entry point for `par`'s chunks of a long
/// input on CPUs that take prefetch hints (`validate_far_hinted`), with
/// the answer made exact as [`crate::from_utf8`]'s: for the tests.
/// `vbmi` takes the AVX-512 kernel's entry point with `vpermb` (the one
/// `par` takes on a CPU with AVX-512VBMI), else the one with
/// `vpshufb`. `None` for the scalar kernel, which has no such entry
/// point, and where the CPU cannot run the one asked for.
#[cfg(target_arch = "x86_64")]
pub fn far_hinted(
    kernel: crate::kernel::Kernel,
    vbmi: bool,
    bytes: &[u8],
) -> Option<Result<&str, crate::error::Utf8Error>> {
    let vbmi = vbmi && kernel == crate::kernel::Kernel::Avx512;
    if !kernel.is_available() || (vbmi && !crate::cpu::has_avx512_vbmi()) {
        return None;
    }
    let entry = crate::dispatch::far_hinted_entry(kernel, vbmi)?;
    // SAFETY: the kernel's features were just checked, and VBMI where
    // the `vpermb` entry point is taken.
    if let Err(offset) = unsafe { entry(bytes) } {
        if let Err(e) = crate::kernel::locate(bytes, offset) {
            return Some(Err(e));
        }
    }
    // SAFETY: validated by the kernel, or past its offset by the DFA.
    Some(Ok(unsafe { core::str::from_utf8_unchecked(bytes) }))
}

/// [`crate::kernel::Kernel::check_dialect`] with the AVX-512 kernel's entry
/// point that looks the nibbles up with `vpshufb`, which
/// `Kernel::Avx512` does not run on a CPU with AVX-512VBMI (except for
/// the dialects that measured faster with it): for the tests. `None`
/// when the CPU cannot run the AVX-512 kernel.
#[cfg(target_arch = "x86_64")]
pub fn avx512_dialect_without_vbmi(
    dialect: crate::dialect::Dialect,
    bytes: &[u8],
) -> Option<Result<(), crate::error::Utf8Error>> {
    if dialect == crate::dialect::Dialect::Utf8 {
        return avx512_without_vbmi(bytes).map(|r| r.map(drop));
    }
    if !crate::kernel::Kernel::Avx512.is_available() {
        return None;
    }
    let run = crate::kernel::avx512_vpshufb_dialect_fn(dialect);
    // SAFETY: the AVX-512 kernel's features were just checked; they are
    // what its `vpshufb` entry points need.
    Some(unsafe { crate::kernel::check_dialect_with(run, dialect, bytes, true) }.1)
}

/// Runs `f` with the AVX-512 kernel taking the look-behind bytes by
/// shuffles from inputs of `len` bytes on (`None`: from the default
/// length, 16 MiB), where the CPU's default leaves the prefetch hints
/// off; then goes back to the default. Global, as [`with_prefetch`]'s
/// setting; no effect on the answers, only on speed; nothing off
/// x86_64.
pub fn with_shuffles_from<T>(len: Option<usize>, f: impl FnOnce() -> T) -> T {
    #[cfg(target_arch = "x86_64")]
    return with_setting(crate::kernel::lookup::force_shuffles_from, len, f);
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = len;
        f()
    }
}

/// Runs `f` with the vector kernels' prefetch hints forced on
/// (`Some(true)`) or off (`Some(false)`), then goes back to the CPU's
/// default (on x86_64, on except on AMD CPUs). The setting is global:
/// a call on another thread meanwhile sees it too. No effect on the
/// answers, only on speed; nothing on targets without the hints.
pub fn with_prefetch<T>(on: Option<bool>, f: impl FnOnce() -> T) -> T {
    #[cfg(target_arch = "x86_64")]
    return with_setting(crate::kernel::lookup::force_hints, on, f);
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = on;
        f()
    }
}

/// `set(value)`, then `f`, then `set(None)` (the default), also when
/// `f` panics: a test that fails inside must not leave the setting to
/// the tests that run after it.
#[cfg(target_arch = "x86_64")]
fn with_setting<S, T>(set: fn(Option<S>), value: Option<S>, f: impl FnOnce() -> T) -> T {
    struct Restore<S>(fn(Option<S>));
    impl<S> Drop for Restore<S> {
        fn drop(&mut self) {
            (self.0)(None);
        }
    }
    set(value);
    let _restore = Restore(set);
    f()
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use core::sync::atomic::{AtomicUsize, Ordering};

    static SETTING: AtomicUsize = AtomicUsize::new(0);

    fn set(value: Option<usize>) {
        SETTING.store(value.unwrap_or(0), Ordering::Relaxed);
    }

    #[test]
    fn a_setting_is_restored_when_the_closure_panics() {
        let seen = super::with_setting(set, Some(7), || SETTING.load(Ordering::Relaxed));
        assert_eq!((seen, SETTING.load(Ordering::Relaxed)), (7, 0));
        let panicked = std::panic::catch_unwind(|| {
            super::with_setting(set, Some(9), || panic!("a failing test"))
        });
        assert!(panicked.is_err());
        assert_eq!(SETTING.load(Ordering::Relaxed), 0);
    }
}

/// [`crate::single_byte_to_utf8_into`] with the vector steps of `kernel`
/// (the scalar loop for the scalar kernel), whatever kernel is active: for
/// the tests and benchmarks, which run every level in one process. `None`
/// where the CPU cannot run `kernel`.
pub fn single_byte_to_utf8_into_with(
    kernel: crate::kernel::Kernel,
    encoding: crate::SingleByte,
    input: &[u8],
    output: &mut [u8],
) -> Option<crate::Progress> {
    kernel
        .is_available()
        .then(|| crate::legacy::single_byte_to_utf8_into_with(kernel, encoding, input, output))
}

/// [`crate::utf8_to_single_byte_into`] with the vector steps of `kernel`,
/// as [`single_byte_to_utf8_into_with`]. (The windows the general way
/// validates are checked by the active kernel.)
pub fn utf8_to_single_byte_into_with(
    kernel: crate::kernel::Kernel,
    encoding: crate::SingleByte,
    input: &[u8],
    policy: crate::Policy,
    output: &mut [u8],
    last: bool,
) -> Option<crate::Progress> {
    kernel.is_available().then(|| {
        crate::legacy::utf8_to_single_byte_into_with(kernel, encoding, input, policy, output, last)
    })
}
