"""Reorder, round nine of issue #14: the kinds of fault the heldout6 reviewers named -- a
closing question or request moved to the front when it leans on the story after it ("as
well", "actually", "what happened", a bare "something", a tag question, a time relative to a
day named before), a fronted "with <thing>" clause, a fronted "when" clause that narrowed
the time before it -- with the exact texts every level and seed can give. The prompts are
written for these tests (none is from a benchmark set)."""

from __future__ import annotations

import pytest

from tests.test_reorder_rules import _all_texts, _task


@pytest.mark.parametrize(
    ("prompt", "slots", "expected"),
    [
        # "as well" asks about what was said before: the question never opens the message
        (
            "Our sauna heater tripped on Monday. We paid $90 for the callout. Do you sell spare fuses as well?",
            {"day": "Monday", "amt": "$90"},
            set(),
        ),
        # "actually" presupposes the no-show told before it
        (
            "The cleaner skipped our flat on 4 May. Booking CL-5512. Can you tell me when someone's "
            "actually coming?",
            {"day": "4 May", "id": "CL-5512"},
            {
                "On 4 May, the cleaner skipped our flat. Booking CL-5512. Can you tell me when someone's "
                "actually coming?",
                "On 4 May, the cleaner skipped our flat. Can you tell me when someone's actually coming? "
                "Booking CL-5512.",
                "The cleaner skipped our flat on 4 May. Can you tell me when someone's actually coming? "
                "Booking CL-5512.",
            },
        ),
        # "what happened" (to what?) even when a second request follows it
        (
            "The courier left our sofa outside on Friday. Order FN-2231. Can you tell me what happened "
            "and send a new sofa?",
            {"day": "Friday", "id": "FN-2231"},
            {
                "The courier left our sofa outside on Friday. Can you tell me what happened and send a "
                "new sofa? Order FN-2231."
            },
        ),
        # a bare "something" (something of what?) stays after the need it refers to
        (
            "We're hosting a barbecue for 30 people on 9 July. Could you suggest something and deliver "
            "to our house on Elm Road?",
            {"n": "30", "day": "9 July", "st": "Elm Road"},
            {
                "On 9 July, we're hosting a barbecue for 30 people. Could you suggest something and "
                "deliver to our house on Elm Road?",
                "We're hosting a barbecue on 9 July for 30 people. Could you suggest something and "
                "deliver to our house on Elm Road?",
            },
        ),
        # ... while "something you have in stock" names what it asks for
        (
            "Could you recommend a wine you have in stock? We're having a dinner for 12 on 3 June.",
            {"n": "12", "day": "3 June"},
            {
                "Could you recommend a wine you have in stock? On 3 June, we're having a dinner for 12.",
                "Could you recommend a wine you have in stock? We're having a dinner on 3 June for 12.",
            },
        ),
        # a time relative to a day named before ("that morning", here a protected slot) never
        # moves in front of the day it counts from
        (
            "My exam is on 12 March at the Leeds centre. I'd like a revision class the day before. "
            "Is Mrs Patel free that morning?",
            {"day": "12 March", "c": "Leeds", "t": "Mrs Patel", "time": "that morning"},
            {
                "My exam is at the Leeds centre on 12 March. I'd like a revision class the day before. "
                "Is Mrs Patel free that morning?"
            },
        ),
        # a tag question asks agreement with the story: it never opens the message
        (
            "The boiler we rented broke twice last week. I think we deserve some of the £80 back, don't you?",
            {"amt": "£80"},
            set(),
        ),
        # "with <thing>" adds to the object: "With a thank-you card, ship ..." is no one's order
        (
            "Ship a box of chocolates to my sister at 4 Mill Lane, Bath, with a thank-you card.",
            {"addr": "4 Mill Lane", "town": "Bath"},
            set(),
        ),
        # a "when" clause after a time narrows that time; fronted it would read as a condition
        (
            "The courier came while I was out. Can you bring the parcel on Friday afternoon when I'm home?",
            {"day": "Friday"},
            set(),
        ),
        # a "when/if" clause after no time still opens its sentence
        (
            "What happens to my deposit if I cancel the booking?",
            {},
            {"If I cancel the booking, what happens to my deposit?"},
        ),
    ],
)
def test_round_nine_story_questions_and_openers(
    prompt: str, slots: dict[str, str], expected: set[str]
) -> None:
    assert _all_texts(_task(prompt, slots)) == expected


