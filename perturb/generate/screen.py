"""The automatic pre-screen of a candidate text (generated, or edited by a reviewer).

:func:`screen_text` raises one flag per problem; a candidate with flags is kept (so the
reviewer sees why) with ``screen.passed`` false. The checks:

* every protected value of the canonical prompt (declared slots and detected values) still
  occurs byte-for-byte, as often as in the canonical prompt;
* no new detected value (date, number, city, ...) that is not in the canonical prompt --
  except, for ``self_correction``, the stated wrong values;
* the text differs from the canonical prompt (and not only in whitespace);
* it is not a duplicate of another candidate of the same task;
* its length ratio (characters ÷ canonical characters) is in the class's range;
* the class's own checks (``ClassSpec.screen``); for ``self_correction``: each recorded
  correction's final value is the canonical one, the wrong value differs from it and appears
  before it, and the canonical value is the last one stated.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from perturb.generate.perturbations import CLASSES
from perturb.generate.slots import lost_values, new_values
from perturb.records import Candidate, Screen, Task

__all__ = ["duplicate_flag", "screen_text"]


def _others(others: Iterable[Candidate | tuple[str, str]]) -> list[tuple[str, str]]:
    out = []
    for item in others:
        if isinstance(item, Candidate):
            out.append((item.id, item.text))
        else:
            out.append((str(item[0]), str(item[1])))
    return out


def screen_text(
    task: Task,
    text: str,
    perturbation: str,
    details: dict[str, Any] | None = None,
    others: Iterable[Candidate | tuple[str, str]] = (),
) -> Screen:
    """Screen ``text`` as a ``perturbation`` variant of ``task``.

    ``details`` are the candidate's class details (for ``self_correction`` the corrections);
    ``others`` are the other candidates of the same task (``Candidate`` objects or
    ``(id, text)`` pairs) for the duplicate check."""
    details = dict(details or {})
    spec = CLASSES.get(perturbation)
    flags: list[str] = []
    prompt = task.prompt
    if not text.strip():
        return Screen(passed=False, flags=["empty text"])
    for value in lost_values(prompt, task.slots, text):
        names = [n for n, v in task.slots.items() if v == value]
        where = f" (slot {names[0]})" if names else ""
        flags.append(f"protected value {value!r}{where} lost or altered")
    allowed: list[str] = []
    if spec.screen is not None:
        allowed, class_flags = spec.screen(task, text, details)
        flags.extend(class_flags)
    for value in new_values(prompt, text, allowed=[a for a in allowed if a]):
        flags.append(f"adds {value!r}, a value not in the canonical prompt (competes with a slot)")
    if text == prompt:
        flags.append("identical to the canonical prompt")
    elif " ".join(text.split()) == " ".join(prompt.split()):
        flags.append("differs from the canonical prompt only in whitespace")
    ratio = len(text) / max(1, len(prompt))
    lo, hi = spec.length_ratio
    if not lo <= ratio <= hi:
        flags.append(f"length ratio {ratio:.2f} outside {lo:g}-{hi:g} for {perturbation}")
    duplicate = duplicate_flag(text, others)
    if duplicate:
        flags.append(duplicate)
    return Screen(passed=not flags, flags=flags)


def duplicate_flag(text: str, others: Iterable[Candidate | tuple[str, str]]) -> str | None:
    """``"duplicate of <id>"`` when another candidate of the task has the same text."""
    for other_id, other_text in _others(others):
        if other_text == text:
            return f"duplicate of {other_id}"
    return None
