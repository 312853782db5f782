"""Values inside nested and dictionary columns, and the bytes under null slots."""

import io

import pytest

import utf8guard

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

INVALID = "byte that never appears in UTF-8"
CUT_SHORT = "multi-byte sequence cut short"


def strings(values, typ=pa.string()):
    """A string array of ``values`` (bytes), valid UTF-8 or not, as an unchecked producer could send."""
    binary_type = {pa.string(): pa.binary(), pa.large_string(): pa.large_binary(), pa.string_view(): pa.binary_view()}
    binary = pa.array(values, binary_type.get(typ, typ))
    return pa.Array.from_buffers(typ, len(binary), binary.buffers(), null_count=binary.null_count)


def raised(call):
    with pytest.raises(utf8guard.ArrowUtf8Error) as info:
        call()
    e = info.value
    return str(e), (e.column, e.column_index, e.row, e.path, e.dictionary_index, e.offset, e.error_len, e.kind)


def pyarrow_refuses(array):
    with pytest.raises(pa.ArrowInvalid):
        array.validate(full=True)


def test_struct_fields():
    x = strings([b"a", b"b", b"\xff"])
    y = strings([b"ok", b"b\xc3(", b"ok"])
    s = pa.StructArray.from_arrays([x, y], names=["x", "y"])
    pyarrow_refuses(s)
    batch = pa.record_batch({"id": pa.array([1, 2, 3]), "s": s})
    # The lowest row first, whichever field it is in.
    assert raised(lambda: utf8guard.validate_batch(batch)) == (
        f'column 1 ("s"), row 1, field "y": invalid UTF-8 at byte 1 of the value ({CUT_SHORT})',
        ("s", 1, 1, ("y",), None, 1, 1, "too_short"),
    )
    assert raised(lambda: utf8guard.validate_array(s)) == (
        f'row 1, field "y": invalid UTF-8 at byte 1 of the value ({CUT_SHORT})',
        (None, None, 1, ("y",), None, 1, 1, "too_short"),
    )
    # A slice: its rows count from its first; the struct's offset applies to its fields.
    assert raised(lambda: utf8guard.validate_batch(batch.slice(2)))[1] == ("s", 1, 0, ("x",), None, 0, 1, "invalid_byte")
    assert utf8guard.validate_batch(batch.slice(0, 1)) is None
    assert utf8guard.validate_array(s.slice(0, 1)) is None


@pytest.mark.parametrize("list_type", [pa.list_, pa.large_list, pa.list_view], ids=["list", "large_list", "list_view"])
def test_list_elements(list_type):
    values = strings([b"a", b"b", b"c", b"d\xff", b"e"])
    if list_type is pa.list_view:
        lists = pa.ListViewArray.from_arrays(pa.array([0, 1, 1, 4], pa.int32()), pa.array([1, 0, 4, 1], pa.int32()), values)
    else:
        offsets = pa.array([0, 1, 1, 4, 5], pa.int64() if list_type is pa.large_list else pa.int32())
        lists = (pa.LargeListArray if list_type is pa.large_list else pa.ListArray).from_arrays(offsets, values)
    pyarrow_refuses(lists)
    table = pa.table({"tags": lists})
    assert raised(lambda: utf8guard.validate_batch(table)) == (
        f'column 0 ("tags"), row 2, element 2: invalid UTF-8 at byte 1 of the value ({INVALID})',
        ("tags", 0, 2, (2,), None, 1, 1, "invalid_byte"),
    )
    assert raised(lambda: utf8guard.validate_array(lists))[1][2:4] == (2, (2,))
    assert utf8guard.validate_array(lists.slice(3)) is None
    assert utf8guard.validate_array(lists.slice(0, 2)) is None


def test_fixed_size_lists_and_maps():
    fixed = pa.FixedSizeListArray.from_arrays(strings([b"a", b"b", b"c", b"\xc3("]), 2)
    assert raised(lambda: utf8guard.validate_array(fixed))[1][2:4] == (1, (1,))
    maps = pa.MapArray.from_arrays(pa.array([0, 2, 3], pa.int32()), strings([b"k", b"l", b"m"]), strings([b"v", b"w", b"\xff"]))
    assert raised(lambda: utf8guard.validate_batch(pa.record_batch({"m": maps}))) == (
        f'column 0 ("m"), row 1, element 0, field "value": invalid UTF-8 at byte 0 of the value ({INVALID})',
        ("m", 0, 1, (0, "value"), None, 0, 1, "invalid_byte"),
    )


