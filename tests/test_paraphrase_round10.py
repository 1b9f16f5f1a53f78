"""Round ten of issue #14, paraphrase: rewrites chosen by the grammatical shape of a sentence
(where its grammar marks the subject's end, a price question's question word, a complaint in
the present perfect), and their refusals. Every prompt here is written for the test (none is
copied from a benchmark set)."""

from __future__ import annotations

from tests.test_unseen_prompts import task, texts


def variants(prompt: str, slots: dict[str, str] | None = None) -> list[str]:
    return sorted(set(texts(task(prompt, slots), "paraphrase", seeds=3)))


def test_a_wh_question_with_be_after_a_modal_moves_the_modal_to_the_subjects_end() -> None:
    # "be" marks where the subject ends, however long it is
    assert variants("When will my new sofa be delivered?") == [
        "Can you tell me when my new sofa will be delivered?",
        "Do you know when my new sofa will be delivered?",
        "I'd like to know when my new sofa will be delivered.",
    ]
    assert variants("Hey Google, when will the library on Park Road be open again?") == [
        "Hey Google, tell me when the library on Park Road will be open again."
    ]


def test_a_wh_question_with_being_or_going_to_is_asked_indirectly() -> None:
    assert variants("Alexa, when is the bin being emptied?") == [
        "Alexa, tell me when the bin is being emptied."
    ]
    assert variants("When is it going to be repaired?") == [
        "Can you tell me when it is going to be repaired?",
        "Could you tell me when it is going to be repaired?",
        "Do you know when it is going to be repaired?",
        "I'd like to know when it is going to be repaired.",
    ]


def test_a_question_whose_question_word_is_the_subject_keeps_its_order() -> None:
    assert variants("Who will pay for the damage?") == [
        "Can you tell me who will pay for the damage?",
        "Could you tell me who will pay for the damage?",
        "Do you know who will pay for the damage?",
        "I'd like to know who will pay for the damage.",
    ]
    # "What can I bring" has a subject of its own: the older rule inverts it
    assert variants("What can I bring to the class?") == [
        "Can you tell me what I can bring to the class?",
        "Do you know what I can bring to the class?",
        "I'd like to know what I can bring to the class.",
    ]


def test_a_price_question_swaps_what_and_how_much_but_not_beside_a_second_question() -> None:
    assert variants("Roughly what would a new fence cost?") == ["Roughly how much would a new fence cost?"]
    assert variants("How much will the full service cost and when can you do it?") == []


def test_still_hasnt_and_hasnt_yet_say_the_same_in_a_written_sentence() -> None:
    assert variants("The parcel I sent on Monday still hasn't arrived.") == [
        "The parcel I sent on Monday hasn't arrived yet."
    ]
    assert variants("The new boiler hasn't been fitted yet.") == ["The new boiler still hasn't been fitted."]
    # a time span reads with "still" only: "hasn't come through since March yet" is refused
    assert variants("The refund still hasn't come through since March.") == []


def test_a_yes_no_question_with_a_longer_subject_ends_it_at_the_predicate_adjective() -> None:
    assert variants("Is the Saturday morning class at your Leeds studio suitable for beginners?") == [
        "Can you tell me whether the Saturday morning class at your Leeds studio is suitable for beginners?",
        "Could you tell me whether the Saturday morning class at your Leeds studio is suitable for beginners?",
        "I'd like to know whether the Saturday morning class at your Leeds studio is suitable for beginners.",
    ]
    assert variants("Is your gym safe for someone with a knee injury?") == [
        "Can you tell me whether your gym is safe for someone with a knee injury?",
        "Could you tell me whether your gym is safe for someone with a knee injury?",
        "I'd like to know whether your gym is safe for someone with a knee injury.",
    ]


def test_an_ing_word_before_a_plain_noun_is_not_read_as_a_verb() -> None:
    # "Is the evening | session running" — never "whether the evening is session ..."
    assert variants("Is the plumber coming today?") == [
        "Can you tell me whether the plumber is coming today?",
        "Could you tell me whether the plumber is coming today?",
        "I'd like to know whether the plumber is coming today.",
    ]
    assert all(
        " morning is " not in v for v in variants("Is the morning class at the pool open to children?")
    )


def test_where_a_thing_is_reads_for_any_subject_that_ends_the_question() -> None:
    assert variants("OK Google, where's my takeaway order from Luigi's?") == [
        "OK Google, tell me where my takeaway order from Luigi's is."
    ]
    # an infinitive in the subject would leave "is" stranded after it: never asked indirectly;
    # round twelve's timing-advice shape asks it with "what" instead
    assert variants("When is the best time to plant tulips?") == ["What is the best time to plant tulips?"]


def test_what_you_are_going_to_do_and_a_longer_opening_hours_subject() -> None:
    assert variants("What are you going to do about the leak?") == [
        "Can you tell me what you are going to do about the leak?",
        "Could you tell me what you are going to do about the leak?",
        "I'd like to know what you are going to do about the leak.",
    ]
    assert variants("Hey Siri, what time does the farm shop on Otley High Street close today?") == [
        "Hey Siri, tell me what time the farm shop on Otley High Street closes today."
    ]


def test_a_question_with_a_later_question_after_its_subject_is_left_alone() -> None:
    assert variants("What would the delivery be and roughly what would it cost?") == []


def test_still_hasnt_after_i_or_with_an_object_pronoun_but_never_with_a_duration() -> None:
    assert variants("I still haven't received it.") == ["I haven't received it yet."]
    assert variants("We still haven't heard from you.") == ["We haven't heard from you yet."]
    assert variants("The engineer still hasn't turned up for two days.") == []
