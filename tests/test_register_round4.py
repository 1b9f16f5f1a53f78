"""Round four of issue #14 for register (and paraphrase): kinds of request that round three
left without a register variant (prompts written here, not from any benchmark set)."""

from __future__ import annotations

from tests.test_unseen_prompts import task, texts


def variants(prompt: str, cls: str, slots: dict[str, str] | None = None) -> list[str]:
    return sorted(set(texts(task(prompt, slots), cls, seeds=3)))


def test_can_someone_come_round_gets_the_register_opener() -> None:
    got = variants("The dishwasher is leaking onto the floor. Can someone come round on Monday?", "register")
    assert "The dishwasher is leaking onto the floor. Could you possibly come round on Monday?" in got
    assert "The dishwasher is leaking onto the floor. Kindly come round on Monday." in got
    assert "The dishwasher is leaking onto the floor. Might I ask you to come round on Monday?" in got
    # the request is always reworded: never the original "Can someone come round" with a greeting only
    assert got and all("Can someone" not in text for text in got)


def test_a_bare_come_is_never_taken_for_a_request() -> None:
    # "come" only counts as the request's verb after an asking opener
    assert variants("Come on, the parcel was due on Friday.", "register", {"day": "Friday"}) == []


def test_we_want_is_worded_in_the_register() -> None:
    got = variants(
        "We moved out on 2 May and the agency kept our bond. We want the bond back.",
        "register",
        {"date": "2 May"},
    )
    assert "We moved out on 2 May and the agency kept our bond. We would like the bond back." in got
    # round five: terse also drops the first "We" ("Moved out on 2 May ...")
    assert "Moved out on 2 May and the agency kept our bond. Want the bond back." in got
    assert all("We want" not in text for text in got)


def test_a_third_party_yes_no_question_is_asked_indirectly() -> None:
    prompt = "Will the courier collect the parcel from my office?"
    assert variants(prompt, "register") == [
        "Could you kindly tell me whether the courier will collect the parcel from my office?",
        "Could you please let me know whether the courier will collect the parcel from my office?",
        "Kindly let me know whether the courier will collect the parcel from my office.",
        "Kindly tell me whether the courier will collect the parcel from my office.",
        "Please let me know whether the courier will collect the parcel from my office.",
    ]
    assert variants(prompt, "paraphrase") == [
        "Can you tell me whether the courier will collect the parcel from my office?",
        "Do you know whether the courier will collect the parcel from my office?",
        "I'd like to know whether the courier will collect the parcel from my office.",
    ]


def test_a_question_joined_to_a_second_one_is_not_asked_indirectly() -> None:
    # "whether the courier can collect it, and how much is it" would lose the second question
    for cls in ("paraphrase", "register"):
        got = variants("Can the courier collect it tomorrow, and how much is it?", cls)
        assert all("whether the courier" not in text for text in got)


def test_a_what_question_keeps_its_condition_after_the_verb() -> None:
    got = variants(
        "What's the cancellation policy if I miss a lesson? I have a lesson on Friday.", "paraphrase"
    )
    assert got == [
        "Can you tell me what the cancellation policy is if I miss a lesson? I have a lesson on Friday.",
        "Do you know what the cancellation policy is if I miss a lesson? I have a lesson on Friday.",
        "I'd like to know what the cancellation policy is if I miss a lesson. I have a lesson on Friday.",
    ]


def test_a_label_is_not_a_request_and_fixed_compounds_keep_their_words() -> None:
    from perturb.generate.perturbations.register import spell, vocabulary

    assert (
        variants("My new water filters leak. Order number WF-6029.", "register", {"order": "WF-6029"}) == []
    )
    assert vocabulary("Are you open on bank holidays? We are on holidays in May.", "us") == (
        "Are you open on bank holidays? We are on vacations in May."
    )
    assert spell("water filters", "uk") == "water filters"


def test_a_lower_case_run_on_is_not_cut_after_a_conjunction() -> None:
    from perturb.generate.perturbations.register import full_sentences

    assert full_sentences("whats the late fee if i return the bike after 6") == (
        "What's the late fee if I return the bike after 6?"
    )
    assert full_sentences("my card expired so i need a new one") == "My card expired so I need a new one."


def test_still_stays_after_the_modal_and_a_long_subject_is_asked_for_by_name() -> None:
    got = variants("The shop has my size wrong. Can that still be changed before Friday?", "paraphrase")
    assert "The shop has my size wrong. Do you know whether that can still be changed before Friday?" in got
    assert all("that still can" not in text for text in got)
    got = variants(
        "What's the total price of the three rooms we reserved for the wedding in June?", "register"
    )
    assert (
        "Could you kindly tell me the total price of the three rooms we reserved for the wedding in June?"
        in got
    )
    assert all(not text.rstrip(".?").endswith(" is") for text in got)


def test_a_second_question_joined_on_is_asked_indirectly_too() -> None:
    got = variants("What documents do we need, and how much will it cost?", "paraphrase")
    assert got == [
        "Can you tell me what documents we need and how much it will cost?",
        "Do you know what documents we need and how much it will cost?",
        "I'd like to know what documents we need and how much it will cost.",
    ]
    got = variants(
        "I'm moving my pension to another provider. What forms do I need and how long does it take?",
        "paraphrase",
    )
    assert (
        "I'm moving my pension to another provider. Could you tell me what forms I need and how long it takes?"
        in got
    )


def test_thx_in_advance_is_a_closing_of_its_own() -> None:
    from perturb.generate.perturbations.register import _CLOSING_RE

    assert _CLOSING_RE.search("Where do I sign? Thx in advance.")


def test_a_lower_case_message_stays_lower_case_when_its_opener_is_dropped() -> None:
    got = variants("can you move my dentist appointment to friday at 3", "register")
    assert "move my dentist appt to friday at 3 pls" in got
    assert all(text == text.lower() for text in got)


def test_a_yes_no_question_with_a_second_question_joined_on() -> None:
    got = variants("Do you hire out ladders for a weekend, and how much is it per day?", "paraphrase")
    assert got == [
        "Can you tell me whether you hire out ladders for a weekend and how much it is per day?",
        "Could you tell me whether you hire out ladders for a weekend and how much it is per day?",
        "I'd like to know whether you hire out ladders for a weekend and how much it is per day.",
    ]
    got = variants("Do you have a van available on Friday, and how much will it cost?", "register")
    assert "Kindly let me know whether you have a van available on Friday and how much it will cost." in got
    # asked indirectly, the second question is never left in question word order
    assert all("how much will it cost" not in text for text in got if "whether" in text)
