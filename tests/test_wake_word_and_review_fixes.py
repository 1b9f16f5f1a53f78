"""Defects a review of rounds seven and eight found, each pinned: a greeting or wake word
followed by nothing but punctuation crashed reorder (and with it the whole `perturb generate`
run); a sentence whose subject is an assistant's name ("Alexa stopped playing music") was read
as a wake word by distractor, reorder and typo; typo tried every slip of a very long letter run.
The prompts are written for these tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from perturb.generate.core import prepare
from perturb.generate.perturbations._text import WAKE_WORD_RE
from perturb.generate.perturbations.distractor import message_kind
from perturb.generate.perturbations.typo import edit_word
from tests.test_reorder_rules import _all_texts, _task


@pytest.mark.parametrize(
    ("text", "wake"),
    [
        ("Alexa, set a timer", "Alexa, "),
        ("Hey Google, what's on today?", "Hey Google, "),
        ("OK Google turn the lights off", "OK Google "),
        ("Alexa set a timer for 10 minutes", "Alexa "),
        ("Google the nearest pharmacy for me", None),
        ("Alexa stopped playing music in the kitchen yesterday.", None),
        ("Google Docs keeps logging me out, can you help?", None),
        ("Siri keeps mishearing my name when I call.", None),
    ],
)
def test_a_wake_word_without_its_comma_only_before_an_order(text: str, wake: str | None) -> None:
    m = WAKE_WORD_RE.match(text)
    assert (m.group(0) if m else None) == wake


def test_a_sentence_about_the_assistant_is_not_a_voice_command() -> None:
    masked = prepare(_task("Alexa stopped playing music in the kitchen yesterday.", {})).masked
    assert message_kind(masked) != "voice"
    assert message_kind(prepare(_task("Alexa, play some music in the kitchen", {})).masked) == "voice"


def test_reorder_keeps_the_case_of_the_word_after_an_assistant_s_name() -> None:
    texts = _all_texts(_task("Alexa stopped playing music in the kitchen on Sunday at about 9pm.", {}))
    assert texts and all(t.startswith("Alexa stopped ") or not t.startswith("Alexa ") for t in texts), texts
    assert not any("Alexa Stopped" in t for t in texts)


@pytest.mark.parametrize("prompt", ["Hi, ?", "Alexa, ?", "Hey Siri, !", "Hello, ."])
def test_reorder_skips_a_greeting_or_wake_word_with_nothing_after_it(prompt: str) -> None:
    assert _all_texts(_task(prompt, {})) == set()


@pytest.mark.slow
def test_generate_runs_a_suite_holding_a_bare_wake_word(tmp_path: Path) -> None:
    (tmp_path / "tasks").mkdir()
    tasks = [
        {"id": "w1", "prompt": "Alexa, ?", "expected": {}, "grader": "exact"},
        {
            "id": "w2",
            "prompt": "Book a table for two at 7pm on Friday at Luigi's.",
            "expected": {},
            "grader": "exact",
        },
    ]
    (tmp_path / "tasks" / "t.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks), "utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "perturb", "generate", "tasks/t.jsonl", "--classes", "reorder"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    skipped = [
        json.loads(line) for line in (tmp_path / "review" / "t" / "skipped.jsonl").read_text().splitlines()
    ]
    assert {s["task_id"] for s in skipped} >= {"w1"}


def test_typo_leaves_a_letter_run_longer_than_a_word_alone() -> None:
    import random

    # every slip of such a run was tried (quadratic: 5 s and 20 s for these two)
    assert edit_word("x" * 5000, random.Random(0)) is None
    assert edit_word("hello" + "x" * 10000, random.Random(0)) is None
    assert edit_word("appointment", random.Random(0)) is not None
