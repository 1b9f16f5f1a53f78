"""``self_correction``: the user states a wrong value of a slot first, then corrects it.

A slot is *correctable* when a plausible wrong value of the same type can be made (see
:mod:`._wrong`): a weekday, a month, a date, a relative date ("next week" / "this week"), a
time, money (another amount in the same currency), a count, an ID, a code of a known group
(LHR/LGW, USD/EUR), a person's first name from the shipped list that sounds like another, a
city/country (a nearby city of the same country, a neighbouring country; not one that locates
a landmark, "near Times Square in New York"), a declared town after a preposition of place (a
nearby town of the same country and size from the GeoNames gazetteer), a declared street
"<Name> <Suffix>" or duration of one unit ("a fortnight"), never the user's own town or
street, or a value of a known category (seat class, room type, ...). A multi-word declared
slot ("Thursday next week", "Toronto, Ontario") is corrected through a value detected inside
it, the whole slot restated. Declared slots are used first; without declared slots, detected
values of those types are used (recorded as ``detected:<kind>``). The canonical value is never
edited: the wrong value and a correction phrase are inserted in front of it, so the final
stated value is always the canonical one:

* ``no``          "Thursday, no, Friday"
* ``i_mean``      "Thursday, I mean Friday"
* ``no_wait``     "Thursday, no wait, Friday"
* ``dash_sorry``  "Thursday — sorry, I meant Friday"
* ``actually``    "Thursday... actually make that Friday"
* ``scratch``     "Thursday — scratch that, Friday"
* ``my_mistake``  "Thursday, sorry, my mistake, I meant Friday"
* ``oops``        "Thursday, oops, that's wrong, I meant Friday"

The dashed phrasings are not used in a sentence that already has a dash. A value after an
article is restated with it ("a family of five... actually make that a family of four"), the
first article agreeing with the wrong value ("an 8-seat ... I mean a 6-seat"). A message gets
one correction; only a long one (five sentences or more and fifty words or more) may get two,
in sentences that are not next to each other, each with a short phrasing (never a long
apology when there are two).

ε = words added by the corrections ÷ words of the canonical prompt (capped at 1; 0 when no
correction is stated): how much superseded material the agent has to discard. The generator
draws plans (how many slots, which, which phrasing: 1 to 6 added words each) and keeps the one
whose ε is nearest the requested level; a short prompt cannot go below one short correction
and a long one with one correctable value cannot reach a high level, so ε is reported as
measured.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from perturb.generate.perturbations._context import ClassSpec, SkipGeneration, TaskContext, Variant
from perturb.generate.perturbations._text import (
    clause_spans,
    grave_message,
    match_case,
    rounded,
    sentence_spans,
    words,
)
from perturb.generate.perturbations._wrong import (
    categories,
    category_of,
    fixed_value,
    gazetteer_town,
    listed_place,
    street_name,
    word_number,
    wrong_value,
)
from perturb.generate.slots import Span, detect, find_protected, place_kind, sentinel
from perturb.records import Task

PHRASINGS: dict[str, tuple[str, str]] = {
    "no": ("{wrong}, no, ", ""),
    "i_mean": ("{wrong}, I mean ", ""),
    "no_wait": ("{wrong}, no wait, ", ""),
    "dash_sorry": ("{wrong} — sorry, I meant ", ""),
    "actually": ("{wrong}... actually make that ", ""),
    "scratch": ("{wrong} — scratch that, ", ""),
    "my_mistake": ("{wrong}, sorry, my mistake, I meant ", ""),
    "oops": ("{wrong}, oops, that's wrong, I meant ", ""),
}
"""Phrasing name -> (text before the canonical value, text after it)."""

LOWER_PHRASINGS: dict[str, tuple[str, str]] = {
    "no": PHRASINGS["no"],
    "lower_i_mean": ("{wrong} i mean ", ""),
    "lower_no_wait": ("{wrong} no wait ", ""),
    "lower_sorry": ("{wrong} sorry i meant ", ""),
}
"""The phrasings of a lower-case message ("need a van under $80 i mean $90 a day", "under
$80, no, $90"): lower case, no typed dash or ellipsis, the way the rest of the message is
typed."""
ALL_PHRASINGS = {**PHRASINGS, **LOWER_PHRASINGS}

CUE_RE = re.compile(
    r"(?:(?:sorry|I\s+meant|no,?\s+wait|actually(?:,?\s+make\s+(?:that|it))?|correction:|"
    r"I\s+mean|scratch\s+that|make\s+that|or\s+rather|oops|my\s+mistake|that['’]?s\s+wrong|wait|no,)"
    r"[\s,:;.—–-]*)+(?:(?:a|an|the|my|our|your|his|her|their)\s+)?$",
    re.I,
)
"""A correction phrase ending right before a value (or before the article the correction
repeats: "a family of five... actually make that a family of four")."""

DASHED = frozenset({"dash_sorry", "scratch"})
"""Phrasings with a dash: not used in a sentence that already has one."""
SHORT = frozenset({"no", "i_mean", "no_wait", "lower_i_mean", "lower_no_wait"})
"""Phrasings short enough to sit inside a question between its verb and its subject."""
LONG = frozenset({"my_mistake", "oops"})
"""The long apologies: at most one in a message ("..., sorry, my mistake, I meant ...")."""
FLIPPANT = frozenset({"oops", "scratch"})
"""Light-hearted phrasings ("oops, that's wrong", "scratch that"): never in a message about a
death, a funeral or a terminal illness (:func:`._text.grave_message`)."""
_QUESTION_HEAD_RE = re.compile(
    r"^\W*(?:is|are|was|were|can|could|will|would|does|do|did|has|have|should)\s+(?:\w+\s+)?$", re.I
)
_ARTICLE_RE = re.compile(r"(?<![\w'’])(a|an|the|my|our|your|his|her|their)\s+$", re.I)
_HAS_DASH_RE = re.compile(r"[—–]|\s-\s")

_CLAUSE_END_RE = re.compile(
    r"\s*(?:$|[.,;:!?)—–]|(?:at|on|in|for|from|to|by|with|and|or|but|please|instead|so|because|if|"
    r"when|before|after|until|till|tomorrow|today|tonight|next|this|around|between|near|via|per|"
    r"each|every)\b)",
    re.I,
)
"""What may follow a value that "... actually make that X" restates: the end of its clause, a
preposition or a conjunction (never a verb or an adjective: "make that Friday works")."""

_TIER = {"place": 2, "id": 1}
"""Preference when choosing what to correct: lower first; every other kind is tier 0."""
_NOT_LANDMARK = frozenset({"I", "I'm", "I'd", "I'll", "I've"})

__all__ = [
    "CUE_RE",
    "PHRASINGS",
    "correctable",
    "found_corrections",
    "generate",
    "infer_corrections",
    "measure",
    "wrong_value",
]


def _kind_of(ctx: TaskContext, span: Span) -> str:
    """The detected kind of a declared slot's value (``slot`` when nothing matches whole)."""
    if span.kind != "slot":
        return span.kind
    found = {s.kind for s in detect(span.text) if s.text == span.text}
    for kind in ("time", "date", "money", "id", "weekday", "month", "place", "number"):
        if kind in found:
            return kind
    if listed_place(span.text):
        return "place"  # a town or area a task declares ("camden", "Clapham")
    if _declared_town(ctx, span):
        return "place"  # a town of the gazetteer a task declares ("in Stockport")
    if _CODE_SLOT_RE.fullmatch(span.text) or _TYPED_POSTCODE_RE.fullmatch(span.text):
        return "id"  # a declared code of letters then digits ("jdoe42", "Q3", "bs7 8lu")
    return "slot"


_TOWN_BEFORE_RE = re.compile(r"\b(?:in|near|around|outside|from|to|into|towards?)\s+$", re.I)
_TOWN_AFTER_RE = re.compile(
    r"\s*(?:$|[.,;:!?)—–]|(?:and|or|but|please|for|on|at|by|with|before|after|next|this|tomorrow|today|"
    r"tonight|instead|if|so|because|when)\b)",
    re.I,
)
"""What may come around a declared town: a preposition of place before it ("in Stockport",
"to Salford") and the end of its phrase after it; never a name's first word ("the Riverside
branch", "in Riverside Park") nor a company's ("Apex Glazing")."""


def _declared_town(ctx: TaskContext, span: Span) -> bool:
    """A declared slot naming a town of ``data/towns.json`` where the sentence uses it as a
    place (:data:`_TOWN_BEFORE_RE`, :data:`_TOWN_AFTER_RE`), in its own case or all lower
    case in a lower-case message ("find an electrician in stockport")."""
    town = gazetteer_town(span.text)
    if town is None or (span.text != town and re.search(r"[A-Z]", _unprotected(ctx))):
        return False
    before = ctx.prompt[max(0, span.start - 20) : span.start]
    return bool(_TOWN_BEFORE_RE.search(before) and _TOWN_AFTER_RE.match(ctx.prompt[span.end :]))


_ENROLLED_RE = re.compile(r"\b(?:enter|enrol|enroll|register|sign\s+up|book\s+in)\s+$", re.I)
_NAME_RE = re.compile(r"[A-Z][a-z]+(?:\s+[A-Z][a-z'’-]+)?")
"""A person the user enters, enrols or signs up for something ("I'd like to enter Sam for the
Grade 5 exam"): the user's child or partner, whose name nobody misstates."""


_TYPED_POSTCODE_RE = re.compile(r"[a-z]{1,2}\d[a-z\d]?\s\d[a-z]{2}")
"""A UK postcode typed in lower case ("bs7 8lu"): the same code as "BS7 8LU", whose district
digit a person mistypes ("bs6 8lu i mean bs7 8lu"); detection only finds it in capitals."""


_CODE_SLOT_RE = re.compile(r"[A-Za-z]\d|[A-Za-z][A-Za-z._]{2,11}\d{2,4}")
"""A declared slot that is one token of letters then digits: one letter and one digit (a
quarter "Q3", a paper size "A3") or a user name ("jdoe42"), corrected as an ID with a digit
slip ("Q2", "jdoe43"). A short name with a number in it ("MP3", "B12", "COVID-19") is not a
code anyone misreads and is left alone."""


def _masked_pos(ctx: TaskContext, span: Span) -> int:
    return ctx.masked.index(sentinel(ctx.spans.index(span)))


def _clause_of(ctx: TaskContext, pos: int) -> tuple[int, int, int, int]:
    """``(sentence, clause, start, end)`` of the clause of the masked text holding ``pos``."""
    for a, b, si, ci in clause_spans(ctx.masked):
        if a <= pos < b:
            return si, ci, a, b
    return -1, -1, pos, pos


def _locates_landmark(ctx: TaskContext, span: Span) -> bool:
    """True when the place's clause also names something capitalised that is not a protected
    value ("near Times Square in New York"): the place locates that landmark, and another
    city would be nonsense ("Times Square in Moscow")."""
    _, _, a, b = _clause_of(ctx, _masked_pos(ctx, span))
    clause = ctx.masked[a:b]
    for m in re.finditer(r"[A-Za-z][\w'’]*", clause):
        word = m.group()
        if m.start() == 0 or not word[0].isupper() or word in _NOT_LANDMARK:
            continue
        return True
    return False


def _capital_by_position(ctx: TaskContext, span: Span, kind: str) -> bool:
    """True for a value capitalised only because it opens a sentence ("Two adults and ..."):
    after a correction phrase it would keep that capital mid-sentence ("sorry, I meant Two
    adults"), and the protected bytes cannot be lower-cased."""
    first = span.text.split(maxsplit=1)[0] if span.text.strip() else ""
    if kind in ("place", "weekday", "month", "id") or not first[:1].isupper() or first.isupper():
        return False
    before = ctx.masked[: _masked_pos(ctx, span)].rstrip(" \"'“(")
    return not before or before[-1] in ".!?:"


_FAMILY_FACT_RE = re.compile(
    r"\bmy\s+(?:wife|husband|partner|son|daughter|child|kid|baby|mum|mom|mother|dad|father|"
    r"brother|sister|grandma|grandmother|grandad|grandpa|grandfather)\b(?:,[^,.;:!?]*,)?[^,.;:!?]*"
    r"\b(?:is|was|turns|turned)\s+$",
    re.I,
)
"""A fact about the user's own family ("my daughter Lena is 8", "My son, Leo, is 9"): nobody
misstates their own child's age."""
_FACT_REACH = 120
"""How far before a value :data:`_FAMILY_FACT_RE` looks for "my <relative> … is": a bounded
window keeps the check linear in the prompt (searching the whole prefix for every value made
long prompts quadratic)."""


_KNOWN_FACT_RE = re.compile(
    r"\b(?:born\s+(?:on\s+|in\s+)?(?:the\s+)?|now\s+)$"
    r"|\b(?:wife|husband|partner|son|daughter|child|kid|baby|mum|mom|mother|dad|father|brother|sister)\b"
    r"[^.;:!?]{0,12}\b(?:she|he)(?:'s|’s|\s+is|\s+turns|\s+turned)\s+$",
    re.I,
)
"""A value nobody misstates: a birth date ("he was born on 8 March 2024"), the present time
read off a clock ("it's now half eight"), or a child's age said again ("my daughter, she's 7")."""


_NOW_RE = re.compile(
    r"\bit(?:['’]s|\s+is)\s+(?:now\s+)?(?:(?:nearly|almost|about|around|gone|past|just\s+(?:after|gone|past))\s+)?$",
    re.I,
)
_CLOCK_RE = re.compile(
    r"(?:(?:nearly|almost|about|around|gone|past|just\s+(?:after|gone|past))\s+)?\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm)?",
    re.I,
)
_NOW_END_RE = re.compile(r"\s*(?:$|[.,;:!?)—–]|(?:and|but|so|already)\b)", re.I)
"""The time now, read off a clock ("it's nearly 5.", "It's 11:15 and nothing yet"): the one
waiting knows it, so it is never misstated."""


_AGE_RE = re.compile(r"(?:\b(?:he|she|they|I)(?:['’]s|['’]re|['’]m|\s+is|\s+are|\s+am)|\baged)\s+$", re.I)
"""A bare number said of a person ("He's 9", "I'm 34", "aged 7"): an age, which the one
telling it knows."""
_AGE_END_RE = re.compile(r"\s*(?:$|[.,;:!?)—–]|(?:and|but|so|now|today|years?)\b)", re.I)

_CONTRAST_RE = re.compile(r"(?:\bnot|\bthe\s+wrong)\s+$", re.I)
"""A value stated as what it is not ("She lives at 22 Ash Grove, not 22 Ash Road"): a
correction inside that contrast is a tangle nobody writes. The other value of a pair set
against the first by "instead of" or "rather than" (the old booking, the usual price: "Can
Tomasz do Thursday instead of Wednesday?") is a value the user recalls and may misstate:
"instead of Tuesday, sorry, Wednesday" (the first of the pair stays refused by
:data:`_CONTRASTED_RE`: "Friday, sorry, Thursday instead of Wednesday" is three values in a
row). A count or an amount there (:data:`_COMPARED_KINDS`) stays refused: set against another
it is a comparison that a wrong value may turn round ("with 5 instead of 4, I mean 6")."""
_INSTEAD_RE = re.compile(r"\b(?:instead\s+of|rather\s+than)\s+$", re.I)
_COMPARED_KINDS = frozenset({"number", "money"})

_CONTRASTED_RE = re.compile(r",?\s+(?:not|instead\s+of|rather\s+than)\s+\S", re.I)
"""A value set against another right after it ("She lives at 22 Ash Grove, not 22 Ash Road"):
a wrong value before it makes three values in a row."""

_STREET_RE = re.compile(r"\b(?:street|road|lane|avenue|st|rd)\.?$", re.I)
_OWN_PLACE_RE = re.compile(r"\b(?:my|our)\s+(?:[\w'’-]+\s+){1,2}(?:on|in|at)\s+$", re.I)
"""A street named without a house number as where the user's own home or office is ("deliver
to our office on Market Street"): nobody misstates the street they live or work on (a shop's
or a flat's street they are asking about may be mixed up; a house number still may be)."""
_OWN_TOWN_RE = re.compile(
    r"(?:\b(?:[Mm]y|[Oo]ur)\s+(?:[\w'’-]+\s+){0,2}[\w'’-]+,?\s+(?:[A-Z][\w'’&-]*\s+){0,3}(?:on|in|at)"
    r"|\b(?:[Ii]|[Ww]e)(?:['’]m|['’]re|\s+am|\s+are|\s+live|\s+work|"
    r"\s+(?:run|own|have|manage|rent)\s+[\w'’-]+(?:\s+[\w'’-]+)?)\s+(?:based\s+)?(?:on|in|at|from))"
    r"\s+(?:(?:[A-Z][\w'’-]*\s+){1,3}(?:in|on)\s+)?$",
)
"""Where the user lives, works or comes from, said of a gazetteer town or a street named
"<Name> <Suffix>" ("I'm on Cedar Avenue in Reading", "We run a café on Bridge Street", "I
manage a restaurant on Mill Road", "our shop in Stockport", "our practice, Elm Dental on Mill
Lane", "my office car park at Kings Place", "I'm from Salford"): nobody misstates their own
street or town."""

_RELATIVE_SUBJECT_RE = re.compile(r"\b(?:who|which|that)\s+[^,.;:!?]*$", re.I)
_FINITE_AFTER_RE = re.compile(
    r"\s+(?:[a-z]{3,}ed|put|set|cut|is|was|are|were|has|had|came|went|got|left|took|sent|made|said|broke|"
    r"gave|told|kept|brought|forgot|lost|still|never|didn['’]?t|hasn['’]?t|won['’]?t|can['’]?t)\b"
)
"""A value that ends a relative clause inside a subject, right before the main verb ("The
fitter who came on the 18th put ..."): a correction there splits the subject from its verb."""

_ROOM_TYPES = frozenset({"single", "double", "twin", "suite"})
_ROOM_NOUN_RE = re.compile(
    r"\s*(?:$|[.,;:!?)—–]|(?:rooms?|beds?|bedrooms?|occupancy|please|for|with|at|on|in|from|and|or|instead)\b)",
    re.I,
)
"""What may follow a room type that is corrected ("a double room", "a twin, please"): never
another noun ("double yellows", "a single parent", "twin brother")."""
_ROOM_CONTEXT_RE = re.compile(
    r"\b(?:rooms?|bedrooms?|beds?|hotels?|hostels?|motels?|inns?|B&B|guest\s*house|lodge|stay(?:ing)?|"
    r"nights?|check(?:ing)?[\s-]?(?:in|out)|occupancy|accommodation)\b",
    re.I,
)
"""Words that make a room type's set the one the value is from: a closed set of alternatives
must come from the same domain as the noun the value describes. "triple glazing or just
double" is glazing, so "suite" or "twin" for it is a context-blind swap."""


def _not_misstated(ctx: TaskContext, span: Span) -> bool:
    """Values nobody misstates, whatever their type: a fact about the user's family or the
    user's own (an age, a birth date, the time now: "it's nearly 5"), a value stated as what something is not,
    a room type's word used for something else ("double yellows") or in a message that is not
    about a room or a stay ("triple glazing or just double")."""
    before = ctx.prompt[max(0, span.start - 60) : span.start]
    after = ctx.prompt[span.end : span.end + 40]
    if _FAMILY_FACT_RE.search(
        ctx.prompt, max(0, span.start - _FACT_REACH), span.start
    ) or _KNOWN_FACT_RE.search(before):
        return True
    if re.fullmatch(r"\d{1,3}", span.text.strip()) and _AGE_RE.search(before) and _AGE_END_RE.match(after):
        return True
    if _NOW_RE.search(before) and _CLOCK_RE.fullmatch(span.text.strip()) and _NOW_END_RE.match(after):
        return True
    if _CONTRAST_RE.search(before) or _CONTRASTED_RE.match(after):
        return True
    if _INSTEAD_RE.search(before) and _kind_of(ctx, span) in _COMPARED_KINDS:
        return True
    if _ENROLLED_RE.search(before) and _NAME_RE.fullmatch(span.text.strip()):
        return True
    if _STREET_RE.search(span.text) and not re.search(r"\d", span.text) and _OWN_PLACE_RE.search(before):
        return True
    if (street_name(span.text) or _names_town(span.text)) and _OWN_TOWN_RE.search(before):
        return True
    if _RELATIVE_SUBJECT_RE.search(
        ctx.prompt[max(0, span.start - 60) : span.start]
    ) and _FINITE_AFTER_RE.match(after):
        return True
    if span.text.strip().lower() in _ROOM_TYPES:
        if "room_context" not in ctx.memo:  # once per task: linear in the prompt
            ctx.memo["room_context"] = bool(_ROOM_CONTEXT_RE.search(ctx.prompt))
        return not _ROOM_NOUN_RE.match(after) or not ctx.memo["room_context"]
    return False


def _expected_numbers(task: Task) -> set[int]:
    """Every number the task's expected answer holds: an int or float field, or a number in
    digits or words inside a string field (``{"party_size": 4}``, ``"four people"``)."""
    found: set[int] = set()
    stack: list[Any] = [task.expected]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, bool):
            continue
        elif isinstance(item, int):
            found.add(item)  # never through float(): a 5,000-digit int would overflow
        elif isinstance(item, float) and item.is_integer():
            found.add(int(item))
        elif isinstance(item, str):
            found.update(int(d) for d in re.findall(r"\d{1,6}", item))
            found.update(n for w in re.findall(r"[A-Za-z]+", item) if (n := word_number(w)) is not None)
    return found


