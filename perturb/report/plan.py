"""``perturb plan``: which n and how many tasks let the sound gate detect a given drop.

Pure arithmetic over :func:`perturb.report.intervals.min_detectable_drop` (no run needed): the
smallest number of matched tasks for each n, the smallest n for a task count, or the drop a
given design detects, at 80% power.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from perturb.errors import UsageError
from perturb.report.intervals import POWER, min_detectable_drop
from perturb.report.rounding import f3

N_GRID = (5, 10, 20, 40, 80)
"""Trials per prompt tried when ``--n`` is not given."""
MAX_TASKS = 100_000
MAX_N = 10_000


@dataclass
class PlanOptions:
    """Everything ``perturb plan`` accepts."""

    detect: float
    """The true drop to detect (of mean, or of pass^k with ``k > 1``), in (0, 1]."""
    tasks: int | None = None
    """Matched tasks available (None: say how many are needed)."""
    n: int | None = None
    """Trials per prompt (None: try 5, 10, 20, 40, 80)."""
    tolerance: float = 0.0
    """The gate's tolerance (a drop must exceed it before the gate fails)."""
    k: int = 1
    """1: the mean; > 1: pass^k."""
    rate: float = 0.9
    """The baseline's per-trial success rate."""


@dataclass
class PlanResult:
    """One line per design considered, and a closing sentence."""

    lines: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return "\n".join(self.lines)


def _smallest(lo: int, hi: int, ok: Callable[[int], bool]) -> int | None:
    """The smallest value in [lo, hi] for which ``ok`` holds (``ok`` monotone), else None."""
    if not ok(hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def plan(options: PlanOptions) -> PlanResult:
    """The designs that detect ``options.detect`` with 80% power (see the module docstring)."""
    o = options
    if not 0 < o.detect <= 1:
        raise UsageError(f"--detect {o.detect} must be a drop in (0, 1] (e.g. 0.05)")
    if not 0 <= o.tolerance < o.detect:
        raise UsageError(
            f"--tolerance {o.tolerance} must be in [0, --detect): the gate cannot detect a drop "
            "that does not exceed its tolerance"
        )
    if not 0 < o.rate <= 1:
        raise UsageError(f"--rate {o.rate} must be a success rate in (0, 1] (e.g. 0.9)")
    if not 1 <= o.k <= MAX_N:
        raise UsageError(f"--k {o.k} must be in [1, {MAX_N}] (1: the mean; above 1: pass^k)")
    if o.tasks is not None and not 1 <= o.tasks <= MAX_TASKS:
        raise UsageError(f"--tasks {o.tasks} must be in [1, {MAX_TASKS}] (matched tasks you have)")
    if o.n is not None and o.n > MAX_N:
        raise UsageError(f"--n {o.n} must be at most {MAX_N} trials per prompt")
    if o.detect > o.rate**o.k:
        raise UsageError(
            f"--detect {o.detect} exceeds the baseline's figure {f3(o.rate**o.k)} (--rate ** --k)"
        )
    if o.n is not None and o.n < o.k:
        raise UsageError(f"--n {o.n} must be >= --k {o.k}")
    what = "mean" if o.k == 1 else f"pass^{o.k}"
    out = PlanResult(
        [
            f"plan: detect a true drop of {f3(o.detect)} in {what} with {POWER:.0%} power "
            f"(baseline rate {f3(o.rate)}, tolerance {f3(o.tolerance)}, one prompt per task)"
        ]
    )

    def mde(n: int, tasks: int) -> float | None:
        return min_detectable_drop(n, tasks, o.tolerance, k=o.k, rate=o.rate)

    def reaches(n: int, tasks: int) -> bool:
        d = mde(n, tasks)
        return d is not None and d <= o.detect

    if o.tasks is not None and o.n is not None:
        d = mde(o.n, o.tasks)
        seen = "no drop" if d is None else f"a drop of {f3(d)}"
        verdict = "reaches" if reaches(o.n, o.tasks) else "does not reach"
        out.lines.append(f"n={o.n}, {o.tasks} tasks: detects {seen}; {verdict} the target")
        return out
    if o.tasks is not None:
        tasks = o.tasks
        for n in N_GRID:
            if n >= o.k:
                d = mde(n, tasks)
                out.lines.append(
                    f"n={n}, {tasks} tasks: detects {'no drop' if d is None else f'a drop of {f3(d)}'}"
                )
        best = _smallest(max(o.k, 1), MAX_N, lambda n: reaches(n, tasks))
        out.lines.append(
            f"smallest n for {tasks} tasks: {best}"
            if best is not None
            else f"no n up to {MAX_N} reaches it with {tasks} tasks: add tasks"
        )
        return out
    for n in [o.n] if o.n is not None else [n for n in N_GRID if n >= o.k]:

        def enough(tasks: int, n: int = n) -> bool:
            return reaches(n, tasks)

        need = _smallest(1, MAX_TASKS, enough)
        out.lines.append(
            f"n={n}: {need} matched tasks" if need is not None else f"n={n}: more than {MAX_TASKS} tasks"
        )
    return out
