"""The ``numeric`` grader: ``|output - expected| <= tolerance`` (default 0, plus 1e-9 relative
slack for float rounding); the output is a number or a numeric string (``"1,234.5"``)."""

from __future__ import annotations

import math
from typing import Any

from perturb.errors import GraderError
from perturb.records import Grader
from perturb.run.graders._common import GradeResult, short
from perturb.run.graders.spec import GradeContext, GraderSpec


def _to_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        text = value.strip().replace(",", "").replace("_", "")
        try:
            number = float(text)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _grade_numeric(grader: Grader, expected: Any, output: Any) -> GradeResult:
    want = _to_number(expected)
    if want is None or isinstance(expected, str):
        raise GraderError(f"numeric grader: expected must be a number, got {short(expected)}")
    got = _to_number(output)
    if got is None:
        return False, f"output {short(output)} is not a number"
    tolerance = grader.tolerance or 0.0
    slack = 1e-9 * max(1.0, abs(want))
    if abs(got - want) <= tolerance + slack:
        return True, None
    return False, f"expected {expected} ± {tolerance:g}, got {got:g}"


def _grade(grader: Grader, expected: Any, output: Any, ctx: GradeContext) -> GradeResult:
    return _grade_numeric(grader, expected, output)


def _check(grader: Grader, expected: Any, ctx: GradeContext) -> None:
    _grade_numeric(grader, expected, 0)


SPEC = GraderSpec(
    name="numeric",
    summary="|output - expected| <= tolerance",
    grade=_grade,
    check=_check,
    options=frozenset({"tolerance"}),
)
