"""Python agents used by the agent and run tests (``tests.sample_agents:<name>``)."""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

from perturb.run.agents import AgentResponse


def echo(prompt: str, request: dict[str, Any]) -> Any:
    return {"prompt": prompt, "attempt": request["attempt"], "seed": request["seed"]}


def prompt_only(prompt: str) -> str:
    return prompt.upper()


async def async_echo(prompt: str, request: dict[str, Any]) -> str:
    await asyncio.sleep(0.001)
    return prompt


def with_trace(prompt: str, request: dict[str, Any]) -> AgentResponse:
    return AgentResponse(
        output="done",
        trace=[{"tool": "search", "args": {"q": prompt}}, {"observation": "3 results"}],
        usage={"input_tokens": 12, "output_tokens": 4, "cost_usd": 0.0003},
    )


def bad_usage(prompt: str, request: dict[str, Any]) -> AgentResponse:
    return AgentResponse(output="x", usage={"tokens": 5})


class Counter:
    """Stateful agent: the count shows whether state leaks between trials."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, prompt: str, request: dict[str, Any]) -> int:
        self.calls += 1
        return self.calls


_shared = Counter()


def shared_counter(prompt: str, request: dict[str, Any]) -> int:
    return _shared(prompt, request)


def make_counter() -> Counter:
    return Counter()


class AsyncCounter:
    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, prompt: str, request: dict[str, Any]) -> int:
        self.calls += 1
        await asyncio.sleep(0)
        return self.calls


async def make_async_counter() -> AsyncCounter:
    return AsyncCounter()


def crash(prompt: str, request: dict[str, Any]) -> str:
    raise ValueError(f"tool failed for {request['task_id']}")


def slow_sync(prompt: str, request: dict[str, Any]) -> str:
    time.sleep(float(request["metadata"].get("sleep", 0.5)))
    return prompt


async def slow_async(prompt: str, request: dict[str, Any]) -> str:
    await asyncio.sleep(float(request["metadata"].get("sleep", 0.5)))
    return prompt


def leak_key(prompt: str, request: dict[str, Any]) -> str:
    return f"my key is {os.environ.get('OPENAI_API_KEY')}"


def not_json(prompt: str, request: dict[str, Any]) -> Any:
    return {1, 2}


def raises_timeout_itself(prompt: str, request: dict[str, Any]) -> str:
    raise TimeoutError("upstream tool timed out")


NOT_CALLABLE = 3
