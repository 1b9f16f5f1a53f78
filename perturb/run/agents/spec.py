"""The agent-adapter spec: what one adapter module exports (``SPEC = AgentSpec(...)``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perturb.run.agents import Agent


@dataclass(frozen=True)
class AgentSettings:
    """What ``perturb run`` passes every adapter besides the ``--agent`` SPEC."""

    project_root: Path | None = None
    """The project directory (the parent of ``fixtures/``); made importable for Python agents."""
    base_url: str | None = None
    """``--base-url``: an OpenAI-compatible server, for adapters that call one."""
    api_key_env: str | None = None
    """``--api-key-env``: the environment variable that holds the API key."""
    temperature: float | None = None
    """``--temperature``: sampling temperature, for adapters that sample."""
    request_timeout: float | None = None
    """``--timeout``: seconds per trial."""
    pass_env: tuple[str, ...] = ()
    """``--pass-env NAME``: environment variables a ``cmd:`` agent gets beyond its allowlist."""
    max_retries: int | None = None
    """``--max-retries``: retries per model request, for adapters that call a server (None:
    the adapter's default)."""


@dataclass(frozen=True)
class AgentSpec:
    """One kind of agent: the SPEC prefix that selects it and how it is loaded.

    ``load(spec, rest, settings)`` gets the whole ``--agent`` SPEC (for messages), the part
    after the prefix, and the run's settings, and returns an adapter with ``start``, ``call``,
    ``aclose``, ``describe`` and ``secrets`` (:class:`perturb.run.agents.Agent`); it raises
    :class:`~perturb.errors.AgentLoadError` with a one-line reason when it cannot. The adapter
    with ``prefix=""`` takes every SPEC no other prefix matches (Python callables)."""

    name: str
    prefix: str
    summary: str
    load: Callable[[str, str, AgentSettings], Agent]
