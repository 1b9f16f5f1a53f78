"""The report's tables, built once for every format.

Each builder returns a :class:`Table` whose cells are plain data: a ``str`` (untrusted text
such as task ids is allowed: every format escapes it), an :class:`IntervalCell` (a delta
with its interval, which formats mark or colour when it excludes 0), a :class:`LabelCell`
(a task's flaky/brittle/... label) or a :class:`CodeCell` (an id or output shown verbatim,
in code style where the format has one). A format only decides how a cell looks; which
columns exist, in which order, with which numbers, is decided here, so the text scorecard,
Markdown, HTML and the JSON-backed tables cannot disagree.

Header line breaks (``"mean\\nw/o errored"``) are hints for narrow formats (the terminal);
formats that wrap on their own replace them with a space (:meth:`Table.flat_header`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from perturb.report.aggregate import Analysis, Interval, TaskRow
from perturb.report.details import PromptDetail
from perturb.report.formats import f3, interval, lam_text, n_range, percent, seconds, signed, usd


@dataclass(frozen=True)
class IntervalCell:
    """A point estimate with its interval (None: no value, shown as ``-``)."""

    interval: Interval | None
    marked: bool = True
    """Whether a format marks an interval that excludes 0 (the fault table does not)."""

    @property
    def direction(self) -> str:
        """``down`` when the whole interval is below 0, ``up`` when above, else ``""``."""
        iv = self.interval
        if iv is None or not self.marked or not iv.reliable:
            return ""
        return "down" if iv.high < 0 else "up" if iv.low > 0 else ""


@dataclass(frozen=True)
class LabelCell:
    """A task's label (stable-pass, flaky, brittle, stable-fail) and the prompts that failed
    every trial (named in a tooltip or a note where the format has room)."""

    label: str
    always_failing: tuple[str, ...] = ()


@dataclass(frozen=True)
class CodeCell:
    """An identifier or an agent's output, shown verbatim (code style in Markdown/HTML)."""

    text: str


Cell = str | IntervalCell | LabelCell | CodeCell


@dataclass
class Table:
    """A titled table: a header, rows of cells, and how many leading columns are text
    (left-aligned; the rest are numbers, right-aligned)."""

    title: str
    header: list[str]
    rows: list[list[Cell]] = field(default_factory=list)
    left: int = 1

    def flat_header(self) -> list[str]:
        """The header with line-break hints replaced by spaces."""
        return [h.replace("\n", " ") for h in self.header]

    def without(self, *names: str) -> Table:
        """The same table without the named columns (the terminal drops a few to fit)."""
        keep = [i for i, h in enumerate(self.header) if h not in names]
        left = sum(1 for i in keep if i < self.left)
        return Table(
            self.title,
            [self.header[i] for i in keep],
            [[row[i] for i in keep] for row in self.rows],
            left,
        )


def cell_text(cell: Cell) -> str:
    """A cell as plain text (not escaped: the caller escapes for its format)."""
    if isinstance(cell, IntervalCell):
        iv = cell.interval
        return interval(iv)
    if isinstance(cell, LabelCell):
        return cell.label
    if isinstance(cell, CodeCell):
        return cell.text
    return cell


def scorecard(a: Analysis) -> Table:
    """One row per class: tasks, n, mean, pass@k, pass^k, Δ vs canonical with intervals,
    matched tasks, flaky and brittle tasks, errored share."""
    k = a.k
    table = Table(
        "scorecard",
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
    )
    for c in a.classes:
        table.rows.append(
            [
                c.kind,
                str(c.n_tasks),
                n_range(c.n_min, c.n_max),
                f3(c.mean),
                f3(c.pass_at[k]),
                f3(c.pass_hat[k]),
                IntervalCell(c.delta.mean if c.delta else None),
                IntervalCell(c.delta.pass_hat[k] if c.delta else None),
                str(c.delta.n_tasks) if c.delta else "-",
                f"{c.flaky}/{c.n_tasks}",
                f"{c.brittle}/{c.n_tasks}",
                percent(c.errored_share),
            ]
        )
    return table


def requested(a: Analysis) -> Table:
    """pass@k and pass^k of every class at each requested k."""
    table = Table(
        "pass@k and pass^k at the requested k",
        ["class", "n", *(f"{name}{kk}" for kk in a.ks for name in ("pass@", "pass^"))],
    )
    for c in a.classes:
        values = [f3(v) for kk in a.ks for v in (c.pass_at[kk], c.pass_hat[kk])]
        table.rows.append([c.kind, n_range(c.n_min, c.n_max), *values])
    return table


