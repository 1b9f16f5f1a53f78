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
import importlib
import inspect
import json
import queue
import re
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from perturb.errors import AgentLoadError
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
    """The interface the scheduler drives."""

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
    """Parse a subprocess agent's stdout; raises :class:`AgentCallError` (malformed)."""
    text = stdout.decode("utf-8", "replace").strip()
    if not text:
        raise AgentCallError("malformed", 'empty stdout (expected {"output": ...} as JSON)')
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        head = text[:120] + ("..." if len(text) > 120 else "")
        raise AgentCallError(
            "malformed",
            f"stdout is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno}; "
            f'expected {{"output": ...}}): {head!r}',
        ) from None
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


@dataclass
class PythonAgent:
    """``module:function`` or ``module:factory()``."""

    spec: str
    target: Callable[..., Any]
    factory: bool = False
    pool: DaemonPool = field(default_factory=DaemonPool)

    def __post_init__(self) -> None:
        self._async = _is_async(self.target)
        self._one_arg = False if self.factory else _arity_one(self.target)

    async def start(self) -> None:
        return None

    def _invoke_sync(self, fn: Any, prompt: str, request: dict[str, Any]) -> Any:
        return fn(prompt) if _arity_one(fn) else fn(prompt, request)

    def _factory_then_call(self, prompt: str, request: dict[str, Any]) -> tuple[bool, Any]:
        product = self.target()
        if not callable(product):
            raise TypeError(
                f"factory {self.spec} returned {type(product).__name__}, expected a callable agent"
            )
        if _is_async(product):
            return True, product
        return False, self._invoke_sync(product, prompt, request)

    async def call(self, request: dict[str, Any]) -> AgentResponse:
        prompt = request["prompt"]
        loop = asyncio.get_running_loop()
        if not self.factory:
            if self._async:
                value = await (self.target(prompt) if self._one_arg else self.target(prompt, request))
            else:
                fn = self.target
                value = await loop.run_in_executor(
                    self.pool, (lambda: fn(prompt)) if self._one_arg else (lambda: fn(prompt, request))
                )
        elif self._async:
            product = await self.target()
            value = await (product(prompt) if _arity_one(product) else product(prompt, request))
        else:
            pending, value = await loop.run_in_executor(self.pool, self._factory_then_call, prompt, request)
            if pending:
                product = value
                value = await (product(prompt) if _arity_one(product) else product(prompt, request))
        if inspect.isawaitable(value):
            value = await value
        return response_from_value(value)

    async def aclose(self) -> None:
        self.pool.shutdown(wait=False)

    def describe(self) -> dict[str, Any]:
        return {"model": None, "base_url": None}

    def secrets(self) -> list[str]:
        return []


def load_python_agent(spec: str, project_root: Path | None = None) -> PythonAgent:
    """Import the named module (only that) and return the adapter."""
    match = _PY_SPEC.match(spec)
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
) -> Agent:
    """The adapter for an agent SPEC (the first registered prefix it starts with; Python
    callables otherwise); raises :class:`AgentLoadError` when it cannot load."""
    settings = AgentSettings(project_root, base_url, api_key_env, temperature, request_timeout)
    specs = AGENTS.specs.values()
    chosen = next((s for s in specs if s.prefix and spec.startswith(s.prefix)), None)
    if chosen is None:
        chosen = next(s for s in specs if not s.prefix)
    return chosen.load(spec, spec[len(chosen.prefix) :], settings)
