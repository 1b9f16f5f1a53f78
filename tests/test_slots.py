"""Protected values: detection, merging, masking and the survival checks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from perturb.generate.slots import (
    find_protected,
    lost_values,
    mask,
    new_values,
    place_kind,
    protected_values,
    segments,
    sentinel,
    unmask,
)


def kinds(text: str, slots: dict[str, str] | None = None) -> list[tuple[str, str]]:
    return [(s.kind, s.text) for s in find_protected(text, slots)]


def test_detects_every_kind_on_a_realistic_request() -> None:
    text = (
        "Hi, change booking BK-48213 to Friday, 3 May 2025 at 7:30pm. Fly me to New Delhi for "
        'under £300 (or $410), email a.b@x.com, see https://ex.com/a?b=1. Ask for "Ocean View" '
        "and ref AB123, 2 adults, two kids. Call +44 20 7946 0958, SW1A 1AA, 15% off, order #4821."
    )
    assert kinds(text, {"day": "Friday"}) == [
        ("id", "BK-48213"),
        ("slot", "Friday"),
        ("date", "3 May 2025"),
        ("time", "7:30pm"),
        ("place", "New Delhi"),
        ("money", "£300"),
        ("money", "$410"),
        ("email", "a.b@x.com"),
        ("url", "https://ex.com/a?b=1"),
        ("quoted", '"Ocean View"'),
        ("id", "AB123"),
        ("number", "2"),
        ("number", "two"),
        ("phone", "+44 20 7946 0958"),
        ("postcode", "SW1A 1AA"),
        ("number", "15%"),
        ("id", "#4821"),
    ]


def test_month_may_only_as_a_month() -> None:
    assert kinds("May I book in May? Not until May 3rd.") == [("month", "May"), ("date", "May 3rd")]


def test_times_do_not_swallow_the_sentence_end() -> None:
    assert kinds("Meet at 7:30pm. Then at 10 AM and 7 p.m. ok") == [
        ("time", "7:30pm"),
        ("time", "10 AM"),
        ("time", "7 p.m."),
    ]


def test_relative_dates_weekdays_lowercase_and_number_words() -> None:
    assert kinds("deliver tomorrow or on friday, Two boxes, ONE bag") == [
        ("date", "tomorrow"),
        ("weekday", "friday"),
        ("number", "Two"),
        ("number", "ONE"),
    ]


def test_slot_occurrences_all_protected_and_merged_with_detections() -> None:
    spans = find_protected("Delhi to Delhi Airport", {"dest": "Delhi Airport", "city": "Delhi"})
    assert [(s.start, s.end, s.kind) for s in spans] == [(0, 5, "slot"), (9, 22, "slot")]


def test_mask_keeps_protected_bytes_and_unmask_restores() -> None:
    text = "Book 2 seats on Friday to Delhi for £300."
    masked, values = mask(text, find_protected(text))
    assert values == ["2", "Friday", "Delhi", "£300"]
    assert "Friday" not in masked and "2" not in masked
    assert masked.startswith("Book \ue000") and masked.endswith("\ue001.")
    assert unmask(masked, values) == text
    # a rewrite of the free text keeps every value
    assert unmask(masked.replace("Book", "Reserve"), values) == text.replace("Book", "Reserve")


def test_sentinels_for_large_indices_round_trip() -> None:
    values = [f"v{i}" for i in range(5000)]
    masked = " ".join(sentinel(i) for i in range(5000))
    assert unmask(masked, values) == " ".join(values)
    assert sentinel(4096) != sentinel(0)


def test_segments_cover_the_text() -> None:
    text = "Pay £5 on Monday"
    segs = segments(text, find_protected(text))
    assert segs == [("Pay ", False), ("£5", True), (" on ", False), ("Monday", True)]


def test_lost_values_counts_occurrences_and_alterations() -> None:
    canonical = "Book 2 rooms for 2 nights on Friday"
    assert lost_values(canonical, {}, "Reserve 2 rooms for 2 nights on Friday") == []
    assert lost_values(canonical, {}, "Reserve 2 rooms for two nights on Friday") == ["2"]
    assert lost_values(canonical, {"day": "Friday"}, "Book 2 rooms for 2 nights on friday") == ["Friday"]


def test_new_values_finds_competing_values() -> None:
    canonical = "Book a flight to Delhi on Friday"
    assert new_values(canonical, "Book a flight to Delhi on Friday. Monday was busy.") == ["Monday"]
    assert new_values(canonical, "Book a flight to Delhi on Friday in London") == ["London"]
    assert new_values(canonical, "Thursday, no wait, Friday", allowed=["Thursday"]) == []
    assert new_values(canonical, "first class, no wait, economy", allowed=["first class"]) == []


def test_protected_values_and_place_kind() -> None:
    assert protected_values("Fly to Paris on Monday, Paris again", {"d": "Monday"}) == ["Paris", "Monday"]
    assert place_kind("Paris") == "city" and place_kind("India") == "country"
    assert place_kind("Nowhere") is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_mask_unmask_identity_and_spans_well_formed(text: str) -> None:
    spans = find_protected(text)
    for a, b in zip(spans, spans[1:], strict=False):
        assert a.end <= b.start
    for s in spans:
        assert text[s.start : s.end] == s.text
    masked, values = mask(text, spans)
    assert unmask(masked, values) == text


def test_text_that_looks_like_a_sentinel_survives_masking() -> None:
    text = "odd \ue000\ue100\ue001 text on Friday"
    masked, values = mask(text, find_protected(text))
    assert unmask(masked, values) == text
