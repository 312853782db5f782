"""The figure docs/benchmarks.svg, drawn by hand: throughput against input size
for pure ASCII and random 1-4-byte text, one line per implementation.
"""

import html
import math

from .common import COLORS, KERNELS, OURS, OURS_POS, PEERS, size_label


def svg_plot(tables, mode):
    panels = [("ascii", "Pure ASCII"), ("random", "Random 1-4-byte text")]
    panels = [(g, t) for g, t in panels if tables[g]]
    if not panels:
        return None
    impls = [i for i in [OURS, OURS_POS] + KERNELS + PEERS
             if any(i in tables[g].funcs for g, _ in panels)]
    pw, ph, ml, mt, gap = 440, 320, 60, 50, 70
    legend_rows = math.ceil(len(impls) / 3)
    width = ml + len(panels) * pw + (len(panels) - 1) * gap + 30
    height = mt + ph + 60 + legend_rows * 20 + 20
    ys = [tables[g].gbps(i, v) for g, _ in panels for i in impls for v in tables[g].values]
    ys = [y for y in ys if y]
    lo = 10 ** math.floor(math.log10(min(ys)))
    hi = 10 ** math.ceil(math.log10(max(ys)))
    xs = [int(v) for g, _ in panels for v in tables[g].values]
    xlo, xhi = math.log2(min(xs)), math.log2(max(xs))
    xhi = max(xhi, xlo + 1)
    e = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="15">'
           f'Validation throughput against input size ({e(mode)} mode; GB/s = 10^9 bytes/s, '
           'log scales)</text>']
    for k, (g, title) in enumerate(panels):
        x0 = ml + k * (pw + gap)
        t = tables[g]

        def px(v):
            return x0 + (math.log2(v) - xlo) / (xhi - xlo) * pw

        def py(y):
            return mt + ph - (math.log10(y) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * ph

        out.append(f'<text x="{x0 + pw / 2}" y="{mt - 10}" text-anchor="middle" '
                   f'font-weight="bold">{e(title)}</text>')
        out.append(f'<rect x="{x0}" y="{mt}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>')
        decade = lo
        while decade <= hi * 1.0001:
            for m in (1, 2, 5):
                y = decade * m
                if y < lo * 0.999 or y > hi * 1.001:
                    continue
                yy = py(y)
                out.append(f'<line x1="{x0}" y1="{yy:.1f}" x2="{x0 + pw}" y2="{yy:.1f}" '
                           f'stroke="{"#ccc" if m == 1 else "#eee"}"/>')
                out.append(f'<text x="{x0 - 6}" y="{yy + 4:.1f}" text-anchor="end">{y:g}</text>')
            decade *= 10
        for v in t.values:
            xx = px(int(v))
            out.append(f'<line x1="{xx:.1f}" y1="{mt}" x2="{xx:.1f}" y2="{mt + ph}" stroke="#eee"/>')
            out.append(f'<text x="{xx:.1f}" y="{mt + ph + 16}" text-anchor="middle">'
                       f'{e(size_label(v).replace(" ", ""))}</text>')
        out.append(f'<text x="{x0 + pw / 2}" y="{mt + ph + 34}" text-anchor="middle">input size</text>')
        out.append(f'<text x="{x0 - 45}" y="{mt + ph / 2}" text-anchor="middle" '
                   f'transform="rotate(-90 {x0 - 45} {mt + ph / 2})">GB/s</text>')
        for i in impls:
            pts = [(px(int(v)), py(t.gbps(i, v))) for v in t.values if t.gbps(i, v)]
            if not pts:
                continue
            dash = ' stroke-dasharray="5,3"' if i in KERNELS else ""
            w = 3 if i == OURS else 1.6
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
            out.append(f'<polyline points="{path}" fill="none" stroke="{COLORS[i]}" '
                       f'stroke-width="{w}"{dash}><title>{e(i)}</title></polyline>')
            for x, y in pts:
                out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{COLORS[i]}"/>')
    ly = mt + ph + 60
    for n, i in enumerate(impls):
        lx = ml + (n % 3) * 300
        yy = ly + (n // 3) * 20
        dash = ' stroke-dasharray="5,3"' if i in KERNELS else ""
        out.append(f'<line x1="{lx}" y1="{yy}" x2="{lx + 30}" y2="{yy}" stroke="{COLORS[i]}" '
                   f'stroke-width="{3 if i == OURS else 1.6}"{dash}/>')
        out.append(f'<text x="{lx + 38}" y="{yy + 4}">{e(i)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
