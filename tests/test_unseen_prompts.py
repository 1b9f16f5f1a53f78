"""Regression tests for issue #14: the rules generator on prompts it has never seen.

Each test pins one of the failure patterns found on held-out user requests (voice one-liners,
chat messages with back-references, lower-case messages, questions). The prompts here are
written for these tests; none comes from the held-out set.
"""

from __future__ import annotations

import difflib
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.generate.core import rng_for
from perturb.generate.perturbations import (
    CLASSES,
    SkipGeneration,
    measure_epsilon,
    prepare,
    reorder,
    self_correction,
    typo,
)
from perturb.generate.perturbations._text import _match_blocks, _opcodes, word_change_share, words
from perturb.generate.perturbations._wrong import wrong_value
from perturb.records import Candidate, Task

runner = CliRunner()


def task(prompt: str, slots: dict[str, str] | None = None, tid: str = "t") -> Task:
    return Task(id=tid, prompt=prompt, expected="ok", grader="exact", slots=slots or {})  # type: ignore[arg-type]


def keyed(t: Task, cls: str, level: float, seed: int = 0, index: int = 0) -> Any:
    return CLASSES.get(cls).generate(prepare(t), level, rng_for(seed, t.id, cls, level, index, 0), index)


def texts(t: Task, cls: str, levels: tuple[float, ...] = (0.1, 0.3, 0.5), seeds: int = 8) -> list[str]:
    out = []
    for seed in range(seeds):
        for level in levels:
            for index in (0, 1):
                try:
                    out.append(keyed(t, cls, level, seed, index).text)
                except SkipGeneration:
                    continue
    return out


def write_suite(root: Path, rows: list[dict[str, Any]], name: str = "bank") -> Path:
    (root / "tasks").mkdir(parents=True, exist_ok=True)
    path = root / "tasks" / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


def read_candidates(path: Path) -> list[Candidate]:
    return [Candidate.model_validate_json(line) for line in path.read_text().splitlines()]


# --------------------------------------------------------------------------- generate summary / sweep


def test_summary_line_names_every_requested_class_with_zeros(tmp_path: Path) -> None:
    # one-word prompts: reorder has nothing to move, so it has 0 candidates -- and says so
    rows = [
        {"id": f"b{i}", "prompt": p, "expected": "ok", "grader": "exact"}
        for i, p in enumerate(["Balance", "Help"])
    ]
    path = write_suite(tmp_path, rows)
    result = runner.invoke(app, ["generate", str(path), "--classes", "reorder,typo", "--per-class", "1"])
    assert result.exit_code == 0, result.stderr
    counts = result.stdout.splitlines()[1].split()
    assert counts == ["reorder", "0", "typo", "2"], result.stdout


def test_sweep_gives_each_level_what_a_run_at_that_level_gives(tmp_path: Path) -> None:
    rows = [
        {"id": "r1", "prompt": "Book a table for 4 at 7pm on Friday", "expected": "ok", "grader": "exact"},
        {
            "id": "r2",
            "prompt": "My card hasn't arrived. I ordered it on Monday. Please send a new one to my work address.",
            "expected": "ok",
            "grader": "exact",
        },
    ]
    path = write_suite(tmp_path, rows)
    sweep = tmp_path / "sweep"
    args = ["generate", str(path), "--classes", "reorder", "--per-class", "2", "--review-dir"]
    assert runner.invoke(app, [*args, str(sweep), "--intensity", "0.1,0.3,0.5"]).exit_code == 0
    swept = read_candidates(sweep / "bank" / "candidates.jsonl")
    for level in (0.1, 0.3, 0.5):
        alone = tmp_path / f"alone-{level}"
        assert runner.invoke(app, [*args, str(alone), "--intensity", str(level)]).exit_code == 0
        single = read_candidates(alone / "bank" / "candidates.jsonl")
        at_level = [c for c in swept if c.level == level]
        assert len(at_level) == len(single) > 0, level
        assert sorted(c.text for c in at_level) == sorted(c.text for c in single)
    # the same text at two levels is two candidates with two ids
    assert len({c.id for c in swept}) == len(swept)


