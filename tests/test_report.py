"""perturb report: the trial reader, the figures, golden files for every format, the CLI.

Golden files live in tests/golden/. Regenerate them only deliberately, after checking the
difference by eye:  PERTURB_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/test_report.py
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.errors import InputError, UsageError
from perturb.report.aggregate import analyze
from perturb.report.core import STDOUT, ReportOptions, parse_ks, plan_outputs, run_report
from perturb.report.results import read_run
from tests.synthetic_runs import Prompt, demo_prompts, trial_lines, write_run

GOLDEN = Path(__file__).parent / "golden"
FORMATS = {"txt": "text", "json": "json", "md": "md", "xml": "junit", "html": "html"}
runner = CliRunner()


@pytest.fixture
def demo_run(tmp_path: Path) -> Path:
    return write_run(tmp_path / "runs", "demo-run", demo_prompts(), fixtures=True)


# --------------------------------------------------------------------------- golden files


@pytest.mark.parametrize("ext", sorted(FORMATS))
def test_golden_files(demo_run: Path, tmp_path: Path, ext: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the reports name the run as given: runs/demo-run
    out = tmp_path / "out"
    result = runner.invoke(app, ["report", "runs/demo-run", "--k", "1,2,5", "--out-dir", str(out), "--quiet"])
    assert result.exit_code == 0, result.stderr
    assert f"wrote {out / f'report.{ext}'} ({FORMATS[ext]})" in result.stderr
    produced = (out / f"report.{ext}").read_text(encoding="utf-8")
    golden = GOLDEN / f"report.{ext}"
    if os.environ.get("PERTURB_UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(produced, encoding="utf-8")
    assert produced == golden.read_text(encoding="utf-8")


def test_golden_text_shows_the_seed_figures() -> None:
    text = (GOLDEN / "report.txt").read_text(encoding="utf-8")
    assert "consistency (canonical)  mean 0.550  pass^5 0.250  flaky 2/4  (n=5)" in text
    row = next(line for line in text.splitlines() if line.startswith("canonical    5"))
    assert row.split() == ["canonical", "5", "0.550", "0.550", "0.675", "0.425", "0.750", "0.250"]


def test_library_report_takes_one_options_object(
    demo_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the reports name the run as given: runs/demo-run
    out = tmp_path / "lib"
    result = run_report(
        ReportOptions(
            Path("runs/demo-run"), ks="1,2,5", formats=["md", "json"], outputs=[out / "r.md", STDOUT]
        )
    )
    assert result.stdout_format == "json"
    assert result.written == [("md", out / "r.md")]
    assert result.summary() == f"wrote {out / 'r.md'} (md)"
    assert (out / "r.md").read_text(encoding="utf-8") == (GOLDEN / "report.md").read_text(encoding="utf-8")
    quiet = run_report(ReportOptions(demo_run, ks=[1, 2, 5], bootstrap=50))
    assert quiet.written == [] and quiet.stdout_format == "text"
    assert quiet.summary() == "report of run demo-run: 4 tasks, 14 prompts, 70 trials"
    assert quiet.analysis.ks == [1, 2, 5]


# --------------------------------------------------------------------------- figures


def test_figures_of_the_demo_run(demo_run: Path) -> None:
    a = analyze(read_run(demo_run), [1, 2, 5], bootstrap=2000, seed=0)
    assert [c.kind for c in a.classes] == ["canonical", "paraphrase", "typo"]
    canon, para, typo = a.classes
    assert (canon.mean, canon.pass_at[2], canon.pass_hat[2]) == pytest.approx((0.55, 0.675, 0.425))
    # paraphrase: t1 (5/5, 4/5), t2 (3/5, 1/5), t3 1/5, t4 0/5 -> task means .9 .4 .2 0
    assert para.mean == pytest.approx(0.375)
    assert para.worst_variant_mean == pytest.approx((0.8 + 0.2 + 0.2 + 0.0) / 4)
    assert para.delta is not None
    assert para.delta.n_tasks == 4
    assert para.delta.mean.point == pytest.approx(0.375 - 0.55)
    assert para.delta.mean.low <= para.delta.mean.point <= para.delta.mean.high
    # errored trials: share and the figures without them
    assert (canon.errored, canon.n_trials) == (1, 20)
    assert canon.errored_share == pytest.approx(0.05)
    assert canon.excl_errored_mean == pytest.approx((1 + 0.8 + 0.5 + 0) / 4)  # t3: 2/4
    # labels, consistently wrong, drift
    assert (canon.stable_pass, canon.flaky, canon.stable_fail) == (1, 2, 1)
    assert [(r.task_id, r.kind, r.wrong_output) for r in a.consistently_wrong] == [
        ("t4", "canonical", '{"total":42}'),
        ("t4", "paraphrase", '{"total":42}'),
    ]
    assert [(d.variant_id, d.passed, d.canonical_passed) for d in a.drift] == [
        ("t4/typo/c-0000000000e4", 5, 0)
    ]
    assert a.drift[0].p_value == pytest.approx(1 / 252)
    # intensity levels of paraphrase: 0.2 (4 tasks) and 0.4 (t1, t2)
    assert [(lv.level, lv.n_tasks) for lv in para.levels] == [(0.2, 4), (0.4, 2)]
    assert para.levels[1].mean == pytest.approx((0.8 + 0.2) / 2)
    assert para.levels[1].delta_mean == pytest.approx(0.5 - (1.0 + 0.8) / 2)
    assert typo.levels == []  # one level only
    # latency (0.5 + 0.1 * attempt, t3 1.0 + ...) and cost (t1, t2 only)
    assert canon.latency_p50 == pytest.approx(0.8)
    assert canon.cost_per_attempt == pytest.approx(0.001)
    assert canon.cost_trials == 10
    assert para.cost_per_attempt is None
    # n next to every figure; the n < 4k warning
    assert (canon.n_min, canon.n_max) == (5, 5)
    assert a.warnings[0] == (
        "n=5 trials per prompt is below 4k for k=2 (4k=8), k=5 (4k=20): figures at those k "
        "have little resolution (pass^k = C(c, k) / C(n, k) takes only n - k + 2 values per "
        "prompt, just 0 or 1 at k = n); run n >= 4 x the largest k, here n >= 20"
    )
    # per task view
    t3 = next(r for r in a.tasks if (r.task_id, r.kind) == ("t3", "canonical"))
    assert (t3.passed, t3.wrong, t3.errored, t3.n, t3.label, t3.all_passed) == (2, 2, 1, 5, "flaky", False)
    assert (t3.pass_at[2], t3.pass_hat[2]) == pytest.approx((0.7, 0.1))
    assert [(r.task_id, r.kind) for r in a.worst[:2]] == [("t4", "canonical"), ("t4", "paraphrase")]


def test_delta_uses_matched_tasks_only(tmp_path: Path) -> None:
    # distractor exists for t1 only: its delta compares t1 with t1's canonical prompt
    prompts = [
        Prompt("t1", "PPPP"),
        Prompt("t2", "WWWW"),
        Prompt("t1", "PPWW", "distractor", "c-1", 0.2, 0.2),
    ]
    a = analyze(read_run(write_run(tmp_path, "r", prompts)), [1], bootstrap=100)
    dist = a.classes[1]
    assert dist.mean == 0.5 and a.classes[0].mean == 0.5
    assert dist.delta is not None and dist.delta.n_tasks == 1
    assert dist.delta.mean.point == -0.5  # not 0.5 - 0.5 = 0


def test_a_class_without_canonical_tasks_has_no_delta_and_a_warning(tmp_path: Path) -> None:
    prompts = [Prompt("t1", "PPPP"), Prompt("t2", "PWPW", "typo", "c-1", 0.1, 0.1)]
    a = analyze(read_run(write_run(tmp_path, "r", prompts)), [1], bootstrap=100)
    assert a.classes[1].delta is None
    assert "typo: no task has both canonical and typo trials; no delta" in a.warnings


def test_requested_k_larger_than_n_is_a_usage_error(demo_run: Path) -> None:
    with pytest.raises(UsageError) as exc:
        analyze(read_run(demo_run), [1, 7])
    assert str(exc.value) == (
        "--k 7 exceeds the smallest number of trials per prompt in the run (n=5); "
        "choose k <= 5 or run more trials"
    )
    assert analyze(read_run(demo_run), None, bootstrap=10).ks == [1, 2, 5]


# --------------------------------------------------------------------------- the reader


def _lines(prompts: list[Prompt]) -> list[str]:
    return trial_lines("r", prompts)


def test_highest_retry_wins_and_later_line_wins_a_tie(tmp_path: Path) -> None:
    base = _lines([Prompt("t1", "EE")])
    retried = json.loads(base[0])
    retried.update(outcome="passed", output="ok", error=None, error_kind=None, retry=1)
    stale = json.loads(base[1])
    stale.update(outcome="passed", output="ok", error=None, error_kind=None)  # retry 0 again
    lines = [json.dumps(retried), base[0], base[1], json.dumps(stale)]
    run = write_run(tmp_path, "r", [Prompt("t1", "")], trials=2, extra_lines=lines)
    data = read_run(run)
    (v,) = data.variants
    assert (v.n, v.passed, v.errored) == (2, 2, 0)
    assert data.superseded == 2
    assert data.lines == 4
    assert "2 trial lines were superseded by a later retry of the same attempt" in data.notes


def test_truncated_last_line_is_ignored(tmp_path: Path) -> None:
    full = _lines([Prompt("t1", "PPP")])
    run = write_run(tmp_path, "r", [Prompt("t1", "PP")], tail=full[2][:40])
    data = read_run(run)
    assert data.truncated_tail is True
    assert data.variants[0].n == 2
    assert data.notes == [
        f"{run / 'trials.jsonl'}: the last line is truncated (the writer was stopped mid-line) "
        "and was ignored"
    ]


def test_a_last_line_cut_inside_a_multibyte_character_is_truncated_not_an_error(tmp_path: Path) -> None:
    """Trial lines are UTF-8 (``ensure_ascii=False``): a writer killed mid-character leaves a
    tail that is not valid UTF-8; it is the torn last line, not a damaged file."""
    run = write_run(tmp_path, "r", [Prompt("t1", "PP")])
    full = json.loads(_lines([Prompt("t1", "PPP")])[2])
    full["output"] = "日本語の出力"
    raw = json.dumps(full, ensure_ascii=False).encode("utf-8")
    cut = raw[: raw.index("日".encode()) + 1]  # one byte of a three-byte character
    with (run / "trials.jsonl").open("ab") as fh:
        fh.write(cut)
    with pytest.raises(UnicodeDecodeError):
        cut.decode("utf-8")
    data = read_run(run)
    assert data.truncated_tail is True
    assert data.variants[0].n == 2


def test_a_complete_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    full = _lines([Prompt("t1", "PPW")])
    run = write_run(tmp_path, "r", [Prompt("t1", "PP")], tail=full[2])
    assert read_run(run).variants[0].n == 3


def test_blank_lines_are_skipped(tmp_path: Path) -> None:
    run = write_run(tmp_path, "r", [Prompt("t1", "PP")], extra_lines=["", "   "])
    assert read_run(run).variants[0].n == 2


FIX = (
    "(expected one Trial JSON object per line, as `perturb run` writes them; delete the line, resume "
    "the run (`perturb run` with its original options redoes that trial), then run this command again)"
)
"""The report's own fix text (`perturb run`'s resume says "start a new run with --out")."""


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (
            "{not json",
            f"3: invalid JSON: Expecting property name enclosed in double quotes at column 2 {FIX}",
        ),
        (
            '{"run_id": "r"}',
            "3: suite: missing (expected this field) (and 6 more problems)",
        ),
        ("[1, 2]", f"3: not a trial line {FIX}"),
        (
            '{"run_id": "r", "run_id": "r"}',
            '3: duplicate key "run_id" in one object (expected each key once)',
        ),
        ('{"run_id": "r", "latency_s": NaN}', "3: NaN is not JSON (expected a finite number)"),
        ('{"run_id": "r", "latency_s": 1e999}', "3: number 1e999 is out of range (expected a finite number)"),
    ],
)
def test_bad_line_names_file_and_line(tmp_path: Path, bad: str, message: str) -> None:
    lines = _lines([Prompt("t1", "PPP")])
    run = write_run(
        tmp_path, "r", [Prompt("t1", "")], trials=3, extra_lines=[lines[0], lines[1], bad, lines[2]]
    )
    with pytest.raises(InputError) as exc:
        read_run(run)
    assert str(exc.value) == f"{run / 'trials.jsonl'}:{message}"


def test_bad_field_value_names_the_field(tmp_path: Path) -> None:
    line = json.loads(_lines([Prompt("t1", "P")])[0])
    line["outcome"] = "maybe"
    run = write_run(tmp_path, "r", [Prompt("t1", "P")], extra_lines=[json.dumps(line)])
    with pytest.raises(InputError) as exc:
        read_run(run)
    assert str(exc.value) == (
        f"{run / 'trials.jsonl'}:2: outcome: Input should be 'passed', 'wrong' or 'errored' "
        "(got 'maybe') (expected a Trial record; see `perturb schema trial`)"
    )


def test_inconsistent_records_are_input_errors(tmp_path: Path) -> None:
    other_run = _lines([Prompt("t1", "P")])[0].replace('"run_id":"r"', '"run_id":"other"')
    run = write_run(tmp_path, "r", [Prompt("t1", "P")], extra_lines=[other_run])
    with pytest.raises(InputError) as exc:
        read_run(run)
    assert str(exc.value) == (
        f"{run / 'trials.jsonl'}:2: run_id: 'other' differs from the manifest's run id 'r' "
        "(expected the trials of this run only)"
    )
    heavier = json.loads(_lines([Prompt("t1", "P", "typo", "c-9")])[0])
    heavier["weight"] = 2.0
    run = write_run(tmp_path / "w", "r", [Prompt("t1", "P")], extra_lines=[json.dumps(heavier)])
    with pytest.raises(InputError) as exc:
        read_run(run)
    assert str(exc.value) == (
        f"{run / 'trials.jsonl'}:2: weight: 2.0 differs from 1.0 on an earlier line of task 't1' "
        "(expected one weight per task)"
    )


def test_missing_files_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a run directory"):
        read_run(tmp_path / "nope")
    (tmp_path / "r").mkdir()
    with pytest.raises(InputError, match="manifest.json: no such file"):
        read_run(tmp_path / "r")
    run = write_run(tmp_path, "s", [Prompt("t1", "P")])
    (run / "trials.jsonl").unlink()
    with pytest.raises(InputError, match="trials.jsonl: no such file"):
        read_run(run)
    (run / "trials.jsonl").write_text("")
    with pytest.raises(InputError) as exc:
        analyze(read_run(run))
    assert str(exc.value) == (
        f"{run / 'trials.jsonl'}: no trials (expected at least one Trial line; did the run start?)"
    )


def test_parallel_reading_gives_the_same_result(tmp_path: Path) -> None:
    prompts = demo_prompts() * 1
    run = write_run(tmp_path, "r", prompts)
    serial = read_run(run, workers=1)
    parallel = read_run(run, workers=3, parallel_min_bytes=0)

    def key(d):  # noqa: ANN001, ANN202 - local helper
        return [
            (v.variant_id, v.n, v.passed, v.wrong, v.errored, v.wrong_outputs, v.wrong_sample)
            for v in d.variants
        ]

    assert key(serial) == key(parallel)
    assert serial.trial_latency.tolist() == parallel.trial_latency.tolist()
    assert serial.lines == parallel.lines == 70


def test_parallel_reading_reports_the_absolute_line(tmp_path: Path) -> None:
    lines = _lines(demo_prompts())
    lines[60] = "{broken"
    run = write_run(tmp_path, "r", [Prompt("t1", "")], trials=5, extra_lines=lines)
    with pytest.raises(InputError) as exc:
        read_run(run, workers=2, parallel_min_bytes=0)
    assert str(exc.value).startswith(f"{run / 'trials.jsonl'}:61: invalid JSON")


# --------------------------------------------------------------------------- CLI and outputs


def test_json_to_stdout_has_the_versioned_schema(demo_run: Path) -> None:
    result = runner.invoke(app, ["report", str(demo_run), "-f", "json", "--k", "2"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["schema"] == "perturb.report/v1"
    assert data["schema_version"] == 1
    assert data["definitions"]["pass^k"].startswith("C(c, k) / C(n, k)")
    assert data["definitions"]["pass@k"].startswith("1 - C(n-c, k) / C(n, k)")
    canon = data["classes"][0]
    assert (canon["mean"], canon["pass@k"]["2"], canon["pass^k"]["2"]) == (0.55, 0.675, 0.425)
    assert canon["n_min"] == 5


def test_default_output_is_the_text_scorecard(demo_run: Path) -> None:
    result = runner.invoke(app, ["report", str(demo_run), "--bootstrap", "200"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("RELIABILITY  suite=demo  run=demo-run")
    assert "bootstrap B=200 seed=0" in result.stdout


def test_several_formats_with_paired_and_inferred_outputs(demo_run: Path, tmp_path: Path) -> None:
    md, xml = tmp_path / "summary.txt", tmp_path / "junit.xml"
    result = runner.invoke(
        app, ["report", str(demo_run), "-f", "md", "-o", str(md), "-f", "junit", "-o", str(xml), "-q"]
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert md.read_text().startswith("## perturb reliability: suite `demo`, run `demo-run`")
    root = ET.parse(xml).getroot()
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 12  # 4 tasks x 3 classes
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("12", "7", "1")
    t2 = next(c for c in cases if c.get("name") == "t2" and c.get("classname") == "perturb.demo.canonical")
    failure = t2.find("failure")
    assert failure is not None and failure.get("type") == "flaky"
    assert failure.get("message") == (
        "flaky: 4/5 passed, 1 wrong, 0 errored; pass@1 0.800, pass@5 1.000, pass^5 0.000; "
        "prompt t2/canonical (4/5 passed): Please do t2 (canonical).; expected: ok; got: answer 3"
    )
    props = {p.get("name"): p.get("value") for p in t2.iter("property")}
    assert props["flaky"] == "true"
    t3_typo = next(c for c in cases if c.get("name") == "t3" and c.get("classname") == "perturb.demo.typo")
    error = t3_typo.find("error")
    assert error is not None and error.get("type") == "errored"
    inferred = tmp_path / "r.html"
    result = runner.invoke(app, ["report", str(demo_run), "-o", str(inferred)])
    assert result.exit_code == 0
    assert inferred.read_text().startswith("<!DOCTYPE html>")
    assert result.stdout.startswith("RELIABILITY")  # the scorecard, unless --quiet


def test_html_is_self_contained(demo_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    assert runner.invoke(app, ["report", str(demo_run), "-o", str(out), "-q"]).exit_code == 0
    html = out.read_text()
    for marker in ("http://", "https://", "<link", "src="):
        assert marker not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    # one inline script (the explorer's filters and search), nothing loaded: the CSP forbids it
    assert html.count("<script") == 1 and "<script>" in html
    assert "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'" in html
    assert html.count("<svg") == 2
    assert 'aria-label="delta chart"' in html and 'aria-label="pass^k curves"' in html


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-f", "pdf"], "error: unknown format 'pdf' (expected one of: text, json, md, junit, html)"),
        (
            ["-f", "md", "-f", "json"],
            "error: several formats but no --output: give -o PATH for each -f, or use --out-dir DIR",
        ),
        (
            ["-o", "x.pdf"],
            "error: -o x.pdf: cannot tell the format from the suffix '.pdf' "
            "(use .txt .json .md .xml .html, or give -f FORMAT for each -o)",
        ),
        (
            ["-f", "md", "-o", "a.md", "-o", "b.md"],
            "error: 1 --format and 2 --output options: "
            "give one -f per -o, in order (or only -o PATH with a telling suffix)",
        ),
        (["--k", "1,x"], "error: --k '1,x': 'x' is not a positive whole number (expected e.g. --k 1,2,5)"),
        (
            ["--k", "6"],
            "error: --k 6 exceeds the smallest number of trials per prompt in the run "
            "(n=5); choose k <= 5 or run more trials",
        ),
        (["--bootstrap", "0"], "error: --bootstrap 0 must be >= 1 (e.g. the default 2000)"),
    ],
)
def test_usage_errors_exit_2(demo_run: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["report", str(demo_run), *args])
    assert result.exit_code == 2
    assert result.stderr.strip() == message


def test_bad_input_exits_2_with_file_and_line(tmp_path: Path) -> None:
    run = write_run(tmp_path, "r", [Prompt("t1", "P")], extra_lines=['{"x": 1}'])
    result = runner.invoke(app, ["report", str(run)])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {run / 'trials.jsonl'}:2: ")
    assert "Traceback" not in result.stderr


def test_plan_outputs() -> None:
    assert plan_outputs([], [], None) == [("text", STDOUT)]
    assert plan_outputs(["markdown"], [], None) == [("md", STDOUT)]
    assert plan_outputs([], [Path("a.xml"), Path("-")], None)[0] == ("junit", Path("a.xml"))
    assert plan_outputs([], [], Path("d")) == [
        ("text", Path("d/report.txt")),
        ("json", Path("d/report.json")),
        ("md", Path("d/report.md")),
        ("junit", Path("d/report.xml")),
        ("html", Path("d/report.html")),
    ]
    with pytest.raises(UsageError, match="only one format can go to stdout"):
        plan_outputs(["md", "json"], [Path("-"), Path("-")], None)
    assert parse_ks(None) is None and parse_ks("5, 1,2") == [5, 1, 2]


def test_long_reports_are_capped_in_text_and_markdown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from perturb.report.formats import markdown
    from perturb.report.formats.text import render_text

    spec = [Prompt(f"t{i:03d}", "PPPP" if i % 3 else "PPWW") for i in range(90)]
    a = analyze(read_run(write_run(tmp_path, "r", spec)), [2], bootstrap=50)
    text = render_text(a)
    assert (
        "per task: the 30 rows that are not stable-pass (all 90 rows are in the JSON, "
        "Markdown, JUnit and HTML reports)"
    ) in " ".join(text.split())
    assert text.count(" flaky\n") == 30 + 5  # the per-task rows and the 5 worst tasks
    many = [Prompt(f"t{i:03d}", "PPWW") for i in range(70)]
    b = analyze(read_run(write_run(tmp_path / "b", "r", many)), [2], bootstrap=50)
    assert "per task: the 60 weakest of the 70 rows that are not stable-pass" in " ".join(
        render_text(b).split()
    )
    monkeypatch.setattr(markdown, "MAX_TASK_ROWS", 10)
    md = markdown.render_markdown(a)
    assert "<details><summary>Per task: the 10 weakest of 90 rows</summary>" in md
    assert "_80 more rows are in the JSON and HTML reports._" in md
    assert md.count("| no | flaky |") == 10 + 5  # the per-task rows and the 5 worst tasks


# --------------------------------------------------------------------------- brittle vs flaky


def brittle_run(tmp_path: Path) -> Path:
    """Canonical prompts all pass; typo prompts per task: t1 one always passes, one always
    fails (brittle; pooled 4/8 would read as flaky); t2 one flaky prompt (flaky); t3 both fail
    (stable-fail); t4 both pass (stable-pass); t5 one passes, one always errors (brittle)."""
    typos = {
        "t1": ("PPPP", "WWWW"),
        "t2": ("PPPP", "PPWP"),
        "t3": ("WWWW", "WWWW"),
        "t4": ("PPPP", "PPPP"),
        "t5": ("PPPP", "EEEE"),
    }
    prompts = [Prompt(t, "PPPP") for t in typos]
    for task, outs in typos.items():
        prompts += [Prompt(task, o, "typo", f"c-{task}{'ab'[i]}", 0.1, 0.1) for i, o in enumerate(outs)]
    return write_run(tmp_path, "brittle", prompts)


def test_labels_are_per_prompt_and_brittle_is_not_flaky(tmp_path: Path) -> None:
    a = analyze(read_run(brittle_run(tmp_path)), [1, 2], bootstrap=50)
    canon, typo = a.classes
    assert (canon.stable_pass, canon.flaky, canon.brittle, canon.stable_fail) == (5, 0, 0, 0)
    assert (typo.stable_pass, typo.flaky, typo.brittle, typo.stable_fail) == (1, 1, 2, 1)
    rows = {r.task_id: r for r in a.tasks if r.kind == "typo"}
    assert {t: r.label for t, r in rows.items()} == {
        "t1": "brittle",
        "t2": "flaky",
        "t3": "stable-fail",
        "t4": "stable-pass",
        "t5": "brittle",
    }
    assert (rows["t1"].passed, rows["t1"].n, rows["t1"].always_failing) == (4, 8, ["t1/typo/c-t1b"])
    assert rows["t3"].always_failing == ["t3/typo/c-t3a", "t3/typo/c-t3b"]
    assert rows["t2"].always_failing == []


def test_brittle_is_counted_apart_in_every_format(tmp_path: Path) -> None:
    from perturb.report.formats.html import render_html
    from perturb.report.formats.json_format import to_dict
    from perturb.report.formats.junit import render_junit
    from perturb.report.formats.markdown import render_markdown
    from perturb.report.formats.text import render_text

    a = analyze(read_run(brittle_run(tmp_path)), [1, 2], bootstrap=50)
    # text: the scorecard's flaky and brittle columns, and the brittle list
    lines = render_text(a).splitlines()
    head = next(line for line in lines if line.startswith("class") and "brittle" in line)
    assert head.split()[-3:] == ["flaky", "brittle", "errored"]
    typo_row = next(line for line in lines if line.startswith("typo "))
    assert typo_row.split()[-3:] == ["1/5", "2/5", "10.0%"]
    start = lines.index("brittle: some prompts of the task fail every trial, the others pass every trial")
    assert [line.split() for line in lines[start + 3 : start + 5]] == [
        ["t1", "typo", "4/8", "1", "of", "2:", "c-t1b"],
        ["t5", "typo", "4/8", "1", "of", "2:", "c-t5b"],
    ]
    # JSON
    data = to_dict(a)
    assert data["classes"][1]["labels"] == {"stable-pass": 1, "flaky": 1, "brittle": 2, "stable-fail": 1}
    t1 = next(t for t in data["tasks"] if (t["task_id"], t["class"]) == ("t1", "typo"))
    assert (t1["label"], t1["always_failing"]) == ("brittle", ["t1/typo/c-t1b"])
    assert "otherwise brittle" in data["definitions"]["label"]
    # Markdown
    md = render_markdown(a)
    assert "| matched | flaky | brittle | errored |" in md
    assert "| 5 | 1/5 | 2/5 | 10.0% |" in md
    assert "**Flaky** (1): `t2/typo` 7/8" in md
    assert "**Brittle** (2; prompts that fail every trial): `t1/typo` 1 of 2, `t5/typo` 1 of 2" in md
    # JUnit: brittle is a failure of its own type; flaky keeps the flaky marker
    root = ET.fromstring(render_junit(a))
    suite = root.find("./testsuite[@name='demo.typo']")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("5", "3", "1")
    suite_props = {p.get("name"): p.get("value") for p in suite.findall("./properties/property")}
    assert (suite_props["flaky"], suite_props["brittle"]) == ("1", "2")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    failure = cases["t1"].find("failure")
    assert failure is not None and failure.get("type") == "brittle"
    assert failure.get("message") == (
        "brittle: 4/8 passed, 4 wrong, 0 errored; pass@1 0.500, pass@2 0.500, pass^2 0.500"
    )
    assert failure.text is not None and failure.text.endswith(
        "1 of 2 prompts failed every trial, the others passed every trial: t1/typo/c-t1b"
    )
    props = {p.get("name"): p.get("value") for p in cases["t1"].iter("property")}
    assert props["always_failing"] == "t1/typo/c-t1b" and "flaky" not in props
    flaky = cases["t2"].find("failure")
    assert flaky is not None and flaky.get("type") == "flaky"
    assert {p.get("name"): p.get("value") for p in cases["t2"].iter("property")}["flaky"] == "true"
    error = cases["t5"].find("error")  # its only failures are errored trials
    assert error is not None and error.get("type") == "errored"
    # HTML
    html = render_html(a)
    assert "<th>flaky</th><th>brittle</th><th>errored</th>" in html
    assert "<td>1/5</td><td>2/5</td><td>10.0%</td>" in html
    assert '<span class="brittle" title="failed every trial: t1/typo/c-t1b">brittle</span>' in html


def test_report_and_gate_ignore_the_run_lock_file(demo_run: Path, tmp_path: Path) -> None:
    """``perturb run`` leaves ``runs/<id>/.lock`` (an flock file holding the last writer's
    PID); reading the run neither needs nor takes it, even while a writer holds it."""
    from perturb.run.store import run_lock

    before = runner.invoke(app, ["report", str(demo_run), "-f", "json", "--bootstrap", "50"])
    assert before.exit_code == 0, before.stderr
    base = tmp_path / "baseline.json"
    with run_lock(demo_run):
        assert (demo_run / ".lock").read_text() == str(os.getpid())
        during = runner.invoke(app, ["report", str(demo_run), "-f", "json", "--bootstrap", "50"])
        made = runner.invoke(app, ["baseline", str(demo_run), "-o", str(base)])
        gated = runner.invoke(app, ["gate", str(demo_run), "--baseline", str(base)])
    assert during.exit_code == 0, during.stderr
    assert during.stdout == before.stdout
    assert made.exit_code == 0, made.stderr
    assert gated.exit_code == 0, gated.stdout + gated.stderr
    assert (demo_run / ".lock").exists()  # left in place, as a finished run leaves it


def test_extending_docs_csv_format_renders_the_shared_scorecard(demo_run: Path) -> None:
    page = (Path(__file__).parents[1] / "docs" / "extending.md").read_text(encoding="utf-8")
    source = "# csv_report.py" + page.split("```python\n# csv_report.py", 1)[1].split("```", 1)[0]
    namespace: dict[str, object] = {}
    exec(compile(source, "csv_report.py", "exec"), namespace)  # noqa: S102 -- our own docs page
    spec = namespace["SPEC"]
    rendered = spec.render(analyze(read_run(demo_run), [1, 2, 5], bootstrap=200, seed=0))  # type: ignore[attr-defined]
    lines = rendered.splitlines()
    assert (
        lines[0]
        == "class,tasks,n,mean,pass@5,pass^5,Δ mean [95%],Δ pass^5 [95%],matched,flaky,brittle,errored"
    )
    assert lines[1] == "canonical,4,5,0.550,0.750,0.250,-,-,-,2/4,0/4,5.0%"
    assert len(lines) == 1 + len({line.split(",")[0] for line in lines[1:]})


@pytest.mark.parametrize(
    ("pattern", "replacement", "message"),
    [
        (
            r'"outcome":',
            '"outcome":"wrong","outcome":',
            'duplicate key "outcome" in one object (expected each key once)',
        ),
        (r'"latency_s":[^,]+', '"latency_s":NaN', "NaN is not JSON (expected a finite number)"),
    ],
)
def test_report_and_resume_refuse_a_damaged_trial_line_alike(
    tmp_path: Path, pattern: str, replacement: str, message: str
) -> None:
    """One strict reader: a duplicate key (or NaN) inside a trials line is refused by
    `perturb report` with the same one-line error as by the resume scan of `perturb run`."""
    from perturb.testing.suite import make_suite

    fixtures = make_suite(
        tmp_path, [{"id": "a", "prompt": "Say hi", "expected": "Say hi", "grader": "exact"}]
    )
    run = [
        "run",
        str(fixtures),
        "--agent",
        "tests.sample_agents:echo",
        "-n",
        "2",
        "--out",
        str(tmp_path / "r"),
    ]
    assert CliRunner().invoke(app, run).exit_code == 0
    trials = tmp_path / "r" / "trials.jsonl"
    lines = trials.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) == 2
    lines[1] = re.sub(pattern, replacement, lines[1], count=1)
    trials.write_text("".join(lines), encoding="utf-8")
    before = trials.read_bytes()
    expected = f"error: {trials}:2: {message}\n"
    for args in (["report", str(tmp_path / "r")], run):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, result.output
        assert result.stderr == expected
        assert result.stdout == ""
    assert trials.read_bytes() == before
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == [".lock", "manifest.json", "trials.jsonl"]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("[1, 2]", "not a trial line"),
        ("{not json", "invalid JSON: Expecting property name enclosed in double quotes at column 2"),
    ],
)
def test_report_says_what_to_do_about_a_bad_line_and_resume_keeps_its_own_advice(
    tmp_path: Path, bad: str, message: str
) -> None:
    """A bad line in the middle of trials.jsonl: `perturb report` ends its error with how to
    repair the run (delete the line, resume to redo the trial, report again); the resume scan of
    `perturb run` ends the same refusal with its own advice (a new run with --out)."""
    from perturb.testing.suite import make_suite

    fixtures = make_suite(
        tmp_path, [{"id": "a", "prompt": "Say hi", "expected": "Say hi", "grader": "exact"}]
    )
    out = tmp_path / "r"
    run = ["run", str(fixtures), "--agent", "tests.sample_agents:echo", "-n", "2", "--out", str(out)]
    assert CliRunner().invoke(app, run).exit_code == 0
    trials = out / "trials.jsonl"
    lines = trials.read_text(encoding="utf-8").splitlines(keepends=True)
    trials.write_text(lines[0] + bad + "\n" + lines[1], encoding="utf-8")
    before = trials.read_bytes()
    for args in (["report", str(out)], ["baseline", str(out), "--output", str(tmp_path / "b.json")]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, result.output
        assert result.stderr == (
            f"error: {trials}:2: {message} (expected one Trial JSON object per line, as `perturb run` "
            "writes them; delete the line, resume the run (`perturb run` with its original options "
            "redoes that trial), then run this command again)\n"
        )
    result = CliRunner().invoke(app, run)
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: {trials}:2: {message} (expected one Trial JSON object per line; remove the line or "
        "start a new run with --out)\n"
    )
    assert trials.read_bytes() == before
    assert not (tmp_path / "b.json").exists()
