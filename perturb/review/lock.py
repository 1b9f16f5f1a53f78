"""The review lock: ``review/<suite>/.lock`` stops two processes deciding on one suite at once.

The lock file is created complete and atomically (written to a private temp file, then
hard-linked to ``.lock``, which fails if the lock exists), so it never holds half a record.
It records the holder's PID, hostname, the process start time (Linux ``/proc``) and a random
token. A lock is *stale* -- left by a killed process -- when it was taken on this host and
its PID is no longer running (or is a zombie, or now belongs to a process that started at a
different time, i.e. the PID was reused). A stale lock is taken over; a live one is refused
with a one-line :class:`~perturb.errors.ReviewLockedError` naming the PID. A lock from another
host cannot be checked, so it is refused with advice to delete it if nothing runs there.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perturb.errors import OutputError, ReviewLockedError
from perturb.io.clock import utc_now


def _proc_stat_fields(pid: int) -> list[str] | None:
    try:
        data = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may contain spaces.
    tail = data.rsplit(")", 1)
    if len(tail) != 2:
        return None
    return tail[1].split()


def process_start_time(pid: int) -> str | None:
    """The process start time in clock ticks since boot (Linux), or None if unknown."""
    fields = _proc_stat_fields(pid)
    if fields is None or len(fields) < 20:
        return None
    return fields[19]


def pid_alive(pid: int) -> bool:
    """True if a process with this PID runs on this host (a zombie counts as dead)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by another user
    except OSError:
        return False
    fields = _proc_stat_fields(pid)
    if fields:
        return fields[0] not in ("Z", "X")
    return True


@dataclass
class LockHolder:
    """What a lock file says about its holder."""

    pid: int
    host: str
    started_at: str
    purpose: str
    token: str
    proc_start: str | None = None

    def describe(self) -> str:
        return f"PID {self.pid} on {self.host} since {self.started_at} ({self.purpose})"


def read_holder(path: Path) -> LockHolder | None:
    """Parse a lock file; None if it is missing or unreadable."""
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
        return LockHolder(
            pid=int(raw["pid"]),
            host=str(raw["host"]),
            started_at=str(raw.get("started_at", "?")),
            purpose=str(raw.get("purpose", "review")),
            token=str(raw["token"]),
            proc_start=raw.get("proc_start"),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def is_stale(holder: LockHolder) -> bool:
    """True when the holder was on this host and its process is gone (or its PID reused)."""
    if holder.host != socket.gethostname():
        return False
    if not pid_alive(holder.pid):
        return True
    if holder.proc_start is not None:
        now = process_start_time(holder.pid)
        if now is not None and now != holder.proc_start:
            return True
    return False


class ReviewLock:
    """An exclusive lock on one suite's review directory. Use as a context manager."""

    def __init__(self, path: Path, suite: str, purpose: str) -> None:
        self.path = Path(path)
        self.suite = suite
        self.purpose = purpose
        self.token = secrets.token_hex(8)
        self.took_over: LockHolder | None = None
        self._held = False

    def _record(self) -> dict[str, Any]:
        pid = os.getpid()
        return {
            "pid": pid,
            "host": socket.gethostname(),
            "started_at": utc_now(),
            "purpose": self.purpose,
            "token": self.token,
            "proc_start": process_start_time(pid),
        }

    def _try_create(self) -> bool:
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.{self.token}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(self._record()) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            try:
                os.link(tmp, self.path)
            except FileExistsError:
                return False
            return True
        except OSError as exc:
            raise OutputError(
                f"{self.path}: cannot create the review lock: {exc.strerror or exc} "
                "(expected a writable review directory)"
            ) from None
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)

    def _locked_error(self, holder: LockHolder | None) -> ReviewLockedError:
        if holder is None:
            return ReviewLockedError(
                f"{self.path}: unreadable review lock for suite {self.suite!r}; if no review of "
                f"this suite is running, delete {self.path} and try again"
            )
        if holder.host != socket.gethostname():
            return ReviewLockedError(
                f"{self.path}: suite {self.suite!r} is locked by {holder.describe()}; a process "
                f"on another host cannot be checked: if nothing runs there, delete {self.path}"
            )
        return ReviewLockedError(
            f"{self.path}: suite {self.suite!r} is being reviewed by {holder.describe()}; "
            f"wait for it to finish or quit it (if PID {holder.pid} is gone, delete {self.path})"
        )

    def _take_over(self, holder: LockHolder) -> bool:
        """Move a stale lock aside, checking it is still the one judged stale."""
        aside = self.path.with_name(f"{self.path.name}.stale.{os.getpid()}.{self.token}")
        try:
            os.rename(self.path, aside)
        except FileNotFoundError:
            return True  # someone removed it meanwhile; just retry creating
        except OSError:
            return False
        moved = read_holder(aside)
        if moved is not None and moved.token == holder.token:
            with contextlib.suppress(OSError):
                os.unlink(aside)
            self.took_over = holder
            return True
        # We moved a fresh lock another process had just taken: put it back.
        with contextlib.suppress(OSError):
            os.link(aside, self.path)
        with contextlib.suppress(OSError):
            os.unlink(aside)
        return False

    def acquire(self) -> ReviewLock:
        for _ in range(5):
            if self._try_create():
                self._held = True
                return self
            holder = read_holder(self.path)
            if holder is None:
                if not self.path.exists():
                    continue
                raise self._locked_error(None)
            if not is_stale(holder):
                raise self._locked_error(holder)
            if not self._take_over(holder):
                raise self._locked_error(read_holder(self.path))
        raise self._locked_error(read_holder(self.path))

    def release(self) -> None:
        if not self._held:
            return
        self._held = False
        holder = read_holder(self.path)
        if holder is not None and holder.token == self.token:
            with contextlib.suppress(OSError):
                os.unlink(self.path)

    def __enter__(self) -> ReviewLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
