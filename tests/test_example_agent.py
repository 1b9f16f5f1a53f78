"""The bundled example: tasks/travel.jsonl and the rule-based desk agent in examples/."""

from __future__ import annotations

import asyncio
import json
import math
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from examples.travel_agent import agent, make_agent, parse, sampled_agent
from examples.travel_checks import valid_stay
from examples.travel_intent import Chooser, within_one_edit
from perturb.records import Task
from perturb.run.agents import AgentResponse, load_agent
from perturb.run.graders import grade
from perturb.tasks import load_tasks

ROOT = Path(__file__).resolve().parent.parent
SUITE = load_tasks(ROOT / "tasks" / "travel.jsonl")
TASKS = SUITE.by_id()
DETERMINISTIC_GRADERS = {"exact", "normalized", "contains", "regex", "json_subset", "numeric", "callable"}


def request(task_id: str = "t", *, seed: int | None = 0, temperature: float | None = 0.0) -> dict:
    return {
        "prompt": "",
        "task_id": task_id,
        "variant_id": f"{task_id}/canonical",
        "perturbation": "canonical",
        "attempt": 0,
        "seed": seed,
        "temperature": temperature,
        "metadata": {},
    }


def run(prompt: str, *, seed: int | None = 0, temperature: float | None = 0.0) -> Any:
    response = agent(prompt, request(seed=seed, temperature=temperature))
    assert isinstance(response, AgentResponse)
    return response.output


def passes(task: Task, output: Any) -> bool:
    ok, _note = grade(task.grader, task.expected, output, {"task_id": task.id})
    return ok


# --------------------------------------------------------------------------- the suite


def test_suite_shape() -> None:
    tasks = SUITE.tasks
    assert SUITE.name == "travel"
    assert len(tasks) == 46
    assert [t.id for t in tasks] == [f"travel-{i:03d}" for i in range(1, 47)]
    assert all(t.slots and t.tags for t in tasks)
    assert {t.grader.type for t in tasks} == DETERMINISTIC_GRADERS
    assert sum(t.grader.type == "json_subset" for t in tasks) == 38
    with_day_or_date = [
        t
        for t in tasks
        if any(
            v in t.prompt and k.endswith(("day", "date", "check_in", "check_out")) for k, v in t.slots.items()
        )
    ]
    assert len(with_day_or_date) == 25
    ordered = sorted(t.id for t in tasks if "order" in t.tags)
    assert ordered == ["travel-012", "travel-031", "travel-038"]
    assert TASKS["travel-040"].weight == 2.0


@pytest.mark.parametrize("task", SUITE.tasks, ids=lambda t: t.id)
def test_every_canonical_task_passes_at_temperature_zero(task: Task) -> None:
    assert passes(task, run(task.prompt))


def test_exact_outputs_of_selected_tasks() -> None:
    assert run(TASKS["travel-001"].prompt) == {
        "intent": "book_flight",
        "origin": "London",
        "destination": "Delhi",
        "day": "Friday",
        "passengers": 2,
        "cabin": "economy",
        "max_price": 400,
        "currency": "GBP",
    }
    assert run(TASKS["travel-018"].prompt) == {
        "intent": "refund_quote",
        "booking_ref": "BK-77402",
        "paid": 240,
        "currency": "GBP",
        "fee": 35,
        "refund_amount": 205,
    }
    assert run(TASKS["travel-019"].prompt) == {
        "intent": "redeem_points",
        "balance": 12500,
        "redeem": 4000,
        "remaining": 8500,
    }
    assert run(TASKS["travel-017"].prompt)["reply"] == (
        "Check-in for international flights closes 60 minutes before departure, at 17:40."
    )
    assert run(TASKS["travel-022"].prompt) == {
        "intent": "book_hotel",
        "city": "Amsterdam",
        "check_in": "14 June",
        "check_out": "19 June",
        "nights": 5,
        "guests": 2,
    }
    assert run(TASKS["travel-038"].prompt) == {
        "intent": "multi_step",
        "steps": [
            {"intent": "cancel_booking", "booking_ref": "BK-70918"},
            {"intent": "refund", "amount": 95, "currency": "GBP", "booking_ref": "BK-70918"},
        ],
    }


