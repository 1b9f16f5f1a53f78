"""Check benchmarks/heldout5/tasks/heldout5.jsonl and print the README's tag-count figures.

Asserts: 84 lines, unique ids, 12 tasks per domain prefix, every slot value occurs verbatim in
its prompt, and that correctable.json covers every id exactly once. Run from the repo root:
``python3 benchmarks/heldout5/check.py``.
"""

import json
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent
DOMAINS = ("tail", "lock", "cake", "move", "ev", "photo", "gard")
WAKE_WORDS = ("Alexa,", "Hey Siri,", "OK Google,")


def main() -> None:
    """Run the checks and print tag counts."""
    lines = (ROOT / "tasks" / "heldout5.jsonl").read_text(encoding="utf-8").splitlines()
    tasks = [json.loads(line) for line in lines]
    assert len(tasks) == 84, f"expected 84 tasks, found {len(tasks)}"
    ids = [t["id"] for t in tasks]
    assert len(set(ids)) == len(ids), "duplicate ids"
    per_domain = Counter(i.split("-")[0] for i in ids)
    assert per_domain == dict.fromkeys(DOMAINS, 12), f"domain counts {per_domain}"
    for t in tasks:
        for name, value in t["slots"].items():
            assert value in t["prompt"], f"{t['id']}: slot {name}={value!r} not in prompt"
    corr = json.loads((ROOT / "correctable.json").read_text(encoding="utf-8"))
    listed = corr["correctable"] + list(corr["not_correctable"])
    assert sorted(listed) == sorted(ids), "correctable.json must list every id exactly once"

    def has(t: dict, tag: str) -> bool:
        return tag in t["tags"]

    one = [t for t in tasks if has(t, "one-liner")]
    chat = [t for t in tasks if has(t, "chat")]
    low = [t for t in tasks if has(t, "lowercase")]
    ques = [t for t in tasks if has(t, "question")]
    standalone = [t for t in ques if not set(t["tags"]) & {"one-liner", "chat", "lowercase"}]
    print(
        "one-liner",
        len(one),
        "wake",
        sum(t["prompt"].startswith(WAKE_WORDS) for t in one),
        "question",
        sum(has(t, "question") for t in one),
    )
    print(
        "chat",
        len(chat),
        "back-ref",
        sum(has(t, "back-reference") for t in chat),
        "question",
        sum(has(t, "question") for t in chat),
    )
    print(
        "lowercase",
        len(low),
        "question",
        sum(has(t, "question") for t in low),
        "back-ref",
        sum(has(t, "back-reference") for t in low),
    )
    print("question", len(ques), "standalone", len(standalone))
    slotted = [t for t in tasks if t["slots"]]
    print("slots", sum(len(t["slots"]) for t in tasks), "in", len(slotted), "tasks")
    print("correctable", len(corr["correctable"]), "not", len(corr["not_correctable"]))


if __name__ == "__main__":
    main()
