"""Judging the speed goals: each goal measured both ways where it can be, paired
(the contestants in turns, which decides) and by criterion, as the rows of
the report's Goals table.
"""

import statistics

from .common import (BASE, CLI_ALL_J1, CLI_ALL_J2, CLI_DD, CLI_FILE_BYTES, CLI_FLOOR,
                     CLI_LATIN1_BYTES, OURS, OURS_POS, SCALAR, SCALAR_DISPATCHED, SCALAR_POS,
                     STRICT, fmt_gbps, fmt_time, md_table, ratio)
from .results import (best_peer, dialect_outcomes, p_gbps, p_median, p_ratio, p_tratio,
                      p_worst_peer, transcode_items)


def lipsum_goal_paired(paired):
    files, met = [], 0
    for o in paired.values():
        if o["group"] != "lipsum" or o["label"] == "Latin":
            continue
        worst = p_worst_peer(o)
        if worst is None:
            continue
        files.append(f"{o['label']} {worst[0]:.2f}× {worst[1]}")
        met += worst[0] >= 1.0
    if not files:
        return None
    return f"{met} of {len(files)} files; " + ", ".join(files), met == len(files)


def lipsum_goal_criterion(table):
    met, files = 0, []
    for v in table.values:
        if v == "Latin":  # all ASCII: not part of the non-ASCII headline
            continue
        best = best_peer(table, v)
        r = ratio(table.gbps(OURS, v), best[1] if best else None)
        if r is None:
            continue
        files.append(f"{v} {r:.2f}× {best[0]}")
        met += r >= 1.0
    if not files:
        return None
    return f"{met} of {len(files)} files; " + ", ".join(files), met == len(files)


def short_goal_paired(paired, group):
    worst, pos = {}, []
    for o in paired.values():
        if o["group"] != group or OURS not in o["times"]:
            continue
        for peer in ("std", BASE):
            if peer in o["times"]:
                r = p_ratio(o, OURS, peer)
                if peer not in worst or r < worst[peer][0]:
                    worst[peer] = (r, o["label"])
        if OURS_POS in o["times"] and "std" in o["times"]:
            pos.append(p_ratio(o, OURS_POS, "std"))
    return short_goal_text(worst, pos)


def short_goal_criterion(t):
    worst = {}
    for v in t.values:
        for peer in ("std", BASE):
            r = ratio(t.gbps(OURS, v), t.gbps(peer, v))
            if r is not None and (peer not in worst or r < worst[peer][0]):
                worst[peer] = (r, v)
    pos = [ratio(t.gbps(OURS_POS, v), t.gbps("std", v)) for v in t.values]
    return short_goal_text(worst, [p for p in pos if p is not None])


def short_goal_text(worst, pos):
    if not worst:
        return None
    ok = all(r >= 1.3 for r, _ in worst.values()) and len(worst) == 2
    measured = "; ".join(f"lowest ÷ {p}: {r:.2f}× (at {v} B)" for p, (r, v) in worst.items())
    if pos:
        measured += f"; `from_utf8` ÷ std: {min(pos):.2f}× to {max(pos):.2f}×"
    return measured, ok


def invalid_goal_paired(paired, impl):
    o = paired.get(f"invalid-1MiB/{impl}")
    if not o or "valid" not in o["times"]:
        return None
    parts, ok = [], True
    for pos in ("end", "truncated-end"):
        if pos in o["times"]:
            q = p_ratio(o, "valid", pos)  # time(pos) / time(valid), round by round
            ok &= q <= 1.2
            parts.append(f"{pos}: {fmt_time(p_median(o, pos))} = {q:.2f}× valid "
                         f"({fmt_time(p_median(o, 'valid'))})")
    return ("; ".join(parts), ok) if parts else None


