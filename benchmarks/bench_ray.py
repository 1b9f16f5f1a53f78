"""``--executor ray`` against ``--executor local`` on one machine, measured in one run.

1. Overhead: 2,000 trials of an agent that sleeps 50 ms (``perturb.testing.agents:sleepy``) at
   ``--concurrency C``, local then Ray (the Ray cluster is started first and timed apart).
   Per-trial overhead = (wall - ideal) / trials with ideal = trials x 50 ms / C.
2. CPU-bound: trials of pure-Python work that holds the GIL (``perturb.testing.agents:cpu_bound``).
   Locally they share one interpreter; under Ray each actor is a process with its own CPU.
   CPU use = trials x (CPU seconds of one trial, measured alone) / (wall x CPUs given).
3. Driver write rate: the driver's trial loop fed by an executor that answers instantly with a
   finished line -- the most trials per second the driver can record (append, count, fsync).

    .venv/bin/python benchmarks/bench_ray.py [--trials 2000] [--concurrency 16] [--cpus N]
        [--worker-niceness 0] [--json PATH]

``--json PATH`` writes every figure (benchmarks/results/ray.json feeds the table in docs/ray.md
through docs/gen_bench_tables.py).

Ray starts its workers at nice 15 (its ``worker_niceness``): on a machine busy with other
work they get less CPU than the local executor's process; ``--worker-niceness 0`` compares the
two at the same priority.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results import add_json_option, load_average, write_results  # noqa: E402
from perturb.io.jsonl import Appender  # noqa: E402
from perturb.run.core import RunOptions, run  # noqa: E402
from perturb.run.scheduler import Counts, TrialRunner  # noqa: E402
from perturb.testing.agents import cpu_bound  # noqa: E402
from perturb.testing.suite import make_suite  # noqa: E402

LATENCY_S = 0.05


def suite(root: Path, entries: int, metadata: dict[str, Any]) -> Path:
    tasks = [
        {
            "id": f"t{i:04d}",
            "prompt": f"item {i}",
            "expected": f"item {i}",
            "grader": "exact",
            "metadata": metadata,
        }
        for i in range(entries)
    ]
    return make_suite(root, tasks, suite="bench")


def timed_run(
    fixtures: Path, agent: str, trials: int, concurrency: int, executor: str, out: Path
) -> tuple[float, float]:
    """Wall seconds and this (driver) process's CPU seconds of one run."""
    started, cpu = time.perf_counter(), time.process_time()
    summary = run(
        RunOptions(
            fixtures=fixtures,
            agent=agent,
            trials=trials,
            concurrency=concurrency,
            out=out,
            executor=executor,
        )
    )
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    assert summary.passed == summary.total, summary.summary()
    return wall, cpu


class _Instant:
    """An executor whose trials are already done: the driver's recording is all that is left."""

    def __init__(self, line: bytes) -> None:
        self.line = line

    async def start(self, runner: TrialRunner) -> None:
        return None

    async def trial(self, entry: Any, attempt: int, retry: int, lam: float) -> tuple[bytes, str]:
        return self.line, "passed"

    async def aclose(self) -> None:
        return None

    def notes(self) -> list[str]:
        return []


def write_rate(fixtures: Path, out: Path, line: bytes, count: int) -> float:
    """Trials per second the driver's loop records (one line each, grouped fsync)."""
    from perturb.records import FixtureEntry

    entry = FixtureEntry.model_validate_json(fixtures.read_text().splitlines()[0])
    runner = TrialRunner(
        agent=None,  # type: ignore[arg-type]
        judge=None,
        run_id="w",
        suite="bench",
        shas={},
        seed=0,
        temperature=None,
        timeout=10,
        concurrency=16,
        secrets=[],
        counts=Counts(),
        fsync_interval=1.0,
        executor=_Instant(line),
    )
    jobs = ((entry, i, 0.0, 0) for i in range(count))
    started = time.perf_counter()
    with Appender(out, fsync=False) as appender:
        asyncio.run(runner.run(jobs, appender, todo=count))
    wall = time.perf_counter() - started
    assert out.read_bytes().count(b"\n") == count
    return count / wall


