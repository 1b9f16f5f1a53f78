"""Round nine of issue #14, paraphrase: refusals for casual run-ons, questions with a second
question joined on and questions to a voice assistant, and new rewrites for kinds of text the
class skipped. Every prompt here is written for the test (none is copied from a benchmark
set)."""

from __future__ import annotations

from tests.test_unseen_prompts import task, texts


def variants(prompt: str, slots: dict[str, str] | None = None) -> list[str]:
    return sorted(set(texts(task(prompt, slots), "paraphrase", seeds=3)))


def test_a_lower_case_run_on_is_not_wrapped_in_a_formal_indirect_question() -> None:
    # "could you tell me whether i can move ... were away on thursday" clashes with the casual rest
    assert variants("can i move the dentist appointment to friday were away on thursday") == [
        "is it possible to move the dentist appointment to friday were away on thursday",
        "is there a way to move the dentist appointment to friday were away on thursday",
    ]
    # asked casually instead: the opening words change, the typed-on rest stays
    assert variants("can the plumber come on monday its the flat above the shop") == [
        "any chance the plumber could come on monday its the flat above the shop",
        "is it possible for the plumber to come on monday its the flat above the shop",
    ]


def test_a_short_lower_case_question_is_still_asked_indirectly() -> None:
    assert variants("can we swap thursday for tuesday next week") == [
        "could you tell me whether we can swap thursday for tuesday next week",
        "do you know whether we can swap thursday for tuesday next week",
    ]


def test_a_question_with_a_second_direct_question_joined_on_is_left_alone() -> None:
    got = variants(
        "is it normal for the heater to make that noise after you fixed it or did someone knock it"
    )
    assert got == []
    assert variants("What would a new boiler cost roughly and is there any help available?") == []
    assert variants("Is the café open late, or are the doors locked at six?") == []


def test_a_question_to_a_voice_assistant_is_never_asked_with_id_like_to_know() -> None:
    assert variants("Hey Siri, how much chlorine do I add to a 15,000 gallon pool?") == [
        "Hey Siri, tell me how much chlorine to add to a 15,000 gallon pool."
    ]


def test_how_much_to_do_is_asked_with_to_but_what_the_user_owes_is_not() -> None:
    assert variants("How much fertiliser should we add to the lawn in spring?") == [
        "Can you tell me how much fertiliser to add to the lawn in spring?",
        "Do you know how much fertiliser to add to the lawn in spring?",
        "I'd like to know how much fertiliser to add to the lawn in spring.",
    ]
    assert variants("How much money do I owe you for the repair?") == [
        "Can you tell me how much money I owe you for the repair?",
        "Do you know how much money I owe you for the repair?",
        "I'd like to know how much money I owe you for the repair.",
    ]


def test_the_helper_is_never_asked_whether_it_knows_its_own_price() -> None:
    assert variants("How much do you charge to shorten a pair of jeans?") == [
        "Can you tell me how much you charge to shorten a pair of jeans?",
        "Could you tell me how much you charge to shorten a pair of jeans?",
        "I'd like to know how much you charge to shorten a pair of jeans.",
    ]


def test_a_formal_swap_is_not_used_in_a_command_to_a_voice_assistant() -> None:
    got = variants("Alexa, ask Green Thumb to mow the back lawn before Friday.", {"d": "Friday"})
    assert got == [
        "Alexa, can you ask Green Thumb to mow the back lawn before Friday?",
        "Alexa, can you please ask Green Thumb to mow the back lawn before Friday?",
        "Alexa, could you ask Green Thumb to mow the back lawn before Friday?",
    ]


def test_under_a_name_is_not_a_quantity() -> None:
    got = variants(
        "Could you change my table for Saturday? The booking's under Mark Ellis. Thanks.", {"n": "Mark Ellis"}
    )
    assert got and not any("below" in t for t in got), got
    assert "Can I get a phone that costs below $300?" in variants(
        "I want a phone that costs under $300.", {"p": "$300"}
    )


def test_the_users_own_purchase_is_never_turned_into_the_helpers() -> None:
    got = variants("I'd like to buy two tickets for the matinee on Sunday. Are there any aisle seats left?")
    assert got and not any(
        t.startswith(("Buy ", "Can you buy", "Could you buy", "Would you")) for t in got
    ), got
    assert (
        "Could you help me buy two tickets for the matinee on Sunday? Are there any aisle seats left?" in got
    )


