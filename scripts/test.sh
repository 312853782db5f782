#!/usr/bin/env bash
# The whole test suite, as CI runs it (`.ci/run` calls this script).
#
#   scripts/test.sh          everything
#   scripts/test.sh --quick  formatting, lints, docs and the host tests only
#                            (the Arrow and DataFusion crates included; not
#                            the Ballista cluster)
#
# Cross tests (NEON under qemu-aarch64) and dispatch tests (qemu-x86_64 with
# emulated CPUs) need qemu-user, gcc-aarch64-linux-gnu and the rustup target
# aarch64-unknown-linux-gnu. In CI (CI=true) or with UTF8GUARD_INSTALL=1
# they are installed when missing; otherwise a missing tool skips its step
# with a message, and the summary says so.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=false
[[ "${1:-}" == "--quick" ]] && quick=true
install=false
[[ "${CI:-}" == "true" || "${UTF8GUARD_INSTALL:-}" == "1" ]] && install=true

passed=0
failed=0
skipped=0
skipped_steps=()

step() { printf '\n==> %s\n' "$*"; }
ok() { passed=$((passed + 1)); }
skip() {
    echo "SKIPPED: $*"
    skipped=$((skipped + 1))
    skipped_steps+=("$*")
}
have() { command -v "$1" >/dev/null 2>&1; }

