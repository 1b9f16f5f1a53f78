"""Third-party extensions through entry points: a grader and a perturbation class.

A test distribution (``demo_plugin``, a ``.dist-info`` with ``entry_points.txt`` on the
import path, as pip would install it) declares a grader ``starts_with`` in group
``perturb.graders`` and a perturbation class ``urgent`` in group ``perturb.perturbations``.
Every command runs as a real process: ``validate``, ``generate``, ``accept``, ``freeze``,
``verify``, ``run`` and ``report`` use them without any edit to perturb. Without the
distribution on the path the same task file is refused with the registry's message.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent

PLUGIN = '''
"""A third party's perturb extensions."""
import re

from perturb.generate.perturbations import ClassSpec, SkipGeneration, Variant
from perturb.run.graders import GraderSpec
from perturb.errors import GraderError


def _grade(grader, expected, output, ctx):
    text = output if isinstance(output, str) else str(output)
    if text.startswith(expected):
        return True, None
    return False, f"output does not start with {expected!r}"


def _check(grader, expected, ctx):
    if not isinstance(expected, str) or not expected:
        raise GraderError("starts_with grader: expected must be a non-empty string")


GRADER = GraderSpec(name="starts_with", summary="output starts with expected", grade=_grade, check=_check)


def _words(text):
    return re.findall(r"\\w+", text)


def _generate(ctx, level, rng, index):
    if ctx.prompt.startswith("URGENT"):
        raise SkipGeneration("already urgent")
    return Variant(text=("URGENT: " if index == 0 else "Urgent - ") + ctx.prompt, details={"prefix": index})


def _measure(ctx, text, details):
    return round(1 / max(1, len(_words(ctx.prompt))), 4)


URGENT = ClassSpec(
    name="urgent",
    default_level=0.1,
    max_level=1.0,
    length_ratio=(1.0, 2.0),
    epsilon="one inserted word / words of the canonical prompt",
    generate=_generate,
    measure=_measure,
)
'''

AGENT = """
def agent(prompt, request):
    return "BOOK " + prompt.lower()
"""

TASKS = [
    {"id": "t1", "prompt": "Book a table for 4 on Friday.", "expected": "BOOK", "grader": "starts_with"},
    {
        "id": "t2",
        "prompt": "Book a taxi to the airport at 7am.",
        "expected": "BOOK",
        "grader": {"type": "starts_with"},
    },
]


def _install_plugin(site: Path) -> None:
    (site / "demo_plugin.py").write_text(PLUGIN, encoding="utf-8")
    info = site / "demo_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: demo-plugin\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        textwrap.dedent(
            """\
            [perturb.graders]
            starts_with = demo_plugin:GRADER

            [perturb.perturbations]
            urgent = demo_plugin:URGENT
            """
        ),
        encoding="utf-8",
    )


def _perturb(project: Path, site: Path | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join([str(project)] + ([str(site)] if site else []))
    return subprocess.run(
        [sys.executable, "-m", "perturb", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_third_party_grader_and_class_through_entry_points(tmp_path: Path) -> None:
    project, site = tmp_path / "project", tmp_path / "site"
    (project / "tasks").mkdir(parents=True)
    site.mkdir()
    _install_plugin(site)
    (project / "agentmod.py").write_text(AGENT, encoding="utf-8")
    (project / "tasks" / "demo.jsonl").write_text(
        "".join(json.dumps(t) + "\n" for t in TASKS), encoding="utf-8"
    )

    # Without the distribution, the grader is unknown: one line, exit 2.
    bare = _perturb(project, None, "validate", "tasks/demo.jsonl")
    assert bare.returncode == 2
    assert (
        "tasks/demo.jsonl:1: grader.type: unknown grader 'starts_with' (expected one of: exact, "
        in bare.stderr
    )
    assert "Traceback" not in bare.stderr

    ok = _perturb(project, site, "validate", "tasks/demo.jsonl")
    assert ok.returncode == 0, ok.stderr

    gen = _perturb(project, site, "generate", "tasks/demo.jsonl", "--classes", "urgent", "--per-class", "1")
    assert gen.returncode == 0, gen.stderr
    cands = [json.loads(line) for line in (project / "review/demo/candidates.jsonl").read_text().splitlines()]
    assert [(c["task_id"], c["perturbation"], c["text"]) for c in cands] == [
        ("t1", "urgent", "URGENT: Book a table for 4 on Friday."),
        ("t2", "urgent", "URGENT: Book a taxi to the airport at 7am."),
    ]
    assert [c["epsilon"] for c in cands] == [round(1 / 7, 4), round(1 / 8, 4)]
    extending = " ".join((ROOT / "docs" / "extending.md").read_text(encoding="utf-8").split())
    assert f"proposes `{cands[0]['text']}` with ε = 1/7 = {cands[0]['epsilon']}." in extending

    assert _perturb(project, site, "accept", *[c["id"] for c in cands], "--reviewer", "test").returncode == 0
    frozen = _perturb(project, site, "freeze", "demo")
    assert frozen.returncode == 0, frozen.stderr
    assert _perturb(project, site, "verify").returncode == 0

    run = _perturb(
        project,
        site,
        "run",
        "fixtures/demo.jsonl",
        "--agent",
        "agentmod:agent",
        "--trials",
        "3",
        "--out",
        "runs/r1",
    )
    assert run.returncode == 0, run.stderr
    trials = [json.loads(line) for line in (project / "runs/r1/trials.jsonl").read_text().splitlines()]
    assert len(trials) == 4 * 3
    assert {t["perturbation"] for t in trials} == {"canonical", "urgent"}
    assert all(t["outcome"] == "passed" for t in trials)

    report = _perturb(project, site, "report", "runs/r1", "-f", "json")
    assert report.returncode == 0, report.stderr
    classes = {c["class"]: c for c in json.loads(report.stdout)["classes"]}
    assert set(classes) == {"canonical", "urgent"}
    assert classes["urgent"]["mean"] == 1.0


def test_a_plugin_that_reuses_a_name_is_refused(tmp_path: Path) -> None:
    project, site = tmp_path / "project", tmp_path / "site"
    (project / "tasks").mkdir(parents=True)
    site.mkdir()
    _install_plugin(site)
    text = (site / "demo_plugin.py").read_text().replace('name="starts_with"', 'name="exact"')
    (site / "demo_plugin.py").write_text(text)
    (project / "tasks" / "demo.jsonl").write_text(json.dumps(TASKS[0]) + "\n", encoding="utf-8")
    res = _perturb(project, site, "validate", "tasks/demo.jsonl")
    assert res.returncode == 2
    assert (
        "a grader named 'exact' exists already (plugins add new names; they do not replace one)" in res.stderr
    )
    assert "Traceback" not in res.stderr
