"""Arrays whose offsets or views point outside their buffers: refused before anything reads them.

pyarrow checks an array's offsets when it is built, so each malformed array
here is built valid over a ``bytearray`` and its offsets (or views) are then
rewritten in place, as a producer that lies about them (or memory written
after the check) would leave them. pyarrow knows each buffer's real size;
the Arrow C Data Interface does not carry it.
"""

import struct

import pytest

import utf8guard

pa = pytest.importorskip("pyarrow")

VALUES = b"abcdef"
OFFSET_TYPES = [pa.binary(), pa.string(), pa.large_binary(), pa.large_string()]


class Offsets:
    """An array of ``typ`` over ``VALUES`` whose offsets can be rewritten after it is built."""

    def __init__(self, typ, rows, validity=None):
        self.format = "q" if typ in (pa.large_binary(), pa.large_string()) else "i"
        # Every row empty: valid.
        self.raw = bytearray(struct.pack(f"<{rows + 1}{self.format}", *[0] * (rows + 1)))
        buffers = [validity, pa.py_buffer(self.raw), pa.py_buffer(VALUES)]
        self.array = pa.Array.from_buffers(typ, rows, buffers)

    def set(self, *offsets):
        self.raw[:] = struct.pack(f"<{len(offsets)}{self.format}", *offsets)


