"""Buffer types, names, errors, the GIL and reference counts."""

import array
import contextlib
import doctest
import inspect
import mmap
import pickle
import sys
import threading
import time

import pytest

import utf8guard

TEXT = "naïve café, 東京, 😀 ".encode() * 10
BAD = TEXT + b"\xe0\x80" + TEXT


def buffers(raw):
    """raw as each kind of buffer (the same bytes)."""
    yield raw
    yield bytearray(raw)
    yield memoryview(raw)
    yield memoryview(b"[" + raw + b"]")[1:-1]
    yield memoryview(bytearray(raw)).toreadonly()
    yield array.array("B", raw)
    m = mmap.mmap(-1, max(len(raw), 1))
    m.write(raw)
    yield memoryview(m)[: len(raw)] if len(raw) != len(m) else m


@pytest.mark.parametrize("raw", [b"", TEXT, BAD, b"\xff", TEXT + b"\xf0\x9f"])
def test_every_buffer_type_gives_the_same_answers(raw):
    for buf in buffers(raw):
        assert utf8guard.validate(buf) is utf8guard.validate(raw)
        assert utf8guard.check(buf) == utf8guard.check(raw)
        for errors in ("replace", "surrogateescape", "ignore"):
            assert utf8guard.decode(buf, errors=errors) == raw.decode("utf-8", errors)
        assert utf8guard.repair(buf, "backslash") == raw.decode("utf-8", "backslashreplace").encode()
        try:
            raw.decode()
        except UnicodeDecodeError as e:
            with pytest.raises(UnicodeDecodeError) as got:
                utf8guard.decode(buf)
            assert got.value.args == e.args
            assert type(got.value.object) is bytes
        else:
            assert utf8guard.decode(buf) == raw.decode()
        if isinstance(buf, memoryview):
            buf.release()


def test_an_array_of_wider_items_is_read_as_its_bytes():
    a = array.array("H", [0xA9C3, 0x0021])  # C3 A9 21 00 on a little-endian machine
    assert utf8guard.decode(a) == bytes(a).decode()


def test_a_non_contiguous_buffer_is_refused():
    view = memoryview(b"abcdef")[::2]
    for call in (utf8guard.validate, utf8guard.check, utf8guard.decode, utf8guard.repair):
        with pytest.raises(BufferError, match="not C-contiguous"):
            call(view)


def test_objects_without_the_buffer_protocol_are_refused():
    for call in (utf8guard.validate, utf8guard.check, utf8guard.decode, utf8guard.repair):
        with pytest.raises(TypeError):
            call("a str")
        with pytest.raises(TypeError):
            call(None)


def test_the_export_is_released():
    data = bytearray(BAD)
    for call in (utf8guard.validate, utf8guard.check, utf8guard.repair):
        call(data)
    with pytest.raises(UnicodeDecodeError):
        utf8guard.decode(data)
    data.extend(b"more")  # a bytearray cannot be resized while exported
    m = mmap.mmap(-1, 4096)
    utf8guard.validate(m)
    m.close()  # nor an mmap closed


def test_check_of_each_dialect():
    cesu = b"smile \xed\xa0\xbd\xed\xb8\x80"
    assert utf8guard.check(cesu, "cesu-8") is None
    assert utf8guard.check(cesu, encoding="CESU8") is None
    err = utf8guard.check(cesu)
    assert (err.encoding, err.start, err.valid_up_to, err.end, err.error_len) == ("utf-8", 6, 6, 7, 1)
    assert (err.kind, err.reason) == ("surrogate", "UTF-16 surrogate code point")
    err = utf8guard.check(b"\xed\xa0\xbd!", "cesu-8")
    assert (err.start, err.error_len, err.kind) == (0, 3, "lone_surrogate")
    assert utf8guard.check(b"\xed\xa0\xbd!", "wtf-8") is None
    assert utf8guard.check(b"nul: \xc0\x80", "java") is None
    err = utf8guard.check(b"nul: \x00", "mutf-8")
    assert (err.start, err.end, err.kind, err.encoding) == (5, 6, "nul", "mutf-8")
    assert utf8guard.check(b"\xf8\x88\x80\x80\x80", "rfc2279") is None
    assert utf8guard.check(b"\xed\xa0\x80\xed\xb0\x80", "unicode-3.1") is None
    assert utf8guard.check(b"\xed\xa0\x80\xed\xb0\x80", "wtf8").kind == "surrogate_pair"
    assert utf8guard.check(b"abc", "corrected") is None
    err = utf8guard.check(b"ab\xe2\x82")
    assert (err.start, err.end, err.error_len, err.kind) == (2, 4, None, "incomplete")
    assert repr(err) == ("Utf8Error(encoding='utf-8', valid_up_to=2, error_len=None, end=4, "
                         "kind='incomplete', reason='input ends inside a multi-byte sequence')")
    assert str(err) == "utf-8 at bytes 2..4: input ends inside a multi-byte sequence"
    for name in ("utf-8", "utf8", "UTF_8", "unicode-3.1", "wtf-8", "cesu-8", "mutf-8", "rfc2279",
                 "corrected-utf-8"):
        assert utf8guard.check(b"ok", name) is None
    with pytest.raises(LookupError, match="unknown encoding.*cesu-8"):
        utf8guard.check(b"", "utf-16")


