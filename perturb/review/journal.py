"""Review of generated candidates: the decision journal, state derivation, undo, sampling.

``review/<suite>/journal.jsonl`` is append-only: one :class:`~perturb.records.Decision` per line,
each made durable (fsync) before the next item is shown, so a crash loses at most the item on
screen. Nothing else records review state: a candidate's status is derived by replaying the
journal -- the latest decision on it that has not been undone decides (``accepted``,
``rejected``, ``edited``, ``skipped``); with none it is ``undecided``. An ``undo`` line cancels
one earlier decision (by ``seq``); pressing undo again cancels the one before, and so on.

The interactive terminal UI lives in :mod:`perturb.review.tui`, the scriptable side
(``perturb review --list``, ``perturb accept``, ``perturb reject``) in :mod:`perturb.review.listing`.
"""

from __future__ import annotations

import hashlib
import random
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from perturb.errors import InputError, ReviewError, UsageError
from perturb.freeze.fixtures import SuitePaths, find_suite
from perturb.generate.perturbations import class_names, kind_rank
from perturb.io.clock import utc_now
from perturb.io.jsonl import Appender, iter_jsonl_lines, validate_record
from perturb.records import Candidate, Decision, SampleRule, Screen, Task
from perturb.review.lock import ReviewLock
from perturb.tasks import load_tasks, task_hash

Status = Literal["undecided", "accepted", "rejected", "edited", "skipped"]
STATUS_OF_ACTION: dict[str, Status] = {
    "accept": "accepted",
    "reject": "rejected",
    "edit": "edited",
    "skip": "skipped",
}


# --------------------------------------------------------------------------- reading


def load_candidates(path: Path, suite: str | None = None) -> list[Candidate]:
    """All candidates of ``review/<suite>/candidates.jsonl`` (FILE:LINE errors; ids unique)."""
    out: list[Candidate] = []
    seen: dict[str, int] = {}
    for line, item in iter_jsonl_lines(path):
        if isinstance(item, InputError):
            raise item
        cand = validate_record(Candidate, item, path, line)
        if suite is not None and cand.suite != suite:
            raise InputError(
                str(path),
                f"candidate of suite {cand.suite!r} in the directory of suite "
                f"{suite!r} (expected {suite!r}; regenerate with `perturb generate`)",
                line=line,
                field="suite",
            )
        if cand.id in seen:
            raise InputError(
                str(path),
                f"duplicate candidate id {cand.id!r} (first on line {seen[cand.id]}; expected each id once)",
                line=line,
                field="id",
            )
        seen[cand.id] = line
        out.append(cand)
    return out


def read_journal(path: Path) -> list[Decision]:
    """The decisions of a journal, checked: valid records, ``seq`` strictly increasing, each
    ``undo`` naming an earlier decision not already undone. A torn last line (a process killed
    mid-write) is ignored. A missing journal is empty."""
    if not path.exists():
        return []
    state = JournalState()
    for line, item in iter_jsonl_lines(path, tolerate_truncated_tail=True):
        if isinstance(item, InputError):
            raise item
        decision = validate_record(Decision, item, path, line)
        problem = state.problem(decision)
        if problem is not None:
            fld, msg = problem
            raise InputError(str(path), msg, line=line, field=fld)
        state.apply(decision)
    return state.decisions


# --------------------------------------------------------------------------- state


