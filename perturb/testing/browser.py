"""Headless Chromium from Debian's packages driven by selenium (no browser downloads).

``/usr/bin/chromium`` and ``/usr/bin/chromedriver`` (apt: ``chromium chromium-driver``; .ci/run
installs them) and selenium (``pip install -e '.[dev]'``). Used by the browser tests and by
``docs/gen_explorer_png.py``."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any


class BrowserMissing(RuntimeError):
    """The browser, its driver or selenium is not installed."""


def chrome_driver(width: int = 1280, height: int = 1000, profile: Path | None = None) -> Any:
    """A headless selenium Chrome driver on the system chromium; :class:`BrowserMissing` names
    what is missing and how to install it."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    missing = [name for name, path in (("chromium", chromium), ("chromedriver", chromedriver)) if not path]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("selenium (pip install -e '.[dev]')")
    if missing:
        install = "apt-get install -y chromium chromium-driver"
        raise BrowserMissing(f"{', '.join(missing)} not installed ({install})")
    options = webdriver.ChromeOptions()
    options.binary_location = str(chromium)
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
    return webdriver.Chrome(options=options, service=Service(executable_path=str(chromedriver)))