def _idle_number_word(ctx: TaskContext, span: Span) -> bool:
    """A spelled-out number the task neither declares as a slot nor expects in its answer: a
    number inside a fixed expression ("couples with two left feet", "I'm in two minds", "my two
    cents") or a pronoun ("can I borrow one?") is not a value the user states, so nobody
    corrects it. A number word the expected answer holds ("a table for four" with
    ``"party_size": 4``) is still corrected."""
    if span.kind == "slot" or re.search(r"\d", span.text):
        return False
    values = [n for w in re.findall(r"[A-Za-z]+", span.text) if (n := word_number(w)) is not None]
    if "expected_numbers" not in ctx.memo:  # once per task, not once per value
        ctx.memo["expected_numbers"] = _expected_numbers(ctx.task)
    return bool(values) and not set(values) & ctx.memo["expected_numbers"]


def _wrong_for(ctx: TaskContext, span: Span, rng: random.Random) -> str | None:
    kind = _kind_of(ctx, span)
    if _not_misstated(ctx, span) or _idle_number_word(ctx, span):
        return None
    if kind == "place" and _locates_landmark(ctx, span):
        return None
    if _capital_by_position(ctx, span, kind):
        return None
    whole = wrong_value(
        span.text,
        kind,
        rng,
        before=ctx.prompt[: span.start],
        after=ctx.prompt[span.end :],
        avoid=ctx.protected,
    )
    if whole is not None or span.kind != "slot":
        return None if whole is None else _cut_at_comma(whole, span.text)
    if fixed_value(span.text, ctx.prompt[max(0, span.start - 120) : span.start], ctx.prompt[span.end :]):
        return None  # "the 30 hours funding code": nothing inside it is misstated either
    # a multi-word declared slot ("Thursday next week", "Toronto, Ontario"): correct a value
    # detected inside it and restate the whole slot ("Wednesday next week, I mean Thursday
    # next week")
    for part in detect(span.text) + _town_part(ctx, span):
        if part.kind not in _PART_KINDS or part.text == span.text:
            continue
        if part.kind == "place" and _locates_landmark(ctx, span):
            continue
        if part.kind == "place" and re.search(r"\b[A-Z][a-z]+ of\s*$", span.text[: part.start]):
            continue  # "the University of Toronto" is a name: no "University of Boston"
        wrong = wrong_value(
            part.text,
            part.kind,
            rng,
            before=ctx.prompt[: span.start + part.start],
            after=ctx.prompt[span.start + part.end :],
            avoid=ctx.protected,
        )
        if wrong is not None:
            # restated up to the comma that ends the part ("19 Harbour Lane, I mean 17 Harbour
            # Lane, Cork", "Ottawa, I mean Toronto, Ontario"): the whole slot with its comma
            # before a correction phrase reads as a garbled comma chain
            return _cut_at_comma(span.text[: part.start] + wrong + span.text[part.end :], span.text)
    return None


