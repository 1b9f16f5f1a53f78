"""Fault injection at the tool layer: the schedule, every fault class over the loopback
endpoint, retry behaviour, duplicated side effects, λ = 0 parity, ``cmd:`` agents, bad input."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.records import Trial
from perturb.report.core import build_report
from perturb.run.faults import FAULTS, FaultPlan, parse_lambdas, schedule_digest
from perturb.run.tools import ToolClient, load_tools
from perturb.run.tools.http import ToolServer
from perturb.testing.chat import FakeOpenAIServer, Reply
from perturb.testing.suite import make_suite, read_trials
from perturb.testing.tools import TOOLS_TOML, item_value

REPO = Path(__file__).resolve().parent.parent
KEYS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
TASKS = [
    {"id": f"t{i}", "prompt": f"{key} please", "expected": item_value(key), "grader": "numeric"}
    for i, key in enumerate(KEYS)
]
SINGLE = ["rate_limit", "timeout", "transient_500", "partial", "schema_drift", "wrong_data"]
WAIT_S = 60.0  # only bounds a hang: no test waits this long unless the behaviour is broken


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make_suite(tmp_path, TASKS)
    (tmp_path / "tasks" / "demo.tools.toml").write_text(TOOLS_TOML)
    return tmp_path


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, ["run", *args])


def schedule_of(run_dir: Path) -> dict[tuple[str, int, float], list[tuple[str, int, str | None]]]:
    out = {}
    for row in read_trials(run_dir / "trials.jsonl"):
        trial = Trial.model_validate(row)
        out[(trial.variant_id, trial.attempt, trial.lam)] = [
            (c.tool, c.index, c.fault) for c in trial.tool_calls
        ]
    return out


def suite_client(
    project: Path, lam: float, classes: list[str], attempt: int = 0, **timing: Any
) -> ToolClient:
    """A client of the demo suite for trial t0/canonical; ``timing`` is ``clock``/``sleep``."""
    suite = load_tools(project / "tasks" / "demo.tools.toml")
    state = suite.new_state({"prompt": "alpha bravo"})
    return ToolClient(suite, state, FaultPlan(0, "t0/canonical", attempt, lam, classes), **timing)


class ManualClock:
    """A clock for the tool layer that moves only when the test moves it: a rate-limit window
    then lasts exactly as long as the test says, however slowly the machine runs."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class GatedSleep:
    """A ``sleep`` for the tool layer that holds the caller until the test opens the gate, then
    sleeps what was asked: an injected late answer cannot reach the agent before the agent's
    own deadline has fired, however slowly the machine runs."""

    def __init__(self) -> None:
        self.asked: list[float] = []
        self.entered = threading.Event()
        self.opened = threading.Event()

    def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)
        self.entered.set()
        if not self.opened.wait(WAIT_S):
            raise AssertionError(f"the test never opened the gate within {WAIT_S} s")
        time.sleep(seconds)


# --------------------------------------------------------------------------- the schedule


def test_schedule_is_a_pure_function_of_its_inputs() -> None:
    plan = FaultPlan(7, "t1/canonical", 2, 0.3, SINGLE)
    picks = [plan.pick(i)[0] for i in range(2000)]
    again = [FaultPlan(7, "t1/canonical", 2, 0.3, SINGLE).pick(i)[0] for i in range(2000)]
    assert [p.name if p else None for p in picks] == [p.name if p else None for p in again]
    rate = sum(p is not None for p in picks) / len(picks)
    assert 0.27 < rate < 0.33  # λ = 0.3 over 2000 calls (sd 0.01)
    assert Counter(p.name for p in picks if p).keys() == set(SINGLE)
    # Every input moves the schedule.
    base = schedule_digest(7, "t1/canonical", 2, 5, 0.3, SINGLE)
    for other in (
        schedule_digest(8, "t1/canonical", 2, 5, 0.3, SINGLE),
        schedule_digest(7, "t2/canonical", 2, 5, 0.3, SINGLE),
        schedule_digest(7, "t1/canonical", 3, 5, 0.3, SINGLE),
        schedule_digest(7, "t1/canonical", 2, 6, 0.3, SINGLE),
        schedule_digest(7, "t1/canonical", 2, 5, 0.1, SINGLE),
        schedule_digest(7, "t1/canonical", 2, 5, 0.3, SINGLE[:3]),
    ):
        assert other != base
    assert FaultPlan(7, "t1/canonical", 2, 0.0, SINGLE).pick(0) == (None, b"")


