"""Types every perturbation class shares: the prepared task, a variant, a skip."""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from perturb.generate.perturbations._text import tokens_with_sentinels, word_change_share, words
from perturb.generate.slots import Span, find_protected, mask, protected_values, unmask
from perturb.records import Task


class SkipGeneration(Exception):
    """Raised by a generator that cannot perturb a task; ``reason`` is recorded in
    ``skipped.jsonl`` (for example "order carries meaning ('first ... then ...')")."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Variant:
    """A generated text and its class-specific details (before ε is measured)."""

    text: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskContext:
    """A task prepared once for every class: its protected spans and masked prompt.

    ``masked`` is the prompt with each protected span replaced by a sentinel; generators edit
    ``masked`` and call :meth:`unmask` at the end, so protected bytes are never touched."""

    task: Task
    spans: tuple[Span, ...]
    masked: str
    values: tuple[str, ...]
    protected: tuple[str, ...]

    @property
    def prompt(self) -> str:
        return self.task.prompt

    def unmask(self, masked: str) -> str:
        return unmask(masked, list(self.values))

    def span_for(self, sentinel_index: int) -> Span:
        return self.spans[sentinel_index]

    @functools.cached_property
    def memo(self) -> dict[str, Any]:
        """Per-task results a class computes once (e.g. its correctable slots)."""
        return {}

    @functools.cached_property
    def free_words(self) -> list[str]:
        """Lower-cased word tokens of the prompt outside protected spans."""
        return [w.lower() for w in tokens_with_sentinels(self.masked) if w[0] != "\ue000"]


def prepare(task: Task) -> TaskContext:
    """Find the protected spans of ``task.prompt`` and mask them."""
    spans = find_protected(task.prompt, task.slots)
    masked, values = mask(task.prompt, spans)
    return TaskContext(
        task=task,
        spans=tuple(spans),
        masked=masked,
        values=tuple(values),
        protected=tuple(protected_values(task.prompt, task.slots)),
    )


def free_words_of(ctx: TaskContext, text: str) -> list[str]:
    """Lower-cased word tokens of ``text`` outside its protected spans (detected the same way
    as on the canonical prompt)."""
    spans = find_protected(text, ctx.task.slots)
    masked, _ = mask(text, spans)
    return [w.lower() for w in tokens_with_sentinels(masked) if w[0] != "\ue000"]


def masked_change_share(ctx: TaskContext, masked: str) -> float:
    """ε of the paraphrase/register kind estimated on masked text (its sentinels are the
    protected values, so nothing is detected again): what generators steer by; the recorded ε
    is measured on the finished text."""
    new = [w.lower() for w in tokens_with_sentinels(masked) if w[0] != "\ue000"]
    return word_change_share(ctx.free_words, new)


EditStats = tuple[int, int, int]
"""(words removed, words added, words of the removed stretch kept) of a set of edits."""


def edit_stats(ctx: TaskContext, edits: list[tuple[int, int, str]]) -> EditStats:
    """What ``edits`` (``(start, end, replacement)`` on ``ctx.masked``) change, word-wise:
    each edited stretch aligned with its replacement -- cost proportional to the edits, not to
    the prompt, so trying every rule on a long prompt stays linear."""
    removed = added = kept = 0
    for a, b, new in edits:
        old_words = [w.lower() for w in tokens_with_sentinels(ctx.masked[a:b]) if w[0] != "\ue000"]
        new_words = [w.lower() for w in tokens_with_sentinels(new) if w[0] != "\ue000"]
        removed += len(old_words)
        added += len(new_words)
        longest = max(len(old_words), len(new_words))
        kept += longest - round(word_change_share(old_words, new_words) * longest)
    return removed, added, kept


def stats_share(ctx: TaskContext, stats: EditStats) -> float:
    """:func:`masked_change_share` of the masked prompt with edits of these stats applied."""
    removed, added, kept = stats
    n = len(ctx.free_words)
    longest = max(n, n - removed + added)
    return 0.0 if longest == 0 else 1.0 - (n - removed + kept) / longest


def edits_change_share(ctx: TaskContext, edits: list[tuple[int, int, str]]) -> float:
    """:func:`masked_change_share` of ``ctx.masked`` with ``edits`` applied, from the edited
    stretches alone (see :func:`edit_stats`)."""
    return stats_share(ctx, edit_stats(ctx, edits))


def epsilon_ceiling(level: float) -> float:
    """The largest ε a class accepts at ``level`` when it can choose how much to change
    (paraphrase, reorder): a variant far above the level it was asked for would make the level
    meaningless (a short prompt whose only rewording changes a third of its words has no
    variant at level 0.1; a higher level of the same sweep has it)."""
    return level + max(level, 0.15)


def all_words(text: str) -> list[str]:
    """Every word token of ``text`` (protected ones included), case kept."""
    return words(text)


@functools.cache
def load_data(name: str) -> Any:
    """A shipped word list, ``perturb/generate/data/<name>.json``."""
    path = resources.files("perturb.generate").joinpath(f"data/{name}.json")
    return json.loads(path.read_text("utf-8"))


GenerateFn = Callable[[TaskContext, float, random.Random, int], Variant]
MeasureFn = Callable[[TaskContext, str, dict[str, Any]], float]
LLMRequestFn = Callable[[TaskContext, int], tuple[dict[str, str], dict[str, Any]]]
LLMDetailsFn = Callable[[TaskContext, str, dict[str, Any]], dict[str, Any]]
ScreenFn = Callable[[Task, str, dict[str, Any]], tuple[list[str], list[str]]]


@dataclass(frozen=True)
class ClassSpec:
    """One perturbation class: how to generate it by rules, how ε is measured, and the
    class-specific parts of the LLM request and of the pre-screen.

    A class module exports one ``SPEC = ClassSpec(...)``; the registry
    (:data:`perturb.generate.perturbations.CLASSES`) is built from those and from the
    ``perturb.perturbations`` entry points."""

    name: str
    """What users write (``--classes typo``) and what fixtures record as ``perturbation``."""
    default_level: float
    """The requested ε when ``--intensity`` names no level for this class."""
    max_level: float
    """The largest level ``--intensity`` accepts for this class."""
    length_ratio: tuple[float, float]
    """The pre-screen's accepted range of (variant characters ÷ canonical characters)."""
    epsilon: str
    """What ε means for this class and how it is measured on a finished text."""
    generate: GenerateFn
    """Rules generator: ``(ctx, level, rng, index) -> Variant``; raise :class:`SkipGeneration`
    with a reason when the task cannot be perturbed."""
    measure: MeasureFn
    """ε of a finished text (rules, LLM and reviewer-edited output alike)."""
    llm_request: LLMRequestFn | None = None
    """``(ctx, index) -> (template substitutions, details fixed before asking)`` for the LLM
    generator; ``None`` adds nothing to the template's ``$task``, ``$level``, ``$epsilon``."""
    llm_details: LLMDetailsFn | None = None
    """``(ctx, text, details) -> details``: completes an LLM variant's details."""
    screen: ScreenFn | None = None
    """``(task, text, details) -> (allowed new values, flags)``: class-specific pre-screen
    checks; allowed values are new values the class may add (a self-correction's wrong one)."""
    template: str | None = None
    """The LLM prompt template (``[system]`` and ``[user]`` sections); ``None`` reads the
    shipped ``perturb/generate/templates/<name>.txt``."""
