"""Plausible wrong values for ``self_correction``: same kind, same format, fits the sentence.

A wrong value is what a person might really have said first in that very sentence: a weekday
one or two days away of the same kind (a working day for a working day), a nearby date (a week
away when a weekday names the date; a day of the month stays 1-28), an hour or two away in the
same half of the day, another amount at the figure's own roundness in the same currency, a
digit slip of a figure that is not round, another count (never "1 nights": with a plural noun
the wrong count is two or more, and "1 passenger" becomes "2 passengers"), a year, an age or a
numbered name ("Gate 12") off by one, a relative date that fits the sentence's tense, an ID
with a slip that keeps its structure, a nearby city of the same country (Manchester -> Leeds,
not Honolulu or Bristol), a declared town's neighbour of comparable size from the GeoNames
gazetteer (``data/towns.json``: Stockport -> Salford), another very common street of the same
suffix (Bridge Street -> Church Street), the duration next to one of a single unit (a
fortnight -> a week), or another member of a known category (economy -> business).
It never repeats a value the prompt already states ("from Tuesday to
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
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_WORD_VALUE = {word: n for n, word in enumerate(NUMBER_WORDS)} | {
    word: n
    for n, word in [
        *enumerate("thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(), start=13),
        *zip(range(20, 100, 10), _TENS, strict=True),
    ]
}
"""A count written as a word -> its value: one to twelve, the teens and the tens ("fifteen
people" -> "sixteen people", "twenty chairs" -> "thirty chairs")."""
_VALUE_WORD = {n: word for word, n in _WORD_VALUE.items()}


def word_number(word: str) -> int | None:
    """The value of a spelled-out number word ("two" -> 2, "Twenty" -> 20), or None."""
    return _WORD_VALUE.get(word.strip().lower())


_NUMBER_WORD_RE = re.compile(r"\b(" + "|".join(w for w in _WORD_VALUE if w != "zero") + r")\b", re.I)
_COMPOUND_WORD_RE = re.compile(
    r"[-\s]+(?:one|two|three|four|five|six|seven|eight|nine|hundred|thousand|million|billion|grand)\b", re.I
)
"""What makes a number word part of a longer number ("twenty-five", "forty thousand", "three
hundred"): the word alone is not the count, so it is left alone."""
_IRREGULAR = {"child": "children", "person": "people", "man": "men", "woman": "women"}


def categories() -> list[list[str]]:
    """Closed sets of interchangeable values (``perturb/generate/data/categories.json``)."""
    groups: list[list[str]] = load_data("categories")["categories"]
    return groups


@functools.lru_cache(maxsize=1)
def _regions() -> tuple[dict[str, tuple[str, ...]], dict[str, frozenset[str]]]:
    """place -> the other places of its region, and place -> its aliases."""
    data = load_data("regions")
    region: dict[str, tuple[str, ...]] = {}
    for kind in ("city", "country", "town"):
        for names in data[kind].values():
            for name in names:
                region[name] = tuple(n for n in names if n != name)
    aliases: dict[str, frozenset[str]] = {}
    for group in data["aliases"]:
        for name in group:
            aliases[name] = frozenset(group) - {name}
    return region, aliases


def listed_place(value: str) -> str | None:
    """The grouped place (``data/regions.json``) ``value`` names, as listed: exactly, or in
    lower case when the value is typed all lower case ("camden" -> "Camden"); None otherwise."""
    region, _ = _regions()
    if value in region:
        return value
    if value.islower():
        return next((name for name in region if name.lower() == value), None)
    return None


@functools.lru_cache(maxsize=1)
def _towns() -> tuple[dict[str, tuple[str, ...]], frozenset[str]]:
    """town -> its plausible mix-ups, and the towns named by a common English word, from
    ``data/towns.json`` (GeoNames, CC BY 4.0; built by ``benchmarks/build_towns.py``)."""
    data = load_data("towns")
    table = {name: tuple(near) for country in data["towns"].values() for name, near in country.items()}
    return table, frozenset(data["common"])


def gazetteer_town(value: str) -> str | None:
    """The town of ``data/towns.json`` that ``value`` names: exactly, or in lower case when the
    value is typed all lower case ("stockport" -> "Stockport"); None otherwise."""
    table, _ = _towns()
    if value in table:
        return value
    if value.islower():
        titled = " ".join(w.capitalize() for w in value.split(" "))
        return titled if titled in table else None
    return None


def common_word_town(name: str) -> bool:
    """A town whose name is also a common English word ("Reading", "Bath"): never read as a
    town unless a task declares it as a place."""
    return name in _towns()[1]


def _wrong_town(value: str, rng: random.Random, avoid: Collection[str]) -> str | None:
    """A town of the same country a short trip away and of comparable size ("Stockport" ->
    "Salford"), in the value's case; None for a town with no mix-up."""
    town = gazetteer_town(value)
    if town is None:
        return None
    avoid_low = {a.lower() for a in avoid}
    others = [t for t in _towns()[0][town] if t.lower() not in avoid_low]
    return same_case(value, rng.choice(others)) if others else None


_STREET_SUFFIXES = "Street|Road|Lane|Avenue|Close|Drive|Way|Crescent|Grove|Place|St|Rd|Ln|Ave|Dr"
_STREET_NAME_RE = re.compile(rf"((?:[A-Z][a-z]+\s+){{1,2}})({_STREET_SUFFIXES})(\.?)")
"""A street named as "<Name> <Suffix>" ("Bridge Street", "Upper Mill Lane", "Bridge St.")."""
_SUFFIX_ABBREVIATIONS = {"St": "Street", "Rd": "Road", "Ln": "Lane", "Ave": "Avenue", "Dr": "Drive"}
"""A suffix typed short: the wrong street keeps the short form ("Bridge St" -> "Church St")."""


def street_name(value: str) -> bool:
    """Whether ``value`` is a street named as "<Name> <Suffix>", nothing else."""
    return _STREET_NAME_RE.fullmatch(value) is not None


def _wrong_street(value: str, rng: random.Random, avoid_low: set[str]) -> str | None:
    """Another very common street name of the same suffix ("Bridge Street" -> "Church
    Street", ``data/streets.json``), in lower case when the value is typed so ("king street"
    -> "mill street"); a house number, when the slot has one, is corrected through the
    number instead."""
    titled = " ".join(w.capitalize() for w in value.split(" ")) if value.islower() else value
    m = _STREET_NAME_RE.fullmatch(titled)
    if not m:
        return None
    suffix = m.group(2) + m.group(3)
    names: list[str] = load_data("streets")["streets"][_SUFFIX_ABBREVIATIONS.get(m.group(2), m.group(2))]
    own = m.group(1).strip()
    others = [f"{n} {suffix}" for n in names if n != own and f"{n} {suffix}".lower() not in avoid_low]
    return same_case(value, rng.choice(others)) if others else None


_DURATIONS = {
    "an hour": "half an hour",
    "a night": "two nights",
    "a day": "two days",
    "a week": "a fortnight",
    "a fortnight": "a week",
    "a month": "six weeks",
    "a year": "two years",
}
"""A duration said as one unit and the one next to it a person might say first ("for a
fortnight" -> "for a week, no, a fortnight")."""
_DURATION_BEFORE_RE = re.compile(
    r"\b(?:for|in|within|about|around|over|nearly|almost|roughly|another|takes?|took|lasts?|lasted)\s+$",
    re.I,
)
"""What comes before a stretch of time (never "twice a week" or "£40 a month": a rate; nor
"after a year" or "longer than a week": a threshold, often a firm's rule the user asks about)."""


_NEGATED_RE = re.compile(r"\b(?:not|never|no\s+longer)\b|n['’]t\b", re.I)
"""A negation in the clause before a duration ("Please do not hold the room for a week"):
the stretch is one the user does not want, and a correction inside it ("do not hold it for
a fortnight, no, a week") leaves unclear which one is refused."""


def _wrong_duration(value: str, before: str) -> str | None:
    """The duration next to a declared one ("a fortnight" -> "a week", "a month" -> "six
    weeks"), when the words before it make it a stretch of time, not a rate, and no negation
    in its clause (:data:`_NEGATED_RE`); in the value's case ("A WEEK" -> "A FORTNIGHT")."""
    other = _DURATIONS.get(value.lower())
    near = before[-_NEAR:]
    if other is None or not _DURATION_BEFORE_RE.search(near):
        return None
    if _NEGATED_RE.search(re.split(r"[.,;:!?—–]", near)[-1]):
        return None
    return same_case(value, match_first_case(value, other))


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


_NOT_NOUNS = frozenset(
    (
        "and or but to till until the a an of for from in on at by with than then nor "
        "is was has this plus its his us yes"
    ).split()
)
"""Words after a number that are not what it counts ("between 1 and 3 pm": never "2 ands")."""


_INVARIANT = frozenset("series species means news".split())
"""Nouns ending in -s whose plural is the same word: "one series" is never "two serieses"."""


def _countable(noun: str) -> bool:
    """A noun that takes a plural -s: not a unit abbreviation, not an acronym, not a
    function word."""
    low = noun.lower()
    return (
        len(noun) >= 3
        and low not in _UNITS
        and low not in _NOT_NOUNS
        and low not in _CALENDAR_NAMES
        and not noun.isupper()
    )


_CALENDAR_NAMES = frozenset(n.lower() for n in MONTHS + WEEKDAYS)
"""Month and weekday names: never a counted noun ("from 1 august" names a day of a month, so
its slip is "2 august", never "2 augusts")."""


def _noun_after(text: str) -> str:
    m = re.match(r"\s+([A-Za-z]+)", text)
    return m.group(1) if m else ""


def _round_step(n: int, year: bool = False) -> int:
    """How round a figure a person chose is: the largest step of 1, 2 or 5 times a power of
    ten that divides it at least twice over (450,000 -> 50,000, 2,400 -> 200, 1,100 -> 100,
    90 -> 10, 45 -> 5); 0 for a figure that is not round (312, 7) or a year."""
    if n < 20 or year:  # "a size 10", "for 10 people": a small count, not a round figure
        return 0
    best = 0
    power = 1
    while power <= n:
        for unit in (1, 2, 5):
            step = unit * power
            if step >= 5 and n % step == 0 and n >= 2 * step:
                best = max(best, step)
        power *= 10
    return best


def _digit_slips(n: int) -> list[int]:
    """A figure that is not round, misremembered the way people do: two neighbouring digits
    swapped (312 -> 321) or one digit after the first off by one (312 -> 322, 302); the first
    digit stays, so the size stays."""
    digits = str(n)
    out: set[int] = set()
    for i in range(1, len(digits) - 1):
        if digits[i] != digits[i + 1]:
            out.add(int(digits[:i] + digits[i + 1] + digits[i] + digits[i + 2 :]))
    for i in range(1, len(digits)):
        for d in (int(digits[i]) - 1, int(digits[i]) + 1):
            if 0 <= d <= 9:
                out.add(int(digits[:i] + str(d) + digits[i + 1 :]))
    out.discard(n)
    return sorted(c for c in out if _round_step(c) == 0)


def _count_choices(n: int, counted: bool, year: bool = False) -> list[int]:
    if year:  # a year is misremembered by one
        return [n - 1, n + 1]
    rounded = _round_step(n)
    if rounded:  # a chosen round figure ($90, 45 seconds, volume 30) is misremembered as another
        near = [n + k * rounded for k in (-2, -1, 1, 2)]
        return [c for c in near if c >= rounded and n / 2 <= c <= n * 2]
    if n >= 20:
        return _digit_slips(n)
    low = 2 if counted else 1
    return [n + k for k in (-2, -1, 1, 2) if n + k >= low]


_NEAR = 120
"""How much of the text before a value its checks look at (a few words; keeps them linear)."""
_PRONOUN_ONE_RE = re.compile(
    r"\b(?:the|this|that|which|another|each|every|any|no)\s+(?:[a-z]+\s+)?$|\b(?:a|an)\s+[\w'’-]+\s+$", re.I
)
"""What comes before "one" used as a pronoun ("the old one", "this one", "a new one", "a 90cm
one": an article and one modifier, a measurement too)."""
_GLUED_UNIT = r"(?:cm|mm|km|kg|ml|m|ft|in|[kK][wW]h?)"
"""A unit of measurement as typed onto a number; :data:`_GLUED_UNIT_RE` and
:data:`_DECIMAL_MEASURE_RE` share it."""
_GLUED_UNIT_RE = re.compile(_GLUED_UNIT + r"(?![\w])")
"""A unit typed onto its number ("90cm", "2.4m", "25kg", "6ft", "4kW"): a measurement, misstated as
another of the same unit ("a 90cm one" -> "an 80cm, no, a 90cm one"); any other letters glued
to a number make a name ("4B", "5G", "401k")."""
_DECIMAL_MEASURE_RE = re.compile(
    r"(?<![\d.])(\d+)\.([1-46-9])(?=" + _GLUED_UNIT + r"(?!\w)|\s+(?:cm|mm|km|kg|ml|m|metres?|meters?|"
    r"litres?|liters?|kilos?|kg|miles?|feet|ft|inches|kw|kwh)\b)"
)
"""A measurement with one decimal before its unit ("2.4m", "1.7 litres"): misstated in its
tenths ("2.3m", "2.6m"), never in its whole part ("1.4m" is another size). A half ("12.5 kg")
is a round size, left to the count rules ("13.5 kg")."""
_LABEL_RE = re.compile(r"(?<=[\w,] )([A-Z][a-z]+)\s+$")
"""A capitalised word inside a sentence right before a number that the number names
("Heathrow Terminal 5", "in Year 4", "to Room 12"; not a verb opening it: "Book 2 tickets")."""


def is_year(digits: str) -> bool:
    """Whether ``digits`` (a run of digits, spaces around it allowed) is a year from 1900 to
    2100. Its length is checked before ``int()``, which refuses a run of over 4,300 digits."""
    digits = digits.strip()
    return len(digits.lstrip("0")) == 4 and 1900 <= int(digits) <= 2100


_LONG_FIGURE_RE = re.compile(r"\d(?:,?\d){18}")
"""A figure of more than 18 digits (commas allowed): no count, amount or version anyone says."""


def wrong_count(
    value: str, rng: random.Random, after: str = "", money: bool = False, before: str = ""
) -> str | None:
    """Another count or amount in the first number of ``value`` (digits, same format, or a
    number word), agreeing with the noun it counts: "1 passenger" -> "2 passengers", but a
    number used as an adjective keeps its noun ("a 10 minute trip" -> "a 20 minute trip",
    "a two bedroom flat" -> "a three bedroom flat"). A round figure becomes another round
    figure ("$90" -> "$80"); a terminal number moves down ("Terminal 5" -> "Terminal 4")."""
    before = before[-_NEAR:]  # only the words next to the value matter: linear in the prompt
    if _LONG_FIGURE_RE.search(value):
        return None  # "9999…" of thousands of digits: noise, and too long for int()
    m = re.search(r"\d{1,3}(?:,\d{3})+|\d+", value)
    word = None if m else _NUMBER_WORD_RE.search(value)
    if not m and not word:
        return None
    match = m or word
    assert match is not None
    tail = value[match.end() :]
    ordinal = re.match(r"(?:st|nd|rd|th)\b", tail)
    measure = m is not None and _GLUED_UNIT_RE.match(tail) is not None
    if (
        m
        and not ordinal
        and not measure
        and (re.match(r"[A-Za-z]", tail) or re.search(r"[A-Za-z]$", value[: match.start()]))
    ):
        return None  # glued to letters ("401k", "4B", "A320"): a name, not a count
    if m and not money and "," not in m.group() and len(m.group()) >= 4 and not is_year(m.group()):
        return None  # a long bare number is a code (zip, account), not a count
    if word and (
        _COMPOUND_WORD_RE.match(tail or after)
        or re.search(r"\b(?:hundred|thousand)\s+(?:and\s+)?$|-$", before + value[: match.start()], re.I)
    ):
        return None  # "twenty-five", "forty thousand", "a hundred and twenty": part of a number
    if word and match.group().lower() == "one" and _PRONOUN_ONE_RE.search(before + value[: match.start()]):
        return None  # "the old one stopped working": a pronoun, not a count
    if word and match.group().lower() == "one" and re.match(r"\s+of\b", tail or after, re.I):
        return None  # "one of the legs", "one of my back teeth": picks one out, counts nothing
    if not money and _inside_name(before + value[: match.start()], tail or after):
        return None  # "the Euro Stoxx 50 ETF", "the FTSE 100 index": part of a name
    tenths = None if money else _DECIMAL_MEASURE_RE.search(value + after[:12])
    if tenths and tenths.end() <= len(value):
        digit = int(tenths.group(2))
        tenth_choices = [digit + k for k in (-2, -1, 1, 2) if 1 <= digit + k <= 9]
        slipped = f"{tenths.group(1)}.{rng.choice(tenth_choices)}"
        return value[: tenths.start()] + slipped + value[tenths.end() :]
    version = re.search(r"(?<![\d.])(\d+)\.(\d+)(?![\d.])", value)
    if version and not money and re.search(r"[A-Z][A-Za-z]*\s+$", before + value[: version.start()]):
        # "Python 3.12", "iOS 17.2": a version is misremembered in its last part only
        last = version.group(2)
        parts = [int(last) + k for k in (-1, 1) if int(last) + k >= 0]
        slipped = f"{version.group(1)}.{str(rng.choice(parts)).zfill(len(last))}"
        return value[: version.start()] + slipped + value[version.end() :]
    inside = _noun_after(value[match.end() :])
    inside = "" if inside.lower() in _NOT_NOUNS else inside  # "1 and 3 pm" counts nothing
    noun = inside or ("" if value[match.end() :].strip() else _noun_after(after))
    counted = bool(noun) and not money
    if m:
        digits = m.group()
        n = int(digits.replace(",", ""))
    else:
        n = _WORD_VALUE[match.group().lower()]
    year = m is not None and not money and re.fullmatch(r"\d{4}", m.group()) is not None and 1900 <= n <= 2100
    choices = _count_choices(n, counted, year)
    if (
        ordinal
        and m
        and n % 10 == 0
        and _MILESTONE_RE.search(before + value[: match.start()], tail[2:] or after)
    ):
        return None  # "my mum's 70th", "our 40th anniversary": nobody misstates a milestone
    if not inside and not money and n <= 12 and _CLOCK_RE.search(before + value[: match.start()]):
        # "at 12", "between 12 and 2": an hour on a 12-hour clock stays on it (never "at 14")
        choices = [c for c in choices if 1 <= c <= 12]
    if ordinal and m:
        # an ordinal: a day of the month ("the 25th" -> "the 24th", never "the 35th") or a
        # floor, a place in a queue: the one next to it
        weekday = re.search(r"\b(?:" + "|".join(WEEKDAYS) + r")\s*$", before + value[: match.start()])
        day = bool(weekday) or not _noun_after(tail[ordinal.end() :] or after)
        near = (-2, -1, 1, 2) if day else (-1, 1)
        if weekday:
            near = (-7, 7)  # "Sunday 14th" is never "Sunday 13th": a week away keeps the weekday true
        choices = [n + k for k in near if 1 <= n + k <= (28 if day else 99)]
    label = _LABEL_RE.search(before + value[: match.start()])
    if label and not ordinal and not money:
        # a number that names something ("Terminal 5", "Year 4", "Gate 12") is mixed up with
        # the one next to it; a terminal with a lower number exists
        terminal = label.group(1).lower() == "terminal"
        choices = [c for c in (n - 1, n + 1) if c >= 1 and not (terminal and c > n)]
    if re.match(r"\s*-?\s*years?[\s-]+old\b", tail or after, re.I):
        choices = [c for c in (n - 1, n + 1) if c >= 1]  # an age is misstated by one year
    if m and not ordinal and not label and 5 <= n < 20 and n % 5 == 0 and (money or noun.lower() in _UNITS):
        # "$15", "10 GB", "10 mg": a round amount is misremembered as the next round one
        choices = [c for c in (n - 5, n + 5) if c > 0]
    if m and not ordinal and n % 24 == 0 and re.fullmatch(r"(?:hours?|hrs?)", noun, re.I):
        # "24 hours", "48 hours": whole days, misremembered as another number of days
        choices = [c for c in (n - 24, n + 24) if c > 0]
    if (
        m
        and not ordinal
        and 10 <= n < 100
        and n % 2 == 0
        and _EVEN_SIZE_RE.search(before + value[: match.start()], tail)
    ):
        # a clothing size ("a size 12") or a round pack glued to its noun ("a 10-visit card",
        # "a 12-string guitar"): such sizes come in even steps, so never "size 11", "11-visit";
        # a size of three digits is a model number ("size 312 batteries"), left to digit slips
        choices = [c for c in choices if c % 2 == 0]
    if measure:
        # "a 40mm screw" is misremembered as a near size ("a 30mm"), never double or a third
        choices = [c for c in choices if abs(c - n) * 2 <= n]
    if _ONLY_RE.search(before + value[: match.start()]):
        # "ordered 2 armchairs, only 1 turned up": "only" says fewer than expected, so the
        # wrong count is fewer still (none below 1: then no wrong count)
        choices = [c for c in choices if 1 <= c < n]
    if m and _round_step(n):  # the same size: "€950" is not misremembered as "€1050"
        choices = [c for c in choices if len(str(c)) == len(str(n))]
    if word:
        choices = [c for c in choices if c in _VALUE_WORD]
    # a range inside the value stays a range: "between 2 and 4 pm" is never "between 4 and 4 pm"
    bounds = [int(x) for x in re.findall(r"(?<![\d,])\d{1,3}(?![\d,])", value[: match.start()] + " " + tail)]
    # ... and so does a range the value opens or closes ("between 6 and 7pm": never "between 8")
    joined = re.match(r"\s*(?:and|to|till|until|-|–)\s*(\d{1,3})(?![\d,])", tail or after)
    opened = re.search(
        r"(?<![\d,])(\d{1,3})\s*(?:[ap]\.?m\.?)?\s*(?:and|to|till|until|-|–)\s*$",
        before + value[: match.start()],
    )
    for found in (joined, opened):
        if found is not None:
            bounds.append(int(found.group(1)))
    choices = [c for c in choices if all(c != b and (c < b) == (n < b) for b in bounds)]
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
        text = _VALUE_WORD[new]
        text = text.capitalize() if match.group()[0].isupper() else text
    if ordinal:
        text += "th" if 10 <= int(text) % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(int(text) % 10, "th")
        tail = tail[ordinal.end() :]
    out = value[: match.start()] + text + tail
    if n == 1 and inside and _countable(inside) and _is_plural(inside):
        # after "one" a noun is singular: "one canvas", "one lens" take "-es" ("two
        # canvases"); any other plural-looking word ("one kids meal", "one series") is not
        # changed with a count the sentence cannot agree with
        if not re.search(r"(?:[aiu]s|ns)$", inside.lower()) or inside.lower() in _INVARIANT:
            return None
        at = match.start() + len(text) + value[match.end() :].index(inside)
        return out[:at] + inside + "es" + out[at + len(inside) :]
    if n == 1 and inside and not _is_plural(inside) and _countable(inside):  # "1 passenger" -> "2 passengers"
        at = match.start() + len(text) + value[match.end() :].index(inside)
        out = out[:at] + _pluralise(inside) + out[at + len(inside) :]
    return out


class _EvenSize:
    """A number that names a size made in even steps: after "size" ("a size 12 dress") or
    glued to its noun by a hyphen as a round pack ("a 10-visit punch card")."""

    _SIZE = re.compile(r"\bsize\s+$", re.I)
    _GLUED = re.compile(r"-[A-Za-z]")

    def search(self, before: str, tail: str) -> bool:
        return bool(self._SIZE.search(before) or self._GLUED.match(tail))


_EVEN_SIZE_RE = _EvenSize()


class _Milestone:
    """An ordinal that names a birthday or an anniversary: after a possessive ("my mum's
    70th") or before the word ("40th anniversary")."""

    _OWNER = re.compile(r"['’]s\s+$")
    _EVENT = re.compile(r"\s*(?:birthday|anniversary|jubilee)\b", re.I)

    def search(self, before: str, after: str) -> bool:
        return bool(self._OWNER.search(before) or self._EVENT.match(after))


_MILESTONE_RE = _Milestone()

_CLOCK_RE = re.compile(r"\b(?:at|between|from|by|until|till|before|after)\s+$", re.I)
"""Words before a bare number that make it an hour of the clock ("here at 12")."""

_ONLY_RE = re.compile(r"\bonly\s+(?:got\s+|received\s+|have\s+|had\s+)?$", re.I)


def _inside_name(before: str, after: str) -> bool:
    """A number between two capitalised words is part of a name ("the Euro Stoxx 50 ETF",
    "Windows 11 Pro"): nobody misstates the number of a fund or a product they name."""
    word = re.match(r"\s+([A-Z]{2,}|[A-Z][a-z]+)\b", after)
    return (
        word is not None
        and word.group(1).lower() not in _UNITS
        and re.search(r"(?<=[\w,] )[A-Z][A-Za-z&]*\s+$", before) is not None
    )


def _wrong_time(value: str, rng: random.Random, others: Collection[str] = ()) -> str | None:
    """An hour or two earlier or later, in the same half of the day ("9am" -> "10am", never
    "12am" for "11am" nor "1pm" for "11am"; a bare hour up to 12 stays on the 12-hour clock),
    on the same side of every other time stated in the sentence (a range stays a range:
    "between 9 and 11")."""
    m = re.match(r"(\d{1,2})(.*)$", value)
    if not m:
        return None
    hour = int(m.group(1))
    twelve = bool(re.search(r"[AaPp]\.?[Mm]", value))
    if twelve and hour == 12:  # noon is mixed up with one or two; midnight is not misstated
        choices = [] if "a" in m.group(2).lower() else [1, 2]
    elif twelve:
        choices = [h for h in range(1, 12) if h != hour and abs(h - hour) <= 2]
    elif hour <= 12 and not re.match(r"\s*[:.h]\d", m.group(2)):
        # a bare hour ("here at 12", "between 12 and 2") is on a 12-hour clock: never "at 14"
        choices = [h for h in range(1, 13) if h != hour and abs(h - hour) <= 2]
    else:
        choices = [h for h in range(0, 24) if h != hour and abs(h - hour) <= 2]
    hours = []
    for other in others:
        o = re.match(r"(\d{1,2})", other)
        if o and other != value and int(o.group(1)) <= 23:
            hours.append(int(o.group(1)))
    choices = [h for h in choices if all((h < o) == (hour < o) and h != o for o in hours)]
    if not choices:
        return None
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


def _wrong_date(
    value: str, rng: random.Random, before: str, avoid: Collection[str], after: str = ""
) -> str | None:
    low = value.lower()
    if low in _RELATIVE:
        when = tense(before, after)
        if when == "present":  # "how's my portfolio doing today" -> "... this week", never "tomorrow"
            other = _NOW.get(low)
            if other is None:
                return None
            return other.capitalize() if value[0].isupper() else other
        other = _RELATIVE[low][0 if when == "future" else 1]
        if other is None:
            return None
        return other.capitalize() if value[0].isupper() else other
    weekday_named = bool(re.search(r"\b(?:" + "|".join(WEEKDAYS) + r")\s*$", before)) or bool(
        re.match(r"(?:" + "|".join(WEEKDAYS) + r")\b", value)
    )  # "Saturday 22nd" is never "Saturday 21st"
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
    if month:  # "from 12 to 15 August": a bare day before it belongs to the same month
        others += [int(v) for v in avoid if re.fullmatch(r"\d{1,2}", v.strip()) and 1 <= int(v) <= 31]
        others = [o for o in others if o != int(m.group(1))]
    new = _wrong_day(int(m.group(1)), rng, weekday_named, others)
    if new is None:
        return None
    suffix = ""
    if m.group(2):
        suffix = "th" if 10 <= new % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(new % 10, "th")
    return value[: m.start()] + str(new) + suffix + value[m.end() :]


def _wrong_id(value: str, rng: random.Random) -> str | None:
    """A code typed or read wrong: in a long run of digits (an order or account number) two
    neighbouring digits swapped or one digit after the first changed; a short run inside a
    code of letters ("KX19 ABD", "Year 4B") carries meaning (a year, a batch), so its last
    digit moves by one ("KX18 ABD", never "KX99 ABD"). A "0x" prefix is kept."""
    body = 2 if value.lower().startswith("0x") else 0
    runs = [(m.start() + body, m.end() + body) for m in re.finditer(r"\d+", value[body:])]
    if not runs:
        return None
    start, end = max(runs, key=lambda r: r[1] - r[0])
    chars = list(value)
    if end - start <= 2:
        d = int(chars[end - 1])
        lowest = 1 if end - start == 1 else 0  # "NW1" is never "NW0"
        near = [x for x in (d - 1, d + 1) if lowest <= x <= 9]
        if not near:
            return None
        chars[end - 1] = str(rng.choice(near))
        return "".join(chars)
    pairs = [(a, a + 1) for a in range(start + 1, end - 1) if chars[a] != chars[a + 1]]
    if pairs and rng.random() < 0.5:
        a, b = rng.choice(pairs)
        chars[a], chars[b] = chars[b], chars[a]
    else:
        i = rng.randrange(start + 1, end)
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
        if any(_same_entry(value, g) for g in group):
            return group
    return None


def _same_entry(value: str, entry: str) -> bool:
    """``value`` is the category entry ``entry``: case-insensitive, except that a short code in
    letters in capitals ("OAK", "SFO") is only ever matched in capitals ("an oak frame" is no
    airport); one with a digit ("PS5") is matched in any case ("my ps5")."""
    if entry.isalpha() and entry.isupper() and len(entry) <= 4:
        return value == entry
    return value.lower() == entry.lower()


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
        others = _other_weekdays(WEEKDAYS[[d.lower() for d in WEEKDAYS].index(base)], before, after)
        others = [d for d in others if d.lower() not in avoid_low and d.lower() + "s" not in avoid_low]
        return same_case(value, rng.choice(others) + ("s" if plural else "")) if others else None
    if value in MONTHS:
        i = MONTHS.index(value)
        near = [MONTHS[(i + k) % 12] for k in (-1, 1)]  # the month next to it
        near = [m for m in near if m.lower() not in avoid_low]
        return rng.choice(near) if near else None
    place = value if place_kind(value) else listed_place(value)
    if place is not None:
        wrong_place = _wrong_place(place, rng, avoid)
        if wrong_place is None and kind == "place" and not common_word_town(place):
            return _wrong_town(value, rng, avoid)  # a listed city alone in its region
        return None if wrong_place is None else same_case(value, wrong_place)
    if kind == "place" and gazetteer_town(value):
        return _wrong_town(value, rng, avoid)  # a declared town ("Stockport", "stockport")
    group = category_of(value)
    if group is not None:
        others = [g for g in group if g.lower() != value.lower() and g.lower() not in avoid_low]
        if not others:
            return None
        other = rng.choice(others)
        return same_case(value, other) if value.islower() else other
    if _part_of_longer_number(value, before, after):
        return None
    span = re.fullmatch(r"(\d{4})([/-])(\d{2})", value.strip())
    if span and 1900 <= int(span.group(1)) <= 2100 and (int(span.group(1)) + 1) % 100 == int(span.group(3)):
        # a tax or school year ("2025/26") is misremembered as the year next to it, both halves
        start = int(span.group(1)) + rng.choice((-1, 1))
        return f"{start}{span.group(2)}{(start + 1) % 100:02d}"
    if kind == "time" or re.fullmatch(r"\d{1,2}(?::\d{2})?\s?(?:[AaPp]\.?[Mm]\.?)?", value):
        if re.fullmatch(r"\d{1,2}", value) and kind != "time":
            return _avoiding(lambda: wrong_count(value, rng, after, before=before), avoid_low)
        return _avoiding(lambda: _wrong_time(value, rng, avoid), avoid_low)
    if kind == "date":
        return _avoiding(lambda: _wrong_date(value, rng, before, avoid, after), avoid_low)
    if kind == "id":
        return _avoiding(lambda: _wrong_id(value, rng), avoid_low)
    located = _PLACE_CODE_RE.search(before[-_NEAR:])
    if kind == "slot" and located and re.fullmatch(r"[A-Z]{1,2}\d{1,2}", value):
        # "zone C4" -> "zone C3": a short code that locates something, read or typed wrong
        return _avoiding(lambda: _wrong_id(value, rng), avoid_low)
    if kind in ("money", "number", "slot"):
        found = _avoiding(
            lambda: wrong_count(value, rng, after, money=kind == "money", before=before), avoid_low
        )
        if found is None and re.fullmatch(r"\d{4,}", value.strip()) and not is_year(value):
            found = _avoiding(lambda: _wrong_id(value, rng), avoid_low)  # a zip or account number
        if found is None and kind == "slot":
            found = _wrong_relative(value, tense(before, after)) or _wrong_ordinal(value, rng)
            found = found or _wrong_half_hour(value) or _wrong_duration(value, before)
            found = found or _wrong_street(value, rng, avoid_low)
            if found is None and not _KIN_RE.search(before):
                found = _wrong_name(value, rng, avoid_low)
        return found
    return None


def fixed_value(value: str, before: str = "", after: str = "") -> bool:
    """``value`` is one nobody misstates whatever is inside it (a whole day or year, "open 24
    hours"; a quantity naming a scheme, "the 30 hours funding code"): a value detected inside
    it is not corrected either."""
    return _part_of_longer_number(value, before, after)


_PLACE_CODE_RE = re.compile(
    r"\b(?:zone|seat|gate|row|bay|platform|stand|block|unit|room|pitch|plot|locker|space|stall|cabin|"
    r"desk|level|floor|section|area|hall|court|pod|box)\s+$",
    re.I,
)
"""A noun that a short letter-and-digit code after it locates ("zone C4", "seat 14B", "bay D2")."""


def _part_of_longer_number(value: str, before: str, after: str) -> bool:
    """``value`` is one part of a written-out span or number: the year of a tax year
    ("2025/26": the two halves move together or not at all) or a group of a phone number
    spaced out ("07700 900123": the prefix is never misstated)."""
    before = before[-_NEAR:]
    if re.match(r"-[A-Za-z]", after):
        return True  # "his 12-month vaccinations": the number is part of an adjective
    if value.strip() == "24" and re.match(r"\s*(?:-\s*)?(?:hours?\b|/\s*7)", after, re.I):
        return True  # "open 24 hours", "24/7": the whole day, not a figure
    whole = _WHOLE_UNIT_RE.match(value.strip() + (after if re.fullmatch(r"\d+", value.strip()) else ""))
    if whole and (whole.end() >= len(value.strip()) or _WHOLE_UNIT_RE.fullmatch(value.strip())):
        return True  # "for another 12 months", "open 24 hours": a whole year or day
    if (
        re.search(r"\bthe\s+$", before)
        and re.fullmatch(r"\d+\s+[a-z]+s", value.strip())
        and re.match(
            r"\s+(?!(?:of|for|to|in|on|at|from|and|or|ago|left|later|before|after|notice|each|per|a|an|the)\b)[a-z]{3,}\b",
            after,
        )
    ):
        return True  # "the 30 hours funding code": a quantity that names a scheme, not a count
    if not re.fullmatch(r"\d+", value.strip()):
        return False
    year = len(value) == 4 and is_year(value)
    return bool(
        (year and re.match(r"[/-]\d\d(?!\d)", after))
        or (len(value) == 2 and re.search(r"(?<!\d)\d{4}[/-]$", before))
        or (value.startswith("0") and re.match(r" \d{3}", after))
    )


_WHOLE_UNIT_RE = re.compile(
    r"(?:24\s*(?:hours?|hrs?)|7\s*days|12\s*months|52\s*weeks|365\s*days|60\s*(?:minutes|mins))\b", re.I
)
"""A duration that is one whole larger unit ("open 24 hours", "for another 12 months"): a
day, a week or a year, never misstated as 23 hours or 14 months."""


_KIN_RE = re.compile(
    r"(?:\b(?:wife|husband|partner|son|daughter|mum|mom|mother|dad|father|brother|sister|"
    r"boyfriend|girlfriend|fianc[ée]e?|grandma|grandmother|grandad|grandpa|grandfather|"
    r"child|kid|baby|aunt|uncle|niece|nephew|cousin|friend|mate|colleague|flatmate|roommate|"
    r"housemate|neighbour|neighbor|boss|manager|dog|cat|puppy|kitten|pet)[\s,:]*"
    r"|\bname\s+is\s+|\b(?:named|called|I['’]m|I\s+am|this\s+is)\s+)$",
    re.I,
)
"""A name given by someone who knows it well: a family member, friend or pet named right
before it ("my wife Elena", "my mum, Maria", "a friend ... Her name is Priya") or the user's
own ("My name is Tom", "I'm Tom"). Nobody misnames their own wife or friend, so such a name is
not corrected; a name the user met once (a driver, a stylist) may be."""

_RELATIVE_PHRASES: dict[str, tuple[str | None, str | None]] = {
    # phrase: (wrong value in a sentence about what is to come, in one about what happened)
    "this week": ("next week", "last week"),
    "next week": ("this week", None),
    "this weekend": ("next weekend", "last weekend"),
    "next weekend": ("this weekend", None),
    "this month": ("next month", "last month"),
    "next month": ("this month", None),
    "this morning": ("this afternoon", "this afternoon"),
    "this afternoon": ("this morning", "this morning"),
    "this evening": ("tomorrow evening", "this afternoon"),
    "tonight": ("tomorrow night", None),
    "last week": ("earlier this week", "earlier this week"),
    "last month": ("earlier this month", "earlier this month"),
    "tomorrow morning": ("tomorrow afternoon", None),
    "tomorrow afternoon": ("tomorrow morning", None),
    "tomorrow evening": ("tomorrow afternoon", None),
    "end of the month": ("end of next month", "end of last month"),
    "end of the week": ("end of next week", "end of last week"),
    "end of the year": ("end of next year", "end of last year"),
}
"""A relative date and the one a person might say instead, by the tense of its sentence: a
stolen phone was never stolen "tomorrow", a booking is never made for "last week"; "last week"
is never "the week before" (before what?)."""

_NOW = {"today": "this week"}
"""A relative date in a sentence about what is going on now, and the wider one a person might
say first ("how's my portfolio doing this week, no, today")."""

_RELATIVE = {
    "today": ("tomorrow", "yesterday"),
    "tomorrow": ("today", None),
    "tonight": ("tomorrow", None),
    "yesterday": ("today", "today"),
}

_PAST_RE = re.compile(
    r"\b(?:was|were|did|didn['’]?t|had|hadn['’]?t|went|left|lost|paid|bought|(?<!['’]s )(?<!has )"
    r"(?<!have )(?<!['’]ve )(?<!\bhes )(?<!\bive )got|came|sent|made|"
    r"took|told|said|broke|stole|saw|gave|forgot|missed|\w{3,}ed)\b",
    re.I,
)
_FUTURE_RE = re.compile(
    r"\b(?:will|['’]ll|won['’]?t|shall|going to|gonna|want|wanna|need|needs|would|['’]d like|can|could|"
    r"please|book|move|schedule|reserve|plan|planning|next|tomorrow|coming)\b",
    re.I,
)
_PRESENT_RE = re.compile(
    r"\bhow(?:['’]s|\s+is|\s+are)\s[^.?!]{0,40}\b\w{2,}ing\b|\b(?:right\s+now|currently)\b", re.I
)
"""A sentence about what is going on now ("how's my portfolio doing today"): "today" there is
never "tomorrow"."""


_DONE_JUST_BEFORE_RE = re.compile(
    r"\b(?:i|we|he|she|they)\s+(?:just\s+|already\s+)?"
    r"(?!(?:wanted|hoped|needed|planned|intended|expected|scheduled|arranged)\b)"
    r"(?:was|were|did|had|went|left|lost|paid|bought|got|came|sent|made|took|broke|saw|gave|\w{3,}ed)"
    r"(?:\s+(?!(?:for|by|until|till|to|on|at|in)\b)[\w'’]+){0,2}\s*$",
    re.I,
)
"""A value right after a person's past verb ("the cake we picked up today"): the sentence
is about what happened there, whatever a later clause asks for ("... can you make another
one"), so "today" is never "tomorrow"; a verb with a preposition pointing ahead ("we paid
for tomorrow") or one of wanting or planning ("I wanted it today") says nothing."""


def sentence_around(before: str, after: str) -> str:
    """The sentence of the prompt holding the value between ``before`` and ``after``."""
    start = max(before.rfind(". "), before.rfind("? "), before.rfind("! "), -1) + 1
    ends = [i for i in (after.find(". "), after.find("? "), after.find("! ")) if i >= 0]
    return before[start:] + " … " + after[: min(ends) + 1 if ends else len(after)]


def tense(before: str, after: str) -> str:
    """``past`` for a sentence about what happened (a past verb, nothing pointing ahead:
    "my phone was stolen last week"), ``present`` for one about what is going on now (a verb
    in -ing after "is"/"how's", nothing pointing ahead or back: "how's my portfolio doing
    today"), else ``future``."""
    if _DONE_JUST_BEFORE_RE.search(before[-_NEAR:]):
        return "past"
    sentence = sentence_around(before, after)
    if _FUTURE_RE.search(sentence):
        return "future"
    if _PAST_RE.search(sentence):
        return "past"
    return "present" if _PRESENT_RE.search(sentence) else "future"


def _wrong_relative(value: str, when: str = "future") -> str | None:
    """A relative date the other way ("next week" -> "this week"), keeping the case and the
    tense of the sentence; None when no other one fits it."""
    for phrase, ways in _RELATIVE_PHRASES.items():
        m = re.search(rf"\b{phrase}\b", value, re.I)
        if m:
            other = ways[1 if when == "past" else 0]
            if other is None or (other.startswith("earlier") and re.match(r"['’]s\b", value[m.end() :])):
                return None  # "last month's lunch" is never "earlier this month's lunch"
            new = match_first_case(m.group(), other)
            return value[: m.start()] + new + value[m.end() :]
    return None


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_ORDINAL_RE = re.compile(
    r"\b(" + "|".join(ORDINALS) + r")\s+(?:floor|row|turning|turn|exit|stop|door|house|week|year|grade|"
    r"lesson|session|instalment|installment|payment|round|term|semester|level|platform)s?\b",
    re.I,
)


def _wrong_ordinal(value: str, rng: random.Random) -> str | None:
    """A declared value holding an ordinal word before a noun that ordinals count ("third
    floor", "the second week") with the ordinal one step away ("second floor", "fourth
    floor"): a floor or turn miscounted. An ordinal in a set phrase ("first aid",
    "second-hand", "first-time buyer") is no count and is left alone."""
    m = _ORDINAL_RE.search(value)
    if not m:
        return None
    i = ORDINALS.index(m.group(1).lower())
    near = [ORDINALS[j] for j in (i - 1, i + 1) if 0 <= j < len(ORDINALS)]
    word = match_first_case(m.group(1), rng.choice(near))
    return value[: m.start(1)] + same_case(m.group(1), word) + value[m.end(1) :]


_HALF_HOUR_RE = re.compile(r"\b(?:(a|an)\s+half\s+hour|half\s+an\s+hour|half\s+hour)\b", re.I)


def _wrong_half_hour(value: str) -> str | None:
    """A declared duration of half an hour said first as a whole hour ("another half hour" ->
    "another hour", "half an hour" -> "an hour"), the article made to fit ("a half hour" ->
    "an hour")."""
    m = _HALF_HOUR_RE.search(value)
    if not m:
        return None
    hour = "an hour" if m.group(1) or m.group().lower().startswith("half an") else "hour"
    return value[: m.start()] + match_first_case(m.group(), hour) + value[m.end() :]


def match_first_case(template: str, word: str) -> str:
    return word[:1].upper() + word[1:] if template[:1].isupper() else word


@functools.lru_cache(maxsize=1)
def _same_person() -> dict[str, frozenset[str]]:
    """Lower-case first name -> the other forms of the same name (``data/names.json``'s
    ``same_person``: "dave" -> {"david"})."""
    out: dict[str, frozenset[str]] = {}
    for group in load_data("names").get("same_person", []):
        low = {n.lower() for n in group}
        for name in low:
            out[name] = frozenset(low - {name})
    return out


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
    # a name mixed up with one that sounds alike ("Marco"/"Mario", "Tom"/"Tomas"), never
    # one that only shares an initial ("Marco"/"Michael")
    close = [
        n
        for n in pool
        if n[:2].lower() == first[:2]
        and _spelling(n) != _spelling(first)
        # "Tom"/"Tomas", "Dan"/"Daniel", "Dave"/"David": a short and a long form of one
        # name, not two people
        and not (n.lower().startswith(first) or first.startswith(n.lower()))
        and n.lower() not in _same_person().get(first, ())
    ]
    if not close:
        return None
    other = rng.choice(close)
    other = other.lower() if m.group(1).islower() else other
    return value[: m.start(1)] + other + value[m.end(1) :]


def _other_weekdays(day: str, before: str, after: str) -> list[str]:
    """The weekdays a person could say instead of ``day``: one or two days away and of the
    same kind (a working day for a working day -- nobody misses school on a Saturday -- and
    Saturday for Sunday), on the same side of every other weekday of its sentence (a range
    "from Monday to Thursday" stays a range)."""
    i = WEEKDAYS.index(day)
    weekend = i >= 5
    out = [WEEKDAYS[j] for j in range(7) if j != i and (j >= 5) == weekend and abs(j - i) <= 2]
    sentence = sentence_around(before, after)
    stated = [WEEKDAYS.index(w) for w in WEEKDAYS if re.search(rf"\b{w}", sentence) and w != day]
    return [
        w for w in out if all((WEEKDAYS.index(w) < o) == (i < o) and WEEKDAYS.index(w) != o for o in stated)
    ]


def _spelling(name: str) -> str:
    """A name as it sounds, for telling a spelling variant ("Anna"/"Ana", "Sara"/"Sarah",
    "Sofia"/"Sophie") from another name: that is a typo fix, not a mix-up of two people."""
    low = name.lower().replace("ph", "f")
    low = re.sub(r"h$", "", low)
    low = re.sub(r"[aeiouy]+$", "", low)  # "Sofia"/"Sophie", "Zoe"/"Zoey"
    return re.sub(r"(.)\1", r"\1", low)


def _avoiding(make: Callable[[], str | None], avoid_low: set[str]) -> str | None:
    """The first of a few draws of ``make()`` that the prompt does not already state."""
    for _ in range(8):
        out = make()
        if out is None or out.lower() not in avoid_low:
            return out
    return None
