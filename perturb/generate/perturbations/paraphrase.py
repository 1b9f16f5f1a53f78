"""``paraphrase``: the same request in other words.

Rules (offline, seeded), all applied to the masked prompt so protected values are untouched:

* request framing: swap the opener of a request sentence ("I need to", "Could you",
  "Please", a bare imperative, "I'd like a", "Can I get a", ...) for another of its group.
  A question framing puts its ``?`` on the main request: when a clause with its own subject
  follows ("..., my conference was called off."), that clause becomes its own sentence
  ("Could you cancel booking BK-48213 please? My conference was called off.");
* questions asked another way: "What's the X?" -> "Could you tell me the X?", "How many X
  do I have?" -> "Could you tell me how many X I have?";
* word choice: curated swaps with context conditions (``booking``/``reservation``,
  ``under £300``/``below £300``, ``up to £90``/``no more than £90`` only after a verb of
  paying or "of", ``got cancelled``/``was cancelled``, ...; ``perturb/generate/data/paraphrase.json``);
* sentence structure: move ``please`` between the front and the end of the main request
  (never onto a trailing reason: "Send X to Y, please. I need it for my claim."), split
  "X and I'll Y" into two sentences (only where a subject starts the second clause), or
  join two imperative sentences with ``and``.

Expanding or making a contraction ("What's"/"What is"), swapping a greeting or thanks, and
moving "please" are *minor*: every variant has at least one other (lexical or structural)
change, or the task is skipped with the reason. Edits are then added in a seeded order while
they bring ε closer to the requested level.

ε = share of non-protected word tokens changed: ``1 - M / max(|A|, |B|)`` where ``A`` and
``B`` are the lower-cased word tokens outside protected values of the canonical prompt and of
the variant, and ``M`` the tokens difflib aligns between them.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Sequence
from typing import Any

from perturb.generate.perturbations._context import (
    ClassSpec,
    SkipGeneration,
    TaskContext,
    Variant,
    edit_stats,
    edits_change_share,
    epsilon_ceiling,
    free_words_of,
    load_data,
    stats_share,
)
from perturb.generate.perturbations._phrases import (
    Claimed,
    Edit,
    Op,
    Rule,
    apply_edits,
    compile_rules,
    overlaps,
    phrase_ops,
)
from perturb.generate.perturbations._text import (
    NOT_VERB_FORMS,
    heads_label,
    message_style,
    names_record,
    rounded,
    sentence_spans,
    trailing_clause,
    word_change_share,
)

MINOR = frozenset(
    {
        "word:what's",
        "word:what is",
        "word:hi",
        "word:hello",
        "word:thanks",
        "word:thank you",
        "please_to_end",
        "please_to_front",
    }
)
"""Rules that alone make a near-identical variant; never the only change (with the phrase
entries marked ``"minor": true`` in ``paraphrase.json``: function-word swaps such as
``onto``/``on`` or ``so``/``so that``; see :func:`minor_rules`)."""

_GREETING_RE = re.compile(
    r"(?:(?:(?:hey|ok|okay)\s+)?(?:alexa|siri|google|cortana|bixby),\s+|(?:hi|hello|hey)(?: there)?,?\s+)?",
    re.I,
)
"""A greeting or a voice assistant's wake word ("Alexa, ", "Hey Google, ") before a request:
the framing is looked for after it, and the wake word stays where it is ("Alexa, book X" ->
"Alexa, can you book X?")."""


def _data() -> dict[str, Any]:
    data: dict[str, Any] = load_data("paraphrase")
    return data


@functools.lru_cache(maxsize=1)
def minor_rules() -> frozenset[str]:
    """:data:`MINOR` plus the phrase swaps marked minor in the data (function words)."""
    return MINOR | {"word:" + p["from"] for p in _data()["phrases"] if p.get("minor")}


def _framing_groups() -> list[tuple[str, list[str]]]:
    d = _data()
    return [
        ("agent", d["agent_framings"]),
        ("self", d["self_framings"]),
        ("noun", d["noun_framings"]),
    ]


def _is_question(prefix: str) -> bool:
    words = prefix.lower().split()
    if words[:1] == ["please"]:  # "Please could you X?" asks too
        words = words[1:]
    return words[:1] in (["could"], ["can"], ["would"], ["will"])


def _framing_ops(masked: str, start: int, end: int, rng: random.Random) -> list[Op]:
    d = _data()
    sentence = masked[start:end]
    greet = _GREETING_RE.match(sentence)
    g_end = greet.end() if greet else 0
    body = sentence[g_end:]
    low = body.lower()
    if _lower_style(masked):
        dropped = _dropped_subject_ops(masked, start + g_end, body, rng)
        if dropped is not None:
            return dropped
    found: tuple[str, str] | None = None
    for group, prefixes in _framing_groups():
        for prefix in prefixes:
            if prefix and low.startswith(prefix.lower()):
                if found is None or len(prefix) > len(found[1]):
                    found = (group, prefix)
    rest = body[len(found[1]) :] if found else body
    if _COPULA_RE.match(rest):
        return []  # a statement ("Order number is X"), not an order: no request framing
    m = re.match(r"([A-Za-z']+)", rest)
    if not m:
        return []
    nxt = m.group(1).lower()
    if (
        heads_label(rest[m.end() :])
        or _LABEL_SUBJECT_RE.match(rest[m.end() :])
        or names_record(nxt, rest[m.end() :])
    ):
        return []  # "Order number X." names a number; it asks no one to order
    if found is None:
        if not _order_verb(nxt):
            return []
        found = ("agent", "")
    group, prefix = found
    if group == "noun":
        if nxt not in d["noun_starts"] or _PURPOSE_RE.match(rest):
            return []  # "I need some cash to feel safe" states a need; "Could I have ..." asks
        choices = [p for p in d["noun_framings"] if p.lower() != prefix.lower()]
        if _is_question(prefix) and _CONDITION_RE.search(rest):
            # "can i get a discount if my son is over 18" asks whether the user may have it:
            # never "i want a discount if ..."
            choices = [p for p in choices if _is_question(p)]
    else:
        if nxt in d["not_verbs"]:
            return []
        same = d["agent_framings"] if group == "agent" else d["self_framings"]
        choices = [p for p in same if p.lower() != prefix.lower()]
        after_verb = re.match(r"[A-Za-z']+\s+([A-Za-z']+)", rest)
        object_me = bool(after_verb and after_verb.group(1).lower() in ("me", "us"))
        # "Book me a flight" -> "I need to book me a flight" is wrong: the user is the object
        # "Could you email X" -> "I'd like to email X" changes who acts: only verbs whose
        # doer does not matter ("I need to cancel" = "Could you cancel") cross over
        # "Cancel order X and refund the £640": "I want to cancel ... and refund" makes the
        # user refund; an order whose joined verb is the helper's own keeps a helper framing
        joined = re.findall(r"\band\s+([a-z]+)\b", rest)
        helper_joined = any(v in d["action_verbs"] and v not in d["self_verbs"] for v in joined)
        # "I'd like to order 3 prints" is the user buying from the helper: never "Can you
        # order 3 prints?" (the helper would buy them elsewhere)
        buys = group == "self" and nxt in _USER_BUYS
        # "Could you remove it?" (the fine) is the helper's act: never "I'd like to remove it";
        # "I'd like to move to a smaller unit" is the user's own move: a helper framing needs
        # an object after the verb ("I'd like to book a table" -> "Could you book a table?")
        after_nxt = rest[m.end() :]
        held = group == "agent" and _is_question(prefix) and _BACK_PRONOUN_RE.match(after_nxt) is not None
        intransitive = group == "self" and _OBJECT_START_RE.match(after_nxt) is None
        if (
            nxt in d["self_verbs"]
            and not (group == "agent" and object_me)
            and not helper_joined
            and not buys
            and not held
            and not intransitive
        ):
            other = d["self_framings"] if group == "agent" else d["agent_framings"]
            choices += [p for p in other if p.lower() != prefix.lower()]
        if group == "self" and nxt in d["action_verbs"] and not object_me:
            # "I need to file a claim" -> "Could you help me file a claim?": the user still acts
            choices += d["help_framings"]
    if nxt in _USER_DOES:
        # "Return order X" asks for a return the user makes: "I'd like to return", "Can you
        # return" (process it), never "I need you to return order X"
        choices = [p for p in choices if not p.lower().endswith(" you to ")]
    if "please" in rest.lower():  # no "Please ... please"
        choices = [p for p in choices if "please" not in p.lower()]
    if _one_line_order(masked) or _WAKE_RE.match(sentence):
        # "I want you to set a timer" is no one's speech, nor a one-line text message
        choices = [p for p in choices if not p.lower().endswith(" you to ")]
    if _WAKE_RE.match(sentence):
        # spoken to a device: "Alexa, can you ...", never "Alexa, please could you ..."
        choices = [p for p in choices if p.lower() not in _NOT_SPOKEN]
    tail = trailing_clause(body)  # after the greeting: "Hello, I'd like ..." is one clause
    if _CONTRAST_RE.search(body):
        # "I'd like to cancel, not pause, my subscription.": the comma after the contrast is
        # no clause break ("Can you help me cancel, not pause? My subscription." is refused)
        tail = None
        choices = [p for p in choices if not _is_question(p)]
    if tail:
        tail = (tail[0] + g_end, tail[1] + g_end)
    if tail and sentence.endswith("?"):
        return []  # "Could you X, I need it?": which part asks is unclear; leave it
    if not tail and _COMMA_CLAUSE_RE.search(body):
        # "Return order X, the shoes are too small.": the part after the comma may be a clause
        # of its own, and a "?" at the end would ask it; only framings that keep the "." stay
        choices = [p for p in choices if not _is_question(p)]
    if _is_question(prefix):  # "?" or not: "hi can you check …" asks as much as "Can you check …?"
        if not _asks_for_action(nxt, rest[m.end() :]) or _asks_about_service(prefix, rest[m.end() :]):
            # "Can you cater for coeliacs?" asks what the helper can do: never "Cater for coeliacs.";
            # nor "Can you engrave a date on a ring by Friday?" "Please engrave ..."
            choices = [p for p in choices if _is_question(p)]
        # a polite question never becomes a bare or a demanding order ("Can you push it to
        # Friday?" is never "Push it to Friday." nor "I want you to push it to Friday.")
        choices = [p for p in choices if p.lower() not in _BLUNT]
        if asks_if_possible(rest):
            # "Can you fix it today or do I need to call someone else?": a second question
            # joined on keeps the first a question ("Please fix it today or do I need to …" is
            # no sentence)
            choices = [p for p in choices if _is_question(p)]
    if not choices:
        return []
    picks = [rng.choice(choices)]
    moody = [p for p in choices if _mood(prefix, group) != _mood(p, "noun" if group == "noun" else "")]
    if moody and picks[0] not in moody:
        # a plain framing swap is trivial alone: also offer one that changes the mood
        picks.append(rng.choice(moody))
    return [_framing_op(masked, start, end, g_end, prefix, group, rest, tail, p) for p in picks]


_CONTRAST_RE = re.compile(r",\s+not\s+[a-z]+\s*,", re.I)
"""A contrast set off by commas inside a request ("cancel, not pause, my subscription")."""

_CONDITION_RE = re.compile(r"\b(?:if|unless|as long as|provided)\b", re.I)
"""A condition in a question: "Can I get X if ...?" asks whether X is allowed, not for X."""

_BACK_PRONOUN_RE = re.compile(r"\s+(?:it|them|that|this)\b(?!\s+(?:is|are|was|were)\b)", re.I)
"""A bare pronoun object: the thing is already named, and in the helper's hands ("Could you
remove it?" for a fine): the helper's act, never "I would like to remove it"."""


_LABEL_SUBJECT_RE = re.compile(
    r"\s+\ue000[^\ue001]*\ue001\s+(?:[a-z]{3,}ed|is|was|has|have|had|hasn['’]t|isn['’]t|wasn['’]t|came|went|got|"
    r"never|still|just|finally|only|arrives|shows|says|turned|broke)\b"
)
"""A code after a verb-looking word, then a verb: the word names the code that the sentence is
about ("Order FL-3098 arrived today"); it asks no one to order."""


_OBJECT_START_RE = re.compile(
    r"\s+(?:(?:me|us)\s+(?:(?:the|a|an|my|our|your|these|those|it|them|one|two|three)(?![\w'’])|\ue000)"
    r"|(?:the|a|an|another|my|our|your|this|that|these|those|it|them|one|two|three)(?![\w'’])|\ue000)",
    re.I,
)
"""What opens the object of a request: a determiner, a pronoun or a value, after "me"/"us"
too ("send me the form"); "me this afternoon" is a time, not an object ("Can you see me this
afternoon?" asks for an appointment, never "Please see me this afternoon."). A whole word:
"and" is no "a" ("Can you wash and iron ten shirts by tomorrow?" asks whether it can be done)."""


_GENERIC_OBJECT_RE = re.compile(
    r"(?:\s+and\s+[a-z]+)?\s+(?:(?:a|an|one|some|any|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|twenty|fifty|a hundred|\d+)\b"
    r"|\ue000[^\ue001]*\ue001\s+(?!(?:is|was|has|does|its|his|this|us|yes)\b)[a-z]+s\b)",
    re.I,
)
"""An indefinite object, a count written out ("four suits") included, after the verb or after
a second verb joined on ("Can you clean and press four suits by Friday?"). A masked value counts
only before a plural noun ("10 shirts"): it may be a name ("tell Jo ...") or a pronoun ("one of
them")."""
_USERS_THING_RE = re.compile(r"\b(?:me|my|mine|us|our|ours)(?![\w'’])", re.I)


def _asks_about_service(prefix: str, after: str) -> bool:
    """Whether "Can you VERB a/an X ...?" asks what the helper can do, not for a job on
    something of the user's: "Can you" (not "Could"/"Would") before an indefinite or counted
    object ("a date", "four suits"), a second verb joined on or not, with
    nothing of the user's ("me", "my", "us", "our") in the question ("Can you engrave a date
    on the back of a wedding band by Friday?", "Can you print a photo on a mug?") asks about a
    service, and stays a question (never "Please engrave ..."); "Can you send me a copy?"
    asks for one."""
    # only the question's own clause: in a run-on ("can you frame a football shirt its my
    # dads signed one") the "my" of the next clause does not make the object the user's
    own = _NEXT_CLAUSE_RE.split(after, maxsplit=1)[0]
    return (
        prefix.lower().strip().startswith("can you")
        and _GENERIC_OBJECT_RE.match(after) is not None
        and _USERS_THING_RE.search(own) is None
    )


_NEXT_CLAUSE_RE = re.compile(r"[,.;:!?]|\b(?:its|it['’]s|whats|what['’]s|i|we|and|but|so)\b", re.I)
"""Where a question's own clause ends: punctuation, or in a run-on the subject of the next
clause ("... a football shirt its my dads ...")."""


def _asks_for_action(verb: str, after: str) -> bool:
    """A "Can you X?" question asks the helper to do X (it may be put as an order) when X acts
    on a definite thing or a value ("Can you cancel my booking?", "Could you chase it?",
    "Could you send me the invoice?"); "Can you cater for coeliacs?" or "Can you deliver to
    Ringwood?" ask what the helper can do, and stay questions."""
    return verb not in _VERBISH and _OBJECT_START_RE.match(after) is not None


_BLUNT = frozenset({"", "i need you to ", "i want you to "})
"""Order framings too blunt to stand for a question asked politely."""


_WAKE_RE = re.compile(r"(?:(?:hey|ok|okay)\s+)?(?:alexa|siri|google|cortana|bixby),", re.I)
"""A voice assistant's wake word opening a sentence."""

_NOT_SPOKEN = frozenset(
    {"please could you ", "would you ", "would you please ", "could you please ", "i would like to "}
)
"""Framings nobody says to a voice assistant (too formal, or not a request to a device)."""


_USER_DOES = frozenset("return exchange collect bring drop pick attend".split())
"""Verbs whose doer is the user even in an order to the helper ("Return order X"): never
framed as the helper's own act ("I need you to return order X")."""


_USER_BUYS = frozenset("order buy purchase".split())
"""Verbs of buying: "I'd like to order X" buys from the helper, "Could you order X" asks the
helper to buy it elsewhere; the user's own framing is never turned into the helper's."""


_MORE_ORDER_VERBS = frozenset("enlarge downgrade escalate shorten ask".split())


def _order_verb(word: str) -> bool:
    """``word`` opens a bare order: a known action verb, one of a few more, or a known verb
    with "re"/"un" before it ("reprint", "redeliver", "unfreeze")."""
    verbs = _data()["action_verbs"]
    if word in verbs or word in _MORE_ORDER_VERBS:
        return True
    return word[:2] in ("re", "un") and word[2:] in verbs and word[2:] not in ("do", "set", "pay")


def _framing_op(
    masked: str,
    start: int,
    end: int,
    g_end: int,
    prefix: str,
    group: str,
    rest: str,
    tail: tuple[int, int] | None,
    new_prefix: str,
) -> Op:
    """The edits that put ``new_prefix`` in place of the sentence's framing ``prefix``."""
    sentence = masked[start:end]
    at_start = g_end == 0
    new_text = new_prefix
    lower_style = _lower_style(masked)
    if lower_style and new_text[:1].isupper() and not re.match(r"I\b", new_text):
        new_text = new_text[0].lower() + new_text[1:]
    if lower_style and _writes_lower_i(masked):
        new_text = _lower_i(new_text)  # "i'd like to cancel ... i already picked it up"
    verb = rest[0]
    if new_prefix == "":
        verb = verb.upper() if at_start and not lower_style else verb.lower()
    else:
        verb = verb if re.match(r"I\b", rest) else verb.lower()
        if not at_start and not re.match(r"I\b", new_text):
            new_text = new_text[0].lower() + new_text[1:]
    edits: list[Edit] = [(start + g_end, start + g_end + len(prefix) + 1, new_text + verb)]
    question = _is_question(new_prefix)
    mood = _mood(prefix, group) != _mood(new_prefix, "noun" if group == "noun" else "")
    if tail and question:
        # the "?" goes on the request; the trailing clause becomes its own sentence
        a, b = start + tail[0], start + tail[1]
        edits.append((a, b + 1, "? " + masked[b].upper()))
    elif not tail and sentence[-1] in ".?":
        want = "?" if question else "."
        if want != sentence[-1]:
            edits.append((end - 1, end, want))
    # a change of mood (an order asked as a question, a request stated as a need) is a real
    # rewording; "Could you" for "Can you" is not
    return ("framing:mood" if mood else "framing", edits)


