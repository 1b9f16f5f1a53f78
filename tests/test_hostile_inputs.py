"""Issue #11 items 13-18 and the reader fuzz pass: every file perturb reads goes through one
JSON loader (``perturb.io.jsonl.loads_strict``) and one file opener (``open_regular``).

Hostile content -- non-finite numbers, nesting deeper than the limit, integers longer than
4,300 digits, a key repeated in one object, a byte-order mark -- and non-regular files (a FIFO,
a directory) at every input path are refused by every reader with a one-line ``FILE:LINE``
error (exit 2 from the CLI, nothing written), never a traceback, a hang or a silent default.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from perturb.cli import app
from perturb.errors import ConfigError, InputError
from perturb.freeze.fixtures import load_fixtures, load_lock
from perturb.io.config import load_tiers
from perturb.io.jsonl import MAX_DEPTH, MAX_INT_DIGITS, loads_strict
from perturb.report.gate import load_baseline
from perturb.report.results import read_run
from perturb.review.journal import load_candidates, read_journal
from perturb.run.store import read_manifest, scan_trials
from perturb.tasks import load_tasks
from perturb.testing.suite import make_suite
from tests.fault_helpers import assert_clean, snapshot

runner = CliRunner()
AGENT = "hostile_agent_q3:agent"
TASKS = [
    {"id": "a1", "prompt": "Refund order 42 please.", "expected": "42", "grader": "contains"},
    {"id": "b2", "prompt": "Book Rome on Friday.", "expected": "Rome", "grader": "contains"},
]
VARIANTS = [("a1", "paraphrase", "Please refund order 42."), ("b2", "typo", "Book Rome on Fridya.")]


@pytest.fixture(autouse=True)
def no_hang() -> Iterator[None]:
    """A reader that blocks on a FIFO fails the test instead of hanging the suite."""

    def boom(*_: object) -> None:
        raise TimeoutError("a reader blocked (expected an immediate refusal)")

    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


# --------------------------------------------------------------------------- the loader


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": 1, "a": 2}', 'f.json:1: duplicate key "a" in one object (expected each key once)'),
        ('{\n"w": 1,\n"w": 2}', 'f.json:3: duplicate key "w" in one object (expected each key once)'),
        ('{"w": 1e999}', "f.json:1: number 1e999 is out of range (expected a finite number)"),
        ('{"w": -1E400}', "f.json:1: number -1E400 is out of range (expected a finite number)"),
        ('{"w": NaN}', "f.json:1: NaN is not JSON (expected a finite number)"),
        ('{"w":\n-Infinity}', "f.json:2: -Infinity is not JSON (expected a finite number)"),
        ("[" * 101 + "]" * 101, "f.json:1: nested deeper than 100 levels (expected at most 100)"),
        (
            '{"n": ' + "7" * 4301 + "}",
            "f.json:1: integer of 4301 digits (expected at most 4300 digits)",
        ),
        (
            "\ufeff{}",
            "f.json:1: starts with a byte-order mark (expected UTF-8 without BOM; re-save it without BOM)",
        ),
    ],
)
def test_loader_refuses_with_file_and_line(text: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        loads_strict(text, "f.json")
    assert str(err.value) == message


def test_loader_limits_are_inclusive() -> None:
    assert loads_strict("[" * MAX_DEPTH + "]" * MAX_DEPTH, "f") == eval("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    assert loads_strict("7" * MAX_INT_DIGITS, "f") == int("7" * MAX_INT_DIGITS)
    # brackets inside strings are text, not nesting
    assert loads_strict(json.dumps({"t": "[" * 500}), "f") == {"t": "[" * 500}
    assert loads_strict('{"a": 1.5e300, "b": -0.0}', "f") == {"a": 1.5e300, "b": -0.0}


# --------------------------------------------------------------------------- a project


@pytest.fixture(scope="module")
def golden(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Frozen fixtures, review files, a finished run (runs/r) and a baseline."""
    root = tmp_path_factory.mktemp("hostile")
    make_suite(root, TASKS, VARIANTS)
    (root / f"{AGENT.split(':')[0]}.py").write_text("def agent(prompt, request):\n    return prompt\n")
    fx = str(root / "fixtures/demo.jsonl")
    out = str(root / "runs/r")
    result = runner.invoke(app, ["run", fx, "--agent", AGENT, "--trials", "2", "--out", out])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["baseline", out, "--output", str(root / "evals/baseline.json")])
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture(scope="module")
def copy_of(golden: Path) -> Callable[[], Any]:
    class _Copy:
        def __enter__(self) -> Path:
            self.tmp = tempfile.mkdtemp()
            root = Path(self.tmp) / "p"
            shutil.copytree(golden, root, symlinks=True)
            return root

        def __exit__(self, *exc: object) -> None:
            shutil.rmtree(self.tmp, ignore_errors=True)

    return _Copy


