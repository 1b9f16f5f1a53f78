"""Build a small frozen suite on disk (tasks, fixtures, lock) that ``perturb verify`` accepts.

Used by the run tests and the benchmarks: it writes exactly what ``perturb freeze`` would
(the stable rendering of :mod:`perturb.freeze.fixtures`, lock hashes from ``content_hash``), so
the runner's refusal to run unverified fixtures is exercised for real.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perturb._version import __version__
from perturb.freeze.fixtures import fixture_sort_key, render_fixtures, render_lock
from perturb.io.hashing import content_hash, short_id
from perturb.records import FixtureEntry, Lock, LockDecision, LockEntry, Provenance, Task
from perturb.tasks import task_hash


def make_suite(
    root: Path,
    tasks: list[dict[str, Any]],
    variants: Sequence[tuple[str, str, str]] = (),
    suite: str = "demo",
) -> Path:
    """Write ``tasks/<suite>.jsonl``, ``fixtures/<suite>.jsonl`` and its lock under ``root``.

    ``variants`` are ``(task_id, class, text)``. Returns the fixtures path."""
    root.mkdir(parents=True, exist_ok=True)
    parsed = [Task.model_validate(t) for t in tasks]
    (root / "tasks").mkdir(exist_ok=True)
    (root / "tasks" / f"{suite}.jsonl").write_text(
        "".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8"
    )
    by_id = {t.id: t for t in parsed}
    entries: list[FixtureEntry] = []
    for task in parsed:
        entries.append(
            FixtureEntry(
                id=f"{task.id}/canonical",
                task_id=task.id,
                perturbation="canonical",
                prompt=task.prompt,
                expected=task.expected,
                grader=task.grader,
                weight=task.weight,
                slots=task.slots,
                metadata=task.metadata,
            )
        )
    for task_id, cls, text in variants:
        task = by_id[task_id]
        cid = "c-" + short_id((suite, task_id, cls, text))
        entries.append(
            FixtureEntry.model_validate(
                {
                    "id": f"{task_id}/{cls}/{cid}",
                    "task_id": task_id,
                    "perturbation": cls,
                    "prompt": text,
                    "level": 0.2,
                    "epsilon": 0.1,
                    "expected": task.expected,
                    "grader": task.grader,
                    "weight": task.weight,
                    "slots": task.slots,
                    "metadata": task.metadata,
                    "candidate_id": cid,
                }
            )
        )
    entries.sort(key=fixture_sort_key)
    lock_entries = []
    for e in entries:
        canonical = e.perturbation == "canonical"
        lock_entries.append(
            LockEntry(
                id=e.id,
                sha256=content_hash(e),
                task_id=e.task_id,
                perturbation=e.perturbation,
                provenance=None
                if canonical
                else Provenance(kind="rules", perturb_version=__version__, seed=0),
                decision=None
                if canonical
                else LockDecision(
                    action="accepted",
                    reviewer="tester",
                    at="2026-01-01T00:00:00Z",
                    mode="individual",
                ),
            )
        )
    lock = Lock(
        perturb_version=__version__,
        suite=suite,
        tasks_file=f"tasks/{suite}.jsonl",
        tasks={t.id: task_hash(t) for t in parsed},
        entries=lock_entries,
    )
    (root / "fixtures").mkdir(exist_ok=True)
    fixtures = root / "fixtures" / f"{suite}.jsonl"
    fixtures.write_bytes(render_fixtures(entries))
    (root / "fixtures" / f"{suite}.lock.json").write_bytes(render_lock(lock))
    return fixtures


def read_trials(path: Path) -> list[dict[str, Any]]:
    """Every complete line of a trials file, parsed."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
