"""Reorder, round six of issue #14: the general causes of the false labels on heldout3, with
the exact texts every level and seed can give. The prompts are written for these tests (none is
from a benchmark set)."""

from __future__ import annotations

import pytest

from tests.test_reorder_rules import _all_texts, _task


@pytest.mark.parametrize(
    ("prompt", "slots", "expected"),
    [
        # a value after a determiner or quantifier ends its noun phrase: "another" is never
        # left behind ("for another at the Hove branch six months")
        (
            "Extend my gym membership for another six months at the Hove branch.",
            {"duration": "six months", "branch": "Hove"},
            {"Extend my gym membership at the Hove branch for another six months."},
        ),
        ("Renew the parking permit for an extra two weeks.", {"duration": "two weeks"}, set()),
        # "<lead time> before/after <event>" is one time: neither the phrase nor the clause
        # moves away from its lead time
        ("Send me a reminder three days before my dentist appointment", {"lead": "three days"}, set()),
        ("Ping me an hour before the meeting with Dana", {"lead": "an hour", "name": "Dana"}, set()),
        # "<day> for <day>" is an exchange, and "next week" qualifies the day before it
        ("can we move monday for wednesday next week", {"a": "monday", "b": "wednesday"}, set()),
        # ... but "for <duration>" after a clock time inside a phrase is no exchange; since
        # round nine "with <person>" is a phrase the times pass (tests/test_reorder_round9.py)
        (
            "book a lesson with Ms Park for friday at 3 pm for two hours",
            {"name": "Ms Park", "day": "friday", "time": "3 pm", "dur": "two hours"},
            {
                "book a lesson for friday at 3 pm for two hours with Ms Park",
                "book a lesson for friday at 3 pm with Ms Park for two hours",
                "book a lesson for two hours for friday at 3 pm with Ms Park",
                "book a lesson for two hours with Ms Park for friday at 3 pm",
                "book a lesson with Ms Park for two hours for friday at 3 pm",
            },
        ),
        # a clock time after a deadline belongs to it ("at 9 by Monday" is another time)
        ("Please have the report ready by Monday at 9", {"day": "Monday", "time": "9"}, set()),
        # a question never opens with a deadline ("By Friday, can it ...?"); a plain day may
        ("Can it be delivered to my office by Friday?", {"day": "Friday"}, set()),
        (
            "Can it be delivered to my office on Friday?",
            {"day": "Friday"},
            {"On Friday, can it be delivered to my office?"},
        ),
        (
            "I ordered a birthday cake for my son. My budget is £40. Could it be sent to the school by 11am?",
            {"amount": "£40", "time": "11am"},
            # round seven: a value statement is no referent, so it may follow the question
            {
                "I ordered a birthday cake for my son. Could it be sent to the school by 11am? My budget is £40."
            },
        ),
        # a possessive stays on its value when the sentence is rebuilt ("Sam's", never "Sam 's")
        (
            "I left Sam's coat at the Leeds gym on Friday. Do you have a lost property desk?",
            {"name": "Sam", "day": "Friday"},
            {
                "Do you have a lost property desk? I left Sam's coat at the Leeds gym on Friday.",
                "Do you have a lost property desk? On Friday, I left Sam's coat at the Leeds gym.",
                "On Friday, I left Sam's coat at the Leeds gym. Do you have a lost property desk?",
                "I left Sam's coat on Friday at the Leeds gym. Do you have a lost property desk?",
                "Do you have a lost property desk? I left Sam's coat on Friday at the Leeds gym.",
            },
        ),
    ],
)
def test_round_six_keeps_units(prompt: str, slots: dict[str, str], expected: set[str]) -> None:
    assert _all_texts(_task(prompt, slots)) == expected


@pytest.mark.parametrize(
    ("prompt", "slots", "expected"),
    [
        # "about <value>" names a topic and is a phrase of its own ("about 6" is an amount)
        (
            "We talked on the phone on Monday about invoice 7731. Has it been paid yet?",
            {"day": "Monday", "inv": "7731"},
            {"We talked on the phone about invoice 7731 on Monday. Has it been paid yet?"},
        ),
        # "outside <place>" is a place phrase that a time may pass
        (
            "Reserve a parking space outside 9 Kings Road from the 3rd to the 5th of May",
            {"addr": "9 Kings Road", "a": "the 3rd", "b": "the 5th of May"},
            {"Reserve a parking space from the 3rd to the 5th of May outside 9 Kings Road"},
        ),
        # "every <day>" repeats the order itself: it may open it after a preposition's noun,
        # never before a verb that arranges something or a "want"
        (
            "put £20 into my savings pot every friday",
            {"amount": "£20", "day": "friday"},
            {"every friday, put £20 into my savings pot"},
        ),
        (
            "Book a spin class at the Leeds gym every Monday",
            {"day": "Monday"},
            {"Book a spin class every Monday at the Leeds gym"},
        ),
        # a word that can arrange ("plan") is a noun after a determiner or a value: the order
        # may open with its time; as the verb it may not
        (
            "Upgrade me to the gold plan from next month.",
            {"plan": "gold", "when": "next month"},
            {"From next month, upgrade me to the gold plan."},
        ),
        ("Plan my route from next month.", {"when": "next month"}, set()),
        # a place named by a value after the head ("at the Eastfield surgery") lets a later
        # time pass it; "for the <value> show" still completes its noun
        (
            "i need a flu jab at the Eastfield surgery next week",
            {"place": "Eastfield"},
            {"i need a flu jab next week at the Eastfield surgery"},
        ),
        ("Send the tickets for the Ivy show to me next week", {"v": "Ivy"}, set()),
        ("I want to go to the gym every day", {}, set()),
    ],
)
def test_round_six_moves(prompt: str, slots: dict[str, str], expected: set[str]) -> None:
    assert _all_texts(_task(prompt, slots)) == expected
