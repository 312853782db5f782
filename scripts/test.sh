#!/usr/bin/env bash
# The whole test suite, as CI runs it (`.ci/run` calls this script).
#
#   scripts/test.sh          everything
#   scripts/test.sh --quick  formatting, then the core crates' lints and
#                            tests (utf8guard-dfa, utf8guard): a few minutes
#
# Cross tests (NEON under qemu-aarch64, the scalar kernel on big-endian
# s390x under qemu-s390x, the simd128 and scalar kernels as WebAssembly
# under Node.js) and dispatch tests (qemu-x86_64 with emulated CPUs) need
# qemu-user, gcc-aarch64-linux-gnu, gcc-s390x-linux-gnu, Node.js and the
# rustup targets aarch64-unknown-linux-gnu, s390x-unknown-linux-gnu and
# wasm32-wasip1. The cross-check of the dialect oracles against other
# implementations needs python3, a JDK, perl, node and npm (and ICU's
# library). In CI (CI=true) or with UTF8GUARD_INSTALL=1 they are installed
# when missing; otherwise a missing tool skips its step (or, for the
# cross-check, its implementations) with a message, and the summary says so.
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

# Each step's wall time, printed at the end (the last step's ends there).
step_names=()
step_starts=()
step() {
    printf '\n==> %s\n' "$*"
    step_names+=("$*")
    step_starts+=("$SECONDS")
}
step_times() {
    local i end
    echo
    echo "step times (s):"
    for i in "${!step_names[@]}"; do
        end=${step_starts[i + 1]:-$SECONDS}
        printf '  %5d  %s\n' "$((end - step_starts[i]))" "${step_names[i]}"
    done
    printf '  %5d  total\n' "$SECONDS"
}
ok() { passed=$((passed + 1)); }
skip() {
    echo "SKIPPED: $*"
    skipped=$((skipped + 1))
    skipped_steps+=("$*")
}
have() { command -v "$1" >/dev/null 2>&1; }

# The optimised builds use the `ci` profile (Cargo.toml): release code,
# built once for the host in the workspace step and reused by the steps
# after it. test_binary NAME prints the newest host test binary NAME.
test_binary() {
    find target/ci/deps -maxdepth 1 -type f -executable -name "$1-*" -printf '%T@ %p\n' |
        sort -n | tail -n 1 | cut -d' ' -f2-
}

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

if $quick; then
    step "cargo clippy (the core crates, all targets, -D warnings)"
    cargo clippy -p utf8guard-dfa -p utf8guard --all-targets --quiet -- -D warnings
    ok
    step "cargo test --profile ci (the core crates)"
    cargo test --profile ci -p utf8guard-dfa -p utf8guard
    ok
    step_times
    echo
    echo "quick run: ${passed} passed, ${failed} failed, ${skipped} skipped"
    exit 0
fi

