"""The cheap trial-line reader (``read_trial_line``) against the strict one it replaces.

``read_trial_line`` reads a line with pydantic's ``validate_json`` and keeps the result only
when ``lenient_is_strict`` finds nothing the strict parser would refuse; every other line goes
through ``Trial.model_validate(parse_trial_line(...))``. The property below generates trial
lines -- clean ones as ``perturb run`` writes them and ones with duplicate keys (at any
depth), ``NaN``, ``Infinity``, overflowing numbers, huge integers, deep nesting, colons spelt
``\\u003a``, byte-order marks, control characters, lone surrogates, bad UTF-8, type errors and
torn tails -- and requires the same verdict from both: the same trial, or the same error
with the same message, field and line.
"""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from perturb.errors import InputError
from perturb.io import jsonl
from perturb.io.jsonl import MAX_DEPTH, MAX_INT_DIGITS, lenient_is_strict
from perturb.records import Trial
from perturb.run import store
from perturb.run.store import REPORT_FIX, parse_trial_line, read_trial_line
from tests.synthetic_runs import Prompt, trial_lines

NAME = "runs/x/trials.jsonl"
_WRITE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode

BASE: dict[str, Any] = {
    **json.loads(trial_lines("demo-d1af80b5", [Prompt("a", "P", tokens=(10, 3))])[0]),
    "output": {"total": 42, "items": [1, 2, {"sku": "A-1"}]},
}
"""A trial line as `perturb run` writes it (every field), with a nested output."""


def verdict(read: Any, raw: bytes) -> tuple[Any, ...]:
    try:
        trial = read(raw, NAME, 7)
    except InputError as exc:
        return ("InputError", str(exc), exc.field, exc.line)
    except ValidationError as exc:
        return ("ValidationError", json.dumps(exc.errors(include_url=False), default=repr))
    return ("ok", repr(trial.model_dump()), sorted(trial.model_fields_set))  # repr: -0.0, 1 vs 1.0


def slow(raw: bytes, name: str, number: int) -> Trial:
    return Trial.model_validate(parse_trial_line(raw, name, number, REPORT_FIX))


# ---------------------------------------------------------------- generated JSON text

NUMBER_TEXTS = [
    "NaN", "Infinity", "-Infinity", "1e999", "-1e400", "1E308", "1.7976931348623157e308",
    "1e-400", "-0", "-0.0", "1.5e3", "0.1", "1e22", "9" * 400 + ".0", "9" * 308,
    "9" * MAX_INT_DIGITS, "9" * (MAX_INT_DIGITS + 1), "123456789012345678901234567890",
]  # fmt: skip
NUMBER = r"-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,40})?([eE][-+]?[0-9]{1,3})?"
KEYS = ["a", "b", "a:b", ":", "total", "sku", "k\u00e9y", "\U0001f600"]
TEXTS = st.one_of(
    st.sampled_from(["", "x", "a:b", "::", "sha256:0", "caf\u00e9", "\U0001f600", "line\nbreak", "\\u003a"]),
    st.text(max_size=12),
)


def _string(text: str, style: int) -> str:
    if style == 1:
        return json.dumps(text, ensure_ascii=True)  # \u escapes for everything non-ASCII
    if style == 2:
        return json.dumps(text, ensure_ascii=False).replace(":", "\\u003a")
    if style == 3:
        return json.dumps(text, ensure_ascii=False).replace(":", "\\u003A")
    return json.dumps(text, ensure_ascii=False)


@st.composite
def value_text(draw: st.DrawFn, depth: int = 0) -> str:
    """JSON text of one value; objects may repeat a key, numbers may be non-finite."""
    kinds = ["null", "bool", "int", "float", "number", "string"]
    if depth < 3:
        kinds += ["list", "object", "object"]
    kind = draw(st.sampled_from(kinds))
    if kind == "null":
        return "null"
    if kind == "bool":
        return draw(st.sampled_from(["true", "false"]))
    if kind == "int":
        return str(draw(st.integers()))
    if kind == "float":
        return repr(draw(st.floats(allow_nan=False, allow_infinity=False)))
    if kind == "number":  # long mantissas and exponents: both parsers must round alike
        return draw(st.one_of(st.sampled_from(NUMBER_TEXTS), st.from_regex(NUMBER, fullmatch=True)))
    if kind == "string":
        return _string(draw(TEXTS), draw(st.integers(0, 6)))
    sep = draw(st.sampled_from([",", ", "]))
    if kind == "list":
        items = draw(st.lists(value_text(depth + 1), max_size=4))
        return "[" + sep.join(items) + "]"
    colon = draw(st.sampled_from([":", ":", " : "]))
    keys = draw(st.lists(st.sampled_from(KEYS), max_size=4))  # repeats are duplicate keys
    parts = [_string(k, draw(st.integers(0, 6))) + colon + draw(value_text(depth + 1)) for k in keys]
    return "{" + sep.join(parts) + "}"


