"""Context-conditioned phrase swaps shared by ``paraphrase`` and ``register``.

An entry is ``{"from": "up to", "to": ["at most", "no more than"], ...conditions}``, matched
case-insensitively on whole words of the masked prompt. Conditions:

* ``only_after`` / ``not_after``: the previous word must / must not be one of these;
* ``only_before`` / ``not_before``: the same for the next word;
* ``before_value``: a protected value follows ("under £300");
* ``after_value``: a protected value comes right before ("€150 a night");
* ``at_start``: the phrase opens a sentence or a clause after ``;``, ``:`` or a dash
  ("Happy to pay ...");
* ``not_at_start``: the phrase does not open a sentence;
* ``not_at_clause_end``: the phrase is followed by a word, never by punctuation or the end
  (an adjective swap such as "extra" -> "additional" needs its noun: "pay the driver extra."
  uses "extra" as an adverb);
* ``object_in``: the noun the phrase acts on (the first of the next four words that is in
  this list, before a stop) must be one of these ("book a table" -> "reserve a table", but
  never "reserve a haircut");
* ``context_in``: the message names one of these words somewhere ("my booking" ->
  "my reservation" only in a message about a table, a room, a flight, ...: never for a
  cleaning or a bike service);
* ``not_within``: none of these words comes in the next six words before a full stop or a
  semicolon, a comma is no stop ("I left my bike with you" is never "I forgot my bike with
  you"; "I'd like a refund, please" is never "I'm looking for a refund, please").
"""

from __future__ import annotations

import bisect
import random
import re
from collections.abc import Sequence
from typing import Any

from perturb.generate.perturbations._text import CAUSATIVE_TAIL_RE, match_case

Edit = tuple[int, int, str]
Op = tuple[str, list[Edit]]
Rule = tuple[dict[str, Any], re.Pattern[str]]


def compile_rules(entries: Sequence[dict[str, Any]]) -> list[Rule]:
    """Each entry with its whole-word, case-insensitive pattern."""
    return [
        (entry, re.compile(r"(?<![\w'’-])" + re.escape(entry["from"]) + r"(?![\w'’-])", re.I))
        for entry in entries
    ]


def word_before(masked: str, pos: int) -> str:
    m = re.search(r"([A-Za-z']+)\W*$", masked[max(0, pos - 200) : pos])
    return m.group(1) if m else ""


def word_after(masked: str, pos: int) -> str:
    m = re.match(r"\W*?([A-Za-z']+)", masked[pos : pos + 200])
    return m.group(1).lower() if m else ""


_REACH = 200
"""How far from a matched phrase its context checks look (the words next to it, the first
four words of its object, whether a sentence starts there). Bounded so that a phrase found
many times in a long prompt costs the same each time: slicing the whole rest of the prompt
per match made generation quadratic."""


def _fits(entry: dict[str, Any], masked: str, start: int, end: int, vocabulary: frozenset[str]) -> bool:
    before = word_before(masked, start)
    after = word_after(masked, end)
    if "only_after" in entry and before.lower() not in entry["only_after"]:
        return False
    if before.lower() in entry.get("not_after", ()) or before in entry.get("not_after", ()):
        return False
    if "only_before" in entry and after not in entry["only_before"]:
        return False
    if after in entry.get("not_before", ()):
        return False
    if entry.get("before_value") and not masked[end : end + _REACH].lstrip(" ").startswith("\ue000"):
        return False
    if entry.get("after_value") and not masked[max(0, start - _REACH) : start].rstrip(" ").endswith("\ue001"):
        return False
    lead = masked[max(0, start - _REACH) : start].rstrip(" \"'“(")
    if entry.get("at_start") and lead and lead[-1] not in ".!?;:—–":
        return False
    if entry.get("not_at_start") and (not lead or lead[-1] in ".!?"):
        return False
    if entry.get("not_at_clause_end") and not re.match(r" +[\w\ue000]", masked[end : end + 2]):
        return False
    if "context_in" in entry and not vocabulary & set(entry["context_in"]):
        return False
    if "not_within" in entry:
        # across a comma: "I'd like a refund, please" is never "I'm looking for a refund, please"
        following = re.match(r"[^.?!;]*", masked[end : end + _REACH]).group()  # type: ignore[union-attr]
        if set(re.findall(r"[a-z]+", following.lower())[:6]) & set(entry["not_within"]):
            return False
    if entry.get("not_causative") and CAUSATIVE_TAIL_RE.match(masked[end : end + _REACH]):
        # "I'd like a print framed" wants work done: never "I'm looking for a print framed"
        return False
    if "object_in" in entry:
        following = re.match(r"[^.?!,;\ue000]*", masked[end : end + _REACH]).group()  # type: ignore[union-attr]
        if not set(re.findall(r"[a-z]+", following.lower())[:4]) & set(entry["object_in"]):
            return False
    return True


