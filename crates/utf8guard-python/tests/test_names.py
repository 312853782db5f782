"""decode's encodings and error handlers against CPython's bytes.decode, and
the names each function takes: its LookupError lists exactly those."""

import codecs
import itertools
import random
import re

import pytest

import utf8guard


def outcome(call):
    """The result, or the exception's type and attributes."""
    try:
        return ("ok", call())
    except UnicodeDecodeError as e:
        return ("UnicodeDecodeError", e.encoding, bytes(e.object), e.start, e.end, e.reason)
    except Exception as e:  # noqa: BLE001 - the type and message are compared
        return (type(e).__name__, str(e))


def same_as_cpython(data, encoding="utf-8", errors="strict"):
    mine = outcome(lambda: utf8guard.decode(data, encoding, errors))
    theirs = outcome(lambda: bytes(data).decode(encoding, errors))
    assert mine == theirs, (data, encoding, errors)


SURROGATES = [b"\xed\xa0\x80", b"\xed\xaf\xbf", b"\xed\xb0\x80", b"\xed\xbf\xbf", b"\xed\xa0\xbd\xed\xb8\x80"]
PIECES = SURROGATES + [b"a", "é".encode(), "€".encode(), "😀".encode(), b"\xff", b"\xed", b"\xed\xa0",
                       b"\xed\x9f\xbf", b"\xc3", b"\xf0\x9f", b"\x80", b"\xe0\x80"]


def mixes(count, seed):
    rng = random.Random(seed)
    for _ in range(count):
        yield b"".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 7)))


def test_surrogatepass_is_cpythons():
    for data in itertools.chain(
        (bytes([a, b]) for a in range(0x80, 0x100) for b in (0x41, 0x80, 0xA0, 0xBF, 0xC0)),
        (bytes([0xED, b, c]) for b in range(0x70, 0x100, 3) for c in (0x41, 0x80, 0xBF, 0xC0)),
        mixes(4000, 1),
    ):
        same_as_cpython(data, errors="surrogatepass")
    assert utf8guard.decode(b"\xed\xa0\xbd\xed\xb8\x80a\xed\xbf\xbf", errors="surrogatepass") == "\ud83d\ude00a\udfff"
    with pytest.raises(UnicodeDecodeError) as info:
        utf8guard.decode(b"a\xed\xa0\x80\xff", errors="surrogatepass")
    assert (info.value.start, info.value.end, info.value.reason) == (4, 5, "invalid start byte")
    assert utf8guard.decode(b"plain", errors="surrogatepass") == "plain"


def _spans(e):
    return f"<{e.start}-{e.end}:{e.object[e.start:e.end].hex()}:{e.reason}>", e.end


def _back_one(e):
    # Resumes one byte after the start, counted from the end (negative)
    # unless that is the end.
    at = e.start + 1
    return "?", at - len(e.object) if at < len(e.object) else at


def _skip_two(e):
    return "", min(e.end + 2, len(e.object))


codecs.register_error("test-names-spans", _spans)
codecs.register_error("test-names-back-one", _back_one)
codecs.register_error("test-names-skip-two", _skip_two)
codecs.register_error("test-names-not-a-tuple", lambda e: "x")
codecs.register_error("test-names-far", lambda e: ("x", 99))
codecs.register_error("test-names-bytes", lambda e: (b"x", e.end))


@pytest.mark.parametrize("handler", ["test-names-spans", "test-names-back-one", "test-names-skip-two",
                                     "xmlcharrefreplace", "namereplace", "test-names-not-a-tuple",
                                     "test-names-far", "test-names-bytes"])
def test_registered_handlers_are_called_as_cpython_calls_them(handler):
    for data in itertools.chain([b"", b"ok", "é😀".encode()], mixes(300, 2)):
        same_as_cpython(data, errors=handler)
        same_as_cpython(bytearray(data), errors=handler)


def test_registered_handler_values():
    assert utf8guard.decode(b"caf\xe9 \xf0\x9f\x98", errors="test-names-spans") == (
        "caf<3-4:e9:invalid continuation byte> <5-8:f09f98:unexpected end of data>"
    )
    assert utf8guard.decode(b"\xffa\xffbcd", errors="test-names-skip-two") == "bcd"
    with pytest.raises(IndexError, match=r"^position 99 from error handler out of bounds$"):
        utf8guard.decode(b"a\xff", errors="test-names-far")
    with pytest.raises(TypeError, match=r"^decoding error handler must return \(str, int\) tuple$"):
        utf8guard.decode(b"a\xff", errors="test-names-not-a-tuple")
    with pytest.raises(TypeError, match="don't know how to handle UnicodeDecodeError in error callback"):
        utf8guard.decode(b"a\xff", errors="xmlcharrefreplace")
    # Valid input never calls the handler, as in CPython.
    assert utf8guard.decode(b"fine", errors="xmlcharrefreplace") == "fine"


SIG_INPUTS = [b"", b"\xef\xbb\xbf", b"\xef\xbb\xbfab", b"\xef\xbb", b"\xef\xbb\xbf\xff", b"a\xef\xbb\xbf",
              b"\xef\xbb\xbf\xef\xbb\xbf", b"\xef\xbb\xbf\xe2\x82", "é".encode()]


@pytest.mark.parametrize("encoding", ["utf-8-sig", "UTF_8_SIG", "utf_8_sig", "u8", "U8", "cp65001", "utf",
                                      "utf8_ucs4", "UTF-8", "utf 8"])
@pytest.mark.parametrize("errors", ["strict", "replace", "surrogateescape", "test-names-spans"])
def test_encodings_and_aliases_are_cpythons(encoding, errors):
    for data in SIG_INPUTS:
        same_as_cpython(data, encoding, errors)
        same_as_cpython(memoryview(data), encoding, errors)


