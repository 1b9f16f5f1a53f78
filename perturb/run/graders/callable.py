"""The ``callable`` grader: ``module:function`` called as ``f(output, expected, task)`` returns a
bool or ``(bool, note)``."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

from perturb.errors import GraderError
from perturb.records import Grader
from perturb.run.graders._common import GradeResult, short
from perturb.run.graders.spec import GradeContext, GraderSpec

_CALLABLE_PATTERN = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


def load_callable(spec: str, what: str = "callable grader") -> Callable[..., Any]:
    """Import ``module:function`` (``perturb run`` makes the project directory importable)."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise GraderError(f"{what}: {spec!r} is not 'module:function'")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - any import failure is a misconfiguration
        raise GraderError(
            f"{what}: cannot import module {module_name!r}: {type(exc).__name__}: {exc} "
            "(expected a module importable from the project directory)"
        ) from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise GraderError(f"{what}: module {module_name!r} has no function {attr!r}")
    return fn


def _grade(grader: Grader, expected: Any, output: Any, ctx: GradeContext) -> GradeResult:
    fn = load_callable(grader.function or "")
    result = fn(output, expected, ctx.task)
    if isinstance(result, bool):
        return result, None
    if (
        isinstance(result, tuple)
        and len(result) == 2
        and isinstance(result[0], bool)
        and (result[1] is None or isinstance(result[1], str))
    ):
        return result[0], result[1]
    raise GraderError(
        f"callable grader {grader.function}: returned {short(result)} (expected a bool or (bool, note))"
    )


def _check(grader: Grader, expected: Any, ctx: GradeContext) -> None:
    if not ctx.offline:
        load_callable(grader.function or "")


def _validate(grader: Grader) -> None:
    if not grader.function or not _CALLABLE_PATTERN.match(grader.function):
        raise ValueError(
            "a callable grader needs function as 'module:function' (for example 'graders_mod:check')"
        )


SPEC = GraderSpec(
    name="callable",
    summary="module:function decides",
    grade=_grade,
    check=_check,
    validate=_validate,
    options=frozenset({"function"}),
    blocking=True,
)
