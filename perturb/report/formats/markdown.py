"""The Markdown report, for PR comments and the GitHub Actions job summary
(``perturb report runs/<id> -f md >> "$GITHUB_STEP_SUMMARY"``).

Everything that comes from agents, tasks or manifests is inert here, through two functions
and nowhere else: :func:`code` (a code span whose backtick fence is longer than any run of
backticks inside, so nothing can close it early; inside a code span Markdown parses neither
links, images nor HTML) and :func:`text` (every Markdown punctuation character
backslash-escaped). Both escape control characters first (:func:`perturb.io.inert.printable`).
"""

from __future__ import annotations

import re

from perturb.io.inert import printable
from perturb.report.aggregate import Analysis
from perturb.report.formats import (
    DEFINITIONS,
    FAULT_NOTE,
    consistency_line,
    faults_line,
    headline,
    robustness_line,
    tables,
)
from perturb.report.formats.spec import FormatSpec
from perturb.report.formats.tables import Cell, CodeCell, IntervalCell, LabelCell, cell_text

MAX_TASK_ROWS = 300
"""Per-task rows in the Markdown report (GitHub caps a job summary at 1 MiB); the weakest
rows are kept when there are more."""
MAX_LIST_ROWS = 50


def _more(shown: int, total: int) -> list[str]:
    if shown == total:
        return []
    return ["", f"_{total - shown} more rows are in the JSON and HTML reports._"]


_BACKTICKS = re.compile(r"`+")
_PUNCTUATION = re.compile(r"([\\`*_\[\]<>!&|~])")


def code(value: str) -> str:
    """``value`` as an inert inline code span."""
    body = printable(value)
    fence = "`" * (max((len(m) for m in _BACKTICKS.findall(body)), default=0) + 1)
    pad = " " if body.startswith(("`", " ")) or body.endswith(("`", " ")) or not body else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def text(value: str) -> str:
    """``value`` as inert Markdown text: every punctuation character backslash-escaped."""
    return _PUNCTUATION.sub(r"\\\1", printable(value))


def _cell(value: str) -> str:
    """A table cell: a pipe would end the cell (GFM reads ``\\|`` as a pipe, code spans too)."""
    return value.replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[str]], left: int = 1) -> list[str]:
    align = [":--" if i < left else "--:" for i in range(len(header))]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return out


def _md_cell(cell: Cell) -> str:
    """A shared-table cell as inert Markdown; ▼/▲ mark an interval wholly below/above 0."""
    if isinstance(cell, IntervalCell):
        return cell_text(cell) + {"down": " ▼", "up": " ▲"}.get(cell.direction, "")
    if isinstance(cell, LabelCell):
        return text(cell.label)
    if isinstance(cell, CodeCell):
        return code(cell.text)
    return text(cell)


def _md(t: tables.Table) -> list[str]:
    """A shared table (:mod:`perturb.report.formats.tables`) as GitHub-flavoured Markdown."""
    return _table(t.flat_header(), [[_md_cell(c) for c in row] for row in t.rows], left=t.left)


def _details(summary: str, body: list[str]) -> list[str]:
    return ["", f"<details><summary>{summary}</summary>", "", *body, "", "</details>"]