def invalid_goal_criterion(inv, impl):
    valid = inv.get(impl, "valid")
    parts, ok = [], True
    for pos in ("end", "truncated-end"):
        r = inv.get(impl, pos)
        if valid and r:
            q = r["ns"] / valid["ns"]
            ok &= q <= 1.2
            parts.append(f"{pos}: {fmt_time(r['ns'])} = {q:.2f}× valid ({fmt_time(valid['ns'])})")
    return ("; ".join(parts), ok) if parts else None


# (goal, paired id, criterion group, fast, slow, at least)
INGEST_GOALS = [
    ("`par::validate` on 256 MiB at least 1.6× sequential `validate`",
     "par-256MiB/", "par-256MiB", "par/validate", "sequential/validate", "", 1.6),
    ("Streaming in 64 KiB chunks at least 0.9× one-shot `from_utf8`",
     "stream-64MiB/", "stream-64MiB", "stream/64KiB", "one-shot/from_utf8", "", 0.9),
    ("`from_utf8_lossy` on valid text at least 5× `String::from_utf8_lossy`",
     "lossy/valid", "lossy", "utf8guard", "std", "valid", 5.0),
    ("`from_utf8_lossy` on 0.1%-invalid text at least 5× `String::from_utf8_lossy`",
     "lossy/0.1%-invalid", "lossy", "utf8guard", "std", "0.1%-invalid", 5.0),
    ("`validate_offsets` over 1 million short strings at least 3× a loop of "
     "`std::str::from_utf8`",
     "offsets-1M/", "offsets-1M", "validate_offsets", "std-loop", "", 3.0),
]


def ingest_goals(results, paired):
    """The ingestion APIs' goals: (goal, paired, criterion) rows, each measure
    (text, met) or None."""
    ns = {(r["group"], r["func"], r["value"]): r["ns"] for r in results}
    rows = []
    for goal, pid, group, fast, slow, value, at_least in INGEST_GOALS:
        crit = None
        a, b = ns.get((group, fast, value)), ns.get((group, slow, value))
        if a is not None and b is not None:
            q = b / a
            crit = (f"{q:.2f}× (`{fast}` {fmt_time(a)}, `{slow}` {fmt_time(b)})", q >= at_least)
        pair = None
        o = paired.get(pid)
        if o and fast in o["times"] and slow in o["times"]:
            q = p_ratio(o, fast, slow)
            pair = (f"{q:.2f}× (`{fast}` {fmt_time(p_median(o, fast))}, `{slow}` "
                    f"{fmt_time(p_median(o, slow))}; {o['rounds']} rounds)", q >= at_least)
        if crit or pair:
            rows.append((goal, pair, crit))
    return rows


BEYOND_PEERS = ["std", "simdutf8 basic", "simdutf8 compat", "simdutf", "simdutf with_errors"]


def beyond_cache_goals(paired, how):
    """Validation of 256 MiB beyond the caches: (goal, paired, None) rows,
    for one core (the dispatched entry point; on text and on ASCII) and two
    (`par::validate`): at
    least 1.1x the best peer and 0.9x a loop that only reads the buffer
    (the faster of two: with prefetch hints and without)."""
    rows = []
    for label, ours, peers, reads in (
            ("1-core", OURS, BEYOND_PEERS, ["read only", "read only, prefetch"]),
            ("1-core-ascii", OURS, BEYOND_PEERS, ["read only", "read only, prefetch"]),
            ("2-cores", "utf8guard par", ["simdutf8 basic, 2 threads", "simdutf, 2 threads"],
             ["read only, 2 threads", "read only, prefetch, 2 threads"])):
        o = paired.get(f"beyond-cache/{label}")
        if not o or ours not in o["times"]:
            continue
        present = [p for p in peers if p in o["times"]]
        read_loops = [r for r in reads if r in o["times"]]
        if not present or not read_loops:
            continue
        best = min(present, key=lambda p: p_median(o, p))
        # The roofline: the faster of the read loops (with and without
        # prefetch hints).
        read = min(read_loops, key=lambda r: p_median(o, r))
        q_peer = p_ratio(o, ours, best)
        q_read = p_ratio(o, ours, read)
        text = (f"{q_peer:.2f}× {best} (the fastest peer), {q_read:.2f}× the read roofline "
                f"(`{ours}` {fmt_gbps(p_gbps(o, ours))} GB/s, `{read}` "
                f"{fmt_gbps(p_gbps(o, read))} GB/s; {o['rounds']} rounds)")
        cores = "two cores" if label == "2-cores" else "one core"
        what = "256 MiB of ASCII" if label.endswith("-ascii") else "256 MiB"
        rows.append((f"{what} beyond the caches on {cores}, {how}: `{ours}` at least 1.1× the "
                     "best peer and 0.9× the read roofline", (text, q_peer >= 1.1 and q_read >= 0.9),
                     None))
    return rows


