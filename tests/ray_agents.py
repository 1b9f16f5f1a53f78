"""An agent for tests/test_ray.py that kills the process it runs in (``tests.ray_agents:die``);
the well-behaved agents it shares with benchmarks/bench_ray.py are in :mod:`perturb.testing.agents`."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

from perturb.testing.agents import answer


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
