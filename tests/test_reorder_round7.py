"""Reorder, round seven of issue #14: moves inside one sentence that one-line requests allow
(a budget past a shop, a deadline at the front, two questions swapped, a time or budget after
a comma), the fixes for the kinds of false labels seen on heldout4, and every refusal added,
with the exact texts every level and seed can give. The prompts are written for these tests
(none is from a benchmark set)."""

from __future__ import annotations

import pytest

from tests.test_reorder_rules import _all_texts, _task


@pytest.mark.parametrize(
    ("prompt", "slots", "expected"),
    [
        # a wake word stays first; "for <under $30>" is a budget and passes the shop
        (
            "Alexa, order three candles and a vase from Home Barn for under $30.",
            {"q": "three", "item": "candles", "item2": "vase", "shop": "Home Barn", "budget": "under $30"},
            {"Alexa, order three candles and a vase for under $30 from Home Barn."},
        ),
        # a time right after a noun's value ends its noun phrase when a phrase follows it
        (
            "Hey Google, book a window clean of the conservatory this Friday for under £80.",
            {"svc": "window clean", "room": "conservatory", "day": "this Friday", "budget": "under £80"},
            {"Hey Google, book a window clean of the conservatory for under £80 this Friday."},
        ),
        # a deadline may open an order: the whole request is due by then
        (
            "Get my thesis bound in hardback by next Wednesday.",
            {"doc": "thesis", "day": "next Wednesday"},
            {"By next Wednesday, get my thesis bound in hardback."},
        ),
        # a phrasal verb keeps its particle ("drop ... in"); the phrases after it move
        (
            "Drop my car in for an MOT next Thursday at the Leith garage.",
            {"day": "next Thursday", "g": "Leith"},
            {"Drop my car in for an MOT at the Leith garage next Thursday."},
        ),
        (
            "Check me in on Friday at the Harbour hotel.",
            {"day": "Friday", "h": "Harbour"},
            {"Check me in at the Harbour hotel on Friday."},
        ),
        # "Order X." moves behind the sentence after it, never to the front ("Hi, order X.")
        (
            "Hi, the cake we collected on Saturday was dry. Order BK-7741. I'd like a refund.",
            {"day": "Saturday", "order": "BK-7741"},
            {"Hi, the cake we collected on Saturday was dry. I'd like a refund. Order BK-7741."},
        ),
        # a time or a budget alone after a comma is a constraint of its own, not a name
        (
            "Book drinks for 25 at The Crown, Saturday 8pm, under £400.",
            {"n": "25", "venue": "The Crown", "time": "Saturday 8pm", "budget": "under £400"},
            {"Book drinks for 25 at The Crown, under £400, Saturday 8pm."},
        ),
        # a label after the last comma stays last in its sentence, or (round eleven) moves to
        # the end of the message as a sentence of its own; "the 4th" is a day
        (
            "I returned the blender on the 4th, reference RT-5521. Nobody has confirmed the refund.",
            {"day": "the 4th", "ref": "RT-5521"},
            {
                "On the 4th, I returned the blender, reference RT-5521. Nobody has confirmed the refund.",
                "I returned the blender on the 4th. Nobody has confirmed the refund. Reference RT-5521.",
                "On the 4th, I returned the blender. Nobody has confirmed the refund. Reference RT-5521.",
            },
        ),
        # two questions joined by ", and" swap
        (
            "I'd like to switch my broadband to you. What do I need to send you, and how long will "
            "the switch take?",
            {},
            {
                "I'd like to switch my broadband to you. How long will the switch take, and what do I "
                "need to send you?"
            },
        ),
        # nothing moves in front of a self-introduction
        (
            "Hello, I'm Dr Lena Park from Westbrook Surgery. We send about 30 samples a week. Could we "
            "open an account?",
            {"name": "Dr Lena Park", "org": "Westbrook Surgery", "n": "30"},
            {
                "Hello, I'm Dr Lena Park from Westbrook Surgery. Could we open an account? We send about "
                "30 samples a week."
            },
        ),
        # "starting on <day>" that ends an order opens it (the whole arrangement starts then)
        (
            "Set up a weekly transfer of $50 to Jo Baker starting on the 3rd of May.",
            {"amt": "$50", "name": "Jo Baker", "day": "3rd of May"},
            {"Starting on the 3rd of May, set up a weekly transfer of $50 to Jo Baker."},
        ),
        # a value statement is no referent: it may move behind a question that refers back
        (
            "I ordered two lamps 3 days ago and they still haven't arrived. The order number is 55120. "
            "Where are they?",
            {"n": "two", "t": "3 days ago", "o": "55120"},
            {
                "I ordered two lamps 3 days ago and they still haven't arrived. Where are they? The order "
                "number is 55120."
            },
        ),
        # "I have <thing>" is a fact that may move; "I have tried" is not (below)
        (
            "I have the £60 deposit ready. My bike was taken from Park Road this morning. Where can I "
            "collect it?",
            {"amt": "£60", "road": "Park Road", "t": "this morning"},
            {
                "I have the £60 deposit ready. My bike was taken this morning from Park Road. Where can "
                "I collect it?",
                "My bike was taken from Park Road this morning. I have the £60 deposit ready. Where can "
                "I collect it?",
                "My bike was taken this morning from Park Road. I have the £60 deposit ready. Where can "
                "I collect it?",
            },
        ),
    ],
)
def test_round_seven_moves(prompt: str, slots: dict[str, str], expected: set[str]) -> None:
    assert _all_texts(_task(prompt, slots)) == expected


