"""Fixture files on disk: the stable rendering, loading with ``FILE:LINE`` errors, project paths.

``fixtures/<suite>.jsonl`` holds one :class:`~perturb.records.FixtureEntry` per line, each line
exactly ``canonical_json(entry.model_dump(mode="json"))`` followed by ``\\n``, sorted by task
id, then canonical first, then the registry's class order, then entry id.
``fixtures/<suite>.lock.json`` is the :class:`~perturb.records.Lock` as 2-space indented JSON.
Both renderings are pure functions of the records, so freezing twice gives the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from perturb.errors import InputError, UsageError
from perturb.generate.perturbations import kind_rank
from perturb.io.hashing import canonical_json
from perturb.io.jsonl import iter_jsonl_lines, read_json, validate_record
from perturb.io.paths import check_suite_name, confine
from perturb.records import FixtureEntry, Lock

M = TypeVar("M", bound=BaseModel)

"""Sort rank of a variant kind: canonical first, then the classes in report order."""


@dataclass(frozen=True)
class SuitePaths:
    """Where one suite's files live under a project root.

    Building one checks the suite name (:func:`~perturb.io.paths.check_suite_name`); every
    path perturb writes or appends to (review files, fixtures, lock) is confined to the project
    root with symlinks followed (:func:`~perturb.io.paths.confine`)."""

    root: Path
    suite: str

    def __post_init__(self) -> None:
        check_suite_name(self.suite)

    @property
    def tasks(self) -> Path:
        return self.root / "tasks" / f"{self.suite}.jsonl"

    @property
    def review_dir(self) -> Path:
        return confine(self.root, self.root / "review" / self.suite)

    @property
    def candidates(self) -> Path:
        return confine(self.root, self.review_dir / "candidates.jsonl")

    @property
    def journal(self) -> Path:
        return confine(self.root, self.review_dir / "journal.jsonl")

    @property
    def review_lock(self) -> Path:
        return confine(self.root, self.review_dir / ".lock")

    @property
    def fixtures(self) -> Path:
        return confine(self.root, self.root / "fixtures" / f"{self.suite}.jsonl")

    @property
    def lock(self) -> Path:
        return confine(self.root, lock_path_for(self.fixtures))


def _freeze_command(root: Path) -> str:
    return "perturb freeze" if root in (Path("."), Path("")) else f"perturb freeze --root {root}"


def _looks_like_tasks(path: Path) -> bool:
    """The first object of the file is a task (an ``id`` and a ``prompt``, no ``task_id``)."""
    for _, item in iter_jsonl_lines(path):
        return isinstance(item, dict) and "prompt" in item and "task_id" not in item
    return False


def check_fixtures_path(path: Path) -> None:
    """What ``perturb run`` needs before anything else: frozen fixtures. A task file, or
    fixtures not frozen yet, is a :class:`UsageError` saying which command writes them."""
    suite = path.name[: -len(".jsonl")] if path.name.endswith(".jsonl") else path.stem
    root = path.parent.parent
    fixtures = root / "fixtures" / f"{suite}.jsonl"
    if path.is_file() and path.parent.name != "tasks" and _looks_like_tasks(path):
        raise UsageError(
            f"{path}: is a task file, not frozen fixtures, and outside tasks/ (expected it at "
            f"<project>/tasks/{suite}.jsonl; move it there, run `perturb freeze` in <project>, "
            f"then `perturb run fixtures/{suite}.jsonl`)"
        )
    if path.is_file() and path.parent.name == "tasks":
        raise UsageError(
            f"{path}: is a task file, not frozen fixtures (expected {fixtures}; run "
            f"`{_freeze_command(root)}` to write it: without a review it holds the canonical "
            "prompts only, enough for pass^k)"
        )
    if not path.exists():
        tasks = root / "tasks" / f"{suite}.jsonl"
        if tasks.is_file():
            raise UsageError(
                f"{path}: no such file: the suite is not frozen yet (run `{_freeze_command(root)}` "
                f"to write it from {tasks})"
            )
        raise UsageError(
            f"{path}: no such file (expected fixtures/<suite>.jsonl written by `perturb freeze` "
            "from tasks/<suite>.jsonl)"
        )


def lock_path_for(fixtures_path: Path) -> Path:
    """``fixtures/<suite>.lock.json`` next to ``fixtures/<suite>.jsonl``."""
    name = fixtures_path.name
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else fixtures_path.stem
    return fixtures_path.with_name(f"{stem}.lock.json")


def pending_path(path: Path) -> Path:
    """The temp name a freeze writes ``path`` to before renaming it into place."""
    return path.with_name(f".{path.name}.pending")


def find_suite(root: Path, suite: str | None, where: str) -> str:
    """The suite to work on: ``suite`` if given, else the only one present under ``where``.

    ``where`` is ``review`` (``review/<suite>/candidates.jsonl``), ``tasks``
    (``tasks/<suite>.jsonl``) or ``fixtures`` (``fixtures/<suite>.jsonl``)."""
    if suite:
        return check_suite_name(suite)
    if where == "review":
        found = sorted(p.parent.name for p in (root / "review").glob("*/candidates.jsonl"))
        pattern = "review/<suite>/candidates.jsonl"
        hint = "run `perturb generate` first"
    elif where == "tasks":
        found = sorted(p.name[: -len(".jsonl")] for p in (root / "tasks").glob("*.jsonl"))
        pattern = "tasks/<suite>.jsonl"
        hint = "write a task file first"
    else:
        found = sorted(p.name[: -len(".jsonl")] for p in (root / "fixtures").glob("*.jsonl"))
        pattern = "fixtures/<suite>.jsonl"
        hint = "run `perturb freeze` first"
    if len(found) == 1:
        return found[0]
    if not found:
        raise UsageError(f"{root}: no suite found (expected {pattern}; {hint})")
    raise UsageError(
        f"{root}: several suites found: {', '.join(found)} (expected one; name it as an argument)"
    )


def fixture_sort_key(entry: FixtureEntry) -> tuple[str, int, str]:
    """Fixture order: task id, canonical first, class order, entry id."""
    return (entry.task_id, kind_rank(entry.perturbation), entry.id)


def render_fixture_line(entry: FixtureEntry) -> bytes:
    """The stable rendering of one fixture line (with its newline)."""
    return canonical_json(entry.model_dump(mode="json")) + b"\n"


def render_fixtures(entries: list[FixtureEntry]) -> bytes:
    """The whole fixture file for already sorted entries."""
    return b"".join(render_fixture_line(e) for e in entries)


def render_lock(lock: Lock) -> bytes:
    """The lock file's bytes: 2-space indented JSON, fields in model order, final newline."""
    import json

    text = json.dumps(lock.model_dump(mode="json"), ensure_ascii=False, indent=2, allow_nan=False)
    return (text + "\n").encode("utf-8")