# --------------------------------------------------------------------------- self_correction


def test_multi_word_slot_is_corrected_through_a_value_inside_it() -> None:
    t = task(
        "Move my dentist appointment to Thursday next week, I'm away until then.",
        {"when": "Thursday next week"},
    )
    for seed in range(10):
        v = keyed(t, "self_correction", 0.3, seed)
        c = v.details["corrections"][0]
        assert c["slot"] == "when" and c["final"] == "Thursday next week"
        # before: the declared slot hid the weekday inside it, so nothing was correctable
        assert re.fullmatch(
            r"(?:Mon|Tues|Wednes|Fri|Satur|Sun)day next week|Thursday this week", c["wrong"]
        ), c
        assert v.text.index(c["wrong"]) < v.text.rindex("Thursday next week")
    place = task("Ship it to Toronto, Ontario by Friday.", {"city": "Toronto, Ontario", "day": "Friday"})
    labels = [label for label, _ in self_correction.correctable(prepare(place))]
    assert labels == ["city", "day"]


def test_currencies_codes_names_and_relative_dates_are_correctable() -> None:
    rng = random.Random(0)
    # another amount in the same currency; never the same amount in another one ("£45, no,
    # €45" in a message about a euro payment reads as invented)
    seen = {wrong_value("€45", "money", random.Random(s)) for s in range(40)}
    assert seen == {"€35", "€40", "€50", "€55"}
    assert wrong_value("LHR", "slot", rng) in ("LGW", "STN", "LTN")
    # a first name mixed up with one that sounds alike, the surname kept; none sounds like Priya
    assert {wrong_value("Maria Lopez", "slot", random.Random(s)) for s in range(20)} == {"Marta Lopez"}
    assert wrong_value("Priya Nair", "slot", random.Random(1)) is None
    assert wrong_value("next week", "slot", rng) == "this week"
    assert wrong_value("this weekend", "slot", rng) == "next weekend"


def test_wrong_values_keep_their_form() -> None:
    for seed in range(30):
        rng = random.Random(seed)
        ordinal = wrong_value("the 22nd", "date", rng)
        assert ordinal is not None and re.fullmatch(r"the (\d+)(st|nd|rd|th)", ordinal)
        n = int(re.findall(r"\d+", ordinal)[0])
        suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        assert ordinal.endswith(suffix), ordinal  # never "the 24nd"
        zipcode = wrong_value("90210", "number", rng)
        assert zipcode is not None and len(zipcode) == 5 and zipcode.isdigit() and zipcode != "90210"
        year = wrong_value("2019", "number", rng)
        assert year is not None and abs(int(year) - 2019) <= 3
    assert wrong_value("401k", "slot", random.Random(0)) is None  # a name, not a count
    assert wrong_value("4B", "slot", random.Random(0)) is None


def test_self_correction_reads_as_a_person_correcting_themselves() -> None:
    assert "correction" not in self_correction.PHRASINGS  # "(correction: X)" was an editor's note
    t = task("I need 2 tickets for Saturday at 8pm.", {"qty": "2", "day": "Saturday", "time": "8pm"})
    for seed in range(20):
        assert "(correction" not in keyed(t, "self_correction", 0.5, seed).text


