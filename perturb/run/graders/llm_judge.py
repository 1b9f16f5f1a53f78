"""The ``llm_judge`` grader: an OpenAI-compatible model decides whether an output passes.

The judge sees the grader's ``rubric``, the prompt the agent was given, the task's
``expected`` value and the output, and must answer with ``{"pass": bool, "reason": str}``
(temperature 0). The template below is fixed; its hash (``PROMPT_SHA256``) and the judge
model are recorded in the run manifest so a number can be traced to the judge that made it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from perturb.errors import GraderError
from perturb.io.hashing import content_hash
from perturb.io.secrets import public_url
from perturb.records import Grader
from perturb.run.agents.openai import complete
from perturb.run.graders._common import GradeResult, parse_json_output
from perturb.run.graders.spec import GradeContext, GraderSpec

JUDGE_TEMPLATE = """You are grading the answer of an AI agent. Decide only whether the answer \
satisfies the rubric; do not grade style.

Rubric:
{rubric}

The request the agent was given:
{prompt}

Reference (what a correct answer contains or equals):
{expected}

The agent's answer:
{output}

Reply with one JSON object and nothing else: {{"pass": true or false, "reason": "<one sentence>"}}"""

PROMPT_SHA256 = content_hash(JUDGE_TEMPLATE)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def render_judge_prompt(grader: Grader, expected: Any, output: Any, task_context: dict[str, Any]) -> str:
    """The exact text sent to the judge."""
    return JUDGE_TEMPLATE.format(
        rubric=grader.rubric or "",
        prompt=task_context.get("prompt", ""),
        expected=_text(expected),
        output=_text(output),
    )


def parse_verdict(content: str | None) -> GradeResult:
    """``{"pass": bool, "reason": str}`` from the judge's reply; GraderError if unusable."""
    data = parse_json_output(content or "")
    if not isinstance(data, dict) or not isinstance(data.get("pass"), bool):
        shown = (content or "")[:120]
        raise GraderError(
            f'llm_judge: the judge did not answer {{"pass": true|false, "reason": ...}}: {shown!r}'
        )
    reason = data.get("reason")
    return data["pass"], (str(reason) if reason is not None else None)


class LLMJudge:
    """Judge calls through one ``AsyncOpenAI`` client (created on first use, in the loop)."""

    def __init__(
        self, *, model: str, api_key: str, base_url: str | None, models: set[str] | None = None
    ) -> None:
        self.model = model
        self.models = set(models or {model})
        self._api_key = api_key
        self.base_url = base_url
        self._client: Any = None

    def describe(self) -> dict[str, Any]:
        """Manifest facts: the model(s), the prompt hash and the server (no credentials)."""
        return {
            "model": self.model,
            "models": sorted(self.models),
            "prompt_sha256": PROMPT_SHA256,
            "base_url": public_url(self.base_url),
            "temperature": 0,
        }

    def secrets(self) -> list[str]:
        from perturb.io.llm import NO_KEY

        return [] if self._api_key == NO_KEY else [self._api_key]

    def _new_client(self) -> Any:
        from openai import AsyncOpenAI

        return AsyncOpenAI(api_key=self._api_key, base_url=self.base_url, max_retries=0)

    async def _ask(self, client: Any, grader: Grader, prompt: str) -> GradeResult:
        model = grader.model or self.model
        resp, _ = await complete(
            client,
            what=f"llm_judge {model} at {public_url(self.base_url)}",
            model=model,
            messages=[{"role": "user", "content": prompt}],
            temperature=0,
            seed=None,
            timeout=None,
        )
        content = resp.choices[0].message.content if resp.choices else None
        return parse_verdict(content)

    async def judge(
        self, grader: Grader, expected: Any, output: Any, task_context: dict[str, Any]
    ) -> GradeResult:
        """Ask the judge (async; the client is reused across calls)."""
        if self._client is None:
            self._client = self._new_client()
        prompt = render_judge_prompt(grader, expected, output, task_context)
        return await self._ask(self._client, grader, prompt)

    def judge_sync(
        self, grader: Grader, expected: Any, output: Any, task_context: dict[str, Any]
    ) -> GradeResult:
        """Ask the judge from synchronous code (not from inside a running event loop)."""

        async def once() -> GradeResult:
            client = self._new_client()
            try:
                prompt = render_judge_prompt(grader, expected, output, task_context)
                return await self._ask(client, grader, prompt)
            finally:
                await client.close()

        return asyncio.run(once())

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


def _no_judge() -> GraderError:
    return GraderError("llm_judge grader: no judge configured (expected --judge-model and an API key)")


def _grade(grader: Grader, expected: Any, output: Any, ctx: GradeContext) -> GradeResult:
    if ctx.judge is None:
        raise _no_judge()
    return ctx.judge.judge_sync(grader, expected, output, ctx.task)


async def _grade_async(grader: Grader, expected: Any, output: Any, ctx: GradeContext) -> GradeResult:
    if ctx.judge is None:
        raise _no_judge()
    return await ctx.judge.judge(grader, expected, output, ctx.task)


def _check(grader: Grader, expected: Any, ctx: GradeContext) -> None:
    if ctx.judge is None and not ctx.offline:
        raise GraderError(
            "llm_judge grader: no judge configured (pass --judge-model MODEL, or set the "
            "grader's model, and an API key in OPENAI_API_KEY or --api-key-env)"
        )


def _validate(grader: Grader) -> None:
    if not grader.rubric:
        raise ValueError("an llm_judge grader needs a rubric (what the judge should check)")


SPEC = GraderSpec(
    name="llm_judge",
    summary="a model decides with the grader's rubric",
    grade=_grade,
    grade_async=_grade_async,
    check=_check,
    validate=_validate,
    options=frozenset({"rubric", "model"}),
    uses_judge=True,
)