STRING_PEERS = ["std", "simdutf8 basic", "simdutf8 compat", "simdutf", "simdutf with_errors"]


def strings_goal(paired, how):
    """Strings of 1 B to 1 KiB (`strings/<class>/<n>`): a (goal, paired,
    None) row: `utf8guard` against the fastest peer at each size and class
    (at least 1.2x), and against std and simdutf8 from 8 to 32 bytes (at
    least 2x)."""
    outcomes = [o for o in paired.values() if o["group"] == "strings" and OURS in o["times"]]
    if not outcomes:
        return []
    below, worst, small_worst = [], None, None
    for o in outcomes:
        present = [p for p in STRING_PEERS if p in o["times"]]
        if not present:
            continue
        best = min(present, key=lambda p: p_median(o, p))
        q = p_ratio(o, OURS, best)
        if worst is None or q < worst[0]:
            worst = (q, o["label"], best)
        if q < 1.2:
            # Beside it, how close the fastest peer and utf8guard come to
            # only reading the strings (from 32 bytes on).
            read = ""
            if "read only" in o["times"]:
                read = (f" (read-only loop: {best} at {p_ratio(o, best, 'read only'):.2f}×,"
                        f" utf8guard at {p_ratio(o, OURS, 'read only'):.2f}×)")
            below.append(f"{o['label']} {q:.2f}× {best}{read}")
        size = int(o["label"].rsplit("/", 1)[1])
        if 8 <= size <= 32:
            for peer in ("std", BASE):
                if peer in o["times"]:
                    q2 = p_ratio(o, OURS, peer)
                    if small_worst is None or q2 < small_worst[0]:
                        small_worst = (q2, o["label"], peer)
    if worst is None:
        return []
    text = f"worst {worst[0]:.2f}× {worst[2]} (`{worst[1]}`) over {len(outcomes)} classes"
    if below:
        text += "; below 1.2× the fastest peer: " + ", ".join(below)
    if small_worst:
        text += f"; 8-32 B: worst {small_worst[0]:.2f}× {small_worst[2]} (`{small_worst[1]}`)"
    met = not below and (small_worst is None or small_worst[0] >= 2)
    return [(f"Strings of every size from 1 B to 1 KiB, ASCII and non-ASCII, {how}: `{OURS}` at "
             "least 1.2× the fastest peer at every size, and 2× std and simdutf8 basic at 8-32 B",
             (text, met), None)]