def test_utf8_sig_values():
    assert utf8guard.decode(b"\xef\xbb\xbfhi", "utf-8-sig") == "hi"
    assert utf8guard.decode(b"\xef\xbb\xbfhi", "utf-8") == "\ufeffhi"
    with pytest.raises(UnicodeDecodeError) as info:
        utf8guard.decode(b"\xef\xbb\xbfa\xff", "utf-8-sig")
    assert (info.value.object, info.value.start, info.value.end) == (b"a\xff", 1, 2)


def test_repair_takes_cpythons_names_as_decode_does():
    data = b"a\xffb\xe2\x82c"
    assert utf8guard.repair(data, "replace") == utf8guard.repair(data, "maximal-subpart") == b"a\xef\xbf\xbdb\xef\xbf\xbdc"
    assert utf8guard.repair(data, "backslashreplace") == b"a\\xffb\\xe2\\x82c"
    for name in ("replace", "backslashreplace", "ignore", "surrogateescape"):
        assert utf8guard.repair(data, name) == data.decode("utf-8", name).encode("utf-8", "surrogatepass")
    with pytest.raises(LookupError):
        utf8guard.repair(data, "strict")


POLICIES = ("maximal-subpart (replace, std, whatwg), jvm (java), per-byte (go), windows-1252 (cp1252), "
            "latin-1 (iso-8859-1), backslash (backslashreplace), drop (ignore)")
MESSAGES = {
    "check": "unknown encoding: 'bogus'; check() takes utf-8, unicode-3.1, wtf-8, cesu-8, mutf-8, rfc2279, "
             "corrected-utf-8",
    "decode-encoding": "unknown encoding: 'bogus'; decode() takes utf-8 and utf-8-sig, by any name "
                       "codecs.lookup() gives them (utf8, u8, utf, cp65001, utf_8_sig, ...); check() validates "
                       "the other dialects",
    "decode-errors": "unknown error handler name 'bogus'; decode() takes strict, surrogatepass, " + POLICIES
                     + ", escape (surrogateescape), or the name of a handler registered with "
                     "codecs.register_error()",
    "repair": "unknown replacement policy 'bogus'; repair() takes " + POLICIES + ", escape (surrogateescape)",
    "transcode-encoding": "unknown encoding: 'bogus'; transcode() takes utf-8, unicode-3.1, wtf-8, cesu-8, "
                          "mutf-8, rfc2279, corrected-utf-8, utf-16, utf-16-le, utf-16-be, utf-32, utf-32-le, "
                          "utf-32-be, latin-1 (latin1, iso-8859-1, l1, cp819), windows-1252 (cp1252)",
    "transcode-errors": "unknown error handler name 'bogus'; transcode() takes strict, replace",
    "arrow": "unknown error handler name 'bogus'; binary_to_string() and batch_binary_to_string() take "
             "strict, null, " + POLICIES,
}


def listed(message):
    """Every name in a message's list (aliases in parentheses too)."""
    names = message.split(" takes ", 1)[-1].split(" take ", 1)[-1]
    names = names.replace("by any name codecs.lookup() gives them", "").replace("...", "")
    names = names.split("; check()")[0].split(", or the name")[0]
    return [n for n in re.split(r" and |[ ,()]+", names) if n]


def test_lookup_errors_list_exactly_what_each_function_takes():
    pa = pytest.importorskip("pyarrow")
    calls = {
        "check": lambda name: utf8guard.check(b"a\xff", name),
        "decode-encoding": lambda name: utf8guard.decode(b"a\xff", name, "replace"),
        "decode-errors": lambda name: utf8guard.decode(b"a\xff", errors=name),
        "repair": lambda name: utf8guard.repair(b"a\xff", name),
        "transcode-encoding": lambda name: utf8guard.transcode(b"a", name, name),
        "transcode-errors": lambda name: utf8guard.transcode(b"a", "utf-8", "utf-16", name),
        "arrow": lambda name: utf8guard.binary_to_string(pa.array([b"a"], pa.binary()), name),
    }
    for key, call in calls.items():
        with pytest.raises(LookupError) as info:
            call("bogus")
        assert str(info.value).strip("'\"") == MESSAGES[key], key
        names = listed(MESSAGES[key])
        assert len(names) >= 2 and "and" not in names and "" not in names
        for name in names:
            try:
                call(name)
            except LookupError as e:
                pytest.fail(f"{key}: listed {name!r}, then refused it: {e}")
            except (UnicodeDecodeError, ValueError):
                pass  # strict on bad input: the name was taken
    # The dialects that only check() takes are refused by decode, with the list.
    with pytest.raises(LookupError, match=re.escape(MESSAGES["decode-encoding"].replace("bogus", "cesu-8"))):
        utf8guard.decode(b"", "cesu-8")


def test_policy_aliases_are_the_librarys() -> None:
    # Any case, `_` for `-`, and the aliases the command and the SQL
    # functions take: the same policy as its canonical name, everywhere.
    data = b"caf\xe9 \x80 ok"
    for alias, canonical in [
        ("Latin1", "latin-1"),
        ("ISO8859-1", "latin-1"),
        ("iso_8859_1", "latin-1"),
        ("Maximal_Subpart", "maximal-subpart"),
        ("REPLACE", "maximal-subpart"),
        ("BackslashReplace", "backslash"),
        ("Windows1252".replace("1252", "-1252"), "windows-1252"),
        ("SurrogateEscape", "escape"),
    ]:
        assert utf8guard.repair(data, alias) == utf8guard.repair(data, canonical), alias
        if canonical != "escape":
            assert utf8guard.decode(data, errors=alias) == utf8guard.decode(data, errors=canonical), alias
