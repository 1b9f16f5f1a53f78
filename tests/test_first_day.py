"""The first-day mistakes, each with the exact message that says what to do instead."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from tests.fault_helpers import assert_clean

runner = CliRunner()


def cli(*args: str, code: int = 0) -> Any:
    result = runner.invoke(app, list(args))
    assert_clean(result)
    assert result.exit_code == code, (result.stdout, result.stderr)
    return result


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cli("init", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_run_given_the_task_file_says_to_freeze(project: Path) -> None:
    result = cli("run", "tasks/shop.jsonl", "--agent", "agent:agent", "--trials", "1", code=2)
    assert result.stderr == (
        "error: tasks/shop.jsonl: is a task file, not frozen fixtures (expected fixtures/shop.jsonl; "
        "run `perturb freeze` to write it: without a review it holds the canonical prompts only, "
        "enough for pass^k)\n"
    )
    assert not (project / "runs").exists()


def test_run_given_a_task_file_under_another_root_names_the_root(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.parent)
    result = cli("run", f"{project.name}/tasks/shop.jsonl", "--agent", "agent:agent", "--trials", "1", code=2)
    assert f"run `perturb freeze --root {project.name}` to write it" in result.stderr


def test_run_before_freeze_says_perturb_freeze(project: Path) -> None:
    result = cli("run", "fixtures/shop.jsonl", "--agent", "agent:agent", "--trials", "1", code=2)
    assert result.stderr == (
        "error: fixtures/shop.jsonl: no such file: the suite is not frozen yet (run `perturb freeze` "
        "to write it from tasks/shop.jsonl)\n"
    )


def test_run_on_a_task_file_outside_tasks_says_where_it_belongs(project: Path) -> None:
    shutil.copy(project / "tasks/shop.jsonl", project / "shop.jsonl")
    result = cli("run", "shop.jsonl", "--agent", "agent:agent", "--trials", "1", code=2)
    assert result.stderr == (
        "error: shop.jsonl: is a task file, not frozen fixtures, and outside tasks/ (expected it at "
        "<project>/tasks/shop.jsonl; move it there, run `perturb freeze` in <project>, then "
        "`perturb run fixtures/shop.jsonl`)\n"
    )


def test_generate_refuses_a_task_file_outside_tasks(project: Path) -> None:
    shutil.copy(project / "tasks/shop.jsonl", project / "shop.jsonl")
    result = cli("generate", "shop.jsonl", code=2)
    assert result.stderr == (
        "error: shop.jsonl: a task file must be in a tasks/ directory (expected "
        "<project>/tasks/shop.jsonl, where `perturb freeze` looks for it; move it there, or pass "
        "--review-dir to write candidates elsewhere)\n"
    )
    assert not (project / "review").exists()


def test_freeze_without_review_warns_that_there_are_no_variants(project: Path) -> None:
    result = cli("freeze")
    assert result.stdout == (
        "fixtures/shop.jsonl: froze: 3 canonical + 0 variants (0 accepted, 0 edited); lock fixtures/shop.lock.json\n"
    )
    assert result.stderr == (
        "warning: no review/shop/candidates.jsonl: 0 variants, the fixtures hold the canonical prompts "
        "only (fine for pass^k first; to add variants run `perturb generate tasks/shop.jsonl`, "
        "`perturb review`, then `perturb freeze` again)\n"
    )
    # canonical-only fixtures run and pass^k is reported
    cli("run", "fixtures/shop.jsonl", "--agent", "agent:agent", "--trials", "4", "--out", "runs/c")
    assert (
        "consistency (canonical)  mean 1.000  pass^2 1.000  flaky 0/3  (n=4)"
        in cli("report", "runs/c").stdout
    )


@pytest.mark.parametrize(
    ("spec", "command"),
    [
        ("python x.py", "python x.py"),
        ("agent_cmd.py", "python agent_cmd.py"),
        ("./run.sh", "python ./run.sh"),
    ],
)
def test_a_command_as_agent_suggests_cmd(project: Path, spec: str, command: str) -> None:
    cli("freeze")
    result = cli("run", "fixtures/shop.jsonl", "--agent", spec, "--trials", "1", code=2)
    assert result.stderr == (
        f"error: agent {spec!r}: looks like a command (expected --agent 'cmd:{command}' to run it as a "
        "subprocess, or module:function for a Python callable)\n"
    )


def test_validate_catches_a_callable_grader_that_does_not_import(project: Path) -> None:
    (project / "shop_graders.py").write_text(
        "def close_enough(output, expected, task):\n    return True\n", encoding="utf-8"
    )
    (project / "tasks/g.jsonl").write_text(
        '{"id": "a", "prompt": "hi", "expected": 1, "grader": {"type": "callable", "function": "shop_graders:close_enough"}}\n'
        '{"id": "b", "prompt": "hi", "expected": 1, "grader": {"type": "callable", "function": "gradres:close_enough"}}\n'
        '{"id": "c", "prompt": "hi", "expected": 1, "grader": {"type": "callable", "function": "shop_graders:missing"}}\n',
        encoding="utf-8",
    )
    result = cli("validate", "tasks/g.jsonl", code=2)
    assert result.stderr == (
        "error: tasks/g.jsonl:2: grader: callable grader: cannot import module 'gradres': "
        "ModuleNotFoundError: No module named 'gradres' (expected a module importable from the project directory)\n"
        "error: tasks/g.jsonl:3: grader: callable grader: module 'shop_graders' has no function 'missing'\n"
    )


def test_root_flag_reads_relative_files_in_the_project(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.parent)
    root = project.name
    cli("freeze", "--root", root)
    cli("verify", "--root", root)
    out = cli("run", "fixtures/shop.jsonl", "--root", root, "--agent", "agent:agent", "--trials", "1").stdout
    assert "3 passed, 0 wrong, 0 errored" in out
    assert (project / "runs").is_dir()
    out = cli("generate", "tasks/shop.jsonl", "--root", root, "--classes", "typo", "--per-class", "1").stdout
    assert out.startswith(f"{root}/review/shop: 3 candidates")
    cli("review", "--list", "--root", root)
