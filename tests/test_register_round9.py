"""Register, round nine (issue #14): refusals of the kinds reviewers rejected — a contraction
expanded into broken grammar ("It is stopped heating", "do not you?"), a written abbreviation
said to a voice assistant ("w/"), a British word swapped for an American one that lacks its
sense ("restroom cistern"), "reservation" for a booking that holds no place, "Please give me"
for work done on something of the user's, a clipped "Want X, please.", a written register
around a text message that stays a run-on, and an indirect question with a direct one joined
on by "or". Every prompt here is written for this file (none is copied from a benchmark set)."""

from __future__ import annotations

import random

from perturb.generate.core import prepare
from perturb.generate.perturbations.register import _expand, _in_register, full_sentences, run_on, vocabulary
from tests.test_unseen_prompts import task


def one(prompt: str, reg: str, level: float = 0.5, seed: int = 0) -> str | None:
    """The variant of ``prompt`` in the register ``reg`` (None when that register refuses)."""
    variant = _in_register(prepare(task(prompt)), level, random.Random(seed), reg)
    return None if variant is None else variant.text


def test_expansion_keeps_a_contraction_it_cannot_expand_grammatically() -> None:
    # "'s" before a participle may be "has" or "is"; a tag question is never "will not you?"
    assert _expand("The fridge's stopped cooling. You'll send someone, won't you? It's been a week.") == (
        "The fridge's stopped cooling. You'll send someone, won't you? It has been a week."
    )
    # a question that opens with the auxiliary is still expanded around its subject
    assert _expand("It isn't here. Why doesn't it start?") == "It is not here. Why does it not start?"


def test_a_british_word_with_other_senses_is_never_swapped_for_the_american_one() -> None:
    british = "The toilet seat is loose and the lift is out, so we carry the rubbish down."
    assert vocabulary(british, "us") == british
    assert (
        vocabulary("The restroom by the elevator is out of order.", "uk")
        == "The toilet by the lift is out of order."
    )


def test_no_written_abbreviation_said_to_a_voice_assistant() -> None:
    command = "OK Google, book a tennis lesson with Priya for Thursday at 6pm."
    for seed in range(6):
        assert one(command, "terse_us", seed=seed) is None  # "w/ Priya" was its only change
    assert one(command, "formal_british") == (
        "OK Google, please could you book a tennis lesson with Priya for Thursday at 6pm?"
    )


def test_reservation_only_for_a_booking_that_holds_a_place() -> None:
    lesson = "I was charged twice for my tennis lesson. Booking ref TL-221. I'd like a refund please."
    room = "I was charged twice for my hotel room. Booking ref TL-221. I'd like a refund please."
    assert one(lesson, "terse_us") == (
        "Got charged twice for my tennis lesson. Booking ref TL-221. I'd like a refund pls. Appreciate it."
    )
    assert one(room, "terse_us") == (
        "Got charged twice for my hotel room. Reservation ref TL-221. I'd like a refund pls. Thx in advance."
    )


def test_please_give_me_never_asks_for_work_done_on_something_of_the_users() -> None:
    for seed in range(12):
        got = one(
            "Hi, I'd like a small star tattoo on my ankle. How much would that cost?",
            "casual_indian",
            seed=seed,
        )
        assert got is not None and "give me" not in got.lower(), got
    assert one("Hi, I'd like a copy of my invoice. Where can I download it?", "casual_indian", seed=1) == (
        "Hi, please give me a copy of my invoice. Kindly let me know where to download it. Thanks a lot."
    )


def test_no_clipped_opener_before_a_sentence_that_keeps_please() -> None:
    prompt = "The lamp I ordered came with a bent shade. I'd like a replacement, please."
    for seed in range(12):
        got = one(prompt, "terse_us", seed=seed) or ""
        assert "Want a" not in got and "Need a" not in got, got
    assert (
        one(prompt, "terse_us")
        == "The lamp I ordered came w/ a bent shade. I'd like a replacement, pls. Appreciate it."
    )


