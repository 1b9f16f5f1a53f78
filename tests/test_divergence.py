"""Trace divergence on synthetic traces with a known split (perturb.report.divergence)."""

from __future__ import annotations

from perturb.report.divergence import END, Divergence, diverge, trace_steps


def test_flaky_prompt_diverges_at_the_known_step() -> None:
    passing = [("parse", "intent: refund", "refund(3.5)", "reply")] * 2 + [
        ("parse", "intent: refund", "reply")
    ]
    failing = [("parse", "intent: cancel", "cancel()", "reply")] * 14 + [
        ("parse", "intent: refund", "oops")
    ] * 2
    d = diverge(failing, passing)
    assert d == Divergence(2, "parse", "intent: cancel", "intent: refund", 14, 16, 0, "passing trials")
    assert d.sentence() == (
        "14 of 16 failing trials diverge at step 2 (after `parse`): `intent: cancel` vs `intent: refund` "
        "(passing trials)"
    )


def test_second_group_splits_later_and_most_common_passing_step_is_named() -> None:
    passing = [("a", "b", "c"), ("a", "b", "c"), ("a", "b", "d")]
    failing = [("a", "b", "x"), ("a", "b", "x"), ("a", "b", "x"), ("a", "y")]
    d = diverge(failing, passing)
    assert d is not None and (d.step, d.before, d.failing, d.passing, d.count) == (3, "b", "x", "c", 3)


def test_divergence_at_the_first_step_and_at_the_end() -> None:
    d = diverge([("z", "b")], [("a", "b")], against="the canonical prompt's passing trials")
    assert d is not None and d.sentence() == (
        "1 of 1 failing trials diverge at step 1: `z` vs `a` (the canonical prompt's passing trials)"
    )
    stopped = diverge([("a",)], [("a", "b")])
    assert stopped is not None and (stopped.step, stopped.failing, stopped.passing) == (2, END, "b")


def test_identical_traces_are_counted_not_blamed() -> None:
    d = diverge([("a", "b"), ("a", "c")], [("a", "b")])
    assert d is not None and (d.count, d.failing_total, d.identical) == (1, 2, 1)
    assert d.sentence().endswith("; 1 failing trials have the trace of a passing trial")
    assert diverge([("a", "b")], [("a", "b")]) is None
    assert diverge([], [("a",)]) is None and diverge([("a",)], []) is None


def test_trace_steps_and_escaping() -> None:
    assert trace_steps(None) is None
    assert trace_steps(["a", {"tool": "x", "args": {"b": 1}}]) == ("a", '{"args":{"b":1},"tool":"x"}')
    assert trace_steps("one") == ("one",)
    d = diverge([("\x1b[2J`x`",)], [("ok",)])
    assert (
        d is not None
        and d.sentence() == "1 of 1 failing trials diverge at step 1: `\\x1b[2J'x'` vs `ok` (passing trials)"
    )
