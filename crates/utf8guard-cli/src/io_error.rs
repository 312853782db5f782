//! I/O errors in the command's messages.

use std::io;

/// An I/O error's message without the "(os error N)" suffix.
pub fn io_message(e: &io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}
