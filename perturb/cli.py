"""The ``perturb`` command line: one thin function per verb.

Each command parses its arguments, calls one library function and prints the result.
Library code raises :class:`perturb.errors.PerturbError`; :func:`cli_errors` turns that into
``error: <one line>`` on stderr and the error's exit code (1 a check failed, 2 bad input).
Any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from . import __version__
from .errors import CheckFailed, PerturbError

app = typer.Typer(
    name="perturb",
    help=(
        "How robust and how reliable is your LLM agent? "
        "tasks/ -> generate -> review/ -> freeze -> fixtures/ -> run -> runs/ -> report/gate."
    ),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

F = TypeVar("F", bound=Callable[..., Any])


def err(message: str) -> None:
    """Print to stderr."""
    typer.echo(message, err=True)


def cli_errors(fn: F) -> F:
    """Turn :class:`PerturbError` into a one-line message and its exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except CheckFailed as exc:
            for line in exc.lines:
                typer.echo(line)
            err(f"error: {exc.summary}")
            raise typer.Exit(exc.exit_code) from None
        except PerturbError as exc:
            for line in str(exc).splitlines():
                err(f"error: {line}")
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            err("interrupted: work done so far is saved; run the same command again to resume")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"perturb {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version_callback, is_eager=True, help="Show version."),
    ] = False,
) -> None:
    """perturb: robustness and reliability of LLM agents."""


# --------------------------------------------------------------------------- tasks


@app.command()
@cli_errors
def validate(
    path: Annotated[Path, typer.Argument(help="A task file, tasks/<suite>.jsonl.")],
) -> None:
    """Check a task file; print every problem as FILE:LINE: field: message (exit 2)."""
    from .tasks import load_tasks

    suite = load_tasks(path)
    n_slots = sum(len(t.slots) for t in suite.tasks)
    typer.echo(f"{path}: ok: {len(suite.tasks)} tasks, {n_slots} declared slots")


@app.command()
@cli_errors
def schema(
    record: Annotated[
        str, typer.Argument(help="task, candidate, decision, fixture, lock, trial, manifest, baseline")
    ] = "task",
) -> None:
    """Print the JSON Schema of a record (default: one line of a task file)."""
    from . import models
    from .errors import UsageError
    from .tasks import task_json_schema

    records: dict[str, Any] = {
        "candidate": models.Candidate,
        "decision": models.Decision,
        "fixture": models.FixtureEntry,
        "lock": models.Lock,
        "trial": models.Trial,
        "manifest": models.RunManifest,
        "baseline": models.Baseline,
    }
    if record == "task":
        out = task_json_schema()
    elif record in records:
        out = records[record].model_json_schema()
    else:
        raise UsageError(
            f"unknown record {record!r} (expected one of: task, {', '.join(records)})"
        )
    typer.echo(json.dumps(out, indent=2, ensure_ascii=False))


# --------------------------------------------------------------------------- generate (issue 3)

# ------------------------------------------------------------------ review / freeze / verify (issue 4)

# --------------------------------------------------------------------------- run (issue 5)

# ------------------------------------------------------------------ report / baseline / gate (issue 6)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except BrokenPipeError:  # e.g. `perturb review --list | head`
        sys.stderr.close()
        sys.exit(0)