def test_self_correction_epsilon_rises_with_the_level_and_sits_near_it() -> None:
    prompts = [
        task(
            "Book me a table for 4 at 7pm on Friday at Luigi's.", {"n": "4", "t": "7pm", "d": "Friday"}, "a"
        ),
        task(
            "Hi, please move my delivery from Tuesday to Thursday. The order number is 48213 and it's "
            "a fridge, so someone has to be home. Can the driver call me 30 minutes before?",
            {"from": "Tuesday", "to": "Thursday", "order": "48213", "mins": "30 minutes"},
            "b",
        ),
        task("transfer £250 to my savings account tomorrow", {"amount": "£250", "when": "tomorrow"}, "c"),
    ]
    means = {}
    for level in (0.1, 0.3, 0.5):
        eps = [
            measure_epsilon(t, "self_correction", keyed(t, "self_correction", level, seed).text)
            for t in prompts
            for seed in range(6)
        ]
        means[level] = sum(eps) / len(eps)
    assert means[0.1] < means[0.3] < means[0.5], means
    assert abs(means[0.1] - 0.1) < 0.12 and abs(means[0.3] - 0.3) < 0.1, means


# --------------------------------------------------------------------------- reorder


def test_reorder_moves_modifier_phrases_inside_one_sentence() -> None:
    t = task("book a table on 1/20/2023 for 5 people in Leeds", {"date": "1/20/2023", "n": "5 people"})
    got = set(texts(t, "reorder"))
    assert got, "a one-sentence request with three modifier phrases must reorder"
    for text in got:
        # each phrase moves whole; the head stays first in a lower-case message
        assert text.startswith("book a table"), text
        for phrase in ("on 1/20/2023", "for 5 people", "in Leeds"):
            assert phrase in text, text
    assert (
        "book a table for 5 people on 1/20/2023 in Leeds" in got
        or "book a table in Leeds on 1/20/2023 for 5 people" in got
    )


def test_reorder_keeps_from_to_and_between_whole_and_fronts_only_time() -> None:
    t = task(
        "Send a courier from Leeds to York between 2 and 4 pm on Friday",
        {"from": "Leeds", "to": "York", "day": "Friday"},
    )
    for text in texts(t, "reorder"):
        assert "from Leeds to York" in text and "between 2 and 4 pm" in text, text
        if not text.startswith("Send"):
            assert text.startswith("On Friday, send"), text


def test_reorder_never_moves_a_back_reference_before_its_referent() -> None:
    t = task("My new card still hasn't arrived. Is it lost? I need to pay rent on Monday.", {"day": "Monday"})
    for text in texts(t, "reorder", seeds=12):
        assert text.index("My new card") < text.index("Is it lost?"), text
    glued = task("I returned the blender last week. When will the refund for it arrive? Order 5521.")
    for text in texts(glued, "reorder", seeds=12):
        assert text.index("blender") < text.index("for it"), text


def test_reorder_epsilon_is_word_weighted_and_follows_the_level() -> None:
    # moving a two-word phrase past another in an eleven-word request is a small change
    t = task("Please book a table at Luigi's for 4 people at 7pm on Friday", {"d": "Friday"})
    ctx = prepare(t)
    low = [measure_epsilon(t, "reorder", keyed(t, "reorder", 0.1, s).text) for s in range(6)]
    high = [measure_epsilon(t, "reorder", keyed(t, "reorder", 0.5, s).text) for s in range(6)]
    assert max(low) <= 0.25 and sum(high) / 6 > sum(low) / 6, (low, high)
    # weighted Kendall by hand: segments of 2 and 3 words swapped -> 6 of C(5,2)=10 pairs
    assert reorder.weighted_kendall([1, 0], [2, 3]) == pytest.approx(6 / 10)
    assert ctx.prompt == t.prompt


def test_a_single_number_followed_by_a_stop_is_not_a_numbered_list() -> None:
    assert reorder.order_carries_meaning("Leave it at number 7. Could you also ring the bell?") is None
    assert (
        reorder.order_carries_meaning("1. Cancel the order 2. Refund me")
        == "order carries meaning (numbered steps)"
    )


# --------------------------------------------------------------------------- paraphrase


