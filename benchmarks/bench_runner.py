"""Runner overhead: 10,000 trials of an agent that sleeps 50 ms, at concurrency 100.

Prints wall time / ideal wall time (ideal = trials x latency / concurrency) and the CPU
time per trial of the run (process CPU time of ``perturb.run.core.run`` / trials). The whole trial
path is measured: scheduling, the timeout, grading, the JSON record, the append, the grouped
fsync and the progress bar (forced on, rendered to /dev/null as if on a terminal).
Targets on a 2-core machine: ratio <= 1.10, CPU <= 0.4 ms per trial.

    .venv/bin/python benchmarks/bench_runner.py [--trials-per-entry 10] [--entries 1000]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402

from perturb.console import BarProgress  # noqa: E402
from perturb.run.core import RunOptions, run  # noqa: E402
from perturb.testing.suite import make_suite  # noqa: E402

LATENCY_S = 0.05
AGENT = f"""
import asyncio

async def agent(prompt, request):
    await asyncio.sleep({LATENCY_S})
    return prompt
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--trials-per-entry", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="perturb-bench-") as tmp:
        root = Path(tmp)
        tasks = [
            {
                "id": f"task-{i:05d}",
                "prompt": f"Repeat after me: item {i}",
                "expected": f"Repeat after me: item {i}",
                "grader": "exact",
            }
            for i in range(args.entries)
        ]
        fixtures = make_suite(root, tasks, suite="bench")
        (root / "bench_agent_mod.py").write_text(AGENT)
        trials = args.entries * args.trials_per_entry
        with open(os.devnull, "w") as devnull:
            console = Console(file=devnull, force_terminal=True, width=120)
            options = RunOptions(
                fixtures=fixtures,
                agent="bench_agent_mod:agent",
                trials=args.trials_per_entry,
                concurrency=args.concurrency,
                timeout=30,
                out=root / "runs" / "bench",
                progress=BarProgress(console),
            )
            cpu0, wall0 = time.process_time(), time.perf_counter()
            summary = run(options)
            wall = time.perf_counter() - wall0
            cpu = time.process_time() - cpu0
        assert summary.ran == trials and summary.passed == trials, summary.summary()
        lines = (root / "runs" / "bench" / "trials.jsonl").read_bytes().count(b"\n")
        assert lines == trials
    ideal = trials * LATENCY_S / args.concurrency
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"trials={trials} concurrency={args.concurrency} latency={LATENCY_S * 1000:.0f} ms")
    print(f"wall={wall:.3f} s ideal={ideal:.3f} s ratio={wall / ideal:.3f} (target <= 1.10)")
    print(f"cpu={cpu:.3f} s cpu_per_trial={cpu / trials * 1000:.3f} ms (target <= 0.4 ms)")
    print(f"max_rss={rss_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