def test_order_carries_meaning_in_multi_step_tasks() -> None:
    task = TASKS["travel-038"]
    swapped = "Refund the £95 seat fee to my card and then cancel BK-70918."
    output = run(swapped)
    assert [s["intent"] for s in output["steps"]] == ["refund", "cancel_booking"]
    ok, note = grade(task.grader, task.expected, output)
    assert not ok
    assert note == "at steps.0.intent: expected 'cancel_booking', got 'refund'"


def test_callable_grader_checks_nights_against_dates() -> None:
    expected = TASKS["travel-022"].expected
    good = run(TASKS["travel-022"].prompt)
    assert valid_stay(good, expected, {}) is True
    assert valid_stay({**good, "nights": 4}, expected, {}) is False
    assert valid_stay({**good, "check_out": "20 June", "nights": 6}, expected, {}) is False
    assert valid_stay({**good, "intent": "book_flight"}, expected, {}) is False
    assert valid_stay("not a dict", expected, {}) is False


# --------------------------------------------------------------------------- temperature


def test_seeded_trials_are_reproducible() -> None:
    for task in SUITE.tasks:
        first = parse(task.prompt, temperature=0.7, seed=11)
        again = parse(task.prompt, temperature=0.7, seed=11)
        assert (first.action, first.trace) == (again.action, again.trace)


def test_temperature_zero_ignores_the_seed() -> None:
    prompt = TASKS["travel-023"].prompt
    outputs = {run(prompt, seed=s)["intent"] for s in range(20)}
    assert outputs == {"cancel_booking"}
    assert run(prompt, seed=None, temperature=None) == {
        "intent": "cancel_booking",
        "booking_ref": "BK-84456",
    }


def test_sampled_trials_vary_on_ambiguous_tasks_and_stay_high_overall() -> None:
    seeds = range(20)
    results = {t.id: [passes(t, run(t.prompt, seed=s, temperature=0.7)) for s in seeds] for t in SUITE.tasks}
    flaky = sorted(tid for tid, r in results.items() if any(r) and not all(r))
    mean = sum(sum(r) for r in results.values()) / (len(results) * len(seeds))
    assert "travel-023" in flaky  # "cancel ... I'll rebook later": cancel 3 vs change 2.5
    assert "travel-043" in flaky  # "look up ... and upgrade": upgrade 3.5 vs look up 2.5
    assert mean >= 0.85
    assert all(any(r) for r in results.values())  # nothing fails every time
    intents = {run(TASKS["travel-023"].prompt, seed=s, temperature=0.7)["intent"] for s in seeds}
    assert intents == {"cancel_booking", "change_booking"}


def test_the_sampled_figures_on_the_tasks_page_are_measured() -> None:
    """docs/tasks.md quotes the mean and the flaky tasks at T = 0.7 over seeds 0-39 and 0-19."""
    page = (ROOT / "docs" / "tasks.md").read_text(encoding="utf-8")
    results = {
        t.id: [passes(t, run(t.prompt, seed=s, temperature=0.7)) for s in range(40)] for t in SUITE.tasks
    }

    def figures(seeds: int) -> tuple[str, dict[str, int]]:
        passed = {tid: sum(r[:seeds]) for tid, r in results.items()}
        mean = sum(passed.values()) / (len(passed) * seeds)
        return f"{mean:.3f}", {tid: c for tid, c in passed.items() if 0 < c < seeds}

    mean40, flaky40 = figures(40)
    mean20, flaky20 = figures(20)
    others = sorted(c for tid, c in flaky40.items() if tid not in ("travel-023", "travel-043"))
    sentence = (
        f"over seeds 0–39, mean success is {mean40} and {len(flaky40)} tasks are flaky\n"
        f"(`travel-023` passes {flaky40['travel-023']}/40, `travel-043` {flaky40['travel-043']}/40, "
        f"six others {others[0]}–{others[-1]}/40); over seeds 0–19 the\nmean is {mean20} with "
        f"{' and '.join(f'`{tid}`' for tid in sorted(flaky20))} flaky."
    )
    assert len(others) == 6
    assert sentence in page


