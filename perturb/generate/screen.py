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
* ``self_correction``: each recorded correction's final value is the canonical one, the wrong
  value differs from it and appears before it, and the canonical value is the last one stated.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from perturb.generate.perturbations import REGISTRY
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


def _correction_flags(task: Task, text: str, details: dict[str, Any]) -> list[str]:
    corrections = details.get("corrections")
    if not isinstance(corrections, list) or not corrections:
        if all(k in details for k in ("slot", "wrong", "final")):
            corrections = [{k: details[k] for k in ("slot", "wrong", "final")}]
        else:
            return ["self_correction details name no correction (expected slot, wrong and final)"]
    flags = []
    for c in corrections:
        if not isinstance(c, dict):
            flags.append("self_correction details: a correction is not an object")
            continue
        slot, wrong, final = str(c.get("slot", "")), str(c.get("wrong", "")), str(c.get("final", ""))
        canonical = task.slots.get(slot) if slot in task.slots else final
        if slot in task.slots and final != canonical:
            flags.append(
                f"final value of slot {slot!r} is {final!r}, expected the canonical {canonical!r}"
            )
            continue
        if not final or final not in task.prompt:
            flags.append(f"final value {final!r} is not a value of the canonical prompt")
            continue
        if not wrong or wrong == final:
            flags.append(f"wrong value {wrong!r} must differ from the final value {final!r}")
            continue
        w = text.find(wrong)
        if w < 0:
            flags.append(f"wrong value {wrong!r} does not appear in the text")
            continue
        last_final = text.rfind(final)
        last_wrong = _rfind_word(text, wrong)
        if last_wrong > last_final >= 0:
            flags.append(
                f"the last value stated is the wrong {wrong!r}, expected the canonical {final!r}"
            )
        elif last_final < 0 or w > last_final:
            flags.append(f"wrong value {wrong!r} does not appear before the final value {final!r}")
    return flags


def _rfind_word(text: str, value: str) -> int:
    best = -1
    for m in re.finditer(re.escape(value), text):
        best = m.start()
    return best


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
    spec = REGISTRY[perturbation]
    flags: list[str] = []
    prompt = task.prompt
    if not text.strip():
        return Screen(passed=False, flags=["empty text"])
    for value in lost_values(prompt, task.slots, text):
        names = [n for n, v in task.slots.items() if v == value]
        where = f" (slot {names[0]})" if names else ""
        flags.append(f"protected value {value!r}{where} lost or altered")
    allowed: list[str] = []
    if perturbation == "self_correction":
        corrections = details.get("corrections")
        if isinstance(corrections, list):
            allowed = [str(c.get("wrong", "")) for c in corrections if isinstance(c, dict)]
        elif "wrong" in details:
            allowed = [str(details["wrong"])]
        flags.extend(_correction_flags(task, text, details))
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
