"""Record batches and tables through the Arrow PyCapsule interface, against pyarrow."""

import pytest

import utf8guard

pa = pytest.importorskip("pyarrow")

RAW = [b"plain", "Größe".encode(), None, b"", "東京 😀".encode(), b"x" * 40, None, b"tail"]
BAD_RAW = list(RAW)
BAD_RAW[5] = b"ok \xe0\x80\x80 long enough to be out of line"  # overlong at byte 3
BINARY_TYPES = [pa.binary(), pa.large_binary(), pa.binary_view()]
STRING_OF = {
    pa.binary(): pa.string(),
    pa.large_binary(): pa.large_string(),
    pa.binary_view(): pa.string_view(),
}


def make_batch(raw, typ=pa.binary(), text_type=pa.string()):
    """Four columns: ints, a string column, a binary one, a nested one."""
    n = len(raw)
    return pa.record_batch(
        {
            "id": pa.array(range(n), pa.int64()),
            "name": pa.array([f"n{i}" if i % 3 else None for i in range(n)], text_type),
            "raw": pa.array(raw, typ),
            "tags": pa.array([[i, i + 1] for i in range(n)], pa.list_(pa.int32())),
        },
        metadata={"source": "test"},
    )


def decoded(values, errors="strict"):
    return [None if v is None else v.decode("utf-8", errors) for v in values]


def addresses(array):
    return [b.address for b in array.buffers() if b is not None]


@pytest.mark.parametrize("typ", BINARY_TYPES, ids=str)
def test_valid_batch_converts_and_shares_buffers(typ):
    batch = make_batch(RAW, typ)
    out = utf8guard.batch_binary_to_string(batch)
    assert isinstance(out, pa.RecordBatch)
    assert out.schema.names == ["id", "name", "raw", "tags"]
    assert out.schema.types == [pa.int64(), pa.string(), STRING_OF[typ], pa.list_(pa.int32())]
    assert out.schema.metadata == {b"source": b"test"}
    assert out.column("raw").to_pylist() == decoded(RAW)
    assert out.column("raw").null_count == 2
    # Zero-copy: every column, the converted one included, on the input's buffers.
    for name in ["id", "name", "raw", "tags"]:
        assert addresses(out.column(name)) == addresses(batch.column(name)), name
    assert out.column("name").equals(batch.column("name"))
    assert out.column("tags").equals(batch.column("tags"))
    assert utf8guard.validate_batch(batch) is None
    assert utf8guard.validate_batch(out) is None


@pytest.mark.parametrize("typ", BINARY_TYPES, ids=str)
def test_strict_names_the_column_row_and_offset(typ):
    batch = make_batch(BAD_RAW, typ)
    for call in (utf8guard.validate_batch, utf8guard.batch_binary_to_string):
        with pytest.raises(utf8guard.ArrowUtf8Error) as info:
            call(batch)
        e = info.value
        assert (e.column, e.column_index, e.row, e.offset, e.error_len, e.kind) == (
            "raw",
            2,
            5,
            3,
            1,
            "overlong",
        )
        assert str(e) == (
            'column 2 ("raw"), row 5: invalid UTF-8 at byte 3 of the value (overlong encoding)'
        )
        assert isinstance(e, ValueError)


def test_array_errors_name_no_column():
    with pytest.raises(utf8guard.ArrowUtf8Error) as info:
        utf8guard.validate_array(pa.array([b"\xff"]))
    assert (info.value.column, info.value.column_index, info.value.row) == (None, None, 0)


def test_string_columns_are_validated_not_converted():
    # A string column whose bytes are not UTF-8 (built from a binary one's
    # buffers, as an unchecked producer could): validate_batch finds it,
    # batch_binary_to_string leaves it as it is.
    binary = pa.array([b"fine", b"b\xc3d"], pa.binary())
    bad = pa.Array.from_buffers(pa.string(), 2, binary.buffers())
    batch = pa.record_batch({"ok": pa.array([b"a", b"b"]), "text": bad})
    with pytest.raises(utf8guard.ArrowUtf8Error) as info:
        utf8guard.validate_batch(batch)
    assert (info.value.column, info.value.column_index, info.value.row, info.value.offset) == (
        "text",
        1,
        1,
        1,
    )
    out = utf8guard.batch_binary_to_string(batch)
    assert out.schema.types == [pa.string(), pa.string()]
    assert addresses(out.column("text")) == addresses(bad)


