"""The Markdown tables of the report's sections: throughput by input, the
kernels, where utf8guard is slower, the ingestion APIs, the paired
comparisons, the UTF-8 family, transcoding, the scalar kernel and the
portable targets.
"""

from .common import (BASE, DIALECT_GROUPS, KERNELS, MAIN, OURS, OURS_POS, PEERS, PORTABLE,
                     POSITIONAL_PEERS, SCALAR, SCALAR_DISPATCHED, SCALAR_GROUP, SCALAR_POS,
                     STRICT, TRANSCODE, VALIDATE_GROUPS, fmt_gbps, fmt_ratio, fmt_time,
                     join_words, md_table, ratio, size_label)
from .results import (best_peer, dialect_outcomes, p_bytes, p_gbps, p_median, p_ratio, p_tratio,
                      p_worst_peer, transcode_items)


def slower_sentences(table, class_name, label):
    """Plain sentences for each peer faster than utf8guard on some input:
    (clear, within_noise), the first where the confidence intervals of the
    two medians do not overlap."""
    clear_out, noisy_out = [], []
    pairs = [(OURS, PEERS), (OURS_POS, POSITIONAL_PEERS)]
    for ours, peers in pairs:
        if ours not in table.funcs:
            continue
        for peer in table.impls(peers):
            items = {True: [], False: []}
            for v in table.values:
                a, b = table.get(ours, v), table.get(peer, v)
                if not a or not b or a["ns"] <= b["ns"]:
                    continue
                clear = a["lo"] > b["hi"]
                if a["bytes"] and class_name not in ("invalid-1MiB", "corpora-malformed"):
                    what = (f"{label(v)} ({fmt_gbps(a['bytes'] / a['ns'])} vs "
                            f"{fmt_gbps(b['bytes'] / b['ns'])} GB/s, {b['ns'] / a['ns']:.2f}×")
                else:
                    what = (f"{label(v)} ({fmt_time(a['ns'])} vs {fmt_time(b['ns'])}, "
                            f"{b['ns'] / a['ns']:.2f}×")
                items[clear].append(what + ")")
            for clear, out in ((True, clear_out), (False, noisy_out)):
                if items[clear]:
                    out.append(f"- {CLASS_TITLES[class_name]}: `{ours}` is slower than `{peer}` "
                               f"on {join_words(items[clear])}.")
    return clear_out, noisy_out


CLASS_TITLES = {
    "lipsum": "Lipsum corpora",
    "corpora": "Project corpora",
    "short-ascii": "Short ASCII strings",
    "short-text": "Short non-ASCII strings",
    "parser": "Parser workload",
    "ascii": "ASCII by size",
    "random": "Random 1-4-byte text by size",
    "invalid-1MiB": "Invalid 1 MiB input",
    "corpora-malformed": "Malformed corpora",
}


def throughput_table(table, label, extra_ratios=()):
    """Rows = inputs; cells = GB/s (ratio to simdutf8 basic)."""
    impls = table.impls(MAIN)
    header = ["Input"] + [f"`{i}`" for i in impls] + ["Best peer", "utf8guard ÷ best peer"]
    header += [f"utf8guard ÷ {p}" for p in extra_ratios]
    rows = []
    for v in table.values:
        base = table.gbps(BASE, v)
        cells = [label(v)]
        for i in impls:
            g = table.gbps(i, v)
            cell = fmt_gbps(g)
            if g is not None and base and i != BASE:
                cell += f" ({fmt_ratio(g / base)})"
            if i == OURS:
                cell = f"**{cell}**"
            cells.append(cell)
        best = best_peer(table, v)
        ours = table.gbps(OURS, v)
        cells.append(f"{best[0]}: {fmt_gbps(best[1])}" if best else "–")
        cells.append(fmt_ratio(ratio(ours, best[1] if best else None)))
        for p in extra_ratios:
            cells.append(fmt_ratio(ratio(ours, table.gbps(p, v))))
        rows.append(cells)
    return md_table(header, rows)


def kernel_table(table, label):
    impls = table.impls([OURS] + KERNELS)
    if len(impls) <= 1:
        return ""
    header = ["Input"] + [f"`{i}`" for i in impls]
    has_shuffled = "utf8guard avx2-shuffled" in impls and "utf8guard avx2" in impls
    if has_shuffled:
        header.append("shuffled ÷ overlapping loads")
    rows = []
    for v in table.values:
        base = table.gbps(BASE, v)
        cells = [label(v)]
        for i in impls:
            g = table.gbps(i, v)
            cells.append(fmt_gbps(g) + (f" ({fmt_ratio(g / base)})" if g and base else ""))
        if has_shuffled:
            cells.append(fmt_ratio(ratio(table.gbps("utf8guard avx2-shuffled", v),
                                         table.gbps("utf8guard avx2", v))))
        rows.append(cells)
    return md_table(header, rows)


