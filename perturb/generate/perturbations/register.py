"""``register``: the same request in another register or locale.

Three target registers, rotated over a task's variants (``register_for``):

* ``formal_british``: British spelling and vocabulary, contractions expanded, formal openers
  ("Would you be so kind as to", "I would be grateful if you could"), formal wording ("I want"
  -> "I would like", "tell me the" -> "advise me of the", "look up" -> "look into"), formal
  greetings and closings ("Dear Sir or Madam," only with formal phrasing of the request).
* ``casual_indian``: British spelling and vocabulary (as Indian English uses them), "Kindly",
  "Request you to", wording such as "let me know", "query", "timing", "at the earliest",
  "Hello sir,", "Please revert at the earliest." (contractions are left as written: expanding
  them is not what marks Indian English).
* ``terse_us``: American spelling and vocabulary, contractions, dropped subjects ("Need a
  room ..."), "pls"/"thx"/"u", "coworker", "reservation", greeting dropped, short openers.

Spelling comes from the ``breame`` package's US/UK spelling lists (about 1,700 words each),
minus words whose other spelling depends on the sense (``program``/``programme``, ...).
Vocabulary pairs (``perturb/generate/data/register.json``) each name a term that breame lists as
regional. Spelling and vocabulary for the target locale are applied wherever they fit. Then
the request itself changes: its opener, then (in a seeded order, while ε is below the level)
the register's wording, contractions and terse words. Every variant has at least one change
to the request itself (a new opener, register wording, a question asked another way, terse
words or regional vocabulary); spelling, contractions, greetings and closings may accompany
it but never stand alone. When the rotated register cannot reword the request, the other
two are tried (``details["instead_of"]`` names the register it replaced); when none can, the
task is skipped with the reason. A greeting and a closing are only added when the request's
own changes leave ε below the level. A greeting
lower-cases the word after it unless that word is "I", a name or a protected value; a value
that opens the prompt with a capital it cannot lose ("First cancel ...", "Two adults ...")
gets a greeting of its own ("Hello sir! First cancel ..."). "have" is never contracted
before "to" ("would I have to", never "would I've to"), nor at the end of a clause.

ε = share of word tokens changed, measured like paraphrase: ``1 - M / max(|A|, |B|)`` over
lower-cased word tokens outside protected values.
"""

from __future__ import annotations

import functools
import hashlib
import random
import re
from collections.abc import Callable
from typing import Any

from breame.spelling import (
    american_spelling_exists,
    british_spelling_exists,
    get_american_spelling,
    get_british_spelling,
)

from perturb.generate.perturbations._context import (
    ClassSpec,
    SkipGeneration,
    TaskContext,
    Variant,
    free_words_of,
    load_data,
    masked_change_share,
)
from perturb.generate.perturbations._phrases import Op, Rule, apply_edits, compile_rules, phrase_ops
from perturb.generate.perturbations._text import (
    OBJECT_WORDS,
    PARTICIPLE,
    capitalize_first,
    decapitalize_first,
    grave_message,
    heads_label,
    match_case,
    message_style,
    names_record,
    rounded,
    sentence_spans,
    tokens_with_sentinels,
    trailing_clause,
    word_change_share,
    words,
)
from perturb.generate.perturbations.paraphrase import (
    _CONDITION_RE,
    _COPULA_RE,
    _PROG_IN_NP_RE,
    _TAG_QUESTION_RE,
    _asks_about_service,
    _asks_on,
    _has_verbish,
    _is_question,
    _more_question_ops,
    asks_if_possible,
    question_ops,
)
from perturb.generate.slots import detect

REGISTERS = ("formal_british", "casual_indian", "terse_us")
_LOCALE = {"formal_british": "uk", "casual_indian": "uk", "terse_us": "us"}
_WORD_RE = re.compile(r"(?<![\w'\-])[A-Za-z]+(?![\w'\-])")
_GREETING_RE = re.compile(
    r"^(?:(?:hi|hello|hey|yo|dear)(?: there| team| all| sir| madam| sir or madam)?|good day)[,!.]?\s+",
    re.I,
)
_WAKE_RE = re.compile(r"(?:(?:hey|ok|okay)\s+)?(?:siri|alexa|google|cortana|bixby)\s*,\s*", re.I)
"""A voice assistant's wake word before a spoken command ("Alexa, ", "Hey Google, "): the
command after it is reworded as speech, and the wake word stays as it is."""
_CLOSING_RE = re.compile(
    r"(?<!\s)\s*(?:thanks|thank you|many thanks|thx in advance|thx|cheers|kind regards|regards|with thanks"
    r"|thanks in advance|thank you in advance|appreciate it|thanks and regards)[.!]?\s*$",
    re.I,
)
"""A closing at the message's end; a match starts where its run of spaces does (the leftmost
match always did), so a long run of spaces is read once."""
_OPENER_RE = re.compile(
    r"(?:please |could you (?:please |possibly )?|can you (?:please )?|would you (?:please )?|"
    r"kindly |pls |please kindly |can someone (?:please )?|could someone (?:please )?|"
    r"can anyone (?:please )?|could anyone (?:please )?)?",
    re.I,
)
_NOUN_OPENER_RE = re.compile(
    r"(?:i'd like|i would like|i want|i need|can i get|could i get|can i have|could i have) ", re.I
)
_THING_OPENER_RE = re.compile(r"\b(?:request|grateful for|give me)\s*$", re.I)
"""A noun opener that asks for a thing ("I would like to request ", "Please give me "): never
before an object with a past participle ("the visits put back")."""
_VISIT_PARTICLE_RE = re.compile(r"[^,.;!?]*?\s(?:out|over|round|around|in)\s*(?:[,.;!?]|$)", re.I)
"""A particle closing "get X out/over/round": a phrasal verb ("Can I get an engineer out?"),
never a thing asked for ("I would like to request an engineer out")."""
_VISIT_VERBS = frozenset({"come", "pop"})
"""Verbs of coming round that a request opener may frame only after an asking opener
("Can someone come out today?" -> "Could you possibly come out today?"; a bare "Come out
today." is never read as a request)."""
_COMPOUND_HEAD_RE = re.compile(r"\b(?:bank|public|school|national)\s+$", re.I)
"""A fixed compound whose second word is not a regional term: "bank holidays" are never
"bank vacations"."""
_D_OK = {"like", "love", "prefer", "appreciate", "be", "rather"}
_S_BAD = {"been", "got", "gone", "had"}
_S_ADVERBS = frozenset("already just never not also still recently finally now since".split())
"""Adverbs between "'s" and its verb: "he's already passed" is "has", not "is"."""


def _data() -> dict[str, Any]:
    data: dict[str, Any] = load_data("register")
    return data


def register_for(task_id: str, index: int) -> str:
    """The target register of a task's ``index``-th variant: rotated from a task-keyed start
    so a task's first three variants cover all three registers."""
    start = int(hashlib.sha256(task_id.encode("utf-8")).hexdigest()[:8], 16) % len(REGISTERS)
    return REGISTERS[(start + index) % len(REGISTERS)]


@functools.lru_cache(maxsize=1)
def _exclude() -> frozenset[str]:
    return frozenset(_data()["spelling_exclude"])


def spell(masked: str, locale: str) -> str:
    """Convert spelling outside protected values to ``uk`` or ``us`` (breame lists)."""
    exclude = _exclude()

    def one(m: re.Match[str]) -> str:
        word = m.group()
        low = word.lower()
        if low in exclude:
            return word
        if locale == "uk" and american_spelling_exists(low):
            return match_case(word, get_british_spelling(low))
        if locale == "us" and british_spelling_exists(low):
            return match_case(word, get_american_spelling(low))
        return word

    return _WORD_RE.sub(one, masked)


@functools.lru_cache(maxsize=4)
def _phrase_res(kind: str, side: int) -> list[tuple[str, str, re.Pattern[str]]]:
    """(source, target, compiled source) for the vocabulary or a phrase list."""
    out = []
    if kind == "vocabulary":
        src, dst = ("us", "uk") if side == 0 else ("uk", "us")
        # a British word with senses the American one lacks ("toilet cistern", "lift the box")
        # is never swapped for it; the American word always has the British one's sense
        pairs = [(p[src], p[dst]) for p in _data()["vocabulary"] if side == 0 or p.get("to_us", True)]
        pairs.sort(key=lambda p: -len(p[0]))
    else:
        pairs = [(a, b) if side == 0 else (b, a) for a, b in _data()[kind]]
    for a, b in pairs:
        out.append((a, b, re.compile(r"(?<![\w'-])" + re.escape(a) + r"(?![\w'-])", re.I)))
    return out


def _cased(new: str) -> Callable[[re.Match[str]], str]:
    """A ``re.sub`` replacement writing ``new`` in the matched text's case style."""

    def replace(m: re.Match[str]) -> str:
        return match_case(m.group(), new)

    return replace


_NEXT_WORD_RE = re.compile(r"\s+([a-z]+)\b")
_AFTER_NOUN = frozenset(
    "for in on at near with from to by of about into around outside inside next opposite behind over "
    "under up down off out until till during instead again soon asap please pls too as or and but "
    "so".split()
)
"""Words after a noun that end its phrase (prepositions, conjunctions; with the function words
of :data:`_NOT_IMPERATIVE`)."""


_DETERMINERS = frozenset("a an the some any no another every each his her its".split())
_PREVIOUS_WORD_RE = re.compile(r"([A-Za-z]+)\s+$")


def _whole_noun_phrase(masked: str, start: int, end: int) -> bool:
    """Whether the regional term at ``masked[start:end]`` is a noun phrase's whole head: what
    follows is a stop, a value, a capitalised word or a function word ("the elevator is", "my
    apartment for"), never another noun it modifies ("toilet cistern", "apartment building",
    "trash can"), and what comes before is a stop, a determiner or a function word, never a
    noun that modifies it ("pickup truck", "food truck"): such compounds have regional names
    of their own. Two regional terms together swap together ("vacation apartment" -> "holiday
    flat")."""
    ends = _phrase_ends()  # with the regional words: "vacation apartment" -> "holiday flat"
    nxt = _NEXT_WORD_RE.match(masked, end)
    if nxt and (nxt.group(1) == "can" or nxt.group(1) not in ends):
        return False
    prev = _PREVIOUS_WORD_RE.search(masked, max(0, start - 30), start)
    return prev is None or prev.group(1).lower() in ends or prev.group(1).lower() in _DETERMINERS