READERS: dict[str, Callable[[Path], Any]] = {
    "tasks/demo.jsonl": lambda root: load_tasks(root / "tasks/demo.jsonl"),
    "review/demo/candidates.jsonl": lambda root: load_candidates(root / "review/demo/candidates.jsonl"),
    "review/demo/journal.jsonl": lambda root: read_journal(root / "review/demo/journal.jsonl"),
    "fixtures/demo.jsonl": lambda root: load_fixtures(root / "fixtures/demo.jsonl"),
    "fixtures/demo.lock.json": lambda root: load_lock(root / "fixtures/demo.lock.json"),
    "runs/r/manifest.json": lambda root: read_manifest(root / "runs/r/manifest.json"),
    "evals/baseline.json": lambda root: load_baseline(root / "evals/baseline.json"),
    "runs/r/trials.jsonl (resume)": lambda root: scan_trials(root / "runs/r/trials.jsonl"),
    "runs/r/trials.jsonl (report)": lambda root: read_run(root / "runs/r", workers=1),
}
"""Every JSON reader, by the file it reads."""

PAYLOADS = st.one_of(
    st.sampled_from(["NaN", "Infinity", "-Infinity"]).map(lambda c: (c, f"{c} is not JSON")),
    st.sampled_from(["1e999", "-1e400", "2E+5000"]).map(lambda n: (n, "is out of range")),
    st.integers(MAX_DEPTH + 1, 5000).map(lambda d: ("[" * d + "]" * d, "nested deeper than 100")),
    st.integers(MAX_INT_DIGITS + 1, 6000).map(lambda n: ("9" * n, f"integer of {n} digits")),
    st.just(('1, "_h": 2', "duplicate key")),
)


def _file(key: str) -> str:
    return key.split(" ")[0]


def _opens_member(lines: list[str], i: int) -> bool:
    """Whether the first ``{`` on line ``i`` opens a non-empty object (its next non-blank
    character is a member's opening quote), so a member inserted right after it, followed by
    a comma, keeps the JSON valid but for the injected value (an empty ``{}`` would end up as
    ``{"_h": 1, }``, a syntax error that hides what the test checks)."""
    rest = lines[i][lines[i].index("{") + 1 :].strip()
    if not rest and i + 1 < len(lines):
        rest = lines[i + 1].strip()
    return rest.startswith('"')


