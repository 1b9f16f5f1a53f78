"""``schema_drift``: one field of the payload renamed (``<field>_v2``) and an unexpected
field (``x_schema_version``) added.

The field is the drawn one of the object's keys in sorted order (the first object of a list
payload); a payload that holds no object is passed through unchanged
and the call is still recorded as a ``schema_drift`` injection. Exposes brittle field access
and silent misreads."""

from __future__ import annotations

from typing import Any

from perturb.run.faults.spec import FaultCall, FaultSpec, ToolResponse, encode


def drift(payload: Any, u: float) -> Any:
    """The payload with one key renamed and one added (objects only; others unchanged)."""
    if isinstance(payload, list) and payload and isinstance(payload[0], dict):
        return [drift(payload[0], u), *payload[1:]]
    if not isinstance(payload, dict) or not payload:
        return payload
    keys = sorted(payload)
    key = keys[int(u * len(keys))]
    out = {(f"{k}_v2" if k == key else k): v for k, v in payload.items()}
    out["x_schema_version"] = "2"
    return out


def inject(call: FaultCall) -> ToolResponse:
    status, payload = call.invoke()
    if status != 200:
        return ToolResponse(status, encode(payload))
    return ToolResponse(200, encode(drift(payload, call.draw(0))))


SPEC = FaultSpec(
    name="schema_drift",
    summary="a field renamed (<field>_v2) and an unexpected one added",
    exposes="brittle field access; silent misreads",
    inject=inject,
)
