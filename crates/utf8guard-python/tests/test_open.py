"""utf8guard.open: a file read repaired into UTF-8, against repair() of the
whole file, through every way of reading it, and fed to pandas, polars,
pyarrow and DuckDB readers."""

from __future__ import annotations

import io
import os
import random
import pathlib

import pytest

import utf8guard

POLICIES = [
    "maximal-subpart",
    "replace",
    "windows-1252",
    "latin-1",
    "jvm",
    "per-byte",
    "backslash",
    "drop",
]

# UTF-8 with Windows-1252 bytes and ill-formed sequences of every shape.
PIECES = [
    "José".encode(),
    b"Jos\xe9",
    b"\x80\x9f",
    b"\xe2\x82",
    b"\xed\xa0\x80",
    b"\xf0\x9f\x98",
    b"\xc0\xaf",
    "😀€".encode(),
    b"\xff",
    b"plain ascii text, ",
]


def mixed(size: int, seed: int) -> bytes:
    rng = random.Random(seed)
    out = bytearray()
    while len(out) < size:
        out += rng.choice(PIECES)
    return bytes(out)


@pytest.fixture
def path(tmp_path: pathlib.Path) -> pathlib.Path:
    return tmp_path / "mixed.bin"


@pytest.mark.parametrize("policy", POLICIES)
def test_every_policy_reads_what_repair_writes(path: pathlib.Path, policy: str) -> None:
    # Errors across the 64 KiB reads of the file and the 8 KiB of the buffer.
    data = mixed(300_000, 1)
    path.write_bytes(data)
    expected = utf8guard.repair(data, policy)
    with utf8guard.open(path, errors=policy) as f:
        assert f.read() == expected
        assert f.read() == b""
    with utf8guard.open(str(path), "r", errors=policy, newline="") as t:
        assert t.read() == expected.decode("utf-8")


@pytest.mark.parametrize("size", [1, 2, 3, 7, 4096, 65537])
def test_reads_of_every_size(path: pathlib.Path, size: int) -> None:
    data = mixed(150_000, size)
    path.write_bytes(data)
    expected = utf8guard.repair(data, "windows-1252")
    got = bytearray()
    with utf8guard.open(path, errors="windows-1252", buffer_size=size) as f:
        while chunk := f.read(size):
            assert len(chunk) <= size
            got += chunk
    assert bytes(got) == expected
    # readinto, into a buffer of its own.
    got = bytearray()
    buf = bytearray(size)
    with utf8guard.open(path, errors="windows-1252") as f:
        while n := f.readinto(buf):
            got += buf[:n]
    assert bytes(got) == expected


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"valid UTF-8, caf\xc3\xa9 " * 5000,
        b"\xe9" + b"x" * 100_000,  # grows by its repair
        b"x" * 100_000 + b"\xe9",
        b"\xe2\x82" + b"y" * 70_000,  # shrinks with "drop"
    ],
)
@pytest.mark.parametrize("policy", ["windows-1252", "drop", "jvm"])
def test_read_to_the_end_after_any_start(path: pathlib.Path, data: bytes, policy: str) -> None:
    # read() asks the raw stream for all of the rest: a file's rest is read
    # into a bytes of its length, whatever was read before.
    path.write_bytes(data)
    expected = utf8guard.repair(data, policy)
    for first in (0, 1, 3, 8192, 70_001):
        with utf8guard.open(path, errors=policy) as f:
            head = f.read(first) if first else b""
            assert head + f.read() == expected


