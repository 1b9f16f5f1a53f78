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
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LATENCY_S = 0.05
CALLS = 1000
CONCURRENCY = 50


# ------------------------------------------------------------------ the server (own process)


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            body = json.loads(await reader.readexactly(length)) if length else {}
            await asyncio.sleep(LATENCY_S)
            content = body.get("messages", [{}])[-1].get("content", "")
            payload = json.dumps(
                {
                    "id": "chatcmpl-bench",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", "m"),
                    "system_fingerprint": "fp_bench",
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "logprobs": None,
                            "message": {"role": "assistant", "content": content},
                        }
                    ],
                    "usage": {"prompt_tokens": 9, "completion_tokens": 9, "total_tokens": 18},
                }
            ).encode()
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Content-Length: " + str(len(payload)).encode() + b"\r\n\r\n" + payload
            )
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def _serve(port: int) -> None:
    server = await asyncio.start_server(_handle, "127.0.0.1", port, backlog=1024)
    async with server:
        await server.serve_forever()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
        asyncio.run(_serve(int(sys.argv[2])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from tests.run_helpers import make_suite

    port = _free_port()
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port)])
    base_url = f"http://127.0.0.1:{port}/v1"
    os.environ["OPENAI_API_KEY"] = "sk-bench-not-a-real-key"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
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
    finally:
        server.terminate()
        server.wait()
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
