"""Round nine of issue #14 (self_correction): one correction in a typed message, values nobody
misstates. Every prompt here is written for the test (none is copied from a benchmark set)."""

from __future__ import annotations

from perturb.generate.perturbations import self_correction
from tests.test_perturbations import _task, gen
from tests.test_unseen_prompts import task, texts


def variants(prompt: str, slots: dict[str, str] | None = None) -> list[str]:
    return sorted(set(texts(task(prompt, slots), "self_correction", seeds=3)))


CHAT = (
    "We rented a kayak for Saturday and paid £45 at the desk. The paddle was cracked when we got it. "
    "Can you refund part of the fee to card ending 4417?"
)
"""A typed chat message of three sentences and 31 words, three correctable values."""


def test_a_chat_message_of_three_sentences_holds_one_correction() -> None:
    t = _task(CHAT, day="Saturday", fee="£45", card="4417")
    for level in (0.1, 0.3, 0.5, 1.0):
        for seed in range(8):
            v = gen(t, "self_correction", level, seed)
            assert len(v.details["corrections"]) == 1, v.text


def test_the_level_chooses_the_phrasing_length() -> None:
    t = _task(CHAT, day="Saturday", fee="£45", card="4417")
    low = {gen(t, "self_correction", 0.1, seed).details["phrasing"] for seed in range(8)}
    high = {gen(t, "self_correction", 0.5, seed).details["phrasing"] for seed in range(8)}
    assert low and not low & self_correction.LONG, low
    assert high <= self_correction.LONG, high


def test_five_short_sentences_are_not_a_long_message() -> None:
    # five sentences but fewer than fifty words: still one correction
    five_short = "Hi. I paid £45. It broke. The paddle cracked. Refund me on Saturday please."
    t = _task(five_short, fee="£45", day="Saturday")
    assert all(len(gen(t, "self_correction", 1.0, seed).details["corrections"]) == 1 for seed in range(8))


def test_the_time_now_is_never_misstated() -> None:
    got = variants(
        "The courier said he'd be here by 3. It's nearly 6 and nothing has arrived. Where is my parcel?",
        {"due": "3", "now": "nearly 6"},
    )
    assert got and all("It's nearly 6 and" in text and "nearly 6," not in text for text in got)
    got = variants(
        "The van was booked for 9 at 12 Mill Lane. It's 10:40 already. Is it still coming?",
        {"time": "9", "now": "10:40", "address": "12 Mill Lane"},
    )
    assert got and all("It's 10:40 already" in text for text in got)
    # a number after "it's" that is no clock time is still correctable
    got = variants(
        "It's 3 boxes in total, collect them on Friday please.", {"boxes": "3 boxes", "day": "Friday"}
    )
    assert any("boxes," in text or "boxes —" in text or "boxes..." in text for text in got), got


def test_a_childs_age_after_a_named_apposition_is_never_misstated() -> None:
    got = variants(
        "My daughter, Ava Brown, is 11 and needs a new pair of football boots. Do you have any in size 4?",
        {"age": "11", "size": "size 4"},
    )
    assert got and all("is 11 and" in text for text in got)