def cli_goals(cli):
    """The command's speed goals: (goal, paired, criterion) rows; it is timed
    by whole runs of the command, which is neither: at least 20x `isutf8`,
    and at most 0.9x the time `dd` takes to read the file."""
    if not cli or not cli.get("rows"):
        return []
    by = {row[0]: row for row in cli["rows"]}
    ours = by.get("utf8guard -q FILE")
    if not ours:
        return []
    rows = []
    for peer_label, at_least, goal in (
            ("isutf8 FILE", 20.0,
             f"`utf8guard check` on a {CLI_FILE_BYTES >> 20} MiB file in the page cache (whole "
             "process) at least 20× `isutf8`"),
            (CLI_DD, 1 / 0.9,
             f"`utf8guard check` on a {CLI_FILE_BYTES >> 20} MiB file in the page cache in at "
             "most 0.9× the time `dd bs=1M` takes to read it")):
        peer = by.get(peer_label)
        if not peer:
            continue
        q_med, q_best = peer[1] / ours[1], peer[2] / ours[2]
        name = peer_label.split()[0]
        floor = by.get(CLI_FLOOR)
        if len(ours) > 4 and len(peer) > 4:  # timed in turns: paired by round
            q = statistics.median(b / a for a, b in zip(ours[4], peer[4]))
            text = (f"whole runs in turns: {q:.2f}× `{name}` ({len(ours[4])} rounds; "
                    f"medians {fmt_time(ours[1] * 1e9)} vs {fmt_time(peer[1] * 1e9)}; "
                    f"{q_best:.2f}× by the fastest runs)")
            if floor and len(floor) > 4:
                # The same ratio for the process that only reads the file:
                # the most any check could reach here.
                qf = statistics.median(b / a for a, b in zip(floor[4], peer[4]))
                text += (f"; `read-floor`, which maps, faults in and reads the file without "
                         f"checking it: {qf:.2f}× (median {fmt_time(floor[1] * 1e9)})")
            rows.append((goal, (text, q >= at_least), None))
        else:
            rows.append((goal, None,
                         (f"whole runs, not criterion: {q_med:.2f}× `{name}` by the medians "
                          f"({fmt_time(ours[1] * 1e9)} vs {fmt_time(peer[1] * 1e9)}), "
                          f"{q_best:.2f}× by the fastest runs", q_med >= at_least)))
    return rows


def cli_all_goal(cli):
    """`--all -j2` against `--all -j1`: a (goal, paired, criterion) row."""
    by = {row[0]: row for row in (cli or {}).get("all_rows") or []}
    j2, j1 = by.get(CLI_ALL_J2), by.get(CLI_ALL_J1)
    if not j2 or not j1:
        return []
    q = statistics.median(b / a for a, b in zip(j2[4], j1[4]))
    return [(f"`utf8guard --all` on a {CLI_LATIN1_BYTES >> 20} MiB Latin-1 file (an error "
             "every few bytes) no slower with 2 jobs than with 1",
             (f"whole runs in turns: `-j2` {q:.2f}× the speed of `-j1` ({len(j2[4])} rounds; "
              f"medians {fmt_time(j2[1] * 1e9)} vs {fmt_time(j1[1] * 1e9)})", q >= 1.0),
             None)]


SCALAR_GOAL = 1.5


def scalar_goal(scalar):
    """The scalar kernel's goal row, (goal, paired, None): its worst ratio to
    std over every input of the scalar-vs-std pass, for `Kernel::Scalar`'s
    validate (which decides), from_utf8 and the dispatched entry point."""
    if not scalar:
        return []
    worst = {}
    for o in scalar.values():
        for name in (SCALAR, SCALAR_POS, SCALAR_DISPATCHED):
            if name in o["times"] and "std" in o["times"]:
                q = p_ratio(o, name, "std")
                if name not in worst or q < worst[name][0]:
                    worst[name] = (q, o["label"])
    if SCALAR not in worst:
        return []
    q, label = worst[SCALAR]
    more = "; ".join(f"`{n}` {worst[n][0]:.2f}× (`{worst[n][1]}`)"
                     for n in (SCALAR_POS, SCALAR_DISPATCHED) if n in worst)
    below = []
    for o in sorted(scalar.values(), key=lambda o: o["label"]):
        if SCALAR not in o["times"] or p_ratio(o, SCALAR, "std") >= SCALAR_GOAL:
            continue
        # Beside strings, how fast only reading them is: no validator can
        # go faster than std by more than that loop does.
        read = ""
        if "read only" in o["times"]:
            read = (f" (read-only loop: {p_ratio(o, 'read only', 'std'):.2f}× std, the scalar "
                    f"kernel at {p_ratio(o, SCALAR, 'read only'):.2f}× it)")
        below.append(o["label"] + read)
    text = (f"worst {q:.2f}× (`{label}`) over {len(scalar)} inputs"
            + (f"; below {SCALAR_GOAL}×: {', '.join(below)}" if below else "")
            + (f". Also {more}" if more else ""))
    goal = (f"The scalar kernel (`Kernel::Scalar.validate`) at least {SCALAR_GOAL}× std on every "
            "class of input: each lipsum script, the project's corpora, long text, ASCII and "
            "non-ASCII strings of 1 B to 1 KiB")
    return [(goal, (text, not below), None)]


