"""``--executor ray``: trials run in a pool of Ray actors; the driver keeps ``runs/<id>/``.

Design (argued in docs/ray.md):

* A pool of actors, not one Ray task per trial: each actor rebuilds the trial runner from the
  :class:`~perturb.run.executors.WorkerRecipe` once -- imports the Python agent (or prepares
  the ``cmd:`` / ``openai:`` adapter), the judge and the tool layer -- and then runs many
  trials, so a heavy agent is built once per worker. An actor is an asyncio actor: it runs up
  to ``ceil(concurrency / actors)`` trials at once, exactly as the local executor does.
* Actors: as many as the cluster can place with ``--resources`` each (default
  ``{"CPU": 1}``), at most ``--concurrency``. The driver sends each trial to the actor with the
  fewest in flight; the fixture entry, attempt, retry and λ travel with the call, and the trial
  seed and fault schedule are derived from them on the worker, as they are locally.
* A worker that dies mid-trial (``ray.kill``, OOM, a lost node, a crashed process) fails the
  call with a Ray error. The driver replaces the actor and runs the trial again; after
  :data:`WORKER_ATTEMPTS` deaths the trial is written ``errored`` (kind ``worker_lost``) with
  Ray's reason. A trial is written only by the driver and only once, so nothing is lost or
  duplicated, and a SIGKILLed driver resumes exactly like a local run (its actors die with it:
  Ray ends a job's actors when its driver exits).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from perturb.errors import AgentLoadError, PerturbError, UsageError
from perturb.io.secrets import redact
from perturb.run.agents import AgentFatalError, exception_text
from perturb.run.executors import (
    RAY_MISSING,
    ExecutorSettings,
    ExecutorSpec,
    WorkerRecipe,
)

if TYPE_CHECKING:
    from perturb.records import FixtureEntry
    from perturb.run.scheduler import TrialRunner

WORKER_ATTEMPTS = 2
"""Times a trial is started on a worker before a dying worker makes it ``errored``."""
START_TIMEOUT_S = 120.0
"""How long a (re)started actor may take to be placed and build its agent."""
CLOSE_TIMEOUT_S = 10.0
"""How long actors get to stop their agents (and ``cmd:`` processes) at the end."""
DEFAULT_RESOURCES = {"CPU": 1.0}
"""One worker's resources when ``--resources`` is not given."""


def import_ray() -> Any:
    """``ray``, or :class:`UsageError` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise UsageError(RAY_MISSING) from None
    return ray


class _Worker:
    """The actor's body (wrapped by ``ray.remote`` in :func:`_actor_class`)."""

    def __init__(self, recipe: WorkerRecipe) -> None:
        self.recipe = recipe
        self.runner: TrialRunner | None = None

    async def start(self) -> str | None:
        """Build the runner; None, or why it could not be built (one line)."""
        try:
            runner = self.recipe.build()
            await runner.open()
        except PerturbError as exc:
            return str(exc)
        except Exception as exc:  # noqa: BLE001 - reported to the driver as one line
            return exception_text(exc)
        self.runner = runner
        return None

    async def trial(
        self, entry: FixtureEntry, attempt: int, retry: int, lam: float
    ) -> tuple[bytes, str, str | None]:
        """``(line, outcome, None)``, or ``(b"", "", message)`` when the agent cannot work."""
        assert self.runner is not None, "start() first"
        try:
            data, outcome = await self.runner.trial(entry, attempt, retry, lam)
        except AgentFatalError as exc:
            return b"", "", str(exc)
        return data, outcome, None

    def pid(self) -> int:
        return os.getpid()

    async def close(self) -> None:
        if self.runner is not None:
            await self.runner.close()


_ACTOR: Any = None


def _actor_class(ray: Any) -> Any:
    global _ACTOR
    if _ACTOR is None:
        _ACTOR = ray.remote(_Worker)
    return _ACTOR


def actor_options(resources: dict[str, float], max_concurrency: int) -> dict[str, Any]:
    """``Actor.options(...)`` for one worker with these resources."""
    custom = {k: v for k, v in resources.items() if k not in ("CPU", "GPU", "memory")}
    options: dict[str, Any] = {
        "num_cpus": resources.get("CPU", 0.0),
        "num_gpus": resources.get("GPU", 0.0),
        "max_concurrency": max_concurrency,
        "max_restarts": 0,
    }
    if resources.get("memory"):
        options["memory"] = resources["memory"]
    if custom:
        options["resources"] = custom
    return options


def workers_that_fit(total: dict[str, float], resources: dict[str, float], concurrency: int) -> int:
    """How many workers the cluster's ``total`` resources hold, at most ``concurrency``."""
    fits = [math.floor(total.get(k, 0.0) / amount + 1e-9) for k, amount in resources.items() if amount > 0]
    return min([concurrency, *fits])


