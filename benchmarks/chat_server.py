"""The benchmarks' local chat-completions server: an asyncio HTTP server in its own process (so it
does not share the GIL with the client being measured) that answers every request after a fixed
latency with what a benchmark's ``reply(body)`` returns.

A benchmark script serves with :func:`serve` when started as ``SCRIPT --serve PORT`` and starts
itself that way with :func:`running` (which waits for the port, sets a dummy ``OPENAI_API_KEY``
and stops the process afterwards). Used by bench_openai_runner.py and bench_faults.py, whose
replies are built with :func:`perturb.testing.chat.completion` (the one builder of a completion
body, which the in-process test server :class:`perturb.testing.FakeOpenAIServer` answers with too).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

Reply = Callable[[dict[str, Any]], bytes]
"""A request body -> the JSON response body."""


def serve(port: int, reply: Reply, latency_s: float) -> None:
    """Serve on 127.0.0.1:``port`` until killed: each request answered after ``latency_s``."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                body = json.loads(await reader.readexactly(length)) if length else {}
                await asyncio.sleep(latency_s)
                payload = reply(body)
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    b"Content-Length: " + str(len(payload)).encode() + b"\r\n\r\n" + payload
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def main() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=1024)
        async with server:
            await server.serve_forever()

    asyncio.run(main())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def running(script: str) -> Iterator[str]:
    """Start ``python SCRIPT --serve PORT``, wait until it accepts connections, yield its base URL
    (``http://127.0.0.1:PORT/v1``) with ``OPENAI_API_KEY`` set to a dummy; stop it afterwards."""
    port = _free_port()
    server = subprocess.Popen([sys.executable, script, "--serve", str(port)])
    os.environ["OPENAI_API_KEY"] = "sk-bench-not-a-real-key"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.terminate()
        server.wait()
