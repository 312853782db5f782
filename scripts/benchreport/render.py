"""The report: docs/BENCHMARKS.md put together from the machine's description,
the goals and the sections, and the figure written beside it.
"""

import os
import platform
import re
import subprocess
from pathlib import Path

from .common import (BASE, CLI_LATIN1_BYTES, DESCRIPTIONS, DOCS, ERROR_POSITIONS, KERNELS, MAIN,
                     MODES, OURS, OURS_POS, PEERS, PLOT, REPORT, ROOT, VALIDATE_GROUPS, fmt_gbps,
                     fmt_ratio, fmt_time, md_table, size_label)
from .results import Table
from .goals import goals
from .sections import (dialect_section, ingest_section, kernel_table, paired_lipsum_table,
                       paired_section, portable_section, scalar_section, slower_sentences,
                       throughput_table, transcode_section)
from .svg import svg_plot


def machine(notes, mode, state):
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"^model name\s*:\s*(.*)$", cpuinfo, re.M)
    flags = re.search(r"^(?:flags|Features)\s*:\s*(.*)$", cpuinfo, re.M)
    flags = flags.group(1).split() if flags else []
    simd = [f for f in flags if re.match(r"(sse|ssse|avx|bmi|popcnt|lzcnt|asimd|neon|sve)", f)]
    rustc = subprocess.run(["rustc", "-V"], capture_output=True, text=True).stdout.strip()
    lock = (ROOT / "Cargo.lock").read_text() if (ROOT / "Cargo.lock").exists() else ""

    def version(name):
        m = re.search(r'name = "' + re.escape(name) + r'"\nversion = "([^"]+)"', lock)
        return m.group(1) if m else "?"

    simdutf_cpp = "?"
    for h in Path.home().glob(f".cargo/registry/src/*/simdutf-{version('simdutf')}/cpp/simdutf.h"):
        m = re.search(r'#define SIMDUTF_VERSION "([^"]+)"', h.read_text(errors="replace"))
        simdutf_cpp = m.group(1) if m else "?"
    kernel = (notes.get("active_kernel") or ["?"])[0]
    avail = (notes.get("available_kernels") or ["?"])[0]
    rows = [
        ["CPU", model.group(1) if model else platform.processor() or "?"],
        ["SIMD flags", " ".join(simd) or "?"],
        ["Logical CPUs", str(os.cpu_count())],
        ["System", f"{platform.system()} {platform.release()} {platform.machine()}"],
        ["Load average (1 min) at start / end", f"{state['load_start']} / {state['load_end']}"],
        ["CPU time taken by the host (steal) during the run",
         state.get("steal") or "not recorded"],
        ["rustc", rustc],
        ["Build", "`cargo bench` profile (release: codegen-units 1, thin LTO), no `target-cpu` "
                  "flags: every library picks its kernel at run time"],
        ["utf8guard", f"commit {state.get('commit', '?')}; dispatches to **{kernel}** (available: {avail})"],
        ["Peers", f"simdutf8 {version('simdutf8')}, simdutf crate {version('simdutf')} "
                  f"(C++ simdutf {simdutf_cpp}), std of {rustc.split(' (')[0]}"],
        ["criterion", f"{version('criterion')}; {MODES[mode]['describe']}"],
        ["Date", state["started"]],
        ["Measuring time", f"{sum(state['seconds'].values())} s, builds excluded ("
         + ", ".join(f"{k} {v} s" for k, v in state["seconds"].items()) + ")"],
    ]
    out = md_table(["", ""], rows, ["l", "l"])
    out += ("\n\n<details><summary>All CPU flags</summary>\n\n" + " ".join(flags) +
            "\n\n</details>")
    return out


