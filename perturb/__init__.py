"""perturb: how robust and how reliable is your LLM agent?

Generate perturbed variants of canonical tasks once, review and freeze them as fixtures,
run the agent n times on every prompt, and report mean success, pass@k and pass^k per
perturbation class with paired bootstrap intervals.

The library mirrors the command line, one stage per module::

    perturb.tasks.load_tasks        tasks/<suite>.jsonl
    perturb.generate.generate       -> review/<suite>/
    perturb.freeze.freeze           -> fixtures/<suite>.jsonl + .lock.json
    perturb.verify.verify           fixtures vs lock
    perturb.run.run                 -> runs/<id>/trials.jsonl
    perturb.report.run_report       -> scorecard, JSON, Markdown, JUnit, HTML
    perturb.gate.run_gate           run vs baseline

The names in ``__all__`` are imported lazily so that ``perturb --help`` stays fast (stage
functions whose name is also their module's, such as ``perturb.run.run``, are reached through
the module).
"""

from __future__ import annotations

import importlib
from typing import Any

from ._version import __version__ as __version__
from .errors import PerturbError as PerturbError
from .hashing import canonical_json as canonical_json
from .hashing import content_hash as content_hash

_LAZY = {
    "AgentResponse": "perturb.agents",
    "GenerateOptions": "perturb.generate",
    "RunOptions": "perturb.run",
    "assert_verified": "perturb.verify",
    "grade": "perturb.graders",
    "load_tasks": "perturb.tasks",
    "pass_at_k": "perturb.metrics",
    "pass_hat_k": "perturb.metrics",
    "run_gate": "perturb.gate",
    "run_report": "perturb.report",
}

__all__ = sorted(
    ["PerturbError", "__version__", "canonical_json", "content_hash", *_LAZY]
)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'perturb' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
