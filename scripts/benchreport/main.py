"""The command line of scripts/bench-report: reads the options, then runs the
steps in order (run the benchmarks and time the command, or take the last
run's results; read them back; write the report, the figure and the README's
headline). `doc` is the script's docstring, whose first line describes it.
"""

import argparse
import datetime
import json
import sys

from .common import (PAIRED_AVX2_FILE, PAIRED_FILE, PAIRED_SCALAR_FILE, PLOT, PORTABLE, REPORT,
                     ROOT, VALIDATE_GROUPS, log, portable_file, register_kernels, target_dir)
from .results import Table, read_notes, read_paired, read_results
from .collect import avx2_dir, cpu_ticks, loadavg, run_benches, source_version, steal_share
from .command import bench_cli, build_cli
from .sections import throughput_table
from .render import write_report
from .readme import readme_headline, update_readme


def main(doc):
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="quick mode (under 5 minutes once built)")
    ap.add_argument("--full", action="store_true", help="full mode (the default)")
    ap.add_argument("--report-only", action="store_true",
                    help="do not run anything: rewrite the report from the last run's results")
    ap.add_argument("--skip-cli", action="store_true", help="do not time the utf8guard command")
    ap.add_argument("--cli-only", action="store_true",
                    help="time the utf8guard command again, keep the last run's benchmarks")
    ap.add_argument("criterion_args", nargs="*",
                    help="after `--`: more arguments for the bench binaries (e.g. a filter)")
    args = ap.parse_args()
    if args.quick and args.full:
        ap.error("--quick and --full exclude each other")
    mode = "quick" if args.quick else "full"
    crit = target_dir() / "criterion"
    work = target_dir() / "bench-report"
    work.mkdir(parents=True, exist_ok=True)
    notes_path = work / "notes.txt"
    state_path = work / "state.json"
    command = "scripts/bench-report" + (" --quick" if mode == "quick" else "")

    if args.report_only or args.cli_only:
        if not state_path.exists():
            sys.exit("bench-report: no previous run found; run without --report-only first")
        state = json.loads(state_path.read_text())
        if state["mode"] != mode:
            sys.exit(f"bench-report: the last run was in {state['mode']} mode")
        if args.cli_only:
            cli = bench_cli(mode, work, build_cli())
            state["cli"] = cli
            if "seconds" in cli:
                state["seconds"]["command"] = cli["seconds"]
            state_path.write_text(json.dumps(state, indent=1))
    else:
        started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        load_start = loadavg()
        ticks_start = cpu_ticks()
        commit = source_version()
        exe = None if args.skip_cli else build_cli()
        status, seconds = run_benches(mode, crit, notes_path, work / "bench.log",
                                      args.criterion_args)
        if status["validate"] != 0:
            sys.exit(f"bench-report: the validate benchmarks failed; see {work / 'bench.log'}")
        cli = None if args.skip_cli else bench_cli(mode, work, exe)
        if cli and "seconds" in cli:
            seconds["command"] = cli["seconds"]
        state = {"mode": mode, "status": status, "cli": cli, "load_start": load_start,
                 "commit": commit,
                 "load_end": loadavg(), "started": started, "seconds": seconds,
                 "steal": steal_share(ticks_start, cpu_ticks())}
        state_path.write_text(json.dumps(state, indent=1))
        log(f"measured for {sum(seconds.values())} s (builds excluded): "
            + ", ".join(f"{k} {v} s" for k, v in seconds.items()))

    results = read_results(crit)
    if not results:
        sys.exit(f"bench-report: no criterion results under {crit}")
    register_kernels([r for r in results if r["group"] in VALIDATE_GROUPS])
    notes = read_notes(notes_path)
    avx2 = None
    if state["status"].get("validate-avx2") == 0:
        avx2 = Table(read_results(avx2_dir(crit)), "lipsum") or None
    paired = read_paired(work / PAIRED_FILE) if state["status"].get("paired") == 0 else {}
    paired_avx2 = (read_paired(work / PAIRED_AVX2_FILE)
                   if state["status"].get("paired-avx2") == 0 else {})
    scalar = (read_paired(work / PAIRED_SCALAR_FILE)
              if state["status"].get("paired-scalar") == 0 else {})
    portable = {name: read_paired(work / portable_file(name)) for name, *_ in PORTABLE
                if state["status"].get(f"portable-{name}") == 0}
    tables = write_report(mode, results, notes, state, command, avx2, paired, paired_avx2,
                          scalar, portable)
    headline = readme_headline(tables, avx2, notes, mode, state, paired, paired_avx2)
    if headline and not update_readme(headline):
        log("README.md has no headline markers: its table was not updated")
    if avx2:
        print(throughput_table(avx2, lambda v: v))
    if tables["lipsum"]:
        print(throughput_table(tables["lipsum"], lambda v: v))
    log(f"wrote {REPORT.relative_to(ROOT)} and {PLOT.relative_to(ROOT)} "
        f"from {len(results)} results")
