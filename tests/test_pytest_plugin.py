"""The pytest plugin (perturb/pytest_plugin.py): the gate as pytest items, through the real
``pytest11`` entry point, driven with ``pytester``."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from perturb.report.gate import write_baseline
from tests.synthetic_runs import Prompt, write_run

pytest_plugins = ["pytester"]

BASE = {"t1": ("PPPPP", "PPPPP"), "t2": ("PPPPP", "PPPPP"), "t3": ("PPPPW", "PPPWW")}


def prompts(spec: dict[str, tuple[str, str]]) -> list[Prompt]:
    out = []
    for task, (canon, para) in spec.items():
        out.append(Prompt(task, canon))
        out.append(Prompt(task, para, "paraphrase", f"c-{task}", 0.2, 0.2))
    return out


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    """``(runs dir, baseline)``: a baseline at k=2 taken from BASE."""
    runs = tmp_path / "runs"
    base = tmp_path / "evals" / "baseline.json"
    write_baseline(write_run(runs, "base", prompts(BASE)), base, 2)
    return runs, base


def test_registered_through_the_pytest11_entry_point() -> None:
    found = [ep for ep in entry_points(group="pytest11") if ep.name == "perturb"]
    assert [ep.value for ep in found] == ["perturb.pytest_plugin"]


def test_a_passing_gate_is_one_passing_item_per_figure(pytester: pytest.Pytester, project) -> None:
    runs, base = project
    run = write_run(runs, "same", prompts(BASE))
    result = pytester.runpytest("--perturb-run=" + str(run), "--perturb-baseline=" + str(base), "-v")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(
        [
            "perturb-gate[[]canonical mean[]] PASSED*",
            "perturb-gate[[]canonical pass^2[]] PASSED*",
            "perturb-gate[[]paraphrase mean[]] PASSED*",
            "perturb-gate[[]paraphrase pass^2[]] PASSED*",
            "perturb-gate[[]verdict[]] PASSED*",
        ]
    )
    assert result.ret == 0


def test_a_failing_gate_fails_the_items_it_names_with_the_gates_message(
    pytester: pytest.Pytester, project
) -> None:
    runs, base = project
    worse = {**BASE, "t1": ("PPPPP", "PPWWW"), "t2": ("PPPPP", "WWWWW")}
    run = write_run(runs, "worse", prompts(worse))
    xml = pytester.path / "junit.xml"
    result = pytester.runpytest(
        "--perturb-run=" + str(run),
        "--perturb-baseline=" + str(base),
        f"--junitxml={xml}",
        "-rA",
        "--perturb-option=strict=true",  # the default (sound) gate calls 3 tasks' drop noise
    )
    # t1: (1.0+1.0+0.6)/3 = 0.867 -> (0.4+0+0.6)/3 = 0.333; canonical passes, paraphrase fails
    result.assert_outcomes(passed=2, failed=4)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*_ perturb-gate[[]paraphrase mean[]] _*",
            "regression: paraphrase mean: baseline 0.867, current 0.333, change -0.533, "
            "tolerance 0.050 (3 matched tasks)",
            "*_ perturb-gate[[]paraphrase labels[]] _*",
            "newly flaky: t1/paraphrase: baseline stable-pass, now 2/5 passed (3 wrong, 0 errored)",
            "newly failing: t2/paraphrase: baseline stable-pass, now 0/5 passed (5 wrong, 0 errored)",
            "*_ perturb-gate[[]verdict[]] _*",
            "gate failed: 2 regressions, 1 newly flaky task, 1 newly failing task; run worse against "
            f"baseline {base} (run base), k=2, tolerance 0.050, strict*",
            "FAILED perturb-gate[[]paraphrase mean[]]*",
        ]
    )
    cases = {case.get("name"): case for case in ET.parse(xml).getroot().iter("testcase")}
    assert sorted(cases) == [
        "perturb-gate[canonical mean]",
        "perturb-gate[canonical pass^2]",
        "perturb-gate[paraphrase labels]",
        "perturb-gate[paraphrase mean]",
        "perturb-gate[paraphrase pass^2]",
        "perturb-gate[verdict]",
    ]
    assert cases["perturb-gate[canonical mean]"].find("failure") is None
    failure = cases["perturb-gate[paraphrase labels]"].find("failure")
    assert failure is not None
    assert failure.text == (
        "newly flaky: t1/paraphrase: baseline stable-pass, now 2/5 passed (3 wrong, 0 errored)\n"
        "newly failing: t2/paraphrase: baseline stable-pass, now 0/5 passed (5 wrong, 0 errored)"
    )


def test_require_is_one_item_and_options_reach_the_gate(pytester: pytest.Pytester, project) -> None:
    runs, base = project
    run = write_run(runs, "req", prompts(BASE))
    args = ["--perturb-run=" + str(run), "--perturb-baseline=" + str(base)]
    result = pytester.runpytest(*args, "--perturb-require=0.5", "-rf")
    result.assert_outcomes(passed=4, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*_ perturb-gate[[]require[]] _*",
            "below --require 0.500: t3/paraphrase pass^2 0.300 (n=5: 3 passed, 2 wrong, 0 errored)",
        ]
    )
    # a wider tolerance turns a regression into a pass: the option reaches GateOptions
    worse = write_run(runs, "worse", prompts({**BASE, "t3": ("PPPPW", "PPWWW")}))
    strict = pytester.runpytest(
        "--perturb-run=" + str(worse), "--perturb-baseline=" + str(base), "--perturb-option=strict=true"
    )
    strict.assert_outcomes(passed=2, failed=3)  # paraphrase mean, pass^2 and verdict
    loose = pytester.runpytest(
        "--perturb-run=" + str(worse),
        "--perturb-baseline=" + str(base),
        "--perturb-tolerance=0.1",
        "--perturb-option=strict=true",
    )
    loose.assert_outcomes(passed=5)
    generic = pytester.runpytest(
        "--perturb-run=" + str(worse),
        "--perturb-baseline=" + str(base),
        "--perturb-option=tolerance=0.1",
        "--perturb-option=strict=true",
    )
    generic.assert_outcomes(passed=5)
    unknown = pytester.runpytest(
        "--perturb-run=" + str(worse), "--perturb-baseline=" + str(base), "--perturb-option=colour=red"
    )
    unknown.assert_outcomes(failed=1)
    unknown.stdout.fnmatch_lines(
        ["error: --perturb-option 'colour=red': expected NAME=VALUE with NAME one of tolerance, require, *"]
    )


def test_k_selects_items_and_the_projects_tests_still_run(pytester: pytest.Pytester, project) -> None:
    runs, base = project
    run = write_run(runs, "same", prompts(BASE))
    pytester.makepyfile(test_own="def test_own():\n    assert 1 + 1 == 2\n")
    args = ["--perturb-run=" + str(run), "--perturb-baseline=" + str(base)]
    pytester.runpytest(*args).assert_outcomes(passed=6)  # the project's test + 5 gate items
    picked = pytester.runpytest(*args, "-k", "perturb-gate and verdict")
    picked.assert_outcomes(passed=1, deselected=5)


def test_bad_input_is_one_failing_item_with_a_one_line_error(pytester: pytest.Pytester, project) -> None:
    runs, base = project
    missing = runs / "nope"
    result = pytester.runpytest("--perturb-run=" + str(missing), "--perturb-baseline=" + str(base), "-rf")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ perturb-gate[[]verdict[]] _*",
            f"error: {missing}: not a run directory (expected runs/<id>/ written by `perturb run`)",
            "=*= short test summary info =*=",
        ]
    )
    result.stdout.no_fnmatch_line("*Traceback*")


def test_one_option_without_the_other_is_a_usage_error(pytester: pytest.Pytester, project) -> None:
    runs, base = project
    result = pytester.runpytest("--perturb-baseline=" + str(base))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --perturb-baseline needs --perturb-run (e.g. --perturb-run runs/ci "
            "--perturb-baseline evals/baseline.json)"
        ]
    )


def test_inert_without_options(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("*perturb-gate*")
    helped = pytester.runpytest("--help")
    helped.stdout.fnmatch_lines(["perturb gate (perturb-eval):", "*--perturb-run=RUN_DIR*"])
