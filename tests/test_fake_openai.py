"""The test server itself speaks the protocol the real openai client expects."""

from __future__ import annotations

import asyncio

import openai
import pytest

from perturb.testing.chat import FakeOpenAIServer, Reply


def test_real_client_gets_scripted_replies_in_order() -> None:
    script = [
        Reply(status=429, headers={"Retry-After": "0"}),
        Reply(content='{"a": 1}', system_fingerprint="fp_x"),
    ]
    with FakeOpenAIServer(script=script) as srv:

        async def call() -> openai.types.chat.ChatCompletion:
            async with openai.AsyncOpenAI(base_url=srv.base_url, api_key="sk-t", max_retries=0) as c:
                with pytest.raises(openai.RateLimitError):
                    await c.chat.completions.create(model="m", messages=[])
                return await c.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": "hi"}]
                )

        out = asyncio.run(call())
        assert out.choices[0].message.content == '{"a": 1}'
        assert out.system_fingerprint == "fp_x"
        assert [r["model"] for r in srv.requests] == ["m", "m"]
        assert srv.requests[1]["messages"] == [{"role": "user", "content": "hi"}]
        assert srv.headers[1]["authorization"] == "Bearer sk-t"