def phrase_ops(masked: str, rules: Sequence[Rule], rng: random.Random, prefix: str = "word:") -> list[Op]:
    """One op per place where a rule fits, each replacing the phrase by one of its targets."""
    ops: list[Op] = []
    low = masked.lower()
    vocabulary = frozenset(re.findall(r"[a-z]+", low))  # once per prompt, for ``context_in``
    for entry, rx in rules:
        if entry["from"].lower() not in low:
            continue
        for m in rx.finditer(masked):
            if not _fits(entry, masked, m.start(), m.end(), vocabulary):
                continue
            target = rng.choice(entry["to"])
            near = low[max(0, m.start() - 80) : m.start()] + " | " + low[m.end() : m.end() + 80]
            if re.search(r"(?<![\w'’-])" + re.escape(target.lower()) + r"(?![\w'’-])", near):
                continue  # "cheap or fairly inexpensive" never becomes "cheap or fairly cheap"
            # as written when matched as written ("I need it for" -> "it's for"); else in the
            # matched case style ("Happy to" at a sentence start -> "I'm happy to")
            new = target if m.group() == entry["from"] else match_case(m.group(), target)
            lead = masked[max(0, m.start() - _REACH) : m.start()].rstrip(" \"'“(")
            if (not lead or lead[-1] in ".!?") and m.group()[:1].isupper():
                new = new[:1].upper() + new[1:]  # a sentence start keeps its capital
            ops.append((prefix + entry["from"], [(m.start(), m.end(), new)]))
    return ops


def apply_edits(masked: str, edits: Sequence[Edit]) -> str:
    """``masked`` with every (non-overlapping) edit made, built in one pass (cutting the
    whole string once per edit made a prompt with many edits quadratic)."""
    parts: list[str] = []
    pos = len(masked)
    for a, b, new in sorted(edits, reverse=True):
        parts.append(masked[b:pos])
        parts.append(new)
        pos = a
    parts.append(masked[:pos])
    return "".join(reversed(parts))


def overlaps(edits: Sequence[Edit], taken: Sequence[Edit]) -> bool:
    """True when an edit touches a range another already changes."""
    return any(a < tb and ta < b or (a == ta and b == tb) for a, b, _ in edits for ta, tb, _ in taken)


class Claimed:
    """The ranges already changed by the edits taken so far, kept sorted so that asking
    whether a new edit touches one costs a binary search, not a pass over every edit taken
    (:func:`overlaps` on a growing list made a long prompt's generation quadratic). Same
    rule as :func:`overlaps`: ranges overlap, or are the same (empty) range."""

    def __init__(self) -> None:
        self._ranges: list[tuple[int, int]] = []

    def add(self, edits: Sequence[Edit]) -> None:
        for a, b, _ in edits:
            bisect.insort(self._ranges, (a, b))

    def hits(self, edits: Sequence[Edit]) -> bool:
        ranges = self._ranges
        for a, b, _ in edits:
            i = bisect.bisect_left(ranges, (b, b))
            # ranges starting at or after b touch this edit only when it is the same range
            j = i
            while j < len(ranges) and ranges[j][0] == a == b:
                if ranges[j] == (a, b):
                    return True
                j += 1
            # taken ranges do not overlap one another, so going back from the last one that
            # starts before b, the first that ends before a closes the search
            j = i - 1
            while j >= 0:
                ta, tb = ranges[j]
                if (a < tb and ta < b) or (a == ta and b == tb):
                    return True
                if tb < a:
                    break
                j -= 1
        return False