def _reject(reader: Callable[[Path], Any], root: Path) -> str:
    with pytest.raises((InputError, ConfigError)) as err:
        reader(root)
    message = str(err.value)
    assert "\n" not in message and "Traceback" not in message, message
    return message


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), key=st.sampled_from(sorted(READERS)), payload=PAYLOADS)
def test_fuzz_every_reader_refuses_hostile_json(
    copy_of: Callable[[], Any], data: st.DataObject, key: str, payload: tuple[str, str]
) -> None:
    """Inject a hostile value as the first member of an object on a chosen line; every reader
    refuses it with FILE:LINE naming exactly that line."""
    text, phrase = payload
    with copy_of() as root:
        path = root / _file(key)
        lines = path.read_text(encoding="utf-8").split("\n")
        candidates = [i for i, ln in enumerate(lines) if "{" in ln and _opens_member(lines, i)]
        i = data.draw(st.sampled_from(candidates))
        at = lines[i].index("{") + 1
        lines[i] = lines[i][:at] + f'"_h": {text}, ' + lines[i][at:]
        path.write_text("\n".join(lines), encoding="utf-8")
        message = _reject(READERS[key], root)
        if key.endswith("(report)"):
            assert message.startswith(f"{path}:{i + 1}: "), message  # pydantic's verdict, same line
        else:
            assert message.startswith(f"{path}:{i + 1}: "), message
            assert phrase in message, message


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(READERS))
@pytest.mark.parametrize("kind", ["fifo", "directory", "bom"])
def test_every_reader_refuses_non_regular_files_and_bom(
    copy_of: Callable[[], Any], key: str, kind: str
) -> None:
    with copy_of() as root:
        path = root / _file(key)
        if kind == "bom":
            path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
            message = _reject(READERS[key], root)
            assert message.startswith(f"{path}:1: "), message
            if not key.endswith("(report)"):
                assert "byte-order mark" in message, message
            return
        path.unlink()
        if kind == "fifo":
            os.mkfifo(path)
        else:
            path.mkdir()
        message = _reject(READERS[key], root)
        shown = "a FIFO, not a regular file" if kind == "fifo" else "is a directory"
        assert message.startswith(f"{path}: ") and shown in message, message


def test_a_fifo_pyproject_is_refused_not_skipped(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pyproject.toml")
    with pytest.raises(ConfigError) as err:
        load_tiers(tmp_path)
    assert str(err.value) == (
        f"{tmp_path / 'pyproject.toml'}: is a FIFO, not a regular file (expected a file) "
        "(expected a UTF-8 TOML file)"
    )


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("[tool.perturb.tiers.x]\ntrials = " + "9" * 5000 + "\n", "invalid TOML value"),
        ("[tool.perturb]\nx = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    ],
)
def test_hostile_pyproject_is_one_line(tmp_path: Path, text: str, phrase: str) -> None:
    (tmp_path / "pyproject.toml").write_text(text)
    with pytest.raises(ConfigError) as err:
        load_tiers(tmp_path)
    assert str(err.value).startswith(f"{tmp_path / 'pyproject.toml'}: ") and phrase in str(err.value)
    assert "\n" not in str(err.value)


# --------------------------------------------------------------------------- the CLI, item by item


def test_item13_infinite_weight_fails_validate_not_freeze(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks/t.jsonl"
    tasks.parent.mkdir()
    tasks.write_text('{"id": "a", "prompt": "p", "expected": "x", "grader": "exact", "weight": 1e999}\n')
    result = runner.invoke(app, ["validate", str(tasks)])
    assert_clean(result)
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: {tasks}:1: number 1e999 is out of range (expected a finite number)"
    )
    before = snapshot(tmp_path)
    result = runner.invoke(app, ["freeze", "--root", str(tmp_path)])
    assert_clean(result)
    assert result.exit_code == 2 and snapshot(tmp_path) == before


def test_item13_nan_latency_fails_report_and_leaves_no_file(copy_of: Callable[[], Any]) -> None:
    with copy_of() as root:
        trials = root / "runs/r/trials.jsonl"
        lines = trials.read_text().splitlines(keepends=True)
        obj = json.loads(lines[1])
        lines[1] = (
            json.dumps(obj).replace(f'"latency_s": {json.dumps(obj["latency_s"])}', '"latency_s": NaN') + "\n"
        )
        assert "NaN" in lines[1]
        trials.write_text("".join(lines))
        before = snapshot(root)
        result = runner.invoke(
            app, ["report", str(root / "runs/r"), "-f", "json", "--out-dir", str(root / "out")]
        )
        assert_clean(result)
        assert result.exit_code == 2, result.output
        assert result.stderr == f"error: {trials}:2: NaN is not JSON (expected a finite number)\n"
        assert snapshot(root) == before and not (root / "out").exists()
        resume = runner.invoke(
            app,
            [
                "run",
                str(root / "fixtures/demo.jsonl"),
                "--agent",
                AGENT,
                "--trials",
                "2",
                "--out",
                str(root / "runs/r"),
            ],
        )
        assert_clean(resume)
        assert resume.exit_code == 2
        assert resume.stderr == result.stderr  # one strict reader: the same line


def test_item13_nan_timeout_in_manifest_is_one_line_on_resume(copy_of: Callable[[], Any]) -> None:
    with copy_of() as root:
        manifest = root / "runs/r/manifest.json"
        text = manifest.read_text()
        manifest.write_text(text.replace('"timeout_s": ', '"timeout_s": Infinity, "x_": ', 1))
        before = snapshot(root)
        resume = runner.invoke(
            app,
            [
                "run",
                str(root / "fixtures/demo.jsonl"),
                "--agent",
                AGENT,
                "--trials",
                "2",
                "--out",
                str(root / "runs/r"),
            ],
        )
        assert_clean(resume)
        assert resume.exit_code == 2
        line = text[: text.index('"timeout_s"')].count("\n") + 1
        assert resume.stderr.strip() == (
            f"error: {manifest}:{line}: Infinity is not JSON (expected a finite number)"
        )
        assert snapshot(root) == before


def test_item16_duplicate_keys_in_a_task_are_refused(tmp_path: Path) -> None:
    tasks = tmp_path / "t.jsonl"
    tasks.write_text(
        '{"id": "a", "prompt": "p", "expected": "x", "grader": "exact"}\n'
        '{"id": "b", "prompt": "p", "expected": "x", "grader": "exact", "grader": "contains"}\n'
    )
    result = runner.invoke(app, ["validate", str(tasks)])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f'error: {tasks}:2: duplicate key "grader" in one object (expected each key once)'
    )


