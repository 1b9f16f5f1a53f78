"""perturb verify on tampered copies: the exact line for each outcome, exit codes, --json,
assert_verified / load_fixtures for other stages, and that verify never writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.errors import InputError, VerifyFailed
from perturb.freeze.core import assert_verified, freeze, load_fixtures, verify
from perturb.freeze.fixtures import SuitePaths, render_fixture_line
from perturb.io.hashing import content_hash
from perturb.records import FixtureEntry, Lock, Task
from perturb.review.journal import Recorder, open_context
from perturb.tasks import task_hash
from tests.review_project import SUITE, TASKS, make_project

runner = CliRunner()
FREEZE = "run `perturb freeze travel` to rewrite the file in the stable rendering"


@pytest.fixture
def fx(tmp_path: Path) -> Path:
    """A frozen project (2 canonical + 3 variants); returns the fixture file."""
    cands = make_project(tmp_path)
    ctx = open_context(tmp_path, None)
    with Recorder(ctx, "Ada", "test") as rec:
        for c in (cands[0], cands[1], cands[4]):
            rec.record("accept", c)
    freeze(tmp_path)
    return SuitePaths(tmp_path, SUITE).fixtures


def lines_of(fx: Path) -> list[bytes]:
    return fx.read_bytes().splitlines(keepends=True)


def entry(fx: Path, i: int) -> FixtureEntry:
    return load_fixtures(fx)[i]


def messages(fx: Path) -> list[str]:
    return verify(fx).lines()


def test_untouched_fixtures_pass(fx: Path) -> None:
    report = verify(fx)
    assert report.ok and report.summary() == (f"{fx}: ok: 2 canonical + 3 variants, lock matches")
    lock = assert_verified(fx)
    assert isinstance(lock, Lock) and len(lock.entries) == 5


def test_modified(fx: Path) -> None:
    lines = lines_of(fx)
    e = entry(fx, 1)
    changed = e.model_copy(update={"prompt": e.prompt.replace("Rome", "Milan")})
    lines[1] = render_fixture_line(changed)
    fx.write_bytes(b"".join(lines))
    assert messages(fx) == [
        f"{fx}:2: MODIFIED {e.id}: expected {content_hash(e)}, got {content_hash(changed)} "
        "(the line changed after freeze; restore it from git, or run `perturb freeze travel` "
        "to rewrite it from the review journal)"
    ]


def test_unlisted(fx: Path) -> None:
    lines = lines_of(fx)
    e = entry(fx, 1)
    extra = e.model_copy(
        update={
            "id": "book-01/paraphrase/c-ffffffffffff",
            "candidate_id": "c-ffffffffffff",
            "prompt": "Book it.",
        }
    )
    lines.insert(2, render_fixture_line(extra))
    fx.write_bytes(b"".join(lines))
    assert messages(fx) == [
        f"{fx}:3: UNLISTED book-01/paraphrase/c-ffffffffffff: not in {fx.with_name('travel.lock.json')}"
        " (a line added by hand or a lock from another freeze; delete the line, or run "
        "`perturb freeze travel` to rebuild both files from the review journal)"
    ]


def test_missing(fx: Path) -> None:
    lines = lines_of(fx)
    e = entry(fx, 4)
    lock = fx.with_name("travel.lock.json")
    fx.write_bytes(b"".join(lines[:4]))
    assert messages(fx) == [
        f"{lock}: MISSING {e.id}: listed in the lock but absent from {fx} (restore the line from "
        "git, or run `perturb freeze travel` to rewrite both files)"
    ]
    report = verify(fx)
    assert report.summary() == f"{fx}: 1 problem (1 MISSING); the fixtures do not match {lock}"


def write_tasks(fx: Path, tasks: list[dict]) -> Path:
    path = fx.parent.parent / "tasks" / "travel.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    return path


def test_stale_changed_removed_added(fx: Path) -> None:
    old = [Task.model_validate(t) for t in TASKS]
    changed = dict(TASKS[0], prompt="Book a flight from Paris to Rome on Friday, please.")
    added = {"id": "car-03", "prompt": "Rent a car in Nice.", "expected": "Nice", "grader": "contains"}
    tasks = write_tasks(fx, [changed, added])
    new_hash = task_hash(Task.model_validate(changed))
    redo = (
        "reject its stale candidates (`perturb freeze travel` names them), run `perturb "
        "generate`, review the new candidates, then `perturb freeze travel`"
    )
    assert messages(fx) == [
        f"{tasks}:1: STALE book-01: the canonical task changed since freeze (lock "
        f"{task_hash(old[0])}, now {new_hash}); its canonical prompt and 2 variants are stale "
        f"({redo})",
        f"{tasks}: STALE hotel-02: the task was removed from {tasks} since freeze; its canonical "
        "prompt and 1 variant are stale (run `perturb freeze travel` to drop them, or restore "
        "the task)",
        f"{tasks}:2: STALE car-03: the task was added since freeze and has no fixtures (run "
        "`perturb freeze travel` to add its canonical prompt; `perturb generate` and a review "
        "give it variants)",
    ]


def test_noncanonical_bytes_order_blank_duplicate_and_final_newline(fx: Path) -> None:
    lines = lines_of(fx)
    ids = [e.id for e in load_fixtures(fx)]
    pretty = json.dumps(json.loads(lines[0]), ensure_ascii=False).encode() + b"\n"
    fx.write_bytes(pretty + lines[1] + b"\n" + lines[3] + lines[2] + lines[4] + lines[4].rstrip())
    assert messages(fx) == [
        f"{fx}:1: NONCANONICAL {ids[0]}: bytes differ from the stable rendering (key order, "
        f"spacing, escapes, number format or defaults) ({FREEZE})",
        f"{fx}:3: NONCANONICAL: blank line ({FREEZE})",
        f"{fx}:5: NONCANONICAL {ids[2]}: out of order (expected before {ids[3]}) ({FREEZE})",
        f"{fx}:7: NONCANONICAL: no newline at end of file ({FREEZE})",
        f"{fx}:7: NONCANONICAL {ids[4]}: duplicate of line 6 ({FREEZE})",
    ]


def test_noncanonical_number_format_keeps_the_hash(fx: Path) -> None:
    lines = lines_of(fx)
    lines[0] = lines[0].replace(b'"weight":1', b'"weight":1.0')
    fx.write_bytes(b"".join(lines))
    report = verify(fx)
    assert [p.kind for p in report.problems] == ["NONCANONICAL"]
    assert report.problems[0].line == 1


def test_exit_codes_and_output_of_the_cli(fx: Path) -> None:
    root = fx.parent.parent
    ok = runner.invoke(app, ["verify", "--root", str(root)])
    assert (ok.exit_code, ok.stdout) == (0, f"{fx}: ok: 2 canonical + 3 variants, lock matches\n")
    lines = lines_of(fx)
    fx.write_bytes(b"".join(lines[:4]))
    bad = runner.invoke(app, ["verify", SUITE, "--root", str(root)])
    assert bad.exit_code == 1
    assert bad.stdout.startswith(f"{fx.with_name('travel.lock.json')}: MISSING ")
    assert bad.stderr == (
        f"error: {fx}: 1 problem (1 MISSING); the fixtures do not match {fx.with_name('travel.lock.json')}\n"
    )
    js = runner.invoke(app, ["verify", "--json", "--root", str(root)])
    assert js.exit_code == 1
    data = json.loads(js.stdout)
    assert (data["ok"], data["canonical"], data["variants"]) == (False, 2, 2)
    assert [(p["kind"], p["id"], p["line"]) for p in data["problems"]] == [
        ("MISSING", load_fixtures_ids_from_lock(fx)[4], None)
    ]
    fx.write_bytes(b"".join(lines))
    js_ok = runner.invoke(app, ["verify", "--json", "--root", str(root)])
    assert js_ok.exit_code == 0 and json.loads(js_ok.stdout)["problems"] == []


def load_fixtures_ids_from_lock(fx: Path) -> list[str]:
    return [e["id"] for e in json.loads(fx.with_name("travel.lock.json").read_text())["entries"]]


@pytest.mark.parametrize(
    ("tamper", "expected"),
    [
        (
            lambda ls: ls[:1] + [b'{"id": "x",\n'] + ls[1:],
            ":2: invalid JSON: Expecting property name enclosed in double quotes at column 12 "
            "(expected one fixture entry per line; restore the file from git or run `perturb "
            "freeze`)",
        ),
        (
            lambda ls: ls[:2] + [ls[2].replace(b'"prompt":', b'"text":')] + ls[3:],
            ":3: prompt: missing (expected this field) (and 1 more problem)",
        ),
        (lambda ls: [b"[1, 2]\n"] + ls, ":1: expected a JSON object (a fixture entry)"),
    ],
)
def test_malformed_fixture_files_exit_2_with_file_line(fx: Path, tamper, expected: str) -> None:
    fx.write_bytes(b"".join(tamper(lines_of(fx))))
    with pytest.raises(InputError) as exc:
        verify(fx)
    assert str(exc.value) == f"{fx}{expected}"
    result = runner.invoke(app, ["verify", "--root", str(fx.parent.parent)])
    assert result.exit_code == 2
    assert result.stderr == f"error: {fx}{expected}\n"


def test_missing_or_malformed_lock_exits_2(fx: Path) -> None:
    lock = fx.with_name("travel.lock.json")
    lock.write_text('{"schema_version": 1,\n "suite": }\n')
    with pytest.raises(InputError) as exc:
        verify(fx)
    assert str(exc.value) == (
        f"{lock}:2: invalid JSON: Expecting value at column 11 (expected one JSON document)"
    )
    lock.write_text(json.dumps({"suite": "travel"}))
    with pytest.raises(InputError) as exc:
        verify(fx)
    assert str(exc.value) == f"{lock}: perturb_version: missing (expected this field) (and 3 more problems)"
    lock.unlink()
    with pytest.raises(InputError) as exc:
        verify(fx)
    assert str(exc.value) == (
        f"{lock}: no such file (expected the lock `perturb freeze` writes next to the fixtures; "
        "run `perturb freeze travel`)"
    )
    fx.unlink()
    with pytest.raises(InputError, match=r"travel.jsonl: no such file"):
        verify(fx)


def test_assert_verified_raises_with_every_problem(fx: Path) -> None:
    lines = lines_of(fx)
    fx.write_bytes(b"".join(lines[:4]) + b"\n")
    with pytest.raises(VerifyFailed) as exc:
        assert_verified(fx)
    assert exc.value.exit_code == 1
    assert [line.split(": ")[1].split()[0] for line in exc.value.lines] == [
        "MISSING",
        "NONCANONICAL",
    ]
    assert exc.value.summary == (
        f"{fx}: 2 problems (1 MISSING, 1 NONCANONICAL); the fixtures do not match "
        f"{fx.with_name('travel.lock.json')}"
    )


def test_load_fixtures_reports_file_line(fx: Path) -> None:
    assert [e.perturbation for e in load_fixtures(fx)] == [
        "canonical",
        "paraphrase",
        "typo",
        "canonical",
        "distractor",
    ]
    lines = lines_of(fx)
    fx.write_bytes(lines[0] + lines[0])
    with pytest.raises(InputError) as exc:
        load_fixtures(fx)
    assert str(exc.value) == (
        f"{fx}:2: id: duplicate id 'book-01/canonical' (first on line 1; expected each entry "
        "once; run `perturb freeze` to rewrite the file)"
    )


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_verify_never_writes(fx: Path) -> None:
    root = fx.parent.parent
    lines = lines_of(fx)
    fx.write_bytes(lines[1] + lines[0] + lines[2])  # out of order, missing lines
    before = snapshot(root)
    assert not verify(fx).ok
    runner.invoke(app, ["verify", "--root", str(root)])
    runner.invoke(app, ["verify", "--json", "--root", str(root)])
    assert snapshot(root) == before


def test_stale_task_without_variants_only_needs_a_freeze(tmp_path: Path) -> None:
    make_project(tmp_path)
    freeze(tmp_path)  # canonical prompts only: nothing was accepted
    fx = SuitePaths(tmp_path, SUITE).fixtures
    old = task_hash(Task.model_validate(TASKS[1]))
    changed = dict(TASKS[1], weight=3)
    tasks = write_tasks(fx, [TASKS[0], changed])
    assert messages(fx) == [
        f"{tasks}:2: STALE hotel-02: the canonical task changed since freeze (lock {old}, now "
        f"{task_hash(Task.model_validate(changed))}); its canonical prompt and 0 variants are "
        "stale (run `perturb freeze travel` to record it)"
    ]
    freeze(tmp_path)
    assert verify(fx).ok
