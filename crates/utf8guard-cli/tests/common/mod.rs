//! What the integration tests of the newer subcommands share: the command
//! under test and Corrected UTF-8's magic number.

use assert_cmd::Command;

/// Corrected UTF-8's magic number.
#[allow(dead_code)]
pub const MAGIC: &[u8] = b"\xEF\xB7\x9D\xED\xB2\xAE\x00\x0A";

/// The command, with no kernel forced from the environment.
pub fn cmd() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_utf8guard"));
    c.env_remove("UTF8GUARD_KERNEL");
    c
}
