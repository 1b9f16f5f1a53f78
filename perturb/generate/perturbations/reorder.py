"""``reorder``: the same constraints in another order.

The masked prompt is split into constraint segments: sentences (a sentence that opens with a
reference back such as "It", "This" or "Also" stays glued to the one before), and within a
sentence its comma/semicolon clauses (a head clause plus constraint clauses such as
"economy class", "under £300"; clauses opening with "which", "but", "so", ... stay glued; a
sentence opening with "If"/"When"/... is not split). Sentences are permuted; within a
sentence the constraint clauses are permuted, and a clause opening with a preposition
("under £300", "on Friday") may move in front of the head ("Under £300, book ...").

Where order carries meaning ("first ... then", "after that", "finally", numbered steps, ...)
the task is skipped and the reason recorded.

ε = normalised Kendall tau distance between the canonical and the new order of the segments:
discordant pairs ÷ n(n-1)/2 (0 = same order, 1 = reversed). Measured on the finished text by
splitting it the same way and matching each segment to its canonical segment.
"""

from __future__ import annotations

import difflib
import functools
import random
import re
from dataclasses import dataclass
from typing import Any

from perturb.generate.perturbations._context import ClassSpec, SkipGeneration, TaskContext, Variant
from perturb.generate.perturbations._text import (
    capitalize_first,
    decapitalize_first,
    kendall_distance,
    rounded,
    sentence_spans,
)
from perturb.generate.slots import find_protected, mask, unmask

_ORDER_MARKERS: list[tuple[str, re.Pattern[str]]] = [
    ("'first ... then ...'", re.compile(r"\bfirst(?:ly)?\b[\s\S]*\bthen\b", re.I)),
    ("'then'", re.compile(r"\bthen\b", re.I)),
    ("'after that'", re.compile(r"\bafter (?:that|this|which)\b|\bafterwards?\b", re.I)),
    ("'followed by'", re.compile(r"\bfollowed by\b", re.I)),
    ("'next' / 'finally'", re.compile(r"\bnext,|\bfinally\b|\blastly\b|\bsecondly\b", re.I)),
    ("'in that order'", re.compile(r"\bin (?:that|this|the following) order\b", re.I)),
    ("'before/once ...'", re.compile(r"\b(?:before|once) (?:you|that|doing|it|we|I)\b", re.I)),
    (
        "numbered steps",
        re.compile(r"(?:^|\n|\s)(?:\(?\d\)|\d[.)])\s+[A-Za-z]|\bstep \d\b|\bstep one\b", re.I),
    ),
]
_GLUE_SENTENCE = {
    "it",
    "this",
    "that",
    "they",
    "them",
    "these",
    "those",
    "there",
    "also",
    "then",
    "he",
    "she",
    "his",
    "her",
    "its",
    "their",
    "so",
    "but",
    "and",
    "or",
    "otherwise",
    "instead",
    "however",
    "both",
    "same",
    "such",
    "which",
    "as",
    "plus",
    "too",
}
_GLUE_CLAUSE = {
    "which",
    "who",
    "whom",
    "whose",
    "that",
    "but",
    "so",
    "because",
    "as",
    "where",
    "when",
    "if",
    "unless",
    "or",
    "then",
    "since",
    "while",
    "although",
    "though",
    "otherwise",
    "and",
    "it",
    "this",
}
_BARE = {"please", "thanks", "thank you", "thank you very much", "cheers"}
_NO_SPLIT = {
    "if",
    "when",
    "unless",
    "because",
    "although",
    "though",
    "while",
    "since",
    "as",
    "once",
    "after",
    "before",
    "whether",
    "hi",
    "hello",
    "hey",
}
_FRONTABLE = {
    "under",
    "below",
    "for",
    "on",
    "in",
    "at",
    "by",
    "within",
    "with",
    "without",
    "from",
    "via",
    "between",
    "no",
    "not",
    "ideally",
    "preferably",
    "around",
    "over",
    "above",
    "during",
    "near",
}


