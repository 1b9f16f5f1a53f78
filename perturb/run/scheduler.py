"""The trial loop of ``perturb run``: call the agent, grade, append one line, count.

``TrialRunner.run`` starts ``concurrency`` worker coroutines that pull jobs from one shared
iterator, a grouped-fsync task and (optionally) a progress-bar task. The per-trial path is
kept cheap: the record is a plain dict serialised with one ``json.dumps`` (its keys are the
:class:`~perturb.records.Trial` fields, checked by the tests), counters are plain ints and the
progress bar reads them a few times a second instead of being updated per trial.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from perturb.errors import OutputError
from perturb.io.hashing import content_hash
from perturb.io.jsonl import MAX_DEPTH, Appender, nesting_exceeds
from perturb.io.secrets import env_secrets, redact, secret_values
from perturb.progress import Progress
from perturb.records import FixtureEntry
from perturb.run.agents import Agent, AgentCallError, AgentFatalError, DaemonPool, exception_text
from perturb.run.faults import FaultPlan
from perturb.run.graders import GRADERS, GraderSpec, grade, grade_async
from perturb.run.store import trial_seed
from perturb.run.tools import ToolClient, ToolSuite

if TYPE_CHECKING:
    from perturb.run.executors import TrialExecutor, WorkerRecipe

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


@dataclass
class Counts:
    """Live counters of one invocation."""

    ran: int = 0
    passed: int = 0
    wrong: int = 0
    errored: int = 0
    retried: int = 0
    """Trials that replaced an earlier errored line (``--retry-errored``)."""

    def breakdown(self) -> dict[str, int]:
        """The outcome counts a progress display shows."""
        return {"passed": self.passed, "wrong": self.wrong, "errored": self.errored}


class _TrialTimeout(Exception):
    pass


@dataclass(frozen=True)
class ToolLayer:
    """What a run with tools or faults gives every trial: the suite's declarations (None:
    only tools the agent wraps itself) and the fault classes."""

    suite: ToolSuite | None
    classes: tuple[str, ...]

    def client(self, seed: int, entry_id: str, attempt: int, lam: float, task: dict[str, Any]) -> ToolClient:
        """A fresh client (fresh state, this trial's schedule)."""
        state = self.suite.new_state(task) if self.suite is not None else None
        return ToolClient(self.suite, state, FaultPlan(seed, entry_id, attempt, lam, self.classes))


@dataclass
class _Ctx:
    """Per fixture entry, computed once: the record's fixed fields and the grading inputs."""

    entry: FixtureEntry
    head: dict[str, Any]
    task_context: dict[str, Any]
    grader: GraderSpec


def runner_secrets(agent: Agent, judge: Any, api_key_env: str | None) -> list[str]:
    """What a runner redacts from every line it writes: the agent's and the judge's secrets and
    the value of ``--api-key-env`` (the driver and every worker compute it the same way)."""
    return secret_values([*agent.secrets(), *(judge.secrets() if judge else []), *env_secrets(api_key_env)])


class TrialRunner:
    """Runs jobs ``(entry, attempt, retry)`` and appends one Trial line per job."""

    def __init__(
        self,
        *,
        agent: Agent,
        judge: Any,
        run_id: str,
        suite: str,
        shas: dict[str, str],
        seed: int,
        temperature: float | None,
        timeout: float,
        concurrency: int,
        secrets: list[str],
        counts: Counts,
        fsync_interval: float,
        tools: ToolLayer | None = None,
        executor: TrialExecutor | None = None,
    ) -> None:
        self.agent = agent
        self.judge = judge
        self.run_id = run_id
        self.suite = suite
        self.shas = shas
        self.seed = seed
        self.temperature = temperature
        self.timeout = timeout
        self.concurrency = concurrency
        self.secrets = secrets
        self.counts = counts
        self.fsync_interval = fsync_interval
        self.tools = tools
        self.executor = executor
        """Where trials run (None: here, by :meth:`trial`); the loop, the appends, the counts
        and the fsync stay in this process whatever runs the trials."""
        self._server: Any = None
        self._ctx: dict[str, _Ctx] = {}
        self._pool: DaemonPool | None = None
        self._written = 0

    LOCAL = frozenset(
        {"agent", "judge", "tools", "secrets", "counts", "concurrency", "fsync_interval", "executor"}
    )
    """The constructor's arguments that belong to one process (its loaded agent, judge and tool
    layer, the secrets it redacts, its counters, its share of the work, where its trials run);
    every other argument comes from the :class:`~perturb.run.executors.WorkerRecipe`, the same
    on the driver and on every worker (``tests/test_executors.py`` checks the split)."""

    @classmethod
    def from_recipe(
        cls,
        recipe: WorkerRecipe,
        *,
        agent: Agent,
        judge: Any,
        tools: ToolLayer | None,
        secrets: list[str],
        counts: Counts,
        concurrency: int,
        fsync_interval: float,
    ) -> TrialRunner:
        """The one way ``perturb run`` makes a runner, on the driver and on a worker: what every
        trial must share (run id, suite, hashes, seed, temperature, timeout) from ``recipe``,
        this process's own objects from the arguments."""
        return cls(
            agent=agent,
            judge=judge,
            run_id=recipe.run_id,
            suite=recipe.suite,
            shas=recipe.shas,
            seed=recipe.seed,
            temperature=recipe.temperature,
            timeout=recipe.timeout,
            concurrency=concurrency,
            secrets=secrets,
            counts=counts,
            fsync_interval=fsync_interval,
            tools=tools,
        )

    # ------------------------------------------------------------------ per trial

    def _context(self, entry: FixtureEntry) -> _Ctx:
        ctx = self._ctx.get(entry.id)
        if ctx is None:
            ctx = _Ctx(
                entry=entry,
                head={
                    "run_id": self.run_id,
                    "suite": self.suite,
                    "task_id": entry.task_id,
                    "variant_id": entry.id,
                    "variant_sha256": self.shas.get(entry.id) or content_hash(entry),
                    "perturbation": entry.perturbation,
                    "level": entry.level,
                    "epsilon": entry.epsilon,
                    "weight": entry.weight,
                },
                task_context={
                    "task_id": entry.task_id,
                    "variant_id": entry.id,
                    "perturbation": entry.perturbation,
                    "prompt": entry.prompt,
                    "expected": entry.expected,
                    "slots": entry.slots,
                    "metadata": entry.metadata,
                },
                grader=GRADERS.get(entry.grader.type),
            )
            self._ctx[entry.id] = ctx
        return ctx

    async def _call(self, request: dict[str, Any]) -> Any:
        if sys.version_info >= (3, 11):
            try:
                async with asyncio.timeout(self.timeout) as scope:
                    return await self.agent.call(request)
            except TimeoutError:
                if scope.expired():
                    raise _TrialTimeout from None
                raise
        try:
            return await asyncio.wait_for(self.agent.call(request), self.timeout)
        except asyncio.TimeoutError:  # pragma: no cover - Python 3.10
            raise _TrialTimeout from None

    async def _grade(self, ctx: _Ctx, output: Any) -> tuple[bool, str | None]:
        entry = ctx.entry
        spec = ctx.grader
        if spec.grade_async is not None:
            return await grade_async(entry.grader, entry.expected, output, ctx.task_context, judge=self.judge)
        if not spec.blocking:
            return grade(entry.grader, entry.expected, output, ctx.task_context)
        if self._pool is None:
            self._pool = DaemonPool("perturb-grader")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._pool, grade, entry.grader, entry.expected, output, ctx.task_context
        )

    def _tool_client(self, ctx: _Ctx, attempt: int, lam: float) -> tuple[ToolClient | None, str | None]:
        """The trial's tool client, or the reason it could not be made (a failing state factory)."""
        if self.tools is None:
            return None, None
        try:
            return self.tools.client(self.seed, ctx.entry.id, attempt, lam, ctx.task_context), None
        except Exception as exc:  # noqa: BLE001 - the suite's state factory failed for this task
            return None, f"the tool state factory failed: {exception_text(exc)}"

    async def open(self) -> None:
        """Start the agent (and, for a ``cmd:`` agent with tools, the loopback tool endpoint)."""
        await self.agent.start()
        if self.tools is not None and getattr(self.agent, "tools_over_http", False):
            from perturb.run.tools.http import ToolServer

            self._server = ToolServer()
            self._server.start()

    async def close(self) -> None:
        """Stop what :meth:`open` started, the judge and the grading threads."""
        await self.agent.aclose()
        if self._server is not None:
            self._server.stop()
            self._server = None
        if self.judge is not None:
            await self.judge.aclose()
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None

    def errored_line(
        self, entry: FixtureEntry, attempt: int, retry: int, lam: float, kind: str, error: str
    ) -> bytes:
        """The line of a trial that errored before any agent answered (an executor that lost
        its worker): the same fields as :meth:`trial` writes, with no output."""
        record = dict(self._context(entry).head)
        record.update(
            attempt=attempt,
            outcome="errored",
            output=None,
            error=error,
            error_kind=kind,
            grader_note=None,
            latency_s=0.0,
            usage=None,
            trace=None,
            seed=trial_seed(self.seed, entry.id, attempt),
            retry=retry,
        )
        if self.tools is not None:
            record.update(lam=lam, tool_calls=[], duplicated_side_effects=0)
        line = _dumps(record)
        if self.secrets:
            line = redact(line, self.secrets)
        return (line + "\n").encode("utf-8")

    async def trial(
        self, entry: FixtureEntry, attempt: int, retry: int, lam: float = 0.0
    ) -> tuple[bytes, str]:
        """Run one trial here: call the agent, grade; the finished line and its outcome."""
        ctx = self._context(entry)
        seed = trial_seed(self.seed, entry.id, attempt)
        client, tool_problem = self._tool_client(ctx, attempt, lam)
        request: dict[str, Any] = {
            "prompt": entry.prompt,
            "task_id": entry.task_id,
            "variant_id": entry.id,
            "perturbation": entry.perturbation,
            "attempt": attempt,
            "seed": seed,
            "temperature": self.temperature,
            "metadata": entry.metadata,
        }
        token = None
        if client is not None:
            request["tools"] = client
            if self._server is not None:
                token = self._server.register(client)
                request["tools_url"] = self._server.url(token)
        output = trace = usage = error = kind = note = None
        started = time.perf_counter()
        try:
            if tool_problem is not None:
                raise AgentCallError("tool", tool_problem)
            response = await self._call(request)
            output, trace, usage = response.output, response.trace, response.usage
            outcome = "ok"
        except AgentFatalError:
            raise
        except _TrialTimeout:
            outcome, kind, error = "errored", "timeout", f"timed out after {self.timeout:g} s"
            diagnose = getattr(self.agent, "timeout_reason", None)
            reason = diagnose(self.timeout) if diagnose is not None else None
            if reason is not None:
                kind, error = reason.kind, f"{error}: {reason}"
        except AgentCallError as exc:
            outcome, kind, error = "errored", exc.kind, str(exc)
        except Exception as exc:  # noqa: BLE001 - the agent crashed: an errored trial
            outcome, kind, error = "errored", "exception", exception_text(exc)
        latency = time.perf_counter() - started
        if token is not None:
            self._server.unregister(token)
        if client is not None and client.problem is not None and outcome != "errored":
            outcome, kind, error = "errored", "tool", client.problem
        if outcome == "ok" and (nesting_exceeds(output) or nesting_exceeds(trace)):
            outcome, kind, output, trace, usage = "errored", "malformed", None, None, None
            error = (
                f"the agent's output or trace is nested deeper than {MAX_DEPTH} levels "
                f"(expected at most {MAX_DEPTH})"
            )
        if outcome == "ok":
            try:
                passed, note = await self._grade(ctx, output)
                outcome = "passed" if passed else "wrong"
            except AgentFatalError:
                raise
            except Exception as exc:  # noqa: BLE001 - a grader failing on this output
                outcome, kind, error = "errored", "grader", f"grading failed: {exception_text(exc)}"
        record = dict(ctx.head)
        record["attempt"] = attempt
        record["outcome"] = outcome
        record["output"] = output
        record["error"] = error
        record["error_kind"] = kind
        record["grader_note"] = note
        record["latency_s"] = round(latency, 6)
        record["usage"] = usage
        record["trace"] = trace
        record["seed"] = seed
        record["retry"] = retry
        if self.tools is not None:
            record["lam"] = lam
            # A copy: the agent's thread may still be calling after a trial timeout.
            record["tool_calls"] = [dict(c) for c in list(client.calls)] if client is not None else []
            record["duplicated_side_effects"] = client.duplicates if client is not None else 0
        try:
            line = _dumps(record)
        except (TypeError, ValueError) as exc:
            outcome = "errored"
            record.update(
                outcome=outcome,
                output=None,
                trace=None,
                grader_note=None,
                error_kind="malformed",
                error=f"the agent's output or trace is not JSON-serialisable: {exc}",
            )
            line = _dumps(record)
        if self.secrets:
            line = redact(line, self.secrets)
        return (line + "\n").encode("utf-8"), outcome

    # ------------------------------------------------------------------ loop

    async def _worker(self, jobs: Iterator[tuple[FixtureEntry, int, float, int]], appender: Appender) -> None:
        counts = self.counts
        trial = self.executor.trial if self.executor is not None else self.trial
        for entry, attempt, lam, retry in jobs:
            data, outcome = await trial(entry, attempt, retry, lam)
            appender.append_raw(data)  # written before it is counted: SIGKILL-safe
            self._written += 1
            counts.ran += 1
            if outcome == "passed":
                counts.passed += 1
            elif outcome == "wrong":
                counts.wrong += 1
            else:
                counts.errored += 1
            if retry:
                counts.retried += 1

    async def _fsync_loop(self, appender: Appender) -> None:
        synced = 0
        while True:
            await asyncio.sleep(self.fsync_interval)
            if self._written != synced:
                synced = self._written
                await asyncio.to_thread(appender.sync)

    async def _progress_loop(self, progress: Progress) -> None:
        counts = self.counts
        while True:
            await asyncio.sleep(0.2)
            progress.update(counts.ran, counts.breakdown())

    async def run(
        self,
        jobs: Iterator[tuple[FixtureEntry, int, float, int]],
        appender: Appender,
        *,
        todo: int,
        progress: Progress | None = None,
        label: str = "trials",
    ) -> None:
        """Run every job; re-raises :class:`AgentFatalError` (in-flight trials are dropped,
        unwritten, so a rerun does them)."""
        loop = asyncio.get_running_loop()
        main = asyncio.current_task()
        terminated = False

        def on_sigterm() -> None:
            nonlocal terminated
            terminated = True
            if main is not None:
                main.cancel()

        # SIGTERM takes the same path as Ctrl-C: in-flight trials are cancelled, which kills
        # their agent processes (cmd:), and the CLI reports an interrupted run.
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGTERM, on_sigterm)
        try:
            await self._run(jobs, appender, todo=todo, progress=progress, label=label)
        except asyncio.CancelledError:
            if terminated:
                raise KeyboardInterrupt from None
            raise
        finally:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signal.SIGTERM)

    async def _run(
        self,
        jobs: Iterator[tuple[FixtureEntry, int, float, int]],
        appender: Appender,
        *,
        todo: int,
        progress: Progress | None,
        label: str,
    ) -> None:
        try:
            if self.executor is not None:
                await self.executor.start(self)
            else:
                await self.open()
        except BaseException:
            await (self.executor.aclose() if self.executor is not None else self.close())
            raise
        helpers: list[asyncio.Task[None]] = [asyncio.create_task(self._fsync_loop(appender))]
        if progress is not None:
            progress.start(label, todo)
            helpers.append(asyncio.create_task(self._progress_loop(progress)))
        workers = [
            asyncio.create_task(self._worker(jobs, appender))
            for _ in range(max(1, min(self.concurrency, todo)))
        ]
        try:
            done, _ = await asyncio.wait(workers, return_when=asyncio.FIRST_EXCEPTION)
            for finished in done:
                error = finished.exception()
                if error is not None:
                    raise error
        finally:
            for t in [*workers, *helpers]:
                t.cancel()
            await asyncio.gather(*workers, *helpers, return_exceptions=True)
            with contextlib.suppress(OutputError):
                appender.sync()
            if progress is not None:
                progress.update(self.counts.ran, self.counts.breakdown())
                progress.stop()
            if self.executor is not None:
                await self.executor.aclose()
            else:
                await self.close()
