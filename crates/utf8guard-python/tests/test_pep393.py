"""decode's str, written directly in CPython's PEP 393 representation: the
same value, length and compact layout (1, 2 or 4 bytes a character, chosen
by the widest character) as CPython's own decoder gives, for text whose
widest character falls in each class, at every place, at the lengths
around the vector widths, and under every error handler."""

import subprocess
import sys
import textwrap

import pytest

import utf8guard
from oracle import HANDLERS, strict_error

# The classes of PEP 393 by their widest character, each with characters at
# its bounds: ASCII (1 byte, ascii), Latin-1 (1 byte), the BMP (2 bytes),
# supplementary (4 bytes).
CLASSES = {
    "ascii": ["a", "\x00", "\x7f", " "],
    "latin-1": ["\x80", "é", "\xff", "ß"],
    "bmp": ["\u0100", "\u07ff", "\u0800", "東", "\ud7ff", "\ue000", "\ufffd", "\uffff"],
    "supplementary": ["\U00010000", "😀", "\U0010ffff", "𝄞"],
}
ORDER = list(CLASSES)

# Around the vector widths; around 16 KiB, below which bytes decoded
# strictly go to CPython's decoder; around 64 KiB, the window of the
# replacing handlers (see test_repaired_across_windows).
SIZES = [0, 1, 15, 16, 17, 31, 32, 33, 1000, 16383, 16384, 16385, 65535, 65536, 65537, 1 << 20]


def _text(chars, size):
    """chars repeated (with ASCII between) to exactly size bytes of UTF-8:
    the last character that does not fit is replaced with ASCII."""
    out, n, i = [], 0, 0
    while n < size:
        c = chars[i % len(chars)] if i % 3 else "xy"[i % 2]
        w = len(c.encode())
        if n + w > size:
            c, w = "z", 1
        out.append(c)
        n += w
        i += 1
    return "".join(out)


def texts():
    """(id, str) for each class, placement and size: the class's chars
    throughout; its widest character at the very start, then characters of
    the lower classes; the lower classes first and it at the very end."""
    for k, name in enumerate(ORDER):
        top = max(CLASSES[name], key=ord)
        lower = [c for low in ORDER[:k] for c in CLASSES[low]] or ["q"]
        w = len(top.encode())
        for size in SIZES:
            yield f"{name}-only-{size}", _text(CLASSES[name], size)
            if size >= w:
                yield f"{name}-start-{size}", top + _text(lower, size - w)
                yield f"{name}-end-{size}", _text(lower, size - w) + top


TEXTS = list(texts())
IDS = [t[0] for t in TEXTS]

# Header sizes of a compact str (without the characters and the
# terminating NUL), by kind, measured on strings made at run time (no
# cached UTF-8 that would add to getsizeof).
_HEADER = {
    "ascii": sys.getsizeof(chr(0x61) * 2) - 3,
    1: sys.getsizeof(chr(0xE9) * 2) - 3,
    2: sys.getsizeof(chr(0x100) * 2) - 6,
    4: sys.getsizeof(chr(0x10000) * 2) - 12,
}


def compact_size(s):
    """sys.getsizeof of a fresh compact str equal to s."""
    top = ord(max(s)) if s else 0
    kind = 1 if top < 0x100 else 2 if top < 0x10000 else 4
    header = _HEADER["ascii"] if top < 0x80 else _HEADER[kind]
    return header + (len(s) + 1) * kind


def assert_same_str(ours, theirs):
    assert type(ours) is str
    assert len(ours) == len(theirs)
    assert ours == theirs
    # The same kind, hence the same size, as CPython's str (its 1-character
    # strings are shared singletons, whose size may include a cached UTF-8
    # form: hence the size of a fresh one).
    assert sys.getsizeof(ours) == compact_size(theirs)
    if len(theirs) > 1:
        assert sys.getsizeof(ours) == sys.getsizeof(theirs)


@pytest.mark.parametrize("text", [t[1] for t in TEXTS], ids=IDS)
def test_valid_text_of_each_class(text):
    raw = text.encode("utf-8")
    assert_same_str(utf8guard.decode(raw), raw.decode("utf-8"))
    # Short bytes go to CPython's decoder; a bytearray takes the extension's.
    assert_same_str(utf8guard.decode(bytearray(raw)), raw.decode("utf-8"))
    for ours, theirs in HANDLERS.items():
        assert_same_str(utf8guard.decode(raw, errors=ours), raw.decode("utf-8", theirs))


