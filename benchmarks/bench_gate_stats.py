"""The statistics of the interval and the gate, reproduced by simulation (not a timed test).

1. Coverage of the 95% two-stage bootstrap interval (:mod:`perturb.report.intervals`) of the
   true change, for matched tasks 1, 2, 3, 5, 10, 30 × n 5, 20 × mean and pass^5, the minimum
   over six true-rate configurations (every task 0.5 -> 0.4, 0.95 -> 0.85, 1.0 -> 0.9,
   0.1 -> 0.0, mixed tasks 0.98/0.6/0.1 each -0.1, and no change at 0.9), next to the
   task-only bootstrap the report used before. Target: >= 0.93 from 3 tasks up.
2. False alarms of the gate on two runs of the same agent, per bundled tier (smoke: 10 tasks,
   n = 3, canonical/paraphrase/distractor, k = 2; full: the bundled example's task counts per
   class, n = 5, k = 5; n = 20: the same at n = 20), default (sound) and --strict. Each
   simulated agent draws a true rate per task and class (60% of them 1.0, 25% uniform
   0.7-1.0, 15% uniform 0-0.7); the baseline and the run are two independent runs of it.
   Target for the default: <= 0.05.
3. Meaning-drift flags with no drift: 30 variants, n 5 and 20, the share of runs with any
   flag, Benjamini-Hochberg (the report's rule) against uncorrected p < 0.05. Target <= 0.05.
4. Power: the simulated share of runs the sound gate fails at the drop
   :func:`~perturb.report.intervals.min_detectable_drop` states. Target: about 0.80.

    .venv/bin/python benchmarks/bench_gate_stats.py [--sims 400] [--seed 0] [--b 1000] [--json PATH]

``--json PATH`` writes the printed lines and every figure (benchmarks/results/gate_stats.json
feeds docs/metrics.md through docs/gen_bench_tables.py).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results import add_json_option, load_average, write_results  # noqa: E402
from perturb.report.intervals import MIN_TASKS, PromptCounts, min_detectable_drop, two_stage_bootstrap
from perturb.report.metrics import benjamini_hochberg, fisher_greater_pvalue, pass_hat_k_array

LINES: list[str] = []
"""Every line printed, in order (the doc block is these lines)."""


def say(line: str = "") -> None:
    print(line)
    LINES.append(line)


K = 5
CONFIGS = {
    "0.5->0.4": ([0.5], [0.4]),
    "0.95->0.85": ([0.95], [0.85]),
    "1.0->0.9": ([1.0], [0.9]),
    "0.1->0.0": ([0.1], [0.0]),
    "mixed -0.1": ([0.98, 0.6, 0.1], [0.88, 0.5, 0.0]),
    "same 0.9": ([0.9], [0.9]),
}
FULL_TASKS = {  # tasks per class of the bundled suite's full tier
    "canonical": 46,
    "paraphrase": 28,
    "reorder": 16,
    "distractor": 46,
    "self_correction": 46,
    "typo": 46,
    "register": 41,
}
TIERS = {  # name -> (tasks per class, n, k)
    "smoke": ({"canonical": 10, "paraphrase": 10, "distractor": 10}, 3, 2),
    "full": (
        FULL_TASKS,
        5,
        5,
    ),
    "n=20": (
        FULL_TASKS,
        20,
        5,
    ),
}


def arm(n: int, c: np.ndarray) -> PromptCounts:
    return PromptCounts.of(np.full(c.size, n), c, np.arange(c.size))


def task_only(cur: np.ndarray, ref: np.ndarray, rng: np.random.Generator, b: int) -> tuple[float, float]:
    """The report's former interval: tasks resampled, per-task figures carried whole."""
    d = cur - ref
    idx = rng.integers(0, d.size, size=(b, d.size))
    lo, hi = np.quantile(d[idx].mean(axis=1), [0.025, 0.975])
    return float(lo), float(hi)


