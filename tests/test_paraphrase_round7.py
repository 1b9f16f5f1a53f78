"""Round seven of issue #14, paraphrase: wake-word commands, more questions asked another way,
clipped asks of lower-case run-ons, and the refusals added after heldout4's reviewers' notes.
Every prompt here is written for the test (none is copied from a benchmark set)."""

from __future__ import annotations

import random
import re

from perturb.generate.perturbations._phrases import Claimed, apply_edits
from tests.test_unseen_prompts import task, texts


def variants(prompt: str, slots: dict[str, str] | None = None) -> list[str]:
    return sorted(set(texts(task(prompt, slots), "paraphrase", seeds=3)))


# --- wake words ------------------------------------------------------------------------


def test_a_wake_word_stays_and_the_command_after_it_is_reframed() -> None:
    got = variants("Alexa, order a large pizza for Friday at 7pm.", {"day": "Friday", "time": "7pm"})
    assert got == [
        "Alexa, I want to order a large pizza for Friday at 7pm.",
        "Alexa, I'd like to order a large pizza for Friday at 7pm.",
        "Alexa, can you order a large pizza for Friday at 7pm?",
        "Alexa, can you please order a large pizza for Friday at 7pm?",
        "Alexa, could you order a large pizza for Friday at 7pm?",
    ]


def test_nobody_says_a_formal_or_you_to_framing_to_a_device() -> None:
    got = texts(task("Hey Google, ask the garage to ring me back after lunch."), "paraphrase", seeds=6)
    assert got
    for text in got:
        assert text.startswith("Hey Google, ")
        assert not re.search(r"you to |please could you|would you ", text, re.I), text


# --- questions asked another way ----------------------------------------------------------


def test_plain_yes_no_questions_are_asked_indirectly() -> None:
    cases: dict[str, str] = {
        "Is a parking permit included?": "whether a parking permit is included",
        "Are school trips free for siblings?": "whether school trips are free for siblings",
        "Is anybody available?": "whether anybody is available",
        "Is the kettle under warranty?": "whether the kettle is under warranty",
        "Do your drivers bring card readers?": "whether your drivers bring card readers",
    }
    for prompt, clause in cases.items():
        got = texts(task(prompt), "paraphrase", seeds=3)
        assert got and all(clause in t for t in got), (prompt, got)


def test_how_long_and_what_the_user_must_do_are_asked_indirectly() -> None:
    got = variants("How long does a full valet usually take?")
    assert got and all("how long a full valet usually takes" in t for t in got)
    got = variants("How long do we have to wait before painting the wall?")
    assert got and all("how long we have to wait before painting the wall" in t for t in got)


def test_a_question_with_a_second_subject_is_not_asked_indirectly() -> None:
    assert variants("Is the paint you sell safe for kids?") == []


def test_what_the_user_may_do_is_asked_as_what_is_possible() -> None:
    got = variants("We moved last month. Could we change the delivery day?")
    assert "We moved last month. Would it be possible to change the delivery day?" in got
    assert "We moved last month. Is it possible to change the delivery day?" in got


def test_a_capability_question_stays_a_question() -> None:
    # "Can you cater for vegans?" asks what the helper can do: never "Cater for vegans."
    assert variants("Can you cater for vegans and coeliacs?") == [
        "Are you able to cater for vegans and coeliacs?",
        "Would you be able to cater for vegans and coeliacs?",
    ]


def test_a_polite_question_never_becomes_a_bare_or_demanding_order() -> None:
    got = variants("My printer is jammed again. Can you fix it?")
    assert got
    for text in got:
        assert not re.search(r"\. (?:Fix it|I want you to|I need you to)", text), text
    assert "My printer is jammed again. Would you be able to fix it?" in got


def test_a_lower_case_run_on_closing_can_you_is_asked_casually() -> None:
    got = variants("the boiler is leaking again can you send someone today")
    assert "the boiler is leaking again any chance you could send someone today" in got
    assert not any("how any chance" in t for t in got)


def test_clipped_price_and_time_asks_are_asked_in_full() -> None:
    assert variants("how much for 2 duvets and a rug") == ["what do you charge for 2 duvets and a rug"]
    assert variants("window cleaning for a 3 bed semi how much and how long") == [
        "window cleaning for a 3 bed semi what would it cost and how long would it take"
    ]
    assert variants("oven clean next week whats the price") == [
        "oven clean next week how much would it cost",
        "oven clean next week what would it cost",
    ]


# --- refusals -----------------------------------------------------------------------------


def test_a_record_noun_before_its_number_is_not_an_order() -> None:
    got = variants("The soup was cold. Order KX-4410. I'd like a partial refund.", {"order": "KX-4410"})
    assert not any(re.search(r"order KX-4410 for me|you order|to order KX", t, re.I) for t in got), got


