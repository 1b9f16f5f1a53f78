"""OpenAI-compatible chat completions: bounded retries, Retry-After, validation, disk cache.

Reusable pieces (the run stage's ``openai:MODEL`` agent uses :func:`chat_with_retries`):

* :func:`chat_with_retries` -- one chat completion through an ``AsyncOpenAI`` client with
  bounded retries. Retried: HTTP 429 (waiting ``Retry-After`` / ``retry-after-ms`` when the
  server sends it, capped at ``max_wait``), 5xx, 408/409, timeouts, connection errors, a
  reply that is not a chat completion (truncated JSON, no ``choices``, no ``message``) and a
  reply that ``validate`` rejects (malformed JSON, wrong shape). Not retried: other 4xx
  (bad key, unknown model). Waits otherwise back off exponentially (``base_delay * 2**n``,
  capped). After ``max_retries`` retries it raises :class:`~perturb.errors.LLMError` with a
  one-line message naming the last failure. Returns ``(completion, retries)``. Build the
  client with ``max_retries=0`` (see :func:`make_client`) so the SDK does not retry on top.
* :func:`make_client` -- an ``AsyncOpenAI`` client from :class:`LLMSettings`: base URL from
  the setting or ``OPENAI_BASE_URL``, key from the environment variable named by
  ``api_key_env`` (default ``OPENAI_API_KEY``). The key is held by the client only: it is
  never written to any file, record, cache entry or error message (:func:`redact`).
* :class:`ResponseCache` -- one JSON file per request under ``review/<suite>/llm-cache/``,
  keyed by the sha256 of the request's defining fields (model, template sha256, task id and
  hash, class, level, seed, index, attempt, temperature); written atomically, so an
  interrupted generation resumes without paying twice and a rerun makes no request.
"""

from __future__ import annotations

import asyncio
import email.utils
import hashlib
import math
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from perturb.errors import LLMError, UsageError
from perturb.io.hashing import canonical_json
from perturb.io.inert import printable
from perturb.io.jsonl import read_json, write_json_atomic
from perturb.io.secrets import public_url as public_url_of
from perturb.io.secrets import redact

if TYPE_CHECKING:  # the SDK is imported when a client is made, so `perturb run` of a
    from openai import AsyncOpenAI  # Python agent does not pay for importing it

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 4
DEFAULT_MAX_WAIT = 30.0
DEFAULT_BASE_DELAY = 0.5


@dataclass(frozen=True)
class LLMSettings:
    """How to reach the model. Holds the *name* of the key's environment variable, never the
    key itself."""

    model: str
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.7
    timeout: float = DEFAULT_TIMEOUT
    max_retries: int = DEFAULT_MAX_RETRIES
    concurrency: int = 4
    max_wait: float = DEFAULT_MAX_WAIT
    base_delay: float = DEFAULT_BASE_DELAY
    json_mode: bool = True

    def resolved_base_url(self) -> str | None:
        return resolve_base_url(self.base_url)


OPENAI_URL = "https://api.openai.com/v1"