def test_same_faults_at_concurrency_1_and_50(project: Path) -> None:
    fx = project / "fixtures" / "demo.jsonl"
    classes = "transient_500,partial,schema_drift,wrong_data"  # no wall-clock windows
    common = ["--agent", "tests.fault_agents:honours_retry_after", "-n", "4", "--faults", "0,0.3,0.6"]
    for conc, out in (("1", "c1"), ("50", "c50")):
        result = invoke(str(fx), *common, "--fault-classes", classes, "-c", conc, "--out", str(project / out))
        assert result.exit_code == 0, result.output
    one, fifty = schedule_of(project / "c1"), schedule_of(project / "c50")
    assert len(one) == 8 * 4 * 3 and one == fifty
    faulted = sum(1 for calls in one.values() for _, _, f in calls if f)
    assert faulted > 20  # the comparison is not between two empty schedules


HELD_AGENT = """
import time
from pathlib import Path
from tests.fault_agents import honours_retry_after

def agent(prompt, request):
    # While ./hold exists, a trial that starts once 10 lines are written waits to be killed.
    trials = Path("runs/k/trials.jsonl")
    while Path("hold").exists() and trials.exists() and trials.read_bytes().count(b"\\n") >= 10:
        time.sleep(0.01)
    return honours_retry_after(prompt, request)
"""


