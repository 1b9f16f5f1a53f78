"""``perturb show RUN [SELECTOR]``: the trials of a run's prompts, one prompt at a time.

For each selected prompt: the canonical prompt and the variant with the class-aware diff of
review (:func:`perturb.review.render.render_diff`: character-level for ``typo``, word-level
otherwise), the expected value, the grader notes, the trace divergence
(:mod:`perturb.report.divergence`) and then every trial: outcome, latency, output
(pretty-printed when it is JSON), grader note, error and trace.

Untrusted text (prompts, outputs, notes, errors, traces) is shown with control characters
escaped (:func:`perturb.io.inert.printable`); an output, error or trace longer than
``OUTPUT_CHARS`` characters is cut with a line saying so (``--full`` shows it whole).
``--json`` gives the same as one JSON document for scripts.

Selecting: ``SELECTOR`` is a prompt id (``bank-007/typo/c-1a2b3c4d5e6f``), a task id (all its
prompts) or a prefix of prompt ids; ``--failed`` (some trial wrong or errored), ``--errored``,
``--flaky`` (0 < passed < n), ``--brittle`` (failing every trial in a task whose other
prompts of the class pass every trial) and ``--class C`` narrow it down. Prompts are listed
worst first (fewest passes, then id); ``--limit N`` (default 5) caps how many are shown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perturb.errors import UsageError
from perturb.io.inert import printable
from perturb.records import CANONICAL
from perturb.report.details import OUTPUT_CHARS, Details, PromptDetail, TrialDetail, read_details
from perturb.review.render import diff_stats, render_diff
from perturb.run.store import read_manifest

DEFAULT_LIMIT = 5
SHOW_SCHEMA = "perturb.show/v1"


def char_level(kind: str) -> bool:
    """The diff granularity review uses for a class: characters for ``typo``, words otherwise."""
    return kind == "typo"


def brittle_ids(prompts: dict[str, PromptDetail]) -> set[str]:
    """Prompts failing every trial in a (task, class) whose prompts are each deterministic and
    some pass every trial -- the report's ``brittle`` rows, one prompt at a time."""
    groups: dict[tuple[str, str], list[PromptDetail]] = {}
    for p in prompts.values():
        groups.setdefault((p.task_id, p.kind), []).append(p)
    out: set[str] = set()
    for group in groups.values():
        labels = {p.label for p in group}
        if labels == {"stable-pass", "stable-fail"}:
            out.update(p.variant_id for p in group if p.label == "stable-fail")
    return out


