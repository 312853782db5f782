"""transcode, against CPython's codecs where CPython has the codec."""

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
