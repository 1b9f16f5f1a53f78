"""Reorder, round five of issue #14: the new kinds of move, with the exact texts every level and
seed can give. The prompts are written for these tests (none is from a benchmark set)."""

from __future__ import annotations

import pytest

from perturb.generate.perturbations import measure_epsilon
from tests.test_reorder_rules import _all_texts, _task


@pytest.mark.parametrize(
    ("prompt", "slots", "expected"),
    [
        # a past time ("last night") opens a past-tense statement; a time that names when
        # something happened cannot be the time of a thing arranged
        (
            "My flight was cancelled last night. Can I get a refund?",
            {},
            {
                "Last night, my flight was cancelled. Can I get a refund?",
                "Can I get a refund? My flight was cancelled last night.",
                "Can I get a refund? Last night, my flight was cancelled.",
            },
        ),
        # ... never when the head has a present, a modal or a second clause it could belong to
        ("I need to cancel the order I placed last week.", {}, set()),
        # two noun phrases after a verb swap; a phrase that belongs to both ("to my work
        # email") stays after them
        (
            "Please send the invoice and the receipt to my work email.",
            {},
            {"Please send the receipt and the invoice to my work email."},
        ),
        # never a fixed pair without a second determiner, never when a later "it" may mean
        # the nearer one, never before "from X" (which may belong to the second alone)
        ("Bring the salt and pepper.", {}, set()),
        # ... nor after a preposition (the second may be the partner of the noun before it),
        # nor when one of them leans on the other ("the new one")
        ("Book a table for two and a high chair.", {}, set()),
        ("Replace the old filter and the new one.", {}, set()),
        ("I bought a tent and a stove last week. It was broken.", {}, set()),
        ("Order a pizza and two cokes from Luigi.", {}, set()),
        # a trailing "if" clause with its own subject opens the sentence
        (
            "What time do you close if the match runs late?",
            {},
            {"If the match runs late, what time do you close?"},
        ),
        (
            "Deliver the wardrobe to the back door if nobody answers at the front.",
            {},
            {"If nobody answers at the front, deliver the wardrobe to the back door."},
        ),
        # after "tell/know/check ..." an "if/when" clause asks indirectly: it is no condition
        ("Could you tell me if the pool is open?", {}, set()),
        ("Do you know when the shop opens?", {}, set()),
        # ... never one that refers back ("it" would come before what it names)
        ("Can you call me back when it is fixed?", {}, set()),
        (
            "We were charged $40 for delivery even though we collected the sofa ourselves.",
            {"amount": "$40"},
            {"Even though we collected the sofa ourselves, we were charged $40 for delivery."},
        ),
        (
            "Can you hold my post until we get back from Spain?",
            {"country": "Spain"},
            {"Until we get back from Spain, can you hold my post?"},
        ),
        # "until 3 March" is a preposition's phrase, not a second clause
        (
            "Please forward my calls to reception while I am away until 3 March.",
            {"date": "3 March"},
            {"While I am away until 3 March, please forward my calls to reception."},
        ),
        # a relative "that" ("a venue that has a projector") names the noun before it: the
        # sentence does not refer back, so the budget may come before it
        (
            "We need a room for 20 people on Friday. Do you have a venue that has a projector? "
            "Our budget is around $900.",
            {"budget": "$900", "day": "Friday"},
            {
                "We need a room for 20 people on Friday. Our budget is around $900. "
                "Do you have a venue that has a projector?",
                "We need a room on Friday for 20 people. Do you have a venue that has a projector? "
                "Our budget is around $900.",
                "We need a room on Friday for 20 people. Our budget is around $900. "
                "Do you have a venue that has a projector?",
            },
        ),
        # "that" after a verb is the thing said before: nothing lands right before it
        (
            "My order never came. I know that is not your fault. The order number is 5512.",
            {"order": "5512"},
            set(),
        ),
        # a value statement that ends the message may move in front of the question before
        # it, never to the front of the message
        (
            "I run a small bakery. Do you deliver flour in bulk? My budget is around $500 a month.",
            {"budget": "$500"},
            {
                "I run a small bakery. My budget is around $500 a month. Do you deliver flour in bulk?",
                "Do you deliver flour in bulk? I run a small bakery. My budget is around $500 a month.",
            },
        ),
        # a list of three things after a verb comes in another order, commas and "and" kept
        # where they were (an Oxford comma stays); a phrase after it belongs to all of them
        (
            "Add rice, lentils and a bag of onions to my order.",
            {},
            {
                "Add a bag of onions, lentils and rice to my order.",
                "Add a bag of onions, rice and lentils to my order.",
                "Add lentils, a bag of onions and rice to my order.",
                "Add rice, a bag of onions and lentils to my order.",
            },
        ),
        (
            "Could you pack sunscreen, two towels, and a hat for the trip?",
            {},
            {
                "Could you pack a hat, sunscreen, and two towels for the trip?",
                "Could you pack a hat, two towels, and sunscreen for the trip?",
                "Could you pack sunscreen, a hat, and two towels for the trip?",
                "Could you pack two towels, a hat, and sunscreen for the trip?",
            },
        ),
        # a list whose order carries a preference keeps it
        ("Add oat milk, soy milk and almond milk to my list in order of preference.", {}, set()),
        # ... never before "from X" (the last thing's alone, perhaps), and never split at its
        # commas into clauses that move ("burgers, salad and drinks, buns")
        ("I bought milk, bread and cheese from Aldi.", {}, set()),
        # a day and its clock time stay side by side (in either order): never "at 6pm for 2 at
        # Riverside Leisure on Friday"
        (
            "Book a court for 2 at Riverside Leisure on Friday at 6pm.",
            {"place": "Riverside Leisure", "day": "Friday", "time": "6pm"},
            {
                "Book a court at 6pm on Friday for 2 at Riverside Leisure.",
                "Book a court for 2 at 6pm on Friday at Riverside Leisure.",
                "Book a court on Friday at 6pm for 2 at Riverside Leisure.",
            },
        ),
        # "What should I do?" asks about the story before it: it never opens the message
        ("I left a grey umbrella on the 38 bus yesterday. What should I do?", {}, set()),
        # two times joined by "and" are one phrase; a time after a noun's value is its own.
        # Since round nine a reminder's times are one unit that stands on either side of
        # the errand (tests/test_reorder_round9.py)
        (
            "Remind me to water the plants at 7am and 6pm every day.",
            {"t1": "7am", "t2": "6pm"},
            {"Remind me at 7am and 6pm every day to water the plants."},
        ),
        (
            "Book a car wash for my Toyota Yaris next Friday morning.",
            {"car": "Toyota Yaris", "day": "next Friday"},
            {"Book a car wash next Friday morning for my Toyota Yaris."},
        ),
    ],
)
def test_round_five_moves(prompt: str, slots: dict[str, str], expected: set[str]) -> None:
    assert _all_texts(_task(prompt, slots)) == expected


def test_swapped_pair_is_measured_as_a_small_move() -> None:
    """A swap of two noun phrases is measured from the finished text: 2 words pass 3 words
    ("the invoice" / "and the receipt") of the 11 words: 6 of 55 pairs."""
    task = _task("Please send the invoice and the receipt to my work email.", {})
    text = "Please send the receipt and the invoice to my work email."
    assert measure_epsilon(task, "reorder", text) == pytest.approx(round(6 / 55, 4))


def test_fronted_clause_is_measured_from_the_text() -> None:
    """The clause "if the match runs late" (5 words) passes "What time do you close" (5 words): 25 of the
    45 word pairs changed order."""
    task = _task("What time do you close if the match runs late?", {})
    text = "If the match runs late, what time do you close?"
    assert measure_epsilon(task, "reorder", text) == pytest.approx(round(25 / 45, 4))