@functools.lru_cache(maxsize=1)
def _regional_words() -> frozenset[str]:
    """The one-word terms of the vocabulary pairs, either locale's ("vacation", "flat")."""
    return frozenset(t.lower() for p in _data()["vocabulary"] for t in (p["us"], p["uk"]) if " " not in t)


@functools.lru_cache(maxsize=1)
def _phrase_ends() -> frozenset[str]:
    """Words that may follow or come before a whole regional term (see :func:`_whole_noun_phrase`)."""
    return _regional_words() | _AFTER_NOUN | _NOT_IMPERATIVE


def vocabulary(masked: str, locale: str) -> str:
    """Swap regional terms (``vacation``/``holiday``, ``apartment``/``flat``, ...)."""
    done: set[str] = set()
    low = masked.lower()
    for src, dst, rx in _phrase_res("vocabulary", 0 if locale == "uk" else 1):
        if src.lower() not in low or dst.lower() in done:
            continue
        # a code's name before the code keeps its locale: "postcode NW1 6XE" is never a "zip
        # code" (the code's format is British), whatever the register
        found = [
            m
            for m in rx.finditer(masked)
            if (
                "code" not in src.lower()
                or not re.sub(r"^[\s:]*(?:is\s+)?", "", masked[m.end() : m.end() + 80]).startswith("\ue000")
            )
            and not _COMPOUND_HEAD_RE.search(masked, max(0, m.start() - 40), m.start())
            and _whole_noun_phrase(masked, m.start(), m.end())
        ]
        if found:
            for m in reversed(found):
                masked = masked[: m.start()] + match_case(m.group(), dst) + masked[m.end() :]
                # "an apartment" -> "a flat", "a restroom" -> "an ..." : the article follows the word
                art = re.search(r"\b([Aa]n?)\s+$", masked[max(0, m.start() - 5) : m.start()])
                if art:
                    want = "an" if dst[:1].lower() in "aeiou" else "a"
                    a0 = m.start() - len(art.group()) + art.start(1) - art.start()
                    masked = masked[:a0] + match_case(art.group(1), want) + masked[a0 + len(art.group(1)) :]
            done.add(dst.lower())
    return masked


_PARTICIPLES = frozenset(
    "been got gotten had done made lost seen paid sent left heard read found given taken written "
    "forgotten spoken told bought brought kept thought tried put set let".split()
)


def _contractible(full: str, nxt: str) -> bool:
    """May ``full`` ("I have") be contracted before the word ``nxt`` ("" at a clause end)?"""
    if not nxt:
        return False  # "what it is." never becomes "what it's."
    if full.lower() == "let us":
        return False  # "let us know" asks permission; "let's" suggests
    if full.lower().endswith("have"):
        # only the auxiliary: "I've booked", never "would I've to" or "I've 12,500 points"
        return nxt in _PARTICIPLES or nxt.endswith("ed")
    return True


_ASKED_AUX_RE = re.compile(r"\b(?:do|does|did|will|would|can|could|should|shall|may|might|must)\s+$", re.I)
"""An auxiliary just before the subject of a question: what follows is not contracted."""


def _contract(masked: str) -> str:
    for full, short in _data()["contractions"]:
        if full.lower() not in masked.lower():
            continue
        rx = re.compile(r"(?<![\w'])" + re.escape(full) + r"(?![\w'])(?=\s+([A-Za-z]+)|)", re.I)

        def one(m: re.Match[str], full: str = full, short: str = short) -> str:
            nxt = (m.group(1) or "").lower()
            if _ASKED_AUX_RE.search(m.string[max(0, m.start() - 12) : m.start()]):
                return m.group()  # "do I have left" is never "do I've left"
            return match_case(m.group(), short) if _contractible(full, nxt) else m.group()

        masked = rx.sub(one, masked)
    return masked


_INVERTED_RE = re.compile(r"(?:^|[.!?]\s+|\b(?:why|how|what|when|where|who|which)\s+)$", re.I)
"""What comes before an auxiliary that opens a question: the subject follows the auxiliary."""
_SUBJECT_PRONOUNS = frozenset("i you he she it we they this that there".split())
_INVERTED_REACH = 40
"""How far before an auxiliary :func:`_inverted_before` looks."""


def _inverted_before(text: str, at: int) -> bool:
    """Whether the auxiliary at ``text[at]`` opens a question (:data:`_INVERTED_RE`): only the
    words just before it are read, so a message of many contractions stays linear ("^" still
    means the message's start)."""
    return _INVERTED_RE.search(text, max(0, at - _INVERTED_REACH), at) is not None


def _expand(masked: str) -> str:
    for full, short in _data()["contractions"]:
        rx = re.compile(r"(?<![\w'])" + re.escape(short) + r"(?![\w'])(\s+([A-Za-z]+))?", re.I)

        def one(m: re.Match[str], full: str = full, short: str = short) -> str:
            nxt = (m.group(2) or "").lower()
            if short.endswith("'d") and nxt not in _D_OK:
                return m.group()
            if short.endswith("'s") and nxt in _S_ADVERBS:
                # "he's already passed X" ("has") or "he's already booked" (either): as written
                after = re.match(r"\s+[A-Za-z]+\s+([A-Za-z]+)", m.string[m.end() - len(m.group(1) or "") :])
                later = after.group(1).lower() if after else ""
                if later in _S_BAD or later in _PARTICIPLES or later.endswith("ed"):
                    return m.group()
            if short.endswith("'s") and nxt in _S_BAD:
                if short == "let's":
                    return m.group()
                # "it's been lost" is "it has been lost", never "it is been lost"
                return match_case(m.group(), full.split(" ", 1)[0] + " has") + (m.group(1) or "")
            if short.endswith("'s") and (nxt in _PARTICIPLES or (nxt.endswith("ed") and len(nxt) > 3)):
                # "It's stopped heating" is "has", "it's closed" is "is": which one is unclear
                return m.group()
            if short == "can't" and full == "can not":
                return m.group()
            if short.endswith("n't") and _inverted_before(m.string, m.start()):
                # "Why hasn't it been filled?" -> "Why has it not been filled?" (never "Why has
                # not it"); before any other subject the contraction stays ("Why hasn't my X")
                if nxt not in _SUBJECT_PRONOUNS:
                    return m.group()
                aux, neg = full.rsplit(" ", 1) if " " in full else (full[:-3], "not")
                return match_case(m.group(), aux) + (m.group(1) or "") + " " + neg
            if short.endswith("n't") and nxt in _SUBJECT_PRONOUNS:
                # a tag question ("..., don't you?") or one inside a sentence ("..., isn't it
                # odd?"): never "do not you?"; the contraction stays
                return m.group()
            return match_case(m.group(), full) + (m.group(1) or "")

        masked = rx.sub(one, masked)
    return masked


def _terse_words(masked: str) -> str:
    for full, short, rx in _phrase_res("terse_words", 0):
        if full in masked.lower():
            masked = rx.sub(_cased(short), masked)
    return masked


_NP_TO_RE = re.compile(r"[^,.;!?]*?\bto\s+(?:be|come|go|get|have|make|start|stop|work|turn)\b")
"""A noun phrase followed by "to <verb>" ("the heating to come on", "the rating to be 4.2"):
a noun opener ("Gimme", "I should be grateful for") cannot take it."""


_ABSTRACT_SUFFIX_RE = re.compile(r"(?:ment|tion|sion|ance|ence|ancy|ency|al|ing|ure|ity|sis)$")
_ABSTRACT_NOUNS = frozenset(
    "refund callback quote discount extension upgrade exchange visit review check-up checkup "
    "meeting slot place booking reservation word chat call reply answer response update look "
    "repair service lesson session estimate invoice receipt copy".split()
)
"""Service, remedy and event nouns that are not marked by a suffix."""


def _abstract_head(noun_phrase: str) -> bool:
    """Whether the head of a noun phrase ("a telehealth appointment with X", "a refund") is a
    service, remedy or event noun rather than goods ("a sympathy wreath"): the last word before
    a preposition, comma or the end."""
    head = re.split(
        r"[,.;!?]|\s(?:for|with|at|on|in|to|from|by|before|after|of|about|and|or|not)\b", noun_phrase
    )[0]
    last = re.findall(r"[A-Za-z][A-Za-z-]*", head)
    word = last[-1].lower() if last else ""
    return word in _ABSTRACT_NOUNS or (len(word) > 4 and bool(_ABSTRACT_SUFFIX_RE.search(word)))


_CAUSATIVE_RE = re.compile(
    r"(?:a|an|the|my|some|another|it|them|this|that)\b" + OBJECT_WORDS + r"{0,3}?\s+" + PARTICIPLE + r"\b",
    re.I,
)
"""An object followed by a past participle ("a new one made", "my brakes checked"): "Can I
get X made?" asks whether something can be done; as "I want X made" it asks nothing."""


_PUT_ON_RE = re.compile(
    r"[^,.;!?]*?\b(?:on|onto|in|into|across|around|over|under)\s+(?:my|our|his|her|their)\b", re.I
)
"""A noun phrase placed on or in something of the user's ("a rose on my wrist", "new tiles in
our bathroom"): work done there, which "give me" would ask to have handed over."""


