"""docs/perturbations-quality.md: its ε tables are what benchmarks/heldout_eval.py computes
from the committed candidates."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "perturbations-quality.md"


def _eval_module():
    spec = importlib.util.spec_from_file_location("heldout_eval", REPO / "benchmarks" / "heldout_eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SETS = [
    "benchmarks/dev",
    "benchmarks/dev2",
    "benchmarks/dev3",
    "benchmarks/heldout",
    "benchmarks/heldout2",
    "benchmarks/heldout3",
    "benchmarks/heldout4",
    "benchmarks/heldout5",
    "benchmarks/heldout6",
    "benchmarks/heldout7",
    "benchmarks/heldout8",
    "benchmarks/heldout9",
    "benchmarks/heldout10",
]
LABELLED = [
    ("benchmarks/heldout", "before"),
    ("benchmarks/heldout", "after"),
    ("benchmarks/heldout2", "before"),
    ("benchmarks/heldout2", "after"),
    ("benchmarks/heldout3", "before"),
    ("benchmarks/heldout3", "after"),
    ("benchmarks/heldout3", "round5"),
    ("benchmarks/heldout4", "before"),
    ("benchmarks/heldout4", "round6"),
    ("benchmarks/heldout4", "after"),
    ("benchmarks/heldout5", "before"),
    ("benchmarks/heldout5", "round7"),
    ("benchmarks/heldout5", "after"),
    ("benchmarks/heldout6", "before"),
    ("benchmarks/heldout6", "round8"),
    ("benchmarks/heldout6", "after"),
    ("benchmarks/heldout7", "before"),
    ("benchmarks/heldout7", "round9"),
    ("benchmarks/heldout7", "after"),
    ("benchmarks/heldout8", "before"),
    ("benchmarks/heldout8", "round10"),
    ("benchmarks/heldout8", "after"),
    ("benchmarks/heldout9", "before"),
    ("benchmarks/heldout9", "round11"),
    ("benchmarks/heldout9", "after"),
    ("benchmarks/heldout10", "before"),
    ("benchmarks/heldout10", "round12"),
    ("benchmarks/heldout10", "after"),
]


def _blocks(kind: str) -> list[tuple[str, str, str]]:
    """Every ``<!-- KIND: ROOT TAG -->`` block of the page: (root, tag, table)."""
    text = DOC.read_text("utf-8")
    return [
        (m.group(1), m.group(2), m.group(3).rstrip("\n"))
        for m in re.finditer(rf"<!-- {kind}: (\S+) (\S+) -->\n((?:\|.*\n)+)", text)
    ]


def test_the_page_has_an_epsilon_table_for_every_set_and_a_targets_table_for_every_labelled_run() -> None:
    assert {root for root, _, _ in _blocks("epsilon")} == set(SETS)
    assert {(root, tag) for root, tag, _ in _blocks("targets")} == {
        (root, tag)
        for root, tag in LABELLED
        # every labelled run, "before" included, except the first set's "before" (reported in
        # its review section only)
        if (root, tag) != ("benchmarks/heldout", "before")
    }


def test_quality_doc_epsilon_tables_match_the_candidates() -> None:
    module = _eval_module()
    for root, tag, table in _blocks("epsilon"):
        module.use_root(REPO / root)
        assert table == module.epsilon_table(tag), (root, tag)


def test_quality_doc_targets_tables_are_recounted_from_the_labels() -> None:
    """The verdict tables (natural/meaning/slots/coverage with counts, met or not) are what
    the labels give."""
    module = _eval_module()
    for root, tag, table in _blocks("targets"):
        module.use_root(REPO / root)
        assert table == module.targets_table(tag), (root, tag)


def test_targets_table_counts_a_hand_made_set(tmp_path: Path) -> None:
    """One task, two candidates per class: the counts and verdicts come out as computed by hand."""
    root = tmp_path / "set"
    (root / "tasks").mkdir(parents=True)
    task = {"id": "t-1", "prompt": "Pay $5 on Friday", "slots": {"amount": "$5", "day": "Friday"}}
    (root / "tasks" / "t.jsonl").write_text(json.dumps(task) + "\n", "utf-8")
    (root / "correctable.json").write_text(json.dumps({"correctable": ["t-1"]}), "utf-8")
    cands, labels = [], []
    module = _eval_module()
    for cls in module.CLASSES:
        for i, (text, natural) in enumerate([("Pay $5 on Friday please", True), ("Pay $5 Friday", False)]):
            cid = f"c-{cls}-{i}"
            cands.append(
                {"id": cid, "task_id": "t-1", "perturbation": cls, "text": text, "level": 0.1, "epsilon": 0.1}
            )
            labels.append({"id": cid, "natural": natural, "meaning": True, "note": ""})
    (root / "after").mkdir()
    (root / "after" / "candidates.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cands), "utf-8")
    (root / "after" / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels), "utf-8")
    module.use_root(root)
    rows = module.targets_table("after").splitlines()[2:]
    assert rows[0] == (
        "| paraphrase | 50.0 % (1/2) | 100.0 % (2/2) | 100.0 % (2/2) | 100.0 % (1/1 tasks; ≥ 70 %) "
        "| **not met**: natural |"
    )
    assert rows[3].startswith("| self_correction | 50.0 % (1/2) |")
    assert "(1/1 correctable tasks; ≥ 90 %)" in rows[3]


@pytest.mark.parametrize("root", SETS)
def test_measured_epsilon_rises_with_the_requested_level_for_every_class(root: str) -> None:
    module = _eval_module()
    module.use_root(REPO / root)
    result = module.compute("after")
    for cls, row in result["classes"].items():
        means = [row["levels"][lv]["mean_epsilon"] for lv in ("0.1", "0.3", "0.5")]
        assert means[0] < means[1] < means[2], (root, cls, means)
        # a regression guard, not the target: reorder at 0.5 sits at 0.29-0.33 because most
        # prompts have little to move (see the page); nothing may drift further than 0.25
        assert all(abs(m - lv) <= 0.25 for m, lv in zip(means, (0.1, 0.3, 0.5), strict=True)), (
            root,
            cls,
            means,
        )


def _lines(path: Path) -> list[str]:
    return path.read_text("utf-8").splitlines()


@pytest.mark.parametrize(("root", "tag"), LABELLED)
def test_heldout_review_tables_are_what_the_labels_give(root: str, tag: str) -> None:
    """table.md beside the labels is the script's output, every candidate has exactly one
    label, and the page shows the table's rows."""
    out = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "heldout_eval.py"), "--root", root, "table", "--tag", tag],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    base = REPO / root / tag
    committed = (base / "table.md").read_text("utf-8")
    assert out.strip() == committed.strip()
    assert "WARNING" not in out
    ids = [json.loads(line)["id"] for line in _lines(base / "candidates.jsonl")]
    labelled = [json.loads(line)["id"] for line in _lines(base / "labels.jsonl")]
    assert sorted(ids) == sorted(labelled)
    doc = DOC.read_text("utf-8")
    rows = [line for line in committed.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == 7
    for row in rows:
        assert row in doc, (root, tag, row)


def test_not_met_section_quotes_only_figures_of_the_targets_tables() -> None:
    """Every "a of b" count and every percentage in "Not met" is one the recounted targets
    tables show (or a target itself), or a per-level count of a committed review table, so the
    prose cannot drift from the labels."""
    text = DOC.read_text("utf-8")
    section = text[text.index("## Not met") :]
    tables = "\n".join(table for _, _, table in _blocks("targets"))
    per_level = "\n".join(
        line
        for root, tag in LABELLED
        for line in _lines(REPO / root / tag / "table.md")
        if line.startswith("Natural candidates of the labelled ones, per level:")
    )
    counts = re.findall(r"(\d+) of (\d+)", section)
    assert counts
    for a, b in counts:
        assert f"({a}/{b}" in tables or f" {a}/{b}" in per_level, (a, b)
    for pct in re.findall(r"(\d+(?:\.\d+)?) %", section):
        assert pct in {"60", "70", "90", "98"} or f"{pct} % (" in tables, pct


def test_coverage_table_now_figures_are_the_committed_runs() -> None:
    """The "→ now" side of every cell of the page's coverage table is what the committed
    `after` run of that set gives (tasks with a candidate; self_correction: of correctable
    tasks), and the set sizes in the header are the task counts."""
    text = DOC.read_text("utf-8")
    section = text[
        text.index("## Coverage: tasks with at least one candidate") : text.index("## Held-out review")
    ]
    lines = [line for line in section.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")][2:]
    sets = [re.fullmatch(r"(\S+) \((\d+)\)", cell) for cell in header]
    assert all(sets) and len(sets) == len(SETS)
    module = _eval_module()
    results = {}
    for match in sets:
        assert match is not None
        module.use_root(REPO / "benchmarks" / match.group(1))
        results[match.group(1)] = module.compute("after")
        assert results[match.group(1)]["tasks"] == int(match.group(2))
    checked = 0
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        cls = cells[0].split()[0]
        for match, cell in zip(sets, cells[2:], strict=True):
            assert match is not None
            row = results[match.group(1)]["classes"][cls]
            now = int(re.search(r"→ (\d+)", cell).group(1))  # type: ignore[union-attr]
            if cls == "self_correction":
                assert (now, int(re.search(r"of (\d+)", cell).group(1))) == (  # type: ignore[union-attr]
                    row["correctable_covered"],
                    row["correctable_tasks"],
                ), (match.group(1), cell)
            else:
                assert now == results[match.group(1)]["tasks"] - row["tasks_no_variant"], (
                    match.group(1),
                    cls,
                    cell,
                )
            checked += 1
    assert checked == 6 * len(SETS)


@pytest.mark.parametrize(
    "root",
    [
        "benchmarks/heldout5",
        "benchmarks/heldout6",
        "benchmarks/heldout7",
        "benchmarks/heldout8",
        "benchmarks/heldout9",
        "benchmarks/heldout10",
    ],
)
def test_the_set_readme_shows_what_the_check_mode_counts(root: str) -> None:
    """A held-out set's README quotes the tag table and the slot count that `heldout_eval.py
    check` computes from its task file (which also asserts the file's invariants)."""
    module = _eval_module()
    module.use_root(REPO / root)
    out = module.check_table()
    readme = (REPO / root / "README.md").read_text("utf-8")
    table = "\n".join(line for line in out.splitlines() if line.startswith("|"))
    assert table in readme
    head = re.fullmatch(
        r"(\d+) tasks in \d+ domains \(.*\), (\d+) slots in (\d+) tasks, (\d+) correctable",
        out.splitlines()[0],
    )
    assert head is not None, out.splitlines()[0]
    assert f"{head.group(2)} slots in {head.group(3)} tasks" in readme


def test_the_check_mode_names_a_slot_that_is_not_in_its_prompt(tmp_path: Path) -> None:
    root = tmp_path / "set"
    (root / "tasks").mkdir(parents=True)
    tasks = [
        {"id": "a-001", "prompt": "Pay $5 on Friday", "slots": {"day": "Friday"}, "tags": ["one-liner"]},
        {"id": "b-001", "prompt": "Pay $5 on Friday", "slots": {"day": "Monday"}, "tags": ["one-liner"]},
    ]
    (root / "tasks" / "t.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks), "utf-8")
    (root / "correctable.json").write_text(json.dumps({"correctable": ["a-001", "b-001"]}), "utf-8")
    module = _eval_module()
    module.use_root(root)
    with pytest.raises(SystemExit) as err:
        module.check_table()
    assert str(err.value) == "error: set: b-001: slot day='Monday' is not in the prompt"


def _ceiling_set(tmp_path: Path, reviewers: dict[str, list[dict]]) -> Path:
    root = tmp_path / "set"
    (root / "tasks").mkdir(parents=True)
    tasks = [
        {"id": "a-001", "prompt": "Book a table for 4 on Friday.", "slots": {"n": "4", "day": "Friday"}},
        {"id": "a-002", "prompt": "Cancel it.", "slots": {}},
        {"id": "a-003", "prompt": "I'm a beginner. Which class suits me?", "slots": {}},
    ]
    (root / "tasks" / "t.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks), "utf-8")
    (root / "reorder_ceiling").mkdir()
    for name, rows in reviewers.items():
        path = root / "reorder_ceiling" / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    (root / "after").mkdir()
    cand = {
        "id": "c-1",
        "task_id": "a-001",
        "perturbation": "reorder",
        "text": "Book a table on Friday for 4.",
    }
    (root / "after" / "candidates.jsonl").write_text(json.dumps(cand) + "\n", "utf-8")
    return root


def test_ceiling_table_counts_two_reviewers_by_hand(tmp_path: Path) -> None:
    """Reviewer x: a-001 and a-003 reorderable (a-003 a closest call); reviewer y: a-001 only.
    Every reviewer: {a-001}; any: {a-001, a-003}; agree on a-001 and a-002; without closest
    calls: {a-001}. The run covers a-001 only."""
    one = {"id": "a-001", "reorderable": True, "example": "Book a table on Friday for 4.", "note": ""}
    two = {"id": "a-002", "reorderable": False, "example": None, "note": "one clause"}
    three = {
        "id": "a-003",
        "reorderable": True,
        "example": "Which class suits me? I'm a beginner.",
        "closest": True,
    }
    root = _ceiling_set(tmp_path, {"x": [one, two, three], "y": [one, two, dict(three, reorderable=False)]})
    module = _eval_module()
    module.use_root(root)
    assert module.ceiling_table("after").splitlines() == [
        "| reviewer | tasks with a natural reorder, by hand |",
        "| --- | --- |",
        "| x | 2/3 (66.7 %) |",
        "| y | 1/3 (33.3 %) |",
        "| every reviewer | 1/3 (33.3 %) |",
        "| any reviewer | 2/3 (66.7 %) |",
        "| every reviewer, without any reviewer's closest calls | 1/3 (33.3 %) |",
        "",
        "Reviewers agree on 2 of 3 tasks.",
        "`after`: the generator's reorder covers 1/3 tasks (33.3 %), 1 of the 1 that every reviewer"
        " could reorder by hand, 0 that no reviewer could.",
    ]


def test_ceiling_rejects_an_example_that_loses_a_slot_or_a_missing_task(tmp_path: Path) -> None:
    lost = {"id": "a-001", "reorderable": True, "example": "On Friday book a table.", "note": ""}
    rest = [{"id": i, "reorderable": False, "example": None} for i in ("a-002", "a-003")]
    root = _ceiling_set(tmp_path, {"x": [lost, *rest]})
    module = _eval_module()
    module.use_root(root)
    with pytest.raises(SystemExit) as err:
        module.ceiling_table(None)
    assert (
        str(err.value)
        == f"error: {root / 'reorder_ceiling' / 'x.jsonl'}: a-001: example lost slot value(s) ['4']"
    )
    (root / "reorder_ceiling" / "x.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rest), "utf-8")
    with pytest.raises(SystemExit) as err:
        module.ceiling_table(None)
    assert str(err.value).endswith("x.jsonl: must hold exactly one line per task id of the set")
    (root / "reorder_ceiling" / "x.jsonl").write_text(json.dumps({"id": "a-001"}) + "\n", "utf-8")
    with pytest.raises(SystemExit) as err:
        module.ceiling_table(None)
    assert str(err.value).endswith(
        "x.jsonl:1: expected an object with a string 'id' and a true/false 'reorderable'"
    )


def test_quality_doc_ceiling_tables_are_what_the_reviewers_files_give() -> None:
    """Every ``<!-- ceiling: ROOT TAG -->`` block is `heldout_eval.py ceiling --tag TAG`'s
    table, and its two sentences (agreement, the run's coverage beside the ceiling) follow it."""
    module = _eval_module()
    blocks = _blocks("ceiling")
    assert {root for root, _, _ in blocks} == {"benchmarks/heldout9", "benchmarks/heldout10"}
    text = DOC.read_text("utf-8")
    for root, tag, table in blocks:
        module.use_root(REPO / root)
        out = module.ceiling_table(tag)
        head, _, tail = out.partition("\n\n")
        assert table == head, (root, tag)
        assert f"{table}\n\n{tail}\n" in text, (root, tag)