def test_names_of_handlers_and_policies():
    assert utf8guard.decode(b"caf\xe9 \x80", errors="windows-1252") == "café €"
    assert utf8guard.decode(b"caf\xe9 \x80", errors="cp1252") == "café €"
    assert utf8guard.decode(b"caf\xe9", errors="latin-1") == "café"
    assert utf8guard.decode(b"\xf0\x9f\x98!", errors="per-byte") == "\ufffd\ufffd\ufffd!"
    assert utf8guard.decode(b"\xed\xa0\x80!", errors="jvm") == "\ufffd!"
    assert utf8guard.decode(b"\xed\xa0\x80!", errors="replace") == "\ufffd\ufffd\ufffd!"
    assert utf8guard.decode(b"a\xffb", errors="surrogateescape") == "a\udcffb"
    assert utf8guard.repair(b"a\xffb", "escape") == b"a\xed\xb3\xbfb"
    assert utf8guard.repair(b"a\xffb") == "a\ufffdb".encode()
    with pytest.raises(LookupError, match="unknown replacement policy 'bogus'; repair\\(\\) takes maximal-subpart"):
        utf8guard.repair(b"", "bogus")
    with pytest.raises(LookupError, match="unknown error handler name 'bogus'"):
        utf8guard.decode(b"", errors="bogus")
    with pytest.raises(LookupError):
        utf8guard.decode(b"", encoding="latin-9")
    with pytest.raises(LookupError, match="check\\(\\) validates the other dialects"):
        utf8guard.decode(b"", encoding="cesu-8")
    assert utf8guard.decode(b"ok", "UTF8", "strict") == "ok"


@contextlib.contextmanager
def counting_thread():
    """A thread that counts as long as it holds the GIL, with the switch
    interval raised to 1000 s: while the main thread calls into utf8guard,
    the count goes up only if the call released the GIL. (With 10 s, a
    test of many calls on a loaded machine outlasted the interval, and the
    thread took the GIL between two calls.)"""
    counter = [0]
    stop = threading.Event()

    def count():
        while not stop.is_set():
            counter[0] += 1
            time.sleep(0)  # hands the GIL back to the main thread at once

    interval = sys.getswitchinterval()
    # Raised before the thread starts: a thread already waiting for the
    # GIL waits out the interval it started with, and then takes the GIL
    # from the main thread once (in the middle of a test).
    sys.setswitchinterval(1000)
    thread = threading.Thread(target=count)
    thread.start()
    try:
        time.sleep(0.01)
        yield counter
    finally:
        sys.setswitchinterval(interval)
        stop.set()
        thread.join()


def test_validate_releases_the_gil():
    """A thread counts while validate runs on 200 MB; not while it runs,
    as often, on 60 KiB, below the threshold (each call no longer than
    one of the big ones, so a switch inside it would show)."""
    big = "é".encode() * (100 * 1024 * 1024)
    small = big[: 60 * 1024]
    during = held = 0
    with counting_thread() as counter:
        for _ in range(3):
            before = counter[0]
            assert utf8guard.validate(big)
            during += counter[0] - before
        for _ in range(200):
            before = counter[0]
            utf8guard.validate(small)
            held += counter[0] - before
    assert during > 10, during
    assert held == 0, held


