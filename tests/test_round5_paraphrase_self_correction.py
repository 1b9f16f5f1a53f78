"""Round five of issue #14: paraphrase meaning and self-correction naturalness. Every prompt
here is written for the test (none is copied from a benchmark set); each test failed before
the change it covers."""

from __future__ import annotations

import random
import re

from perturb.generate.perturbations._wrong import category_of, wrong_value
from tests.test_unseen_prompts import task, texts


def variants(prompt: str, cls: str, slots: dict[str, str] | None = None) -> list[str]:
    return sorted(set(texts(task(prompt, slots), cls, seeds=3)))


# --- paraphrase (and register, which shares the indirect questions) ---------------------


def test_a_compound_noun_subject_is_never_split_into_subject_and_verb() -> None:
    # "the garden book" is one noun: never "whether the garden can book arrive before Friday";
    # since round nine the whole noun is the subject of "Would it be possible for X to ..."
    assert variants("Can the garden book arrive before Friday?", "paraphrase", {"day": "Friday"}) == [
        "Is it possible for the garden book to arrive before Friday?",
        "Would it be possible for the garden book to arrive before Friday?",
    ]
    assert variants("Can the garden book arrive before Friday?", "register", {"day": "Friday"}) == [
        "Please tell me, can the garden book arrive before Friday?",
        "Quick q: can the garden book arrive before Friday?",
        "Quick question: can the garden book arrive before Friday?",
    ]
    assert variants("Could the gift card holder for my nephew be posted to his school?", "paraphrase") == []


def test_a_third_party_question_with_a_plain_subject_is_still_asked_indirectly() -> None:
    got = variants("Can the plumber fix the boiler on Monday?", "paraphrase", {"day": "Monday"})
    assert "Do you know whether the plumber can fix the boiler on Monday?" in got


def test_a_label_is_never_framed_as_a_request() -> None:
    got = variants(
        "The tent arrived with a bent pole. Order number 55102-77. Please send a new pole.",
        "paraphrase",
        {"order": "55102-77"},
    )
    assert got
    assert all(" Order number 55102-77. " in text for text in got)
    assert "The tent came with a bent pole. Order number 55102-77. I need you to send a new pole." in got


def test_a_lower_case_message_keeps_its_lower_case_i() -> None:
    got = variants("swap the battery for model X i think it is faulty", "paraphrase")
    assert "can you swap the battery for model X i reckon it is faulty" in got
    assert all(" I " not in text and not text.startswith("I ") for text in got)
    got = variants("cancel my gym class on friday i already booked another one", "paraphrase")
    assert all(" I " not in f" {text} " for text in got)


def test_no_question_mark_on_a_comma_spliced_clause() -> None:
    got = variants("Renew my gym pass, the old one ran out.", "paraphrase")
    assert "I'd like to renew my gym pass, the old one ran out." in got
    assert all(not text.endswith("?") for text in got)


def test_no_for_me_after_a_clause_or_time_limit() -> None:
    got = variants("Set up a standing order to my landlord while I'm away until 3 June.", "paraphrase")
    assert got and all("for me" not in text for text in got)


def test_wrong_is_incorrect_only_as_an_adjective() -> None:
    got = variants("The labels came out wrong and half are smudged. Can you resend them?", "paraphrase")
    assert got and all("incorrect" not in text for text in got)
    got = variants("You sent me the wrong charger. Can you swap it?", "paraphrase")
    assert any("the incorrect charger" in text for text in got)


def test_change_is_amend_only_for_arrangements() -> None:
    assert variants("Can I change the profile photo after I've paid?", "paraphrase") == []
    assert "Please amend the table reservation to Friday." in variants(
        "Please change the table booking to Friday.", "paraphrase"
    )


# --- self_correction: plausible wrong values --------------------------------------------


def wrong(value: str, kind: str, before: str = "", after: str = "", seeds: int = 20) -> set[str | None]:
    return {wrong_value(value, kind, random.Random(s), before=before, after=after) for s in range(seeds)}


