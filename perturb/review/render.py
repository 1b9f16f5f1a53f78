"""What the reviewer sees: invisible and look-alike characters made visible, and the diff.

* Invisible characters (zero-width, no-break and other unusual spaces, bidi controls, soft
  hyphen, control characters) are shown as tokens such as ``⟨ZWSP⟩`` or ``⟨NBSP⟩``.
* Look-alike characters (Cyrillic ``а`` for Latin ``a``, Greek ``ο``, fullwidth or
  mathematical letters) are shown as ``⟨Cyrillic а⟩`` when the text is mostly Latin or the
  character sits in a word with Latin letters (so a Russian prompt is not all flagged).
* The diff between the canonical prompt and the candidate is character-level for ``typo`` and
  word-level for the other classes, written ``[-removed-]{+added+}`` so it reads without color
  too (and styled red/green in a terminal). The character-level diff first matches whole words,
  then aligns the characters of each changed stretch with the fewest edits (substitution,
  insertion, deletion, or two adjacent characters swapped), so every changed letter reads as
  its own change: ``bOoK`` against ``book`` is ``b[-o-]{+O+}o[-k-]{+K+}``, a swap is
  ``fli[-gh-]{+hg+}t``, a doubled letter ``fli{+i+}ght``.

Pure functions returning :class:`rich.text.Text`; no terminal I/O here.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass

from rich.text import Text

INVISIBLE: dict[str, str] = {
    "\u200b": "ZWSP",
    "\u200c": "ZWNJ",
    "\u200d": "ZWJ",
    "\u2060": "WJ",
    "\ufeff": "BOM",
    "\u00ad": "SHY",
    "\u180e": "MVS",
    "\u00a0": "NBSP",
    "\u202f": "NNBSP",
    "\u2007": "FIGSP",
    "\u2000": "ENQSP",
    "\u2001": "EMQSP",
    "\u2002": "ENSP",
    "\u2003": "EMSP",
    "\u2004": "3/EMSP",
    "\u2005": "4/EMSP",
    "\u2006": "6/EMSP",
    "\u2008": "PUNCSP",
    "\u2009": "THINSP",
    "\u200a": "HAIRSP",
    "\u205f": "MMSP",
    "\u3000": "IDSP",
    "\u200e": "LRM",
    "\u200f": "RLM",
    "\u061c": "ALM",
    "\u202a": "LRE",
    "\u202b": "RLE",
    "\u202c": "PDF",
    "\u202d": "LRO",
    "\u202e": "RLO",
    "\u2066": "LRI",
    "\u2067": "RLI",
    "\u2068": "FSI",
    "\u2069": "PDI",
    "\t": "TAB",
    "\r": "CR",
}
"""Characters shown as a named token."""

LOOKALIKE: dict[str, str] = {
    # Cyrillic
    "а": "a",
    "е": "e",
    "о": "o",
    "р": "p",
    "с": "c",
    "у": "y",
    "х": "x",
    "і": "i",
    "ј": "j",
    "ѕ": "s",
    "һ": "h",
    "ԁ": "d",
    "ԛ": "q",
    "ԝ": "w",
    "ӏ": "l",
    "к": "k",
    "ո": "n",
    "А": "A",
    "В": "B",
    "Е": "E",
    "К": "K",
    "М": "M",
    "Н": "H",
    "О": "O",
    "Р": "P",
    "С": "C",
    "Т": "T",
    "Х": "X",
    "І": "I",
    "Ј": "J",
    "Ѕ": "S",
    "Ү": "Y",
    "Ԛ": "Q",
    "Ԝ": "W",
    "Ӏ": "I",
    # Greek
    "ο": "o",
    "α": "a",
    "ν": "v",
    "ρ": "p",
    "ι": "i",
    "κ": "k",
    "υ": "u",
    "Α": "A",
    "Β": "B",
    "Ε": "E",
    "Ζ": "Z",
    "Η": "H",
    "Ι": "I",
    "Κ": "K",
    "Μ": "M",
    "Ν": "N",
    "Ο": "O",
    "Ρ": "P",
    "Τ": "T",
    "Υ": "Y",
    "Χ": "X",
    # Armenian and Latin extensions
    "օ": "o",
    "ս": "u",
    "ı": "i",
    "ȷ": "j",
    "ɑ": "a",
    "ɡ": "g",
}
"""Letters from other scripts that look like a Latin letter."""

_SCRIPT_WORDS = ("CYRILLIC", "GREEK", "ARMENIAN", "FULLWIDTH", "MATHEMATICAL", "LATIN")


@dataclass(frozen=True)
class Finding:
    """One invisible or look-alike character."""

    index: int
    char: str
    kind: str  # "invisible" or "lookalike"
    token: str

    def describe(self) -> str:
        cp = f"U+{ord(self.char):04X}"
        name = unicodedata.name(self.char, "unnamed character")
        if self.kind == "lookalike":
            latin = LOOKALIKE.get(self.char) or unicodedata.normalize("NFKC", self.char)
            return f"{cp} {name} looks like '{latin}' (character {self.index + 1})"
        return f"{cp} {name} is invisible (character {self.index + 1})"


def _script(ch: str) -> str:
    name = unicodedata.name(ch, "")
    for word in _SCRIPT_WORDS:
        if name.startswith(word):
            return word.capitalize() if word != "MATHEMATICAL" else "Math"
    return "Other"


def _lookalike_target(ch: str) -> str | None:
    if ch in LOOKALIKE:
        return LOOKALIKE[ch]
    if ord(ch) < 128:
        return None
    norm = unicodedata.normalize("NFKC", ch)
    if len(norm) == 1 and norm.isascii() and norm.isalnum():
        return norm
    return None


def _mostly_latin(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum(c.isascii() for c in letters) * 2 >= len(letters)


def find_hidden(text: str, latin: bool | None = None) -> list[Finding]:
    """Every invisible or look-alike character of ``text``, in order. ``latin``: whether the
    surrounding text is mostly Latin (default: judged on ``text`` itself)."""
    latin = _mostly_latin(text) if latin is None else latin
    words = [(m.start(), m.end()) for m in re.finditer(r"\w+", text)]
    out: list[Finding] = []
    for i, ch in enumerate(text):
        if ch in INVISIBLE:
            out.append(Finding(i, ch, "invisible", f"⟨{INVISIBLE[ch]}⟩"))
            continue
        cat = unicodedata.category(ch)
        if ch != "\n" and (cat in ("Cc", "Cf") or (cat == "Zs" and ch != " ")):
            out.append(Finding(i, ch, "invisible", f"⟨U+{ord(ch):04X}⟩"))
            continue
        if _lookalike_target(ch) is None:
            continue
        in_mixed_word = any(
            s <= i < e and any(c.isascii() and c.isalpha() for c in text[s:e]) for s, e in words
        )
        if latin or in_mixed_word:
            out.append(Finding(i, ch, "lookalike", f"⟨{_script(ch)} {ch}⟩"))
    return out


def visible(text: str, style: str = "", *, latin: bool | None = None) -> Text:
    """``text`` as rich Text with invisible and look-alike characters shown as tokens.
    ``latin``: whether the whole prompt is mostly Latin (default: judged on ``text``)."""
    marks = {f.index: f for f in find_hidden(text, latin)}
    out = Text(style=style)
    start = 0
    for i in range(len(text)):
        f = marks.get(i)
        if f is None:
            continue
        out.append(text[start:i])
        out.append(f.token, style="bold reverse yellow" if f.kind == "lookalike" else "reverse")
        start = i + 1
    out.append(text[start:])
    return out


_WORD_TOKENS = re.compile(r"\w+|\s+|[^\w\s]")
ALIGN_MAX_CELLS = 250_000
"""Above this many cells (len(old) x len(new)) a changed stretch is diffed by
:class:`difflib.SequenceMatcher` instead of the exact alignment."""

Op = tuple[str, str, str]


def align_chars(a: str, b: str) -> list[Op]:
    """The cheapest edit script turning ``a`` into ``b`` (restricted Damerau-Levenshtein: each
    substitution, insertion, deletion or swap of two adjacent characters costs 1), as
    ``(op, old, new)`` steps of one character (two for a swap). Among equally cheap scripts the
    one with insertions and deletions as late as possible is chosen (``fli{+i+}ght``, not
    ``fl{+i+}ight``)."""
    n, m = len(a), len(b)
    d = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        d[i][0] = i
    for j in range(m + 1):
        d[0][j] = j
    for i in range(1, n + 1):
        row, up, ai = d[i], d[i - 1], a[i - 1]
        for j in range(1, m + 1):
            best = min(up[j] + 1, row[j - 1] + 1, up[j - 1] + (ai != b[j - 1]))
            if i > 1 and j > 1 and ai == b[j - 2] and a[i - 2] == b[j - 1] and ai != a[i - 2]:
                best = min(best, d[i - 2][j - 2] + 1)
            row[j] = best
    steps: list[Op] = []
    i, j = n, m
    while i or j:
        here = d[i][j]
        if i and here == d[i - 1][j] + 1:
            steps.append(("delete", a[i - 1], ""))
            i -= 1
        elif j and here == d[i][j - 1] + 1:
            steps.append(("insert", "", b[j - 1]))
            j -= 1
        elif i and j and a[i - 1] == b[j - 1] and here == d[i - 1][j - 1]:
            steps.append(("equal", a[i - 1], b[j - 1]))
            i, j = i - 1, j - 1
        elif (
            i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1] and here == d[i - 2][j - 2] + 1
        ):
            steps.append(("replace", a[i - 2 : i], b[j - 2 : j]))
            i, j = i - 2, j - 2
        else:
            steps.append(("replace", a[i - 1], b[j - 1]))
            i, j = i - 1, j - 1
    steps.reverse()
    return steps


def _merge(steps: list[Op]) -> list[Op]:
    """Adjacent steps joined: equal runs into one, changes between two equal runs into one
    ``replace`` (or ``delete`` / ``insert`` when only one side has text)."""
    out: list[Op] = []
    for op, old, new in steps:
        kind = "equal" if op == "equal" else "change"
        if out and (out[-1][0] == "equal") == (kind == "equal"):
            prev = out[-1]
            out[-1] = (prev[0], prev[1] + old, prev[2] + new)
        else:
            out.append((op, old, new))
    return [
        (op if op == "equal" else "replace" if old and new else "delete" if old else "insert", old, new)
        for op, old, new in out
    ]


def diff_ops(a: str, b: str, *, char_level: bool) -> list[Op]:
    """``(op, old, new)`` segments turning ``a`` into ``b``; op is equal/delete/insert/replace.

    Word-level: tokens (words, runs of space, single punctuation) matched by
    :class:`difflib.SequenceMatcher`. Character-level: the same word match, then each changed
    stretch aligned character by character with :func:`align_chars`, so each changed letter
    is its own segment between the unchanged ones."""
    sa, sb = _WORD_TOKENS.findall(a), _WORD_TOKENS.findall(b)
    matcher = difflib.SequenceMatcher(None, sa, sb, autojunk=False)
    words: list[Op] = [
        (op, "".join(sa[i1:i2]), "".join(sb[j1:j2])) for op, i1, i2, j1, j2 in matcher.get_opcodes()
    ]
    if not char_level:
        return words
    steps: list[Op] = []
    for op, old, new in words:
        if op != "replace":
            steps.append((op, old, new))
        elif len(old) * len(new) <= ALIGN_MAX_CELLS:
            steps.extend(align_chars(old, new))
        else:
            chars = difflib.SequenceMatcher(None, old, new, autojunk=False)
            steps.extend((o, old[i1:i2], new[j1:j2]) for o, i1, i2, j1, j2 in chars.get_opcodes())
    return _merge(steps)


def render_diff(canonical: str, candidate: str, *, char_level: bool) -> Text:
    """The diff as Text: unchanged text plain, ``[-removed-]`` red, ``{+added+}`` green."""
    out = Text()
    latin_old, latin_new = _mostly_latin(canonical), _mostly_latin(candidate)
    for op, old, new in diff_ops(canonical, candidate, char_level=char_level):
        if op == "equal":
            out.append_text(visible(new, latin=latin_new))
            continue
        if old:
            out.append("[-", style="red")
            out.append_text(visible(old, "red strike", latin=latin_old))
            out.append("-]", style="red")
        if new:
            out.append("{+", style="green")
            out.append_text(visible(new, "bold green", latin=latin_new))
            out.append("+}", style="green")
    return out


def diff_stats(canonical: str, candidate: str, *, char_level: bool) -> str:
    """A short count of the changes, e.g. ``2 characters changed`` or ``5 words changed``."""
    unit = "character" if char_level else "word"
    changed = 0
    for op, old, new in diff_ops(canonical, candidate, char_level=char_level):
        if op == "equal":
            continue
        if char_level:
            changed += max(len(old), len(new))
        else:
            changed += max(len(re.findall(r"\w+", old)), len(re.findall(r"\w+", new)), 1)
    return f"{changed} {unit}{'s' if changed != 1 else ''} changed"
