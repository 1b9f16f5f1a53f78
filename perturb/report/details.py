"""The trials behind the figures: prompt texts, failing examples, errors by cause, divergence.

:mod:`perturb.report.results` keeps compact columns only (so a million trials fit); this module
reads what a person needs to see *why* something failed, with bounds:

* the fixture entries of the run (``manifest.fixtures``, resolved against the working
  directory, then the project the run directory sits in) for each prompt's text, expected
  value and the canonical prompt of its task;
* per prompt: at most ``sample`` wrong and ``sample`` errored trials (output, grader note,
  error; the first attempts), the distinct grader notes (at most ``NOTES_KEPT``), and the
  steps of every trace (for :mod:`perturb.report.divergence`);
* per class: errored trials grouped by cause (:func:`perturb.run.causes.group_causes`).

Trials are de-duplicated as everywhere (the highest ``retry`` per (variant, attempt, λ)); only
λ = 0 trials count, as in the report's figures.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perturb.errors import PerturbError
from perturb.io.hashing import content_hash
from perturb.io.jsonl import open_regular
from perturb.records import CANONICAL, FixtureEntry, RunManifest
from perturb.report.divergence import Divergence, diverge, trace_steps
from perturb.run.causes import Cause, ErroredTrial, group_causes

SAMPLE_PER_PROMPT = 3
"""Wrong and errored trials kept per prompt for the reports (each)."""
NOTES_KEPT = 5
"""Distinct grader notes kept per prompt."""
OUTPUT_CHARS = 2000
"""An output or error longer than this is cut in the reports and in ``perturb show``
(``--full`` in show prints it whole)."""


@dataclass
class TrialDetail:
    """One trial as ``perturb show`` and the failing examples show it."""

    attempt: int
    outcome: str
    output: Any = None
    error: str | None = None
    error_kind: str | None = None
    grader_note: str | None = None
    latency_s: float = 0.0
    trace: Any = None
    retry: int = 0


@dataclass
class PromptDetail:
    """One prompt (fixture entry) of the run: its text, its trials' outcomes and examples."""

    variant_id: str
    task_id: str
    kind: str
    prompt: str | None = None
    """The fixture text (None when the fixture file could not be read)."""
    expected: Any = None
    canonical_prompt: str | None = None
    """The task's canonical prompt (for the diff)."""
    changed: bool = False
    """The fixture entry's hash differs from the one the trials ran (the text shown is not what
    was run)."""
    n: int = 0
    passed: int = 0
    wrong: int = 0
    errored: int = 0
    failing: list[TrialDetail] = field(default_factory=list)
    """At most ``sample`` wrong and ``sample`` errored trials, lowest attempts first."""
    notes: Counter[str] = field(default_factory=Counter)
    """Grader notes of the wrong trials (at most ``NOTES_KEPT`` distinct), with counts."""
    passing_traces: list[tuple[str, ...]] = field(default_factory=list)
    failing_traces: list[tuple[str, ...]] = field(default_factory=list)
    divergence: Divergence | None = None
    """Flaky prompts: against their passing trials; variants failing every trial: against
    the canonical prompt's passing trials (:mod:`perturb.report.divergence`)."""

    @property
    def failed(self) -> int:
        return self.wrong + self.errored

    @property
    def label(self) -> str:
        if self.n == 0 or self.passed == self.n:
            return "stable-pass"
        return "stable-fail" if self.passed == 0 else "flaky"


@dataclass
class Details:
    """What :func:`read_details` found."""

    prompts: dict[str, PromptDetail]
    """variant_id -> its detail, sorted by id."""
    causes: dict[str, list[Cause]]
    """class (``canonical`` included) -> its errored trials by cause."""
    sample: int
    """Wrong and errored trials kept per prompt (each)."""
    fixtures: Path | None
    """The fixture file the texts came from (None: not found)."""
    note: str | None = None
    """Why prompt texts are missing, when they are."""
    _failing: dict[tuple[str, str], list[PromptDetail]] | None = field(default=None, repr=False)

    def failing_of(self, task_id: str, kind: str) -> list[PromptDetail]:
        """The prompts of one task in one class with a failing trial, fewest passes first."""
        if self._failing is None:
            index: dict[tuple[str, str], list[PromptDetail]] = {}
            for p in self.prompts.values():
                if p.failed:
                    index.setdefault((p.task_id, p.kind), []).append(p)
            for rows in index.values():
                rows.sort(key=lambda p: (p.passed / p.n, -p.errored, p.variant_id))
            self._failing = index
        return self._failing.get((task_id, kind), [])


