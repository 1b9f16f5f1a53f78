"""Entity extraction for the example travel-desk agent: regexes, cues and self-corrections.

:func:`extract` finds every mention (booking references, member numbers, e-mails, money,
times, dates, weekdays, cities, bare numbers) with its character span and the words just
before it (the *cue*, e.g. ``"from"``, ``"to"``, ``"under"``). It then applies the
self-corrections it recognises: a mention right after a known correction phrase ("sorry,
I meant", "I meant", "I mean", "correction:") replaces the last earlier mention of the same
kind and inherits its cue and position. Other ways of correcting oneself ("no wait",
"actually", "make that", "scratch that") are not recognised, so both values stay and the
agent's role rules pick one of them -- usually the first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .travel_lexicon import (
    CABINS,
    CITIES,
    COMPANIONS,
    CURRENCY_SYMBOLS,
    CURRENCY_WORDS,
    MONTH_DAYS,
    MONTHS,
    NUMBER_WORDS,
    WEEKDAYS,
)

_NUM = r"\d[\d,]*(?:\.\d+)?"
_WORDNUM = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
_MONTH = "|".join(m for m in MONTHS) + "|" + "|".join(m[:3] for m in MONTHS if len(m) > 3)
_WEEKDAY_NAMES = frozenset(w.lower() for w in WEEKDAYS)

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("email", re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")),
    ("ref", re.compile(r"\bBK-\d{5}\b", re.I)),
    ("member", re.compile(r"\bLY-\d{6}\b", re.I)),
    ("money", re.compile(rf"(?P<sym>[£$€₹])\s?(?P<num>{_NUM})")),
    (
        "money",
        re.compile(
            rf"\b(?P<num>{_NUM})\s?(?P<word>{'|'.join(CURRENCY_WORDS)})\b",
            re.I,
        ),
    ),
    ("time", re.compile(r"\b(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)(?:\s?(?P<ap>am|pm)\b)?", re.I)),
    ("time", re.compile(r"\b(?P<h>1[0-2]|0?[1-9])\s?(?P<ap>am|pm)\b", re.I)),
    (
        "date",
        re.compile(rf"\b(?P<d>3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?\s+(?P<mon>{_MONTH})\b", re.I),
    ),
    (
        "date",
        re.compile(rf"\b(?P<mon>{_MONTH})\s+(?P<d>3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?\b", re.I),
    ),
    ("weekday", re.compile(rf"\b(?:{'|'.join(WEEKDAYS)})\b", re.I)),
    (
        "city",
        re.compile(rf"\b(?:{'|'.join(sorted(CITIES, key=len, reverse=True))})\b", re.I),
    ),
    ("number", re.compile(rf"(?<![\w.-]){_NUM}\b")),
)

KNOWN_CORRECTIONS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\bsorry,?\s+i\s+meant\b:?", re.I),
    re.compile(r"\bi\s+meant\b:?", re.I),
    re.compile(r"\bi\s+mean\b,?", re.I),
    re.compile(r"\bcorrection\s*:", re.I),
)
"""The self-correction phrasings the agent understands."""

CORRECTION_REACH = 25
"""A correcting value must start within this many characters after the phrase."""


@dataclass
class Mention:
    """One value found in the text."""

    kind: str
    value: Any
    start: int
    end: int
    text: str
    cue: tuple[str, ...]
    """Up to three lower-case words just before the mention (weekday names and "the" skipped)."""
    after: tuple[str, ...]
    """Up to three lower-case words just after it."""
    order: int = 0
    superseded: bool = False


@dataclass
class Extraction:
    """All mentions of one text, after applying recognised self-corrections."""

    text: str
    mentions: list[Mention]
    trace: list[str] = field(default_factory=list)

    def active(self, kind: str) -> list[Mention]:
        """Mentions of ``kind`` that were not corrected away, in reading order."""
        found = [m for m in self.mentions if m.kind == kind and not m.superseded]
        return sorted(found, key=lambda m: m.order)

    def first(self, kind: str) -> Any:
        found = self.active(kind)
        return found[0].value if found else None


def number(text: str) -> int | float:
    """``"1,200"`` -> 1200, ``"318.50"`` -> 318.5 (ints where whole)."""
    value = float(text.replace(",", ""))
    return int(value) if value.is_integer() else value


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower().replace("\u2019", "'"))


def _cue(text: str, start: int) -> tuple[str, ...]:
    words = [w for w in _words(text[max(0, start - 40) : start]) if w != "the"]
    while words and words[-1] in _WEEKDAY_NAMES:
        words.pop()
    return tuple(words[-3:])


def _value(kind: str, match: re.Match[str]) -> Any:
    raw = match.group(0)
    if kind in ("ref", "member"):
        return raw.upper()
    if kind == "money":
        groups = match.groupdict()
        sym = groups.get("sym")
        currency = CURRENCY_SYMBOLS[sym] if sym else CURRENCY_WORDS[groups["word"].lower()]
        return (number(groups["num"]), currency)
    if kind == "time":
        hour, minute = int(match.group("h")), int(match.groupdict().get("m") or 0)
        ampm = (match.group("ap") or "").lower()
        if ampm == "pm" and hour < 12:
            hour += 12
        if ampm == "am" and hour == 12:
            hour = 0
        return f"{hour:02d}:{minute:02d}"
    if kind == "date":
        mon = match.group("mon").lower()[:3]
        month = next(m for m in MONTHS if m.lower().startswith(mon))
        return f"{int(match.group('d'))} {month}"
    if kind == "weekday":
        return raw.capitalize()
    if kind == "city":
        return next(c for c in CITIES if c.lower() == raw.lower())
    if kind == "number":
        return number(raw)
    return raw


def _find(text: str) -> list[Mention]:
    taken = [False] * len(text)
    found: list[Mention] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(taken[start:end]):
                continue
            for i in range(start, end):
                taken[i] = True
            after = tuple(_words(text[end : end + 40])[:3])
            mention = Mention(
                kind, _value(kind, match), start, end, match.group(0), _cue(text, start), after, order=start
            )
            found.append(mention)
    found.sort(key=lambda m: m.start)
    return found


def extract(text: str) -> Extraction:
    """Find the mentions of ``text`` and apply the self-corrections the agent recognises."""
    result = Extraction(text, _find(text))
    markers: list[tuple[int, int, str]] = []
    for pattern in KNOWN_CORRECTIONS:
        for m in pattern.finditer(text):
            if not any(s <= m.start() < e for s, e, _ in markers):
                markers.append((m.start(), m.end(), m.group(0)))
    for start, end, phrase in sorted(markers):
        new = next((m for m in result.mentions if end <= m.start <= end + CORRECTION_REACH), None)
        if new is None:
            continue
        old = [m for m in result.mentions if m.kind == new.kind and m.end <= start and not m.superseded]
        if not old:
            continue
        prior = old[-1]
        prior.superseded = True
        new.cue, new.order = prior.cue, prior.order
        result.trace.append(
            f"self-correction {phrase.strip()!r}: {new.kind} {new.text!r} replaces {prior.text!r}"
        )
    return result


# --------------------------------------------------------------------------- counts


def _count(token: str) -> int:
    token = token.lower()
    return NUMBER_WORDS[token] if token in NUMBER_WORDS else int(token)


_PARTY = re.compile(rf"\b(?P<n>\d+|{_WORDNUM})\s+(?P<who>adults?|children|child|kids?|infants?)\b", re.I)
_HEADS = re.compile(
    rf"\b(?P<n>\d+|{_WORDNUM})\s+(?:passengers?|people|persons|travell?ers|seats|guests?|pax)\b",
    re.I,
)
_OF_US = re.compile(rf"\b(?P<n>\d+|{_WORDNUM})\s+of\s+us\b", re.I)
_FAMILY = re.compile(rf"\bfamily\s+of\s+(?P<n>\d+|{_WORDNUM})\b", re.I)
_ME_AND = re.compile(rf"\bme\s+and\s+my\s+(?:{'|'.join(COMPANIONS)})\b", re.I)
_SOLO = re.compile(r"\b(?:just|only)\s+me\b|\bsingle\s+occupancy\b|\bmyself\b", re.I)
_FOR_N = re.compile(
    rf"\bfor\s+(?P<n>\d+|{_WORDNUM})\b(?!\s*(?:nights?|days?|weeks?|points|miles|bags?|%|of))",
    re.I,
)


def travellers(text: str) -> int | None:
    """How many people travel or stay: "two adults and one child" -> 3, "for 2" -> 2."""
    party = list(_PARTY.finditer(text))
    if party:
        return sum(_count(m.group("n")) for m in party)
    for pattern in (_HEADS, _OF_US, _FAMILY):
        m = pattern.search(text)
        if m:
            return _count(m.group("n"))
    if _ME_AND.search(text):
        return 2
    if _SOLO.search(text):
        return 1
    m = _FOR_N.search(text)
    if m and m.group("n").lower() not in ("a", "an"):
        return _count(m.group("n"))
    return None


_COUNT_WORDS = "|".join(w for w in NUMBER_WORDS if w not in ("a", "an", "single"))
_NIGHTS = re.compile(rf"\b(?P<n>\d+|{_COUNT_WORDS})\s+nights?\b", re.I)
_WEEK = re.compile(r"\b(?:a|one)\s+week\b", re.I)
_BAGS = re.compile(
    rf"\b(?P<n>\d+|{_WORDNUM})\s+(?:more\s+|extra\s+|additional\s+)?(?:checked\s+)?"
    r"(?:bags?|suitcases?|pieces\s+of\s+luggage)\b",
    re.I,
)


def nights(text: str) -> int | None:
    """ "3 nights" -> 3, "a week" -> 7 ("€120 a night" is a rate, not a stay)."""
    m = _NIGHTS.search(text)
    if m:
        return _count(m.group("n"))
    return 7 if _WEEK.search(text) else None


def bags(text: str) -> int | None:
    """ "2 extra checked bags" -> 2, "one more suitcase" -> 1."""
    m = _BAGS.search(text)
    return _count(m.group("n")) if m else None


def cabin(text: str) -> str | None:
    """The first cabin phrase mentioned ("premium economy" -> ``premium_economy``)."""
    lower = text.lower()
    hits = [(lower.find(p), value) for p, value in CABINS if p in lower]
    return min(hits)[1] if hits else None


def date_number(value: str) -> int:
    """Day of a non-leap year for ``"14 June"`` (for counting nights)."""
    day, month = value.split(" ")
    index = MONTHS.index(month)
    return sum(MONTH_DAYS[:index]) + int(day)
