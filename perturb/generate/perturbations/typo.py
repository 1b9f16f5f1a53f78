"""``typo``: the slips a real person makes when typing a message, never inside protected
values.

Eligible words are the word tokens with at least two letters outside protected spans. Every
variant has slips on ``max(1, round(level × 0.5 × eligible))`` words (level 1.0 stands for a
slip on every other word), but never more than one word in four (one slip in a message of five
words or fewer) and never more than :data:`MAX_SLIPS` in one message (reviewers read five slips
in a twenty-word message as machine noise, whatever the level asked for), never on two
neighbouring words nor twice on the same word, and no slip may turn a word into another common
English word ("not" -> "got", "from" -> "form": ``wordfreq`` Zipf frequency 3.5 or more), which
would change the meaning instead of adding noise. A slip lands only on a word typed in lower
case (or a sentence's first word with its one capital): never inside a name, an acronym or a
word with a digit. The slips:

* ``misspell``: a common misspelling of a general word ("receive" -> "recieve",
  "definitely" -> "definately", "tomorrow" -> "tommorow"; :data:`MISSPELLINGS`);
* ``apostrophe``: a contraction typed without its apostrophe ("don't" -> "dont",
  "it's" -> "its": people type these even where the result is a word), never where the word
  would change what is said ("we'll" -> "well", "I'd" -> "Id"; :data:`_APOSTROPHE_CLASH`);
* ``transpose``: two adjacent, different letters swapped, never the first letter and never
  next to a double letter ("the" -> "teh", "Could" -> "Cuold"; not "bill" -> "blil"), the only
  slip a word of three or four letters gets, and at most half of a message's slips land on
  such short words;
* ``drop``: a letter left out, never the first (words of five letters or more; one of a
  double letter when the word has one: "address" -> "adress");
* ``double``: a consonant between two vowels typed twice, in a word of five letters or more
  ("decent" -> "deccent", "about" -> "abbout"; never "mmy", "forr", "schhool" or
  "traanslated");
* ``substitute``: an inner letter replaced by its left or right neighbour on the same QWERTY
  row, never one that doubles the letter beside it (words of five letters or more; "morning"
  -> "mornimg", never "goonle" or "tteatment").

On top of them, each variant picks a casing mode (seeded), as people actually type:
``keep`` (most variants), ``lower`` (everything outside protected values in lower case,
"i'll") or ``sticky_shift`` (Shift held for two letters at a sentence start, "PLease"; it
counts as one of the :data:`MAX_SLIPS`). A
stray capital on a mid-sentence word ("then Book") or a word in caps lock ("my GATE code")
is not offered: reviewers read both as placed, not slipped. No casing slip at all in a
message typed all in lower case.

A voice command that opens with a wake word ("Alexa, ...", "Hey Google, ...") is a speech
transcript, which has no typing slips: its variant is the transcript a speech recogniser
writes (no commas, no final stop, in half the variants no capitals), whose words are the
canonical ones (ε 0), so it is offered only at levels up to 0.2 and skipped, with that reason,
above.

ε = share of eligible words with a slip ÷ 0.5 (at most 1), measured on the finished text by
word alignment with the canonical prompt, case-insensitively: one slip in a ten-word message is
0.2, one in four words 0.5, which is where the caps above stop a level from climbing. Casing
is counted separately: the details record the mode (``case``) and every re-cased word
(``recased``), and they do not add to ε, so a level buys slips, not capital letters.
"""

from __future__ import annotations

import functools
import random
import re
from typing import Any

from perturb.generate.perturbations._context import ClassSpec, SkipGeneration, TaskContext, Variant
from perturb.generate.perturbations._text import WAKE_WORD_RE, WORD_RE, altered_share, rounded, words

SHARE_AT_LEVEL_ONE = 0.5
"""The slip share that level 1.0 stands for: level ``ℓ`` asks for slips on ``ℓ × 0.5`` of the
eligible words and ε is the measured share ÷ 0.5, so ε sits on the level where typing can be
realistic (0.5 asks for one word in four, the densest a real message gets)."""
MAX_DENSITY = 4
"""At most one slipped word in this many eligible words."""
MAX_WORD = 30
"""Longer letter runs are not words a person types (and trying every slip of one is quadratic)."""
MAX_SLIPS = 4
"""At most this many slipped words in one message, however long: five or more read as machine
noise, not as a person typing fast."""
REAL_WORD_ZIPF = 3.5
"""A slip whose result has at least this Zipf frequency in English (``wordfreq``: 3.5 is about
three uses per million words: "form", "got", "now") is another real word and would change the
meaning; it is redrawn. Rare strings such as "teh" (3.0) stay typos."""
CASE_MODES = ("keep", "lower", "sticky_shift")
_CASE_WEIGHTS = (0.6, 0.25, 0.15)
OPS = ("misspell", "apostrophe", "transpose", "drop", "double", "substitute")
_OP_WEIGHTS = {"transpose": 4, "drop": 3, "double": 1, "substitute": 1}
"""How often each letter-level slip is drawn when several fit a word: swapped and dropped
letters are the commonest slips of fast typing, a wrong key the rarest that still reads
naturally."""
QWERTY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
SHORT_WORD = 5
"""Words with fewer letters than this are short: at most half of a message's slips (rounded
up) land on them."""