def test_a_text_that_stays_a_run_on_gets_no_written_register() -> None:
    for prompt in (
        "can i move my haircut to the 9th were stuck in traffic",
        "can i send the parcel to my office its 12 Mill Lane",
    ):
        assert run_on(full_sentences(prompt))
        for seed in range(6):
            assert one(prompt, "formal_british", seed=seed) is None
            assert one(prompt, "casual_indian", seed=seed) is None
    assert one("can i send the parcel to my office its 12 Mill Lane", "terse_us") == (
        "quick question: can i send the parcel to my office its 12 Mill Lane"
    )
    # "can someone" starts a sentence of its own when the text is written out
    assert full_sentences("the sink is blocked again can someone come today") == (
        "The sink is blocked again. Can someone come today?"
    )
    assert not run_on("We were still waiting at the gate. Can you check the flight?")
    assert one("the sink is blocked again can someone come today", "formal_british") == (
        "The sink is blocked again. Please could you come today?"
    )


def test_no_indirect_question_with_a_direct_one_joined_by_or() -> None:
    for seed in range(6):
        for reg in ("formal_british", "casual_indian"):
            for prompt in (
                "Is the gym included in the fee or do members pay extra?",
                "Is the boiler meant to make that noise or did someone set it up wrong?",
            ):
                got = one(prompt, reg, seed=seed) or ""
                assert "whether" not in got and "if the" not in got, got
    assert one("is the gym included in the fee or do members pay extra", "casual_indian") == (
        "Please tell me, is the gym included in the fee or do members pay extra?"
    )


def test_writing_out_a_long_run_on_is_linear() -> None:
    # 456,000 characters with a clause start every few words: took about a minute when each
    # clause start rescanned the run from its start (speed: benchmarks/bench_adversarial.py)
    text = "can i move the van hire were stuck in traffic its a mess " * 8000
    written = full_sentences(text)
    assert run_on(written)


def test_no_letter_that_keeps_a_texting_word() -> None:
    # "Respected sir, ... my knee is sore lol ..." mixes a letter with a text message
    for seed in range(6):
        for reg in ("formal_british", "casual_indian"):
            assert one("hi can we move the yoga class to the 5th my knee is sore lol", reg, seed=seed) is None
            assert one("my flight got cancelled can u rebook me on the next one", reg, seed=seed) is None
    # a "pls" the opener replaces is no texting word left behind
    assert one("ordered 3 lamps only 2 came pls send the last one asap", "formal_british") == (
        "Ordered 3 lamps only 2 came. Please could you send the last one asap?"
    )


def test_a_clause_with_we_have_run_on_inside_a_sentence_is_a_run_on() -> None:
    assert run_on("Can I bring my dog to the cabin we have a small terrier?")
    assert not run_on("We have a small terrier. Can I bring him to the cabin?")


def test_a_regional_term_inside_a_compound_is_never_swapped() -> None:
    # a noun it modifies ("apartment building", "trash can") or one that modifies it ("pickup
    # truck") makes a compound with a regional name of its own
    assert (
        vocabulary("The apartment building has no elevator.", "uk") == "The apartment building has no lift."
    )
    assert vocabulary("Empty the trash can and book an apartment for two weeks.", "uk") == (
        "Empty the trash can and book a flat for two weeks."
    )
    assert vocabulary("We need a pickup truck.", "uk") == "We need a pickup truck."
    assert (
        vocabulary("I lost my cell phone on the sidewalk.", "uk") == "I lost my mobile phone on the pavement."
    )


def test_no_formal_letter_around_a_tag_question() -> None:
    prompt = "The heater broke twice this week. We had to stay somewhere else. I think we deserve a partial refund, don't you?"
    for seed in range(6):
        assert one(prompt, "formal_british", seed=seed) is None
    assert one(prompt, "terse_us", level=0.3) == (
        "The heater broke twice this week. Had to stay somewhere else. Pretty sure we deserve a partial refund, "
        "don't u? Appreciate it."
    )
