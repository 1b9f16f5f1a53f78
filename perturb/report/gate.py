"""``perturb baseline`` and ``perturb gate``: gate on the metric against a committed baseline,
never on a single run (one run's labels and figures move with sampling noise).

The baseline records, per class, mean success and pass^k at a stated k, every task's label
(stable-pass / flaky / brittle / stable-fail, :func:`perturb.report.figures.task_label`) and every
prompt's trial counts. The gate recomputes the baseline's figures on the tasks the run shares
with it (matched tasks) and fails, naming each one, on:

* a regression: a class's mean or pass^k more than ``tolerance`` below the baseline
  (``--noise-aware``: only when the whole paired bootstrap interval of the change lies below
  ``-tolerance``);
* a newly flaky task (stable-pass before, flaky now); a newly brittle one (stable-pass or flaky
  before, brittle now, with a prompt failing every trial that did not fail every trial in the
  baseline); a newly failing one (stable-pass, flaky or brittle before, stable-fail now) --
  reported as notes in noise-aware mode;
* with ``--require X``: any task whose pass^k (or pass@k) is below X;
* a fault-injection rate λ > 0 of the baseline (``perturb run --faults``) whose mean or
  pass^k fell, by the same rules as a class (``faults lam=0.1 mean: ...``).

The baseline's labels are recomputed from its per-prompt counts when it has them (so a
baseline written before labels were per prompt is read with today's rule), else taken as
written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from perturb._version import __version__
from perturb.errors import GateFailed, InputError, UsageError
from perturb.generate.perturbations import variant_kinds
from perturb.io.inert import printable
from perturb.io.jsonl import read_model, write_json_atomic
from perturb.records import Baseline, BaselineVariant, ClassFigures
from perturb.report.aggregate import (
    Label,
    TaskTable,
    class_order,
    delta_of,
    fault_variants,
    matched,
    per_task,
    power_text,
    prompt_label,
    resolve_ks,
    task_label,
    wmean,
)
from perturb.report.details import prompt_texts, snippet
from perturb.report.figures import Delta, Interval
from perturb.report.intervals import MIN_TASKS, min_detectable_drop
from perturb.report.metrics import stream_seed
from perturb.report.results import RunData, Variant, read_run
from perturb.report.rounding import f3, signed

RequireMetric = Literal["pass^k", "pass@k"]
EPS = 1e-9
"""Float slack so a change exactly at the tolerance is not a regression."""


@dataclass
class GateOptions:
    """Everything ``perturb gate`` accepts."""

    run_dir: Path
    """The run to check (``runs/<id>``)."""
    baseline: Path
    """The committed baseline (``perturb baseline RUN -o evals/baseline.json``)."""
    tolerance: float = 0.05
    """Allowed drop of a class's mean or pass^k, in [0, 1]."""
    require: float | None = None
    """Fail when any task's pass^k (or pass@k, see ``require_metric``) is below this."""
    require_metric: str = "pass^k"
    """``pass^k`` or ``pass@k``: the figure ``require`` applies to."""
    k: int | None = None
    """k of pass^k (None: the baseline's)."""
    strict: bool = False
    """The strict gate: fail on any observed drop beyond ``tolerance`` and on every label change
    (newly flaky, brittle or failing), noise or not. Default (False): the sound gate, which
    fails only when the whole two-stage bootstrap interval of a change lies below
    ``-tolerance`` on at least :data:`~perturb.report.intervals.MIN_TASKS` matched tasks."""
    gate_labels: bool = False
    """Also fail on label changes (newly flaky, brittle or failing tasks); always on with
    ``strict``. Otherwise they are reported as notes."""
    bootstrap: int = 2000
    """Bootstrap resamples B of the intervals."""
    seed: int = 0
    """Seed of the bootstrap."""


@dataclass
class GateResult:
    """What the gate found: ``lines`` (one per comparison or problem) and the verdict."""

    passed: bool
    lines: list[str]
    verdict: str
    """``gate passed: ...`` or ``gate failed: N regressions, ...; run ... against ...``."""

    def summary(self) -> str:
        """Every comparison line, then the verdict (what ``perturb gate`` prints)."""
        return "\n".join([*self.lines, self.verdict])


def _kinds_text() -> str:
    kinds = variant_kinds()
    return ", ".join(kinds[:-1]) + f" or {kinds[-1]}"


