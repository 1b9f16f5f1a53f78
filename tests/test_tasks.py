"""Task files: every kind of bad task gets one exact FILE:LINE: field: message line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.errors import TaskFormatError
from perturb.tasks import load_tasks, suite_name, task_hash, task_json_schema

runner = CliRunner()
GOOD = {"id": "t1", "prompt": "Book Delhi on Friday", "expected": "ok", "grader": "exact"}


def write(tmp_path: Path, lines: list[object] | bytes) -> Path:
    p = tmp_path / "suite.jsonl"
    if isinstance(lines, bytes):
        p.write_bytes(lines)
    else:
        p.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return p


def problems(path: Path) -> list[str]:
    with pytest.raises(TaskFormatError) as exc:
        load_tasks(path)
    return [line.removeprefix(f"{path}:") for line in exc.value.problems]


def test_good_file_loads(tmp_path: Path) -> None:
    p = write(tmp_path, [GOOD, {**GOOD, "id": "t2", "weight": 2, "slots": {"day": "Friday"}}])
    suite = load_tasks(p)
    assert suite.name == "suite"
    assert [t.id for t in suite.tasks] == ["t1", "t2"]
    assert suite.lines == {"t1": 1, "t2": 2}
    assert suite.tasks[1].weight == 2.0
    assert task_hash(suite.tasks[0]) != task_hash(suite.tasks[1])


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({**GOOD, "prompt": ""}, "1: prompt: prompt is empty (expected the user's request)"),
        ({**GOOD, "prompt": "  \n"}, "1: prompt: prompt is blank (expected the user's request)"),
        (
            {**GOOD, "grader": "fuzzy"},
            "1: grader.type: unknown grader 'fuzzy' (expected one of: exact, normalized, contains, "
            "regex, json_subset, numeric, callable, llm_judge)",
        ),
        (
            {**GOOD, "grader": "regex", "expected": "(unclosed"},
            "1: expected: regex grader: bad pattern '(unclosed': missing ), unterminated subpattern at position 0 "
            "(expected a Python regex)",
        ),
        ({**GOOD, "weight": 0}, "1: weight: weight must be > 0, got 0 (expected a positive number)"),
        (
            {**GOOD, "slots": {"day": "Monday"}},
            "1: slots: slot 'day' value 'Monday' does not occur in the prompt "
            "(expected a value copied verbatim from the prompt)",
        ),
        (
            {**GOOD, "slots": {"gap": " "}},
            "1: slots: slot 'gap' is only whitespace (expected a value from the prompt)",
        ),
        (
            {k: v for k, v in GOOD.items() if k != "expected"},
            "1: expected: missing (expected this field on every task)",
        ),
        (
            {**GOOD, "id": "has space"},
            "1: id: invalid id 'has space' (expected letters, digits and _ . : -, starting with a "
            "letter or digit, at most 128 characters)",
        ),
        (
            {**GOOD, "colour": 1},
            "1: colour: unknown field (expected only: id, prompt, expected, grader, weight, slots, "
            "tags, metadata)",
        ),
        (
            {**GOOD, "grader": {"type": "numeric", "tolerance": 0.1}, "expected": "x"},
            "1: expected: numeric grader: expected must be a number, got 'x'",
        ),
        (
            {**GOOD, "grader": {"type": "callable", "function": "nope"}},
            "1: grader: a callable grader needs function as 'module:function' "
            "(for example 'graders_mod:check')",
        ),
    ],
)
def test_each_bad_task_has_an_exact_message(tmp_path: Path, line: object, message: str) -> None:
    assert problems(write(tmp_path, [line])) == [message]


def test_duplicate_ids_name_the_first_line(tmp_path: Path) -> None:
    p = write(tmp_path, [GOOD, {**GOOD, "prompt": "other"}])
    assert problems(p) == ["2: id: duplicate id 't1' (first on line 1; expected ids unique in the suite)"]


def test_non_utf8_truncated_and_empty(tmp_path: Path) -> None:
    good = json.dumps(GOOD).encode()
    p = write(tmp_path, good + b"\n" + b'{"id": "\xff"}\n' + b'{"id": "t3", "pro')
    assert problems(p) == [
        "2: not valid UTF-8 (byte 9 of the line; expected UTF-8 text)",
        "3: truncated last line (no newline and not valid JSON; was the file cut off?)",
    ]
    empty = write(tmp_path, b"\n  \n")
    with pytest.raises(TaskFormatError) as exc:
        load_tasks(empty)
    assert str(exc.value) == f"{empty}: file is empty (expected one JSON task per line)"


def test_every_problem_is_reported_not_just_the_first(tmp_path: Path) -> None:
    p = write(tmp_path, [{**GOOD, "prompt": ""}, {**GOOD, "id": "t2"}, {**GOOD, "id": "t3", "grader": "x"}])
    assert [x.split(":")[0] for x in problems(p)] == ["1", "3"]


def test_suite_name() -> None:
    assert suite_name("tasks/travel.jsonl") == "travel"
    assert suite_name("fixtures/travel.lock.json") == "travel"


def test_schema_describes_fields() -> None:
    schema = task_json_schema()
    assert schema["required"] == ["id", "prompt", "expected", "grader"]
    assert "verbatim" in schema["properties"]["slots"]["description"]


# ---------------------------------------------------------------- CLI


def test_cli_validate_ok_and_bad(tmp_path: Path) -> None:
    p = write(tmp_path, [{**GOOD, "slots": {"city": "Delhi", "day": "Friday"}}])
    result = runner.invoke(app, ["validate", str(p)])
    assert result.exit_code == 0
    assert result.stdout == f"{p}: ok: 1 tasks, 2 declared slots\n"

    bad = write(tmp_path, [{**GOOD, "grader": "fuzzy"}, GOOD])
    result = runner.invoke(app, ["validate", str(bad)])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: {bad}:1: grader.type: unknown grader 'fuzzy' (expected one of: exact, normalized, "
        "contains, regex, json_subset, numeric, callable, llm_judge)",
        f"error: {bad}:2: id: duplicate id 't1' (first on line 1; expected ids unique in the suite)",
    ]
    assert "Traceback" not in result.output


def test_cli_missing_file_is_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(tmp_path / "nope.jsonl")])
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {tmp_path / 'nope.jsonl'}: no such file (expected an existing file; check the path)\n"
    )


def test_cli_schema() -> None:
    result = runner.invoke(app, ["schema", "task"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["title"].startswith("perturb task")
    result = runner.invoke(app, ["schema", "trial"])
    assert json.loads(result.stdout)["title"] == "Trial"
    result = runner.invoke(app, ["schema", "nope"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: unknown record 'nope' (expected one of: task, candidate")


def test_cli_bad_usage_is_exit_2() -> None:
    result = runner.invoke(app, ["validate"])
    assert result.exit_code == 2
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.startswith("perturb ")
