//! std's own error type, for code that converts `core::str::Utf8Error`.
//!
//! [`crate::from_utf8`] returns [`Utf8Error`](crate::Utf8Error), which has
//! the same `valid_up_to`, `error_len` and `Display` as
//! `core::str::Utf8Error`, plus the cause. Code whose error type implements
//! `From<core::str::Utf8Error>` (by hand, or with `#[from]` in a derive)
//! cannot take it with `?`. The functions here return
//! `core::str::Utf8Error` itself, so that `std::str::from_utf8(b)?` becomes
//! `utf8guard::compat::from_utf8(b)?` with nothing else changed.
//!
//! ```
//! #[derive(Debug)]
//! enum ParseError {
//!     NotUtf8(std::str::Utf8Error),
//! }
//!
//! impl From<std::str::Utf8Error> for ParseError {
//!     fn from(e: std::str::Utf8Error) -> Self {
//!         ParseError::NotUtf8(e)
//!     }
//! }
//!
//! fn field(bytes: &[u8]) -> Result<&str, ParseError> {
//!     // Was: Ok(std::str::from_utf8(bytes)?)
//!     Ok(utf8guard::compat::from_utf8(bytes)?)
//! }
//!
//! assert_eq!(field(b"caf\xC3\xA9").unwrap(), "café");
//! let ParseError::NotUtf8(e) = field(b"caf\xC3").unwrap_err();
//! assert_eq!((e.valid_up_to(), e.error_len()), (3, None));
//! ```
//!
//! # What it costs, and why
//!
//! Valid input is validated once, by utf8guard, at its full speed; nothing
//! else runs. An invalid input is validated by utf8guard up to its first
//! error, and then `core::str::from_utf8` runs over the input from its
//! start up to the byte after the invalid sequence, to make the error.
//!
//! That second scan of the valid prefix cannot be avoided:
//! `core::str::Utf8Error` has private fields and no constructor, and the
//! only way to get one is from core's own validation. Its `valid_up_to`
//! counts from the start of the slice core was given, and no API shifts
//! it, so an error with `valid_up_to == n` can only come from core scanning
//! a slice whose first `n` bytes are valid: the input's own prefix, read
//! again (rebuilding the error from the bytes near it would need an
//! allocation of `n` bytes, and still a scan). So the error path costs one
//! run of `core::str::from_utf8` over the prefix: at worst the time std
//! would have taken for the whole call. Where the error is frequent and
//! the prefix long, prefer [`crate::from_utf8`] and convert its error (or
//! implement `From<utf8guard::Utf8Error>` for your error type), which costs
//! nothing more.
//!
//! # Migrating from std
//!
//! | std | utf8guard | error |
//! | --- | --- | --- |
//! | `std::str::from_utf8(b)` | [`crate::from_utf8`] | [`Utf8Error`](crate::Utf8Error): std's fields and `Display`, plus [`kind`](crate::Utf8Error::kind) |
//! | `std::str::from_utf8(b)?` into `From<core::str::Utf8Error>` | [`compat::from_utf8`](from_utf8) | `core::str::Utf8Error` |
//! | `std::str::from_utf8_mut(b)` | [`crate::from_utf8_mut`], or [`compat::from_utf8_mut`](from_utf8_mut) | as above |
//! | `String::from_utf8(v)` | `utf8guard::string_from_utf8` (feature `alloc`) | `utf8guard::FromUtf8Error`: `into_bytes`, `as_bytes`, `utf8_error` |
//! | `String::from_utf8_lossy(b)` | `utf8guard::from_utf8_lossy` (feature `alloc`) | none |
//! | `String::from_utf8_lossy_owned(v)` (nightly) | `utf8guard::string_from_utf8_lossy` (feature `alloc`) | none |
//! | `b.utf8_chunks()` | [`crate::utf8_chunks`] | none: [`Utf8Chunk::invalid`](crate::Utf8Chunk::invalid) |

/// [`core::str::from_utf8`], validated by utf8guard: the same result and
/// the same error type. See the [module documentation](self) for what the
/// error path costs.
///
/// ```
/// let err: std::str::Utf8Error = utf8guard::compat::from_utf8(b"ab\xFFcd").unwrap_err();
/// assert_eq!(err, std::str::from_utf8(b"ab\xFFcd").unwrap_err());
/// ```
#[inline]
pub fn from_utf8(bytes: &[u8]) -> Result<&str, core::str::Utf8Error> {
    match crate::validate::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) => Err(core_error(bytes, &e)),
    }
}

/// [`core::str::from_utf8_mut`], validated by utf8guard: the same result
/// and the same error type.
///
/// ```
/// let mut bytes = *b"hello";
/// let text = utf8guard::compat::from_utf8_mut(&mut bytes).unwrap();
/// text.make_ascii_uppercase();
/// assert_eq!(text, "HELLO");
/// ```
#[inline]
pub fn from_utf8_mut(bytes: &mut [u8]) -> Result<&mut str, core::str::Utf8Error> {
    match crate::validate::from_utf8(bytes) {
        // SAFETY: `from_utf8` just validated these bytes.
        Ok(_) => Ok(unsafe { core::str::from_utf8_unchecked_mut(bytes) }),
        Err(e) => Err(core_error(bytes, &e)),
    }
}

/// The `core::str::Utf8Error` of `bytes`, whose first error `e` describes:
/// core's answer over the input up to the byte after the invalid sequence,
/// which is all core looks at to find that error. (A sequence cut short is
/// known to be cut short by the byte after it; a cut before that byte
/// would turn the error into "incomplete".)
#[cold]
#[inline(never)]
fn core_error(bytes: &[u8], e: &crate::error::Utf8Error) -> core::str::Utf8Error {
    let end = match e.error_len() {
        Some(len) => bytes.len().min(e.valid_up_to() + len + 1),
        None => bytes.len(),
    };
    match core::str::from_utf8(&bytes[..end]) {
        Err(core_error) => core_error,
        // utf8guard and core disagree, which the tests rule out; core then
        // finds the error in the whole input if there is one.
        Ok(_) => match core::str::from_utf8(bytes) {
            Err(core_error) => core_error,
            Ok(_) => unreachable!("core accepts input utf8guard rejected: {e}"),
        },
    }
}
