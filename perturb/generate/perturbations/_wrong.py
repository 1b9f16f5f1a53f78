"""Plausible wrong values for ``self_correction``: same kind, same format, fits the sentence.

A wrong value is what a person might really have typed first: another weekday, a nearby date
(a week away when a weekday names the date), a nearby hour, a nearby amount, another count
(never "1 nights": with a plural noun the wrong count is two or more, and "1 passenger"
becomes "2 passengers"), an ID with two digits swapped or one changed, another city from the
same region (Manchester -> Leeds, not Honolulu), or another member of a known category
(economy -> business). It never repeats a value the prompt already states ("from Tuesday to
Thursday" never corrects Thursday from Tuesday).
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable, Collection

from perturb.generate.perturbations._context import load_data
from perturb.generate.slots import place_kind

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
NUMBER_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
)
_NUMBER_WORD_RE = re.compile(r"\b(" + "|".join(NUMBER_WORDS[1:]) + r")\b", re.I)
_IRREGULAR = {"child": "children", "person": "people", "man": "men", "woman": "women"}
_RELATIVE = {"today": "tomorrow", "tomorrow": "today", "tonight": "tomorrow", "yesterday": "today"}


def categories() -> list[list[str]]:
    """Closed sets of interchangeable values (``perturb/generate/data/categories.json``)."""
    groups: list[list[str]] = load_data("categories")["categories"]
    return groups


@functools.lru_cache(maxsize=1)
def _regions() -> tuple[dict[str, tuple[str, ...]], dict[str, frozenset[str]]]:
    """place -> the other places of its region, and place -> its aliases."""
    data = load_data("regions")
    region: dict[str, tuple[str, ...]] = {}
    for kind in ("city", "country"):
        for names in data[kind].values():
            for name in names:
                region[name] = tuple(n for n in names if n != name)
    aliases: dict[str, frozenset[str]] = {}
    for group in data["aliases"]:
        for name in group:
            aliases[name] = frozenset(group) - {name}
    return region, aliases


def same_case(template: str, value: str) -> str:
    """``value`` in lower or upper case when ``template`` is."""
    if template.islower():
        return value.lower()
    if template.isupper() and len(template) > 1:
        return value.upper()
    return value


def _is_plural(noun: str) -> bool:
    low = noun.lower()
    return low in _IRREGULAR.values() or (low.endswith("s") and not low.endswith("ss"))


def _pluralise(noun: str) -> str:
    low = noun.lower()
    if low in _IRREGULAR:
        return same_case(noun, _IRREGULAR[low])
    if re.search(r"(?:s|x|ch|sh)$", low):
        return noun + "es"
    if re.search(r"[^aeiou]y$", low):
        return noun[:-1] + "ies"
    return noun + "s"


_UNITS = frozenset(
    "kg g mg lb lbs oz km m cm mm mi ft in l ml gb mb tb kb kw kwh mph kph hr hrs min mins sec secs "
    "pm am x pc pcs pt qt gal".split()
)
"""Unit abbreviations: "3 kg" is never "6 kgs"."""


def _countable(noun: str) -> bool:
    """A noun that takes a plural -s: not a unit abbreviation, not an acronym."""
    return len(noun) >= 3 and noun.lower() not in _UNITS and not noun.isupper()


def _noun_after(text: str) -> str:
    m = re.match(r"\s+([A-Za-z]+)", text)
    return m.group(1) if m else ""


def _round_step(n: int) -> int:
    """How round a figure a person chose is: 1,100 -> 100, 90 -> 10, 45 -> 5; 0 for a figure
    that is not round (312, 7) or a year."""
    if n < 10 or 1900 <= n <= 2100:
        return 0
    for step in (1000, 500, 100, 50, 10, 5):
        if n % step == 0 and n >= 2 * step:
            return step
    return 5 if n % 5 == 0 else 0


def _count_choices(n: int, counted: bool) -> list[int]:
    rounded = _round_step(n)
    if rounded:  # a chosen round figure ($90, 45 seconds, volume 30) is misremembered as another
        near = [n + k * rounded for k in (-2, -1, 1, 2)]
        return [c for c in near if c >= rounded and n / 2 <= c <= n * 2]
    step = max(1, n // 10) if n >= 20 and not 1900 <= n <= 2100 else 1  # a year moves by one
    low = 2 if counted else 1
    return [n + k * step for k in (-3, -2, -1, 1, 2, 3) if n + k * step >= low and n + k * step != n]


def wrong_count(
    value: str, rng: random.Random, after: str = "", money: bool = False, before: str = ""
) -> str | None:
    """Another count or amount in the first number of ``value`` (digits, same format, or a
    number word), agreeing with the noun it counts: "1 passenger" -> "2 passengers", but a
    number used as an adjective keeps its noun ("a 10 minute trip" -> "a 20 minute trip",
    "a two bedroom flat" -> "a three bedroom flat"). A round figure becomes another round
    figure ("$90" -> "$80"); a terminal number moves down ("Terminal 5" -> "Terminal 4")."""
    m = re.search(r"\d{1,3}(?:,\d{3})+|\d+", value)
    word = None if m else _NUMBER_WORD_RE.search(value)
    if not m and not word:
        return None
    match = m or word
    assert match is not None
    tail = value[match.end() :]
    ordinal = re.match(r"(?:st|nd|rd|th)\b", tail)
    if m and not ordinal and (re.match(r"[A-Za-z]", tail) or re.search(r"[A-Za-z]$", value[: match.start()])):
        return None  # glued to letters ("401k", "4B", "A320"): a name, not a count
    if (
        m
        and not money
        and "," not in m.group()
        and len(m.group()) >= 4
        and not 1900 <= int(m.group()) <= 2100
    ):
        return None  # a long bare number is a code (zip, account), not a count
    inside = _noun_after(value[match.end() :])
    noun = inside or ("" if value[match.end() :].strip() else _noun_after(after))
    counted = bool(noun) and not money
    if m:
        digits = m.group()
        n = int(digits.replace(",", ""))
    else:
        n = NUMBER_WORDS.index(match.group().lower())
    choices = _count_choices(n, counted)
    if re.search(r"\bterminal\s*$", before + value[: match.start()], re.I):
        choices = [n - 1] if n > 1 else []  # a terminal that exists: a lower number
    if word:
        choices = [c for c in choices if c < len(NUMBER_WORDS)]
    if not choices:
        return None
    new = rng.choice(choices)
    if m:
        if "," in digits:
            text = f"{new:,}"
        elif digits.startswith("0") and len(digits) > 1:
            text = str(new).zfill(len(digits))
        else:
            text = str(new)
    else:
        text = NUMBER_WORDS[new]
        text = text.capitalize() if match.group()[0].isupper() else text
    if ordinal:
        text += "th" if 10 <= int(text) % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(int(text) % 10, "th")
        tail = tail[ordinal.end() :]
    out = value[: match.start()] + text + tail
    if n == 1 and inside and not _is_plural(inside) and _countable(inside):  # "1 passenger" -> "2 passengers"
        at = match.start() + len(text) + value[match.end() :].index(inside)
        out = out[:at] + _pluralise(inside) + out[at + len(inside) :]
    return out


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


def _wrong_day(day: int, rng: random.Random, weekday_named: bool, others: Collection[int]) -> int | None:
    """Another day of the month: near ``day`` (a week away when a weekday names the date), on
    the same side of every other day of that month the prompt states (a check-out stays after
    the check-in)."""
    if weekday_named:  # "Thursday 4 September": a week away keeps the weekday true
        choices = [d for d in (day - 7, day + 7) if 1 <= d <= 28]
    else:
        choices = [d for d in range(1, 29) if d != day and abs(d - day) <= 4]
    choices = [d for d in choices if all((d < o) == (day < o) and d != o for o in others)]
    return rng.choice(choices) if choices else None


def _days_of(month: str, values: Collection[str]) -> list[int]:
    """Days of ``month`` in dates such as "14 June" among ``values``."""
    days = []
    for v in values:
        m = re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?\s+" + re.escape(month), v.strip())
        if m:
            days.append(int(m.group(1)))
    return days


def _wrong_date(value: str, rng: random.Random, before: str, avoid: Collection[str]) -> str | None:
    low = value.lower()
    if low in _RELATIVE:
        other = _RELATIVE[low]
        return other.capitalize() if value[0].isupper() else other
    weekday_named = bool(re.search(r"\b(?:" + "|".join(WEEKDAYS) + r")\s*$", before))
    iso = re.match(r"(\d{4})-(\d{2})-(\d{2})$", value)
    if iso:
        others = [int(v[8:]) for v in avoid if re.fullmatch(rf"{iso.group(1)}-{iso.group(2)}-\d\d", v)]
        day = _wrong_day(int(iso.group(3)), rng, weekday_named, [o for o in others if o != int(iso.group(3))])
        return None if day is None else f"{iso.group(1)}-{iso.group(2)}-{day:02d}"
    m = re.search(r"(?<![\d/.-])(\d{1,2})(st|nd|rd|th)?\b", value)
    if not m or int(m.group(1)) > 31:
        return None
    month = re.search(r"[A-Z][a-z]+\.?$", value)
    others = [o for o in _days_of(month.group(), avoid) if o != int(m.group(1))] if month else []
    new = _wrong_day(int(m.group(1)), rng, weekday_named, others)
    if new is None:
        return None
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


def _wrong_place(value: str, rng: random.Random, avoid: Collection[str]) -> str | None:
    region, aliases = _regions()
    others = [
        p
        for p in region.get(value, ())
        if p not in aliases.get(value, ()) and not any(p in a or a in p for a in avoid)
    ]
    return rng.choice(others) if others else None


def category_of(value: str) -> list[str] | None:
    """The known category ``value`` belongs to (case-insensitive), or None."""
    for group in categories():
        if value.lower() in (g.lower() for g in group):
            return group
    return None


def wrong_value(
    value: str,
    kind: str,
    rng: random.Random,
    *,
    before: str = "",
    after: str = "",
    avoid: Collection[str] = (),
) -> str | None:
    """A plausible wrong value of the same type as ``value``, or None.

    ``before``/``after``: the prompt text around the value (a weekday before a date, the noun
    after a count); ``avoid``: values the prompt already states, never offered as wrong."""
    avoid_low = {a.lower() for a in avoid}
    if "@" in value or "://" in value:
        return None  # an email or URL: nobody mistypes a whole other address
    base = value.lower().rstrip("s")
    if base in (d.lower() for d in WEEKDAYS):
        plural = value.lower().endswith("days")
        others = [
            d
            for d in WEEKDAYS
            if d.lower() != base and d.lower() not in avoid_low and d.lower() + "s" not in avoid_low
        ]
        return same_case(value, rng.choice(others) + ("s" if plural else "")) if others else None
    if value in MONTHS:
        return rng.choice([m for m in MONTHS if m != value and m.lower() not in avoid_low])
    if place_kind(value):
        return _wrong_place(value, rng, avoid)
    group = category_of(value)
    if group is not None:
        others = [g for g in group if g.lower() != value.lower() and g.lower() not in avoid_low]
        if not others:
            return None
        other = rng.choice(others)
        return same_case(value, other) if value.islower() else other
    if kind == "time" or re.fullmatch(r"\d{1,2}(?::\d{2})?\s?(?:[AaPp]\.?[Mm]\.?)?", value):
        if re.fullmatch(r"\d{1,2}", value) and kind != "time":
            return _avoiding(lambda: wrong_count(value, rng, after, before=before), avoid_low)
        return _avoiding(lambda: _wrong_time(value, rng), avoid_low)
    if kind == "date":
        return _avoiding(lambda: _wrong_date(value, rng, before, avoid), avoid_low)
    if kind == "id":
        return _avoiding(lambda: _wrong_id(value, rng), avoid_low)
    if kind == "money" and rng.random() < 0.3:
        swapped = _wrong_currency(value, rng)
        if swapped and swapped.lower() not in avoid_low:
            return swapped
    if kind in ("money", "number", "slot"):
        found = _avoiding(
            lambda: wrong_count(value, rng, after, money=kind == "money", before=before), avoid_low
        )
        if found is None and re.fullmatch(r"\d{4,}", value.strip()) and not 1900 <= int(value) <= 2100:
            found = _avoiding(lambda: _wrong_id(value, rng), avoid_low)  # a zip or account number
        if found is None and kind == "slot":
            found = _wrong_relative(value)
            if found is None and not _KIN_RE.search(before):
                found = _wrong_name(value, rng, avoid_low)
        return found
    return None


_KIN_RE = re.compile(
    r"\b(?:wife|husband|partner|son|daughter|mum|mom|mother|dad|father|brother|sister|"
    r"boyfriend|girlfriend|fianc[ée]e?|grandma|grandmother|grandad|grandpa|grandfather|"
    r"child|kid|baby|aunt|uncle|niece|nephew|cousin)[\s,:]*$",
    re.I,
)
"""A family member named right before a name ("my wife Elena", "my mum, Maria"): nobody
misnames their own wife, so such a name is not corrected."""

_CURRENCY_SIGNS = "$£€"


def _wrong_currency(value: str, rng: random.Random) -> str | None:
    """The same amount in another currency sign ("€45" -> "$45")."""
    m = re.match(r"([$£€])", value)
    if not m:
        return None
    return rng.choice([c for c in _CURRENCY_SIGNS if c != m.group(1)]) + value[1:]


_RELATIVE_PHRASES = {
    "this week": "next week",
    "next week": "this week",
    "this weekend": "next weekend",
    "next weekend": "this weekend",
    "this month": "next month",
    "next month": "this month",
    "this morning": "this afternoon",
    "this afternoon": "this morning",
    "this evening": "tomorrow evening",
    "tonight": "tomorrow night",
    "last week": "the week before",
    "tomorrow morning": "tomorrow afternoon",
    "tomorrow afternoon": "tomorrow morning",
    "tomorrow evening": "tomorrow afternoon",
}


def _wrong_relative(value: str) -> str | None:
    """A relative date the other way ("next week" -> "this week"), keeping the case."""
    for phrase, other in _RELATIVE_PHRASES.items():
        m = re.search(rf"\b{phrase}\b", value, re.I)
        if m:
            new = match_first_case(m.group(), other)
            return value[: m.start()] + new + value[m.end() :]
    return None


def match_first_case(template: str, word: str) -> str:
    return word[:1].upper() + word[1:] if template[:1].isupper() else word


def _wrong_name(value: str, rng: random.Random, avoid_low: set[str]) -> str | None:
    """Another first name in place of a known first name ("Priya Nair" -> "Pooja Nair",
    "marco" -> "mario"): a name mixed up, the surname kept, from the same group of the
    shipped list (``data/names.json``: female, male, either). Only listed names count, so
    ordinary words are never treated as names."""
    groups: dict[str, list[str]] = load_data("names")["first_names"]
    m = re.search(r"(?<![\w'])([A-Za-z][a-z]+)(?![\w'])", value)
    if not m:
        return None
    first = m.group(1).lower()
    # a name from the same group (female, male, either): "Her name is Peter" would not do
    group = next((g for g in groups.values() if first in (n.lower() for n in g)), None)
    if group is None:
        return None
    pool = [n for n in group if n.lower() != first and n.lower() not in avoid_low]
    close = [n for n in pool if n[0].lower() == first[0]]
    other = rng.choice(close or pool)
    other = other.lower() if m.group(1).islower() else other
    return value[: m.start(1)] + other + value[m.end(1) :]


def _avoiding(make: Callable[[], str | None], avoid_low: set[str]) -> str | None:
    """The first of a few draws of ``make()`` that the prompt does not already state."""
    for _ in range(8):
        out = make()
        if out is None or out.lower() not in avoid_low:
            return out
    return None