def pretty(value: Any) -> str:
    """An output as text: strings that hold JSON and other JSON values pretty-printed (2-space
    indent, keys in order), other strings as they are."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        if not isinstance(parsed, dict | list):
            return value
        value = parsed
    return json.dumps(value, indent=2, ensure_ascii=False)


def cut(text: str, full: bool, limit: int = OUTPUT_CHARS) -> tuple[str, str | None]:
    """``text`` cut at ``limit`` characters unless ``full``; the second item says what was cut."""
    if full or len(text) <= limit:
        return text, None
    return text[:limit], f"(cut at {limit} of {len(text)} characters; --full shows all)"


@dataclass
class ShowOptions:
    """Everything ``perturb show`` accepts."""

    run_dir: Path
    selector: str | None = None
    failed: bool = False
    errored: bool = False
    flaky: bool = False
    brittle: bool = False
    kind: str | None = None
    """``--class``: only prompts of this class (``canonical`` or a perturbation class)."""
    limit: int = DEFAULT_LIMIT
    full: bool = False


@dataclass
class ShowResult:
    """The prompts ``perturb show`` selected, with every trial."""

    run_id: str
    details: Details
    selected: list[PromptDetail]
    """Every prompt that matched, worst first."""
    shown: list[PromptDetail]
    """The first ``limit`` of them."""
    trials: dict[str, list[TrialDetail]]
    full: bool
    brittle: set[str]

    def to_json(self) -> dict[str, Any]:
        """The shown prompts and trials as one JSON document (``--json``)."""
        return {
            "schema": SHOW_SCHEMA,
            "run_id": self.run_id,
            "matched": len(self.selected),
            "shown": len(self.shown),
            "prompts": [self._prompt_json(p) for p in self.shown],
        }

    def _prompt_json(self, p: PromptDetail) -> dict[str, Any]:
        return {
            "variant_id": p.variant_id,
            "task_id": p.task_id,
            "class": p.kind,
            "label": "brittle" if p.variant_id in self.brittle else p.label,
            "n": p.n,
            "passed": p.passed,
            "wrong": p.wrong,
            "errored": p.errored,
            "prompt": p.prompt,
            "canonical_prompt": p.canonical_prompt,
            "expected": p.expected,
            "fixture_changed": p.changed,
            "grader_notes": [{"note": note, "count": c} for note, c in p.notes.most_common()],
            "divergence": None if p.divergence is None else p.divergence.sentence(),
            "trials": [
                {
                    "attempt": t.attempt,
                    "outcome": t.outcome,
                    "latency_s": t.latency_s,
                    "output": t.output,
                    "grader_note": t.grader_note,
                    "error": t.error,
                    "error_kind": t.error_kind,
                    "trace": t.trace,
                    "retry": t.retry,
                }
                for t in self.trials.get(p.variant_id, [])
            ],
        }

    def lines(self) -> list[str]:
        """The terminal view: plain text, control characters escaped."""
        out: list[str] = []
        if not self.selected:
            return [f"run {printable(self.run_id)}: no prompt matches"]
        more = len(self.selected) - len(self.shown)
        n = len(self.selected)
        out.append(
            f"run {printable(self.run_id)}: {n} prompt{'s' if n != 1 else ''} match{'es' if n == 1 else ''}"
            + (f"; the {len(self.shown)} worst shown (--limit N for more)" if more else "")
        )
        if self.details.note:
            out.append(f"note: {printable(self.details.note)}")
        for p in self.shown:
            out.append("")
            out.extend(self._prompt_lines(p))
        return out

    def _prompt_lines(self, p: PromptDetail) -> list[str]:
        label = "brittle" if p.variant_id in self.brittle else p.label
        out = [
            f"== {printable(p.variant_id)}  (task {printable(p.task_id)}, class {printable(p.kind)})  "
            f"{p.passed}/{p.n} passed, {p.wrong} wrong, {p.errored} errored: {label}"
        ]
        if p.changed:
            out.append(
                "   warning: the fixture entry changed since this run; the text below is the current one"
            )
        if p.kind != CANONICAL and p.canonical_prompt is not None:
            out.append(f"canonical: {printable(p.canonical_prompt)}")
        if p.prompt is not None:
            out.append(f"{'prompt' if p.kind == CANONICAL else 'variant'}:   {printable(p.prompt)}")
        if p.kind != CANONICAL and p.prompt is not None and p.canonical_prompt is not None:
            chars = char_level(p.kind)
            stats = diff_stats(p.canonical_prompt, p.prompt, char_level=chars)
            diff = render_diff(p.canonical_prompt, p.prompt, char_level=chars).plain
            out.append(f"diff ({'character' if chars else 'word'}-level, {stats}): {printable(diff)}")
        if p.prompt is not None:
            out.append(f"expected:  {printable(json.dumps(p.expected, ensure_ascii=False))}")
        for note, count in p.notes.most_common():
            out.append(f"grader note ×{count}: {printable(note)}")
        if p.divergence is not None:
            out.append(f"divergence: {p.divergence.sentence()}")
        for t in self.trials.get(p.variant_id, []):
            out.extend(self._trial_lines(t))
        return out

    def _trial_lines(self, t: TrialDetail) -> list[str]:
        head = f"  attempt {t.attempt}: {t.outcome}  {t.latency_s:.2f}s"
        if t.retry:
            head += f"  (retry {t.retry})"
        out = [head]

        def block(name: str, text: str) -> None:
            shown, note = cut(text, self.full)
            body = [printable(line) for line in shown.split("\n")]
            if len(body) == 1:
                out.append(f"    {name}: {body[0]}")
            else:
                out.append(f"    {name}:")
                out.extend(f"      {line}" for line in body)
            if note:
                out.append(f"      {note}")

        if t.outcome != "errored" or t.output is not None:
            block("output", pretty(t.output))
        if t.grader_note:
            block("grader", t.grader_note)
        if t.error:
            block("error", f"[{t.error_kind or 'error'}] {t.error}")
        if t.trace is not None:
            steps = t.trace if isinstance(t.trace, list) else [t.trace]
            text = "\n".join(
                f"{i}. {s if isinstance(s, str) else json.dumps(s, ensure_ascii=False)}"
                for i, s in enumerate(steps, 1)
            )
            block("trace", text)
        return out


def _matches(p: PromptDetail, selector: str | None) -> bool:
    if selector is None:
        return True
    return p.variant_id == selector or p.task_id == selector or p.variant_id.startswith(selector)


def show(options: ShowOptions) -> ShowResult:
    """Select the prompts of ``options.run_dir`` and read every trial of the first ``limit``."""
    if options.limit < 1:
        raise UsageError(f"--limit {options.limit}: expected a positive number of prompts")
    manifest = read_manifest(Path(options.run_dir))
    details, _ = read_details(options.run_dir, manifest)
    prompts = details.prompts
    if options.kind is not None and options.kind not in {p.kind for p in prompts.values()}:
        kinds = ", ".join(sorted({p.kind for p in prompts.values()}))
        raise UsageError(f"--class {options.kind!r}: the run has no prompts of it (expected one of: {kinds})")
    brittle = brittle_ids(prompts)
    picked = [p for p in prompts.values() if _matches(p, options.selector)]
    if options.selector is not None and not picked:
        raise UsageError(
            f"{options.selector!r} matches no prompt of run {manifest.run_id} (expected a prompt id "
            "such as task/class/c-..., a task id or an id prefix; perturb show RUN --failed lists some)"
        )
    if options.kind is not None:
        picked = [p for p in picked if p.kind == options.kind]
    if options.failed:
        picked = [p for p in picked if p.failed]
    if options.errored:
        picked = [p for p in picked if p.errored]
    if options.flaky:
        picked = [p for p in picked if p.label == "flaky"]
    if options.brittle:
        picked = [p for p in picked if p.variant_id in brittle]
    picked.sort(key=lambda p: (p.passed / p.n if p.n else 1.0, -p.errored, p.variant_id))
    shown = picked[: options.limit]
    _, trials = read_details(options.run_dir, manifest, keep_all={p.variant_id for p in shown})
    return ShowResult(manifest.run_id, details, picked, shown, trials, options.full, brittle)
