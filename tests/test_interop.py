"""perturb export / perturb import (perturb/interop/): the bundled example's fixtures read by
inspect_ai's own dataset reader, checked against promptfoo's test-case schema, round-tripped
through every format; imports of other eval sets with proposed slots; one-line errors."""

from __future__ import annotations

import csv
import io
import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from typer.testing import CliRunner

from perturb.cli import app
from perturb.freeze.fixtures import load_fixtures, load_lock
from perturb.interop.core import propose_slots
from perturb.interop.formats import INTEROP
from perturb.tasks import load_tasks, task_hash

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the bundled travel example (tasks, review journal, fixtures and lock)."""
    root = tmp_path_factory.mktemp("example")
    for part in ("tasks", "review", "fixtures"):
        shutil.copytree(REPO / part, root / part)
    return root


@pytest.fixture(scope="module")
def exported(example: Path) -> dict[str, Path]:
    """The example's fixtures exported once in every format."""
    out = {}
    for fmt, name in (
        ("inspect", "travel.inspect.jsonl"),
        ("promptfoo", "tests.yaml"),
        ("csv", "travel.csv"),
    ):
        path = example / "out" / name
        result = runner.invoke(
            app, ["export", str(example / "fixtures/travel.jsonl"), "--to", fmt, "-o", str(path)]
        )
        assert result.exit_code == 0, result.stderr
        assert result.stderr.splitlines()[-1] == (
            f"wrote {path}: 401 prompts of {example / 'fixtures/travel.jsonl'} as {fmt} (with their sha256)"
        )
        out[fmt] = path
    return out


def lock_hashes(example: Path) -> dict[str, str]:
    return {e.id: e.sha256 for e in load_lock(example / "fixtures/travel.lock.json").entries}


def test_the_registry_is_built_from_the_format_modules() -> None:
    assert INTEROP.names() == ("inspect", "promptfoo", "csv")
    result = runner.invoke(app, ["export", "fixtures/travel.jsonl", "--to", "excel"])
    assert result.exit_code == 2
    assert (
        result.stderr == "error: unknown interop format 'excel' (expected one of: inspect, promptfoo, csv)\n"
    )


# --------------------------------------------------------------------------- export


def test_inspect_ai_reads_the_exported_dataset(example: Path, exported: dict[str, Path]) -> None:
    from inspect_ai.dataset import json_dataset

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # inspect_ai's own import-time deprecations are not ours
        dataset = json_dataset(str(exported["inspect"]))
    entries = load_fixtures(example / "fixtures/travel.jsonl")
    hashes = lock_hashes(example)
    assert len(dataset) == len(entries) == 401
    first = dataset[0]
    assert first.id == "travel-001/canonical"
    assert first.input == entries[0].prompt
    assert json.loads(first.target) == entries[0].expected  # a JSON object target as canonical JSON text
    assert first.metadata is not None
    assert first.metadata["sha256"] == hashes["travel-001/canonical"]
    assert first.metadata["lock_sha256"].startswith("sha256:")
    assert (first.metadata["task_id"], first.metadata["perturbation"], first.metadata["epsilon"]) == (
        "travel-001",
        "canonical",
        0.0,
    )
    for sample, entry in zip(dataset, entries, strict=True):
        assert sample.id == entry.id and sample.input == entry.prompt
        assert sample.metadata is not None and sample.metadata["sha256"] == hashes[entry.id]
        assert sample.metadata["perturbation"] == entry.perturbation
        assert sample.metadata["level"] == entry.level and sample.metadata["epsilon"] == entry.epsilon
    sample, entry = next((s, e) for s, e in zip(dataset, entries, strict=True) if isinstance(e.expected, str))
    assert sample.target == entry.expected  # a string target as itself


