"""After round eleven of issue #14 (fixes from the ninth set's reviewers' notes), for
self_correction, reorder and distractor: rules about kinds of sentence or value, each with the
exact texts every level and seed can give. Every prompt here is written for this file (none is
from a benchmark set)."""

from __future__ import annotations

import pytest

from perturb.generate.core import rng_for
from perturb.generate.perturbations import CLASSES, prepare
from perturb.generate.perturbations._context import SkipGeneration
from perturb.records import Task


def _task(prompt: str, expected: object = "ok", **slots: str) -> Task:
    grader = "exact" if isinstance(expected, str) else "json_subset"
    return Task(id="x", prompt=prompt, expected=expected, grader=grader, slots=slots)  # type: ignore[arg-type]


def _texts(kind: str, task: Task, seeds: int = 8, levels: tuple[float, ...] = (0.1, 0.3, 0.5)) -> set[str]:
    out: set[str] = set()
    for seed in range(seeds):
        for level in levels:
            for index in (0, 1):
                try:
                    v = CLASSES.get(kind).generate(
                        prepare(task), level, rng_for(seed, task.id, kind, level, index, 0), index
                    )
                except SkipGeneration:
                    continue
                out.add(v.text)
    return out


# -- self_correction: a number inside a fixed expression is not a stated value ---------------


@pytest.mark.parametrize(
    "prompt",
    [
        "Is there a beginners' salsa class for people with two left feet?",
        "I'm in two minds about the blue sofa. Can I see it in store?",
        "Just my two cents, but can the quiz start earlier?",
        "Can I hire a wetsuit or should I bring one?",
    ],
)
def test_a_number_word_the_answer_does_not_hold_is_never_corrected(prompt: str) -> None:
    assert _texts("self_correction", _task(prompt, {"intent": "ask"})) == set()


def test_a_number_word_the_answer_holds_is_still_corrected() -> None:
    task = _task("Could we get a table for four tonight?", {"party_size": 4})
    assert _texts("self_correction", task, seeds=3, levels=(0.1,)) == {
        "Could we get a table for five, I mean four tonight?",
        "Could we get a table for five, no, four tonight?",
        "Could we get a table for four tomorrow, no, tonight?",
        "Could we get a table for two, no, four tonight?",
    }


# -- self_correction: a closed set from another domain than the value's noun ---------------


def test_a_room_type_word_outside_a_stay_is_never_swapped_for_another_room_type() -> None:
    task = _task("Do you fit secondary glazing or only double?", {"intent": "ask"})
    assert _texts("self_correction", task) == set()


def test_a_room_type_in_a_stay_is_still_corrected() -> None:
    task = _task("Have you got a double for two nights from Friday?", {"room": "double"}, room="double")
    assert _texts("self_correction", task, seeds=3, levels=(0.1,)) == {
        "Have you got a suite, no, a double for two nights from Friday?",
        "Have you got a twin, no, a double for two nights from Friday?",
    }


# -- distractor: urgency inside a slot's value; a channel opening before a bare order ------


def test_no_afterthought_aside_before_an_urgent_request_whose_urgent_word_is_a_slot() -> None:
    task = _task(
        "Alexa, call an emergency plumber in Leeds.", {"x": 1}, service="emergency plumber", place="Leeds"
    )
    assert _texts("distractor", task, seeds=6) == {
        "Alexa, er, call an emergency plumber in Leeds.",
        "Alexa, er, just quickly, call an emergency plumber in Leeds.",
        "Alexa, just quickly, call an emergency plumber in Leeds.",
        "Alexa, uh, call an emergency plumber in Leeds.",
        "Alexa, uh, just quickly, call an emergency plumber in Leeds.",
        "Alexa, um, call an emergency plumber in Leeds.",
        "Alexa, um, just quickly, call an emergency plumber in Leeds.",
    }


