"""The one clock perturb writes into records: UTC, second resolution, ISO 8601 with ``Z``."""

from __future__ import annotations

from datetime import datetime, timezone


def utc_now() -> str:
    """Now as ``2026-12-01T07:50:34Z`` (what every ``*_at`` field on disk holds)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
