"""Errored trials grouped by cause: ``perturb run``'s closing block (exact text) and the
grouping rules of :mod:`perturb.run.causes`."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.run.causes import ErroredTrial, cause_key, cause_lines, group_causes
from perturb.testing.suite import make_suite

TASKS = [
    {"id": "add", "prompt": "What is 2+2?", "expected": 4, "grader": "numeric"},
    {"id": "city", "prompt": "Capital of France?", "expected": "Paris", "grader": "normalized"},
]
VARIANTS = [("add", "paraphrase", "Add two and two."), ("city", "typo", "Capitl of France?")]

PY_AGENT = """\
import time
def agent(prompt, request):
    if request["task_id"] == "add" and request["perturbation"] == "canonical":
        raise ValueError("backend unavailable")
    if request["task_id"] == "add":
        time.sleep(5)
    return "Paris"
"""

CMD_AGENT = """\
import json, sys
request = json.load(sys.stdin)
if request["task_id"] == "add":
    sys.stderr.write("connecting\\ndb down: attempt %d\\n" % request["attempt"])
    sys.exit(3)
if request["perturbation"] == "typo":
    print(json.dumps({"answer": request["attempt"]}))
else:
    print(json.dumps({"output": "Paris"}))
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make_suite(tmp_path, TASKS, VARIANTS)
    (tmp_path / "bad_agents.py").write_text(PY_AGENT, encoding="utf-8")
    (tmp_path / "cmd_agent.py").write_text(CMD_AGENT, encoding="utf-8")
    return tmp_path


def variant_id(project: Path, task: str, kind: str) -> str:
    fixtures = (project / "fixtures" / "demo.jsonl").read_text(encoding="utf-8").splitlines()
    return next(
        e["id"] for e in map(json.loads, fixtures) if e["task_id"] == task and e["perturbation"] == kind
    )


def run(project: Path, agent: str, out: str, *extra: str) -> Any:
    return CliRunner().invoke(
        app,
        [
            "run",
            str(project / "fixtures" / "demo.jsonl"),
            "--agent",
            agent,
            "-n",
            "2",
            "--out",
            str(project / out),
            *extra,
        ],
    )


def test_run_ends_with_exception_and_timeout_causes(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    result = run(project, "bad_agents:agent", "runs/py", "--timeout", "0.5")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    out = str(project / "runs" / "py")
    assert lines[1:] == [
        "4 errored trials by cause:",
        "  2  exception: ValueError: backend unavailable (bad_agents.py:4 in agent)  (1 prompt)",
        "     e.g. add/canonical attempt 0",
        "  2  timeout: timed out after 0.5 s  (1 prompt)",
        f"     e.g. {variant_id(project, 'add', 'paraphrase')} attempt 0",
        f"see them: perturb show {out} --errored",
    ]
    assert lines[0].endswith(f"next: perturb report {out} (or --retry-errored to re-run the 4 errored)")
    # docs/failures.md shows this output for `--out runs/py`, the variant id cut to `c-...`
    page = (Path(__file__).resolve().parents[1] / "docs" / "failures.md").read_text(encoding="utf-8")
    shown = page.split("## 1. ", 1)[1].split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    real = [
        re.sub(r" in [0-9.]+ s:", " in _ s:", line)
        .replace(out, "runs/py")
        .replace(variant_id(project, "add", "paraphrase"), "add/paraphrase/c-...")
        for line in lines
    ]
    assert [re.sub(r" in [0-9.]+ s:", " in _ s:", line) for line in shown] == real


def test_run_ends_with_exit_status_and_malformed_causes(project: Path) -> None:
    result = run(project, f"cmd:{sys.executable} {project / 'cmd_agent.py'}", "runs/cmd")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    typo = variant_id(project, "city", "typo") + " attempt 0"
    assert lines[1:] == [
        "6 errored trials by cause:",
        "  4  exit_status: exit status 3  (2 prompts)",
        "     e.g. add/canonical attempt 0: exit status 3; stderr: connecting\\ndb down: attempt 0",
        '  2  malformed: stdout JSON has no "output" (expected {"output": ...})  (1 prompt)',
        f"""     e.g. {typo}: stdout JSON has no "output" (expected {{"output": ...}}), got '{{"answer": 0}}'""",
        f"see them: perturb show {project / 'runs' / 'cmd'} --errored",
    ]


def test_run_without_errors_prints_no_causes(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    result = run(project, "bad_agents:agent", "runs/ok", "--classes", "typo")
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 1
    assert "by cause" not in result.stdout


def test_grouping_keys_counts_and_order() -> None:
    trials = [
        ErroredTrial("t/canonical", 0, "exit_status", "exit status 1; stderr: boom 1"),
        ErroredTrial("t/canonical", 1, "exit_status", "exit status 1; stderr: boom 2"),
        ErroredTrial("u/canonical", 0, "exit_status", "killed by signal 9"),
        ErroredTrial("u/canonical", 1, None, None),
        ErroredTrial("v/canonical", 0, "malformed", "stdout line 1: Expecting value: 'nope'"),
    ]
    causes = group_causes(trials)
    assert [(c.kind, c.key, c.count, sorted(c.variants)) for c in causes] == [
        ("exit_status", "exit status 1", 2, ["t/canonical"]),
        ("error", "(no message)", 1, ["u/canonical"]),
        ("exit_status", "killed by signal 9", 1, ["u/canonical"]),
        ("malformed", "stdout line 1: Expecting value", 1, ["v/canonical"]),
    ]
    assert causes[0].example == "exit status 1; stderr: boom 1"
    assert cause_key("exception", "KeyError: 'x' (a.py:3 in f)") == "KeyError: 'x' (a.py:3 in f)"
    assert cause_lines(causes, limit=1) == [
        "  2  exit_status: exit status 1  (1 prompt)",
        "     e.g. t/canonical attempt 0: exit status 1; stderr: boom 1",
        "  ... and 3 more causes (3 trials)",
    ]


def test_cause_lines_escape_control_characters() -> None:
    causes = group_causes(
        [ErroredTrial("t/canonical\x1b[2J", 0, "exception", "E: \x1b]0;pwn\x07 \u202eevil")]
    )
    text = "\n".join(cause_lines(causes))
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "E: \\x1b]0;pwn\\x07 \\u202eevil" in text
