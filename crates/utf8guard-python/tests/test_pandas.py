"""pandas Series and DataFrames in and out, through pyarrow (skipped without pandas)."""

import pytest

import utf8guard

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")


def test_series_in_and_out():
    s = pd.Series([b"ok", b"caf\xe9", None], name="raw", index=[10, 20, 30])
    out = utf8guard.binary_to_string(s, errors="replace")
    assert isinstance(out, pd.Series)
    assert (out.name, list(out.index)) == ("raw", [10, 20, 30])
    assert out.tolist()[:2] == ["ok", "caf\ufffd"] and pd.isna(out.tolist()[2])
    assert utf8guard.binary_to_string(s, errors="windows-1252").tolist()[:2] == ["ok", "café"]
    with pytest.raises(utf8guard.ArrowUtf8Error) as info:
        utf8guard.validate_array(s)
    assert (info.value.row, info.value.offset, info.value.kind) == (1, 3, "incomplete")
    assert str(info.value) == "row 1: invalid UTF-8 at byte 3 of the value (input ends inside a multi-byte sequence)"
    assert utf8guard.validate_array(pd.Series([b"a", "é".encode()])) is None


def test_arrow_backed_series_stays_arrow_backed():
    s = pd.Series(pa.array([b"ok", b"\xff"], pa.binary()), dtype=pd.ArrowDtype(pa.binary()))
    out = utf8guard.binary_to_string(s, errors="replace")
    assert out.dtype == pd.ArrowDtype(pa.string())
    assert out.tolist() == ["ok", "\ufffd"]


def test_dataframe_in_and_out():
    df = pd.DataFrame({"id": [1, 2], "name": ["Ana", "Bo"], "raw": [b"ok", b"caf\xe9"]}, index=["a", "b"])
    with pytest.raises(utf8guard.ArrowUtf8Error) as info:
        utf8guard.validate_batch(df)
    assert (info.value.column, info.value.column_index, info.value.row, info.value.offset) == ("raw", 2, 1, 3)
    out = utf8guard.batch_binary_to_string(df, errors="windows-1252")
    assert isinstance(out, pd.DataFrame)
    assert list(out.index) == ["a", "b"] and list(out.columns) == ["id", "name", "raw"]
    assert out["raw"].tolist() == ["ok", "café"] and out["id"].tolist() == [1, 2]
    assert utf8guard.validate_batch(out) is None
