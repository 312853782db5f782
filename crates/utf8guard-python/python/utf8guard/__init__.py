"""SIMD-accelerated UTF-8 validation, checks of the UTF-8 family, decoding and repair.

Every function takes any object with the buffer protocol (bytes, bytearray,
memoryview, mmap, array, ...) and reads its bytes in place.

>>> import utf8guard
>>> utf8guard.validate(b"caf\\xc3\\xa9")
True
>>> utf8guard.check(b"caf\\xe9!").start
3
>>> utf8guard.decode(b"caf\\xe9", errors="windows-1252")
'café'
"""

from ._utf8guard import Utf8Error, __version__, check, decode, repair, validate

__all__ = ["Utf8Error", "__version__", "check", "decode", "repair", "validate"]
