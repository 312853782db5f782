//! The bytes of any object with the buffer protocol, read in place.

use pyo3::buffer::PyUntypedBuffer;
use pyo3::exceptions::PyBufferError;
use pyo3::prelude::*;

/// A C-contiguous buffer export (bytes, bytearray, memoryview, mmap,
/// array, ...), held for as long as its bytes are read.
///
/// Holding the export is what keeps the memory in place: while it is held,
/// a bytearray cannot be resized, an mmap cannot be closed or resized, and
/// the exporter stays alive (the export holds a reference to it).
pub struct Input {
    buffer: PyUntypedBuffer,
}

impl Input {
    /// Exports `obj`'s buffer; a buffer that is not C-contiguous (a
    /// memoryview with a step, say) is refused with `BufferError`, and an
    /// object without the buffer protocol with `TypeError`.
    pub fn new(obj: &Bound<'_, PyAny>) -> PyResult<Input> {
        let buffer = PyUntypedBuffer::get(obj)?;
        if !buffer.is_c_contiguous() {
            return Err(PyBufferError::new_err(
                "the buffer is not C-contiguous (a memoryview with a step, say); \
                 pass bytes(data) or a contiguous copy",
            ));
        }
        Ok(Input { buffer })
    }

    /// Whether the export is read-only (bytes, a read-only memoryview or
    /// mmap): no one may write into it while it is held.
    pub fn readonly(&self) -> bool {
        self.buffer.readonly()
    }

    /// The buffer's bytes.
    pub fn bytes(&self) -> &[u8] {
        let len = self.buffer.len_bytes();
        if len == 0 {
            // An empty export may have a null or dangling pointer.
            return &[];
        }
        // SAFETY: the export is C-contiguous (checked in `new`), so its
        // `len_bytes` bytes start at `buf_ptr`, and they stay allocated and
        // in place while `self.buffer` is held (an exporter may not free,
        // move or resize memory it has exported; `&self` borrows the
        // export for as long as the slice lives). Any byte value is a valid
        // `u8`. The bytes are not copied: a writable exporter's bytes could
        // be written by another thread while they are read, so the callers
        // keep the GIL for them (no Python code runs meanwhile) and release
        // it only over read-only exports (see `validate` in lib.rs).
        unsafe { core::slice::from_raw_parts(self.buffer.buf_ptr().cast::<u8>(), len) }
    }
}
