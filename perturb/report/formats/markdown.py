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
    n_range,
    percent,
    robustness_line,
    seconds,
    signed,
    usd,
)
from perturb.report.formats.spec import FormatSpec

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


def _iv(iv: Interval | None) -> str:
    if iv is None:
        return "-"
    mark = " ▼" if iv.high < 0 else " ▲" if iv.low > 0 else ""
    return interval(iv) + mark


def _details(summary: str, body: list[str]) -> list[str]:
    return ["", f"<details><summary>{summary}</summary>", "", *body, "", "</details>"]


def _task_rows(a: Analysis, rows: list[TaskRow]) -> list[str]:
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
                code(r.task_id),
                r.kind,
                f"{r.passed}/{r.n}",
                str(r.wrong),
                str(r.errored),
                f3(r.mean),
                f3(r.pass_at[k]),
                f3(r.pass_hat[k]),
                "yes" if r.all_passed else "no",
                r.label,
            ]
            for r in rows
        ],
        left=2,
    )


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
    out += _table(
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
                c.kind,
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
    )
    out += [
        "",
        f"Δ = class minus canonical on matched tasks, {int(round(a.level * 100))}% paired "
        f"task-level bootstrap interval (B={a.bootstrap}, seed {a.seed}); ▼ = the whole "
        "interval is below 0, ▲ = above. flaky = a task with a prompt that passed sometimes "
        "and failed sometimes; brittle = every prompt of the task behaved the same every time, "
        "but some always failed (the perturbation breaks it deterministically).",
    ]
    if a.faults is not None:
        fhead, frows = fault_table(a)
        out += ["", "### Fault tolerance by λ", "", *_table(fhead, frows), "", FAULT_NOTE]
        fhead, frows = fault_class_table(a)
        if frows:
            out += ["", "### Fault classes: which fault hurts most", "", *_table(fhead, frows)]
    if a.worst:
        out += ["", "### Worst tasks", "", *_task_rows(a, a.worst)]
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
    out += _details(
        "pass@k and pass^k at the requested k; the pass^k curve",
        [
            *_table(
                ["class", "n", *(f"{name}{kk}" for kk in a.ks for name in ("pass@", "pass^"))],
                [
                    [
                        c.kind,
                        n_range(c.n_min, c.n_max),
                        *(f3(v) for kk in a.ks for v in (c.pass_at[kk], c.pass_hat[kk])),
                    ]
                    for c in a.classes
                ],
            ),
            "",
            *_table(
                ["class", "n", *(f"k={kk}" for kk in range(1, max(len(c.curve) for c in a.classes) + 1))],
                [[c.kind, n_range(c.n_min, c.n_max), *(f3(v) for _, v in c.curve)] for c in a.classes],
            ),
        ],
    )
    out += _details(
        "Errored trials, worst variant, latency and cost",
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
                for c in a.classes
            ],
        ),
    )
    level_rows = [
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
    if level_rows:
        out += _details(
            "Success by intensity level (robustness curve)",
            _table(
                ["class", "level", "measured ε", "tasks", "trials", "mean", f"pass^{k}", "Δ mean"],
                level_rows,
            ),
        )
    tasks = a.tasks
    if len(tasks) > MAX_TASK_ROWS:
        tasks = sorted(tasks, key=lambda r: (r.pass_hat[k], r.mean, r.task_id, r.kind))
        tasks = tasks[:MAX_TASK_ROWS]
        title = f"Per task: the {MAX_TASK_ROWS} weakest of {len(a.tasks)} rows"
    else:
        title = f"Per task ({len(tasks)} rows)"
    out += _details(title, _task_rows(a, tasks) + _more(len(tasks), len(a.tasks)))
    out += _details("Metric definitions", [f"- **{name}**: {text}" for name, text in DEFINITIONS.items()])
    for note in a.notes:
        out += ["", f"_note: {text(note)}_"]
    return "\n".join(out) + "\n"


SPEC = FormatSpec(name="md", extension="md", render=render_markdown, aliases=("markdown",), suffixes=())
