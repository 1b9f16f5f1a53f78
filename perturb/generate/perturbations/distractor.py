"""``distractor``: irrelevant but plausible background added before, after or between sentences.

Sentences come from a shipped pool (``perturb/generate/data/distractors.json``, about 300 sentences of
two to twenty words) that holds no number, date, weekday, month, time,
money, email, URL, ID, quoted text, place name or stated preference (a test checks every entry
with the protected-value detectors). Per task the pool is filtered again: an entry sharing a
content word with the prompt, a slot name or a slot value is dropped, so nothing inserted
competes with the request.

How much is inserted is decided before anything random: the number of inserted tokens is the
sum of pool lengths (at most eight sentences) nearest to ``level × canonical tokens`` (ties go
to the smaller). That depends only on the task and the level, so a higher level always inserts
more tokens than a lower one for the same task and index, and ε lands within half a token per
canonical token of the level wherever the pool allows. The seeded generator then picks which
sentences make up that sum (spread over the whole pool) and places each, whole, in a gap:
before the first sentence (not before a greeting; never a sentence that presupposes earlier
talk, such as "Sorry, I digress.", which the pool marks as a follow-up), between two
sentences (never right before a sentence that refers back, such as "It was €135." or "Same
time if possible."), or after the last one (only when it ends in punctuation, so no original
byte changes). No aside is ever glued onto a sentence.

ε = inserted word tokens ÷ word tokens of the canonical prompt, measured on the finished
text as the variant's tokens that difflib does not align with the canonical's.
"""

from __future__ import annotations

import functools
import math
import random
import re
from dataclasses import dataclass
from typing import Any

from perturb.generate.perturbations._context import ClassSpec, SkipGeneration, TaskContext, Variant, load_data
from perturb.generate.perturbations._text import (
    BACK_REFERENCE_RE,
    decapitalize_first,
    inserted_count,
    message_style,
    rounded,
    sentence_spans,
    words,
)
from perturb.generate.slots import find_protected

MAX_PIECES = 8
"""At most this many pool sentences per variant."""

_STOP = frozenset(
    "this that with from have been your will would could should about there their what when "
    "which please thanks into just also some more very much like need want know make sure here "
    "they them were then than only over after before because while being does doing done still "
    "again every things thing well really quite rather something anything make made sorry hope "
    "help".split()
)
_GREETING_RE = re.compile(r"^\s*(?:hi|hello|hey|dear|good (?:morning|afternoon|evening))\b", re.I)
BACKREF_RE = re.compile(
    r"^[\"'“(]*(?:it|it's|its|this|that|that's|these|those|they|they're|them|their|he|she|his|"
    r"her|same|such|both|so|and|but|or|then|also|which|otherwise|instead|there)(?![\w'])",
    re.I,
)
"""A sentence opening that refers back to the sentence before it: nothing is inserted
between the two."""


