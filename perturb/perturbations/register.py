"""``register``: the same request in another register or locale.

Three target registers, rotated over a task's variants (``register_for``):

* ``formal_british``: British spelling, British vocabulary, contractions expanded, formal
  openers ("Would you be so kind as to", "I would be grateful if you could"), formal
  greetings and closings ("Many thanks.").
* ``casual_indian``: British spelling and vocabulary (as Indian English uses them), "Kindly",
  "Hello sir,", "Please do the needful.", contractions kept.
* ``terse_us``: American spelling and vocabulary, contractions, "pls"/"thx"/"u", greeting
  dropped, short openers.

Spelling comes from the ``breame`` package's US/UK spelling lists (about 1,700 words each),
minus words whose other spelling depends on the sense (``program``/``programme``, ...).
Vocabulary pairs (``perturb/data/register.json``) each name a term that breame lists as
regional. Spelling and vocabulary for the target locale are always applied; style edits
(opener, greeting, closing, contractions, terse words) are taken in a seeded order until the
measured ε reaches the level, at least one of them.

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

from ._context import TaskContext, Variant, free_words_of, load_data
from ._text import decapitalize_first, match_case, rounded, sentence_spans, word_change_share

REGISTERS = ("formal_british", "casual_indian", "terse_us")
_LOCALE = {"formal_british": "uk", "casual_indian": "uk", "terse_us": "us"}
_WORD_RE = re.compile(r"(?<![\w'\-])[A-Za-z]+(?![\w'\-])")
_GREETING_RE = re.compile(
    r"^(?:(?:hi|hello|hey|yo|dear)(?: there| team| all| sir| madam| sir or madam)?|good day)[,!.]?\s+",
    re.I,
)
_CLOSING_RE = re.compile(
    r"\s*(?:thanks|thank you|many thanks|thx|cheers|kind regards|regards|with thanks|thanks in advance"
    r"|thank you in advance|appreciate it|thanks and regards)[.!]?\s*$",
    re.I,
)
_OPENER_RE = re.compile(
    r"(?:please |could you (?:please |possibly )?|can you (?:please )?|would you (?:please )?|"
    r"kindly |pls |please kindly )?",
    re.I,
)
_NOUN_OPENER_RE = re.compile(
    r"(?:i'd like|i would like|i want|i need|can i get|could i get|can i have|could i have) ", re.I
)
_D_OK = {"like", "love", "prefer", "appreciate", "be", "rather"}
_S_BAD = {"been", "got", "gone", "had"}


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
        pairs = [(p[src], p[dst]) for p in _data()["vocabulary"]]
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


def vocabulary(masked: str, locale: str) -> str:
    """Swap regional terms (``vacation``/``holiday``, ``apartment``/``flat``, ...)."""
    done: set[str] = set()
    low = masked.lower()
    for src, dst, rx in _phrase_res("vocabulary", 0 if locale == "uk" else 1):
        if src.lower() not in low or dst.lower() in done:
            continue
        if rx.search(masked):
            masked = rx.sub(_cased(dst), masked)
            done.add(dst.lower())
    return masked


def _contract(masked: str) -> str:
    for full, short, rx in _phrase_res("contractions", 0):
        if full.lower() in masked.lower():
            masked = rx.sub(_cased(short), masked)
    return masked


def _expand(masked: str) -> str:
    for full, short in _data()["contractions"]:
        rx = re.compile(r"(?<![\w'])" + re.escape(short) + r"(?![\w'])(\s+([A-Za-z]+))?", re.I)

        def one(m: re.Match[str], full: str = full, short: str = short) -> str:
            nxt = (m.group(2) or "").lower()
            if short.endswith("'d") and nxt not in _D_OK:
                return m.group()
            if short.endswith("'s") and nxt in _S_BAD:
                return m.group()
            if short == "can't" and full == "can not":
                return m.group()
            return match_case(m.group(), full) + (m.group(1) or "")

        masked = rx.sub(one, masked)
    return masked


def _terse_words(masked: str) -> str:
    for full, short, rx in _phrase_res("terse_words", 0):
        if full in masked.lower():
            masked = rx.sub(short, masked)
    return masked


def _opener(masked: str, reg: str, rng: random.Random) -> str:
    """Replace the opener of the first request sentence with one of the register's."""
    style = _data()[reg]
    verbs = set(load_data("paraphrase")["action_verbs"])
    for a, b in sentence_spans(masked):
        sentence = masked[a:b]
        g = _GREETING_RE.match(sentence)
        lead = sentence[: g.end()] if g else ""
        rest = sentence[len(lead) :]
        noun = _NOUN_OPENER_RE.match(rest)
        if noun and re.match(r"(?:a|an|the|my|some|another)\b", rest[noun.end() :], re.I):
            new = rng.choice(style["noun_openers"])
            body = rest[noun.end() :]
        else:
            m = _OPENER_RE.match(rest)
            prefix = m.group() if m else ""
            word = re.match(r"[A-Za-z]+", rest[len(prefix) :])
            if not word or word.group().lower() not in verbs:
                continue
            options = [o for o in style["openers"] if o.lower() != prefix.lower()]
            if re.search(r"\b(?:please|pls|kindly)\b", rest[len(prefix) :], re.I):
                options = [o for o in options if not re.search(r"please|pls|kindly", o, re.I)]
            if not options:
                continue
            new = rng.choice(options)
            body = rest[len(prefix) :]
            body = body[0].upper() + body[1:] if not new and not lead else body[0].lower() + body[1:]
        opener = decapitalize_first(new) if lead else new
        out = lead + opener + body
        if out[-1:] in ".?":
            question = new.split(" ", 1)[0].lower() in {"would", "could", "can", "might"}
            out = out[:-1] + ("?" if question else ".")
        return masked[:a] + out + masked[b:]
    return masked


