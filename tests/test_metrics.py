"""Estimators, weights and the paired bootstrap against hand-computed values and the seeds."""

from __future__ import annotations

import math
import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from perturb.report.aggregate import Analysis, analyze
from perturb.report.metrics import (
    benjamini_hochberg,
    fisher_greater_pvalue,
    mean_success,
    pass_at_k,
    pass_at_k_array,
    pass_hat_k,
    pass_hat_k_array,
    pass_hat_k_curve,
    weighted_mean,
)
from perturb.report.results import read_run
from tests.synthetic_runs import Prompt, write_run

WORKED_COUNTS = [5, 4, 2, 0]  # four tasks A-D, five trials each, c = 5, 4, 2, 0 passes


# --------------------------------------------------------------------------- a worked example


def test_per_task_mean_pass_at_2_and_pass_hat_2_of_four_tasks() -> None:
    # A mean=1.000 any=1.000 all=1.000 / B 0.8 1.0 0.6 / C 0.4 0.7 0.1 / D 0 0 0
    expected = [(1.0, 1.0, 1.0), (0.8, 1.0, 0.6), (0.4, 0.7, 0.1), (0.0, 0.0, 0.0)]
    for c, (mean, any_, all_) in zip(WORKED_COUNTS, expected, strict=True):
        assert mean_success(5, c) == pytest.approx(mean, abs=1e-15)
        assert pass_at_k(5, c, 2) == pytest.approx(any_, abs=1e-15)
        assert pass_hat_k(5, c, 2) == pytest.approx(all_, abs=1e-15)


def test_macro_figures_average_per_task_values() -> None:
    assert weighted_mean([mean_success(5, c) for c in WORKED_COUNTS]) == pytest.approx(0.550)
    assert weighted_mean([pass_at_k(5, c, 2) for c in WORKED_COUNTS]) == pytest.approx(0.675)
    assert weighted_mean([pass_hat_k(5, c, 2) for c in WORKED_COUNTS]) == pytest.approx(0.425)
    # the array forms agree
    assert pass_at_k_array(5, WORKED_COUNTS, 2).mean() == pytest.approx(0.675)
    assert pass_hat_k_array(5, WORKED_COUNTS, 2).mean() == pytest.approx(0.425)
    # and so does the whole pipeline (canonical class of a synthetic run)
    outcomes = {f"t{i}": "P" * c + "W" * (5 - c) for i, c in enumerate(WORKED_COUNTS)}
    analysis = analyze_counts(outcomes, [1, 2])
    canon = analysis.classes[0]
    assert (canon.mean, canon.pass_at[2], canon.pass_hat[2]) == pytest.approx((0.55, 0.675, 0.425))


def test_pass_at_2_of_2_in_5_is_0_7_and_k_1_is_c_over_n() -> None:
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7, abs=1e-15)
    # 1 - C(3,2)/C(5,2) = 1 - 3/10
    assert pass_at_k(5, 2, 2) == float(1 - Fraction(3, 10))
    for n in range(1, 9):
        for c in range(n + 1):
            assert pass_at_k(n, c, 1) == pytest.approx(c / n, abs=1e-15)
            assert pass_hat_k(n, c, 1) == pytest.approx(c / n, abs=1e-15)


def test_identity_pass_hat_equals_one_minus_pass_at_of_failures() -> None:
    for n in range(1, 16):
        for c in range(n + 1):
            for k in range(1, n + 1):
                assert pass_hat_k(n, c, k) == pytest.approx(1 - pass_at_k(n, n - c, k), abs=1e-14)
    n = np.arange(1, 40)
    c = n // 3
    assert np.allclose(pass_hat_k_array(n, c, 1), 1 - pass_at_k_array(n, n - c, 1), atol=1e-14)


def test_scalar_forms_are_exact_binomial_ratios() -> None:
    for n in range(1, 30):
        for c in range(n + 1):
            for k in range(1, n + 1):
                hat = Fraction(math.comb(c, k), math.comb(n, k))
                at = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
                assert pass_hat_k(n, c, k) == float(hat)  # correctly rounded
                assert pass_at_k(n, c, k) == float(at)


