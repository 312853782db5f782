//! Repair policies read by name, for the SQL functions and the file
//! formats alike, so that both accept the same names and both refuse an
//! unknown one with the same list.

#[cfg(feature = "parquet")]
use std::fmt;

use datafusion_common::{exec_err, Result};
use utf8guard::Replacement;

#[cfg(feature = "parquet")]
/// What a repaired Parquet table does with a string value that is not
/// UTF-8: repair it under a policy, or fail the scan with an error that
/// says where the value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringHandling {
    /// Repair the value under the policy.
    Repair(Replacement),
    /// Fail: the error names the file, row group, row, column and the
    /// byte of the value where it stops being UTF-8.
    Validate,
}

#[cfg(feature = "parquet")]
/// The name of [`StringHandling::Validate`] where a policy may be named.
const VALIDATE: &str = "validate";

#[cfg(feature = "parquet")]
impl StringHandling {
    /// `validate`, or a policy by any name [`Replacement::from_name`]
    /// reads; the inverse of `Display`.
    ///
    /// ```
    /// use utf8guard::Replacement;
    /// use utf8guard_datafusion::StringHandling;
    ///
    /// let repair = StringHandling::Repair(Replacement::Windows1252);
    /// assert_eq!(StringHandling::from_name(&repair.to_string()), Some(repair));
    /// assert_eq!(StringHandling::from_name("Validate"), Some(StringHandling::Validate));
    /// assert_eq!(StringHandling::from_name("cp1252"), Some(repair));
    /// assert_eq!(StringHandling::from_name("check"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<StringHandling> {
        if name.eq_ignore_ascii_case(VALIDATE) {
            return Some(StringHandling::Validate);
        }
        Replacement::from_name(name).map(StringHandling::Repair)
    }
}

#[cfg(feature = "parquet")]
impl fmt::Display for StringHandling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StringHandling::Repair(replacement) => replacement.fmt(f),
            StringHandling::Validate => f.write_str(VALIDATE),
        }
    }
}

/// The policy `name` names (any of [`Replacement::from_name`]'s names and
/// aliases), or an error that says where it was given (`context`) and
/// lists the policies there are.
pub(crate) fn policy_named(context: &str, name: &str) -> Result<Replacement> {
    named(context, name, &[])
}

#[cfg(feature = "parquet")]
/// `validate`, or the policy `name` names; an unknown name's error lists
/// `validate` with the policies.
pub(crate) fn handling_named(context: &str, name: &str) -> Result<StringHandling> {
    match StringHandling::from_name(name) {
        Some(handling) => Ok(handling),
        None => named(context, name, &[VALIDATE]).map(StringHandling::Repair),
    }
}

/// The policy `name` names; an unknown name's error lists `modes` first,
/// then the policies.
fn named(context: &str, name: &str, modes: &[&str]) -> Result<Replacement> {
    match Replacement::from_name(name) {
        Some(policy) => Ok(policy),
        // The escape policy is utf8guard's too, but its output is WTF-8,
        // which neither a string column nor Arrow's readers accept.
        None if name.eq_ignore_ascii_case("escape")
            || name.eq_ignore_ascii_case("surrogateescape") =>
        {
            exec_err!(
                "{context}: the escape policy writes WTF-8, which a string column cannot hold"
            )
        }
        None => {
            let policies = Replacement::ALL.iter().map(|r| r.name());
            let known: Vec<&str> = modes.iter().copied().chain(policies).collect();
            exec_err!(
                "{context}: unknown repair policy '{name}'; known: {}",
                known.join(", ")
            )
        }
    }
}
