"""Where ``perturb run`` executes trials: ``--executor local`` (default) or ``--executor ray``.

An executor only *runs* trials. The driver -- the ``perturb run`` process -- keeps everything
else: the job order, the one appender of ``runs/<id>/trials.jsonl`` (a line is written before
it is counted), the grouped fsync, the resume index, the config-drift refusal and the progress
display (:class:`~perturb.run.scheduler.TrialRunner`). An executor gets ``(entry, attempt,
retry, λ)`` and hands back the finished line and its outcome, so every executor writes the same
records, and the trial seed and the fault schedule (pure functions of the run seed, the entry id
and the attempt) are the same wherever the trial runs.

Each executor is one module exporting ``SPEC = ExecutorSpec(...)``; :data:`EXECUTORS` is built
from them and from the ``perturb.executors`` entry points. A worker in another process rebuilds
the driver's :class:`~perturb.run.scheduler.TrialRunner` from a :class:`WorkerRecipe`: names,
paths and numbers only -- never an agent object or an API key.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from perturb.errors import AgentLoadError, UsageError
from perturb.plugins import Registry
from perturb.run.agents.spec import AgentSettings

if TYPE_CHECKING:
    from perturb.records import FixtureEntry
    from perturb.run.scheduler import TrialRunner

DEFAULT_EXECUTOR = "local"

RAY_MISSING = (
    "--executor ray needs Ray, which is not installed (install it with: pip install 'perturb-eval[ray]')"
)
"""What ``--executor ray`` says when ``import ray`` fails."""


class TrialExecutor(Protocol):
    """What the trial loop drives: started once, then ``trial`` per job, then closed."""

    async def start(self, runner: TrialRunner) -> None:
        """Prepare the workers; ``runner`` is the driver's (it builds lines for lost trials)."""
        ...

    async def trial(self, entry: FixtureEntry, attempt: int, retry: int, lam: float) -> tuple[bytes, str]:
        """Run one trial somewhere: its finished ``trials.jsonl`` line and its outcome."""
        ...

    async def aclose(self) -> None:
        """Stop every worker (nothing may outlive the run)."""
        ...

    def notes(self) -> list[str]:
        """What the run summary should add (worker deaths, ...); usually nothing."""
        ...


@dataclass(frozen=True)
class WorkerRecipe:
    """How a worker process rebuilds the driver's trial runner. Only names, paths and numbers
    travel: the worker imports the agent itself and reads API keys from its own environment."""

    agent: str
    """The ``--agent`` SPEC."""
    settings: AgentSettings
    """What the adapter is loaded with (the project root is re-resolved on the worker)."""
    run_id: str
    suite: str
    shas: dict[str, str]
    """Fixture entry id -> its sha256 from the lock."""
    seed: int
    temperature: float | None
    timeout: float
    judge: dict[str, Any] | None = None
    """``{"model", "models", "base_url"}`` of the llm_judge, when a grader needs one."""
    api_key_env: str | None = None
    """``--api-key-env``: the worker reads the key from this variable of its own environment."""
    tools_sha256: str | None = None
    """The suite's tool declarations' hash (None: none); a worker whose copy differs refuses."""
    fault_classes: tuple[str, ...] | None = None
    """The fault classes of a run with a tool layer (None: no tool layer)."""
    root_relative: str | None = None
    """The project root relative to the driver's working directory, when it is inside it:
    resolved against the worker's working directory (Ray's ``working_dir``) first."""

    def project_root(self) -> Path | None:
        """The project directory on this machine: ``working dir / root_relative`` when that
        exists, else the driver's absolute path."""
        if self.root_relative is not None:
            here = Path.cwd() / self.root_relative
            if (here / "fixtures").is_dir():
                return here
        return self.settings.project_root

    def build(self) -> TrialRunner:
        """A runner equivalent to the driver's, in this process."""
        from perturb.run.agents import add_import_paths, load_agent
        from perturb.run.scheduler import Counts, ToolLayer, TrialRunner, runner_secrets
        from perturb.run.tools import find_tools

        root = self.project_root()
        if root is not None:
            add_import_paths(root)
        settings = dataclasses.replace(self.settings, project_root=root)
        agent = load_agent(
            self.agent, **{f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)}
        )
        judge = self._judge()
        tools = None
        if self.fault_classes is not None:
            suite = find_tools(root, self.suite) if root is not None else None
            found = suite.sha256 if suite is not None else None
            if found != self.tools_sha256:
                raise AgentLoadError(
                    f"the worker's tool declarations (tasks/{self.suite}.tools.toml under {root}) differ "
                    f"from the driver's (sha256 {found} != {self.tools_sha256}; ship the project with "
                    "Ray's working_dir, see docs/ray.md)"
                )
            tools = ToolLayer(suite, self.fault_classes)
        return TrialRunner.from_recipe(
            self,
            agent=agent,
            judge=judge,
            tools=tools,
            secrets=runner_secrets(agent, judge, self.api_key_env),
            counts=Counts(),
            concurrency=1,
            fsync_interval=1.0,
        )

    def _judge(self) -> Any:
        if self.judge is None:
            return None
        from perturb.io.llm import resolve_api_key
        from perturb.run.graders.llm_judge import LLMJudge

        try:
            key = resolve_api_key(self.api_key_env, self.judge["base_url"])
        except UsageError:
            env_name = self.api_key_env or "OPENAI_API_KEY"
            raise AgentLoadError(
                f"{env_name} is not set on the worker (the llm_judge grader needs it; set it on every "
                "node or in Ray's runtime_env env_vars, see docs/ray.md)"
            ) from None
        return LLMJudge(
            model=self.judge["model"],
            api_key=key,
            base_url=self.judge["base_url"],
            models=set(self.judge["models"]),
        )


