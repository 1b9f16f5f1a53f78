"""Round twelve of issue #14, reorder: a statement right before the closing question that
carries on the story's thread moves behind that question, and only there. Exact texts every
level and seed can give; every prompt here is written for this file (none is from a benchmark
set)."""

from __future__ import annotations

import pytest

from tests.test_round11_post_b import _task, _texts


def test_a_pronoun_statement_moves_behind_a_question_with_the_same_pronoun() -> None:
    prompt = (
        "The washing machine you installed on Monday is leaking. It floods the kitchen floor "
        "every cycle. Can someone come and look at it?"
    )
    assert _texts("reorder", _task(prompt)) == {
        "The washing machine you installed on Monday is leaking. Can someone come and look at "
        "it? It floods the kitchen floor every cycle."
    }


def test_time_passing_moves_behind_a_question_without_a_pronoun() -> None:
    prompt = "My parcel was due on Friday. It's been two weeks. Can you check where the parcel is?"
    assert _texts("reorder", _task(prompt)) == {
        "My parcel was due on Friday. Can you check where the parcel is? It's been two weeks."
    }


@pytest.mark.parametrize(
    "prompt",
    [
        # the question points at the statement ("that") or leans on it ("too")
        "The boiler keeps cutting out. It's making a banging noise. Is that normal?",
        "The kettle lid is cracked. It leaks from the spout. Is the handle loose too?",
    ],
)
def test_a_question_that_leans_on_the_statement_keeps_it_before(prompt: str) -> None:
    assert _texts("reorder", _task(prompt)) == set()


def test_a_pronoun_the_question_does_not_share_keeps_the_statement_in_place() -> None:
    prompt = "My son started swimming lessons in May. He loves the teacher. Can you send me the invoice?"
    assert _texts("reorder", _task(prompt)) == {
        "In May, my son started swimming lessons. He loves the teacher. Can you send me the invoice?"
    }


def test_with_its_statement_moved_behind_the_question_never_follows_an_identifier_statement() -> None:
    prompt = (
        "Still waiting on the bike rack I ordered in March. My customer number is 55123. It was "
        "meant to ship in five days. Could you chase it up?"
    )
    assert _texts("reorder", _task(prompt)) == {
        "My customer number is 55123. Still waiting on the bike rack I ordered in March. Could "
        "you chase it up? It was meant to ship in five days.",
        "My customer number is 55123. Still waiting on the bike rack I ordered in March. It was "
        "meant to ship in five days. Could you chase it up?",
        "Still waiting on the bike rack I ordered in March. It was meant to ship in five days. "
        "Could you chase it up? My customer number is 55123.",
        # the statement not moved: the question follows it, as before round twelve
        "Still waiting on the bike rack I ordered in March. It was meant to ship in five days. My "
        "customer number is 55123. Could you chase it up?",
    }


def test_the_story_a_statement_is_cut_from_moves_no_more_freely() -> None:
    # "I was told 5 working days." leaned on the glued "It's now been ..." before the cut: it
    # still never opens the message
    prompt = (
        "I ordered a desk on the 3rd. I was told 5 working days. It's now been three weeks. Can you chase it?"
    )
    assert _texts("reorder", _task(prompt)) == {
        "I ordered a desk on the 3rd. I was told 5 working days. Can you chase it? It's now been three weeks."
    }


def test_a_protected_duration_reads_as_time_passing() -> None:
    prompt = (
        "I returned a faulty lamp for a refund. It's been ten days. Can you confirm the refund was issued?"
    )
    assert _texts("reorder", _task(prompt, {"intent": "x"}, wait="ten days")) == {
        "I returned a faulty lamp for a refund. Can you confirm the refund was issued? It's been ten days."
    }


def test_a_statement_left_after_its_story_when_the_question_opens_the_message() -> None:
    prompt = (
        "I sent my bike in for a service on 2 March. It's been over a month now. Any update on job BK-5512?"
    )
    assert _texts("reorder", _task(prompt, {"intent": "x"}, day="2 March", job="BK-5512")) == {
        "Any update on job BK-5512? I sent my bike in for a service on 2 March. It's been over a month now.",
        "I sent my bike in for a service on 2 March. Any update on job BK-5512? It's been over a month now.",
    }