def _stem(word: str) -> str:
    w = word.lower().replace("’", "'")
    w = w.split("'", 1)[0]
    for suffix in ("ing", "ed", "es", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


def _content(text: str) -> set[str]:
    return {_stem(w) for w in words(text) if len(w) >= 4 and w.lower() not in _STOP}


MIN_WORDS = 4
"""Pool sentences shorter than this are used only when they are whole clauses with a verb
("Kettle's boiling.", "Kids are shouting."); verbless fragments ("Noisy street.", "Busy
household.") read as out of context."""
_VERB_RE = re.compile(r"\b(?:is|are|am|was|were)\b|['’](?:s|m|re)\b|\b\w+(?:ing|ed)\b", re.I)
_FILLER_RE = re.compile(r"^(?:sorry|hope|forgive|excuse|apologies|bear with|quick question)\b", re.I)
"""Stock filler ("Sorry, I digress.", "Hope all is well.") that reads as padding, not as
background a user would give: not used."""


def _entries(key: str, min_words: int = MIN_WORDS) -> tuple[tuple[str, frozenset[str], int], ...]:
    out = []
    later = set(load_data("distractors").get("follow_ups", []))
    for text in load_data("distractors")[key]:
        n = len(words(text))
        if find_protected(text) or text in later or _FILLER_RE.match(text):
            continue
        if n < min_words and not _VERB_RE.search(text):
            continue
        out.append((text, frozenset(_content(text)), n))
    return tuple(out)


@functools.lru_cache(maxsize=1)
def pool() -> tuple[tuple[str, frozenset[str], int], ...]:
    """The shipped sentences that carry no protected value, with their content words and
    token counts."""
    return _entries("sentences")


@functools.lru_cache(maxsize=1)
def spoken_pool() -> tuple[tuple[str, frozenset[str], int], ...]:
    """Spoken lead-ins for a voice command ("Okay, um,", "I'm just cooking, so"): what a
    person says before the command itself."""
    return _entries("spoken", 1)


@functools.lru_cache(maxsize=1)
def follow_ups() -> frozenset[str]:
    """Pool sentences that presuppose earlier talk ("Sorry, I digress."): only ever inserted
    after at least one of the user's own sentences."""
    return frozenset(load_data("distractors")["follow_ups"])


def _banned(ctx: TaskContext) -> frozenset[str]:
    """Content words of the prompt, slot names and slot values."""
    if "distractor_banned" not in ctx.memo:
        task = ctx.task
        banned = _content(task.prompt)
        for name, value in task.slots.items():
            banned |= _content(name.replace("_", " ")) | _content(value)
        ctx.memo["distractor_banned"] = frozenset(banned)
    banned_words: frozenset[str] = ctx.memo["distractor_banned"]
    return banned_words


@dataclass(frozen=True)
class _Allowed:
    """The pool entries one task may use, indexed for drawing."""

    sentences: tuple[tuple[str, int], ...]
    by_len: dict[int, tuple[str, ...]]
    counts: tuple[tuple[int, int], ...]


@functools.lru_cache(maxsize=1024)
def _allowed(banned: frozenset[str], follow_ups_ok: bool = True, spoken: bool = False) -> _Allowed:
    later = follow_ups()
    source = spoken_pool() if spoken else pool()
    sentences = tuple(
        (s, n) for s, content, n in source if not (content & banned) and (follow_ups_ok or s not in later)
    )
    by_len: dict[int, list[str]] = {}
    for s, n in sentences:
        by_len.setdefault(n, []).append(s)
    return _Allowed(
        sentences=sentences,
        by_len={n: tuple(v) for n, v in by_len.items()},
        counts=tuple(sorted((n, len(v)) for n, v in by_len.items())),
    )


def candidates_for(ctx: TaskContext) -> list[tuple[str, int]]:
    """Pool sentences allowed for this task (no shared content word with prompt or slots)."""
    return list(_allowed(_banned(ctx)).sentences)


@functools.lru_cache(maxsize=512)
def _tables(counts: tuple[tuple[int, int], ...]) -> tuple[tuple[int, ...], ...]:
    """``T[i][j]``: bit set of the token sums of ``j`` distinct sentences drawn from the first
    ``i`` lengths of ``counts`` (``(length, how many sentences have it)``)."""
    rows = [tuple([1] + [0] * MAX_PIECES)]
    for length, count in counts:
        prev = rows[-1]
        row = []
        for j in range(MAX_PIECES + 1):
            acc = 0
            for u in range(min(count, j) + 1):
                acc |= prev[j - u] << (u * length)
            row.append(acc)
        rows.append(tuple(row))
    return tuple(rows)


@functools.lru_cache(maxsize=4096)
def target_tokens(counts: tuple[tuple[int, int], ...], target: float) -> tuple[int, int]:
    """``(tokens, sentences)``: the achievable token sum nearest ``target`` (ties: the smaller)
    and the number of sentences to make it of, near one sentence per fourteen tokens. Depends
    on nothing random, so it grows with ``target``."""
    last = _tables(counts)[-1]
    reach = 0
    for j in range(1, MAX_PIECES + 1):
        reach |= last[j]
    sums = [s for s in range(1, reach.bit_length()) if reach >> s & 1]
    tokens = min(sums, key=lambda s: (abs(s - target), s))
    prefer = max(1, math.ceil(tokens / 14))
    pieces = min(
        (j for j in range(1, MAX_PIECES + 1) if last[j] >> tokens & 1), key=lambda j: (abs(j - prefer), j)
    )
    return tokens, pieces


def _sums(counts: tuple[tuple[int, int], ...], most: int) -> list[tuple[int, int]]:
    """``(tokens, pieces)`` reachable with 1 to ``most`` distinct sentences."""
    last = _tables(counts)[-1]
    return [(t, j) for j in range(1, most + 1) for t in range(1, last[j].bit_length()) if last[j] >> t & 1]


def _pick(allowed: _Allowed, tokens: int, pieces: int, rng: random.Random) -> list[str]:
    """``pieces`` distinct sentences whose lengths sum to ``tokens`` (which the tables
    guarantee possible), the lengths and then the sentences drawn at random."""
    counts = allowed.counts
    table = _tables(counts)
    chosen: list[str] = []
    rest, left = tokens, pieces
    for i in range(len(counts), 0, -1):
        length, count = counts[i - 1]
        options = [
            u
            for u in range(min(count, left) + 1)
            if rest - u * length >= 0 and table[i - 1][left - u] >> (rest - u * length) & 1
        ]
        u = rng.choice(options)
        chosen.extend(rng.sample(allowed.by_len[length], u))
        rest -= u * length
        left -= u
    rng.shuffle(chosen)
    return chosen


def gaps_of(masked: str) -> list[int]:
    """Where a sentence may go: ``g`` means before sentence ``g`` (``len(spans)``: at the end)."""
    spans = sentence_spans(masked)
    gaps = []
    for g in range(len(spans) + 1):
        if g == len(spans):
            tail = masked.rstrip()
            if tail.endswith((".", "!", "?")) and not tail.endswith("\ue001"):
                gaps.append(g)
        elif g == 0:
            if not _GREETING_RE.match(masked):
                gaps.append(g)
        elif not BACKREF_RE.match(masked[spans[g][0] : spans[g][1]]) and not BACK_REFERENCE_RE.search(
            masked[spans[g][0] : spans[g][1]]
        ):
            gaps.append(g)
    return gaps or [0]


def _as_lower(sentence: str) -> str:
    """A pool sentence the way a lower-case writer types it: no capital, no final stop."""
    return decapitalize_first(sentence).rstrip(".!")


def generate(ctx: TaskContext, level: float, rng: random.Random, index: int = 0) -> Variant:
    masked = ctx.masked
    spans = sentence_spans(masked)
    style = message_style(masked)
    gaps = gaps_of(masked) if style == "written" else [0]
    later_gaps = [g for g in gaps if g >= 1]
    allowed = _allowed(_banned(ctx), False, style == "spoken")
    if not allowed.sentences:
        raise SkipGeneration("no distractor sentence is free of words that compete with the prompt")
    n_tokens = max(1, len(words(ctx.prompt)))
    tokens, pieces = target_tokens(allowed.counts, level * n_tokens)
    if style == "spoken" and pieces > 2:  # at most two lead-ins before a voice command
        tokens, pieces = min(
            ((t, j) for t, j in _sums(allowed.counts, 2)),
            key=lambda tj: (abs(tj[0] - level * n_tokens), tj[0]),
        )
    chosen = _pick(allowed, tokens, pieces, rng)
    if style == "spoken":  # "Okay, um," before "I'm cooking, so": the one that hands over last
        chosen.sort(key=lambda c: c.endswith(" so"))
    if style != "written":
        # a voice command gets its lead-in first; a lower-case message gets lower-case asides
        # before it, joined by commas the way such messages run on
        lead = ", ".join(_as_lower(c) if style == "lower" else c for c in chosen)
        lead = lead[:1].upper() + lead[1:] if style == "spoken" else lead
        sep = " " if lead.endswith(",") else ", "
        out = lead + sep + decapitalize_first(masked)
        details = {"inserted": [{"gap": 0, "text": c} for c in chosen], "style": style}
        return Variant(text=ctx.unmask(out), details=details)
    placed = [(rng.choice(later_gaps or gaps), sentence) for sentence in chosen]
    out = masked
    # Insert from the back so earlier offsets stay valid; a stable order within one gap.
    by_gap: dict[int, list[str]] = {}
    for gap, sentence in placed:
        by_gap.setdefault(gap, []).append(sentence)
    for gap in sorted(by_gap, reverse=True):
        block = " ".join(by_gap[gap])
        if gap == len(spans):
            end = len(out.rstrip())
            out = out[:end] + " " + block + out[end:]
        else:
            at = spans[gap][0]
            out = out[:at] + block + " " + out[at:]
    details = {"inserted": [{"gap": g, "text": s} for g, s in sorted(placed, key=lambda c: c[0])]}
    return Variant(text=ctx.unmask(out), details=details)


def measure(ctx: TaskContext, text: str, details: dict[str, Any]) -> float:
    original = [w.lower() for w in words(ctx.prompt)]
    return rounded(inserted_count(original, [w.lower() for w in words(text)]) / max(1, len(original)))


SPEC = ClassSpec(
    name="distractor",
    default_level=0.3,
    max_level=3.0,
    length_ratio=(1.02, 5.0),
    epsilon="inserted word tokens / word tokens of the canonical prompt",
    generate=generate,
    measure=measure,
)
"""The distractor class: rules generator, ε definition and screening bounds."""
