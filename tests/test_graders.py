"""Each grader with exact outcomes and notes (perturb.run.graders.grade)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from perturb.errors import GraderError
from perturb.records import Grader
from perturb.run.graders import check_grader, grade, normalize_text
from perturb.run.graders.llm_judge import PROMPT_SHA256, LLMJudge, parse_verdict
from perturb.testing.chat import Reply


def g(kind: str, **kw: object) -> Grader:
    return Grader.model_validate({"type": kind, **kw})


# ------------------------------------------------------------------ exact


@pytest.mark.parametrize(
    ("expected", "output", "passed"),
    [
        ("Paris", "Paris", True),
        ("Paris", "paris", False),
        ("Paris", "Paris ", False),
        (42, 42, True),
        (42, 42.0, True),
        (42, "42", True),  # JSON text equal to a non-text expected value
        (42, " 42\n", True),
        ("42", 42, False),  # expected text, got a number
        (True, 1, False),  # JSON true is not 1
        (1, True, False),
        ({"a": [1, 2]}, {"a": [1, 2]}, True),
        ({"a": [1, 2]}, '{"a": [1, 2]}', True),
        ({"a": [1, 2]}, {"a": [2, 1]}, False),
        ([True], [1], False),
    ],
)
def test_exact(expected: object, output: object, passed: bool) -> None:
    assert grade(g("exact"), expected, output)[0] is passed


def test_exact_note_names_both_values() -> None:
    assert grade(g("exact"), "Paris", "London") == (False, "expected 'Paris', got 'London'")


# ------------------------------------------------------------------ normalized


def test_normalize_text() -> None:
    assert normalize_text("  The  Answer:\tPARIS!! ") == "the answer: paris"
    assert normalize_text("\uff30aris.") == "paris"  # full-width P under NFKC


@pytest.mark.parametrize(
    ("expected", "output", "passed"),
    [
        ("Paris", "  paris. ", True),
        ("Paris", '"PARIS"', True),
        ("New York", "new   york", True),
        ("New York", "NewYork", False),
        ("Paris", "Paris, France", False),
        (42, " 42.", True),
    ],
)
def test_normalized(expected: object, output: object, passed: bool) -> None:
    assert grade(g("normalized"), expected, output)[0] is passed


def test_normalized_note() -> None:
    assert grade(g("normalized"), "Paris", "Rome!") == (
        False,
        "expected 'paris' after normalising, got 'rome'",
    )


# ------------------------------------------------------------------ contains


def test_contains_single_and_list() -> None:
    assert grade(g("contains"), "Friday", "Booked for Friday at 9") == (True, None)
    assert grade(g("contains"), "friday", "Booked for Friday") == (False, "missing 'friday'")
    assert grade(g("contains"), ["Paris", "Friday", "9am"], "Paris on Friday") == (False, "missing '9am'")
    assert grade(g("contains"), ["Paris", "Friday"], "Paris on Friday") == (True, None)
    # non-text output is searched in its JSON text
    assert grade(g("contains"), '"city": "Paris"', {"city": "Paris"}) == (True, None)


def test_contains_misconfigured() -> None:
    with pytest.raises(GraderError, match="contains grader: expected must be a string"):
        grade(g("contains"), 5, "5")
    with pytest.raises(GraderError, match="non-empty list of strings"):
        check_grader(g("contains"), [])


# ------------------------------------------------------------------ regex


def test_regex() -> None:
    assert grade(g("regex"), r"\bEUR\s?\d+(\.\d\d)?\b", "Total: EUR 120.50") == (True, None)
    assert grade(g("regex"), r"^\d+$", "12a") == (False, "pattern '^\\\\d+$' not found")
    assert grade(g("regex"), r"^\d+$", 123) == (True, None)


def test_regex_bad_pattern_is_grader_error() -> None:
    with pytest.raises(GraderError, match=r"regex grader: bad pattern '\(unclosed'"):
        check_grader(g("regex"), "(unclosed")


# ------------------------------------------------------------------ json_subset


def test_json_subset_recursive() -> None:
    expected = {"booking": {"city": "Paris", "nights": 2}, "tags": ["a", {"b": 1}]}
    output = {
        "booking": {"city": "Paris", "nights": 2, "hotel": "X"},
        "tags": ["a", {"b": 1, "c": 2}],
        "extra": True,
    }
    assert grade(g("json_subset"), expected, output) == (True, None)


@pytest.mark.parametrize(
    ("output", "note"),
    [
        ({"booking": {"city": "Paris"}}, "missing key booking.nights"),
        ({"booking": {"city": "Rome", "nights": 2}}, "at booking.city: expected 'Paris', got 'Rome'"),
        ({"booking": ["Paris"]}, 'at booking: expected an object, got ["Paris"]'),
        ({"booking": {"city": "Paris", "nights": True}}, "at booking.nights: expected 2, got true"),
        ("not json at all", "output is not JSON (nor a ```json block)"),
    ],
)
def test_json_subset_mismatch_notes(output: object, note: str) -> None:
    expected = {"booking": {"city": "Paris", "nights": 2}}
    assert grade(g("json_subset"), expected, output) == (False, note)


def test_json_subset_arrays_match_elementwise() -> None:
    assert grade(g("json_subset"), [1, 2], [1, 2, 3]) == (False, "at $: expected 2 items, got 3")
    assert grade(g("json_subset"), {"xs": [{"id": 1}]}, {"xs": [{"id": 2}]}) == (
        False,
        "at xs.0.id: expected 1, got 2",
    )


def test_json_subset_parses_text_and_fenced_block() -> None:
    expected = {"city": "Paris"}
    assert grade(g("json_subset"), expected, '{"city": "Paris", "n": 1}') == (True, None)
    fenced = 'Sure! Here it is:\n```json\n{"city": "Paris"}\n```\nAnything else?'
    assert grade(g("json_subset"), expected, fenced) == (True, None)
    plain_fence = 'Result:\n```\n{"city": "Rome"}\n```'
    assert grade(g("json_subset"), expected, plain_fence) == (False, "at city: expected 'Paris', got 'Rome'")


# ------------------------------------------------------------------ numeric


@pytest.mark.parametrize(
    ("tolerance", "output", "passed"),
    [
        (None, 42, True),
        (None, 42.0000001, False),
        (0.1, 42.1, True),  # boundary: 42.1 - 42 = 0.10000000000000142 in floats
        (0.1, 41.9, True),
        (0.1, 42.11, False),
        (0.5, "42.4", True),
        (0.5, " 1,042.4 ", False),
        (0, "42", True),
        (0, "forty-two", False),
        (0, True, False),
    ],
)
def test_numeric(tolerance: float | None, output: object, passed: bool) -> None:
    grader = g("numeric") if tolerance is None else g("numeric", tolerance=tolerance)
    assert grade(grader, 42, output)[0] is passed


def test_numeric_notes_and_path() -> None:
    assert grade(g("numeric", tolerance=0.5), 120, 125) == (False, "expected 120 ± 0.5, got 125")
    assert grade(g("numeric"), 42, "forty-two") == (False, "output 'forty-two' is not a number")
    grader = g("numeric", tolerance=0.01, path="booking.total")
    assert grade(grader, 99.99, '{"booking": {"total": "99.995"}}') == (True, None)
    assert grade(grader, 99.99, {"booking": {}}) == (False, "path 'booking.total' not found in the output")
    assert grade(grader, 99.99, "total 99.99") == (
        False,
        "output is not JSON, so path 'booking.total' cannot be read",
    )
    assert grade(g("exact", path="items.1.id"), "b", {"items": [{"id": "a"}, {"id": "b"}]}) == (True, None)
    with pytest.raises(GraderError, match="numeric grader: expected must be a number"):
        check_grader(g("numeric"), "42")


# ------------------------------------------------------------------ callable


@pytest.fixture
def grader_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = "grader_mod_t5"
    (tmp_path / f"{name}.py").write_text(
        "def even(output, expected, task):\n"
        "    return int(output) % 2 == 0\n"
        "def with_note(output, expected, task):\n"
        "    ok = output == expected\n"
        "    return ok, None if ok else f\"{task['task_id']}: {output!r} != {expected!r}\"\n"
        "def bad(output, expected, task):\n"
        "    return 'yes'\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def test_callable_bool_and_tuple(grader_module: str) -> None:
    assert grade(g("callable", function=f"{grader_module}:even"), None, "4") == (True, None)
    assert grade(g("callable", function=f"{grader_module}:even"), None, 3) == (False, None)
    ctx = {"task_id": "t9"}
    assert grade(g("callable", function=f"{grader_module}:with_note"), "a", "b", ctx) == (
        False,
        "t9: 'b' != 'a'",
    )


def test_callable_misconfigured(grader_module: str) -> None:
    with pytest.raises(GraderError, match=r"returned 'yes' \(expected a bool or \(bool, note\)\)"):
        grade(g("callable", function=f"{grader_module}:bad"), None, 1)
    with pytest.raises(GraderError, match="has no function 'nope'"):
        check_grader(g("callable", function=f"{grader_module}:nope"), None)
    with pytest.raises(GraderError, match="cannot import module 'no_such_mod_t5'"):
        check_grader(g("callable", function="no_such_mod_t5:f"), None)


# ------------------------------------------------------------------ llm_judge


def test_llm_judge_without_judge_is_grader_error() -> None:
    grader = g("llm_judge", rubric="mentions Paris")
    with pytest.raises(GraderError, match="no judge configured"):
        check_grader(grader, "Paris")
    with pytest.raises(GraderError, match="no judge configured"):
        grade(grader, "Paris", "Paris")


def test_parse_verdict() -> None:
    assert parse_verdict('{"pass": true, "reason": "ok"}') == (True, "ok")
    assert parse_verdict('```json\n{"pass": false, "reason": "no city"}\n```') == (False, "no city")
    with pytest.raises(GraderError, match="the judge did not answer"):
        parse_verdict('{"pass": "yes"}')


def test_llm_judge_through_openai(fake_openai) -> None:  # type: ignore[no-untyped-def]
    srv = fake_openai(
        script=[
            Reply(status=429, headers={"Retry-After": "0.05"}),
            Reply(content='{"pass": true, "reason": "names Paris"}'),
            Reply(content='{"pass": false, "reason": "names Rome"}'),
        ]
    )
    judge = LLMJudge(model="judge-1", api_key="sk-test-judge", base_url=srv.base_url)
    grader = g("llm_judge", rubric="The answer names the capital of France.")
    ctx = {"prompt": "What is the capital of France?"}
    assert grade(grader, "Paris", "It is Paris.", ctx, judge=judge) == (True, "names Paris")
    assert grade(grader, "Paris", "Rome", ctx, judge=judge) == (False, "names Rome")
    assert len(srv.requests) == 3
    body = srv.requests[1]
    assert body["model"] == "judge-1"
    assert body["temperature"] == 0
    text = body["messages"][0]["content"]
    assert "The answer names the capital of France." in text
    assert "What is the capital of France?" in text
    assert "It is Paris." in text
    assert judge.describe()["prompt_sha256"] == PROMPT_SHA256
    assert judge.describe()["model"] == "judge-1"
