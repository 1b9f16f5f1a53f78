"""The six classes on realistic prompts, their ε measures, the pre-screen, and properties."""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from breame.meanings import different_meanings_exist
from breame.terminology import is_american_english_term, is_british_english_term
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perturb.generate.core import rng_for
from perturb.generate.perturbations import (
    CLASSES,
    SkipGeneration,
    class_names,
    distractor,
    measure_epsilon,
    paraphrase,
    prepare,
    register,
    reorder,
    self_correction,
    typo,
)
from perturb.generate.perturbations._context import load_data
from perturb.generate.perturbations._text import (
    altered_share,
    decapitalize_first,
    inserted_count,
    kendall_distance,
    sentence_spans,
    split_sentences,
    word_change_share,
    words,
)
from perturb.generate.perturbations._wrong import wrong_value
from perturb.generate.screen import screen_text
from perturb.generate.slots import find_protected, lost_values, places
from perturb.records import Task
from perturb.tasks import load_tasks

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
    id="inv-4",
    prompt="Please send the invoice to accounts@acme.com.",
    expected="ok",
    grader="exact",  # type: ignore[arg-type]
)


TRAVEL = {t.id: t for t in load_tasks(Path(__file__).resolve().parents[1] / "tasks" / "travel.jsonl").tasks}
"""The shipped example suite: the realistic prompts a reviewer read."""


def gen(task: Task, cls: str, level: float, seed: int = 0, index: int = 0) -> Any:
    return CLASSES.get(cls).generate(prepare(task), level, random.Random(seed), index)


def keyed(task: Task, cls: str, level: float, seed: int = 0, index: int = 0) -> Any:
    """A variant drawn the way ``perturb generate`` draws it (RNG keyed by level too)."""
    return CLASSES.get(cls).generate(
        prepare(task), level, rng_for(seed, task.id, cls, level, index, 0), index
    )


def keyed_texts(task: Task, cls: str, levels: tuple[float, ...], seeds: int) -> list[str]:
    """The texts :func:`keyed` draws over ``levels`` and seeds, skips left out."""
    out = []
    for seed in range(seeds):
        for level in levels:
            try:
                out.append(keyed(task, cls, level, seed).text)
            except SkipGeneration:
                continue
    return out


# --------------------------------------------------------------------------- ε measures


def test_epsilon_helpers_against_hand_computed_values() -> None:
    assert word_change_share(["a", "b", "c", "d"], ["a", "x", "c", "d"]) == pytest.approx(0.25)
    assert word_change_share(["a", "b"], ["a", "b", "c", "d"]) == pytest.approx(0.5)
    assert kendall_distance([0, 1, 2]) == 0.0
    assert kendall_distance([0, 2, 1]) == pytest.approx(1 / 3)
    assert kendall_distance([2, 1, 0]) == 1.0
    assert kendall_distance([1, 0, 3, 2]) == pytest.approx(2 / 6)
    assert inserted_count(["a", "b"], ["x", "y", "a", "b", "z"]) == 3
    assert altered_share(
        ["Book", "the", "room"], ["Bok", "the", "ROOM"], [True, True, True]
    ) == pytest.approx(2 / 3)
    assert altered_share(["Book", "I", "room"], ["book", "i", "room"], [True, False, True]) == pytest.approx(
        1 / 2
    )