def test_a_small_round_amount_is_misremembered_as_the_next_round_one() -> None:
    assert wrong("$15", "money", "Any deals under ", " near me?") == {"$10", "$20"}
    assert wrong("10", "number", "Top up ", " GB of data.") == {"5", "15"}
    assert wrong("10", "number", "amlodipine ", " mg tablets") == {"5", "15"}
    # a count of people stays a count
    assert wrong("10", "number", "a table for ", " people") == {"8", "9", "11", "12"}


def test_a_weekday_date_moves_by_a_week() -> None:
    assert wrong("Saturday 22nd", "slot", "to Wales on ", " so it has to be done before then") == {
        "Saturday 15th"
    }
    assert wrong("14th", "number", "flying out on Sunday ", ", can you book a taxi") == {"7th", "21st"}


def test_a_tax_year_moves_as_a_whole() -> None:
    assert wrong("2025/26", "slot", "expenses for ", "") == {"2024/25", "2026/27"}
    assert wrong("2025", "number", "expenses for ", "/26") == {None}
    assert wrong("26", "number", "expenses for 2025/", "") == {None}


def test_a_version_changes_in_its_last_part() -> None:
    assert wrong("Node 18.12", "slot", "install ", "?") == {"Node 18.11", "Node 18.13"}


def test_a_phone_prefix_and_a_hyphenated_number_are_not_corrected() -> None:
    assert wrong("07911", "number", "Block the number ", " 123456 please.") == {None}
    assert wrong("6", "number", "My baby needs her ", "-month check.") == {None}


def test_one_as_a_pronoun_is_no_count() -> None:
    assert wrong("one", "number", "my kettle broke the old ", " leaked") == {None}
    assert (
        variants("my kettle is broken the old one leaked everywhere i need a new one", "self_correction")
        == []
    )


def test_a_range_stays_a_range() -> None:
    got = wrong("2", "number", "The parcel should come between ", " and 4pm today.")
    assert got == {"3"}  # never "between 4, no, 2 and 4pm"


def test_a_short_and_long_form_of_one_name_are_not_a_mix_up() -> None:
    got = wrong("Dan Cole", "slot", "Send the report to ", " by Thursday.")
    assert None not in got
    assert all(not v.startswith(("Daniel", "Danny")) for v in got if v)


def test_a_code_in_capitals_is_not_a_word_in_lower_case() -> None:
    assert category_of("oak") is None
    assert category_of("OAK") == ["SFO", "OAK", "SJC"]
    assert category_of("debit card") == ["credit card", "debit card"]
    assert category_of("ps5") == ["PS4", "PS5", "Xbox", "Switch", "PC"]


def test_a_birth_date_and_the_time_now_are_not_corrected() -> None:
    got = variants(
        "My daughter was born on 2 May 2023. Can she join the toddler group on Friday?",
        "self_correction",
        {"day": "Friday"},
    )
    # the weekday is corrected, the birth date never
    assert got and all(text.startswith("My daughter was born on 2 May 2023. ") for text in got)
    assert all(text.endswith("Friday?") and "Friday" not in text[:-7] for text in got)
    assert all("May 2023," not in text and "May 2023 —" not in text for text in got)
    got = variants("It's now 9pm and my food hasn't come.", "self_correction")
    assert got == []


# --- paraphrase: more questions asked another way (paraphrase only) ----------------------


def test_short_questions_are_asked_indirectly() -> None:
    got = variants("My parcel was due yesterday. Where is it?", "paraphrase")
    assert "My parcel was due yesterday. Could you tell me where it is?" in got
    assert "Could you tell me where they are?" in variants("Where are they?", "paraphrase")
    assert "Could you tell me why my inbox is full?" in variants("Why is my inbox full?", "paraphrase")
    got = variants("I sent the form on Monday. Has my claim been approved yet?", "paraphrase")
    assert "I sent the form on Monday. Do you know whether my claim has been approved yet?" in got
    got = variants("Am I actually registered for the course?", "paraphrase")
    assert "I'd like to know whether I'm actually registered for the course." in got