@pytest.mark.parametrize("typ", BINARY_TYPES, ids=str)
def test_errors_null_and_policies(typ):
    batch = make_batch(BAD_RAW, typ)
    out = utf8guard.batch_binary_to_string(batch, errors="null")
    expected = decoded(RAW)
    expected[5] = None
    assert out.column("raw").to_pylist() == expected
    assert out.column("raw").null_count == 3
    out = utf8guard.batch_binary_to_string(batch, errors="replace")
    assert out.column("raw").to_pylist() == decoded(BAD_RAW, "replace")
    assert out.column("raw").type == STRING_OF[typ]
    # The other columns are untouched.
    assert out.column("tags").equals(batch.column("tags"))
    assert addresses(out.column("id")) == addresses(batch.column("id"))


def test_errors_null_makes_a_non_nullable_field_nullable():
    schema = pa.schema([pa.field("raw", pa.binary(), nullable=False)])
    batch = pa.record_batch([pa.array([b"a", b"\xff"])], schema=schema)
    out = utf8guard.batch_binary_to_string(batch, errors="null")
    assert out.schema.field("raw").nullable
    assert out.column("raw").to_pylist() == ["a", None]
    out = utf8guard.batch_binary_to_string(batch, errors="replace")
    assert not out.schema.field("raw").nullable
    assert out.column("raw").to_pylist() == ["a", "\ufffd"]


@pytest.mark.parametrize("start,length", [(0, 0), (1, 3), (3, 5), (7, 1), (2, 6)])
def test_slices(start, length):
    batch = make_batch(BAD_RAW).slice(start, length)
    values = BAD_RAW[start : start + length]
    bad = 5 in range(start, start + length)
    out = utf8guard.batch_binary_to_string(batch, errors="replace")
    assert out.num_rows == length
    assert out.column("raw").to_pylist() == decoded(values, "replace")
    assert out.column("id").to_pylist() == list(range(start, start + length))
    if bad:
        with pytest.raises(utf8guard.ArrowUtf8Error) as info:
            utf8guard.validate_batch(batch)
        assert info.value.row == 5 - start
    else:
        assert utf8guard.validate_batch(batch) is None
        assert utf8guard.batch_binary_to_string(batch).column("raw").to_pylist() == decoded(values)


def test_chunked_tables_count_rows_across_batches():
    batches = [make_batch(RAW), make_batch(RAW[:3]), make_batch(BAD_RAW)]
    table = pa.Table.from_batches(batches)
    with pytest.raises(utf8guard.ArrowUtf8Error) as info:
        utf8guard.validate_batch(table)
    assert (info.value.column, info.value.row, info.value.offset) == ("raw", 8 + 3 + 5, 3)
    out = utf8guard.batch_binary_to_string(table, errors="replace")
    assert isinstance(out, pa.Table)
    assert out.schema.metadata == {b"source": b"test"}
    assert out.column("raw").num_chunks == 3
    assert out.column("raw").to_pylist() == decoded(RAW + RAW[:3] + BAD_RAW, "replace")
    assert out.column("name").equals(table.column("name"))
    good = pa.Table.from_batches(batches[:2])
    out = utf8guard.batch_binary_to_string(good)
    assert out.column("raw").type == pa.string()
    assert out.column("raw").to_pylist() == decoded(RAW + RAW[:3])
    for i in range(2):
        assert addresses(out.column("raw").chunk(i)) == addresses(good.column("raw").chunk(i))


def test_empty_table_keeps_its_schema():
    schema = pa.schema([("raw", pa.large_binary()), ("n", pa.int8())])
    table = schema.empty_table()
    assert utf8guard.validate_batch(table) is None
    out = utf8guard.batch_binary_to_string(table)
    assert out.schema == pa.schema([("raw", pa.large_string()), ("n", pa.int8())])
    assert out.num_rows == 0


def test_readers_give_readers():
    table = pa.Table.from_batches([make_batch(RAW), make_batch(RAW)])
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
    out = utf8guard.batch_binary_to_string(reader)
    assert isinstance(out, pa.RecordBatchReader)
    assert out.read_all().column("raw").to_pylist() == decoded(RAW + RAW)


CONSUMED = ("this RecordBatchReader was read to its end by an earlier call: it has no rows left; "
            "read it into a Table (reader.read_all()) to pass its rows more than once")