@pytest.mark.parametrize(
    "call",
    [
        lambda data: utf8guard.decode(data),
        lambda data: utf8guard.decode(data, errors="replace"),
        lambda data: utf8guard.decode(data, errors="surrogateescape"),
        lambda data: utf8guard.repair(data),
        lambda data: utf8guard.repair(data, "escape"),
        lambda data: utf8guard.transcode(data, "utf-8", "utf-16-le"),
    ],
    ids=["decode", "decode-replace", "decode-escape", "repair", "repair-escape", "transcode"],
)
def test_decode_and_repair_release_the_gil(call):
    """As validate: a thread counts while decode, repair and transcode
    work on 100 MB (with an error at the end, so that the repair does
    the work), and not during inputs below 64 KiB."""
    big = "é".encode() * (50 * 1024 * 1024) + b"\xff"
    small = big[: 60 * 1024]
    during = held = 0
    with counting_thread() as counter:
        for _ in range(2):
            before = counter[0]
            try:
                call(big)
            except UnicodeDecodeError:
                pass
            during += counter[0] - before
        for _ in range(100):
            before = counter[0]
            call(small)
            held += counter[0] - before
    assert during > 10, during
    assert held == 0, held


def test_a_writable_buffer_keeps_the_gil():
    """A bytearray could be written into by another thread while it is
    read: validate and check keep the GIL for it however long it is."""
    big = bytearray("é".encode() * (50 * 1024 * 1024))
    with counting_thread() as counter:
        before = counter[0]
        assert utf8guard.validate(big)
        assert utf8guard.check(big) is None
        during = counter[0] - before
    assert during == 0, during


def test_a_read_only_view_of_writable_memory_keeps_the_gil():
    """memoryview(bytearray).toreadonly() is a read-only export, but the
    bytearray can still be written by another thread while it is read
    (decode then raised SystemError, its text changed under it): the GIL
    is kept for it, as for the bytearray. A read-only view of bytes still
    lets the GIL go."""
    raw = bytearray("é".encode() * (50 * 1024 * 1024))
    views = [
        memoryview(raw).toreadonly(),
        memoryview(memoryview(raw).toreadonly()),
        memoryview(raw)[2:].toreadonly(),
        memoryview(memoryview(raw)[2:].toreadonly())[2:],
    ]
    counts = []
    with counting_thread() as counter:
        for view in views:
            before = counter[0]
            assert view.readonly
            assert utf8guard.validate(view)
            assert utf8guard.check(view) is None
            assert len(utf8guard.decode(view)) == len(view) // 2
            assert len(utf8guard.decode(view, errors="replace")) == len(view) // 2
            assert len(utf8guard.repair(view)) == len(view)
            assert len(utf8guard.transcode(view, "utf-8", "utf-16-le")) == len(view)
            counts.append(counter[0] - before)
        # The control: a call that lets the GIL go lets the counter run,
        # if the machine gives its thread a core meanwhile; on a loaded
        # machine that may take more than one call.
        frozen = memoryview(bytes(raw)).toreadonly()
        before = counter[0]
        for _ in range(100):
            assert utf8guard.validate(frozen)
            if counter[0] > before:
                break
        released = counter[0] - before
    assert counts == [0, 0, 0, 0]
    assert released > 0, released


def test_no_reference_is_leaked():
    for raw in (TEXT, BAD):
        for buf in (raw, bytearray(raw), memoryview(raw)):
            before = sys.getrefcount(buf)
            for _ in range(100):
                utf8guard.validate(buf)
                utf8guard.check(buf)
                utf8guard.check(buf, "cesu-8")
                utf8guard.repair(buf)
                utf8guard.repair(buf, "escape")
                utf8guard.decode(buf, errors="replace")
                utf8guard.decode(buf, errors="surrogateescape")
                try:
                    utf8guard.decode(buf)
                except UnicodeDecodeError:
                    pass
                try:
                    utf8guard.validate("not a buffer")
                except TypeError:
                    pass
            assert sys.getrefcount(buf) == before


def test_the_package():
    assert utf8guard.__version__ == "0.1.0"
    for name in (
        "validate",
        "check",
        "decode",
        "repair",
        "Utf8Error",
        "transcode",
        "check_file",
        "repair_file",
        "validate_array",
        "binary_to_string",
        "ArrowArray",
        "ArrowUtf8Error",
    ):
        assert getattr(utf8guard, name).__doc__
    assert utf8guard.Utf8Error.__module__ == "utf8guard"
    # The examples of the package's docstring.
    assert doctest.testmod(utf8guard).failed == 0


