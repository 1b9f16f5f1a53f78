"""The six perturbation classes: registry, defaults and the ε definition of each.

Every class module exposes ``generate(ctx, level, rng, index) -> Variant`` (rules: offline,
deterministic for a given ``random.Random``; raises :class:`SkipGeneration` with a reason when
the task cannot be perturbed) and ``measure(ctx, text, details) -> float`` (ε of a finished
text, used for rule and LLM output alike).
"""

from __future__ import annotations

from typing import Any

from perturb.generate.perturbations import distractor, paraphrase, register, reorder, self_correction, typo
from perturb.generate.perturbations._context import ClassSpec, SkipGeneration, TaskContext, Variant, prepare
from perturb.records import PERTURBATION_CLASSES, Task

REGISTRY: dict[str, ClassSpec] = {
    "paraphrase": ClassSpec(
        name="paraphrase",
        default_level=0.2,
        max_level=1.0,
        length_ratio=(0.6, 1.8),
        epsilon="share of non-protected word tokens changed: 1 - matched / max(original, new) "
        "under difflib word alignment",
        generate=paraphrase.generate,
        measure=paraphrase.measure,
    ),
    "reorder": ClassSpec(
        name="reorder",
        default_level=0.3,
        max_level=1.0,
        length_ratio=(0.9, 1.12),
        epsilon="normalised Kendall tau distance between the canonical and the new order of the "
        "constraint segments (discordant pairs / n(n-1)/2)",
        generate=reorder.generate,
        measure=reorder.measure,
    ),
    "distractor": ClassSpec(
        name="distractor",
        default_level=0.3,
        max_level=3.0,
        length_ratio=(1.02, 5.0),
        epsilon="inserted word tokens / word tokens of the canonical prompt",
        generate=distractor.generate,
        measure=distractor.measure,
    ),
    "self_correction": ClassSpec(
        name="self_correction",
        default_level=0.2,
        max_level=1.0,
        length_ratio=(1.0, 2.5),
        epsilon="corrections / correctable slots (a correction: a plausible wrong value of the "
        "same type, a correction phrase, then the canonical value; one correction at the default "
        "level, several only in clauses that are not next to each other)",
        generate=self_correction.generate,
        measure=self_correction.measure,
    ),
    "typo": ClassSpec(
        name="typo",
        default_level=0.1,
        max_level=1.0,
        length_ratio=(0.9, 1.1),
        epsilon="share of eligible words (two letters or more, outside protected values) with a "
        "keyboard slip, compared case-insensitively (casing slips are counted separately and add "
        "nothing)",
        generate=typo.generate,
        measure=typo.measure,
    ),
    "register": ClassSpec(
        name="register",
        default_level=0.2,
        max_level=1.0,
        length_ratio=(0.6, 1.9),
        epsilon="share of non-protected word tokens changed: 1 - matched / max(original, new) "
        "under difflib word alignment",
        generate=register.generate,
        measure=register.measure,
    ),
}
"""Class name -> its spec, in :data:`perturb.records.PERTURBATION_CLASSES` order."""

assert tuple(REGISTRY) == PERTURBATION_CLASSES


def get(name: str) -> ClassSpec:
    """The spec of class ``name`` (KeyError for an unknown class)."""
    return REGISTRY[name]


def measure_epsilon(task: Task, perturbation: str, text: str, details: dict[str, Any] | None = None) -> float:
    """ε of ``text`` as a ``perturbation`` variant of ``task`` (e.g. for an edited candidate)."""
    return REGISTRY[perturbation].measure(prepare(task), text, dict(details or {}))


__all__ = [
    "REGISTRY",
    "ClassSpec",
    "SkipGeneration",
    "TaskContext",
    "Variant",
    "get",
    "measure_epsilon",
    "prepare",
]