@pytest.mark.slow
def test_same_faults_after_sigkill_and_resume(project: Path) -> None:
    # The run stops making progress after 10 trials (the agent holds) instead of racing the
    # kill: however slowly this test polls, the run is still mid-way when it is killed.
    (project / "held_fault_agent.py").write_text(HELD_AGENT)
    (project / "hold").touch()
    command = [
        sys.executable, "-m", "perturb", "run", "fixtures/demo.jsonl", "--agent", "held_fault_agent:agent",
        "-n", "3", "--faults", "0,0.5", "--fault-classes", "transient_500,partial,wrong_data",
        "-c", "4", "--out", "runs/k",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    trials = project / "runs/k/trials.jsonl"
    proc = subprocess.Popen(
        command, cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + WAIT_S
    while not trials.exists() or trials.read_bytes().count(b"\n") < 10:
        assert proc.poll() is None and time.monotonic() < deadline, "no progress"
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=WAIT_S) == -signal.SIGKILL
    killed_at = trials.read_bytes().count(b"\n")
    assert 10 <= killed_at < 48
    (project / "hold").unlink()
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    whole = subprocess.run(
        [*command[:-1], "runs/whole"], cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    assert whole.returncode == 0, whole.stderr
    resumed, uninterrupted = schedule_of(project / "runs/k"), schedule_of(project / "runs/whole")
    assert len(resumed) == 8 * 3 * 2 and resumed == uninterrupted


# --------------------------------------------------------------------------- each class over HTTP


def post(url: str, tool: str, args: dict[str, Any], timeout: float = 5.0) -> tuple[int, dict[str, str], str]:
    req = urllib.request.Request(f"{url}/{tool}", data=json.dumps(args).encode(), method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, dict(resp.headers), resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


@pytest.fixture
def server() -> Any:
    srv = ToolServer()
    srv.start()
    yield srv
    srv.stop()


def test_every_fault_class_over_the_loopback_endpoint(project: Path, server: ToolServer) -> None:
    clean = {"key": "alpha", "value": item_value("alpha"), "label": "item alpha"}
    seen_headers = set()
    for name in FAULTS.names():
        clock, gate = ManualClock(), GatedSleep()
        client = suite_client(project, 1.0, [name], clock=clock, sleep=gate)
        url = server.url(server.register(client))
        if name == "timeout":
            try:
                # The late answer is held at the gate, so the agent's deadline fires first.
                with pytest.raises((TimeoutError, urllib.error.URLError)):
                    post(url, "put_item", {"key": "alpha", "value": 5}, timeout=client.deadline_s)
                assert gate.entered.wait(WAIT_S) and client.state["writes"] == []  # not landed yet
            finally:
                gate.opened.set()
            client.plan = FaultPlan(0, "x", 0, 0.0, SINGLE)
            # Calls of a trial are serialised: this one is answered after the late call finished.
            assert post(url, "get_item", {"key": "alpha"}, timeout=WAIT_S)[0] == 200
            assert gate.asked == [1.5 * client.deadline_s]  # the answer is late, but the call lands
            assert client.state["writes"] == [("alpha", 5)]
            assert client.calls[0]["fault"] == "timeout" and client.calls[0]["timed_out"]
            continue
        gate.opened.set()  # slow_retry_burst sleeps before its 500
        status, headers, body = post(url, "get_item", {"key": "alpha"}, timeout=WAIT_S)
        assert client.calls[0]["fault"] == name
        if name in ("rate_limit", "rate_limit_storm"):
            assert status == 429 and json.loads(body) == {"error": json.loads(body)["error"]}
            seen_headers.add("Retry-After" in headers)
            client.plan = FaultPlan(0, "x", 0, 0.0, SINGLE)  # from here on only the held limit answers
            window = client.retry_after_s * (3 if name == "rate_limit_storm" else 1)
            clock.now += window - 0.001  # just before the window elapsed
            again = post(url, "get_item", {"key": "alpha"}, timeout=WAIT_S)
            assert again[0] == 429 and client.calls[1]["followup"]
            if name == "rate_limit_storm":  # every tool, not only the one that faulted
                assert post(url, "put_item", {"key": "x", "value": 1}, timeout=WAIT_S)[0] == 429
            clock.now += 0.001  # the window has elapsed: the limit is open again
            assert post(url, "get_item", {"key": "alpha"}, timeout=WAIT_S)[0] == 200
        elif name in ("transient_500", "slow_retry_burst"):
            assert status == 500
        elif name == "partial":
            assert status == 200 and body == json.dumps(clean, separators=(",", ":"))[: len(body)]
            with pytest.raises(ValueError):
                json.loads(body)
        elif name == "schema_drift":
            data = json.loads(body)
            assert status == 200 and data["x_schema_version"] == "2"
            renamed = [k for k in data if k.endswith("_v2")]
            assert len(renamed) == 1 and data[renamed[0]] == clean[renamed[0][:-3]]
        elif name == "wrong_data":
            data = json.loads(body)
            assert status == 200 and data.keys() == clean.keys()
            changed = [k for k in clean if data[k] != clean[k]]
            assert len(changed) == 1 and type(data[changed[0]]) is type(clean[changed[0]])
            key = changed[0]
            assert data[key] == (-(clean[key] * 1000 + 1) if key == "value" else clean[key][::-1])
        else:
            raise AssertionError(f"no check for fault class {name}")
    # Half the rate_limit injections send Retry-After (drawn); over the plugin-free classes both occur.
    client = suite_client(project, 1.0, ["rate_limit"])
    flags = set()
    for attempt in range(12):
        c = suite_client(project, 1.0, ["rate_limit"], attempt=attempt)
        flags.add(c.call("get_item", key="alpha").retry_after is not None)
    assert flags == {True, False} and client.calls == []


def test_transient_500_fails_m_times_then_succeeds(project: Path) -> None:
    client = suite_client(project, 1.0, ["transient_500"])
    statuses = [client.call("get_item", key="alpha").status]
    client.plan = FaultPlan(0, "x", 0, 0.0, SINGLE)  # no new faults: only the held run of 500s
    statuses += [client.call("get_item", key="alpha").status for _ in range(5)]
    m = statuses.index(200)
    assert 1 <= m <= 4 and statuses[:m] == [500] * m
    assert [c["followup"] for c in client.calls[:m]] == [False] + [True] * (m - 1)


def test_undeclared_tool_and_bad_arguments_over_http(project: Path, server: ToolServer) -> None:
    client = suite_client(project, 0.0, SINGLE)
    url = server.url(server.register(client))
    status, _, body = post(url, "nope", {})
    assert status == 404 and "undeclared tool 'nope'" in body
    assert client.problem == "the agent called undeclared tool 'nope' (declared: get_item, put_item, book)"
    status, _, body = post(url, "get_item", {"key": 3})
    assert status == 400 and json.loads(body) == {
        "error": "invalid arguments: key: 3 is not of type 'string'"
    }
    assert post(server.url("unknown"), "get_item", {"key": "a"})[0] == 404


# --------------------------------------------------------------------------- retries, duplicates


@pytest.mark.slow
def test_immediate_429_retry_scores_worse_than_honouring_retry_after(project: Path) -> None:
    fx = project / "fixtures" / "demo.jsonl"
    common = ["-n", "6", "--faults", "0,0.5", "--fault-classes", "rate_limit", "-c", "8"]
    for agent in ("immediate_retry", "honours_retry_after"):
        result = invoke(
            str(fx), "--agent", f"tests.fault_agents:{agent}", *common, "--out", str(project / agent)
        )
        assert result.exit_code == 0, result.output
    fast, patient = (
        build_report(project / a, bootstrap=50).faults for a in ("immediate_retry", "honours_retry_after")
    )
    assert fast is not None and patient is not None
    assert [r.lam for r in fast.lambdas] == [0.0, 0.5]
    assert fast.lambdas[0].mean == patient.lambdas[0].mean == 1.0
    # From the schedule, by hand: the immediate retrier fails exactly when its first call is
    # limited (its retries land inside the window); the patient agent only when all three of
    # its calls draw a new limit.
    plans = [FaultPlan(0, f"t{i}/canonical", a, 0.5, ["rate_limit"]) for i in range(8) for a in range(6)]
    first = sum(p.pick(0)[0] is not None for p in plans)
    all_three = sum(all(p.pick(j)[0] is not None for j in range(3)) for p in plans)
    assert fast.lambdas[1].mean == pytest.approx(1 - first / 48)
    assert patient.lambdas[1].mean == pytest.approx(1 - all_three / 48)
    assert first >= 16 and all_three <= first / 2  # measurably worse, not by a hair
    assert fast.lambdas[1].delta is not None and fast.lambdas[1].delta.mean.high < 0
    assert fast.lambdas[1].early_calls > 0 and patient.lambdas[1].early_calls == 0
    assert fast.lambdas[1].give_up_trials == first and patient.lambdas[1].give_up_trials == all_three
    (limited,) = fast.by_class
    assert limited.fault == "rate_limit" and limited.met_mean < limited.clean_mean == 1.0


def test_duplicated_side_effect_after_a_timeout_is_counted(project: Path) -> None:
    client = suite_client(project, 1.0, ["timeout"])
    with pytest.raises(Exception, match="no answer within 0.03 s"):
        client.call("put_item", key="alpha", value=1)
    client.plan = FaultPlan(0, "x", 0, 0.0, SINGLE)  # the retry goes through
    assert client.call("put_item", key="alpha", value=1).json()["writes"] == 2
    assert client.duplicates == 1 and [c["duplicate"] for c in client.calls] == [False, True]
    # With an idempotency key the retry is a replay: it does not land again.
    client = suite_client(project, 1.0, ["timeout"])
    with pytest.raises(Exception, match="no answer"):
        client.call("book", key="alpha", request_id="r1")
    client.plan = FaultPlan(0, "x", 0, 0.0, SINGLE)
    assert client.call("book", key="alpha", request_id="r1").json() == {"key": "alpha", "booking": 1}
    assert client.duplicates == 0 and client.state["writes"] == [("book", "alpha")]


def test_duplicates_reach_the_trial_and_the_report(project: Path) -> None:
    fx = project / "fixtures" / "demo.jsonl"
    out = project / "dup"
    result = invoke(
        str(fx), "--agent", "tests.fault_agents:rebook_after_timeout", "-n", "2",
        "--faults", "0,1", "--fault-classes", "timeout", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = [Trial.model_validate(r) for r in read_trials(out / "trials.jsonl")]
    at_one = [r for r in rows if r.lam == 1.0]
    # λ = 1: both calls time out and land; the second is the duplicate; the agent gives up.
    assert len(at_one) == 16 and all(r.duplicated_side_effects == 1 for r in at_one)
    assert all([c.duplicate for c in r.tool_calls] == [False, True] for r in at_one)
    assert all(r.duplicated_side_effects == 0 for r in rows if r.lam == 0.0)
    faults = build_report(out, bootstrap=20).faults
    assert faults is not None and [r.duplicates for r in faults.lambdas] == [0, 16]


# --------------------------------------------------------------------------- λ = 0 parity


def test_lambda_zero_gives_todays_outcomes(tmp_path: Path) -> None:
    """The bundled travel example: no tool layer (as before this feature), the tool layer at
    λ = 0, and --faults 0: the same outcome for every trial."""
    copy = tmp_path / "travel"
    shutil.copytree(REPO / "fixtures", copy / "fixtures")
    shutil.copytree(REPO / "tasks", copy / "tasks")
    shutil.copytree(REPO / "review", copy / "review")
    fx = copy / "fixtures" / "travel.jsonl"
    args = ["--agent", "examples.travel_agent:agent", "-n", "1", "--classes", "canonical,typo"]
    assert invoke(str(fx), *args, "--out", str(copy / "tools")).exit_code == 0
    assert invoke(str(fx), *args, "--faults", "0", "--out", str(copy / "zero")).exit_code == 0
    (copy / "tasks" / "travel.tools.toml").unlink()
    assert invoke(str(fx), *args, "--out", str(copy / "plain")).exit_code == 0

    def outcomes(run: str) -> dict[tuple[str, int], str]:
        return {
            (r["variant_id"], r["attempt"]): r["outcome"] for r in read_trials(copy / run / "trials.jsonl")
        }

    plain = outcomes("plain")
    assert len(plain) > 46 and outcomes("tools") == plain == outcomes("zero")
    plain_rows = read_trials(copy / "plain" / "trials.jsonl")
    assert all("lam" not in r and "tool_calls" not in r for r in plain_rows)  # today's lines
    manifest = json.loads((copy / "plain" / "manifest.json").read_text())
    assert manifest["faults"] is None and manifest["tools"] is None


# --------------------------------------------------------------------------- cmd agents, wrap


def test_cmd_agent_reaches_the_tools_over_http_under_faults(project: Path) -> None:
    # The agent enforces tools_timeout_s itself, on its own clock, on every call: the demo
    # suite's 30 ms is shorter than a scheduler stall on a loaded machine, and a clean call that
    # answers late is retried. So this run's deadline is one no clean call can miss; an injected
    # timeout would then wait 1.5 x that, so the timeout class is left to the loopback test.
    tools = project / "tasks" / "demo.tools.toml"
    tools.write_text(TOOLS_TOML.replace("timeout_s = 0.03", f"timeout_s = {WAIT_S:g}", 1))
    classes = [c for c in SINGLE if c != "timeout"]
    fx = project / "fixtures" / "demo.jsonl"
    out = project / "cmd"
    agent = f"cmd:{sys.executable} {REPO / 'tests' / 'tool_cmd_agent.py'}"
    result = invoke(
        str(fx), "--agent", agent, "-n", "2", "--faults", "0,0.5", "--fault-classes", ",".join(classes),
        "-c", "8", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = [Trial.model_validate(r) for r in read_trials(out / "trials.jsonl")]
    assert len(rows) == 32
    assert all(r.outcome == "passed" for r in rows if r.lam == 0.0)
    assert all(len(r.tool_calls) == 1 and r.tool_calls[0].fault is None for r in rows if r.lam == 0.0)
    met = Counter(c.fault for r in rows if r.lam == 0.5 for c in r.tool_calls if c.fault)
    assert sum(met.values()) >= 5 and set(met) <= set(classes)
    # The same schedule as a Python agent would meet: the first call of every trial.
    for r in rows:
        expected, _ = FaultPlan(0, r.variant_id, r.attempt, r.lam, classes).pick(0)
        assert r.tool_calls[0].fault == (expected.name if expected else None)


def test_wrapped_own_tools_meet_the_schedule(project: Path) -> None:
    fx = project / "fixtures" / "demo.jsonl"
    out = project / "own"
    result = invoke(
        str(fx), "--agent", "tests.fault_agents:own_tools", "-n", "1", "--faults", "0,1",
        "--fault-classes", "transient_500", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = [Trial.model_validate(r) for r in read_trials(out / "trials.jsonl")]
    at_one = [r for r in rows if r.lam == 1.0]
    assert all(r.tool_calls[0].tool == "lookup" and r.tool_calls[0].fault == "transient_500" for r in at_one)
    assert all(r.outcome == "passed" for r in rows if r.lam == 0.0)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--faults", "0,1.5"],
            "error: --faults: λ=1.5 is outside [0, 1] (expected fault rates between 0 and 1, e.g. --faults 0,0.1,0.3)\n",
        ),
        (
            ["--faults", "0.1"],
            "error: --faults '0.1': λ=0 is missing (expected the reference rate 0 in the list, e.g. --faults 0,0.1,0.3)\n",
        ),
        (
            ["--faults", "0,x"],
            "error: --faults '0,x': 'x' is not a number (expected rates in [0, 1], e.g. --faults 0,0.1,0.3)\n",
        ),
        (
            ["--faults", "0,0.1", "--fault-classes", "meteor"],
            "error: unknown fault class 'meteor' in --fault-classes (expected some of: rate_limit, timeout, transient_500, partial, schema_drift, wrong_data, rate_limit_storm, slow_retry_burst)\n",
        ),
        (
            ["--fault-classes", "timeout"],
            "error: --fault-classes needs --faults (expected e.g. --faults 0,0.1 --fault-classes timeout)\n",
        ),
    ],
)
def test_bad_fault_options_exit_2_before_the_run(project: Path, args: list[str], message: str) -> None:
    fx = project / "fixtures" / "demo.jsonl"
    result = invoke(
        str(fx),
        "--agent",
        "tests.fault_agents:honours_retry_after",
        "-n",
        "1",
        *args,
        "--out",
        str(project / "r"),
    )
    assert (result.exit_code, result.output) == (2, message)
    assert not (project / "r").exists()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            ('function = "perturb.testing.tools:get_item"', 'function = "tests.no_such_module:get_item"'),
            "tools.get_item.function: cannot import 'tests.no_such_module': ModuleNotFoundError: No module named 'tests.no_such_module' (expected a module importable from the project directory)",
        ),
        (
            ('function = "perturb.testing.tools:get_item"', 'function = "perturb.testing.tools:nothing"'),
            "tools.get_item.function: module 'perturb.testing.tools' has no attribute 'nothing'",
        ),
        (
            ('properties = { key = { type = "string" } }\n', 'properties = { key = { type = "text" } }\n'),
            "tools.get_item.parameters: not a valid JSON Schema: 'text' is not valid under any of the given schemas (at properties.key.type)",
        ),
        (
            ("side_effect = true\nidempotency_key", "side_effect = 1\nidempotency_key"),
            "tools.book.side_effect: expected true or false, got 1",
        ),
        (("timeout_s = 0.03", "timeout_s = 0"), "timeout_s: expected a number of seconds > 0, got 0"),
    ],
)
def test_bad_tool_declarations_exit_2_with_one_line(
    project: Path, edit: tuple[str, str], message: str
) -> None:
    path = project / "tasks" / "demo.tools.toml"
    text = path.read_text()
    assert edit[0] in text
    path.write_text(text.replace(edit[0], edit[1], 1))
    fx = project / "fixtures" / "demo.jsonl"
    result = invoke(
        str(fx), "--agent", "tests.fault_agents:honours_retry_after", "-n", "1", "--out", str(project / "r")
    )
    assert (result.exit_code, result.output) == (2, f"error: {path}: {message}\n")
    assert not (project / "r").exists()


