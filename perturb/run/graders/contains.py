"""The ``contains`` grader: ``expected`` (a string, or every string of a list) occurs in the
output (case-sensitive)."""

from __future__ import annotations

from typing import Any

from perturb.errors import GraderError
from perturb.records import Grader
from perturb.run.graders._common import GradeResult, as_text, short
from perturb.run.graders.spec import GradeContext, GraderSpec


def _grade_contains(expected: Any, output: Any) -> GradeResult:
    needles = [expected] if isinstance(expected, str) else expected
    if not isinstance(needles, list) or not needles or not all(isinstance(n, str) for n in needles):
        raise GraderError(
            f"contains grader: expected must be a string or a non-empty list of strings, "
            f"got {short(expected)}"
        )
    text = as_text(output)
    missing = [n for n in needles if n not in text]
    if not missing:
        return True, None
    return False, "missing " + ", ".join(short(n) for n in missing)


def _grade(grader: Grader, expected: Any, output: Any, ctx: GradeContext) -> GradeResult:
    return _grade_contains(expected, output)


def _check(grader: Grader, expected: Any, ctx: GradeContext) -> None:
    _grade_contains(expected, "")


SPEC = GraderSpec(
    name="contains", summary="expected string(s) occur in the output", grade=_grade, check=_check
)
