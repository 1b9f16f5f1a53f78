"""Round ten of issue #14 (self_correction coverage): rules about kinds of value, not wording --
a metric measurement typed onto its number, a UK postcode typed in lower case, common short
first names (never swapped for their own long form), towns of a few more UK areas; and two
grammar fixes: "one" after an article and a measurement is a pronoun ("a 90cm one"), and a
number said "eight..."/"eleven"/"eighteen" takes "an" after a currency sign too ("an £80")."""

from __future__ import annotations

import random

import pytest

from perturb.generate.core import rng_for
from perturb.generate.perturbations import CLASSES, prepare, self_correction
from perturb.generate.perturbations._wrong import wrong_count, wrong_value
from perturb.records import Task


def _task(prompt: str, **slots: str) -> Task:
    return Task(id="x", prompt=prompt, expected="ok", grader="exact", slots=slots)  # type: ignore[arg-type]


def _texts(task: Task, level: float = 0.1, seeds: int = 12) -> set[str]:
    out = set()
    for seed in range(seeds):
        v = CLASSES.get("self_correction").generate(
            prepare(task), level, rng_for(seed, task.id, "self_correction", level, 0, 0), 0
        )
        out.add(v.text)
    return out


def _wrongs(value: str, kind: str = "slot", seeds: int = 30) -> set[str | None]:
    return {wrong_value(value, kind, random.Random(seed)) for seed in range(seeds)}


@pytest.mark.parametrize(
    ("value", "before", "after", "expected"),
    [
        ("90cm", "how much for a ", " one", {"70cm", "80cm"}),  # the same size: never "100cm"
        ("25kg", "a ", " bag of sand", {"15kg", "20kg", "30kg", "35kg"}),
        ("40mm", "a ", " screw", {"20mm", "60mm"}),  # within half of it: never "80mm"
        ("6ft", "a ", " fence panel", {"4ft", "5ft", "7ft", "8ft"}),
        ("4kW", "a ", " heater", {"2kW", "3kW", "5kW", "6kW"}),
        # a decimal measurement slips in its tenths, never in its whole part
        ("2.4m", "the rug is ", " long", {"2.2m", "2.3m", "2.5m", "2.6m"}),
        ("1.7", "a ", " litres of milk", {"1.5", "1.6", "1.8", "1.9"}),
        ("12.5", "a ", " kg bag", {"10.5", "11.5", "13.5", "14.5"}),  # a half: a whole step
        # letters glued to a number that are no unit make a name: refused
        ("4B", "flat ", "", {None}),
        ("5G", "a ", " phone", {None}),
        ("401k", "my ", "", {None}),
        ("3cmx", "a ", "", {None}),
    ],
)
def test_a_metric_measurement_gets_another_of_the_same_unit(
    value: str, before: str, after: str, expected: set[str | None]
) -> None:
    assert {wrong_count(value, random.Random(s), after, before=before) for s in range(30)} == expected


def test_a_measured_item_is_restated_with_its_article_agreeing() -> None:
    task = _task("how much is a 90cm one fitted", width="90cm")
    assert _texts(task) == {
        "how much is a 70cm, no, a 90cm one fitted",
        "how much is an 80cm, no, a 90cm one fitted",
    }


@pytest.mark.parametrize(
    "prompt",
    [
        "how much for a 90cm one",
        "do you have a blue one",
        "I need a 2-seater one",
    ],
)
def test_one_after_an_article_and_a_modifier_is_a_pronoun(prompt: str) -> None:
    assert wrong_count("one", random.Random(0), "", before=prompt[: -len("one")]) is None


def test_one_as_a_count_is_still_corrected() -> None:
    assert wrong_count("one", random.Random(0), " ticket", before="book ") in {"two", "three"}


@pytest.mark.parametrize(
    ("text", "vowel"),
    [
        ("£80", True),
        ("$11", True),
        ("€18", True),
        ("800", True),
        ("8-seat", True),
        ("11,000", True),
        ("18000", True),
        ("11.5", True),
        ("£60", False),
        ("£1", False),
        ("110", False),
        ("118", False),
        ("one", False),
    ],
)
def test_an_before_a_number_said_with_a_vowel_sound(text: str, vowel: bool) -> None:
    assert self_correction._vowel_sound(text) is vowel