def test_paraphrase_reaches_voice_one_liners_and_keeps_their_style() -> None:
    t = task("set an alarm for 6:30 tomorrow", {"time": "6:30", "day": "tomorrow"})
    got = texts(t, "paraphrase")
    assert got
    for text in got:
        assert text[0].islower() or re.match(r"I\b", text), text  # a lower-case message stays so
        assert not text.endswith((".", "?")), text


def test_paraphrase_keeps_the_question_word_and_leaves_statements_alone() -> None:
    q = task("What's the cut-off time for same-day transfers?")
    for text in texts(q, "paraphrase"):
        if "tell me" in text or "know" in text:
            assert "what the cut-off time for same-day transfers is" in text, text
    s = task("My account number is 55120981. Why was I charged twice?", {"acct": "55120981"})
    for text in texts(s, "paraphrase"):
        assert not re.search(r"(?:you|to) account number is", text, re.I), text  # no "Can you account ..."


def test_paraphrase_word_swaps_do_not_repeat_a_nearby_word() -> None:
    t = task("Is there anything cheap or fairly inexpensive near the station?")
    for text in texts(t, "paraphrase"):
        assert "cheap or fairly cheap" not in text and "inexpensive or fairly inexpensive" not in text


def test_paraphrase_asks_wh_and_yes_no_questions_indirectly() -> None:
    cases = {
        "What forms do I need to open a joint account?": "what forms I need to open a joint account",
        "Do we need an appointment to renew a passport?": "whether we need an appointment to renew a passport",
        "Can I pay the fee by card?": "whether I can pay the fee by card",
        "Do you deliver to Galway?": "whether you deliver to Galway",
        "How long does it normally take?": "how long it normally takes",
        "When does the spring term start in Leeds?": "when the spring term starts in Leeds",
    }
    for prompt, clause in cases.items():
        got = texts(task(prompt), "paraphrase")
        # "Can I X?" may also be asked as "Is it possible to X?" (round seven)
        got = [t for t in got if not t.startswith(("Is it possible to", "Would it be possible to"))]
        assert got and all(clause in t for t in got), (prompt, got)
    assert not any(
        "Do you know whether you" in t for t in texts(task("Do you deliver to Galway?"), "paraphrase")
    )
    # an unpunctuated run-on with a second subject is left alone
    run_on = task("do you sell paint i need 3 tins by friday", {"qty": "3 tins", "day": "friday"})
    assert not any("whether" in t for t in texts(run_on, "paraphrase"))
    # a yes/no request to the agent ("Can you X?") is not an indirect question
    assert not any(
        "whether you can" in t for t in texts(task("Can you move my class to Friday?"), "paraphrase")
    )


def test_paraphrase_reaches_imperatives_beyond_the_booking_verbs() -> None:
    for prompt in ("Invite Sam to the team chat", "Hire a cleaner for Saturday", "Print my boarding pass"):
        got = texts(task(prompt), "paraphrase")
        assert got, prompt
        verb = prompt.split()[0].lower()
        assert all(re.search(rf"\b{verb}\b", t) for t in got), got


def test_paraphrase_word_swaps_fit_the_context() -> None:
    leave = task("I want to take annual leave from July 7 to July 18", {"a": "July 7", "b": "July 18"})
    assert not any("depart" in t for t in texts(leave, "paraphrase"))
    house = task("Find a house in Austin under $450,000", {"city": "Austin", "budget": "$450,000"})
    assert not any("less than" in t for t in texts(house, "paraphrase"))


# --------------------------------------------------------------------------- register


def test_register_fits_lower_case_and_voice_messages() -> None:
    low = task("can you block my card i lost it")
    for text in texts(low, "register"):
        # a formal register writes the text message out as full sentences (round three); it
        # never puts a formal opener on the lower-case run-on itself
        if text.startswith(("Would you be so kind", "I would be grateful", "Dear")):
            assert "block my card? I lost it." in text or "block my card. I lost it." in text, text
        else:
            assert "my card i lost it" in text or "my card. I lost it" in text or "card? I lost it" in text, (
                text
            )
    voice = task("Turn the heating up to 21 degrees", {"temp": "21 degrees"})
    for text in texts(voice, "register"):
        assert not re.match(r"(?:Hi|Hello|Hey|Yo|Dear|Good)\b", text), text
        assert not re.search(r"(?:Thx|Thanks|regards|TIA|Appreciate it)\W*$", text), text


