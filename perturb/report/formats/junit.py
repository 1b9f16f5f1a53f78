"""JUnit XML: one testsuite per class, one testcase per task x class.

A testcase passes when every trial passed. Otherwise it carries a ``<failure>`` (some trials
were wrong; ``type`` is the label: ``flaky``, ``brittle`` or ``stable-fail``) or, when every
failure is an errored trial, an ``<error type="errored">`` (platform trouble, not agent
behaviour). The message holds the counts; flaky testcases also get the property
``flaky=true`` (the marker CI test views use to tell flaky tests apart), brittle ones the
property ``always_failing`` (the prompts that failed every trial) and a failure whose text
names them. Written as text (not
through a DOM) so ten thousands of testcases render in well under a second.
"""

from __future__ import annotations

import re
from xml.sax import saxutils

from perturb.io.inert import printable
from perturb.report.aggregate import Analysis, TaskRow
from perturb.report.details import PromptDetail
from perturb.report.formats import f3, interval, lam_text, tables
from perturb.report.formats.spec import FormatSpec

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def quoteattr(text: str) -> str:
    """An XML attribute value, quoted; characters XML 1.0 cannot hold become U+FFFD."""
    return saxutils.quoteattr(_NOT_XML.sub("\ufffd", text))


def escape(text: str) -> str:
    """XML character data; characters XML 1.0 cannot hold become U+FFFD."""
    return saxutils.escape(_NOT_XML.sub("\ufffd", text))


def _props(items: list[tuple[str, str]], indent: str) -> list[str]:
    out = [f"{indent}<properties>"]
    out += [f"{indent}  <property name={quoteattr(n)} value={quoteattr(v)}/>" for n, v in items]
    out.append(f"{indent}</properties>")
    return out


def _message(a: Analysis, r: TaskRow) -> str:
    k = a.k
    return (
        f"{r.label}: {r.passed}/{r.n} passed, {r.wrong} wrong, {r.errored} errored; "
        f"pass@1 {f3(r.mean)}, pass@{k} {f3(r.pass_at[k])}, pass^{k} {f3(r.pass_hat[k])}"
    )


JUNIT_PROMPTS = 3
"""Failing prompts of a testcase written out in full in its failure text (worst first)."""


def _example(p: PromptDetail, *, short: bool) -> str:
    """A failing prompt: its id, text, expected value, a failing output (or error) and grader
    note; one line (``short``, for the message attribute) or one line each. Control and bidi
    characters are escaped."""
    got, output, note = tables.first_failure(p)
    limit = 80 if short else 1000
    parts = [
        f"prompt {p.variant_id} ({p.passed}/{p.n} passed): {tables.snippet(p.prompt, limit)}",
        *([] if p.prompt is None else [f"expected: {tables.snippet(tables.output_text(p.expected), limit)}"]),
        f"{got}: {tables.snippet(output, limit)}",
        *([f"grader: {tables.snippet(note, limit)}"] if note else []),
        *([f"trace: {p.divergence.sentence()}"] if p.divergence is not None and not short else []),
    ]
    return ("; " if short else "\n").join(printable(part) for part in parts)


def _case(a: Analysis, classname: str, r: TaskRow) -> tuple[list[str], int, int]:
    props = [
        ("label", r.label),
        ("passed", str(r.passed)),
        ("wrong", str(r.wrong)),
        ("errored", str(r.errored)),
        ("n", str(r.n)),
        ("prompts", str(r.variants)),
        ("pass@1", f3(r.mean)),
        (f"pass@{a.k}", f3(r.pass_at[a.k])),
        (f"pass^{a.k}", f3(r.pass_hat[a.k])),
    ]
    if r.label == "flaky":
        props.append(("flaky", "true"))
    if r.label == "brittle":
        props.append(("always_failing", " ".join(r.always_failing)))
    if r.consistently_wrong:
        props.append(("consistently_wrong", "true"))
    out = [
        f"    <testcase classname={quoteattr(classname)} name={quoteattr(r.task_id)} "
        f'time="{r.latency_s:.3f}">',
        *_props(props, "      "),
    ]
    fails = errs = 0
    if not r.all_passed:
        message = _message(a, r)
        failing = tables.task_failures(a, r.task_id, r.kind)
        if failing:
            message += "; " + _example(failing[0], short=True)
        detail = message
        for p in failing[:JUNIT_PROMPTS]:
            detail += "\n\n" + _example(p, short=False)
        if r.wrong_output is not None:
            detail += f"\nevery wrong trial gave the same output: {r.wrong_output}"
        if r.label == "brittle":
            detail += (
                f"\n{len(r.always_failing)} of {r.variants} prompts failed every trial, the "
                f"others passed every trial: {', '.join(r.always_failing)}"
            )
        kind: str = r.label
        if r.wrong:
            tag, fails = "failure", 1
        else:
            tag, kind, errs = "error", "errored", 1
            detail += (
                "\nevery failed trial errored (exception, timeout, malformed output): "
                "check the platform before blaming the agent"
            )
        out.append(
            f"      <{tag} type={quoteattr(kind)} message={quoteattr(message)}>{escape(detail)}</{tag}>"
        )
    out.append("    </testcase>")
    return out, fails, errs


