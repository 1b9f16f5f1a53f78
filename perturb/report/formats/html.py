"""A self-contained HTML report: inline CSS and SVG, no script, no network.

Charts: per-class delta against canonical with its bootstrap interval (mean success and
pass^k), and the pass^k curves k = 1..K. Tables: scorecard, requested k, errored / worst
variant / latency / cost, intensity levels, worst tasks, consistently wrong, meaning drift,
per task, metric definitions.
"""

from __future__ import annotations

import math
from html import escape

from perturb.io.inert import printable
from perturb.report.aggregate import Analysis, Interval
from perturb.report.formats import (
    DEFINITIONS,
    FAULT_NOTE,
    consistency_line,
    f3,
    faults_line,
    headline,
    interval,
    lam_text,
    n_range,
    robustness_line,
    tables,
)
from perturb.report.formats.spec import FormatSpec
from perturb.report.formats.tables import Cell, CodeCell, IntervalCell, LabelCell, cell_text

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
RED, GREEN, GREY = "#c0392b", "#1e8449", "#555555"

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;
color:#1b1b1b;background:#fff;max-width:1150px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;
padding-bottom:3px}
.meta{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;color:#444}
.lines{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;margin:10px 0}
.warn{background:#fff4d6;border-left:4px solid #e0a800;padding:6px 10px;margin:8px 0}
.note{color:#666;font-size:12px}
table{border-collapse:collapse;margin:6px 0;font-size:13px}
th,td{padding:3px 9px;border-bottom:1px solid #e4e4e4;text-align:right;white-space:nowrap}
th{background:#f4f6f8;font-weight:600}th:first-child,td:first-child{text-align:left}
td.l{text-align:left}
.stable-pass{color:#1e8449}.flaky{color:#b7770f;font-weight:600}.brittle{color:#8e44ad;
font-weight:600}.stable-fail{color:#c0392b;font-weight:600}.down{color:#c0392b;font-weight:600}
.up{color:#1e8449;font-weight:600}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
code.out{white-space:normal;word-break:break-all;display:inline-block;max-width:560px}
svg{display:block;margin:6px 0}svg text{font:12px system-ui,sans-serif;fill:#222}
dl dt{font-weight:600}dl dd{margin:0 0 6px 16px}
"""


def _table(header: list[str], rows: list[list[str]], left: int = 1) -> str:
    """An HTML table; cells are already escaped HTML."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join(
        "<tr>"
        + "".join(f'<td class="l">{c}</td>' if i < left else f"<td>{c}</td>" for i, c in enumerate(row))
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _nice_bounds(values: list[float]) -> tuple[float, float]:
    lo = min([-0.1, *values])
    hi = max([0.1, *values])
    return max(-1.0, math.floor(lo * 10) / 10), min(1.0, math.ceil(hi * 10) / 10)


def delta_chart(a: Analysis) -> str:
    """SVG: one row per class and metric, the point and its interval, a zero line."""
    rows: list[tuple[str, Interval]] = []
    for c in a.classes:
        if c.delta is not None:
            rows.append((f"{c.kind} · mean", c.delta.mean))
            rows.append((f"{c.kind} · pass^{a.k}", c.delta.pass_hat[a.k]))
    if not rows:
        return '<p class="note">No class has tasks matched with canonical prompts.</p>'
    lo, hi = _nice_bounds([v for _, iv in rows for v in (iv.low, iv.high, iv.point)])
    width, left, right, top, row_h = 900, 190, 170, 24, 26
    plot_w = width - left - right
    height = top + row_h * len(rows) + 30

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * plot_w

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="delta chart">'
    ]
    steps = round((hi - lo) / 0.1)
    stride = 1 if steps <= 10 else 2 if steps <= 20 else 5
    for i in range(0, steps + 1, stride):
        v = lo + i * 0.1
        xv = x(v)
        tick = "0" if abs(v) < 1e-9 else f"{v:+.1f}"
        parts.append(
            f'<line x1="{xv:.1f}" y1="{top - 6}" x2="{xv:.1f}" y2="{height - 24}" stroke="#e6e6e6"/>'
        )
        parts.append(f'<text x="{xv:.1f}" y="{height - 8}" text-anchor="middle">{tick}</text>')
    parts.append(
        f'<line x1="{x(0):.1f}" y1="{top - 10}" x2="{x(0):.1f}" y2="{height - 24}" '
        'stroke="#333" stroke-width="1.5"/>'
    )
    for i, (label, iv) in enumerate(rows):
        y = top + row_h * i + row_h / 2
        color = RED if iv.high < 0 else GREEN if iv.low > 0 else GREY
        parts += [
            f'<text x="{left - 10}" y="{y + 4:.1f}" text-anchor="end">{escape(label)}</text>',
            f'<line x1="{x(iv.low):.1f}" y1="{y:.1f}" x2="{x(iv.high):.1f}" y2="{y:.1f}" '
            f'stroke="{color}" stroke-width="3"/>',
            f'<line x1="{x(iv.low):.1f}" y1="{y - 6:.1f}" x2="{x(iv.low):.1f}" y2="{y + 6:.1f}" '
            f'stroke="{color}" stroke-width="2"/>',
            f'<line x1="{x(iv.high):.1f}" y1="{y - 6:.1f}" x2="{x(iv.high):.1f}" '
            f'y2="{y + 6:.1f}" stroke="{color}" stroke-width="2"/>',
            f'<circle cx="{x(iv.point):.1f}" cy="{y:.1f}" r="6" fill="{color}"/>',
            f'<text x="{width - right + 12}" y="{y + 4:.1f}">{escape(interval(iv))}</text>',
        ]
    parts.append("</svg>")
    return "".join(parts)


def curve_chart(a: Analysis) -> str:
    """SVG: the pass^k curve of every class, k = 1..K, y from 0 to 1."""
    k_max = max(len(c.curve) for c in a.classes)
    width, height, left, right, top, bottom = 900, 340, 60, 190, 20, 44
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(k: int) -> float:
        return left + (0.5 if k_max == 1 else (k - 1) / (k_max - 1)) * plot_w

    def y(v: float) -> float:
        return top + (1 - v) * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="pass^k curves">'
    ]
    for i in range(11):
        v = i / 10
        parts.append(
            f'<line x1="{left}" y1="{y(v):.1f}" x2="{left + plot_w}" y2="{y(v):.1f}" '
            f'stroke="{"#bbb" if i in (0, 10) else "#eee"}"/>'
        )
        if i % 2 == 0:
            parts.append(f'<text x="{left - 8}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>')
    for k in range(1, k_max + 1):
        parts.append(f'<text x="{x(k):.1f}" y="{top + plot_h + 18}" text-anchor="middle">{k}</text>')
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle">'
        "k (all k trials must pass)</text>"
    )
    for i, c in enumerate(a.classes):
        color = PALETTE[i % len(PALETTE)]
        pts = " ".join(f"{x(k):.1f},{y(v):.1f}" for k, v in c.curve)
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="3"/>')
        parts += [f'<circle cx="{x(k):.1f}" cy="{y(v):.1f}" r="4" fill="{color}"/>' for k, v in c.curve]
        ly = top + 10 + i * 22
        parts += [
            f'<rect x="{width - right + 16}" y="{ly - 9}" width="18" height="12" fill="{color}"/>',
            f'<text x="{width - right + 40}" y="{ly + 2}">{escape(c.kind)} '
            f"(n={escape(n_range(c.n_min, c.n_max))})</text>",
        ]
    parts.append("</svg>")
    return "".join(parts)


def lambda_chart(a: Analysis) -> str:
    """SVG: mean success (with the 95% interval of Δ shifted onto the λ = 0 level) against λ."""
    assert a.faults is not None
    rows = a.faults.lambdas
    width, height, left, right, top, bottom = 900, 300, 60, 40, 20, 44
    plot_w, plot_h = width - left - right, height - top - bottom
    top_lam = max(r.lam for r in rows) or 1.0

    def x(lam: float) -> float:
        return left + lam / top_lam * plot_w

    def y(v: float) -> float:
        return top + (1 - min(max(v, 0.0), 1.0)) * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="success against fault rate">'
    ]
    for i in range(11):
        v = i / 10
        parts.append(
            f'<line x1="{left}" y1="{y(v):.1f}" x2="{left + plot_w}" y2="{y(v):.1f}" '
            f'stroke="{"#bbb" if i in (0, 10) else "#eee"}"/>'
        )
        if i % 2 == 0:
            parts.append(f'<text x="{left - 8}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>')
    base = rows[0].mean
    for r in rows:
        parts.append(
            f'<text x="{x(r.lam):.1f}" y="{top + plot_h + 18}" text-anchor="middle">{lam_text(r.lam)}</text>'
        )
        if r.delta is not None:
            lo, hi = base + r.delta.mean.low, base + r.delta.mean.high
            parts.append(
                f'<line x1="{x(r.lam):.1f}" y1="{y(lo):.1f}" x2="{x(r.lam):.1f}" y2="{y(hi):.1f}" '
                f'stroke="{PALETTE[0]}" stroke-width="2" opacity="0.5"/>'
            )
    pts = " ".join(f"{x(r.lam):.1f},{y(r.mean):.1f}" for r in rows)
    parts.append(f'<polyline points="{pts}" fill="none" stroke="{PALETTE[0]}" stroke-width="3"/>')
    parts += [
        f'<circle cx="{x(r.lam):.1f}" cy="{y(r.mean):.1f}" r="4" fill="{PALETTE[0]}">'
        f"<title>λ={lam_text(r.lam)}: {f3(r.mean)} (n={r.n_trials})</title></circle>"
        for r in rows
    ]
    parts.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle">'
        "λ (fault-injection rate)</text></svg>"
    )
    return "".join(parts)


def _fault_sections(a: Analysis) -> list[str]:
    if a.faults is None:
        return []
    out = [
        "<h2>Fault tolerance by λ</h2>",
        lambda_chart(a),
        _html(tables.faults(a)),
        f'<p class="note">{escape(FAULT_NOTE)}</p>',
    ]
    fclasses = tables.fault_classes(a)
    if fclasses.rows:
        out += ["<h2>Fault classes: which fault hurts most</h2>", _html(fclasses)]
    return out


def _html_cell(cell: Cell) -> str:
    """A shared-table cell as escaped HTML (an interval that excludes 0 gets a colour class;
    a brittle label names the prompts that failed every trial in a tooltip)."""
    if isinstance(cell, IntervalCell):
        body = escape(cell_text(cell))
        return f'<span class="{cell.direction}">{body}</span>' if cell.direction else body
    if isinstance(cell, LabelCell):
        label = escape(cell.label)
        if cell.label == "brittle":
            tip = escape("failed every trial: " + ", ".join(cell.always_failing))
            return f'<span class="brittle" title="{tip}">brittle</span>'
        return f'<span class="{label}">{label}</span>'
    if isinstance(cell, CodeCell):
        return f"<code>{escape(printable(cell.text))}</code>"
    return escape(printable(cell))


def _html(t: tables.Table) -> str:
    """A shared table (:mod:`perturb.report.formats.tables`) as an HTML table."""
    return _table(
        [escape(h) for h in t.flat_header()], [[_html_cell(c) for c in row] for row in t.rows], left=t.left
    )


def _sections(a: Analysis) -> list[str]:
    out = [
        "<h2>Scorecard</h2>",
        _html(tables.scorecard(a)),
        f'<p class="note">Δ = class minus canonical on matched tasks; '
        f"{int(round(a.level * 100))}% paired two-stage bootstrap interval (tasks, then trials) "
        f"(B={a.bootstrap}, seed {a.seed}). flaky: a task with a prompt that passed sometimes "
        "and failed sometimes; brittle: every prompt of the task behaved the same every time, "
        "but some always failed (the perturbation breaks it deterministically).</p>",
        *_fault_sections(a),
        "<h2>Change against canonical, with intervals</h2>",
        delta_chart(a),
        "<h2>pass^k curves</h2>",
        curve_chart(a),
        _html(tables.curve(a)),
        "<h2>pass@k and pass^k at the requested k</h2>",
        _html(tables.requested(a)),
        "<h2>Errored trials, worst variant, latency and cost</h2>",
        _html(tables.operations(a)),
    ]
    levels = tables.levels(a)
    if levels is not None:
        out += ["<h2>Success by intensity level (robustness curve)</h2>", _html(levels)]
    if a.worst:
        out += ["<h2>Worst tasks</h2>", _html(tables.tasks(a, a.worst))]
    if a.consistently_wrong:
        out += [
            "<h2>Consistently wrong (same wrong output every time)</h2>",
            _table(
                ["task", "class", "wrong", "output"],
                [
                    [
                        f"<code>{escape(r.task_id)}</code>",
                        escape(r.kind),
                        f"{r.wrong}/{r.n}",
                        f'<code class="out">{escape(r.wrong_output or "")}</code>',
                    ]
                    for r in a.consistently_wrong
                ],
                left=2,
            ),
        ]
    if a.drift:
        out += [
            "<h2>Possible meaning drift (re-review these variants)</h2>",
            _table(
                ["variant", "class", "passed", "canonical passed", "p"],
                [
                    [
                        f"<code>{escape(d.variant_id)}</code>",
                        escape(d.kind),
                        f"{d.passed}/{d.n}",
                        f"{d.canonical_passed}/{d.canonical_n}",
                        f"{d.p_value:.4f}",
                    ]
                    for d in a.drift
                ],
                left=2,
            ),
        ]
    brittle = tables.brittle(a)
    if brittle.rows:
        out += ["<h2>Brittle prompts (fail every trial; the task's other prompts pass)</h2>", _html(brittle)]
    for title, table in (
        ("Errored trials by cause", tables.causes(a)),
        (f"Failing prompts (the {tables.FAILING_PER_CLASS} worst per class)", tables.failing(a)),
        ("Trace divergence", tables.divergences(a)),
    ):
        if table.rows:
            out += [f"<h2>{escape(title)}</h2>", _html(table)]
    out += [
        f"<h2>Per task ({len(a.tasks)} rows)</h2>",
        _html(tables.tasks(a, a.tasks)),
        "<h2>Metric definitions</h2>",
        "<dl>"
        + "".join(f"<dt>{escape(name)}</dt><dd>{escape(text)}</dd>" for name, text in DEFINITIONS.items())
        + "</dl>",
    ]
    return out


def render_html(a: Analysis) -> str:
    """The report as one HTML document (no external resources)."""
    m = a.data.manifest
    head = headline(a)
    title = f"perturb reliability: {m.suite} / {m.run_id}"
    body = [
        f"<h1>{escape(title)}</h1>",
        f'<div class="meta">{escape(head[0])}<br>{escape(head[1])}</div>',
        *(f'<div class="warn">warning: {escape(w)}</div>' for w in a.warnings),
        f'<div class="lines">{escape(consistency_line(a))}<br>{escape(robustness_line(a))}'
        + (f"<br>{escape(line)}" if (line := faults_line(a)) else "")
        + "</div>",
        *_sections(a),
        *(f'<p class="note">note: {escape(n)}</p>' for n in a.notes),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


SPEC = FormatSpec(name="html", extension="html", render=render_html, aliases=("htm",), suffixes=(".htm",))
