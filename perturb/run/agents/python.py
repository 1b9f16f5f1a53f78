"""The Python adapter: ``module:function`` or ``module:factory()`` (the default SPEC form).

The code lives beside the shared adapter types in :mod:`perturb.run.agents`
(:class:`~perturb.run.agents.PythonAgent`); this module is its registry entry."""

from __future__ import annotations

from perturb.run.agents import PythonAgent, load_python_agent
from perturb.run.agents.spec import AgentSettings, AgentSpec


def _load(spec: str, rest: str, settings: AgentSettings) -> PythonAgent:
    return load_python_agent(spec, settings.project_root)


SPEC = AgentSpec(
    name="python",
    prefix="",
    summary="module:function or module:factory() -- a Python callable, sync or async",
    load=_load,
)