def test_the_articles_agree_with_an_amount_in_pounds() -> None:
    task = _task("Buy a £60 voucher for Sam's birthday.", amount="£60")
    assert _texts(task, seeds=30) == {
        "Buy a £40, no, a £60 voucher for Sam's birthday.",
        "Buy an £80, no, a £60 voucher for Sam's birthday.",
    }
    task = _task("We paid an £800 deposit for the kitchen.", amount="£800")
    assert all(
        t.startswith("We paid a £") and t.endswith(", no, an £800 deposit for the kitchen.")
        for t in _texts(task)
    )


def test_a_postcode_typed_in_lower_case_gets_a_district_slip() -> None:
    task = _task("can someone come out today my postcode is le3 9qx", postcode="le3 9qx")
    assert [label for label, _ in self_correction.correctable(prepare(task))] == ["postcode"]
    assert _texts(task) == {
        "can someone come out today my postcode is le2 9qx, no, le3 9qx",
        "can someone come out today my postcode is le4 9qx, no, le3 9qx",
    }


@pytest.mark.parametrize("value", ["le3 9qx", "sw1a 1aa", "m1 1ae"])
def test_the_lower_case_postcode_shape(value: str) -> None:
    assert self_correction._TYPED_POSTCODE_RE.fullmatch(value)


@pytest.mark.parametrize("value", ["le3", "bs7 8lux", "LE3 9QX", "room 12"])
def test_the_lower_case_postcode_shape_refuses_others(value: str) -> None:
    assert not self_correction._TYPED_POSTCODE_RE.fullmatch(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Dave", {"Dan", "Daniel", "Darren"}),  # never "David": the long form of one name
        ("Steve", {"Stuart"}),
        ("Gary", {"Gavin"}),
        ("Dan", {"Dave", "Darren", "David"}),  # never "Daniel"
        ("Sam", {"Sasha"}),  # round eleven: a sound-alike of either sex; never "Samuel" or "Samantha"
    ],
)
def test_short_first_names_get_a_sound_alike_never_their_own_long_form(
    value: str, expected: set[str | None]
) -> None:
    assert _wrongs(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Hove", {"Worthing", "Lewes", "Shoreham"}),
        ("cheltenham", {"stroud", "gloucester", "cirencester", "tewkesbury"}),
        ("Newton Abbot", {"Exeter", "Torquay", "Totnes"}),
    ],
)
def test_declared_towns_of_more_areas_get_a_neighbour(value: str, expected: set[str]) -> None:
    assert _wrongs(value) == expected


@pytest.mark.parametrize(
    ("prompt", "slots"),
    [
        # a product, a car make or a business has no neighbour anyone would say: refused
        ("How much does a pair of Oticon Real hearing aids cost?", {"product": "Oticon Real"}),
        ("Book a wash for the Volvo.", {"car": "Volvo"}),
        ("Is the Asda car wash on Leeds Road open?", {"company": "Asda"}),
        # a relative's age is known to the one telling it
        ("can you visit at home my mum is 91", {"age": "91"}),
    ],
)
def test_values_nobody_misstates_or_without_a_neighbour_are_refused(
    prompt: str, slots: dict[str, str]
) -> None:
    assert self_correction.correctable(prepare(_task(prompt, **slots))) == []


@pytest.mark.parametrize(
    ("value", "after", "before", "expected"),
    [
        ("fifteen", " people", "for ", {"thirteen", "fourteen", "sixteen", "seventeen"}),
        ("twenty", " chairs", "we need ", {"ten", "thirty", "forty"}),
        ("Thirty", " minutes", "", {"Twenty", "Forty", "Fifty"}),
        # part of a longer number: the word alone is not the count
        ("twenty", "-five guests", "for ", {None}),
        ("twenty", " five guests", "for ", {None}),
        ("forty", " thousand pounds", "about ", {None}),
        ("twenty", " chairs", "a hundred and ", {None}),
    ],
)
def test_counts_written_as_teens_and_tens_are_corrected(
    value: str, after: str, before: str, expected: set[str | None]
) -> None:
    assert {wrong_count(value, random.Random(s), after, before=before) for s in range(30)} == expected


def test_a_declared_count_in_words_is_restated_whole() -> None:
    task = _task("We need twenty chairs for the hall.", chairs="twenty chairs")
    assert _texts(task) == {
        "We need ten chairs, no, twenty chairs for the hall.",
        "We need thirty chairs, no, twenty chairs for the hall.",
        "We need thirty chairs, I mean twenty chairs for the hall.",
        "We need forty chairs, no, twenty chairs for the hall.",
    }
