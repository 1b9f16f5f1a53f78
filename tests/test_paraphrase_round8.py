"""Round eight of issue #14, paraphrase: more kinds of question asked another way, and the
refusals that keep them safe. Every prompt here is written for the test (none is copied from a
benchmark set)."""

from __future__ import annotations

from tests.test_unseen_prompts import task, texts


def variants(prompt: str, slots: dict[str, str] | None = None) -> list[str]:
    return sorted(set(texts(task(prompt, slots), "paraphrase", seeds=3)))


def test_a_do_you_question_about_a_service_is_asked_indirectly() -> None:
    assert variants("Do you repair leather sofas with torn cushions?") == [
        "Can you tell me whether you repair leather sofas with torn cushions?",
        "Could you tell me whether you repair leather sofas with torn cushions?",
        "I'd like to know whether you repair leather sofas with torn cushions.",
    ]


def test_a_do_you_question_with_a_second_question_later_is_left_alone() -> None:
    # "whether you clean rugs, and roughly how much would that be" mixes two kinds of question
    assert variants("Do you clean wool rugs, and roughly how much would that be?") == []


def test_do_you_think_is_not_a_service_question() -> None:
    assert variants("Do you think the paint will dry by tonight?") == []


def test_a_question_after_a_wake_word_is_asked_with_tell_me() -> None:
    assert variants("Hey Siri, what time does the pharmacy open on Sunday?") == [
        "Hey Siri, tell me what time the pharmacy opens on Sunday."
    ]
    assert variants("Hey Google, is the swimming pool open today?") == [
        "Hey Google, tell me whether the swimming pool is open today."
    ]


def test_the_verb_goes_before_a_plain_predicate_not_after_it() -> None:
    assert variants("When is the library open on Saturday?") == [
        "Can you tell me when the library is open on Saturday?",
        "Do you know when the library is open on Saturday?",
        "I'd like to know when the library is open on Saturday.",
    ]


def test_what_a_named_business_charges_or_when_it_closes_is_asked_indirectly() -> None:
    assert variants("How much does Brightway charge for a deep clean?", {"company": "Brightway"}) == [
        "Can you tell me how much Brightway charges for a deep clean?",
        "Do you know how much Brightway charges for a deep clean?",
        "I'd like to know how much Brightway charges for a deep clean.",
    ]
    got = variants(
        "Alexa, what time does the Leeds branch of Pinecrest close today?", {"company": "Pinecrest"}
    )
    assert got == ["Alexa, tell me what time the Leeds branch of Pinecrest closes today."]


def test_a_named_shop_on_a_named_street_is_one_subject() -> None:
    got = variants(
        "Hey Siri, when does Pip's Deli on Hill Street close?",
        {"company": "Pip's Deli", "street": "Hill Street"},
    )
    assert got == ["Hey Siri, tell me when Pip's Deli on Hill Street closes."]
