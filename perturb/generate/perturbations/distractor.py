"""``distractor``: what real users add around a request without changing it.

A strict reader found random background ("Kettle's boiling.", "I've been reorganising my
bookshelves by colour.") unnatural wherever it landed: real users add context that has a
function in the message. So the shipped pool (``perturb/generate/data/distractors.json``) holds
only that, and what a message gets depends on its kind (:func:`message_kind`), so that the
inserted text is what that kind of user would say or type there; a kind with no fitting entry
is refused rather than given a misfit:

* ``voice`` (opens with a wake word: "Alexa, ...", "Hey Google, ..."): a spoken filler
  (``voice_filler``: "um,") and/or an aside (``voice_aside``: "before I forget,";
  ``voice_aside_question``: "quick question," when it asks something) right after the wake
  word ("before I forget," never before an urgent request: "... I'm locked out"). Nothing
  typed goes before the wake word and no written sign-off ("Thanks in advance.",
  "Happy to give more details.") after the command: reviewers rejected both.
* ``command`` (one sentence, no final punctuation: "Book me a check-up ..."): one ``spoken``
  lead-in ("Okay, before I forget,"). No background given as the reason ("The dog's finally
  settled, so book ...": a non-sequitur).
* ``question`` (one typed sentence ending in "?"): a ``greeting`` running into it ("Hi, do
  you ...?") and/or a ``question_polite`` sentence before it ("Hope you can help.", no
  "Sorry to be a pain." for a simple question), a short ``thanks`` after it; never a
  spoken filler ("Um, do you ...?" reads as speech on a typed question).
  ``opening_question``/``closing_question`` ("I couldn't find the answer on your website.")
  only with such a question that asks for information — not a "Can you ...?" request, not a
  message about the user's own order or booking.
* ``lower`` (opens in lower case): one ``lower_lead`` before it ("hi sorry to bother you,") —
  none when it already opens with a greeting, one or two words ("hey", "hi there") before a
  short command — and one ``lower_tail`` after it ("thanks in advance"), lower case like the
  message (a lead ending in "so" only before a message that opens by asking, never before a
  story: "couldnt find it on the website so we had 3 trees taken down");
  ``lower_tail_help`` ("any help appreciated thanks") not after a short command, where there
  is nothing to help with.
* ``written`` (the rest): a ``greeting`` ("Hi,", only when the first word is a function word:
  not before a bare order or a name), one ``polite`` sentence ("Sorry to bother you."; none
  before a bare order: "Sorry to bother you. Book ..." reads incongruent) and up to two
  ``opening`` sentences (how they came to write: "I'd rather sort this out by message than wait
  on hold."; none about a partner or family in a work request or a dispute, none about
  writing to the firm rather than phoning it before a bare order to a helper) before its first
  sentence — after a greeting sentence ("Hi there."), never when the first sentence opens with
  a greeting ("Hello, I was charged …") or continues a conversation ("Actually, ...", "Thanks
  for the quick reply. ...", "Following up ..."); then, only after two or more sentences that
  are not all bare orders nor a follow-up, one ``closing`` (an offer or a hedge: "Happy to give
  more details if needed."; ``closing_explained``, "I hope that makes sense.", only after three
  or more), and at most one ``thanks`` (only when it ends in punctuation; no thanks when the
  message already thanks, nothing at all after a closing thanks or sign-off). Nothing is ever
  inserted between two of the user's sentences, so nothing splits a request from its reason or
  a sentence that refers back.

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
    WAKE_WORD_RE,
    decapitalize_first,
    inserted_count,
    message_style,
    rounded,
    sentence_spans,
    words,
)
from perturb.generate.perturbations.register import opens_with_bare_order
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
_SIGN_OFF_RE = re.compile(
    r"\b(?:thank|thanks|thx|ty|ta|cheers|appreciated|regards|sincerely|best wishes)\b", re.I
)
"""A last sentence that thanks or signs off ("Thanks.", "Much appreciated.", "Kind regards."):
nothing more goes after it ("I'd appreciate a refund." is a request, not thanks)."""
_QUESTION_RE = re.compile(
    r"\?|^\s*(?:(?:hi|hey|hello)\W+)?(?:what|whats|what's|when|where|why|how|who|which|is|are|can|could|"
    r"do|does|did|will|would|should)\b|\bwhy\s*$",
    re.I,
)
BACKREF_RE = re.compile(
    r"^[\"'“(]*(?:it|it's|its|this|that|that's|these|those|they|they're|them|their|he|she|his|"
    r"her|same|such|both|so|and|but|or|then|also|which|otherwise|instead|there|actually|anyway)(?![\w'])",
    re.I,
)
"""A sentence opening that refers back to the sentence before it (or to an earlier message:
"Actually, can you move it ..."): no pool entry opens so, and nothing goes before a message
whose first sentence opens so."""
_FOLLOW_UP_RE = re.compile(
    r"^\W*(?:thanks|thank you|thx|cheers|(?:just\s+)?following up|further to|as (?:i|we) (?:said|mentioned)|"
    r"re:|one more thing|oh,? and|sorry,? (?:i )?forgot)(?![\w'])",
    re.I,
)
"""A message that continues a conversation ("Thanks for the quick reply. Can you also ...",
"Following up on ..."): nothing that opens a conversation goes before it."""

MAX_OPENING = 2
"""At most this many context sentences before the message (stacked only at high levels)."""
SHORT_LOWER = 12
"""A lower-case message of at most this many words that asks nothing reads as a command (it
may be spoken to an assistant): it gets only a lead of one or two words ("hey", "hi there")."""
MAX_SPOKEN = 1
"""One spoken lead-in before a voice command (two stacked read as "Right, Right, okay then,")."""
EXPLAINED = 3
"""Sentences a message needs before "I hope that makes sense." has something to refer to."""
MAX_QUESTION_THANKS = 4
"""A one-line question gets a short thanks ("Thanks in advance."), not a paragraph of it."""
MORE_PIECES = frozenset({"written", "question"})
"""Kinds where one more (shorter) piece may make up the same token sum half the time."""


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
    "question_polite",
    "opening",
    "opening_question",
    "closing",
    "closing_explained",
    "closing_question",
    "thanks",
    "lower_lead",
    "lower_tail",
    "lower_tail_help",
    "spoken",
    "greeting",
    "voice_filler",
    "voice_aside",
    "voice_aside_question",
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


WAKE_RE = WAKE_WORD_RE
_REQUEST_QUESTION_RE = re.compile(
    r"^\W*(?:(?:oh|and|so|also|please|hi|hello|hey)\W+)*(?:can|could|would|will)\s+"
    r"(?:you|u|someone|somebody|anyone|anybody)\b",
    re.I,
)
"""A question that asks for something to be done ("Can you move ..."), not for information."""

_OPENERS = frozenset(
    "i i'm i've i'd i'll my we we're we've we'd we'll our you your it it's its this that the a an "
    "there there's they their he she his her me us what what's when where which who why how is are "
    "was were do does did can could would will should may might have has had please just any some "
    "since after before about last yesterday today tonight not no one two three".split()
)
"""First words a greeting may run into ("Hi, my parcel ...", "Hi, do you ..."): lower-cased
after "Hi," they stay what they were; a name or a place ("Brompton", "Sarah") would not, and a
bare order ("Hi, cancel my ...") reads curt."""


def _greetings(masked: str, banned: frozenset[str]) -> tuple[tuple[str, int], ...]:
    """The greetings that may run into this message: only when its first word is a function
    word (a bare order reads curt after "Hi," and a name would be lower-cased), and none that
    ends on that word ("Hi there, there's ...")."""
    m = re.match(r"\s*([A-Za-z]+(?:['’][A-Za-z]+)?)", masked)
    word = m.group(1).lower().replace("’", "'") if m else ""
    if word not in _OPENERS:
        return ()
    head = word.split("'", 1)[0]
    return tuple((s, n) for s, n in _allowed("greeting", banned) if words(s)[-1].lower() != head)


KINDS = ("voice", "command", "question", "lower", "written")
"""The kinds of message the distractor class tells apart (see :func:`message_kind`)."""


def message_kind(masked: str) -> str:
    """What kind of message this is, for choosing what a user would add to it.

    ``voice``: opens with a wake word ("Alexa, book ...", "hey siri set ..."), whatever its case
    and punctuation; ``lower``: opens in lower case ("need a van ...", "same day delivery to
    leeds?"); ``question``: one typed sentence ending in "?" or opening like a question ("How long
    until my driver gets here"); ``command``: one other sentence with no final punctuation (said
    to an assistant or typed as a terse order); ``written``: the rest
    (punctuated requests and messages of several sentences).
    """
    if WAKE_RE.match(masked):
        return "voice"
    one = len(sentence_spans(masked)) == 1
    end = masked.rstrip()
    # the first character, not the first letter: "\ue000 came home ..." opens with a name
    if re.match(r"[\s\"'“(]*[a-z]", masked) or message_style(masked) == "lower":
        return "lower"
    if one and (end.endswith("?") or _QUESTION_RE.search(masked)):
        return "question"  # "How long until my driver gets here" is typed, not spoken
    if one and not end.endswith((".", "!", "?")):
        return "command"
    return "written"


_URGENT_RE = re.compile(
    r"\b(?:emergency|urgent|urgently|asap|immediately|right now|locked out|locked myself out|"
    r"stranded|stuck|flooding|on fire|leaking|burst)\b",
    re.I,
)
"""An urgent request ("call the emergency locksmith, I'm locked out"): no one says "before I
forget" or "while I think of it" before it. Searched in the whole prompt: the urgent word is
often inside a slot's value ("find me an emergency plumber" with the service as a slot)."""
_AFTERTHOUGHT_RE = re.compile(r"\b(?:forget|remember|think of it|next thing)\b", re.I)
"""A lead-in or aside that presents the request as an afterthought ("before I forget,")."""
_WORK_OR_DISPUTE_RE = re.compile(
    r"\b(?:charged|overcharged|refund|invoice|invoiced|dispute|complaint|complain|manager|"
    r"colleague|colleagues|staff|employee|employees|office|team|access|contract|payroll|client)\b",
    re.I,
)
"""A work request or a dispute over money: a partner's advice about how to write in does not
belong in it ("My partner suggested I message you ... Please give Sarah access to the drive")."""
_FAMILY_RE = re.compile(r"\bmy (?:partner|wife|husband|mum|mom|dad|family)\b", re.I)
"""An entry that brings in the user's family or partner."""
_CHANNEL_RE = re.compile(
    r"\b(?:message\s+you|rather\s+than\s+ring|write\s+in|on\s+hold|on\s+the\s+phone|contact\s+form|"
    r"the\s+menu|real\s+person|these\s+forms)\b",
    re.I,
)
"""An entry that says why the user writes to a business rather than phoning it or using its
website ("My partner suggested I message you rather than ring."): not before a bare order
("Get a quote for ...", "Book ..."), which instructs whoever reads it to act for the user --
an assistant, not the firm the entry addresses."""
_SO_LEAD_RE = re.compile(r"\bso$")
"""A lead that ends in "so": it gives a reason for what follows."""
_ASKING_START_RE = re.compile(
    r"\W*(?:(?:can|could|would|will)\s+(?:you|u|i|we|someone|anyone)|(?:i\s+)?(?:need|want|wanna)|"
    r"please|pls|how|what|whats|when|where|which|who|is|are|do|does)\b",
    re.I,
)
"""A lower-case message that opens by asking ("can you cancel ...", "need a van ..."): only
such a message may follow a lead that ends in "so" ("tried the app but couldnt work it out
so"); before a story ("we had 3 trees taken down ...") the "so" makes a false causal link."""


