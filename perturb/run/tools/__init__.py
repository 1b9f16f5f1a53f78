"""The tool layer perturb controls: declared tools, a fresh state per trial, seeded faults.

Every trial of a run with tools (``tasks/<suite>.tools.toml``, :mod:`perturb.run.tools.suite`)
or with ``--faults`` gets its own :class:`ToolClient`: a fresh state from the suite's factory,
the trial's :class:`~perturb.run.faults.FaultPlan`, and a log of every call. Python agents find
it as ``request["tools"]``::

    resp = request["tools"].call("lookup_booking", ref="BK-1")   # a ToolResponse
    if resp.status == 429: time.sleep(resp.retry_after or 1.0)   # ... and retry
    booking = resp.raise_for_status().json()                     # ValueError if truncated

Teams whose tools live in their own code wrap them instead (:meth:`ToolClient.wrap`, or
:func:`wrap` which is a no-op outside a fault run)::

    lookup = wrap(request, my_lookup)            # same call, through the fault schedule
    booking = lookup(ref="BK-1")                 # ToolHTTPError / ToolTimeout / ValueError

``cmd:`` agents reach the same client over HTTP (:mod:`perturb.run.tools.http`); ``openai:``
agents through the function-calling loop perturb runs (:mod:`perturb.run.agents.openai`).

Calls of one trial are serialised (one lock), so call indices follow arrival order. A call
of a side-effecting tool that lands (status < 400) with the same arguments as an earlier one
that landed is a *duplicated side effect*, unless the tool declares an ``idempotency_key``
and the call carries one: then it is a replay, answered from the first call.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections.abc import Callable
from typing import Any

from perturb.io.hashing import canonical_json
from perturb.run.faults import FaultPlan, draw
from perturb.run.faults.spec import FaultCall, FaultSpec, ToolHTTPError, ToolResponse, ToolTimeout, encode
from perturb.run.tools.suite import (
    DEFAULT_RETRY_AFTER_S,
    DEFAULT_TIMEOUT_S,
    ToolDecl,
    ToolSuite,
    find_tools,
    load_tools,
    tools_path,
)

__all__ = [
    "ToolCallError",
    "ToolClient",
    "ToolDecl",
    "ToolError",
    "ToolHTTPError",
    "ToolResponse",
    "ToolSuite",
    "ToolTimeout",
    "UndeclaredToolError",
    "find_tools",
    "load_tools",
    "tools_path",
    "wrap",
]


class ToolError(Exception):
    """Raised by a tool implementation to answer with a status other than 200."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class ToolCallError(Exception):
    """A call perturb could not make: the trial is recorded as ``errored`` with the reason."""


class UndeclaredToolError(ToolCallError):
    """The agent called a tool the suite does not declare."""


