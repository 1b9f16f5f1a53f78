"""A rule-based travel-desk agent: the bundled example for ``tasks/travel.jsonl``.

It really parses the request -- no dice rolls against preset success rates:

1. Split multi-step requests ("first ..., then ...", "1) ... 2) ...") into clauses.
2. Score the actions of each clause by weighted cue phrases (:mod:`examples.travel_intent`).
3. Extract entities by regex (:mod:`examples.travel_extract`): booking references, money,
   weekdays, dates, times, cities, e-mails, member numbers, passengers, nights, bags, cabin,
   applying the self-corrections it recognises ("sorry, I meant ...").
4. Give the entities their roles by their cues ("from X" = origin, "to X" = destination,
   "under £400" = budget, "instead of Saturday" = the old day, ...).
5. In a run with the suite's tool layer (``tasks/travel.tools.toml``), carry the action out
   with the tools -- look the booking up, quote the fare, refund, rebook, read the seat map --
   through the resilience code of :mod:`examples.travel_resilience`, escalating to a human
   when a tool gives up.

Temperature (``request["temperature"]``, default 0): at 0 every choice is the argmax; above
0 the intent and the weekday/date roles are sampled from ``softmax(score / T)`` with
``random.Random(request["seed"])``, so repeated trials differ the way a sampled LLM's do --
most on genuinely ambiguous requests.

Usage: ``perturb run ... --agent examples.travel_agent:agent`` (temperature from the run),
``examples.travel_agent:make_agent()`` (a factory: one fresh agent per trial) or
``examples.travel_agent:sampled_agent`` (fixed at temperature 0.7).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from perturb.run.agents import AgentResponse
from perturb.run.tools import ToolClient

from .travel_extract import (
    Extraction,
    bags,
    cabin,
    date_number,
    extract,
    nights,
    travellers,
)
from .travel_intent import Chooser, product, score_intents
from .travel_lexicon import BAGGAGE_POLICY, BUDGET_CUES, CHECKIN_CLOSES_MIN, FEE_CUES
from .travel_resilience import act

NEEDS_BOOKING = frozenset(
    {
        "cancel_booking",
        "change_booking",
        "refund",
        "refund_quote",
        "lookup_booking",
        "add_baggage",
        "seat_upgrade",
        "send_invoice",
    }
)
"""Actions on an existing booking: a later step without a reference inherits the earlier one."""

_STEP_SPLIT = re.compile(
    r"(?:,\s*|\s+)(?:and\s+then|then|after\s+that|afterwards)\b,?\s*|(?:^|\s)\(?[1-9][.)]\s+",
    re.I,
)
_FIRST = re.compile(r"^\s*first(?:ly)?\b,?\s*", re.I)


@dataclass
class Parse:
    """The action an agent decided on and how it got there."""

    action: dict[str, Any]
    trace: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- roles


def _cue_text(cue: tuple[str, ...]) -> str:
    return " ".join(cue)


def _role_options(ex: Extraction, kind: str, change: bool) -> list[tuple[Any, float]]:
    """Score each weekday/date mention as *the* day of the request (or the new day)."""
    scores: dict[Any, float] = {}
    for i, m in enumerate(ex.active(kind)):
        cue = m.cue
        score = (0.5 if change else 1.0) if i == 0 else 0.0
        if cue and cue[-1] == "on":
            score += 0.5
        if change:
            if cue and cue[-1] in ("to", "onto", "for", "until"):
                score += 2.0
            if cue and cue[-1] == "from":
                score -= 2.0
            if cue[-2:] == ("instead", "of"):
                score -= 3.0
            if m.after[:1] == ("instead",):
                score += 2.0
        scores[m.value] = max(score, scores.get(m.value, score))
    return list(scores.items())


def _stay_dates(ex: Extraction) -> tuple[str | None, str | None]:
    check_in = check_out = None
    for m in ex.active("date"):
        last = m.cue[-1] if m.cue else ""
        if last in ("from", "in", "arriving", "arrive") and check_in is None:
            check_in = m.value
        elif last in ("to", "until", "till", "out", "leaving") and check_out is None:
            check_out = m.value
    return check_in, check_out


def _money(ex: Extraction, cues: tuple[str, ...]) -> tuple[Any, str] | None:
    moneys = ex.active("money")
    cued = [m for m in moneys if any(c in _cue_text(m.cue) for c in cues)]
    pick = cued[0] if cued else (moneys[0] if moneys else None)
    return pick.value if pick else None


def _cities(ex: Extraction) -> tuple[str | None, str | None, str | None]:
    """(origin, destination, where-for-a-stay) by the words before each city."""
    origin = dest = stay = None
    uncued = []
    for m in ex.active("city"):
        last = m.cue[-1] if m.cue else ""
        if last == "from" and origin is None:
            origin = m.value
        elif last in ("to", "into") and dest is None:
            dest = m.value
        else:
            uncued.append(m)
        if last in ("in", "at", "near") and stay is None:
            stay = m.value
    if dest is None and uncued:
        dest = uncued.pop(0).value
    if origin is None and dest is not None and uncued:
        origin, dest = dest, uncued[0].value
    first = ex.active("city")
    return origin, dest, stay or (first[0].value if first else None)


def _put(action: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        action[key] = value


def _put_money(action: dict[str, Any], key: str, value: tuple[Any, str] | None) -> None:
    if value is not None:
        action[key] = value[0]
        action.setdefault("currency", value[1])


def _times(action: dict[str, Any], ex: Extraction, plain_key: str) -> None:
    for m in ex.active("time"):
        last = m.cue[-1] if m.cue else ""
        key = {"before": "depart_before", "after": "depart_after"}.get(last, plain_key)
        action.setdefault(key, m.value)


def _action(intent: str, text: str, ex: Extraction, choose: Chooser) -> dict[str, Any]:
    lower = text.lower()
    action: dict[str, Any] = {"intent": intent}
    ref = ex.first("ref")
    if intent in NEEDS_BOOKING:
        _put(action, "booking_ref", ref)
    change = intent == "change_booking"
    day = choose.pick("new day" if change else "day", _role_options(ex, "weekday", change))
    if intent == "book_flight":
        origin, dest, _ = _cities(ex)
        _put(action, "origin", origin)
        _put(action, "destination", dest)
        _put(action, "day", day)
        _put(action, "date", choose.pick("date", _role_options(ex, "date", False)))
        _put(action, "passengers", travellers(text))
        _put(action, "cabin", cabin(text))
        _put_money(action, "max_price", _money(ex, BUDGET_CUES))
        _times(action, ex, "time")
    elif intent == "book_hotel":
        _put(action, "city", _cities(ex)[2])
        _put(action, "day", day)
        check_in, check_out = _stay_dates(ex)
        if check_in and check_out:
            action.update(check_in=check_in, check_out=check_out)
            action["nights"] = (date_number(check_out) - date_number(check_in)) % 365
        else:
            _put(action, "date", choose.pick("date", _role_options(ex, "date", False)))
            _put(action, "nights", nights(text))
        _put(action, "guests", travellers(text))
        _put_money(action, "max_price", _money(ex, BUDGET_CUES))
    elif change:
        _put(action, "new_day", day)
        _put(action, "new_date", choose.pick("new date", _role_options(ex, "date", True)))
        _times(action, ex, "new_time")
        dest = next((m.value for m in ex.active("city") if m.cue[-1:] in (("to",), ("onto",))), None)
        _put(action, "destination", dest)
        _put_money(action, "max_price", _money(ex, BUDGET_CUES))
    elif intent == "cancel_booking":
        _put(action, "day", day)
        _put(action, "date", ex.first("date"))
    elif intent == "refund":
        _put_money(action, "amount", _money(ex, ()))
    elif intent == "refund_quote":
        moneys = ex.active("money")
        fee = next((m for m in moneys if any(c in _cue_text(m.cue) for c in FEE_CUES)), None)
        paid = next((m for m in moneys if m is not fee), None)
        _put_money(action, "paid", paid.value if paid else None)
        _put_money(action, "fee", fee.value if fee else None)
        if paid is not None and fee is not None:
            action["refund_amount"] = round(paid.value[0] - fee.value[0], 2)
    elif intent == "add_baggage":
        _put(action, "bags", bags(text))
        _put(action, "day", day)
    elif intent == "baggage_info":
        cab = cabin(text) or "economy"
        action.update(cabin=cab, reply=BAGGAGE_POLICY[cab])
    elif intent == "seat_upgrade":
        _put(action, "cabin", cabin(text))
        _put(action, "day", day)
        _put_money(action, "max_price", _money(ex, BUDGET_CUES))
    elif intent == "checkin_info":
        _checkin(action, ex, lower, day)
    elif intent == "loyalty_balance":
        _put(action, "member_id", ex.first("member"))
    elif intent == "redeem_points":
        _points(action, ex)
    elif intent == "send_invoice":
        _put(action, "email", ex.first("email"))
    return action


def _checkin(action: dict[str, Any], ex: Extraction, lower: str, day: Any) -> None:
    departure = ex.first("time")
    scope = "domestic" if "domestic" in lower else "international"
    _put(action, "time", departure)
    _put(action, "day", day)
    minutes = CHECKIN_CLOSES_MIN[scope]
    if departure is None:
        action["reply"] = f"Check-in for {scope} flights closes {minutes} minutes before departure."
        return
    hour, minute = (int(x) for x in departure.split(":"))
    total = (hour * 60 + minute - minutes) % (24 * 60)
    action["reply"] = (
        f"Check-in for {scope} flights closes {minutes} minutes before departure, "
        f"at {total // 60:02d}:{total % 60:02d}."
    )


def _points(action: dict[str, Any], ex: Extraction) -> None:
    balance = redeem = None
    numbers = ex.active("number")
    for m in numbers:
        cue = _cue_text(m.cue)
        if balance is None and any(w in cue for w in ("have", "balance", "got")):
            balance = m.value
        elif redeem is None and any(w in cue for w in ("use", "spend", "redeem")):
            redeem = m.value
    if balance is None and redeem is None and len(numbers) >= 2:
        balance, redeem = numbers[0].value, numbers[1].value
    _put(action, "balance", balance)
    _put(action, "redeem", redeem)
    if balance is not None and redeem is not None:
        action["remaining"] = balance - redeem


# --------------------------------------------------------------------------- parsing


def _clause(text: str, choose: Chooser, trace: list[str]) -> dict[str, Any]:
    ex = extract(text)
    trace.extend(ex.trace)
    scores, hits = score_intents(text, ex.first("ref") is not None)
    trace.append(f"cues in {text.strip()!r}: {', '.join(hits) or 'none'}")
    if not scores:
        trace.append("intent: no cue matched -> unknown")
        action: dict[str, Any] = {"intent": "unknown"}
        _put(action, "booking_ref", ex.first("ref"))
        return action
    intent = choose.pick("intent", list(scores.items()))
    if intent == "book":
        origin = any(m.cue[-1:] == ("from",) for m in ex.active("city"))
        intent = product(text, origin, nights(text) is not None)
        trace.append(f"booking product: {intent}")
    return _action(intent, text, ex, choose)


def _steps(prompt: str) -> list[str]:
    """Split an ordered multi-step request into its clauses (else one clause)."""
    parts = [p for p in _STEP_SPLIT.split(prompt) if p and p.strip(" ,.;:")]
    clauses = [_FIRST.sub("", p) for p in parts]
    with_intent = [c for c in clauses if max(score_intents(c, False)[0].values(), default=0) >= 2]
    return with_intent if len(with_intent) >= 2 else [prompt]


def parse(prompt: str, *, temperature: float = 0.0, seed: int = 0) -> Parse:
    """Decide the desk action for ``prompt``; deterministic for a given temperature and seed."""
    trace: list[str] = []
    choose = Chooser(max(0.0, temperature), random.Random(seed), trace)
    clauses = _steps(prompt)
    if len(clauses) == 1:
        return Parse(_clause(prompt, choose, trace), trace)
    trace.append(f"multi-step request: {len(clauses)} steps in the order given")
    steps: list[dict[str, Any]] = []
    for clause in clauses:
        step = _clause(clause, choose, trace)
        if steps and step["intent"] in NEEDS_BOOKING and "booking_ref" not in step:
            inherited = next((s["booking_ref"] for s in reversed(steps) if "booking_ref" in s), None)
            _put(step, "booking_ref", inherited)
        steps.append(step)
    return Parse({"intent": "multi_step", "steps": steps}, trace)


class TravelDeskAgent:
    """A callable agent: ``agent(prompt, request)`` returns an :class:`AgentResponse` whose
    ``output`` is the action dict and whose ``trace`` lists the parsing steps. A temperature
    given here is fixed; ``None`` takes ``request["temperature"]`` (default 0)."""

    def __init__(self, temperature: float | None = None) -> None:
        self.temperature = temperature

    def __call__(self, prompt: str, request: dict[str, Any] | None = None) -> AgentResponse:
        request = request or {}
        temperature = self.temperature
        if temperature is None:
            temperature = request.get("temperature") or 0.0
        seed = request.get("seed")
        result = parse(prompt, temperature=float(temperature), seed=0 if seed is None else seed)
        tools = request.get("tools")
        if isinstance(tools, ToolClient):  # a run with the suite's tool layer
            return AgentResponse(output=act(result.action, tools, result.trace), trace=result.trace)
        return AgentResponse(output=result.action, trace=result.trace)


def make_agent(temperature: float | None = None) -> TravelDeskAgent:
    """A fresh agent (factory for one trial). ``temperature`` given here overrides the
    request's; ``None`` uses ``request["temperature"]`` (default 0)."""
    return TravelDeskAgent(temperature)


def agent(prompt: str, request: dict[str, Any] | None = None) -> AgentResponse:
    """The agent at the request's temperature (``request["temperature"]``, default 0)."""
    return TravelDeskAgent()(prompt, request)


sampled_agent = TravelDeskAgent(temperature=0.7)
"""The agent pinned at temperature 0.7 (for a demo of flaky trials)."""