_TOWN_THEN_REGION_RE = re.compile(r"([A-Z][a-z]+(?:[ -][A-Z][a-z]+){0,2}),\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?")
"""A declared "<Town>, <County or State>" ("Stockport, Cheshire", "Plano, Texas")."""


def _names_town(value: str) -> bool:
    """Whether ``value`` is a town, city or country: of the gazetteer, of the grouped places
    (``data/regions.json``) or of the shipped places (``data/places.json``), alone or heading
    "<Town>, <Region>". The user's own town is refused whichever list names it: "I live in
    Bristol" is as sure as "I live in Stockport"."""
    m = _TOWN_THEN_REGION_RE.fullmatch(value)
    name = m.group(1) if m else value
    return gazetteer_town(name) is not None or listed_place(name) is not None or place_kind(name) is not None


def _town_part(ctx: TaskContext, span: Span) -> list[Span]:
    """The gazetteer town heading a declared "<Town>, <Region>" slot after a preposition of
    place, as a part to correct ("near Salford, no, Stockport, Cheshire"): the county or state
    stays as it is."""
    m = _TOWN_THEN_REGION_RE.fullmatch(span.text)
    if not m or gazetteer_town(m.group(1)) is None:
        return []
    if not _TOWN_BEFORE_RE.search(ctx.prompt[max(0, span.start - 20) : span.start]):
        return []
    return [Span(0, m.end(1), "place", m.group(1))]


