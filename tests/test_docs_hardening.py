"""docs/guarantees-hardening.md states the limits the code uses and names tests that exist."""

from __future__ import annotations

import re
from pathlib import Path

from perturb.io.jsonl import MAX_DEPTH, MAX_INT_DIGITS
from perturb.run.agents import _TICK_S, BLOCKED_AFTER_S
from perturb.run.agents.cmd import BASE_ENV, EXIT_GRACE_S, MAX_STDOUT_BYTES

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs/guarantees-hardening.md").read_text(encoding="utf-8")


def test_the_page_states_the_limits_of_the_code() -> None:
    assert f"nested deeper than {MAX_DEPTH} levels" in DOC
    assert f"more than {MAX_INT_DIGITS} digits" in DOC
    assert f"the {MAX_STDOUT_BYTES // 2**20} MiB cap" in DOC
    assert f"stay open {EXIT_GRACE_S:g} s after" in DOC
    assert f"min({BLOCKED_AFTER_S:.1f} s, timeout / 2)" in DOC
    assert f"(every {_TICK_S:g} s)" in DOC
    listed = re.search(r"allowlisted environment: (.*?)\. Nothing else", DOC, re.S)
    assert listed is not None
    names = set(re.findall(r"`([A-Z_*]+)`", listed.group(1)))
    assert names == {*BASE_ENV, "LC_*"}


def test_every_test_the_page_names_exists() -> None:
    named = re.findall(r"`(test_[a-z_]+\.py)::(test_\w+)`", DOC)
    named += [(f, t) for f, t in re.findall(r"`(test_[a-z_]+\.py)`: `(test_\w+)`", DOC)]
    current = None
    for match in re.finditer(r"`(?:(test_[a-z_]+\.py))?::(test_\w+)`", DOC):
        current = match.group(1) or current
        named.append((current, match.group(2)))
    assert len(named) >= 20
    for file, test in named:
        assert file is not None
        source = (ROOT / "tests" / file).read_text(encoding="utf-8")
        assert f"def {test}(" in source, (file, test)
