"""``wrong_data``: a valid payload (same keys, same types) with one implausible value.

The drawn scalar leaf (depth-first, sorted keys) is replaced: a number by ``-(|x| * 1000 + 1)``,
a string by its reverse (``"BK-48213"`` -> ``"31284-KB"``; a palindrome or an empty string by
``"??"``), a boolean by its negation. Exposes whether anything sanity-checks tool output."""

from __future__ import annotations

from typing import Any

from perturb.run.faults.spec import FaultCall, FaultSpec, ToolResponse, encode


def _leaves(value: Any, path: tuple[Any, ...], out: list[tuple[Any, ...]]) -> None:
    if isinstance(value, dict):
        for key in sorted(value):
            _leaves(value[key], (*path, key), out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _leaves(item, (*path, i), out)
    elif value is not None:
        out.append(path)


def implausible(value: Any) -> Any:
    """A value of the same type that no sane source would return."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return -(abs(value) * 1000 + 1)
    if isinstance(value, str):
        flipped = value[::-1]
        return flipped if flipped != value else "??"
    return value


def corrupt(payload: Any, u: float) -> Any:
    """The payload with its drawn scalar leaf made implausible (a copy; unchanged if none)."""
    leaves: list[tuple[Any, ...]] = []
    _leaves(payload, (), leaves)
    if not leaves:
        return payload
    path = leaves[int(u * len(leaves))]
    if not path:
        return implausible(payload)

    def rebuild(value: Any, rest: tuple[Any, ...]) -> Any:
        if not rest:
            return implausible(value)
        head = rest[0]
        if isinstance(value, dict):
            return {k: (rebuild(v, rest[1:]) if k == head else v) for k, v in value.items()}
        return [rebuild(v, rest[1:]) if i == head else v for i, v in enumerate(value)]

    return rebuild(payload, path)


def inject(call: FaultCall) -> ToolResponse:
    status, payload = call.invoke()
    if status != 200:
        return ToolResponse(status, encode(payload))
    return ToolResponse(200, encode(corrupt(payload, call.draw(0))))


SPEC = FaultSpec(
    name="wrong_data",
    summary="valid schema, one implausible value (negated number, reversed string)",
    exposes="whether anything sanity-checks tool output",
    inject=inject,
)