def _task_labels(variants: list[Variant]) -> dict[str, Label]:
    """``task/kind`` -> the task's label in the class, from its prompts' labels."""
    labels: dict[str, list[Label]] = {}
    for v in variants:
        labels.setdefault(f"{v.task_id}/{v.kind}", []).append(prompt_label(v.n, v.passed))
    return {key: task_label(found) for key, found in labels.items()}


def _task_counts(variants: list[Variant]) -> dict[str, tuple[int, int, int, int]]:
    """``task/kind`` -> summed (n, passed, wrong, errored) over the task's variants."""
    out: dict[str, tuple[int, int, int, int]] = {}
    for v in variants:
        key = f"{v.task_id}/{v.kind}"
        n, c, w, e = out.get(key, (0, 0, 0, 0))
        out[key] = (n + v.n, c + v.passed, w + v.wrong, e + v.errored)
    return out


def _by_kind(variants: list[Variant]) -> dict[str, list[Variant]]:
    out: dict[str, list[Variant]] = {}
    for v in variants:
        out.setdefault(v.kind, []).append(v)
    return out


def _figures(members: list[Variant], k: int) -> ClassFigures:
    """A class's (or a λ's) baseline figures: mean and pass^k per task first, then weighted."""
    table = per_task(members, [k], k)
    return ClassFigures(
        n_tasks=len(table.ids),
        n_trials=sum(v.n for v in members),
        mean=round(wmean(table.mean, table.weights), 6),
        pass_hat_k=round(wmean(table.pass_hat[k], table.weights), 6),
    )


def _baseline_row(v: Variant, lam: float | None = None) -> BaselineVariant:
    """One prompt's counts as the baseline stores them (``lam`` for a fault-injection rate)."""
    extra = {"level": v.level} if lam is None else {"lam": lam}
    return BaselineVariant(
        variant_id=v.variant_id,
        task_id=v.task_id,
        perturbation=v.kind,
        weight=v.weight,
        n=v.n,
        passed=v.passed,
        wrong=v.wrong,
        errored=v.errored,
        **extra,
    )


def make_baseline(run_dir: str | Path, k: int | None = None) -> Baseline:
    """The baseline figures of a run at ``k`` (default: the report's primary k)."""
    data = read_run(run_dir)
    if not data.variants:
        raise InputError(
            str(data.path / "trials.jsonl"), "no trials (expected a finished run to take a baseline from)"
        )
    k = max(resolve_ks(data, None if k is None else [k]))
    by_kind = _by_kind(data.variants)
    classes = {kind: _figures(by_kind[kind], k) for kind in class_order(set(by_kind))}
    labels = dict(sorted(_task_labels(data.variants).items()))
    faults: dict[str, ClassFigures] = {}
    fault_rows: list[BaselineVariant] = []
    for lam, members in _by_lam(data).items():
        if k > min(v.n for v in members):
            continue  # an interrupted λ: too few trials for pass^k at this k
        faults[f"{lam:g}"] = _figures(members, k)
        fault_rows += [_baseline_row(v, lam=lam) for v in sorted(members, key=lambda v: v.variant_id)]
    return Baseline(
        perturb_version=__version__,
        suite=data.manifest.suite,
        run_id=data.manifest.run_id,
        k=k,
        trials=data.manifest.trials,
        classes=classes,
        task_labels=labels,
        variants=[_baseline_row(v) for v in sorted(data.variants, key=lambda v: v.variant_id)],
        faults=faults,
        fault_variants=fault_rows,
    )


def _by_lam(data: RunData) -> dict[float, list[Variant]]:
    """λ > 0 -> the per-prompt counts of the run's trials at that λ."""
    rows: dict[float, list[tuple]] = {}
    for row in data.faults.rows:
        if row[4] > 0.0:
            rows.setdefault(row[4], []).append(row)
    return {lam: fault_variants(rows[lam]) for lam in sorted(rows)}


