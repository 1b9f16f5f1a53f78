"""Round eleven of issue #14 (self_correction): rules about kinds of value, not wording -- the
second value of a pair set against the first by "instead of"/"rather than" (the old day, the
old date, the other town) may be misstated and corrected where it stands, but never a count or
an amount (a comparison a wrong value may turn round); a person the user enters or signs up
for something is never misnamed; and a few more names used by either sex ("Sasha", "Jamie")
give "Sam" and "Jan" a sound-alike. Every prompt here is written for this file."""

from __future__ import annotations

import pytest

from perturb.generate.perturbations._context import SkipGeneration
from tests.test_round10_self_correction_coverage import _task, _texts


def test_the_old_value_after_instead_of_is_corrected_where_it_stands() -> None:
    texts = _texts(_task("Can Priya do Friday instead of Tuesday?", new_day="Friday", old_day="Tuesday"))
    assert texts == {
        "Can Priya do Friday instead of Monday, no, Tuesday?",
        "Can Priya do Friday instead of Thursday, no, Tuesday?",
        "Can Priya do Friday instead of Wednesday, I mean Tuesday?",
        "Can Priya do Friday instead of Wednesday, no, Tuesday?",
    }


def test_the_first_value_of_a_contrasted_pair_is_still_never_corrected() -> None:
    # "Thursday, no, Friday instead of Tuesday" would be three days in a row
    for text in _texts(_task("Can Priya do Friday instead of Tuesday?", new_day="Friday", old_day="Tuesday")):
        assert text.startswith("Can Priya do Friday instead of ")


def test_a_date_after_rather_than_is_corrected() -> None:
    task = _task("Could the cleaner come on the 14th rather than the 12th?", new="the 14th", old="the 12th")
    assert _texts(task, seeds=4) == {
        "Could the cleaner come on the 14th rather than the 10th, no wait, the 12th?",
        "Could the cleaner come on the 14th rather than the 10th, no, the 12th?",
        "Could the cleaner come on the 14th rather than the 11th, no, the 12th?",
    }


def test_a_count_after_instead_of_is_never_misstated() -> None:
    # "with 5 instead of 4, I mean 6" turns the comparison round
    with pytest.raises(SkipGeneration):
        _texts(_task("Can we still take the boat with 5 instead of 6?", new="5", old="6"), seeds=1)


def test_a_person_the_user_enters_for_something_is_never_misnamed() -> None:
    task = _task("I'd like to enter Sam for the piano exam in June.", name="Sam", month="June")
    assert all(text.startswith("I'd like to enter Sam for the piano exam in ") for text in _texts(task))


def test_sam_has_a_sound_alike_now() -> None:
    task = _task("Alexa, ring the surgery and ask for Sam.", contact="Sam")
    assert _texts(task, seeds=3) == {"Alexa, ring the surgery and ask for Sasha, no, Sam."}
