"""Distractor, round eight (issue #14): refusals of the kinds reviewers rejected — an apology
or pleasantry before a bare order, an afterthought aside before an urgent request, a
partner's advice in a work or money dispute, a lead ending in "so" before a story. Every
prompt here is written for this file (none is copied from a benchmark set)."""

from __future__ import annotations

from perturb.generate.core import prepare
from perturb.generate.perturbations.distractor import _groups, message_kind
from tests.test_unseen_prompts import task


def entries(prompt: str, place: str) -> set[str]:
    """The entries the distractor class allows at ``place`` in ``prompt``."""
    ctx = prepare(task(prompt))
    return {s for g in _groups(ctx, message_kind(ctx.masked)) if g.place == place for s, _ in g.sentences}


def test_no_apology_or_pleasantry_before_a_bare_order() -> None:
    assert entries("Renew my library card for another year.", "polite") == set()
    assert entries("Hi there. Book a window seat on the morning ferry.", "polite") == set()
    # a verb outside the verb list before an object is a bare order too
    assert entries("Fold the towels and stack them on the shelf.", "polite") == set()
    # before a question, a described problem or a "Please ..." request the openers stay
    for prompt in (
        "Order 5521 arrived today with a cracked lid. Can you send a new one?",
        "Do you repair vintage radios? Mine has stopped working.",
        "My kettle stopped working after a week. What can I do?",
        "Please renew my library card for another year.",
    ):
        assert "Sorry to bother you." in entries(prompt, "polite"), prompt
    # a closing thanks after an order is still allowed
    assert "Thanks." in entries("Renew my library card for another year.", "thanks")


def test_no_afterthought_before_an_urgent_request() -> None:
    urgent = entries("Alexa, call a plumber, the kitchen pipe has burst.", "aside")
    assert urgent == {"just quickly,"}
    calm = entries("Alexa, call a plumber about the dripping tap.", "aside")
    assert {"before I forget,", "while I think of it,"} <= calm
    lead = entries("Ring the emergency vet right now", "lead")
    assert lead and not {s for s in lead if "forget" in s or "remember" in s or "think of it" in s}
    assert "Okay, before I forget," in entries("Ring the vet about the booster jab", "lead")


def test_no_partner_advice_in_a_work_request_or_a_dispute() -> None:
    work = entries("Please set up a laptop for our new colleague. She joins next month.", "opening")
    dispute = entries("I was charged twice for one ticket. Please look into it.", "opening")
    for allowed in (work, dispute):
        assert allowed and not {s for s in allowed if "partner" in s}, allowed
    home = entries("The boiler makes a banging noise at night. Is that normal?", "opening")
    assert "My partner suggested I message you rather than ring." in home


def test_a_lead_ending_in_so_only_before_a_message_that_asks() -> None:
    story = entries(
        "we had the garden fence painted by your team last week and the paint is already peeling off in places",
        "lead",
    )
    assert story and not {s for s in story if s.endswith(" so")}, story
    asks = entries("can you tell me if the garden fence paint comes with any kind of guarantee", "lead")
    assert "tried the app but couldnt work it out so" in asks


def test_no_offer_to_explain_more_after_a_follow_up() -> None:
    follow_up = "Actually, could you make it the later slot? The earlier one clashes with school pickup."
    assert entries(follow_up, "closing") == set()
    assert "Thanks." in entries(follow_up, "thanks")
    fresh = "Could you make it the later slot? The earlier one clashes with school pickup."
    assert "Happy to explain more." in entries(fresh, "closing")
