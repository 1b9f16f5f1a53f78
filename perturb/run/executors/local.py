"""``--executor local`` (the default): every trial runs in the ``perturb run`` process.

The agent loaded by the driver is used as is; ``--concurrency`` trials are in flight at once
on the driver's event loop (sync Python agents in threads, ``cmd:`` agents as subprocesses).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from perturb.run.executors import ExecutorSettings, ExecutorSpec

if TYPE_CHECKING:
    from perturb.records import FixtureEntry
    from perturb.run.scheduler import TrialRunner


class LocalExecutor:
    """Runs each trial with the driver's own runner."""

    def __init__(self) -> None:
        self._runner: TrialRunner | None = None

    async def start(self, runner: TrialRunner) -> None:
        self._runner = runner
        await runner.open()

    async def trial(self, entry: FixtureEntry, attempt: int, retry: int, lam: float) -> tuple[bytes, str]:
        assert self._runner is not None, "start() first"
        return await self._runner.trial(entry, attempt, retry, lam)

    async def aclose(self) -> None:
        if self._runner is not None:
            await self._runner.close()

    def notes(self) -> list[str]:
        return []


def _create(settings: ExecutorSettings) -> LocalExecutor:
    return LocalExecutor()


SPEC = ExecutorSpec(
    name="local",
    summary="every trial in the perturb run process (the default)",
    create=_create,
)
