"""Records that perturb writes to disk, as pydantic models with a docstring per field.

One module per stage (``task``, ``review``, ``fixture``, ``run``, ``baseline``; shared types in
``base``); every record is importable from here.

The data flow and the record each stage writes:

    tasks/<suite>.jsonl            Task            (written by the user)
    review/<suite>/candidates.jsonl Candidate      (perturb generate)
    review/<suite>/journal.jsonl    Decision       (perturb review / accept / reject)
    fixtures/<suite>.jsonl          FixtureEntry   (perturb freeze)
    fixtures/<suite>.lock.json      Lock           (perturb freeze)
    runs/<id>/manifest.json         RunManifest    (perturb run)
    runs/<id>/trials.jsonl          Trial          (perturb run)
    evals/baseline.json             Baseline       (perturb baseline)

Every model forbids unknown fields, so a typo in a hand-written file is an error, not a
silently ignored key. Field docstrings become JSON Schema descriptions (``perturb schema``).
"""

from __future__ import annotations

from perturb.records.base import (
    CANONICAL,
    SCHEMA_VERSION,
    TASK_ID_PATTERN,
    GraderType,
    Outcome,
    PerturbationClass,
    Record,
    VariantKind,
)
from perturb.records.baseline import Baseline, BaselineVariant, ClassFigures
from perturb.records.fixture import FixtureEntry, Lock, LockDecision, LockEntry
from perturb.records.review import Candidate, Decision, GenerationSkip, Provenance, SampleRule, Screen
from perturb.records.run import RunManifest, Trial, Usage
from perturb.records.task import Grader, Task

__all__ = [
    "Baseline",
    "BaselineVariant",
    "CANONICAL",
    "Candidate",
    "ClassFigures",
    "Decision",
    "FixtureEntry",
    "GenerationSkip",
    "Grader",
    "GraderType",
    "Lock",
    "LockDecision",
    "LockEntry",
    "Outcome",
    "PerturbationClass",
    "Provenance",
    "Record",
    "RunManifest",
    "SCHEMA_VERSION",
    "SampleRule",
    "Screen",
    "TASK_ID_PATTERN",
    "Task",
    "Trial",
    "Usage",
    "VariantKind",
]