def _cut_at_comma(wrong: str, value: str) -> str:
    """``wrong`` restated only up to the comma that ends the changed part when the rest is the
    same as the value's ("19 Harbour Lane, I mean 17 Harbour Lane, Cork", "Ottawa, I mean
    Toronto, Ontario"): the whole slot with its comma before a correction phrase reads as a
    garbled comma chain."""
    head, sep, tail = wrong.partition(", ")  # a list comma, never a thousands one ("8,500")
    if sep and value.endswith(sep + tail) and head != value[: -len(sep + tail)]:
        return head
    return wrong


_PART_KINDS = frozenset({"weekday", "month", "date", "time", "money", "number", "id", "place"})


def correctable(ctx: TaskContext) -> list[tuple[str, Span]]:
    """``(slot label, span)`` of each correctable slot: declared slots first; without any
    correctable declared slot, detected values."""
    if "correctable" not in ctx.memo:
        ctx.memo["correctable"] = _correctable(ctx)
    return list(ctx.memo["correctable"])


def _correctable(ctx: TaskContext) -> list[tuple[str, Span]]:
    out: list[tuple[str, Span]] = []
    probe = random.Random(0)
    seen: set[str] = set()
    for span in ctx.spans:
        if span.kind == "slot" and span.slot and span.slot not in seen:
            if _wrong_for(ctx, span, probe) is not None:
                out.append((span.slot, span))
                seen.add(span.slot)
    if out:
        return out
    for span in ctx.spans:
        if span.kind in ("weekday", "month", "date", "time", "money", "number", "id", "place"):
            if span.text not in seen and _wrong_for(ctx, span, probe) is not None:
                out.append((f"detected:{span.kind}", span))
                seen.add(span.text)
    return out


