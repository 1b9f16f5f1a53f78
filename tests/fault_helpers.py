"""Helpers shared by the crash, fuzz, fault and security tests.

* :func:`assert_clean` -- a CLI result ended the documented way: exit 0, exit 1 with one
  ``error:`` summary line (a check failed), or exit 2 with one-line ``error:`` messages;
  never an uncaught exception or a traceback.
* :func:`snapshot` -- every file under a directory with its bytes (to prove nothing was
  written, or nothing half-written).
* :func:`small_fs` -- a real, small tmpfs (disk full) or a read-only mount, as root.
"""

from __future__ import annotations

import contextlib
import subprocess
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def assert_clean(result: Any, allowed: tuple[int, ...] = (0, 1, 2)) -> None:
    """The CLI ended with a documented exit code and one-line errors, never a traceback."""
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        raise AssertionError(f"uncaught exception:\n{detail}")
    assert result.exit_code in allowed, (result.exit_code, result.stdout, result.stderr)
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line]
    if result.exit_code == 2:
        assert errors, "exit 2 without a message"
        assert all(line.startswith("error: ") for line in errors), errors
    elif result.exit_code == 1:
        assert len(errors) == 1 and errors[0].startswith("error: "), errors
    else:
        assert not any(line.startswith("error: ") for line in errors), errors


def snapshot(root: Path) -> dict[str, bytes]:
    """``relative path -> bytes`` of every file under ``root`` (bytecode caches excluded)."""
    out: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            out[str(path.relative_to(root))] = path.read_bytes()
    return out


def can_mount() -> bool:
    """True when this process may mount a tmpfs (root with CAP_SYS_ADMIN, as in CI)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        ok = (
            subprocess.run(
                ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", tmp], capture_output=True
            ).returncode
            == 0
        )
        if ok:
            subprocess.run(["umount", tmp], check=True)
        return ok


@contextlib.contextmanager
def small_fs(where: Path, size_kb: int) -> Iterator[Path]:
    """Mount a ``size_kb`` tmpfs at ``where`` (created); unmounted afterwards."""
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def remount_read_only(where: Path) -> None:
    """Make a mount made by :func:`small_fs` read-only (root writes fail with EROFS)."""
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)