def test_array_forms_match_scalar_forms() -> None:
    rng = np.random.default_rng(3)
    n = rng.integers(1, 400, size=500)
    c = (rng.random(500) * (n + 1)).astype(np.int64).clip(0, n)
    k = (rng.random(500) * n).astype(np.int64) + 1
    hat = pass_hat_k_array(n, c, k)
    at = pass_at_k_array(n, c, k)
    for i in range(500):
        assert hat[i] == pytest.approx(pass_hat_k(int(n[i]), int(c[i]), int(k[i])), rel=1e-12, abs=1e-300)
        assert at[i] == pytest.approx(pass_at_k(int(n[i]), int(c[i]), int(k[i])), rel=1e-12)


def test_rates_1_and_0_give_pass_hat_2_of_one_half_not_a_quarter() -> None:
    """Per task first; squaring the overall mean would give 0.25."""
    per_task = [pass_hat_k(4, 4, 2), pass_hat_k(4, 0, 2)]
    assert weighted_mean(per_task) == 0.5
    mean = weighted_mean([mean_success(4, 4), mean_success(4, 0)])
    assert mean**2 == 0.25  # the wrong answer the estimator must not give
    analysis = analyze_counts({"always": "PPPP", "never": "WWWW"}, [1, 2])
    canon = analysis.classes[0]
    assert canon.mean == 0.5
    assert canon.pass_hat[2] == 0.5
    assert canon.curve == [(1, 0.5), (2, 0.5), (3, 0.5), (4, 0.5)]


# --------------------------------------------------------------------------- bias


def _binomial(n: int, p: float, c: int) -> float:
    return math.comb(n, c) * p**c * (1 - p) ** (n - c)


def expected_hypergeometric(n: int, p: float, k: int) -> float:
    return math.fsum(_binomial(n, p, c) * pass_hat_k(n, c, k) for c in range(n + 1))


def expected_plugin(n: int, p: float, k: int) -> float:
    return math.fsum(_binomial(n, p, c) * (c / n) ** k for c in range(n + 1))


def test_unbiased_in_closed_form_versus_the_plugin() -> None:
    # n = 8, p = 0.6, k = 4: the plug-in averages 0.195 against a true 0.130.
    assert 0.6**4 == pytest.approx(0.1296)
    assert expected_hypergeometric(8, 0.6, 4) == pytest.approx(0.6**4, abs=1e-12)
    assert round(expected_plugin(8, 0.6, 4), 3) == 0.195
    # n = 50: the gap narrows to 0.140 against 0.130.
    assert round(expected_plugin(50, 0.6, 4), 3) == 0.140
    assert expected_hypergeometric(50, 0.6, 4) == pytest.approx(0.1296, abs=1e-12)
    # exactly unbiased everywhere we look; the plug-in is biased upward
    for n in (4, 5, 8, 13, 20):
        for p in (0.1, 0.5, 0.612, 0.9):
            for k in range(2, n + 1):
                assert expected_hypergeometric(n, p, k) == pytest.approx(p**k, abs=1e-12)
                assert expected_plugin(n, p, k) > p**k


def test_pass_at_k_is_unbiased_for_one_minus_q_to_the_k() -> None:
    for n, p, k in ((8, 0.6, 4), (10, 0.2, 3), (5, 0.9, 5)):
        expect = math.fsum(_binomial(n, p, c) * pass_at_k(n, c, k) for c in range(n + 1))
        assert expect == pytest.approx(1 - (1 - p) ** k, abs=1e-12)


# --------------------------------------------------------------------------- large n


