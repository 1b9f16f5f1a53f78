"""``distractor``: what real users add around a request without changing it.

A strict reader found random background ("Kettle's boiling.", "I've been reorganising my
bookshelves by colour.") unnatural wherever it landed: real users add context that has a
function in the message. So the shipped pool (``perturb/generate/data/distractors.json``) holds
only that, by where it goes:

* a typed message: one ``polite`` sentence ("Sorry to bother you.") and up to two ``opening``
  sentences (how they came to write, what they tried: "I tried the app but couldn't work it
  out.") before its first sentence — after a greeting
  sentence ("Hi there."), never when the first sentence opens with a greeting ("Hello, I was
  charged …"); then one ``closing`` (an offer or a hedge: "Happy to give more details if
  needed.") and at most one ``thanks`` after its last sentence (only when it ends in
  punctuation; no thanks when the message already thanks). Nothing is ever inserted between
  two of the user's sentences, so nothing splits a request from its reason or a sentence that
  refers back. ``opening_question``/``closing_question`` ("I couldn't find the answer on your
  website.") only go with a message that asks something.
* a lower-case unpunctuated message: one ``lower_lead`` before it ("hi sorry to bother you,")
  — none when it already opens with a greeting, one or two words ("hey", "hi there") before a
  short command that may be spoken to an assistant — and one ``lower_tail`` after it ("thanks
  in advance"), lower case and unpunctuated like the message.
* a voice command (one short sentence): one ``spoken`` lead-in ("Okay, um,", "I'm just cooking, so").

Entries hold no number, date, weekday, month, time, money, email, URL, ID, quoted text, place
name or stated preference (a test checks every entry with the protected-value detectors); per
task an entry sharing a content word with the prompt, a slot name or a slot value is dropped.

How much is inserted is decided before anything random: the achievable token sum nearest
``level × canonical tokens`` (ties go to the smaller) over the pieces the message allows. That
depends only on the task and the level, so a higher level always inserts at least as many
tokens as a lower one and ε lands within half a token per canonical token of the level wherever
the pool allows. The seeded generator then picks how many pieces (the fewest that make the sum,
or one more), where they go and the entries.

ε = inserted word tokens ÷ word tokens of the canonical prompt, measured on the finished
text as the variant's tokens that difflib does not align with the canonical's.
"""

from __future__ import annotations

import functools
import itertools
import random
import re
from dataclasses import dataclass
from typing import Any

from perturb.generate.perturbations._context import ClassSpec, SkipGeneration, TaskContext, Variant, load_data
from perturb.generate.perturbations._text import (
    decapitalize_first,
    inserted_count,
    message_style,
    rounded,
    sentence_spans,
    words,
)
from perturb.generate.slots import find_protected

_STOP = frozenset(
    "this that with from have been your will would could should about there their what when "
    "which please thanks into just also some more very much like need want know make sure here "
    "they them were then than only over after before because while being does doing done still "
    "again every things thing well really quite rather something anything make made sorry hope "
    "help".split()
)
_GREETING_RE = re.compile(r"^\s*(?:hi|hello|hey|hiya|dear|good (?:morning|afternoon|evening))\b", re.I)
_GREETING_SENTENCE_RE = re.compile(
    r"^\s*(?:hi|hello|hey|hiya|dear|good (?:morning|afternoon|evening))"
    r"(?:\s+(?:there|all|team|again))?\s*[.!,]?\s*$",
    re.I,
)
_THANKS_RE = re.compile(r"\b(?:thank|thanks|thx|ty|ta|cheers|appreciated?)\b", re.I)
_QUESTION_RE = re.compile(
    r"\?|^\s*(?:(?:hi|hey|hello)\W+)?(?:what|whats|what's|when|where|why|how|who|which|is|are|can|could|"
    r"do|does|did|will|would|should)\b|\bwhy\s*$",
    re.I,
)
BACKREF_RE = re.compile(
    r"^[\"'“(]*(?:it|it's|its|this|that|that's|these|those|they|they're|them|their|he|she|his|"
    r"her|same|such|both|so|and|but|or|then|also|which|otherwise|instead|there)(?![\w'])",
    re.I,
)
"""A sentence opening that refers back to the sentence before it: no pool entry opens so."""