def _opener(
    masked: str,
    reg: str,
    rng: random.Random,
    score: Callable[[str], float] | None = None,
    plain: bool = False,
    voice: bool = False,
) -> str:
    """Replace the opener of the first request sentence with one of the register's. A
    question opener puts its "?" on the request, and a trailing clause with its own subject
    becomes a sentence of its own ("Could you possibly cancel BK-1 please? My conference
    was called off."). ``score``: how far a result's ε is from the level; the opener is then
    drawn from the two that come nearest ("Pls" at a low level, "Would you be so kind as to"
    at a high one). ``plain``: the message was a voice command or a lower-case text, so the
    register's spoken openers are used ("Could you possibly", never "Might I ask you to").
    ``voice``: the command follows a wake word ("Alexa, book X"): its first word is its verb,
    and only openers people say aloud are used (never "Pls" or "Need you to")."""
    style = _data()[reg]
    verbs = set(load_data("paraphrase")["action_verbs"])
    plain = plain or message_style(masked) == "spoken"
    for a, b in sentence_spans(masked):
        sentence = masked[a:b]
        g = _GREETING_RE.match(sentence)
        lead = sentence[: g.end()] if g else ""
        rest = sentence[len(lead) :]
        if _COPULA_RE.match(rest):
            continue  # a statement ("Order number is X"): no request opener
        noun = _NOUN_OPENER_RE.match(rest)
        np_to = re.match(
            r"[^,.;!?]*?\bto\s+(?:be|come|go|get|have|make|start|stop|work|turn)\b",
            rest[noun.end() :] if noun else "",
        )
        if noun and np_to:
            continue  # "I want the heating to come on" is not "Gimme the heating to come on"
        asks_if = noun is not None and noun.group().lower().startswith(("can", "could"))
        if noun and asks_if and _CAUSATIVE_RE.match(rest[noun.end() :]):
            continue  # "can i get a new one made before X" asks whether it can be done, not for it
        if noun and asks_if and _VISIT_PARTICLE_RE.match(rest[noun.end() :]):
            continue  # "Can I get an engineer out?" asks for a visit: never "I require an engineer out"
        if noun and asks_if and _CONDITION_RE.search(rest[noun.end() :]):
            continue  # "can i get a discount if my son is 18" asks whether it is allowed: no "I want"
        if noun and re.match(r"(?:a|an|the|my|some|another)\b", rest[noun.end() :], re.I):
            options = list(
                style.get("spoken_noun_openers", style["noun_openers"]) if plain else style["noun_openers"]
            )
            said = noun.group().split()[-1].lower()
            # "I need a new charger" is never "Want a new charger" (nor "I want X" "Need X")
            clash = {"need": ("want", "i want"), "want": ("need",), "like": ("need",)}.get(said, ())
            options = [o for o in options if not o.lower().startswith(clash)]
            if asks_if or _CAUSATIVE_RE.match(rest[noun.end() :]):
                # "Can I get the deposit back?" asks; "Please give me the deposit back" demands,
                # and "I need the locks changed" is never "Please give me the locks changed"
                options = [o for o in options if "give me" not in o.lower()]
            if _CAUSATIVE_RE.match(rest[noun.end() :]):
                # "I'd like the visits put back on it" wants work done to an object: an opener
                # that asks for a thing takes no participle after it (never "I would like to
                # request the visits put back", "I would be grateful for a print framed")
                options = [o for o in options if not _THING_OPENER_RE.search(o)]
            if _PUT_ON_RE.match(rest[noun.end() :]):
                # "I'd like a small rose on my wrist" asks for work done, not a thing handed over:
                # never "Please give me a small rose on my wrist"
                options = [o for o in options if "give me" not in o.lower()]
            if re.search(r"\bplease\b", rest[noun.end() :], re.I):
                # "Want a replacement, please." clips the subject and keeps the courtesy: a
                # clipped opener ("Want", "Need") only before a sentence that says no "please"
                options = [o for o in options if not _drops_subject(o.split()[0])]
            if not _abstract_head(rest[noun.end() :]):
                # "I would be grateful for a sympathy wreath" asks for a gift, not an order:
                # thanks in advance fit a service or a remedy ("an appointment", "a refund")
                options = [o for o in options if "grateful for" not in o.lower()]
            if not options:
                continue  # "I would be grateful for a van" is no one's voice or text message
            body = rest[noun.end() :]
        else:
            m = _OPENER_RE.match(rest)
            prefix = m.group() if m else ""
            word = re.match(r"[A-Za-z]+", rest[len(prefix) :])
            after = rest[len(prefix) + word.end() :] if word else ""
            if word and (
                heads_label(after)
                or _names_subject(after)
                or (not prefix and names_record(word.group(), after))
            ):
                continue  # "Order number X." names a number; "Order X arrived today" tells what it did
            if not word or not (
                word.group().lower() in verbs
                or (prefix.strip() and word.group().lower() in _VISIT_VERBS)
                or _imperative(rest[len(prefix) :], verbs, voice)
            ):
                continue
            openers = style["openers"]
            if plain and "spoken_openers" in style:
                openers = style["spoken_openers"]  # "Might I ask you to set a timer" is no one's speech
            if voice:
                openers = style["voice_openers"]  # "Alexa, pls book X" is typed, never said
            options = [o for o in openers if o.lower() != prefix.lower()]
            if re.search(r"\b(?:someone|anyone)\b", prefix, re.I):
                options = [o for o in options if o]  # "Can someone check it?" is no bare "Check it."
            if prefix and not _BARE_OBJECT_RE.match(after):
                # "Can you quote for that?" as a bare "Quote for that." is no one's order: a bare
                # order keeps the opener only when an object follows its verb ("Send me the X.")
                options = [o for o in options if o]
            if re.search(r"\b(?:please|pls|kindly)\b", rest[len(prefix) :], re.I):
                options = [o for o in options if not re.search(r"please|pls|kindly", o, re.I)]
            if _is_question(prefix) and asks_if_possible(after):
                # "Can you get red wine out of silk, or is it too late?" asks whether it can be
                # done: never "Request you to get red wine out ..., or is it too late."
                options = [o for o in options if _is_question(o)]
            if word and _asks_about_service(prefix, after):
                # "Can you engrave a date on a ring?" asks what the helper can do: it stays a
                # question ("Could you possibly engrave ...?"), never "Kindly engrave ..."
                options = [o for o in options if _is_question(o)]
            if not options:
                continue
            body = rest[len(prefix) :]
        results = [r for r in (_with_opener(masked, a, b, lead, body, new, reg) for new in options) if r]
        if not results:
            continue  # which part asks is unclear; leave this sentence
        if score is None:
            return rng.choice(results)
        near = sorted(results, key=lambda r: round(score(r), 2))[:2]
        return rng.choice(near)
    return masked


_OBJECT_START_RE = re.compile(r"\s+(?:my|the|a|an|this|that|these|those|our|your|it|them|me|us|all|some)\b")
_BARE_OBJECT_RE = re.compile(
    r"\s+(?:\ue000|\d|(?:my|the|a|an|this|that|these|those|our|your|it|them|me|us|him|her|all|some|"
    r"any|one|two|both|up|out|off|in|back|down|over|round)\b)",
    re.I,
)
"""What follows a verb that can stand as a bare order: an object or a particle ("Send me the
invoice.", "Fix it.", "Turn off the lights."), never a preposition ("Quote for that.")."""
_NOT_IMPERATIVE = frozenset(
    "yesterday today tonight tomorrow also so and but then now just only even still here there sorry "
    "thanks thank hi hello hey ok okay yes no please pls kindly not never always maybe perhaps all "
    "every each both after before since because when while if once as last next this that these "
    "those what who why how where which whose is are was were am has have had did does do will would "
    "can could should may might must shall i you he she it we they my our your their".split()
)
_FINITE_RE = re.compile(
    r"\b(?:is|are|was|were|am|has|have|had|did|does|do|will|would|can|could|should|won't|can't|"
    r"isn't|wasn't|didn't|doesn't|don't|hasn't|haven't)\b|\b[a-z]+ed\b",
    re.I,
)


def _imperative(sentence: str, verbs: set[str], voice: bool = False) -> bool:
    """Whether a sentence is a bare order whose verb is not in the verb list: its first word
    is followed by an object ("Use my promo code X", "Enlarge the photo to A3") or is a known
    verb with "re-" ("Reprint order X"), and no finite verb follows (never "Yesterday my card
    was declined"). ``voice``: the sentence is a command after a wake word ("Alexa, ask X to
    ..."), so a first word that can be a verb is one unless a finite verb comes right after it
    ("Alexa, dinner is ready")."""
    m = re.match(r"([A-Za-z]+)", sentence)
    if not m or re.split(r"(?<=[.!?])\s", sentence, maxsplit=1)[0].rstrip().endswith("?"):
        return False  # a question ("Did it go through?") is no order
    word = m.group(1).lower()
    if (
        word in _NOT_IMPERATIVE
        or word.endswith(("ly", "ing", "ed"))
        or (word.endswith("s") and not word.endswith("ss"))
    ):
        return False
    if voice:
        nxt = re.match(r"\s+([A-Za-z']+)", sentence[m.end() :])
        return not (nxt and _FINITE_RE.fullmatch(nxt.group(1)))
    clause = re.split(r"[,;:.!?]", sentence[m.end() :], maxsplit=1)[0]
    if _FINITE_RE.search(clause):
        return False
    if word.startswith("re") and word[2:] in verbs:
        return True
    return bool(_OBJECT_START_RE.match(sentence[m.end() :]))


_SUBJECT_VERB_RE = re.compile(
    r"\s*(?:#\s*)?(?:\ue000[^\ue001]*\ue001|[A-Za-z]*\d[\w-]*)\s+(?:(?:never|still|just|finally|already|only|has|have|had)\s+)?"
    r"(?:[a-z]{3,}ed(?=\s+(?:(?:today|yesterday|on|at|in|last|this|to|from|with|but|and)\b|\ue000)|[.,!?]|$)|is|was|were|are|has|hasn't|hadn't|isn't|wasn't|won't|didn't|doesn't|keeps|came|went|got|"
    r"broke|showed|turned|left|never|still)\b"
)
"""A value followed by a verb of its own: the word before the value is a noun that names it
("Order FL-3098 arrived today", "Booking 5521 was cancelled"), not a verb asking for it."""


def _names_subject(after_word: str) -> bool:
    """Whether the text after a verb-looking word makes that word a noun naming the subject of
    a statement ("Order" in "Order X arrived today"): no one is asked to order anything."""
    return _SUBJECT_VERB_RE.match(after_word) is not None


