"""``perturb run``: n trials of every selected fixture entry, streamed to ``runs/<id>/``.

Flow: resolve the config (tier, then flags) -> refuse if ``perturb verify`` fails -> load the
agent and check every grader -> write or check ``manifest.json`` (a resume whose config
differs is refused, naming each field) -> scan ``trials.jsonl`` for what is done -> run the
missing (variant, attempt) pairs.

Scheduling: ``concurrency`` worker coroutines pull (entry, attempt) pairs from one lazy
iterator (attempt-major), so there is no barrier between attempts and nothing is
materialised. Sync agents run in a thread pool; every agent call has the per-trial timeout.

Durability: each finished trial is written to ``trials.jsonl`` with one ``write()`` before it
is counted, so a SIGKILL loses no trial that was counted; rerunning the same command runs
exactly the pairs without a line. ``fsync`` is grouped (at most ``FSYNC_INTERVAL_S`` apart,
and at the end): only an OS crash or power loss can lose the trials of that last interval,
and those are simply run again on resume (a torn line is cut off), never duplicated.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perturb.errors import GraderError, UsageError
from perturb.freeze.core import assert_verified, load_fixtures
from perturb.freeze.fixtures import check_fixtures_path, lock_path_for
from perturb.generate.perturbations import variant_kinds
from perturb.io.clock import utc_now
from perturb.io.config import Tier, get_tier
from perturb.io.hashing import sha256_bytes, short_id
from perturb.io.jsonl import Appender, read_bytes
from perturb.io.llm import OPENAI_URL, preflight, resolve_api_key, resolve_base_url
from perturb.io.paths import confine
from perturb.io.secrets import redact
from perturb.progress import Progress
from perturb.records import FixtureEntry, RunManifest
from perturb.run.agents import Agent, add_import_paths, load_agent
from perturb.run.agents.spec import AgentSettings
from perturb.run.causes import Cause, causes_block, errored_trials, group_causes
from perturb.run.executors import (
    DEFAULT_EXECUTOR,
    EXECUTORS,
    ExecutorSettings,
    ExecutorSpec,
    WorkerRecipe,
    check_address,
    parse_resources,
)
from perturb.run.faults import parse_lambdas, resolve_classes
from perturb.run.graders import GRADERS, check_grader
from perturb.run.scheduler import Counts, ToolLayer, TrialRunner, runner_secrets
from perturb.run.store import (
    TrialIndex,
    config_hash,
    read_manifest,
    refuse_drift,
    run_lock,
    scan_trials,
    versions,
    write_manifest,
)
from perturb.run.tools import ToolSuite, find_tools
from perturb.tasks import suite_name

DEFAULT_CONCURRENCY = 8
DEFAULT_TIMEOUT_S = 300.0
FSYNC_INTERVAL_S = 1.0


@dataclass
class RunOptions:
    """Everything ``perturb run`` accepts. None means "from the tier, else the default"."""

    fixtures: Path
    agent: str
    trials: int | None = None
    concurrency: int | None = None
    timeout: float | None = None
    classes: list[str] | None = None
    tasks: list[str] | None = None
    tier: str | None = None
    temperature: float | None = None
    seed: int = 0
    out: Path | None = None
    retry_errored: bool = False
    base_url: str | None = None
    api_key_env: str | None = None
    max_retries: int | None = None
    """``--max-retries``: retries per request of an ``openai:`` agent (None: its default, 6)."""
    pass_env: tuple[str, ...] = ()
    """``--pass-env NAME``: variables a ``cmd:`` agent gets beyond its allowlist (not recorded:
    the environment does not change the numbers' definition)."""
    judge_model: str | None = None
    faults: str | list[float] | None = None
    """``--faults 0,0.1,0.3``: the fault-injection rates λ to run every entry at (0 included)."""
    fault_classes: list[str] | None = None
    """``--fault-classes``: the fault classes injected (default: every non-compound class)."""
    progress: Progress | None = None
    """Told how the run advances (the CLI draws a bar on a terminal); None: silent."""
    executor: str = DEFAULT_EXECUTOR
    """``--executor``: where trials run (``local``, ``ray``, or a plugin); not recorded: it does
    not change the numbers, so a run may be resumed under another executor."""
    ray_address: str | None = None
    """``--ray-address``: ``auto``, ``ray://HOST:PORT`` or ``HOST:PORT``; None: a local cluster."""
    resources: str | dict[str, Any] | None = None
    """``--resources``: one worker's Ray resources, JSON such as ``{"CPU": 1, "GPU": 0}``."""


@dataclass
class RunSummary:
    """What a ``perturb run`` invocation did."""

    run_id: str
    run_dir: Path
    trials_path: Path
    ran: int
    passed: int
    wrong: int
    errored: int
    done: int
    total: int
    totals: dict[str, int]
    wall_s: float
    retry_pass: int | None = None
    resumed: bool = False
    notes: list[str] = field(default_factory=list)
    causes: list[Cause] = field(default_factory=list)
    """The run's errored trials (all of them, not only this invocation's) grouped by cause."""

    def summary(self) -> str:
        """The one-line summary the CLI prints."""
        what = "re-ran" if self.retry_pass else "ran"
        head = (
            f"{what} {self.ran} trials in {self.wall_s:.2f} s: {self.passed} passed, "
            f"{self.wrong} wrong, {self.errored} errored"
        )
        if self.retry_pass:
            head += f" (retry pass {self.retry_pass})"
        t = self.totals
        run = (
            f"run {self.run_id}: {self.done}/{self.total} trials done ({t['passed']} passed, "
            f"{t['wrong']} wrong, {t['errored']} errored) in {self.trials_path}"
        )
        tail = f"next: perturb report {self.run_dir}"
        if self.notes:
            tail = "; ".join(self.notes) + "; " + tail
        if self.done < self.total:
            tail = "rerun the same command to finish, then " + tail
        elif t["errored"]:
            tail += f" (or --retry-errored to re-run the {t['errored']} errored)"
        return "\n".join([f"{head}; {run}; {tail}", *causes_block(self.causes, str(self.run_dir))])


def _select(
    entries: list[FixtureEntry], tasks: int | list[str] | None, classes: list[str], fixtures: Path
) -> tuple[list[FixtureEntry], list[str] | None]:
    task_order: list[str] = []
    for entry in entries:
        if not task_order or task_order[-1] != entry.task_id:
            if entry.task_id not in task_order:
                task_order.append(entry.task_id)
    task_ids: list[str] | None
    if tasks is None:
        task_ids = None
    elif isinstance(tasks, int):
        task_ids = task_order[:tasks] if tasks < len(task_order) else None
    else:
        known = set(task_order)
        unknown = [t for t in tasks if t not in known]
        if unknown:
            raise UsageError(
                f"unknown task {unknown[0]!r} in --tasks (expected ids from {fixtures}: "
                f"{', '.join(task_order[:8])}{', ...' if len(task_order) > 8 else ''})"
            )
        task_ids = sorted(set(tasks))
    wanted = set(task_ids) if task_ids is not None else None
    chosen = [e for e in entries if e.perturbation in classes and (wanted is None or e.task_id in wanted)]
    if not chosen:
        raise UsageError(
            f"{fixtures}: no entries match classes {', '.join(classes)}"
            + (f" and tasks {', '.join(task_ids)}" if task_ids else "")
            + " (expected at least one fixture entry to run)"
        )
    return chosen, task_ids


def _resolve(options: RunOptions, root: Path) -> tuple[Tier | None, int, int, float, list[str], Any]:
    tier = get_tier(root, options.tier) if options.tier else None

    def pick(flag: Any, from_tier: Any, default: Any, name: str) -> Any:
        value = flag if flag is not None else from_tier if from_tier is not None else default
        if value is None:
            raise UsageError(f"no {name} given (expected {name} N, or --tier with trials set)")
        if value <= 0:
            raise UsageError(f"{name} must be > 0, got {value}")
        return value

    trials = pick(options.trials, tier.trials if tier else None, None, "--trials")
    concurrency = pick(
        options.concurrency,
        tier.concurrency if tier else None,
        DEFAULT_CONCURRENCY,
        "--concurrency",
    )
    timeout = pick(options.timeout, tier.timeout if tier else None, DEFAULT_TIMEOUT_S, "--timeout")
    kinds = variant_kinds()
    classes = options.classes or (tier.classes if tier else None) or list(kinds)
    bad = [c for c in classes if c not in kinds]
    if bad:
        raise UsageError(f"unknown class {bad[0]!r} in --classes (expected some of: {', '.join(kinds)})")
    classes = [c for c in kinds if c in set(classes)]
    tasks: Any = options.tasks if options.tasks else (tier.tasks if tier else None)
    return tier, trials, concurrency, float(timeout), classes, tasks


def _make_judge(entries: list[FixtureEntry], options: RunOptions) -> Any:
    models = {e.grader.model for e in entries if GRADERS.get(e.grader.type).uses_judge}
    if not models:
        return None
    from perturb.run.graders.llm_judge import LLMJudge

    default = options.judge_model or next((m for m in sorted(m for m in models if m)), None)
    url = resolve_base_url(options.base_url, OPENAI_URL)
    try:
        key = resolve_api_key(options.api_key_env, url)
    except UsageError:
        key = None
    if not default or not key:
        return None  # check_grader reports what is missing
    if url is not None:
        preflight(url, what="the llm_judge server")  # before any trial, like the agent's
    return LLMJudge(model=default, api_key=key, base_url=url, models={m or default for m in models})


def _iter_jobs(
    entries: list[FixtureEntry],
    trials: int,
    index: TrialIndex,
    retry_errored: bool,
    lams: list[float] | None = None,
) -> Iterator[tuple[FixtureEntry, int, float, int]]:
    """(entry, attempt, λ, retry) for every triple still to run, attempt-major, then λ."""
    latest = index.latest
    for attempt in range(trials):
        for lam in lams or [0.0]:
            for entry in entries:
                prev = latest.get((entry.id, attempt, lam))
                if prev is None:
                    yield entry, attempt, lam, 0
                elif retry_errored and prev[1] == "errored":
                    yield entry, attempt, lam, prev[0] + 1


def _faults(options: RunOptions, tier: Tier | None) -> tuple[list[float] | None, list[str]]:
    """λ values (None: no fault axis) and the fault classes, from the flags, else the tier."""
    lams = parse_lambdas(options.faults if options.faults is not None else (tier.faults if tier else None))
    names = options.fault_classes or (tier.fault_classes if tier else None)
    classes = resolve_classes(names)
    if names and lams is None:
        raise UsageError(
            "--fault-classes needs --faults (expected e.g. --faults 0,0.1 --fault-classes timeout)"
        )
    return lams, classes


def _executor(options: RunOptions) -> tuple[ExecutorSpec, str | None, dict[str, float]]:
    """The ``--executor`` spec and its checked cluster options (before anything is written)."""
    from perturb.errors import PerturbError

    try:
        spec = EXECUTORS.get(options.executor)
    except PerturbError as exc:
        raise UsageError(f"--executor: {exc}") from None
    if not spec.remote:
        given = "--ray-address" if options.ray_address is not None else None
        given = given or ("--resources" if options.resources is not None else None)
        if given:
            raise UsageError(
                f"{given} applies to a cluster executor, not --executor {spec.name} (add --executor ray)"
            )
    address = check_address(options.ray_address) if options.ray_address is not None else None
    resources = parse_resources(options.resources) if options.resources is not None else {}
    if spec.check is not None:
        spec.check()
    return spec, address, resources


def _check_task_tools(entries: list[FixtureEntry], suite: ToolSuite | None, fixtures: Path) -> None:
    """A task whose ``metadata.tools`` names an undeclared tool: UsageError before the run."""
    declared = set(suite.tools) if suite else set()
    for entry in entries:
        wanted = entry.metadata.get("tools")
        if wanted is None:
            continue
        if not isinstance(wanted, list) or not all(isinstance(t, str) for t in wanted):
            raise UsageError(f"{fixtures}: {entry.id}: metadata.tools: expected a list of tool names")
        missing = [t for t in wanted if t not in declared]
        if missing:
            where = suite.path if suite and suite.path else "tasks/<suite>.tools.toml"
            raise UsageError(
                f"{fixtures}: {entry.id}: metadata.tools: tool {missing[0]!r} is not declared in {where} "
                f"(declared: {', '.join(sorted(declared)) or 'none'}; add a [tools.{missing[0]}] table)"
            )


def run(options: RunOptions) -> RunSummary:
    """Run (or resume) the trials; see the module docstring."""
    fixtures = Path(options.fixtures)
    check_fixtures_path(fixtures)
    root = fixtures.parent.parent
    if options.out is not None and Path(options.out).exists() and not Path(options.out).is_dir():
        raise UsageError(
            f"--out {options.out}: is a file, not a directory (expected a run directory, new or "
            "written by `perturb run`; choose another --out)"
        )
    if options.max_retries is not None and options.max_retries < 0:
        raise UsageError(f"--max-retries must be >= 0, got {options.max_retries}")
    tier, trials, concurrency, timeout, classes, tasks = _resolve(options, root)
    lams, fault_classes = _faults(options, tier)
    executor = _executor(options)
    lock = assert_verified(fixtures)
    lock_sha = sha256_bytes(read_bytes(lock_path_for(fixtures)))
    suite = suite_name(fixtures)
    entries, task_ids = _select(load_fixtures(fixtures), tasks, classes, fixtures)
    shas = {e.id: e.sha256 for e in lock.entries}
    add_import_paths(root)  # callable graders, python agents and tools live in the project
    tool_suite = find_tools(root, suite)
    _check_task_tools(entries, tool_suite, fixtures)

    agent = load_agent(
        options.agent,
        project_root=root,
        base_url=options.base_url,
        api_key_env=options.api_key_env,
        temperature=options.temperature,
        request_timeout=timeout,
        pass_env=tuple(options.pass_env),
        max_retries=options.max_retries,
    )
    check_server = getattr(agent, "preflight", None)
    if callable(check_server):
        check_server()  # a model server that is not there fails here, before any trial
    judge = _make_judge(entries, options)
    for entry in entries:
        try:
            check_grader(entry.grader, entry.expected, judge=judge)
        except GraderError as exc:
            raise GraderError(f"{fixtures}: {entry.id}: grader: {exc}") from None
    secrets = runner_secrets(agent, judge, options.api_key_env)

    facts = agent.describe()
    sampling = {"temperature": options.temperature, **facts.get("sampling", {})}
    config: dict[str, Any] = {
        "suite": suite,
        "lock_sha256": lock_sha,
        "agent": redact(options.agent, secrets),
        "model": facts.get("model"),
        "base_url": facts.get("base_url"),
        "sampling": sampling,
        "trials": trials,
        "timeout_s": timeout,
        "classes": classes,
        "task_ids": task_ids,
        "judge": judge.describe() if judge else None,
        "seed": options.seed,
        "faults": {"lambdas": lams, "classes": fault_classes} if lams is not None else None,
        "tools": tool_suite.sha256 if tool_suite else None,
    }
    digest = config_hash(config)
    run_dir = (
        Path(options.out) if options.out else confine(root, root / "runs" / f"{suite}-{short_id(digest, 8)}")
    )
    manifest_path = run_dir / "manifest.json"

    if options.retry_errored and not manifest_path.exists():
        raise UsageError(
            f"{run_dir}: no run to retry (expected {manifest_path}; run without --retry-errored first)"
        )
    plan = _Plan(
        options=options,
        fixtures=fixtures,
        run_dir=run_dir,
        config=config,
        digest=digest,
        tier=tier,
        trials=trials,
        concurrency=concurrency,
        timeout=timeout,
        entries=entries,
        shas=shas,
        suite=suite,
        agent=agent,
        judge=judge,
        secrets=secrets,
        lams=lams,
        tools=(
            ToolLayer(tool_suite, tuple(fault_classes))
            if tool_suite is not None or lams is not None
            else None
        ),
        executor=executor,
        root=root,
    )
    with run_lock(run_dir):  # creates the directory; one writer per run directory
        return _execute(plan)


@dataclass
class _Plan:
    """Everything resolved before the run directory is touched."""

    options: RunOptions
    fixtures: Path
    run_dir: Path
    config: dict[str, Any]
    digest: str
    tier: Tier | None
    trials: int
    concurrency: int
    timeout: float
    entries: list[FixtureEntry]
    shas: dict[str, str]
    suite: str
    agent: Agent
    judge: Any
    secrets: list[str]
    lams: list[float] | None = None
    tools: ToolLayer | None = None
    executor: tuple[ExecutorSpec, str | None, dict[str, float]] | None = None
    root: Path | None = None

    def recipe(self, run_id: str) -> WorkerRecipe:
        """How a worker process rebuilds this run's trial runner."""
        options, root = self.options, self.root
        relative = None
        if root is not None:
            with contextlib.suppress(ValueError):
                relative = str(root.resolve().relative_to(Path.cwd().resolve()))
        judge = None
        if self.judge is not None:
            facts = self.judge.describe()
            judge = {"model": facts["model"], "models": facts["models"], "base_url": self.judge.base_url}
        return WorkerRecipe(
            agent=options.agent,
            settings=AgentSettings(
                root.resolve() if root is not None else None,
                options.base_url,
                options.api_key_env,
                options.temperature,
                self.timeout,
                tuple(options.pass_env),
                options.max_retries,
            ),
            run_id=run_id,
            suite=self.suite,
            shas=self.shas,
            seed=options.seed,
            temperature=options.temperature,
            timeout=self.timeout,
            judge=judge,
            api_key_env=options.api_key_env,
            tools_sha256=self.tools.suite.sha256 if self.tools and self.tools.suite else None,
            fault_classes=self.tools.classes if self.tools is not None else None,
            root_relative=relative,
        )


def _execute(plan: _Plan) -> RunSummary:
    """Write or check the manifest, find what is done, run the rest (under the run lock)."""
    options, run_dir, tier, trials = plan.options, plan.run_dir, plan.tier, plan.trials
    entries, config, secrets = plan.entries, plan.config, plan.secrets
    run_id = run_dir.name
    manifest_path = run_dir / "manifest.json"
    trials_path = run_dir / "trials.jsonl"
    retry_pass: int | None = None
    if manifest_path.exists():
        manifest = read_manifest(manifest_path)
        refuse_drift(manifest_path, manifest, config)
        manifest.concurrency = plan.concurrency
        manifest.tier = tier.name if tier else manifest.tier
        resumed = True
    else:
        if trials_path.exists():
            raise UsageError(
                f"{trials_path} exists but {manifest_path} does not (expected a run directory "
                "written by `perturb run`; choose another --out)"
            )
        manifest = RunManifest.model_validate(
            {
                "run_id": run_id,
                "fixtures": str(plan.fixtures),
                "concurrency": plan.concurrency,
                "tier": tier.name if tier else None,
                "started_at": utc_now(),
                "config_hash": plan.digest,
                **versions(),
                **config,
            }
        )
        resumed = False
    index = scan_trials(trials_path)
    if options.retry_errored:
        errored = sum(1 for _, o in index.latest.values() if o == "errored")
        retry_pass = len(manifest.retries) + 1
        manifest.retries.append({"pass": retry_pass, "at": utc_now(), "errored": errored})
    write_manifest(manifest_path, manifest, secrets)

    lams = plan.lams or [0.0]
    total = len(entries) * trials * len(lams)
    selected_ids = {e.id for e in entries}
    wanted_lams = set(lams)
    before = dict.fromkeys(("passed", "wrong", "errored"), 0)
    done_before = 0
    for (variant_id, attempt, lam), (_, outcome) in index.latest.items():
        if variant_id in selected_ids and attempt < trials and lam in wanted_lams:
            before[outcome] += 1
            done_before += 1
    jobs = _iter_jobs(entries, trials, index, options.retry_errored, lams)
    todo = (total - done_before) + (before["errored"] if options.retry_errored else 0)

    started = time.perf_counter()
    counts = Counts()
    recipe = plan.recipe(run_id)
    runner = TrialRunner.from_recipe(
        recipe,
        agent=plan.agent,
        judge=plan.judge,
        tools=plan.tools,
        secrets=secrets,
        counts=counts,
        concurrency=plan.concurrency,
        fsync_interval=FSYNC_INTERVAL_S,
    )
    if plan.executor is not None:
        spec, address, resources = plan.executor
        runner.executor = spec.create(
            ExecutorSettings(
                concurrency=plan.concurrency,
                recipe=recipe,
                address=address,
                resources=resources,
            )
        )
    with Appender(trials_path, fsync=False) as appender:
        asyncio.run(
            runner.run(
                jobs,
                appender,
                todo=todo,
                progress=options.progress,
                label=run_id,
            )
        )
    wall = time.perf_counter() - started
    totals = dict(before)
    if options.retry_errored:
        totals["errored"] -= counts.retried
    for key in totals:
        totals[key] += getattr(counts, key)
    causes = group_causes(errored_trials(trials_path)) if totals["errored"] else []
    return RunSummary(
        causes=causes,
        run_id=run_id,
        run_dir=run_dir,
        trials_path=trials_path,
        ran=counts.ran,
        passed=counts.passed,
        wrong=counts.wrong,
        errored=counts.errored,
        done=done_before + counts.ran - counts.retried,
        total=total,
        totals=totals,
        wall_s=wall,
        retry_pass=retry_pass,
        resumed=resumed,
        notes=runner.executor.notes() if runner.executor is not None else [],
    )