@dataclass
class JournalState:
    """Review state derived by replaying the journal."""

    decisions: list[Decision] = field(default_factory=list)
    """Every line, undo lines included, in order."""
    undone: dict[int, int] = field(default_factory=dict)
    """seq of an undone decision -> seq of the undo that cancelled it."""
    per_candidate: dict[str, list[Decision]] = field(default_factory=dict)
    """Candidate id -> its decisions that are not undone, oldest first."""
    _by_seq: dict[int, Decision] = field(default_factory=dict)

    @property
    def next_seq(self) -> int:
        return self.decisions[-1].seq + 1 if self.decisions else 1

    def problem(self, d: Decision) -> tuple[str, str] | None:
        """Why ``d`` cannot follow the journal so far, as ``(field, message)``, or None."""
        if self.decisions and d.seq <= self.decisions[-1].seq:
            return "seq", (
                f"seq {d.seq} is not after {self.decisions[-1].seq} (expected strictly increasing; "
                "was the journal edited by hand?)"
            )
        if d.action == "undo":
            target = self._by_seq.get(d.undoes) if d.undoes is not None else None
            if target is None:
                return "undoes", f"undo of unknown seq {d.undoes!r} (expected an earlier seq)"
            if target.action == "undo":
                return "undoes", f"seq {d.undoes} is an undo (expected a decision)"
            if target.seq in self.undone:
                return "undoes", (
                    f"seq {d.undoes} was already undone by seq {self.undone[target.seq]} "
                    "(expected a decision still in effect)"
                )
        elif d.candidate_id is None:
            return "candidate_id", f"missing for {d.action!r} (expected the candidate decided on)"
        if d.action == "edit" and not d.text:
            return "text", "an edit needs the edited text (expected a non-empty string)"
        return None

    def apply(self, d: Decision) -> None:
        """Add a decision (already checked with :meth:`problem`)."""
        self.decisions.append(d)
        self._by_seq[d.seq] = d
        if d.action == "undo":
            assert d.undoes is not None
            target = self._by_seq[d.undoes]
            self.undone[target.seq] = d.seq
            assert target.candidate_id is not None
            live = self.per_candidate.get(target.candidate_id, [])
            self.per_candidate[target.candidate_id] = [x for x in live if x.seq != target.seq]
        else:
            assert d.candidate_id is not None
            self.per_candidate.setdefault(d.candidate_id, []).append(d)

    @classmethod
    def replay(cls, decisions: Iterable[Decision]) -> JournalState:
        state = cls()
        for d in decisions:
            state.apply(d)
        return state

    def decision_for(self, cand: Candidate) -> Decision | None:
        """The decision in effect for a candidate: its latest one not undone, made on this
        version of the task (a decision recorded against another task hash does not count)."""
        for d in reversed(self.per_candidate.get(cand.id, [])):
            if d.task_sha256 is None or d.task_sha256 == cand.task_sha256:
                return d
        return None

    def status(self, cand: Candidate) -> Status:
        d = self.decision_for(cand)
        return "undecided" if d is None else STATUS_OF_ACTION[d.action]

    def last_in_effect(self, candidate_ids: set[str]) -> Decision | None:
        """The most recent decision not undone on one of ``candidate_ids`` (what undo cancels)."""
        for d in reversed(self.decisions):
            if d.action != "undo" and d.seq not in self.undone and d.candidate_id in candidate_ids:
                return d
        return None


# --------------------------------------------------------------------------- selection


def review_order(cands: list[Candidate], tasks: list[Task]) -> list[Candidate]:
    """Candidates in review order: task file order, class order, level, index, id."""
    pos = {t.id: i for i, t in enumerate(tasks)}
    return sorted(
        cands,
        key=lambda c: (
            pos.get(c.task_id, len(pos)),
            c.task_id,
            kind_rank(c.perturbation),
            c.level,
            c.index,
            c.id,
        ),
    )


