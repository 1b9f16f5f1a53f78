"""Graders: is a trial's output accepted for the task's ``expected`` value?

:func:`grade` is the one entry point: ``grade(grader, expected, output, task_context)``
returns ``(passed, note)`` where ``note`` says why, when there is something to say (the
first mismatching key, the missing substring, ...). A grader that cannot work at all
(a callable that does not import, a bad pattern, an ``expected`` of the wrong type) raises
:class:`~perturb.errors.GraderError`; :func:`check_grader` finds those before a run starts.

Every grader is one module of this package exporting ``SPEC = GraderSpec(...)``
(``exact``, ``normalized``, ``contains``, ``regex``, ``json_subset``, ``numeric``, ``callable``,
``llm_judge``: each module's docstring says what it accepts); :data:`GRADERS` is built from
them and from the ``perturb.graders`` entry points, so a third party adds a grader without
editing perturb (docs/extending.md).

Every grader honours ``path`` (``"booking.total"``, ``"items.0.id"``): the output is parsed
as JSON and only that value is graded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from perturb.plugins import Registry
from perturb.records import Grader
from perturb.run.graders._common import NOT_JSON, GradeResult, parse_json_output, walk_path
from perturb.run.graders.normalized import normalize_text
from perturb.run.graders.spec import GradeContext, GraderSpec

if TYPE_CHECKING:
    from perturb.run.graders.llm_judge import LLMJudge

GRADERS: Registry[GraderSpec] = Registry(
    "grader",
    "perturb.graders",
    GraderSpec,
    tuple(
        f"perturb.run.graders.{name}"
        for name in (
            "exact",
            "normalized",
            "contains",
            "regex",
            "json_subset",
            "numeric",
            "callable",
            "llm_judge",
        )
    ),
)
"""Grader name -> its spec: built-ins, then plugins (entry-point group ``perturb.graders``)."""

__all__ = [
    "GRADERS",
    "GradeContext",
    "GradeResult",
    "GraderSpec",
    "check_grader",
    "grade",
    "grade_async",
    "normalize_text",
    "parse_json_output",
]


def _at_path(grader: Grader, output: Any) -> tuple[bool, Any]:
    """``(True, the graded value)``, or ``(False, note)`` when ``path`` cannot be read."""
    if not grader.path:
        return True, output
    parsed = parse_json_output(output)
    if parsed is NOT_JSON:
        return False, f"output is not JSON, so path {grader.path!r} cannot be read"
    found, value = walk_path(parsed, grader.path)
    if not found:
        return False, f"path {grader.path!r} not found in the output"
    return True, value


def grade(
    grader: Grader,
    expected: Any,
    output: Any,
    task_context: dict[str, Any] | None = None,
    *,
    judge: LLMJudge | None = None,
) -> GradeResult:
    """Grade one output; ``(passed, note)``. Raises :class:`GraderError` when misconfigured.

    ``task_context`` is what a callable grader or the judge sees about the task (prompt,
    ids, slots, metadata). ``llm_judge`` needs ``judge`` (from
    :mod:`perturb.run.graders.llm_judge`); the async runner uses :func:`grade_async` instead so
    the judge call does not block.
    """
    spec = GRADERS.get(grader.type)
    ok, value = _at_path(grader, output)
    if not ok:
        return False, value
    return spec.grade(grader, expected, value, GradeContext(task_context or {}, judge))


async def grade_async(
    grader: Grader,
    expected: Any,
    output: Any,
    task_context: dict[str, Any] | None = None,
    *,
    judge: LLMJudge | None = None,
) -> GradeResult:
    """:func:`grade`, with graders that call a service (the LLM judge) awaited."""
    spec = GRADERS.get(grader.type)
    if spec.grade_async is None:
        return grade(grader, expected, output, task_context, judge=judge)
    ok, value = _at_path(grader, output)
    if not ok:
        return False, value
    return await spec.grade_async(grader, expected, value, GradeContext(task_context or {}, judge))


def check_grader(
    grader: Grader, expected: Any, *, judge: LLMJudge | None = None, offline: bool = False
) -> None:
    """Raise :class:`GraderError` if this grader cannot grade anything: ``expected`` of the
    wrong kind, a bad pattern; unless ``offline``, also a callable that does not import or a
    judge that is not configured (checked before a run)."""
    spec = GRADERS.get(grader.type)
    if spec.check is not None:
        spec.check(grader, expected, GradeContext({}, judge, offline))
