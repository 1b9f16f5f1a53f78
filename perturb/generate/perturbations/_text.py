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


BACK_REFERENCE_RE = re.compile(
    r"(?<![\w'’])(?:it|its|it's|they|them|their|there|he|she|him|his|her|the same|such|"
    r"the (?:following|whole|other|extra|rest|remaining|previous)|"
    r"the (?:second|duplicate)(?!\s+(?:of|half|floor|week|weekend|month|year|time|day|hand)\b)|"
    r"one of them|the other|(?:this|that|these|those)(?!\s+(?:week|weekend|month|year|morning|"
    r"afternoon|evening|time)\b))(?![\w'’])",
    re.I,
)
"""A word that refers back to something said before ("it", "them", "the same", "that" not
naming a time; a definite "the second/other/extra/duplicate X": "refund the second charge"
picks one of things told before): a sentence holding one never moves before, or is separated
by an insertion from, the text it follows."""


PARTICIPLE = r"(?:[a-z]{3,}ed|made|done|seen|sent|taken|fixed|cut|set|put|redone|remade)"
"""A past participle after an object ("the locks changed", "a print framed", "a new one made"):
the one owner of the causative shape that register and paraphrase read."""
OBJECT_WORDS = r"(?:\s+(?:[a-z]+|\ue000[^\ue001]*\ue001))"
"""One word of an object noun phrase (or a protected value), as a repeatable group."""
CAUSATIVE_TAIL_RE = re.compile(OBJECT_WORDS + r"{1,3}?\s+" + PARTICIPLE + r"\b", re.I)
"""The rest of an object after its determiner, then a past participle (" print framed"): work
done to a thing, not the thing itself."""


GRAVE_RE = re.compile(
    r"\b(?:died|dying|passed\s+away|passed\s+on|death|deceased|funerals?|bereaved|bereavement|"
    r"condolences?|hospice|terminally\s+ill|cremat(?:ion|ed)|burial|buried|coffin|casket|grief|"
    r"grieving|mourning|(?:my|our|her|his)\s+late)\b",
    re.I,
)
"""A message about a death, a funeral or a terminal illness ("my father passed away this
morning", "a woodland burial", "my late husband"): the one owner of that tone. Nothing light is
put into it: no flippant correction ("oops, that's wrong"), no cheery closing ("Thanks a
bunch"), no texting register ("can u")."""


def grave_message(text: str) -> bool:
    """Whether ``text`` speaks of a death, a funeral or a terminal illness (:data:`GRAVE_RE`)."""
    return GRAVE_RE.search(text) is not None


def message_style(masked: str) -> str:
    """The way a message is written: ``spoken`` (one short sentence: a voice command),
    ``lower`` (a lower-case message without final punctuation) or ``written``."""
    letters = re.search(r"[A-Za-z]", masked)
    spans = sentence_spans(masked)
    if letters and masked[letters.start()].islower() and not masked.rstrip().endswith((".", "!", "?")):
        return "lower"
    if (
        len(spans) == 1
        and len(words(masked)) <= 12
        and "," not in masked
        and not masked.rstrip().endswith(".")
    ):
        return "spoken"
    return "written"


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
NOT_VERB_FORMS = frozenset(
    "morning mornings evening evenings thing things something anything nothing everything king ring "
    "spring string building wedding meeting parking booking ceiling clothing housing "
    "ed bed red shed".split()
)
"""Words ending in -ing/-ed that are never verb forms ("saturday morning under $90", "the
wedding", "the shed"): reorder's phrase split reads them as nouns anywhere, paraphrase's
progressive-verb check inside a subject (with more words that are nouns there)."""
_PRONOUN = r"(?:I|I'm|I'll|I'd|I've|we|we're|we'll|we've|we'd|they|they're|he|she)"
_TRAILING_CLAUSE_RE = re.compile(
    r"(?<!\s)\s*[;—–]\s*|(?<!\s)\s+-\s+|,\s+(?=" + _SUBJECT + r"(?![\w'’]))"
    r"|(?:,|(?<!\s))\s+and\s+(?=" + _PRONOUN + r"(?![\w'’]))",
    re.I,
)
"""The separator of :func:`trailing_clause`. A separator that opens with spaces starts where
their run does (the leftmost match always did), so a long run of spaces is read once."""


def trailing_clause(sentence: str) -> tuple[int, int] | None:
    """The separator after the main request of ``sentence`` when a clause with its own
    subject follows ("Cancel booking BK-1 please, my conference was called off.": the ``, ``
    before "my"), as ``(start, end)`` offsets; None when the sentence is one clause. The
    separator is ``;``, a dash, a comma before a subject, or "and" before a pronoun."""
    m = _TRAILING_CLAUSE_RE.search(sentence)
    if not m or m.start() == 0 or m.end() >= len(sentence.rstrip(".?!… ")):
        return None
    return m.start(), m.end()


