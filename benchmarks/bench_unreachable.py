"""A base URL where nothing listens: how long until the user hears about it.

Before the preflight, every trial went through the retries against the refused port (7 attempts
with exponential backoff, 0.5 + 1 + 2 + 4 + 8 + 16 = 31.5 s of waiting) before it errored. Now
``perturb run`` opens one TCP connection first and stops with one line. This script measures,
in one run on one refused loopback port:

* ``preflight``: the wall time of a whole ``perturb run --agent openai:m --base-url <refused>``
  process (start-up, flag parsing, verify, the preflight), until it exits with the error;
* ``per trial without it``: one request through ``chat_with_retries`` with the ``openai:``
  adapter's retry limit (6), the same client and the same refused port, its backoff waits
  added up instead of slept (the connection attempts are real).

Prints both and their ratio.

    .venv/bin/python benchmarks/bench_unreachable.py [--json PATH]

``--json PATH`` writes the figures (benchmarks/results/unreachable.json feeds docs/running.md
through docs/gen_bench_tables.py).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.results import add_json_option, load_average, write_results  # noqa: E402


def refused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def per_trial_without_preflight(url: str) -> tuple[float, int]:
    from openai import AsyncOpenAI

    from perturb.errors import LLMError
    from perturb.io.llm import chat_with_retries
    from perturb.run.agents.openai import BASE_DELAY_S, MAX_RETRIES

    waited: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waited.append(seconds)

    async def go() -> float:
        client = AsyncOpenAI(api_key="no-key", base_url=url, max_retries=0, timeout=300)
        started = time.perf_counter()
        try:
            await chat_with_retries(
                client,
                model="m",
                messages=[{"role": "user", "content": "hi"}],
                temperature=None,
                seed=None,
                max_retries=MAX_RETRIES,
                base_delay=BASE_DELAY_S,
                max_wait=120.0,
                sleep=fake_sleep,
            )
        except LLMError:
            pass
        finally:
            await client.close()
        return time.perf_counter() - started

    spent = asyncio.run(go())
    return spent + sum(waited), len(waited) + 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_json_option(parser)
    args = parser.parse_args()
    load_before = load_average()
    url = f"http://127.0.0.1:{refused_port()}/v1"
    exe = Path(sys.executable).parent / "perturb"
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([str(exe), "init", tmp], check=True, capture_output=True)
        subprocess.run([str(exe), "freeze"], cwd=tmp, check=True, capture_output=True)
        env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
        started = time.perf_counter()
        done = subprocess.run(
            [str(exe), "run", "fixtures/shop.jsonl", "--agent", "openai:m", "--base-url", url, "-n", "20"],
            cwd=tmp,
            capture_output=True,
            text=True,
            env=env,
        )
        wall = time.perf_counter() - started
        assert done.returncode == 2 and "connection refused" in done.stderr, done.stderr
        assert not (Path(tmp) / "runs").exists()
    per_trial, attempts = per_trial_without_preflight(url)
    print(f"refused port {url}")
    print(f"perturb run with the preflight: {wall:.2f} s to the error, 0 trials spent")
    print(f"  {done.stderr.strip()}")
    print(f"one trial without it: {per_trial:.2f} s ({attempts} attempts, backoff included)")
    print(f"ratio (one trial without / whole run with): {per_trial / wall:.0f}x")
    figures = {"preflight_s": wall, "per_trial_s": per_trial, "attempts": attempts, "ratio": per_trial / wall}
    write_results(args.json, figures, load_before)


if __name__ == "__main__":
    main()
