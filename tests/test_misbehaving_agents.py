"""Issue #11 items 7-12 and 18: agents that misbehave become errored trials with a reason, the
run finishes, and nothing outlives it (the orphan tests read the process table, /proc).

Python agents live in a module written into each test's project; ``cmd:`` agents are small
Python scripts. Tests that need a process of their own (SIGTERM, a busy loop that spins until
the process exits) run ``python -m perturb`` as a subprocess.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perturb.run.agents.cmd import MAX_STDOUT_BYTES, agent_env
from perturb.testing.suite import make_suite, read_trials
from tests.fault_helpers import assert_clean

runner = CliRunner()
TASKS = [
    {"id": "a1", "prompt": "Say hi.", "expected": "hi", "grader": "contains"},
    {"id": "b2", "prompt": "Say yo.", "expected": "yo", "grader": "contains"},
]
REPO = Path(__file__).resolve().parent.parent


MODULE = "bad_agents_m1"


def project(tmp_path: Path, agents: str = "") -> Path:
    """A frozen suite; ``agents`` becomes a module of the project under a fresh name (tests
    share one process, and a module is imported once), returned by :func:`module`."""
    make_suite(tmp_path, TASKS)
    name = f"{MODULE}_{uuid.uuid4().hex[:10]}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(agents))
    (tmp_path / "module.txt").write_text(name)
    return tmp_path / "fixtures/demo.jsonl"


def module(fx: Path) -> str:
    return (fx.parent.parent / "module.txt").read_text()


def run_cli(fx: Path, agent: str, *extra: str, code: int = 0, env: dict[str, str] | None = None) -> Any:
    result = runner.invoke(
        app_(),
        [
            "run",
            str(fx),
            "--agent",
            agent,
            "--trials",
            "2",
            "--out",
            str(fx.parent.parent / "runs/r"),
            *extra,
        ],
        env=env,
    )
    assert_clean(result)
    assert result.exit_code == code, result.output
    return result


def app_() -> Any:
    from perturb.cli import app

    return app


def trials(fx: Path) -> list[dict[str, Any]]:
    return read_trials(fx.parent.parent / "runs/r/trials.jsonl")


def marked(marker: str) -> list[int]:
    """Pids of live processes whose command line holds ``marker`` (the process table)."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            out.append(int(name))
    return out


def wait_until(predicate: Any, timeout: float = 20.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


# --------------------------------------------------------------------------- item 8


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("import sys\n    sys.exit(3)", "SystemExit: 3 (bad_agents_m1_"),
        ("raise KeyboardInterrupt('x')", "KeyboardInterrupt: x (bad_agents_m1_"),
        ("class Boom(BaseException):\n        pass\n    raise Boom('b')", "Boom: b (bad_agents_m1_"),
        ("import asyncio\n    raise asyncio.CancelledError()", "CancelledError (bad_agents_m1_"),
    ],
)
@pytest.mark.parametrize("kind", ["def", "async def"])
def test_item8_any_base_exception_is_an_errored_trial(
    tmp_path: Path, body: str, error: str, kind: str
) -> None:
    fx = project(tmp_path, f"{kind} agent(prompt, request):\n    {body}\n")
    result = run_cli(fx, f"{module(fx)}:agent")
    assert "4 errored" in result.stdout
    rows = trials(fx)
    assert len(rows) == 4
    for row in rows:
        assert row["outcome"] == "errored" and row["error_kind"] == "exception"
        assert row["error"].startswith(error), row["error"]
    again = run_cli(fx, f"{module(fx)}:agent", "--retry-errored")  # the rerun does not die either
    assert "4 errored" in again.stdout


# --------------------------------------------------------------------------- item 9


def test_item9_an_async_agent_that_blocks_its_loop_errors_the_trial(tmp_path: Path) -> None:
    fx = project(
        tmp_path,
        """
        import time
        async def agent(prompt, request):
            time.sleep(2.5)
            return "hi yo"
        """,
    )
    started = time.monotonic()
    run_cli(fx, f"{module(fx)}:agent", "--timeout", "1", "--concurrency", "4")
    wall = time.monotonic() - started
    rows = trials(fx)
    assert len(rows) == 4 and all(r["outcome"] == "errored" for r in rows)
    assert all(r["error_kind"] == "blocked" for r in rows), [r["error"] for r in rows]
    assert all(
        r["error"].startswith("timed out after 1 s: the agent blocked its event loop for ")
        for r in rows
        if "timed out" in r["error"]
    )
    assert all(r["latency_s"] < 2.0 for r in rows)  # not 2.5: the timeout was enforced
    assert wall < 15


