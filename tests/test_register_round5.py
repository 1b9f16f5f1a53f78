"""Register, round five (issue #14): a direct question that cannot be asked indirectly gets
the register's question frame, terse messages drop "I" before a past-tense verb and write a
value as a label, orders whose verb is not in the verb list take an opener, one-sentence orders
get no letter formulas, and the causes of the held-out sets' false labels are gone. Every
prompt here is written for this file (none is copied from a benchmark set)."""

from __future__ import annotations

import random

from perturb.generate.perturbations.register import (
    _contract,
    _drop_subject,
    _imperative,
    _question_frame,
    _terse_label,
)
from tests.test_register_round3 import texts


def nonempty(got: dict[tuple[float, int], str]) -> list[str]:
    """The variants, failing when register produced none (a loop over nothing asserts nothing)."""
    assert got, "register produced no variant"
    return list(got.values())


def test_a_question_with_no_indirect_form_is_framed_after_it_in_a_written_message() -> None:
    got = texts("Why is my parcel so late? It was due on Monday.", {"d": "Monday"})
    assert got[(0.1, 0)] == (
        "Why is my parcel so late? It was due on Monday. I would appreciate it if you could let me know."
    )
    assert got[(0.1, 1)] == "Why is my parcel so late? It was due on Monday. Kindly let me know."


def test_a_one_line_question_is_framed_before_it() -> None:
    got = texts("Does the gym have lockers for rent?", {})
    assert got[(0.1, 0)] == "Quick question: does the gym have lockers for rent?"
    assert got[(0.1, 1)] == "Please tell me, does the gym have lockers for rent?"


def test_the_frame_is_only_used_where_the_question_cannot_be_asked_indirectly() -> None:
    rng = random.Random(0)
    # "Can I X?" is asked indirectly by the formal register's leads: no frame
    assert _question_frame("Can I pay by card?", "formal_british", rng) == "Can I pay by card?"
    # a question that asks someone to act takes an opener instead
    assert _question_frame("Could you send it today?", "terse_us", rng) == "Could you send it today?"
    # a yes/no question may be confirmed; one with "or" never is
    for seed in range(8):
        out = _question_frame("Is it blue, or is it green?", "casual_indian", random.Random(seed))
        assert "confirm" not in out, out
    # no frame in a voice question for the formal register (it has none before a question)
    assert _question_frame("Did I lock the car?", "formal_british", rng, plain=True) == "Did I lock the car?"


def test_terse_drops_i_before_a_past_tense_verb_and_writes_a_value_as_a_label() -> None:
    got = texts("I posted the form to you last month. The reference number is AB-1234.", {"r": "AB-1234"})
    # no thanks closing: the message asks nothing
    assert got[(0.5, 0)] == "Posted the form to u last month. Reference number: AB-1234."
    assert (
        _drop_subject("I've renewed it twice. I need it by Friday.")
        == "Renewed it twice. I need it by Friday."
    )
    # never in a question, never before "need"/"been"
    assert _drop_subject("I paid twice, can I get it back?") == "I paid twice, can I get it back?"
    assert _drop_subject("I need a van.") == "I need a van."
    # a label only where the sentence names the value and nothing else
    assert (
        _terse_label("My member ID is \ue000\ue001 and it expired.")
        == "My member ID is \ue000\ue001 and it expired."
    )
    assert _terse_label("Hi. The member ID is \ue000\ue001.") == "Hi. Member ID: \ue000\ue001."


def test_an_order_whose_verb_is_not_listed_takes_an_opener() -> None:
    got = texts("Polish the brass fittings in the hall.", {})
    assert got[(0.1, 0)] == "Please could you polish the brass fittings in the hall?"
    assert got[(0.1, 1)] == "Kindly polish the brass fittings in the hall."
    verbs = {"print", "book"}
    assert _imperative("Reprint the flyer in colour.", verbs)
    assert not _imperative("Yesterday my card was declined.", verbs)
    assert not _imperative("Did it go through?", verbs)
    assert not _imperative("Sorry the delay was mine.", verbs)
    assert not _imperative("Thanks the parcel came.", verbs)


def test_a_one_sentence_order_gets_no_greeting_or_closing() -> None:
    for prompt, slots in (
        ("Remind me to water the plants at 7pm.", {"t": "7pm"}),
        ("Add oat milk to my shopping list.", {}),
    ):
        for text in nonempty(texts(prompt, slots)):
            low = text.lower()
            assert not any(g in low for g in ("sir", "team", "dear", "hello", "good ")), text
            assert not any(c in low for c in ("regards", "reply", "revert", "thanking", "thanks")), text


