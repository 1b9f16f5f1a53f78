"""Graders: is a trial's output accepted for the task's ``expected`` value?

:func:`grade` is the one entry point: ``grade(grader, expected, output, task_context)``
returns ``(passed, note)`` where ``note`` says why, when there is something to say (the
first mismatching key, the missing substring, ...). A grader that cannot work at all
(a callable that does not import, a bad pattern, an ``expected`` of the wrong type) raises
:class:`~perturb.errors.GraderError`; :func:`check_grader` finds those before a run starts.

Graders (``Grader.type``):

* ``exact`` -- ``output == expected``. Text that is JSON (``"42"``) also matches a non-text
  ``expected`` (``42``). ``true`` never equals ``1``.
* ``normalized`` -- compared after Unicode NFKC, case folding, collapsing whitespace and
  stripping punctuation at both ends.
* ``contains`` -- ``expected`` (a string, or every string of a list) occurs in the output
  (case-sensitive).
* ``regex`` -- ``expected`` is a Python pattern searched (``re.search``) in the output.
* ``json_subset`` -- the output (parsed as JSON if it is text, also from a fenced
  ```` ```json ```` block) contains every key/value of ``expected``, recursively; arrays match
  element by element and must have the same length.
* ``numeric`` -- ``|output - expected| <= tolerance`` (default 0, plus 1e-9 relative slack for
  float rounding); the output is a number or a numeric string (``"1,234.5"`` is accepted).
* ``callable`` -- ``module:function`` called as ``f(output, expected, task)`` returns a bool
  or ``(bool, note)``.
* ``llm_judge`` -- a model decides with the grader's ``rubric`` (see :mod:`perturb.run.graders.judge`).

Every grader honours ``path`` (``"booking.total"``, ``"items.0.id"``): the output is parsed
as JSON and only that value is graded.
"""

from __future__ import annotations

import importlib
import json
import math
import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from perturb.errors import GraderError
from perturb.records import Grader

if TYPE_CHECKING:
    from perturb.run.graders.judge import LLMJudge

GradeResult = tuple[bool, str | None]

_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n(.*?)```", re.DOTALL)
_EDGE_PUNCT = " \t\r\n.,;:!?\"'`()[]{}"
_WS = re.compile(r"\s+")
_NOT_JSON = object()


