"""The travel agent's tool work, with the resilience code a careful team writes -- and its gaps.

Copes with: one or two 500s in a row (retry with exponential backoff, 3 attempts in all), 429
with ``Retry-After`` (it waits that long), truncated payloads and schema drift (every payload
is parsed and checked for the fields the agent uses; a bad one is fetched again), timeouts
(retried), refunds (sent with a ``request_id``, so a retried refund is a replay).

Does not cope with: three or four 500s in a row (it gives up and escalates to a human), 429
without ``Retry-After`` (its backoff, 2 ms then 4 ms, is far shorter than the limiter's 500 ms
window: all three attempts hit the closed limit), implausible values (nothing checks that a
booking reference looks like one: a reversed ``ref`` or ``day`` from a tool goes straight into
the answer), and timeouts of ``change_booking`` / ``cancel_booking`` (retried without an
idempotency key: the change lands twice, which the run counts as a duplicated side effect).
"""

from __future__ import annotations

import time
from typing import Any

from perturb.run.tools import ToolClient, ToolTimeout

ATTEMPTS = 3
FIRST_BACKOFF_S = 0.002
REQUIRED = {
    "lookup_booking": ("ref", "status"),
    "fare_quote": ("fare", "currency"),
    "seat_map": ("ref", "free"),
    "issue_refund": ("ref", "refund_id", "amount"),
    "change_booking": ("ref", "status", "day"),
    "cancel_booking": ("ref", "status"),
}
"""The fields the agent reads from each tool's payload (its "validation")."""
OK_STATUS = frozenset({"confirmed", "changed", "cancelled"})


class GaveUp(Exception):
    """A tool call did not succeed within the agent's attempts."""


def call(tools: ToolClient, trace: list[str], name: str, **args: Any) -> dict[str, Any]:
    """One tool call with retries; :class:`GaveUp` when it cannot get a usable payload."""
    backoff = FIRST_BACKOFF_S
    last = "no attempt"
    for attempt in range(1, ATTEMPTS + 1):
        try:
            resp = tools.call(name, **args)
        except ToolTimeout:
            last = "timeout"
            trace.append(f"{name}: timeout (attempt {attempt}); retrying")
            continue
        if resp.status == 429:
            wait = resp.retry_after if resp.retry_after is not None else backoff
            last = f"429, waited {wait:.3f} s"
            trace.append(f"{name}: 429 (attempt {attempt}); waiting {wait:.3f} s")
            time.sleep(wait)
            backoff *= 2
            continue
        if resp.status >= 500:
            last = f"{resp.status}"
            trace.append(f"{name}: {resp.status} (attempt {attempt}); backing off {backoff:.3f} s")
            time.sleep(backoff)
            backoff *= 2
            continue
        if resp.status != 200:
            raise GaveUp(f"{name}: {resp.status} {resp.body[:80]}")
        try:
            data = resp.json()
        except ValueError:
            last = "truncated payload"
            trace.append(f"{name}: payload is not complete JSON (attempt {attempt}); fetching again")
            continue
        missing = [f for f in REQUIRED.get(name, ()) if not isinstance(data, dict) or f not in data]
        if missing:
            last = f"payload without {missing[0]!r}"
            trace.append(f"{name}: payload lacks {missing[0]!r} (attempt {attempt}); fetching again")
            continue
        return data
    raise GaveUp(f"{name}: gave up after {ATTEMPTS} attempts ({last})")


def _booking_step(step: dict[str, Any], tools: ToolClient, trace: list[str]) -> None:
    ref = step.get("booking_ref")
    if not ref:
        return
    booking = call(tools, trace, "lookup_booking", ref=ref)
    if booking["status"] not in OK_STATUS:
        raise GaveUp(f"lookup_booking: unexpected status {booking['status']!r}")
    step["booking_ref"] = booking["ref"]  # the desk answers with the booking it found
    intent = step["intent"]
    if intent == "cancel_booking":
        step["booking_ref"] = call(tools, trace, "cancel_booking", ref=booking["ref"])["ref"]
    elif intent == "change_booking":
        new_day = step.get("new_day")
        args = {"ref": booking["ref"], **({"new_day": new_day} if isinstance(new_day, str) else {})}
        changed = call(tools, trace, "change_booking", **args)
        step["change_fee"] = changed.get("fee")
        if isinstance(new_day, str):
            step["new_day"] = changed.get("day")  # the confirmation the system sent back
    elif intent == "refund":
        amount = step.get("amount")
        args = {"ref": booking["ref"], "request_id": f"refund-{booking['ref']}"}
        if isinstance(amount, int | float):
            args["amount"] = amount
        step["refund_id"] = call(tools, trace, "issue_refund", **args)["refund_id"]
    elif intent == "seat_upgrade":
        step["seats_free"] = call(tools, trace, "seat_map", ref=booking["ref"])["free"]


def _step(step: dict[str, Any], tools: ToolClient, trace: list[str]) -> None:
    if step.get("intent") == "book_flight" and step.get("origin") and step.get("destination"):
        args = {"origin": step["origin"], "destination": step["destination"]}
        if isinstance(step.get("day"), str):
            args["day"] = step["day"]
        step["quoted_fare"] = call(tools, trace, "fare_quote", **args)["fare"]
    else:
        _booking_step(step, tools, trace)


def act(action: dict[str, Any], tools: ToolClient, trace: list[str]) -> dict[str, Any]:
    """Carry the decided action out with the tools; an escalation when a tool gives up."""
    steps = action["steps"] if action.get("intent") == "multi_step" else [action]
    try:
        for step in steps:
            _step(step, tools, trace)
    except GaveUp as exc:
        trace.append(f"escalating to a human: {exc}")
        return {"intent": "escalate", "reason": str(exc)}
    return action
