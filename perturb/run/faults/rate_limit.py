"""``rate_limit``: HTTP 429, with a ``Retry-After`` header on half of the injections (drawn).

The limiter then stays closed for that tool until the retry-after window (``retry_after_s``
of the suite's tool file) has elapsed: every call before then gets 429 again and is counted
as a call made before Retry-After elapsed. An agent that retries at once burns its attempts
against a limit that has not reset; one that honours Retry-After (or backs off) gets through.
"""

from __future__ import annotations

import math
from typing import Any

from perturb.run.faults.spec import FaultCall, FaultSpec, ToolResponse, encode


def _response(state: dict[str, Any], now: float) -> ToolResponse:
    headers = {}
    if state["header"]:
        headers["Retry-After"] = f"{math.ceil(max(state['until'] - now, 0.0) * 1000) / 1000:.3f}"
    return ToolResponse(429, encode({"error": "rate limit exceeded"}), headers)


def inject(call: FaultCall) -> ToolResponse:
    now = call.now()
    state = {"until": now + call.retry_after_s, "header": call.draw(0) < 0.5}
    call.hold(state)
    return _response(state, now)


def follow(call: FaultCall, state: dict[str, Any]) -> ToolResponse | None:
    now = call.now()
    if now >= state["until"]:
        return None
    return _response(state, now)


SPEC = FaultSpec(
    name="rate_limit",
    summary="429 Too Many Requests, with or without Retry-After; the limit holds until it elapses",
    exposes="immediate retry loops that burn the budget on a wall",
    inject=inject,
    follow=follow,
)
