"""Secrets: the one home of what counts as a secret, how it is redacted and how a URL is made
safe to record.

* :func:`env_secrets` -- the API key values in the environment (``OPENAI_API_KEY`` and the
  variable ``--api-key-env`` names).
* :func:`secret_values` -- the distinct non-empty values to redact, longest first (so a key
  that contains another is replaced whole). Keys of any length count: a short key is still
  a key.
* :func:`redact` -- ``text`` with every secret replaced by a mask.
* :func:`public_url` -- a URL without ``user:password@``, query string or fragment (any of them
  may carry a key, e.g. ``?api-key=...``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from urllib.parse import urlsplit, urlunsplit

REDACTED = "[REDACTED]"

KEY_ENV = "OPENAI_API_KEY"
"""The environment variable an OpenAI-compatible key is read from by default."""


def env_secrets(api_key_env: str | None = None) -> list[str]:
    """The values of ``OPENAI_API_KEY`` and of ``api_key_env`` (when set)."""
    names = {KEY_ENV, api_key_env or KEY_ENV}
    return [value for name in sorted(names) if (value := os.environ.get(name))]


def secret_values(values: Iterable[str | None]) -> list[str]:
    """The distinct non-empty values, longest first."""
    return sorted({v for v in values if v}, key=lambda v: (-len(v), v))


def redact(text: str, secrets: Iterable[str | None], mask: str = REDACTED) -> str:
    """``text`` with every secret (any non-empty value, longest first) replaced by ``mask``."""
    for secret in secret_values(secrets):
        if secret in text:
            text = text.replace(secret, mask)
    return text


def public_url(url: str | None) -> str | None:
    """``url`` without any ``user:password@`` part, query string or fragment: safe to record."""
    if not url:
        return url
    parts = urlsplit(url)
    if parts.username is None and parts.password is None and not parts.query and not parts.fragment:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    if port:
        host = f"{host}:{port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
