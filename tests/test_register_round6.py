"""Register, round six (issue #14): the general causes of the third held-out set's false
labels are gone — a noun that names a value read as a verb ("Parcel X arrived" asked as an
order), a yes/no question turned into a statement ("can i get it replaced" -> "I want it
replaced"), an inverted negative question expanded ungrammatically ("Why has not it"), a second
direct question left inside an indirect one, a run-on cut inside a question ("what do. I need
to do."), and a greeting or closing that alone frames a lower-case one-liner. Every prompt
here is written for this file (none is copied from a benchmark set)."""

from __future__ import annotations

import random

from perturb.generate.perturbations.register import (
    _abstract_head,
    _closing,
    _expand,
    _greeting,
    _names_subject,
    _question,
    _question_frame,
    full_sentences,
)
from tests.test_register_round3 import texts


def test_a_negative_question_is_expanded_with_not_after_its_pronoun_subject() -> None:
    assert _expand("Why hasn't it been sent?") == "Why has it not been sent?"
    assert _expand("Isn't it ready yet?") == "Is it not ready yet?"
    assert _expand("Why can't I log in?") == "Why can I not log in?"
    # before another subject the contraction stays; a statement is expanded as before
    assert _expand("Why hasn't my refund arrived?") == "Why hasn't my refund arrived?"
    assert _expand("It isn't ready.") == "It is not ready."


def test_a_second_direct_question_is_never_left_inside_an_indirect_one() -> None:
    rng = random.Random(0)
    text = "The pool looks cloudy. Is it safe to swim or should we wait?"
    assert _question(text, "formal_british", rng) == text
    # it gets the question frame after it instead
    assert _question_frame(text, "casual_indian", random.Random(0)) == text + " Please let me know."
    two = "When does the library open, and where do I park?"
    assert _question(two, "formal_british", random.Random(0)) == two
    # a second question that is asked indirectly too is still fine
    assert _question(
        "What forms do I need and how long does it take?", "formal_british", random.Random(1)
    ) == ("Could you kindly tell me what forms I need and how long it takes?")


def test_a_noun_naming_a_value_that_does_something_is_not_an_order() -> None:
    assert _names_subject(" \ue000\ue100\ue001 arrived yesterday with a dent")
    assert _names_subject(" \ue000\ue100\ue001 still hasn't shipped")
    assert _names_subject(" 88213 was cancelled")
    assert not _names_subject(" \ue000\ue100\ue001 red roses for Friday")
    assert not _names_subject(" \ue000\ue100\ue001 printed copies")
    got = texts("Parcel 88213 arrived yesterday with a dent in the lid. Can I return it?", {"p": "88213"})
    assert got[(0.1, 0)] == (
        "Parcel 88213 arrived yesterday with a dent in the lid. "
        "Could you please let me know whether I can return it?"
    )
    assert not any("to parcel" in t.lower() or "u parcel" in t.lower() for t in got.values())


def test_can_i_get_something_done_stays_a_question() -> None:
    # (round seven: a lower-case weekday is no longer written out in capitalised sentences)
    got = texts("my phone screen shattered can i get it replaced by the weekend", {"d": "the weekend"})
    assert got[(0.1, 0)] == (
        "My phone screen shattered. Could you please let me know whether I can get it replaced by the weekend?"
    )
    assert (
        got[(0.1, 1)]
        == "My phone screen shattered. Kindly tell me whether I can get it replaced by the weekend."
    )
    assert not any("want" in t.lower() for t in got.values())


def test_a_lower_case_run_on_is_not_cut_inside_its_question() -> None:
    assert full_sentences("i moved house last month what do i need to update") == (
        "I moved house last month. What do I need to update?"
    )
    assert full_sentences("ellie wont be at practice tonight shes got a cold") == (
        "Ellie won't be at practice tonight. She's got a cold."
    )
    assert full_sentences("booked 3 tickets only 2 came through pls resend the last one") == (
        "Booked 3 tickets only 2 came through. Pls resend the last one."
    )
    assert full_sentences("can you please send the form") == "Can you please send the form?"
    got = texts("i moved house last month what do i need to update", {})
    assert got[(0.1, 1)] == "I moved house last month. Kindly tell me what I need to update."


