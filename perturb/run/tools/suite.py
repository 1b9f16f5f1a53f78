"""A suite's tool declarations: ``tasks/<suite>.tools.toml`` beside the task file.

::

    timeout_s = 0.05        # the deadline of one tool call (default 5)
    retry_after_s = 0.05    # how long a rate limit holds (default 1)
    state = "examples.travel_tools:new_store"   # optional: factory(task) -> fresh state per trial

    [tools.lookup_booking]
    function = "examples.travel_tools:lookup_booking"    # called as function(state, **args)
    description = "Look up a booking by its reference."
    side_effect = false                                 # true: landing twice is a duplicate
    idempotency_key = "request_id"                      # optional (side-effect tools)
    parameters = { type = "object", properties = { ref = { type = "string" } }, required = ["ref"] }

``parameters`` is a JSON Schema (checked with ``jsonschema``); arguments that break it get a
400 answer. A function returns the JSON payload (status 200) or raises
:class:`perturb.run.tools.ToolError` for another status. Loading imports every function and
the state factory and checks every schema, so a bad declaration fails before the run with
``FILE: tools.NAME.FIELD: message``.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perturb.errors import InputError
from perturb.io.hashing import content_hash

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

TOOLS_SUFFIX = ".tools.toml"
DEFAULT_TIMEOUT_S = 5.0
DEFAULT_RETRY_AFTER_S = 1.0
_TOP_KEYS = ("timeout_s", "retry_after_s", "state", "tools")
_TOOL_KEYS = ("function", "description", "parameters", "side_effect", "idempotency_key")
_SPEC = re.compile(r"^([A-Za-z_][\w.]*):([A-Za-z_][\w.]*)$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
_ANY_OBJECT: dict[str, Any] = {"type": "object"}


@dataclass(frozen=True)
class ToolDecl:
    """One declared tool."""

    name: str
    function: Callable[..., Any]
    parameters: dict[str, Any] = field(default_factory=lambda: dict(_ANY_OBJECT))
    description: str = ""
    side_effect: bool = False
    idempotency_key: str | None = None
    validator: Any = None
    """A ``jsonschema`` validator of ``parameters`` (None: arguments are not checked)."""

    def check_args(self, args: dict[str, Any]) -> str | None:
        """None when ``args`` fit the schema, else the first problem."""
        if self.validator is None:
            return None
        error = next(iter(self.validator.iter_errors(args)), None)
        if error is None:
            return None
        where = ".".join(str(p) for p in error.absolute_path)
        return f"{where}: {error.message}" if where else error.message

    def openai_schema(self) -> dict[str, Any]:
        """The chat-completions ``tools`` entry of this tool."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


@dataclass(frozen=True)
class ToolSuite:
    """Every tool a suite declares, with the per-trial state factory."""

    path: Path | None
    tools: dict[str, ToolDecl]
    state_factory: Callable[[dict[str, Any]], Any] | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    retry_after_s: float = DEFAULT_RETRY_AFTER_S
    sha256: str | None = None
    """``content_hash`` of the file's declarations (recorded in the run manifest)."""

    def new_state(self, task: dict[str, Any]) -> Any:
        """A fresh state object for one trial (None when the suite declares no factory)."""
        return self.state_factory(task) if self.state_factory is not None else None


def tools_path(root: Path, suite: str) -> Path:
    """``<root>/tasks/<suite>.tools.toml``."""
    return root / "tasks" / f"{suite}{TOOLS_SUFFIX}"


def import_object(spec: str, path: str, where: str) -> Any:
    """Import ``module:attr`` (attr may be dotted, ``Class.method``); InputError when it cannot."""
    match = _SPEC.match(spec) if isinstance(spec, str) else None
    if not match:
        raise InputError(
            path, f"{spec!r} is not 'module:function' (e.g. 'examples.tools:lookup')", field=where
        )
    module_name, attr = match.groups()
    try:
        obj: Any = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - any import failure is a bad declaration
        raise InputError(
            path,
            f"cannot import {module_name!r}: {type(exc).__name__}: {exc} (expected a module importable "
            "from the project directory)",
            field=where,
        ) from None
    for part in attr.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise InputError(path, f"module {module_name!r} has no attribute {attr!r}", field=where)
    if not callable(obj):
        raise InputError(path, f"{spec} is a {type(obj).__name__}, expected a function", field=where)
    return obj