def _fault_suite(a: Analysis) -> tuple[list[str], int, int]:
    """One test case per λ > 0: it fails when the whole interval of Δ mean is below 0."""
    m = a.data.manifest
    assert a.faults is not None
    rows = [r for r in a.faults.lambdas if r.lam > 0]
    classname = f"perturb.{m.suite}.faults"
    body: list[str] = []
    fails = 0
    for r in rows:
        name = quoteattr(f"lam={lam_text(r.lam)}")
        figures = (
            f"mean {f3(r.mean)} (n={r.n_trials} trials, {r.n_tasks} tasks); Δ mean vs lam=0.0 "
            f"{interval(r.delta.mean) if r.delta else '-'}; calls before Retry-After {r.early_calls}; "
            f"give-ups {r.give_up_trials}; duplicated side effects {r.duplicates}"
        )
        body.append(f'    <testcase classname={quoteattr(classname)} name={name} time="0.000">')
        if r.delta is not None and r.delta.mean.high < 0:
            fails += 1
            body.append(f"      <failure message={quoteattr('success falls under faults: ' + figures)}/>")
        body.append(f"      <system-out>{escape(figures)}</system-out>")
        body.append("    </testcase>")
    head = (
        f'  <testsuite name={quoteattr(f"{m.suite}.faults")} tests="{len(rows)}" '
        f'failures="{fails}" errors="0" skipped="0" time="0.000">'
    )
    props = _props([("fault_classes", ",".join(a.faults.classes)), ("run_id", m.run_id)], "    ")
    return [head, *props, *body, "  </testsuite>"], fails, len(rows)


def render_junit(a: Analysis) -> str:
    """The report as JUnit XML (UTF-8, with declaration)."""
    m = a.data.manifest
    by_kind: dict[str, list[TaskRow]] = {}
    for r in a.tasks:
        by_kind.setdefault(r.kind, []).append(r)
    suites: list[str] = []
    total_f = total_e = total_t = 0
    total_time = 0.0
    for c in a.classes:
        rows = by_kind.get(c.kind, [])
        classname = f"perturb.{m.suite}.{c.kind}"
        body: list[str] = []
        fails = errs = 0
        for r in rows:
            lines, f, e = _case(a, classname, r)
            body += lines
            fails, errs = fails + f, errs + e
        time = sum(r.latency_s for r in rows)
        suites.append(
            f'  <testsuite name={quoteattr(f"{m.suite}.{c.kind}")} tests="{len(rows)}" '
            f'failures="{fails}" errors="{errs}" skipped="0" time="{time:.3f}">'
        )
        suites += _props(
            [
                ("run_id", m.run_id),
                ("agent", m.agent),
                ("k", str(a.k)),
                ("mean", f3(c.mean)),
                (f"pass^{a.k}", f3(c.pass_hat[a.k])),
                ("flaky", str(c.flaky)),
                ("brittle", str(c.brittle)),
                ("n", str(c.n_min)),
            ],
            "    ",
        )
        suites += body
        suites.append("  </testsuite>")
        total_f, total_e, total_t = total_f + fails, total_e + errs, total_t + len(rows)
        total_time += time
    if a.faults is not None:
        lines, fails, tests = _fault_suite(a)
        suites += lines
        total_f, total_t = total_f + fails, total_t + tests
    head = (
        f'<testsuites name={quoteattr(f"perturb {m.suite}")} tests="{total_t}" '
        f'failures="{total_f}" errors="{total_e}" time="{total_time:.3f}">'
    )
    return "\n".join(['<?xml version="1.0" encoding="UTF-8"?>', head, *suites, "</testsuites>"]) + "\n"


SPEC = FormatSpec(name="junit", extension="xml", render=render_junit, aliases=("xml",), suffixes=())
