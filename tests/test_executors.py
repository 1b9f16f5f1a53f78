"""``--executor``, ``--ray-address`` and ``--resources``: option checks and the message without
Ray (fast; no Ray cluster is started here -- tests/test_ray.py runs one)."""

from __future__ import annotations

import dataclasses
import inspect
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.errors import UsageError
from perturb.run.executors import EXECUTORS, RAY_MISSING, WorkerRecipe, check_address, parse_resources
from perturb.run.executors.ray import actor_options, workers_that_fit
from perturb.run.scheduler import TrialRunner
from perturb.testing.suite import make_suite

TASKS = [{"id": "add", "prompt": "What is 2+2?", "expected": 4, "grader": "numeric"}]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make_suite(tmp_path, TASKS, [("add", "paraphrase", "Add two and two.")])
    return tmp_path


def invoke(project: Path, *args: str) -> Any:
    return CliRunner().invoke(
        app,
        [
            "run",
            str(project / "fixtures" / "demo.jsonl"),
            "--agent",
            "tests.sample_agents:echo",
            "-n",
            "1",
            "--out",
            str(project / "runs" / "r"),
            *args,
        ],
    )


def test_the_registry_lists_local_first_then_ray() -> None:
    assert EXECUTORS.names()[:2] == ("local", "ray")
    assert EXECUTORS.group == "perturb.executors"


@pytest.mark.parametrize("address", ["auto", "ray://head-node:10001", "10.0.0.5:6379", "ray://[::1]:10001"])
def test_good_addresses_pass(address: str) -> None:
    assert check_address(address) == address


@pytest.mark.parametrize(
    "address", ["", "head-node", "ray://head:0", "ray://head:70000", "http://h:1", "a b:1"]
)
def test_bad_addresses_are_refused(address: str) -> None:
    with pytest.raises(UsageError) as err:
        check_address(address)
    assert str(err.value) == (
        f"--ray-address {address!r}: expected auto, ray://HOST:PORT or HOST:PORT with a port in 1-65535 "
        "(for example ray://head-node:10001)"
    )


def test_resources_parse_to_floats() -> None:
    assert parse_resources('{"CPU": 2, "GPU": 0.5, "memory": 1e9, "accelerator_type:A100": 1}') == {
        "CPU": 2.0,
        "GPU": 0.5,
        "memory": 1e9,
        "accelerator_type:A100": 1.0,
    }
    assert parse_resources("{}") == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"CPU": 1,',
            "--resources: not JSON: Expecting property name enclosed in double quotes at column 11",
        ),
        ("[1]", "--resources: got a JSON list, not an object"),
        ('{"CPU": -1}', "--resources: CPU: -1 is not a finite number >= 0"),
        ('{"CPU": NaN}', "--resources: CPU: 'NaN' is not a finite number >= 0"),
        ('{"GPU": Infinity}', "--resources: GPU: 'Infinity' is not a finite number >= 0"),
        ('{"CPU": true}', "--resources: CPU: True is not a finite number >= 0"),
        ('{"CPU": "1"}', "--resources: CPU: '1' is not a finite number >= 0"),
    ],
)
def test_bad_resources_are_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_resources(text)
    assert str(err.value) == message + ' (expected a JSON object such as \'{"CPU": 1, "GPU": 0}\')'


def test_a_miscased_resource_name_gets_a_suggestion() -> None:
    with pytest.raises(UsageError) as err:
        parse_resources('{"cpu": 1}')
    assert str(err.value) == "--resources: unknown resource 'cpu' (did you mean 'CPU'?)"
    with pytest.raises(UsageError) as err:
        parse_resources('{"my gpu": 1}')
    assert str(err.value) == (
        "--resources: resource name 'my gpu' is not a name (expected CPU, GPU, memory or a custom "
        "resource of the cluster)"
    )


def test_workers_fit_the_cluster_and_never_exceed_concurrency() -> None:
    total = {"CPU": 8.0, "GPU": 2.0, "memory": 1e10}
    assert workers_that_fit(total, {"CPU": 1.0}, 16) == 8
    assert workers_that_fit(total, {"CPU": 1.0}, 3) == 3
    assert workers_that_fit(total, {"CPU": 1.0, "GPU": 0.5}, 16) == 4
    assert workers_that_fit(total, {"CPU": 0.0}, 5) == 5  # nothing reserved: one per trial in flight
    assert workers_that_fit(total, {"GPU": 3.0}, 8) == 0
    assert workers_that_fit({"CPU": 0.9999999999}, {"CPU": 1.0 / 3}, 8) == 3


def test_actor_options_map_resources_to_ray_options() -> None:
    assert actor_options({"CPU": 2.0, "GPU": 0.5, "memory": 1e9, "node:x": 1.0}, 4) == {
        "num_cpus": 2.0,
        "num_gpus": 0.5,
        "memory": 1e9,
        "resources": {"node:x": 1.0},
        "max_concurrency": 4,
        "max_restarts": 0,
    }