def test_stable_for_n_up_to_a_million() -> None:
    n = 10**6
    # C(n-1, k) / C(n, k) = (n - k) / n and 1 - C(n-1, k)/C(n, k) = k / n
    for k in (1, 10, 5_000, 500_000, n):
        assert pass_hat_k(n, n - 1, k) == pytest.approx((n - k) / n, rel=1e-12, abs=1e-300)
        assert pass_at_k(n, 1, k) == pytest.approx(k / n, rel=1e-12)
    assert pass_hat_k(n, n, n) == 1.0
    assert pass_hat_k(n, n - 1, n) == 0.0
    assert pass_at_k(n, 0, n) == 0.0
    # a long product (5,000 terms > the exact limit): log space, checked against exact integers
    exact = Fraction(math.perm(990_000, 5_000), math.perm(n, 5_000))
    assert pass_hat_k(n, 990_000, 5_000) == pytest.approx(float(exact), rel=1e-9)
    exact_at = 1 - Fraction(math.perm(n - 5_000, 10_000), math.perm(n, 10_000))
    assert pass_at_k(n, 10_000, 5_000) == pytest.approx(float(exact_at), rel=1e-9)
    # underflow gives 0, never NaN or an overflow
    assert pass_hat_k(n, n // 2, n // 4) == 0.0
    values = pass_hat_k_array(np.full(7, n), [0, 1, 10, n // 2, n - 10, n - 1, n], 1_000)
    assert np.all(np.isfinite(values))
    assert values[-1] == 1.0 and values[0] == 0.0
    assert values[5] == pytest.approx((n - 1_000) / n, rel=1e-12)
    assert np.all(np.isfinite(pass_at_k_array(np.full(3, n), [1, n // 2, n], n // 2)))


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((5, 2, 0), "k must be >= 1, got k=0"),
        ((5, 2, -1), "k must be >= 1, got k=-1"),
        ((5, 2, 6), "k must be <= n, got k=6 with only n=5 trials (run at least k trials per prompt)"),
        ((5, 6, 2), "c must be <= n, got c=6 successes out of n=5 trials"),
        ((5, -1, 2), "c must be >= 0 (the number of successes), got c=-1"),
        ((0, 0, 1), "n must be >= 1 (the number of trials), got n=0"),
        ((-3, 0, 1), "n must be >= 1 (the number of trials), got n=-3"),
        ((5, 2.5, 2), "c must be a whole number, got 2.5"),
        ((5, True, 2), "c must be a whole number, got True"),
    ],
)
def test_bad_counts_raise_clear_errors(args: tuple[int, int, int], message: str) -> None:
    for fn in (pass_at_k, pass_hat_k):
        with pytest.raises(ValueError) as exc:
            fn(*args)
        assert str(exc.value) == message


def test_bad_counts_in_arrays_name_the_index() -> None:
    with pytest.raises(ValueError) as exc:
        pass_hat_k_array([5, 5, 5], [1, 6, 2], 2)
    assert str(exc.value) == "c must be <= n: at index 1 n=5, c=6, k=2"
    with pytest.raises(ValueError) as exc:
        pass_at_k_array([5, 3], [1, 1], 4)
    assert str(exc.value) == ("k must be <= n (run at least k trials per prompt): at index 1 n=3, c=1, k=4")
    with pytest.raises(ValueError, match="must hold whole numbers"):
        pass_at_k_array([5.5], [1], 1)


def test_floats_that_are_whole_numbers_are_accepted() -> None:
    assert pass_hat_k(5.0, 4.0, 2) == pytest.approx(0.6)  # type: ignore[arg-type]
    assert pass_hat_k_array(np.array([5.0]), np.array([4.0]), 2)[0] == pytest.approx(0.6)


# --------------------------------------------------------------------------- weights, curve


def test_weighted_mean() -> None:
    assert weighted_mean([1.0, 0.0], [3, 1]) == 0.75
    assert weighted_mean([0.2, 0.4, 0.9]) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="no values"):
        weighted_mean([])
    with pytest.raises(ValueError, match="does not match"):
        weighted_mean([1.0, 0.0], [1.0])
    with pytest.raises(ValueError, match="finite and > 0"):
        weighted_mean([1.0, 0.0], [1.0, 0.0])


def test_declared_weights_flow_through_the_report() -> None:
    analysis = analyze_counts({"heavy": "PPPP", "light": "WWWW"}, [2], weights={"heavy": 3.0})
    canon = analysis.classes[0]
    assert canon.mean == 0.75
    assert canon.pass_hat[2] == 0.75


def test_variants_are_averaged_within_a_task_before_tasks_are_averaged(tmp_path: Path) -> None:
    # t1 has two paraphrases (4/4 and 0/4 -> task mean 0.5), t2 one (4/4): class mean 0.75,
    # not the pooled 8/12.
    prompts = [
        Prompt("t1", "PPPP"),
        Prompt("t2", "PPPP"),
        Prompt("t1", "PPPP", "paraphrase", "c-1"),
        Prompt("t1", "WWWW", "paraphrase", "c-2"),
        Prompt("t2", "PPPP", "paraphrase", "c-3"),
    ]
    analysis = analyze(read_run(write_run(tmp_path, "r", prompts)), [2], bootstrap=200)
    para = analysis.classes[1]
    assert para.kind == "paraphrase"
    assert para.mean == 0.75
    assert para.pass_hat[2] == 0.75
    assert para.worst_variant_mean == 0.5  # t1 scored by its weakest variant (0), t2 by 1
    assert para.delta is not None and para.delta.mean.point == -0.25


def test_pass_hat_k_curve() -> None:
    curve = pass_hat_k_curve([5, 5, 5, 5], WORKED_COUNTS)
    assert [k for k, _ in curve] == [1, 2, 3, 4, 5]
    assert [v for _, v in curve] == pytest.approx([0.55, 0.425, 0.35, 0.3, 0.25])
    # a coin flip on every task decays; half always / half never stays at 0.5
    assert pass_hat_k_curve([8, 8], [8, 0], k_max=8)[-1] == (8, 0.5)
    with pytest.raises(ValueError, match="exceeds the smallest n=4"):
        pass_hat_k_curve([4, 8], [1, 1], k_max=5)


# --------------------------------------------------------------------------- drift test


def test_fisher_one_sided_p_values() -> None:
    assert fisher_greater_pvalue(5, 5, 5, 0) == pytest.approx(1 / 252)
    # P(X >= 4) with 5 successes among 10 trials, 5 of them the variant's: (25 + 1) / 252
    assert fisher_greater_pvalue(5, 4, 5, 1) == pytest.approx(26 / 252)
    assert fisher_greater_pvalue(5, 0, 5, 5) == pytest.approx(1.0)


# --------------------------------------------------------------------------- helpers


def analyze_counts(
    outcomes: dict[str, str], ks: list[int], weights: dict[str, float] | None = None
) -> Analysis:
    """Analyse a canonical-only synthetic run with these outcome letters per task."""
    with tempfile.TemporaryDirectory() as tmp:
        prompts = [
            Prompt(task, letters, weight=(weights or {}).get(task, 1.0)) for task, letters in outcomes.items()
        ]
        return analyze(read_run(write_run(Path(tmp), "r", prompts)), ks, bootstrap=100)


def test_benjamini_hochberg_by_hand() -> None:
    # m = 5, q = 0.05: thresholds 0.01 0.02 0.03 0.04 0.05; sorted 0.001 0.015 0.029 0.2 0.9:
    # the largest rank under its threshold is 3 (0.029 <= 0.03), so the first three are flagged
    assert benjamini_hochberg([0.2, 0.015, 0.9, 0.001, 0.029]) == [False, True, False, True, True]
    # one p of 0.04 among 30: 0.04 > 1 * 0.05 / 30, nothing flagged (uncorrected it would be)
    assert not any(benjamini_hochberg([0.04] + [0.5] * 29))
    assert benjamini_hochberg([]) == []
    with pytest.raises(ValueError, match="q must be between 0 and 1"):
        benjamini_hochberg([0.1], q=0)


def test_drift_flags_under_no_drift_stay_below_five_percent() -> None:
    # 30 variants, each with its own canonical prompt, same true rate, n = 20: the share of
    # simulated runs with any flag (400 runs; docs/metrics.md has 2000 per cell)
    rng = np.random.default_rng(5)
    flagged = 0
    for _ in range(400):
        c1, c0 = rng.binomial(20, 0.7, 30), rng.binomial(20, 0.7, 30)
        p = [fisher_greater_pvalue(20, int(a), 20, int(b)) for a, b in zip(c1, c0, strict=True)]
        flagged += any(benjamini_hochberg(p))
    assert flagged / 400 <= 0.05
