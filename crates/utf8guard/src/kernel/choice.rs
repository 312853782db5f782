//! The [`Kernel`] type: the implementations of the check, by name, what
//! this CPU can run, and each one run directly.

use core::fmt;

use crate::dialect::Dialect;
use crate::error::Utf8Error;
use crate::{kernel, small};

/// A validation kernel: one implementation of the same check.
///
/// All kernels give the same answers; they differ in speed and in the
/// instructions they need.
///
/// ```
/// use utf8guard::Kernel;
///
/// for &kernel in Kernel::ALL {
///     if kernel.is_available() {
///         assert_eq!(kernel.validate(b"\xF4\x90\x80\x80"), false);
///         assert_eq!(kernel.from_utf8("ok ✓".as_bytes()), Ok("ok ✓"));
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
#[non_exhaustive]
pub enum Kernel {
    /// Portable, on every target: ASCII skipped 64 bytes per test, the rest
    /// through a branch-free shift DFA.
    Scalar = 1,
    /// 128-bit vectors with SSE4.2 (x86_64).
    #[cfg(target_arch = "x86_64")]
    Sse42 = 2,
    /// 256-bit vectors with AVX2 (x86_64).
    #[cfg(target_arch = "x86_64")]
    Avx2 = 3,
    /// 512-bit vectors with AVX-512F, AVX-512BW and BMI2 (x86_64); with
    /// AVX-512VBMI's byte permutes where the CPU has them (for strict
    /// UTF-8 and every dialect but WTF-8 and RFC 2279).
    #[cfg(target_arch = "x86_64")]
    Avx512 = 5,
    /// 128-bit vectors with NEON (aarch64).
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    Neon = 4,
    /// 128-bit vectors with WebAssembly's `simd128` (wasm32 built with
    /// `-C target-feature=+simd128`).
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    Simd128 = 6,
}

impl Kernel {
    /// Every kernel compiled for this target, slowest first.
    #[cfg(target_arch = "x86_64")]
    pub const ALL: &'static [Kernel] =
        &[Kernel::Scalar, Kernel::Sse42, Kernel::Avx2, Kernel::Avx512];
    /// Every kernel compiled for this target, slowest first.
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    pub const ALL: &'static [Kernel] = &[Kernel::Scalar, Kernel::Neon];
    /// Every kernel compiled for this target, slowest first.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    pub const ALL: &'static [Kernel] = &[Kernel::Scalar, Kernel::Simd128];
    /// Every kernel compiled for this target, slowest first.
    #[cfg(not(vector_kernels))]
    pub const ALL: &'static [Kernel] = &[Kernel::Scalar];

