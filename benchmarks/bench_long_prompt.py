"""Generation time against prompt length: every class on prompts of 500 to 8,000 words.

    python benchmarks/bench_long_prompt.py [--words 500,1000,2000,4000,8000] [--seed 0]

For each length it builds one long support message from varied sentences (with slots: dates,
times, amounts, codes, names), runs each class's rules generator once (one variant at its
default level, ε measured on the result, as ``perturb generate`` does) and prints the
seconds per class and the ratio time(8,000 words) / time(1,000 words) -- about 8 for linear
generation, about 64 for quadratic. The target is under 2 s per class at 8,000 words.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from perturb.generate.core import rng_for  # noqa: E402
from perturb.generate.perturbations import CLASSES, SkipGeneration, class_names, prepare  # noqa: E402
from perturb.records import Task  # noqa: E402

SENTENCES = [
    "I booked a table for {n} people at the Green Olive on {day} at {hour}pm.",
    "My order {code} still hasn't arrived and the tracking page says it left Leeds on {day}.",
    "Could you move my appointment with Dr {name} to {day} morning, please?",
    "I was charged £{amount} twice this month, so please refund one of the payments.",
    "The heating in flat {n}B stopped working last night and it is freezing.",
    "We need a quiet room near the lift because my father uses a wheelchair.",
    "Please send the invoice to my work address and not to the old one.",
    "If the delivery can't come before {hour}pm, leave it with my neighbour at number {n}.",
    "I'd like to change my plan to the cheaper one from next month.",
    "Is there any way to get a discount if I pay for the whole year at once?",
]
NAMES = ["Chen", "Okafor", "Nair", "Garcia", "Muller"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]


def long_prompt(n_words: int, rng: random.Random) -> tuple[str, dict[str, str]]:
    parts: list[str] = []
    count = 0
    while count < n_words:
        s = rng.choice(SENTENCES).format(
            n=rng.randint(2, 9),
            day=rng.choice(DAYS),
            hour=rng.randint(1, 9),
            code=f"AB-{rng.randint(10000, 99999)}",
            name=rng.choice(NAMES),
            amount=rng.randint(10, 99),
        )
        parts.append(s)
        count += len(s.split())
    text = " ".join(parts)
    return text, {"first_day": next(d for d in DAYS if d in text)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--words", default="500,1000,2000,4000,8000")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    lengths = [int(x) for x in args.words.split(",")]
    times: dict[str, dict[int, float]] = {c: {} for c in class_names()}
    for n in lengths:
        text, slots = long_prompt(n, random.Random(args.seed))
        task = Task(id=f"long-{n}", prompt=text, expected="ok", grader="exact", slots=slots)  # type: ignore[arg-type]
        for cls in class_names():
            spec = CLASSES.get(cls)
            ctx = prepare(task)  # fresh context: nothing cached from another class
            t0 = time.perf_counter()
            try:
                v = spec.generate(
                    ctx, spec.default_level, rng_for(args.seed, task.id, cls, spec.default_level, 0, 0), 0
                )
                spec.measure(ctx, v.text, v.details)
            except SkipGeneration:
                pass
            times[cls][n] = time.perf_counter() - t0
    print(f"{'class':<16}" + "".join(f"{n:>9}w" for n in lengths) + "   ratio")
    for cls, row in times.items():
        lo, hi = (1000, 8000) if 1000 in row and 8000 in row else (lengths[0], lengths[-1])
        ratio = row[hi] / max(row[lo], 1e-9)
        print(
            f"{cls:<16}"
            + "".join(f"{row[n]:>9.3f}s" for n in lengths)
            + f"   {ratio:5.1f}x ({hi}/{lo} words)"
        )
    worst = max(row[lengths[-1]] for row in times.values())
    print(f"slowest class at {lengths[-1]} words: {worst:.2f} s (target < 2 s)")


if __name__ == "__main__":
    main()
