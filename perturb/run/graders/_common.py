"""What graders share: reading JSON out of an output, paths, JSON equality, short quotes."""

from __future__ import annotations

import json
import re
from typing import Any

GradeResult = tuple[bool, str | None]
"""``(passed, note)``: the note says why, when there is something to say."""

_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n(.*?)```", re.DOTALL)
NOT_JSON = object()
"""What :func:`parse_json_output` returns for an output that holds no JSON."""


def short(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = repr(text) if isinstance(value, str) else text
    return text if len(text) <= limit else text[: limit - 3] + "..."


def as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def parse_json_output(output: Any) -> Any:
    """The output as JSON: non-text values as they are; text parsed as a whole, else the
    first fenced ```` ```json ```` (or plain ```` ``` ````) block. ``NOT_JSON`` if neither."""
    if not isinstance(output, str):
        return output
    try:
        return json.loads(output)
    except ValueError:
        pass
    for match in _FENCE.finditer(output):
        try:
            return json.loads(match.group(1))
        except ValueError:
            continue
    return NOT_JSON


def walk_path(value: Any, path: str) -> tuple[bool, Any]:
    current = value
    for part in path.split("."):
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.lstrip("-").isdigit():
            index = int(part)
            if not -len(current) <= index < len(current):
                return False, None
            current = current[index]
        else:
            return False, None
    return True, current


def same(a: Any, b: Any) -> bool:
    """JSON equality where ``true`` is not ``1`` (Python says it is)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
