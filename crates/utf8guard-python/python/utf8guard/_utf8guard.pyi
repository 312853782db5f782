"""Type stubs of the extension module utf8guard._utf8guard."""

import os
from typing import Any, Final, Literal, Optional, Protocol, TypedDict, Union, overload

from typing_extensions import Buffer as _Buffer  # collections.abc.Buffer from Python 3.12

class _ArrayInterface(Protocol):
    """A NumPy array: its stubs declare `__buffer__` for Python 3.12 on only,
    where `collections.abc.Buffer` takes it; before, this is what they have."""

    @property
    def __array_interface__(self) -> dict[str, Any]: ...

Buffer = Union[_Buffer, _ArrayInterface]
"""What the functions read: any object with the buffer protocol (C-contiguous)."""

__version__: Final[str]

StrPath = Union[str, os.PathLike[str]]

class RepairStream:
    """The raw stream of ``utf8guard.open``: a file read repaired into UTF-8."""

    def __init__(self, file: Any, errors: str = "maximal-subpart") -> None: ...
    def readinto(self, buffer: Any) -> int: ...
    def readall(self) -> bytes: ...
    def replacements(self) -> tuple[int, Optional[int]]: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...

class Utf8Error:
    """The first ill-formed sequence that `check` found (returned, not raised); pickles and copies."""

    def __init__(
        self,
        encoding: str,
        valid_up_to: int,
        end: int,
        error_len: Optional[int],
        kind: str,
        reason: str,
    ) -> None: ...

    @property
    def encoding(self) -> str:
        """The dialect checked: "utf-8", "cesu-8", ..."""
    @property
    def valid_up_to(self) -> int:
        """The length of the longest well-formed prefix."""
    @property
    def start(self) -> int:
        """The same as valid_up_to (UnicodeDecodeError's name)."""
    @property
    def end(self) -> int:
        """Where the ill-formed sequence ends (the input's length if it is cut short)."""
    @property
    def error_len(self) -> Optional[int]:
        """The sequence's length; None when the input ends inside a sequence."""
    @property
    def kind(self) -> str:
        """The cause's name: "invalid_byte", "overlong", "incomplete", ..."""
    @property
    def reason(self) -> str:
        """The cause, described: "overlong encoding", ..."""
    def __eq__(self, other: object) -> bool: ...

def validate(data: Buffer, /) -> bool:
    """True when data is well-formed UTF-8 (GIL released from 64 KiB when read-only)."""

@overload
def check(data: Buffer, /, encoding: str = "utf-8", all: Literal[False] = False) -> Optional[Utf8Error]:
    """None when data is well formed in encoding (a UTF-8 dialect), else the first error;
    with all=True, the list of every error, each as check finds it after the one before."""
@overload
def check(data: Buffer, /, encoding: str = "utf-8", *, all: Literal[True]) -> list[Utf8Error]: ...
@overload
def check(data: Buffer, /, encoding: str, all: Literal[True]) -> list[Utf8Error]: ...
@overload
def check(data: Buffer, /, encoding: str = "utf-8", all: bool = False) -> Union[Optional[Utf8Error], list[Utf8Error]]: ...

def decode(data: Buffer, /, encoding: str = "utf-8", errors: str = "strict") -> str:
    """bytes(data).decode(encoding, errors) for utf-8 and utf-8-sig (any of CPython's names);
    errors: CPython's handlers, registered ones, and the policies "jvm", "per-byte", ..."""

def repair(data: Buffer, /, replacement: str = "maximal-subpart") -> bytes:
    """data with every ill-formed sequence replaced, as UTF-8 (WTF-8 for "escape");
    replacement: any policy name decode takes ("replace", "backslashreplace", "jvm", ...)."""

def transcode(data: Buffer, /, from_: str, to: str, errors: str = "strict") -> bytes:
    """data converted between the UTF-8 family, UTF-16, UTF-32, Latin-1 and Windows-1252.

    Encodings: the dialects' names, "utf-16", "utf-16-le", "utf-16-be", "utf-32",
    "utf-32-le", "utf-32-be" ("utf-16"/"utf-32" read and write a BOM as CPython's),
    "latin-1" ("iso-8859-1"), "windows-1252" ("cp1252", WHATWG's mapping). Between CPython's codecs the
    result is data.decode(from_, errors).encode(to, errors). errors is "strict"
    (raise UnicodeDecodeError with start/end in bytes of data) or "replace".
    """

