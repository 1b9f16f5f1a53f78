"""Check the invariants of heldout6 and print the counts quoted in its README.

Run: ``python3 benchmarks/heldout6/check_tasks.py``. Asserts 84 unique ids, 12 per domain,
every slot value verbatim in its prompt and a consistent ``correctable.json``; prints the
tag-count table and the slot count.
"""

import collections
import json
from pathlib import Path

HERE = Path(__file__).parent
DOMAINS = ("pool", "drive", "plumb", "wine", "boat", "tattoo", "solar")
WAKE_WORDS = ("Alexa,", "Hey Siri,", "OK Google,", "Hey Google,")


def main() -> None:
    """Assert the set's invariants and print its tag and slot counts."""
    lines = (HERE / "tasks" / "heldout6.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    ids = [r["id"] for r in rows]
    assert len(rows) == 84, f"expected 84 tasks, found {len(rows)}"
    assert len(set(ids)) == 84, "task ids are not unique"
    per_domain = collections.Counter(i.split("-")[0] for i in ids)
    assert per_domain == dict.fromkeys(DOMAINS, 12), f"expected 12 per domain: {per_domain}"
    for r in rows:
        for name, value in r["slots"].items():
            assert value in r["prompt"], f"{r['id']}: slot {name}={value!r} not in prompt"
    corr = json.loads((HERE / "correctable.json").read_text(encoding="utf-8"))
    assert sorted(corr["correctable"] + list(corr["not_correctable"])) == sorted(ids)

    def count(*tags: str) -> int:
        return sum(all(t in r["tags"] for t in tags) for r in rows)

    wake = sum("one-liner" in r["tags"] and r["prompt"].startswith(WAKE_WORDS) for r in rows)
    standalone = sum(r["tags"] == ["question"] for r in rows)
    print("| tag | tasks | of which |")
    print("| --- | --- | --- |")
    print(
        f"| `one-liner` | {count('one-liner')} | {wake} with a wake word, "
        f"{count('one-liner', 'question')} also `question`, "
        f"{count('one-liner', 'back-reference')} also `back-reference` |"
    )
    print(
        f"| `chat` | {count('chat')} | {count('chat', 'back-reference')} `back-reference`, "
        f"{count('chat', 'question')} ending in a `question` |"
    )
    print(
        f"| `lowercase` | {count('lowercase')} | {count('lowercase', 'question')} also "
        f"`question`, {count('lowercase', 'back-reference')} also `back-reference` |"
    )
    print(
        f"| `question` | {count('question')} | {standalone} standalone, "
        f"{count('chat', 'question')} chat, {count('lowercase', 'question')} lower-case, "
        f"{count('one-liner', 'question')} one-liners |"
    )
    print(f"| `back-reference` | {count('back-reference')} | |")
    n_slots = sum(len(r["slots"]) for r in rows)
    with_slots = sum(bool(r["slots"]) for r in rows)
    print(f"slots: {n_slots} in {with_slots} tasks ({84 - with_slots} have none)")
    print(f"correctable: {len(corr['correctable'])} of 84")


if __name__ == "__main__":
    main()