def test_promptfoo_export_is_valid_against_the_test_case_schema(
    example: Path, exported: dict[str, Path]
) -> None:
    schema = json.loads((Path(__file__).parent / "promptfoo_tests.schema.json").read_text(encoding="utf-8"))
    text = exported["promptfoo"].read_text(encoding="utf-8")
    cases = yaml.safe_load(text)
    jsonschema.validate(cases, schema)
    assert len(cases) == 401
    hashes = lock_hashes(example)
    assert {c["description"]: c["metadata"]["sha256"] for c in cases} == hashes
    assert cases[0]["vars"] == {"prompt": load_fixtures(example / "fixtures/travel.jsonl")[0].prompt}
    # the schema check can fail: an unknown key in a test case is refused
    with pytest.raises(jsonschema.ValidationError, match="Additional properties are not allowed"):
        jsonschema.validate([{**cases[0], "expected": 1}], schema)


def run_python_assertion(code: str, output: str) -> Any:
    """Run a promptfoo multi-line ``python`` assertion the way promptfoo does: the value is
    the body of a function of ``output`` and ``context``."""
    body = "\n".join("    " + line for line in code.splitlines())
    scope: dict[str, Any] = {}
    exec(f"def __assert(output, context):\n{body}\n", scope)  # noqa: S102 - the exported assertion
    return scope["__assert"](output, {"vars": {}})


def test_promptfoo_assertions_grade_with_perturbs_graders(exported: dict[str, Path]) -> None:
    cases = yaml.safe_load(exported["promptfoo"].read_text(encoding="utf-8"))
    by_id = {c["description"]: c for c in cases}
    booking = by_id["travel-001/canonical"]["assert"]
    assert [a["type"] for a in booking] == ["python"]
    right = json.dumps({**by_id["travel-001/canonical"]["metadata"]["expected"], "extra": 1})
    assert run_python_assertion(booking[0]["value"], right) == {
        "pass": True,
        "score": 1.0,
        "reason": "passed (perturb grader)",
    }
    wrong = json.dumps({**by_id["travel-001/canonical"]["metadata"]["expected"], "day": "Monday"})
    assert run_python_assertion(booking[0]["value"], wrong) == {
        "pass": False,
        "score": 0.0,
        "reason": "at day: expected 'Friday', got 'Monday'",
    }


