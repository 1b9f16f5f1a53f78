"""Intent scoring and sampling for the example travel-desk agent.

Intent is a bag of weighted cue phrases (:data:`~examples.travel_lexicon.INTENT_CUES`):
each phrase found in the request adds its weight once, wherever it occurs -- so a
background sentence that mentions another intent ("last year I needed a refund") pulls the
scores too. Single cue words of five letters or more also match a word one edit away (a
dropped, added or substituted letter, not a swap of two letters) at 80 % of their weight.

:class:`Chooser` turns scores into a decision: the argmax at temperature 0, otherwise a
draw from ``softmax(score / T)`` with the trial's seeded RNG -- the way a sampled language
model sometimes takes the less likely reading of an ambiguous request.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence
from typing import Any

from .travel_lexicon import (
    EXISTING_BOOKING_PENALTY,
    FLIGHT_NOUNS,
    HOTEL_NOUNS,
    INTENT_CUES,
    INTENT_ORDER,
    PRODUCT_BONUS,
    TYPO_MIN_LENGTH,
    TYPO_WEIGHT,
)

_CUE_TOKENS: dict[str, dict[tuple[str, ...], float]] = {
    intent: {tuple(phrase.split()): weight for phrase, weight in cues.items()}
    for intent, cues in INTENT_CUES.items()
}
_KNOWN_WORDS = frozenset(w for cues in INTENT_CUES.values() for p in cues for w in p.split())


def tokens(text: str) -> list[str]:
    """Lower-case word tokens; hyphens and punctuation split words ("check-in" -> check, in)."""
    return re.findall(r"[a-z0-9']+", text.lower().replace("\u2019", "'"))


def within_one_edit(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` differ by exactly one inserted, deleted or replaced letter."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1 :] == b[i + 1 :]
    return a[i:] == b[i + 1 :]


def _has_phrase(words: Sequence[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(words[i : i + n]) == phrase for i in range(len(words) - n + 1))


def score_intents(text: str, has_booking_ref: bool) -> tuple[dict[str, float], list[str]]:
    """Score every action for ``text``; return the positive scores and the matched cues."""
    words = tokens(text)
    vocab = set(words)
    scores: dict[str, float] = {}
    hits: list[str] = []
    for intent in INTENT_ORDER:
        total = 0.0
        for phrase, weight in _CUE_TOKENS[intent].items():
            if _has_phrase(words, phrase):
                total += weight
                hits.append(f"{' '.join(phrase)}(+{weight:g} {intent})")
            elif len(phrase) == 1 and len(phrase[0]) >= TYPO_MIN_LENGTH:
                near = next(
                    (w for w in vocab if w not in _KNOWN_WORDS and within_one_edit(w, phrase[0])),
                    None,
                )
                if near is not None:
                    total += weight * TYPO_WEIGHT
                    hits.append(f"{near}~{phrase[0]}(+{weight * TYPO_WEIGHT:g} {intent})")
        if intent == "book":
            if vocab & (FLIGHT_NOUNS | HOTEL_NOUNS):
                total += PRODUCT_BONUS
            if has_booking_ref:
                total -= EXISTING_BOOKING_PENALTY
        if total > 0:
            scores[intent] = round(total, 6)
    return scores, hits


def product(text: str, has_origin: bool, has_nights: bool) -> str:
    """``book_flight`` or ``book_hotel`` for a booking request, by the nouns it uses."""
    words = tokens(text)
    flight = sum(w in FLIGHT_NOUNS for w in words) + int(has_origin)
    hotel = sum(w in HOTEL_NOUNS for w in words) + int(has_nights)
    return "book_hotel" if hotel > flight else "book_flight"


class Chooser:
    """Picks among scored options: argmax at T = 0, softmax(score / T) sampling above."""

    def __init__(self, temperature: float, rng: random.Random, trace: list[str]) -> None:
        self.temperature = temperature
        self.rng = rng
        self.trace = trace

    def pick(self, label: str, options: Sequence[tuple[Any, float]]) -> Any:
        """Choose one value; ``options`` is in a fixed order (ties go to the earlier one)."""
        if not options:
            return None
        shown = ", ".join(f"{value}={score:g}" for value, score in options)
        best_index = max(range(len(options)), key=lambda i: (options[i][1], -i))
        if len(options) == 1 or self.temperature <= 0:
            chosen = options[best_index][0]
            self.trace.append(f"{label}: {shown} -> {chosen} (argmax)")
            return chosen
        top = options[best_index][1]
        weights = [math.exp((score - top) / self.temperature) for _, score in options]
        draw = self.rng.random() * sum(weights)
        index = len(options) - 1
        for i, weight in enumerate(weights):
            draw -= weight
            if draw < 0:
                index = i
                break
        chosen = options[index][0]
        share = weights[index] / sum(weights)
        self.trace.append(f"{label}: {shown} -> {chosen} (sampled at T={self.temperature:g}, p={share:.2f})")
        return chosen
