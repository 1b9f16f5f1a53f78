"""``openai:MODEL``: an OpenAI-compatible chat-completions model as the agent.

One ``AsyncOpenAI`` client serves the whole run (its connection pool is shared by all
trials). The prompt is sent as a single user message; ``temperature`` (when given) and the
trial's seed are sent as sampling parameters. The key comes from ``OPENAI_API_KEY`` or the
variable named by ``--api-key-env``; the base URL from ``--base-url`` or ``OPENAI_BASE_URL``.

Retries come from :func:`perturb.io.llm.chat_with_retries` (the client's own are switched off):
a 429 waits for ``Retry-After`` / ``retry-after-ms`` when the server sends one, 5xx, 408/409,
timeouts, connection errors and malformed replies (truncated JSON, no ``choices``, a message
without content) back off exponentially, at most ``MAX_RETRIES`` retries; the
count is recorded in the trial's trace (``trace.retries``). 401, 403 and 404 stop the run
(every trial would fail the same way); other refusals, and giving up, make the trial
``errored`` with kind ``api``.

Tools: in a run with a tool layer whose suite declares tools, perturb runs the
function-calling loop itself. The suite's tools go to the model as ``tools`` (their JSON
Schemas); every ``tool_calls`` entry of a reply is answered through the trial's
:class:`~perturb.run.tools.ToolClient` (so faults are injected exactly as for any other agent)
and sent back as a ``tool`` message ``{"status", "retry_after"?, "body"}`` -- a truncated body
stays truncated, a timeout is ``{"error": "timeout ..."}``. The loop ends at the first reply
without tool calls (its content is the output) or, after ``MAX_TOOL_TURNS`` replies that all
asked for tools, with an ``errored`` trial of kind ``tool_turns``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from perturb.errors import AgentLoadError, LLMError, UsageError
from perturb.io.llm import NO_KEY, OPENAI_URL, preflight, resolve_api_key, resolve_base_url
from perturb.io.secrets import public_url
from perturb.run.agents import AgentCallError, AgentFatalError, AgentResponse
from perturb.run.agents.spec import AgentSettings, AgentSpec

MAX_RETRIES = 6
BASE_DELAY_S = 0.5
MAX_WAIT_S = 120.0
MAX_TOOL_TURNS = 12
"""Model replies per trial in the function-calling loop (a bound on a looping model)."""
FATAL_STATUS = (401, 403, 404)
"""Refusals that stop the run: a bad key, missing permission, an unknown model or URL."""


def require_content(completion: Any) -> None:
    """Raise ValueError (retried as a malformed reply) when the first choice has no text,
    unless the model refused or a content filter stopped it (those are answers)."""
    choice = completion.choices[0]
    message = choice.message
    if (
        message.content is None
        and not getattr(message, "refusal", None)
        and (choice.finish_reason != "content_filter")
    ):
        raise ValueError(
            f"choices[0].message has no content (finish_reason {choice.finish_reason!r}; "
            "expected the answer as text)"
        )


async def complete(
    client: Any,
    *,
    what: str,
    model: str,
    messages: list[dict[str, Any]],
    temperature: float | None,
    seed: int | None,
    timeout: float | None,
    max_retries: int = MAX_RETRIES,
    base_delay: float = BASE_DELAY_S,
    tools: list[dict[str, Any]] | None = None,
) -> tuple[Any, int]:
    """One chat completion through :func:`perturb.io.llm.chat_with_retries`; ``(completion,
    retries)``. Raises :class:`AgentFatalError` for 401/403/404 and :class:`AgentCallError`
    (kind ``api``) for other failures."""
    from perturb.io.llm import chat_with_retries

    extra: dict[str, Any] = {"tools": tools} if tools is not None else {}
    try:
        return await chat_with_retries(
            client,
            model=model,
            messages=messages,
            temperature=temperature,
            seed=seed,
            timeout=timeout,
            max_retries=max_retries,
            base_delay=base_delay,
            max_wait=MAX_WAIT_S,
            validate=require_content if tools is None else _content_or_tool_calls,
            **extra,
        )
    except LLMError as exc:
        if exc.status in FATAL_STATUS:
            raise AgentFatalError(f"{what}: {exc}") from None
        raise AgentCallError("api", str(exc)) from None


def _content_or_tool_calls(completion: Any) -> None:
    if not completion.choices[0].message.tool_calls:
        require_content(completion)


def tool_message(response: Any, deadline_s: float) -> str:
    """What the model sees of a tool's answer."""
    if response.timed_out:
        return json.dumps({"error": f"timeout: no answer within {deadline_s:g} s"})
    out: dict[str, Any] = {"status": response.status}
    if response.retry_after is not None:
        out["retry_after"] = response.retry_after
    out["body"] = response.body
    return json.dumps(out, ensure_ascii=False)


