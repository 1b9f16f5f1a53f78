"""Reorder, round eight of issue #14: the kinds of fault seen on heldout5 -- a time moved off
the event noun it belongs to, a time placed between a name and its place, a question moved
before the statement it evaluates, a question whose verb leaves its object to earlier text
opening the message -- with the exact texts every level and seed can give. The prompts are
written for these tests (none is from a benchmark set)."""

from __future__ import annotations

import pytest

from tests.test_reorder_rules import _all_texts, _task


@pytest.mark.parametrize(
    ("prompt", "slots"),
    [
        # a time after an event noun ("for delivery") is the event's: moved, it would time the order
        (
            "Alexa, order two baguettes from Hill Bakery for delivery at 7am Saturday.",
            {"n": "two", "shop": "Hill Bakery", "t": "7am Saturday"},
        ),
        # a place after a name, the verb behind it, locates the name: no time comes between
        (
            "Hey Google, when does Lee's Pharmacy on King Street close today?",
            {"shop": "Lee's Pharmacy", "st": "King Street", "d": "today"},
        ),
        # a question ending in a verb's particle ("measure up") needs what was said before it
        (
            "I need a new fence of about 12 metres at 4 Oak Lane. Could someone come and measure up?",
            {"n": "12 metres", "a": "4 Oak Lane"},
        ),
        # "Is anyone available?" judges what was asked for before it: it never opens the message
        ("I need a plumber for a leak under the sink. Is anyone available?", {}),
    ],
)
def test_round_eight_refusals(prompt: str, slots: dict[str, str]) -> None:
    assert _all_texts(_task(prompt, slots)) == set()


def test_statement_before_a_back_reference_stays_before_it() -> None:
    """ "Is that enough?" asks about the budget right before it: the budget never moves behind
    it; the phrases of the first sentence still may."""
    texts = _all_texts(
        _task(
            "I want a party for 30 guests on 5 June. My budget is around £600. Is that enough?",
            {"n": "30", "d": "5 June", "b": "£600"},
        )
    )
    assert texts == {"I want a party on 5 June for 30 guests. My budget is around £600. Is that enough?"}
