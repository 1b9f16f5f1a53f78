"""``perturb run`` end to end through the CLI: outcomes, timeouts, crashes, manifest, drift,
retry-errored, verification, secrets."""

from __future__ import annotations

import inspect
import json
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.io.hashing import sha256_bytes, short_id
from perturb.records import RunManifest, Trial
from perturb.run.store import CONFIG_FIELDS, config_hash, trial_seed
from perturb.testing.chat import Reply
from perturb.testing.suite import make_suite, read_trials
from tests import sample_agents

TASKS = [
    {"id": "add", "prompt": "What is 2+2?", "expected": 4, "grader": "numeric"},
    {
        "id": "city",
        "prompt": "Capital of France?",
        "expected": "Paris",
        "grader": "normalized",
        "metadata": {"sleep": 0.01},
    },
]
VARIANTS = [
    ("add", "paraphrase", "Add two and two."),
    ("city", "typo", "Capitl of France?"),
    ("city", "distractor", "I like trains. Capital of France?"),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make_suite(tmp_path, TASKS, VARIANTS)
    return tmp_path


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, ["run", *args])


def lines_of(run_dir: Path) -> list[dict[str, Any]]:
    rows = read_trials(run_dir / "trials.jsonl")
    for row in rows:
        Trial.model_validate(row)  # every line is a valid Trial record
    return rows


def test_run_writes_one_line_per_trial(project: Path) -> None:
    fx = project / "fixtures" / "demo.jsonl"
    out = project / "runs" / "r1"
    result = invoke(
        str(fx), "--agent", "tests.sample_agents:echo", "--trials", "3", "--out", str(out), "--seed", "7"
    )
    assert result.exit_code == 0, result.output
    rows = lines_of(out)
    assert len(rows) == 15  # 5 entries x 3 attempts
    per_variant = Counter(r["variant_id"] for r in rows)
    assert sorted(per_variant.values()) == [3] * 5
    assert sorted({(r["variant_id"], r["attempt"]) for r in rows}) == sorted(
        (v, a) for v in per_variant for a in range(3)
    )
    first = next(r for r in rows if r["variant_id"] == "add/canonical" and r["attempt"] == 1)
    assert first["seed"] == trial_seed(7, "add/canonical", 1)
    assert first["output"] == {"prompt": "What is 2+2?", "attempt": 1, "seed": first["seed"]}
    assert first["outcome"] == "wrong"  # a dict is not the number 4
    assert (
        first["grader_note"]
        == 'output {"prompt": "What is 2+2?", "attempt": 1, "seed": ' + f"{first['seed']}}} is not a number"
    )
    assert first["run_id"] == "r1" and first["suite"] == "demo" and first["retry"] == 0
    lock = json.loads((project / "fixtures" / "demo.lock.json").read_text())
    shas = {e["id"]: e["sha256"] for e in lock["entries"]}
    assert all(r["variant_sha256"] == shas[r["variant_id"]] for r in rows)
    assert result.stdout.startswith("ran 15 trials in ")
    assert result.stdout.rstrip().endswith(
        f"0 passed, 15 wrong, 0 errored; run r1: 15/15 trials done (0 passed, 15 wrong, "
        f"0 errored) in {out}/trials.jsonl; next: perturb report {out}"
    )


