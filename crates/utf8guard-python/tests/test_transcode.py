"""transcode, against CPython's codecs where CPython has the codec."""

import codecs

import pytest

import utf8guard

TEXT = "naïve café, 東京, 😀 𝄞 \x00 end"
LONG = TEXT * 5000
LONE = "a\ud800b\udc00c\udbff"  # lone surrogates only (no pair)


def cesu8(s):
    """CESU-8 by hand: each UTF-16 unit's 3-byte form."""
    units = s.encode("utf-16-le", "surrogatepass")
    out = bytearray()
    for i in range(0, len(units), 2):
        out += chr(int.from_bytes(units[i : i + 2], "little")).encode("utf-8", "surrogatepass")
    return bytes(out)


@pytest.mark.parametrize("text", [TEXT, LONG, "", "ascii only"])
@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf8_to_and_from_utf16(text, codec):
    utf8 = text.encode()
    utf16 = text.encode(codec)
    assert utf8guard.transcode(utf8, "utf-8", codec) == utf16
    assert utf8guard.transcode(utf16, codec, "utf-8") == utf8
    assert utf8guard.transcode(utf16, codec, codec.replace("le", "xx").replace("be", "le").replace("xx", "be")) == text.encode(
        codec.replace("le", "xx").replace("be", "le").replace("xx", "be")
    )


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_wtf8_and_utf16_with_lone_surrogates(codec):
    wtf8 = LONE.encode("utf-8", "surrogatepass")
    utf16 = LONE.encode(codec, "surrogatepass")
    assert utf8guard.transcode(wtf8, "wtf-8", codec) == utf16
    assert utf8guard.transcode(utf16, codec, "wtf-8") == wtf8
    assert utf8guard.transcode(TEXT.encode(), "wtf-8", codec) == TEXT.encode(codec)


def test_the_family():
    utf8 = TEXT.encode()
    assert utf8guard.transcode(utf8, "utf-8", "cesu-8") == cesu8(TEXT)
    assert utf8guard.transcode(cesu8(TEXT), "cesu", "utf-8") == utf8
    assert utf8guard.transcode(cesu8(TEXT), "cesu-8", "utf-16-le") == TEXT.encode("utf-16-le")
    assert utf8guard.transcode(TEXT.encode("utf-16-be"), "UTF_16_BE", "cesu-8") == cesu8(TEXT)
    # Modified UTF-8: NUL as C0 80, supplementary characters as CESU-8.
    mutf8 = cesu8(TEXT).replace(b"\x00", b"\xc0\x80")
    assert utf8guard.transcode(utf8, "utf-8", "mutf-8") == mutf8
    assert utf8guard.transcode(mutf8, "java", "utf-16le") == TEXT.encode("utf-16-le")
    for dialect in ("unicode-3.1", "wtf-8", "rfc2279", "corrected-utf-8"):
        there = utf8guard.transcode(utf8.replace(b"\x00", b""), "utf-8", dialect)
        assert utf8guard.transcode(there, dialect, "utf-16-le") == TEXT.replace("\x00", "").encode("utf-16-le")
        assert utf8guard.transcode(there, dialect, "utf-8") == utf8.replace(b"\x00", b"")


@pytest.mark.parametrize(
    "data",
    [b"abc\xff", b"\xe0\x80\x80x", b"ok\xf0\x9f\x98", b"\xed\xa0\x80!", b"caf\xc3\x28"],
)
@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-8", "cesu-8"])
def test_utf8_errors_as_cpython(data, codec):
    with pytest.raises(UnicodeDecodeError) as theirs:
        data.decode("utf-8")
    with pytest.raises(UnicodeDecodeError) as ours:
        utf8guard.transcode(data, "utf-8", codec)
    assert (ours.value.encoding, ours.value.object, ours.value.start, ours.value.end) == (
        "utf-8",
        data,
        theirs.value.start,
        theirs.value.end,
    )
    replaced = data.decode("utf-8", "replace")
    if codec == "cesu-8":
        assert utf8guard.transcode(data, "utf-8", codec, "replace") == cesu8(replaced)
    else:
        assert utf8guard.transcode(data, "utf-8", codec, "replace") == replaced.encode(codec)


