//! Kernel names, and the `UTF8GUARD_KERNEL` override.
//!
//! The override is for tests and benchmarks. A library must not fail
//! because of the environment of the program that uses it, so a value that
//! names no kernel, or a kernel this CPU cannot run, is ignored: the
//! detected kernel runs, and [`kernel_override`] says what happened, for
//! the programs that rely on the override (a benchmark that must time the
//! kernel it names, the `utf8guard` command that reports a bad setting) to
//! check. Calling a kernel the CPU lacks directly ([`Kernel::validate`] and
//! the like) is a programming error, and still panics.

use core::fmt;

use crate::Kernel;

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
        write!(
            f,
            "; available: {}",
            crate::kernel_names(Kernel::available())
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for KernelNameError {}

impl Kernel {
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
}

#[cfg(feature = "std")]
pub use with_std::{kernel_override, KernelOverrideError};

#[cfg(feature = "std")]
pub(crate) use with_std::forced;

#[cfg(feature = "std")]
mod with_std {
    use std::fmt;
    use std::string::String;
    use std::sync::OnceLock;

    use super::KernelNameError;
    use crate::dispatch::KERNEL_ENV;
    use crate::Kernel;

    /// A `UTF8GUARD_KERNEL` value that was ignored, and why.
    ///
    /// `Display` gives the setting and the reason:
    /// `UTF8GUARD_KERNEL=neon: not available on this CPU; available: scalar, sse42, avx2`.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct KernelOverrideError {
        value: String,
        reason: KernelNameError,
    }

    impl KernelOverrideError {
        /// The variable's value (a lossy copy if it was not Unicode).
        pub fn value(&self) -> &str {
            &self.value
        }

        /// Why no kernel of that name could be used.
        pub fn reason(&self) -> KernelNameError {
            self.reason
        }
    }

    impl fmt::Display for KernelOverrideError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "{KERNEL_ENV}={}: {}", self.value, self.reason)
        }
    }

    impl std::error::Error for KernelOverrideError {}

    type Outcome = Result<Option<Kernel>, KernelOverrideError>;

    /// The override as read when the kernel was chosen: read once, as the
    /// choice is made once.
    static OVERRIDE: OnceLock<Outcome> = OnceLock::new();

    fn read() -> Outcome {
        let Some(value) = std::env::var_os(KERNEL_ENV) else {
            return Ok(None);
        };
        if value.is_empty() {
            return Ok(None);
        }
        let value = value.to_string_lossy();
        match Kernel::by_name(&value) {
            Ok(kernel) => Ok(Some(kernel)),
            Err(reason) => Err(KernelOverrideError {
                value: value.into_owned(),
                reason,
            }),
        }
    }

    /// The kernel the override names, when it is set and usable.
    pub(crate) fn forced() -> Option<Kernel> {
        OVERRIDE.get_or_init(read).clone().ok().flatten()
    }

    /// What `UTF8GUARD_KERNEL` did to the choice of the kernel:
    /// `Ok(Some(kernel))` when it chose [`active_kernel`](crate::active_kernel),
    /// `Ok(None)` when it is unset or empty, `Err` when its value was
    /// ignored because it names no kernel, or one this CPU cannot run (the
    /// detected kernel is then active).
    ///
    /// The variable is read once, when the kernel is first chosen (this
    /// function chooses it if nothing has yet). A program that relies on
    /// the override, such as a benchmark that labels its results with the
    /// kernel it asked for, should check this before it goes on.
    ///
    /// ```
    /// match utf8guard::kernel_override() {
    ///     Ok(Some(kernel)) => assert_eq!(kernel, utf8guard::active_kernel()),
    ///     Ok(None) => {}
    ///     Err(e) => eprintln!("{e}; running {} instead", utf8guard::active_kernel()),
    /// }
    /// ```
    pub fn kernel_override() -> Result<Option<Kernel>, KernelOverrideError> {
        crate::dispatch::active();
        OVERRIDE.get_or_init(read).clone()
    }
}