def test_passed_wrong_errored(project: Path, tmp_path: Path) -> None:
    (tmp_path / "mixed_agent_t5.py").write_text(
        "def agent(prompt, request):\n"
        "    if request['perturbation'] == 'typo':\n"
        "        raise RuntimeError('cannot read typos')\n"
        "    if request['task_id'] == 'add':\n"
        "        return '4' if request['perturbation'] == 'canonical' else '5'\n"
        "    return 'paris.'\n"
    )
    out = project / "runs" / "mixed"
    result = invoke(
        str(project / "fixtures" / "demo.jsonl"),
        "--agent",
        "mixed_agent_t5:agent",
        "-n",
        "2",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    rows = lines_of(out)
    outcomes = Counter((r["task_id"], r["perturbation"], r["outcome"]) for r in rows)
    assert outcomes == {
        ("add", "canonical", "passed"): 2,
        ("add", "paraphrase", "wrong"): 2,
        ("city", "canonical", "passed"): 2,
        ("city", "distractor", "passed"): 2,
        ("city", "typo", "errored"): 2,
    }
    typo = next(r for r in rows if r["perturbation"] == "typo")
    assert typo["error_kind"] == "exception"
    assert typo["error"] == "RuntimeError: cannot read typos (mixed_agent_t5.py:3 in agent)"
    assert typo["output"] is None
    wrong = next(r for r in rows if r["outcome"] == "wrong")
    assert wrong["grader_note"] == "expected 4 ± 0, got 5"
    assert "6 passed, 2 wrong, 2 errored" in result.stdout
    assert "(or --retry-errored to re-run the 2 errored)" in result.stdout


def test_crashing_agent_records_exception_text(project: Path) -> None:
    out = project / "runs" / "crash"
    result = invoke(
        str(project / "fixtures" / "demo.jsonl"),
        "--agent",
        "tests.sample_agents:crash",
        "-n",
        "1",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    rows = lines_of(out)
    line = inspect.getsourcelines(sample_agents.crash)[1] + 1
    assert {r["error"] for r in rows} == {
        f"ValueError: tool failed for add (sample_agents.py:{line} in crash)",
        f"ValueError: tool failed for city (sample_agents.py:{line} in crash)",
    }
    assert {r["outcome"] for r in rows} == {"errored"}
    assert {r["error_kind"] for r in rows} == {"exception"}


@pytest.mark.parametrize("agent", ["slow_async", "slow_sync"])
def test_timeout_is_errored_with_kind_timeout(tmp_path: Path, agent: str) -> None:
    tasks = [
        {"id": "slow", "prompt": "wait", "expected": "wait", "grader": "exact", "metadata": {"sleep": 30}},
        {"id": "fast", "prompt": "go", "expected": "go", "grader": "exact", "metadata": {"sleep": 0}},
    ]
    fx = make_suite(tmp_path, tasks)
    out = tmp_path / "runs" / "t"
    started = time.perf_counter()
    result = invoke(
        str(fx), "--agent", f"tests.sample_agents:{agent}", "-n", "2", "--timeout", "0.3", "--out", str(out)
    )
    elapsed = time.perf_counter() - started
    assert result.exit_code == 0, result.output
    rows = lines_of(out)
    slow = [r for r in rows if r["task_id"] == "slow"]
    fast = [r for r in rows if r["task_id"] == "fast"]
    assert [(r["outcome"], r["error_kind"], r["error"]) for r in slow] == [
        ("errored", "timeout", "timed out after 0.3 s")
    ] * 2
    # Ended by the 0.3 s timeout, not the 30 s sleep: the bounds sit halfway, so a loaded
    # machine cannot break them and an unenforced timeout cannot pass them.
    assert all(0.29 <= r["latency_s"] < 15 for r in slow)
    assert [r["outcome"] for r in fast] == ["passed", "passed"]
    assert elapsed < 15  # did not wait for the sleeps (the agent's threads are daemons)


def test_agent_raising_timeout_error_is_an_exception_not_a_timeout(project: Path) -> None:
    out = project / "runs" / "te"
    result = invoke(
        str(project / "fixtures" / "demo.jsonl"),
        "--agent",
        "tests.sample_agents:raises_timeout_itself",
        "-n",
        "1",
        "--out",
        str(out),
    )
    assert result.exit_code == 0
    assert {r["error_kind"] for r in lines_of(out)} == {"exception"}


def test_unserialisable_output_is_malformed(project: Path) -> None:
    out = project / "runs" / "nj"
    result = invoke(
        str(project / "fixtures" / "demo.jsonl"),
        "--agent",
        "tests.sample_agents:not_json",
        "-n",
        "1",
        "--out",
        str(out),
    )
    assert result.exit_code == 0
    rows = lines_of(out)
    assert {r["error_kind"] for r in rows} == {"malformed"}
    assert rows[0]["error"] == (
        "the agent's output or trace is not JSON-serialisable: Object of type set is not JSON serializable"
    )


def test_manifest_content(project: Path) -> None:
    fx = project / "fixtures" / "demo.jsonl"
    out = project / "runs" / "m"
    result = invoke(
        str(fx),
        "--agent",
        "tests.sample_agents:echo",
        "-n",
        "2",
        "--out",
        str(out),
        "--concurrency",
        "3",
        "--timeout",
        "12.5",
        "--classes",
        "canonical,typo",
        "--tasks",
        "city",
        "--temperature",
        "0.2",
        "--seed",
        "9",
    )
    assert result.exit_code == 0, result.output
    manifest = RunManifest.model_validate_json((out / "manifest.json").read_text())
    data = manifest.model_dump()
    assert {k: data[k] for k in CONFIG_FIELDS} == {
        "suite": "demo",
        "lock_sha256": sha256_bytes((project / "fixtures" / "demo.lock.json").read_bytes()),
        "agent": "tests.sample_agents:echo",
        "model": None,
        "base_url": None,
        "sampling": {"temperature": 0.2},
        "trials": 2,
        "timeout_s": 12.5,
        "classes": ["canonical", "typo"],
        "task_ids": ["city"],
        "judge": None,
        "seed": 9,
        "faults": None,
        "tools": None,
    }
    assert manifest.run_id == "m"
    assert manifest.concurrency == 3
    assert manifest.fixtures == str(fx)
    assert manifest.config_hash == config_hash(data)
    assert manifest.started_at.endswith("Z") and manifest.retries == []
    assert manifest.perturb_version and manifest.python_version and manifest.platform
    assert len(lines_of(out)) == 4  # city/canonical + city/typo, 2 attempts each


def test_config_drift_is_refused_with_each_field(project: Path) -> None:
    fx = str(project / "fixtures" / "demo.jsonl")
    out = project / "runs" / "d"
    assert (
        invoke(
            fx, "--agent", "tests.sample_agents:echo", "-n", "2", "--out", str(out), "--timeout", "30"
        ).exit_code
        == 0
    )
    before = (out / "trials.jsonl").read_bytes()
    result = invoke(
        fx,
        "--agent",
        "tests.sample_agents:async_echo",
        "-n",
        "3",
        "--out",
        str(out),
        "--timeout",
        "30",
        "--concurrency",
        "4",
    )
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {out}/manifest.json: this run was started with a different config: "
        'agent: "tests.sample_agents:echo" -> "tests.sample_agents:async_echo"; '
        "trials: 2 -> 3 (rerun with the original options to resume it, or choose a new "
        "--out directory)\n"
    )
    assert (out / "trials.jsonl").read_bytes() == before
    # concurrency alone may change between resumes
    same = invoke(
        fx,
        "--agent",
        "tests.sample_agents:echo",
        "-n",
        "2",
        "--out",
        str(out),
        "--timeout",
        "30",
        "--concurrency",
        "4",
    )
    assert same.exit_code == 0
    assert same.stdout.startswith("ran 0 trials")
    assert json.loads((out / "manifest.json").read_text())["concurrency"] == 4


def test_default_run_dir_is_stable_so_rerun_resumes(project: Path) -> None:
    fx = str(project / "fixtures" / "demo.jsonl")
    first = invoke(fx, "--agent", "tests.sample_agents:echo", "-n", "1")
    again = invoke(fx, "--agent", "tests.sample_agents:echo", "-n", "1")
    assert first.exit_code == 0 and again.exit_code == 0
    [run_dir] = list((project / "runs").iterdir())
    assert run_dir.name.startswith("demo-") and len(run_dir.name) == len("demo-") + 8
    assert again.stdout.startswith("ran 0 trials")
    assert "5/5 trials done" in again.stdout
    assert len(lines_of(run_dir)) == 5


def test_retry_errored_reruns_only_errored(project: Path, tmp_path: Path) -> None:
    flag = tmp_path / "healthy"
    (tmp_path / "flaky_agent_t5.py").write_text(
        "import pathlib\n"
        f"FLAG = pathlib.Path({str(flag)!r})\n"
        "def agent(prompt, request):\n"
        "    if request['task_id'] == 'city' and not FLAG.exists():\n"
        "        raise ConnectionError('tool down')\n"
        "    return '4' if request['task_id'] == 'add' else 'Paris'\n"
    )
    fx = str(project / "fixtures" / "demo.jsonl")
    out = project / "runs" / "flaky"
    args = [fx, "--agent", "flaky_agent_t5:agent", "-n", "2", "--out", str(out)]
    assert invoke(*args).exit_code == 0
    rows = lines_of(out)
    assert Counter(r["outcome"] for r in rows) == {"passed": 4, "errored": 6}
    plain = invoke(*args)
    assert plain.stdout.startswith("ran 0 trials")  # errored trials are not silently retried
    flag.write_text("ok")
    result = invoke(*args, "--retry-errored")
    assert result.exit_code == 0, result.output
    rows = lines_of(out)
    assert len(rows) == 16
    retried = [r for r in rows if r["retry"] == 1]
    assert len(retried) == 6
    assert {r["task_id"] for r in retried} == {"city"}
    assert {r["outcome"] for r in retried} == {"passed"}
    assert result.stdout.startswith("re-ran 6 trials in ")
    assert (
        "6 passed, 0 wrong, 0 errored (retry pass 1); run flaky: 10/10 trials done "
        "(10 passed, 0 wrong, 0 errored)" in result.stdout
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert [(r["pass"], r["errored"]) for r in manifest["retries"]] == [(1, 6)]
    again = invoke(*args, "--retry-errored")
    assert again.stdout.startswith("re-ran 0 trials")
    assert len(json.loads((out / "manifest.json").read_text())["retries"]) == 2


def test_retry_errored_without_a_run(project: Path) -> None:
    out = project / "runs" / "none"
    result = invoke(
        str(project / "fixtures" / "demo.jsonl"),
        "--agent",
        "tests.sample_agents:echo",
        "-n",
        "1",
        "--out",
        str(out),
        "--retry-errored",
    )
    assert result.exit_code == 2
    assert "no run to retry" in result.stderr


def test_refuses_unverified_fixtures(project: Path) -> None:
    fx = project / "fixtures" / "demo.jsonl"
    fx.write_text(fx.read_text().replace("What is 2+2?", "What is 2+3?"))
    result = invoke(str(fx), "--agent", "tests.sample_agents:echo", "-n", "1")
    assert result.exit_code == 1
    assert "MODIFIED add/canonical" in result.stdout
    assert not (project / "runs").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent", "tests.sample_agents:echo"], "error: no --trials given"),
        (["--agent", "tests.sample_agents:echo", "-n", "0"], "error: --trials must be > 0, got 0\n"),
        (
            ["--agent", "tests.sample_agents:echo", "-n", "1", "--timeout", "0"],
            "error: --timeout must be > 0, got 0.0\n",
        ),
        (["-n", "1"], "error: no agent"),
        (["--agent", "x:y", "--agent-cmd", "z", "-n", "1"], "error: give --agent or --agent-cmd"),
        (
            ["--agent", "tests.sample_agents:echo", "-n", "1", "--classes", "typos"],
            "error: unknown class 'typos' in --classes",
        ),
        (
            ["--agent", "tests.sample_agents:echo", "-n", "1", "--tasks", "nope"],
            "error: unknown task 'nope' in --tasks (expected ids from",
        ),
        (
            ["--agent", "tests.sample_agents:nope", "-n", "1"],
            "error: agent 'tests.sample_agents:nope': module 'tests.sample_agents' has no attribute",
        ),
        (
            ["--agent", "tests.sample_agents:echo", "-n", "1", "--tier", "nightly"],
            "error: no tier 'nightly' (expected one of: full, smoke, stress; define "
            "[tool.perturb.tiers.nightly] in pyproject.toml or [tiers.nightly] in perturb.toml)\n",
        ),
    ],
)
def test_usage_errors_exit_2(project: Path, args: list[str], message: str) -> None:
    result = invoke(str(project / "fixtures" / "demo.jsonl"), *args)
    assert result.exit_code == 2
    assert result.stderr.startswith(message)
    assert "Traceback" not in result.output


