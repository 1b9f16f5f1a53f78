"""Canonical JSON and content hashes -- a contract every fixture hash depends on.

``canonical_json(value)`` returns the bytes that are hashed. The rules, pinned by
``tests/test_hashing.py`` (changing any of them changes every fixture hash, so do not):

1. Objects: keys sorted by Unicode code point (Python's default ``str`` ordering); keys must be strings.
2. Separators: ``,`` between items and ``:`` between key and value, no whitespace anywhere.
3. Text: UTF-8, non-ASCII characters written as themselves (no ``\\uXXXX`` escapes);
   only the characters JSON requires are escaped (``"``, ``\\``, control characters).
4. Numbers: integers in plain decimal. A float with an integral value and magnitude below
   2**53 is written as that integer (``1.0`` -> ``1``, ``-0.0`` -> ``0``), so a value
   hashes the same whether a file spelled it ``1`` or ``1.0``. Other floats use Python's
   shortest round-trip ``repr`` (``0.1`` -> ``0.1``, ``1e-07`` -> ``1e-07``). NaN and
   infinities are rejected.
5. ``true``, ``false``, ``null`` as in JSON; tuples are arrays; no trailing newline.

``content_hash(value)`` is ``"sha256:" + hexdigest(canonical_json(value))``.
Pydantic models are dumped with ``model_dump(mode="json")`` first.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from pydantic import BaseModel

HASH_PREFIX = "sha256:"
_INT_SAFE = 2**53


def _normalise(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return _normalise(value.model_dump(mode="json"))
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError(f"canonical JSON cannot hold {value!r} (expected a finite number)")
        if value.is_integer() and abs(value) < _INT_SAFE:
            return int(value)
        return value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"canonical JSON keys must be strings, got {type(key).__name__}")
            out[key] = _normalise(item)
        return out
    if isinstance(value, list | tuple):
        return [_normalise(item) for item in value]
    raise TypeError(f"canonical JSON cannot hold a {type(value).__name__}")


def canonical_json(value: Any) -> bytes:
    """Return the canonical UTF-8 JSON bytes of ``value`` (rules in the module docstring)."""
    return json.dumps(
        _normalise(value),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
    ).encode("utf-8")


def sha256_bytes(data: bytes) -> str:
    """``"sha256:<hex>"`` of raw bytes."""
    return HASH_PREFIX + hashlib.sha256(data).hexdigest()


def content_hash(value: Any) -> str:
    """``"sha256:<hex>"`` of ``canonical_json(value)``."""
    return sha256_bytes(canonical_json(value))


def short_id(value: Any, length: int = 12) -> str:
    """The first ``length`` hex digits of ``content_hash(value)``: stable, content-derived ids."""
    return content_hash(value)[len(HASH_PREFIX) : len(HASH_PREFIX) + length]
