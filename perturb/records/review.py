"""Records of ``review/<suite>/``: candidates and skips (``perturb generate``) and review
decisions (``perturb review``, ``accept``, ``reject``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from perturb.records.base import PerturbationClass, Record


class Provenance(Record):
    """Where a candidate came from -- enough to reproduce it."""

    kind: Literal["rules", "llm"]
    """Generator: offline ``rules`` or an ``llm`` through an OpenAI-compatible server."""
    perturb_version: str
    """perturb's version when the candidate was generated."""
    seed: int
    """The seed of the generation run (each candidate's RNG is keyed by seed, task, class,
    level and index)."""
    model: str | None = None
    """LLM generator: the model name sent to the server."""
    temperature: float | None = None
    """LLM generator: the sampling temperature."""
    system_fingerprint: str | None = None
    """LLM generator: the server's ``system_fingerprint``, when it sent one."""
    template_sha256: str | None = None
    """LLM generator: sha256 of the prompt template used."""
    retries: int = 0
    """LLM generator: how many retries the request needed (429, 5xx, timeout, bad JSON)."""


class Screen(Record):
    """The automatic pre-screen of a candidate. Failing candidates are kept, flagged."""

    passed: bool
    """True when no flag was raised."""
    flags: list[str] = Field(default_factory=list)
    """One human-readable reason per problem (protected value lost, identical to the
    canonical prompt, duplicate, length ratio out of range, wrong final value, ...)."""


class Candidate(Record):
    """A proposed variant waiting for review: a line of ``review/<suite>/candidates.jsonl``."""

    id: str
    """Content-derived id: ``c-`` + 12 hex digits of the hash of (suite, task, class, text)."""
    suite: str
    """The suite name (the task file's stem)."""
    task_id: str
    """The canonical task this is a variant of."""
    perturbation: PerturbationClass
    """The perturbation class."""
    text: str
    """The variant prompt."""
    level: float = Field(ge=0)
    """The requested intensity epsilon."""
    epsilon: float = Field(ge=0)
    """The measured intensity of this text (definition per class in docs/perturbations.md)."""
    index: int = Field(ge=0)
    """Which variant this is among those asked for the same task, class and level."""
    generator: Provenance
    """How it was generated."""
    screen: Screen
    """The pre-screen result."""
    details: dict[str, Any] = Field(default_factory=dict)
    """Class-specific facts: for ``self_correction`` the ``slot``, ``wrong`` and ``final``
    values and the ``phrasing``; for ``distractor`` the inserted sentences; for ``reorder``
    the new order of the original segments; for ``typo`` the edits."""
    task_sha256: str
    """Content hash of the canonical task when this was generated (stale detection)."""


class GenerationSkip(Record):
    """A (task, class) the generator could not perturb, with the reason."""

    task_id: str
    """The task."""
    perturbation: PerturbationClass
    """The class."""
    level: float
    """The requested level."""
    reason: str
    """Why, e.g. "order carries meaning ('first ... then ...')" or "no slot to correct"."""


class SampleRule(Record):
    """A reproducible review sample (``perturb review --sample N --seed S``)."""

    n: int = Field(ge=1)
    """How many candidates were drawn."""
    seed: int
    """The seed of the draw."""
    rule: str = "stratified by class: round-robin over classes, each class shuffled with the seed"
    """How the draw was made."""


class Decision(Record):
    """One review action: a line of ``review/<suite>/journal.jsonl`` (append-only, fsynced)."""

    seq: int = Field(ge=1)
    """Position in the journal, 1-based, strictly increasing."""
    action: Literal["accept", "reject", "edit", "skip", "undo"]
    """What the reviewer did. ``undo`` cancels the decision ``undoes``."""
    candidate_id: str | None = None
    """The candidate decided on (None only for ``undo``)."""
    text: str | None = None
    """``edit`` only: the edited variant text (the candidate's own text stays as its origin)."""
    screen: Screen | None = None
    """``edit`` only: the pre-screen of the edited text."""
    reason: str | None = None
    """Optional one-line reason or note (for a rejection, why)."""
    reviewer: str
    """Who decided (``--reviewer`` or ``git config user.name <user.email>``)."""
    at: str
    """UTC time of the decision, ISO 8601 with ``Z``."""
    mode: Literal["individual", "sampled", "bulk"] = "individual"
    """``individual`` (read one by one), ``sampled`` (part of a ``--sample`` draw) or ``bulk``
    (several ids accepted/rejected in one command)."""
    sample: SampleRule | None = None
    """The sampling rule, when ``mode`` is ``sampled``."""
    undoes: int | None = None
    """``undo`` only: the ``seq`` of the decision it cancels."""
    task_sha256: str | None = None
    """The candidate's ``task_sha256`` when the decision was made. A decision made against an
    older version of the task does not count for a candidate regenerated after the task
    changed (the candidate is undecided again). None: applies whatever the task version."""
