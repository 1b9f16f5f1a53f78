"""Estimators and the drift test (pure functions, numpy); intervals are in :mod:`perturb.report.intervals`.

For one prompt run ``n`` times with ``c`` successes and ``1 <= k <= n``:

* mean success = ``c / n``
* pass@k = ``1 - C(n-c, k) / C(n, k)`` -- the chance that at least one of k trials drawn
  without replacement from the n observed succeeds. Chen et al. 2021, "Evaluating Large
  Language Models Trained on Code" (arXiv:2107.03374), the unbiased estimator.
* pass^k = ``C(c, k) / C(n, k)`` -- the chance that all k drawn trials succeed. Yao et al.
  2024, "tau-bench" (arXiv:2406.12045). Unbiased for ``p**k`` under independent trials.

Both are ratios of binomial coefficients with the same denominator, computed as a product of
``m = min(k, n - a)`` ratios (``a`` = c for pass^k, n - c for pass@k; both forms
``prod (a-j)/(n-j)`` and ``prod (n-k-i)/(n-i)`` are equal): exactly with integers
(``perm / perm``, correctly rounded) up to 4096 factors, in log space (``lgamma``) beyond, and
as vectorised floating-point products in the array forms. ``n`` up to 10**6 neither overflows
nor gives NaN. Never ``(c/n)**k``: that plug-in is biased upward (its expectation
at n=8, p=0.6, k=4 is 0.195 against a true p**k of 0.130; ``tests/test_metrics.py`` computes it).

Aggregates are built per prompt first, then per task, then across tasks with declared
weights (:func:`weighted_mean`); an aggregate is never raised to a power.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "BootstrapResult",
    "benjamini_hochberg",
    "fisher_greater_pvalue",
    "mean_success",
    "pass_at_k",
    "pass_at_k_array",
    "pass_hat_k",
    "pass_hat_k_array",
    "pass_hat_k_curve",
    "stream_seed",
    "weighted_mean",
]

_EXACT_TERMS = 4096
"""Scalar forms use exact integer arithmetic up to this many factors."""
_PRODUCT_TERMS = 256
"""Array forms multiply ratios up to this many factors, then switch to log space."""


def _as_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        if isinstance(value, float | np.floating) and float(value).is_integer():
            return int(value)
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    return int(value)


def _check(n: Any, c: Any, k: Any) -> tuple[int, int, int]:
    n, c, k = _as_int("n", n), _as_int("c", c), _as_int("k", k)
    if n < 1:
        raise ValueError(f"n must be >= 1 (the number of trials), got n={n}")
    if c < 0:
        raise ValueError(f"c must be >= 0 (the number of successes), got c={c}")
    if c > n:
        raise ValueError(f"c must be <= n, got c={c} successes out of n={n} trials")
    if k < 1:
        raise ValueError(f"k must be >= 1, got k={k}")
    if k > n:
        raise ValueError(
            f"k must be <= n, got k={k} with only n={n} trials (run at least k trials per prompt)"
        )
    return n, c, k


def _subset_ratio(a: int, n: int, k: int) -> float:
    """``C(a, k) / C(n, k)`` for ``0 <= a <= n``, ``1 <= k <= n``, correctly rounded when exact."""
    if a < k:
        return 0.0
    if a == n:
        return 1.0
    # C(a,k)/C(n,k) = prod_{j<k} (a-j)/(n-j) = prod_{i<n-a} (n-k-i)/(n-i): use the shorter one.
    if k <= n - a:
        top, terms = a, k
    else:
        top, terms = n - k, n - a
    if terms <= _EXACT_TERMS:
        return math.perm(top, terms) / math.perm(n, terms)  # int / int: correctly rounded
    return math.exp(_log_ratio(top, n, terms))


def _log_ratio(top: int, n: int, terms: int) -> float:
    """``log(prod_{j<terms} (top-j)/(n-j))`` in log space (``lgamma``)."""
    return (
        math.lgamma(top + 1) - math.lgamma(top - terms + 1) - math.lgamma(n + 1) + math.lgamma(n - terms + 1)
    )


def mean_success(n: int, c: int) -> float:
    """Mean success ``c / n`` of one prompt (pass@1 = pass^1)."""
    n, c, _ = _check(n, c, 1)
    return c / n


def pass_at_k(n: int, c: int, k: int) -> float:
    """pass@k = 1 - C(n-c, k) / C(n, k): at least one of k trials succeeds.

    Chen et al. 2021, "Evaluating Large Language Models Trained on Code", arXiv:2107.03374
    (unbiased estimator over all n observed trials). ``n=5, c=2, k=2`` gives 0.7.
    Raises ValueError unless ``n >= 1``, ``0 <= c <= n`` and ``1 <= k <= n``.
    """
    n, c, k = _check(n, c, k)
    a = n - c
    if a < k:
        return 1.0
    if c == 0:
        return 0.0
    if k <= c:
        top, terms = a, k
    else:
        top, terms = n - k, c
    if terms <= _EXACT_TERMS:
        den = math.perm(n, terms)
        return (den - math.perm(top, terms)) / den
    return -math.expm1(_log_ratio(top, n, terms))  # 1 - ratio without cancellation


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k = C(c, k) / C(n, k): all k trials succeed.

    Yao, Shinn, Razavi, Narasimhan 2024, "tau-bench", arXiv:2406.12045. Unbiased for ``p**k``
    under independent trials; ``pass_hat_k(n, c, k) == 1 - pass_at_k(n, n - c, k)``. Never ``(c/n)**k``.
    Raises ValueError unless ``n >= 1``, ``0 <= c <= n`` and ``1 <= k <= n``.
    """
    n, c, k = _check(n, c, k)
    return _subset_ratio(c, n, k)