@pytest.mark.slow
def test_item9_an_async_busy_loop_does_not_hang_the_run(tmp_path: Path) -> None:
    fx = project(tmp_path, "async def agent(prompt, request):\n    while True:\n        pass\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "perturb",
            "run",
            str(fx),
            "--agent",
            f"{module(fx)}:agent",
            "--trials",
            "3",
            "--timeout",
            "1",
            "--out",
            str(tmp_path / "runs/r"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 0, proc.stderr
    rows = trials(fx)
    assert len(rows) == 6 and all(r["outcome"] == "errored" for r in rows)
    assert {r["error_kind"] for r in rows} == {"blocked"}


# --------------------------------------------------------------------------- item 10


def test_item10_deeply_nested_output_is_malformed_not_a_crash(tmp_path: Path) -> None:
    fx = project(
        tmp_path,
        """
        def agent(prompt, request):
            out = []
            for _ in range(100_000):
                out = [out]
            return out
        """,
    )
    run_cli(fx, f"{module(fx)}:agent")
    rows = trials(fx)
    assert len(rows) == 4
    assert {(r["outcome"], r["error_kind"], r["error"]) for r in rows} == {
        (
            "errored",
            "malformed",
            "the agent's output or trace is nested deeper than 100 levels (expected at most 100)",
        )
    }


def test_item10_deeply_nested_stdout_of_a_cmd_agent(tmp_path: Path) -> None:
    fx = project(tmp_path)
    script = tmp_path / "deep.py"
    script.write_text(
        "import sys\nsys.stdin.read()\nprint('{\"output\": ' + '[' * 100000 + ']' * 100000 + '}')\n"
    )
    run_cli(fx, f"cmd:{sys.executable} {script}")
    rows = trials(fx)
    assert len(rows) == 4
    for r in rows:
        assert (r["outcome"], r["error_kind"]) == ("errored", "malformed")
        assert r["error"].startswith("stdout line 1: nested deeper than 100 levels (expected at most 100): ")


# --------------------------------------------------------------------------- item 7


ENV_AGENT = """
import json, os, sys
sys.stdin.read()
print(json.dumps({"output": "hi yo", "trace": {"env": sorted(os.environ), "key": os.environ.get("OPENAI_API_KEY")}}))
"""


def test_item7_cmd_agents_get_an_environment_allowlist(tmp_path: Path) -> None:
    fx = project(tmp_path)
    script = tmp_path / "env_agent.py"
    script.write_text(ENV_AGENT)
    env = {"OPENAI_API_KEY": "sk-Zq7", "MY_TOOL_TOKEN": "t0k", "PERTURB_TEST_OTHER": "x"}
    run_cli(fx, f"cmd:{sys.executable} {script}", "--pass-env", "MY_TOOL_TOKEN", env=env)
    seen = trials(fx)[0]["trace"]
    assert "OPENAI_API_KEY" not in seen["env"] and "PERTURB_TEST_OTHER" not in seen["env"]
    assert "MY_TOOL_TOKEN" in seen["env"] and "PATH" in seen["env"]
    assert seen["key"] is None


def test_item7_a_short_key_passed_on_purpose_is_still_redacted(tmp_path: Path) -> None:
    fx = project(tmp_path)
    script = tmp_path / "env_agent.py"
    script.write_text(ENV_AGENT)
    run_cli(
        fx, f"cmd:{sys.executable} {script}", "--pass-env", "OPENAI_API_KEY", env={"OPENAI_API_KEY": "Zq7"}
    )
    raw = (tmp_path / "runs/r/trials.jsonl").read_text() + (tmp_path / "runs/r/manifest.json").read_text()
    assert "Zq7" not in raw
    assert trials(fx)[0]["trace"]["key"] == "[REDACTED]"


def test_agent_env_is_the_allowlist(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    monkeypatch.setenv("LC_TIME", "C")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "a")
    env = agent_env(("AWS_SECRET_ACCESS_KEY",))
    assert "OPENAI_API_KEY" not in env and env["LC_TIME"] == "C" and env["AWS_SECRET_ACCESS_KEY"] == "a"
    assert "OPENAI_API_KEY" not in agent_env()


# --------------------------------------------------------------------------- item 12


def test_item12_stdout_is_capped_and_the_error_names_the_cap(tmp_path: Path) -> None:
    fx = project(tmp_path)
    script = tmp_path / "flood.py"
    script.write_text(
        "import sys\nsys.stdin.read()\nchunk = b'x' * 65536\nwhile True:\n    sys.stdout.buffer.write(chunk)\n"
    )
    started = time.monotonic()
    run_cli(fx, f"cmd:{sys.executable} {script}", "--timeout", "60")
    assert time.monotonic() - started < 30  # ended by the cap, not the 60 s timeout
    rows = trials(fx)
    assert len(rows) == 4
    for r in rows:
        assert (r["outcome"], r["error_kind"]) == ("errored", "output_too_large")
        assert r["error"] == (
            f"stdout exceeded the {MAX_STDOUT_BYTES // 2**20} MiB cap (MAX_STDOUT_BYTES; expected one "
            "JSON answer); the process was killed"
        )


# --------------------------------------------------------------------------- item 11


def test_item11_a_child_holding_stdout_does_not_turn_an_answer_into_a_timeout(tmp_path: Path) -> None:
    marker = f"perturb-orphan-{uuid.uuid4().hex}"
    fx = project(tmp_path)
    script = tmp_path / "holder.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import json, subprocess, sys
            sys.stdin.read()
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "{marker}"])  # inherits stdout
            print(json.dumps({{"output": "hi yo"}}), flush=True)
            """
        )
    )
    run_cli(fx, f"cmd:{sys.executable} {script}", "--timeout", "20")
    rows = trials(fx)
    assert [r["outcome"] for r in rows] == ["passed"] * 4, [r["error"] for r in rows]
    assert all(r["latency_s"] < 5 for r in rows)
    assert wait_until(lambda: not marked(marker), 10), marked(marker)


def test_item11_a_child_that_calls_setsid_does_not_outlive_its_trial(tmp_path: Path) -> None:
    marker = f"perturb-orphan-{uuid.uuid4().hex}"
    fx = project(tmp_path)
    script = tmp_path / "detach.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import json, subprocess, sys
            sys.stdin.read()
            subprocess.Popen(
                [sys.executable, "-c", "import time; time.sleep(60)", "{marker}"],
                start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            print(json.dumps({{"output": "hi yo"}}))
            """
        )
    )
    run_cli(fx, f"cmd:{sys.executable} {script}")
    assert [r["outcome"] for r in trials(fx)] == ["passed"] * 4
    assert wait_until(lambda: not marked(marker), 10), marked(marker)