_DROPPED_RE = re.compile(r"(?P<lead>need to|want to|wanna|gotta|need|want) (?P<next>[a-z']+)")


def _dropped_subject_ops(masked: str, at: int, body: str, rng: random.Random) -> list[Op] | None:
    """A lower-case message that drops its subject ("need to update my bank details ...",
    "need a van for saturday") gets a lower-case framing: "can you update ...", "i have to
    update ...", "can i get a van ...". None when the sentence does not open that way."""
    d = _data()
    m = _DROPPED_RE.match(body)
    if not m:
        return None
    lead, nxt = m.group("lead"), m.group("next")
    if lead in ("need to", "want to", "wanna", "gotta"):
        if nxt in d["not_verbs"] or nxt not in d["action_verbs"]:
            return []
        choices = ["i need to ", "i have to "] if lead != "need to" else ["i have to ", "i want to "]
        if nxt in d["self_verbs"]:  # the doer does not matter: asking is the same request
            choices = ["can you ", "could you "]
    else:
        if nxt not in d["noun_starts"] and (nxt in d["not_verbs"] or nxt in d["action_verbs"] or nxt == "to"):
            return []  # "need it", "need book ...": not a thing asked for
        choices = ["can i get ", "i'd like "] if lead == "need" else ["can i get ", "i need "]
    new = rng.choice(choices)
    stop = len(m.group("lead")) + 1
    name = "framing:mood" if new.startswith("can ") else "framing"
    return [(name, [(at, at + stop, new)])]


_CAN_I_RE = re.compile(r"(?<![\w'])can i (?P<verb>[a-z]+)\b(?P<rest>[^.?!]*)(?P<q>\??)$")
_CAN_I_LEADS = ("is it possible to ", "is there a way to ")


def _can_i_ops(masked: str, start: int, end: int, rng: random.Random) -> list[Op]:
    """In a lower-case run-on, the closing "can i X" asked another way: "got a fine of X in
    Y can i appeal it" -> "... is it possible to appeal it" (never after a question word:
    "how can i X")."""
    if not _lower_style(masked):
        return []
    sentence = masked[start:end]
    m = _CAN_I_RE.search(sentence)
    if not m or _NEW_CLAUSE_RE.search(m.group("rest")) and not re.match(r"\s*(?:it|them)\b", m.group("rest")):
        return []
    before = sentence[: m.start()].split()
    if before and before[-1].lower() in ("how", "where", "when", "what", "who", "why", "which", "and", "or"):
        return []
    if m.group("verb") in _data()["not_verbs"] or m.group("verb") in _VERBISH - {"get", "have"}:
        return []
    new = rng.choice(_CAN_I_LEADS) + m.group("verb")
    a = start + m.start()
    return [("question:possible", [(a, a + len("can i ") + len(m.group("verb")), new)])]


_COPULA_RE = re.compile(r"(?:\S+\s+){0,3}(?:is|are|was|were|isn't|aren't|wasn't|has been|have been)\b", re.I)
"""A copula within the first words: the sentence states something rather than orders it."""


_PURPOSE_RE = re.compile(
    r"[^,.;!?]*?\bto\s+(?!(?:the|a|an|my|your|our|his|her|their|this|that|me|us)\b)[a-z]+\b(?!['’])"
)
"""A noun phrase followed by "to <verb>": the sentence gives a purpose or a wish about
something ("some cash to feel comfortable", "the heating to come on"), not a request for it."""


_COMMA_CLAUSE_RE = re.compile(
    r",\s+(?:the|these|those|his|her|its|their|your|one|both|all|some|none|nothing|everything"
    r"|(?:he|she|it|they|we)['’](?:s|re|ve|ll|d))\b",
    re.I,
)
"""A comma before what may be a second clause's subject ("..., the shoes are too small",
"..., she's 9")."""


def _lower_i(text: str) -> str:
    """``text`` with the pronoun "I" written "i", for a message that writes it that way."""
    return re.sub(r"(?<![\w'])I(?=$|[\s'’])", "i", text)


def _mood(prefix: str, group: str) -> str:
    """imperative, question or statement: what a framing makes of a request."""
    if _is_question(prefix):
        return "question"
    if not prefix.strip() or prefix.strip().lower() == "please":
        return "imperative"
    return "statement"


@functools.lru_cache(maxsize=8)
def _one_line_order(masked: str) -> bool:
    """A voice command or a one-line lower-case text (computed once per prompt: the framing
    rule asks for every sentence, and the prompt may be long)."""
    return message_style(masked) == "spoken" or (_lower_style(masked) and len(sentence_spans(masked)) == 1)


@functools.lru_cache(maxsize=8)
def _writes_lower_i(masked: str) -> bool:
    """The message writes "i" for "I" (once per prompt)."""
    return re.search(r"(?<![\w'])i(?![\w])", masked) is not None


@functools.lru_cache(maxsize=64)
def _lower_style(masked: str) -> bool:
    """The user writes in lower case (no capital at the start of the message). A message that
    opens with a protected value ("Sophie came home ...") is judged by its next sentence's
    first letter: the word after the value is no sentence start."""
    m = re.search(r"[A-Za-z]", masked)
    if m is None:
        return False
    if "\ue000" in masked[: m.start()]:
        for a, b in sentence_spans(masked)[1:]:
            first = re.match(r"[^A-Za-z\ue000]*([A-Za-z\ue000])", masked[a:b])
            if first and first.group(1) != "\ue000":
                return first.group(1).islower()
    return masked[m.start()].islower()


_ASK_LEADS = (
    ("Could you tell me ", "?"),
    ("Can you tell me ", "?"),
    ("Do you know ", "?"),
    ("I'd like to know ", "."),
)
_SPOKEN_QUESTION_RE = re.compile(r"(?:How|What|What's|When|Where|Who|Which|Is|Are|Can|Do|Does)\b")
"""A voice question typed without its "?" ("How long until my driver gets here")."""
_WHAT_RE = re.compile(r"(What's|What is|what's|what is|whats)\s+(?=(?:the|my|our|your)\b)")
_VERBISH = frozenset(
    "going be like do does did been being will would can could have has had is are was were "
    "should get happen happens happened".split()
)
_HOW_RE = re.compile(
    r"([Hh]ow (?:many|much)(?: [a-z]+){0,2}?) (do|will|can|would|should) (I|we|you|they) ([^?]+)\?$"
)
_TO_RE = re.compile(r"([Hh]ow|[Ww]here|[Ww]ho|[Ww]hen) (do|should|can) (I|i|we) ([a-z][^?]*?)\??$")
"""A how/where/who/when question about what the user should do, asked with "to": "How do I
claim?" -> "how to claim". "When can I" asks when something is possible, never what the user
should do: "When can I pick it up?" -> "when I can pick it up" (never "when to pick it up")."""


def _runs_on(sentence: str) -> bool:
    """A lower-case unpunctuated question with a second clause typed on after its first words,
    no linking word before it ("can i extend the hire were still out", "can the driver come
    on thursdays its the one on X"): a casual run-on, never wrapped in "could you tell me
    whether ..."."""
    rest = " ".join(sentence.split()[2:])
    return any(m.group("prev").lower() not in _LINKING for m in _RUN_ON_RE.finditer(rest))


def question_ops(
    masked: str, start: int, end: int, rng: random.Random, leads: Sequence[Sequence[str]] = _ASK_LEADS
) -> list[Op]:
    """Direct questions asked indirectly, the question word kept: "What's the X?" -> "Could
    you tell me what the X is?", "How many X do I have?" -> "Could you tell me how many X I
    have?", "How do I X?" -> "Could you tell me how to X?". ``leads``: (opening, final
    punctuation) pairs to choose from. Lower-case messages stay lower case and keep a missing
    question mark missing."""
    sentence = masked[start:end]
    if _OR_ASK_RE.search(sentence):
        return []  # "Is that normal or should I come back in?": two questions, never half asked
    lower = _lower_style(sentence)
    spoken = sentence[-1:] not in ".!?" and bool(_SPOKEN_QUESTION_RE.match(sentence))
    asked = sentence.endswith("?") or (lower and sentence[-1:] not in ".!") or spoken
    if not asked:
        return []
    if lower and not sentence.endswith("?") and _runs_on(sentence):
        # a yes/no question of a casual run-on is never wrapped in "could you tell me whether";
        # "whats my refund status i filed ..." -> "can you tell me my refund status ..." stays
        return [op for op in _question_ops(masked, start, end, rng, leads) if "whether" not in op[1][0][2]]
    return _question_ops(masked, start, end, rng, leads)


def _question_ops(
    masked: str, start: int, end: int, rng: random.Random, leads: Sequence[Sequence[str]]
) -> list[Op]:
    """:func:`question_ops` on a sentence already known to ask."""
    sentence = masked[start:end]
    lower = _lower_style(sentence)
    ops: list[Op] = []
    if re.search(r"\btell\b", sentence, re.I):  # never "tell me who to tell"
        leads = [pair for pair in leads if "tell" not in pair[0].lower()] or leads
    if re.match(r"\W*can\b", sentence, re.I):  # never "Can you tell me whether I can ..."
        leads = [pair for pair in leads if not pair[0].lower().startswith("can ")] or leads
    lead, stop = rng.choice(list(leads))
    if lower:
        lead = lead[0].lower() + lead[1:] if not re.match(r"I\b", lead) else lead
        if re.match(r"I\b", lead) and _writes_lower_i(masked):
            lead = "i" + lead[1:]  # "i'd like to know ..." in a message that writes "i"
    if not sentence.endswith("?"):
        stop = ""
    body_end = end - 1 if sentence.endswith("?") else end
    if sentence == "Why?" and start > 0:  # "... went up this month. Why?" -> "Could you tell me why?"
        return [("question:why", [(start, end, f"{lead}why{stop}")])]
    m = _WHAT_RE.match(sentence)
    if m:
        rest = masked[start + m.end() : body_end]
        cond = re.search(r"\s(?:if|when|in case|once|after|before|because|since)\b", rest)
        subject, condition = (rest[: cond.start()], rest[cond.start() :]) if cond else (rest, "")
        words = re.findall(r"[A-Za-z']+", subject)
        # a long subject, or one with a clause of its own ("the tax on the fund I bought in
        # 2019"), would leave "is" stranded at the end: asked as it is
        long_subject = len(words) > 8 or (len(words) > 5 and bool(_NEW_CLAUSE_RE.search(subject)))
        placed = _is_placed(subject) if subject else None
        if placed and not any(w.lower() in _VERBISH for w in words):
            # "What's the policy if I miss a lesson?" -> "... what the policy is if I miss a lesson";
            # "What's the electrician doing on Friday?" -> "... what the electrician is doing on
            # Friday"; a long subject is asked for by name: "... tell me the tax on the fund I bought"
            new = (
                f"{lead}{subject}{condition}{stop}"
                if long_subject and placed.endswith(" is")
                else f"{lead}what {placed}{condition}{stop}"
            )
            ops.append(("question:what", [(start, end, new)]))
    for m in _HOW_RE.finditer(sentence):
        before = sentence[: m.start()]
        at_start = not before.strip()
        if not (at_start or before.endswith((", ", "— ", "– "))):
            continue
        wh, aux, subject, rest = m.groups()
        if subject == "you" and lead.lower().startswith("do you know"):
            # never "Do you know how much you charge": the helper is asked about itself
            lead = "could you tell me " if lower else "Could you tell me "
            stop = "?" if sentence.endswith("?") else stop
        lead_text = lead if at_start or re.match(r"I\b", lead) else lead[0].lower() + lead[1:]
        verb_part = f"{subject} {rest}" if aux == "do" else f"{subject} {aux} {rest}"
        if _advice_verb(aux, subject, rest):
            # "How much chlorine do I add?" asks what to do: "how much chlorine to add", never
            # "how much chlorine I add" (which asks what the user did)
            verb_part = f"to {rest}"
        new = f"{lead_text}{wh[0].lower()}{wh[1:]} {verb_part}{stop}"
        ops.append(("question:how", [(start + m.start(), end, new)]))
    m = _TO_RE.match(sentence)
    if m and not ops:
        wh, aux, subject, rest = m.groups()
        if wh.lower() == "when" and aux == "can":
            ops.append(("question:to", [(start, end, f"{lead}when {subject} can {rest}{stop}")]))
        elif rest.split(" ", 1)[0].lower() not in _NOT_TO:
            new = f"{lead}{wh.lower()} to {rest}{stop}"
            ops.append(("question:to", [(start, end, new)]))
    body = masked[start:body_end]
    m = _WH_BE_RE.match(body) or _WH_WILL_RE.match(body) or _WH_DO_RE.match(body)
    # a subject never ends in "to": "How long will my order take to arrive" has its verb
    # ("take") inside what the pattern took for the subject
    if m and not ops and not _has_verbish(m.group("np")) and not m.group("np").endswith(" to"):
        wh, aux, np, rest = m.group("wh"), m.group("aux"), m.group("np"), m.group("rest") or ""
        wh = wh if re.match(r"I\b", wh) else wh[0].lower() + wh[1:]
        pred = _PRED_IN_NP_RE.search(np)
        prog = _PROG_IN_NP_RE.search(np)
        if aux.lower() in ("is", "are", "was", "were") and pred:
            # "When is the library open on Saturday" -> "when the library is open on Saturday"
            new = f"{lead}{wh} {np[: pred.start()]} {aux.lower()}{np[pred.start() :]}{rest}{stop}"
        elif aux.lower() in ("is", "are", "was", "were") and prog:
            # "When is the sweep coming on Thursday" -> "when the sweep is coming on Thursday"
            new = f"{lead}{wh} {np[: prog.start()]} {aux.lower()}{np[prog.start() :]}{rest}{stop}"
        elif aux.lower() in ("is", "are", "was", "were") and re.search(r" \S+ [a-z]+ed\b", np):
            new = ""  # "Why was my permit application rejected": the verb is inside the "subject"
        elif aux.lower() in ("is", "are", "was", "were") and _ING_IN_NP_RE.search(np):
            new = ""  # "When is the plumber fixing the tap": a verb whose end the rule cannot find
        elif aux.lower() in ("is", "are", "was", "were"):
            new = f"{lead}{wh} {be_before_time(np, aux.lower())}{rest}{stop}"
        elif aux.lower() == "will":
            new = f"{lead}{wh} {np} will{rest}{stop}"
        else:  # "do": "what time do doors open" -> "what time doors open"
            new = f"{lead}{wh} {np}{rest}{stop}"
        if new:
            ops.append(("question:indirect", [(start, end, new)]))
    m = _THERE_RE.match(body)
    aux_ok = m and (m.group("aux").lower() in ("is", "are")) == (m.group("been") is None)
    if m and aux_ok and not ops:
        # "Are there any X?" -> "... whether there are any X"; "Has there been any news?" ->
        # "... whether there has been any news"
        verb = m.group("aux").lower() + (" " + m.group("been").strip() if m.group("been") else "")
        new = f"{lead}whether there {verb} {m.group('rest')}{stop}"
        ops.append(("question:whether", [(start, end, new)]))
    m = _MODAL_YES_NO_RE.match(body)
    if m and not ops and not _has_verbish(m.group("np")):
        # "Can that still be changed?" -> "... whether that can still be changed"
        adv = m.group("adv") + " " if m.group("adv") else ""
        new = f"{lead}whether {m.group('np')} {m.group('aux').lower()} {adv}{m.group('pred')}{stop}"
        ops.append(("question:whether", [(start, end, new)]))
    m = _UNTIL_RE.match(body) or _GOING_TO_RE.match(body)
    if m and not ops and not _has_verbish(m.group("np")):
        # "How long until my driver gets here" -> "... how long until my driver gets here";
        # "What's the weather going to be like" -> "... what the weather is going to be like"
        wh = m.group("wh")
        wh = wh if re.match(r"I\b", wh) else wh[0].lower() + wh[1:]
        if m.re is _UNTIL_RE:
            clause = f"{wh} {m.group('until')} {m.group('np')} {m.group('verb')}{m.group('rest')}"
        else:
            clause = f"{wh} {m.group('np')} is going to {m.group('rest')}"
        ops.append(("question:indirect", [(start, end, f"{lead}{clause}{stop}")]))
    m = _WH_IT_RE.match(body) or _WH_DOES_RE.match(body)
    if m and not ops and not _has_verbish(m.group("np")):
        wh, aux, np, rest = m.group("wh"), m.group("aux").lower(), m.group("np"), m.group("rest")
        wh = wh[0].lower() + wh[1:]
        adv = m.groupdict().get("adv") or ""
        if aux == "does":  # "how much does it cost to X" -> "how much it costs to X"
            verb, _, tail = rest.partition(" ")
            clause = f"{np}{adv} {third_person(verb)}" + (f" {tail}" if tail else "")
        else:  # "how long will it usually take" -> "how long it will usually take"
            clause = f"{np} {aux}{adv} {rest}"
        ops.append(("question:indirect", [(start, end, f"{lead}{wh} {clause}{stop}")]))
    m = _MODAL_ACTIVE_RE.match(body)
    if (
        m
        and not ops
        and not _NEW_CLAUSE_RE.search(m.group("pred"))
        and not _SECOND_ASK_RE.search(m.group("pred"))
    ):
        verb = m.group("pred").split(" ", 1)[0].lower()
        if (
            verb in _ACTIVE_VERBS or verb in load_data("paraphrase")["action_verbs"]
        ) and not _compound_subject(m.group("pred")):
            # "Can the florist deliver to the church by 11am?" -> "... whether the florist can
            # deliver to the church by 11am"
            new = f"{lead}whether {m.group('np')} {m.group('aux').lower()} {m.group('pred')}{stop}"
            ops.append(("question:whether", [(start, end, new)]))
    m = _YES_NO_RE.match(body)
    if (
        m
        and not ops
        and not _has_verbish(m.group("np"))
        # "Is this the right number?": a determiner never heads a subject of its own ("this the")
        and not _DOUBLE_DET_RE.match(m.group("np"))
        # "Is it ready I need it today?": a second subject run on is never inside "whether"
        and not _run_on_subject(m.group("pred"))
    ):
        new = f"{lead}whether {m.group('np')} {m.group('aux').lower()} {m.group('pred')}{stop}"
        ops.append(("question:whether", [(start, end, new)]))
    m = _WH_SUBJECT_RE.match(body)
    second = _second_question(m.group("rest")) if m else None
    # a written question keeps a clause after "if"/"before"/... ("How long should I wait
    # before I fly?"); a lower-case run-on keeps no second subject at all
    run_on = _NEW_CLAUSE_RE.search if lower or not sentence.endswith("?") else _run_on_subject
    if (
        m
        and not ops
        and not _has_verbish(m.group("noun") or "")
        and not run_on(second if second is not None else m.group("rest"))
        and (second is not None or not _SECOND_ASK_RE.search(m.group("rest")))
    ):
        # "What documents do I need to X?" -> "... what documents I need to X"
        aux = (m.group("aux") or m.group("are")).lower()
        verb = "" if aux == "do" else aux + " "
        wh = (m.group("wh") or m.group("how")).lower() + (m.group("noun") or "")
        subj = m.group("subj") or m.group("you")
        if subj == "you" and lead.lower().startswith("do you know"):
            lead = "could you tell me " if lower else "Could you tell me "  # never "Do you know what you"
            stop = "?" if sentence.endswith("?") else stop
        rest = second if second is not None else m.group("rest")
        new = f"{lead}{wh} {subj} {verb}{rest}{stop}"
        if aux == "do" and _asks_what_to_do(wh, subj, rest):
            new = f"{lead}{wh} to {rest}{stop}"  # "how long to cook X", never "how long I cook X"
        ops.append(("question:indirect", [(start, end, new)]))
    m = _DO_I_RE.match(body)
    joined = _second_question(m.group("rest")) if m else None
    if (
        m
        and not ops
        and not _NEW_CLAUSE_RE.search(joined if joined is not None else m.group("rest"))
        and (joined is not None or not _SECOND_ASK_RE.search(m.group("rest")))
        and (joined is not None or not _LATER_ASK_RE.search(m.group("rest")))
    ):
        # "Do I need a solicitor?" -> "... whether I need a solicitor"; "Can I X?" -> "whether I
        # can X"; "Do you have X?" -> "Could you tell me whether you have X?"; a second
        # question joined on is asked indirectly too ("..., and how much is it" -> "and how
        # much it is")
        aux, subj = m.group("aux").lower(), m.group("subj")
        rest = joined if joined is not None else m.group("rest")
        you = subj.lower() == "you"
        # "Can you do that?" after a list of wishes: "... whether you can do that" only wraps
        # a template round a question with nothing of its own to reword
        pro_verb = you and re.fullmatch(r"do (?:that|it|this|those|them)", rest.strip()) is not None
        first = rest.split(" ", 1)[0]
        # "Do you VERB X?" in a written question asks what the business does for any verb
        # but a thought or wish (:func:`_service_verb`); a lower-case text keeps the list
        service = aux == "do" and (first in _SERVICE_VERBS or (not lower and _service_verb(first)))
        if (not you or first in _YOU_VERBS or service) and not pro_verb:
            if you and lead.lower().startswith("do you know"):
                lead = "could you tell me " if lower else "Could you tell me "
                stop = "?" if sentence.endswith("?") else stop
            verb = "" if aux == "do" else aux + " "
            ops.append(("question:whether", [(start, end, f"{lead}whether {subj} {verb}{rest}{stop}")]))
    return ops