def test_task_naming_an_undeclared_tool_exits_2(tmp_path: Path) -> None:
    tasks = [{**TASKS[0], "metadata": {"tools": ["get_item", "teleport"]}}]
    make_suite(tmp_path, tasks)
    (tmp_path / "tasks" / "demo.tools.toml").write_text(TOOLS_TOML)
    fx = tmp_path / "fixtures" / "demo.jsonl"
    result = invoke(str(fx), "--agent", "tests.fault_agents:honours_retry_after", "-n", "1")
    assert result.exit_code == 2
    assert result.output == (
        f"error: {fx}: t0/canonical: metadata.tools: tool 'teleport' is not declared in "
        f"{tmp_path / 'tasks' / 'demo.tools.toml'} (declared: book, get_item, put_item; add a "
        "[tools.teleport] table)\n"
    )


def test_undeclared_tool_during_the_run_is_an_errored_trial(project: Path) -> None:
    fx = project / "fixtures" / "demo.jsonl"
    out = project / "undeclared"
    result = invoke(str(fx), "--agent", "tests.fault_agents:calls_undeclared", "-n", "1", "--out", str(out))
    assert result.exit_code == 0, result.output
    rows = read_trials(out / "trials.jsonl")
    assert len(rows) == 8 and {r["outcome"] for r in rows} == {"errored"}
    assert {(r["error_kind"], r["error"]) for r in rows} == {
        ("tool", "the agent called undeclared tool 'delete_everything' (declared: get_item, put_item, book)")
    }