def test_item17_bom_trials_one_verdict_for_resume_and_report(copy_of: Callable[[], Any]) -> None:
    with copy_of() as root:
        trials = root / "runs/r/trials.jsonl"
        trials.write_bytes(b"\xef\xbb\xbf" + trials.read_bytes())
        before = snapshot(root)
        report = runner.invoke(app, ["report", str(root / "runs/r")])
        resume = runner.invoke(
            app,
            [
                "run",
                str(root / "fixtures/demo.jsonl"),
                "--agent",
                AGENT,
                "--trials",
                "2",
                "--out",
                str(root / "runs/r"),
            ],
        )
        for result in (report, resume):
            assert_clean(result)
            assert result.exit_code == 2, result.output
            assert result.stderr.startswith(f"error: {trials}:1: "), result.stderr
        assert "byte-order mark" in resume.stderr
        assert snapshot(root) == before


def test_item18_out_pointing_at_a_file(copy_of: Callable[[], Any]) -> None:
    with copy_of() as root:
        fx = root / "fixtures/demo.jsonl"
        before = snapshot(root)
        result = runner.invoke(app, ["run", str(fx), "--agent", AGENT, "--out", str(fx)])
        assert_clean(result)
        assert result.exit_code == 2
        assert result.stderr.strip() == (
            f"error: --out {fx}: is a file, not a directory (expected a run directory, new or "
            "written by `perturb run`; choose another --out)"
        )
        assert snapshot(root) == before


# --------------------------------------------------------------------------- items 1 and 2


def test_item1_suite_names_cannot_leave_their_directory(copy_of: Callable[[], Any]) -> None:
    with copy_of() as root:
        before = snapshot(root)
        for name in ("../tasks/demo", "/etc/passwd", "a/b", "..", ".hidden", "a\x1bb"):
            for cmd in (["freeze", name], ["verify", name], ["review", name, "--list"]):
                result = runner.invoke(app, [*cmd, "--root", str(root)])
                assert_clean(result)
                assert result.exit_code == 2, (cmd, result.output)
                shown = name if name.isprintable() else name.encode("unicode_escape").decode()
                assert result.stderr.strip() == (
                    f"error: suite name {shown!r} is not a plain name (expected letters, digits, "
                    "'_', '-' or '.', starting with a letter or digit, without '..', '/' or an "
                    "absolute path; name the suite as it appears in tasks/<suite>.jsonl)"
                )
        assert snapshot(root) == before


