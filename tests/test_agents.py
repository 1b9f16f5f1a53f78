"""Each agent adapter: Python callables, subprocess commands, OpenAI-compatible models."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from perturb.errors import AgentLoadError
from perturb.io.secrets import public_url
from perturb.run.agents import (
    AgentCallError,
    AgentFatalError,
    AgentResponse,
    load_agent,
    response_from_stdout,
)
from perturb.run.agents.openai import OpenAIAgent
from perturb.testing.chat import Reply

SCRIPT = Path(__file__).with_name("agent_script.py")


def request(prompt: str = "hello", task_id: str = "t1", attempt: int = 0, **meta: Any) -> dict:
    return {
        "prompt": prompt,
        "task_id": task_id,
        "variant_id": f"{task_id}/canonical",
        "perturbation": "canonical",
        "attempt": attempt,
        "seed": 1234,
        "temperature": 0.3,
        "metadata": meta,
    }


def call(spec: str, *requests: dict, **kw: Any) -> list[AgentResponse]:
    """Load the agent, start it, call it once per request in order, close it."""

    async def go() -> list[AgentResponse]:
        agent = load_agent(spec, **kw)
        await agent.start()
        try:
            return [await agent.call(r) for r in requests]
        finally:
            await agent.aclose()

    return asyncio.run(go())


# ------------------------------------------------------------------ python callables


def test_python_sync_gets_prompt_and_request() -> None:
    [resp] = call("tests.sample_agents:echo", request("hi", attempt=2))
    assert resp.output == {"prompt": "hi", "attempt": 2, "seed": 1234}
    assert resp.trace is None and resp.usage is None


def test_python_one_argument_and_async() -> None:
    assert call("tests.sample_agents:prompt_only", request("abc"))[0].output == "ABC"
    assert call("tests.sample_agents:async_echo", request("abc"))[0].output == "abc"


def test_python_trace_and_usage() -> None:
    [resp] = call("tests.sample_agents:with_trace", request("flights to Oslo"))
    assert resp.output == "done"
    assert resp.trace == [{"tool": "search", "args": {"q": "flights to Oslo"}}, {"observation": "3 results"}]
    assert resp.usage == {"input_tokens": 12, "output_tokens": 4, "cost_usd": 0.0003}


def test_python_bad_usage_is_malformed() -> None:
    with pytest.raises(AgentCallError, match=r"usage.tokens: unknown key") as info:
        call("tests.sample_agents:bad_usage", request())
    assert info.value.kind == "malformed"


def test_plain_function_keeps_state_factory_gives_fresh_state() -> None:
    shared = call("tests.sample_agents:shared_counter", request(), request(), request())
    assert [r.output for r in shared] == [1, 2, 3]
    fresh = call("tests.sample_agents:make_counter()", request(), request(), request())
    assert [r.output for r in fresh] == [1, 1, 1]
    fresh_async = call("tests.sample_agents:make_async_counter()", request(), request())
    assert [r.output for r in fresh_async] == [1, 1]
    per_class = call("tests.sample_agents:Counter()", request(), request())
    assert [r.output for r in per_class] == [1, 1]


def test_python_crash_is_an_exception_error_naming_it() -> None:
    with pytest.raises(AgentCallError) as info:
        call("tests.sample_agents:crash", request(task_id="t7"))
    assert info.value.kind == "exception"
    assert str(info.value).startswith("ValueError: tool failed for t7 (sample_agents.py:")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("tests.no_such_module:f", "no module named 'tests.no_such_module'"),
        ("tests.sample_agents:nope", "module 'tests.sample_agents' has no attribute 'nope'"),
        ("tests.sample_agents:NOT_CALLABLE", "'NOT_CALLABLE' is a int, expected a function"),
        ("tests.sample_agents:Counter", "'Counter' is a class; write 'tests.sample_agents:Counter()'"),
        ("not-a-spec", "expected 'module:function', 'module:factory()'"),
        ("not a spec", "looks like a command (expected --agent 'cmd:not a spec' to run it as a subprocess"),
    ],
)
def test_python_load_errors(spec: str, message: str) -> None:
    with pytest.raises(AgentLoadError) as info:
        load_agent(spec)
    assert message in str(info.value)


def test_project_dir_is_importable(tmp_path: Path) -> None:
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "proj_agent_t5.py").write_text("def agent(p, r):\n    return 'from project'\n")
    try:
        [resp] = call("proj_agent_t5:agent", request(), project_root=tmp_path)
        assert resp.output == "from project"
    finally:
        sys.modules.pop("proj_agent_t5", None)
        sys.path.remove(str(tmp_path.resolve()))


# ------------------------------------------------------------------ subprocess


def cmd() -> str:
    return f"cmd:{sys.executable} {SCRIPT} --flag 'two words'"


def test_subprocess_roundtrip_argv_parsed_with_shlex() -> None:
    [resp] = call(cmd(), request("plain prompt", task_id="echo"))
    assert resp.output == "plain prompt"
    assert resp.trace["argv"] == ["--flag", "two words"]


def test_subprocess_shell_metacharacters_are_not_executed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    nasty = "$(touch pwned1); `touch pwned2`; touch pwned3 && echo x > pwned4 | cat; 'q\" \\n"
    [resp] = call(cmd(), request(nasty, task_id="echo"))
    assert resp.output == nasty
    assert resp.trace["argv"] == ["--flag", "two words"]  # the text never reaches argv
    assert resp.trace["cwd_files"] == []
    assert sorted(os.listdir(tmp_path)) == []


def test_subprocess_nonzero_exit_is_errored_with_stderr_tail() -> None:
    with pytest.raises(AgentCallError) as info:
        call(cmd(), request(task_id="fail"))
    assert info.value.kind == "exit_status"
    assert str(info.value) == ("exit status 3; stderr: loading model...\nTraceback: boom in tool call")


@pytest.mark.parametrize(
    ("task_id", "message"),
    [
        (
            "garbage",
            "stdout line 1: invalid JSON: Expecting value at column 1 (expected {\"output\": ...}): 'this is not json'",
        ),
        ("noout", 'stdout JSON has no "output"'),
    ],
)
def test_subprocess_malformed_stdout(task_id: str, message: str) -> None:
    with pytest.raises(AgentCallError) as info:
        call(cmd(), request(task_id=task_id))
    assert info.value.kind == "malformed"
    assert message in str(info.value)


def test_subprocess_usage_aliases() -> None:
    [resp] = call(cmd(), request(task_id="usage"))
    assert resp.usage == {"input_tokens": 7, "output_tokens": 3, "cost_usd": 0.002}


def test_subprocess_killed_on_cancel() -> None:
    async def go() -> float:
        agent = load_agent(cmd())
        started = time.perf_counter()
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(agent.call(request(task_id="sleep")), 0.5)
        return time.perf_counter() - started

    assert asyncio.run(go()) < 5


def test_response_from_stdout_unknown_key() -> None:
    with pytest.raises(AgentCallError, match="unknown key 'ouput'"):
        response_from_stdout(b'{"output": 1, "ouput": 2}')


def test_subprocess_missing_program() -> None:
    with pytest.raises(AgentLoadError, match="program 'no-such-program-t5' not found"):
        load_agent("cmd:no-such-program-t5 --x")
    with pytest.raises(AgentLoadError, match="cannot split the command"):
        load_agent("cmd:python 'unterminated")


# ------------------------------------------------------------------ openai


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-agents-0123456789")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return "sk-test-agents-0123456789"


def test_openai_call_records_usage_trace_and_sampling(fake_openai, api_key: str) -> None:  # type: ignore[no-untyped-def]
    srv = fake_openai(script=[Reply(content="Paris", usage=(21, 2))])
    [resp] = call(
        "openai:tiny-model",
        request("Capital of France?"),
        base_url=srv.base_url,
        temperature=0.3,
    )
    assert resp.output == "Paris"
    assert resp.usage == {"input_tokens": 21, "output_tokens": 2, "cost_usd": None}
    assert resp.trace == {
        "model": "tiny-model",
        "system_fingerprint": "fp_test",
        "finish_reason": "stop",
        "retries": 0,
    }
    [body] = srv.requests
    assert body["model"] == "tiny-model"
    assert body["messages"] == [{"role": "user", "content": "Capital of France?"}]
    assert body["temperature"] == 0.3
    assert body["seed"] == 1234
    assert srv.headers[0]["authorization"] == f"Bearer {api_key}"


def test_openai_429_honours_retry_after(fake_openai, api_key: str) -> None:  # type: ignore[no-untyped-def]
    srv = fake_openai(script=[Reply(status=429, headers={"Retry-After": "0.4"}), Reply(content="ok")])
    started = time.perf_counter()
    [resp] = call("openai:m", request(), base_url=srv.base_url)
    elapsed = time.perf_counter() - started
    assert resp.output == "ok"
    assert resp.trace["retries"] == 1
    assert elapsed >= 0.4
    assert len(srv.requests) == 2


def test_openai_500_then_success(fake_openai, api_key: str) -> None:  # type: ignore[no-untyped-def]
    srv = fake_openai(script=[Reply(status=500), Reply(status=503), Reply(content="fine")])
    [resp] = call("openai:m", request(), base_url=srv.base_url)
    assert resp.output == "fine"
    assert resp.trace["retries"] == 2
    assert len(srv.requests) == 3


def test_openai_401_is_fatal_400_is_errored(fake_openai, api_key: str) -> None:  # type: ignore[no-untyped-def]
    srv = fake_openai(
        script=[
            Reply(status=401, error_message="Incorrect API key provided"),
            Reply(status=400, error_message="context too long"),
        ]
    )
    with pytest.raises(AgentFatalError) as fatal:
        call("openai:m", request(), base_url=srv.base_url)
    # perturb's prefix, then perturb.io.llm's one-line message (its wording is llm.py's)
    message = str(fatal.value)
    assert message.startswith(f"openai:m at {srv.base_url}: model 'm': the server refused ")
    assert "HTTP 401" in message and "Incorrect API key provided" in message
    with pytest.raises(AgentCallError) as err:
        call("openai:m", request(), base_url=srv.base_url)
    assert err.value.kind == "api"
    assert str(err.value).startswith("model 'm': the server refused the request with HTTP 400")
    assert "context too long" in str(err.value)


def test_openai_gives_up_after_bounded_retries(fake_openai, api_key: str) -> None:  # type: ignore[no-untyped-def]
    srv = fake_openai(default=lambda body: Reply(status=502))

    async def go() -> None:
        agent = OpenAIAgent(
            spec="openai:m",
            model="m",
            api_key=api_key,
            base_url=srv.base_url,
            temperature=None,
            request_timeout=5,
            max_retries=3,
            base_delay=0.01,
        )
        await agent.start()
        try:
            with pytest.raises(AgentCallError) as info:
                await agent.call(request())
        finally:
            await agent.aclose()
        assert info.value.kind == "api"
        assert str(info.value).startswith("model 'm': gave up after 4 attempts; last error: ")
        assert "HTTP 502" in str(info.value) and "scripted error 502" in str(info.value)

    asyncio.run(go())
    assert len(srv.requests) == 4


def test_openai_missing_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MY_KEY_T5", raising=False)
    with pytest.raises(AgentLoadError, match="environment variable MY_KEY_T5 is not set"):
        load_agent("openai:m", api_key_env="MY_KEY_T5")
    with pytest.raises(AgentLoadError, match=r"no model \(expected 'openai:MODEL'\)"):
        load_agent("openai:")


def test_openai_key_from_named_env_and_describe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY_T5", "sk-other-abcdefgh")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://user:secret@llm.example:8443/v1?key=abc")
    agent = load_agent("openai:m", api_key_env="MY_KEY_T5", temperature=0.7)
    assert agent.secrets() == ["sk-other-abcdefgh"]
    assert agent.describe() == {
        "model": "m",
        "base_url": "https://llm.example:8443/v1",
        "sampling": {"temperature": 0.7, "seed": "per-trial"},
    }


def test_public_url() -> None:
    assert public_url("http://a:b@127.0.0.1:9/v1?api-key=x#f") == "http://127.0.0.1:9/v1"
    assert public_url("https://[::1]:8000/v1") == "https://[::1]:8000/v1"
    assert public_url(None) is None
