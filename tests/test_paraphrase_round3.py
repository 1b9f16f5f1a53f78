"""Round three of issue #14 for paraphrase: questions, "can someone", passive requests and
lower-case messages that drop their subject (prompts written here, not from any benchmark set)."""

from __future__ import annotations

from tests.test_unseen_prompts import task, texts


def variants(prompt: str, slots: dict[str, str] | None = None) -> list[str]:
    return sorted(set(texts(task(prompt, slots), "paraphrase", seeds=3)))


def test_passive_and_there_questions_are_asked_indirectly() -> None:
    assert variants("I paid twice on 2 June. Can those be refunded?", {"date": "2 June"}) == [
        "I paid twice on 2 June. Can you tell me whether those can be refunded?",
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
