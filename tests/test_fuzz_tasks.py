"""Fuzzed task files: every input ends in exit 0 or in one-line errors with exit 2, never a traceback."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from perturb.cli import app

pytestmark = pytest.mark.slow

runner = CliRunner()

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
task_like = st.fixed_dictionaries(
    {},
    optional={
        "id": st.one_of(st.text(max_size=12), st.integers(), st.sampled_from(["t1", "t2"])),
        "prompt": st.one_of(st.text(max_size=40), st.just("Book Delhi on Friday"), st.integers()),
        "expected": json_values,
        "grader": st.one_of(
            st.sampled_from(["exact", "regex", "numeric", "contains", "json_subset", "bogus"]),
            st.dictionaries(st.sampled_from(["type", "tolerance", "function", "x"]), json_values),
        ),
        "weight": st.one_of(st.floats(allow_nan=False), st.integers(), st.text(max_size=3)),
        "slots": st.one_of(st.dictionaries(st.text(max_size=5), st.text(max_size=8)), json_values),
        "extra": json_values,
    },
)


def _line(obj: object, mangle: int) -> bytes:
    raw = json.dumps(obj).encode()
    if mangle == 1:
        return raw[: max(1, len(raw) // 2)]  # truncated
    if mangle == 2:
        return raw + b"\xff"  # bad UTF-8
    if mangle == 3:
        return b"[" + raw + b"]"  # not an object
    return raw


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(st.tuples(task_like, st.integers(0, 6)), max_size=6),
    final_newline=st.booleans(),
)
def test_validate_never_tracebacks(lines: list[tuple[dict, int]], final_newline: bool) -> None:
    body = b"\n".join(_line(obj, mangle) for obj, mangle in lines)
    if final_newline and body:
        body += b"\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.jsonl"
        path.write_bytes(body)
        result = runner.invoke(app, ["validate", str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code in (0, 2)
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        errors = result.stderr.splitlines()
        assert errors and all(e.startswith(f"error: {path}") for e in errors), errors
    else:
        assert result.stdout.startswith(f"{path}: ok: ")


def test_huge_line_is_a_clean_error(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    path.write_text(json.dumps({"id": "t", "prompt": "x" * 5_000_000, "grader": "oops"}) + "\n")
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: {path}:1: expected: missing (expected this field on every task)",
        f"error: {path}:1: grader.type: unknown grader 'oops' (expected one of: exact, normalized, "
        "contains, regex, json_subset, numeric, callable, llm_judge)",
    ]