def ingest_section(results):
    groups = []
    for r in results:
        if r["group"] not in VALIDATE_GROUPS and r["group"] not in groups:
            groups.append(r["group"])
    if not groups:
        return None
    out = []
    baselines = ["std", "std-loop", "sequential/validate", "sequential", "one-shot/from_utf8"]
    for g in groups:
        rows = [r for r in results if r["group"] == g]
        out.append(f"#### `{g}`\n")
        has_value = any(r["value"] for r in rows)
        header = ["Benchmark"] + (["Input"] if has_value else []) + ["Time", "Throughput", "Ratio"]
        table = []
        for r in rows:
            same = {x["func"]: x for x in rows if x["value"] == r["value"]}
            base = next((same[b] for b in baselines if b in same), None)
            if r["bytes"]:
                tput = f"{fmt_gbps(r['bytes'] / r['ns'])} GB/s"
            elif r["elements"]:
                tput = f"{r['elements'] / r['ns'] * 1e3:.1f} M/s"
            else:
                tput = "–"
            rel = f"{base['ns'] / r['ns']:.2f}× {base['func']}" if base and base is not r else "–"
            val = r["value"]
            if val.isdigit():
                val = size_label(val)
            table.append([f"`{r['func']}`"] + ([val] if has_value else []) +
                         [fmt_time(r["ns"]), tput, rel])
        out.append(md_table(header, table))
        out.append("")
    return "\n".join(out)


def paired_lipsum_table(pair):
    """The lipsum comparisons of one paired pass as a table, or None."""
    outcomes = [o for o in pair.values() if o["group"] == "lipsum"]
    if not outcomes:
        return None
    names = [n for n in MAIN if any(n in o["times"] for o in outcomes)]
    header = ["Input"] + [f"`{n}`" for n in names] + ["Rounds", "utf8guard ÷ closest peer"]
    rows = []
    for o in outcomes:
        cells = [o["label"]]
        for n in names:
            if n not in o["times"]:
                cells.append("–")
                continue
            cell = fmt_gbps(p_gbps(o, n))
            if n != BASE and BASE in o["times"]:
                cell += f" ({fmt_ratio(p_ratio(o, n, BASE))})"
            cells.append(f"**{cell}**" if n == OURS else cell)
        worst = p_worst_peer(o)
        cells.append(str(o["rounds"]))
        cells.append(f"{fmt_ratio(worst[0])} vs {worst[1]}" if worst else "–")
        rows.append(cells)
    return md_table(header, rows)


def paired_section(pair):
    """Every paired comparison but lipsum, a table each; None if there are none."""
    out = []
    for key, o in pair.items():
        if o["group"] in ("lipsum", SCALAR_GROUP) + DIALECT_GROUPS:
            continue
        first = o["names"][0]
        rows = []
        for n in o["names"]:
            rows.append([f"`{n}`", fmt_time(p_median(o, n)), fmt_gbps(p_gbps(o, n)),
                         fmt_ratio(p_ratio(o, n, first))])
        title = key.rstrip("/")
        out.append(f"#### `{title}` ({o['rounds']} rounds)\n")
        out.append(md_table(["Contestant", "Median", "GB/s", f"× `{first}`"], rows) + "\n")
    return "\n".join(out) if out else None


def transcode_section(paired):
    """The transcoders: one table per kind of comparison (rows: the inputs;
    columns: each contestant's GB/s of input, then utf8guard's speed-up over
    each of the others); None when none ran."""
    kinds = []
    for o in paired.values():
        if o["group"] == TRANSCODE:
            kind = o["label"].partition("/")[0]
            if kind not in kinds:
                kinds.append(kind)
    out = []
    for kind in kinds:
        items = transcode_items(paired, kind)
        names = items[0][1]["names"]
        rows = [[label] + [fmt_gbps(p_gbps(o, n)) for n in names]
                + [fmt_ratio(p_ratio(o, names[0], n)) for n in names[1:]] for label, o in items]
        out.append(f"#### `transcode/{kind}` (GB/s of input; ×: `{names[0]}`'s speed-up)\n")
        out.append(md_table(["Input"] + [f"`{n}`" for n in names]
                            + [f"× `{n}`" for n in names[1:]], rows) + "\n")
    return "\n".join(out) if out else None


