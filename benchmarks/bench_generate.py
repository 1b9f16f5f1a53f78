"""Rules generation speed: 1,000 synthetic tasks x 6 classes x 3 variants, with pre-screening.

    .venv/bin/python benchmarks/bench_generate.py [--tasks 1000] [--per-class 3]

Prints candidates per second and total seconds (target: the whole set under 20 s on a 2-core
machine), and, for the typo class, the time per prompt of perturb's seeded keyboard typos
next to nlpaug's KeyboardAug on the same prompts (measured in the same run).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from perturb.generate.core import GenerateOptions, generate, rng_for  # noqa: E402
from perturb.generate.perturbations import CLASSES, class_names, prepare  # noqa: E402
from perturb.records import Task  # noqa: E402

CITIES = ["Delhi", "Mumbai", "London", "Paris", "Berlin", "Tokyo", "Sydney", "Dubai", "Madrid", "Rome"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
TEMPLATES = [
    ("Book me a flight to {city} on {day}, economy class, under £{amount}.", ("city", "day")),
    (
        "Hi, I need to change my booking BK-{num} to {day}. Please make sure the seat is a window "
        "seat. My budget is ${amount}.",
        ("day",),
    ),
    ("Could you check whether my reservation for {n} adults at the Grand in {city} is confirmed?", ("city",)),
    (
        "I'd like a refund for order #{num}, it arrived damaged. Please send the receipt to "
        "help@example.com.",
        (),
    ),
    (
        "Find a hotel in {city} for {n} nights, near the station, with breakfast included, and "
        "free cancellation.",
        ("city",),
    ),
    ("Cancel my table booking for {day} at 7pm and let me know when it is done.", ("day",)),
    ("Please transfer {amount} dollars from my savings account to my current account by {day}.", ("day",)),
    ("Can you rebook my train to {city} for {day} morning? My ticket number is TK{num}.", ("city", "day")),
    (
        "I want to upgrade my hotel room in {city} to a suite, but only if it costs less than €{amount}.",
        ("city",),
    ),
    ("Send me the cheapest round-trip ticket to {city}, leaving on {day}, for {n} people.", ("city", "day")),
]


def make_tasks(n: int, seed: int = 7) -> list[Task]:
    rng = random.Random(seed)
    tasks = []
    for i in range(n):
        template, slot_names = TEMPLATES[i % len(TEMPLATES)]
        values = {
            "city": rng.choice(CITIES),
            "day": rng.choice(DAYS),
            "amount": str(rng.randint(50, 900)),
            "num": str(rng.randint(10000, 99999)),
            "n": str(rng.randint(2, 6)),
        }
        prompt = template.format(**values)
        slots = {name: values[name] for name in slot_names}
        tasks.append(
            Task.model_validate(
                {"id": f"task-{i:04d}", "prompt": prompt, "expected": "ok", "grader": "exact", "slots": slots}
            )
        )
    return tasks


def typo_comparison(tasks: list[Task], n: int = 300) -> tuple[float, float]:
    """ms per prompt: perturb's typo generator vs nlpaug KeyboardAug (same prompts)."""
    import nlpaug.augmenter.char as nac

    sample = tasks[:n]
    contexts = [prepare(t) for t in sample]
    spec = CLASSES.get("typo")
    start = time.perf_counter()
    for ctx in contexts:
        spec.generate(ctx, 0.2, rng_for(0, ctx.task.id, "typo", 0.2, 0, 0), 0)
    ours = (time.perf_counter() - start) / n * 1000
    aug = nac.KeyboardAug(aug_word_p=0.2, include_special_char=False, include_numeric=False)
    start = time.perf_counter()
    for t in sample:
        aug.augment(t.prompt)
    theirs = (time.perf_counter() - start) / n * 1000
    return ours, theirs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--per-class", type=int, default=3)
    args = parser.parse_args()
    tasks = make_tasks(args.tasks)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "tasks").mkdir()
        path = root / "tasks" / "bench.jsonl"
        path.write_text("".join(json.dumps(t.model_dump(mode="json")) + "\n" for t in tasks), "utf-8")
        options = GenerateOptions(per_class=args.per_class)
        start = time.perf_counter()
        result = generate(path, options)
        seconds = time.perf_counter() - start
    asked = args.tasks * len(class_names()) * args.per_class
    print(f"tasks={args.tasks} classes={len(class_names())} variants={args.per_class} (asked {asked})")
    print(f"candidates={result.candidates} flagged={result.flagged} skipped={result.skipped}")
    print(
        f"total seconds={seconds:.2f}  candidates/second={result.candidates / seconds:.0f}  "
        f"target < 20 s: {'met' if seconds < 20 else 'MISSED'}"
    )
    ours, theirs = typo_comparison(tasks)
    print(
        f"typo per prompt: perturb {ours:.3f} ms, nlpaug KeyboardAug {theirs:.3f} ms "
        f"(ratio {ours / theirs:.2f})"
    )


if __name__ == "__main__":
    main()
