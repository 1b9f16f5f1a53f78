"""Read a run directory (``runs/<id>/manifest.json`` + ``trials.jsonl``) into counts.

The trial file is streamed line by line; each line is validated as a
:class:`perturb.records.Trial` and only compact columns are kept (8 doubles and a 64-bit
output fingerprint, 72 bytes per trial, no per-trial objects): a million trials take about
70 MB. Files of 64 MB and more are read by up to ``os.cpu_count()`` (at most 4) worker
processes (fresh interpreters), each streaming one newline-aligned byte range; the result is
the same as reading in one process. After
reading:

* per (variant_id, attempt) the line with the highest ``retry`` is kept (a later line wins a
  tie), as every reader of trial files does;
* a truncated last line (no newline and not valid JSON: a killed writer) is ignored;
* any other bad line raises :class:`InputError` as ``FILE:LINE: field: message`` (the first
  bad line of the file).

The result holds per-variant counts (n, passed, wrong, errored, the number of distinct wrong
outputs and a sample of one) and the kept trials' latency, cost, tokens and output
fingerprint as numpy columns for the report's per-class figures.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import pickle
import subprocess
import sys
import tempfile
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pydantic import ValidationError

from perturb.errors import InputError
from perturb.io.jsonl import open_regular, validation_message
from perturb.records import RunManifest, Trial
from perturb.run.store import read_manifest, read_trial_line

OUTCOME_CODES = {"passed": 0, "wrong": 1, "errored": 2}
SAMPLE_CHARS = 80
PARALLEL_MIN_BYTES = 64 * 2**20
"""Trial files at least this big (about 150,000 trials) are read by several processes."""
MAX_WORKERS = 4
_COLUMNS = (
    "variant",
    "attempt",
    "retry",
    "outcome",
    "latency_s",
    "cost_usd",
    "input_tokens",
    "output_tokens",
)
_ENCODE = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode


@dataclass
class Variant:
    """One fixture entry of the run with its counts after retry de-duplication."""

    variant_id: str
    task_id: str
    kind: str
    """``canonical`` or the perturbation class."""
    level: float | None
    epsilon: float
    weight: float
    n: int = 0
    passed: int = 0
    wrong: int = 0
    errored: int = 0
    wrong_outputs: int = 0
    """Distinct outputs among the wrong trials (1 with wrong >= 2: consistently wrong)."""
    wrong_sample: str | None = None
    """The wrong output (shortened) when all wrong trials gave the same one."""


FaultRow = tuple[str, str, str, float, float, int, int, int, tuple[str, ...], int, int, int, int, int]
"""A trial at λ > 0: (variant_id, task_id, kind, weight, lam, attempt, retry, outcome code,
fault classes met, tool calls, faulted calls, calls before Retry-After elapsed, give-ups,
duplicated side effects)."""


@dataclass
class FaultTrials:
    """The kept trials at λ > 0, and those at λ = 0 that called tools (a compact row each)."""

    rows: list[FaultRow] = field(default_factory=list)


@dataclass
class RunData:
    """A run read from disk."""

    path: Path
    manifest: RunManifest
    variants: list[Variant]
    trial_variant: NDArray[np.int32]
    """Per kept trial: index into ``variants``."""
    trial_outcome: NDArray[np.int8]
    """Per kept trial: 0 passed, 1 wrong, 2 errored."""
    trial_latency: NDArray[np.float64]
    trial_cost: NDArray[np.float64]
    """USD, NaN when the agent did not report it."""
    trial_input_tokens: NDArray[np.float64]
    """NaN when not reported."""
    trial_output_tokens: NDArray[np.float64]
    trial_fingerprint: NDArray[np.int64]
    """Hash of the canonical JSON of a wrong trial's output (0 for other outcomes)."""
    lines: int = 0
    """Trial lines read."""
    superseded: int = 0
    """Lines replaced by a later retry (or a repeated line) of the same attempt."""
    truncated_tail: bool = False
    """The last line was cut off (a killed writer) and was ignored."""
    notes: list[str] = field(default_factory=list)
    faults: FaultTrials = field(default_factory=FaultTrials)
    """Trials at λ > 0 (``perturb run --faults``) and trials at λ = 0 that called tools; every
    column above holds λ = 0 only."""


