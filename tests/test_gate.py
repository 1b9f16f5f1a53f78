"""perturb baseline / perturb gate: exit codes and exact messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.errors import GateFailed
from perturb.records import Baseline
from perturb.report.gate import GateOptions, check_gate, make_baseline, run_gate
from tests.synthetic_runs import Prompt, write_run

runner = CliRunner()

BASE = {  # task -> (canonical, paraphrase)
    "t1": ("PPPPP", "PPPPP"),
    "t2": ("PPPPP", "PPPPP"),
    "t3": ("PPPPW", "PPPWW"),
    "t4": ("WWWWW", "WWWWW"),
}


def prompts(spec: dict[str, tuple[str, str]]) -> list[Prompt]:
    out = []
    for task, (canon, para) in spec.items():
        out.append(Prompt(task, canon))
        if para:
            out.append(Prompt(task, para, "paraphrase", f"c-{task}", 0.2, 0.2))
    return out


@pytest.fixture
def base_file(tmp_path: Path) -> Path:
    run = write_run(tmp_path / "runs", "base", prompts(BASE))
    out = tmp_path / "evals" / "baseline.json"
    result = runner.invoke(app, ["baseline", str(run), "-o", str(out), "--k", "2"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        f"wrote {out}: baseline from run base (demo), k=2, 8 task x class labels\n"
        "  canonical: mean 0.700  pass^2 0.650  (4 tasks, 20 trials)\n"
        "  paraphrase: mean 0.650  pass^2 0.575  (4 tasks, 20 trials)\n"
    )
    return out


def gate(tmp_path: Path, run_id: str, spec: dict[str, tuple[str, str]], base: Path, *args: str):  # noqa: ANN201 - returns click's Result
    run = write_run(tmp_path / "runs", run_id, prompts(spec))
    return runner.invoke(app, ["gate", str(run), "--baseline", str(base), *args])


# --------------------------------------------------------------------------- baseline


def test_baseline_records_figures_labels_and_counts(tmp_path: Path) -> None:
    run = write_run(tmp_path, "base", prompts(BASE))
    base = make_baseline(run)
    assert base.k == 5  # the report's default primary k (5 <= n)
    assert base.trials == 5 and base.run_id == "base" and base.suite == "demo"
    assert base.classes["canonical"].mean == 0.7
    assert base.classes["canonical"].pass_hat_k == 0.5  # t1, t2 only
    assert base.task_labels == {
        "t1/canonical": "stable-pass",
        "t1/paraphrase": "stable-pass",
        "t2/canonical": "stable-pass",
        "t2/paraphrase": "stable-pass",
        "t3/canonical": "flaky",
        "t3/paraphrase": "flaky",
        "t4/canonical": "stable-fail",
        "t4/paraphrase": "stable-fail",
    }
    assert [(v.variant_id, v.n, v.passed, v.wrong) for v in base.variants][:2] == [
        ("t1/canonical", 5, 5, 0),
        ("t1/paraphrase/c-t1", 5, 5, 0),
    ]


def test_baseline_file_is_a_valid_record(base_file: Path) -> None:
    data = json.loads(base_file.read_text())
    base = Baseline.model_validate(data)
    assert base.k == 2
    assert len(base.variants) == 8


# --------------------------------------------------------------------------- gate


def test_the_default_gate_states_intervals_and_power(tmp_path: Path, base_file: Path) -> None:
    result = gate(tmp_path, "same", BASE, base_file)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "ok: canonical mean: baseline 0.700, current 0.700, change +0.000, 95% interval "
        "[-0.238, +0.232], tolerance 0.050 (4 matched tasks)"
    )
    assert lines[2] == (
        "power: canonical: 4 matched tasks, n=5 per prompt, tolerance 0.050: 80% power to detect a "
        "drop of 0.569 in mean, none in pass^2"
    )
    # pass^2 over 4 tasks of n=5: not even a drop to 0 reaches 80% power
    assert lines[5].endswith("80% power to detect a drop of 0.560 in mean, none in pass^2")
    assert lines[-1] == (
        f"gate passed: run same against baseline {base_file} (run base), k=2, tolerance 0.050, "
        "sound; smallest drop detected with 80% power: 0.560 in paraphrase mean"
    )


def test_the_strict_gate_passes_on_an_unchanged_run(tmp_path: Path, base_file: Path) -> None:
    result = gate(tmp_path, "same", BASE, base_file, "--strict")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[2].startswith("power: canonical: 4 matched tasks, n=5 per prompt, tolerance 0.050: strict")
    assert lines[-1].startswith(
        f"gate passed: run same against baseline {base_file} (run base), k=2, tolerance 0.050, strict; "
        "smallest drop detected with 80% power: "
    )
    assert [line for line in lines if not line.startswith("power:")][:-1] == [
        "ok: canonical mean: baseline 0.700, current 0.700, change +0.000, tolerance 0.050 (4 matched tasks)",
        "ok: canonical pass^2: baseline 0.650, current 0.650, change +0.000, tolerance 0.050 "
        "(4 matched tasks)",
        "ok: paraphrase mean: baseline 0.650, current 0.650, change +0.000, tolerance 0.050 "
        "(4 matched tasks)",
        "ok: paraphrase pass^2: baseline 0.575, current 0.575, change +0.000, tolerance 0.050 "
        "(4 matched tasks)",
    ]


def test_gate_fails_naming_regressions_and_newly_flaky_and_failing(tmp_path: Path, base_file: Path) -> None:
    worse = {**BASE, "t1": ("PPPPP", "PPWWW"), "t2": ("PPPPP", "WWWWW")}
    result = gate(tmp_path, "worse", worse, base_file, "--strict")
    assert result.exit_code == 1
    assert [line for line in result.stdout.splitlines() if not line.startswith("power:")] == [
        "ok: canonical mean: baseline 0.700, current 0.700, change +0.000, tolerance 0.050 (4 matched tasks)",
        "ok: canonical pass^2: baseline 0.650, current 0.650, change +0.000, tolerance 0.050 "
        "(4 matched tasks)",
        "regression: paraphrase mean: baseline 0.650, current 0.250, change -0.400, "
        "tolerance 0.050 (4 matched tasks)",
        "regression: paraphrase pass^2: baseline 0.575, current 0.100, change -0.475, "
        "tolerance 0.050 (4 matched tasks)",
        "newly flaky: t1/paraphrase: baseline stable-pass, now 2/5 passed (3 wrong, 0 errored)",
        "newly failing: t2/paraphrase: baseline stable-pass, now 0/5 passed (5 wrong, 0 errored)",
    ]
    assert result.stderr.startswith(
        "error: gate failed: 2 regressions, 1 newly flaky task, 1 newly failing task; run worse "
        f"against baseline {base_file} (run base), k=2, tolerance 0.050, strict; smallest drop "
    )
    # the default gate: two of four tasks broken is within the interval (task-level noise at 4
    # tasks), label changes are notes; --gate-labels makes them fail again
    sound = gate(tmp_path, "worse2", worse, base_file)
    assert sound.exit_code == 0, sound.stderr
    assert (
        "within noise: paraphrase mean: baseline 0.650, current 0.250, change -0.400, 95% interval "
        "[-0.881, +0.105], tolerance 0.050 (4 matched tasks)"
    ) in sound.stdout.splitlines()
    assert "note: newly flaky: t1/paraphrase: baseline stable-pass, now 2/5 passed (3 wrong, 0 errored)" in (
        sound.stdout.splitlines()
    )
    labels = gate(tmp_path, "worse3", worse, base_file, "--gate-labels")
    assert labels.exit_code == 1
    assert labels.stderr.startswith(
        "error: gate failed: 1 newly flaky task, 1 newly failing task; run worse3"
    )
    assert ", sound, labels gated; " in labels.stderr


def test_a_drop_exactly_at_the_tolerance_passes(tmp_path: Path, base_file: Path) -> None:
    # canonical t3 4/5 -> 3/5: mean -0.050, pass^2 (0.6 -> 0.3)/4 = -0.075
    edge = {**BASE, "t3": ("PPPWW", "PPPWW")}
    result = gate(tmp_path, "edge", edge, base_file, "--tolerance", "0.075", "--strict")
    assert result.exit_code == 0, result.stdout
    assert (
        "ok: canonical pass^2: baseline 0.650, current 0.575, change -0.075, tolerance 0.075 "
        "(4 matched tasks)"
    ) in result.stdout.splitlines()
    result = gate(tmp_path, "edge2", edge, base_file, "--tolerance", "0.07", "--strict")
    assert result.exit_code == 1
    assert "error: gate failed: 1 regression; run edge2" in result.stderr


def test_require_names_each_task_below_the_threshold(tmp_path: Path, base_file: Path) -> None:
    result = gate(tmp_path, "req", BASE, base_file, "--require", "0.5")
    assert result.exit_code == 1
    assert [line for line in result.stdout.splitlines() if line.startswith("below")] == [
        "below --require 0.500: t4/canonical pass^2 0.000 (n=5: 0 passed, 5 wrong, 0 errored)",
        "below --require 0.500: t3/paraphrase pass^2 0.300 (n=5: 3 passed, 2 wrong, 0 errored)",
        "below --require 0.500: t4/paraphrase pass^2 0.000 (n=5: 0 passed, 5 wrong, 0 errored)",
    ]
    assert result.stderr.startswith("error: gate failed: 3 tasks below --require 0.500; run req")
    # the per-case recipe: pass@k instead
    result = gate(tmp_path, "req2", BASE, base_file, "--require", "0.5", "--require-metric", "pass@k")
    assert result.exit_code == 1
    assert [line for line in result.stdout.splitlines() if line.startswith("below")] == [
        "below --require 0.500: t4/canonical pass@2 0.000 (n=5: 0 passed, 5 wrong, 0 errored)",
        "below --require 0.500: t4/paraphrase pass@2 0.000 (n=5: 0 passed, 5 wrong, 0 errored)",
    ]
    ok = gate(tmp_path, "req3", {"t1": BASE["t1"]}, base_file, "--require", "1")
    assert ok.exit_code == 0, ok.stdout


def test_the_default_tolerates_a_drop_within_noise(tmp_path: Path, base_file: Path) -> None:
    noisy = {**BASE, "t3": ("PPPPW", "PPWWW")}  # one task, -0.05 on the class mean
    strict = gate(tmp_path, "noisy", noisy, base_file, "--tolerance", "0.02", "--strict")
    assert strict.exit_code == 1
    for args in ([], ["--noise-aware"]):  # --noise-aware: the default, kept for old workflows
        aware = gate(tmp_path, f"noisy{len(args)}", noisy, base_file, "--tolerance", "0.02", *args)
        assert aware.exit_code == 0, aware.stdout
        lines = aware.stdout.splitlines()
        assert lines[3] == (
            "within noise: paraphrase mean: baseline 0.650, current 0.600, change -0.050, "
            "95% interval [-0.327, +0.210], tolerance 0.020 (4 matched tasks)"
        )
        assert ", k=2, tolerance 0.020, sound; " in lines[-1]
    both = gate(tmp_path, "both", noisy, base_file, "--strict", "--noise-aware")
    assert both.exit_code == 2
    assert both.stderr == "error: --strict and --noise-aware contradict each other (choose one)\n"


def test_noise_aware_fails_when_the_whole_interval_is_below(tmp_path: Path) -> None:
    spec = {f"t{i:02d}": ("PPPPP", "PPPPP") for i in range(10)}
    run = write_run(tmp_path / "runs", "base", prompts(spec))
    base = tmp_path / "baseline.json"
    assert runner.invoke(app, ["baseline", str(run), "-o", str(base), "--k", "2"]).exit_code == 0
    drop = {task: ("PPPPP", "PPWWW") for task in spec}
    result = gate(tmp_path, "drop", drop, base)
    assert result.exit_code == 1
    assert (
        "regression: paraphrase mean: baseline 1.000, current 0.400, change -0.600, "
        "95% interval [-0.771, -0.310], tolerance 0.050 (10 matched tasks)"
    ) in result.stdout.splitlines()
    # newly flaky tasks are notes by default, not failures
    assert (
        "note: newly flaky: t00/paraphrase: baseline stable-pass, now 2/5 passed "
        "(3 wrong, 0 errored)" in result.stdout.splitlines()
    )
    assert result.stderr.startswith("error: gate failed: 2 regressions; run drop")


def test_a_smaller_run_is_compared_on_matched_tasks(tmp_path: Path, base_file: Path) -> None:
    smoke = {"t1": ("PPPPP", ""), "t2": ("PPPPP", "")}
    result = gate(tmp_path, "smoke", smoke, base_file)
    assert result.exit_code == 0, result.stdout
    assert result.stdout.splitlines()[2] == (
        "note: canonical: only 2 matched tasks (fewer than 3): its interval is unreliable and the "
        "gate does not fail on it"
    )
    # a collapse on 2 matched tasks: named as unreliable, not failed (too few tasks to tell)
    broke = gate(tmp_path, "broke", {"t1": ("WWWWW", ""), "t2": ("WWWWW", "")}, base_file)
    assert broke.exit_code == 0, broke.stdout
    assert broke.stdout.splitlines()[0].startswith(
        "unreliable: canonical mean: baseline 1.000, current 0.000, change -1.000, 95% interval [-1.000, "
    )
    result = gate(tmp_path, "smoke2", smoke, base_file, "--strict")
    assert [line for line in result.stdout.splitlines() if not line.startswith("power:")][:3] == [
        "ok: canonical mean: baseline 1.000, current 1.000, change +0.000, tolerance 0.050 (2 matched tasks)",
        "ok: canonical pass^2: baseline 1.000, current 1.000, change +0.000, tolerance 0.050 "
        "(2 matched tasks)",
        "note: class paraphrase is in the baseline but not in this run (not compared)",
    ]


def test_a_hand_written_baseline_without_counts(tmp_path: Path) -> None:
    base = tmp_path / "baseline.json"
    base.write_text(
        json.dumps(
            {
                "perturb_version": "0.1.0",
                "suite": "demo",
                "run_id": "old",
                "k": 2,
                "trials": 5,
                "classes": {"canonical": {"n_tasks": 4, "n_trials": 20, "mean": 0.8, "pass_hat_k": 0.7}},
                "task_labels": {},
            }
        )
    )
    result = gate(tmp_path, "cur", BASE, base, "--strict")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "regression: canonical mean: baseline 0.800, current 0.700, change -0.100, tolerance "
        "0.050 (all 4 tasks of the run; the baseline has no per-prompt counts)",
        "ok: canonical pass^2: baseline 0.700, current 0.650, change -0.050, tolerance 0.050 "
        "(all 4 tasks of the run; the baseline has no per-prompt counts)",
        "note: class paraphrase is new in this run (no baseline figures)",
    ]
    result = gate(tmp_path, "cur2", BASE, base)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {base}: the gate's intervals need the baseline's per-prompt counts (`variants`); "
        "refresh it with `perturb baseline RUN_DIR -o PATH`, or compare the class figures with --strict\n"
    )
    result = gate(tmp_path, "cur3", BASE, base, "--k", "3")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: --k 3 differs from the baseline's k=2 and the baseline has no per-prompt counts "
        "to recompute it; use --k 2 or refresh it with `perturb baseline`\n"
    )


def test_another_k_is_recomputed_from_the_counts(tmp_path: Path, base_file: Path) -> None:
    result = gate(tmp_path, "k3", BASE, base_file, "--k", "3", "--strict")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1] == (
        "ok: canonical pass^3: baseline 0.600, current 0.600, change +0.000, tolerance 0.050 "
        "(4 matched tasks)"
    )
    result = gate(tmp_path, "k9", BASE, base_file, "--k", "9")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: --k 9 exceeds the smallest number of trials per prompt in the run (n=5); "
        "choose k <= 5 or run more trials\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tolerance", "1.5"], "error: --tolerance 1.5 must be between 0 and 1 (e.g. 0.05)\n"),
        (["--require", "2"], "error: --require 2.0 must be between 0 and 1 (e.g. 0.8)\n"),
        (["--require-metric", "mean"], "error: --require-metric 'mean' (expected pass^k or pass@k)\n"),
    ],
)
def test_bad_options_exit_2(tmp_path: Path, base_file: Path, args: list[str], message: str) -> None:
    result = gate(tmp_path, "x", BASE, base_file, *args)
    assert result.exit_code == 2
    assert result.stderr == message


def test_bad_baseline_file_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "baseline.json"
    bad.write_text(json.dumps({"k": 0}))
    result = gate(tmp_path, "x", BASE, bad)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {bad}: perturb_version: missing (expected this field) (and 6 more problems); "
        "is this a baseline written by `perturb baseline`?\n"
    )
    bad.write_text("{")
    result = gate(tmp_path, "y", BASE, bad)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {bad}:1: invalid JSON")
    missing = tmp_path / "nope.json"
    result = gate(tmp_path, "z", BASE, missing)
    assert result.exit_code == 2
    assert result.stderr == (f"error: {missing}: no such file (expected an existing file; check the path)\n")


def test_library_api(tmp_path: Path, base_file: Path) -> None:
    run = write_run(tmp_path / "runs", "api", prompts({**BASE, "t1": ("WWWWW", "PPPPP")}))
    result = check_gate(GateOptions(run, base_file, strict=True))
    assert not result.passed
    assert (
        "newly failing: t1/canonical: baseline stable-pass, now 0/5 passed (5 wrong, "
        "0 errored)" in result.lines
    )
    assert result.summary() == "\n".join([*result.lines, result.verdict])
    assert result.verdict.startswith(
        "gate failed: 2 regressions, 1 newly failing task; run api against baseline "
    )
    with pytest.raises(GateFailed) as exc:
        run_gate(GateOptions(run, base_file, strict=True))
    assert exc.value.exit_code == 1
    assert exc.value.lines == result.lines
    assert exc.value.summary == result.verdict


# --------------------------------------------------------------------------- brittle tasks


def typo_prompts(spec: dict[str, tuple[str, ...]]) -> list[Prompt]:
    """Per task: its canonical outcomes, then one string per typo prompt (ids c-<task>-<i>)."""
    out = []
    for task, (canon, *typos) in spec.items():
        out.append(Prompt(task, canon))
        out += [Prompt(task, t, "typo", f"c-{task}-{i}", 0.1, 0.1) for i, t in enumerate(typos)]
    return out


def typo_gate(tmp_path: Path, base: dict[str, tuple[str, ...]], now: dict[str, tuple[str, ...]], *args: str):  # noqa: ANN201 - returns click's Result
    """The gate with --gate-labels (label changes fail) unless ``args`` say otherwise."""
    args = args or ("--gate-labels",)
    base_run = write_run(tmp_path / "runs", "base", typo_prompts(base))
    base_file = tmp_path / "baseline.json"
    made = runner.invoke(app, ["baseline", str(base_run), "-o", str(base_file), "--k", "2"])
    assert made.exit_code == 0, made.stderr
    run = write_run(tmp_path / "runs", "now", typo_prompts(now))
    return runner.invoke(app, ["gate", str(run), "--baseline", str(base_file), "--tolerance", "1", *args])


def test_baseline_labels_are_per_prompt_first(tmp_path: Path) -> None:
    run = write_run(
        tmp_path,
        "base",
        typo_prompts(
            {
                "t1": ("PPPP", "PPPP", "WWWW"),  # each prompt deterministic, one always fails
                "t2": ("PPPP", "PPPP", "PPWP"),  # one prompt flaky
                "t3": ("PPPP", "WWWW", "WWWW"),
                "t4": ("PPPP", "PPPP", "PPPP"),
            }
        ),
    )
    assert make_baseline(run, 2).task_labels == {
        "t1/canonical": "stable-pass",
        "t1/typo": "brittle",  # 4/8 pooled, yet not flaky
        "t2/canonical": "stable-pass",
        "t2/typo": "flaky",
        "t3/canonical": "stable-pass",
        "t3/typo": "stable-fail",
        "t4/canonical": "stable-pass",
        "t4/typo": "stable-pass",
    }


def test_a_newly_brittle_task_fails_the_gate_and_is_named(tmp_path: Path) -> None:
    base = {"t1": ("PPPP", "PPPP", "PPPP"), "t2": ("PPPP", "PPPP", "PPPP")}
    now = {"t1": ("PPPP", "PPPP", "WWWW"), "t2": ("PPPP", "PPPP", "PPPP")}
    result = typo_gate(tmp_path, base, now)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == (
        "newly brittle: t1/typo: baseline stable-pass, now 4/8 passed (4 wrong, 0 errored); "
        "failing every trial: t1/typo/c-t1-1"
    )
    assert result.stderr.startswith("error: gate failed: 1 newly brittle task; run now against")
    aware = typo_gate(tmp_path / "aware", base, now, "--noise-aware")  # labels are notes
    assert aware.exit_code == 0, aware.stdout
    assert aware.stdout.splitlines()[-2] == (
        "note: newly brittle: t1/typo: baseline stable-pass, now 4/8 passed (4 wrong, "
        "0 errored); failing every trial: t1/typo/c-t1-1"
    )


def test_newly_brittle_line_shows_the_prompt_text(tmp_path: Path) -> None:
    base = write_run(tmp_path / "runs", "base", typo_prompts({"t1": ("PPPP", "PPPP", "PPPP")}), fixtures=True)
    made = runner.invoke(app, ["baseline", str(base), "-o", str(tmp_path / "b.json"), "--k", "2"])
    assert made.exit_code == 0, made.stderr
    now = typo_prompts({"t1": ("PPPP", "PPPP", "WWWW")})
    now[2].text = "Plese bok\x1b[2J a flight to Paris on Friday, for two, in business class please"
    run = write_run(tmp_path / "runs", "now", now, fixtures=True)
    result = runner.invoke(
        app, ["gate", str(run), "--baseline", str(tmp_path / "b.json"), "--tolerance", "1", "--gate-labels"]
    )
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == (
        "newly brittle: t1/typo: baseline stable-pass, now 4/8 passed (4 wrong, 0 errored); "
        'failing every trial: t1/typo/c-t1-1 "Plese bok\\x1b[2J a flight to Paris on Friday, for two, in busi…"'
    )


def test_flaky_to_brittle_fails_only_when_a_prompt_newly_fails_every_trial(
    tmp_path: Path,
) -> None:
    # c-t1-0 was flaky and now always passes; c-t1-1 always failed then and now: no new break
    base = {"t1": ("PPPP", "PPWW", "WWWW")}
    better = typo_gate(tmp_path / "a", base, {"t1": ("PPPP", "PPPP", "WWWW")})
    assert better.exit_code == 0, better.stdout
    assert not [line for line in better.stdout.splitlines() if "newly" in line]
    # c-t1-1 was flaky and now always fails: newly brittle
    base = {"t1": ("PPPP", "PPPP", "PPWW")}
    worse = typo_gate(tmp_path / "b", base, {"t1": ("PPPP", "PPPP", "WWWW")})
    assert worse.exit_code == 1
    assert worse.stdout.splitlines()[-1] == (
        "newly brittle: t1/typo: baseline flaky, now 4/8 passed (4 wrong, 0 errored); "
        "failing every trial: t1/typo/c-t1-1"
    )


def test_brittle_to_stable_fail_is_newly_failing(tmp_path: Path) -> None:
    base = {"t1": ("PPPP", "PPPP", "WWWW")}
    result = typo_gate(tmp_path, base, {"t1": ("PPPP", "WWWW", "WWWW")})
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == (
        "newly failing: t1/typo: baseline brittle, now 0/8 passed (8 wrong, 0 errored)"
    )
    assert result.stderr.startswith("error: gate failed: 1 newly failing task; run now")


def test_an_old_pooled_flaky_label_is_recomputed_from_the_counts(tmp_path: Path) -> None:
    """A baseline written when labels pooled a task's prompts called this task flaky (4/8);
    its per-prompt counts say brittle, so an unchanged run is no label change."""
    spec = {"t1": ("PPPP", "PPPP", "WWWW")}
    base_run = write_run(tmp_path / "runs", "base", typo_prompts(spec))
    doc = make_baseline(base_run, 2).model_dump(mode="json")
    doc["task_labels"]["t1/typo"] = "flaky"
    base_file = tmp_path / "baseline.json"
    base_file.write_text(json.dumps(doc))
    run = write_run(tmp_path / "runs", "now", typo_prompts({"t1": ("PPPP", "WWWW", "WWWW")}))
    result = runner.invoke(
        app, ["gate", str(run), "--baseline", str(base_file), "--tolerance", "1", "--gate-labels"]
    )
    assert result.stdout.splitlines()[-1] == (
        "newly failing: t1/typo: baseline brittle, now 0/8 passed (8 wrong, 0 errored)"
    )
    # without per-prompt counts the written label is all there is
    doc["variants"] = []
    base_file.write_text(json.dumps(doc))
    result = runner.invoke(
        app, ["gate", str(run), "--baseline", str(base_file), "--tolerance", "1", "--strict"]
    )
    assert result.stdout.splitlines()[-1] == (
        "newly failing: t1/typo: baseline flaky, now 0/8 passed (8 wrong, 0 errored)"
    )
