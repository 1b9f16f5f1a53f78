"""JSONL reading with FILE:LINE errors, atomic writes and durable appends."""

from __future__ import annotations

from pathlib import Path

import pytest

from perturb.errors import InputError, OutputError
from perturb.io.jsonl import Appender, loads_strict, read_jsonl, write_atomic, write_jsonl_atomic


def test_read_reports_file_line_and_reason(tmp_path: Path) -> None:
    p = tmp_path / "t.jsonl"
    p.write_bytes(b'{"a":1}\n\n[1]\n')
    with pytest.raises(InputError) as exc:
        read_jsonl(p)
    assert str(exc.value) == f"{p}:3: expected a JSON object, got an array"


def test_truncated_tail_is_an_error_or_ignored_on_request(tmp_path: Path) -> None:
    p = tmp_path / "t.jsonl"
    p.write_bytes(b'{"a":1}\n{"b":')
    with pytest.raises(InputError, match=r":2: truncated last line"):
        read_jsonl(p)
    assert read_jsonl(p, tolerate_truncated_tail=True) == [(1, {"a": 1})]


def test_bad_utf8_names_the_line(tmp_path: Path) -> None:
    p = tmp_path / "t.jsonl"
    p.write_bytes(b'{"a":1}\n{"b":"\xff"}\n')
    with pytest.raises(InputError) as exc:
        read_jsonl(p)
    assert str(exc.value) == f"{p}:2: not valid UTF-8 (byte 7 of the line; expected UTF-8 text)"


def test_write_atomic_replaces_whole_file_and_leaves_no_temp(tmp_path: Path) -> None:
    p = tmp_path / "sub" / "f.jsonl"
    write_jsonl_atomic(p, [{"b": "ü"}, {"a": 1}])
    assert p.read_bytes() == '{"b":"ü"}\n{"a":1}\n'.encode()
    write_atomic(p, "new\n")
    assert p.read_text() == "new\n"
    assert sorted(x.name for x in p.parent.iterdir()) == ["f.jsonl"]


def test_write_atomic_failure_keeps_old_file(tmp_path: Path) -> None:
    target = tmp_path / "blocker"
    target.write_text("a file where a directory is needed")
    with pytest.raises(OutputError) as exc:
        write_atomic(target / "f.txt", "new")
    assert str(exc.value).startswith(f"{target / 'f.txt'}: cannot write:")
    assert target.read_text() == "a file where a directory is needed"


def test_appender_repairs_a_torn_tail(tmp_path: Path) -> None:
    p = tmp_path / "j.jsonl"
    p.write_bytes(b'{"seq":1}\n{"seq":2,"tor')
    with Appender(p) as app:
        app.append({"seq": 2})
    assert p.read_bytes() == b'{"seq":1}\n{"seq":2}\n'
    assert [obj for _, obj in read_jsonl(p)] == [{"seq": 1}, {"seq": 2}]


def test_appender_torn_file_without_any_newline(tmp_path: Path) -> None:
    p = tmp_path / "j.jsonl"
    p.write_bytes(b'{"seq":1')
    with Appender(p) as app:
        app.append({"seq": 1})
    assert p.read_bytes() == b'{"seq":1}\n'


def test_write_atomic_gives_normal_file_modes(tmp_path: Path) -> None:
    import os

    umask = os.umask(0o022)
    os.umask(umask)
    new = tmp_path / "new.txt"
    write_atomic(new, "x")
    assert new.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0600
    kept = tmp_path / "kept.txt"
    kept.write_text("old")
    kept.chmod(0o640)
    write_atomic(kept, "new")
    assert kept.stat().st_mode & 0o777 == 0o640


# --------------------------------------------------------------------------- jsonlines at the boundary


@pytest.mark.parametrize(
    ("line", "message"),
    [
        # jsonlines itself skips one leading BOM or RFC 7464 separator; perturb refuses both
        (
            b'\xef\xbb\xbf{"a":1}',
            "starts with a byte-order mark (expected UTF-8 without BOM; re-save it without BOM)",
        ),
        (b'\x1e{"a":1}', "invalid JSON: Expecting value at column 1 (expected one JSON object per line)"),
        # jsonlines refuses a null line unless asked; perturb names what it expected
        (b"null", "expected a JSON object, got null"),
        (b'{"a":1,"a":2}', 'duplicate key "a" in one object (expected each key once)'),
        (b'{"a":NaN}', "NaN is not JSON (expected a finite number)"),
        (b'{"a":\xff}', "not valid UTF-8 (byte 6 of the line; expected UTF-8 text)"),
    ],
)
def test_lines_jsonlines_would_accept_or_word_differently(tmp_path: Path, line: bytes, message: str) -> None:
    p = tmp_path / "t.jsonl"
    p.write_bytes(b'{"ok":1}\n\n' + line + b"\n")
    with pytest.raises(InputError) as exc:
        read_jsonl(p)
    assert str(exc.value) == f"{p}:3: {message}"


def test_written_lines_are_read_back_by_plain_jsonlines(tmp_path: Path) -> None:
    import jsonlines

    p = tmp_path / "w.jsonl"
    rows = [{"text": "café\u2028", "n": 1}, {"nested": {"x": [1, 2.5, None]}}]
    write_jsonl_atomic(p, rows)
    assert p.read_bytes() == '{"text":"café\u2028","n":1}\n{"nested":{"x":[1,2.5,null]}}\n'.encode()
    with jsonlines.open(p) as reader:
        assert list(reader) == rows
    assert read_jsonl(p) == [(1, rows[0]), (2, rows[1])]


def test_a_control_character_error_says_at_once(tmp_path: Path) -> None:
    """The decoder's "Invalid control character at" already ends in "at": not "at at column"."""
    with pytest.raises(InputError) as info:
        loads_strict('"a\x01b"', "f.json")
    assert (
        str(info.value)
        == "f.json:1: invalid JSON: Invalid control character at column 3 (expected one JSON document)"
    )
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n{"a": "x\x01"}\n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_jsonl(path)
    assert str(info.value) == (
        f"{path}:2: invalid JSON: Invalid control character at column 9 (expected one JSON object per line)"
    )
