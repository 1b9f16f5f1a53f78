"""A callable grader for the travel suite (``"grader": {"type": "callable", ...}``).

perturb calls ``f(output, expected, task) -> bool``.
"""

from __future__ import annotations

from typing import Any

from .travel_extract import date_number


def valid_stay(output: Any, expected: Any, task: Any = None) -> bool:
    """A hotel booking for the expected city, check-in and check-out, whose ``nights`` agrees
    with the two dates (and with ``expected["nights"]`` when given)."""
    if not isinstance(output, dict) or output.get("intent") != "book_hotel":
        return False
    for key in ("city", "check_in", "check_out", "guests"):
        if key in expected and output.get(key) != expected[key]:
            return False
    try:
        span = (date_number(output["check_out"]) - date_number(output["check_in"])) % 365
    except (KeyError, ValueError, AttributeError):
        return False
    return bool(output.get("nights") == span and expected.get("nights", span) == span)
