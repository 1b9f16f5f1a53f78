"""The LLM generator through the real openai client against a local fake server."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from openai import AsyncOpenAI
from typer.testing import CliRunner

from perturb.cli import app
from perturb.errors import LLMError
from perturb.io.llm import ResponseCache, chat_with_retries, retry_after_seconds
from perturb.io.secrets import public_url
from perturb.records import Candidate
from perturb.testing.chat import FakeOpenAIServer, Reply

KEY = "sk-test-SECRET-0123456789abcdef"
TASKS = [
    {
        "id": "flight",
        "prompt": "Book me a flight to Delhi on Friday, economy class, under £300.",
        "expected": "ok",
        "grader": "exact",
        "slots": {"destination": "Delhi", "day": "Friday"},
    },
    {
        "id": "refund",
        "prompt": "I'd like a refund for order #4821. The parcel arrived damaged.",
        "expected": "ok",
        "grader": "exact",
        "slots": {"order": "#4821"},
    },
]
runner = CliRunner()


def task_of(body: dict[str, Any]) -> dict[str, Any]:
    user = body["messages"][1]["content"]
    return json.loads(re.search(r"^TASK: (.*)$", user, re.M).group(1))  # type: ignore[union-attr]


def variant_for(body: dict[str, Any]) -> dict[str, Any]:
    """A deterministic, well-formed variant per class (what a good model would send)."""
    user = body["messages"][1]["content"]
    prompt = task_of(body)["prompt"]
    if "PARAPHRASE" in user:
        return {"text": "Please " + prompt[0].lower() + prompt[1:]}
    if "REORDER" in user:
        return {"text": " ".join(reversed(re.split(r"(?<=\.) ", prompt)))}
    if "DISTRACTORS" in user:
        return {
            "text": "My cat is asleep on the sofa. " + prompt,
            "inserted": ["My cat is asleep on the sofa."],
        }
    if "SELF-CORRECTION" in user:
        if "Friday" in prompt:
            return {
                "text": prompt.replace("Friday", "Thursday — sorry, I meant Friday"),
                "slot": "day",
                "wrong": "Thursday",
                "final": "Friday",
                "phrasing": "sorry, I meant",
            }
        return {"text": prompt.replace("#4821", "#4812, no wait, #4821")}
    if "TYPOS" in user:
        return {"text": prompt.replace("like", "lkie").replace("flight", "fligth")}
    return {"text": "Kindly " + prompt[0].lower() + prompt[1:] + " Thanks in advance.", "register": "x"}


def good(body: dict[str, Any]) -> Reply:
    return Reply(content=json.dumps({"variants": [variant_for(body)]}))


def write_suite(root: Path, tasks: list[dict[str, Any]] = TASKS) -> Path:
    (root / "tasks").mkdir(parents=True, exist_ok=True)
    path = root / "tasks" / "desk.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks), "utf-8")
    return path


def run(path: Path, srv: FakeOpenAIServer, *extra: str) -> Any:
    args = [
        "generate",
        str(path),
        "--generator",
        "llm",
        "--model",
        "m-test",
        "--base-url",
        srv.base_url,
        "--seed",
        "7",
        *extra,
    ]
    return runner.invoke(app, args, env={"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": ""})


def candidates(root: Path) -> list[Candidate]:
    text = (root / "review" / "desk" / "candidates.jsonl").read_text()
    return [Candidate.model_validate_json(x) for x in text.splitlines()]


def assert_no_key_written(root: Path) -> None:
    for file in root.rglob("*"):
        if file.is_file():
            assert KEY.encode() not in file.read_bytes(), file


def test_llm_generation_records_provenance_and_is_screened(
    tmp_path: Path, fake_openai: Callable[..., FakeOpenAIServer]
) -> None:
    srv = fake_openai(default=good)
    path = write_suite(tmp_path)
    result = run(path, srv, "--per-class", "1", "--temperature", "0.4")
    assert result.exit_code == 0, result.stderr
    cands = candidates(tmp_path)
    assert len(srv.requests) == 2 * 6
    assert {c.perturbation for c in cands} == {
        "paraphrase",
        "reorder",
        "distractor",
        "self_correction",
        "typo",
        "register",
    }
    for body in srv.requests:
        assert body["model"] == "m-test" and body["temperature"] == 0.4
        assert body["response_format"] == {"type": "json_object"}
        assert isinstance(body["seed"], int)
    assert len({b["seed"] for b in srv.requests}) == len(srv.requests)
    assert all(h["authorization"] == f"Bearer {KEY}" for h in srv.headers)
    for c in cands:
        tpl = resources.files("perturb.generate").joinpath(f"templates/{c.perturbation}.txt").read_bytes()
        assert c.generator.kind == "llm" and c.generator.model == "m-test"
        assert c.generator.system_fingerprint == "fp_test" and c.generator.temperature == 0.4
        assert c.generator.seed == 7 and c.generator.retries == 0
        assert c.generator.template_sha256 == "sha256:" + hashlib.sha256(tpl).hexdigest()
    sc = {c.task_id: c for c in cands if c.perturbation == "self_correction"}
    assert sc["flight"].details["corrections"] == [
        {"slot": "day", "wrong": "Thursday", "final": "Friday", "phrasing": "sorry, I meant"}
    ]
    # ε = added words / canonical words: "Thursday — sorry, I meant" adds 4 words to 12
    assert sc["flight"].screen.passed and sc["flight"].epsilon == round(4 / 12, 4)
    # inferred from the text when the model names nothing
    assert sc["refund"].details["corrections"] == [
        {"slot": "order", "wrong": "#4812", "final": "#4821", "phrasing": "no wait,"}
    ]
    reorder = {c.task_id: c for c in cands if c.perturbation == "reorder"}
    assert reorder["refund"].text == "The parcel arrived damaged. I'd like a refund for order #4821."
    # word-weighted Kendall: segments "I'd like a refund" (4 words), "for order #4821" (3),
    # "The parcel arrived damaged" (4) -> order [2, 0, 1]: 4*4 + 4*3 = 28 discordant word
    # pairs of 11*10/2 = 55
    assert reorder["refund"].epsilon == round(28 / 55, 4)
    assert reorder["flight"].screen.flags == ["identical to the canonical prompt"]
    reg = next(c for c in cands if c.perturbation == "register")
    assert reg.details["register"] in ("formal_british", "casual_indian", "terse_us")
    info = json.loads((tmp_path / "review" / "desk" / "generation.json").read_text())
    assert info["llm"]["model"] == "m-test" and info["llm"]["base_url"] == srv.base_url
    assert_no_key_written(tmp_path)


def test_rerun_is_served_from_the_cache(tmp_path: Path, fake_openai: Callable[..., FakeOpenAIServer]) -> None:
    srv = fake_openai(default=good)
    path = write_suite(tmp_path)
    assert run(path, srv, "--classes", "paraphrase,typo").exit_code == 0
    first = (tmp_path / "review" / "desk" / "candidates.jsonl").read_bytes()
    n = len(srv.requests)
    assert n == 2 * 2 * 2
    again = run(path, srv, "--classes", "paraphrase,typo", "--concurrency", "1")
    assert again.exit_code == 0, again.stderr
    assert len(srv.requests) == n  # the server receives no second request
    assert (tmp_path / "review" / "desk" / "candidates.jsonl").read_bytes() == first
    cache_files = list((tmp_path / "review" / "desk" / "llm-cache").rglob("*.json"))
    assert len(cache_files) == n
    assert_no_key_written(tmp_path)


def _one(tmp_path: Path, srv: FakeOpenAIServer, *extra: str) -> tuple[Any, list[Candidate], float]:
    path = write_suite(tmp_path, TASKS[:1])
    start = time.perf_counter()
    result = run(path, srv, "--classes", "paraphrase", "--per-class", "1", *extra)
    elapsed = time.perf_counter() - start
    return result, (candidates(tmp_path) if result.exit_code == 0 else []), elapsed


def test_429_with_retry_after_is_honoured(
    tmp_path: Path, fake_openai: Callable[..., FakeOpenAIServer]
) -> None:
    srv = fake_openai(script=[Reply(status=429, headers={"Retry-After": "0.4"})], default=good)
    result, cands, elapsed = _one(tmp_path, srv)
    assert result.exit_code == 0, result.stderr
    assert len(srv.requests) == 2 and cands[0].generator.retries == 1
    assert elapsed >= 0.4


def test_500_then_success(tmp_path: Path, fake_openai: Callable[..., FakeOpenAIServer]) -> None:
    srv = fake_openai(script=[Reply(status=500)], default=good)
    result, cands, _ = _one(tmp_path, srv)
    assert result.exit_code == 0, result.stderr
    assert len(srv.requests) == 2 and cands[0].generator.retries == 1


def test_slow_reply_past_the_timeout_is_retried(
    tmp_path: Path, fake_openai: Callable[..., FakeOpenAIServer]
) -> None:
    slow = Reply(content=json.dumps({"variants": [{"text": "late"}]}), delay=1.5)
    srv = fake_openai(script=[slow], default=good)
    result, cands, elapsed = _one(tmp_path, srv, "--timeout", "0.4")
    assert result.exit_code == 0, result.stderr
    assert cands[0].generator.retries == 1 and cands[0].text.startswith("Please book")
    assert elapsed < 1.5 + 1.0


@pytest.mark.parametrize(
    "bad",
    [
        Reply(content='{"variants": [{"text": "Book me a fl'),  # truncated JSON content
        Reply(content='{"variants": []}'),  # valid JSON, wrong shape
        Reply(content="Sure! Here is a paraphrase."),  # not JSON
        Reply(raw_body=b'{"id": "x", "object": "chat.completion", "choices": [{"ind'),  # truncated body
    ],
)
def test_malformed_reply_is_retried(
    tmp_path: Path, fake_openai: Callable[..., FakeOpenAIServer], bad: Reply
) -> None:
    srv = fake_openai(script=[bad], default=good)
    result, cands, _ = _one(tmp_path, srv)
    assert result.exit_code == 0, result.stderr
    assert len(srv.requests) == 2 and cands[0].generator.retries == 1


def test_gives_up_with_a_clear_error(tmp_path: Path, fake_openai: Callable[..., FakeOpenAIServer]) -> None:
    srv = fake_openai(default=lambda body: Reply(status=503))
    result, _, _ = _one(tmp_path, srv, "--max-retries", "1")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: model 'm-test': gave up after 2 attempts; last error: HTTP 503: scripted error 503 "
        "(expected a reachable OpenAI-compatible server; check --base-url, or raise --max-retries / "
        "--timeout)\n"
    )
    assert len(srv.requests) == 2
    assert not (tmp_path / "review" / "desk" / "candidates.jsonl").exists()


def test_refused_request_is_not_retried_and_the_key_is_redacted(
    tmp_path: Path, fake_openai: Callable[..., FakeOpenAIServer]
) -> None:
    srv = fake_openai(
        default=lambda body: Reply(status=401, error_message=f"Incorrect API key provided: {KEY}")
    )
    result, _, _ = _one(tmp_path, srv)
    assert result.exit_code == 2 and len(srv.requests) == 1
    assert KEY not in result.stderr and KEY not in result.stdout
    assert result.stderr == (
        "error: model 'm-test': the server refused the request with HTTP 401: Incorrect API key "
        "provided: *** (not retried; check the model name, --base-url and the API key)\n"
    )
    assert_no_key_written(tmp_path)


def test_missing_model_and_missing_key(tmp_path: Path) -> None:
    path = write_suite(tmp_path)
    result = runner.invoke(app, ["generate", str(path), "--generator", "llm"], env={"OPENAI_API_KEY": KEY})
    assert result.exit_code == 2
    assert result.stderr == "error: --generator llm needs --model (the model name the server serves)\n"
    result = runner.invoke(
        app,
        ["generate", str(path), "--generator", "llm", "--model", "m"],
        env={"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""},
    )
    assert result.exit_code == 2
    assert result.stderr.startswith("error: $OPENAI_API_KEY is not set (expected an API key")


def test_concurrency_does_not_change_the_output(
    tmp_path: Path, fake_openai: Callable[..., FakeOpenAIServer]
) -> None:
    outputs = []
    for conc in ("1", "8"):
        root = tmp_path / conc
        srv = fake_openai(default=good)
        assert run(write_suite(root), srv, "--concurrency", conc).exit_code == 0
        outputs.append((root / "review" / "desk" / "candidates.jsonl").read_bytes())
    assert outputs[0] == outputs[1]


# --------------------------------------------------------------------------- the retry helper


def test_retry_after_parsing() -> None:
    assert retry_after_seconds({"retry-after": "2.5"}) == 2.5
    assert retry_after_seconds({"retry-after-ms": "1500"}) == 1.5
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None
    future = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))
    assert 25 < (retry_after_seconds({"retry-after": future}) or 0) <= 30
    assert public_url("http://user:pw@host:8000/v1") == "http://host:8000/v1"


def test_chat_with_retries_caps_waits_and_counts(fake_openai: Callable[..., FakeOpenAIServer]) -> None:
    srv = fake_openai(
        script=[
            Reply(status=429, headers={"Retry-After": "100"}),
            Reply(status=502),
            Reply(content="not json"),
        ],
        default=lambda b: Reply(content='{"ok": 1}'),
    )
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    def validate(completion: Any) -> None:
        json.loads(completion.choices[0].message.content)

    async def main() -> tuple[Any, int]:
        async with AsyncOpenAI(base_url=srv.base_url, api_key=KEY, max_retries=0) as client:
            return await chat_with_retries(
                client,
                model="m",
                messages=[{"role": "user", "content": "hi"}],
                temperature=0.0,
                seed=1,
                max_retries=4,
                timeout=5,
                validate=validate,
                max_wait=2.0,
                base_delay=0.25,
                sleep=sleep,
            )

    completion, retries = asyncio.run(main())
    assert retries == 3 and completion.choices[0].message.content == '{"ok": 1}'
    assert waits == [2.0, 0.5, 1.0]  # Retry-After capped; then 0.25 * 2**1, 0.25 * 2**2


def test_chat_with_retries_raises_llm_error_when_out_of_retries(
    fake_openai: Callable[..., FakeOpenAIServer],
) -> None:
    srv = fake_openai(default=lambda b: Reply(status=500))

    async def main() -> None:
        async with AsyncOpenAI(base_url=srv.base_url, api_key=KEY, max_retries=0) as client:
            await chat_with_retries(
                client, model="m", messages=[], temperature=None, seed=None, max_retries=2, base_delay=0.0
            )

    with pytest.raises(LLMError, match=r"gave up after 3 attempts; last error: HTTP 500"):
        asyncio.run(main())
    assert len(srv.requests) == 3 and "seed" not in srv.requests[0]


def test_cache_miss_on_damaged_entry(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = cache.key({"a": 1})
    cache.put(key, {"content": "x"})
    assert cache.get(key) == {"content": "x"}
    cache.path(key).write_text('{"content": ')
    assert cache.get(key) is None