def test_without_ray_the_executor_says_how_to_install_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    result = invoke(project, "--executor", "ray")
    assert result.exit_code == 2
    assert result.output == f"error: {RAY_MISSING}\n"
    assert RAY_MISSING == (
        "--executor ray needs Ray, which is not installed (install it with: pip install 'perturb-eval[ray]')"
    )
    assert not (project / "runs" / "r").exists()  # refused before anything is written


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--executor", "dask"],
            "error: --executor: unknown executor 'dask' (expected one of: local, ray)\n",
        ),
        (
            ["--ray-address", "auto"],
            "error: --ray-address applies to a cluster executor, not --executor local (add --executor ray)\n",
        ),
        (
            ["--resources", '{"CPU": 1}'],
            "error: --resources applies to a cluster executor, not --executor local (add --executor ray)\n",
        ),
        (
            ["--executor", "ray", "--ray-address", "head"],
            "error: --ray-address 'head': expected auto, ray://HOST:PORT or HOST:PORT with a port in 1-65535 "
            "(for example ray://head-node:10001)\n",
        ),
        (
            ["--executor", "ray", "--resources", '{"GPU": -1}'],
            "error: --resources: GPU: -1 is not a finite number >= 0 (expected a JSON object such as "
            '\'{"CPU": 1, "GPU": 0}\')\n',
        ),
    ],
)
def test_bad_executor_options_exit_2_before_writing(project: Path, args: list[str], message: str) -> None:
    result = invoke(project, *args)
    assert result.exit_code == 2
    assert result.output == message
    assert not (project / "runs" / "r").exists()


def test_the_local_executor_is_the_default_and_writes_the_run(project: Path) -> None:
    result = invoke(project)
    assert result.exit_code == 0, result.output
    lines = (project / "runs" / "r" / "trials.jsonl").read_text().splitlines()
    assert len(lines) == 2


def test_every_runner_argument_is_the_recipes_or_named_process_local() -> None:
    """A new TrialRunner option must either travel in the WorkerRecipe (the same on the driver
    and every worker) or be listed as process-local and taken by ``from_recipe``: it cannot be
    set on one side only."""
    params = set(inspect.signature(TrialRunner.__init__).parameters) - {"self"}
    shared = params - TrialRunner.LOCAL
    fields = {f.name for f in dataclasses.fields(WorkerRecipe)}
    assert TrialRunner.LOCAL <= params
    assert shared <= fields, f"runner options missing from WorkerRecipe: {sorted(shared - fields)}"
    assert shared == {"run_id", "suite", "shas", "seed", "temperature", "timeout"}
    taken = set(inspect.signature(TrialRunner.from_recipe).parameters) - {"recipe"}
    assert taken == TrialRunner.LOCAL - {"executor"}
    assert all(
        p.default is inspect.Parameter.empty
        for p in inspect.signature(TrialRunner.from_recipe).parameters.values()
    ), "from_recipe must not default a process-local argument (a side could forget it)"


def test_a_worker_rebuilds_the_drivers_runner_from_the_recipe(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose trials go through the Ray worker's body (``_Worker``, in this process):
    the worker's runner equals the driver's in every shared field and in the process-local
    state both sides derive (tools, secrets, agent), and writes the same lines as a local run."""
    import perturb.run.core as core
    from perturb.run.executors import ExecutorSettings, ExecutorSpec
    from perturb.run.executors.ray import _Worker

    seen: dict[str, Any] = {}

    class InProcess:
        def __init__(self, settings: ExecutorSettings) -> None:
            self.worker = _Worker(settings.recipe)

        async def start(self, runner: TrialRunner) -> None:
            assert await self.worker.start() is None
            seen["driver"], seen["worker"] = runner, self.worker.runner

        async def trial(self, entry: Any, attempt: int, retry: int, lam: float) -> tuple[bytes, str]:
            data, outcome, fatal = await self.worker.trial(entry, attempt, retry, lam)
            assert fatal is None
            return data, outcome

        async def aclose(self) -> None:
            await self.worker.close()

        def notes(self) -> list[str]:
            return []

    spec = ExecutorSpec(name="in-process", summary="test", create=InProcess)
    monkeypatch.setenv("LEFTO_KEY", "sk-test-value-123456")
    flags = ["--seed", "7", "--temperature", "0.3", "--timeout", "9", "--faults", "0,0.5"]
    flags += ["--api-key-env", "LEFTO_KEY"]
    assert invoke(project, *flags).exit_code == 0  # the local executor: the reference lines
    local = (project / "runs" / "r" / "trials.jsonl").read_text().splitlines()
    monkeypatch.setattr(core, "_executor", lambda options: (spec, None, {}))
    result = CliRunner().invoke(
        app,
        ["run", str(project / "fixtures" / "demo.jsonl"), "--agent", "tests.sample_agents:echo", "-n", "1"]
        + ["--out", str(project / "runs" / "w"), *flags],
    )
    assert result.exit_code == 0, result.output
    driver, worker = seen["driver"], seen["worker"]
    assert worker is not driver
    for name in set(inspect.signature(TrialRunner.__init__).parameters) - {"self"} - TrialRunner.LOCAL:
        assert getattr(worker, name) == getattr(driver, name), name
    assert driver.seed == 7 and driver.temperature == 0.3 and driver.timeout == 9.0
    assert worker.tools == driver.tools is not None and worker.tools.classes == driver.tools.classes
    assert worker.secrets == driver.secrets and "sk-test-value-123456" in driver.secrets
    assert worker.agent.describe() == driver.agent.describe()
    assert (worker.concurrency, driver.concurrency) == (1, 8)
    lines = (project / "runs" / "w" / "trials.jsonl").read_text().splitlines()
    assert len(lines) == len(local) == 4

    def stable(line: str) -> dict[str, Any]:
        record = json.loads(line)
        for key in ("run_id", "started_at", "finished_at", "duration_s", "latency_s"):
            record.pop(key, None)
        return record

    assert sorted(map(json.dumps, map(stable, lines))) == sorted(map(json.dumps, map(stable, local)))
