"""Register, round seven (issue #14): a command said to a voice assistant ("Alexa, book X")
gets a register of its own — the command after the wake word is asked the register's spoken
way and the wake word stays in front of it — and the refusals that keep such variants
natural. Every prompt here is written for this file (none is copied from a benchmark set)."""

from __future__ import annotations

import random

from perturb.generate.core import prepare
from perturb.generate.perturbations.register import _in_register, _split_wake
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
        (0.1, 1): "Alexa, kindly water the plants on the balcony at 7pm.",
        (0.5, 0): "Alexa, please could you water the plants on the balcony at 7pm?",
        (0.5, 1): "Alexa, kindly water the plants on the balcony at 7pm.",
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