def opens_with_bare_order(sentence: str) -> bool:
    """Whether ``sentence`` opens with a bare order, no "please" or question before it: a
    listed verb that does not name a record or a subject ("Book a table ...", not "Order
    X arrived today" nor "Order number X."), or another verb before an object ("Use my promo
    code X", "Enlarge the photo to A3", "Reprint order X"; see :func:`_imperative`)."""
    verbs = set(load_data("paraphrase")["action_verbs"])
    word = re.match(r"\W*([A-Za-z]+)", sentence)
    if word is None:
        return False
    after = sentence[word.end() :]
    if word.group(1).lower() in verbs:
        return not (heads_label(after) or _names_subject(after) or names_record(word.group(1), after))
    return _imperative(sentence[word.start(1) :], verbs)


def _one_command(masked: str) -> bool:
    """A short one-sentence order, with or without "please"/"can you" and a full stop ("Set an
    alarm for 6:30 tomorrow.", "Can you remind me to X?"): what a user says to a device, so no
    greeting or closing and only the register's spoken openers. A short statement may follow
    ("Lock the front door. I'm leaving now.")."""
    spans = sentence_spans(masked)
    if len(spans) == 2:
        after = masked[spans[1][0] : spans[1][1]]
        if after.endswith("?") or len(words(after)) > 8:
            return False
        masked = masked[spans[0][0] : spans[0][1]]
    unlisted = re.sub(r",(?=[^,.!?]*\b(?:and|or)\b)", "", masked)  # "milk, eggs and bread"
    if len(sentence_spans(masked)) != 1 or len(words(masked)) > 12 or "," in unlisted:
        return False  # a longer message, or one with a clause of its own ("X, the shoes are too small")
    if _GREETING_RE.match(masked):
        return False
    m = _OPENER_RE.match(masked)
    body = masked[m.end() :] if m else masked
    word = re.match(r"[A-Za-z]+", body)
    verbs = set(load_data("paraphrase")["action_verbs"])
    if word is None or _names_subject(body[word.end() :]):
        return False
    return word.group().lower() in verbs or _imperative(body, verbs)


_NP_CLAUSE_RE = re.compile(
    r", (?=(?:the|my|our|this|that|these|those|it|they) (?:[a-z]+ ){0,2}?"
    r"(?:is|are|was|were|has|have|had|isn't|aren't|wasn't|doesn't|don't|didn't|won't|can't|keeps|"
    r"stopped|broke)\b)"
)
"""A comma before a clause of its own with a named subject ("..., the shoes are too small")."""


def _with_opener(masked: str, a: int, b: int, lead: str, body: str, new: str, reg: str) -> str | None:
    """The sentence ``masked[a:b]`` (its greeting ``lead``, its ``body`` after the old opener)
    with the opener ``new``; None when the sentence cannot take it."""
    if new or lead or message_style(masked) == "lower":  # "switch my X" stays lower case
        body = body[0].lower() + body[1:]
    else:
        body = body[0].upper() + body[1:]
    if lead and reg == "terse_us":  # "Hello, need a ..." is no one's terse style: drop it
        lead = ""
        body = body[0].lower() + body[1:] if new else body[0].upper() + body[1:]
    opener = decapitalize_first(new) if lead or message_style(masked) == "lower" else new
    out = lead + opener + body
    question = new.split(" ", 1)[0].lower() in {"would", "could", "can", "might"} or new.lower().startswith(
        ("please could", "please would", "please can")
    )
    tail = trailing_clause(out)
    if tail is None:  # "Return order X, the shoes are too small.": a clause with a named subject
        np = _NP_CLAUSE_RE.search(out)
        tail = (np.start(), np.start() + 2) if np else None
    if tail and out.endswith("?"):
        return None
    if tail and question:
        out = out[: tail[0]] + "? " + out[tail[1]].upper() + out[tail[1] + 1 :]
    elif not tail and out[-1:] in ".?":
        out = out[:-1] + ("?" if question else ".")
    elif (
        not tail
        and question
        and message_style(masked) != "lower"
        and len(sentence_spans(masked)) == 1
        and out[-1:] != "!"
    ):
        out += "?"  # a one-sentence order asked as a question: "Could you possibly book me X?"
    return masked[:a] + out + masked[b:]


_MARKED_RE = re.compile(r"\bsir\b|needful|revert|thanking you", re.I)
"""Letter formulas that mark the register by themselves ("Dear sir,", "Please do the
needful."); "Hi team," or "Thanks a lot." alone only frame a message, they shift nothing."""


def _greeting(
    masked: str,
    reg: str,
    rng: random.Random,
    formal: bool,
    keeps_capital: Callable[[str], bool],
    marked: bool = False,
) -> str:
    """Add (or swap) a greeting. Formal greetings ("Dear Sir or Madam,") only come with a
    formally phrased request; the next word is lower-cased unless it must keep its capital,
    in which case the greeting stands alone ("Hello sir! First cancel ..."). ``marked``: a text
    written out as a letter, whose greeting must mark the register ("Dear sir,", never "Hi
    team,")."""
    style = _data()[reg]
    m = _GREETING_RE.match(masked)
    if reg == "terse_us":
        if not m:
            return masked
        rest = masked[m.end() :]
        return rest[:1].upper() + rest[1:]
    options = style["greetings"] + (style["formal_greetings"] if formal else [])
    if marked:
        options = [o for o in options if _MARKED_RE.search(o)] or options
    rest = masked[m.end() :] if m else masked
    first = re.match(r"[A-Za-z]+", rest)
    if not m and first and _drops_subject(first.group()):
        return masked  # "Dear sir, picked up my glasses ...": a letter never opens without "I"
    opening = {w.lower() for w in re.findall(r"[A-Za-z]+", rest)[:3]}
    # never "Hi team, our team, the Rovers, ...": the greeting's noun is not the next words'
    options = [
        o for o in options if not {w.lower() for w in re.findall(r"[A-Za-z]+", o)[1:]} & opening
    ] or options
    if keeps_capital(rest):  # a greeting of its own: "Hello sir! First cancel ..."
        options = [o for o in options if not o.startswith(("Dear", "Respected"))]
        new = rng.choice(options)
        return new.rstrip(", ") + ("." if reg == "formal_british" else "!") + " " + rest
    return rng.choice(options) + decapitalize_first(rest)


def _drops_subject(word: str) -> bool:
    """Whether a sentence that opens with ``word`` has dropped its subject ("Picked up my
    glasses yesterday.", "Need a van."): the terse style of a note, which a letter's greeting
    cannot open."""
    low = word.lower()
    return (
        low in _PAST
        or low in _DROPPED_SUBJECT
        or (low.endswith("ed") and not low.endswith("eed") and len(low) > 3)
    )


def _no_second_please(options: list[Any], masked: str, text: Callable[[Any], str] = str) -> list[Any]:
    """``options`` without those that open with "Please" when the message already says
    "please" ("... so please use X. Please let me know ... Please revert ..." reads as a
    template); all of them when none is left."""
    if not re.search(r"\bplease\b", masked, re.I):
        return options
    return [o for o in options if not text(o).lower().startswith("please")] or options


_ASKS_RE = re.compile(
    r"\?|\b(?:please|pls|kindly|could you|can you|can u|would you|need u|need you|let me know|"
    r"i need|need|want|wanna|i'd like|i would like|gotta)\b",
    re.I,
)
"""Something asked or requested, which a closing's thanks can refer to."""


def _closing(masked: str, reg: str, rng: random.Random, asks: bool = True, marked: bool = False) -> str:
    """Add (or swap) a closing; ``asks``: whether the message asks or requests anything (a
    terse thanks needs something to thank for); ``marked``: a text written out as a letter,
    whose closing must mark the register ("Please revert at the earliest.", never "Thanks a
    lot.")."""
    style = _data()[reg]
    m = _CLOSING_RE.search(masked)
    closings = style["closings"]
    if reg == "terse_us" and not asks:
        return masked  # "Nobody showed up. Took the morning off. ty!": thanks for nothing asked
    if "?" in masked or re.search(r"\b(?:let me know|tell me|confirm)\b", masked, re.I):
        # a question is answered, not done: "Please do the needful" closes a request only
        closings = [c for c in closings if "needful" not in c] or closings
    if marked:
        closings = [c for c in closings if _MARKED_RE.search(c)] or closings
    new = rng.choice(_no_second_please(closings, masked))
    body = masked[: m.start()] if m else masked
    if not body.rstrip().endswith((".", "!", "?")):
        if m is None and body.rstrip().endswith("\ue001"):
            return masked
        body = body.rstrip() + ("." if m is None else "")
    return body.rstrip() + " " + new


def _said_already(masked: str, phrase: str) -> bool:
    """Whether the message already has ``phrase``'s formula ("I would be grateful ..."): the
    same formal formula twice in one message reads as a template."""
    head = " ".join(phrase.split()[:4]).lower()
    return len(head.split()) == 4 and head in masked.lower()


def _question(masked: str, reg: str, rng: random.Random, plain: bool = False, voice: bool = False) -> str:
    """The first direct question asked the register's way ("How many X do I have?" ->
    "Could you kindly tell me how many X I have?"); ``plain``: with the register's spoken
    leads, where it has them; ``voice``: said to a voice assistant, with its
    ``voice_question_leads`` (no "kindly", no "let me know"), or not at all."""
    style = _data()[reg]
    leads = style.get("spoken_question_leads", style["question_leads"]) if plain else style["question_leads"]
    if voice:
        leads = style.get("voice_question_leads", [])
    leads = [lead for lead in leads if not _said_already(masked, lead[0])] or leads
    leads = _no_second_please(list(leads), masked, lambda lead: str(lead[0]))
    for a, b in sentence_spans(masked):
        ops = _indirect_ops(masked, a, b, rng, leads, more=voice)
        if ops:
            return apply_edits(masked, ops[0][1])
    return masked


_JOINED_DIRECT_RE = re.compile(
    r"\b(?:and|or|but)\s+(?:(?:at\s+)?(?:what|when|where|how|why|which|who)(?:\s+[a-z]+)?\s+)?"
    r"(?:do|does|did|is|are|was|were|can|could|should|shall|will|would|has|have|may|must)\s+"
    r"(?:i|you|we|they|it|he|she|that|this|there|someone|somebody|anyone|anybody|everyone|everybody)\b"
    r"|\bor\s+(?:do|does|did)\s+(?!nothing\b|not\b)[a-z]",
    re.I,
)
"""A direct question joined on after "and"/"or" ("... or should I come back in", "..., and
what time do you close", "... or did someone put too much in", "... or do guests pay extra"):
inside an indirect question it reads as a blend of the two."""


