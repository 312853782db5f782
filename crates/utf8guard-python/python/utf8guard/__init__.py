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
)

__all__ = [
    "ArrowArray",
    "ArrowUtf8Error",
    "Utf8Error",
    "__version__",
    "binary_to_string",
    "check",
    "check_file",
    "decode",
    "repair",
    "repair_file",
    "transcode",
    "validate",
    "validate_array",
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
    ``ChunkedArray`` for a ``ChunkedArray``); any other input gives an
    ``ArrowArray`` (a list of them for a stream), which exports itself through
    ``__arrow_c_array__`` (``pyarrow.array(result)``, ``polars.Series(result)``).
    """
    result = _utf8guard.binary_to_string(array, errors)
    if not type(array).__module__.startswith("pyarrow"):
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
