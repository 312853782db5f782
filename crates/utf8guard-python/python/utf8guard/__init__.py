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

``utf8guard.open(path, errors="windows-1252")`` reads a file repaired into
UTF-8 as it goes, for any reader of files (pandas, polars, pyarrow, DuckDB).
"""

from __future__ import annotations

import io
import os
import weakref
from typing import IO, Any, Optional, Union

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
    "open",
    "repair",
    "repair_file",
    "transcode",
    "validate",
    "validate_array",
    "validate_batch",
]


# The pyarrow RecordBatchReaders that a call has read to their end: a reader
# is read once, so a second call would see no rows and pass them silently.
_read_readers: weakref.WeakSet[Any] = weakref.WeakSet()


def _arrow_input(obj: Any) -> tuple[Any, Optional[dict[int, int]]]:
    """The Arrow input the extension reads, and the sizes of its buffers by address.

    The Arrow C Data Interface carries the address of each buffer, not its
    size: a binary or string array's values buffer is taken to be as long as
    its last offset says. For a pyarrow object the sizes are known
    (``Buffer.size``): those of every buffer of every array in it, children and
    dictionaries included, for the extension to check the offsets against. A
    pyarrow ``RecordBatchReader`` is read into a ``Table`` first, whose buffers
    can be measured (the extension reads a stream whole anyway); a reader that
    an earlier call read to its end raises ``ValueError``. A pandas ``Series``
    or ``DataFrame`` is converted to a pyarrow ``Array`` or ``Table`` (without
    its index). Any other object is returned as it is, with ``None``.
    """
    module = type(obj).__module__
    if module.startswith("pandas"):
        obj = _from_pandas(obj)
    elif not module.startswith("pyarrow"):
        return obj, None
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    if isinstance(obj, pa.RecordBatchReader):
        if obj in _read_readers:
            raise ValueError(
                "this RecordBatchReader was read to its end by an earlier call: it has no rows "
                "left; read it into a Table (reader.read_all()) to pass its rows more than once"
            )
        _read_readers.add(obj)
        obj = obj.read_all()
    if isinstance(obj, pa.Array):
        arrays = [obj]
    elif isinstance(obj, pa.ChunkedArray):
        arrays = obj.chunks
    elif isinstance(obj, pa.RecordBatch):
        arrays = obj.columns
    elif isinstance(obj, pa.Table):
        arrays = [chunk for column in obj.columns for chunk in column.chunks]
    else:
        return obj, None
    sizes: dict[int, int] = {}
    for array in arrays:
        _add_buffer_sizes(array, sizes, pa)
    return obj, sizes


def _from_pandas(obj: Any) -> Any:
    """A pandas Series as a pyarrow Array (ChunkedArray), a DataFrame as a Table."""
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    if isinstance(obj, pd.DataFrame):
        return pa.Table.from_pandas(obj, preserve_index=False)
    if isinstance(obj, pd.Series):
        return pa.array(obj, from_pandas=True)
    return obj


def _all_arrow_dtypes(dtypes: Any) -> bool:
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]

    return len(dtypes) > 0 and all(isinstance(d, pd.ArrowDtype) for d in dtypes)


def _to_pandas(result: Any, like: Any) -> Any:
    """A pyarrow result as pandas, with the index (and a Series' name) of the
    input ``like``; pyarrow-backed (``pd.ArrowDtype``) when ``like``'s columns are."""
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]

    is_frame = isinstance(like, pd.DataFrame)
    dtypes = list(like.dtypes) if is_frame else [like.dtype]
    mapper = pd.ArrowDtype if _all_arrow_dtypes(dtypes) else None
    out = result.to_pandas(types_mapper=mapper)
    out.index = like.index
    if not is_frame:
        out.name = like.name
    return out


def _add_buffer_sizes(array: Any, sizes: dict[int, int], pa: Any) -> None:
    # ``buffers()`` lists the array's buffers and its children's, but not a
    # dictionary's: the arrays holding a dictionary are walked for theirs.
    for buffer in array.buffers():
        if buffer is not None and buffer.size > sizes.get(buffer.address, -1):
            sizes[buffer.address] = buffer.size
    if not _has_dictionary(array.type):
        return
    typ = array.type
    if pa.types.is_dictionary(typ):
        children = [array.dictionary]
    elif pa.types.is_struct(typ) or pa.types.is_union(typ):
        children = [array.field(i) for i in range(typ.num_fields)]
    elif pa.types.is_run_end_encoded(typ):
        children = [array.values]
    else:  # the lists and maps
        children = [array.values]
    for child in children:
        _add_buffer_sizes(child, sizes, pa)


