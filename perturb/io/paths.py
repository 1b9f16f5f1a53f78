"""Path safety: the one place that decides whether a name or a path perturb builds is safe.

* :func:`check_suite_name` -- a suite name becomes part of ``tasks/<suite>.jsonl``,
  ``review/<suite>/`` and ``fixtures/<suite>.jsonl``, so it must be a plain file name: no
  ``..``, no separators, not absolute, no control characters.
* :func:`confine` -- a path perturb writes or appends to must stay inside its base directory
  (the project root, or the directory the user named) once every symlink is followed, so a
  symlink planted in ``review/`` or ``fixtures/`` cannot redirect a write outside it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from perturb.errors import UsageError
from perturb.io.inert import printable

SUITE_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
"""What a suite name may be: a letter or digit, then letters, digits, ``_``, ``-``, ``.``
(at most 128 characters), and no ``..`` anywhere."""


def check_suite_name(name: str) -> str:
    """``name`` if it is a plain suite name, else :class:`UsageError` saying why."""
    if not SUITE_PATTERN.match(name) or ".." in name:
        raise UsageError(
            f"suite name {printable(name)!r} is not a plain name (expected letters, digits, '_', '-' "
            "or '.', starting with a letter or digit, without '..', '/' or an absolute path; "
            "name the suite as it appears in tasks/<suite>.jsonl)"
        )
    return name


def confine(base: Path, path: Path) -> Path:
    """``path`` if, with every symlink followed, it lies inside ``base`` (also resolved); else
    :class:`UsageError`. Use for everything perturb writes or appends to."""
    real_base = Path(os.path.realpath(base))
    real = Path(os.path.realpath(path))
    if real != real_base and real_base not in real.parents:
        raise UsageError(
            f"{path}: leads outside {base} (resolves to {real}; expected a path inside {base}; "
            "remove the symlink or use a path inside the project)"
        )
    return path
