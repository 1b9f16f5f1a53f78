"""``cmd:COMMAND``: a subprocess agent, one fresh process per trial.

The command is split with :func:`shlex.split` and executed directly (never through a shell),
so nothing in a prompt can be interpreted by a shell: the request travels only as JSON on
stdin (in a run with a tool layer, with ``tools_url``: see :mod:`perturb.run.tools.http`).
The process prints ``{"output": ..., "trace"?: ..., "usage"?: {...}}`` on stdout. A
non-zero exit is an ``exit_status`` error with the tail of stderr; bad stdout is ``malformed``.

Containment (each an errored trial with a reason; the run goes on; nothing outlives it):

* Environment: an allowlist. The agent sees only :data:`BASE_ENV` (``PATH``, ``HOME``, locale,
  temp dirs, ...) and the variables named with ``--pass-env NAME``; API keys such as
  ``OPENAI_API_KEY`` are not passed unless named.
* Output: stdout is read as it arrives and capped at :data:`MAX_STDOUT_BYTES`; a process that
  writes more is killed and the trial errors naming the cap. Only the last
  :data:`STDERR_TAIL_BYTES` of stderr are kept.
* Lifetime: each process leads a new session (``start_new_session``). When it exits, stdout may
  stay open at most :data:`EXIT_GRACE_S` (a background child holding it does not turn a valid
  answer into a timeout); then, and on a timeout, cancellation or SIGTERM of ``perturb run``,
  its whole process group is killed. On Linux perturb is a child subreaper
  (``PR_SET_CHILD_SUBREAPER``), so a descendant that detached with ``setsid`` is re-parented
  to perturb when its parent exits and is killed too (:func:`sweep_orphans`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import shutil
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perturb.errors import AgentLoadError
from perturb.run.agents import AgentCallError, AgentResponse, response_from_stdout
from perturb.run.agents.spec import AgentSpec

MAX_STDOUT_BYTES = 16 * 1024 * 1024
"""The most a ``cmd:`` agent may print on stdout for one trial (16 MiB)."""
STDERR_TAIL_BYTES = 64 * 1024
"""How much of the end of stderr is kept (the error message shows its last 500 characters)."""
EXIT_GRACE_S = 0.2
"""How long stdout may stay open after the agent process exited."""
BASE_ENV = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "TMPDIR",
    "TEMP",
    "TMP",
    "PYTHONPATH",
    "VIRTUAL_ENV",
    "SYSTEMROOT",
)
"""Environment variables every ``cmd:`` agent gets (plus every ``LC_*``); anything else only
with ``--pass-env NAME``."""

_STDERR_SHOWN = 500
_CHUNK = 1 << 16
_LIVE: set[int] = set()
"""Pids of the agent processes of trials in flight (never swept as orphans)."""
_SPAWNING = 0
"""Agent processes being started (forked, not yet in ``_LIVE``): no sweep meanwhile."""


def agent_env(pass_env: tuple[str, ...] = ()) -> dict[str, str]:
    """The environment of a ``cmd:`` agent: :data:`BASE_ENV`, ``LC_*`` and ``pass_env``."""
    keep = set(BASE_ENV) | set(pass_env)
    return {k: v for k, v in os.environ.items() if k in keep or k.startswith("LC_")}


def become_subreaper() -> bool:
    """Make this process adopt orphaned descendants (Linux ``PR_SET_CHILD_SUBREAPER``)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(36, 1, 0, 0, 0) == 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def _children_of_me() -> list[tuple[int, int]]:
    """``(pid, session id)`` of every process whose parent is this process (Linux /proc)."""
    me = os.getpid()
    out = []
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as fh:
                    stat = fh.read().decode("ascii", "replace")
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2 :].split()
            if len(fields) > 3 and int(fields[1]) == me:
                out.append((int(name), int(fields[3])))
    return out


def sweep_orphans(keep: frozenset[int] = frozenset()) -> int:
    """Kill and reap the agents' orphaned descendants re-parented to this process: children
    of ours that are not a live agent process, not in ``keep`` (children that existed before
    the run) and not in our own session (so a subprocess a grader started is left alone).
    Returns how many were killed."""
    if _SPAWNING:  # a child being spawned is not in _LIVE yet: never mistake it for an orphan
        return 0
    own_session = os.getsid(0)
    killed = 0
    for pid, sid in _children_of_me():
        if pid in _LIVE or pid in keep or sid == own_session:
            continue
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            killed += 1
        with contextlib.suppress(OSError):
            os.waitpid(pid, os.WNOHANG)  # reap it if already dead; a later sweep gets the rest
    return killed


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            proc.kill()


async def _exit_of(proc: asyncio.subprocess.Process) -> int:
    """The exit status, as soon as the process exits. (``proc.wait()`` also waits for its
    pipes to close, which a background child holding stdout delays forever.)"""
    while proc.returncode is None:
        await asyncio.sleep(0.01)
    return proc.returncode


class _TooMuch(Exception):
    pass


async def _read_capped(stream: asyncio.StreamReader, buf: bytearray, cap: int) -> None:
    """Read ``stream`` into ``buf`` until EOF; raise ``_TooMuch`` beyond ``cap`` bytes."""
    while True:
        chunk = await stream.read(_CHUNK)
        if not chunk:
            return
        buf += chunk
        if len(buf) > cap:
            raise _TooMuch