def coverage(sims: int, seed: int, b: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    say("1. coverage of the true change by the 95% interval (minimum over 6 configurations)")
    say(f"   {sims} simulated runs per configuration and cell, B={b}; target >= 0.93 from {MIN_TASKS} tasks")
    head = f"   {'tasks':>5} {'n':>3}  {'mean':>6} {'pass^5':>7}   {'task-only mean':>14} {'pass^5':>7}"
    say(head + "   worst case")
    for tasks in (1, 2, 3, 5, 10, 30):
        for n in (5, 20):
            worst = [1.0, 1.0, 1.0, 1.0]
            where = ["", ""]
            for name, (base, cur) in CONFIGS.items():
                rng = np.random.default_rng([seed, tasks, n, len(name)])
                pb, pc = np.resize(base, tasks), np.resize(cur, tasks)
                true = np.array([np.mean(pc - pb), np.mean(pc**K - pb**K)])
                hits = np.zeros(4)
                for s in range(sims):
                    cb, cc = rng.binomial(n, pb), rng.binomial(n, pc)
                    res = two_stage_bootstrap(
                        arm(n, cc), arm(n, cb), np.ones(tasks), [K], b=b, seed=[seed, s]
                    )
                    # held at the report's resolution (3 decimals): a bound shown as -0.000 holds -0.00001
                    hits[:2] += (res.low - 5e-4 <= true) & (true <= res.high + 5e-4)
                    old = ((cc / n, cb / n), (pass_hat_k_array(n, cc, K), pass_hat_k_array(n, cb, K)))
                    for i, (cur_fig, ref_fig) in enumerate(old):
                        lo, hi = task_only(cur_fig, ref_fig, rng, b)
                        hits[2 + i] += lo - 5e-4 <= true[i] <= hi + 5e-4
                cov = hits / sims
                for i in range(4):
                    if cov[i] < worst[i]:
                        worst[i] = cov[i]
                        if i < 2:
                            where[i] = name
            flag = "" if tasks < MIN_TASKS or min(worst[:2]) >= 0.93 else "  BELOW TARGET"
            cells = f"{worst[0]:>6.3f} {worst[1]:>7.3f}   {worst[2]:>14.3f} {worst[3]:>7.3f}"
            say(f"   {tasks:>5} {n:>3}  {cells}   mean: {where[0]}, pass^5: {where[1]}{flag}")
            rows.append(
                {"tasks": tasks, "n": n, "mean": worst[0], "pass^5": worst[1],
                 "task_only_mean": worst[2], "task_only_pass^5": worst[3]}
            )  # fmt: skip
    return rows


def agent_rates(rng: np.random.Generator, size: int) -> np.ndarray:
    kind = rng.random(size)
    return np.where(
        kind < 0.6, 1.0, np.where(kind < 0.85, rng.uniform(0.7, 1.0, size), rng.uniform(0.0, 0.7, size))
    )


def false_alarms(sims: int, seed: int, b: int, tol: float = 0.05) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    say()
    say(f"2. false alarms on two runs of the same agent (tolerance {tol}, {sims} pairs per tier, B={b})")
    say(f"   {'tier':<6} {'default':>8} {'strict':>7}  {'strict, labels only':>20}  target (default) <= 0.05")
    for tier, (classes, n, k) in TIERS.items():
        rng = np.random.default_rng([seed, n, len(classes)])
        sound = strict = labels = 0
        for s in range(sims):
            fail_sound = fail_points = fail_labels = False
            for ci, tasks in enumerate(classes.values()):
                p = agent_rates(rng, tasks)
                cb, cc = rng.binomial(n, p), rng.binomial(n, p)
                res = two_stage_bootstrap(
                    arm(n, cc), arm(n, cb), np.ones(tasks), [k], b=b, seed=[seed, s, ci]
                )
                fail_sound |= bool(tasks >= MIN_TASKS and np.any(res.high < -tol - 1e-9))
                fail_points |= bool(np.any(res.point < -tol - 1e-9))
                newly_flaky = (cb == n) & (cc > 0) & (cc < n)
                newly_failing = (cb > 0) & (cc == 0)
                fail_labels |= bool(np.any(newly_flaky | newly_failing))
            sound += fail_sound
            strict += fail_points or fail_labels
            labels += fail_labels
        say(f"   {tier:<6} {sound / sims:>8.3f} {strict / sims:>7.3f}  {labels / sims:>20.3f}")
        rows.append({"tier": tier, "default": sound / sims, "strict": strict / sims, "labels": labels / sims})
    return rows


def drift(sims: int, seed: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    say()
    say(f"3. meaning-drift flags with no drift: 30 variants, share of runs with any flag ({sims} runs)")
    say(f"   {'n':>3}  {'BH q=0.05':>9}  {'uncorrected p<0.05':>18}  target <= 0.05")
    for n in (5, 20):
        rng = np.random.default_rng([seed, n, 30])
        bh = raw = 0
        for _ in range(sims):
            p_true = agent_rates(rng, 30)
            c1, c0 = rng.binomial(n, p_true), rng.binomial(n, p_true)
            p = [fisher_greater_pvalue(n, int(a), n, int(z)) for a, z in zip(c1, c0, strict=True)]
            bh += any(benjamini_hochberg(p))
            raw += any(x < 0.05 for x in p)
        say(f"   {n:>3}  {bh / sims:>9.3f}  {raw / sims:>18.3f}")
        rows.append({"n": n, "runs": sims, "bh": bh / sims, "uncorrected": raw / sims})
    return rows


def power(sims: int, seed: int, b: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    say()
    say(f"4. power of the sound gate at the stated drop ({sims} runs per design, B={b}); target about 0.80")
    head = f"   {'n':>3} {'tasks':>5} {'k':>2} {'rate':>5} {'tol':>5}  {'stated drop':>11}"
    say(f"{head}  {'simulated power':>15}")
    for n, tasks, k, rate, tol in (
        (5, 10, 1, 0.7, 0.05),
        (20, 10, 1, 0.7, 0.05),
        (20, 30, 1, 0.9, 0.05),
        (20, 10, 5, 0.9, 0.05),
        (5, 30, 5, 0.9, 0.05),
        (3, 10, 2, 0.9, 0.05),
    ):
        drop = min_detectable_drop(n, tasks, tol, k=k, rate=rate)
        assert drop is not None
        p_cur = (rate**k - drop) ** (1 / k)
        rng = np.random.default_rng([seed, n, tasks, k])
        fails = 0
        for s in range(sims):
            cb, cc = rng.binomial(n, rate, tasks), rng.binomial(n, p_cur, tasks)
            res = two_stage_bootstrap(
                arm(n, cc), arm(n, cb), np.ones(tasks), [k] if k > 1 else [], b=b, seed=[seed, s]
            )
            fails += bool(res.high[-1] < -tol)
        say(f"   {n:>3} {tasks:>5} {k:>2} {rate:>5} {tol:>5}  {drop:>11.3f}  {fails / sims:>15.3f}")
        rows.append(
            {"n": n, "tasks": tasks, "k": k, "rate": rate, "tol": tol, "drop": drop, "power": fails / sims}
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sims", type=int, default=400, help="simulated runs per cell")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--b", type=int, default=1000, help="bootstrap resamples")
    add_json_option(parser)
    args = parser.parse_args()
    load_before = load_average()
    start = time.perf_counter()
    figures: dict[str, object] = {"sims": args.sims, "seed": args.seed, "b": args.b}
    figures["coverage"] = coverage(args.sims, args.seed, args.b)
    figures["false_alarms"] = false_alarms(args.sims, args.seed, args.b)
    figures["drift"] = drift(args.sims * 5, args.seed)
    figures["power"] = power(args.sims, args.seed, args.b)
    seconds = time.perf_counter() - start
    say(f"\n(seed {args.seed}, {seconds:.0f} s)")
    figures["seconds"] = round(seconds)
    figures["output"] = LINES
    write_results(args.json, figures, load_before)


if __name__ == "__main__":
    main()