    /// The kernel's name: `"scalar"`, `"sse42"`, `"avx2"`, `"avx512"`,
    /// `"neon"` or `"simd128"`.
    pub const fn name(self) -> &'static str {
        match self {
            Kernel::Scalar => "scalar",
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse42 => "sse42",
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => "avx512",
            #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
            Kernel::Neon => "neon",
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128 => "simd128",
        }
    }

    /// The kernel compiled for this target with that [`name`](Self::name),
    /// in any case. [`by_name`](Self::by_name) also checks that this CPU
    /// can run it.
    ///
    /// ```
    /// assert_eq!(utf8guard::Kernel::from_name("scalar"), Some(utf8guard::Kernel::Scalar));
    /// assert_eq!(utf8guard::Kernel::from_name("SCALAR"), Some(utf8guard::Kernel::Scalar));
    /// assert_eq!(utf8guard::Kernel::from_name("avx1024"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Kernel> {
        Kernel::ALL
            .iter()
            .copied()
            .find(|k| k.name().eq_ignore_ascii_case(name))
    }

    /// The kernel named `name`, in any case, if this CPU can run it; if
    /// not, whether the name is unknown or the kernel unavailable here.
    ///
    /// ```
    /// use utf8guard::{Kernel, KernelNameError};
    ///
    /// assert_eq!(Kernel::by_name("Scalar"), Ok(Kernel::Scalar));
    /// assert_eq!(Kernel::by_name("avx1024"), Err(KernelNameError::Unknown));
    /// #[cfg(target_arch = "x86_64")]
    /// assert_eq!(Kernel::by_name("neon"), Err(KernelNameError::Unavailable));
    /// #[cfg(not(target_arch = "wasm32"))]
    /// assert_eq!(Kernel::by_name("simd128"), Err(KernelNameError::Unavailable));
    /// ```
    pub fn by_name(name: &str) -> Result<Kernel, KernelNameError> {
        match Kernel::from_name(name) {
            Some(kernel) if kernel.is_available() => Ok(kernel),
            Some(_) => Err(KernelNameError::Unavailable),
            None if EVERY_TARGET.iter().any(|k| k.eq_ignore_ascii_case(name)) => {
                Err(KernelNameError::Unavailable)
            }
            None => Err(KernelNameError::Unknown),
        }
    }

    /// `true` when this CPU can run the kernel.
    pub fn is_available(self) -> bool {
        match self {
            Kernel::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse42 => crate::cpu::has_sse42(),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => crate::cpu::has_avx2(),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => crate::cpu::has_avx512(),
            #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
            Kernel::Neon => true,
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128 => true,
        }
    }

    /// The kernels this CPU can run, slowest first.
    pub fn available() -> impl Iterator<Item = Kernel> + Clone {
        Kernel::ALL.iter().copied().filter(|k| k.is_available())
    }

    /// [`validate`](crate::validate) with this kernel.
    ///
    /// # Panics
    /// If the CPU cannot run this kernel.
    #[inline(always)]
    pub fn validate(self, bytes: &[u8]) -> bool {
        self.run(bytes).is_ok()
    }

    /// [`from_utf8`](crate::from_utf8) with this kernel.
    ///
    /// # Panics
    /// If the CPU cannot run this kernel.
    #[inline(always)]
    pub fn from_utf8(self, bytes: &[u8]) -> Result<&str, Utf8Error> {
        if let Err(offset) = self.run(bytes) {
            kernel::locate(bytes, offset)?;
        }
        // SAFETY: valid UTF-8: this kernel accepted all of it, or `locate`
        // returned `Ok` after its offset (the kernels' contract covers the
        // bytes before it; see `kernel::locate`).
        Ok(unsafe { core::str::from_utf8_unchecked(bytes) })
    }

    /// [`Dialect::validate`] with this kernel.
    ///
    /// # Panics
    /// If the CPU cannot run this kernel.
    pub fn validate_dialect(self, dialect: Dialect, bytes: &[u8]) -> bool {
        self.assert_available();
        if dialect == Dialect::Utf8 {
            return self.validate(bytes);
        }
        if kernel::dialects::for_each_spec!(dialect, |S| <S as kernel::dialects::Spec>::DFA_DECIDES)
        {
            // SAFETY: availability was asserted above.
            return unsafe { kernel::check_dialect(self, dialect, bytes) }.is_ok();
        }
        let run = kernel::dialect_fn(self, dialect);
        // SAFETY: availability was asserted above.
        unsafe { run(bytes) }.is_ok()
    }

    /// [`Dialect::check`] with this kernel.
    ///
    /// # Panics
    /// If the CPU cannot run this kernel.
    pub fn check_dialect(self, dialect: Dialect, bytes: &[u8]) -> Result<(), Utf8Error> {
        self.assert_available();
        if dialect == Dialect::Utf8 {
            return self.from_utf8(bytes).map(drop);
        }
        // SAFETY: availability was asserted above.
        unsafe { kernel::check_dialect(self, dialect, bytes) }.map(drop)
    }

    pub(crate) fn from_id(id: u8) -> Option<Kernel> {
        Kernel::ALL.iter().copied().find(|&k| k as u8 == id)
    }

    /// # Panics
    /// If the CPU cannot run this kernel.
    pub(crate) fn assert_available(self) {
        assert!(
            self.is_available(),
            "the {} kernel is not supported by this CPU (available: {})",
            self.name(),
            kernel_names(Kernel::available())
        );
    }

    /// Run the kernel, after checking that the CPU supports it.
    #[inline(always)]
    pub(crate) fn run(self, bytes: &[u8]) -> Result<(), usize> {
        if self == Kernel::Scalar {
            // Available everywhere: no test of the CPU. Inputs shorter than
            // `SHORT_DFA` here, inlined into the caller: the tests of
            // `small`, then the shift DFA over all their bytes, where a
            // call of the kernel's function was much slower (docs/TUNING.md,
            // "Kernel::Scalar's short path"). The others: a tail call to
            // the kernel's own function (inlined here, it made every call
            // pay that function's prologue, which the vector kernels' calls
            // need), tested first. Three and four bytes take the DFA's
            // steps unrolled, after one test of ASCII on the bytes at hand,
            // where the loop after `is_short_ascii` was slower
            // (docs/TUNING.md, "Unrolled DFA for three and four bytes").
            if bytes.len() >= small::SHORT_DFA {
                return kernel::scalar::validate_out_of_line(bytes);
            }
            return match *bytes {
                [] => Ok(()),
                [a] => {
                    if a < 0x80 {
                        Ok(())
                    } else {
                        Err(0)
                    }
                }
                [a, b] => {
                    if (a | b) < 0x80 || small::non_ascii_pair_is_valid(bytes) {
                        Ok(())
                    } else {
                        Err(0)
                    }
                }
                [a, b, c] => {
                    if (a | b | c) < 0x80 || small::shift_dfa_accepts([a, b, c]) {
                        Ok(())
                    } else {
                        Err(0)
                    }
                }
                [a, b, c, d] => {
                    if (a | b | c | d) < 0x80 || small::shift_dfa_accepts([a, b, c, d]) {
                        Ok(())
                    } else {
                        Err(0)
                    }
                }
                _ => {
                    if small::is_short_ascii(bytes) || small::shift_dfa_is_valid(bytes) {
                        Ok(())
                    } else {
                        Err(0)
                    }
                }
            };
        }
        self.assert_available();
        match self {
            Kernel::Scalar => kernel::scalar::validate_out_of_line(bytes),
            // SAFETY: availability was asserted above.
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse42 => unsafe { kernel::sse42::validate(bytes) },
            // SAFETY: availability was asserted above.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { kernel::avx2::validate(bytes) },
            // SAFETY: availability was asserted above.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unsafe { kernel::avx512::strict_entry()(bytes) },
            #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
            Kernel::Neon => kernel::neon::validate(bytes),
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128 => kernel::simd128::validate(bytes),
        }
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A comma-separated list of kernel names, for messages.
fn kernel_names<I: IntoIterator<Item = Kernel> + Clone>(kernels: I) -> impl fmt::Display {
    struct Names<I>(I);
    impl<I: IntoIterator<Item = Kernel> + Clone> fmt::Display for Names<I> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            for (i, k) in self.0.clone().into_iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                f.write_str(k.name())?;
            }
            Ok(())
        }
    }
    Names(kernels)
}

