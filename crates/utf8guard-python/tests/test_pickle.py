"""The result and exception types pickle and copy, attributes intact."""

import copy
import multiprocessing
import pickle

import pytest

import utf8guard

EXPECTED = (
    "Utf8Error(encoding='utf-8', valid_up_to=3, error_len=1, end=4, "
    "kind='too_short', reason='multi-byte sequence cut short')"
)


def attributes(e):
    return (e.encoding, e.valid_up_to, e.start, e.end, e.error_len, e.kind, e.reason)


def test_utf8_error_pickles_and_copies():
    err = utf8guard.check(b"caf\xe9!")
    assert repr(err) == EXPECTED
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(err, protocol))
        assert type(back) is utf8guard.Utf8Error
        assert back == err
        assert attributes(back) == ("utf-8", 3, 3, 4, 1, "too_short", "multi-byte sequence cut short")
    assert copy.copy(err) == err and repr(copy.copy(err)) == EXPECTED
    assert copy.deepcopy(err) == err
    cut = utf8guard.check(b"ab\xed\xa0", "cesu-8")
    assert attributes(pickle.loads(pickle.dumps(cut))) == attributes(cut)
    assert pickle.loads(pickle.dumps(cut)).error_len is None


def test_check_file_through_a_process_pool(tmp_path):
    paths = []
    for i, data in enumerate([b"ok\n", b"caf\xe9!", b"x" * 10 + b"\xed\xa0\x80"]):
        path = tmp_path / f"{i}.txt"
        path.write_bytes(data)
        paths.append(str(path))
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.map(utf8guard.check_file, paths)
    assert results[0] is None
    assert repr(results[1]) == EXPECTED
    assert attributes(results[2]) == ("utf-8", 10, 10, 11, 1, "surrogate", results[2].reason)
    assert results[2] == utf8guard.check_file(paths[2])


def test_arrow_utf8_error_pickles_and_copies():
    pa = pytest.importorskip("pyarrow")
    with pytest.raises(utf8guard.ArrowUtf8Error) as info:
        utf8guard.validate_batch(pa.record_batch({"raw": pa.array([b"a", b"b\xff"], pa.binary())}))
    err = info.value
    for back in (pickle.loads(pickle.dumps(err)), copy.copy(err), copy.deepcopy(err)):
        assert type(back) is utf8guard.ArrowUtf8Error
        assert str(back) == str(err) == (
            'column 0 ("raw"), row 1: invalid UTF-8 at byte 1 of the value (byte that never appears in UTF-8)'
        )
        assert (back.column, back.column_index, back.row, back.path, back.offset, back.error_len, back.kind) == (
            "raw", 0, 1, (), 1, 1, "invalid_byte"
        )
