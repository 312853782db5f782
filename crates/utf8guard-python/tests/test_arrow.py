"""Arrow arrays through the Arrow PyCapsule interface, against pyarrow."""

import pytest

import utf8guard

pa = pytest.importorskip("pyarrow")
pc = pytest.importorskip("pyarrow.compute")

GOOD = [b"plain", "Größe".encode(), None, b"", "東京 😀".encode(), b"x" * 40, None, b"tail"] * 4
# Ill-formed values at known rows, each with its (offset, error_len, kind).
BAD_VALUES = {
    2: (b"bad \xc3\x28", 4, 1, "too_short"),
    5: (b"\xff", 0, 1, "invalid_byte"),
    9: (b"caf\xc3", 3, None, "incomplete"),
    13: (b"ok \xe0\x80\x80 long enough to be out of line", 3, 1, "overlong"),
    17: (b"\xed\xa0\x80", 0, 1, "surrogate"),
}
MIXED = list(GOOD)
for row, (value, *_rest) in BAD_VALUES.items():
    MIXED[row] = value

BINARY_TYPES = [pa.binary(), pa.large_binary(), pa.binary_view()]
STRING_OF = {
    pa.binary(): pa.string(),
    pa.large_binary(): pa.large_string(),
    pa.binary_view(): pa.string_view(),
}
POLICIES = {
    # errors= name: CPython's handler for the same result per value.
    "replace": "replace",
    "maximal-subpart": "replace",
    "ignore": "ignore",
    "drop": "ignore",
    "backslashreplace": "backslashreplace",
    "latin-1": "latin-1",
}


def expected(values, errors):
    out = []
    for v in values:
        if v is None:
            out.append(None)
        elif errors == "latin-1":
            try:
                out.append(v.decode("utf-8"))
            except UnicodeDecodeError:
                out.append(utf8guard.decode(v, errors="latin-1"))
        else:
            out.append(v.decode("utf-8", errors))
    return out


@pytest.mark.parametrize("typ", BINARY_TYPES, ids=str)
def test_valid_binary_converts_as_arrow_cast(typ):
    arr = pa.array(GOOD, typ)
    out = utf8guard.binary_to_string(arr)
    assert isinstance(out, pa.Array)
    assert out.type == STRING_OF[typ]
    assert out.equals(pc.cast(arr, STRING_OF[typ]))
    assert out.null_count == arr.null_count == 8
    assert utf8guard.validate_array(arr) is None


@pytest.mark.parametrize("typ", [pa.binary(), pa.large_binary()], ids=str)
def test_valid_binary_is_not_copied(typ):
    arr = pa.array(GOOD * 100, typ)
    out = utf8guard.binary_to_string(arr)
    # The same validity, offsets and values buffers.
    assert [b.address for b in out.buffers() if b is not None] == [
        b.address for b in arr.buffers() if b is not None
    ]


def test_valid_binary_view_is_not_copied():
    arr = pa.array(GOOD * 100, pa.binary_view())
    out = utf8guard.binary_to_string(arr)
    # The views and the out-of-line data buffers.
    assert out.buffers()[2].address == arr.buffers()[2].address
    assert out.buffers()[1].address == arr.buffers()[1].address


@pytest.mark.parametrize("start,length", [(0, 8), (3, 10), (10, 22), (31, 1), (5, 0)])
@pytest.mark.parametrize("typ", BINARY_TYPES, ids=str)
def test_slices(typ, start, length):
    arr = pa.array(GOOD, typ).slice(start, length)
    out = utf8guard.binary_to_string(arr)
    assert out.to_pylist() == [None if v is None else v.decode() for v in GOOD[start : start + length]]
    assert out.equals(pc.cast(arr, STRING_OF[typ]))


@pytest.mark.parametrize("typ", BINARY_TYPES, ids=str)
def test_strict_names_the_row_and_offset(typ):
    arr = pa.array(MIXED, typ)
    with pytest.raises(utf8guard.ArrowUtf8Error) as info:
        utf8guard.binary_to_string(arr)
    err = info.value
    value, offset, error_len, kind = BAD_VALUES[2]
    assert (err.row, err.offset, err.error_len, err.kind) == (2, offset, error_len, kind)
    assert str(err) == "row 2: invalid UTF-8 at byte 4 of the value (expected a continuation byte)" or str(
        err
    ).startswith("row 2: invalid UTF-8 at byte 4 of the value (")
    assert isinstance(err, ValueError)
    with pytest.raises(utf8guard.ArrowUtf8Error) as info:
        utf8guard.validate_array(arr)
    assert (info.value.row, info.value.offset) == (2, 4)


