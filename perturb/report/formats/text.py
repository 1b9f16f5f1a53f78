"""The terminal scorecard (rich): one row per class, read across, not down.

Untrusted text (manifest fields, task and variant ids, outputs, warnings that quote them) goes
through :func:`perturb.io.inert.printable` and into ``Text`` objects, never rich markup, so an
``ESC`` or ``[bold]`` from an agent prints as ``\x1b`` or literally."""

from __future__ import annotations

import io

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from perturb.io.inert import printable
from perturb.report.aggregate import Analysis, TaskRow
from perturb.report.formats import (
    FAULT_NOTE,
    consistency_line,
    faults_line,
    headline,
    robustness_line,
    tables,
)
from perturb.report.formats.spec import FormatSpec
from perturb.report.formats.tables import Cell, IntervalCell, LabelCell, cell_text
from perturb.run.causes import cause_lines

MAX_TASK_ROWS = 60
"""Above this many task rows the text report lists only the weakest rows that are not
stable-pass, at most this many (a terminal is not the place for thousands of rows)."""

MAX_LIST_ROWS = 20
"""Rows of the consistently-wrong and meaning-drift lists in the text report."""

LABEL_STYLE = {"stable-pass": "green", "flaky": "yellow", "brittle": "magenta", "stable-fail": "red"}


def _row(table: Table, *cells: RenderableType) -> None:
    """Add a row; text cells are taken literally (no rich markup) with control characters
    escaped -- task ids, variant ids and outputs come from files and agents."""
    table.add_row(*(Text(printable(c)) if isinstance(c, str) else c for c in cells))


class _Section:
    """A bold heading line above a table."""

    def __init__(self, title: str, table: Table) -> None:
        self.title, self.table = title, table

    def parts(self) -> list[RenderableType]:
        return [Text(""), Text(self.title, style="bold"), self.table]


def _table(*columns: str, right_from: int = 1, tight: bool = False) -> Table:
    """A table with a rule under the header; ``tight``: two spaces between columns, not three
    (the scorecard, so that its ten columns fit 120 characters)."""
    table = Table(
        box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, padding=(0, 1, 0, 0) if tight else (0, 1)
    )
    for i, col in enumerate(columns):
        table.add_column(col, justify="right" if i >= right_from else "left", no_wrap=True)
    return table


def _cell(cell: Cell) -> RenderableType:
    """A shared-table cell as rich text (literal, control characters escaped)."""
    text = printable(cell_text(cell))
    if isinstance(cell, IntervalCell):
        return Text(text, style={"down": "red", "up": "green"}.get(cell.direction, ""))
    if isinstance(cell, LabelCell):
        return Text(text, style=LABEL_STYLE.get(cell.label, ""))
    return Text(text)


def _rich(t: tables.Table, tight: bool = False) -> Table:
    """A shared table (:mod:`perturb.report.formats.tables`) as a rich table."""
    table = _table(*t.header, right_from=t.left, tight=tight)
    for row in t.rows:
        table.add_row(*(_cell(c) for c in row))
    return table


def task_table(a: Analysis, rows: list[TaskRow]) -> Table:
    """The per-case table for ``rows`` (see :func:`perturb.report.formats.tables.tasks`)."""
    return _rich(tables.tasks(a, rows))


def _more(shown: int, total: int) -> str:
    return "" if shown == total else f" (the first {shown} of {total}; all in the JSON and HTML)"


