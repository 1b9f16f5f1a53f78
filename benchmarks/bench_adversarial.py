"""Linear time on hostile input: generation on repetitive prompts, and the report's trial-line
reader on a line of long digit runs.

    python benchmarks/bench_adversarial.py [--chars 10000,40000]

Part 1 builds prompts by repeating one short pattern (a word a rule looks around, a phrase a
check scans after, a value with a family word before it, ...) to each length and times every
class's rules generator once per prompt (``prepare`` excluded). It prints the seconds and the
ratio time(longest) / time(shortest): about the length ratio (4 for 10,000 → 40,000) for linear
work, its square (16) for quadratic. A review of round five found three such patterns that
were quadratic (``self_correction`` on "the new one and the old one …" took 4–8 s at 50,000
characters, ``paraphrase`` on "please change it and …" about 4 s).

Part 2 times ``read_trial_line`` (the screened reader ``perturb report`` uses) against the
strict parser on one trial line whose output is 230 runs of 4,300 digits (about 1 MB). The
screen's digit-run search was quadratic in a run's length (12.8 s against 0.003 s for the
strict parser); it now takes milliseconds.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from perturb.generate.perturbations import CLASSES, SkipGeneration, class_names, prepare  # noqa: E402
from perturb.records import Task, Trial  # noqa: E402
from perturb.run.store import REPORT_FIX, parse_trial_line, read_trial_line  # noqa: E402

PATTERNS = {
    "one": "the new one and the old one ",
    "family": "my son, he's 6 and my daughter, she's ",
    "change": "please change it and ",
    "book": "please book the table for two and a high chair ",
    "list": "milk, eggs, bread, ",
    "times": "on Saturday at 8pm 12 and 3 ",
    "questions": "Where is it? Why is it late? Has it been paid for? ",
    "requests": "Could you reprint my boarding pass and unlock the door for me and ",
    # round nine's paths: the reorder "with <person>" scan and reminder moves, the story
    # questions and tag questions, register's run-on check and contractions, the time now
    "with": "book a consultation for next Tuesday with Jade ",
    "remind": "Remind me to call mum at 5pm. remind me at 5pm to call mum ",
    "tags": "we need more, don't you? it's stopped heating it's closed isn't it odd ",
    "texting": "hey can u pls book a van lol we're at the park its 5 ",
    "now": "It's nearly 6 and the third floor is shut for half an hour. ",
    # round ten's paths: paraphrase's question shapes (modal "be", "being", progressive, "what
    # can", price questions, "still"/"yet") as sentences and as one sentence with no stop, and
    # self_correction's new value kinds (units, decimals, number words, postcodes, "an £80")
    "asks": "When will my bowl be ready? When is my skip being collected? When is the sweep coming on "
    "Thursday? What can't go into a skip? Roughly what would a new gutter cost? It still hasn't been fixed. ",
    # one sentence ending in "." read to its end from every "what would" / "hasn't": quadratic
    # in round ten (3.2 s at 80,000 characters), one read of the part a match can lie in now
    "price_run": "what would it cost and ",
    "hasnt_run": "the gate hasn't been fixed ",
    "measures": "a 2.4m plank, a 90cm one, 1.7 litres, an £80 voucher for twenty people, bs7 8lu in Camden ",
    # round eleven's paraphrase paths: "Do you X, or ...", "Is that still ...", an indirect
    # "how long", one question with many subordinate clauses (_run_on_subject), "Do you need a"
    "or_run": "Do you fit carpets, or ",
    "still_run": "Is that still ",
    "how_long_run": "Could you tell me how long ",
    "clauses": "How long should I wait if I fly before you land because it rains when ",
    "need_run": "Do you need a permit to ",
    # after round eleven: record labels before codes, back-referring ordinals, person + company,
    # measure phrases, and "booking" as a verb (register)
    "order_codes": "Order AB-1, ",
    "second": "the second charge ",
    "call_at": "call Mark at Acme ",
    "measure": "about 18 inches long, ",
    "booking_verb": "I'm booking the room and ",
    # round twelve's paraphrase shapes (tried only when the older rules leave no variant): an
    # alternative question's "need to"/"or can"/"or just", "how much is NP and <question>",
    # a named charge read ahead for a second price, "could you tell me when I can"
    "or_need_run": "does the van need to go or can it stay or just the ",
    "how_much_and": "how much is the big tray of buns and do you whats the minimum charge and ",
    "tell_me_run": "Could you tell me when I can ",
    # the red-team review of round twelve: the user's own city and a negated duration
    # (self_correction), a statement before a question and a second alternative (reorder), a
    # value ending in a full stop, a question ended by a full stop split at "and" (paraphrase)
    "own_town_run": "I live in Bristol, we're from Salford, do not keep it for a fortnight, ",
    "statement_run": "It's been two weeks. Where is it? Are you free tomorrow or next week? ",
    "stop_and_run": "How much is it at Station Rd. and I need two and ",
}


def _prompt(pattern: str, chars: int) -> str:
    return (pattern * (chars // len(pattern) + 1))[:chars].rstrip() + "."


def _generate_seconds(cls: str, prompt: str) -> float:
    ctx = prepare(Task(id="t1", prompt=prompt, expected="x", grader="exact"))
    start = time.perf_counter()
    try:
        CLASSES.get(cls).generate(ctx, 0.5, random.Random(1), 0)
    except SkipGeneration:
        pass
    return time.perf_counter() - start


def _digit_line() -> bytes:
    output = " ".join(["7" * 4300] * 230)
    return (
        '{"run_id":"bench","suite":"bench","task_id":"t1","variant_id":"t1/canonical",'
        f'"variant_sha256":"sha256:{"a" * 64}","perturbation":"canonical","level":null,"epsilon":0.0,'
        f'"weight":1.0,"attempt":0,"outcome":"wrong","output":"{output}","error":null,"latency_s":0.1,'
        '"usage":{"input_tokens":1,"output_tokens":1,"cost_usd":0.0},"seed":0,"retry":0}\n'
    ).encode()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chars", default="10000,40000", help="comma-separated prompt lengths in characters")
    args = ap.parse_args()
    sizes = [int(x) for x in args.chars.split(",")]
    worst = 0.0
    steep: list[str] = []
    print(f"generation, seconds at {' / '.join(f'{n:,}' for n in sizes)} characters (ratio last/first)")
    for name, pattern in PATTERNS.items():
        cells = []
        for cls in class_names():
            secs = [_generate_seconds(cls, _prompt(pattern, n)) for n in sizes]
            ratio = secs[-1] / max(secs[0], 1e-3)
            worst = max(worst, secs[-1])
            if ratio > 1.5 * sizes[-1] / sizes[0] and secs[-1] > 0.05:
                steep.append(f"{cls} on {name} ({ratio:.1f}x)")
            cells.append(f"{cls} {'/'.join(f'{s:.2f}' for s in secs)} ({ratio:.1f}x)")
        print(f"  {name:<10} " + "; ".join(cells))
    print(f"slowest single generation: {worst:.2f} s; length ratio {sizes[-1] / sizes[0]:.0f}")
    print("steeper than 1.5x the length ratio: " + (", ".join(steep) or "none"))
    raw = _digit_line()
    start = time.perf_counter()
    read_trial_line(raw, "trials.jsonl", 1)
    screened = time.perf_counter() - start
    start = time.perf_counter()
    Trial.model_validate(parse_trial_line(raw, "trials.jsonl", 1, REPORT_FIX))
    strict = time.perf_counter() - start
    print(
        f"trial line of 230 runs of 4,300 digits ({len(raw):,} bytes): read_trial_line {screened:.3f} s, "
        f"strict parser {strict:.3f} s, ratio {screened / max(strict, 1e-6):.1f}"
    )


if __name__ == "__main__":
    main()