def find_fixtures(manifest: RunManifest, run_dir: Path) -> Path | None:
    """The run's fixture file: ``manifest.fixtures`` as given (absolute or relative to the
    working directory), else relative to the project holding ``runs/<id>/``."""
    given = Path(manifest.fixtures)
    for candidate in (given, run_dir.resolve().parent.parent / given):
        if candidate.is_file():
            return candidate
    return None


def _entries(manifest: RunManifest, run_dir: Path) -> tuple[dict[str, FixtureEntry], Path | None, str | None]:
    from perturb.freeze.fixtures import load_fixtures

    path = find_fixtures(manifest, run_dir)
    if path is None:
        return {}, None, f"{manifest.fixtures}: not found (prompt texts and expected values are not shown)"
    try:
        entries = load_fixtures(path)
    except PerturbError as exc:
        return {}, None, f"{exc} (prompt texts and expected values are not shown)"
    return {e.id: e for e in entries}, path, None


def read_details(
    run_dir: str | Path,
    manifest: RunManifest,
    *,
    sample: int = SAMPLE_PER_PROMPT,
    keep_all: set[str] | None = None,
) -> tuple[Details, dict[str, list[TrialDetail]]]:
    """Stream ``run_dir/trials.jsonl`` (already validated by the report's reader) into
    :class:`Details`; also every trial, in attempt order, of the prompts in ``keep_all``
    (``perturb show``)."""
    run_dir = Path(run_dir)
    entries, fixtures, note = _entries(manifest, run_dir)
    latest: dict[tuple[str, int], tuple[int, dict[str, Any]]] = {}
    with open_regular(run_dir / "trials.jsonl") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                break  # a torn last line: the reader ignores it too
            try:
                obj = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(obj, dict) or float(obj.get("lam", 0.0)) > 0.0:
                continue
            key = (str(obj.get("variant_id")), int(obj.get("attempt", 0)))
            retry = int(obj.get("retry", 0))
            prev = latest.get(key)
            if prev is None or retry >= prev[0]:
                if obj.get("outcome") == "passed" and (keep_all is None or key[0] not in keep_all):
                    obj["output"] = None  # passing outputs are not shown; keep memory small
                latest[key] = (retry, obj)
    prompts: dict[str, PromptDetail] = {}
    every: dict[str, list[TrialDetail]] = {}
    errored: dict[str, list[ErroredTrial]] = {}
    for (vid, attempt), (retry, obj) in sorted(latest.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        p = prompts.get(vid)
        if p is None:
            p = prompts[vid] = PromptDetail(vid, str(obj.get("task_id")), str(obj.get("perturbation")))
            entry = entries.get(vid)
            if entry is not None:
                p.prompt, p.expected = entry.prompt, entry.expected
                p.changed = content_hash(entry.model_dump(mode="json")) != obj.get("variant_sha256")
            canon = entries.get(f"{p.task_id}/{CANONICAL}")
            if canon is not None:
                p.canonical_prompt = canon.prompt
        outcome = str(obj.get("outcome"))
        detail = TrialDetail(
            attempt,
            outcome,
            obj.get("output"),
            obj.get("error"),
            obj.get("error_kind"),
            obj.get("grader_note"),
            float(obj.get("latency_s", 0.0)),
            obj.get("trace"),
            retry,
        )
        p.n += 1
        steps = trace_steps(detail.trace)
        if outcome == "passed":
            p.passed += 1
            if steps is not None:
                p.passing_traces.append(steps)
        else:
            if outcome == "wrong":
                p.wrong += 1
                if detail.grader_note and (detail.grader_note in p.notes or len(p.notes) < NOTES_KEPT):
                    p.notes[detail.grader_note] += 1
            else:
                p.errored += 1
                errored.setdefault(p.kind, []).append(
                    ErroredTrial(vid, attempt, detail.error_kind, detail.error)
                )
            if steps is not None:
                p.failing_traces.append(steps)
            same = sum(1 for t in p.failing if t.outcome == outcome)
            if same < sample:
                p.failing.append(detail)
        if keep_all is not None and vid in keep_all:
            every.setdefault(vid, []).append(detail)
    for p in prompts.values():
        p.divergence = _divergence(p, prompts)
    causes = {kind: group_causes(items) for kind, items in errored.items()}
    return Details(prompts, causes, sample, fixtures, note), every


def _divergence(p: PromptDetail, prompts: dict[str, PromptDetail]) -> Divergence | None:
    if not p.failing_traces:
        return None
    if p.passing_traces:
        return diverge(p.failing_traces, p.passing_traces)
    if p.kind != CANONICAL:
        canon = prompts.get(f"{p.task_id}/{CANONICAL}")
        if canon is not None and canon.passing_traces:
            return diverge(
                p.failing_traces, canon.passing_traces, against="the canonical prompt's passing trials"
            )
    return None
