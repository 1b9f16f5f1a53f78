"""Register, round seven (issue #14): a command said to a voice assistant ("Alexa, book X")
gets a register of its own — the command after the wake word is asked the register's spoken
way and the wake word stays in front of it — and the refusals that keep such variants
natural. Every prompt here is written for this file (none is copied from a benchmark set)."""

from __future__ import annotations

import random

from perturb.generate.core import prepare
from perturb.generate.perturbations._text import names_record
from perturb.generate.perturbations.register import (
    _BARE_OBJECT_RE,
    _closing,
    _greeting,
    _in_register,
    _question_frame,
    _split_wake,
    full_sentences,
)
from tests.test_register_round3 import texts
from tests.test_unseen_prompts import task


def one(prompt: str, reg: str, level: float = 0.5, slots: dict[str, str] | None = None) -> str | None:
    """The variant of ``prompt`` in the register ``reg`` (None when that register refuses)."""
    variant = _in_register(prepare(task(prompt, slots)), level, random.Random(0), reg)
    return None if variant is None else variant.text


def test_the_wake_word_is_split_off_and_the_command_opens_with_a_capital() -> None:
    assert _split_wake("Alexa, water the plants.") == ("Alexa, ", "Water the plants.")
    assert _split_wake("Hey Google, ask X for a quote") == ("Hey Google, ", "Ask X for a quote")
    assert _split_wake("OK Google, call home") == ("OK Google, ", "Call home")
    # no comma after the name, or nothing after the wake word: not a voice command
    assert _split_wake("Alexa water the plants") == ("", "Alexa water the plants")
    assert _split_wake("Alexa, ") == ("", "Alexa, ")


def test_a_voice_command_is_asked_the_registers_spoken_way_after_its_wake_word() -> None:
    got = texts("Alexa, water the plants on the balcony at 7pm.", {"t": "7pm"})
    assert got == {
        (0.1, 0): "Alexa, please could you water the plants on the balcony at 7pm?",
        # round eight: never "kindly" said to a device
        (0.1, 1): "Alexa, can you please water the plants on the balcony at 7pm?",
        (0.5, 0): "Alexa, please could you water the plants on the balcony at 7pm?",
        (0.5, 1): "Alexa, can you please water the plants on the balcony at 7pm?",
    }
    # a verb that is not in the verb list ("ask") is the command's verb after a wake word
    assert texts("Hey Google, ask Bright Sparks for a quote on rewiring a garage.", {"c": "Bright Sparks"})[
        (0.1, 0)
    ] == ("Hey Google, please could you ask Bright Sparks for a quote on rewiring a garage?")


def test_terse_drops_a_spoken_please_and_never_adds_typed_abbreviations() -> None:
    assert (
        one("Alexa, please switch off the hall lights.", "terse_us") == "Alexa, switch off the hall lights."
    )
    assert one("Alexa, please switch off the hall lights.", "formal_british") == (
        "Alexa, please could you switch off the hall lights?"
    )
    # a bare command has nothing terse to drop: "Alexa, pls water ..." or "Need you to" is typed
    assert one("Alexa, water the plants on the balcony at 7pm.", "terse_us") is None


def test_a_voice_statement_or_question_gets_no_opener_frame_greeting_or_closing() -> None:
    for reg in ("formal_british", "casual_indian", "terse_us"):
        # "Alexa, the parcel is at the door" asks no one to act
        assert one("Alexa, the parcel is at the door.", reg) is None
        # "Siri, quick q: how's ...?" and "Siri, please tell me, how's ...?" are typed frames
        assert one("Siri, how's the traffic on the M25?", reg, slots={"r": "M25"}) is None


def test_a_record_noun_before_a_value_alone_is_a_label_never_an_order() -> None:
    assert names_record("Order", " \ue000\ue100\ue001.")
    assert names_record("claim", " \ue000\ue100\ue001")
    assert not names_record("Order", " \ue000\ue100\ue001 red roses for Friday.")
    assert not names_record("Cancel", " \ue000\ue100\ue001.")  # "Cancel BK-1." is an order
    prompt = "We got the wrong sofa delivered on Tuesday. Order SF-2210. I'd like it collected."
    slots = {"o": "SF-2210"}
    # formal and Indian English have nothing else to reword; terse keeps the label as it is
    assert one(prompt, "formal_british", slots=slots) is None
    assert one(prompt, "casual_indian", slots=slots) is None
    assert one(prompt, "terse_us", slots=slots) == (
        "Got the wrong sofa delivered on Tuesday. Order SF-2210. I'd like it collected. TIA."
    )


