"""perturb freeze: what goes into fixtures and the lock, stable bytes, stale refusal, crash safety."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.errors import ReviewError, ReviewLockedError
from perturb.freeze.core import freeze, load_fixtures, verify
from perturb.freeze.fixtures import SuitePaths, pending_path, render_fixture_line
from perturb.io.hashing import canonical_json, content_hash
from perturb.records import Candidate, FixtureEntry, Lock, SampleRule, Screen, Task
from perturb.review.journal import Recorder, open_context
from perturb.review.lock import ReviewLock
from perturb.tasks import task_hash
from tests.review_project import SUITE, TASKS, make_project

runner = CliRunner()
EDITED = "Could you book a flight from Paris to Rome on Friday?"


def decide(root: Path, cands: list[Candidate]) -> None:
    """accept 0 (individual), edit 1, reject 2, accept 3+4 sampled, skip 5."""
    ctx = open_context(root, None)
    with Recorder(ctx, "Ada <ada@example.org>", "test") as rec:
        rec.record("accept", cands[0], reason="reads naturally")
        rec.record("edit", cands[1], text=EDITED, screen=Screen(passed=True))
        rec.record("reject", cands[2], reason="drops the day")
        rule = SampleRule(n=2, seed=5)
        rec.record("accept", cands[4], mode="sampled", sample=rule)
        rec.record("accept", cands[3], mode="bulk")
        rec.record("skip", cands[5])


@pytest.fixture
def frozen(tmp_path: Path) -> tuple[Path, list[Candidate]]:
    cands = make_project(tmp_path)
    decide(tmp_path, cands)
    freeze(tmp_path)
    return tmp_path, cands


def test_fixture_file_content_order_and_rendering(frozen: tuple) -> None:
    root, cands = frozen
    paths = SuitePaths(root, SUITE)
    entries = load_fixtures(paths.fixtures)
    assert [e.id for e in entries] == [
        "book-01/canonical",
        f"book-01/paraphrase/{cands[0].id}",
        f"book-01/typo/{cands[1].id}",
        "hotel-02/canonical",
        f"hotel-02/paraphrase/{cands[3].id}",
        f"hotel-02/distractor/{cands[4].id}",
    ]
    raw = paths.fixtures.read_bytes()
    assert raw == b"".join(canonical_json(e.model_dump(mode="json")) + b"\n" for e in entries)
    canon, typo = entries[0], entries[2]
    task = Task.model_validate(TASKS[0])
    assert canon.prompt == task.prompt and canon.level is None and canon.epsilon == 0
    assert typo.prompt == EDITED and typo.candidate_id == cands[1].id
    assert (typo.level, typo.epsilon) == (0.1, 0.12)
    assert (typo.expected, typo.grader, typo.slots) == (task.expected, task.grader, task.slots)
    assert entries[3].weight == 2 and entries[4].weight == 2


def test_lock_records_hashes_provenance_and_decisions(frozen: tuple) -> None:
    root, cands = frozen
    paths = SuitePaths(root, SUITE)
    lock = Lock.model_validate(json.loads(paths.lock.read_text()))
    entries = load_fixtures(paths.fixtures)
    assert [le.id for le in lock.entries] == [e.id for e in entries]
    assert [le.sha256 for le in lock.entries] == [content_hash(e) for e in entries]
    assert lock.tasks == {t["id"]: task_hash(Task.model_validate(t)) for t in TASKS}
    assert (lock.suite, lock.tasks_file, lock.schema_version) == (SUITE, "tasks/travel.jsonl", 1)
    by_id = {le.id: le for le in lock.entries}
    assert by_id["book-01/canonical"].decision is None
    assert by_id["book-01/canonical"].provenance is None
    accepted = by_id[f"book-01/paraphrase/{cands[0].id}"].decision
    assert accepted is not None
    assert (accepted.action, accepted.mode, accepted.note, accepted.origin_text) == (
        "accepted",
        "individual",
        "reads naturally",
        None,
    )
    assert accepted.reviewer == "Ada <ada@example.org>"
    assert accepted.at.endswith("Z")
    edited = by_id[f"book-01/typo/{cands[1].id}"]
    assert edited.decision is not None and edited.decision.action == "edited"
    assert edited.decision.origin_text == cands[1].text
    assert edited.provenance == cands[1].generator
    sampled = by_id[f"hotel-02/distractor/{cands[4].id}"].decision
    assert sampled is not None and sampled.mode == "sampled"
    assert sampled.sample == SampleRule(n=2, seed=5)
    bulk = by_id[f"hotel-02/paraphrase/{cands[3].id}"].decision
    assert bulk is not None and bulk.mode == "bulk"
    text = paths.lock.read_text()
    assert text.endswith("}\n") and text.startswith('{\n  "schema_version": 1,\n')


def test_freezing_twice_gives_byte_identical_files(frozen: tuple) -> None:
    root, _ = frozen
    paths = SuitePaths(root, SUITE)
    before = (paths.fixtures.read_bytes(), paths.lock.read_bytes())
    result = freeze(root)
    assert result.unchanged
    assert (paths.fixtures.read_bytes(), paths.lock.read_bytes()) == before
    # Even a full rewrite from scratch reproduces the bytes.
    paths.fixtures.unlink()
    paths.lock.unlink()
    assert not freeze(root).unchanged
    assert (paths.fixtures.read_bytes(), paths.lock.read_bytes()) == before


def test_cli_freeze_summary_and_verify_round_trip(tmp_path: Path) -> None:
    cands = make_project(tmp_path)
    decide(tmp_path, cands)
    result = runner.invoke(app, ["freeze", "--root", str(tmp_path)])
    assert result.exit_code == 0, result.stderr
    fx, lk = tmp_path / "fixtures/travel.jsonl", tmp_path / "fixtures/travel.lock.json"
    assert result.stdout == (
        f"{fx}: froze: 2 canonical + 4 variants (3 accepted, 1 edited); lock {lk}\n"
        "not frozen: 1 rejected, 1 skipped\n"
    )
    again = runner.invoke(app, ["freeze", SUITE, "--root", str(tmp_path)])
    assert again.stdout.startswith(f"{fx}: unchanged: 2 canonical + 4 variants")
    ok = runner.invoke(app, ["verify", "--root", str(tmp_path)])
    assert ok.exit_code == 0, ok.stdout + ok.stderr
    assert ok.stdout == f"{fx}: ok: 2 canonical + 4 variants, lock matches\n"
    report = verify(fx)
    assert report.ok and (report.n_canonical, report.n_variants) == (2, 4)


def test_new_decisions_change_the_fixtures(frozen: tuple) -> None:
    root, cands = frozen
    ctx = open_context(root, None)
    with Recorder(ctx, "Bo", "test") as rec:
        rec.record("accept", cands[5])
        rec.record("undo", undoes=1)  # the accept of cands[0]
    result = freeze(root)
    assert (result.n_accepted, result.n_edited, result.n_undecided) == (3, 1, 1)
    ids = [e.id for e in load_fixtures(SuitePaths(root, SUITE).fixtures)]
    assert f"book-01/paraphrase/{cands[0].id}" not in ids
    assert f"hotel-02/typo/{cands[5].id}" in ids
    assert verify(SuitePaths(root, SUITE).fixtures).ok


def test_stale_accepted_candidates_are_refused(frozen: tuple) -> None:
    root, cands = frozen
    paths = SuitePaths(root, SUITE)
    before = (paths.fixtures.read_bytes(), paths.lock.read_bytes())
    changed = [dict(t) for t in TASKS]
    changed[1]["expected"] = "Lisbon, Portugal"
    paths.tasks.write_text("".join(json.dumps(t) + "\n" for t in changed), encoding="utf-8")
    with pytest.raises(ReviewError) as exc:
        freeze(root)
    assert str(exc.value) == (
        f"{paths.candidates}: 2 accepted candidates are stale (the task changed or was removed "
        f"since generation): {cands[3].id} (hotel-02/paraphrase), {cands[4].id} "
        "(hotel-02/distractor); reject them with `perturb reject ID... --reason stale`, then run "
        "`perturb generate` and review the new candidates"
    )
    assert (paths.fixtures.read_bytes(), paths.lock.read_bytes()) == before
    result = runner.invoke(app, ["freeze", "--root", str(root)])
    assert result.exit_code == 2 and result.stderr.startswith("error: ")
    assert result.stderr.count("\n") == 1


def test_freeze_without_candidates_writes_canonical_only(tmp_path: Path) -> None:
    make_project(tmp_path)
    (tmp_path / "review/travel/candidates.jsonl").unlink()
    (tmp_path / "review/travel").rmdir()
    result = freeze(tmp_path)
    assert (result.n_canonical, result.n_accepted) == (2, 0)
    entries = load_fixtures(tmp_path / "fixtures/travel.jsonl")
    assert [e.id for e in entries] == ["book-01/canonical", "hotel-02/canonical"]


def test_freeze_is_refused_while_a_review_holds_the_lock(frozen: tuple) -> None:
    root, _ = frozen
    paths = SuitePaths(root, SUITE)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from perturb.review.lock import ReviewLock\n"
            f"ReviewLock(Path({str(paths.review_lock)!r}), 'travel', 'perturb review').acquire()\n"
            "print('held', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(ReviewLockedError, match=rf"by PID {holder.pid} on "):
            freeze(root)
    finally:
        holder.kill()
        holder.wait(timeout=10)
        holder.stdin.close()  # type: ignore[union-attr]
        holder.stdout.close()  # type: ignore[union-attr]
    # Killed holder: its lock is stale and freeze takes it over.
    assert freeze(root).unchanged
    with ReviewLock(paths.review_lock, SUITE, "check"):
        pass


CRASH = """
import os, sys
from pathlib import Path
import perturb.freeze.core as fz
real = os.replace
count = [0]
def replace(src, dst):
    count[0] += 1
    if count[0] == int(sys.argv[2]):
        os.kill(os.getpid(), 9)
    real(src, dst)
