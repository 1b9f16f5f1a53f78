"""Resume after SIGKILL: a real ``perturb run`` process is killed mid-way (twice), the same
command is run again, and the trial file ends with exactly n trials per variant."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from perturb.records import Trial
from perturb.testing.suite import make_suite

pytestmark = pytest.mark.slow

N = 8
TASKS = [
    {"id": f"t{i}", "prompt": f"Repeat {i}", "expected": f"Repeat {i}", "grader": "exact"} for i in range(5)
]
VARIANTS = [(f"t{i}", "paraphrase", f"Please repeat {i}") for i in range(5)]
ENTRIES = 10
COMMAND = [
    sys.executable,
    "-m",
    "perturb",
    "run",
    "fixtures/demo.jsonl",
    "--agent",
    "slow_agent:agent",
    "--trials",
    str(N),
    "--concurrency",
    "4",
    "--out",
    "runs/k",
    "--timeout",
    "30",
]


def count_lines(path: Path) -> int:
    if not path.exists():
        return 0
    return path.read_bytes().count(b"\n")


def start_and_kill(project: Path, at_least: int) -> int:
    """Start the run, SIGKILL it once ``at_least`` more complete lines exist; lines after."""
    trials = project / "runs" / "k" / "trials.jsonl"
    before = count_lines(trials)
    proc = subprocess.Popen(
        COMMAND,
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    try:
        deadline = time.monotonic() + 60
        while count_lines(trials) < before + at_least:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "the run did not make progress"
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()
    assert proc.returncode == -signal.SIGKILL
    return count_lines(trials)


def make_project(project: Path) -> None:
    """The suite and an agent that takes 0.1 s a trial (so a kill lands mid-run)."""
    make_suite(project, TASKS, VARIANTS)
    (project / "slow_agent.py").write_text(
        "import asyncio\n"
        "async def agent(prompt, request):\n"
        "    await asyncio.sleep(0.1)\n"
        "    return prompt.replace('Please r', 'R')\n"
    )


def assert_n_per_variant(trials: Path) -> bytes:
    """Exactly attempts 0..N-1 of every variant, once each, all passed; the file's bytes."""
    raw = trials.read_bytes()
    assert raw.endswith(b"\n")
    rows = [json.loads(line) for line in raw.decode().splitlines()]
    for row in rows:
        Trial.model_validate(row)
    assert len(rows) == ENTRIES * N
    pairs = Counter((r["variant_id"], r["attempt"]) for r in rows)
    assert max(pairs.values()) == 1  # no duplicates
    per_variant: dict[str, list[int]] = {}
    for variant_id, attempt in pairs:
        per_variant.setdefault(variant_id, []).append(attempt)
    assert len(per_variant) == ENTRIES
    assert all(sorted(a) == list(range(N)) for a in per_variant.values())
    assert {r["outcome"] for r in rows} == {"passed"}
    return raw


def test_resume_after_sigkill_runs_exactly_the_missing_trials(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    make_project(project)
    total = ENTRIES * N
    trials = project / "runs" / "k" / "trials.jsonl"

    after_first = start_and_kill(project, at_least=12)
    assert 12 <= after_first < total
    kept = trials.read_bytes()
    # a kill in the middle of a write leaves a torn last line; simulate one
    with open(trials, "ab") as fh:
        fh.write(b'{"run_id":"k","suite":"demo","task_id":"t3","variant_id":"t3/cano')

    after_second = start_and_kill(project, at_least=12)
    assert after_first + 12 <= after_second < total
    assert trials.read_bytes().startswith(kept)  # earlier lines untouched, torn tail cut

    done = subprocess.run(COMMAND, cwd=project, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"ran {total - after_second} trials in ")
    assert f"run k: {total}/{total} trials done ({total} passed, 0 wrong, 0 errored)" in done.stdout

    raw = assert_n_per_variant(trials)

    again = subprocess.run(COMMAND, cwd=project, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0
    assert again.stdout.startswith("ran 0 trials")
    assert trials.read_bytes() == raw


def test_after_sigkill_a_damaged_middle_line_is_refused_then_redone_once_deleted(tmp_path: Path) -> None:
    """A killed run whose log was then damaged in the middle: the resume refuses in one line naming
    the file and the line and leaves the log alone; with the line deleted, it finishes the run."""
    project = tmp_path / "proj"
    make_project(project)
    trials = project / "runs" / "k" / "trials.jsonl"
    after_kill = start_and_kill(project, at_least=12)
    lines = trials.read_bytes().splitlines(keepends=True)
    assert len(lines) == after_kill
    lines[5] = lines[5][:40] + b"\n"  # cut on the opening quote of the task id (column 40)
    damaged = b"".join(lines)
    trials.write_bytes(damaged)

    refused = subprocess.run(COMMAND, cwd=project, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2
    assert refused.stderr == (
        "error: runs/k/trials.jsonl:6: invalid JSON: Unterminated string starting at column 40 "
        "(expected one Trial JSON object per line; remove the line or start a new run with --out)\n"
    )
    assert trials.read_bytes() == damaged

    trials.write_bytes(b"".join(lines[:5] + lines[6:]))
    done = subprocess.run(COMMAND, cwd=project, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"ran {ENTRIES * N - after_kill + 1} trials in ")
    assert_n_per_variant(trials)