def test_tier_from_pyproject_and_flags_override(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.perturb.tiers.smoke]\ntasks = 1\ntrials = 2\nclasses = ["canonical", "paraphrase"]\n'
        "[tool.perturb.tiers.full]\ntrials = 4\n"
    )
    fx = str(project / "fixtures" / "demo.jsonl")
    smoke = project / "runs" / "smoke"
    assert (
        invoke(fx, "--agent", "tests.sample_agents:echo", "--tier", "smoke", "--out", str(smoke)).exit_code
        == 0
    )
    rows = lines_of(smoke)
    assert sorted({r["variant_id"].split("/c-")[0] for r in rows}) == ["add/canonical", "add/paraphrase"]
    assert len(rows) == 4
    manifest = json.loads((smoke / "manifest.json").read_text())
    assert (manifest["tier"], manifest["task_ids"], manifest["trials"]) == ("smoke", ["add"], 2)
    override = project / "runs" / "override"
    assert (
        invoke(
            fx, "--agent", "tests.sample_agents:echo", "--tier", "full", "-n", "1", "--out", str(override)
        ).exit_code
        == 0
    )
    assert len(lines_of(override)) == 5  # all entries, -n 1 beats the tier's 4


def test_openai_agent_run_secrets_never_written(
    project: Path,
    fake_openai,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    sentinel = "sk-SENTINEL-do-not-write-7f3a9c"
    monkeypatch.setenv("OPENAI_API_KEY", sentinel)
    srv = fake_openai(
        script=[
            Reply(status=429, headers={"Retry-After": "0.05"}),
            Reply(status=500, error_message=f"upstream saw key {sentinel}"),
        ],
        default=lambda body: (
            Reply(status=400, error_message=f"bad request from key {sentinel}")
            if "Capitl" in str(body)
            else Reply(content="Paris" if "France" in str(body) else "4")
        ),
    )
    url = srv.base_url.replace("http://", f"http://user:{sentinel}@")
    fx = str(project / "fixtures" / "demo.jsonl")
    out = project / "runs" / "oa"
    result = invoke(
        fx,
        "--agent",
        "openai:tiny",
        "-n",
        "2",
        "--out",
        str(out),
        "--base-url",
        url,
        "--temperature",
        "0",
        "--concurrency",
        "2",
    )
    assert result.exit_code == 0, result.output
    rows = lines_of(out)
    assert Counter(r["outcome"] for r in rows) == {"passed": 8, "errored": 2}
    errored = [r for r in rows if r["outcome"] == "errored"]
    assert {r["perturbation"] for r in errored} == {"typo"}
    assert {r["error_kind"] for r in errored} == {"api"}
    assert errored[0]["error"].startswith("model 'tiny': the server refused the request with HTTP 400")
    assert "bad request from key ***" in errored[0]["error"]
    assert {r["usage"]["input_tokens"] for r in rows if r["usage"]} == {10}
    assert sum(r["trace"]["retries"] for r in rows if r["trace"]) == 2
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["model"] == "tiny"
    assert manifest["base_url"] == srv.base_url
    assert manifest["sampling"] == {"temperature": 0.0, "seed": "per-trial"}
    assert {b["temperature"] for b in srv.requests} == {0}
    # an agent that leaks the key into its output
    leak = project / "runs" / "leak"
    assert invoke(fx, "--agent", "tests.sample_agents:leak_key", "-n", "1", "--out", str(leak)).exit_code == 0
    assert lines_of(leak)[0]["output"] == "my key is [REDACTED]"
    written = [p for p in (project / "runs").rglob("*") if p.is_file()]
    assert sorted(p.name for p in written) == [
        ".lock",
        ".lock",
        "manifest.json",
        "manifest.json",
        "trials.jsonl",
        "trials.jsonl",
    ]
    for path in written:
        assert sentinel not in path.read_text(), path


def test_openai_auth_failure_stops_the_run(
    project: Path,
    fake_openai,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-key-123456")
    srv = fake_openai(default=lambda body: Reply(status=401, error_message="bad key"))
    out = project / "runs" / "auth"
    result = invoke(
        str(project / "fixtures" / "demo.jsonl"),
        "--agent",
        "openai:tiny",
        "-n",
        "1",
        "--out",
        str(out),
        "--base-url",
        srv.base_url,
        "--concurrency",
        "1",
    )
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"error: openai:tiny at {srv.base_url}: model 'tiny': the server refused the request "
    )
    assert "HTTP 401" in result.stderr and "bad key" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert (out / "trials.jsonl").read_text() == ""  # nothing recorded: a rerun does them all


def test_llm_judge_run_records_judge(
    tmp_path: Path,
    fake_openai,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    from perturb.run.graders.llm_judge import PROMPT_SHA256

    monkeypatch.setenv("OPENAI_API_KEY", "sk-judge-key-123456")
    tasks = [
        {
            "id": "poem",
            "prompt": "Write about the sea",
            "expected": None,
            "grader": {"type": "llm_judge", "rubric": "mentions waves"},
        }
    ]
    fx = make_suite(tmp_path, tasks)
    srv = fake_openai(
        default=lambda body: Reply(
            content='{"pass": true, "reason": "waves"}'
            if "WAVES" in body["messages"][0]["content"]
            else '{"pass": false, "reason": "no waves"}'
        )
    )
    out = tmp_path / "runs" / "j"
    result = invoke(
        str(fx),
        "--agent",
        "tests.sample_agents:prompt_only",
        "-n",
        "2",
        "--out",
        str(out),
        "--base-url",
        srv.base_url,
        "--judge-model",
        "judge-m",
    )
    assert result.exit_code == 0, result.output
    rows = lines_of(out)
    assert [(r["outcome"], r["grader_note"]) for r in rows] == [("wrong", "no waves")] * 2
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["judge"] == {
        "model": "judge-m",
        "models": ["judge-m"],
        "prompt_sha256": PROMPT_SHA256,
        "base_url": srv.base_url,
        "temperature": 0,
    }
    assert {b["model"] for b in srv.requests} == {"judge-m"}
    missing = invoke(
        str(fx),
        "--agent",
        "tests.sample_agents:prompt_only",
        "-n",
        "1",
        "--out",
        str(tmp_path / "runs" / "j2"),
    )
    assert missing.exit_code == 2
    assert "poem/canonical: grader: llm_judge grader: no judge configured" in missing.stderr


def test_progress_bar_renders_counts(project: Path) -> None:
    import io

    from rich.console import Console

    from perturb.console import BarProgress
    from perturb.run.core import RunOptions, run

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=160, color_system=None)
    summary = run(
        RunOptions(
            fixtures=project / "fixtures" / "demo.jsonl",
            agent="tests.sample_agents:prompt_only",
            trials=3,
            out=project / "runs" / "p",
            progress=BarProgress(console),
        )
    )
    assert (summary.ran, summary.passed, summary.wrong, summary.errored) == (15, 0, 15, 0)
    rendered = [line for line in buffer.getvalue().splitlines() if "15/15" in line]
    assert rendered, buffer.getvalue()
    final = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", rendered[-1].split("\r")[-1])
    assert re.fullmatch(r"p ━+ 15/15 [0-9.]+/s ETA 0:00:00 0 passed 15 wrong 0 errored", final), final


def test_subprocess_agent_with_callable_grader_from_the_project(tmp_path: Path) -> None:
    import sys

    script = Path(__file__).with_name("agent_script.py")
    (tmp_path / "checks_t5.py").write_text(
        "def same_words(output, expected, task):\n"
        "    ok = sorted(output.lower().split()) == sorted(expected.lower().split())\n"
        "    return ok, None if ok else f\"{task['variant_id']}: words differ\"\n"
    )
    grader = {"type": "callable", "function": "checks_t5:same_words"}
    tasks = [{"id": "echo", "prompt": "book a room", "expected": "room a book", "grader": grader}]
    fx = make_suite(tmp_path, tasks, [("echo", "reorder", "a room book please")])
    out = tmp_path / "runs" / "sp"
    result = invoke(str(fx), "--agent-cmd", f"{sys.executable} {script}", "-n", "2", "--out", str(out))
    assert result.exit_code == 0, result.output
    rows = lines_of(out)
    reorder_id = "echo/reorder/c-" + short_id(("demo", "echo", "reorder", "a room book please"))
    assert sorted((r["perturbation"], r["outcome"], r["grader_note"]) for r in rows) == [
        ("canonical", "passed", None),
        ("canonical", "passed", None),
        ("reorder", "wrong", f"{reorder_id}: words differ"),
        ("reorder", "wrong", f"{reorder_id}: words differ"),
    ]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["agent"] == f"cmd:{sys.executable} {script}"


def test_second_writer_on_the_same_run_is_refused(project: Path) -> None:
    import fcntl
    import os

    out = project / "runs" / "locked"
    out.mkdir(parents=True)
    fd = os.open(out / ".lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(fd, b"4242")
        result = invoke(
            str(project / "fixtures" / "demo.jsonl"),
            "--agent",
            "tests.sample_agents:echo",
            "-n",
            "1",
            "--out",
            str(out),
        )
    finally:
        os.close(fd)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {out}: another `perturb run` (pid 4242) is writing this run (expected one "
        "writer per run directory; wait for it to finish or stop it)\n"
    )
    assert not (out / "trials.jsonl").exists()
    assert (
        invoke(
            str(project / "fixtures" / "demo.jsonl"),
            "--agent",
            "tests.sample_agents:echo",
            "-n",
            "1",
            "--out",
            str(out),
        ).exit_code
        == 0
    )