def _nest(text: str, levels: int) -> str:
    return "[" * levels + text + "]" * levels


@st.composite
def trial_lines(draw: st.DrawFn) -> bytes:
    fields = {key: _WRITE(value) for key, value in BASE.items()}
    for key in draw(st.lists(st.sampled_from(["output", "trace"]), max_size=2, unique=True)):
        fields[key] = draw(value_text())
    if draw(st.booleans()):
        levels = draw(st.sampled_from([MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 150, 300]))
        fields["output"] = _nest(draw(st.sampled_from(["1", "[]", "{}", '""', '{"a":[]}'])), levels)
    elif draw(st.integers(0, 5)) == 0:  # more objects and arrays than MAX_DEPTH, shallow
        item = draw(st.sampled_from(["[1]", '{"a":1}', "[[2]]"]))
        fields["trace"] = (
            "[" + ",".join([item] * draw(st.sampled_from([MAX_DEPTH - 1, MAX_DEPTH, 150]))) + "]"
        )
    if draw(st.integers(0, 3)) == 0:  # a field of the wrong type or out of range
        key = draw(
            st.sampled_from(["attempt", "retry", "lam", "outcome", "level", "seed", "usage", "tool_calls"])
        )
        fields[key] = draw(
            st.sampled_from(
                ['"3"', "3.0", "-1", "true", "1.5", '"wrong"', "{}", "[]", "NaN", "1e999", "null"]
            )
        )
    if draw(st.booleans()):
        fields["usage"] = "null"
    if draw(st.integers(0, 5)) == 0:
        fields["tool_calls"] = '[{"tool":"get:x","index":0,"fault":"rate:limit","status":429}]'
    if draw(st.integers(0, 5)) == 0:
        del fields[draw(st.sampled_from(sorted(fields)))]
    if draw(st.integers(0, 7)) == 0:
        fields["unknown"] = "1"
    parts = [f"{json.dumps(k)}:{v}" for k, v in fields.items()]
    if draw(st.integers(0, 3)) == 0:  # a top-level key repeated, anywhere
        key = draw(st.sampled_from(sorted(fields)))
        parts.insert(draw(st.integers(0, len(parts))), f"{json.dumps(key)}:{fields[key]}")
    sep = draw(st.sampled_from([",", ",", ", "]))
    text = "{" + sep.join(parts) + "}"
    if draw(st.integers(0, 9)) == 0:
        text = draw(st.sampled_from(["\ufeff", " ", "[", "\x01"])) + text
    data = (text + draw(st.sampled_from(["\n", "\n", "", "\r\n", " \n"]))).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 7)) == 0:
        data = data[: draw(st.integers(0, len(data)))]  # torn, possibly inside a character
    if draw(st.integers(0, 15)) == 0:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xed\xa0\x80", b"\x00", b"\\ud800"])) + data[at:]
    return data


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trial_lines())
def test_cheap_reader_gives_the_strict_readers_verdict(raw: bytes) -> None:
    try:
        lenient = Trial.__pydantic_validator__.validate_json(raw)
    except ValidationError:
        event("pydantic refuses")
    else:
        event("screen passes" if lenient_is_strict(raw, lenient) else "screen fires")
    assert verdict(read_trial_line, raw) == verdict(slow, raw)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trial_lines())
def test_the_screen_without_the_c_encoder_gives_the_same_verdicts(raw: bytes) -> None:
    """Where Python has no C JSON encoder the screen walks objects and arrays itself."""
    with mock.patch.object(jsonl, "_C_ENCODE", None):
        assert verdict(read_trial_line, raw) == verdict(slow, raw)


