"""``typo``: realistic keyboard slips and casing changes, never inside protected values.

Eligible words are the word tokens with at least two letters outside protected spans. Each
variant picks a casing mode (seeded): ``keep`` (most variants), ``lower`` (all text outside
protected values in lower case) or ``random_case`` (some words in mixed case, "bOoK").
Then character edits are made to further eligible words until the share of altered eligible
words reaches the requested level (at least one word):

* ``substitute``: a letter replaced by a QWERTY neighbour (the adjacency map is nlpaug's
  ``res/char/keyboard/en.json``; letters only, so no digit or symbol is introduced);
* ``transpose``: two adjacent, different letters swapped;
* ``delete``: a letter dropped (words of four letters or more);
* ``double``: a letter typed twice.

nlpaug's own ``KeyboardAug`` is not called: it draws from the process-global ``random`` and
numpy generators (so output depends on what else ran) and masks by token stop-list, which
cannot protect multi-word values; here every edit comes from the candidate's own seeded RNG
and happens only in the masked text.

ε = share of eligible words altered (any character differs, case included), measured on the
finished text by word alignment with the canonical prompt.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import random
import re
from pathlib import Path
from typing import Any

from ._context import SkipGeneration, TaskContext, Variant
from ._text import WORD_RE, altered_share, rounded, words

CASE_MODES = ("keep", "lower", "random_case")
_CASE_WEIGHTS = (0.6, 0.2, 0.2)
OPS = ("substitute", "transpose", "delete", "double")


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


def _edit_word(word: str, rng: random.Random) -> tuple[str, str] | None:
    kb = keyboard()
    letters = [i for i, ch in enumerate(word) if ch.isalpha()]
    ops = list(OPS)
    rng.shuffle(ops)
    for op in ops:
        if op == "substitute":
            cands = [i for i in letters if word[i].lower() in kb]
            if cands:
                i = rng.choice(cands)
                new = rng.choice(kb[word[i].lower()])
                new = new.upper() if word[i].isupper() else new
                return word[:i] + new + word[i + 1 :], op
        elif op == "transpose":
            cands = [i for i in letters if i + 1 in letters and word[i] != word[i + 1]]
            if cands:
                i = rng.choice(cands)
                return word[:i] + word[i + 1] + word[i] + word[i + 2 :], op
        elif op == "delete" and len(letters) >= 4:
            i = rng.choice(letters[1:])
            return word[:i] + word[i + 1 :], op
        elif op == "double":
            i = rng.choice(letters)
            return word[: i + 1] + word[i] + word[i + 1 :], op
    return None


def _random_case(word: str, rng: random.Random) -> str:
    for _ in range(6):
        new = "".join(ch.upper() if rng.random() < 0.5 else ch.lower() for ch in word)
        if new != word:
            return new
    return word.swapcase()


def generate(ctx: TaskContext, level: float, rng: random.Random, index: int = 0) -> Variant:
    masked = ctx.masked
    mode = rng.choices(CASE_MODES, weights=_CASE_WEIGHTS)[0]
    if mode == "lower":
        # sentinels are private-use characters (unchanged); keep every offset stable
        masked = "".join(c.lower() if len(c.lower()) == 1 else c for c in masked)
    matches = [m for m in WORD_RE.finditer(masked) if sum(c.isalpha() for c in m.group()) >= 2]
    original = {m.start(): m.group() for m in WORD_RE.finditer(ctx.masked)}
    n = len(matches)
    if n == 0:
        raise SkipGeneration("no eligible word (every word is protected or shorter than two letters)")
    target = min(n, max(1, round(level * n)))
    altered = {m.start() for m in matches if original.get(m.start()) != m.group()}
    replace: dict[int, tuple[int, str]] = {}
    edits: list[tuple[int, dict[str, str]]] = []
    free = [m for m in matches if m.start() not in altered]
    rng.shuffle(free)
    if mode == "random_case":
        k = max(1, min(len(free), (target - len(altered)) // 2))
        for m in free[:k]:
            new = _random_case(m.group(), rng)
            replace[m.start()] = (m.end(), new)
            altered.add(m.start())
            edits.append((m.start(), {"word": m.group(), "new": new, "op": "random_case"}))
        free = free[k:]
    for m in free:
        if len(altered) >= target:
            break
        result = _edit_word(m.group(), rng)
        if result is None:
            continue
        new, op = result
        replace[m.start()] = (m.end(), new)
        altered.add(m.start())
        edits.append((m.start(), {"word": m.group(), "new": new, "op": op}))
    out = masked
    for start in sorted(replace, reverse=True):
        end, new = replace[start]
        out = out[:start] + new + out[end:]
    details = {"case": mode, "edits": [e for _, e in sorted(edits, key=lambda x: x[0])]}
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
    return rounded(altered_share(original, words(text), eligible))
