"""Writes pyarrow_bad_strings.parquet beside this script: a Parquet file
as pyarrow writes it (dictionary pages, the Arrow schema embedded, three
row groups of at most two rows) whose STRING column holds bytes that are
not UTF-8, put there with Array.from_buffers, which does not check them.
tests/parquet_format.rs reads it; run this again only to change it.

    python3 pyarrow_bad_strings.py   (pyarrow 26 wrote the file checked in)
"""

import pathlib

import pyarrow as pa
import pyarrow.parquet as pq

names = pa.array([b"Ana", None, b"Jos\xe9", "café".encode(), b"\xe2\x82"], pa.binary())
strings = pa.Array.from_buffers(pa.string(), len(names), names.buffers(), null_count=names.null_count)
table = pa.table({"id": pa.array([1, 2, 3, 4, 5], pa.int64()), "name": strings})
pq.write_table(table, pathlib.Path(__file__).with_suffix(".parquet"), row_group_size=2)