# --------------------------------------------------------------------------- array forms


def _check_arrays(
    n: ArrayLike, c: ArrayLike, k: ArrayLike
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    arrays = []
    for name, value in (("n", n), ("c", c), ("k", k)):
        arr = np.asarray(value)
        if arr.dtype.kind == "f":
            if not np.all(np.isfinite(arr)) or not np.all(arr == np.floor(arr)):
                bad = int(np.argmax(~np.isfinite(arr) | (arr != np.floor(arr))))
                raise ValueError(f"{name} must hold whole numbers, got {arr.flat[bad]!r}")
        elif arr.dtype.kind not in "iu":
            raise ValueError(f"{name} must hold whole numbers, got dtype {arr.dtype}")
        arrays.append(arr.astype(np.int64))
    n_a, c_a, k_a = np.broadcast_arrays(*arrays)
    for cond, what in (
        (n_a < 1, "n must be >= 1 (the number of trials)"),
        (c_a < 0, "c must be >= 0 (the number of successes)"),
        (c_a > n_a, "c must be <= n"),
        (k_a < 1, "k must be >= 1"),
        (k_a > n_a, "k must be <= n (run at least k trials per prompt)"),
    ):
        if np.any(cond):
            i = int(np.argmax(cond.ravel()))
            raise ValueError(
                f"{what}: at index {i} n={int(n_a.flat[i])}, c={int(c_a.flat[i])}, k={int(k_a.flat[i])}"
            )
    return n_a, c_a, k_a


def _subset_ratio_array(
    a: NDArray[np.int64], n: NDArray[np.int64], k: NDArray[np.int64]
) -> NDArray[np.float64]:
    out = np.zeros(a.shape, dtype=np.float64)
    out[a == n] = 1.0
    todo = (a >= k) & (a < n)
    short = k <= n - a
    top = np.where(short, a, n - k)
    terms = np.where(short, k, n - a)
    prod_mask = todo & (terms <= _PRODUCT_TERMS)
    if np.any(prod_mask):
        t, nn, m = top[prod_mask], n[prod_mask], terms[prod_mask]
        acc = np.ones(t.shape, dtype=np.float64)
        for j in range(int(m.max())):
            live = j < m
            acc = np.where(live, acc * ((t - j) / np.where(live, nn - j, 1)), acc)
        out[prod_mask] = acc
    long_mask = todo & (terms > _PRODUCT_TERMS)
    for i in np.flatnonzero(long_mask.ravel()):  # rare: exact integers, else lgamma
        out.flat[i] = _subset_ratio(int(a.flat[i]), int(n.flat[i]), int(k.flat[i]))
    return out


def pass_at_k_array(n: ArrayLike, c: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    """Vectorised :func:`pass_at_k`: ``1 - C(n-c, k) / C(n, k)`` elementwise (broadcasting).

    Chen et al. 2021 (arXiv:2107.03374). Vectorised products of ratios up to 256 factors;
    longer products element by element as in the scalar form.
    """
    n_a, c_a, k_a = _check_arrays(n, c, k)
    return 1.0 - _subset_ratio_array(n_a - c_a, n_a, k_a)


def pass_hat_k_array(n: ArrayLike, c: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    """Vectorised :func:`pass_hat_k`: ``C(c, k) / C(n, k)`` elementwise (broadcasting).

    Yao et al. 2024, tau-bench (arXiv:2406.12045). Vectorised products of ratios up to 256
    factors; longer products element by element as in the scalar form.
    """
    n_a, c_a, k_a = _check_arrays(n, c, k)
    return _subset_ratio_array(c_a, n_a, k_a)


def pass_hat_k_curve(
    n: ArrayLike, c: ArrayLike, weights: ArrayLike | None = None, k_max: int | None = None
) -> list[tuple[int, float]]:
    """The pass^k curve ``[(k, weighted mean of C(c,k)/C(n,k)), ...]`` for ``k = 1..k_max``.

    ``k_max`` defaults to, and may not exceed, the smallest ``n`` (publish the whole
    curve, not the one k that flatters).
    """
    n_a = np.asarray(n, dtype=np.int64)
    c_a = np.asarray(c, dtype=np.int64)
    if n_a.size == 0:
        return []
    smallest = int(n_a.min())
    top = smallest if k_max is None else k_max
    if top > smallest:
        raise ValueError(f"k_max={top} exceeds the smallest n={smallest}")
    w = np.ones(n_a.shape) if weights is None else np.asarray(weights, dtype=np.float64)
    return [(k, weighted_mean(pass_hat_k_array(n_a, c_a, k), w)) for k in range(1, top + 1)]


def weighted_mean(values: ArrayLike, weights: ArrayLike | None = None) -> float:
    """``sum(w * v) / sum(w)`` -- tasks averaged with their declared weights (default equal).

    Raises ValueError for no values, mismatched lengths, or weights that are not positive.
    """
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        raise ValueError("weighted_mean of no values (expected at least one task)")
    if weights is None:
        return float(v.mean())
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != v.shape:
        raise ValueError(f"weights shape {w.shape} does not match values shape {v.shape}")
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ValueError("weights must be finite and > 0")
    return float(np.dot(w, v) / w.sum())


# --------------------------------------------------------------------------- bootstrap


@dataclass(frozen=True)
class BootstrapResult:
    """Weighted mean differences ``current - reference`` with percentile intervals.

    Arrays have one entry per statistic (row of the inputs)."""

    point: NDArray[np.float64]
    """The observed weighted mean difference per statistic."""
    low: NDArray[np.float64]
    """Lower percentile bound per statistic."""
    high: NDArray[np.float64]
    """Upper percentile bound per statistic."""
    n_tasks: int
    """Tasks (resampling units)."""
    b: int
    """Bootstrap resamples."""
    level: float
    """Interval level, e.g. 0.95."""


def stream_seed(seed: int, *labels: str) -> list[int]:
    """A reproducible seed sequence for ``(seed, label...)``, independent of iteration order."""
    return [int(seed), *(zlib.crc32(label.encode("utf-8")) for label in labels)]


# --------------------------------------------------------------------------- drift test


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def fisher_greater_pvalue(n1: int, c1: int, n0: int, c0: int) -> float:
    """One-sided Fisher exact test that prompt 1 succeeds more often than prompt 0.

    The p-value is ``P(X >= c1)`` for ``X`` hypergeometric: ``c1 + c0`` successes spread over
    ``n1 + n0`` trials, ``n1`` of them prompt 1's. Used to flag variants that succeed clearly
    more often than their canonical prompt (possible meaning drift).
    """
    _check(n1, c1, 1)
    _check(n0, c0, 1)
    total, succ = n1 + n0, c1 + c0
    lo, hi = max(0, succ - n0), min(succ, n1)
    denom = _log_comb(total, n1)
    terms = [_log_comb(succ, x) + _log_comb(total - succ, n1 - x) - denom for x in range(max(c1, lo), hi + 1)]
    if not terms:
        return 0.0
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def benjamini_hochberg(p_values: Sequence[float], q: float = 0.05) -> list[bool]:
    """Which of ``m`` tests are discoveries at false discovery rate ``q``.

    Benjamini & Hochberg 1995, "Controlling the False Discovery Rate" (JRSS B 57:289-300): sort
    the p-values, find the largest rank ``i`` with ``p_(i) <= i * q / m``, and reject every test
    whose p-value is at most ``p_(i)``. Under no effect at all (every null true) the chance of
    any discovery is at most ``q``. An empty list gives an empty list.
    """
    if not 0 < q < 1:
        raise ValueError(f"q must be between 0 and 1, got {q}")
    m = len(p_values)
    ranked = sorted(p_values)
    cut = -1.0
    for i, p in enumerate(ranked, start=1):
        if p <= i * q / m:
            cut = p
    return [p <= cut for p in p_values]
