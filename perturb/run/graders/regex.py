"""The ``regex`` grader: ``expected`` is a Python pattern searched (``re.search``) in the output."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from perturb.errors import GraderError
from perturb.records import Grader
from perturb.run.graders._common import GradeResult, as_text, short
from perturb.run.graders.spec import GradeContext, GraderSpec


@lru_cache(maxsize=512)
def _compile(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise GraderError(f"regex grader: bad pattern {pattern!r}: {exc} (expected a Python regex)") from None


def _grade_regex(expected: Any, output: Any) -> GradeResult:
    if not isinstance(expected, str):
        raise GraderError(f"regex grader: expected must be a pattern string, got {short(expected)}")
    if _compile(expected).search(as_text(output)):
        return True, None
    return False, f"pattern {expected!r} not found"


def _grade(grader: Grader, expected: Any, output: Any, ctx: GradeContext) -> GradeResult:
    return _grade_regex(expected, output)


def _check(grader: Grader, expected: Any, ctx: GradeContext) -> None:
    _grade_regex(expected, "")


SPEC = GraderSpec(name="regex", summary="expected pattern found in the output", grade=_grade, check=_check)