@pytest.mark.slow
def test_item11_sigterm_kills_every_cmd_agent(tmp_path: Path) -> None:
    marker = f"perturb-orphan-{uuid.uuid4().hex}"
    fx = project(tmp_path)
    script = tmp_path / "slow.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import subprocess, sys, time
            sys.stdin.read()
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "{marker}"], start_new_session=True)
            time.sleep(60)
            """
        )
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "perturb",
            "run",
            str(fx),
            "--agent",
            f"cmd:{sys.executable} {script} {marker}",
            "--trials",
            "3",
            "--concurrency",
            "6",
            "--timeout",
            "120",
            "--out",
            str(tmp_path / "runs/r"),
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert wait_until(lambda: len(marked(marker)) >= 12, 60), marked(marker)  # 6 agents + 6 children
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted: work done so far is saved" in err
    assert "Traceback" not in err
    assert wait_until(lambda: not marked(marker), 10), marked(marker)


# --------------------------------------------------------------------------- item 18


def test_item18_base_url_port_out_of_range_is_one_line(tmp_path: Path) -> None:
    fx = project(tmp_path)
    result = runner.invoke(
        app_(),
        ["run", str(fx), "--agent", "openai:m", "--base-url", "http://127.0.0.1:99999/v1", "--trials", "1"],
        env={"OPENAI_API_KEY": "sk-test-key"},
    )
    assert_clean(result)
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: --base-url http://127.0.0.1:99999/v1: Port out of range 0-65535 (expected "
        "http(s)://HOST[:PORT]/v1 with a port in 1-65535)"
    )
    assert not (tmp_path / "runs").exists()
    assert json.loads((tmp_path / "fixtures/demo.lock.json").read_text())["suite"] == "demo"
