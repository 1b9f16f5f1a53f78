"""Register, round eight (issue #14): refusals of the kinds reviewers rejected — "kindly" or
"let me know" said to a voice assistant, a texting "quick q:" before a greeting, "Please give
me" before a causative ("the locks changed") or in place of a question ("Can I get X back?").
Every prompt here is written for this file (none is copied from a benchmark set)."""

from __future__ import annotations

import random

from perturb.generate.core import prepare
from perturb.generate.perturbations.register import _in_register, _question_frame
from tests.test_unseen_prompts import task


def one(prompt: str, reg: str, level: float = 0.5, seed: int = 0) -> str | None:
    """The variant of ``prompt`` in the register ``reg`` (None when that register refuses)."""
    variant = _in_register(prepare(task(prompt)), level, random.Random(seed), reg)
    return None if variant is None else variant.text


def test_no_kindly_or_let_me_know_said_to_a_voice_assistant() -> None:
    for seed in range(12):
        for reg in ("formal_british", "casual_indian"):
            for prompt in (
                "Alexa, water the plants on the balcony.",
                "Hey Siri, how long does it take to boil an egg?",
                "Hey Google, can you play some jazz in the kitchen?",
            ):
                got = one(prompt, reg, seed=seed)
                assert got is None or ("kindly" not in got.lower() and "let me know" not in got.lower()), got
    assert one("Hey Siri, how long does it take to boil an egg?", "formal_british") == (
        "Hey Siri, could you please tell me how long it takes to boil an egg?"
    )
    assert one("Hey Siri, how long does it take to boil an egg?", "casual_indian") == (
        "Hey Siri, can you please tell me how long it takes to boil an egg?"
    )


def test_no_texting_frame_before_a_greeting() -> None:
    rng = random.Random(0)
    greeted = "hi the cleaner left an hour early today is that normal"
    assert _question_frame(greeted, "terse_us", rng) == greeted
    assert _question_frame(greeted[3:], "terse_us", rng).startswith("quick q")


def test_please_give_me_never_demands_a_question_or_a_causative() -> None:
    for seed in range(12):
        for prompt in (
            "Can I get the booking fee back? The show was cancelled.",
            "I need the tyres changed before the weekend. What would that cost?",
        ):
            got = one(prompt, "casual_indian", seed=seed) or ""
            assert "give me" not in got.lower(), got
