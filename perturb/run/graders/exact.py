"""The ``exact`` grader: ``output == expected``; text that is JSON (``"42"``) also matches a
non-text ``expected`` (``42``); ``true`` never equals ``1``."""

from __future__ import annotations

from typing import Any

from perturb.errors import GraderError
from perturb.records import Grader
from perturb.run.graders._common import NOT_JSON, GradeResult, parse_json_output, same, short
from perturb.run.graders.spec import GradeContext, GraderSpec


def _grade_exact(expected: Any, output: Any) -> GradeResult:
    if same(output, expected):
        return True, None
    if isinstance(output, str) and not isinstance(expected, str):
        parsed = parse_json_output(output.strip())
        if parsed is not NOT_JSON and same(parsed, expected):
            return True, None
    return False, f"expected {short(expected)}, got {short(output)}"


def _grade(grader: Grader, expected: Any, output: Any, ctx: GradeContext) -> GradeResult:
    return _grade_exact(expected, output)


def _check(grader: Grader, expected: Any, ctx: GradeContext) -> None:
    if expected is None:
        raise GraderError("exact grader: expected is null (expected the value a correct answer equals)")


SPEC = GraderSpec(
    name="exact",
    summary="output == expected (JSON text matches a non-text expected)",
    grade=_grade,
    check=_check,
)