def _validator(schema: Any, path: str, where: str) -> Any:
    if not isinstance(schema, dict):
        raise InputError(path, f"expected a JSON Schema object, got {schema!r}", field=where)
    import jsonschema

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        loc = ".".join(str(p) for p in exc.absolute_path)
        raise InputError(
            path,
            f"not a valid JSON Schema: {exc.message}{f' (at {loc})' if loc else ''}",
            field=where,
        ) from None
    if schema.get("type", "object") != "object":
        raise InputError(path, "expected a schema of type 'object' (the call's arguments)", field=where)
    return cls(schema)


def _number(data: dict[str, Any], key: str, default: float, path: str) -> float:
    value = data.get(key, default)
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        raise InputError(path, f"expected a number of seconds > 0, got {value!r}", field=key)
    return float(value)


def load_tools(path: Path) -> ToolSuite:
    """Read and check a tools file (see the module docstring)."""
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(name, f"cannot read: {exc} (expected a UTF-8 TOML file)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(name, f"invalid TOML: {exc} (expected valid TOML)") from None
    unknown = [k for k in data if k not in _TOP_KEYS]
    if unknown:
        raise InputError(name, f"unknown key (expected: {', '.join(_TOP_KEYS)})", field=unknown[0])
    timeout_s = _number(data, "timeout_s", DEFAULT_TIMEOUT_S, name)
    retry_after_s = _number(data, "retry_after_s", DEFAULT_RETRY_AFTER_S, name)
    factory = import_object(data["state"], name, "state") if "state" in data else None
    table = data.get("tools", {})
    if not isinstance(table, dict) or not table:
        raise InputError(name, "expected at least one [tools.NAME] table", field="tools")
    tools: dict[str, ToolDecl] = {}
    for tool, decl in table.items():
        where = f"tools.{tool}"
        if not _NAME.match(tool):
            raise InputError(name, "a tool name is letters, digits, _ and - (at most 64)", field=where)
        if not isinstance(decl, dict):
            raise InputError(name, "expected a table", field=where)
        bad = [k for k in decl if k not in _TOOL_KEYS]
        if bad:
            raise InputError(
                name, f"unknown key (expected: {', '.join(_TOOL_KEYS)})", field=f"{where}.{bad[0]}"
            )
        if "function" not in decl:
            raise InputError(name, "missing (expected 'module:function')", field=f"{where}.function")
        function = import_object(decl["function"], name, f"{where}.function")
        schema = decl.get("parameters", dict(_ANY_OBJECT))
        validator = _validator(schema, name, f"{where}.parameters")
        side_effect = decl.get("side_effect", False)
        if not isinstance(side_effect, bool):
            raise InputError(
                name, f"expected true or false, got {side_effect!r}", field=f"{where}.side_effect"
            )
        key = decl.get("idempotency_key")
        if key is not None and not isinstance(key, str):
            raise InputError(
                name, f"expected an argument name, got {key!r}", field=f"{where}.idempotency_key"
            )
        tools[tool] = ToolDecl(
            name=tool,
            function=function,
            parameters=schema,
            description=str(decl.get("description", "")),
            side_effect=side_effect,
            idempotency_key=key,
            validator=validator,
        )
    return ToolSuite(
        path=path,
        tools=tools,
        state_factory=factory,
        timeout_s=timeout_s,
        retry_after_s=retry_after_s,
        sha256=content_hash(data),
    )


def find_tools(root: Path, suite: str) -> ToolSuite | None:
    """The suite's tools, when ``tasks/<suite>.tools.toml`` exists."""
    path = tools_path(root, suite)
    return load_tools(path) if path.is_file() else None
