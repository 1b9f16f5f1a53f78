"""The measured figures in the docs are their benchmark runs' figures: every block between
``<!-- bench: ... -->`` markers is what ``docs/gen_bench_tables.py`` renders from the committed
``benchmarks/results/*.json``, and each results file says how it was measured."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.test_docs import load_script

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"


def test_every_bench_block_matches_its_results_file() -> None:
    gen = load_script("gen_bench_tables")
    assert gen.stale() == [], "run python docs/gen_bench_tables.py"


def test_every_renderer_and_results_file_is_used() -> None:
    gen = load_script("gen_bench_tables")
    assert gen.used() == set(gen.BLOCKS)
    stems = {stem for stem, _ in gen.BLOCKS.values()}
    assert {p.stem for p in RESULTS.glob("*.json")} == stems


@pytest.mark.parametrize("path", sorted(RESULTS.glob("*.json")), ids=lambda p: p.stem)
def test_each_results_file_names_its_command_and_machine(path: Path) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    script = re.fullmatch(r"python (benchmarks/bench_\w+\.py)( .*)?", record["command"])
    assert script is not None, record["command"]
    assert (REPO / script[1]).is_file()
    assert f"--json benchmarks/results/{path.name}" in record["command"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", record["date"])
    assert isinstance(record["cpus"], int) and record["cpus"] >= 1
    assert isinstance(record["niceness"], int)
    assert len(record["load_before"]) == len(record["load_after"]) == 3
    doc = (REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert f"`{script[1]}" in doc and f"`{path.name}`" in doc


def test_a_changed_figure_makes_its_block_stale(tmp_path: Path) -> None:
    gen = load_script("gen_bench_tables")
    results = tmp_path / "results"
    shutil.copytree(RESULTS, results)
    record = json.loads((results / "ray.json").read_text(encoding="utf-8"))
    record["figures"]["ray"]["wall_s"] += 1.0
    (results / "ray.json").write_text(json.dumps(record), encoding="utf-8")
    assert gen.stale(results) == ["docs/ray.md: ray"]
    record = json.loads((results / "gate_stats.json").read_text(encoding="utf-8"))
    record["figures"]["false_alarms"][1]["strict"] = 0.5
    (results / "gate_stats.json").write_text(json.dumps(record), encoding="utf-8")
    assert gen.stale(results) == [
        "docs/metrics.md: gate-stats",
        "docs/ray.md: ray",
        "docs/reports.md: gate-stats-strict",
    ]


def test_a_hand_edited_figure_inside_a_block_is_stale(tmp_path: Path) -> None:
    gen = load_script("gen_bench_tables")
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    for page in gen.PAGES:
        shutil.copy(REPO / page, repo / page)
    page = repo / "docs" / "running.md"
    text = page.read_text(encoding="utf-8")
    block = re.search(r"<!-- bench: unreachable -->.*?<!-- /bench: unreachable -->", text, re.S)
    assert block is not None
    edited = re.sub(r"a ratio of \d+", "a ratio of 999", block.group(0))
    assert edited != block.group(0)
    page.write_text(text.replace(block.group(0), edited), encoding="utf-8")
    assert gen.stale(repo=repo) == ["docs/running.md: unreachable"]


def test_the_gate_stats_reading_is_derived_from_the_figures() -> None:
    """The sentence under the simulation output states the figures of the table above it."""
    gen = load_script("gen_bench_tables")
    record = json.loads((RESULTS / "gate_stats.json").read_text(encoding="utf-8"))
    text = gen.render("gate-stats")
    figures = record["figures"]
    held = min(min(r["mean"], r["pass^5"]) for r in figures["coverage"] if r["tasks"] >= 3)
    assert f"at least {int(held * 100)}% of runs" in text
    powers = [r["power"] for r in figures["power"]]
    assert f"{min(powers):.2f}–{max(powers):.2f}" in text
    assert "\n".join(figures["output"]).strip() in text
