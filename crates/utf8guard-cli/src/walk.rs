//! Turning the paths given into the list of inputs to check.

use std::fs;
use std::path::{Path, PathBuf};

use crate::io_error::io_message;

/// One input to check, or one that failed before it could be opened.
#[derive(Debug)]
pub enum Input {
    /// Standard input.
    Stdin,
    /// A regular file, with its size when walked (for the progress bar).
    File { path: PathBuf, size: u64 },
    /// Something to read as a stream: a FIFO or a device named on the
    /// command line.
    Stream { path: PathBuf },
    /// A path that cannot be checked, and why.
    Failed { path: PathBuf, reason: String },
}

/// The inputs, and what the walk skipped.
#[derive(Debug, Default)]
pub struct Inputs {
    pub list: Vec<Input>,
    /// Special files (FIFOs, sockets, devices) found inside directories.
    pub skipped_special: u64,
    /// Symbolic links found inside directories without --follow.
    pub skipped_links: u64,
}

/// Expands `paths` in order: `-` is standard input, directories are walked
/// (entries sorted by name), everything else is taken as named.
pub fn collect(paths: &[PathBuf], follow: bool) -> Inputs {
    let mut inputs = Inputs::default();
    if paths.is_empty() {
        inputs.list.push(Input::Stdin);
    }
    for path in paths {
        if path.as_os_str() == "-" {
            inputs.list.push(Input::Stdin);
            continue;
        }
        // Named on the command line: followed if it is a link.
        match fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                let mut ancestors = Vec::new();
                walk_dir(path, follow, &mut ancestors, &mut inputs);
            }
            Ok(meta) if meta.is_file() => inputs.list.push(Input::File {
                path: path.clone(),
                size: meta.len(),
            }),
            Ok(meta) if is_socket(&meta) => inputs.list.push(Input::Failed {
                path: path.clone(),
                reason: "is a socket, which cannot be read as a file".to_owned(),
            }),
            Ok(_) => inputs.list.push(Input::Stream { path: path.clone() }),
            Err(e) => inputs.list.push(Input::Failed {
                path: path.clone(),
                reason: io_message(&e),
            }),
        }
    }
    inputs
}

/// Identifies a directory, to find loops when links are followed.
#[cfg(unix)]
fn dir_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = fs::metadata(path).ok()?;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn dir_id(path: &Path) -> Option<PathBuf> {
    fs::canonicalize(path).ok()
}

#[cfg(unix)]
fn is_socket(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    meta.file_type().is_socket()
}

#[cfg(not(unix))]
fn is_socket(_: &fs::Metadata) -> bool {
    false
}

#[cfg(unix)]
type DirId = (u64, u64);
#[cfg(not(unix))]
type DirId = PathBuf;

fn walk_dir(dir: &Path, follow: bool, ancestors: &mut Vec<DirId>, inputs: &mut Inputs) {
    let id = dir_id(dir);
    if let Some(id) = &id {
        if ancestors.contains(id) {
            inputs.list.push(Input::Failed {
                path: dir.to_path_buf(),
                reason: "symbolic link loop: this directory contains itself".to_owned(),
            });
            return;
        }
    }
    let reader = match fs::read_dir(dir) {
        Ok(reader) => reader,
        Err(e) => {
            inputs.list.push(Input::Failed {
                path: dir.to_path_buf(),
                reason: io_message(&e),
            });
            return;
        }
    };
    let mut entries = Vec::new();
    for entry in reader {
        match entry {
            Ok(entry) => entries.push(entry),
            Err(e) => inputs.list.push(Input::Failed {
                path: dir.to_path_buf(),
                reason: io_message(&e),
            }),
        }
    }
    entries.sort_by_key(|e| e.file_name());
    let pushed = id.is_some();
    if let Some(id) = id {
        ancestors.push(id);
    }
    for entry in entries {
        let path = entry.path();
        let file_type = match entry.file_type() {
            Ok(t) => t,
            Err(e) => {
                inputs.list.push(Input::Failed {
                    path,
                    reason: io_message(&e),
                });
                continue;
            }
        };
        let meta = if file_type.is_symlink() {
            if !follow {
                inputs.skipped_links += 1;
                continue;
            }
            match fs::metadata(&path) {
                Ok(meta) => meta,
                Err(e) => {
                    inputs.list.push(Input::Failed {
                        path,
                        reason: format!("broken symbolic link: {}", io_message(&e)),
                    });
                    continue;
                }
            }
        } else if file_type.is_dir() {
            walk_dir(&path, follow, ancestors, inputs);
            continue;
        } else if file_type.is_file() {
            match entry.metadata() {
                Ok(meta) => meta,
                Err(e) => {
                    inputs.list.push(Input::Failed {
                        path,
                        reason: io_message(&e),
                    });
                    continue;
                }
            }
        } else {
            inputs.skipped_special += 1;
            continue;
        };
        if meta.is_dir() {
            walk_dir(&path, follow, ancestors, inputs);
        } else if meta.is_file() {
            inputs.list.push(Input::File {
                path,
                size: meta.len(),
            });
        } else {
            inputs.skipped_special += 1;
        }
    }
    if pushed {
        ancestors.pop();
    }
}
