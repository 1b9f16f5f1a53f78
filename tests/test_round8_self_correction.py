"""Round eight of issue #14 (self_correction): wrong values that agree with their sentence."""

from __future__ import annotations

import random

import pytest

from perturb.generate.perturbations._wrong import tense, wrong_count, wrong_value


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        # a past verb right before the value: what happened, whatever a later clause asks
        ("hey the cake we picked up ", " was chocolate its for tonight can you make another", "past"),
        ("I just sent it ", " and can you confirm", "past"),
        # wanting or a preposition pointing ahead says nothing: the sentence decides
        ("I wanted it ", " if you can", "future"),
        ("we paid for ", " can you deliver", "future"),
    ],
)
def test_tense_reads_the_verb_right_before_the_value(before: str, after: str, expected: str) -> None:
    assert tense(before, after) == expected


def test_one_singular_s_noun_takes_es_after_a_higher_count() -> None:
    assert {wrong_count("one canvas", random.Random(seed)) for seed in range(20)} == {
        "two canvases",
        "three canvases",
    }
    assert {wrong_count("1 lens", random.Random(seed)) for seed in range(20)} == {"2 lenses", "3 lenses"}


@pytest.mark.parametrize("value", ["one series", "one kids meal", "one glasses"])
def test_one_with_a_noun_that_cannot_agree_is_refused(value: str) -> None:
    assert wrong_count(value, random.Random(0)) is None


def test_a_range_word_is_not_a_counted_noun() -> None:
    out = {wrong_count("from 2 till 3", random.Random(seed)) for seed in range(20)}
    assert out == {"from 1 till 3"}


def test_whole_days_of_hours_move_by_a_day() -> None:
    out = {wrong_count("48 hours", random.Random(seed)) for seed in range(20)}
    assert out == {"24 hours", "72 hours"}


def test_a_milestone_ordinal_is_not_misstated() -> None:
    rng = random.Random(0)
    assert wrong_count("70th", rng, " on Saturday", before="I'm organising my mum's ") is None
    assert wrong_count("40th", rng, " anniversary dinner", before="for our ") is None


def test_a_possessive_relative_date_never_becomes_earlier_this() -> None:
    rng = random.Random(0)
    assert wrong_value("last month's", "slot", rng, before="reorder ", after=" office lunch") is None


def test_a_bare_hour_stays_on_the_twelve_hour_clock() -> None:
    got = {
        wrong_value(
            "at 12", "slot", random.Random(seed), before="meant to be here ", after=" and we've got 14 people"
        )
        for seed in range(20)
    }
    assert got == {"at 10", "at 11"}
    assert {wrong_value("12", "time", random.Random(seed)) for seed in range(20)} == {"10", "11"}
