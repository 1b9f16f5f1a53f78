"""``rate_limit_storm`` (compound, stress tier): every tool answers 429 for three retry-after
windows, whatever the agent calls. Retry-After is sent. An agent that honours it waits out
the storm; one that retries at once, or switches tools to "get around" it, burns its budget."""

from __future__ import annotations

import math
from typing import Any

from perturb.run.faults.spec import FaultCall, FaultSpec, ToolResponse, encode

WINDOWS = 3


def _response(state: dict[str, Any], now: float) -> ToolResponse:
    left = math.ceil(max(state["until"] - now, 0.0) * 1000) / 1000
    return ToolResponse(429, encode({"error": "rate limit exceeded (storm)"}), {"Retry-After": f"{left:.3f}"})


def inject(call: FaultCall) -> ToolResponse:
    now = call.now()
    state = {"until": now + WINDOWS * call.retry_after_s}
    call.hold(state, every_tool=True)
    return _response(state, now)


def follow(call: FaultCall, state: dict[str, Any]) -> ToolResponse | None:
    now = call.now()
    return None if now >= state["until"] else _response(state, now)


SPEC = FaultSpec(
    name="rate_limit_storm",
    summary="429 on every tool for 3 retry-after windows (compound)",
    exposes="retry storms across tools; budgets spent against a closed limit",
    inject=inject,
    follow=follow,
    compound=True,
)
