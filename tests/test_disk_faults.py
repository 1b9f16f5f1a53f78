"""A full disk and read-only output: one clear error line, exit 2, no corrupted file.

How the faults are made: as root (as here and in CI), ``chmod`` does not stop writes, so the
disk-full tests put the project on a real tmpfs of a few hundred KB (``mount -t tmpfs -o
size=...``) and fill it with a filler file to leave a known number of bytes; the read-only
tests bind-mount the output directory read-only (``mount --bind`` + ``remount,ro``), so the
kernel answers ENOSPC and EROFS exactly as a real full or read-only disk does. Where mounting
is not permitted (not root) those tests are skipped; the last two tests inject ENOSPC at the
OS boundary (``os.write`` / ``os.fsync`` monkeypatched) and run everywhere.

Covered: ``perturb run``'s trials.jsonl, ``perturb freeze``'s fixtures, ``perturb report``'s
output and the review journal (``perturb accept``).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.errors import OutputError
from perturb.freeze.core import verify
from perturb.freeze.fixtures import SuitePaths, pending_path
from perturb.io.jsonl import Appender, write_atomic
from perturb.records import Trial
from perturb.testing.suite import make_suite
from tests.fault_helpers import assert_clean, can_mount, small_fs, snapshot
from tests.review_project import SUITE, make_project

pytestmark = pytest.mark.slow

runner = CliRunner()
MOUNTABLE = can_mount()
needs_mount = pytest.mark.skipif(
    not MOUNTABLE, reason="mounting a tmpfs or a read-only bind needs root (CI runs as root)"
)
TASKS = [{"id": f"t{i}", "prompt": f"Say {i}", "expected": f"Say {i}", "grader": "exact"} for i in range(3)]
ENOSPC = os.strerror(errno.ENOSPC)
EROFS = os.strerror(errno.EROFS)


def fill(mount: Path, keep: int) -> Path:
    """Write a filler file leaving ``keep`` bytes free on ``mount``."""
    st = os.statvfs(mount)
    size = st.f_bavail * st.f_frsize - keep
    filler = mount / "filler"
    with open(filler, "wb") as fh:
        fh.write(b"\0" * size)
    assert os.statvfs(mount).f_bavail * os.statvfs(mount).f_frsize == keep
    return filler


@contextlib.contextmanager
def read_only(directory: Path) -> Iterator[None]:
    """``directory`` read-only for everyone, root included (a read-only bind mount)."""
    subprocess.run(["mount", "--bind", str(directory), str(directory)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(directory)], check=True)
        yield
    finally:
        subprocess.run(["umount", "-l", str(directory)], check=False)


def invoke(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    assert_clean(result, (0, 2))
    return result


# --------------------------------------------------------------------------- disk full


@needs_mount
def test_run_on_a_full_disk_keeps_whole_lines_and_resumes(tmp_path: Path) -> None:
    with small_fs(tmp_path / "mnt", 2048) as mnt:  # 24 lines of 30 KB fit once it is emptied
        project = mnt / "proj"
        fixtures = make_suite(project, TASKS)
        (project / "big_agent_t7.py").write_text(
            "def agent(prompt, request):\n    return prompt + ' ' + 'x' * 30000\n"
        )
        filler = fill(mnt, 96 * 1024)
        run_dir = project / "runs/r"
        trials = run_dir / "trials.jsonl"
        args = (
            "run",
            str(fixtures),
            "--agent",
            "big_agent_t7:agent",
            "--trials",
            "8",
            "--out",
            str(run_dir),
            "--concurrency",
            "1",
        )
        result = invoke(*args)
        assert result.exit_code == 2
        assert result.stderr == (
            f"error: {trials}: cannot append: {ENOSPC} (expected free space; lines already "
            "written are intact)\n"
        )
        raw = trials.read_bytes()
        assert raw.endswith(b"\n")  # the line that did not fit was cut back off
        kept = raw.splitlines()
        assert 1 <= len(kept) < 24
        for line in kept:
            Trial.model_validate_json(line)

        filler.unlink()
        again = invoke(*args)
        assert again.exit_code == 0, again.stderr
        assert again.stdout.startswith(f"ran {24 - len(kept)} trials")
        lines = trials.read_bytes().splitlines()
        assert lines[: len(kept)] == kept and len(lines) == 24
        assert len({(json.loads(x)["variant_id"], json.loads(x)["attempt"]) for x in lines}) == 24


@needs_mount
def test_freeze_on_a_full_disk_leaves_the_previous_fixtures(tmp_path: Path) -> None:
    with small_fs(tmp_path / "mnt", 256) as mnt:
        root = mnt / "proj"
        cands = make_project(root)
        assert invoke("accept", cands[0].id, "--reviewer", "Ada", "--root", str(root)).exit_code == 0
        assert invoke("freeze", "--root", str(root)).exit_code == 0
        paths = SuitePaths(root, SUITE)
        old = (paths.fixtures.read_bytes(), paths.lock.read_bytes())
        assert invoke("accept", cands[3].id, "--reviewer", "Ada", "--root", str(root)).exit_code == 0
        filler = fill(mnt, 4096)  # room for the review lock, not for the new fixtures
        result = invoke("freeze", "--root", str(root))
        assert result.exit_code == 2
        assert result.stderr == (
            f"error: {paths.fixtures}: cannot write: {ENOSPC} (expected a writable directory with "
            "free space; the previous fixtures are unchanged)\n"
        )
        assert (paths.fixtures.read_bytes(), paths.lock.read_bytes()) == old
        assert not pending_path(paths.fixtures).exists() and not pending_path(paths.lock).exists()
        assert not paths.review_lock.exists()  # released on the way out
        assert verify(paths.fixtures).ok
        filler.unlink()
        assert invoke("freeze", "--root", str(root)).exit_code == 0
        assert cands[3].id.encode() in paths.fixtures.read_bytes()
        assert verify(paths.fixtures).ok


@needs_mount
def test_report_on_a_full_disk_keeps_the_previous_report(tmp_path: Path) -> None:
    with small_fs(tmp_path / "mnt", 512) as mnt:
        project = mnt / "proj"
        fixtures = make_suite(project, TASKS)
        (project / "say_agent_t7.py").write_text("def agent(prompt, request):\n    return prompt\n")
        assert (
            invoke(
                "run",
                str(fixtures),
                "--agent",
                "say_agent_t7:agent",
                "--trials",
                "2",
                "--out",
                str(project / "runs/r"),
            ).exit_code
            == 0
        )
        out = project / "reports/report.html"
        out.parent.mkdir()
        out.write_text("<html>the previous report</html>\n")
        filler = fill(mnt, 0)
        before = snapshot(project)
        result = invoke("report", str(project / "runs/r"), "-o", str(out), "-q", "--bootstrap", "20")
        assert result.exit_code == 2
        assert result.stderr == (
            f"error: {out}: cannot write: {ENOSPC} (expected a writable directory with free "
            "space; the previous file is unchanged)\n"
        )
        assert snapshot(project) == before  # no temp file left behind either
        filler.unlink()
        assert (
            invoke("report", str(project / "runs/r"), "-o", str(out), "-q", "--bootstrap", "20").exit_code
            == 0
        )
        assert "<svg" in out.read_text()


@needs_mount
def test_review_journal_on_a_full_disk_is_not_torn(tmp_path: Path) -> None:
    with small_fs(tmp_path / "mnt", 256) as mnt:
        root = mnt / "proj"
        cands = make_project(root)
        paths = SuitePaths(root, SUITE)
        assert invoke("accept", cands[0].id, "--reviewer", "Ada", "--root", str(root)).exit_code == 0
        before = paths.journal.read_bytes()
        filler = fill(mnt, 4096)  # the review lock fits; a 9 KB decision line does not
        reason = "long note " * 900
        result = invoke("reject", cands[1].id, "--reason", reason, "--reviewer", "Ada", "--root", str(root))
        assert result.exit_code == 2
        assert result.stderr == (
            f"error: {paths.journal}: cannot append: {ENOSPC} (expected free space; lines "
            "already written are intact)\n"
        )
        assert paths.journal.read_bytes() == before  # the part that fitted was cut back off
        assert not paths.review_lock.exists()
        filler.unlink()
        assert (
            invoke(
                "reject", cands[1].id, "--reason", reason, "--reviewer", "Ada", "--root", str(root)
            ).exit_code
            == 0
        )
        lines = paths.journal.read_bytes().splitlines()
        assert len(lines) == 2 and json.loads(lines[1])["seq"] == 2


# --------------------------------------------------------------------------- read-only


@needs_mount
def test_read_only_output_is_one_clear_error_and_writes_nothing(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    cands = make_project(project)
    assert invoke("accept", cands[0].id, "--reviewer", "Ada", "--root", str(project)).exit_code == 0
    assert invoke("freeze", "--root", str(project)).exit_code == 0
    fixtures = project / "fixtures/travel.jsonl"
    (project / "say_agent_t7b.py").write_text("def agent(prompt, request):\n    return prompt\n")
    run = ("run", str(fixtures), "--agent", "say_agent_t7b:agent", "--trials", "2")
    assert invoke(*run, "--out", str(project / "runs/r")).exit_code == 0
    (project / "reports").mkdir()
    paths = SuitePaths(project, SUITE)
    assert invoke("accept", cands[3].id, "--reviewer", "Ada", "--root", str(project)).exit_code == 0

    cases = [
        (
            project / "runs",
            [*run, "--out", str(project / "runs/new")],
            f"{project}/runs/new/.lock: cannot create the run lock: {EROFS} (expected a writable "
            "run directory with free space; choose another --out)",
        ),
        (
            project / "runs",
            [*run, "--out", str(project / "runs/r")],
            f"{project}/runs/r/.lock: cannot create the run lock: {EROFS} (expected a writable "
            "run directory with free space; choose another --out)",
        ),
        (
            project / "fixtures",
            ["freeze", "--root", str(project)],
            f"{fixtures}: cannot write: {EROFS} (expected a writable directory with free space; "
            "the previous fixtures are unchanged)",
        ),
        (
            project / "reports",
            ["report", str(project / "runs/r"), "-o", str(project / "reports/r.json"), "-q"],
            f"{project}/reports/r.json: cannot write: {EROFS} (expected a writable directory with "
            "free space; the previous file is unchanged)",
        ),
        (
            paths.review_dir,
            ["reject", cands[1].id, "--reason", "no", "--root", str(project)],
            f"{paths.review_lock}: cannot create the review lock: {EROFS} (expected a writable "
            "review directory)",
        ),
    ]
    for directory, args, message in cases:
        before = snapshot(project)
        with read_only(directory):
            result = invoke(*args)
        assert result.exit_code == 2, (args, result.stdout)
        assert result.stderr == f"error: {message}\n", args
        assert snapshot(project) == before, args
    assert verify(fixtures).ok


# --------------------------------------------------------------------------- OS boundary


def test_a_short_write_then_enospc_is_cut_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No mount needed: ``os.write`` writes half the line, then reports ENOSPC, as a real
    disk that fills mid-line does."""
    path = tmp_path / "t.jsonl"
    with Appender(path) as app_:
        app_.append({"n": 1})
        real_write = os.write
        calls = []

        def short_then_full(fd: int, data: bytes) -> int:
            calls.append(len(data))
            if len(calls) == 1:
                return real_write(fd, bytes(data[: len(data) // 2]))
            raise OSError(errno.ENOSPC, ENOSPC)

        monkeypatch.setattr(os, "write", short_then_full)
        with pytest.raises(OutputError) as info:
            app_.append({"n": 2, "text": "x" * 100})
        monkeypatch.undo()
        assert path.read_bytes() == b'{"n":1}\n'
        app_.append({"n": 3})
    assert str(info.value) == (
        f"{path}: cannot append: {ENOSPC} (expected free space; lines already written are intact)"
    )
    assert len(calls) == 2
    assert path.read_bytes() == b'{"n":1}\n{"n":3}\n'


def test_atomic_write_failing_at_fsync_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "report.json"
    path.write_text("old\n")

    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, ENOSPC)

    monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(OutputError, match="cannot write: No space left on device"):
        write_atomic(path, "new\n")
    monkeypatch.undo()
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]