_LABEL_AFTER_RE = re.compile(r"\s+(?:number|no\.?|ref|reference|id|code|#)\b|-[A-Za-z]", re.I)


def heads_label(after_word: str) -> bool:
    """The text after a verb-looking word makes that word the head of a label ("Order" in
    "Order number X", "Book" in "Book reference X"): it names a number, it asks no one to act.
    A hyphen joining a word on makes a compound noun ("Check-in at 3pm", "Drop-off is at 5"):
    its first half is no request verb either."""
    return _LABEL_AFTER_RE.match(after_word) is not None


RECORD_NOUNS = frozenset(
    "order booking book reservation ticket claim case invoice account policy job reference ref receipt "
    "parcel package shipment file request quote call check".split()
)
"""Words that can be verbs but also name a record by its code ("Order DC-6605", "Invoice
88-2231", "Quote Q-17")."""

_SENTINEL = "\ue000[^\ue001]*\ue001"
_CODE_AFTER_RE = re.compile(
    r"\s*(?:#\s*)?" + _SENTINEL + r"(?:(?:[-/]" + _SENTINEL + r")+"
    r"|(?=\s*(?:(?i:please|pls)\b\s*)?(?:[,;:.!?)]|$)))"
)
"""An identifier code right after a word: a value followed by punctuation or the end, with or
without a closing "please" ("Order DC-6605, 3 adult tickets", "Order DC-6605 please."), or
values joined by dashes ("Invoice 88-2231 for the repair"). A value followed by a word may be a
quantity ("Order 3 pizzas") and is not a code here."""


def names_record(word: str, after_word: str) -> bool:
    """Whether ``word`` (a verb-looking record noun) followed by ``after_word`` is a label naming
    a record by its code ("Order DC-6605, 3 adult tickets ..."): nobody is asked to order,
    book, invoice or call anything, so no request frame may wrap the sentence. A code after
    "call"/"book" that is really an object ("Call 0207-555-1234") is refused as well: a
    missing variant is safer than a changed meaning."""
    return word.lower() in RECORD_NOUNS and _CODE_AFTER_RE.match(after_word) is not None


def match_case(template: str, word: str) -> str:
    """``word`` in the case style of ``template`` (UPPER, Title or as given)."""
    if len(template) > 1 and template.isupper():
        # an acronym ("ATM", "ASAP") swapped for words keeps the words' own case
        acronym = len(template) <= 5 and not (word.isalpha() and len(word) <= 5)
        return word if acronym else word.upper()
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


_SMALL = 200_000
"""Largest ``len(a) * len(b)`` aligned with difflib directly; larger stretches are first cut
at anchors (see :func:`_match_blocks`)."""


def _match_blocks(a: Sequence[str], b: Sequence[str]) -> list[difflib.Match]:
    """Matching blocks of two token sequences, as ``difflib.SequenceMatcher`` gives them,
    in time near-linear in their length: common prefix and suffix are matched first; a stretch
    too long for difflib is cut at anchors -- tokens that occur exactly once on each side, the
    longest increasing chain of them (patience diff) -- and each gap is aligned on its own.
    On short texts (every prompt of the bundled suites) the result is difflib's."""
    blocks: list[tuple[int, int, int]] = []
    _align(a, b, 0, len(a), 0, len(b), blocks)
    blocks.sort()
    merged: list[list[int]] = []
    for i, j, n in blocks:
        if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
            merged[-1][2] += n
        elif n:
            merged.append([i, j, n])
    out = [difflib.Match(i, j, n) for i, j, n in merged]
    out.append(difflib.Match(len(a), len(b), 0))
    return out


def _align(
    a: Sequence[str],
    b: Sequence[str],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    out: list[tuple[int, int, int]],
) -> None:
    if (ahi - alo) * (bhi - blo) <= _SMALL:
        matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
        out.extend((alo + m.a, blo + m.b, m.size) for m in matcher.get_matching_blocks() if m.size)
        return
    start = 0
    while alo + start < ahi and blo + start < bhi and a[alo + start] == b[blo + start]:
        start += 1
    if start:
        out.append((alo, blo, start))
        alo, blo = alo + start, blo + start
    end = 0
    while ahi - end > alo and bhi - end > blo and a[ahi - end - 1] == b[bhi - end - 1]:
        end += 1
    if end:
        out.append((ahi - end, bhi - end, end))
        ahi, bhi = ahi - end, bhi - end
    if alo >= ahi or blo >= bhi:
        return
    if (ahi - alo) * (bhi - blo) <= _SMALL:
        matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
        out.extend((alo + m.a, blo + m.b, m.size) for m in matcher.get_matching_blocks() if m.size)
        return
    chain = _anchors(a, b, alo, ahi, blo, bhi)
    if not chain:  # no unique tokens to cut at (a repetitive text): resynchronise greedily
        _greedy(a, b, alo, ahi, blo, bhi, out)
        return
    pa, pb = alo, blo
    for i, j in chain:
        _align(a, b, pa, i, pb, j, out)
        out.append((i, j, 1))
        pa, pb = i + 1, j + 1
    _align(a, b, pa, ahi, pb, bhi, out)


