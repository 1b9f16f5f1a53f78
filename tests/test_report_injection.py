"""Issue #11 items 5 and 6: text from agents, tasks and manifests is inert in every report.

A run whose agent output tries to break out of its Markdown code span (backticks, an image, an
``<img>`` tag) and whose manifest and trial fields carry terminal escapes (``ESC ] 0 ; ... BEL``
retitles a terminal, ``ESC [ 2 J`` clears it). The Markdown is rendered with a real CommonMark
parser (markdown-it-py, tables on): no image, no link, no HTML comes out. The terminal text
shows every control character escaped (``\\x1b``), in the text report and in the Markdown.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from perturb.cli import app
from perturb.report.formats.markdown import code, text
from tests.synthetic_runs import Prompt, write_run

runner = CliRunner()
EVIL = "` ![t](https://evil.example/t.png) <img src=https://evil.example/i.png> `"
TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"


@pytest.fixture
def hostile_run(tmp_path: Path) -> Path:
    run = write_run(
        tmp_path / "runs",
        "r1",
        [
            Prompt("t1", "WWWWW", wrong_output=EVIL),
            Prompt("t2", "PPPPP"),
            Prompt("t2", "WWWWW", "paraphrase", "c-00000000000a", 0.2, 0.2, wrong_output="``x``"),
        ],
    )
    manifest = run / "manifest.json"
    data = json.loads(manifest.read_text())
    data["agent"] = f"{TITLE}agent:{CLEAR}fn"
    data["model"] = f"m{CLEAR}[bold]x"
    manifest.write_text(json.dumps(data, indent=2))
    return run


def _html(md: str) -> str:
    return MarkdownIt("commonmark").enable("table").render(md)


def test_markdown_output_is_inert_when_rendered(hostile_run: Path) -> None:
    result = runner.invoke(app, ["report", str(hostile_run), "-f", "md"])
    assert result.exit_code == 0, result.output
    md = result.stdout
    assert "\x1b" not in md and "\x07" not in md
    assert "\\x1b]0;pwned\\x07agent:\\x1b[2Jfn" in md
    html = _html(md)
    assert "<img" not in html and "evil.example" in html  # shown as text, not loaded
    assert '<a href="https://evil' not in html
    # the output survives the round trip as code, whole
    evil_cells = [ln for ln in html.splitlines() if "evil" in ln]
    assert any("<code>" in ln and "&lt;img src=https://evil.example/i.png&gt;" in ln for ln in evil_cells), (
        evil_cells
    )


@pytest.mark.parametrize(
    "value",
    [EVIL, "``", "`", " `a` ", "a|b", "<script>x</script>", "[l](https://e.x)", "![i](https://e.x)", ""],
)
def test_code_spans_hold_anything(value: str) -> None:
    html = _html(f"x {code(value)} y")
    assert "<img" not in html and "<a " not in html and "<script" not in html
    inner = html.split("<code>", 1)[1].split("</code>", 1)[0] if value else ""
    assert (
        inner.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&") == value
    )


@pytest.mark.parametrize("value", [EVIL, "**b** _i_ <b>x</b> [l](https://e.x) ![i](https://e.x) &amp;"])
def test_text_is_literal(value: str) -> None:
    html = _html(text(value))
    assert "<img" not in html and "<a " not in html and "<b>" not in html and "<strong>" not in html
    assert "<em>" not in html


def test_terminal_report_escapes_control_characters(hostile_run: Path) -> None:
    result = runner.invoke(app, ["report", str(hostile_run)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b]0;pwned\\x07agent:\\x1b[2Jfn" in out
    assert "m\\x1b[2J[bold]x" in out  # literal, not rich markup