@pytest.mark.parametrize("value_type", [pa.string(), pa.binary(), pa.large_binary(), pa.binary_view()], ids=str)
def test_dictionary_columns(value_type):
    entries = [b"red", b"gr\xc3(n", b"blue"]
    dictionary = strings(entries, value_type) if value_type == pa.string() else pa.array(entries, value_type)
    arr = pa.DictionaryArray.from_arrays(pa.array([0, 2, None, 1, 1], pa.int8()), dictionary)
    if value_type == pa.string():
        pyarrow_refuses(arr)
    batch = pa.record_batch({"id": pa.array(range(5)), "colour": arr})
    message = f'column 1 ("colour"), row 3 (dictionary entry 1): invalid UTF-8 at byte 2 of the value ({CUT_SHORT})'
    assert raised(lambda: utf8guard.validate_batch(batch)) == (message, ("colour", 1, 3, (), 1, 2, 1, "too_short"))
    assert raised(lambda: utf8guard.validate_array(arr))[1] == (None, None, 3, (), 1, 2, 1, "too_short")
    assert raised(lambda: utf8guard.binary_to_string(arr))[1][2:5] == (3, (), 1)
    # A bad entry that no row uses is still a bad value of the array.
    unused = arr.slice(0, 3)
    assert raised(lambda: utf8guard.binary_to_string(unused)) == (
        f"dictionary entry 1, which no row uses: invalid UTF-8 at byte 2 of the value ({CUT_SHORT})",
        (None, None, None, (), 1, 2, 1, "too_short"),
    )


@pytest.mark.parametrize("value_type", [pa.binary(), pa.large_binary(), pa.binary_view()], ids=str)
def test_dictionary_of_binary_converts(value_type):
    string_of = {pa.binary(): pa.string(), pa.large_binary(): pa.large_string(), pa.binary_view(): pa.string_view()}
    good = pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 1], pa.int16()), pa.array([b"caf\xc3\xa9", b"tea"], value_type))
    out = utf8guard.binary_to_string(good)
    assert out.type == pa.dictionary(pa.int16(), string_of[value_type])
    assert out.to_pylist() == ["café", "tea", None, "tea"]
    # The keys are shared.
    assert out.indices.buffers()[1].address == good.indices.buffers()[1].address
    out.validate(full=True)
    bad = pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 1, 0], pa.int16()), pa.array([b"caf\xe9", b"tea"], value_type))
    out = utf8guard.binary_to_string(bad, errors="null")
    assert out.to_pylist() == [None, "tea", None, "tea", None]
    assert out.null_count == 3
    out.validate(full=True)
    out = utf8guard.binary_to_string(bad, errors="windows-1252")
    assert out.to_pylist() == ["café", "tea", None, "tea", "café"]
    chunked = utf8guard.binary_to_string(pa.chunked_array([bad, bad]), errors="replace")
    assert chunked.type == pa.dictionary(pa.int16(), string_of[value_type])
    assert chunked.to_pylist() == ["caf\ufffd", "tea", None, "tea", "caf\ufffd"] * 2
    out = utf8guard.batch_binary_to_string(pa.record_batch({"d": bad}), errors="null")
    assert out.schema.types == [pa.dictionary(pa.int16(), string_of[value_type])]
    assert out.column("d").to_pylist() == [None, "tea", None, "tea", None]


def test_parquet_read_dictionary():
    pq = pytest.importorskip("pyarrow.parquet")
    sink = io.BytesIO()
    pq.write_table(pa.table({"raw": pa.array([b"ok", b"caf\xe9", b"ok"] * 10, pa.binary())}), sink)
    table = pq.read_table(io.BytesIO(sink.getvalue()), read_dictionary=["raw"])
    assert pa.types.is_dictionary(table.schema.field("raw").type)
    assert raised(lambda: utf8guard.validate_batch(table))[1][:5] == ("raw", 0, 1, (), 1)
    out = utf8guard.batch_binary_to_string(table, errors="latin-1")
    assert out.column("raw").to_pylist() == ["ok", "café", "ok"] * 10


def test_nested_path():
    inner = pa.DictionaryArray.from_arrays(pa.array([0, 0, 1], pa.int32()), strings([b"fine", b"\xff"]))
    lists = pa.ListArray.from_arrays(pa.array([0, 1, 3], pa.int32()), inner)
    s = pa.StructArray.from_arrays([lists], names=["tags"])
    assert raised(lambda: utf8guard.validate_batch(pa.table({"s": s}))) == (
        f'column 0 ("s"), row 1, field "tags", element 1 (dictionary entry 1): invalid UTF-8 at byte 0 of the value ({INVALID})',
        ("s", 0, 1, ("tags", 1), 1, 0, 1, "invalid_byte"),
    )


def test_columns_without_text_are_not_read():
    batch = pa.record_batch({"n": pa.array([[1, 2], None]), "s": pa.array([{"x": 1}, None])})
    assert utf8guard.validate_batch(batch) is None


