"""The README's headline: the lipsum table between its `bench-report: headline`
markers, rewritten from the run's figures.
"""

import re
from pathlib import Path

from .common import OURS, ROOT, fmt_gbps, fmt_ratio, md_table, ratio
from .results import best_peer, p_gbps, p_worst_peer


def headline_rows_paired(pair):
    """Per non-ASCII lipsum file of a paired pass: utf8guard's GB/s, the peer it
    beats by the least (with that peer's GB/s) and the paired ratio."""
    rows = []
    for o in pair.values():
        if o["group"] != "lipsum" or o["label"] == "Latin":
            continue
        worst = p_worst_peer(o)
        if worst is None:
            continue
        rows.append((o["label"], p_gbps(o, OURS), (worst[1], p_gbps(o, worst[1])), worst[0]))
    return rows


def headline_rows(table):
    """Per non-ASCII lipsum file: utf8guard's GB/s, the best peer and the ratio."""
    rows = []
    for v in table.values:
        if v == "Latin":
            continue
        best = best_peer(table, v)
        ours = table.gbps(OURS, v)
        rows.append((v, ours, best, ratio(ours, best[1] if best else None)))
    return rows


def readme_headline(tables, avx2, notes, mode, state, paired=None, paired_avx2=None):
    """The Markdown the README shows between its headline markers: the paired
    figures where the run has them, criterion's otherwise."""
    kernel = (notes.get("active_kernel") or ["?"])[0]
    parts = []
    columns = []
    avx2_rows = headline_rows_paired(paired_avx2 or {}) or (headline_rows(avx2) if avx2 else [])
    lip_rows = (headline_rows_paired(paired or {})
                or (headline_rows(tables["lipsum"]) if tables["lipsum"] else []))
    is_paired = bool(paired_avx2 or paired)
    if avx2_rows:
        columns.append(("AVX2 level", avx2_rows))
    if lip_rows:
        columns.append((f"{kernel}, dispatched", lip_rows))
    if not columns:
        return None
    header = ["Lipsum file"]
    for name, _ in columns:
        header += [f"utf8guard ({name})", "best peer", "ratio"]
    rows = []
    for i, (v, *_) in enumerate(columns[0][1]):
        cells = [v]
        for _, col in columns:
            _, ours, best, r = col[i] if i < len(col) else (v, None, None, None)
            cells += [fmt_gbps(ours) + " GB/s",
                      f"{best[0]} {fmt_gbps(best[1])} GB/s" if best else "–", fmt_ratio(r)]
        rows.append(cells)
    model = re.search(r"^model name\s*:\s*(.*)$",
                      Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else "",
                      re.M)
    parts.append(f"In-cache validation of the shared lipsum corpora (non-ASCII scripts), from "
                 f"`{command_for(mode)}` ({mode} mode, {state['started']}, "
                 f"{model.group(1) if model else 'this machine'}, commit {state.get('commit', '?')}). "
                 + ("The implementations took turns on each file (paired timing, see the "
                    "report's Method); \"best peer\" is the one of std, simdutf8 (basic, "
                    "compat) and simdutf (yes/no, with errors) that fares best against "
                    "utf8guard, and the ratio is the median of per-round ratios."
                    if is_paired else
                    "\"Best peer\" is the fastest of std, simdutf8 (basic, compat) and simdutf "
                    "(yes/no, with errors) on that file.")
                 + (" At the AVX2 level every library is held to AVX2 (utf8guard through "
                    "`UTF8GUARD_KERNEL=avx2`, simdutf through `SIMDUTF_FORCE_IMPLEMENTATION="
                    "haswell`); the dispatched columns let each library pick its best kernel."
                    if avx2 else ""))
    parts.append("")
    parts.append(md_table(header, rows))
    parts.append("")
    parts.append("Every input class (short strings, sizes from 1 B to 64 MiB, invalid input, the "
                 "ingestion APIs, the command), the places where a peer is faster, and how to "
                 "reproduce: [docs/BENCHMARKS.md](docs/BENCHMARKS.md).")
    return "\n".join(parts)


README_START = "<!-- bench-report: headline start (written by scripts/bench-report) -->"
README_END = "<!-- bench-report: headline end -->"


def update_readme(text):
    """Replaces the README's headline section; False if its markers are missing."""
    readme = ROOT / "README.md"
    old = readme.read_text()
    a, b = old.find(README_START), old.find(README_END)
    if a < 0 or b < a:
        return False
    readme.write_text(old[:a + len(README_START)] + "\n" + text + "\n" + old[b:])
    return True


def command_for(mode):
    return "scripts/bench-report" + (" --quick" if mode == "quick" else "")
