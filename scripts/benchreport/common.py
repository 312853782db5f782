"""Shared by every step of the benchmark report: where things are (the
repository, the report, the figure, the lipsum corpora, the work files), the
criterion settings of each mode, the implementations' names and colours, the
bench targets' groups, logging, and the helpers that format figures and
Markdown tables.
"""

import os
import sys
from pathlib import Path


# scripts/benchreport/common.py: three levels below the repository's root.
ROOT = Path(__file__).resolve().parent.parent.parent
DOCS = ROOT / "docs"
REPORT = DOCS / "BENCHMARKS.md"
PLOT = DOCS / "benchmarks.svg"
LIPSUM = ROOT.parent / "shared" / "corpora" / "lipsum"


# Criterion settings per mode, as the benches apply them (benches/lib.rs);
# passed on the command line too so that every bench target uses them.
MODES = {
    "quick": {
        "args": ["--warm-up-time", "0.05", "--measurement-time", "0.2",
                 "--sample-size", "10", "--nresamples", "5000"],
        "describe": "warm-up 50 ms, measurement 200 ms, 10 samples per benchmark; "
                    "sizes 1 B, 8 B, 32 B, 128 B, 1 KiB, 64 KiB, 1 MiB; "
                    "malformed corpora left out",
        "cli_runs": 5,
    },
    "full": {
        "args": ["--warm-up-time", "0.5", "--measurement-time", "2",
                 "--sample-size", "50", "--nresamples", "50000"],
        "describe": "warm-up 0.5 s, measurement 2 s, 50 samples per benchmark; "
                    "every size from 1 B to 64 MiB",
        "cli_runs": 20,
    },
}


# Implementation names, as benches/lib.rs gives them, in table order.
OURS = "utf8guard"
OURS_POS = "utf8guard from_utf8"
# Forced kernels: every `utf8guard <kernel>` the benches report (they run
# each kernel the CPU has); these known ones come first, in this order.
KERNELS = ["utf8guard scalar", "utf8guard sse42", "utf8guard avx2",
           "utf8guard avx2-shuffled", "utf8guard avx512", "utf8guard neon"]
PEERS = ["std", "simdutf8 basic", "simdutf8 compat", "ps-simdutf8 basic", "ps-simdutf8 compat",
         "simdutf", "simdutf with_errors"]
POSITIONAL_PEERS = ["std", "simdutf8 compat", "ps-simdutf8 compat", "simdutf with_errors"]
BASE = "simdutf8 basic"
# Dispatched kernels above AVX2: with one of these, the lipsum benchmarks run
# a second time at the AVX2 level (see run_avx2_level).
AVX2_LEVEL_WHEN = {"avx512"}
MAIN = [OURS, OURS_POS] + PEERS


DESCRIPTIONS = [
    ("utf8guard", "`utf8guard::validate`: the dispatched kernel, yes or no"),
    ("utf8guard from_utf8", "`utf8guard::from_utf8`: the dispatched kernel, errors located as std does"),
    ("utf8guard scalar / sse42 / avx2 / neon", "`Kernel::…::validate`: one kernel forced"),
    ("utf8guard avx2-shuffled", "`utf8guard::__bench::avx2_shuffled`: the AVX2 kernel making the "
     "look-behind bytes with shuffles instead of overlapping loads"),
    ("std", "`core::str::from_utf8`"),
    ("simdutf8 basic", "`simdutf8::basic::from_utf8`: yes or no (the baseline of every ratio)"),
    ("simdutf8 compat", "`simdutf8::compat::from_utf8`: std-compatible errors"),
    ("ps-simdutf8 basic / compat", "the same from the `ps-simdutf8` crate: simdutf8 with its AVX-512 "
     "kernel (merged on simdutf8's master in December 2025, not yet in a simdutf8 release)"),
    ("simdutf", "`simdutf::validate_utf8`: the C++ library through the `simdutf` crate, yes or no"),
    ("simdutf with_errors", "`simdutf::validate_utf8_with_errors`: the C++ library, with the error's position"),
]


# Groups of benches/benches/validate.rs; any other group came from ingest.rs.
VALIDATE_GROUPS = ["lipsum", "corpora", "short-ascii", "short-text", "parser",
                   "ascii", "random", "invalid-1MiB", "corpora-malformed"]
ERROR_POSITIONS = ["valid", "start", "middle", "end", "truncated-end"]


