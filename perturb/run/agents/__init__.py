"""Agent adapters: what ``perturb run --agent SPEC`` calls, once per trial.

Every adapter receives the same request dict::

    {"prompt", "task_id", "variant_id", "perturbation", "attempt", "seed", "temperature",
     "metadata"}

and returns an :class:`AgentResponse` (output, trace, usage). SPEC forms:

* ``module:function`` -- a Python callable, sync or async, called as
  ``function(prompt, request)`` (or ``function(prompt)`` if it takes one argument). Sync
  callables run in a worker thread so they never block the scheduler. The project directory
  (the parent of ``fixtures/``) and the current directory are importable, and only the named
  module is imported.
* ``module:factory()`` -- the trailing ``()`` means *factory*: ``factory()`` is called once per
  trial and what it returns is called as above. Use it to give every trial fresh state.
* ``cmd:COMMAND`` (or ``--agent-cmd COMMAND``) -- one fresh process per trial. COMMAND is split
  with :func:`shlex.split` and executed directly (never through a shell); the request is
  written as JSON to its stdin and it prints ``{"output": ..., "trace"?: ..., "usage"?: {...}}``
  on stdout. A non-zero exit or malformed stdout makes the trial ``errored``.
* ``openai:MODEL`` -- an OpenAI-compatible chat-completions model (see
  :mod:`perturb.run.agents.openai`).

Each kind is one module exporting ``SPEC = AgentSpec(...)`` (:mod:`perturb.run.agents.cmd`,
:mod:`perturb.run.agents.openai`, :mod:`perturb.run.agents.python`); :data:`AGENTS` is built
from them and from the ``perturb.agents`` entry points, so a third party adds a SPEC prefix
(``mcp:``, ``http:``) without editing perturb.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import queue
import re
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from perturb.errors import AgentLoadError, InputError
from perturb.io.jsonl import loads_strict
from perturb.plugins import Registry
from perturb.records import Usage
from perturb.run.agents.spec import AgentSettings, AgentSpec

_PY_SPEC = re.compile(r"^([A-Za-z_][\w.]*):([A-Za-z_]\w*)(\(\))?$")


@dataclass
class AgentResponse:
    """What an agent returns: the output to grade, plus optional trace and usage.

    A Python agent may return any JSON value (taken as ``output``) or one of these."""

    output: Any
    trace: Any = None
    usage: Usage | dict[str, Any] | None = None


class AgentCallError(Exception):
    """One trial's agent call failed; ``kind`` becomes the trial's ``error_kind``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class AgentFatalError(AgentLoadError):
    """The agent cannot work for any trial (bad key, unknown model): the run stops."""


class Agent(Protocol):
    """The interface the scheduler drives. An adapter that talks to a server may also define
    ``preflight()``: ``perturb run`` calls it once before the run directory is touched, so an
    unreachable server fails with one line before any trial (the ``openai:`` adapter does)."""

    spec: str

    async def start(self) -> None: ...

    async def call(self, request: dict[str, Any]) -> AgentResponse: ...

    async def aclose(self) -> None: ...

    def describe(self) -> dict[str, Any]:
        """Manifest facts: ``model``, ``base_url`` (no credentials), ``sampling``."""
        ...

    def secrets(self) -> list[str]:
        """Values that must never be written to a file (API keys)."""
        ...


# --------------------------------------------------------------------------- responses

_USAGE_ALIASES = {
    "input_tokens": "input_tokens",
    "prompt_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "completion_tokens": "output_tokens",
    "cost_usd": "cost_usd",
}


def normalize_usage(usage: Any) -> dict[str, Any] | None:
    """Usage as the ``Usage`` record's dict; raises :class:`AgentCallError` (malformed)."""
    if usage is None:
        return None
    if isinstance(usage, Usage):
        return usage.model_dump()
    if not isinstance(usage, dict):
        raise AgentCallError("malformed", f"usage must be an object, got {type(usage).__name__}")
    out: dict[str, Any] = {"input_tokens": None, "output_tokens": None, "cost_usd": None}
    for key, value in usage.items():
        name = _USAGE_ALIASES.get(key)
        if name is None:
            if key == "total_tokens":
                continue
            raise AgentCallError(
                "malformed",
                f"usage.{key}: unknown key (expected input_tokens, output_tokens, cost_usd)",
            )
        if value is None:
            continue
        if name == "cost_usd":
            ok = isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
        else:
            ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        if not ok:
            raise AgentCallError("malformed", f"usage.{key}: expected a non-negative number, got {value!r}")
        out[name] = value
    return out