def render_markdown(a: Analysis) -> str:
    """The report as GitHub-flavoured Markdown."""
    k = a.k
    m = a.data.manifest
    head = headline(a)
    out = [
        f"## perturb reliability: suite {code(m.suite)}, run {code(m.run_id)}",
        "",
        f"{code(head[0])}  ",
        f"{code(head[1])}",
        "",
    ]
    for w in a.warnings:
        out.append(f"> **warning:** {text(w)}  ")
    if a.warnings:
        out.append("")
    line = faults_line(a)
    out += [
        f"**{consistency_line(a)}**  ",
        f"{robustness_line(a)}" + ("  " if line else ""),
        *([line] if line else []),
        "",
    ]
    out += _md(tables.scorecard(a))
    out += [
        "",
        f"Δ = class minus canonical on matched tasks, {int(round(a.level * 100))}% paired "
        f"two-stage bootstrap interval (tasks, then trials; B={a.bootstrap}, seed {a.seed}); ▼ = the whole "
        "interval is below 0, ▲ = above. flaky = a task with a prompt that passed sometimes "
        "and failed sometimes; brittle = every prompt of the task behaved the same every time, "
        "but some always failed (the perturbation breaks it deterministically).",
    ]
    if a.faults is not None:
        out += ["", "### Fault tolerance by λ", "", *_md(tables.faults(a)), "", FAULT_NOTE]
        fclasses = tables.fault_classes(a)
        if fclasses.rows:
            out += ["", "### Fault classes: which fault hurts most", "", *_md(fclasses)]
    if a.worst:
        out += ["", "### Worst tasks", "", *_md(tables.tasks(a, a.worst))]
    flaky = [r for r in a.tasks if r.label == "flaky"]
    if flaky:
        more = f", and {len(flaky) - MAX_LIST_ROWS} more" if len(flaky) > MAX_LIST_ROWS else ""
        out += [
            "",
            f"**Flaky** ({len(flaky)}): "
            + ", ".join(f"{code(f'{r.task_id}/{r.kind}')} {r.passed}/{r.n}" for r in flaky[:MAX_LIST_ROWS])
            + more,
        ]
    brittle = [r for r in a.tasks if r.label == "brittle"]
    if brittle:
        more = f", and {len(brittle) - MAX_LIST_ROWS} more" if len(brittle) > MAX_LIST_ROWS else ""
        out += [
            "",
            f"**Brittle** ({len(brittle)}; prompts that fail every trial): "
            + ", ".join(
                f"{code(f'{r.task_id}/{r.kind}')} {len(r.always_failing)} of {r.variants}"
                for r in brittle[:MAX_LIST_ROWS]
            )
            + more,
        ]
        out += _details("Brittle prompts and their text", _md(tables.brittle(a)))
    if a.consistently_wrong:
        rows = sorted(a.consistently_wrong, key=lambda r: (-r.wrong / r.n, r.task_id, r.kind))
        out += ["", "### Consistently wrong (same wrong output every time)", ""]
        out += _table(
            ["task", "class", "wrong", "output"],
            [
                [
                    code(r.task_id),
                    r.kind,
                    f"{r.wrong}/{r.n}",
                    code(r.wrong_output) if r.wrong_output else "",
                ]
                for r in rows[:MAX_LIST_ROWS]
            ],
            left=2,
        )
        out += _more(min(len(rows), MAX_LIST_ROWS), len(rows))
    if a.drift:
        out += ["", "### Possible meaning drift (re-review these variants)", ""]
        out += _table(
            ["variant", "class", "passed", "canonical passed", "p"],
            [
                [
                    code(d.variant_id),
                    d.kind,
                    f"{d.passed}/{d.n}",
                    f"{d.canonical_passed}/{d.canonical_n}",
                    f"{d.p_value:.4f}",
                ]
                for d in a.drift[:MAX_LIST_ROWS]
            ],
            left=2,
        )
        out += _more(min(len(a.drift), MAX_LIST_ROWS), len(a.drift))
    out += _why(a)
    out += _details(
        "pass@k and pass^k at the requested k; the pass^k curve",
        [*_md(tables.requested(a)), "", *_md(tables.curve(a))],
    )
    out += _details("Errored trials, worst variant, latency and cost", _md(tables.operations(a)))
    levels = tables.levels(a)
    if levels is not None:
        out += _details("Success by intensity level (robustness curve)", _md(levels))
    tasks = a.tasks
    if len(tasks) > MAX_TASK_ROWS:
        tasks = sorted(tasks, key=lambda r: (r.pass_hat[k], r.mean, r.task_id, r.kind))
        tasks = tasks[:MAX_TASK_ROWS]
        title = f"Per task: the {MAX_TASK_ROWS} weakest of {len(a.tasks)} rows"
    else:
        title = f"Per task ({len(tasks)} rows)"
    out += _details(title, _md(tables.tasks(a, tasks)) + _more(len(tasks), len(a.tasks)))
    out += _details("Metric definitions", [f"- **{name}**: {text}" for name, text in DEFINITIONS.items()])
    for note in a.notes:
        out += ["", f"_note: {text(note)}_"]
    return "\n".join(out) + "\n"


def _why(a: Analysis) -> list[str]:
    """Errored trials by cause, then per class a collapsible list of its worst prompts with
    their text, expected value, a failing output and its grader note; the trace divergences."""
    d = a.details
    if d is None:
        return []
    out: list[str] = []
    cause_table = tables.causes(a)
    worst = tables.failing_prompts(a)
    div = tables.divergences(a)
    if not (cause_table.rows or worst or div.rows):
        return out
    out += ["", "### Why it failed", ""]
    out.append(
        f"Every trial of a prompt: {code(f'perturb show {a.data.path} PROMPT')}; the "
        f"{tables.FAILING_PER_CLASS} prompts with the fewest passes per class are below."
    )
    if cause_table.rows:
        out += ["", "**Errored trials by cause**", "", *_md(cause_table)]
    for kind, prompts in worst.items():
        body: list[str] = []
        for p in prompts:
            got, output, note = tables.first_failure(p)
            body.append(
                f"- {code(p.variant_id)} {p.passed}/{p.n} passed: {text(tables.snippet(p.prompt, 200))}"
            )
            if p.prompt is not None:
                body.append(f"  - expected {code(tables.snippet(tables.output_text(p.expected), 200))}")
            body.append(f"  - {got} {code(tables.snippet(output, 300))}")
            if note:
                body.append(f"  - grader: {text(tables.snippet(note, 300))}")
            if p.divergence is not None:
                body.append(f"  - trace: {text(p.divergence.sentence())}")
        failing = sum(1 for q in d.prompts.values() if q.kind == kind and q.failed)
        out += _details(
            f"{text(kind)}: {failing} prompt{'s' if failing != 1 else ''} with a failing trial", body
        )
    if div.rows:
        shown = div.rows[:MAX_LIST_ROWS]
        out += _details(
            f"Trace divergence ({len(div.rows)} prompt{'s' if len(div.rows) != 1 else ''})",
            _md(tables.Table(div.title, div.header, shown, div.left)) + _more(len(shown), len(div.rows)),
        )
    if d.note:
        out += ["", f"_note: {text(d.note)}_"]
    return out


SPEC = FormatSpec(name="md", extension="md", render=render_markdown, aliases=("markdown",), suffixes=())
