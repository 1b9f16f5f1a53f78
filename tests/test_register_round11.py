"""Register, round eleven (issue #14): a question said to a voice assistant is asked
indirectly by the same rules by grammatical shape that paraphrase uses after a wake word, and
a wh-question in the progressive puts "is" where its subject ends, however long the subject.
Every prompt here is written for this file (none is copied from a benchmark set)."""

from __future__ import annotations

import random

from perturb.generate.core import prepare
from perturb.generate.perturbations.register import _in_register
from tests.test_unseen_prompts import task


def one(prompt: str, reg: str, level: float = 0.5, seed: int = 0) -> str | None:
    """The variant of ``prompt`` in the register ``reg`` (None when that register refuses)."""
    variant = _in_register(prepare(task(prompt)), level, random.Random(seed), reg)
    return None if variant is None else variant.text


def test_a_voice_question_whose_subject_ends_at_a_marked_verb_is_asked_indirectly() -> None:
    # "being", a modal + "be", a subject that ends the question: the rules paraphrase reads
    assert one("Alexa, when is my bin being emptied?", "formal_british") == (
        "Alexa, could you please tell me when my bin is being emptied?"
    )
    assert one("OK Google, where's my parcel from the garden centre?", "casual_indian") == (
        "OK Google, can you please tell me where my parcel from the garden centre is?"
    )
    assert one("Hey Siri, when will my coat from the dry cleaner be ready?", "formal_british") == (
        "Hey Siri, could you please tell me when my coat from the dry cleaner will be ready?"
    )
    assert one("Hey Google, how long should I soak the lentils?", "casual_indian") == (
        "Hey Google, can you please tell me how long I should soak the lentils?"
    )


def test_a_progressive_verb_marks_the_end_of_a_long_subject() -> None:
    assert one("Alexa, when's the boiler engineer from Heatwise coming on Friday?", "formal_british") == (
        "Alexa, could you please tell me when the boiler engineer from Heatwise is coming on Friday?"
    )
    # before, "is" went after the whole subject: "what the weather doing is this weekend"
    assert one("Hey Siri, what's the weather doing this weekend?", "casual_indian") == (
        "Hey Siri, can you please tell me what the weather is doing this weekend?"
    )
    assert one("What's the weather doing this weekend? We want to go camping.", "formal_british") == (
        "I would be grateful if you could tell me what the weather is doing this weekend. We want to go camping."
    )


def test_a_progressive_question_with_a_second_question_is_refused() -> None:
    # "when the fitter is coming on Monday and what time" would blend two questions
    for reg in ("formal_british", "casual_indian"):
        assert one("Alexa, when's the fitter coming on Monday and what time?", reg) is None


def test_the_terse_register_still_asks_no_voice_question_indirectly() -> None:
    # it has no voice question leads: "Alexa, tell me when ..." is no register of its own
    assert one("Alexa, when is my bin being emptied?", "terse_us") is None


def test_a_greeted_text_that_opens_with_a_question_takes_the_frame_after_its_greeting() -> None:
    assert one("hi can we park outside the studio on saturday or is it permit only", "terse_us") == (
        "hi quick question: can we park outside the studio on saturday or is it permit only"
    )
    assert one("hey whats the latest i can drop the car off tomorrow", "terse_us") == (
        "hey quick question: whats the latest i can drop the car off tomorrow"
    )


def test_a_greeted_complaint_gets_no_question_frame() -> None:
    # the question ends a complaint ("quick q:" before an exasperated text reads wrong)
    assert one("hi the gate latch is broken again whats going on", "terse_us") is None


def test_an_ing_word_after_an_of_phrase_or_at_the_end_is_left_to_the_older_rules() -> None:
    # it may be a noun: "the price of teeth whitening" is no "price of teeth is whitening"
    assert one("What's the price of teeth whitening for two?", "casual_indian") == (
        "Kindly tell me what the price of teeth whitening for two is."
    )
    assert one("whats the price of teeth whitening", "formal_british") == (
        "Could you please let me know what the price of teeth whitening is?"
    )
