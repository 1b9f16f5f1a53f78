"""Review without a terminal: journal state, undo, resume order, sampling, the lock, the
scriptable commands (--list, accept, reject) and the screen rendering helpers."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.errors import InputError, ReviewLockedError, UsageError
from perturb.freeze.fixtures import SuitePaths
from perturb.records import Candidate, Decision, SampleRule
from perturb.review.journal import (
    JournalState,
    Recorder,
    draw_sample,
    open_context,
    read_journal,
    resolve_reviewer,
)
from perturb.review.listing import decide_ids
from perturb.review.lock import ReviewLock, process_start_time
from perturb.review.render import align_chars, diff_ops, diff_stats, find_hidden, render_diff, visible
from tests.review_project import SUITE, journal_lines, make_candidate, make_project

runner = CliRunner()


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, list[Candidate]]:
    return tmp_path, make_project(tmp_path)


def cli(root: Path, *args: str) -> object:
    return runner.invoke(app, [*args, "--root", str(root)])


def dead_pid() -> int:
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(proc.stdout)


# --------------------------------------------------------------------------- journal state


def test_status_follows_the_latest_decision_and_undo_walks_back(project: tuple) -> None:
    root, cands = project
    ctx = open_context(root, None)
    a, b = cands[0], cands[1]
    with Recorder(ctx, "Ada", "test") as rec:
        rec.record("accept", a)
        rec.record("skip", b)
        rec.record("reject", a, reason="  meaning   changed ")
        assert [ctx.state.status(c) for c in (a, b)] == ["rejected", "skipped"]
        # Undo three steps, one at a time: reject of a, skip of b, accept of a.
        ids = {a.id, b.id}
        seen = []
        for _ in range(3):
            last = ctx.state.last_in_effect(ids)
            assert last is not None
            seen.append(last.seq)
            rec.record("undo", undoes=last.seq)
        assert seen == [3, 2, 1]
        assert ctx.state.last_in_effect(ids) is None
        assert [ctx.state.status(c) for c in (a, b)] == ["undecided", "undecided"]
    lines = journal_lines(root)
    assert [(d["seq"], d["action"], d.get("undoes")) for d in lines] == [
        (1, "accept", None),
        (2, "skip", None),
        (3, "reject", None),
        (4, "undo", 3),
        (5, "undo", 2),
        (6, "undo", 1),
    ]
    assert lines[2]["reason"] == "meaning changed"
    assert lines[0]["task_sha256"] == a.task_sha256
    # Replaying the file gives the same state.
    state = JournalState.replay(read_journal(SuitePaths(root, SUITE).journal))
    assert state.undone == {3: 4, 2: 5, 1: 6}
    assert state.status(a) == "undecided"


def test_undo_of_one_step_restores_the_previous_decision(project: tuple) -> None:
    root, cands = project
    ctx = open_context(root, None)
    with Recorder(ctx, "Ada", "test") as rec:
        rec.record("accept", cands[0])
        rec.record("edit", cands[0], text="Please book a flight from Paris to Rome on Friday.")
        assert ctx.state.status(cands[0]) == "edited"
        rec.record("undo", undoes=2)
    assert ctx.state.status(cands[0]) == "accepted"


def test_decision_against_an_older_task_version_does_not_count(project: tuple) -> None:
    root, cands = project
    ctx = open_context(root, None)
    with Recorder(ctx, "Ada", "test") as rec:
        rec.record("accept", cands[0])
    regenerated = cands[0].model_copy(update={"task_sha256": "sha256:" + "0" * 64})
    assert ctx.state.status(cands[0]) == "accepted"
    assert ctx.state.status(regenerated) == "undecided"


def test_journal_with_a_torn_last_line_is_read_and_repaired(project: tuple) -> None:
    root, cands = project
    paths = SuitePaths(root, SUITE)
    good = Decision(
        seq=1, action="accept", candidate_id=cands[0].id, reviewer="Ada", at="2025-01-01T00:00:00Z"
    )
    paths.journal.write_text(good.model_dump_json() + "\n" + '{"seq":2,"action":"rej', encoding="utf-8")
    assert [d.seq for d in read_journal(paths.journal)] == [1]
    ctx = open_context(root, None)
    with Recorder(ctx, "Ada", "test") as rec:
        rec.record("reject", cands[1], reason="x")
    assert [d["seq"] for d in journal_lines(root)] == [1, 2]


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (
            [
                {"seq": 2, "action": "accept", "candidate_id": "c-1", "reviewer": "A", "at": "t"},
                {"seq": 2, "action": "skip", "candidate_id": "c-1", "reviewer": "A", "at": "t"},
            ],
            ":2: seq: seq 2 is not after 2 (expected strictly increasing; was the journal edited by hand?)",
        ),
        (
            [{"seq": 1, "action": "undo", "undoes": 7, "reviewer": "A", "at": "t"}],
            ":1: undoes: undo of unknown seq 7 (expected an earlier seq)",
        ),
        (
            [
                {"seq": 1, "action": "accept", "candidate_id": "c-1", "reviewer": "A", "at": "t"},
                {"seq": 2, "action": "undo", "undoes": 1, "reviewer": "A", "at": "t"},
                {"seq": 3, "action": "undo", "undoes": 1, "reviewer": "A", "at": "t"},
            ],
            ":3: undoes: seq 1 was already undone by seq 2 (expected a decision still in effect)",
        ),
        (
            [{"seq": 1, "action": "maybe", "candidate_id": "c-1", "reviewer": "A", "at": "t"}],
            ":1: action: Input should be 'accept', 'reject', 'edit', 'skip' or 'undo' (got 'maybe')",
        ),
        (
            [{"seq": 1, "action": "accept", "reviewer": "A", "at": "t"}],
            ":1: candidate_id: missing for 'accept' (expected the candidate decided on)",
        ),
    ],
)
def test_malformed_journal_lines_name_file_line_and_field(
    tmp_path: Path, lines: list[dict], expected: str
) -> None:
    path = tmp_path / "journal.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    with pytest.raises(InputError) as exc:
        read_journal(path)
    assert str(exc.value) == f"{path}{expected}"


# --------------------------------------------------------------------------- selection


def test_sample_is_stratified_reproducible_and_seed_dependent(tmp_path: Path) -> None:
    from perturb.records import Task

    task = Task(id="t1", prompt="Book a flight to Rome.", expected="x", grader="exact")  # type: ignore[arg-type]
    cands = [
        make_candidate(task, cls, f"{cls} text {i}", index=i)
        for cls in ("paraphrase", "typo", "distractor")
        for i in range(5)
    ]
    first = draw_sample(cands, 6, seed=11)
    assert [c.id for c in first] == [c.id for c in draw_sample(list(reversed(cands)), 6, 11)][::-1]
    classes = [c.perturbation for c in first]
    assert {k: classes.count(k) for k in set(classes)} == {
        "paraphrase": 2,
        "typo": 2,
        "distractor": 2,
    }
    # Round-robin: 4 draws cover every class before any class gets a second pick.
    four = [c.perturbation for c in draw_sample(cands, 4, seed=11)]
    assert sorted(set(four)) == ["distractor", "paraphrase", "typo"]
    draws = {tuple(c.id for c in draw_sample(cands, 6, seed=s)) for s in range(8)}
    assert len(draws) > 1
    assert len(draw_sample(cands, 99, seed=1)) == 15


def test_select_rejects_bad_options(project: tuple) -> None:
    root, _ = project
    ctx = open_context(root, None)
    with pytest.raises(UsageError, match=r"--class 'typos' is not a perturbation class"):
        ctx.select(cls="typos")
    with pytest.raises(UsageError, match=r"--sample needs --seed S"):
        ctx.select(sample=2)
    with pytest.raises(UsageError, match=r"--task 'nope': no candidates for this task"):
        ctx.select(task="nope")
    assert [c.perturbation for c in ctx.select(cls="typo")] == ["typo", "typo"]
    assert [c.task_id for c in ctx.select(task="hotel-02")] == ["hotel-02"] * 3


# --------------------------------------------------------------------------- reviewer


def test_reviewer_from_flag_or_git_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("[user]\n\tname = Grace H\n\temail = grace@example.org\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    assert resolve_reviewer("  Ada  ", tmp_path) == "Ada"
    assert resolve_reviewer(None, tmp_path) == "Grace H <grace@example.org>"
    gitconfig.write_text("")
    with pytest.raises(Exception, match=r"^no reviewer name: pass --reviewer NAME"):
        resolve_reviewer(None, tmp_path)


# --------------------------------------------------------------------------- the lock


def test_second_holder_is_refused_with_the_pid(project: tuple) -> None:
    root, cands = project
    paths = SuitePaths(root, SUITE)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from perturb.review.lock import ReviewLock\n"
            f"lock = ReviewLock(Path({str(paths.review_lock)!r}), 'travel', 'perturb review')\n"
            "lock.acquire(); print('held', flush=True); sys.stdin.read(); lock.release()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        result = cli(root, "accept", cands[0].id, "--reviewer", "Ada")
        assert result.exit_code == 2
        host = socket.gethostname()
        line = result.stderr.strip()
        assert line.startswith(
            f"error: {paths.review_lock}: suite 'travel' is being reviewed by PID {holder.pid} "
            f"on {host} since "
        )
        assert line.endswith(
            f"(perturb review); wait for it to finish or quit it (if PID {holder.pid} is gone, "
            f"delete {paths.review_lock})"
        )
        assert "\n" not in line
        assert journal_lines(root) == []
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=10)
        holder.stdout.close()  # type: ignore[union-attr]
    assert not paths.review_lock.exists()
    assert cli(root, "accept", cands[0].id, "--reviewer", "Ada").exit_code == 0


def test_stale_lock_from_a_dead_pid_is_taken_over(project: tuple) -> None:
    root, cands = project
    paths = SuitePaths(root, SUITE)
    pid = dead_pid()
    paths.review_lock.write_text(
        json.dumps(
            {
                "pid": pid,
                "host": socket.gethostname(),
                "started_at": "2025-01-01T00:00:00Z",
                "purpose": "perturb review",
                "token": "old",
            }
        )
    )
    lock = ReviewLock(paths.review_lock, SUITE, "test").acquire()
    try:
        assert lock.took_over is not None and lock.took_over.pid == pid
        assert json.loads(paths.review_lock.read_text())["pid"] == os.getpid()
    finally:
        lock.release()
    assert not paths.review_lock.exists()


def test_lock_with_a_reused_pid_is_stale_and_other_hosts_are_refused(project: tuple) -> None:
    root, _ = project
    paths = SuitePaths(root, SUITE)
    me = os.getpid()
    start = process_start_time(me)
    assert start is not None  # Linux /proc
    record = {
        "pid": me,
        "host": socket.gethostname(),
        "started_at": "x",
        "purpose": "p",
        "token": "t",
        "proc_start": str(int(start) + 1),
    }
    paths.review_lock.write_text(json.dumps(record))
    with ReviewLock(paths.review_lock, SUITE, "test") as lock:
        assert lock.took_over is not None
    paths.review_lock.write_text(json.dumps({**record, "host": "elsewhere", "pid": 42}))
    with pytest.raises(ReviewLockedError) as exc:
        ReviewLock(paths.review_lock, SUITE, "test").acquire()
    assert str(exc.value) == (
        f"{paths.review_lock}: suite 'travel' is locked by PID 42 on elsewhere since x (p); a "
        f"process on another host cannot be checked: if nothing runs there, delete "
        f"{paths.review_lock}"
    )


# --------------------------------------------------------------------------- scriptable commands


def test_list_accept_reject_round_trip(project: tuple) -> None:
    root, cands = project
    result = cli(root, "review", "--list")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == ("travel · 6 candidates · 0 accepted, 0 edited, 0 rejected, 0 skipped, 6 undecided")
    assert lines[1] == "book-01: Book a flight from Paris to Rome on Friday."
    assert lines[2] == (
        f"  {cands[0].id}  paraphrase  undecided   Please book me a flight from Paris to Rome on Friday."
    )
    assert lines[4] == (
        f"  {cands[2].id}  register    undecided (1 flag)  yo book a flight Paris to Rome friday pls"
    )
    assert lines[5] == "      ! slot 'day' lost"

    one = cli(root, "accept", cands[0].id, "--reviewer", "Ada")
    assert one.exit_code == 0, one.stderr
    assert one.stdout == f"accepted {cands[0].id} (book-01 · paraphrase) [individual]\n"
    two = cli(root, "accept", cands[3].id, cands[4].id, "--reviewer", "Ada", "--reason", "ok")
    assert two.stdout.splitlines() == [
        f"accepted {cands[3].id} (hotel-02 · paraphrase) [bulk]",
        f"accepted {cands[4].id} (hotel-02 · distractor) [bulk]",
    ]
    rej = cli(root, "reject", cands[2].id, "--reason", "drops the day", "--reviewer", "Ada")
    assert rej.stdout == f"rejected {cands[2].id} (book-01 · register) [individual]\n"
    journal = journal_lines(root)
    assert [(d["seq"], d["action"], d["mode"], d.get("reason")) for d in journal] == [
        (1, "accept", "individual", None),
        (2, "accept", "bulk", "ok"),
        (3, "accept", "bulk", "ok"),
        (4, "reject", "individual", "drops the day"),
    ]
    listed = json.loads(cli(root, "review", "--list", "--json").stdout)
    assert [(r["id"], r["status"], r["reviewer"]) for r in listed] == [
        (cands[0].id, "accepted", "Ada"),
        (cands[1].id, "undecided", None),
        (cands[2].id, "rejected", "Ada"),
        (cands[3].id, "accepted", "Ada"),
        (cands[4].id, "accepted", "Ada"),
        (cands[5].id, "undecided", None),
    ]
    assert listed[2]["reason"] == "drops the day"
    assert listed[0]["canonical"] == "Book a flight from Paris to Rome on Friday."
    only_typo = json.loads(cli(root, "review", "--list", "--json", "--class", "typo").stdout)
    assert [r["id"] for r in only_typo] == [cands[1].id, cands[5].id]


def test_scriptable_errors(project: tuple) -> None:
    root, cands = project
    result = cli(root, "accept", "c-000000000000", "--reviewer", "Ada")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: unknown candidate id: c-000000000000 (expected ids from `perturb review --list`)\n"
    )
    result = cli(root, "reject", cands[0].id, "--reviewer", "Ada")
    assert result.exit_code == 2
    assert result.stderr == "error: perturb reject needs --reason R (why the candidate is rejected)\n"
    result = cli(root, "review", "--json")
    assert (result.exit_code, result.stderr) == (2, "error: --json only applies with --list\n")


def test_review_without_a_terminal_points_to_the_scriptable_commands(project: tuple) -> None:
    root, _ = project
    result = cli(root, "review", "--reviewer", "Ada")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: perturb review needs a terminal (stdin is not a TTY); without one use "
        "`perturb review --list`, `perturb accept ID...` and `perturb reject ID... --reason R`\n"
    )


def test_accepting_a_stale_candidate_is_refused(project: tuple) -> None:
    root, cands = project
    tasks = SuitePaths(root, SUITE).tasks
    tasks.write_text(
        tasks.read_text()
        .replace("on Friday.", "on Saturday.")
        .replace('"day": "Friday"', '"day": "Saturday"'),
        encoding="utf-8",
    )
    result = cli(root, "accept", cands[0].id, "--reviewer", "Ada")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {SuitePaths(root, SUITE).candidates}: stale candidate {cands[0].id}: the task "
        "changed since generation; reject it and run `perturb generate` for new candidates\n"
    )
    assert cli(root, "reject", cands[0].id, "--reason", "stale", "--reviewer", "A").exit_code == 0


def test_suite_defaults_to_the_only_one(tmp_path: Path) -> None:
    make_project(tmp_path, "travel")
    make_project(tmp_path, "shop")
    result = cli(tmp_path, "review", "--list")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {tmp_path}: several suites found: shop, travel (expected one; name it as an argument)\n"
    )
    assert cli(tmp_path, "review", "shop", "--list").stdout.startswith("shop · 6 candidates")


def test_decide_ids_records_sample_free_bulk_mode(project: tuple) -> None:
    root, cands = project
    done = decide_ids(root, [cands[1].id, cands[1].id], "accept", reason=None, reviewer="Bo")
    assert [(c.id, d.mode, d.seq) for c, d in done] == [(cands[1].id, "individual", 1)]
    assert SampleRule(n=3, seed=1).rule.startswith("stratified by class")


# --------------------------------------------------------------------------- rendering


def test_invisible_and_lookalike_characters_are_made_visible() -> None:
    text = "Book P\u0430ris\u00a0on Friday\u200b."
    assert visible(text).plain == "Book P⟨Cyrillic а⟩ris⟨NBSP⟩on Friday⟨ZWSP⟩."
    assert [f.describe() for f in find_hidden(text)] == [
        "U+0430 CYRILLIC SMALL LETTER A looks like 'a' (character 7)",
        "U+00A0 NO-BREAK SPACE is invisible (character 11)",
        "U+200B ZERO WIDTH SPACE is invisible (character 21)",
    ]
    # A Cyrillic sentence is not flagged letter by letter; a mixed word still is.
    assert find_hidden("Привет мир") == []
    assert [f.char for f in find_hidden("Привет Pаris")] == ["а"]
    assert visible("ｆull\u202ewidth").plain == "⟨Fullwidth ｆ⟩ull⟨RLO⟩width"


def test_diff_is_character_level_for_typos_and_word_level_otherwise() -> None:
    canonical = "Book a flight to Paris on Friday."
    assert render_diff(canonical, "Book a flihgt to Paris on Friday.", char_level=True).plain == (
        "Book a fli[-gh-]{+hg+}t to Paris on Friday."
    )
    assert render_diff(canonical, "Please book a flight to Paris, Friday.", char_level=False).plain == (
        "[-Book-]{+Please book+} a flight to Paris[- on-]{+,+} Friday."
    )
    assert render_diff(canonical, "Book a flight to P\u0430ris on Friday.", char_level=True).plain == (
        "Book a flight to P[-a-]{+⟨Cyrillic а⟩+}ris on Friday."
    )
    ops = diff_ops("a b", "a  b", char_level=False)
    assert ops == [("equal", "a", "a"), ("replace", " ", "  "), ("equal", "b", "b")]


@pytest.mark.parametrize(
    ("canonical", "candidate", "shown", "stats"),
    [
        # case change: one change per letter, aligned with the letter it changes
        ("book", "bOoK", "b[-o-]{+O+}o[-k-]{+K+}", "2 characters changed"),
        ("Book a flight", "book a flight", "[-B-]{+b+}ook a flight", "1 character changed"),
        # substitution
        (
            "Book a flight to Rome.",
            "Book a flight to Rone.",
            "Book a flight to Ro[-m-]{+n+}e.",
            "1 character changed",
        ),
        # transposition of two adjacent letters: one change, both letters
        ("Book a flight", "Book a flihgt", "Book a fli[-gh-]{+hg+}t", "2 characters changed"),
        ("was called off.", "was called fof.", "was called [-of-]{+fo+}f.", "2 characters changed"),
        # deletion, and the deletion of a doubled letter (shown at the second one)
        ("Book a flight", "Book a flght", "Book a fl[-i-]ght", "1 character changed"),
        ("Book a flight", "Bok a flight", "Bo[-o-]k a flight", "1 character changed"),
        # doubling (the added letter after the one it doubles)
        ("Book a flight", "Book a fliight", "Book a fli{+i+}ght", "1 character changed"),
        # a space removed joins two words
        ("Book a flight", "Book aflight", "Book a[- -]flight", "1 character changed"),
        # two typos in two words: each word aligned on its own
        (
            "Book a flight to Rome",
            "Bok a flihgt to Rome",
            "Bo[-o-]k a fli[-gh-]{+hg+}t to Rome",
            "3 characters changed",
        ),
    ],
)
def test_typo_diff_shows_one_change_per_letter(
    canonical: str, candidate: str, shown: str, stats: str
) -> None:
    assert render_diff(canonical, candidate, char_level=True).plain == shown
    assert diff_stats(canonical, candidate, char_level=True) == stats


def test_align_chars_is_a_cheapest_edit_script() -> None:
    assert align_chars("book", "bOoK") == [
        ("equal", "b", "b"),
        ("replace", "o", "O"),
        ("equal", "o", "o"),
        ("replace", "k", "K"),
    ]
    assert align_chars("gh", "hg") == [("replace", "gh", "hg")]
    assert align_chars("", "ab") == [("insert", "", "a"), ("insert", "", "b")]
    assert align_chars("ab", "") == [("delete", "a", ""), ("delete", "b", "")]
    # a swap of two equal letters is no change at all
    assert align_chars("oo", "oo") == [("equal", "o", "o"), ("equal", "o", "o")]


# --------------------------------------------------------------------------- the key loop


class ScriptedTerminal:
    """Feeds ReviewUI a fixed sequence of keys (the pty tests drive the real terminal)."""

    def __init__(self, keys: list[str], lines: list[str | None]) -> None:
        self.keys, self.lines = list(keys), list(lines)

    def read_key(self) -> str:
        if not self.keys:
            raise EOFError
        return self.keys.pop(0)

    def read_line(self, console: object, prompt: str) -> str | None:
        return self.lines.pop(0)


def run_keys(root: Path, keys: list[str], lines: list[str | None] | None = None) -> tuple:
    import io

    from rich.console import Console

    from perturb.review.tui import ReviewUI

    ctx = open_context(root, None)
    out = io.StringIO()
    with Recorder(ctx, "Ada", "test") as rec:
        ui = ReviewUI(
            ctx,
            ctx.candidates,
            rec,
            ScriptedTerminal(keys, lines or []),  # type: ignore[arg-type]
            Console(file=out, width=100),
            None,
        )
        finished = ui.loop()
    return finished, out.getvalue(), ctx


def test_key_loop_skips_wrap_around_and_stale_candidates_cannot_be_accepted(
    project: tuple,
) -> None:
    root, cands = project
    tasks = SuitePaths(root, SUITE).tasks
    tasks.write_text(
        tasks.read_text().replace("2 nights", "2 nights,").replace('"nights": "2"', '"nights": "2"'),
        encoding="utf-8",
    )  # hotel-02 changed -> its 3 are stale
    keys = ["s", "a", "a"]  # skip c0, accept c1, accept c2; then c3 (stale) is on screen
    keys += ["a", "e", "r"]  # accept and edit are refused on a stale candidate; reject works
    keys += ["r", "r"]  # c4: the first reason prompt is cancelled (Esc), the second rejects
    finished, screen, ctx = run_keys(root, keys, ["stale", None, "stale"])
    assert finished is False  # keys ran out with c5 on screen
    assert screen.count("stale candidate: the task changed; reject it or regenerate") == 2
    assert "STALE: the task changed or was removed since generation" in screen
    assert screen.count("Reviewing [4/6] · travel · hotel-02 · paraphrase") == 3
    assert [ctx.state.status(c) for c in cands] == [
        "skipped",
        "accepted",
        "accepted",
        "rejected",
        "rejected",
        "undecided",
    ]
    finished, screen, ctx = run_keys(root, ["r", "a"], ["x"])
    # c5 rejected; nothing undecided is left, so c0 (skipped last session) comes back.
    assert finished is True
    assert screen.index("Reviewing [6/6]") < screen.index("Reviewing [1/6]")
    assert [ctx.state.status(c) for c in cands] == [
        "accepted",
        "accepted",
        "accepted",
        "rejected",
        "rejected",
        "rejected",
    ]


def test_key_loop_with_everything_decided_finishes_at_once(project: tuple) -> None:
    root, cands = project
    decide_ids(root, [c.id for c in cands], "reject", reason="no", reviewer="Bo")
    finished, screen, _ = run_keys(root, [])
    assert finished is True and screen == ""


def test_header_counts_decided_and_skipped_apart(project: tuple) -> None:
    root, cands = project
    # accept c0, skip c1, reject c2, skip c3, skip c4; c5 is on screen when the keys run out
    _, screen, ctx = run_keys(root, ["a", "s", "r", "s", "s"], ["no"])
    assert (
        f"{cands[5].id} · level 0.1 · ε 0.12 · undecided · 2 of 6 decided · 3 skipped · "
        "reviewer Ada" in screen
    )
    assert (
        f"{cands[0].id} · level 0.1 · ε 0.12 · undecided · 0 of 6 decided · reviewer Ada" in screen
    )  # no skipped count while there is none


def test_a_resize_draws_the_same_candidate_again_and_keeps_the_message(project: tuple) -> None:
    root, cands = project
    finished, screen, ctx = run_keys(root, ["x", "resize", "?", "resize", " "])
    assert finished is False
    # drawn: first, after x (with the message), after the resize (message kept), after help
    assert screen.count("Reviewing [1/6] · travel · book-01 · paraphrase") == 4
    assert screen.count("unknown key 'x'; press ? for help") == 2
    assert screen.count("perturb review — keys") == 2  # the help, drawn again on the resize
    assert journal_lines(root) == []


def test_session_summary_reports_each_kind() -> None:
    from collections import Counter

    from perturb.review.tui import session_summary

    assert session_summary(Counter(accept=1, reject=1, skip=5, undo=2)) == (
        "2 decisions (1 accepted, 1 rejected), 5 skipped, 2 undone; all saved"
    )
    assert session_summary(Counter(edit=1)) == "1 decision (1 edited); all saved"
    assert session_summary(Counter(skip=1)) == "1 skipped; all saved"
    assert session_summary(Counter()) == "nothing recorded this session"


def test_command_line_keeps_every_option_shell_quoted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from perturb.review.tui import command_line

    monkeypatch.chdir(tmp_path)
    odd = tmp_path / "my project"
    odd.mkdir()
    assert command_line("review", "travel", Path(".")) == "perturb review travel"
    assert command_line("review", "travel", tmp_path) == "perturb review travel"
    assert command_line(
        "review",
        "travel",
        odd,
        [
            ("--class", "typo"),
            ("--task", None),
            ("--sample", 30),
            ("--seed", 7),
            ("--reviewer", "Ada L."),
        ],
    ) == (f"perturb review travel --class typo --sample 30 --seed 7 --reviewer 'Ada L.' --root '{odd}'")
    assert command_line("freeze", "travel", Path("my project")) == (
        "perturb freeze travel --root 'my project'"
    )


def test_the_hidden_characters_on_the_review_page_are_what_the_screen_draws() -> None:
    """docs/review.md's second screen: the bundled travel-001 with a Cyrillic о, a no-break space
    and a zero-width space slipped in, drawn by the same functions the review screen uses."""
    repo = Path(__file__).resolve().parents[1]
    page = (repo / "docs" / "review.md").read_text(encoding="utf-8")
    shown = (
        page.split("candidate that hides three of them:", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    )
    canonical = next(
        json.loads(line)["prompt"]
        for line in (repo / "tasks" / "travel.jsonl").read_text(encoding="utf-8").splitlines()
        if json.loads(line)["id"] == "travel-001"
    )
    candidate = canonical.replace("economy", "econ\u043emy").replace(" each.", "\u00a0each.\u200b")
    hidden = find_hidden(candidate)
    assert shown.rstrip("\n").split("\n") == [
        "Candidate",
        visible(candidate).plain,
        f"Diff (word-level, {diff_stats(canonical, candidate, char_level=False)})",
        render_diff(canonical, candidate, char_level=False).plain,
        "Screen: passed",
        f"Hidden characters in the candidate: {len(hidden)}",
        *(f"  ? {f.describe()}" for f in hidden),
    ]