def curve(a: Analysis) -> Table:
    """The pass^k curve of every class, k = 1..K (a shorter curve leaves its cells empty)."""
    top = max(len(c.curve) for c in a.classes)
    table = Table("pass^k curve", ["class", "n", *(f"k={kk}" for kk in range(1, top + 1))])
    for c in a.classes:
        values = [f3(v) for _, v in c.curve] + [""] * (top - len(c.curve))
        table.rows.append([c.kind, n_range(c.n_min, c.n_max), *values])
    return table


def operations(a: Analysis) -> Table:
    """Errored trials, figures without errored trials, worst variant, latency and cost."""
    k = a.k
    table = Table(
        "errored trials, worst variant (HELM), latency and cost",
        [
            "class",
            "errored",
            "mean\nw/o errored",
            f"pass^{k}\nw/o errored",
            "worst-variant\nmean",
            f"worst-variant\npass^{k}",
            "latency\np50",
            "latency\np95",
            "cost per\nattempt",
        ],
    )
    for c in a.classes:
        table.rows.append(
            [
                c.kind,
                f"{c.errored}/{c.n_trials}",
                f3(c.excl_errored_mean),
                f3(c.excl_errored_pass_hat),
                f3(c.worst_variant_mean),
                f3(c.worst_variant_pass_hat),
                seconds(c.latency_p50),
                seconds(c.latency_p95),
                usd(c.cost_per_attempt),
            ]
        )
    return table


