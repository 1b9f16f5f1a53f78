"""``perturb generate``: tasks x classes x levels x variants -> ``review/<suite>/``.

Writes (atomically) ``candidates.jsonl`` (:class:`~perturb.records.Candidate` lines),
``skipped.jsonl`` (:class:`~perturb.records.GenerationSkip` lines) and ``generation.json``
(the options and counts). Nothing goes to ``fixtures/``.

Determinism: each candidate's random generator is seeded from a hash of
``(seed, task id, class, level, index, attempt)`` -- never global state -- and the output is
sorted by task id, class, level and index, so the same task file, options and seed give the
same bytes whatever ``PYTHONHASHSEED``, task order or concurrency.

Reruns: candidates with a live decision in ``journal.jsonl`` (accept, reject, edit; an
``undo`` cancels the decision it names) are kept as they are; a text rejected in review is
never proposed again (the generator moves on to its next attempt); undecided candidates of the
classes being generated are replaced; candidates of other classes stay.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perturb._version import __version__
from perturb.errors import UsageError
from perturb.generate.input import live_decisions, parse_classes, parse_intensity, project_root
from perturb.generate.perturbations import (
    CLASSES,
    SkipGeneration,
    TaskContext,
    class_names,
    kind_rank,
    prepare,
)
from perturb.generate.screen import duplicate_flag, screen_text
from perturb.io.hashing import sha256_bytes, short_id
from perturb.io.jsonl import read_bytes, read_records, write_json_atomic, write_jsonl_atomic
from perturb.io.paths import confine
from perturb.progress import Progress
from perturb.records import (
    Candidate,
    GenerationSkip,
    Provenance,
    Screen,
)
from perturb.review.journal import load_candidates
from perturb.review.lock import ReviewLock
from perturb.tasks import TaskSuite, load_tasks, task_hash

if TYPE_CHECKING:
    from perturb.io.llm import LLMSettings

MAX_ATTEMPTS = 6
"""Rule attempts per (task, class, level, index) to find a text that is new, not rejected
and passes the pre-screen; LLM attempts to find a text that was not rejected."""

__all__ = [
    "GenerateOptions",
    "GenerateResult",
    "generate",
    "live_decisions",
    "parse_classes",
    "parse_intensity",
    "project_root",
    "rng_for",
]


@dataclass
class GenerateOptions:
    """What to generate. ``levels`` maps each class to its requested ε levels."""

    classes: tuple[str, ...] = field(default_factory=class_names)
    levels: dict[str, tuple[float, ...]] = field(default_factory=dict)
    per_class: int = 2
    seed: int = 0
    generator: str = "rules"
    llm: LLMSettings | None = None
    review_root: Path | None = None
    progress: Progress | None = None
    """Told how generation advances (the CLI draws a bar on a terminal); None: silent."""


@dataclass
class GenerateResult:
    """What a generation wrote. ``review_dir`` is relative to the current directory when it
    lies under it (as printed), else absolute."""

    suite: str
    review_dir: Path
    candidates: int
    new: int
    kept_decided: int
    flagged: int
    skipped: int
    by_class: dict[str, int]
    requested: tuple[str, ...] = ()
    """The classes this run generated (shown in :meth:`class_counts` even with 0)."""

    def class_counts(self) -> str:
        """``"paraphrase 4  reorder 0  ..."``: every requested class, zeros included, then any
        other class that has candidates in the review directory."""
        shown = [c for c in self.requested] + [
            c for c, n in self.by_class.items() if n and c not in self.requested
        ]
        return "  ".join(f"{c} {self.by_class.get(c, 0)}" for c in shown)

    def summary(self) -> str:
        """What the CLI prints: totals, every requested class with its count (zeros
        included), and the next command."""
        counts = self.class_counts()
        return (
            f"{self.review_dir}: {self.candidates} candidates ({self.new} new, "
            f"{self.kept_decided} kept with their review decisions), {self.flagged} flagged by "
            f"the pre-screen, {self.skipped} skipped (see skipped.jsonl)\n"
            f"  {counts}\n"
            f"next: perturb review {self.suite}"
        )


# --------------------------------------------------------------------------- generation


def rng_for(seed: int, task_id: str, cls: str, level: float, index: int, attempt: int) -> random.Random:
    """The candidate's own generator, keyed by hashing -- never global state."""
    key = f"{seed}\x1f{task_id}\x1f{cls}\x1f{float(level)!r}\x1f{index}\x1f{attempt}"
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


@dataclass
class _Draft:
    task_id: str
    cls: str
    level: float
    index: int
    text: str
    details: dict[str, Any]
    provenance: Provenance
    screen: Screen | None = None


