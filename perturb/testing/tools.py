"""A small deterministic tool suite to exercise fault injection with: an item store with a read
(``get_item``) and two writes (``put_item``; ``book``, idempotent by ``request_id``).

:data:`TOOLS_TOML` declares it (write it to ``tasks/<suite>.tools.toml``); every item's value is
:func:`item_value` of its key, so a task can expect ``item_value(word)`` for a word of its prompt.
perturb's fault tests and ``benchmarks/bench_faults.py`` run against it."""

from __future__ import annotations

from typing import Any

from perturb.run.tools import ToolError


def item_value(key: str) -> int:
    """The value the store holds for ``key`` (what the test tasks expect)."""
    return sum(ord(c) for c in key) % 97


def new_store(task: dict[str, Any]) -> dict[str, Any]:
    """A fresh store per trial: one item per word of the prompt, no writes yet."""
    return {"items": {w: item_value(w) for w in task["prompt"].split()}, "writes": []}


def get_item(store: dict[str, Any], key: str) -> dict[str, Any]:
    """The item ``key`` (a 404 :class:`~perturb.run.tools.ToolError` when there is none)."""
    if key not in store["items"]:
        raise ToolError(404, f"no item {key}")
    return {"key": key, "value": store["items"][key], "label": f"item {key}"}


def put_item(store: dict[str, Any], key: str, value: int) -> dict[str, Any]:
    """Set item ``key`` to ``value`` (a side effect, recorded in ``writes``)."""
    store["items"][key] = value
    store["writes"].append((key, value))
    return {"key": key, "value": value, "writes": len(store["writes"])}


def book(store: dict[str, Any], key: str, request_id: str | None = None) -> dict[str, Any]:
    """Book ``key`` (a side effect the suite declares idempotent by ``request_id``)."""
    store["writes"].append(("book", key))
    return {"key": key, "booking": len(store["writes"])}


TOOLS_TOML = """
timeout_s = 0.03
retry_after_s = 0.5
state = "perturb.testing.tools:new_store"

[tools.get_item]
function = "perturb.testing.tools:get_item"
description = "Read an item."
[tools.get_item.parameters]
type = "object"
properties = { key = { type = "string" } }
required = ["key"]
additionalProperties = false

[tools.put_item]
function = "perturb.testing.tools:put_item"
side_effect = true
[tools.put_item.parameters]
type = "object"
properties = { key = { type = "string" }, value = { type = "integer" } }
required = ["key", "value"]

[tools.book]
function = "perturb.testing.tools:book"
side_effect = true
idempotency_key = "request_id"
[tools.book.parameters]
type = "object"
properties = { key = { type = "string" }, request_id = { type = "string" } }
required = ["key"]
"""
"""The suite's tool declarations (``tasks/<suite>.tools.toml``): short timeouts, so fault tests run fast."""