def _without(entries: tuple[tuple[str, int], ...], pattern: re.Pattern[str]) -> tuple[tuple[str, int], ...]:
    """The entries that do not match ``pattern``."""
    return tuple((s, n) for s, n in entries if not pattern.search(s))


def _orders_only(masked: str) -> bool:
    """True for a message that opens with a bare order and asks nothing ("Lock the front door
    and arm the alarm. I'm leaving now."): an offer to explain more has nothing to refer to."""
    m = re.match(r"\W*(?:please\s+)?([A-Za-z]+)", masked, re.I)
    return m is not None and m.group(1).lower() in _action_verbs() and "?" not in masked


@functools.cache
def _action_verbs() -> frozenset[str]:
    """Verbs that open a bare order ("book", "cancel"): the paraphrase class's list."""
    return frozenset(load_data("paraphrase")["action_verbs"])


def _groups(ctx: TaskContext, kind: str) -> list[_Group]:
    """The places this kind of message offers, in text order, each with the entries allowed there.

    Each kind gets only what its writer or speaker would add there (see the module docstring);
    a place with no fitting entry stays empty, and a message with none is refused.
    """
    masked = ctx.masked
    banned = _banned(ctx)
    thanked = bool(_THANKS_RE.search(ctx.prompt))
    if kind == "voice":
        # "Alexa, before I forget, how's my portfolio ...?" is odd: a question gets "quick question,"
        wake = WAKE_RE.match(masked)
        asks = bool(wake and _QUESTION_RE.search(masked[wake.end() :]))
        aside = _allowed("voice_aside_question" if asks else "voice_aside", banned)
        if _URGENT_RE.search(ctx.prompt):
            aside = _without(aside, _AFTERTHOUGHT_RE)
        return [_Group("filler", _allowed("voice_filler", banned), 1), _Group("aside", aside, 1)]
    if kind == "command":
        spoken = _allowed("spoken", banned)
        if _URGENT_RE.search(ctx.prompt):
            spoken = _without(spoken, _AFTERTHOUGHT_RE)
        return [_Group("lead", spoken, MAX_SPOKEN)]
    if kind == "lower":
        question = bool(_QUESTION_RE.search(masked))
        lead = () if _GREETING_RE.match(masked) else _allowed("lower_lead", banned)
        if not _ASKING_START_RE.match(masked):
            lead = _without(lead, _SO_LEAD_RE)
        tails = _allowed("lower_tail", banned)
        if not question and len(words(masked)) <= SHORT_LOWER:
            lead = tuple((s, n) for s, n in lead if n <= 2)
        else:
            tails += _allowed("lower_tail_help", banned)
        tail = tuple((s, n) for s, n in tails if not (thanked and _THANKS_RE.search(s)))
        return [_Group("lead", lead, 1), _Group("tail", tail, 1)]
    thanks = () if thanked else _allowed("thanks", banned)
    if kind == "question":
        greeted = any(r.match(masked) for r in (_GREETING_RE, BACKREF_RE, _FOLLOW_UP_RE))
        info = not greeted and not _REQUEST_QUESTION_RE.match(masked)
        asked = masked.rstrip().endswith("?")  # "... gets here Thanks." would need a full stop
        before = _allowed("question_polite", banned) + (_allowed("opening_question", banned) if info else ())
        after = _allowed("closing_question", banned) if info else ()
        return [
            _Group("greeting", () if greeted else _greetings(masked, banned), 1),
            _Group("polite", before if asked and not greeted else (), 1),
            _Group("closing", after if asked else (), 1),
            _Group(
                "thanks", tuple((s, n) for s, n in thanks if n <= MAX_QUESTION_THANKS) if asked else (), 1
            ),
        ]
    spans = sentence_spans(masked)
    first = masked[spans[0][0] : spans[0][1]] if spans else ""
    last = masked[spans[-1][0] : spans[-1][1]] if spans else ""
    greeted = len(spans) > 1 and bool(_GREETING_SENTENCE_RE.match(first))
    body = spans[1 if greeted else 0][0] if spans else 0
    # "Actually, can you move it ...": a follow-up to an earlier message gets nothing before it
    follow_up = bool(BACKREF_RE.match(masked[body:]) or _FOLLOW_UP_RE.match(masked[body:]))
    greeting = () if follow_up else _greetings(masked, banned)
    polite: tuple[tuple[str, int], ...] = ()
    opening: tuple[tuple[str, int], ...] = ()
    if not follow_up and (not _GREETING_RE.match(masked) or greeted):
        # "Sorry to bother you. Book a table ..." reads incongruent: no apology or pleasantry
        # before a bare order (still before a question, a problem or a "Please ..." request)
        ordered = opens_with_bare_order(masked[body:])
        polite = () if ordered else _allowed("polite", banned)
        opening = _allowed("opening", banned)
        if ordered:
            opening = _without(opening, _CHANNEL_RE)
        if _WORK_OR_DISPUTE_RE.search(masked):
            opening = _without(opening, _FAMILY_RE)
    tail_ok = masked.rstrip().endswith((".", "!", "?")) and not _SIGN_OFF_RE.search(last)
    closing: tuple[tuple[str, int], ...] = ()
    told = len(spans) - greeted  # "Hi there. Do you deliver?" is one sentence
    # "Actually, can you move it ...? Nobody's home till 2." follows up an earlier message: an
    # offer to explain more has nothing new to refer to
    if tail_ok and told > 1 and not follow_up and not _orders_only(masked[body:]):
        closing = _allowed("closing", banned)
    if tail_ok and told >= EXPLAINED and not follow_up:
        closing += _allowed("closing_explained", banned)
    return [
        _Group("greeting", greeting, 1),
        _Group("polite", polite, 1),
        _Group("opening", opening, MAX_OPENING),
        _Group("closing", closing, 1),
        _Group("thanks", thanks if tail_ok else (), 1),
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
    return [s for g in _groups(ctx, message_kind(ctx.masked)) for s in g.sentences]


def _voice(masked: str, chosen: dict[str, list[str]]) -> str:
    """``Alexa, um, before I forget, book ...``: the pieces go right after the wake word."""
    wake = WAKE_RE.match(masked)
    assert wake is not None
    pieces = chosen["filler"] + chosen["aside"]
    head = masked[: wake.end()].rstrip().rstrip(",")
    if head[:1].islower():
        pieces = [p.replace("I ", "i ") for p in pieces]
    return head + ", " + " ".join(pieces) + " " + masked[wake.end() :]


def _question(masked: str, chosen: dict[str, list[str]]) -> str:
    """``Hi, sorry to bother you. Do you ...? Thanks!``: a greeting runs into what follows."""
    out = masked.rstrip()
    after = chosen["closing"] + chosen["thanks"]
    if after:
        out += " " + " ".join(after)
    out += masked[len(masked.rstrip()) :]
    start = len(out) - len(out.lstrip())
    body = out[start:]
    if chosen["polite"]:
        body = chosen["polite"][0] + " " + body
    if chosen["greeting"]:
        body = chosen["greeting"][0] + " " + decapitalize_first(body)
    return out[:start] + body


def _command(masked: str, chosen: dict[str, list[str]]) -> str:
    """``Okay, before I forget, book ...``: a spoken lead-in, the command in lower case."""
    joined = chosen["lead"][0].rstrip(",")
    sep = " " if joined.endswith((" so", " and")) else ", "
    return joined[:1].upper() + joined[1:] + sep + decapitalize_first(masked)


def _lower(masked: str, chosen: dict[str, list[str]]) -> str:
    """``hi, need a van ... thanks``: lower case and unpunctuated like the message."""
    out = masked
    if chosen["lead"]:
        lead = chosen["lead"][0]
        out = lead + (" " if lead.endswith((" so", " but")) else ", ") + out
    if chosen["tail"]:
        out = out.rstrip() + " " + chosen["tail"][0] + masked[len(masked.rstrip()) :]
    return out


def _written(masked: str, chosen: dict[str, list[str]]) -> str:
    """Polite and context sentences before the first sentence (after a greeting sentence),
    a closing and thanks after the last."""
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
    if chosen["greeting"]:
        at = spans[0][0]
        out = out[:at] + chosen["greeting"][0] + " " + decapitalize_first(out[at:])
    return out


_ASSEMBLE = {
    "voice": _voice,
    "question": _question,
    "command": _command,
    "lower": _lower,
    "written": _written,
}
"""How the chosen pieces are put around (or, for a voice command, inside) each kind of message."""


def generate(ctx: TaskContext, level: float, rng: random.Random, index: int = 0) -> Variant:
    masked = ctx.masked
    kind = message_kind(masked)
    groups = tuple(_groups(ctx, kind))
    plans = _cached_plans(groups)
    if not plans:
        raise SkipGeneration(
            f"no distractor entry fits this {kind} message without sharing a word with the prompt "
            "or its slots; add entries to the matching list of distractors.json to cover it"
        )
    target = level * max(1, len(words(ctx.prompt)))
    tokens = min(plans, key=lambda s: (abs(s - target), s))
    ways = plans[tokens]
    # fewest pieces, or (half the time, when there is such a way) one more: "Thanks in advance,
    # I really appreciate it." or "Sorry to bother you. … Thanks in advance."
    fewest = min(sum(j for _, j in w) for w in ways)
    more = kind in MORE_PIECES and any(sum(j for _, j in w) == fewest + 1 for w in ways)
    pieces = fewest + 1 if more and rng.random() < 0.5 else fewest
    way = rng.choice([w for w in ways if sum(j for _, j in w) == pieces])
    chosen = {g.place: g.pick(t, j, rng) if j else [] for g, (t, j) in zip(groups, way, strict=True)}
    inserted = [{"place": place, "text": text} for place, texts in chosen.items() for text in texts]
    out = _ASSEMBLE[kind](masked, chosen)
    return Variant(text=ctx.unmask(out), details={"inserted": inserted, "style": kind})


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
