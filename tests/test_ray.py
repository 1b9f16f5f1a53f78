"""``perturb run --executor ray`` on a Ray cluster started by this module (2 CPUs, loopback, no
dashboard): the same records as the local executor, every agent kind and the tool layer on
workers, a SIGKILLed driver resumed, and workers killed mid-trial.

Skipped only when Ray is not installed and CI is not set: in CI (CI=true) a missing Ray fails.
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from perturb.records import Trial
from perturb.run.core import RunOptions, run
from perturb.testing.suite import make_suite, read_trials

pytestmark = pytest.mark.slow

if os.environ.get("CI"):
    import ray
else:
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]')")

REPO = Path(__file__).resolve().parent.parent
TRAVEL = REPO / "fixtures" / "travel.jsonl"

TASKS = [
    {"id": "add", "prompt": "What is 2+2?", "expected": 4, "grader": "numeric", "metadata": {"answer": 4}},
    {
        "id": "city",
        "prompt": "Capital of France?",
        "expected": "Paris",
        "grader": "normalized",
        "metadata": {"answer": "Paris"},
    },
]
VARIANTS = [
    ("add", "paraphrase", "Add two and two."),
    ("city", "typo", "Capitl of France?"),
    ("city", "distractor", "I like trains. Capital of France?"),
]
ENTRIES = 5  # 2 canonical + 3 variants


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A Ray cluster for this module; yields its GCS address (HOST:PORT)."""
    saved = {name: os.environ.get(name) for name in ("RAY_USAGE_STATS_ENABLED", "OPENAI_API_KEY")}
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    os.environ["OPENAI_API_KEY"] = "sk-ray-test-key-0123456789"  # the workers inherit it
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.ERROR,
        _node_ip_address="127.0.0.1",
    )
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()
        for name, value in saved.items():  # later test modules see the environment they had
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def project(root: Path, tasks: list[dict[str, Any]] = TASKS) -> Path:
    return make_suite(root, tasks, VARIANTS)


def rows(out: Path) -> list[dict[str, Any]]:
    found = read_trials(out / "trials.jsonl")
    for row in found:
        Trial.model_validate(row)
    return found


def comparable(out: Path) -> dict[tuple[str, int, float], dict[str, Any]]:
    """Every record keyed by (variant, attempt, λ), without what differs by machine (timings)."""
    keyed = {}
    for row in rows(out):
        row.pop("latency_s")
        for call in row.get("tool_calls") or []:
            call.pop("latency_s")
        keyed[(row["variant_id"], row["attempt"], row.get("lam", 0.0))] = row
    return keyed


def test_ray_writes_the_same_records_as_local_over_the_bundled_fixtures(cluster: str, tmp_path: Path) -> None:
    """The travel suite (401 entries, tool layer, fault injection at λ=0.2): identical records."""
    for executor in ("local", "ray"):
        summary = run(
            RunOptions(
                fixtures=TRAVEL,
                agent="examples.travel_agent:agent",
                trials=1,
                faults="0,0.2",
                out=tmp_path / executor / "travel",  # the same run id for both
                executor=executor,
            )
        )
        assert (summary.done, summary.total, summary.errored) == (802, 802, 0)
    local = comparable(tmp_path / "local" / "travel")
    assert len(local) == 802
    assert comparable(tmp_path / "ray" / "travel") == local
    faulted = [r for r in local.values() if any(c["fault"] for c in r["tool_calls"])]
    assert faulted  # fault injection really ran, and gave the same schedule under Ray


def test_every_agent_kind_runs_on_workers(cluster: str, tmp_path: Path, fake_openai: Any) -> None:
    from perturb.testing.chat import Reply

    fixtures = project(tmp_path)
    script = REPO / "tests" / "agent_script.py"
    srv = fake_openai(default=lambda body: Reply(content="Paris" if "France" in str(body) else "4"))
    agents = {
        "cmd": f"cmd:{sys.executable} {script}",
        "openai": "openai:tiny",
        "factory": "tests.sample_agents:make_counter()",  # a fresh agent per trial: always 1
    }
    for name, agent in agents.items():
        got = {}
        for executor in ("local", "ray"):
            out = tmp_path / f"{name}-{executor}"
            summary = run(
                RunOptions(
                    fixtures=fixtures,
                    agent=agent,
                    trials=2,
                    out=out,
                    executor=executor,
                    concurrency=1,  # one actor: one worker process to start per run
                    base_url=srv.base_url,
                    temperature=0,
                )
            )
            assert (summary.done, summary.errored) == (2 * ENTRIES, 0), (name, executor)
            if name == "factory":
                assert {r["output"] for r in rows(out)} == {1}
            got[executor] = Counter(
                (r["variant_id"], r["outcome"], json.dumps(r["output"])) for r in rows(out)
            )
        assert got["ray"] == got["local"], name
    assert sum(1 for r in srv.requests if r.get("model") == "tiny") == 4 * ENTRIES  # 2 runs x n=2
    for r in rows(tmp_path / "openai-ray"):
        assert "sk-ray-test-key" not in json.dumps(r)


