"""Fixes made after the round-eleven measurement (issue #14, ``heldout9/round11``), from its
reviewers' notes, for paraphrase and register. Every prompt here is written for this file (none
is copied from a benchmark set); each test pins the exact output for a kind of sentence."""

from __future__ import annotations

import random

from perturb.generate.core import prepare
from perturb.generate.perturbations.register import REGISTERS, _in_register
from tests.test_unseen_prompts import task, texts


def variants(prompt: str) -> list[str]:
    """Every paraphrase of ``prompt`` over three seeds and the usual levels."""
    return sorted(set(texts(task(prompt), "paraphrase", seeds=3)))


def registered(prompt: str) -> list[str | None]:
    """The register variant of ``prompt`` in each register, seed 0 (None when it refuses)."""
    out: list[str | None] = []
    for reg in REGISTERS:
        variant = _in_register(prepare(task(prompt)), 0.5, random.Random(0), reg)
        out.append(None if variant is None else variant.text)
    return out


def test_a_record_noun_before_a_code_is_a_label_never_a_request_verb() -> None:
    prompt = (
        "My booking is fine. Order KT-4471, 2 child passes for the Saturday show. Could you email them again?"
    )
    got = variants(prompt)
    assert all("Order KT-4471, 2 child passes for the Saturday show." in v for v in got), got
    assert got == [
        "My booking is fine. Order KT-4471, 2 child passes for the Saturday show. I would like you to email them again.",
        "My booking is fine. Order KT-4471, 2 child passes for the Saturday show. I'd like you to email them again.",
        "My booking is fine. Order KT-4471, 2 child passes for the Saturday show. Please email them again.",
        "My booking is fine. Order KT-4471, 2 child passes for the Saturday show. Would you be able to email them again?",
    ]
    assert registered(prompt) == [
        "Good day, my booking is fine. Order KT-4471, 2 child passes for the Saturday show. "
        "I would be grateful if you could email them again. Kind regards.",
        "Dear sir, my booking is fine. Order KT-4471, 2 child passes for the Saturday show. "
        "Please kindly email them again. Thanks a lot.",
        "Booking is fine. Order KT-4471, 2 child passes for the Saturday show. Pls email them again. TIA.",
    ]


def test_a_record_noun_before_a_dashed_number_is_a_label() -> None:
    assert variants("Quote 40-1187 for the new fence. When can you start?") == []
    assert registered("Quote 40-1187 for the new fence.") == [None, None, None]


def test_a_record_noun_before_a_quantity_is_still_a_verb() -> None:
    # "Order 3 pizzas": a value followed by a noun is a quantity, the word asks for it
    assert "Would you order 3 pizzas for tonight?" in variants("Order 3 pizzas for tonight.")
