"""``perturb export`` (verified fixtures -> another runner's format) and ``perturb import``
(another runner's eval set -> ``tasks/<suite>.jsonl``).

Export refuses fixtures that do not match their lock (:func:`~perturb.freeze.verify.assert_verified`,
the check ``perturb run`` makes), so every exported prompt carries the hash the lock recorded
for it. Import writes canonical tasks only, never over an existing file, with the slots it
detected in each prompt proposed in ``slots_to_confirm`` for a person to confirm (``perturb
validate`` lists them until they are moved into ``slots`` or dropped).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perturb.errors import InputError, TaskFormatError, UsageError
from perturb.interop.spec import ExportRow, ImportedRow
from perturb.io.inert import printable
from perturb.io.jsonl import dumps_line, read_bytes, write_atomic
from perturb.io.paths import check_suite_name, confine


@dataclass
class ExportOptions:
    """Everything ``perturb export`` accepts."""

    fixtures: Path
    """``fixtures/<suite>.jsonl`` (verified against its lock first)."""
    to: str
    """The format: ``inspect``, ``promptfoo``, ``csv`` or a plugin's."""
    output: Path | None = None
    """Where to write (None: the caller prints :attr:`ExportResult.text`)."""


@dataclass
class ExportResult:
    """The exported file and what was written."""

    text: str
    rows: int
    fmt: str
    fixtures: Path
    output: Path | None
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line per note, then what was written (the CLI prints it on stderr)."""
        where = f"wrote {self.output}" if self.output is not None else "exported"
        done = f"{where}: {self.rows} prompts of {self.fixtures} as {self.fmt} (with their sha256)"
        return "\n".join([*self.notes, done])


def export_rows(fixtures: Path) -> list[ExportRow]:
    """Every entry of a verified fixture file with its lock hash and the lock file's sha256."""
    from perturb.freeze.fixtures import load_fixtures, lock_path_for
    from perturb.freeze.verify import assert_verified
    from perturb.io.hashing import sha256_bytes
    from perturb.tasks import suite_name

    lock = assert_verified(fixtures)
    lock_sha = sha256_bytes(read_bytes(lock_path_for(Path(fixtures))))
    hashes = {entry.id: entry.sha256 for entry in lock.entries}
    suite = suite_name(fixtures)
    return [ExportRow(e, hashes[e.id], suite, lock_sha) for e in load_fixtures(fixtures)]


def export_fixtures(options: ExportOptions) -> ExportResult:
    """Render verified fixtures in another format; write them atomically to ``output``."""
    from perturb.interop.formats import INTEROP

    spec = INTEROP.get(options.to)
    rows = export_rows(options.fixtures)
    exported = spec.export(rows)
    if options.output is not None:
        write_atomic(options.output, exported.text)
    return ExportResult(exported.text, len(rows), spec.name, options.fixtures, options.output, exported.notes)


# --------------------------------------------------------------------------- import


@dataclass
class ImportOptions:
    """Everything ``perturb import`` accepts."""

    source: Path
    """The file to import (an Inspect JSONL dataset, a promptfoo test file, a CSV)."""
    fmt: str
    """``inspect``, ``promptfoo``, ``csv`` or a plugin's."""
    suite: str | None = None
    """The suite name (default: the source file's name without its extension)."""
    root: Path = Path(".")
    """The project root; the tasks go to ``<root>/tasks/<suite>.jsonl``."""


@dataclass
class ImportResult:
    """What ``perturb import`` wrote."""

    path: Path
    tasks: int
    to_confirm: int
    """Tasks with proposed slots (``slots_to_confirm``) a person must confirm."""
    skipped_variants: int
    """Perturbed variants of a perturb export left out (tasks are canonical)."""
    source: Path
    fmt: str

    def summary(self) -> str:
        lines = [f"wrote {self.path}: {self.tasks} tasks from {self.source} ({self.fmt})"]
        if self.skipped_variants:
            lines.append(
                f"skipped {self.skipped_variants} perturbed variants (a perturb export; tasks hold "
                "the canonical prompts, run `perturb generate` for variants)"
            )
        if self.to_confirm:
            lines.append(
                f"{self.to_confirm} tasks have proposed slots in slots_to_confirm: confirm them, "
                f"then `perturb validate {self.path}` passes"
            )
        lines.append(f"next: perturb validate {self.path}")
        return "\n".join(lines)