@pytest.mark.parametrize(
    ("prompt", "slots", "expected"),
    [
        # "with <person>" is a phrase a time passes; a place right after the person stays with them
        (
            "Alexa, book a massage with Tom at Body Works for next Friday.",
            {"who": "Tom", "place": "Body Works", "day": "next Friday"},
            {"Alexa, book a massage for next Friday with Tom at Body Works."},
        ),
        # a bare time right after the person is no part of the name
        (
            "Book me an eye test with Dr Shah next Monday morning",
            {"who": "Dr Shah", "day": "next Monday", "t": "morning"},
            {"Book me an eye test next Monday morning with Dr Shah"},
        ),
        # a day and its clock time stay side by side, "at 10" unrecognised as a time included
        (
            "Book a haircut with Anna on Friday at 10",
            {"who": "Anna", "d": "Friday", "t": "10"},
            {"Book a haircut with Anna at 10 on Friday"},
        ),
        # "with <thing>" without a person's value stays with its noun
        ("Order a birthday cake with pink icing for Saturday.", {"c": "pink", "d": "Saturday"}, set()),
        # a named place with its town is one place a later time may pass
        (
            "Reserve a court at the Riverside Centre in Leeds for 6pm tomorrow.",
            {"p": "Riverside Centre", "town": "Leeds", "t": "6pm", "d": "tomorrow"},
            {"Reserve a court for 6pm tomorrow at the Riverside Centre in Leeds."},
        ),
        # a reminder's time stands on either side of its errand
        (
            "Remind me to feed the cat at 6 pm tomorrow",
            {"t": "6 pm", "d": "tomorrow"},
            {"Remind me at 6 pm tomorrow to feed the cat"},
        ),
        ("Remind me at 7am to take out the bins.", {"t": "7am"}, {"Remind me to take out the bins at 7am."}),
        # ... but not a deadline (the errand's), nor the time of an event noun
        ("Remind me to renew my passport by Friday.", {"d": "Friday"}, set()),
        ("Remind me to confirm the appointment at 3pm.", {"t": "3pm"}, set()),
        # "at Tesco" is no time: "remind me at Tesco" would be another reminder
        (
            "Remind me to buy milk at Tesco tomorrow",
            {"s": "Tesco", "d": "tomorrow"},
            {"Remind me to buy milk tomorrow at Tesco"},
        ),
    ],
)
def test_round_nine_moves_inside_one_sentence(prompt: str, slots: dict[str, str], expected: set[str]) -> None:
    assert _all_texts(_task(prompt, slots)) == expected


@pytest.mark.parametrize(
    ("prompt", "slots", "expected"),
    [
        # a place clause never opens a sentence whose head opens with its subject: "At 4 Oak
        # Lane, I'd like a quote ..." would locate the writer, not the fencing
        (
            "I'd like a quote for new fencing, about 15 metres, at 4 Oak Lane.",
            {"len": "15 metres", "addr": "4 Oak Lane"},
            {"I'd like a quote for new fencing, at 4 Oak Lane, about 15 metres."},
        ),
        # ... an order's place clause still may ("In Soho, book a table ...")
        (
            "Book a table for four, at 7pm, in Soho.",
            {"n": "four", "t": "7pm", "p": "Soho"},
            {"Book a table for four, in Soho, at 7pm.", "In Soho, book a table for four, at 7pm."},
        ),
    ],
)
def test_round_nine_place_clause_before_a_subject(
    prompt: str, slots: dict[str, str], expected: set[str]
) -> None:
    assert _all_texts(_task(prompt, slots)) == expected
