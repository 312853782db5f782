"""Building and running the benchmarks: the criterion targets `validate` and
`ingest`, the AVX2-level pass, the `paired` passes and the portable
benchmark, each writing its results under $CARGO_TARGET_DIR; and what the
report says of the run itself (commit, load, CPU time taken by the host).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .common import (AVX2_LEVEL_WHEN, LIPSUM, MAIN, MODES, PAIRED_AVX2_FILE, PAIRED_FILE,
                     PAIRED_SCALAR_FILE, PORTABLE, ROOT, SCALAR_GROUP, log, portable_file,
                     target_dir)
from .results import read_notes


def source_version():
    """The commit, and whether the sources built differ from it."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip() or "?"
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "crates", "benches",
                            "Cargo.toml", "Cargo.lock"], cwd=ROOT, capture_output=True,
                           text=True).stdout.strip()
    return commit + (" with uncommitted changes to the sources" if dirty else "")


def cpu_ticks():
    """(steal, total) clock ticks of all CPUs since boot, from /proc/stat."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:9]]
    except (OSError, ValueError):
        return None
    return fields[7], sum(fields)


def steal_share(start, end):
    """The share of CPU time the hypervisor gave to others between two
    cpu_ticks() readings, as a percentage string."""
    if not start or not end or end[1] <= start[1]:
        return None
    return f"{100 * (end[0] - start[0]) / (end[1] - start[1]):.1f}%"


def loadavg():
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def merge_args(mode_args, extra):
    """The mode's criterion options, minus those `extra` sets again (criterion
    refuses an option given twice), then `extra`."""
    merged = []
    for flag, value in zip(mode_args[::2], mode_args[1::2]):
        if flag not in extra:
            merged += [flag, value]
    return merged + extra


def build_benches(env):
    """`cargo bench --no-run`; returns {bench target name: executable}."""
    build = ["cargo", "bench", "-p", "utf8guard-bench", "--no-run",
             "--message-format=json-render-diagnostics"]
    log(f"building: {' '.join(build)}")
    proc = subprocess.run(build, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit("bench-report: the benchmarks did not build")
    executables = {}
    for line in proc.stdout.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        target = msg.get("target") or {}
        if (msg.get("reason") == "compiler-artifact" and "bench" in target.get("kind", [])
                and msg.get("executable")):
            executables[target["name"]] = msg["executable"]
    return executables


def run_benches(mode, crit, notes, logfile, extra):
    """Builds and runs both bench targets; returns their exit statuses and
    run times in seconds (build excluded), by target name."""
    if crit.exists():
        previous = crit.with_name("criterion.previous")
        shutil.rmtree(previous, ignore_errors=True)
        crit.rename(previous)
    crit.mkdir(parents=True)
    notes.unlink(missing_ok=True)
    env = dict(os.environ, CRITERION_HOME=str(crit), UTF8GUARD_BENCH_MODE=mode,
               UTF8GUARD_BENCH_NOTES=str(notes), CARGO_TARGET_DIR=str(target_dir()))
    status, seconds = {}, {}
    with open(logfile, "w") as out:
        # Build once, then run the bench executables themselves: every
        # benchmark times the same build of the sources, and no time goes to
        # the compiler between them.
        executables = build_benches(env)
        for bench in ["validate", "ingest"]:
            if bench not in executables:
                log(f"no `{bench}` bench executable was built")
                status[bench] = -1
                continue
            cmd = [executables[bench], "--bench"] + merge_args(MODES[mode]["args"], extra)
            log(f"running {' '.join(cmd)} (log: {logfile})")
            started = time.monotonic()
            # cargo runs a bench from its package's folder: do the same.
            proc = subprocess.Popen(cmd, cwd=ROOT / "benches", env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
            for line in proc.stdout:
                out.write(line)
                if line.startswith(("bench-report", "utf8guard-bench", "ingest:", "error",
                                    "   Compiling", "    Finished", "thread ")):
                    sys.stderr.write(line)
            status[bench] = proc.wait()
            seconds[bench] = round(time.monotonic() - started)
            log(f"{bench}: exit status {status[bench]} after {seconds[bench]} s")
        avx2_level = bool(AVX2_LEVEL_WHEN & set(read_notes(notes).get("active_kernel", [])))
        if "validate" in executables and avx2_level:
            run_avx2_level(mode, crit, executables["validate"], env, out, status, seconds)
        run_paired(executables.get("paired"), env, out, status, seconds, notes.parent, avx2_level)
        run_portable(mode, out, status, seconds, notes.parent)
    return status, seconds


def run_portable(mode, out, status, seconds, work):
    """The portable benchmark on each target of PORTABLE whose rustup target
    and tools are installed (else a note says why not): WebAssembly under
    Node.js, with and without simd128, and big-endian s390x under qemu (an
    emulator: its times count translated instructions, not a real s390x)."""
    installed = subprocess.run(["rustup", "target", "list", "--installed"], capture_output=True,
                               text=True).stdout.split()
    manifest = ROOT / "benches" / "portable" / "Cargo.toml"
    for name, target, rustflags, runner, tools in PORTABLE:
        key = f"portable-{name}"
        path = work / portable_file(name)
        path.unlink(missing_ok=True)
        missing = [t for t in tools if shutil.which(t) is None]
        if target not in installed:
            missing.append(f"rustup target {target}")
        if missing:
            log(f"{key}: skipped, missing {', '.join(missing)}")
            status[key] = "missing " + ", ".join(missing)
            continue
        # Its own target folder: RUSTFLAGS differ between the passes.
        target_folder = target_dir() / f"portable-{name}"
        env = dict(os.environ, RUSTFLAGS=rustflags, CARGO_TARGET_DIR=str(target_folder),
                   UTF8GUARD_LIPSUM_DIR=str(LIPSUM), WASI_PREOPENS=f"{LIPSUM}:{work}")
        env.pop("UTF8GUARD_KERNEL", None)
        build = subprocess.run(["cargo", "build", "--release", "--target", target,
                                "--manifest-path", str(manifest)], cwd=ROOT, env=env,
                               stdout=out, stderr=subprocess.STDOUT)
        if build.returncode != 0:
            log(f"{key}: the build failed; see the log")
            status[key] = -1
            continue
        exe = target_folder / target / "release" / (
            "utf8guard-bench-portable.wasm" if target.startswith("wasm") else
            "utf8guard-bench-portable")
        cmd = runner + [str(exe), "--out", str(path)] + (["--quick"] if mode == "quick" else [])
        log(f"running {key}: {' '.join(cmd)}")
        started = time.monotonic()
        out.flush()
        proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        status[key] = proc.returncode
        seconds[key] = round(time.monotonic() - started)
        log(f"{key}: exit status {proc.returncode} after {seconds[key]} s")


def run_paired(exe, env, out, status, seconds, work, avx2_level):
    """The `paired` bench target: the goals' comparisons with the contestants
    taking turns (benches/paired.rs). Once as dispatched (without the scalar
    kernel's comparisons); the scalar kernel's comparisons with
    UTF8GUARD_KERNEL=scalar, so that the dispatched entry point runs the
    scalar kernel too, as on a machine without vector kernels; and, on a CPU
    where the AVX2-level pass ran, the lipsum comparisons once more at that
    level. Each writes one JSON line per comparison into the work folder."""
    passes = [("paired", PAIRED_FILE, {}, [f"!{SCALAR_GROUP}/"]),
              ("paired-scalar", PAIRED_SCALAR_FILE, {"UTF8GUARD_KERNEL": "scalar"},
               [f"{SCALAR_GROUP}/"])]
    if avx2_level:
        passes.append(("paired-avx2", PAIRED_AVX2_FILE,
                       {"UTF8GUARD_KERNEL": "avx2", "SIMDUTF_FORCE_IMPLEMENTATION": "haswell"},
                       ["lipsum/", "strings/", "beyond-cache/", "repair/", "transcode/"]))
    for name, file, extra_env, filters in passes:
        path = work / file
        path.unlink(missing_ok=True)
        if exe is None:
            log("no `paired` bench executable was built")
            status[name] = -1
            continue
        cmd = [exe, "--bench", "--out", str(path)] + filters
        log(f"running {' '.join(f'{k}={v}' for k, v in extra_env.items())} {' '.join(cmd)}")
        started = time.monotonic()
        out.flush()
        proc = subprocess.run(cmd, cwd=ROOT / "benches", env=dict(env, **extra_env), stdout=out,
                              stderr=subprocess.STDOUT, text=True)
        status[name] = proc.returncode
        seconds[name] = round(time.monotonic() - started)
        log(f"{name}: exit status {proc.returncode} after {seconds[name]} s")


def run_avx2_level(mode, crit, exe, env, out, status, seconds):
    """On a CPU with AVX-512, the lipsum benchmarks once more with every
    library held to AVX2: utf8guard through UTF8GUARD_KERNEL, simdutf through
    SIMDUTF_FORCE_IMPLEMENTATION (simdutf8 and std have no AVX-512 code;
    ps-simdutf8 has, and no setting to hold it back: there it stays the
    stronger peer).
    Results go to their own criterion folder, beside the main one."""
    home = avx2_dir(crit)
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    env = dict(env, CRITERION_HOME=str(home), UTF8GUARD_KERNEL="avx2",
               SIMDUTF_FORCE_IMPLEMENTATION="haswell",
               UTF8GUARD_BENCH_NOTES=str(home / "notes.txt"))
    names = "|".join(re.escape(n) for n in MAIN)
    cmd = [exe, "--bench"] + MODES[mode]["args"] + [f"^lipsum/({names})/"]
    log(f"running the AVX2-level pass: UTF8GUARD_KERNEL=avx2 "
        f"SIMDUTF_FORCE_IMPLEMENTATION=haswell {' '.join(cmd)}")
    started = time.monotonic()
    out.flush()
    proc = subprocess.run(cmd, cwd=ROOT / "benches", env=env, stdout=out,
                          stderr=subprocess.STDOUT, text=True)
    status["validate-avx2"] = proc.returncode
    seconds["validate-avx2"] = round(time.monotonic() - started)
    log(f"AVX2-level pass: exit status {proc.returncode} after {seconds['validate-avx2']} s")


def avx2_dir(crit):
    return crit.with_name("criterion-avx2")