def test_short_bytes_take_cpythons_decoder_with_the_same_answers():
    # Below 16 KiB, bytes with the default arguments go to CPython's own
    # decoder (the call costs more than the text): the same str and error.
    assert utf8guard.decode(b"hello") == "hello"
    assert utf8guard.decode(b"") == ""
    for data in (b"caf\xe9", b"x" * 63 + b"\xff", b"x" * 64 + b"\xff", b"\xe2\x82"):
        for given in (data, bytearray(data)):
            with pytest.raises(UnicodeDecodeError) as info:
                utf8guard.decode(given)
            e = info.value
            assert (e.encoding, e.object, e.start, e.end, e.reason) == (
                "utf-8", data, *{4: (3, 4, "unexpected end of data"), 64: (63, 64, "invalid start byte"),
                                 65: (64, 65, "invalid start byte"), 2: (0, 2, "unexpected end of data")}[len(data)])


class _Bytes(bytes):
    pass


@pytest.mark.parametrize("data", [b"", b"hello", "caf\u00e9 \U0001f600".encode(), b"x" * 16383,
                                  b"x" * 16384, b"caf\xe9", b"\xe2\x82", b"x" * 16384 + b"\xff"])
def test_every_form_of_call_gives_what_bytes_decode_does(data):
    """decode(b) with one bytes shorter than 16 KiB goes to CPython's decoder
    from decode's own entry point; every other form of call is handed on to
    the function that parses the arguments: each must give bytes.decode's
    str, or raise its error."""
    decode = utf8guard.decode
    try:
        expected = data.decode()
    except UnicodeDecodeError as e:
        expected = (type(e), e.encoding, e.object, e.start, e.end, e.reason)
    calls = [
        lambda: decode(data),
        lambda: decode(data, "utf-8"),
        lambda: decode(data, "utf8", "strict"),
        lambda: decode(data, errors="strict"),
        lambda: decode(data, encoding="UTF-8"),
        lambda: decode(data, "utf-8", errors="strict"),
        lambda: decode(_Bytes(data)),
        lambda: decode(bytearray(data)),
        lambda: decode(memoryview(data)),
        lambda: decode(*[data]),
        lambda: decode(*[data], **{}),
    ]
    for call in calls:
        try:
            got = call()
        except UnicodeDecodeError as e:
            got = (type(e), e.encoding, e.object, e.start, e.end, e.reason)
        assert got == expected
        if isinstance(got, str):
            assert type(got) is str


def test_decode_refuses_what_it_refused():
    decode = utf8guard.decode
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'data'"):
        decode()
    with pytest.raises(TypeError, match="positional"):
        decode(data=b"hello")
    with pytest.raises(TypeError):
        decode(b"hello", "utf-8", "strict", "extra")
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        decode(b"hello", bogus=1)
    with pytest.raises(TypeError):
        decode("a str is no buffer")
    with pytest.raises(TypeError):
        decode(None)
    with pytest.raises(LookupError):
        decode(b"hello", "latin-9")


def test_decode_is_a_plain_function_of_the_module():
    decode = utf8guard.decode
    assert str(inspect.signature(decode)) == "(data, /, encoding='utf-8', errors='strict')"
    assert (decode.__name__, decode.__qualname__) == ("decode", "decode")
    assert decode.__module__ == "utf8guard._utf8guard"
    assert decode.__self__ is utf8guard._utf8guard
    assert "utf-8-sig" in decode.__doc__
    assert pickle.loads(pickle.dumps(decode)) is decode
    assert not hasattr(utf8guard._utf8guard, "_decode")


def test_decode_of_short_bytes_leaks_no_reference():
    for data in (b"", b"hello", "caf\u00e9".encode(), b"caf\xe9"):
        before = sys.getrefcount(data)
        for _ in range(100):
            try:
                text = utf8guard.decode(data)
            except UnicodeDecodeError as e:
                assert e.object == data
                continue
            if len(text) > 1:  # not a shared singleton
                assert sys.getrefcount(text) == 2
            del text
        assert sys.getrefcount(data) == before