_OR_ASK_RE = re.compile(
    r"\b(?:or|and)\s+(?:(?:should|shall|can|could|do|does|did|is|are|am|was|were|will|would|have|has|may|must)"
    r"\s+(?:I|i|we|you|it|they|he|she|that|this|there|someone|somebody|anyone|anybody|everyone)\b"
    r"|(?:should|can|could|did|does|is|are|was|were|will|would)\s+(?:the|my|your|our|a|an|any)\b)"
)
"""A second yes/no question joined on ("..., or should I come back in?", "... or did someone
put too much in", "... and is there any grant available?"): an indirect "whether X or should
I Y" is half converted."""

_WH_SUBJECT_RE = re.compile(
    r"(?:(?P<wh>[Ww]hat|[Ww]hich)(?P<noun>(?: [a-z]+){0,2}?)|(?P<how>[Hh]ow (?:long|often|soon))) "
    r"(?:(?P<aux>do|should|can|could|will|would) (?P<subj>I|i|we|you)|(?P<are>are) (?P<you>we|you)) "
    r"(?P<rest>[a-z][^?]*)$"
)
"""A wh-question about what the user needs or may do ("What documents do I need to X", "How
long should I wait before X"), or what the helper needs or is doing ("What documents do you
need from me", "Which colour are you delivering"): the subject is a pronoun, so the clause
after it is the rest of the question whatever its words."""
_DO_I_RE = re.compile(r"(?P<aux>[Dd]o|[Cc]an|[Ss]hould) (?P<subj>I|i|we|you) (?P<rest>[a-z][^?]*)$")
"""A yes/no question with a pronoun subject ("Do I need X", "Can we bring X", "Do you have X")."""
_LATER_ASK_RE = re.compile(
    r"\b(?:how|what|when|where|which|who|why)\b"
    r"|\b(?:would|will|could|can|is|are|does|do|did) (?:that|it|this|they|you|i|we|he|she)\b"
)
"""A second question later in the sentence ("Do you clean X, and roughly how much would that
cost"): "whether you clean X, and roughly how much would that cost" mixes an indirect and a
direct question, so the sentence is left alone."""
_NEW_CLAUSE_RE = re.compile(r"\b(?:i|I|we|you|he|she|they|it's|i'm|im|I'm)\b")
"""A second subject: an unpunctuated run-on ("do you sell boxes i need 30") is left alone."""
_RUN_ON_RE = re.compile(
    r"(?<!\S)(?P<prev>\S+) (?=(?:i|im|i'm|we|were|we're|he|she|they|theyre|they're|its|it's|"
    r"theres|there's|thats|that's|whats|what's|hows|how's)(?![\w']))",
    re.I,
)
"""A second clause typed on without a stop ("... half hour were still out on the lake", "... on
thursdays its the one on X"): in a lower-case run-on, a formal indirect-question wrapper round
the first clause clashes with the casual rest. ``prev``: the word before the new subject (a
linking word there makes it a clause of the question: "... if i moved last week")."""
_LINKING = frozenset(
    "if when whenever because cos since after before as so and but or that until till while once "
    "though although where which who in case".split()
)
_SUBORDINATORS = _LINKING - {"and", "but", "or", "so"}
"""Words that open a clause inside a question ("... if you wear glasses", "... before I fly"):
a subject after one of them is part of the question, not a second sentence run on."""


def _run_on_subject(rest: str) -> bool:
    """A second subject in ``rest`` that opens a clause of its own: one not introduced by a
    subordinating word ("Can you dive if you wear lenses" has none; "Do you sell boxes i
    need 30" and "What should I do and I need it now" have one)."""
    for m in _NEW_CLAUSE_RE.finditer(rest):
        before = rest[max(0, m.start() - 40) : m.start()].split()  # the word before it, in O(1)
        if not before or before[-1].lower() not in _SUBORDINATORS:
            return True
    return False


_YOU_VERBS = frozenset("have sell offer deliver accept take stock ship open do provide rent hire".split())
_SERVICE_VERBS = frozenset("alter cut lay repair fix clean install move make supply remove service".split())
"""Verbs naming a service a business offers: "Do you alter silk dresses?" is asked indirectly
as "whether you alter silk dresses" (only after "Do you": "Can you move my class?" is a
request, not a question about the service; "Do you think/know/mind" are not in the list)."""


_VALUE = r"\ue000[^\ue001]*\ue001"
"""One protected value in masked text."""
_SUBJ = (
    r"(?P<np>(?:the|my|our|your|his|her|their) (?:[a-z]+|" + _VALUE + r")(?: [a-z]+){0,2}?|" + _VALUE + ")"
)
_UNTIL_RE = re.compile(
    r"(?P<wh>[Hh]ow long) (?P<until>until|till|before) " + _SUBJ + r" (?P<verb>[a-z]+s)\b(?P<rest>[^?]*)$"
)
""""How long until my driver gets here": asked indirectly, or as "When will my driver get here"."""
_GOING_TO_RE = re.compile(
    r"(?P<wh>[Ww]hat|[Ww]hen|[Ww]here|[Hh]ow)(?:'s| is) "
    + _SUBJ.replace("{0,2}?", "{0,2}?")
    + r" going to (?P<rest>[a-z]+\b[^?]*)$"
)
""""What's the weather going to be like ...", "When is my parcel going to arrive"."""


def base_form(verb: str) -> str:
    """A third-person verb's base form: "gets" -> "get", "arrives" -> "arrive", "finishes" ->
    "finish", "carries" -> "carry", "goes" -> "go" (the inverse of :func:`third_person`)."""
    low = verb.lower()
    irregular = {"has": "have", "does": "do", "goes": "go", "is": "be"}
    if low in irregular:
        return irregular[low]
    if re.search(r"[^aeiou]ies$", low):
        return verb[:-3] + "y"
    if re.search(r"(?:ss|x|z|ch|sh)es$", low):
        return verb[:-2]
    return verb[:-1] if low.endswith("s") and not low.endswith("ss") else verb


def _direct_question_ops(masked: str, start: int, end: int) -> list[Op]:
    """A question asked another direct way: "How long until my driver gets here" -> "When
    will my driver get here"; "What's the weather going to be like in X" -> "What will the
    weather be like in X". Case and a missing question mark are kept."""
    sentence = masked[start:end]
    q = "?" if sentence.endswith("?") else ""
    body = sentence[:-1] if q else sentence
    m = _UNTIL_RE.match(body)
    if m and not _has_verbish(m.group("np")) and m.group("verb").lower() not in _VERBISH:
        when = "When" if body[0].isupper() else "when"
        new = f"{when} will {m.group('np')} {base_form(m.group('verb'))}{m.group('rest')}{q}"
        return [("question:direct", [(start, end, new)])]
    m = _GOING_TO_RE.match(body)
    if m and not _has_verbish(m.group("np")):
        new = f"{m.group('wh')} will {m.group('np')} {m.group('rest')}{q}"
        return [("question:direct", [(start, end, new)])]
    return []


_NOT_TO = frozenset("be have need know think feel want".split())
_NOT_ADVICE = frozenset("get make keep hold let tell help owe earn".split())
"""Verbs after "How much X do I" that ask what the user receives or owes, not what to do."""


def _advice_verb(aux: str, subject: str, rest: str) -> bool:
    """ "How much X do/should I VERB ..." asks what to do when VERB is an action ("add",
    "take", "bring"), the rest has no second subject, and the subject is the user."""
    verb = rest.split(" ", 1)[0].lower()
    return (
        aux in ("do", "should")
        and subject in ("I", "we")
        and verb in load_data("paraphrase")["action_verbs"]
        and verb not in _NOT_ADVICE
        and not _NEW_CLAUSE_RE.search(rest)
    )


_WH = r"(?P<wh>[Ww]hat time|[Ww]here|[Ww]hen|[Ww]ho|[Ww]hat|[Hh]ow long|[Hh]ow often|[Hh]ow much)"
_NP = (
    r"(?P<np>(?:the|my|our|your|his|her|their|this|that|these|those)(?: [\w\ue000-\uf8ff'-]+){1,4}|[a-z]+s"
    r"|\ue000[^\ue001]*\ue001)"
)
_WH_BE_RE = re.compile(_WH + r" (?P<aux>is|are|was|were) " + _NP + r"(?P<rest>)$")
_WH_WILL_RE = re.compile(
    _WH
    + r" (?P<aux>will) "
    + _NP
    + r"(?P<rest> (?:be|arrive|open|close|start|end|come|get|finish|ship)\b.*)$"
)
_WH_DO_RE = re.compile(
    _WH + r" (?P<aux>do) " + r"(?P<np>(?:the|my|our|your|their) [a-z]+|[a-z]+s)" + r"(?P<rest> [a-z]+\b.*)$"
)
_YES_NO_RE = re.compile(
    r"(?P<aux>[Ii]s|[Aa]re) "
    + _NP.replace("{1,4}", "{1,5}?").replace("|[a-z]+s", "|[a-z]+s|that|this|it")
    + r" (?P<pred>(?:still |currently |now |really )?"
    r"(?:open|available|free|ready|closed|included|valid|working|running|done|allowed|possible|"
    r"refundable|covered|required|necessary|normal|legal|correct|right)\b.*)$"
)
_DOUBLE_DET_RE = re.compile(r"\S+ (?:the|a|an|my|your|our|their|his|her|this|that|these|those)\b")
"""A determiner right after the first word of a subject: the first word was a pronoun ("this
the right number"), not the subject's determiner."""
_MODAL_YES_NO_RE = re.compile(
    r"(?P<aux>[Cc]an|[Cc]ould|[Ww]ill|[Ss]hould) "
    + _NP.replace("(?P<np>", "(?P<np>those|these|they|it|this|that|").replace("{1,4}", "{1,5}?")
    + r" (?:(?P<adv>still|also|really|even|now|ever|actually) )?(?P<pred>be [a-z]+(?:ed|en|id|wn|lt)\b.*)$"
)
"""A yes/no question in the passive ("Can those be refunded", "Will my parcel be delivered
on time"): asked indirectly as "whether those can be refunded"."""
_MODAL_ACTIVE_RE = re.compile(
    r"(?P<aux>[Cc]an|[Cc]ould|[Ww]ill) (?P<np>(?:the|my|our|your|their) [a-z]+(?: [a-z]+)??) "
    r"(?P<pred>[a-z]+\b[^,;?]*)$"
)
"""A yes/no question whose subject is a third party named with a determiner ("Can the
florist deliver by 11am", "Will my landlord fix it"): asked indirectly as "whether the
florist can deliver by 11am" when its verb is a known action or coming-round verb."""
_WITHOUT_RE = re.compile(r"\bwithout\s+[a-z]+ing\b", re.I)


def asks_if_possible(rest: str) -> bool:
    """Whether a "Can you X ...?" question asks if X can be done rather than for X: it joins
    an alternative or a second question on ("..., or is it too late?", "... or do I need to
    call someone else?") or sets a condition on how ("... without replacing the lock"). Such
    a question stays a question in every class (never "Kindly get the broken bit out ...")."""
    return bool(_OR_ASK_RE.search(rest) or _SECOND_ASK_RE.search(rest) or _WITHOUT_RE.search(rest))


_SECOND_ASK_RE = re.compile(
    r"\b(?:and|or|but) (?:how|what|what's|whats|when|where|which|who|why|is|are|do|does|can)(?![\w'’])"
)
"""A second question joined on ("... and how much is it"): the first is not asked alone."""
_JOINED_ASK_RE = re.compile(
    r"(?P<first>[a-z][^,;?]*?),? and (?P<wh>how long|how much|when|where|what time) "
    r"(?P<aux>does|will|is) (?P<np>it|this|that)(?P<rest>(?: [a-z0-9]+)*)$"
)


def _second_question(rest: str) -> str | None:
    """The part after a first question's subject with a second question joined on asked
    indirectly too ("need and how long does it take" -> "need and how long it takes"); None
    when there is no such second question or it cannot be put that way."""
    m = _JOINED_ASK_RE.match(rest)
    if not m:
        return None
    aux, tail = m.group("aux"), m.group("rest")
    if aux == "does":
        verb, _, more = tail.strip().partition(" ")
        if not verb or verb in _VERBISH:
            return None
        clause = f"{m.group('np')} {third_person(verb)}" + (f" {more}" if more else "")
    else:  # "how long will it take" -> "how long it will take"; "how much is it" -> "how much it is"
        clause = f"{m.group('np')} {aux}{tail}"
    return f"{m.group('first')} and {m.group('wh')} {clause}"


_ACTIVE_VERBS = frozenset("come arrive visit fit handle take cover stay accept work".split())


def _compound_subject(pred: str) -> bool:
    """The would-be verb after a modal question's subject may be the last word of a compound
    noun ("Could the photo book for X be sent ...": "book" is part of "the photo book"; "Can
    the garden table arrive ..."): true when another bare verb follows it, or when "be" comes
    later (then "be" is the modal's verb and the first word belongs to the subject)."""
    words = re.findall(r"[a-z'-]+", pred.lower())
    if len(words) > 1 and (
        words[1] in _ACTIVE_VERBS or words[1] in load_data("paraphrase")["action_verbs"] or words[1] == "be"
    ):
        return True
    return "be" in words[1:]


_THERE_RE = re.compile(
    r"(?P<aux>[Ii]s|[Aa]re|[Hh]as|[Hh]ave|[Ww]ill) there (?P<been>(?:been|be) )?"
    r"(?P<rest>(?:a|an|any|some|no)\b.+)$"
)
_WH_IT_RE = re.compile(
    _WH + r" (?P<aux>would|will|can|could|should|does) (?P<np>it|this|that|there)"
    r"(?P<adv> usually| normally| typically| generally)? (?P<rest>(?:cost|take|be|work|arrive|happen)\b.*)$"
)
_WH_DOES_RE = re.compile(
    _WH + r" (?P<aux>does) (?P<np>(?:(?:the|my|our|your|his|her|their) (?:[a-z]+|\ue000[^\ue001]*\ue001)"
    r"(?: (?:[A-Za-z][a-z]*|\ue000[^\ue001]*\ue001)){0,5}?)"
    r"|\ue000[^\ue001]*\ue001(?: (?:on|in|at) \ue000[^\ue001]*\ue001)?)"
    r" (?P<rest>(?:renew|open|close|start|end|arrive|leave|expire|finish|begin|run|ship|come|charge)s?"
    r"(?: (?:in|on|at|for|this|next|today|tomorrow|tonight|\ue000)[^?]*)?)$"
)
"""A wh-question about when a business or plan does something ("What time does the <branch>
branch of <company> close today", "How much does <company> charge for X"): the subject is
a determiner phrase or one protected name, the verb one of a few opening, ending and charging
verbs."""