def _candidate_id(suite: str, task_id: str, cls: str, text: str, level: float) -> str:
    """The candidate's id: a hash of suite, task, class, text and level -- the same text may be
    the best variant at two levels of a sweep, and is then one candidate per level."""
    return "c-" + short_id([suite, task_id, cls, text, repr(float(level))])


def _rules_for_task(
    ctx: TaskContext, options: GenerateOptions, rejected: set[str]
) -> tuple[list[_Draft], list[GenerationSkip]]:
    drafts: list[_Draft] = []
    skips: list[GenerationSkip] = []
    task = ctx.task
    prov = Provenance(kind="rules", perturb_version=__version__, seed=options.seed)
    for cls in options.classes:
        spec = CLASSES.get(cls)
        for level in options.levels[cls]:
            # texts are unique per (class, level): a sweep gives each level what a run at that
            # level alone would give
            produced: set[str] = set()
            for index in range(options.per_class):
                chosen = None
                reason = None
                for attempt in range(MAX_ATTEMPTS):
                    rng = rng_for(options.seed, task.id, cls, level, index, attempt)
                    try:
                        variant = spec.generate(ctx, level, rng, index)
                    except SkipGeneration as exc:
                        reason = exc.reason
                        break
                    if variant.text in produced or variant.text in rejected or variant.text == task.prompt:
                        continue
                    screen = screen_text(task, variant.text, cls, variant.details)
                    if chosen is None or screen.passed:
                        chosen = (variant, screen)
                    if screen.passed:
                        break
                if reason is not None:
                    skips.append(
                        GenerationSkip(
                            task_id=task.id,
                            perturbation=cls,
                            level=level,
                            reason=reason,
                        )
                    )
                    break
                if chosen is None:
                    skips.append(
                        GenerationSkip(
                            task_id=task.id,
                            perturbation=cls,
                            level=level,
                            reason=f"no new variant for index {index} after {MAX_ATTEMPTS} attempts "
                            "(each was a duplicate, rejected in review, or the canonical prompt)",
                        )
                    )
                    continue
                variant, screen = chosen
                produced.add(variant.text)
                drafts.append(_Draft(task.id, cls, level, index, variant.text, variant.details, prov, screen))
    return drafts, skips


async def _llm_all(
    contexts: list[TaskContext],
    options: GenerateOptions,
    rejected: dict[str, set[str]],
    cache_dir: Path,
    tick: Callable[[int], None],
) -> tuple[list[_Draft], list[GenerationSkip]]:
    from perturb.generate.llm import request_variants, template, variant_details
    from perturb.io.llm import ResponseCache, make_client

    settings = options.llm
    assert settings is not None
    cache = ResponseCache(cache_dir)
    sem = asyncio.Semaphore(max(1, settings.concurrency))

    async def one(ctx: TaskContext, cls: str, level: float, index: int) -> _Draft | GenerationSkip:
        async with sem:
            try:
                for attempt in range(MAX_ATTEMPTS):
                    result = await request_variants(
                        client, settings, cache, ctx, cls, level, index, attempt, options.seed
                    )
                    for variant in result.variants:
                        if variant.text in rejected.get(ctx.task.id, set()):
                            continue
                        prov = Provenance(
                            kind="llm",
                            perturb_version=__version__,
                            seed=options.seed,
                            model=result.model,
                            temperature=settings.temperature,
                            system_fingerprint=result.system_fingerprint,
                            template_sha256=template(cls).sha256,
                            retries=result.retries,
                        )
                        details = variant_details(ctx, cls, variant, result.fixed)
                        return _Draft(ctx.task.id, cls, level, index, variant.text, details, prov)
                return GenerationSkip(
                    task_id=ctx.task.id,
                    perturbation=cls,
                    level=level,
                    reason=f"the model proposed only texts rejected in review for index {index} "
                    f"({MAX_ATTEMPTS} attempts)",
                )
            finally:
                tick(1)

    client = make_client(settings)
    async with client:
        jobs = [
            one(ctx, cls, level, index)
            for ctx in contexts
            for cls in options.classes
            for level in options.levels[cls]
            for index in range(options.per_class)
        ]
        results = await asyncio.gather(*jobs)
    drafts = [r for r in results if isinstance(r, _Draft)]
    skips = [r for r in results if isinstance(r, GenerationSkip)]
    return drafts, skips