async def _read_tail(stream: asyncio.StreamReader, buf: bytearray, keep: int) -> None:
    """Read ``stream`` until EOF keeping only its last ``keep`` bytes in ``buf``."""
    while True:
        chunk = await stream.read(_CHUNK)
        if not chunk:
            return
        buf += chunk
        if len(buf) > keep:
            del buf[: len(buf) - keep]


@dataclass
class SubprocessAgent:
    """``cmd:COMMAND``: one process per trial, request on stdin, response on stdout."""

    spec: str
    argv: list[str]
    tools_over_http = True
    """A run with a tool layer serves it on a loopback URL given in the request (``tools_url``)."""
    pass_env: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    subreaper: bool = False
    keep: frozenset[int] = frozenset()
    """Our children from before the run: never swept."""

    async def start(self) -> None:
        self.env = agent_env(self.pass_env)
        self.keep = frozenset(pid for pid, _ in _children_of_me())
        self.subreaper = become_subreaper()

    async def call(self, request: dict[str, Any]) -> AgentResponse:
        global _SPAWNING
        client = request.get("tools")
        if client is not None:
            request = {k: v for k, v in request.items() if k != "tools"}
            request["tools_timeout_s"] = client.deadline_s
            request["tool_schemas"] = [
                d.openai_schema() for n in client.names if (d := client.declaration(n)) is not None
            ]
        payload = json.dumps(request, ensure_ascii=False).encode("utf-8")
        _SPAWNING += 1
        try:
            proc = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                env=self.env or agent_env(self.pass_env),
            )
        except OSError as exc:
            raise AgentCallError(
                "exception", f"cannot start {self.argv[0]!r}: {exc.strerror or exc}"
            ) from None
        else:
            _LIVE.add(proc.pid)
        finally:
            _SPAWNING -= 1
        out, err = bytearray(), bytearray()
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        readers = [
            asyncio.ensure_future(_read_capped(proc.stdout, out, MAX_STDOUT_BYTES)),
            asyncio.ensure_future(_read_tail(proc.stderr, err, STDERR_TAIL_BYTES)),
        ]
        exited = asyncio.ensure_future(_exit_of(proc))
        try:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                proc.stdin.write(payload)
                await proc.stdin.drain()
            with contextlib.suppress(OSError):
                proc.stdin.close()
            done, _ = await asyncio.wait([exited, readers[0]], return_when=asyncio.FIRST_COMPLETED)
            if readers[0] in done and readers[0].exception() is not None:
                raise AgentCallError(
                    "output_too_large",
                    f"stdout exceeded the {MAX_STDOUT_BYTES // (1024 * 1024)} MiB cap "
                    "(MAX_STDOUT_BYTES; expected one JSON answer); the process was killed",
                )
            await exited
            # The process is gone; a background child may still hold stdout open.
            await asyncio.wait(readers, timeout=EXIT_GRACE_S)
            if readers[0].done() and readers[0].exception() is not None:
                raise AgentCallError(
                    "output_too_large",
                    f"stdout exceeded the {MAX_STDOUT_BYTES // (1024 * 1024)} MiB cap "
                    "(MAX_STDOUT_BYTES; expected one JSON answer); the process was killed",
                )
        finally:
            _kill_group(proc)
            for task in (*readers, exited):
                task.cancel()
            # Close the pipes first: a stray child may hold them open, and wait() returns only
            # once they are closed.
            transport = getattr(proc, "_transport", None)
            if transport is not None:
                transport.close()
            with contextlib.suppress(BaseException):
                await asyncio.shield(proc.wait())
            _LIVE.discard(proc.pid)
            if self.subreaper:
                sweep_orphans(self.keep)
        status = proc.returncode
        if status != 0:
            tail = err.decode("utf-8", "replace").strip()[-_STDERR_SHOWN:]
            what = (
                f"killed by signal {-status}"
                if status is not None and status < 0
                else f"exit status {status}"
            )
            raise AgentCallError("exit_status", f"{what}; stderr: {tail}" if tail else what)
        return response_from_stdout(bytes(out))

    async def aclose(self) -> None:
        if self.subreaper:
            for _ in range(10):  # orphans re-parent as their parents die: a few passes
                if not sweep_orphans(self.keep) and not self._orphans_left():
                    break
                await asyncio.sleep(0.05)

    def _orphans_left(self) -> bool:
        own = os.getsid(0)
        return any(sid != own and pid not in _LIVE and pid not in self.keep for pid, sid in _children_of_me())

    def describe(self) -> dict[str, Any]:
        return {"model": None, "base_url": None}

    def secrets(self) -> list[str]:
        return []


def load_subprocess_agent(spec: str, command: str, pass_env: tuple[str, ...] = ()) -> SubprocessAgent:
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
    return SubprocessAgent(spec=spec, argv=argv, pass_env=tuple(pass_env))


SPEC = AgentSpec(
    name="cmd",
    prefix="cmd:",
    summary="cmd:COMMAND -- one fresh process per trial, request JSON on stdin, answer on stdout",
    load=lambda spec, rest, settings: load_subprocess_agent(spec, rest, settings.pass_env),
)