@pytest.mark.parametrize(
    ("prompt", "slots"),
    [
        # a deadline after a second verb is that verb's: "By Friday, remind me ..." changes it
        ("Remind me to pay the gas bill by Friday.", {"day": "Friday"}),
        ("Ask the landlord to fix the boiler and send me the invoice by Monday.", {"day": "Monday"}),
        # after a verb that arranges something the deadline is the arranged thing's (the taxi
        # must be there by 6am), unless it is "get/have <thing> <done>"
        ("Book a taxi to the airport by 6am.", {"time": "6am"}),
        # a value statement moves behind a back-reference only when a story stays before it:
        # "Can you check it? My order number is 55123." leaves "it" naming nothing
        ("My order number is 55123. Can you check it?", {"id": "55123"}),
        # "in" before "this/next/..." is no particle: "in this hotel" is a place of the room
        ("Book a room in this hotel for Friday.", {"day": "Friday"}),
        # "on <day>" after "to my <noun>" is the noun's day, not the adding's
        ("Add a deep clean to my appointment on Friday.", {"day": "Friday"}),
        # a clause that leans on earlier text ("same brand") never moves before the order; a
        # wake word is no clause of its own
        ("Siri, refill my vitamin pills, 2 bottles, same brand.", {"n": "2 bottles"}),
        # "starting on <day>" after a noun in a statement names the noun's start, not the order's
        (
            "I'd like to join the pottery class starting on 4 March at the Elm Street studio.",
            {"day": "4 March", "st": "Elm Street"},
        ),
        # the second question leans on the first ("it"): they keep their order
        ("I'm renting a van for a week. What size van do I need, and what would it cost per day?", {}),
        # phrases of a subject whose verb follows them ("... went missing") never move
        (
            "The parcel for the school fair on the 3rd went missing. Can you look into it?",
            {"day": "the 3rd"},
        ),
    ],
)
def test_round_seven_refusals(prompt: str, slots: dict[str, str]) -> None:
    assert _all_texts(_task(prompt, slots)) == set()


def test_present_perfect_fact_never_moves_in_front_of_its_story() -> None:
    """ "I've tried three new fuses" answers the story before it: no order puts it first."""
    texts = _all_texts(
        _task(
            "My heater stopped working on Sunday. I've tried three new fuses. Can you send an engineer?",
            {"day": "Sunday", "n": "three"},
        )
    )
    assert texts  # the request may still move
    assert not any(t.startswith("I've tried") for t in texts)
    assert all(t.index("My heater") < t.index("I've tried") for t in texts)
