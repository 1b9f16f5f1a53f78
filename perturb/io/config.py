"""Run tiers from ``[tool.perturb.tiers.<name>]`` (pyproject.toml) or ``[tiers.<name>]``
(perturb.toml), looked up in the project directory (the parent of ``fixtures/``).

A tier sets defaults for ``perturb run --tier NAME``; explicit flags override them::

    [tool.perturb.tiers.smoke]     # every commit
    tasks = 10                     # the first 10 tasks (fixture order), or a list of task ids
    trials = 3
    classes = ["canonical", "paraphrase", "distractor"]
    concurrency = 8                # optional
    timeout = 60                   # optional, seconds per trial

``perturb.toml`` wins over ``pyproject.toml`` when both exist. Tiers the file does not
define fall back to the built-in ones (``DEFAULT_TIERS``, the same as this project's
pyproject.toml). A malformed file or key raises :class:`ConfigError` naming the file, the
line and the key.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perturb.errors import ConfigError
from perturb.generate.perturbations import variant_kinds

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

TIER_KEYS = ("tasks", "trials", "classes", "concurrency", "timeout")

DEFAULT_TIERS: dict[str, dict[str, Any]] = {
    "smoke": {"tasks": 10, "trials": 3, "classes": ["canonical", "paraphrase", "distractor"]},
    "full": {"trials": 5},
    "stress": {"trials": 10},
}
"""The built-in tiers: smoke on every commit, full nightly, stress weekly."""


@dataclass(frozen=True)
class Tier:
    """One tier's settings; None means "not set by the tier"."""

    name: str
    source: str
    tasks: int | list[str] | None = None
    trials: int | None = None
    classes: list[str] | None = None
    concurrency: int | None = None
    timeout: float | None = None


def _line_of(text: str, table: str, key: str | None) -> int | None:
    """The line of ``key`` inside ``[table]`` (or of the table header), for messages."""
    current = None
    header_line = None
    header = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
    for number, line in enumerate(text.splitlines(), start=1):
        m = header.match(line)
        if m:
            current = m.group(1).replace('"', "").replace(" ", "")
            if current == table:
                header_line = number
            continue
        if key is not None and current == table and re.match(rf"^\s*\"?{re.escape(key)}\"?\s*=", line):
            return number
    return header_line


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check(tier: str, key: str, value: Any) -> str | None:
    """None when ``value`` is fine for ``key``, else what was expected."""
    if key == "tasks":
        if _is_int(value) and value >= 1:
            return None
        if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
            return None
        return "expected a whole number >= 1 or a non-empty list of task ids"
    if key in ("trials", "concurrency"):
        return None if _is_int(value) and value >= 1 else "expected a whole number >= 1"
    if key == "timeout":
        ok = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
        return None if ok else "expected a number of seconds > 0"
    if key == "classes":
        if not isinstance(value, list) or not value:
            return f"expected a non-empty list of: {', '.join(variant_kinds())}"
        bad = [v for v in value if v not in variant_kinds()]
        if bad:
            return f"unknown class {bad[0]!r} (expected some of: {', '.join(variant_kinds())})"
        return None
    return f"unknown key (expected: {', '.join(TIER_KEYS)})"


def _tier_from(name: str, values: dict[str, Any], source: str) -> Tier:
    tasks = values.get("tasks")
    timeout = values.get("timeout")
    return Tier(
        name=name,
        source=source,
        tasks=list(tasks) if isinstance(tasks, list) else tasks,
        trials=values.get("trials"),
        classes=list(values["classes"]) if "classes" in values else None,
        concurrency=values.get("concurrency"),
        timeout=float(timeout) if timeout is not None else None,
    )


def config_file(root: Path) -> Path | None:
    """``perturb.toml`` if present, else ``pyproject.toml`` if present, in ``root``."""
    for name in ("perturb.toml", "pyproject.toml"):
        path = root / name
        if path.is_file():
            return path
    return None


def load_tiers(root: Path) -> dict[str, Tier]:
    """All tiers: the built-in ones, overridden by those the project's config file defines."""
    tiers = {name: _tier_from(name, values, "built-in") for name, values in DEFAULT_TIERS.items()}
    path = config_file(root)
    if path is None:
        return tiers
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc} (expected a UTF-8 TOML file)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        where = f"{path}:{m.group(1)}" if m else str(path)
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ConfigError(f"{where}: invalid TOML: {msg} (expected valid TOML)") from None
    prefix = "tiers" if path.name == "perturb.toml" else "tool.perturb.tiers"
    section: Any = data
    for part in prefix.split("."):
        section = section.get(part) if isinstance(section, dict) else None
        if section is None:
            return tiers
    if not isinstance(section, dict):
        line = _line_of(text, prefix.rsplit(".", 1)[0], "tiers")
        raise ConfigError(
            f"{path}{f':{line}' if line else ''}: {prefix}: expected a table of tiers ([{prefix}.<name>])"
        )
    for name, values in section.items():
        table = f"{prefix}.{name}"
        if not isinstance(values, dict):
            line = _line_of(text, prefix, name)
            raise ConfigError(
                f"{path}{f':{line}' if line else ''}: {table}: expected a table "
                f"([{table}] with keys {', '.join(TIER_KEYS)})"
            )
        for key, value in values.items():
            problem = _check(name, key, value)
            if problem:
                line = _line_of(text, table, key)
                raise ConfigError(
                    f"{path}{f':{line}' if line else ''}: {table}.{key}: {problem}, got {value!r}"
                    if not problem.startswith("unknown key")
                    else f"{path}{f':{line}' if line else ''}: {table}.{key}: {problem}"
                )
        tiers[name] = _tier_from(name, values, str(path))
    return tiers


def get_tier(root: Path, name: str) -> Tier:
    """The tier called ``name``; :class:`ConfigError` listing the known ones if it is unknown."""
    tiers = load_tiers(root)
    if name not in tiers:
        path = config_file(root)
        where = f"{path}: " if path else ""
        raise ConfigError(
            f"{where}no tier {name!r} (expected one of: {', '.join(sorted(tiers))}; define "
            f"[tool.perturb.tiers.{name}] in pyproject.toml or [tiers.{name}] in perturb.toml)"
        )
    return tiers[name]