def test_i_would_like_a_thing_please_is_not_i_am_looking_for_it_please() -> None:
    assert variants("The kettle I bought stopped working after a week. I'd like a refund, please.") == [
        "The kettle I bought stopped working after a week. Can I get a refund, please?",
        "The kettle I bought stopped working after a week. Can I have a refund, please?",
        "The kettle I bought stopped working after a week. Could I get a refund, please?",
        "The kettle I bought stopped working after a week. Could I have a refund, please?",
    ]


def test_a_word_kept_out_is_looked_for_across_a_comma() -> None:
    got = variants("The photo book I ordered arrived with two pages missing. I'd like a replacement, please.")
    assert got and not any("looking for" in t for t in got), got


def test_a_question_to_a_voice_assistant_goes_through_the_paraphrase_only_question_rules() -> None:
    assert variants("Hey Google, how long should I leave the glue to dry on a wooden chair?") == [
        "Hey Google, tell me how long I should leave the glue to dry on a wooden chair."
    ]
    assert variants("Hey Siri, how much is a haircut at Snip Studio?", {"s": "Snip Studio"}) == [
        "Hey Siri, what does a haircut cost at Snip Studio?"
    ]
    assert variants("OK Google, where's my grocery order?") == [
        "OK Google, tell me where my grocery order is."
    ]


def test_where_a_thing_is_and_how_big_or_busy_it_is_are_asked_indirectly() -> None:
    assert variants("Where's my order?") == [
        "Can you tell me where my order is?",
        "Could you tell me where my order is?",
        "I'd like to know where my order is.",
    ]
    assert variants("How busy is the gym on Saturday mornings?") == [
        "Can you tell me how busy the gym is on Saturday mornings?",
        "Could you tell me how busy the gym is on Saturday mornings?",
        "Do you know how busy the gym is on Saturday mornings?",
        "I'd like to know how busy the gym is on Saturday mornings.",
    ]


def test_a_present_perfect_or_progressive_question_is_asked_with_whether() -> None:
    got = variants("The bus was due at 8 and it's nearly 9 now. Has something happened?")
    assert (
        "The bus was due at 8 and it's nearly 9 now. Could you tell me whether something has happened?" in got
    )
    got = variants("The decorator said he'd be here at 10. It's now 11:30. Is he still coming?")
    assert (
        "The decorator said he'd be here at 10. It's now 11:30. Do you know whether he is still coming?"
        in got
    )
    assert variants("Is she still working there or has she left?") == []


def test_which_of_a_set_is_asked_in_the_same_order() -> None:
    assert variants("Which of your cakes are dairy free?") == [
        "Can you tell me which of your cakes are dairy free?",
        "Could you tell me which of your cakes are dairy free?",
        "I'd like to know which of your cakes are dairy free.",
    ]


def test_what_a_third_party_can_do_is_asked_as_what_is_possible() -> None:
    got = variants("Our fridge is leaking water onto the floor. Can an engineer come out today?")
    assert (
        "Our fridge is leaking water onto the floor. Would it be possible for an engineer to come out today?"
        in got
    )
    got = variants(
        "The technician fixed the gate last week but it's stuck again. Can he come back on Friday?"
    )
    assert got == [
        "The technician fixed the gate last week but it's stuck again. Is it possible for him to come back on Friday?",
        "The technician fixed the gate last week but it's stuck again. Would it be possible for him to come back on "
        "Friday?",
    ]
    assert variants("Can they fix it or do I need a new one?") == []


def test_a_verbless_any_update_question_is_asked_in_full() -> None:
    assert variants("We sent the form two weeks ago. Any update on the application?") == [
        "We sent the form two weeks ago. Do you have any update on the application?",
        "We sent the form two weeks ago. Is there any update on the application?",
    ]


def test_a_do_you_question_about_what_the_business_does_is_asked_indirectly() -> None:
    assert variants("Do you pierce ears on children under 12?") == [
        "Can you tell me whether you pierce ears on children under 12?",
        "Could you tell me whether you pierce ears on children under 12?",
        "I'd like to know whether you pierce ears on children under 12.",
    ]
    for prompt in (
        "Do you think it will rain?",
        "Do you mind if I bring my dog?",
        "Do you remember my order?",
    ):
        assert variants(prompt) == [], prompt


