"""Inspect AI datasets: JSONL samples ``{"id", "input", "target", "metadata"}``.

Export writes one sample per fixture entry: ``input`` is the prompt, ``target`` the expected
value (a string, a list of strings, or canonical JSON text for other values), ``metadata`` the
provenance (suite, task id, class, ε, the entry's sha256, the lock's sha256) and the grader,
raw expected value, weight, slots and task metadata, so ``inspect_ai.dataset.json_dataset``
reads it and an import restores the tasks exactly.

Import reads such a file: ``input`` must be a string (chat-message inputs are not tasks);
``target`` becomes ``expected`` with the ``normalized`` grader, or, for a list of several
acceptable answers, a ``regex`` grader matching any one of them as the whole output, case and
edge punctuation ignored (Inspect's targets are alternatives). Samples of a perturb export
keep their grader; their perturbed variants are skipped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from perturb.errors import InputError
from perturb.interop.formats._common import is_perturb_export, perturb_metadata, task_from_perturb_metadata
from perturb.interop.spec import Exported, ExportRow, ImportedRow, InteropSpec
from perturb.io.hashing import canonical_json
from perturb.io.jsonl import dumps_line, iter_jsonl_lines


def target_of(expected: Any) -> str | list[str]:
    """Inspect's ``target`` (a string or a list of strings) for a perturb ``expected`` value."""
    if isinstance(expected, str):
        return expected
    if isinstance(expected, list) and expected and all(isinstance(x, str) for x in expected):
        return expected
    return canonical_json(expected).decode("utf-8")


def _export(rows: list[ExportRow]) -> Exported:
    lines = [
        dumps_line(
            {
                "id": row.entry.id,
                "input": row.entry.prompt,
                "target": target_of(row.entry.expected),
                "metadata": perturb_metadata(row),
            }
        )
        for row in rows
    ]
    return Exported("".join(line + "\n" for line in lines))


def _read(path: Path, data: bytes) -> list[ImportedRow]:
    name = str(path)
    out: list[ImportedRow] = []
    for line, item in iter_jsonl_lines(path, data):
        if isinstance(item, InputError):
            raise item
        prompt = item.get("input")
        if not isinstance(prompt, str):
            got = "missing" if prompt is None else f"a {type(prompt).__name__}"
            raise InputError(
                name,
                f"{got} (expected the prompt as a string; chat-message inputs cannot be tasks)",
                line=line,
                field="input",
            )
        meta = item.get("metadata")
        if is_perturb_export(meta):
            task, variant = task_from_perturb_metadata(meta, prompt)
            out.append(ImportedRow(line, task, variant))
            continue
        target = item.get("target")
        if isinstance(target, list) and len(target) == 1:
            target = target[0]
        task = {"prompt": prompt}
        if isinstance(target, str):
            task.update(expected=target, grader="normalized")
        elif isinstance(target, list) and target and all(isinstance(t, str) for t in target):
            alternatives = "|".join(re.escape(t) for t in target)
            task.update(expected=rf"(?i)^\W*(?:{alternatives})\W*$", grader="regex")
        else:
            shown = "missing" if target is None else json.dumps(target)[:60]
            raise InputError(
                name, f"{shown} (expected a string or a list of strings)", line=line, field="target"
            )
        if "id" in item:
            task["id"] = item["id"]
        if isinstance(meta, dict) and meta:
            task["metadata"] = meta
        out.append(ImportedRow(line, task))
    return out


SPEC = InteropSpec(
    name="inspect",
    summary="Inspect AI dataset: JSONL samples with input, target, id, metadata",
    extension="jsonl",
    export=_export,
    read=_read,
)
