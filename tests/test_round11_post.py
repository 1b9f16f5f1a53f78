"""Fixes made after the round-eleven measurement (issue #14, ``heldout9/round11``), from its
reviewers' notes, for paraphrase and register. Every prompt here is written for this file (none
is copied from a benchmark set); each test pins the exact output for a kind of sentence."""

from __future__ import annotations

import random

from perturb.generate.core import prepare
from perturb.generate.perturbations.register import REGISTERS, _in_register, full_sentences
from tests.test_unseen_prompts import task, texts


def variants(prompt: str) -> list[str]:
    """Every paraphrase of ``prompt`` over three seeds and the usual levels."""
    return sorted(set(texts(task(prompt), "paraphrase", seeds=3)))


def registered(prompt: str) -> list[str | None]:
    """The register variant of ``prompt`` in each register, seed 0 (None when it refuses)."""
    out: list[str | None] = []
    for reg in REGISTERS:
        variant = _in_register(prepare(task(prompt)), 0.5, random.Random(0), reg)
        out.append(None if variant is None else variant.text)
    return out


def test_a_record_noun_before_a_code_is_a_label_never_a_request_verb() -> None:
    prompt = (
        "My booking is fine. Order KT-4471, 2 child passes for the Saturday show. Could you email them again?"
    )
    got = variants(prompt)
    assert all("Order KT-4471, 2 child passes for the Saturday show." in v for v in got), got
    assert got == [
        "My booking is fine. Order KT-4471, 2 child passes for the Saturday show. I would like you to email them again.",
        "My booking is fine. Order KT-4471, 2 child passes for the Saturday show. I'd like you to email them again.",
        "My booking is fine. Order KT-4471, 2 child passes for the Saturday show. Please email them again.",
        "My booking is fine. Order KT-4471, 2 child passes for the Saturday show. Would you be able to email them again?",
    ]
    assert registered(prompt) == [
        "Good day, my booking is fine. Order KT-4471, 2 child passes for the Saturday show. "
        "I would be grateful if you could email them again. Kind regards.",
        "Dear sir, my booking is fine. Order KT-4471, 2 child passes for the Saturday show. "
        "Please kindly email them again. Thanks a lot.",
        "Booking is fine. Order KT-4471, 2 child passes for the Saturday show. Pls email them again. TIA.",
    ]


def test_a_record_noun_before_a_dashed_number_is_a_label() -> None:
    assert variants("Quote 40-1187 for the new fence. When can you start?") == []
    assert registered("Quote 40-1187 for the new fence.") == [None, None, None]


def test_a_record_noun_before_a_quantity_is_still_a_verb() -> None:
    # "Order 3 pizzas": a value followed by a noun is a quantity, the word asks for it
    assert "Would you order 3 pizzas for tonight?" in variants("Order 3 pizzas for tonight.")


def test_a_wh_word_before_its_inversion_never_ends_a_sentence_in_a_run_on() -> None:
    # "... and how long | do you need it for": the inversion belongs to "how long"; cut there
    # the text read "... and how long. Could you kindly tell me whether you need it for?"
    prompt = (
        "my bike chain keeps slipping on the big cog, whats a new chain cost and how long do you need it for"
    )
    assert full_sentences(prompt) == (
        "My bike chain keeps slipping on the big cog, what's a new chain cost and how long do you need it for."
    )
    assert registered(prompt) == [
        None,
        None,
        "my bike chain keeps slipping on the big cog, whats a new chain cost and how long do u need it for",
    ]
    # a question that opens after a statement is still a sentence of its own
    assert full_sentences("the heating went off again last night what time can you come round") == (
        "The heating went off again last night. What time can you come round?"
    )


def test_is_goes_before_a_progressive_verb_followed_by_a_masked_time() -> None:
    # "tomorrow"/"today" are protected values: the verb before them still ends the subject
    prompt = "Hey Siri, what time is the chimney sweep arriving tomorrow?"
    assert variants(prompt) == ["Hey Siri, tell me what time the chimney sweep is arriving tomorrow."]
    assert registered(prompt) == [
        "Hey Siri, could you please tell me what time the chimney sweep is arriving tomorrow?",
        "Hey Siri, can you please tell me what time the chimney sweep is arriving tomorrow?",
        None,
    ]
    assert variants("Hey Google, when is the window cleaner coming tomorrow?") == [
        "Hey Google, tell me when the window cleaner is coming tomorrow."
    ]


