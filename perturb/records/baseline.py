"""Records of the gate's baseline (``perturb baseline``, ``perturb gate``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from perturb.records.base import SCHEMA_VERSION, Record, VariantKind


class ClassFigures(Record):
    """Gated figures for one variant kind."""

    n_tasks: int
    """Tasks with at least one entry of this kind."""
    n_trials: int
    """Trials behind the figures."""
    mean: float
    """Weighted mean success."""
    pass_hat_k: float
    """Weighted pass^k at the baseline's k."""


class BaselineVariant(Record):
    """One prompt's trial counts at baseline time (lets the gate recompute figures on the tasks
    a later run shares with the baseline, at any k <= n, and bootstrap the change)."""

    variant_id: str
    """The fixture entry id."""
    task_id: str
    """The canonical task."""
    perturbation: VariantKind
    """``canonical`` or the class."""
    level: float | None = None
    """The entry's requested epsilon."""
    weight: float = Field(default=1.0, gt=0)
    """The task's weight."""
    n: int = Field(ge=1)
    """Trials kept (highest retry per attempt)."""
    passed: int = Field(ge=0)
    """Trials that passed."""
    wrong: int = Field(default=0, ge=0)
    """Trials that completed with an answer the grader did not accept."""
    errored: int = Field(default=0, ge=0)
    """Trials that did not complete."""


class Baseline(Record):
    """``evals/baseline.json``: the figures ``perturb gate`` compares a run against."""

    schema_version: int = SCHEMA_VERSION
    """Baseline format version."""
    perturb_version: str
    """perturb's version."""
    suite: str
    """The suite."""
    run_id: str
    """The run the figures came from."""
    k: int = Field(ge=1)
    """The k of ``pass_hat_k``."""
    trials: int
    """n of that run."""
    classes: dict[str, ClassFigures]
    """Per variant kind (``canonical`` and each class)."""
    task_labels: dict[str, Literal["stable-pass", "flaky", "brittle", "stable-fail"]]
    """``<task_id>/<kind>`` -> label at baseline time (``perturb.report.figures.task_label``: flaky if
    a prompt of the task is flaky, brittle if every prompt is deterministic but some always
    fail)."""
    variants: list[BaselineVariant] = Field(default_factory=list)
    """Optional per-prompt counts (written by ``perturb baseline``). With them the gate
    compares on matched tasks only, at any k, and supports ``--noise-aware``; without them
    (a hand-written baseline) it compares ``classes`` as they are."""
