"""Timing the `utf8guard` command: whole runs on a 256 MiB file against
`isutf8`, `iconv`, `dd` and the `read-floor` program, and `--all` on a
Latin-1 file with two jobs against one, the commands taking turns.
"""

import datetime
import os
import shutil
import statistics
import subprocess
import time
from pathlib import Path

from .common import (CLI_ALL_J1, CLI_ALL_J2, CLI_FILE_BYTES, CLI_FLOOR, CLI_LATIN1_BYTES, LIPSUM,
                     MODES, ROOT, log, target_dir)


def make_cli_input(path, size):
    """`size` bytes of valid text: the lipsum files repeated, or generated."""
    chunks = []
    if LIPSUM.is_dir():
        for f in sorted(LIPSUM.glob("*.utf8.txt")):
            chunks.append(f.read_bytes())
    text = b"".join(chunks) or ("Größe, naïve café, Ελληνικά, русский, 日本語, 😀 ".encode() * 4096)
    data = (text * (size // len(text) + 1))[:size]
    while True:  # cut back to a character boundary, then pad with ASCII
        try:
            data.decode("utf-8")
            break
        except UnicodeDecodeError:
            data = data[:-1]
    path.write_bytes(data + b" " * (size - len(data)))


def run_once(cmd, stdin_path=None, ok=(0,)):
    """The wall time of one run of `cmd` in seconds, or an error message
    when its exit status is not one of `ok`."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    started = time.perf_counter()
    proc = subprocess.run(cmd, stdin=stdin, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    if stdin_path:
        stdin.close()
    if proc.returncode not in ok:
        return None, f"`{' '.join(map(str, cmd))}` exited with {proc.returncode}"
    return elapsed, None


def time_commands(commands, runs):
    """Times the commands in turns, as the paired target times functions:
    one warm-up run each, then `runs` rounds of one run of each, in an order
    that rotates from round to round. A command is (label, argv, stdin
    file or None[, the exit statuses that mean success]). Returns {label:
    [seconds per round]} and the error messages of the commands that failed
    (left out)."""
    times, errors = {}, []
    commands = [c if len(c) == 4 else (*c, (0,)) for c in commands]
    for label, cmd, stdin, ok in commands:
        _, err = run_once(cmd, stdin, ok)
        if err:
            errors.append(err)
        else:
            times[label] = []
    live = [c for c in commands if c[0] in times]
    for r in range(runs):
        for k in range(len(live)):
            label, cmd, stdin, ok = live[(r + k) % len(live)]
            if label not in times:
                continue
            elapsed, err = run_once(cmd, stdin, ok)
            if err:
                errors.append(err)
                del times[label]
            else:
                times[label].append(elapsed)
    return times, errors


def build_bin(package, bin_name, what):
    """Builds the binary `bin_name` of `package` with the bench profile (release
    settings, which shares the library's build with the benchmarks; its output
    goes to target/release like --release); returns its path, or None."""
    log(f"building {what}")
    build = subprocess.run(["cargo", "build", "--profile", "bench", "-p", package,
                            "--bin", bin_name],
                           cwd=ROOT, env=dict(os.environ, CARGO_TARGET_DIR=str(target_dir())))
    exe = target_dir() / "release" / bin_name
    return exe if build.returncode == 0 and exe.exists() else None


def build_cli():
    """Builds the utf8guard command; returns its path, or None."""
    return build_bin("utf8guard-cli", "utf8guard", "the utf8guard command")


def build_read_floor():
    """Builds the `read-floor` program of the benchmarks (benches/bin): a
    process that maps a file, faults it in and reads it on as many threads
    as the command uses, checking nothing. Returns its path, or None."""
    return build_bin("utf8guard-bench", "read-floor", "read-floor")


def bench_cli(mode, work, exe):
    """Times the utf8guard command and its peers on a 256 MiB file."""
    result = {"rows": [], "notes": []}
    if exe is None:
        result["notes"].append("the utf8guard command did not build; not timed")
        return result
    size = CLI_FILE_BYTES
    data = work / "cli-256MiB.txt"
    make_cli_input(data, size)
    runs = MODES[mode]["cli_runs"]
    floor = build_read_floor() or "read-floor"
    started = time.monotonic()
    commands = [
        ("utf8guard -q FILE", [exe, "-q", data], None),
        ("utf8guard -q --jobs 1 FILE", [exe, "-q", "--jobs", "1", data], None),
        ("utf8guard -q < FILE (mapped)", [exe, "-q"], data),
        ("cat FILE | utf8guard -q (stream)",
         ["sh", "-c", 'cat "$1" | "$0" -q', exe, data], None),
        # What the pipe alone costs on this machine: the floor of the row
        # above (its pipe widened and its reads sized as the command's).
        ("cat FILE | read-floor - (the pipe alone)",
         ["sh", "-c", 'cat "$1" | "$0" -', floor, data], None),
        # A common reader of the same pipe, left at its default capacity.
        ("cat FILE | wc -c", ["sh", "-c", 'cat "$0" | wc -c', data], None),
        ("isutf8 FILE", ["isutf8", data], None),
        # The command's floor: what it does but the check.
        (CLI_FLOOR, [floor, data], None),
        # Reading the file and nothing else: what the command's time is
        # held against.
        ("dd if=FILE of=/dev/null bs=1M", ["dd", f"if={data}", "of=/dev/null", "bs=1M",
                                           "status=none"], None),
        ("iconv -f UTF-8 -t UTF-8 FILE", ["iconv", "-f", "UTF-8", "-t", "UTF-8", data], None),
    ]
    present = []
    for label, cmd, stdin in commands:
        if shutil.which(str(cmd[0])) is None and not Path(cmd[0]).exists():
            result["notes"].append(f"`{cmd[0]}` is not installed: `{label}` not timed")
        else:
            present.append((label, cmd, stdin))
    log(f"timing {len(present)} commands in turns, {runs} rounds")
    times, errors = time_commands(present, runs)
    result["notes"] += errors
    for label, _, _ in present:
        if label in times:
            t = times[label]
            result["rows"].append((label, statistics.median(t), min(t), size, t))
    result["timed"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    data.unlink(missing_ok=True)
    result["all_rows"] = bench_cli_all(work, exe, runs, result["notes"])
    result["runs"] = runs
    result["seconds"] = round(time.monotonic() - started)
    return result


def make_latin1_input(path, size):
    """`size` bytes of Latin-1 text (German, French and Spanish words):
    every accented letter is an error for UTF-8."""
    words = ["Jos\xe9", "M\xfcller", "Stra\xdfe", "K\xf6ln", "caf\xe9", "na\xefve",
             "Gr\xfc\xdfe", "the", "and", "data", "file", "ol\xe1", "se\xf1or", "a\xe7\xe3o"]
    line = (" ".join(words) + "\n").encode("latin-1")
    path.write_bytes((line * (size // len(line) + 1))[:size])


def bench_cli_all(work, exe, runs, notes):
    """Times `--all` with two jobs against one on a Latin-1 file, in turns:
    the parallel path must not make a report of many errors slower (it
    once forked the pool once per error). The report itself goes to
    /dev/null; the run stops at --all's cap of errors, as a user's would."""
    data = work / "cli-latin1-200MiB.txt"
    make_latin1_input(data, CLI_LATIN1_BYTES)
    commands = [(CLI_ALL_J2, [exe, "--all", "-j2", data], None, (1,)),
                (CLI_ALL_J1, [exe, "--all", "-j1", data], None, (1,))]
    log(f"timing --all on a Latin-1 file with 2 jobs and 1, in turns, {runs} rounds")
    times, errors = time_commands(commands, runs)
    notes += errors
    data.unlink(missing_ok=True)
    return [(label, statistics.median(t), min(t), CLI_LATIN1_BYTES, t)
            for label, _, _, _ in commands if (t := times.get(label))]
