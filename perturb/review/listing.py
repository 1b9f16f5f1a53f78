"""Review without a terminal: ``perturb review --list [--json]``, ``perturb accept``, ``perturb reject``.

The text form groups candidates under their task's canonical prompt, one line each:
``id  class  status  text`` with invisible and look-alike characters made visible, so a
reviewer can read every candidate and decide with ``perturb accept`` / ``perturb reject``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from perturb.errors import ReviewError, UsageError
from perturb.freeze.fixtures import SuitePaths
from perturb.records import Candidate, Decision
from perturb.review.journal import Recorder, ReviewContext, Status, is_stale, open_context, resolve_reviewer
from perturb.review.render import visible
from perturb.tasks import load_tasks

STATUSES = ("accepted", "edited", "rejected", "skipped", "undecided")


@dataclass
class ListedCandidate:
    """One row of ``perturb review --list``."""

    candidate: Candidate
    status: Status
    stale: bool
    decision: Decision | None

    def to_json(self) -> dict[str, Any]:
        c, d = self.candidate, self.decision
        return {
            "id": c.id,
            "task_id": c.task_id,
            "perturbation": c.perturbation,
            "status": self.status,
            "stale": self.stale,
            "level": c.level,
            "epsilon": c.epsilon,
            "text": c.text,
            "edited_text": d.text if d is not None and d.action == "edit" else None,
            "screen": c.screen.model_dump(mode="json"),
            "reviewer": d.reviewer if d else None,
            "at": d.at if d else None,
            "reason": d.reason if d else None,
        }


def list_candidates(
    root: Path,
    suite: str | None,
    cls: str | None = None,
    task: str | None = None,
    sample: int | None = None,
    seed: int | None = None,
) -> tuple[str, list[ListedCandidate]]:
    """The suite name and its (selected) candidates with their review status."""
    ctx = open_context(root, suite)
    rows = [
        ListedCandidate(c, ctx.state.status(c), is_stale(c, ctx.tasks), ctx.state.decision_for(c))
        for c in ctx.select(cls, task, sample, seed)
    ]
    return ctx.suite, rows


def _suites_with_candidates(root: Path, suite: str | None) -> list[str]:
    if suite:
        return [suite]
    return sorted(p.parent.name for p in (root / "review").glob("*/candidates.jsonl"))


def decide_ids(
    root: Path,
    ids: list[str],
    action: Literal["accept", "reject"],
    *,
    reason: str | None,
    reviewer: str | None,
    suite: str | None = None,
) -> list[tuple[Candidate, Decision]]:
    """``perturb accept`` / ``perturb reject``: record one decision per id (under the lock).

    One id is an ``individual`` decision; several in one command are ``bulk``."""
    if not ids:
        raise UsageError("no candidate ids given (expected ids from `perturb review --list`)")
    if action == "reject" and not (reason and reason.strip()):
        raise UsageError("perturb reject needs --reason R (why the candidate is rejected)")
    wanted = list(dict.fromkeys(ids))
    contexts: dict[str, ReviewContext] = {}
    owner: dict[str, str] = {}
    for name in _suites_with_candidates(root, suite):
        ctx = open_context(root, name)
        contexts[name] = ctx
        for c in ctx.candidates:
            owner.setdefault(c.id, name)
    unknown = [i for i in wanted if i not in owner]
    if unknown:
        raise UsageError(
            f"unknown candidate id{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)} "
            "(expected ids from `perturb review --list`)"
        )
    who = resolve_reviewer(reviewer, root)
    mode = "individual" if len(wanted) == 1 else "bulk"
    done: list[tuple[Candidate, Decision]] = []
    for name, ctx in contexts.items():
        mine = [i for i in wanted if owner[i] == name]
        if not mine:
            continue
        by_id = ctx.by_id()
        if action == "accept":
            stale = [i for i in mine if is_stale(by_id[i], ctx.tasks)]
            if stale:
                raise ReviewError(
                    f"{ctx.paths.candidates}: stale candidate{'s' if len(stale) > 1 else ''} "
                    f"{', '.join(stale)}: the task changed since generation; reject "
                    f"{'them' if len(stale) > 1 else 'it'} and run `perturb generate` for new "
                    "candidates"
                )
        with Recorder(ctx, who, f"perturb {action}") as rec:
            for cid in mine:
                cand = by_id[cid]
                done.append((cand, rec.record(action, cand, reason=reason, mode=mode)))
    return done


def _one_line(text: str) -> str:
    return visible(text).plain.replace("\n", " ⏎ ")


def format_list(
    root: Path,
    suite: str | None,
    cls: str | None = None,
    task: str | None = None,
    sample: int | None = None,
    seed: int | None = None,
    *,
    as_json: bool = False,
) -> str:
    """The ``--list`` output (ends with a newline)."""
    name, rows = list_candidates(root, suite, cls, task, sample, seed)
    canon = {t.id: t.prompt for t in load_tasks(SuitePaths(root, name).tasks).tasks}
    if as_json:
        data = []
        for row in rows:
            item = row.to_json()
            item["canonical"] = canon.get(row.candidate.task_id)
            data.append(item)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    counts: Counter[str] = Counter(r.status for r in rows)
    parts = ", ".join(f"{counts[s]} {s}" for s in STATUSES)
    out = [f"{name} · {len(rows)} candidate{'s' if len(rows) != 1 else ''} · {parts}"]
    width = max((len(r.candidate.perturbation) for r in rows), default=0)
    current: str | None = None
    for row in rows:
        c = row.candidate
        if c.task_id != current:
            current = c.task_id
            prompt = canon.get(c.task_id)
            out.append(f"{c.task_id}: {_one_line(prompt) if prompt else '(task removed)'}")
        out.append(_row(row, width))
    return "\n".join(out) + "\n"


def _row(row: ListedCandidate, width: int) -> str:
    c, d = row.candidate, row.decision
    marks = []
    if row.stale:
        marks.append("STALE")
    if c.screen.flags:
        marks.append(f"{len(c.screen.flags)} flag{'s' if len(c.screen.flags) > 1 else ''}")
    status = row.status + (f" ({', '.join(marks)})" if marks else "")
    text = d.text if d is not None and d.action == "edit" and d.text else c.text
    line = f"  {c.id}  {c.perturbation:<{width}}  {status:<10}  {_one_line(text)}"
    if c.screen.flags:
        line += "".join(f"\n      ! {flag}" for flag in c.screen.flags)
    return line