fz.os.replace = replace
fz.freeze(Path(sys.argv[1]))
"""


def crash_freeze(root: Path, at_rename: int) -> None:
    proc = subprocess.run([sys.executable, "-c", CRASH, str(root), str(at_rename)], check=False)
    assert proc.returncode == -signal.SIGKILL


def test_freeze_killed_before_any_rename_leaves_previous_fixtures_intact(frozen: tuple) -> None:
    root, cands = frozen
    paths = SuitePaths(root, SUITE)
    before = (paths.fixtures.read_bytes(), paths.lock.read_bytes())
    ctx = open_context(root, None)
    with Recorder(ctx, "Bo", "test") as rec:
        rec.record("accept", cands[5])
    crash_freeze(root, 1)
    assert (paths.fixtures.read_bytes(), paths.lock.read_bytes()) == before
    assert pending_path(paths.fixtures).exists() and pending_path(paths.lock).exists()
    report = verify(paths.fixtures)
    assert report.ok, report.lines()
    assert not freeze(root).unchanged
    assert not pending_path(paths.fixtures).exists() and not pending_path(paths.lock).exists()
    assert verify(paths.fixtures).ok


def test_freeze_killed_between_the_renames_is_reported_precisely(frozen: tuple) -> None:
    root, cands = frozen
    paths = SuitePaths(root, SUITE)
    old_lock = paths.lock.read_bytes()
    ctx = open_context(root, None)
    with Recorder(ctx, "Bo", "test") as rec:
        rec.record("accept", cands[5])
    crash_freeze(root, 2)
    assert paths.lock.read_bytes() == old_lock
    assert f"hotel-02/typo/{cands[5].id}".encode() in paths.fixtures.read_bytes()
    report = verify(paths.fixtures)
    assert report.lines() == [
        f"{paths.lock}: INCOMPLETE: a freeze was interrupted after writing {paths.fixtures} and "
        f"before renaming {pending_path(paths.lock)} into place (run `perturb freeze travel` "
        "again to finish it)"
    ]
    freeze(root)
    assert verify(paths.fixtures).ok
    assert not pending_path(paths.lock).exists()


def test_first_freeze_killed_between_renames_is_incomplete_not_unreadable(tmp_path: Path) -> None:
    make_project(tmp_path)
    crash_freeze(tmp_path, 2)
    paths = SuitePaths(tmp_path, SUITE)
    assert paths.fixtures.exists() and not paths.lock.exists()
    assert [p.kind for p in verify(paths.fixtures).problems] == ["INCOMPLETE"]


def test_rendering_is_a_pure_function_of_the_entry() -> None:
    entry = FixtureEntry(
        id="t/canonical",
        task_id="t",
        perturbation="canonical",
        prompt="Zürich — 1.0",
        expected=1.0,
        grader={"type": "numeric", "tolerance": 0.5},  # type: ignore[arg-type]
    )
    line = render_fixture_line(entry)
    assert line.endswith(b"\n") and b"\n" not in line[:-1]
    assert '"prompt":"Zürich — 1.0"'.encode() in line
    assert b'"expected":1,' in line
    assert render_fixture_line(FixtureEntry.model_validate_json(line)) == line
