"""What ``perturb run`` keeps on disk: the manifest, and the index of trials already done.

* :func:`config_of` / :func:`config_hash` -- the fields that define a run's numbers
  (``CONFIG_FIELDS``); :func:`config_diff` says which differ between a manifest and a command.
* :func:`scan_trials` -- streams ``trials.jsonl`` once and keeps, per (variant_id, attempt, λ),
  the highest ``retry`` and its outcome; a torn last line (killed writer) is ignored.
* :func:`trial_seed` -- the seed handed to the agent for one trial.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from perturb._version import __version__
from perturb.errors import ConfigError, InputError, OutputError, UsageError
from perturb.io.hashing import canonical_json, content_hash
from perturb.io.jsonl import lenient_is_strict, loads_strict, open_regular, read_model, write_atomic
from perturb.io.secrets import redact
from perturb.records import RunManifest, Trial

CONFIG_FIELDS = (
    "suite",
    "lock_sha256",
    "agent",
    "model",
    "base_url",
    "sampling",
    "trials",
    "timeout_s",
    "classes",
    "task_ids",
    "judge",
    "seed",
    "faults",
    "tools",
)
"""Manifest fields that define the numbers. A resume must match all of them; concurrency,
times, versions, the tier name and the fixture path may change."""
OPTIONAL_FIELDS = ("faults", "tools")
"""Config fields added later: left out of the hash when None, so a run without tools or
faults keeps the id (and resumability) it had before they existed."""


OUTCOMES = ("passed", "wrong", "errored")


def trial_seed(run_seed: int, variant_id: str, attempt: int) -> int:
    """``sha256("<run_seed>:<variant_id>:<attempt>")``'s first 4 bytes, as a 31-bit int."""
    digest = hashlib.sha256(f"{run_seed}:{variant_id}:{attempt}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def config_of(manifest: RunManifest | dict[str, Any]) -> dict[str, Any]:
    """The ``CONFIG_FIELDS`` of a manifest (or of a dict with those keys)."""
    data = manifest.model_dump(mode="json") if isinstance(manifest, RunManifest) else manifest
    return {key: data.get(key) for key in CONFIG_FIELDS}


def config_hash(config: dict[str, Any]) -> str:
    """``content_hash`` of the config fields (``OPTIONAL_FIELDS`` only when set)."""
    return content_hash(
        {
            key: config.get(key)
            for key in CONFIG_FIELDS
            if key not in OPTIONAL_FIELDS or config.get(key) is not None
        }
    )


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), sort_keys=True)


def config_diff(old: RunManifest, new: dict[str, Any]) -> list[str]:
    """``field: old -> new`` for every config field that differs."""
    before = config_of(old)
    out = []
    for key in CONFIG_FIELDS:
        if canonical_json(before[key]) != canonical_json(new.get(key)):
            out.append(f"{key}: {_show(before[key])} -> {_show(new.get(key))}")
    return out


def refuse_drift(manifest_path: Path, old: RunManifest, new: dict[str, Any]) -> None:
    """Raise :class:`ConfigError` naming each differing field, if any differs."""
    diffs = config_diff(old, new)
    if diffs:
        raise ConfigError(
            f"{manifest_path}: this run was started with a different config: "
            + "; ".join(diffs)
            + " (rerun with the original options to resume it, or choose a new --out directory)"
        )


def versions() -> dict[str, str]:
    """perturb's, Python's and the platform's versions for the manifest."""
    return {
        "perturb_version": __version__,
        "python_version": platform.python_version(),
        "platform": f"{platform.system()}-{platform.release()}-{platform.machine()}",
    }


def read_manifest(path: Path) -> RunManifest:
    """Load a run manifest -- ``path`` is ``runs/<id>/manifest.json`` or the run directory --
    with ``FILE:LINE: field:`` errors. The one reader of manifests (run, resume, report)."""
    path = Path(path)
    if path.name != "manifest.json":
        if not path.is_dir():
            raise InputError(str(path), "not a run directory (expected runs/<id>/ written by `perturb run`)")
        path = path / "manifest.json"
    return read_model(path, RunManifest, "the manifest `perturb run` writes")


def write_manifest(path: Path, manifest: RunManifest, secrets: list[str]) -> None:
    """Atomically write the manifest (secrets redacted, should one have slipped into a spec)."""
    text = json.dumps(manifest.model_dump(mode="json"), ensure_ascii=False, indent=2)
    write_atomic(path, redact(text, secrets) + "\n")


@dataclass
class TrialIndex:
    """What ``trials.jsonl`` already holds: per (variant_id, attempt, lam) the latest retry
    and outcome. Only these small tuples are kept, never outputs."""

    latest: dict[tuple[str, int, float], tuple[int, str]] = field(default_factory=dict)
    lines: int = 0
    torn_tail: bool = False

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(OUTCOMES, 0)
        for _, outcome in self.latest.values():
            out[outcome] += 1
        return out