def _lists(a: Analysis) -> list[_Section]:
    out: list[_Section] = []
    if a.consistently_wrong:
        rows = sorted(a.consistently_wrong, key=lambda r: (-r.wrong / r.n, r.task_id, r.kind))
        table = _table("task", "class", "wrong", "output", right_from=2)
        table.columns[3].justify = "left"
        for r in rows[:MAX_LIST_ROWS]:
            _row(table, r.task_id, r.kind, f"{r.wrong}/{r.n}", r.wrong_output or "")
        out.append(
            _Section(
                "consistently wrong: the same wrong output every time"
                + _more(min(len(rows), MAX_LIST_ROWS), len(rows)),
                table,
            )
        )
    brittle = [r for r in a.tasks if r.label == "brittle"]
    if brittle:
        table = _table("task", "class", "passed", "prompts failing every trial", right_from=2)
        table.columns[3].justify = "left"
        texts = a.details.prompts if a.details is not None else {}
        for r in brittle[:MAX_LIST_ROWS]:
            for i, vid in enumerate(r.always_failing):
                p = texts.get(vid)
                shown = vid.rpartition("/")[2] + (f' "{tables.snippet(p.prompt, 40)}"' if p else "")
                if i == 0:
                    _row(
                        table,
                        r.task_id,
                        r.kind,
                        f"{r.passed}/{r.n}",
                        f"{len(r.always_failing)} of {r.variants}: {shown}",
                    )
                else:
                    _row(
                        table, "", "", "", f"{'':>{len(f'{len(r.always_failing)} of {r.variants}: ')}}{shown}"
                    )
        out.append(
            _Section(
                "brittle: some prompts of the task fail every trial, the others pass every trial"
                + _more(min(len(brittle), MAX_LIST_ROWS), len(brittle)),
                table,
            )
        )
    if a.drift:
        table = _table("variant", "class", "passed", "canonical passed", "p", right_from=2)
        for d in a.drift[:MAX_LIST_ROWS]:
            _row(
                table,
                d.variant_id,
                d.kind,
                f"{d.passed}/{d.n}",
                f"{d.canonical_passed}/{d.canonical_n}",
                f"{d.p_value:.4f}",
            )
        out.append(
            _Section(
                "possible meaning drift: variants that clearly beat their canonical prompt "
                "(re-review them)" + _more(min(len(a.drift), MAX_LIST_ROWS), len(a.drift)),
                table,
            )
        )
    return out


def scorecard(a: Analysis) -> Group:
    """The whole text report as one rich renderable."""
    head = headline(a)
    card = tables.scorecard(a).without(f"pass@{a.k}", "matched")
    shared = [card, tables.requested(a), tables.curve(a), tables.operations(a), tables.levels(a)]
    if a.faults is not None:
        shared.append(tables.faults(a))
        shared.append(tables.fault_classes(a))
    sections = [
        _Section(t.title, _rich(t, tight=t.title in ("scorecard", "fault tolerance by λ")))
        for t in shared
        if t is not None and (t.rows or t.title == "scorecard")
    ]
    if a.worst:
        sections.append(_Section("worst tasks", task_table(a, a.worst)))
    sections.extend(_lists(a))
    if len(a.tasks) <= MAX_TASK_ROWS:
        sections.append(_Section("per task", task_table(a, a.tasks)))
    else:
        shown = sorted(
            (r for r in a.tasks if r.label != "stable-pass"),
            key=lambda r: (r.pass_hat[a.k], r.mean, r.task_id, r.kind),
        )
        which = (
            f"the {len(shown)} rows"
            if len(shown) <= MAX_TASK_ROWS
            else f"the {MAX_TASK_ROWS} weakest of the {len(shown)} rows"
        )
        sections.append(
            _Section(
                f"per task: {which} that are not stable-pass (all {len(a.tasks)} rows are in the "
                "JSON, Markdown, JUnit and HTML reports)",
                task_table(a, shown[:MAX_TASK_ROWS]),
            )
        )
    matched = ", ".join(f"{c.kind} {c.delta.n_tasks}" for c in a.classes if c.delta)
    parts: list[RenderableType] = [
        Text("RELIABILITY  " + printable(head[0]), style="bold"),
        Text(printable(head[1])),
        Text(""),
        Text(consistency_line(a)),
        Text(robustness_line(a)),
    ]
    line = faults_line(a)
    if line is not None:
        parts.append(Text(line))
    for i, section in enumerate(sections):
        parts.extend(section.parts())
        if section.title == "fault tolerance by λ":
            parts.append(Text(FAULT_NOTE, style="dim"))
        if i == 0:
            parts.append(
                Text(
                    f"Δ = class minus canonical on matched tasks; {int(round(a.level * 100))}% "
                    f"paired two-stage bootstrap interval (tasks, then trials), B={a.bootstrap}",
                    style="dim",
                )
            )
            if matched:
                parts.append(Text(f"matched tasks: {matched}", style="dim"))
    parts.extend(_failure_parts(a))
    if a.warnings or a.notes:
        parts.append(Text(""))
    for w in a.warnings:
        parts.append(Text(f"warning: {printable(w)}", style="yellow"))
    for note in a.notes:
        parts.append(Text(f"note: {printable(note)}", style="dim"))
    parts.extend(_summary_parts(a))
    return Group(*parts)


