"""Faults of an OpenAI-compatible server, against the local server in perturb/testing/chat.py.

What tests/test_llm_generate.py and tests/test_agents.py already cover is not repeated here
(generator: 429 with Retry-After, 500, a slow reply, truncated JSON, giving up; agent: 429 with
Retry-After, 5xx then success, 401/400, giving up). Added: 429 without Retry-After, a field
renamed (``choices`` -> ``choice``) or missing (``content``), a slow reply and a truncated
body for the agent adapter, giving up on each for both, and a whole ``perturb run`` whose
trials record the retries. Every test bounds its own time: nothing hangs.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.records import Candidate
from perturb.run.agents import AgentCallError, AgentResponse
from perturb.run.agents.openai import OpenAIAgent
from perturb.testing.chat import FakeOpenAIServer, Reply, reply_body
from perturb.testing.suite import make_suite

pytestmark = pytest.mark.slow

KEY = "sk-test-faults-0123456789abcdef"
runner = CliRunner()


def raw(reply: dict[str, Any]) -> bytes:
    return json.dumps(reply).encode()


def renamed_choices(content: str = "ok") -> Reply:
    body = reply_body("m", Reply(content=content))
    body["choice"] = body.pop("choices")
    return Reply(raw_body=raw(body))


def missing_content() -> Reply:
    body = reply_body("m", Reply(content="ok"))
    del body["choices"][0]["message"]["content"]
    return Reply(raw_body=raw(body))


TRUNCATED = Reply(raw_body=b'{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"ind')
GIVE_UP = (
    "(expected a reachable OpenAI-compatible server; check --base-url, or raise --max-retries / --timeout)"
)


# --------------------------------------------------------------------------- the agent adapter

LATE_S = 30.0
"""How late a "slow" reply comes: far past any request timeout below, so the client's timeout
fires first however slowly a loaded machine runs (the server thread is a daemon; nobody waits)."""


def deadline_for(fault: Reply, short: float) -> float:
    """The request timeout for a call meeting ``fault``: ``short`` when the fault is a late reply
    (the timeout is what is tested), else one no prompt reply can miss on a loaded machine (a
    short one would turn a slow scheduler into an extra, unscripted timeout and retry)."""
    return short if fault.delay else LATE_S


def ask(
    srv: FakeOpenAIServer, *, timeout: float = 2.0, max_retries: int = 2, base_delay: float = 0.05
) -> tuple[AgentResponse | AgentCallError, float]:
    """One call through the ``openai:m`` adapter; (response or error, seconds)."""

    async def go() -> AgentResponse | AgentCallError:
        agent = OpenAIAgent(
            spec="openai:m",
            model="m",
            api_key=KEY,
            base_url=srv.base_url,
            temperature=None,
            request_timeout=timeout,
            max_retries=max_retries,
            base_delay=base_delay,
        )
        await agent.start()
        try:
            return await agent.call({"prompt": "hi", "seed": 1, "attempt": 0})
        except AgentCallError as exc:
            return exc
        finally:
            await agent.aclose()

    started = time.perf_counter()
    out = asyncio.run(go())
    return out, time.perf_counter() - started


@pytest.mark.parametrize(
    ("name", "fault", "min_wait"),
    [
        ("429 without Retry-After", Reply(status=429), 0.2),  # backs off base_delay * 2**0
        ("slow reply past the timeout", Reply(content="late", delay=LATE_S), 0.4),
        ("truncated JSON body", TRUNCATED, 0.0),
        ("choices renamed to choice", renamed_choices(), 0.0),
        ("content missing", missing_content(), 0.0),
    ],
)
def test_agent_retries_a_fault_then_succeeds_and_counts_it(
    fake_openai: Callable[..., FakeOpenAIServer], name: str, fault: Reply, min_wait: float
) -> None:
    srv = fake_openai(script=[fault], default=lambda body: Reply(content="fine"))
    resp, elapsed = ask(srv, timeout=deadline_for(fault, 0.4), base_delay=0.2)
    assert isinstance(resp, AgentResponse), resp
    assert resp.output == "fine"
    assert resp.trace["retries"] == 1 and len(srv.requests) == 2
    assert min_wait <= elapsed < LATE_S / 2, name  # backed off, and did not wait for the late reply


@pytest.mark.parametrize(
    ("fault", "last_error"),
    [
        (lambda: Reply(status=429), "HTTP 429: scripted error 429"),
        (lambda: Reply(content="late", delay=LATE_S), "timed out"),
        (lambda: TRUNCATED, "malformed reply (Unterminated string starting at: line 1 column 64 (char 63))"),
        (renamed_choices, "malformed reply (no choices (expected choices[0].message in a chat completion))"),
        (
            missing_content,
            "malformed reply (choices[0].message has no content (finish_reason 'stop'; "
            "expected the answer as text))",
        ),
    ],
    ids=["429", "timeout", "truncated", "renamed", "no-content"],
)
def test_agent_gives_up_within_the_bound_with_a_clear_error(
    fake_openai: Callable[..., FakeOpenAIServer], fault: Callable[[], Reply], last_error: str
) -> None:
    srv = fake_openai(default=lambda body: fault())
    timeout = deadline_for(fault(), 0.3)
    err, elapsed = ask(srv, timeout=timeout, max_retries=2, base_delay=0.01)
    assert isinstance(err, AgentCallError)
    assert err.kind == "api"
    assert str(err) == f"model 'm': gave up after 3 attempts; last error: {last_error} {GIVE_UP}"
    assert len(srv.requests) == 3
    assert elapsed < LATE_S / 2  # three attempts and two short waits, never a late reply: no hang


# --------------------------------------------------------------------------- the generator

TASK = {
    "id": "flight",
    "prompt": "Book me a flight to Delhi on Friday, economy class.",
    "expected": "ok",
    "grader": "exact",
    "slots": {"destination": "Delhi", "day": "Friday"},
}
GOOD = json.dumps({"variants": [{"text": "Please book me a flight to Delhi on Friday, economy class."}]})


def generate(tmp_path: Path, srv: FakeOpenAIServer, *extra: str) -> tuple[Any, float]:
    (tmp_path / "tasks").mkdir(exist_ok=True)
    path = tmp_path / "tasks" / "desk.jsonl"
    path.write_text(json.dumps(TASK) + "\n")
    started = time.perf_counter()
    result = runner.invoke(
        app,
        [
            "generate",
            str(path),
            "--generator",
            "llm",
            "--model",
            "m-test",
            "--base-url",
            srv.base_url,
            "--classes",
            "paraphrase",
            "--per-class",
            "1",
            *extra,
        ],
        env={"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": ""},
    )
    return result, time.perf_counter() - started


def only_candidate(tmp_path: Path) -> Candidate:
    [line] = (tmp_path / "review/desk/candidates.jsonl").read_text().splitlines()
    return Candidate.model_validate_json(line)


@pytest.mark.parametrize(
    ("fault", "min_wait"),
    [(Reply(status=429), 0.5), (renamed_choices(GOOD), 0.5), (missing_content(), 0.5)],
    ids=["429-no-retry-after", "renamed", "no-content"],
)
def test_generator_retries_a_fault_and_records_it_in_provenance(
    tmp_path: Path, fake_openai: Callable[..., FakeOpenAIServer], fault: Reply, min_wait: float
) -> None:
    srv = fake_openai(script=[fault], default=lambda body: Reply(content=GOOD))
    result, elapsed = generate(tmp_path, srv)
    assert result.exit_code == 0, result.stderr
    cand = only_candidate(tmp_path)
    assert cand.generator.retries == 1 and len(srv.requests) == 2
    assert cand.text == "Please book me a flight to Delhi on Friday, economy class."
    assert min_wait <= elapsed < 5.0  # the default first backoff is 0.5 s


@pytest.mark.parametrize(
    ("fault", "last_error"),
    [
        (
            lambda: renamed_choices(GOOD),
            "malformed reply (no choices (expected choices[0].message in a chat completion))",
        ),
        (missing_content, "malformed reply (empty reply (expected a JSON object with 'variants'))"),
        (lambda: Reply(content=GOOD, delay=1.0), "timed out"),
    ],
    ids=["renamed", "no-content", "timeout"],
)
def test_generator_gives_up_with_one_line_and_writes_nothing(
    tmp_path: Path,
    fake_openai: Callable[..., FakeOpenAIServer],
    fault: Callable[[], Reply],
    last_error: str,
) -> None:
    srv = fake_openai(default=lambda body: fault())
    result, elapsed = generate(tmp_path, srv, "--max-retries", "1", "--timeout", "0.3")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: model 'm-test': gave up after 2 attempts; last error: {last_error} {GIVE_UP}\n"
    )
    assert len(srv.requests) == 2
    assert not (tmp_path / "review/desk/candidates.jsonl").exists()
    assert elapsed < 2 * 0.3 + 0.5 + 2.0


# --------------------------------------------------------------------------- a whole run

FAULTS: dict[str, Callable[[], Reply]] = {
    "rate-limited": lambda: Reply(status=429),
    "rate-limited-retry-after": lambda: Reply(status=429, headers={"Retry-After": "0"}),
    "server-error": lambda: Reply(status=500),
    "truncated": lambda: TRUNCATED,
    "renamed": renamed_choices,
    "no-content": missing_content,
}


def test_a_run_records_retries_in_each_trial_and_errors_clearly(
    tmp_path: Path, fake_openai: Callable[..., FakeOpenAIServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each prompt meets one fault once, then the server answers; two prompts never get an
    answer: one always rate-limited (Retry-After: 0, so the bounded retries run out fast), one
    slower than the trial's --timeout."""
    seen: Counter[str] = Counter()
    lock = threading.Lock()

    def serve(body: dict[str, Any]) -> Reply:
        prompt = body["messages"][0]["content"]
        with lock:
            seen[prompt] += 1
            first = seen[prompt] == 1
        if prompt == "always-429":
            return Reply(status=429, headers={"Retry-After": "0"})
        if prompt == "too-slow":
            return Reply(content="ok", delay=2.5)
        if first and prompt in FAULTS:
            return FAULTS[prompt]()
        return Reply(content="ok", usage=(7, 1))

    srv = fake_openai(default=serve)
    prompts = [*FAULTS, "always-429", "too-slow"]
    tasks = [{"id": f"t{i}", "prompt": p, "expected": "ok", "grader": "exact"} for i, p in enumerate(prompts)]
    fixtures = make_suite(tmp_path / "proj", tasks)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    out = tmp_path / "proj/runs/oa"
    started = time.perf_counter()
    result = runner.invoke(
        app,
        [
            "run",
            str(fixtures),
            "--agent",
            "openai:m",
            "-n",
            "1",
            "--out",
            str(out),
            "--base-url",
            srv.base_url,
            "--timeout",
            "1.5",
            "--concurrency",
            "8",
        ],
    )
    elapsed = time.perf_counter() - started
    assert result.exit_code == 0, result.stderr
    assert elapsed < 10
    rows = {json.loads(x)["task_id"]: json.loads(x) for x in (out / "trials.jsonl").read_text().splitlines()}
    by_prompt = {prompts[int(tid[1:])]: row for tid, row in rows.items()}
    for prompt in FAULTS:
        row = by_prompt[prompt]
        assert row["outcome"] == "passed", (prompt, row["error"])
        assert row["trace"]["retries"] == 1, prompt
        assert row["usage"] == {"input_tokens": 7, "output_tokens": 1, "cost_usd": None}
    gave_up = by_prompt["always-429"]
    assert (gave_up["outcome"], gave_up["error_kind"]) == ("errored", "api")
    assert gave_up["error"] == (
        f"model 'm': gave up after 7 attempts; last error: HTTP 429: scripted error 429 {GIVE_UP}"
    )
    assert seen["always-429"] == 7  # 1 + MAX_RETRIES, then it stopped asking
    slow = by_prompt["too-slow"]
    assert (slow["outcome"], slow["error_kind"], slow["error"]) == (
        "errored",
        "timeout",
        "timed out after 1.5 s",
    )
    assert "ran 8 trials" in result.stdout and "6 passed, 0 wrong, 2 errored" in result.stdout
