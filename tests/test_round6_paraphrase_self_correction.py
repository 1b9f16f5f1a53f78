"""Round six of issue #14: self-correction and paraphrase naturalness on kinds of text the
third held-out set's reviewers rejected. Every prompt here is written for the test (none is
copied from a benchmark set); each test failed before the change it covers."""

from __future__ import annotations

import random
import re

from perturb.generate.perturbations._wrong import tense, wrong_value
from tests.test_unseen_prompts import task, texts


def variants(prompt: str, cls: str, slots: dict[str, str] | None = None) -> list[str]:
    return sorted(set(texts(task(prompt, slots), cls, seeds=3)))


def wrong(value: str, kind: str, before: str, after: str) -> set[str | None]:
    return {wrong_value(value, kind, random.Random(seed), before=before, after=after) for seed in range(20)}


# --- self_correction: values nobody misstates -------------------------------------------


def test_one_of_picks_one_out_and_counts_nothing() -> None:
    assert wrong("one", "number", "The chair came and ", " of its arms is loose.") == {None}
    assert (
        variants("The chair came and one of its arms is loose. Can I get a new arm?", "self_correction") == []
    )


def test_a_number_inside_a_name_is_not_corrected() -> None:
    assert wrong("100", "number", "Move my savings into the Global Tech ", " Fund please.") == {None}
    # a unit after the number is no name: "10 GB" is still a count
    assert wrong("10", "number", "Add ", " GB to my phone plan.") == {"5", "15"}
    # a label opening its sentence is no name either ("Book 2 Adults" is rare; "Gate 12" stays)
    assert wrong("12", "number", "We land at Gate ", " tonight.") == {"11", "13"}


def test_a_whole_day_week_or_year_is_not_misstated() -> None:
    assert wrong("12 months", "slot", "Extend my locker rental for ", ".") == {None}
    assert wrong("12", "number", "Extend my locker rental for ", " months.") == {None}
    assert wrong("7 days", "slot", "Is the cafe open ", " a week?") == {None}
    # a duration that is not a whole larger unit is still misremembered
    assert None not in wrong("18 months", "slot", "Extend my locker rental for ", ".")


def test_a_quantity_that_names_a_scheme_is_not_corrected() -> None:
    got = variants(
        "I applied for the 15 hours childcare offer in May. When will it start?",
        "self_correction",
        {"scheme": "15 hours", "month": "May"},
    )
    assert got and all("the 15 hours childcare" in text and "hours," not in text for text in got)


def test_an_age_said_of_a_person_is_not_corrected() -> None:
    got = variants(
        "My daughter Mia fell off her bike this morning. She's 7 and her wrist is swollen. Can a doctor see her today?",
        "self_correction",
        {"age": "7", "day": "today"},
    )
    assert got and all("She's 7 and" in text for text in got)


def test_a_value_stated_as_what_it_is_not_is_not_corrected() -> None:
    got = variants(
        "The courier left it at 14 Mill Lane, not 41 Mill Lane. Please collect it.",
        "self_correction",
        {"right": "41 Mill Lane", "wrong": "14 Mill Lane"},
    )
    assert all("not 41 Mill Lane." in text for text in got)


def test_only_a_count_says_fewer_so_the_wrong_count_is_fewer_still() -> None:
    assert wrong("4", "number", "we paid for 6 chairs and only ", " came") == {"2", "3"}
    assert wrong("1", "number", "we paid for 5 chairs and only ", " came") == {None}


def test_a_room_type_word_used_for_something_else_is_not_a_room() -> None:
    assert variants("Is it legal to stop on double yellows to unload?", "self_correction") == []
    got = variants("Can I switch to a double room for Friday?", "self_correction", {"room": "double"})
    assert any(text.startswith("Can I switch to a single") or "twin" in text for text in got)


def test_today_in_a_question_about_now_is_never_tomorrow() -> None:
    assert tense("How are my shares doing ", "?") == "present"
    assert tense("the baby won't be in ", " she has a cough") == "future"
    assert tense("hes got a cold so he wont be in ", "") == "future"
    got = variants("How is the traffic looking today?", "self_correction")
    assert got and all("this week" in text and "tomorrow" not in text for text in got)
    got = variants("ella wont be at nursery today shes got a rash", "self_correction", {"day": "today"})
    assert got and all("yesterday" not in text for text in got)