def _tier(ctx: TaskContext, span: Span) -> int:
    if category_of(span.text) is not None:
        return 0
    return _TIER.get(_kind_of(ctx, span), 0)


def _apart(ctx: TaskContext, a: Span, b: Span) -> bool:
    """Two corrections may share a variant only in sentences that are not next to each other:
    two slips in one sentence read like someone who cannot type, and two in neighbouring
    sentences or clauses like a route."""
    sa, _, _, _ = _clause_of(ctx, _masked_pos(ctx, a))
    sb, _, _, _ = _clause_of(ctx, _masked_pos(ctx, b))
    return abs(sa - sb) >= 2


def _picks(ctx: TaskContext, slots: list[tuple[str, Span]], k: int, rng: random.Random) -> list[int]:
    """Up to ``k`` slots to correct, preferred kinds first, never two in adjacent clauses."""
    keys = [(_tier(ctx, span), rng.random()) for _, span in slots]
    picked: list[int] = []
    for i in sorted(range(len(slots)), key=keys.__getitem__):
        if len(picked) == k:
            break
        if all(_apart(ctx, slots[i][1], slots[j][1]) for j in picked):
            picked.append(i)
    return picked


def _phrase_words(phrasing: str, wrong: str) -> int:
    before, after = ALL_PHRASINGS[phrasing]
    return len(words(before.format(wrong=wrong) + after))


