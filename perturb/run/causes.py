"""Errored trials grouped by cause: the one owner of "why did these trials not complete".

A trial that errored carries ``error_kind`` (``exception``, ``timeout``, ``exit_status``,
``malformed``, ``api``, ``tool``, ``grader``, ...) and ``error``, the message the runner wrote:

* ``exception``: ``Type: message (file.py:LINE in function)``;
* ``timeout``: ``timed out after 30 s`` (and the diagnosis, when the runner has one);
* ``exit_status``: ``exit status 3; stderr: <tail>`` or ``killed by signal 9; ...``;
* ``malformed``: what was wrong with the output (``stdout JSON has no "output" ...``).

Two trials have the same cause when their kind and their *cause key* are equal. The key is the
message with the parts that differ from trial to trial cut off: the stderr tail after the exit
status, and the quoted copy of the agent's stdout after ``got`` or ``: '...'`` in a malformed
message. The example kept for each cause is the full message of its trial with the smallest
(prompt id, attempt), so it does not depend on the order concurrent trials finished in.

``perturb run`` prints :func:`causes_block` after its summary; every report format shows the
same grouping per class (:func:`group_causes` over each class's errored trials).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from perturb.io.inert import printable
from perturb.io.jsonl import open_regular

MAX_CAUSES_SHOWN = 5
"""Causes listed by :func:`causes_block`; the rest are counted in one line."""
EXAMPLE_CHARS = 300
"""An example message longer than this is cut (``…`` marks the cut)."""

_MALFORMED_TAIL = re.compile(r"(, got |: )(['\"]).*\Z", re.S)


@dataclass(frozen=True)
class ErroredTrial:
    """What grouping needs of one errored trial."""

    variant_id: str
    attempt: int
    kind: str | None
    """The trial's ``error_kind`` (None on records written before kinds existed)."""
    error: str | None
    """The trial's ``error`` message."""


@dataclass
class Cause:
    """One cause of errored trials: its kind, key, how many trials and one example."""

    kind: str
    key: str
    """The message with per-trial details cut off (see the module docstring)."""
    count: int = 0
    example: str = ""
    """The full message of the trial with this cause with the smallest (prompt id, attempt)."""
    example_variant: str = ""
    """The fixture entry of that trial."""
    example_attempt: int = 0
    """Its attempt."""
    variants: set[str] = field(default_factory=set)
    """The fixture entries with at least one trial of this cause."""


def cause_key(kind: str | None, error: str | None) -> str:
    """The grouping key of one errored trial's message (see the module docstring)."""
    text = (error or "(no message)").strip()
    if kind == "exit_status":
        return text.split("; stderr:", 1)[0]
    if kind == "malformed":
        return _MALFORMED_TAIL.sub("", text)
    return text


def group_causes(trials: Iterable[ErroredTrial]) -> list[Cause]:
    """Errored trials grouped by (kind, :func:`cause_key`), most frequent first (ties: kind,
    then key, in order)."""
    found: dict[tuple[str, str], Cause] = {}
    for t in trials:
        kind = t.kind or "error"
        key = cause_key(kind, t.error)
        cause = found.get((kind, key))
        if cause is None:
            example = t.error or "(no message)"
            cause = found[(kind, key)] = Cause(kind, key, 0, example, t.variant_id, t.attempt)
        elif (t.variant_id, t.attempt) < (cause.example_variant, cause.example_attempt):
            cause.example = t.error or "(no message)"
            cause.example_variant, cause.example_attempt = t.variant_id, t.attempt
        cause.count += 1
        cause.variants.add(t.variant_id)
    return sorted(found.values(), key=lambda c: (-c.count, c.kind, c.key))


def clip(text: str, limit: int = EXAMPLE_CHARS) -> str:
    """``text`` cut to ``limit`` characters (``…`` marks the cut)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cause_lines(causes: list[Cause], *, limit: int = MAX_CAUSES_SHOWN) -> list[str]:
    """One line per cause (count, kind, key), its example on the next when it says more than the
    key; control characters escaped. At most ``limit`` causes, then how many more."""
    lines: list[str] = []
    width = len(str(max((c.count for c in causes), default=0)))
    for c in causes[:limit]:
        prompts = len(c.variants)
        lines.append(
            f"  {c.count:>{width}}  {c.kind}: {printable(clip(c.key))}  "
            f"({prompts} prompt{'s' if prompts != 1 else ''})"
        )
        where = f"{printable(c.example_variant)} attempt {c.example_attempt}"
        if c.example.strip() != c.key:
            lines.append(f"  {'':>{width}}  e.g. {where}: {printable(clip(c.example))}")
        else:
            lines.append(f"  {'':>{width}}  e.g. {where}")
    if len(causes) > limit:
        rest = causes[limit:]
        lines.append(f"  ... and {len(rest)} more causes ({sum(c.count for c in rest)} trials)")
    return lines


def causes_block(causes: list[Cause], run_dir: str) -> list[str]:
    """What ``perturb run`` prints after its summary when trials errored: the causes and the
    command that shows each errored trial."""
    if not causes:
        return []
    total = sum(c.count for c in causes)
    head = f"{total} errored trial{'s' if total != 1 else ''} by cause:"
    return [head, *cause_lines(causes), f"see them: perturb show {printable(run_dir)} --errored"]


def errored_trials(trials_path: Path) -> list[ErroredTrial]:
    """The errored trials of a run's ``trials.jsonl`` that still count: per (variant, attempt,
    λ) the line with the highest ``retry`` (a later line wins a tie), in file order. Lines
    that are not trial objects are skipped (``perturb report`` names them)."""
    latest: dict[tuple[str, int, float], tuple[int, ErroredTrial | None]] = {}
    with open_regular(trials_path) as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                break
            try:
                obj = json.loads(raw)
                key = (str(obj["variant_id"]), int(obj["attempt"]), float(obj.get("lam", 0.0)))
                retry = int(obj.get("retry", 0))
            except (ValueError, TypeError, KeyError):
                continue
            prev = latest.get(key)
            if prev is None or retry >= prev[0]:
                item = None
                if obj.get("outcome") == "errored":
                    item = ErroredTrial(key[0], key[1], obj.get("error_kind"), obj.get("error"))
                latest[key] = (retry, item)
    return [item for _, item in latest.values() if item is not None]