def _failure_parts(a: Analysis) -> list[RenderableType]:
    """Errored trials by cause per class, the worst failing prompts with their text, expected
    value and a failing output, and the trace divergences."""
    d = a.details
    if d is None:
        return []
    run = printable(str(a.data.path))
    parts: list[RenderableType] = []
    if d.causes:
        parts += [Text(""), Text("errored trials by cause", style="bold")]
        for c in a.classes:
            found = d.causes.get(c.kind)
            if found:
                parts.append(Text(f"{c.kind}:"))
                parts.extend(Text(line) for line in cause_lines(found))
        parts.append(Text(f"every errored trial: perturb show {run} --errored", style="dim"))
    worst = tables.failing_prompts(a)
    if worst:
        parts += [
            Text(""),
            Text(
                f"failing prompts (the {tables.FAILING_PER_CLASS} worst per class; "
                f"every trial: perturb show {run} PROMPT)",
                style="bold",
            ),
        ]
        for kind, prompts in worst.items():
            for p in prompts:
                got, output, note = tables.first_failure(p)
                parts.append(Text(f"  {printable(p.variant_id)}  {p.passed}/{p.n} passed  {kind}"))
                parts.append(Text(f"      text: {printable(tables.snippet(p.prompt, 100))}"))
                if p.prompt is not None:
                    expected = tables.output_text(p.expected)
                    parts.append(Text(f"      expected: {printable(tables.snippet(expected, 100))}"))
                parts.append(Text(f"      {got}: {printable(tables.snippet(output, 100))}"))
                if note:
                    parts.append(Text(f"      grader: {printable(tables.snippet(note, 100))}"))
    div = tables.divergences(a)
    if div.rows:
        parts += [Text(""), Text("trace divergence (earliest step where failing trials part)", style="bold")]
        for row in div.rows[:MAX_LIST_ROWS]:
            parts.append(Text(f"  {printable(cell_text(row[0]))}  {row[2]}: {printable(cell_text(row[3]))}"))
        if len(div.rows) > MAX_LIST_ROWS:
            parts.append(Text(f"  ... {len(div.rows) - MAX_LIST_ROWS} more in the JSON and HTML reports"))
    if d.note:
        parts.append(Text(f"note: {printable(d.note)}", style="dim"))
    return parts


def _summary_parts(a: Analysis) -> list[RenderableType]:
    """The closing block: what a reader who scrolled past everything needs."""
    lines = [consistency_line(a), robustness_line(a)]
    deltas = [c for c in a.classes if c.delta is not None]
    if deltas:
        worst = min(deltas, key=lambda c: (c.delta.mean.point if c.delta else 0.0, c.kind))
        assert worst.delta is not None
        lines.append(
            f"largest drop: {worst.kind} Δ mean {tables.cell_text(tables.IntervalCell(worst.delta.mean))} "
            f"on {worst.delta.n_tasks} matched tasks"
        )
    flaky = sum(c.flaky for c in a.classes)
    brittle = sum(c.brittle for c in a.classes)
    lines.append(f"tasks × classes: {flaky} flaky, {brittle} brittle (of {len(a.tasks)})")
    d = a.details
    if d is not None:
        failing = sum(1 for p in d.prompts.values() if p.failed)
        errored = sum(p.errored for p in d.prompts.values())
        lines.append(
            f"prompts with a failing trial: {failing} of {len(d.prompts)}; "
            f"errored trials: {errored} of {a.n_trials}"
        )
        if failing:
            lines.append(f"why: perturb show {a.data.path} --failed")
    return [Text(""), Text("summary", style="bold"), *(Text("  " + printable(line)) for line in lines)]


def render_text(a: Analysis, width: int = 120) -> str:
    """The scorecard as plain text (no colour), ``width`` columns."""
    buf = io.StringIO()
    console = Console(
        file=buf, width=width, color_system=None, force_terminal=False, legacy_windows=False, soft_wrap=False
    )
    console.print(scorecard(a))
    return "\n".join(line.rstrip() for line in buf.getvalue().splitlines()) + "\n"


def print_text(a: Analysis, console: Console | None = None) -> None:
    """Print the scorecard to the terminal (colour when it is one)."""
    console = console or Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 120), color_system=None)
    console.print(scorecard(a))


SPEC = FormatSpec(name="text", extension="txt", render=render_text, aliases=("txt",), suffixes=())