def test_a_does_question_finds_its_verb_after_the_whole_subject() -> None:
    got = variants("Does my contract include free calls to France?", "paraphrase")
    assert "Can you tell me whether my contract includes free calls to France?" in got
    got = variants("Does the photo book include a gift box?", "paraphrase")
    assert got and all("whether the photo book includes a gift box" in text for text in got)


def test_how_much_is_asked_as_what_it_costs() -> None:
    got = variants("How much is a haircut if I just walk in?", "paraphrase")
    assert got == ["What does a haircut cost if I just walk in?"]
    assert variants("How much does a car wash cost on weekends?", "paraphrase") == [
        "What does a car wash cost on weekends?"
    ]
    # an amount does not cost an amount
    assert variants("How much is the deposit for a two bedroom flat?", "paraphrase") == []


def test_register_keeps_its_own_questions() -> None:
    # the extra question rules are paraphrase's: register output is unchanged by them
    got = variants("Where is it?", "register")
    assert got and all("where it is" not in text for text in got)


def test_a_return_the_user_makes_is_never_the_helpers_own_act() -> None:
    got = variants("Return order 5512-9031, the jacket is too big.", "paraphrase", {"order": "5512-9031"})
    assert got and all("you to return" not in text for text in got)
    assert "I'd like to return order 5512-9031, the jacket is too big." in got


def test_no_make_that_when_the_value_is_a_subject() -> None:
    for prompt in (
        "Would 3pm suit? Any day Thursday works for me.",
        "Is 10am on Tuesday OK? Tuesday works best.",
    ):
        got = sorted(set(texts(task(prompt, None), "self_correction", seeds=12)))
        assert got and all(not re.search(r"make that \w+ (?:works|OK)", text) for text in got)
    got = sorted(set(texts(task("Book a table for 4 at 7pm tomorrow.", None), "self_correction", seeds=12)))
    assert "Book a table for 3... actually make that 4 at 7pm tomorrow." in got  # before a preposition


def test_a_persons_need_is_never_a_requirement() -> None:
    got = variants(
        "I saw the nurse on Friday. She said I'd need a scan. Has the letter been sent yet?", "paraphrase"
    )
    assert got and all("require" not in text for text in got)


def test_a_verb_with_re_or_un_opens_an_order_too() -> None:
    assert "Can you reprint my boarding pass but in colour?" in variants(
        "Reprint my boarding pass but in colour.", "paraphrase"
    )
    assert "Would you unfreeze my savings account?" in variants("Unfreeze my savings account.", "paraphrase")
    assert "Could you please enlarge the wedding photo to A2?" in variants(
        "Enlarge the wedding photo to A2.", "paraphrase"
    )


def test_a_childs_age_said_again_and_24_hours_are_not_corrected() -> None:
    got = variants("Can I book a check-up for my son, he's 6, on Friday at 9am?", "self_correction")
    assert got and all("he's 6," in text for text in got)
    assert wrong("24", "number", "Is the gym open ", " hours?") == {None}
    assert wrong("24", "number", "Support is ", "/7.") == {None}


def test_the_screen_does_not_find_a_wrong_digit_inside_a_code() -> None:
    from perturb.generate.perturbations.self_correction import correction_flags
    from perturb.records import Task

    t = Task(
        id="t",
        prompt="Please add 2 extra bags to booking BK-73310.",
        expected={},
        grader="json_subset",
        slots={"bags": "2"},
    )
    ok = {"corrections": [{"slot": "bags", "wrong": "3", "final": "2"}]}
    assert correction_flags(t, "Please add 3, no, 2 extra bags to booking BK-73310.", ok) == []
    assert correction_flags(t, "Please add 2, no, 3 extra bags to booking BK-73310.", ok) == [
        "the last value stated is the wrong '3', expected the canonical '2'"
    ]
