"""Round twelve, self_correction: wrong values by KIND of value (a declared town from the
GeoNames gazetteer, a street named "<Name> <Suffix>", a duration of one unit) and the
refusals that go with them. Exact outputs on prompts written for these tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perturb.generate.core import prepare
from perturb.generate.perturbations._wrong import common_word_town, gazetteer_town
from perturb.generate.perturbations.self_correction import correctable
from tests.test_round10_self_correction_coverage import _task, _texts


def test_a_declared_town_is_mixed_up_with_a_nearby_town_of_its_size() -> None:
    task = _task("Can a dog groomer come out to Stockport this Saturday?", place="Stockport")
    assert _texts(task) == {
        "Can a dog groomer come out to Altrincham, I mean Stockport this Saturday?",
        "Can a dog groomer come out to Altrincham, no, Stockport this Saturday?",
        "Can a dog groomer come out to Oldham, no, Stockport this Saturday?",
        "Can a dog groomer come out to Salford, no, Stockport this Saturday?",
    }


def test_a_declared_town_typed_in_lower_case_stays_lower_case() -> None:
    task = _task("need a window cleaner in salford tomorrow if poss", place="salford")
    assert _texts(task) == {
        "need a window cleaner in altrincham, no, salford tomorrow if poss",
        "need a window cleaner in stockport, no, salford tomorrow if poss",
    }


@pytest.mark.parametrize(
    ("prompt", "slots"),
    [
        # the user's own town or street: nobody misstates where they live or work
        ("We're based in Stockport, can you send someone?", {"place": "Stockport"}),
        (
            "I'm on Elm Grove in Salford. Do you collect garden waste?",
            {"street": "Elm Grove", "place": "Salford"},
        ),
        ("Our surgery, Hill Dental on Chapel Street, needs new blinds.", {"street": "Chapel Street"}),
        ("I manage a bakery on Mill Road and the oven is broken.", {"street": "Mill Road"}),
        ("I'm from Salford and need a plumber.", {"place": "Salford"}),
        ("I live in Plano, Texas. Do you deliver?", {"place": "Plano, Texas"}),
        # a town's name as the first word of another name: a branch, a park
        ("Can I return it at the Riverside branch?", {"branch": "Riverside"}),
        ("Is the cafe in Oldham Park open?", {"place": "Oldham"}),
        # a town in lower case inside a message typed with capitals is not that town
        ("Book a van in stockport for Friday, Thanks", {"place": "stockport"}),
        # a rate, not a stretch of time; an age the user knows
        ("The boiler bangs twice a week.", {"how_often": "a week"}),
        ("It costs £40 an hour.", {"rate": "an hour"}),
        ("They service it once a year.", {"how_often": "a year"}),
        ("Are the photos deleted after a year?", {"retention": "a year"}),
        ("I'm 52 and want to start swimming lessons.", {"age": "52"}),
    ],
)
def test_values_nobody_misstates_get_no_correction(prompt: str, slots: dict[str, str]) -> None:
    labels = [label for label, _ in correctable(prepare(_task(prompt, **slots)))]
    assert not set(labels) & set(slots)


def test_a_town_that_is_also_an_english_word_is_read_only_when_declared() -> None:
    assert gazetteer_town("Bath") == "Bath" and common_word_town("Bath")
    assert correctable(prepare(_task("I need a cleaner in Bath."))) == []
    task = _task("I need a cleaner in Bath on Friday.", place="Bath")
    assert _texts(task) == {
        "I need a cleaner in Kingswood, I mean Bath on Friday.",
        "I need a cleaner in Kingswood, no, Bath on Friday.",
        "I need a cleaner in Mangotsfield, no, Bath on Friday.",
        "I need a cleaner in Trowbridge, no, Bath on Friday.",
    }


def test_a_town_of_two_countries_is_left_out() -> None:
    # "Windsor" (Ontario, Berkshire) and "Reading" (England, Pennsylvania): a mix-up from the
    # wrong country would be nonsense, so neither is a gazetteer town
    assert gazetteer_town("Windsor") is None and gazetteer_town("Reading") is None
    task = _task("Can you deliver to Windsor?", place="Windsor")
    assert correctable(prepare(task)) == []


def test_a_street_is_mixed_up_with_a_common_street_of_the_same_suffix() -> None:
    task = _task("Does the bike shop on Bridge Street fix punctures?", street="Bridge Street")
    assert _texts(task) == {
        f"Does the bike shop on {name} Street, no, Bridge Street fix punctures?"
        for name in ("Church", "King", "Main", "Market", "Mill", "Park", "Queen", "Station")
    }
    lower = _task("can you collect the sofa from the depot on mill lane", street="mill lane")
    assert _texts(lower) == {
        f"can you collect the sofa from the depot on {name} lane, no, mill lane"
        for name in ("church", "park", "school", "station")
    }


def test_a_duration_of_one_unit_is_said_first_as_the_next_one() -> None:
    task = _task(
        "The boiler has been banging for a fortnight. Can someone look at it?", how_long="a fortnight"
    )
    assert _texts(task) == {
        "The boiler has been banging for a week, no wait, a fortnight. Can someone look at it?",
        "The boiler has been banging for a week, no, a fortnight. Can someone look at it?",
    }


def test_the_gazetteer_is_compact_attributed_and_never_crosses_a_country() -> None:
    path = Path(__file__).resolve().parent.parent / "perturb" / "generate" / "data" / "towns.json"
    assert path.stat().st_size < 400_000
    data = json.loads(path.read_text("utf-8"))
    assert "GeoNames" in data["_about"] and "CC BY 4.0" in data["_about"]
    assert data["towns"]["GB"]["Stockport"] == ["Salford", "Altrincham", "Oldham"]
    assert "Stockport" not in data["towns"]["US"]
    assert not set(data["common"]) & {
        t for towns in data["towns"].values() for near in towns.values() for t in near
    }


def test_a_street_typed_with_a_short_suffix_keeps_it() -> None:
    task = _task("is the tyre place on mill rd open sunday", street="mill rd")
    assert _texts(task) == {
        f"is the tyre place on {name} rd, no, mill rd open sunday"
        for name in ("church", "green", "london", "park", "station", "victoria")
    }
    dotted = _task("Is the pharmacy on Bridge St. open late?", street="Bridge St.")
    assert "Is the pharmacy on Church St., no, Bridge St. open late?" in _texts(dotted)


@pytest.mark.parametrize(
    ("prompt", "value", "expected"),
    [
        ("Can I rent the van for a night?", "a night", "Can I rent the van for two nights, no, a night?"),
        (
            "The repair takes an hour, can I wait?",
            "an hour",
            "The repair takes half an hour, no, an hour, can I wait?",
        ),
    ],
)
def test_other_durations_of_one_unit(prompt: str, value: str, expected: str) -> None:
    assert expected in _texts(_task(prompt, how_long=value))


def test_a_street_something_was_taken_from_is_not_the_users_own() -> None:
    # only "I'm from", "we're from" say where the user comes from
    task = _task("My car was towed from Harbor Lane.", street="Harbor Lane")
    assert [label for label, _ in correctable(prepare(task))] == ["street"]


def test_a_town_with_its_county_or_state_is_corrected_in_the_town() -> None:
    task = _task("Do you deliver to Plano, Texas?", place="Plano, Texas")
    assert _texts(task) == {
        "Do you deliver to Frisco, I mean Plano, Texas?",
        "Do you deliver to Frisco, no, Plano, Texas?",
        "Do you deliver to Garland, no, Plano, Texas?",
        "Do you deliver to Lewisville, no, Plano, Texas?",
    }
