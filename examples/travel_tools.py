"""The travel desk's tools, backed by a per-trial in-memory store (``tasks/travel.tools.toml``).

:func:`new_store` builds the booking database a task starts from: one confirmed booking for
every reference (``BK-12345``) in the task's prompt, with its route, day, cabin and price
derived from the reference's digits (the same store for every trial of the task, fresh each
time). The tools read and change that store; :class:`~perturb.run.tools.ToolError` answers
404 for an unknown booking and 409 for a change to a cancelled one.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from perturb.run.tools import ToolError

_REF = re.compile(r"\bBK-\d{5}\b", re.I)
CITIES = ("London", "Delhi", "Lisbon", "Paris", "Mumbai", "Berlin", "Madrid", "Rome")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
CABINS = ("economy", "premium", "business")
CHANGE_FEE = 45.0


def _digits(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.upper().encode()).digest()[:4], "big")


@dataclass
class TravelStore:
    """One trial's booking database and the side effects the tools made on it."""

    bookings: dict[str, dict[str, Any]] = field(default_factory=dict)
    refunds: list[dict[str, Any]] = field(default_factory=list)
    changes: list[dict[str, Any]] = field(default_factory=list)

    def booking(self, ref: str) -> dict[str, Any]:
        found = self.bookings.get(ref.upper())
        if found is None:
            raise ToolError(404, f"no booking {ref}")
        return found


def booking_for(ref: str) -> dict[str, Any]:
    """The booking a reference starts as (deterministic in the reference)."""
    d = _digits(ref)
    origin = CITIES[d % len(CITIES)]
    destination = CITIES[(d // 8 + 1 + d % len(CITIES)) % len(CITIES)]
    if destination == origin:
        destination = CITIES[(CITIES.index(origin) + 1) % len(CITIES)]
    return {
        "ref": ref.upper(),
        "status": "confirmed",
        "origin": origin,
        "destination": destination,
        "day": DAYS[(d >> 8) % 7],
        "cabin": CABINS[(d >> 12) % 2],
        "paid": float(120 + (d >> 16) % 400),
        "currency": "GBP",
    }


def new_store(task: dict[str, Any]) -> TravelStore:
    """The store a trial of ``task`` starts from: a booking per reference in its prompt."""
    store = TravelStore()
    for ref in _REF.findall(task.get("prompt", "")):
        store.bookings[ref.upper()] = booking_for(ref)
    return store


def lookup_booking(store: TravelStore, ref: str) -> dict[str, Any]:
    """The booking record."""
    return dict(store.booking(ref))


def fare_quote(store: TravelStore, origin: str, destination: str, day: str | None = None) -> dict[str, Any]:
    """Today's fare for a route (deterministic in the route and the day)."""
    d = _digits(f"{origin}:{destination}:{day}")
    return {"origin": origin, "destination": destination, "fare": float(60 + d % 500), "currency": "GBP"}


def seat_map(store: TravelStore, ref: str) -> dict[str, Any]:
    """Free seats per cabin on the booking's flight."""
    booking = store.booking(ref)
    d = _digits(booking["ref"])
    return {"ref": booking["ref"], "free": {c: (d >> (4 * i)) % 9 for i, c in enumerate(CABINS)}}


def issue_refund(
    store: TravelStore, ref: str, amount: float | None = None, request_id: str | None = None
) -> dict[str, Any]:
    """Refund (part of) a booking; idempotent when the caller sends a ``request_id``."""
    booking = store.booking(ref)
    value = booking["paid"] if amount is None else float(amount)
    refund = {"ref": booking["ref"], "refund_id": f"RF-{len(store.refunds) + 1}", "amount": value}
    store.refunds.append(refund)
    return refund


def change_booking(store: TravelStore, ref: str, new_day: str | None = None) -> dict[str, Any]:
    """Move a booking to another day; every change charges the change fee."""
    booking = store.booking(ref)
    if booking["status"] == "cancelled":
        raise ToolError(409, f"booking {ref} is cancelled")
    if new_day:
        booking["day"] = new_day
    booking["status"] = "changed"
    store.changes.append({"ref": booking["ref"], "fee": CHANGE_FEE})
    return {"ref": booking["ref"], "status": booking["status"], "day": booking["day"], "fee": CHANGE_FEE}


def cancel_booking(store: TravelStore, ref: str) -> dict[str, Any]:
    """Cancel a booking."""
    booking = store.booking(ref)
    booking["status"] = "cancelled"
    return {"ref": booking["ref"], "status": "cancelled"}