def load_fixtures(fixtures_path: Path | str) -> list[FixtureEntry]:
    """Read ``fixtures/<suite>.jsonl``; raise :class:`InputError` ``FILE:LINE: field: ...`` on the
    first unreadable, malformed or invalid line. Does not check the lock (see ``verify``)."""
    path = Path(fixtures_path)
    out: list[FixtureEntry] = []
    seen: dict[str, int] = {}
    for line, item in iter_jsonl_lines(path):
        if isinstance(item, InputError):
            raise item
        entry = validate_record(FixtureEntry, item, path, line)
        if entry.id in seen:
            raise InputError(
                str(path),
                f"duplicate id {entry.id!r} (first on line {seen[entry.id]}; expected "
                "each entry once; run `perturb freeze` to rewrite the file)",
                line=line,
                field="id",
            )
        seen[entry.id] = line
        out.append(entry)
    return out


def load_lock(lock_path: Path | str) -> Lock:
    """Read ``fixtures/<suite>.lock.json`` with ``FILE:LINE: field:`` errors."""
    path = Path(lock_path)
    raw = read_json(path)
    if not isinstance(raw, dict):
        raise InputError(str(path), "expected a JSON object (the lock written by `perturb freeze`)")
    lock = validate_record(Lock, raw, path)
    seen: set[str] = set()
    for i, entry in enumerate(lock.entries):
        if entry.id in seen:
            raise InputError(
                str(path),
                f"duplicate entry id {entry.id!r} (expected each id once; "
                "run `perturb freeze` to rewrite the lock)",
                field=f"entries.{i}.id",
            )
        seen.add(entry.id)
    return lock
