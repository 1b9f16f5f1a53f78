"""CSV: one row per prompt, provenance columns first.

Export columns: ``id, task_id, perturbation, level, epsilon, sha256, suite, lock_sha256,
prompt, expected_json, grader_json, weight, slots_json, metadata_json``; the ``*_json``
cells hold JSON so any value survives a round trip.

Import needs a header row with ``prompt`` (or ``input``, ``question``) and either
``expected`` (or ``answer``, ``target``: the cell's text as it is) or ``expected_json``
(JSON). Optional columns: ``id`` (or ``task_id``), ``grader`` (a grader type such as
``exact``; default ``normalized``) or ``grader_json``, ``weight``, ``slots_json``,
``metadata_json``, ``tags`` (comma-separated), ``perturbation`` (rows other than
``canonical`` are skipped). Other columns go into the task's ``metadata``.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from perturb.errors import InputError
from perturb.interop.spec import Exported, ExportRow, ImportedRow, InteropSpec
from perturb.io.jsonl import dumps_line, loads_strict

COLUMNS = (
    "id",
    "task_id",
    "perturbation",
    "level",
    "epsilon",
    "sha256",
    "suite",
    "lock_sha256",
    "prompt",
    "expected_json",
    "grader_json",
    "weight",
    "slots_json",
    "metadata_json",
)
_KNOWN = {*COLUMNS, "expected", "grader", "tags"}
_ALIASES = {"input": "prompt", "question": "prompt", "answer": "expected", "target": "expected"}
"""Column names other eval sets use for the prompt and the expected answer."""
_PROVENANCE = {"task_id", "level", "epsilon", "sha256", "suite", "lock_sha256"}


def _export(rows: list[ExportRow]) -> Exported:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        e, prov = row.entry, row.provenance()
        writer.writerow(
            [
                e.id,
                e.task_id,
                e.perturbation,
                "" if e.level is None else repr(e.level),
                repr(e.epsilon),
                prov["sha256"],
                prov["suite"],
                prov["lock_sha256"],
                e.prompt,
                dumps_line(e.expected),
                dumps_line(e.grader.model_dump(mode="json", exclude_none=True)),
                repr(e.weight),
                dumps_line(e.slots),
                dumps_line(e.metadata),
            ]
        )
    return Exported(buf.getvalue())


def _json_cell(name: str, line: int, column: str, text: str) -> Any:
    return loads_strict(text, name, line, what=f"JSON in column {column}")


def _read(path: Path, data: bytes) -> list[ImportedRow]:
    name = str(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(name, "not valid UTF-8 (expected a UTF-8 CSV file)", line=line) from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader)
    except StopIteration:
        raise InputError(name, "file is empty (expected a header row with prompt and expected)") from None
    except csv.Error as exc:
        raise InputError(name, f"malformed CSV: {exc}", line=1) from None
    header = [cell.strip() for cell in header]
    header = [_ALIASES[c] if c in _ALIASES and _ALIASES[c] not in header else c for c in header]
    missing = [c for c in ("prompt",) if c not in header]
    if "expected" not in header and "expected_json" not in header:
        missing.append("expected or expected_json")
    if missing:
        raise InputError(
            name,
            f"header has no {' and no '.join(missing)} column (expected a header row naming at least "
            "prompt and expected)",
            line=1,
        )
    if len(set(header)) != len(header):
        dup = next(c for c in header if header.count(c) > 1)
        raise InputError(name, f"column {dup!r} appears twice (expected each column once)", line=1)
    out: list[ImportedRow] = []
    start = reader.line_num + 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise InputError(name, f"malformed CSV: {exc}", line=start) from None
        line, start = start, reader.line_num + 1
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(header):
            raise InputError(
                name,
                f"{len(cells)} cells (expected {len(header)}, one per header column)",
                line=line,
            )
        row = dict(zip(header, cells, strict=True))
        out.append(_row(name, line, row))
    return out


def _row(name: str, line: int, row: dict[str, str]) -> ImportedRow:
    task: dict[str, Any] = {"prompt": row["prompt"]}
    if "expected_json" in row:
        task["expected"] = _json_cell(name, line, "expected_json", row["expected_json"])
    else:
        task["expected"] = row["expected"]
    if row.get("task_id") or row.get("id"):
        task["id"] = row.get("task_id") or row["id"]
    if "grader_json" in row and row["grader_json"].strip():
        task["grader"] = _json_cell(name, line, "grader_json", row["grader_json"])
    else:
        task["grader"] = row.get("grader", "").strip() or "normalized"
    if row.get("weight", "").strip():
        try:
            task["weight"] = float(row["weight"])
        except ValueError:
            raise InputError(
                name, f"{row['weight'][:40]!r} is not a number (expected e.g. 1.0)", line=line, field="weight"
            ) from None
    for column, field in (("slots_json", "slots"), ("metadata_json", "metadata")):
        if row.get(column, "").strip():
            task[field] = _json_cell(name, line, column, row[column])
    if row.get("tags", "").strip():
        task["tags"] = [t.strip() for t in row["tags"].split(",") if t.strip()]
    extra = {k: v for k, v in row.items() if k not in _KNOWN and k not in _PROVENANCE}
    if extra:
        task["metadata"] = {**extra, **task.get("metadata", {})}
    variant = row.get("perturbation", "").strip() or None
    return ImportedRow(line, task, variant)


SPEC = InteropSpec(
    name="csv",
    summary="CSV: one row per prompt with provenance columns (sha256, lock_sha256)",
    extension="csv",
    export=_export,
    read=_read,
)