/// Every kernel name of every target: a name here that is not compiled
/// for this target is "not available", not "unknown".
const EVERY_TARGET: [&str; 6] = ["scalar", "sse42", "avx2", "avx512", "neon", "simd128"];

/// Why a kernel name was refused by [`Kernel::by_name`].
///
/// Its `Display` gives the reason and the kernels this CPU can run, to
/// follow the name in a message:
///
/// ```
/// use utf8guard::{Kernel, KernelNameError};
///
/// assert_eq!(Kernel::by_name("turbo"), Err(KernelNameError::Unknown));
/// let err = Kernel::by_name("turbo").unwrap_err();
/// assert!(err.to_string().starts_with("unknown kernel; available: scalar"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KernelNameError {
    /// No kernel of any target has this name.
    Unknown,
    /// A kernel of this name exists, but this CPU cannot run it: it is
    /// another architecture's (`neon` on x86_64), or this CPU lacks its
    /// instructions (`avx512` on a CPU without AVX-512).
    Unavailable,
}

impl fmt::Display for KernelNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelNameError::Unknown => f.write_str("unknown kernel")?,
            KernelNameError::Unavailable => f.write_str("not available on this CPU")?,
        }
        write!(f, "; available: {}", kernel_names(Kernel::available()))
    }
}

#[cfg(feature = "std")]
impl std::error::Error for KernelNameError {}
