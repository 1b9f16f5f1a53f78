"""``reorder``: the same constraints in another order.

The masked prompt is split into constraint segments at three depths:

* sentences -- a sentence that refers back ("It", "this", "the same", "they", "he's", ...
  anywhere in it, or opening with "Also"/"But"/...) stays glued to the one before, so a
  back-reference never moves before what it refers to. Only these sentences move at all: an
  identifier statement ("My customer number is 55123.") goes anywhere; another value
  statement ("The reference is X."), and an identifier stated in the past or with a courtesy
  ("The job number was CS-5582.", "... if you need it."), moves behind the sentences after
  it; a sentence glued by "Also"/"It" to an identifier statement leans on the story before
  it, not on the number, and is a unit of its own that refers back; an identifier label
  appended with a comma (", ref WB-3307"), or between two commas, is cut from its sentence
  and moves to the end of the message only ("... Ref WB-3307."), written back in its
  sentence right after it; a self-contained first-person fact with a value ("I paid $20
  with Visa on Tuesday.") and a question or request that leans on nothing ("Could you give
  me a quote?"; not "Can you fix the bill?") move in front of the sentences before them; a
  first-person remark without a value that is not the first sentence ("I've attached a
  photo.") moves behind the ones after it. Any
  other sentence (a story, a state, a request about "the X") keeps its order: read out of
  order, it leans on what it followed;
* a sentence's comma/semicolon clauses -- a head clause plus constraint clauses such as
  "economy class", "under £300"; clauses opening with "which", "but", "so", ... or holding a
  back-reference stay glued; a sentence opening with "If"/"When"/... is not split; a clause
  opening with a preposition ("under £300", "on Friday") may move in front of the head;
* modifier phrases inside a clause -- after the clause's head, each phrase that opens with a
  preposition or a time word and carries a value (a protected value or a time word: "on
  Friday", "for 5 people", "at 7pm", "in Lyon", "this weekend") is a unit that moves whole
  among the clause's other such phrases ("book a table on 1/20 for 5 people" -> "book a table
  for 5 people on 1/20"); "from X to Y" and "between X and Y" are one phrase; a phrase without
  a value stays glued to what precedes it, as does a place after a noun a preposition opened
  ("from Gate 12 at Lisbon airport"). Only time phrases pass other phrases; the last one may
  open the sentence when the head is one verb and its object and the verb does not arrange
  something ("At 6 pm, call my sister"; never "On Friday, book ...").

Where order carries meaning ("first ... then", "after that", "finally", numbered steps, ...)
the task is skipped and the reason recorded.

ε = share of word pairs whose order changed: the normalised Kendall tau distance over the
prompt's words, each word carrying the index of its canonical segment (discordant word pairs
÷ W(W-1)/2, W = words in segments; 0 = same order, 1 = reversed). Moving a short phrase past
another in a long message is a small ε; swapping the halves of a message is about 0.5. The
generator draws orders with few or many moves and keeps the one nearest the requested level,
between min(0.2, level/2 - 0.05) and ``epsilon_ceiling(level)``.
Measured on the finished text by splitting it the same way and matching each segment to its
canonical segment.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass, field
from typing import Any

from perturb.generate.perturbations._context import (
    ClassSpec,
    SkipGeneration,
    TaskContext,
    Variant,
    epsilon_ceiling,
)
from perturb.generate.perturbations._text import (
    BACK_REFERENCE_RE,
    NOT_VERB_FORMS,
    WAKE_WORD_RE,
    capitalize_first,
    decapitalize_first,
    rounded,
    sentence_spans,
    words,
)
from perturb.generate.perturbations._wrong import ORDINALS
from perturb.generate.slots import SENTINEL_PATTERN, Span, detect, find_protected, mask, sentinel, unmask

_ORDER_MARKERS: list[tuple[str, re.Pattern[str]]] = [
    ("'first ... then ...'", re.compile(r"\bfirst(?:ly)?\b[\s\S]*\bthen\b", re.I)),
    ("'then'", re.compile(r"\bthen\b", re.I)),
    ("'after that'", re.compile(r"\bafter (?:that|this|which)\b|\bafterwards?\b", re.I)),
    ("'followed by'", re.compile(r"\bfollowed by\b", re.I)),
    ("'next' / 'finally'", re.compile(r"\bnext,|\bfinally\b|\blastly\b|\bsecondly\b", re.I)),
    ("'in that order'", re.compile(r"\bin (?:that|this|the following) order\b", re.I)),
    # only where it opens a sentence or clause ("Before you come, call me."): a trailing
    # "... look at it before it gets worse?" tells when, not in which order to read
    ("'before/once ...'", re.compile(r"(?:^|[.!?,;:]\s+)(?:before|once) (?:you|that|doing|it|we|I)\b", re.I)),
    (
        "numbered steps",
        # two numbered markers ("1. ... 2. ..."): one "number 7. Could ..." is not a list
        re.compile(
            r"(?:^|\n|\s)(?:\(?1\)|1[.)])\s+[A-Za-z][\s\S]*(?:^|\n|\s)(?:\(?2\)|2[.)])\s+[A-Za-z]"
            r"|\bstep \d\b|\bstep one\b",
            re.I,
        ),
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
_AUXILIARY_OPENERS = frozenset("have has had is are was were can could will would do does did".split())
"""Round eleven: a comma clause opening with an auxiliary ("The vertical blinds at our
practice, Fernside Dental, have snapped slats") is the predicate of the clauses before it;
it is glued to them (``_GLUE_CLAUSE``)."""
_CONJUNCTION_OPENERS = frozenset(_GLUE_CLAUSE)
"""Comma clauses that keep their comma when a label before them is cut (", but ...")."""
_GLUE_CLAUSE |= _AUXILIARY_OPENERS
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


_BACK_REFERENCE_RE = BACK_REFERENCE_RE
_PHRASE_START = frozenset(
    {
        "on",
        "at",
        "for",
        "in",
        "under",
        "below",
        "over",
        "above",
        "by",
        "before",
        "after",
        "around",
        "between",
        "from",
        "within",
        "during",
        "near",
        "outside",
        "about",
        "until",
        "till",
        "starting",
        "this",
        "next",
        "last",
        "every",
        "tomorrow",
        "tonight",
        "today",
    }
)
"""Words that open a modifier phrase inside a clause."""
_TIME_WORDS = frozenset(
    {
        "week",
        "weekend",
        "weekends",
        "weekday",
        "weekdays",
        "month",
        "year",
        "morning",
        "mornings",
        "afternoon",
        "evening",
        "evenings",
        "night",
        "nights",
        "tonight",
        "today",
        "tomorrow",
        "hour",
        "hours",
        "minutes",
        "weeks",
        "months",
        "years",
        "days",
        "day",
    }
)
"""Words that give a phrase a value even without a protected span ("this weekend")."""
_PHRASE_STOP = frozenset(
    {
        "and",
        "but",
        "or",
        "because",
        "so",
        "which",
        "who",
        "that",
        "if",
        "when",
        "while",
        "where",
        "i",
        "we",
        "you",
        "me",
        "us",
        "to",
        "is",
        "are",
        "was",
        "be",
    }
)
"""Words after which the clause's phrases are not split (a verb phrase or a new clause may
follow); "to" only ends a phrase region when no "from" opened it."""
_CLAUSE_TAIL_RE = re.compile(r"(?<!\s)(?:\s+(?:please|thanks|thank you|pls|asap))+\s*$", re.I)
"""A courtesy ending the clause; a match starts where a run of spaces does (the leftmost match
always did), so a long run of spaces is read once, not once per space."""
_TOKEN_RE = re.compile(
    SENTINEL_PATTERN.replace("(", "(?:", 1) + r"(?:[-–/][^\s\ue000]*|['’]s\b)?|\S+"
)  # "Ava's bag": the possessive stays on its value, never "Ava 's bag"
_WORD_OR_SENTINEL_RE = re.compile(
    SENTINEL_PATTERN.replace("(", "(?:", 1) + r"|[A-Za-z0-9]+(?:['’][A-Za-z]+)*"
)


@dataclass
class Clause:
    """A clause: its head, its movable modifier phrases (in canonical order) and a tail
    ("please") that stays last."""

    head: str
    phrases: list[str] = field(default_factory=list)
    tail: str = ""
    frontable: bool = False
    """The last phrase states a time or date and may open the sentence ("On Wednesday, book
    me ..."): set for the first clause of a sentence that is not a question."""

    timed: list[bool] = field(default_factory=list)
    """Per phrase: it states a time or date. Only these move past the others: a place or
    "for/from/with" phrase keeps its order among the others, so that it never lands after a
    noun it would attach to ("a cake for 12 people from Rosa")."""
    head_timed: bool = False
    """The head holds a time or date ("on Friday" as a comma clause)."""
    pair: tuple[str, tuple[str, ...], str, str] | None = None
    """Noun phrases joined by "and" in the head -- two, each opening with a determiner, a
    number or a possessive, or a list of three or more ("eggs, butter and flour"): (words
    before them, the noun phrases, words after them, what joins the last one: " and " or ",
    and "), so that the head is "<before> <first>, <second> and <last> <after>" ("I returned |
    the two sleeping bags | the stove"). They may come in another order ("I returned the stove
    and the two sleeping bags")."""

    bare: bool = False
    """A trailing subordinate clause split off without a comma ("What happens to our data | if
    we cancel the subscription?"): it only moves to the front of its sentence, followed by a
    comma ("If we cancel the subscription, what happens to our data?"); in place it follows
    its main clause without one."""

    def head_parts(self) -> list[str]:
        """The head as segments: itself, or its words before a pair, each noun phrase (the
        last one with its "and") and the words after them."""
        if self.pair is None:
            return [self.head]
        before, items, after, _ = self.pair
        return [before, *items[:-1], "and " + items[-1], *([after] if after else [])]

    def head_text(self, perm: tuple[int, ...] | None = None) -> str:
        """The head with the pair's noun phrases in the order ``perm``."""
        if self.pair is None or perm is None:
            return self.head
        before, items, after, joiner = self.pair
        new = [items[i] for i in perm]
        return f"{before} {', '.join(new[:-1])}{joiner}{new[-1]}" + (f" {after}" if after else "")

    def parts(self) -> list[str]:
        return [*self.head_parts(), *self.phrases]


@dataclass
class Unit:
    """A sentence (or glued sentences): its clauses and its final punctuation."""

    clauses: list[Clause]
    end: str
    and_last: bool
    splittable: bool
    refers_back: bool = False
    """Holds a back-reference ("it", "them", ...): every unit before it stays before it."""
    after: str = ""
    """Sentences glued to the first one because they refer back to it ("It still hasn't
    arrived."): they follow it wherever it goes; only the first sentence is split."""
    free: bool = False
    """A short statement of an identifier ("My member number is 448190.", "Order number is
    TK-300418."): it may go anywhere among the sentences. Other value statements ("The
    reference is PR-448211.", "My budget is around €300.") only move behind the sentences
    after them (``later``): opening the message, they come before what they belong to."""
    statement: bool = False
    """A value statement (identifier or not)."""
    later: bool = False
    """A self-contained first-person remark without a value that is not the first sentence
    ("I've attached photos.", "I'm having knee surgery and can't train."): it may move behind
    the sentences after it. The first sentence and a sentence with a value set the scene that
    a question after them leans on ("I'm starting parental leave on 2 September. Who do I send
    the form to?"), so they never move behind it."""
    tail: bool = False
    """A statement right before the closing question that carries on the story's thread
    (``_tail_statement``: "It cracked in the storm on Sunday.", "It's been two weeks."): it may
    move behind that question, and only there ("... Can someone take it down? It cracked in
    the storm on Sunday.")."""
    ahead: bool = False
    """A value statement that ends a message of three sentences or more ("... Do you offer a
    discount? Our budget is around £2,000 a year."): it may move in front of the sentences
    before it, but never open the message (it would come before what it belongs to)."""
    earlier: bool = False
    """A self-contained first-person statement of a fact with a value ("I paid $312 with
    PayPal on Monday."): it may move in front of the sentences before it. No other sentence
    moves: a question, a request, a reason or a state read out of order depends on what came
    before it ("Is Sofia available?", "I can't drive a manual.", "I'm free on Thursdays")."""

    openers: list[bool] | None = None
    """Per clause: it may open the sentence (``_openers``, computed on first use)."""
    questions: bool = False
    """Two questions joined by ", and" ("What do I need to send you, and how long will the
    transfer take?"): they may swap."""
    intro: bool = False
    """The first sentence introduces the writer ("I'm Dr Ana Ruiz from X.", "My name is Ben
    Ito."): it stays first, nothing moves in front of it."""
    inner: tuple[int, str, str] | None = None
    """An ``appended`` label cut from inside its sentence (``_inner_label``): where, the text
    cut out (", booking HR-3091, ") and the text put in its place (", " or " ")."""
    first: int = 0
    """The lowest index an ``earlier`` unit may move to: a fact never passes a question before
    it ("Do you install gutters? Our HOA in Plano only allows white or bronze.": the fact
    narrows the question; in front of it, it has nothing to narrow)."""
    appended: bool = False
    """An identifier label appended to the sentence before it with a comma ("I paid a deposit
    for the course, ref DV-5071."): right after that sentence it is written back in it
    (", ref DV-5071."); moved behind the sentences after it, it is a sentence of its own
    ("... What's going on? Ref DV-5071.")."""

    def size(self) -> int:
        """Segments of the unit: each clause's head and phrases, and the glued sentences."""
        return sum(len(c.parts()) for c in self.clauses) + (1 if self.after else 0)


def _first_word(text: str) -> str:
    m = re.match(r"\W*([A-Za-z']+)", text)
    return m.group(1).lower() if m else ""


def _plain(token: str) -> str:
    return re.sub(r"^[^\w\ue000]+|[^\w\ue001]+$", "", token).lower()


def _valued(tokens: list[str]) -> bool:
    return any(t.startswith("\ue000") or _plain(t) in _TIME_WORDS for t in tokens)


def split_phrases(
    clause: str, timeish: frozenset[str] = frozenset(), past: frozenset[str] = frozenset()
) -> Clause:
    """The clause's head and its movable modifier phrases (see the module docstring).
    ``timeish``: the sentinels that stand for a time, date or weekday."""
    tail = ""
    m = _CLAUSE_TAIL_RE.search(clause)
    if m and m.start() > 0:
        clause, tail = clause[: m.start()], clause[m.start() :]
    # "I sent over the contract on Tuesday, reference TR-60418": a label and its value after
    # the last comma name what the clause holds; they stay last, like "please"
    label = re.search(r",\s+([^,;:]+)$", clause)
    if label and _labelled_value(label.group(1)):
        clause, tail = clause[: label.start()], clause[label.start() :] + tail
    tokens = _TOKEN_RE.findall(clause)
    if len(tokens) < 3 or re.search(r"[,;:.!?—–]\s|\s-\s", clause):  # glued clauses stay as written
        return Clause(clause, [], tail)
    reminder = _reminder(clause, timeish, past)
    if reminder is not None:
        return Clause(reminder[0], reminder[1], tail)
    owner = _first_owner(tokens)
    # the phrase region: after the last stop word; phrases open at a start word
    begin = 0
    opened_from = False
    for i, tok in enumerate(tokens):
        low = _plain(tok)
        if low == "from":
            opened_from = True
        if (
            low in _PHRASE_STOP
            and not (low == "to" and opened_from)
            and not (low == "and" and (_between(tokens, i) or _joins_times(tokens, i, timeish)))
        ):
            begin = i + 1
            opened_from = False
    # "book my bike in for a service": a particle right before a preposition belongs to the
    # verb ("book ... in") and stays in the head; the preposition after it opens the phrase
    particles = {
        i
        for i in range(max(1, begin), len(tokens) - 1)
        if _plain(tokens[i]) in _PARTICLES
        and _plain(tokens[i + 1]) in _PHRASE_START - _TIME_STARTS - {"between"}
    }
    starts = [
        i
        for i in range(max(1, begin), len(tokens))
        if (
            _plain(tokens[i]) in _PHRASE_START
            and i not in particles
            and (i - 1 in particles or not _continues(tokens, i, timeish))
        )
        or (tokens[i].rstrip(".,!?") in timeish and _opens_bare(tokens, i, timeish, owner))
        or _ago_at(tokens, i)
        or _with_value(tokens, i, owner)
        or (
            tokens[i].rstrip(".,!?") in past and _plain(tokens[i - 1]) not in _PHRASE_START | _NOT_BEFORE_BARE
        )
    ]
    if not starts:
        return Clause(clause, [], tail)
    groups: list[list[str]] = []
    head_tokens = tokens[: starts[0]]
    for k, st in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(tokens)
        groups.append(tokens[st:end])
    phrases: list[list[str]] = []
    times_after = _times_after(groups, timeish)
    for k, g in enumerate(groups):
        before = phrases[-1] if phrases else head_tokens
        if (
            not _valued(g)
            # "tickets for the concert", "an offer of €310,000 on the Maple Court flat": a
            # phrase "<preposition> the <noun>" right after the head completes its noun;
            # nothing may come between them
            or (
                not phrases
                and len(g) > 1
                and _plain(g[1]) == "the"
                and _plain(g[0]) in _ATTACHING_PREPOSITIONS
                and not _has_time(g, timeish)
                # "at the Northgate clinic next week": a named place a later time may pass
                and not (
                    _plain(g[0]) in ("at", "in") and _named_place(g) and _times_follow(groups, k, times_after)
                )
            )
            or _BACK_REFERENCE_RE.search(" ".join(g))
            or _attached(before, g, timeish, bool(phrases))
        ):
            if phrases:
                phrases[-1] += g
            else:
                head_tokens += g
        else:
            phrases.append(g)
    if not phrases or any(t[-1:] in ",;:.?!" for g in [head_tokens, *phrases] for t in g[:-1]):
        return Clause(clause, [], tail)
    # "The permission slip for the trip on the 12th went home": the phrases belong to the
    # subject and its verb follows them; nothing moves
    if any(_plain(t) in _PAST_VERBS | _MOTION_VERBS for g in phrases for t in g[1:]):
        return Clause(clause, [], tail)
    last = phrases[-1]
    frontable = (begin == 0 or not any(_plain(t) in _CONJUNCTIONS for t in tokens[:begin])) and _time_phrase(
        last, timeish
    )
    return Clause(" ".join(head_tokens), [" ".join(g) for g in phrases], tail, frontable)


_REMINDER_RE = re.compile(r"(\W*remind (?:me|us))\s+(.+)$", re.I)
_NOT_REMINDER_TIMES = frozenset("by before until till after within from between".split())


def _reminder(clause: str, timeish: frozenset[str], past: frozenset[str]) -> tuple[str, list[str]] | None:
    """("remind me", [the errand, its time] in the order they are written) for "remind me
    to <errand> <time>" and "remind me <time> to <errand>", or None. For a reminder the time
    of the errand is the time to remind, so the time may stand on either side of the errand
    ("Remind me at 5pm to call mum" / "Remind me to call mum at 5pm"); the times stay one
    unit. Refused: a deadline or a span ("by Friday", "before 8 am", "from 2 to 4": the
    errand's, not the reminder's), an errand with a time of its own left, an errand ending in
    an event noun ("to confirm the appointment at 3pm": the appointment's time) or in "at
    <value>" ("to water the tomatoes at 7 every evening": one time split in two; "to buy
    milk at Tesco tomorrow": "remind me at Tesco" would be another reminder)."""
    m = _REMINDER_RE.match(clause)
    if m is None:
        return None
    head, rest = m.group(1), m.group(2)
    errand_first = _first_word(rest) == "to"
    if errand_first:
        sub = split_phrases(rest, timeish, past)
        if not sub.phrases or sub.tail:
            return None
        # the trailing time phrases are the time; the phrases before them stay in the errand
        k = len(sub.phrases)
        while k > 0 and _has_time(_TOKEN_RE.findall(sub.phrases[k - 1]), timeish):
            k -= 1
        errand, when = " ".join([sub.head, *sub.phrases[:k]]), " ".join(sub.phrases[k:])
    else:
        to = re.search(r"\s+to\s+", rest)
        if to is None:
            return None
        when, errand = rest[: to.start()], rest[to.start() :].strip()
    when_tokens = _TOKEN_RE.findall(when)
    errand_tokens = _TOKEN_RE.findall(errand)
    if (
        len(errand_tokens) < 2
        or not when_tokens
        or _plain(when_tokens[0]) in _NOT_REMINDER_TIMES
        or not all(_has_time([t], timeish) or _plain(t) in _TIME_FILLERS for t in when_tokens)
        or _has_time(errand_tokens, timeish)
        or _plain(errand_tokens[-1]) in _EVENT_NOUNS
        # "to water the tomatoes at 7 | every evening": one time, or "at Tesco": a place
        or (errand_tokens[-1].startswith("\ue000") and _plain(errand_tokens[-2]) == "at")
    ):
        return None
    return head, [errand, when] if errand_first else [when, errand]


_TIME_FILLERS = frozenset("at on in for this next every the and".split())
"""Words a reminder's time may hold besides time values ("at 8am and 8pm every day")."""


_TITLES = frozenset("dr mr mrs ms miss prof".split())
_WITH_OWNERS = frozenset("for from to into of with at in on near before after about".split())
"""Prepositions whose noun a later "with" belongs to."""


def _first_owner(tokens: list[str]) -> int:
    """The index of the first preposition after the first word whose noun a later "with"
    belongs to (``_WITH_OWNERS``), or ``len(tokens)``: one pass per clause."""
    return next((k for k in range(1, len(tokens)) if _plain(tokens[k]) in _WITH_OWNERS), len(tokens))


def _with_value(tokens: list[str], i: int, owner: int) -> bool:
    """True when ``tokens[i]`` is "with" before a protected value, a title before one or a
    person's name ("a consultation with Jade", "a check-up with Dr Okafor", "a survey with
    SunRise Solar"): who gives what the head arranges, a phrase a time may pass ("book a
    consultation for next Tuesday with Jade"). A place right after it stays with it ("with
    Jade at Ink and Iron": ``_attached``); "with blue icing", "with my wife" carry no value
    and stay glued to the noun before them. After a preposition's noun ("an hour before the
    meeting with Dana", "for a wedding with 120 guests") "with" belongs to that noun: no
    phrase opens."""
    if _plain(tokens[i]) != "with" or i + 1 >= len(tokens) or i == 0:
        return False
    if owner < i:  # ``_first_owner``
        return False  # "an hour before the meeting with Dana", "for a wedding with 120 guests"
    nxt = tokens[i + 1]
    if _plain(nxt) in _TITLES and i + 2 < len(tokens):
        nxt = tokens[i + 2]
    return nxt.startswith("\ue000")


_PARTICLES = frozenset({"in", "on", "over"})
"""Start words that are a phrasal verb's particle when a preposition follows ("book my bike
in for a service", "pop over on Friday")."""
_PLACE_OPENERS = frozenset({"in", "at", "near", "outside"})


def _named_place(group: list[str]) -> bool:
    """ "at/in the <value> <noun>" ("at the Northgate clinic"): a place named by a protected value."""
    return 3 <= len(group) <= 4 and group[2].startswith("\ue000") and group[-1][-1:] not in ",;:"


def _times_follow(groups: list[list[str]], k: int, times_after: list[bool]) -> bool:
    """True when only times follow group ``k``, after at most one town of its own ("at the
    Tesco Extra | in Hatfield | for 7:45 tomorrow morning": the town stays with the named
    place, ``_attached``)."""
    if times_after[k]:
        return True
    nxt = groups[k + 1] if k + 1 < len(groups) else []
    town = len(nxt) == 2 and _plain(nxt[0]) in _PLACE_OPENERS and nxt[1].startswith("\ue000")
    return town and times_after[k + 1]


def _times_after(groups: list[list[str]], timeish: frozenset[str]) -> list[bool]:
    """Per group: True when at least one group follows it and every one that does is a time
    (one pass from the end, so the clause stays linear)."""
    out = [False] * len(groups)
    all_timed = True
    for k in range(len(groups) - 1, -1, -1):
        out[k] = k < len(groups) - 1 and all_timed
        all_timed = all_timed and _has_time(groups[k], timeish)
    return out


_ATTACHING_PREPOSITIONS = frozenset("for from to into of with at in on near".split())
_DETERMINERS = frozenset("the my our your his her their this that".split())


def _attached(before: list[str], group: list[str], timeish: frozenset[str], after_phrase: bool) -> bool:
    """True when ``group`` modifies the noun just before it and must not move away from it:

    * a place ("in/at/near X", no time in it) after a noun that a preposition opened ("from
      Gate 12 at Lisbon airport", "tickets for the concert in Manchester", "a call with Ann in
      Leeds"); after "for" only when a determiner follows ("for the/my ..."), since "for a 23
      year old driver in Ohio" states the place of the whole request;
    * a clock time after a day opened by "for" or a deadline ("for Thursday at 4 pm", "by
      Friday at 6"): "at 4 pm for Thursday" is no one's wording, "at 6 by Friday" another time;
    * "before/after ..." right after a value or a time word ("two days before my next
      cleaning"): the lead time and its event are one time;
    * "for <time>" right after a time ("swap thursday for tuesday"): an exchange, one unit."""
    first = _plain(group[0])
    last = before[-1].rstrip(".,!?") if before else ""
    if first in ("before", "after") and (last.startswith("\ue000") or _plain(last) in _TIME_WORDS):
        return True  # "two days before my next cleaning", "on Friday after 5pm": one time
    bare = len(before) < 2 or _plain(before[-2]) not in _PHRASE_START  # not "at 4 pm for one hour"
    if (
        first == "for"
        and (last in timeish or _plain(last) in _WEEKDAYS)
        and bare
        and _has_time(group, timeish)
    ):
        return True  # "swap thursday for tuesday": one value exchanged for another
    timed = any(t.rstrip(".,!?") in timeish or _plain(t) in _TIME_WORDS for t in group)
    before_timed = any(t.rstrip(".,!?") in timeish or _plain(t) in _TIME_WORDS for t in before)
    if first in _PLACE_OPENERS and not timed and not (after_phrase and before_timed):
        for k in range(len(before) - 1, -1, -1):
            low = _plain(before[k])
            if low in _ATTACHING_PREPOSITIONS:
                nxt = before[k + 1] if k + 1 < len(before) else ""
                if low == "for":
                    return _plain(nxt) in _DETERMINERS
                if low == "to":  # "to Gate 12", "to the hotel"; not "to ship a parcel"
                    return nxt.startswith("\ue000") or nxt[:1].isupper() or _plain(nxt) in _DETERMINERS
                return True
        return False
    # after a deadline ("by Friday at 6") an "at <value>" is its clock time even when the
    # value was not recognised as one
    clock = timed or (len(group) == 2 and group[1].startswith("\ue000") and _plain(before[0]) in _DEADLINES)
    if first == "at" and clock and after_phrase and len(before) > 1 and _plain(before[0]) in _DAY_FOR_CLOCK:
        rest = [t.rstrip(".,!?") for t in before[1:]]
        return any(t in timeish or _plain(t) in _TIME_WORDS for t in rest) and all(
            t in timeish or _plain(t) in _TIME_WORDS or _plain(t) in ("the", "next", "this") for t in rest
        )
    return False


_DAY_FOR_CLOCK = frozenset("for by until till before".split())
_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday mon tues thurs fri".split())


_CONJUNCTIONS = frozenset(
    "and but or because so which who that if when while where though although since".split()
)


def _time_phrase(tokens: list[str], timeish: frozenset[str]) -> bool:
    """A short phrase that only states a time or date ("on Friday", "at 7pm", "this weekend")."""
    if _plain(tokens[0]) not in _TIME_OPENERS or len(tokens) > 4 or not tokens[0][:1].isalpha():
        return False
    rest = tokens[1:] if _plain(tokens[0]) in _TIME_OPENERS - _TIME_WORDS else tokens
    if _plain(tokens[0]) == "starting" and len(rest) > 1 and _plain(rest[0]) in ("on", "from"):
        rest = rest[1:]  # "starting on the 1st of June": one opener
    has_time = False
    for t in rest:
        core = t.rstrip(".,!?")
        if core in timeish or _plain(t) in _TIME_WORDS:
            has_time = True
        elif _plain(t) not in ("the", "a", "this", "next", "every"):
            return False
    return has_time


_BUDGET_OPENERS = frozenset("under below over above within around max maximum".split())


def _budget(phrase: str, budgets: frozenset[str] = frozenset()) -> bool:
    """A budget phrase ("under £1,100 a month", "for less than $40", "for <under $40>" where
    the value holds the limit, ``budgets``): like a time, it states a limit of the whole
    request and attaches to no noun, so it may pass a place phrase."""
    low = phrase.lower()
    if low.startswith(("for less than", "for under", "for no more")):
        return True
    if _first_word(low) in _BUDGET_OPENERS:
        # "over the back bedroom", "under the sink": a determiner opens a place, not a limit
        second = _TOKEN_RE.findall(low)[1:2]
        return not (second and _plain(second[0]) in _DETERMINERS | {"a", "an"})
    tokens = _TOKEN_RE.findall(phrase)
    return len(tokens) == 2 and _plain(tokens[0]) == "for" and tokens[1].rstrip(".,!?") in budgets


_BUDGET_VALUE_RE = re.compile(
    r"(?:under|below|less than|no more than|max(?:imum)?|up to)\s+\S*(?:[$€£¥₹]|\d)", re.I
)


def _budgets(spans: list[Span]) -> frozenset[str]:
    """Sentinels of values that state a limit on a price ("under $40", "less than €90"), so
    that "for <value>" is a budget phrase."""
    return frozenset(
        sentinel(i)
        for i, span in enumerate(spans)
        if _BUDGET_VALUE_RE.match(span.text) and _CURRENCY_RE.search(span.text)
    )


def _has_time(tokens: list[str], timeish: frozenset[str]) -> bool:
    return any(t.rstrip(".,!?") in timeish or _plain(t) in _TIME_WORDS for t in tokens)


def _opens_bare(tokens: list[str], i: int, timeish: frozenset[str] = frozenset(), owner: int = 0) -> bool:
    """A time value with no preposition of its own ("... pedicure tomorrow afternoon for 2")
    opens a phrase; after "to", "and", a preposition or another value it belongs to what
    precedes ("from June 14 to June 18"). ``owner``: ``_first_owner(tokens)``."""
    prev = tokens[i - 1]
    low = _plain(prev)
    if prev.startswith("\ue000") and prev.rstrip(".,!?") not in timeish and i > 1:
        # "stolen in Barcelona last week": a time right after a place value; "an MOT for my
        # Ford Fiesta next Tuesday morning": a time that ends the clause after a noun's value
        # ("a deep clean of the kitchen this Saturday for under £120": the time ends the
        # noun phrase when a phrase of its own follows it)
        if _plain(tokens[i - 2]) in _PHRASE_START or _with_value(tokens, i - 2, owner):
            return True  # "with Dr Okafor next Tuesday": the time is no part of the name
        if _plain(tokens[i - 2]) not in _DETERMINERS:
            return False
        j = i
        while j < len(tokens) and (tokens[j].rstrip(".,!?") in timeish or _plain(tokens[j]) in _TIME_WORDS):
            j += 1
        return j == len(tokens) or (_plain(tokens[j]) in _PHRASE_START and not _continues(tokens, j, timeish))
    if prev.startswith("\ue000") or low in _PHRASE_START or low in _NOT_BEFORE_BARE:
        return False
    if low in _QUANTIFIERS or low in _DETERMINERS:
        return False  # "for another 12 months": the value ends a noun phrase its determiner opened
    # "the 6:30 pm spin class": a value inside a noun phrase, not a phrase of its own
    nxt = _plain(tokens[i + 1]) if i + 1 < len(tokens) else ""
    return not nxt or nxt in _PHRASE_START


_NOT_BEFORE_BARE = frozenset(
    "to and or through the a an my your our their this that since of with about into onto via per "
    "than as like past around till until for".split()
)


_QUANTIFIERS = frozenset("another extra further additional more each other some few several any".split())
"""Words that open a noun phrase a value ends ("another 12 months", "an extra two days")."""
_TIME_STARTS = frozenset({"this", "next", "last", "every", "tomorrow", "tonight", "today"})


_NP_OPENERS = frozenset(
    "the a an my our your his her their this that these those some two three four five six "
    "seven eight nine ten".split()
)
"""Words that open a noun phrase that may swap with another ("the stove", "two tents")."""
_NP_STOP = frozenset(
    "and or but nor then to for from with of in on at by into onto under over near between "
    "is are was were be been i we you he she it they me us him them please not no "
    "first second former latter both either neither each one ones other another rest".split()
)
"""Words that end a noun phrase or make an order of two (a clause, a preposition, "first")."""
_PAIR_FOLLOWERS = frozenset("to for into onto".split())
"""What may follow a swapped pair: a phrase that belongs to both ("to my list", "for
Saturday pickup"); "under £300", "from Rosa", "in blue" could belong to the second alone."""


def _np_opener(token: str) -> bool:
    return _plain(token) in _NP_OPENERS or bool(re.fullmatch(r"\d+", token)) or token.startswith("\ue000")


def _pair(clause: Clause, timeish: frozenset[str]) -> tuple[str, tuple[str, ...], str, str] | None:
    """The two noun phrases joined by "and" that end the clause's head (``Clause.pair``), or
    None. Both open with a determiner, a number, a possessive or a value and hold at most five
    words, no preposition, verb form of "be", pronoun or ordering word ("first", "the latter",
    "between"); words come before them (a verb: the pair is its object); what follows is
    nothing, a time, or a phrase that belongs to both ("to my list", "for Saturday pickup")."""
    if _RANKED_RE.search(clause.head):
        return None
    tokens = _TOKEN_RE.findall(clause.head)
    ands = [i for i, t in enumerate(tokens) if _plain(t) == "and"]
    if len(ands) != 1 or any(t[-1:] in ",;:" for t in tokens):
        return None
    k = ands[0]
    second = tokens[k + 1 :]
    post: list[str] = []
    cut = next((i for i, t in enumerate(second) if _plain(t) in _PAIR_FOLLOWERS), None)
    if cut is not None:  # "milk and eggs to my shopping list": the phrase belongs to both
        second, post = second[:cut], second[cut:]
    if not second or len(second) > 5 or not _np_opener(second[0]):
        return None
    # the first noun phrase: back to its opener (and the openers right before it: "the two")
    j = k - 1
    while j >= 0 and not _np_opener(tokens[j]) and k - j <= 5:
        j -= 1
    if j < 0 or not _np_opener(tokens[j]):
        return None
    while j > 0 and _np_opener(tokens[j - 1]):
        j -= 1
    first = tokens[j:k]
    before = tokens[:j]
    # after a preposition the pair may not be one ("a table for two and a high chair": the high
    # chair is the table's partner, not two's)
    if (
        not before
        or len(first) > 5
        or _plain(before[-1])
        in _ATTACHING_PREPOSITIONS
        | _PHRASE_START
        | {
            "between",
            "both",
            "either",
            "about",
            "by",
            "under",
        }
    ):
        return None
    if any(_plain(t) in _NP_STOP for t in first + second):
        return None
    # the same kind on both sides: a value beside a plain noun phrase reads as a list of two
    # different things, fine; but a time is a phrase, not a thing ("Monday and Tuesday")
    if any(t.rstrip(".,!?") in timeish or _plain(t) in _TIME_WORDS for t in first + second):
        return None
    if clause.phrases and not post:
        nxt = _TOKEN_RE.findall(clause.phrases[0])
        if not clause.timed[:1] == [True] and _plain(nxt[0]) not in _PAIR_FOLLOWERS:
            return None
    return " ".join(before), (" ".join(first), " ".join(second)), " ".join(post), " and "


_RANKED_RE = re.compile(
    r"\b(?:prefer(?:ably|ence|red)?|priority|order of|rank(?:ed)?|respectively|choices?|favou?rites?)\b", re.I
)
"""Words that make the order of a list carry meaning ("in order of preference: X, Y and Z")."""
_LIST_LEADS = frozenset(
    "add put buy get order bring need needs want with of me us pack include including send "
    "pick grab take like bought ordered returned sent got brought packed".split()
)
"""Words after which a list of things starts ("Add | milk, eggs and bread"): a list after any
other word might start with an adjective that belongs to the first item only."""
_LIST_FOLLOWERS = frozenset("to for into onto on".split())


def _list_of(body: str, timeish: frozenset[str]) -> tuple[str, tuple[str, ...], str, str] | None:
    """A list of three to five things in a sentence ("Add milk, eggs and 2 loaves of bread to
    my shopping list") as ``Clause.pair`` holds it, or None: the list follows a verb or "with"
    (``_LIST_LEADS``), each thing has at most four words and no preposition but "of", no
    pronoun and no time; the sentence has no other comma and no other "and"/"or"; after the
    list comes nothing or a phrase that belongs to all of them ("to/for/into/onto/on ...")."""
    if _RANKED_RE.search(body):
        return None
    tokens = _TOKEN_RE.findall(body)
    ands = [i for i, t in enumerate(tokens) if _plain(t) in ("and", "or", "but", "then")]
    commas = [i for i, t in enumerate(tokens) if t.endswith(",")]
    if len(ands) != 1 or _plain(tokens[ands[0]]) != "and" or not commas or re.search(r"[;:]", body):
        return None
    k = ands[0]
    oxford = commas[-1] == k - 1
    if any(c > k for c in commas) or len(commas) > 4:
        return None
    lead = max((i for i in range(commas[0] + 1) if _plain(tokens[i]) in _LIST_LEADS), default=-1)
    if lead < 0:
        return None
    bounds = [lead + 1] + [c + 1 for c in commas if c + 1 < k] + [k + 1]
    items = [tokens[a:b] for a, b in zip(bounds, [*bounds[1:-1], k, len(tokens)], strict=True)]
    last = items[-1]
    cut = next((i for i, t in enumerate(last) if _plain(t) in _NP_STOP and _plain(t) != "of"), len(last))
    items[-1], post = last[:cut], last[cut:]
    if post and _plain(post[0]) not in _LIST_FOLLOWERS:
        return None
    words = [[t.rstrip(",") for t in item if t.rstrip(",")] for item in items]
    if len(words) < 3 or any(not w or len(w) > 4 for w in words):
        return None
    if any(
        (_plain(t) in _NP_STOP and _plain(t) != "of") or t in timeish or _plain(t) in _TIME_WORDS
        for w in words
        for t in w
    ):
        return None
    joiner = ", and " if oxford else " and "
    return " ".join(tokens[: lead + 1]), tuple(" ".join(w) for w in words), " ".join(post), joiner


def _list_like(body: str) -> bool:
    """True when the sentence's commas separate the things of a list ("with burgers, buns,
    salad and drinks", "milk, bread and cheese from Aldi"): a short part after a comma, with
    no preposition, pronoun or verb form of "be", that holds "and" or is followed by one."""
    parts = [_TOKEN_RE.findall(p) for p in re.split(r"(?:(?<!\s)\s+)?,\s+", body)]
    for j in range(1, len(parts)):
        part = parts[j]
        if not part or len(part) > 5:
            continue
        inner = [t for t in part if _plain(t) not in ("and", "of")]
        if any(_plain(t) in _NP_STOP for t in inner):
            continue
        has_and = any(_plain(t) == "and" for t in part[1:])
        next_and = j + 1 < len(parts) and bool(parts[j + 1]) and _plain(parts[j + 1][0]) == "and"
        if has_and or next_and:
            return True
    return False


def _joins_times(tokens: list[str], i: int, timeish: frozenset[str]) -> bool:
    """True when the "and" at ``i`` joins two times ("at 8am and 8pm"): one phrase."""
    if i == 0 or i + 1 >= len(tokens):
        return False
    return tokens[i - 1].rstrip(".,!?") in timeish and tokens[i + 1].rstrip(".,!?") in timeish


def _between(tokens: list[str], i: int) -> bool:
    """True when the "and" at ``i`` belongs to "between X and Y"."""
    return any(_plain(t) == "between" for t in tokens[max(0, i - 3) : i])


def _continues(tokens: list[str], i: int, timeish: frozenset[str] = frozenset()) -> bool:
    """True when the start word at ``i`` does not open a phrase: "this/next/last/every" not
    followed by a time word, or a word right after another start word ("from 9 to ...")."""
    low = _plain(tokens[i])
    if low == "about":  # "about unit C-07" names a topic; "about £90", "about 6" are amounts
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        prev = _plain(tokens[i - 1]) if i > 0 else ""
        return not nxt or nxt.startswith("\ue000") or nxt[:1].isdigit() or prev in _PHRASE_START
    if low in ("by", "starting"):  # "by Thursday", "starting next month" state a time;
        # "by Queen", "by card" belong to the word before; "starting on the 1st of June" is
        # one time phrase
        nxt = tokens[i + 1].rstrip(".,!?") if i + 1 < len(tokens) else ""
        # only at the end of an order ("Set up a payment to X starting on 1 June"); "enrol in
        # the course starting on 15 January" names the course's start
        if (
            low == "starting"
            and _plain(nxt) in ("on", "from")
            and _plain(tokens[0]) in _IMPERATIVES
            and 2 < len(tokens) - i <= 5
        ):
            after = [t.rstrip(".,!?") for t in tokens[i + 2 :]]
            timed = [t in timeish or _plain(t) in _TIME_WORDS for t in after]
            fillers = [_plain(t) in ("the", "next", "this") for t in after]
            if any(timed) and all(a or b for a, b in zip(timed, fillers, strict=True)):
                return False
        return not (nxt in timeish or _plain(nxt) in _TIME_WORDS or _plain(nxt) in _TIME_STARTS)
    if low in ("this", "next", "last", "every"):
        if i + 1 >= len(tokens):
            return True
        before = _plain(tokens[i - 1]) if i > 0 else ""
        if before in ("or", "nor", "than"):
            return True  # "tomorrow or next week": the second of two alternatives, never fronted alone
        if before in _PHRASE_START and before not in _TIME_WORDS and before not in _TIME_STARTS:
            return True  # "from next Monday": one phrase
        if (
            i > 0
            and low != "every"
            and _plain(tokens[i + 1]) in ("week", "weekend", "month", "year")
            and (tokens[i - 1].rstrip(".,!?") in timeish or before in _WEEKDAYS)
        ):
            return True  # "tuesday next week", "the 3rd this month": the period qualifies the day
        return not (_plain(tokens[i + 1]) in _TIME_WORDS or tokens[i + 1].startswith("\ue000"))
    prev = _plain(tokens[i - 1]) if i > 0 else ""
    if re.search(r"(?:ing|ed)$", prev) and prev not in _PHRASE_START and prev not in NOT_VERB_FORMS:
        return True  # "starting on 15 January", "booked for Friday": the phrase belongs to the verb
    return prev in _PHRASE_START and prev not in ("tomorrow", "tonight", "today")


def _split_unit(
    sentence: str,
    timeish: frozenset[str] = frozenset(),
    past: frozenset[str] = frozenset(),
    budgets: frozenset[str] = frozenset(),
) -> Unit:
    end = ""
    m = re.search(r"[.!?]+[\"'”’)]*$", sentence)
    body = sentence
    if m:
        body, end = sentence[: m.start()], sentence[m.start() :]
    wh_question = end.startswith("?") and _first_word(body) in _WH_FRONT
    if _first_word(body) in _NO_SPLIT and not wh_question:  # "When does X open?" asks
        return Unit([Clause(body)], end, False, False)
    asked = _two_questions(body, end)
    if asked is not None:  # "How long will it take, and what do I need to send?"
        return Unit([Clause(asked[0]), Clause(asked[1])], end, True, True, questions=True)
    listed = _list_of(body, timeish)
    if listed is not None:  # "Put eggs, butter and flour on the list": only the list moves
        return Unit([Clause(body, pair=listed)], end, False, False)
    if _list_like(body):  # a list's commas are no clause breaks ("burgers, salad and drinks, buns")
        return Unit([Clause(body)], end, False, False)
    parts = [p for p in re.split(r"(?:(?<!\s)\s+)?[,;]\s+", body) if p]  # one read of a run of spaces
    clauses: list[str] = []
    for part in parts:
        glue = (
            _first_word(part) in _GLUE_CLAUSE
            or part.lower().strip(" !.") in _BARE
            or bool(_BACK_REFERENCE_RE.search(part))
            or (bool(_APPOSITIVE_RE.fullmatch(part)) and not _holds_only(part, timeish | budgets))
            or _labelled_value(part)
            # ", about 18 inches long": a measure describes the noun that ends the clause before
            or (bool(_MEASURE_RE.search(part)) and len(_TOKEN_RE.findall(part)) <= 6)
        )
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
    if not merged:  # nothing but punctuation ("Hi, ?", "Alexa, ?"): nothing to move
        return Unit([Clause(body)], end, False, False)
    clause_list = [split_phrases(c, timeish, past) for c in merged]
    for clause in clause_list:
        clause.timed = [_has_time(_TOKEN_RE.findall(p), timeish) for p in clause.phrases]
        clause.pair = _pair(clause, timeish)
        clause.head_timed = _has_time(_TOKEN_RE.findall(clause.head), timeish)
    request = re.match(r"\W*(?:can|could|would|will)\s+you\b", body, re.I) is not None
    question = (end.startswith("?") or _first_word(body) in _QUESTION_WORDS) and not request
    for later in clause_list[1:]:
        later.frontable = False
    first = clause_list[0]
    if question:
        # "In Dublin, how much does it cost to X?": a wh-question may open with its last place
        # or time phrase (not a lower-case one: "on sundays, is the pool open" is no one's)
        # as may a yes/no question with its time ("On Thursday, can I bring a friend?")
        last = first.phrases[-1] if first.phrases else ""
        first.frontable = (
            len(clause_list) == 1
            and body[:1].isupper()
            and bool(last)
            # never a deadline: "By 10am, could it be delivered?" is no one's question
            and _first_word(last) not in _DEADLINES
            # never a frequency ("Every day, how often should it be tuned?" asks a frequency
            # of a frequency), nor a phrase of a clause inside the question ("... tuned if
            # it's played every day": fronted, it leaves "if" and attaches to the question)
            and _first_word(last) not in _FREQUENCY_OPENERS
            and _INNER_CLAUSE_RE.search(body) is None
            and (
                _time_phrase(_TOKEN_RE.findall(last), timeish)
                if _first_word(body) not in _WH_FRONT
                else _front_phrase(last, timeish)
            )
        )
    elif first.frontable and _first_word(body) not in _SUBJECTS:
        # an order opens only with a plain day or time ("On Friday, book ...", "From next
        # Monday, can you ..."), never with
        # "until/before/by ..." nor with one of two time phrases ("At 10 am, book X on Tuesday")
        opener = _first_word(first.phrases[-1])
        timed = [
            p
            for p in first.phrases
            if any(t.rstrip(".,!?") in timeish or _plain(t) in _TIME_WORDS for t in _TOKEN_RE.findall(p))
        ]
        first.frontable = opener in _ORDER_OPENERS and len(timed) == 1
    if first.frontable and not (question and _first_word(body) in _WH_FRONT):
        first.frontable = _one_verb_head(
            first,
            yes_no=question,
            recurring=bool(first.phrases) and _first_word(first.phrases[-1]) == "every",
        )
    if not first.frontable and not question and end.startswith(".") and body[:1].isupper():
        first.frontable = _past_front(first, timeish, past) or (
            len(clause_list) == 1 and _deadline_front(first, timeish)
        )
    if len(clause_list) == 1 and len(first.phrases) < 2 and not first.frontable and first.pair is None:
        split = _trailing_clause(body, timeish)
        if split is not None:  # nothing else moves: the clause may open the sentence
            main, sub = split
            return Unit([Clause(main), Clause(sub, bare=True)], end, False, True)
    return Unit(clause_list, end, and_last, len(merged) > 1)


_QUESTION_PAIR_RE = re.compile(r"([^,;:]+),\s+and\s+([^,;:]+)")


def _two_questions(body: str, end: str) -> tuple[str, str] | None:
    """The two questions of "<question>, and <question>?" ("What do I need to send you, and
    how long will the transfer take?"), or None: both open with a question word, the sentence
    has no other comma, and neither holds a back-reference ("and what would it cost" leans on
    the first; "Is it X, and who ..." leans on earlier text) nor an "or"."""
    m = _QUESTION_PAIR_RE.fullmatch(body)
    if not end.startswith("?") or m is None or not body[:1].isupper():
        return None
    first, second = m.group(1), m.group(2)
    if any(_plain(t) in _ASKING_WORDS for t in _TOKEN_RE.findall(first)):
        # "Could you tell me when I can call, and who I should ask for?": one asking verb, two objects
        return None
    for part in (first, second):
        if _first_word(part) not in _QUESTION_WORDS - {"whats", "what's"} or len(_TOKEN_RE.findall(part)) < 3:
            return None
        if not _leans_on_nothing_but_the(part) or re.search(r"\bor\b", part, re.I):
            return None
    return first, second


def _leans_on_nothing_but_the(text: str) -> bool:
    """No back-reference and no word that leans on earlier text ("the" allowed)."""
    if _PRONOUN_CONTRACTION_RE.search(text) or _BACK_REFERENCE_RE.search(text):
        return False
    return not any(_plain(t) in _CONTEXT_WORDS for t in _TOKEN_RE.findall(text))


_DEADLINES = frozenset("by until till before within".split())
_SUBORDINATORS = frozenset("if when unless while after although until before".split())
_CLAUSE_SUBJECTS = frozenset(
    "i i'm i've i'd we we're we've you you're my our the a an someone somebody nobody anyone "
    "anybody everyone".split()
)
_MAIN_OPENERS = frozenset(
    "please set send cancel book call remind turn add tell let give find show check keep hold "
    "email text move change switch stop pause start renew order make put get deliver bring park "
    "reserve store collect drop pick ship arrange schedule transfer sell buy refund return replace "
    "repair install remove upgrade downgrade extend rebook reschedule confirm notify inform "
    "i we my our".split()
)
"""Words a main clause may open with and still be lower-cased behind a fronted clause (a
question word, "please", a verb of request); a name ("Tesco ...") would lose its capital."""


_ASKING_WORDS = frozenset(
    "tell know ask asking check checking see wonder wondering find confirm sure remind notify "
    "inform advise understand clarify idea curious unsure whether decide matter depends".split()
)
"""Verbs after which "if/when" opens an indirect question, not a condition ("tell me if the
pool is open", "do you know when the shop opens", "remind me when it's due")."""


def _trailing_clause(body: str, timeish: frozenset[str] = frozenset()) -> tuple[str, str] | None:
    """(main clause, subordinate clause) of a sentence that ends with a subordinator
    ("if", "when", "unless", "while", "after", "before", "until", "although", "even though")
    and a clause with its own subject ("What happens to our data | if we cancel the
    subscription"), or None: the sentence is in lower case or has a comma, the subordinate
    clause has no back-reference (fronted, "it" would come before what it names), the main
    clause opens with a question word, "please", a subject or a verb of request and the
    sentence holds no "and/but/or" or second subordinator, and the main clause does not end
    with a time the subordinate clause narrows ("on Saturday morning when I'm in")."""
    if not body[:1].isupper() or re.search(r"[,;:]", body):
        return None
    tokens = _TOKEN_RE.findall(body)
    subs = [
        i
        for i, t in enumerate(tokens)
        if i > 0
        and (
            _plain(t) in _SUBORDINATORS
            or (_plain(t) == "even" and i + 1 < len(tokens) and _plain(tokens[i + 1]) == "though")
        )
        # "until 19 August", "after the move": a preposition, not a clause
        and not (
            _plain(t) in ("until", "before", "after")
            and (i + 1 >= len(tokens) or _plain(tokens[i + 1]) not in _CLAUSE_SUBJECTS)
        )
        # "two days before my next cleaning", "an hour after I land": a lead time, one unit
        and not (
            _plain(t) in ("until", "before", "after")
            and (tokens[i - 1].startswith("\ue000") or _plain(tokens[i - 1]) in _TIME_WORDS)
        )
    ]
    if len(subs) != 1:
        return None
    k = subs[0]
    main, sub = tokens[:k], tokens[k:]
    if _plain(main[-1]) in _TIME_WORDS or main[-1].rstrip(".,!?") in timeish:
        # "redeliver on Saturday morning when I'm in": the clause narrows the time right
        # before it; fronted ("When I'm in, can you ...") it reads as a condition
        return None
    lead = 2 if _plain(sub[0]) == "even" else 1  # "even though we switched ..."
    if len(main) < 3 or len(sub) < lead + 2 or _plain(sub[lead]) not in _CLAUSE_SUBJECTS:
        return None
    first = _plain(main[0])
    if first not in _QUESTION_WORDS and first not in _MAIN_OPENERS or main[0].startswith("\ue000"):
        return None
    if any(_plain(t) in _ASKING_WORDS for t in main):
        return None  # "Could you tell me if the pool is open?" asks whether: no condition
    if any(_plain(t) in ("and", "but", "or", "because", "so", "then", "than") for t in tokens):
        return None
    sub_text = " ".join(sub)
    if _BACK_REFERENCE_RE.search(sub_text) or _PRONOUN_CONTRACTION_RE.search(sub_text):
        return None
    return " ".join(main), sub_text


_PAST_TIME_RE = re.compile(
    r"(?:yesterday(?: (?:morning|afternoon|evening|night))?|last (?:night|week|weekend|month|year|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|[\ue000-\uf8ff]+)|"
    r"this (?:morning|afternoon)|earlier today|\S+ (?:minutes?|hours?|days?|weeks?|months?|years?) ago)",
    re.I,
)
"""A time that can only be the time of a past event ("yesterday", "last week", "two weeks
ago", "this morning" told in the past tense): it never names the time of something arranged
("book X for last week" is no one's request)."""
_PAST_VERBS = frozenset(
    "was were sent got made left saw took paid bought went came gave told said put lost found "
    "broke fell ran had did brought spent stole stolen rang wrote forgot drove flew sold sat "
    "met heard hit kept began felt won".split()
)
_MOTION_VERBS = frozenset("went goes go arrived arrives arrive comes come leaves turned turns".split())
"""Verbs of a subject ("... went home", "... arrived late") that may follow its phrases."""
_BOUGHT = frozenset("ordered bought purchased".split())
_PAST_BLOCKERS = frozenset(
    "need needs want wants would will can could should must may might going trying planning "
    "hoping supposed able have has am is are be been that which who whom whose and but or so "
    "because if when while where since until before after i we you he she they".split()
)
"""Words that give the head a second clause, a present or a future the past time could
belong to instead ("I need to cancel the order I placed yesterday")."""


def _ago_at(tokens: list[str], i: int) -> bool:
    """True when ``tokens[i]`` opens "<number> weeks ago" ("two weeks ago", "3 days ago")."""
    if i + 2 >= len(tokens) or _plain(tokens[i + 2]) != "ago":
        return False
    unit = _plain(tokens[i + 1])
    return unit in _TIME_WORDS or unit + "s" in _TIME_WORDS


def _past(spans: list[Span]) -> frozenset[str]:
    """Sentinels of the spans that state a past time ("yesterday", "last week", "two weeks
    ago")."""
    return frozenset(
        sentinel(i)
        for i, span in enumerate(spans)
        # a value in lower case cannot open a sentence: "Yesterday" would alter "yesterday"
        if _PAST_TIME_RE.fullmatch(span.text) and not span.text[:1].islower()
    )


def _past_front(clause: Clause, timeish: frozenset[str], past: frozenset[str]) -> bool:
    """True when a statement's last phrase is a past time that may open it ("I sent €400 to
    the wrong account yesterday." -> "Yesterday, I sent €400 to the wrong account."): the
    head opens with its subject ("I", "my/the <noun>", ...), its verb is in the past tense,
    and it holds no second clause, modal, present or future the time could belong to. A past
    time names when something happened, so even a verb that arranges something ("I ordered a
    jacket last week") keeps its meaning when the time opens the sentence."""
    if not clause.phrases or len(clause.phrases) > 3:
        return False
    last = _TOKEN_RE.findall(clause.phrases[-1])
    text = " ".join(t.rstrip(".,!?") for t in last)
    if last[0].startswith("\ue000") and text not in past:
        return False  # "two weeks ago" as a value: "Two" would alter it
    bought = False
    if not ((len(last) == 1 and text in past) or _PAST_TIME_RE.fullmatch(text)):
        # "I ordered a canvas on 2 November": the day a thing was bought is when it happened
        if not (_plain(last[0]) in ("on", "in") and _time_phrase(last, timeish)):
            return False
        bought = True
    tokens = _TOKEN_RE.findall(clause.head)
    if not tokens or len(tokens) > 12:
        return False
    first = _plain(tokens[0])
    if first not in ("i", "we", "my", "our", "the", "his", "her", "their"):
        return False
    rest = [_plain(t) for t in tokens[1:]]
    if any(t in _PAST_BLOCKERS or t.endswith(("'d", "’d", "'ll", "’ll", "n't", "n’t")) for t in rest):
        return False
    if any(_plain(t) in _PAST_BLOCKERS for p in clause.phrases[:-1] for t in _TOKEN_RE.findall(p)):
        return False
    if bought:
        # only after a verb of buying, with no other phrase ("I booked the court for 6:30 on
        # Wednesday": the day is the booking's)
        return len(clause.phrases) == 1 and any(t in _BOUGHT for t in rest)
    return any(
        t in _PAST_VERBS or (t.endswith("ed") and t not in NOT_VERB_FORMS and len(t) > 3) for t in rest
    )


_IMPERATIVES = _MAIN_OPENERS - {"please", "i", "we", "my", "our"} | {
    "have",
    "finish",
    "translate",
    "fix",
    "pay",
    "submit",
    "print",
    "clean",
    "wash",
    "iron",
    "prepare",
}
"""Verbs that open an order a deadline may open instead ("By Friday, get my X translated")."""


def _deadline_front(clause: Clause, timeish: frozenset[str]) -> bool:
    """True when an order's last phrase is a deadline that may open it ("Get my birth
    certificate translated into English by next Friday." -> "By next Friday, get my birth
    certificate translated into English."): "by" and a time only, the clause's only time; the
    head opens with a verb of request ("please" may precede it) and holds no second verb a
    deadline could belong to instead ("and have them back by Friday", "remind me to pay by
    Friday"), nor a conjunction, nor a verb that arranges something ("book a taxi to the
    airport by 6am": the taxi's deadline) unless it is "get/have <thing> <done>". A deadline is
    when the whole request must be done, so it keeps its meaning at the front."""
    if not clause.phrases or _first_word(clause.phrases[-1]) != "by":
        return False
    last = _TOKEN_RE.findall(clause.phrases[-1])
    if not _time_phrase(last, timeish) or any(clause.timed[:-1]) or clause.head_timed:
        return False
    tokens = _TOKEN_RE.findall(clause.head)
    if tokens and _plain(tokens[0]) == "please":
        tokens = tokens[1:]
    if len(tokens) < 2 or _plain(tokens[0]) not in _IMPERATIVES or tokens[0].startswith("\ue000"):
        return False
    # "book a taxi to the airport by 6am": the deadline is the taxi's, not the booking's; only
    # "get/have <thing> <done>" keeps it whole ("get my certificate translated by Friday")
    causative = _plain(tokens[0]) in ("get", "have") and any(
        _participle(tokens, k) for k in range(2, len(tokens))
    )
    if not causative and any(_plain(t) in _ARRANGING_VERBS for t in tokens[:2]):
        return False
    rest = [t for p in clause.phrases[:-1] for t in _TOKEN_RE.findall(p)]
    for k, t in enumerate(tokens + rest):
        low = _plain(t)
        if low in _CONJUNCTIONS or low in ("or", "then", "also"):
            return False
        nxt = (tokens + rest)[k + 1] if k + 1 < len(tokens + rest) else ""
        if low == "to" and not (nxt.startswith("\ue000") or nxt[:1].isupper() or _plain(nxt) in _DETERMINERS):
            return False  # "remind me to pay the rent by Friday": the deadline is the paying's
    return True


_WH_FRONT = frozenset("what when where which how who".split())
_SUBJECTS = frozenset("i i'm i'd i'll i've we we're we'd we'll we've my our".split())
_ORDER_OPENERS = frozenset("on at this next tomorrow tonight today every from starting".split())


_HEAD_BLOCKERS = frozenset(
    "with for from into about after before since until in on at by need needs want wants "
    "like would d 'd going trying planning hoping supposed able have has had".split()
)
"""Words that give a clause's head a second verb or a noun of its own that a fronted time could
belong to: "I need to cancel my appointment on 9 June" (the appointment is on 9 June, not the
need), "I booked an SUV with pickup on 3 May", "chairs arrived broken after the move on 5 May"."""


_PREPOSITION_BLOCKERS = frozenset("with for from into about after before since until in on at by".split())


_ARRANGING_VERBS = frozenset(
    "book booked booking reserve reserved schedule scheduled arrange arranged order ordered buy "
    "bought get got getting request requested cancel cancelled canceled move moved reschedule "
    "rescheduled change changed renew renewed register registered enrol enroll hire hired rent "
    "rented plan planned organise organize pre-order preorder invite invited".split()
)
"""Verbs that arrange something for a time: the time belongs to what is arranged ("book me
into the spin class on Wednesday"), and fronted it reads as the time of the arranging ("On
Wednesday, book me ..."), so a clause with one of them never opens with its time."""


_COPULAS = frozenset("i'm i’m we're we’re am is are was were".split())
_FREQUENCY_OPENERS = frozenset({"every", "each", "daily", "weekly", "monthly", "nightly", "twice"})
"""First words of a frequency phrase ("every day", "each week", "twice a month"): it never
opens a question."""
_INNER_CLAUSE_RE = re.compile(r"\s(?:if|when|whenever|unless|because|while|once|although)\s", re.I)
"""A clause inside a question after its first word ("How often ... if it's played every day?"):
its phrases belong to it, never to the question's front."""
_REQUEST_OPENER_RE = re.compile(r"^\W*(?:(?:can|could|would|will) you\s+)?(?:please\s+)?", re.I)


def _one_verb_head(clause: Clause, yes_no: bool = False, recurring: bool = False) -> bool:
    """True when the clause's time phrase can open the sentence without attaching to another
    verb or noun: the head before the phrases is one verb and its object (at most seven words,
    no infinitive, modal "need/want/like", preposition or auxiliary, no verb that arranges
    something), with at most one other phrase, which does not open with "to", "with", "of",
    "from", "into" or "for the/my ..."."""
    tokens = _TOKEN_RE.findall(_REQUEST_OPENER_RE.sub("", clause.head))
    # a stated subject ("I'm returning the car to Glasgow instead of Edinburgh") leaves no
    # doubt about the verb: two more words are allowed
    longest = 9 if tokens and _plain(tokens[0]) in _SUBJECTS else 7
    if clause.phrases and _first_word(clause.phrases[-1]) == "starting":
        longest += 2  # "Starting on 1 June, set up a monthly payment of €120 to Maria Lopez."
    if len(tokens) > longest or len(clause.phrases) > 2:
        return False
    # a subject and a bare verb do not open with a time ("On Friday, we arrive.", "On 31 March,
    # my contract ends."); a state does ("On Sundays, I'm free.")
    if longest == 9 and len(tokens) < 4 and not any(_plain(t) in _COPULAS for t in tokens):
        return False
    # a copula with a noun ("We're a group of 9 arriving in Whistler on Saturday night"): the
    # time is the noun's (who arrives), not the state's
    pairs = zip(tokens, tokens[1:], strict=False)
    if any(_plain(t) in _COPULAS and _plain(n) in ("a", "an") for t, n in pairs):
        return False
    # after a stated subject "with" is the verb's ("I paid $312 with PayPal"); in an order it
    # may open a noun's phrase ("an SUV with pickup")
    # and so is a place ("My card stopped working at the front door this morning" -> "This
    # morning, my card stopped working at the front door")
    blockers = _HEAD_BLOCKERS - {"with", "at", "in", "near"} if longest == 9 else _HEAD_BLOCKERS
    if yes_no:  # "In October, are dogs allowed at the lake site?": the time is the question's
        blockers = blockers - {"at", "in", "near"}
    if recurring:  # "every Friday" repeats the order itself; no noun ("the fund") has a rota
        blockers = blockers - _PREPOSITION_BLOCKERS
    if any(_plain(t) in blockers or _plain(t).endswith(("'d", "’d")) for t in tokens):
        return False
    # "the unlimited plan", "my booking": after a determiner or a value the word is a noun
    nouned = _DETERMINERS | {"a", "an"}
    if any(
        _plain(t) in _ARRANGING_VERBS
        and not (k > 0 and (_plain(tokens[k - 1]) in nouned or tokens[k - 1].startswith("\ue000")))
        for k, t in enumerate(tokens)
    ):
        return False
    # in an order, "on/at <time>" after "to/into my <noun>" may be that noun's ("add oven
    # cleaning to my booking on Monday": the booking is on Monday, not the adding)
    day = not yes_no and bool(clause.phrases) and _first_word(clause.phrases[-1]) in ("on", "at")
    for k, t in enumerate(tokens):  # "to Glasgow", "to the green tariff"; not "to call the dentist"
        nxt = tokens[k + 1] if k + 1 < len(tokens) else ""
        if _plain(t) == "to" and not (
            nxt.startswith("\ue000") or nxt[:1].isupper() or _plain(nxt) in _DETERMINERS
        ):
            return False
        if day and longest == 7 and _plain(t) in ("to", "into", "onto") and _plain(nxt) in _DETERMINERS:
            return False
    for p in clause.phrases[:-1]:  # "for the festival on 5 June": the day may be the festival's
        tokens = _TOKEN_RE.findall(p)
        first = _plain(tokens[0])
        if first in ("to", "with", "of", "from", "into") or (
            first == "for" and len(tokens) > 1 and _plain(tokens[1]) in _DETERMINERS
        ):
            return False
    return True


def _front_phrase(phrase: str, timeish: frozenset[str]) -> bool:
    """A phrase that can open a wh-question: a time phrase, or "in <place>" (a short phrase
    holding a protected value)."""
    tokens = _TOKEN_RE.findall(phrase)
    if _time_phrase(tokens, timeish):
        return True
    return _plain(tokens[0]) == "in" and len(tokens) <= 4 and any(t.startswith("\ue000") for t in tokens)


_APPOSITIVE_RE = re.compile(r"\s*(?:[\ue000-\uf8ff]+|[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)\s*")
"""A clause that is only a name or a protected value ("my mum, Maria, from ..."): an
appositive, glued to the clause before it."""
_LABELLED_VALUE_RE = re.compile(r"\s*([a-z][\w'’-]*)(?:\s+[a-z][\w'’-]*)?\s+[\ue000-\uf8ff]+\s*", re.I)


def _labelled_value(part: str) -> bool:
    """A clause that is a label and a value ("postcode NW1 6XE", "reservation RX-55120",
    "order number 4471"): it names what the clause before it holds and stays beside it.
    A preposition ("under £300", "on Friday") is not a label."""
    m = _LABELLED_VALUE_RE.fullmatch(part)
    if not m:
        return False
    first = m.group(1).lower()
    return first not in _FRONTABLE and first not in _PHRASE_START and first not in _GLUE_CLAUSE


_QUESTION_WORDS = frozenset(
    "what whats what's when where which who why how is are was were do does did can could "
    "would will should shall may might have has am".split()
)
_TIME_OPENERS = frozenset(
    "on at by in this next tomorrow tonight today every before after until starting from".split()
)


_GREETING_RE = re.compile(
    r"^\s*(?:(?:hi|hello|hey|dear)(?: there| team| all| sir| madam)?|good (?:morning|afternoon|evening))"
    r"[,!.]?\s+",
    re.I,
)
_SIGN_OFF_RE = re.compile(r"^(?:thanks|thank you|many thanks|cheers|regards|best)\b", re.I)


_WAKE_WORD_RE = WAKE_WORD_RE
"""A voice assistant's wake word ("Alexa,", "Hey Google,"): it addresses the assistant and
stays first, like a greeting; nothing moves in front of it."""


def _pinned(masked: str) -> tuple[str, str, str]:
    """Split off a greeting or a wake word (stays first) and a closing thanks sentence (stays
    last)."""
    head = ""
    m = _WAKE_WORD_RE.match(masked) or _GREETING_RE.match(masked)
    if m:
        head, masked = masked[: m.end()], masked[m.end() :]
    tail = ""
    spans = sentence_spans(masked)
    if len(spans) > 1 and _SIGN_OFF_RE.match(masked[spans[-1][0] :]):
        tail = " " + masked[spans[-1][0] :]
        masked = masked[: spans[-1][0]].rstrip()
    return head, masked, tail


_PRONOUN_FAMILIES = (
    frozenset("it its it's it’s".split()),
    frozenset("they them their they're they’re theirs".split()),
    frozenset("she her she's she’s hers".split()),
    frozenset("he him his he's he’s".split()),
)
"""Pronouns that name the same one thing (or things): a statement opening with one and a
question holding one of the same family both name what the story named before them."""
_TAIL_OPENER_RE = re.compile(
    r"[^\w\ue000-\uf8ff]*(?:(?:i|we)\s+(?:believe|think|reckon)\s+)?([a-z][\w'’]*)", re.I
)
_EXPLETIVE_TIME_RE = re.compile(
    r"[^\w\ue000-\uf8ff]*it(?:['’]s| has)\s+been\s+(?:\S+\s+){0,3}?"
    r"(?:minutes?|hours?|days?|weeks?|fortnight|months?|years?|ages)(?:\s+now)?[.!]*",
    re.I,
)
""""It's been two weeks." / "It has been nearly a month now.": an "it" that names nothing,
only time passing since the story."""
_TAIL_QUESTION_STOP = frozenset("also too either instead else".split())
"""Words of a closing question that may lean on the statement before it ("Is the lid
cracked too?")."""


def _tail_statement(statement: str, question: str, timeish: frozenset[str] = frozenset()) -> bool:
    """True when ``statement`` (right before the closing ``question``) may move behind it: a
    full-stop statement that opens with a pronoun (after "I believe/think" at most) of the same
    family as one in the question ("It cracked in the storm." / "Can someone take it down?"),
    or only says that time has passed ("It's been two weeks."): either way it names nothing the
    question could lean on. Refused: "that/this" pointing at the sentence before
    (``_points_back``), a question that points back itself ("Is that OK?") or leans on the
    statement with "too/also/either/instead/else"."""
    body = statement.strip()
    if not body.endswith(".") or not question.rstrip().endswith("?"):
        return False
    if _points_back_in(body) or _points_back_in(question):
        return False
    if any(_plain(t) in _TAIL_QUESTION_STOP for t in _TOKEN_RE.findall(question)) or re.search(
        r"\bas well\b", question, re.I
    ):
        return False
    # a protected time value ("It's been <two weeks>.") reads as the duration it states
    for value in timeish & set(_SENTINEL_RE.findall(body)):
        body = body.replace(value, "days")
    if _EXPLETIVE_TIME_RE.fullmatch(body):
        return True
    m = _TAIL_OPENER_RE.match(body)
    if m is None:
        return False
    family = next((f for f in _PRONOUN_FAMILIES if m.group(1).lower() in f), None)
    return family is not None and any(_plain(t) in family for t in _TOKEN_RE.findall(question))


def _tail_group(
    groups: list[list[str]],
    sentences: list[str],
    appended: set[int],
    timeish: frozenset[str] = frozenset(),
) -> int | None:
    """The index the closing question's ``tail`` statement has (or will have once cut from the
    group it is glued to), or None: the message ends with one question sentence of its own,
    the sentence before it is a ``_tail_statement`` and not the first sentence, and neither is
    an identifier label cut from its sentence."""
    n = len(sentences)
    if n < 3 or len(groups) < 2 or len(groups[-1]) != 1 or {n - 1, n - 2} & appended:
        return None
    if not _tail_statement(sentences[n - 2], sentences[n - 1], timeish):
        return None
    if len(groups[-2]) > 1:
        return len(groups) - 1
    return len(groups) - 2 if len(groups) > 2 else None


def units_of(
    masked: str,
    timeish: frozenset[str] = frozenset(),
    codes: frozenset[str] = frozenset(),
    leaning: frozenset[str] = frozenset(),
    past: frozenset[str] = frozenset(),
    budgets: frozenset[str] = frozenset(),
) -> list[Unit]:
    """The constraint structure of a masked text (greeting and closing thanks excluded)."""
    groups: list[list[str]] = []
    glued_on = [False]  # per group: it opens with a glue word but follows an identifier statement
    appended: set[int] = set()  # sentences that are an identifier label cut from the sentence before
    inners: dict[int, tuple[int, str, str]] = {}  # of those, the ones cut from inside it (``_inner_label``)
    sentences: list[str] = []
    for a, b in sentence_spans(masked):
        cut = _appended_label(masked[a:b], codes)
        inner = None if cut is not None else _inner_label(masked[a:b], codes)
        if inner is not None:
            sentences.extend(inner[:2])
            appended.add(len(sentences) - 1)
            inners[len(sentences) - 1] = inner[2:]
        elif cut is None:
            sentences.append(masked[a:b])
        else:
            sentences.extend(cut)
            appended.add(len(sentences) - 1)
    group_of: dict[int, int] = {}
    for i, s in enumerate(sentences):
        group_of[i] = len(groups)
        glue = bool(groups) and re.split(r"['’]", _first_word(s))[0] in _GLUE_SENTENCE  # "He's 9"
        if glue and not (len(groups) > 1 and len(groups[-1]) == 1 and _identifier(groups[-1][0], codes)):
            groups[-1].append(s)
        else:
            # "... course from the 14th to the 21st? Booking is SD-8820. Also, is it still a 9am
            # start?": "Also" and "it" lean on the story, not on the identifier between them,
            # so the sentence is a unit that refers back (``_keeps_references`` lets the
            # identifier move behind it, never "that/this" right after it)
            glued_on.append(glue)
            groups.append([s])
    tail = _tail_group(groups, sentences, appended, timeish)
    cut_from = -1  # the group the tail statement was cut from: its rules read it as still glued
    if tail is not None and len(groups[tail - 1]) > 1:  # cut from the story it was glued to
        cut_from = tail - 1
        groups.insert(tail, [groups[tail - 1].pop()])
        glued_on.insert(tail, True)
        group_of[len(sentences) - 2] = tail
        group_of[len(sentences) - 1] = tail + 1
    # per group: a back-reference after its first sentence (in its glued sentences or a later
    # group), computed from the end so that the whole pass stays linear
    refers_later = [False] * len(groups)
    seen = False
    for k in range(len(groups) - 1, -1, -1):
        glued = " ".join(groups[k][1:])
        seen = seen or bool(_BACK_REFERENCE_RE.search(glued) or _PRONOUN_CONTRACTION_RE.search(glued))
        refers_later[k] = seen
        first = groups[k][0]
        seen = seen or bool(_BACK_REFERENCE_RE.search(first) or _PRONOUN_CONTRACTION_RE.search(first))
    appended_groups = {group_of[i] for i in appended}
    inner_groups = {group_of[i]: where for i, where in inners.items()}
    last_question = -1  # the last group that asks a question
    units = []
    for k, group in enumerate(groups):
        unit = _split_unit(group[0], timeish, past, budgets)
        if k + 1 in inner_groups:
            # the label is written back inside this sentence's text: it moves as one whole
            unit = Unit(
                [Clause(group[0][: len(group[0]) - len(unit.end)] if unit.end else group[0])],
                unit.end,
                False,
                False,
            )
        unit.after = " ".join(group[1:])
        if unit.after and not unit.end:
            unit.end = "."
        # the story a tail statement was cut from moves no more freely than it did with it
        # ("I was told 10 working days. It's now been three weeks." stays after its story)
        held = [groups[tail][0]] if k == cut_from and tail is not None else []
        text = " ".join(group + held)
        unit.refers_back = k > 0 and (
            glued_on[k]
            or bool(
                _BACK_REFERENCE_RE.search(_without_relative_that(_IF_NEEDED_RE.sub("", text)))
                or _PRONOUN_CONTRACTION_RE.search(text)
            )
        )
        # "I bought a tent and a stove. It was broken.": a later back-reference may mean the
        # noun phrase nearest to it, so the pair keeps its order
        for clause in unit.clauses:  # "the old filter and the new one": "one" leans on the first
            if clause.pair is not None and any(_holds(item, leaning) for item in clause.pair[1]):
                clause.pair = None
        if refers_later[k]:
            for clause in unit.clauses:
                clause.pair = None
        alone = not unit.after and not held
        statement = alone and not unit.refers_back and _value_statement(group[0])
        bare_label = False
        if alone and not unit.refers_back and _holds(group[0], codes) and k in appended_groups:
            statement = bare_label = True  # ", ref DV-5071" cut from its sentence: to the end only
        elif alone and not unit.refers_back and _holds(group[0], codes):
            if _id_fragment(group[0]) or _value_statement(group[0]):
                statement = True  # "Student number MS-2287." states an identifier like "... is X"
            elif _LABEL_FRAGMENT_RE.fullmatch(re.sub(r"[.!]+[\"'”’)]*$", "", group[0].strip())):
                # "Order CT-1988.": at the front (after "Hi,") it would read as an order to
                # order; it only moves behind the sentences after it
                statement = bare_label = True
            elif _id_statement(group[0]):
                # "Booking was ER-66120." / "... if you need it.": the past and the courtesy
                # answer the story told before; opening the message they would come before it
                statement = bare_label = True
        # an identifier ("My member number is 448190.") goes anywhere; "The reference is X."
        # or "My budget is around €300." needs what it belongs to before it: it only moves back
        unit.free = (
            statement and not bare_label and _first_word(group[0]) != "the" and _holds(group[0], codes)
        )
        unit.statement = statement
        remark = not _valued(_TOKEN_RE.findall(text)) and _fact_statement(text, unit.end, valued=False)
        fact = _fact_statement(text, unit.end)
        unit.earlier = (
            k > 0
            and not statement
            and not unit.refers_back
            and not _holds(text, leaning)
            and (fact or _open_request(text, unit.end))
        )
        if unit.earlier and not _open_request(text, unit.end):
            unit.first = last_question + 1
        if unit.end.startswith("?") or group[-1].rstrip().endswith("?"):
            last_question = k
        unit.later = (
            0 < k < len(groups) - 1 and not unit.free and not unit.refers_back and (statement or remark)
        )
        unit.tail = k == tail and unit.refers_back
        unit.later = unit.later or unit.tail
        unit.appended = k in appended_groups
        unit.inner = inner_groups.get(k)
        unit.ahead = statement and not unit.free and not unit.appended and k >= 2 and k == len(groups) - 1
        unit.intro = k == 0 and bool(_INTRO_RE.match(group[0]))
        units.append(unit)
    return units


_BARE_NUMBER = frozenset({"number", "no"})


def _appended_label(sentence: str, codes: frozenset[str]) -> tuple[str, str] | None:
    """The sentence and its last comma clause when that clause only labels an identifier
    (", ref WB-3307.", ", booking HR-3091.", ", job number HA-55810."): ("I've got a service
    booked for 14 November.", "ref WB-3307"). None when the clause is anything else, a bare
    "number X" (", number 1234" may number the noun before it), or opens with a preposition
    ("under order X"). One pass from the end (no regex tries every comma)."""
    body = sentence.rstrip()
    stripped = body.rstrip(".!?\"'”’)")
    cut = stripped.rfind(",")
    if cut < 0 or not stripped[cut + 1 : cut + 2].isspace():
        return None
    head, label = stripped[:cut], stripped[cut + 1 :].strip()
    if not _label_clause(label, codes):
        return None
    if not _TOKEN_RE.search(_SENTINEL_RE.sub("", head)):
        return None
    return head + body[len(stripped) :], label


def _label_clause(label: str, codes: frozenset[str]) -> bool:
    """True when a comma clause only labels an identifier (``_appended_label``'s test)."""
    if ";" in label or not _holds(label, codes) or _first_word(label) in _BARE_NUMBER:
        return False
    return bool(_id_fragment(label) or _LABEL_FRAGMENT_RE.fullmatch(label)) and _labelled_value(label)


def _inner_label(sentence: str, codes: frozenset[str]) -> tuple[str, str, int, str, str] | None:
    """A label between two commas inside the sentence ("I booked a ride for the 16th, booking
    HR-3091, but the forecast looks awful."): (the sentence without it, the label, where it
    was cut, the text cut out, the text put in its place). The comma before a clause that
    opens with a conjunction stays (", but ..."); before a predicate it goes ("The e-bike I
    bought from your Leeds store won't charge ..."). The first such label only; one split."""
    parts = sentence.split(", ")
    start = 0
    for k in range(1, len(parts) - 1):
        start += len(parts[k - 1]) + 2
        label = parts[k].strip()
        if label != parts[k] or not _label_clause(label, codes):
            continue
        if not _TOKEN_RE.search(_SENTINEL_RE.sub("", ", ".join(parts[:k]))):
            return None
        put = ", " if _first_word(parts[k + 1]) in _CONJUNCTION_OPENERS else " "
        cut_at = start - 2  # the comma before the label
        cut = ", " + label + ", "
        return sentence[:cut_at] + put + sentence[cut_at + len(cut) :], label, cut_at, cut, put
    return None


def _identifier(sentence: str, codes: frozenset[str]) -> bool:
    """True when ``sentence`` only states an identifier: "My member number is 448190.",
    "Booking was ER-66120.", "Student number MS-2287.", "Order CT-1988." (a value of
    ``codes``)."""
    if not _holds(sentence, codes):
        return False
    bare = re.sub(r"[.!]+[\"'”’)]*$", "", sentence.strip())
    return (
        _value_statement(sentence)
        or _id_statement(sentence)
        or _id_fragment(sentence)
        or bool(_LABEL_FRAGMENT_RE.fullmatch(bare))
    )


_INTRO_RE = re.compile(
    r"\W*(?i:i['’]m|i am|my name is|this is)\s+(?:[\ue000-\uf8ff]|[A-Z])",
)
"""A sentence that introduces the writer: "I'm <name>", "My name is <name>", "This is <name>"
(the text is masked: a name is a value or a capital)."""
_SENTINEL_RE = re.compile(SENTINEL_PATTERN.replace("(", "(?:", 1))
_RELATIVE_THAT_RE = re.compile(
    r"([\w'’\ue001]+) that(?= (?:is|are|was|were|has|have|had|can|could|will|would|does|did|[a-z]{2,}s)\b)",
    re.I,
)
"""A relative "that" after a noun and before its verb ("a place in Shoreditch that takes big
groups"): it names what comes right before it, not something said earlier."""
_NOT_NOUNS = frozenset(
    "is are was were be been do does did can could will would about of with for to on in at and "
    "but or so know think say said hope sure mean means".split()
)


def _without_relative_that(text: str) -> str:
    """``text`` without its relative "that"s (``_RELATIVE_THAT_RE``; not after a verb, a
    preposition or a conjunction: "I know that is wrong" keeps it)."""
    return _RELATIVE_THAT_RE.sub(
        lambda m: m.group(0) if m.group(1).lower() in _NOT_NOUNS else m.group(1) + " ", text
    )


def _holds_only(text: str, sentinels: frozenset[str]) -> bool:
    """True when ``text`` is one or more of ``sentinels`` and nothing else ("Friday 7pm" as
    two values after a comma: a constraint of its own, not an appositive name)."""
    found = _SENTINEL_RE.findall(text)
    return bool(found) and all(m in sentinels for m in found) and not _SENTINEL_RE.sub("", text).strip()


def _holds(text: str, sentinels: frozenset[str]) -> bool:
    """True when ``text`` holds one of ``sentinels`` (linear in the text, whatever their number)."""
    return bool(sentinels) and any(m in sentinels for m in _SENTINEL_RE.findall(text))


def _points_back(unit: Unit) -> bool:
    """True when the unit refers back with "that" or "this" ("Is that realistic?"): it points
    at the sentence right before it, where "it" names a thing of the story."""
    return _points_back_in(" ".join(part for c in unit.clauses for part in c.parts()))


def _points_back_in(text: str) -> bool:
    """True when ``text`` refers back with "that" or "this" (``_points_back``)."""
    return any(m.group(0).lower() in ("that", "this") for m in _BACK_REFERENCE_RE.finditer(text))


def _keeps_references(units: list[Unit], unit_order: list[int]) -> bool:
    """True when every unit that refers back still follows every unit it followed, and no unit
    that followed it now stands right before it ("... I only worked 18. My employee ID is
    E-20931. Can someone check it?" makes "it" the ID)."""
    seen = [False] * (len(units) + 1)
    lowest_unseen = 0  # the lowest unit not yet placed
    lowest_story = 0  # the same, value statements skipped
    # a value statement is no referent: "Where is it? The order number is 88213." still
    # asks about what the story named, so a statement may move behind a back-reference --
    # but only when a story stays before it ("Can you check it? My order number is X."
    # would leave "it" with nothing to name)
    skip = [u.statement or u.tail for u in units] + [False]
    story = [False] * len(units)  # a unit that is no statement comes before it
    for i in range(1, len(units)):
        story[i] = story[i - 1] or not units[i - 1].statement
    for k, u in enumerate(unit_order):
        before = unit_order[k - 1] if k > 0 else -1
        unseen = lowest_story if story[u] else lowest_unseen
        # a ``tail`` statement behind the closing question: right after it, last
        behind_question = units[u].tail and k == len(unit_order) - 1 and before == u + 1
        if units[u].refers_back and (unseen < u or (before > u and not behind_question)):
            return False
        if units[u].tail and seen[u + 1] and before not in (u - 1, u + 1):
            # after its story or right behind its question: "Could you look into it? My member
            # number is 55821. It was due back last week." makes "it" the number
            return False
        if (
            units[u].refers_back
            and u > 0
            and units[u - 1].statement
            and not seen[u - 1]
            and _points_back(units[u])
        ):
            # the statement right before "that/this" is what it asks about: "Our budget is
            # about £1,800. Is that realistic?" never becomes "Is that realistic? Our ..."
            return False
        written_back = units[before].appended and k >= 2 and unit_order[k - 2] == before - 1
        if (
            units[u].refers_back
            and 0 < u
            and units[u - 1].tail
            and not seen[u - 1]
            and before != u - 1
            and units[before].statement
            and not written_back
        ):
            # with the statement before it moved behind it, the closing question follows the
            # story, never a value statement ("My membership number is 40719. Could you chase
            # it up?" makes "it" the number); a label written back in its sentence is the story
            return False
        if units[u].refers_back and 0 < u and before != u - 1 and _points_back(units[u]):
            # nor does another sentence land right before it: "... finished by Friday. Order
            # KF-10558. Is that still happening?" makes "that" the order
            return False
        seen[u] = True
        while seen[lowest_unseen]:
            lowest_unseen += 1
        while seen[lowest_story] or (skip[lowest_story] and lowest_story < len(units)):
            lowest_story += 1
    return True


@dataclass
class Order:
    """A new order: of the units, of each unit's clauses, of each clause's phrases."""

    units: list[int]
    clauses: list[list[int]]
    phrases: list[list[list[int]]]
    fronted: set[int] = field(default_factory=set)
    """Units whose head clause's last time phrase opens the sentence."""
    swapped: dict[tuple[int, int], tuple[int, ...]] = field(default_factory=dict)
    """(unit, clause) -> the new order of its head's noun phrases (``Clause.pair``)."""


def _identity(units: list[Unit]) -> Order:
    return Order(
        list(range(len(units))),
        [list(range(len(u.clauses))) for u in units],
        [[list(range(len(c.phrases))) for c in u.clauses] for u in units],
    )


def _render(units: list[Unit], order: Order, lower: bool = False) -> str:
    out: list[str] = []
    ends: list[str] = []  # the closing marks each sentence of ``out`` ends with (before glued ones)
    for k, u in enumerate(order.units):
        unit = units[u]
        texts = []
        opener = ""
        for ci in order.clauses[u]:
            clause = unit.clauses[ci]
            idx = order.phrases[u][ci]
            if ci == 0 and u in order.fronted:
                last = len(clause.phrases) - 1
                opener = clause.phrases[last]
                idx = [i for i in idx if i != last]
            phrases = [clause.phrases[i] for i in idx]
            texts.append(" ".join([clause.head_text(order.swapped.get((u, ci))), *phrases]) + clause.tail)
        head_pos = order.clauses[u].index(0)
        if head_pos != 0 or opener:
            texts[head_pos] = decapitalize_first(texts[head_pos])
        if opener:
            texts.insert(0, opener)
        texts[0] = texts[0] if lower else capitalize_first(texts[0])
        if unit.and_last and len(texts) > 1:
            texts[-1] = "and " + texts[-1]
        if unit.appended and k > 0 and order.units[k - 1] == u - 1:
            # right after its sentence, the label is written back in it (", ref X.")
            if unit.inner is not None:  # back inside: "... for the 16th, booking HR-3091, but ..."
                at, cut_out, put = unit.inner
                out[-1] = out[-1][:at] + cut_out + out[-1][at + len(put) :]
                continue
            cut = len(out[-1]) - len(ends[-1])
            out[-1] = out[-1][:cut] + ", " + unit.clauses[0].head + ends[-1]
            continue
        end = unit.end or ("." if k < len(order.units) - 1 or unit.appended else "")
        ends.append(end)
        after = unit.after
        if after and not re.search(r"[.!?][\"'”’)]*$", after) and k < len(order.units) - 1:
            after += "."
        seq = ([-1] if opener else []) + list(order.clauses[u])  # the clause of each text
        joined = texts[0]
        for k2 in range(1, len(texts)):
            ci = seq[k2]  # a trailing clause in place follows its main clause without a comma
            bare = ci >= 0 and unit.clauses[ci].bare and seq[k2 - 1] == ci - 1
            joined += (" " if bare else ", ") + texts[k2]
        out.append(joined + end + (" " + after if after else ""))
    return " ".join(out)


def _layout(units: list[Unit]) -> dict[tuple[int, int], tuple[int, int]]:
    """(unit, clause) -> (index of its first canonical segment, number of head segments);
    (unit, -1) -> the index of the unit's glued sentences. Computed once per prompt, so that
    each draw's ``_flat`` is one pass over the new order."""
    layout: dict[tuple[int, int], tuple[int, int]] = {}
    total = 0
    for ui, unit in enumerate(units):
        for ci, clause in enumerate(unit.clauses):
            nh = len(clause.head_parts())
            layout[(ui, ci)] = (total, nh)
            total += nh + len(clause.phrases)
        if unit.after:
            layout[(ui, -1)] = (total, 0)
            total += 1
    return layout


def _flat(
    units: list[Unit], order: Order, layout: dict[tuple[int, int], tuple[int, int]] | None = None
) -> list[int]:
    """Canonical segment indices (head, then phrases of each clause) in the new order
    (``layout``: ``_layout(units)``, computed here when not given)."""
    offsets = _layout(units) if layout is None else layout
    out = []
    for u in order.units:
        for ci in order.clauses[u]:
            base, nh = offsets[(u, ci)]
            heads = list(range(base, base + nh))
            perm = order.swapped.get((u, ci))
            if perm is not None:  # the pair's noun phrases (after the words before them)
                heads[1 : 1 + len(perm)] = [base + 1 + i for i in perm]
            out.extend(heads)
            out.extend(base + nh + p for p in order.phrases[u][ci])
        if units[u].after:
            out.append(offsets[(u, -1)][0])
    return out


def _front(units: list[Unit], order: Order, flat: list[int]) -> list[int]:
    """``flat`` with each fronted phrase moved to the start of its unit."""
    out: list[int] = []
    pos = 0
    offsets: dict[int, int] = {}
    total = 0
    for ui, unit in enumerate(units):
        offsets[ui] = total
        total += unit.size()
    for u in order.units:
        size = units[u].size()
        chunk = flat[pos : pos + size]
        pos += size
        if u in order.fronted:
            first = units[u].clauses[0]
            last = offsets[u] + len(first.parts()) - 1
            chunk = [last] + [i for i in chunk if i != last]
        out.extend(chunk)
    return out


def _segments(units: list[Unit]) -> list[str]:
    out: list[str] = []
    for u in units:
        out.extend(part for c in u.clauses for part in c.parts())
        if u.after:
            out.append(u.after)
    return out


def weighted_kendall(order: list[int], weights: list[int]) -> float:
    """Normalised Kendall tau distance over words: segment ``order[k]`` stands for
    ``weights[order[k]]`` words; discordant word pairs ÷ W(W-1)/2. O(n log n) (Fenwick tree)."""
    n = len(weights)
    total = sum(weights)
    if total < 2 or n < 2:
        return 0.0
    tree = [0] * (n + 1)
    placed = 0
    discordant = 0
    for v in order:
        # weight already placed with a canonical index > v
        i, below = v + 1, 0
        while i > 0:
            below += tree[i]
            i -= i & -i
        discordant += weights[v] * (placed - below)
        placed += weights[v]
        i = v + 1
        while i <= n:
            tree[i] += weights[v]
            i += i & -i
    return discordant / (total * (total - 1) / 2)


def _weights(segments: list[str]) -> list[int]:
    return [max(1, len(_WORD_OR_SENTINEL_RE.findall(s))) for s in segments]


def _draw(
    units: list[Unit], rng: random.Random, fronting: bool = True, budgets: frozenset[str] = frozenset()
) -> Order:
    """A random order: each depth is shuffled with its own probability, so draws range from
    one small move to a full shuffle. ``budgets``: the sentinels of price limits (``_budgets``)."""
    order = _identity(units)
    p_units, p_clauses, p_phrases = rng.random(), rng.random(), rng.random()
    free = [i for i, u in enumerate(units) if u.free or u.earlier or u.later or u.ahead]
    if free and len(units) > 1 and rng.random() < p_units:
        n = len(units)
        for _ in range(6):
            # the other sentences keep their order (each sorts at its own index); a value
            # statement goes anywhere, a fact in front of its place, a remark behind it
            chosen = set(free) if rng.random() < 0.5 else {rng.choice(free)}
            keys = [float(i) for i in range(n)]
            for i in chosen:
                lo = (
                    -0.5
                    if units[i].free
                    else units[i].first - 0.5
                    if units[i].earlier
                    else 0.5
                    if units[i].ahead
                    else float(i)
                )
                if units[i].appended:  # an appended label moves to the end of the message only
                    lo = n - 0.5
                if units[0].intro:  # "I'm Dr Ana Ruiz from X." stays first
                    lo = max(lo, 0.5)
                hi = n - 0.5 if units[i].free or units[i].later else float(i)
                keys[i] = rng.uniform(lo, hi)
            new = sorted(range(n), key=keys.__getitem__)
            if _keeps_references(units, new):
                order.units = new
                break
    for ui, unit in enumerate(units):
        if unit.splittable and len(unit.clauses) > 1 and rng.random() < p_clauses:
            order.clauses[ui] = _clause_order(unit, rng)
        if (
            fronting
            and unit.clauses[0].frontable
            and order.clauses[ui][0] == 0
            and not _last_bound(unit.clauses[0])
            and rng.random() < p_phrases * 0.5
        ):
            order.fronted.add(ui)  # never two openers ("On Friday, under £300, book ...")
        for ci, clause in enumerate(unit.clauses):
            if clause.pair is not None and rng.random() < 0.5:
                perm = list(range(len(clause.pair[1])))
                if len(perm) == 2:
                    perm.reverse()
                while perm == sorted(perm):
                    rng.shuffle(perm)
                order.swapped[(ui, ci)] = tuple(perm)
            if len(clause.phrases) > 1 and rng.random() < p_phrases:
                new = list(range(len(clause.phrases)))
                if rng.random() < 0.5:  # move one phrase
                    i, j = rng.sample(range(len(clause.phrases)), 2)
                    new.insert(j, new.pop(i))
                else:
                    rng.shuffle(new)
                fixed = [i for i in new if not (clause.timed[i] or _budget(clause.phrases[i], budgets))]
                if (
                    fixed == sorted(fixed)
                    and not _same_opener(clause.phrases, new)
                    and _times_together(clause.phrases, clause.timed, new)
                    and _bound_kept(clause, new)
                ):
                    # only time and budget phrases pass the others
                    order.phrases[ui][ci] = new
    return order


def _times_together(phrases: list[str], timed: list[bool], new: list[int]) -> bool:
    """True when a day and its clock time ("on Saturday" + "at 8pm") that stood side by side
    still do, in either order: "Book a table at 8pm for 4 at Luigi's on Saturday" splits one
    time in two."""
    where = {p: k for k, p in enumerate(new)}
    for i in range(len(phrases) - 1):
        day_and_time = _first_word(phrases[i]) in ("on", "for") and _first_word(phrases[i + 1]) == "at"
        # "at 11" after a day is its clock time even when 11 was not recognised as a time
        if day_and_time and timed[i] and abs(where[i] - where[i + 1]) != 1:
            return False
    return True


_EVENT_NOUNS = frozenset(
    "pickup pick-up collection delivery drop-off dropoff arrival departure return check-in "
    "checkout check-out appointment viewing visit installation fitting consultation".split()
)
"""Nouns naming an event that a following time belongs to ("... for pickup at 8am Sunday")."""
_NAME_PLACE_OPENERS = frozenset("on in at near off".split())
_PRIVATE_USE = frozenset(chr(c) for c in range(0xE000, 0xF900))


def _capital(token: str) -> bool:
    """A token that opens with a capital or is a protected value (a name, a place)."""
    return token[:1].isupper() or token[:1] in _PRIVATE_USE


_SUBJECT_VERB_RE = re.compile(
    r"\W*(?:(?:the|my|our|your|his|her|their|this|that)\s+(?:[\w'’-]+\s+){0,2}?|(?:it|we|they|he|she|i)\s+)"
    r"(?:(?:is|are|am)(?:\s+(?:still|now|also|only|already|always))?|(?P<verb>[a-z][\w'’-]*))\s*",
    re.I,
)
"""A short present-tense clause of a subject and its verb and nothing else ("The party
starts", "The party is still", "We arrive"): a time phrase after it is the predicate's
complement ("The party is still on the 21st"), so it never opens the sentence ("On the 21st,
the party is still." is ungrammatical; "At noon, the party starts." reads unnatural). A past
event may still open with its time ("Last night, my flight was cancelled.")."""


def _completes_clause(head: str) -> bool:
    """True when ``head`` is a short present-tense subject-verb clause (``_SUBJECT_VERB_RE``):
    a copula, or a verb that is no past form ("starts", not "arrived", "was cancelled")."""
    m = _SUBJECT_VERB_RE.fullmatch(head)
    if m is None:
        return False
    verb = (m.group("verb") or "").lower()
    return not verb or not (verb.endswith("ed") or verb in _PAST_VERBS)


_MEASURE_RE = re.compile(
    r"(?:\b(?:long|wide|tall|high|deep|thick|across|square)|\bin\s+(?:length|width|height|diameter))\W*$",
    re.I,
)
"""A measure phrase ("about 18 inches long", "2 metres wide"): it describes the noun right
before it, so it stays there ("a pearl necklace, with knots between each pearl, about 18
inches long" gives the length to the pearl)."""
_AFFILIATIONS = frozenset({"at", "from", "of"})
_NOT_VERBS = (
    _ATTACHING_PREPOSITIONS
    | _DETERMINERS
    | frozenset("by until till before after during and or a an".split())
)
"""Words before a name that make it no verb's object ("for Sunday", "the Croydon ..."): only
a person named as the object ("call Mark", "email Priya") has a company after the name."""


def _bound(before: str, phrase: str, timed: bool) -> bool:
    """True when ``phrase`` must stay right after the text ``before`` it (the head when it is
    the first phrase): a time after an event noun ("for pickup | at 8am Sunday" -- moved, the
    time would tell when to order), a time completing a short subject-verb clause ("The party
    is still | on the 21st"), a measure of the noun before it ("a necklace | about 18 inches
    long"), the company of a person named right before ("call Mark | at Apex Glazing"), or a
    place after a name it locates, the verb behind it ("does Rosie's Bakery | on Mill Road
    open" -- nothing may come between them)."""
    words = _TOKEN_RE.findall(before)
    last = _plain(words[-1]) if words else ""
    if timed and last in _EVENT_NOUNS:
        return True
    if timed and _completes_clause(before):
        return True
    if not timed and _MEASURE_RE.search(phrase):
        return True
    place = _TOKEN_RE.findall(phrase)
    if (
        not timed
        and len(place) >= 2
        and _plain(place[0]) in _AFFILIATIONS
        and _capital(place[1])
        and len(words) >= 2
        and last != "i"
        and _capital(words[-1])
        and words[-2].isalpha()
        and words[-2].islower()
        and _plain(words[-2]) not in _NOT_VERBS
        and (len(words) < 3 or _plain(words[-3]) not in _DETERMINERS | {"a", "an"})  # "a new <deadlock>"
    ):
        return True  # "call Mark | at Apex Glazing", "email Priya | from Hartley & Co": the person's
    # a place or an origin right after a phrase's noun is that noun's ("at a leak | over the
    # back bedroom", "for 14 people | from Harlow & Pike"): no time comes between them
    opener = _plain(place[0]) if place else ""
    if not timed and words and before[:1].islower() and _plain(words[0]) in _ATTACHING_PREPOSITIONS:
        if opener in _NOUN_PLACE_OPENERS or (opener == "from" and _plain(words[0]) == "for"):
            return True
    # the object of an infinitive's verb ("to look | at a leak"): no time between them
    verb = words[-1] if words else ""
    if not timed and len(words) >= 2 and _plain(words[-2]) == "to" and verb.isalpha() and verb.islower():
        return True
    if len(place) < 3 or place[0].lower() not in _NAME_PLACE_OPENERS or not _capital(place[1]):
        return False
    # the clause's verb follows the place ("does Rosie's Bakery on Mill Road open"): the
    # place belongs to the name before it, not to the verb
    if not (words and last != "i" and place[-1].isalpha() and place[-1].islower()):
        return False
    # a name, or any noun after an auxiliary that asks ("what time does the ski rental shop
    # in Breckenridge close", "is the course at Kingsbarn Links open"): the subject's place
    return _capital(words[-1]) or (
        last not in _PRONOUNS and any(_plain(w) in _ASKING_AUXILIARIES for w in words[:3])
    )


_NOUN_PLACE_OPENERS = frozenset("over under above below behind beside near next".split())
_ASKING_AUXILIARIES = frozenset("do does did is are was were".split())
_PRONOUNS = frozenset("i you we they he she it there".split())


def _bound_kept(clause: Clause, new: list[int]) -> bool:
    """True when every phrase bound to what precedes it (``_bound``) still follows it: a time
    anywhere after its event ("a pickup at 14 Carlton Road for tomorrow" is still the
    pickup's time), a place right after its name."""
    where = {p: k for k, p in enumerate(new)}
    texts = [clause.head, *clause.phrases]
    for i, phrase in enumerate(clause.phrases):
        if not _bound(texts[i], phrase, clause.timed[i]):
            continue
        last = where[i - 1] if i > 0 else -1  # the head always comes first
        if where[i] < last or (not clause.timed[i] and where[i] != last + 1):
            return False
    return True


def _last_bound(clause: Clause) -> bool:
    """True when the clause's last phrase is bound to what precedes it (``_bound``), so it
    may not open the sentence ("At 8am Sunday, order croissants for pickup")."""
    if not clause.phrases:
        return False
    before = clause.phrases[-2] if len(clause.phrases) > 1 else clause.head
    return _bound(before, clause.phrases[-1], clause.timed[-1])


def _same_opener(phrases: list[str], new: list[int]) -> bool:
    """True when the new order puts two phrases that open with the same word side by side in
    an order they did not have ("switch from next month from 30 minute to 45 minute lessons");
    "for" may repeat ("a cake for 12 people for Friday at 10 am")."""
    for a, b in zip(new, new[1:], strict=False):
        first = _first_word(phrases[a])
        if b != a + 1 and first != "for" and first == _first_word(phrases[b]):
            return True
    return False


_VALUE_STATEMENT_RE = re.compile(
    r"(?:(?:my|our|the)\s+)?(?:[a-z][\w'’-]*\s+){0,2}[a-z][\w'’-]*\s+(?:is|are)\s+[^,;:]*[\ue000-\uf8ff][^,;:]*",
    re.I,
)
_STATEMENT_STOP = frozenset(
    "i we you he she it they this that these those but because so if when and or not".split()
)


def _value_statement(sentence: str) -> bool:
    """A short sentence that only states a value: "My member number is 448190.", "Order
    number is TK-300418.", "The account is under Kenji Sato." -- a subject of at most four
    words (no pronoun), "is"/"are", a protected value; twelve words at most."""
    body = re.sub(r"[.!]+[\"'”’)]*$", "", sentence.strip())
    if not _VALUE_STATEMENT_RE.fullmatch(body) or len(_TOKEN_RE.findall(body)) > 12:
        return False
    return not any(_plain(t) in _STATEMENT_STOP for t in _TOKEN_RE.findall(body))


_ID_FRAGMENT_RE = re.compile(
    r"(?:(?:my|our|the)\s+)?(?:[a-z][\w'’-]*\s+){0,2}(?:number|no|ref|reference|id|code)[.:#]?\s*[\ue000-\uf8ff]+",
    re.I,
)


_LABEL_FRAGMENT_RE = re.compile(
    r"(?:(?:my|our|the)\s+)?(?:[a-z][\w'’-]*\s+)?(?:order|booking|invoice|account|ticket|case|job|"
    r"reservation|policy|claim|receipt|membership)\s*[\ue000-\uf8ff]+",
    re.I,
)
"""A verbless label that names what an identifier is without "number/ref/id" ("Order
CT-1988.", "Booking LK-2041.")."""


_IF_NEEDED_RE = re.compile(r"\s+if (?:you need it|it helps|that helps)(?=[.!]*[\"'”’)]*\s*$)", re.I)
"""A courtesy after an identifier ("The claim ref is HX-448201 if you need it."): its "it" is
the identifier of the same sentence, no back-reference."""
_ID_STATEMENT_RE = re.compile(
    r"(?:(?:my|our|the|your)\s+)?(?:[a-z][\w'’-]*\s+){0,2}(?:number|no|ref|reference|id|code|order|booking|"
    r"invoice|account|ticket|case|job|reservation|policy|claim|receipt|membership)\s+(?:is|was)\s+[\ue000-\uf8ff]+",
    re.I,
)
"""A sentence that only states an identifier by its label, in the present or the past ("The
job number was CS-5582.", "Booking was ER-66120.", "The claim ref is HX-448201 if you need
it.")."""


def _id_statement(sentence: str) -> bool:
    """True when ``sentence`` only states an identifier (``_ID_STATEMENT_RE``), a courtesy
    "if you need it" allowed (``_IF_NEEDED_RE``); the value is checked by the caller."""
    body = re.sub(r"[.!]+[\"'”’)]*$", "", _IF_NEEDED_RE.sub("", sentence.strip()))
    return bool(_ID_STATEMENT_RE.fullmatch(body)) and not any(
        _plain(t) in _STATEMENT_STOP for t in _TOKEN_RE.findall(body)
    )


def _id_fragment(sentence: str) -> bool:
    """A verbless sentence that is only a label ending in an identifier noun and the value it
    labels ("Student number MS-2287.", "Booking ref LK-204.", "Order no. 5521."): it states an
    identifier as "My order number is X." does."""
    body = re.sub(r"[.!]+[\"'”’)]*$", "", sentence.strip())
    return bool(_ID_FRAGMENT_RE.fullmatch(body))


_CONTEXT_WORDS = frozenset(
    "still also too again instead either else another one ones other same such anymore yet "
    "now already even both each neither".split()
)
"""Words that make a sentence lean on what was said before it."""
_PRONOUN_CONTRACTION_RE = re.compile(
    r"(?<![\w'’])(?:it|he|she|they|that|there|this)['’](?:s|re|ll|d|ve)\b", re.I
)
_NO_VALUE_LEAD = r"[^\w\ue000-\uf8ff]*"
"""Leading marks before a sentence's first word, never a value's sentinel ("Weekends would
suit best" opens with a value, not with "would")."""
_FIRST_PERSON_RE = re.compile(
    _NO_VALUE_LEAD + r"(?:i|we|my|our|something|someone|somebody|nothing|nobody)\b", re.I
)
_FIRST_PERSON_FACT_RE = re.compile(
    _NO_VALUE_LEAD + r"(?:i|we|my|our)\b(?!['’](?:m|re|d)\b)(?!\s+(?:am|are)\b)", re.I
)


_REMEDY_WORDS = frozenset("replacement replaced back compensation compensated".split())
"""A remedy ("I'd like a replacement or my $65 back") presupposes the problem told before it:
such a sentence never moves in front of it."""
_FACT_STOP = frozenset("could would can will should might may must but because so".split())
"""A modal ("I could move in on ..."), a contrast ("... but I have to drop out") or a
consequence ("..., so a school nearby matters") leans on the text around it."""


_REQUEST_START_RE = re.compile(_NO_VALUE_LEAD + r"(?:please|can|could|would|will)\b", re.I)


def _open_request(text: str, end: str) -> bool:
    """A question or a request ("Please ...", "Can/Could you ...") that leans on nothing said
    before it, so it may open the message ("Could you give me a quote? We're moving ..."): no
    back-reference, no "the" except before a value ("the bill", "the form" were introduced
    before), no "one" ("refund one payment"), no other word that leans on earlier text."""
    if not (end.startswith("?") or _REQUEST_START_RE.match(text)):
        return False
    return _leans_on_nothing(text)


_VAGUE_QUESTION_RE = re.compile(
    r"\bwhat\b(?:\s+\S+){0,3}?\s+(?:do|happened|happening|wrong)(?=\s*(?:[?.!]|$|now\b|next\b))"
    r"|\bwhat(?:['’]s| is) (?:going on|happening|wrong|up)\b",
    re.I,
)
"""A question about "what happened" or "what to do" asks about the story told before it."""


_LEANING_ENDS = frozenset(
    "up out over round around back through down available free possible doable enough realistic".split()
)
"""Last words that leave their object to what was said before: a verb's particle ("come and
measure up": measure what?) or a judgement with nothing to judge ("Is anyone available?":
for what?)."""


_RELATIVE_TIME = (
    r"\b(?:that|those)\s+(?:morning|afternoon|evening|night|day|week|weekend|month|year)s?\b"
    r"|\bthe\s+(?:(?:day|night|week|weekend|morning|afternoon|evening)\s+(?:before|after)"
    r"|(?:next|following|same|previous)\s+(?:day|night|week|weekend|morning|afternoon|evening))\b"
)
"""A time relative to a day named before ("that afternoon", "the day before", "the next
morning"): read before that day, it has nothing to count from."""
_RELATIVE_TIME_RE = re.compile(_RELATIVE_TIME, re.I)
_CLOSING_MARKS = r"\s*(?:[?.!]+\s*)?$"
"""Closing marks and spaces to the end ("  ?! "): written so that a long run of spaces is
read once (spaces, marks, spaces, each optional, split a run of n spaces n² ways before the
end fails to come)."""
_STORY_QUESTION_RE = re.compile(
    r"\bas well\b"
    r"|\bactually\b"
    r"|\bwhat\s+(?:has\s+|had\s+)?happened\b"
    r"|\b(?:something|anything)(?=\s*(?:[,.!?]|$|and\b|or\b))"
    r"|" + _RELATIVE_TIME + r"|,\s*(?:(?:do|does|did|is|are|was|were|can|could|will|would|should|have|has)"
    r"(?:n['’]t)?|won['’]t|ain['’]t)\s+(?:you|i|we|it|they|he|she|there)"
    + _CLOSING_MARKS
    + r"|,\s*right"
    + _CLOSING_MARKS,
    re.I,
)
"""Wording of a question or request that presupposes the story told before it: "as well"
(as what?), "actually" ("when someone's actually coming", after a no-show), "what happened"
(to what?), a bare "something" ("suggest something and deliver": something of what?), a time
relative to a day named before ("that afternoon"), a tag question that asks agreement with
the story (", don't you?", ", right?"). "recommend something you have in stock" names it."""


def _leans_on_nothing(text: str) -> bool:
    """No back-reference, no wording that asks about earlier text (``_VAGUE_QUESTION_RE``,
    ``_STORY_QUESTION_RE``), no object left to earlier text (``_LEANING_ENDS``), no word
    that leans on it (``_CONTEXT_WORDS``) and no "the" except before a value."""
    if _PRONOUN_CONTRACTION_RE.search(text) or _BACK_REFERENCE_RE.search(text):
        return False
    if _VAGUE_QUESTION_RE.search(text):  # "What should I do?", "Can you check what happened?"
        return False
    if _STORY_QUESTION_RE.search(text):  # "Do you do lunch on board as well?"
        return False
    tokens = _TOKEN_RE.findall(text)
    if tokens and _plain(tokens[-1]) in _LEANING_ENDS:
        return False
    for k, tok in enumerate(tokens):
        low = _plain(tok)
        if low in _CONTEXT_WORDS or low in ("but", "because", "so"):
            return False
        if low == "the" and not (k + 1 < len(tokens) and tokens[k + 1].startswith("\ue000")):
            return False
    return True


_PARTICIPLES = frozenset(
    "been tried had done sent made got gotten paid called bound built cut written shown taken given "
    "sewn already just never".split()
)


def _participle(tokens: list[str], k: int) -> bool:
    """True when ``tokens[k]`` is a past participle (or "already/just/never") after "have":
    "I have tried ...", not "I have the $185 fee ready"."""
    if k >= len(tokens):
        return False
    low = _plain(tokens[k])
    return low in _PARTICIPLES or (low.endswith("ed") and len(low) > 3)


def _fact_statement(text: str, end: str, valued: bool = True) -> bool:
    """A sentence that may move in front of the sentences before it: a first-person statement
    ("I ...", "My ...", not "I'm/we're ..." -- a state explains the request) ending with a full
    stop, without a modal or "but", holding a protected value or a time word, with no word
    that leans on earlier text (a back-reference, "he's", "still", "also", "one", ...) and no
    "the" except right before a value ("the 5th" is a value; "the bill" is something said
    before). ``valued=False``: the same without the value and with "I'm/we're" allowed (a
    remark that may move behind the sentences after it)."""
    if not end.startswith("."):
        return False
    if not (_FIRST_PERSON_FACT_RE if valued else _FIRST_PERSON_RE).match(text):
        return False
    tokens = _TOKEN_RE.findall(text)
    if valued and not _valued(tokens):
        return False
    if _PRONOUN_CONTRACTION_RE.search(text) or _BACK_REFERENCE_RE.search(text):
        return False
    for k, tok in enumerate(tokens):
        low = _plain(tok)
        if low in _CONTEXT_WORDS or low in _FACT_STOP or low in _REMEDY_WORDS:
            return False
        # "I've tried two different sockets": a present perfect tells what was done about
        # the story so far; it never moves in front of it
        perfect = low.endswith(("'ve", "’ve")) or (low in ("have", "has") and _participle(tokens, k + 1))
        if valued and perfect:
            return False
        if low == "the" and not (k + 1 < len(tokens) and tokens[k + 1].startswith("\ue000")):
            return False
    return True


def _clause_order(unit: Unit, rng: random.Random) -> list[int]:
    n = len(unit.clauses)
    if n == 2 and (unit.clauses[1].bare or unit.questions):  # "If we cancel, what happens to our data?"
        return [1, 0]
    tails = list(range(1, n))
    rng.shuffle(tails)
    openers = _openers(unit)
    front = [t for t in tails if openers[t] and rng.random() < 0.3]
    chosen = set(front)
    return front + [0] + [t for t in tails if t not in chosen]


_NOT_OPENING = frozenset({"with", "without"})
"""Clause openers that add to the object before them (", with a birthday note", ", without
onions"): fronted ("With a birthday note, send ...") they read unidiomatically. A place
clause ("at/in/near/outside ...") does not open a sentence whose head opens with its subject
("I'd like a quote ..."): fronted, it would locate the writer."""


def _openers(unit: Unit) -> list[bool]:
    """Per clause: it may open its sentence (a short clause opening with a preposition, a
    time only under the rule of a time phrase). Computed once per unit, not per draw, so that
    the draws stay linear in the number of clauses."""
    if unit.openers is None:
        head = unit.clauses[0]
        head_ok: bool | None = None
        out = [False]
        for clause in unit.clauses[1:]:
            ok = (
                _first_word(clause.head) in _FRONTABLE
                and _first_word(clause.head) not in _NOT_OPENING
                and clause.head[:1].isalpha()
                and len(_TOKEN_RE.findall(" ".join(clause.parts()))) <= 5
            )
            # "At 8 Willow Drive, I'd like a quote ...": a place fronted before a subject
            # locates the writer, not the thing asked for
            if ok and not (clause.head_timed or any(clause.timed)) and _first_word(head.head) in _SUBJECTS:
                ok = _first_word(clause.head) not in _PLACE_OPENERS
            # "For four family members, book a viewing": a beneficiary or a count opens no
            # order or question; only a time does ("For Saturday, ..." under the time rule)
            if ok and _first_word(clause.head) == "for" and not (clause.head_timed or any(clause.timed)):
                ok = False
            # "Not 70, we're now expecting 85." contrasts with a short head's value; before a
            # long head ("Not 36, my daughter has since grown and now takes a size 38 boot")
            # the contrast has lost what it contrasts with
            if ok and _first_word(clause.head) == "not":
                ok = len(_TOKEN_RE.findall(head.head)) <= 5
            # a time opens the sentence only under the same rule as a time phrase
            if ok and (clause.head_timed or any(clause.timed)):
                if head_ok is None:
                    head_ok = _one_verb_head(head)
                ok = head_ok
            out.append(ok)
        unit.openers = out
    return unit.openers


def _no_attribute_openers(units: list[Unit], plain: frozenset[str]) -> None:
    """A comma clause "in/at/near <value>" without a time opens no sentence when its value
    is a plain word (``plain``: values that start in lower case): "Order two blinds, 120 by
    160 centimeters, in charcoal" -- the colour is the blinds', not a place ("In Soho, book a
    table ..." names one)."""
    for unit in units:
        openers = _openers(unit)
        for ci, clause in enumerate(unit.clauses):
            if (
                openers[ci]
                and _first_word(clause.head) in _PLACE_OPENERS
                and not (clause.head_timed or any(clause.timed))
                and _holds(clause.head, plain)
            ):
                openers[ci] = False


def order_carries_meaning(prompt: str) -> str | None:
    """The reason a prompt's order must not change, or None."""
    for label, rx in _ORDER_MARKERS:
        if rx.search(prompt):
            return f"order carries meaning ({label})"
    return None


@functools.lru_cache(maxsize=1024)
def _structure(
    masked: str,
    timeish: frozenset[str],
    codes: frozenset[str] = frozenset(),
    leaning: frozenset[str] = frozenset(),
    past: frozenset[str] = frozenset(),
    budgets: frozenset[str] = frozenset(),
) -> tuple[str, tuple[Unit, ...], str]:
    head, body, tail = _pinned(masked)
    return head, tuple(units_of(body, timeish, codes, leaning, past, budgets)), tail


def _leaning(spans: list[Span], prompt: str = "") -> frozenset[str]:
    """Sentinels of values that are words leaning on earlier text ("refund one payment":
    "one" is protected as a number; a relative time "that afternoon" protected as a slot; a
    definite ordinal, "refund the second charge", picks one of things told before)."""
    return frozenset(
        sentinel(i)
        for i, span in enumerate(spans)
        if span.text.lower() in _CONTEXT_WORDS
        or _RELATIVE_TIME_RE.search(span.text)
        or (
            span.text.lower() in ORDINALS
            and _THE_BEFORE_RE.search(prompt, max(0, span.start - 6), span.start) is not None
        )
    )


_THE_BEFORE_RE = re.compile(r"\bthe\s+$", re.I)


_CURRENCY_RE = re.compile(r"[$€£¥₹]|\b(?:dollars?|euros?|pounds?|yen|usd|eur|gbp)\b", re.I)


def _codes(spans: list[Span], timeish: frozenset[str]) -> frozenset[str]:
    """Sentinels of identifiers: a value with a digit that is no time, date or amount
    ("448190", "TK-300418", "E-20931")."""
    return frozenset(
        sentinel(i)
        for i, span in enumerate(spans)
        if re.search(r"\d", span.text) and not _CURRENCY_RE.search(span.text) and sentinel(i) not in timeish
    )


_TIME_KINDS = frozenset({"time", "date", "weekday", "month"})


def _timeish(spans: list[Span]) -> frozenset[str]:
    """Sentinels of the spans that state a time, date or weekday (a declared slot counts when
    a time, date or weekday is detected in it, or it holds a time word: "next Monday",
    "tomorrow afternoon")."""
    out = set()
    for i, span in enumerate(spans):
        kinds = {span.kind} if span.kind != "slot" else {d.kind for d in detect(span.text)}
        timed = span.kind == "slot" and any(w.lower() in _TIME_WORDS for w in words(span.text))
        if kinds & _TIME_KINDS or timed or _ORDINAL_DAY_RE.fullmatch(span.text):
            out.add(sentinel(i))
    return frozenset(out)


_ORDINAL_DAY_RE = re.compile(
    r"the\s+(?:[1-9]|[12]\d|3[01])(?:st|nd|rd|th)(?:\s+of\s+[A-Z][a-z]+)?"
    r"|(?:[1-9]|[12]\d|3[01])(?:st|nd|rd|th)\s+of\s+(?:January|February|March|April|May|June|July|"
    r"August|September|October|November|December)",
    re.I,
)
"""A day of the month named by its ordinal ("the 2nd", "the 21st of June", "1st of June")."""


def generate(ctx: TaskContext, level: float, rng: random.Random, index: int = 0) -> Variant:
    reason = order_carries_meaning(ctx.prompt)
    if reason:
        raise SkipGeneration(reason)
    timeish = _timeish(list(ctx.spans))
    spans = list(ctx.spans)
    budgets = _budgets(spans)
    head, unit_tuple, tail = _structure(
        ctx.masked, timeish, _codes(spans, timeish), _leaning(spans, ctx.prompt), _past(spans), budgets
    )
    units = list(unit_tuple)
    _no_attribute_openers(
        units, frozenset(sentinel(i) for i, sp in enumerate(spans) if sp.text[:1].islower())
    )
    body = _pinned(ctx.masked)[1]
    # a greeting decides the style: "Hi, my card ..." is not a lower-case message
    lower = (head.strip() or body)[:1].islower()
    # reviewers read "at 7 am, set the thermostat to 21 degrees" as natural: a lower-case
    # order may open with its time (kept lower case); a lower-case question may not (above)
    fronting = True
    movable = (
        any(u.free or u.earlier or u.later or u.ahead for u in units)
        or any(len(u.clauses) > 1 and u.splittable for u in units)
        or any(
            len(c.phrases) > 1 or (c.frontable and fronting) or c.pair is not None
            for u in units
            for c in u.clauses
        )
    )
    if not movable:
        raise SkipGeneration(
            "fewer than two constraint segments to reorder (one sentence without separable "
            "clauses or modifier phrases)"
        )
    layout = _layout(units)
    identity = _flat(units, _identity(units), layout)
    weights = _weights(_segments(units))
    found: dict[tuple[int, ...], tuple[float, int, Order]] = {}
    for k in range(40):
        order = _draw(units, rng, fronting, budgets)
        flat = _flat(units, order, layout)
        if order.fronted:  # the fronted phrase comes first in its unit
            flat = _front(units, order, flat)
        if flat == identity or tuple(flat) in found:
            continue
        if head.strip() and order.units[0] in order.fronted:
            continue  # "Hi, on Monday, my parcel ...", "hi at 7 am, set ...": two openers in a row
        found[tuple(flat)] = (abs(weighted_kendall(flat, weights) - level), k, order)
    ranked = sorted(found.items(), key=lambda item: item[1][:2])
    if not ranked:
        raise SkipGeneration(
            "no other order of the constraint segments keeps the request well-formed "
            "(only the head clause and clauses that cannot move)"
        )
    top = epsilon_ceiling(level)
    fitting = [r for r in ranked if r[1][0] + level <= top + 1e-9 or r[1][0] <= 0]
    if not fitting:
        smallest = min(weighted_kendall(list(r[0]), weights) for r in ranked)
        raise SkipGeneration(
            f"every other order moves too much for level {level:g} (ε {smallest:.2f} > {top:.2f}); "
            "a higher level may have one"
        )
    # and one that moves too little for the level is not offered either: a variant at level
    # 0.5 or more moves at least a fifth of the word pairs (at 0.1, one short phrase may move)
    floor = min(0.2, max(0.0, level / 2 - 0.05))
    ranked = [r for r in fitting if weighted_kendall(list(r[0]), weights) >= floor - 1e-9]
    if not ranked:
        largest = max(weighted_kendall(list(r[0]), weights) for r in fitting)
        raise SkipGeneration(
            f"every other order moves too little for level {level:g} (ε {largest:.2f} < {floor:.2f}); "
            "a lower level may have one"
        )
    if len(ranked) <= index:
        raise SkipGeneration(
            f"only {len(ranked)} other order(s) of the constraint segments found "
            f"(variant index {index} asked)"
        )

    def text_of(order: Order) -> str:
        rendered = _render(units, order, lower=lower)
        if head:
            rendered = head + (decapitalize_first(rendered) if head.rstrip()[-1:] == "," else rendered)
        return ctx.unmask(rendered + tail)

    # a value that opens a sentence keeps its case ("two chairs arrived ..."): an order that
    # would put it after a full stop in lower case is not well-formed; nor one that puts a
    # value ending in a full stop ("Station Rd.") before the sentence's own ("Rd..")
    starts = len(_LOWER_START_RE.findall(ctx.prompt))
    stops = len(_DOUBLE_STOP_RE.findall(ctx.prompt))
    kept = []
    for r in ranked:  # rendered in rank order, only until the asked one is found
        rendered = text_of(r[1][2])
        if (lower or len(_LOWER_START_RE.findall(rendered)) <= starts) and len(
            _DOUBLE_STOP_RE.findall(rendered)
        ) <= stops:
            kept.append(r)
            if len(kept) > index:
                break
    ranked = kept
    if len(ranked) <= index:
        raise SkipGeneration(
            f"only {len(ranked)} other order(s) of the constraint segments found "
            f"(variant index {index} asked)"
        )
    flat_t, (_, _, order) = ranked[index]
    text = text_of(order)
    segments = [ctx.unmask(c) for c in _segments(units)]
    return Variant(text=text, details={"order": list(flat_t), "segments": segments})


_LOWER_START_RE = re.compile(r"[.!?]\s+[a-z]")
_DOUBLE_STOP_RE = re.compile(r"(?<!\.)\.\.(?!\.)")
"""Two full stops that are not an ellipsis: a value's own stop before the sentence's."""


def segments_of(ctx: TaskContext, text: str) -> list[str]:
    """The flat constraint segments of ``text`` (unmasked), split as the generator splits."""
    spans = find_protected(text, ctx.task.slots)
    masked, values = mask(text, spans)
    _, body, _ = _pinned(masked)
    timeish = _timeish(spans)
    units = units_of(body, timeish, _codes(spans, timeish), past=_past(spans), budgets=_budgets(spans))
    return [unmask(c, values) for c in _segments(units)]


def _flatten(text: str) -> str:
    return " " + " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split()) + " "


def measure(ctx: TaskContext, text: str, details: dict[str, Any]) -> float:
    """Locate each canonical segment in ``text`` (case and punctuation ignored; repeated
    segments take successive occurrences) and measure the word-weighted Kendall distance of
    the order found. Segments that cannot be found are left out."""
    canonical = segments_of(ctx, ctx.prompt)
    flat = _flatten(text)
    covered = bytearray(len(flat))
    resume: dict[str, int] = {}  # a repeated segment's next search starts after its last hit
    located: list[tuple[int, int]] = []
    for i, seg in enumerate(canonical):
        needle = _flatten(re.sub(r"^\s*and\s+", "", seg, flags=re.I))
        if not needle.strip():
            continue
        at = flat.find(needle, resume.get(needle, 0))
        while at >= 0 and covered[at]:
            at = flat.find(needle, at + 1)
        if at < 0:
            continue
        resume[needle] = at + 1
        covered[at : at + len(needle) - 1] = b"\x01" * (len(needle) - 1)
        located.append((at, i))
    order = [i for _, i in sorted(located)]
    keep = sorted(order)
    rank = {v: k for k, v in enumerate(keep)}
    weights = _weights(canonical)
    return rounded(weighted_kendall([rank[i] for i in order], [weights[i] for i in keep]))


SPEC = ClassSpec(
    name="reorder",
    default_level=0.3,
    max_level=1.0,
    length_ratio=(0.9, 1.12),
    epsilon="share of word pairs whose order changed: normalised Kendall tau distance over the "
    "prompt's words, each carrying the index of its constraint segment (sentence, clause or "
    "modifier phrase)",
    generate=generate,
    measure=measure,
)
"""The reorder class: rules generator, ε definition and screening bounds."""
