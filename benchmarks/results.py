"""Where a benchmark's measured figures go: ``--json PATH`` writes them with the command, the date
and the machine, so ``docs/gen_bench_tables.py`` renders the doc tables from a real run and
``tests/test_bench_tables.py`` fails when a doc table and its results file disagree.

The committed files are ``benchmarks/results/<name>.json``; docs/benchmarks.md lists which
script writes which file and which doc figures come from it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any


def add_json_option(parser: argparse.ArgumentParser) -> None:
    """``--json PATH``: also write the measured figures to PATH."""
    parser.add_argument(
        "--json",
        type=Path,
        default=None,
        metavar="PATH",
        help="also write the measured figures to PATH (benchmarks/results/<name>.json feeds the docs)",
    )


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages, rounded to 0.1 (how busy the shared machine was)."""
    return [round(x, 1) for x in os.getloadavg()]


def write_results(path: Path | None, figures: dict[str, Any], load_before: list[float]) -> None:
    """Write ``figures`` with the command that measured them, the UTC date, the CPU count, the
    process's niceness and the load average before and after (nothing when ``path`` is None)."""
    if path is None:
        return
    record = {
        "command": shlex.join(["python", f"benchmarks/{Path(sys.argv[0]).name}", *sys.argv[1:]]),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "niceness": os.nice(0),
        "load_before": load_before,
        "load_after": load_average(),
        "figures": figures,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    print(f"wrote {path}")
