"""Canonical task files: ``tasks/<suite>.jsonl``, one :class:`~perturb.records.Task` per line.

:func:`load_tasks` reads and validates a whole file and reports *every* problem, each as
``FILE:LINE: field: what is wrong (expected ...)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from perturb.errors import GraderError, InputError, TaskFormatError
from perturb.io.hashing import content_hash
from perturb.io.inert import printable
from perturb.io.jsonl import error_messages, iter_jsonl_lines, read_bytes
from perturb.records import Task


@dataclass
class TaskSuite:
    """A loaded task file."""

    name: str
    path: Path
    tasks: list[Task]
    lines: dict[str, int] = field(default_factory=dict)

    def by_id(self) -> dict[str, Task]:
        return {task.id: task for task in self.tasks}


def suite_name(path: str | Path) -> str:
    """The suite name of a task or fixture file: its file name without ``.jsonl``."""
    name = Path(path).name
    for suffix in (".lock.json", ".jsonl"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return Path(path).stem


def task_hash(task: Task) -> str:
    """Content hash of a canonical task (what the lock records to detect stale variants)."""
    return content_hash(task.model_dump(mode="json"))


def _task_hint(err: dict[str, Any], loc: str, msg: str) -> str | None:
    kind = err["type"]
    if kind == "missing":
        return "missing (expected this field on every task)"
    if kind == "extra_forbidden":
        if loc.startswith("grader."):
            return "unknown grader option (expected: type, tolerance, path, function, rubric, model)"
        return "unknown field (expected only: id, prompt, expected, grader, weight, slots, tags, metadata)"
    if kind == "string_pattern_mismatch" and loc == "id":
        return (
            f"invalid id {err.get('input')!r} (expected letters, digits and _ . : -, "
            "starting with a letter or digit, at most 128 characters)"
        )
    if kind == "string_too_short" and loc == "prompt":
        return "prompt is empty (expected the user's request)"
    if kind == "greater_than" and loc == "weight":
        return f"weight must be > 0, got {err.get('input')!r} (expected a positive number)"
    if kind != "value_error" and "(expected" not in msg:
        return f"{msg} (got {err.get('input')!r})" if "input" in err else msg
    return None


def _pydantic_messages(exc: ValidationError, raw: dict[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for loc, msg in error_messages(exc, _task_hint):
        if loc == "(record)":
            loc = "(task)"
        if loc == "(task)" and "slot" in msg:
            loc = "slots"
        if loc == "(task)":
            loc = "grader" if "grader" in msg or "rubric" in msg or "tolerance" in msg else loc
        out.append((loc, msg))
    return out


def _expected_problems(task: Task) -> list[tuple[str, str]]:
    """What the task's grader says of its ``expected`` value (the grader's own check)."""
    from perturb.run.graders import check_grader

    try:
        check_grader(task.grader, task.expected, offline=True)
    except GraderError as exc:
        return [("expected", printable(str(exc)))]
    return []


def parse_task(raw: dict[str, Any]) -> tuple[Task | None, list[tuple[str, str]]]:
    """Validate one decoded line; return the task or a list of ``(field, message)``."""
    try:
        task = Task.model_validate(raw)
    except ValidationError as exc:
        return None, _pydantic_messages(exc, raw)
    problems = _expected_problems(task)
    return (None if problems else task), problems


def to_confirm_message(task: Task) -> str:
    """What ``perturb validate`` says of a task whose imported slots are not confirmed yet."""
    proposed = ", ".join(f"{name}={value!r}" for name, value in task.slots_to_confirm.items())
    return printable(
        f"proposed by `perturb import` from detected values: {proposed} (expected a person to "
        'confirm them: move the values that carry the task\'s meaning into "slots", rename them '
        'as you like, and delete "slots_to_confirm")'
    )


def load_tasks(path: str | Path) -> TaskSuite:
    """Load and validate ``tasks/<suite>.jsonl``; raise :class:`TaskFormatError` listing every
    problem (or :class:`InputError` if the file cannot be read at all)."""
    p = Path(path)
    data = read_bytes(p)
    name = str(path)
    if not data.strip():
        raise TaskFormatError(name, [f"{name}: file is empty (expected one JSON task per line)"])
    problems: list[str] = []
    tasks: list[Task] = []
    lines: dict[str, int] = {}
    for line, item in iter_jsonl_lines(p, data):
        if isinstance(item, InputError):
            problems.append(str(item))
            continue
        task, errs = parse_task(item)
        for fld, msg in errs:
            problems.append(f"{name}:{line}: {fld}: {msg}")
        raw_id = item.get("id")
        if isinstance(raw_id, str):
            if raw_id in lines:
                problems.append(
                    f"{name}:{line}: id: duplicate id {raw_id!r} (first on line {lines[raw_id]}; "
                    "expected ids unique in the suite)"
                )
                continue
            lines[raw_id] = line
        if task is not None and task.slots_to_confirm:
            problems.append(f"{name}:{line}: slots_to_confirm: {to_confirm_message(task)}")
            continue
        if task is not None:
            tasks.append(task)
    if problems:
        raise TaskFormatError(name, problems)
    return TaskSuite(name=suite_name(p), path=p, tasks=tasks, lines=lines)


def check_graders_import(suite: TaskSuite) -> None:
    """What ``perturb validate`` adds to :func:`load_tasks`: every grader that runs project code
    (a ``callable``) must import now, with the project directory importable as ``perturb run``
    makes it, so a typo fails here and not after a run has started. Graders that need a model
    (``llm_judge``) are checked by ``perturb run``. Raises :class:`TaskFormatError`."""
    from perturb.generate.input import project_root
    from perturb.run.agents import add_import_paths
    from perturb.run.graders import GRADERS, check_grader

    add_import_paths(project_root(suite.path))
    problems = []
    for task in suite.tasks:
        if GRADERS.get(task.grader.type).uses_judge:
            continue
        try:
            check_grader(task.grader, task.expected)
        except GraderError as exc:
            problems.append(f"{suite.path}:{suite.lines.get(task.id, 0)}: grader: {printable(str(exc))}")
    if problems:
        raise TaskFormatError(str(suite.path), problems)


def task_json_schema() -> dict[str, Any]:
    """The JSON Schema of one task line (``perturb schema task``)."""
    schema = Task.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "perturb task (one line of tasks/<suite>.jsonl)"
    return schema