def _gate_faults(
    data: RunData,
    baseline: Baseline,
    k: int,
    options: GateOptions,
    lines: list[str],
    power: list[tuple[float, str]],
) -> int:
    """Each λ > 0 of the baseline compared like a class (same tolerance and noise rules)."""
    current = _by_lam(data)
    base_rows: dict[float, list[Variant]] = {}
    for v in baseline.fault_variants:
        base_rows.setdefault(v.lam, []).append(
            Variant(
                v.variant_id,
                v.task_id,
                v.perturbation,
                None,
                0.0,
                v.weight,
                v.n,
                v.passed,
                v.wrong,
                v.errored,
            )
        )
    found = 0
    for key in sorted(baseline.faults, key=float):
        lam = float(key)
        rows = base_rows.get(lam, [])
        group = _Group(f"faults lam={key}", f"faults lam={key}", current.get(lam), rows, baseline.faults[key])
        found += _compare_group(group, bool(rows), k, options, lines, power)
    known = {float(key) for key in baseline.faults}
    for lam in sorted(set(current) - known):
        lines.append(f"note: faults lam={lam:g} is new in this run (no baseline figures)")
    return found


@dataclass(frozen=True)
class _Group:
    """One class or one fault-injection rate λ of the current run and its baseline."""

    name: str
    """How notes name it (``class typo``, ``faults lam=0.1``)."""
    label: str
    """How comparison lines name it (``typo``, ``faults lam=0.1``)."""
    members: list[Variant] | None
    """The run's per-prompt counts (None or empty: not in this run)."""
    base_rows: list[Variant]
    """The baseline's per-prompt counts (for the matched, interval-based comparison)."""
    figures: ClassFigures
    """The baseline's figures (for a baseline without per-prompt counts)."""


def _compare_group(
    group: _Group,
    matched: bool,
    k: int,
    options: GateOptions,
    lines: list[str],
    power: list[tuple[float, str]],
) -> int:
    """A class or a λ against the baseline, by the same rules: a note when the run lacks it or
    has fewer than k trials per prompt, else the matched comparison (``matched``: the baseline
    has per-prompt counts) or the figures comparison. Returns the regressions found."""
    members = group.members
    if not members:
        lines.append(f"note: {group.name} is in the baseline but not in this run (not compared)")
        return 0
    if k > min(v.n for v in members):
        lines.append(f"note: {group.name}: fewer than k={k} trials per prompt in this run (not compared)")
        return 0
    if matched:
        return _compare_matched(group.label, members, group.base_rows, k, options, lines, power)
    table = per_task(members, [k], k)
    return _compare_figures(group.label, table, group.figures, k, options.tolerance, lines)


def write_baseline(run_dir: str | Path, out: str | Path, k: int | None = None) -> Baseline:
    """:func:`make_baseline` and write it atomically to ``out``."""
    baseline = make_baseline(run_dir, k)
    write_json_atomic(out, baseline.model_dump(mode="json"))
    return baseline


def load_baseline(path: str | Path) -> Baseline:
    """Read a baseline file (InputError naming the field when malformed or inconsistent)."""
    baseline = read_model(path, Baseline, "a baseline written by `perturb baseline`")
    problem = _inconsistency(baseline)
    if problem is not None:
        raise InputError(str(path), problem[1], field=problem[0])
    return baseline


def _inconsistency(baseline: Baseline) -> tuple[str, str] | None:
    """``(field, message)`` for what the schema cannot see: unknown classes, counts above n,
    a prompt listed twice, one task with two weights, k above the baseline's own n."""
    for kind in baseline.classes:
        if kind not in variant_kinds():
            return f"classes.{kind}", f"unknown class {kind!r} (expected {_kinds_text()})"
    for key in baseline.task_labels:
        kind = key.rpartition("/")[2]
        if kind not in variant_kinds():
            return f"task_labels.{key}", (
                f"unknown class {kind!r} (expected '<task id>/<class>' with class {_kinds_text()})"
            )
    first: dict[str, int] = {}
    weights: dict[str, float] = {}
    for i, v in enumerate(baseline.variants):
        if v.passed + v.wrong + v.errored > v.n:
            return f"variants.{i}", (
                f"passed {v.passed} + wrong {v.wrong} + errored {v.errored} exceeds n {v.n} "
                "(expected counts that add up to at most n)"
            )
        if v.variant_id in first:
            return f"variants.{i}.variant_id", (
                f"duplicate {v.variant_id!r} (first at variants.{first[v.variant_id]}; expected "
                "each prompt once)"
            )
        first[v.variant_id] = i
        if weights.setdefault(v.task_id, v.weight) != v.weight:
            return f"variants.{i}.weight", (
                f"{v.weight} differs from {weights[v.task_id]} for task {v.task_id!r} (expected "
                "one weight per task)"
            )
    if baseline.variants and baseline.k > min(v.n for v in baseline.variants):
        return "k", (
            f"{baseline.k} exceeds the smallest n of the baseline's variants "
            f"({min(v.n for v in baseline.variants)}) (expected k <= n; take the baseline again "
            "with `perturb baseline --k`)"
        )
    return None


