"""Render the measured figures in the docs from the benchmarks' results files (or ``--check`` them).

    python docs/gen_bench_tables.py            # rewrite every marked block from benchmarks/results/
    python docs/gen_bench_tables.py --check    # exit 1 and name each block that differs

A benchmark run with ``--json benchmarks/results/NAME.json`` writes its figures with the command,
the date, the CPU count and the load average (``benchmarks/results.py``). A doc block between
``<!-- bench: BLOCK -->`` and ``<!-- /bench: BLOCK -->`` is the text :data:`BLOCKS` renders
from one results file; nothing between the markers is written by hand. ``tests/test_bench_tables.py``
fails when a block and its results file disagree, so a figure in the docs changes only with a
new run behind it. docs/benchmarks.md lists which script produces which figure.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"
PAGES = ("docs/metrics.md", "docs/ray.md", "docs/reports.md", "docs/running.md", "docs/guarantees.md")
MARK = re.compile(r"<!-- bench: (?P<name>[\w.-]+) -->(?P<body>.*?)<!-- /bench: (?P=name) -->", re.S)


def _pct(x: float) -> str:
    """A share as a whole percent, rounded down above 0 so "at least" stays true (0.973 -> 97%)."""
    return f"{math.floor(x * 100 + 1e-9)}%" if x < 1 else "100%"


def _pct1(x: float) -> str:
    return f"{x * 100:.1f}%".replace(".0%", "%")


def _machine(r: dict[str, Any]) -> str:
    before, after = r["load_before"][0], r["load_after"][0]
    nice = f"run at nice {r['niceness']}"
    return f"{r['cpus']} CPUs, {nice}, load average {before} before and {after} after, {r['date']}"


def _source(r: dict[str, Any], name: str) -> str:
    return f"`{r['command']}` ({_machine(r)}; figures in `benchmarks/results/{name}.json`)"


GATE_READING = """
{source}, {seconds} s:

```text
{output}
```

