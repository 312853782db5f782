"""The README's Python example, line by line: each call's result is what
the comment after it says (the longest prefix of the comment that is a
Python literal), so that the front page cannot drift from the package."""

import ast
import pathlib
import re

import pytest

import utf8guard

README = pathlib.Path(__file__).resolve().parents[3] / "README.md"


def example_lines():
    """The (expression, expected value) pairs of the README's Python block."""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", text, re.S)
    assert block, "README.md has no Python example"
    pairs = []
    for line in block.group(1).splitlines():
        if line.startswith("import ") or not line.strip():
            continue
        code, _, comment = line.partition("  # ")
        comment = comment.strip()
        # The longest prefix of the comment that is a literal.
        for end in range(len(comment), 0, -1):
            try:
                expected = ast.literal_eval(comment[:end])
            except (ValueError, SyntaxError):
                continue
            break
        else:
            pytest.fail(f"no expected value in the comment of {line!r}")
        pairs.append((code.strip(), expected))
    return pairs


def test_the_example_has_lines():
    assert len(example_lines()) >= 4


@pytest.mark.parametrize("code,expected", example_lines())
def test_readme_python_example(code, expected):
    got = eval(code, {"utf8guard": utf8guard})  # noqa: S307 (our own README)
    assert got == expected and type(got) is type(expected), (code, got)