def test_no_opening_about_messaging_the_firm_before_an_order_to_a_helper() -> None:
    task = _task(
        "Get a quote for clearing the gutters at the Hillside branch of Maple Tree Dental.",
        {"x": 1},
        branch="Hillside",
    )
    order = "Get a quote for clearing the gutters at the Hillside branch of Maple Tree Dental."
    assert _texts("distractor", task, seeds=6) == {
        f"{order} Cheers.",
        f"{order} Thank you in advance.",
        f"{order} Thank you so much.",
        f"{order} Thanks for the help.",
        f"{order} Thanks for your help.",
        f"{order} Thanks in advance, I really appreciate it.",
        f"{order} Thanks very much, I appreciate your help.",
        f"{order} Thanks!",
        f"{order} Thanks, I appreciate it.",
        f"{order} Thanks.",
    }


# -- reorder: a phrase stays with what it completes or describes --------------------------


@pytest.mark.parametrize(
    ("prompt", "slots", "expected"),
    [
        # a time completing a short subject-verb clause never opens it ("At 2pm, the wedding
        # starts." / "On the 14th, the fair is still." were generated before)
        (
            "The courier was meant to come at 8am and it is now 9:40. The wedding starts at 2pm. "
            "Order WD-5512, where is the van?",
            {"due": "8am", "now": "9:40", "start": "2pm", "order": "WD-5512"},
            set(),
        ),
        (
            "Please update the delivery address for order QX-4410 to 7 Birch Lane, Leeds LS6 2AB. "
            "The fair is still on the 14th. Is that alright?",
            {"order": "QX-4410", "address": "7 Birch Lane, Leeds LS6 2AB", "date": "the 14th"},
            set(),
        ),
        # "the second payment" picks one of the payments told before: the question never
        # moves in front of them
        (
            "My card was debited twice for the swim lesson on May 9th, $22 each time. I have a "
            "screenshot. Can you cancel the second payment?",
            {"date": "May 9th", "amount": "$22"},
            {
                "My card was debited twice for the swim lesson on May 9th, $22 each time. Can you "
                "cancel the second payment? I have a screenshot."
            },
        ),
        # the company after a person's name is the person's: no day comes between them
        (
            "Siri, remind me to ring Tom at Oakley Builders on Friday about the roof tiles.",
            {"person": "Tom", "company": "Oakley Builders", "day": "Friday", "item": "roof tiles"},
            {"Siri, remind me to ring Tom at Oakley Builders about the roof tiles on Friday."},
        ),
        # a measure stays next to the noun it describes ("with a cream mount, roughly 40 cm
        # wide" gave the width to the mount)
        (
            "Can you quote for framing a watercolour, roughly 40 cm wide, with a cream mount? My "
            "budget is 60 pounds.",
            {"size": "40 cm", "budget": "60 pounds"},
            set(),
        ),
        # a place after an ordinary noun still moves as before
        (
            "Book a table at Luigi's for Saturday at 8pm for four.",
            {"place": "Luigi's", "day": "Saturday", "time": "8pm"},
            {
                "Book a table at Luigi's for four for Saturday at 8pm.",
                "Book a table for Saturday at 8pm at Luigi's for four.",
            },
        ),
    ],
)
def test_reorder_keeps_a_phrase_with_what_it_completes(
    prompt: str, slots: dict[str, str], expected: set[str]
) -> None:
    assert _texts("reorder", _task(prompt, "ok", **slots)) == expected


def test_a_sentence_with_the_duplicate_x_refers_back() -> None:
    # before: "... by mistake. Can you cancel the duplicate booking? I paid by card." -- the
    # question now keeps following every sentence it followed, so no order is left
    task = _task(
        "I booked the spin class twice for Friday by mistake. I paid by card. Can you cancel the duplicate booking?",
        "ok",
        day="Friday",
    )
    assert _texts("reorder", task) == set()


def test_a_definite_ordinal_in_a_statement_never_moves_before_the_story() -> None:
    # before: "We only kept the first. Our order arrived with two lamps instead of one. ..."
    task = _task(
        "Our order arrived with two lamps instead of one. We only kept the first. Could you collect the other lamp?"
    )
    assert _texts("reorder", task) == set()