def _has_dictionary(typ: Any) -> bool:
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    if pa.types.is_dictionary(typ):
        return True
    return any(_has_dictionary(typ.field(i).type) for i in range(typ.num_fields))


def binary_to_string(
    array: Any,
    /,
    errors: str = "strict",
    *,
    buffer_sizes: Optional[dict[int, int]] = None,
    trust_offsets: bool = False,
) -> Any:
    """Converts an Arrow binary array to a string array, zero-copy when valid.

    ``array`` is any object with ``__arrow_c_array__`` or ``__arrow_c_stream__``
    of type binary, large_binary or binary_view (to string, large_string,
    string_view), or a string type (re-validated). ``errors`` is ``"strict"``
    (raise ``ArrowUtf8Error`` with the ``row`` and the byte ``offset``),
    ``"null"`` (invalid values become null, as Arrow's safe cast) or a name
    ``decode`` takes (``"replace"``, ``"jvm"``, ``"windows-1252"``, ...). A
    dictionary of binary values becomes a dictionary of strings. Null slots
    are not read.

    The offsets are checked against the buffers' sizes, which are known for
    pyarrow objects; for other producers, a binary or string array is refused
    unless ``trust_offsets=True`` (the producer's last offset is trusted) or
    ``buffer_sizes`` (a dict of sizes by buffer address) gives them.

    A pyarrow input gives a pyarrow result (an ``Array`` for an ``Array``, a
    ``ChunkedArray`` for a ``ChunkedArray``), a polars ``Series`` a polars
    ``Series`` of the same name, a pandas ``Series`` a pandas ``Series`` of the
    same name and index (rows are counted by position); any other input gives an
    ``ArrowArray`` (a list of them for a stream), which exports itself through
    ``__arrow_c_array__`` (``pyarrow.array(result)``, ``polars.Series(result)``).
    """
    result = _utf8guard.binary_to_string(
        array, errors, buffer_sizes=buffer_sizes, trust_offsets=trust_offsets
    )
    module = type(array).__module__
    if module.startswith("pandas"):
        import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

        chunks = result if isinstance(result, list) else [result]
        arrays = [pa.array(chunk) for chunk in chunks]
        return _to_pandas(pa.chunked_array(arrays) if arrays else pa.chunked_array([], pa.string()), array)
    if module.startswith("polars"):
        import polars as pl  # type: ignore[import-untyped, unused-ignore]

        chunks = result if isinstance(result, list) else [result]
        series = [pl.Series(chunk).alias(array.name) for chunk in chunks]
        return pl.concat(series, rechunk=False) if series else pl.Series(array.name, [], pl.String)
    if not module.startswith("pyarrow"):
        return result
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    if isinstance(result, list):
        string_types = {
            pa.binary(): pa.string(),
            pa.large_binary(): pa.large_string(),
            pa.binary_view(): pa.string_view(),
        }
        typ = array.type
        if pa.types.is_dictionary(typ):
            values = string_types.get(typ.value_type, typ.value_type)
            out_type = pa.dictionary(typ.index_type, values, typ.ordered)
        else:
            out_type = string_types.get(typ, typ)
        return pa.chunked_array([pa.array(chunk) for chunk in result], type=out_type)
    return pa.array(result)