def generate(ctx: TaskContext, level: float, rng: random.Random, index: int = 0) -> Variant:
    slots = correctable(ctx)
    if not slots:
        raise SkipGeneration(
            "no slot can be corrected (no weekday, month, date, time, money, number, ID, "
            "name, place or known-category value)"
        )
    base = max(1, len(words(ctx.prompt)))
    lower = not re.search(r"[A-Z]", _unprotected(ctx))
    most = _most_corrections(ctx, base)
    # Draw plans (which slots, which wrong values, which phrasings) and keep the one whose
    # ε (added words / canonical words) is nearest the level; the draw order breaks ties.
    best: tuple[float, int, list[tuple[int, str, str]]] | None = None
    for trial in range(16):
        k = 1 + int(rng.random() * min(most, len(slots))) if trial else 1
        picked = _picks(ctx, slots, k, rng)
        plan: list[tuple[int, str, str]] = []
        for i in picked:
            wrong = _wrong_for(ctx, slots[i][1], rng)
            if wrong is None:
                continue
            sentence = _sentence_at(ctx, slots[i][1])
            names = sorted(LOWER_PHRASINGS if lower else PHRASINGS)
            if _HAS_DASH_RE.search(sentence):  # no second dash in a sentence that has one
                names = [n for n in names if n not in DASHED]
            if _QUESTION_HEAD_RE.search(_sentence_before(ctx, slots[i][1])) or _modifies_noun(
                ctx, slots[i][1]
            ):
                # the subject of a short question ("Is Sofia available?") or a value inside a
                # noun phrase ("a 3 kg box", "a 2019 Honda Civic"): a long phrase would split
                # it, so only a short one ("a 2 kg, no, a 3 kg box")
                names = [n for n in names if n in SHORT]
            if not _CLAUSE_END_RE.match(ctx.prompt[slots[i][1].end :]):
                # "make that X" ends a clause: never before a verb or an adjective ("Any time
                # Friday works for me" -> never "... actually make that Friday works")
                names = [n for n in names if n != "actually"]
            # a person does not correct themselves twice with the same words, nor twice with a
            # long apology ("sorry, my mistake, I meant ... oops, that's wrong, I meant")
            used = {p for _, _, p in plan}
            names = [n for n in names if n not in used and not (n in LONG and used & LONG)]
            if grave_message(ctx.prompt):
                # a message about a death or a funeral: a plain correction, never a flippant
                # one ("passed away early this afternoon, oops, that's wrong, I meant ...")
                names = [n for n in names if n not in FLIPPANT]
            if len(picked) > 1:
                # two slips in one message read typed in a hurry: each caught with a few
                # words, never a long apology ("oops, that's wrong, I meant")
                names = [n for n in names if n not in LONG]
            plan.append((i, wrong, rng.choice(names)))
        if not plan:
            continue
        added = sum(_phrase_words(p, w) for _, w, p in plan)
        score = abs(min(1.0, added / base) - level)
        if best is None or score < best[0] - 1e-9:
            best = (score, trial, plan)
    if best is None:
        raise SkipGeneration("no plausible wrong value for any correctable slot")
    masked = ctx.masked
    corrections = []
    for i, wrong, phrasing in sorted(
        best[2], key=lambda p: -masked.index(sentinel(ctx.spans.index(slots[p[0]][1])))
    ):
        label, span = slots[i]
        token = sentinel(ctx.spans.index(span))
        at = masked.index(token)
        before, after = ALL_PHRASINGS[phrasing]
        # the whole phrase is restated: "a family of five... actually make that a family of
        # four", never "... make that family of four"
        article = _ARTICLE_RE.search(masked, max(0, at - 40), at)
        again = ""
        if article:
            word = article.group(1)
            again = word.lower() + " "
            if word.lower() in ("a", "an"):
                fitted = "an" if _vowel_sound(wrong) else "a"
                again = ("an" if _vowel_sound(span.text) else "a") + " "
                masked = masked[: article.start(1)] + match_case(word, fitted) + masked[article.end(1) :]
                at = masked.index(token)
        masked = masked[:at] + before.format(wrong=wrong) + again + token + after + masked[at + len(token) :]
        corrections.append({"slot": label, "wrong": wrong, "final": span.text, "phrasing": phrasing})
    corrections.reverse()
    details: dict[str, Any] = dict(corrections[0])
    details["corrections"] = corrections
    return Variant(text=ctx.unmask(masked), details=details)


