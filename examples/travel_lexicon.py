"""Vocabulary of the example travel-desk agent: intent cues, cities, cabins, desk policy.

Everything the agent "knows" is in these tables, so its blind spots are visible here too:
an intent word that is not listed (a paraphrase verb such as "scrap", Indian English
"prepone", British "flat" or "fortnight", US "coach") is simply not understood.
"""

from __future__ import annotations

INTENT_ORDER: tuple[str, ...] = (
    "cancel_booking",
    "change_booking",
    "refund_quote",
    "refund",
    "seat_upgrade",
    "add_baggage",
    "baggage_info",
    "checkin_info",
    "redeem_points",
    "loyalty_balance",
    "send_invoice",
    "lookup_booking",
    "book",
)
"""All actions, in tie-break order (an exact tie goes to the earlier one)."""

INTENT_CUES: dict[str, dict[str, float]] = {
    "book": {
        "book": 2.0,
        "reserve": 2.0,
        "find me": 1.5,
        "get me": 1.5,
        "looking for": 1.5,
        "need a": 1.0,
        "need flights": 1.0,
        "i'd like a": 1.0,
        "i want a": 1.0,
        "fly": 1.0,
    },
    "cancel_booking": {
        "cancel": 3.0,
        "cancellation": 1.0,
        "cancelled": 1.0,
    },
    "change_booking": {
        "change": 2.0,
        "move": 2.5,
        "reschedule": 3.0,
        "rebook": 2.5,
        "switch": 2.0,
        "postpone": 3.0,
        "bring forward": 3.0,
        "push back": 2.0,
        "instead of": 1.0,
        "different date": 2.0,
    },
    "refund": {
        "refund": 3.0,
        "refunded": 2.0,
        "return": 1.5,
        "money back": 3.5,
        "reimburse": 3.0,
        "reimbursement": 3.0,
        "charged twice": 2.5,
        "double charged": 2.5,
    },
    "refund_quote": {
        "how much do i get back": 5.0,
        "how much would i get back": 5.0,
        "how much will i get back": 5.0,
        "how much will i get": 3.0,
        "get back": 2.0,
    },
    "lookup_booking": {
        "status": 2.5,
        "look up": 2.5,
        "confirmed": 2.0,
        "confirmation": 1.0,
        "details": 1.5,
        "check on": 1.5,
        "which terminal": 1.5,
        "departure time": 1.0,
    },
    "add_baggage": {
        "bag": 2.0,
        "bags": 2.0,
        "suitcase": 2.5,
        "luggage": 2.0,
        "baggage": 1.5,
        "add": 1.0,
        "checked": 0.5,
    },
    "baggage_info": {
        "allowance": 3.5,
        "how many bags": 3.0,
        "how much luggage": 3.0,
        "baggage": 1.0,
    },
    "seat_upgrade": {
        "upgrade": 3.5,
        "better seat": 2.5,
    },
    "checkin_info": {
        "check in close": 3.5,
        "check in closes": 3.5,
        "when does check in": 3.0,
        "check in desk": 2.0,
        "what time": 1.0,
    },
    "loyalty_balance": {
        "points balance": 3.0,
        "how many points": 2.5,
        "loyalty": 2.0,
        "points": 1.5,
        "miles": 1.5,
        "balance": 1.5,
        "membership": 1.0,
        "member number": 1.0,
    },
    "redeem_points": {
        "redeem": 3.0,
        "have left": 2.5,
        "will i have left": 1.5,
        "spend": 1.0,
    },
    "send_invoice": {
        "invoice": 3.5,
        "receipt": 3.0,
        "vat": 1.5,
        "email": 0.5,
        "send": 0.5,
    },
}
"""Action -> {phrase: weight}. A phrase counts once if its words occur in sequence."""

FLIGHT_NOUNS: frozenset[str] = frozenset(
    {"flight", "flights", "fly", "flying", "plane", "airline", "seats", "economy", "depart"}
)
HOTEL_NOUNS: frozenset[str] = frozenset(
    {
        "hotel",
        "room",
        "rooms",
        "stay",
        "night",
        "nights",
        "accommodation",
        "apartment",
        "hostel",
        "guests",
        "occupancy",
        "checking",
    }
)
PRODUCT_BONUS = 1.0
"""Added to ``book`` when a flight or hotel noun is mentioned."""
EXISTING_BOOKING_PENALTY = 1.5
"""Subtracted from ``book`` when the request names an existing booking reference."""

TYPO_MIN_LENGTH = 5
"""Edit-distance fallback: keywords at least this long also match a word one edit away."""
TYPO_WEIGHT = 0.8
"""...at this share of their weight."""

CITIES: tuple[str, ...] = (
    "London",
    "Manchester",
    "Edinburgh",
    "Glasgow",
    "Dublin",
    "Paris",
    "Rome",
    "Madrid",
    "Barcelona",
    "Lisbon",
    "Amsterdam",
    "Berlin",
    "Munich",
    "Vienna",
    "Prague",
    "Zurich",
    "Geneva",
    "Athens",
    "Istanbul",
    "Dubai",
    "Doha",
    "Delhi",
    "New Delhi",
    "Mumbai",
    "Bengaluru",
    "Chennai",
    "Kolkata",
    "Hyderabad",
    "Goa",
    "Singapore",
    "Bangkok",
    "Tokyo",
    "Hong Kong",
    "Sydney",
    "Melbourne",
    "New York",
    "Boston",
    "Chicago",
    "San Francisco",
    "Los Angeles",
    "Toronto",
    "Vancouver",
    "Cape Town",
    "Nairobi",
)

WEEKDAYS: tuple[str, ...] = (
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
)
MONTHS: tuple[str, ...] = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
MONTH_DAYS: tuple[int, ...] = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)

NUMBER_WORDS: dict[str, int] = {
    "a": 1,
    "an": 1,
    "one": 1,
    "single": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}

COMPANIONS: tuple[str, ...] = (
    "wife",
    "husband",
    "partner",
    "colleague",
    "friend",
    "son",
    "daughter",
    "mum",
    "mom",
    "dad",
    "boss",
    "brother",
    "sister",
)
""""me and my X" counts two travellers."""

CURRENCY_SYMBOLS: dict[str, str] = {"£": "GBP", "$": "USD", "€": "EUR", "₹": "INR"}
CURRENCY_WORDS: dict[str, str] = {
    "gbp": "GBP",
    "pounds": "GBP",
    "usd": "USD",
    "dollars": "USD",
    "eur": "EUR",
    "euros": "EUR",
    "inr": "INR",
    "rupees": "INR",
}

BUDGET_CUES: tuple[str, ...] = (
    "under",
    "below",
    "max",
    "maximum",
    "budget",
    "up to",
    "no more than",
    "at most",
    "less than",
    "cap",
    "within",
)
FEE_CUES: tuple[str, ...] = ("fee", "charge", "penalty")

CABINS: tuple[tuple[str, str], ...] = (
    ("premium economy", "premium_economy"),
    ("business class", "business"),
    ("first class", "first"),
    ("economy", "economy"),
)
"""Cabin phrases, longest first, and the value the agent reports."""

BAGGAGE_POLICY: dict[str, str] = {
    "economy": "Economy includes 1 checked bag of 23 kg.",
    "premium_economy": "Premium economy includes 2 checked bags of 23 kg each.",
    "business": "Business includes 2 checked bags of 32 kg each.",
    "first": "First includes 3 checked bags of 32 kg each.",
}
CHECKIN_CLOSES_MIN: dict[str, int] = {"international": 60, "domestic": 45}
