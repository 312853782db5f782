//! The `UTF8GUARD_KERNEL` override.
//!
//! The override is for tests and benchmarks. A library must not fail
//! because of the environment of the program that uses it, so a value that
//! names no kernel, or a kernel this CPU cannot run, is ignored: the
//! detected kernel runs, and [`kernel_override`] says what happened, for
//! the programs that rely on the override (a benchmark that must time the
//! kernel it names, the `utf8guard` command that reports a bad setting) to
//! check. Calling a kernel the CPU lacks directly
//! ([`Kernel::validate`](crate::Kernel::validate) and the like) is a
//! programming error, and still panics.

/// The environment variable that forces a kernel.
pub const KERNEL_ENV: &str = "UTF8GUARD_KERNEL";

#[cfg(feature = "std")]
pub use with_std::{kernel_override, KernelOverrideError};

#[cfg(feature = "std")]
pub(crate) use with_std::forced;

#[cfg(feature = "std")]
mod with_std {
    use std::fmt;
    use std::string::String;
    use std::sync::OnceLock;

    use super::KERNEL_ENV;
    use crate::kernel::{Kernel, KernelNameError};

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
    /// The variable is read once, by this function or the first choice of
    /// the kernel, whichever comes first: both see the same value. A
    /// program that relies on the override, such as a benchmark that labels
    /// its results with the kernel it asked for, should check this before
    /// it goes on.
    ///
    /// ```
    /// match utf8guard::kernel_override() {
    ///     Ok(Some(kernel)) => assert_eq!(kernel, utf8guard::active_kernel()),
    ///     Ok(None) => {}
    ///     Err(e) => eprintln!("{e}; running {} instead", utf8guard::active_kernel()),
    /// }
    /// ```
    pub fn kernel_override() -> Result<Option<Kernel>, KernelOverrideError> {
        OVERRIDE.get_or_init(read).clone()
    }
}
