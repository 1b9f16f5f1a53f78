"""The six classes on realistic prompts, their ε measures, the pre-screen, and properties."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from breame.meanings import different_meanings_exist
from breame.terminology import is_american_english_term, is_british_english_term
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perturb.models import PERTURBATION_CLASSES, Task
from perturb.perturbations import (
    REGISTRY,
    SkipGeneration,
    distractor,
    measure_epsilon,
    prepare,
    register,
    self_correction,
    typo,
)
from perturb.perturbations._context import load_data
from perturb.perturbations._text import (
    altered_share,
    inserted_count,
    kendall_distance,
    split_sentences,
    word_change_share,
    words,
)
from perturb.screen import screen_text
from perturb.slots import find_protected, lost_values, places

FLIGHT = Task(
    id="flight-1",
    prompt="Book me a flight to Delhi on Friday, economy class, under £300.",
    expected="ok",
    grader="exact",  # type: ignore[arg-type]
    slots={"destination": "Delhi", "day": "Friday", "budget": "£300"},
)
CHANGE = Task(
    id="change-2",
    prompt="Hi, I need to change my booking BK-48213 to Saturday. Please make sure the seat is "
    "a window seat. My budget is $200.",
    expected="ok",
    grader="exact",  # type: ignore[arg-type]
    slots={"booking": "BK-48213", "day": "Saturday"},
)
SEQUENCE = Task(
    id="seq-3",
    prompt="First cancel my hotel reservation in Paris, then send me a confirmation email.",
    expected="ok",
    grader="exact",  # type: ignore[arg-type]
)
INVOICE = Task(
    id="inv-4", prompt="Please send the invoice to accounts@acme.com.", expected="ok", grader="exact"  # type: ignore[arg-type]
)


def gen(task: Task, cls: str, level: float, seed: int = 0, index: int = 0) -> Any:
    return REGISTRY[cls].generate(prepare(task), level, random.Random(seed), index)


# --------------------------------------------------------------------------- ε measures


def test_epsilon_helpers_against_hand_computed_values() -> None:
    assert word_change_share(["a", "b", "c", "d"], ["a", "x", "c", "d"]) == pytest.approx(0.25)
    assert word_change_share(["a", "b"], ["a", "b", "c", "d"]) == pytest.approx(0.5)
    assert kendall_distance([0, 1, 2]) == 0.0
    assert kendall_distance([0, 2, 1]) == pytest.approx(1 / 3)
    assert kendall_distance([2, 1, 0]) == 1.0
    assert kendall_distance([1, 0, 3, 2]) == pytest.approx(2 / 6)
    assert inserted_count(["a", "b"], ["x", "y", "a", "b", "z"]) == 3
    assert altered_share(["Book", "the", "room"], ["Bok", "the", "ROOM"], [True, True, True]) == pytest.approx(2 / 3)
    assert altered_share(["Book", "I", "room"], ["book", "i", "room"], [True, False, True]) == pytest.approx(1 / 2)


def test_sentence_splitter_keeps_abbreviations() -> None:
    assert split_sentences("Ask Dr. Smith. It is fine! Is it? yes") == [
        "Ask Dr. Smith.", "It is fine!", "Is it? yes",
    ]


# --------------------------------------------------------------------------- paraphrase


def test_paraphrase_rewrites_framing_and_words_keeping_values() -> None:
    seen = set()
    for seed in range(12):
        v = gen(FLIGHT, "paraphrase", 0.3, seed)
        assert v.text != FLIGHT.prompt
        assert lost_values(FLIGHT.prompt, FLIGHT.slots, v.text) == []
        assert v.details["rules"]
        seen.update(v.details["rules"])
        eps = measure_epsilon(FLIGHT, "paraphrase", v.text)
        assert eps > 0
    assert "framing" in seen and "word:under" in seen and "word:book" in seen


def test_paraphrase_question_framing_ends_with_question_mark() -> None:
    for seed in range(30):
        v = gen(FLIGHT, "paraphrase", 0.05, seed)
        if v.text.lower().startswith(("could you", "can you", "would you")):
            assert v.text.endswith("?")
            break
    else:  # pragma: no cover - the loop must find one
        pytest.fail("no question framing in 30 seeds")


def test_paraphrase_measure_is_word_change_share_outside_protected_values() -> None:
    # 9 free tokens: book me a flight to on economy class under -> one replaced
    text = "Book me a flight to Delhi on Friday, economy class, below £300."
    assert measure_epsilon(FLIGHT, "paraphrase", text) == pytest.approx(round(1 - 8 / 9, 4))


def test_paraphrase_skips_when_no_rule_applies() -> None:
    task = Task(id="x", prompt="Delhi, Friday, £300.", expected="ok", grader="exact")  # type: ignore[arg-type]
    with pytest.raises(SkipGeneration, match="no paraphrase rule applies"):
        gen(task, "paraphrase", 0.2)


# --------------------------------------------------------------------------- reorder


def test_reorder_moves_constraints_and_measures_kendall_tau() -> None:
    v = gen(CHANGE, "reorder", 1.0)
    assert v.text.startswith("Hi, ")
    assert sorted(v.details["order"]) == [0, 1, 2]
    assert v.details["order"] != [0, 1, 2]
    assert measure_epsilon(CHANGE, "reorder", v.text) == pytest.approx(round(kendall_distance(v.details["order"]), 4))
    for sentence in ("make sure the seat is a window seat", "My budget is $200", "BK-48213 to Saturday"):
        assert sentence.lower() in v.text.lower()


def test_reorder_clause_level_budget_moves() -> None:
    texts = {gen(FLIGHT, "reorder", 0.5, seed, index).text for seed in range(3) for index in (0, 1)}
    assert "Book me a flight to Delhi on Friday, under £300, economy class." in texts
    assert "Under £300, book me a flight to Delhi on Friday, economy class." in texts


@pytest.mark.parametrize(
    ("prompt", "reason"),
    [
        ("First cancel my hotel in Paris, then send me a confirmation email.", "order carries meaning ('first ... then ...')"),
        ("Cancel the order. After that, refund me.", "order carries meaning ('after that')"),
        ("1. Cancel the order 2. Refund me", "order carries meaning (numbered steps)"),
        ("Please send the invoice to accounts@acme.com.", "fewer than two constraint segments to reorder (one sentence without separable clauses)"),
    ],
)
def test_reorder_refuses_with_recorded_reason(prompt: str, reason: str) -> None:
    task = Task(id="r", prompt=prompt, expected="ok", grader="exact")  # type: ignore[arg-type]
    with pytest.raises(SkipGeneration) as info:
        gen(task, "reorder", 0.3)
    assert info.value.reason == reason


def test_reorder_keeps_back_references_glued() -> None:
    task = Task(id="g", prompt="Book a table for 4 at 7pm. It should be by the window. I am vegetarian.",
                expected="ok", grader="exact")  # type: ignore[arg-type]
    v = gen(task, "reorder", 1.0)
    assert "Book a table for 4 at 7pm. It should be by the window." in v.text
    assert v.text.startswith("I am vegetarian.")


# --------------------------------------------------------------------------- distractor


def test_distractor_pool_holds_no_competing_values() -> None:
    sentences = load_data("distractors")["sentences"]
    assert len(sentences) >= 80
    names = {p for group in places().values() for p in group}
    timeish = re.compile(r"\b(?:week|weekend|month|year|day|morning|evening|night|hour|season|"
                         r"summer|winter|autumn|spring|budget|price|cheap|expensive)s?\b", re.I)
    for s in sentences:
        assert find_protected(s) == [], s
        assert not any(n in s for n in names), s
        assert not timeish.search(s), s
    assert len(distractor.pool()) == len(sentences)


def test_distractor_inserts_pool_sentences_and_measures_inserted_share() -> None:
    v = gen(FLIGHT, "distractor", 0.5, seed=3)
    inserted = [i["text"] for i in v.details["inserted"]]
    assert inserted and all(s in v.text for s in inserted)
    rest = v.text
    for s in inserted:
        rest = rest.replace(s, "")
    assert " ".join(rest.split()) == FLIGHT.prompt
    n_inserted = sum(len(words(s)) for s in inserted)
    expected = round(n_inserted / len(words(FLIGHT.prompt)), 4)
    assert measure_epsilon(FLIGHT, "distractor", v.text) == pytest.approx(expected)
    assert expected >= 0.5


def test_distractor_filters_sentences_sharing_words_with_the_task() -> None:
    task = Task(id="d", prompt="My laptop battery died, please replace the laptop battery.",
                expected="ok", grader="exact")  # type: ignore[arg-type]
    allowed = [s for s, _ in distractor.candidates_for(prepare(task))]
    assert "My laptop battery is almost flat." not in allowed
    assert "My cat keeps walking across the keyboard while I type." in allowed


# --------------------------------------------------------------------------- self_correction


def test_self_correction_final_value_is_canonical_with_several_phrasings() -> None:
    phrasings = set()
    for seed in range(40):
        v = gen(FLIGHT, "self_correction", 0.3, seed)
        c = v.details
        assert c["final"] == FLIGHT.slots[c["slot"]]
        assert c["wrong"] != c["final"]
        assert v.text.index(c["wrong"]) < v.text.rindex(c["final"])
        if c["slot"] == "day":
            assert c["wrong"] in ("Monday", "Tuesday", "Wednesday", "Thursday", "Saturday", "Sunday")
        if c["slot"] == "destination":
            assert c["wrong"] in places()["city"]
        if c["slot"] == "budget":
            assert re.fullmatch(r"£\d+", c["wrong"])
        phrasings.add(c["phrasing"])
        assert screen_text(FLIGHT, v.text, "self_correction", v.details).passed
        assert measure_epsilon(FLIGHT, "self_correction", v.text) == pytest.approx(round(1 / 3, 4))
    assert phrasings == set(self_correction.PHRASINGS)


def test_self_correction_level_one_corrects_every_slot() -> None:
    v = gen(FLIGHT, "self_correction", 1.0, seed=5)
    assert [c["slot"] for c in v.details["corrections"]] == ["destination", "day", "budget"]
    assert measure_epsilon(FLIGHT, "self_correction", v.text) == 1.0


def test_self_correction_skips_without_a_correctable_slot() -> None:
    with pytest.raises(SkipGeneration, match="no slot can be corrected"):
        gen(INVOICE, "self_correction", 0.5)


def test_self_correction_infers_corrections_from_free_text() -> None:
    ctx = prepare(FLIGHT)
    text = "Book me a flight to Delhi on Thursday -- oops, I meant Friday, economy class, under £300."
    assert self_correction.infer_corrections(ctx, text) == [
        {"slot": "day", "wrong": "Thursday", "final": "Friday", "phrasing": "oops, I meant"}
    ]


# --------------------------------------------------------------------------- typo


def test_typo_edits_are_keyboard_slips_outside_protected_values() -> None:
    kb = typo.keyboard()
    assert "s" in kb["a"] and "q" in kb["a"]
    modes = set()
    for seed in range(30):
        v = gen(CHANGE, "typo", 0.3, seed)
        modes.add(v.details["case"])
        assert lost_values(CHANGE.prompt, CHANGE.slots, v.text) == []
        for e in v.details["edits"]:
            assert e["op"] in (*typo.OPS, "random_case")
            if e["op"] == "substitute":
                diff = [(a, b) for a, b in zip(e["word"], e["new"], strict=False) if a != b]
                assert len(diff) == 1 and diff[0][1].lower() in kb[diff[0][0].lower()]
        if v.details["case"] == "lower":
            assert "hi, i need" in v.text and "Saturday" in v.text
    assert modes == set(typo.CASE_MODES)


def test_typo_epsilon_is_altered_share_of_eligible_words() -> None:
    # eligible words of FLIGHT: Book me flight to on economy class under (8; 'a' has one letter)
    text = "Bok me a flight to Delhi on Friday, economy clas, under £300."
    assert measure_epsilon(FLIGHT, "typo", text) == pytest.approx(2 / 8)
    v = gen(FLIGHT, "typo", 0.25, seed=1)
    assert measure_epsilon(FLIGHT, "typo", v.text) >= 0.25


# --------------------------------------------------------------------------- register


def test_register_rotates_over_three_registers() -> None:
    assert {register.register_for("t", i) for i in range(3)} == set(register.REGISTERS)


def test_register_spelling_and_vocabulary_per_locale() -> None:
    us = Task(id="us", prompt="Please book a vacation apartment near the theater, my favorite color is gray.",
              expected="ok", grader="exact")  # type: ignore[arg-type]
    index = next(i for i in range(3) if register.register_for("us", i) == "formal_british")
    v = gen(us, "register", 0.1, index=index)
    assert v.details["register"] == "formal_british"
    for word in ("holiday", "flat", "theatre", "favourite", "colour"):
        assert word in v.text
    uk = Task(id="uk", prompt="Please organise a holiday flat, my favourite colour is blue.",
              expected="ok", grader="exact")  # type: ignore[arg-type]
    index = next(i for i in range(3) if register.register_for("uk", i) == "terse_us")
    v = gen(uk, "register", 0.1, index=index)
    assert v.details["register"] == "terse_us"
    for word in ("organize", "vacation", "apartment", "favorite", "color"):
        assert word in v.text
    v = gen(uk, "register", 1.0, index=index)
    assert re.search(r"\b(?:pls|u|thx|ur)\b", v.text.lower())


def test_register_vocabulary_pairs_are_regional_terms_in_breame() -> None:
    def regional(term: str) -> bool:
        pieces = [term, *term.split(), *(w[:-1] for w in term.split() if w.endswith("s"))]
        return any(
            is_british_english_term(p) or is_american_english_term(p) or different_meanings_exist(p)
            for p in pieces
        )

    for pair in load_data("register")["vocabulary"]:
        assert regional(pair["us"]) or regional(pair["uk"]), pair


def test_register_casual_indian_markers() -> None:
    index = next(i for i in range(3) if register.register_for(CHANGE.id, i) == "casual_indian")
    texts = [gen(CHANGE, "register", 1.0, seed, index).text for seed in range(6)]
    assert any(m in t for t in texts for m in ("Kindly", "needful", "sir", "Pls"))


# --------------------------------------------------------------------------- screen


def test_screen_flags_each_problem() -> None:
    s = screen_text(FLIGHT, FLIGHT.prompt, "paraphrase", {})
    assert s.flags == ["identical to the canonical prompt"] and not s.passed
    s = screen_text(FLIGHT, "Book me a flight to Delhi on Saturday, economy class, under £300.", "paraphrase", {})
    assert s.flags == [
        "protected value 'Friday' (slot day) lost or altered",
        "adds 'Saturday', a value not in the canonical prompt (competes with a slot)",
    ]
    s = screen_text(FLIGHT, "Book me a flight to Delhi on Friday, economy, under £300.", "paraphrase", {},
                    others=[("c-1", "Book me a flight to Delhi on Friday, economy, under £300.")])
    assert s.flags == ["duplicate of c-1"]
    s = screen_text(FLIGHT, "Delhi Friday £300", "paraphrase", {})
    assert s.flags == ["length ratio 0.27 outside 0.6-1.8 for paraphrase"]


def test_screen_self_correction_final_must_be_canonical_and_last() -> None:
    text = "Book me a flight to Delhi on Friday — sorry, I meant Thursday, economy class, under £300."
    details = {"slot": "day", "wrong": "Thursday", "final": "Friday"}
    flags = screen_text(FLIGHT, text, "self_correction", details).flags
    assert "the last value stated is the wrong 'Thursday', expected the canonical 'Friday'" in flags
    good = "Book me a flight to Delhi on Thursday — sorry, I meant Friday, economy class, under £300."
    assert screen_text(FLIGHT, good, "self_correction", details).passed
    bad_final = {"slot": "day", "wrong": "Thursday", "final": "Sunday"}
    assert screen_text(FLIGHT, good, "self_correction", bad_final).flags == [
        "final value of slot 'day' is 'Sunday', expected the canonical 'Friday'"
    ]


# --------------------------------------------------------------------------- properties

_CITY = st.sampled_from(["Delhi", "London", "Paris", "Tokyo", "Mumbai", "Berlin"])
_DAY = st.sampled_from(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"])
_FRAME = st.sampled_from(["", "Please ", "Could you ", "I need to ", "Hi, I'd like to ", "Kindly "])
_VERB = st.sampled_from(["book", "reserve", "change", "cancel", "find", "arrange"])
_THING = st.sampled_from(["a flight", "my booking", "a hotel room", "a table", "the cheapest train ticket"])
_EXTRA = st.sampled_from([
    "economy class", "near the station", "with breakfast included", "for my colleague",
    "and make sure it is refundable", "no later than noon", "in the quiet carriage",
])


@st.composite
def prompts(draw: st.DrawFn) -> Task:
    city, day = draw(_CITY), draw(_DAY)
    amount = f"£{draw(st.integers(20, 2000))}"
    ref = f"BK-{draw(st.integers(10000, 99999))}"
    n = str(draw(st.integers(1, 9)))
    parts = [f"{draw(_FRAME)}{draw(_VERB)} {draw(_THING)} to {city} on {day}"]
    parts += draw(st.lists(_EXTRA, max_size=3, unique=True))
    parts.append(f"under {amount}")
    first = ", ".join(parts) + "."
    second = draw(st.sampled_from([
        f"My reference is {ref}.", f"We are {n} people.", f"Email \"{city} trip\" details to me@ex.com.", "",
    ]))
    prompt = (first[0].upper() + first[1:] + " " + second).strip()
    slots = {"city": city, "day": day, "budget": amount}
    return Task(id=f"p-{draw(st.integers(0, 10**6))}", prompt=prompt, expected="ok", grader="exact",  # type: ignore[arg-type]
                slots=slots)


@pytest.mark.parametrize("cls", PERTURBATION_CLASSES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(task=prompts(), seed=st.integers(0, 2**32), level=st.sampled_from([0.1, 0.2, 0.4, 1.0]))
def test_protected_values_survive_every_class(cls: str, task: Task, seed: int, level: float) -> None:
    try:
        v = REGISTRY[cls].generate(prepare(task), level, random.Random(seed), seed % 3)
    except SkipGeneration:
        assert cls in ("reorder", "paraphrase", "self_correction")
        return
    assert lost_values(task.prompt, task.slots, v.text) == []
    assert v.text != task.prompt
    screen = screen_text(task, v.text, cls, v.details)
    assert not [f for f in screen.flags if "lost" in f or "final value" in f or "wrong" in f], screen.flags
    eps = REGISTRY[cls].measure(prepare(task), v.text, v.details)
    assert eps > 0
    if cls == "self_correction":
        for c in v.details["corrections"]:
            assert c["final"] == task.slots[c["slot"]]
            assert v.text.rindex(c["final"]) > v.text.rindex(c["wrong"])
