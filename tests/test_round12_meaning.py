"""Round twelve of issue #14 (paraphrase and register meaning): kinds of sentence that the
red-team set ``benchmarks/redteam12`` showed were reworded wrongly. Every prompt here is written
for this file (none is copied from a benchmark set); each test pins the exact output for one
grammatical shape."""

from __future__ import annotations

from tests.test_round11_post import registered, variants


def test_when_can_i_keeps_its_modal() -> None:
    # "When can I" asks when something is possible: never "when to collect it" (what to do)
    assert variants("My watch strap was meant to be ready on Monday. When can I collect it?") == [
        "My watch strap was meant to be ready on Monday. Can you tell me when I can collect it?",
        "My watch strap was meant to be ready on Monday. Do you know when I can collect it?",
        "My watch strap was meant to be ready on Monday. I'd like to know when I can collect it.",
    ]


def test_a_closing_time_adverb_stays_after_the_moved_verb() -> None:
    assert variants("Alexa, what's the tide at Whitby this afternoon?") == [
        "Alexa, tell me what the tide at Whitby is this afternoon."
    ]
    assert registered("Alexa, what's the tide at Whitby this afternoon?")[:2] == [
        "Alexa, could you please tell me what the tide at Whitby is this afternoon?",
        "Alexa, can you please tell me what the tide at Whitby is this afternoon?",
    ]
    assert variants("Hey Google, when is the recycling collection this week?") == [
        "Hey Google, tell me when the recycling collection is this week."
    ]


def test_how_long_do_i_asks_what_to_do() -> None:
    assert variants("Alexa, how long do I boil an egg?") == ["Alexa, tell me how long to boil an egg."]
    # "have to" keeps its subject: the user is told how long they must stay
    assert variants("How long do we have to stay out of the flat?") == [
        "Can you tell me how long we have to stay out of the flat?",
        "Do you know how long we have to stay out of the flat?",
        "I'd like to know how long we have to stay out of the flat.",
    ]


def test_can_i_get_with_a_condition_stays_a_question() -> None:
    # an eligibility question, never "i want a student discount if ..."
    prompt = "can i get a student discount if i only study part time"
    assert variants(prompt) == []
    assert registered(prompt) == [
        None,
        "Please tell me, can I get a student discount if I only study part time?",
        "quick question: can i get a student discount if i only study part time",
    ]


def test_get_x_out_is_a_visit_not_a_thing() -> None:
    prompt = "The dishwasher took the tablet and didn't start. Can I get an engineer out?"
    assert registered(prompt) == [
        "The dishwasher took the tablet and did not start. I would be grateful if you could tell me "
        "whether I can get an engineer out.",
        "Hello team, the dishwasher took the tablet and didn't start. Kindly tell me whether I can "
        "get an engineer out. Thanks a lot.",
        None,
    ]
    # "didn't start" is a machine failing: never "didn't begin"
    assert all("didn't start" in v for v in variants(prompt))


def test_a_helpers_act_on_a_pronoun_is_never_the_users() -> None:
    # "Could you cancel it?" (the penalty) is never "I'd like to cancel it"
    assert variants("The council sent me a £40 penalty, but I paid on time. Could you cancel it?") == [
        "The council sent me a £40 penalty, but I paid on time. I would like you to cancel it.",
        "The council sent me a £40 penalty, but I paid on time. I'd like you to cancel it.",
        "The council sent me a £40 penalty, but I paid on time. Please cancel it.",
        "The council sent me a £40 penalty, but I paid on time. Would you be able to cancel it?",
    ]


def test_the_users_own_move_is_never_asked_of_the_helper() -> None:
    got = variants(
        "Hi, I rent a parking space at your Leeds garage. I'd like to switch to a covered space "
        "from June. Is that possible?"
    )
    assert got and not any(
        "you switch" in v or "Switch to" in v or "you to switch" in v or "Please switch" in v for v in got
    ), got
    assert (
        "Hi, I rent a parking space at your Leeds garage. Could you help me switch to a covered space "
        "from June? Is that possible?" in got
    )


def test_a_comma_spliced_clause_never_gets_the_question_mark() -> None:
    got = variants("I'd like to book a haircut for my son, he's 6. Do you have anything on Saturday?")
    assert got and not any("he's 6?" in v for v in got), got
    assert "Please book a haircut for my son, he's 6. Do you have anything on Saturday?" in got