_WH_CONTRACTED_RE = re.compile(r"(?:When|Where|What|What time|How|Who|Why)(?='s )")
"""A question word with "'s" for "is" ("When's the fitter coming?"): the question rules read
"is", so the contraction is written out for them (a rewrite replaces the whole sentence)."""
_WH_IS_NP_RE = re.compile(
    r"(?P<wh>When|Where|What time|How long|How soon|Why|What) is "
    r"(?P<np>(?:the|my|our|your|his|her|their|this|that) [^?,;]*)\?$"
)
"""A wh-question with "is" and a subject that opens with a determiner ("When is the kitchen
fitter coming on Monday?")."""


_OF_PHRASE_RE = re.compile(r"\bof\b", re.I)
"""An "of" phrase before an "-ing" word ("the price of teeth whitening", "the cost of window
cleaning"): the "-ing" word is read as a compound noun's head, never as a verb."""


def _is_read(masked: str, a: int, b: int) -> tuple[str, int, int]:
    """``(text, end, at)``: ``masked`` with a question word's "'s" at ``a`` read as " is" (the
    sentence then ends at ``end``; ``at`` is where "'s" stood, -1 when there was none)."""
    m = _WH_CONTRACTED_RE.match(masked, a)
    if m is None:
        return masked, b, -1
    return masked[: m.end()] + " is" + masked[m.end() + 2 :], b + 1, m.end()


def _read_back(ops: list[Op], a: int, at: int) -> list[Op]:
    """``ops`` found on :func:`_is_read`'s text, at the original's offsets: only rewrites of the
    whole question are kept where "'s" was read as "is"."""
    if at < 0:
        return ops
    return [
        (name, [(s, e - 1, new) for s, e, new in edits])
        for name, edits in ops
        if all(s <= a and e >= at + 3 for s, e, _ in edits)
    ]


def _progressive_ops(masked: str, a: int, b: int, rng: random.Random, leads: Any) -> list[Op] | None:
    """A wh-question in the progressive ("When's the kitchen fitter coming on Monday?", "What's
    the weather doing this weekend?"): the progressive verb marks the subject's end, and "is"
    goes there ("when the kitchen fitter is coming on Monday"), however long the subject.
    ``None`` when the sentence has no such shape, or its "-ing" word may be a noun (the other
    question rules decide); ``[]`` (refused) with a verb inside the subject or a second question
    or clause after the verb, since the other rules would put "is" after the whole ("what the
    weather doing this weekend is")."""
    text, end, at = _is_read(masked, a, b)
    m = _WH_IS_NP_RE.match(text[a:end])
    split = _PROG_IN_NP_RE.search(m.group("np")) if m else None
    if m is None or split is None:
        return None
    np = m.group("np")
    after = np[split.end() :].strip().partition(" ")[2]
    if not after or len(np[: split.start()].split()) < 2 or _OF_PHRASE_RE.search(np[: split.start()]):
        # "What's the price of teeth whitening?", "When is the swimming?": an "-ing" word that
        # ends the question, follows a bare determiner or an "of" phrase may be a noun: the
        # older rules decide, as before
        return None
    if _has_verbish(np[: split.start()]) or _asks_on(np[split.start() :]):
        return []
    lead, stop = rng.choice(list(leads))
    clause = f"{m.group('wh').lower()} {np[: split.start()]} is{np[split.start() :]}"
    return _read_back([("question:indirect", [(a, end, f"{lead}{clause}{stop}")])], a, at)


def _voice_question_ops(masked: str, a: int, b: int, rng: random.Random, leads: Any) -> list[Op]:
    """Indirect questions for a question said to a voice assistant that ``question_ops``
    leaves alone: "'s" after the question word read as "is", then ``question_ops`` and
    paraphrase's further rules by grammatical shape (only their indirect rewrites: never
    "What does X cost?", which changes no register)."""
    text, end, at = _is_read(masked, a, b)
    ops = question_ops(text, a, end, rng, leads) or [
        op for op in _more_question_ops(text, a, end, rng, leads) if op[0] == "question:indirect"
    ]
    return _read_back(ops, a, at)


def _indirect_ops(
    masked: str, a: int, b: int, rng: random.Random, leads: Any, more: bool = False
) -> list[Op]:
    """``question_ops`` for the sentence ``masked[a:b]``, without the rewrites that would ask
    one question indirectly and leave a second one joined on direct ("... tell me whether that
    is normal or should I come back in"): such a sentence is left for the question frame. A
    question in the progressive is asked by :func:`_progressive_ops` alone. ``more``: a
    question said to a voice assistant, which has no frame to fall back on, also gets
    :func:`_voice_question_ops` ("Alexa, could you please tell me when my skip is being
    collected?"), the same rewrites paraphrase makes after a wake word."""
    found = _progressive_ops(masked, a, b, rng, leads)
    if found is None:
        found = question_ops(masked, a, b, rng, leads)
        if not found and more:
            found = _voice_question_ops(masked, a, b, rng, leads)
    out = []
    for name, edits in found:
        new = apply_edits(masked, edits)
        lo = min(e[0] for e in edits)
        hi = lo + len(new) - len(masked) + max(e[1] for e in edits)
        if _JOINED_DIRECT_RE.search(new[lo:hi]):
            continue
        out.append((name, edits))
    return out


_DIRECT_QUESTION_RE = re.compile(
    r"(?:how|what|what's|whats|when|when's|where|where's|who|who's|which|why|is|are|am|was|were|"
    r"can|could|do|does|did|will|would|should|has|have|any)\b",
    re.I,
)
_YES_NO_WORDS = frozenset("is are am was were can could do does did will would should has have".split())
_ASKS_SOMEONE_RE = re.compile(
    r"(?:can|could|would|will)\s+(?:you|u|someone|anyone|somebody)\b|.*\b(?:let me know|tell me)\b", re.I
)
"""A question that is itself a request ("Could you send X?", "... let me know?"): it takes the
register's opener, never a question frame."""


_FRAGMENT_RE = re.compile(
    r"(?:how (?:much|many|long|soon)|what|when|where|which|any chance)\s+(?:for|of|on|with|about)\b", re.I
)
"""A question without a verb: its question word is followed by a preposition ("how much for 3
shirts", "what about Sunday", "any chance of a refund")."""


_TRAILING_QUESTION_RE = re.compile(
    r"(?:^|\s)(?:how much|how long|how many|how soon|whats|what's|what is|is that|is it|is this|is there|"
    r"are there|can i|could i|do i|should i|do you|does it|will it)\b(?:\s+[^\s]+){0,8}\s*\??$",
    re.I,
)
"""A question that ends a lower-case run-on ("bed bugs in the spare room need treatment asap
how much", "... can i bring it back in for free")."""


def _text_question(masked: str) -> bool:
    """Whether a lower-case text message (one unpunctuated run, or a fragment ending with "?")
    asks a question: it opens with one ("is the pool open on sunday") or ends with one
    ("carpet cleaning for the lounge whats the price"), and asks no one to act ("can you book
    me in", "... pls send it") and tells nothing alone ("noah wont be in today")."""
    first = re.search(r"[A-Za-z]", masked)
    if first is None or first.group().isupper():
        return False  # "Is the gym open?" is written out already
    if message_style(masked) != "lower" and not masked.rstrip().endswith("?"):
        return False
    if re.search(r"\b(?:can|could|would|will) (?:you|u)\b|\b(?:pls|plz|please)\b", masked, re.I):
        return False
    if _DIRECT_QUESTION_RE.match(masked) or masked.rstrip().endswith("?"):
        return True
    end = _TRAILING_QUESTION_RE.search(masked)
    return end is not None and not _JOINED_RE.search(masked[: end.start()].rstrip())


_ASKS_OTHERS_RE = re.compile(r"\b(?:can|could|would|will)\s+(?:someone|somebody|anyone|anybody)\b", re.I)


def _greeted_question(body: str) -> bool:
    """Whether the lower-case text after a greeting opens with a question ("hi | can we bring a
    10 year old ...", "hi | whats the rate ...") that asks no one to act ("can someone plant
    ..." is a request): such a text takes a question frame after its greeting."""
    return (
        message_style(body) == "lower"
        and bool(_DIRECT_QUESTION_RE.match(body))
        and _text_question(body)
        and not _ASKS_OTHERS_RE.search(body)
    )


def _question_frame(masked: str, reg: str, rng: random.Random, plain: bool = False) -> str:
    """A direct question that cannot be asked indirectly, framed the register's way: after
    it in a written message ("Where is it? Kindly let me know.", "... I would be grateful if
    you could let me know."), before it when the message opens with it ("Quick q: does my
    plan include roaming in Canada?", "Please tell me, how much is a flu jab?"). Only the
    first direct question; a register without the frame leaves the text as it is."""
    style = _data()[reg]
    spans = sentence_spans(masked)
    for a, b in spans if style["question_leads"] else ():
        if _indirect_ops(masked, a, b, random.Random(0), [("Tell me ", "?")]):
            return masked  # asked indirectly by the register's question leads instead
    texting = style.get("texting_question_before", [])
    greeting = _GREETING_RE.match(masked)
    if texting and len(spans) == 1 and _text_question(masked) and not greeting:
        # a lower-case text that asks ("is the pool open on sunday after 8pm", "carpet cleaning
        # for the lounge whats the price"): framed in its own lower case, never written out
        return rng.choice(texting) + masked
    if texting and len(spans) == 1 and greeting and _greeted_question(masked[greeting.end() :]):
        # after its greeting, never before it ("hi quick q: can we bring a dog", never "quick
        # q: hi can we ..."), and only on a question that opens the text
        return masked[: greeting.end()] + rng.choice(texting) + masked[greeting.end() :]
    for i, (a, b) in enumerate(spans):
        sentence = masked[a:b]
        if not sentence.endswith("?") or not _DIRECT_QUESTION_RE.match(sentence):
            continue
        if _ASKS_SOMEONE_RE.match(sentence):
            return masked
        first = sentence.split(" ", 1)[0].lower()
        opens = i == 0 and not _GREETING_RE.match(sentence)
        before = style.get("question_before", [])
        # "Please tell me, any chance of X?" asks twice; "Quick q: any chance of X?" does not
        if style.get("question_before_needs_verb") and _FRAGMENT_RE.match(sentence):
            before = []  # "Please tell me, how much for 3 shirts?" glues a frame onto a fragment
        if before and opens and (plain or reg == "terse_us") and (first != "any" or reg == "terse_us"):
            return masked[:a] + rng.choice(before) + decapitalize_first(sentence) + masked[b:]
        after = list(style.get("question_after", []))
        joined_wh = re.search(r"\b(?:and|or)\s+(?:what|when|where|who|how|why|which)\b", sentence, re.I)
        if first in _YES_NO_WORDS and not re.search(r",? or\b", sentence) and not joined_wh:
            # never "X, or Y? Please confirm." nor "Is it X, and who do I ask? Kindly confirm."
            after += style.get("question_after_yes_no", [])
        after = _no_second_please([s for s in after if not _said_already(masked, s)] or after, masked)
        if after and not plain:
            # at the end of the message, after what the question leans on ("Why is my mailbox
            # full? I only have 2 GB. I would be grateful if you could let me know."), before
            # a closing of the user's own
            close = _CLOSING_RE.search(masked)
            end = close.start() if close and close.start() >= b else len(masked.rstrip())
            return masked[:end].rstrip() + " " + rng.choice(after) + masked[end:]
        return masked
    return masked


