"""perturb: how robust and how reliable is your LLM agent?

Generate perturbed variants of canonical tasks once, review and freeze them as fixtures,
run the agent n times on every prompt, and report mean success, pass@k and pass^k per
perturbation class with paired bootstrap intervals.

The library mirrors the command line, one stage per module::

    perturb.tasks.load_tasks        tasks/<suite>.jsonl
    perturb.generate.core.generate       -> review/<suite>/
    perturb.freeze.core.freeze           -> fixtures/<suite>.jsonl + .lock.json
    perturb.freeze.verify.verify           fixtures vs lock
    perturb.run.core.run                 -> runs/<id>/trials.jsonl
    perturb.report.core.run_report       -> scorecard, JSON, Markdown, JUnit, HTML
    perturb.report.gate.run_gate           run vs baseline

The names in ``__all__`` are imported lazily so that ``perturb --help`` stays fast (stage
functions whose name is also their module's, such as ``perturb.run.core.run``, are reached through
the module).
"""

from __future__ import annotations

import importlib
from typing import Any

from perturb._version import __version__ as __version__
from perturb.errors import PerturbError as PerturbError
from perturb.io.hashing import canonical_json as canonical_json
from perturb.io.hashing import content_hash as content_hash

_LAZY = {
    "AgentResponse": "perturb.run.agents",
    "GenerateOptions": "perturb.generate.core",
    "GateOptions": "perturb.report.gate",
    "ReportOptions": "perturb.report.core",
    "RunOptions": "perturb.run.core",
    "assert_verified": "perturb.freeze.verify",
    "grade": "perturb.run.graders",
    "load_tasks": "perturb.tasks",
    "pass_at_k": "perturb.report.metrics",
    "pass_hat_k": "perturb.report.metrics",
    "run_gate": "perturb.report.gate",
    "run_report": "perturb.report.core",
}

__all__ = sorted(["PerturbError", "__version__", "canonical_json", "content_hash", *_LAZY])


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'perturb' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