def test_a_reader_read_to_its_end_is_refused():
    # A reader is read once: a second call would see no rows, and pass.
    bad = pa.table({"raw": pa.array([b"ok", b"\xff"], pa.binary())})
    for first, second in [(utf8guard.validate_batch, utf8guard.validate_batch),
                          (utf8guard.batch_binary_to_string, utf8guard.validate_batch),
                          (utf8guard.validate_batch, utf8guard.batch_binary_to_string)]:
        good = pa.table({"raw": pa.array([b"ok"], pa.binary())})
        reader = pa.RecordBatchReader.from_batches(good.schema, good.to_batches())
        first(reader)
        with pytest.raises(ValueError) as info:
            second(reader)
        assert str(info.value) == CONSUMED
    reader = pa.RecordBatchReader.from_batches(bad.schema, bad.to_batches())
    with pytest.raises(utf8guard.ArrowUtf8Error):
        utf8guard.validate_batch(reader)
    with pytest.raises(ValueError, match="read to its end"):
        utf8guard.validate_batch(reader)


def test_results_export_themselves():
    # Inputs that are not pyarrow's own objects give the extension's
    # classes, which any consumer of the PyCapsule interface takes.
    class Capsules:
        def __init__(self, obj, method):
            self.obj, self.method = obj, method

        def __getattr__(self, name):
            if name == self.method:
                return getattr(self.obj, name)
            raise AttributeError(name)

    batch = make_batch(RAW)
    # The size of a values buffer is not known through the capsules alone:
    # the binary column is refused unless the producer is trusted.
    with pytest.raises(ValueError, match=r'^column 2 \("raw"\): the values buffer\'s size is not known'):
        utf8guard.batch_binary_to_string(Capsules(batch, "__arrow_c_array__"))
    out = utf8guard.batch_binary_to_string(Capsules(batch, "__arrow_c_array__"), trust_offsets=True)
    assert isinstance(out, utf8guard.ArrowBatch)
    assert (out.num_rows, len(out), out.column_names) == (8, 8, ["id", "name", "raw", "tags"])
    assert repr(out).startswith("ArrowBatch(num_rows=8, schema=[id: Int64, name: Utf8, raw: Utf8")
    # Exported anew on each call.
    first, second = pa.record_batch(out), pa.record_batch(out)
    assert first.equals(second)
    assert first.column("raw").to_pylist() == decoded(RAW)
    assert first.schema.metadata == {b"source": b"test"}

    table = pa.Table.from_batches([batch, batch.slice(2, 3)])
    out = utf8guard.batch_binary_to_string(Capsules(table, "__arrow_c_stream__"), trust_offsets=True)
    assert isinstance(out, utf8guard.ArrowStream)
    assert (out.num_rows, out.num_batches) == (11, 2)
    first, second = pa.table(out), pa.table(out)
    assert first.equals(second)
    assert first.column("raw").to_pylist() == decoded(RAW + RAW[2:5])
    assert utf8guard.validate_batch(out) is None


def test_unsupported_inputs():
    with pytest.raises(TypeError, match="record batch or table"):
        utf8guard.validate_batch(b"bytes")
    with pytest.raises(TypeError, match="struct-typed"):
        utf8guard.validate_batch(pa.array([b"a"]))
    with pytest.raises(TypeError, match="struct-typed"):
        utf8guard.batch_binary_to_string(pa.chunked_array([[b"a"]]))
    with pytest.raises(ValueError, match="surrogateescape"):
        utf8guard.batch_binary_to_string(make_batch(RAW), errors="surrogateescape")
    with pytest.raises(LookupError):
        utf8guard.batch_binary_to_string(make_batch(RAW), errors="nonsense")
    # A struct array with null rows is not a record batch.
    nulls = pa.StructArray.from_arrays(
        [pa.array([b"a", b"b"])], names=["raw"], mask=pa.array([False, True])
    )
    with pytest.raises(ValueError, match="null rows"):
        utf8guard.validate_batch(nulls)


def test_a_struct_array_is_a_batch():
    struct = pa.StructArray.from_arrays([pa.array([b"a", b"\xc3\xa9"])], names=["raw"])
    out = utf8guard.batch_binary_to_string(struct.slice(1))
    assert isinstance(out, pa.RecordBatch)
    assert out.to_pydict() == {"raw": ["é"]}