def test_extra_as_an_adverb_is_never_additional() -> None:
    assert variants(
        "The taxi was an hour late and we had to pay the porter extra. Will you refund the £20?"
    ) == ["The taxi was an hour late. We had to pay the porter extra. Will you refund the £20?"]


def test_a_booked_person_is_never_reserved() -> None:
    got = variants("I'm booked on the 09:10 coach to Bath tomorrow, booking CH-4410. Can I take a bike?")
    assert got and not any("reserved" in v for v in got), got


def test_a_counted_job_asked_with_can_you_stays_a_question() -> None:
    assert variants("Can you clean and press four suits by Friday?") == [
        "Are you able to clean and press four suits by Friday?",
        "Would you be able to clean and press four suits by Friday?",
    ]
    assert registered("Can you clean and press four suits by Friday?") == [
        "Please could you clean and press four suits by Friday?",
        "Can you please clean and press four suits by Friday?",
        "Can u clean and press four suits by Friday?",
    ]


def test_a_negated_please_is_never_framed_as_do_not() -> None:
    # "Would you kindly do not ring ..." is no sentence: refused where nothing else changes
    assert registered("Please don't ring the doorbell, the baby will be asleep.") == [
        None,
        None,
        "Pls don't ring the doorbell, the baby will be asleep. TIA.",
    ]


def test_about_as_roughly_is_never_regarding() -> None:
    assert registered("Is a new battery cheaper than a repair, or is it about the same?") == [
        "Hello, is a new battery cheaper than a repair, or is it about the same? I would appreciate it "
        "if you could let me know. Thank you for your help with this.",
        "Hi team, is a new battery cheaper than a repair, or is it about the same? Kindly let me know. "
        "Thanking you.",
        "Quick question: is a new battery cheaper than a repair, or is it about the same? Appreciate it.",
    ]


def test_at_the_same_time_is_never_timing() -> None:
    assert registered("Is it quicker if I send both forms at the same time?") == [
        None,
        "Please tell me, is it quicker if I send both forms at the same time?",
        "Quick question: is it quicker if I send both forms at the same time?",
    ]


def test_can_you_with_an_alternative_or_a_without_stays_a_question() -> None:
    assert registered("Can you get grass stains out of cotton trousers, or is it too late?") == [
        "Good day, could you possibly get grass stains out of cotton trousers, or is it too late? Kind regards.",
        "Dear sir, can you please get grass stains out of cotton trousers, or is it too late? Thanks a lot.",
        "Can u get grass stains out of cotton trousers, or is it too late? TIA.",
    ]
    assert registered(
        "my car key snapped in the ignition can you get the broken half out without replacing the barrel"
    ) == [
        "My car key snapped in the ignition. Please could you get the broken half out without replacing the barrel?",
        "Hi team, my car key snapped in the ignition. Can you please get the broken half out without "
        "replacing the barrel? Hoping for a quick response.",
        "my car key snapped in the ignition can u get the broken half out without replacing the barrel",
    ]


def test_a_contrast_set_off_by_commas_is_no_clause_break() -> None:
    # "cancel, not pause, my subscription": never "Can you help me cancel, not pause? My subscription."
    assert variants("I'd like to end, not pause, my gym membership. How do I do that?") == [
        "I want to end, not pause, my gym membership. Can you tell me how to do that?",
        "I would like to end, not pause, my gym membership. Can you tell me how to do that?",
        "I would like to end, not pause, my gym membership. I'd like to know how to do that.",
        "I'd like to end, not pause, my gym membership. Can you tell me how to do that?",
        "I'd like to end, not pause, my gym membership. Could you tell me how to do that?",
        "I'd like to end, not pause, my gym membership. Do you know how to do that?",
        "I'd like to end, not pause, my gym membership. I'd like to know how to do that.",
    ]


def test_need_no_more_than_is_never_need_not_more_than() -> None:
    # "We need not more than 12" reads as "we need not": the quantity swap is not made after "need"
    got = variants("We need no more than 12 chairs for the party on the 3rd. Could you confirm?")
    assert got and all("need no more than 12 chairs" in v for v in got), got
