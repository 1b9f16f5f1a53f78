"""Inputs of ``perturb generate``: class and intensity options, the review journal, old records.

* :func:`parse_classes` / :func:`parse_intensity` turn ``--classes`` / ``--intensity`` into
  classes and per-class ε levels (one-line :class:`~perturb.errors.UsageError` otherwise).
* :func:`live_decisions` reads ``review/<suite>/journal.jsonl``: candidate id -> its live
  decision; an ``undo`` cancels the decision whose ``seq`` it names.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from perturb.errors import UsageError
from perturb.generate.perturbations import CLASSES, class_names
from perturb.records import Candidate
from perturb.review.journal import JournalState, read_journal

__all__ = ["live_decisions", "parse_classes", "parse_intensity", "project_root"]


def parse_classes(spec: str | None) -> tuple[str, ...]:
    """``"typo,paraphrase"`` -> classes in report order; unknown names are a UsageError."""
    if spec is None or not spec.strip():
        return class_names()
    names = [n.strip() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in CLASSES]
    if unknown:
        raise UsageError(
            f"unknown class {unknown[0]!r} in --classes (expected any of: {', '.join(class_names())})"
        )
    return tuple(c for c in class_names() if c in names)


def _level(text: str, cls: str | None) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UsageError(
            f"--intensity: {text!r} is not a number (expected e.g. 0.2, 0.1,0.2,0.4 or typo=0.1)"
        ) from None
    top = CLASSES.get(cls).max_level if cls else 1.0
    if not 0 < value <= top:
        where = f" for {cls}" if cls else ""
        raise UsageError(f"--intensity: {text} out of range{where} (expected 0 < ε <= {top:g})")
    return value


def parse_intensity(spec: str | None, classes: Iterable[str]) -> dict[str, tuple[float, ...]]:
    """``"0.1,0.2"`` (every class), ``"typo=0.1,distractor=0.3"`` (per class; repeat a class
    for several levels) or a mix; classes not named get the global levels, else their
    default."""
    classes = tuple(classes)
    global_levels: list[float] = []
    per: dict[str, list[float]] = {}
    for part in (spec or "").split(","):
        part = part.strip()
        if not part:
            continue
        if "=" in part:
            name, _, value = part.partition("=")
            name = name.strip()
            if name not in CLASSES:
                raise UsageError(
                    f"--intensity: unknown class {name!r} (expected any of: {', '.join(class_names())})"
                )
            if name not in classes:
                raise UsageError(
                    f"--intensity: {name} is not being generated (--classes {','.join(classes)})"
                )
            per.setdefault(name, []).append(_level(value.strip(), name))
        else:
            global_levels.append(_level(part, None))
    out: dict[str, tuple[float, ...]] = {}
    for cls in classes:
        levels = per.get(cls) or global_levels or [CLASSES.get(cls).default_level]
        out[cls] = tuple(sorted(set(levels)))
    return out


def project_root(tasks_path: Path) -> Path:
    """The project root for a task file: the parent of its ``tasks/`` directory, else the
    current directory."""
    parent = tasks_path.resolve().parent
    return parent.parent if parent.name == "tasks" else Path.cwd()


def live_decisions(journal: Path, candidates: Iterable[Candidate]) -> dict[str, str]:
    """candidate id -> its decision in effect (``accept``, ``reject`` or ``edit``), replaying the
    journal exactly as the review does (undo cancels; a decision made on another version of the
    task does not count; ``skip`` decides nothing)."""
    state = JournalState.replay(read_journal(journal))
    live: dict[str, str] = {}
    for cand in candidates:
        decision = state.decision_for(cand)
        if decision is not None and decision.action in ("accept", "reject", "edit"):
            live[cand.id] = decision.action
    return live
