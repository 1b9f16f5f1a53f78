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


def test_a_price_for_an_action_is_asked_with_how_much_is_it_to() -> None:
    got = variants("whats the price to rent a kayak for the afternoon were a group of 3")
    assert got == ["how much is it to rent a kayak for the afternoon were a group of 3"]


def test_a_wh_question_wrapped_in_could_you_tell_me_is_asked_directly() -> None:
    assert variants(
        "The dryer we bought in May stopped heating. Could you tell me when I can return it?"
    ) == ["The dryer we bought in May stopped heating. When can I return it?"]
    assert variants(
        "Our gutters were due a clean last week. Could you tell me when someone's actually coming?"
    ) == ["Our gutters were due a clean last week. When is someone actually coming?"]


def test_has_after_a_pronoun_is_never_read_as_is() -> None:
    # "someone's been" is "someone has been": no direct question is made from it
    assert variants("The order is late. Could you tell me when someone's been assigned?") == []


def test_a_closing_whats_going_on_in_a_run_on_is_asked_in_its_own_case() -> None:
    got = variants("the new sofa was due by 10 its gone 4 now whats going on")
    assert got == ["the new sofa was due by 10 its gone 4 now can you tell me whats going on"]


def test_a_lower_case_tell_me_question_stays_lower_case() -> None:
    assert variants("could you tell me when we can pick up the keys?") == ["when can we pick up the keys?"]


def test_round_twelve_refusals_where_the_shape_could_mean_something_else() -> None:
    # "what's the charge for?" asks its reason; a bare "charge" may ask which one it is
    assert all("How much" not in text for text in variants("Could I ask something. What's the charge for?"))
    assert all("how much" not in text for text in variants("whats the charge on my card from tuesday"))
    # "the cost to you" is no action priced
    assert all("how much is it" not in text for text in variants("whats the cost to you of a late return"))
    # a second indirect question joined on keeps the first indirect
    prompt = "Our gutters were due a clean. Could you tell me when someone's coming and what they'll do?"
    assert variants(prompt) == []


def test_or_just_in_case_is_an_idiom_never_or_only() -> None:
    got = variants("Does the boat need to be booked, or can we just turn up, or just in case should we ring?")
    assert got == [
        "Does the boat have to be booked, or could we just turn up, or just in case should we ring?"
    ]
