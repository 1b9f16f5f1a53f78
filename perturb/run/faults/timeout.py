"""``timeout``: the answer comes after the deadline, and the call still lands.

The tool layer waits 1.5 x the suite's ``timeout_s`` before answering; the real call runs (its
side effects happen) but the agent sees a timeout. An agent that retries a side-effecting call
without an idempotency key makes it land twice: the duplicate is counted in the trial.
"""

from __future__ import annotations

from perturb.run.faults.spec import FaultCall, FaultSpec, ToolResponse, encode


def inject(call: FaultCall) -> ToolResponse:
    call.sleep(call.deadline_s * 1.5)
    status, payload = call.invoke()
    return ToolResponse(status, encode(payload), timed_out=True)


SPEC = FaultSpec(
    name="timeout",
    summary="delay past the deadline, then the call lands (side effects happen)",
    exposes="duplicate side effects when the retry also lands",
    inject=inject,
)
