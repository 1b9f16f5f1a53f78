"""The wheel and sdist: `python -m build` makes both (the wheel from the sdist, so MANIFEST.in
is checked too); the wheel installs into a fresh venv outside the repository and the bundled
example runs from it (`perturb init --example`, verify, run, report)."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from perturb.scaffold.core import EXAMPLE_FILES

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent


def test_wheel_from_sdist_installs_and_runs_the_bundled_example(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(REPO)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = dist.glob("perturb_eval-*-py3-none-any.whl")
    (sdist,) = dist.glob("perturb_eval-*.tar.gz")
    assert sdist.stat().st_size > 0
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in EXAMPLE_FILES:
        assert f"perturb/scaffold/example/{name}" in names, name
    assert "perturb/scaffold/example/examples/travel_agent.py" in names
    assert "perturb/scaffold/template/workflow.yml.tmpl" in names
    assert not any(n.startswith(("examples/", "tests/", "tasks/")) for n in names)

    # A fresh venv; the dependencies come from this environment's site-packages through a
    # .pth line (no download), perturb itself only from the wheel.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", str(wheel)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    Path(purelib, "_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")

    work = tmp_path / "elsewhere"
    work.mkdir()
    where = subprocess.run(
        [str(py), "-c", "import perturb; print(perturb.__file__)"], cwd=work, capture_output=True, text=True
    )
    assert where.stdout.strip().startswith(purelib), where  # not the checkout
    exe = str(venv / "bin" / "perturb")

    def perturb(*args: str, cwd: Path) -> str:
        done = subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-2000:])
        return done.stdout

    assert "perturb verify" in perturb("init", "--example", "demo", cwd=work)
    demo = work / "demo"
    assert perturb("verify", cwd=demo).startswith("fixtures/travel.jsonl: ok: 46 canonical + 355 variants")
    out = perturb(
        "run",
        "fixtures/travel.jsonl",
        "--agent",
        "examples.travel_agent:agent",
        "--trials",
        "2",
        "--out",
        "runs/demo",
        cwd=demo,
    )
    assert "802/802 trials done" in out
    assert perturb("report", "runs/demo", cwd=demo).startswith("RELIABILITY  suite=travel  run=demo")
    # a new project from the wheel's templates runs canonical-only
    perturb("init", "proj", cwd=work)
    perturb("freeze", cwd=work / "proj")
    out = perturb("run", "fixtures/shop.jsonl", "--agent", "agent:agent", "--trials", "2", cwd=work / "proj")
    assert "6 passed, 0 wrong, 0 errored" in out
