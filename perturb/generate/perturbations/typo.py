"""``typo``: realistic keyboard slips, plus an occasional casing slip, never inside protected
values.

Eligible words are the word tokens with at least two letters outside protected spans. Every
variant has keyboard-level edits on ``max(1, round(level × eligible))`` eligible words (so
never a casing-only variant), but never more than one word in three (denser typing is not
how people slip), and no slip may turn a word into another common English word ("not" ->
"got", "from" -> "form": ``wordfreq`` Zipf frequency 3.5 or more), which would change the
meaning instead of adding noise:

* ``substitute``: a letter replaced by a QWERTY neighbour (the adjacency map is nlpaug's
  ``res/char/keyboard/en.json``; letters only, so no digit or symbol is introduced);
* ``transpose``: two adjacent, different letters swapped, case kept by position
  ("Book" -> "Obok", never "oBok");
* ``delete``: a letter dropped (never the first; words of four letters or more);
* ``double``: a letter typed twice (never a lone capital: "Book" -> "Boook", not "BBook").

On top of them, each variant picks a casing mode (seeded), as people actually slip:
``keep`` (half the variants), ``lower`` (everything outside protected values in lower case,
"i'll"), ``capitalised`` (one mid-sentence content word with a capital, "then Book":
a word of four letters or more that is not a function word, never "Of"/"For"/"The"),
``sticky_shift`` (Shift held for two letters, "PLease") or ``caps_lock`` (one whole content
word in capitals, "MORNING": four letters or more, never "FOR" or "HOW"). Never random
per-letter case ("bOoK"), and no casing slip at all in a message typed all in lower case (a
single capital there reads as placed, not slipped).

nlpaug's own ``KeyboardAug`` is not called: it draws from the process-global ``random`` and
numpy generators (so output depends on what else ran) and masks by token stop-list, which
cannot protect multi-word values; here every edit comes from the candidate's own seeded RNG
and happens only in the masked text.

ε = share of eligible words with a keyboard slip, measured on the finished text by word
alignment with the canonical prompt, case-insensitively. Casing is counted separately: the
details record the mode (``case``) and every re-cased word (``recased``), and they do not add
to ε, so a level buys keyboard slips, not capital letters.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import random
import re
from pathlib import Path
from typing import Any

from perturb.generate.perturbations._context import ClassSpec, SkipGeneration, TaskContext, Variant
from perturb.generate.perturbations._text import WORD_RE, altered_share, rounded, words

MAX_DENSITY = 3
"""At most one slipped word in this many eligible words."""
REAL_WORD_ZIPF = 3.5
"""A slip whose result has at least this Zipf frequency in English (``wordfreq``: 3.5 is about
three uses per million words: "form", "got", "now") is another real word and would change the
meaning; it is redrawn. Rare strings such as "teh" (3.0) stay typos."""
CASE_MODES = ("keep", "lower", "capitalised", "sticky_shift", "caps_lock")
_CASE_WEIGHTS = (0.5, 0.2, 0.1, 0.1, 0.1)
OPS = ("substitute", "transpose", "delete", "double")


@functools.lru_cache(maxsize=4096)
def real_word(word: str) -> bool:
    """True when ``word`` is a common English word (``wordfreq``'s Zipf frequency at least
    :data:`REAL_WORD_ZIPF`; the word list ships inside the wheel, nothing is downloaded)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word.lower(), "en") >= REAL_WORD_ZIPF


@functools.lru_cache(maxsize=1)
def keyboard() -> dict[str, tuple[str, ...]]:
    """Lower-case letter -> adjacent lower-case letters, from nlpaug's English keyboard map
    (located without importing nlpaug, whose import takes most of a second)."""
    spec = importlib.util.find_spec("nlpaug")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("nlpaug is not installed (pip install nlpaug)")
    path = Path(list(spec.submodule_search_locations)[0]) / "res" / "char" / "keyboard" / "en.json"
    raw: dict[str, Any] = json.loads(path.read_text("utf-8"))
    out: dict[str, tuple[str, ...]] = {}
    for key, values in raw.items():
        if len(key) == 1 and key.isalpha() and key.islower():
            near = values if isinstance(values, list) else [values]
            letters = sorted({v.lower() for v in near if len(v) == 1 and v.isalpha()} - {key})
            if letters:
                out[key] = tuple(letters)
    return out


def _case_like(template: str, new: str) -> str:
    """``new`` (same length as ``template``) with the case of ``template`` position by
    position: a capital stays where the typist put it."""
    return "".join(
        n.upper() if t.isupper() else n.lower() if t.islower() else n
        for t, n in zip(template, new, strict=True)
    )