def test_a_progressive_verb_whose_subject_end_is_unknown_is_refused() -> None:
    # never "when the plumber fixing the tap is"
    assert variants("When is the plumber fixing the tap?") == []
    assert variants("When's the plumber fixing the tap?") == []
    assert registered("When is the plumber fixing the tap?") == [
        None,
        "Please tell me, when is the plumber fixing the tap?",
        "Quick question: when is the plumber fixing the tap?",
    ]


def test_a_noun_participle_compound_stays_in_the_predicate() -> None:
    assert variants("Are your ladders safety checked?") == [
        "Can you tell me whether your ladders are safety checked?",
        "Could you tell me whether your ladders are safety checked?",
        "I'd like to know whether your ladders are safety checked.",
    ]
    # "the boiler | gas certified" or "the boiler gas | certified": the end is unknown, refused
    assert variants("Is the boiler gas certified?") == []
    # a two-noun subject before a plain participle is still asked
    assert "Can you tell me whether the garden fence is painted?" in variants("Is the garden fence painted?")


def test_a_message_without_sentence_punctuation_gets_none() -> None:
    prompt = (
        "paid for parking at the gate and we couldnt get the ticket out we had to go is there a way to appeal"
    )
    assert all("." not in v and not any(c.isupper() for c in v) for v in variants(prompt)), variants(prompt)
    prompt = "hi my card got declined at the till and they couldnt print the receipt we had to leave is there a way to pay online"
    assert variants(prompt) == []
    # a punctuated message may still be split at "and we"
    assert variants(
        "I booked the van for Saturday and we need it until 6pm. I can't collect it before 9am, can you hold it?"
    ) == [
        "I reserved the van for Saturday. We need it until 6pm. I can't collect it before 9am, can you hold it?"
    ]


def test_no_formal_swap_in_a_message_with_casual_contractions() -> None:
    casual = variants(
        "Could you move my visit on Friday to the afternoon? I can't get home from the gym before 7pm."
    )
    assert casual and all("before 7pm" in v for v in casual), casual
    plain = variants("Could you move my visit on Friday to the afternoon? I will not be home before 7pm.")
    assert any("prior to 7pm" in v for v in plain), plain


def test_can_you_about_a_service_on_a_generic_thing_stays_a_question() -> None:
    prompt = "Can you print a photo on a mug by Thursday?"
    assert variants(prompt) == ["Would you be able to print a photo on a mug by Thursday?"]
    assert registered(prompt) == [
        "Please could you print a photo on a mug by Thursday?",
        "Can you please print a photo on a mug by Thursday?",
        "Can u print a photo on a mug by Thursday?",
    ]
    assert registered("Can you fix a cracked phone screen while I wait?")[1:] == [
        "Can you please fix a cracked phone screen while I wait?",
        "Can u fix a cracked phone screen while I wait?",
    ]
    # a job on something of the user's is still a request that may be put as one
    assert variants("Can you send me a copy of the invoice?") == [
        "Please send me a copy of the invoice.",
        "Would you be able to send me a copy of the invoice?",
    ]


def test_buy_and_extra_keep_their_register() -> None:
    # "purchase" and "additional" are formal: never in a lower-case text or beside "I'm"
    assert variants("could i bring my own cups to the stall or do i have to buy yours") == []
    assert variants("I want to buy two tickets for the Saturday show, I'm bringing my son.") == [
        "Can you help me buy two tickets for the Saturday show? I'm bringing my son.",
        "Could you help me buy two tickets for the Saturday show? I'm bringing my son.",
    ]
    # "is it extra" (a predicate) never becomes "is it additional", in any register
    got = variants(
        "Is a helmet included in the hire or is it extra? We are booking two bikes. How much would it cost with and without?"
    )
    assert got and all("is it extra?" in v for v in got), got
    # before a noun, in a message without casual contractions, the swap still applies
    assert "We need an additional chair for the table at 8pm. Would you be able to add it?" in variants(
        "We need an extra chair for the table at 8pm. Could you add it?"
    )
