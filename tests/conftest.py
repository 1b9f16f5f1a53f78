"""Shared fixtures."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from perturb.testing.chat import FakeOpenAIServer, Reply


@pytest.fixture
def fake_openai() -> Iterator[Callable[..., FakeOpenAIServer]]:
    """A factory: ``srv = fake_openai(script=[...], default=...)`` returns a started server,
    stopped when the test ends."""
    servers: list[FakeOpenAIServer] = []

    def start(
        script: list[Reply] | None = None,
        default: Callable[[dict[str, Any]], Reply] | None = None,
    ) -> FakeOpenAIServer:
        srv = FakeOpenAIServer(script=script, default=default).start()
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        srv.stop()