def check_gate(options: GateOptions) -> GateResult:
    """Compare a run with a baseline (see the module docstring); never raises for a failure."""
    run_dir, baseline_path, tolerance = options.run_dir, options.baseline, options.tolerance
    require, require_metric, k = options.require, options.require_metric, options.k
    bootstrap, strict = options.bootstrap, options.strict
    if not 0 <= tolerance <= 1:
        raise UsageError(f"--tolerance {tolerance} must be between 0 and 1 (e.g. 0.05)")
    if require is not None and not 0 <= require <= 1:
        raise UsageError(f"--require {require} must be between 0 and 1 (e.g. 0.8)")
    metric = {"pass^k": "pass^k", "pass_hat_k": "pass^k", "pass@k": "pass@k", "pass_at_k": "pass@k"}.get(
        require_metric
    )
    if metric is None:
        raise UsageError(f"--require-metric {require_metric!r} (expected pass^k or pass@k)")
    if bootstrap < 1:
        raise UsageError(f"--bootstrap {bootstrap} must be >= 1 (e.g. the default 2000)")
    baseline = load_baseline(baseline_path)
    data = read_run(run_dir)
    if not data.variants:
        raise InputError(str(data.path / "trials.jsonl"), "no trials (expected a finished run to gate)")
    k = baseline.k if k is None else k
    resolve_ks(data, [k])
    base_variants = [
        Variant(
            b.variant_id, b.task_id, b.perturbation, b.level, 0.0, b.weight, b.n, b.passed, b.wrong, b.errored
        )
        for b in baseline.variants
    ]
    if base_variants and k > min(v.n for v in base_variants):
        raise UsageError(
            f"--k {k} exceeds the baseline run's smallest n ({min(v.n for v in base_variants)}); "
            f"choose k <= that or refresh the baseline"
        )
    if not base_variants:
        if k != baseline.k:
            raise UsageError(
                f"--k {k} differs from the baseline's k={baseline.k} and the baseline has no "
                "per-prompt counts to recompute it; use --k "
                f"{baseline.k} or refresh it with `perturb baseline`"
            )
        if not strict:
            raise UsageError(
                f"{baseline_path}: the gate's intervals need the baseline's per-prompt counts "
                "(`variants`); refresh it with `perturb baseline RUN_DIR -o PATH`, or compare "
                "the class figures with --strict"
            )
    lines: list[str] = []
    power: list[tuple[float, str]] = []
    regressions = 0
    cur_kinds = _by_kind(data.variants)
    base_kinds = _by_kind(base_variants)
    for kind in class_order(set(baseline.classes)):
        group = _Group(
            f"class {kind}", kind, cur_kinds.get(kind), base_kinds.get(kind, []), baseline.classes[kind]
        )
        regressions += _compare_group(group, bool(base_variants), k, options, lines, power)
    for kind in class_order(set(cur_kinds) - set(baseline.classes)):
        lines.append(f"note: class {kind} is new in this run (no baseline figures)")
    regressions += _gate_faults(data, baseline, k, options, lines, power)
    flaky_n, brittle_n, failing_n = _labels(data, baseline, strict or options.gate_labels, lines)
    below = _require(data, k, require, metric, lines) if require is not None else 0
    parts = []
    for count, what in (
        (regressions, "regression"),
        (flaky_n, "newly flaky task"),
        (brittle_n, "newly brittle task"),
        (failing_n, "newly failing task"),
    ):
        if count:
            parts.append(f"{count} {what}{'s' if count > 1 else ''}")
    if below:
        parts.append(f"{below} task{'s' if below > 1 else ''} below --require {require:.3f}")
    mode = "strict" if strict else "sound" + (", labels gated" if options.gate_labels else "")
    where = (
        f"run {data.manifest.run_id} against baseline {baseline_path} "
        f"(run {baseline.run_id}), k={k}, tolerance {f3(tolerance)}, {mode}"
    )
    if power:
        drop, what = min(power)
        where += f"; smallest drop detected with 80% power: {f3(drop)} in {what}"
    elif base_variants:
        where += "; no drop is detected with 80% power at this n and task count"
    if parts:
        return GateResult(False, lines, f"gate failed: {', '.join(parts)}; {where}")
    return GateResult(True, lines, f"gate passed: {where}")