def _check_server(settings: LLMSettings) -> None:
    """Before any request: retry limits in range, the base URL well formed, the key there (or
    not needed) and the server listening (:func:`perturb.io.llm.preflight`)."""
    from perturb.io.llm import OPENAI_URL, preflight, resolve_api_key

    if settings.max_retries < 0:
        raise UsageError(f"--max-retries must be >= 0, got {settings.max_retries}")
    if settings.timeout <= 0:
        raise UsageError(f"--timeout must be > 0, got {settings.timeout:g}")
    base_url = settings.resolved_base_url()
    resolve_api_key(settings.api_key_env, base_url)
    preflight(base_url or OPENAI_URL, what="--generator llm: the server")


def generate(tasks_path: str | Path, options: GenerateOptions) -> GenerateResult:
    """Generate candidates for every task of ``tasks_path`` into ``review/<suite>/``."""
    path = Path(tasks_path)
    suite = load_tasks(path)
    for cls in options.classes:
        if cls not in options.levels:
            options.levels[cls] = (CLASSES.get(cls).default_level,)
    if options.per_class < 1:
        raise UsageError(f"--per-class must be at least 1, got {options.per_class}")
    if options.generator not in ("rules", "llm"):
        raise UsageError(f"unknown generator {options.generator!r} (expected rules or llm)")
    if options.generator == "llm" and (options.llm is None or not options.llm.model):
        raise UsageError("--generator llm needs --model (the model name the server serves)")
    if options.llm is not None and options.generator == "llm":
        _check_server(options.llm)
    if options.review_root is None and Path(path).resolve().parent.name != "tasks":
        raise UsageError(
            f"{path}: a task file must be in a tasks/ directory (expected "
            f"<project>/tasks/{suite.name}.jsonl, where `perturb freeze` looks for it; move it "
            "there, or pass --review-dir to write candidates elsewhere)"
        )
    root = options.review_root or (project_root(path) / "review")
    review_dir = confine(root, root / suite.name)
    for name in ("candidates.jsonl", "skipped.jsonl", "journal.jsonl", ".lock"):
        confine(root, review_dir / name)
    # Hold the suite's review lock: candidates.jsonl must not change under a live review.
    with ReviewLock(review_dir / ".lock", suite.name, "perturb generate"):
        result = _generate_locked(path, suite, review_dir, options)
    result.review_dir = _shown(result.review_dir)
    return result