def test_the_bundled_review_figures_on_the_docs_pages_are_the_committed_files() -> None:
    """docs/tasks.md and docs/running.md count the candidates, skips, decisions and fixtures of
    the bundled example; they are those of review/travel/ and fixtures/travel.jsonl."""

    def lines(path: str) -> list[dict[str, Any]]:
        return [json.loads(line) for line in (ROOT / path).read_text(encoding="utf-8").splitlines()]

    candidates = {c["id"]: c for c in lines("review/travel/candidates.jsonl")}
    skipped = lines("review/travel/skipped.jsonl")
    decisions = lines("review/travel/journal.jsonl")
    accepted = [d for d in decisions if d["action"] == "accept"]
    rejected = Counter(
        candidates[d["candidate_id"]]["perturbation"] for d in decisions if d["action"] == "reject"
    )
    fixtures = Counter(e["perturbation"] == "canonical" for e in lines("fixtures/travel.jsonl"))
    assert len(accepted) + sum(rejected.values()) == len(decisions) == len(candidates)
    assert fixtures[False] == len(accepted) and fixtures[True] == len(SUITE.tasks)
    tasks_page = " ".join((ROOT / "docs" / "tasks.md").read_text(encoding="utf-8").split())
    assert (
        f"proposed {len(candidates)} candidates ({len(skipped)} reorder skips, each with its reason in "
        f"`review/travel/skipped.jsonl`)" in tasks_page
    )
    assert {s["perturbation"] for s in skipped} == {"reorder"}
    assert (
        f"({len(accepted)} accepted, {sum(rejected.values())} rejected: {rejected['paraphrase']} near-identical "
        f"paraphrases, {rejected['register']} register variants that left the request unchanged, "
        f"{rejected['distractor']} unnatural distractors" in tasks_page
    )
    assert set(rejected) == {"paraphrase", "register", "distractor"}
    assert f"wrote {fixtures[True]} canonical + {fixtures[False]} variants" in tasks_page
    running_page = " ".join((ROOT / "docs" / "running.md").read_text(encoding="utf-8").split())
    assert (
        f"({fixtures[True] + fixtures[False]} prompts: {fixtures[True]} canonical and {fixtures[False]} variants, "
        "20 trials each." in running_page
    )


def test_sampling_follows_softmax_of_score_over_temperature() -> None:
    # cancel 3.0 vs change 2.5 at T=0.7: P(cancel) = 1 / (1 + exp(-0.5 / 0.7)) = 0.6713
    expected = 1 / (1 + math.exp(-0.5 / 0.7))
    assert round(expected, 4) == 0.6713
    picks = [
        Chooser(0.7, random.Random(seed), []).pick("intent", [("cancel", 3.0), ("change", 2.5)])
        for seed in range(4000)
    ]
    share = picks.count("cancel") / len(picks)
    assert abs(share - expected) < 0.03
    trace: list[str] = []
    assert Chooser(0.0, random.Random(1), trace).pick("x", [("a", 1.0), ("b", 1.0)]) == "a"
    assert trace == ["x: a=1, b=1 -> a (argmax)"]


def test_factory_gives_fresh_agents_and_its_temperature_wins() -> None:
    first, second = make_agent(), make_agent()
    assert first is not second and callable(first)
    prompt = TASKS["travel-023"].prompt
    pinned = make_agent(temperature=0.7)
    intents = {pinned(prompt, request(seed=s, temperature=0.0)).output["intent"] for s in range(20)}
    assert intents == {"cancel_booking", "change_booking"}
    assert {first(prompt, request(seed=s)).output["intent"] for s in range(20)} == {"cancel_booking"}
    assert sampled_agent.temperature == 0.7


