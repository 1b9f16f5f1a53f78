"""The ``json_subset`` grader: the output (parsed as JSON if it is text, also from a fenced
```` ```json ```` block) contains every key/value of ``expected``, recursively; arrays match
element by element and must have the same length."""

from __future__ import annotations

from typing import Any

from perturb.errors import GraderError
from perturb.records import Grader
from perturb.run.graders._common import NOT_JSON, GradeResult, parse_json_output, same, short
from perturb.run.graders.spec import GradeContext, GraderSpec


def _subset(expected: Any, actual: Any, where: str) -> str | None:
    """None if ``expected`` is a recursive subset of ``actual``, else the first mismatch."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"at {where}: expected an object, got {short(actual)}"
        for key, value in expected.items():
            sub = f"{where}.{key}" if where != "$" else key
            if key not in actual:
                return f"missing key {sub}"
            problem = _subset(value, actual[key], sub)
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"at {where}: expected an array, got {short(actual)}"
        if len(expected) != len(actual):
            return f"at {where}: expected {len(expected)} items, got {len(actual)}"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            problem = _subset(want, got, f"{where}.{index}" if where != "$" else str(index))
            if problem:
                return problem
        return None
    if same(expected, actual):
        return None
    return f"at {where}: expected {short(expected)}, got {short(actual)}"


def _grade_json_subset(expected: Any, output: Any) -> GradeResult:
    if not isinstance(expected, dict | list):
        raise GraderError(
            f"json_subset grader: expected must be a JSON object or array, got {short(expected)}"
        )
    actual = parse_json_output(output)
    if actual is NOT_JSON:
        return False, "output is not JSON (nor a ```json block)"
    problem = _subset(expected, actual, "$")
    return (True, None) if problem is None else (False, problem)


def _grade(grader: Grader, expected: Any, output: Any, ctx: GradeContext) -> GradeResult:
    return _grade_json_subset(expected, output)


def _check(grader: Grader, expected: Any, ctx: GradeContext) -> None:
    _grade_json_subset(expected, "{}")


SPEC = GraderSpec(
    name="json_subset", summary="output JSON contains expected, recursively", grade=_grade, check=_check
)
