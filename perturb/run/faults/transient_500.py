"""``transient_500``: the tool fails with 500 m times in a row (m = 1..4, drawn), then works.

Exposes whether retry-with-backoff exists at all, and how many attempts it allows: an agent
that retries three times copes with m <= 3 and gives up at m = 4.
"""

from __future__ import annotations

from typing import Any

from perturb.run.faults.spec import FaultCall, FaultSpec, ToolResponse, encode

_BODY = encode({"error": "internal server error"})


def inject(call: FaultCall) -> ToolResponse:
    failures = 1 + int(call.draw(0) * 4)
    if failures > 1:
        call.hold({"left": failures - 1})
    return ToolResponse(500, _BODY)


def follow(call: FaultCall, state: dict[str, Any]) -> ToolResponse | None:
    if state["left"] <= 0:
        return None
    state["left"] -= 1
    return ToolResponse(500, _BODY)


SPEC = FaultSpec(
    name="transient_500",
    summary="500 m times in a row (m = 1..4), then success",
    exposes="whether retry-with-backoff exists at all",
    inject=inject,
    follow=follow,
)