DIALECT_GOAL = 0.8


def dialect_goals(paired, portable=None):
    """The dialects' goal rows: each dialect's throughput on each SIMD kernel
    (the x86 ones of the `paired` target, and `simd128` under Node.js when
    the portable benchmark ran) at least 0.8x strict UTF-8's on the same
    text (the lipsum files re-encoded), and CESU-8 and modified UTF-8
    against the crates that validate them (5x on Emoji, faster on every
    other file)."""
    rows = []
    worst, below, n = None, [], 0
    for kernel, script, o in dialect_outcomes(paired, portable):
        for name in o["names"]:
            if name == STRICT:
                continue
            q = p_tratio(o, name, STRICT)
            n += 1
            if worst is None or q < worst[0]:
                worst = (q, f"{name} on {script}/{kernel}")
            if q < DIALECT_GOAL:
                below.append(f"{name} on {script}/{kernel} {q:.2f}×")
    if worst:
        text = (f"worst {worst[0]:.2f}× ({worst[1]}) over {n} pairs"
                + (f"; below {DIALECT_GOAL}×: {', '.join(below)}" if below else ""))
        rows.append((f"Each dialect on each SIMD kernel at least {DIALECT_GOAL}× the throughput "
                     "of strict UTF-8 on the same kernel and text (the lipsum files in each "
                     "dialect)", (text, not below), None))
    for group, crates in (("cesu8", "`simd_cesu8`, `cesu8`"), ("mutf8", "`cesu8`")):
        found, met = [], True
        for o in paired.values():
            if o["group"] != group or "utf8guard" not in o["times"]:
                continue
            peers = [c for c in o["names"] if c != "utf8guard"]
            q, peer = min((p_ratio(o, "utf8guard", c), c) for c in peers)
            need = 5.0 if o["label"] == "Emoji" else 1.0
            met &= q >= need
            found.append(f"{o['label']} {q:.1f}× {peer}")
        if found:
            title = {"cesu8": "CESU-8", "mutf8": "Modified UTF-8"}[group]
            rows.append((f"{title}: `utf8guard` at least 5× the best crate ({crates}) on the Emoji "
                         "lipsum, faster on every other file", ("; ".join(found), met), None))
    return rows


TRANSCODE_UNCHANGED_GOAL = 0.8
TRANSCODE_CESU8_GOAL = 3.0
TRANSCODE_CORRECTED_GOAL = 1.0  # GB/s


