"""Round eleven of issue #14, paraphrase: rules chosen by the grammatical shape of a question
(a pronoun subject after a wh-phrase, a clause opened by "if"/"before" inside a written
question, an obligation or a need asked as a requirement) and their refusals. Every prompt
here is written for the test (none is copied from a benchmark set)."""

from __future__ import annotations

from tests.test_paraphrase_round10 import variants


def test_how_long_with_a_modal_and_a_pronoun_subject_is_asked_indirectly() -> None:
    # the clause after "before" has its own subject: part of the question, kept as it is
    assert variants("How long should we leave the varnish before we walk on it?") == [
        "Can you tell me how long we should leave the varnish before we walk on it?",
        "Do you know how long we should leave the varnish before we walk on it?",
        "I'd like to know how long we should leave the varnish before we walk on it.",
    ]


def test_a_closing_wh_question_about_what_the_helper_is_doing_is_asked_indirectly() -> None:
    got = variants("The quote said oak. Which wood are you actually using?")
    assert got == [
        "The quote said oak. Can you tell me which wood you are actually using?",
        "The quote said oak. Could you tell me which wood you are actually using?",
        "The quote said oak. I'd like to know which wood you are actually using.",
    ]


def test_a_wh_question_with_a_second_sentence_run_on_is_left_alone() -> None:
    # "and I ..." is a clause of its own, not part of the question
    assert variants("How often should I water it and I am away in May?") == []


def test_can_you_with_an_if_clause_keeps_the_clause() -> None:
    assert variants("Can you swim in the lake if you have a cast on?") == [
        "Are you able to swim in the lake if you have a cast on?",
        "Would you be able to swim in the lake if you have a cast on?",
    ]


def test_an_obligation_is_asked_as_a_requirement() -> None:
    # at a level the requirement alone leaves trivial, round twelve's "or could" joins it
    assert variants("Do we have to wear gloves or can we use our own?") == [
        "Are we required to wear gloves or can we use our own?",
        "Are we required to wear gloves or could we use our own?",
    ]
    assert variants("Hi, do I have to print the ticket?") == [
        "Hello, am I required to print the ticket?",
        "Hi, am I required to print the ticket?",
    ]


def test_a_need_for_a_thing_with_a_purpose_is_asked_as_a_requirement() -> None:
    got = variants("Do you need a medical certificate to join the climbing club?")
    assert got == ["Is a medical certificate required to join the climbing club?"]


def test_a_need_whose_thing_has_no_clear_end_is_not_asked_as_a_requirement() -> None:
    # "a copy of my lease": the thing needed runs on past a preposition the rule does not read
    for prompt in ("Do you need a copy of my lease?", "do i have to bring a towel"):
        assert all("required" not in t for t in variants(prompt)), prompt


def test_a_closing_is_that_still_going_on_is_asked_indirectly() -> None:
    assert variants("The roof was booked for May. Is that still happening?") == [
        "The roof was booked for May. Can you tell me whether that is still happening?",
        "The roof was booked for May. Could you tell me whether that is still happening?",
        "The roof was booked for May. Do you know whether that is still happening?",
        "The roof was booked for May. I'd like to know whether that is still happening.",
    ]


def test_a_service_question_with_an_alternative_without_a_subject_is_one_question() -> None:
    got = variants("Do you clean gutters as well, or just windows?")
    assert got == [
        "Can you tell me whether you clean gutters as well, or just windows?",
        "Could you tell me whether you clean gutters as well, or just windows?",
        "I'd like to know whether you clean gutters as well, or just windows.",
    ]
    # a second question with its own subject after "or" is never half asked indirectly
    assert all("whether" not in t for t in variants("Do you clean gutters too, or do I need a roofer?"))


def test_a_one_word_subject_without_a_determiner_is_asked_as_what_is_possible() -> None:
    assert variants("Can cats stay in the cabins?") == [
        "Is it possible for cats to stay in the cabins?",
        "Would it be possible for cats to stay in the cabins?",
    ]
    assert variants("Can Priya do Monday instead of Friday?", {"who": "Priya", "day": "Monday"}) == [
        "Is it possible for Priya to do Monday instead of Friday?",
        "Would it be possible for Priya to do Monday instead of Friday?",
    ]


def test_a_one_word_subject_before_an_unknown_verb_is_left_alone() -> None:
    # "delivery drivers": the second word could be the subject's own noun, not its verb
    assert all("possible for" not in t for t in variants("Can delivery drivers park here?"))


def test_a_written_do_you_question_about_any_service_verb_is_asked_indirectly() -> None:
    # the verb is read by what it is not (a thought, a wish, an adverb), not from a list
    assert variants("We are beginners. Do you run taster sessions, and how long does it take?") == [
        "We are beginners. Can you tell me whether you run taster sessions and how long it takes?",
        "We are beginners. Could you tell me whether you run taster sessions and how long it takes?",
        "We are beginners. I'd like to know whether you run taster sessions and how long it takes.",
    ]
    assert all("whether" not in t for t in variants("Do you mind if we arrive late?"))


def test_a_yes_no_question_with_a_pronoun_subject_takes_any_predicate() -> None:
    assert variants("Our budget is 900 pounds. Is that realistic?") == [
        "Our budget is 900 pounds. Can you tell me whether that is realistic?",
        "Our budget is 900 pounds. Could you tell me whether that is realistic?",
        "Our budget is 900 pounds. Do you know whether that is realistic?",
        "Our budget is 900 pounds. I'd like to know whether that is realistic.",
    ]


def test_a_pronoun_before_a_determiner_is_the_whole_subject() -> None:
    # never "whether this the is right number": "this" is the subject, "the right number" the predicate
    got = variants("Is this the right address for returns?")
    assert got and all("whether this is the right address for returns" in t for t in got), got


def test_a_yes_no_question_with_a_sentence_run_on_is_not_asked_indirectly() -> None:
    assert variants("Is it ready I need it today?") == []


def test_does_with_an_article_or_a_protected_subject_is_asked_indirectly() -> None:
    got = variants("Does a garden office need building regulations?")
    assert got and all("whether a garden office needs building regulations" in t for t in got), got
    got = variants("Does a wood burner need a liner?", {"product": "wood burner"})
    assert got and all("whether a wood burner needs a liner" in t for t in got), got


def test_how_long_a_thing_takes_keeps_any_phrase_after_take() -> None:
    got = variants("How long does a repair take from drop-off at the Leeds shop?")
    assert got and all("how long a repair takes from drop-off at the Leeds shop" in t for t in got), got
