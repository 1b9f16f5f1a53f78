"""Build hook: bundle the travel example into the wheel (``perturb/scaffold/example/``).

The example lives at the top of the repository (``tasks/``, ``fixtures/``, ``review/travel/``,
``examples/``, ``evals/``) so the README's first command runs from a clone; a wheel carries a
copy under ``perturb/scaffold/example/`` so ``perturb init --example DIR`` works from an
installed package. ``MANIFEST.in`` puts the same files in the sdist, so a wheel built from the
sdist bundles them too. An editable install needs no copy (it reads the checkout).
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def _example_files() -> tuple[str, ...]:
    """``EXAMPLE_FILES`` as ``perturb/scaffold/core.py`` declares it (its one owner), read without
    importing perturb, whose dependencies a build environment does not have."""
    tree = ast.parse((HERE / "perturb" / "scaffold" / "core.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "EXAMPLE_FILES" for t in node.targets
        ):
            return tuple(ast.literal_eval(node.value))
    raise RuntimeError("perturb/scaffold/core.py: EXAMPLE_FILES not found")


EXAMPLE_FILES = _example_files()
"""The example's data; every ``examples/*.py`` module is bundled as well."""


class BuildPyWithExample(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "perturb" / "scaffold" / "example"
        names = [*EXAMPLE_FILES, *(f"examples/{p.name}" for p in sorted((HERE / "examples").glob("*.py")))]
        for name in names:
            dest = target / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(HERE / name, dest)


setup(cmdclass={"build_py": BuildPyWithExample})