def _greeting(masked: str, reg: str, rng: random.Random) -> str:
    style = _data()[reg]
    m = _GREETING_RE.match(masked)
    if reg == "terse_us":
        if not m:
            return masked
        rest = masked[m.end() :]
        return rest[:1].upper() + rest[1:]
    new = rng.choice(style["greetings"])
    if m:
        return new + masked[m.end() :]
    return new + decapitalize_first(masked)


def _closing(masked: str, reg: str, rng: random.Random) -> str:
    style = _data()[reg]
    m = _CLOSING_RE.search(masked)
    new = rng.choice(style["closings"])
    body = masked[: m.start()] if m else masked
    if not body.rstrip().endswith((".", "!", "?")):
        if m is None and body.rstrip().endswith("\ue001"):
            return masked
        body = body.rstrip() + ("." if m is None else "")
    return body.rstrip() + " " + new


def _style_ops(reg: str) -> list[tuple[str, Callable[[str, random.Random], str]]]:
    ops: list[tuple[str, Callable[[str, random.Random], str]]] = [
        ("opener", lambda t, r: _opener(t, reg, r)),
        ("greeting", lambda t, r: _greeting(t, reg, r)),
        ("closing", lambda t, r: _closing(t, reg, r)),
    ]
    if reg == "formal_british":
        ops.append(("expand_contractions", lambda t, r: _expand(t)))
    else:
        ops.append(("contractions", lambda t, r: _contract(t)))
    if reg == "terse_us":
        ops.append(("terse_words", lambda t, r: _terse_words(t)))
    return ops


def generate(ctx: TaskContext, level: float, rng: random.Random, index: int = 0) -> Variant:
    reg = register_for(ctx.task.id, index)
    locale = _LOCALE[reg]
    masked = vocabulary(spell(ctx.masked, locale), locale)
    changes = []
    if masked != ctx.masked:
        changes.append("spelling/vocabulary")
    ops = _style_ops(reg)
    rng.shuffle(ops)
    styled = 0
    for name, op in ops:
        new = op(masked, rng)
        if new == masked:
            continue
        masked = new
        changes.append(name)
        styled += 1
        if measure(ctx, ctx.unmask(masked), {}) >= level:
            break
    return Variant(text=ctx.unmask(masked), details={"register": reg, "changes": changes})


def measure(ctx: TaskContext, text: str, details: dict[str, Any]) -> float:
    return rounded(word_change_share(ctx.free_words, free_words_of(ctx, text)))
