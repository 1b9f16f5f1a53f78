"""``perturb freeze``: reviewed candidates -> ``fixtures/<suite>.jsonl`` + ``fixtures/<suite>.lock.json``.

The fixture file holds the canonical prompt of every task in ``tasks/<suite>.jsonl`` and every
accepted or edited variant (the edited text; the generated text is kept in the lock as the
origin), rendered as described in :mod:`perturb.freeze.fixtures`. The lock records, per line, its
``content_hash``, provenance and review decision, and the hash of every canonical task, and
nothing that changes from run to run: freezing the same decisions twice gives the same bytes.

Crash safety. Both files are first written in full to ``.<name>.pending`` temp files (fsync),
then renamed over the targets: the fixtures first, the lock last. A crash before the first
rename leaves the previous fixtures and lock intact. A crash between the two renames leaves
new fixtures, the old lock and ``.<suite>.lock.json.pending``; ``perturb verify`` recognises
exactly that state (the fixtures match the pending lock) and reports one ``INCOMPLETE`` line
telling you to run ``perturb freeze`` again, which completes it.

The verify side (``verify``, ``assert_verified``, ``load_fixtures``) is re-exported here.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from perturb._version import __version__
from perturb.errors import InputError, OutputError, ReviewError
from perturb.freeze.fixtures import (
    SuitePaths,
    find_suite,
    fixture_sort_key,
    load_fixtures,
    pending_path,
    render_fixtures,
    render_lock,
)
from perturb.freeze.verify import Problem, VerifyReport, assert_verified, verify
from perturb.io.hashing import content_hash
from perturb.io.jsonl import fsync_dir
from perturb.records import CANONICAL, Candidate, Decision, FixtureEntry, Lock, LockDecision, LockEntry
from perturb.review.journal import JournalState, is_stale, load_candidates, read_journal
from perturb.review.lock import ReviewLock
from perturb.tasks import load_tasks, task_hash

__all__ = [
    "FreezeResult",
    "Problem",
    "VerifyReport",
    "assert_verified",
    "build",
    "freeze",
    "load_fixtures",
    "verify",
]


@dataclass
class FreezeResult:
    """What ``perturb freeze`` did."""

    fixtures_path: Path
    lock_path: Path
    n_canonical: int
    n_accepted: int
    n_edited: int
    n_rejected: int
    n_skipped: int
    n_undecided: int
    unchanged: bool
    dropped: list[str] = field(default_factory=list)
    """Variant ids the previous fixtures held and these do not."""
    warnings: list[str] = field(default_factory=list)
    """Things worth saying that are not errors (the CLI prints them on stderr)."""

    def summary(self) -> str:
        n_variants = self.n_accepted + self.n_edited
        verb = "unchanged" if self.unchanged else "froze"
        head = (
            f"{self.fixtures_path}: {verb}: {self.n_canonical} canonical + {n_variants} variants "
            f"({self.n_accepted} accepted, {self.n_edited} edited); lock {self.lock_path}"
        )
        left = []
        if self.n_rejected:
            left.append(f"{self.n_rejected} rejected")
        if self.n_skipped:
            left.append(f"{self.n_skipped} skipped")
        if self.n_undecided:
            left.append(f"{self.n_undecided} undecided")
        out = head + (f"\nnot frozen: {', '.join(left)}" if left else "")
        if self.dropped:
            n = len(self.dropped)
            s = "s" if n > 1 else ""
            out += f"\ndropped {n} variant{s} the previous fixtures held: {_ids(self.dropped)}"
        return out


def _variant_entry(cand: Candidate, decision: Decision, canonical: FixtureEntry) -> FixtureEntry:
    prompt = decision.text if decision.action == "edit" and decision.text else cand.text
    return FixtureEntry(
        id=f"{cand.task_id}/{cand.perturbation}/{cand.id}",
        task_id=cand.task_id,
        perturbation=cand.perturbation,
        prompt=prompt,
        level=cand.level,
        epsilon=cand.epsilon,
        expected=canonical.expected,
        grader=canonical.grader,
        weight=canonical.weight,
        slots=dict(canonical.slots),
        metadata=dict(canonical.metadata),
        candidate_id=cand.id,
    )


def build(root: Path, suite: str) -> tuple[list[FixtureEntry], Lock, dict[str, int]]:
    """Compute the fixture entries and the lock of a suite from tasks, candidates and journal
    (no writes). Raises :class:`ReviewError` naming stale accepted candidates."""
    paths = SuitePaths(root, suite)
    tasks = load_tasks(paths.tasks).tasks
    by_task = {t.id: t for t in tasks}
    cands = load_candidates(paths.candidates, suite) if paths.candidates.exists() else []
    state = JournalState.replay(read_journal(paths.journal, strict=True))

    canon: dict[str, FixtureEntry] = {}
    for t in tasks:
        canon[t.id] = FixtureEntry(
            id=f"{t.id}/{CANONICAL}",
            task_id=t.id,
            perturbation="canonical",
            prompt=t.prompt,
            level=None,
            epsilon=0.0,
            expected=t.expected,
            grader=t.grader,
            weight=t.weight,
            slots=dict(t.slots),
            metadata=dict(t.metadata),
            candidate_id=None,
        )
    counts = {"accepted": 0, "edited": 0, "rejected": 0, "skipped": 0, "undecided": 0}
    chosen: list[tuple[Candidate, Decision]] = []
    stale: list[Candidate] = []
    for cand in cands:
        status = state.status(cand)
        counts[status] += 1
        decision = state.decision_for(cand)
        if status in ("accepted", "edited") and decision is not None:
            if is_stale(cand, by_task):
                stale.append(cand)
            chosen.append((cand, decision))
    if stale:
        named = ", ".join(f"{c.id} ({c.task_id}/{c.perturbation})" for c in stale[:10])
        more = f" and {len(stale) - 10} more" if len(stale) > 10 else ""
        raise ReviewError(
            f"{paths.candidates}: {len(stale)} accepted candidate{'s are' if len(stale) > 1 else ' is'}"
            f" stale (the task changed or was removed since generation): {named}{more}; "
            "reject them with `perturb reject ID... --reason stale`, then run `perturb generate` "
            "and review the new candidates"
        )

    entries = list(canon.values())
    lock_entries: dict[str, LockEntry] = {}
    for cand, d in chosen:
        entry = _variant_entry(cand, d, canon[cand.task_id])
        entries.append(entry)
        lock_entries[entry.id] = LockEntry(
            id=entry.id,
            sha256="",
            task_id=cand.task_id,
            perturbation=cand.perturbation,
            provenance=cand.generator,
            decision=LockDecision(
                action="edited" if d.action == "edit" else "accepted",
                reviewer=d.reviewer,
                at=d.at,
                mode=d.mode,
                note=d.reason,
                origin_text=cand.text if d.action == "edit" else None,
                sample=d.sample,
            ),
        )
    entries.sort(key=fixture_sort_key)
    final_entries: list[LockEntry] = []
    for entry in entries:
        base = lock_entries.get(entry.id) or LockEntry(
            id=entry.id,
            sha256="",
            task_id=entry.task_id,
            perturbation="canonical",
        )
        final_entries.append(base.model_copy(update={"sha256": content_hash(entry)}))
    lock = Lock(
        perturb_version=__version__,
        suite=suite,
        tasks_file=f"tasks/{suite}.jsonl",
        tasks={t.id: task_hash(t) for t in sorted(tasks, key=lambda t: t.id)},
        entries=final_entries,
    )
    counts["canonical"] = len(canon)
    return entries, lock, counts


def _write_pending(path: Path, data: bytes) -> Path:
    tmp = pending_path(path)
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)  # a leftover (or a planted symlink) is never written through
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise OutputError(
            f"{path}: cannot write: {exc.strerror or exc} (expected a writable directory with "
            "free space; the previous fixtures are unchanged)"
        ) from None
    return tmp


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def write_pair(fixtures_path: Path, fixtures: bytes, lock_path: Path, lock: bytes) -> bool:
    """Write both files crash-safely (see the module docstring); False if already identical."""
    if _read_or_none(fixtures_path) == fixtures and _read_or_none(lock_path) == lock:
        for p in (pending_path(fixtures_path), pending_path(lock_path)):
            with contextlib.suppress(OSError):
                os.unlink(p)
        return False
    try:
        fixtures_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{fixtures_path.parent}: cannot create: {exc.strerror or exc}") from None
    tmp_fixtures = _write_pending(fixtures_path, fixtures)
    tmp_lock = _write_pending(lock_path, lock)
    try:
        os.replace(tmp_fixtures, fixtures_path)
        fsync_dir(fixtures_path.parent)
        os.replace(tmp_lock, lock_path)
        fsync_dir(lock_path.parent)
    except OSError as exc:
        raise OutputError(
            f"{fixtures_path}: cannot rename into place: {exc.strerror or exc} (run "
            "`perturb freeze` again; `perturb verify` reports an interrupted freeze)"
        ) from None
    return True


def _dropped(paths: SuitePaths, entries: list[FixtureEntry]) -> tuple[list[str], list[str]]:
    """Variant ids the current fixtures hold that the new build does not: ``(explained,
    unexplained)``. Explained: the candidate is still there and the journal holds a decision on
    it (a reject, skip or undo). Unexplained: the candidate or every decision on it is gone (an emptied or
    replaced candidates file or journal). Unreadable current fixtures hold nothing to keep."""
    try:
        previous = load_fixtures(paths.fixtures) if paths.fixtures.exists() else []
    except InputError:
        return [], []
    kept = {e.id for e in entries}
    present = {c.id for c in load_candidates(paths.candidates)} if paths.candidates.exists() else set()
    decided = {d.candidate_id for d in read_journal(paths.journal, strict=True)} & present
    explained: list[str] = []
    unexplained: list[str] = []
    for e in previous:
        if e.perturbation != CANONICAL and e.id not in kept:
            (explained if e.candidate_id in decided else unexplained).append(e.id)
    return explained, unexplained


def _ids(ids: list[str]) -> str:
    return ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")


def freeze(root: Path, suite: str | None = None, *, allow_drop: bool = False) -> FreezeResult:
    """Freeze a suite (the only one under tasks/ by default). Holds the review lock, so it
    cannot interleave with a review or another freeze of the same suite.

    Never shrinks the fixtures silently: variants the current fixtures hold and the new build
    drops are named in the summary when the journal records why (a reject, skip or undo), and
    refused with :class:`ReviewError` (exit 2) when nothing does (an emptied or replaced
    candidates file or journal), unless ``allow_drop``."""
    name = find_suite(root, suite, "tasks")
    paths = SuitePaths(root, name)
    lock_ctx: contextlib.AbstractContextManager[object] = (
        ReviewLock(paths.review_lock, name, "perturb freeze")
        if paths.review_dir.is_dir()
        else contextlib.nullcontext()
    )
    with lock_ctx:
        entries, lock, counts = build(root, name)
        explained, unexplained = _dropped(paths, entries)
        if unexplained and not allow_drop:
            raise ReviewError(
                f"{paths.fixtures}: freezing would drop {len(unexplained)} variant"
                f"{'s' if len(unexplained) > 1 else ''} the current fixtures hold, with no decision "
                f"on {'them' if len(unexplained) > 1 else 'it'} in {paths.journal}: "
                f"{_ids(unexplained)} (expected the candidates and journal that froze them; "
                f"restore {paths.review_dir} from git, or pass --allow-drop to drop them)"
            )
        changed = write_pair(paths.fixtures, render_fixtures(entries), paths.lock, render_lock(lock))
    warnings = []
    if not paths.candidates.exists():
        warnings.append(
            f"no {paths.candidates}: 0 variants, the fixtures hold the canonical prompts only "
            f"(fine for pass^k first; to add variants run `perturb generate {paths.tasks}`, "
            "`perturb review`, then `perturb freeze` again)"
        )
    return FreezeResult(
        warnings=warnings,
        fixtures_path=paths.fixtures,
        lock_path=paths.lock,
        n_canonical=counts["canonical"],
        n_accepted=counts["accepted"],
        n_edited=counts["edited"],
        n_rejected=counts["rejected"],
        n_skipped=counts["skipped"],
        n_undecided=counts["undecided"],
        unchanged=not changed,
        dropped=explained + unexplained,
    )
