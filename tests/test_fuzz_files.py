"""Fuzzed fixture, lock, trial and baseline files (task files: tests/test_fuzz_tasks.py).

A small valid project is built once (tasks, frozen fixtures and lock, a finished run, a
baseline). Each example copies it, damages one file the way real files get damaged --
truncated at any byte, a field of the wrong type or missing or unknown, a huge line, bytes
that are not UTF-8, a duplicated line (duplicate ids), an unknown class, k > n -- and runs
the commands that read that file. Every command must end in exit 0, in the documented exit 1
(verify found drift, the gate found a regression) or in one-line ``error:`` messages with
exit 2: never a traceback. A command that fails writes nothing (no half-written output, no
half-created run directory); verify never writes at all.
"""

from __future__ import annotations

import copy
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from perturb.cli import app
from perturb.records import Task, Trial
from perturb.report.gate import load_baseline
from perturb.testing.suite import make_suite
from tests.fault_helpers import assert_clean, snapshot
from tests.review_project import make_candidate, write_lines

pytestmark = pytest.mark.slow

runner = CliRunner()
N = 3
AGENT = "fuzz_agent_t7:agent"
TASKS = [
    {
        "id": "a1",
        "prompt": "Refund order 42 please.",
        "expected": "Refund order 42 please.",
        "grader": "exact",
        "slots": {"order": "42"},
    },
    {
        "id": "b2",
        "prompt": "Book Rome on Friday.",
        "expected": "Rome",
        "grader": "contains",
        "weight": 2,
        "metadata": {"tier": "gold"},
    },
    {"id": "c3", "prompt": "What is 6 times 7?", "expected": 42, "grader": "numeric"},
]
VARIANTS = [
    ("a1", "paraphrase", "Please refund order 42."),
    ("b2", "typo", "Book Rome on Fridya."),
    ("b2", "distractor", "My cat sleeps a lot. Book Rome on Friday."),
]
FUZZ = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(scope="module")
def golden(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with frozen fixtures, a finished run (runs/r) and a baseline."""
    root = tmp_path_factory.mktemp("golden")
    make_suite(root, TASKS, VARIANTS)
    (root / "fuzz_agent_t7.py").write_text(
        "def agent(prompt, request):\n    return 42 if 'times' in prompt else prompt\n"
    )
    result = runner.invoke(
        app,
        [
            "run",
            str(root / "fixtures/demo.jsonl"),
            "--agent",
            AGENT,
            "--trials",
            str(N),
            "--out",
            str(root / "runs/r"),
        ],
    )
    assert result.exit_code == 0, result.stderr
    result = runner.invoke(
        app, ["baseline", str(root / "runs/r"), "-o", str(root / "evals/baseline.json"), "--k", "2"]
    )
    assert result.exit_code == 0, result.stderr
    # the review directory the fixtures were frozen from (make_suite), plus three newer
    # candidates, one of them accepted and not frozen yet, as `perturb generate` and
    # `perturb accept` leave it
    tasks = {t["id"]: Task.model_validate(t) for t in TASKS}
    cands = [
        make_candidate(tasks["a1"], "paraphrase", "Could you refund order 42?", suite="demo"),
        make_candidate(tasks["b2"], "typo", "Book Rome on Firday.", suite="demo"),
        make_candidate(tasks["c3"], "register", "Kindly, what is 6 times 7?", suite="demo"),
    ]
    path = root / "review/demo/candidates.jsonl"
    frozen = path.read_text(encoding="utf-8")
    write_lines(path, cands)
    path.write_text(frozen + path.read_text(encoding="utf-8"), encoding="utf-8")
    result = runner.invoke(app, ["accept", cands[0].id, "--reviewer", "Fuzz", "--root", str(root)])
    assert result.exit_code == 0, result.stderr
    return root


@pytest.fixture(scope="module")
def copy_of(golden: Path) -> Callable[[], Any]:
    """``with copy_of() as root:`` a fresh copy of the golden project for one example."""

    class _Copy:
        def __enter__(self) -> Path:
            self.tmp = tempfile.TemporaryDirectory()
            root = Path(self.tmp.name) / "p"
            shutil.copytree(golden, root, ignore=shutil.ignore_patterns("__pycache__"))
            return root

        def __exit__(self, *exc: object) -> None:
            self.tmp.cleanup()

    return _Copy


# --------------------------------------------------------------------------- damage

wrong_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.text(max_size=12),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
    st.sampled_from(["bogus_class", "canonical", "paraphrase", "", "../../etc/passwd"]),
)


def _containers(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(obj, dict | list):
        yield path
        items = obj.items() if isinstance(obj, dict) else enumerate(obj)
        for key, value in items:
            yield from _containers(value, (*path, key))


def _at(obj: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        obj = obj[key]
    return obj


def damage_json(data: st.DataObject, obj: Any) -> Any:
    """A copy of ``obj`` with one structural change somewhere in its tree."""
    obj = copy.deepcopy(obj)
    paths = list(_containers(obj))
    if not paths:
        return data.draw(wrong_values)
    node = _at(obj, data.draw(st.sampled_from(paths)))
    keys = list(node) if isinstance(node, dict) else list(range(len(node)))
    action = data.draw(st.sampled_from(["replace", "delete", "add", "duplicate"]))
    if action == "add" or not keys:
        if isinstance(node, dict):
            node[data.draw(st.sampled_from(["extra", "ouput", "k", "n"]))] = data.draw(wrong_values)
        else:
            node.append(data.draw(wrong_values))
        return obj
    key = data.draw(st.sampled_from(keys))
    if action == "replace":
        node[key] = data.draw(wrong_values)
    elif action == "delete":
        del node[key]
    elif isinstance(node, list):
        node.append(copy.deepcopy(node[key]))
    else:
        node[key] = copy.deepcopy(node)  # a nested copy of itself
    return obj


def damage_bytes(data: st.DataObject, raw: bytes, lines: bool) -> bytes:
    """Byte- or line-level damage: truncation, bad UTF-8, a huge line, a duplicated, dropped or
    reordered line, a blank line, a line that is not an object."""
    parts = raw.split(b"\n")[:-1] if lines else [raw]
    kind = data.draw(
        st.sampled_from(
            ["truncate", "utf8", "huge", "duplicate", "drop", "swap", "blank", "array", "nan"]
            if lines
            else ["truncate", "utf8", "huge", "array", "nan"]
        )
    )
    if kind == "truncate":
        return raw[: data.draw(st.integers(0, max(0, len(raw) - 1)))]
    if kind == "utf8":
        at = data.draw(st.integers(0, len(raw)))
        return raw[:at] + data.draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"])) + raw[at:]
    if kind == "nan":
        return raw.replace(b"0.", b"NaN", 1).replace(b"1,", b"Infinity,", 1)
    if kind == "array":
        return b"[" + raw + b"]" if not lines else b"\n".join([b"[1, 2]", *parts]) + b"\n"
    i = data.draw(st.integers(0, max(0, len(parts) - 1)))
    if kind == "huge":
        huge = json.dumps({"id": "x", "prompt": "y" * 3_000_000}).encode()
        if not lines:
            return raw[:-2] + b', "huge": "' + b"z" * 3_000_000 + b'"}\n'
        parts.insert(i, huge)
    elif kind == "duplicate":
        parts.insert(i, parts[i])
    elif kind == "drop" and len(parts) > 1:
        del parts[i]
    elif kind == "swap" and len(parts) > 1:
        j = (i + 1) % len(parts)
        parts[i], parts[j] = parts[j], parts[i]
    else:
        parts.insert(i, b"   ")
    return b"\n".join(parts) + b"\n"


def damage_jsonl_record(data: st.DataObject, raw: bytes) -> bytes:
    parts = raw.split(b"\n")[:-1]
    i = data.draw(st.integers(0, len(parts) - 1))
    parts[i] = json.dumps(damage_json(data, json.loads(parts[i])), ensure_ascii=False).encode()
    return b"\n".join(parts) + b"\n"


def damage(data: st.DataObject, path: Path, lines: bool) -> None:
    raw = path.read_bytes()
    if data.draw(st.booleans(), label="record-level"):
        if lines:
            new = damage_jsonl_record(data, raw)
        else:
            new = json.dumps(damage_json(data, json.loads(raw)), indent=2).encode() + b"\n"
    else:
        new = damage_bytes(data, raw, lines)
    path.write_bytes(new)


def invoke(*args: str) -> Any:
    return runner.invoke(app, list(args))


# --------------------------------------------------------------------------- fixtures and lock


@FUZZ
@given(data=st.data(), target=st.sampled_from(["fixtures/demo.jsonl", "fixtures/demo.lock.json"]))
def test_damaged_fixtures_or_lock(copy_of: Callable[[], Any], data: st.DataObject, target: str) -> None:
    with copy_of() as root:
        damage(data, root / target, lines=target.endswith(".jsonl"))
        before = snapshot(root)
        verify = invoke("verify", "--root", str(root))
        assert_clean(verify)
        assert snapshot(root) == before  # verify never writes
        if verify.exit_code == 1:
            kinds = ("MODIFIED", "UNLISTED", "MISSING", "STALE", "NONCANONICAL", "INCOMPLETE")
            assert verify.stdout and all(
                any(f" {k}" in line for k in kinds) for line in verify.stdout.splitlines()
            ), verify.stdout
        run = invoke(
            "run",
            str(root / "fixtures/demo.jsonl"),
            "--agent",
            AGENT,
            "--trials",
            "1",
            "--out",
            str(root / "runs/new"),
        )
        assert_clean(run)
        if verify.exit_code != 0:
            # run refuses what verify refuses, with the same exit code, before writing anything
            assert run.exit_code == verify.exit_code
            assert snapshot(root) == before
            assert not (root / "runs/new").exists()


# --------------------------------------------------------------------------- trials


@FUZZ
@given(data=st.data(), k=st.integers(1, N + 2))
def test_damaged_trials(copy_of: Callable[[], Any], data: st.DataObject, k: int) -> None:
    with copy_of() as root:
        trials = root / "runs/r/trials.jsonl"
        damage(data, trials, lines=True)
        before = snapshot(root)
        out = root / "out/report.json"
        report = invoke(
            "report", str(root / "runs/r"), "--k", str(k), "-o", str(out), "-q", "--bootstrap", "50"
        )
        assert_clean(report, (0, 2))
        if report.exit_code == 0:
            assert json.loads(out.read_text())["schema"] == "perturb.report/v1"
        else:
            assert not out.exists() and snapshot(root) == before
        if k > N:
            assert report.exit_code == 2
        base = root / "out/baseline.json"
        baseline = invoke("baseline", str(root / "runs/r"), "-o", str(base), "--k", str(k))
        assert_clean(baseline, (0, 2))
        if baseline.exit_code == 0:
            load_baseline(base)
        else:
            assert not base.exists()
        gate = invoke("gate", str(root / "runs/r"), "--baseline", str(root / "evals/baseline.json"))
        assert_clean(gate)
        # resuming the run reads the same file: a damaged line is refused before any write
        before = snapshot(root)
        resume = invoke(
            "run",
            str(root / "fixtures/demo.jsonl"),
            "--agent",
            AGENT,
            "--trials",
            str(N),
            "--out",
            str(root / "runs/r"),
        )
        assert_clean(resume, (0, 2))
        if resume.exit_code == 2:
            assert snapshot(root) == before
        else:
            for line in trials.read_bytes().splitlines():
                assert not line.strip() or json.loads(
                    line
                )  # complete lines only; a torn tail was cut before appending


def test_wrong_types_in_trial_keys_are_one_line_errors(copy_of: Callable[[], Any]) -> None:
    """The resume scan reads only a few keys of each line; those must be checked too."""
    with copy_of() as root:
        trials = root / "runs/r/trials.jsonl"
        first = json.loads(trials.read_bytes().splitlines()[0])
        cases = [
            ({"retry": "1"}, "retry: '1' is not a whole number >= 0"),
            ({"variant_id": ["x"]}, "variant_id: ['x'] is not a string"),
            ({"attempt": True}, "attempt: True is not a whole number >= 0"),
            ({"attempt": -1}, "attempt: -1 is not a whole number >= 0"),
            ({"outcome": "maybe"}, "outcome: 'maybe' is not passed, wrong or errored"),
        ]
        original = trials.read_bytes()
        for change, message in cases:
            bad = {**first, **change}
            trials.write_bytes(original + json.dumps(bad).encode() + b"\n")
            n = original.count(b"\n") + 1
            result = invoke(
                "run",
                str(root / "fixtures/demo.jsonl"),
                "--agent",
                AGENT,
                "--trials",
                str(N),
                "--out",
                str(root / "runs/r"),
            )
            assert_clean(result, (2,))
            assert result.stderr == (
                f"error: {trials}:{n}: {message} (expected one Trial JSON object per line; "
                "remove the line or start a new run with --out)\n"
            )
        Trial.model_validate(first)


# --------------------------------------------------------------------------- manifest, review


@FUZZ
@given(data=st.data())
def test_damaged_manifest(copy_of: Callable[[], Any], data: st.DataObject) -> None:
    with copy_of() as root:
        damage(data, root / "runs/r/manifest.json", lines=False)
        before = snapshot(root)
        report = invoke("report", str(root / "runs/r"), "-f", "json", "--bootstrap", "20")
        assert_clean(report, (0, 2))
        resume = invoke(
            "run",
            str(root / "fixtures/demo.jsonl"),
            "--agent",
            AGENT,
            "--trials",
            str(N),
            "--out",
            str(root / "runs/r"),
        )
        assert_clean(resume, (0, 2))
        if resume.exit_code == 2:
            assert snapshot(root) == before


@FUZZ
@given(data=st.data(), target=st.sampled_from(["candidates.jsonl", "journal.jsonl"]))
def test_damaged_review_files(copy_of: Callable[[], Any], data: st.DataObject, target: str) -> None:
    with copy_of() as root:
        damage(data, root / "review/demo" / target, lines=True)
        before = snapshot(root)
        listed = invoke("review", "--list", "--json", "--root", str(root))
        assert_clean(listed, (0, 2))
        assert snapshot(root) == before
        frozen = invoke("freeze", "--root", str(root))
        assert_clean(frozen, (0, 2))
        if frozen.exit_code == 2:
            assert snapshot(root) == before  # the previous fixtures and lock stay
        else:
            assert invoke("verify", "--root", str(root)).exit_code == 0


# --------------------------------------------------------------------------- baseline


@FUZZ
@given(data=st.data())
def test_damaged_baseline(copy_of: Callable[[], Any], data: st.DataObject) -> None:
    with copy_of() as root:
        damage(data, root / "evals/baseline.json", lines=False)
        before = snapshot(root)
        gate = invoke(
            "gate",
            str(root / "runs/r"),
            "--baseline",
            str(root / "evals/baseline.json"),
            "--noise-aware",
            "--bootstrap",
            "50",
        )
        assert_clean(gate)
        assert snapshot(root) == before


BASELINE_CASES = [
    (
        "c > n",
        lambda b: b["variants"][0].update(passed=99),
        "variants.0: passed 99 + wrong 0 + errored 0 exceeds n 3 (expected counts that add up to at most n)",
    ),
    (
        "unknown class",
        lambda b: b["classes"].update(bogus=b["classes"]["canonical"]),
        "classes.bogus: unknown class 'bogus' (expected canonical, paraphrase, reorder, distractor, "
        "self_correction, typo or register)",
    ),
    (
        "unknown class in a label",
        lambda b: b["task_labels"].update({"a1/bogus": "flaky"}),
        "task_labels.a1/bogus: unknown class 'bogus' (expected '<task id>/<class>' with class "
        "canonical, paraphrase, reorder, distractor, self_correction, typo or register)",
    ),
    (
        "duplicate id",
        lambda b: b["variants"].append(b["variants"][0]),
        "variants.6.variant_id: duplicate 'a1/canonical' (first at variants.0; expected each prompt once)",
    ),
    (
        "k > n",
        lambda b: b.update(k=7),
        "k: 7 exceeds the smallest n of the baseline's variants (3) (expected k <= n; take the "
        "baseline again with `perturb baseline --k`)",
    ),
]


@pytest.mark.parametrize(("name", "change", "message"), BASELINE_CASES, ids=[c[0] for c in BASELINE_CASES])
def test_inconsistent_baselines_are_refused(
    copy_of: Callable[[], Any], name: str, change: Callable[[dict[str, Any]], None], message: str
) -> None:
    with copy_of() as root:
        path = root / "evals/baseline.json"
        doc = json.loads(path.read_text())
        change(doc)
        path.write_text(json.dumps(doc, indent=2))
        gate = invoke("gate", str(root / "runs/r"), "--baseline", str(path))
        assert_clean(gate, (2,))
        assert gate.stderr == f"error: {path}: {message}\n"


def test_control_characters_from_a_damaged_lock_stay_on_one_line(copy_of: Callable[[], Any]) -> None:
    """Found by the fuzzer: a hash holding a record separator or a newline was printed raw, so
    one problem came out on two lines. Every message is now escaped at the CLI boundary."""
    with copy_of() as root:
        path = root / "fixtures/demo.lock.json"
        lock = json.loads(path.read_text())
        lock["tasks"]["a1"] = "sha256:\x1e\nEVIL"
        path.write_text(json.dumps(lock, indent=2))
        verify = invoke("verify", "--root", str(root))
        assert_clean(verify, (1,))
        [line] = verify.stdout.splitlines()
        assert line.startswith(
            f"{root}/tasks/demo.jsonl:1: STALE a1: the canonical task changed since freeze "
            "(lock sha256:\\x1e\\nEVIL, now sha256:"
        )
