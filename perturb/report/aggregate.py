"""From per-variant counts to the report's figures, aggregated per task first.

Per (task, variant) first: mean success ``c/n``, pass@k and pass^k from the binomial
estimators. Then a task's variants are averaged within a class. Then tasks are averaged with
their declared weights (never the other way round: raising a pooled mean to the k-th power
erases the differences between tasks). Labels are per prompt first too: a task is flaky within
a class only when one of its prompts is (:func:`perturb.report.figures.task_label`). A class's delta
against canonical uses matched tasks only (tasks with at least one variant of the class and a
canonical prompt) with a paired task-level bootstrap interval. Errored trials count as
failures; the figures without them are given too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from perturb.errors import InputError, UsageError
from perturb.generate.perturbations import variant_kinds
from perturb.records import CANONICAL
from perturb.report.figures import (
    LABELS,
    Analysis,
    ClassSummary,
    Delta,
    DriftRow,
    FaultClassRow,
    FaultSummary,
    Interval,
    Label,
    LambdaRow,
    LevelRow,
    TaskRow,
    prompt_label,
    task_label,
)
from perturb.report.intervals import (
    MIN_TASKS,
    PromptCounts,
    min_detectable_drop,
    reliable,
    two_stage_bootstrap,
)
from perturb.report.metrics import (
    benjamini_hochberg,
    fisher_greater_pvalue,
    pass_at_k_array,
    pass_hat_k_array,
    stream_seed,
)
from perturb.report.results import FaultRow, RunData, Variant
from perturb.report.rounding import f3

DEFAULT_KS = (1, 2, 5)
CURVE_MIN = 8
"""The pass^k curve runs to max(8, largest k) where n allows: publishing k = 1..8, not only the
k that flatters, shows how fast reliability decays."""
DRIFT_Q = 0.05
"""False discovery rate of the meaning-drift flags: one-sided Fisher tests of every variant
against its canonical prompt, Benjamini-Hochberg at this q over all the run's variants."""
WORST_TASKS = 5

__all__ = [
    "LABELS",
    "Analysis",
    "ClassSummary",
    "Delta",
    "DriftRow",
    "Interval",
    "Label",
    "LevelRow",
    "TaskRow",
    "TaskTable",
    "analyze",
    "class_order",
    "delta_of",
    "fault_variants",
    "matched",
    "paired_counts",
    "per_task",
    "prompt_label",
    "resolve_ks",
    "task_label",
    "wmean",
]


def class_order(kinds: set[str]) -> list[str]:
    """canonical first, then the six classes in report order, then anything else sorted."""
    known = list(variant_kinds())
    return [k for k in known if k in kinds] + sorted(kinds - set(known))


def resolve_ks(data: RunData, ks: list[int] | None) -> list[int]:
    """The k values to report: the requested ones (each <= the smallest n) or 1, 2, 5 up to n."""
    n_min = min(v.n for v in data.variants)
    if ks is None:
        return [k for k in DEFAULT_KS if k <= n_min]
    bad = [k for k in ks if k < 1]
    if bad:
        raise UsageError(f"--k {bad[0]} is not a positive whole number (expected e.g. --k 1,2,5)")
    too_big = [k for k in ks if k > n_min]
    if too_big:
        raise UsageError(
            f"--k {too_big[0]} exceeds the smallest number of trials per prompt in the run "
            f"(n={n_min}); choose k <= {n_min} or run more trials"
        )
    return sorted(set(ks))


@dataclass
class TaskTable:
    """Per-task figures of one set of variants: a task's variants averaged."""

    ids: list[str]
    weights: NDArray[np.float64]
    mean: NDArray[np.float64]
    pass_at: dict[int, NDArray[np.float64]]
    pass_hat: dict[int, NDArray[np.float64]]
    worst_mean: NDArray[np.float64]
    worst_pass_hat: NDArray[np.float64]
    variant_task: NDArray[np.int64]


