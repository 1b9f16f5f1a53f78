"""The interactive review: one candidate at a time in the terminal, single-key decisions.

Keys: ``a`` accept, ``r`` reject (optional one-line reason), ``e`` edit in ``$EDITOR`` (the edited
text is screened again; the generated text stays as its origin), ``s`` skip, ``u`` undo (again
and again), ``p`` provenance, ``?`` help, ``q`` quit. Keys are read one at a time with the
terminal in raw input mode (``termios``; output processing stays on). Every decision is
appended to the journal and fsynced *before* the next candidate is drawn, so quitting, Ctrl-C
or a kill loses at most the candidate on screen; the next ``perturb review`` resumes at the
first undecided candidate. The review lock is held for the whole session. When the terminal
is resized (``SIGWINCH``) while a key is awaited, the screen is drawn again at the new width.
"""

from __future__ import annotations

import contextlib
import os
import select
import shlex
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from rich.console import Console
from rich.text import Text

from perturb.errors import UsageError
from perturb.generate.screen import screen_text
from perturb.records import Candidate, SampleRule, Screen
from perturb.review.journal import Recorder, ReviewContext, is_stale, open_context, resolve_reviewer
from perturb.review.render import diff_stats, find_hidden, render_diff, visible
from perturb.review.terminal import Terminal

HELP = [
    ("a", "accept the candidate as generated"),
    ("r", "reject it (you may type a one-line reason; Enter for none, Esc to cancel)"),
    ("e", "edit it in $EDITOR; the edited text is screened again, the original kept as origin"),
    ("s", "skip it for now (skipped candidates come back at the end and in the next session)"),
    ("u", "undo the last decision (press again to undo the one before)"),
    ("p", "show or hide the provenance (generator, seed, model, details)"),
    ("?", "this help"),
    ("q", "quit; every decision so far is saved; `perturb review` resumes where you stopped"),
]
KEYS_LINE = "a accept · r reject · e edit · s skip · u undo · p provenance · ? help · q quit"


DECIDED = ("accepted", "edited", "rejected")
"""The statuses that count as decided (a skip is not a decision)."""
SESSION_KINDS = {"accept": "accepted", "edit": "edited", "reject": "rejected"}


def session_summary(actions: Counter[str]) -> str:
    """What one session recorded, by kind: ``2 decisions (1 accepted, 1 rejected), 5 skipped,
    2 undone; all saved`` (``nothing recorded`` when empty). ``actions`` counts journal
    actions (accept, edit, reject, skip, undo)."""
    n = sum(actions[a] for a in SESSION_KINDS)
    parts = []
    if n:
        kinds = ", ".join(f"{actions[a]} {what}" for a, what in SESSION_KINDS.items() if actions[a])
        parts.append(f"{n} decision{'s' if n != 1 else ''} ({kinds})")
    if actions["skip"]:
        parts.append(f"{actions['skip']} skipped")
    if actions["undo"]:
        parts.append(f"{actions['undo']} undone")
    if not parts:
        return "nothing recorded this session"
    return ", ".join(parts) + "; all saved"


def command_line(verb: str, suite: str, root: Path, options: list[tuple[str, object]] | None = None) -> str:
    """``perturb VERB SUITE [--option value]... [--root DIR]`` with every argument
    shell-quoted; options whose value is None are left out, and so is ``--root`` when ``root``
    is the current directory."""
    args = ["perturb", verb, suite]
    for flag, value in options or []:
        if value is not None:
            args += [flag, str(value)]
    try:
        here = root.resolve() == Path.cwd().resolve()
    except OSError:
        here = False
    if not here:
        args += ["--root", str(root)]
    return " ".join(shlex.quote(a) for a in args)


@dataclass
class ReviewOutcome:
    """How a session ended, for the CLI's closing line."""

    suite: str
    journal: Path
    actions: Counter[str]
    """Journal actions recorded this session (accept, edit, reject, skip, undo)."""
    counts: Counter[str]
    """Status of every candidate of the selection at the end."""
    finished: bool
    resume: str
    """The command that resumes this session (same suite, selection, reviewer and root)."""
    next_step: str
    """The command to run once the selection is decided (``perturb freeze ...``)."""

    def summary(self) -> str:
        parts = ", ".join(
            f"{self.counts[k]} {k}"
            for k in ("accepted", "edited", "rejected", "skipped", "undecided")
            if self.counts[k]
        )
        head = f"{self.journal}: {session_summary(self.actions)}. Selection: {parts or 'empty'}."
        if self.counts["undecided"] or self.counts["skipped"]:
            return head + f" Resume with `{self.resume}`."
        return head + f" Next: `{self.next_step}`."


