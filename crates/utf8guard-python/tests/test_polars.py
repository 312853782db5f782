"""polars Series and DataFrames through the Arrow PyCapsule interface.

Skipped when polars is not importable, except in CI (CI=true), where
scripts/test.sh installs it and its absence is a failure.
"""

import os

import pytest

import utf8guard

try:
    import polars as pl
except ImportError:
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("polars is not installed", allow_module_level=True)

pa = pytest.importorskip("pyarrow")

RAW = [b"ok", "caf\u00e9".encode(), None, b"b\xffd", "\u6771\u4eac \U0001f600".encode(), b""]
GOOD = [v for i, v in enumerate(RAW) if i != 3]


def binary_series(values, name="raw"):
    return pl.Series(name, values, dtype=pl.Binary)


def test_series_validate_and_convert():
    with pytest.raises(utf8guard.ArrowUtf8Error) as info:
        utf8guard.validate_array(binary_series(RAW))
    assert (info.value.row, info.value.offset, info.value.error_len, info.value.kind) == (
        3,
        1,
        1,
        "invalid_byte",
    )
    assert utf8guard.validate_array(binary_series(GOOD)) is None

    out = utf8guard.binary_to_string(binary_series(RAW), errors="replace")
    assert isinstance(out, pl.Series)
    assert (out.name, out.dtype) == ("raw", pl.String)
    assert out.to_list() == [None if v is None else v.decode("utf-8", "replace") for v in RAW]

    out = utf8guard.binary_to_string(binary_series(RAW), errors="null")
    assert out.to_list() == ["ok", "caf\u00e9", None, None, "\u6771\u4eac \U0001f600", ""]
    assert out.null_count() == 2
    with pytest.raises(utf8guard.ArrowUtf8Error):
        utf8guard.binary_to_string(binary_series(RAW))


def test_chunked_series_count_rows_across_chunks():
    series = pl.concat([binary_series(GOOD), binary_series(RAW)], rechunk=False)
    assert series.n_chunks() == 2
    with pytest.raises(utf8guard.ArrowUtf8Error) as info:
        utf8guard.validate_array(series)
    assert info.value.row == len(GOOD) + 3
    out = utf8guard.binary_to_string(series, errors="replace")
    assert out.to_list() == [None if v is None else v.decode("utf-8", "replace") for v in GOOD + RAW]


def test_dataframe_validate_and_convert():
    df = pl.DataFrame(
        {
            "id": list(range(len(RAW))),
            "name": ["a", "b", None, "d", "e", "f"],
            "raw": binary_series(RAW),
        }
    )
    with pytest.raises(utf8guard.ArrowUtf8Error) as info:
        utf8guard.validate_batch(df)
    assert (info.value.column, info.value.column_index, info.value.row, info.value.offset) == (
        "raw",
        2,
        3,
        1,
    )
    out = utf8guard.batch_binary_to_string(df, errors="replace")
    assert isinstance(out, pl.DataFrame)
    assert out.schema == pl.Schema({"id": pl.Int64, "name": pl.String, "raw": pl.String})
    assert out["raw"].to_list() == [None if v is None else v.decode("utf-8", "replace") for v in RAW]
    assert out["id"].to_list() == df["id"].to_list()
    assert out["name"].to_list() == df["name"].to_list()

    good = df.filter(pl.col("id") != 3)
    assert utf8guard.validate_batch(good) is None
    assert utf8guard.batch_binary_to_string(good)["raw"].to_list() == [
        None if v is None else v.decode() for v in GOOD
    ]


def test_results_go_to_polars_and_pyarrow():
    # The extension's own results, from a source that is neither library's.
    table = pa.table({"raw": pa.array(RAW, pa.binary()), "n": pa.array(range(len(RAW)), pa.int8())})
    stream = utf8guard._utf8guard.batch_binary_to_string(table, "null")
    assert isinstance(stream, utf8guard.ArrowStream)
    df = pl.DataFrame(stream)
    assert df.schema == pl.Schema({"raw": pl.String, "n": pl.Int8})
    assert df["raw"].to_list() == ["ok", "caf\u00e9", None, None, "\u6771\u4eac \U0001f600", ""]
    array = utf8guard._utf8guard.binary_to_string(pa.array(GOOD, pa.large_binary()))
    assert pl.Series(array).to_list() == [None if v is None else v.decode() for v in GOOD]
