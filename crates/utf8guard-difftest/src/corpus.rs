//! Corpus files: the project's `corpora/`, the shared corpora beside the
//! project, and any directory named on the command line.

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// One file's bytes and where they came from.
#[derive(Clone, Debug)]
pub struct CorpusFile {
    /// The file's path.
    pub path: PathBuf,
    /// Its contents.
    pub bytes: Vec<u8>,
}

/// Files larger than this are read only up to this size (the generator
/// makes huge files on demand; the harness slices what it reads anyway).
pub const MAX_FILE: usize = 256 << 20;

/// The project's root (the workspace directory), as known at build time.
pub fn project_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// The project's own generated corpora: `<root>/corpora`.
pub fn project_corpora() -> PathBuf {
    project_root().join("corpora")
}

/// The shared corpora beside the project: `<root>/../shared/corpora`.
/// They are not part of the project and may be absent.
pub fn shared_corpora() -> PathBuf {
    let dir = project_root().join("../shared/corpora");
    dir.canonicalize().unwrap_or(dir)
}

/// Every regular file under `dir`, recursively, in path order, skipping
/// hidden files and `README.md` files.
///
/// # Errors
/// If `dir` or a directory below it cannot be read.
pub fn list_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d)? {
            let entry = entry?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || name == "README.md" {
                continue;
            }
            let kind = entry.file_type()?;
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                out.push(entry.path());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Load every file under `dir` (see [`list_files`]), each up to
/// [`MAX_FILE`] bytes.
///
/// # Errors
/// If a directory or file cannot be read.
pub fn load_dir(dir: &Path) -> io::Result<Vec<CorpusFile>> {
    let mut files = Vec::new();
    for path in list_files(dir)? {
        let mut bytes = Vec::new();
        fs::File::open(&path)?
            .take(MAX_FILE as u64)
            .read_to_end(&mut bytes)?;
        files.push(CorpusFile { path, bytes });
    }
    Ok(files)
}
