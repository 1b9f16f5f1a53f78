"""Helpers the interop formats share."""

from __future__ import annotations

from typing import Any, TypeGuard

from perturb.interop.spec import ExportRow

PERTURB_KEYS = ("grader", "expected", "weight", "slots", "task_metadata")
"""Metadata keys an export adds beyond :meth:`ExportRow.provenance`, so an import of perturb's
own export restores the task exactly."""


def perturb_metadata(row: ExportRow) -> dict[str, Any]:
    """Provenance plus what an import needs to restore the task (grader, raw expected, ...)."""
    e = row.entry
    return {
        **row.provenance(),
        "grader": e.grader.model_dump(mode="json", exclude_none=True),
        "expected": e.expected,
        "weight": e.weight,
        "slots": e.slots,
        "task_metadata": e.metadata,
    }


def task_from_perturb_metadata(meta: dict[str, Any], prompt: Any) -> tuple[dict[str, Any], str | None]:
    """``(task fields, variant)`` from the metadata of perturb's own export."""
    task: dict[str, Any] = {"id": meta.get("task_id"), "prompt": prompt, "expected": meta.get("expected")}
    for key, field in (("grader", "grader"), ("weight", "weight"), ("slots", "slots")):
        if key in meta:
            task[field] = meta[key]
    if meta.get("task_metadata"):
        task["metadata"] = meta["task_metadata"]
    variant = meta.get("perturbation")
    return task, variant if isinstance(variant, str) else None


def is_perturb_export(meta: Any) -> TypeGuard[dict[str, Any]]:
    """Whether a record's metadata was written by ``perturb export``."""
    return isinstance(meta, dict) and "sha256" in meta and "perturbation" in meta and "grader" in meta
