"""Review of round nine's generator changes: the bugs a red-team pass found, each with the input
that showed it. Every prompt is written for the test (none is from a benchmark set)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.generate.perturbations import CLASSES, SkipGeneration, prepare, register, reorder
from perturb.generate.perturbations._text import trailing_clause
from perturb.generate.perturbations._wrong import is_year, wrong_count, wrong_value
from perturb.records import Task

DIGITS = "9" * 5000
"""A number longer than ``int()`` converts (4,300 digits)."""


def _draws(prompt: str, cls: str, slots: dict[str, str] | None = None) -> int:
    """How many variants ``cls`` gives over three levels and three seeds (a skip is no
    variant); raises whatever the generator raises."""
    task = Task(id="t", prompt=prompt, expected="ok", grader="exact", slots=slots or {})  # type: ignore[arg-type]
    made = 0
    for level in (0.1, 0.5, 1.0):
        for seed in range(3):
            try:
                CLASSES.get(cls).generate(prepare(task), level, random.Random(seed), seed)
                made += 1
            except SkipGeneration:
                continue
    return made


@pytest.mark.parametrize(
    ("prompt", "slots"),
    [
        (DIGITS, {}),  # wrong_count: int() of the whole run
        (f"Call {DIGITS} now", {}),
        (f"Pay ${DIGITS} now", {}),  # an amount: int() of the digits
        ("Send " + ",".join(["999"] * 1600) + " units", {}),  # commas: 4,800 digits
        (f"Use Python 3.{DIGITS} please", {}),  # a version's last part
        (f"Account {DIGITS} please", {"acct": DIGITS}),  # a declared code: the zip/account path
    ],
)
def test_a_number_of_thousands_of_digits_never_crashes_self_correction(
    prompt: str, slots: dict[str, str]
) -> None:
    # ValueError "Exceeds the limit (4300 digits) for integer string conversion" before
    assert _draws(prompt, "self_correction", slots) >= 0


def test_a_number_of_thousands_of_digits_gets_no_wrong_count() -> None:
    rng = random.Random(0)
    assert wrong_count(f"${DIGITS}", rng, money=True) is None
    assert wrong_count(DIGITS, rng) is None
    assert wrong_count("1," + ",".join(["999"] * 6), rng, money=True) is None  # 19 digits
    assert wrong_count("$1,999,999", random.Random(0), money=True) is not None  # 7 digits: still a figure
    assert wrong_value(DIGITS, "slot", random.Random(0)) is not None  # an ID: a digit slip


def test_is_year_against_hand_values() -> None:
    assert is_year("2024") and is_year(" 1900 ") and is_year("2100") and is_year("02024")
    assert not is_year("1899") and not is_year("2101") and not is_year("12024") and not is_year(DIGITS)


def test_perturb_generate_survives_a_number_of_thousands_of_digits(tmp_path: Path) -> None:
    (tmp_path / "tasks").mkdir()
    path = tmp_path / "tasks" / "big.jsonl"
    rows = [
        {
            "id": "big-001",
            "prompt": f"Please refund ${DIGITS} to my card.",
            "expected": "ok",
            "grader": "exact",
        }
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    result = CliRunner().invoke(
        app, ["generate", str(path), "--classes", "self_correction", "--per-class", "1"]
    )
    assert result.exit_code == 0, result.output


# --------------------------------------------------------------------------- linear on runs of spaces
# These inputs took seconds to minutes before the fixes; the tests pin what the rewritten
# regexes match. Speed itself is shown by benchmarks/bench_adversarial.py (no timed tests).


def test_story_question_tag_is_linear_in_a_run_of_spaces() -> None:
    # ", don't you" and ", right" then 40,000 spaces and no "?": "\s*[?.!]*\s*$" split the run
    # n^2 ways before failing (7 s at 20,000 spaces); read once now
    for tail in ("x, don't you", "x, right"):
        assert reorder._STORY_QUESTION_RE.search(tail + " " * 40000 + "y") is None
    # the same texts as before on what the rule is for
    assert reorder._STORY_QUESTION_RE.search("We need more, don't you?")
    assert reorder._STORY_QUESTION_RE.search("We need more, don't you  ?! ")
    assert reorder._STORY_QUESTION_RE.search("That's the one, right ?")
    assert not reorder._STORY_QUESTION_RE.search("We need more, don't you think so?")


def test_clause_tail_is_linear_in_a_run_of_spaces() -> None:
    # "(?:\s+please...)+\s*$" tried at every space of a run (2.4 s at 10,000 spaces)
    assert reorder._CLAUSE_TAIL_RE.search("send a fuse" + " " * 40000 + "?") is None
    m = reorder._CLAUSE_TAIL_RE.search("send a fuse   please thanks ")
    assert m is not None and m.group() == "   please thanks "


def test_expanding_many_tag_questions_is_linear() -> None:
    # each "isn't" searched the whole text before it for a question's start: 4.6 s at 40,000
    # characters of "it's stopped heating it's closed isn't it odd"
    text = "it's stopped heating it's closed isn't it odd " * 2000
    register._expand(text)
    # a question's start still counts: the message's start, a stop, or a question word
    assert register._expand("Why hasn't it been filled?") == "Why has it not been filled?"
    assert register._expand("Hasn't it arrived?") == "Has it not arrived?"
    assert register._expand("We waited. Hasn't it come?") == "We waited. Has it not come?"
    assert re.search(r"hasn't it", register._expand("Well hasn't it come?"))


def test_trailing_clause_is_linear_in_a_run_of_spaces() -> None:
    # "\s*[;—–]\s*" tried at every space of a run: register took 12.7 s on a 10,000-space run
    # before "?" and 168 s on 40,000 (this and the reorder regexes above)
    assert trailing_clause("Can you send a fuse, right" + " " * 40000 + "?") is None
    # the separators it finds are the ones it found before
    assert trailing_clause("Cancel booking BK-1 please, my conference was called off.") == (26, 28)
    assert trailing_clause("Send it  ;  we need it.") == (7, 12)
    assert trailing_clause("Send it - we need it.") == (7, 10)
    assert trailing_clause("Send it  and we will pay.") == (7, 13)
    assert trailing_clause("Send it ,  and we pay.") == (8, 15)


def test_a_long_run_of_spaces_before_the_question_mark_is_linear() -> None:
    # 40,000 spaces between ", don't you" and "?": reorder took 17.7 s (its clause split),
    # paraphrase 12.6 s (trailing_clause), register 139 s (its closing regex); under a tenth
    # of a second each now
    prompt = "Our sauna heater tripped on Monday. We paid $90 for the callout. Can you send a fuse, don't you"
    task = Task(id="t", prompt=prompt + " " * 40000 + "?", expected="ok", grader="exact")  # type: ignore[arg-type]
    ctx = prepare(task)
    for cls in ("paraphrase", "reorder", "distractor", "self_correction", "typo", "register"):
        try:
            CLASSES.get(cls).generate(ctx, 0.5, random.Random(1), 0)
        except SkipGeneration:
            pass


def test_closing_and_split_read_as_before() -> None:
    m = register._CLOSING_RE.search("Send it over   thanks in advance! ")
    assert m is not None and m.group() == "   thanks in advance! "
    assert register._CLOSING_RE.search("Send it" + " " * 40000 + "x") is None


# Round ten's review: paraphrase's price and "still"/"yet" rules read every candidate to the
# sentence's end ("what would it cost and what would it cost and ... ." or "the gate hasn't
# been fixed the gate hasn't been fixed ... ." with no "yet"): quadratic, 3.2 s at 80,000
# characters against 0.37 s at 20,000. Each now reads only the part a match can lie in.

_PRICE_AND_STILL = [
    "Roughly what would a new gutter cost?",
    "How much would a new gutter cost",
    "Hi. What would it cost and when? How much would the skip cost?",
    "what would it cost and what would it cost. How much does a skip cost?",
    "What would it cost! what would the van cost",
    "My boiler still hasn't been fixed.",
    "My boiler hasn't been fixed yet.",
    "Sorry, my boiler still hasn't been fixed by the plumber.",
    "The gate hasn't been fixed, and the fence hasn't been painted yet.",
    "The gate still hasn't been fixed since Monday.",
    "It still hasn't been fixed Tom.",
    "It still hasn't been fixed.\n",
    "The gate hasn't been fixed yet?",
]


@pytest.mark.parametrize("sentence", _PRICE_AND_STILL)
def test_price_and_still_rules_find_what_a_full_search_finds(sentence: str) -> None:
    from perturb.generate.perturbations import paraphrase

    got = paraphrase._price_wh_ops(sentence, 0, len(sentence)) + paraphrase._still_yet_ops(
        sentence, 0, len(sentence)
    )
    # the rules as round ten wrote them: one search of the whole sentence
    want = []
    m = paraphrase._PRICE_WH_RE.search(sentence)
    if (
        m
        and not paraphrase._has_verbish(m.group("np"))
        and not paraphrase._NEW_CLAUSE_RE.search(m.group("np"))
    ):
        if not (paraphrase._SECOND_ASK_RE.search(sentence) or paraphrase._OR_ASK_RE.search(sentence)):
            new = {"what": "how much", "how much": "what"}[m.group("wh").lower()]
            new = new[0].upper() + new[1:] if m.group("wh")[0].isupper() else new
            want.append(("question:price_word", [(m.start("wh"), m.end("wh"), new)]))
    for rx, still in ((paraphrase._STILL_PERFECT_RE, True), (paraphrase._YET_PERFECT_RE, False)):
        m = rx.search(sentence)
        if (
            not m
            or paraphrase._NOT_IN_YET_CLAUSE.search(m.group("rest"))
            or m.group("pp") in paraphrase._VERBISH - {"been"}
        ):
            continue
        clause = f"{m.group('aux')} {m.group('pp')}{m.group('rest')}"
        new = f"{clause} yet{m.group('end')}" if still else f"still {clause}{m.group('end')}"
        want.append(("structure:still_yet", [(m.start(), len(sentence), new)]))
        break
    assert got == want


def test_price_and_still_rules_hand_checked() -> None:
    from perturb.generate.perturbations import paraphrase

    s = "Hi. What would it cost and when? How much would the skip cost?"
    assert paraphrase._price_wh_ops(s, 0, len(s)) == []  # a second question joined on
    s = "Roughly how much would a new gutter cost?"
    assert paraphrase._price_wh_ops(s, 0, len(s)) == [("question:price_word", [(8, 16, "what")])]
    s = "My boiler still hasn't been fixed."
    assert paraphrase._still_yet_ops(s, 0, len(s)) == [
        ("structure:still_yet", [(10, 34, "hasn't been fixed yet.")])
    ]
    s = "Sorry, my boiler hasn't been fixed yet."
    assert paraphrase._still_yet_ops(s, 0, len(s)) == [
        ("structure:still_yet", [(17, 39, "still hasn't been fixed.")])
    ]
    assert paraphrase._asked_parts("A? b. c! d") == [(0, 2), (8, 10)]


@pytest.mark.parametrize(
    "prompt",
    [
        "what would it cost and " * 3000 + ".",
        "the gate hasn't been fixed " * 3000 + ".",
        "it still hasn't been fixed and " * 3000 + "and Tom, ok.",
    ],
)
def test_repeated_price_and_still_clauses_generate(prompt: str) -> None:
    # quadratic before (the bench's "asks_run" and these patterns); the variants still come
    assert _draws(prompt, "paraphrase") >= 0


@pytest.mark.parametrize(
    "sentence",
    ["It still hasn't been fixed yet.", "The refund Still hasn't come through to me yet."],
)
def test_still_and_yet_together_are_left_alone(sentence: str) -> None:
    from perturb.generate.perturbations import paraphrase

    # round ten moved "yet" to "still" before an auxiliary that had "still" already:
    # "It still hasn't been fixed yet." -> "It still still hasn't been fixed."
    assert paraphrase._still_yet_ops(sentence, 0, len(sentence)) == []


def test_still_and_yet_never_doubles_still_in_a_variant() -> None:
    task = Task(id="t", prompt="My boiler still hasn't been fixed yet.", expected="ok", grader="exact")  # type: ignore[arg-type]
    ctx = prepare(task)
    for level in (0.1, 0.5, 1.0):
        for seed in range(6):
            try:
                text = CLASSES.get("paraphrase").generate(ctx, level, random.Random(seed), seed).text
            except SkipGeneration:
                continue
            assert "still still" not in text.lower()


@pytest.mark.parametrize(
    "sentence",
    [
        "What will the costume look like?",
        "What would a costing exercise show?",
        "What did the costs include?",
    ],
)
def test_a_word_that_starts_with_cost_is_no_price_question(sentence: str) -> None:
    from perturb.generate.perturbations import paraphrase

    # round ten read "cost" inside "costume": "How much will the costume look like?"
    assert paraphrase._price_wh_ops(sentence, 0, len(sentence)) == []
