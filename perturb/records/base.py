"""What every record shares: the base model, the schema version, checked name types."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict

SCHEMA_VERSION = 1

CANONICAL = "canonical"


def _known_class(value: str) -> str:
    # The registry owns the list of classes (built-ins and plugins); imported here, lazily,
    # because the class modules themselves build on these records.
    from perturb.generate.perturbations import CLASSES

    if value not in CLASSES:
        raise ValueError(
            f"unknown perturbation class {value!r} (expected one of: {', '.join(CLASSES.names())})"
        )
    return value


def _known_kind(value: str) -> str:
    return value if value == CANONICAL else _known_class(value)


def _known_grader(value: str) -> str:
    from perturb.run.graders import GRADERS

    if value not in GRADERS:
        raise ValueError(f"unknown grader {value!r} (expected one of: {', '.join(GRADERS.names())})")
    return value


PerturbationClass = Annotated[str, AfterValidator(_known_class)]
"""A registered perturbation class name (``typo``, or a plugin's)."""
VariantKind = Annotated[str, AfterValidator(_known_kind)]
"""``canonical`` or a registered perturbation class name: what a fixture entry or trial is."""
GraderType = Annotated[str, AfterValidator(_known_grader)]
"""A registered grader name (``exact``, or a plugin's)."""
Outcome = Literal["passed", "wrong", "errored"]

TASK_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"


class Record(BaseModel):
    """Base for on-disk records: unknown fields are errors; docstrings are descriptions."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)