def _line(
    status: str,
    kind: str,
    metric: str,
    base: float,
    cur: float,
    tol: float,
    scope: str,
    interval: Interval | None = None,
) -> str:
    ci = "" if interval is None else f", 95% interval [{signed(interval.low)}, {signed(interval.high)}]"
    return (
        f"{status}: {kind} {metric}: baseline {f3(base)}, current {f3(cur)}, change "
        f"{signed(cur - base)}{ci}, tolerance {f3(tol)} ({scope})"
    )


def _compare_matched(
    kind: str,
    current: list[Variant],
    base_members: list[Variant],
    k: int,
    options: GateOptions,
    lines: list[str],
    power: list[tuple[float, str]],
) -> int:
    """A class (or λ) against the baseline's per-prompt counts on matched tasks: one line per
    figure, then its power line; returns the regressions found."""
    if not base_members:
        lines.append(f"note: class {kind}: the baseline has no per-prompt counts for it")
        return 0
    tol = options.tolerance
    delta = delta_of(
        current,
        base_members,
        [k],
        b=options.bootstrap,
        seed=stream_seed(options.seed, "gate", kind),
        level=0.95,
        tolerance=tol,
    )
    if delta is None:
        lines.append(f"note: class {kind}: no task in both the run and the baseline (not compared)")
        return 0
    scope = f"{delta.n_tasks} matched tasks"
    cur, base = per_task(current, [k], k), per_task(base_members, [k], k)
    mine, theirs = matched(cur, base)
    w = cur.weights[mine]
    found = 0
    for metric, iv, mde, c_val, b_val in (
        ("mean", delta.mean, delta.mde_mean, wmean(cur.mean[mine], w), wmean(base.mean[theirs], w)),
        (
            f"pass^{k}",
            delta.pass_hat[k],
            delta.mde_pass_hat,
            wmean(cur.pass_hat[k][mine], w),
            wmean(base.pass_hat[k][theirs], w),
        ),
    ):
        below = iv.point < -tol - EPS
        if options.strict:
            bad = below
            status = "regression" if bad else "ok"
        elif not iv.reliable:
            bad = False
            status = "unreliable" if below else "ok"
        else:
            bad = iv.high < -tol - EPS
            status = "regression" if bad else "within noise" if below else "ok"
        found += bad
        if options.strict:
            mde = _strict_mde(delta, k if metric != "mean" else 1, current, base_members, tol)
        if mde is not None:
            power.append((mde, f"{kind} {metric}"))
        lines.append(_line(status, kind, metric, b_val, c_val, tol, scope, None if options.strict else iv))
    if not delta.mean.reliable and not options.strict:
        lines.append(
            f"note: {kind}: only {delta.n_tasks} matched task{'s' if delta.n_tasks > 1 else ''} "
            f"(fewer than {MIN_TASKS}): its interval is unreliable and the gate does not fail on it"
        )
    if options.strict:
        lines.append(
            f"power: {kind}: {delta.n_tasks} matched tasks, n={delta.n_per_prompt} per prompt, "
            f"tolerance {f3(tol)}: strict mode (observed change below -tolerance fails)"
        )
    else:
        lines.append(f"power: {kind}: {power_text(delta, k, tol)}")
    return found


def _strict_mde(
    delta: Delta, k: int, current: list[Variant], base_members: list[Variant], tol: float
) -> float | None:
    """The strict gate's smallest drop detected with 80% power (point change below -tolerance)."""
    base_n = sum(v.n for v in base_members)
    rate = sum(v.passed for v in base_members) / base_n
    return min_detectable_drop(delta.n_per_prompt, delta.n_tasks, tol, k=k, rate=rate, strict=True)