def test_trace_records_parsing_steps() -> None:
    response = agent(
        "Please book me a flight from London to Delhi on Thursday — sorry, I meant Friday "
        "for 2 passengers, economy, under £400 each.",
        request(),
    )
    assert "self-correction 'sorry, I meant': weekday 'Friday' replaces 'Thursday'" in (response.trace)
    assert "intent: book=3 -> book (argmax)" in response.trace
    assert "booking product: book_flight" in response.trace


# --------------------------------------------------------------------------- perturbed prompts

BOOK = TASKS["travel-001"]
MOVE = TASKS["travel-004"]


@pytest.mark.parametrize(
    ("prompt", "day"),
    [
        (
            "Please book me a flight from London to Delhi on Thursday — no wait, Friday for 2 "
            "passengers, economy, under £400 each.",
            "Thursday",
        ),
        (
            "Please book me a flight from London to Delhi on Thursday, actually Friday, for 2 "
            "passengers, economy, under £400 each.",
            "Thursday",
        ),
        (
            "Please book me a flight from London to Delhi on Thursday... make that Friday, for 2 "
            "passengers, economy, under £400 each.",
            "Thursday",
        ),
        (
            "Please book me a flight from London to Delhi on Thursday — sorry, I meant Friday for "
            "2 passengers, economy, under £400 each.",
            "Friday",
        ),
        (
            "Please book me a flight from London to Delhi on Thursday (correction: Friday) for 2 "
            "passengers, economy, under £400 each.",
            "Friday",
        ),
    ],
)
def test_self_correction_only_known_phrasings_are_understood(prompt: str, day: str) -> None:
    output = run(prompt)
    assert output["day"] == day
    assert passes(BOOK, output) is (day == "Friday")


def test_self_correction_of_a_city_and_of_the_new_day() -> None:
    city = run(
        "Please book me a flight from London to Mumbai — I meant Delhi — on Friday for "
        "2 passengers, economy, under £400 each."
    )
    assert (city["origin"], city["destination"]) == ("London", "Delhi")
    assert passes(BOOK, city)
    wait = run(
        "Can you move my flight BK-51077 from Tuesday to Wednesday — no wait, Thursday? "
        "Same time if possible."
    )
    assert wait["new_day"] == "Wednesday" and not passes(MOVE, wait)
    sorry = run(
        "Can you move my flight BK-51077 from Tuesday to Wednesday — sorry, I meant "
        "Thursday? Same time if possible."
    )
    assert sorry["new_day"] == "Thursday" and passes(MOVE, sorry)


def test_sampled_agent_sometimes_gets_an_unknown_correction_right() -> None:
    prompt = (
        "Please book me a flight from London to Delhi on Thursday — no wait, Friday for 2 "
        "passengers, economy, under £400 each."
    )
    days = [run(prompt, seed=s, temperature=0.7)["day"] for s in range(40)]
    # Thursday 1.5 (first mention, "on") vs Friday 0: P(Friday) = 1 / (1 + exp(1.5 / 0.7)) ~ 0.10
    assert set(days) == {"Thursday", "Friday"}
    assert days.count("Thursday") > days.count("Friday")


