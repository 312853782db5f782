//! The command line's arguments, a module per subcommand: its options, the
//! parsers of their values, and its help texts (wrapped by hand: clap
//! prints them as they are). The command line (`cli.rs`) puts them
//! together, and each subcommand's implementation reads its own. They use
//! nothing else of the command, so that neither side depends on the other.

pub mod check;
pub mod convert;
pub mod encoding;
pub mod info;
pub mod lint;
pub mod repair;
