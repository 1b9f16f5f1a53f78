"""The package's public names resolve to the real objects."""

from __future__ import annotations

import perturb
from perturb.report import core as report
from perturb.report import metrics


def test_all_names_resolve_and_are_sorted() -> None:
    assert perturb.__all__ == sorted(perturb.__all__)
    for name in perturb.__all__:
        assert getattr(perturb, name) is not None
    assert perturb.pass_hat_k is metrics.pass_hat_k
    assert perturb.run_report is report.run_report
    assert perturb.pass_hat_k(5, 4, 2) == 0.6


def test_unknown_name_is_an_attribute_error() -> None:
    try:
        perturb.nope  # noqa: B018
    except AttributeError as exc:
        assert str(exc) == "module 'perturb' has no attribute 'nope'"
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")
