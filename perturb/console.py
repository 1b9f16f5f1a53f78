"""What the command line shows on the terminal while a stage works: a progress bar.

The CLI owns the terminal; library stages report through :class:`perturb.progress.Progress`
and this module draws it with rich, on stderr, so stdout stays clean for the result.
"""

from __future__ import annotations

import time
from typing import Any


class BarProgress:
    """A rich progress bar: label, bar, done/total, rate, ETA and outcome counts."""

    def __init__(self, console: Any = None, *, counts: bool = True) -> None:
        from rich.console import Console

        self._console = console or Console(stderr=True)
        self._counts = counts
        self._bar: Any = None
        self._task: Any = None
        self._started = 0.0

    def start(self, label: str, total: int) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
        from rich.progress import Progress as RichProgress

        columns: list[Any] = [
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        ]
        if self._counts:
            columns.append(
                TextColumn(
                    "[green]{task.fields[passed]} passed[/] [yellow]{task.fields[wrong]} wrong[/] "
                    "[red]{task.fields[errored]} errored[/]"
                )
            )
        self._bar = RichProgress(*columns, console=self._console, auto_refresh=False)
        self._task = self._bar.add_task(label, total=total, rate="", passed=0, wrong=0, errored=0)
        self._started = time.perf_counter()
        self._bar.start()

    def update(self, done: int, counts: dict[str, int]) -> None:
        if self._bar is None:
            return
        elapsed = max(time.perf_counter() - self._started, 1e-9)
        self._bar.update(self._task, completed=done, rate=f"{done / elapsed:.1f}/s", **counts)
        self._bar.refresh()

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.refresh()
            self._bar.stop()
            self._bar = None