@pytest.mark.parametrize("text", [t[1] for t in TEXTS], ids=IDS)
@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_repaired_text_of_each_class(text, where):
    """An ill-formed byte in the text: each handler's str (whose widest
    character may be the replacement's: U+FFFD, a lone surrogate, a
    Latin-1 or Windows-1252 character, ASCII backslashes)."""
    raw = text.encode("utf-8")
    at = {"start": 0, "middle": len(raw) // 2, "end": len(raw)}[where]
    # Not inside a character: move to the next character's start.
    while at < len(raw) and 0x80 <= raw[at] < 0xC0:
        at += 1
    for bad in (b"\xff", b"\xe9", b"\xf0\x9f\x98"):
        data = raw[:at] + bad + raw[at:]
        for given in (data, bytearray(data)):
            with pytest.raises(UnicodeDecodeError) as e:
                utf8guard.decode(given)
            got = e.value
            assert (got.encoding, got.object, got.start, got.end, got.reason, str(got)) \
                == strict_error(data)
        for ours, theirs in HANDLERS.items():
            assert_same_str(utf8guard.decode(data, errors=ours), data.decode("utf-8", theirs))


@pytest.mark.parametrize("name", ORDER)
def test_large_text_of_each_class(name):
    """9 MB (the fill of a large str, with the GIL released; a writable
    buffer, with it), ASCII up to its widest character far from the start
    (the bet on ASCII lost late)."""
    top = max(CLASSES[name], key=ord)
    raw = b"ascii only " * 500_000 + _text(CLASSES[name], 4096).encode() * 1024 + top.encode()
    expected = raw.decode("utf-8")
    assert_same_str(utf8guard.decode(raw), expected)
    assert_same_str(utf8guard.decode(bytearray(raw)), expected)
    assert_same_str(utf8guard.decode(memoryview(raw)[: len(raw) - len(top.encode())]),
                    expected[:-1])
    bad = raw + b"\xff"
    for ours in ("replace", "surrogateescape", "latin-1"):
        assert_same_str(utf8guard.decode(bad, errors=ours), bad.decode("utf-8", HANDLERS[ours]))


def test_ascii_until_the_last_byte():
    """The bet on ASCII lost at the very last byte, and at a block's edge."""
    for n in (4095, 4096, 4097, 65536, 1 << 20):
        for tail in ("é", "東", "😀"):
            raw = b"a" * n + tail.encode()
            assert_same_str(utf8guard.decode(raw), raw.decode())
            with pytest.raises(UnicodeDecodeError):
                utf8guard.decode(raw[:-1])


# The replacing handlers repair and write the input a window at a time,
# each cut before a byte that is not a continuation byte (src/pystr.rs).
WINDOW = 64 * 1024

# What stands at a window's edge: characters of each width, ill-formed
# sequences of each shape (a surrogate's form is one unit for jvm, three
# for the others), a run of continuation bytes longer than a character.
SEAMS = ["é".encode(), "東".encode(), "😀".encode(), b"\xff", b"\xe9", b"\xf0\x9f\x98",
         b"\xed\xa0\x80", b"\xed\xa0", b"\x80" * 5, b"\xf0\x9f\x98\x80\x80"]


def _outcome(call):
    """The str a call returns, or the attributes of its UnicodeDecodeError."""
    try:
        return call()
    except UnicodeDecodeError as e:
        return (e.encoding, bytes(e.object), e.start, e.end, e.reason)


@pytest.mark.parametrize("name", ORDER)
@pytest.mark.parametrize("seam", SEAMS, ids=lambda s: s.hex())
def test_repaired_across_windows(name, seam):
    """Each handler's str when a character or an ill-formed sequence
    straddles the edge of the first window and of the second (each shift
    puts it a byte further), in text of each class."""
    for shift in range(-5, 3):
        head = _text(CLASSES[name], WINDOW + shift - len(seam) // 2).encode()
        middle = _text(CLASSES[name], WINDOW - len(seam)).encode()
        data = head + seam + middle + seam + _text(CLASSES[name], 40).encode()
        for ours, theirs in HANDLERS.items():
            expected = data.decode("utf-8", theirs)
            assert_same_str(utf8guard.decode(data, errors=ours), expected)
            assert_same_str(utf8guard.decode(bytearray(data), errors=ours), expected)
        # The handlers that do not replace, on the same inputs.
        for handler in ("strict", "surrogatepass"):
            for given in (data, bytearray(data)):
                assert _outcome(lambda: utf8guard.decode(given, errors=handler)) \
                    == _outcome(lambda: data.decode("utf-8", handler))


@pytest.mark.parametrize("ours", list(HANDLERS))
def test_dense_errors_over_many_windows(ours):
    """Random bytes (an error every few bytes, in every window): the text
    repaired in the first pass is more than is kept for the second, which
    repairs the rest again."""
    import random

    data = random.Random(393).randbytes(1_300_000)
    assert_same_str(utf8guard.decode(data, errors=ours), data.decode("utf-8", HANDLERS[ours]))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_replacing_handlers_hold_no_repaired_copy():
    """The peak memory of decode(errors=...) is the str's, not the str's
    and a repaired copy of the input: measured in a process of its own
    (VmHWM, the peak resident size of its own memory: getrusage's would
    start at this process's, which the child is forked from), around a
    decode of 64 MB of ASCII (a bytearray, so that making it needs no second
    copy) with an error, to a 128 MB UCS-2 str."""
    script = textwrap.dedent("""
        import sys, utf8guard

        def peak():
            with open("/proc/self/status") as f:
                line = next(line for line in f if line.startswith("VmHWM:"))
            return int(line.split()[1]) * 1024

        data = bytearray(b"a") * (64 << 20)
        data[len(data) // 2] = 0xFF
        handler = sys.argv[1]
        utf8guard.decode(b"warm up", errors=handler)
        before = peak()
        text = utf8guard.decode(data, errors=handler)
        print(peak() - before, sys.getsizeof(text))
    """)
    for handler in ("replace", "surrogateescape", "backslashreplace"):
        out = subprocess.run([sys.executable, "-c", script, handler], capture_output=True,
                             text=True, check=True).stdout
        grown, size = map(int, out.split())
        # The str and some slack; a copy of the input would add 64 MB.
        assert size <= grown + (1 << 20) and grown < size + (16 << 20), (handler, grown, size)