_WINDOW = 64
_RESYNC = 3


def _greedy(
    a: Sequence[str],
    b: Sequence[str],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    out: list[tuple[int, int, int]],
) -> None:
    """Linear-time alignment for long, repetitive stretches: walk both sides together; at a
    difference, skip to the nearest point (within a window) where three tokens agree again.
    Exact for the local edits perturbations make; an approximation of the LCS otherwise."""
    i, j = alo, blo
    while i < ahi and j < bhi:
        if a[i] == b[j]:
            k = 0
            while i + k < ahi and j + k < bhi and a[i + k] == b[j + k]:
                k += 1
            out.append((i, j, k))
            i, j = i + k, j + k
            continue
        grams: dict[tuple[str, ...], int] = {}
        for q in range(j, min(bhi - _RESYNC + 1, j + _WINDOW)):
            grams.setdefault(tuple(b[q : q + _RESYNC]), q)
        best: tuple[int, int, int] | None = None
        for p in range(i, min(ahi - _RESYNC + 1, i + _WINDOW)):
            hit = grams.get(tuple(a[p : p + _RESYNC]))
            if hit is not None and (best is None or (p - i) + (hit - j) < best[0]):
                best = ((p - i) + (hit - j), p, hit)
        if best is None:
            return
        i, j = best[1], best[2]


def _anchors(
    a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """Tokens unique on both sides, as (i, j) pairs forming the longest chain increasing in
    both (patience sorting, O(n log n))."""
    import bisect

    count_a: dict[str, int] = {}
    where_a: dict[str, int] = {}
    for i in range(alo, ahi):
        count_a[a[i]] = count_a.get(a[i], 0) + 1
        where_a[a[i]] = i
    count_b: dict[str, int] = {}
    where_b: dict[str, int] = {}
    for j in range(blo, bhi):
        count_b[b[j]] = count_b.get(b[j], 0) + 1
        where_b[b[j]] = j
    pairs = sorted((where_a[t], where_b[t]) for t, n in count_a.items() if n == 1 and count_b.get(t) == 1)
    # longest increasing subsequence of the j's
    tails: list[int] = []
    tail_idx: list[int] = []
    prev = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        pos = bisect.bisect_left(tails, j)
        if pos == len(tails):
            tails.append(j)
            tail_idx.append(k)
        else:
            tails[pos] = j
            tail_idx[pos] = k
        prev[k] = tail_idx[pos - 1] if pos else -1
    chain: list[tuple[int, int]] = []
    k = tail_idx[-1] if tail_idx else -1
    while k >= 0:
        chain.append(pairs[k])
        k = prev[k]
    chain.reverse()
    return chain


def _opcodes(a: Sequence[str], b: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """``difflib``-style opcodes from :func:`_match_blocks`."""
    i = j = 0
    ops: list[tuple[str, int, int, int, int]] = []
    for ai, bj, size in _match_blocks(a, b):
        tag = ""
        if i < ai and j < bj:
            tag = "replace"
        elif i < ai:
            tag = "delete"
        elif j < bj:
            tag = "insert"
        if tag:
            ops.append((tag, i, ai, j, bj))
        i, j = ai + size, bj + size
        if size:
            ops.append(("equal", ai, i, bj, j))
    return ops


def word_change_share(a: Sequence[str], b: Sequence[str]) -> float:
    """``1 - matched / max(len(a), len(b))`` under word alignment (difflib's on short texts,
    anchored for long ones: see :func:`_match_blocks`; 0 = same words)."""
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
    ops = _opcodes(a, b)
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


WAKE_WORD_RE = re.compile(
    r"^\s*(?:"
    r"(?:hey|ok|okay)\s+(?:alexa|siri|google|cortana|bixby)\b\s*,?"
    r"|(?:alexa|siri|google|cortana|bixby)\s*,"
    r"|(?:alexa|siri|cortana|bixby)\s+(?=[a-z])(?!\w+(?:ed|s)\b|(?:is|was|has|had|can't|won't|doesn't|didn't)\b)"
    r")\s*",
    re.I,
)
"""A voice command's wake word and the comma after it ("Alexa, ", "Hey Google, "). The comma
may be missing after "Hey"/"OK" ("OK Google turn the lights off") and before a verb that reads
as an order ("Alexa set a timer"); a bare "Google" needs it (it is also a verb: "Google the
nearest pharmacy"), and a name followed by a past or third-person verb is the subject of a
sentence about the assistant, not a wake word ("Alexa stopped playing music", "Siri keeps
mishearing me", "Google Docs keeps logging me out"). The one owner for distractor, reorder
and typo.
"""