def _class_rng(seed: int, cls: str) -> random.Random:
    digest = hashlib.sha256(f"perturb-review-sample:{seed}:{cls}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def draw_sample(cands: list[Candidate], n: int, seed: int) -> list[Candidate]:
    """A reproducible sample of ``n`` candidates stratified by class: each class's candidates,
    sorted by id, are shuffled with an RNG keyed by (seed, class); then classes are taken
    round-robin in class order until ``n`` are drawn. The result keeps the input order."""
    pools: list[list[Candidate]] = []
    for cls in class_names():
        pool = sorted((c for c in cands if c.perturbation == cls), key=lambda c: c.id)
        _class_rng(seed, cls).shuffle(pool)
        pools.append(pool)
    chosen: set[str] = set()
    depth = 0
    while len(chosen) < n and any(depth < len(p) for p in pools):
        for pool in pools:
            if depth < len(pool) and len(chosen) < n:
                chosen.add(pool[depth].id)
        depth += 1
    return [c for c in cands if c.id in chosen]


def is_stale(cand: Candidate, tasks: dict[str, Task]) -> bool:
    """True when the candidate's task was removed or changed since it was generated."""
    task = tasks.get(cand.task_id)
    return task is None or task_hash(task) != cand.task_sha256


def resolve_reviewer(flag: str | None, root: Path) -> str:
    """``--reviewer`` if given, else ``git config user.name <user.email>``."""
    if flag is not None:
        if not flag.strip():
            raise UsageError("--reviewer is blank (expected a name, e.g. --reviewer 'Ada L.')")
        return flag.strip()

    def git(key: str) -> str:
        try:
            out = subprocess.run(
                ["git", "config", key],
                cwd=root if root.is_dir() else None,
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return ""
        return out.stdout.strip() if out.returncode == 0 else ""

    name, email = git("user.name"), git("user.email")
    if name and email:
        return f"{name} <{email}>"
    if name or email:
        return name or email
    raise ReviewError("no reviewer name: pass --reviewer NAME or set one with `git config user.name NAME`")


# --------------------------------------------------------------------------- the suite


@dataclass
class ReviewContext:
    """Everything a review works on: tasks, candidates (in review order) and the journal."""

    paths: SuitePaths
    tasks: dict[str, Task]
    candidates: list[Candidate]
    state: JournalState

    @property
    def suite(self) -> str:
        return self.paths.suite

    def by_id(self) -> dict[str, Candidate]:
        return {c.id: c for c in self.candidates}

    def select(
        self,
        cls: str | None = None,
        task: str | None = None,
        sample: int | None = None,
        seed: int | None = None,
    ) -> list[Candidate]:
        """The candidates a review covers, after ``--class``/``--task`` and ``--sample``."""
        if cls is not None and cls not in class_names():
            raise UsageError(
                f"--class {cls!r} is not a perturbation class (expected one of: {', '.join(class_names())})"
            )
        if task is not None and not any(c.task_id == task for c in self.candidates):
            raise UsageError(
                f"--task {task!r}: no candidates for this task in {self.paths.candidates} "
                "(expected a task id that `perturb review --list` shows)"
            )
        out = [
            c
            for c in self.candidates
            if (cls is None or c.perturbation == cls) and (task is None or c.task_id == task)
        ]
        if sample is not None:
            if sample < 1:
                raise UsageError(f"--sample {sample} (expected a positive number of candidates)")
            if seed is None:
                raise UsageError("--sample needs --seed S (the draw must be reproducible)")
            out = draw_sample(out, sample, seed)
        elif seed is not None:
            raise UsageError("--seed only applies with --sample N")
        return out


def open_context(root: Path, suite: str | None) -> ReviewContext:
    """Load one suite's tasks, candidates and journal (the only suite under review/ by default)."""
    name = find_suite(root, suite, "review")
    paths = SuitePaths(root, name)
    if not paths.candidates.exists():
        raise UsageError(
            f"{paths.candidates}: no candidates for suite {name!r} "
            f"(expected the file `perturb generate` writes; run it first)"
        )
    tasks = load_tasks(paths.tasks).tasks
    cands = review_order(load_candidates(paths.candidates, name), tasks)
    state = JournalState.replay(read_journal(paths.journal))
    return ReviewContext(paths, {t.id: t for t in tasks}, cands, state)


class Recorder:
    """Appends decisions to the journal under the review lock. Use as a context manager."""

    def __init__(self, ctx: ReviewContext, reviewer: str, purpose: str) -> None:
        self.ctx = ctx
        self.reviewer = reviewer
        self.lock = ReviewLock(ctx.paths.review_lock, ctx.suite, purpose)
        self._appender: Appender | None = None

    def __enter__(self) -> Recorder:
        self.lock.acquire()
        try:
            # Re-read under the lock: another process may have appended since we loaded.
            self.ctx.state = JournalState.replay(read_journal(self.ctx.paths.journal))
            self._appender = Appender(self.ctx.paths.journal)
        except BaseException:
            self.lock.release()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self._appender is not None:
            self._appender.close()
        self.lock.release()

    def record(
        self,
        action: str,
        cand: Candidate | None = None,
        *,
        undoes: int | None = None,
        text: str | None = None,
        screen: Screen | None = None,
        reason: str | None = None,
        mode: str = "individual",
        sample: SampleRule | None = None,
    ) -> Decision:
        """Append one decision durably (fsync) and apply it to the state."""
        assert self._appender is not None, "use Recorder as a context manager"
        data: dict[str, Any] = {
            "seq": self.ctx.state.next_seq,
            "action": action,
            "reviewer": self.reviewer,
            "at": utc_now(),
            "mode": mode,
        }
        if cand is not None:
            data["candidate_id"] = cand.id
            data["task_sha256"] = cand.task_sha256
        if undoes is not None:
            data["undoes"] = undoes
        if text is not None:
            data["text"] = text
        if screen is not None:
            data["screen"] = screen
        if reason:
            data["reason"] = " ".join(reason.split())
        if sample is not None:
            data["sample"] = sample
        decision = Decision.model_validate(data)
        problem = self.ctx.state.problem(decision)
        if problem is not None:
            raise ReviewError(f"{self.ctx.paths.journal}: {problem[0]}: {problem[1]}")
        self._appender.append(decision.model_dump(mode="json", exclude_none=True))
        self.ctx.state.apply(decision)
        return decision