def one_trial_cpu(rounds: int) -> float:
    started = time.process_time()
    cpu_bound("item 0", {"metadata": {"rounds": rounds}})
    return time.process_time() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000, help="trials of the 50 ms agent")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--cpus", type=int, default=os.cpu_count() or 1, help="CPUs given to Ray")
    parser.add_argument("--cpu-trials", type=int, default=20, help="CPU-bound entries (x 5 trials)")
    parser.add_argument("--rounds", type=int, default=60_000, help="sha256 rounds per CPU-bound trial")
    parser.add_argument(
        "--worker-niceness",
        type=int,
        default=None,
        help="Ray's worker_niceness (Ray's default: 15, below every nice-0 process on the machine)",
    )
    add_json_option(parser)
    args = parser.parse_args()
    import ray

    load_before = load_average()
    figures: dict[str, Any] = {"cpus_given": args.cpus, "concurrency": args.concurrency}

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if args.worker_niceness is not None:
        os.environ["RAY_worker_niceness"] = str(args.worker_niceness)
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="perturb-bench-ray-") as tmp:
        root = Path(tmp)
        entries = 100
        # at least two trials per entry: the per-trial wall is the difference of two runs
        per_entry = max(2, args.trials // entries)
        trials = entries * per_entry
        sleepy = suite(root / "sleepy", entries, {"sleep": LATENCY_S})
        started = time.perf_counter()
        ray.init(
            num_cpus=args.cpus, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR
        )
        startup = time.perf_counter() - started
        figures["ray_init_s"] = startup
        print(f"ray.init (a local cluster of {args.cpus} CPUs): {startup:.2f} s")

        ideal_ms = LATENCY_S * 1000 / args.concurrency
        print(
            f"{trials} trials x {LATENCY_S * 1000:.0f} ms at concurrency {args.concurrency} "
            f"(ideal {ideal_ms:.3f} ms of wall per trial; fixed cost and per-trial wall from a "
            f"{entries}-trial and a {trials}-trial run):"
        )
        walls = {}
        figures.update(trials=trials, entries=entries, latency_ms=LATENCY_S * 1000, ideal_ms=ideal_ms)
        for executor in ("local", "ray"):
            (small, small_cpu), (big, big_cpu) = (
                timed_run(
                    sleepy,
                    "perturb.testing.agents:sleepy",
                    k,
                    args.concurrency,
                    executor,
                    root / f"sleepy-{size}-{executor}",
                )
                for size, k in (("small", 1), ("big", per_entry))
            )
            per_trial = (big - small) / (trials - entries)
            driver_cpu = (big_cpu - small_cpu) / (trials - entries)
            fixed = small - entries * per_trial
            walls[executor] = big
            figures[executor] = {
                "wall_s": big,
                "fixed_s": fixed,
                "per_trial_ms": per_trial * 1000,
                "overhead_ms": per_trial * 1000 - ideal_ms,
                "driver_cpu_ms": driver_cpu * 1000,
            }
            print(
                f"  {executor:5s} wall {big:.2f} s  fixed {fixed:.2f} s  "
                f"per trial {per_trial * 1000:.3f} ms  overhead {per_trial * 1000 - ideal_ms:.3f} ms/trial  "
                f"driver CPU {driver_cpu * 1000:.3f} ms/trial"
            )
        print(f"  ray/local wall ratio {walls['ray'] / walls['local']:.2f}")

        cpu_entries = args.cpu_trials
        cpu = suite(root / "cpu", cpu_entries, {"rounds": args.rounds})
        per_trial_cpu = one_trial_cpu(args.rounds)
        reps = 5
        print(
            f"{cpu_entries * reps} CPU-bound trials of {per_trial_cpu * 1000:.0f} ms CPU each, "
            f"concurrency {args.cpus * 2}, {args.cpus} CPUs given to Ray (per-trial wall from a "
            f"{cpu_entries}-trial and a {cpu_entries * reps}-trial run):"
        )
        cpu_walls = {}
        figures["cpu_bound"] = {
            "trials": cpu_entries * reps,
            "cpu_ms": per_trial_cpu * 1000,
            "concurrency": args.cpus * 2,
        }
        for executor in ("local", "ray"):
            (small, _), (big, _) = (
                timed_run(
                    cpu,
                    "perturb.testing.agents:cpu_bound",
                    k,
                    args.cpus * 2,
                    executor,
                    root / f"cpu-{size}-{executor}",
                )
                for size, k in (("small", 1), ("big", reps))
            )
            per_trial = (big - small) / (cpu_entries * (reps - 1))
            cpu_walls[executor] = per_trial
            cpus = 1 if executor == "local" else args.cpus
            busy = per_trial_cpu / per_trial
            figures["cpu_bound"][executor] = {"per_trial_ms": per_trial * 1000, "busy": busy, "cpus": cpus}
            print(
                f"  {executor:5s} wall {big:.2f} s  per trial {per_trial * 1000:.1f} ms  CPUs kept busy "
                f"{busy:.2f} of {cpus} ({busy / cpus * 100:.0f}%)"
            )
        print(f"  local/ray per-trial ratio {cpu_walls['local'] / cpu_walls['ray']:.2f} (ideal {args.cpus})")
        ray.shutdown()

        sample = (root / "sleepy-small-local" / "trials.jsonl").read_bytes().split(b"\n", 1)[0] + b"\n"
        rate = write_rate(sleepy, root / "write-rate.jsonl", sample, 100_000)
        print(f"driver write rate: {rate:,.0f} trials/s ({len(sample)}-byte lines, grouped fsync)")
        figures["write_rate"] = {"per_s": rate, "lines": 100_000, "line_bytes": len(sample)}
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    write_results(args.json, figures, load_before)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