LONG_MESSAGE_SENTENCES = 5
"""Sentences a message needs before it may hold a second correction."""
LONG_MESSAGE_WORDS = 50
"""Words a message needs before it may hold a second correction."""


def _most_corrections(ctx: TaskContext, base: int) -> int:
    """How many corrections a message may hold: one, unless it is long (at least
    :data:`LONG_MESSAGE_SENTENCES` sentences and :data:`LONG_MESSAGE_WORDS` words), then two.
    Reviewers read two slips caught in a typed message of three or four sentences as
    generated, whatever the phrasing; in a long one a second slip is plausible."""
    sentences = len(sentence_spans(ctx.masked))
    return 2 if sentences >= LONG_MESSAGE_SENTENCES and base >= LONG_MESSAGE_WORDS else 1


def _unprotected(ctx: TaskContext) -> str:
    """The prompt without its protected values (a name or a code keeps its capitals in an
    otherwise lower-case message)."""
    return re.sub("[\ue000-\uf8ff]", " ", ctx.masked)


_NOT_HEAD_RE = re.compile(
    r"\s+(?:for|from|in|on|at|to|with|and|or|but|by|than|of|per|a|an|the|each|please|"
    r"instead|until|till|before|after|since|because|so|if|when|while|i)\b",
    re.I,
)


def _modifies_noun(ctx: TaskContext, span: Span) -> bool:
    """True for a value inside a noun phrase: after an article and followed by the noun it
    modifies ("a 3 kg box", "a 23 year old driver", "a two bedroom flat")."""
    at = _masked_pos(ctx, span)
    token = sentinel(ctx.spans.index(span))
    after = ctx.masked[at + len(token) :]
    if not _ARTICLE_RE.search(ctx.masked, max(0, at - 40), at) or not re.match(
        r"\s+[A-Za-z\ue000-\uf8ff]", after
    ):
        return False
    return not _NOT_HEAD_RE.match(after)


