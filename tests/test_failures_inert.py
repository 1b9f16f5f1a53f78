"""Failing examples stay inert: a prompt, output, grader note, error and trace holding HTML,
Markdown image syntax, backticks, ANSI escapes and bidi controls are shown as text in every
report format and in ``perturb show`` (never loaded, never executed, never sent to the
terminal, never reordering the line)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from perturb.cli import app
from tests.synthetic_runs import Prompt, write_run

runner = CliRunner()
HOSTILE = (
    "\x1b]0;pwned\x07\x1b[2J \u202egnp.exe\u202c <script>alert(1)</script>"
    "<img src=https://evil.example/i.png> ![t](https://evil.example/t.png) ``` `x` end"
)
RAW = ("\x1b", "\x07", "\u202e", "\u202c")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    prompts = [
        Prompt("t1", "PPPP"),
        Prompt(
            "t1",
            "WWPP",
            "typo",
            "c-0000000000e1",
            0.1,
            0.1,
            text="Please " + HOSTILE,
            wrong_output={"answer": HOSTILE},
            note="got " + HOSTILE,
            traces={"P": ["read", "ok"], "W": ["read", HOSTILE]},
        ),
        Prompt(
            "t1", "WWWW", "typo", "c-0000000000e2", 0.1, 0.1, text=HOSTILE, wrong_output=HOSTILE, note=HOSTILE
        ),
    ]
    write_run(tmp_path / "runs", "r1", prompts, fixtures=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def report(fmt: str) -> str:
    result = runner.invoke(app, ["report", "runs/r1", "-f", fmt])
    assert result.exit_code == 0, result.output
    return result.stdout


def no_raw(text: str) -> None:
    for ch in RAW:
        assert ch not in text, repr(ch)


def test_text_report_and_show_escape_everything(project: Path) -> None:
    text = report("text")
    no_raw(text)
    assert "\\x1b]0;pwned\\x07\\x1b[2J" in text and "<script>alert(1)</script>" in text
    shown = runner.invoke(app, ["show", "runs/r1", "--failed"]).stdout
    no_raw(shown)
    assert "\\x1b]0;pwned\\x07\\x1b[2J \\u202egnp.exe\\u202c <script>" in shown
    assert "<script>alert(1)</script>" in shown  # literal text in a terminal


def test_show_json_is_ascii_and_parses_back(project: Path) -> None:
    out = runner.invoke(app, ["show", "runs/r1", "t1/typo/c-0000000000e2", "--json"]).stdout
    no_raw(out)
    assert out.isascii()
    doc = json.loads(out)
    assert doc["prompts"][0]["prompt"] == HOSTILE and doc["prompts"][0]["trials"][0]["output"] == HOSTILE


def test_json_report_escapes_controls_and_bidi(project: Path) -> None:
    out = report("json")
    no_raw(out)
    doc = json.loads(out)
    row = next(p for p in doc["failing_prompts"] if p["variant_id"].endswith("e2"))
    assert row["prompt"] == HOSTILE and row["wrong_sample"][0]["output"] == HOSTILE
    assert row["grader_notes"] == [{"note": HOSTILE, "count": 4}]


def test_markdown_renders_no_html_image_or_link(project: Path) -> None:
    md = report("md")
    no_raw(md)
    html = MarkdownIt("commonmark").enable("table").render(md)
    assert "<img" not in html and "<script" not in html and '<a href="https://evil' not in html
    assert "evil.example" in html  # shown as text


def test_junit_carries_the_failure_as_text(project: Path) -> None:
    xml = report("junit")
    no_raw(xml)
    root = ET.fromstring(xml)
    failure = root.find("./testsuite/testcase/failure")
    assert failure is not None
    message = failure.get("message") or ""
    assert "prompt t1/typo/c-0000000000e2 (0/4 passed): \\x1b]0;pwned\\x07\\x1b[2J \\u202egnp.exe" in message
    assert "\\x1b]0;pwned" in (failure.text or "")


class _Scan(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.scripts = 0
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(attrs)


def test_html_report_holds_no_injected_markup(project: Path) -> None:
    html = report("html")
    no_raw(html)
    scan = _Scan()
    scan.feed(html)
    assert "img" not in scan.tags
    assert scan.tags.count("script") == 1  # the explorer's own, nothing injected
    assert not any(value and "evil.example" in value for name, value in scan.attrs if name != "data-search")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "default-src 'none'" in html  # nothing may load even if markup got through
