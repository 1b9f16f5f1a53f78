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

Figures a page states in its prose about a checked block are derived from the same run:
``DERIVED[page]`` gets the real output of every command of the page and the sandboxes, and
returns the sentences the page must contain (compared with runs of whitespace as one space).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
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
    "docs/failures.md",
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


Outputs = dict[str, list[str]]  # command -> its real output lines, for one page


def _row(output: list[str], *first: str) -> list[str]:
    """The fields of the first line of OUTPUT whose fields start with FIRST."""
    return next(fields for line in output if (fields := line.split())[: len(first)] == list(first))


def _points(delta: str) -> int:
    """A change of success such as ``-0.453`` in percentage points, rounded half up (45)."""
    return int((-Decimal(delta) * 100).quantize(Decimal(1), ROUND_HALF_UP))


NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()


def _reports_prose(outputs: Outputs, sandboxes: dict[str, Path]) -> list[str]:
    """docs/reports.md: the reading of the scorecard and of the gate below their blocks."""
    report = outputs["perturb report runs/demo"]
    pass5 = _row(report, "consistency", "(canonical)")[5]
    correction = _row(report, "self_correction", "46")[5]
    typo = _row(report, "typo", "46")[5]
    low, high = _row(report, "typo", "0.05"), _row(report, "typo", "0.3")

    def eps(text: str) -> str:
        return str(Decimal(text).quantize(Decimal("0.01"), ROUND_HALF_UP))

    brittle = _row(report, "travel-007", "typo")
    gate = outputs["perturb gate runs/pr-42 --baseline evals/baseline.json"]
    moved = sum(line.startswith("note: newly ") for line in gate)
    return [
        f"steady on its own phrasing (pass^5 {pass5}) but loses {_points(correction)} points when the user "
        f"corrects themselves mid-sentence and {_points(typo)} on typos, and the typo curve falls as ε rises "
        f"({low[5]} at measured ε {eps(low[2])}, {high[5]} at ε {eps(high[2])})",
        f"`travel-007` above has three typo variants, two passing 20/20 and one 0/20: pooled that reads "
        f"{brittle[2]} and looks flaky",
        f"Every class here is within noise, and the {NUMBER_WORDS[moved]} task labels that moved",
    ]


def _perturbations_prose(outputs: Outputs, sandboxes: dict[str, Path]) -> list[str]:
    """docs/perturbations.md: the candidate shown is the one ``perturb generate`` above wrote
    for the shown task, class and index."""
    page = (REPO / "docs" / "perturbations.md").read_text(encoding="utf-8")
    shown = re.search(r'"task_id": "([^"]+)", "perturbation": "([^"]+)",.*?"index": ([0-9]+)', page, re.S)
    assert shown, "docs/perturbations.md shows no candidate"
    key = (shown.group(1), shown.group(2), int(shown.group(3)))
    written = sandboxes["travel-review"] / "review" / "travel" / "candidates.jsonl"
    candidates = map(json.loads, written.read_text(encoding="utf-8").splitlines())
    c = next(c for c in candidates if (c["task_id"], c["perturbation"], c["index"]) == key)
    details = json.dumps(c["details"], ensure_ascii=False)
    return [
        f'{{"id": "{c["id"]}", "task_id": "{c["task_id"]}", "perturbation": "{c["perturbation"]}", '
        f'"text": {json.dumps(c["text"], ensure_ascii=False)}, "level": {c["level"]}, '
        f'"epsilon": {c["epsilon"]}, "index": {c["index"]},',
        f'"generator": {{"kind": "{c["generator"]["kind"]}", "perturb_version": '
        f'"{c["generator"]["perturb_version"]}", "seed": {c["generator"]["seed"]}, ...}}, '
        f'"screen": {json.dumps(c["screen"])}, "details": {details}, ...}}',
    ]


DERIVED: dict[str, Callable[[Outputs, dict[str, Path]], list[str]]] = {
    "docs/reports.md": _reports_prose,
    "docs/perturbations.md": _perturbations_prose,
}


def check(update: bool = False) -> list[str]:
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="perturb-docs-") as tmp:
        made: dict[str, Path] = {}
        for name in PAGES:
            page = REPO / name
            text = page.read_text(encoding="utf-8")
            replacements: list[tuple[int, int, str]] = []
            outputs: Outputs = {}
            for block in blocks(page):
                where = sandbox(block.sandbox, Path(tmp), made)
                if block.kind == "file":
                    assert block.path is not None
                    target = where / block.path
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(block.body, encoding="utf-8")
                    continue
                steps = split_console(block.body)
                new_body = []
                reals = run_commands([c for c, _ in steps], where)
                for (command, shown), real in zip(steps, reals, strict=True):
                    outputs[command] = real
                    new_body += [f"$ {command}", *(shown if matches(shown, real) else real)]
                    if not matches(shown, real):
                        problems.append(
                            f"{name}: `{command}` printed:\n"
                            + "\n".join(real)
                            + "\nbut the page shows:\n"
                            + "\n".join(shown)
                        )
                replacements.append((block.start, block.end, "\n".join(new_body) + "\n"))
            if name in DERIVED:
                flat = " ".join(text.split())
                for sentence in DERIVED[name](outputs, made):
                    if " ".join(sentence.split()) not in flat:
                        problems.append(f"{name}: the page should say, from the same run:\n{sentence}")
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