def levels(a: Analysis) -> Table | None:
    """Success by intensity level (the robustness curve); None when no class has levels."""
    rows: list[list[Cell]] = [
        [
            c.kind,
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
    if not rows:
        return None
    header = ["class", "level", "measured ε", "tasks", "trials", "mean", f"pass^{a.k}", "Δ mean"]
    return Table("success by intensity level (robustness curve)", header, rows)


def tasks(a: Analysis, rows: list[TaskRow], title: str = "per task") -> Table:
    """One row per (task, class): passed / wrong / errored counts, pass@1, pass@k, pass^k,
    whether every trial passed, and the label."""
    k = a.k
    table = Table(
        title,
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
        left=2,
    )
    for r in rows:
        table.rows.append(
            [
                CodeCell(r.task_id),
                r.kind,
                f"{r.passed}/{r.n}",
                str(r.wrong),
                str(r.errored),
                f3(r.mean),
                f3(r.pass_at[k]),
                f3(r.pass_hat[k]),
                "yes" if r.all_passed else "no",
                LabelCell(r.label, tuple(r.always_failing)),
            ]
        )
    return table


def faults(a: Analysis) -> Table:
    """Fault tolerance by λ: success and Δ vs λ=0 with intervals, calls, faulted and early
    calls, give-ups and duplicated side effects (empty when the run injected no faults)."""
    k = a.k
    table = Table(
        "fault tolerance by λ",
        [
            "λ",
            "tasks",
            "n",
            "mean",
            f"pass^{k}",
            "Δ mean [95%]",
            f"Δ pass^{k} [95%]",
            "calls",
            "faulted",
            "early",
            "give-ups",
            "dups",
        ],
    )
    for r in a.faults.lambdas if a.faults else []:
        table.rows.append(
            [
                lam_text(r.lam),
                str(r.n_tasks),
                n_range(r.n_min, r.n_max),
                f3(r.mean),
                f3(r.pass_hat.get(k)),
                IntervalCell(r.delta.mean if r.delta else None, marked=False),
                IntervalCell(r.delta.pass_hat.get(k) if r.delta else None, marked=False),
                str(r.calls),
                str(r.faulted_calls),
                str(r.early_calls),
                str(r.give_up_trials),
                str(r.duplicates),
            ]
        )
    return table


def fault_classes(a: Analysis) -> Table:
    """Per fault class, worst first: success of λ>0 trials that met it vs those that met none."""
    table = Table(
        "fault classes: which fault hurts most",
        ["fault", "tasks", "trials met", "success met", "trials no fault", "success no fault", "Δ"],
    )
    for r in a.faults.by_class if a.faults else []:
        table.rows.append(
            [
                r.fault,
                str(r.n_tasks),
                str(r.n_met),
                f3(r.met_mean),
                str(r.n_clean),
                f3(r.clean_mean),
                signed(r.delta),
            ]
        )
    return table


SNIPPET_CHARS = 60
"""Prompt text shown next to an id in lists (gate, brittle, failing prompts)."""
FAILING_PER_CLASS = 5
"""Prompts per class in the failing-examples table: those with the fewest passes."""
EXAMPLE_OUTPUT_CHARS = 300
"""A failing output or error in the failing-examples table is cut to this many characters."""


def snippet(text: str | None, limit: int = SNIPPET_CHARS) -> str:
    """The start of a prompt on one line (whitespace runs as one space, ``…`` marks a cut)."""
    if text is None:
        return "(text unavailable)"
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _short(text: str, limit: int = EXAMPLE_OUTPUT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def output_text(value: object) -> str:
    """An output as one line of compact JSON (a string as itself)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def causes(a: Analysis) -> Table:
    """Errored trials per class grouped by cause (:mod:`perturb.run.causes`): trials, kind,
    cause, prompts and one example (empty when nothing errored or details were not read)."""
    table = Table(
        "errored trials by cause", ["class", "kind", "cause", "trials", "prompts", "example"], left=3
    )
    if a.details is None:
        return table
    for kind in [c.kind for c in a.classes]:
        for c in a.details.causes.get(kind, []):
            example = f"{c.example_variant} attempt {c.example_attempt}: {c.example}"
            table.rows.append(
                [
                    kind,
                    c.kind,
                    CodeCell(_short(c.key)),
                    str(c.count),
                    str(len(c.variants)),
                    CodeCell(_short(example)),
                ]
            )
    return table


def failing_prompts(a: Analysis) -> dict[str, list[PromptDetail]]:
    """Per class (report order): its prompts with a failing trial, fewest passes first, at most
    ``FAILING_PER_CLASS``."""
    out: dict[str, list[PromptDetail]] = {}
    if a.details is None:
        return out
    by_kind: dict[str, list[PromptDetail]] = {}
    for p in a.details.prompts.values():
        if p.failed:
            by_kind.setdefault(p.kind, []).append(p)
    for c in a.classes:
        rows = sorted(by_kind.get(c.kind, []), key=lambda p: (p.passed / p.n, -p.errored, p.variant_id))
        if rows:
            out[c.kind] = rows[:FAILING_PER_CLASS]
    return out


def task_failures(a: Analysis, task_id: str, kind: str) -> list[PromptDetail]:
    """The prompts of one task in one class with a failing trial, fewest passes first."""
    return [] if a.details is None else a.details.failing_of(task_id, kind)


def first_failure(p: PromptDetail) -> tuple[str, str, str]:
    """(``got`` or ``error``, the output or ``[kind] error``, the grader note) of a prompt's
    first failing trial (empty strings when none is kept)."""
    if not p.failing:
        return "got", "", ""
    t = p.failing[0]
    if t.outcome == "errored":
        return "error", f"[{t.error_kind or 'error'}] {t.error or ''}", ""
    return "got", output_text(t.output), t.grader_note or ""


def failing(a: Analysis) -> Table:
    """The worst prompts of each class: id, passed, prompt text, expected, a failing output (or
    error) and its grader note."""
    table = Table(
        "failing prompts (worst first, per class)",
        ["class", "prompt", "passed", "text", "expected", "failing output", "grader note"],
        left=2,
    )
    for kind, prompts in failing_prompts(a).items():
        for p in prompts:
            _, output, note = first_failure(p)
            table.rows.append(
                [
                    kind,
                    CodeCell(p.variant_id),
                    f"{p.passed}/{p.n}",
                    snippet(p.prompt, 120),
                    CodeCell("-" if p.prompt is None else _short(output_text(p.expected), 120)),
                    CodeCell(_short(output)),
                    _short(note),
                ]
            )
    return table


def divergences(a: Analysis) -> Table:
    """Prompts whose failing traces part from passing ones: where (see
    :mod:`perturb.report.divergence`)."""
    table = Table("trace divergence", ["prompt", "class", "passed", "divergence"], left=2)
    if a.details is None:
        return table
    order = {c.kind: i for i, c in enumerate(a.classes)}
    rows = [p for p in a.details.prompts.values() if p.divergence is not None]
    rows.sort(key=lambda p: (order.get(p.kind, len(order)), p.passed / p.n, p.variant_id))
    for p in rows:
        assert p.divergence is not None
        table.rows.append([CodeCell(p.variant_id), p.kind, f"{p.passed}/{p.n}", p.divergence.sentence()])
    return table


def brittle(a: Analysis) -> Table:
    """Brittle tasks: the prompts failing every trial, each with its text, while the task's
    other prompts of the class pass every trial."""
    table = Table(
        "brittle prompts", ["task", "class", "passed", "prompt failing every trial", "text"], left=2
    )
    prompts = a.details.prompts if a.details is not None else {}
    for r in a.tasks:
        if r.label != "brittle":
            continue
        for vid in r.always_failing:
            p = prompts.get(vid)
            table.rows.append(
                [
                    CodeCell(r.task_id),
                    r.kind,
                    f"{r.passed}/{r.n}",
                    CodeCell(vid),
                    snippet(p.prompt if p else None),
                ]
            )
    return table
