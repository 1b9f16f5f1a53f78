"""Run the commands shown in the docs and check their output against the real one.

    python docs/gen_examples.py            # check every marked block; print the differences
    python docs/gen_examples.py --update   # rewrite the marked blocks with the real output

A block is checked when the line before its opening fence is ``<!-- check: SANDBOX -->``.
Its ``$ COMMAND`` lines are run with bash, in order, in the sandbox directory, and the lines
after each command must be its output (stdout and stderr together). A line ``...`` in the
shown output skips any number of real lines; the wall time of ``perturb run`` (``in 15.85 s``)
is the one figure allowed to differ. A block preceded by ``<!-- file: SANDBOX PATH -->`` is
written to PATH in the sandbox before the next checked block runs.

Sandboxes: ``travel-review`` starts as the bundled example before its first review (tasks/,
examples/, evals/, pyproject.toml; no review/, no fixtures/); another name starting with
``travel`` starts as a copy of the bundled example as committed (with review/ and fixtures/,
which ``perturb verify`` re-derives from each other); any other name starts empty. A
sandbox lives for one run of this script and is shared by every page, in the order of
``PAGES``, and within a page top to bottom. ``tests/test_docs.py::test_docs_examples_match_real_output`` runs
the check (marked slow).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MARK = re.compile(r"^<!-- (check|file): (\S+)(?: (\S+))? -->\n(```[a-z]*\n)(.*?)^```\n", re.S | re.M)
WALL = re.compile(r" in [0-9]+(?:\.[0-9]+)? s\b")
# Latency columns of a report ("0.02s") move with the machine's load, like wall times.
LATENCY = re.compile(r"(?<![\w.])[0-9]+\.[0-9]{2}s\b")
BIN = Path(sys.executable).parent
# The order the pages are checked in (a sandbox carries state from one page to the next).
PAGES = [
    "README.md",
    "docs/tasks.md",
    "docs/perturbations.md",
    "docs/review.md",
    "docs/running.md",
    "docs/reports.md",
    "docs/tutorial.md",
]


@dataclass
class Block:
    page: Path
    kind: str
    sandbox: str
    path: str | None
    start: int  # offset of the block's body in the page
    end: int
    body: str


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    return [
        Block(page, m.group(1), m.group(2), m.group(3), m.start(5), m.end(5), m.group(5))
        for m in MARK.finditer(text)
    ]


def sandbox(name: str, root: Path, made: dict[str, Path]) -> Path:
    if name not in made:
        path = root / name
        path.mkdir()
        if name.startswith("travel"):
            before_review = name == "travel-review"
            subs = (
                ("tasks", "examples", "evals")
                if before_review
                else ("tasks", "review", "fixtures", "examples", "evals")
            )
            for sub in subs:
                shutil.copytree(REPO / sub, path / sub, ignore=shutil.ignore_patterns("__pycache__"))
            shutil.copy(REPO / "pyproject.toml", path)
        made[name] = path
    return made[name]


def split_console(body: str) -> list[tuple[str, list[str]]]:
    """[(command, shown output lines)] of a console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in body.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    return steps


def run_commands(commands: list[str], cwd: Path) -> list[list[str]]:
    sep = "@@perturb-docs-end@@"
    script = ["__rc=0"]
    for command in commands:
        script.append(f"{{ {command.replace('$?', '$__rc')} ; }} 2>&1; __rc=$?; echo {sep}")
    env = {
        "PATH": f"{BIN}:/usr/bin:/bin",
        "HOME": str(cwd),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "COLUMNS": "120",
        "TERM": "dumb",
    }
    done = subprocess.run(
        ["bash", "-c", "\n".join(script)], cwd=cwd, capture_output=True, text=True, env=env, timeout=600
    )
    outputs = done.stdout.split(sep + "\n")
    return [out.rstrip("\n").split("\n") if out.strip("\n") else [] for out in outputs[: len(commands)]]


def matches(shown: list[str], real: list[str]) -> bool:
    """Every shown line, in order; ``...`` skips real lines; wall times and latencies may differ."""

    def norm(line: str) -> str:
        return LATENCY.sub("_s", WALL.sub(" in _ s", line.rstrip()))

    def go(i: int, j: int) -> bool:
        if i == len(shown):
            return j == len(real)
        if shown[i].strip() == "...":
            return any(go(i + 1, jj) for jj in range(j, len(real) + 1))
        return j < len(real) and norm(shown[i]) == norm(real[j]) and go(i + 1, j + 1)

    return go(0, 0)


def check(update: bool = False) -> list[str]:
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="perturb-docs-") as tmp:
        made: dict[str, Path] = {}
        for name in PAGES:
            page = REPO / name
            text = page.read_text(encoding="utf-8")
            replacements: list[tuple[int, int, str]] = []
            for block in blocks(page):
                where = sandbox(block.sandbox, Path(tmp), made)
                if block.kind == "file":
                    assert block.path is not None
                    target = where / block.path
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(block.body, encoding="utf-8")
                    continue
                steps = split_console(block.body)
                outputs = run_commands([c for c, _ in steps], where)
                new_body = []
                for (command, shown), real in zip(steps, outputs, strict=True):
                    new_body += [f"$ {command}", *(shown if matches(shown, real) else real)]
                    if not matches(shown, real):
                        problems.append(
                            f"{name}: `{command}` printed:\n"
                            + "\n".join(real)
                            + "\nbut the page shows:\n"
                            + "\n".join(shown)
                        )
                replacements.append((block.start, block.end, "\n".join(new_body) + "\n"))
            if update and replacements:
                for start, end, body in reversed(replacements):
                    text = text[:start] + body + text[end:]
                page.write_text(text, encoding="utf-8")
    return problems


def main(argv: list[str]) -> int:
    problems = check(update="--update" in argv)
    for problem in problems:
        print(problem, end="\n\n")
    if problems and "--update" not in argv:
        print(
            f"{len(problems)} shown outputs differ from the real ones: "
            "run python docs/gen_examples.py --update"
        )
        return 1
    print("updated" if problems else "every checked block matches the real output")
    return 0


if __name__ == "__main__":
    os.chdir(REPO)
    raise SystemExit(main(sys.argv[1:]))
