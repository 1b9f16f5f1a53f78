"""Records of ``fixtures/``: a frozen entry and the lock (``perturb freeze``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from perturb.records.base import SCHEMA_VERSION, Record, VariantKind
from perturb.records.review import Provenance, SampleRule
from perturb.records.task import Grader


class FixtureEntry(Record):
    """One frozen prompt: a line of ``fixtures/<suite>.jsonl`` (canonical JSON, sorted)."""

    id: str
    """``<task_id>/canonical`` or ``<task_id>/<class>/<candidate_id>``."""
    task_id: str
    """The canonical task."""
    perturbation: VariantKind
    """``canonical`` or the perturbation class."""
    prompt: str
    """The text given to the agent."""
    level: float | None = None
    """Requested epsilon (None for canonical)."""
    epsilon: float = 0.0
    """Measured epsilon (0 for canonical)."""
    expected: Any
    """Copied from the task."""
    grader: Grader
    """Copied from the task."""
    weight: float = Field(default=1.0, gt=0)
    """Copied from the task."""
    slots: dict[str, str] = Field(default_factory=dict)
    """Copied from the task."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Copied from the task."""
    candidate_id: str | None = None
    """The reviewed candidate this came from (None for canonical)."""


class LockDecision(Record):
    """The review decision behind a frozen variant."""

    action: Literal["accepted", "edited"]
    """Accepted as generated, or edited by the reviewer."""
    reviewer: str
    """Who decided."""
    at: str
    """UTC time of the decision."""
    mode: Literal["individual", "sampled", "bulk"]
    """How it was reviewed."""
    note: str | None = None
    """The reviewer's note, if any."""
    origin_text: str | None = None
    """``edited`` only: the generated text before the edit."""
    sample: SampleRule | None = None
    """The sampling rule, for sampled reviews."""


class LockEntry(Record):
    """Integrity and provenance of one fixture line."""

    id: str
    """The fixture entry id."""
    sha256: str
    """``content_hash`` of the fixture entry (see :mod:`perturb.io.hashing`)."""
    task_id: str
    """The canonical task."""
    perturbation: VariantKind
    """``canonical`` or the class."""
    provenance: Provenance | None = None
    """How the variant was generated (None for canonical)."""
    decision: LockDecision | None = None
    """The review decision (None for canonical)."""


class Lock(Record):
    """``fixtures/<suite>.lock.json``: what was frozen, from what, and who approved it.

    It holds nothing that changes from run to run: freezing the same decisions twice gives
    the same bytes."""

    schema_version: int = SCHEMA_VERSION
    """Lock format version."""
    perturb_version: str
    """perturb's version at freeze time."""
    suite: str
    """Suite name."""
    tasks_file: str
    """The canonical task file, relative to the project root."""
    tasks: dict[str, str]
    """task id -> ``content_hash`` of the canonical task at freeze time (a later edit of the
    task marks its entries STALE)."""
    entries: list[LockEntry]
    """One entry per fixture line, in fixture order."""
