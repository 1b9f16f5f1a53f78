"""A self-contained HTML report: inline CSS, SVG and one inline script, no network (a
Content-Security-Policy forbids loading anything).

Charts: per-class delta against canonical with its bootstrap interval (mean success and
pass^k), and the pass^k curves k = 1..K (colour, dash pattern and marker per class; curves
that coincide drawn a few pixels apart). Tables: scorecard, requested k, errored / worst
variant / latency / cost, intensity levels, worst tasks, consistently wrong, meaning drift,
brittle prompts, errored trials by cause, failing prompts, trace divergence, per task, metric
definitions. The explorer: class → task → prompt → trials (diff, expected, output, grader
note, trace, error) with failed / flaky / brittle / errored / class filters and a search box;
bounded to the sampled trials of :mod:`perturb.report.details` per prompt, each output cut at
``EXPLORER_OUTPUT_CHARS``.
"""

from __future__ import annotations

import math
from html import escape

from perturb.io.inert import printable
from perturb.records import CANONICAL
from perturb.report.aggregate import Analysis, Interval
from perturb.report.details import PromptDetail, TrialDetail
from perturb.report.divergence import trace_steps
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
from perturb.report.show import brittle_ids, char_level, pretty
from perturb.review.render import diff_ops

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
    offsets = _coincident_offsets([c.curve for c in a.classes])
    same: list[str] = []
    for i, c in enumerate(a.classes):
        color, dash, shape = PALETTE[i % len(PALETTE)], DASHES[i % len(DASHES)], MARKERS[i % len(MARKERS)]
        dy = offsets[i]
        if dy:
            same.append(c.kind)
        pts = " ".join(f"{x(k):.1f},{y(v) + dy:.1f}" for k, v in c.curve)
        stroke = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="3"{stroke}/>')
        parts += [_marker(shape, x(k), y(v) + dy, color) for k, v in c.curve]
        ly = top + 10 + i * 22
        lx = width - right + 8
        parts += [
            f'<line x1="{lx}" y1="{ly - 3}" x2="{lx + 30}" y2="{ly - 3}" stroke="{color}" '
            f'stroke-width="3"{stroke}/>',
            _marker(shape, lx + 15, ly - 3, color),
            f'<text x="{lx + 38}" y="{ly + 2}">{escape(c.kind)} '
            f"(n={escape(n_range(c.n_min, c.n_max))})</text>",
        ]
    if same:
        parts.append(
            f'<text x="{left}" y="{top - 6}" class="chart-note">coinciding curves drawn '
            f"{OFFSET_PX:g} px apart: {escape(', '.join(same))}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


DASHES = ("", "8 4", "2 3", "10 3 2 3", "5 5", "1 4", "12 4 2 4 2 4")
"""Stroke patterns of the curves, by class position (with the colour and the marker, three
ways to tell curves apart, so they stay distinguishable in grey and where they overlap)."""
MARKERS = ("circle", "square", "triangle", "diamond", "down", "cross", "plus")
OFFSET_PX = 4.0
"""Vertical distance between curves that coincide at every k."""


def _coincident_offsets(curves: list[list[tuple[int, float]]]) -> list[float]:
    """Per curve, the vertical offset in pixels: curves equal (to 4 decimals) at every k are
    spread ``OFFSET_PX`` apart around their true position; a curve of its own gets 0."""
    groups: dict[tuple[tuple[int, float], ...], list[int]] = {}
    for i, curve in enumerate(curves):
        groups.setdefault(tuple((k, round(v, 4)) for k, v in curve), []).append(i)
    out = [0.0] * len(curves)
    for members in groups.values():
        for j, i in enumerate(members):
            out[i] = (j - (len(members) - 1) / 2) * OFFSET_PX if len(members) > 1 else 0.0
    return out


def _marker(shape: str, cx: float, cy: float, color: str) -> str:
    """A data-point marker (SVG) of ``shape`` centred on (cx, cy)."""
    r = 4.5
    if shape == "circle":
        return f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r - 0.5}" fill="{color}"/>'
    if shape == "square":
        side = 2 * r - 1.6
        return (
            f'<rect x="{cx - side / 2:.1f}" y="{cy - side / 2:.1f}" width="{side:.1f}" '
            f'height="{side:.1f}" fill="{color}"/>'
        )
    if shape in ("cross", "plus"):
        d = r if shape == "plus" else r * 0.8
        lines = (
            [(cx - d, cy, cx + d, cy), (cx, cy - d, cx, cy + d)]
            if shape == "plus"
            else [(cx - d, cy - d, cx + d, cy + d), (cx - d, cy + d, cx + d, cy - d)]
        )
        return "".join(
            f'<line x1="{a:.1f}" y1="{b:.1f}" x2="{c:.1f}" y2="{e:.1f}" stroke="{color}" stroke-width="2.5"/>'
            for a, b, c, e in lines
        )
    pts = {
        "triangle": [(cx, cy - r), (cx + r, cy + r * 0.8), (cx - r, cy + r * 0.8)],
        "down": [(cx, cy + r), (cx + r, cy - r * 0.8), (cx - r, cy - r * 0.8)],
        "diamond": [(cx, cy - r - 0.5), (cx + r + 0.5, cy), (cx, cy + r + 0.5), (cx - r - 0.5, cy)],
    }[shape]
    return f'<polygon points="{" ".join(f"{px:.1f},{py:.1f}" for px, py in pts)}" fill="{color}"/>'


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


CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
"""Nothing outside the file may load: an output that smuggled markup past the escaping still
could not fetch or send anything."""

EXPLORER_TRIALS = "the first {sample} wrong and the first {sample} errored trials"
EXPLORER_OUTPUT_CHARS = 1000
"""An output, error or trace in the explorer is cut to this many characters."""

EXPLORER_CSS = """
#explorer details{margin:2px 0 2px 14px}#explorer summary{cursor:pointer}
#explorer .cls>summary{font-weight:600}
#explorer .prompt>summary code{font-size:12px}
.pbody{margin:4px 0 8px 14px;padding:6px 10px;border-left:3px solid #ddd}
.pbody pre,.trial pre{white-space:pre-wrap;word-break:break-word;background:#f7f7f7;padding:4px 6px;
margin:2px 0;font-size:12px;max-height:260px;overflow:auto}
.trial{margin:6px 0;padding:4px 0;border-top:1px dashed #e4e4e4}
.k{color:#666;font-size:12px;margin-right:6px}.gn{color:#8a4b00}.err{color:#c0392b}
del{background:#fbdada;text-decoration:line-through}ins{background:#d4f5d4;text-decoration:none}
#controls{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid #ddd;z-index:1}
#controls label{margin-right:10px}#q{width:260px}
.hidden{display:none}.chart-note{font-size:11px;fill:#666}
"""

EXPLORER_JS = """
(function(){
var q=document.getElementById('q'),cls=document.getElementById('cls'),count=document.getElementById('count');
var boxes=Array.prototype.slice.call(document.querySelectorAll('#controls input[type=checkbox]'));
function apply(){
  var text=q.value.toLowerCase();
  var want=boxes.filter(function(b){return b.checked}).map(function(b){return b.value});
  var active=text||want.length||cls.value,shown=0;
  document.querySelectorAll('#explorer .prompt').forEach(function(p){
    var flags=p.getAttribute('data-flags').split(' ');
    var ok=(!cls.value||p.getAttribute('data-class')===cls.value)
      &&want.every(function(w){return flags.indexOf(w)>=0})
      &&(!text||p.getAttribute('data-search').indexOf(text)>=0);
    p.classList.toggle('hidden',!ok);if(ok)shown++;
  });
  document.querySelectorAll('#explorer .task,#explorer .cls').forEach(function(g){
    var any=g.querySelector('.prompt:not(.hidden)')!==null;
    g.classList.toggle('hidden',!any);if(active&&any)g.open=true;
  });
  count.textContent=shown+' prompts shown';
}
q.addEventListener('input',apply);cls.addEventListener('change',apply);
boxes.forEach(function(b){b.addEventListener('change',apply)});apply();
})();
"""


def _diff_html(canonical: str, variant: str, kind: str) -> str:
    """The review diff (:func:`perturb.review.render.diff_ops`, character-level for typo) with
    ``<del>``/``<ins>``; every piece escaped, control characters shown as escapes."""
    out = []
    for op, old, new in diff_ops(canonical, variant, char_level=char_level(kind)):
        if op == "equal":
            out.append(escape(printable(new)))
            continue
        if old:
            out.append(f"<del>{escape(printable(old))}</del>")
        if new:
            out.append(f"<ins>{escape(printable(new))}</ins>")
    return "".join(out)


def _clip(text: str) -> str:
    n = EXPLORER_OUTPUT_CHARS
    return text if len(text) <= n else text[:n] + f"… (cut at {n} of {len(text)} characters)"


def _trial_html(t: TrialDetail) -> str:
    style = "err" if t.outcome != "passed" else ""
    parts = [
        f'<div class="trial"><span class="k">attempt {t.attempt}</span> <span class="{style}">'
        f'{escape(t.outcome)}</span> <span class="k">{t.latency_s:.2f}s</span>'
    ]
    if t.output is not None or t.outcome != "errored":
        output = escape(printable_block(_clip(pretty(t.output))))
        parts.append(f'<div><span class="k">output</span><pre class="out">{output}</pre></div>')
    if t.grader_note:
        note = escape(printable(_clip(t.grader_note)))
        parts.append(f'<div class="gn"><span class="k">grader note</span> {note}</div>')
    if t.error:
        kind, error = escape(printable(t.error_kind or "error")), escape(printable(_clip(t.error)))
        parts.append(f'<div class="err"><span class="k">error [{kind}]</span> {error}</div>')
    steps = trace_steps(t.trace)
    if steps:
        text = "\n".join(f"{i}. {step}" for i, step in enumerate(steps, 1))
        trace = escape(printable_block(_clip(text)))
        parts.append(f'<div><span class="k">trace</span><pre class="trace">{trace}</pre></div>')
    parts.append("</div>")
    return "".join(parts)


