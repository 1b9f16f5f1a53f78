"""A senior review of the fixes made after round eleven (issue #14): prompts written for this file
(none from a benchmark set) whose outputs were wrong or which crashed, each with the exact texts
every level and seed can give now."""

from __future__ import annotations

import pytest

from tests.test_round11_post_b import _task, _texts

# -- register: "booking" as a progressive verb is never swapped for the noun "reservation" ----


@pytest.mark.parametrize(
    ("prompt", "texts"),
    [
        # was "I'm reservation the room prior to Friday."
        ("I'm booking the room prior to Friday.", {"Booking the room prior to Friday."}),
        (
            "We are booking a table for Friday night at the restaurant.",
            {"Booking a table for Friday night at the restaurant."},
        ),
    ],
)
def test_booking_after_a_be_verb_or_before_its_object_stays_a_verb(prompt: str, texts: set[str]) -> None:
    assert _texts("register", _task(prompt)) == texts


def test_booking_as_a_noun_is_still_a_reservation() -> None:
    assert _texts("register", _task("My booking for the hotel is wrong.")) == {
        "My reservation for the hotel is wrong."
    }


# -- a record noun before a code and a closing "please" is a label, never a request verb ---------


def test_order_code_please_gets_no_request_frame() -> None:
    task = _task("Order DC-6605 please.", order="DC-6605")
    # was "I need to order DC-6605 please." / "Can you order DC-6605 please?"
    assert _texts("paraphrase", task) == set()
    assert _texts("register", task) == {"Order DC-6605 pls."}


def test_order_a_quantity_please_is_still_a_request() -> None:
    assert "I'd like to order 3 pizzas please." in _texts("paraphrase", _task("Order 3 pizzas please."))


# -- self_correction reads `expected`: a huge int there never crashes ---------------------------


def test_a_5000_digit_int_in_expected_is_read_without_overflow() -> None:
    prompt = "Could we get a table for four tonight?"
    held = _task(prompt, [10**5000, 4.0])
    assert _texts("self_correction", held, seeds=3, levels=(0.1,)) == {
        "Could we get a table for five, I mean four tonight?",
        "Could we get a table for five, no, four tonight?",
        "Could we get a table for four tomorrow, no, tonight?",
        "Could we get a table for two, no, four tonight?",
    }
    not_held = _task(prompt, {"n": 10**5000})
    assert _texts("self_correction", not_held, seeds=3, levels=(0.1,)) == {
        "Could we get a table for four tomorrow, no, tonight?"
    }


# -- a hyphenated compound at the start is a noun, never a request verb ------------------------


def test_check_in_at_the_start_is_no_request_verb() -> None:
    task = _task("Check-in at 3pm, can I arrive early?", t="3pm")
    # was "Could you check-in at 3pm, can I arrive early?" and "Kindly check-in at 3pm, can I
    # arrive early." (the question lost its question mark)
    assert _texts("paraphrase", task) == set()
    assert _texts("register", task) == set()


def test_a_hyphenated_word_later_in_the_request_changes_nothing() -> None:
    texts = _texts("paraphrase", _task("Send a follow-up email to Sam please."))
    assert "Could you send a follow-up email to Sam please?" in texts