def third_person(verb: str) -> str:
    """``verb`` for he/she/it: "cost" -> "costs", "finish" -> "finishes", "carry" -> "carries"."""
    low = verb.lower()
    if low in ("have", "do", "go"):
        return {"have": "has", "do": "does", "go": "goes"}[low]
    if re.search(r"(?:s|x|z|ch|sh)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


def _has_verbish(text: str) -> bool:
    return any(w.lower() in _VERBISH for w in re.findall(r"[A-Za-z']+", text))


_SOMEONE_RE = re.compile(
    r"(?P<aux>[Cc]an|[Cc]ould) (?P<who>someone|somebody|anyone|anybody) (?P<rest>[a-z][^?]*)\?$"
)
_SOMEONE_LEADS = ("Could you get someone to ", "Is there someone who could ", "Could you have someone ")


def _someone_ops(masked: str, start: int, end: int, rng: random.Random) -> list[Op]:
    """ "Can someone X?" asks the helper to find a person: "Could you get someone to X?", "Is
    there someone who could X?", "Could you have someone X?" (a whole question, mid-message
    too; never on a run-on with a second subject)."""
    m = _SOMEONE_RE.match(masked[start:end])
    if (
        not m
        or _NEW_CLAUSE_RE.search(m.group("rest"))
        and not re.match(r"\w+ (?:it|them)\b", m.group("rest"))
    ):
        return []
    lead = rng.choice(_SOMEONE_LEADS)
    return [("framing:someone", [(start, end, f"{lead}{m.group('rest')}?")])]


_DET = r"(?:the|my|our|your|this|that|a|an)"
_PLAIN = r"(?!(?:so|very|too|still|not|always|never|already|just|really)\b)[a-z][a-z'-]*"
_NOUN = r"(?:" + _PLAIN + r"|\ue000[^\ue001]*\ue001)"
"""A plain word or one protected value (a slot: "a <service>", "your <category>")."""
_PRONOUN_WH_RE = re.compile(r"(?P<wh>Where|When|Why) (?P<aux>is|are) (?P<np>it|they|that|this|he|she)\?$")
_WHY_ADJ_RE = re.compile(
    r"Why (?P<aux>is|are) (?P<np>" + _DET + r"(?: " + _PLAIN + r"){1,2}) (?P<adj>" + _PLAIN + r")\?$"
)
_HAS_BEEN_RE = re.compile(
    r"(?P<aux>Has|Have) (?P<np>it|they|that|this|" + _DET + r"(?: " + _PLAIN + r"){1,3}) been "
    r"(?P<rest>[a-z]+(?:ed|en|t|id)\b[^?,;]*)\?$"
)
_AM_I_RE = re.compile(r"(?P<aux>Am I|Are we) (?P<rest>[a-z][^?,;]*)\?$")
_DOES_RE = re.compile(r"Does (?P<np>(?:the|my|our|your|this|that|a|an) [a-z\ue000][^?,;]*)\?$")
_DOES_VERBS = frozenset(
    "include cover need take accept allow come expire renew work charge apply support offer run ship "
    "open close start end require count have bring use provide".split()
)
_DO_PLURAL_RE = re.compile(r"Do (?P<np>(?:the|your|our|their|these|those|all) [a-z]+s(?: [a-z][^?,;]*)?)\?$")
"""A yes/no question about a plural third party ("Do your cleaners bring their own kit?")."""
_PLAIN_ADJ = (
    r"(?:open|available|free|ready|closed|included|valid|working|running|done|allowed|possible|"
    r"refundable|covered|required|necessary|normal|suitable|due|under warranty|under guarantee|in stock)"
)
_PRED_IN_NP_RE = re.compile(r"(?<=\S) (?=(?:still |currently |usually |normally )?" + _PLAIN_ADJ + r"\b)")
"""Where a wh-question's subject ends at a plain predicate ("When is the library | open on
Saturday"): the verb goes there, never after the whole ("when the library open on Saturday is")."""
_ING_NOUNS_IN_SUBJECT = NOT_VERB_FORMS | frozenset(
    "wing swing flooring heating plumbing training fitting painting setting lining pudding skirting "
    "railing awning sibling listing opening ending offering packaging shipping catering cleaning "
    "lighting roofing decking tiling".split()
)
"""Words in -ing that are nouns inside a wh-question's subject ("When is the heating engineer
coming"): the words that are never verbs, and gerunds a subject names as things."""
_PROG_IN_NP_RE = re.compile(
    r"(?<=[A-Za-z0-9]) (?=(?:still |actually |really |finally |now |currently )?"
    r"(?!(?:"
    + "|".join(sorted(_ING_NOUNS_IN_SUBJECT))
    + r")\b)[a-z]+ing(?: (?:on|at|in|to|for|from|by|back|out|up|round|over|down|off|"
    r"today|tomorrow|tonight|this|next|later|soon|again|with|here|there)\b| \ue000|$))"
)
"""Where a wh-question's subject ends at a progressive verb ("When is the sweep | coming on
Thursday"): "is" goes there ("what time the sweep is coming on Thursday"), never after the whole
("what time the sweep coming on Thursday is"); a protected value after the verb is its time
("coming tomorrow", where "tomorrow" is masked as a value) like a plain time word; a noun in
-ing ("the Saturday morning class", "the wedding") is not a verb."""
_ING_IN_NP_RE = re.compile(
    r"(?<=[A-Za-z0-9]) (?!(?:" + "|".join(sorted(_ING_NOUNS_IN_SUBJECT)) + r")\b)[a-z]+ing "
    r"(?:the|a|an|my|our|your|his|her|their|this|that|these|those|it|them|me|us|him|some|any)\b"
)
"""An -ing word inside a wh-question's subject that is its progressive verb before an object
("the plumber | fixing the tap"): when :data:`_PROG_IN_NP_RE` cannot tell where the subject
ends, the question is refused, never asked as "when the plumber fixing the tap is". An -ing
word before a bare noun modifies it ("my next driving lesson")."""
_IS_NP_RE = re.compile(
    r"(?P<aux>Is|Are) (?P<np>(?:a|an|any|the|my|our|your|this|that|these|those)(?: [a-z][a-z-]*){1,3}?"
    r"|anyone|anybody|someone|somebody|[a-z][a-z-]* [a-z][a-z-]*s) "
    r"(?P<pred>(?:still |currently |now |usually )?" + _PLAIN_ADJ + r"\b[^?,;]*)\?$"
)
"""A yes/no question with a plain predicate ("Is a follow-up visit included?", "Are eye tests
free for under-16s?", "Is anyone available?", "Is the battery under warranty?")."""
_HOW_LONG_TAKE_RE = re.compile(
    r"How long (?P<aux>does|will|would) "
    r"(?P<np>(?:a|an|the|my|our|your|this|that) [^?,;]+?|[a-z]+(?:ion|ing|ment))"
    r"(?P<adv> usually| normally| typically| generally)? take"
    r"(?P<rest>(?: (?:to|for|with|on|in|from|at|after|during|over) [A-Za-z0-9\ue000][^?,;]*)?)\?$"
)
"""How long a thing takes ("How long does a sworn translation usually take?", "How long does
installation take for a 4-panel system?": a bare noun of an act is a subject too)."""
_WH_WE_RE = re.compile(
    r"(?P<wh>How long|How often|How soon|How early|How far in advance|How far ahead|When|Where|Why) "
    r"(?P<aux>do|should|can|will) (?P<subj>I|we) (?P<rest>[a-z][^?,;]*)\?$"
)
"""A wh-question about what the user does or must do ("How long do we have to stay out?",
"When should I bring it in?")."""
_COULD_WE_RE = re.compile(r"(?P<aux>Could|Can) (?P<subj>we|I) (?P<verb>[a-z]+)(?P<rest>(?: [^?]*)?)\?$")
"""A yes/no question about what the user may do ("Could we set up an account?")."""
_POSSIBLE_LEADS = ("Would it be possible to ", "Is it possible to ")
_HOW_MUCH_RE = re.compile(
    r"How much (?:(?P<does>does) (?P<np1>" + _DET + r"(?: " + _PLAIN + r"){1,3}) cost"
    r"|(?P<is>is) (?P<np2>(?:a|an|the|my) " + _NOUN + r"(?: " + _PLAIN + r"){0,2}?))"
    r"(?P<rest>(?= (?:if|when|for|without|with|at|in|on|after|before|per)\b)[^?]*|)\?$"
)


_AMOUNT_NOUNS = frozenset(
    "deposit deposits fee fees charge charges price prices rent fine fines bill bills total cost costs "
    "balance refund premium excess rate rates tax amount payment payments deductible salary".split()
)
"""Nouns that name an amount: it is an amount, it does not cost one ("How much is the
deposit" is never "What does the deposit cost")."""


_PRONOUN_BE_RE = re.compile(
    r"(?P<aux>Is|Are|Was|Were) (?P<np>it|this|that|they|these|those) (?P<rest>[a-z][^?,;]*)\?$"
)
"""A yes/no question whose subject is a pronoun pointing back ("Is that realistic?", "Are
they refundable at all?"): the pronoun marks the subject's end, so any predicate follows."""


def _pronoun_be_clause(sentence: str) -> str | None:
    """ "Is that realistic?" -> "whether that is realistic" for any predicate after the
    pronoun, or None: never with a second subject run on ("Is it ready I need it today?"), a
    second question joined on, or a verb form the rule cannot place ("Is it costing ...": the
    "-ing" rules are :func:`_round9_clause`'s)."""
    m = _PRONOUN_BE_RE.match(sentence)
    if not m:
        return None
    rest = m.group("rest")
    if _run_on_subject(rest) or _SECOND_ASK_RE.search(rest) or _LATER_ASK_RE.search(rest):
        return None
    first, _, after = rest.partition(" ")
    if first.endswith("ing") or rest in _IDIOM_PREDICATES:
        return None
    if m.group("np") in _DEMONSTRATIVES and after and not _predicate_opener(first):
        return None  # "Is that car yours?": "that" is the determiner of "that car", never "that is car"
    return f"whether {m.group('np')} {m.group('aux').lower()} {rest}"


_DEMONSTRATIVES = frozenset("this that these those".split())
_IDIOM_PREDICATES = frozenset("so it me".split())
"""Whole predicates that make "Is that/it X?" a set phrase, no question of fact: "Is that so?"
(surprise), "Is that it?" (is that all), "Is it me?" (am I the one at fault): never asked as
"whether that is so"."""
_PREDICATE_ADVERBS = frozenset(
    "still already really also just too not so very definitely actually even going worth because all "
    "ok okay fine true".split()
)
_ADJECTIVE_END_RE = re.compile(r"[a-z]+(?:ic|ous|ful|able|ible)")


def _predicate_opener(word: str) -> bool:
    """A first word after "Is this/that" that can open a predicate of more than one word
    ("Is that realistic for a Sunday?", "Is that still the plan?", "Is this the only way?"):
    a closed-class word (:data:`_AFTER_ING_VERB`), an adverb or an adjective by its ending.
    Any other word may be a noun after the demonstrative determiner ("Is this seat taken?",
    "Are those boots waterproof?"), so the rule refuses."""
    closed = word in _AFTER_ING_VERB or word in _PREDICATE_ADVERBS
    return closed or _ADJECTIVE_END_RE.fullmatch(word) is not None


def _asks_what_to_do(wh: str, subj: str, rest: str) -> bool:
    """Whether "How long/often/... do I VERB ...?" asks what the user should do ("How long do I
    cook a frozen quiche?" -> "how long to cook a frozen quiche", never "how long I cook ...",
    which asks what the user does): a how-question, the user as subject, and a verb of doing
    (not "have", "need", "get", ...: "how long we have to stay out" keeps its subject)."""
    verb = rest.split(" ", 1)[0].lower()
    return (
        wh.lower().startswith("how ")
        and subj in ("I", "i", "we")
        and verb not in _NOT_TO | _NOT_ADVICE
        and not _NEW_CLAUSE_RE.search(rest)
    )


def _pronoun_question_clause(sentence: str) -> str | None:
    """The indirect clause for a question whose subject is the user ("How long do we have to
    stay out of the house?" -> "how long we have to stay out of the house"), or None. The rest
    has no second subject or second question."""
    m = _WH_WE_RE.match(sentence)
    if not m or _NEW_CLAUSE_RE.search(m.group("rest")) or _SECOND_ASK_RE.search(m.group("rest")):
        return None
    if m.group("rest").split(" ", 1)[0] in _VERBISH - {"have", "get"}:
        return None
    if m.group("aux") == "do" and _asks_what_to_do(m.group("wh"), m.group("subj"), m.group("rest")):
        return f"{m.group('wh').lower()} to {m.group('rest')}"
    aux = "" if m.group("aux") == "do" else m.group("aux") + " "
    return f"{m.group('wh').lower()} {m.group('subj')} {aux}{m.group('rest')}"


def _plain_question_clause(sentence: str) -> str | None:
    """The indirect clause for a yes/no question with a plain predicate ("Is a follow-up visit
    included?" -> "whether a follow-up visit is included") or for how long a thing takes ("How
    long does a sworn translation usually take?" -> "how long a sworn translation usually
    takes"), or None."""
    m = _IS_NP_RE.match(sentence)
    if m and not _has_verbish(m.group("np")) and not _SECOND_ASK_RE.search(m.group("pred")):
        return f"whether {m.group('np')} {m.group('aux').lower()} {m.group('pred')}"
    m = _HOW_LONG_TAKE_RE.match(sentence)
    if m and not _has_verbish(m.group("np")) and not _NEW_CLAUSE_RE.search(m.group("np")):
        adv = m.group("adv") or ""
        verb = "takes" if m.group("aux") == "does" else m.group("aux") + adv + " take"
        adv = adv if m.group("aux") == "does" else ""
        return f"how long {m.group('np')}{adv} {verb}{m.group('rest')}"
    return None


def _possible_ops(masked: str, start: int, end: int, rng: random.Random) -> list[Op]:
    """ "Could we set up an account?" -> "Would it be possible to set up an account?": what the
    user may do asked as what is possible (a capitalised question; never with a second subject
    or question in it, never before "be"/"have"/"get" alone)."""
    sentence = masked[start:end]
    m = _COULD_WE_RE.match(sentence)
    if not m or _NEW_CLAUSE_RE.search(m.group("rest")) or _SECOND_ASK_RE.search(m.group("rest")):
        return []
    verb = m.group("verb")
    if verb in _VERBISH or verb in _data()["not_verbs"] or verb in _NOT_A_VERB or verb.endswith("ly"):
        return []
    if m.group("subj") == "I" and verb in ("get", "have"):
        return []  # "Can I get a X" asks for the thing: the framing rules reword it
    lead = rng.choice(_POSSIBLE_LEADS)
    return [("question:possible", [(start, end, f"{lead}{verb}{m.group('rest')}?")])]


_HAVE_TO_RE = re.compile(r"[Dd]o (?P<subj>I|you|we) have to (?=[a-z])")
"""A yes/no question about an obligation ("Do I have to bring my own hat ...")."""
_NEED_A_RE = re.compile(
    r"[Dd]o (?:(?P<you>you)|I|we) need (?P<np>(?:a|an) " + _PLAIN + r"(?: " + _PLAIN + r"){0,2}?)"
    r"(?= (?:to (?!(?:the|a|an|my|your|our|this|that|these|those|his|her|their)\b)|if|for|when|before)\b"
    r"|(?P<bare>)(?= or\b|\?))"
)
"""A yes/no question about what is needed, the thing named with "a"/"an" and followed by
its purpose or condition ("Do you need an official handicap to play X?", "Do I need a
permit if X?"). With "you" a purpose or condition must follow: "Do you need a hand?", "Do you
need a lift or shall I go?" offer help to the reader, never ask what is required; "to" opens a
purpose only before a verb ("Do I need a ticket to the museum?" is no "required to the museum")."""
_TAG_QUESTION_RE = re.compile(
    r",\s*(?:[a-z]+n't|(?:is|are|was|were|do|does|did|will|would|can|could|have|has)\s+not)\s+"
    r"(?:i|you|he|she|it|we|they|there)\s*\?",
    re.I,
)
"""A tag question ("..., don't you?", "..., isn't it?"): spoken, and out of place in a letter
(register); it echoes the opening auxiliary, so paraphrase never changes the opening words
under it ("Do I have to pay now, don't I?" is never "Am I required to pay now, don't I?")."""
_REQUIRED_SUBJECT = {"I": "Am I", "you": "Are you", "we": "Are we"}


def _required_ops(masked: str, start: int, end: int, rng: random.Random) -> list[Op]:
    """An obligation asked as a requirement, only the opening words changed: "Do I have to
    bring X or can I borrow one?" -> "Am I required to bring X or can I borrow one?"; "Do you
    need an official handicap to play X?" -> "Is an official handicap required to play X?"
    (a capitalised question, after a greeting too; never in a lower-case run-on, never when
    a word of the thing needed could be a verb)."""
    sentence = masked[start:end]
    if _lower_style(masked) or not sentence.endswith("?") or _TAG_QUESTION_RE.search(sentence):
        return []
    greet = _GREETING_RE.match(sentence)
    at = greet.end() if greet else 0
    m = _HAVE_TO_RE.match(sentence, at)
    if m:
        lead = _REQUIRED_SUBJECT[m.group("subj")] + " required to "
        lead = lead if not at else lead[0].lower() + lead[1:]
        return [("question:required", [(start + at, start + m.end(), lead)])]
    m = _NEED_A_RE.match(sentence, at)
    if m and m.group("you") and m.group("bare") is not None:
        return []  # "Do you need a hand?", "Do you need a break or ...": an offer to the reader
    if m and not _has_verbish(m.group("np")) and not _NEW_CLAUSE_RE.search(m.group("np")):
        new = f"Is {m.group('np')} required"
        new = new if not at else new[0].lower() + new[1:]
        return [("question:required", [(start + at, start + m.end(), new)])]
    return []


_ABLE_RE = re.compile(r"(?P<aux>Can|Could|can|could) you (?P<verb>[a-z]+)\b(?P<rest>[^?]*)(?P<q>\??)$")
_ABLE_LEADS = {
    "written": ("Would you be able to ", "Are you able to "),
    "lower": ("any chance you could ", "would you be able to "),
}


def _able_ops(masked: str, start: int, end: int, rng: random.Random) -> list[Op]:
    """ "Can you X?" asked as whether the helper is able to: "Can you cater for coeliacs?" ->
    "Would you be able to cater for coeliacs?" (a whole capitalised question, after a greeting
    or wake word too); in a lower-case run-on, its closing "can you X" -> "any chance you
    could X" ("... same as last year can you send someone out" -> "... any chance you could
    send someone out"). Never with a second subject or question after the verb, never before
    "tell"/"help" (their own framings), never after a question word ("how can you ...")."""
    sentence = masked[start:end]
    lower = _lower_style(masked)
    if lower:
        m = _ABLE_RE.search(sentence)
        if m and m.start() > 0 and sentence[: m.start()].split()[-1].lower() in _WH_WORDS:
            return []
        if m and m.start() > 0 and sentence[m.start() - 1] != " ":
            return []
    else:
        greet = _GREETING_RE.match(sentence)
        at = greet.end() if greet else 0
        m = _ABLE_RE.match(sentence, at) if sentence[at : at + 1].isupper() or at else None
        if m and not m.group("q"):
            return []
    # a written question keeps a clause of its own after "if"/"before"/... ("Can you dive if
    # you wear lenses?"): only the opening words change; a run-on keeps none
    second = _run_on_subject if not lower else _NEW_CLAUSE_RE.search
    if not m or second(m.group("rest")) or _SECOND_ASK_RE.search(m.group("rest")):
        return []
    verb = m.group("verb")
    if verb in _VERBISH or verb in _data()["not_verbs"] or verb in _NOT_A_VERB or verb in ("tell", "help"):
        return []
    if verb.endswith("ly"):
        return []  # an adverb ("Can you possibly ...")
    leads: tuple[str, ...] = _ABLE_LEADS["lower" if lower else "written"]
    if not lower and (m.start() > 0 or _asks_for_action(verb, m.group("rest"))):
        # "Are you able to" asks about ability: not for a request ("Can you chase it?") nor
        # to a device ("Hey Google, ...")
        leads = leads[:1]
    lead = rng.choice(leads)
    if not lower and m.start() > 0 and not sentence[m.start() - 2 : m.start()].endswith((". ", "? ", "! ")):
        lead = lead[0].lower() + lead[1:]  # "Alexa, would you be able to ..."
    a = start + m.start()
    return [("question:able", [(a, a + len(m.group("aux")) + len(" you ") + len(verb), lead + verb)])]


_ASKS_ALREADY = frozenset(
    "know tell ask asking wonder wondering wondered out see check me us exactly and or is was".split()
)
"""Words before a clipped ask that make it part of a longer question ("tell me how much")."""

_NOT_A_VERB = frozenset(
    "guys all both still maybe just really even actually kindly possibly perhaps also please not ever "
    "then now already definitely".split()
)
"""Words that may follow "Can you"/"Could we" without being its verb ("Can you guys ...",
"Could we maybe ...")."""

_WH_WORDS = frozenset("how what when where why who which whether if and or".split())

_LOWER_ASK_RULES = (
    (re.compile(r"^how much for\b"), ("what do you charge for",)),
    (re.compile(r"\bhow much and how long$"), ("what would it cost and how long would it take",)),
    (re.compile(r"(?<=\s)how much$"), ("how much would it cost", "what would it cost")),
    (re.compile(r"(?<=\s)what(?:'s|s| is) the price$"), ("how much would it cost", "what would it cost")),
)
"""Clipped price and time asks of a lower-case run-on, asked in full."""


_HOW_MUCH_TO_RE = re.compile(r"(?<![\w'])([Hh])ow much to (?=[a-z]+ [^?]*\?$)")
"""A clipped price question before a verb ("How much to translate a letter?")."""
_GOING_ON_RE = re.compile(
    r"(?P<what>What's|What is) (?P<rest>going on|happening)(?P<tail>(?: with [^?,;]+)?)\?$"
)
"""A closing "What's going on?" after a complaint."""
_LIKE_IT_DONE_RE = re.compile(
    r"(?P<lead>I'd like|I would like|I want) (?P<obj>it|them) "
    r"(?P<pp>[a-z]+(?:ed|en))\b(?P<rest>[^?!]*?)[.!]?$"
)
"""A wish for something to be done to a thing already named ("I'd like it rewashed")."""
_SOMETHING_YOU_CAN_RE = re.compile(
    r"Is (?P<what>this|that|it) something you (?:can|could) (?P<verb>[a-z]+)(?P<rest>(?: [a-z][^?,;]*)?)\?$"
)
"""Whether the helper can act on a thing named before ("Is this something you can fix
remotely?")."""
_DONE_LEADS = ("Could I have ", "Can I get ", "Could I get ")


_CAN_THEY_RES = tuple(
    re.compile(
        r"(?P<aux>[Cc]an|[Cc]ould) (?P<np>he|she|they|"
        r"(?:a|an|the|your|our|my) " + _PLAIN + more + r") (?P<verb>[a-z]+)\b(?P<rest>[^?,;]*)\?$"
    )
    for more in ("", " " + _PLAIN)
) + (
    re.compile(
        r"(?P<aux>Can|Could) (?P<np>[A-Z][a-z]+|[a-z]+|" + _VALUE + r") "
        r"(?P<verb>[a-z]+)\b(?P<rest>[^?,;]*)\?$"
    ),
)
"""A yes/no question about what a third party can do ("Can an engineer come out today?",
"Can he come back this week?", or a one-word subject with no determiner: "Can Priya do
Monday?", "Can dogs come in?"); "Can someone ...?" is :func:`_someone_ops`'s."""
_NOT_BARE_SUBJECT = frozenset(
    "i you we it this that these those there someone somebody anyone anybody everyone everybody one".split()
)
"""Words after "Can" that are no third party named bare: pronouns have their own rules."""
_BARE_VERBS = frozenset({"go", "do"})
"""Verbs that follow a one-word subject with no determiner besides the known action verbs
("Can laminate go over tiles?", "Can Priya do Monday?")."""
_OBJECT_FORM = {"he": "him", "she": "her", "they": "them"}
_CAN_THEY_LEADS = ("Would it be possible for ", "Is it possible for ")
_ANY_RE = re.compile(r"(?P<any>Any) (?P<noun>update|updates|news|word|progress|sign)\b(?P<rest>[^?,;]*)\?$")
"""A verbless question after a complaint ("Any update on gallery G-3317?")."""


_LOWER_CAN_THEY_RE = re.compile(
    r"(?<![\w'])can (?P<np>someone|somebody|anyone|anybody|he|she|they|(?:the|your|my|our) [a-z]+) "
    r"(?P<verb>[a-z]+)\b(?P<rest>.*)$"
)
"""A casual run-on's "can someone come ..." / "can the driver pick me up ..."."""
_URGENT_RE = re.compile(r"\b(?:asap|urgent|urgently|emergency|immediately|right now|right away)\b", re.I)
"""An urgent request: never softened into "any chance someone could ..."."""


def _lower_third_party_ops(masked: str, start: int, end: int, rng: random.Random) -> list[Op]:
    """In a lower-case run-on, "can someone/the X VERB ..." asked casually: "any chance someone
    could VERB ...", "is it possible for someone to VERB ..." (only the opening words change, the
    rest stays as typed; never after a question word, never in an urgent request, never with a
    second question joined on)."""
    sentence = masked[start:end]
    m = _LOWER_CAN_THEY_RE.search(sentence)
    if not m or _URGENT_RE.search(masked) or _SECOND_ASK_RE.search(m.group("rest")) or "?" in sentence:
        return []
    before = sentence[: m.start()].split()
    if before and (before[-1].lower() in _WH_WORDS or before[-1].lower() in _ASKS_ALREADY):
        return []
    verb, np = m.group("verb"), m.group("np")
    if not (verb in _ACTIVE_VERBS or verb in _data()["action_verbs"]) or _has_verbish(np):
        return []
    a = start + m.start()
    b = start + m.start("verb")
    new = rng.choice((f"any chance {np} could ", f"is it possible for {_OBJECT_FORM.get(np, np)} to "))
    return [("question:possible", [(a, b, new)])]


def _third_party_ops(masked: str, start: int, end: int, rng: random.Random) -> list[Op]:
    """ "Can an engineer come out today?" -> "Would it be possible for an engineer to come out
    today?" (a capitalised question whose verb is a known action or coming-round verb; never
    with a second subject or question in the rest); "Any update on X?" -> "Do you have any
    update on X?", "Is there any update on X?"."""
    if _lower_style(masked):
        return _lower_third_party_ops(masked, start, end, rng)
    sentence = masked[start:end]
    greet = _GREETING_RE.match(sentence)
    at = greet.end() if greet and not _WAKE_RE.match(sentence) else 0
    for rx in _CAN_THEY_RES:  # a one-word noun first ("an engineer | come out"), then two
        m = rx.match(sentence, at)
        if not m:
            continue
        verb, np = m.group("verb"), m.group("np")
        known = verb in _ACTIVE_VERBS or verb in _data()["action_verbs"]
        bare = m.re is _CAN_THEY_RES[-1] and np not in _OBJECT_FORM
        if bare:  # one word, no determiner: a name or a plural/mass noun, never a pronoun
            known = (known or verb in _BARE_VERBS) and np.lower() not in _NOT_BARE_SUBJECT
            known = known and np.lower() not in _VERBISH and np.lower() not in _data()["not_verbs"]
            # "Can Friday work?", "Can 5pm work?": a bare time or plan "works" for the reader
            # (suits), never "for Friday to work"
            known = known and verb != "work"
        if (
            known
            and not _has_verbish(np)
            and not _NEW_CLAUSE_RE.search(m.group("rest"))
            and not _SECOND_ASK_RE.search(m.group("rest"))
            and not _compound_subject(f"{verb}{m.group('rest')}")
        ):
            who = _OBJECT_FORM.get(np, np)
            lead = rng.choice(_CAN_THEY_LEADS)
            lead = lead if not at else lead[0].lower() + lead[1:]
            new = f"{lead}{who} to {verb}{m.group('rest')}?"
            return [("question:possible", [(start + at, end, new)])]
    m = _ANY_RE.match(sentence, at)
    if m and not _NEW_CLAUSE_RE.search(m.group("rest")):
        noun = m.group("noun")
        leads = ["Do you have any "] + ([] if noun.endswith("s") else ["Is there any "])
        lead = rng.choice(leads)
        lead = lead if not at else lead[0].lower() + lead[1:]
        return [("question:direct", [(start + at, end, f"{lead}{noun}{m.group('rest')}?")])]
    return []


def _clipped_question_ops(masked: str, start: int, end: int, rng: random.Random) -> list[Op]:
    """Three more ways to ask the same thing: "How much to translate a letter?" -> "What would
    it cost to translate a letter?" (after a wake word too); "What's going on?" after a
    complaint -> "Could you tell me what's going on?"; "I'd like it rewashed at no charge." ->
    "Could I have it rewashed at no charge?" (never with a second subject after it)."""
    sentence = masked[start:end]
    m = _HOW_MUCH_TO_RE.search(sentence)
    if m and (m.start() == 0 or _GREETING_RE.match(sentence[: m.start()] + " ")):
        new = rng.choice(("hat would it cost to ", "ow much would it cost to "))
        first = ("w" if m.group(1) == "h" else "W") if new[0] == "h" else m.group(1)
        a = start + m.start()
        return [("question:direct", [(a, a + len(m.group()), first + new)])]
    m = _GOING_ON_RE.match(sentence)
    if m and start > 0:
        lead, stop = rng.choice(_ASK_LEADS)
        clause = f"what's {m.group('rest')}{m.group('tail')}"
        return [("question:indirect", [(start, end, f"{lead}{clause}{stop}")])]
    m = _SOMETHING_YOU_CAN_RE.match(sentence)
    if m and start > 0 and not _NEW_CLAUSE_RE.search(m.group("rest")) and _service_verb(m.group("verb")):
        # "Is this something you can fix remotely?" -> "Can you fix this remotely?" (after what
        # "this" points to, never as a message's only sentence)
        lead = rng.choice(("Can you ", "Would you be able to "))
        new = f"{lead}{m.group('verb')} {m.group('what').lower()}{m.group('rest')}?"
        return [("question:direct", [(start, end, new)])]
    m = _LIKE_IT_DONE_RE.match(sentence)
    if m and not _lower_style(masked) and not _NEW_CLAUSE_RE.search(m.group("rest")):
        rest = m.group("rest").rstrip()
        rest = rest[:-1] if rest.endswith(",") else rest
        new = f"{rng.choice(_DONE_LEADS)}{m.group('obj')} {m.group('pp')}{rest}?"
        return [("framing:mood", [(start, end, new)])]
    return []


def _lower_ask_ops(masked: str, start: int, end: int, rng: random.Random) -> list[Op]:
    """A lower-case run-on's clipped ask put in full: "how much for 3 shirts ..." -> "what do
    you charge for 3 shirts ...", "... need treatment asap how much" -> "... how much would it
    cost", "... whats the price" -> "... what would it cost", "... how much and how long" ->
    "... what would it cost and how long would it take"."""
    if not _lower_style(masked):
        return []
    sentence = masked[start:end]
    for rx, targets in _LOWER_ASK_RULES:
        m = rx.search(sentence)
        if m and sentence[: m.start()].split()[-1:] and sentence[: m.start()].split()[-1] in _ASKS_ALREADY:
            return []  # "i need to know how much" is asked already: never "know how much would it cost"
        if m:
            a = start + m.start()
            return [("question:ask", [(a, start + m.end(), rng.choice(targets))])]
    return []


def _more_question_ops(
    masked: str, start: int, end: int, rng: random.Random, leads: Sequence[Sequence[str]] = _ASK_LEADS
) -> list[Op]:
    """Questions the shared indirect-question rules leave alone, asked another way (paraphrase
    only; a capitalised question with its "?"): "Where is it?" -> "Could you tell me where it
    is?", "Why is my mailbox full?" -> "... why my mailbox is full", "Has my refund been
    processed yet?" -> "... whether my refund has been processed yet", "Am I on the list?" ->
    "... whether I'm on the list", "Does my plan include roaming?" -> "... whether my plan
    includes roaming", "How much is a flu jab if I walk in?" -> "What does a flu jab cost if I
    walk in?"."""
    sentence = masked[start:end]
    if _lower_style(sentence) or not sentence.endswith("?") or _OR_ASK_RE.search(sentence):
        return []
    m = _HOW_MUCH_RE.match(sentence)
    if m and not _SECOND_ASK_RE.search(sentence):  # never "What does X and cost when does Y start?"
        np = m.group("np1") or m.group("np2")
        if not _has_verbish(np) and not set(np.split()) & _AMOUNT_NOUNS:
            return [("question:direct", [(start, end, f"What does {np} cost{m.group('rest')}?")])]
    lead, stop = rng.choice(list(leads))
    clause = _pronoun_question_clause(sentence)
    if clause is not None:
        return [("question:indirect", [(start, end, f"{lead}{clause}{stop}")])]
    still, do_you = _STILL_ING_RE.match(sentence), _DO_YOU_RE.match(sentence)
    if _NEW_CLAUSE_RE.search(sentence[3:]) and not (
        _round10_clause(sentence) is not None  # its subject's end is marked: "When is it being …"
        or _pronoun_be_clause(sentence) is not None  # a pronoun subject: "Is that X?"
        or _AM_I_RE.match(sentence)
        or _PRONOUN_WH_RE.match(sentence)
        or (still and not _NEW_CLAUSE_RE.search(still.group("rest")))
        or (do_you and not _NEW_CLAUSE_RE.search(do_you.group("rest")))
    ):
        return []  # a second subject: a clause of its own that the rewording could strand
    clause = (
        _plain_question_clause(sentence)
        or _round9_clause(sentence)
        or _round10_clause(sentence)
        or _pronoun_be_clause(sentence)
    )
    m = _PRONOUN_WH_RE.match(sentence)
    if m:
        clause = f"{m.group('wh').lower()} {m.group('np')} {m.group('aux')}"
    m = _WHY_ADJ_RE.match(sentence)
    if m and not _has_verbish(m.group("np") + " " + m.group("adj")):
        clause = f"why {m.group('np')} {m.group('aux')} {m.group('adj')}"
    m = _HAS_BEEN_RE.match(sentence)
    if m and not _has_verbish(m.group("np")):
        clause = f"whether {m.group('np')} {m.group('aux').lower()} been {m.group('rest')}"
    m = _AM_I_RE.match(sentence)
    if (
        m
        and not _NEW_CLAUSE_RE.search(m.group("rest"))
        and not _has_verbish(m.group("rest").split(" ", 1)[0])
    ):
        subject = "I'm" if m.group("aux") == "Am I" else "we're"
        clause = f"whether {subject} {m.group('rest')}"
    m = _DOES_RE.match(sentence) or _DO_PLURAL_RE.match(sentence)
    if m:
        words = m.group("np").split(" ")
        # the verb is the first word after the subject that is a known verb, with no other
        # verb right after it ("Does the photo book include X": never "the photo" + "book")
        splits = [
            i
            for i in range(2, min(len(words), 5))
            if words[i] in _DOES_VERBS and not (i + 1 < len(words) and words[i + 1] in _DOES_VERBS)
        ]
        if len(splits) == 1 and not _has_verbish(" ".join(words[: splits[0]])):
            i = splits[0]
            more = " ".join(words[i + 1 :])
            # "Does the plan include X" -> "whether the plan includes X"; "Do your cleaners
            # bring X" -> "whether your cleaners bring X"
            verb = third_person(words[i]) if m.re is _DOES_RE else words[i]
            clause = f"whether {' '.join(words[:i])} {verb}" + (f" {more}" if more else "")
    if clause is not None:
        if re.search(r"\byour?\b", clause) and lead.lower().startswith("do you know"):
            # never "Do you know whether you pierce ...", "Do you know which of your gins ...":
            # the helper is asked about itself
            lead, stop = "Could you tell me ", "?"
        return [("question:indirect", [(start, end, f"{lead}{clause}{stop}")])]
    return []


_PREP = (
    r"(?:at|in|on|of|for|to|from|during|after|before|by|near|with|without|when|if|this|next|today|tonight)"
)
_NP_SHORT = r"(?:the|my|our|your|this|that|these|those|his|her|their)(?: " + _NOUN + r"){1,2}"
_WHERE_IS_RE = re.compile(r"(?P<wh>Where|When)(?:'s| is) (?P<np>" + _NP_SHORT + r")\?$")
"""A wh-question about where or when a thing is ("Where's my wine order?")."""
_HOW_ADJ_RE = re.compile(
    r"How (?P<adj>deep|long|big|far|wide|high|tall|heavy|busy|old|warm|cold|hot|strong|safe|accurate) "
    r"(?P<aux>is|are) (?P<np>" + _NP_SHORT + r")(?P<rest>(?: " + _PREP + r"\b[^?,;]*)?)\?$"
)
"""How big, deep or busy a thing is ("How deep is the water at the harbour mouth?"): the
verb goes after the subject, before its place or time."""
_HAS_DONE_RE = re.compile(
    r"(?P<aux>Has|Have) (?P<np>anyone|anybody|someone|somebody|something|anything|it|they|"
    + _NP_SHORT
    + r") (?P<adv>(?:already|ever|actually) )?(?P<pp>[a-z]+(?:ed|en|t))(?P<rest>(?: [^?,;]*)?)\?$"
)
"""A yes/no question in the present perfect ("Has anyone looked at it yet?", "Has something
happened?")."""
_STILL_ING_RE = re.compile(
    r"(?P<aux>Is|Are) (?P<np>he|she|they|it|this|that|" + _NP_SHORT + r") (?P<adv>(?:still|already|now) )?"
    r"(?P<verb>[a-z]+ing)\b(?P<rest>[^?,;]*)\?$"
)
"""A yes/no question about what someone is doing ("Is he still coming?"), or whether a thing
named before is going on ("Is that still happening?")."""
_AFTER_ING_VERB = frozenset(
    "to for at in on by with from into onto up out back over round around down off through about "
    "today tomorrow tonight now soon later again this next the a an my your our his her their it them "
    "me us him any some as before after until till when if".split()
)
"""Closed-class words (prepositions, particles, time adverbs, determiners, pronouns) that may
follow an "-ing" verb: "Is he coming | back", "Is the engineer coming | at 9". A plain word
there makes the "-ing" word part of a noun phrase ("Is the Saturday morning | class …")."""


def _ing_is_verb(rest: str) -> bool:
    """The words after an "-ing" word read it as a verb: nothing follows, a closed-class word
    does (see :data:`_AFTER_ING_VERB`) or a protected value ("coming <today>")."""
    words = rest.split()
    return not words or words[0].lower() in _AFTER_ING_VERB or words[0].startswith("\ue000")


_WHICH_OF_RE = re.compile(
    r"Which of (?P<np>(?:your|the|these|those|our) " + _NOUN + r"(?: " + _NOUN + r")?) "
    r"(?P<aux>is|are) (?P<pred>[^?,;]+)\?$"
)
"""A question whose subject is the question word ("Which of your gins are gluten free?"):
asked indirectly in the same order."""
_DO_YOU_RE = re.compile(
    r"Do you (?P<verb>[a-z]+)(?P<rest> [^?,;]+)(?P<alt>, or (?:just |only )?[a-z]+(?: [a-z]+){0,3})?\?$"
)
"""A yes/no question about what the business does ("Do you pierce ears on under-16s?"), maybe
with another thing it might do instead, without a subject of its own ("Do you fit X as well,
or just sweep?": one question, so "whether you fit X as well, or just sweep")."""
_NOT_SERVICE = frozenset(
    "think know mind want need like remember mean see feel believe agree reckon suppose guess understand "
    "care hear love prefer expect wish hope happen realise realize recall get have".split()
)
"""Verbs after "Do you" that ask what the helper thinks, knows or wants, not what it does."""


def _service_verb(word: str) -> bool:
    """``word`` after "Do you" names something a business does (not a thought, a wish, an
    adverb or a filler)."""
    return not (
        word in _NOT_SERVICE
        or word in _VERBISH
        or word in _NOT_A_VERB
        or word in _data()["not_verbs"]
        or word.endswith("ly")
    )


_IS_DONE_RE = re.compile(
    r"(?P<aux>Is|Are) (?P<np>" + _NP_SHORT.replace("{1,2}", "{1,2}?") + r") "
    r"(?P<pred>(?:[A-Z][a-z]+ ){0,2}(?:still |already |now |usually |properly |fully )?[a-z]+ed\b[^?,;]*)\?$"
)
"""A yes/no question in the passive ("Are your engineers Gas Safe registered?", "Is my car
booked in?")."""
_CERTIFYING_PARTICIPLES = frozenset(
    "tested certified checked approved rated registered accredited inspected vetted insured licensed "
    "trained qualified proofed treated sealed marked serviced cleaned".split()
)
"""Participles that a noun before them may modify ("safety tested", "gas certified", "PAT
tested"): the noun may end the subject or open the predicate."""


def _participle_subject(aux: str, np: str, pred: str) -> tuple[str, str] | None:
    """The subject and the predicate of a passive yes/no question ("Are your X tested?"), with a
    noun + participle compound ("safety tested", "PAT tested") kept in the predicate: after a
    plural subject with "are" the singular word before the participle is the compound's ("your
    inflatables | safety tested"), as is an acronym ("the heater | PAT tested"). None (refused)
    where the subject's end cannot be found: "Is the boiler gas certified?" may be "the boiler
    | gas certified" or "the boiler gas | certified"."""
    words = np.split(" ")
    last = words[-1]
    if len(words) < 3 or not re.fullmatch(r"[a-z]+|[A-Z]{2,}", last):
        return np, pred
    head = " ".join(words[:-1])
    if last.isupper() or (aux.lower() == "are" and words[-2].endswith("s") and not last.endswith("s")):
        return head, f"{last} {pred}"
    if pred.split(" ", 1)[0] in _CERTIFYING_PARTICIPLES:
        return None
    return np, pred


_WILL_RE = re.compile(
    r"Will (?P<np>" + _NP_SHORT + r"|[a-z]+s) (?P<adv>(?:still|also|really|even|actually) )?"
    r"(?P<verb>[a-z]+)\b(?P<rest>[^?,;]*)\?$"
)
"""A yes/no question about what a thing will do ("Will panels still work on a north-facing
roof?")."""
_WH_DID_RES = tuple(
    re.compile(
        r"(?P<wh>How (?:much|many)(?: [a-z]+)?|What time|When|Where|Why) did "
        r"(?P<np>(?:the|my|our|your|this|that|these|those|his|her|their) " + _NOUN + more + r") "
        r"(?P<verb>[a-z]+)\b(?P<rest>[^?,;]*)\?$"
    )
    for more in ("", " " + _NOUN)
)
"""A wh-question in the past ("How much power did my solar panels make yesterday?")."""
_IRREGULAR_PAST = {
    "make": "made",
    "take": "took",
    "get": "got",
    "give": "gave",
    "send": "sent",
    "go": "went",
    "come": "came",
    "leave": "left",
    "pay": "paid",
    "say": "said",
    "buy": "bought",
    "bring": "brought",
    "put": "put",
    "cost": "cost",
    "set": "set",
    "find": "found",
    "tell": "told",
    "do": "did",
    "have": "had",
    "see": "saw",
    "spend": "spent",
    "break": "broke",
    "lose": "lost",
}


def past_tense(verb: str) -> str | None:
    """``verb`` in the simple past ("make" -> "made", "charge" -> "charged", "carry" ->
    "carried"), or None when the spelling is unsure (a short verb whose last consonant may
    double: "stop", "plan")."""
    if verb in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[verb]
    if verb.endswith("e"):
        return verb + "d"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ied"
    if re.search(r"(?:^|[^aeiou])[aeiou][^aeiouwxy]$", verb):
        return None
    return verb + "ed"


_NOT_PARTICIPLE = frozenset(
    "need seed speed feed bed shed red bleed breed greed weed want sent spent".split()
)


_TIME_TAIL_RE = re.compile(
    r"^(?P<head>.+?) (?P<tail>(?:this|next|last) (?:week|weekend|month|year|morning|afternoon|evening)"
    r"|today|tonight|tomorrow(?: morning| afternoon| evening| night)?|so far|right now|now|at the moment)$"
)
"""A time adverb closing a question's subject ("the bin collection | this week", "my workout |
so far"): it is no part of the subject."""


def be_before_time(np: str, aux: str) -> str:
    """``np`` with the verb ``aux`` put back after its subject and before a closing time adverb:
    "the bin collection this week" + "is" -> "the bin collection is this week" (never "the bin
    collection this week is"); "my workout so far" -> "my workout is so far"."""
    m = _TIME_TAIL_RE.match(np)
    if m is None:
        return f"{np} {aux}"
    return f"{m.group('head')} {aux} {m.group('tail')}"


def _is_placed(np: str) -> str | None:
    """A question's subject with "is" put back: before a progressive verb that ends the subject
    ("the kitchen fitter | coming on Monday" -> "the kitchen fitter is coming on Monday", by
    :data:`_PROG_IN_NP_RE`, as for "When is ...?"), else after it ("my wine order is"). Never
    "when the kitchen fitter coming on Monday is": None (refused) where an -ing word that may be
    the verb ends the question ("When's the plumber coming?" — or is it "the teeth whitening?"),
    since either place for "is" may be wrong. After a preposition ("the price of teeth
    whitening", "the plan for the wiring") an -ing word names a thing: "is" goes last. An -ing
    word whose subject end the rule cannot find ("the plumber fixing the tap") is refused."""
    prog = _PROG_IN_NP_RE.search(np)
    if prog is None and _ING_IN_NP_RE.search(np) and not _PREP_IN_SUBJECT_RE.search(np):
        return None  # "the plumber fixing the tap": where the subject ends is not known
    if prog is None or _PREP_IN_SUBJECT_RE.search(np[: prog.start()]):
        return be_before_time(np, "is")
    if not np[prog.end() :].strip().partition(" ")[2]:
        return None
    return f"{np[: prog.start()]} is{np[prog.start() :]}"


_PREP_IN_SUBJECT_RE = re.compile(r" (?:of|for|on|at|in|with|from|to|about) ")
"""A preposition inside a question's subject before an -ing word ("the price of | teeth
whitening"): the -ing word names a thing."""


def _round9_clause(sentence: str) -> str | None:
    """The indirect clause for a kind of question the rules above leave alone, or None: "Where's
    my wine order?" -> "where my wine order is"; "How deep is the water at X?" -> "how deep the
    water is at X"; "Has anyone looked at it yet?" -> "whether anyone has looked at it yet";
    "Is he still coming?" -> "whether he is still coming"; "Which of your gins are gluten
    free?" -> "which of your gins are gluten free". Never with a second subject or question in
    the rest."""
    m = _WHERE_IS_RE.match(sentence)
    placed = _is_placed(m.group("np")) if m else None
    if m and not _has_verbish(m.group("np")):
        return f"{m.group('wh').lower()} {placed}" if placed else None
    m = _HOW_ADJ_RE.match(sentence)
    if m and not _has_verbish(m.group("np")) and not _SECOND_ASK_RE.search(m.group("rest")):
        return f"how {m.group('adj')} {m.group('np')} {m.group('aux')}{m.group('rest')}"
    m = _HAS_DONE_RE.match(sentence)
    if (
        m
        and not _has_verbish(m.group("np"))
        and m.group("pp") not in _NOT_PARTICIPLE
        and not _SECOND_ASK_RE.search(m.group("rest"))
    ):
        adv = m.group("adv") or ""
        return f"whether {m.group('np')} {m.group('aux').lower()} {adv}{m.group('pp')}{m.group('rest')}"
    m = _STILL_ING_RE.match(sentence)
    if (
        m
        and not _has_verbish(m.group("np"))
        and not _SECOND_ASK_RE.search(m.group("rest"))
        and _ing_is_verb(m.group("rest"))
        # "Is this thing on?", "Is that building open?": after a bare "this"/"that" an "-ing"
        # word is a verb only behind "still"/"already"/"now" ("Is that still happening?")
        and (m.group("adv") or m.group("np") not in _DEMONSTRATIVES)
    ):
        adv = m.group("adv") or ""
        return f"whether {m.group('np')} {m.group('aux').lower()} {adv}{m.group('verb')}{m.group('rest')}"
    m = _IS_DONE_RE.match(sentence)
    split = _participle_subject(m.group("aux"), m.group("np"), m.group("pred")) if m else None
    if m and split and not _has_verbish(split[0]) and not _SECOND_ASK_RE.search(split[1]):
        return f"whether {split[0]} {m.group('aux').lower()} {split[1]}"
    m = _WILL_RE.match(sentence)
    if (
        m
        and (m.group("verb") in _ACTIVE_VERBS or m.group("verb") in _data()["action_verbs"])
        and not _has_verbish(m.group("np"))
        and not _SECOND_ASK_RE.search(m.group("rest"))
        and not _compound_subject(m.group("verb") + m.group("rest"))
    ):
        adv = m.group("adv") or ""
        return f"whether {m.group('np')} will {adv}{m.group('verb')}{m.group('rest')}"
    for rx in _WH_DID_RES:  # a one-word noun first ("my parcel | leave"), then two
        m = rx.match(sentence)
        verb = m.group("verb") if m else ""
        known = verb in _IRREGULAR_PAST or verb in _ACTIVE_VERBS or verb in _data()["action_verbs"]
        past = past_tense(verb) if m and known else None
        if m and past and not _has_verbish(m.group("np")) and not _SECOND_ASK_RE.search(m.group("rest")):
            return f"{m.group('wh').lower()} {m.group('np')} {past}{m.group('rest')}"
    m = _DO_YOU_RE.match(sentence)
    if (
        m
        and _service_verb(m.group("verb"))
        and not _NEW_CLAUSE_RE.search(m.group("rest"))
        and not _SECOND_ASK_RE.search(m.group("rest"))
        and not _LATER_ASK_RE.search(m.group("rest"))
        and not _LATER_ASK_RE.search(m.group("alt") or "")
        and not _has_verbish(m.group("alt") or "")
    ):
        return f"whether you {m.group('verb')}{m.group('rest')}{m.group('alt') or ''}"
    m = _WHICH_OF_RE.match(sentence)
    if m and not _has_verbish(m.group("np")) and not _SECOND_ASK_RE.search(m.group("pred")):
        return f"which of {m.group('np')} {m.group('aux')} {m.group('pred')}"
    return None


# Round ten: rules about the grammatical shape of a sentence, not its words.
_R10_NP = (
    r"(?:(?:the|my|our|your|his|her|their|this|that|these|those|a|an) (?:[A-Za-z][A-Za-z'-]*|" + _VALUE + r")"
    r"(?: (?:[A-Za-z0-9][A-Za-z0-9'-]*|" + _VALUE + r")){0,6}?|it|they|he|she)"
)
"""A subject whose end the next word marks (a "be" after a modal, "being" or "going to"):
a determiner and up to seven words, or a third-person pronoun."""
_WH10 = r"(?P<wh>When|Where|What time|How long|How soon|Why|What)"
_WH_MODAL_BE_RE = re.compile(
    _WH10 + r" (?P<aux>will|would|could|should|might) (?P<np>" + _R10_NP + r") be (?P<rest>[a-z][^?,;]*)\?$"
)
"""A wh-question whose verb is "be" after a modal ("When will my bowl from the Tuesday class be
ready?"): "be" marks where the subject ends, so the modal goes there ("when my bowl from the
Tuesday class will be ready") for any subject."""
_WH_BEING_RE = re.compile(
    _WH10
    + r"(?:(?:'s| is) (?P<np>"
    + _R10_NP
    + r")| are (?P<pl>"
    + _R10_NP
    + r"|you|we)) (?P<verb>being|going to) (?P<rest>[a-z][^?,;]*)\?$"
)
"""A wh-question in the progressive passive or with "going to" ("When is my skip being
collected?", "When is it going to be fixed?"): "being"/"going to" marks the subject's end."""
_WHERE_NP_RE = re.compile(r"(?P<wh>Where|When)(?:'s| is) (?P<np>" + _R10_NP + r")\?$")
"""Where or when a thing is, its subject ending the question ("Where's my curtain order
<number>?"): nothing follows the subject, so any subject reads "where my … is"."""
_TO_VERB_RE = re.compile(r"\bto [a-z]")
"""An infinitive in a subject ("the best time to prune roses"): "when the best time to prune
roses is" ends on a stranded verb, so such a subject is left alone."""
_IS_LONG_NP_RE = re.compile(
    r"(?P<aux>Is|Are) (?P<np>" + _R10_NP + r") (?P<pred>(?:still |currently |usually |really )?"
    r"(?:" + _PLAIN_ADJ + r"|safe|[a-z]+(?:able|ible)|[a-z]+-(?:free|proof|friendly|safe))\b[^?,;]*)\?$"
)
"""A yes/no question with a plain predicate after a longer subject ("Is the beginners' course
on Thursday nights suitable for X?"): the first predicate adjective (a plain one, "safe", an
"-able"/"-ible" word, a "-free"/"-proof"/"-friendly" compound) marks the subject's end."""
_WH_SUBJECT_MODAL_RE = re.compile(
    r"(?P<wh>What|Who) (?P<aux>can|can't|cannot|could|will|won't|would|should|shouldn't|might) "
    r"(?P<verb>[a-z]+)(?P<rest>[^?,;]*)\?$"
)
"""A wh-question whose question word is the subject ("What can't go into a recycling bin?",
"Who will clear the rubble?"): nothing to invert; the clause is asked as it stands."""
_NOT_BARE_VERB = frozenset(
    "i you we they he she it the my our your his her their this that these those a an there "
    "someone somebody anyone anybody not never also still really just".split()
)
"""Words after "What can" that start a subject or modify the verb: "What can I do" is not a
question whose subject is "what"."""


def _asks_on(rest: str) -> bool:
    """The rest of a question holds a second question or a second subject ("… and how much is
    it", "… and roughly what would it cost", "… if I cancel"): asked indirectly, it could
    strand either."""
    return bool(_SECOND_ASK_RE.search(rest) or _LATER_ASK_RE.search(rest) or _NEW_CLAUSE_RE.search(rest))


def _round10_clause(sentence: str) -> str | None:
    """The indirect clause for a question whose subject's end is marked by its grammar, or
    None: "When will my bowl be ready?" -> "when my bowl will be ready"; "When is my skip being
    collected?" -> "when my skip is being collected"; "What can't go into a skip?" -> "what
    can't go into a skip". Never with a second question joined on."""
    m = _WH_MODAL_BE_RE.match(sentence)
    if m and not _has_verbish(m.group("np")) and not _asks_on(m.group("rest")):
        return f"{m.group('wh').lower()} {m.group('np')} {m.group('aux')} be {m.group('rest')}"
    m = _WH_BEING_RE.match(sentence)
    np = (m.group("np") or m.group("pl")) if m else ""
    if m and not _has_verbish(np) and not _asks_on(m.group("rest")):
        aux = "are" if m.group("pl") else "is"
        return f"{m.group('wh').lower()} {np} {aux} {m.group('verb')} {m.group('rest')}"
    m = _WHERE_NP_RE.match(sentence)
    if (
        m
        and not _has_verbish(m.group("np"))
        and not _asks_on(m.group("np"))
        and not _TO_VERB_RE.search(m.group("np"))
    ):
        placed = _is_placed(m.group("np"))
        return f"{m.group('wh').lower()} {placed}" if placed else None
    m = _IS_LONG_NP_RE.match(sentence)
    # a subject with a clause of its own ("the paint you sell") stays a direct question (round seven)
    if m and not _has_verbish(m.group("np")) and not _asks_on(m.group("np") + " " + m.group("pred")):
        return f"whether {m.group('np')} {m.group('aux').lower()} {m.group('pred')}"
    m = _WH_SUBJECT_MODAL_RE.match(sentence)
    if (
        m
        and m.group("verb") not in _NOT_BARE_VERB
        and not m.group("verb").endswith("ly")
        and not _asks_on(m.group("rest"))
    ):
        return f"{m.group('wh').lower()} {m.group('aux')} {m.group('verb')}{m.group('rest')}"
    return None


_PRICE_WH_RE = re.compile(
    r"(?<![\w'])(?P<wh>[Ww]hat|[Hh]ow much) (?P<aux>would|will|does|do|did|might) "
    r"(?P<np>[^?,;.!]{1,60}?) cost(?![\w'’])(?P<rest>[^?.!]*)(?P<end>\?|$)"
)
"""A price question asked with "what" or "how much" and the verb "cost" ("Roughly what would
a new gutter cost?"): either question word asks the same."""


def _asked_parts(sentence: str) -> list[tuple[int, int]]:
    """The stretches of ``sentence`` a price question can fill: each part that ends at a "?"
    and the part after the last "?", "." or "!". A question read only inside its part is read
    once, never again from every "what" before a full stop ("what would it cost and what would
    it cost and ... ." was quadratic)."""
    parts, a = [], 0
    for m in re.finditer(r"[?.!]", sentence):
        if m.group() == "?":
            parts.append((a, m.end()))
        a = m.end()
    return [*parts, (a, len(sentence))]


def _price_wh_ops(masked: str, start: int, end: int) -> list[Op]:
    """ "What would X cost?" <-> "How much would X cost?": the question word of a price question
    swapped in place (any subject; never when a second question is joined on, never when the
    subject holds a verb of its own)."""
    sentence = masked[start:end]
    m = next(filter(None, (_PRICE_WH_RE.search(sentence, a, b) for a, b in _asked_parts(sentence))), None)
    if not m or _has_verbish(m.group("np")) or _NEW_CLAUSE_RE.search(m.group("np")):
        return []
    if _SECOND_ASK_RE.search(sentence) or _OR_ASK_RE.search(sentence):
        return []
    wh = m.group("wh")
    new = {"what": "how much", "how much": "what"}[wh.lower()]
    if wh[0].isupper():
        new = new[0].upper() + new[1:]
    a = start + m.start("wh")
    return [("question:price_word", [(a, a + len(wh), new)])]


_STILL_PERFECT_RE = re.compile(
    r"(?<=[A-Za-z0-9\ue001] )still (?P<aux>hasn't|haven't|has not|have not) "
    r"(?P<pp>[a-z]+(?:ed|en|wn|ne|t|d|ung|un|me))(?P<rest>(?: [a-z0-9\ue000][^.!?,;]*?)?)(?P<end>\.)$"
)
_YET_PERFECT_RE = re.compile(
    r"(?<=[A-Za-z0-9\ue001] )(?<!\b[Ss]till )(?P<aux>hasn't|haven't|has not|have not) "
    r"(?P<pp>[a-z]+(?:ed|en|wn|ne|t|d|ung|un|me))(?P<rest>(?: [a-z0-9\ue000][^.!?,;]*?)?) yet(?P<end>\.)$"
)
_NOT_IN_YET_CLAUSE = re.compile(
    r"\b(?:since|and|but|or|because|so|when|while|after|before|until|though|although|yet|ever|for over|"
    r"for (?:a|an|two|three|four|five|six|several|\d+) \w+|i|we|he|she|they)\b|\b(?:for|in|over) \ue000"
)
"""A clause after the participle that "yet" cannot follow: a time span ("since Monday", "for
two weeks" reads with "still", a protected duration too), a second clause or a second
subject."""


def _still_yet_ops(masked: str, start: int, end: int) -> list[Op]:
    """A complaint that something has not happened, in the present perfect: "X still hasn't been
    fired." <-> "X hasn't been fired yet." (the same aspect: "still" before the negated
    auxiliary and "yet" at the clause's end say the same). Only at the end of a written sentence
    with its full stop, never with a time span or a second clause after the participle."""
    sentence = masked[start:end]
    # the clause runs to the closing full stop with no other mark, so only the words after the
    # last mark before it are read (once: every "hasn't" before a comma was read to the end)
    body = sentence[:-1] if sentence.endswith("\n") else sentence
    if not body.endswith("."):
        return []
    after_mark = max(body.rfind(c, 0, len(body) - 1) for c in ".!?,;") + 1
    for rx, still in ((_STILL_PERFECT_RE, True), (_YET_PERFECT_RE, False)):
        if not still and not body.endswith(" yet."):
            continue  # no "yet" to move: never read every "hasn't" to the end
        m = rx.search(sentence, after_mark)
        if not m or _NOT_IN_YET_CLAUSE.search(m.group("rest")) or m.group("pp") in _VERBISH - {"been"}:
            continue
        clause = f"{m.group('aux')} {m.group('pp')}{m.group('rest')}"
        new = f"{clause} yet{m.group('end')}" if still else f"still {clause}{m.group('end')}"
        return [("structure:still_yet", [(start + m.start(), end, new)])]
    return []


_FOR_ME_VERBS = frozenset(
    "book set play add find order reserve check schedule arrange cancel sort fix get pay".split()
)


_SUBORDINATE_RE = re.compile(
    r"\b(?:while|when|whenever|if|because|since|until|till|before|after|once|unless|as soon as)\b", re.I
)
"""A subordinate clause or a time limit: a trailing "for me" would attach to it."""


def _for_me_ops(masked: str, start: int, end: int) -> list[Op]:
    """A bare order to an assistant gets "for me" ("Turn off the lamp in the hall" -> "Turn
    off the lamp in the hall for me"): a natural way to ask the same thing; never after
    another "for" ("a timer for 45 seconds for me")."""
    sentence = masked[start:end]
    first = re.match(r"(?:please\s+)?([A-Za-z]+)\s", sentence, re.I)
    if not first or first.group(1).lower() not in _FOR_ME_VERBS or _COPULA_RE.match(sentence):
        return []
    after_first = sentence[first.end() - 1 :]
    if (
        heads_label(after_first)
        or _LABEL_SUBJECT_RE.match(after_first)
        or names_record(first.group(1).lower(), after_first)
        or _SUBORDINATE_RE.search(sentence)
    ):
        # "Order number X for me" is no request; "for me" after "while I'm on leave until
        # 19 August" hangs off the wrong clause
        return []
    if re.search(r"\b(?:me|us|my|our|for|please)\b", sentence[first.end() :], re.I):
        # "for me" after another "for" phrase reads twice ("a call for Monday at 3 pm for me")
        return []
    if "," in sentence or len(sentence.split()) > 14:
        return []
    stop = len(sentence.rstrip(".!"))
    return [("for_me", [(start + stop, start + stop, " for me")])]


@functools.lru_cache(maxsize=1)
def _phrase_rules() -> list[Rule]:
    return compile_rules(_data()["phrases"])


def _please_to_end(masked: str, a: int, b: int, verbs: set[str]) -> list[Op]:
    s = masked[a:b]
    if not (s.lower().startswith("please ") and s[-1] in ".!" and len(s) > 12):
        return []
    rest = s[7:]
    if not (rest[:1].isalpha() and rest.split(" ", 1)[0].lower() in verbs):
        return []
    front: Edit = (a, a + 8, rest[0].upper())
    tail = trailing_clause(s)
    if tail is None:
        return [("please_to_end", [front, (b - 1, b, ", please" + s[-1])])]
    t0, t1 = tail
    if s[t0:t1].strip() in (";", "—", "–", "-"):  # "X, please; I'll rebook later."
        return [("please_to_end", [front, (a + t0, a + t0, ", please")])]
    # "Send X to Y, please. I need it for my claim." -- never "..., I need it, please."
    return [("please_to_end", [front, (a + t0, a + t1 + 1, ", please. " + s[t1].upper())])]


_SPLIT_RE = re.compile(r",?\s+and\s+(I|I'm|I'll|I'd|I've|we|we're|we'll|we've|they|they're)(?![\w'])")
_ASKED_OPENER_RE = re.compile(
    r"\W*(?:how|what|whats|what's|when|where|who|which|why|is|are|am|was|were|can|could|do|does|did|will|"
    r"would|should|shall|may|might|have|has)\b",
    re.I,
)
"""A sentence that opens as a question or a request ("How much is a ticket and I need two.",
"Could you send it and I'll pay."): split at its "and", the first part would be a question
ended by a full stop ("How much is a ticket. I need two.")."""


def _structure_ops(masked: str, spans: list[tuple[int, int]]) -> list[Op]:
    """Changes to a message's sentence structure: "please" moved to the end or the front, a
    clause with its own subject split off ("X and I'll Y" -> "X. I'll Y"), two orders joined.
    A message with no sentence punctuation at all (a lower-case run-on text) is never split:
    its writer put no full stop or capital anywhere, so none is added; a lower-case message
    keeps the new sentence's first word in lower case."""
    d = _data()
    unpunctuated = re.search(r"[.!?]", masked) is None
    lower = _lower_style(masked)
    verbs = set(d["action_verbs"])
    ops: list[Op] = []
    for a, b in spans:
        s = masked[a:b]
        ops.extend(_please_to_end(masked, a, b, verbs))
        m = re.search(r",\s+please([.!])$", s, re.I)
        if m and s[:1].isalpha() and s.split(" ", 1)[0].lower() in verbs:
            edits = [(a, a + 1, "Please " + s[0].lower()), (a + m.start(), b, m.group(1))]
            ops.append(("please_to_front", edits))
        if s.endswith("?") or unpunctuated or _ASKED_OPENER_RE.match(s):
            continue
        for m in _SPLIT_RE.finditer(s):
            # only where the second clause has its own subject: "X and I'll Y" -> "X. I'll Y"
            if len(s[: m.start()].split()) < 3:
                continue
            subject = m.group(1)
            keep_case = lower and not re.match(r"I\b", subject)
            first = subject[0] if keep_case else subject[0].upper()
            split: list[Edit] = [(a + m.start(), a + m.start(1) + 1, ". " + first)]
            if s[-1] in ".!":  # claim the end so a framing edit cannot move it
                split.append((b - 1, b, s[-1]))
            ops.append(("split_and", split))
    for (a1, b1), (a2, b2) in zip(spans, spans[1:], strict=False):
        first, second = masked[a1:b1], masked[a2:b2]
        word = second.split(" ", 1)[0]
        if first.endswith(".") and word.lower() in verbs and word[:1].isupper():
            if first.split(" ", 1)[0].lower() in verbs:
                ops.append(("join_and", [(b1 - 1, a2 + 1, " and " + second[0].lower())]))
    return ops


_DEVICE_LEADS = (("tell me ", "."),)
"""How a question to a voice assistant is asked another way: "Hey Siri, what time does the
pharmacy open?" -> "Hey Siri, tell me what time the pharmacy opens." (never "could you tell
me" or "I'd like to know" to a device)."""


def _after_wake(new: str) -> str:
    """A rewrite that follows a wake word's comma opens in lower case ("Hey Siri, what does
    it cost ...")."""
    return new[:1].lower() + new[1:] if new[:2] != "I " and new[:2] != "I'" else new


def _wake_question_ops(masked: str, start: int, end: int, rng: random.Random) -> list[Op]:
    """A question after a wake word ("OK Google, how much is X?") asked indirectly by the
    shared question rules with a spoken lead; the wake word stays as it is."""
    m = _WAKE_RE.match(masked[start:end])
    if not m or not masked[start:end].endswith("?"):
        return []
    at = start + m.end() + (len(masked[start + m.end() : end]) - len(masked[start + m.end() : end].lstrip()))
    if not masked[at : at + 1].isalpha():
        return []
    # "Hey Google, how long should I keep X?": the question after the wake word is asked as a
    # sentence of its own, capitalised for the rules that read one
    body = masked[at].upper() + masked[at + 1 : end]
    shifted = masked[:at] + body + masked[end:]
    ops = question_ops(masked, at, end, rng, _DEVICE_LEADS) or _more_question_ops(
        shifted, at, end, rng, _DEVICE_LEADS
    )
    # the rewrite starts with the question word as the device lead wrote it ("tell me ...", or
    # "what does X cost" after the wake word, never "What" mid-sentence)
    return [(name, [(a, b, _after_wake(new)) for a, b, new in edits]) for name, edits in ops]


# --- Round twelve: rules by grammatical shape, used when the rules above leave a prompt
# without a variant (so every prompt they already cover keeps its variants) ---

_SHAPE_SUBJ = (
    r"(?:I|i|we|you|u|they|he|she|it"
    r"|(?:the|my|our|your|this|that|these|those|his|her|their) [^\s?,.;!]+(?: [^\s?,.;!]+){0,3}?)"
)
_NEED_HAVE_RE = re.compile(
    r"(?<![\w'])(?P<aux>[Dd]o|[Dd]oes|[Dd]id) (?P<subj>"
    + _SHAPE_SUBJ
    + r") (?P<modal>need|have) to (?=[a-z])"
)
"""An inverted question of necessity ("Does the van need to be ...", "do i have to pay ..."):
"need to" and "have to" after an inverted do-auxiliary ask the same, whatever the subject."""
_OR_CAN_RE = re.compile(
    r"(?<![\w'])(?P<or>or|Or) (?P<can>can) (?P<subj>I|i|we|you|u|it|they|he|she) (?=[a-z])"
)
"""The second half of an alternative question ("..., or can it stand on gravel?"): "can" ->
"could" keeps the possibility asked about, with both alternatives kept."""
_OR_JUST_RE = re.compile(r"(?<![\w'])or just (?=(?:the|a|an|my|our|your|one|for|on|in|at)\b)(?!in case\b)")
"""An alternative narrowed by "just" ("... cover the hinge or just the glass"): "only" says the same."""
_HOW_MUCH_AND_RE = re.compile(
    r"(?P<how>[Hh])ow much (?P<be>is|are) (?P<np>(?:the|a|an|one|your|each) [^?,;.!]{1,80}?)"
    r"(?= and (?:do|does|can|could|will|would|is|are|when|what|how|where|who|which)(?![\w'’]))"
)
"""A price question with a second question joined by "and" ("how much is a box of 50 plugs
and do you deliver"): the first is a noun phrase priced, asked with "cost"; the noun phrase
ends where the joined question starts, so "fish and chips" (no question after "and") is no match."""
_WHO_TALK_RE = re.compile(r"(?P<who>[Ww]ho) do (?P<subj>I|i|we) (?:talk|speak) to\b")
"""A question of whom to contact ("Who do I talk to about a refund?")."""
_BEST_TIME_RE = re.compile(
    r"(?P<when>[Ww]hen) is the best time (?P<of>of (?:the )?(?:year|day|week|month) )?to (?=[a-z])"
)
"""A question of timing advice ("When is the best time of year to sow grass?")."""
_PRICE_NOUN_RE = re.compile(
    r"(?<![\w'’])(?P<what>[Ww]hat(?:['’]s|s| is)) the (?P<adj>(?:minimum|maximum|hourly|daily|weekly|"
    r"monthly|call[- ]out|standard|usual|going) )?(?P<noun>charge|fee|rate)(?=[ ?]|$)"
    r"(?! (?:for|about|on|from)\b)"
)
"""A question about a named charge ("whats the minimum charge at ...", "What is the hourly
rate?"): the amount is asked for with "how much"."""
_FREE_RE = re.compile(
    r"(?<![\w'])(?P<are>[Aa]re|[Ww]ould) you (?P<be>be )?free (?=(?:on|that|this|next|tomorrow|in|at)\b)"
)
"""A question of availability ("Are you free on the 3rd?"): "free" of a person is "available"."""


_PRICE_TO_RE = re.compile(
    r"(?<![\w'’])(?P<what>[Ww]hat(?:['’]s|s| is)) the (?:price|cost|charge) to "
    r"(?=[a-z])(?!(?:the|a|an|me|you|us|them|my|our|your|their|his|her)\b)"
)
"""A price asked for an action ("whats the price to hire a wetsuit"): "how much is it to" asks the same."""
_TELL_ME_WH_RE = re.compile(
    r"^(?P<lead>(?:Could|Can|could|can) you (?:please )?tell me )(?P<wh>when|where|what time|why|how soon) "
    r"(?P<subj>I|we|you|he|she|they|someone|somebody|anyone|anybody)"
    r"(?P<aux> (?:can|will|could|should|would|is|are)"
    r"|['’]s(?= (?:actually |still |really |now )?[a-z]+ing\b))"
    r" (?P<rest>[a-z][^?]*)\?$"
)
"""A wh-question wrapped in "could you tell me" with a pronoun subject ("Could you tell me when
I can collect it?", "... when someone's actually coming?"): the pronoun marks the subject's
end, so the question is asked directly whatever follows ("'s" only as "is" before an -ing verb)."""
_JOINED_WH_RE = re.compile(r"\b(?:and|or) (?:what|when|where|how|who|why|which|whether|if)\b")
"""A second indirect question joined on: the first cannot be made direct alone."""
_GOING_ON_END_RE = re.compile(r"(?<=[a-z0-9] )(?P<what>whats|what's|what is) going on$")
"""A lower-case run-on's closing "whats going on" after a complaint typed on before it."""


_SECOND_PRICE_RE = re.compile(r"\b(?:cost|costs|price|how much)\b", re.I)
"""A price asked again later in the sentence: "how much is the charge ... how much" is never made."""
_SHAPE_PRONOUNS = frozenset("I i we you u they he she it".split())


def _shape_value_free(text: str) -> bool:
    """No clause of its own in a noun phrase (no verb-like word, no new subject)."""
    return not _has_verbish(text) and not _NEW_CLAUSE_RE.search(text)


def _shape_need_have(m: re.Match[str]) -> tuple[str, int, int, str] | None:
    """ "do X need to" <-> "do X have to" (never with a clause inside the subject: "does the
    one you sent need to ...")."""
    subj = m.group("subj")
    if subj not in _SHAPE_PRONOUNS and not _shape_value_free(subj):
        return None
    new = "have" if m.group("modal") == "need" else "need"
    return "word:need_have", m.start("modal"), m.end("modal"), new


def _shape_or_could(m: re.Match[str]) -> tuple[str, int, int, str] | None:
    """ "or can it X" -> "or could it X"."""
    return "word:or_could", m.start("can"), m.end("can"), "could"


def _shape_or_only(m: re.Match[str]) -> tuple[str, int, int, str] | None:
    """ "or just the X" -> "or only the X"."""
    return "word:or_only", m.start(), m.end(), "or only"


def _shape_how_much(m: re.Match[str]) -> tuple[str, int, int, str] | None:
    """ "how much is NP and <question>" -> "what does NP cost and <question>" (never of an
    amount: "the deposit" does not cost one)."""
    np = m.group("np")
    if not _shape_value_free(np) or set(np.split()) & _AMOUNT_NOUNS:
        return None
    do = "does" if m.group("be") == "is" else "do"
    what = "W" if m.group("how") == "H" else "w"
    return "question:direct", m.start(), m.end(), f"{what}hat {do} {np} cost"


def _shape_who(m: re.Match[str]) -> tuple[str, int, int, str] | None:
    """ "Who do I talk to" -> "Who should I speak to"."""
    return "question:who", m.start(), m.end(), f"{m.group('who')} should {m.group('subj')} speak to"


def _shape_best_time(m: re.Match[str]) -> tuple[str, int, int, str] | None:
    """ "When is the best time of year to" -> "What time of year is best to"; "When is the best
    time to" -> "What is the best time to"."""
    what = "W" if m.group("when")[0] == "W" else "w"
    of = m.group("of")
    new = f"{what}hat time {of}is best to " if of else f"{what}hat is the best time to "
    return "question:best_time", m.start(), m.end(), new


def _shape_charge(m: re.Match[str]) -> tuple[str, int, int, str] | None:
    """ "whats the minimum charge" -> "how much is the minimum charge" (never when a price is
    asked again later in the sentence)."""
    if _SECOND_PRICE_RE.search(m.string[m.end() : m.end() + 200]):
        return None
    if m.group("adj") is None and m.group("noun") != "rate":
        return None  # "whats the charge on my card" may ask which charge it is, not its amount
    how = "H" if m.group("what")[0] == "W" else "h"
    return "question:how_much", m.start(), m.end("what"), f"{how}ow much is"


def _shape_free(m: re.Match[str]) -> tuple[str, int, int, str] | None:
    """ "Are you free on X" -> "Are you available on X"."""
    return "word:free", m.end() - len("free "), m.end() - 1, "available"


def _shape_price_to(m: re.Match[str]) -> tuple[str, int, int, str] | None:
    """ "whats the price to hire X" -> "how much is it to hire X"."""
    how = "H" if m.group("what")[0] == "W" else "h"
    return "question:how_much", m.start(), m.end(), f"{how}ow much is it to "


def _shape_tell_me_wh(m: re.Match[str]) -> tuple[str, int, int, str] | None:
    """ "Could you tell me when I can collect it?" -> "When can I collect it?"; "... when
    someone's actually coming?" -> "When is someone actually coming?"."""
    if _JOINED_WH_RE.search(m.group("rest")):
        return None  # "when someone's coming and what they'll do": a second indirect question
    aux = m.group("aux").strip()
    aux = "is" if aux in ("'s", "’s") else aux
    wh = m.group("wh")
    first = wh[0].upper() if m.group("lead")[0].isupper() else wh[0]  # lower case stays lower case
    new = f"{first}{wh[1:]} {aux} {m.group('subj')} {m.group('rest')}?"
    return "question:direct", m.start(), m.end(), new


def _shape_going_on(m: re.Match[str]) -> tuple[str, int, int, str] | None:
    """ "... its half 2 now whats going on" -> "... its half 2 now can you tell me whats going on"."""
    return "question:indirect", m.start(), m.end(), f"can you tell me {m.group('what')} going on"


_SHAPE_FALLBACK_RULES = (
    (_NEED_HAVE_RE, _shape_need_have),
    (_OR_CAN_RE, _shape_or_could),
    (_OR_JUST_RE, _shape_or_only),
    (_HOW_MUCH_AND_RE, _shape_how_much),
    (_WHO_TALK_RE, _shape_who),
    (_BEST_TIME_RE, _shape_best_time),
    (_PRICE_NOUN_RE, _shape_charge),
    (_FREE_RE, _shape_free),
    (_PRICE_TO_RE, _shape_price_to),
    (_TELL_ME_WH_RE, _shape_tell_me_wh),
    (_GOING_ON_END_RE, _shape_going_on),
)
"""Each fallback question shape and its rewrite: a match -> (rule name, start, end, replacement)
within the sentence, or None where the shape's content refuses it."""


def _shape_fallback_ops(masked: str, start: int, end: int) -> list[Op]:
    """Fallback rewrites chosen by a question's grammatical shape, safe for any content of
    that shape (:data:`_SHAPE_FALLBACK_RULES`): "do X need to" <-> "do X have to"; "or can it" ->
    "or could it" and "or just" -> "or only" in an alternative question (both alternatives
    kept); "how much is NP and <question>" -> "what does NP cost and <question>"; "Who do I
    talk to" -> "Who should I speak to"; "When is the best time of year to" -> "What time of
    year is best to"; "whats the minimum charge" -> "how much is the minimum charge"; "Are you
    free on X" -> "Are you available on X". Only in a sentence that asks; lower case stays
    lower case; no punctuation is added."""
    sentence = masked[start:end]
    if not ("?" in sentence or (_lower_style(masked) and sentence[-1:] not in ".!")):
        return []
    ops: list[Op] = []
    for rx, rewrite in _SHAPE_FALLBACK_RULES:
        for m in rx.finditer(sentence):
            found = rewrite(m)
            if found is not None:
                name, a, b, new = found
                ops.append((name, [(start + a, start + b, new)]))
    return ops


def _all_ops(masked: str, rng: random.Random) -> list[Op]:
    spans = sentence_spans(masked)
    ops: list[Op] = []
    # a lower-case text message that never writes "i" gets no capitalised "I'd like to know ..."
    capital_i = _lower_style(masked) and not _writes_lower_i(masked)
    leads = [pair for pair in _ASK_LEADS if not pair[0].startswith("I")] if capital_i else _ASK_LEADS
    for a, b in spans:
        ops.extend(_framing_ops(masked, a, b, rng))
        # a question to a voice assistant is only asked the way people speak to a device
        woken = _WAKE_RE.match(masked[a:b]) is not None
        asked = _wake_question_ops(masked, a, b, rng) if woken else question_ops(masked, a, b, rng, leads)
        ops.extend(asked or _more_question_ops(masked, a, b, rng))
        ops.extend(_direct_question_ops(masked, a, b))
        ops.extend(_someone_ops(masked, a, b, rng))
        ops.extend(_third_party_ops(masked, a, b, rng))
        ops.extend(_can_i_ops(masked, a, b, rng))
        ops.extend(_possible_ops(masked, a, b, rng))
        ops.extend(_able_ops(masked, a, b, rng))
        if not asked:  # "Do I need a X?" asked indirectly already keeps that one rewrite
            ops.extend(_required_ops(masked, a, b, rng))
        ops.extend(_lower_ask_ops(masked, a, b, rng))
        ops.extend(_clipped_question_ops(masked, a, b, rng))
        ops.extend(_for_me_ops(masked, a, b))
        ops.extend(_price_wh_ops(masked, a, b))
        ops.extend(_still_yet_ops(masked, a, b))
    rules = _phrase_rules()
    if (
        _lower_style(masked)
        or any(_WAKE_RE.match(masked[a:b]) for a, b in spans[:1])
        or _CASUAL_CONTRACTION_RE.search(masked)
    ):
        # "prior to" in a lower-case text message, a command to a voice assistant or a message
        # written with casual contractions ("I can't get back before 2pm") is out of register
        rules = [r for r in rules if not r[0].get("formal")]
    phrased = [op for op in phrase_ops(masked, rules, rng) if _swap_fits(masked, op)]
    if _lower_style(masked) and _writes_lower_i(masked):
        # "i think" -> "i reckon", never "I reckon" beside the message's own "i"
        phrased = [(name, [(a, b, _lower_i(new)) for a, b, new in edits]) for name, edits in phrased]
    ops.extend(phrased)
    ops.extend(_structure_ops(masked, spans))
    return ops


_CASUAL_CONTRACTION_RE = re.compile(
    r"\b[A-Za-z]+n['’]t\b|\b(?:I['’]m|[A-Za-z]+['’](?:re|ll)|(?:it|that|what|there|here)['’]s)(?![\w'’])",
    re.I,
)
"""A contraction that marks a message as casual ("can't", "I'm", "we'll", "it's"): a formal
word swap ("before" -> "prior to") would be out of its register."""


_AUX_BEFORE_RE = re.compile(
    r"\b(?:do|does|did|don['’]?t|doesn['’]?t|didn['’]?t|not|never|to|will|would|can|could|should|won['’]?t|"
    r"cannot|can['’]t|must|may|might)\s+$",
    re.I,
)
_PARTICLE_AFTER_RE = re.compile(
    r"\s+(?:(?:it|them|me|him|her|us|this|that)\s+)?(?:up|out|off|back|down|over|away)\b", re.I
)


def _swap_fits(masked: str, op: Op) -> bool:
    """A word swap keeps the grammar around it: a modal phrase never after an auxiliary or a
    negation ("I don't want to" -> never "I don't would like to"), and a verb never swapped
    away from its particle ("pick it up" -> never "select it up")."""
    for a, b, new in op[1]:
        if re.match(r"(?:would|could|should|will|can|might|must)\b", new, re.I) and _AUX_BEFORE_RE.search(
            masked[max(0, a - 20) : a]
        ):
            return False
        if _PARTICLE_AFTER_RE.match(masked[b : b + 20]) and " " not in masked[a:b].strip():
            return False
    return True


def generate(ctx: TaskContext, level: float, rng: random.Random, index: int = 0) -> Variant:
    """A paraphrase at ``level``: the established rules first; only when they leave no variant
    are the fallback question-shape rules (:func:`_shape_fallback_ops`) added, so every prompt
    the established rules cover keeps its variants."""
    masked = ctx.masked
    ops = _all_ops(masked, rng)
    try:
        return _generate_from(ctx, ops, level, rng)
    except SkipGeneration:
        extra = [op for a, b in sentence_spans(masked) for op in _shape_fallback_ops(masked, a, b)]
        if not extra:
            raise
    return _generate_from(ctx, [*ops, *extra], level, rng)


def _generate_from(ctx: TaskContext, ops: list[Op], level: float, rng: random.Random) -> Variant:
    """:func:`generate` from the rewrites ``ops`` found in the prompt."""
    masked = ctx.masked
    if not ops:
        raise SkipGeneration(
            "no paraphrase rule applies (no known request framing, phrase or clause to rewrite)"
        )
    rng.shuffle(ops)
    # the first change is a lexical or structural one, the one whose ε alone is nearest the
    # level (ties in 0.1 steps keep the seeded order, so variants differ); when that start
    # leaves a trivial variant, the next start is tried
    minor = minor_rules()
    solo: list[tuple[float, int, Op]] = []
    for op in ops:
        if op[0] in minor:
            continue
        if not all(masked[a:b] == new for a, b, new in op[1]):
            solo.append((round(abs(edits_change_share(ctx, op[1]) - level), 1), len(solo), op))
    if not solo:
        raise SkipGeneration(
            "only minor rewrites apply (a contraction, a greeting, a function word or moving "
            "'please'); a paraphrase needs a change of wording or structure"
        )
    best: tuple[str, list[str], float] | None = None
    over: float | None = None
    for _, _, first in sorted(solo)[:8]:
        text, names = _grow(ctx, ops, first, level)
        eps = measure(ctx, text, {})
        if trivial(names, eps, level):
            text, names = _second_change(ctx, ops, first, level, text, names)
            eps = measure(ctx, text, {})
        if eps > epsilon_ceiling(level):
            over = eps if over is None else min(over, eps)
            continue
        if not trivial(names, eps, level):
            return Variant(text=text, details={"rules": names})
        if best is None or eps > best[2]:
            best = (text, names, eps)
    if best is None:
        raise SkipGeneration(
            f"every paraphrase found changes too much for level {level:g} (ε {over or 0:.2f} > "
            f"{epsilon_ceiling(level):.2f}); a higher level may have one"
        )
    raise SkipGeneration(
        f"only a trivial paraphrase available ({_names_label(best[1])}: ε {best[2]:.2f} at level "
        f"{level:g}; a variant needs ε of at least half the level and more than one word or "
        "framing change)"
    )


def _names_label(names: Sequence[str], most: int = 6) -> str:
    """The rules of a variant for a skip reason: at most ``most`` named, then how many more
    (a long prompt may take hundreds of swaps)."""
    shown = ", ".join(names[:most])
    return shown if len(names) <= most else f"{shown} and {len(names) - most} more"


_SELF_FRAMING_RE = re.compile(r"\s*(?:I|i)(?: need| want| have| would like|'d like)(?: to)? ", re.I)


def _self_framed(edits: Sequence[Edit]) -> bool:
    """One of ``edits`` puts the user's own framing ("I need to ...") in."""
    return any(_SELF_FRAMING_RE.match(new) for _, _, new in edits)


def _self_for_me(names: Sequence[str], edits: Sequence[Edit]) -> bool:
    """ "for me" after the user's own framing ("I need to book X for me") says it twice."""
    return "for_me" in names and _self_framed(edits)


def _grow(ctx: TaskContext, ops: list[Op], first: Op, level: float) -> tuple[str, list[str]]:
    """Start from ``first``, then add every op (in the seeded order) that brings ε closer
    to the level without overlapping an earlier one. ε is tracked from the edits' own stats,
    so each try costs the size of its edits, not of the prompt."""
    masked = ctx.masked
    taken: list[Edit] = list(first[1])
    claimed = Claimed()
    claimed.add(taken)
    names = [first[0]]
    has_self, has_for_me = _self_framed(taken), first[0] == "for_me"
    total = edit_stats(ctx, taken)
    current = stats_share(ctx, total)
    for name, edits in ops:
        if current >= level:
            break
        if claimed.hits(edits) or all(masked[a:b] == new for a, b, new in edits):
            continue
        # "for me" beside the user's own framing says it twice (tracked as two flags, so each
        # try costs the size of its own edits)
        self_framed = has_self or _self_framed(edits)
        if (has_for_me or name == "for_me") and self_framed:
            continue
        more = edit_stats(ctx, edits)
        trial = (total[0] + more[0], total[1] + more[1], total[2] + more[2])
        eps = stats_share(ctx, trial)
        if abs(eps - level) >= abs(current - level):
            continue  # overshoots further than stopping here
        taken.extend(edits)
        claimed.add(edits)
        has_self, has_for_me = self_framed, has_for_me or name == "for_me"
        names.append(name)
        total, current = trial, eps
    return ctx.unmask(apply_edits(masked, taken)), names


def _second_change(
    ctx: TaskContext, ops: list[Op], first: Op, level: float, text: str, names: list[str]
) -> tuple[str, list[str]]:
    """A single-change variant with one more lexical or structural change: the one that
    leaves ε nearest the level (at most twice the level, so a low level is not swamped)."""
    masked = ctx.masked
    best: tuple[float, str, list[Edit]] | None = None
    for name, edits in ops:
        if name in minor_rules() or name == first[0] or overlaps(edits, first[1]):
            continue
        if all(masked[a:b] == new for a, b, new in edits):
            continue
        if _self_for_me([first[0], name], [*first[1], *edits]):
            continue
        eps = edits_change_share(ctx, list(first[1]) + list(edits))
        if eps > 2 * level:
            continue
        if best is None or abs(eps - level) < best[0]:
            best = (abs(eps - level), name, list(edits))
    if best is None:
        return text, names
    return ctx.unmask(apply_edits(masked, list(first[1]) + best[2])), [first[0], best[1]]


def trivial(names: Sequence[str], eps: float, level: float) -> bool:
    """A near-identical paraphrase: ε below half the level, or one word swap or one
    framing swap (with at most minor changes beside it) as the only change."""
    if eps < level / 2:
        return True
    major = [n for n in names if n not in minor_rules()]
    return len(major) == 1 and (major[0] in ("framing", "for_me") or major[0].startswith("word:"))


def measure(ctx: TaskContext, text: str, details: dict[str, Any]) -> float:
    return rounded(word_change_share(ctx.free_words, free_words_of(ctx, text)))


SPEC = ClassSpec(
    name="paraphrase",
    default_level=0.2,
    max_level=1.0,
    length_ratio=(0.6, 1.8),
    epsilon="share of non-protected word tokens changed: 1 - matched / max(original, new) "
    "under difflib word alignment",
    generate=generate,
    measure=measure,
)
"""The paraphrase class: rules generator, ε definition and screening bounds."""