@pytest.mark.parametrize(
    ("task_id", "prompt", "intent", "ok"),
    [
        # typos: one dropped letter in a keyword is caught, a swap of two letters is not
        (
            "travel-003",
            "Cancl booking BK-48213 please, my conference was called off.",
            "cancel_booking",
            True,
        ),
        ("travel-003", "Cancle booking BK-48213 please, my conference was called off.", "unknown", False),
        (
            "travel-003",
            "Cancel bookng BK-48213 please, my conferense was called off.",
            "cancel_booking",
            True,
        ),
        (
            "travel-001",
            "please book me a flight from london to delhi on Friday for 2 passengers, "
            "economy, under £400 each.",
            "book_flight",
            True,
        ),
        # paraphrase: an unseen verb or phrase
        ("travel-003", "Please scrap booking BK-48213, my conference was called off.", "unknown", False),
        (
            "travel-014",
            "My flight BK-66720 got cancelled by the airline, I want my money returned, it was £318.50.",
            "cancel_booking",
            False,
        ),
        # distractors mentioning other intents pull the bag of cues
        (
            "travel-001",
            "Last year I needed a refund after a cancelled trip and it took ages. "
            "Please book me a flight from London to Delhi on Friday for 2 passengers, economy, "
            "under £400 each.",
            "refund",
            False,
        ),
        (
            "travel-007",
            "Please add 2 extra checked bags to booking BK-73310. By the way, the "
            "upgrade last month was lovely.",
            "seat_upgrade",
            False,
        ),
        (
            "travel-007",
            "I'm a frequent traveller and my loyalty status matters to me. Please add "
            "2 extra checked bags to booking BK-73310.",
            "add_baggage",
            True,
        ),
        # register: British and Indian English vocabulary
        (
            "travel-001",
            "Could I have a return flight from London to Delhi on Friday for 2 "
            "passengers, economy, under £400 each?",
            "refund",
            False,
        ),
        (
            "travel-004",
            "Kindly prepone my flight BK-51077 from Tuesday to Thursday, same time if possible.",
            "unknown",
            False,
        ),
        (
            "travel-002",
            "Kindly book a flat in Lisbon for 3 nights from Thursday, two guests, max €150 a night.",
            "book_hotel",
            True,
        ),
        # reorder: constraints in another order
        (
            "travel-001",
            "Economy, under £400 each, for 2 passengers: please book me a flight from "
            "London to Delhi on Friday.",
            "book_flight",
            True,
        ),
        (
            "travel-004",
            "Could you move my flight BK-51077 to Thursday from Tuesday? Same time if possible.",
            "change_booking",
            True,
        ),
    ],
)
def test_perturbed_prompts(task_id: str, prompt: str, intent: str, ok: bool) -> None:
    output = run(prompt)
    assert output["intent"] == intent
    assert passes(TASKS[task_id], output) is ok


def test_unknown_register_word_loses_a_constraint() -> None:
    output = run("I need a hotel room in Lisbon for a fortnight from Thursday, two guests, max €150 a night.")
    assert output == {
        "intent": "book_hotel",
        "city": "Lisbon",
        "day": "Thursday",
        "guests": 2,
        "max_price": 150,
        "currency": "EUR",
    }
    assert not passes(TASKS["travel-002"], output)


def test_edit_distance_fallback() -> None:
    assert within_one_edit("cancl", "cancel")
    assert within_one_edit("refunds", "refund")
    assert within_one_edit("invoise", "invoice")
    assert not within_one_edit("cancle", "cancel")
    assert not within_one_edit("cancel", "cancel")
    assert not within_one_edit("rfnd", "refund")


# --------------------------------------------------------------------------- through perturb


@pytest.mark.parametrize(
    "spec",
    [
        "examples.travel_agent:agent",
        "examples.travel_agent:make_agent()",
        "examples.travel_agent:sampled_agent",
    ],
)
def test_loads_through_the_runner_adapter(spec: str) -> None:
    task = TASKS["travel-012"]

    async def call_twice() -> list[AgentResponse]:
        adapter = load_agent(spec, project_root=ROOT)
        try:
            req = {**request(task.id, seed=3, temperature=0.0), "prompt": task.prompt}
            return [await adapter.call(req), await adapter.call(req)]
        finally:
            await adapter.aclose()

    first, second = asyncio.run(call_twice())
    assert first.output == second.output == task.expected
    assert first.trace[0] == "multi-step request: 2 steps in the order given"


_WORDS = sorted({w for t in SUITE.tasks for w in t.prompt.split()}) + ["then", "1)", "2)", "—"]


@settings(max_examples=300, deadline=None)
@given(
    words=st.lists(st.sampled_from(_WORDS), max_size=40),
    noise=st.text(max_size=30),
    temperature=st.sampled_from([0.0, 0.7, 3.0]),
    seed=st.integers(0, 2**32),
)
def test_any_text_gives_a_json_action(words: list[str], noise: str, temperature: float, seed: int) -> None:
    result = parse(" ".join(words) + noise, temperature=temperature, seed=seed)
    assert isinstance(result.action["intent"], str)
    assert json.loads(json.dumps(result.action)) == result.action
