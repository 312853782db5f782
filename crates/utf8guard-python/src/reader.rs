//! `utf8guard.open`'s raw stream: a file's bytes repaired into UTF-8 as
//! they are read, for `io.BufferedReader` (and `io.TextIOWrapper` over
//! it) to serve to any reader of binary or text files.
//!
//! A path is read by Rust with the GIL released; a Python binary file
//! object is read through its `read` method, with the GIL held.

use std::fs::File;
use std::io::{self, Read, Seek};
use std::path::PathBuf;

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyBufferError, PyLookupError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use utf8guard::RepairReader;

use crate::names::{self, Policy};

/// Where the bytes come from.
enum Source {
    File(File),
    /// A binary file object: its `read(n)`.
    Object(Py<PyAny>),
}

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Source::File(file) => file.read(buf),
            Source::Object(object) => Python::attach(|py| {
                let data = object
                    .bind(py)
                    .call_method1("read", (buf.len(),))
                    .map_err(io::Error::other)?;
                if data.is_none() {
                    // A non-blocking stream with nothing yet: not the end.
                    return Err(io::ErrorKind::WouldBlock.into());
                }
                let bytes = data.cast::<PyBytes>().map_err(|_| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        "utf8guard.open: the file object's read() returned something other \
                         than bytes (open it in binary mode)",
                    )
                })?;
                let bytes = bytes.as_bytes();
                if bytes.len() > buf.len() {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "utf8guard.open: the file object's read(n) returned more than n bytes",
                    ));
                }
                buf[..bytes.len()].copy_from_slice(bytes);
                Ok(bytes.len())
            }),
        }
    }
}

