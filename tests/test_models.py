"""Every on-disk record round-trips through JSON unchanged; unknown fields are errors."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from perturb import records as m

PROV = m.Provenance(
    kind="llm",
    perturb_version="0.1.0",
    seed=3,
    model="gpt-x",
    temperature=0.7,
    system_fingerprint="fp_1",
    template_sha256="sha256:ab",
    retries=2,
)
GRADER = m.Grader(type="json_subset", path="booking")

RECORDS: list[BaseModel] = [
    m.Task(
        id="travel-001",
        prompt="Book Delhi on Friday for 2 people",
        expected={"day": "Friday"},
        grader=GRADER,
        weight=2.0,
        slots={"day": "Friday", "city": "Delhi"},
        tags=["booking"],
        metadata={"source": "prod"},
    ),
    m.Candidate(
        id="c-0123456789ab",
        suite="travel",
        task_id="travel-001",
        perturbation="typo",
        text="Bokk Delhi on Friday for 2 people",
        level=0.2,
        epsilon=0.17,
        index=0,
        generator=PROV,
        screen=m.Screen(passed=False, flags=["x"]),
        details={"edits": [[0, "o", "k"]]},
        task_sha256="sha256:cd",
    ),
    m.GenerationSkip(task_id="t", perturbation="reorder", level=0.5, reason="order carries meaning"),
    m.Decision(
        seq=4,
        action="edit",
        candidate_id="c-1",
        text="new",
        reviewer="Ann <a@x>",
        at="2026-11-30T05:00:00Z",
        mode="sampled",
        sample=m.SampleRule(n=5, seed=1),
        screen=m.Screen(passed=True),
    ),
    m.Decision(seq=5, action="undo", reviewer="Ann", at="2026-11-30T05:00:01Z", undoes=4),
    m.FixtureEntry(
        id="t/typo/c-1",
        task_id="t",
        perturbation="typo",
        prompt="p",
        level=0.2,
        epsilon=0.25,
        expected=[1, "ü"],
        grader=m.Grader(type="numeric", tolerance=0.1),
        weight=1.5,
        slots={},
        candidate_id="c-1",
    ),
    m.Lock(
        perturb_version="0.1.0",
        suite="travel",
        tasks_file="tasks/travel.jsonl",
        tasks={"t": "sha256:aa"},
        entries=[
            m.LockEntry(id="t/canonical", sha256="sha256:bb", task_id="t", perturbation="canonical"),
            m.LockEntry(
                id="t/typo/c-1",
                sha256="sha256:cc",
                task_id="t",
                perturbation="typo",
                provenance=PROV,
                decision=m.LockDecision(
                    action="edited",
                    reviewer="A",
                    at="2026-11-30T05:00:00Z",
                    mode="individual",
                    origin_text="o",
                ),
            ),
        ],
    ),
    m.Trial(
        run_id="r1",
        suite="travel",
        task_id="t",
        variant_id="t/canonical",
        variant_sha256="sha256:bb",
        perturbation="canonical",
        attempt=3,
        outcome="errored",
        error="timeout after 5s",
        error_kind="timeout",
        latency_s=5.0,
        usage=m.Usage(input_tokens=3, output_tokens=4, cost_usd=0.001),
        trace=[{"tool": "search"}],
        seed=99,
        retry=1,
    ),
    m.RunManifest(
        run_id="r1",
        suite="travel",
        fixtures="fixtures/travel.jsonl",
        lock_sha256="sha256:dd",
        agent="openai:gpt-x",
        model="gpt-x",
        base_url="http://127.0.0.1:1/v1",
        sampling={"temperature": 0.7},
        trials=8,
        timeout_s=30.0,
        concurrency=4,
        classes=["canonical", "typo"],
        perturb_version="0.1.0",
        python_version="3.11.7",
        platform="Linux-x86_64",
        started_at="2026-11-30T05:00:00Z",
        config_hash="sha256:ee",
    ),
    m.Baseline(
        perturb_version="0.1.0",
        suite="travel",
        run_id="r1",
        k=4,
        trials=8,
        classes={"canonical": m.ClassFigures(n_tasks=3, n_trials=24, mean=0.9, pass_hat_k=0.7)},
        task_labels={"t/canonical": "flaky"},
    ),
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_round_trip(record: BaseModel) -> None:
    text = record.model_dump_json()
    again = type(record).model_validate_json(text)
    assert again == record
    assert again.model_dump_json() == text


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_unknown_field_is_rejected(record: BaseModel) -> None:
    data = record.model_dump(mode="json")
    data["surprise"] = 1
    with pytest.raises(ValidationError, match="surprise"):
        type(record).model_validate(data)


def _all_records() -> list[type[m.Record]]:
    """Every record class perturb defines (subclasses of ``Record``, recursively), after
    importing every module of the package so none is missed."""
    import importlib
    import pkgutil

    import perturb

    for info in pkgutil.walk_packages(perturb.__path__, "perturb."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    found: list[type[m.Record]] = []
    todo = list(m.Record.__subclasses__())
    while todo:
        cls = todo.pop()
        if cls.__module__.startswith("perturb.") and cls not in found:
            found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def test_every_field_has_a_docstring_description() -> None:
    records = _all_records()
    assert {
        "Task",
        "Grader",
        "Candidate",
        "Decision",
        "FixtureEntry",
        "Lock",
        "Trial",
        "RunManifest",
        "Baseline",
    } <= {r.__name__ for r in records}
    for model in records:
        assert model.__doc__ and model.__doc__.strip(), f"{model.__name__} has no class docstring"
        for name, info in model.model_fields.items():
            assert info.description, f"{model.__module__}.{model.__name__}.{name} has no docstring"


def test_grader_shorthand_string() -> None:
    task = m.Task.model_validate({"id": "a", "prompt": "x", "expected": "y", "grader": "exact"})
    assert task.grader == m.Grader(type="exact")