MISSPELLINGS = {
    "accommodate": "accomodate",
    "accommodation": "accomodation",
    "achieve": "acheive",
    "address": "adress",
    "apparently": "apparantly",
    "appointment": "apointment",
    "appreciate": "apreciate",
    "argument": "arguement",
    "basically": "basicly",
    "beginning": "begining",
    "believe": "beleive",
    "business": "buisness",
    "calendar": "calender",
    "colleague": "collegue",
    "committee": "commitee",
    "completely": "completly",
    "convenient": "convinient",
    "definitely": "definately",
    "different": "diffrent",
    "disappointed": "dissapointed",
    "embarrassing": "embarassing",
    "environment": "enviroment",
    "especially": "especialy",
    "exercise": "excercise",
    "finally": "finaly",
    "foreign": "foriegn",
    "government": "goverment",
    "guarantee": "garantee",
    "immediately": "immediatly",
    "independent": "independant",
    "interested": "intrested",
    "necessary": "neccessary",
    "noticeable": "noticable",
    "occasionally": "occasionaly",
    "occurred": "occured",
    "possession": "posession",
    "probably": "probaly",
    "professional": "proffesional",
    "receipt": "reciept",
    "receive": "recieve",
    "received": "recieved",
    "recommend": "reccomend",
    "restaurant": "restaraunt",
    "schedule": "schedual",
    "separate": "seperate",
    "separately": "seperately",
    "similar": "similiar",
    "successful": "succesful",
    "surprise": "suprise",
    "tomorrow": "tommorow",
    "truly": "truely",
    "unfortunately": "unfortunatly",
    "until": "untill",
    "usually": "usualy",
    "weird": "wierd",
    "which": "wich",
    "definite": "definate",
    "wednesday": "wendsday",
}
"""General words and the way people commonly misspell them (lists of frequent English
misspellings); a word found here gets this slip before any letter-level one."""

_APOSTROPHE_CLASH = frozenset("well ill were shell hell wed id shed hed".split())
"""Contractions whose apostrophe-less form is another word ("we'll" -> "well"): kept."""


