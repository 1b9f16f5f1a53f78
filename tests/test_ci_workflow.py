"""The GitHub Actions workflow of docs/ci.md, step by step, against the committed baseline."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]


def workflow_steps() -> list[list[str]]:
    """The `perturb ...` commands of the workflow in docs/ci.md, in order."""
    text = (REPO / "docs/ci.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n# \.github/workflows/reliability\.yml\n(.*?)\n```", text, re.S)
    assert block is not None, "docs/ci.md lost its workflow"
    steps = []
    for line in block.group(1).splitlines():
        line = line.strip().removeprefix("run:").removeprefix("- run:").strip()
        if line.startswith("perturb "):
            line = line.split(">>")[0]  # the job summary redirect
            steps.append(shlex.split(line))
    return steps


def test_workflow_passes_on_the_bundled_example(tmp_path: Path) -> None:
    for name in ("tasks", "fixtures", "examples", "evals"):
        shutil.copytree(REPO / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)  # the tiers
    steps = workflow_steps()
    assert [s[1] for s in steps] == ["verify", "run", "report", "report", "gate"]
    exe = Path(sys.executable).parent / "perturb"
    for args in steps:
        done = subprocess.run(
            [str(exe), *args[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-2000:])
    assert (tmp_path / "reports/report.html").is_file()
    assert done.stdout.splitlines()[-1].startswith("gate passed: run ci against baseline evals/baseline.json")