@pytest.mark.parametrize("typ", BINARY_TYPES, ids=str)
def test_every_bad_row_in_a_slice(typ):
    """Each bad row, as the first of a slice: its row in the slice, its offset, length and kind."""
    arr = pa.array(MIXED, typ)
    for row, (_value, offset, error_len, kind) in BAD_VALUES.items():
        sliced = arr.slice(row - 1)
        with pytest.raises(utf8guard.ArrowUtf8Error) as info:
            utf8guard.validate_array(sliced)
        err = info.value
        assert (err.row, err.offset, err.error_len, err.kind) == (1, offset, error_len, kind)
        # And the good rows before it convert.
        assert utf8guard.binary_to_string(arr.slice(row - 1, 1)).to_pylist() == [
            None if MIXED[row - 1] is None else MIXED[row - 1].decode()
        ]


@pytest.mark.parametrize("typ", BINARY_TYPES, ids=str)
def test_errors_null_is_arrow_safe_cast(typ):
    arr = pa.array(MIXED, typ)
    out = utf8guard.binary_to_string(arr, errors="null")
    assert out.type == STRING_OF[typ]
    want = [None if (i in BAD_VALUES or v is None) else v.decode() for i, v in enumerate(MIXED)]
    assert out.to_pylist() == want
    assert out.null_count == want.count(None) == 12


@pytest.mark.parametrize("errors", sorted(POLICIES))
@pytest.mark.parametrize("typ", BINARY_TYPES, ids=str)
def test_policies_repair_each_value(typ, errors):
    arr = pa.array(MIXED, typ)
    out = utf8guard.binary_to_string(arr, errors=errors)
    assert out.type == STRING_OF[typ]
    assert out.to_pylist() == expected(MIXED, POLICIES[errors])
    # Sliced too.
    out = utf8guard.binary_to_string(arr.slice(3, 12), errors=errors)
    assert out.to_pylist() == expected(MIXED[3:15], POLICIES[errors])


def test_the_library_policies():
    arr = pa.array([b"caf\xe9", b"ok", b"\xed\xa0\x80!"])
    assert utf8guard.binary_to_string(arr, errors="windows-1252").to_pylist() == ["café", "ok", "í\xa0€!"]
    assert utf8guard.binary_to_string(arr, errors="jvm").to_pylist() == ["caf\ufffd", "ok", "\ufffd!"]
    assert utf8guard.binary_to_string(arr, errors="per-byte").to_pylist() == [
        "caf\ufffd",
        "ok",
        "\ufffd\ufffd\ufffd!",
    ]


@pytest.mark.parametrize("typ", [pa.string(), pa.large_string(), pa.string_view()], ids=str)
def test_string_arrays_are_revalidated(typ):
    values = [None if v is None else v.decode() for v in GOOD]
    arr = pa.array(values, typ)
    assert utf8guard.validate_array(arr) is None
    out = utf8guard.binary_to_string(arr)
    assert out.type == typ
    assert out.equals(arr)
    # A string array with invalid bytes, as an untrusted source could
    # send: made by viewing a binary array's buffers as strings.
    binary = pa.array(MIXED, {pa.string(): pa.binary(), pa.large_string(): pa.large_binary(), pa.string_view(): pa.binary_view()}[typ])
    bad = pa.Array.from_buffers(typ, len(binary), binary.buffers(), null_count=binary.null_count)
    with pytest.raises(utf8guard.ArrowUtf8Error) as info:
        utf8guard.validate_array(bad)
    assert (info.value.row, info.value.offset) == (2, 4)
    assert utf8guard.binary_to_string(bad, errors="replace").to_pylist() == expected(MIXED, "replace")


