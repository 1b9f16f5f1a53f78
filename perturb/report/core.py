"""``perturb report``: read a run, compute the figures, render them in one or more formats.

    result = run_report(ReportOptions(Path("runs/demo"), ks="1,2,5", out_dir=Path("report")))
    print(result.summary())
    analysis = build_report("runs/demo", ks=[1, 2, 5], bootstrap=2000, seed=0)
    text = render(analysis, "md")
    write_outputs(analysis, plan_outputs(["html"], [Path("report.html")], None))

Formats: ``text`` (terminal scorecard), ``json`` (``perturb.report/v1``), ``md`` (Markdown),
``junit`` (JUnit XML), ``html`` (self-contained). ``--out-dir DIR`` writes all five as
``DIR/report.{txt,json,md,xml,html}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from perturb.errors import UsageError
from perturb.io.jsonl import write_atomic
from perturb.report.aggregate import Analysis, analyze
from perturb.report.details import read_details
from perturb.report.formats import FORMATS
from perturb.report.results import read_run

STDOUT = Path("-")


def parse_ks(text: str | None) -> list[int] | None:
    """``"1,2,5"`` -> ``[1, 2, 5]``; None stays None (the default k values)."""
    if text is None:
        return None
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or int(part) < 1:
            raise UsageError(
                f"--k {text!r}: {part!r} is not a positive whole number (expected e.g. --k 1,2,5)"
            )
        out.append(int(part))
    return out


def normalise_format(name: str) -> str:
    """A format name or alias -> one of ``text json md junit html``."""
    key = name.lower()
    for spec in FORMATS.specs.values():
        if key == spec.name or key in spec.aliases:
            return spec.name
    raise UsageError(f"unknown format {name!r} (expected one of: {', '.join(FORMATS.names())})")


def _format_of_suffix(suffix: str) -> str | None:
    for spec in FORMATS.specs.values():
        if suffix == f".{spec.extension}" or suffix in spec.suffixes:
            return spec.name
    return None


def plan_outputs(formats: list[str], outputs: list[Path], out_dir: Path | None) -> list[tuple[str, Path]]:
    """Pair formats with destinations (``Path("-")`` is stdout).

    * nothing given: the text scorecard to stdout;
    * ``-f F`` alone: format F to stdout;
    * ``-o PATH`` alone: the format from the suffix (.txt .json .md .xml .html);
    * ``-f F1 -o P1 -f F2 -o P2``: pairs in order;
    * ``--out-dir DIR``: all five formats as ``DIR/report.<ext>`` (plus any pairs).
    """
    fmts = [normalise_format(f) for f in formats]
    plan: list[tuple[str, Path]] = []
    if outputs:
        if not fmts:
            for out in outputs:
                fmt = "text" if out == STDOUT else _format_of_suffix(out.suffix.lower())
                if fmt is None:
                    raise UsageError(
                        f"-o {out}: cannot tell the format from the suffix {out.suffix!r} "
                        "(use .txt .json .md .xml .html, or give -f FORMAT for each -o)"
                    )
                plan.append((fmt, out))
        elif len(fmts) == len(outputs):
            plan.extend(zip(fmts, outputs, strict=True))
        else:
            raise UsageError(
                f"{len(fmts)} --format and {len(outputs)} --output options: give one -f per -o, "
                "in order (or only -o PATH with a telling suffix)"
            )
    elif fmts:
        if len(fmts) > 1 and out_dir is None:
            raise UsageError(
                "several formats but no --output: give -o PATH for each -f, or use --out-dir DIR"
            )
        if out_dir is None:
            plan.append((fmts[0], STDOUT))
    if out_dir is not None:
        plan.extend((s.name, out_dir / f"report.{s.extension}") for s in FORMATS.specs.values())
    if not plan:
        plan.append(("text", STDOUT))
    if sum(1 for _, dest in plan if dest == STDOUT) > 1:
        raise UsageError("only one format can go to stdout (-o -); give the others a path")
    return plan


def build_report(
    run_dir: str | Path, ks: list[int] | None = None, *, bootstrap: int = 2000, seed: int = 0
) -> Analysis:
    """Read ``run_dir`` and compute every figure (see :mod:`perturb.report.aggregate`), with the
    failing examples behind them (:mod:`perturb.report.details`)."""
    data = read_run(run_dir)
    analysis = analyze(data, ks, bootstrap=bootstrap, seed=seed)
    analysis.details, _ = read_details(run_dir, data.manifest)
    return analysis


def render(analysis: Analysis, fmt: str) -> str:
    """One format as a string."""
    return FORMATS.get(normalise_format(fmt)).render(analysis)


def write_outputs(analysis: Analysis, plan: list[tuple[str, Path]]) -> list[tuple[str, Path]]:
    """Write every file destination of ``plan`` atomically; return what was written.

    Stdout destinations are skipped (the caller prints them). Every format is rendered before
    the first file is written, so a format that fails leaves no file behind."""
    rendered = [(fmt, dest, render(analysis, fmt)) for fmt, dest in plan if dest != STDOUT]
    for _, dest, text in rendered:
        write_atomic(dest, text)
    return [(fmt, dest) for fmt, dest, _ in rendered]


@dataclass
class ReportOptions:
    """Everything ``perturb report`` accepts."""

    run_dir: Path
    """The run to report (``runs/<id>``)."""
    ks: str | list[int] | None = None
    """The k values of pass@k and pass^k (``"1,2,5"`` or a list; None: the defaults)."""
    formats: list[str] = field(default_factory=list)
    """``-f``: the formats, paired in order with ``outputs`` (see :func:`plan_outputs`)."""
    outputs: list[Path] = field(default_factory=list)
    """``-o``: destinations (``Path("-")`` is stdout)."""
    out_dir: Path | None = None
    """``--out-dir``: write every format as ``DIR/report.<ext>``."""
    bootstrap: int = 2000
    """Bootstrap resamples B of the intervals."""
    seed: int = 0
    """Seed of the bootstrap."""


@dataclass
class ReportResult:
    """What :func:`run_report` did."""

    analysis: Analysis
    stdout_format: str | None
    """The format to print on stdout (None: only files were asked for)."""
    written: list[tuple[str, Path]]
    """(format, path) of every file written."""

    def summary(self) -> str:
        """One line per file written (``wrote PATH (FORMAT)``), or what was computed."""
        if self.written:
            return "\n".join(f"wrote {path} ({name})" for name, path in self.written)
        a = self.analysis
        return (
            f"report of run {a.data.manifest.run_id}: {a.n_tasks} tasks, "
            f"{a.n_variants} prompts, {a.n_trials} trials"
        )


def run_report(options: ReportOptions) -> ReportResult:
    """``perturb report``: plan the outputs, compute the figures, write the files."""
    plan = plan_outputs(options.formats, options.outputs, options.out_dir)
    ks = options.ks if not isinstance(options.ks, str | None) else parse_ks(options.ks)
    analysis = build_report(options.run_dir, ks, bootstrap=options.bootstrap, seed=options.seed)
    written = write_outputs(analysis, plan)
    to_stdout = next((fmt for fmt, dest in plan if dest == STDOUT), None)
    return ReportResult(analysis, to_stdout, written)
