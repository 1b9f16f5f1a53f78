"""``perturb init``: the scaffolded project runs canonical-only out of the box, the workflow's
steps pass in it, and nothing is ever overwritten."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.scaffold.core import EXAMPLE_FILES, TEMPLATES, example_dir
from tests.fault_helpers import assert_clean

REPO = Path(__file__).resolve().parent.parent
runner = CliRunner()
FILES = [
    "tasks/shop.jsonl",
    "agent.py",
    "agent_cmd.py",
    "openai.env",
    "perturb.toml",
    ".github/workflows/perturb.yml",
    ".gitignore",
    "README.md",
]


def cli(*args: str, code: int = 0) -> Any:
    result = runner.invoke(app, list(args))
    assert_clean(result)
    assert result.exit_code == code, (result.stdout, result.stderr)
    return result


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_init_writes_the_project_and_prints_the_next_three_commands(tmp_path: Path) -> None:
    out = cli("init", str(tmp_path / "proj")).stdout
    assert sorted(snapshot(tmp_path / "proj")) == sorted(FILES)
    assert len(TEMPLATES) == len(FILES)
    assert out.splitlines()[-4:] == [
        f"next (in {tmp_path / 'proj'}):",
        "  perturb validate tasks/shop.jsonl",
        "  perturb freeze",
        "  perturb run fixtures/shop.jsonl --agent agent:agent --tier smoke",
    ]
    tasks = (tmp_path / "proj/tasks/shop.jsonl").read_text(encoding="utf-8")
    graders = re.findall(r'"grader": (?:"(\w+)"|\{"type": "(\w+)")', tasks)
    assert sorted("".join(g) for g in graders) == ["contains", "json_subset", "numeric"]
    assert (tmp_path / "proj/.gitignore").read_text(encoding="utf-8").splitlines()[0] == "runs/"
    assert "$" not in tasks and "$suite" not in (tmp_path / "proj/README.md").read_text(encoding="utf-8")


def test_init_suite_name_goes_into_paths_and_ids(tmp_path: Path) -> None:
    cli("init", str(tmp_path), "--suite", "billing")
    line = (tmp_path / "tasks/billing.jsonl").read_text(encoding="utf-8").splitlines()[0]
    assert line.startswith('{"id": "billing-001"')
    assert "perturb verify billing" in (tmp_path / ".github/workflows/perturb.yml").read_text(
        encoding="utf-8"
    )


def test_init_refuses_to_overwrite_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text("mine\n", encoding="utf-8")
    result = cli("init", str(tmp_path), code=2)
    assert result.stderr == (
        f"error: {tmp_path / 'agent.py'}: already exists (perturb init never overwrites; "
        "choose an empty directory or move the file away)\n"
    )
    assert snapshot(tmp_path) == {"agent.py": b"mine\n"}
    (tmp_path / ".gitignore").write_text("x\n", encoding="utf-8")
    assert "and 1 more: already exists" in cli("init", str(tmp_path), code=2).stderr


def test_init_rejects_a_bad_suite_name_and_a_file_as_directory(tmp_path: Path) -> None:
    result = cli("init", str(tmp_path), "--suite", "../x", code=2)
    assert result.stderr.startswith("error: --suite '../x': not a suite name (expected letters")
    (tmp_path / "f").write_text("", encoding="utf-8")
    result = cli("init", str(tmp_path / "f"), code=2)
    assert (
        result.stderr
        == f"error: {tmp_path / 'f'}: is a file (expected a directory to create the project in)\n"
    )
    assert snapshot(tmp_path) == {"f": b""}


def test_init_example_copies_the_bundled_example_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = cli("init", str(tmp_path), "--example").stdout
    assert example_dir() == REPO  # an editable install reads the checkout
    for name in [*EXAMPLE_FILES, *(f"examples/{p.name}" for p in (REPO / "examples").glob("*.py"))]:
        assert (tmp_path / name).read_bytes() == (REPO / name).read_bytes(), name
    assert "  perturb verify" in out.splitlines()
    monkeypatch.chdir(tmp_path)
    assert cli("verify").stdout.startswith("fixtures/travel.jsonl: ok: 46 canonical + 355 variants")


def test_scaffolded_project_runs_canonical_only_with_each_local_agent_kind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli("init", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert cli("validate", "tasks/shop.jsonl").stdout == "tasks/shop.jsonl: ok: 3 tasks, 5 declared slots\n"
    cli("freeze")
    result = cli(
        "run", "fixtures/shop.jsonl", "--agent", "agent:agent", "--tier", "smoke", "--out", "runs/py"
    )
    assert result.stdout.startswith("ran 15 trials in ")
    assert "15 passed, 0 wrong, 0 errored" in result.stdout
    result = cli(
        "run",
        "fixtures/shop.jsonl",
        "--agent",
        f"cmd:{sys.executable} agent_cmd.py",
        "--trials",
        "1",
        "--out",
        "runs/cmd",
    )
    assert "3 passed, 0 wrong, 0 errored" in result.stdout


@pytest.mark.slow
def test_scaffolded_workflow_steps_pass_once_a_baseline_is_committed(tmp_path: Path) -> None:
    """Every `perturb` step of the generated GitHub Actions workflow, in order, as processes."""
    exe = str(Path(sys.executable).parent / "perturb")

    def sh(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([exe, *args], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-2000:])
        return done

    sh("init", ".")
    sh("freeze")
    sh("run", "fixtures/shop.jsonl", "--agent", "agent:agent", "--tier", "smoke", "--out", "runs/base")
    sh("baseline", "runs/base", "-o", "evals/baseline.json")
    workflow = (tmp_path / ".github/workflows/perturb.yml").read_text(encoding="utf-8")
    steps = [
        shlex.split(line.split(">>")[0])
        for line in (s.strip().removeprefix("run:").strip() for s in workflow.splitlines())
        if line.startswith("perturb ")
    ]
    assert [s[1] for s in steps] == ["verify", "run", "report", "gate"]
    assert '>> "$GITHUB_STEP_SUMMARY"' in workflow
    for args in steps:
        done = sh(*args[1:])
    assert done.stdout.splitlines()[-1].startswith("gate passed: run ci against baseline evals/baseline.json")


@pytest.mark.slow
def test_the_tutorial_runs_from_perturb_init_to_a_passing_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/tutorial.md on its own: every command of its checked blocks runs, in order, in an
    empty folder, and prints what the page shows (docs/gen_examples.py, the page's sandbox)."""
    from tests.test_docs import load_script

    gen = load_script("gen_examples")
    monkeypatch.setattr(gen, "PAGES", ["docs/tutorial.md"])
    monkeypatch.chdir(REPO)
    text = (REPO / "docs/tutorial.md").read_text(encoding="utf-8")
    commands = re.findall(r"^\$ (perturb \w+)", text, re.M)
    assert commands[0] == "perturb init" and commands[-1] == "perturb gate"
    problems = gen.check()
    assert not problems, "\n\n".join(problems)