def printable_block(text: str) -> str:
    """Multi-line text with control characters escaped line by line (newlines kept)."""
    return "\n".join(printable(line) for line in text.split("\n"))


def _prompt_html(p: PromptDetail, brittle: set[str]) -> str:
    label = "brittle" if p.variant_id in brittle else p.label
    flags = [label]
    if p.failed:
        flags.append("failed")
    if p.errored:
        flags.append("errored")
    search = " ".join(
        [p.variant_id, p.prompt or ""]
        + [
            tables.output_text(t.output) + " " + (t.grader_note or "") + " " + (t.error or "")
            for t in p.failing
        ]
    ).lower()
    body = []
    if p.prompt is not None:
        if p.kind != CANONICAL and p.canonical_prompt is not None:
            canonical = escape(printable(p.canonical_prompt))
            body.append(f'<div><span class="k">canonical</span> {canonical}</div>')
            diff = _diff_html(p.canonical_prompt, p.prompt, p.kind)
            body.append(f'<div><span class="k">diff</span> {diff}</div>')
        body.append(f'<div><span class="k">prompt</span> {escape(printable(p.prompt))}</div>')
        expected = escape(printable(tables.output_text(p.expected)))
        body.append(f'<div><span class="k">expected</span> <code>{expected}</code></div>')
    for note, count in p.notes.most_common():
        body.append(
            f'<div class="gn"><span class="k">grader note ×{count}</span> {escape(printable(note))}</div>'
        )
    if p.divergence is not None:
        body.append(f'<div><span class="k">divergence</span> {escape(p.divergence.sentence())}</div>')
    body.extend(_trial_html(t) for t in p.failing)
    if p.passed == p.n:
        body.append('<div class="k">every trial passed</div>')
    elif p.failed > len(p.failing):
        body.append(f'<div class="k">{len(p.failing)} of {p.failed} failing trials shown</div>')
    return (
        f'<details class="prompt" data-class="{escape(p.kind)}" data-flags="{" ".join(flags)}" '
        f'data-search="{escape(printable(search))}"><summary><code>{escape(printable(p.variant_id))}</code> '
        f'{p.passed}/{p.n} passed <span class="{label}">{label}</span></summary>'
        f'<div class="pbody">{"".join(body)}</div></details>'
    )


def _explorer(a: Analysis) -> list[str]:
    """Class → task → prompt → trials, with filters and a search box (inline script; the
    page works offline and without it, every level then simply opens by hand)."""
    d = a.details
    if d is None or not d.prompts:
        return []
    brittle = brittle_ids(d.prompts)
    by_kind: dict[str, dict[str, list[PromptDetail]]] = {}
    for p in d.prompts.values():
        by_kind.setdefault(p.kind, {}).setdefault(p.task_id, []).append(p)
    blocks = []
    for c in a.classes:
        tasks_of = by_kind.get(c.kind, {})
        inner = []
        for task_id in sorted(tasks_of):
            prompts = sorted(tasks_of[task_id], key=lambda p: (p.passed / p.n, p.variant_id))
            passed = sum(p.passed for p in prompts)
            n = sum(p.n for p in prompts)
            tid = escape(printable(task_id))
            inner.append(
                f'<details class="task" data-task="{tid}"><summary>{tid} '
                f'<span class="k">{passed}/{n} passed, {len(prompts)} prompts</span></summary>'
                + "".join(_prompt_html(p, brittle) for p in prompts)
                + "</details>"
            )
        failing = sum(1 for ps in tasks_of.values() for p in ps if p.failed)
        blocks.append(
            f'<details class="cls" data-class="{escape(c.kind)}"><summary>{escape(c.kind)} '
            f'<span class="k">{len(tasks_of)} tasks, {failing} prompts with a failing trial</span></summary>'
            + "".join(inner)
            + "</details>"
        )
    options = "".join(f'<option value="{escape(c.kind)}">{escape(c.kind)}</option>' for c in a.classes)
    checks = "".join(
        f'<label><input type="checkbox" value="{f}" id="f-{f}"> {f}</label>'
        for f in ("failed", "flaky", "brittle", "errored")
    )
    bound = EXPLORER_TRIALS.format(sample=d.sample)
    return [
        "<h2>Explore: class → task → prompt → trials</h2>",
        f'<p class="note">Per prompt: {bound} (by attempt), outputs, errors and traces cut at '
        f"{EXPLORER_OUTPUT_CHARS} characters; every trial: "
        f"<code>perturb show {escape(printable(str(a.data.path)))} PROMPT</code>.</p>",
        f'<div id="controls"><input id="q" type="search" placeholder="search prompt text, outputs, notes"> '
        f'{checks}<select id="cls"><option value="">every class</option>{options}</select> '
        '<span id="count" class="k"></span></div>',
        f'<div id="explorer">{"".join(blocks)}</div>',
        f"<script>{EXPLORER_JS}</script>",
    ]


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
        *_explorer(a),
        *(f'<p class="note">note: {escape(n)}</p>' for n in a.notes),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<title>{escape(title)}</title><style>{CSS}{EXPLORER_CSS}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


SPEC = FormatSpec(name="html", extension="html", render=render_html, aliases=("htm",), suffixes=(".htm",))