def test_a_lower_case_one_liner_gets_no_greeting_or_closing() -> None:
    got = texts("gmail keeps logging me out when i switch tabs", {"a": "gmail"})
    assert set(got.values()) == {"gmail keeps logging me out when i switch tabs pls help"}


def test_a_text_written_out_as_a_letter_uses_formulas_that_mark_the_register() -> None:
    got = texts("the plumber didnt show up today hes not answering his phone", {})
    assert got == {
        (0.1, 0): "the plumber didnt show up today hes not answering his phone pls help",
        (0.1, 1): "The plumber didn't show up today. He's not answering his phone. Thanking you.",
        (0.5, 0): "the plumber didnt show up today hes not answering his phone pls help",
        (0.5, 1): "Hi sir, the plumber didn't show up today. He's not answering his phone. "
        "Please revert at the earliest.",
    }
    # a text that opens with a lower-case value ("ellie") is never written out: its sentences
    # would mix the two casings ("ellie won't be at practice tonight. She's got a cold.")
    assert texts("ellie wont be at practice tonight shes got a cold", {"n": "ellie"}) == {}
    for seed in range(20):
        rng = random.Random(seed)
        assert "sir" in _greeting("It broke.", "casual_indian", rng, False, lambda t: False, marked=True)
        closed = _closing("It broke.", "casual_indian", rng, True, marked=True)
        assert closed.endswith(("Please do the needful.", "Please revert at the earliest.", "Thanking you."))


def test_the_same_formal_formula_is_not_used_twice() -> None:
    text = "I would be grateful for a callback. Could it be done by noon?"
    for seed in range(10):
        out = _question(text, "formal_british", random.Random(seed))
        assert out.lower().count("i would be grateful") == 1


def test_a_voice_command_asked_as_a_question_ends_with_a_question_mark() -> None:
    got = texts("Book me a haircut with Sam next Thursday morning", {"d": "next Thursday morning"})
    assert got[(0.1, 0)] == "Please could you book me a haircut with Sam next Thursday morning?"
    assert got[(0.1, 1)] == "Kindly book me a haircut with Sam next Thursday morning"


def test_confirm_never_follows_a_yes_no_question_with_a_wh_question_joined_on() -> None:
    got = texts("Is the deposit refundable, and when do I get it back?", {})
    assert not any("confirm" in t.lower() for t in got.values())
    assert got[(0.1, 1)] == "Is the deposit refundable, and when do I get it back? Kindly let me know."


def test_he_is_and_she_is_are_contracted_and_expanded() -> None:
    assert (
        _expand("She's arriving on Friday and he's not sure.")
        == "She is arriving on Friday and he is not sure."
    )
    # "'s" before a participle is "has": "she's got" is "she has got", "it's been" "it has been"
    assert _expand("She's got a cold.") == "She has got a cold."
    assert _expand("I think it's been lost and there's been no reply.") == (
        "I think it has been lost and there has been no reply."
    )


def test_has_before_an_adverb_and_a_participle_is_left_as_written() -> None:
    assert _expand("He's already passed his driving test.") == "He's already passed his driving test."
    assert _expand("He's not sure.") == "He is not sure."


def test_a_run_on_is_never_cut_right_after_a_preposition() -> None:
    # "... since the update on. My laptop keeps ..." would cut a phrase in two
    assert full_sentences("i cant sync since the update on my laptop keeps saying error 12") == (
        "I can't sync since the update on my laptop keeps saying error 12."
    )


def test_grateful_for_only_a_service_or_a_remedy_never_goods() -> None:
    goods = texts("I'd like a birthday cake for Saturday. Can it say Happy 40th?", {"d": "Saturday"})
    assert not any("grateful for a birthday cake" in t for t in goods.values())
    assert goods[(0.1, 0)].startswith("I would like to request a birthday cake for Saturday.")
    # a service or a remedy may still take the formula
    assert _abstract_head("a consultation about my lease")
    assert _abstract_head("a refund or a replacement.")
    assert not _abstract_head("a dozen tulips for my aunt")
