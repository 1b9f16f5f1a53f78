"""Records of ``tasks/<suite>.jsonl``: a canonical task and its grader."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator, model_validator

from perturb.records.base import TASK_ID_PATTERN, GraderType, Record


class Grader(Record):
    """How a trial's output is compared with the task's ``expected`` value."""

    type: GraderType
    """``exact`` (output == expected), ``normalized`` (case, whitespace and edge punctuation
    ignored), ``contains`` (expected string, or every string of a list, occurs in the output),
    ``regex`` (expected is a pattern searched in the output), ``json_subset`` (output, parsed as
    JSON if it is text, contains every key/value of expected, recursively), ``numeric``
    (|output - expected| <= tolerance), ``callable`` (``function`` decides), ``llm_judge`` (a
    model decides using ``rubric``)."""
    tolerance: float | None = Field(default=None, ge=0)
    """``numeric`` only: the absolute tolerance (default 0)."""
    path: str | None = None
    """Grade only this dotted path of the (JSON) output, e.g. ``"booking.total"``."""
    function: str | None = None
    """``callable`` only: ``module:function`` called as ``f(output, expected, task) -> bool``."""
    rubric: str | None = None
    """``llm_judge`` only: what the judge should check."""
    model: str | None = None
    """``llm_judge`` only: the judge model (default from ``--judge-model``)."""

    @model_validator(mode="after")
    def _check(self) -> Grader:
        # The grader's spec owns which fields it reads and what they must hold.
        from perturb.run.graders import GRADERS

        spec = GRADERS.get(self.type)
        for name in ("function", "tolerance", "rubric", "model"):
            if getattr(self, name) is not None and name not in spec.options:
                owners = [n for n in GRADERS.names() if name in GRADERS.get(n).options]
                raise ValueError(f"{name} is only for the {' / '.join(owners)} grader, not {self.type!r}")
        if spec.validate is not None:
            spec.validate(self)
        return self


class Task(Record):
    """One canonical task: a line of ``tasks/<suite>.jsonl``."""

    id: str = Field(pattern=TASK_ID_PATTERN)
    """Unique within the suite; letters, digits and ``_ . : -``, at most 128 characters."""
    prompt: str = Field(min_length=1)
    """The user's request exactly as a canonical user would write it."""
    expected: Any
    """What counts as success, interpreted by ``grader``."""
    grader: Grader
    """How the agent's output is compared with ``expected``. A bare string such as
    ``"exact"`` is shorthand for ``{"type": "exact"}``."""
    weight: float = Field(default=1.0, gt=0)
    """The task's weight when tasks are averaged (default 1)."""
    slots: dict[str, str] = Field(default_factory=dict)
    """Named values that carry the meaning (``{"day": "Friday"}``). Each must occur verbatim in
    the prompt; every perturbation keeps them byte-for-byte."""
    tags: list[str] = Field(default_factory=list)
    """Free-form labels (``["refund", "smoke"]``)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Anything else the user wants to carry along; passed to the agent untouched."""
    slots_to_confirm: dict[str, str] = Field(default_factory=dict, exclude=True)
    """Slots ``perturb import`` proposed from the values it detected in the prompt, for a person
    to confirm: move the ones that carry the task's meaning into ``slots`` and delete this
    field. A task file that still has it is refused (``perturb validate`` lists what to
    confirm). Never part of the task's hash."""

    @model_validator(mode="before")
    @classmethod
    def _grader_shorthand(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("grader"), str):
            data = {**data, "grader": {"type": data["grader"]}}
        return data

    @field_validator("prompt")
    @classmethod
    def _prompt_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("prompt is blank (expected the user's request)")
        return value

    @model_validator(mode="after")
    def _slots_in_prompt(self) -> Task:
        for name, value in [*self.slots.items(), *self.slots_to_confirm.items()]:
            if not value:
                raise ValueError(f"slot {name!r} is empty (expected a value from the prompt)")
            if not value.strip():
                # a slot of spaces protects nothing and would be "found" between every two words
                raise ValueError(f"slot {name!r} is only whitespace (expected a value from the prompt)")
            if value not in self.prompt:
                raise ValueError(
                    f"slot {name!r} value {value!r} does not occur in the prompt "
                    "(expected a value copied verbatim from the prompt)"
                )
        return self
