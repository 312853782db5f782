"""SIMD-accelerated UTF-8 validation, checks of the UTF-8 family, decoding and repair.

Every function takes any object with the buffer protocol (bytes, bytearray,
memoryview, mmap, array, ...) and reads its bytes in place.

>>> import utf8guard
>>> utf8guard.validate(b"caf\\xc3\\xa9")
True
>>> utf8guard.check(b"caf\\xe9!").start
3
>>> utf8guard.decode(b"caf\\xe9", errors="windows-1252")
'café'
>>> utf8guard.transcode("é😀".encode(), "utf-8", "cesu-8")
b'\\xc3\\xa9\\xed\\xa0\\xbd\\xed\\xb8\\x80'
"""

from . import _utf8guard
from ._utf8guard import (
    ArrowArray,
    ArrowBatch,
    ArrowStream,
    ArrowUtf8Error,
    Utf8Error,
    __version__,
    check,
    check_file,
    decode,
    repair,
    repair_file,
    transcode,
    validate,
    validate_array,
    validate_batch,
)

__all__ = [
    "ArrowArray",
    "ArrowBatch",
    "ArrowStream",
    "ArrowUtf8Error",
    "Utf8Error",
    "__version__",
    "batch_binary_to_string",
    "binary_to_string",
    "check",
    "check_file",
    "decode",
    "repair",
    "repair_file",
    "transcode",
    "validate",
    "validate_array",
    "validate_batch",
]


def binary_to_string(array, /, errors="strict"):
    """Converts an Arrow binary array to a string array, zero-copy when valid.

    ``array`` is any object with ``__arrow_c_array__`` or ``__arrow_c_stream__``
    of type binary, large_binary or binary_view (to string, large_string,
    string_view), or a string type (re-validated). ``errors`` is ``"strict"``
    (raise ``ArrowUtf8Error`` with the ``row`` and the byte ``offset``),
    ``"null"`` (invalid values become null, as Arrow's safe cast) or a name
    ``decode`` takes (``"replace"``, ``"jvm"``, ``"windows-1252"``, ...).

    A pyarrow input gives a pyarrow result (an ``Array`` for an ``Array``, a
    ``ChunkedArray`` for a ``ChunkedArray``), a polars ``Series`` a polars
    ``Series`` of the same name; any other input gives an
    ``ArrowArray`` (a list of them for a stream), which exports itself through
    ``__arrow_c_array__`` (``pyarrow.array(result)``, ``polars.Series(result)``).
    """
    result = _utf8guard.binary_to_string(array, errors)
    module = type(array).__module__
    if module.startswith("polars"):
        import polars as pl

        chunks = result if isinstance(result, list) else [result]
        series = [pl.Series(chunk).alias(array.name) for chunk in chunks]
        return pl.concat(series, rechunk=False) if series else pl.Series(array.name, [], pl.String)
    if not module.startswith("pyarrow"):
        return result
    import pyarrow as pa

    if isinstance(result, list):
        string_types = {
            pa.binary(): pa.string(),
            pa.large_binary(): pa.large_string(),
            pa.binary_view(): pa.string_view(),
        }
        out_type = string_types.get(array.type, array.type)
        return pa.chunked_array([pa.array(chunk) for chunk in result], type=out_type)
    return pa.array(result)


def batch_binary_to_string(batch, /, errors="strict"):
    """Converts every binary column of an Arrow record batch or table to a string column.

    ``batch`` is any object with ``__arrow_c_array__`` of a struct type (a
    record batch) or ``__arrow_c_stream__`` (a table, a reader, a polars
    ``DataFrame``). binary, large_binary and binary_view columns become
    string, large_string and string_view, sharing their buffers when valid;
    every other column (string ones included) is kept as it is. ``errors`` is
    as in ``binary_to_string``; ``"strict"`` raises ``ArrowUtf8Error`` with the
    ``column`` name, its ``column_index``, the ``row`` and the byte ``offset``.

    A pyarrow input gives a pyarrow result: a ``RecordBatch`` for a
    ``RecordBatch`` (or a ``StructArray``), a ``Table`` for a ``Table``, a
    ``RecordBatchReader`` for a ``RecordBatchReader``; a polars ``DataFrame``
    gives a polars ``DataFrame``; any other gives an ``ArrowBatch``
    (``__arrow_c_array__``: ``pyarrow.record_batch(result)``) or an
    ``ArrowStream`` (``__arrow_c_stream__``: ``pyarrow.table(result)``,
    ``polars.DataFrame(result)``).
    """
    result = _utf8guard.batch_binary_to_string(batch, errors)
    module = type(batch).__module__
    if module.startswith("polars"):
        import polars as pl

        return pl.DataFrame(result)
    if not module.startswith("pyarrow"):
        return result
    import pyarrow as pa

    if isinstance(result, ArrowBatch):
        return pa.record_batch(result)
    if isinstance(batch, pa.RecordBatchReader):
        return pa.RecordBatchReader.from_stream(result)
    return pa.table(result)