@overload
def check_file(path: StrPath, /, all: Literal[False] = False) -> Optional[Utf8Error]:
    """The file's first UTF-8 error (None if valid), or every error with all=True (GIL released)."""
@overload
def check_file(path: StrPath, /, all: Literal[True]) -> list[Utf8Error]: ...
@overload
def check_file(path: StrPath, /, all: bool = False) -> Union[Optional[Utf8Error], list[Utf8Error]]: ...

class RepairStats(TypedDict):
    replacements: int
    first_replacement: Optional[int]
    bytes_read: int
    bytes_written: int

def repair_file(src: StrPath, dst: StrPath, /, replacement: str = "maximal-subpart") -> RepairStats:
    """Copies src to dst with ill-formed sequences replaced (streamed, atomic rename, GIL released)."""

class ArrowUtf8Error(ValueError):
    """A value of an Arrow array that is not UTF-8."""

    row: Optional[int]
    """The row whose value holds it; None for a dictionary entry that no row uses."""
    path: tuple[Union[str, int], ...]
    """From the row's value to the bad one: a struct field's name, a list element's index."""
    dictionary_index: Optional[int]
    """The dictionary entry, for a dictionary's value."""
    offset: int
    error_len: Optional[int]
    kind: str
    column: Optional[str]
    """The column's name (a record batch or table's); None for an array."""
    column_index: Optional[int]
    """The column's index; None for an array."""

class ArrowArray:
    """A string array made by utf8guard, exported through the Arrow PyCapsule interface."""

    def __arrow_c_array__(self, requested_schema: Optional[object] = None) -> tuple[object, object]:
        """The (schema, array) PyCapsules; each call exports the array anew."""
    @property
    def type(self) -> str:
        """The Arrow type, as arrow-rs names it: "Utf8", "LargeUtf8", "Utf8View"."""
    @property
    def null_count(self) -> int:
        """The number of null rows."""
    def __len__(self) -> int: ...

def validate_array(
    array: Any, /, *, buffer_sizes: Optional[dict[int, int]] = None, trust_offsets: bool = False
) -> None:
    """Raises ArrowUtf8Error (row, path, offset) unless every value of an Arrow binary/string array
    (or of one holding them: dictionary, list, map, struct) is UTF-8; null slots are not read."""

def binary_to_string(
    array: Any,
    /,
    errors: str = "strict",
    *,
    buffer_sizes: Optional[dict[int, int]] = None,
    trust_offsets: bool = False,
) -> Union[ArrowArray, list[ArrowArray]]:
    """An Arrow binary array (or dictionary of one) as a string array (zero-copy when valid);
    errors: strict, null, or a policy."""

class ArrowBatch:
    """A record batch made by utf8guard, exported as a struct array through the PyCapsule interface."""

    def __arrow_c_array__(self, requested_schema: Optional[object] = None) -> tuple[object, object]:
        """The (schema, array) PyCapsules of a struct array; each call exports the batch anew."""
    @property
    def num_rows(self) -> int: ...
    @property
    def column_names(self) -> list[str]: ...
    def __len__(self) -> int: ...

class ArrowStream:
    """Record batches made by utf8guard, exported as a stream through the PyCapsule interface."""

    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object:
        """An "arrow_array_stream" PyCapsule; each call exports the batches anew."""
    @property
    def num_rows(self) -> int: ...
    @property
    def num_batches(self) -> int: ...
    @property
    def column_names(self) -> list[str]: ...

def validate_batch(
    batch: Any, /, *, buffer_sizes: Optional[dict[int, int]] = None, trust_offsets: bool = False
) -> None:
    """Raises ArrowUtf8Error (column, column_index, row, path, offset) unless every value of every
    binary/string column, and inside nested and dictionary columns, is UTF-8."""

def batch_binary_to_string(
    batch: Any,
    /,
    errors: str = "strict",
    *,
    buffer_sizes: Optional[dict[int, int]] = None,
    trust_offsets: bool = False,
) -> Union[ArrowBatch, ArrowStream]:
    """Every binary column (and dictionary of binary) of a record batch (ArrowBatch) or
    table/stream (ArrowStream) as a string column."""
