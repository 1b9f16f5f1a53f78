"""``perturb show``: a run's prompts one at a time -- text, diff, expected value, every trial's
output, grader note, error and trace -- selected by id, task, outcome and class."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from tests.synthetic_runs import Prompt, write_run

runner = CliRunner()

PROMPTS = [
    Prompt("t1", "PPPP"),
    Prompt(
        "t1",
        "WWWW",
        "typo",
        "c-0000000000e1",
        0.1,
        0.1,
        note="expected 'ok', got 'no'",
        wrong_output="no",
        traces={"W": ["read: t1", "intent: other"]},
        text="Please do t1 (typo).",
    ),
    Prompt("t1", "PPPP", "typo", "c-0000000000e2", 0.1, 0.1, text="Pleas do t1."),
    Prompt(
        "t2",
        "PWPW",
        note="expected 'ok', got {...}",
        wrong_output={"a": [1, 2]},
        traces={"P": ["read: t2", "intent: book", "reply"], "W": ["read: t2", "intent: cancel", "reply"]},
    ),
    Prompt("t3", "EEPE"),
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write_run(tmp_path / "runs", "show-run", PROMPTS, fixtures=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def show(*args: str) -> list[str]:
    result = runner.invoke(app, ["show", "runs/show-run", *args])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def test_brittle_wrong_prompt_shows_diff_expected_output_and_grader_note(project: Path) -> None:
    assert show("--brittle") == [
        "run show-run: 1 prompt matches",
        "",
        "== t1/typo/c-0000000000e1  (task t1, class typo)  0/4 passed, 4 wrong, 0 errored: brittle",
        "canonical: Please do t1 (canonical).",
        "variant:   Please do t1 (typo).",
        "diff (character-level, 8 characters changed): Please do t1 ([-can-]{+typ+}o[-nical-]).",
        'expected:  "ok"',
        "grader note ×4: expected 'ok', got 'no'",
        *[
            line
            for attempt, latency in enumerate(("0.50", "0.60", "0.70", "0.80"))
            for line in (
                f"  attempt {attempt}: wrong  {latency}s",
                "    output: no",
                "    grader: expected 'ok', got 'no'",
                "    trace:",
                "      1. read: t1",
                "      2. intent: other",
            )
        ],
    ]


def test_errored_prompt_shows_each_error(project: Path) -> None:
    assert show("--errored") == [
        "run show-run: 1 prompt matches",
        "",
        "== t3/canonical  (task t3, class canonical)  1/4 passed, 0 wrong, 3 errored: flaky",
        "prompt:   Please do t3 (canonical).",
        'expected:  "ok"',
        "  attempt 0: errored  0.50s",
        "    error: [timeout] timeout after 30s",
        "  attempt 1: errored  0.60s",
        "    error: [timeout] timeout after 30s",
        "  attempt 2: passed  0.70s",
        "    output: ok",
        "  attempt 3: errored  0.80s",
        "    error: [timeout] timeout after 30s",
    ]


def test_flaky_prompt_shows_divergence_and_pretty_json(project: Path) -> None:
    lines = show("--flaky", "--class", "canonical", "--limit", "1")
    assert lines[0] == "run show-run: 2 prompts match; the 1 worst shown (--limit N for more)"
    assert lines[2] == "== t3/canonical  (task t3, class canonical)  1/4 passed, 0 wrong, 3 errored: flaky"
    lines = show("t2")
    assert lines[:7] == [
        "run show-run: 1 prompt matches",
        "",
        "== t2/canonical  (task t2, class canonical)  2/4 passed, 2 wrong, 0 errored: flaky",
        "prompt:   Please do t2 (canonical).",
        'expected:  "ok"',
        "grader note ×2: expected 'ok', got {...}",
        "divergence: 2 of 2 failing trials diverge at step 2: `read: t2 -> intent: cancel` vs "
        "`read: t2 -> intent: book` (passing trials)",
    ]
    assert lines[13:25] == [
        "  attempt 1: wrong  0.60s",
        "    output:",
        "      {",
        '        "a": [',
        "          1,",
        "          2",
        "        ]",
        "      }",
        "    grader: expected 'ok', got {...}",
        "    trace:",
        "      1. read: t2",
        "      2. intent: cancel",
    ]


def test_failed_lists_worst_first_and_json_for_scripts(project: Path) -> None:
    lines = show("--failed", "--limit", "9")
    heads = [line for line in lines if line.startswith("== ")]
    assert [h.split()[1] for h in heads] == ["t1/typo/c-0000000000e1", "t3/canonical", "t2/canonical"]
    result = runner.invoke(app, ["show", "runs/show-run", "t2/canonical", "--json"])
    doc = json.loads(result.stdout)
    assert (doc["schema"], doc["matched"], doc["shown"]) == ("perturb.show/v1", 1, 1)
    p = doc["prompts"][0]
    assert (p["label"], p["n"], p["passed"], p["expected"], p["prompt"]) == (
        "flaky",
        4,
        2,
        "ok",
        "Please do t2 (canonical).",
    )
    assert [t["outcome"] for t in p["trials"]] == ["passed", "wrong", "passed", "wrong"]
    assert p["trials"][1]["output"] == {"a": [1, 2]}
    assert p["grader_notes"] == [{"note": "expected 'ok', got {...}", "count": 2}]


def test_bad_selector_and_class_are_one_line_errors(project: Path) -> None:
    result = runner.invoke(app, ["show", "runs/show-run", "nope"])
    assert result.exit_code == 2
    assert result.stderr == (
        "error: 'nope' matches no prompt of run show-run (expected a prompt id such as task/class/c-..., "
        "a task id or an id prefix; perturb show RUN --failed lists some)\n"
    )
    result = runner.invoke(app, ["show", "runs/show-run", "--class", "reorder"])
    assert result.exit_code == 2
    assert result.stderr == (
        "error: --class 'reorder': the run has no prompts of it (expected one of: canonical, typo)\n"
    )


def test_long_output_is_cut_at_the_stated_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_run(tmp_path / "runs", "show-run", [Prompt("t1", "W", wrong_output="x" * 2500)], fixtures=True)
    monkeypatch.chdir(tmp_path)
    lines = show()
    out = next(line for line in lines if line.startswith("    output: "))
    assert out == "    output: " + "x" * 2000
    assert "      (cut at 2000 of 2500 characters; --full shows all)" in lines
    full = show("--full")
    assert "    output: " + "x" * 2500 in full