def response_from_value(value: Any) -> AgentResponse:
    """A Python agent's return value as a response (usage checked)."""
    if isinstance(value, AgentResponse):
        return AgentResponse(value.output, value.trace, normalize_usage(value.usage))
    return AgentResponse(value)


def response_from_stdout(stdout: bytes) -> AgentResponse:
    """Parse a subprocess agent's stdout with the strict loader (no NaN, nesting at most
    ``MAX_DEPTH``, no duplicate keys); raises :class:`AgentCallError` (malformed)."""
    text = stdout.decode("utf-8", "replace").strip()
    if not text:
        raise AgentCallError("malformed", 'empty stdout (expected {"output": ...} as JSON)')
    try:
        data = loads_strict(text, "stdout", what='{"output": ...}')
    except InputError as exc:
        head = text[:120] + ("..." if len(text) > 120 else "")
        where = f"stdout line {exc.line}" if exc.line else "stdout"
        raise AgentCallError("malformed", f"{where}: {exc.detail}: {head!r}") from None
    if not isinstance(data, dict) or "output" not in data:
        raise AgentCallError(
            "malformed", f'stdout JSON has no "output" (expected {{"output": ...}}), got {text[:120]!r}'
        )
    unknown = sorted(set(data) - {"output", "trace", "usage"})
    if unknown:
        raise AgentCallError(
            "malformed", f"stdout JSON: unknown key {unknown[0]!r} (expected output, trace, usage)"
        )
    return AgentResponse(data["output"], data.get("trace"), normalize_usage(data.get("usage")))


# --------------------------------------------------------------------------- python callables


class DaemonPool(Executor):
    """A thread pool of daemon threads that grows when every thread is busy.

    Sync agents run here. A trial that times out leaves its thread running (Python cannot
    stop a thread); daemon threads mean such a thread never blocks the process from exiting,
    and growth means it never takes capacity away from the remaining trials."""

    def __init__(self, name: str = "perturb-agent") -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)
        self._threads: list[threading.Thread] = []
        self._name = name
        self._shutdown = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if self._shutdown:
            raise RuntimeError("pool is shut down")
        future: Future[Any] = Future()
        self._queue.put((future, fn, args, kwargs))
        if not self._idle.acquire(blocking=False):
            thread = threading.Thread(
                target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True
            )
            self._threads.append(thread)
            thread.start()
        return future

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            future, fn, args, kwargs = item
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as exc:  # noqa: BLE001 - handed to the awaiting trial
                    future.set_exception(exc)
            del item, future, fn, args, kwargs
            self._idle.release()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._shutdown = True
        for _ in self._threads:
            self._queue.put(None)
        if wait:
            for thread in self._threads:
                thread.join(timeout=0.05)


def _is_async(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - callable objects with async __call__
    )


def _arity_one(fn: Any) -> bool:
    """True when ``fn`` takes exactly one positional argument (the prompt only)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return False
    return len(positional) == 1


def add_import_paths(*paths: Path) -> None:
    """Make the project directory and the current directory importable (front of sys.path)."""
    for path in reversed([*paths, Path.cwd()]):
        text = str(path.resolve())
        if text not in sys.path:
            sys.path.insert(0, text)


def _where(exc: BaseException) -> str:
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return ""
    code = last.tb_frame.f_code
    return f" ({Path(code.co_filename).name}:{last.tb_lineno} in {code.co_name})"


def exception_text(exc: BaseException) -> str:
    """``Type: message (file.py:LINE in function)`` -- how a crashing agent is recorded."""
    message = str(exc)
    head = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return head + _where(exc)


BLOCKED_AFTER_S = 1.0
"""An async agent's event loop that has not ticked for this long is reported as blocked."""
_TICK_S = 0.05


