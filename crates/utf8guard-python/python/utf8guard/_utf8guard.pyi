"""Type stubs of the extension module utf8guard._utf8guard."""

from typing import Final, Optional

from typing_extensions import Buffer  # collections.abc.Buffer from Python 3.12

__version__: Final[str]

class Utf8Error:
    """The first ill-formed sequence that `check` found (returned, not raised)."""

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

def check(data: Buffer, /, encoding: str = "utf-8") -> Optional[Utf8Error]:
    """None when data is well formed in encoding (a UTF-8 dialect), else the first error."""

def decode(data: Buffer, /, encoding: str = "utf-8", errors: str = "strict") -> str:
    """bytes(data).decode("utf-8", errors); also errors="jvm", "per-byte", "windows-1252", "latin-1"."""

def repair(data: Buffer, /, replacement: str = "maximal-subpart") -> bytes:
    """data with every ill-formed sequence replaced, as UTF-8 (WTF-8 for "escape")."""
