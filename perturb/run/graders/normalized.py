"""The ``normalized`` grader: compared after Unicode NFKC, case folding, collapsing whitespace
and stripping punctuation at both ends."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from perturb.errors import GraderError
from perturb.records import Grader
from perturb.run.graders._common import GradeResult, as_text, short
from perturb.run.graders.spec import GradeContext, GraderSpec

_EDGE_PUNCT = " \t\r\n.,;:!?\"'`()[]{}"
_WS = re.compile(r"\s+")


def normalize_text(value: Any) -> str:
    """NFKC, case-folded, whitespace collapsed, punctuation stripped at both ends."""
    text = unicodedata.normalize("NFKC", as_text(value)).casefold()
    return _WS.sub(" ", text).strip(_EDGE_PUNCT)


def _grade_normalized(expected: Any, output: Any) -> GradeResult:
    want, got = normalize_text(expected), normalize_text(output)
    if want == got:
        return True, None
    return False, f"expected {short(want)} after normalising, got {short(got)}"


def _grade(grader: Grader, expected: Any, output: Any, ctx: GradeContext) -> GradeResult:
    return _grade_normalized(expected, output)


def _check(grader: Grader, expected: Any, ctx: GradeContext) -> None:
    if expected is None:
        raise GraderError("normalized grader: expected is null (expected the value a correct answer equals)")


SPEC = GraderSpec(
    name="normalized",
    summary="equal after NFKC, case folding, whitespace and edge punctuation",
    grade=_grade,
    check=_check,
)
