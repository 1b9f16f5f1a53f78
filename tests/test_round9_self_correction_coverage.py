"""Round nine of issue #14 (self_correction coverage): declared values of more kinds get a
plausible wrong value of the same kind and form (a town or area, a code of letters and digits,
an ordinal, half an hour, a school subject, an instrument, a mobile network, a wine)."""

from __future__ import annotations

import random

import pytest

from perturb.generate.core import rng_for
from perturb.generate.perturbations import CLASSES, prepare, self_correction
from perturb.generate.perturbations._wrong import listed_place, wrong_value
from perturb.records import Task


def _task(prompt: str, **slots: str) -> Task:
    return Task(id="x", prompt=prompt, expected="ok", grader="exact", slots=slots)  # type: ignore[arg-type]


def _wrongs(value: str, kind: str = "slot", seeds: int = 30) -> set[str | None]:
    return {wrong_value(value, kind, random.Random(seed)) for seed in range(seeds)}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # a town or an area of a city, from its own group, in the case it was typed
        ("Clapham", {"Brixton", "Balham", "Streatham"}),
        ("camden", {"islington", "hackney", "highbury"}),
        ("keswick", {"ambleside", "windermere"}),
        ("Aberdeen", {"Dundee", "Inverness"}),
        ("Dublin", {"Cork", "Galway"}),
        ("Isle of Wight", {"Isle of Man"}),
    ],
)
def test_a_declared_town_or_area_gets_a_neighbour(value: str, expected: set[str]) -> None:
    assert _wrongs(value) == expected


def test_a_listed_place_matches_exactly_or_typed_all_lower_case() -> None:
    assert listed_place("camden") == "Camden"
    assert listed_place("Clapham") == "Clapham"
    assert listed_place("CAMDEN") is None  # capitals are a code or a shout, never read as a town
    assert listed_place("Camdentown") is None
    # a place alone in its group has no wrong value (nobody confuses Canada with anywhere)
    assert wrong_value("Canada", "place", random.Random(0)) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("third floor", {"second floor", "fourth floor"}),
        ("First turning", {"Second turning"}),  # never "zeroth"
        ("first aid", {None}),  # a set phrase, no count
        ("second-hand", {None}),
        ("tenth row", {"ninth row"}),  # the list ends at tenth
        ("another half hour", {"another hour"}),
        ("half an hour", {"an hour"}),
        ("a half hour", {"an hour"}),  # the article agrees with "hour"
        ("physics", {"chemistry", "biology"}),
        ("violin", {"viola", "cello"}),
        ("vodafone", {"virgin mobile", "tesco mobile", "sky mobile"}),  # typed lower case: the wrong one too
        ("Malbec", {"Merlot", "Shiraz", "Pinot Noir"}),
        ("Tom", {"Toby"}),  # never Tomas: a long form of the same name
        # a street: another very common name of the same suffix (round twelve, data/streets.json)
        (
            "king street",
            {f"{n} street" for n in "high church main park mill market station queen victoria".split()},
        ),
        (
            "Market Street",
            {f"{n} Street" for n in "High Church Main Park Mill Station King Queen Victoria".split()},
        ),
    ],
)
def test_declared_values_of_new_kinds_get_one_of_the_same_form(value: str, expected: set[str]) -> None:
    assert _wrongs(value) == expected


@pytest.mark.parametrize(
    ("prompt", "slot", "expected"),
    [
        ("Unlock account jdoe42.", "jdoe42", {"jdoe41", "jdoe43"}),
        ("File my VAT return for Q3.", "Q3", {"Q2", "Q4"}),
        ("Print the poster at A3.", "A3", {"A2", "A4"}),
    ],
)
def test_a_declared_code_of_letters_then_digits_is_an_id(prompt: str, slot: str, expected: set[str]) -> None:
    task = _task(prompt, code=slot)
    wrongs = set()
    for seed in range(30):
        v = CLASSES.get("self_correction").generate(
            prepare(task), 0.1, rng_for(seed, task.id, "self_correction", 0.1, 0, 0), 0
        )
        (c,) = v.details["corrections"]
        assert (c["slot"], c["final"]) == ("code", slot)
        assert v.text.index(c["wrong"]) < v.text.rindex(slot)
        wrongs.add(c["wrong"])
    assert wrongs == expected


def test_a_town_declared_in_lower_case_is_corrected_in_lower_case() -> None:
    task = _task("do you deliver to ringwood and whats the minimum order", town="ringwood")
    labels = [label for label, _ in self_correction.correctable(prepare(task))]
    assert labels == ["town"]
    v = CLASSES.get("self_correction").generate(
        prepare(task), 0.1, rng_for(0, task.id, "self_correction", 0.1, 0, 0), 0
    )
    (c,) = v.details["corrections"]
    assert c["wrong"] in ("lymington", "brockenhurst") and c["final"] == "ringwood"
    assert v.text.startswith(f"do you deliver to {c['wrong']}")
    assert v.text.endswith("ringwood and whats the minimum order")


@pytest.mark.parametrize("value", ["jdoe42", "Q3", "A3", "user.smith99"])
def test_the_code_slot_shape_accepts_codes(value: str) -> None:
    assert self_correction._CODE_SLOT_RE.fullmatch(value)


@pytest.mark.parametrize("value", ["mp3", "b12", "covid-19", "ab1", "x", "42"])
def test_the_code_slot_shape_refuses_names_with_a_number(value: str) -> None:
    assert not self_correction._CODE_SLOT_RE.fullmatch(value)


def test_a_street_asked_about_is_corrected() -> None:
    task = _task("Do you have bread at the shop on Market Street?", street="Market Street")
    assert [label for label, _ in self_correction.correctable(prepare(task))] == ["street"]


@pytest.mark.parametrize(
    ("prompt", "slots"),
    [
        # a company, a brand or a product line has no listed neighbour: refused, not invented
        ("Alexa, ask SolarEdge to reset my inverter.", {"company": "SolarEdge"}),
        ("sell all my tesla shares", {"company": "tesla"}),
        # a letter-and-digit code inside a longer slot is not made a code slot by the new rule
        ("Send it to flat 4B, Elm Court.", {"flat": "flat 4B, Elm Court"}),
        # the street of the user's own home or office is never misstated
        ("Please deliver to our office on Market Street.", {"street": "Market Street"}),
        ("can you collect from my house on king street", {"street": "king street"}),
    ],
)
def test_values_without_a_plausible_neighbour_are_refused(prompt: str, slots: dict[str, str]) -> None:
    assert self_correction.correctable(prepare(_task(prompt, **slots))) == []
