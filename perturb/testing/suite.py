"""Build a small frozen suite on disk (tasks, fixtures, lock) that ``perturb verify`` accepts.

For tests and benchmarks of an agent that need a suite without a human review: it writes tasks and
a review journal accepting every given variant and runs the real ``perturb freeze``, so ``perturb
run`` (which refuses unverified fixtures) accepts the result.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perturb._version import __version__
from perturb.freeze.core import freeze
from perturb.io.hashing import short_id
from perturb.records import Candidate, Decision, Provenance, Screen, Task
from perturb.tasks import task_hash


def make_suite(
    root: Path,
    tasks: list[dict[str, Any]],
    variants: Sequence[tuple[str, str, str]] = (),
    suite: str = "demo",
) -> Path:
    """Write ``tasks/<suite>.jsonl``, ``review/<suite>/`` (candidates and a journal accepting
    every one) and freeze them with the real ``perturb freeze``: the fixtures are exactly what
    ``perturb verify`` re-derives from tasks and review.

    ``variants`` are ``(task_id, class, text)``. Returns the fixtures path."""
    root.mkdir(parents=True, exist_ok=True)
    parsed = [Task.model_validate(t) for t in tasks]
    (root / "tasks").mkdir(exist_ok=True)
    (root / "tasks" / f"{suite}.jsonl").write_text(
        "".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8"
    )
    by_id = {t.id: t for t in parsed}
    review = root / "review" / suite
    review.mkdir(parents=True, exist_ok=True)
    seen: dict[tuple[str, str], int] = {}
    cands: list[str] = []
    journal: list[str] = []
    for task_id, cls, text in variants:
        task = by_id[task_id]
        index = seen[(task_id, cls)] = seen.get((task_id, cls), -1) + 1
        cand = Candidate(
            id="c-" + short_id((suite, task_id, cls, text)),
            suite=suite,
            task_id=task_id,
            perturbation=cls,
            text=text,
            level=0.2,
            epsilon=0.1,
            index=index,
            generator=Provenance(kind="rules", perturb_version=__version__, seed=0),
            screen=Screen(passed=True, flags=[]),
            task_sha256=task_hash(task),
        )
        cands.append(cand.model_dump_json() + "\n")
        decision = Decision(
            seq=len(journal) + 1,
            action="accept",
            candidate_id=cand.id,
            reviewer="tester",
            at="2026-01-01T00:00:00Z",
            task_sha256=cand.task_sha256,
        )
        journal.append(decision.model_dump_json(exclude_none=True) + "\n")
    (review / "candidates.jsonl").write_text("".join(cands), encoding="utf-8")
    (review / "journal.jsonl").write_text("".join(journal), encoding="utf-8")
    (root / "fixtures").mkdir(exist_ok=True)
    return freeze(root, suite).fixtures_path


def read_trials(path: Path) -> list[dict[str, Any]]:
    """Every complete line of a trials file, parsed."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