def refused(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert not isinstance(info.value, utf8guard.ArrowUtf8Error)
    assert str(info.value) == message


@pytest.mark.parametrize("typ", OFFSET_TYPES, ids=str)
@pytest.mark.parametrize("last", [4000, 200_000_000])
def test_offsets_past_the_values_are_refused(typ, last):
    arr = Offsets(typ, 2)
    arr.set(0, 3, last)
    with pytest.raises(pa.ArrowInvalid):
        arr.array.validate()
    message = f"row 1: offset 2 ({last}) is past the end of the values buffer (6 bytes)"
    refused(lambda: utf8guard.binary_to_string(arr.array, errors="latin-1"), message)
    refused(lambda: utf8guard.binary_to_string(arr.array), message)
    refused(lambda: utf8guard.validate_array(arr.array), message)
    refused(lambda: utf8guard.validate_array(pa.chunked_array([arr.array])), message)
    # A slice: the rows count from the slice's first.
    refused(
        lambda: utf8guard.validate_array(arr.array.slice(1)),
        f"row 0: offset 1 ({last}) is past the end of the values buffer (6 bytes)",
    )
    # The rows before it are fine.
    assert utf8guard.binary_to_string(arr.array.slice(0, 1)).to_pylist() == ["abc"]


@pytest.mark.parametrize("typ", OFFSET_TYPES, ids=str)
def test_offsets_that_run_backwards_or_start_outside(typ):
    arr = Offsets(typ, 3)
    arr.set(0, 4, 2, 6)
    refused(
        lambda: utf8guard.validate_array(arr.array),
        "row 1: offset 2 (2) is before the row's start (4)",
    )
    arr.set(-1, 3, 3, 6)
    refused(lambda: utf8guard.binary_to_string(arr.array), "row 0: offset 0 is negative (-1)")
    arr.set(7, 7, 7, 7)
    refused(
        lambda: utf8guard.binary_to_string(arr.array, errors="null"),
        "row 0: offset 0 (7) is past the end of the values buffer (6 bytes)",
    )
    arr.set(0, 2, 4, 6)
    assert utf8guard.binary_to_string(arr.array).to_pylist() == ["ab", "cd", "ef"]


def test_columns_and_nested_arrays_are_checked():
    arr = Offsets(pa.binary(), 2)
    batch = pa.record_batch({"id": pa.array([1, 2]), "raw": arr.array})
    items = pa.ListArray.from_arrays(pa.array([0, 1, 2], pa.int32()), arr.array)
    nested = pa.record_batch({"items": items})
    dictionary = pa.DictionaryArray.from_arrays(pa.array([1, 0], pa.int8()), arr.array)
    table = pa.table({"d": dictionary})
    arr.set(0, 3, 4000)
    past = "offset 2 (4000) is past the end of the values buffer (6 bytes)"
    refused(lambda: utf8guard.validate_batch(batch), f'column 1 ("raw"): row 1: {past}')
    refused(lambda: utf8guard.batch_binary_to_string(batch), f'column 1 ("raw"): row 1: {past}')
    refused(
        lambda: utf8guard.validate_batch(nested),
        f'column 0 ("items"), list values: row 1: {past}',
    )
    refused(lambda: utf8guard.validate_array(items), f"list values: row 1: {past}")
    refused(lambda: utf8guard.validate_batch(table), f'column 0 ("d"), dictionary: row 1: {past}')
    refused(lambda: utf8guard.binary_to_string(dictionary), f"dictionary: row 1: {past}")
    reader = pa.RecordBatchReader.from_batches(batch.schema, [batch])
    refused(lambda: utf8guard.validate_batch(reader), f'column 1 ("raw"): row 1: {past}')


def views(rows):
    """A binary_view array of ``rows`` empty values over ``VALUES``, and its views buffer."""
    raw = bytearray(16 * rows)
    arr = pa.Array.from_buffers(pa.binary_view(), rows, [None, pa.py_buffer(raw), pa.py_buffer(VALUES)])
    return arr, raw


def view(length, index, offset, prefix=b"abcd"):
    return struct.pack("<I4sII", length, prefix, index, offset)


@pytest.mark.parametrize("typ", [pa.binary_view(), pa.string_view()], ids=str)
def test_views_outside_their_buffers_are_refused(typ):
    arr, raw = views(2)
    if typ == pa.string_view():
        arr = arr.view(typ)
    raw[16:] = view(20, 0, 0)
    refused(
        lambda: utf8guard.validate_array(arr),
        "row 1: the view's 20 bytes at offset 0 are past the end of data buffer 0 (6 bytes)",
    )
    raw[16:] = view(13, 0, 4_000_000_000)
    refused(
        lambda: utf8guard.binary_to_string(arr, errors="replace"),
        "row 1: the view's 13 bytes at offset 4000000000 are past the end of data buffer 0 (6 bytes)",
    )
    raw[16:] = view(13, 3, 0)
    refused(
        lambda: utf8guard.validate_batch(pa.record_batch({"v": arr})),
        'column 0 ("v"): row 1: the view names data buffer 3, but the array has 1',
    )


class Producer:
    """An Arrow producer other than pyarrow: its buffers' sizes are not known."""

    def __init__(self, obj):
        self.obj = obj

    def __arrow_c_array__(self, requested_schema=None):
        return self.obj.__arrow_c_array__(requested_schema)


def test_unknown_sizes_are_refused_unless_trusted_or_given():
    good = pa.array([b"ab", None, b"cd"], pa.binary())
    message = (
        "the values buffer's size is not known (the Arrow C Data Interface does not carry it, "
        "and the last offset, 4, could point past its end); pass a pyarrow array, or "
        "buffer_sizes, or trust_offsets=True to trust the producer"
    )
    refused(lambda: utf8guard.validate_array(Producer(good)), message)
    refused(lambda: utf8guard.binary_to_string(Producer(good)), message)
    assert utf8guard.validate_array(Producer(good), trust_offsets=True) is None
    out = utf8guard.binary_to_string(Producer(good), trust_offsets=True)
    assert pa.array(out).to_pylist() == ["ab", None, "cd"]
    # The sizes given by the caller, by address.
    sizes = {b.address: b.size for b in good.buffers() if b is not None}
    assert utf8guard.validate_array(Producer(good), buffer_sizes=sizes) is None
    arr = Offsets(pa.binary(), 2)
    arr.set(0, 3, 4000)
    sizes = {b.address: b.size for b in arr.array.buffers() if b is not None}
    refused(
        lambda: utf8guard.validate_array(Producer(arr.array), buffer_sizes=sizes),
        "row 1: offset 2 (4000) is past the end of the values buffer (6 bytes)",
    )
    # Views carry their buffers' sizes: nothing to trust.
    assert utf8guard.validate_array(Producer(pa.array([b"x" * 20], pa.binary_view()))) is None
    # Nor do the functions' own results need any.
    assert utf8guard.validate_array(utf8guard._utf8guard.binary_to_string(good)) is None