def _show(resources: dict[str, float]) -> str:
    return json.dumps({k: (int(v) if v == int(v) else v) for k, v in resources.items()})


@dataclass
class _Slot:
    actor: Any
    inflight: int = 0
    """Trials sent to this actor and not yet answered."""
    held: bool = False
    """Held for one trial that must run alone (its earlier worker died)."""
    renewing: bool = False
    """Its actor died and a new one is being started."""

    @property
    def open(self) -> bool:
        return not self.held and not self.renewing


class RayExecutor:
    """A pool of Ray actors fed by the driver's trial loop."""

    def __init__(self, settings: ExecutorSettings) -> None:
        self.settings = settings
        self.resources = dict(settings.resources) if settings.resources else dict(DEFAULT_RESOURCES)
        self.slots: list[_Slot] = []
        self.lost = 0
        """Actors that died (each of their trials re-run, or errored after dying alone)."""
        self.gave_up = 0
        """Trials written ``errored`` because their worker died every time."""
        self._ray: Any = None
        self._initialized_here = False
        self._runner: TrialRunner | None = None
        self._per_actor = 1
        self._refs: set[Any] = set()
        self._replacing: dict[int, asyncio.Task[None]] = {}
        self._changed = asyncio.Condition()

    # ------------------------------------------------------------------ lifecycle

    def _init(self) -> None:
        ray = self._ray = import_ray()
        if ray.is_initialized():
            return
        import logging

        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no network calls of its own
        kwargs: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": False}
        if self.settings.address is None:
            kwargs["include_dashboard"] = False
        else:
            kwargs["address"] = self.settings.address
        sigterm = signal.getsignal(signal.SIGTERM)
        try:
            ray.init(**kwargs)
        except Exception as exc:  # noqa: BLE001 - Ray's ConnectionError, ValueError, ...
            where = self.settings.address or "a local Ray cluster"
            raise UsageError(
                f"--executor ray: cannot connect to {where}: {exception_text(exc)} (expected a running "
                "cluster: `ray start --head` on the head node, then --ray-address auto or "
                "ray://HEAD:10001)"
            ) from None
        finally:
            # Ray's driver sets a SIGTERM handler that exits at once; perturb's (installed by the
            # trial loop) cancels the in-flight trials and reports an interrupted run instead.
            if sigterm is not None:
                signal.signal(signal.SIGTERM, sigterm)
        self._initialized_here = True

    async def _new_actor(self) -> Any:
        ray = self._ray
        actor = (
            _actor_class(ray)
            .options(**actor_options(self.resources, self._per_actor))
            .remote(self.settings.recipe)
        )
        try:
            problem = await asyncio.wait_for(actor.start.remote(), START_TIMEOUT_S)
        except asyncio.TimeoutError:
            ray.kill(actor, no_restart=True)
            raise UsageError(
                f"--executor ray: no Ray worker with resources {_show(self.resources)} started within "
                f"{START_TIMEOUT_S:g} s (expected free resources on the cluster; lower --resources or "
                "add nodes)"
            ) from None
        if problem is not None:
            ray.kill(actor, no_restart=True)
            raise AgentLoadError(f"on a Ray worker: {problem}")
        return actor

    async def start(self, runner: TrialRunner) -> None:
        self._runner = runner
        self._init()  # in the main thread: Ray installs its signal handlers there
        ray = self._ray
        total = {k: float(v) for k, v in ray.cluster_resources().items()}
        concurrency = max(1, self.settings.concurrency)
        count = workers_that_fit(total, self.resources, concurrency)
        if count < 1:
            have = {k: total.get(k, 0.0) for k in self.resources}
            raise UsageError(
                f"--resources {_show(self.resources)}: the Ray cluster cannot place one worker (it has "
                f"{_show(have)} in all; lower --resources or add nodes)"
            )
        self._per_actor = math.ceil(concurrency / count)
        actors = await asyncio.gather(*(self._new_actor() for _ in range(count)), return_exceptions=True)
        self.slots = [_Slot(a) for a in actors if not isinstance(a, BaseException)]
        failed = [a for a in actors if isinstance(a, BaseException)]
        if failed:
            raise failed[0]

    async def aclose(self) -> None:
        ray = self._ray
        if ray is None:
            return
        for ref in list(self._refs):
            with contextlib.suppress(Exception):
                ray.cancel(ref)
        for task in self._replacing.values():
            task.cancel()
        closing = [slot.actor.close.remote() for slot in self.slots]
        if closing:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.gather(*closing, return_exceptions=True), CLOSE_TIMEOUT_S)
        for slot in self.slots:
            with contextlib.suppress(Exception):
                ray.kill(slot.actor, no_restart=True)
        self.slots = []
        if self._initialized_here:
            await asyncio.to_thread(ray.shutdown)
            self._initialized_here = False

    def notes(self) -> list[str]:
        if not self.lost:
            return []
        deaths = f"Ray: {self.lost} worker death{'s' if self.lost != 1 else ''}"
        if not self.gave_up:
            return [f"{deaths}, each trial re-run on a new worker"]
        gave_up = f"{self.gave_up} trial(s) errored (worker_lost)"
        return [f"{deaths}; {gave_up} after dying alone {WORKER_ATTEMPTS} times each"]

    # ------------------------------------------------------------------ trials

    async def _replace(self, slot: _Slot, dead: Any) -> None:
        """Put a fresh actor in ``slot`` (once, however many calls saw ``dead`` die)."""
        key = id(slot)
        if slot.actor is not dead:
            return
        task = self._replacing.get(key)
        if task is None:
            self.lost += 1

            async def renew() -> None:
                slot.renewing = True
                try:
                    with contextlib.suppress(Exception):
                        self._ray.kill(dead, no_restart=True)
                    slot.actor = await self._new_actor()
                finally:
                    async with self._changed:
                        slot.renewing = False
                        self._changed.notify_all()

            task = self._replacing[key] = asyncio.create_task(renew())
            task.add_done_callback(lambda _: self._replacing.pop(key, None))
        await asyncio.shield(task)

    async def _take(self, alone: bool) -> _Slot:
        """A slot for one trial: the least busy open one, or (``alone``) one that runs
        nothing else until :meth:`_give` -- it is closed at once, then drained."""
        async with self._changed:
            while not any(s.open for s in self.slots):
                await self._changed.wait()
            slot = min((s for s in self.slots if s.open), key=lambda s: s.inflight)
            if alone:
                slot.held = True
                while slot.inflight or slot.renewing:
                    await self._changed.wait()
            slot.inflight += 1
            return slot

    async def _give(self, slot: _Slot, alone: bool) -> None:
        async with self._changed:
            slot.inflight -= 1
            if alone:
                slot.held = False
            self._changed.notify_all()

    async def trial(self, entry: FixtureEntry, attempt: int, retry: int, lam: float) -> tuple[bytes, str]:
        """Run the trial on the least busy actor. If its worker dies, the trial (and every other
        trial that was on it) is run again *alone* on a fresh actor, so that a death can be
        blamed on it; after :data:`WORKER_ATTEMPTS` deaths alone it is ``errored``."""
        ray = self._ray
        runner = self._runner
        assert runner is not None, "start() first"
        deaths_alone = 0
        alone = False
        reason = ""
        while deaths_alone < WORKER_ATTEMPTS:
            took_alone = alone
            slot = await self._take(took_alone)
            actor = slot.actor
            ref = actor.trial.remote(entry, attempt, retry, lam)
            self._refs.add(ref)
            try:
                data, outcome, fatal = await ref
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    ray.cancel(ref)  # the worker cancels the agent call (a cmd: process is killed)
                raise
            except ray.exceptions.RayTaskError as exc:  # not the agent's: the runner catches those
                error = f"the Ray worker failed: {_first_line(exc)}"
                return runner.errored_line(entry, attempt, retry, lam, "exception", error), "errored"
            except ray.exceptions.RayError as exc:
                reason = _first_line(exc)
                deaths_alone += took_alone
                alone = True
                await self._replace(slot, actor)
                continue
            finally:
                self._refs.discard(ref)
                await self._give(slot, took_alone)
            if fatal is not None:
                raise AgentFatalError(fatal)
            if runner.secrets:  # the worker redacted its own keys; these are the driver's
                data = redact(data.decode("utf-8"), runner.secrets).encode("utf-8")
            return data, outcome
        self.gave_up += 1
        error = f"the Ray worker running this trial alone died {WORKER_ATTEMPTS} times; last: {reason}"
        return runner.errored_line(entry, attempt, retry, lam, "worker_lost", error), "errored"


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = f"{type(exc).__name__}: {lines[0] if lines else 'no message'}"
    return text if len(text) <= 300 else text[:297] + "..."


def _create(settings: ExecutorSettings) -> RayExecutor:
    return RayExecutor(settings)


SPEC = ExecutorSpec(
    name="ray",
    summary="trials in a pool of Ray actors, on one machine or a cluster (pip install 'perturb-eval[ray]')",
    create=_create,
    remote=True,
    check=import_ray,
)
