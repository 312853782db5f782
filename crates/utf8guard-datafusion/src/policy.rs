//! Repair policies read by name, for the SQL functions and the file
//! formats alike, so that both accept the same names and both refuse an
//! unknown one with the same list.

use datafusion_common::{exec_err, Result};
use utf8guard::Replacement;

/// The policy `name` names (any of [`Replacement::from_name`]'s names and
/// aliases), or an error that says where it was given (`context`) and
/// lists the policies there are.
pub(crate) fn policy_named(context: &str, name: &str) -> Result<Replacement> {
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
            let known: Vec<&str> = Replacement::ALL.iter().map(|r| r.name()).collect();
            exec_err!(
                "{context}: unknown repair policy '{name}'; known: {}",
                known.join(", ")
            )
        }
    }
}