class OpenAIAgent:
    """The ``openai:MODEL`` adapter."""

    def __init__(
        self,
        *,
        spec: str,
        model: str,
        api_key: str,
        base_url: str | None,
        temperature: float | None,
        request_timeout: float | None,
        send_seed: bool = True,
        max_retries: int = MAX_RETRIES,
        base_delay: float = BASE_DELAY_S,
    ) -> None:
        self.spec = spec
        self.model = model
        self._api_key = api_key
        self.base_url = base_url
        self.temperature = temperature
        self.request_timeout = request_timeout
        self.send_seed = send_seed
        self.max_retries = max_retries
        self.base_delay = base_delay
        self._client: Any = None

    @classmethod
    def from_env(
        cls,
        *,
        spec: str,
        model: str,
        base_url: str | None,
        api_key_env: str | None,
        temperature: float | None,
        request_timeout: float | None,
        max_retries: int | None = None,
    ) -> OpenAIAgent:
        env_name = api_key_env or "OPENAI_API_KEY"
        url = resolve_base_url(base_url, OPENAI_URL)
        try:
            key = resolve_api_key(env_name, url)
        except UsageError:
            raise AgentLoadError(
                f"agent {spec!r}: environment variable {env_name} is not set (expected the API "
                "key there, or name another variable with --api-key-env; a local server given "
                "with --base-url needs no key)"
            ) from None
        return cls(
            spec=spec,
            model=model,
            api_key=key,
            base_url=url,
            temperature=temperature,
            request_timeout=request_timeout,
            max_retries=MAX_RETRIES if max_retries is None else max_retries,
        )

    def preflight(self) -> None:
        """Raise :class:`AgentLoadError` (one line) when nothing listens at the base URL;
        ``perturb run`` calls it before the run directory is touched."""
        if self.base_url is None:
            return
        try:
            preflight(self.base_url, what=f"agent {self.spec!r}: the server")
        except LLMError as exc:
            raise AgentLoadError(str(exc)) from None

    async def start(self) -> None:
        from openai import AsyncOpenAI

        self._client = AsyncOpenAI(
            api_key=self._api_key,
            base_url=self.base_url,
            max_retries=0,
            timeout=self.request_timeout or 600.0,
        )

    async def call(self, request: dict[str, Any]) -> AgentResponse:
        tools = request.get("tools")
        if tools is not None and tools.names:
            return await self._tool_loop(request, tools)
        resp, retries = await complete(
            self._client,
            what=f"{self.spec} at {public_url(self.base_url)}",
            model=self.model,
            messages=[{"role": "user", "content": request["prompt"]}],
            temperature=self.temperature,
            seed=request.get("seed") if self.send_seed else None,
            timeout=self.request_timeout,
            max_retries=self.max_retries,
            base_delay=self.base_delay,
        )
        if not resp.choices:
            raise AgentCallError("malformed", "the server returned no choices")
        choice = resp.choices[0]
        usage = None
        if resp.usage is not None:
            usage = {
                "input_tokens": resp.usage.prompt_tokens,
                "output_tokens": resp.usage.completion_tokens,
                "cost_usd": None,
            }
        trace = {
            "model": resp.model,
            "system_fingerprint": resp.system_fingerprint,
            "finish_reason": choice.finish_reason,
            "retries": retries,
        }
        return AgentResponse(output=choice.message.content, trace=trace, usage=usage)

    async def _tool_loop(self, request: dict[str, Any], tools: Any) -> AgentResponse:
        """The function-calling loop (see the module docstring)."""
        schemas = [d.openai_schema() for n in tools.names if (d := tools.declaration(n)) is not None]
        messages: list[dict[str, Any]] = [{"role": "user", "content": request["prompt"]}]
        tokens_in = tokens_out = 0
        retries_total = 0
        for turn in range(1, MAX_TOOL_TURNS + 1):
            resp, retries = await complete(
                self._client,
                what=f"{self.spec} at {public_url(self.base_url)}",
                model=self.model,
                messages=messages,
                temperature=self.temperature,
                seed=request.get("seed") if self.send_seed else None,
                timeout=self.request_timeout,
                max_retries=self.max_retries,
                base_delay=self.base_delay,
                tools=schemas,
            )
            retries_total += retries
            if resp.usage is not None:
                tokens_in += resp.usage.prompt_tokens or 0
                tokens_out += resp.usage.completion_tokens or 0
            message = resp.choices[0].message
            calls = message.tool_calls or []
            if not calls:
                trace = {"model": resp.model, "turns": turn, "retries": retries_total}
                usage = {"input_tokens": tokens_in, "output_tokens": tokens_out, "cost_usd": None}
                return AgentResponse(output=message.content, trace=trace, usage=usage)
            messages.append(
                {
                    "role": "assistant",
                    "content": message.content,
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.function.name, "arguments": c.function.arguments},
                        }
                        for c in calls
                    ],
                }
            )
            for c in calls:
                messages.append(
                    {"role": "tool", "tool_call_id": c.id, "content": await self._answer(tools, c)}
                )
        raise AgentCallError(
            "tool_turns",
            f"no final answer after {MAX_TOOL_TURNS} model replies that all asked for tools "
            "(expected a reply without tool_calls)",
        )

    @staticmethod
    async def _answer(tools: Any, call: Any) -> str:
        from perturb.run.tools import UndeclaredToolError

        try:
            args = json.loads(call.function.arguments or "{}")
        except ValueError:
            args = None
        if not isinstance(args, dict):
            return json.dumps({"status": 400, "body": '{"error": "arguments are not a JSON object"}'})
        try:
            response = await asyncio.to_thread(tools.respond, call.function.name, args)
        except UndeclaredToolError as exc:
            return json.dumps({"status": 404, "body": json.dumps({"error": str(exc)})})
        return tool_message(response, tools.deadline_s)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    def describe(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "base_url": public_url(self.base_url),
            "sampling": {
                "temperature": self.temperature,
                "seed": "per-trial" if self.send_seed else None,
            },
        }

    def secrets(self) -> list[str]:
        return [] if self._api_key == NO_KEY else [self._api_key]


def _load(spec: str, rest: str, settings: AgentSettings) -> OpenAIAgent:
    model = rest.strip()
    if not model:
        raise AgentLoadError(f"agent {spec!r}: no model (expected 'openai:MODEL')")
    agent = OpenAIAgent.from_env(
        spec=spec,
        model=model,
        base_url=settings.base_url,
        api_key_env=settings.api_key_env,
        temperature=settings.temperature,
        request_timeout=settings.request_timeout,
        max_retries=settings.max_retries,
    )
    return agent


SPEC = AgentSpec(
    name="openai",
    prefix="openai:",
    summary="openai:MODEL -- an OpenAI-compatible chat-completions model",
    load=_load,
)