@pytest.mark.parametrize(
    "text",
    ["\ud800", "a\ud800", "a\ud800b", "\udc00", "ab\udc00cd", "x\ud83d\ude00\ud800"],
)
@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_errors_as_cpython(text, codec):
    data = text.encode(codec, "surrogatepass")
    with pytest.raises(UnicodeDecodeError) as theirs:
        data.decode(codec)
    with pytest.raises(UnicodeDecodeError) as ours:
        utf8guard.transcode(data, codec, "utf-8")
    assert (ours.value.start, ours.value.end) == (theirs.value.start, theirs.value.end)
    assert ours.value.encoding == codec
    assert utf8guard.transcode(data, codec, "utf-8", errors="replace") == data.decode(codec, "replace").encode()


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_odd_utf16_length(codec):
    data = "ab".encode(codec) + b"c"
    with pytest.raises(UnicodeDecodeError) as theirs:
        data.decode(codec)
    with pytest.raises(UnicodeDecodeError) as ours:
        utf8guard.transcode(data, codec, "utf-8")
    assert (ours.value.start, ours.value.end, ours.value.reason) == (
        theirs.value.start,
        theirs.value.end,
        "truncated data",
    )
    assert utf8guard.transcode(data, codec, "utf-8", "replace") == data.decode(codec, "replace").encode()


def test_unencodable_and_names():
    # A lone surrogate has no UTF-8 form: an error of the WTF-8 input.
    with pytest.raises(UnicodeDecodeError) as info:
        utf8guard.transcode(b"ab\xed\xa0\x80", "wtf-8", "utf-8")
    assert (info.value.encoding, info.value.start, info.value.end) == ("wtf-8", 2, 5)
    assert "cannot be encoded" in info.value.reason
    assert utf8guard.transcode(b"ab\xed\xa0\x80", "wtf-8", "utf-8", "replace") == "ab\ufffd".encode()
    with pytest.raises(LookupError):
        utf8guard.transcode(b"", "utf-8", "latin-9")
    with pytest.raises(LookupError):
        utf8guard.transcode(b"", "utf-8", "utf-16", "ignore")
    with pytest.raises(LookupError):
        utf8guard.transcode(b"", "utf-8", "utf-16-le", "ignore")
    assert utf8guard.transcode(memoryview(b"xabc")[1:], "utf8", "utf16be") == "abc".encode("utf-16-be")


# ---- UTF-32, UTF-16 with a BOM, Latin-1 and Windows-1252, against CPython ----