def write_report(mode, results, notes, state, command, avx2=None, paired=None,
                 paired_avx2=None, scalar=None, portable=None):
    paired, paired_avx2 = paired or {}, paired_avx2 or {}
    status, cli = state["status"], state["cli"]
    tables = {g: Table(results, g) for g in VALIDATE_GROUPS}
    plain = lambda v: v  # noqa: E731
    sizes = lambda v: size_label(v)  # noqa: E731
    short = lambda v: f"{v} B"  # noqa: E731
    labels = {"lipsum": plain, "corpora": plain, "short-ascii": short, "short-text": short,
              "parser": lambda v: "10 000 strings of 8-64 B", "ascii": sizes, "random": sizes,
              "invalid-1MiB": plain, "corpora-malformed": plain}
    L = []
    L.append("# Benchmarks\n")
    L.append(f"Written by `{command}`; do not edit by hand: run the script again.\n")
    if mode == "quick":
        L.append("> **Quick mode.** These figures come from the quick mode (short measurements, "
                 "fewer sizes), so they are noisier than a full run: read small differences as "
                 "indications, not as settled results (the load of the machine during the run "
                 "is under Machine). `scripts/bench-report` (full mode) on a quiet machine gives "
                 "the figures to quote.\n")
    L.append("## Reproduce\n")
    L.append("```sh\nscripts/bench-report           # full mode: every size, longer measurements\n"
             "scripts/bench-report --quick   # under 5 minutes once built\n```\n")
    L.append("It runs `cargo bench -p utf8guard-bench`: the criterion targets `validate` and "
             "`ingest`, then the `paired` target (the goals' comparisons, timed in turns); "
             "times the `utf8guard` command; reads the results (criterion's JSON files under "
             "`$CARGO_TARGET_DIR/criterion`, the paired target's under "
             "`$CARGO_TARGET_DIR/bench-report`) and writes this file and "
             "[`benchmarks.svg`](benchmarks.svg). The first build compiles the simdutf C++ "
             "library, which takes a few minutes.\n")
    L.append("## Machine\n")
    L.append(machine(notes, mode, state) + "\n")
    L.append("## Method\n")
    L.append("Every implementation runs on the same bytes in the same process, one after the "
             "other. Each figure is criterion's median time per iteration; throughput is input "
             "bytes divided by that time, in GB/s (10^9 bytes per second). Ratios in parentheses "
             "are to `simdutf8 basic` on the same input (above 1× is faster). \"Best peer\" is "
             "the fastest of std, simdutf8 and simdutf on that input. A slowdown is called "
             "\"within noise\" when the 95% confidence intervals of the two medians overlap. "
             "Before an implementation is timed on an input, its answer is checked against "
             "std's (validity, and `valid_up_to`/`error_len` where it reports them).\n")
    L.append("**Paired timing.** This machine is a virtual machine on a shared host, and its "
             "speed changes from one second to the next: the host takes CPU time from it "
             "(steal, in the Machine table) and other tenants compete for the same cores and "
             "caches. Criterion times one benchmark after another, each in its own window of "
             "a few seconds, so two implementations it compares may have run at different "
             "speeds of the machine. The `paired` target (benches/paired.rs) times the "
             "comparisons the goals are about with the contestants taking turns: each round "
             "runs every contestant for about a millisecond, in an order that rotates from "
             "round to round, for a few seconds in all. Its ratios are medians over rounds of "
             "the ratio of two contestants' times *in the same round*, and its GB/s figures "
             "come from each contestant's median time. The goals are judged on the paired "
             "figures; criterion's figures are shown beside them, and the rest of the report "
             "is criterion's.\n")
    L.append(md_table(["Implementation", "What is called"],
                      [[f"`{n}`", d] for n, d in DESCRIPTIONS], ["l", "l"]) + "\n")

    L.append("## Goals\n")
    L.append(goals(tables, notes, avx2, results, cli, paired, paired_avx2, scalar, portable)
             + "\n")

    if tables["lipsum"] or avx2 or paired_avx2 or paired:
        L.append("## Headline: lipsum corpora, in cache\n")
        L.append("Each file (64-105 KB, one script each) validated whole, again and again: it "
                 "stays in the L2 cache. GB/s, and in parentheses the ratio to `simdutf8 basic`.\n")
    for pair, title, intro in (
            (paired_avx2, "AVX2 level, paired",
             "Every library held to AVX2, as in the criterion table below, with the "
             "implementations taking turns on each file. The ratios in parentheses and in the "
             "last column are paired (medians of per-round ratios), so they can differ from "
             "the quotient of two GB/s figures, which come from each contestant's own median "
             "time; the last column is utf8guard against the peer that fares best against "
             "it."),
            (paired, f"Dispatched ({(notes.get('active_kernel') or ['?'])[0]}), paired",
             "Each library picks its own kernel; the implementations take turns on each "
             "file.")):
        t = paired_lipsum_table(pair)
        if t:
            L.append(f"### {title}\n")
            L.append(intro + "\n")
            L.append(t + "\n")
    if avx2:
        L.append("### AVX2 level, criterion\n")
        L.append("This CPU has AVX-512, which utf8guard and simdutf both use when left to choose. "
                 "For these figures the lipsum benchmarks ran a second time with every library "
                 "held to AVX2: utf8guard through `UTF8GUARD_KERNEL=avx2`, simdutf through "
                 "`SIMDUTF_FORCE_IMPLEMENTATION=haswell` (its AVX2 kernel); simdutf8 and std "
                 "have no AVX-512 code. Same build, same settings, a separate process.\n")
        L.append(throughput_table(avx2, plain) + "\n")
    if tables["lipsum"]:
        if avx2:
            L.append(f"### Dispatched ({(notes.get('active_kernel') or ['?'])[0]}), criterion\n")
            L.append("Each library picks its own kernel for this CPU.\n")
        L.append(throughput_table(tables["lipsum"], plain) + "\n")

    clear, noisy = [], []
    for g in VALIDATE_GROUPS:
        if tables[g]:
            c, n = slower_sentences(tables[g], g, labels[g])
            clear += c
            noisy += n
    L.append("## Where utf8guard is slower\n")
    if clear or noisy:
        L.append("Each line is a place where a peer beats utf8guard in this run: the next "
                 "performance work. `utf8guard` (yes/no) is compared with every peer, "
                 "`utf8guard from_utf8` with the peers that locate errors (std, simdutf8 compat, "
                 "simdutf with_errors). Figures: utf8guard's, then the peer's, then utf8guard's "
                 "speed as a multiple of the peer's.\n")
        L.append("### Slower, beyond the noise of this run\n")
        L += clear or ["Nowhere."]
        L.append("")
        L.append("### Slower, but within the noise of this run\n")
        L.append("The 95% confidence intervals of the two medians overlap: a rerun may "
                 "reverse these.\n")
        L += noisy or ["Nowhere."]
        L.append("")
    else:
        L.append("Nowhere in this run: on every input, `utf8guard` is at least as fast as every "
                 "peer and `utf8guard from_utf8` at least as fast as every error-locating peer.\n")

    L.append("## Results by input class\n")
    sections = [
        ("lipsum", "Lipsum corpora: the kernels",
         "Every kernel forced, on the same files (GB/s, ratio to `simdutf8 basic`); the last "
         "column compares the two ways the AVX2 kernel makes its look-behind bytes.", "kernels"),
        ("corpora", "Project corpora (`corpora/synthetic`)",
         "The generated 64 KiB texts, one script each.", "both"),
        ("short-ascii", "Short ASCII strings",
         "4096 different all-ASCII strings of each length, cut from the lipsum corpora at "
         "character boundaries, validated one after the other (the batch is the iteration; "
         "throughput counts the strings' bytes). In their buffer each string follows 0-7 "
         "bytes of filler, as delimiters separate strings in a parser's input, so that the "
         "strings start at every offset of a cache line.", "short"),
        ("short-text", "Short non-ASCII strings",
         "As above, each string holding at least one non-ASCII character.", "short"),
        ("parser", "A parser's workload",
         "10 000 strings of 8 to 64 bytes (uniform), half all-ASCII and half not, cut from the "
         "lipsum corpora, validated one after the other.", "short"),
        ("ascii", "Pure ASCII, by size", "Printable ASCII text of each size.", "both"),
        ("random", "Random 1-4-byte text, by size",
         "Characters of 1, 2, 3 and 4 bytes in equal numbers, in random order.", "both"),
    ]
    for g, title, intro, kind in sections:
        t = tables[g]
        if not t:
            continue
        L.append(f"### {title}\n")
        L.append(intro + "\n")
        if kind in ("both", "short"):
            L.append(throughput_table(t, labels[g], ("std",) if kind == "short" else ()) + "\n")
        if kind in ("both", "kernels"):
            k = kernel_table(t, labels[g])
            if k:
                if kind == "both":
                    L.append("The kernels, forced:\n")
                L.append(k + "\n")
        if g == "random" and (tables["ascii"] or tables["random"]):
            L.append("![Throughput against input size](benchmarks.svg)\n")
    inv = tables["invalid-1MiB"]
    if inv:
        L.append("### Invalid input, 1 MiB: time to the answer\n")
        L.append("1 MiB of random 1-4-byte text, valid, or with its first error (a byte 0xFF) "
                 "as the first byte, at the middle, as the last byte, or with the text ending "
                 "inside a 4-byte character. Median time per call; the last columns divide the "
                 "time for an error at the end by the time for the valid input.\n")
        header = ["Implementation"] + ERROR_POSITIONS + ["end ÷ valid", "truncated-end ÷ valid"]
        rows = []
        for i in inv.impls([OURS, OURS_POS] + KERNELS + PEERS):
            cells = [f"`{i}`"]
            for p in ERROR_POSITIONS:
                r = inv.get(i, p)
                cells.append(fmt_time(r["ns"]) if r else "–")
            valid = inv.get(i, "valid")
            for p in ("end", "truncated-end"):
                r = inv.get(i, p)
                cells.append(fmt_ratio(r["ns"] / valid["ns"]) if r and valid else "–")
            rows.append(cells)
        L.append(md_table(header, rows) + "\n")
    mal = tables["corpora-malformed"]
    if mal:
        L.append("### Malformed corpora (`corpora/malformed`): time to the answer\n")
        L.append("About 4 KiB each, with one class of error. Median time per call.\n")
        header = ["File"] + [f"`{i}`" for i in mal.impls(MAIN)]
        rows = [[v] + [fmt_time(mal.get(i, v)["ns"]) if mal.get(i, v) else "–"
                       for i in mal.impls(MAIN)] for v in mal.values]
        L.append(md_table(header, rows) + "\n")

    L.append("## Ingestion APIs (`benches/benches/ingest.rs`)\n")
    ingest = ingest_section(results)
    if status.get("ingest", 0) != 0:
        L.append(f"The `ingest` benchmarks failed (exit status {status['ingest']}); see the log. "
                 "Results below, if any, are those written before the failure.\n")
    if ingest:
        L.append("Streaming, parallel, batch and lossy APIs against their sequential and std "
                 "counterparts. The ratio is to the row named (std, or the sequential call) on "
                 "the same input; above 1× is faster.\n")
        L.append(ingest)
    else:
        L.append("No results: the `ingest` target produced none in this run.\n")

    section = paired_section(paired)
    if section:
        L.append("## Paired comparisons\n")
        L.append("The goals' other comparisons, timed in turns (see Method). Median time per "
                 "call over the rounds; the ratio is the median over rounds of the first "
                 "row's time divided by the row's (above 1× is faster than the first row).\n")
        L.append(section)

    section = dialect_section(paired, portable)
    if section:
        L.append("## The UTF-8 family\n")
        L.append("Each dialect on each SIMD kernel, against strict UTF-8 on the same kernel, "
                 "timed in turns (`paired`, groups `dialects`, `dialects-long`, `cesu8`, "
                 "`mutf8`; `simd128`: the portable benchmark's `dialects/<file>` built for "
                 "WebAssembly with `simd128`, under Node.js). The lipsum files are re-encoded "
                 "into each dialect (supplementary "
                 "characters become 6-byte surrogate pairs in CESU-8 and modified UTF-8, "
                 "Corrected UTF-8 applies its offsets), so the inputs differ in length: the "
                 "ratios are of throughputs (bytes of each contestant's own input per "
                 "second), medians over rounds.\n")
        L.append(section)

    section = transcode_section(paired)
    if section:
        L.append("## Transcoding\n")
        L.append("The transcoders, timed in turns (`paired`, group `transcode`): text that needs "
                 "no change against `validate` and a copy into a buffer; CESU-8 against the "
                 "crates (which take the text as a `str`, already valid, and return a new "
                 "string; utf8guard's `transcode` returns a new vector too); WTF-8 and UTF-16 "
                 "against std (`str::encode_utf16` from a `str`, `String::from_utf16`); "
                 "Corrected UTF-8 beside the reference conversion (the scalar decoder and "
                 "encoder, one code point at a time); text that changes every n bytes (the "
                 "Latin lipsum with an emoji or an `é` every n bytes: `emoji-every-<n>`, "
                 "`sparse/<pair>/every-<n>`) against the crates, or against the source "
                 "dialect's check and a copy. Throughputs are in bytes of each "
                 "comparison's input (UTF-8 bytes for UTF-16), medians over rounds.\n")
        L.append(section)

    section = scalar_section(scalar)
    if section:
        L.append("## The scalar kernel against std\n")
        L.append("The portable kernel, what every target without a vector kernel runs "
                 "(RISC-V, POWER, s390x, 32-bit ARM, WebAssembly without SIMD, `no_std` "
                 "builds), forced on this machine, against `core::str::from_utf8`, timed in "
                 "turns (`paired` with `UTF8GUARD_KERNEL=scalar`, so that "
                 "`utf8guard::validate` dispatches to it as well). Files are validated whole, "
                 "strings (4096 per size, cut from the lipsum files at character "
                 "boundaries, repeated where there are fewer different ones, 0-7 bytes "
                 "apart) one by one; beside strings of 32 bytes or more, `read only`, the "
                 "loop that only reads them (32-byte loads, as in the strings section): for "
                 "the longest, 4096 strings of 1 KiB, which do not fit in this machine's L2 "
                 "cache, the ceiling memory puts on any validator. "
                 "The ratios are medians of per-round ratios; above 1× is faster than std.\n")
        L.append(section + "\n")

    section = portable_section(portable or {}, status)
    if section:
        L.append("## WebAssembly and a big-endian target\n")
        L.append("The portable benchmark (`benches/portable`, built for each target with "
                 "utf8guard, std and simdutf8 compiled the same way), timed in turns like "
                 "`paired`. The ratios are utf8guard's (`utf8guard::validate`, the kernel "
                 "it dispatches to on that target) to std and to simdutf8 basic, medians of "
                 "per-round ratios, and the scalar kernel's to std.\n")
        L.append(section)

    columns = DOCS / "BENCHMARKS-columns.md"
    if columns.exists():
        # The Arrow and DataFusion benchmarks have their own script
        # (scripts/bench-columns) and build; their last report, as it is.
        body = columns.read_text().split("\n", 1)[1].replace("\n## ", "\n### ")
        L.append("## Arrow columns and DataFusion functions (`scripts/bench-columns`)\n")
        L.append(body.strip() + "\n")

    L.append("## The `utf8guard` command\n")
    if cli is None:
        L.append("Not timed in this run (`--skip-cli`).\n")
    else:
        if cli["rows"]:
            turns = any(len(r) > 4 for r in cli["rows"])
            L.append(f"Wall time of the whole process (start-up included) on a 256 MiB valid file "
                     f"(the lipsum files repeated), in the page cache: median and fastest of "
                     f"{cli['runs']} runs after one warm-up run"
                     + (", the commands taking turns (one run of each per round, in an order "
                        "that rotates)" if turns else "")
                     + ". Timed with Python's clock, not criterion"
                     + (f", at {cli['timed']}" if cli.get("timed") else "")
                     + ". The last column divides medians; the goal's figure (Goals) is the "
                       "median of per-round ratios.\n")
            base = next((r for r in cli["rows"] if r[0].startswith("isutf8")), None)
            rows = []
            for label, med, best, size, *_ in cli["rows"]:
                label = label.replace("|", "\\|")  # a pipe inside a table cell
                rows.append([f"`{label}`", fmt_time(med * 1e9), fmt_time(best * 1e9),
                             fmt_gbps(size / med / 1e9),
                             fmt_ratio(base[1] / med) if base else "–"])
            L.append(md_table(["Command", "Median", "Fastest", "GB/s (median)",
                               "Speed vs isutf8"], rows) + "\n")
        if cli.get("all_rows"):
            L.append(f"`--all` on a {CLI_LATIN1_BYTES >> 20} MiB Latin-1 file (an error every "
                     "few bytes; the run stops at --all's cap of 1,000,000 errors, and the "
                     "report goes to /dev/null), with two jobs and with one, in turns as "
                     "above:\n")
            rows = [[f"`{label}`", fmt_time(med * 1e9), fmt_time(best * 1e9)]
                    for label, med, best, *_ in cli["all_rows"]]
            L.append(md_table(["Command", "Median", "Fastest"], rows) + "\n")
        for n in cli["notes"]:
            L.append(f"- {n}")
        L.append("")

    skipped = notes.get("skipped", [])
    if skipped:
        L.append("## Left out of this run\n")
        L += [f"- {s}" for s in skipped]
        L.append("")

    L.append("## All results\n")
    L.append("<details><summary>Every benchmark of this run (median time, throughput, ratio to "
             "simdutf8 basic on the same input)</summary>\n")
    rows = []
    for r in sorted(results, key=lambda r: r["order"]):
        base = next((x for x in results if x["group"] == r["group"] and x["value"] == r["value"]
                     and x["func"] == BASE), None)
        tput = fmt_gbps(r["bytes"] / r["ns"]) + " GB/s" if r["bytes"] else (
            f"{r['elements'] / r['ns'] * 1e3:.1f} M/s" if r["elements"] else "–")
        rows.append([f"`{r['id']}`", fmt_time(r["ns"]),
                     f"{fmt_time(r['lo'])} – {fmt_time(r['hi'])}", tput,
                     fmt_ratio(base["ns"] / r["ns"]) if base else "–"])
    L.append(md_table(["Benchmark", "Median", "95% interval", "Throughput", "÷ simdutf8 basic"],
                      rows))
    L.append("\n</details>\n")
    DOCS.mkdir(exist_ok=True)
    REPORT.write_text("\n".join(L))
    plot = svg_plot(tables, mode)
    if plot:
        PLOT.write_text(plot)
    return tables