def batch_binary_to_string(
    batch: Any,
    /,
    errors: str = "strict",
    *,
    buffer_sizes: Optional[dict[int, int]] = None,
    trust_offsets: bool = False,
) -> Any:
    """Converts every binary column of an Arrow record batch or table to a string column.

    ``batch`` is any object with ``__arrow_c_array__`` of a struct type (a
    record batch) or ``__arrow_c_stream__`` (a table, a reader, a polars
    ``DataFrame``). binary, large_binary and binary_view columns become
    string, large_string and string_view, sharing their buffers when valid;
    every other column (string ones included) is kept as it is. ``errors`` is
    as in ``binary_to_string``; ``"strict"`` raises ``ArrowUtf8Error`` with the
    ``column`` name, its ``column_index``, the ``row`` and the byte ``offset``.
    Dictionary columns of binary values become dictionaries of strings.
    ``buffer_sizes`` and ``trust_offsets`` are as in ``binary_to_string``.

    A pyarrow input gives a pyarrow result: a ``RecordBatch`` for a
    ``RecordBatch`` (or a ``StructArray``), a ``Table`` for a ``Table``, a
    ``RecordBatchReader`` for a ``RecordBatchReader`` (a reader is read once:
    passing it again raises ``ValueError``); a polars ``DataFrame`` gives a
    polars ``DataFrame``, a pandas ``DataFrame`` a pandas ``DataFrame`` with
    the input's index; any other gives an ``ArrowBatch``
    (``__arrow_c_array__``: ``pyarrow.record_batch(result)``) or an
    ``ArrowStream`` (``__arrow_c_stream__``: ``pyarrow.table(result)``,
    ``polars.DataFrame(result)``).
    """
    result = _utf8guard.batch_binary_to_string(
        batch, errors, buffer_sizes=buffer_sizes, trust_offsets=trust_offsets
    )
    module = type(batch).__module__
    if module.startswith("pandas"):
        import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

        return _to_pandas(pa.table(result), batch)
    if module.startswith("polars"):
        import polars as pl  # type: ignore[import-untyped, unused-ignore]

        return pl.DataFrame(result)
    if not module.startswith("pyarrow"):
        return result
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    if isinstance(result, ArrowBatch):
        return pa.record_batch(result)
    if isinstance(batch, pa.RecordBatchReader):
        return pa.RecordBatchReader.from_stream(result)
    return pa.table(result)


class _RepairedRaw(io.RawIOBase):
    """The raw stream under ``open``'s ``io.BufferedReader``: the extension's
    ``RepairStream``, whose ``readinto`` fills the buffered reader's buffer."""

    def __init__(self, stream: Any, name: Any) -> None:
        super().__init__()
        self._stream = stream
        self.name = name

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        return int(self._stream.readinto(buffer))

    def readall(self) -> bytes:
        return bytes(self._stream.readall())

    def close(self) -> None:
        if not self.closed:
            self._stream.close()
        super().close()

    def replacements(self) -> tuple[int, Optional[int]]:
        return tuple(self._stream.replacements())  # type: ignore[return-value]


def open(  # noqa: A001 - the shape of gzip.open and io.open
    file: Union[str, "os.PathLike[str]", "os.PathLike[bytes]", bytes, IO[bytes]],
    mode: str = "rb",
    errors: str = "maximal-subpart",
    *,
    newline: Optional[str] = None,
    buffer_size: int = io.DEFAULT_BUFFER_SIZE,
) -> Any:
    """Opens ``file`` to read it repaired into valid UTF-8 as it is read.

    ``file`` is a path or a binary file object (read with its ``read``, and
    left open when the result is closed). Every ill-formed sequence is
    replaced as ``errors`` says: any policy ``repair`` takes
    (``"maximal-subpart"``/``"replace"``, ``"windows-1252"``, ``"latin-1"``,
    ``"jvm"``, ``"per-byte"``, ``"backslash"``, ``"drop"``) but the surrogate
    escape, whose output is not UTF-8. A path is read with the GIL released.

    ``mode="rb"`` (the default) gives a binary file object (an
    ``io.BufferedReader``); ``"r"`` or ``"rt"`` a text one
    (``io.TextIOWrapper``, UTF-8, ``newline`` as ``open`` takes it). Either has
    ``.replacements()`` on its raw stream (``f.raw``, or ``f.buffer.raw``):
    how many units were replaced so far and the offset of the first.

    >>> import io, os, tempfile, utf8guard
    >>> path = os.path.join(tempfile.mkdtemp(), "mixed.csv")
    >>> with io.open(path, "wb") as f:
    ...     _ = f.write(b"name\\nJos\\xc3\\xa9\\nJos\\xe9\\n")
    >>> with utf8guard.open(path, "r", errors="windows-1252") as f:
    ...     f.read()
    'name\\nJosé\\nJosé\\n'
    """
    if mode not in ("rb", "r", "rt"):
        raise ValueError(f"utf8guard.open: mode {mode!r}: only reading ('rb', 'r', 'rt')")
    if mode == "rb" and newline is not None:
        raise ValueError("utf8guard.open: newline is for text mode")
    stream = _utf8guard.RepairStream(file, errors)
    name = getattr(file, "name", file)
    buffered = io.BufferedReader(_RepairedRaw(stream, name), buffer_size)
    if mode == "rb":
        return buffered
    return io.TextIOWrapper(buffered, encoding="utf-8", errors="strict", newline=newline)