# ---------------------------------------------------------------- the fast path is taken


def test_clean_lines_take_the_fast_path_and_equal_the_strict_result() -> None:
    """Lines as ``perturb run`` writes them pass the screen (so the check is not always the
    slow one), including colons inside strings, tool calls and unicode."""
    lines = [
        dict(BASE),
        dict(BASE, output="Note: 10:30", error="timed out: 5 s", grader_note="x:y"),
        dict(BASE, output={"a:b": [{"c": "d:e"}, None, 1.5, "\u00e9\U0001f600"]}, trace=[{"role": "user"}]),
        dict(
            BASE,
            lam=0.5,
            tool_calls=[{"tool": "get:x", "index": 0, "fault": "rate:limit", "status": 429}],
            duplicated_side_effects=0,
        ),
        {k: v for k, v in BASE.items() if k not in ("usage", "seed", "trace")},
    ]
    for obj in lines:
        raw = (_WRITE(obj) + "\n").encode()
        trial = Trial.__pydantic_validator__.validate_json(raw)
        assert lenient_is_strict(raw, trial), obj
        assert read_trial_line(raw, NAME, 1) == slow(raw, NAME, 1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"output":{"a":1,"a":2}}',
            f'{NAME}:7: duplicate key "a" in one object (expected each key once)',
        ),
        ('{"output":[NaN]}', f"{NAME}:7: NaN is not JSON (expected a finite number)"),
        ('{"output":-Infinity}', f"{NAME}:7: -Infinity is not JSON (expected a finite number)"),
        ('{"output":1e999}', f"{NAME}:7: number 1e999 is out of range (expected a finite number)"),
        (
            '{"output":' + "9" * (MAX_INT_DIGITS + 1) + "}",
            f"{NAME}:7: integer of {MAX_INT_DIGITS + 1} digits (expected at most {MAX_INT_DIGITS} digits)",
        ),
        (
            '{"output":' + _nest("1", MAX_DEPTH) + "}",
            f"{NAME}:7: nested deeper than {MAX_DEPTH} levels (expected at most {MAX_DEPTH})",
        ),
        (
            '{"output":' + _nest("[]", MAX_DEPTH - 1) + "}",
            f"{NAME}:7: nested deeper than {MAX_DEPTH} levels (expected at most {MAX_DEPTH})",
        ),
    ],
)
def test_what_the_screen_sends_to_the_strict_reader(text: str, message: str) -> None:
    """Each refusal pydantic's reader would have let through: a line otherwise valid."""
    body = {k: v for k, v in BASE.items() if k not in ("output", "usage")}  # Trial + output only
    raw = (_WRITE(body)[:-1] + "," + text[1:] + "\n").encode()
    if "9" * MAX_INT_DIGITS not in text:  # pydantic alone accepts it (it refuses huge ints itself)
        Trial.__pydantic_validator__.validate_json(raw)
    with pytest.raises(InputError) as info:
        read_trial_line(raw, NAME, 7)
    assert str(info.value) == message


def test_a_repeated_top_level_key_and_a_hidden_colon_are_refused() -> None:
    raw = (_WRITE(BASE)[:-1] + ',"outcome":"wrong"}\n').encode()
    assert Trial.__pydantic_validator__.validate_json(raw).outcome == "wrong"  # last wins silently
    with pytest.raises(InputError) as info:
        read_trial_line(raw, NAME, 3)
    assert str(info.value) == f'{NAME}:3: duplicate key "outcome" in one object (expected each key once)'
    # a duplicate whose missing key is made up for by a colon spelt \u003a is still found
    raw = (_WRITE(dict(BASE, output={"a": "x\\u003ay"}))[:-1] + ',"retry":0}\n').encode()
    raw = raw.replace(b"x\\\\u003ay", b"x\\u003ay")
    with pytest.raises(InputError) as info:
        read_trial_line(raw, NAME, 3)
    assert str(info.value) == f'{NAME}:3: duplicate key "retry" in one object (expected each key once)'


def test_report_reads_through_the_cheap_reader() -> None:
    from perturb.report import results

    assert results.read_trial_line is store.read_trial_line
