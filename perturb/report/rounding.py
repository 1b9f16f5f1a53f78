"""The one rounding rule of every figure perturb prints or writes.

Figures are shown with :data:`DECIMALS` (3) decimals, rounded half to even on the figure's
shortest decimal form (``repr``) taken to 12 decimals (dropping float noise), so 37/80 =
0.4625 is ``0.462`` in the text, Markdown, HTML, JUnit and JSON reports and in the gate alike
(binary floating point alone would round 0.0125 = 1/80 up and 0.4625 down). JSON numbers are
these same rounded values (:func:`rounded`); the exact counts behind them (passed, n) are in
the JSON too.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, Decimal

__all__ = ["DECIMALS", "f3", "rounded", "signed"]

DECIMALS = 3
_QUANTUM = Decimal(1).scaleb(-DECIMALS)
_NOISE = Decimal(1).scaleb(-12)
"""Figures are first rounded to 12 decimals: an average of 0.4625s can come out as
0.46250000000000002, which is float noise, not a value above the tie."""


def _decimal(value: float) -> Decimal:
    exact = Decimal(repr(float(value))).quantize(_NOISE, rounding=ROUND_HALF_EVEN)
    return exact.quantize(_QUANTUM, rounding=ROUND_HALF_EVEN)


def rounded(value: float) -> float:
    """``value`` rounded to :data:`DECIMALS` decimals, half to even (``0.4625 -> 0.462``);
    non-finite values unchanged."""
    if not math.isfinite(value):
        return float(value)
    return float(_decimal(value)) + 0.0  # + 0.0: no -0.0


def f3(value: float | None) -> str:
    """``0.550`` (the rounding rule above); ``-`` for no value."""
    if value is None:
        return "-"
    if not math.isfinite(value):
        return str(value)
    text = str(_decimal(value))
    return "0.000" if text == "-0.000" else text


def signed(value: float | None) -> str:
    """``+0.012`` / ``-0.050`` (the rounding rule above, never ``-0.000``); ``-`` for no value."""
    if value is None:
        return "-"
    text = f3(value)
    return text if text.startswith("-") else f"+{text}"
