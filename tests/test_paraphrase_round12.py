"""Round twelve of issue #14, paraphrase: rules chosen by a question's grammatical shape (an
alternative question, a price question with a second question joined by "and", whom to
contact, when is best, a named charge, a person's availability) used when the established
rules leave a prompt without a variant, and their refusals. Every prompt here is written for
the test (none is copied from a benchmark set)."""

from __future__ import annotations

from tests.test_paraphrase_round10 import variants


def test_an_alternative_question_keeps_both_alternatives_and_its_modality() -> None:
    assert variants("Does the trailer need to be covered, or can it stay outside?") == [
        "Does the trailer have to be covered, or could it stay outside?"
    ]


def test_a_price_question_with_a_joined_question_asks_the_cost_of_the_whole_noun_phrase() -> None:
    got = variants("how much is a tray of 40 cupcakes for a wedding and do you deliver to leeds")
    assert got == ["what does a tray of 40 cupcakes for a wedding cost and do you deliver to leeds"]
    got = variants("How much is the two-day course and when does the next one run?")
    assert got == ["What does the two-day course cost and when does the next one run?"]


def test_a_priced_noun_phrase_is_never_cut_at_and_without_a_second_question() -> None:
    got = variants("how much is the fish and chips deal")
    assert got == [
        "can you tell me how much the fish and chips deal is",
        "could you tell me how much the fish and chips deal is",
        "do you know how much the fish and chips deal is",
    ]


def test_an_amount_is_never_asked_what_it_costs() -> None:
    # "the deposit" is an amount: never "what does the deposit cost"
    assert variants("how much is the deposit and do you take cards") == []


def test_whom_to_contact_is_asked_with_should_and_speak() -> None:
    got = variants("the courier dented my bike frame on monday who do i talk to about a claim")
    assert got == ["the courier dented my bike frame on monday who should i speak to about a claim"]


def test_when_is_the_best_time_is_asked_as_what_time_is_best() -> None:
    assert variants("When is the best time of year to repaint a timber deck?") == [
        "What time of year is best to repaint a timber deck?"
    ]
    assert variants("When is the best time to book a chimney survey?") == [
        "What is the best time to book a chimney survey?"
    ]


def test_a_named_charge_is_asked_with_how_much_in_the_users_own_case() -> None:
    got = variants("whats the minimum charge at the Leeds branch and do you open on sundays")
    assert got == ["how much is the minimum charge at the Leeds branch and do you open on sundays"]


def test_a_charge_asked_twice_is_left_alone() -> None:
    assert variants("whats the hourly rate and how much is the call out") == []


def test_a_prompt_the_established_rules_cover_keeps_its_variants() -> None:
    # "Do I need to bring a towel?" is already asked indirectly; the round-twelve swap is not added
    got = variants("Do I need to bring a towel?")
    assert all("have to" not in text for text in got) and got
