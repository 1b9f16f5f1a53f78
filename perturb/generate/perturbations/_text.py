"""Text helpers shared by the perturbation classes: tokens, sentences, case, ε measures."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from perturb.generate.slots import SENTINEL_PATTERN

WORD_RE = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)*")
"""A word token: letters/digits, with an apostrophe suffix kept (``don't``, ``I'd``)."""

# A sentence ends at . ! ? (possibly followed by closing quotes/brackets) before whitespace and
# an upper-case letter, digit, quote or sentinel; not after a common abbreviation.
_ABBREVIATIONS = (
    "mr",
    "mrs",
    "ms",
    "dr",
    "st",
    "no",
    "vs",
    "etc",
    "e.g",
    "i.e",
    "approx",
    "jr",
    "sr",
    "prof",
)
_SENT_END_RE = re.compile(r"(?<=[.!?])[\"'”’)]*\s+(?=[A-Z0-9\"'“(\ue000])")
_ABBR_RE = re.compile(r"(?:^|\W)(" + "|".join(re.escape(a) for a in _ABBREVIATIONS) + r")\.$", re.I)
_TOKEN_OR_SENTINEL_RE = re.compile(
    SENTINEL_PATTERN.replace("(", "(?:", 1) + r"|[A-Za-z0-9]+(?:['’][A-Za-z]+)*"
)


def words(text: str) -> list[str]:
    """Word tokens of ``text``."""
    return WORD_RE.findall(text)


def tokens_with_sentinels(masked: str) -> list[str]:
    """Word tokens of masked text, each sentinel counted as one token."""
    return _TOKEN_OR_SENTINEL_RE.findall(masked)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence: leading/trailing whitespace excluded, trailing
    punctuation (and closing quotes) included."""
    out: list[tuple[int, int]] = []
    start = 0
    for m in _SENT_END_RE.finditer(text):
        if _ABBR_RE.search(text[start : m.start()]):
            continue
        end = m.start() + len(text[m.start() : m.end()].rstrip())
        out.append((start, end))
        start = m.end()
    out.append((start, len(text)))
    spans = []
    for a, b in out:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            spans.append((a, b))
    return spans


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (see :func:`sentence_spans`)."""
    return [text[a:b] for a, b in sentence_spans(text)]


_CLAUSE_SEP_RE = re.compile(r"\s*(?:[,;:()—–]|\s-\s)\s*")


def clause_spans(text: str) -> list[tuple[int, int, int, int]]:
    """``(start, end, sentence index, clause index)`` of each clause: a sentence cut at
    , ; : ( ) and dashes."""
    out = []
    for si, (a, b) in enumerate(sentence_spans(text)):
        start, ci = a, 0
        for m in _CLAUSE_SEP_RE.finditer(text, a, b):
            if m.start() > start:
                out.append((start, m.start(), si, ci))
                ci += 1
            start = m.end()
        if b > start:
            out.append((start, b, si, ci))
    return out


_SUBJECT = (
    r"(?:I|I'm|I'll|I'd|I've|we|we're|we'll|we've|we'd|my|our|it|it's|this|that's|"
    r"they|they're|he|she|there's)"
)
_PRONOUN = r"(?:I|I'm|I'll|I'd|I've|we|we're|we'll|we've|we'd|they|they're|he|she)"
_TRAILING_CLAUSE_RE = re.compile(
    r"\s*[;—–]\s*|\s+-\s+|,\s+(?=" + _SUBJECT + r"(?![\w'’]))|,?\s+and\s+(?=" + _PRONOUN + r"(?![\w'’]))",
    re.I,
)


def trailing_clause(sentence: str) -> tuple[int, int] | None:
    """The separator after the main request of ``sentence`` when a clause with its own
    subject follows ("Cancel booking BK-1 please, my conference was called off.": the ``, ``
    before "my"), as ``(start, end)`` offsets; None when the sentence is one clause. The
    separator is ``;``, a dash, a comma before a subject, or "and" before a pronoun."""
    m = _TRAILING_CLAUSE_RE.search(sentence)
    if not m or m.start() == 0 or m.end() >= len(sentence.rstrip(".?!… ")):
        return None
    return m.start(), m.end()


def match_case(template: str, word: str) -> str:
    """``word`` in the case style of ``template`` (UPPER, Title or as given)."""
    if len(template) > 1 and template.isupper():
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def capitalize_first(text: str) -> str:
    """Upper-case the first letter of ``text`` (leaves sentinels and punctuation alone)."""
    for i, ch in enumerate(text):
        if ch.isalpha():
            return text[:i] + ch.upper() + text[i + 1 :]
        if not (ch in "\"'“(" or ch.isspace()):
            return text
    return text


def decapitalize_first(text: str) -> str:
    """Lower-case the first word's first letter unless it is ``I``/``I'd``... or an acronym."""
    m = re.match(r"\s*([A-Za-z]+)", text)
    if not m:
        return text
    word = m.group(1)
    if word == "I" or (len(word) > 1 and word.isupper()):
        return text
    i = m.start(1)
    return text[:i] + word[0].lower() + text[i + 1 :]


def _match_blocks(a: Sequence[str], b: Sequence[str]) -> list[difflib.Match]:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()


def word_change_share(a: Sequence[str], b: Sequence[str]) -> float:
    """``1 - matched / max(len(a), len(b))`` under difflib word alignment (0 = same words)."""
    longest = max(len(a), len(b))
    if longest == 0:
        return 0.0
    matched = sum(block.size for block in _match_blocks(a, b))
    return 1.0 - matched / longest


def inserted_count(a: Sequence[str], b: Sequence[str]) -> int:
    """How many tokens of ``b`` difflib does not align with a token of ``a``."""
    matched = sum(block.size for block in _match_blocks(a, b))
    return len(b) - matched


def altered_share(a: Sequence[str], b: Sequence[str], eligible: Sequence[bool]) -> float:
    """Share of eligible tokens of ``a`` altered in ``b``: not aligned, or aligned in a
    same-length replace block to a different token."""
    n_eligible = sum(1 for e in eligible if e)
    if n_eligible == 0:
        return 0.0
    altered = 0
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            continue
        for k, i in enumerate(range(i1, i2)):
            if not eligible[i]:
                continue
            if tag == "replace" and i2 - i1 == j2 - j1 and a[i].lower() == b[j1 + k].lower():
                # same word in another case: altered only when the case differs
                altered += a[i] != b[j1 + k]
            else:
                altered += 1
    return altered / n_eligible


def kendall_distance(order: Sequence[int]) -> float:
    """Normalised Kendall tau distance of a permutation from the identity: discordant pairs
    divided by n(n-1)/2 (0 = same order, 1 = reversed)."""
    n = len(order)
    if n < 2:
        return 0.0
    discordant = sum(1 for i in range(n) for j in range(i + 1, n) if order[i] > order[j])
    return discordant / (n * (n - 1) / 2)


def rounded(value: float) -> float:
    """ε as recorded: rounded to 4 decimals (stable bytes across platforms)."""
    return round(float(value), 4)