# Miri interprets on one thread, and its runs take minutes, while the steps
# below leave a core idle for long stretches (links, a long test alone,
# emulated tests, downloads). So its runs start here, in the background and
# at a lower priority, in target directories of their own, and the last
# step waits for them and shows what they printed (target/miri.log).
miri_runs() {
    # Lower priority for this subshell and all it starts.
    renice -n 10 -p "$BASHPID" >/dev/null 2>&1 || true
    cargo +nightly miri setup --quiet 2>/dev/null || cargo +nightly miri setup
    # Three runs side by side (the kernels' tests alone took nearly four
    # minutes): the kernels' and transcoders' tests with SSE4.2 and AVX2
    # enabled at compile time, so that Miri runs their intrinsics and checks
    # every load against the slice bounds (the scalar kernel and scan are
    # among the kernels and widths they try), in two runs of about the same
    # length; and the other unit tests (the scalar kernel's own, the
    # short-input paths, dispatch) as CPU detection sees them under Miri,
    # with no features.
    local simd="-C target-feature=+avx2,+sse4.2" portable second status what pid log
    CARGO_TARGET_DIR=target/miri-portable \
        cargo +nightly miri test -p utf8guard --lib --quiet -- \
        --skip kernel::tests --skip transcode::tests >target/miri-portable.log 2>&1 &
    portable=$!
    RUSTFLAGS="$simd" CARGO_TARGET_DIR=target/miri-simd-2 \
        cargo +nightly miri test -p utf8guard --lib --quiet -- \
        transcode::tests kernel::tests::one_character_after_an_ascii_prefix \
        utf32::tests::vectors_stay_within_their_slices \
        >target/miri-simd-2.log 2>&1 &
    second=$!
    echo "Miri, the kernels' tests with SSE4.2 and AVX2:"
    RUSTFLAGS="$simd" CARGO_TARGET_DIR=target/miri-simd \
        cargo +nightly miri test -p utf8guard --lib --quiet -- \
        kernel::tests --skip kernel::tests::one_character_after_an_ascii_prefix || return 1
    for run in "the transcoders' tests and one kernel test, with SSE4.2 and AVX2:$second:target/miri-simd-2.log" \
        "the other unit tests, without features:$portable:target/miri-portable.log"; do
        IFS=: read -r what pid log <<<"$run"
        status=0
        wait "$pid" || status=$?
        echo "Miri, $what:"
        cat "$log"
        ((status == 0)) || { echo "FAIL: Miri ($what) exited $status"; return 1; }
    done
    echo "Miri, the oracle's error positions:"
    CARGO_TARGET_DIR=target/miri-portable \
        cargo +nightly miri test -p utf8guard-dfa --lib --quiet -- \
        faults_are_named error_positions_are_exact expected_ranges
}
mkdir -p target
if cargo +nightly miri --version >/dev/null 2>&1 || { $install && rustup component add miri rust-src --toolchain nightly; }; then
    miri_runs >target/miri.log 2>&1 &
    miri_job=$!
    # A step that fails ends the run: the Miri runs with it. The trap must
    # not fail itself (set -e holds inside it, and pkill finds nothing once
    # the runs are over), or a passing run would exit 1.
    trap '{ pkill -P "$miri_job"; kill "$miri_job"; } 2>/dev/null || true' EXIT
fi

# The Python step's virtual environment, made in the background while the
# Rust steps run: its downloads and installs (some 60 s in a fresh one)
# would otherwise stand alone in that step.
venv=target/python-venv
python_packages="maturin ziglang auditwheel pytest pyarrow polars pandas mypy duckdb fsspec"
python_env() {
    have python3 || return 1
    if [[ ! -x "$venv/bin/python" ]]; then
        python3 -m venv "$venv" || { rm -rf "$venv"; return 1; }
    fi
    # shellcheck disable=SC2086 # one word per package
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $python_packages
}
if ! have python3 || ! python3 -c "import ensurepip" 2>/dev/null; then
    apt_install python3 python3-venv || true
fi
python_env >target/python-env.log 2>&1 &
python_env_job=$!

step "cargo clippy (all targets, -D warnings)"
# The Python crate's PyO3 (not abi3) asks an interpreter for its version
# when it builds, clippy and doc included.
if ! have python3; then apt_install python3 || true; fi
cargo clippy --workspace --all-targets --quiet -- -D warnings
ok

step "cargo doc (warnings are errors)"
# With the examples, whose dev-dependencies turn on the features that the
# clippy step's tests and benchmarks did: the dependencies' metadata is
# then clippy's, where the libraries and binaries alone had DataFusion and
# Ballista checked again with other features (some 150 s).
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --lib --bins --examples --quiet
ok

step "no_std builds (no default features; alloc)"
cargo build -p utf8guard --no-default-features --quiet
cargo build -p utf8guard --no-default-features --features alloc --quiet
ok

step "tools of the cross-checks (installed when missing)"
if ! have isutf8; then apt_install moreutils || true; fi

# The dialect oracles' cross-check (crates/utf8guard-difftest/tests/independent)
# runs other implementations: Python 3 (its codecs, and ICU and iconv through
# ctypes), a JDK, Perl's Encode, Node.js and two npm packages. A missing one
# is skipped with a notice, except in CI, where it fails the test.
peers=crates/utf8guard-difftest/tests/independent/peers
if ! have python3; then apt_install python3 || true; fi
if ! have perl; then apt_install perl || true; fi
if ! java --describe-module jdk.compiler >/dev/null 2>&1; then apt_install default-jdk-headless || true; fi
if ! compgen -G "/usr/lib/*/libicuuc.so.*" >/dev/null; then apt_install icu-devtools || true; fi
if ! have node; then apt_install nodejs || true; fi
if ! have npm; then apt_install npm || true; fi
if [[ ! -d "$peers/node_modules" ]] && $install && have npm; then
    npm ci --prefix "$peers" --no-audit --no-fund --loglevel=error
fi
ok