def test_chunked_arrays_through_the_stream():
    chunks = [pa.array(GOOD, pa.binary()), pa.array(MIXED, pa.binary())]
    chunked = pa.chunked_array(chunks)
    with pytest.raises(utf8guard.ArrowUtf8Error) as info:
        utf8guard.validate_array(chunked)
    # Rows count across the chunks.
    assert (info.value.row, info.value.offset) == (len(GOOD) + 2, 4)
    out = utf8guard.binary_to_string(chunked, errors="replace")
    assert isinstance(out, pa.ChunkedArray)
    assert out.num_chunks == 2
    assert out.to_pylist() == expected(GOOD + MIXED, "replace")
    good = utf8guard.binary_to_string(pa.chunked_array([chunks[0], chunks[0]]))
    assert good.type == pa.string()
    assert good.to_pylist() == expected(GOOD * 2, "strict")
    empty = utf8guard.binary_to_string(pa.chunked_array([], pa.large_binary()))
    assert empty.type == pa.large_string() and len(empty) == 0


def test_the_result_exports_itself():
    """A non-pyarrow input gives an ArrowArray, which pyarrow imports (each
    export anew), through the capsule protocol."""

    class Producer:
        def __init__(self, arr):
            self.arr = arr

        def __arrow_c_array__(self, requested_schema=None):
            return self.arr.__arrow_c_array__(requested_schema)

    arr = pa.array(MIXED, pa.binary())
    out = utf8guard.binary_to_string(Producer(arr), errors="null", trust_offsets=True)
    assert isinstance(out, utf8guard.ArrowArray)
    assert (len(out), out.type, out.null_count) == (len(MIXED), "Utf8", 12)
    first = pa.array(out)
    second = pa.array(out)
    assert first.equals(second)
    assert first.to_pylist() == [None if (i in BAD_VALUES or v is None) else v.decode() for i, v in enumerate(MIXED)]
    assert "ArrowArray(type=Utf8" in repr(out)


def test_capsules_are_moved_out():
    """The consumer leaves released structs behind: importing the same
    capsules twice fails cleanly."""
    arr = pa.array(GOOD, pa.binary())
    schema, array = arr.__arrow_c_array__()

    class Once:
        def __arrow_c_array__(self, requested_schema=None):
            return schema, array

    assert utf8guard.binary_to_string(Once(), trust_offsets=True).__len__() == len(GOOD)
    with pytest.raises(ValueError, match="released"):
        utf8guard.binary_to_string(Once(), trust_offsets=True)


def test_unsupported_inputs():
    with pytest.raises(TypeError, match="not a binary or string type"):
        utf8guard.validate_array(pa.array([1, 2, 3]))
    with pytest.raises(TypeError, match="__arrow_c_array__"):
        utf8guard.validate_array(b"bytes")
    with pytest.raises(LookupError):
        utf8guard.binary_to_string(pa.array([b"a"]), errors="nonsense")
    with pytest.raises(ValueError, match="surrogate"):
        utf8guard.binary_to_string(pa.array([b"a"]), errors="surrogateescape")

    class Wrong:
        def __arrow_c_array__(self, requested_schema=None):
            return (1, 2)

    with pytest.raises(TypeError):
        utf8guard.validate_array(Wrong())


def test_large_column_matches_cast():
    values = [("é" * (i % 17) + str(i)).encode() for i in range(100_000)]
    arr = pa.array(values, pa.binary())
    assert utf8guard.binary_to_string(arr).equals(pc.cast(arr, pa.string()))
    values[77_777] = b"\xc0\xaf"
    with pytest.raises(utf8guard.ArrowUtf8Error) as info:
        utf8guard.binary_to_string(pa.array(values, pa.binary()))
    assert (info.value.row, info.value.offset, info.value.kind) == (77_777, 0, "invalid_byte")


def test_nothing_is_leaked():
    """Every export is released: pyarrow's allocations return to where they
    were, and the input's reference count too."""
    import sys

    arr = pa.array(MIXED * 1000, pa.binary())
    before = pa.total_allocated_bytes()
    refs = sys.getrefcount(arr)
    for _ in range(20):
        utf8guard.binary_to_string(arr, errors="replace")
        utf8guard.binary_to_string(arr.slice(0, 2))
        utf8guard._utf8guard.binary_to_string(arr, errors="null")
        with pytest.raises(utf8guard.ArrowUtf8Error):
            utf8guard.validate_array(arr)
    assert pa.total_allocated_bytes() == before
    assert sys.getrefcount(arr) == refs
