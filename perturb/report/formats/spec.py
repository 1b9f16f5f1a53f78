"""The report-format spec: what one format module exports (``SPEC = FormatSpec(...)``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perturb.report.aggregate import Analysis


@dataclass(frozen=True)
class FormatSpec:
    """One report format: its name, its file extension and its renderer.

    ``render(analysis) -> str`` gets every figure of a run (:class:`~perturb.report.aggregate.Analysis`)
    and returns the whole document; writing files is :mod:`perturb.report.core`'s job. A
    renderer must keep untrusted text (prompts, outputs, ids, manifest fields) inert in its
    format."""

    name: str
    """What ``perturb report -f NAME`` takes."""
    extension: str
    """The file extension, without the dot (``--out-dir`` writes ``report.<extension>``)."""
    render: Callable[[Analysis], str]
    aliases: tuple[str, ...] = ()
    """Other names ``-f`` accepts (``markdown`` for ``md``)."""
    suffixes: tuple[str, ...] = ()
    """Extra file suffixes that select this format for ``-o PATH`` (``.htm``)."""