def propose_slots(prompt: str) -> dict[str, str]:
    """Slots proposed for an imported prompt: every value the generator protects
    (:func:`perturb.generate.slots.find_protected`: dates, money, times, IDs, numbers, places,
    quoted text, ...), named by kind (``date``, ``money``, ``money_2``), each value once."""
    from perturb.generate.slots import find_protected

    out: dict[str, str] = {}
    seen: set[str] = set()
    for span in find_protected(prompt):
        if span.kind == "reserved" or span.text in seen or not span.text.strip():
            continue
        seen.add(span.text)
        name, n = span.kind, 2
        while name in out:
            name, n = f"{span.kind}_{n}", n + 1
        out[name] = span.text
    return out


def _task_line(task: Any, to_confirm: dict[str, str]) -> dict[str, Any]:
    """The task as a compact line: required fields, then the ones that differ from defaults."""
    data = task.model_dump(mode="json", exclude_defaults=True)
    grader = {k: v for k, v in data.pop("grader").items() if v is not None}
    line: dict[str, Any] = {"id": data.pop("id"), "prompt": data.pop("prompt")}
    line["expected"] = task.expected
    data.pop("expected", None)
    line["grader"] = grader["type"] if list(grader) == ["type"] else grader
    line.update(data)
    if to_confirm:
        line["slots_to_confirm"] = to_confirm
    return line


def import_tasks(options: ImportOptions) -> ImportResult:
    """Read another format's eval set and write ``tasks/<suite>.jsonl`` (never overwriting)."""
    from perturb.interop.formats import INTEROP
    from perturb.tasks import parse_task

    spec = INTEROP.get(options.fmt)
    source = options.source
    suite = check_suite_name(options.suite or source.name.split(".")[0])
    target = options.root / "tasks" / f"{suite}.jsonl"
    if target.exists():
        raise UsageError(
            f"{target} exists (perturb import never overwrites a task file; name a new suite with "
            "--suite NAME, or move the file away)"
        )
    rows: list[ImportedRow] = spec.read(source, read_bytes(source))
    name = str(source)
    problems: list[str] = []
    lines: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    skipped = confirm = 0
    for row in rows:
        if row.variant is not None and row.variant != "canonical":
            skipped += 1
            continue
        raw = dict(row.task)
        raw.setdefault("id", f"task-{len(lines) + 1:03d}")
        if isinstance(raw["id"], int):
            raw["id"] = str(raw["id"])
        task, errs = parse_task(raw)
        for fld, msg in errs:
            problems.append(f"{name}:{row.line}: {printable(fld)}: {msg}")
        if task is None:
            continue
        if task.id in seen:
            problems.append(
                f"{name}:{row.line}: id: duplicate id {task.id!r} (first on line {seen[task.id]}; "
                "expected ids unique in the suite)"
            )
            continue
        seen[task.id] = row.line
        # a perturb export's slots were confirmed when it was frozen, even when there are none
        to_confirm = {} if task.slots or row.variant is not None else propose_slots(task.prompt)
        confirm += bool(to_confirm)
        lines.append(_task_line(task, to_confirm))
    if problems:
        raise TaskFormatError(name, problems)
    if not lines:
        raise InputError(name, f"no canonical tasks found (expected at least one {spec.name} test case)")
    confine(options.root, target)
    write_atomic(target, "".join(dumps_line(line) + "\n" for line in lines))
    return ImportResult(target, len(lines), confirm, skipped, source, spec.name)
