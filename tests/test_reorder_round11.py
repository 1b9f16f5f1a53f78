"""Reorder, round eleven of issue #14: a sentence that only states an identifier moves
wherever it applies -- also in the past ("The job number was X."), with a courtesy ("... if
you need it."), and when the sentence after it leans on the story with "Also"/"It" (it is
then a unit of its own that refers back, and the identifier may move behind it) -- with the
exact texts every level and seed can give. The prompts are written for these tests (none is
from a benchmark set)."""

from __future__ import annotations

import pytest

from tests.test_reorder_rules import _all_texts, _task


@pytest.mark.parametrize(
    ("prompt", "slots", "expected"),
    [
        # a past-tense identifier statement moves behind the question after it, never to the
        # front (it answers the story told before it)
        (
            "The plumber left a leak under our sink on Monday. The job number was PL-4410. Who should "
            "I call about the water damage?",
            {"day": "Monday", "job": "PL-4410"},
            {
                "The plumber left a leak under our sink on Monday. Who should I call about the water "
                "damage? The job number was PL-4410."
            },
        ),
        # "It was due back ..." leans on the story, not on the number between them: the number
        # moves, "It" keeps following the sentence it followed
        (
            "Waiting on the refund for my cancelled yoga class. My member number is 55821. It was due "
            "back last week. Could you look into it?",
            {"id": "55821"},
            {
                "My member number is 55821. Waiting on the refund for my cancelled yoga class. It was "
                "due back last week. Could you look into it?",
                "Waiting on the refund for my cancelled yoga class. It was due back last week. Could you "
                "look into it? My member number is 55821.",
                "Waiting on the refund for my cancelled yoga class. It was due back last week. My member "
                "number is 55821. Could you look into it?",
                # round twelve: the statement right before the question moves behind it
                "My member number is 55821. Waiting on the refund for my cancelled yoga class. Could you "
                "look into it? It was due back last week.",
            },
        ),
        # "Also, ..." after the identifier is glued to the request before it, not to the number
        (
            "Can you move my pottery class from the 3rd to the 10th? Booking is PT-2231. Also, is it "
            "still a 6pm start?",
            {"a": "the 3rd", "b": "the 10th", "id": "PT-2231", "t": "6pm"},
            {
                "Booking is PT-2231. Can you move my pottery class from the 3rd to the 10th? Also, is it "
                "still a 6pm start?",
                "Can you move my pottery class from the 3rd to the 10th? Also, is it still a 6pm start? "
                "Booking is PT-2231.",
            },
        ),
        # "if you need it": its "it" is the identifier of the same sentence
        (
            "Our landlord needs a quote for a new boiler. The claim ref is CL-88120 if you need it. "
            "Can you quote for a combi boiler?",
            {"id": "CL-88120"},
            {
                "Can you quote for a combi boiler? Our landlord needs a quote for a new boiler. The claim "
                "ref is CL-88120 if you need it.",
                "Our landlord needs a quote for a new boiler. Can you quote for a combi boiler? The claim "
                "ref is CL-88120 if you need it.",
            },
        ),
        # refused: "Is that ...?" asks about the identifier right before it
        (
            "Our parcel arrived damaged on Monday. The order number was OR-5512. Is that the one I "
            "should quote?",
            {"day": "Monday", "id": "OR-5512"},
            set(),
        ),
        # refused: a past-tense identifier that opens the message stays first (it only moves
        # behind the sentences after it when a story comes before it)
        (
            "Booking was BK-2201. The instructor never came to the lesson.",
            {"id": "BK-2201"},
            set(),
        ),
    ],
)
def test_identifier_statements(prompt: str, slots: dict[str, str], expected: set[str]) -> None:
    assert _all_texts(_task(prompt, slots)) == expected