def test_register_never_wraps_a_noun_opener_round_an_infinitive() -> None:
    t = task("I want the heating to come on at 6 every morning.")
    for text in texts(t, "register"):
        assert not text.startswith(("Gimme", "I should be grateful for", "I would be grateful for")), text


def test_register_has_no_archaic_should_and_no_greeting_before_a_dropped_subject() -> None:
    got = []
    for prompt in (
        "Book a call with Ms. Alvarez for Monday at 3 pm",
        "Hello, I'd like a quote for a new roof.",
    ):
        for tid in ("law-005", "a", "b", "c"):
            got += texts(task(prompt, tid=tid), "register")
    for text in got:
        assert "I should be grateful" not in text, text
        assert not re.match(r"(?:Hi|Hello|Hey|Yo)\b[^.?!]*?, (?:need|want|pls|need u)\b", text, re.I), text
    assert any(t.startswith(("Need a quote", "Want a quote")) for t in got)  # terse: greeting dropped


def test_acronyms_swapped_for_words_keep_the_words_case() -> None:
    from perturb.generate.perturbations._text import match_case

    assert match_case("ATM", "cash machine") == "cash machine"
    assert match_case("ASAP", "asap") == "ASAP"
    assert match_case("PLEASE", "kindly") == "KINDLY"


# --------------------------------------------------------------------------- typo