def transcode_goals(paired):
    """The transcoders' goal rows: unchanged text at least 0.8x `validate`
    and a copy; CESU-8 to and from UTF-8 on the Emoji lipsum at least 3x the
    best crate; WTF-8 to and from UTF-16 at least as fast as std on every
    file; Corrected UTF-8 to and from UTF-8 at least 1 GB/s on every file
    but the ASCII one (whose text needs no change)."""
    rows = []
    items = transcode_items(paired, "unchanged")
    if items:
        qs = [(p_ratio(o, "utf8guard", "validate + copy"), label) for label, o in items]
        worst = min(qs)
        below = [f"{label} {q:.2f}×" for q, label in qs if q < TRANSCODE_UNCHANGED_GOAL]
        text = (f"worst {worst[0]:.2f}× ({worst[1]}) over {len(qs)} inputs"
                + (f"; below: {', '.join(below)}" if below else ""))
        rows.append((f"Transcoding text that needs no change: at least "
                     f"{TRANSCODE_UNCHANGED_GOAL}× `validate` plus a copy of the same bytes",
                     (text, not below), None))
    for kind, title in (("cesu8-to-utf8", "CESU-8 to UTF-8"), ("utf8-to-cesu8", "UTF-8 to CESU-8")):
        # The Emoji lipsum only: the text that changes every n bytes
        # (`emoji-every-<n>`) is a comparison of the paired section, not a
        # goal.
        for label, o in transcode_items(paired, kind):
            if label != "Emoji":
                continue
            ours = o["names"][0]
            q, peer = min((p_ratio(o, ours, c), c) for c in o["names"][1:])
            rows.append((f"{title} on the {label} lipsum: at least {TRANSCODE_CESU8_GOAL:g}× the "
                         "best crate (`simd_cesu8`, `cesu8`)",
                         (f"{q:.2f}× {peer} ({fmt_gbps(p_gbps(o, ours))} GB/s against "
                          f"{fmt_gbps(p_gbps(o, peer))})", q >= TRANSCODE_CESU8_GOAL), None))
    for kind, title in (("wtf8-to-utf16", "WTF-8 to UTF-16"), ("utf16-to-wtf8", "UTF-16 to WTF-8")):
        items = transcode_items(paired, kind)
        if not items:
            continue
        qs = [(p_ratio(o, o["names"][0], o["names"][1]), label) for label, o in items]
        worst = min(qs)
        below = [f"{label} {q:.2f}×" for q, label in qs if q < 1.0]
        text = (f"worst {worst[0]:.2f}× ({worst[1]}) over {len(qs)} files"
                + (f"; slower: {', '.join(below)}" if below else ""))
        rows.append((f"{title}: at least as fast as std (`{items[0][1]['names'][1]}`) on every "
                     "lipsum file", (text, not below), None))
    for kind, title in (("corrected-to-utf8", "Corrected UTF-8 to UTF-8"),
                        ("utf8-to-corrected", "UTF-8 to Corrected UTF-8")):
        items = [(label, o) for label, o in transcode_items(paired, kind) if label != "Latin"]
        if not items:
            continue
        speeds = [(p_gbps(o, "utf8guard"), label) for label, o in items]
        worst = min(speeds)
        below = [f"{label} {fmt_gbps(g)}" for g, label in speeds if g < TRANSCODE_CORRECTED_GOAL]
        text = (f"slowest {fmt_gbps(worst[0])} GB/s ({worst[1]}) over {len(speeds)} files"
                + (f"; below: {', '.join(below)}" if below else ""))
        rows.append((f"{title} on non-ASCII lipsum: at least {TRANSCODE_CORRECTED_GOAL:g} GB/s on "
                     "one core (every file but Latin)", (text, not below), None))
    return rows


CONVERT_SIMDUTF_GOAL = 1.1
CONVERT_ENCODING_RS_GOAL = 3.0