# The core crates (and the core benchmarks' helpers), optimised; the Arrow,
# DataFusion and Ballista crates have a step of their own below.
heavy=(utf8guard-arrow utf8guard-datafusion utf8guard-bench-columns utf8guard-cluster)
# The Python extension is built by maturin and tested through Python (its
# own step below).
excluded=("${heavy[@]}" utf8guard-python)
step "cargo test --workspace --profile ci (without the Arrow, DataFusion, Ballista and Python crates)"
cargo test --workspace --profile ci "${excluded[@]/#/--exclude=}"
ok

# The transcoders pick their scans and their checks by the dispatched
# kernel, and so do `par`'s chunks of a long input: their tests again with
# each kernel forced (an override naming a kernel this CPU lacks is
# ignored, and the tests then run the detected one): the binaries the
# workspace step built, run again from the crate's folder as cargo does.
step "transcoders and par with each kernel forced (UTF8GUARD_KERNEL=scalar|sse42|avx2|avx512)"
forced=()
for name in transcode utf16_strict round_trips decode corrected_blocks par; do
    forced+=("$PWD/$(test_binary "$name")")
done
for kernel in scalar sse42 avx2 avx512; do
    for binary in "${forced[@]}"; do
        echo "UTF8GUARD_KERNEL=$kernel ${binary##*/}"
        (cd crates/utf8guard && UTF8GUARD_KERNEL=$kernel "$binary" --quiet)
    done
done
ok

# DataFusion and Ballista are large: their tests build in the `integration`
# profile (dependencies unoptimised, no debug info; see Cargo.toml), in
# target/integration, all in one build so that DataFusion and Arrow are
# compiled once. The Ballista cluster's test runs one scheduler and two
# executors on 127.0.0.1, queried over Parquet files.
step "Arrow, DataFusion and Ballista crates: cargo test --profile integration"
cargo test --profile integration "${heavy[@]/#/--package=}"
ok

# ------------------------------------------------------------- Python ----
# The Python package (crates/utf8guard-python): maturin builds its wheel
# (the ci profile, in target/python, kept between runs) and installs it
# into the virtual environment made at the start (python_env above), where
# its tests run against CPython's codecs, pyarrow, polars and pandas (the
# Arrow PyCapsule functions), and mypy checks a user's script against the
# package's types; those tests skip without their package, but not in CI.
# Then the extension is type-checked for CPython 3.9 and 3.15, the oldest
# and newest its PyO3 supports, without those interpreters
# (scripts/check-python-versions.sh; in target/, whose dependencies the
# clippy step checked: 20 to 30 s). In CI it must run; elsewhere a missing
# python3, venv or pip, or no access to PyPI, skips it.
step "Python package: manylinux wheel (maturin --zig), installed without Rust, pytest"
if [[ -n "${python_env_job:-}" ]] && wait "$python_env_job"; then
    # The wheel other machines install (manylinux2014, built with zig,
    # stripped), shown to install and run in a fresh venv without Rust on
    # PATH; then the tests run against that same wheel.
    UTF8GUARD_WHEEL_PROFILE=ci UTF8GUARD_WHEEL_TARGET_DIR=target/python \
        UTF8GUARD_WHEEL_DIST=target/python-wheels scripts/python-wheel.sh
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall \
        --no-deps target/python-wheels/utf8guard-*.whl
    python="$PWD/$venv/bin/python"
    (cd crates/utf8guard-python && "$python" -m pytest -q -p no:cacheprovider tests)
    CARGO_TARGET_DIR=target scripts/check-python-versions.sh
    ok
elif $install; then
    cat target/python-env.log 2>/dev/null || true
    echo "FAIL: the Python package's step needs python3 with venv and pip, and PyPI ($python_packages)"
    exit 1
else
    skip "Python package (needs python3 with venv and pip, and PyPI for $python_packages; see docs/PYTHON.md)"
fi

