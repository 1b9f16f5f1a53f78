"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol, for testing
an agent (or perturb's own LLM paths) through the real ``openai`` client with no network::

    from perturb.testing import FakeOpenAIServer, Reply

    with FakeOpenAIServer(script=[Reply(status=429, headers={"Retry-After": "0.1"}),
                                  Reply(content='{"variants": []}')]) as srv:
        client = AsyncOpenAI(base_url=srv.base_url, api_key="sk-test")
        ...
        assert len(srv.requests) == 2

``script`` replies are served in order; after that ``default(body)`` decides (by default a
fixed ``"ok"``). Every request body is recorded in ``requests`` (and headers, lower-cased, in ``headers``).

:func:`completion_body` is the one builder of a chat.completion response body: this server and
the benchmarks' multi-process server (``benchmarks/chat_server.py``) both answer with it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def completion_body(
    model: str,
    message: dict[str, Any],
    *,
    usage: tuple[int, int] = (9, 9),
    id: str = "chatcmpl-bench",  # noqa: A002 - the protocol's field name
    created: int = 0,
    **extra: object,
) -> dict[str, Any]:
    """A chat.completion response body holding ``message`` (``finish_reason`` follows its tool
    calls; ``usage`` is prompt and completion tokens; ``extra`` adds top-level fields such as
    ``system_fingerprint``)."""
    prompt_tokens, completion_tokens = usage
    return {
        "id": id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        **extra,
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                "logprobs": None,
                "message": message,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def completion(model: str, message: dict[str, Any], **extra: Any) -> bytes:
    """:func:`completion_body` as the bytes of a response."""
    return json.dumps(completion_body(model, message, **extra)).encode()


@dataclass
class Reply:
    """One scripted response."""

    status: int = 200
    content: str | None = "ok"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    raw_body: bytes | None = None
    system_fingerprint: str | None = "fp_test"
    usage: tuple[int, int] = (10, 5)
    error_message: str | None = None
    tool_calls: list[tuple[str, dict[str, Any]]] | None = None
    """``[(tool name, arguments)]``: the reply asks for these function calls (no content)."""


def _message(reply: Reply) -> dict[str, Any]:
    if not reply.tool_calls:
        return {"role": "assistant", "content": reply.content}
    calls = [
        {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        for i, (name, args) in enumerate(reply.tool_calls)
    ]
    return {"role": "assistant", "content": None, "tool_calls": calls}


def reply_body(model: str, reply: Reply) -> dict[str, Any]:
    """The response body :class:`FakeOpenAIServer` sends for a 200 ``reply``."""
    return completion_body(
        model,
        _message(reply),
        usage=reply.usage,
        id="chatcmpl-test",
        created=1_700_000_000,
        system_fingerprint=reply.system_fingerprint,
    )


class FakeOpenAIServer:
    """Threaded chat-completions server; use as a context manager."""

    def __init__(
        self,
        script: list[Reply] | None = None,
        default: Callable[[dict[str, Any]], Reply] | None = None,
    ) -> None:
        self.script = list(script or [])
        self.default = default or (lambda body: Reply())
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle
    def start(self) -> FakeOpenAIServer:
        """Listen on a free 127.0.0.1 port in a daemon thread; returns ``self``."""
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_invalid": raw.decode("utf-8", "replace")}
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}}, {})
                    return
                with owner._lock:
                    owner.requests.append(body)
                    owner.headers.append({k.lower(): v for k, v in self.headers.items()})
                    reply = owner.script.pop(0) if owner.script else None
                if reply is None:
                    reply = owner.default(body)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.raw_body is not None:
                    self._send_bytes(reply.status, reply.raw_body, reply.headers)
                elif reply.status == 200:
                    self._send(200, reply_body(body.get("model", "m"), reply), reply.headers)
                else:
                    message = reply.error_message or f"scripted error {reply.status}"
                    err = {"error": {"message": message, "type": "server_error", "code": None}}
                    self._send(reply.status, err, reply.headers)

            def _send(self, status: int, obj: Any, headers: dict[str, str]) -> None:
                self._send_bytes(status, json.dumps(obj).encode(), headers)

            def _send_bytes(self, status: int, data: bytes, headers: dict[str, str]) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            block_on_close = False

        self._server = Server(("127.0.0.1", 0), Handler)
        # a short poll interval: stop() returns in ~0.02 s instead of the default 0.5 s
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Shut the server down and close its socket (idempotent)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The port it listens on (once started)."""
        assert self._server is not None, "server not started"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, the ``base_url`` for an OpenAI client."""
        return f"http://127.0.0.1:{self.port}/v1"