def _sentence_before(ctx: TaskContext, span: Span) -> str:
    """The text of the span's sentence before the span."""
    at = _masked_pos(ctx, span)
    start = next((a for a, b in sentence_spans(ctx.masked) if a <= at < b), 0)
    return ctx.masked[start:at]


def _sentence_at(ctx: TaskContext, span: Span) -> str:
    at = _masked_pos(ctx, span)
    return next((ctx.masked[a:b] for a, b in sentence_spans(ctx.masked) if a <= at < b), "")


def _vowel_sound(text: str) -> bool:
    """Whether ``text`` takes "an": it starts with a vowel sound -- a vowel letter but not
    "one"/"once"/"uni"/"use"/"eu" ("a one-bedroom flat"), "hour"/"honest", or an 8/11/18
    number (any number said "eight..." or "eleven"/"eighteen", alone or in thousands: "an 80",
    "an 11,000"), also after a currency sign ("an £80 voucher", said "an eighty-pound voucher")."""
    low = text.lower().lstrip("£$€¥")  # "an £80", "an $11": read "an eighty pounds"
    if re.match(r"(?:one\b|one-|once|uni|use|usu|eu)", low):
        return False
    if re.match(r"(?:hour|honest|honour|honor)", low):
        return True
    return low[:1] in ("a", "e", "i", "o") or re.match(r"8|1[18](?:[,.]?\d{3})?(?![\d,])", low) is not None


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
    """ε = words added by the corrections ÷ words of the canonical prompt, capped at 1
    (0 when the text states no correction): how much superseded material the agent must
    discard."""
    if not correctable(ctx) or not found_corrections(ctx, text):
        return 0.0
    base = max(1, len(words(ctx.prompt)))
    return rounded(min(1.0, max(0, len(words(text)) - len(words(ctx.prompt))) / base))


def _value_before(before: str) -> str | None:
    """The value stated at the very end of ``before`` (a detected value, a category member
    or, failing both, the last word)."""
    spans = [s for s in find_protected(before) if s.end == len(before)]
    if spans:
        return spans[-1].text
    for group in categories():
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


def correction_flags(task: Task, text: str, details: dict[str, Any]) -> list[str]:
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
            flags.append(f"final value of slot {slot!r} is {final!r}, expected the canonical {canonical!r}")
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
            flags.append(f"the last value stated is the wrong {wrong!r}, expected the canonical {final!r}")
        elif last_final < 0 or w > last_final:
            flags.append(f"wrong value {wrong!r} does not appear before the final value {final!r}")
    return flags


def _rfind_word(text: str, value: str) -> int:
    """Where ``value`` last appears in ``text`` as a whole word (never inside a longer code:
    the "3" of "BK-73310"), or -1."""
    head = r"(?<!\w)" if value[:1].isalnum() else ""
    tail = r"(?!\w)" if value[-1:].isalnum() else ""
    best = -1
    for m in re.finditer(head + re.escape(value) + tail, text):
        best = m.start()
    return best


def _screen(task: Task, text: str, details: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Pre-screen: the stated wrong values may be new values; each correction is checked."""
    corrections = details.get("corrections")
    allowed: list[str] = []
    if isinstance(corrections, list):
        allowed = [str(c.get("wrong", "")) for c in corrections if isinstance(c, dict)]
    elif "wrong" in details:
        allowed = [str(details["wrong"])]
    return allowed, correction_flags(task, text, details)


def _llm_request(ctx: TaskContext, index: int) -> tuple[dict[str, str], dict[str, Any]]:
    """The template's ``$correctable``: the values the model may correct."""
    listed = [{"slot": label, "value": span.text} for label, span in correctable(ctx)]
    return {"correctable": json.dumps(listed, ensure_ascii=False)}, {}


def _llm_details(ctx: TaskContext, text: str, details: dict[str, Any]) -> dict[str, Any]:
    """A ``corrections`` list: the model's slot/wrong/final, else inferred from the text."""
    if all(isinstance(details.get(k), str) and details.get(k) for k in ("wrong", "final")):
        details["corrections"] = [
            {k: str(details.get(k, "")) for k in ("slot", "wrong", "final", "phrasing")}
        ]
    else:
        corrections = infer_corrections(ctx, text)
        if corrections:
            details.update(corrections[0])
            details["corrections"] = corrections
    return details


SPEC = ClassSpec(
    name="self_correction",
    default_level=0.2,
    max_level=1.0,
    length_ratio=(1.0, 2.5),
    epsilon="corrections / correctable slots (a correction: a plausible wrong value of the "
    "same type, a correction phrase, then the canonical value; one correction in a message, two "
    "only in a long one, in sentences that are not next to each other)",
    generate=generate,
    measure=measure,
    llm_request=_llm_request,
    llm_details=_llm_details,
    screen=_screen,
)
"""The self_correction class: rules generator, ε definition and screening bounds."""
