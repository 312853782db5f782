#!/usr/bin/env bash
# Builds the Python package's wheel for other Linux machines and installs it
# into a fresh virtual environment that has no Rust, to show that it needs
# none. A plain `maturin build` (or `pip wheel`) here is tagged for this
# machine's glibc (2.36; linux_x86_64 or manylinux_2_34), which older
# systems' pip refuses; zig (PyPI's `ziglang`) links against glibc 2.17's
# symbols instead, so the wheel is manylinux2014 (manylinux_2_17), checked
# by auditwheel. The .so is stripped (pyproject.toml's `strip = true`).
#
# Usage: scripts/python-wheel.sh   (UTF8GUARD_WHEEL_PROFILE=ci for the
# profile without LTO, default release; UTF8GUARD_WHEEL_TARGET_DIR and
# UTF8GUARD_WHEEL_DIST for cargo's directory and the wheel's, default
# target/python-zig and target/python-dist; UTF8GUARD_WHEEL_PYTHON for
# another interpreter of the build's version to install into). Needs
# python3, venv and PyPI (maturin, ziglang, auditwheel; the checking venv
# installs from the wheel file only). scripts/test.sh's Python step runs
# it with the ci profile and tests the wheel it builds.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

profile=${UTF8GUARD_WHEEL_PROFILE:-release}
venv=target/python-venv        # shared with scripts/test.sh's Python step
dist=${UTF8GUARD_WHEEL_DIST:-target/python-dist}
target_dir=${UTF8GUARD_WHEEL_TARGET_DIR:-target/python-zig}
check_venv=target/python-wheel-check
# The test interpreter: the system's, not the build venv's (pyenv's here),
# so the wheel is installed into another Python installation of the version
# it was built for.
check_python=${UTF8GUARD_WHEEL_PYTHON:-/usr/bin/python3}

[[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check maturin ziglang auditwheel

rm -f "$dist"/utf8guard-*.whl
# Its own target directory by default: zig as the linker and C compiler
# changes the build's configuration, so a directory shared with a plain
# build is rebuilt whole at each switch. maturin finds zig through
# `python3 -m ziglang`: the venv's bin first.
PATH="$PWD/$venv/bin:$PATH" CARGO_TARGET_DIR="$target_dir" \
    "$venv/bin/maturin" build --profile "$profile" --zig --compatibility manylinux2014 \
    --manifest-path crates/utf8guard-python/Cargo.toml --out "$dist" \
    --interpreter "$venv/bin/python"
build_s=$((SECONDS - start))
wheel=$(ls "$dist"/utf8guard-*.whl)
"$venv/bin/auditwheel" show "$wheel"

# A fresh venv with nothing of this environment: no cargo or rustc on PATH,
# no PYTHONPATH, no PIP_* settings.
rm -rf "$check_venv"
env -i PATH=/usr/bin:/bin HOME="$HOME" "$check_python" -m venv "$check_venv"
env -i PATH="$PWD/$check_venv/bin:/usr/bin:/bin" HOME="$HOME" bash -c '
    set -euo pipefail
    if command -v cargo || command -v rustc; then
        echo "cargo or rustc on PATH in the checking venv" >&2; exit 1
    fi
    pip install --quiet --disable-pip-version-check --no-index "$1"
    cd /   # not the source tree: the installed package is imported
    python - <<"PY"
import sys, utf8guard
assert utf8guard.__file__.startswith(sys.prefix), utf8guard.__file__
assert utf8guard.decode(b"caf\xc3\xa9") == "café"
try:
    utf8guard.decode(b"caf\xe9!")
except UnicodeDecodeError as e:
    # The same values as bytes.decode gives.
    assert (e.encoding, e.start, e.end, e.reason) == ("utf-8", 3, 4, "invalid continuation byte"), e
else:
    raise AssertionError("no error")
assert utf8guard.check(b"caf\xe9!").valid_up_to == 3
print("smoke test passed:", utf8guard.__file__)
PY
' check "$PWD/$wheel"

so_bytes=$(unzip -l "$wheel" | awk '/\.so$/ {print $1}')
echo "wheel: $(basename "$wheel")"
unzip -p "$wheel" '*.dist-info/WHEEL' | sed -n 's/^Tag: /tag: /p'
echo "size: $(stat -c %s "$wheel") bytes (the .so: $so_bytes bytes uncompressed)"
echo "time: ${build_s} s to build, $((SECONDS - start)) s in all"
