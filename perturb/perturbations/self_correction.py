"""``self_correction``: the user states a wrong value of a slot first, then corrects it.

A slot is *correctable* when a wrong value of the same type can be made: a weekday (another
weekday), a month, a date (another day of the month), a time (another hour), money (another
amount, same currency and format), a number, an ID (two digits swapped or one changed), a
shipped city/country (another city/country) or a value of a known category (seat class,
room type, size, ...). Declared slots are used first; without declared slots, detected
values of those types are used (recorded as ``detected:<kind>``). The canonical value is
never edited: the wrong value and a correction phrase are inserted in front of it, so the
final stated value is always the canonical one:

* ``dash_sorry``  "Thursday — sorry, I meant Friday"
* ``no_wait``     "Thursday, no wait, Friday"
* ``actually``    "Thursday... actually make that Friday"
* ``correction``  "Thursday (correction: Friday)"
* ``i_mean``      "Thursday, I mean Friday"
* ``scratch``     "Thursday — scratch that, Friday"

ε = corrections ÷ correctable slots, measured on the finished text: a correction is a
correctable value preceded (within a short window) by a correction phrase. With level ε the
generator corrects ``max(1, round(ε × correctable))`` slots.
"""

from __future__ import annotations

import random
import re
from typing import Any

from ..slots import Span, detect, find_protected, place_kind, places, sentinel
from ._context import SkipGeneration, TaskContext, Variant, load_data
from ._text import rounded

PHRASINGS: dict[str, tuple[str, str]] = {
    "dash_sorry": ("{wrong} — sorry, I meant ", ""),
    "no_wait": ("{wrong}, no wait, ", ""),
    "actually": ("{wrong}... actually make that ", ""),
    "correction": ("{wrong} (correction: ", ")"),
    "i_mean": ("{wrong}, I mean ", ""),
    "scratch": ("{wrong} — scratch that, ", ""),
}
"""Phrasing name -> (text before the canonical value, text after it)."""

CUE_RE = re.compile(
    r"(?:(?:sorry|I\s+meant|no,?\s+wait|actually(?:,?\s+make\s+(?:that|it))?|correction:|"
    r"I\s+mean|scratch\s+that|make\s+that|or\s+rather|oops|my\s+mistake|wait|no,)"
    r"[\s,:;.—–-]*)+$",
    re.I,
)
"""A correction phrase ending right before a value."""

_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"]


def _categories() -> list[list[str]]:
    categories: list[list[str]] = load_data("categories")["categories"]
    return categories


def _same_case(template: str, value: str) -> str:
    if template.islower():
        return value.lower()
    if template.isupper() and len(template) > 1:
        return value.upper()
    return value


