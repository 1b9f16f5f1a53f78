"""Registries of extensions: perturbation classes, graders, agent adapters, report formats.

Every extension is one module that exports one spec object (``SPEC``). A registry is built
from perturb's own modules and then from the installed distributions' entry points, so a
third party adds a grader or a perturbation class without editing perturb::

    # the third party's pyproject.toml
    [project.entry-points."perturb.graders"]
    starts_with = "my_graders:SPEC"

An entry point names the spec object (``module:SPEC``) or a module that exports ``SPEC``.
Names are unique across built-ins and plugins: a plugin that reuses a name is an error, never
a silent override. Loading is lazy (on the first lookup) so ``perturb --help`` stays fast.
"""

from __future__ import annotations

import importlib
import types
from collections.abc import Iterator
from importlib.metadata import entry_points
from typing import Generic, Protocol, TypeVar

from perturb.errors import PerturbError


class Spec(Protocol):
    """What every spec has: the name users write (``--classes typo``, ``"grader": "exact"``)."""

    @property
    def name(self) -> str: ...


SpecT = TypeVar("SpecT", bound=Spec)


class Registry(Generic[SpecT]):
    """Name -> spec for one kind of extension, built-ins first in their declared order."""

    def __init__(self, kind: str, group: str, spec_type: type, builtins: tuple[str, ...]) -> None:
        self.kind = kind
        """What an extension of this registry is called in messages (``grader``)."""
        self.group = group
        """The entry-point group third parties register under (``perturb.graders``)."""
        self._spec_type = spec_type
        self._builtins = builtins
        self._specs: dict[str, SpecT] | None = None

    def _spec_of(self, obj: object, origin: str) -> SpecT:
        if isinstance(obj, types.ModuleType):
            obj = getattr(obj, "SPEC", None)
        if not isinstance(obj, self._spec_type):
            raise PerturbError(
                f"{origin}: expected a {self._spec_type.__name__} (or a module exporting SPEC), "
                f"got {type(obj).__name__}; fix the entry point in group {self.group!r}"
            )
        return obj  # type: ignore[return-value]

    def _load(self) -> dict[str, SpecT]:
        specs: dict[str, SpecT] = {}
        for module in self._builtins:
            spec = self._spec_of(importlib.import_module(module), module)
            specs[spec.name] = spec
        for ep in sorted(entry_points(group=self.group), key=lambda e: e.name):
            origin = f"plugin {ep.name!r} ({ep.value}, group {self.group})"
            try:
                loaded = ep.load()
            except Exception as exc:  # noqa: BLE001 - any import failure of a plugin is reported
                raise PerturbError(
                    f"{origin}: cannot be loaded: {type(exc).__name__}: {exc} "
                    "(fix or uninstall the distribution that declares it)"
                ) from None
            spec = self._spec_of(loaded, origin)
            if spec.name in specs:
                raise PerturbError(
                    f"{origin}: a {self.kind} named {spec.name!r} exists already "
                    "(plugins add new names; they do not replace one)"
                )
            specs[spec.name] = spec
        return specs

    @property
    def specs(self) -> dict[str, SpecT]:
        if self._specs is None:
            self._specs = self._load()
        return self._specs

    def names(self) -> tuple[str, ...]:
        """Every registered name: built-ins in their order, then plugins by name."""
        return tuple(self.specs)

    def get(self, name: str) -> SpecT:
        """The spec called ``name``; :class:`PerturbError` naming the known ones otherwise."""
        try:
            return self.specs[name]
        except KeyError:
            raise PerturbError(
                f"unknown {self.kind} {name!r} (expected one of: {', '.join(self.specs)})"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self.specs

    def __iter__(self) -> Iterator[str]:
        return iter(self.specs)

    def reset(self) -> None:
        """Forget what was loaded (after installing a plugin in the same process)."""
        self._specs = None