class AgentLoop:
    """The event loop async Python agents run on: one daemon thread, shared by every trial of
    the run (so a client an agent keeps between calls stays on one loop), separate from the
    scheduler's loop. An agent that blocks it (``time.sleep``, a busy loop) therefore cannot
    stall the scheduler: the trial's timeout still fires, and a heartbeat tells a blocked loop
    (the trial errors with kind ``blocked``) from a slow answer."""

    SWITCH_INTERVAL_S = 0.0005
    """The GIL switch interval while an agent loop exists (Python's default is 5 ms): every
    trial hands work from the scheduler's thread to the agent loop's and back, and at 5 ms a
    hand-off waits for the GIL long enough to stretch a run of short trials by ~25%
    (``benchmarks/bench_runner.py``)."""

    def __init__(self) -> None:
        if sys.getswitchinterval() > self.SWITCH_INTERVAL_S:
            sys.setswitchinterval(self.SWITCH_INTERVAL_S)
        self.loop = asyncio.new_event_loop()
        self.tick = time.monotonic()
        ready = threading.Event()
        self.thread = threading.Thread(
            target=self._main, args=(ready,), name="perturb-agent-loop", daemon=True
        )
        self.thread.start()
        ready.wait()

    def _main(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.create_task(self._heartbeat())
        self.loop.call_soon(ready.set)
        try:
            self.loop.run_forever()
        finally:
            for task in asyncio.all_tasks(self.loop):
                task.cancel()
            with contextlib.suppress(BaseException):
                self.loop.run_until_complete(asyncio.sleep(0))
            self.loop.close()

    async def _heartbeat(self) -> None:
        while True:
            self.tick = time.monotonic()
            await asyncio.sleep(_TICK_S)

    def blocked_for(self) -> float:
        """Seconds since the loop last ran its heartbeat (about 0 when it is healthy)."""
        return max(0.0, time.monotonic() - self.tick - _TICK_S)

    def close(self) -> None:
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(self.loop.stop)


def _blocked_error(seconds: float) -> AgentCallError:
    return AgentCallError(
        "blocked",
        f"the agent blocked its event loop for {seconds:.1f} s (a busy loop or a blocking call "
        "such as time.sleep in an async agent; await asyncio.sleep or use run_in_executor)",
    )


class _Raised:
    """A BaseException the agent raised, carried out of its thread or loop as a value so that
    ``sys.exit``, ``KeyboardInterrupt`` or ``CancelledError`` inside an agent cannot end the run."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def _guarded(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except BaseException as exc:  # noqa: BLE001 - every exception of the agent is a trial error
        return _Raised(exc)


async def _guarded_async(make: Callable[[], Any]) -> Any:
    try:
        value = make()
        while inspect.isawaitable(value):
            value = await value
        return value
    except BaseException as exc:  # noqa: BLE001 - every exception of the agent is a trial error
        return _Raised(exc)


def _unwrap(value: Any) -> Any:
    if isinstance(value, _Raised):
        raise AgentCallError("exception", exception_text(value.exc))
    return value


@dataclass
class PythonAgent:
    """``module:function`` or ``module:factory()``.

    Agent code never runs on the scheduler's event loop: sync callables run in a
    :class:`DaemonPool` thread, coroutines on the :class:`AgentLoop` thread. Whatever the
    agent raises -- ``Exception``, ``SystemExit``, ``KeyboardInterrupt``, ``CancelledError``,
    any ``BaseException`` -- becomes an errored trial (kind ``exception``) naming it."""

    spec: str
    target: Callable[..., Any]
    factory: bool = False
    pool: DaemonPool = field(default_factory=DaemonPool)
    agent_loop: AgentLoop | None = None

    def __post_init__(self) -> None:
        self._async = _is_async(self.target)
        self._one_arg = False if self.factory else _arity_one(self.target)

    async def start(self) -> None:
        return None

    def _invoke(self, fn: Any, prompt: str, request: dict[str, Any]) -> Any:
        return fn(prompt) if _arity_one(fn) else fn(prompt, request)

    def _factory_then_call(self, prompt: str, request: dict[str, Any]) -> tuple[bool, Any]:
        product = self.target()
        if not callable(product):
            raise TypeError(
                f"factory {self.spec} returned {type(product).__name__}, expected a callable agent"
            )
        if _is_async(product):
            return True, product
        return False, self._invoke(product, prompt, request)

    async def _on_agent_loop(self, make: Callable[[], Any]) -> Any:
        """Run ``make()`` (and await what it returns) on the agent loop; report a blocked loop."""
        if self.agent_loop is None:
            self.agent_loop = AgentLoop()
        agent_loop = self.agent_loop
        stuck = agent_loop.blocked_for()
        if stuck > BLOCKED_AFTER_S:
            raise _blocked_error(stuck)
        future = asyncio.run_coroutine_threadsafe(_guarded_async(make), agent_loop.loop)
        try:
            return _unwrap(await asyncio.wrap_future(future))
        except asyncio.CancelledError:
            future.cancel()
            raise

    def timeout_reason(self, timeout: float) -> AgentCallError | None:
        """Why a trial timed out, when the answer is "the agent blocked its event loop"."""
        if self.agent_loop is None:
            return None
        stuck = self.agent_loop.blocked_for()
        return _blocked_error(stuck) if stuck >= min(BLOCKED_AFTER_S, timeout / 2) else None

    async def _in_thread(self, fn: Callable[[], Any]) -> Any:
        loop = asyncio.get_running_loop()
        return _unwrap(await loop.run_in_executor(self.pool, _guarded, fn))

    async def call(self, request: dict[str, Any]) -> AgentResponse:
        prompt = request["prompt"]
        target = self.target
        if not self.factory:
            if self._async:
                value = await self._on_agent_loop(lambda: self._invoke_known(target, prompt, request))
            else:
                value = await self._in_thread(lambda: self._invoke_known(target, prompt, request))
        elif self._async:
            value = await self._on_agent_loop(lambda: self._async_factory(prompt, request))
        else:
            pending, value = await self._in_thread(lambda: self._factory_then_call(prompt, request))
            if pending:
                product = value
                value = await self._on_agent_loop(lambda: self._invoke(product, prompt, request))
        if inspect.isawaitable(value):  # a sync callable that returned a coroutine
            awaitable = value
            value = await self._on_agent_loop(lambda: awaitable)
        return response_from_value(value)

    def _invoke_known(self, fn: Any, prompt: str, request: dict[str, Any]) -> Any:
        return fn(prompt) if self._one_arg else fn(prompt, request)

    async def _async_factory(self, prompt: str, request: dict[str, Any]) -> Any:
        product = await self.target()
        return await self._invoke(product, prompt, request)

    async def aclose(self) -> None:
        self.pool.shutdown(wait=False)
        if self.agent_loop is not None:
            self.agent_loop.close()

    def describe(self) -> dict[str, Any]:
        return {"model": None, "base_url": None}

    def secrets(self) -> list[str]:
        return []


def load_python_agent(spec: str, project_root: Path | None = None) -> PythonAgent:
    """Import the named module (only that) and return the adapter."""
    match = _PY_SPEC.match(spec)
    if not match and (" " in spec.strip() or spec.endswith((".py", ".sh", ".js"))):
        command = spec.strip() if " " in spec.strip() else f"python {spec.strip()}"
        raise AgentLoadError(
            f"agent {spec!r}: looks like a command (expected --agent 'cmd:{command}' to run it "
            "as a subprocess, or module:function for a Python callable)"
        )
    if not match:
        raise AgentLoadError(
            f"agent {spec!r}: expected 'module:function', 'module:factory()', 'cmd:COMMAND' or "
            "'openai:MODEL' (for example 'examples.travel_agent:agent')"
        )
    module_name, attr, parens = match.groups()
    add_import_paths(*([project_root] if project_root else []))
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise AgentLoadError(
                f"agent {spec!r}: no module named {module_name!r} (expected a module importable "
                f"from the project directory or {Path.cwd()})"
            ) from None
        raise AgentLoadError(
            f"agent {spec!r}: importing {module_name!r} failed: {exception_text(exc)}"
        ) from None
    except Exception as exc:  # noqa: BLE001 - a user module that fails on import
        raise AgentLoadError(
            f"agent {spec!r}: importing {module_name!r} failed: {exception_text(exc)}"
        ) from None
    target = getattr(module, attr, None)
    if target is None:
        raise AgentLoadError(f"agent {spec!r}: module {module_name!r} has no attribute {attr!r}")
    if not callable(target):
        raise AgentLoadError(f"agent {spec!r}: {attr!r} is a {type(target).__name__}, expected a function")
    if inspect.isclass(target) and not parens:
        raise AgentLoadError(
            f"agent {spec!r}: {attr!r} is a class; write '{module_name}:{attr}()' to create one "
            "instance per trial (its instances must be callable)"
        )
    return PythonAgent(spec=spec, target=target, factory=bool(parens))


# --------------------------------------------------------------------------- loading


AGENTS: Registry[AgentSpec] = Registry(
    "agent adapter",
    "perturb.agents",
    AgentSpec,
    ("perturb.run.agents.cmd", "perturb.run.agents.openai", "perturb.run.agents.python"),
)
"""Adapter name -> its spec: ``cmd:``, ``openai:``, Python callables, then plugins (entry-point
group ``perturb.agents``)."""


def load_agent(
    spec: str,
    *,
    project_root: Path | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    temperature: float | None = None,
    request_timeout: float | None = None,
    pass_env: tuple[str, ...] = (),
    max_retries: int | None = None,
) -> Agent:
    """The adapter for an agent SPEC (the first registered prefix it starts with; Python
    callables otherwise); raises :class:`AgentLoadError` when it cannot load."""
    settings = AgentSettings(
        project_root, base_url, api_key_env, temperature, request_timeout, pass_env, max_retries
    )
    specs = AGENTS.specs.values()
    chosen = next((s for s in specs if s.prefix and spec.startswith(s.prefix)), None)
    if chosen is None:
        chosen = next(s for s in specs if not s.prefix)
    return chosen.load(spec, spec[len(chosen.prefix) :], settings)
