"""The whole pipeline, as a newcomer runs it, on a small suite in a temporary directory.

generate (rules) -> accept a subset, reject the rest -> freeze -> verify -> run (n = 8) ->
report in every format -> baseline -> gate passes -> tamper a fixture -> verify fails ->
make the agent worse -> gate fails. Every step goes through the command line (typer's
CliRunner); the README's first command runs as a real process on the bundled fixtures.
"""

from __future__ import annotations

import json
import math
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.io.hashing import canonical_json, content_hash
from perturb.records import Baseline, FixtureEntry, Trial
from perturb.report.rounding import rounded
from tests.fault_helpers import assert_clean

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
ACCEPTED = ("paraphrase", "typo", "self_correction")
N = 8
runner = CliRunner()


def cli(*args: str, code: int = 0) -> Any:
    result = runner.invoke(app, list(args))
    assert_clean(result)
    assert result.exit_code == code, (result.stdout, result.stderr)
    return result


def by_hand(
    trials: list[dict[str, Any]], weights: dict[str, float], k: int
) -> dict[str, tuple[float, float]]:
    """Per class (mean success, pass^k), computed here from the trial lines: per prompt c/n and
    C(c, k)/C(n, k), a task's prompts averaged within the class, tasks weighted."""
    counts: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for t in trials:
        cell = counts[(t["perturbation"], t["task_id"], t["variant_id"])]
        cell[0] += 1
        cell[1] += t["outcome"] == "passed"
    per_task: dict[str, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for (kind, task, _), (n, c) in counts.items():
        per_task[kind][task].append((c / n, math.comb(c, k) / math.comb(n, k)))
    out = {}
    for kind, tasks in per_task.items():
        total = sum(weights[t] for t in tasks)
        mean = sum(weights[t] * sum(m for m, _ in v) / len(v) for t, v in tasks.items()) / total
        hat = sum(weights[t] * sum(h for _, h in v) / len(v) for t, v in tasks.items()) / total
        out[kind] = (mean, hat)
    return out


WORSE_AGENT = '''\
"""The example agent with a regression: it no longer understands typo'd requests."""
from examples.travel_agent import agent as _base


def agent(prompt, request):
    if request["perturbation"] == "typo":
        return {"intent": "unknown"}
    return _base(prompt, request)
'''


def test_the_whole_flow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(REPO))  # examples.travel_agent
    root = tmp_path / "proj"
    (root / "tasks").mkdir(parents=True)
    lines = (REPO / "tasks/travel.jsonl").read_text(encoding="utf-8").splitlines()[:6]
    (root / "tasks/mini.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    tasks = [json.loads(x) for x in lines]
    weights = {t["id"]: float(t.get("weight", 1)) for t in tasks}

    # generate (rules) into review/mini/
    gen = cli("generate", str(root / "tasks/mini.jsonl"), "--per-class", "1", "--seed", "3")
    assert gen.stdout.startswith(f"{root}/review/mini: ")
    assert not (root / "fixtures").exists()  # generate never writes fixtures

    # accept three classes, reject the others (scriptable review)
    listed = json.loads(cli("review", "--list", "--json", "--root", str(root)).stdout)
    assert listed and {c["status"] for c in listed} == {"undecided"}
    accept = [c["id"] for c in listed if c["perturbation"] in ACCEPTED]
    reject = [c["id"] for c in listed if c["perturbation"] not in ACCEPTED]
    assert accept and reject
    out = cli("accept", *accept, "--reviewer", "E2E", "--root", str(root)).stdout
    assert out.count("\n") == len(accept) and "[bulk]" in out
    out = cli("reject", *reject, "--reason", "out of scope", "--reviewer", "E2E", "--root", str(root)).stdout
    assert out.count("\n") == len(reject)

    # freeze, verify
    fx = root / "fixtures/mini.jsonl"
    lock = root / "fixtures/mini.lock.json"
    frozen = cli("freeze", "--root", str(root))
    assert frozen.stdout == (
        f"{fx}: froze: 6 canonical + {len(accept)} variants ({len(accept)} accepted, 0 edited); "
        f"lock {lock}\nnot frozen: {len(reject)} rejected\n"
    )
    assert cli("verify", "--root", str(root)).stdout == (
        f"{fx}: ok: 6 canonical + {len(accept)} variants, lock matches\n"
    )
    entries = [FixtureEntry.model_validate_json(x) for x in fx.read_bytes().splitlines()]
    assert {e.perturbation for e in entries} == {"canonical", *ACCEPTED}

    # run n = 8
    total = len(entries) * N
    run = cli(
        "run",
        str(fx),
        "--agent",
        "examples.travel_agent:agent",
        "--trials",
        str(N),
        "--out",
        str(root / "runs/r1"),
    )
    assert run.stdout.startswith(f"ran {total} trials in ")
    trials = [json.loads(x) for x in (root / "runs/r1/trials.jsonl").read_bytes().splitlines()]
    assert len(trials) == total
    for t in trials:
        Trial.model_validate(t)
    assert sorted({(t["variant_id"], t["attempt"]) for t in trials}) == sorted(
        (e.id, a) for e in entries for a in range(N)
    )
    passed = sum(t["outcome"] == "passed" for t in trials)
    assert (
        f"run r1: {total}/{total} trials done ({passed} passed, {total - passed} wrong, 0 errored)"
        in run.stdout
    )

    # report in every format
    reports = root / "reports"
    rep = cli("report", str(root / "runs/r1"), "--out-dir", str(reports), "-q", "--k", "1,2")
    assert rep.stdout == ""
    doc = json.loads((reports / "report.json").read_text(encoding="utf-8"))
    assert doc["schema"] == "perturb.report/v1"
    expected = by_hand(trials, weights, 2)
    got = {c["class"]: (c["mean"], c["pass^k"]["2"]) for c in doc["classes"]}
    assert got.keys() == expected.keys() == {"canonical", *ACCEPTED}
    for kind, (mean, hat) in expected.items():
        # report.json carries figures rounded to 3 decimals (perturb.report.rounding): so is the hand count
        assert got[kind] == (rounded(mean), rounded(hat)), kind
    assert expected["canonical"] == (1.0, 1.0)  # the example agent passes every canonical prompt
    junit = ET.parse(reports / "report.xml").getroot()
    cases = junit.findall(".//testcase")
    task_kinds = {(e.task_id, e.perturbation) for e in entries}
    assert len(cases) == len(task_kinds)  # one per task x class (a skipped class has none)
    html = (reports / "report.html").read_text(encoding="utf-8")
    assert "<svg" in html and "</html>" in html
    md = (reports / "report.md").read_text(encoding="utf-8")
    assert "| canonical |" in md.replace("`", "")
    assert "canonical" in (reports / "report.txt").read_text(encoding="utf-8")

    # baseline; the same run passes the gate
    base = root / "evals/baseline.json"
    cli("baseline", str(root / "runs/r1"), "-o", str(base), "--k", "2")
    baseline = Baseline.model_validate_json(base.read_text(encoding="utf-8"))
    assert baseline.k == 2 and set(baseline.classes) == {"canonical", *ACCEPTED}
    gate = cli("gate", str(root / "runs/r1"), "--baseline", str(base))
    assert gate.stdout.splitlines()[-1] == (
        f"gate passed: run r1 against baseline {base} (run r1), k=2, tolerance 0.050, sound; "
        "smallest drop detected with 80% power: 0.346 in canonical mean"
    )

    # tamper with one fixture line (canonical rendering kept: only its content changed)
    raw = fx.read_bytes()
    rows = raw.splitlines(keepends=True)
    i = next(j for j, e in enumerate(entries) if e.perturbation == "paraphrase")
    victim = entries[i]
    changed = victim.model_copy(update={"prompt": victim.prompt + " And a hotel."})
    rows[i] = canonical_json(changed.model_dump(mode="json")) + b"\n"
    fx.write_bytes(b"".join(rows))
    sha = json.loads(lock.read_text())["entries"][i]["sha256"]
    bad = cli("verify", "--root", str(root), code=1)
    assert bad.stdout == (
        f"{fx}:{i + 1}: MODIFIED {victim.id}: expected {sha}, got {content_hash(changed)} (the "
        "line changed after freeze; restore it from git, or run `perturb freeze mini` to "
        "rewrite it from the review journal)\n"
    )
    assert bad.stderr == (f"error: {fx}: 1 problem (1 MODIFIED); the fixtures do not match {lock}\n")
    refused = cli(
        "run",
        str(fx),
        "--agent",
        "examples.travel_agent:agent",
        "--trials",
        str(N),
        "--out",
        str(root / "runs/tampered"),
        code=1,
    )
    assert refused.stdout == bad.stdout and not (root / "runs/tampered").exists()
    fx.write_bytes(raw)  # restored from "git"
    cli("verify", "--root", str(root))

    # a worse agent fails the gate, naming the class and the metric
    (root / "worse_agent_e2e.py").write_text(WORSE_AGENT, encoding="utf-8")
    cli(
        "run", str(fx), "--agent", "worse_agent_e2e:agent", "--trials", str(N), "--out", str(root / "runs/r2")
    )
    failed = cli("gate", str(root / "runs/r2"), "--baseline", str(base), code=1)
    typo = baseline.classes["typo"]
    # the sound default gate: the whole interval of the typo drop lies below -tolerance
    lines = failed.stdout.splitlines()
    mean_line = next(ln for ln in lines if ln.startswith("regression: typo mean: "))
    assert mean_line.startswith(
        f"regression: typo mean: baseline {typo.mean:.3f}, current 0.000, change {-typo.mean:+.3f}, 95% interval ["
    )
    assert mean_line.endswith("], tolerance 0.050 (6 matched tasks)")
    assert f"regression: typo pass^2: baseline {typo.pass_hat_k:.3f}, current 0.000" in failed.stdout
    for kind in ("canonical", "paraphrase", "self_correction"):
        assert f"ok: {kind} mean: " in failed.stdout
    failing = sorted(
        k for k, label in baseline.task_labels.items() if k.endswith("/typo") and label != "stable-fail"
    )
    assert [
        ln.split(":")[2].strip() for ln in failed.stdout.splitlines() if ln.startswith("note: newly failing:")
    ] == failing  # label changes are notes unless --gate-labels
    assert failed.stderr == (
        f"error: gate failed: 2 regressions; run r2 against baseline {base} (run r1), k=2, "
        "tolerance 0.050, sound; smallest drop detected with 80% power: 0.346 in canonical mean\n"
    )


def readme_first_command() -> list[list[str]]:
    """The perturb steps of the README's first command (the venv and pip steps dropped)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)\n```", text, re.S)
    assert block is not None
    steps = [shlex.split(part) for part in block.group(1).split("&&")]
    assert steps[0][:3] == ["python3", "-m", "venv"] and "pip" in steps[1][0]
    perturb_steps = steps[2:]
    assert [s[0] for s in perturb_steps] == [".venv/bin/perturb"] * len(perturb_steps)
    return [s[1:] for s in perturb_steps]


def test_readme_first_command_reports_on_the_bundled_fixtures(tmp_path: Path) -> None:
    """A real process, as a newcomer runs it, in a copy of the checkout (the install step is
    what this virtual environment already did)."""
    for name in ("tasks", "review", "fixtures", "examples"):
        shutil.copytree(REPO / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    exe = Path(sys.executable).parent / "perturb"
    outputs = []
    steps = readme_first_command()
    run_args = steps[0]
    trials = int(run_args[run_args.index("--trials") + 1])
    for args in steps:
        done = subprocess.run(
            [str(exe), *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
        )
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    entries = len((tmp_path / "fixtures/travel.jsonl").read_bytes().splitlines())
    assert outputs[0].startswith(f"ran {entries * trials} trials in ")
    assert "warning: n=" not in outputs[-1]  # the README's n resolves every default k
    scorecard = outputs[-1]
    for kind in ("canonical", "paraphrase", "reorder", "distractor", "self_correction", "typo", "register"):
        assert kind in scorecard
    shown = readme_scorecard()
    assert wall_time_free(shown[0]) == wall_time_free(outputs[0].rstrip("\n")), (shown[0], outputs[0])
    real = scorecard.splitlines()
    assert shown[-1] == "..." and shown[1:-1] == real[: len(shown) - 2], (
        "README.md's scorecard differs from the real output; replace it with:\n"
        + outputs[0]
        + "\n".join(real[: len(shown) - 2])
    )


def wall_time_free(line: str) -> str:
    """The run's summary line without its wall time (the one figure that may differ)."""
    return re.sub(r" in [0-9.]+ s:", " in _ s:", line)


def readme_scorecard() -> list[str]:
    """The README's scorecard screen: the run's summary line, the report's first lines, '...'."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```text\n(ran .*?)\n```", text, re.S)
    assert block is not None, "the README lost its scorecard screen"
    return block.group(1).split("\n")
