"""Intervals for a paired change, and the power of the gate that reads them (pure functions).

**The two-stage bootstrap** (:func:`two_stage_bootstrap`). A change between two arms (a class
against canonical, a run against its baseline, λ > 0 against λ = 0) has two sources of noise:
which tasks the suite holds, and which trials each prompt happened to draw. Each of ``B``
resamples

1. draws the matched tasks with replacement, both arms of a drawn task together (the paired
   task-level bootstrap of Efron & Tibshirani 1993, ch. 6), then
2. draws, for every prompt of both arms, a success rate ``p`` from its Jeffreys posterior
   ``Beta(c + 1/2, n - c + 1/2)`` (Jeffreys 1946; the Jeffreys interval of Brown, Cai &
   DasGupta 2001) and takes the prompt's mean as ``p`` and its pass^k as ``p**k`` (what the
   unbiased ``C(c, k) / C(n, k)`` estimates; never ``(c/n)**k``).

Per-prompt figures are averaged per task and tasks with their weights. The posterior pulls
every rate toward 1/2 a little (by about 1/(n+1) of its distance), which with hundreds of
tasks would move a narrow interval off the truth; the same draws are therefore also moved
onto the unbiased estimates (adding ``estimate - E[p**k]`` per prompt), and the interval is
the union of the two percentile intervals: the posterior one covers with few tasks and k
near n (where one prompt's unbiased pass^k is 0 or 1), the moved one with many tasks. It is
widened to contain the point estimate if needed and clipped to [-1, 1]. Stage 2 is what a task-only
bootstrap lacks: a prompt that passed 5/5 still has a rate below 1 with posterior probability
1, so one matched task gives an interval of real width instead of a zero-width one, and rates
near 0 or 1 do not collapse. Stage 1 and stage 2 both carry trial noise (the spread of
observed per-task changes already holds some), so the interval is conservative rather than
exact; ``benchmarks/bench_gate_stats.py`` measures its coverage and docs/metrics.md shows the
table.

Below :data:`MIN_TASKS` matched tasks the interval is still computed but is reported as
unreliable, and the sound gate does not fail on it.

**Power** (:func:`min_detectable_drop`). The sound gate fails when the whole interval lies
below ``-tolerance``. The smallest true drop it detects with 80% power at the run's n, task
count and tolerance (the minimum detectable effect, Cohen 1988, ch. 1) follows from a normal
approximation of the interval with the exact binomial and posterior moments of stage 2
(formula in the function's docstring); ``tests/test_intervals.py`` checks it against a
simulation of the gate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perturb.report.metrics import BootstrapResult, pass_hat_k_array

__all__ = [
    "MIN_TASKS",
    "PromptCounts",
    "min_detectable_drop",
    "reliable",
    "two_stage_bootstrap",
]

MIN_TASKS = 3
"""Fewest matched tasks for an interval the report presents as reliable (and the sound gate
fails on). Coverage of the 95% interval is at least 0.93 from here up (docs/metrics.md)."""
PRIOR = 0.5
"""The Jeffreys prior Beta(1/2, 1/2) of stage 2."""
POWER = 0.8
"""The power at which :func:`min_detectable_drop` is stated."""


def reliable(n_tasks: int) -> bool:
    """Whether an interval over ``n_tasks`` matched tasks is reliable (``>= MIN_TASKS``)."""
    return n_tasks >= MIN_TASKS


@dataclass(frozen=True)
class PromptCounts:
    """One arm's prompts: trials ``n``, successes ``c`` and the matched task each belongs to
    (``task`` indexes ``0..tasks-1``, the same order in both arms)."""

    n: NDArray[np.int64]
    """Trials per prompt."""
    c: NDArray[np.int64]
    """Successes per prompt."""
    task: NDArray[np.int64]
    """Matched-task index per prompt."""

    @classmethod
    def of(cls, n: ArrayLike, c: ArrayLike, task: ArrayLike) -> PromptCounts:
        """Build from array-likes, checking shapes and ranges (ValueError)."""
        n_a, c_a, t_a = (np.asarray(x, dtype=np.int64).ravel() for x in (n, c, task))
        if not n_a.shape == c_a.shape == t_a.shape:
            raise ValueError("n, c and task must have one entry per prompt")
        if n_a.size and (np.any(n_a < 1) or np.any(c_a < 0) or np.any(c_a > n_a) or np.any(t_a < 0)):
            raise ValueError("counts must satisfy n >= 1, 0 <= c <= n, task >= 0")
        return cls(n_a, c_a, t_a)


def _task_average(values: NDArray[np.float64], task: NDArray[np.int64], m: int) -> NDArray[np.float64]:
    """``(rows, prompts)`` -> ``(rows, m)``: each task's prompts averaged (every task has one)."""
    order = np.argsort(task, kind="stable")
    sizes = np.bincount(task, minlength=m)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return np.add.reduceat(values[:, order], starts, axis=1) / sizes