def test_typos_never_make_another_real_word_and_stay_sparse() -> None:
    assert typo.real_word("got") and typo.real_word("form") and not typo.real_word("bokk")
    t = task(
        "I did not authorise this payment and I do not know the merchant at all, please stop it now "
        "and tell me how to get the money back from them"
    )
    n = len(words(t.prompt))
    for seed in range(20):
        v = keyed(t, "typo", 0.5, seed)
        for edit in v.details["edits"]:
            assert not typo.real_word(edit["new"]), edit  # "not" -> "got" flips the meaning
        assert len(v.details["edits"]) <= -(-n // typo.MAX_DENSITY)


# --------------------------------------------------------------------------- alignment is linear


def test_word_alignment_matches_difflib_on_short_texts() -> None:
    rng = random.Random(3)
    for _ in range(200):
        a = [rng.choice("abcdefg") for _ in range(rng.randint(0, 40))]
        b = list(a)
        for _ in range(rng.randint(0, 6)):
            if b and rng.random() < 0.4:
                b.pop(rng.randrange(len(b)))
            else:
                b.insert(rng.randint(0, len(b)), rng.choice("abxyz"))
        ref = difflib.SequenceMatcher(None, a, b, autojunk=False)
        assert [tuple(m) for m in _match_blocks(a, b)] == [tuple(m) for m in ref.get_matching_blocks()]
        assert _opcodes(a, b) == ref.get_opcodes()


def test_word_alignment_of_a_long_text_counts_local_edits_exactly() -> None:
    # 6,000 tokens from a 12-word vocabulary (no unique anchors): difflib's quadratic case
    rng = random.Random(5)
    vocab = "the card was charged twice so please refund one of my payments".split()
    a = [rng.choice(vocab) for _ in range(6000)]
    b = list(a)
    for pos in (100, 2000, 4000, 5900):  # four one-word replacements far apart
        b[pos] = "XXX"
    assert word_change_share(a, b) == pytest.approx(4 / 6000)
    c = a[:3000] + ["new", "words", "here"] + a[3000:]
    assert word_change_share(a, c) == pytest.approx(3 / 6003)


def test_paraphrase_does_not_turn_a_stated_purpose_into_a_request() -> None:
    t = task("I need some cash to feel comfortable on the trip. Can I raise my ATM limit?")
    for text in texts(t, "paraphrase"):
        assert not re.search(r"(?:Can|Could) I (?:get|have|please have) some cash", text), text


def test_a_swap_whose_target_is_inside_the_matched_phrase_still_applies() -> None:
    # "I need" -> "need": the target is part of the phrase itself, not a nearby repetition
    t = task("I need to cancel my gym membership from next month.", {"when": "next month"})
    terse = [v for v in texts(t, "register") if v.startswith(("Need to", "need to"))]
    assert terse, texts(t, "register")


def test_register_opener_fits_the_level() -> None:
    prompts = [
        task("Book a table for 2 at 7pm on Friday", {"t": "7pm", "d": "Friday"}, tid="r1"),
        task("Cancel my gym membership from next month", tid="r2"),
        task("Renew my parking permit for Zone B", {"z": "Zone B"}, tid="r3"),
        task("Send the invoice to my work address, please.", tid="r4"),
    ]
    means = {}
    for level in (0.1, 0.5):
        eps = []
        for t in prompts:
            for seed in range(6):
                for index in (0, 1):
                    try:
                        v = keyed(t, "register", level, seed, index)
                    except SkipGeneration:
                        continue
                    eps.append(measure_epsilon(t, "register", v.text))
        assert len(eps) >= 20
        means[level] = sum(eps) / len(eps)
    # a low level takes the short openers ("Pls", "Kindly"), a high one the long ones
    assert means[0.1] + 0.1 < means[0.5], means


def test_register_rewords_can_someone_and_dropped_subjects() -> None:
    got = []
    for tid in ("s1", "s2", "s3", "s4"):
        got += texts(task("My payslip is wrong this month. Can someone check it?", tid=tid), "register")
    assert any("check it" in t and "someone" not in t for t in got), got
    assert not any(re.search(r"(?:^|\. )Check it\.", t) for t in got), got
    low = []
    for tid in ("d1", "d2", "d3", "d4"):
        low += texts(task("need to change my address before friday", {"day": "friday"}, tid=tid), "register")
    assert "gotta change my address before friday" in low, low


def test_paraphrase_adds_no_second_for() -> None:
    call = task(
        "Book a call with Ms. Alvarez for Monday at 3 pm", {"n": "Ms. Alvarez", "d": "Monday", "t": "3 pm"}
    )
    assert not any(text.endswith("for me") for text in texts(call, "paraphrase"))
    timer = task("Set a timer for 45 seconds", {"d": "45 seconds"})
    assert not any("for me" in text for text in texts(timer, "paraphrase"))
    plumber = task("Find a plumber near Camden", {"p": "Camden"})
    assert any(text.endswith("near Camden for me") for text in texts(plumber, "paraphrase"))


def test_issue_examples_of_context_blind_swaps_never_come_back() -> None:
    """The swaps issue #14 found on unseen prompts: "try booking a table" -> "try reservation a
    table", "get a bus" -> "obtain a bus", "going to Disney Land" -> "gonna Disney Land"."""
    booking = task("Can you try booking a table at Nopa for 4 on Friday?", {"p": "Nopa", "d": "Friday"})
    bus = task("I need to get a bus to the airport tomorrow morning", {"d": "tomorrow morning"})
    disney = task("We're going to Disney Land next month with the kids", {"p": "Disney Land"})
    seen = []
    for t in (booking, bus, disney):
        for tid in ("x1", "x2", "x3"):
            for cls in ("paraphrase", "register"):
                seen += texts(task(t.prompt, dict(t.slots), tid=tid), cls)
    assert seen
    for text in seen:
        assert "reservation a table" not in text, text
        assert "obtain a bus" not in text, text
        assert not re.search(r"gonna\s+Disney", text), text