def test_the_end_of_the_month_is_correctable() -> None:
    got = variants(
        "please close my account at the end of the month", "self_correction", {"when": "the end of the month"}
    )
    assert "please close my account at the end of next month, no, the end of the month" in got


def test_a_short_code_that_locates_something_moves_by_one() -> None:
    assert wrong("D7", "slot", "My car is in bay ", " of the multistorey.") == {"D6", "D8"}
    assert wrong("A320", "slot", "Is the plane an ", "?") == {None}


def test_at_most_one_long_apology_in_a_message() -> None:
    got = variants(
        "We stayed 3 nights at your Leeds hotel from 4 March. I paid £300 at the desk. "
        "The invoice says £450. My booking is HT-55821. Could you refund the difference by Friday?",
        "self_correction",
        {"nights": "3", "paid": "£300", "invoice": "£450", "booking": "HT-55821", "day": "Friday"},
    )
    assert sum("my mistake" in t or "that's wrong" in t for t in got) >= 2
    for text in got:
        assert text.count("my mistake") + text.count("that's wrong") <= 1


# --- paraphrase: grammar around a rewrite ----------------------------------------------


def test_two_questions_joined_by_or_are_never_half_asked() -> None:
    for cls in ("paraphrase", "register"):
        got = variants("My filling came out last night. Is this covered or should I pay upfront?", cls)
        assert got or cls == "paraphrase"
        assert all("whether this is covered or should" not in text for text in got)


def test_a_code_that_is_the_subject_of_a_verb_is_no_order() -> None:
    got = variants(
        "Order KT-5521 came yesterday and the lid is cracked. Can I send it back?",
        "paraphrase",
        {"order": "KT-5521"},
    )
    assert got
    assert all(text.startswith("Order KT-5521 ") for text in got)
    assert all("cracked for me" not in text for text in got)


def test_a_modal_swap_never_follows_an_auxiliary() -> None:
    got = variants("I don't want to pay twice for the same lamp. Can you check my card?", "paraphrase")
    assert got and all("don't would" not in text for text in got)


def test_a_verb_keeps_its_particle() -> None:
    got = variants(
        "My keys were handed in at the front desk. Where do I pick them up, and what time does the desk shut?",
        "paraphrase",
    )
    assert got and all("select them up" not in text and "choose them up" not in text for text in got)


def test_an_order_with_a_verb_only_the_helper_does_keeps_a_helper_framing() -> None:
    got = variants(
        "Cancel booking RM-301 and refund the deposit to my card", "paraphrase", {"booking": "RM-301"}
    )
    assert got
    assert all(
        not text.lower().startswith(("i want to", "i need to", "i'd like to", "i would like to"))
        for text in got
    )


def test_a_message_opening_with_a_name_is_not_lower_case() -> None:
    got = variants(
        "Maya left her water bottle at the club. It has a blue lid. Please keep it at reception.",
        "paraphrase",
        {"child": "Maya"},
    )
    assert "Maya left her water bottle at the club. It has a blue lid. Can you keep it at reception?" in got
    assert all(not re.search(r"\. [a-z]", text) for text in got)


def test_a_trip_is_a_journey_only_when_it_goes_somewhere() -> None:
    got = variants(
        "The museum trip on Friday was cancelled. Can I get the £12 back?", "paraphrase", {"day": "Friday"}
    )
    assert all("museum journey" not in text for text in got)
    got = variants("Can I change my trip to Rome to a later date?", "paraphrase", {"city": "Rome"})
    assert any("my journey to Rome" in text for text in got)


def test_no_correction_beside_a_contrast_or_between_a_relative_clause_and_its_verb() -> None:
    got = variants(
        "The parcel went to 31 Hill Street, not 13 Hill Street. Can you resend it?",
        "self_correction",
        {"right": "31 Hill Street", "wrong": "13 Hill Street"},
    )
    assert got == []
    got = variants(
        "The plumber who came on the 9th left a leak under the sink. Can he come back on Monday?",
        "self_correction",
        {"date": "the 9th", "day": "Monday"},
    )
    assert got and all("the 9th left" in text for text in got)


def test_a_country_written_as_initials_is_mixed_up_with_the_other() -> None:
    assert wrong("US", "slot", "Do you ship to the ", "?") == {"UK"}