def test_resume_refuses_changed_fault_options(project: Path) -> None:
    fx = project / "fixtures" / "demo.jsonl"
    out = project / "drift"
    base = ["--agent", "tests.fault_agents:honours_retry_after", "-n", "1", "--out", str(out)]
    assert invoke(str(fx), *base, "--faults", "0,0.1").exit_code == 0
    again = invoke(str(fx), *base, "--faults", "0,0.1")
    assert again.exit_code == 0 and "ran 0 trials" in again.output
    changed = invoke(str(fx), *base, "--faults", "0,0.2")
    assert changed.exit_code == 2
    assert (
        'faults: {"classes": ["rate_limit", "timeout", "transient_500", "partial", "schema_drift", '
        '"wrong_data"], "lambdas": [0.0, 0.1]} -> {"classes": ["rate_limit", "timeout", "transient_500", '
        '"partial", "schema_drift", "wrong_data"], "lambdas": [0.0, 0.2]}'
    ) in changed.output


def test_parse_lambdas_sorts_and_dedupes() -> None:
    assert parse_lambdas("0.3, 0, 0.1,0.1") == [0.0, 0.1, 0.3]
    assert parse_lambdas(None) is None


# --------------------------------------------------------------------------- openai: function calling


def fake_model(body: dict[str, Any]) -> Reply:
    """A 'model' that reads the item with get_item, calls again after a failed answer (at most
    three calls), then answers with the value or gives up."""
    messages = body["messages"]
    key = messages[0]["content"].split()[0]
    answers = [json.loads(m["content"]) for m in messages if m["role"] == "tool"]
    if answers:
        last = answers[-1]
        try:
            value = json.loads(last.get("body", "")).get("value") if last.get("status") == 200 else None
        except ValueError:
            value = None
        if value is not None:
            return Reply(content=str(value))
        if len(answers) >= 3:
            return Reply(content="gave up")
    return Reply(content=None, tool_calls=[("get_item", {"key": key})])