def test_a_dollar_amount_keeps_american_terms_and_a_postcode_keeps_its_name() -> None:
    for text in nonempty(texts("I need $300 from an ATM near the hotel, where is one?", {"a": "$300"})):
        assert "cash machine" not in text, text
    for text in nonempty(
        texts("No post at home since Monday. Postcode is LS1 4AB. Can you check?", {"p": "LS1 4AB"})
    ):
        assert "zip code" not in text, text


def test_no_needful_after_a_question_and_no_greeting_repeating_the_first_words() -> None:
    for seed_prompt in (
        "How much is a lesson for two adults? We are free on Sunday mornings.",
        "Our team needs the hall on Friday. Please book it.",
    ):
        for text in nonempty(texts(seed_prompt, {})):
            if "?" in seed_prompt:
                assert "needful" not in text, text
            assert not text.startswith(("Hi team, our team", "Hello team, our team")), text


def test_i_think_is_never_a_statement_of_knowledge() -> None:
    for text in nonempty(texts("cancel my gym membership i think it renews on friday", {"d": "friday"})):
        assert "as per my knowledge" not in text and "as far as I know" not in text, text
        assert "I'm pretty sure" not in text, text


def test_a_question_keeps_its_subject_and_auxiliary_apart() -> None:
    assert _contract("How many days do I have left? I have booked it.") == (
        "How many days do I have left? I've booked it."
    )


def test_no_question_frame_after_a_request_was_framed() -> None:
    for text in nonempty(texts("Why was I billed twice? That looks wrong. Please check invoice 4471.", {})):
        assert not text.endswith(("let me know.", "confirm.")), text


def test_a_named_subject_after_a_comma_becomes_its_own_sentence_after_a_question_opener() -> None:
    got = texts("Return order 5512, the lamp is broken.", {"o": "5512"})
    assert got[(0.1, 0)] == "Might I ask you to return order 5512? The lamp is broken."


def test_a_message_that_writes_i_keeps_added_words_lower_case() -> None:
    got = texts("switch off the hall light i think i left it on", {})
    assert got[(0.1, 1)] == "kindly switch off the hall light i guess i left it on"
    assert all(" I " not in t for t in got.values()), got


def test_a_question_frame_that_opens_the_message_takes_no_greeting() -> None:
    # (round seven: "how much for X" has no verb, so it takes no "Please tell me,"; a
    # question with a verb does, and a lower-case one may be framed as a text instead)
    for text in nonempty(texts("how much is a haircut and beard trim", {})):
        assert text.startswith(("Please tell me, how much", "quick q")), text


def test_a_run_on_is_cut_before_a_subject_that_is_a_protected_value() -> None:
    from perturb.generate.perturbations.register import full_sentences

    masked = "i need a new \ue000\ue100\ue001 for my laptop the old \ue000\ue101\ue001 stopped working"
    assert full_sentences(masked) == (
        "I need a new \ue000\ue100\ue001 for my laptop. The old \ue000\ue101\ue001 stopped working."
    )


def test_an_order_followed_by_a_short_statement_gets_no_letter_formulas() -> None:
    for text in nonempty(texts("Turn off the oven. I'm heading out now.", {})):
        low = text.lower()
        assert not any(g in low for g in ("sir", "team", "dear", "hello", "regards", "reply")), text
    assert _drop_subject("Lock it. I'm heading out now.") == "Lock it. Heading out now."
    assert _drop_subject("I'm going to be late.") == "I'm going to be late."


def test_terse_drops_we_and_a_possessive_before_a_one_word_subject() -> None:
    assert _drop_subject("We ordered two sofas in May. Neither has arrived.") == (
        "Ordered two sofas in May. Neither has arrived."
    )
    assert _drop_subject("My laptop won't connect since noon.") == "Laptop won't connect since noon."
    assert (
        _drop_subject("Is my card blocked? My card was declined.") == "Is my card blocked? Card was declined."
    )
    assert _drop_subject("My order number is 5.") == "My order number is 5."


def test_any_chance_is_not_asked_twice() -> None:
    for text in nonempty(texts("Any chance of a late checkout tomorrow?", {})):
        assert not text.startswith("Please tell me, any"), text