def per_task(variants: list[Variant], ks: list[int], k: int) -> TaskTable:
    """Per-task figures: each variant's estimates, averaged over a task's variants."""
    ids = sorted({v.task_id for v in variants})
    pos = {t: i for i, t in enumerate(ids)}
    vt = np.array([pos[v.task_id] for v in variants], dtype=np.int64)
    n = np.array([v.n for v in variants], dtype=np.int64)
    c = np.array([v.passed for v in variants], dtype=np.int64)
    nt = len(ids)
    count = np.bincount(vt, minlength=nt).astype(np.float64)

    def avg(values: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.bincount(vt, weights=values, minlength=nt) / count

    def worst(values: NDArray[np.float64]) -> NDArray[np.float64]:
        out = np.full(nt, np.inf)
        np.minimum.at(out, vt, values)
        return out

    weights = np.zeros(nt)
    for v in variants:
        weights[pos[v.task_id]] = v.weight
    mean_v = c / n
    return TaskTable(
        ids=ids,
        weights=weights,
        mean=avg(mean_v),
        pass_at={kk: avg(pass_at_k_array(n, c, kk)) for kk in ks},
        pass_hat={kk: avg(pass_hat_k_array(n, c, kk)) for kk in ks},
        worst_mean=worst(mean_v),
        worst_pass_hat=worst(pass_hat_k_array(n, c, k)),
        variant_task=vt,
    )


def wmean(values: NDArray[np.float64], weights: NDArray[np.float64]) -> float:
    return float(np.dot(values, weights) / weights.sum())


def analyze(
    data: RunData,
    ks: list[int] | None = None,
    *,
    bootstrap: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> Analysis:
    """Compute every figure of the report from a run (see the module docstring)."""
    if not data.variants:
        raise InputError(
            str(data.path / "trials.jsonl"),
            "no trials (expected at least one Trial line; did the run start?)",
        )
    if bootstrap < 1:
        raise UsageError(f"--bootstrap {bootstrap} must be >= 1 (e.g. the default 2000)")
    ks = resolve_ks(data, ks)
    k = max(ks)
    by_kind: dict[str, list[int]] = {}
    for i, v in enumerate(data.variants):
        by_kind.setdefault(v.kind, []).append(i)
    kinds = class_order(set(by_kind))
    by_kind_variants = {kind: [data.variants[i] for i in idx] for kind, idx in by_kind.items()}
    canon = per_task(by_kind_variants[CANONICAL], ks, k) if (CANONICAL in by_kind) else None
    classes: list[ClassSummary] = []
    tasks: list[TaskRow] = []
    variant_kind_idx = np.array([kinds.index(v.kind) for v in data.variants], dtype=np.int64)
    trial_kind = variant_kind_idx[data.trial_variant] if data.trial_variant.size else np.array([])
    for kind_i, kind in enumerate(kinds):
        members = [data.variants[i] for i in by_kind[kind]]
        table = per_task(members, ks, k)
        rows = _task_rows(data, by_kind[kind], members, table, ks, kind)
        tasks.extend(rows)
        summary = _class_summary(data, kind, members, table, rows, ks, k, canon)
        summary.delta = (
            None
            if kind == CANONICAL or canon is None
            else delta_of(
                members,
                by_kind_variants[CANONICAL],
                ks,
                b=bootstrap,
                seed=stream_seed(seed, kind),
                level=level,
            )
        )
        summary.levels = _levels(members, ks, k, canon)
        _trial_figures(data, summary, trial_kind == kind_i)
        classes.append(summary)
    worst = sorted(
        (r for r in tasks if r.label != "stable-pass"),
        key=lambda r: (r.pass_hat[k], r.mean, r.task_id, kinds.index(r.kind)),
    )[:WORST_TASKS]
    n_all = [v.n for v in data.variants]
    analysis = Analysis(
        data=data,
        ks=ks,
        k=k,
        bootstrap=bootstrap,
        seed=seed,
        level=level,
        classes=classes,
        tasks=tasks,
        worst=worst,
        consistently_wrong=[r for r in tasks if r.consistently_wrong],
        drift=_drift(data),
        warnings=[],
        notes=list(data.notes),
        n_tasks=len({v.task_id for v in data.variants}),
        n_variants=len(data.variants),
        n_trials=int(sum(n_all)),
        n_min=min(n_all),
        n_max=max(n_all),
    )
    analysis.faults = _faults(data, ks, bootstrap, seed, level)
    analysis.warnings = _warnings(analysis)
    analysis.notes += _power_notes(analysis)
    return analysis


def fault_variants(rows: list[FaultRow]) -> list[Variant]:
    """Per-prompt counts of fault trials (rows of one λ)."""
    out: dict[str, Variant] = {}
    for row in rows:
        v = out.get(row[0])
        if v is None:
            v = out[row[0]] = Variant(row[0], row[1], row[2], None, 0.0, row[3])
        v.n += 1
        outcome = row[7]
        if outcome == 0:
            v.passed += 1
        elif outcome == 1:
            v.wrong += 1
        else:
            v.errored += 1
    return list(out.values())


def _faults(data: RunData, ks: list[int], b: int, seed: int, level: float) -> FaultSummary | None:
    """The fault axis: per λ the figures (per task first) and the paired delta against λ = 0
    on matched tasks (the same bootstrap as a class's delta); per fault class, trials that met
    it against trials that met none, per task first."""
    spec = data.manifest.faults
    if spec is None:
        return None
    rows = data.faults.rows
    by_lam: dict[float, list[FaultRow]] = {}
    for row in rows:
        by_lam.setdefault(row[4], []).append(row)
    zero = by_lam.pop(0.0, [])
    reference = data.variants
    ref_ks = [kk for kk in ks if kk <= min(v.n for v in reference)]
    ref_k = max(ref_ks)
    ref_table = per_task(reference, ref_ks, ref_k)
    lambdas = [
        LambdaRow(
            lam=0.0,
            n_tasks=len(ref_table.ids),
            n_variants=len(reference),
            n_trials=sum(v.n for v in reference),
            n_min=min(v.n for v in reference),
            n_max=max(v.n for v in reference),
            mean=wmean(ref_table.mean, ref_table.weights),
            pass_hat={kk: wmean(ref_table.pass_hat[kk], ref_table.weights) for kk in ref_ks},
            delta=None,
            errored=sum(v.errored for v in reference),
            calls=sum(r[9] for r in zero),
            faulted_calls=0,
            early_calls=0,
            give_up_trials=0,
            duplicates=sum(r[13] for r in zero),
        )
    ]
    for lam in sorted(by_lam):
        lam_rows = by_lam[lam]
        variants = fault_variants(lam_rows)
        n_min = min(v.n for v in variants)
        lam_ks = [kk for kk in ref_ks if kk <= n_min]
        table = per_task(variants, lam_ks or [1], max(lam_ks or [1]))
        delta = (
            delta_of(variants, reference, lam_ks, b=b, seed=stream_seed(seed, f"lam={lam!r}"), level=level)
            if lam_ks
            else None
        )
        lambdas.append(
            LambdaRow(
                lam=lam,
                n_tasks=len(table.ids),
                n_variants=len(variants),
                n_trials=len(lam_rows),
                n_min=n_min,
                n_max=max(v.n for v in variants),
                mean=wmean(table.mean, table.weights),
                pass_hat={kk: wmean(table.pass_hat[kk], table.weights) for kk in lam_ks},
                delta=delta,
                errored=sum(v.errored for v in variants),
                calls=sum(r[9] for r in lam_rows),
                faulted_calls=sum(r[10] for r in lam_rows),
                early_calls=sum(r[11] for r in lam_rows),
                give_up_trials=sum(1 for r in lam_rows if r[12]),
                duplicates=sum(r[13] for r in lam_rows),
            )
        )
    faulty = [r for r in rows if r[4] > 0.0]
    return FaultSummary(classes=list(spec.get("classes", [])), lambdas=lambdas, by_class=_by_class(faulty))


def _by_class(rows: list[FaultRow]) -> list[FaultClassRow]:
    """Per fault class met at λ > 0: its trials' success against no-fault trials, per task."""
    clean: dict[str, list[int]] = {}
    met: dict[str, dict[str, list[int]]] = {}
    weights: dict[str, float] = {}
    for row in rows:
        task, passed = row[1], int(row[7] == 0)
        weights[task] = row[3]
        if not row[8]:
            clean.setdefault(task, []).append(passed)
        for fault in row[8]:
            met.setdefault(fault, {}).setdefault(task, []).append(passed)
    out = []
    for fault, tasks in met.items():
        both = sorted(t for t in tasks if t in clean)
        if not both:
            continue
        w = np.array([weights[t] for t in both])
        met_rate = np.array([np.mean(tasks[t]) for t in both])
        clean_rate = np.array([np.mean(clean[t]) for t in both])
        out.append(
            FaultClassRow(
                fault=fault,
                n_tasks=len(both),
                n_met=sum(len(tasks[t]) for t in both),
                n_clean=sum(len(clean[t]) for t in both),
                met_mean=wmean(met_rate, w),
                clean_mean=wmean(clean_rate, w),
            )
        )
    return sorted(out, key=lambda r: (r.delta, r.fault))


def _task_rows(
    data: RunData,
    indices: list[int],
    members: list[Variant],
    table: TaskTable,
    ks: list[int],
    kind: str,
) -> list[TaskRow]:
    nt = len(table.ids)
    vt = table.variant_task
    sums = {
        name: np.bincount(vt, weights=[getattr(v, name) for v in members], minlength=nt)
        for name in ("n", "passed", "wrong", "errored")
    }
    # Distinct wrong outputs per task across the class's variants, from the kept trials.
    row_of_variant = np.full(len(data.variants), -1, dtype=np.int64)
    row_of_variant[indices] = vt
    rows_t = row_of_variant[data.trial_variant]
    sel = (rows_t >= 0) & (data.trial_outcome == 1)
    distinct = np.zeros(nt, dtype=np.int64)
    mine = rows_t >= 0
    latency = np.bincount(rows_t[mine], weights=data.trial_latency[mine], minlength=nt)
    if np.any(sel):
        pairs = np.unique(np.stack([rows_t[sel], data.trial_fingerprint[sel]]), axis=1)
        distinct = np.bincount(pairs[0], minlength=nt)
    sample: dict[int, str] = {}
    prompt_labels: list[list[Label]] = [[] for _ in range(nt)]
    always_failing: list[list[str]] = [[] for _ in range(nt)]
    for v, t in zip(members, vt.tolist(), strict=True):
        if v.wrong_sample is not None:
            sample.setdefault(t, v.wrong_sample)
        label = prompt_label(v.n, v.passed)
        prompt_labels[t].append(label)
        if label == "stable-fail":
            always_failing[t].append(v.variant_id)
    rows = []
    for t, task_id in enumerate(table.ids):
        n, c = int(sums["n"][t]), int(sums["passed"][t])
        wrong = int(sums["wrong"][t])
        consistent = wrong >= 2 and int(distinct[t]) == 1
        rows.append(
            TaskRow(
                task_id=task_id,
                kind=kind,
                weight=float(table.weights[t]),
                variants=int(np.sum(vt == t)),
                n=n,
                passed=c,
                wrong=wrong,
                errored=int(sums["errored"][t]),
                mean=float(table.mean[t]),
                pass_at={kk: float(table.pass_at[kk][t]) for kk in ks},
                pass_hat={kk: float(table.pass_hat[kk][t]) for kk in ks},
                worst_variant_mean=float(table.worst_mean[t]),
                label=task_label(prompt_labels[t]),
                consistently_wrong=consistent,
                wrong_output=sample.get(t) if consistent else None,
                latency_s=float(latency[t]),
                always_failing=sorted(always_failing[t]),
            )
        )
    return rows


def _class_summary(
    data: RunData,
    kind: str,
    members: list[Variant],
    table: TaskTable,
    rows: list[TaskRow],
    ks: list[int],
    k: int,
    canon: TaskTable | None,
) -> ClassSummary:
    w = table.weights
    n = np.array([v.n for v in members], dtype=np.int64)
    e = np.array([v.errored for v in members], dtype=np.int64)
    c = np.array([v.passed for v in members], dtype=np.int64)
    k_curve = min(int(n.min()), max(CURVE_MIN, k))
    curve = []
    for kk in range(1, k_curve + 1):
        per_task = np.bincount(
            table.variant_task, weights=pass_hat_k_array(n, c, kk), minlength=len(table.ids)
        ) / np.bincount(table.variant_task)
        curve.append((kk, wmean(per_task, w)))
    excl_mean, excl_hat, excl_tasks = _excluding_errored(table, n - e, c, k)
    labels = [r.label for r in rows]
    return ClassSummary(
        kind=kind,
        n_tasks=len(table.ids),
        n_variants=len(members),
        n_trials=int(n.sum()),
        n_min=int(n.min()),
        n_max=int(n.max()),
        mean=wmean(table.mean, w),
        pass_at={kk: wmean(table.pass_at[kk], w) for kk in ks},
        pass_hat={kk: wmean(table.pass_hat[kk], w) for kk in ks},
        curve=curve,
        delta=None,
        stable_pass=labels.count("stable-pass"),
        flaky=labels.count("flaky"),
        brittle=labels.count("brittle"),
        stable_fail=labels.count("stable-fail"),
        consistently_wrong=sum(r.consistently_wrong for r in rows),
        errored=int(e.sum()),
        errored_share=float(e.sum() / n.sum()),
        excl_errored_tasks=excl_tasks,
        excl_errored_mean=excl_mean,
        excl_errored_pass_hat=excl_hat,
        worst_variant_mean=wmean(table.worst_mean, w),
        worst_variant_pass_hat=wmean(table.worst_pass_hat, w),
        latency_p50=None,
        latency_p95=None,
        cost_trials=0,
        cost_per_attempt=None,
        input_tokens=None,
        output_tokens=None,
    )


def _excluding_errored(
    table: TaskTable, n_done: NDArray[np.int64], c: NDArray[np.int64], k: int
) -> tuple[float | None, float | None, int]:
    """Mean and pass^k over completed trials only (variants with fewer than k left out)."""
    nt = len(table.ids)
    vt = table.variant_task
    ok = n_done > 0
    if not np.any(ok):
        return None, None, 0
    mean_v = np.where(ok, c / np.maximum(n_done, 1), 0.0)
    cnt = np.bincount(vt[ok], minlength=nt)
    has = cnt > 0
    task_mean = np.bincount(vt[ok], weights=mean_v[ok], minlength=nt)[has] / cnt[has]
    mean = wmean(task_mean, table.weights[has])
    okk = n_done >= k
    hat: float | None = None
    if np.any(okk):
        vals = pass_hat_k_array(n_done[okk], c[okk], k)
        cnt_k = np.bincount(vt[okk], minlength=nt)
        has_k = cnt_k > 0
        per = np.bincount(vt[okk], weights=vals, minlength=nt)[has_k] / cnt_k[has_k]
        hat = wmean(per, table.weights[has_k])
    return mean, hat, int(has.sum())


def matched(table: TaskTable, other: TaskTable) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Positions of the tasks both tables hold: (in ``table``, in ``other``)."""
    pos = {t: i for i, t in enumerate(other.ids)}
    mine = [i for i, t in enumerate(table.ids) if t in pos]
    return (np.array(mine, dtype=np.int64), np.array([pos[table.ids[i]] for i in mine], dtype=np.int64))


def paired_counts(
    current: list[Variant], reference: list[Variant]
) -> tuple[list[str], PromptCounts, PromptCounts, NDArray[np.float64]]:
    """The tasks both arms hold (sorted ids), each arm's prompts on them as
    :class:`~perturb.report.intervals.PromptCounts`, and the tasks' weights (the current arm's)."""
    ref_tasks = {v.task_id for v in reference}
    ids = sorted({v.task_id for v in current} & ref_tasks)
    pos = {t: i for i, t in enumerate(ids)}
    weights = np.zeros(len(ids))
    for v in current:
        if v.task_id in pos:
            weights[pos[v.task_id]] = v.weight

    def arm(variants: list[Variant]) -> PromptCounts:
        # sorted: the random draws go to the same prompts whatever order the trials finished in
        mine = sorted((v for v in variants if v.task_id in pos), key=lambda v: v.variant_id)
        return PromptCounts.of([v.n for v in mine], [v.passed for v in mine], [pos[v.task_id] for v in mine])

    return ids, arm(current), arm(reference), weights


def delta_of(
    current: list[Variant],
    reference: list[Variant],
    ks: list[int],
    *,
    b: int,
    seed: int | list[int],
    level: float,
    tolerance: float = 0.0,
) -> Delta | None:
    """``current - reference`` on matched tasks: mean and pass^k per k with two-stage bootstrap
    intervals (:func:`perturb.report.intervals.two_stage_bootstrap`), flagged unreliable below
    :data:`~perturb.report.intervals.MIN_TASKS` tasks, and the smallest drop of mean and of
    pass^(max k) detected with 80% power at ``tolerance`` (the reference arm's rate, the two
    arms' smallest n). None when no task is in both."""
    ids, cur, ref, w = paired_counts(current, reference)
    if not ids:
        return None
    res = two_stage_bootstrap(cur, ref, w, ks, b=b, seed=seed, level=level)
    ok = reliable(len(ids))
    ivals = [
        Interval(float(p), float(lo), float(hi), ok)
        for p, lo, hi in zip(res.point, res.low, res.high, strict=True)
    ]
    n = int(min(cur.n.min(), ref.n.min()))
    rate = float(ref.c.sum() / ref.n.sum())
    k = max(ks) if ks else 1
    return Delta(
        n_tasks=len(ids),
        mean=ivals[0],
        pass_hat=dict(zip(ks, ivals[1:], strict=True)),
        mde_mean=min_detectable_drop(n, len(ids), tolerance, rate=rate),
        mde_pass_hat=min_detectable_drop(n, len(ids), tolerance, k=k, rate=rate) if ks else None,
        n_per_prompt=n,
    )


def _levels(members: list[Variant], ks: list[int], k: int, canon: TaskTable | None) -> list[LevelRow]:
    levels = sorted({v.level for v in members if v.level is not None})
    if len(levels) < 2:
        return []
    out = []
    for lv in levels:
        subset = [v for v in members if v.level == lv]
        table = per_task(subset, [k], k)
        delta = None
        if canon is not None:
            mine, theirs = matched(table, canon)
            if mine.size:
                delta = wmean(table.mean[mine] - canon.mean[theirs], table.weights[mine])
        out.append(
            LevelRow(
                level=float(lv),
                n_tasks=len(table.ids),
                n_variants=len(subset),
                n_trials=sum(v.n for v in subset),
                epsilon=float(np.mean([v.epsilon for v in subset])),
                mean=wmean(table.mean, table.weights),
                pass_hat=wmean(table.pass_hat[k], table.weights),
                delta_mean=delta,
            )
        )
    return out


def _trial_figures(data: RunData, summary: ClassSummary, mask: NDArray[np.bool_]) -> None:
    lat = data.trial_latency[mask]
    if lat.size and np.any(lat > 0):
        p50, p95 = np.percentile(lat, [50, 95])
        summary.latency_p50, summary.latency_p95 = float(p50), float(p95)
    cost = data.trial_cost[mask]
    cost = cost[~np.isnan(cost)]
    summary.cost_trials = int(cost.size)
    if cost.size:
        summary.cost_per_attempt = float(cost.mean())
    for attr, col in (("input_tokens", data.trial_input_tokens), ("output_tokens", data.trial_output_tokens)):
        vals = col[mask]
        vals = vals[~np.isnan(vals)]
        if vals.size:
            setattr(summary, attr, float(vals.mean()))


def _drift(data: RunData) -> list[DriftRow]:
    """Variants that succeed more often than their task's canonical prompt, flagged when the
    one-sided Fisher test survives Benjamini-Hochberg at :data:`DRIFT_Q` over every variant
    tested (so 30 variants and no drift flag none in at least 95% of runs)."""
    canon: dict[str, tuple[int, int]] = {}
    for v in data.variants:
        if v.kind == CANONICAL:
            n0, c0 = canon.get(v.task_id, (0, 0))
            canon[v.task_id] = (n0 + v.n, c0 + v.passed)
    tested = [v for v in data.variants if v.kind != CANONICAL and v.task_id in canon]
    p_values = [fisher_greater_pvalue(v.n, v.passed, *canon[v.task_id]) for v in tested]
    rows = [
        DriftRow(v.variant_id, v.task_id, v.kind, v.n, v.passed, *canon[v.task_id], p)
        for v, p, flagged in zip(tested, p_values, benjamini_hochberg(p_values, DRIFT_Q), strict=True)
        if flagged and v.passed / v.n > canon[v.task_id][1] / canon[v.task_id][0]
    ]
    return sorted(rows, key=lambda r: (r.p_value, r.variant_id))


def power_text(d: Delta, k: int, tolerance: float | None = None) -> str:
    """``6 matched tasks, n=5 per prompt: 80% power to detect a drop of 0.412 in mean, 0.530 in
    pass^2`` (with the tolerance when given; ``none`` when no drop, even to 0, reaches 80%
    power): what the interval could have seen."""
    tol = "" if tolerance is None else f", tolerance {f3(tolerance)}"
    drops = [("mean", d.mde_mean)] + ([(f"pass^{k}", d.mde_pass_hat)] if d.pass_hat else [])
    seen = ", ".join(f"{f3(v)} in {what}" if v is not None else f"none in {what}" for what, v in drops)
    return (
        f"{d.n_tasks} matched tasks, n={d.n_per_prompt} per prompt{tol}: 80% power to detect a drop of {seen}"
    )


def _power_notes(a: Analysis) -> list[str]:
    """One line per class with a delta: the smallest drop its interval excludes 0 for with 80%
    power (:func:`perturb.report.intervals.min_detectable_drop`)."""
    return [f"power: {c.kind} vs canonical: {power_text(c.delta, a.k)}" for c in a.classes if c.delta]


def _warnings(a: Analysis) -> list[str]:
    out = []
    low = [kk for kk in a.ks if a.n_min < 4 * kk]
    if low:
        which = ", ".join(f"k={kk} (4k={4 * kk})" for kk in low)
        out.append(
            f"n={a.n_min} trials per prompt is below 4k for {which}: figures at those k have "
            "little resolution (pass^k = C(c, k) / C(n, k) takes only n - k + 2 values per "
            f"prompt, just 0 or 1 at k = n); run n >= 4 x the largest k, here n >= {4 * max(low)}"
        )
    errored = sum(c.errored for c in a.classes)
    if errored:
        out.append(
            f"{errored} of {a.n_trials} trials errored ({errored / a.n_trials:.1%}); they count "
            "as failures -- compare the figures with errored trials excluded before blaming "
            "the agent"
        )
    short = [v for v in a.data.variants if v.n < a.data.manifest.trials]
    if short:
        out.append(
            f"{len(short)} prompts have fewer than the run's {a.data.manifest.trials} trials "
            "(an interrupted run? run the same `perturb run` command again to resume)"
        )
    for c in a.classes:
        if c.kind != CANONICAL and c.delta is None:
            out.append(f"{c.kind}: no task has both canonical and {c.kind} trials; no delta")
        elif c.delta is not None and not c.delta.mean.reliable:
            out.append(
                f"{c.kind}: only {c.delta.n_tasks} matched task{'s' if c.delta.n_tasks > 1 else ''} "
                f"(fewer than {MIN_TASKS}): its interval (marked †) is unreliable; run more tasks of it"
            )
    if a.drift:
        many = len(a.drift) > 1
        out.append(
            f"{len(a.drift)} variant{'s' if many else ''} succeed{'' if many else 's'} clearly "
            "more often than the canonical prompt (possible meaning drift: re-review "
            f"{'them' if many else 'it'})"
        )
    return out