CODECS = ["utf-8", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be", "latin-1", "cp1252"]
SAMPLES = ["aé€😀\x81\u0100", "plain", "", "\ufeffx", "ÿ\x9d", TEXT, "Grüße, “quoted” — ok"]


def _whatwg_1252():
    """Windows-1252 as WHATWG maps it (transcode's, decode's and repair's):
    CPython's cp1252 with its five undefined bytes as the C1 controls."""
    import encodings.cp1252

    table = "".join(chr(i) if c == "\ufffe" else c for i, c in enumerate(encodings.cp1252.decoding_table))
    encoding = codecs.charmap_build(table)

    def search(name):
        if name != "test_whatwg_1252":
            return None
        return codecs.CodecInfo(
            name="test-whatwg-1252",
            encode=lambda text, errors="strict": codecs.charmap_encode(text, errors, encoding),
            decode=lambda data, errors="strict": codecs.charmap_decode(data, errors, table),
        )

    codecs.register(search)
    return "test-whatwg-1252"


WHATWG_1252 = _whatwg_1252()


def byte_offset(data, codec, text, index):
    """Where character `index` of `text` (data decoded) starts in `data`."""
    if codec in ("latin-1", "cp1252", WHATWG_1252):
        return index
    if codec.startswith("utf-32"):
        bom = 4 if codec == "utf-32" and data[:4] in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff") else 0
        return bom + 4 * index
    if codec.startswith("utf-16"):
        bom = 2 if codec == "utf-16" and data[:2] in (b"\xff\xfe", b"\xfe\xff") else 0
        return bom + len(text[:index].encode("utf-16-le"))
    return len(text[:index].encode())


def cpython(data, from_, to, errors):
    """bytes.decode then str.encode; an error as (start, end, reason) in bytes of data.
    cp1252 is WHATWG's, as transcode's."""
    from_, to = (WHATWG_1252 if c == "cp1252" else c for c in (from_, to))
    try:
        text = data.decode(from_, errors)
    except UnicodeDecodeError as e:
        return (e.start, e.end, e.reason)
    try:
        return text.encode(to, errors)
    except UnicodeEncodeError as e:
        return (byte_offset(data, from_, text, e.start), byte_offset(data, from_, text, e.end), e.reason)


def ours(data, from_, to, errors):
    try:
        return utf8guard.transcode(data, from_, to, errors)
    except UnicodeDecodeError as e:
        assert e.object == data
        return (e.start, e.end, e.reason)


def sample_inputs(rng, count):
    alphabet = [0x00, 0xD8, 0xDC, 0x80, 0x81, 0x9D, 0xFF, 0xFE, 0x41, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0x10, 0x11]
    for _ in range(count):
        from_, to = rng.choice(CODECS), rng.choice(CODECS)
        if rng.random() < 0.5:
            data = rng.choice(SAMPLES).encode(from_, "replace")
            if data and rng.random() < 0.4:
                data = data[: rng.randrange(len(data))]  # cut anywhere
        else:
            data = bytes(rng.choice(alphabet) for _ in range(rng.randrange(14)))
        yield from_, to, data


@pytest.mark.parametrize("errors", ["strict", "replace"])
def test_codecs_as_cpython_on_random_broken_and_cut_input(errors):
    import random

    rng = random.Random(20261130)
    checked = 0
    for from_, to, data in sample_inputs(rng, 6000):
        assert ours(data, from_, to, errors) == cpython(data, from_, to, errors), (from_, to, data)
        checked += 1
    assert checked == 6000


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("text", SAMPLES)
def test_round_trips_through_utf8(codec, text):
    try:
        data = text.encode(codec)
    except UnicodeEncodeError:
        return
    assert utf8guard.transcode(data, codec, "utf-8") == text.encode()
    assert utf8guard.transcode(text.encode(), "utf-8", codec) == data


def test_boms_as_cpython():
    # Encoding writes a BOM, little-endian, even for no text.
    assert utf8guard.transcode(b"", "utf-8", "utf-16") == b"\xff\xfe"
    assert utf8guard.transcode(b"", "utf-8", "utf-32") == b"\xff\xfe\x00\x00"
    assert utf8guard.transcode(b"a", "utf-8", "UTF_32") == b"\xff\xfe\x00\x00a\x00\x00\x00"
    # Decoding takes the order from the BOM and drops it; only the first.
    assert utf8guard.transcode(b"\xfe\xff\x00a\xfe\xff", "utf-16", "utf-8") == "a\ufeff".encode()
    assert utf8guard.transcode(b"\x00\x00\xfe\xff\x00\x00\x00a", "utf-32", "utf-8") == b"a"
    assert utf8guard.transcode(b"a\x00\x00\x00", "utf-32", "utf-8") == b"a"  # no BOM: little-endian
    # The fixed orders keep a BOM as a character.
    assert utf8guard.transcode(b"\xff\xfea\x00", "utf-16-le", "utf-8") == "\ufeffa".encode()
    # Error offsets count the BOM.
    with pytest.raises(UnicodeDecodeError) as info:
        utf8guard.transcode(b"\xff\xfe\x00\x00a\x00\x00\x00\x00\xd8\x00\x00", "utf-32", "utf-8")
    assert (info.value.encoding, info.value.start, info.value.end, info.value.reason) == (
        "utf-32",
        8,
        12,
        "code point in surrogate code point range(0xd800, 0xe000)",
    )


def test_single_byte_errors():
    # Windows-1252 is WHATWG's, as in decode and repair: the five bytes
    # CPython's cp1252 leaves undefined are C1 controls, both ways.
    for name in ("windows-1252", "cp1252", "WINDOWS_1252"):
        assert utf8guard.transcode(b"ok\x81\x8d\x8f\x90\x9d\x80", name, "utf-8") == "ok\x81\x8d\x8f\x90\x9d€".encode()
        assert utf8guard.transcode("ok\x81\x9d€".encode(), "utf-8", name) == b"ok\x81\x9d\x80"
    assert utf8guard.decode(b"\x81\x80", errors="windows-1252") == "\x81€"
    assert utf8guard.repair(b"\x81\x80", "cp1252") == "\x81€".encode()
    with pytest.raises(UnicodeDecodeError) as info:
        utf8guard.transcode("ok\u0100".encode(), "utf-8", "windows-1252")
    assert (info.value.start, info.value.end, info.value.reason) == (2, 4, "character maps to <undefined>")
    # A run of characters the target lacks is one error, as CPython's.
    with pytest.raises(UnicodeDecodeError) as info:
        utf8guard.transcode("a€😀b".encode(), "utf-8", "iso-8859-1")
    assert (info.value.encoding, info.value.start, info.value.end, info.value.reason) == (
        "utf-8",
        1,
        8,
        "ordinal not in range(256)",
    )
    assert utf8guard.transcode("a€😀b\x81".encode(), "utf-8", "cp1252", "replace") == b"a\x80?b\x81"
    # A decoding error comes before an encoding error earlier in the text.
    with pytest.raises(UnicodeDecodeError) as info:
        utf8guard.transcode("€".encode() + b"\xff", "utf-8", "latin-1")
    assert (info.value.start, info.value.end, info.value.reason) == (3, 4, "invalid start byte")


def test_family_sources_into_the_new_encodings():
    # Offsets of a writing error count bytes of the dialect's input: a
    # CESU-8 pair is 6 bytes, a modified UTF-8 NUL 2.
    data = cesu8("a😀é€x")
    with pytest.raises(UnicodeDecodeError) as info:
        utf8guard.transcode(data, "cesu-8", "latin-1")
    assert (info.value.encoding, info.value.start, info.value.end, info.value.reason) == (
        "cesu-8",
        1,
        7,
        "ordinal not in range(256)",
    )
    assert utf8guard.transcode(data, "cesu-8", "cp1252", "replace") == b"a?\xe9\x80x"
    assert utf8guard.transcode(data, "cesu-8", "utf-32-be") == "a😀é€x".encode("utf-32-be")
    mutf8 = b"\xc0\x80" + cesu8("😀") + "\u0100".encode()
    with pytest.raises(UnicodeDecodeError) as info:
        utf8guard.transcode(mutf8, "mutf-8", "latin-1")
    assert (info.value.start, info.value.end) == (2, 10)
    # A lone surrogate of WTF-8 has no UTF-32 (or Latin-1) form.
    with pytest.raises(UnicodeDecodeError) as info:
        utf8guard.transcode(b"a\xed\xa0\x80b", "wtf-8", "utf-32-le")
    assert (info.value.start, info.value.end) == (1, 4)
    assert utf8guard.transcode(b"a\xed\xa0\x80b", "wtf-8", "utf-32-le", "replace") == "a\ufffdb".encode("utf-32-le")


@pytest.mark.parametrize("codec", ["utf-16", "utf-32", "utf-32-be", "latin-1", "cp1252"])
def test_long_text(codec):
    # Long enough to be converted with the GIL released.
    text = LONG.encode("utf-8")
    expected = LONG.encode(codec, "replace")
    assert utf8guard.transcode(text, "utf-8", codec, "replace") == expected
    assert utf8guard.transcode(expected, codec, "utf-8") == expected.decode(codec).encode()
