"""A wh-question whose subject is followed by a progressive verb is asked indirectly with "is"
before the verb ("when the sweep is coming on Thursday"), never after the whole subject ("when
the sweep coming on Thursday is"); a noun in -ing is not a verb."""

from __future__ import annotations

import random
import re

import pytest

from perturb.generate.perturbations.paraphrase import question_ops
from tests.test_paraphrase_round11 import variants

LEADS = [("Could you tell me ", "?")]


def _asked(sentence: str) -> list[str]:
    return [op[1][0][2] for op in question_ops(sentence, 0, len(sentence), random.Random(0), LEADS)]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("When is the sweep coming on Thursday?", "Could you tell me when the sweep is coming on Thursday?"),
        ("When is the fitter actually coming?", "Could you tell me when the fitter is actually coming?"),
        ("When is the building work starting?", "Could you tell me when the building work is starting?"),
        ("When is your Saturday morning class?", "Could you tell me when your Saturday morning class is?"),
        ("When is the wedding?", "Could you tell me when the wedding is?"),
        ("When is the library open on Saturday?", "Could you tell me when the library is open on Saturday?"),
    ],
)
def test_is_goes_before_the_progressive_verb(sentence: str, expected: str) -> None:
    assert _asked(sentence) == [expected]


def test_an_ing_word_before_a_noun_is_part_of_the_subject() -> None:
    assert _asked("When is my next driving lesson?") == ["Could you tell me when my next driving lesson is?"]


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        # a contracted "'s" after the question word: "is" before the progressive verb too
        (
            "Alexa, when's the kitchen fitter coming on Monday?",
            ["Alexa, tell me when the kitchen fitter is coming on Monday."],
        ),
        ("what's the electrician doing on Friday?", None),
        # after a preposition an -ing word names a thing: "is" goes last, as before
        ("What's the price of teeth whitening?", None),
    ],
)
def test_a_contracted_wh_question_puts_is_before_its_progressive_verb(
    prompt: str, expected: list[str] | None
) -> None:
    got = variants(prompt)
    if expected is not None:
        assert got == expected
    assert got and not any(
        re.search(r"\b(?:coming|doing|whitening) on Friday is|doing on Friday is|coming on Monday is", t)
        for t in got
    ), got


def test_a_contracted_question_whose_ing_word_ends_it_is_refused() -> None:
    # "When's the plumber coming?" — "is" after "coming" is wrong, before it would be wrong for
    # "When's the teeth whitening?": neither is guessed
    assert variants("When's the plumber coming?") == []
    assert variants("When's the teeth whitening?") == []
    assert variants("What's the electrician doing on Friday?")[0].endswith(
        "what the electrician is doing on Friday?"
    )
    assert variants("What's the price of teeth whitening?")[0].endswith(
        "what the price of teeth whitening is?"
    )
    assert variants("whats the plan for the wiring")[0].endswith("what the plan for the wiring is")