@functools.lru_cache(maxsize=4)
def _register_rules(reg: str) -> list[Rule]:
    return compile_rules(_data()[reg]["phrases"])


def _phrase_op(rule: Rule) -> Callable[[str, random.Random], str]:
    def op(masked: str, rng: random.Random) -> str:
        return apply_edits(masked, [e for _, edits in phrase_ops(masked, [rule], rng) for e in edits])

    return op


def _late_ops(
    reg: str, plain: bool = False, voice: bool = False
) -> list[tuple[str, Callable[[str, random.Random], str]]]:
    """Changes to the request tried after the register's own wording (in this order): a
    question frame for a direct question that cannot be asked indirectly, and in the terse
    register a value written as a label and a dropped "I". ``voice``: none of them (a
    command after a wake word is spoken: "Alexa, quick q: ..." is typed)."""
    if voice:
        return []
    ops: list[tuple[str, Callable[[str, random.Random], str]]] = [
        ("question_frame", lambda t, r: _question_frame(t, reg, r, plain))
    ]
    if reg == "terse_us":
        ops.append(("label", lambda t, r: _terse_label(t)))  # before "My X is V" loses its "My"
        ops.append(("dropped_subject", lambda t, r: _drop_subject(t)))
    return ops


def _unchanged(masked: str, rng: random.Random) -> str:
    return masked


def _body_ops(
    reg: str, plain: bool = False, voice: bool = False
) -> list[tuple[str, Callable[[str, random.Random], str]]]:
    """Changes to the request itself (besides the opener): wording, contractions, terse words.
    ``plain``: a voice command or text message, whose contractions stay as they are;
    ``voice``: a command after a wake word (its question asked with the voice leads)."""
    ops = [
        # a formal phrase ("I require") in a voice command or text message is left out (kept in
        # the list, as a no-op, so the seeded order of the other changes stays the same)
        ("phrase:" + rule[0]["from"], _unchanged if plain and rule[0].get("formal") else _phrase_op(rule))
        for rule in _register_rules(reg)
    ]
    if plain and not _data()[reg].get("plain_wording", True):
        ops = []  # "I require a taxi" is no one's text message; its question may still be asked
    if _data()[reg]["question_leads"]:
        ops.append(("question", lambda t, r: _question(t, reg, r, plain, voice)))
    if reg == "terse_us":
        ops.append(("contractions", lambda t, r: _contract(t)))
        ops.append(("terse_words", lambda t, r: _terse_words(t)))
        ops.append(("texting", lambda t, r: _texting_tail(t) if message_style(t) == "lower" else t))
    elif reg == "formal_british" and not plain:  # Indian English is not marked by expanding them
        ops.append(("expand_contractions", lambda t, r: _expand(t)))
    return ops


def _capital_keeper(ctx: TaskContext) -> Callable[[str], bool]:
    """Whether masked text opens with a protected value whose first word is capitalised only
    because it opens the sentence ("First", "Two adults", "Tomorrow"): it cannot be lower-cased
    after a greeting."""

    def keeps(rest: str) -> bool:
        m = re.match(r"\s*\ue000[^\ue001]*\ue001", rest)
        if not m:
            return False
        value = ctx.unmask(m.group().strip())
        word = re.match(r"[A-Za-z]+", value)
        if not word or not word.group()[0].isupper() or word.group().isupper():
            return False
        return any(s.start == word.start() and s.kind in ("number", "date") for s in detect(value))

    return keeps


_BARE_CONTRACTIONS = {
    "cant": "can't",
    "dont": "don't",
    "doesnt": "doesn't",
    "didnt": "didn't",
    "wont": "won't",
    "isnt": "isn't",
    "arent": "aren't",
    "wasnt": "wasn't",
    "havent": "haven't",
    "hasnt": "hasn't",
    "im": "I'm",
    "ive": "I've",
    "whats": "what's",
    "thats": "that's",
    "theres": "there's",
    "hes": "he's",
    "shes": "she's",
    "youre": "you're",
    "theyre": "they're",
    "couldnt": "couldn't",
    "wouldnt": "wouldn't",
    "shouldnt": "shouldn't",
    "wheres": "where's",
}
"""Contractions typed without the apostrophe in a text message ("cant", "whats")."""
_DROPPED_SUBJECT = {
    "need": "I need",
    "want": "I want",
    "got": "I got",
    "can't": "I can't",
    "wanna": "I want to",
    "gotta": "I have to",
    "looking": "I'm looking",
}
"""A text message's first word when it drops its subject, with the subject put back."""
_QUESTION_START = frozenset(
    "can could would will do does did is are was were what what's when where why how who which have has "
    "should any".split()
)
_CLAUSE_START_RE = re.compile(
    r"\s+(?=(?:can i|could i|can we|could we|can you|could you|do you|do we|should i|should we|"
    r"(?:can|could) (?:someone|somebody|anyone|anybody) |"
    r"is there|are there|is it|i need|i want|"
    r"i'm|i have|i've|why|"
    r"(?:what|how|where|when|which|who)(?: [a-z]+)? (?:do|does|did|can|could|should|will|would) "
    r"(?:i|we|you|they|it)\b|(?:the|my|our) (?:[a-z]+|\ue000[^\ue001]*\ue001)"
    r"(?: (?:[a-z]+|\ue000[^\ue001]*\ue001))? "
    r"(?:is|are|was|were|stopped|broke|keeps|won't|"
    r"isn't|doesn't|didn't|can't)\b|"
    r"i [a-z']+ (?:it|them|this|my|a|an|the|some)\b|"
    r"(?:he's|she's|they're|he|she|they) (?:got|been|not|is|has|was|won't|can't|isn't|doesn't|didn't)\b|"
    r"(?:pls|plz|please) (?!help\b)[a-z]+ (?:the|my|a|an|it|them|me|us|this|that|our)\b))",
    re.I,
)
"""Where a lower-case run-on starts its next sentence ("... in madrid can i appeal it", "...
my card i lost it"; not a relative clause: "the one i want to return")."""


_WH_BEFORE_RE = re.compile(r"\b(?:how|what|which|when|where|who|whose|why)(?: [a-z]+)?$", re.I)
"""A wh-word (with its noun: "how long", "what time") just before a clause start ("how long
| do you keep it for"): the clause is that question's inversion, never a sentence of its own
("... and how long. Do you keep it for?" turned a wh-question into a yes/no one)."""
_JOINED_RE = re.compile(
    r"\b(?:if|when|whenever|because|cos|cuz|so|that|since|before|after|until|unless|and|but|or|as|"
    r"once|where|whether|though|although|while)$",
    re.I,
)
"""A conjunction or subordinator just before a clause start: the clause belongs to the
sentence it is joined to."""


@functools.lru_cache(maxsize=1)
def _proper_words() -> frozenset[str]:
    """Words written with a capital in a sentence (weekdays, months, languages)."""
    return frozenset(_data()["proper_words"])


def _lower_proper_value(ctx: TaskContext, masked: str) -> bool:
    """Whether a protected value of ``masked`` holds a weekday, month or language in lower
    case ("by monday"): the value's case may not change, so the text is not written out in
    capitalised sentences around it ("Could you do it by monday?")."""
    proper = _proper_words()
    for m in re.finditer(r"\ue000[^\ue001]*\ue001", masked):
        if any(w in proper for w in re.findall(r"(?<![A-Za-z])[a-z]+", ctx.unmask(m.group()))):
            return True
    return False


_RUN_ON_CLAUSE_RE = re.compile(
    r"(?<=[a-z0-9\ue001] )(?:we're|they're|you're|i'm|i've|he's|she's|it's|we have|we've|we had|we are"
    r"|they have|they are"
    r"|were(?= (?:still|not|stuck|out|at|in|on|here|there|locked|running|waiting|going|coming|leaving|"
    r"home|away|late|told)\b)"
    r"|its(?= (?:\ue000|\d|(?:a|an|the|for|not|been|still|just|at|in|on|ok|okay|fine|too|very|so|really|now|"
    r"already|always|never|gone|going|here|there|my|our|your|only|due|broken|late|over|all)\b)))(?= )",
    re.I,
)
"""A clause of its own run on inside a sentence, with no comma or conjunction before it
("... by another half hour were still out on the lake", "... to my work its 88 Canal Street",
"... can someone come asap we're at X"): what a text message's unpunctuated run keeps when
it is written out."""
_JOINER_RE = re.compile(
    r"\b(?:and|or|but|so|because|cos|if|when|that|which|who|while|since|as|after|before|until|"
    r"then|whether|like|than)\b",
    re.I,
)
_RUN_ON_WORDS = 16
"""A sentence this long with no comma and no conjunction is a run-on of two or more."""


