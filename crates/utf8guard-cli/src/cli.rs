//! The command line: the command and its subcommands, each with the
//! options and help texts of [`crate::args`].

use clap::{Parser, Subcommand};

use crate::args::check::{self, CheckArgs};
use crate::args::convert::{self, ConvertArgs};
use crate::args::info;
use crate::args::lint::{self, LintArgs};
use crate::args::repair::{self, RepairArgs};

const ABOUT: &str = "Check that files, directories and streams are valid UTF-8, \
                     and say exactly where and why they are not";

/// The `utf8guard` command.
#[derive(Debug, Parser)]
#[command(
    name = "utf8guard",
    version,
    about = ABOUT,
    long_about = check::ABOUT,
    after_long_help = check::AFTER,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub check: CheckArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check files, directories and standard input (the default)
    #[command(long_about = check::ABOUT, after_long_help = check::AFTER)]
    Check(CheckArgs),
    /// Write a copy of the input with every invalid sequence replaced by U+FFFD
    #[command(long_about = repair::ABOUT, after_long_help = repair::AFTER)]
    Repair(RepairArgs),
    /// Convert between members of the UTF-8 family, and UTF-16
    #[command(long_about = convert::ABOUT, after_long_help = convert::AFTER)]
    Convert(ConvertArgs),
    /// Check Corrected UTF-8 documents against the rules of its specification
    #[command(long_about = lint::ABOUT, after_long_help = lint::AFTER)]
    Lint(LintArgs),
    /// Show the version, the CPU features found, the kernels and which one runs
    #[command(long_about = info::ABOUT)]
    Info,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use std::path::PathBuf;

    #[test]
    fn the_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn no_subcommand_means_check() {
        let cli = Cli::try_parse_from(["utf8guard", "--all", "a", "b"]).unwrap();
        assert!(cli.command.is_none());
        assert!(cli.check.all);
        assert_eq!(cli.check.paths, [PathBuf::from("a"), PathBuf::from("b")]);
        let cli = Cli::try_parse_from(["utf8guard", "check", "-m", "3", "a"]).unwrap();
        match cli.command {
            Some(Command::Check(args)) => assert_eq!(args.max_errors, Some(3)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn conflicting_options_are_refused() {
        for args in [
            &["utf8guard", "--json", "--list"][..],
            &["utf8guard", "--quiet", "--json"],
            &["utf8guard", "--null", "--json"],
            &["utf8guard", "--list", "--all"],
            &["utf8guard", "--max-errors", "0"],
            &["utf8guard", "--jobs", "0"],
        ] {
            assert!(Cli::try_parse_from(args).is_err(), "{args:?}");
        }
    }
}