@dataclass
class Unit:
    """A sentence (or glued sentences): its clauses and its final punctuation."""

    clauses: list[str]
    end: str
    and_last: bool
    splittable: bool


def _first_word(text: str) -> str:
    m = re.match(r"\W*([A-Za-z']+)", text)
    return m.group(1).lower() if m else ""


def _split_unit(sentence: str) -> Unit:
    end = ""
    m = re.search(r"[.!?]+[\"'”’)]*$", sentence)
    body = sentence
    if m:
        body, end = sentence[: m.start()], sentence[m.start() :]
    if _first_word(body) in _NO_SPLIT:
        return Unit([body], end, False, False)
    parts = [p for p in re.split(r"\s*[,;]\s+", body) if p]
    clauses: list[str] = []
    for part in parts:
        glue = _first_word(part) in _GLUE_CLAUSE or part.lower().strip(" !.") in _BARE
        if clauses and glue and not part.lower().startswith("and "):
            clauses[-1] += ", " + part
        else:
            clauses.append(part)
    and_last = len(clauses) > 2 and clauses[-1].lower().startswith("and ")
    if and_last:
        clauses[-1] = clauses[-1][4:]
    # a middle clause that starts with "and" (not the last) stays glued to its predecessor
    merged: list[str] = []
    for c in clauses:
        if merged and c.lower().startswith("and "):
            merged[-1] += ", " + c
        else:
            merged.append(c)
    return Unit(merged, end, and_last, len(merged) > 1)


_GREETING_RE = re.compile(
    r"^\s*(?:(?:hi|hello|hey|dear)(?: there| team| all| sir| madam)?|good (?:morning|afternoon|evening))"
    r"[,!.]?\s+",
    re.I,
)
_SIGN_OFF_RE = re.compile(r"^(?:thanks|thank you|many thanks|cheers|regards|best)\b", re.I)


def _pinned(masked: str) -> tuple[str, str, str]:
    """Split off a greeting (stays first) and a closing thanks sentence (stays last)."""
    head = ""
    m = _GREETING_RE.match(masked)
    if m:
        head, masked = masked[: m.end()], masked[m.end() :]
    tail = ""
    spans = sentence_spans(masked)
    if len(spans) > 1 and _SIGN_OFF_RE.match(masked[spans[-1][0] :]):
        tail = " " + masked[spans[-1][0] :]
        masked = masked[: spans[-1][0]].rstrip()
    return head, masked, tail


def units_of(masked: str) -> list[Unit]:
    """The constraint structure of a masked text (greeting and closing thanks excluded)."""
    sentences: list[str] = []
    for a, b in sentence_spans(masked):
        s = masked[a:b]
        if sentences and _first_word(s) in _GLUE_SENTENCE:
            sentences[-1] += " " + s
        else:
            sentences.append(s)
    return [_split_unit(s) for s in sentences]


def _render(units: list[Unit], orders: list[list[int]], unit_order: list[int]) -> str:
    out = []
    for k, u in enumerate(unit_order):
        unit = units[u]
        clauses = [unit.clauses[i] for i in orders[u]]
        head_pos = orders[u].index(0)
        if head_pos != 0:
            clauses[head_pos] = decapitalize_first(clauses[head_pos])
        clauses[0] = capitalize_first(clauses[0])
        if unit.and_last and len(clauses) > 1:
            clauses[-1] = "and " + clauses[-1]
        end = unit.end or ("." if k < len(unit_order) - 1 else "")
        out.append(", ".join(clauses) + end)
    return " ".join(out)


def _flat(units: list[Unit], orders: list[list[int]], unit_order: list[int]) -> list[int]:
    offsets, total = [], 0
    for unit in units:
        offsets.append(total)
        total += len(unit.clauses)
    return [offsets[u] + i for u in unit_order for i in orders[u]]


def _clause_order(unit: Unit, rng: random.Random) -> list[int]:
    n = len(unit.clauses)
    if not unit.splittable or n < 2:
        return list(range(n))
    tails = list(range(1, n))
    rng.shuffle(tails)
    front = [t for t in tails if _first_word(unit.clauses[t]) in _FRONTABLE and rng.random() < 0.3]
    return front + [0] + [t for t in tails if t not in front]