def _short(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = repr(text) if isinstance(value, str) else text
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def parse_json_output(output: Any) -> Any:
    """The output as JSON: non-text values as they are; text parsed as a whole, else the
    first fenced ```` ```json ```` (or plain ```` ``` ````) block. ``_NOT_JSON`` if neither."""
    if not isinstance(output, str):
        return output
    try:
        return json.loads(output)
    except ValueError:
        pass
    for match in _FENCE.finditer(output):
        try:
            return json.loads(match.group(1))
        except ValueError:
            continue
    return _NOT_JSON


def _walk_path(value: Any, path: str) -> tuple[bool, Any]:
    current = value
    for part in path.split("."):
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.lstrip("-").isdigit():
            index = int(part)
            if not -len(current) <= index < len(current):
                return False, None
            current = current[index]
        else:
            return False, None
    return True, current


def _same(a: Any, b: Any) -> bool:
    """JSON equality where ``true`` is not ``1`` (Python says it is)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _grade_exact(expected: Any, output: Any) -> GradeResult:
    if _same(output, expected):
        return True, None
    if isinstance(output, str) and not isinstance(expected, str):
        parsed = parse_json_output(output.strip())
        if parsed is not _NOT_JSON and _same(parsed, expected):
            return True, None
    return False, f"expected {_short(expected)}, got {_short(output)}"


def normalize_text(value: Any) -> str:
    """NFKC, case-folded, whitespace collapsed, punctuation stripped at both ends."""
    text = unicodedata.normalize("NFKC", _as_text(value)).casefold()
    return _WS.sub(" ", text).strip(_EDGE_PUNCT)


def _grade_normalized(expected: Any, output: Any) -> GradeResult:
    want, got = normalize_text(expected), normalize_text(output)
    if want == got:
        return True, None
    return False, f"expected {_short(want)} after normalising, got {_short(got)}"


def _grade_contains(expected: Any, output: Any) -> GradeResult:
    needles = [expected] if isinstance(expected, str) else expected
    if not isinstance(needles, list) or not needles or not all(isinstance(n, str) for n in needles):
        raise GraderError(
            f"contains grader: expected must be a string or a non-empty list of strings, "
            f"got {_short(expected)}"
        )
    text = _as_text(output)
    missing = [n for n in needles if n not in text]
    if not missing:
        return True, None
    return False, "missing " + ", ".join(_short(n) for n in missing)


@lru_cache(maxsize=512)
def _compile(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise GraderError(
            f"regex grader: bad pattern {pattern!r}: {exc} (expected a Python regex)"
        ) from None


def _grade_regex(expected: Any, output: Any) -> GradeResult:
    if not isinstance(expected, str):
        raise GraderError(f"regex grader: expected must be a pattern string, got {_short(expected)}")
    if _compile(expected).search(_as_text(output)):
        return True, None
    return False, f"pattern {expected!r} not found"


def _subset(expected: Any, actual: Any, where: str) -> str | None:
    """None if ``expected`` is a recursive subset of ``actual``, else the first mismatch."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"at {where}: expected an object, got {_short(actual)}"
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
            return f"at {where}: expected an array, got {_short(actual)}"
        if len(expected) != len(actual):
            return f"at {where}: expected {len(expected)} items, got {len(actual)}"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            problem = _subset(want, got, f"{where}.{index}" if where != "$" else str(index))
            if problem:
                return problem
        return None
    if _same(expected, actual):
        return None
    return f"at {where}: expected {_short(expected)}, got {_short(actual)}"


def _grade_json_subset(expected: Any, output: Any) -> GradeResult:
    if not isinstance(expected, dict | list):
        raise GraderError(
            f"json_subset grader: expected must be a JSON object or array, got {_short(expected)}"
        )
    actual = parse_json_output(output)
    if actual is _NOT_JSON:
        return False, "output is not JSON (nor a ```json block)"
    problem = _subset(expected, actual, "$")
    return (True, None) if problem is None else (False, problem)


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
        raise GraderError(f"numeric grader: expected must be a number, got {_short(expected)}")
    got = _to_number(output)
    if got is None:
        return False, f"output {_short(output)} is not a number"
    tolerance = grader.tolerance or 0.0
    slack = 1e-9 * max(1.0, abs(want))
    if abs(got - want) <= tolerance + slack:
        return True, None
    return False, f"expected {expected} ± {tolerance:g}, got {got:g}"


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


def _grade_callable(
    grader: Grader, expected: Any, output: Any, task_context: dict[str, Any] | None
) -> GradeResult:
    fn = load_callable(grader.function or "")
    result = fn(output, expected, task_context or {})
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
        f"callable grader {grader.function}: returned {_short(result)} "
        "(expected a bool or (bool, note))"
    )


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
    ids, slots, metadata). ``llm_judge`` needs ``judge`` (from :mod:`perturb.run.graders.judge`); the
    async runner uses :func:`grade_async` instead so the judge call does not block.
    """
    if grader.path:
        parsed = parse_json_output(output)
        if parsed is _NOT_JSON:
            return False, f"output is not JSON, so path {grader.path!r} cannot be read"
        found, output = _walk_path(parsed, grader.path)
        if not found:
            return False, f"path {grader.path!r} not found in the output"
    kind = grader.type
    if kind == "exact":
        return _grade_exact(expected, output)
    if kind == "normalized":
        return _grade_normalized(expected, output)
    if kind == "contains":
        return _grade_contains(expected, output)
    if kind == "regex":
        return _grade_regex(expected, output)
    if kind == "json_subset":
        return _grade_json_subset(expected, output)
    if kind == "numeric":
        return _grade_numeric(grader, expected, output)
    if kind == "callable":
        return _grade_callable(grader, expected, output, task_context)
    if kind == "llm_judge":
        if judge is None:
            raise GraderError(
                "llm_judge grader: no judge configured (expected --judge-model and an API key)"
            )
        return judge.judge_sync(grader, expected, output, task_context or {})
    raise GraderError(f"unknown grader type {kind!r}")


async def grade_async(
    grader: Grader,
    expected: Any,
    output: Any,
    task_context: dict[str, Any] | None = None,
    *,
    judge: LLMJudge | None = None,
) -> GradeResult:
    """:func:`grade`, with the LLM judge awaited instead of blocking the event loop."""
    if grader.type != "llm_judge":
        return grade(grader, expected, output, task_context, judge=judge)
    if judge is None:
        raise GraderError(
            "llm_judge grader: no judge configured (expected --judge-model and an API key)"
        )
    if grader.path:
        parsed = parse_json_output(output)
        if parsed is _NOT_JSON:
            return False, f"output is not JSON, so path {grader.path!r} cannot be read"
        found, output = _walk_path(parsed, grader.path)
        if not found:
            return False, f"path {grader.path!r} not found in the output"
    return await judge.judge(grader, expected, output, task_context or {})


def check_grader(grader: Grader, expected: Any, *, judge: LLMJudge | None = None) -> None:
    """Raise :class:`GraderError` if this grader cannot grade anything (checked before a run)."""
    kind = grader.type
    if kind == "regex":
        _grade_regex(expected, "")
    elif kind == "contains":
        _grade_contains(expected, "")
    elif kind == "json_subset":
        _grade_json_subset(expected, "{}")
    elif kind == "numeric":
        _grade_numeric(grader, expected, 0)
    elif kind == "callable":
        load_callable(grader.function or "")
    elif kind == "llm_judge" and judge is None:
        raise GraderError(
            "llm_judge grader: no judge configured (pass --judge-model MODEL, or set the "
            "grader's model, and an API key in OPENAI_API_KEY or --api-key-env)"
        )