def test_unions_holding_text_are_refused():
    union = pa.UnionArray.from_sparse(pa.array([0, 1], pa.int8()), [strings([b"a", b"\xff"]), pa.array([1, 2])])
    with pytest.raises(TypeError, match="not read inside it yet"):
        utf8guard.validate_batch(pa.record_batch({"u": union}))


# Bytes under null slots: arbitrary by the Arrow format, accepted by pyarrow's
# full validation and its cast.


def with_nulls(typ, values, valid):
    """``values`` as an array of ``typ`` whose rows are null where ``valid`` is false, their bytes kept."""
    dense = pa.array(values, typ)
    bits = sum(1 << i for i, v in enumerate(valid) if v)
    validity = pa.py_buffer(bits.to_bytes((len(values) + 7) // 8, "little"))
    return pa.Array.from_buffers(typ, len(values), [validity] + dense.buffers()[1:], null_count=valid.count(False))


@pytest.mark.parametrize("typ", [pa.binary(), pa.large_binary(), pa.binary_view()], ids=str)
def test_bytes_under_nulls_are_not_read(typ):
    string_of = {pa.binary(): pa.string(), pa.large_binary(): pa.large_string(), pa.binary_view(): pa.string_view()}[typ]
    arr = with_nulls(typ, [b"a", b"\xff", b"c" * 20, b"b\xc3(" * 8], [True, False, True, False])
    arr.validate(full=True)
    cast = pc.cast(arr, string_of)
    assert cast.to_pylist() == ["a", None, "c" * 20, None]
    assert utf8guard.validate_array(arr) is None
    out = utf8guard.binary_to_string(arr)
    assert out.type == string_of
    assert out.equals(cast)
    assert out.null_count == 2
    # The bad bytes under the nulls are left out, for a result that is UTF-8 throughout.
    out.validate(full=True)
    assert out.to_pylist() == ["a", None, "c" * 20, None]
    assert utf8guard.binary_to_string(arr, errors="null").to_pylist() == ["a", None, "c" * 20, None]
    assert utf8guard.binary_to_string(arr, errors="replace").to_pylist() == ["a", None, "c" * 20, None]
    batch = pa.record_batch({"raw": arr, "text": with_nulls(string_of, ["x", "y", "z", "w"], [True, True, True, True])})
    assert utf8guard.validate_batch(batch) is None
    assert utf8guard.batch_binary_to_string(batch).column("raw").to_pylist() == ["a", None, "c" * 20, None]
    # A bad value that is not null is still found, past the null ones.
    arr = with_nulls(typ, [b"a", b"\xff", b"c", b"b\xc3("], [True, False, True, True])
    assert raised(lambda: utf8guard.validate_array(arr))[1][2:] == (3, (), None, 1, 1, "too_short")
    assert raised(lambda: utf8guard.binary_to_string(arr))[1][2] == 3
    assert raised(lambda: utf8guard.validate_batch(pa.record_batch({"raw": arr})))[1][2] == 3


def test_strings_under_nulls():
    bad = strings([b"a", b"\xff", b"c"])
    arr = pa.Array.from_buffers(pa.string(), 3, [pa.py_buffer(b"\x05")] + bad.buffers()[1:], null_count=1)
    arr.validate(full=True)
    assert utf8guard.validate_array(arr) is None
    assert utf8guard.validate_batch(pa.record_batch({"s": arr})) is None
    out = utf8guard.binary_to_string(arr)
    assert out.to_pylist() == ["a", None, "c"]
    out.validate(full=True)
    # A null dictionary entry, and a null key naming a bad entry.
    dictionary = pa.DictionaryArray.from_arrays(pa.array([0, None, 0], pa.int8()), strings([b"a", b"\xff"]).slice(0, 2))
    keys = pa.array([0, 1, 0], pa.int8()).buffers()[1]
    masked = pa.DictionaryArray.from_buffers(
        dictionary.type, 3, [pa.py_buffer(b"\x05"), keys], strings([b"a", b"\xff"]), null_count=1
    )
    assert masked.to_pylist() == ["a", None, "a"]
    # The entry is bad all the same (no row uses it), as pyarrow's full validation finds.
    pyarrow_refuses(masked)
    assert raised(lambda: utf8guard.validate_array(masked))[1][2:5] == (None, (), 1)
    assert utf8guard.binary_to_string(masked, errors="null").to_pylist() == ["a", None, "a"]
    null_entry = pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int8()), with_nulls(pa.binary(), [b"a", b"\xff"], [True, False]))
    assert utf8guard.validate_array(null_entry) is None
    assert utf8guard.binary_to_string(null_entry).to_pylist() == ["a", None]