def dialect_section(paired, portable=None):
    """The dialects against strict UTF-8, one table per SIMD kernel (rows:
    the lipsum files; columns: each dialect's throughput over strict
    UTF-8's; `simd128` from the portable benchmark under Node.js), the 5-
    and 6-byte text, and the CESU-8 and modified UTF-8 crates; None when
    none of them ran."""
    out = []
    by_kernel = {}
    for kernel, script, o in dialect_outcomes(paired, portable):
        by_kernel.setdefault(kernel, []).append((script, o))
    for kernel, items in by_kernel.items():
        names = [n for n in items[0][1]["names"] if n != STRICT]
        rows = []
        for script, o in items:
            rows.append([script, fmt_gbps(p_bytes(o, STRICT) / p_median(o, STRICT))]
                        + [fmt_ratio(p_tratio(o, n, STRICT)) if n in o["times"] else "–"
                           for n in names])
        out.append(f"#### `{kernel}`: throughput of each dialect over strict UTF-8's\n")
        out.append(md_table(["File", "utf-8 GB/s"] + [f"`{n}`" for n in names], rows) + "\n")
    long = [o for o in paired.values() if o["group"] == "dialects-long"]
    if long:
        rows = []
        for o in long:
            base = o["names"][0]
            rows.append([f"`{o['label']}`", fmt_gbps(p_bytes(o, base) / p_median(o, base))]
                        + [f"{fmt_gbps(p_bytes(o, n) / p_median(o, n))} "
                           f"({fmt_ratio(p_tratio(o, n, base))})" for n in o["names"][1:]])
        out.append("#### Text with 5- and 6-byte sequences (throughput; ratio to strict UTF-8 "
                   "on the same text without them)\n")
        out.append(md_table(["Kernel", "utf-8 GB/s"] + [f"`{n}`" for n in long[0]["names"][1:]],
                            rows) + "\n")
    for group, title in (("cesu8", "CESU-8"), ("mutf8", "Modified UTF-8")):
        items = [o for o in paired.values() if o["group"] == group]
        if not items:
            continue
        names = items[0]["names"]
        rows = [[o["label"]] + [fmt_gbps(p_gbps(o, n)) for n in names]
                + [fmt_ratio(p_ratio(o, names[0], n)) for n in names[1:]] for o in items]
        out.append(f"#### {title}: `utf8guard` against the crates (GB/s; ×: utf8guard's "
                   "speed-up)\n")
        out.append(md_table(["File"] + [f"`{n}`" for n in names]
                            + [f"× `{n}`" for n in names[1:]], rows) + "\n")
    return "\n".join(out) if out else None


def scalar_section(scalar):
    """The scalar kernel against std, one row per input; None if it did not run."""
    if not scalar:
        return None
    names = [n for n in (SCALAR, SCALAR_POS, SCALAR_DISPATCHED)
             if any(n in o["times"] for o in scalar.values())]
    read = any("read only" in o["times"] for o in scalar.values())
    header = (["Input", "std GB/s", "scalar GB/s"] + [f"`{n}` × std" for n in names]
              + (["read only GB/s"] if read else []) + ["Rounds"])
    rows = []
    for o in scalar.values():
        if "std" not in o["times"] or SCALAR not in o["times"]:
            continue
        cells = [f"`{o['label']}`", fmt_gbps(p_gbps(o, "std")), fmt_gbps(p_gbps(o, SCALAR))]
        for n in names:
            cells.append(fmt_ratio(p_ratio(o, n, "std")) if n in o["times"] else "–")
        if read:
            cells.append(fmt_gbps(p_gbps(o, "read only")) if "read only" in o["times"] else "–")
        cells.append(str(o["rounds"]))
        rows.append(cells)
    return md_table(header, rows)


PORTABLE_DESCRIPTIONS = {
    "wasm32-simd128": "WebAssembly with `simd128` (utf8guard's `simd128` kernel, simdutf8's "
                      "`simd128` implementation), under Node.js",
    "wasm32": "WebAssembly without SIMD (utf8guard's scalar kernel, simdutf8's scalar "
              "fallback), under Node.js",
    "s390x": "big-endian s390x under qemu-s390x (utf8guard's scalar kernel). An emulator: "
             "the times say how many instructions each contestant runs once translated, "
             "not how fast a real s390x is",
}


def portable_section(portable, status):
    """The portable benchmark's passes, a table each; None if none ran."""
    out = []
    for name, *_ in PORTABLE:
        o_all = portable.get(name) or {}
        why = status.get(f"portable-{name}")
        if not o_all:
            if why not in (None, 0):
                out.append(f"- `{name}`: not run ({why}).\n")
            continue
        out.append(f"#### `{name}`: {PORTABLE_DESCRIPTIONS.get(name, name)}\n")
        header = ["Input", "std GB/s", "simdutf8 basic GB/s", "utf8guard GB/s", "× std",
                  "× simdutf8 basic", "`utf8guard scalar` × std", "Rounds"]
        rows = []
        for o in o_all.values():
            t = o["times"]
            if not all(n in t for n in ("std", "simdutf8 basic", OURS)):
                continue
            rows.append([f"`{o['label']}`", fmt_gbps(p_gbps(o, "std")),
                         fmt_gbps(p_gbps(o, "simdutf8 basic")), fmt_gbps(p_gbps(o, OURS)),
                         fmt_ratio(p_ratio(o, OURS, "std")),
                         fmt_ratio(p_ratio(o, OURS, "simdutf8 basic")),
                         fmt_ratio(p_ratio(o, SCALAR, "std")) if SCALAR in t else "–",
                         str(o["rounds"])])
        out.append(md_table(header, rows) + "\n")
    return "\n".join(out) if out else None