def _posterior_moment(c: NDArray[np.int64], n: NDArray[np.int64], j: int) -> NDArray[np.float64]:
    """``E[p^j]`` under ``Beta(c + 1/2, n - c + 1/2)``: ``prod_(i<j) (c + 1/2 + i) / (n + 1 + i)``."""
    out = np.ones(c.shape)
    for i in range(j):
        out = out * (c + PRIOR + i) / (n + 2 * PRIOR + i)
    return out


def two_stage_bootstrap(
    current: PromptCounts,
    reference: PromptCounts,
    weights: ArrayLike,
    ks: Sequence[int] = (),
    *,
    b: int = 2000,
    seed: int | Sequence[int] = 0,
    level: float = 0.95,
) -> BootstrapResult:
    """Paired two-stage bootstrap of ``current - reference`` (see the module docstring).

    Statistics, in order: mean success, then pass^k for each k of ``ks``. ``weights`` has one
    positive weight per matched task; every task needs at least one prompt in each arm and
    ``k <= n`` for every prompt. The point estimate is the weighted mean over tasks of the
    per-task difference of the unbiased per-prompt estimators averaged per task.
    """
    w = np.asarray(weights, dtype=np.float64).ravel()
    m = w.size
    if m == 0:
        raise ValueError("two_stage_bootstrap needs at least one matched task")
    if np.any(w <= 0) or not np.all(np.isfinite(w)):
        raise ValueError("weights must be one finite positive number per task")
    if b < 1:
        raise ValueError(f"the number of bootstrap resamples must be >= 1, got {b}")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    for arm, name in ((current, "current"), (reference, "reference")):
        if arm.task.size == 0 or np.any(arm.task >= m) or np.unique(arm.task).size != m:
            raise ValueError(f"every matched task needs at least one {name} prompt (task index < {m})")
        if ks and int(arm.n.min()) < max(ks):
            raise ValueError(f"k={max(ks)} exceeds the smallest n={int(arm.n.min())} of the {name} arm")
    ks = list(ks)

    def estimates(arm: PromptCounts) -> NDArray[np.float64]:
        """(stats, prompts): each prompt's unbiased mean and pass^k."""
        return np.vstack([arm.c / arm.n, *(pass_hat_k_array(arm.n, arm.c, k) for k in ks)])

    est_cur, est_ref = estimates(current), estimates(reference)
    diff = _task_average(est_cur, current.task, m) - _task_average(est_ref, reference.task, m)
    point = diff @ w / w.sum()
    rng = np.random.default_rng(seed)
    s = 1 + len(ks)
    stats = np.empty((b, s))  # the posterior draws p^k as they are
    centred = np.empty((b, s))  # the same draws moved onto the unbiased estimates
    widest = max(m, current.n.size, reference.n.size)
    chunk = max(1, min(b, 1_000_000 // widest))
    for start in range(0, b, chunk):
        rows = min(chunk, b - start)
        idx = rng.integers(0, m, size=(rows, m))
        flat = (idx + (np.arange(rows) * m)[:, None]).ravel()
        counts = np.bincount(flat, minlength=rows * m).reshape(rows, m) * w  # (rows, m)
        total = counts.sum(axis=1)
        draws, shifts = [], []
        for arm, obs in ((current, est_cur), (reference, est_ref)):
            p = rng.beta(arm.c + PRIOR, arm.n - arm.c + PRIOR, size=(rows, arm.n.size))
            draws.append([_task_average(p**k, arm.task, m) for k in [1, *ks]])
            shifts.append(
                [
                    _task_average((obs[i] - _posterior_moment(arm.c, arm.n, k))[None, :], arm.task, m)
                    for i, k in enumerate([1, *ks])
                ]
            )
        for i in range(s):
            raw = draws[0][i] - draws[1][i]
            stats[start : start + rows, i] = (raw * counts).sum(axis=1) / total
            moved = raw + shifts[0][i] - shifts[1][i]
            centred[start : start + rows, i] = (moved * counts).sum(axis=1) / total
    tail = (1 - level) / 2
    low, high = np.quantile(stats, [tail, 1 - tail], axis=0)
    c_low, c_high = np.quantile(centred, [tail, 1 - tail], axis=0)
    return BootstrapResult(
        point=point,
        low=np.clip(np.minimum.reduce([low, c_low, point]), -1.0, 1.0),
        high=np.clip(np.maximum.reduce([high, c_high, point]), -1.0, 1.0),
        n_tasks=m,
        b=b,
        level=level,
    )


def _pmf(p: float, n: int) -> NDArray[np.float64]:
    """Binomial(n, p) probabilities of c = 0..n."""
    c = np.arange(n + 1, dtype=np.float64)
    if p <= 0.0 or p >= 1.0:
        return (c == (n if p >= 1.0 else 0)).astype(np.float64)
    log_pmf = np.array([math.lgamma(n + 1) - math.lgamma(x + 1) - math.lgamma(n - x + 1) for x in c])
    return np.asarray(np.exp(log_pmf + c * math.log(p) + (n - c) * math.log1p(-p)))


def _point_variance(p: float, n: int, k: int) -> float:
    """Variance over ``c ~ Binomial(n, p)`` of the unbiased ``C(c, k) / C(n, k)`` (exact sum)."""
    c = np.arange(n + 1, dtype=np.int64)
    est = pass_hat_k_array(np.full(n + 1, n), c, k)
    return max(float(_pmf(p, n) @ est**2) - p ** (2 * k), 0.0)


def _posterior_mean_moments(p: float, n: int, k: int) -> tuple[float, float]:
    """Mean and variance over ``c ~ Binomial(n, p)`` of the posterior mean ``E[p^k | c]``."""
    c = np.arange(n + 1, dtype=np.int64)
    post = _posterior_moment(c, np.full(n + 1, n), k)
    pmf = _pmf(p, n)
    mu = float(pmf @ post)
    return mu, max(float(pmf @ post**2) - mu**2, 0.0)


def _posterior_variance(p: float, n: int, k: int) -> float:
    """Mean over ``c ~ Binomial(n, p)`` of the variance of ``p^k`` under stage 2's posterior
    ``Beta(c + 1/2, n - c + 1/2)`` (exact sum over c = 0..n)."""
    c = np.arange(n + 1, dtype=np.int64)
    nn = np.full(n + 1, n)
    var = _posterior_moment(c, nn, 2 * k) - _posterior_moment(c, nn, k) ** 2
    return float(_pmf(p, n) @ var)


def min_detectable_drop(
    n: int,
    tasks: int,
    tolerance: float = 0.0,
    *,
    k: int = 1,
    rate: float = 0.5,
    prompts: int = 1,
    level: float = 0.95,
    power: float = POWER,
    strict: bool = False,
) -> float | None:
    """The smallest true drop of mean (``k = 1``) or pass^k the sound gate detects with ``power``.

    ``n`` trials per prompt, ``prompts`` prompts per task in each arm, ``tasks`` matched tasks
    ``T``, ``rate`` the per-trial success rate of the baseline; the current arm's rate is lower
    by the drop ``d = p_b^k - p_c^k``. Normal approximation of the two-stage interval with
    exact binomial moments: let ``S`` be the variance of a task's unbiased estimate
    (``C(c, k) / C(n, k)``, ``c ~ Binomial(n, p)``) and ``V`` the mean variance of ``p^k`` under
    stage 2's posterior, both summed over the two arms and divided by ``prompts``. The moved
    interval's centre is ``N(-d, S / T)`` and its half-width ``z_(1-a/2) * sqrt(((T-1)/T * S +
    (2 - 1/T) * V) / T)`` (a task drawn twice in a resample keeps its one posterior draw, hence
    ``2 - 1/T``); it lies below ``-tolerance`` with ``power`` when ``d >= tolerance +
    half-width + z_power * sqrt(S / T)``. The posterior interval is the same with the
    posterior means ``E[p^k | c]`` (their mean and spread over ``c``) in place of the unbiased
    estimates. The gate fails when the union lies below ``-tolerance``: both must; the
    smallest ``d`` for which both do is found by bisection. None when even a drop to 0 is
    not detected. Simulated power at the returned drop is 0.7-0.8 (``tests/test_intervals.py``,
    docs/metrics.md).

    ``strict``: the strict gate instead, which fails when the observed change (unbiased
    estimators) is below ``-tolerance``: ``d >= tolerance + z_power * sqrt(Var / T)`` with
    ``Var`` the exact variance of the per-task estimator in both arms.
    """
    if n < 1 or tasks < 1 or k < 1 or prompts < 1:
        raise ValueError(f"n, tasks, k and prompts must be >= 1, got n={n}, tasks={tasks}, k={k}")
    if k > n:
        raise ValueError(f"k={k} exceeds n={n}")
    if not 0 <= tolerance <= 1 or not 0 <= rate <= 1 or not 0 < level < 1 or not 0 < power < 1:
        raise ValueError("tolerance and rate must be in [0, 1], level and power in (0, 1)")
    top = rate**k
    z_a = NormalDist().inv_cdf(1 - (1 - level) / 2)
    z_b = NormalDist().inv_cdf(power)
    s_b, v_b = _point_variance(rate, n, k), _posterior_variance(rate, n, k)
    mu_b, sp_b = _posterior_mean_moments(rate, n, k)

    def fires(drop: float, s: float, v: float) -> bool:
        """An interval centred ``N(-drop, s / T)`` lies below -tolerance with ``power``."""
        half = z_a * math.sqrt(((tasks - 1) / tasks * s + (2 - 1 / tasks) * v) / tasks)
        return drop >= tolerance + half + z_b * math.sqrt(s / tasks)

    def detected(d: float) -> bool:
        p_c = max(top - d, 0.0) ** (1 / k)
        s = (s_b + _point_variance(p_c, n, k)) / prompts
        if strict:
            return d >= tolerance + z_b * math.sqrt(s / tasks)
        v = (v_b + _posterior_variance(p_c, n, k)) / prompts
        mu_c, sp_c = _posterior_mean_moments(p_c, n, k)
        # both halves of the union: the moved interval (centre -d) and the posterior one
        # (centre mu_c - mu_b, pulled toward 0)
        return fires(d, s, v) and fires(mu_b - mu_c, (sp_b + sp_c) / prompts, v)

    if top <= 0.0 or not detected(top):
        return None
    lo, hi = 0.0, top
    for _ in range(40):
        mid = (lo + hi) / 2
        if detected(mid):
            hi = mid
        else:
            lo = mid
    return hi
