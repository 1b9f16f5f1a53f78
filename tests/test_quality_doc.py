"""docs/perturbations-quality.md: its ε tables are what benchmarks/heldout_eval.py computes
from the committed candidates."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "perturbations-quality.md"


def _eval_module():
    spec = importlib.util.spec_from_file_location("heldout_eval", REPO / "benchmarks" / "heldout_eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("root", ["benchmarks/dev", "benchmarks/dev2", "benchmarks/heldout"])
def test_quality_doc_epsilon_tables_match_the_candidates(root: str) -> None:
    text = DOC.read_text("utf-8")
    m = re.search(rf"<!-- epsilon: {re.escape(root)} (\S+) -->\n((?:\|.*\n)+)", text)
    assert m, f"no table for {root} in {DOC.name}"
    module = _eval_module()
    module.use_root(REPO / root)
    assert m.group(2).rstrip("\n") == module.epsilon_table(m.group(1))
