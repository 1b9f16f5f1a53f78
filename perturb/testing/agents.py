"""Deterministic Python agents for executor tests and benchmarks (``perturb.testing.agents:<name>``):
the answer depends only on the prompt and the request, so any executor must give the same trials.

Each answers the task's ``metadata.answer`` when it has one, else echoes the prompt (a task with
``expected`` equal to its prompt and the ``exact`` grader passes)."""

from __future__ import annotations

import hashlib
import time
from typing import Any


def answer(prompt: str, request: dict[str, Any]) -> Any:
    """The task's expected number when the prompt has one, else the prompt."""
    return request["metadata"].get("answer", prompt)


def sleepy(prompt: str, request: dict[str, Any]) -> Any:
    """Sleeps ``metadata.sleep`` seconds (default 50 ms), then answers."""
    time.sleep(request["metadata"].get("sleep", 0.05))
    return answer(prompt, request)


def cpu_bound(prompt: str, request: dict[str, Any]) -> Any:
    """About 0.1 s of pure-Python CPU work (holds the GIL; ``metadata.rounds`` sha256 rounds,
    default 60,000), then answers."""
    data = prompt.encode()
    for _ in range(int(request["metadata"].get("rounds", 60_000))):
        data = hashlib.sha256(data).digest()
    return answer(prompt, request)
