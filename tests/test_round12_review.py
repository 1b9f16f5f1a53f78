"""Red-team review of round twelve (issue #14): the wrong outputs a set of hand-written
prompts aimed at round twelve's rules found, each fixed at its general cause (mostly by a
refusal). Exact texts every level and seed can give; every prompt here is written for this
file (none is from a benchmark set)."""

from __future__ import annotations

from tests.test_round11_post_b import _task, _texts


def test_the_users_own_city_is_never_misstated_whichever_list_names_it() -> None:
    # "Bristol" is a shipped city, not a gazetteer town: "I live in Cardiff, no, Bristol" was made
    texts = _texts(
        "self_correction",
        _task("I live in Bristol and need a plumber on Friday.", city="Bristol", day="Friday"),
    )
    assert texts and not any("Bristol," in t or ", Bristol" in t for t in texts)
    assert "I live in Bristol and need a plumber on Thursday, no, Friday." in texts
    # the office's city only: nothing else can be corrected
    assert (
        _texts("self_correction", _task("Our office is in Cardiff, send the invoice there.", city="Cardiff"))
        == set()
    )


def test_a_duration_under_a_negation_is_never_corrected() -> None:
    # "do not hold the room for a fortnight, no, a week" leaves unclear which stretch is refused
    texts = _texts(
        "self_correction",
        _task("Please do not hold the room for a week, only until Friday.", duration="a week", day="Friday"),
    )
    assert texts and all(t.startswith("Please do not hold the room for a week, only until ") for t in texts)


def test_a_duration_typed_in_capitals_is_corrected_in_capitals() -> None:
    assert _texts("self_correction", _task("BOOK A ROOM FOR A WEEK IN MAY.", duration="A WEEK")) == {
        "BOOK A ROOM FOR A FORTNIGHT — scratch that, A WEEK IN MAY.",
        "BOOK A ROOM FOR A FORTNIGHT, I mean A WEEK IN MAY.",
        "BOOK A ROOM FOR A FORTNIGHT, no wait, A WEEK IN MAY.",
        "BOOK A ROOM FOR A FORTNIGHT, no, A WEEK IN MAY.",
    }


def test_the_second_of_two_alternatives_is_never_fronted_alone() -> None:
    # was "Next week, are you free tomorrow or?"
    assert _texts("reorder", _task("Are you free tomorrow or next week?")) == set()


def test_two_objects_of_one_asking_verb_are_not_two_questions() -> None:
    # was "Who I should ask for, and could you tell me when I can call?"
    assert _texts("reorder", _task("Could you tell me when I can call, and who I should ask for?")) == set()
    # two direct questions still swap
    assert _texts("reorder", _task("What do I need to send you, and how long will the transfer take?")) == {
        "How long will the transfer take, and what do I need to send you?"
    }


def test_a_value_ending_in_a_full_stop_never_ends_a_reordered_sentence() -> None:
    # was "Please collect at noon from 7 Station Rd.."
    prompt = "Please collect from 7 Station Rd. at noon."
    assert _texts("reorder", _task(prompt, street="Station Rd.", time="noon")) == set()
    prompt = "Please collect from 7 Station Road at noon."
    assert _texts("reorder", _task(prompt, street="Station Road", time="noon")) == {
        "Please collect at noon from 7 Station Road."
    }


def test_a_question_ended_by_a_full_stop_is_never_split_at_and() -> None:
    # was "How much is a ticket. I need two of them."
    assert _texts("paraphrase", _task("How much is a ticket and I need two of them.")) == set()
    assert _texts("paraphrase", _task("Could you send it today and I'll pay on delivery.")) == {
        "I would like you to send it today and I'll pay on delivery.",
        "I'd like you to send it today and I'll pay on delivery.",
        "Please send it today and I'll pay on delivery.",
    }
    # a statement still splits
    assert _texts("paraphrase", _task("I booked a room and I need a late checkout.")) == {
        "I booked a room. I need a late checkout.",
        "I reserved a room. I need a late checkout.",
    }


def test_a_run_on_cut_at_its_comma_never_ends_in_a_comma_and_a_stop() -> None:
    # was "It says unpaid,. Please could you check?"
    texts = _texts("register", _task("it says unpaid, can you check"), levels=(0.5,))
    assert "It says unpaid. Please could you check?" in texts
    assert "It says unpaid. Could you possibly check?" in texts
    assert not any(",." in t for t in texts)