@pytest.mark.parametrize("policy", ["windows-1252", "drop", "maximal-subpart"])
def test_a_large_file_read_whole(path: pathlib.Path, policy: str) -> None:
    # read() and readinto() of a file past 8 MiB: filled in 256 KiB pieces
    # (a character, or an error, cut by each piece's end); read() into
    # memory asked to be backed by huge pages.
    piece = 256 * 1024
    valid = ("é" * (piece // 2 - 1) + "x").encode()  # ends a piece mid-"é"
    data = bytearray(valid * 40)
    for at in (piece - 1, 3 * piece - 2, 7 * piece, 20 * piece + 1, len(data) - 1):
        data[at] = 0xE9
    data = bytes(data)
    path.write_bytes(data)
    expected = utf8guard.repair(data, policy)
    with utf8guard.open(path, errors=policy) as f:
        assert f.read() == expected
    # readinto() of a large buffer: filled piece by piece too.
    got = bytearray()
    buf = bytearray((1 << 20) + 5)
    with utf8guard.open(path, errors=policy) as f:
        while n := f.readinto(buf):
            got += buf[:n]
    assert bytes(got) == expected
    # Valid throughout: the length is kept, so the bytes read are the result.
    path.write_bytes(valid * 40)
    with utf8guard.open(path, errors=policy) as f:
        assert f.read() == valid * 40


def test_lines_and_iteration(path: pathlib.Path) -> None:
    data = b"a\xe9\nb\r\nc\x80\n\nlast"
    path.write_bytes(data)
    with utf8guard.open(path, errors="windows-1252") as f:
        assert list(f) == [b"a\xc3\xa9\n", b"b\r\n", b"c\xe2\x82\xac\n", b"\n", b"last"]
    with utf8guard.open(path, "r", errors="windows-1252") as t:
        assert t.readlines() == ["aé\n", "b\n", "c€\n", "\n", "last"]
    with utf8guard.open(path, "rt", errors="windows-1252", newline="") as t:
        assert t.readline() == "aé\n"
        assert t.readline() == "b\r\n"


def test_a_binary_file_object_is_read_and_left_open(path: pathlib.Path) -> None:
    data = mixed(100_000, 7)
    path.write_bytes(data)
    with io.open(path, "rb") as raw:
        with utf8guard.open(raw, errors="jvm") as f:
            assert f.read() == utf8guard.repair(data, "jvm")
            count, first = f.raw.replacements()
        assert not raw.closed
    first_error = utf8guard.check(data)
    assert first_error is not None
    assert count > 0 and first == first_error.start
    # Any object with read(n): a BytesIO, read a few bytes at a time.
    source = io.BytesIO(data)
    with utf8guard.open(source, "rb", errors="per-byte", buffer_size=5) as f:
        assert f.read() == utf8guard.repair(data, "per-byte")


def test_replacements_are_counted(path: pathlib.Path) -> None:
    path.write_bytes(b"ok \xe9 and \xf0\x9f\x98 end")
    with utf8guard.open(path) as f:
        assert f.read() == "ok \ufffd and \ufffd end".encode()
        assert f.raw.replacements() == (2, 3)
    path.write_bytes(b"valid")
    with utf8guard.open(path) as f:
        f.read()
        assert f.raw.replacements() == (0, None)


def test_what_it_refuses(path: pathlib.Path) -> None:
    path.write_bytes(b"x")
    with pytest.raises(LookupError, match="surrogates"):
        utf8guard.open(path, errors="surrogateescape")
    with pytest.raises(LookupError, match="unknown replacement policy"):
        utf8guard.open(path, errors="no-such-policy")
    for mode in ("w", "wb", "a", "r+", "rb+", "x"):
        with pytest.raises(ValueError, match="only reading"):
            utf8guard.open(path, mode)
    with pytest.raises(ValueError, match="text mode"):
        utf8guard.open(path, "rb", newline="")
    with pytest.raises(FileNotFoundError):
        utf8guard.open(path.parent / "missing.csv")
    f = utf8guard.open(path)
    f.close()
    with pytest.raises(ValueError):
        f.read()
    # A text file object: read() returns str, not bytes.
    with io.open(path, "r") as text:
        with pytest.raises(OSError, match="binary mode"):
            utf8guard.open(text).read()


def test_the_file_objects_errors_come_through() -> None:
    class Failing(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def read(self, n: int = -1) -> bytes:
            raise ValueError("the source broke")

    with pytest.raises(ValueError, match="the source broke"):
        utf8guard.open(Failing()).read()


def need(module: str):
    """The module, or a skip where it is not installed; in CI (CI=true),
    where the step installs it, a failure instead."""
    if os.environ.get("CI") == "true":
        import importlib

        return importlib.import_module(module)
    return pytest.importorskip(module)


CSV = (
    b"id,name,city\n"
    b"1,Jos\xc3\xa9,M\xc3\xbcnchen\n"
    b"2,Jos\xe9,M\xfcnchen\n"
    b"3,\x93quoted\x94,Z\xfcrich \x80\n"
)
ROWS = [(1, "José", "München"), (2, "José", "München"), (3, "“quoted”", "Zürich €")]


@pytest.fixture
def csv_path(tmp_path: pathlib.Path) -> pathlib.Path:
    p = tmp_path / "mixed.csv"
    p.write_bytes(CSV)
    return p


def test_pandas_reads_through_it(csv_path: pathlib.Path) -> None:
    pd = need("pandas")
    frame = pd.read_csv(utf8guard.open(csv_path, errors="windows-1252"))
    assert list(frame.itertuples(index=False, name=None)) == ROWS


def test_polars_reads_through_it(csv_path: pathlib.Path) -> None:
    pl = need("polars")
    frame = pl.read_csv(utf8guard.open(csv_path, errors="windows-1252"))
    assert frame.rows() == ROWS


def test_pyarrow_reads_through_it(csv_path: pathlib.Path) -> None:
    pc = need("pyarrow.csv")
    table = pc.open_csv(utf8guard.open(csv_path, errors="windows-1252")).read_all()
    assert list(zip(*(c.to_pylist() for c in table.columns))) == ROWS


def test_duckdb_reads_through_it(csv_path: pathlib.Path) -> None:
    duckdb = need("duckdb")
    need("fsspec")
    relation = duckdb.read_csv(utf8guard.open(csv_path, errors="windows-1252"))
    assert relation.fetchall() == ROWS