def conversion_goals(paired, how):
    """The conversions' goals (issue "Transcoding"): every conversion simdutf
    has at least 1.1x simdutf on every input, into a caller's buffer
    (utf8guard's `_into` form against simdutf's conversion into a buffer
    allocated once, where the comparison has both); Windows-1252 to and
    from UTF-8 at least 3x encoding_rs."""
    rows = []
    kinds = [("wtf8-to-utf16", "UTF-8 to UTF-16"), ("utf16-to-wtf8", "UTF-16 to UTF-8"),
             ("latin1-to-utf8", "Latin-1 to UTF-8"), ("utf8-to-latin1", "UTF-8 to Latin-1"),
             ("utf8-to-utf32", "UTF-8 to UTF-32"), ("utf32-to-utf8", "UTF-32 to UTF-8")]
    for kind, title in kinds:
        qs = []
        for label, o in transcode_items(paired, kind):
            peers = [n for n in o["names"] if n.startswith("simdutf")]
            ours = [n for n in o["names"] if n.startswith("utf8guard")]
            into = [n for n in ours if n.endswith("_into")]
            buffered = [n for n in peers if n.endswith("(buffer)")]
            if into and buffered:
                ours, peers = into, buffered
            if peers and ours:
                qs.append((p_ratio(o, ours[0], peers[0]), label))
        if not qs:
            continue
        worst = min(qs)
        below = [f"{label} {q:.2f}×" for q, label in qs if q < CONVERT_SIMDUTF_GOAL]
        rows.append((f"{title} ({how}): at least {CONVERT_SIMDUTF_GOAL}× simdutf on every input",
                     (f"worst {worst[0]:.2f}× ({worst[1]}) over {len(qs)} inputs"
                      + (f"; below: {', '.join(below)}" if below else ""), not below), None))
    for kind, title in (("windows1252-to-utf8", "Windows-1252 to UTF-8"),
                        ("utf8-to-windows1252", "UTF-8 to Windows-1252")):
        qs = []
        for label, o in transcode_items(paired, kind):
            peers = [n for n in o["names"] if "encoding_rs" in n]
            ours = [n for n in o["names"] if n.startswith("utf8guard")]
            if peers and ours:
                qs.append((min(p_ratio(o, ours[0], p) for p in peers), label))
        if not qs:
            continue
        worst = min(qs)
        rows.append((f"{title} ({how}): at least {CONVERT_ENCODING_RS_GOAL:g}× encoding_rs",
                     (f"worst {worst[0]:.2f}× ({worst[1]}) over {len(qs)} inputs",
                      worst[0] >= CONVERT_ENCODING_RS_GOAL), None))
    return rows


REPAIR_VALID_GOAL = 0.9
REPAIR_LOSSY_GOALS = {"latin-1": 5.0, "error-every-1KiB": 3.0}
REPAIR_POLICY_GOAL = 0.8
REPAIR_READER_GOAL = 0.8


def repair_goals(paired, how):
    """The repair policies' goals (benches/benches/paired/repair.rs): a
    `Repairer` of valid text at least 0.9x `validate` and a copy;
    `maximal-subpart` at least 5x std's `from_utf8_lossy` on Latin-1 text and
    3x with an error every 1 KiB; every other policy (and the escape) at
    least 0.8x `maximal-subpart` there; `RepairReader` at least 0.8x
    `Utf8Reader` on valid text."""
    rows = []

    def outcome(label):
        o = paired.get(f"repair/{label}")
        return o if o and o["times"] else None

    def worst(o, names, slow):
        return min((p_ratio(o, n, slow), n) for n in names if n in o["times"])

    o = outcome("valid")
    if o and "validate + copy" in o["times"]:
        q, name = worst(o, [n for n in o["names"] if n.startswith("Repairer")], "validate + copy")
        rows.append((f"Repair of valid text ({how}): a `Repairer` at least {REPAIR_VALID_GOAL}× "
                     "`validate` plus a copy", (f"{q:.2f}× (`{name}`, the slower; `repair` "
                                                f"itself borrows: {p_ratio(o, 'repair (borrowed)', 'validate + copy'):.2f}×)",
                                                q >= REPAIR_VALID_GOAL), None))
    for label, at_least in REPAIR_LOSSY_GOALS.items():
        o = outcome(label)
        if not o or "maximal-subpart" not in o["times"]:
            continue
        q = p_ratio(o, "maximal-subpart", "std from_utf8_lossy")
        rows.append((f"`maximal-subpart` on {label} ({how}): at least {at_least:g}× std's "
                     "`from_utf8_lossy`",
                     (f"{q:.2f}× ({fmt_gbps(p_gbps(o, 'maximal-subpart'))} GB/s against "
                      f"{fmt_gbps(p_gbps(o, 'std from_utf8_lossy'))})", q >= at_least), None))
        others = [n for n in o["names"] if n not in ("maximal-subpart", "std from_utf8_lossy")]
        if others:
            q, name = worst(o, others, "maximal-subpart")
            below = [f"{n} {p_ratio(o, n, 'maximal-subpart'):.2f}×" for n in others
                     if p_ratio(o, n, "maximal-subpart") < REPAIR_POLICY_GOAL]
            rows.append((f"Every other policy on {label} ({how}): at least "
                         f"{REPAIR_POLICY_GOAL}× `maximal-subpart`",
                         (f"lowest {q:.2f}× ({name})" + (f"; below: {', '.join(below)}" if below else ""),
                          not below), None))
    o = outcome("reader-valid")
    if o and "Utf8Reader" in o["times"]:
        q, name = worst(o, [n for n in o["names"] if n.startswith("RepairReader")], "Utf8Reader")
        rows.append((f"`RepairReader` on valid text ({how}): at least {REPAIR_READER_GOAL}× "
                     "`Utf8Reader`", (f"{q:.2f}× (`{name}`, the slower)", q >= REPAIR_READER_GOAL),
                     None))
    return rows


