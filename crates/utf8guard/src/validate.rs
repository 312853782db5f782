//! The dispatched checks: strict UTF-8 ([`validate`] and [`from_utf8`],
//! inlined into their callers: the short inputs' tests, then one call of
//! the active kernel), the other dialects ([`Dialect::validate`],
//! [`Dialect::check`], [`Dialect::inspect`]), and the choice of the kernel
//! they run.

use crate::dialect::{Dialect, Inspection};
use crate::error::Utf8Error;
use crate::kernel::{self, Kernel, KernelNameError};
use crate::{dispatch, small};

#[cfg(doc)]
use crate::kernel_override;

/// `true` when `bytes` is well-formed UTF-8. The fastest check: use it when
/// the position of an error does not matter.
///
/// ```
/// assert!(utf8guard::validate(b"plain ASCII"));
/// assert!(utf8guard::validate("ελληνικά".as_bytes()));
/// assert!(!utf8guard::validate(b"\xED\xA0\x80")); // a surrogate
/// ```
#[inline(always)]
pub fn validate(bytes: &[u8]) -> bool {
    // Inlined into every caller: the tests of a short ASCII input and of one
    // 2-byte character, and one call (see `small`).
    if small::is_short_ascii(bytes) {
        return true;
    }
    if bytes.len() <= 2 {
        return small::non_ascii_pair_is_valid(bytes);
    }
    if bytes.len() < small::SHORT_DFA {
        return small::short_is_valid_out_of_line(bytes);
    }
    dispatch::run(bytes).is_ok()
}

/// Converts bytes to a string slice if they are well-formed UTF-8: the same
/// result as [`core::str::from_utf8`], error positions included.
///
/// ```
/// assert_eq!(utf8guard::from_utf8(b"caf\xC3\xA9"), Ok("café"));
///
/// let err = utf8guard::from_utf8(b"caf\xC3").unwrap_err();
/// assert_eq!(err.valid_up_to(), 3);
/// assert_eq!(err.error_len(), None); // ends inside a character
/// ```
#[inline(always)]
pub fn from_utf8(bytes: &[u8]) -> Result<&str, Utf8Error> {
    // The same shape as `validate`: inlined tests and one call.
    let offset = if small::is_short_ascii(bytes) {
        None
    } else if bytes.len() <= 2 {
        (!small::non_ascii_pair_is_valid(bytes)).then_some(0)
    } else if bytes.len() < small::SHORT_DFA {
        (!small::short_is_valid_out_of_line(bytes)).then_some(0)
    } else {
        dispatch::run(bytes).err()
    };
    if let Some(offset) = offset {
        kernel::locate(bytes, offset)?;
    }
    // SAFETY: `bytes` is valid UTF-8: the short paths or the active kernel
    // accepted all of it, or the kernel returned an offset and `locate`
    // returned `Ok`, which it does only when the kernels' contract (see
    // `kernel::locate`) covers the bytes before the offset's character and
    // `check_character` decoded the rest to its end.
    Ok(unsafe { core::str::from_utf8_unchecked(bytes) })
}

/// Converts a mutable byte slice to a mutable string slice if it is
/// well-formed UTF-8, like [`core::str::from_utf8_mut`].
///
/// ```
/// let mut bytes = *b"hello";
/// let s = utf8guard::from_utf8_mut(&mut bytes).unwrap();
/// s.make_ascii_uppercase();
/// assert_eq!(s, "HELLO");
/// ```
#[inline]
pub fn from_utf8_mut(bytes: &mut [u8]) -> Result<&mut str, Utf8Error> {
    from_utf8(bytes)?;
    // SAFETY: `from_utf8` just validated these bytes.
    Ok(unsafe { core::str::from_utf8_unchecked_mut(bytes) })
}

/// The kernel [`validate`] and [`from_utf8`] use on this machine: the
/// fastest available, or the one `UTF8GUARD_KERNEL` names if this CPU can
/// run it (see [`kernel_override`]).
///
/// ```
/// let kernel = utf8guard::active_kernel();
/// assert!(kernel.is_available());
/// println!("validating with {kernel}");
/// ```
pub fn active_kernel() -> Kernel {
    dispatch::active()
}

/// Makes `kernel` the one [`validate`], [`from_utf8`] and everything built
/// on them use from now on, in every thread, in place of the detected one
/// and of `UTF8GUARD_KERNEL`: for a program's own choice of kernel (a
/// `--kernel` option, a benchmark), with no environment variable to set
/// (which is `unsafe` once threads exist, and is read only once). It takes
/// effect at once, whatever ran before. Fails, changing nothing, when this
/// CPU cannot run `kernel`.
///
/// ```
/// use utf8guard::Kernel;
///
/// utf8guard::set_kernel(Kernel::Scalar).unwrap();
/// assert_eq!(utf8guard::active_kernel(), Kernel::Scalar);
/// assert!(utf8guard::validate("ok ✓".as_bytes()));
/// ```
pub fn set_kernel(kernel: Kernel) -> Result<(), KernelNameError> {
    dispatch::set(kernel)
}

impl Dialect {
    /// `true` when `bytes` is well formed in this dialect, with the
    /// fastest kernel of this CPU ([`active_kernel`](crate::active_kernel)).
    /// For [`Dialect::Utf8`] this is [`validate`](crate::validate).
    ///
    /// ```
    /// use utf8guard::Dialect;
    ///
    /// assert!(Dialect::Mutf8.validate(b"nul: \xC0\x80"));
    /// assert!(!Dialect::Mutf8.validate(b"nul: \x00"));
    /// ```
    pub fn validate(self, bytes: &[u8]) -> bool {
        match self {
            Dialect::Utf8 => validate(bytes),
            _ => dispatch::active().validate_dialect(self, bytes),
        }
    }

    /// `Ok` when `bytes` is well formed in this dialect, else its first
    /// error, found with the fastest kernel of this CPU. For
    /// [`Dialect::Utf8`], the error is exactly that of
    /// [`from_utf8`](crate::from_utf8).
    ///
    /// ```
    /// use utf8guard::{Dialect, ErrorKind};
    ///
    /// // A 5-byte sequence: RFC 2279 has them, today's UTF-8 does not.
    /// let bytes = b"\xF8\x88\x80\x80\x80";
    /// assert!(Dialect::Rfc2279.check(bytes).is_ok());
    /// let err = Dialect::Utf8.check(bytes).unwrap_err();
    /// assert_eq!((err.valid_up_to(), err.error_len(), err.kind()), (0, Some(1), ErrorKind::InvalidByte));
    /// ```
    pub fn check(self, bytes: &[u8]) -> Result<(), Utf8Error> {
        match self {
            Dialect::Utf8 => from_utf8(bytes).map(drop),
            _ => dispatch::active().check_dialect(self, bytes),
        }
    }

    /// [`check`](Self::check), and what the same pass learns about a
    /// Corrected UTF-8 document: whether it starts with the magic number,
    /// and where its first reserved `FE`/`FF` run is (in the other
    /// dialects, neither is ever found).
    ///
    /// ```
    /// use utf8guard::Dialect;
    ///
    /// let doc = b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0Aok \xFE\x80\x80 then text\n";
    /// let found = Dialect::Corrected.inspect(doc).unwrap();
    /// assert!(found.magic_number());
    /// assert_eq!(found.first_reserved_run(), Some(11));
    /// ```
    pub fn inspect(self, bytes: &[u8]) -> Result<Inspection, Utf8Error> {
        let kernel = dispatch::active();
        // SAFETY: the active kernel is available on this CPU.
        unsafe { kernel::check_dialect(kernel, self, bytes) }
    }
}