def run_on(text: str) -> bool:
    """Whether a sentence of ``text`` (a text message written out by :func:`full_sentences`)
    still runs two clauses together: a clause start inside it with nothing joining it on
    (:data:`_RUN_ON_CLAUSE_RE`), or :data:`_RUN_ON_WORDS` words with no comma and no
    conjunction. A letter's greeting, closing or formal question lead around such a run
    ("Kindly let me know whether I can extend X were still out on the lake.") mixes two
    registers."""
    for a, b in sentence_spans(text):
        sentence = text[a:b]
        for m in _RUN_ON_CLAUSE_RE.finditer(sentence):
            before = sentence[max(0, m.start() - 40) : m.start()].rstrip()  # bounded: linear
            if not _JOINED_RE.search(before) and not re.search(r"\b(?:we|they|you|who)$", before, re.I):
                return True  # "we were still out" has its subject; "half hour were still" not
        if (
            len(tokens_with_sentinels(sentence)) >= _RUN_ON_WORDS
            and "," not in sentence
            and not _JOINER_RE.search(sentence)
        ):
            return True
    return False


_NON_SPACE_RE = re.compile(r"\S")


def full_sentences(masked: str) -> str:
    """A lower-case, unpunctuated text message written out as full sentences: the subject
    put back ("need a van" -> "I need a van"), "i" and bare contractions fixed ("cant" ->
    "can't"), a run-on cut where a new clause asks or states ("... in madrid. Can I appeal
    it?", "... this month. Why?"), capitals and final punctuation ("?" on questions),
    weekdays, months and languages capitalised ("by friday" -> "by Friday"). Protected values
    keep their case."""
    text = re.sub(
        r"(?<![\w'])([a-z]+)(?![\w'])",
        lambda m: _BARE_CONTRACTIONS.get(m.group(1), m.group(1)),
        masked,
    )
    text = re.sub(r"(?<![\w'])i(?=$|[\s'])", "I", text)
    proper = _proper_words()
    text = re.sub(
        r"(?<![\w'])[a-z]+(?![\w'])",
        lambda m: m.group().capitalize() if m.group() in proper else m.group(),
        text,
    )
    greeting = re.match(r"(?:hi|hey|hello)(?: there)?\b,?\s*", text)
    lead = ""
    if greeting:  # "hi can i get ..." -> "Hi, can I get ..."
        lead = capitalize_first(greeting.group().rstrip(", ")) + ", "
        text = text[greeting.end() :]
    first = re.match(r"([a-z']+)\b", text)
    if first and first.group(1) in _DROPPED_SUBJECT:
        text = _DROPPED_SUBJECT[first.group(1)] + text[first.end() :]
    pieces: list[str] = []
    start = 0
    for m in _CLAUSE_START_RE.finditer(text):
        # the words just before the clause start decide (a window, so a long run stays linear)
        near = text[max(start, m.start() - 60) : m.start()]
        if _JOINED_RE.search(near):
            continue  # "... policy if i miss a lesson": the clause is joined on, not a new sentence
        if re.search(r"\b(?:you|u|and|or|to|just|on|in|at|for|with|from|of|by|about)$", near, re.I):
            continue  # "can you please send it": "please" inside the request, not a new one
        if _ASKED_AUX_RE.search(near + " "):
            continue  # "what do i need to do": the subject of a question, not a new sentence
        if _WH_BEFORE_RE.search(near):
            continue  # "... and how long do you keep it": the wh-word's own question, one sentence
        if len(near.split()) >= 3 and _NON_SPACE_RE.search(text, m.end()):
            pieces.append(text[start : m.start()])
            start = m.end()
    pieces.append(text[start:])
    out = []
    for piece in pieces:
        # a run-on cut at its comma ("it says unpaid, can you check") ends in the new stop
        # alone, never ",."
        piece = piece.strip().rstrip(",;").rstrip()
        word = re.match(r"[A-Za-z']+", piece)
        ask = bool(word and word.group().lower() in _QUESTION_START)
        if piece[-1:] not in ".!?":
            piece += "?" if ask else "."
        out.append(capitalize_first(piece))
    if lead and out:
        out[0] = lead + decapitalize_first(out[0])
    return " ".join(out)


def _command(masked: str) -> bool:
    """A lower-case one-line order ("turn the volume up to 30", "can you set a timer"): what a
    user says to a device or types as one command, not a message to write out in full."""
    body = re.sub(r"^(?:please|pls|kindly|can you|could you|can u)\s+", "", masked, flags=re.I)
    first = re.match(r"[a-z]+", body)
    verbs = load_data("paraphrase")["action_verbs"]
    return bool(first and first.group() in verbs) and len(sentence_spans(masked)) == 1


_COMPLAINT_RE = re.compile(r"\b(?:cant|can't|wont|won't|doesnt|doesn't|not|error|broken|keeps)\b")
_FAULT_RE = re.compile(r"\b(?:error|broken|keeps|stopped|crash(?:es|ed|ing)?|freez(?:es|ing)|not working)\b")


def _texting_tail(masked: str) -> str:
    """A text-message request gets "pls" at its end ("need a van for saturday pls"); a
    complaint ("cant log in ... error X") gets "pls help"; a question gets neither."""
    if re.search(r"\b(?:pls|please|plz|thx|thanks)\b", masked, re.I):
        return masked
    first = re.match(r"[a-z']+|\ue000", masked)
    if not first:
        return masked
    word = first.group()  # a protected value ("outlook keeps crashing") opens a statement
    if word in _QUESTION_START or _CLAUSE_START_RE.search(masked) or masked.rstrip().endswith("?"):
        return masked
    verbs = set(load_data("paraphrase")["action_verbs"])
    if word in verbs or word in ("need", "want", "wanna", "gotta", "looking"):
        return masked.rstrip() + " pls"
    # after a value that opens it ("outlook keeps crashing"), only a fault asks for help: "noah
    # wont be in today" tells, it asks nothing
    fault = _FAULT_RE if word == "\ue000" else _COMPLAINT_RE
    if fault.search(masked):
        return masked.rstrip() + " pls help"
    return masked


_PAST = _PARTICIPLES | frozenset("took went came gave saw wrote spoke forgot drove rang ate".split())
_DROP_I_RE = re.compile(r"(?:(?<=^)|(?<=[.!?] ))(?:I|i|We|we)('ve|'m|'re)? (?=([a-z]+)\b)")
_DROP_MY_RE = re.compile(
    r"(?:(?<=^)|(?<=[.!?] ))(?:My|my) (?=[a-z]+ (?:was|is|won't|isn't|wasn't|keeps|has|hasn't|didn't|doesn't|"
    r"stopped|broke|got|never|still)\b)"
)
"""A sentence opening with "my" and a one-word subject ("My laptop won't connect ..."): terse
drops the "my" ("Laptop won't connect ...")."""


_SENTENCE_END_RE = re.compile(r"[.!?]")


def _drop_subject(masked: str) -> str:
    """Terse: "I" dropped before a past-tense verb that opens a statement ("I ordered a blue
    jacket last week." -> "Ordered a blue jacket last week.", "I've restarted the router twice."
    -> "Restarted the router twice.") and "I'm" before an "-ing" verb ("I'm driving up on
    Saturday." -> "Driving up on Saturday."); never in a question."""

    def one(m: re.Match[str]) -> str:
        verb = m.group(2)
        stop = _SENTENCE_END_RE.search(masked, m.end())
        if stop and stop.group() == "?":
            return m.group()  # a question ("I paid twice, can I get it back?") keeps its subject
        if m.group(1) in ("'m", "'re"):  # "I'm driving up on Saturday" -> "Driving up on Saturday"
            return "" if verb.endswith("ing") and len(verb) > 4 and verb != "going" else m.group()
        if verb == "been" or not (
            verb in _PAST or (verb.endswith("ed") and not verb.endswith("eed") and len(verb) > 3)
        ):
            return m.group()
        return ""

    out = _DROP_I_RE.sub(one, masked)

    def statement(m: re.Match[str]) -> str:
        stop = _SENTENCE_END_RE.search(m.string, m.end())
        return m.group() if stop and stop.group() == "?" else ""  # "Is my X ...?" keeps it

    out = _DROP_MY_RE.sub(statement, out)
    if out == masked:
        return masked
    # the dropped subject's verb opens its sentence now: capitalised as the sentence was
    return re.sub(
        r"(^|[.!?] )([a-z])",
        lambda m: m.group(1) + m.group(2).upper() if message_style(masked) != "lower" else m.group(),
        out,
    )


_LABEL_STATEMENT_RE = re.compile(
    r"(?:(?<=^)|(?<=[.!?] ))(?:[Tt]he|[Mm]y|[Oo]ur) ((?:[A-Za-z]+ ){0,2}[A-Za-z]+) is "
    r"(\ue000[^\ue001]*\ue001)(?=[.!]?$|[.!]\s)"
)


def _terse_label(masked: str) -> str:
    """Terse: a sentence that only names a value is written as a label ("The tracking number
    is X." -> "Tracking number: X.", "My order number is X." -> "Order number: X.")."""
    return _LABEL_STATEMENT_RE.sub(lambda m: capitalize_first(m.group(1)) + ": " + m.group(2), masked)


SURFACE = frozenset(
    {"spelling", "contractions", "expand_contractions", "greeting", "closing", "full_sentences"}
)
"""Changes that may accompany a register shift but never make one alone."""


@functools.lru_cache(maxsize=4)
def _minor_phrases(reg: str) -> frozenset[str]:
    """Register phrases marked ``minor`` ("just" -> "only"): never a register shift alone."""
    return frozenset("phrase:" + p["from"] for p in _data()[reg]["phrases"] if p.get("minor"))


def generate(ctx: TaskContext, level: float, rng: random.Random, index: int = 0) -> Variant:
    """The variant in the task's rotated register; when that register cannot reword the
    request itself (only spelling, contractions, a greeting or a closing would change), the
    other registers in rotation order are tried, else the task is skipped."""
    first = register_for(ctx.task.id, index)
    # the fallback prefers the register neither of the first two variants rotates to, so a
    # task's two variants are not the same register twice
    steps = (0, 2, 1) if index % 2 == 0 else (0, 1, 2)
    order = [register_for(ctx.task.id, index + k) for k in steps]
    for reg in order:
        variant = _in_register(ctx, level, rng, reg)
        if variant is not None:
            if reg != first:
                variant.details["instead_of"] = first
            return variant
    raise SkipGeneration(
        "no register changes the request itself (only spelling, contractions, a greeting or a "
        "closing would change, which alone is not a register shift)"
    )


