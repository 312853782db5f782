//! The bytes of any object with the buffer protocol, read in place.

use pyo3::buffer::PyUntypedBuffer;
use pyo3::exceptions::PyBufferError;
use pyo3::prelude::*;
use pyo3::types::PyMemoryView;

/// A C-contiguous buffer export (bytes, bytearray, memoryview, mmap,
/// array, ...), held for as long as its bytes are read.
///
/// Holding the export is what keeps the memory in place: while it is held,
/// a bytearray cannot be resized, an mmap cannot be closed or resized, and
/// the exporter stays alive (the export holds a reference to it).
pub struct Input {
    buffer: PyUntypedBuffer,
    /// Whether the memory can be written through another export while
    /// this read-only one is held (a read-only memoryview of a bytearray).
    writable_behind: bool,
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
        let writable_behind = buffer.readonly() && writable_behind(obj)?;
        Ok(Input {
            buffer,
            writable_behind,
        })
    }

    /// Whether no one may write into the bytes while the export is held:
    /// it is read-only (bytes, a read-only mmap), and so is the object
    /// behind it when it is a memoryview (`memoryview(bytearray)
    /// .toreadonly()` is a read-only export of memory that the bytearray
    /// still lets any thread write).
    pub fn readonly(&self) -> bool {
        self.buffer.readonly() && !self.writable_behind
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

/// Whether `obj` is a memoryview of an object whose own export is
/// writable (the memoryview made read-only does not make its memory so).
/// Other exporters are taken at their word: a read-only export of memory
/// that something else writes (a NumPy array made read-only over a
/// bytearray) cannot be told from an immutable one.
fn writable_behind(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let mut view = obj.clone();
    while view.is_instance_of::<PyMemoryView>() {
        let base = view.getattr("obj")?;
        if base.is_none() {
            // A view of memory no object owns (made from C): nothing else
            // exports it.
            return Ok(false);
        }
        if !base.is_instance_of::<PyMemoryView>() {
            return Ok(match PyUntypedBuffer::get(&base) {
                Ok(export) => !export.readonly(),
                // Cannot tell: as if writable, which only keeps the GIL.
                Err(_) => true,
            });
        }
        view = base;
    }
    Ok(false)
}