/// A `bytes` of `len` bytes filled piece by piece by `fill`, which returns
/// how many bytes it wrote at the start of the piece it is given; a piece
/// not filled whole ends the filling. Returns the object and how many bytes
/// were filled (the rest are zeros).
///
/// Pieces of [`PIECE`] bytes, each zeroed just before it is filled, keep
/// the bytes in the cache between the zeroing, the read and the check of
/// the read: `PyBytes::new_with` zeroes the whole object first, a pass over
/// memory that a large file's read then makes again.
fn bytes_in_pieces<'py>(
    py: Python<'py>,
    len: usize,
    mut fill: impl FnMut(&mut [u8]) -> io::Result<usize>,
) -> PyResult<(Bound<'py, PyBytes>, usize)> {
    let size = pyo3::ffi::Py_ssize_t::try_from(len)
        .map_err(|_| pyo3::exceptions::PyOverflowError::new_err("file too large"))?;
    // SAFETY: a null pointer asks CPython for a new `bytes` of `size`
    // uninitialized bytes; the result is a new reference or null with an
    // exception set, which `from_owned_ptr_or_err` turns into an error.
    let object = unsafe {
        Bound::from_owned_ptr_or_err(
            py,
            pyo3::ffi::PyBytes_FromStringAndSize(std::ptr::null(), size),
        )?
        .cast_into_unchecked::<PyBytes>()
    };
    // SAFETY: `object` is a `bytes` (just made), whose buffer this returns.
    let buffer: *mut u8 = unsafe { pyo3::ffi::PyBytes_AsString(object.as_ptr()) }.cast();
    ask_for_huge_pages(buffer, len);
    let mut filled = 0;
    let mut result = Ok(());
    while filled < len {
        let piece = PIECE.min(len - filled);
        // SAFETY: `filled + piece <= len`, inside the object's buffer, which
        // nothing else holds yet (the object is ours alone until returned);
        // the bytes are zeroed before a slice of them is made.
        let piece = unsafe {
            let start = buffer.add(filled);
            std::ptr::write_bytes(start, 0, piece);
            std::slice::from_raw_parts_mut(start, piece)
        };
        match fill(piece) {
            Ok(n) => {
                filled += n;
                if n < piece.len() {
                    break;
                }
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    result?;
    if filled < len {
        // SAFETY: the bytes from `filled` to `len` are in the buffer, which
        // is still ours alone: zeroed, so that every byte is initialized.
        unsafe { std::ptr::write_bytes(buffer.add(filled), 0, len - filled) };
    }
    Ok((object, filled))
}

/// One read of `reader` into `out`, again if interrupted.
fn read_once(reader: &mut RepairReader<Source>, out: &mut [u8]) -> io::Result<usize> {
    loop {
        match reader.read(out) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// The bytes read at a time into a large buffer (`readinto`,
/// [`bytes_in_pieces`]): well inside a core's L2.
const PIECE: usize = 256 * 1024;

/// Asks Linux to back the whole 2 MiB pages inside the `len` bytes at
/// `start`, not yet touched, with huge pages. A large `bytes` is fresh
/// memory from `mmap`, and the first write to each of its 4 KiB pages is a
/// page fault: for a file of tens of megabytes those faults cost several
/// times the copy from the page cache (which is why a parser that maps a
/// file it is given by descriptor reads it faster than from any file
/// object). Where transparent huge pages are off or only on request, 2 MiB
/// pages take one fault each. Only a hint: the contents are unchanged, and
/// a refusal (or another system) leaves the 4 KiB pages.
fn ask_for_huge_pages(start: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        if len < 4 * HUGE {
            return;
        }
        let first = (start as usize).next_multiple_of(HUGE);
        let end = (start as usize + len) & !(HUGE - 1);
        if first < end {
            // SAFETY: `first..end` lies inside the buffer of `len` bytes at
            // `start` (rounded inwards to whole huge pages), which is ours
            // alone; MADV_HUGEPAGE changes how its pages are backed, never
            // what they hold, and its result is only a hint's.
            unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
}

/// The raw stream under `utf8guard.open`'s buffered reader.
#[pyclass(module = "utf8guard._utf8guard")]
pub struct RepairStream {
    /// `None` once closed.
    reader: Option<RepairReader<Source>>,
    /// Whether reads may release the GIL (a path: no Python object read).
    detached: bool,
}

impl std::fmt::Debug for RepairStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RepairStream")
            .field("closed", &self.reader.is_none())
            .field("detached", &self.detached)
            .finish()
    }
}

#[pymethods]
impl RepairStream {
    /// Opens `file` (a path, or a binary file object that stays the
    /// caller's to close) to read it repaired under `errors`, a policy
    /// name `repair` takes but the surrogate escape (which writes WTF-8).
    #[new]
    #[pyo3(signature = (file, errors = "maximal-subpart"))]
    fn new(file: &Bound<'_, PyAny>, errors: &str) -> PyResult<Self> {
        let replacement = match names::repair_policy(errors)? {
            Policy::Text(replacement) => replacement,
            Policy::Escape => {
                return Err(PyLookupError::new_err(format!(
                    "utf8guard.open: '{errors}' writes lone surrogates, which UTF-8 does not \
                     hold; open() takes the other policies repair() takes"
                )))
            }
        };
        let (source, detached) = if file.hasattr("read")? {
            (Source::Object(file.clone().unbind()), false)
        } else {
            let path: PathBuf = file.extract()?;
            (Source::File(File::open(path)?), true)
        };
        Ok(RepairStream {
            reader: Some(RepairReader::new(source, replacement)),
            detached,
        })
    }

    /// Reads repaired bytes into `buffer` (a writable, contiguous buffer of
    /// bytes); returns how many, 0 at the end of the file.
    fn readinto(&mut self, py: Python<'_>, buffer: &Bound<'_, PyAny>) -> PyResult<usize> {
        let view = PyBuffer::<u8>::get(buffer)?;
        if view.readonly() || !view.is_c_contiguous() {
            return Err(PyBufferError::new_err(
                "readinto() takes a writable, contiguous buffer",
            ));
        }
        let reader = self
            .reader
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("I/O operation on closed file"))?;
        let (ptr, len) = (view.buf_ptr() as usize, view.len_bytes());
        let detached = self.detached;
        let mut read = move || {
            // SAFETY: the export `view` is held until this call returns, so
            // the `len` writable bytes at `ptr` stay allocated and in place;
            // it is writable and contiguous (checked above). As for
            // `io.FileIO.readinto`, which also fills the buffer with the GIL
            // released, another thread that touches the same buffer
            // meanwhile sees bytes being written, the caller's race.
            let out = unsafe { std::slice::from_raw_parts_mut(ptr as *mut u8, len) };
            if !detached {
                // A file object: one call of its read() per call of this.
                return read_once(reader, out);
            }
            // A file: in pieces that stay in the cache between the read
            // and its check, while they come whole (a piece short by more
            // than the end of a character it holds back: the end of the
            // file, a pipe with no more yet, or a repair's own pace).
            let mut filled = 0;
            while filled < out.len() {
                let end = out.len().min(filled + PIECE);
                match read_once(reader, &mut out[filled..end]) {
                    Ok(n) => {
                        let whole = n + 3 >= end - filled;
                        filled += n;
                        if n == 0 || !whole {
                            break;
                        }
                    }
                    // What was read is handed out; the error comes again.
                    Err(_) if filled > 0 => break,
                    Err(e) => return Err(e),
                }
            }
            Ok(filled)
        };
        let result = if detached { py.detach(read) } else { read() };
        drop(view);
        Ok(result?)
    }

    /// The rest of the file, repaired, in one `bytes` (what `read()` with
    /// no size asks of the raw stream): read in large pieces, not in the
    /// buffered reader's 8 KiB.
    fn readall<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let reader = self
            .reader
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("I/O operation on closed file"))?;
        let detached = self.detached;
        // Reads into `out` until it is full or the input ends; how much.
        let fill = |reader: &mut RepairReader<Source>, out: &mut [u8]| -> io::Result<usize> {
            let mut read = || {
                let mut filled = 0;
                while filled < out.len() {
                    match reader.read(&mut out[filled..]) {
                        Ok(0) => break,
                        Ok(n) => filled += n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                Ok(filled)
            };
            if detached {
                py.detach(read)
            } else {
                read()
            }
        };
        // A file's rest is read straight into a `bytes` of its length, as
        // `io.FileIO.readall` does: a file that needs no repair (or repairs
        // that keep its length) is then read with no copy of its own.
        let mut expected = 0;
        if let Source::File(file) = reader.get_ref() {
            let mut file: &File = file;
            if let (Ok(meta), Ok(at)) = (file.metadata(), file.stream_position()) {
                expected = usize::try_from(meta.len().saturating_sub(at)).unwrap_or(0);
            }
        }
        let (whole, filled) = bytes_in_pieces(py, expected, |piece| fill(reader, piece))?;
        let mut probe = [0u8; 1];
        if filled == expected && fill(reader, &mut probe)? == 0 {
            return Ok(whole);
        }
        // Longer or shorter after its repair: the bytes so far, the rest
        // after them.
        let mut out = whole.as_bytes()[..filled].to_vec();
        if filled == expected {
            out.push(probe[0]);
        }
        let mut rest = || reader.read_to_end(&mut out);
        if detached {
            py.detach(rest)?;
        } else {
            rest()?;
        }
        Ok(PyBytes::new(py, &out))
    }

    /// The units replaced so far (maximal subparts, or bytes for the
    /// byte-wise policies) and the input offset of the first, or `None`.
    fn replacements(&self) -> (u64, Option<u64>) {
        self.reader
            .as_ref()
            .map_or((0, None), RepairReader::replacements)
    }

    /// Closes the file (a file object given is left open).
    fn close(&mut self) {
        self.reader = None;
    }

    #[getter]
    fn closed(&self) -> bool {
        self.reader.is_none()
    }
}