def test_a_protected_value_can_be_the_noun_of_a_short_subject() -> None:
    assert variants("Which of your teas are caffeine free?", {"c": "teas"}) == [
        "Can you tell me which of your teas are caffeine free?",
        "Could you tell me which of your teas are caffeine free?",
        "I'd like to know which of your teas are caffeine free.",
    ]


def test_a_passive_or_future_yes_no_question_is_asked_with_whether() -> None:
    # never "Do you know whether your plumbers ...": the helper is asked about itself
    assert variants("Are your plumbers Gas Safe registered?") == [
        "Can you tell me whether your plumbers are Gas Safe registered?",
        "Could you tell me whether your plumbers are Gas Safe registered?",
        "I'd like to know whether your plumbers are Gas Safe registered.",
    ]
    assert variants("Will panels still work on a north-facing roof?") == [
        "Can you tell me whether panels will still work on a north-facing roof?",
        "Could you tell me whether panels will still work on a north-facing roof?",
        "Do you know whether panels will still work on a north-facing roof?",
        "I'd like to know whether panels will still work on a north-facing roof.",
    ]


def test_a_question_in_the_past_is_asked_with_the_verb_in_the_past() -> None:
    assert variants("When did my parcel leave the depot?") == [
        "Can you tell me when my parcel left the depot?",
        "Could you tell me when my parcel left the depot?",
        "Do you know when my parcel left the depot?",
        "I'd like to know when my parcel left the depot.",
    ]
    assert variants("OK Google, how much power did my solar panels make yesterday?") == [
        "OK Google, tell me how much power my solar panels made yesterday."
    ]
    # "stop" -> "stoped" or "stopped": a spelling the rule is unsure of is refused
    assert variants("Why did my payment stop?") == []


def test_a_casual_run_ons_can_someone_is_asked_casually() -> None:
    got = variants(
        "got the sofa back yesterday and the cushion is torn can someone look at it again before saturday"
    )
    assert got == [
        "got the sofa back yesterday and the cushion is torn any chance someone could look at it again before "
        "saturday",
        "got the sofa back yesterday and the cushion is torn is it possible for someone to look at it again before "
        "saturday",
    ]
    # an urgent request is never softened; a second question keeps the first as it is
    assert variants("pipe burst in the kitchen can someone come asap") == []
    assert variants("hi can someone plant 40 bulbs along the path and how much roughly") == []


def test_a_price_question_with_a_second_question_is_left_alone() -> None:
    # never "What does the intensive course and when ... cost": round twelve's price shape ends
    # the noun phrase where the joined question starts
    assert variants("How much is the intensive course and when does the next one start?") == [
        "What does the intensive course cost and when does the next one begin?",
        "What does the intensive course cost and when does the next one start?",
    ]


def test_is_this_something_you_can_do_is_asked_directly() -> None:
    prompt = "The app has shown no data since Monday. The light on the router is flashing. "
    assert variants(prompt + "Is this something you can fix remotely?") == [
        prompt + "Can you fix this remotely?",
        prompt + "Would you be able to fix this remotely?",
    ]
    assert variants("The seam has split. Is this something you can repair, or is it too late?") == []


def test_how_long_an_act_takes_is_asked_indirectly() -> None:
    assert variants("How long does installation usually take for a 4-panel system?") == [
        "Can you tell me how long installation usually takes for a 4-panel system?",
        "Could you tell me how long installation usually takes for a 4-panel system?",
        "Do you know how long installation usually takes for a 4-panel system?",
        "I'd like to know how long installation usually takes for a 4-panel system.",
    ]


def test_a_casual_run_ons_wh_question_keeps_its_casual_wrapper() -> None:
    # only a yes/no "whether" wrapper clashes with a run-on; "what's X" asked for X stays
    assert variants("whats my parcel status i ordered on monday") == [
        "can you tell me my parcel status i ordered on monday",
        "do you know my parcel status i ordered on monday",
        "i'd like to know my parcel status i ordered on monday",
    ]