@pytest.mark.parametrize(
    ("prompt", "slots", "expected"),
    [
        # ", job number X" cut from its sentence moves to the end of the message only, as a
        # sentence of its own; "It still isn't ready." keeps following the story
        (
            "I dropped my bike off for a service on Monday, job number BK-7781. It still isn't ready. "
            "When can I collect it?",
            {"day": "Monday", "id": "BK-7781"},
            {
                "I dropped my bike off for a service on Monday. It still isn't ready. When can I collect "
                "it? Job number BK-7781.",
                # round twelve: the statement right before the question moves behind it
                "I dropped my bike off for a service on Monday, job number BK-7781. When can I collect "
                "it? It still isn't ready.",
            },
        ),
        # right after its sentence (wherever that sentence goes) the label is written back in it
        (
            "We booked a cottage from 3 May for a week, booking CT-2290. Can we bring a dog?",
            {"d": "3 May", "id": "CT-2290"},
            {
                "Can we bring a dog? We booked a cottage for a week from 3 May, booking CT-2290.",
                "Can we bring a dog? We booked a cottage from 3 May for a week, booking CT-2290.",
                "We booked a cottage for a week from 3 May. Can we bring a dog? Booking CT-2290.",
                "We booked a cottage from 3 May for a week. Can we bring a dog? Booking CT-2290.",
            },
        ),
        # refused: the label already ends the message (it never moves to the front)
        ("I'd like a refund for the broken lamp, order LP-5512.", {"id": "LP-5512"}, set()),
        # refused: a bare "number X" may number the noun before it
        (
            "Please send the parts to my account, number 44120. Can you confirm the delivery date?",
            {"id": "44120"},
            set(),
        ),
        # refused: "Is that ...?" right after the label asks about it (the time may open)
        (
            "I ordered a blue sofa on Friday, order SF-1180. Is that the one in the photo?",
            {"day": "Friday", "id": "SF-1180"},
            {"On Friday, I ordered a blue sofa, order SF-1180. Is that the one in the photo?"},
        ),
    ],
)
def test_appended_identifier_label(prompt: str, slots: dict[str, str], expected: set[str]) -> None:
    assert _all_texts(_task(prompt, slots)) == expected


@pytest.mark.parametrize(
    ("prompt", "slots", "expected"),
    [
        # ", not 4" opens the sentence only before a short head: after a long one the contrast
        # has lost what it contrasts with
        ("My son has grown a lot this year and now wears a size 5 shoe, not 4.", {"a": "5", "b": "4"}, set()),
        ("We now need 12 chairs, not 10.", {"a": "12", "b": "10"}, {"Not 10, we now need 12 chairs."}),
        # a clause opening with an auxiliary is the predicate of the clauses before it: the
        # appositive name never moves behind it
        (
            "The chairs in our office, Brook House on Mill Road, have broken wheels. Do you sell spare "
            "wheels?",
            {"o": "Brook House", "st": "Mill Road"},
            {
                "Do you sell spare wheels? The chairs in our office, Brook House on Mill Road, have broken wheels."
            },
        ),
        # no sentence lands right before a "that/this" question (the order number would become
        # "that"); behind it, it may
        (
            "The sink was fitted badly. Order SK-2210. We were told it would be fixed by Monday. Is that "
            "still the plan?",
            {"id": "SK-2210", "day": "Monday"},
            {
                "The sink was fitted badly. We were told it would be fixed by Monday. Is that still the "
                "plan? Order SK-2210."
            },
        ),
        # a value that opens a sentence ("Mornings would be ideal.") is no request "Would ...":
        # it never moves in front of the request
        (
            "We need the carpets cleaned at our office. Could you send a quote? Mornings would be ideal.",
            {"w": "Mornings"},
            {"Could you send a quote? We need the carpets cleaned at our office. Mornings would be ideal."},
        ),
        # a copula with a noun: the time is the noun's ("a family of 4 arriving ... on Friday
        # night"), it never opens the sentence
        (
            "We're a family of 4 arriving in York on Friday night. Can we check in late?",
            {"n": "4", "c": "York", "d": "Friday night"},
            {"Can we check in late? We're a family of 4 arriving in York on Friday night."},
        ),
        # a fact never passes the question it narrows
        (
            "Do you fit loft insulation? Our house in Leeds has a loft of 40 m2.",
            {"c": "Leeds", "a": "40 m2"},
            set(),
        ),
        # after an asking auxiliary the place belongs to the subject, its verb after it: no
        # time comes between ("the post office today in Didsbury close")
        (
            "Hey Google, what time does the post office in Didsbury close today?",
            {"p": "Didsbury", "d": "today"},
            set(),
        ),
        (
            "Alexa, is the pool at Ponds Forge open this evening?",
            {"p": "Ponds Forge", "d": "this evening"},
            set(),
        ),
        # "under the sink" is a place, no budget; and "at a leak" is the object of "to look":
        # nothing moves
        ("Book a plumber to look at a leak under the sink this Friday.", {"d": "this Friday"}, set()),
        # "from Acme Ltd" is the people's: the time passes both, never lands between them
        (
            "We're planning a party for 20 people from Acme Ltd on 5 May.",
            {"n": "20 people", "c": "Acme Ltd", "d": "5 May"},
            {"We're planning a party on 5 May for 20 people from Acme Ltd."},
        ),
    ],
)
def test_refused_shapes(prompt: str, slots: dict[str, str], expected: set[str]) -> None:
    assert _all_texts(_task(prompt, slots)) == expected


