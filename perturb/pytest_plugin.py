"""The pytest plugin: ``perturb gate`` as pytest test items, for teams whose CI is pytest.

``pytest --perturb-run runs/<id> --perturb-baseline evals/baseline.json`` adds, after the
project's own tests, one item per gated figure (``perturb-gate::canonical mean``,
``perturb-gate::paraphrase pass^5``, ``perturb-gate::faults lam=0.1 mean``), one per class whose
task labels are checked (``perturb-gate::paraphrase labels``: newly flaky, brittle or failing
tasks), one for ``--perturb-require`` and one for the verdict (``perturb-gate::verdict``). Each
fails with the gate's own lines, so the outcome shows in pytest's summary and in JUnit
(``--junitxml``). The items come from :func:`perturb.report.gate.check_gate` (``GateOptions`` →
``GateResult``), the same call ``perturb gate`` makes; the verdict item fails whenever the gate
fails, so a line this plugin does not recognise can never turn a failed gate green.

Registered through the ``pytest11`` entry point. Without ``--perturb-run`` it only adds its
options: nothing of perturb is imported and no item is added.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PREFIX = "perturb-gate"
"""Every item's name starts with this (``pytest -k perturb-gate`` selects them)."""

_FAILING = ("regression: ", "newly flaky: ", "newly brittle: ", "newly failing: ", "below --require ")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("perturb", "perturb gate (perturb-eval)")
    group.addoption(
        "--perturb-run", metavar="RUN_DIR", default=None, help="Gate this perturb run (runs/<id>)."
    )
    group.addoption(
        "--perturb-baseline",
        metavar="PATH",
        default=None,
        help="The committed baseline (perturb baseline RUN -o evals/baseline.json).",
    )
    group.addoption(
        "--perturb-tolerance", type=float, default=None, help="Allowed drop of a class's mean or pass^k."
    )
    group.addoption(
        "--perturb-require",
        type=float,
        default=None,
        help="Fail when any task's pass^k (or pass@k) is below this.",
    )
    group.addoption(
        "--perturb-require-metric", default=None, help="pass^k (default) or pass@k for --perturb-require."
    )
    group.addoption("--perturb-k", type=int, default=None, help="k (default: the baseline's).")
    group.addoption(
        "--perturb-option",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help="Any other field of perturb's GateOptions, e.g. bootstrap=5000 (repeatable).",
    )


def pytest_configure(config: pytest.Config) -> None:
    run, baseline = config.getoption("--perturb-run"), config.getoption("--perturb-baseline")
    if (run is None) != (baseline is None):
        given, missing = (
            ("--perturb-run", "--perturb-baseline")
            if baseline is None
            else (
                "--perturb-baseline",
                "--perturb-run",
            )
        )
        raise pytest.UsageError(
            f"{given} needs {missing} (e.g. --perturb-run runs/ci --perturb-baseline evals/baseline.json)"
        )


class GateCheckFailed(Exception):
    """Raised by a failing :class:`GateItem`; its text is what pytest shows."""


class GateItem(pytest.Item):
    """One gated figure (or the verdict): passes or fails with the gate's lines."""

    def __init__(self, *, lines: list[str], failed: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lines = lines
        self.failed = failed

    def runtest(self) -> None:
        if self.failed:
            raise GateCheckFailed("\n".join(self.lines))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, GateCheckFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, None, str]:
        return self.path, None, self.name


def gate_checks(lines: list[str], passed: bool, verdict: str) -> list[tuple[str, list[str], bool]]:
    """``(name, lines, failed)`` per item, in the order the gate wrote them: the figure named by
    a comparison line (``canonical mean``), ``<class> labels`` for label changes, ``require``
    for ``--require``, then ``verdict`` (every note and the verdict line; failed iff the gate
    failed)."""
    checks: dict[str, tuple[list[str], bool]] = {}
    notes: list[str] = []
    for line in lines:
        name = _subject(line)
        if name is None:
            notes.append(line)
            continue
        found, failed = checks.get(name, ([], False))
        found.append(line)
        checks[name] = (found, failed or line.startswith(_FAILING))
    out = [(name, found, failed) for name, (found, failed) in checks.items()]
    out.append(("verdict", [*notes, verdict], not passed))
    return out


def _subject(line: str) -> str | None:
    """The item a gate line belongs to, or None for notes and lines of unknown form."""
    if line.startswith("below --require "):
        return "require"
    status, sep, rest = line.partition(": ")
    if not sep:
        return None
    if status in ("newly flaky", "newly brittle", "newly failing"):
        key = rest.partition(": ")[0]
        return f"{key.rpartition('/')[2]} labels"
    if status in ("regression", "ok", "within noise", "unreliable"):
        subject, sep, _ = rest.partition(": ")
        return subject if sep else None
    return None


def _value(text: str) -> Any:
    """``true``/``false``, a number, or the text itself."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _options(config: pytest.Config, options_type: Any) -> Any:
    """The gate's options object from the command line: the run, the baseline, the named
    options, then each ``--perturb-option NAME=VALUE`` checked against the object's fields."""
    from dataclasses import fields

    from perturb.errors import UsageError

    options = options_type(
        Path(config.getoption("--perturb-run")), Path(config.getoption("--perturb-baseline"))
    )
    named = {"tolerance": "--perturb-tolerance", "require": "--perturb-require", "k": "--perturb-k"}
    named["require_metric"] = "--perturb-require-metric"
    for attr, flag in named.items():
        if config.getoption(flag) is not None:
            setattr(options, attr, config.getoption(flag))
    known = [f.name for f in fields(options) if f.name not in ("run_dir", "baseline")]
    for pair in config.getoption("--perturb-option"):
        name, sep, text = pair.partition("=")
        if not sep or name.strip() not in known:
            raise UsageError(
                f"--perturb-option {pair!r}: expected NAME=VALUE with NAME one of {', '.join(known)}"
            )
        setattr(options, name.strip(), _value(text.strip()))
    return options


def _item(session: pytest.Session, name: str, lines: list[str], failed: bool) -> GateItem:
    full = f"{PREFIX}[{name}]"
    return GateItem.from_parent(session, name=full, nodeid=full, lines=lines, failed=failed)


def _items(session: pytest.Session) -> Iterator[GateItem]:
    config = session.config
    from perturb.errors import PerturbError
    from perturb.io.inert import printable
    from perturb.report.gate import GateOptions, check_gate

    try:
        options = _options(config, GateOptions)
        result = check_gate(options)
    except PerturbError as exc:
        lines = [f"error: {printable(line)}" for line in str(exc).split("\n")]
        yield _item(session, "verdict", lines, True)
        return
    for name, lines, failed in gate_checks(result.lines, result.passed, result.verdict):
        shown = [printable(line) for line in lines]
        yield _item(session, name, shown, failed)


@pytest.hookimpl(tryfirst=True)  # before -k/-m deselection, so they select gate items too
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    if config.getoption("--perturb-run") is None:
        return
    items.extend(_items(session))