def _compare_figures(
    kind: str, cur: TaskTable, base: ClassFigures, k: int, tol: float, lines: list[str]
) -> int:
    found = 0
    for metric, b_val, c_arr in (
        ("mean", base.mean, cur.mean),
        (f"pass^{k}", base.pass_hat_k, cur.pass_hat[k]),
    ):
        c_val = wmean(c_arr, cur.weights)
        bad = c_val - b_val < -tol - EPS
        found += bad
        lines.append(
            _line(
                "regression" if bad else "ok",
                kind,
                metric,
                b_val,
                c_val,
                tol,
                f"all {len(cur.ids)} tasks of the run; the baseline has no per-prompt counts",
            )
        )
    return found


def _counts_text(n: int, c: int, w: int, e: int) -> str:
    return f"{c}/{n} passed ({w} wrong, {e} errored)"


def _baseline_labels(baseline: Baseline) -> dict[str, str]:
    """The baseline's task labels: recomputed from its per-prompt counts where it has them
    (the current per-prompt rule), else as written in ``task_labels``."""
    labels: dict[str, str] = dict(baseline.task_labels)
    found: dict[str, list[Label]] = {}
    for b in baseline.variants:
        found.setdefault(f"{b.task_id}/{b.perturbation}", []).append(prompt_label(b.n, b.passed))
    labels.update({key: task_label(prompts) for key, prompts in found.items()})
    return labels


def _labels(data: RunData, baseline: Baseline, gated: bool, lines: list[str]) -> tuple[int, int, int]:
    """Label changes against the baseline: (newly flaky, newly brittle, newly failing); notes
    (and zero counts) unless ``gated``."""
    flaky = brittle = failing = 0
    prefix = "" if gated else "note: "
    base = _baseline_labels(baseline)
    base_failing = {b.variant_id for b in baseline.variants if b.passed == 0}
    now_labels = _task_labels(data.variants)
    now_failing: dict[str, list[str]] = {}
    texts: dict[str, str] | None = None
    for v in data.variants:
        if v.passed == 0:
            now_failing.setdefault(f"{v.task_id}/{v.kind}", []).append(v.variant_id)
    for key, (n, c, w, e) in sorted(_task_counts(data.variants).items()):
        before = base.get(key)
        now = now_labels[key]
        new_fail = sorted(set(now_failing.get(key, [])) - base_failing)
        if before == "stable-pass" and now == "flaky":
            flaky += 1
            lines.append(f"{prefix}newly flaky: {key}: baseline stable-pass, now {_counts_text(n, c, w, e)}")
        elif before in ("stable-pass", "flaky") and now == "brittle" and new_fail:
            brittle += 1
            if texts is None:
                texts = prompt_texts(data.path, data.manifest)
            named = [f'{v} "{printable(snippet(texts[v]))}"' if v in texts else v for v in new_fail]
            lines.append(
                f"{prefix}newly brittle: {key}: baseline {before}, now "
                f"{_counts_text(n, c, w, e)}; failing every trial: "
                f"{', '.join(named)}"
            )
        elif before in ("stable-pass", "flaky", "brittle") and now == "stable-fail":
            failing += 1
            lines.append(f"{prefix}newly failing: {key}: baseline {before}, now {_counts_text(n, c, w, e)}")
    if not gated:
        return 0, 0, 0
    return flaky, brittle, failing


def _require(data: RunData, k: int, require: float, metric: str, lines: list[str]) -> int:
    below = 0
    by_kind = _by_kind(data.variants)
    for kind in class_order(set(by_kind)):
        members = by_kind[kind]
        table = per_task(members, [k], k)
        values = table.pass_hat[k] if metric == "pass^k" else table.pass_at[k]
        counts = _task_counts(members)
        for task_id, value in zip(table.ids, values.tolist(), strict=True):
            if value < require - EPS:
                below += 1
                n, c, w, e = counts[f"{task_id}/{kind}"]
                name = f"pass^{k}" if metric == "pass^k" else f"pass@{k}"
                lines.append(
                    f"below --require {f3(require)}: {task_id}/{kind} {name} {f3(value)} "
                    f"(n={n}: {c} passed, {w} wrong, {e} errored)"
                )
    return below


def run_gate(options: GateOptions) -> GateResult:
    """:func:`check_gate`, raising :class:`GateFailed` (exit 1) when it fails."""
    result = check_gate(options)
    if not result.passed:
        raise GateFailed(result.verdict, result.lines)
    return result