@pytest.mark.parametrize(
    ("prompt", "slots", "expected"),
    [
        # a label between two commas is cut from inside its sentence; the comma before a
        # conjunction stays ...
        (
            "I booked a kayak for Saturday, booking KY-2290, but the wind looks strong. Can I move it to "
            "Sunday?",
            {"d": "Saturday", "id": "KY-2290", "d2": "Sunday"},
            {
                "I booked a kayak for Saturday, but the wind looks strong. Can I move it to Sunday? Booking KY-2290."
            },
        ),
        # ... the one before a predicate goes
        (
            "The lamp I bought in your Bath shop, order LM-4410, flickers all the time. Can I swap it?",
            {"c": "Bath", "id": "LM-4410"},
            {"The lamp I bought in your Bath shop flickers all the time. Can I swap it? Order LM-4410."},
        ),
        # refused: nothing after the sentence to move behind
        ("The table we ordered, ref TB-1180, is it in stock?", {"id": "TB-1180"}, set()),
    ],
)
def test_inner_identifier_label(prompt: str, slots: dict[str, str], expected: set[str]) -> None:
    assert _all_texts(_task(prompt, slots)) == expected


def test_trailing_before_clause_is_no_step_order() -> None:
    """ "before it gets worse" at the end of a request tells when, not an order of steps: the
    task is not skipped, and the order number moves to the end."""
    prompt = (
        "The new floor has a gap by the back door. Order FL-1234. Can somebody look at it before it "
        "gets worse?"
    )
    assert _all_texts(_task(prompt, {"id": "FL-1234"})) == {
        "The new floor has a gap by the back door. Can somebody look at it before it gets worse? Order FL-1234."
    }


@pytest.mark.parametrize(
    ("prompt", "slots", "expected"),
    [
        # "in sage" is the cushions' colour, no place: it never opens the sentence
        (
            "Order two linen cushions, 50 by 50 centimetres, in sage.",
            {"n": "two", "size": "50 by 50 centimetres", "c": "sage"},
            set(),
        ),
        # a named place still may
        (
            "Book a table for four, in Soho, at 7pm.",
            {"p": "Soho", "t": "7pm"},
            {"Book a table for four, at 7pm, in Soho.", "In Soho, book a table for four, at 7pm."},
        ),
    ],
)
def test_attribute_clause_opens_nothing(prompt: str, slots: dict[str, str], expected: set[str]) -> None:
    assert _all_texts(_task(prompt, slots)) == expected
