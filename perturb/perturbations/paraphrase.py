"""``paraphrase``: the same request in other words.

Rules (offline, seeded), all applied to the masked prompt so protected values are untouched:

* request framing: swap the opener of a request sentence ("I need to", "Could you",
  "Please", a bare imperative, "I'd like a", "Can I get a", ...) for another of its group,
  fixing the final ``?``/``.``;
* word choice: curated safe swaps (``booking``/``reservation``, ``under £300``/``below £300``,
  ``make sure``/``ensure``, ...) with context conditions (``perturb/data/paraphrase.json``);
* sentence structure: move ``please`` between the front and the end, split ``X, and do Y``
  into two sentences, or join two imperative sentences with ``and``.

Candidate edits are non-overlapping character ranges of the masked prompt. They are taken in
a seeded random order until the measured ε reaches the requested level.

ε = share of non-protected word tokens changed: ``1 - M / max(|A|, |B|)`` where ``A`` and
``B`` are the lower-cased word tokens outside protected values of the canonical prompt and of
the variant, and ``M`` the tokens difflib aligns between them.
"""

from __future__ import annotations

import functools
import random
import re
from typing import Any

from ._context import SkipGeneration, TaskContext, Variant, free_words_of, load_data
from ._text import match_case, rounded, sentence_spans, word_change_share

Edit = tuple[int, int, str]
Op = tuple[str, list[Edit]]

_GREETING_RE = re.compile(r"(?:(?:hi|hello|hey)(?: there)?,?\s+)?", re.I)


def _data() -> dict[str, Any]:
    data: dict[str, Any] = load_data("paraphrase")
    return data


def _framing_groups() -> list[tuple[str, list[str]]]:
    d = _data()
    return [
        ("agent", d["agent_framings"]),
        ("self", d["self_framings"]),
        ("noun", d["noun_framings"]),
    ]


def _is_question(prefix: str) -> bool:
    return prefix.split(" ", 1)[0].lower() in {"could", "can", "would", "will"}


def _framing_ops(masked: str, start: int, end: int, rng: random.Random) -> list[Op]:
    d = _data()
    sentence = masked[start:end]
    greet = _GREETING_RE.match(sentence)
    g_end = greet.end() if greet else 0
    body = sentence[g_end:]
    low = body.lower()
    found: tuple[str, str] | None = None
    for group, prefixes in _framing_groups():
        for prefix in prefixes:
            if prefix and low.startswith(prefix.lower()):
                if found is None or len(prefix) > len(found[1]):
                    found = (group, prefix)
    rest = body[len(found[1]) :] if found else body
    m = re.match(r"([A-Za-z']+)", rest)
    if not m:
        return []
    nxt = m.group(1).lower()
    if found is None:
        if nxt not in d["action_verbs"]:
            return []
        found = ("agent", "")
    group, prefix = found
    if group == "noun":
        if nxt not in d["noun_starts"]:
            return []
        choices = [p for p in d["noun_framings"] if p.lower() != prefix.lower()]
    else:
        if nxt in d["not_verbs"]:
            return []
        same = d["agent_framings"] if group == "agent" else d["self_framings"]
        choices = [p for p in same if p.lower() != prefix.lower()]
        after_verb = re.match(r"[A-Za-z']+\s+([A-Za-z']+)", rest)
        object_me = bool(after_verb and after_verb.group(1).lower() in ("me", "us"))
        # "Book me a flight" -> "I need to book me a flight" is wrong: the user is the object
        if nxt in d["action_verbs"] and not (group == "agent" and object_me):
            other = d["self_framings"] if group == "agent" else d["agent_framings"]
            choices += [p for p in other if p.lower() != prefix.lower()]
    if "please" in rest.lower():  # no "Please ... please"
        choices = [p for p in choices if "please" not in p.lower()]
    if not choices:
        return []
    new_prefix = rng.choice(choices)
    at_start = g_end == 0
    new_text = new_prefix
    verb = rest[0]
    if new_prefix == "":
        verb = verb.upper() if at_start else verb.lower()
    else:
        verb = verb if re.match(r"I\b", rest) else verb.lower()
        if not at_start and not re.match(r"I\b", new_text):
            new_text = new_text[0].lower() + new_text[1:]
    edits: list[Edit] = [(start + g_end, start + g_end + len(prefix) + 1, new_text + verb)]
    last = masked[end - 1]
    if last in ".?":
        want = "?" if _is_question(new_prefix) else "."
        if want != last:
            edits.append((end - 1, end, want))
    return [("framing", edits)]


def _word_before(masked: str, pos: int) -> str:
    m = re.search(r"([A-Za-z']+)\W*$", masked[:pos])
    return m.group(1) if m else ""


def _word_after(masked: str, pos: int) -> str:
    m = re.match(r"\W*?([A-Za-z']+)", masked[pos:])
    return m.group(1).lower() if m else ""


