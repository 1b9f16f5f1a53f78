"""Fault classes injected at the tool layer, and the seeded schedule that picks them.

Each class is one module exporting ``SPEC = FaultSpec(...)``; :data:`FAULTS` is built from
them and from the ``perturb.faults`` entry points. :func:`schedule_digest` is the whole
schedule: whether call ``index`` of a trial faults, and with which class, is a pure function
of (run seed, fixture entry id, attempt, call index, λ, class set) through sha256 -- the same
at any concurrency, after a resume, on any machine.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from perturb.errors import UsageError
from perturb.plugins import Registry
from perturb.run.faults.spec import FaultCall, FaultSpec, ToolHTTPError, ToolResponse, ToolTimeout

__all__ = [
    "FAULTS",
    "FaultCall",
    "FaultPlan",
    "FaultSpec",
    "ToolHTTPError",
    "ToolResponse",
    "ToolTimeout",
    "default_classes",
    "parse_lambdas",
    "resolve_classes",
    "schedule_digest",
]

FAULTS: Registry[FaultSpec] = Registry(
    "fault class",
    "perturb.faults",
    FaultSpec,
    (
        "perturb.run.faults.rate_limit",
        "perturb.run.faults.timeout",
        "perturb.run.faults.transient_500",
        "perturb.run.faults.partial",
        "perturb.run.faults.schema_drift",
        "perturb.run.faults.wrong_data",
        "perturb.run.faults.rate_limit_storm",
        "perturb.run.faults.slow_retry_burst",
    ),
)
"""Fault class name -> spec: the six single faults, the compound ones, then plugins."""

_TWO64 = float(2**64)
_TWO32 = float(2**32)


def default_classes() -> list[str]:
    """Every registered class that is not compound (what ``--faults`` injects by default)."""
    return [name for name, spec in FAULTS.specs.items() if not spec.compound]


def resolve_classes(names: Sequence[str] | None) -> list[str]:
    """The class set in registry order; :class:`UsageError` for an unknown name."""
    if not names:
        return default_classes()
    known = FAULTS.names()
    bad = [n for n in names if n not in known]
    if bad:
        raise UsageError(
            f"unknown fault class {bad[0]!r} in --fault-classes (expected some of: {', '.join(known)})"
        )
    wanted = set(names)
    return [n for n in known if n in wanted]


def parse_lambdas(text: str | Sequence[float] | None) -> list[float] | None:
    """``"0,0.1,0.3"`` -> ``[0.0, 0.1, 0.3]`` (sorted, unique, each in [0, 1], 0 included)."""
    if text is None:
        return None
    parts: list[object] = list(text.split(",")) if isinstance(text, str) else list(text)
    out: list[float] = []
    for part in parts:
        try:
            value = float(str(part).strip())
        except ValueError:
            raise UsageError(
                f"--faults {text!r}: {str(part).strip()!r} is not a number (expected rates in [0, 1], "
                "e.g. --faults 0,0.1,0.3)"
            ) from None
        if not 0.0 <= value <= 1.0:
            raise UsageError(
                f"--faults: λ={value:g} is outside [0, 1] (expected fault rates between 0 and 1, "
                "e.g. --faults 0,0.1,0.3)"
            )
        out.append(value)
    lams = sorted(set(out))
    if not lams or lams[0] != 0.0:
        raise UsageError(
            f"--faults {text!r}: λ=0 is missing (expected the reference rate 0 in the list, "
            "e.g. --faults 0,0.1,0.3)"
        )
    return lams


def _prefix(seed: int, entry_id: str, attempt: int, lam: float, classes: Sequence[str]) -> bytes:
    return f"{seed}\x1f{entry_id}\x1f{attempt}\x1f{lam!r}\x1f{','.join(classes)}\x1f".encode()


def schedule_digest(
    seed: int, entry_id: str, attempt: int, index: int, lam: float, classes: Sequence[str]
) -> bytes:
    """sha256 of everything the schedule depends on (and nothing else):
    ``"<seed>␟<entry id>␟<attempt>␟<λ repr>␟<class,class,...>␟<call index>"`` (␟ = U+001F)."""
    return hashlib.sha256(_prefix(seed, entry_id, attempt, lam, classes) + b"%d" % index).digest()


class FaultPlan:
    """The schedule of one trial: ``pick(index)`` -> (fault class or None, digest)."""

    __slots__ = ("seed", "entry_id", "attempt", "lam", "classes", "_specs", "_hasher", "_threshold")

    def __init__(self, seed: int, entry_id: str, attempt: int, lam: float, classes: Sequence[str]) -> None:
        self.seed = seed
        self.entry_id = entry_id
        self.attempt = attempt
        self.lam = lam
        self.classes = tuple(classes)
        self._specs = [FAULTS.get(c) for c in self.classes] if lam > 0 else []
        self._hasher = hashlib.sha256(_prefix(seed, entry_id, attempt, lam, self.classes))
        # u < λ as bytes: the digest's first 8 bytes (big-endian) below λ * 2^64.
        self._threshold = b"\xff" * 9 if lam >= 1.0 else int(lam * _TWO64).to_bytes(8, "big")

    def pick(self, index: int) -> tuple[FaultSpec | None, bytes]:
        """The fault of call ``index`` (0-based within the trial): first 8 bytes of the digest
        as u in [0, 1) -- a fault when u < λ; the next 4 choose the class uniformly."""
        if not self._specs:
            return None, b""
        hasher = self._hasher.copy()  # the fixed prefix is hashed once per trial
        hasher.update(b"%d" % index)
        digest = hasher.digest()
        if digest[:8] >= self._threshold:  # bytes compare as big-endian integers
            return None, digest
        return self._specs[int.from_bytes(digest[8:12], "big") % len(self._specs)], digest


def draw(digest: bytes, i: int) -> float:
    """The i-th (0..4) parameter number in [0, 1) of a call's digest."""
    start = 12 + 4 * i
    return int.from_bytes(digest[start : start + 4], "big") / _TWO32
