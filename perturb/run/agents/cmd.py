"""``cmd:COMMAND``: a subprocess agent, one fresh process per trial.

The command is split with :func:`shlex.split` and executed directly (never through a shell),
so nothing in a prompt can be interpreted by a shell: the request travels only as JSON on
stdin (in a run with a tool layer, with ``tools_url``: see :mod:`perturb.run.tools.http`).
The process prints ``{"output": ..., "trace"?: ..., "usage"?: {...}}`` on stdout. A
non-zero exit is an ``exit_status`` error with the tail of stderr; bad stdout is ``malformed``.
A cancelled trial (timeout) kills the whole process group.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import shutil
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perturb.errors import AgentLoadError
from perturb.run.agents import AgentCallError, AgentResponse, response_from_stdout
from perturb.run.agents.spec import AgentSpec

_STDERR_TAIL = 500


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            proc.kill()


@dataclass
class SubprocessAgent:
    """``cmd:COMMAND``: one process per trial, request on stdin, response on stdout."""

    spec: str
    argv: list[str]
    tools_over_http = True
    """A run with a tool layer serves it on a loopback URL given in the request (``tools_url``)."""

    async def start(self) -> None:
        return None

    async def call(self, request: dict[str, Any]) -> AgentResponse:
        client = request.get("tools")
        if client is not None:
            request = {k: v for k, v in request.items() if k != "tools"}
            request["tools_timeout_s"] = client.deadline_s
            request["tool_schemas"] = [
                d.openai_schema() for n in client.names if (d := client.declaration(n)) is not None
            ]
        payload = json.dumps(request, ensure_ascii=False).encode("utf-8")
        try:
            proc = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise AgentCallError(
                "exception", f"cannot start {self.argv[0]!r}: {exc.strerror or exc}"
            ) from None
        try:
            stdout, stderr = await proc.communicate(payload)
        except BaseException:
            _kill(proc)
            with contextlib.suppress(Exception):
                await asyncio.shield(proc.wait())
            raise
        if proc.returncode != 0:
            tail = stderr.decode("utf-8", "replace").strip()[-_STDERR_TAIL:]
            status = proc.returncode
            what = (
                f"killed by signal {-status}"
                if status is not None and status < 0
                else (f"exit status {status}")
            )
            raise AgentCallError("exit_status", f"{what}; stderr: {tail}" if tail else what)
        return response_from_stdout(stdout)

    async def aclose(self) -> None:
        return None

    def describe(self) -> dict[str, Any]:
        return {"model": None, "base_url": None}

    def secrets(self) -> list[str]:
        return []


def load_subprocess_agent(spec: str, command: str) -> SubprocessAgent:
    """Split ``command`` with shlex (no shell) and check that the program exists."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise AgentLoadError(f"agent {spec!r}: cannot split the command: {exc}") from None
    if not argv:
        raise AgentLoadError(f"agent {spec!r}: empty command (expected 'cmd:PROGRAM ARGS...')")
    program = argv[0]
    if shutil.which(program) is None and not (os.sep in program and Path(program).is_file()):
        raise AgentLoadError(
            f"agent {spec!r}: program {program!r} not found (expected an executable on PATH or a path to one)"
        )
    return SubprocessAgent(spec=spec, argv=argv)


SPEC = AgentSpec(
    name="cmd",
    prefix="cmd:",
    summary="cmd:COMMAND -- one fresh process per trial, request JSON on stdin, answer on stdout",
    load=lambda spec, rest, settings: load_subprocess_agent(spec, rest),
)
