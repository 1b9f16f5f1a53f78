"""Resuming ``perturb run`` from a hand-made trial log (tests/test_run_resume.py kills a real run).

A torn last line (a kill or a power cut mid-write: no newline at the end) is dropped and its trial
run again, exactly once; every earlier byte stays. A damaged line anywhere before the end is
refused with one line naming the file and the line, the log left as it was; once that line is
deleted, the resume runs exactly the trial it held."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.testing import make_suite, read_trials

TASKS = [
    {"id": "t0", "prompt": "Repeat 0", "expected": "Repeat 0", "grader": "exact"},
    {"id": "t1", "prompt": "Répète 1", "expected": "Répète 1", "grader": "exact"},
    {"id": "t2", "prompt": "Repeat 2", "expected": "Repeat 2", "grader": "exact"},
]
VARIANTS = [(t["id"], "paraphrase", f"Please say: {t['prompt']}") for t in TASKS]
TRIALS = 2
TOTAL = 2 * len(TASKS) * TRIALS  # canonical + one paraphrase per task, two attempts each


def resume(project: Path) -> tuple[int, str]:
    """``perturb run`` with the run's original options: (exit code, output)."""
    result = CliRunner().invoke(
        app,
        [
            "run",
            str(project / "fixtures" / "demo.jsonl"),
            "--agent",
            "perturb.testing.agents:answer",
            "--trials",
            str(TRIALS),
            "--out",
            str(project / "runs" / "k"),
        ],
    )
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[bytes]]:
    """A project and the lines of its finished run, the line holding "é" moved last."""
    project = tmp_path_factory.mktemp("proj")
    make_suite(project, TASKS, VARIANTS)
    code, output = resume(project)
    assert code == 0, output
    lines = (project / "runs" / "k" / "trials.jsonl").read_bytes().splitlines(keepends=True)
    assert len(lines) == TOTAL
    accented = next(line for line in lines if b"t1/canonical" in line)
    lines.remove(accented)
    return project, [*lines, accented]


@pytest.fixture
def run_log(finished: tuple[Path, list[bytes]], tmp_path: Path) -> tuple[Path, Path, list[bytes]]:
    """A fresh copy of the finished project: (project, its trials.jsonl, the finished lines)."""
    project, lines = finished
    copy = tmp_path / "proj"
    shutil.copytree(project, copy)
    return copy, copy / "runs" / "k" / "trials.jsonl", lines


def assert_complete(trials: Path) -> None:
    """Every (variant, attempt) exactly once, every line whole."""
    raw = trials.read_bytes()
    assert raw.endswith(b"\n")
    rows = read_trials(trials)
    pairs = Counter((r["variant_id"], r["attempt"]) for r in rows)
    assert len(pairs) == TOTAL
    assert set(pairs.values()) == {1}
    assert {r["outcome"] for r in rows} == {"passed", "wrong"}


def _accent_cut(line: bytes) -> bytes:
    """``line`` cut between the two bytes of its first "é"."""
    return line[: line.index("é".encode()) + 1]


TORN_TAILS = {
    "half of the last line": lambda last: last[: len(last) // 2],
    "the last line without its newline": lambda last: last[:-1],
    "cut inside a two-byte character": _accent_cut,
    "the opening brace only": lambda last: b"{",
}


@pytest.mark.parametrize("tear", TORN_TAILS.values(), ids=list(TORN_TAILS))
def test_a_torn_last_line_is_dropped_and_its_trial_run_again_once(
    run_log: tuple[Path, Path, list[bytes]], tear: object
) -> None:
    project, trials, lines = run_log
    kept = b"".join(lines[:-1])
    trials.write_bytes(kept + tear(lines[-1]))  # type: ignore[operator]
    code, output = resume(project)
    assert code == 0, output
    assert output.startswith("ran 1 trials in ")
    assert f"run k: {TOTAL}/{TOTAL} trials done" in output
    raw = trials.read_bytes()
    assert raw.startswith(kept) and raw.count(b"\n") == TOTAL  # the torn bytes are gone
    assert_complete(trials)
    code, output = resume(project)
    assert (code, output.startswith("ran 0 trials in ")) == (0, True)


def test_zeros_after_the_last_line_a_power_cut_leaves_are_cut_off(
    run_log: tuple[Path, Path, list[bytes]],
) -> None:
    project, trials, lines = run_log
    whole = b"".join(lines)
    trials.write_bytes(whole + b"\0" * 40)
    code, output = resume(project)
    assert code == 0, output
    assert output.startswith("ran 0 trials in ")
    assert trials.read_bytes() == whole


def _missing_attempt(line: bytes) -> bytes:
    return line.replace(b'"attempt":', b'"attempt_":', 1)


# A trial line begins {"run_id":"k","suite":"demo","task_id":"t.": cut after 40 bytes, it ends
# on the opening quote of the task id, at column 40.
DAMAGED = {
    "cut short": (
        lambda line, following: line[:40] + b"\n",
        "invalid JSON: Unterminated string starting at column 40 (expected one Trial JSON object per "
        "line; remove the line or start a new run with --out)",
        TOTAL,
    ),
    "a torn line glued to the next": (
        lambda line, following: line[:40] + following,  # the string '"{"' closes at column 42
        "invalid JSON: Expecting ',' delimiter at column 43 (expected one Trial JSON object per "
        "line; remove the line or start a new run with --out)",
        TOTAL - 1,
    ),
    "not UTF-8": (
        lambda line, following: b'{"variant_id": "\xff"}\n',
        "not valid UTF-8 (expected one Trial JSON object per line; remove the line or start a new run "
        "with --out)",
        TOTAL,
    ),
    "zeros": (
        lambda line, following: b"\0" * 20 + b"\n",
        "invalid JSON: Expecting value at column 1 (expected one Trial JSON object per line; remove "
        "the line or start a new run with --out)",
        TOTAL,
    ),
    "a key missing": (
        lambda line, following: _missing_attempt(line),
        "attempt: missing (expected one Trial JSON object per line; remove the line or start a new run "
        "with --out)",
        TOTAL,
    ),
}


@pytest.mark.parametrize(("damage", "message", "newlines"), DAMAGED.values(), ids=list(DAMAGED))
def test_a_damaged_middle_line_is_refused_in_one_line_naming_file_and_line(
    run_log: tuple[Path, Path, list[bytes]], damage: object, message: str, newlines: int
) -> None:
    project, trials, lines = run_log
    lines = lines[:-2]  # two trials still to run
    following = lines[5 + 1]
    bad = damage(lines[5], following)  # type: ignore[operator]
    rest = lines[7:] if bad.endswith(following) else lines[6:]
    damaged = b"".join(lines[:5]) + bad + b"".join(rest)
    trials.write_bytes(damaged)
    assert damaged.count(b"\n") == newlines - 2
    code, output = resume(project)
    assert (code, output) == (2, f"error: {trials}:6: {message}\n")
    assert trials.read_bytes() == damaged  # nothing run, nothing cut

    # deleting the damaged line (what the message says) lets the resume run exactly what it lacks
    kept = [line for number, line in enumerate(damaged.splitlines(keepends=True), start=1) if number != 6]
    trials.write_bytes(b"".join(kept))
    code, output = resume(project)
    assert code == 0, output
    assert output.startswith(f"ran {TOTAL - len(kept)} trials in ")
    assert_complete(trials)
