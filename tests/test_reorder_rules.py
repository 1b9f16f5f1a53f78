"""Reorder, round three of issue #14: which sentences and phrases may move, with the exact
texts every level and seed can give. The prompts are written for these tests."""

from __future__ import annotations

import pytest

from perturb.generate.core import rng_for
from perturb.generate.perturbations import CLASSES, SkipGeneration, measure_epsilon, prepare
from perturb.records import Task


def _task(prompt: str, slots: dict[str, str]) -> Task:
    return Task(id="t", prompt=prompt, expected="ok", grader="exact", slots=slots)  # type: ignore[arg-type]


def _all_texts(task: Task, seeds: int = 8) -> set[str]:
    out: set[str] = set()
    for seed in range(seeds):
        for level in (0.1, 0.3, 0.5):
            for index in (0, 1):
                try:
                    v = CLASSES.get("reorder").generate(
                        prepare(task), level, rng_for(seed, task.id, "reorder", level, index, 0), index
                    )
                except SkipGeneration:
                    continue
                out.add(v.text)
    return out


@pytest.mark.parametrize(
    ("prompt", "slots", "expected"),
    [
        # a first-person fact with a value moves in front of the story before it, and a
        # request that leans on nothing ("Please refund me.") may open the message
        (
            "The parcel never came. I paid $20 with Visa on Tuesday. Please refund me.",
            {"amount": "$20", "day": "Tuesday"},
            # after a stated subject, "with Visa" is the verb's: the day may open the sentence
            {
                "I paid $20 with Visa on Tuesday. Please refund me. The parcel never came.",
                "I paid $20 with Visa on Tuesday. The parcel never came. Please refund me.",
                "On Tuesday, I paid $20 with Visa. The parcel never came. Please refund me.",
                "Please refund me. The parcel never came. I paid $20 with Visa on Tuesday.",
                "Please refund me. The parcel never came. On Tuesday, I paid $20 with Visa.",
                "The parcel never came. On Tuesday, I paid $20 with Visa. Please refund me.",
                "The parcel never came. Please refund me. I paid $20 with Visa on Tuesday.",
                "The parcel never came. Please refund me. On Tuesday, I paid $20 with Visa.",
            },
        ),
        # a request with "the <noun>" leans on the story before it: nothing moves
        (
            "I was charged twice for my plan in May. Can you refund the extra payment?",
            {"month": "May"},
            set(),
        ),
        # "one payment" leans on it too ("one" is protected as a number), and no time opens a
        # sentence right after "Hi," ("Hi, on Monday, my parcel ...")
        ("Hi, my parcel was due on Monday. Could you refund one payment?", {"day": "Monday"}, set()),
        # a value statement goes anywhere
        (
            "Please cancel my gym plan. My customer number is 55123.",
            {"id": "55123"},
            {"My customer number is 55123. Please cancel my gym plan."},
        ),
        # a remark without a value moves behind the question, the question in front
        (
            "The heater broke on Sunday. I've attached a photo. Can you send someone?",
            {"day": "Sunday"},
            {
                "Can you send someone? On Sunday, the heater broke. I've attached a photo.",
                "Can you send someone? The heater broke on Sunday. I've attached a photo.",
                "On Sunday, the heater broke. Can you send someone? I've attached a photo.",
                "On Sunday, the heater broke. I've attached a photo. Can you send someone?",
                "The heater broke on Sunday. Can you send someone? I've attached a photo.",
            },
        ),
        # a question that leans on nothing may open the message; the time may open its sentence
        (
            "We're flying to Oslo on 4 May. Can we bring a dog?",
            {"city": "Oslo", "date": "4 May"},
            {
                "Can we bring a dog? On 4 May, we're flying to Oslo.",
                "Can we bring a dog? We're flying to Oslo on 4 May.",
                "On 4 May, we're flying to Oslo. Can we bring a dog?",
            },
        ),
        # a time opens an order whose head is one verb and its object
        ("Call my sister at 6 pm", {"time": "6 pm"}, {"At 6 pm, call my sister"}),
        # a lower-case order keeps its case when its time opens it
        ("call my sister at 6 pm", {"time": "6 pm"}, {"at 6 pm, call my sister"}),
        # a budget passes a place like a time does; a place never passes "for 2 people"
        (
            "Find a hotel room in Porto for 2 people under €90 a night",
            {"city": "Porto", "qty": "2 people", "budget": "€90"},
            {
                "Find a hotel room in Porto under €90 a night for 2 people",
                "Find a hotel room under €90 a night in Porto for 2 people",
            },
        ),
        # ... but never after a verb that arranges something: only the phrases swap
        (
            "Book a table for 4 at 7pm tomorrow",
            {"qty": "4", "time": "7pm", "day": "tomorrow"},
            {"Book a table at 7pm tomorrow for 4"},
        ),
        # a place after a noun a preposition opened is that noun's and moves with it
        (
            "Send a van from Gate 4 at Leeds station for 6 people on 5 June",
            {"gate": "Gate 4", "city": "Leeds", "qty": "6 people", "date": "5 June"},
            {
                "Send a van from Gate 4 at Leeds station on 5 June for 6 people",
                "Send a van on 5 June from Gate 4 at Leeds station for 6 people",
            },
        ),
        # only the time moves past the other phrases; "for Friday at 10 am" is one phrase
        (
            "Order a cake from Rosa for Friday at 10 am for 12 people",
            {"name": "Rosa", "day": "Friday", "time": "10 am", "qty": "12 people"},
            {
                "Order a cake for Friday at 10 am from Rosa for 12 people",
                "Order a cake from Rosa for 12 people for Friday at 10 am",
            },
        ),
        # a time right after a place value is a phrase of its own; a value statement that is
        # not an identifier only moves behind the sentences after it (opening the message, the
        # booking would come before the trip it belongs to)
        (
            "I lost my bag in Paris last week. My booking is under Anna Berg. Who should I contact?",
            {"city": "Paris", "when": "last week", "name": "Anna Berg"},
            {
                "I lost my bag in Paris last week. Who should I contact? My booking is under Anna Berg.",
                "I lost my bag last week in Paris. My booking is under Anna Berg. Who should I contact?",
                "I lost my bag last week in Paris. Who should I contact? My booking is under Anna Berg.",
                "Who should I contact? I lost my bag in Paris last week. My booking is under Anna Berg.",
                "Who should I contact? I lost my bag last week in Paris. My booking is under Anna Berg.",
            },
        ),
        # "He's" follows the sentence it refers to wherever that goes
        (
            "My cat Tom is sick since Friday. He's 3 years old. Can a vet visit?",
            {"name": "Tom", "day": "Friday", "age": "3 years old"},
            {"Can a vet visit? My cat Tom is sick since Friday. He's 3 years old."},
        ),
        # an identifier goes anywhere, even first after the greeting
        (
            "Hi, I need to change my flight to Saturday. Please make sure the seat is a window seat. "
            "My booking number is BK-48213.",
            {"booking": "BK-48213", "day": "Saturday"},
            {
                "Hi, I need to change my flight to Saturday. My booking number is BK-48213. "
                "Please make sure the seat is a window seat.",
                "Hi, my booking number is BK-48213. I need to change my flight to Saturday. "
                "Please make sure the seat is a window seat.",
            },
        ),
        # "The reference is ..." never opens the message: it only moves back; since round seven
        # it may pass the question that refers back ("it"): a value statement is no referent
        (
            "I applied for a visa on 2 March. The reference is VX-5521. How long does it take?",
            {"date": "2 March", "ref": "VX-5521"},
            {"I applied for a visa on 2 March. How long does it take? The reference is VX-5521."},
        ),
        # "from next Monday" is one phrase and may open a request to switch ("to the night
        # shift" is a direction, not a second verb) ...
        (
            "Can you switch me to the night shift from next Monday?",
            {"day": "next Monday"},
            {"From next Monday, can you switch me to the night shift?"},
        ),
        # ... but not one to move something (the day may be the shift's)
        ("Can you move me to the night shift from next Monday?", {"day": "next Monday"}, set()),
        # a state keeps its place among the sentences; its own time may open it
        (
            "Is the sauna open? I'm free on Sundays.",
            {"day": "Sundays"},
            {"Is the sauna open? On Sundays, I'm free."},
        ),
        # round four: a verbless label and identifier ("Customer ref X.") goes anywhere, as
        # "My customer ref is X." does
        (
            "We have to cancel the two boiler services because we're moving. Customer ref CT-4410. "
            "Will the deposit be returned?",
            {"ref": "CT-4410"},
            {
                "Customer ref CT-4410. We have to cancel the two boiler services because we're moving. "
                "Will the deposit be returned?",
                "We have to cancel the two boiler services because we're moving. Will the deposit be "
                "returned? Customer ref CT-4410.",
            },
        ),
        # two phrases opening with the same word never land side by side in a new order
        # ("switch my plan from next week from 10 GB ...")
        (
            "please switch my plan from 10 GB to 20 GB of data from next week",
            {"a": "10 GB", "b": "20 GB", "day": "next week"},
            set(),
        ),
        # a subject and a bare verb never open with their time ("On Monday the 3rd, we leave.")
        (
            "Please leave the keys with Tom. We leave on Monday the 3rd. Thanks!",
            {"name": "Tom", "day": "Monday the 3rd"},
            {"We leave on Monday the 3rd. Please leave the keys with Tom. Thanks!"},
        ),
        # a remedy presupposes the problem told before it and never moves in front of it
        (
            "The kettle I ordered arrived cracked. It leaks from the base. I'd like a replacement or my €30 back.",
            {"amt": "€30"},
            set(),
        ),
        # a yes/no question may open with its time after a place in its head
        (
            "Are kids allowed at the climbing wall on Sundays?",
            {"day": "Sundays"},
            {"On Sundays, are kids allowed at the climbing wall?"},
        ),
        # "in <month>" is a time phrase: it may open a statement with a stated subject
        (
            "I paid my water bill of £48 twice in March. Could you refund the extra payment?",
            {"amt": "£48", "month": "March"},
            {"In March, I paid my water bill of £48 twice. Could you refund the extra payment?"},
        ),
        # after a stated subject a place in the head is the verb's: the time may open
        (
            "My bike was stolen at the station on Monday. Can you send a claim form?",
            {"day": "Monday"},
            {
                "Can you send a claim form? My bike was stolen at the station on Monday.",
                "Can you send a claim form? On Monday, my bike was stolen at the station.",
                "On Monday, my bike was stolen at the station. Can you send a claim form?",
            },
        ),
    ],
)
def test_reorder_gives_exactly_these_texts(prompt: str, slots: dict[str, str], expected: set[str]) -> None:
    assert _all_texts(_task(prompt, slots)) == expected