# ------------------------------------------------- dispatch under qemu ----
step "dispatch on emulated CPUs (qemu-x86_64)"
if ! have qemu-x86_64; then apt_install qemu-user || true; fi
if have qemu-x86_64; then
    # The example and the kernel tests as the workspace step built them.
    example=target/ci/examples/which_kernel
    expect_kernel() { # cpu expected
        local got
        got=$(qemu-x86_64 -cpu "$1" "$example")
        echo "-cpu $1: $got"
        [[ "$got" == "$2" ]] || { echo "FAIL: -cpu $1 picked '$got', expected '$2'"; exit 1; }
    }
    expect_kernel Westmere sse42
    expect_kernel core2duo scalar
    expect_kernel max avx2
    # A forced kernel the CPU lacks is ignored, never a panic: the detected
    # kernel runs, and `kernel_override` says why (the example prints it).
    got=$(UTF8GUARD_KERNEL=avx2 qemu-x86_64 -cpu Westmere "$example" 2>target/which_kernel.err)
    [[ "$got" == sse42 ]] || { echo "FAIL: UTF8GUARD_KERNEL=avx2 on Westmere ran '$got'"; exit 1; }
    grep -qx "ignored: UTF8GUARD_KERNEL=avx2: not available on this CPU; available: scalar, sse42" \
        target/which_kernel.err || {
        echo "FAIL: unexpected message: $(cat target/which_kernel.err)"
        exit 1
    }
    echo "UTF8GUARD_KERNEL=avx2 on Westmere: ignored (sse42 ran), and reported"
    # The kernel tests themselves on the emulated CPUs (the exhaustive
    # 3-byte test of every API is left to the native run; its slim form,
    # vector kernels only, runs here).
    tests=$(test_binary kernels)
    for cpu in Westmere core2duo; do
        echo "kernel tests on -cpu $cpu"
        qemu-x86_64 -cpu "$cpu" "$tests" --quiet --exact --skip all_three_byte_sequences
    done
    # The single-byte conversions dispatched on a CPU without AVX2: the
    # SSE4.2 steps (and, on core2duo, the scalar loop), from the crate's
    # folder as cargo runs them (CPython's codecs where python3 is).
    legacy=$PWD/$(test_binary legacy)
    for cpu in Westmere core2duo; do
        echo "single-byte conversion tests on -cpu $cpu"
        (cd crates/utf8guard && UTF8GUARD_TEST_EMULATED=1 qemu-x86_64 -cpu "$cpu" "$legacy" --quiet)
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
    # The oracle's brute-force grammar tests are arch-independent code (no
    # unsafe, no intrinsics) and take minutes under emulation: the native
    # run has them. So have the Corrected UTF-8 transcoder's every-offset
    # tests: its block translator is x86's, and its portable path, which
    # runs here, is covered natively with the scalar kernel forced (and in
    # the other byte order on s390x). Every dialect's kernel tests run here;
    # their exhaustive loops of short inputs check the NEON kernel, not the
    # portable one, whose code the native run checks on the same inputs
    # (UTF8GUARD_TEST_EMULATED).
    UTF8GUARD_TEST_EMULATED=1 \
    cargo test --profile ci --target "$target" -p utf8guard-dfa -p utf8guard -- \
        --exact --skip all_three_byte_sequences \
        --skip every_string_of_three_and_four_bytes_over_the_range_ends \
        --skip every_string_of_five_and_six_bytes_over_a_small_alphabet \
        --skip every_code_point_at_every_offset_in_hangul \
        --skip every_code_point_at_every_offset_in_cyrillic \
        --skip every_code_point_at_every_offset_in_ascii
    ok
else
    skip "aarch64 cross tests (need the rustup target $target, gcc-aarch64-linux-gnu and qemu-user; UTF8GUARD_INSTALL=1 installs them)"
fi

# ------------------------------------------------ big-endian under qemu ----
step "s390x (big-endian): the reference DFA and the scalar kernel under qemu-s390x"
target=s390x-unknown-linux-gnu
if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
    if $install; then rustup target add "$target"; fi
fi
if ! have s390x-linux-gnu-gcc || ! have qemu-s390x; then
    apt_install gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user || true
fi
if rustup target list --installed 2>/dev/null | grep -qx "$target" && have s390x-linux-gnu-gcc && have qemu-s390x; then
    # Every test of both crates (not the doctests, which test the API, not
    # the byte order), but the exhaustive 3-byte test (16 million inputs
    # through every API, many minutes under emulation; the kernels' tests
    # of every 1- and 2-byte input, of every length and offset, run), the
    # oracle's brute-force grammar tests (byte-at-a-time code with no word
    # loads, minutes under emulation: the native run has them), and the
    # Corrected UTF-8 transcoder's every-offset tests of 2- and 3-byte text
    # (its ASCII one, with the word loads, runs, on a sample of the code
    # points: UTF8GUARD_TEST_EMULATED), and the dialects' exhaustive loops
    # of 3- and 4-byte inputs, which the scalar kernel checks a byte at a
    # time (its word loads start at 16 bytes).
    started=$SECONDS
    UTF8GUARD_TEST_EMULATED=1 \
    cargo test --profile ci --target "$target" -p utf8guard-dfa -p utf8guard --lib --tests -- \
        --exact --skip all_three_byte_sequences \
        --skip every_string_of_three_and_four_bytes_over_the_range_ends \
        --skip every_string_of_five_and_six_bytes_over_a_small_alphabet \
        --skip every_code_point_at_every_offset_in_hangul \
        --skip every_code_point_at_every_offset_in_cyrillic \
        --skip every_three_byte_input_unicode31 --skip every_three_byte_input_wtf8 \
        --skip every_three_byte_input_cesu8 --skip every_three_byte_input_mutf8 \
        --skip every_three_byte_input_rfc2279 --skip every_three_byte_input_corrected \
        --skip four_byte_inputs_led_by_e0_to_ff
    echo "s390x step: $((SECONDS - started)) s"
    ok
