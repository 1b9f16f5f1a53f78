"""``distractor``: irrelevant but plausible background added before, after or between sentences.

Sentences come from a shipped pool (``perturb/data/distractors.json``) that holds no number,
date, weekday, month, time, money, email, URL, ID, quoted text, place name or stated
preference (a test checks every sentence with the protected-value detectors). Per task the
pool is filtered again: a sentence sharing a content word with the prompt, a slot name or a
slot value is dropped, so no inserted sentence competes with the request.

Sentences are drawn in a seeded order until the inserted tokens reach the requested level
(at least one), each placed in a seeded gap: before the first sentence (not before a
greeting), between two sentences, or after the last one (only when it ends in punctuation,
so no original byte changes).

ε = inserted word tokens ÷ word tokens of the canonical prompt, measured on the finished
text as the variant's tokens that difflib does not align with the canonical's.
"""

from __future__ import annotations

import functools
import random
import re
from typing import Any

from ..slots import find_protected
from ._context import SkipGeneration, TaskContext, Variant, load_data
from ._text import inserted_count, rounded, sentence_spans, words

_STOP = frozenset(
    "this that with from have been your will would could should about there their what when "
    "which please thanks into just also some more very much like need want know make sure here "
    "they them were then than only over after before because while being does doing done still "
    "again every things thing well really quite rather something anything make made sorry hope "
    "help".split()
)
_GREETING_RE = re.compile(r"^\s*(?:hi|hello|hey|dear|good (?:morning|afternoon|evening))\b", re.I)


def _stem(word: str) -> str:
    w = word.lower().replace("’", "'")
    w = w.split("'", 1)[0]
    for suffix in ("ing", "ed", "es", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


def _content(text: str) -> set[str]:
    return {_stem(w) for w in words(text) if len(w) >= 4 and w.lower() not in _STOP}


@functools.lru_cache(maxsize=1)
def pool() -> tuple[tuple[str, frozenset[str], int], ...]:
    """The shipped sentences that carry no protected value, with their content words and
    token counts."""
    out = []
    for sentence in load_data("distractors")["sentences"]:
        if find_protected(sentence):
            continue
        out.append((sentence, frozenset(_content(sentence)), len(words(sentence))))
    return tuple(out)


def candidates_for(ctx: TaskContext) -> list[tuple[str, int]]:
    """Pool sentences allowed for this task (no shared content word with prompt or slots)."""
    task = ctx.task
    banned = _content(task.prompt)
    for name, value in task.slots.items():
        banned |= _content(name.replace("_", " ")) | _content(value)
    return [(s, n) for s, content, n in pool() if not (content & banned)]


def generate(ctx: TaskContext, level: float, rng: random.Random, index: int = 0) -> Variant:
    allowed = candidates_for(ctx)
    if not allowed:
        raise SkipGeneration("no distractor sentence is free of words that compete with the prompt")
    masked = ctx.masked
    spans = sentence_spans(masked)
    n_tokens = max(1, len(words(ctx.prompt)))
    gaps = list(range(len(spans) + 1))
    if _GREETING_RE.match(masked):
        gaps.remove(0)
    if not masked.rstrip().endswith((".", "!", "?")) or masked.rstrip().endswith("\ue001"):
        gaps.remove(len(spans))
    if not gaps:
        gaps = [0]
    order = list(allowed)
    rng.shuffle(order)
    chosen: list[tuple[int, str]] = []
    inserted = 0
    for sentence, n in order:
        chosen.append((rng.choice(gaps), sentence))
        inserted += n
        if inserted / n_tokens >= level:
            break
    out = masked
    # Insert from the back so earlier offsets stay valid; a stable order within one gap.
    by_gap: dict[int, list[str]] = {}
    for gap, sentence in chosen:
        by_gap.setdefault(gap, []).append(sentence)
    for gap in sorted(by_gap, reverse=True):
        block = " ".join(by_gap[gap])
        if gap == len(spans):
            end = len(out.rstrip())
            out = out[:end] + " " + block + out[end:]
        else:
            at = spans[gap][0]
            out = out[:at] + block + " " + out[at:]
    details = {"inserted": [{"gap": g, "text": s} for g, s in sorted(chosen, key=lambda c: c[0])]}
    return Variant(text=ctx.unmask(out), details=details)


def measure(ctx: TaskContext, text: str, details: dict[str, Any]) -> float:
    original = words(ctx.prompt)
    return rounded(inserted_count(original, words(text)) / max(1, len(original)))
