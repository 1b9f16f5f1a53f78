"""docs/perturbations-quality.md: its ε tables are what benchmarks/heldout_eval.py computes
from the committed candidates."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
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


@pytest.mark.parametrize(
    "root", ["benchmarks/dev", "benchmarks/dev2", "benchmarks/dev3", "benchmarks/heldout"]
)
def test_quality_doc_epsilon_tables_match_the_candidates(root: str) -> None:
    text = DOC.read_text("utf-8")
    m = re.search(rf"<!-- epsilon: {re.escape(root)} (\S+) -->\n((?:\|.*\n)+)", text)
    assert m, f"no table for {root} in {DOC.name}"
    module = _eval_module()
    module.use_root(REPO / root)
    assert m.group(2).rstrip("\n") == module.epsilon_table(m.group(1))


@pytest.mark.parametrize(
    "root", ["benchmarks/dev", "benchmarks/dev2", "benchmarks/dev3", "benchmarks/heldout"]
)
def test_measured_epsilon_rises_with_the_requested_level_for_every_class(root: str) -> None:
    module = _eval_module()
    module.use_root(REPO / root)
    result = module.compute("after")
    for cls, row in result["classes"].items():
        means = [row["levels"][lv]["mean_epsilon"] for lv in ("0.1", "0.3", "0.5")]
        assert means[0] < means[1] < means[2], (root, cls, means)
        # a regression guard, not the target: reorder at 0.5 sits at 0.29-0.33 because most
        # prompts have little to move (see the page); nothing may drift further than 0.25
        assert all(abs(m - lv) <= 0.25 for m, lv in zip(means, (0.1, 0.3, 0.5), strict=True)), (
            root,
            cls,
            means,
        )


def _lines(path: Path) -> list[str]:
    return path.read_text("utf-8").splitlines()


@pytest.mark.parametrize("tag", ["before", "after"])
def test_heldout_review_tables_are_what_the_labels_give(tag: str) -> None:
    """table.md beside the labels is the script's output, every candidate has exactly one
    label, and the page shows the table's rows."""
    out = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "heldout_eval.py"), "table", "--tag", tag],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    committed = (REPO / "benchmarks" / "heldout" / tag / "table.md").read_text("utf-8")
    assert out.strip() == committed.strip()
    assert "WARNING" not in out
    ids = [json.loads(line)["id"] for line in _lines(REPO / "benchmarks/heldout" / tag / "candidates.jsonl")]
    labelled = [json.loads(line)["id"] for line in _lines(REPO / "benchmarks/heldout" / tag / "labels.jsonl")]
    assert sorted(ids) == sorted(labelled)
    doc = DOC.read_text("utf-8")
    rows = [line for line in committed.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == 7
    for row in rows:
        assert row in doc


def test_heldout_verdict_counts_match_the_labels() -> None:
    """The verdict table's 'natural (x/y)' counts are recounted from labels.jsonl."""
    base = REPO / "benchmarks" / "heldout" / "after"
    cls = {json.loads(x)["id"]: json.loads(x)["perturbation"] for x in _lines(base / "candidates.jsonl")}
    natural: dict[str, int] = {}
    total: dict[str, int] = {}
    for line in _lines(base / "labels.jsonl"):
        label = json.loads(line)
        c = cls[label["id"]]
        total[c] = total.get(c, 0) + 1
        natural[c] = natural.get(c, 0) + bool(label["natural"])
    doc = DOC.read_text("utf-8")
    for c in total:
        pct = f"{100 * natural[c] / total[c]:.1f}"
        assert f"| {c} | {pct} % ({natural[c]}/{total[c]}) |" in doc, c
