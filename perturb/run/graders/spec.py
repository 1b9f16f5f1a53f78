"""The grader spec: what one grader module exports (``SPEC = GraderSpec(...)``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from perturb.records import Grader
from perturb.run.graders._common import GradeResult

if TYPE_CHECKING:
    from perturb.run.graders.llm_judge import LLMJudge


@dataclass(frozen=True)
class GradeContext:
    """What a grader may need besides the output and ``expected``."""

    task: dict[str, Any] = field(default_factory=dict)
    """The task as the agent saw it: prompt, ids, slots, metadata."""
    judge: LLMJudge | None = None
    """The run's LLM judge (``--judge-model``), for graders that ask a model."""
    offline: bool = False
    """``check`` only: judge the task file alone (``perturb validate``, ``freeze``): no import
    of user code, no service; what a run needs besides is checked before the run."""


GradeFn = Callable[[Grader, Any, Any, GradeContext], GradeResult]
AsyncGradeFn = Callable[[Grader, Any, Any, GradeContext], Awaitable[GradeResult]]
CheckFn = Callable[[Grader, Any, GradeContext], None]
ValidateFn = Callable[[Grader], None]


@dataclass(frozen=True)
class GraderSpec:
    """One grader: its name in task files and how it decides.

    ``grade(grader, expected, output, ctx) -> (passed, note)`` decides one output; it raises
    :class:`~perturb.errors.GraderError` when it cannot work at all (a bad pattern, an
    ``expected`` of the wrong type). The optional hooks: ``grade_async`` (awaited by the
    runner instead of ``grade``, for graders that call a service), ``check`` (run by
    ``perturb validate`` and before a run, so a misconfigured grader fails before any trial),
    ``validate`` (a record-level check of the grader's own fields). ``options`` names the
    optional ``Grader`` fields it reads (``tolerance``, ``function``, ``rubric``, ``model``);
    any other one set in a task file is an error. ``path`` is honoured for every grader."""

    name: str
    summary: str
    grade: GradeFn
    grade_async: AsyncGradeFn | None = None
    check: CheckFn | None = None
    validate: ValidateFn | None = None
    options: frozenset[str] = frozenset()
    blocking: bool = False
    """True when ``grade`` runs code that may block (a user's function): the runner calls it
    in a worker thread so it never stalls the other trials."""
    uses_judge: bool = False
    """True when the grader asks the run's LLM judge (``--judge-model``): the run creates one."""
