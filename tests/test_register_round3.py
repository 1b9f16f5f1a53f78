"""Round three of issue #14 for register: lower-case text messages get a register of their
own (full sentences, or texting), "Why?" is asked politely (prompts written here)."""

from __future__ import annotations

from perturb.generate.perturbations._context import SkipGeneration
from perturb.generate.perturbations.register import _texting_tail, full_sentences
from tests.test_unseen_prompts import keyed, task


def test_full_sentences_restore_subject_capitals_punctuation_and_cut_run_ons() -> None:
    cases = {
        "got a fine of 40 euros in rome can i appeal it": "I got a fine of 40 euros in rome. Can I appeal it?",
        "do you stock paint i need about 3 tins": "Do you stock paint? I need about 3 tins.",
        "cancel my order for friday the reference is AB12": "Cancel my order for Friday. The reference is AB12.",
        "hi can i get a haircut": "Hi, can I get a haircut?",
        "my phone bill went up this month why": "My phone bill went up this month. Why?",
        "cant sign in since yesterday": "I can't sign in since yesterday.",
        "whats the fee for a late return": "What's the fee for a late return?",
    }
    for text, want in cases.items():
        assert full_sentences(text) == want


def test_texting_register_ends_a_request_with_pls_and_a_complaint_with_pls_help() -> None:
    assert _texting_tail("need a taxi at 6") == "need a taxi at 6 pls"
    assert _texting_tail("book a table for two") == "book a table for two pls"
    assert _texting_tail("cant sign in since yesterday") == "cant sign in since yesterday pls help"
    # a question, or a message that already says please, is left alone
    assert _texting_tail("is the gym open on sundays") == "is the gym open on sundays"
    assert _texting_tail("pls book a table") == "pls book a table"
    assert _texting_tail("got a fine can i appeal it") == "got a fine can i appeal it"


def texts(prompt: str, slots: dict[str, str]) -> dict[tuple[float, int], str]:
    out = {}
    for level in (0.1, 0.5):
        for index in (0, 1):
            try:
                out[(level, index)] = keyed(task(prompt, slots), "register", level, 0, index).text
            except SkipGeneration:
                continue
    return out


def test_a_lower_case_message_gets_two_different_registers() -> None:
    # (round seven: a lower-case weekday, "since tuesday", is a protected date whose case may
    # not change, so that text is no longer written out; the message here has none)
    got = texts("my router keeps dropping wifi since the update why", {"d": "the update"})
    assert got == {
        (0.1, 0): "My router keeps dropping wifi since the update. Could you please let me know why?",
        (0.1, 1): "My router keeps dropping wifi since the update. Kindly tell me why.",
        (
            0.5,
            0,
        ): "My router keeps dropping wifi since the update. Could you please let me know why?",
        (
            0.5,
            1,
        ): "Hi sir, my router keeps dropping wifi since the update. Please let me know why. Thanks a lot.",
    }


def test_a_complaint_with_nothing_to_reword_becomes_a_text() -> None:
    got = texts("cant open the app after the update", {})
    # the formal register never frames a text as a letter ("Hello, I cannot open the app ..."
    # read as a register mix), and since round six neither does the Indian-English one on a
    # lower-case one-liner (a greeting or closing alone is no register shift): texting is used
    assert got[(0.1, 0)] == "cant open the app after the update pls help"
    assert got[(0.1, 1)] == "cant open the app after the update pls help"


def test_a_lower_case_question_is_asked_in_full() -> None:
    got = texts("is the gym open on bank holidays", {})
    assert got[(0.1, 0)] == "Could you please let me know whether the gym is open on bank holidays?"
    assert got[(0.1, 1)] == "Kindly tell me whether the gym is open on bank holidays."


def test_a_lower_case_command_stays_a_command() -> None:
    got = set(texts("turn the hall light off at 11", {"t": "11"}).values())
    assert got and all(t[0].islower() and not t.endswith(".") for t in got), got
    assert not any(t.startswith(("might", "would you be so kind", "i would be grateful")) for t in got), got


def test_voice_commands_get_a_spoken_formal_opener() -> None:
    got = set(texts("Set a timer for 20 minutes", {"t": "20 minutes"}).values())
    assert got, got
    assert not any(
        t.startswith(("Might I ask", "Would you be so kind", "I would be grateful")) for t in got
    ), got


def test_a_term_naming_the_value_after_it_keeps_its_locale() -> None:
    prompt = "Collect a parcel from 4 Hill Road, postcode LS6 2AB, on Monday."
    slots = {"pc": "LS6 2AB", "d": "Monday"}
    for seed in range(6):
        for index in (0, 1, 2):
            try:
                text = keyed(task(prompt, slots), "register", 0.3, seed, index).text
            except SkipGeneration:
                continue
            assert "zip code" not in text, text


def test_please_could_you_asks_with_a_question_mark() -> None:
    got = set(texts("Can you move my delivery to next Friday?", {"d": "next Friday"}).values())
    assert all(t.endswith("?") for t in got if t.startswith("Please could you")), got


def test_move_becomes_transfer_only_for_money_calls_and_the_like() -> None:
    got = set(texts("Could you move my booking to next Friday?", {"d": "next Friday"}).values())
    assert got and not any("transfer" in t for t in got), got


def test_voice_commands_and_texts_get_no_letter_formulas() -> None:
    for prompt, slots in (
        ("Play some jazz in the kitchen", {}),
        ("turn the volume down to 10", {"v": "10"}),
        ("need a taxi to the airport at 6am", {"t": "6am"}),
        ("is the gym open on bank holidays", {}),
    ):
        for text in texts(prompt, slots).values():
            assert not text.lower().startswith(
                ("request you to", "please do", "i would be grateful", "dear")
            ), text
            assert "I require" not in text and "I would like to request" not in text, text


def test_a_text_asking_for_a_service_is_never_please_give_me() -> None:
    for text in texts("hi can i get a haircut and a shave tomorrow at 4", {"t": "tomorrow at 4"}).values():
        assert "give me" not in text and "I require" not in text, text