else
    skip "s390x cross tests (need the rustup target $target, gcc-s390x-linux-gnu and qemu-user; UTF8GUARD_INSTALL=1 installs them)"
fi

# -------------------------------------------------------- WebAssembly ----
step "wasm32: the simd128 and scalar kernels under WebAssembly (Node.js WASI)"
target=wasm32-wasip1
if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
    if $install; then rustup target add "$target"; fi
fi
if ! have node; then apt_install nodejs || true; fi
if rustup target list --installed 2>/dev/null | grep -qx "$target" && have node; then
    started=$SECONDS
    # Without rayon (no threads in wasm32-wasip1); the test binaries that
    # need neither threads nor processes nor files. V8 without its
    # background threads: with them, Node 20 crashed (SIGSEGV) when exiting
    # after a test that had grown the module's memory to some 100 MiB, in
    # most runs.
    export CARGO_TARGET_WASM32_WASIP1_RUNNER="node --no-warnings --single-threaded $PWD/scripts/wasi-run.mjs"
    for simd in simd128 scalar; do
        flags=""
        [[ $simd == simd128 ]] && flags="-C target-feature=+simd128"
        echo "wasm32 tests, $simd ($(node --version))"
        RUSTFLAGS="$flags" CARGO_TARGET_DIR="target/wasm-$simd" cargo test --profile ci --target "$target" \
            -p utf8guard-dfa -p utf8guard --no-default-features --features std \
            --lib --test kernels --test dialects --test stream --test batch --test lossy --test override_env \
            --test legacy
        kernels=$(RUSTFLAGS="$flags" CARGO_TARGET_DIR="target/wasm-$simd" cargo run --quiet --profile ci \
            --target "$target" -p utf8guard --no-default-features --features std --example which_kernel)
        echo "dispatched kernel: $kernels"
        expected=$simd
        [[ "$kernels" == "$expected" ]] || { echo "FAIL: wasm32 $simd build dispatched '$kernels'"; exit 1; }
    done
    # The WebAssembly benchmark builds and runs (one short comparison; its
    # answers are checked against std before anything is timed).
    RUSTFLAGS="-C target-feature=+simd128" cargo build --quiet --release --target "$target" \
        --manifest-path benches/portable/Cargo.toml
    node --no-warnings --no-liftoff --single-threaded scripts/wasi-run.mjs \
        benches/portable/target/$target/release/utf8guard-bench-portable.wasm --quick ascii-64KiB
    unset CARGO_TARGET_WASM32_WASIP1_RUNNER
    echo "wasm32 step: $((SECONDS - started)) s"
    ok
else
    skip "wasm32 tests (need the rustup target $target and Node.js; UTF8GUARD_INSTALL=1 installs them)"
fi

# ---------------------------------------------------------------- Miri ----
step "Miri: the scalar kernel, the SIMD kernels and dispatch, undefined-behaviour checks (waiting for the runs started after the formatting step)"
if [[ -n "${miri_job:-}" ]]; then
    status=0
    wait "$miri_job" || status=$?
    cat target/miri.log
    ((status == 0)) || { echo "FAIL: Miri exited $status"; exit 1; }
    ok
else
    skip "Miri (rustup component add miri rust-src --toolchain nightly)"
fi

step_times
echo
echo "test.sh: ${passed} passed, ${failed} failed, ${skipped} skipped"
if ((skipped > 0)); then
    printf '  skipped: %s\n' "${skipped_steps[@]}"
    if $install; then
        echo "a step was skipped although installs were allowed"
        exit 1
    fi
fi