def screen_edited(ctx: ReviewContext, cand: Candidate, text: str) -> Screen:
    """Screen an edited text again with the generator's pre-screen
    (:func:`perturb.generate.screen.screen_text`); the task's other candidates are passed for the
    duplicate check."""
    task = ctx.tasks[cand.task_id]
    others = [c for c in ctx.candidates if c.task_id == cand.task_id and c.id != cand.id]
    return screen_text(task, text, cand.perturbation, cand.details, others)


class ReviewUI:
    """The key loop over a selection of candidates."""

    def __init__(
        self,
        ctx: ReviewContext,
        selection: list[Candidate],
        rec: Recorder,
        term: Terminal,
        console: Console,
        sample: SampleRule | None,
    ) -> None:
        self.ctx, self.sel, self.rec, self.term, self.console = ctx, selection, rec, term, console
        self.sample = sample
        self.mode = "sampled" if sample is not None else "individual"
        self.ids = {c.id for c in selection}
        self.pos = {c.id: i for i, c in enumerate(selection)}
        self.skipped_now: set[str] = set()
        self.show_prov = False
        self.message = ""
        self.actions: Counter[str] = Counter()
        """Journal actions recorded in this session, by action."""

    # ---------------------------------------------------------------- navigation

    def next_index(self, after: int) -> int | None:
        """The next candidate needing a decision after position ``after``: undecided ones
        first (wrapping around), then ones skipped in an earlier session."""
        n = len(self.sel)
        order = [(after + k) % n for k in range(1, n + 1)]
        for i in order:
            if self.ctx.state.status(self.sel[i]) == "undecided":
                return i
        for i in order:
            c = self.sel[i]
            if self.ctx.state.status(c) == "skipped" and c.id not in self.skipped_now:
                return i
        return None

    def counts(self) -> Counter[str]:
        return Counter(self.ctx.state.status(c) for c in self.sel)

    # ---------------------------------------------------------------- drawing

    def _label(self, text: str) -> Text:
        return Text(text, style="bold cyan")

    def draw(self, i: int, edited: tuple[str, Screen] | None = None) -> None:
        c = self.sel[i]
        task = self.ctx.tasks.get(c.task_id)
        con = self.console
        con.clear()
        con.print(
            Text(
                f"Reviewing [{i + 1}/{len(self.sel)}] · {self.ctx.suite} · {c.task_id} · {c.perturbation}",
                style="bold",
            )
        )
        counts = self.counts()
        status = self.ctx.state.status(c)
        decided = sum(counts[k] for k in DECIDED)
        sub = (
            f"{c.id} · level {c.level:g} · ε {c.epsilon:g} · {status} · {decided} of {len(self.sel)} decided"
        )
        if counts["skipped"]:
            sub += f" · {counts['skipped']} skipped"
        sub += f" · reviewer {self.rec.reviewer}"
        if self.sample is not None:
            sub += f" · sample n={self.sample.n} seed={self.sample.seed}"
        con.print(Text(sub, style="dim"))
        con.rule(style="dim")
        canonical = task.prompt if task is not None else ""
        con.print(self._label("Canonical"))
        con.print(visible(canonical) if task is not None else Text("(task removed)", "red"))
        con.print(self._label("Candidate"))
        con.print(visible(c.text))
        decision = self.ctx.state.decision_for(c)
        shown = c.text
        if edited is not None:
            shown = edited[0]
            con.print(self._label("Edited text (not saved yet)"))
            con.print(visible(shown))
        elif decision is not None and decision.action == "edit" and decision.text:
            shown = decision.text
            con.print(self._label("Edited text (saved)"))
            con.print(visible(shown))
        char_level = c.perturbation == "typo"
        con.print(
            self._label(
                f"Diff ({'character' if char_level else 'word'}-level, "
                f"{diff_stats(canonical, shown, char_level=char_level)})"
            )
        )
        con.print(render_diff(canonical, shown, char_level=char_level))
        self._draw_flags(c, edited[1] if edited is not None else None, shown)
        if self.show_prov:
            self._draw_provenance(c)
        if decision is not None:
            note = f" ({decision.reason})" if decision.reason else ""
            con.print(
                Text(
                    f"Current decision: {status} by {decision.reviewer} at {decision.at}{note}",
                    style="magenta",
                )
            )
        con.rule(style="dim")

    def _draw_flags(self, c: Candidate, edited_screen: Screen | None, shown: str) -> None:
        con = self.console
        flags = list(c.screen.flags)
        if is_stale(c, self.ctx.tasks):
            flags.insert(
                0,
                "STALE: the task changed or was removed since generation "
                "(reject it and run `perturb generate`; accept and edit are disabled)",
            )
        if not flags:
            con.print(Text("Screen: passed", style="green"))
        else:
            con.print(Text(f"Screen: {len(flags)} flag{'s' if len(flags) > 1 else ''}", style="bold red"))
            for flag in flags:
                con.print(Text(f"  ! {flag}", style="red"))
        if edited_screen is not None:
            head = "passed" if edited_screen.passed else f"{len(edited_screen.flags)} flag(s)"
            con.print(
                Text(
                    f"Screen of the edited text: {head}",
                    style="green" if edited_screen.passed else "bold red",
                )
            )
            for flag in edited_screen.flags:
                con.print(Text(f"  ! {flag}", style="red"))
        hidden = find_hidden(shown)
        if hidden:
            con.print(Text(f"Hidden characters in the candidate: {len(hidden)}", style="yellow"))
            for f in hidden:
                con.print(Text(f"  ? {f.describe()}", style="yellow"))

    def _draw_provenance(self, c: Candidate) -> None:
        con = self.console
        con.print(self._label("Provenance"))
        g = c.generator.model_dump(mode="json", exclude_none=True)
        con.print(Text("  " + " · ".join(f"{k}={v}" for k, v in g.items())))
        con.print(Text(f"  index={c.index} · task_sha256={c.task_sha256}"))
        for key, value in sorted(c.details.items()):
            con.print(Text(f"  {key}: {value}"))

    def draw_help(self) -> None:
        self.console.clear()
        self.console.print(Text("perturb review — keys", style="bold"))
        for key, what in HELP:
            line = Text("  ")
            line.append(key, style="bold")
            line.append(f"  {what}")
            self.console.print(line)
        self.console.print(Text("\nPress any key to return.", style="dim"))

    # ---------------------------------------------------------------- actions

    def _record(self, action: str, c: Candidate | None, **kw: Any) -> None:
        self.rec.record(action, c, mode=self.mode, sample=self.sample, **kw)
        self.actions[action] += 1

    def run_editor(self, text: str) -> str | None:
        editor = os.environ.get("EDITOR") or os.environ.get("VISUAL") or "vi"
        fd, name = tempfile.mkstemp(prefix="perturb-edit-", suffix=".txt")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
            try:
                with self.term.cooked():
                    rc = subprocess.call([*shlex.split(editor), name])
            except OSError as exc:
                self.message = f"cannot run editor {editor!r}: {exc.strerror or exc} (set $EDITOR)"
                return None
            if rc != 0:
                self.message = f"editor {editor!r} exited with status {rc}; edit discarded"
                return None
            with open(name, encoding="utf-8", errors="replace") as fh:
                edited = fh.read()
        finally:
            with contextlib.suppress(OSError):
                os.unlink(name)
        for ending in ("\r\n", "\n"):
            if edited.endswith(ending):
                edited = edited[: -len(ending)]
                break
        return edited

    def edit(self, i: int) -> None:
        c = self.sel[i]
        d = self.ctx.state.decision_for(c)
        text = d.text if d is not None and d.action == "edit" and d.text else c.text
        while True:
            edited = self.run_editor(text)
            if edited is None:
                return
            if not edited.strip():
                self.message = "the edited text is empty; edit discarded"
                return
            if edited == c.text:
                self.message = "text unchanged; edit discarded (press a to accept it as generated)"
                return
            screen = screen_edited(self.ctx, c, edited)
            key = "resize"
            while key not in ("y", "e", "n", "esc", "q"):
                if key == "resize":
                    self.draw(i, (edited, screen))
                    self.console.print(Text("y keep the edit · e edit again · n discard", style="bold"))
                key = self.term.read_key()
            if key == "y":
                self._record("edit", c, text=edited, screen=screen)
                self.message = f"edited {c.id}"
                return
            if key != "e":
                self.message = "edit discarded"
                return
            text = edited

    def undo(self) -> int | None:
        last = self.ctx.state.last_in_effect(self.ids)
        if last is None:
            self.message = "nothing to undo in this selection"
            return None
        self._record("undo", None, undoes=last.seq)
        assert last.candidate_id is not None
        self.skipped_now.discard(last.candidate_id)
        self.message = f"undid {last.action} of {last.candidate_id} (seq {last.seq})"
        return self.pos[last.candidate_id]

    def loop(self) -> bool:
        """Run until every candidate is decided (True) or the reviewer quits (False)."""
        cur = self.next_index(-1)
        while cur is not None:
            self.draw(cur)
            self.console.print(Text(KEYS_LINE, style="bold"))
            shown, self.message = self.message, ""
            if shown:
                self.console.print(Text(shown, style="yellow"))
            try:
                key = self.term.read_key()
            except EOFError:
                return False
            c = self.sel[cur]
            stale = is_stale(c, self.ctx.tasks)
            if key == "resize":  # the window changed size: draw the same screen again
                self.message = shown
            elif key in ("a", "e") and stale:
                self.message = "stale candidate: the task changed; reject it or regenerate"
            elif key == "a":
                self._record("accept", c)
                cur = self.next_index(cur)
            elif key == "r":
                reason = self.term.read_line(
                    self.console, "Reason (optional; Enter to confirm, Esc to cancel): "
                )
                if reason is not None:
                    self._record("reject", c, reason=reason or None)
                    cur = self.next_index(cur)
            elif key == "e":
                before = self.actions["edit"]
                self.edit(cur)
                if self.actions["edit"] > before:
                    cur = self.next_index(cur)
            elif key == "s":
                self._record("skip", c)
                self.skipped_now.add(c.id)
                cur = self.next_index(cur)
            elif key == "u":
                back = self.undo()
                cur = cur if back is None else back
            elif key == "p":
                self.show_prov = not self.show_prov
            elif key == "?":
                self.draw_help()
                while self.term.read_key() == "resize":
                    self.draw_help()
            elif key in ("q", "esc"):
                return False
            elif key == "sequence":
                self.message = "arrow and function keys do nothing here; press ? for help"
            else:
                self.message = f"unknown key {key!r}; press ? for help"
        return True


