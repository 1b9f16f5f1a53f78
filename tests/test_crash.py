"""Crashes and interruptions: no lost work, no duplicated work, no half-written file.

* ``perturb run`` (a real process, an agent with small random sleeps) is SIGKILLed at 20
  random moments -- during start-up and while trials are being written -- and resumed each
  time; the final trial file holds exactly n trials per variant.
* ``perturb review`` (on a pseudo-terminal, keys pressed in a burst) and ``perturb freeze``
  (killed at every write, fsync and rename it makes, one kill per attempt) leave the journal
  and the fixtures in the old or the new state; verify passes or names the one interrupted
  step. (Kills between keys and at the two renames are in tests/test_review_tty.py and
  tests/test_freeze.py.)

Disk full and read-only output: tests/test_disk_faults.py.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.freeze.core import build, verify
from perturb.freeze.fixtures import SuitePaths, pending_path, render_fixtures, render_lock
from perturb.records import Trial
from perturb.review.journal import Recorder, open_context, read_journal
from perturb.testing.suite import make_suite
from tests.review_project import SUITE, make_project
from tests.test_review_tty import Review

pytestmark = pytest.mark.slow

runner = CliRunner()

# --------------------------------------------------------------------------- run

N = 8
TASKS = [
    {"id": f"t{i:02d}", "prompt": f"Repeat number {i}", "expected": f"Repeat number {i}", "grader": "exact"}
    for i in range(12)
]
VARIANTS = [(f"t{i:02d}", "paraphrase", f"Please repeat number {i}") for i in range(12)]
RANDOM_SLEEP_AGENT = (
    "import asyncio, random\n"
    "async def agent(prompt, request):\n"
    "    await asyncio.sleep(random.uniform(0.005, 0.05))\n"
    "    return prompt\n"
)


def complete_lines(path: Path) -> list[bytes]:
    """The lines of a trial file; fails on a line that is not a whole Trial record."""
    if not path.exists():
        return []
    raw = path.read_bytes()
    assert not raw or raw.endswith(b"\n"), f"torn last line: {raw[-80:]!r}"
    lines = raw.splitlines()
    for line in lines:
        Trial.model_validate_json(line)
    return lines


def line_count(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_run_killed_at_20_random_moments_resumes_without_loss_or_duplicates(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    make_suite(project, TASKS, VARIANTS)
    (project / "random_sleep_agent.py").write_text(RANDOM_SLEEP_AGENT)
    command = [
        sys.executable,
        "-m",
        "perturb",
        "run",
        "fixtures/demo.jsonl",
        "--agent",
        "random_sleep_agent:agent",
        "--trials",
        str(N),
        "--concurrency",
        "2",
        "--out",
        "runs/k",
        "--timeout",
        "30",
    ]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    trials = project / "runs/k/trials.jsonl"
    total = len(TASKS + VARIANTS) * N
    rng = random.Random(20240607)
    kills = 0
    moments: list[str] = []
    while kills < 20:
        before = len(complete_lines(trials))
        proc = subprocess.Popen(
            command, cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            if rng.random() < 0.5:  # somewhere in start-up: imports, verify, manifest, scan
                delay = rng.uniform(0.0, 0.6)
                time.sleep(delay)
                moments.append(f"{delay:.2f}s after start")
            else:  # while trials are being written
                deadline = time.monotonic() + 30
                while line_count(trials) <= before:
                    assert proc.poll() is None and time.monotonic() < deadline, "no progress"
                    time.sleep(0.005)
                delay = rng.uniform(0.0, 0.08)
                time.sleep(delay)
                moments.append(f"{delay:.2f}s into writing")
            assert proc.poll() is None, "the run finished before it could be killed"
            proc.send_signal(signal.SIGKILL)
            assert proc.wait(timeout=10) == -signal.SIGKILL
            kills += 1
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        after = complete_lines(trials)  # every line whole after every kill
        assert len(after) >= before and len(after) < total, moments

    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = complete_lines(trials)
    assert len(lines) == total
    assert (
        f"run k: {total}/{total} trials done ({total // 2} passed, {total // 2} wrong, 0 errored)"
        in done.stdout
    )
    rows = [json.loads(line) for line in lines]
    pairs = Counter((r["variant_id"], r["attempt"]) for r in rows)
    assert len(pairs) == total and max(pairs.values()) == 1  # none lost, none duplicated
    per_variant: dict[str, list[int]] = {}
    for variant_id, attempt in pairs:
        per_variant.setdefault(variant_id, []).append(attempt)
    assert len(per_variant) == len(TASKS + VARIANTS)
    assert all(sorted(a) == list(range(N)) for a in per_variant.values())
    assert all(r["retry"] == 0 for r in rows)
    report = runner.invoke(app, ["report", str(project / "runs/k"), "-f", "json", "--bootstrap", "20"])
    assert report.exit_code == 0, report.stderr
    assert json.loads(report.stdout)["totals"]["trials"] == total


# --------------------------------------------------------------------------- review


def review_burst_then_kill(root: Path, delay: float) -> int:
    """Start a review, type six accepts at once, SIGKILL it ``delay`` seconds later; check the
    journal, freeze and verify; return how many decisions were saved."""
    order = [c.id for c in open_context(root, None).candidates]  # the review order
    r = Review(root, "--reviewer", "Ada")
    r.wait("Reviewing [1/6]")
    r.press("aaaaaa")
    time.sleep(delay)
    r.kill()
    journal = SuitePaths(root, SUITE).journal
    raw = journal.read_bytes() if journal.exists() else b""
    assert not raw or raw.endswith(b"\n"), raw[-80:]
    decisions = read_journal(journal)
    m = len(decisions)
    assert [d.seq for d in decisions] == list(range(1, m + 1))
    assert [d.candidate_id for d in decisions] == order[:m]
    assert {d.action for d in decisions} <= {"accept"}
    frozen = runner.invoke(app, ["freeze", "--root", str(root)])
    assert frozen.exit_code == 0, frozen.stderr
    assert f"froze: 2 canonical + {m} variants ({m} accepted, 0 edited)" in frozen.stdout
    assert verify(SuitePaths(root, SUITE).fixtures).ok
    return m


def test_review_killed_during_a_burst_of_keys_keeps_every_saved_decision_whole(
    tmp_path: Path,
) -> None:
    """Six accepts typed at once, the review SIGKILLed while it is writing them: the journal
    holds the first m decisions, each line whole, in order; freeze and verify work on it; the
    next review resumes at m + 1. Repeated at random delays until a kill lands mid-burst."""
    rng = random.Random(11)
    saved: list[int] = []
    for attempt in range(12):
        root = tmp_path / f"a{attempt}"
        make_project(root)
        saved.append(review_burst_then_kill(root, rng.uniform(0.0, 0.04)))
        if 0 < saved[-1] < 6:
            break
    m = saved[-1]
    assert 0 < m < 6, f"no kill landed mid-burst: {saved}"
    again = Review(root, "--reviewer", "Ada")
    assert f"Reviewing [{m + 1}/6]" in again.wait("q quit")
    again.press("q")
    status, _ = again.finish()
    assert status == 0


# --------------------------------------------------------------------------- freeze

INJECT = r"""
import builtins, os, sys
from pathlib import Path
import perturb.freeze.core as fz

