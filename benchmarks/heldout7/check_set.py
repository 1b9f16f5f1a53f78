"""Check the heldout7 task file and print the README's tag-count table and slot count.

Run from the repository root: ``python3 benchmarks/heldout7/check_set.py``. It asserts the set's
shape (84 unique ids, 12 per domain, every slot value verbatim in its prompt, correctable.json
covering every id exactly once) and prints the figures quoted in ``README.md``.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOMAINS = ("hear", "roof", "skip", "valet", "ski", "blind", "craft")
TAGS = {"one-liner", "chat", "lowercase", "question", "back-reference"}
WAKE_WORDS = ("Alexa,", "Hey Siri,", "OK Google,", "Hey Google,")


def main() -> None:
    """Assert the set's invariants and print the tag table."""
    rows = [json.loads(line) for line in (HERE / "tasks" / "heldout7.jsonl").open(encoding="utf-8")]
    ids = [row["id"] for row in rows]
    assert len(rows) == 84, f"expected 84 tasks, found {len(rows)}"
    assert len(set(ids)) == len(ids), "duplicate ids"
    per_domain = collections.Counter(task_id.split("-")[0] for task_id in ids)
    assert per_domain == dict.fromkeys(DOMAINS, 12), f"12 per domain expected: {per_domain}"
    for row in rows:
        assert row["grader"] == "json_subset" and "intent" in row["expected"], row["id"]
        assert set(row["tags"]) <= TAGS, f"{row['id']}: unknown tag in {row['tags']}"
        for name, value in row["slots"].items():
            assert value in row["prompt"], f"{row['id']}: slot {name}={value!r} not in prompt"
    corr = json.loads((HERE / "correctable.json").read_text(encoding="utf-8"))
    listed = corr["correctable"] + list(corr["not_correctable"])
    assert sorted(listed) == sorted(ids), "correctable.json must list every id exactly once"

    def count(*need: str) -> int:
        return sum(1 for r in rows if set(need) <= set(r["tags"]))

    wake = sum(1 for r in rows if "one-liner" in r["tags"] and r["prompt"].startswith(WAKE_WORDS))
    ends_q = sum(1 for r in rows if "chat" in r["tags"] and r["prompt"].rstrip().endswith("?"))
    standalone = sum(1 for r in rows if r["tags"] == ["question"])
    slots = sum(len(r["slots"]) for r in rows)
    with_slots = sum(1 for r in rows if r["slots"])
    one_q, chat_q, low_q = (
        count("one-liner", "question"),
        count("chat", "question"),
        count("lowercase", "question"),
    )
    chat_back, low_back = count("chat", "back-reference"), count("lowercase", "back-reference")
    print("| tag | tasks | of which |")
    print("| --- | --- | --- |")
    print(f"| `one-liner` | {count('one-liner')} | {wake} with a wake word, {one_q} also `question` |")
    print(
        f"| `chat` (2–4 sentences) | {count('chat')} | {chat_back} `back-reference`, "
        f"{chat_q} `question`, {ends_q} ending in a question mark |"
    )
    print(
        f"| `lowercase` (unpunctuated) | {count('lowercase')} | {low_q} also `question`, "
        f"{low_back} also `back-reference` |"
    )
    print(
        f"| `question` | {count('question')} | {standalone} standalone questions, {chat_q} chat messages, "
        f"{low_q} lower-case messages, {one_q} one-liners |"
    )
    print(f"slots: {slots} in {with_slots} tasks ({len(rows) - with_slots} with none)")
    print(f"correctable: {len(corr['correctable'])} of {len(rows)}")


if __name__ == "__main__":
    main()