apt_install() {
    if ! $install; then return 1; fi
    if [[ -z "${apt_updated:-}" ]]; then
        apt-get update -qq >/dev/null && apt_updated=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# ---------------------------------------------------------------- host ----
step "cargo fmt --check"
cargo fmt --all --check
ok

step "cargo clippy (all targets, -D warnings)"
cargo clippy --workspace --all-targets --quiet -- -D warnings
ok

step "cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
ok

step "no_std builds (no default features; alloc)"
cargo build -p utf8guard --no-default-features --quiet
cargo build -p utf8guard --no-default-features --features alloc --quiet
ok

if ! have isutf8; then apt_install moreutils || true; fi

# The core crates (and the core benchmarks' helpers) in release, as before;
# the Arrow and DataFusion crates have a step of their own below.
heavy=(utf8guard-arrow utf8guard-datafusion utf8guard-bench-columns)
step "cargo test --workspace --release (without the Arrow and DataFusion crates)"
cargo test --workspace --release "${heavy[@]/#/--exclude=}"
ok

# DataFusion is large: its tests build in the `integration` profile
# (dependencies unoptimised, no debug info; see Cargo.toml), in
# target/integration.
step "Arrow and DataFusion crates: cargo test --profile integration"
cargo test --profile integration "${heavy[@]/#/--package=}"
ok

if $quick; then
    echo
    echo "quick run: ${passed} passed, ${failed} failed, ${skipped} skipped"
    exit 0
fi

# ------------------------------------------------------- Ballista cluster ----
# Its own workspace (cluster/Cargo.toml), lock file and target folder: one
# scheduler and two executors on 127.0.0.1, queried over Parquet files.
step "Ballista cluster (cluster/): fmt, clippy, end-to-end test"
cargo fmt --manifest-path cluster/Cargo.toml --check
cargo clippy --manifest-path cluster/Cargo.toml --all-targets --quiet -- -D warnings
cargo test --manifest-path cluster/Cargo.toml
ok

# ------------------------------------------------- dispatch under qemu ----
step "dispatch on emulated CPUs (qemu-x86_64)"
if ! have qemu-x86_64; then apt_install qemu-user || true; fi
if have qemu-x86_64; then
    cargo build --release -p utf8guard --example which_kernel --tests --quiet
    example=target/release/examples/which_kernel
    expect_kernel() { # cpu expected
        local got
        got=$(qemu-x86_64 -cpu "$1" "$example")
        echo "-cpu $1: $got"
        [[ "$got" == "$2" ]] || { echo "FAIL: -cpu $1 picked '$got', expected '$2'"; exit 1; }
    }
    expect_kernel Westmere sse42
    expect_kernel core2duo scalar
    expect_kernel max avx2
    # A forced kernel the CPU lacks must fail loudly, never fall back.
    if out=$(UTF8GUARD_KERNEL=avx2 qemu-x86_64 -cpu Westmere "$example" 2>&1); then
        echo "FAIL: UTF8GUARD_KERNEL=avx2 ran on a CPU without AVX2: $out"
        exit 1
    fi
    grep -q "does not support the avx2 kernel; available here: scalar, sse42" <<<"$out" || {
        echo "FAIL: unexpected message: $out"
        exit 1
    }
    echo "UTF8GUARD_KERNEL=avx2 on Westmere: refused with the available kernels listed"
    # The kernel tests themselves on the emulated CPUs (the exhaustive
    # 3-byte test of every API is left to the native run; its slim form,
    # vector kernels only, runs here).
    tests=$(find target/release/deps -maxdepth 1 -type f -executable -name 'kernels-*' | head -n 1)
    for cpu in Westmere core2duo; do
        echo "kernel tests on -cpu $cpu"
        qemu-x86_64 -cpu "$cpu" "$tests" --quiet --exact --skip all_three_byte_sequences
    done
    ok
else
    skip "dispatch under qemu-x86_64 (install qemu-user, or run with UTF8GUARD_INSTALL=1)"
fi

# ---------------------------------------------------- NEON under qemu ----
step "aarch64: NEON kernel tests under qemu-aarch64"
target=aarch64-unknown-linux-gnu
if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
    if $install; then rustup target add "$target"; fi
fi
if ! have aarch64-linux-gnu-gcc || ! have qemu-aarch64; then
    apt_install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user || true
fi
if rustup target list --installed 2>/dev/null | grep -qx "$target" && have aarch64-linux-gnu-gcc && have qemu-aarch64; then
    # The exhaustive 3-byte test runs every kernel and the dispatched API on
    # 16 million inputs, which takes many minutes under emulation; its slim
    # form (the vector kernel alone, against the DFA) runs instead.
    cargo test --release --target "$target" -p utf8guard-dfa -p utf8guard -- \
        --exact --skip all_three_byte_sequences
    ok
else
    skip "aarch64 cross tests (need the rustup target $target, gcc-aarch64-linux-gnu and qemu-user; UTF8GUARD_INSTALL=1 installs them)"
fi

# ---------------------------------------------------------------- Miri ----
step "Miri: the scalar kernel, the SIMD kernels and dispatch, undefined-behaviour checks"
if cargo +nightly miri --version >/dev/null 2>&1 || { $install && rustup component add miri rust-src --toolchain nightly; }; then
    cargo +nightly miri setup --quiet 2>/dev/null || cargo +nightly miri setup
    # Scalar and dispatch as the CPU detection sees them under Miri (no
    # features: the scalar kernel).
    cargo +nightly miri test -p utf8guard --lib --quiet
    # The SSE4.2 and AVX2 kernels, enabled at compile time so Miri runs
    # their intrinsics (and checks every load against the slice bounds).
    RUSTFLAGS="-C target-feature=+avx2,+sse4.2" CARGO_TARGET_DIR=target/miri-simd \
        cargo +nightly miri test -p utf8guard --lib --quiet
    cargo +nightly miri test -p utf8guard-dfa --lib --quiet -- faults_are_named error_positions_are_exact expected_ranges
    ok
else
    skip "Miri (rustup component add miri rust-src --toolchain nightly)"
fi

echo
echo "test.sh: ${passed} passed, ${failed} failed, ${skipped} skipped"
if ((skipped > 0)); then
    printf '  skipped: %s\n' "${skipped_steps[@]}"
    if $install; then
        echo "a step was skipped although installs were allowed"
        exit 1
    fi
fi