_FIX = "expected one Trial JSON object per line; remove the line or start a new run with --out"
"""What to do about a bad line when ``perturb run`` resumes (the run goes on from the file)."""
REPORT_FIX = (
    "expected one Trial JSON object per line, as `perturb run` writes them; delete the line, "
    "resume the run (`perturb run` with its original options redoes that trial), then run this command again"
)
"""What to do about a bad line when ``perturb report`` (or ``baseline``, ``gate``) reads a run."""


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _show_value(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _key_problem(obj: dict[str, Any]) -> tuple[str, str] | None:
    """``(field, message)`` when a key the resume scan relies on is missing or mistyped."""
    for key in ("variant_id", "attempt", "outcome"):
        if key not in obj:
            return key, "missing"
    if not isinstance(obj["variant_id"], str):
        return "variant_id", f"{_show_value(obj['variant_id'])} is not a string"
    for key in ("attempt", "retry"):
        if key in obj and not _whole(obj[key]):
            return key, f"{_show_value(obj[key])} is not a whole number >= 0"
    lam = obj.get("lam", 0.0)
    if isinstance(lam, bool) or not isinstance(lam, int | float) or not 0 <= lam <= 1:
        return "lam", f"{_show_value(lam)} is not a rate in [0, 1]"
    if obj["outcome"] not in OUTCOMES:
        return "outcome", f"{_show_value(obj['outcome'])} is not passed, wrong or errored"
    return None


def parse_trial_line(raw: bytes, name: str, number: int, fix: str = _FIX) -> dict[str, Any]:
    """One line of ``trials.jsonl`` as a JSON object, through the strict parser
    (:func:`~perturb.io.jsonl.loads_strict`: duplicate keys, ``NaN``, huge integers and deep
    nesting refused): the one reader of a trial line, for the resume scan of ``perturb run``
    and for ``perturb report``, with the same refusals. :class:`InputError` ``FILE:LINE``
    otherwise, ending in ``fix`` (``expected ...; what to do``) where the message has no
    expectation of its own: the resume's by default, :data:`REPORT_FIX` for the report."""
    try:
        # without its line break, a line cut short reads as cut short ("Unterminated string"),
        # not as a control character inside a string
        text = raw.decode("utf-8").removesuffix("\n").removesuffix("\r")
        obj = loads_strict(text, name, number, what=fix.removeprefix("expected "))
    except UnicodeDecodeError:
        raise InputError(name, f"not valid UTF-8 ({fix})", line=number) from None
    if not isinstance(obj, dict):
        raise InputError(name, f"not a trial line ({fix})", line=number)
    return obj


_TRIAL_JSON = Trial.__pydantic_validator__.validate_json
_TRIAL_PYTHON = Trial.__pydantic_validator__.validate_python


def read_trial_line(raw: bytes, name: str, number: int, fix: str = REPORT_FIX) -> Trial:
    """One line of ``trials.jsonl`` as a :class:`Trial` for ``perturb report``: exactly
    ``Trial.model_validate(parse_trial_line(raw, name, number, fix))`` (the same trial, the same
    :class:`InputError` or ``ValidationError``), read cheaply when the line is clean.

    pydantic's ``validate_json`` (in C) reads the line first; the trial is kept when
    :func:`~perturb.io.jsonl.lenient_is_strict` finds nothing the strict parser would refuse.
    Any other line (one that fails validation, or where the screen fires) goes through the
    strict path, which decides it and words the error."""
    try:
        raw.decode("utf-8")
        trial = _TRIAL_JSON(raw)
    except (UnicodeDecodeError, ValidationError):
        pass
    else:
        if lenient_is_strict(raw, trial):
            return trial
    return _TRIAL_PYTHON(parse_trial_line(raw, name, number, fix))


def scan_trials(path: Path) -> TrialIndex:
    """Stream ``trials.jsonl``; :class:`InputError` ``FILE:LINE:`` for a bad complete line."""
    index = TrialIndex()
    if not path.exists():
        return index
    latest = index.latest
    name = str(path)
    with open_regular(path) as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.endswith(b"\n"):
                index.torn_tail = True  # a killed writer; the appender cuts it off
                break
            if not raw.strip():
                continue
            obj = parse_trial_line(raw, name, number)
            problem = _key_problem(obj)
            if problem is not None:
                raise InputError(name, f"{problem[1]} ({_FIX})", line=number, field=problem[0])
            key = (obj["variant_id"], obj["attempt"], float(obj.get("lam", 0.0)))
            retry = obj.get("retry", 0)
            outcome = obj["outcome"]
            index.lines += 1
            previous = latest.get(key)
            if previous is None or retry >= previous[0]:
                latest[key] = (retry, outcome)
    return index


@contextlib.contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """Hold ``run_dir/.lock`` (an exclusive ``flock``) so that two ``perturb run`` processes
    never write the same run; the kernel releases it when the holder dies, even by SIGKILL."""
    path = run_dir / ".lock"

    def cannot(exc: OSError) -> OutputError:
        return OutputError(
            f"{path}: cannot create the run lock: {exc.strerror or exc} (expected a writable run "
            "directory with free space; choose another --out)"
        )

    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise cannot(exc) from None
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no advisory locks
        yield
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise cannot(exc) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            raise UsageError(
                f"{run_dir}: another `perturb run` (pid {holder}) is writing this run (expected "
                "one writer per run directory; wait for it to finish or stop it)"
            ) from None
        with contextlib.suppress(OSError):  # the pid is only a hint for that message
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        yield
    finally:
        os.close(fd)