def test_item1_accept_does_not_append_through_a_symlink_out_of_the_project(
    copy_of: Callable[[], Any], tmp_path: Path
) -> None:
    with copy_of() as root:
        outside = tmp_path / "outside.jsonl"
        outside.write_text("precious\n")
        journal = root / "review/demo/journal.jsonl"
        journal.unlink()
        journal.symlink_to(outside)
        cand = json.loads((root / "review/demo/candidates.jsonl").read_text().splitlines()[0])
        result = runner.invoke(app, ["accept", cand["id"], "--reviewer", "x", "--root", str(root)])
        assert_clean(result)
        assert result.exit_code == 2
        assert result.stderr.strip() == (
            f"error: {journal}: leads outside {root} (resolves to {outside}; expected a path inside "
            f"{root}; remove the symlink or use a path inside the project)"
        )
        assert outside.read_text() == "precious\n"


def test_item2_a_fixture_plus_lock_edit_that_bypasses_review_fails_verify(copy_of: Callable[[], Any]) -> None:
    """The attack of the issue: a canonical line's grader pointed at other code, its lock hash
    recomputed. The lock check passes; the re-derivation from tasks/ + review/ does not."""
    from perturb.freeze.fixtures import render_fixture_line
    from perturb.io.hashing import content_hash

    with copy_of() as root:
        fx = root / "fixtures/demo.jsonl"
        lock_path = root / "fixtures/demo.lock.json"
        entries = load_fixtures(fx)
        data = entries[0].model_dump(mode="json")
        data["grader"] = {"type": "callable", "function": "evilmod:fn"}
        evil = type(entries[0]).model_validate(data)
        lines = fx.read_bytes().splitlines(keepends=True)
        lines[0] = render_fixture_line(evil)
        fx.write_bytes(b"".join(lines))
        lock = json.loads(lock_path.read_text())
        for e in lock["entries"]:
            if e["id"] == evil.id:
                e["sha256"] = content_hash(evil)
        lock_path.write_text(json.dumps(lock, indent=2) + "\n")
        (root / "evilmod.py").write_text(
            "import pathlib\npathlib.Path('PWNED').write_text('x')\ndef fn(o, e):\n    return True\n"
        )
        result = runner.invoke(app, ["verify", "--root", str(root)])
        assert_clean(result)
        assert result.exit_code == 1, result.output
        assert (
            f"{fx}:1: UNREVIEWED {evil.id}: grader.type is "
            '"callable", but tasks/ and review/ freeze to '
            '"contains" (restore the fixtures and lock from git, or review the change '
            "(`perturb review demo`) and run `perturb freeze demo`)"
        ) in result.output.splitlines()
        run = runner.invoke(
            app, ["run", str(fx), "--agent", AGENT, "--trials", "1", "--out", str(root / "runs/x")]
        )
        assert run.exit_code == 1, run.output
        assert not (root / "PWNED").exists() and not (root / "runs/x").exists()


def test_item2_an_unreviewed_variant_line_fails_verify(copy_of: Callable[[], Any]) -> None:
    with copy_of() as root:
        fx = root / "fixtures/demo.jsonl"
        journal = root / "review/demo/journal.jsonl"
        journal.write_text(journal.read_text().splitlines(keepends=True)[0])  # only the 1st accept
        result = runner.invoke(app, ["verify", "--root", str(root)])
        assert result.exit_code == 1
        variant = [e for e in load_fixtures(fx) if e.task_id == "b2" and e.perturbation == "typo"][0]
        line = [i for i, e in enumerate(load_fixtures(fx), 1) if e.id == variant.id][0]
        assert (
            f"{fx}:{line}: UNREVIEWED {variant.id}: `perturb freeze` does not build this entry (no "
            "accepted or edited decision for it in review/demo/journal.jsonl; restore the fixtures "
            "and lock from git, or review the change (`perturb review demo`) and run `perturb freeze demo`)"
        ) in result.output.splitlines()


# --------------------------------------------------------------------------- items 3 and 4


def _freeze(root: Path, *extra: str) -> Any:
    result = runner.invoke(app, ["freeze", "--root", str(root), *extra])
    assert_clean(result)
    return result


