"""Records of ``runs/<id>/``: one trial and the run manifest (``perturb run``)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from perturb.records.base import SCHEMA_VERSION, Outcome, Record, VariantKind


class Usage(Record):
    """What a trial cost, when the agent reports it."""

    input_tokens: int | None = None
    """Prompt tokens."""
    output_tokens: int | None = None
    """Completion tokens."""
    cost_usd: float | None = None
    """Cost in US dollars."""


class Trial(Record):
    """One attempt of one prompt: a line of ``runs/<id>/trials.jsonl`` (append-only)."""

    run_id: str
    """The run."""
    suite: str
    """The suite."""
    task_id: str
    """The canonical task."""
    variant_id: str
    """The fixture entry id."""
    variant_sha256: str
    """The fixture entry's hash (ties the trial to exactly what was run)."""
    perturbation: VariantKind
    """``canonical`` or the class."""
    level: float | None = None
    """The entry's requested epsilon (None for canonical)."""
    epsilon: float = 0.0
    """The entry's measured epsilon."""
    weight: float = 1.0
    """The task's weight."""
    attempt: int = Field(ge=0)
    """0-based attempt index; a run with ``--trials N`` has attempts 0..N-1 per entry."""
    outcome: Outcome
    """``passed``; ``wrong`` (completed, not accepted); ``errored`` (did not complete)."""
    output: Any = None
    """What the agent returned (None when errored)."""
    error: str | None = None
    """Errored trials: what went wrong (exception, timeout, exit status, malformed output)."""
    error_kind: str | None = None
    """Errored trials: ``exception``, ``timeout``, ``exit_status``, ``malformed`` or ``api``."""
    grader_note: str | None = None
    """Why the grader decided as it did, when it says (e.g. the first mismatching key)."""
    latency_s: float = 0.0
    """Wall time of the agent call in seconds."""
    usage: Usage | None = None
    """Tokens and cost, if the agent reported them."""
    trace: Any = None
    """Tool calls and observations, if the agent reported them."""
    seed: int | None = None
    """The seed handed to the agent for this trial."""
    retry: int = Field(default=0, ge=0)
    """0 for the first execution; n for the n-th ``--retry-errored`` re-execution. Readers keep
    the line with the highest ``retry`` per (variant_id, attempt)."""


class RunManifest(Record):
    """``runs/<id>/manifest.json``: everything that defines a run. Never holds API keys."""

    schema_version: int = SCHEMA_VERSION
    """Manifest format version."""
    run_id: str
    """The run id (the directory name)."""
    suite: str
    """The suite."""
    fixtures: str
    """Path of the fixture file that was run."""
    lock_sha256: str
    """sha256 of the lock file's bytes at run time."""
    agent: str
    """The agent SPEC (``module:function``, ``cmd:...``, ``openai:MODEL``)."""
    model: str | None = None
    """Model name, for model agents."""
    base_url: str | None = None
    """Server base URL, for model agents (no credentials)."""
    sampling: dict[str, Any] = Field(default_factory=dict)
    """Sampling parameters (temperature, top_p, seed, ...)."""
    trials: int = Field(ge=1)
    """n: attempts per fixture entry."""
    timeout_s: float | None = None
    """Per-trial timeout in seconds."""
    concurrency: int = Field(ge=1)
    """Trials in flight at once (may change between resumes)."""
    classes: list[str]
    """The variant kinds included (``canonical`` plus classes)."""
    task_ids: list[str] | None = None
    """The task subset (None = all)."""
    tier: str | None = None
    """The tier used, if any."""
    judge: dict[str, Any] | None = None
    """The LLM judge's model and prompt hash, when a task uses one."""
    seed: int = 0
    """Base seed; trial seeds derive from it, the entry and the attempt."""
    perturb_version: str
    """perturb's version."""
    python_version: str
    """Python's version."""
    platform: str
    """OS and machine."""
    started_at: str
    """UTC start of the first execution."""
    config_hash: str
    """``content_hash`` of the fields that define the numbers (everything above except
    concurrency, times and versions). Resuming with a different config is refused."""
    retries: list[dict[str, Any]] = Field(default_factory=list)
    """One record per ``--retry-errored`` pass: time and how many trials it re-ran."""
