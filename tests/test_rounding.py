"""One rounding rule: every format and the gate print a figure the same way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perturb.report.core import build_report, render
from perturb.report.gate import GateOptions, check_gate, write_baseline
from perturb.report.rounding import f3, rounded, signed
from tests.synthetic_runs import Prompt, write_run


def test_half_to_even_on_the_shortest_decimal() -> None:
    assert f3(37 / 80) == "0.462" and rounded(37 / 80) == 0.462  # 0.4625: 2 is even
    assert f3(1 / 80) == "0.012"  # 0.0125 (binary formatting alone would give 0.013)
    assert f3(3 / 16) == "0.188"  # 0.1875: 8 is even
    assert f3(0.0005) == "0.000" and f3(0.0015) == "0.002"
    assert signed(-1e-9) == "+0.000" and signed(-0.25) == "-0.250" and signed(0.5) == "+0.500"
    assert f3(None) == "-" and signed(None) == "-"
    assert rounded(-0.0001) == 0.0 and str(rounded(-0.0001)) == "0.0"


@pytest.mark.parametrize("fmt", ["text", "md", "html", "json", "junit"])
def test_37_of_80_prints_the_same_in_every_format(tmp_path: Path, fmt: str) -> None:
    run = write_run(tmp_path, "r", [Prompt("t1", "P" * 37 + "W" * 43)])
    out = render(build_report(run, ks=[1]), fmt)
    assert "0.462" in out
    assert "0.4625" not in out and "0.463" not in out
    if fmt == "json":
        data = json.loads(out)
        assert data["classes"][0]["mean"] == 0.462
        assert data["classes"][0]["pass^k"] == {"1": 0.462}


def test_the_gate_uses_the_same_rule(tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs", "r", [Prompt(f"t{i}", "P" * 37 + "W" * 43) for i in range(3)])
    base = tmp_path / "baseline.json"
    write_baseline(run, base, 1)
    result = check_gate(GateOptions(run, base, strict=True))
    assert result.lines[0] == (
        "ok: canonical mean: baseline 0.462, current 0.462, change +0.000, tolerance 0.050 (3 matched tasks)"
    )
