//! Bytes in hex, as reports and hints show them.

use std::fmt::Write;

/// Bytes as upper-case hex pairs separated by spaces.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{b:02X}");
    }
    s
}
