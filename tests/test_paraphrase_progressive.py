"""A wh-question whose subject is followed by a progressive verb is asked indirectly with "is"
before the verb ("when the sweep is coming on Thursday"), never after the whole subject ("when
the sweep coming on Thursday is"); a noun in -ing is not a verb."""

from __future__ import annotations

import random

import pytest

from perturb.generate.perturbations.paraphrase import question_ops

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
