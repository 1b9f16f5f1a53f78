"""``perturb generate`` with the rules generator: files, ids, options, reruns, determinism."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.generate.core import GenerateOptions, generate, live_decisions, parse_intensity, rng_for
from perturb.generate.perturbations import CLASSES, class_names
from perturb.generate.perturbations._text import words
from perturb.generate.slots import lost_values
from perturb.io.hashing import short_id
from perturb.records import Candidate, Decision, GenerationSkip
from perturb.tasks import load_tasks, task_hash

TASKS = [
    {
        "id": "flight-delhi",
        "prompt": "Book me a flight to Delhi on Friday, economy class, under £300.",
        "expected": "ok",
        "grader": "exact",
        "slots": {"destination": "Delhi", "day": "Friday", "budget": "£300"},
    },
    {
        "id": "change-booking",
        "prompt": "Hi, I need to change my booking BK-48213 to Saturday. Please make "
        "sure the seat is a window seat. My budget is $200.",
        "expected": "ok",
        "grader": "exact",
        "slots": {"booking": "BK-48213", "day": "Saturday"},
    },
    {
        "id": "cancel-then-email",
        "prompt": "First cancel my hotel reservation in Paris, then send me a confirmation email.",
        "expected": "ok",
        "grader": "exact",
    },
    {
        "id": "invoice",
        "prompt": "Please send the invoice to accounts@acme.com.",
        "expected": "ok",
        "grader": "exact",
    },
    {
        "id": "hotel-paris",
        "prompt": "Find a hotel in Paris for 2 adults, near the Louvre, with breakfast "
        "included, and free cancellation.",
        "expected": "ok",
        "grader": "exact",
        "slots": {"city": "Paris"},
    },
    {
        "id": "refund",
        "prompt": "I'd like a refund for order #4821, it arrived damaged.",
        "expected": "ok",
        "grader": "exact",
        "slots": {"order": "#4821"},
    },
]

runner = CliRunner()


def write_suite(root: Path, tasks: list[dict[str, Any]] = TASKS, name: str = "travel") -> Path:
    (root / "tasks").mkdir(parents=True, exist_ok=True)
    path = root / "tasks" / f"{name}.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks), "utf-8")
    return path


def read_candidates(review: Path) -> list[Candidate]:
    return [
        Candidate.model_validate_json(line) for line in (review / "candidates.jsonl").read_text().splitlines()
    ]


def test_cli_generate_writes_review_files(tmp_path: Path) -> None:
    path = write_suite(tmp_path)
    result = runner.invoke(app, ["generate", str(path), "--per-class", "2"])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""  # no progress bar when stderr is not a terminal
    review = tmp_path / "review" / "travel"
    assert result.stdout.splitlines()[0].startswith(f"{review}: ")
    assert result.stdout.splitlines()[-1] == f"next: perturb review travel --root {tmp_path}"
    assert not (tmp_path / "fixtures").exists()
    cands = read_candidates(review)
    skips = [
        GenerationSkip.model_validate_json(x) for x in (review / "skipped.jsonl").read_text().splitlines()
    ]
    info = json.loads((review / "generation.json").read_text())
    assert info["counts"]["candidates"] == len(cands) and info["counts"]["skipped"] == len(skips)
    assert f"{len(cands)} candidates ({len(cands)} new" in result.stdout
    tasks = {t.id: t for t in load_tasks(path).tasks}
    for c in cands:
        assert c.id == "c-" + short_id(["travel", c.task_id, c.perturbation, c.text, repr(c.level)])
        assert c.suite == "travel" and c.generator.kind == "rules" and c.generator.seed == 0
        assert c.task_sha256 == task_hash(tasks[c.task_id])
        assert c.level == CLASSES.get(c.perturbation).default_level
        assert c.epsilon == CLASSES.get(c.perturbation).measure(
            __import__("perturb.generate.perturbations", fromlist=["prepare"]).prepare(tasks[c.task_id]),
            c.text,
            c.details,
        )
        assert lost_values(tasks[c.task_id].prompt, tasks[c.task_id].slots, c.text) == []
        assert c.text != tasks[c.task_id].prompt
    assert {c.perturbation for c in cands} == set(class_names())
    # every (task, class, index) at most once, ids unique
    assert len({c.id for c in cands}) == len(cands)
    reasons = {(s.task_id, s.perturbation): s.reason for s in skips}
    assert reasons[("cancel-then-email", "reorder")] == "order carries meaning ('first ... then ...')"
    assert reasons[("invoice", "self_correction")].startswith("no slot can be corrected")
    # sorted by task id, class order, level, index
    keys = [(c.task_id, class_names().index(c.perturbation), c.level, c.index) for c in cands]
    assert keys == sorted(keys)


def test_cli_prints_the_review_dir_relative_to_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_suite(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["generate", "tasks/travel.jsonl", "--classes", "typo", "--per-class", "1"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("review/travel: "), result.stdout
    result = runner.invoke(
        app,
        [
            "generate",
            str(tmp_path / "tasks" / "travel.jsonl"),
            "--classes",
            "typo",
            "--per-class",
            "1",
            "--review-dir",
            str(tmp_path / "elsewhere"),
        ],
    )
    assert result.stdout.startswith("elsewhere/travel: "), result.stdout


def test_unknown_class_is_a_one_line_usage_error(tmp_path: Path) -> None:
    path = write_suite(tmp_path)
    result = runner.invoke(app, ["generate", str(path), "--classes", "typo,slang"])
    assert result.exit_code == 2
    assert result.stderr == (
        "error: unknown class 'slang' in --classes (expected any of: paraphrase, reorder, "
        "distractor, self_correction, typo, register)\n"
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "0.2,abc",
            "error: --intensity: 'abc' is not a number (expected e.g. 0.2, 0.1,0.2,0.4 or typo=0.1)\n",
        ),
        ("typo=1.5", "error: --intensity: 1.5 out of range for typo (expected 0 < ε <= 1)\n"),
        ("paraphrase=0.2", "error: --intensity: paraphrase is not being generated (--classes typo)\n"),
    ],
)
def test_bad_intensity_is_a_usage_error(tmp_path: Path, spec: str, message: str) -> None:
    path = write_suite(tmp_path)
    result = runner.invoke(app, ["generate", str(path), "--classes", "typo", "--intensity", spec])
    assert result.exit_code == 2
    assert result.stderr == message


def test_intensity_parsing_sweeps_and_per_class() -> None:
    classes = ("paraphrase", "typo", "distractor")
    assert parse_intensity("0.4,0.1,0.2", classes) == {c: (0.1, 0.2, 0.4) for c in classes}
    assert parse_intensity("typo=0.1,typo=0.3,distractor=0.5", classes) == {
        "paraphrase": (0.2,),
        "typo": (0.1, 0.3),
        "distractor": (0.5,),
    }
    assert parse_intensity("0.3,typo=0.05", classes)["paraphrase"] == (0.3,)
    assert parse_intensity(None, ("reorder",)) == {"reorder": (0.3,)}


def test_sweep_tags_each_candidate_with_its_level(tmp_path: Path) -> None:
    path = write_suite(tmp_path)
    result = runner.invoke(
        app,
        [
            "generate",
            str(path),
            "--classes",
            "typo,distractor",
            "--intensity",
            "0.1,0.2,0.4",
            "--per-class",
            "1",
        ],
    )
    assert result.exit_code == 0, result.stderr
    cands = read_candidates(tmp_path / "review" / "travel")
    by = {(c.task_id, c.perturbation, c.level) for c in cands}
    assert len(by) == len(cands) == len(TASKS) * 2 * 3
    sweep: dict[str, list[float]] = {}
    for c in sorted(cands, key=lambda c: c.level):
        if c.perturbation == "distractor":
            sweep.setdefault(c.task_id, []).append(c.epsilon)
    prompts = {t["id"]: t["prompt"] for t in TASKS}
    for task_id, eps in sweep.items():
        # never fewer tokens at a higher level (0.1 and 0.2 may both round to the shortest
        # sentence on a short prompt); 0.4 always more than 0.1
        assert eps == sorted(eps) and eps[-1] > eps[0], (task_id, eps)
        n = len(words(prompts[task_id]))
        assert abs(eps[-1] - 0.4) <= 0.5 / n + 1e-3  # the nearest whole number of tokens to 0.4 n
    info = json.loads((tmp_path / "review" / "travel" / "generation.json").read_text())
    assert info["levels"] == {"distractor": [0.1, 0.2, 0.4], "typo": [0.1, 0.2, 0.4]}


def _journal(review: Path, lines: list[Decision]) -> None:
    review.mkdir(parents=True, exist_ok=True)
    (review / "journal.jsonl").write_text("".join(d.model_dump_json() + "\n" for d in lines))


def _decision(seq: int, action: str, cid: str | None = None, undoes: int | None = None) -> Decision:
    return Decision(
        seq=seq,
        action=action,
        candidate_id=cid,
        reviewer="Ann <a@x>",  # type: ignore[arg-type]
        at="2026-01-01T00:00:00Z",
        undoes=undoes,
    )


def test_rerun_keeps_decisions_and_never_reproposes_rejected(tmp_path: Path) -> None:
    path = write_suite(tmp_path)
    options = dict(classes=("paraphrase", "typo"), per_class=2)
    generate(path, GenerateOptions(**options))  # type: ignore[arg-type]
    review = tmp_path / "review" / "travel"
    first = read_candidates(review)
    flight = [c for c in first if c.task_id == "flight-delhi" and c.perturbation == "paraphrase"]
    typos = [c for c in first if c.perturbation == "typo"]
    rejected, accepted, undone = flight[0], typos[1], typos[0]
    _journal(
        review,
        [
            _decision(1, "reject", rejected.id),
            _decision(2, "accept", accepted.id),
            _decision(3, "reject", undone.id),
            _decision(4, "undo", undoes=3),
            _decision(5, "skip", first[-1].id),
        ],
    )
    assert live_decisions(review / "journal.jsonl", read_candidates(review)) == {
        rejected.id: "reject",
        accepted.id: "accept",
    }
    result = generate(path, GenerateOptions(**options))  # type: ignore[arg-type]
    second = read_candidates(review)
    ids = {c.id for c in second}
    assert rejected.id in ids and accepted.id in ids and undone.id in ids
    assert result.kept_decided == 2
    # the rejected text is kept once (with its decision) and a new variant takes its index
    same_slot = [
        c
        for c in second
        if (c.task_id, c.perturbation, c.level, c.index)
        == (rejected.task_id, rejected.perturbation, rejected.level, rejected.index)
    ]
    assert len(same_slot) == 2 and {c.text for c in same_slot} - {rejected.text}
    assert [c.text for c in second].count(rejected.text) == 1
    # a third run proposes the same (deterministic)
    before = (review / "candidates.jsonl").read_bytes()
    generate(path, GenerateOptions(**options))  # type: ignore[arg-type]
    assert (review / "candidates.jsonl").read_bytes() == before


def test_other_classes_stay_when_regenerating_one(tmp_path: Path) -> None:
    path = write_suite(tmp_path)
    generate(path, GenerateOptions(classes=("typo",), per_class=1))
    generate(path, GenerateOptions(classes=("distractor",), per_class=1))
    cands = read_candidates(tmp_path / "review" / "travel")
    assert {c.perturbation for c in cands} == {"typo", "distractor"}


def test_malformed_journal_line_is_a_file_line_error(tmp_path: Path) -> None:
    path = write_suite(tmp_path)
    review = tmp_path / "review" / "travel"
    review.mkdir(parents=True)
    (review / "journal.jsonl").write_text('{"seq": 1, "action": "maybe", "reviewer": "a", "at": "t"}\n')
    result = runner.invoke(app, ["generate", str(path), "--classes", "typo"])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {review / 'journal.jsonl'}:1: action: Input should be ")


def test_rng_is_keyed_not_global() -> None:
    import random

    random.seed(1)
    a = rng_for(0, "t", "typo", 0.1, 0, 0).random()
    random.seed(2)
    assert rng_for(0, "t", "typo", 0.1, 0, 0).random() == a
    assert rng_for(0, "t", "typo", 0.1, 1, 0).random() != a
    assert rng_for(1, "t", "typo", 0.1, 0, 0).random() != a


def _run_cli(cwd: Path, hashseed: str, path: Path) -> dict[str, bytes]:
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "perturb",
            "generate",
            str(path),
            "--per-class",
            "3",
            "--intensity",
            "0.1,0.3",
        ],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
    )
    review = cwd / "review" / path.stem
    return {
        name: (review / name).read_bytes()
        for name in ("candidates.jsonl", "skipped.jsonl", "generation.json")
    }


def test_byte_identical_across_pythonhashseed_and_task_order(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    out_a = _run_cli(a, "1", write_suite(a))
    out_b = _run_cli(b, "4242", write_suite(b))
    assert out_a == out_b
    assert out_a["candidates.jsonl"].count(b"\n") > 50
    generate(write_suite(c, list(reversed(TASKS))), GenerateOptions(per_class=3, levels={}))
    # same options as the CLI runs: levels 0.1 and 0.3 for every class
    generate(
        c / "tasks" / "travel.jsonl",
        GenerateOptions(per_class=3, levels=parse_intensity("0.1,0.3", class_names())),
    )
    review = c / "review" / "travel"
    assert (review / "candidates.jsonl").read_bytes() == out_a["candidates.jsonl"]
    assert (review / "skipped.jsonl").read_bytes() == out_a["skipped.jsonl"]


def test_progress_bar_writes_to_stderr_only_when_enabled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_suite(tmp_path)
    from perturb.console import BarProgress

    generate(path, GenerateOptions(classes=("typo",), per_class=1))
    assert capsys.readouterr().err == ""
    generate(path, GenerateOptions(classes=("typo",), per_class=1, progress=BarProgress(counts=False)))
    assert "generate travel" in capsys.readouterr().err


def test_generate_refuses_while_a_review_holds_the_lock(tmp_path: Path) -> None:
    """A live review must not have candidates.jsonl rewritten under it."""
    import os
    import socket

    from perturb.errors import ReviewLockedError
    from perturb.generate.core import GenerateOptions, generate

    tasks = tmp_path / "tasks" / "s.jsonl"
    tasks.parent.mkdir()
    tasks.write_text(
        '{"id": "t1", "prompt": "Book a flight to Delhi on Friday.", "expected": "x", '
        '"grader": "exact", "slots": {"day": "Friday"}}\n'
    )
    lock = tmp_path / "review" / "s" / ".lock"
    lock.parent.mkdir(parents=True)
    lock.write_text(
        json.dumps(
            {
                "pid": os.getpid(),
                "host": socket.gethostname(),
                "started_at": "2026-11-30T05:00:00Z",
                "purpose": "perturb review",
                "token": "abc",
                "proc_start": None,
            }
        )
        + "\n"
    )
    with pytest.raises(ReviewLockedError):
        generate(tasks, GenerateOptions(classes=("typo",)))
    assert not (tmp_path / "review" / "s" / "candidates.jsonl").exists()
