"""Agents for the fault tests: each reads the item named by the prompt through request["tools"]."""

from __future__ import annotations

import time
from typing import Any

from perturb.run.tools import ToolClient, ToolTimeout, wrap

ATTEMPTS = 3


def _read(tools: ToolClient, key: str, honour: bool) -> Any:
    for _ in range(ATTEMPTS):
        try:
            resp = tools.call("get_item", key=key)
        except ToolTimeout:
            continue
        if resp.status == 429:
            if honour:  # wait what the limiter asks, or longer than any window when it does not say
                time.sleep(resp.retry_after if resp.retry_after is not None else 0.6)
            continue
        if resp.status >= 500:
            time.sleep(0.001 if not honour else 0.01)
            continue
        try:
            data = resp.json()
        except ValueError:
            continue
        if "value" in data:
            return data["value"]
    return "gave up"


def immediate_retry(prompt: str, request: dict[str, Any]) -> Any:
    """Retries a 429 at once (three attempts): burns them against a closed limit."""
    return _read(request["tools"], prompt.split()[0], honour=False)


def honours_retry_after(prompt: str, request: dict[str, Any]) -> Any:
    """Waits Retry-After (or longer than a window when absent) before retrying a 429."""
    return _read(request["tools"], prompt.split()[0], honour=True)


def rebook_after_timeout(prompt: str, request: dict[str, Any]) -> Any:
    """Writes once, retries the write once after a timeout (no idempotency key)."""
    tools: ToolClient = request["tools"]
    key = prompt.split()[0]
    for _ in range(2):
        try:
            return tools.call("put_item", key=key, value=1).json()["value"]
        except ToolTimeout:
            continue
    return "gave up"


def calls_undeclared(prompt: str, request: dict[str, Any]) -> Any:
    """Calls a tool the suite does not declare (and swallows the error)."""
    try:
        request["tools"].call("delete_everything")
    except Exception:  # noqa: BLE001 - the run must still mark the trial errored
        pass
    return _read(request["tools"], prompt.split()[0], honour=True)


def own_tools(prompt: str, request: dict[str, Any]) -> Any:
    """A team's own tool function, wrapped so that the run's faults reach it."""

    def lookup(key: str) -> dict[str, Any]:
        return {"key": key, "value": sum(ord(c) for c in key) % 97}

    fetch = wrap(request, lookup, name="lookup")
    for _ in range(ATTEMPTS):
        try:
            return fetch(prompt.split()[0])["value"]
        except Exception:  # noqa: BLE001 - any injected fault: try again
            time.sleep(0.06)
    return "gave up"
