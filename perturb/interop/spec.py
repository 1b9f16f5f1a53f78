"""The interop-format spec: what one format module exports (``SPEC = InteropSpec(...)``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perturb.records import FixtureEntry


@dataclass(frozen=True)
class ExportRow:
    """One verified fixture entry with its provenance."""

    entry: FixtureEntry
    sha256: str
    """The entry's hash as the lock records it (``content_hash`` of the entry)."""
    suite: str
    lock_sha256: str
    """sha256 of the lock file's bytes (what a run manifest records as ``lock_sha256``)."""

    def provenance(self) -> dict[str, Any]:
        """The facts every format carries so a result can be traced to its frozen prompt."""
        e = self.entry
        return {
            "suite": self.suite,
            "task_id": e.task_id,
            "perturbation": e.perturbation,
            "level": e.level,
            "epsilon": e.epsilon,
            "sha256": self.sha256,
            "lock_sha256": self.lock_sha256,
        }


@dataclass
class Exported:
    """What a format's ``export`` returns: the whole file and notes for the person."""

    text: str
    notes: list[str] = field(default_factory=list)


@dataclass
class ImportedRow:
    """One task read from another format, before validation.

    ``task`` holds the task fields found (``id``, ``prompt``, ``expected``, ``grader``,
    ``weight``, ``slots``, ``tags``, ``metadata``); ``variant`` is the perturbation class of a
    row of a perturb export (``canonical`` or a class, whose rows are skipped: tasks are
    canonical), None for a row from elsewhere (its slots are proposed for a person to confirm).
    """

    line: int
    task: dict[str, Any]
    variant: str | None = None


@dataclass(frozen=True)
class InteropSpec:
    """One format of ``perturb export --to NAME`` and ``perturb import --from NAME``.

    ``export(rows)`` gets every verified fixture entry (canonical first, in fixture order) and
    returns the whole file; it must carry each row's :meth:`ExportRow.provenance`.
    ``read(path, data)`` parses a file of the format into rows and raises
    :class:`~perturb.errors.InputError` naming the file, line and field for bad input."""

    name: str
    """What ``--to`` and ``--from`` take."""
    summary: str
    """One line for listings."""
    extension: str
    """The usual file extension, without the dot."""
    export: Callable[[list[ExportRow]], Exported]
    read: Callable[[Path, bytes], list[ImportedRow]]
