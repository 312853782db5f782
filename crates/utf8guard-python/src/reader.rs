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
        let mut read = move || {
            // SAFETY: the export `view` is held until this call returns, so
            // the `len` writable bytes at `ptr` stay allocated and in place;
            // it is writable and contiguous (checked above). As for
            // `io.FileIO.readinto`, which also fills the buffer with the GIL
            // released, another thread that touches the same buffer
            // meanwhile sees bytes being written, the caller's race.
            let out = unsafe { std::slice::from_raw_parts_mut(ptr as *mut u8, len) };
            loop {
                match reader.read(out) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    other => return other,
                }
            }
        };
        let result = if self.detached {
            py.detach(read)
        } else {
            read()
        };
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
        let mut filled = 0;
        let whole = PyBytes::new_with(py, expected, |buf| {
            filled = fill(reader, buf)?;
            Ok(())
        })?;
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
