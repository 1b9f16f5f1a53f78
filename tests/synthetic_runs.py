"""Write synthetic run directories (manifest.json + trials.jsonl) for the report/gate tests.

The records are the real :class:`perturb.records.RunManifest` and :class:`Trial` models, the
same ones ``perturb run`` writes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perturb.io.hashing import content_hash
from perturb.records import FixtureEntry, Grader, RunManifest, Trial, Usage

OUTCOME = {"P": "passed", "W": "wrong", "E": "errored"}


@dataclass
class Prompt:
    """One fixture entry and its trial outcomes, one letter per attempt: P, W or E."""

    task_id: str
    outcomes: str
    kind: str = "canonical"
    cand: str = ""
    level: float | None = None
    epsilon: float = 0.0
    weight: float = 1.0
    wrong_output: Any = None
    """The output of every wrong trial; None gives a different output per attempt."""
    cost: float | None = None
    latency: float = 0.5
    tokens: tuple[int, int] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    note: str | None = None
    """The grader note of every wrong trial."""
    traces: dict[str, list[str]] | None = None
    """A trace per outcome letter (``{"P": [...], "W": [...]}``)."""
    text: str | None = None
    """The prompt text written to the fixture file (default: made from the id)."""

    @property
    def prompt(self) -> str:
        return self.text if self.text is not None else f"Please do {self.task_id} ({self.kind})."

    def entry(self, suite: str = "demo") -> FixtureEntry:
        """The fixture entry this prompt stands for."""
        return FixtureEntry(
            id=self.variant_id,
            task_id=self.task_id,
            perturbation=self.kind,  # type: ignore[arg-type]
            prompt=self.prompt,
            level=self.level,
            epsilon=self.epsilon,
            expected="ok",
            grader=Grader(type="exact"),
            weight=self.weight,
            candidate_id=None if self.kind == "canonical" else (self.cand or "c-000000000000"),
        )

    @property
    def variant_id(self) -> str:
        if self.kind == "canonical":
            return f"{self.task_id}/canonical"
        return f"{self.task_id}/{self.kind}/{self.cand or 'c-000000000000'}"


def manifest(run_id: str, trials: int, suite: str = "demo", **over: Any) -> RunManifest:
    data: dict[str, Any] = {
        "run_id": run_id,
        "suite": suite,
        "fixtures": f"fixtures/{suite}.jsonl",
        "lock_sha256": "sha256:" + "0" * 64,
        "agent": "examples.demo_agent:agent",
        "model": None,
        "sampling": {"temperature": 0.7},
        "trials": trials,
        "timeout_s": 30.0,
        "concurrency": 4,
        "classes": ["canonical", "paraphrase", "typo"],
        "seed": 0,
        "perturb_version": "0.1.0",
        "python_version": "3.11.7",
        "platform": "Linux-x86_64",
        "started_at": "2026-01-02T03:04:05Z",
        "config_hash": "sha256:" + "1" * 64,
    }
    data.update(over)
    return RunManifest.model_validate(data)


def trial_lines(run_id: str, prompts: list[Prompt], suite: str = "demo") -> list[str]:
    lines = []
    for p in prompts:
        for attempt, letter in enumerate(p.outcomes):
            outcome = OUTCOME[letter]
            output: Any = "ok" if outcome == "passed" else None
            if outcome == "wrong":
                output = p.wrong_output if p.wrong_output is not None else f"answer {attempt}"
            usage = None
            if p.cost is not None or p.tokens is not None:
                usage = Usage(
                    cost_usd=p.cost,
                    input_tokens=p.tokens[0] if p.tokens else None,
                    output_tokens=p.tokens[1] if p.tokens else None,
                )
            trial = Trial(
                run_id=run_id,
                suite=suite,
                task_id=p.task_id,
                variant_id=p.variant_id,
                variant_sha256=content_hash(p.entry(suite).model_dump(mode="json")),
                perturbation=p.kind,  # type: ignore[arg-type]
                level=p.level,
                epsilon=p.epsilon,
                weight=p.weight,
                attempt=attempt,
                outcome=outcome,  # type: ignore[arg-type]
                output=output,
                error="timeout after 30s" if outcome == "errored" else None,
                error_kind="timeout" if outcome == "errored" else None,
                latency_s=round(p.latency + 0.1 * attempt, 3),
                grader_note=p.note if outcome == "wrong" else None,
                trace=p.traces.get(letter) if p.traces else None,
                usage=usage,
                seed=attempt,
                **p.extra,
            )
            lines.append(json.dumps(trial.model_dump(mode="json"), separators=(",", ":")))
    return lines


def write_run(
    root: Path,
    run_id: str,
    prompts: list[Prompt],
    *,
    trials: int | None = None,
    suite: str = "demo",
    extra_lines: list[str] | None = None,
    tail: str = "",
    fixtures: bool = False,
) -> Path:
    """Write ``root/run_id/{manifest.json,trials.jsonl}``; ``tail`` is appended raw;
    ``fixtures``: also ``root/../fixtures/<suite>.jsonl`` (the entries the manifest names, as
    a run from ``root/..`` finds them)."""
    run_dir = root / run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    n = trials if trials is not None else max(len(p.outcomes) for p in prompts)
    (run_dir / "manifest.json").write_text(
        json.dumps(manifest(run_id, n, suite).model_dump(mode="json"), indent=2) + "\n"
    )
    lines = trial_lines(run_id, prompts, suite) + list(extra_lines or [])
    (run_dir / "trials.jsonl").write_text("".join(x + "\n" for x in lines) + tail)
    if fixtures:
        entries = {p.variant_id: p.entry(suite) for p in prompts}
        path = root.parent / "fixtures" / f"{suite}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(e.model_dump_json() + "\n" for e in entries.values()), encoding="utf-8")
    return run_dir


def demo_prompts() -> list[Prompt]:
    """The golden run: canonical counts 5, 4, 2, 0 of n=5 (the worked example of test_metrics.py), two classes,
    two paraphrase levels, a consistently wrong task, errored trials and a drifting typo."""
    return [
        Prompt("t1", "PPPPP", cost=0.001, tokens=(100, 20)),
        Prompt("t2", "PPPWP", cost=0.001, tokens=(100, 20)),
        Prompt("t3", "PPWWE", latency=1.0),
        Prompt("t4", "WWWWW", wrong_output={"total": 42}, note="at total: expected 41, got 42"),
        Prompt("t1", "PPPPP", "paraphrase", "c-0000000000a1", 0.2, 0.18),
        Prompt("t1", "PPPWP", "paraphrase", "c-0000000000a2", 0.4, 0.41),
        Prompt(
            "t2",
            "PPWWP",
            "paraphrase",
            "c-0000000000b1",
            0.2,
            0.22,
            traces={
                "P": ["parse: 2 items", "intent: book", "reply"],
                "W": ["parse: 2 items", "intent: cancel", "reply"],
            },
        ),
        Prompt("t2", "PWWWE", "paraphrase", "c-0000000000b2", 0.4, 0.38),
        Prompt("t3", "PWWWW", "paraphrase", "c-0000000000c1", 0.2, 0.2),
        Prompt("t4", "WWWWW", "paraphrase", "c-0000000000d1", 0.2, 0.2, wrong_output={"total": 42}),
        Prompt("t1", "PPPPP", "typo", "c-0000000000e1", 0.1, 0.1, latency=0.2),
        Prompt("t2", "PPPPP", "typo", "c-0000000000e2", 0.1, 0.12, latency=0.2),
        Prompt("t3", "PPPPE", "typo", "c-0000000000e3", 0.1, 0.09, latency=0.2),
        Prompt("t4", "PPPPP", "typo", "c-0000000000e4", 0.1, 0.1, latency=0.2),
    ]
