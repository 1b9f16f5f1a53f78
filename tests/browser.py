"""Headless Chromium from Debian's packages driven by selenium (no browser downloads).

``/usr/bin/chromium`` and ``/usr/bin/chromedriver`` (apt: ``chromium chromium-driver``; .ci/run
installs them). Without them a test skips locally and fails under ``CI=true``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


def chrome(width: int = 1280, height: int = 1000, profile: Path | None = None) -> Any:
    """A headless selenium Chrome driver on the system chromium; skip (fail under CI) when
    the browser, the driver or selenium is missing."""
    missing = [name for name, path in (("chromium", CHROMIUM), ("chromedriver", CHROMEDRIVER)) if not path]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("selenium (pip install -e '.[dev]')")
    if missing:
        message = f"{', '.join(missing)} not installed (apt-get install -y chromium chromium-driver)"
        if os.environ.get("CI"):
            pytest.fail(message + "; CI requires the browser tests")
        pytest.skip(message)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--window-size={width},{height}",
    ):
        options.add_argument(arg)
    if profile is not None:
        options.add_argument(f"--user-data-dir={profile}")
    return webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