class ResizeAwareTerminal(Terminal):
    """A :class:`Terminal` whose :meth:`read_key` also returns ``"resize"`` when the window
    changes size while a key is awaited (``SIGWINCH``, through a self-pipe)."""

    def __enter__(self) -> ResizeAwareTerminal:
        super().__enter__()
        try:
            self._wake_r, self._wake_w = os.pipe()
            os.set_blocking(self._wake_r, False)
            os.set_blocking(self._wake_w, False)
            self._old_winch = signal.signal(signal.SIGWINCH, self._on_winch)
        except BaseException:
            super().__exit__()  # restore the terminal's mode before giving up
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            signal.signal(signal.SIGWINCH, self._old_winch)
            os.close(self._wake_r)
            os.close(self._wake_w)
        finally:
            super().__exit__(*exc)

    def _on_winch(self, signum: int, frame: FrameType | None) -> None:
        with contextlib.suppress(OSError):  # the pipe is full: a redraw is pending anyway
            os.write(self._wake_w, b"w")

    def read_key(self) -> str:
        ready = select.select([self.fd, self._wake_r], [], [])[0]
        if self._wake_r in ready:
            with contextlib.suppress(BlockingIOError):
                while os.read(self._wake_r, 64):
                    pass
            return "resize"
        return super().read_key()


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def run_review(
    root: Path,
    suite: str | None = None,
    *,
    cls: str | None = None,
    task: str | None = None,
    sample: int | None = None,
    seed: int | None = None,
    reviewer: str | None = None,
    console: Console | None = None,
) -> ReviewOutcome:
    """The interactive review of one suite. Needs a terminal on stdin."""
    if not sys.stdin.isatty():
        raise UsageError(
            "perturb review needs a terminal (stdin is not a TTY); without one use "
            "`perturb review --list`, `perturb accept ID...` and `perturb reject ID... --reason R`"
        )
    ctx = open_context(root, suite)
    selection = ctx.select(cls, task, sample, seed)
    if not selection:
        raise UsageError(f"{ctx.paths.candidates}: no candidates match the selection")
    who = resolve_reviewer(reviewer, root)
    rule = SampleRule(n=sample, seed=seed) if sample is not None and seed is not None else None
    con = console or Console(highlight=False)
    resume = command_line(
        "review",
        ctx.suite,
        root,
        [
            ("--class", cls),
            ("--task", task),
            ("--sample", sample),
            ("--seed", seed),
            ("--reviewer", reviewer),
        ],
    )
    handlers = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        handlers[sig] = signal.signal(sig, _raise_interrupt)
    try:
        with Recorder(ctx, who, "perturb review") as rec, ResizeAwareTerminal(sys.stdin.fileno()) as term:
            ui = ReviewUI(ctx, selection, rec, term, con, rule)
            finished = ui.loop()
            return ReviewOutcome(
                ctx.suite,
                ctx.paths.journal,
                ui.actions,
                ui.counts(),
                finished,
                resume,
                command_line("freeze", ctx.suite, root),
            )
    finally:
        for sig, old in handlers.items():
            signal.signal(sig, old)
