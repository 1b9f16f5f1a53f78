"""``perturb.testing``: the example in docs/testing.md runs as written, and neither tests/ nor
benchmarks/ imports the other (they share the helpers through the package)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_docs_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (REPO / "docs" / "testing.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 1
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("tempfile.mkdtemp", lambda: str(tmp_path / "suite"))
    exec(compile(blocks[0], "docs/testing.md", "exec"), {"__name__": "docs_testing_example"})
    assert (tmp_path / "suite" / "runs" / "r" / "trials.jsonl").read_bytes().count(b"\n") == 4


def _imported_top_levels(path: Path) -> set[str]:
    """The top-level package of every import in ``path`` (relative imports excluded)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize(("folder", "other"), [("tests", "benchmarks"), ("benchmarks", "tests")])
def test_tests_and_benchmarks_do_not_import_each_other(folder: str, other: str) -> None:
    offenders = sorted(
        str(path.relative_to(REPO))
        for path in (REPO / folder).rglob("*.py")
        if other in _imported_top_levels(path)
    )
    assert offenders == []


def test_agent_specs_in_benchmarks_name_no_test_module() -> None:
    """An agent or tool named by string (``module:attr``) counts as an import too."""
    offenders = [
        str(path.relative_to(REPO))
        for path in (REPO / "benchmarks").rglob("*.py")
        if re.search(r"['\"]tests\.\w+:", path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_package_helpers_import_neither() -> None:
    for path in (REPO / "perturb" / "testing").glob("*.py"):
        assert not {"tests", "benchmarks"} & _imported_top_levels(path), path
