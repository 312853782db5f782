#!/usr/bin/env bash
# Type-checks the Python extension (crates/utf8guard-python) against the
# oldest and the newest CPython that its PyO3 supports, without those
# interpreters: the extension is not abi3 (docs/PYTHON.md), so each
# version has its own FFI declarations and cfgs (Py_3_10, Py_3_12, ...),
# and the tests run on one version only. PyO3's build script reads the
# interpreter's description from the file PYO3_CONFIG_FILE names instead
# of asking a `python3`.
#
#   scripts/check-python-versions.sh            3.9 and 3.15
#   scripts/check-python-versions.sh 3.10 3.14  the versions given
#
# CARGO_TARGET_DIR defaults to target/python-check (one directory for all
# versions: only PyO3 and the extension are checked again per version).
set -euo pipefail
cd "$(dirname "$0")/.."

versions=("$@")
((${#versions[@]} > 0)) || versions=(3.9 3.15)
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target/python-check}"
mkdir -p "$CARGO_TARGET_DIR"
configs=$(realpath "$CARGO_TARGET_DIR")
for version in "${versions[@]}"; do
    config="$configs/pyo3-cpython-$version.txt"
    # A shared libpython on 64-bit Linux, as a distribution's CPython;
    # nothing is linked by `cargo check`.
    cat >"$config" <<CONFIG
implementation=CPython
version=$version
shared=true
abi3=false
lib_name=python$version
pointer_width=64
suppress_build_script_link_lines=false
CONFIG
    echo "cargo check -p utf8guard-python for CPython $version"
    PYO3_CONFIG_FILE="$config" cargo check --quiet -p utf8guard-python --all-targets
done