def _wrong_amount(value: str, rng: random.Random) -> str | None:
    """Another amount in the first number of ``value``, same format (commas, zero padding)."""
    m = re.search(r"\d{1,3}(?:,\d{3})+|\d+", value)
    if not m:
        return None
    digits = m.group()
    n = int(digits.replace(",", ""))
    step = max(1, n // 10) if n >= 20 else 1
    choices = [n + k * step for k in (-3, -2, -1, 1, 2, 3) if n + k * step > 0]
    new = rng.choice(choices)
    if "," in digits:
        text = f"{new:,}"
    elif digits.startswith("0") and len(digits) > 1:
        text = str(new).zfill(len(digits))
    else:
        text = str(new)
    return value[: m.start()] + text + value[m.end() :]


def _wrong_time(value: str, rng: random.Random) -> str | None:
    m = re.match(r"(\d{1,2})(.*)$", value)
    if not m:
        return None
    hour = int(m.group(1))
    twelve = bool(re.search(r"[AaPp]\.?[Mm]", value))
    top = 12 if twelve else 23
    choices = [h for h in range(1 if twelve else 0, top + 1) if h != hour and abs(h - hour) <= 3]
    new = rng.choice(choices)
    text = str(new).zfill(len(m.group(1))) if m.group(1).startswith("0") else str(new)
    return text + m.group(2)


_RELATIVE = {"today": "tomorrow", "tomorrow": "today", "tonight": "tomorrow", "yesterday": "today"}


def _wrong_date(value: str, rng: random.Random) -> str | None:
    low = value.lower()
    if low in _RELATIVE:
        other = _RELATIVE[low]
        return other.capitalize() if value[0].isupper() else other
    iso = re.match(r"(\d{4})-(\d{2})-(\d{2})$", value)
    if iso:
        day = int(iso.group(3))
        new = rng.choice([d for d in range(1, 29) if d != day and abs(d - day) <= 4])
        return f"{iso.group(1)}-{iso.group(2)}-{new:02d}"
    m = re.search(r"(?<![\d/.-])(\d{1,2})(st|nd|rd|th)?\b", value)
    if not m or int(m.group(1)) > 31:
        return None
    day = int(m.group(1))
    new = rng.choice([d for d in range(1, 29) if d != day and abs(d - day) <= 4])
    suffix = ""
    if m.group(2):
        suffix = "th" if 10 <= new % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(new % 10, "th")
    return value[: m.start()] + str(new) + suffix + value[m.end() :]


def _wrong_id(value: str, rng: random.Random) -> str | None:
    pos = [i for i, ch in enumerate(value) if ch.isdigit()]
    if not pos:
        return None
    chars = list(value)
    pairs = [(a, b) for a, b in zip(pos, pos[1:], strict=False) if b == a + 1 and chars[a] != chars[b]]
    if pairs and rng.random() < 0.5:
        a, b = rng.choice(pairs)
        chars[a], chars[b] = chars[b], chars[a]
    else:
        i = rng.choice(pos)
        chars[i] = rng.choice([d for d in "0123456789" if d != chars[i]])
    return "".join(chars)


def wrong_value(value: str, kind: str, rng: random.Random) -> str | None:
    """A plausible wrong value of the same type as ``value``, or None."""
    for i, day in enumerate(_WEEKDAYS):
        if value.lower().rstrip("s") == day.lower():
            other = rng.choice([d for j, d in enumerate(_WEEKDAYS) if j != i])
            other = other + ("s" if value.lower().endswith("days") else "")
            return _same_case(value, other)
    if value in _MONTHS:
        return rng.choice([m for m in _MONTHS if m != value])
    pk = place_kind(value)
    if pk:
        return rng.choice([p for p in places()[pk] if p != value and p not in value and value not in p])
    for group in _categories():
        lowered = [g.lower() for g in group]
        if value.lower() in lowered:
            other = rng.choice([g for g in group if g.lower() != value.lower()])
            return _same_case(value, other) if value.islower() else other
    if kind == "time" or re.fullmatch(r"\d{1,2}(?::\d{2})?\s?(?:[AaPp]\.?[Mm]\.?)?", value):
        if re.fullmatch(r"\d{1,2}", value) and kind != "time":
            return _wrong_amount(value, rng)
        return _wrong_time(value, rng)
    if kind == "date":
        return _wrong_date(value, rng)
    if kind == "id":
        return _wrong_id(value, rng)
    if kind in ("money", "number", "slot") and re.search(r"\d", value):
        return _wrong_amount(value, rng)
    return None


def correctable(ctx: TaskContext) -> list[tuple[str, Span]]:
    """``(slot label, span)`` of each correctable slot: declared slots first; without any
    correctable declared slot, detected values."""
    out: list[tuple[str, Span]] = []
    probe = random.Random(0)
    seen: set[str] = set()
    for span in ctx.spans:
        if span.kind == "slot" and span.slot and span.slot not in seen:
            if wrong_value(span.text, _kind_of(ctx, span), probe) is not None:
                out.append((span.slot, span))
                seen.add(span.slot)
    if out:
        return out
    for span in ctx.spans:
        if span.kind in ("weekday", "month", "date", "time", "money", "number", "id", "place"):
            if span.text not in seen and wrong_value(span.text, span.kind, probe) is not None:
                out.append((f"detected:{span.kind}", span))
                seen.add(span.text)
    return out


def _kind_of(ctx: TaskContext, span: Span) -> str:
    """The detected kind of a declared slot's value (``slot`` when nothing matches whole)."""
    found = {s.kind for s in detect(span.text) if s.text == span.text}
    for kind in ("time", "date", "money", "id", "weekday", "month", "place", "number"):
        if kind in found:
            return kind
    return "slot"


def generate(ctx: TaskContext, level: float, rng: random.Random, index: int = 0) -> Variant:
    slots = correctable(ctx)
    if not slots:
        raise SkipGeneration(
            "no slot can be corrected (no weekday, month, date, time, money, number, ID, "
            "place or known-category value)"
        )
    k = min(len(slots), max(1, round(level * len(slots))))
    picked = sorted(rng.sample(range(len(slots)), k))
    masked = ctx.masked
    corrections = []
    for i in reversed(picked):
        label, span = slots[i]
        index = ctx.spans.index(span)
        kind = span.kind if span.kind != "slot" else _kind_of(ctx, span)
        wrong = wrong_value(span.text, kind, rng)
        assert wrong is not None
        phrasing = rng.choice(sorted(PHRASINGS))
        before, after = PHRASINGS[phrasing]
        token = sentinel(index)
        masked = masked.replace(token, before.format(wrong=wrong) + token + after, 1)
        corrections.append({"slot": label, "wrong": wrong, "final": span.text, "phrasing": phrasing})
    corrections.reverse()
    details: dict[str, Any] = dict(corrections[0])
    details["corrections"] = corrections
    return Variant(text=ctx.unmask(masked), details=details)


def found_corrections(ctx: TaskContext, text: str) -> list[str]:
    """The correctable values of ``ctx`` that ``text`` states after a correction phrase."""
    found = []
    for _label, span in correctable(ctx):
        start = text.find(span.text)
        while start >= 0:
            if CUE_RE.search(text[max(0, start - 40) : start]):
                found.append(span.text)
                break
            start = text.find(span.text, start + 1)
    return found


def measure(ctx: TaskContext, text: str, details: dict[str, Any]) -> float:
    slots = correctable(ctx)
    if not slots:
        return 0.0
    return rounded(len(found_corrections(ctx, text)) / len(slots))


def _value_before(before: str) -> str | None:
    """The value stated at the very end of ``before`` (a detected value, a category member
    or, failing both, the last word)."""
    spans = [s for s in find_protected(before) if s.end == len(before)]
    if spans:
        return spans[-1].text
    for group in _categories():
        for member in sorted(group, key=len, reverse=True):
            if before.lower().endswith(member.lower()):
                return before[-len(member) :]
    m = re.search(r"[\w][\w'-]*$", before)
    return m.group() if m else None


def infer_corrections(ctx: TaskContext, text: str) -> list[dict[str, str]]:
    """Corrections stated in ``text`` (for LLM output that did not name them): for each
    correctable value preceded by a correction phrase, the value stated just before that
    phrase is the wrong one."""
    out = []
    for label, span in correctable(ctx):
        start = text.find(span.text)
        while start >= 0:
            window_start = max(0, start - 40)
            m = CUE_RE.search(text[window_start:start])
            if m:
                before = text[: window_start + m.start()].rstrip(" ,.;:—–-(")
                wrong = _value_before(before)
                if wrong and wrong != span.text:
                    out.append(
                        {"slot": label, "wrong": wrong, "final": span.text, "phrasing": m.group().strip()}
                    )
                break
            start = text.find(span.text, start + 1)
    return out
