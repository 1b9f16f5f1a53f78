"""Local and keyless model servers: no key needed, the base URL checked up front, a refused
connection fails before any trial, and the retry limit is an option of `run` and `generate`.
Every server here is a real HTTP server on 127.0.0.1 (or a port nothing listens on)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.testing.chat import FakeOpenAIServer, Reply
from tests.fault_helpers import assert_clean
from tests.test_llm_generate import good, write_suite

runner = CliRunner()
NO_ENV_KEYS = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}


def cli(*args: str, code: int = 0, env: dict[str, str] | None = None) -> Any:
    result = runner.invoke(app, list(args), env={**NO_ENV_KEYS, **(env or {})})
    assert_clean(result)
    assert result.exit_code == code, (result.stdout, result.stderr)
    return result


def free_port() -> int:
    """A loopback port nothing listens on (bound, then closed: connecting is refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cli("init", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    cli("freeze")
    return tmp_path


def test_openai_agent_on_a_local_server_needs_no_key(
    project: Path, fake_openai: Callable[..., FakeOpenAIServer]
) -> None:
    srv = fake_openai(default=lambda body: Reply(content='{"intent": "cancel", "order": "A-1042"}'))
    out = cli(
        "run",
        "fixtures/shop.jsonl",
        "--agent",
        "openai:m",
        "--base-url",
        srv.base_url,
        "--trials",
        "2",
        "--out",
        "runs/o",
    ).stdout
    assert "6/6 trials done (2 passed, 4 wrong, 0 errored)" in out
    assert len(srv.requests) == 6
    assert {h["authorization"] for h in srv.headers} == {"Bearer no-key"}
    manifest = json.loads((project / "runs/o/manifest.json").read_text(encoding="utf-8"))
    assert manifest["base_url"] == srv.base_url
    # the placeholder is not a secret: an output holding it is not redacted
    assert "[REDACTED]" not in (project / "runs/o/trials.jsonl").read_text(encoding="utf-8")


def test_openai_api_without_a_key_is_refused_up_front(project: Path) -> None:
    result = cli("run", "fixtures/shop.jsonl", "--agent", "openai:gpt-4o-mini", "--trials", "1", code=2)
    assert result.stderr == (
        "error: agent 'openai:gpt-4o-mini': environment variable OPENAI_API_KEY is not set (expected the "
        "API key there, or name another variable with --api-key-env; a local server given with "
        "--base-url needs no key)\n"
    )


def test_a_refused_connection_fails_the_run_before_any_trial(project: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    started = time.monotonic()
    result = cli(
        "run", "fixtures/shop.jsonl", "--agent", "openai:m", "--base-url", url, "--trials", "20", code=2
    )
    assert time.monotonic() - started < 10
    assert result.stderr == (
        f"error: agent 'openai:m': the server at {url} is unreachable: connection refused (expected an "
        "OpenAI-compatible server listening there; start it or fix --base-url; nothing was run)\n"
    )
    assert not (project / "runs").exists()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "http://127.0.0.1:99999/v1",
            "--base-url http://127.0.0.1:99999/v1: Port out of range 0-65535 (expected "
            "http(s)://HOST[:PORT]/v1 with a port in 1-65535)",
        ),
        (
            "http://127.0.0.1:0/v1",
            "--base-url http://127.0.0.1:0/v1: port 0 is out of range (expected 1-65535)",
        ),
        (
            "127.0.0.1:8000/v1",
            "--base-url 127.0.0.1:8000/v1: not an http(s) URL with a host (expected e.g. http://127.0.0.1:8000/v1)",
        ),
        (
            "ftp://127.0.0.1/v1",
            "--base-url ftp://127.0.0.1/v1: not an http(s) URL with a host (expected e.g. http://127.0.0.1:8000/v1)",
        ),
    ],
)
def test_a_bad_base_url_is_one_line_before_anything_runs(project: Path, url: str, message: str) -> None:
    result = cli(
        "run", "fixtures/shop.jsonl", "--agent", "openai:m", "--base-url", url, "--trials", "1", code=2
    )
    assert result.stderr == f"error: {message}\n"
    assert not (project / "runs").exists()
    path = write_suite(project / "gen")
    result = cli("generate", str(path), "--generator", "llm", "--model", "m", "--base-url", url, code=2)
    assert result.stderr == f"error: {message}\n"