# Groups of the `paired` target (benches/paired.rs) that have sections of their
# own, and strict UTF-8's name among the dialects' contestants.
DIALECT_GROUPS = ("dialects", "dialects-long", "cesu8", "mutf8", "transcode")
STRICT = "utf-8"
TRANSCODE = "transcode"


# The scalar kernel's contestants in the scalar-vs-std pass.
SCALAR = "utf8guard scalar"
SCALAR_POS = "utf8guard scalar from_utf8"
SCALAR_DISPATCHED = "utf8guard (dispatched: scalar)"


COLORS = {
    "utf8guard": "#d62728",
    "utf8guard from_utf8": "#ff7f0e",
    "utf8guard scalar": "#8c564b",
    "utf8guard sse42": "#e377c2",
    "utf8guard avx2": "#bcbd22",
    "utf8guard avx2-shuffled": "#17becf",
    "utf8guard avx512": "#7f7f7f",
    "utf8guard neon": "#aec7e8",
    "std": "#1f77b4",
    "simdutf8 basic": "#2ca02c",
    "simdutf8 compat": "#98df8a",
    "ps-simdutf8 basic": "#d62728",
    "ps-simdutf8 compat": "#ff9896",
    "simdutf": "#9467bd",
    "simdutf with_errors": "#c5b0d5",
}
SPARE_COLORS = ["#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#5254a3"]


def register_kernels(results):
    """Adds the forced kernels found in `results` that KERNELS lacks."""
    for r in results:
        f = r["func"]
        if f.startswith("utf8guard ") and f != OURS_POS and f not in KERNELS:
            KERNELS.append(f)
            COLORS.setdefault(f, SPARE_COLORS[len(KERNELS) % len(SPARE_COLORS)])


# The portable benchmark (benches/portable): utf8guard, std and simdutf8
# built for targets the main benchmarks do not build for. (name, rustup
# target, RUSTFLAGS, how to run the program: a list of arguments, then the
# executable's path; the tools it needs).
PORTABLE = [
    ("wasm32-simd128", "wasm32-wasip1", "-C target-feature=+simd128",
     ["node", "--no-warnings", "--no-liftoff", "--single-threaded",
      str(ROOT / "scripts" / "wasi-run.mjs")], ["node"]),
    ("wasm32", "wasm32-wasip1", "",
     ["node", "--no-warnings", "--no-liftoff", "--single-threaded",
      str(ROOT / "scripts" / "wasi-run.mjs")], ["node"]),
    ("s390x", "s390x-unknown-linux-gnu", "", ["qemu-s390x", "-L", "/usr/s390x-linux-gnu"],
     ["qemu-s390x", "s390x-linux-gnu-gcc"]),
]


def portable_file(name):
    return f"portable-{name}.jsonl"


PAIRED_FILE = "paired.jsonl"
PAIRED_AVX2_FILE = "paired-avx2.jsonl"
PAIRED_SCALAR_FILE = "paired-scalar.jsonl"
SCALAR_GROUP = "scalar-vs-std"


# The command's goal is stated for files of 200 MiB or more.
CLI_FILE_BYTES = 256 << 20


# `--all` on a file in another encoding: an error every few bytes.
CLI_LATIN1_BYTES = 200 << 20
CLI_ALL_J2, CLI_ALL_J1 = "utf8guard --all -j2 LATIN1", "utf8guard --all -j1 LATIN1"


# The command's timings the goals hold it against.
CLI_DD = "dd if=FILE of=/dev/null bs=1M"
CLI_FLOOR = "read-floor FILE (map, fault in and read on as many threads; no check)"


# ---------------------------------------------------------------- running


def log(msg):
    print(f"bench-report: {msg}", file=sys.stderr, flush=True)


def target_dir():
    return Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")


# ---------------------------------------------------------------- formatting


def fmt_gbps(x):
    if x is None:
        return "–"
    if x >= 10:
        return f"{x:.1f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def fmt_ratio(x):
    return "–" if x is None else f"{x:.2f}×"


def fmt_time(ns):
    if ns is None:
        return "–"
    if ns < 1e3:
        return f"{ns:.1f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.2f} µs"
    if ns < 1e9:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e9:.2f} s"


def size_label(n):
    n = int(n)
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


def md_table(header, rows, align=None):
    align = align or ["l"] + ["r"] * (len(header) - 1)
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    for row in rows:
        lines.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(lines)


def join_words(items):
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def ratio(a, b):
    return a / b if a is not None and b else None