def test_item3_a_torn_last_journal_line_is_refused_not_lost(copy_of: Callable[[], Any]) -> None:
    with copy_of() as root:
        journal = root / "review/demo/journal.jsonl"
        lines = journal.read_bytes().splitlines(keepends=True)
        journal.write_bytes(b"".join(lines[:-1]) + lines[-1][:-20])  # the last decision torn
        before = snapshot(root)
        result = _freeze(root)
        assert result.exit_code == 2, (result.output, journal.read_bytes())
        assert result.stderr.strip() == (
            f"error: {journal}:{len(lines)}: truncated last line: a decision was cut off mid-write and "
            "freezing now would lose it (run `perturb review`, `accept` or `reject` to re-record it "
            "-- the next append removes the partial line -- then freeze)"
        )
        assert snapshot(root) == before


@pytest.mark.parametrize("emptied", ["candidates.jsonl", "journal.jsonl"])
def test_item3_an_emptied_review_file_does_not_shrink_the_fixtures(
    copy_of: Callable[[], Any], emptied: str
) -> None:
    with copy_of() as root:
        (root / "review/demo" / emptied).write_text("")
        fx = root / "fixtures/demo.jsonl"
        variants = [e.id for e in load_fixtures(fx) if e.perturbation != "canonical"]
        assert len(variants) == 2
        before = snapshot(root)
        result = _freeze(root)
        assert result.exit_code == 2
        assert result.stderr.strip() == (
            f"error: {fx}: freezing would drop 2 variants the current fixtures hold, with no "
            f"decision on them in {root / 'review/demo/journal.jsonl'}: {', '.join(variants)} "
            f"(expected the candidates and journal that froze them; restore {root / 'review/demo'} "
            "from git, or pass --allow-drop to drop them)"
        )
        assert snapshot(root) == before
        result = _freeze(root, "--allow-drop")
        assert result.exit_code == 0
        assert result.stdout.splitlines()[-1] == (
            f"dropped 2 variants the previous fixtures held: {', '.join(variants)}"
        )
        assert [e.perturbation for e in load_fixtures(fx)] == ["canonical", "canonical"]


def test_item3_a_rejection_in_the_journal_drops_loudly(copy_of: Callable[[], Any]) -> None:
    with copy_of() as root:
        fx = root / "fixtures/demo.jsonl"
        variant = next(e for e in load_fixtures(fx) if e.perturbation == "typo")
        result = runner.invoke(
            app,
            ["reject", str(variant.candidate_id), "--reviewer", "x", "--reason", "bad", "--root", str(root)],
        )
        assert result.exit_code == 0, result.output
        result = _freeze(root)
        assert result.exit_code == 0
        assert result.stdout.splitlines()[-1] == f"dropped 1 variant the previous fixtures held: {variant.id}"


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_item4_gate_refuses_a_non_finite_baseline(copy_of: Callable[[], Any], value: str) -> None:
    with copy_of() as root:
        path = root / "evals/baseline.json"
        text = path.read_text()
        at = text.index('"mean": ')
        end = text.index(",", at)
        path.write_text(text[:at] + f'"mean": {value}' + text[end:])
        line = text[:at].count("\n") + 1
        result = runner.invoke(app, ["gate", str(root / "runs/r"), "--baseline", str(path)])
        assert_clean(result)
        assert result.exit_code == 2
        shown = "out of range" if value == "1e999" else "is not JSON"
        assert result.stderr.startswith(f"error: {path}:{line}: ") and shown in result.stderr
        assert "passed" not in result.stdout


def test_item4_gate_refuses_a_missing_figure(copy_of: Callable[[], Any]) -> None:
    with copy_of() as root:
        path = root / "evals/baseline.json"
        data = json.loads(path.read_text())
        del data["classes"]["canonical"]["pass_hat_k"]
        path.write_text(json.dumps(data, indent=2))
        result = runner.invoke(app, ["gate", str(root / "runs/r"), "--baseline", str(path)])
        assert_clean(result)
        assert result.exit_code == 2
        assert result.stderr.strip().startswith(f"error: {path}: classes.canonical.pass_hat_k: missing")
