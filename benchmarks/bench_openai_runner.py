"""``openai:MODEL`` through perturb vs a bare AsyncOpenAI + semaphore loop, same server.

A local asyncio HTTP server (its own process, so it does not share the GIL with the client)
answers chat completions after 50 ms, echoing the prompt. Each round makes 1,000 calls at
concurrency 50 twice: once with the bare loop below (``bare``, 30 lines) and once with
``perturb run --agent openai:bench-model`` (100 entries x 10 trials, graded, recorded, with
the progress bar rendered to /dev/null). Prints perturb's wall time / the bare loop's.
Target: <= 1.2.

    .venv/bin/python benchmarks/bench_openai_runner.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.chat_server import running, serve  # noqa: E402
from perturb.testing.chat import completion  # noqa: E402

LATENCY_S = 0.05
CALLS = 1000
CONCURRENCY = 50


# ------------------------------------------------------------------ the server (own process)


def _echo(body: dict[str, Any]) -> bytes:
    """The last message's content, echoed back."""
    content = body.get("messages", [{}])[-1].get("content", "")
    message = {"role": "assistant", "content": content}
    return completion(str(body.get("model", "m")), message, system_fingerprint="fp_bench")


# ------------------------------------------------------------------ the bare loop (30 lines)


async def bare(base_url: str, calls: int, concurrency: int) -> float:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base_url, api_key="sk-bench", max_retries=0)
    semaphore = asyncio.Semaphore(concurrency)
    ok = 0

    async def one(i: int) -> None:
        nonlocal ok
        async with semaphore:
            resp = await client.chat.completions.create(
                model="bench-model",
                messages=[{"role": "user", "content": f"Repeat after me: item {i}"}],
            )
            ok += resp.choices[0].message.content == f"Repeat after me: item {i}"

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(calls)))
    wall = time.perf_counter() - started
    await client.close()
    assert ok == calls
    return wall


# ------------------------------------------------------------------ perturb


def through_perturb(root: Path, fixtures: Path, base_url: str, round_no: int) -> float:
    from rich.console import Console

    from perturb.console import BarProgress
    from perturb.run.core import RunOptions, run

    with open(os.devnull, "w") as devnull:
        options = RunOptions(
            fixtures=fixtures,
            agent="openai:bench-model",
            trials=CALLS // 100,
            concurrency=CONCURRENCY,
            timeout=60,
            out=root / "runs" / f"r{round_no}",
            base_url=base_url,
            progress=BarProgress(Console(file=devnull, force_terminal=True, width=120)),
        )
        started = time.perf_counter()
        summary = run(options)
        wall = time.perf_counter() - started
    assert summary.ran == CALLS and summary.passed == CALLS, summary.summary()
    return wall


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]), _echo, LATENCY_S)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from perturb.testing.suite import make_suite

    with running(__file__) as base_url:
        with tempfile.TemporaryDirectory(prefix="perturb-bench-openai-") as tmp:
            root = Path(tmp)
            tasks = [
                {
                    "id": f"task-{i:03d}",
                    "prompt": f"Repeat after me: item {i}",
                    "expected": f"Repeat after me: item {i}",
                    "grader": "exact",
                }
                for i in range(100)
            ]
            fixtures = make_suite(root, tasks, suite="bench")
            bare_walls, perturb_walls = [], []
            for round_no in range(args.rounds):
                b = asyncio.run(bare(base_url, CALLS, CONCURRENCY))
                p = through_perturb(root, fixtures, base_url, round_no)
                bare_walls.append(b)
                perturb_walls.append(p)
                print(f"round {round_no + 1}: bare={b:.3f} s perturb={p:.3f} s ratio={p / b:.3f}")
    ideal = CALLS * LATENCY_S / CONCURRENCY
    best_b, best_p = min(bare_walls), min(perturb_walls)
    total = sum(perturb_walls) / sum(bare_walls)
    print(f"calls={CALLS} concurrency={CONCURRENCY} latency={LATENCY_S * 1000:.0f} ms ideal={ideal:.3f} s")
    print(
        f"best bare={best_b:.3f} s best perturb={best_p:.3f} s "
        f"ratio(best)={best_p / best_b:.3f} ratio(all rounds)={total:.3f} (target <= 1.2)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