MAX_OPENING = 2
"""At most this many context sentences before the message (stacked only at high levels)."""
SHORT_LOWER = 12
"""A lower-case message of at most this many words that asks nothing reads as a command (it
may be spoken to an assistant): it gets only a lead of one or two words ("hey", "hi there")."""
MAX_SPOKEN = 1
"""One spoken lead-in before a voice command (two stacked read as "Right, Right, okay then,")."""


def _stem(word: str) -> str:
    w = word.lower().replace("’", "'")
    w = w.split("'", 1)[0]
    for suffix in ("ing", "ed", "es", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


def _content(text: str) -> set[str]:
    return {_stem(w) for w in words(text) if len(w) >= 4 and w.lower() not in _STOP}


POOL_KEYS = (
    "polite",
    "opening",
    "opening_question",
    "closing",
    "closing_question",
    "thanks",
    "lower_lead",
    "lower_tail",
    "spoken",
)
"""The pool lists of ``distractors.json``."""


@functools.cache
def pool(key: str) -> tuple[tuple[str, frozenset[str], int], ...]:
    """The shipped entries of one list with their content words and token counts."""
    out = []
    for text in load_data("distractors")[key]:
        if find_protected(text):
            continue
        out.append((text, frozenset(_content(text)), len(words(text))))
    return tuple(out)


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
class _Group:
    """Entries that go to one place in the message, at most ``cap`` of them."""

    place: str
    sentences: tuple[tuple[str, int], ...]
    cap: int

    @functools.cached_property
    def by_len(self) -> dict[int, tuple[str, ...]]:
        out: dict[int, list[str]] = {}
        for s, n in self.sentences:
            out.setdefault(n, []).append(s)
        return {n: tuple(v) for n, v in out.items()}

    @functools.cached_property
    def sums(self) -> tuple[frozenset[int], ...]:
        """``sums[j]``: token sums of ``j`` distinct entries (``j`` up to ``cap``)."""
        rows: list[set[int]] = [{0}] + [set() for _ in range(self.cap)]
        for _, n in self.sentences:
            for j in range(self.cap, 0, -1):
                rows[j] |= {s + n for s in rows[j - 1]}
        return tuple(frozenset(r) for r in rows)

    def pick(self, tokens: int, pieces: int, rng: random.Random) -> list[str]:
        """``pieces`` distinct entries whose lengths sum to ``tokens`` (known to be possible)."""
        chosen: list[str] = []
        lengths = sorted(self.by_len)
        rest, left = tokens, pieces
        used: dict[int, int] = {}
        while left:
            options = [
                n
                for n in lengths
                if used.get(n, 0) < len(self.by_len[n]) and self._reachable(rest - n, left - 1, used, n)
            ]
            n = rng.choice(options)
            used[n] = used.get(n, 0) + 1
            rest -= n
            left -= 1
        for n, k in sorted(used.items()):
            chosen.extend(rng.sample(self.by_len[n], k))
        rng.shuffle(chosen)
        return chosen

    def _reachable(self, rest: int, left: int, used: dict[int, int], taking: int) -> bool:
        if rest < 0:
            return False
        if left == 0:
            return rest == 0
        counts = dict(used)
        counts[taking] = counts.get(taking, 0) + 1
        avail = [n for n, v in self.by_len.items() for _ in range(len(v) - counts.get(n, 0))]
        return any(sum(c) == rest for c in itertools.combinations(sorted(avail), left))


def _allowed(key: str, banned: frozenset[str]) -> tuple[tuple[str, int], ...]:
    return tuple((s, n) for s, content, n in pool(key) if not (content & banned))


def _groups(ctx: TaskContext, style: str) -> list[_Group]:
    """The places this message offers, in text order, each with the entries allowed there."""
    masked = ctx.masked
    banned = _banned(ctx)
    question = bool(_QUESTION_RE.search(masked))
    thanked = bool(_THANKS_RE.search(ctx.prompt))
    if style == "spoken":
        return [_Group("lead", _allowed("spoken", banned), MAX_SPOKEN)]
    if style == "lower":
        lead = () if _GREETING_RE.match(masked) else _allowed("lower_lead", banned)
        if not question and len(words(masked)) <= SHORT_LOWER:
            lead = tuple((s, n) for s, n in lead if n <= 2)
        tails = _allowed("lower_tail", banned)
        tail = tuple((s, n) for s, n in tails if not (thanked and _THANKS_RE.search(s)))
        return [_Group("lead", lead, 1), _Group("tail", tail, 1)]
    spans = sentence_spans(masked)
    first = masked[spans[0][0] : spans[0][1]] if spans else ""
    polite: tuple[tuple[str, int], ...] = ()
    opening: tuple[tuple[str, int], ...] = ()
    if not _GREETING_RE.match(masked) or (len(spans) > 1 and _GREETING_SENTENCE_RE.match(first)):
        polite = _allowed("polite", banned)
        opening = _allowed("opening", banned) + (_allowed("opening_question", banned) if question else ())
    tail_ok = masked.rstrip().endswith((".", "!", "?")) and not masked.rstrip().endswith("\ue001")
    closing: tuple[tuple[str, int], ...] = ()
    thanks: tuple[tuple[str, int], ...] = ()
    if tail_ok:
        closing = _allowed("closing", banned) + (_allowed("closing_question", banned) if question else ())
        if not thanked:
            thanks = _allowed("thanks", banned)
    return [
        _Group("polite", polite, 1),
        _Group("opening", opening, MAX_OPENING),
        _Group("closing", closing, 1),
        _Group("thanks", thanks, 1),
    ]


def _plans(groups: list[_Group]) -> dict[int, list[tuple[tuple[int, int], ...]]]:
    """Every reachable token sum -> the ways to make it: per group ``(tokens, pieces)``."""
    out: dict[int, list[tuple[tuple[int, int], ...]]] = {}
    per_group = [
        [(t, j) for j in range(g.cap + 1) for t in g.sums[j]] if g.sentences else [(0, 0)] for g in groups
    ]
    for combo in itertools.product(*per_group):
        total = sum(t for t, _ in combo)
        if total > 0:
            out.setdefault(total, []).append(combo)
    return out


@functools.lru_cache(maxsize=1024)
def _cached_plans(groups: tuple[_Group, ...]) -> dict[int, list[tuple[tuple[int, int], ...]]]:
    return _plans(list(groups))


def candidates_for(ctx: TaskContext) -> list[tuple[str, int]]:
    """Pool entries allowed for this task (no shared content word with prompt or slots)."""
    style = message_style(ctx.masked)
    return [s for g in _groups(ctx, style) for s in g.sentences]


def generate(ctx: TaskContext, level: float, rng: random.Random, index: int = 0) -> Variant:
    masked = ctx.masked
    style = message_style(masked)
    groups = tuple(g for g in _groups(ctx, style))
    plans = _cached_plans(groups)
    if not plans:
        raise SkipGeneration("no distractor sentence is free of words that compete with the prompt")
    target = level * max(1, len(words(ctx.prompt)))
    tokens = min(plans, key=lambda s: (abs(s - target), s))
    ways = plans[tokens]
    # fewest pieces, or (half the time, when there is such a way) one more: "Thanks in advance,
    # I really appreciate it." or "Sorry to bother you. … Thanks in advance."
    fewest = min(sum(j for _, j in w) for w in ways)
    more = style == "written" and any(sum(j for _, j in w) == fewest + 1 for w in ways)
    pieces = fewest + 1 if more and rng.random() < 0.5 else fewest
    way = rng.choice([w for w in ways if sum(j for _, j in w) == pieces])
    chosen = {g.place: g.pick(t, j, rng) if j else [] for g, (t, j) in zip(groups, way, strict=True)}
    inserted = [{"place": place, "text": text} for place, texts in chosen.items() for text in texts]
    if style == "spoken":
        joined = chosen["lead"][0].rstrip(",")
        sep = " " if joined.endswith((" so", " and")) else ", "
        out = joined[:1].upper() + joined[1:] + sep + decapitalize_first(masked)
    elif style == "lower":
        out = masked
        if chosen["lead"]:
            lead = chosen["lead"][0]
            out = lead + (" " if lead.endswith((" so", " but")) else ", ") + out
        if chosen["tail"]:
            out = out.rstrip() + " " + chosen["tail"][0] + masked[len(masked.rstrip()) :]
    else:
        spans = sentence_spans(masked)
        out = masked
        after = chosen["closing"] + chosen["thanks"]
        if after:
            end = len(out.rstrip())
            out = out[:end] + " " + " ".join(after) + out[end:]
        before = chosen["polite"] + chosen["opening"]
        if before:
            g = 1 if _GREETING_RE.match(masked) else 0
            at = spans[g][0] if g < len(spans) else spans[0][0]
            out = out[:at] + " ".join(before) + " " + out[at:]
    return Variant(text=ctx.unmask(out), details={"inserted": inserted, "style": style})


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
