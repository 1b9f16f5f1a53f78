"""``partial``: status 200 but the payload is cut in the middle of the JSON object.

The real call runs; the agent receives the first half of its JSON text. Exposes parsing that
assumes well-formed input (``json()`` raises ``ValueError``)."""

from __future__ import annotations

from perturb.run.faults.spec import FaultCall, FaultSpec, ToolResponse, encode


def inject(call: FaultCall) -> ToolResponse:
    status, payload = call.invoke()
    body = encode(payload)
    if status != 200:
        return ToolResponse(status, body)
    cut = max(1, len(body) // 2)
    return ToolResponse(200, body[:cut] if cut < len(body) else body[:-1])


SPEC = FaultSpec(
    name="partial",
    summary="payload truncated mid-object (status 200)",
    exposes="parsing that assumes well-formed input",
    inject=inject,
)
