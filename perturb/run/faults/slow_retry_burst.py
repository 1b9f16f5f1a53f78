"""``slow_retry_burst`` (compound, stress tier): the tool fails with 500 m times (m = 2..4,
drawn) and each failure arrives slowly, after 0.8 x the deadline -- a slow downstream during a
retry burst. Retries that do not back off pile up wall time; a per-task time budget runs out."""

from __future__ import annotations

from typing import Any

from perturb.run.faults.spec import FaultCall, FaultSpec, ToolResponse, encode

_BODY = encode({"error": "upstream slow, internal server error"})


def inject(call: FaultCall) -> ToolResponse:
    failures = 2 + int(call.draw(0) * 3)
    call.hold({"left": failures - 1})
    call.sleep(call.deadline_s * 0.8)
    return ToolResponse(500, _BODY)


def follow(call: FaultCall, state: dict[str, Any]) -> ToolResponse | None:
    if state["left"] <= 0:
        return None
    state["left"] -= 1
    call.sleep(call.deadline_s * 0.8)
    return ToolResponse(500, _BODY)


SPEC = FaultSpec(
    name="slow_retry_burst",
    summary="500 m times (m = 2..4), each after 0.8 x the deadline (compound)",
    exposes="retry bursts against a slow dependency; time budgets",
    inject=inject,
    follow=follow,
    compound=True,
)