@functools.lru_cache(maxsize=4096)
def real_word(word: str) -> bool:
    """True when ``word`` is a common English word (``wordfreq``'s Zipf frequency at least
    :data:`REAL_WORD_ZIPF`; the word list ships inside the wheel, nothing is downloaded)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word.lower(), "en") >= REAL_WORD_ZIPF


@functools.lru_cache(maxsize=1)
def keyboard() -> dict[str, tuple[str, ...]]:
    """Lower-case letter -> its left and right neighbours on the same QWERTY row (a finger
    lands one key to the side; a key above or below is a rarer slip and reads as noise)."""
    out: dict[str, tuple[str, ...]] = {}
    for row in QWERTY_ROWS:
        for i, ch in enumerate(row):
            out[ch] = tuple(row[j] for j in (i - 1, i + 1) if 0 <= j < len(row))
    return out


def _case_like(template: str, new: str) -> str:
    """``new`` with the case of ``template`` position by position (the lengths may differ by
    one letter: the first letters decide), so a capital stays where the typist put it."""
    out = []
    for i, ch in enumerate(new):
        t = template[i] if i < len(template) else template[-1]
        out.append(ch.upper() if t.isupper() and i == 0 else ch.lower() if t.islower() or i else ch)
    return "".join(out)


def _letter_slips(word: str) -> list[tuple[str, str]]:
    """Every letter-level slip of ``word`` (lower case after its first letter):
    ``(new word, op)``. The first letter is never touched."""
    n = len(word)
    out: list[tuple[str, str]] = []
    for i in range(1, n - 1):
        # never across a double letter: "bill" -> "blil" and "mum" -> "mmu" are no one's slips
        if word[i] != word[i + 1] and word[i - 1] != word[i] and word[i + 1] != word[i + 2 : i + 3]:
            if word[i - 1] != word[i + 1] and word[i] != word[i + 2 : i + 3]:  # nor make one
                out.append((word[:i] + word[i + 1] + word[i] + word[i + 2 :], "transpose"))
    if n < 5:
        return out if n >= 3 else []
    doubled = [i for i in range(1, n) if word[i] == word[i - 1]]
    for i in doubled or range(1, n):
        out.append((word[:i] + word[i + 1 :], "drop"))
    vowels = "aeiouy"
    for i in range(1, n - 1):
        # a consonant between two vowels ("deccent", "abbout"), never after another consonant
        # ("schhool", "trranslated") and not beside a double the word already has
        between = word[i - 1] in vowels and word[i + 1] in vowels and word[i] not in vowels
        if between and (not doubled or abs(i - doubled[0]) > 1):
            out.append((word[: i + 1] + word[i] + word[i + 1 :], "double"))
    kb = keyboard()
    for i in range(1, n - 1):
        for near in kb.get(word[i], ()):
            if near not in (word[i - 1], word[i + 1]):  # no double made ("tteatment", "aftrr")
                out.append((word[:i] + near + word[i + 1 :], "substitute"))
    return out


def edit_word(word: str, rng: random.Random) -> tuple[str, str] | None:
    """One slip a person makes in ``word``: ``(new word, op)``, or None when no slip fits it
    (a name, an acronym, a number, a two-letter word, or every slip makes another word)."""
    plain = word.replace("’", "'")
    if not plain.replace("'", "").isalpha() or not plain[1:].islower() or not 2 <= len(plain) <= MAX_WORD:
        return None
    lower = plain.lower()
    if lower in MISSPELLINGS:
        return _case_like(word, MISSPELLINGS[lower]), "misspell"
    if "'" in plain:
        bare = word.replace("'", "").replace("’", "")
        if bare.lower() in _APOSTROPHE_CLASH:
            return None
        return bare, "apostrophe"
    slips = [s for s in _letter_slips(word) if not real_word(s[0])]
    if not slips:
        return None
    op = rng.choices(
        sorted({o for _, o in slips}), weights=[_OP_WEIGHTS[o] for o in sorted({o for _, o in slips})]
    )[0]
    return rng.choice([s for s in slips if s[1] == op])


def _recase(word: str, mode: str) -> str | None:
    """``word`` after a ``mode`` casing slip, or None when the slip does not fit the word."""
    n_letters = sum(ch.isalpha() for ch in word)
    if mode == "sticky_shift" and n_letters >= 3 and word[:1].isupper() and word[1:2].islower():
        return word[:2].upper() + word[2:]
    return None


def _sentence_initial(masked: str, start: int) -> bool:
    """True when the word at ``start`` opens the text or a sentence (a look-back over the
    spaces, quotes and brackets before it only, so a whole-text scan stays linear)."""
    i = start
    while i > 0 and masked[i - 1] in " \"'“(":
        i -= 1
    return i == 0 or masked[i - 1] in ".!?"


"""A message that opens by addressing a voice assistant: a speech transcript."""


def _transcript(ctx: TaskContext, rng: random.Random) -> Variant:
    """A voice command as a speech recogniser writes it down: no commas, no final stop, and
    (in half the variants) no capitals outside protected values. A transcript has no typing
    slips; its words are the canonical ones, so ε is 0."""
    masked = re.sub(r",(?=\s)", "", ctx.masked).rstrip()
    masked = re.sub(r"[.!?]+$", "", masked)
    lower = rng.random() < 0.5
    if lower:
        masked = "".join(c.lower() if len(c.lower()) == 1 else c for c in masked)
    if masked == ctx.masked:
        raise SkipGeneration(
            "a voice command with nothing a transcript would drop (a spoken command gets no typing slips)"
        )
    return Variant(
        text=ctx.unmask(masked),
        details={"case": "lower" if lower else "keep", "recased": [], "edits": [], "transcript": True},
    )


TRANSCRIPT_MAX_LEVEL = 0.2
"""A transcript adds no slip (ε 0), so it is offered only at a level this low or lower."""


def generate(ctx: TaskContext, level: float, rng: random.Random, index: int = 0) -> Variant:
    if WAKE_WORD_RE.match(ctx.masked):
        if level > TRANSCRIPT_MAX_LEVEL:
            raise SkipGeneration(
                f"a voice command is a speech transcript: no typing slips, and a transcript's "
                f"missing commas and capitals (ε 0) fit only levels up to {TRANSCRIPT_MAX_LEVEL}"
            )
        return _transcript(ctx, rng)
    masked = ctx.masked
    mode = rng.choices(CASE_MODES, weights=_CASE_WEIGHTS)[0]
    if mode != "keep" and not re.search(r"[A-Z]", re.sub("\ue000[^\ue001]*\ue001", " ", masked)):
        mode = "keep"  # a message typed all in lower case gets no stray capital
    if mode == "lower":
        # sentinels are private-use characters (unchanged); keep every offset stable
        masked = "".join(c.lower() if len(c.lower()) == 1 else c for c in masked)
    matches = [m for m in WORD_RE.finditer(masked) if sum(c.isalpha() for c in m.group()) >= 2]
    n = len(matches)
    if n == 0:
        raise SkipGeneration("no eligible word (every word is protected or shorter than two letters)")
    # at most one slip in every four words (one in a message of five words or fewer) and
    # MAX_SLIPS in all: denser than that no one types, whatever the level asks for
    cap = 1 if n <= 5 else -(-n // MAX_DENSITY)
    # Shift held over a word is a slip a reader sees too: it takes one of the MAX_SLIPS
    most = MAX_SLIPS - 1 if mode == "sticky_shift" else MAX_SLIPS
    target = min(n, max(1, round(level * SHARE_AT_LEVEL_ONE * n)), cap, most)
    replace: dict[int, tuple[int, str]] = {}
    edits: list[tuple[int, dict[str, str]]] = []
    slipped: set[int] = set()
    n_short = 0
    seen: set[str] = set()
    order = list(range(n))
    rng.shuffle(order)
    for k in order:
        if len(edits) >= target:
            break
        if k - 1 in slipped or k + 1 in slipped:
            continue  # two slips side by side ("innto mmy") read as machine-made
        m = matches[k]
        word = m.group()
        typed = ctx.masked[m.start() : m.end()]  # before a ``lower`` casing: "Zoom" stays a name
        if typed[:1].isupper() and not _sentence_initial(masked, m.start()):
            continue  # a capital mid-sentence is a name: people do not slip inside those
        if not typed[1:].islower() and len(typed) > 1:
            continue  # an acronym or a code ("UK", "PDF")
        short = sum(c.isalpha() for c in word) < SHORT_WORD
        if short and n_short >= -(-target // 2):
            continue  # "teh", "adn", "cna" in one message read as a pattern, not as slips
        if word.lower() in seen:
            continue  # the same word slipped twice ("hre ... hre") reads as a pattern
        result = edit_word(word, rng)
        if result is None:
            continue
        n_short += short
        seen.add(word.lower())
        new, op = result
        slipped.add(k)
        replace[m.start()] = (m.end(), new)
        edits.append((m.start(), {"word": word, "new": new, "op": op}))
    recased: list[tuple[int, dict[str, str]]] = []
    if mode == "sticky_shift":
        fits = []
        for k in order:
            m = matches[k]
            if m.start() in replace or not _sentence_initial(masked, m.start()):
                continue
            new_case = _recase(m.group(), mode)
            if new_case is not None:
                fits.append((m, new_case))
        if fits:
            m, new_case = fits[0]
            replace[m.start()] = (m.end(), new_case)
            recased.append((m.start(), {"word": m.group(), "new": new_case}))
        else:
            mode = "keep"
    elif mode == "lower":
        original = {m.start(): m.group() for m in WORD_RE.finditer(ctx.masked)}
        recased = [
            (m.start(), {"word": original[m.start()], "new": m.group()})
            for m in WORD_RE.finditer(masked)
            if original.get(m.start()) != m.group()
        ]
        if not recased:
            mode = "keep"
    if not edits:
        raise SkipGeneration("no word a person would slip on (every word is a name, a number or too short)")
    out = masked
    for start in sorted(replace, reverse=True):
        end, new = replace[start]
        out = out[:start] + new + out[end:]
    details = {
        "case": mode,
        "recased": [r for _, r in sorted(recased, key=lambda x: x[0])],
        "edits": [e for _, e in sorted(edits, key=lambda x: x[0])],
    }
    return Variant(text=ctx.unmask(out), details=details)


def _eligible(ctx: TaskContext) -> tuple[list[str], list[bool]]:
    toks = [m.group() for m in re.finditer(WORD_RE.pattern + "|\ue000[^\ue001]*\ue001", ctx.masked)]
    out, flags = [], []
    for tok in toks:
        if tok.startswith("\ue000"):
            for w in words(ctx.unmask(tok)):
                out.append(w)
                flags.append(False)
        else:
            out.append(tok)
            flags.append(sum(c.isalpha() for c in tok) >= 2)
    return out, flags


def measure(ctx: TaskContext, text: str, details: dict[str, Any]) -> float:
    original, eligible = _eligible(ctx)
    folded = [w.lower() for w in original]
    share = altered_share(folded, [w.lower() for w in words(text)], eligible)
    return rounded(min(1.0, share / SHARE_AT_LEVEL_ONE))


SPEC = ClassSpec(
    name="typo",
    default_level=0.1,
    max_level=1.0,
    length_ratio=(0.9, 1.1),
    epsilon="share of eligible words (two letters or more, outside protected values) with a "
    "slip, compared case-insensitively, divided by 0.5 (level 1.0 = a slip on every other word; "
    "casing slips are counted separately and add nothing)",
    generate=generate,
    measure=measure,
)
"""The typo class: rules generator, ε definition and screening bounds."""
