"""The fault-class spec: what one fault module exports (``SPEC = FaultSpec(...)``), and the
wire types every tool path shares (:class:`ToolResponse`, :class:`FaultCall`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class ToolHTTPError(Exception):
    """A tool answered with an error status (429, 500, 400, 404, ...)."""

    def __init__(self, status: int, body: str, retry_after: float | None = None) -> None:
        super().__init__(f"tool answered {status}: {body[:200]}")
        self.status = status
        self.body = body
        self.retry_after = retry_after


class ToolTimeout(Exception):
    """The tool did not answer within its deadline (the call may still have landed)."""


@dataclass
class ToolResponse:
    """What a tool call returns, shaped like an HTTP response.

    ``status`` 200 with a JSON ``body`` on success; 429 (``Retry-After`` header, seconds, when
    the limiter sends one), 500, 400 (arguments that break the tool's schema) or a status the
    tool chose otherwise. ``json()`` parses the body and raises :class:`ValueError` on a
    truncated payload, exactly like an HTTP client would."""

    status: int
    body: str
    headers: dict[str, str] = field(default_factory=dict)
    timed_out: bool = False
    """Internal: the answer came after the deadline (the client raises :class:`ToolTimeout`)."""

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def retry_after(self) -> float | None:
        """The ``Retry-After`` header in seconds, when present."""
        value = self.headers.get("Retry-After")
        return float(value) if value is not None else None

    def json(self) -> Any:
        """The parsed body; :class:`ValueError` when it is not complete JSON."""
        return json.loads(self.body)

    def raise_for_status(self) -> ToolResponse:
        """Raise :class:`ToolHTTPError` unless the status is 2xx; return self otherwise."""
        if not self.ok:
            raise ToolHTTPError(self.status, self.body, self.retry_after)
        return self


@dataclass
class FaultCall:
    """One tool call as a fault class sees it.

    ``invoke()`` runs the real implementation (its side effects land and are counted) and
    returns ``(status, payload)``; ``draw(i)`` is the i-th (0..4) deterministic number in
    [0, 1) of this call's schedule digest, for the fault's parameters; ``hold(state)`` makes the
    fault's ``follow`` see the next calls (of this tool, or of every tool with
    ``every_tool=True``) until it releases them."""

    tool: str
    args: dict[str, Any]
    index: int
    deadline_s: float
    retry_after_s: float
    invoke: Callable[[], tuple[int, Any]]
    draw: Callable[[int], float]
    now: Callable[[], float]
    sleep: Callable[[float], None]
    hold: Callable[..., None]


def encode(payload: Any) -> str:
    """A payload as the JSON body of a response."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


InjectFn = Callable[[FaultCall], ToolResponse]
FollowFn = Callable[[FaultCall, dict[str, Any]], "ToolResponse | None"]


@dataclass(frozen=True)
class FaultSpec:
    """One fault class: its name (``--fault-classes rate_limit``) and how it is injected.

    ``inject(call)`` returns the response the agent sees instead of the real one (it may call
    ``call.invoke()`` to let the real call land, and ``call.hold(state)`` to keep affecting the
    following calls). ``follow(call, state)`` answers a held call, or returns None to release
    the hold (the call then proceeds as usual). ``compound`` classes (storms, slow tools
    during a retry burst) run only when named in ``--fault-classes`` (the stress tier)."""

    name: str
    summary: str
    """What is injected."""
    exposes: str
    """The agent behaviour it exposes."""
    inject: InjectFn
    follow: FollowFn | None = None
    compound: bool = False
