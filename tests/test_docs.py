"""The documentation stays true: the CLI reference matches ``--help``, every relative link
resolves, and each page the index promises exists."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def load_script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_cli_reference_is_current() -> None:
    gen_cli = load_script("gen_cli")
    current = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert current == gen_cli.render(), "docs/cli.md is stale: run python docs/gen_cli.py"


def test_cli_reference_covers_every_command() -> None:
    gen_cli = load_script("gen_cli")
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    for name in gen_cli.commands():
        assert f"\n## perturb {name}\n" in text


def markdown_files() -> list[Path]:
    return [REPO / "README.md", *sorted(DOCS.glob("*.md"))]


def test_every_relative_link_points_to_an_existing_file() -> None:
    broken = []
    for page in markdown_files():
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue  # a URL or an anchor on the same page
            path = target.split("#", 1)[0]
            if not (page.parent / path).exists():
                broken.append(f"{page.relative_to(REPO)}: {target}")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_index_links_every_page() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    linked = set(LINK.findall(index))
    missing = [p.name for p in sorted(DOCS.glob("*.md")) if p.name != "index.md" and p.name not in linked]
    assert not missing, f"docs/index.md does not link: {missing}"


def test_readme_stays_short_and_starts_with_the_two_commands() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text) < 10_000
    blocks = re.findall(r"```bash\n(.*?)\n```", text, re.S)
    assert blocks[0].endswith("perturb report runs/demo")
    assert blocks[1].endswith("python -m pytest -q")
    # .ci/run installs the same extras as the README's test command, then runs the same pytest
    extras = re.search(r"pip install -q -e '(\.\[[a-z,]+\])'", blocks[1])
    assert extras, blocks[1]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert f"-e '{extras.group(1)}'" in ci
    assert '"$venv/bin/python" -m pytest -q' in ci


@pytest.mark.slow
def test_docs_examples_match_real_output() -> None:
    """Every output block marked ``<!-- check: ... -->`` in the docs is what the commands print."""
    problems = load_script("gen_examples").check()
    assert not problems, "\n\n".join(problems) + "\n\nrun python docs/gen_examples.py --update"