def fault_row(trial: Trial, outcome: int) -> FaultRow:
    """The compact row of a trial at λ > 0.

    A *give-up* is a tool whose last call in the trial got an injected error (429, 5xx or a
    timeout): the agent stopped trying. A call *before Retry-After elapsed* is one answered by
    a rate limit still holding from an earlier call (``followup`` with status 429)."""
    calls = trial.tool_calls
    met = tuple(sorted({c.fault for c in calls if c.fault}))
    early = sum(1 for c in calls if c.followup and c.status == 429)
    last = {c.tool: c for c in calls}
    give_ups = sum(1 for c in last.values() if c.fault and (c.timed_out or c.status >= 429))
    return (
        trial.variant_id,
        trial.task_id,
        trial.perturbation,
        trial.weight,
        trial.lam,
        trial.attempt,
        trial.retry,
        outcome,
        met,
        len(calls),
        sum(1 for c in calls if c.fault),
        early,
        give_ups,
        trial.duplicated_side_effects,
    )


@dataclass
class _Chunk:
    """What one reader of a byte range found (picklable; line numbers are chunk-local)."""

    lines: int = 0
    """Physical lines consumed (including blank ones)."""
    records: int = 0
    variants: list[Variant] = field(default_factory=list)
    first_line: list[int] = field(default_factory=list)
    """Per variant: the local line it first appeared on."""
    cols: array[float] = field(default_factory=lambda: array("d"))
    fps: array[int] = field(default_factory=lambda: array("q"))
    samples: dict[int, tuple[int, str]] = field(default_factory=dict)
    truncated: bool = False
    error: tuple[int, str, str | None] | None = None
    """(local line, message, field) of the first bad line."""
    faults: list[FaultRow] = field(default_factory=list)


def _fingerprint(output: Any) -> int:
    """A non-zero 64-bit hash of the output's canonical JSON (the same in every process)."""
    text = "s" + output if isinstance(output, str) else "j" + _ENCODE(output)
    value = int.from_bytes(
        hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little", signed=True
    )
    return value or 1


def _sample(output: Any) -> str:
    text = _ENCODE(output)
    return text if len(text) <= SAMPLE_CHARS else text[: SAMPLE_CHARS - 1] + "…"


def _validation_error(exc: ValidationError) -> tuple[str, str | None]:
    loc, msg = validation_message(exc)
    if "(expected" not in msg:
        msg += " (expected a Trial record; see `perturb schema trial`)"
    return msg, (None if loc == "(record)" else loc)


def _read_range(path: str, start: int, end: int | None, run_id: str) -> _Chunk:
    """Stream the lines of ``path`` from byte ``start`` (a line start) up to ``end``."""
    out = _Chunk()
    index: dict[str, int] = {}
    variants, first_line, samples = out.variants, out.first_line, out.samples
    weights: dict[str, float] = {}
    put, put_fp = out.cols.extend, out.fps.append
    codes = OUTCOME_CODES
    nan = math.nan
    pos = start
    lineno = 0
    with open_regular(path) as fh:
        fh.seek(start)
        for raw in fh:
            if end is not None and pos >= end:
                break
            pos += len(raw)
            lineno += 1
            if not raw.strip():
                continue
            try:
                trial = read_trial_line(raw, path, lineno)
            except InputError as exc:
                if not raw.endswith(b"\n") and exc.detail.startswith(("invalid JSON", "not valid UTF-8")):
                    # the writer was killed mid-line (outputs are written as UTF-8, so the cut
                    # can fall inside a multi-byte character)
                    out.truncated = True
                    break
                out.error = (lineno, exc.detail, exc.field)
                break
            except ValidationError as exc:
                out.error = (lineno, *_validation_error(exc))
                break
            if trial.run_id != run_id:
                out.error = (
                    lineno,
                    f"{trial.run_id!r} differs from the manifest's run id "
                    f"{run_id!r} (expected the trials of this run only)",
                    "run_id",
                )
                break
            if trial.lam > 0.0 or trial.tool_calls:
                out.faults.append(fault_row(trial, codes[trial.outcome]))
                if trial.lam > 0.0:
                    out.records += 1
                    continue
            vi = index.get(trial.variant_id)
            if vi is None:
                vi = index[trial.variant_id] = len(variants)
                variants.append(
                    Variant(
                        trial.variant_id,
                        trial.task_id,
                        trial.perturbation,
                        trial.level,
                        trial.epsilon,
                        trial.weight,
                    )
                )
                first_line.append(lineno)
            problem = _conflict(variants[vi], trial.task_id, trial.perturbation, trial.weight, weights)
            if problem is not None:
                out.error = (lineno, *problem)
                break
            outcome = codes[trial.outcome]
            if outcome == 1:
                fp = _fingerprint(trial.output)
                put_fp(fp)
                if vi not in samples:
                    samples[vi] = (fp, _sample(trial.output))
            else:
                put_fp(0)
            usage = trial.usage
            if usage is None:
                put((vi, trial.attempt, trial.retry, outcome, trial.latency_s, nan, nan, nan))
            else:
                cost, tin, tout = usage.cost_usd, usage.input_tokens, usage.output_tokens
                put(
                    (
                        vi,
                        trial.attempt,
                        trial.retry,
                        outcome,
                        trial.latency_s,
                        nan if cost is None else cost,
                        nan if tin is None else tin,
                        nan if tout is None else tout,
                    )
                )
            out.records += 1
    out.lines = lineno
    return out


