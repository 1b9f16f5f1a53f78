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
from perturb.report.aggregate import Analysis, Interval, TaskRow
from perturb.report.formats import (
    FAULT_NOTE,
    consistency_line,
    f3,
    fault_class_table,
    fault_table,
    faults_line,
    headline,
    interval,
    n_range,
    percent,
    robustness_line,
    seconds,
    signed,
    usd,
)
from perturb.report.formats.spec import FormatSpec

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


def _iv_text(iv: Interval | None) -> Text:
    if iv is None:
        return Text("-")
    style = "red" if iv.high < 0 else "green" if iv.low > 0 else ""
    return Text(interval(iv), style=style)


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


def _scorecard(a: Analysis) -> Table:
    k = a.k
    table = _table(
        "class",
        "tasks",
        "n",
        "mean",
        f"pass^{k}",
        "Δ mean [95%]",
        f"Δ pass^{k} [95%]",
        "flaky",
        "brittle",
        "errored",
        tight=True,
    )
    for c in a.classes:
        _row(
            table,
            c.kind,
            str(c.n_tasks),
            n_range(c.n_min, c.n_max),
            f3(c.mean),
            f3(c.pass_hat[k]),
            _iv_text(c.delta.mean if c.delta else None),
            _iv_text(c.delta.pass_hat[k] if c.delta else None),
            f"{c.flaky}/{c.n_tasks}",
            f"{c.brittle}/{c.n_tasks}",
            percent(c.errored_share),
        )
    return table


def _requested(a: Analysis) -> Table:
    cols = [name for kk in a.ks for name in (f"pass@{kk}", f"pass^{kk}")]
    table = _table("class", "n", *cols)
    for c in a.classes:
        vals = [f3(v) for kk in a.ks for v in (c.pass_at[kk], c.pass_hat[kk])]
        _row(table, c.kind, n_range(c.n_min, c.n_max), *vals)
    return table


def _curve(a: Analysis) -> Table:
    top = max(len(c.curve) for c in a.classes)
    table = _table("class", "n", *(f"k={kk}" for kk in range(1, top + 1)))
    for c in a.classes:
        values = [f3(v) for _, v in c.curve] + [""] * (top - len(c.curve))
        _row(table, c.kind, n_range(c.n_min, c.n_max), *values)
    return table


def _operations(a: Analysis) -> Table:
    k = a.k
    table = _table(
        "class",
        "errored",
        "mean\nw/o errored",
        f"pass^{k}\nw/o errored",
        "worst-variant\nmean",
        f"worst-variant\npass^{k}",
        "latency\np50",
        "latency\np95",
        "cost per\nattempt",
    )
    for c in a.classes:
        _row(
            table,
            c.kind,
            f"{c.errored}/{c.n_trials}",
            f3(c.excl_errored_mean),
            f3(c.excl_errored_pass_hat),
            f3(c.worst_variant_mean),
            f3(c.worst_variant_pass_hat),
            seconds(c.latency_p50),
            seconds(c.latency_p95),
            usd(c.cost_per_attempt),
        )
    return table


def _levels(a: Analysis) -> Table | None:
    rows = [(c.kind, lv) for c in a.classes for lv in c.levels]
    if not rows:
        return None
    table = _table("class", "level", "measured ε", "tasks", "trials", "mean", f"pass^{a.k}", "Δ mean")
    for kind, lv in rows:
        _row(
            table,
            kind,
            f"{lv.level:g}",
            f3(lv.epsilon),
            str(lv.n_tasks),
            str(lv.n_trials),
            f3(lv.mean),
            f3(lv.pass_hat),
            signed(lv.delta_mean),
        )
    return table


def task_table(a: Analysis, rows: list[TaskRow]) -> Table:
    """The per-case table for ``rows``: passed / wrong / errored counts, pass@1, pass@k,
    pass^k, whether every trial passed, and the label."""
    k = a.k
    table = _table(
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
        right_from=2,
    )
    for r in rows:
        _row(
            table,
            r.task_id,
            r.kind,
            f"{r.passed}/{r.n}",
            str(r.wrong),
            str(r.errored),
            f3(r.mean),
            f3(r.pass_at[k]),
            f3(r.pass_hat[k]),
            "yes" if r.all_passed else "no",
            Text(r.label, style=LABEL_STYLE[r.label]),
        )
    return table


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
        for r in brittle[:MAX_LIST_ROWS]:
            ids = [p.rpartition("/")[2] for p in r.always_failing]
            _row(
                table, r.task_id, r.kind, f"{r.passed}/{r.n}", f"{len(ids)} of {r.variants}: {', '.join(ids)}"
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
    sections = [
        _Section("scorecard", _scorecard(a)),
        _Section("pass@k and pass^k at the requested k", _requested(a)),
        _Section("pass^k curve", _curve(a)),
        _Section("errored trials, worst variant (HELM), latency and cost", _operations(a)),
    ]
    levels = _levels(a)
    if levels is not None:
        sections.append(_Section("success by intensity level (robustness curve)", levels))
    if a.faults is not None:
        header, rows = fault_table(a)
        table = _table(*header, tight=True)
        for row in rows:
            table.add_row(*row)
        sections.append(_Section("fault tolerance by λ", table))
        header, rows = fault_class_table(a)
        if rows:
            table = _table(*header)
            for row in rows:
                table.add_row(*row)
            sections.append(_Section("fault classes: which fault hurts most", table))
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
                    f"paired task-level bootstrap interval, B={a.bootstrap}",
                    style="dim",
                )
            )
            if matched:
                parts.append(Text(f"matched tasks: {matched}", style="dim"))
    if a.warnings or a.notes:
        parts.append(Text(""))
    for w in a.warnings:
        parts.append(Text(f"warning: {printable(w)}", style="yellow"))
    for note in a.notes:
        parts.append(Text(f"note: {printable(note)}", style="dim"))
    return Group(*parts)


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
