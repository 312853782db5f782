"""A user's script, type-checked by test_typing.py with mypy --strict (not run)."""

import array
import mmap
from typing import Optional

import numpy as np
import numpy.typing as npt

import utf8guard


def main(path: str) -> None:
    data = b"caf\xe9"
    ok: bool = utf8guard.validate(data)
    err: Optional[utf8guard.Utf8Error] = utf8guard.check(bytearray(data))
    every: list[utf8guard.Utf8Error] = utf8guard.check(data, all=True)
    every2: list[utf8guard.Utf8Error] = utf8guard.check(data, "cesu-8", True)
    text: str = utf8guard.decode(memoryview(data), errors="replace")
    fixed: bytes = utf8guard.repair(array.array("B", data), "replace")
    arr: npt.NDArray[np.uint8] = np.frombuffer(data, dtype=np.uint8)
    assert utf8guard.validate(arr) is False
    out: bytes = utf8guard.transcode(arr, "utf-8", "utf-16", "replace")
    first: Optional[utf8guard.Utf8Error] = utf8guard.check_file(path)
    errors: list[utf8guard.Utf8Error] = utf8guard.check_file(path, all=True)
    stats = utf8guard.repair_file(path, path + ".out")
    n: int = stats["replacements"]
    converted = utf8guard.binary_to_string(data, "replace", trust_offsets=True)
    utf8guard.validate_batch(converted)
    utf8guard.batch_binary_to_string(converted)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        utf8guard.validate(m)
    print(ok, err, every, every2, text, fixed, out, first, errors, n, utf8guard.__version__)
