"""``perturb init``: a new project from the templates, or a copy of the bundled example.

:func:`init_project` writes every file of the project or none: it first lists what it would
write, refuses (:class:`~perturb.errors.UsageError` naming the file) when any of them exists,
then writes each file atomically. Nothing is ever overwritten.

* A new project (:data:`TEMPLATES`): ``tasks/<suite>.jsonl`` with three example tasks of three
  graders, an agent stub for each adapter kind (``agent.py`` a Python callable,
  ``agent_cmd.py`` a ``cmd:`` script, ``openai.env`` the settings of an ``openai:`` model),
  ``perturb.toml`` with the tiers, the GitHub Actions workflow, ``.gitignore`` and a README.
* The bundled example (``--example``): the travel desk (tasks, tools, review journal,
  fixtures, baseline and the agent's modules), from ``perturb/scaffold/example/`` in a wheel
  (``setup.py`` copies it there at build time) or from the checkout in an editable install.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from string import Template

from perturb import __version__
from perturb.errors import OutputError, UsageError
from perturb.io.jsonl import write_atomic

TEMPLATES: dict[str, str] = {
    "tasks.jsonl.tmpl": "tasks/$suite.jsonl",
    "agent.py.tmpl": "agent.py",
    "agent_cmd.py.tmpl": "agent_cmd.py",
    "openai.env.tmpl": "openai.env",
    "perturb.toml.tmpl": "perturb.toml",
    "workflow.yml.tmpl": ".github/workflows/perturb.yml",
    "gitignore.tmpl": ".gitignore",
    "README.md.tmpl": "README.md",
}
"""Template file (in ``perturb/scaffold/template/``) -> where it goes in the project; ``$suite``
and ``$version`` are substituted in paths and contents."""

EXAMPLE_FILES = (
    "tasks/travel.jsonl",
    "tasks/travel.tools.toml",
    "fixtures/travel.jsonl",
    "fixtures/travel.lock.json",
    "review/travel/candidates.jsonl",
    "review/travel/generation.json",
    "review/travel/journal.jsonl",
    "review/travel/skipped.jsonl",
    "evals/baseline.json",
)
"""The bundled example's data files (its ``examples/*.py`` modules come too). ``setup.py``
bundles the same list."""

EXAMPLE_AGENT = "examples.travel_agent:agent"

_SUITE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass
class InitResult:
    """What ``perturb init`` wrote and what to run next."""

    root: Path
    written: list[Path]
    next_commands: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """What the CLI prints: the files, then the next three commands."""
        lines = [f"created {len(self.written)} files in {self.root}:"]
        lines += [f"  {p.relative_to(self.root).as_posix()}" for p in self.written]
        where = "" if self.root.resolve() == Path.cwd().resolve() else f" (in {self.root})"
        lines.append(f"next{where}:")
        lines += [f"  {cmd}" for cmd in self.next_commands]
        return "\n".join(lines)


def example_dir() -> Path:
    """The bundled example: ``perturb/scaffold/example/`` in a wheel, else the checkout that
    holds this package (an editable install). UsageError when neither has it."""
    bundled = Path(str(resources.files("perturb.scaffold"))) / "example"
    checkout = Path(__file__).resolve().parents[2]
    for base in (bundled, checkout):
        if (
            all((base / name).is_file() for name in EXAMPLE_FILES)
            and (base / "examples" / "travel_agent.py").is_file()
        ):
            return base
    raise UsageError(
        f"the bundled example is missing from this installation (expected it in {bundled}; "
        "reinstall perturb-eval from a wheel or a checkout)"
    )


def _example_files() -> dict[Path, bytes]:
    base = example_dir()
    names = [*EXAMPLE_FILES, *(f"examples/{p.name}" for p in sorted((base / "examples").glob("*.py")))]
    return {Path(name): (base / name).read_bytes() for name in names}


def _template_files(suite: str) -> dict[Path, bytes]:
    folder = resources.files("perturb.scaffold") / "template"
    values = {"suite": suite, "version": __version__}
    out: dict[Path, bytes] = {}
    for source, dest in TEMPLATES.items():
        text = (folder / source).read_text(encoding="utf-8")
        out[Path(Template(dest).substitute(values))] = Template(text).substitute(values).encode("utf-8")
    return out


def init_project(root: str | Path = ".", *, suite: str = "shop", example: bool = False) -> InitResult:
    """Write a new project (or the bundled example) into ``root``; refuse to overwrite."""
    root = Path(root)
    if not _SUITE.match(suite):
        raise UsageError(
            f"--suite {suite!r}: not a suite name (expected letters, digits and _ . -, starting "
            "with a letter or digit, e.g. shop)"
        )
    if root.exists() and not root.is_dir():
        raise UsageError(f"{root}: is a file (expected a directory to create the project in)")
    files = _example_files() if example else _template_files(suite)
    existing = [root / rel for rel in files if (root / rel).exists()]
    if existing:
        more = f" and {len(existing) - 1} more" if len(existing) > 1 else ""
        raise UsageError(
            f"{existing[0]}{more}: already exists (perturb init never overwrites; "
            "choose an empty directory or move the file away)"
        )
    written: list[Path] = []
    try:
        for rel, data in files.items():
            path = root / rel
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise OutputError(
                    f"{path.parent}: cannot create the directory: {exc.strerror or exc} "
                    "(expected a writable place for the project)"
                ) from None
            write_atomic(path, data)
            written.append(path)
    except BaseException:
        for path in written:  # all or nothing: take back what this call wrote
            path.unlink(missing_ok=True)
        raise
    if example:
        commands = [
            "perturb verify",
            f"perturb run fixtures/travel.jsonl --agent {EXAMPLE_AGENT} --trials 20 --temperature 0.7 "
            "--out runs/demo",
            "perturb report runs/demo",
        ]
    else:
        commands = [
            f"perturb validate tasks/{suite}.jsonl",
            "perturb freeze",
            f"perturb run fixtures/{suite}.jsonl --agent agent:agent --tier smoke",
        ]
    return InitResult(root=root, written=written, next_commands=commands)
