"""CPython's UTF-8 decoder as the oracle: its error handlers, and handlers
written here for the policies CPython lacks (on CPython's own segmentation
of an input into maximal subparts, which the library shares)."""

import codecs

import utf8guard

# Windows-1252 per the WHATWG index: bytes 80..9F; the five it leaves
# unassigned (81, 8D, 8F, 90, 9D) are the C1 controls of the same value.
_CP1252_HIGH = {b: bytes([b]).decode("cp1252") for b in range(0x80, 0xA0)
                if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)}


def _windows_1252(b):
    return _CP1252_HIGH.get(b, chr(b))


def _per_byte(e):
    return "\ufffd" * (e.end - e.start), e.end


def _latin_1(e):
    return "".join(chr(b) for b in e.object[e.start:e.end]), e.end


def _cp1252(e):
    return "".join(_windows_1252(b) for b in e.object[e.start:e.end]), e.end


def _jvm(e):
    # The JDK's decoder takes a surrogate's 3-byte form (ED A0..BF 80..BF)
    # as one malformed sequence, and its first two bytes when the third is
    # missing or not a continuation byte; CPython stops at ED. Otherwise
    # both replace one maximal subpart with one U+FFFD.
    obj, start = e.object, e.start
    if obj[start] == 0xED and start + 1 < len(obj) and 0xA0 <= obj[start + 1] <= 0xBF:
        if start + 2 < len(obj) and 0x80 <= obj[start + 2] <= 0xBF:
            return "\ufffd", start + 3
        return "\ufffd", start + 2
    return "\ufffd", e.end


codecs.register_error("oracle-per-byte", _per_byte)
codecs.register_error("oracle-latin-1", _latin_1)
codecs.register_error("oracle-windows-1252", _cp1252)
codecs.register_error("oracle-jvm", _jvm)

# decode()'s handler -> the CPython handler that gives the same str.
HANDLERS = {
    "replace": "replace",
    "ignore": "ignore",
    "backslashreplace": "backslashreplace",
    "surrogateescape": "surrogateescape",
    "jvm": "oracle-jvm",
    "per-byte": "oracle-per-byte",
    "windows-1252": "oracle-windows-1252",
    "latin-1": "oracle-latin-1",
}

# repair()'s policy -> decode()'s handler whose str, encoded (surrogates
# passed through as WTF-8), is the repaired bytes.
POLICIES = {
    "maximal-subpart": "replace",
    "std": "replace",
    "whatwg": "replace",
    "jvm": "jvm",
    "java": "jvm",
    "per-byte": "per-byte",
    "go": "per-byte",
    "windows-1252": "windows-1252",
    "cp1252": "windows-1252",
    "latin-1": "latin-1",
    "iso-8859-1": "latin-1",
    "backslash": "backslashreplace",
    "drop": "ignore",
    "ignore": "ignore",
    "escape": "surrogateescape",
    "surrogateescape": "surrogateescape",
}


def strict_error(data):
    """CPython's UnicodeDecodeError for data as a tuple, or None."""
    try:
        bytes(data).decode("utf-8")
    except UnicodeDecodeError as e:
        return (e.encoding, e.object, e.start, e.end, e.reason, str(e))
    return None


def our_strict_error(data):
    # A bytearray: bytes below 16 KiB go to CPython's own decoder, this takes the
    # extension's.
    try:
        utf8guard.decode(bytearray(data))
    except UnicodeDecodeError as e:
        assert type(e) is UnicodeDecodeError
        return (e.encoding, e.object, e.start, e.end, e.reason, str(e))
    return None


def assert_like_cpython(data, handlers=HANDLERS):
    """Every function on data against CPython: validate, check, strict
    decode (the exception's every attribute), each handler, each policy."""
    raw = bytes(data)
    expected = strict_error(raw)
    assert our_strict_error(data) == expected, raw
    assert utf8guard.validate(data) is (expected is None), raw
    found = utf8guard.check(data)
    if expected is None:
        assert found is None, raw
        assert utf8guard.decode(data) == raw.decode("utf-8")
    else:
        _, _, start, end, _, _ = expected
        assert (found.start, found.valid_up_to, found.end) == (start, start, end), raw
        assert found.error_len == (None if expected[4] == "unexpected end of data"
                                   else end - start), raw
    for ours, theirs in handlers.items():
        assert utf8guard.decode(data, errors=ours) == raw.decode("utf-8", theirs), (raw, ours)
    for policy, handler in POLICIES.items():
        if handler in handlers:
            want = raw.decode("utf-8", handlers[handler]).encode("utf-8", "surrogatepass")
            assert utf8guard.repair(data, policy) == want, (raw, policy)


# The same policies computed from CPython's own outputs at C speed, for the
# exhaustive tests' millions of errors: an escaped byte U+DC00+b of
# "surrogateescape" is exactly one byte of an ill-formed sequence.
_ESCAPED = range(0xDC80, 0xDD00)
_FROM_ESCAPED = {
    "per-byte": {u: "\ufffd" for u in _ESCAPED},
    "latin-1": {u: chr(u - 0xDC00) for u in _ESCAPED},
    "windows-1252": {u: _windows_1252(u - 0xDC00) for u in _ESCAPED},
}


def fast_oracle(raw, handler):
    """raw.decode("utf-8", HANDLERS[handler]), computed without a Python
    error handler."""
    if handler in _FROM_ESCAPED:
        return raw.decode("utf-8", "surrogateescape").translate(_FROM_ESCAPED[handler])
    if handler == "jvm":
        # ED never continues a sequence, so CPython starts an error at
        # each ED A0..BF; the JDK takes it with the continuation byte after
        # it, if any, as one sequence. The pieces between decode alone as
        # they do within the whole (an input cut short inside a sequence
        # gives one U+FFFD, as when a byte that cannot continue it follows).
        import re
        pieces = re.split(rb"\xed[\xa0-\xbf][\x80-\xbf]?", raw)
        return "\ufffd".join(p.decode("utf-8", "replace") for p in pieces)
    return raw.decode("utf-8", HANDLERS[handler])