def _conflict(
    known: Variant, task_id: str, kind: str, weight: float, weights: dict[str, float]
) -> tuple[str, str] | None:
    """A message and field when a line disagrees with what earlier lines said, else None."""
    if known.task_id != task_id or known.kind != kind:
        return (
            f"variant {known.variant_id!r} was {known.task_id}/{known.kind} on an earlier "
            f"line, now {task_id}/{kind} (expected one task and class per variant)",
            "variant_id",
        )
    first = weights.setdefault(task_id, weight)
    if first != weight:
        return (
            f"{weight} differs from {first} on an earlier line of task {task_id!r} "
            "(expected one weight per task)",
            "weight",
        )
    return None


def _split(path: str, size: int, parts: int) -> list[tuple[int, int | None]]:
    """Newline-aligned byte ranges covering the file."""
    starts = [0]
    with open(path, "rb") as fh:
        for i in range(1, parts):
            fh.seek(size * i // parts)
            fh.readline()
            cut = fh.tell()
            if starts[-1] < cut < size:
                starts.append(cut)
    ends: list[int | None] = [*starts[1:], None]
    return list(zip(starts, ends, strict=True))


def read_run(
    run_dir: str | Path,
    *,
    workers: int | None = None,
    parallel_min_bytes: int = PARALLEL_MIN_BYTES,
) -> RunData:
    """Stream ``run_dir``'s trials into :class:`RunData` (see the module docstring).

    ``workers`` (default: CPU count, at most 4) processes read files of at least
    ``parallel_min_bytes``; smaller files are read in this process."""
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    path = run_dir / "trials.jsonl"
    name = str(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise InputError(name, "no such file (expected the trials written by `perturb run`)") from None
    except OSError as exc:
        raise InputError(name, f"cannot read: {exc.strerror or exc}") from None
    n_workers = min(MAX_WORKERS, os.cpu_count() or 1) if workers is None else max(1, workers)
    chunks: list[_Chunk] | None = None
    try:
        if n_workers > 1 and size >= parallel_min_bytes:
            chunks = _read_parallel(name, size, n_workers, manifest.run_id)
        if chunks is None:
            chunks = [_read_range(name, 0, None, manifest.run_id)]
    except OSError as exc:
        raise InputError(name, f"cannot read: {exc.strerror or exc}") from None
    return _merge(run_dir, manifest, name, chunks)


def _read_parallel(name: str, size: int, workers: int, run_id: str) -> list[_Chunk] | None:
    """Read newline-aligned ranges in worker processes; None when a worker cannot run.

    Workers are fresh interpreters (``python -c``), not forks of this process, so nothing of
    the caller's state (threads, ``__main__``) is copied or re-run. Each pickles its chunk
    to a temporary file."""
    ranges = _split(name, size, workers)
    if len(ranges) < 2:
        return None
    with tempfile.TemporaryDirectory(prefix="perturb-read-") as tmp:
        procs = []
        for i, (start, end) in enumerate(ranges):
            out = os.path.join(tmp, f"chunk{i}.pickle")
            args = [
                sys.executable,
                "-c",
                _WORKER,
                name,
                str(start),
                "" if end is None else str(end),
                run_id,
                out,
            ]
            procs.append(
                (
                    subprocess.Popen(
                        args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                    ),
                    out,
                )
            )
        codes = [proc.wait() for proc, _ in procs]
        if any(codes):
            return None  # e.g. perturb not importable there: read in this process instead
        chunks = []
        for _, out in procs:
            with open(out, "rb") as fh:
                chunks.append(pickle.load(fh))
        return chunks


_WORKER = "import sys; from perturb.report.results import _worker; _worker(sys.argv[1:])"


def _worker(argv: list[str]) -> None:
    """Entry point of a reader process: ``PATH START END RUN_ID OUT``."""
    path, start, end, run_id, out = argv
    chunk = _read_range(path, int(start), int(end) if end else None, run_id)
    with open(out, "wb") as fh:
        pickle.dump(chunk, fh, protocol=pickle.HIGHEST_PROTOCOL)


def _merge(run_dir: Path, manifest: RunManifest, name: str, chunks: list[_Chunk]) -> RunData:
    index: dict[str, int] = {}
    variants: list[Variant] = []
    weights: dict[str, float] = {}
    samples: dict[int, tuple[int, str]] = {}
    tables, fps = [], []
    offset = 0
    for chunk in chunks:
        remap = np.empty(len(chunk.variants), dtype=np.float64)
        problem: tuple[int, str, str | None] | None = None
        for local, var in enumerate(chunk.variants):
            gi = index.get(var.variant_id)
            if gi is None:
                gi = index[var.variant_id] = len(variants)
                variants.append(var)
            found = _conflict(variants[gi], var.task_id, var.kind, var.weight, weights)
            if found is not None and (problem is None or chunk.first_line[local] < problem[0]):
                problem = (chunk.first_line[local], *found)
            remap[local] = gi
            if local in chunk.samples and gi not in samples:
                samples[gi] = chunk.samples[local]
        if chunk.error is not None and (problem is None or chunk.error[0] < problem[0]):
            problem = chunk.error
        if problem is not None:
            raise InputError(name, problem[1], line=offset + problem[0], field=problem[2])
        table = np.frombuffer(chunk.cols, dtype=np.float64).reshape(-1, len(_COLUMNS)).copy()
        if table.size:
            table[:, 0] = remap[table[:, 0].astype(np.int64)]
        tables.append(table)
        fps.append(np.frombuffer(chunk.fps, dtype=np.int64))
        offset += chunk.lines
    table = np.concatenate(tables) if tables else np.empty((0, len(_COLUMNS)))
    fp_all = np.concatenate(fps) if fps else np.empty(0, dtype=np.int64)
    v = table[:, 0].astype(np.int32)
    att = table[:, 1].astype(np.int64)
    retry = table[:, 2].astype(np.int64)
    # Keep, per (variant, attempt), the highest retry; the later line wins a tie.
    order = np.lexsort((np.arange(v.size), retry, att, v))
    sv, sa = v[order], att[order]
    last = np.ones(order.size, dtype=bool)
    if order.size:
        last[:-1] = (sv[1:] != sv[:-1]) | (sa[1:] != sa[:-1])
    keep = np.sort(order[last])
    kept = table[keep]
    truncated = chunks[-1].truncated
    fault_rows: dict[tuple[str, int, float], FaultRow] = {}
    for chunk in chunks:
        for row in chunk.faults:
            key = (row[0], row[5], row[4])
            prev = fault_rows.get(key)
            if prev is None or row[6] >= prev[6]:
                fault_rows[key] = row
    data = RunData(
        path=run_dir,
        manifest=manifest,
        variants=variants,
        trial_variant=v[keep],
        trial_outcome=kept[:, 3].astype(np.int8),
        trial_latency=np.ascontiguousarray(kept[:, 4]),
        trial_cost=np.ascontiguousarray(kept[:, 5]),
        trial_input_tokens=np.ascontiguousarray(kept[:, 6]),
        trial_output_tokens=np.ascontiguousarray(kept[:, 7]),
        trial_fingerprint=fp_all[keep],
        lines=sum(c.records for c in chunks),
        superseded=int(order.size - keep.size),
        truncated_tail=truncated,
        faults=FaultTrials(list(fault_rows.values())),
    )
    _count(data, samples)
    if truncated:
        data.notes.append(
            f"{name}: the last line is truncated (the writer was stopped mid-line) and was ignored"
        )
    if data.superseded:
        data.notes.append(
            f"{data.superseded} trial lines were superseded by a later retry of the same attempt"
        )
    return data


def _count(data: RunData, samples: dict[int, tuple[int, str]]) -> None:
    nv = len(data.variants)
    tv, to = data.trial_variant, data.trial_outcome
    n = np.bincount(tv, minlength=nv)
    passed = np.bincount(tv[to == 0], minlength=nv)
    wrong = np.bincount(tv[to == 1], minlength=nv)
    errored = np.bincount(tv[to == 2], minlength=nv)
    wrong_rows = to == 1
    pairs = np.unique(np.stack([tv[wrong_rows].astype(np.int64), data.trial_fingerprint[wrong_rows]]), axis=1)
    distinct = np.bincount(pairs[0], minlength=nv) if pairs.size else np.zeros(nv, np.int64)
    single_fp: dict[int, int] = {}
    if pairs.size:
        for vi, fp in zip(pairs[0].tolist(), pairs[1].tolist(), strict=True):
            single_fp[vi] = fp
    for i, var in enumerate(data.variants):
        var.n, var.passed = int(n[i]), int(passed[i])
        var.wrong, var.errored = int(wrong[i]), int(errored[i])
        var.wrong_outputs = int(distinct[i])
        sample = samples.get(i)
        if sample is not None and var.wrong_outputs == 1 and single_fp.get(i) == sample[0]:
            var.wrong_sample = sample[1]
