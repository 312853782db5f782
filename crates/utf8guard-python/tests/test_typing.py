"""The package's types: mypy --strict on a user's script reports nothing
(no untyped call, NumPy arrays taken where the buffer protocol takes them)."""

import os
import subprocess
import sys

import pytest

pytest.importorskip("mypy")
pytest.importorskip("numpy")

HERE = os.path.dirname(__file__)


def test_mypy_strict_on_a_users_script():
    script = os.path.join(HERE, "typing", "user_script.py")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", os.devnull, "--no-color-output", script],
        capture_output=True,
        text=True,
        cwd=HERE,
        check=False,
    )
    assert result.stdout.strip() == "Success: no issues found in 1 source file", result.stdout + result.stderr
