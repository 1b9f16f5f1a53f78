"""Benchmark: `perturb report` over 1,000,000 synthetic trial records with B = 1,000.

Writes a synthetic run (2,500 tasks x 10 prompts x 40 trials = 1,000,000 Trial lines, about
0.5 GB) to a temporary directory, then reads it, computes every figure (k = 1, 2, 5, 10;
paired bootstrap B = 1,000 for each of 6 classes) and renders all five formats, in a child
process so its peak memory (resource.getrusage ru_maxrss) is the report's alone.
Targets on a 2-core machine: under 20 s wall and under 2 GB peak memory. The read is then timed
once more with the strict reader in ``read_trial_line``'s place (the reader before the screen),
so the gain is measured at the same load.

    .venv/bin/python benchmarks/bench_report.py [--trials-total N] [--workers N] [--keep DIR] [--json PATH]

``--json PATH`` writes the figures (benchmarks/results/report.json feeds docs/reports.md through
docs/gen_bench_tables.py).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.results import add_json_option, load_average, write_results  # noqa: E402

TARGET_S = 20.0
TARGET_MB = 2048.0
PROMPTS = [  # (kind, level, class shift of the success probability)
    ("canonical", None, 0.0),
    ("paraphrase", 0.2, -0.03),
    ("paraphrase", 0.4, -0.08),
    ("distractor", 0.2, -0.06),
    ("distractor", 0.4, -0.12),
    ("typo", 0.05, -0.01),
    ("typo", 0.15, -0.04),
    ("reorder", 0.2, -0.02),
    ("self_correction", 0.2, -0.05),
    ("register", 0.2, -0.02),
]
N_TRIALS = 40


def write_manifest(run_dir: Path, run_id: str, trials: int, classes: list[str], suite: str = "bench") -> None:
    """Write a synthetic run's ``manifest.json`` (also used by bench_loader.py)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    manifest = {
        "run_id": run_id,
        "suite": suite,
        "fixtures": f"fixtures/{suite}.jsonl",
        "lock_sha256": "sha256:" + "0" * 64,
        "agent": "bench:agent",
        "trials": trials,
        "concurrency": 8,
        "classes": classes,
        "perturb_version": "0.1.0",
        "python_version": sys.version.split()[0],
        "platform": sys.platform,
        "started_at": "2026-01-01T00:00:00Z",
        "config_hash": "sha256:" + "1" * 64,
        "sampling": {"temperature": 0.7},
    }
    (run_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


def write_run(run_dir: Path, total: int, seed: int = 7) -> int:
    """Write manifest.json and trials.jsonl; return the number of trial lines."""
    rng = np.random.default_rng(seed)
    n_tasks = max(1, total // (len(PROMPTS) * N_TRIALS))
    write_manifest(run_dir, "bench", N_TRIALS, sorted({k for k, _, _ in PROMPTS}))
    p_task = rng.beta(4.0, 1.5, size=n_tasks)
    lines = 0
    with open(run_dir / "trials.jsonl", "w", encoding="utf-8") as fh:
        for t in range(n_tasks):
            task = f"task-{t:05d}"
            weight = 2.0 if t % 10 == 0 else 1.0
            chunk = []
            for j, (kind, level, shift) in enumerate(PROMPTS):
                vid = f"{task}/canonical" if kind == "canonical" else f"{task}/{kind}/c-{t:06d}{j:06d}"
                p = min(1.0, max(0.0, p_task[t] + shift))
                u = rng.random(N_TRIALS)
                lat = rng.gamma(2.0, 0.4, size=N_TRIALS)
                wrong_pick = rng.integers(0, 3, size=N_TRIALS)
                lv = "null" if level is None else repr(level)
                eps = 0.0 if level is None else level
                for a in range(N_TRIALS):
                    if u[a] < 0.02:
                        outcome, output, err = "errored", "null", '"timeout after 30s"'
                    elif u[a] < 0.02 + 0.98 * p:
                        outcome, output, err = "passed", '"ok"', "null"
                    else:
                        outcome, output, err = "wrong", f'"answer {wrong_pick[a]}"', "null"
                    chunk.append(
                        f'{{"run_id":"bench","suite":"bench","task_id":"{task}",'
                        f'"variant_id":"{vid}","variant_sha256":"sha256:{"a" * 64}",'
                        f'"perturbation":"{kind}","level":{lv},"epsilon":{eps},'
                        f'"weight":{weight},"attempt":{a},"outcome":"{outcome}",'
                        f'"output":{output},"error":{err},"latency_s":{lat[a]:.4f},'
                        f'"usage":{{"input_tokens":350,"output_tokens":60,"cost_usd":0.00042}},'
                        f'"seed":{a},"retry":0}}\n'
                    )
            fh.write("".join(chunk))
            lines += len(chunk)
    return lines


def _strict_trial(raw: bytes, name: str, number: int) -> object:
    """A trial line through the strict parser and the Trial model (the reader before the screen)."""
    from perturb.records import Trial
    from perturb.run.store import REPORT_FIX, parse_trial_line

    return Trial.model_validate(parse_trial_line(raw, name, number, REPORT_FIX))


_ROOT = str(Path(__file__).resolve().parent.parent)
_STRICT_WORKER = (
    f"import sys; sys.path.insert(0, {_ROOT!r}); import perturb.report.results as r; "
    "from benchmarks.bench_report import _strict_trial; r.read_trial_line = _strict_trial; "
    "r._worker(sys.argv[1:])"
)


def report_child(run_dir: Path, out_dir: Path, b: int, workers: int | None) -> None:
    """Runs in the child: report + all formats; prints a JSON line of timings and peak RSS."""
    from perturb.report import results
    from perturb.report.aggregate import analyze
    from perturb.report.core import plan_outputs, write_outputs
    from perturb.report.formats import FORMATS
    from perturb.report.results import MAX_WORKERS, read_run

    t0 = time.perf_counter()
    data = read_run(run_dir, workers=workers)
    t1 = time.perf_counter()
    analysis = analyze(data, [1, 2, 5, 10], bootstrap=b, seed=0)
    t2 = time.perf_counter()
    write_outputs(analysis, plan_outputs([], [], out_dir))
    t3 = time.perf_counter()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    worker_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    # The same read once more with the strict reader in read_trial_line's place (in this process
    # and in the reader processes), for the gain at the same load.
    results.read_trial_line = _strict_trial
    results._WORKER = _STRICT_WORKER
    t4 = time.perf_counter()
    read_run(run_dir, workers=workers)
    read_strict_s = time.perf_counter() - t4
    print(
        json.dumps(
            {
                "read_s": t1 - t0,
                "read_strict_s": read_strict_s,
                "analyze_s": t2 - t1,
                "render_s": t3 - t2,
                "wall_s": t3 - t0,
                "peak_mb": peak_mb,
                "worker_mb": worker_mb,
                "trials": analysis.n_trials,
                "workers": (workers or min(MAX_WORKERS, os.cpu_count() or 1)) if worker_mb else 0,
                "formats": len(FORMATS.names()),
                "classes": len(analysis.classes),
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials-total", type=int, default=1_000_000)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--keep", type=Path, help="keep the synthetic run in this directory")
    parser.add_argument("--workers", type=int, help="reader processes (default: CPU count, <= 4)")
    add_json_option(parser)
    parser.add_argument("--child", nargs=2, metavar=("RUN_DIR", "OUT_DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        report_child(Path(args.child[0]), Path(args.child[1]), args.bootstrap, args.workers)
        return
    load_before = load_average()
    work = Path(tempfile.mkdtemp(prefix="perturb-bench-"))
    try:
        run_dir = (args.keep or work) / "runs" / "bench"
        t0 = time.perf_counter()
        lines = write_run(run_dir, args.trials_total)
        gen_s = time.perf_counter() - t0
        size_mb = (run_dir / "trials.jsonl").stat().st_size / 2**20
        print(f"wrote {lines:,} trial records ({size_mb:.0f} MB) in {gen_s:.1f} s")
        proc = subprocess.run(
            [
                sys.executable,
                __file__,
                "--bootstrap",
                str(args.bootstrap),
                *(["--workers", str(args.workers)] if args.workers else []),
                "--child",
                str(run_dir),
                str(work / "out"),
            ],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            sys.exit(f"the report failed:\n{proc.stderr}")
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        print(
            f"report over {r['trials']:,} trials, {r['classes']} classes, B={args.bootstrap}, "
            f"{r['formats']} formats"
        )
        print(
            f"  read+validate {r['read_s']:.2f} s   analyze+bootstrap {r['analyze_s']:.2f} s   "
            f"render+write {r['render_s']:.2f} s"
        )
        print(
            f"  the same read with the strict reader: {r['read_strict_s']:.2f} s "
            f"({r['read_strict_s'] / r['read_s']:.2f}x the screened reader's)"
        )
        print(
            f"  wall  {r['wall_s']:.2f} s   (target < {TARGET_S:.0f} s: "
            f"{r['wall_s'] / TARGET_S:.2f} of the budget)  "
            f"{'OK' if r['wall_s'] < TARGET_S else 'OVER'}"
        )
        total = r["peak_mb"] + r["worker_mb"] * r["workers"]  # an upper bound
        where = (
            f"{r['peak_mb']:.0f} MB report process + {r['workers']} reader workers of at "
            f"most {r['worker_mb']:.0f} MB"
            if r["workers"]
            else "one process"
        )
        print(
            f"  peak  {total:.0f} MB ru_maxrss ({where}; target < {TARGET_MB:.0f} MB: "
            f"{total / TARGET_MB:.2f} of the budget)  {'OK' if total < TARGET_MB else 'OVER'}"
        )
        print(f"  {r['trials'] / r['wall_s']:,.0f} trials/s")
        figures = {
            **{key: r[key] for key in ("trials", "classes", "formats", "workers")},
            "bootstrap": args.bootstrap,
            "file_mb": size_mb,
            **{key: r[key] for key in ("read_s", "analyze_s", "render_s", "wall_s", "read_strict_s")},
            "peak_mb": total,
            "target_s": TARGET_S,
            "target_mb": TARGET_MB,
        }
        write_results(args.json, figures, load_before)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
