"""The report's figures as plain dataclasses (what every format renders).

Built by :func:`perturb.report.aggregate.analyze`; rendered by :mod:`perturb.report.formats`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from perturb.report.results import RunData

if TYPE_CHECKING:
    from perturb.report.details import Details

Label = Literal["stable-pass", "flaky", "brittle", "stable-fail"]
LABELS: tuple[Label, ...] = ("stable-pass", "flaky", "brittle", "stable-fail")
"""Every label, in report order."""


def prompt_label(n: int, passed: int) -> Label:
    """One prompt (task, variant) over its n trials: ``stable-pass`` (c = n), ``flaky``
    (0 < c < n) or ``stable-fail`` (c = 0). Flakiness is a property of a prompt."""
    return "stable-pass" if passed == n else "stable-fail" if passed == 0 else "flaky"


def task_label(prompt_labels: Iterable[Label]) -> Label:
    """A task within a class, from its prompts' labels: ``flaky`` if any prompt is flaky;
    ``stable-pass`` if every prompt passed every trial; ``stable-fail`` if every prompt failed
    every trial; otherwise ``brittle`` (some prompts always pass, others always fail: the
    perturbation breaks the task deterministically -- a robustness finding, not flakiness)."""
    seen = set(prompt_labels)
    if "flaky" in seen:
        return "flaky"
    if seen == {"stable-pass"}:
        return "stable-pass"
    if seen == {"stable-fail"}:
        return "stable-fail"
    assert seen, "a task has at least one prompt"
    return "brittle"


@dataclass
class Interval:
    """A point estimate with its two-stage bootstrap interval (:mod:`perturb.report.intervals`)."""

    point: float
    low: float
    high: float
    reliable: bool = True
    """False below :data:`perturb.report.intervals.MIN_TASKS` matched tasks: shown as unreliable."""


@dataclass
class Delta:
    """Class minus canonical on matched tasks."""

    n_tasks: int
    mean: Interval
    pass_hat: dict[int, Interval]
    mde_mean: float | None = None
    """Smallest true drop of mean the interval excludes 0 for with 80% power (None: none does;
    :func:`perturb.report.intervals.min_detectable_drop`)."""
    mde_pass_hat: float | None = None
    """The same for pass^k at the primary k."""
    n_per_prompt: int = 0
    """Smallest n per prompt of the two arms (what the power is stated at)."""


@dataclass
class LevelRow:
    """Success at one requested intensity level of a class (a robustness curve point)."""

    level: float
    n_tasks: int
    n_variants: int
    n_trials: int
    epsilon: float
    """Mean measured epsilon of the level's variants."""
    mean: float
    pass_hat: float
    """pass^k at the primary k."""
    delta_mean: float | None
    """Mean success minus canonical on the level's matched tasks."""


@dataclass
class TaskRow:
    """One task within one class (its variants' trials together)."""

    task_id: str
    kind: str
    weight: float
    variants: int
    n: int
    """Trials (all variants of the task in the class)."""
    passed: int
    wrong: int
    errored: int
    mean: float
    pass_at: dict[int, float]
    pass_hat: dict[int, float]
    worst_variant_mean: float
    label: Label
    """:func:`task_label` of the task's prompts in the class: ``stable-pass``, ``flaky`` (some
    prompt passed sometimes and failed sometimes), ``brittle`` (every prompt deterministic,
    some always failing) or ``stable-fail``."""
    consistently_wrong: bool
    """At least two wrong trials and all of them gave the same output."""
    wrong_output: str | None
    latency_s: float = 0.0
    """Total agent wall time of the trials (the JUnit testcase time)."""
    always_failing: list[str] = field(default_factory=list)
    """Ids of the task's prompts in the class that failed every trial (sorted)."""

    @property
    def all_passed(self) -> bool:
        return self.passed == self.n


@dataclass
class ClassSummary:
    """The figures of one variant kind."""

    kind: str
    n_tasks: int
    n_variants: int
    n_trials: int
    n_min: int
    n_max: int
    mean: float
    pass_at: dict[int, float]
    pass_hat: dict[int, float]
    curve: list[tuple[int, float]]
    delta: Delta | None
    stable_pass: int
    flaky: int
    """Tasks with at least one flaky prompt (0 < c < n)."""
    brittle: int
    """Tasks whose prompts are each deterministic, some always passing, some always failing."""
    stable_fail: int
    consistently_wrong: int
    errored: int
    errored_share: float
    excl_errored_tasks: int
    excl_errored_mean: float | None
    excl_errored_pass_hat: float | None
    worst_variant_mean: float
    worst_variant_pass_hat: float
    latency_p50: float | None
    latency_p95: float | None
    cost_trials: int
    cost_per_attempt: float | None
    input_tokens: float | None
    output_tokens: float | None
    levels: list[LevelRow] = field(default_factory=list)


@dataclass
class DriftRow:
    """A variant that succeeds clearly more often than its canonical prompt."""

    variant_id: str
    task_id: str
    kind: str
    n: int
    passed: int
    canonical_n: int
    canonical_passed: int
    p_value: float


@dataclass
class LambdaRow:
    """Success at one fault-injection rate λ (a point of the fault curve), per task first."""

    lam: float
    n_tasks: int
    n_variants: int
    n_trials: int
    n_min: int
    n_max: int
    mean: float
    pass_hat: dict[int, float]
    """pass^k at each reported k that every prompt's n allows."""
    delta: Delta | None
    """Against λ = 0 on the matched tasks, with the paired task-level bootstrap interval."""
    errored: int
    calls: int
    """Tool calls made."""
    faulted_calls: int
    """Calls answered by an injected fault (new or still holding)."""
    early_calls: int
    """Calls to a rate-limited tool before its Retry-After elapsed (a retry storm)."""
    give_up_trials: int
    """Trials in which some tool's last call got an injected error: the agent stopped trying."""
    duplicates: int
    """Duplicated side effects (a side-effecting call that landed twice)."""


@dataclass
class FaultClassRow:
    """Trials that met one fault class against trials that met none, on the same tasks.

    Per task: the success rate of its λ > 0 trials that met the class, and of its λ > 0
    trials that met no fault; tasks with both are averaged (weights as declared)."""

    fault: str
    n_tasks: int
    """Tasks with trials of both kinds."""
    n_met: int
    """Trials that met the class (on those tasks)."""
    n_clean: int
    """Trials that met no fault (on those tasks)."""
    met_mean: float
    clean_mean: float

    @property
    def delta(self) -> float:
        return self.met_mean - self.clean_mean


@dataclass
class FaultSummary:
    """The fault-tolerance axis of a run with ``--faults``."""

    classes: list[str]
    """The fault classes that could be injected."""
    lambdas: list[LambdaRow]
    by_class: list[FaultClassRow]


@dataclass
class Analysis:
    """Everything the report formats show."""

    data: RunData
    ks: list[int]
    k: int
    """The primary k (the largest requested)."""
    bootstrap: int
    seed: int
    level: float
    classes: list[ClassSummary]
    tasks: list[TaskRow]
    worst: list[TaskRow]
    consistently_wrong: list[TaskRow]
    drift: list[DriftRow]
    warnings: list[str]
    notes: list[str]
    n_tasks: int
    n_variants: int
    n_trials: int
    n_min: int
    n_max: int
    faults: FaultSummary | None = None
    """The fault axis (None: the run did not inject faults)."""
    details: Details | None = None
    """Prompt texts, failing examples, errors by cause and trace divergence
    (:func:`perturb.report.details.read_details`; None: not read)."""
