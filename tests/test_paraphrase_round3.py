"""Round three of issue #14 for paraphrase: questions, "can someone", passive requests and
lower-case messages that drop their subject (prompts written here, not from any benchmark set)."""

from __future__ import annotations

import random
import re

from perturb.generate.perturbations import paraphrase
from perturb.generate.perturbations._phrases import phrase_ops
from tests.test_unseen_prompts import task, texts


def variants(prompt: str, slots: dict[str, str] | None = None) -> list[str]:
    return sorted(set(texts(task(prompt, slots), "paraphrase", seeds=3)))


def test_passive_and_there_questions_are_asked_indirectly() -> None:
    assert variants("I paid twice on 2 June. Can those be refunded?", {"date": "2 June"}) == [
        "I paid twice on 2 June. Could you tell me whether those can be refunded?",
        "I paid twice on 2 June. Do you know whether those can be refunded?",
        "I paid twice on 2 June. I'd like to know whether those can be refunded.",
    ]
    assert "The store said it would call back. Do you know whether there has been any update?" in variants(
        "The store said it would call back. Has there been any update?"
    )


def test_yes_no_questions_about_a_name_or_that_are_asked_indirectly() -> None:
    assert variants("Is Marta available?", {"name": "Marta"}) == [
        "Can you tell me whether Marta is available?",
        "Do you know whether Marta is available?",
        "I'd like to know whether Marta is available.",
    ]
    assert "The parcel is late. Can you tell me whether that is normal?" in variants(
        "The parcel is late. Is that normal?"
    )


def test_what_do_you_need_is_never_asked_as_do_you_know_what_you_need() -> None:
    got = variants("What papers do you need from me for the visa?")
    assert got == [
        "Can you tell me what papers you need from me for the visa?",
        "Could you tell me what papers you need from me for the visa?",
        "I'd like to know what papers you need from me for the visa.",
    ]


def test_can_someone_asks_for_a_person() -> None:
    assert variants("My order came broken. Can someone look at it?") == [
        "My order came broken. Could you get someone to look at it?",
        "My order came broken. Could you have someone look at it?",
        "My order came broken. Is there someone who could look at it?",
    ]


def test_how_long_until_and_going_to_are_asked_directly() -> None:
    # a voice question without its "?" is a question too: asked directly or indirectly
    got = variants("How long until my parcel arrives")
    assert "When will my parcel arrive" in got
    assert set(got) - {"When will my parcel arrive"} <= {
        "Can you tell me how long until my parcel arrives",
        "Could you tell me how long until my parcel arrives",
        "Do you know how long until my parcel arrives",
        "I'd like to know how long until my parcel arrives",
    }, got
    assert "When will my parcel arrive?" in variants("When is my parcel going to arrive?")


def test_lower_case_messages_that_drop_the_subject_keep_their_style() -> None:
    assert variants("need to cancel my gym membership before march", {"m": "march"}) == [
        "can you cancel my gym membership before march"
    ]
    assert variants("need a plumber in leeds on monday", {"c": "leeds", "d": "monday"}) == [
        "can i get a plumber in leeds on monday"
    ]
    # a formal swap ("prior to") never lands in a lower-case text message
    assert not any("prior to" in t for t in variants("need a plumber before monday", {"d": "monday"}))


def test_a_closing_can_i_in_a_run_on_is_reworded_but_not_after_a_question_word() -> None:
    got = variants("got charged twice in may can i get a refund", {"m": "may"})
    assert got and all(t.startswith("got charged twice in may is ") for t in got), got
    assert {t.split(" to get a ")[0] for t in got} == {
        "got charged twice in may is it possible",
        "got charged twice in may is there a way",
    }, got
    assert not any("is it possible" in t or "a way to" in t for t in variants("how can i reset my password"))


def test_under_a_name_is_not_below_a_name() -> None:
    assert not any("below" in t for t in variants("The flat is booked under Ana Diaz.", {"n": "Ana Diaz"}))
    assert "Find a flat below €900" in " ".join(variants("Find a flat under €900", {"p": "€900"}))


def test_voice_commands_get_no_i_want_you_to_framing() -> None:
    got = variants("Set a timer for 20 minutes", {"t": "20 minutes"})
    assert got and not any(" you to " in t for t in got), got


def test_book_becomes_reserve_only_for_things_one_reserves() -> None:
    assert not any(
        "reserve" in t.lower() for t in variants("Book a massage with Ines on Friday at 4", {"n": "Ines"})
    )
    rules = [r for r in paraphrase._phrase_rules() if r[0]["from"] == "book"]
    rng = random.Random(0)
    assert [op[1] for op in phrase_ops("I want to book a table for 4.", rules, rng)] == [
        [(10, 14, "reserve")]
    ]
    assert phrase_ops("I want to book a haircut for 4.", rules, rng) == []


def test_no_reimbursement_no_tell_me_who_to_tell_no_self_framing_with_for_me() -> None:
    got = variants("I'd like a refund for my gym pass. I moved away last month.")
    assert got and not any("reimbursement" in t for t in got), got
    got = variants("My car was hit in the car park. Who should I tell about it?")
    assert not any("tell me who" in t for t in got), got
    for t in variants("Book a massage with Ines on Friday at 4", {"n": "Ines"}):
        assert not (
            t.startswith(("I need to", "I'd like to", "I want to", "I would like to")) and "for me" in t
        ), t


def test_a_lower_case_message_that_writes_i_keeps_it_lower_case() -> None:
    got = variants("how do i change my address if i moved last week")
    assert "i'd like to know how to change my address if i moved last week" in got, got
    assert not any(t.startswith("I'd") for t in got), got


def test_a_lower_case_one_line_order_gets_no_i_want_you_to() -> None:
    got = variants("set the heating to 20 degrees at 6 am", {"t": "20 degrees", "h": "6 am"})
    assert got and not any(" you to " in t for t in got), got


def test_a_plain_framing_swap_comes_with_one_that_changes_the_mood() -> None:
    got = variants("I need to register my new address. The flat is 3B.", {"flat": "3B"})
    assert {
        "Could you help me register my new address? The flat is 3B.",
        "Can you help me register my new address? The flat is 3B.",
    } & set(got), got


def test_a_greeting_comma_is_not_a_clause_break_and_please_could_you_asks() -> None:
    got = variants("Hello, I'd like a quote for a new boiler. It is 20 years old.")
    assert got and not any(t.startswith(("Hello?", "Hi?")) for t in got), got
    assert all(t.endswith("?") or "?" in t for t in got if t.lower().startswith("please could you")), got
    for t in variants("can you renew my parking permit before monday", {"d": "monday"}):
        assert t[0].islower() or re.match(r"I\b", t), t  # no capital but "I" in a lower-case message