def test_export_refuses_fixtures_that_do_not_match_their_lock(tmp_path: Path, example: Path) -> None:
    root = tmp_path / "p"
    shutil.copytree(example, root, ignore=shutil.ignore_patterns("out"))
    fx = root / "fixtures/travel.jsonl"
    fx.write_text(fx.read_text(encoding="utf-8").replace("London", "Londres", 1), encoding="utf-8")
    out = tmp_path / "x.csv"
    result = runner.invoke(app, ["export", str(fx), "--to", "csv", "-o", str(out)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {fx}: 1 problem (1 MODIFIED)")
    assert not out.exists()


def test_export_without_output_writes_standard_output(example: Path) -> None:
    result = runner.invoke(app, ["export", str(example / "fixtures/travel.jsonl"), "--to", "inspect"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 401
    assert json.loads(lines[0])["id"] == "travel-001/canonical"
    assert (
        result.stderr
        == f"exported: 401 prompts of {example / 'fixtures/travel.jsonl'} as inspect (with their sha256)\n"
    )


# --------------------------------------------------------------------------- import


@pytest.mark.parametrize("fmt", ["inspect", "promptfoo", "csv"])
def test_import_of_an_export_restores_the_tasks(
    tmp_path: Path, example: Path, exported: dict[str, Path], fmt: str
) -> None:
    result = runner.invoke(
        app, ["import", "--from", fmt, str(exported[fmt]), "--suite", "travel", "--root", str(tmp_path)]
    )
    assert result.exit_code == 0, result.stderr
    target = tmp_path / "tasks/travel.jsonl"
    assert result.stdout.splitlines() == [
        f"wrote {target}: 46 tasks from {exported[fmt]} ({fmt})",
        "skipped 355 perturbed variants (a perturb export; tasks hold the canonical prompts, run "
        "`perturb generate` for variants)",
        f"next: perturb validate {target}",
    ]
    original = load_tasks(example / "tasks/travel.jsonl").tasks
    restored = load_tasks(target).tasks
    # fixtures do not carry tags, so a task comes back without them; everything else is equal
    assert [task_hash(t.model_copy(update={"tags": []})) for t in original] == [
        task_hash(t) for t in restored
    ]
    again = runner.invoke(
        app, ["import", "--from", fmt, str(exported[fmt]), "--suite", "travel", "--root", str(tmp_path)]
    )
    assert again.exit_code == 2
    assert again.stderr == (
        f"error: {target} exists (perturb import never overwrites a task file; name a new suite with "
        "--suite NAME, or move the file away)\n"
    )


def test_csv_export_round_trips_every_value(exported: dict[str, Path], example: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(exported["csv"].read_text(encoding="utf-8"))))
    entries = load_fixtures(example / "fixtures/travel.jsonl")
    hashes = lock_hashes(example)
    assert len(rows) == 401
    for row, entry in zip(rows, entries, strict=True):
        assert row["id"] == entry.id and row["prompt"] == entry.prompt
        assert json.loads(row["expected_json"]) == entry.expected
        assert json.loads(row["slots_json"]) == entry.slots
        assert row["sha256"] == hashes[entry.id]
        assert float(row["epsilon"]) == entry.epsilon
        assert (float(row["level"]) if row["level"] else None) == entry.level


def test_import_proposes_slots_and_validate_asks_to_confirm_them(tmp_path: Path) -> None:
    src = tmp_path / "qa.csv"
    src.write_text(
        'question,answer,topic\n"Book a table for 4 at 7:30pm on Friday, budget $120.",Booked,food\n'
        "Say hello.,hello,greeting\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["import", "--from", "csv", str(src), "--root", str(tmp_path)])
    assert result.exit_code == 0, result.stderr
    target = tmp_path / "tasks/qa.jsonl"
    assert result.stdout.splitlines()[1] == (
        f"1 tasks have proposed slots in slots_to_confirm: confirm them, then `perturb validate {target}` passes"
    )
    lines = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert lines == [
        {
            "id": "task-001",
            "prompt": "Book a table for 4 at 7:30pm on Friday, budget $120.",
            "expected": "Booked",
            "grader": "normalized",
            "metadata": {"topic": "food"},
            "slots_to_confirm": {"number": "4", "time": "7:30pm", "weekday": "Friday", "money": "$120"},
        },
        {
            "id": "task-002",
            "prompt": "Say hello.",
            "expected": "hello",
            "grader": "normalized",
            "metadata": {"topic": "greeting"},
        },
    ]
    check = runner.invoke(app, ["validate", str(target)])
    assert check.exit_code == 2
    assert check.stderr == (
        f"error: {target}:1: slots_to_confirm: proposed by `perturb import` from detected values: "
        "number='4', time='7:30pm', weekday='Friday', money='$120' (expected a person to confirm them: "
        'move the values that carry the task\'s meaning into "slots", rename them as you like, and '
        'delete "slots_to_confirm")\n'
    )
    # the person confirms: keeps the day and the budget as slots
    lines[0].pop("slots_to_confirm")
    lines[0]["slots"] = {"day": "Friday", "budget": "$120"}
    target.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    ok = runner.invoke(app, ["validate", str(target)])
    assert ok.exit_code == 0, ok.stderr
    assert ok.stdout == f"{target}: ok: 2 tasks, 2 declared slots\n"


def test_slots_to_confirm_is_never_part_of_the_task_hash() -> None:
    from perturb.records import Task

    base = {"id": "t", "prompt": "Fly on Friday.", "expected": "ok", "grader": "exact"}
    pending = Task.model_validate({**base, "slots_to_confirm": {"weekday": "Friday"}})
    assert pending.slots_to_confirm == {"weekday": "Friday"}
    assert task_hash(pending) == task_hash(Task.model_validate(base))
    with pytest.raises(ValueError, match="slot 'weekday' value 'Monday' does not occur in the prompt"):
        Task.model_validate({**base, "slots_to_confirm": {"weekday": "Monday"}})


def test_proposed_slots_reuse_the_generators_detection() -> None:
    assert propose_slots("Refund order BK-48213 of £25 and £25 to ana@example.com by 3 May 2025.") == {
        "id": "BK-48213",
        "money": "£25",
        "email": "ana@example.com",
        "date": "3 May 2025",
    }
    assert propose_slots("Say hello.") == {}


def test_inspect_import_of_another_dataset(tmp_path: Path) -> None:
    src = tmp_path / "capitals.jsonl"
    src.write_text(
        json.dumps({"id": 7, "input": "Capital of France?", "target": "Paris", "metadata": {"src": "x"}})
        + "\n"
        + json.dumps({"input": "A prime below 4?", "target": ["2", "3"]})
        + "\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["import", "--from", "inspect", str(src), "--root", str(tmp_path)])
    assert result.exit_code == 0, result.stderr
    lines = [
        json.loads(x) for x in (tmp_path / "tasks/capitals.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert lines[0] == {
        "id": "7",
        "prompt": "Capital of France?",
        "expected": "Paris",
        "grader": "normalized",
        "metadata": {"src": "x"},
        "slots_to_confirm": {"place": "France"},
    }
    assert lines[1]["grader"] == "regex" and lines[1]["expected"] == r"(?i)^\W*(?:2|3)\W*$"
    assert lines[1]["slots_to_confirm"] == {"number": "4"}


def test_promptfoo_import_of_a_config(tmp_path: Path) -> None:
    src = tmp_path / "promptfooconfig.yaml"
    src.write_text(
        "prompts: ['{{question}}']\n"
        "tests:\n"
        "  - description: greeting\n"
        "    vars: {question: Say hello.}\n"
        "    assert: [{type: icontains, value: hello}]\n",
        encoding="utf-8",
    )
    result = runner.invoke(
        app, ["import", "--from", "promptfoo", str(src), "--suite", "pf", "--root", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert result.stderr == (
        f'error: {src}:3: assert.0.type: assertion type "icontains" with this value has no perturb grader '
        "(expected one of equals, contains, contains-all, regex, starts-with, llm-rubric)\n"
    )
    src.write_text(src.read_text(encoding="utf-8").replace("icontains", "starts-with"), encoding="utf-8")
    result = runner.invoke(
        app, ["import", "--from", "promptfoo", str(src), "--suite", "pf", "--root", str(tmp_path)]
    )
    assert result.exit_code == 0, result.stderr
    line = json.loads((tmp_path / "tasks/pf.jsonl").read_text(encoding="utf-8"))
    assert line == {
        "id": "task-001",
        "prompt": "Say hello.",
        "expected": "^hello",
        "grader": "regex",
        "metadata": {"description": "greeting"},
    }


@pytest.mark.parametrize(
    ("fmt", "name", "content", "message"),
    [
        (
            "csv",
            "a.csv",
            'prompt,expected\nHi there,hi\n"Two cells",x,extra\n',
            "a.csv:3: 3 cells (expected 2, one per header column)",
        ),
        (
            "csv",
            "b.csv",
            'prompt,expected_json\nHi there,"{""a"": 1, ""a"": 2}"\n',
            'b.csv:2: duplicate key "a" in one object (expected each key once)',
        ),
        (
            "csv",
            "c.csv",
            "text,label\nx,y\n",
            "c.csv:1: header has no prompt and no expected or expected_json column (expected a header row naming at least prompt and expected)",
        ),
        (
            "csv",
            "d.csv",
            "prompt,expected,grader\nHi there,hi,fuzzy\n",
            "d.csv:2: grader.type: unknown grader 'fuzzy' (expected one of: exact, normalized, contains, regex, json_subset, numeric, callable, llm_judge)",
        ),
        (
            "inspect",
            "e.jsonl",
            '{"input": "ok", "target": "x"}\n{"input": [{"role": "user", "content": "hi"}], "target": "x"}\n',
            "e.jsonl:2: input: a list (expected the prompt as a string; chat-message inputs cannot be tasks)",
        ),
        (
            "inspect",
            "f.jsonl",
            '{"input": "ok", "target": 3}\n',
            "f.jsonl:1: target: 3 (expected a string or a list of strings)",
        ),
        (
            "inspect",
            "g.jsonl",
            '{"input": "ok", "target": "x"}\n{"input": "cut',
            "g.jsonl:2: truncated last line (no newline and not valid JSON; was the file cut off?)",
        ),
        (
            "promptfoo",
            "h.yaml",
            "- vars: {a: 1, b: 2}\n  assert: [{type: equals, value: x}]\n",
            "h.yaml:1: vars: several vars (a, b) and none named prompt (expected the prompt text in a var named prompt)",
        ),
        (
            "promptfoo",
            "i.yaml",
            "- vars: {prompt: hi}\n  assert: [\n",
            "i.yaml:3: invalid YAML: expected the node content, but found '<stream end>' (expected a promptfoo test file)",
        ),
        (
            "promptfoo",
            "j.yaml",
            "tests: file://tests.csv\n",
            "j.yaml: expected a list of test cases, or a promptfoo config whose tests is a list (a tests: file:// reference cannot be followed; import that file instead)",
        ),
    ],
)
def test_bad_input_is_one_line_naming_file_line_and_field(
    tmp_path: Path, fmt: str, name: str, content: str, message: str
) -> None:
    src = tmp_path / name
    src.write_text(content, encoding="utf-8")
    result = runner.invoke(app, ["import", "--from", fmt, str(src), "--suite", "s", "--root", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr == f"error: {tmp_path}/{message}\n"
    assert not (tmp_path / "tasks").exists()


HOSTILE = "Say \x1b[31mred\x1b[0m\nthen \u202eevil\u202c, \"quote\" \x07bell {{prompt}} 'x' =SUM(A1)"


def test_hostile_prompt_text_stays_inert_and_exact(tmp_path: Path) -> None:
    (tmp_path / "tasks").mkdir()
    task = {"id": "h1", "prompt": HOSTILE, "expected": "ok", "grader": "exact"}
    (tmp_path / "tasks/h.jsonl").write_text(json.dumps(task) + "\n", encoding="utf-8")
    assert runner.invoke(app, ["freeze", "h", "--root", str(tmp_path)]).exit_code == 0
    fx = tmp_path / "fixtures/h.jsonl"
    texts = {}
    for fmt in ("inspect", "promptfoo", "csv"):
        out = tmp_path / f"h.{fmt}"
        result = runner.invoke(app, ["export", str(fx), "--to", fmt, "-o", str(out)])
        assert result.exit_code == 0, result.stderr
        texts[fmt] = out.read_text(encoding="utf-8")
    # JSONL and YAML escape control characters; CSV keeps the exact text (it is data)
    for fmt in ("inspect", "promptfoo"):
        assert not any(ch in texts[fmt] for ch in "\x1b\x07"), fmt
    assert json.loads(texts["inspect"])["input"] == HOSTILE
    assert yaml.safe_load(texts["promptfoo"])[0]["vars"]["prompt"] == HOSTILE
    assert next(csv.DictReader(io.StringIO(texts["csv"], newline="")))["prompt"] == HOSTILE
    for fmt in ("inspect", "promptfoo", "csv"):
        root = tmp_path / f"back-{fmt}"
        result = runner.invoke(
            app, ["import", "--from", fmt, str(tmp_path / f"h.{fmt}"), "--suite", "h", "--root", str(root)]
        )
        assert result.exit_code == 0, result.stderr
        assert load_tasks(root / "tasks/h.jsonl").tasks[0].prompt == HOSTILE


def test_import_never_writes_through_a_symlink_out_of_the_project(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "project"
    root.mkdir()
    (root / "tasks").symlink_to(outside)
    src = tmp_path / "qa.csv"
    src.write_text("prompt,expected\nSay hello.,hello\n", encoding="utf-8")
    result = runner.invoke(app, ["import", "--from", "csv", str(src), "--root", str(root)])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {root}/tasks/qa.jsonl: leads outside {root}")
    assert list(outside.iterdir()) == []