def test_sentence_splitter_keeps_abbreviations() -> None:
    assert split_sentences("Ask Dr. Smith. It is fine! Is it? yes") == [
        "Ask Dr. Smith.",
        "It is fine!",
        "Is it? yes",
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
    assert any(r.startswith("framing") for r in seen) and "word:under" in seen
    # "under £300" is "below £300", never "less than £300" right after a noun
    assert "less than" not in " ".join(gen(FLIGHT, "paraphrase", 0.3, s).text for s in range(12))


def test_paraphrase_question_framing_ends_with_question_mark() -> None:
    for seed in range(30):  # (a framing swap alone is trivial: it comes with a second change)
        v = gen(FLIGHT, "paraphrase", 0.3, seed)
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
    # "My budget is $200." is not an identifier and already last: the booking number is one
    change = Task(
        id="change-3",
        prompt=CHANGE.prompt.replace(
            "My budget is $200.", "My budget is $200. My booking number is BK-48213."
        ),
        expected="ok",
        grader="exact",  # type: ignore[arg-type]
        slots=CHANGE.slots,
    )
    v = gen(change, "reorder", 1.0)
    assert v.text.startswith("Hi, ")
    n = len(v.details["segments"])
    assert n >= 3 and sorted(v.details["order"]) == list(range(n))
    assert v.details["order"] != list(range(n))
    # ε = word-weighted Kendall distance: each segment counts as many words as it has
    weights = [len(words(seg)) for seg in v.details["segments"]]
    assert measure_epsilon(change, "reorder", v.text) == pytest.approx(
        round(reorder.weighted_kendall(v.details["order"], weights), 4)
    )
    for sentence in ("make sure the seat is a window seat", "My budget is $200", "BK-48213 to Saturday"):
        assert sentence.lower() in v.text.lower()


def test_reorder_clause_level_budget_moves() -> None:
    texts = set()
    for seed in range(6):
        for index in (0, 1):
            for level in (0.1, 0.5):
                try:
                    texts.add(gen(FLIGHT, "reorder", level, seed, index).text)
                except SkipGeneration:
                    pass
    # "On Friday, book me a flight to Delhi" is not offered: the day may be the booking's
    assert texts == {
        "Book me a flight to Delhi on Friday, under £300, economy class.",
        "Under £300, book me a flight to Delhi on Friday, economy class.",
    }


@pytest.mark.parametrize(
    ("prompt", "reason"),
    [
        (
            "First cancel my hotel in Paris, then send me a confirmation email.",
            "order carries meaning ('first ... then ...')",
        ),
        ("Cancel the order. After that, refund me.", "order carries meaning ('after that')"),
        ("1. Cancel the order 2. Refund me", "order carries meaning (numbered steps)"),
        (
            "Please send the invoice to accounts@acme.com.",
            "fewer than two constraint segments to reorder (one sentence without separable "
            "clauses or modifier phrases)",
        ),
    ],
)
def test_reorder_refuses_with_recorded_reason(prompt: str, reason: str) -> None:
    task = Task(id="r", prompt=prompt, expected="ok", grader="exact")  # type: ignore[arg-type]
    with pytest.raises(SkipGeneration) as info:
        gen(task, "reorder", 0.3)
    assert info.value.reason == reason


def test_reorder_keeps_back_references_glued() -> None:
    task = Task(
        id="g",
        prompt="Book a table for 4 at 7pm. It should be by the window. I am vegetarian.",
        expected="ok",
        grader="exact",
    )  # type: ignore[arg-type]
    v = gen(task, "reorder", 0.1)
    # the sentence that refers back follows its referent; the referent's own phrases may move
    assert re.search(r"[Bb]ook a table (?:for 4|at 7pm)[^.]*\. It should be by the window\.", v.text)
    # a statement that is not a value ("I am vegetarian.") keeps its place among the sentences
    assert v.text.endswith(". It should be by the window. I am vegetarian.")
    texts = {gen(task, "reorder", 0.1, seed).text for seed in range(6)}
    # "I am vegetarian." is a state, not a value statement: it keeps its place; "book" never
    # opens with its time ("At 7pm, book a table" could be the time of the booking)
    assert texts == {"Book a table at 7pm for 4. It should be by the window. I am vegetarian."}
    with pytest.raises(SkipGeneration, match="moves too little for level 0.3"):
        gen(task, "reorder", 0.3)


def test_reorder_fronts_a_place_in_a_wh_question_only_when_capitalised() -> None:
    ask = Task(
        id="q", prompt="How much does it cost to ship a parcel in Dublin?", expected="ok", grader="exact"
    )  # type: ignore[arg-type]
    assert gen(ask, "reorder", 0.3).text == "In Dublin, how much does it cost to ship a parcel?"
    low = Task(
        id="l", prompt="how much does it cost to ship a parcel in dublin", expected="ok", grader="exact"
    )  # type: ignore[arg-type]
    with pytest.raises(SkipGeneration):
        gen(low, "reorder", 0.3)


def test_reorder_never_fronts_until_or_one_of_two_times_before_an_order() -> None:
    until = Task(id="u", prompt="Renew my library books until March 30", expected="ok", grader="exact")  # type: ignore[arg-type]
    with pytest.raises(SkipGeneration):
        gen(until, "reorder", 0.3)
    two = Task(
        id="t",
        prompt="Schedule an interview with Tom Becker on Tuesday at 10 am",
        expected="ok",
        grader="exact",
    )  # type: ignore[arg-type]
    texts = set()
    for lv in (0.1, 0.3, 0.5):
        for seed in range(6):
            try:
                texts.add(gen(two, "reorder", lv, seed).text)
            except SkipGeneration:  # the one swap moves too little for 0.3 and 0.5
                assert lv > 0.1
    assert texts == {"Schedule an interview with Tom Becker at 10 am on Tuesday"}


def test_reorder_after_a_greeting_capitalises_every_moved_sentence() -> None:
    task = Task(
        id="h",
        prompt="Hi, my payslip shows 32 hours but I only worked 18. Can someone check it? My employee ID is E-20931.",
        expected="ok",
        grader="exact",
    )  # type: ignore[arg-type]
    texts = set()
    for lv in (0.1, 0.3, 0.5):
        for seed in range(6):
            try:
                texts.add(gen(task, "reorder", lv, seed).text)
            except SkipGeneration:  # the one move is too large for level 0.1
                assert lv == 0.1
    # the ID never lands between "it" and the payslip it refers to ("... 18. My employee ID is
    # E-20931. Can someone check it?" makes "it" the ID)
    assert texts == {
        "Hi, my employee ID is E-20931. My payslip shows 32 hours but I only worked 18. Can someone check it?"
    }


# --------------------------------------------------------------------------- distractor


def test_distractor_pool_holds_no_competing_values() -> None:
    data = load_data("distractors")
    names = {p for group in places().values() for p in group}
    timeish = re.compile(
        r"\b(?:week|weekend|month|year|day|morning|evening|night|hour|season|"
        r"summer|winter|autumn|spring|budget|price|cheap|expensive)s?\b",
        re.I,
    )
    for key in distractor.POOL_KEYS:
        entries = data[key]
        assert len({text for text, _, _ in distractor.pool(key)}) == len(entries), key
        for s in entries:
            assert find_protected(s) == [], s
            assert not any(n in s for n in names), s
            assert not timeish.search(s), s
            # nothing typed can be read as referring to the user's text ("So," leads a command)
            assert key == "spoken" or not distractor.BACKREF_RE.match(s), s
    # no random background: the old pool's non-sequiturs and stock fragments are gone
    every = {s for key in distractor.POOL_KEYS for s in data[key]}
    for gone in (
        "Kettle's boiling.",
        "Noisy street.",
        "Sorry, I digress.",
        "Hope all is well.",
        "Quick question.",
    ):
        assert gone not in every
    lengths = {len(words(s)) for key in ("opening", "closing", "thanks") for s in data[key]}
    assert set(range(1, 15)) <= lengths  # short and long, so ε can land near any level


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
    # 12 canonical tokens (Book me a flight to Delhi on Friday economy class under 300): 0.5 asks
    # for exactly 6 inserted tokens
    assert n_inserted == 6 and expected == 0.5


def test_distractor_filters_sentences_sharing_words_with_the_task() -> None:
    task = Task(
        id="d",
        prompt="The contact form keeps failing, please fix the form.",
        expected="ok",
        grader="exact",
    )  # type: ignore[arg-type]
    allowed = [s for s, _ in distractor.candidates_for(prepare(task))]
    assert "I've spent far too long trying to find the right contact form." not in allowed
    assert "My partner suggested I message you rather than ring." in allowed


# --------------------------------------------------------------------------- self_correction


def test_self_correction_final_value_is_canonical_with_several_phrasings() -> None:
    phrasings = set()
    for seed, level in [(seed, level) for seed in range(40) for level in (0.1, 0.3, 0.6, 0.9)]:
        v = gen(FLIGHT, "self_correction", level, seed)
        c = v.details
        assert c["final"] == FLIGHT.slots[c["slot"]]
        assert c["wrong"] != c["final"]
        assert v.text.index(c["wrong"]) < v.text.rindex(c["final"])
        if c["slot"] == "day":
            assert c["wrong"] in ("Monday", "Tuesday", "Wednesday", "Thursday", "Saturday", "Sunday")
        if c["slot"] == "destination":
            assert c["wrong"] in places()["city"]
        if c["slot"] == "budget":
            # another amount, or the same amount in another currency
            assert re.fullmatch(r"£\d+", c["wrong"]) or c["wrong"] in ("$300", "€300")
        phrasings.add(c["phrasing"])
        assert screen_text(FLIGHT, v.text, "self_correction", v.details).passed
        # ε = added words / canonical words
        added = len(words(v.text)) - len(words(FLIGHT.prompt))
        assert measure_epsilon(FLIGHT, "self_correction", v.text) == pytest.approx(
            round(added / len(words(FLIGHT.prompt)), 4)
        )
    assert phrasings == set(self_correction.PHRASINGS)


def test_self_correction_level_one_corrects_once_unless_the_message_is_long() -> None:
    # one sentence holds one slip however high the level: two in "Book me a flight to Delhi on
    # Friday, economy class, under £300" read like someone who cannot type
    for seed in range(10):
        v = gen(FLIGHT, "self_correction", 1.0, seed=seed)
        assert len(v.details["corrections"]) == 1, v.text
        assert measure_epsilon(FLIGHT, "self_correction", v.text) == pytest.approx(
            round((len(words(v.text)) - 12) / 12, 4)
        )
    # a chat message of two to four sentences holds one slip too (two read generated)
    chat = _task(
        "Hi, I need to move my delivery to Thursday because I'm away. The order number is 48213 "
        "and the driver should ring before 5 pm.",
        day="Thursday",
        order="48213",
        time="5 pm",
    )
    for seed in range(20):
        assert len(gen(chat, "self_correction", 1.0, seed).details["corrections"]) == 1
    # a long message (five sentences, fifty words or more) may hold two, in sentences that are
    # not next to each other, each with a short phrasing
    sentences = [
        "Hi there, I need to move my delivery to Thursday because I'm away for work all week.",
        "My neighbour has a key but she is out most days.",
        "The order number is 48213 and it is a large fridge.",
        "Someone will need to carry it up two flights of stairs.",
        "Could the driver ring me before 5 pm so I can let him in?",
    ]
    finals = {"day": "Thursday", "order": "48213", "time": "5 pm"}
    long = _task(
        "Hi there, I need to move my delivery to Thursday because I'm away for work all week. "
        "My neighbour has a key but she is out most days. The order number is 48213 and it is a "
        "large fridge. Someone will need to carry it up two flights of stairs. Could the driver "
        "ring me before 5 pm so I can let him in?",
        day="Thursday",
        order="48213",
        time="5 pm",
    )
    pairs = 0
    for seed in range(20):
        v = gen(long, "self_correction", 1.0, seed)
        slots = [c["slot"] for c in v.details["corrections"]]
        assert len(slots) <= 2, v.text
        phrasings = [c["phrasing"] for c in v.details["corrections"]]
        assert len(set(phrasings)) == len(phrasings), v.text  # never the same words twice
        if len(slots) == 2:
            pairs += 1
            assert not set(phrasings) & self_correction.LONG, v.text
            where = {slot: i for i, s in enumerate(sentences) for slot in slots if finals[slot] in s}
            assert abs(where[slots[0]] - where[slots[1]]) >= 2, v.text
    assert pairs


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
    kb = typo.keyboard()  # left and right neighbours on the same row only
    assert kb["a"] == ("s",) and kb["g"] == ("f", "h") and kb["m"] == ("n",)
    modes = set()
    for seed in range(60):
        v = gen(CHANGE, "typo", 0.3, seed)
        modes.add(v.details["case"])
        assert lost_values(CHANGE.prompt, CHANGE.slots, v.text) == []
        for e in v.details["edits"]:
            assert e["op"] in typo.OPS
            if e["op"] == "substitute":
                diff = [(a, b) for a, b in zip(e["word"], e["new"], strict=False) if a != b]
                assert len(diff) == 1 and diff[0][1].lower() in kb[diff[0][0].lower()]
        if v.details["case"] == "lower":  # everything but the protected values
            rest = v.text.replace("BK-48213", "").replace("Saturday", "")
            assert rest == rest.lower() and "Saturday" in v.text and "BK-48213" in v.text
    assert modes == set(typo.CASE_MODES)


def test_typo_epsilon_is_altered_share_of_eligible_words_over_half() -> None:
    # eligible words of FLIGHT: Book me flight to on economy class under (8; 'a' has one letter);
    # level 1.0 stands for a slip on every other word, so ε = share ÷ 0.5
    text = "Bok me a flight to Delhi on Friday, economy clas, under £300."
    assert measure_epsilon(FLIGHT, "typo", text) == pytest.approx(0.5)
    # casing is counted separately: "BOOK" and "Economy" add nothing to ε
    text = "BOOK me a flight to Delhi on Friday, Economy clas, under £300."
    assert measure_epsilon(FLIGHT, "typo", text) == pytest.approx(0.25)
    # a slip on every eligible word is still 1.0
    assert (
        measure_epsilon(FLIGHT, "typo", "Bokk mee a fligth ot Delhi no Friday, ecomony calss, udner £300.")
        == 1.0
    )
    # level 0.5 asks for one slip in four words: two of FLIGHT's eight, ε 0.5
    v = gen(FLIGHT, "typo", 0.5, seed=1)
    assert len(v.details["edits"]) == 2 and measure_epsilon(FLIGHT, "typo", v.text) == 0.5


# --------------------------------------------------------------------------- register


def test_register_rotates_over_three_registers() -> None:
    assert {register.register_for("t", i) for i in range(3)} == set(register.REGISTERS)


def test_register_spelling_and_vocabulary_per_locale() -> None:
    us = Task(
        id="us",
        prompt="Please book a vacation apartment near the theater, my favorite color is gray.",
        expected="ok",
        grader="exact",
    )  # type: ignore[arg-type]
    index = next(i for i in range(3) if register.register_for("us", i) == "formal_british")
    v = gen(us, "register", 0.1, index=index)
    assert v.details["register"] == "formal_british"
    for word in ("holiday", "flat", "theatre", "favourite", "colour"):
        assert word in v.text
    uk = Task(
        id="uk",
        prompt="Please organise a holiday with a hire car, my favourite colour is blue.",
        expected="ok",
        grader="exact",
    )  # type: ignore[arg-type]
    index = next(i for i in range(3) if register.register_for("uk", i) == "terse_us")
    v = gen(uk, "register", 0.1, index=index)
    assert v.details["register"] == "terse_us"
    for word in ("organize", "vacation", "rental car", "favorite", "color"):
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
    s = screen_text(
        FLIGHT, "Book me a flight to Delhi on Saturday, economy class, under £300.", "paraphrase", {}
    )
    assert s.flags == [
        "protected value 'Friday' (slot day) lost or altered",
        "adds 'Saturday', a value not in the canonical prompt (competes with a slot)",
    ]
    s = screen_text(
        FLIGHT,
        "Book me a flight to Delhi on Friday, economy, under £300.",
        "paraphrase",
        {},
        others=[("c-1", "Book me a flight to Delhi on Friday, economy, under £300.")],
    )
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
_EXTRA = st.sampled_from(
    [
        "economy class",
        "near the station",
        "with breakfast included",
        "for my colleague",
        "and make sure it is refundable",
        "no later than noon",
        "in the quiet carriage",
    ]
)


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
    second = draw(
        st.sampled_from(
            [
                f"My reference is {ref}.",
                f"We are {n} people.",
                f'Email "{city} trip" details to me@ex.com.',
                "",
            ]
        )
    )
    prompt = (first[0].upper() + first[1:] + " " + second).strip()
    slots = {"city": city, "day": day, "budget": amount}
    return Task(
        id=f"p-{draw(st.integers(0, 10**6))}",
        prompt=prompt,
        expected="ok",
        grader="exact",  # type: ignore[arg-type]
        slots=slots,
    )


@pytest.mark.parametrize("cls", class_names())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(task=prompts(), seed=st.integers(0, 2**32), level=st.sampled_from([0.1, 0.2, 0.4, 1.0]))
def test_protected_values_survive_every_class(cls: str, task: Task, seed: int, level: float) -> None:
    try:
        v = CLASSES.get(cls).generate(prepare(task), level, random.Random(seed), seed % 3)
    except SkipGeneration:
        assert cls in ("reorder", "paraphrase", "self_correction", "register")
        return
    assert lost_values(task.prompt, task.slots, v.text) == []
    assert v.text != task.prompt
    screen = screen_text(task, v.text, cls, v.details)
    assert not [f for f in screen.flags if "lost" in f or "final value" in f or "wrong" in f], screen.flags
    eps = CLASSES.get(cls).measure(prepare(task), v.text, v.details)
    assert eps > 0
    if cls == "self_correction":
        for c in v.details["corrections"]:
            assert c["final"] == task.slots[c["slot"]]
            assert v.text.rindex(c["final"]) > v.text.rindex(c["wrong"])


# --------------------------------------------------------------------------- travel review findings
# Each test below reproduces a reason a reviewer gave for rejecting rules-generated candidates of
# tasks/travel.jsonl.

_LEVELS = (0.05, 0.15, 0.3)


def _case_shape_ok(word: str) -> bool:
    """lower, Capitalised, CAPS, or Shift held for two letters ("PLease")."""
    letters = "".join(ch for ch in word if ch.isalpha())
    if len(letters) < 2:
        return True
    return (
        letters.islower()
        or letters.isupper()
        or (letters[0].isupper() and letters[1:].islower())
        or (letters[:2].isupper() and letters[2:].islower())
    )


def test_typo_casing_is_never_random_per_letter() -> None:
    for task in TRAVEL.values():
        for level in _LEVELS:
            for seed in range(4):
                v = keyed(task, "typo", level, seed)
                odd = [w for w in words(v.text) if not _case_shape_ok(w)]
                assert odd == [], (task.id, v.text)  # never "bOoK", "pASsenGErs", "i'Ll"


def test_typo_transposition_never_moves_the_first_letter() -> None:
    seen = set()
    for seed in range(200):
        for word in ("Send", "Kindly"):
            new, op = typo.edit_word(word, random.Random(seed)) or ("", "")
            assert new[0] == word[0] and new[1:].islower(), new  # never "Esnd" or "eSnd"
            seen.add(new)
    assert {"Sned", "Sedn", "Kidnly"} <= seen and "Esnd" not in seen
    for task_id in ("travel-011", "travel-025"):
        for seed in range(40):
            v = keyed(TRAVEL[task_id], "typo", 0.3, seed)
            first = words(v.text)[0]
            assert first[0].isupper() or v.details["case"] == "lower", v.text


def test_typo_slips_are_ones_people_make_exact() -> None:
    def slips(word: str) -> set[tuple[str, str] | None]:
        return {typo.edit_word(word, random.Random(seed)) for seed in range(40)}

    # a common misspelling comes first; a contraction loses its apostrophe
    assert slips("receive") == {("recieve", "misspell")}
    assert slips("Tomorrow") == {("Tommorow", "misspell")}
    assert slips("don't") == {("dont", "apostrophe")} and slips("it's") == {("its", "apostrophe")}
    # a three- or four-letter word only gets two letters swapped, never its first
    assert slips("the") == {("teh", "transpose")} and slips("Send") == {
        ("Sned", "transpose"),
        ("Sedn", "transpose"),
    }
    # refused: another word ("we'll" -> "well"), a name-like or coded token, a two-letter word,
    # a swap beside a double letter ("bill" -> "blil", "mum" -> "mmu")
    for word in ("we'll", "I'd", "UK", "BK-2", "a1b2", "my", "bill", "mum", "Book"):
        assert slips(word) == {None}, word
    # longer words: never the first letter, a double only of a consonant, a wrong key only
    # from the same row
    kb = typo.keyboard()
    for new, op in slips("morning") | slips("delivered"):  # type: ignore[misc]
        assert new[0] in "md" and op in {"transpose", "drop", "double", "substitute"}, new
        if op == "double":
            assert not re.search(r"([aeiouy])\1", new), new
        if op == "substitute":
            ((a, b),) = [
                (x, y)
                for x, y in zip("morning" if new[0] == "m" else "delivered", new, strict=True)
                if x != y
            ]
            assert b in kb[a], new  # "mornimg", never "morhing"
    # a wrong key never doubles the letter beside it ("treatment" -> "tteatment")
    assert all(new != "tteatment" for new, _ in slips("treatment"))  # type: ignore[misc]


LONG = Task(
    id="long",
    expected="ok",
    grader="exact",
    prompt="I ordered a standing desk from your Leeds warehouse three weeks ago and it still has not "
    "arrived. The tracking page has said the same thing since Monday. Could someone please check "
    "where it is and tell me when it will actually be delivered?",
    slots={"day": "Monday"},
)


def test_typo_density_stays_realistic_on_a_long_message() -> None:
    # 40 eligible words at level 0.5 would be 20 slips: a message carries at most four, never
    # two side by side, and at most two on words shorter than five letters
    assert typo.generate(prepare(LONG), 0.5, random.Random(1)).text == (
        "I ordered a standing deks from your Leeds warehouse three weeks ago and it still hsa not "
        "arrived. The tracking page has said the same thing since Monday. Could someone please check "
        "wehre it is and tell me when it will actually be delviered?"
    )
    for seed in range(40):
        for level in (0.1, 0.3, 0.5):
            v = typo.generate(prepare(LONG), level, random.Random(seed))
            edits = v.details["edits"]
            assert 1 <= len(edits) <= typo.MAX_SLIPS, v.text
            if v.details["case"] == "sticky_shift":  # "THe" counts as one of the four
                assert len(edits) + len(v.details["recased"]) <= typo.MAX_SLIPS, v.text
            assert sum(len(e["word"]) < typo.SHORT_WORD for e in edits) <= 2, v.text
            assert "Leeds" in v.text and "Monday" in v.text  # a name is never slipped
            toks = [w.lower() for w in words(v.text)]
            hit = [i for i, w in enumerate(words(LONG.prompt)) if w.lower() != toks[i]]
            assert all(b - a > 1 for a, b in zip(hit, hit[1:], strict=False)), v.text


def test_typo_never_slips_the_same_word_twice() -> None:
    task = Task(
        id="her",
        prompt="My daughter needs a bike for her birthday and her favourite colour is purple, so could "
        "you find her something nice in purple before her party next week?",
        expected="ok",
        grader="exact",
    )
    for seed in range(60):
        edits = typo.generate(prepare(task), 0.5, random.Random(seed)).details["edits"]
        slipped = [e["word"].lower() for e in edits]
        assert len(slipped) == len(set(slipped)), edits  # never "hre ... hre"


def test_typo_slip_count_per_level_as_documented() -> None:
    # docs/perturbations.md: 11 eligible words get 1, 2, 3 slips at 0.1, 0.3, 0.5 and 3 at 1.0
    task = Task(
        id="inv",
        prompt="Please send the invoice for last month to my work email today.",
        expected="ok",
        grader="exact",
    )
    got = []
    for level in (0.1, 0.3, 0.5, 1.0):
        v = typo.generate(prepare(task), level, random.Random(0))
        got.append((len(v.details["edits"]), measure_epsilon(task, "typo", v.text)))
    assert got == [(1, 0.1818), (2, 0.3636), (3, 0.5455), (3, 0.5455)]
    six = Task(id="six", prompt="Please send the invoice again today.", expected="ok", grader="exact")
    assert [len(typo.generate(prepare(six), lv, random.Random(0)).details["edits"]) for lv in (0.1, 0.3)] == [
        1,
        1,
    ]


def test_typo_voice_command_gets_a_transcript_not_keyboard_slips() -> None:
    voice = Task(
        id="v",
        prompt="Alexa, book a taxi to the station for 7pm tonight.",
        expected="ok",
        grader="exact",
        slots={"time": "7pm"},
    )
    texts = {typo.generate(prepare(voice), 0.1, random.Random(seed)).text for seed in range(10)}
    assert texts == {
        "Alexa book a taxi to the station for 7pm tonight",
        "alexa book a taxi to the station for 7pm tonight",
    }
    assert measure_epsilon(voice, "typo", "alexa book a taxi to the station for 7pm tonight") == 0.0
    # a transcript adds no slip, so it is no level-0.3 variant
    with pytest.raises(SkipGeneration, match="a voice command is a speech transcript: no typing slips"):
        typo.generate(prepare(voice), 0.3, random.Random(0))
    bare = Task(id="b", prompt="hey google what time is it", expected="ok", grader="exact", slots={})
    with pytest.raises(SkipGeneration, match="nothing a transcript would drop"):
        for seed in range(10):
            typo.generate(prepare(bare), 0.1, random.Random(seed))


def test_typo_always_has_a_keyboard_slip_and_casing_is_counted_separately() -> None:
    for task in TRAVEL.values():
        for level in _LEVELS:
            for seed in range(4):
                v = keyed(task, "typo", level, seed)
                assert v.details["edits"], (task.id, level, v.details)  # never "edits: []"
                assert {e["op"] for e in v.details["edits"]} <= set(typo.OPS)
                assert measure_epsilon(task, "typo", v.text) > 0
    task = TRAVEL["travel-003"]  # eligible: Cancel booking please my conference was called off (8)
    assert measure_epsilon(task, "typo", task.prompt.lower()) == 0.0
    text = "cancel bookng BK-48213 PLEASE, my conference was called off."
    assert measure_epsilon(task, "typo", text) == 0.25  # 1 of 8, ÷ 0.5


def test_distractor_levels_separate_and_land_near_the_level() -> None:
    for task in TRAVEL.values():
        masked = prepare(task).masked
        if distractor.message_kind(masked) != "written" or len(sentence_spans(masked)) < 2:
            continue  # one-line orders get no closing (and voice, lower-case: their own tests)
        n = len(words(task.prompt))
        for index in (0, 1):
            for seed in (0, 1):
                eps = {}
                for level in (0.1, 0.2, 0.5, 1.0):
                    v = keyed(task, "distractor", level, seed, index)
                    eps[level] = measure_epsilon(task, "distractor", v.text)
                    # within half a token per canonical token; below two tokens the shortest
                    # pool sentence (two words) is the nearest the pool allows
                    tol = 0.5 / n if level * n >= 2 else 2 / n - level
                    assert eps[level] == pytest.approx(level, abs=tol + 1e-3), (task.id, level, eps)
                assert eps[0.1] <= eps[0.2] < eps[0.5] < eps[1.0], (task.id, eps)


def test_distractor_never_splits_a_sentence_from_one_that_refers_back() -> None:
    glued = {"travel-029": "BK-63019? It was €135.", "travel-004": "Thursday? Same time if possible."}
    for task_id, pair in glued.items():
        for seed in range(30):
            for level in (0.2, 0.5, 1.0):
                v = keyed(TRAVEL[task_id], "distractor", level, seed)
                assert pair in v.text, v.text


def test_distractor_choices_spread_over_the_suite() -> None:
    used: Counter[str] = Counter()
    for task in TRAVEL.values():
        for level in (0.2, 0.5):
            for item in keyed(task, "distractor", level).details["inserted"]:
                if item["place"] != "greeting":  # three greetings ("Hi,") repeat by design
                    used[item["text"]] += 1
    # a pool of a hundred-odd entries with a purpose: none dominates, many are used
    # (one-line orders take only a polite opener and thanks, so short thanks recur a little more)
    assert used.most_common(1)[0][1] <= 9 and len(used) >= 40, used.most_common(5)


def test_self_correction_makes_one_correction_at_the_default_level() -> None:
    level = CLASSES.get("self_correction").default_level
    for task in TRAVEL.values():
        try:
            v = keyed(task, "self_correction", level)
        except SkipGeneration:
            continue
        assert len(v.details["corrections"]) == 1, (task.id, v.text)


def test_self_correction_never_stacks_corrections_into_a_route() -> None:
    task = TRAVEL[
        "travel-001"
    ]  # "...from London to Delhi on Friday for 2 passengers, economy, under £400 each."
    first_clause = {"origin", "destination", "day", "passengers"}
    for seed in range(30):
        v = keyed(task, "self_correction", 1.0, seed)
        slots = [c["slot"] for c in v.details["corrections"]]
        assert len(slots) == 1 and len(set(slots) & first_clause) <= 1, v.text
        assert not re.search(r"from \w+, I mean London to", v.text)


def test_self_correction_wrong_counts_agree_with_their_noun() -> None:
    ctx_for = {tid: prepare(TRAVEL[tid]) for tid in ("travel-013", "travel-037", "travel-027")}
    for seed in range(40):
        rng = random.Random(seed)
        nights = wrong_value("4 nights", "slot", rng)
        assert nights and re.fullmatch(r"([2-9]|1\d) nights", nights), nights  # never "1 nights"
        passenger = wrong_value("1 passenger", "slot", rng)
        assert passenger and re.fullmatch(r"[2-9] passengers", passenger), passenger
        child = wrong_value("one child", "slot", rng)
        assert child in ("two children", "three children", "four children"), child
        assert wrong_value("2", "number", rng, after=" passengers, economy") in ("3", "4", "5")
    for tid, ctx in ctx_for.items():
        for seed in range(20):
            v = CLASSES.get("self_correction").generate(ctx, 1.0, random.Random(seed), 0)
            assert not re.search(r"\b1 nights|\b1 passengers|\b[02-9] passenger\b", v.text), (tid, v.text)


def test_self_correction_wrong_values_are_plausible() -> None:
    north = set(load_data("regions")["city"]["england_north"])
    for seed in range(40):
        # a city a short trip away: never Honolulu, never Bristol
        assert wrong_value("Manchester", "place", random.Random(seed)) in north - {"Manchester"}
    # "a car at Denver airport" was "at Boston airport, no, Denver airport": no city near
    # Denver is listed, so Denver has no wrong value; nor has a country without a neighbour
    assert wrong_value("Denver", "place", random.Random(0)) is None
    assert wrong_value("Canada", "place", random.Random(0)) is None
    assert wrong_value("Spain", "place", random.Random(0)) == "Portugal"
    london = TRAVEL["travel-001"]
    stated = prepare(london).protected
    for seed in range(40):
        v = keyed(london, "self_correction", 1.0, seed)
        for c in v.details["corrections"]:
            assert c["wrong"] not in stated  # never "from Delhi, I mean London to Delhi"
    # "near Times Square in New York": the city locates a landmark and is not correctable
    labels = [label for label, _ in self_correction.correctable(prepare(TRAVEL["travel-021"]))]
    assert labels == ["day", "nights"]
    # a date range stays a range; a date named with its weekday moves by a week
    for seed in range(30):
        rng = random.Random(seed)
        out = wrong_value("5 October", "date", rng, avoid=("2 October", "5 October"))
        assert out and 2 < int(out.split()[0]) <= 9 and out != "5 October", out
        assert wrong_value("11 September", "date", rng, before="to Thursday ") in (
            "4 September",
            "18 September",
        )


def test_self_correction_prefers_days_dates_and_counts_over_cities() -> None:
    for task_id in ("travel-001", "travel-012", "travel-037", "travel-042"):
        for seed in range(30):
            v = keyed(TRAVEL[task_id], "self_correction", 0.2, seed)
            assert v.details["slot"] not in ("origin", "destination", "city"), (task_id, v.text)


def test_self_correction_leaves_a_value_capitalised_by_its_position_alone() -> None:
    labels = [label for label, _ in self_correction.correctable(prepare(TRAVEL["travel-027"]))]
    assert "adults" not in labels  # "sorry, I meant Two adults" would keep a stray capital
    assert "children" in labels


def test_paraphrase_splits_only_before_a_subject() -> None:
    texts = keyed_texts(TRAVEL["travel-045"], "paraphrase", (0.2, 0.3, 0.4), 40)
    assert texts
    for text in texts:
        assert "cancel and rebook" in text, text  # never "cancel. Rebook?"
    texts = keyed_texts(TRAVEL["travel-014"], "paraphrase", (0.2, 0.3, 0.4), 40)
    assert any("by the airline. I want" in t for t in texts)


def test_paraphrase_up_to_becomes_no_more_than_only_where_it_fits() -> None:
    texts = keyed_texts(TRAVEL["travel-015"], "paraphrase", (0.2, 0.4), 40)
    assert texts and not any(re.search(r"difference (?:no more than|at most)", t) for t in texts)
    texts = keyed_texts(TRAVEL["travel-035"], "paraphrase", (0.2, 0.3, 0.4), 40)
    assert any(re.search(r"pay (?:no more than|at most) \$2,500", t) for t in texts)


def test_paraphrase_framing_stays_on_the_main_request() -> None:
    bad = {
        "travel-023": ("later, please.", "later?"),
        "travel-028": ("claim, please.", "claim?"),
        "travel-003": ("off, please.", "called off?"),
        "travel-024": ("Tuesday, please.", "Tuesday?"),
    }
    asked = set()
    for task_id, endings in bad.items():
        for text in keyed_texts(TRAVEL[task_id], "paraphrase", (0.2, 0.3, 0.4), 40):
            assert not text.endswith(endings), text
            if "? My conference" in text or "? We're flying" in text:
                asked.add(task_id)
    # travel-024's question framing ("Could you add ...? We're flying on Tuesday.") is a framing
    # swap alone (its clause edit overlaps the only other rewrite), so it is now skipped
    assert "travel-003" in asked


def test_paraphrase_changes_more_than_contractions() -> None:
    minor = {"word:what's", "word:what is", "please_to_end", "please_to_front"}
    for task in TRAVEL.values():
        for seed in range(3):
            try:
                v = keyed(task, "paraphrase", 0.2, seed)
            except SkipGeneration:
                continue
            assert set(v.details["rules"]) - minor, (task.id, v.text)
            assert measure_epsilon(task, "paraphrase", v.text) >= 0.08, (task.id, v.text)
    texts = set()
    for seed in range(10):
        try:
            texts.add(keyed(TRAVEL["travel-016"], "paraphrase", 0.2, seed).text)
        except SkipGeneration:
            continue
    assert "What is the checked baggage allowance in premium economy?" not in texts


def _index_of(task_id: str, reg: str) -> int:
    return next(i for i in range(3) if register.register_for(task_id, i) == reg)


def test_register_never_contracts_have_before_to() -> None:
    assert (
        register._contract("Can I move it, or would I have to cancel?")
        == "Can I move it, or would I have to cancel?"
    )
    assert register._contract("I have booked it and I am sure") == "I've booked it and I'm sure"
    assert (
        register._contract("I have 3 bags. Let us know what it is.")
        == "I have 3 bags. Let us know what it is."
    )
    task = TRAVEL["travel-045"]
    for seed in range(30):
        v = keyed(task, "register", 1.0, seed, _index_of(task.id, "terse_us"))
        assert "I've to" not in v.text, v.text


def test_register_greeting_lowercases_the_next_word_unless_it_must_keep_its_capital() -> None:
    for task_id in ("travel-012", "travel-027", "travel-024", "travel-036"):
        task = TRAVEL[task_id]
        for reg in ("formal_british", "casual_indian"):
            for seed in range(20):
                v = keyed(task, "register", 1.0, seed, _index_of(task_id, reg))
                assert not re.search(r", (?:First|Two|Add|Cancel)\b", v.text), v.text
    ctx = prepare(TRAVEL["travel-012"])
    out = register._greeting(
        ctx.masked, "casual_indian", random.Random(1), False, register._capital_keeper(ctx)
    )
    assert re.match(r"(?:Hello|Hi) (?:sir|team)! First cancel", ctx.unmask(out)), out


def test_register_formal_greetings_come_with_formal_phrasing() -> None:
    for task in TRAVEL.values():
        index = _index_of(task.id, "formal_british")
        for seed in range(6):
            v = keyed(task, "register", 1.0, seed, index)
            if v.text.startswith(("Dear Sir or Madam", "Good day", "Dear team")):
                assert "opener" in v.details["changes"] or any(
                    c.startswith("phrase:") for c in v.details["changes"]
                ), v.text
    v = keyed(TRAVEL["travel-029"], "register", 1.0, 0, _index_of("travel-029", "formal_british"))
    assert not v.text.startswith("Dear Sir or Madam, can I get")


def test_register_changes_the_request_not_just_a_greeting_or_closing() -> None:
    frame_only, closings = 0, Counter()
    for task in TRAVEL.values():
        for index in range(3):
            v = keyed(task, "register", 0.2, 0, index)
            if not set(v.details["changes"]) - {"greeting", "closing"}:
                frame_only += 1
            if v.details["register"] == "casual_indian":
                closings["needful" in v.text] += 1
    assert frame_only <= 2  # of 138
    assert closings[True] <= closings[False] / 4  # 13 of 46 said "do the needful" before


# --------------------------------------------------------------------------- review round 3


def test_paraphrase_never_emits_a_trivial_variant() -> None:
    # travel-005's only rewrite was 'booking' -> 'reservation' (ε 0.09 at level 0.2, trivial);
    # since round seven that swap needs a message about a table, room, flight, ...: none applies
    with pytest.raises(SkipGeneration, match="no paraphrase rule applies"):
        keyed(TRAVEL["travel-005"], "paraphrase", 0.2, 0)
    emitted = 0
    for task in TRAVEL.values():
        for seed in range(3):
            try:
                v = keyed(task, "paraphrase", 0.2, seed)
            except SkipGeneration as exc:
                assert "trivial" in exc.reason or "minor" in exc.reason or "no paraphrase" in exc.reason
                continue
            emitted += 1
            eps = measure_epsilon(task, "paraphrase", v.text)
            assert eps >= 0.1, (task.id, eps, v.text)
            major = [r for r in v.details["rules"] if r not in paraphrase.minor_rules()]
            assert len(major) >= 2 or not (major[0] == "framing" or major[0].startswith("word:")), (
                task.id,
                v.details["rules"],
                v.text,
            )
    assert emitted >= 60  # of 138: most tasks still get a real paraphrase


def test_register_changes_the_request_itself_in_every_variant() -> None:
    surface = {"spelling", "contractions", "expand_contractions", "greeting", "closing"}
    for task in TRAVEL.values():
        for index in range(3):
            for seed in range(2):
                try:
                    v = keyed(task, "register", 0.2, seed, index)
                except SkipGeneration as exc:
                    assert "changes the request itself" in exc.reason
                    continue
                minor = register._minor_phrases(v.details["register"])
                assert set(v.details["changes"]) - surface - minor, (task.id, v.details, v.text)
                if v.details["register"] == "casual_indian":
                    assert "expand_contractions" not in v.details["changes"], v.text
    # travel-013 in formal British English was only "just" -> "only" and "budget" -> "with a
    # budget of"
    v = keyed(TRAVEL["travel-013"], "register", 0.2, 0, _index_of("travel-013", "formal_british"))
    assert set(v.details["changes"]) - {"phrase:just", "phrase:budget"} - surface, v.details
    # travel-006 in casual Indian English was "haven't" -> "have not" and nothing else
    v = keyed(TRAVEL["travel-006"], "register", 0.2, 0, _index_of("travel-006", "casual_indian"))
    assert "haven't" in v.text and "have not" not in v.text, v.text


def _greeting_split(prompt: str) -> tuple[str, str]:
    m = re.match(r"((?:Hi|Hello|Hey)(?: there)?[.!] )", prompt)
    return (m.group(1), prompt[m.end() :]) if m else ("", prompt)


def test_distractor_inserts_pool_entries_around_the_message_never_inside_it() -> None:
    # a strict reader found anything between two of the user's sentences unnatural (it splits
    # a request from its reason) and random background a non-sequitur: entries with a purpose
    # go before the first sentence (after a greeting sentence) and after the last
    data = load_data("distractors")
    places = {
        "polite": {"polite", "question_polite", "opening_question"},
        "opening": {"opening", "opening_question"},
        "closing": {"closing", "closing_explained", "closing_question"},
        "thanks": {"thanks"},
        "lead": {"spoken", "lower_lead"},
        "tail": {"lower_tail", "lower_tail_help"},
        "greeting": {"greeting"},
        "filler": {"voice_filler"},
        "aside": {"voice_aside", "voice_aside_question"},
    }
    for task in TRAVEL.values():
        greeting, body = _greeting_split(task.prompt)
        for seed in range(3):
            v = keyed(task, "distractor", 1.0, seed)
            assert v.text.startswith(greeting), v.text
            style = v.details["style"]
            if style == "written":  # after "Hi," the first word is lower-cased
                assert body in v.text or decapitalize_first(body) in v.text, v.text
            for item in v.details["inserted"]:
                assert any(item["text"] in data[key] for key in places[item["place"]]), item
    bare = Task(id="bare", prompt="Cancel BK-12345", expected="ok", grader="exact")  # type: ignore[arg-type]
    for seed in range(30):
        v = gen(bare, "distractor", 3.0, seed)
        assert v.details["style"] == "command" and len(v.details["inserted"]) <= 2, v.text
        assert v.text.endswith("cancel BK-12345"), v.text


def _task(prompt: str, **slots: str) -> Task:
    return Task(id="x", prompt=prompt, expected="ok", grader="exact", slots=slots)  # type: ignore[arg-type]


def test_distractor_exact_outputs_per_message_style() -> None:
    chat = _task("My parcel never arrived. Can you resend it to 4 Elm Road?", address="4 Elm Road")
    assert [keyed(chat, "distractor", level, 0, index).text for level in (0.1, 0.5) for index in (0, 1)] == [
        "My parcel never arrived. Can you resend it to 4 Elm Road? Thanks.",
        "My parcel never arrived. Can you resend it to 4 Elm Road? Cheers.",
        "My parcel never arrived. Can you resend it to 4 Elm Road? Thanks in advance for your help.",
        "Hello, my parcel never arrived. Can you resend it to 4 Elm Road? Happy to answer any questions.",
    ]
    low = _task("need a van for saturday under $90 a day", day="saturday", budget="$90")
    assert [keyed(low, "distractor", level, 0, 0).text for level in (0.1, 0.3, 0.6)] == [
        "need a van for saturday under $90 a day thx",
        "need a van for saturday under $90 a day thanks a lot",
        "need a van for saturday under $90 a day thanks so much in advance",
    ]
    # a short lower-case command may be spoken to an assistant: a lead of one or two words only;
    # a question may get a longer one
    for seed in range(20):
        for level in (0.3, 0.6, 1.0):
            lead = [
                i["text"]
                for i in keyed(low, "distractor", level, seed).details["inserted"]
                if i["place"] == "lead"
            ]
            assert all(len(words(t)) <= 2 for t in lead), lead
    asks = _task("my gas bill went up to 180 pounds this month why", amount="180 pounds")
    leads = {
        i["text"]
        for seed in range(20)
        for i in keyed(asks, "distractor", 0.6, seed).details["inserted"]
        if i["place"] == "lead"
    }
    assert any(len(words(t)) > 2 for t in leads), leads
    voice = _task("Set a timer for 45 seconds", d="45 seconds")
    assert keyed(voice, "distractor", 0.5, 0, 0).text == "Yeah, okay, so set a timer for 45 seconds"


def test_distractor_greetings_thanks_and_questions() -> None:
    # "Hello, I was charged ...": nothing goes before the greeting, so only closings
    hello = _task("Hello, I was charged twice for my membership. Please refund one payment.")
    for level in (0.1, 0.3, 0.5, 1.0):
        for index in (0, 1):
            v = gen(hello, "distractor", level, 0, index)
            assert v.text.startswith(hello.prompt) and {i["place"] for i in v.details["inserted"]} <= {
                "closing",
                "thanks",
            }, v.text
    # a greeting sentence: openings go after it
    hi = _task("Hi there. My son missed school because of a fever. Who do I tell?")
    openings = [gen(hi, "distractor", 1.0, seed).text for seed in range(10)]
    assert all(t.startswith("Hi there. ") and "My son missed school" in t for t in openings)
    assert any(not t.startswith("Hi there. My son") for t in openings), openings
    # a message that already thanks gets no second thanks
    thanked = _task("Please cancel my viewing on the 4th. Thanks.")
    lower_thanked = _task("cancel my viewing on the 4th thanks")
    for level in (0.1, 0.3, 0.5, 1.0):
        for index in (0, 1):
            for task in (thanked, lower_thanked):
                v = gen(task, "distractor", level, 0, index)
                added = " ".join(i["text"] for i in v.details["inserted"])
                assert not re.search(r"thank|thx|cheers|\bty\b|\bta\b", added, re.I), v.text
    # "I couldn't find the answer on your website." only with a question
    # ... only with a one-line question that asks for information: not with a request, a
    # "Could you ...?" request or a message about the user's own case
    data = load_data("distractors")
    only_q = set(data["opening_question"]) | set(data["closing_question"])
    request = _task("Please move my booking to the afternoon slot and send the new confirmation by email.")
    asks_to = _task("Could you move my booking to the afternoon slot?")
    own_case = _task("My booking was moved to the morning without asking me. Why did that happen?")
    for task in (request, asks_to, own_case):
        seen = {i["text"] for s in range(40) for i in gen(task, "distractor", 0.6, s).details["inserted"]}
        assert seen and not seen & only_q, (task.prompt, seen & only_q)
    question = _task("Do you deliver to the islands?")
    seen = {i["text"] for s in range(40) for i in gen(question, "distractor", 1.5, s).details["inserted"]}
    assert seen & only_q


def test_distractor_fits_voice_commands_and_lower_case_messages() -> None:
    voice = Task(
        id="v", prompt="Set a timer for 45 seconds", expected="ok", grader="exact", slots={"d": "45 seconds"}
    )  # type: ignore[arg-type]
    eps = []
    for level in (0.1, 0.5, 1.0):
        v = gen(voice, "distractor", level, 0)
        # a spoken lead-in, then the command in lower case: "Okay, um, set a timer ...",
        # "I'm cooking, so set a timer ...", never "so, set"
        assert v.text.endswith(", set a timer for 45 seconds") or v.text.endswith(
            (" so set a timer for 45 seconds", " and set a timer for 45 seconds")
        )
        assert ", so, " not in v.text and ", and, " not in v.text, v.text
        assert v.text[0].isupper() and "." not in v.text, v.text
        eps.append(measure_epsilon(voice, "distractor", v.text))
    assert eps == sorted(eps) and eps[-1] > eps[0], eps
    low = Task(id="l", prompt="need a van for saturday under $90 a day", expected="ok", grader="exact")  # type: ignore[arg-type]
    for seed in range(10):
        for level in (0.3, 0.5, 1.0):
            v = gen(low, "distractor", level, seed)
            # a lower-case lead before the message and/or a lower-case tail after it, no full stops
            assert "need a van for saturday under $90 a day" in v.text, v.text
            assert v.text[0].islower() and "." not in v.text, v.text
            assert {i["place"] for i in v.details["inserted"]} <= {"lead", "tail"}


def test_distractor_fits_the_kind_of_message() -> None:
    # a voice command with a wake word: a spoken filler or aside right after the wake word,
    # never a typed pleasantry before it or a written sign-off after it
    alexa = _task("Alexa, set a timer for 45 seconds.", d="45 seconds")
    assert [keyed(alexa, "distractor", level, 0, 0).text for level in (0.1, 0.3, 0.5, 1.0)] == [
        "Alexa, um, set a timer for 45 seconds.",
        "Alexa, just quickly, set a timer for 45 seconds.",
        "Alexa, before I forget, set a timer for 45 seconds.",
        "Alexa, er, while I think of it, set a timer for 45 seconds.",
    ]
    for seed in range(20):
        v = gen(alexa, "distractor", 0.5, seed)
        assert v.details["style"] == "voice" and v.text.startswith("Alexa, ") and v.text.endswith("seconds.")
    # a question to the assistant: "quick question,", never "before I forget, how's ...?"
    asks = _task("Hey Google, how's the traffic on the way to work?")
    asides = {
        i["text"] for seed in range(30) for i in gen(asks, "distractor", 0.5, seed).details["inserted"]
    } - set(load_data("distractors")["voice_filler"])
    assert asides and asides <= set(load_data("distractors")["voice_aside_question"]), asides
    # a typed one-line question: a greeting or a polite sentence before it, short thanks after,
    # never a spoken filler ("Um, do you ...")
    q = _task("Do you deliver to the islands?")
    assert [
        keyed(q, "distractor", level, 0, index).text for level in (0.1, 0.3, 0.5) for index in (0, 1)
    ] == [
        "Do you deliver to the islands? Thanks.",
        "Do you deliver to the islands? Cheers.",
        "Hi, do you deliver to the islands? Thanks.",
        "Do you deliver to the islands? Many thanks.",
        "Do you deliver to the islands? Much appreciated, thanks.",
        "Hi there, do you deliver to the islands? Cheers.",
    ]
    spoken = set(load_data("distractors")["spoken"])
    for seed in range(20):
        assert not {i["text"] for i in gen(q, "distractor", 0.5, seed).details["inserted"]} & spoken
    # a question typed without "?" is still typed: a greeting at most, no spoken filler, and no
    # punctuated sentence before or after it
    bare_q = _task("How long until my driver gets here")
    assert [gen(bare_q, "distractor", level, 0).text for level in (0.1, 0.5)] == [
        "Hi, how long until my driver gets here",
        "Hi there, how long until my driver gets here",
    ]
    # a one-sentence order gets no closing ("Happy to explain more." after "Book court 3 ...")
    one = _task("Book court 3 for tennis tomorrow at 7pm.")
    for seed in range(20):
        places = {i["place"] for i in gen(one, "distractor", 1.0, seed).details["inserted"]}
        assert places <= {"polite", "opening", "thanks"}, places
    # a greeting runs only into a function word: not into a bare order or a name
    for prompt in ("Cancel my cleaning on Friday.", "Sarah needs a new appointment. Is Monday free?"):
        for seed in range(20):
            v = gen(_task(prompt), "distractor", 0.2, seed)
            assert not v.text.startswith(("Hi", "Hello")), v.text
    # a follow-up to an earlier message gets nothing before it
    for prompt in (
        "Actually, can you make it the afternoon? The morning no longer works.",
        "Actually, is Monday free?",
    ):
        for seed in range(20):
            v = gen(_task(prompt), "distractor", 1.0, seed)
            assert v.text.startswith("Actually, "), v.text
    # nothing after a message that ends by thanking; "I'd appreciate a refund." is no thanks
    thanked = _task("Can you move my collection to Thursday? Same time. Thanks.")
    for seed in range(20):
        assert gen(thanked, "distractor", 0.5, seed).text.endswith("Same time. Thanks."), seed
    asks = _task("The pastries were stale. I'd appreciate a partial refund.")
    assert any(
        i["place"] == "closing"
        for s in range(20)
        for i in gen(asks, "distractor", 0.5, s).details["inserted"]
    )
    # a short lower-case command gets no "any help appreciated": there is nothing to help with
    timer = _task("set a timer for 25 minutes for the lasagne", d="25 minutes")
    help_tails = set(load_data("distractors")["lower_tail_help"])
    for seed in range(30):
        for level in (0.3, 0.5, 1.0):
            assert (
                not {i["text"] for i in gen(timer, "distractor", level, seed).details["inserted"]}
                & help_tails
            )
    # a wake word without a comma is still a voice command; a bare "Google" is a verb
    assert gen(_task("Alexa set a timer for 10 minutes", d="10 minutes"), "distractor", 0.1, 0).text == (
        "Alexa, um, set a timer for 10 minutes"
    )
    assert distractor.message_kind("Google the nearest pharmacy for me") == "command"
    # a lower-case message stays lower case whatever its final punctuation
    assert distractor.message_kind("can you cancel my order.") == "lower"
    # ... but a message that opens with a slot value ("Sophie came home ...") is typed as written
    sophie = _task("Sophie came home with someone else's coat. Please tell the teacher.", child="Sophie")
    assert distractor.message_kind(prepare(sophie).masked) == "written"
    assert all(gen(sophie, "distractor", 0.5, s).text[0].isupper() for s in range(10))
    # a message that continues a conversation gets nothing that opens one, and a request
    # ("Oh and can you ...?") is no information question
    only_q = set(load_data("distractors")["opening_question"]) | set(
        load_data("distractors")["closing_question"]
    )
    # (round eight: a follow-up gets no offer to explain more either, so one that already
    # thanks has nothing left that fits and is refused)
    with pytest.raises(SkipGeneration):
        gen(_task("Thanks for the quick reply earlier. Can you also add a second bag?"), "distractor", 1.0, 0)
    for prompt in (
        "Following up on my refund from last week. Any news?",
        "Oh and can you add a second bag?",
    ):
        for seed in range(20):
            v = gen(_task(prompt), "distractor", 1.0, seed)
            assert v.text.startswith(prompt), v.text
            assert not {i["text"] for i in v.details["inserted"]} & only_q, v.text
    # nothing after a sign-off
    signed = _task("I need to move my booking to Friday. Can you help? Kind regards.")
    for seed in range(20):
        assert gen(signed, "distractor", 1.0, seed).text.endswith("Can you help? Kind regards."), seed
    # a message of bare orders asks nothing to explain: no "Happy to explain more." after it
    lock = _task("Lock the front door and arm the alarm. I'm leaving for the airport now.")
    for seed in range(30):
        assert "closing" not in {i["place"] for i in gen(lock, "distractor", 1.0, seed).details["inserted"]}
    # "I hope that makes sense." only after three or more sentences of explanation
    explained = set(load_data("distractors")["closing_explained"])
    short = _task("My refund hasn't arrived. Any news?")
    longer = _task(
        "I returned the jacket a fortnight ago. The tracking shows it was delivered. My refund hasn't arrived. Any news?"
    )

    def said(task: Task) -> set[str]:
        return {i["text"] for s in range(60) for i in gen(task, "distractor", 0.5, s).details["inserted"]}

    assert not said(short) & explained and said(longer) & explained
    # no background given as the reason for an unrelated command ("The dog's finally settled, so ...")
    assert not [s for s in spoken if s.endswith(", so") and len(words(s)) > 3]


def test_distractor_never_lands_before_a_sentence_that_refers_back() -> None:
    # "it" in the middle of a sentence refers back as much as "It" at its start
    task = Task(
        id="r",
        prompt="My card was blocked yesterday. Why did you block it? I need to pay rent.",
        expected="ok",
        grader="exact",
    )  # type: ignore[arg-type]
    for seed in range(30):
        v = gen(task, "distractor", 0.5, seed)
        assert "yesterday. Why did you block it?" in v.text, v.text


def test_typo_offers_no_stray_capital_or_caps_lock() -> None:
    # reviewers read "then Book" and "my GATE code" as placed, not slipped
    assert typo.CASE_MODES == ("keep", "lower", "sticky_shift")
    for task in TRAVEL.values():
        for seed in range(6):
            v = keyed(task, "typo", 0.3, seed)
            for r in v.details["recased"]:
                assert v.details["case"] == "lower" or r["new"][:2].isupper() and r["new"][2:].islower(), r


def test_self_correction_one_correction_in_a_short_message() -> None:
    short = _task("Book a haircut with Marco on Saturday at 11", who="Marco", day="Saturday", time="11")
    for seed in range(20):
        assert len(gen(short, "self_correction", 1.0, seed).details["corrections"]) == 1


def test_typo_casing_slips_only_where_plausible() -> None:
    # a lower-case message gets no stray capital ("need a van for Saturday MORNING")
    low = _task("need a van for saturday morning under $90 a day", budget="$90")
    for seed in range(60):
        v = gen(low, "typo", 0.1, seed)
        assert v.details["case"] == "keep" and not re.search(r"[A-Z]", v.text.replace("$90", "")), v.text
    # Shift held too long lands on a sentence's first word only ("HOw much"), never "FOR"
    chat = _task("How much is it for a second driver on the rental for next Saturday?", day="Saturday")
    held = 0
    for seed in range(200):
        v = gen(chat, "typo", 0.1, seed)
        if v.details["case"] == "sticky_shift":
            held += 1
            assert v.details["recased"] == [{"word": "How", "new": "HOw"}], v.details
    assert held
    assert typo._recase("for", "sticky_shift") is None and typo._recase("How", "sticky_shift") == "HOw"


def test_self_correction_leaves_a_place_inside_an_institution_name() -> None:
    uni = _task("Please send my transcript to the University of Toronto.", uni="the University of Toronto")
    with pytest.raises(SkipGeneration):
        gen(uni, "self_correction", 0.3, 0)


# ------------------------------------- self_correction round 3: a wrong value a person could say


def test_self_correction_wrong_values_fit_the_sentence_and_the_calendar() -> None:
    def seen(value: str, kind: str, before: str = "", after: str = "") -> set[str | None]:
        return {wrong_value(value, kind, random.Random(s), before=before, after=after) for s in range(40)}

    # a day of the month stays a day: "payroll on the 35th" was possible
    assert seen("the 25th", "slot", "payroll on ") == {"the 23rd", "the 24th", "the 26th", "the 27th"}
    # a round figure is misremembered at its own roundness, the same size
    assert seen("$450,000", "money") == {"$350,000", "$400,000", "$500,000", "$550,000"}
    assert seen("£2,000", "money") == {"£1,000"} | {"£3,000", "£4,000"}  # never "£2,001"
    assert seen("€950", "money") == {"€850", "€900"}  # never "€1050"
    assert seen("$312", "money") <= {"$302", "$311", "$313", "$321", "$322", "$212"} - {"$212"}
    # a year by one; an age by one; a number naming something by one
    assert seen("2021", "number", "I graduated in ") == {"2020", "2022"}
    assert seen("9", "number", "He's ", " years old") == {"8", "10"}
    assert seen("Year 4", "slot", "My son is in ") == {"Year 3", "Year 5"}
    # a code keeps its structure: the year of a plate moves by one, a hex prefix stays
    assert seen("KX19 ABD", "id") == {"KX18 ABD"}
    assert all(w and w.startswith("0x") and w != "0x80042" for w in seen("0x80042", "id"))
    # weekdays: one or two days away, a school day for a school day, Sunday for Saturday
    assert seen("Monday", "weekday", "missed school on ") == {"Tuesday", "Wednesday"}
    assert seen("Saturday", "weekday", "Book it for ") == {"Sunday"}
    # a range stays a range
    assert seen("Monday", "weekday", "from ", " to Wednesday") == {"Tuesday"}
    assert seen("Wednesday", "weekday", "open from Monday to ") == {"Tuesday", "Thursday", "Friday"}
    # a month: the one next to it
    assert seen("June", "month") == {"May", "July"}
    # times: same half of the day, never midnight
    assert seen("11am", "time") == {"9am", "10am"}
    assert seen("12am", "time") == {None}
    # relative dates follow the tense of the sentence
    assert seen("last week", "slot", "My phone was stolen ") == {"earlier this week"}
    assert seen("today", "date", "I was charged twice ") == {"yesterday"}
    assert seen("tomorrow", "date", "It arrived broken ") == {None}
    assert seen("today", "date", "Can you deliver it ") == {"tomorrow"}
    assert seen("this week", "slot", "Can someone fix it ") == {"next week"}


def test_self_correction_exact_outputs_on_small_prompts() -> None:
    flat = _task("We're moving on 21 June. It's a two-bedroom flat with a piano.", size="two-bedroom")
    got = {gen(flat, "self_correction", 0.3, seed).text for seed in range(30)}
    assert not any(" an one" in t for t in got)  # "It's an one-bedroom" was possible
    assert "We're moving on 21 June. It's a one-bedroom, no wait, a two-bedroom flat with a piano." in got
    slot = _task("Schedule a pickup between 1 and 3 pm on Wednesday.", slot="1 and 3 pm")
    for seed in range(20):
        assert "ands" not in gen(slot, "self_correction", 0.5, seed).text
    euro = _task("Switch me to monthly payments, I'd rather pay €45 a month.", amount="€45")
    assert gen(euro, "self_correction", 0.1, 0).text == (
        "Switch me to monthly payments, I'd rather pay €50, no, €45 a month."
    )
    stolen = _task("My phone was stolen in Leeds last week. What do you need from me?", when="last week")
    assert gen(stolen, "self_correction", 0.3, 0).text == (
        "My phone was stolen in Leeds earlier this week, no, last week. What do you need from me?"
    )


def test_self_correction_short_code_digits_stay_real() -> None:
    assert {wrong_value("NW1 6XE", "id", random.Random(s)) for s in range(20)} == {"NW2 6XE"}  # never "NW0"


def test_self_correction_inside_a_multi_word_slot_and_a_short_question() -> None:
    # "to 19 Harbour Lane, Cork, oops, that's wrong, I meant 17 Harbour Lane, Cork" was a
    # garbled comma chain: the wrong value stops at the comma that ends the corrected part
    move = _task("I'm moving on 28 November to 17 Harbour Lane, Cork.", address="17 Harbour Lane, Cork")
    for seed in range(20):
        v = gen(move, "self_correction", 0.5, seed)
        for c in v.details["corrections"]:
            assert "," not in c["wrong"], v.text
    # "Is Sophie, sorry, my mistake, I meant Sofia available?" split the question: a short
    # phrase inside it
    ask = _task("My budget is around €300 for the trim. Is Marco available?", who="Marco")
    for seed in range(20):
        v = gen(ask, "self_correction", 0.5, seed)
        assert v.details["phrasing"] in ("no", "i_mean", "no_wait"), v.text
    # a thousands comma is not a list comma
    cost = _task("It cost ¥8,500 and arrived broken.", cost="¥8,500")
    for seed in range(20):
        assert re.fullmatch(r"¥\d,\d00", gen(cost, "self_correction", 0.3, seed).details["wrong"])


def test_self_correction_ranges_small_counts_and_spelling_variants() -> None:
    def seen(value: str, kind: str, avoid: tuple[str, ...] = ()) -> set[str | None]:
        return {wrong_value(value, kind, random.Random(s), avoid=avoid) for s in range(40)}

    # "between 4 and 4 pm" and "from 12 to 12 August" were possible
    assert seen("between 2 and 4 pm", "slot") == {"between 1 and 4 pm", "between 3 and 4 pm"}
    assert all(w and 12 < int(w.split()[0]) for w in seen("15 August", "date", ("12", "15 August")))
    # a small count is a count, not a round figure: "a size 10" is never "a size 15"; a size
    # moves in even steps (after round twelve: "size 11" is no dress size)
    assert seen("size 10", "slot") == {"size 8", "size 12"}
    assert seen("8 people", "slot") == {"6 people", "7 people", "9 people", "10 people"}
    # a spelling variant is a typo fix, not another person
    assert "Ana Schmidt" not in seen("Anna Schmidt", "slot")


def test_self_correction_inside_a_noun_phrase_uses_a_short_phrase() -> None:
    # "Send a 2 kg, sorry, my mistake, I meant a 3 kg box" splits the noun phrase
    box = _task("Send a 3 kg box to Vienna, the cheapest option please.", weight="3 kg")
    for seed in range(20):
        v = gen(box, "self_correction", 0.5, seed)
        assert v.details["phrasing"] in ("no", "i_mean", "no_wait"), v.text
    # a value that ends its phrase keeps every phrasing
    seen = {
        gen(_task("Send it to me on Friday.", day="Friday"), "self_correction", 1.0, s).details["phrasing"]
        for s in range(30)
    }
    assert "my_mistake" in seen or "oops" in seen
    assert "Sophie" not in {wrong_value("Sofia", "slot", random.Random(s)) for s in range(40)}


def test_self_correction_never_misstates_a_family_fact() -> None:
    kid = _task("Hi, my daughter Lena is 8 and wants to start cello.", age="8")
    with pytest.raises(SkipGeneration):
        gen(kid, "self_correction", 0.3, 0)