def _exact(out: Path, n: int) -> list[dict[str, Any]]:
    found = rows(out)
    keys = Counter((r["variant_id"], r["attempt"]) for r in found)
    assert len(keys) == ENTRIES * n
    assert set(keys.values()) == {1}  # no duplicates
    return found


def test_workers_killed_mid_trial_rerun_or_error_and_nothing_is_lost(cluster: str, tmp_path: Path) -> None:
    """add/canonical kills its worker on every run; add/paraphrase kills it once."""
    marks = tmp_path / "marks"
    marks.mkdir()
    tasks = [dict(TASKS[0], metadata={"answer": 4, "marks": str(marks), "doomed": True}), TASKS[1]]
    fixtures = project(tmp_path / "p", tasks)
    out = tmp_path / "run"
    summary = run(
        RunOptions(fixtures=fixtures, agent="tests.ray_agents:die", trials=1, out=out, executor="ray")
    )
    assert [p.name for p in marks.iterdir()] == ["add_paraphrase_c-6358d808aec2.0"]  # it killed once
    found = _exact(out, 1)
    errored = [r for r in found if r["outcome"] == "errored"]
    assert [(r["variant_id"], r["attempt"]) for r in errored] == [("add/canonical", 0)]
    assert errored[0]["error_kind"] == "worker_lost"
    assert errored[0]["error"].startswith(
        "the Ray worker running this trial alone died 2 times; last: ActorDiedError: "
    )
    assert Counter(r["outcome"] for r in found) == {"passed": 4, "errored": 1}
    assert (summary.ran, summary.passed, summary.errored, summary.done) == (5, 4, 1, 5)
    # 2 deaths alone for the doomed trial, its first death, and the single kill (maybe the same)
    assert len(summary.notes) == 1
    assert re.fullmatch(
        r"Ray: [34] worker deaths; 1 trial\(s\) errored \(worker_lost\) after dying alone 2 times each",
        summary.notes[0],
    ), summary.notes


def test_sigkill_of_the_driver_then_resume_runs_each_trial_exactly_once(cluster: str, tmp_path: Path) -> None:
    tasks = [dict(t, metadata={**t["metadata"], "sleep": 0.05}) for t in TASKS]
    fixtures = project(tmp_path / "p", tasks)
    out = tmp_path / "run"
    n = 24  # 120 trials of 50 ms, 4 in flight: ~1.5 s of work
    cmd = [
        sys.executable,
        "-m",
        "perturb",
        "run",
        str(fixtures),
        "--agent",
        "perturb.testing.agents:sleepy",
        "-n",
        str(n),
        "-c",
        "4",
        "--out",
        str(out),
        "--executor",
        "ray",
        "--ray-address",
        cluster,
    ]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    log = (tmp_path / "driver.log").open("wb")
    driver = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    trials = out / "trials.jsonl"
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline and driver.poll() is None:
        if trials.exists() and trials.read_bytes().count(b"\n") >= 30:
            break
        time.sleep(0.05)
    alive = driver.poll() is None
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    log.close()
    assert alive, (tmp_path / "driver.log").read_text()
    partial = trials.read_bytes().count(b"\n")
    assert 30 <= partial < ENTRIES * n
    resumed = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert resumed.returncode == 0, resumed.stderr
    assert f"run run: {ENTRIES * n}/{ENTRIES * n} trials done" in resumed.stdout
    found = _exact(out, n)
    assert Counter(r["outcome"] for r in found) == {"passed": ENTRIES * n}


def test_resources_the_cluster_cannot_place_stop_the_run_before_any_trial(
    cluster: str, tmp_path: Path
) -> None:
    from perturb.errors import UsageError

    fixtures = project(tmp_path / "p")
    out = tmp_path / "run"
    with pytest.raises(UsageError) as err:
        run(
            RunOptions(
                fixtures=fixtures,
                agent="perturb.testing.agents:answer",
                trials=1,
                out=out,
                executor="ray",
                resources='{"GPU": 1}',
            )
        )
    assert str(err.value) == (
        '--resources {"GPU": 1}: the Ray cluster cannot place one worker (it has {"GPU": 0} in all; '
        "lower --resources or add nodes)"
    )
    assert (out / "trials.jsonl").read_bytes() == b""  # no trial ran


def test_the_ray_benchmark_runs_at_a_small_trial_count() -> None:
    """benchmarks/bench_ray.py gives each timed run its own directory: at ``--trials 40`` the
    small and the big run of each executor no longer share one (the second found every trial
    done and failed the benchmark's own assertion)."""
    done = subprocess.run(
        [sys.executable, "benchmarks/bench_ray.py", "--trials", "40", "--cpus", "1"]
        + ["--cpu-trials", "2", "--rounds", "1000"],
        cwd=REPO,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "200 trials x 50 ms at concurrency 16" in done.stdout
    assert "driver write rate:" in done.stdout
