"""Progress reporting from the library to whoever shows it.

Stages never write to the terminal themselves: a long stage (``generate``, ``run``) takes an
optional :class:`Progress` in its options and calls it; the CLI supplies one that draws a bar
(:class:`perturb.console.BarProgress`), tests and embedding code may supply their own or none.
"""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """Receives a stage's progress; every method is called from the stage's own thread."""

    def start(self, label: str, total: int) -> None:
        """The stage begins ``total`` units of work (trials, candidates) called ``label``."""

    def update(self, done: int, counts: dict[str, int]) -> None:
        """``done`` units finished so far; ``counts`` break them down (``passed``, ``wrong``,
        ``errored`` for a run; empty for generation). Called a few times a second at most."""

    def stop(self) -> None:
        """The stage ended (normally or not)."""
