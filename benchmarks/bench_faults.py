"""Fault injection's cost, measured in one run (ratios, not timed tests).

1. CPU per tool call: the travel example's ``lookup_booking`` through perturb's
   :class:`~perturb.run.tools.ToolClient`, once with no injection (λ = 0: the schedule is not
   consulted) and once with the schedule consulted on every call (λ = 1e-12: a sha256 per
   call, but no fault ever fires, so both do the same tool work); ``time.process_time`` over
   interleaved rounds. Then the same run without injection: ``perturb run`` of the travel
   example (canonical, the tool layer at λ = 0) gives the CPU a run spends per tool call; the
   injection's added CPU per call over that is the run's ratio. Target: <= 1.05 (the bare
   tool-layer ratio is printed too: it is the worst case, a tool that does no work).
2. The ``openai:`` function-calling loop: ``perturb run --agent openai:bench-model`` on a
   suite with tools, against a local chat-completions server (its own process, 50 ms per
   reply) whose "model" asks for ``get_item`` once and then answers with the value; versus a
   bare AsyncOpenAI + semaphore loop doing the same two-turn tool loop and calling the same
   tool function. Prints perturb's wall time / the bare loop's. Target: <= 1.2.

    .venv/bin/python benchmarks/bench_faults.py [--rounds 3] [--calls 20000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.chat_server import running, serve  # noqa: E402
from perturb.testing.chat import completion  # noqa: E402

LATENCY_S = 0.05
TASKS = 100
TRIALS = 5
CONCURRENCY = 50


# ------------------------------------------------------------------ 1. CPU per tool call


def run_cpu_per_call(rounds: int) -> float:
    """CPU seconds per tool call of ``perturb run`` on the travel example (canonical, n=5,
    the tool layer at λ = 0), best of rounds."""
    import shutil

    from perturb.records import Trial
    from perturb.run.core import RunOptions, run

    repo = Path(__file__).resolve().parent.parent
    best = float("inf")
    with tempfile.TemporaryDirectory(prefix="perturb-bench-faults-run-") as tmp:
        for name in ("tasks", "review", "fixtures"):  # `perturb run` verifies fixtures against review/
            shutil.copytree(repo / name, Path(tmp) / name)
        for r in range(rounds):
            out = Path(tmp) / "runs" / f"r{r}"
            started = time.process_time()
            run(
                RunOptions(
                    fixtures=Path(tmp) / "fixtures" / "travel.jsonl",
                    agent="examples.travel_agent:agent",
                    trials=5,
                    classes=["canonical"],
                    faults="0",
                    out=out,
                )
            )
            cpu = time.process_time() - started
            with open(out / "trials.jsonl", encoding="utf-8") as fh:
                calls = sum(len(Trial.model_validate_json(line).tool_calls) for line in fh)
            best = min(best, cpu / calls)
    return best


def cpu_per_call(calls: int, rounds: int) -> tuple[float, float]:
    """(CPU seconds per call without injection, with the schedule consulted), best of rounds."""
    from perturb.run.faults import FaultPlan, default_classes
    from perturb.run.tools import ToolClient, load_tools

    suite = load_tools(Path(__file__).resolve().parent.parent / "tasks" / "travel.tools.toml")
    task = {"prompt": "Cancel booking BK-48213 please."}
    classes = default_classes()

    def measure(lam: float) -> float:
        started = time.process_time()
        for i in range(calls // 100):
            client = ToolClient(suite, suite.new_state(task), FaultPlan(0, f"e{i}", 0, lam, classes))
            for _ in range(100):
                client.call("lookup_booking", ref="BK-48213")
            assert all(c["fault"] is None for c in client.calls)
        return (time.process_time() - started) / calls

    plain, injected = [], []
    for _ in range(rounds):
        plain.append(measure(0.0))
        injected.append(measure(1e-12))
    return min(plain), min(injected)


# ------------------------------------------------------------------ 2. the server (own process)


def _reply(body: dict[str, object]) -> bytes:
    messages = body.get("messages") or []
    assert isinstance(messages, list)
    last = messages[-1]
    if last["role"] == "tool":
        answer = json.loads(last["content"])
        value = json.loads(answer["body"])["value"] if "body" in answer else answer.get("value")
        return completion(str(body.get("model")), {"role": "assistant", "content": str(value)})
    key = messages[0]["content"].split()[0]
    call = {
        "id": "call_0",
        "type": "function",
        "function": {"name": "get_item", "arguments": json.dumps({"key": key})},
    }
    return completion(str(body.get("model")), {"role": "assistant", "content": None, "tool_calls": [call]})


# ------------------------------------------------------------------ the bare tool loop


async def bare(base_url: str, prompts: list[str], expected: list[int]) -> float:
    from openai import AsyncOpenAI

    from perturb.run.tools import load_tools
    from perturb.testing.tools import get_item, new_store

    schemas = [d.openai_schema() for d in load_tools(Path(os.environ["BENCH_TOOLS"])).tools.values()]
    client = AsyncOpenAI(base_url=base_url, api_key="sk-bench", max_retries=0)
    semaphore = asyncio.Semaphore(CONCURRENCY)
    ok = 0

    async def one(prompt: str, want: int) -> None:
        nonlocal ok
        async with semaphore:
            store = new_store({"prompt": prompt})
            messages: list[dict[str, object]] = [{"role": "user", "content": prompt}]
            while True:
                resp = await client.chat.completions.create(
                    model="bench-model", messages=messages, tools=schemas
                )
                msg = resp.choices[0].message
                if not msg.tool_calls:
                    ok += msg.content == str(want)
                    return
                messages.append(msg.model_dump(exclude_none=True))
                for call in msg.tool_calls:
                    result = get_item(store, **json.loads(call.function.arguments))
                    body = {"status": 200, "body": json.dumps(result)}
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(body)})

    started = time.perf_counter()
    await asyncio.gather(*(one(p, w) for p, w in zip(prompts, expected, strict=True)))
    wall = time.perf_counter() - started
    await client.close()
    assert ok == len(prompts), ok
    return wall


def through_perturb(root: Path, fixtures: Path, base_url: str, round_no: int) -> float:
    from perturb.run.core import RunOptions, run

    options = RunOptions(
        fixtures=fixtures,
        agent="openai:bench-model",
        trials=TRIALS,
        concurrency=CONCURRENCY,
        timeout=60,
        out=root / "runs" / f"r{round_no}",
        base_url=base_url,
    )
    started = time.perf_counter()
    summary = run(options)
    wall = time.perf_counter() - started
    assert summary.ran == TASKS * TRIALS and summary.passed == TASKS * TRIALS, summary.line()
    return wall


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]), _reply, LATENCY_S)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()

    plain, injected = cpu_per_call(args.calls, args.rounds)
    print(
        f"tool layer alone: CPU per call {plain * 1e6:.1f} us without injection, {injected * 1e6:.1f} us "
        f"with the schedule consulted: +{(injected - plain) * 1e6:.2f} us, ratio={injected / plain:.3f} "
        f"({args.calls} calls x {args.rounds} rounds, best)"
    )
    per_call = run_cpu_per_call(args.rounds)
    with_injection = per_call + injected - plain
    print(
        f"perturb run (travel, canonical, n=5, λ=0): {per_call * 1e6:.1f} us CPU per tool call; with "
        f"injection {with_injection * 1e6:.1f} us, ratio={with_injection / per_call:.3f} (target <= 1.05)"
    )

    from perturb.testing.suite import make_suite
    from perturb.testing.tools import TOOLS_TOML, item_value

    with running(__file__) as base_url:
        with tempfile.TemporaryDirectory(prefix="perturb-bench-faults-") as tmp:
            root = Path(tmp)
            keys = [f"key{i:03d}" for i in range(TASKS)]
            tasks = [
                {"id": f"t{i:03d}", "prompt": f"{k} please", "expected": item_value(k), "grader": "numeric"}
                for i, k in enumerate(keys)
            ]
            fixtures = make_suite(root, tasks, suite="bench")
            tools = root / "tasks" / "bench.tools.toml"
            tools.write_text(TOOLS_TOML)
            os.environ["BENCH_TOOLS"] = str(tools)
            prompts = [t["prompt"] for t in tasks] * TRIALS
            expected = [t["expected"] for t in tasks] * TRIALS
            bare_walls, perturb_walls = [], []
            for round_no in range(args.rounds):
                b = asyncio.run(bare(base_url, prompts, expected))
                p = through_perturb(root, fixtures, base_url, round_no)
                bare_walls.append(b)
                perturb_walls.append(p)
                print(f"round {round_no + 1}: bare={b:.3f} s perturb={p:.3f} s ratio={p / b:.3f}")
    best_b, best_p = min(bare_walls), min(perturb_walls)
    total = sum(perturb_walls) / sum(bare_walls)
    print(
        f"openai tool loop: {TASKS * TRIALS} trials x 2 turns, concurrency {CONCURRENCY}, "
        f"{LATENCY_S * 1000:.0f} ms per reply; best bare={best_b:.3f} s best perturb={best_p:.3f} s "
        f"ratio(best)={best_p / best_b:.3f} ratio(all rounds)={total:.3f} (target <= 1.2)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