def test_max_retries_is_an_option_of_run_and_the_message_names_it(
    project: Path, fake_openai: Callable[..., FakeOpenAIServer]
) -> None:
    srv = fake_openai(default=lambda body: Reply(status=503, error_message="loading model"))
    out = cli(
        "run",
        "fixtures/shop.jsonl",
        "--agent",
        "openai:m",
        "--base-url",
        srv.base_url,
        "--trials",
        "1",
        "--max-retries",
        "0",
        "--out",
        "runs/r",
    ).stdout
    assert "3/3 trials done (0 passed, 0 wrong, 3 errored)" in out
    assert len(srv.requests) == 3  # one attempt per trial, no retry
    trial = json.loads((project / "runs/r/trials.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert trial["error"].startswith("model 'm': gave up after 1 attempts; last error: HTTP 503")
    assert trial["error"].endswith("check --base-url, or raise --max-retries / --timeout)")
    result = cli(
        "run",
        "fixtures/shop.jsonl",
        "--agent",
        "openai:m",
        "--base-url",
        srv.base_url,
        "--trials",
        "1",
        "--max-retries",
        "-1",
        code=2,
    )
    assert result.stderr == "error: --max-retries must be >= 0, got -1\n"


def test_generate_on_a_local_server_needs_no_key_and_fails_fast_when_refused(
    tmp_path: Path, fake_openai: Callable[..., FakeOpenAIServer]
) -> None:
    srv = fake_openai(default=good)
    path = write_suite(tmp_path)
    cli(
        "generate",
        str(path),
        "--generator",
        "llm",
        "--model",
        "m",
        "--base-url",
        srv.base_url,
        "--classes",
        "typo",
        "--per-class",
        "1",
    )
    assert srv.requests and {h["authorization"] for h in srv.headers} == {"Bearer no-key"}
    url = f"http://127.0.0.1:{free_port()}/v1"
    result = cli(
        "generate",
        str(path),
        "--generator",
        "llm",
        "--model",
        "m",
        "--base-url",
        url,
        "--max-retries",
        "9",
        code=2,
    )
    assert result.stderr == (
        f"error: --generator llm: the server at {url} is unreachable: connection refused (expected an "
        "OpenAI-compatible server listening there; start it or fix --base-url; nothing was run)\n"
    )


def test_an_unreachable_judge_server_fails_before_any_trial(project: Path) -> None:
    (project / "tasks/judged.jsonl").write_text(
        '{"id": "j1", "prompt": "Where is my order A-2210?", "expected": "says where the order is", '
        '"grader": {"type": "llm_judge", "rubric": "says where order A-2210 is"}}\n',
        encoding="utf-8",
    )
    cli("freeze", "judged")
    url = f"http://127.0.0.1:{free_port()}/v1"
    result = cli(
        "run",
        "fixtures/judged.jsonl",
        "--agent",
        "agent:agent",
        "--base-url",
        url,
        "--judge-model",
        "m",
        "--trials",
        "1",
        code=2,
    )
    assert result.stderr == (
        f"error: the llm_judge server at {url} is unreachable: connection refused (expected an "
        "OpenAI-compatible server listening there; start it or fix --base-url; nothing was run)\n"
    )
    assert not (project / "runs").exists()


def test_validate_takes_root(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project.parent)
    out = cli("validate", "tasks/shop.jsonl", "--root", project.name).stdout
    assert out == f"{project.name}/tasks/shop.jsonl: ok: 3 tasks, 5 declared slots\n"
