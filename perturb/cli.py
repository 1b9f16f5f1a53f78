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

from perturb import __version__
from perturb.errors import CheckFailed, PerturbError
from perturb.io.inert import printable

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


one_line = printable
"""A message with control characters escaped, so a value read from a damaged file cannot break
it across lines or drive the terminal (:func:`perturb.io.inert.printable`)."""


def cli_errors(fn: F) -> F:
    """Turn :class:`PerturbError` into one-line messages and its exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except CheckFailed as exc:
            for line in exc.lines:
                typer.echo(one_line(line))
            err(f"error: {one_line(exc.summary)}")
            raise typer.Exit(exc.exit_code) from None
        except PerturbError as exc:
            # "\n" separates several problems (TaskFormatError); nothing else may break a line
            for line in str(exc).split("\n"):
                err(f"error: {one_line(line)}")
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


RootOption = Annotated[
    Path,
    typer.Option(
        "--root",
        help="Project directory (holds tasks/, review/, fixtures/); the relative file argument of "
        "validate, generate and run is read in it.",
    ),
]


def _in_root(root: Path, path: Path) -> Path:
    """A relative file argument resolved in ``--root`` (``Path('.')`` leaves it as given)."""
    return path if path.is_absolute() else root / path


# --------------------------------------------------------------------------- init


@app.command()
@cli_errors
def init(
    directory: Annotated[Path, typer.Argument(help="Where to create the project (default: here).")] = Path(
        "."
    ),
    suite: Annotated[str, typer.Option("--suite", help="The suite name: tasks/<suite>.jsonl.")] = "shop",
    example: Annotated[
        bool,
        typer.Option("--example", help="Copy the bundled travel-desk example instead (fixtures included)."),
    ] = False,
) -> None:
    """Start a project: tasks, agent stubs, tiers, CI workflow, .gitignore. Never overwrites."""
    from perturb.scaffold.core import init_project

    typer.echo(init_project(directory, suite=suite, example=example).summary())


# --------------------------------------------------------------------------- tasks


@app.command()
@cli_errors
def validate(
    path: Annotated[Path, typer.Argument(help="A task file, tasks/<suite>.jsonl.")],
    root: RootOption = Path("."),
) -> None:
    """Check a task file and that its callable graders import; print every problem as
    FILE:LINE: field: message (exit 2)."""
    from perturb.tasks import check_graders_import, load_tasks

    path = _in_root(root, path)
    suite = load_tasks(path)
    check_graders_import(suite)
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
    from perturb import records as models
    from perturb.errors import UsageError
    from perturb.tasks import task_json_schema

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
        raise UsageError(f"unknown record {record!r} (expected one of: task, {', '.join(records)})")
    typer.echo(json.dumps(out, indent=2, ensure_ascii=False))


# --------------------------------------------------------------------------- generate


@app.command()
@cli_errors
def generate(
    tasks: Annotated[Path, typer.Argument(help="The task file, tasks/<suite>.jsonl.")],
    classes: Annotated[
        str | None,
        typer.Option(
            help="Comma list of classes (default: all six): paraphrase, reorder, "
            "distractor, self_correction, typo, register."
        ),
    ] = None,
    per_class: Annotated[int, typer.Option(help="Variants per task, class and level.")] = 2,
    intensity: Annotated[
        str | None,
        typer.Option(
            help="Levels ε: '0.2', a sweep '0.1,0.2,0.4', per class "
            "'typo=0.1,distractor=0.3', or a mix (default: per-class defaults)."
        ),
    ] = None,
    generator: Annotated[str, typer.Option(help="rules (offline, seeded) or llm.")] = "rules",
    model: Annotated[str | None, typer.Option(help="llm: the model name.")] = None,
    base_url: Annotated[
        str | None, typer.Option(help="llm: OpenAI-compatible base URL (default $OPENAI_BASE_URL).")
    ] = None,
    api_key_env: Annotated[
        str, typer.Option(help="llm: environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
    temperature: Annotated[float, typer.Option(help="llm: sampling temperature.")] = 0.7,
    concurrency: Annotated[int, typer.Option(help="llm: requests in flight at once.")] = 4,
    timeout: Annotated[float, typer.Option(help="llm: seconds per request.")] = 60.0,
    max_retries: Annotated[int, typer.Option(help="llm: retries per request (429, 5xx, ...).")] = 4,
    seed: Annotated[int, typer.Option(help="Seed; every candidate's RNG derives from it.")] = 0,
    review_dir: Annotated[
        Path | None,
        typer.Option(help="Review root (default: review/ beside tasks/)."),
    ] = None,
    root: RootOption = Path("."),
) -> None:
    """Propose perturbed variants of every task into review/<suite>/ for a person to review."""
    from perturb.generate.core import GenerateOptions, parse_classes, parse_intensity
    from perturb.generate.core import generate as run_generate
    from perturb.io.llm import LLMSettings

    chosen = parse_classes(classes)
    llm = None
    if generator == "llm":
        llm = LLMSettings(
            model=model or "",
            base_url=base_url,
            api_key_env=api_key_env,
            temperature=temperature,
            timeout=timeout,
            max_retries=max_retries,
            concurrency=concurrency,
        )
    options = GenerateOptions(
        classes=chosen,
        levels=parse_intensity(intensity, chosen),
        per_class=per_class,
        seed=seed,
        generator=generator,
        llm=llm,
        review_root=review_dir,
        progress=_progress_bar(counts=False),
    )
    typer.echo(run_generate(_in_root(root, tasks), options).summary())


# ------------------------------------------------------------------ review / freeze / verify


def _progress_bar(*, counts: bool) -> Any:
    """A progress bar on stderr when it is a terminal; None (silent) otherwise."""
    if not sys.stderr.isatty():
        return None
    from perturb.console import BarProgress

    return BarProgress(counts=counts)


@app.command()
@cli_errors
def review(
    suite: Annotated[
        str | None, typer.Argument(help="Suite name (default: the only one under review/).")
    ] = None,
    cls: Annotated[
        str | None, typer.Option("--class", help="Only candidates of this perturbation class.")
    ] = None,
    task: Annotated[str | None, typer.Option("--task", help="Only candidates of this task.")] = None,
    sample: Annotated[
        int | None, typer.Option("--sample", help="Review a sample of N, stratified by class.")
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Seed of the --sample draw.")] = None,
    reviewer: Annotated[
        str | None, typer.Option("--reviewer", help="Your name (default: git config user.name).")
    ] = None,
    list_: Annotated[
        bool, typer.Option("--list", help="Print the candidates and their status; no terminal.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="With --list: JSON output.")] = False,
    root: RootOption = Path("."),
) -> None:
    """Review candidates one by one: a accept, r reject, e edit, s skip, u undo, q quit."""
    if list_:
        from perturb.review.listing import format_list

        typer.echo(format_list(root, suite, cls, task, sample, seed, as_json=as_json), nl=False)
        return
    if as_json:
        from perturb.errors import UsageError

        raise UsageError("--json only applies with --list")
    from perturb.review.tui import run_review

    outcome = run_review(root, suite, cls=cls, task=task, sample=sample, seed=seed, reviewer=reviewer)
    typer.echo(outcome.summary())


@app.command()
@cli_errors
def accept(
    ids: Annotated[list[str], typer.Argument(help="Candidate ids (see perturb review --list).")],
    reason: Annotated[str | None, typer.Option("--reason", help="An optional note.")] = None,
    reviewer: Annotated[
        str | None, typer.Option("--reviewer", help="Your name (default: git config user.name).")
    ] = None,
    root: RootOption = Path("."),
) -> None:
    """Accept candidates without the terminal UI (several ids at once are recorded as bulk)."""
    from perturb.review.listing import decide_ids

    for cand, d in decide_ids(root, ids, "accept", reason=reason, reviewer=reviewer):
        typer.echo(f"accepted {cand.id} ({cand.task_id} · {cand.perturbation}) [{d.mode}]")


@app.command()
@cli_errors
def reject(
    ids: Annotated[list[str], typer.Argument(help="Candidate ids (see perturb review --list).")],
    reason: Annotated[str, typer.Option("--reason", help="Why (required).")] = "",
    reviewer: Annotated[
        str | None, typer.Option("--reviewer", help="Your name (default: git config user.name).")
    ] = None,
    root: RootOption = Path("."),
) -> None:
    """Reject candidates without the terminal UI; --reason says why."""
    from perturb.review.listing import decide_ids

    for cand, d in decide_ids(root, ids, "reject", reason=reason, reviewer=reviewer):
        typer.echo(f"rejected {cand.id} ({cand.task_id} · {cand.perturbation}) [{d.mode}]")


@app.command()
@cli_errors
def freeze(
    suite: Annotated[
        str | None, typer.Argument(help="Suite name (default: the only one under tasks/).")
    ] = None,
    root: RootOption = Path("."),
    allow_drop: Annotated[
        bool,
        typer.Option(
            "--allow-drop",
            help="Drop variants the current fixtures hold even when no journal decision explains it.",
        ),
    ] = False,
) -> None:
    """Write fixtures/<suite>.jsonl and its lock from the canonical tasks and accepted variants."""
    from perturb.freeze.core import freeze as do_freeze

    result = do_freeze(root, suite, allow_drop=allow_drop)
    typer.echo(result.summary())
    for warning in result.warnings:
        err(f"warning: {one_line(warning)}")


@app.command()
@cli_errors
def verify(
    suite: Annotated[
        str | None, typer.Argument(help="Suite name (default: the only one under fixtures/).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable result.")] = False,
    root: RootOption = Path("."),
) -> None:
    """Check fixtures against their lock and tasks/ (exit 1 on drift; never writes)."""
    from perturb.errors import VerifyFailed
    from perturb.freeze.fixtures import SuitePaths, find_suite
    from perturb.freeze.verify import verify as do_verify

    report = do_verify(SuitePaths(root, find_suite(root, suite, "fixtures")).fixtures)
    if as_json:
        typer.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
        if not report.ok:
            raise typer.Exit(VerifyFailed.exit_code)
        return
    if not report.ok:
        raise VerifyFailed(report.summary(), report.lines())
    typer.echo(report.summary())


# --------------------------------------------------------------------------- run


def _split_list(values: list[str] | None) -> list[str] | None:
    """``--classes a,b --classes c`` -> ``["a", "b", "c"]``."""
    if not values:
        return None
    out = [part.strip() for value in values for part in value.split(",") if part.strip()]
    return out or None


@app.command()
@cli_errors
def run(
    fixtures: Annotated[Path, typer.Argument(help="The frozen fixtures, fixtures/<suite>.jsonl.")],
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent",
            help="module:function, module:factory() (fresh agent per trial), cmd:COMMAND or openai:MODEL.",
        ),
    ] = None,
    agent_cmd: Annotated[
        str | None,
        typer.Option("--agent-cmd", help="Same as --agent 'cmd:COMMAND' (no shell is used)."),
    ] = None,
    trials: Annotated[
        int | None, typer.Option("--trials", "-n", help="Attempts per fixture entry (n).")
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option("--concurrency", "-c", help="Trials in flight (default 8).")
    ] = None,
    timeout: Annotated[
        float | None, typer.Option("--timeout", help="Seconds per trial (default 300).")
    ] = None,
    classes: Annotated[
        list[str] | None,
        typer.Option("--classes", help="Variant kinds to run: canonical,paraphrase,... (default all)."),
    ] = None,
    tasks: Annotated[
        list[str] | None, typer.Option("--tasks", help="Task ids to run (comma-separated).")
    ] = None,
    tier: Annotated[
        str | None,
        typer.Option("--tier", help="smoke, full, stress, or a tier from pyproject.toml."),
    ] = None,
    temperature: Annotated[
        float | None, typer.Option("--temperature", help="Sampling temperature (recorded).")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Run seed; trial seeds derive from it.")] = 0,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Run directory (default runs/<suite>-<config hash>)."),
    ] = None,
    retry_errored: Annotated[
        bool, typer.Option("--retry-errored", help="Re-run only the errored trials of the run.")
    ] = False,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="OpenAI-compatible server (or OPENAI_BASE_URL).")
    ] = None,
    api_key_env: Annotated[
        str | None,
        typer.Option("--api-key-env", help="Variable holding the API key (default OPENAI_API_KEY)."),
    ] = None,
    judge_model: Annotated[
        str | None, typer.Option("--judge-model", help="Model for llm_judge graders.")
    ] = None,
    faults: Annotated[
        str | None,
        typer.Option("--faults", help="Fault-injection rates λ to run at, 0 included (e.g. 0,0.1,0.3)."),
    ] = None,
    fault_classes: Annotated[
        list[str] | None,
        typer.Option("--fault-classes", help="Fault classes to inject (default: the six single ones)."),
    ] = None,
    max_retries: Annotated[
        int | None,
        typer.Option(
            "--max-retries",
            help="openai: agents: retries per model request (429, 5xx, timeouts; default 6).",
        ),
    ] = None,
    pass_env: Annotated[
        list[str] | None,
        typer.Option(
            "--pass-env",
            help="Pass this environment variable to a cmd: agent (repeatable); by default it "
            "gets only PATH, HOME, locale and temp-dir variables, no API keys.",
        ),
    ] = None,
    root: RootOption = Path("."),
    executor: Annotated[
        str,
        typer.Option(
            "--executor",
            help="Where trials run: local (this process) or ray (a pool of Ray actors; "
            "pip install 'perturb-eval[ray]'). The driver writes the run either way.",
        ),
    ] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray-address",
            help="Ray cluster: auto, ray://HOST:PORT or HOST:PORT (default: start one on this machine).",
        ),
    ] = None,
    resources: Annotated[
        str | None,
        typer.Option("--resources", help="One Ray worker's resources, JSON (default '{\"CPU\": 1}')."),
    ] = None,
) -> None:
    """Run the agent n times on every canonical prompt and frozen variant; resumable."""
    from perturb.errors import UsageError
    from perturb.run.core import RunOptions
    from perturb.run.core import run as run_trials

    if agent and agent_cmd:
        raise UsageError("give --agent or --agent-cmd, not both")
    if not agent and not agent_cmd:
        raise UsageError(
            "no agent (expected --agent module:function, cmd:COMMAND, openai:MODEL, or --agent-cmd COMMAND)"
        )
    summary = run_trials(
        RunOptions(
            fixtures=_in_root(root, fixtures),
            agent=agent or f"cmd:{agent_cmd}",
            trials=trials,
            concurrency=concurrency,
            timeout=timeout,
            classes=_split_list(classes),
            tasks=_split_list(tasks),
            tier=tier,
            faults=faults,
            fault_classes=_split_list(fault_classes),
            temperature=temperature,
            seed=seed,
            out=out,
            retry_errored=retry_errored,
            base_url=base_url,
            api_key_env=api_key_env,
            judge_model=judge_model,
            pass_env=tuple(pass_env or ()),
            max_retries=max_retries,
            progress=_progress_bar(counts=True),
            executor=executor,
            ray_address=ray_address,
            resources=resources,
        )
    )
    typer.echo(summary.summary())


# ------------------------------------------------------------------ report / baseline / gate


@app.command()
@cli_errors
def report(
    run_dir: Annotated[Path, typer.Argument(help="A run directory, runs/<id>/.")],
    k: Annotated[
        str | None,
        typer.Option("--k", help="k values, comma-separated (default: 1,2,5 up to the smallest n)."),
    ] = None,
    fmt: Annotated[
        list[str] | None,
        typer.Option(
            "--format",
            "-f",
            help="text, json, md, junit or html. Repeat together with -o for several files.",
        ),
    ] = None,
    output: Annotated[
        list[Path] | None,
        typer.Option(
            "--output",
            "-o",
            help="Write to PATH ('-' is stdout); the format comes from the paired -f or the "
            "suffix (.txt .json .md .xml .html).",
        ),
    ] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out-dir", help="Write all five formats as DIR/report.{txt,json,md,xml,html}."),
    ] = None,
    bootstrap: Annotated[
        int, typer.Option("--bootstrap", help="Bootstrap resamples B for the intervals.")
    ] = 2000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap.")] = 0,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Do not print the scorecard when writing files.")
    ] = False,
) -> None:
    """Scorecard of a run: mean, pass@k, pass^k per class, delta vs canonical with intervals."""
    from perturb.report.core import ReportOptions, render, run_report
    from perturb.report.formats.text import print_text

    result = run_report(
        ReportOptions(
            run_dir,
            ks=k,
            formats=fmt or [],
            outputs=output or [],
            out_dir=out_dir,
            bootstrap=bootstrap,
            seed=seed,
        )
    )
    if result.stdout_format == "text" or (result.stdout_format is None and not quiet):
        print_text(result.analysis)
    elif result.stdout_format is not None:
        typer.echo(render(result.analysis, result.stdout_format), nl=False)
    if result.written:
        err(result.summary())


@app.command()
@cli_errors
def show(
    run_dir: Annotated[Path, typer.Argument(help="A run directory, runs/<id>/.")],
    selector: Annotated[
        str | None, typer.Argument(help="A prompt id, a task id or a prefix of prompt ids (default: all).")
    ] = None,
    failed: Annotated[bool, typer.Option("--failed", help="Prompts with a wrong or errored trial.")] = False,
    errored: Annotated[bool, typer.Option("--errored", help="Prompts with an errored trial.")] = False,
    flaky: Annotated[
        bool, typer.Option("--flaky", help="Prompts that passed sometimes (0 < c < n).")
    ] = False,
    brittle: Annotated[
        bool, typer.Option("--brittle", help="Prompts failing every trial where the task's others pass.")
    ] = False,
    kind: Annotated[str | None, typer.Option("--class", help="Only prompts of this class.")] = None,
    limit: Annotated[int, typer.Option("--limit", help="Prompts shown, worst first.")] = 5,
    full: Annotated[bool, typer.Option("--full", help="Do not cut long outputs, errors and traces.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON document (perturb.show/v1).")] = False,
) -> None:
    """Why it failed: each prompt's text, diff, expected value and every trial's output,
    grader note, error and trace."""
    from perturb.report.show import ShowOptions
    from perturb.report.show import show as do_show

    result = do_show(ShowOptions(run_dir, selector, failed, errored, flaky, brittle, kind, limit, full))
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=True))
    else:
        typer.echo("\n".join(result.lines()))


@app.command()
@cli_errors
def baseline(
    run_dir: Annotated[Path, typer.Argument(help="The run to take the baseline from.")],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Where to write it, e.g. evals/baseline.json.")
    ],
    k: Annotated[
        int | None, typer.Option("--k", help="The k of pass^k (default: 5, or the smallest n).")
    ] = None,
) -> None:
    """Record a run's figures (per class mean and pass^k, task labels) as the gate's baseline."""
    from perturb.report.gate import write_baseline

    base = write_baseline(run_dir, output, k)
    typer.echo(
        f"wrote {output}: baseline from run {base.run_id} ({base.suite}), k={base.k}, "
        f"{len(base.task_labels)} task x class labels"
    )
    for kind, fig in base.classes.items():
        typer.echo(
            f"  {kind}: mean {fig.mean:.3f}  pass^{base.k} {fig.pass_hat_k:.3f}  "
            f"({fig.n_tasks} tasks, {fig.n_trials} trials)"
        )


@app.command()
@cli_errors
def gate(
    run_dir: Annotated[Path, typer.Argument(help="The run to check.")],
    baseline_path: Annotated[
        Path, typer.Option("--baseline", help="The baseline file (perturb baseline -o ...).")
    ],
    tolerance: Annotated[
        float, typer.Option("--tolerance", help="Allowed drop of a class's mean or pass^k.")
    ] = 0.05,
    require: Annotated[
        float | None,
        typer.Option("--require", help="Fail when any task's pass^k (or pass@k) is below this."),
    ] = None,
    require_metric: Annotated[
        str, typer.Option("--require-metric", help="pass^k (default) or pass@k for --require.")
    ] = "pass^k",
    k: Annotated[int | None, typer.Option("--k", help="k (default: the baseline's).")] = None,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="Fail on any observed drop beyond --tolerance and on every label change, "
            "noise or not (default: fail only when the whole interval is below -tolerance).",
        ),
    ] = False,
    gate_labels: Annotated[
        bool,
        typer.Option("--gate-labels", help="Also fail on newly flaky, brittle or failing tasks."),
    ] = False,
    noise_aware: Annotated[
        bool,
        typer.Option("--noise-aware", help="The default interval-based gate (kept for existing workflows)."),
    ] = False,
    bootstrap: Annotated[
        int, typer.Option("--bootstrap", help="Bootstrap resamples of the intervals.")
    ] = 2000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap.")] = 0,
) -> None:
    """Compare a run with the baseline; exit 1 naming each regression."""
    from perturb.errors import UsageError
    from perturb.report.gate import GateOptions, run_gate

    if strict and noise_aware:
        raise UsageError("--strict and --noise-aware contradict each other (choose one)")

    result = run_gate(
        GateOptions(
            run_dir,
            baseline_path,
            tolerance=tolerance,
            require=require,
            require_metric=require_metric,
            k=k,
            strict=strict,
            gate_labels=gate_labels,
            bootstrap=bootstrap,
            seed=seed,
        )
    )
    typer.echo(result.summary())


@app.command()
@cli_errors
def plan(
    detect: Annotated[
        float, typer.Option("--detect", help="The true drop to detect with 80% power, e.g. 0.05.")
    ],
    tasks: Annotated[
        int | None, typer.Option("--tasks", help="Matched tasks you have (default: say how many are needed).")
    ] = None,
    n: Annotated[
        int | None, typer.Option("--n", help="Trials per prompt (default: try 5, 10, 20, 40, 80).")
    ] = None,
    tolerance: Annotated[
        float, typer.Option("--tolerance", help="The gate's tolerance (the drop must exceed it).")
    ] = 0.0,
    k: Annotated[int, typer.Option("--k", help="1: the mean; above 1: pass^k.")] = 1,
    rate: Annotated[float, typer.Option("--rate", help="The baseline's success rate per trial.")] = 0.9,
) -> None:
    """Which n and how many tasks let the gate detect a drop with 80% power."""
    from perturb.report.plan import PlanOptions
    from perturb.report.plan import plan as make_plan

    typer.echo(make_plan(PlanOptions(detect, tasks, n, tolerance, k, rate)).summary())


# --------------------------------------------------------------------------- export / import


@app.command()
@cli_errors
def export(
    fixtures: Annotated[Path, typer.Argument(help="The fixture file, fixtures/<suite>.jsonl.")],
    to: Annotated[str, typer.Option("--to", help="inspect, promptfoo or csv.")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here (default: standard output).")
    ] = None,
) -> None:
    """Write verified fixtures for another runner, each prompt with its sha256 from the lock."""
    from perturb.interop.core import ExportOptions, export_fixtures

    result = export_fixtures(ExportOptions(fixtures, to, output))
    if output is None:
        sys.stdout.write(result.text)
    for line in result.summary().split("\n"):
        err(one_line(line))


@app.command(name="import")
@cli_errors
def import_(
    source: Annotated[Path, typer.Argument(help="The file to import.")],
    fmt: Annotated[str, typer.Option("--from", help="csv, promptfoo or inspect.")],
    suite: Annotated[
        str | None, typer.Option("--suite", help="Suite name (default: the file's name).")
    ] = None,
    root: RootOption = Path("."),
) -> None:
    """Turn an eval set into tasks/<suite>.jsonl (never overwrites); detected slots to confirm."""
    from perturb.interop.core import ImportOptions, import_tasks

    typer.echo(import_tasks(ImportOptions(source, fmt, suite, root)).summary())


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except BrokenPipeError:  # e.g. `perturb review --list | head`
        sys.stderr.close()
        sys.exit(0)