@pytest.mark.parametrize(
    ("prompt", "slots"),
    [
        # no time opens the first sentence right after a greeting ("hi at 6 pm, call ...")
        ("hi call my sister at 6 pm", {"time": "6 pm"}),
        # a modal head: the date may be the permit's, not the need's
        ("I need to renew my permit on 3 July", {"date": "3 July"}),
        # "He's" refers back: the sentence stays glued behind the one it follows (only the
        # question may open the message, tested above); "he's" alone cannot move
        ("My cat Tom is sick. He's 3 years old.", {"name": "Tom", "age": "3 years old"}),
        # "for the <noun>" right after the head completes it: nothing comes between them
        # ("2 seats on 5 June for the Jazz Festival" splits the noun phrase), and the date
        # never opens the sentence (it may be the festival's)
        (
            "Get me 2 seats for the Jazz Festival in Leeds on 5 June",
            {"qty": "2", "event": "Jazz Festival", "city": "Leeds", "date": "5 June"},
        ),
        # "on the <noun>" right after the head completes it too ("a bid of $50 last week on
        # the red bicycle" splits the noun from its complement)
        ("I placed a bid of $50 on the red bicycle last week", {"amount": "$50", "when": "last week"}),
        # a date clause never opens an order that arranges something
        (
            "Schedule a delivery to 9 Mill Road, postcode LS2 7EW, on Friday.",
            {"addr": "9 Mill Road", "pc": "LS2 7EW", "day": "Friday"},
        ),
    ],
)
def test_reorder_refuses_doubtful_moves(prompt: str, slots: dict[str, str]) -> None:
    assert _all_texts(_task(prompt, slots)) == set()


def test_reorder_epsilon_floor_keeps_small_moves_off_high_levels() -> None:
    task = _task("Please water the plants in the back garden at 6 pm on weekdays", {"time": "6 pm"})
    moved = "Please water the plants in the back garden on weekdays at 6 pm"
    assert _all_texts(task) == {moved}
    # 13 words; "on weekdays" (2 words) passes "at 6 pm" (3): 2 x 3 discordant pairs of
    # 13 x 12 / 2 = 78
    assert measure_epsilon(task, "reorder", moved) == pytest.approx(round(6 / 78, 4))
    gen = CLASSES.get("reorder").generate
    assert gen(prepare(task), 0.1, rng_for(0, "t", "reorder", 0.1, 0, 0), 0).text == moved
    # the generator decides on the masked text, where the value "6 pm" is one word: 4 / 66
    with pytest.raises(SkipGeneration) as info:  # floor at 0.3: 0.3 / 2 - 0.05 = 0.10
        gen(prepare(task), 0.3, rng_for(0, "t", "reorder", 0.3, 0, 0), 0)
    assert info.value.reason == (
        "every other order moves too little for level 0.3 (ε 0.06 < 0.10); a lower level may have one"
    )
