"""check_file and repair_file, against check, repair and CPython's codecs."""

import os
import pathlib

import pytest

import utf8guard

BLOCK = 1 << 20  # the block size check_file(all=True) reads


def errors_by_check(data):
    """Every error, as check() finds them one after the other."""
    out = []
    at = 0
    while True:
        err = utf8guard.check(data[at:])
        if err is None:
            return out
        out.append((at + err.start, at + err.end, err.error_len, err.kind))
        if err.error_len is None:
            return out
        at += err.end


def as_tuples(errors):
    return [(e.start, e.end, e.error_len, e.kind) for e in errors]


def test_valid_and_empty_files(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert utf8guard.check_file(empty) is None
    assert utf8guard.check_file(str(empty), all=True) == []
    text = tmp_path / "text.txt"
    text.write_bytes("naïve café, 東京, 😀\n".encode() * 100_000)
    assert utf8guard.check_file(text) is None
    assert utf8guard.check_file(text, all=True) == []


def test_errors_at_known_offsets(tmp_path):
    text = "naïve café, 東京, 😀\n".encode() * 200_000  # 5 MB: several blocks
    data = bytearray(text)
    # An invalid byte, an overlong form, a surrogate, one sequence cut by
    # a block boundary (a lead byte and its continuation on either side is
    # valid; here a 3-byte sequence missing its last byte across it), and
    # a truncated sequence at the end.
    data[1000] = 0xFF
    data[123_457 : 123_459] = b"\xc0\xaf"
    data[2 * BLOCK + 10 : 2 * BLOCK + 13] = b"\xed\xa0\x80"
    data[BLOCK - 1 : BLOCK + 2] = b"\xe6\x9d!"
    data += b"\xf0\x9f\x98"
    path = tmp_path / "bad.txt"
    path.write_bytes(bytes(data))
    want = errors_by_check(bytes(data))
    assert want[0][0] == 1000
    assert want[-1] == (len(data) - 3, len(data), None, "incomplete")
    got = utf8guard.check_file(path, all=True)
    assert as_tuples(got) == want
    first = utf8guard.check_file(path)
    assert first == utf8guard.check(bytes(data))
    assert (first.start, first.end, first.error_len, first.kind) == (1000, 1001, 1, "invalid_byte")
    assert first.encoding == "utf-8"


def test_only_a_truncated_end(tmp_path):
    path = tmp_path / "cut.txt"
    path.write_bytes(b"abc\xe6\x9d")
    err = utf8guard.check_file(path)
    assert (err.start, err.end, err.error_len, err.kind) == (3, 5, None, "incomplete")
    assert as_tuples(utf8guard.check_file(path, all=True)) == [(3, 5, None, "incomplete")]


def test_missing_files_raise(tmp_path):
    missing = tmp_path / "missing.txt"
    with pytest.raises(FileNotFoundError):
        utf8guard.check_file(missing)
    with pytest.raises(FileNotFoundError):
        utf8guard.check_file(missing, all=True)
    with pytest.raises(FileNotFoundError):
        utf8guard.repair_file(missing, tmp_path / "out.txt")
    assert not (tmp_path / "out.txt").exists()
    with pytest.raises(OSError):
        utf8guard.check_file(tmp_path)  # a directory
    with pytest.raises(FileNotFoundError):
        utf8guard.repair_file(__file__, tmp_path / "no" / "such" / "dir.txt")
    with pytest.raises(TypeError):
        utf8guard.check_file(42)


@pytest.mark.parametrize(
    "policy,handler",
    [("maximal-subpart", "replace"), ("drop", "ignore"), ("backslash", "backslashreplace"), ("escape", "surrogateescape")],
)
def test_repair_file(tmp_path, policy, handler):
    line = "naïve café, 東京, 😀\n".encode()
    data = line * 40 + b"\xff" + line * 30_000 + b"\xe0\x80" + line * 70_000 + b"\xc3"
    src = tmp_path / "src.txt"
    dst = tmp_path / "dst.txt"
    src.write_bytes(data)
    dst.write_bytes(b"old contents")
    stats = utf8guard.repair_file(src, dst, policy)
    want = utf8guard.repair(data, policy)
    assert dst.read_bytes() == want
    assert want.decode("utf-8", "surrogatepass") == data.decode("utf-8", handler)
    # Four maximal subparts: FF, E0, 80 and the final C3 (a unit each,
    # bytes for the byte-wise policies, which here are the same).
    assert stats == {
        "replacements": data.decode("utf-8", "replace").count("\ufffd"),
        "first_replacement": len(line) * 40,
        "bytes_read": len(data),
        "bytes_written": len(want),
    }
    assert stats["replacements"] == 4
    # No temporary file left behind.
    assert sorted(os.listdir(tmp_path)) == ["dst.txt", "src.txt"]


def test_repair_file_of_valid_and_empty_files(tmp_path):
    for data in (b"", "ok ✓\n".encode() * 1000):
        src = tmp_path / "src"
        src.write_bytes(data)
        stats = utf8guard.repair_file(str(src), str(tmp_path / "dst"))
        assert stats == {"replacements": 0, "first_replacement": None, "bytes_read": len(data), "bytes_written": len(data)}
        assert (tmp_path / "dst").read_bytes() == data
    with pytest.raises(LookupError, match="unknown replacement policy"):
        utf8guard.repair_file(src, tmp_path / "x", "nonsense")


def test_relative_destination(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pathlib.Path("in.txt").write_bytes(b"a\xffb")
    stats = utf8guard.repair_file("in.txt", "out.txt", "latin-1")
    assert pathlib.Path("out.txt").read_bytes() == "aÿb".encode()
    assert (stats["replacements"], stats["first_replacement"]) == (1, 1)


def test_check_file_releases_the_gil(tmp_path):
    from test_api import counting_thread

    path = tmp_path / "big.txt"
    path.write_bytes("é".encode() * (50 * 1024 * 1024))
    with counting_thread() as counter:
        before = counter[0]
        assert utf8guard.check_file(path) is None
        assert utf8guard.check_file(path, all=True) == []
        during = counter[0] - before
    assert during > 10, during


@pytest.mark.parametrize("encoding", ["utf-8", "cesu-8", "mutf-8", "wtf-8"])
def test_check_all_is_check_after_check(encoding):
    data = b"ok\xff\xc0\x80 caf\xe9 \xed\xa0\x80\xed\xb0\x80 \x00 \xf0\x9f\x98\x80 end\xe2\x82"
    found = utf8guard.check(data, encoding, all=True)
    expected = []
    at = 0
    while (err := utf8guard.check(data[at:], encoding)) is not None:
        expected.append((at + err.start, at + err.end, err.error_len, err.kind))
        if err.error_len is None:
            break
        at += err.end
    assert as_tuples(found) == expected and all(e.encoding == encoding for e in found)
    assert utf8guard.check(b"valid", encoding, all=True) == []


def test_check_all_values_and_check_file(tmp_path):
    data = b"id,name\n1,Jos\xe9\n2,Jos\xe9\n\xf0\x9f"
    assert as_tuples(utf8guard.check(data, all=True)) == [
        (13, 14, 1, "too_short"), (20, 21, 1, "too_short"), (22, 24, None, "incomplete")]
    assert utf8guard.check(bytearray(data), all=False) == utf8guard.check(data)
    assert utf8guard.check(data, "utf-8", True)[0] == utf8guard.check(data)
    path = tmp_path / "f.csv"
    path.write_bytes(data)
    assert utf8guard.check_file(path, all=True) == utf8guard.check(data, all=True)
