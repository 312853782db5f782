"""Independent validators for the cross-check in ../main.rs.

Usage: python3 peers.py MODE INPUT OUTPUT [MODE INPUT OUTPUT]...

INPUT holds one input per line, in hex. For each input, one line is written
to OUTPUT:

    ok            the implementation accepts the input
    err V L       it rejects it: the first V bytes were accepted, then an
                  ill-formed sequence of L bytes
    err V end     it rejects it: the input ends inside a sequence after V
                  bytes
    err V         it rejects it after V bytes (no length reported)

When a mode's implementation cannot be loaded here, OUTPUT holds one line,
"unavailable: REASON".

Modes:
    utf-8             bytes.decode('utf-8') (strict)
    surrogatepass     bytes.decode('utf-8', 'surrogatepass')
    icu:NAME          ICU4C's converter NAME (ucnv_toUnicode with the stop
                      callback), loaded from libicuuc with ctypes
    iconv:NAME        the C library's iconv from NAME to UTF-16LE, with ctypes
"""

import ctypes
import ctypes.util
import glob
import os
import re
import sys


def python_codec(errors):
    def check(data):
        try:
            data.decode("utf-8", errors)
            return "ok"
        except UnicodeDecodeError as e:
            if e.reason == "unexpected end of data":
                return "err %d end" % e.start
            return "err %d %d" % (e.start, e.end - e.start)

    return check


U_ZERO_ERROR = 0
U_BUFFER_OVERFLOW_ERROR = 15
U_INVALID_CHAR_FOUND = 10
U_TRUNCATED_CHAR_FOUND = 11
U_ILLEGAL_CHAR_FOUND = 12


def load_icu():
    """libicuuc and the suffix of its versioned symbols ("_72")."""
    names = [ctypes.util.find_library("icuuc")]
    names += sorted(glob.glob("/usr/lib/*/libicuuc.so.*")) + sorted(
        glob.glob("/usr/lib/libicuuc.so.*")
    )
    for name in names:
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        for suffix in [""] + ["_%d" % v for v in range(99, 49, -1)]:
            if hasattr(lib, "ucnv_open" + suffix):
                return lib, suffix
    raise OSError("libicuuc not found (Debian: libicu72 or icu-devtools)")


def icu_converter(name):
    lib, v = load_icu()
    fn = lambda n: getattr(lib, n + v)
    err = ctypes.c_int(U_ZERO_ERROR)
    fn("ucnv_open").restype = ctypes.c_void_p
    cnv = fn("ucnv_open")(name.encode(), ctypes.byref(err))
    if err.value > U_ZERO_ERROR or not cnv:
        raise OSError("ICU has no converter %s (error %d)" % (name, err.value))
    cnv = ctypes.c_void_p(cnv)
    # Stop at the first ill-formed sequence instead of substituting U+FFFD.
    stop = ctypes.cast(fn("UCNV_TO_U_CALLBACK_STOP"), ctypes.c_void_p)
    fn("ucnv_setToUCallBack")(
        cnv, stop, None, None, None, ctypes.byref(err)
    )
    to_unicode = fn("ucnv_toUnicode")
    reset = fn("ucnv_reset")
    invalid_chars = fn("ucnv_getInvalidChars")
    out = (ctypes.c_uint16 * 64)()
    bad = ctypes.create_string_buffer(32)

    def check(data):
        reset(cnv)
        src = ctypes.create_string_buffer(data, len(data))
        base = ctypes.addressof(src)
        src_ptr = ctypes.c_char_p(base)
        src_end = ctypes.c_char_p(base + len(data))
        while True:
            err = ctypes.c_int(U_ZERO_ERROR)
            dst_ptr = ctypes.cast(out, ctypes.c_void_p)
            dst_end = ctypes.c_void_p(ctypes.addressof(out) + ctypes.sizeof(out))
            to_unicode(
                cnv,
                ctypes.byref(dst_ptr),
                dst_end,
                ctypes.byref(src_ptr),
                src_end,
                None,
                ctypes.c_int8(1),
                ctypes.byref(err),
            )
            if err.value != U_BUFFER_OVERFLOW_ERROR:
                break
        consumed = ctypes.cast(src_ptr, ctypes.c_void_p).value - base
        if err.value <= U_ZERO_ERROR:
            return "ok"
        n = ctypes.c_int8(len(bad))
        e2 = ctypes.c_int(U_ZERO_ERROR)
        invalid_chars(cnv, bad, ctypes.byref(n), ctypes.byref(e2))
        start = consumed - n.value
        if err.value == U_TRUNCATED_CHAR_FOUND:
            return "err %d end" % start
        if err.value in (U_ILLEGAL_CHAR_FOUND, U_INVALID_CHAR_FOUND):
            return "err %d %d" % (start, n.value)
        raise RuntimeError("ICU error %d" % err.value)

    return check


def iconv_converter(name):
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.iconv_open.restype = ctypes.c_void_p
    cd = libc.iconv_open(b"UTF-16LE", name.encode())
    if cd in (None, ctypes.c_void_p(-1).value):
        raise OSError("iconv has no converter %s" % name)
    cd = ctypes.c_void_p(cd)
    libc.iconv.restype = ctypes.c_size_t
    libc.iconv.argtypes = [ctypes.c_void_p] + [ctypes.c_void_p] * 4
    out = ctypes.create_string_buffer(256)
    EILSEQ, EINVAL = 84, 22

    def check(data):
        libc.iconv(cd, None, None, None, None)
        src = ctypes.create_string_buffer(data, len(data))
        base = ctypes.addressof(src)
        in_ptr = ctypes.c_void_p(base)
        in_left = ctypes.c_size_t(len(data))
        out_ptr = ctypes.c_void_p(ctypes.addressof(out))
        out_left = ctypes.c_size_t(len(out))
        r = libc.iconv(
            cd,
            ctypes.byref(in_ptr),
            ctypes.byref(in_left),
            ctypes.byref(out_ptr),
            ctypes.byref(out_left),
        )
        if r != ctypes.c_size_t(-1).value:
            return "ok"
        errno = ctypes.get_errno()
        start = in_ptr.value - base
        if errno == EINVAL:
            return "err %d end" % start
        if errno == EILSEQ:
            return "err %d" % start
        raise RuntimeError("iconv errno %d" % errno)

    return check


def checker(mode):
    if mode == "utf-8":
        return python_codec("strict")
    if mode == "surrogatepass":
        return python_codec("surrogatepass")
    if mode.startswith("icu:"):
        return icu_converter(mode[4:])
    if mode.startswith("iconv:"):
        return iconv_converter(mode[6:])
    raise SystemExit("unknown mode " + mode)


def main(args):
    if len(args) % 3 != 0 or not args:
        raise SystemExit(__doc__)
    for i in range(0, len(args), 3):
        mode, src, dst = args[i : i + 3]
        with open(dst, "w") as out:
            try:
                check = checker(mode)
            except OSError as e:
                out.write("unavailable: %s\n" % e)
                continue
            with open(src) as lines:
                out.write(
                    "\n".join(check(bytes.fromhex(line)) for line in lines)
                )
                out.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