def order_carries_meaning(prompt: str) -> str | None:
    """The reason a prompt's order must not change, or None."""
    for label, rx in _ORDER_MARKERS:
        if rx.search(prompt):
            return f"order carries meaning ({label})"
    return None


@functools.lru_cache(maxsize=1024)
def _structure(masked: str) -> tuple[str, tuple[Unit, ...], str]:
    head, body, tail = _pinned(masked)
    return head, tuple(units_of(body)), tail


def generate(ctx: TaskContext, level: float, rng: random.Random, index: int = 0) -> Variant:
    reason = order_carries_meaning(ctx.prompt)
    if reason:
        raise SkipGeneration(reason)
    head, unit_tuple, tail = _structure(ctx.masked)
    units = list(unit_tuple)
    movable = len(units) > 1 or any(len(u.clauses) > 1 for u in units)
    if not movable:
        raise SkipGeneration(
            "fewer than two constraint segments to reorder (one sentence without separable clauses)"
        )
    identity = _flat(units, [list(range(len(u.clauses))) for u in units], list(range(len(units))))
    found: dict[tuple[int, ...], tuple[float, int, list[list[int]], list[int]]] = {}
    for k in range(30):
        unit_order = list(range(len(units)))
        rng.shuffle(unit_order)
        orders = [_clause_order(u, rng) for u in units]
        flat = _flat(units, orders, unit_order)
        if flat == identity or tuple(flat) in found:
            continue
        found[tuple(flat)] = (abs(kendall_distance(flat) - level), k, orders, unit_order)
    ranked = sorted(found.items(), key=lambda item: item[1][:2])
    if not ranked:
        raise SkipGeneration(
            "no other order of the constraint segments keeps the request well-formed "
            "(only the head clause and clauses that cannot move)"
        )
    if len(ranked) <= index:
        raise SkipGeneration(
            f"only {len(ranked)} other order(s) of the constraint segments found "
            f"(variant index {index} asked)"
        )
    flat_t, (_, _, orders, unit_order) = ranked[index]
    rendered = _render(units, orders, unit_order)
    if head:
        rendered = head + (decapitalize_first(rendered) if head.rstrip()[-1:] == "," else rendered)
    text = ctx.unmask(rendered + tail)
    segments = [ctx.unmask(c) for u in units for c in u.clauses]
    return Variant(text=text, details={"order": list(flat_t), "segments": segments})


def _norm(clause: str) -> str:
    c = clause.lower().strip()
    c = re.sub(r"^and\s+", "", c)
    return re.sub(r"[^\w\s]", "", c).strip()


def segments_of(ctx: TaskContext, text: str) -> list[str]:
    """The flat constraint segments of ``text`` (unmasked), split as the generator splits."""
    spans = find_protected(text, ctx.task.slots)
    masked, values = mask(text, spans)
    _, body, _ = _pinned(masked)
    return [unmask(c, values) for u in units_of(body) for c in u.clauses]


def measure(ctx: TaskContext, text: str, details: dict[str, Any]) -> float:
    original = [_norm(c) for c in segments_of(ctx, ctx.prompt)]
    new = [_norm(c) for c in segments_of(ctx, text)]
    free = list(range(len(original)))
    order: list[int] = []
    for seg in new:
        if not free:
            break
        exact = [i for i in free if original[i] == seg]
        if exact:
            pick = exact[0]
        else:
            pick = max(free, key=lambda i: (difflib.SequenceMatcher(None, original[i], seg).ratio(), -i))
        free.remove(pick)
        order.append(pick)
    return rounded(kendall_distance(order))


SPEC = ClassSpec(
    name="reorder",
    default_level=0.3,
    max_level=1.0,
    length_ratio=(0.9, 1.12),
    epsilon="normalised Kendall tau distance between the canonical and the new order of the "
    "constraint segments (discordant pairs / n(n-1)/2)",
    generate=generate,
    measure=measure,
)
"""The reorder class: rules generator, ε definition and screening bounds."""
