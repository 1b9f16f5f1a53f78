"""Tiers from pyproject.toml / perturb.toml (perturb.io.config)."""

from __future__ import annotations

from pathlib import Path

import pytest

from perturb.errors import ConfigError
from perturb.io.config import DEFAULT_TIERS, Tier, get_tier, load_tiers

REPO = Path(__file__).resolve().parent.parent


def test_builtin_tiers_match_this_projects_pyproject() -> None:
    tiers = load_tiers(REPO)
    assert {name: tiers[name] for name in DEFAULT_TIERS} == {
        "smoke": Tier(
            "smoke",
            str(REPO / "pyproject.toml"),
            tasks=10,
            trials=3,
            classes=["canonical", "paraphrase", "distractor"],
        ),
        "full": Tier("full", str(REPO / "pyproject.toml"), trials=5, faults=[0.0, 0.1]),
        "stress": Tier(
            "stress",
            str(REPO / "pyproject.toml"),
            trials=10,
            faults=[0.0, 0.1, 0.2, 0.3],
            fault_classes=list(DEFAULT_TIERS["stress"]["fault_classes"]),
        ),
    }


def test_no_config_file_gives_builtin_tiers(tmp_path: Path) -> None:
    tiers = load_tiers(tmp_path)
    assert tiers["smoke"] == Tier(
        "smoke", "built-in", tasks=10, trials=3, classes=["canonical", "paraphrase", "distractor"]
    )
    assert tiers["full"].trials == 5 and tiers["stress"].trials == 10


def test_pyproject_tiers_override_and_add(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.perturb]\nother = 1\n\n'
        '[tool.perturb.tiers.smoke]\ntasks = ["a", "b"]\ntrials = 2\n'
        "concurrency = 4\ntimeout = 30\n\n"
        '[tool.perturb.tiers.nightly]\ntrials = 7\nclasses = ["canonical", "typo"]\n'
    )
    tiers = load_tiers(tmp_path)
    source = str(tmp_path / "pyproject.toml")
    assert tiers["smoke"] == Tier("smoke", source, tasks=["a", "b"], trials=2, concurrency=4, timeout=30.0)
    assert tiers["nightly"] == Tier("nightly", source, trials=7, classes=["canonical", "typo"])
    assert tiers["stress"].source == "built-in"


def test_perturb_toml_wins(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.perturb.tiers.smoke]\ntrials = 2\n")
    (tmp_path / "perturb.toml").write_text("[tiers.smoke]\ntrials = 9\n")
    assert get_tier(tmp_path, "smoke").trials == 9


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "[tool.perturb.tiers.smoke]\ntrials = 3\ntrails = 4\n",
            "pyproject.toml:3: tool.perturb.tiers.smoke.trails: unknown key "
            "(expected: tasks, trials, classes, concurrency, timeout, faults, fault_classes)",
        ),
        (
            '[tool.perturb.tiers.smoke]\n\ntrials = "three"\n',
            "pyproject.toml:3: tool.perturb.tiers.smoke.trials: expected a whole number >= 1, got 'three'",
        ),
        (
            "[tool.perturb.tiers.full]\ntrials = 0\n",
            "pyproject.toml:2: tool.perturb.tiers.full.trials: expected a whole number >= 1, got 0",
        ),
        (
            '[tool.perturb.tiers.full]\nclasses = ["canonical", "typos"]\n',
            "pyproject.toml:2: tool.perturb.tiers.full.classes: unknown class 'typos' (expected "
            "some of: canonical, paraphrase, reorder, distractor, self_correction, typo, register),"
            " got ['canonical', 'typos']",
        ),
        (
            "[tool.perturb.tiers.full]\ntimeout = -1\n",
            "pyproject.toml:2: tool.perturb.tiers.full.timeout: expected a number of seconds > 0, got -1",
        ),
        (
            "[tool.perturb.tiers.full]\ntasks = []\n",
            "pyproject.toml:2: tool.perturb.tiers.full.tasks: expected a whole number >= 1 or a "
            "non-empty list of task ids, got []",
        ),
        (
            "[tool.perturb]\ntiers = 3\n",
            "pyproject.toml:2: tool.perturb.tiers: expected a table of tiers ([tool.perturb.tiers.<name>])",
        ),
        (
            "[tool.perturb.tiers]\nsmoke = 3\n",
            "pyproject.toml:2: tool.perturb.tiers.smoke: expected a table "
            "([tool.perturb.tiers.smoke] with keys tasks, trials, classes, concurrency, timeout, faults, fault_classes)",
        ),
        (
            "[tool.perturb.tiers.full]\ntrials = \n",
            "pyproject.toml:2: invalid TOML: Invalid value (expected valid TOML)",
        ),
    ],
)
def test_malformed_config_names_file_line_and_key(tmp_path: Path, body: str, message: str) -> None:
    (tmp_path / "pyproject.toml").write_text(body)
    with pytest.raises(ConfigError) as info:
        load_tiers(tmp_path)
    assert str(info.value) == f"{tmp_path}/{message}"


def test_unknown_tier(tmp_path: Path) -> None:
    (tmp_path / "perturb.toml").write_text("[tiers.quick]\ntrials = 1\n")
    with pytest.raises(ConfigError) as info:
        get_tier(tmp_path, "nightly")
    assert str(info.value) == (
        f"{tmp_path}/perturb.toml: no tier 'nightly' (expected one of: full, quick, smoke, "
        "stress; define [tool.perturb.tiers.nightly] in pyproject.toml or [tiers.nightly] in "
        "perturb.toml)"
    )


def test_tier_faults_are_checked(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.perturb.tiers.chaos]\ntrials = 2\nfaults = [0, 0.2]\nfault_classes = ["timeout"]\n'
    )
    assert load_tiers(tmp_path)["chaos"] == Tier(
        "chaos", str(tmp_path / "pyproject.toml"), trials=2, faults=[0.0, 0.2], fault_classes=["timeout"]
    )
    for bad, message in (
        ("faults = [0.1]", "expected a list of rates in [0, 1] that includes 0, e.g. [0, 0.1], got [0.1]"),
        ("faults = [0, 2]", "expected a list of rates in [0, 1] that includes 0, e.g. [0, 0.1], got [0, 2]"),
        ('fault_classes = ["meteor"]', "unknown fault class 'meteor' (expected some of: rate_limit, timeout, "
         "transient_500, partial, schema_drift, wrong_data, rate_limit_storm, slow_retry_burst), got ['meteor']"),
    ):  # fmt: skip
        (tmp_path / "pyproject.toml").write_text(f"[tool.perturb.tiers.chaos]\n{bad}\n")
        with pytest.raises(ConfigError) as info:
            load_tiers(tmp_path)
        assert (
            str(info.value)
            == f"{tmp_path / 'pyproject.toml'}:2: tool.perturb.tiers.chaos.{bad.split()[0]}: {message}"
        )
