"""The loopback endpoint ``cmd:`` agents reach the tool layer through.

``perturb run`` starts one server on ``127.0.0.1`` (an ephemeral port) when the run has a tool
layer and the agent talks HTTP. Each trial gets a random token; its request carries::

    "tools_url": "http://127.0.0.1:PORT/t/TOKEN"     # POST {tools_url}/{tool} with JSON args
    "tools_timeout_s": 5.0                            # the deadline an agent should use
    "tool_schemas": [{"type": "function", ...}]      # the declared tools

``POST {tools_url}/{tool}`` with a JSON object of arguments answers exactly what the trial's
:class:`~perturb.run.tools.ToolClient` answers (status, ``Retry-After``, body -- a truncated
body stays truncated); an injected timeout answers after the deadline. ``GET {tools_url}``
lists the tools. An unknown token or tool is 404; a body that is not a JSON object is 400.
"""

from __future__ import annotations

import json
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from perturb.run.tools import ToolClient, UndeclaredToolError

_MAX_BODY = 1 << 20


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence the default log
        return None

    def _send(self, status: int, body: str, headers: dict[str, str] | None = None) -> None:
        data = body.encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the agent gave up waiting (its own timeout): nothing to answer
            pass

    def _client(self) -> tuple[ToolClient | None, str]:
        parts = self.path.strip("/").split("/")
        if len(parts) < 2 or parts[0] != "t":
            return None, ""
        client = self.server.clients.get(parts[1])
        return client, "/".join(parts[2:])

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        client, rest = self._client()
        if client is None or rest:
            self._send(404, json.dumps({"error": "unknown tools url"}))
            return
        schemas = [d.openai_schema() for n in client.names if (d := client.declaration(n)) is not None]
        self._send(200, json.dumps({"tools": schemas}))

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        client, tool = self._client()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(min(length, _MAX_BODY)) if length else b"{}"
        if client is None or not tool:
            self._send(404, json.dumps({"error": "unknown tools url"}))
            return
        try:
            args = json.loads(raw or b"{}")
        except ValueError:
            args = None
        if not isinstance(args, dict):
            self._send(400, json.dumps({"error": "expected a JSON object of arguments"}))
            return
        try:
            response = client.respond(tool, args)
        except UndeclaredToolError as exc:
            self._send(404, json.dumps({"error": str(exc)}))
            return
        self._send(response.status, response.body, response.headers)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    clients: dict[str, ToolClient]


class ToolServer:
    """The run's loopback tool endpoint (one per run, one token per trial)."""

    def __init__(self) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.clients = {}
        self._thread = threading.Thread(target=self._server.serve_forever, name="perturb-tools", daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def register(self, client: ToolClient) -> str:
        token = secrets.token_hex(12)
        self._server.clients[token] = client
        return token

    def unregister(self, token: str) -> None:
        self._server.clients.pop(token, None)

    def url(self, token: str) -> str:
        return f"http://127.0.0.1:{self.port}/t/{token}"
