"""Cost of the strict JSON loader (``perturb.io.jsonl.loads_strict``) against plain ``json.loads``.

Every reader parses through ``loads_strict`` (duplicate keys, non-finite numbers, huge integers,
deep nesting refused). This prints, measured in one run on the same trial lines: microseconds
per line for both and their ratio, and the time of a resume scan (``scan_trials``) of a
100,000-line ``trials.jsonl``.

    .venv/bin/python benchmarks/bench_loader.py [--lines 100000]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from perturb.io.jsonl import loads_strict  # noqa: E402
from perturb.run.store import scan_trials  # noqa: E402

LINE = {
    "run_id": "demo-d1af80b5",
    "suite": "demo",
    "task_id": "a",
    "variant_id": "a/canonical",
    "variant_sha256": "sha256:" + "0" * 64,
    "perturbation": "canonical",
    "level": None,
    "epsilon": 0.0,
    "weight": 1.0,
    "attempt": 0,
    "outcome": "passed",
    "output": {"total": 42, "items": [1, 2, {"sku": "A-1"}]},
    "error": None,
    "error_kind": None,
    "grader_note": None,
    "latency_s": 0.06684,
    "usage": {"input_tokens": 10, "output_tokens": 3, "cost_usd": None},
    "trace": None,
    "seed": 654147073,
    "retry": 0,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    args = parser.parse_args()
    lines = []
    for i in range(args.lines):
        row = dict(LINE, variant_id=f"t{i // 5}/canonical", attempt=i % 5)
        lines.append(json.dumps(row, separators=(",", ":")))
    started = time.perf_counter()
    for text in lines:
        json.loads(text)
    plain = time.perf_counter() - started
    started = time.perf_counter()
    for number, text in enumerate(lines, 1):
        loads_strict(text, "trials.jsonl", number)
    strict = time.perf_counter() - started
    print(f"lines={args.lines}")
    per_plain, per_strict = plain / args.lines * 1e6, strict / args.lines * 1e6
    print(f"json.loads={per_plain:.2f} us/line loads_strict={per_strict:.2f} us/line")
    print(f"ratio={strict / plain:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trials.jsonl"
        path.write_text("".join(text + "\n" for text in lines), encoding="utf-8")
        started = time.perf_counter()
        index = scan_trials(path)
        scan = time.perf_counter() - started
    print(f"scan_trials={scan:.3f} s for {index.lines} lines ({scan / args.lines * 1e6:.2f} us/line)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