target, seen = int(sys.argv[2]), [0]

def boundary(name):
    seen[0] += 1
    if seen[0] == target:
        print(name, flush=True)
        os.kill(os.getpid(), 9)

real_fsync, real_replace, real_link = os.fsync, os.replace, os.link
def fsync(fd):
    boundary("fsync")
    real_fsync(fd)
def replace(src, dst):
    boundary("rename onto " + Path(dst).name)
    real_replace(src, dst)
def link(src, dst):
    boundary("link " + Path(dst).name)
    real_link(src, dst)
os.fsync, os.replace, os.link = fsync, replace, link

class HalfWriter:
    # a file whose write stops half-way when this is the boundary to die at
    def __init__(self, fh, name):
        self.fh, self.name = fh, name
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        self.fh.close()
    def write(self, data):
        seen[0] += 1
        if seen[0] == target:
            self.fh.write(data[: len(data) // 2])
            self.fh.flush()
            print("half-written " + self.name, flush=True)
            os.kill(os.getpid(), 9)
        return self.fh.write(data)
    def __getattr__(self, attr):
        return getattr(self.fh, attr)

def fz_open(file, mode="r", *args, **kwargs):
    fh = builtins.open(file, mode, *args, **kwargs)
    return HalfWriter(fh, Path(file).name) if "w" in mode else fh
fz.open = fz_open  # perturb.freeze.core's own writes only
fz.freeze(Path(sys.argv[1]))
print("finished", flush=True)
"""


def test_freeze_killed_at_every_write_fsync_and_rename_leaves_old_or_new(tmp_path: Path) -> None:
    cands = make_project(tmp_path)
    root = tmp_path
    paths = SuitePaths(root, SUITE)
    ctx = open_context(root, None)
    with Recorder(ctx, "Ada", "test") as rec:
        rec.record("accept", cands[0])
    assert runner.invoke(app, ["freeze", "--root", str(root)]).exit_code == 0
    old = (paths.fixtures.read_bytes(), paths.lock.read_bytes())
    with Recorder(open_context(root, None), "Ada", "test") as rec:
        rec.record("accept", cands[3])
        rec.record("accept", cands[4])
    entries, lock, _ = build(root, SUITE)
    new = (render_fixtures(entries), render_lock(lock))
    assert new != old

    where: list[str] = []
    for k in range(1, 60):
        paths.fixtures.write_bytes(old[0])
        paths.lock.write_bytes(old[1])
        for p in (pending_path(paths.fixtures), pending_path(paths.lock)):
            p.unlink(missing_ok=True)
        proc = subprocess.run(
            [sys.executable, "-c", INJECT, str(root), str(k)], capture_output=True, text=True, timeout=60
        )
        if proc.stdout == "finished\n":
            assert proc.returncode == 0
            break
        assert proc.returncode == -signal.SIGKILL, proc.stderr
        where.append(proc.stdout.strip())
        state = (paths.fixtures.read_bytes(), paths.lock.read_bytes())
        report = verify(paths.fixtures)  # never exit 2: both files stay readable
        if state in (old, new):
            assert report.ok, (where[-1], report.lines())
        else:
            assert state == (new[0], old[1]), where[-1]
            assert [p.kind for p in report.problems] == ["INCOMPLETE"], where[-1]
        # the same command again finishes the job (the killed holder's lock is stale)
        again = runner.invoke(app, ["freeze", "--root", str(root)])
        assert again.exit_code == 0, (where[-1], again.stderr)
        assert (paths.fixtures.read_bytes(), paths.lock.read_bytes()) == new
        assert verify(paths.fixtures).ok
        assert not pending_path(paths.fixtures).exists() and not pending_path(paths.lock).exists()
    else:
        pytest.fail("freeze never finished")
    # every kind of moment was hit: the review lock, each half-written pending file, each
    # fsync and both renames
    assert "half-written .travel.jsonl.pending" in where
    assert "half-written .travel.lock.json.pending" in where
    assert "rename onto travel.jsonl" in where and "rename onto travel.lock.json" in where
    assert "link .lock" in where and where.count("fsync") >= 3
