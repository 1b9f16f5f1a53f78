"""Renderers of a report (:class:`perturb.report.aggregate.Analysis`) in each output format.

``text`` (terminal scorecard, rich), ``json`` (versioned schema), ``md`` (Markdown for PR
comments and the GitHub Actions job summary), ``junit`` (JUnit XML) and ``html``
(self-contained, inline SVG and CSS). Every renderer returns a string; writing files is
:mod:`perturb.report.core`'s job.
"""

from __future__ import annotations

from perturb.plugins import Registry
from perturb.report.aggregate import Analysis, ClassSummary, Interval
from perturb.report.formats.spec import FormatSpec
from perturb.report.rounding import f3, signed

FORMATS: Registry[FormatSpec] = Registry(
    "report format",
    "perturb.formats",
    FormatSpec,
    tuple(f"perturb.report.formats.{name}" for name in ("text", "json_format", "markdown", "junit", "html")),
)
"""Format name -> its spec: text, json, md, junit, html, then plugins (entry-point group
``perturb.formats``)."""

SCHEMA = "perturb.report/v1"
SCHEMA_VERSION = 1

DEFINITIONS: dict[str, str] = {
    "mean": "c / n: the share of a prompt's n trials that passed (pass@1 = pass^1)",
    "pass@k": "1 - C(n-c, k) / C(n, k): at least one of k trials passes "
    "(Chen et al. 2021, arXiv:2107.03374, unbiased estimator)",
    "pass^k": "C(c, k) / C(n, k): all k trials pass "
    "(Yao et al. 2024, tau-bench, arXiv:2406.12045, unbiased for p^k; never (c/n)^k)",
    "aggregation": "per (task, variant) first; a task's variants averaged within a class; "
    "tasks averaged with their declared weights (default equal)",
    "delta": "class minus canonical: weighted mean over matched tasks (tasks with at least one "
    "variant of the class and a canonical prompt) of the per-task difference",
    "interval": "percentile interval of a paired two-stage bootstrap: tasks resampled with "
    "replacement (both arms together), then each prompt's success rate drawn from its Jeffreys "
    "posterior Beta(c + 1/2, n - c + 1/2) and its mean p and pass^k p^k computed; B resamples, "
    "seeded; widened to contain the point estimate. Unreliable (and not gated on) below 3 "
    "matched tasks",
    "min_detectable_drop": "the smallest true drop detected with 80% power at the run's n, "
    "matched tasks and tolerance (normal approximation of the interval; docs/metrics.md)",
    "label": "per prompt (task, variant) over its n trials: stable-pass (c = n), flaky "
    "(0 < c < n), stable-fail (c = 0); per task within a class, from its prompts: flaky if any "
    "prompt is flaky, stable-pass if every prompt passed every trial, stable-fail if every "
    "prompt failed every trial, otherwise brittle (each prompt deterministic, some always "
    "passing and some always failing: the perturbation breaks the task every time, a "
    "robustness finding rather than flakiness)",
    "outcomes": "passed; wrong (completed, not accepted); errored (did not complete: exception, "
    "timeout, malformed, non-zero exit). wrong and errored both count as failures",
    "excluding_errored": "the same figures over completed trials only (n - errored); a prompt "
    "with fewer than k completed trials is left out of pass^k",
    "worst_variant": "each task scored by its weakest variant in the class, then averaged "
    "(HELM's worst case)",
    "consistently_wrong": "at least two wrong trials and all of them gave the same output "
    "(repeatability is not correctness)",
    "meaning_drift": "a variant that succeeds more often than its canonical prompt by a "
    "one-sided Fisher exact test that survives Benjamini-Hochberg at q = 0.05 over all the "
    "run's variants: re-review it",
    "curve": "pass^k for k = 1..K, K = min(smallest n of the class, max(8, largest k))",
}

KIND_LABEL = {"self_correction": "self-correction"}


def interval(iv: Interval | None) -> str:
    """``+0.012 [-0.050, +0.071]``; ``†`` after an unreliable one (too few matched tasks)."""
    if iv is None:
        return "-"
    text = f"{signed(iv.point)} [{signed(iv.low)}, {signed(iv.high)}]"
    return text if iv.reliable else f"{text}†"


def percent(value: float) -> str:
    """``12.5%``."""
    return f"{value * 100:.1f}%"


def seconds(value: float | None) -> str:
    """``1.23s``; ``-`` for no value."""
    return "-" if value is None else f"{value:.2f}s"


def usd(value: float | None) -> str:
    """``$0.0012``; ``-`` for no value."""
    return "-" if value is None else f"${value:.4f}"


def n_range(lo: int, hi: int) -> str:
    """``5`` or ``3-5``."""
    return str(lo) if lo == hi else f"{lo}-{hi}"


def headline(a: Analysis) -> list[str]:
    """The two header lines every format starts with."""
    m = a.data.manifest
    temp = m.sampling.get("temperature")
    line1 = (
        f"suite={m.suite}  run={m.run_id}  agent={m.agent}  model={m.model or '-'}  "
        f"temperature={'-' if temp is None else temp}"
    )
    line2 = (
        f"tasks={a.n_tasks}  prompts={a.n_variants}  trials={a.n_trials}  "
        f"n={n_range(a.n_min, a.n_max)} per prompt  k={','.join(map(str, a.ks))}  "
        f"bootstrap B={a.bootstrap} seed={a.seed}"
    )
    return [line1, line2]


def canonical_summary(a: Analysis) -> ClassSummary | None:
    """The canonical class, if the run has it."""
    return next((c for c in a.classes if c.kind == "canonical"), None)


def consistency_line(a: Analysis) -> str:
    """The consistency line: mean, pass^k and flaky count of the canonical prompts."""
    c = canonical_summary(a) or a.classes[0]
    return (
        f"consistency ({c.kind})  mean {f3(c.mean)}  pass^{a.k} {f3(c.pass_hat[a.k])}  "
        f"flaky {c.flaky}/{c.n_tasks}  (n={n_range(c.n_min, c.n_max)})"
    )


def robustness_line(a: Analysis) -> str:
    """The robustness line: each class's mean success."""
    parts = [f"{c.kind} {f3(c.mean)}" for c in a.classes if c.kind != "canonical"]
    return "robustness  " + ("  ".join(parts) if parts else "(no perturbation classes in run)")


def lam_text(lam: float) -> str:
    """λ as the scorecard writes it: ``0.0``, ``0.1``, ``0.25``."""
    text = f"{lam:g}"
    return text if "." in text or "e" in text else text + ".0"


def faults_line(a: Analysis) -> str | None:
    """The faults line: mean success at each λ (None when the run injected no faults)."""
    if a.faults is None:
        return None
    return "faults      " + "  ".join(f"lam={lam_text(r.lam)} {f3(r.mean)}" for r in a.faults.lambdas)


FAULT_NOTE = (
    "λ = fault-injection rate; Δ = λ minus λ=0 on matched tasks (paired two-stage bootstrap); "
    "faulted = calls answered by an injected fault; early = calls to a rate-limited tool before "
    "its Retry-After elapsed; give-ups = trials whose last call to some tool got an injected "
    "error; dups = duplicated side effects (a side-effecting call that landed twice); per fault "
    "class: success of λ>0 trials that met the class vs λ>0 trials that met no fault, per task first"
)
