"""The canonical JSON contract. Changing any expected byte string here changes every fixture hash."""

from __future__ import annotations

import hashlib

import pytest

from perturb.io.hashing import canonical_json, content_hash, short_id
from perturb.records import Grader


def test_keys_sorted_and_compact_separators() -> None:
    assert canonical_json({"b": 1, "a": [1, 2], "c": {"z": None, "y": True}}) == (
        b'{"a":[1,2],"b":1,"c":{"y":true,"z":null}}'
    )


def test_key_order_does_not_change_the_hash() -> None:
    assert content_hash({"a": 1, "b": 2}) == content_hash({"b": 2, "a": 1})


def test_non_ascii_is_utf8_not_escaped() -> None:
    assert canonical_json({"city": "Zürich", "note": "₹500 — ok"}) == (
        '{"city":"Zürich","note":"₹500 — ok"}'.encode()
    )
    assert canonical_json("é") == b'"\xc3\xa9"'


def test_only_required_characters_are_escaped() -> None:
    assert canonical_json('a"b\\c\nd\u0001') == b'"a\\"b\\\\c\\nd\\u0001"'


def test_nesting_sorts_at_every_level() -> None:
    value = {"z": [{"b": 1, "a": 2}], "a": {"d": {"c": 1, "b": 2}}}
    assert canonical_json(value) == b'{"a":{"d":{"b":2,"c":1}},"z":[{"a":2,"b":1}]}'


def test_float_rule() -> None:
    assert canonical_json(1.0) == b"1"
    assert canonical_json(-0.0) == b"0"
    assert canonical_json(0.1) == b"0.1"
    assert canonical_json(1e-07) == b"1e-07"
    assert canonical_json(2.5) == b"2.5"
    assert canonical_json(1e16) == b"1e+16"  # integral but beyond 2**53: stays a float
    assert content_hash({"x": 1}) == content_hash({"x": 1.0})
    for bad in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(ValueError, match="expected a finite number"):
            canonical_json(bad)


def test_rejects_non_string_keys_and_unknown_types() -> None:
    with pytest.raises(TypeError, match="keys must be strings"):
        canonical_json({1: "a"})
    with pytest.raises(TypeError, match="cannot hold a set"):
        canonical_json({1, 2})


def test_content_hash_is_sha256_of_canonical_bytes() -> None:
    value = {"b": "ü", "a": 1.0}
    expected = hashlib.sha256(b'{"a":1,"b":"\xc3\xbc"}').hexdigest()
    assert content_hash(value) == "sha256:" + expected
    # Pinned: this literal must never change.
    assert content_hash({"id": "t1", "prompt": "Book Delhi"}) == (
        "sha256:" + hashlib.sha256(b'{"id":"t1","prompt":"Book Delhi"}').hexdigest()
    )
    assert short_id(value) == expected[:12]


def test_pydantic_models_hash_as_their_json_dump() -> None:
    grader = Grader(type="numeric", tolerance=0.5)
    assert canonical_json(grader) == canonical_json(grader.model_dump(mode="json"))
    assert canonical_json(grader).startswith(b'{"function":null,"model":null,"path":null')