def resolve_base_url(explicit: str | None, default: str | None = None) -> str | None:
    """The server URL: ``--base-url``, else ``$OPENAI_BASE_URL``, else ``default``; checked
    (http or https, a host, a port in 1-65535) with a one-line :class:`UsageError`."""
    url = explicit or os.environ.get("OPENAI_BASE_URL") or default
    if url is None:
        return None
    where = "--base-url" if explicit else "$OPENAI_BASE_URL" if os.environ.get("OPENAI_BASE_URL") else "URL"
    shown = public_url_of(url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UsageError(
            f"{where} {shown}: {exc} (expected http(s)://HOST[:PORT]/v1 with a port in 1-65535)"
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"{where} {shown}: not an http(s) URL with a host (expected e.g. http://127.0.0.1:8000/v1)"
        )
    if port == 0:
        raise UsageError(f"{where} {shown}: port 0 is out of range (expected 1-65535)")
    return url


NO_KEY = "no-key"
"""What is sent as the API key to a server that needs none (not a secret: never redacted)."""

PREFLIGHT_CONNECT_S = 5.0
"""How long the preflight waits for a TCP connection before calling the server unreachable."""


def resolve_api_key(api_key_env: str | None, base_url: str | None) -> str:
    """The API key from ``$<api_key_env>`` (default ``OPENAI_API_KEY``).

    Keyless servers: when the variable is unset and the base URL is set to anything but the
    OpenAI API (Ollama, llama.cpp, vLLM, ... on any host), :data:`NO_KEY` is sent, which such
    servers ignore; a server that does want a key answers 401, which stops the run with that
    status. The OpenAI API without a key is a :class:`UsageError`. The key is only ever held
    by the client: never written to a file, record or message."""
    env = api_key_env or "OPENAI_API_KEY"
    key = os.environ.get(env)
    if key:
        return key
    if base_url is not None and urlsplit(base_url).hostname != urlsplit(OPENAI_URL).hostname:
        return NO_KEY
    raise UsageError(
        f"${env} is not set (expected an API key in that environment variable, or name another "
        "with --api-key-env; a local OpenAI-compatible server given with --base-url needs no key)"
    )


def preflight(base_url: str, *, what: str = "the model server") -> None:
    """Fail fast, before any request is paid for, when nothing listens at ``base_url``: one TCP
    connection to its host and port (nothing is sent). A refused or timed-out connection, or a
    host that does not resolve, raises :class:`LLMError` with one line naming the URL; anything
    that accepts the connection is left to the requests (and their retries). Skipped when the
    URL goes through a proxy (``HTTPS_PROXY`` / ``HTTP_PROXY``), which perturb cannot see past."""
    import socket
    import urllib.request

    parts = urlsplit(base_url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    if urllib.request.getproxies().get(parts.scheme) and not urllib.request.proxy_bypass(host):
        return
    try:
        socket.create_connection((host, port), timeout=PREFLIGHT_CONNECT_S).close()
        return
    except ConnectionRefusedError:
        reason = "connection refused"
    except socket.gaierror:
        reason = "host not found"
    except TimeoutError:
        reason = f"no connection within {PREFLIGHT_CONNECT_S:g} s"
    except OSError as exc:
        reason = f"cannot connect ({printable(exc.strerror or str(exc))})"
    raise LLMError(
        f"{what} at {public_url_of(base_url)} is unreachable: {reason} (expected an "
        "OpenAI-compatible server listening there; start it or fix --base-url; nothing was run)"
    )


def make_client(settings: LLMSettings) -> AsyncOpenAI:
    """An ``AsyncOpenAI`` client (SDK retries off: :func:`chat_with_retries` owns them); the
    key from :func:`resolve_api_key` (a local server needs none)."""
    from openai import AsyncOpenAI

    base_url = settings.resolved_base_url()
    key = resolve_api_key(settings.api_key_env, base_url)
    return AsyncOpenAI(api_key=key, base_url=base_url, max_retries=0, timeout=settings.timeout)


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``retry-after`` (seconds or HTTP date)."""
    if headers is None:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            value = float(raw_ms) / 1000.0
            return value if math.isfinite(value) and value >= 0 else None
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        value = float(raw)
        return value if math.isfinite(value) and value >= 0 else None
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _describe(exc: BaseException) -> str:
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return "timed out"
    if isinstance(exc, openai.APIConnectionError):
        return f"connection failed ({exc.__cause__ or exc})"
    if isinstance(exc, openai.APIStatusError):
        message = re.sub(r"^Error code: \d+ - ", "", str(exc.message))
        return f"HTTP {exc.status_code}: {message}"
    return str(exc)


def completion_problem(completion: Any) -> str | None:
    """Why a parsed reply is not a usable chat completion (a proxy that renamed ``choices``,
    a choice without ``message``), or None. Such replies are retried as malformed."""
    choices = getattr(completion, "choices", None)
    if not isinstance(choices, list) or not choices:
        return "no choices (expected choices[0].message in a chat completion)"
    if getattr(choices[0], "message", None) is None:
        return "choices[0] has no message (expected choices[0].message in a chat completion)"
    return None


async def chat_with_retries(
    client: AsyncOpenAI,
    *,
    model: str,
    messages: list[dict[str, Any]],
    temperature: float | None,
    seed: int | None,
    max_retries: int = DEFAULT_MAX_RETRIES,
    timeout: float | None = DEFAULT_TIMEOUT,
    response_format: dict[str, Any] | None = None,
    validate: Callable[[Any], Any] | None = None,
    max_wait: float = DEFAULT_MAX_WAIT,
    base_delay: float = DEFAULT_BASE_DELAY,
    sleep: Callable[[float], Any] = asyncio.sleep,
    **extra: Any,
) -> tuple[Any, int]:
    """One chat completion with bounded retries; returns ``(ChatCompletion, retries)``.

    ``validate(completion)`` may raise ``ValueError`` (pydantic's ``ValidationError`` is one)
    to have a malformed reply retried. ``extra`` goes to ``chat.completions.create``
    (``max_tokens``, ``top_p``, ...). Raises :class:`LLMError` when retries run out or the
    server refuses the request (4xx other than 408/409/429)."""
    import openai

    secrets = [key for key in [getattr(client, "api_key", None)] if key != NO_KEY]
    kwargs: dict[str, Any] = {"model": model, "messages": messages, **extra}
    if temperature is not None:
        kwargs["temperature"] = temperature
    if seed is not None:
        kwargs["seed"] = seed
    if response_format is not None:
        kwargs["response_format"] = response_format
    if timeout is not None:
        kwargs["timeout"] = timeout
    last = ""
    for attempt in range(max_retries + 1):
        wait: float | None = None
        try:
            completion = await client.chat.completions.create(**kwargs)
            problem = completion_problem(completion)
            if problem is not None:
                raise ValueError(problem)
            if validate is not None:
                validate(completion)
            return completion, attempt
        except openai.RateLimitError as exc:
            last = _describe(exc)
            wait = retry_after_seconds(exc.response.headers)
        except openai.APIStatusError as exc:
            if exc.status_code < 500 and exc.status_code not in (408, 409):
                raise LLMError(
                    redact(
                        f"model {model!r}: the server refused the request with {_describe(exc)} "
                        "(not retried; check the model name, --base-url and the API key)",
                        secrets,
                        "***",
                    ),
                    status=exc.status_code,
                ) from None
            last = _describe(exc)
        except openai.APIConnectionError as exc:  # includes APITimeoutError
            last = _describe(exc)
        except openai.APIError as exc:  # e.g. a body that is not a completion
            last = f"malformed reply ({type(exc).__name__}: {exc})"
        except ValueError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            last = f"malformed reply ({first})"
        if attempt == max_retries:
            break
        if wait is None:
            wait = base_delay * (2**attempt)
        await sleep(min(max(wait, 0.0), max_wait))
    raise LLMError(
        redact(
            f"model {model!r}: gave up after {max_retries + 1} attempts; last error: {last} "
            "(expected a reachable OpenAI-compatible server; check --base-url, or raise "
            "--max-retries / --timeout)",
            secrets,
            "***",
        )
    )


class ResponseCache:
    """Cached replies on disk: ``<dir>/<key[:2]>/<key>.json`` (atomic writes)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    @staticmethod
    def key(fields: dict[str, Any]) -> str:
        """sha256 hex of the canonical JSON of the request's defining fields."""
        return hashlib.sha256(canonical_json(fields)).hexdigest()

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached record, or None (a missing or unreadable entry is a miss)."""
        path = self.path(key)
        if not path.exists():
            return None
        try:
            record = read_json(path)
        except Exception:  # noqa: BLE001 - a damaged entry is re-requested, never fatal
            return None
        return record if isinstance(record, dict) and "content" in record else None

    def put(self, key: str, record: dict[str, Any]) -> None:
        write_json_atomic(self.path(key), record)