@dataclass(frozen=True)
class ExecutorSettings:
    """What ``perturb run`` passes every executor."""

    concurrency: int
    """``--concurrency``: trials in flight at once, whatever runs them."""
    recipe: WorkerRecipe
    """How a worker rebuilds the trial runner."""
    address: str | None = None
    """``--ray-address`` (checked by :func:`check_address`); None: start a local cluster."""
    resources: dict[str, float] = field(default_factory=dict)
    """``--resources`` of one worker (checked by :func:`parse_resources`)."""


@dataclass(frozen=True)
class ExecutorSpec:
    """One executor: its ``--executor`` name and how it is created for a run."""

    name: str
    summary: str
    create: Callable[[ExecutorSettings], TrialExecutor]
    remote: bool = False
    """Whether it takes ``--ray-address`` / ``--resources`` (a cluster executor)."""
    check: Callable[[], object] | None = None
    """Raises :class:`~perturb.errors.UsageError` when it cannot be used here (a missing
    package); called before the run directory is touched."""


EXECUTORS: Registry[ExecutorSpec] = Registry(
    "executor",
    "perturb.executors",
    ExecutorSpec,
    ("perturb.run.executors.local", "perturb.run.executors.ray"),
)
"""Executor name -> its spec: ``local``, ``ray``, then plugins (entry-point group
``perturb.executors``)."""


# --------------------------------------------------------------------------- option checks

_HOST = r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)"
_ADDRESS = re.compile(rf"^(?:ray://)?{_HOST}:(\d{{1,5}})$")


def check_address(address: str) -> str:
    """``auto``, ``ray://HOST:PORT`` (Ray Client) or ``HOST:PORT`` (the cluster's GCS, from a
    node of the cluster); :class:`UsageError` otherwise."""
    match = _ADDRESS.match(address)
    if address == "auto" or (match is not None and 0 < int(match.group(1)) < 65536):
        return address
    raise UsageError(
        f"--ray-address {address!r}: expected auto, ray://HOST:PORT or HOST:PORT with a port in "
        "1-65535 (for example ray://head-node:10001)"
    )


_KNOWN = ("CPU", "GPU", "memory")
_NAME = re.compile(r"^[A-Za-z_][\w.:/-]*$")


def parse_resources(text: str | dict[str, Any]) -> dict[str, float]:
    """``--resources``: a JSON object of resource name -> finite number >= 0, e.g.
    ``{"CPU": 1, "GPU": 0.5}`` (``CPU``, ``GPU``, ``memory`` in bytes, or a custom resource of
    the cluster); :class:`UsageError` with a one-line reason otherwise."""
    fix = 'expected a JSON object such as \'{"CPU": 1, "GPU": 0}\''
    if isinstance(text, str):
        try:
            value = json.loads(text, parse_constant=lambda c: c)
        except json.JSONDecodeError as exc:
            raise UsageError(f"--resources: not JSON: {exc.msg} at column {exc.colno} ({fix})") from None
    else:
        value = text
    if not isinstance(value, dict):
        raise UsageError(f"--resources: got a JSON {type(value).__name__}, not an object ({fix})")
    out: dict[str, float] = {}
    for name, amount in value.items():
        known = next((k for k in _KNOWN if k.lower() == name.lower()), None)
        if known is not None and known != name:
            raise UsageError(f"--resources: unknown resource {name!r} (did you mean {known!r}?)")
        if not _NAME.match(name):
            raise UsageError(
                f"--resources: resource name {name!r} is not a name (expected CPU, GPU, memory or a "
                "custom resource of the cluster)"
            )
        if (
            isinstance(amount, bool)
            or not isinstance(amount, int | float)
            or not math.isfinite(amount)
            or amount < 0
        ):
            raise UsageError(f"--resources: {name}: {amount!r} is not a finite number >= 0 ({fix})")
        out[name] = float(amount)
    return out
