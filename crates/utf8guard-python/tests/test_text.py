"""Stress cases in the manner of Markus Kuhn's UTF-8 decoder test, and
real text with mutations, against CPython's decoder."""

import pathlib
import random

import pytest

import utf8guard
from oracle import assert_like_cpython

STRESS = [
    # Correct text, and the first and last sequence of each length.
    "κόσμε".encode(), b"\x00", b"\xc2\x80", b"\xe0\xa0\x80", b"\xf0\x90\x80\x80",
    b"\xf8\x88\x80\x80\x80", b"\xfc\x84\x80\x80\x80\x80",
    b"\x7f", b"\xdf\xbf", b"\xef\xbf\xbf", b"\xf7\xbf\xbf\xbf", b"\xfb\xbf\xbf\xbf\xbf",
    b"\xfd\xbf\xbf\xbf\xbf\xbf",
    # Other boundaries.
    b"\xed\x9f\xbf", b"\xee\x80\x80", b"\xef\xbf\xbd", b"\xf4\x8f\xbf\xbf", b"\xf4\x90\x80\x80",
    # Unexpected continuation bytes: alone, in runs, all 64 in a row.
    b"\x80", b"\xbf", b"\x80\xbf", b"\x80\xbf\x80", b"\x80\xbf\x80\xbf", b"\x80\xbf\x80\xbf\x80",
    bytes(range(0x80, 0xC0)),
    # Every lead byte alone, followed by a space.
    b"".join(bytes((b, 0x20)) for b in range(0xC0, 0x100)),
    # Sequences with the last continuation byte missing, alone and
    # concatenated.
    b"\xc0", b"\xe0\x80", b"\xf0\x80\x80", b"\xf8\x80\x80\x80", b"\xfc\x80\x80\x80\x80",
    b"\xdf", b"\xef\xbf", b"\xf7\xbf\xbf", b"\xfb\xbf\xbf\xbf", b"\xfd\xbf\xbf\xbf\xbf",
    b"\xc0\xe0\x80\xf0\x80\x80\xf8\x80\x80\x80\xfc\x80\x80\x80\x80"
    b"\xdf\xef\xbf\xf7\xbf\xbf\xfb\xbf\xbf\xbf\xfd\xbf\xbf\xbf\xbf",
    b"\xe1\x80", b"\xf1\x80\x80", b"\xf4\x8f\xbf", b"\xe1\x80\xe2\x80\xf1\x80\x80",
    # Impossible bytes.
    b"\xfe", b"\xff", b"\xfe\xfe\xff\xff",
    # Overlong forms of "/", the largest overlong forms, overlong NULs.
    b"\xc0\xaf", b"\xe0\x80\xaf", b"\xf0\x80\x80\xaf", b"\xf8\x80\x80\x80\xaf",
    b"\xfc\x80\x80\x80\x80\xaf",
    b"\xc1\xbf", b"\xe0\x9f\xbf", b"\xf0\x8f\xbf\xbf", b"\xf8\x87\xbf\xbf\xbf",
    b"\xfc\x83\xbf\xbf\xbf\xbf",
    b"\xc0\x80", b"\xe0\x80\x80", b"\xf0\x80\x80\x80", b"\xf8\x80\x80\x80\x80",
    b"\xfc\x80\x80\x80\x80\x80",
    # Single surrogates, paired surrogates (CESU-8's form), cut short.
    b"\xed\xa0\x80", b"\xed\xad\xbf", b"\xed\xae\x80", b"\xed\xaf\xbf", b"\xed\xb0\x80",
    b"\xed\xbe\x80", b"\xed\xbf\xbf",
    b"\xed\xa0\x80\xed\xb0\x80", b"\xed\xa0\x80\xed\xbf\xbf", b"\xed\xad\xbf\xed\xb0\x80",
    b"\xed\xaf\xbf\xed\xbf\xbf", b"\xed\xa0", b"\xed\xa0\x41", b"\xed\xa0\xed\xb0",
    # Noncharacters (well formed).
    b"\xef\xbf\xbe", b"\xef\xbf\xbf", b"\xef\xb7\x90", b"\xf4\x8f\xbf\xbe",
    # Code points above U+10FFFF.
    b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xf7\xbf\xbf\xbf",
]


@pytest.mark.parametrize("case", STRESS, ids=lambda b: b.hex() or "empty")
def test_stress_case(case):
    """Each case alone, in text, after 64 ASCII bytes (a vector's worth),
    and across a 64 KiB boundary."""
    assert_like_cpython(case)
    assert_like_cpython(b"abc " + case + " déjà vu ".encode() + case)
    assert_like_cpython(b"x" * 64 + case + b"y" * 64)
    assert_like_cpython(b"x" * (65536 - 2) + case + "ü".encode() * 10)


SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "Voix ambiguë d'un cœur qui, au zéphyr, préfère les jattes de kiwis.",
    "Τάχιστη αλώπηξ βαφής ψημένη γη, δρασκελίζει υπέρ νωθρού κυνός.",
    "Съешь же ещё этих мягких французских булок, да выпей чаю.",
    "ऋषियों को सताने वाले दुष्ट राक्षसों के राजा रावण का सर्वनाश करने वाले।",
    "我能吞下玻璃而不伤身体。",
    "いろはにほへと ちりぬるを わかよたれそ つねならむ",
    "صِف خَلقَ خَودِ كَمِثلِ الشَمسِ إِذ بَزَغَت",
    "דג סקרן שט בים מאוכזב ולפתע מצא חברה",
    "키스의 고유조건은 입술끼리 만나야 하고 특별한 기술은 필요치 않다.",
    "😀🙃🎉 emoji 👩‍👩‍👧‍👦 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
]


def mutations(text, rng, count):
    """count copies of text, each with one to three random faults:
    a byte changed, inserted, removed, or the text cut short."""
    for _ in range(count):
        data = bytearray(text)
        for _ in range(rng.randint(1, 3)):
            what = rng.randrange(4)
            at = rng.randrange(len(data) + 1)
            if what == 0 and at < len(data):
                data[at] = rng.randrange(256)
            elif what == 1:
                data.insert(at, rng.choice((0x80, 0xBF, 0xC0, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xF5,
                                            0xFF, rng.randrange(256))))
            elif what == 2 and at < len(data):
                del data[at]
            else:
                del data[at:]
        yield bytes(data)


@pytest.mark.parametrize("sentence", SENTENCES, ids=lambda s: s[:12])
def test_mutated_sentences(sentence):
    rng = random.Random(sentence)
    text = sentence.encode()
    assert_like_cpython(text)
    for data in mutations(text, rng, 300):
        assert_like_cpython(data)
    # Longer text, so that the vector paths run between the faults.
    long_text = (sentence + "\n").encode() * 40
    for data in mutations(long_text, rng, 30):
        assert_like_cpython(data)


def corpora():
    """The shared corpora beside the repository (../shared/corpora from
    its root), if this machine has them."""
    root = pathlib.Path(__file__).resolve().parents[3]
    for folder in (root.parent / "shared" / "corpora", pathlib.Path("/work/shared/corpora")):
        if folder.is_dir():
            return sorted(folder.rglob("*.txt"))
    return []


@pytest.mark.parametrize("path", corpora() or [None], ids=lambda p: p.name if p else "absent")
def test_mutated_corpus_file(path):
    if path is None:
        pytest.skip("the shared corpora (../shared/corpora from the repository's root) are absent")
    text = path.read_bytes()
    assert_like_cpython(text)
    rng = random.Random(path.name)
    for data in mutations(text, rng, 20):
        assert_like_cpython(data)