class ToolClient:
    """One trial's tool layer (see the module docstring)."""

    def __init__(
        self,
        suite: ToolSuite | None,
        state: Any,
        plan: FaultPlan,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.suite = suite
        self.state = state
        self.plan = plan
        self.deadline_s = suite.timeout_s if suite else DEFAULT_TIMEOUT_S
        self.retry_after_s = suite.retry_after_s if suite else DEFAULT_RETRY_AFTER_S
        self.calls: list[dict[str, Any]] = []
        """One dict per call (the :class:`~perturb.records.ToolCall` fields)."""
        self.duplicates = 0
        self.problem: str | None = None
        """The first reason the trial cannot count (undeclared tool, a crashing implementation)."""
        self._tools: dict[str, ToolDecl] = dict(suite.tools) if suite else {}
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._holds: dict[str, tuple[FaultSpec, dict[str, Any]]] = {}
        self._landed: dict[tuple[str, str], tuple[int, Any]] = {}

    # ------------------------------------------------------------------ public

    @property
    def names(self) -> list[str]:
        """The tools this client knows (declared, then wrapped)."""
        return list(self._tools)

    def declaration(self, name: str) -> ToolDecl | None:
        return self._tools.get(name)

    def call(self, tool: str, /, **args: Any) -> ToolResponse:
        """Call ``tool``; a :class:`ToolResponse`, or :class:`ToolTimeout` past the deadline."""
        response = self.respond(tool, args)
        if response.timed_out:
            raise ToolTimeout(f"{tool}: no answer within {self.deadline_s:g} s")
        return response

    async def acall(self, tool: str, /, **args: Any) -> ToolResponse:
        """:meth:`call` for async agents (runs in a worker thread)."""
        return await asyncio.to_thread(self.call, tool, **args)

    def wrap(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        side_effect: bool = False,
        idempotency_key: str | None = None,
    ) -> Callable[..., Any]:
        """``fn`` routed through this trial's schedule: the wrapper returns ``fn``'s value, or
        raises :class:`ToolHTTPError` (429, 500), :class:`ToolTimeout` or ``ValueError``
        (a truncated payload) as the schedule decides."""
        tool = name or fn.__name__
        if tool not in self._tools:
            self._tools[tool] = ToolDecl(
                name=tool,
                function=lambda _state, **a: fn(**a),
                side_effect=side_effect,
                idempotency_key=idempotency_key,
            )
        try:
            signature: inspect.Signature | None = inspect.signature(fn)
        except (TypeError, ValueError):
            signature = None

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            bound = dict(signature.bind(*args, **kwargs).arguments) if signature else dict(kwargs)
            return self.call(tool, **bound).raise_for_status().json()

        wrapped.__name__ = tool
        wrapped.__doc__ = fn.__doc__
        return wrapped

    # ------------------------------------------------------------------ internals

    def respond(self, tool: str, args: dict[str, Any]) -> ToolResponse:
        """The response of one call, timed-out or not (what the HTTP endpoint sends)."""
        with self._lock:
            started = self._clock()
            index = len(self.calls)
            record: dict[str, Any] = {
                "tool": tool,
                "index": index,
                "fault": None,
                "followup": False,
                "status": 0,
                "timed_out": False,
                "latency_s": 0.0,
                "side_effect": False,
                "duplicate": False,
            }
            self.calls.append(record)
            decl = self._tools.get(tool)
            if decl is None:
                declared = ", ".join(self._tools) or "none"
                message = f"the agent called undeclared tool {tool!r} (declared: {declared})"
                self.problem = self.problem or message
                record["status"] = 404
                raise UndeclaredToolError(message)
            record["side_effect"] = decl.side_effect
            response = self._respond(decl, args, index, record)
            record["status"] = response.status
            record["timed_out"] = response.timed_out
            record["latency_s"] = round(self._clock() - started, 6)
            return response

    def _respond(
        self, decl: ToolDecl, args: dict[str, Any], index: int, record: dict[str, Any]
    ) -> ToolResponse:
        problem = decl.check_args(args)
        if problem is not None:
            return ToolResponse(400, encode({"error": f"invalid arguments: {problem}"}))
        digest = b""
        for scope in (decl.name, "*"):
            held = self._holds.get(scope)
            if held is None:
                continue
            spec, state = held
            assert spec.follow is not None
            answer = spec.follow(self._fault_call(decl, args, index, digest, record), state)
            if answer is not None:
                record["fault"], record["followup"] = spec.name, True
                return answer
            del self._holds[scope]
        spec_now, digest = self.plan.pick(index)
        if spec_now is None:
            status, payload = self._invoke(decl, args, record)
            return ToolResponse(status, self._encode(decl, payload))
        record["fault"] = spec_now.name
        return spec_now.inject(self._fault_call(decl, args, index, digest, record, spec_now))

    def _fault_call(
        self,
        decl: ToolDecl,
        args: dict[str, Any],
        index: int,
        digest: bytes,
        record: dict[str, Any],
        spec: FaultSpec | None = None,
    ) -> FaultCall:
        def hold(state: dict[str, Any], every_tool: bool = False) -> None:
            if spec is not None and spec.follow is not None:
                self._holds["*" if every_tool else decl.name] = (spec, state)

        return FaultCall(
            tool=decl.name,
            args=args,
            index=index,
            deadline_s=self.deadline_s,
            retry_after_s=self.retry_after_s,
            invoke=lambda: self._invoke(decl, args, record),
            draw=(lambda i: draw(digest, i)) if digest else (lambda i: 0.0),
            now=self._clock,
            sleep=self._sleep,
            hold=hold,
        )

    def _encode(self, decl: ToolDecl, payload: Any) -> str:
        try:
            return encode(payload)
        except (TypeError, ValueError) as exc:
            self.problem = self.problem or f"tool {decl.name!r} returned a payload that is not JSON: {exc}"
            return encode({"error": "tool returned a payload that is not JSON"})

    def _invoke(self, decl: ToolDecl, args: dict[str, Any], record: dict[str, Any]) -> tuple[int, Any]:
        """Run the implementation; count a duplicated side effect."""
        key = (decl.name, canonical_json(args).decode("utf-8")) if decl.side_effect else None
        if key is not None and decl.idempotency_key and args.get(decl.idempotency_key) is not None:
            replay = self._landed.get(key)
            if replay is not None:
                return replay
        try:
            payload = decl.function(self.state, **args)
            status = 200
        except ToolError as exc:
            status, payload = exc.status, {"error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - a crashing tool makes the trial errored
            from perturb.run.agents import exception_text

            self.problem = self.problem or f"tool {decl.name!r} failed: {exception_text(exc)}"
            status, payload = 500, {"error": "tool implementation failed"}
        if key is not None and status < 400:
            if key in self._landed:
                self.duplicates += 1
                record["duplicate"] = True
            else:
                self._landed[key] = (status, payload)
        return status, payload


def wrap(request: dict[str, Any], fn: Callable[..., Any], **options: Any) -> Callable[..., Any]:
    """``request["tools"].wrap(fn, ...)`` in a run with a tool layer; ``fn`` itself otherwise."""
    client = request.get("tools") if isinstance(request, dict) else None
    if isinstance(client, ToolClient):
        return client.wrap(fn, **options)
    return fn
