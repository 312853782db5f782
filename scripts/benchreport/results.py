"""Reading the results back: criterion's JSON files, the benches' notes and
the paired target's JSON lines; the lookup table of one criterion group,
and the statistics of the paired comparisons that the goals and the report
share.
"""

import json
import statistics

from .common import ERROR_POSITIONS, OURS, PEERS, STRICT, TRANSCODE


# ---------------------------------------------------------------- reading


def read_results(crit):
    results = []
    for bench_json in crit.glob("**/new/benchmark.json"):
        est_json = bench_json.with_name("estimates.json")
        if not est_json.exists():
            continue
        b = json.loads(bench_json.read_text())
        e = json.loads(est_json.read_text())
        tp = b.get("throughput") or {}
        med = e["median"]
        results.append({
            "group": b["group_id"],
            "func": b.get("function_id") or "",
            "value": b.get("value_str") or "",
            "id": b["full_id"],
            "bytes": tp.get("Bytes") or tp.get("BytesDecimal"),
            "elements": tp.get("Elements"),
            "ns": med["point_estimate"],
            "lo": med["confidence_interval"]["lower_bound"],
            "hi": med["confidence_interval"]["upper_bound"],
            "order": est_json.stat().st_mtime,
        })
    results.sort(key=lambda r: r["order"])
    return results


def read_notes(path):
    notes = {}
    if path.exists():
        for line in path.read_text().splitlines():
            key, _, value = line.partition(": ")
            notes.setdefault(key, []).append(value)
    return notes


class Table:
    """Results of one group: lookup by (implementation, value)."""

    def __init__(self, results, group):
        self.rows = [r for r in results if r["group"] == group]
        self.by = {(r["func"], r["value"]): r for r in self.rows}
        values = []
        for r in self.rows:
            if r["value"] not in values:
                values.append(r["value"])
        if all(v.isdigit() for v in values):
            values.sort(key=int)
        elif set(values) <= set(ERROR_POSITIONS):
            values.sort(key=ERROR_POSITIONS.index)
        else:
            values.sort()
        self.values = values
        self.funcs = {r["func"] for r in self.rows}

    def __bool__(self):
        return bool(self.rows)

    def get(self, func, value):
        return self.by.get((func, value))

    def gbps(self, func, value):
        r = self.get(func, value)
        return r["bytes"] / r["ns"] if r and r["bytes"] else None

    def impls(self, names):
        return [n for n in names if n in self.funcs]


def read_paired(path):
    """The outcomes the `paired` target wrote, by `group/label`; each with
    `times`: contestant -> nanoseconds per call, round by round."""
    out = {}
    if not path or not path.exists():
        return out
    for line in path.read_text().splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            continue
        o["times"] = {c["name"]: c["ns"] for c in o["contestants"]}
        o["names"] = [c["name"] for c in o["contestants"]]
        out[f"{o['group']}/{o['label']}"] = o
    return out


# The portable pass whose dialect comparisons are a SIMD kernel's, and the
# kernel's name in the report.
PORTABLE_SIMD = ("wasm32-simd128", "simd128")


def dialect_outcomes(paired, portable=None):
    """The dialect comparisons on the lipsum files, as (kernel, file,
    outcome): the `paired` target's, one per x86 kernel, and the portable
    benchmark's under WebAssembly with `simd128` (kernel `simd128`)."""
    found = []
    for o in paired.values():
        if o["group"] == "dialects" and "/" in o["label"] and STRICT in o["times"]:
            script, kernel = o["label"].rsplit("/", 1)
            found.append((kernel, script, o))
    name, kernel = PORTABLE_SIMD
    for o in ((portable or {}).get(name) or {}).values():
        if o["label"].startswith("dialects/") and STRICT in o["times"]:
            found.append((kernel, o["label"].split("/", 1)[1], o))
    return found


def transcode_items(paired, kind):
    """The `transcode` outcomes of one kind (`unchanged/...`,
    `cesu8-to-utf8`, ...), as (rest of the label, outcome) pairs."""
    out = []
    for o in paired.values():
        if o["group"] != TRANSCODE:
            continue
        head, _, rest = o["label"].partition("/")
        if head == kind:
            out.append((rest, o))
    return out


# ---------------------------------------------------------------- analysis


def best_peer(table, value, peers=PEERS):
    best = None
    for p in table.impls(peers):
        g = table.gbps(p, value)
        if g is not None and (best is None or g > best[1]):
            best = (p, g)
    return best


def p_median(o, name):
    """A contestant's median time per call over the rounds (ns)."""
    return statistics.median(o["times"][name])


def p_ratio(o, fast, slow):
    """How many times faster `fast` is than `slow`: the median over rounds of
    time(slow) / time(fast), both timed in the same round."""
    return statistics.median(b / a for a, b in zip(o["times"][fast], o["times"][slow]))


def p_gbps(o, name):
    return o["bytes"] / p_median(o, name)


def p_worst_peer(o, impl=None, peers=PEERS):
    """(ratio, peer) for the peer `impl` (utf8guard by default) beats by the
    least, paired round by round; None when none of them ran."""
    impl = impl or OURS
    qs = [(p_ratio(o, impl, peer), peer) for peer in peers if peer in o["times"]]
    return min(qs) if qs and impl in o["times"] else None


def p_bytes(o, name):
    """The bytes one call of a contestant validates (its own input's length:
    the dialects' encodings of the same text differ in length)."""
    for c in o["contestants"]:
        if c["name"] == name:
            return c.get("bytes", o["bytes"])
    return o["bytes"]


def p_tratio(o, a, b):
    """Throughput of `a` over throughput of `b`: the median over rounds of
    (bytes_a / time_a) / (bytes_b / time_b), both timed in the same round."""
    ba, bb = p_bytes(o, a), p_bytes(o, b)
    return statistics.median((ba / ta) / (bb / tb)
                             for ta, tb in zip(o["times"][a], o["times"][b]))
