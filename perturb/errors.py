"""The exception tree. Library code raises these; only :mod:`perturb.cli` turns them into exit codes.

Every message is one line that says what went wrong, what was expected and how to fix it.
Where a file is involved the message starts with ``FILE:LINE: field:`` so editors can jump to it.

Exit codes (``PerturbError.exit_code``):

* 1 -- a check ran and failed (``CheckFailed``: verify found drift, the gate found a regression).
* 2 -- bad usage or bad input (everything else).
"""

from __future__ import annotations


class PerturbError(Exception):
    """Base class. ``str(err)`` is the one-line message the CLI prints after ``error: ``."""

    exit_code = 2


class UsageError(PerturbError):
    """Options that contradict each other or name something that does not exist."""


class InputError(PerturbError):
    """A file perturb reads is unreadable or malformed."""

    def __init__(
        self,
        path: str,
        message: str,
        *,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.detail = message
        where = self.path if line is None else f"{self.path}:{line}"
        prefix = f"{where}: {field}: " if field else f"{where}: "
        super().__init__(prefix + message)


class OutputError(PerturbError):
    """perturb could not write a file (disk full, read-only directory, ...). Nothing half-written stays."""


class TaskFormatError(InputError):
    """A task file (``tasks/<suite>.jsonl``) breaks the task format.

    ``problems`` holds every problem found (each a full ``FILE:LINE: field: ...`` line);
    ``str(err)`` joins them with newlines so the CLI can print all of them at once.
    """

    def __init__(self, path: str, problems: list[str]) -> None:
        self.problems = problems
        PerturbError.__init__(self, "\n".join(problems))
        self.path = str(path)
        self.line = None
        self.field = None
        self.detail = "\n".join(problems)


class FixtureIntegrityError(PerturbError):
    """Fixtures disagree with their lock (modified, unlisted, missing, stale, non-canonical)."""


class ConfigError(PerturbError):
    """``[tool.perturb]`` / ``perturb.toml`` is malformed, or a run's config drifted from its manifest."""


class GenerationError(PerturbError):
    """Candidate generation failed (for example the LLM server kept failing after retries)."""


class LLMError(GenerationError):
    """An OpenAI-compatible server failed after the bounded retries, or refused the request.

    ``status`` is the HTTP status of a refusal (401, 404, ...) that was not retried, else None.
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class ReviewError(PerturbError):
    """The review journal or lock is in a state that does not allow the requested action."""


class ReviewLockedError(ReviewError):
    """Another live review holds the lock for this suite."""


class AgentLoadError(PerturbError):
    """An agent SPEC cannot be loaded (bad ``module:function``, missing command, ...)."""


class GraderError(PerturbError):
    """A grader is misconfigured (distinct from a trial whose output is wrong)."""


class CheckFailed(PerturbError):
    """A check ran and did not pass: verify found drift, or the gate found a regression.

    ``lines`` holds one line per problem.
    """

    exit_code = 1

    def __init__(self, summary: str, lines: list[str] | None = None) -> None:
        self.lines = list(lines or [])
        self.summary = summary
        super().__init__("\n".join([*self.lines, summary]) if self.lines else summary)


class VerifyFailed(CheckFailed):
    """``perturb verify`` found fixtures that do not match their lock."""


class GateFailed(CheckFailed):
    """``perturb gate`` found a regression against the baseline."""
