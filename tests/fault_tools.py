"""A small tool suite for the fault tests: an item store with a read and two writes."""

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
    if key not in store["items"]:
        raise ToolError(404, f"no item {key}")
    return {"key": key, "value": store["items"][key], "label": f"item {key}"}


def put_item(store: dict[str, Any], key: str, value: int) -> dict[str, Any]:
    store["items"][key] = value
    store["writes"].append((key, value))
    return {"key": key, "value": value, "writes": len(store["writes"])}


def book(store: dict[str, Any], key: str, request_id: str | None = None) -> dict[str, Any]:
    store["writes"].append(("book", key))
    return {"key": key, "booking": len(store["writes"])}


TOOLS_TOML = """
timeout_s = 0.03
retry_after_s = 0.5
state = "tests.fault_tools:new_store"

[tools.get_item]
function = "tests.fault_tools:get_item"
description = "Read an item."
parameters = { type = "object", properties = { key = { type = "string" } }, required = ["key"], additionalProperties = false }

[tools.put_item]
function = "tests.fault_tools:put_item"
side_effect = true
parameters = { type = "object", properties = { key = { type = "string" }, value = { type = "integer" } }, required = ["key", "value"] }

[tools.book]
function = "tests.fault_tools:book"
side_effect = true
idempotency_key = "request_id"
parameters = { type = "object", properties = { key = { type = "string" }, request_id = { type = "string" } }, required = ["key"] }
"""
