"""Every short input against CPython's UTF-8 decoder."""

import itertools

import utf8guard
from oracle import HANDLERS, POLICIES, assert_like_cpython, fast_oracle, our_strict_error, strict_error

# Third bytes that stand for all the others in the exception test of
# 3-byte inputs: each boundary of the continuation ranges, lead bytes,
# bytes that never appear, ASCII.
SAMPLE = (0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
          0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF)


def test_every_one_and_two_byte_input():
    for n in (0, 1, 2):
        for t in itertools.product(range(256), repeat=n):
            assert_like_cpython(bytes(t))


def test_fast_oracles_agree_with_the_error_handlers():
    for t in itertools.product(range(256), repeat=2):
        raw = b"\xed" + bytes(t) + b"\xed\xa0"
        for handler in ("per-byte", "latin-1", "windows-1252", "jvm"):
            assert fast_oracle(raw, handler) == raw.decode("utf-8", HANDLERS[handler]), raw


def test_every_three_byte_input_led_by_c0_to_ff():
    """check's start and end on every 3-byte input whose first byte is
    C0..FF (those led by 80..BF start with an error whose end is fixed,
    and the rest is a 2-byte input, tested above), and the strict
    decoder's exception, every attribute, on a sample of third bytes."""
    check = utf8guard.check
    for a in range(0xC0, 0x100):
        for b in range(256):
            for c in range(256):
                data = bytes((a, b, c))
                try:
                    data.decode("utf-8")
                    assert check(data) is None, data
                except UnicodeDecodeError as e:
                    found = check(data)
                    assert (found.start, found.end) == (e.start, e.end), data
        for b in range(256):
            for c in SAMPLE:
                data = bytes((a, b, c))
                assert our_strict_error(data) == strict_error(data), data


def test_every_three_byte_input_every_handler():
    """Each handler and policy on the 8.4 million 3-byte inputs whose first
    byte is not ASCII (an ASCII one leaves a 2-byte input, tested above),
    65536 at a time: those with the same first byte, each followed by a
    newline (ASCII ends any sequence), decoded as one input; a difference
    is then narrowed down to the input."""
    # Every second and third byte, each input 4 bytes with its newline;
    # the first bytes are set per round.
    template = bytearray(b"".join(bytes((0, b, c, 0x0A)) for b in range(256) for c in range(256)))
    policies = ("maximal-subpart", "jvm", "per-byte", "windows-1252", "latin-1", "backslash",
                "drop", "escape")
    for a in range(0x80, 0x100):
        template[0::4] = bytes((a,)) * 65536
        joined = bytes(template)
        expected = {}
        for handler in HANDLERS:
            expected[handler] = fast_oracle(joined, handler)
            if utf8guard.decode(joined, errors=handler) != expected[handler]:
                for i in range(0, len(joined), 4):
                    data = joined[i:i + 3]
                    assert utf8guard.decode(data, errors=handler) == fast_oracle(data, handler), (data, handler)
                raise AssertionError((a, handler))
        for policy in policies:
            want = expected[POLICIES[policy]].encode("utf-8", "surrogatepass")
            assert utf8guard.repair(joined, policy) == want, (a, policy)
