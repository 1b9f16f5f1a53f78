"""``perturb verify``: do the fixtures still match their lock and the canonical tasks? Never writes.

One problem per line, each saying how to fix it:

* ``MODIFIED``     a fixture line's content hash differs from the lock (expected and got hash).
* ``UNLISTED``     a fixture line whose id is not in the lock.
* ``MISSING``      a lock entry whose id has no fixture line.
* ``STALE``        a canonical task in ``tasks/`` changed, was removed or was added since freeze.
* ``NONCANONICAL`` a line whose bytes differ from the stable rendering (formatting, order,
  duplicate, blank line, missing final newline), with its line number.
* ``INCOMPLETE``   a freeze was interrupted between renaming the fixtures and the lock.
* ``UNREVIEWED``   an entry differs from what ``perturb freeze`` builds from ``tasks/`` and the
  review journal in ``review/`` (the field that differs is named), is not built by it at all,
  or is built by it but absent -- a fixture-plus-lock edit that bypassed review.

The lock alone cannot prove anything (whoever edits a line can recompute its hash), so
``verify`` re-derives every entry, canonical and variant, from the task file and the review
journal (:func:`perturb.freeze.core.build`, the code ``freeze`` itself runs) and compares --
once the other checks pass (a line that already fails them is reported once, not twice).

Unreadable or malformed files raise :class:`~perturb.errors.InputError` (exit 2) instead.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perturb.errors import InputError, ReviewError, VerifyFailed
from perturb.freeze.fixtures import (
    fixture_sort_key,
    load_lock,
    lock_path_for,
    pending_path,
    render_fixture_line,
)
from perturb.io.hashing import canonical_json, content_hash
from perturb.io.inert import printable
from perturb.io.jsonl import loads_strict, read_bytes, validate_record
from perturb.records import CANONICAL, FixtureEntry, Lock
from perturb.tasks import load_tasks, suite_name, task_hash

KINDS = ("MODIFIED", "UNLISTED", "MISSING", "STALE", "NONCANONICAL", "INCOMPLETE", "UNREVIEWED")


@dataclass
class Problem:
    """One verify finding."""

    kind: str
    file: str
    message: str
    id: str | None = None
    line: int | None = None
    expected: str | None = None
    got: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "file": self.file,
            "line": self.line,
            "id": self.id,
            "expected": self.expected,
            "got": self.got,
            "message": self.message,
        }


@dataclass
class VerifyReport:
    """The result of :func:`verify`."""

    fixtures_path: Path
    lock_path: Path
    suite: str
    problems: list[Problem] = field(default_factory=list)
    n_canonical: int = 0
    n_variants: int = 0
    lock: Lock | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        if self.ok:
            return (
                f"{self.fixtures_path}: ok: {self.n_canonical} canonical + {self.n_variants} "
                "variants, lock matches"
            )
        counts = Counter(p.kind for p in self.problems)
        parts = ", ".join(f"{counts[k]} {k}" for k in KINDS if counts[k])
        n = len(self.problems)
        return (
            f"{self.fixtures_path}: {n} problem{'s' if n > 1 else ''} ({parts}); "
            f"the fixtures do not match {self.lock_path}"
        )

    def lines(self) -> list[str]:
        return [p.message for p in self.problems]

    def to_json(self) -> dict[str, Any]:
        return {
            "fixtures": str(self.fixtures_path),
            "lock": str(self.lock_path),
            "suite": self.suite,
            "ok": self.ok,
            "canonical": self.n_canonical,
            "variants": self.n_variants,
            "problems": [p.to_json() for p in self.problems],
        }


@dataclass
class _Line:
    number: int
    raw: bytes
    entry: FixtureEntry


def _parse_lines(path: Path, data: bytes) -> tuple[list[_Line], list[tuple[int, str]]]:
    """Entries with their raw bytes, plus (line, reason) for blank lines and a missing newline.
    A line that is not a valid entry raises InputError (exit 2)."""
    out: list[_Line] = []
    layout: list[tuple[int, str]] = []
    parts = data.split(b"\n")
    ends_clean = data.endswith(b"\n") or not data
    if ends_clean:
        parts.pop()
    for number, raw in enumerate(parts, start=1):
        if not raw.strip():
            layout.append((number, "blank line"))
            continue
        if number == len(parts) and not ends_clean:
            layout.append((number, "no newline at end of file"))
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(str(path), "not valid UTF-8 (expected UTF-8 JSON)", line=number) from None
        obj = loads_strict(
            text,
            str(path),
            number,
            what="one fixture entry per line; restore the file from git or run `perturb freeze`",
        )
        if not isinstance(obj, dict):
            raise InputError(str(path), "expected a JSON object (a fixture entry)", line=number)
        out.append(_Line(number, raw + b"\n", validate_record(FixtureEntry, obj, path, number)))
    return out, layout


def _integrity(fx: str, lockname: str, suite: str, lines: list[_Line], lock: Lock) -> list[Problem]:
    """MODIFIED / UNLISTED / MISSING of the fixture lines against one lock."""
    problems: list[Problem] = []
    freeze_cmd = f"`perturb freeze {suite}`"
    listed = {e.id: e for e in lock.entries}
    seen: set[str] = set()
    for ln in lines:
        e = ln.entry
        if e.id in seen:
            continue
        seen.add(e.id)
        locked = listed.get(e.id)
        got = content_hash(e)
        if locked is None:
            problems.append(
                Problem(
                    "UNLISTED",
                    fx,
                    f"{fx}:{ln.number}: UNLISTED {e.id}: not in {lockname} (a line "
                    f"added by hand or a lock from another freeze; delete the line, or run {freeze_cmd}"
                    " to rebuild both files from the review journal)",
                    e.id,
                    ln.number,
                    None,
                    got,
                )
            )
        elif locked.sha256 != got:
            problems.append(
                Problem(
                    "MODIFIED",
                    fx,
                    f"{fx}:{ln.number}: MODIFIED {e.id}: expected {locked.sha256}, "
                    f"got {got} (the line changed after freeze; restore it from git, or run "
                    f"{freeze_cmd} to rewrite it from the review journal)",
                    e.id,
                    ln.number,
                    locked.sha256,
                    got,
                )
            )
    for entry in lock.entries:
        if entry.id not in seen:
            problems.append(
                Problem(
                    "MISSING",
                    lockname,
                    f"{lockname}: MISSING {entry.id}: listed in the lock but "
                    f"absent from {fx} (restore the line from git, or run {freeze_cmd} to rewrite "
                    "both files)",
                    entry.id,
                    None,
                    entry.sha256,
                    None,
                )
            )
    return problems


def _layout(fx: str, suite: str, lines: list[_Line], blanks: list[tuple[int, str]]) -> list[Problem]:
    """NONCANONICAL: bytes, order, duplicates, blank lines, final newline."""
    fix = f"run `perturb freeze {suite}` to rewrite the file in the stable rendering"
    found: list[tuple[int, Problem]] = []
    for number, why in blanks:
        found.append(
            (
                number,
                Problem(
                    "NONCANONICAL",
                    fx,
                    f"{fx}:{number}: NONCANONICAL: {why} ({fix})",
                    None,
                    number,
                ),
            )
        )
    first: dict[str, int] = {}
    prev: FixtureEntry | None = None
    for ln in lines:
        e = ln.entry
        reasons: list[str] = []
        if e.id in first:
            reasons.append(f"duplicate of line {first[e.id]}")
        else:
            first[e.id] = ln.number
        if ln.raw != render_fixture_line(e):
            reasons.append(
                "bytes differ from the stable rendering (key order, spacing, escapes, number "
                "format or defaults)"
            )
        if prev is not None and fixture_sort_key(e) < fixture_sort_key(prev):
            reasons.append(f"out of order (expected before {prev.id})")
        prev = e
        for why in reasons:
            found.append(
                (
                    ln.number,
                    Problem(
                        "NONCANONICAL",
                        fx,
                        f"{fx}:{ln.number}: NONCANONICAL {e.id}: {why} ({fix})",
                        e.id,
                        ln.number,
                    ),
                )
            )
    found.sort(key=lambda item: item[0])
    return [p for _, p in found]


def _stale(lock: Lock, tasks_path: Path, suite: str, lines: list[_Line]) -> list[Problem]:
    suite_tasks = load_tasks(tasks_path)
    current = suite_tasks.by_id()
    per_task = Counter(ln.entry.task_id for ln in lines if ln.entry.perturbation != CANONICAL)
    tp = str(tasks_path)
    redo = (
        f"reject its stale candidates (`perturb freeze {suite}` names them), run `perturb "
        f"generate`, review the new candidates, then `perturb freeze {suite}`"
    )
    problems: list[Problem] = []
    for task_id, expected in lock.tasks.items():
        task = current.get(task_id)
        n = per_task[task_id]
        deps = f"its canonical prompt and {n} variant{'s' if n != 1 else ''} are stale"
        if task is None:
            problems.append(
                Problem(
                    "STALE",
                    tp,
                    f"{tp}: STALE {task_id}: the task was removed from {tp} since "
                    f"freeze; {deps} (run `perturb freeze {suite}` to drop them, or restore the task)",
                    task_id,
                    None,
                    expected,
                    None,
                )
            )
            continue
        got = task_hash(task)
        if got != expected:
            line = suite_tasks.lines.get(task_id)
            problems.append(
                Problem(
                    "STALE",
                    tp,
                    f"{tp}:{line}: STALE {task_id}: the canonical task changed since "
                    f"freeze (lock {expected}, now {got}); {deps} "
                    f"({redo if n else f'run `perturb freeze {suite}` to record it'})",
                    task_id,
                    line,
                    expected,
                    got,
                )
            )
    for task in suite_tasks.tasks:
        if task.id not in lock.tasks:
            line = suite_tasks.lines.get(task.id)
            problems.append(
                Problem(
                    "STALE",
                    tp,
                    f"{tp}:{line}: STALE {task.id}: the task was added since freeze "
                    f"and has no fixtures (run `perturb freeze {suite}` to add its canonical prompt; "
                    "`perturb generate` and a review give it variants)",
                    task.id,
                    line,
                    None,
                    task_hash(task),
                )
            )
    return problems


def _tasks_path(fixtures_path: Path, lock: Lock, lock_path: Path) -> Path:
    rel = Path(lock.tasks_file)
    if rel.is_absolute() or ".." in rel.parts:
        raise InputError(
            str(lock_path),
            f"{lock.tasks_file!r} is not a path inside the project (expected e.g. 'tasks/<suite>.jsonl')",
            field="tasks_file",
        )
    return fixtures_path.parent.parent / rel


def verify(fixtures_path: Path | str) -> VerifyReport:
    """Check ``fixtures/<suite>.jsonl`` against ``fixtures/<suite>.lock.json`` and the task file
    the lock names. Never writes. Raises :class:`InputError` for unreadable or malformed files."""
    fx_path = Path(fixtures_path)
    lock_path = lock_path_for(fx_path)
    suite = suite_name(fx_path)
    fx, lockname = str(fx_path), str(lock_path)
    report = VerifyReport(fx_path, lock_path, suite)
    lines, blanks = _parse_lines(fx_path, read_bytes(fx_path))
    report.n_canonical = sum(1 for ln in lines if ln.entry.perturbation == CANONICAL)
    report.n_variants = len(lines) - report.n_canonical

    pending = pending_path(lock_path)
    pending_lock: Lock | None = None
    if pending.exists():
        try:
            pending_lock = load_lock(pending)
        except InputError:
            pending_lock = None  # cut off before the renames began: the old files are intact
    if not lock_path.exists() and pending_lock is None:
        raise InputError(
            lockname,
            "no such file (expected the lock `perturb freeze` writes next to the "
            f"fixtures; run `perturb freeze {suite}`)",
        )
    lock = load_lock(lock_path) if lock_path.exists() or pending_lock is None else None
    if lock is not None and lock.suite != suite:
        raise InputError(
            lockname,
            f"lock of suite {lock.suite!r} next to fixtures of suite {suite!r} "
            f"(expected {suite!r}; run `perturb freeze {suite}`)",
            field="suite",
        )
    integrity = _integrity(fx, lockname, suite, lines, lock) if lock is not None else None
    if (integrity is None or integrity) and pending_lock is not None:
        if not _integrity(fx, str(pending), suite, lines, pending_lock):
            report.problems.append(
                Problem(
                    "INCOMPLETE",
                    lockname,
                    f"{lockname}: INCOMPLETE: a freeze was interrupted after "
                    f"writing {fx} and before renaming {pending} into place (run `perturb freeze "
                    f"{suite}` again to finish it)",
                )
            )
            lock, integrity = pending_lock, []
    if lock is None or integrity is None:
        lock = load_lock(lock_path)  # raises the missing-file error
        integrity = []
    report.lock = lock
    report.problems.extend(integrity)
    report.problems.extend(_layout(fx, suite, lines, blanks))
    stale = _stale(lock, _tasks_path(fx_path, lock, lock_path), suite, lines)
    report.problems.extend(stale)
    if not report.problems:  # the lock holds: now prove the lock itself came from review
        report.problems.extend(_unreviewed(fx_path, suite, lines))
    return report


def _show(value: Any) -> str:
    text = canonical_json(value).decode("utf-8")
    text = text if len(text) <= 120 else text[:117] + "..."
    return printable(text)


def _differences(have: Any, should: Any, where: str = "") -> list[tuple[str, Any, Any]]:
    """``(dotted field, got, expected)`` for each leaf where two JSON values differ (a value
    absent on one side shows as null)."""
    if isinstance(have, dict) and isinstance(should, dict):
        out: list[tuple[str, Any, Any]] = []
        for key in [*should, *(k for k in have if k not in should)]:
            sub = f"{where}.{key}" if where else key
            out.extend(_differences(have.get(key), should.get(key), sub))
        return out
    if canonical_json(have) == canonical_json(should):
        return []
    return [(where or "(entry)", have, should)]


def _unreviewed(fx_path: Path, suite: str, lines: list[_Line]) -> list[Problem]:
    """UNREVIEWED: every entry against what ``freeze`` builds from tasks/ and review/."""
    from perturb.freeze.core import build  # freeze.core imports this module

    root = fx_path.parent.parent
    fx = str(fx_path)
    fix = (
        f"restore the fixtures and lock from git, or review the change (`perturb review {suite}`) "
        f"and run `perturb freeze {suite}`"
    )
    try:
        derived, _, _ = build(root, suite)
    except ReviewError as exc:
        return [Problem("UNREVIEWED", fx, f"{fx}: UNREVIEWED: cannot re-derive the fixtures: {exc}")]
    want = {e.id: e for e in derived}
    problems: list[Problem] = []
    seen: set[str] = set()
    for ln in lines:
        e = ln.entry
        if e.id in seen:
            continue
        seen.add(e.id)
        built = want.get(e.id)
        if built is None:
            why = (
                "the task file has no such task"
                if e.perturbation == CANONICAL
                else f"no accepted or edited decision for it in review/{suite}/journal.jsonl"
            )
            problems.append(
                Problem(
                    "UNREVIEWED",
                    fx,
                    f"{fx}:{ln.number}: UNREVIEWED {e.id}: `perturb freeze` does not build this entry "
                    f"({why}; {fix})",
                    e.id,
                    ln.number,
                )
            )
            continue
        for key, got, expected in _differences(e.model_dump(mode="json"), built.model_dump(mode="json")):
            problems.append(
                Problem(
                    "UNREVIEWED",
                    fx,
                    f"{fx}:{ln.number}: UNREVIEWED {e.id}: {key} is {_show(got)}, but "
                    f"tasks/ and review/ freeze to {_show(expected)} ({fix})",
                    e.id,
                    ln.number,
                    _show(expected),
                    _show(got),
                )
            )
    for entry_id, built in want.items():
        # A variant accepted in the journal but not frozen yet is a review in progress, not a
        # bypass; a missing canonical entry is one (STALE catches it first, via the lock).
        if entry_id not in seen and built.perturbation == CANONICAL:
            problems.append(
                Problem(
                    "UNREVIEWED",
                    fx,
                    f"{fx}: UNREVIEWED {entry_id}: `perturb freeze` builds this entry from tasks/ and "
                    f"review/, but the fixtures lack it ({fix})",
                    entry_id,
                )
            )
    return problems


def assert_verified(fixtures_path: Path | str) -> Lock:
    """Verify and return the lock; raise :class:`VerifyFailed` (exit 1) listing every problem.
    ``perturb run`` calls this before running anything."""
    report = verify(fixtures_path)
    if not report.ok:
        raise VerifyFailed(report.summary(), report.lines())
    assert report.lock is not None
    return report.lock