def edit_word(word: str, rng: random.Random) -> tuple[str, str] | None:
    """One keyboard slip in ``word``: ``(new word, op)``, or None when no op applies."""
    kb = keyboard()
    letters = [i for i, ch in enumerate(word) if ch.isalpha()]
    ops = list(OPS)
    rng.shuffle(ops)
    all_caps = word.isupper()
    for op in ops:
        if op == "substitute":
            cands = [i for i in letters if word[i].lower() in kb]
            if cands:
                i = rng.choice(cands)
                new = rng.choice(kb[word[i].lower()])
                new = new.upper() if word[i].isupper() else new
                return word[:i] + new + word[i + 1 :], op
        elif op == "transpose":
            cands = [i for i in letters if i + 1 in letters and word[i].lower() != word[i + 1].lower()]
            if cands:
                i = rng.choice(cands)
                swapped = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
                return _case_like(word, swapped), op
        elif op == "delete" and len(letters) >= 4:
            i = rng.choice(letters[1:])
            return word[:i] + word[i + 1 :], op
        elif op == "double":
            cands = [i for i in letters if word[i].islower() or all_caps]
            if cands:
                i = rng.choice(cands)
                return word[: i + 1] + word[i] + word[i + 1 :], op
    return None


FUNCTION_WORDS = frozenset(
    "about above after again against also been before being below between both but could does "
    "doing down during each either else even every from further have having here into just "
    "more most much must neither once only other ought over same shall should some such than "
    "that their theirs them then there these they this those through under until upon very "
    "were what when where which while whom whose will with within without would your yours "
    "ours please thanks".split()
)
"""Words of four letters or more that a stray capital would not land on as a slip."""


def _recase(word: str, mode: str) -> str | None:
    """``word`` after a ``mode`` casing slip, or None when the slip does not fit the word."""
    n_letters = sum(ch.isalpha() for ch in word)
    if mode == "capitalised" and (len(word) < 4 or word.lower() in FUNCTION_WORDS or "'" in word):
        return None  # a content word ("then Book"), not "Of", "For" or "The"
    if mode == "capitalised" and word[:1].islower() and word.islower():
        return word[0].upper() + word[1:]
    if mode == "sticky_shift" and n_letters >= 3 and word[:1].isupper() and word[1:2].islower():
        return word[:2].upper() + word[2:]
    if mode == "caps_lock" and (n_letters < 4 or word.lower() in FUNCTION_WORDS or "'" in word):
        return None  # caps lock left on over a content word ("MORNING"), not "FOR" or "HOW"
    if mode == "caps_lock" and not word.isupper():
        return word.upper()
    return None


def _sentence_initial(masked: str, start: int) -> bool:
    before = masked[:start].rstrip(" \"'“(")
    return not before or before[-1] in ".!?"


def generate(ctx: TaskContext, level: float, rng: random.Random, index: int = 0) -> Variant:
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
    # at most one slip in every three words: denser than that no one types (level 0.5 on a
    # long message made every other word a slip)
    target = min(n, max(1, round(level * n)), max(1, -(-n // MAX_DENSITY)))
    replace: dict[int, tuple[int, str]] = {}
    edits: list[tuple[int, dict[str, str]]] = []
    order = list(matches)
    rng.shuffle(order)
    for m in order:
        if len(edits) >= target:
            break
        result = None
        for _ in range(4):  # a slip that makes another real word ("not" -> "got") is no typo
            result = edit_word(m.group(), rng)
            if result is None or not real_word(result[0]):
                break
            result = None
        if result is None:
            continue
        new, op = result
        replace[m.start()] = (m.end(), new)
        edits.append((m.start(), {"word": m.group(), "new": new, "op": op}))
    recased: list[tuple[int, dict[str, str]]] = []
    if mode in ("capitalised", "sticky_shift", "caps_lock"):
        fits = []
        for m in order:
            if m.start() in replace:
                continue
            # a capital mid-sentence is the slip; at a sentence start it is just correct
            if mode == "capitalised" and _sentence_initial(masked, m.start()):
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
    return rounded(altered_share(folded, [w.lower() for w in words(text)], eligible))


SPEC = ClassSpec(
    name="typo",
    default_level=0.1,
    max_level=1.0,
    length_ratio=(0.9, 1.1),
    epsilon="share of eligible words (two letters or more, outside protected values) with a "
    "keyboard slip, compared case-insensitively (casing slips are counted separately and add "
    "nothing)",
    generate=generate,
    measure=measure,
)
"""The typo class: rules generator, ε definition and screening bounds."""
