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
