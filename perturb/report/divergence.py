"""Trace divergence: the earliest step where failing trials part from passing ones.

A trace is what the agent reported as ``trace``: a list of steps (strings, or objects shown as
compact JSON); anything else is one step. For each failing trial, the longest prefix its
trace shares with any passing trace gives its divergence step ``L + 1`` (1-based): step ``L``
is the last step both did the same, step ``L + 1`` is where the failing trial did something
else (or stopped: ``(end)``). Failing trials are grouped by (step, the step before, what the
failing trial did, what the passing trials did at that point: their most frequent step after
the shared prefix); the largest group is the finding::

    14 of 16 failing trials diverge at step 2: `intent: refund=3.5 -> refund` vs
    `intent: refund=3.5 -> cancel_booking`

For a flaky prompt the passing traces are its own passing trials'; for a variant that fails
where its canonical prompt passes (brittle), the canonical prompt's passing trials': the
step the perturbation changed. The earliest divergence is a diagnostic lead, not proof of the
cause (see docs/failures.md).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from perturb.io.inert import printable

STEP_CHARS = 120
"""A step longer than this is cut in the sentence (``…`` marks the cut)."""
END = "(end)"
"""What a trace that stops has at the step where the other continues."""


def trace_steps(trace: Any) -> tuple[str, ...] | None:
    """A trace as a tuple of step strings; None when the trial reported no trace."""
    if trace is None:
        return None
    items = trace if isinstance(trace, list) else [trace]
    return tuple(
        s if isinstance(s, str) else json.dumps(s, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        for s in items
    )


@dataclass(frozen=True)
class Divergence:
    """Where most failing trials part from the passing traces."""

    step: int
    """1-based step index of the divergence."""
    before: str | None
    """The last step they share (None when they differ from step 1)."""
    failing: str
    """What the failing trials did at ``step`` (``(end)``: they stopped)."""
    passing: str
    """What the passing trials did at ``step`` (the most frequent; ``(end)``: they stopped)."""
    count: int
    """Failing trials that diverge at this step in this way."""
    failing_total: int
    """Failing trials with a trace."""
    identical: int
    """Failing trials whose trace equals some passing trace (their failure is not in the
    trace)."""
    against: str
    """``passing trials`` or ``the canonical prompt's passing trials``."""

    def sentence(self) -> str:
        """``14 of 16 failing trials diverge at step 2: `a -> b` vs `a -> c```, control
        characters escaped."""
        head = f"{self.count} of {self.failing_total} failing trials diverge at step {self.step}"
        lead = "" if self.before is None else f"{_clip(self.before)} -> "
        text = f"{head}: `{lead}{_clip(self.failing)}` vs `{lead}{_clip(self.passing)}` ({self.against})"
        if self.identical:
            text += f"; {self.identical} failing trials have the trace of a passing trial"
        return text


def _clip(step: str) -> str:
    text = printable(step).replace("`", "'")
    return text if len(text) <= STEP_CHARS else text[: STEP_CHARS - 1] + "…"


def _shared(a: Sequence[str], b: Sequence[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def diverge(
    failing: Sequence[Sequence[str]], passing: Sequence[Sequence[str]], *, against: str = "passing trials"
) -> Divergence | None:
    """The most frequent earliest divergence of ``failing`` traces from ``passing`` ones (see
    the module docstring); None when either side has no trace or no failing trace differs."""
    if not failing or not passing:
        return None
    groups: Counter[tuple[int, str | None, str, str]] = Counter()
    identical = 0
    passing_set = {tuple(p) for p in passing}
    for f in failing:
        if tuple(f) in passing_set:
            identical += 1
            continue
        shared = max(_shared(f, p) for p in passing)
        nexts = Counter(p[shared] if len(p) > shared else END for p in passing if _shared(f, p) == shared)
        passing_step = sorted(nexts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        failing_step = f[shared] if len(f) > shared else END
        before = f[shared - 1] if shared else None
        groups[(shared + 1, before, failing_step, passing_step)] += 1
    if not groups:
        return None
    (step, before, f_step, p_step), count = sorted(
        groups.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][2], kv[0][3])
    )[0]
    return Divergence(step, before, f_step, p_step, count, len(failing), identical, against)
