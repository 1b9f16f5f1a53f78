"""Python agents for tests/test_ray.py and benchmarks/bench_ray.py (``tests.ray_agents:<name>``).

Each is deterministic: the answer depends only on the prompt and the request."""

from __future__ import annotations

import hashlib
import os
import signal
import time
from pathlib import Path
from typing import Any


def answer(prompt: str, request: dict[str, Any]) -> Any:
    """The task's expected number when the prompt has one, else the prompt."""
    return request["metadata"].get("answer", prompt)


def _kill_my_process() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def die(prompt: str, request: dict[str, Any]) -> Any:
    """Kills the process it runs in, on the canonical prompt of a task with ``metadata.doomed``
    every time, and on its other prompts the first time each (entry, attempt) runs (a marker
    file per trial under ``metadata.marks``); answers otherwise."""
    metadata = request["metadata"]
    if metadata.get("doomed") and request["perturbation"] == "canonical":
        _kill_my_process()
    if metadata.get("marks"):
        mark = Path(metadata["marks"]) / f"{request['variant_id'].replace('/', '_')}.{request['attempt']}"
        if not mark.exists():
            mark.write_text(str(os.getpid()))
            _kill_my_process()
    return answer(prompt, request)


def sleepy(prompt: str, request: dict[str, Any]) -> Any:
    """Sleeps ``metadata.sleep`` seconds (default 50 ms), then answers."""
    time.sleep(request["metadata"].get("sleep", 0.05))
    return answer(prompt, request)


def cpu_bound(prompt: str, request: dict[str, Any]) -> Any:
    """About 0.1 s of pure-Python CPU work (holds the GIL), then answers."""
    data = prompt.encode()
    for _ in range(int(request["metadata"].get("rounds", 60_000))):
        data = hashlib.sha256(data).digest()
    return answer(prompt, request)
