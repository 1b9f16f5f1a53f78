"""Protected values: the parts of a prompt that every perturbation keeps byte-for-byte.

A prompt's protected spans are its declared ``slots`` (every occurrence of each value) plus
values detected by pattern: emails, URLs, quoted text, money, dates, weekdays, months, times,
phone numbers, postcodes, IDs (``BK-48213``, ``AB123``, ``#4821``), numbers (digits and number
words) and known city/country names. Overlapping detections are merged into one span.

Generators never edit a protected span: :func:`mask` replaces each span with a sentinel made
of private-use characters (never a letter, digit, space or punctuation mark, so no rewrite
rule, typo or splitter can touch it) and :func:`unmask` puts the original bytes back. This
is masking *around* spans rather than per token, so multi-word values ("3 May 2025",
"New Delhi", "'Ocean View'") and digits survive whole.

:func:`lost_values` checks survival on a finished text: every protected value must occur in
the variant at least as often as in the canonical prompt.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources

_WEEKDAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_MONTH_ABBR = "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
_ANY_MONTH = f"(?:{_MONTHS}|(?:{_MONTH_ABBR})\\.?)"
_ORD = r"(?:st|nd|rd|th)?"
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_CURRENCY_CODES = "USD|GBP|EUR|INR|AUD|CAD|JPY|CHF|SGD|AED|Rs\\.?"
_CURRENCY_WORDS = "dollars?|pounds?|euros?|rupees?|quid|bucks|pence|cents?|rs"
_NUMBER_WORDS = (
    "zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
    "fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|"
    "sixty|seventy|eighty|ninety|hundred|thousand|million|billion|dozen|half|"
    "first|second|third|fourth|fifth|once|twice|double|single|couple|lakh|crore"
)


def _number_words_pattern() -> str:
    # lower, Title and UPPER spellings with a first-letter look-ahead: 3x faster than (?i:...)
    names = _NUMBER_WORDS.split("|")
    variants = sorted({v for w in names for v in (w, w.capitalize(), w.upper())}, key=len, reverse=True)
    first = "".join(sorted({v[0] for v in variants}))
    return rf"(?=[{first}])\b(?:{'|'.join(variants)})\b"


# (kind, pattern) in priority order: earlier kinds label a merged span.
_PATTERNS: list[tuple[str, str]] = [
    # private-use characters are kept whole, so they can never be mistaken for a mask sentinel
    ("reserved", "[\ue000-\uf8ff]+"),
    ("email", r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"),
    ("url", r"(?:https?://|www\.)[^\s<>\"'()]+[^\s<>\"'().,;:!?]"),
    ("quoted", r"\"[^\"\n]{1,200}\"|“[^”\n]{1,200}”|‘[^’\n]{1,200}’|(?<![\w'])'[^'\n]{1,120}'(?![\w'])"),
    (
        "money",
        rf"[$£€₹¥]\s?(?:{_NUM})(?:\s?(?:k|m|bn|million|thousand|lakh|crore)\b)?"
        rf"|\b(?:{_CURRENCY_CODES})\s?(?:{_NUM})"
        rf"|(?=\d)(?<![\w.])(?:{_NUM})\s?(?:{_CURRENCY_CODES}|{_CURRENCY_WORDS})\b",
    ),
    (
        "date",
        r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b"
        rf"|\b\d{{1,2}}{_ORD}(?:\s+of)?\s+{_ANY_MONTH}(?:,?\s+\d{{4}})?(?![\w])"
        rf"|\b{_ANY_MONTH}\s+\d{{1,2}}{_ORD}(?:,?\s+\d{{4}})?\b"
        r"|\b(?:today|tomorrow|tonight|yesterday)\b",
    ),
    ("weekday", rf"(?i:\b(?:{_WEEKDAYS})s?\b)"),
    (
        "month",
        r"\b(?:January|February|March|April|June|July|August|September|October|November|December)\b"
        r"|\b(?:[Ii]n|[Oo]f|[Bb]y|[Ss]ince|[Uu]ntil|[Tt]ill|[Ee]arly|[Ll]ate|[Mm]id|[Ee]nd) (?P<v>May)\b",
    ),
    (
        "time",
        r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?(?:[AaPp]\.[Mm]\.|[AaPp][Mm]\b))?(?![\w])"
        r"|\b\d{1,2}\s?(?:[AaPp]\.[Mm]\.|[AaPp][Mm]\b)|\b(?:noon|midnight)\b",
    ),
    ("phone", r"(?<![\w+])\+\d{1,3}[\s-]?\(?\d{2,5}\)?(?:[\s-]?\d{2,5}){1,3}\b"),
    ("postcode", r"\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b"),
    (
        "id",
        r"#\w+|\b[A-Za-z]{1,6}-\d[\w-]*\b|\b(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9][A-Z0-9-]{2,}\b",
    ),
    (
        "number",
        rf"(?=\d)(?<![\w.])(?:{_NUM})(?:st|nd|rd|th|%|x)?(?![\w])|(?=\d)\b\d+\b"
        rf"|{_number_words_pattern()}",
    ),
]

_DETECTORS = [(kind, re.compile(pattern)) for kind, pattern in _PATTERNS]

SENTINEL_OPEN = "\ue000"
SENTINEL_CLOSE = "\ue001"
_DIGIT_BASE = 0xE100
_DIGITS = 0x1000
_SENTINEL_RE = re.compile("\ue000([\ue100-\uf0ff]+)\ue001")


@dataclass(frozen=True)
class Span:
    """A protected stretch ``text[start:end]``; ``kind`` is ``slot`` or a detector name."""

    start: int
    end: int
    kind: str
    text: str
    slot: str | None = None


@functools.lru_cache(maxsize=1)
def places() -> dict[str, tuple[str, ...]]:
    """Shipped city and country names (``perturb/generate/data/places.json``): ``{"city": (...), ...}``."""
    raw = json.loads(resources.files("perturb.generate").joinpath("data/places.json").read_text("utf-8"))
    return {kind: tuple(names) for kind, names in raw.items()}


@functools.lru_cache(maxsize=1)
def _place_re() -> re.Pattern[str]:
    names = sorted({n for group in places().values() for n in group}, key=len, reverse=True)
    return re.compile(r"(?=[A-Z])\b(?:" + "|".join(re.escape(n) for n in names) + r")\b")


def place_kind(value: str) -> str | None:
    """``"city"`` or ``"country"`` when ``value`` is a shipped place name, else None."""
    for kind, names in places().items():
        if value in names:
            return kind
    return None


def detect(text: str) -> list[Span]:
    """Every detected value in ``text`` (not merged; may overlap)."""
    found: list[Span] = []
    for kind, rx in _DETECTORS:
        for m in rx.finditer(text):
            a, b = m.span("v") if "v" in rx.groupindex and m.group("v") else m.span()
            if b > a:
                found.append(Span(a, b, kind, text[a:b]))
    for m in _place_re().finditer(text):
        found.append(Span(m.start(), m.end(), "place", m.group()))
    return found


def _occurrences(text: str, value: str) -> Iterable[tuple[int, int]]:
    start = text.find(value)
    while start >= 0:
        yield start, start + len(value)
        start = text.find(value, start + len(value))


def _merge(spans: list[Span], text: str) -> list[Span]:
    # Slots first, then detector priority; a span overlapping an earlier one is merged into it.
    order = {kind: i for i, (kind, _) in enumerate(_PATTERNS)}
    order["slot"] = -1
    order["place"] = len(order)
    spans = sorted(spans, key=lambda s: (s.start, -(s.end - s.start), order.get(s.kind, 99)))
    merged: list[Span] = []
    for span in spans:
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            keep = last if order.get(last.kind, 99) <= order.get(span.kind, 99) else span
            end = max(last.end, span.end)
            merged[-1] = Span(last.start, end, keep.kind, text[last.start : end], keep.slot)
        else:
            merged.append(span)
    return merged


def find_protected(text: str, slots: Mapping[str, str] | None = None) -> list[Span]:
    """The merged, sorted, non-overlapping protected spans of ``text``: every occurrence of
    each declared slot value plus every detected value."""
    spans: list[Span] = []
    for name, value in (slots or {}).items():
        if value:
            spans.extend(Span(a, b, "slot", value, name) for a, b in _occurrences(text, value))
    spans.extend(detect(text))
    return _merge(spans, text)


def spans_of_values(text: str, values: Iterable[str]) -> list[Span]:
    """Merged spans of every occurrence of the given literal ``values`` in ``text``."""
    spans = [Span(a, b, "value", v) for v in set(values) if v for a, b in _occurrences(text, v)]
    return _merge(spans, text)


def protected_values(text: str, slots: Mapping[str, str] | None = None) -> list[str]:
    """The distinct protected values of ``text``, in order of first appearance."""
    return list(_protected_values(text, tuple((slots or {}).items())))


@functools.lru_cache(maxsize=4096)
def _protected_values(text: str, slots: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for span in find_protected(text, dict(slots)):
        seen.setdefault(span.text, None)
    for _, value in slots:
        seen.setdefault(value, None)
    return tuple(seen)


def lost_values(canonical: str, slots: Mapping[str, str] | None, variant: str) -> list[str]:
    """Protected values of ``canonical`` that ``variant`` does not keep byte-for-byte (a value
    lost, altered, or occurring fewer times than in the canonical prompt)."""
    lost = []
    for value in protected_values(canonical, slots):
        if variant.count(value) < canonical.count(value):
            lost.append(value)
    return lost


def new_values(canonical: str, variant: str, allowed: Iterable[str] = ()) -> list[str]:
    """Detected values in ``variant`` that do not occur in ``canonical`` (a competing date,
    number, city, ...), ignoring ``allowed`` ones (e.g. a self-correction's wrong value)."""
    allow = set(allowed)
    out: dict[str, None] = {}
    for span in _merge(detect(variant), variant):
        if span.text in canonical or any(span.text in a or a in span.text for a in allow):
            continue
        out.setdefault(span.text, None)
    return list(out)


def segments(text: str, spans: Iterable[Span]) -> list[tuple[str, bool]]:
    """``text`` split into ``(piece, protected)`` segments, in order, covering all of it."""
    out: list[tuple[str, bool]] = []
    pos = 0
    for span in spans:
        if span.start > pos:
            out.append((text[pos : span.start], False))
        out.append((text[span.start : span.end], True))
        pos = span.end
    if pos < len(text):
        out.append((text[pos:], False))
    return out


def sentinel(index: int) -> str:
    """The mask token of the ``index``-th protected span (private-use characters only)."""
    digits = []
    while True:
        index, rem = divmod(index, _DIGITS)
        digits.append(chr(_DIGIT_BASE + rem))
        if index == 0:
            break
    return SENTINEL_OPEN + "".join(reversed(digits)) + SENTINEL_CLOSE


def _sentinel_index(body: str) -> int:
    value = 0
    for ch in body:
        value = value * _DIGITS + (ord(ch) - _DIGIT_BASE)
    return value


def mask(text: str, spans: Iterable[Span]) -> tuple[str, list[str]]:
    """Replace each span by its sentinel; return the masked text and the span texts."""
    parts: list[str] = []
    values: list[str] = []
    for piece, protected in segments(text, spans):
        if protected:
            parts.append(sentinel(len(values)))
            values.append(piece)
        else:
            parts.append(piece)
    return "".join(parts), values


def unmask(masked: str, values: list[str]) -> str:
    """Put the protected values back in place of their sentinels."""
    return _SENTINEL_RE.sub(lambda m: values[_sentinel_index(m.group(1))], masked)


def is_sentinel(token: str) -> bool:
    """True when ``token`` is exactly one mask sentinel."""
    return bool(_SENTINEL_RE.fullmatch(token))


SENTINEL_PATTERN = _SENTINEL_RE.pattern
"""Regex source matching one sentinel (for generators that tokenise masked text)."""
