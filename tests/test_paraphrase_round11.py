"""Round eleven of issue #14, paraphrase: rules chosen by the grammatical shape of a question
(a pronoun subject after a wh-phrase, a clause opened by "if"/"before" inside a written
question, an obligation or a need asked as a requirement) and their refusals. Every prompt
here is written for the test (none is copied from a benchmark set)."""

from __future__ import annotations

from tests.test_unseen_prompts import task, texts


def variants(prompt: str, slots: dict[str, str] | None = None) -> list[str]:
    return sorted(set(texts(task(prompt, slots), "paraphrase", seeds=3)))


def test_how_long_with_a_modal_and_a_pronoun_subject_is_asked_indirectly() -> None:
    # the clause after "before" has its own subject: part of the question, kept as it is
    assert variants("How long should we leave the varnish before we walk on it?") == [
        "Can you tell me how long we should leave the varnish before we walk on it?",
        "Do you know how long we should leave the varnish before we walk on it?",
        "I'd like to know how long we should leave the varnish before we walk on it.",
    ]


def test_a_closing_wh_question_about_what_the_helper_is_doing_is_asked_indirectly() -> None:
    got = variants("The quote said oak. Which wood are you actually using?")
    assert got == [
        "The quote said oak. Can you tell me which wood you are actually using?",
        "The quote said oak. Could you tell me which wood you are actually using?",
        "The quote said oak. I'd like to know which wood you are actually using.",
    ]


def test_a_wh_question_with_a_second_sentence_run_on_is_left_alone() -> None:
    # "and I ..." is a clause of its own, not part of the question
    assert variants("How often should I water it and I am away in May?") == []


def test_can_you_with_an_if_clause_keeps_the_clause() -> None:
    assert variants("Can you swim in the lake if you have a cast on?") == [
        "Are you able to swim in the lake if you have a cast on?",
        "Would you be able to swim in the lake if you have a cast on?",
    ]


def test_an_obligation_is_asked_as_a_requirement() -> None:
    assert variants("Do we have to wear gloves or can we use our own?") == [
        "Are we required to wear gloves or can we use our own?"
    ]
    assert variants("Hi, do I have to print the ticket?") == [
        "Hello, am I required to print the ticket?",
        "Hi, am I required to print the ticket?",
    ]


def test_a_need_for_a_thing_with_a_purpose_is_asked_as_a_requirement() -> None:
    got = variants("Do you need a medical certificate to join the climbing club?")
    assert got == ["Is a medical certificate required to join the climbing club?"]


def test_a_need_whose_thing_has_no_clear_end_is_not_asked_as_a_requirement() -> None:
    # "a copy of my lease": the thing needed runs on past a preposition the rule does not read
    for prompt in ("Do you need a copy of my lease?", "do i have to bring a towel"):
        assert all("required" not in t for t in variants(prompt)), prompt
