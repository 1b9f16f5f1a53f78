"""Why it failed, on the bundled example: the bundled travel agent on the checked-in fixtures
(5 trials per prompt, temperature 0.7). ``perturb show`` on a wrong, a flaky and a brittle
prompt, and the HTML report's size bound."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.test_docs import load_script

pytestmark = pytest.mark.slow

HTML_MAX_BYTES = 3_000_000
"""The HTML report of the bundled run stays under this (measured: about 0.9 MB)."""


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bundled")
    load_script("gen_explorer_png").bundled_report(root)
    return root


def show(root: Path, *args: str) -> dict[str, Any]:
    exe = str(Path(sys.executable).parent / "perturb")
    done = subprocess.run(
        [exe, "show", "runs/demo", *args, "--json"], cwd=root, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_html_report_of_the_bundled_run_stays_under_its_size_bound(bundled: Path) -> None:
    size = (bundled / "report.html").stat().st_size
    assert 100_000 < size < HTML_MAX_BYTES, size
    text = (bundled / "report.html").read_text(encoding="utf-8")
    assert "Per prompt: the first 3 wrong and the first 3 errored trials (by attempt)" in text
    assert text.count('class="trial"') <= 6 * text.count('class="prompt"')


def test_show_wrong_flaky_and_brittle_prompts_of_the_bundled_run(bundled: Path) -> None:
    brittle = show(bundled, "--brittle", "--limit", "1")["prompts"][0]
    assert brittle["label"] == "brittle" and brittle["passed"] == 0
    assert brittle["prompt"] != brittle["canonical_prompt"] and brittle["expected"] is not None
    trials = brittle["trials"]
    assert len(trials) == brittle["n"] == 5 and {t["outcome"] for t in trials} == {"wrong"}
    assert all(t["grader_note"] for t in trials)  # e.g. "at day: expected ..., got ..."
    assert all(isinstance(t["trace"], list) and t["trace"] for t in trials)
    flaky = show(bundled, "--flaky", "--limit", "1")["prompts"][0]
    assert flaky["label"] == "flaky" and 0 < flaky["passed"] < flaky["n"]
    assert flaky["divergence"].split(" failing trials diverge at step ")[0] != ""
    wrong = show(bundled, "--failed", "--class", "canonical", "--limit", "1")
    assert wrong["prompts"] == [] or wrong["prompts"][0]["wrong"] > 0
    text_lines = subprocess.run(
        [str(Path(sys.executable).parent / "perturb"), "show", "runs/demo", brittle["variant_id"]],
        cwd=bundled,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert text_lines[2].startswith(f"== {brittle['variant_id']}  (task {brittle['task_id']}, class ")
    assert text_lines[3] == f"canonical: {brittle['canonical_prompt']}"
    assert text_lines[5].startswith("diff (")
    assert any(line.startswith("    grader: ") for line in text_lines)