def _shown(path: Path) -> Path:
    """``path`` relative to the current directory when it lies under it (what a user typed,
    "review/travel"), else as it is."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def _generate_locked(
    path: Path, suite: TaskSuite, review_dir: Path, options: GenerateOptions
) -> GenerateResult:
    cands_path = review_dir / "candidates.jsonl"
    # The review's own reader: same FILE:LINE errors, unique ids, the right suite.
    existing = load_candidates(cands_path, suite.name) if cands_path.exists() else []
    decided = live_decisions(review_dir / "journal.jsonl", existing)
    old_skips: list[GenerationSkip] = read_records(review_dir / "skipped.jsonl", GenerationSkip)
    rejected: dict[str, set[str]] = {}
    for cand in existing:
        if decided.get(cand.id) == "reject":
            rejected.setdefault(cand.task_id, set()).add(cand.text)
    tasks = sorted(suite.tasks, key=lambda t: t.id)
    contexts = [prepare(t) for t in tasks]
    per_task_jobs = sum(len(options.levels[c]) for c in options.classes) * options.per_class
    total = per_task_jobs * len(tasks)
    progress = options.progress
    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress.update(done, {})

    if progress is not None:
        progress.start(f"generate {suite.name}", total)
    try:
        if options.generator == "rules":
            drafts, skips = [], []
            for ctx in contexts:
                d, s = _rules_for_task(ctx, options, rejected.get(ctx.task.id, set()))
                drafts.extend(d)
                skips.extend(s)
                tick(per_task_jobs)
        else:
            drafts, skips = asyncio.run(_llm_all(contexts, options, rejected, review_dir / "llm-cache", tick))
    finally:
        if progress is not None:
            progress.stop()
    return _write(
        suite.name, path, review_dir, contexts, options, drafts, skips, existing, old_skips, decided
    )


def _sort_key(task_id: str, cls: str, level: float, index: int, cid: str) -> tuple[Any, ...]:
    return (task_id, kind_rank(cls), level, index, cid)


def _write(
    suite: str,
    path: Path,
    review_dir: Path,
    contexts: list[TaskContext],
    options: GenerateOptions,
    drafts: list[_Draft],
    skips: list[GenerationSkip],
    existing: list[Candidate],
    old_skips: list[GenerationSkip],
    decided: dict[str, str],
) -> GenerateResult:
    by_id = {c.task.id: c.task for c in contexts}
    by_ctx = {c.task.id: c for c in contexts}
    hashes = {c.task.id: task_hash(c.task) for c in contexts}
    kept = [c for c in existing if c.id in decided or c.perturbation not in options.classes]
    kept_ids = {c.id for c in kept}
    kept_texts = {(c.task_id, c.perturbation, c.level, c.text) for c in kept}
    drafts.sort(key=lambda d: _sort_key(d.task_id, d.cls, d.level, d.index, d.text))
    fresh: list[Candidate] = []
    fresh_ids: set[str] = set()
    # the duplicate check looks at the task's candidates of the same level (a sweep may hold
    # the same text at two levels)
    seen_by_task: dict[tuple[str, float], list[tuple[str, str]]] = {}
    for c in sorted(kept, key=lambda c: _sort_key(c.task_id, c.perturbation, c.level, c.index, c.id)):
        seen_by_task.setdefault((c.task_id, c.level), []).append((c.id, c.text))
    for d in drafts:
        cid = _candidate_id(suite, d.task_id, d.cls, d.text, d.level)
        if cid in kept_ids or cid in fresh_ids or (d.task_id, d.cls, d.level, d.text) in kept_texts:
            continue
        task, ctx = by_id[d.task_id], by_ctx[d.task_id]
        others = seen_by_task.setdefault((d.task_id, d.level), [])
        if d.screen is None:
            screen = screen_text(task, d.text, d.cls, d.details, others)
        else:  # screened while generating: only the duplicate check is left
            dup = duplicate_flag(d.text, others)
            screen = d.screen if dup is None else Screen(passed=False, flags=[*d.screen.flags, dup])
        fresh.append(
            Candidate(
                id=cid,
                suite=suite,
                task_id=d.task_id,
                perturbation=d.cls,
                text=d.text,
                level=d.level,
                epsilon=CLASSES.get(d.cls).measure(ctx, d.text, d.details),
                index=d.index,
                generator=d.provenance,
                screen=screen,
                details=d.details,
                task_sha256=hashes[d.task_id],
            )
        )
        others.append((cid, d.text))
        fresh_ids.add(cid)
    allc = sorted(kept + fresh, key=lambda c: _sort_key(c.task_id, c.perturbation, c.level, c.index, c.id))
    all_skips = [s for s in old_skips if s.perturbation not in options.classes] + skips
    uniq = {(s.task_id, s.perturbation, s.level, s.reason): s for s in all_skips}
    skip_list = [uniq[k] for k in sorted(uniq, key=lambda k: (k[0], kind_rank(k[1]), k[2], k[3]))]
    write_jsonl_atomic(review_dir / "candidates.jsonl", [c.model_dump(mode="json") for c in allc])
    write_jsonl_atomic(review_dir / "skipped.jsonl", [s.model_dump(mode="json") for s in skip_list])
    by_class = {cls: sum(1 for c in allc if c.perturbation == cls) for cls in options.classes}
    flagged = sum(1 for c in allc if not c.screen.passed)
    info = _generation_info(
        suite, path, options, len(allc), len(fresh), len(kept), flagged, len(skip_list), by_class
    )
    write_json_atomic(review_dir / "generation.json", info)
    return GenerateResult(
        suite,
        review_dir,
        len(allc),
        len(fresh),
        len([c for c in kept if c.id in decided]),
        flagged,
        len(skip_list),
        by_class,
        tuple(options.classes),
    )


def _generation_info(
    suite: str,
    path: Path,
    options: GenerateOptions,
    total: int,
    new: int,
    kept: int,
    flagged: int,
    skipped: int,
    by_class: dict[str, int],
) -> dict[str, Any]:
    info: dict[str, Any] = {
        "suite": suite,
        "tasks_file": path.name,
        "tasks_sha256": sha256_bytes(read_bytes(path)),
        "perturb_version": __version__,
        "generator": options.generator,
        "classes": list(options.classes),
        "levels": {c: list(options.levels[c]) for c in options.classes},
        "per_class": options.per_class,
        "seed": options.seed,
        "epsilon": {c: CLASSES.get(c).epsilon for c in options.classes},
    }
    if options.generator == "llm" and options.llm is not None:
        from perturb.generate.llm import template
        from perturb.io.secrets import public_url

        info["llm"] = {
            "model": options.llm.model,
            "base_url": public_url(options.llm.resolved_base_url()),
            "temperature": options.llm.temperature,
            "templates": {c: template(c).sha256 for c in options.classes},
        }
    info["counts"] = {
        "candidates": total,
        "new": new,
        "kept": kept,
        "flagged": flagged,
        "skipped": skipped,
        "by_class": by_class,
    }
    return info
