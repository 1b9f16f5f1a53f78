"""perturb: how robust and how reliable is your LLM agent?

Generate perturbed variants of canonical tasks once, review and freeze them as fixtures,
run the agent k times on every prompt, and report mean success, pass@k and pass^k per
perturbation class with paired bootstrap intervals.
"""

from ._version import __version__
from .errors import PerturbError
from .hashing import canonical_json, content_hash

__all__ = ["PerturbError", "__version__", "canonical_json", "content_hash"]