@pytest.mark.slow
def test_openai_agent_function_calling_loop_under_faults(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
    fx = project / "fixtures" / "demo.jsonl"
    out = project / "oa"
    with FakeOpenAIServer(default=fake_model) as srv:
        result = invoke(
            str(fx), "--agent", "openai:fake-model", "--base-url", srv.base_url, "-n", "2",
            "--faults", "0,0.5", "--fault-classes", "transient_500,partial,wrong_data", "--out", str(out),
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        requests = list(srv.requests)
    assert {t["function"]["name"] for t in requests[0]["tools"]} == {"get_item", "put_item", "book"}
    rows = [Trial.model_validate(r) for r in read_trials(out / "trials.jsonl")]
    assert len(rows) == 32
    zero = [r for r in rows if r.lam == 0.0]
    assert all(r.outcome == "passed" and len(r.tool_calls) == 1 for r in zero)
    # Every tool message the model saw is one recorded call: 1 + the number of model turns - 1.
    assert sum(len(r.tool_calls) for r in rows) == sum(
        1 for b in requests for m in b["messages"][-1:] if m["role"] == "tool"
    )
    half = [r for r in rows if r.lam == 0.5]
    for r in half:  # the recorded faults are the schedule's (calls not held by a run of 500s)
        for c in r.tool_calls:
            if not c.followup:
                expected, _ = FaultPlan(
                    0, r.variant_id, r.attempt, 0.5, ["transient_500", "partial", "wrong_data"]
                ).pick(c.index)
                assert c.fault == (expected.name if expected else None)
    met = Counter(c.fault for r in half for c in r.tool_calls if c.fault)
    assert met.keys() == {"transient_500", "partial", "wrong_data"}
    # wrong_data passes the model's (absent) checks: some trials answer a wrong number.
    assert any(r.outcome == "wrong" for r in half) and all(r.outcome != "errored" for r in rows)
    report = build_report(out, bootstrap=50).faults
    assert report is not None and report.lambdas[1].mean < report.lambdas[0].mean == 1.0


# --------------------------------------------------------------------------- gate


@pytest.mark.slow
def test_gate_compares_each_lambda_like_a_class(project: Path) -> None:
    from perturb.report.gate import GateOptions, check_gate, write_baseline

    fx = project / "fixtures" / "demo.jsonl"
    common = ["-n", "4", "--faults", "0,0.5", "--fault-classes", "rate_limit", "-c", "8"]
    for agent in ("immediate_retry", "honours_retry_after"):
        result = invoke(
            str(fx), "--agent", f"tests.fault_agents:{agent}", *common, "--out", str(project / agent)
        )
        assert result.exit_code == 0, result.output
    baseline = write_baseline(project / "honours_retry_after", project / "baseline.json", k=2)
    assert list(baseline.faults) == ["0.5"] and len(baseline.fault_variants) == 8
    assert {v.lam for v in baseline.fault_variants} == {0.5}
    same = check_gate(GateOptions(project / "honours_retry_after", project / "baseline.json"))
    assert same.passed and "ok: faults lam=0.5 mean: baseline" in "\n".join(same.lines)
    # strict: 4 tasks at n=4 are too few for the sound default to call this drop more than noise
    worse = check_gate(GateOptions(project / "immediate_retry", project / "baseline.json", strict=True))
    assert not worse.passed
    assert worse.verdict.startswith("gate failed: ")
    bad = [line for line in worse.lines if line.startswith("regression: faults lam=0.5")]
    assert [line.split(":")[1].strip().split()[-1] for line in bad] == ["mean", "pass^2"]
    # docs/faults.md quotes the start of this line
    shown = ", ".join(bad[0].split(", ")[:2])
    assert f"`{shown}, ...`" in " ".join((REPO / "docs" / "faults.md").read_text(encoding="utf-8").split())
    assert worse.verdict.startswith("gate failed: 2 regressions; run immediate_retry against baseline")
    old = check_gate(GateOptions(project / "honours_retry_after", project / "baseline.json", k=2))
    assert old.passed
    plain = json.loads((project / "baseline.json").read_text())
    plain["faults"], plain["fault_variants"] = {}, []
    (project / "plain.json").write_text(json.dumps(plain))
    note = check_gate(GateOptions(project / "immediate_retry", project / "plain.json"))
    assert note.passed and "note: faults lam=0.5 is new in this run (no baseline figures)" in note.lines
    # a λ only the baseline has: noted like a class the run lacks, never compared
    other = json.loads((project / "baseline.json").read_text())
    other["faults"] = {"0.25": other["faults"]["0.5"]}
    for row in other["fault_variants"]:
        row["lam"] = 0.25
    (project / "other.json").write_text(json.dumps(other))
    moved = check_gate(GateOptions(project / "honours_retry_after", project / "other.json"))
    assert moved.passed
    assert "note: faults lam=0.25 is in the baseline but not in this run (not compared)" in moved.lines
    assert "note: faults lam=0.5 is new in this run (no baseline figures)" in moved.lines
    # λ = 0 is the same agent behaviour (no faults): canonical is not a regression.
    assert any(line.startswith("ok: canonical mean: baseline 1.000, current 1.000") for line in worse.lines)


@pytest.mark.slow
def test_docs_scorecard_matches_a_run_of_the_current_code() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "docs" / "faults_scorecard.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    text = (REPO / "docs" / "faults.md").read_text(encoding="utf-8")
    assert "faults      lam=0.0 1.000  lam=0.1 " in text
    for name in FAULTS.names():  # every fault class is documented
        assert f"| `{name}`" in text


def test_every_format_shows_the_fault_axis(project: Path) -> None:
    from perturb.report.core import render

    fx = project / "fixtures" / "demo.jsonl"
    out = project / "formats"
    result = invoke(
        str(fx), "--agent", "tests.fault_agents:immediate_retry", "-n", "2",
        "--faults", "0,1", "--fault-classes", "rate_limit", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    a = build_report(out, bootstrap=100)
    # λ = 0: every read answers; λ = 1: the first call is limited and the two immediate retries
    # land inside the window: every trial gives up.
    line = "faults      lam=0.0 1.000  lam=1.0 0.000"
    assert a.faults is not None and [r.mean for r in a.faults.lambdas] == [1.0, 0.0]
    text = render(a, "text")
    assert line in text and "fault tolerance by λ" in text
    # Δ mean on 8 matched tasks, every one 2/2 -> 0/2: clearly below 0, with trial noise at n=2
    assert re.search(r"-1\.000 \[-1\.000, -0\.[3-9]\d\d\]", text), text
    md = render(a, "md")
    assert line in md and "### Fault tolerance by λ" in md
    data = json.loads(render(a, "json"))["faults"]
    rows = [
        (r["lam"], r["n_trials"], r["calls_before_retry_after"], r["give_up_trials"]) for r in data["lambdas"]
    ]
    assert rows == [(0.0, 16, 0, 0), (1.0, 16, 32, 16)]
    assert data["classes"] == ["rate_limit"] and data["by_class"] == []  # no λ>0 trial met no fault
    xml = render(a, "junit")
    assert '<testsuite name="demo.faults" tests="1" failures="1"' in xml
    assert '<failure message="success falls under faults: mean 0.000 (n=16 trials, 8 tasks)' in xml
    html = render(a, "html")
    assert 'aria-label="success against fault rate"' in html and "faults      lam=0.0 1.000" in html
