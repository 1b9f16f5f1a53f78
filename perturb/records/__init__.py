"""Records that perturb writes to disk, as pydantic models with a docstring per field.

The data flow and the record each stage writes:

    tasks/<suite>.jsonl            Task            (written by the user)
    review/<suite>/candidates.jsonl Candidate      (perturb generate)
    review/<suite>/journal.jsonl    Decision       (perturb review / accept / reject)
    fixtures/<suite>.jsonl          FixtureEntry   (perturb freeze)
    fixtures/<suite>.lock.json      Lock           (perturb freeze)
    runs/<id>/manifest.json         RunManifest    (perturb run)
    runs/<id>/trials.jsonl          Trial          (perturb run)
    evals/baseline.json             Baseline       (perturb baseline)

Every model forbids unknown fields, so a typo in a hand-written file is an error, not a
silently ignored key. Field docstrings become JSON Schema descriptions (``perturb schema``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

SCHEMA_VERSION = 1

CANONICAL = "canonical"


def _known_class(value: str) -> str:
    # The registry owns the list of classes (built-ins and plugins); imported here, lazily,
    # because the class modules themselves build on these records.
    from perturb.generate.perturbations import CLASSES

    if value not in CLASSES:
        raise ValueError(
            f"unknown perturbation class {value!r} (expected one of: {', '.join(CLASSES.names())})"
        )
    return value


def _known_kind(value: str) -> str:
    return value if value == CANONICAL else _known_class(value)


def _known_grader(value: str) -> str:
    from perturb.run.graders import GRADERS

    if value not in GRADERS:
        raise ValueError(f"unknown grader {value!r} (expected one of: {', '.join(GRADERS.names())})")
    return value


PerturbationClass = Annotated[str, AfterValidator(_known_class)]
"""A registered perturbation class name (``typo``, or a plugin's)."""
VariantKind = Annotated[str, AfterValidator(_known_kind)]
"""``canonical`` or a registered perturbation class name: what a fixture entry or trial is."""
GraderType = Annotated[str, AfterValidator(_known_grader)]
"""A registered grader name (``exact``, or a plugin's)."""
Outcome = Literal["passed", "wrong", "errored"]

TASK_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"


class Record(BaseModel):
    """Base for on-disk records: unknown fields and non-finite numbers are errors; docstrings are
    descriptions."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, allow_inf_nan=False)


# --------------------------------------------------------------------------- tasks


class Grader(Record):
    """How a trial's output is compared with the task's ``expected`` value."""

    type: GraderType
    """``exact`` (output == expected), ``normalized`` (case, whitespace and edge punctuation
    ignored), ``contains`` (expected string, or every string of a list, occurs in the output),
    ``regex`` (expected is a pattern searched in the output), ``json_subset`` (output, parsed as
    JSON if it is text, contains every key/value of expected, recursively), ``numeric``
    (|output - expected| <= tolerance), ``callable`` (``function`` decides), ``llm_judge`` (a
    model decides using ``rubric``)."""
    tolerance: float | None = Field(default=None, ge=0)
    """``numeric`` only: the absolute tolerance (default 0)."""
    path: str | None = None
    """Grade only this dotted path of the (JSON) output, e.g. ``"booking.total"``."""
    function: str | None = None
    """``callable`` only: ``module:function`` called as ``f(output, expected, task) -> bool``."""
    rubric: str | None = None
    """``llm_judge`` only: what the judge should check."""
    model: str | None = None
    """``llm_judge`` only: the judge model (default from ``--judge-model``)."""

    @model_validator(mode="after")
    def _check(self) -> Grader:
        # The grader's spec owns which fields it reads and what they must hold.
        from perturb.run.graders import GRADERS

        spec = GRADERS.get(self.type)
        for name in ("function", "tolerance", "rubric", "model"):
            if getattr(self, name) is not None and name not in spec.options:
                owners = [n for n in GRADERS.names() if name in GRADERS.get(n).options]
                raise ValueError(f"{name} is only for the {' / '.join(owners)} grader, not {self.type!r}")
        if spec.validate is not None:
            spec.validate(self)
        return self


class Task(Record):
    """One canonical task: a line of ``tasks/<suite>.jsonl``."""

    id: str = Field(pattern=TASK_ID_PATTERN)
    """Unique within the suite; letters, digits and ``_ . : -``, at most 128 characters."""
    prompt: str = Field(min_length=1)
    """The user's request exactly as a canonical user would write it."""
    expected: Any
    """What counts as success, interpreted by ``grader``."""
    grader: Grader
    """How the agent's output is compared with ``expected``. A bare string such as
    ``"exact"`` is shorthand for ``{"type": "exact"}``."""
    weight: float = Field(default=1.0, gt=0)
    """The task's weight when tasks are averaged (default 1)."""
    slots: dict[str, str] = Field(default_factory=dict)
    """Named values that carry the meaning (``{"day": "Friday"}``). Each must occur verbatim in
    the prompt; every perturbation keeps them byte-for-byte."""
    tags: list[str] = Field(default_factory=list)
    """Free-form labels (``["refund", "smoke"]``)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Anything else the user wants to carry along; passed to the agent untouched."""

    @model_validator(mode="before")
    @classmethod
    def _grader_shorthand(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("grader"), str):
            data = {**data, "grader": {"type": data["grader"]}}
        return data

    @field_validator("prompt")
    @classmethod
    def _prompt_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("prompt is blank (expected the user's request)")
        return value

    @model_validator(mode="after")
    def _slots_in_prompt(self) -> Task:
        for name, value in self.slots.items():
            if not value:
                raise ValueError(f"slot {name!r} is empty (expected a value from the prompt)")
            if value not in self.prompt:
                raise ValueError(
                    f"slot {name!r} value {value!r} does not occur in the prompt "
                    "(expected a value copied verbatim from the prompt)"
                )
        return self


# --------------------------------------------------------------------------- generation


class Provenance(Record):
    """Where a candidate came from -- enough to reproduce it."""

    kind: Literal["rules", "llm"]
    """Generator: offline ``rules`` or an ``llm`` through an OpenAI-compatible server."""
    perturb_version: str
    """perturb's version when the candidate was generated."""
    seed: int
    """The seed of the generation run (each candidate's RNG is keyed by seed, task, class,
    level and index)."""
    model: str | None = None
    """LLM generator: the model name sent to the server."""
    temperature: float | None = None
    """LLM generator: the sampling temperature."""
    system_fingerprint: str | None = None
    """LLM generator: the server's ``system_fingerprint``, when it sent one."""
    template_sha256: str | None = None
    """LLM generator: sha256 of the prompt template used."""
    retries: int = 0
    """LLM generator: how many retries the request needed (429, 5xx, timeout, bad JSON)."""


class Screen(Record):
    """The automatic pre-screen of a candidate. Failing candidates are kept, flagged."""

    passed: bool
    """True when no flag was raised."""
    flags: list[str] = Field(default_factory=list)
    """One human-readable reason per problem (protected value lost, identical to the
    canonical prompt, duplicate, length ratio out of range, wrong final value, ...)."""


class Candidate(Record):
    """A proposed variant waiting for review: a line of ``review/<suite>/candidates.jsonl``."""

    id: str
    """Content-derived id: ``c-`` + 12 hex digits of the hash of (suite, task, class, text)."""
    suite: str
    """The suite name (the task file's stem)."""
    task_id: str
    """The canonical task this is a variant of."""
    perturbation: PerturbationClass
    """The perturbation class."""
    text: str
    """The variant prompt."""
    level: float = Field(ge=0)
    """The requested intensity epsilon."""
    epsilon: float = Field(ge=0)
    """The measured intensity of this text (definition per class in the README)."""
    index: int = Field(ge=0)
    """Which variant this is among those asked for the same task, class and level."""
    generator: Provenance
    """How it was generated."""
    screen: Screen
    """The pre-screen result."""
    details: dict[str, Any] = Field(default_factory=dict)
    """Class-specific facts: for ``self_correction`` the ``slot``, ``wrong`` and ``final``
    values and the ``phrasing``; for ``distractor`` the inserted sentences; for ``reorder``
    the new order of the original segments; for ``typo`` the edits."""
    task_sha256: str
    """Content hash of the canonical task when this was generated (stale detection)."""


class GenerationSkip(Record):
    """A (task, class) the generator could not perturb, with the reason."""

    task_id: str
    """The task."""
    perturbation: PerturbationClass
    """The class."""
    level: float
    """The requested level."""
    reason: str
    """Why, e.g. "order carries meaning ('first ... then ...')" or "no slot to correct"."""


# --------------------------------------------------------------------------- review


class SampleRule(Record):
    """A reproducible review sample (``perturb review --sample N --seed S``)."""

    n: int = Field(ge=1)
    """How many candidates were drawn."""
    seed: int
    """The seed of the draw."""
    rule: str = "stratified by class: round-robin over classes, each class shuffled with the seed"
    """How the draw was made."""


class Decision(Record):
    """One review action: a line of ``review/<suite>/journal.jsonl`` (append-only, fsynced)."""

    seq: int = Field(ge=1)
    """Position in the journal, 1-based, strictly increasing."""
    action: Literal["accept", "reject", "edit", "skip", "undo"]
    """What the reviewer did. ``undo`` cancels the decision ``undoes``."""
    candidate_id: str | None = None
    """The candidate decided on (None only for ``undo``)."""
    text: str | None = None
    """``edit`` only: the edited variant text (the candidate's own text stays as its origin)."""
    screen: Screen | None = None
    """``edit`` only: the pre-screen of the edited text."""
    reason: str | None = None
    """Optional one-line reason or note (for a rejection, why)."""
    reviewer: str
    """Who decided (``--reviewer`` or ``git config user.name <user.email>``)."""
    at: str
    """UTC time of the decision, ISO 8601 with ``Z``."""
    mode: Literal["individual", "sampled", "bulk"] = "individual"
    """``individual`` (read one by one), ``sampled`` (part of a ``--sample`` draw) or ``bulk``
    (several ids accepted/rejected in one command)."""
    sample: SampleRule | None = None
    """The sampling rule, when ``mode`` is ``sampled``."""
    undoes: int | None = None
    """``undo`` only: the ``seq`` of the decision it cancels."""
    task_sha256: str | None = None
    """The candidate's ``task_sha256`` when the decision was made. A decision made against an
    older version of the task does not count for a candidate regenerated after the task
    changed (the candidate is undecided again). None: applies whatever the task version."""


# --------------------------------------------------------------------------- fixtures


class FixtureEntry(Record):
    """One frozen prompt: a line of ``fixtures/<suite>.jsonl`` (canonical JSON, sorted)."""

    id: str
    """``<task_id>/canonical`` or ``<task_id>/<class>/<candidate_id>``."""
    task_id: str
    """The canonical task."""
    perturbation: VariantKind
    """``canonical`` or the perturbation class."""
    prompt: str
    """The text given to the agent."""
    level: float | None = None
    """Requested epsilon (None for canonical)."""
    epsilon: float = 0.0
    """Measured epsilon (0 for canonical)."""
    expected: Any
    """Copied from the task."""
    grader: Grader
    """Copied from the task."""
    weight: float = Field(default=1.0, gt=0)
    """Copied from the task."""
    slots: dict[str, str] = Field(default_factory=dict)
    """Copied from the task."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Copied from the task."""
    candidate_id: str | None = None
    """The reviewed candidate this came from (None for canonical)."""


class LockDecision(Record):
    """The review decision behind a frozen variant."""

    action: Literal["accepted", "edited"]
    """Accepted as generated, or edited by the reviewer."""
    reviewer: str
    """Who decided."""
    at: str
    """UTC time of the decision."""
    mode: Literal["individual", "sampled", "bulk"]
    """How it was reviewed."""
    note: str | None = None
    """The reviewer's note, if any."""
    origin_text: str | None = None
    """``edited`` only: the generated text before the edit."""
    sample: SampleRule | None = None
    """The sampling rule, for sampled reviews."""


class LockEntry(Record):
    """Integrity and provenance of one fixture line."""

    id: str
    """The fixture entry id."""
    sha256: str
    """``content_hash`` of the fixture entry (see :mod:`perturb.io.hashing`)."""
    task_id: str
    """The canonical task."""
    perturbation: VariantKind
    """``canonical`` or the class."""
    provenance: Provenance | None = None
    """How the variant was generated (None for canonical)."""
    decision: LockDecision | None = None
    """The review decision (None for canonical)."""


class Lock(Record):
    """``fixtures/<suite>.lock.json``: what was frozen, from what, and who approved it.

    It holds nothing that changes from run to run: freezing the same decisions twice gives
    the same bytes."""

    schema_version: int = SCHEMA_VERSION
    """Lock format version."""
    perturb_version: str
    """perturb's version at freeze time."""
    suite: str
    """Suite name."""
    tasks_file: str
    """The canonical task file, relative to the project root."""
    tasks: dict[str, str]
    """task id -> ``content_hash`` of the canonical task at freeze time (a later edit of the
    task marks its entries STALE)."""
    entries: list[LockEntry]
    """One entry per fixture line, in fixture order."""


# --------------------------------------------------------------------------- runs


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


class ClassFigures(Record):
    """Gated figures for one variant kind."""

    n_tasks: int
    """Tasks with at least one entry of this kind."""
    n_trials: int
    """Trials behind the figures."""
    mean: float
    """Weighted mean success."""
    pass_hat_k: float
    """Weighted pass^k at the baseline's k."""


class BaselineVariant(Record):
    """One prompt's trial counts at baseline time (lets the gate recompute figures on the tasks
    a later run shares with the baseline, at any k <= n, and bootstrap the change)."""

    variant_id: str
    """The fixture entry id."""
    task_id: str
    """The canonical task."""
    perturbation: VariantKind
    """``canonical`` or the class."""
    level: float | None = None
    """The entry's requested epsilon."""
    weight: float = Field(default=1.0, gt=0)
    """The task's weight."""
    n: int = Field(ge=1)
    """Trials kept (highest retry per attempt)."""
    passed: int = Field(ge=0)
    """Trials that passed."""
    wrong: int = Field(default=0, ge=0)
    """Trials that completed with an answer the grader did not accept."""
    errored: int = Field(default=0, ge=0)
    """Trials that did not complete."""


class Baseline(Record):
    """``evals/baseline.json``: the figures ``perturb gate`` compares a run against."""

    schema_version: int = SCHEMA_VERSION
    """Baseline format version."""
    perturb_version: str
    """perturb's version."""
    suite: str
    """The suite."""
    run_id: str
    """The run the figures came from."""
    k: int = Field(ge=1)
    """The k of ``pass_hat_k``."""
    trials: int
    """n of that run."""
    classes: dict[str, ClassFigures]
    """Per variant kind (``canonical`` and each class)."""
    task_labels: dict[str, Literal["stable-pass", "flaky", "brittle", "stable-fail"]]
    """``<task_id>/<kind>`` -> label at baseline time (``perturb.report.figures.task_label``: flaky if
    a prompt of the task is flaky, brittle if every prompt is deterministic but some always
    fail)."""
    variants: list[BaselineVariant] = Field(default_factory=list)
    """Optional per-prompt counts (written by ``perturb baseline``). With them the gate
    compares on matched tasks only, at any k, and supports ``--noise-aware``; without them
    (a hand-written baseline) it compares ``classes`` as they are."""