Read it as: from 3 matched tasks up the interval holds the true change in at least {held} of runs
for mean and pass^5 at n = 5 and n = 20 (target 0.93); the former task-only bootstrap ("task-only"
columns) fell to {old:.3f} for pass^5 at n = 5. With 1 task coverage drops to {one:.3f}, which is why
the report marks intervals below 3 matched tasks as unreliable and the gate does not fail on
them. The default gate {never} ({sims} pairs each; at
most 2.5% per comparison by construction, and the tolerance adds margin), while `--strict`
failed {smoke} of smoke pairs, {full} of full and {n20} of n = 20 pairs, almost all on label
changes. With 30 variants and no drift, Benjamini–Hochberg flags a run at most {bh} of the time,
against {raw} uncorrected at n = 20. The stated smallest detectable drop is reached with simulated
power {low:.2f}–{high:.2f} (normal approximation; it is least accurate at n = 5 and at k near n).
Each figure has {fewest}–{most} simulated runs behind it (standard error about 0.02 at 0.95);
`tests/test_intervals.py` and `tests/test_metrics.py` re-check the key claims with fewer runs in
the fast suite.
"""


def gate_stats(r: dict[str, Any]) -> str:
    f = r["figures"]
    cov = f["coverage"]
    from3 = [row for row in cov if row["tasks"] >= 3]
    alarms = {row["tier"]: row["strict"] for row in f["false_alarms"]}
    worst_default = max(row["default"] for row in f["false_alarms"])
    drift = {row["n"]: row for row in f["drift"]}
    powers = [row["power"] for row in f["power"]]
    runs = sorted({f["sims"], *(row["runs"] for row in f["drift"])})
    return GATE_READING.format(
        source=_source(r, "gate_stats"),
        seconds=f["seconds"],
        output="\n".join(f["output"]).rstrip("\n"),
        held=_pct(min(min(row["mean"], row["pass^5"]) for row in from3)),
        old=min(row["task_only_pass^5"] for row in from3 if row["n"] == 5),
        one=min(min(row["mean"], row["pass^5"]) for row in cov if row["tasks"] == 1),
        never=(
            "never failed two runs of the same agent in any tier"
            if worst_default == 0
            else f"failed at most {_pct1(worst_default)} of the pairs of two runs of the same agent"
        ),
        sims=f["sims"],
        smoke=_pct(alarms["smoke"]),
        full=_pct(alarms["full"]),
        n20=_pct(alarms["n=20"]),
        bh=_pct1(max(d["bh"] for d in drift.values())),
        raw=_pct(drift[20]["uncorrected"]),
        low=min(powers),
        high=max(powers),
        fewest=runs[0],
        most=runs[-1],
    )


def gate_stats_strict(r: dict[str, Any]) -> str:
    alarms = {row["tier"]: row["strict"] for row in r["figures"]["false_alarms"]}
    return (
        f"It fails {_pct(alarms['full'])} of same-agent pairs in the full tier and {_pct(alarms['n=20'])} "
        f"in the n = 20 tier ({r['figures']['sims']} simulated pairs each)"
    )


def ray(r: dict[str, Any]) -> str:
    f = r["figures"]
    loc, ray_, cb, wr = f["local"], f["ray"], f["cpu_bound"], f["write_rate"]
    trials, lat, conc = f["trials"], f["latency_ms"], f["concurrency"]
    rows = [
        ("figure (n = trials)", "local", "Ray"),
        ("---", "---", "---"),
        (f"`ray.init` of a {f['cpus_given']}-CPU local instance", "—", f"{f['ray_init_s']:.2f} s"),
        (
            f"{trials:,} × {lat:.0f} ms at concurrency {conc}: wall "
            f"(ideal {trials * lat / 1000 / conc:.2f} s)",
            f"{loc['wall_s']:.2f} s",
            f"{ray_['wall_s']:.2f} s",
        ),
        (
            f"fixed cost (starting the pool; from n = {f['entries']} and n = {trials:,})",
            f"{loc['fixed_s']:.2f} s",
            f"{ray_['fixed_s']:.2f} s",
        ),
        (
            f"wall per trial (ideal {f['ideal_ms']:.3f} ms)",
            f"{loc['per_trial_ms']:.3f} ms",
            f"{ray_['per_trial_ms']:.3f} ms",
        ),
        (
            "overhead per trial (wall per trial − ideal)",
            f"{loc['overhead_ms']:.3f} ms",
            f"{ray_['overhead_ms']:.3f} ms",
        ),
        ("driver CPU per trial", f"{loc['driver_cpu_ms']:.3f} ms", f"{ray_['driver_cpu_ms']:.3f} ms"),
        (
            f"CPU-bound, n = {cb['trials']} of {cb['cpu_ms']:.0f} ms CPU each, concurrency "
            f"{cb['concurrency']}: wall per trial",
            f"{cb['local']['per_trial_ms']:.1f} ms",
            f"{cb['ray']['per_trial_ms']:.1f} ms",
        ),
        (
            "CPU-bound: CPUs kept busy",
            f"{cb['local']['busy']:.2f} of {cb['local']['cpus']}",
            f"{cb['ray']['busy']:.2f} of {cb['ray']['cpus']}",
        ),
        (f"driver write rate (instant executor, n = {wr['lines']:,})", f"{wr['per_s']:,.0f} trials/s", ""),
    ]
    table = "\n".join(f"| {a} | {b} | {c} |" for a, b, c in rows)
    speedup = cb["local"]["per_trial_ms"] / cb["ray"]["per_trial_ms"]
    return (
        f"\nOne run, {_source(r, 'ray')}:\n\n{table}\n\n"
        f"Ray took {ray_['wall_s'] / loc['wall_s']:.2f}× the local wall time for the {trials:,} "
        f"short trials; on CPU-bound trials a local trial took {speedup:.2f}× as long as a Ray one "
        f"(ideal {f['cpus_given']}×). One driver records at most about {wr['per_s']:,.0f} trials per "
        f"second and spends {ray_['driver_cpu_ms']:.2f} ms of CPU per Ray trial "
        f"({loc['driver_cpu_ms']:.2f} ms per local one), so it can feed on the order of "
        f"{_order(1000 / ray_['driver_cpu_ms'])} Ray trials per second.{_below_ideal(f)}\n"
    )


def _below_ideal(f: dict[str, Any]) -> str:
    """A sentence for each executor whose overhead per trial came out below zero: what the
    figure is made of, and why its sign is noise."""
    between = f["trials"] - f["entries"]
    out = []
    for name, key in (("local", "local"), ("Ray", "ray")):
        e = f[key]
        if e["overhead_ms"] >= 0:
            continue
        total_ms = -e["overhead_ms"] * between
        out.append(
            f" The {name} overhead per trial is below zero ({e['overhead_ms']:.3f} ms): it is the "
            f"difference of two runs' walls (n = {f['trials']:,} and n = {f['entries']}) over the "
            f"{between:,} trials between them, less the ideal, so it stands for {total_ms:.0f} ms "
            f"in all, {total_ms / (e['fixed_s'] * 1000):.0%} of the {e['fixed_s']:.2f} s fixed cost "
            f"each of the two runs pays once. A start-up that varies by that much from run to run "
            f"gives it; it is noise, not a trial faster than its {f['latency_ms']:.0f} ms agent, "
            f"and this run resolves no {name} overhead per trial."
        )
    return "".join(out)


def _order(x: float) -> str:
    """The nearest power of ten (996 -> 1,000; 240 -> 100)."""
    return f"{10 ** round(math.log10(x)):,}"


def unreachable(r: dict[str, Any]) -> str:
    f = r["figures"]
    return (
        f"a whole `perturb run` process ends with the error in {f['preflight_s']:.1f} s (start-up included), "
        f"while one trial without the preflight spent {f['per_trial_s']:.1f} s ({f['attempts']} attempts, "
        f"backoff included) before it errored, a ratio of {f['ratio']:.0f} per trial; measured by "
        f"{_source(r, 'unreachable')}"
    )


def loader(r: dict[str, Any]) -> str:
    f = r["figures"]
    return (
        f"reading through `jsonlines.Reader` against the hand-written loop it replaced: ratio "
        f"{f['jsonl_ratio']:.2f} (n = {f['lines']:,} lines, best of five); the strict per-line parse "
        f"costs {f['strict_us']:.2f} µs a line against {f['plain_us']:.2f} µs for `json.loads`. "
        f"`perturb report` reads a trial line through `read_trial_line` in {f['report_screened_us']:.2f} µs "
        f"({f['report_screened_ratio']:.2f}× pydantic's unchecked fast path alone, "
        f"{f['report_fast_us']:.2f} µs), against {f['report_strict_us']:.2f} µs for the strict parse "
        f"and the Trial model ({f['report_speedup']:.2f}× the screened reader's time); the whole "
        f"`read_run` (one process) {f['read_run_us']:.2f} µs a line, {f['read_run_strict_us']:.2f} µs with "
        f"the strict reader in its place; measured by {_source(r, 'loader')}"
    )


def report(r: dict[str, Any]) -> str:
    f = r["figures"]
    wall_ok = "under" if f["wall_s"] < f["target_s"] else "**over**"
    mem_ok = "under" if f["peak_mb"] < f["target_mb"] else "**over**"
    readers = f"{f['workers']} reader processes" if f["workers"] else "one process"
    return (
        f"{f['trials']:,} trials ({f['file_mb']:.0f} MB, read by {readers}), {f['classes']} classes, "
        f"B = {f['bootstrap']:,}, {f['formats']} formats: read and validate {f['read_s']:.2f} s, analyze "
        f"and bootstrap {f['analyze_s']:.2f} s, render and write {f['render_s']:.2f} s; wall "
        f"{f['wall_s']:.2f} s, {wall_ok} the {f['target_s']:.0f} s target; the same read with the strict "
        f"reader in `read_trial_line`'s place took {f['read_strict_s']:.2f} s "
        f"({f['read_strict_s'] / f['read_s']:.2f}× as long); peak memory at most "
        f"{f['peak_mb']:,.0f} MB, {mem_ok} the {f['target_mb'] / 1024:.0f} GB target; measured by "
        f"{_source(r, 'report')}"
    )


BLOCKS: dict[str, tuple[str, Callable[[dict[str, Any]], str]]] = {
    "gate-stats": ("gate_stats", gate_stats),
    "gate-stats-strict": ("gate_stats", gate_stats_strict),
    "ray": ("ray", ray),
    "unreachable": ("unreachable", unreachable),
    "loader": ("loader", loader),
    "report": ("report", report),
}
"""Block name -> (results file stem, renderer)."""


def render(name: str, results: Path = RESULTS) -> str:
    stem, fn = BLOCKS[name]
    record = json.loads((results / f"{stem}.json").read_text(encoding="utf-8"))
    return fn(record)


def rendered(text: str, results: Path = RESULTS) -> str:
    """``text`` with every marked block replaced by its render."""

    def sub(m: re.Match[str]) -> str:
        name = m["name"]
        if name not in BLOCKS:
            raise SystemExit(f"unknown bench block {name!r} (expected one of: {', '.join(BLOCKS)})")
        return f"<!-- bench: {name} -->{render(name, results)}<!-- /bench: {name} -->"

    return MARK.sub(sub, text)


def stale(results: Path = RESULTS, repo: Path = REPO) -> list[str]:
    """``PAGE: BLOCK`` for every block whose text is not its render."""
    out = []
    for page in PAGES:
        text = (repo / page).read_text(encoding="utf-8")
        for m in MARK.finditer(text):
            if m.group(0) != rendered(m.group(0), results):
                out.append(f"{page}: {m['name']}")
    return out


def used(repo: Path = REPO) -> set[str]:
    """The block names the pages use."""
    return {m["name"] for page in PAGES for m in MARK.finditer((repo / page).read_text(encoding="utf-8"))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a block differs")
    args = parser.parse_args()
    if args.check:
        bad = stale()
        for line in bad:
            print(f"stale: {line} (run python docs/gen_bench_tables.py)", file=sys.stderr)
        return 1 if bad else 0
    for page in PAGES:
        path = REPO / page
        text = path.read_text(encoding="utf-8")
        new = rendered(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"wrote {page}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
