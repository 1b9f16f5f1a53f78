"""The six perturbation classes: registry, defaults and the ε definition of each.

Every class is one module exporting ``SPEC = ClassSpec(...)``: ``generate(ctx, level, rng,
index) -> Variant`` (rules: offline, deterministic for a given ``random.Random``; raises
:class:`SkipGeneration` with a reason when the task cannot be perturbed), ``measure(ctx, text,
details) -> float`` (ε of a finished text, for rule and LLM output alike) and optional hooks
for the LLM request and the pre-screen. Third-party classes register the same kind of spec
under the ``perturb.perturbations`` entry-point group (see docs/extending.md).
"""

from __future__ import annotations

from typing import Any

from perturb.generate.perturbations._context import ClassSpec, SkipGeneration, TaskContext, Variant, prepare
from perturb.plugins import Registry
from perturb.records import CANONICAL, Task

CLASSES: Registry[ClassSpec] = Registry(
    "perturbation class",
    "perturb.perturbations",
    ClassSpec,
    tuple(
        f"perturb.generate.perturbations.{name}"
        for name in ("paraphrase", "reorder", "distractor", "self_correction", "typo", "register")
    ),
)
"""Class name -> its spec: the six built-in classes in report order, then plugins'
(entry-point group ``perturb.perturbations``)."""


def class_names() -> tuple[str, ...]:
    """Every perturbation class, in report order (built-ins, then plugins by name)."""
    return CLASSES.names()


def variant_kinds() -> tuple[str, ...]:
    """``canonical`` and every perturbation class: what a fixture entry or trial can be."""
    return (CANONICAL, *CLASSES.names())


def kind_rank(kind: str) -> int:
    """A kind's position in report order (canonical first; unknown kinds last)."""
    kinds = variant_kinds()
    return kinds.index(kind) if kind in kinds else len(kinds)


def get(name: str) -> ClassSpec:
    """The spec of class ``name`` (:class:`PerturbError` naming the known ones otherwise)."""
    return CLASSES.get(name)


def measure_epsilon(task: Task, perturbation: str, text: str, details: dict[str, Any] | None = None) -> float:
    """ε of ``text`` as a ``perturbation`` variant of ``task`` (e.g. for an edited candidate)."""
    return CLASSES.get(perturbation).measure(prepare(task), text, dict(details or {}))


__all__ = [
    "CLASSES",
    "ClassSpec",
    "SkipGeneration",
    "TaskContext",
    "Variant",
    "class_names",
    "kind_rank",
    "variant_kinds",
    "get",
    "measure_epsilon",
    "prepare",
]