def test_a_lower_case_weekday_is_capitalised_or_the_text_is_not_written_out() -> None:
    assert full_sentences("cancel my class on friday the reference is AB12") == (
        "Cancel my class on Friday. The reference is AB12."
    )
    # a protected "monday" cannot change case: no "Could you possibly move my lesson to monday?"
    slots = {"d": "monday"}
    assert one("can you move my lesson to monday", "formal_british", 0.3, slots) is None
    assert one("can you move my lesson to monday", "casual_indian", 0.3, slots) == (
        "please kindly move my lesson to monday"
    )
    assert one("can you move my lesson to monday", "terse_us", 0.3, slots) == "move my lesson to monday"


def test_a_question_without_a_verb_takes_no_please_tell_me() -> None:
    rng = random.Random(0)
    assert _question_frame("How much for a wash and cut?", "casual_indian", rng, True) == (
        "How much for a wash and cut?"
    )
    assert _question_frame("How much is a wash and cut?", "casual_indian", random.Random(0), True) == (
        "Please tell me, how much is a wash and cut?"
    )


def test_a_lower_case_question_is_framed_as_a_text_in_its_own_case() -> None:
    assert _question_frame("is the gym open late on fridays", "terse_us", random.Random(0), True) == (
        "quick question: is the gym open late on fridays"
    )
    # a question that asks someone to act is a request, never framed
    assert _question_frame("can you book me in for 6", "terse_us", random.Random(0), True) == (
        "can you book me in for 6"
    )
    # a request ("... can you clean it", "... pls send it") is never framed as a question
    assert _question_frame("my coat has a stain can you clean it", "terse_us", random.Random(0), True) == (
        "my coat has a stain can you clean it"
    )
    # a run-on that ends with its question, or a lower-case fragment with "?", is framed too
    assert _question_frame(
        "wasp nest in the loft how much to remove it", "terse_us", random.Random(1), True
    ) == ("quick q: wasp nest in the loft how much to remove it")
    assert _question_frame("next day delivery to york?", "terse_us", random.Random(0), True) == (
        "quick question: next day delivery to york?"
    )
    # a text that only tells something, or whose question is joined on by "if", is not
    for text in ("sam wont be in today hes got a cold", "call me back if is it ready"):
        assert _question_frame(text, "terse_us", random.Random(0), True) == text


def test_no_greeting_before_a_sentence_that_dropped_its_subject() -> None:
    text = "Picked up my coat yesterday. It has a stain. Can you clean it?"
    assert _greeting(text, "casual_indian", random.Random(0), False, lambda rest: False) == text
    with_subject = "I picked up my coat yesterday. It has a stain. Can you clean it?"
    assert _greeting(with_subject, "casual_indian", random.Random(0), False, lambda rest: False) == (
        "Hi team, I picked up my coat yesterday. It has a stain. Can you clean it?"
    )


def test_no_closing_or_question_frame_adds_a_second_please() -> None:
    text = "I have a dog, so please keep the gate shut. Please let me know when you can come."
    for seed in range(8):
        closed = _closing(text, "casual_indian", random.Random(seed))
        assert not closed[len(text) :].strip().lower().startswith("please"), closed
    asked = "I have a dog, so please keep the gate shut. Where is the van now?"
    for seed in range(8):
        framed = _question_frame(asked, "casual_indian", random.Random(seed))
        assert framed.startswith(asked) and "Please let me know" not in framed, framed


def test_a_bare_terse_order_needs_an_object_after_its_verb() -> None:
    prompt = "The boiler is twelve years old and making a noise. Can you quote for that?"
    for level in (0.1, 0.3, 0.5):
        text = one(prompt, "terse_us", level)
        assert text is not None and "quote for that" in text.lower()
        assert " Quote for that" not in text  # never a bare "Quote for that."
    # with an object (or a particle) after the verb the request may drop its "can you"
    assert _BARE_OBJECT_RE.match(" me the invoice for May")
    assert _BARE_OBJECT_RE.match(" off the lights")
    assert _BARE_OBJECT_RE.match(" \ue000\ue100\ue001 to my account")
    assert not _BARE_OBJECT_RE.match(" for that")
    assert not _BARE_OBJECT_RE.match(" on it")
