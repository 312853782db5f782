//! Files: `check_file` and `repair_file`, read (and written) with the GIL
//! released.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use utf8guard::{Dialect, Escaper, RepairReader};

use crate::names::{self, Policy};
use crate::Utf8Error;

/// Bytes read at a time by `check_file(all=True)` and `repair_file` with
/// the surrogate escape.
const BLOCK: usize = 1 << 20;

/// `None` when the file at `path` is UTF-8, else its first error as a
/// `Utf8Error` (offsets counted from the file's start), as `check` returns
/// for the file's bytes; with `all=True`, the list of every error (empty
/// for a valid file), each as `check` would find it after the one before.
///
/// The file is read in blocks, not loaded whole, with the GIL released.
/// A file that cannot be read raises `OSError` (`FileNotFoundError`, ...).
#[pyfunction]
#[pyo3(signature = (path, /, all = false))]
pub fn check_file<'py>(py: Python<'py>, path: PathBuf, all: bool) -> PyResult<Bound<'py, PyAny>> {
    if !all {
        let result = py.detach(|| first_error(&path))?;
        return result.into_pyobject(py).map(Bound::into_any);
    }
    let errors = py.detach(|| all_errors(&path))?;
    Ok(PyList::new(py, errors)?.into_any())
}

/// The file's first error: `utf8guard::io::validate_file`, which stops
/// there.
fn first_error(path: &Path) -> io::Result<Option<Utf8Error>> {
    match utf8guard::io::validate_file(path) {
        Ok(_) => Ok(None),
        Err(err) => match utf8guard::io::utf8_error(&err) {
            Some(e) => {
                let start = e.valid_up_to() as u64;
                // An input that ends inside a character: the sequence runs
                // to the end of the file.
                let end = match e.error_len() {
                    Some(n) => start + n as u64,
                    None => std::fs::metadata(path)?.len(),
                };
                Ok(Some(Utf8Error::at(Dialect::Utf8, &e, start, end)))
            }
            None => Err(err),
        },
    }
}

/// Every error of the file, a block at a time: each block is validated
/// from where the last error (or the last block's valid part) ended; a
/// character cut by the block's end is carried into the next block.
fn all_errors(path: &Path) -> io::Result<Vec<Utf8Error>> {
    let mut file = File::open(path)?;
    let mut errors = Vec::new();
    // `buf[..filled]` holds the bytes not yet checked, from file offset
    // `base`.
    let mut buf = vec![0u8; BLOCK + 4];
    let mut filled = 0;
    let mut base: u64 = 0;
    loop {
        let read = loop {
            match file.read(&mut buf[filled..]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other?,
            }
        };
        filled += read;
        let last = read == 0;
        let mut at = 0;
        while at < filled {
            match utf8guard::from_utf8(&buf[at..filled]) {
                Ok(_) => at = filled,
                Err(e) => match e.error_len() {
                    None if !last => {
                        // Completed (or not) by the next read.
                        at += e.valid_up_to();
                        break;
                    }
                    None => {
                        let start = base + (at + e.valid_up_to()) as u64;
                        let end = base + filled as u64;
                        errors.push(Utf8Error::at(Dialect::Utf8, &e, start, end));
                        at = filled;
                    }
                    Some(n) => {
                        let start = base + (at + e.valid_up_to()) as u64;
                        errors.push(Utf8Error::at(Dialect::Utf8, &e, start, start + n as u64));
                        at += e.valid_up_to() + n;
                    }
                },
            }
        }
        if last {
            return Ok(errors);
        }
        // Keep the unchecked tail (at most 3 bytes of a cut character).
        buf.copy_within(at..filled, 0);
        base += at as u64;
        filled -= at;
    }
}

/// Copies the file `src` to `dst` with every ill-formed sequence replaced
/// as `replacement` says (the names `repair` takes), streamed a block at a
/// time with the GIL released, into a temporary file beside `dst` that
/// replaces `dst` once it is complete (so `dst` is never half written).
///
/// Returns a dict: `replacements` (how many units were replaced: maximal
/// subparts, or bytes for the byte-wise policies), `first_replacement`
/// (the offset in `src` of the first, or `None`), `bytes_read` and
/// `bytes_written`. A file that cannot be read or written raises `OSError`.
#[pyfunction]
#[pyo3(signature = (src, dst, /, replacement = "maximal-subpart"))]
pub fn repair_file<'py>(
    py: Python<'py>,
    src: PathBuf,
    dst: PathBuf,
    replacement: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let policy = names::repair_policy(replacement)?;
    let stats = py.detach(|| repair_into(&src, &dst, policy))?;
    let dict = PyDict::new(py);
    dict.set_item("replacements", stats.replacements)?;
    dict.set_item("first_replacement", stats.first_replacement)?;
    dict.set_item("bytes_read", stats.bytes_read)?;
    dict.set_item("bytes_written", stats.bytes_written)?;
    Ok(dict)
}

/// What `repair_file` did.
struct Stats {
    replacements: u64,
    first_replacement: Option<u64>,
    bytes_read: u64,
    bytes_written: u64,
}

fn repair_into(src: &Path, dst: &Path, policy: Policy) -> io::Result<Stats> {
    let input = File::open(src)?;
    let bytes_read = input.metadata()?.len();
    let dir = match dst.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let tmp = tempfile::NamedTempFile::new_in(dir)?;
    let mut out = BufWriter::with_capacity(BLOCK, tmp);
    let (replacements, first_replacement, bytes_written) = match policy {
        Policy::Text(replacement) => {
            let mut reader = RepairReader::new(input, replacement);
            let written = io::copy(&mut reader, &mut out)?;
            let (count, first) = reader.replacements();
            (count, first, written)
        }
        Policy::Escape => {
            let mut input = input;
            let mut escaper = Escaper::new();
            let mut block = vec![0u8; BLOCK];
            let mut escaped = Vec::with_capacity(BLOCK * 3);
            let mut written = 0;
            loop {
                let n = match input.read(&mut block) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    other => other?,
                };
                escaped.clear();
                if n == 0 {
                    escaper.finish(&mut escaped);
                } else {
                    escaper.push(&block[..n], &mut escaped);
                }
                out.write_all(&escaped)?;
                written += escaped.len() as u64;
                if n == 0 {
                    break;
                }
            }
            (escaper.replacements(), escaper.first_replacement(), written)
        }
    };
    let tmp = out.into_inner().map_err(io::IntoInnerError::into_error)?;
    tmp.as_file().sync_data()?;
    tmp.persist(dst).map_err(|e| e.error)?;
    Ok(Stats {
        replacements,
        first_replacement,
        bytes_read,
        bytes_written,
    })
}
