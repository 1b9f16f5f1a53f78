"""Review of round eleven of issue #14, paraphrase: wrong outputs found by red-teaming the new
question rules, each pinned to its exact output (or refusal). Every prompt here is written for
the test (none is copied from a benchmark set)."""

from __future__ import annotations

from tests.test_unseen_prompts import task, texts


def variants(prompt: str) -> list[str]:
    return sorted(set(texts(task(prompt), "paraphrase", seeds=3)))


def test_a_demonstrative_before_a_noun_is_no_pronoun_subject() -> None:
    # was "whether that is car yours", "whether this is seat taken", "whether those are boots waterproof"
    for prompt in (
        "Is that car yours?",
        "Is this seat taken?",
        "Are those boots waterproof?",
        "Is that price final?",
    ):
        assert variants(prompt) == []


def test_a_demonstrative_with_a_predicate_of_several_words_is_still_asked_indirectly() -> None:
    assert variants("Is that realistic for a Sunday?") == [
        "Can you tell me whether that is realistic for a Sunday?",
        "Could you tell me whether that is realistic for a Sunday?",
        "Do you know whether that is realistic for a Sunday?",
        "I'd like to know whether that is realistic for a Sunday.",
    ]


def test_an_ing_noun_after_this_is_no_progressive_verb() -> None:
    # was "whether this is thing on": "thing" read as an "-ing" verb after a bare "this"
    assert variants("Is this thing on?") == []
    assert variants("Is that still happening?") == [
        "Can you tell me whether that is still happening?",
        "Could you tell me whether that is still happening?",
        "I'd like to know whether that is still happening.",
    ]


def test_an_offer_to_the_reader_is_no_requirement() -> None:
    # was "Is a hand required?", "Is a lift required to the station?", "Is a break required or shall we carry on?"
    for prompt in (
        "Do you need a hand?",
        "Do you need a minute?",
        "Do you need a break or shall we carry on?",
    ):
        assert variants(prompt) == []
    assert variants("Do you need a lift to the station?") == []


def test_a_need_with_a_purpose_is_still_a_requirement() -> None:
    assert variants("Do you need a permit to park here?") == ["Is a permit required to park here?"]
    assert variants("Do I need an appointment or can I walk in?") == [
        "Is an appointment required or can I walk in?"
    ]


def test_a_tag_question_keeps_its_opening_words() -> None:
    # was "Am I required to pay now, don't I?": the tag no longer echoes the opening
    assert variants("Do I have to pay now, don't I?") == []


def test_a_bare_time_that_works_is_no_third_party() -> None:
    # was "Would it be possible for Friday to work?"
    assert variants("Can Friday work?") == []
    assert variants("Can June work?") == []
    assert variants("Can Bob come too?") == [
        "Is it possible for Bob to come too?",
        "Would it be possible for Bob to come too?",
    ]


def test_to_before_a_determiner_is_no_purpose() -> None:
    # "to the museum" is a place, not a purpose: never "Is a ticket required to the museum?"
    assert variants("Do I need a ticket to the museum?") == [
        "Can you tell me whether I need a ticket to the museum?",
        "Do you know whether I need a ticket to the museum?",
        "I'd like to know whether I need a ticket to the museum.",
    ]


def test_a_set_phrase_with_a_pronoun_subject_is_left_alone() -> None:
    # was "I'd like to know whether that is so." (surprise asked as a question of fact)
    for prompt in ("Is that so?", "Is that it?", "Is it me?"):
        assert variants(prompt) == []