def test_reservation_only_where_something_is_reserved() -> None:
    got = variants("Please move my booking for the gutter clean to Monday.")
    assert got and not any("reservation" in t for t in got)
    got = variants("Please move my table booking to Monday.")
    assert any("reservation" in t for t in got)
    got = variants("Just checking the repair I booked. Can you do Friday?")
    assert not any("reserved" in t for t in got)


def test_give_me_is_swapped_only_in_an_order_and_left_with_you_is_not_forgot() -> None:
    got = variants("I'd like to sell my old camera. What would you give me for it?")
    assert not any("get me" in t or "provide me" in t for t in got), got
    got = variants("I left my coat with you on Friday. Can you post it to me?", {"day": "Friday"})
    assert not any("forgot" in t for t in got), got


def test_can_you_do_that_is_not_wrapped_and_can_is_not_said_twice() -> None:
    got = variants("We want 40 sandwiches and a cake by noon. Can you do that?")
    assert not any("whether you can do that" in t for t in got), got
    got = variants("Can I pay the deposit in two parts?")
    assert got and not any("Can you tell me whether" in t for t in got), got


def test_lower_case_text_that_never_writes_i_gets_no_capital_i_lead() -> None:
    got = variants("do you open on sundays")
    assert got and not any(t.startswith("I") for t in got), got


def test_arrived_after_hadnt_keeps_its_participle() -> None:
    got = variants("They said it hadn't arrived yet. Can you find out where it is?")
    assert not any("hadn't came" in t for t in got), got


# --- linear time ----------------------------------------------------------------------------


def test_claimed_ranges_answer_like_a_scan() -> None:
    rng = random.Random(3)
    claimed = Claimed()
    taken: list[tuple[int, int, str]] = []
    for _ in range(400):
        a = rng.randrange(0, 2000)
        edit = (a, a + rng.randrange(0, 6), "x")
        scan = any(
            e[0] < t[1] and t[0] < e[1] or (e[0] == t[0] and e[1] == t[1]) for e in [edit] for t in taken
        )
        assert claimed.hits([edit]) == scan
        if not scan:
            taken.append(edit)
            claimed.add([edit])


def test_apply_edits_builds_the_text_in_one_pass() -> None:
    assert apply_edits("abcdef", [(1, 2, "X"), (4, 4, "YY"), (0, 0, "<"), (5, 6, "")]) == "<aXcdYYe"


def test_clipped_asks_and_able_rewrites_refuse_words_that_are_not_their_verb_or_already_ask() -> None:
    assert variants("i need to know how much") == []
    assert variants("Can you guys check my order?") == []
    assert variants("Could we maybe start later?") == []


def test_a_lower_case_can_you_without_question_mark_is_still_a_polite_question() -> None:
    got = variants("hi can you check if my parcel has shipped")
    assert got and not any(re.match(r"(?:hi|hello) check\b", t) for t in got), got
    assert variants("can you tell me how much it costs") == []


def test_me_before_a_time_is_no_object_so_an_appointment_question_stays_a_question() -> None:
    assert variants("Can you see me this afternoon?") == [
        "Are you able to see me this afternoon?",
        "Would you be able to see me this afternoon?",
    ]


def test_a_request_with_a_second_question_joined_on_stays_a_question() -> None:
    # round twelve's "need to" -> "have to" makes the second half's change; the request stays a question
    assert variants("Can you fix the tap today or do I need to call someone else?") == [
        "Can you please fix the tap today or do I have to call someone else?",
        "Could you please fix the tap today or do I have to call someone else?",
        "Would you fix the tap today or do I have to call someone else?",
    ]


def test_clipped_how_much_to_what_is_going_on_and_a_wish_for_it_done() -> None:
    assert variants("How much to replace a phone screen?") == [
        "How much would it cost to replace a phone screen?",
        "What would it cost to replace a phone screen?",
    ]
    got = variants("I dropped my laptop off a fortnight ago. What's going on?")
    assert got and all(t.endswith(("what's going on?", "what's going on.")) for t in got), got
    assert variants("What's going on?") == []  # nothing before it to be asked about
    assert variants("My coat came back stained. I'd like it cleaned again please.") == [
        "My coat came back stained. Can I get it cleaned again please?",
        "My coat came back stained. Could I get it cleaned again please?",
        "My coat came back stained. Could I have it cleaned again please?",
    ]
    assert variants("I'd like it fixed before I go away.") == []  # a second subject after it


def test_how_long_will_x_take_to_keeps_its_verb_out_of_the_subject() -> None:
    got = variants("How long will my parcel take to arrive?")
    assert got and all("how long my parcel will take to arrive" in t for t in got), got
