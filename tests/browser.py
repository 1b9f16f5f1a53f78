"""The browser tests' driver: :func:`perturb.testing.browser.chrome_driver`, which skips
locally and fails under ``CI=true`` when the browser, its driver or selenium is missing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from perturb.testing.browser import BrowserMissing, chrome_driver


def chrome(width: int = 1280, height: int = 1000, profile: Path | None = None) -> Any:
    """A headless selenium Chrome driver; skip (fail under CI) when something is missing."""
    try:
        return chrome_driver(width, height, profile)
    except BrowserMissing as missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing}; CI requires the browser tests")
        pytest.skip(str(missing))
