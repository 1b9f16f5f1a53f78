"""A self-contained HTML report: inline CSS and SVG, no script, no network.

Charts: per-class delta against canonical with its bootstrap interval (mean success and
pass^k), and the pass^k curves k = 1..K. Tables: scorecard, requested k, errored / worst
variant / latency / cost, intensity levels, worst tasks, consistently wrong, meaning drift,
per task, metric definitions.
"""

from __future__ import annotations

import math
from html import escape

from perturb.report.aggregate import Analysis, Interval, TaskRow
from perturb.report.formats import (
    DEFINITIONS,
    FAULT_NOTE,
    consistency_line,
    f3,
    fault_class_table,
    fault_table,
    faults_line,
    headline,
    interval,
    lam_text,
    n_range,
    percent,
    robustness_line,
    seconds,
    signed,
    usd,
)
from perturb.report.formats.spec import FormatSpec

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


def _iv(iv: Interval | None) -> str:
    if iv is None:
        return "-"
    cls = "down" if iv.high < 0 else "up" if iv.low > 0 else ""
    return f'<span class="{cls}">{escape(interval(iv))}</span>' if cls else escape(interval(iv))


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
    header, rows = fault_table(a)
    out = [
        "<h2>Fault tolerance by λ</h2>",
        lambda_chart(a),
        _table([escape(h) for h in header], [[escape(c) for c in row] for row in rows]),
        f'<p class="note">{escape(FAULT_NOTE)}</p>',
    ]
    header, rows = fault_class_table(a)
    if rows:
        out += [
            "<h2>Fault classes: which fault hurts most</h2>",
            _table([escape(h) for h in header], [[escape(c) for c in row] for row in rows]),
        ]
    return out


def _label(r: TaskRow) -> str:
    """The label, coloured; a brittle one names the prompts that failed every trial (tooltip)."""
    if r.label == "brittle":
        tip = escape("failed every trial: " + ", ".join(r.always_failing))
        return f'<span class="brittle" title="{tip}">brittle</span>'
    return f'<span class="{r.label}">{r.label}</span>'


def _task_table(a: Analysis, rows: list[TaskRow]) -> str:
    k = a.k
    return _table(
        [
            "task",
            "class",
            "passed",
            "wrong",
            "errored",
            "pass@1",
            f"pass@{k}",
            f"pass^{k}",
            "all passed",
            "label",
        ],
        [
            [
                f"<code>{escape(r.task_id)}</code>",
                escape(r.kind),
                f"{r.passed}/{r.n}",
                str(r.wrong),
                str(r.errored),
                f3(r.mean),
                f3(r.pass_at[k]),
                f3(r.pass_hat[k]),
                "yes" if r.all_passed else "no",
                _label(r),
            ]
            for r in rows
        ],
        left=2,
    )


def _sections(a: Analysis) -> list[str]:
    k = a.k
    out = [
        "<h2>Scorecard</h2>",
        _table(
            [
                "class",
                "tasks",
                "n",
                "mean",
                f"pass@{k}",
                f"pass^{k}",
                "Δ mean [95%]",
                f"Δ pass^{k} [95%]",
                "matched",
                "flaky",
                "brittle",
                "errored",
            ],
            [
                [
                    escape(c.kind),
                    str(c.n_tasks),
                    n_range(c.n_min, c.n_max),
                    f3(c.mean),
                    f3(c.pass_at[k]),
                    f3(c.pass_hat[k]),
                    _iv(c.delta.mean if c.delta else None),
                    _iv(c.delta.pass_hat[k] if c.delta else None),
                    str(c.delta.n_tasks) if c.delta else "-",
                    f"{c.flaky}/{c.n_tasks}",
                    f"{c.brittle}/{c.n_tasks}",
                    percent(c.errored_share),
                ]
                for c in a.classes
            ],
        ),
        f'<p class="note">Δ = class minus canonical on matched tasks; '
        f"{int(round(a.level * 100))}% paired task-level bootstrap interval "
        f"(B={a.bootstrap}, seed {a.seed}). flaky: a task with a prompt that passed sometimes "
        "and failed sometimes; brittle: every prompt of the task behaved the same every time, "
        "but some always failed (the perturbation breaks it deterministically).</p>",
        *_fault_sections(a),
        "<h2>Change against canonical, with intervals</h2>",
        delta_chart(a),
        "<h2>pass^k curves</h2>",
        curve_chart(a),
        _table(
            ["class", "n", *(f"k={kk}" for kk in range(1, max(len(c.curve) for c in a.classes) + 1))],
            [[escape(c.kind), n_range(c.n_min, c.n_max), *(f3(v) for _, v in c.curve)] for c in a.classes],
        ),
        "<h2>pass@k and pass^k at the requested k</h2>",
        _table(
            ["class", "n", *(f"{name}{kk}" for kk in a.ks for name in ("pass@", "pass^"))],
            [
                [
                    escape(c.kind),
                    n_range(c.n_min, c.n_max),
                    *(f3(v) for kk in a.ks for v in (c.pass_at[kk], c.pass_hat[kk])),
                ]
                for c in a.classes
            ],
        ),
        "<h2>Errored trials, worst variant, latency and cost</h2>",
        _table(
            [
                "class",
                "errored",
                "mean w/o errored",
                f"pass^{k} w/o errored",
                "worst-variant mean",
                f"worst-variant pass^{k}",
                "latency p50",
                "latency p95",
                "cost per attempt",
            ],
            [
                [
                    escape(c.kind),
                    f"{c.errored}/{c.n_trials}",
                    f3(c.excl_errored_mean),
                    f3(c.excl_errored_pass_hat),
                    f3(c.worst_variant_mean),
                    f3(c.worst_variant_pass_hat),
                    seconds(c.latency_p50),
                    seconds(c.latency_p95),
                    escape(usd(c.cost_per_attempt)),
                ]
                for c in a.classes
            ],
        ),
    ]
    level_rows = [
        [
            escape(c.kind),
            f"{lv.level:g}",
            f3(lv.epsilon),
            str(lv.n_tasks),
            str(lv.n_trials),
            f3(lv.mean),
            f3(lv.pass_hat),
            signed(lv.delta_mean),
        ]
        for c in a.classes
        for lv in c.levels
    ]
    if level_rows:
        out += [
            "<h2>Success by intensity level (robustness curve)</h2>",
            _table(
                ["class", "level", "measured ε", "tasks", "trials", "mean", f"pass^{k}", "Δ mean"], level_rows
            ),
        ]
    if a.worst:
        out += ["<h2>Worst tasks</h2>", _task_table(a, a.worst)]
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
    out += [
        f"<h2>Per task ({len(a.tasks)} rows)</h2>",
        _task_table(a, a.tasks),
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