def _lower_value_opens_sentence(ctx: TaskContext, masked: str) -> bool:
    """Whether a sentence of ``masked`` opens with a protected value written in lower case
    ("noah won't be in today."): written out in full sentences, the message would mix a
    lower-case start with capitalised ones, and the value's case may not change."""
    for a, _ in sentence_spans(masked):
        m = re.match(r"\s*(\ue000[^\ue001]*\ue001)", masked[a:])
        if m and re.match(r"[a-z]", ctx.unmask(m.group(1))):
            return True
    return False


def _split_wake(masked: str) -> tuple[str, str]:
    """``(wake word, command)`` of a message said to a voice assistant ("Alexa, ", "Book X.");
    ``("", masked)`` for any other message. The command opens with a capital, as a sentence
    of its own would."""
    wake = _WAKE_RE.match(masked)
    if wake is None or not masked[wake.end() :].strip():
        return "", masked
    return wake.group(), capitalize_first(masked[wake.end() :])


def _rejoin_wake(wake: str, command: str, original: str) -> str:
    """The reworded ``command`` after its ``wake`` word, its first word lower-cased again when
    the ``original`` command's was ("Alexa, could you please book X?")."""
    if not wake:
        return command
    first = re.match(r"[A-Za-z]", original[len(wake) :])
    return wake + (decapitalize_first(command) if first and first.group().islower() else command)


_TEXTING_RE = re.compile(
    r"(?<![\w'/-])w/(?![\w/])"
    r"|(?<![\w'/-])(?:pls|plz|u|ur|thx|tmrw|appt|mins|cuz|no:|lol|omg|btw|idk|tbh|ty|tia)(?![\w'/-])",
    re.I,
)
"""Texting abbreviations ("w/", "pls", "u", "thx", "lol", ...): typed, never said, and never
part of a letter."""
_UNSAID_RE = re.compile(r"\bkindly\b|\blet me know\b|" + _TEXTING_RE.pattern, re.I)
"""Written idioms and abbreviations nobody says to a voice assistant ("Siri, kindly order X",
"Hey Siri, please let me know how much ...", "OK Google, book a lesson w/ Sam", "Alexa, pls
call mom"): a change after a wake word may not add one."""


def _unsaid_count(text: str) -> int:
    """How many written-only idioms (:data:`_UNSAID_RE`) ``text`` holds."""
    return len(_UNSAID_RE.findall(text))


def _in_register(ctx: TaskContext, level: float, rng: random.Random, reg: str) -> Variant | None:
    # a command after a wake word ("Alexa, book X"): the command is reworded as speech (the
    # register's spoken openers and questions, no greeting, closing or question frame) and
    # the wake word stays in front of it
    wake, source = _split_wake(ctx.masked)
    if not _data()[reg].get("tag_questions", True) and _TAG_QUESTION_RE.search(source):
        return None  # "Dear Sir or Madam, ... we should get some back, don't you? Kind regards."
    if not _data()[reg].get("grave_messages", True) and grave_message(ctx.prompt):
        # a message about a death or a funeral is never texted ("Can u arrange two limousines?
        # Thanks a bunch.", "Aunt has asked for a woodland burial"): another register instead
        return None

    def share(text: str) -> float:
        return masked_change_share(ctx, _rejoin_wake(wake, text, ctx.masked))

    style = message_style(source)
    # a short one-sentence order ("Set an alarm for 6:30 tomorrow."): said to a device, so no
    # greeting or closing and the register's spoken openers (never "Might I ask you to ...")
    command = _one_command(source) or bool(wake)
    plain = style != "written" or command  # also a text message: plain openers, no "I cannot"
    start = source
    written: list[str] = []
    # a lower-case one-liner (one sentence even when written out) takes no greeting or closing,
    # so it never becomes a letter: "noah won't be in today. Waiting for your reply." asks nothing
    one_liner = style == "lower" and len(sentence_spans(full_sentences(source))) == 1
    if style == "lower" and reg != "terse_us":
        if _command(source):
            # "turn the volume up to 30" is said to a device: no "Might I ask you to ..." and
            # no letter; a casual opener in its own lower case is the register change
            if reg == "formal_british":
                return None
        else:
            # a text message in another register: the same words written out as full
            # sentences ("need a van for saturday" -> "I need a van for saturday."), then the
            # register's own opener or question (a formal letter never starts in lower case)
            start = full_sentences(source)
            if _lower_value_opens_sentence(ctx, start) or _lower_proper_value(ctx, start):
                return None  # "noah won't be in today. He's got ..." mixes the two casings
            if run_on(start):
                # "Kindly let me know whether I can extend X were still out on the lake.": a
                # written register around a run-on that stays one; terse keeps its lower case
                return None
            written = ["full_sentences"]
            style = "written"
    locale = _LOCALE[reg]
    spelled = spell(start, locale)
    # a "$" amount is American, a "£" one British: their regional terms stay ("$1,000 ... ATM")
    other = "$" if locale == "uk" else "£"
    masked = spelled if other in ctx.prompt else vocabulary(spelled, locale)
    changes = written + (["spelling"] if spelled != start else [])
    if masked != spelled:
        changes.append("vocabulary")

    # 1. the request itself: its opener, then the register's wording while below the level
    formal = False
    new = _opener(masked, reg, rng, lambda t: abs(share(t) - level), plain, bool(wake))
    if new != masked:
        masked, formal = new, not plain
        changes.append("opener")
    current = share(masked)
    body = _body_ops(reg, plain, bool(wake))
    rng.shuffle(body)
    body += _late_ops(reg, plain, bool(wake))
    for name, op in body:
        if set(changes) - SURFACE - _minor_phrases(reg) and current >= level:
            break
        if name == "question_frame" and {"opener", "question"} & set(changes):
            # "Pls check ride X. Kindly let me know." asks twice, as does a question already
            # asked to be told ("Could you kindly let me know what X is? I would appreciate it
            # if you could let me know.")
            continue
        new = op(masked, rng)
        if wake and _unsaid_count(new) > _unsaid_count(masked):
            continue  # "Hey Siri, can you kindly book X" / "kindly let me know": written idioms
        if new != masked:
            masked = new
            changes.append(name)
            formal = formal or (name.startswith("phrase:") and not plain)
            current = share(masked)
    # a text message that only became full sentences is a register shift once it is also
    # framed as a letter ("Hello, my gas bill went up ... Why? Thanks and regards.")
    letter = (
        not one_liner
        and "full_sentences" in changes
        and not set(changes) - SURFACE - _minor_phrases(reg)
        and bool(_data()[reg].get("letters_from_texts"))
    )
    if not set(changes) - SURFACE - _minor_phrases(reg) and not letter:
        return None
    # 2. a greeting and a closing only to reach the level (or to make a letter)
    asks = bool(_ASKS_RE.search(ctx.masked)) or "opener" in changes
    frame: list[tuple[str, Callable[[str, random.Random], str]]] = [
        ("greeting", lambda t, r: _greeting(t, reg, r, formal, _capital_keeper(ctx), marked=letter)),
        ("closing", lambda t, r: _closing(t, reg, r, asks, marked=letter)),
    ]
    rng.shuffle(frame)
    if style != "written" or command or one_liner or (plain and not _data()[reg].get("letters_from_texts")):
        frame = []  # no "Dear team," before a voice command or a text message written out
    framed = re.match("|".join(re.escape(q) for q in _data()[reg].get("question_before", [])) or "$^", masked)
    for name, op in frame:
        if current >= level and not (letter and not {"greeting", "closing"} & set(changes)):
            break
        if name == "greeting" and framed:
            continue  # "Hi team, please tell me, how much ...?" stacks two openings
        new = op(masked, rng)
        if new != masked:
            masked = new
            changes.append(name)
            current = share(masked)
    if letter and not {"greeting", "closing"} & set(changes):
        return None
    if "full_sentences" in changes and _TEXTING_RE.search(masked):
        return None  # "Respected sir, ... my knee is sore lol ...": a texting word left in a letter
    if "full_sentences" not in changes and re.search(r"(?<![\w'])i(?=$|[\s'])", ctx.masked):
        # a message that writes "i" keeps it lower case in what was added ("i guess i lost it")
        masked = re.sub(r"(?<![\w'])I(?=$|[\s'])", "i", masked)
    masked = _rejoin_wake(wake, masked, ctx.masked)
    return Variant(text=ctx.unmask(masked), details={"register": reg, "changes": changes})


def measure(ctx: TaskContext, text: str, details: dict[str, Any]) -> float:
    return rounded(word_change_share(ctx.free_words, free_words_of(ctx, text)))


REGISTER_DESCRIPTIONS = {
    "formal_british": "formal British English (British spelling such as colour/cheque, "
    "formal politeness such as 'Would you be so kind as to', no contractions)",
    "casual_indian": "casual Indian English (British spelling, 'Kindly', 'Hello sir', "
    "'Please do the needful', friendly and direct)",
    "terse_us": "casual, terse US English (American spelling, contractions, 'pls', 'thx', no greeting)",
}
"""What the LLM template's ``$register_description`` says of each register."""


def _llm_request(ctx: TaskContext, index: int) -> tuple[dict[str, str], dict[str, Any]]:
    """The register this variant is asked for, fixed before asking (as the rules do)."""
    reg = register_for(ctx.task.id, index)
    return {"register": reg, "register_description": REGISTER_DESCRIPTIONS[reg]}, {"register": reg}


SPEC = ClassSpec(
    name="register",
    default_level=0.2,
    max_level=1.0,
    length_ratio=(0.6, 1.9),
    epsilon="share of non-protected word tokens changed: 1 - matched / max(original, new) "
    "under difflib word alignment",
    generate=generate,
    measure=measure,
    llm_request=_llm_request,
)
"""The register class: rules generator, ε definition and screening bounds."""