def _value_follows(masked: str, pos: int) -> bool:
    return masked[pos:].lstrip(" ").startswith("\ue000")


@functools.lru_cache(maxsize=1)
def _phrase_rules() -> list[tuple[dict[str, Any], re.Pattern[str]]]:
    return [
        (entry, re.compile(r"(?<![\w'])" + re.escape(entry["from"]) + r"(?![\w'])", re.I))
        for entry in _data()["phrases"]
    ]


def _phrase_ops(masked: str, rng: random.Random) -> list[Op]:
    ops: list[Op] = []
    low = masked.lower()
    for entry, rx in _phrase_rules():
        if entry["from"] not in low:
            continue
        for m in rx.finditer(masked):
            before = _word_before(masked, m.start())
            after = _word_after(masked, m.end())
            if "only_after" in entry and before.lower() not in entry["only_after"]:
                continue
            if before.lower() in entry.get("not_after", ()) or before in entry.get("not_after", ()):
                continue
            if "only_before" in entry and after not in entry["only_before"]:
                continue
            if after in entry.get("not_before", ()):
                continue
            if entry.get("before_value") and not _value_follows(masked, m.end()):
                continue
            new = match_case(m.group(), rng.choice(entry["to"]))
            ops.append(("word:" + entry["from"], [(m.start(), m.end(), new)]))
    return ops


def _structure_ops(masked: str, spans: list[tuple[int, int]]) -> list[Op]:
    d = _data()
    ops: list[Op] = []
    for a, b in spans:
        s = masked[a:b]
        if s.lower().startswith("please ") and s[-1] in ".!" and len(s) > 12:
            rest = s[7:]
            if rest[:1].isalpha() and rest.split(" ", 1)[0].lower() in d["action_verbs"]:
                ops.append(("please_to_end", [(a, a + 8, rest[0].upper()), (b - 1, b, ", please" + s[-1])]))
        m = re.search(r",\s+please([.!])$", s, re.I)
        if m and s[:1].isalpha() and s.split(" ", 1)[0].lower() in d["action_verbs"]:
            edits = [(a, a + 1, "Please " + s[0].lower()), (a + m.start(), b, m.group(1))]
            ops.append(("please_to_front", edits))
        for m in re.finditer(r",?\s+and\s+([a-z]+)\b", s):
            if m.group(1) in d["action_verbs"] and m.start() > 0:
                k = a + m.start()
                split: list[Edit] = [(k, a + m.start(1) + 1, ". " + m.group(1)[0].upper())]
                if s[-1] in ".?!":  # claim the end so a framing edit cannot move the "?"
                    split.append((b - 1, b, s[-1]))
                ops.append(("split_and", split))
    for (a1, b1), (a2, b2) in zip(spans, spans[1:], strict=False):
        first, second = masked[a1:b1], masked[a2:b2]
        word = second.split(" ", 1)[0]
        if first.endswith(".") and word.lower() in d["action_verbs"] and word[:1].isupper():
            if first.split(" ", 1)[0].lower() in d["action_verbs"]:
                ops.append(("join_and", [(b1 - 1, a2 + 1, " and " + second[0].lower())]))
    return ops


def _apply(masked: str, edits: list[Edit]) -> str:
    for a, b, new in sorted(edits, reverse=True):
        masked = masked[:a] + new + masked[b:]
    return masked


def _overlaps(edits: list[Edit], taken: list[Edit]) -> bool:
    return any(a < tb and ta < b or (a == ta and b == tb) for a, b, _ in edits for ta, tb, _ in taken)


def generate(ctx: TaskContext, level: float, rng: random.Random, index: int = 0) -> Variant:
    masked = ctx.masked
    spans = sentence_spans(masked)
    ops: list[Op] = []
    for a, b in spans:
        ops.extend(_framing_ops(masked, a, b, rng))
    ops.extend(_phrase_ops(masked, rng))
    ops.extend(_structure_ops(masked, spans))
    if not ops:
        raise SkipGeneration(
            "no paraphrase rule applies (no known request framing, phrase or clause to rewrite)"
        )
    rng.shuffle(ops)
    taken: list[Edit] = []
    names: list[str] = []
    text = ctx.prompt
    for name, edits in ops:
        if _overlaps(edits, taken):
            continue
        candidate = ctx.unmask(_apply(masked, taken + edits))
        if candidate == text:
            continue
        taken.extend(edits)
        names.append(name)
        text = candidate
        if measure(ctx, text, {}) >= level:
            break
    if text == ctx.prompt:
        raise SkipGeneration("no paraphrase rule changes this prompt")
    return Variant(text=text, details={"rules": names})


def measure(ctx: TaskContext, text: str, details: dict[str, Any]) -> float:
    return rounded(word_change_share(ctx.free_words, free_words_of(ctx, text)))
