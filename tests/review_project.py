"""A small project on disk for the review / freeze / verify tests: tasks and candidates built
directly as records (no generator involved)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from perturb.io.hashing import short_id
from perturb.records import Candidate, Provenance, Screen, Task
from perturb.tasks import task_hash

SUITE = "travel"

TASKS: list[dict[str, Any]] = [
    {
        "id": "book-01",
        "prompt": "Book a flight from Paris to Rome on Friday.",
        "expected": {"from": "Paris", "to": "Rome", "day": "Friday"},
        "grader": "json_subset",
        "slots": {"from": "Paris", "to": "Rome", "day": "Friday"},
    },
    {
        "id": "hotel-02",
        "prompt": "Find a hotel in Lisbon for 2 nights under 150 EUR.",
        "expected": "Lisbon",
        "grader": "contains",
        "slots": {"city": "Lisbon", "nights": "2", "budget": "150 EUR"},
        "weight": 2,
    },
]

# (task id, class, text, screen flags, details)
CANDIDATES: list[tuple[str, str, str, list[str], dict[str, Any]]] = [
    ("book-01", "paraphrase", "Please book me a flight from Paris to Rome on Friday.", [], {}),
    (
        "book-01",
        "typo",
        "Book a flihgt from Paris to Rome on Friday.",
        [],
        {"edits": [{"kind": "swap", "word": "flight"}]},
    ),
    ("book-01", "register", "yo book a flight Paris to Rome friday pls", ["slot 'day' lost"], {}),
    ("hotel-02", "paraphrase", "I need a hotel in Lisbon for 2 nights, under 150 EUR.", [], {}),
    (
        "hotel-02",
        "distractor",
        "Find a hotel in Lisbon for 2 nights under 150 EUR. My sister loves museums.",
        [],
        {"inserted": ["My sister loves museums."]},
    ),
    ("hotel-02", "typo", "Find a hotel in Lisbon for 2 nigths under 150 EUR.", [], {}),
]


def candidate_id(suite: str, task_id: str, cls: str, text: str) -> str:
    return "c-" + short_id((suite, task_id, cls, text))


def make_candidate(
    task: Task,
    cls: str,
    text: str,
    flags: list[str] | None = None,
    details: dict[str, Any] | None = None,
    suite: str = SUITE,
    index: int = 0,
) -> Candidate:
    flags = list(flags or [])
    return Candidate(
        id=candidate_id(suite, task.id, cls, text),
        suite=suite,
        task_id=task.id,
        perturbation=cls,
        text=text,
        level=0.1,
        epsilon=0.12,
        index=index,  # type: ignore[arg-type]
        generator=Provenance(kind="rules", perturb_version="0.1.0", seed=7),
        screen=Screen(passed=not flags, flags=flags),
        details=dict(details or {}),
        task_sha256=task_hash(task),
    )


def write_lines(path: Path, records: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for rec in records:
            data = rec.model_dump(mode="json") if hasattr(rec, "model_dump") else rec
            fh.write(json.dumps(data, ensure_ascii=False) + "\n")


def make_project(root: Path, suite: str = SUITE) -> list[Candidate]:
    """Write tasks/<suite>.jsonl and review/<suite>/candidates.jsonl; return the candidates."""
    tasks = [Task.model_validate(t) for t in TASKS]
    write_lines(root / "tasks" / f"{suite}.jsonl", TASKS)
    by_id = {t.id: t for t in tasks}
    cands = [
        make_candidate(by_id[tid], cls, text, flags, details, suite)
        for tid, cls, text, flags, details in CANDIDATES
    ]
    write_lines(root / "review" / suite / "candidates.jsonl", cands)
    (root / "fixtures").mkdir(exist_ok=True)
    return cands


def journal_lines(root: Path, suite: str = SUITE) -> list[dict[str, Any]]:
    path = root / "review" / suite / "journal.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
