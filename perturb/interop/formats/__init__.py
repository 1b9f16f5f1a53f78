"""The interop formats: one module per format, each exporting ``SPEC``."""

from __future__ import annotations

from perturb.interop.spec import InteropSpec
from perturb.plugins import Registry

INTEROP: Registry[InteropSpec] = Registry(
    "interop format",
    "perturb.interop",
    InteropSpec,
    tuple(f"perturb.interop.formats.{name}" for name in ("inspect", "promptfoo", "csv_format")),
)
"""Format name -> its spec: inspect, promptfoo, csv, then plugins (entry-point group
``perturb.interop``)."""
