//! Paths and names as the command shows them: as their bytes, or on a
//! terminal without control characters, which could be escape sequences.

use std::io::{self, IsTerminal};
use std::path::Path;

/// `name` as shown on a terminal: each control character (C0, DEL, C1)
/// and each sequence that is not UTF-8 as `?`, as `ls` shows them, so that
/// no escape sequence in a file name reaches the terminal.
pub fn terminal_name(name: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len());
    for chunk in name.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() {
                out.push(b'?');
            } else {
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            }
        }
        if !chunk.invalid().is_empty() {
            out.push(b'?');
        }
    }
    out
}

/// `path` for a message on standard error: as [`terminal_name`] shows it
/// when standard error is a terminal, else as `Path::display` does.
pub fn message_name(path: &Path) -> String {
    shown_name(path, io::stderr().is_terminal())
}

/// `path` as [`terminal_name`] shows it when `terminal`, else as
/// `Path::display` does.
pub fn shown_name(path: &Path, terminal: bool) -> String {
    if terminal {
        let name = terminal_name(path.as_os_str().as_encoded_bytes());
        String::from_utf8_lossy(&name).into_owned()
    } else {
        path.display().to_string()
    }
}