def goals(tables, notes, avx2, results=(), cli=None, paired=None, paired_avx2=None,
          scalar=None, portable=None):
    """The goals the benchmarks are held to, measured both ways: paired (the
    contestants in turns, which decides) and by criterion (each benchmark in
    its own window)."""
    paired, paired_avx2 = paired or {}, paired_avx2 or {}
    rows = []
    kernel = (notes.get("active_kernel") or ["?"])[0]
    lip = tables["lipsum"]
    candidates = []
    if avx2 or paired_avx2:
        candidates.append((avx2, paired_avx2, "AVX2 level: the AVX2 kernel against simdutf's "
                           "AVX2 kernel, simdutf8 and std"))
    if lip or paired:
        candidates.append((lip, paired, f"{kernel} dispatched, against each peer's own choice"))
    for table, pair, how in candidates:
        rows.append((f"In-cache non-ASCII lipsum, {how}: `{OURS}` at least as fast as the best "
                     "peer on every file", lipsum_goal_paired(pair),
                     lipsum_goal_criterion(table) if table else None))
    for group, what in (("short-ascii", "ASCII"), ("short-text", "non-ASCII")):
        t = tables[group]
        rows.append((f"{what} strings of 8-32 bytes: `utf8guard` at least 1.3× std and "
                     "simdutf8 basic", short_goal_paired(paired, group),
                     short_goal_criterion(t) if t else None))
    inv = tables["invalid-1MiB"]
    for impl in (OURS_POS, OURS):
        rows.append((f"Error in the last bytes of 1 MiB found within 1.2× the time for the "
                     f"valid input (`{impl}`)", invalid_goal_paired(paired, impl),
                     invalid_goal_criterion(inv, impl) if inv else None))
    rows += ingest_goals(results, paired)
    rows += beyond_cache_goals(paired, f"{kernel} dispatched")
    rows += beyond_cache_goals(paired_avx2, "AVX2 level")
    rows += strings_goal(paired, f"{kernel} dispatched")
    rows += strings_goal(paired_avx2, "AVX2 level")
    rows += cli_goals(cli)
    rows += cli_all_goal(cli)
    rows += scalar_goal(scalar)
    rows += dialect_goals(paired, portable)
    rows += transcode_goals(paired)
    rows += conversion_goals(paired, f"{kernel} dispatched")
    rows += conversion_goals(paired_avx2, "AVX2 level")
    rows += repair_goals(paired, f"{kernel} dispatched")
    rows += repair_goals(paired_avx2, "AVX2 level")
    out = []
    for goal, pair, crit in rows:
        if not pair and not crit:
            continue
        decider = pair or crit
        out.append([goal, pair[0] if pair else "–", crit[0] if crit else "–",
                    "yes" if decider[1] else "**no**"])
    if not out:
        return "None of the goals' benchmarks ran (a filtered run)."
    return md_table(["Goal", "Paired: in turns, same moments (decides)",
                     "Criterion: each in its own window", "Met"], out, ["l", "l", "l", "l"])
