"""After round twelve's unseen measurement (heldout10's labels): general causes of the
remaining unnatural self-corrections. A month or weekday is never a counted noun; a size made in
even steps (a clothing size, a round pack glued to its noun) is misstated as another even size;
a message about a death or a funeral gets no flippant correction phrase and is never put in the
texting register; a frequency, a phrase of a clause inside a question, or a beneficiary ("for six
adults") never opens a reordered sentence; an object with a past participle ("X altered") is
never requested as a thing; "need" becomes the formal "require" only outside a casual message.
Exact outputs on
prompts written for these tests (not held-out items)."""

from __future__ import annotations

import random
import re

import pytest

from perturb.generate.core import prepare, rng_for
from perturb.generate.perturbations import CLASSES
from perturb.generate.perturbations._context import SkipGeneration
from perturb.generate.perturbations._text import grave_message
from perturb.generate.perturbations._wrong import wrong_count
from tests.test_round10_self_correction_coverage import _task, _texts


def test_a_day_of_a_month_is_never_counted_as_months() -> None:
    task = _task("hi can i pause my gym plan from 1 august i hurt my knee")
    assert _texts(task, seeds=40) == {
        "hi can i pause my gym plan from 2, no, 1 august i hurt my knee",
        "hi can i pause my gym plan from 3, no, 1 august i hurt my knee",
    }


@pytest.mark.parametrize(
    ("value", "after", "before", "expected"),
    [
        # a clothing size comes in even steps: never "size 13" or "size 11"
        ("14", "?", "Do you have the blue coat in a size ", {"12", "16"}),
        # a round pack glued to its noun: never "an 11-class pass"
        ("10-class pass", " at your studio.", "I bought a ", {"8-class pass", "12-class pass"}),
        # an odd size keeps its neighbours ("size 9" shoes)
        ("9", " please.", "Have you got these boots in a size ", {"7", "8", "10", "11"}),
        # a count glued to its noun that is not a round even size keeps every neighbour
        ("3-page", " letter.", "I need a ", {"1-page", "2-page", "4-page", "5-page"}),
    ],
)
def test_sizes_made_in_even_steps_are_misstated_as_even_sizes(
    value: str, after: str, before: str, expected: set[str]
) -> None:
    found = {wrong_count(value, random.Random(seed), after=after, before=before) for seed in range(60)}
    assert found == expected


@pytest.mark.parametrize(
    ("text", "grave"),
    [
        ("My grandfather passed away on Sunday and the funeral is next week.", True),
        ("We'd like a woodland burial for my late aunt.", True),
        ("Can I book a table for four on Friday?", False),
        ("The deadline died on us, can you extend it?", True),
    ],
)
def test_a_grave_message_is_read_from_its_words(text: str, grave: bool) -> None:
    assert grave_message(text) is grave


def test_a_message_about_a_death_gets_no_flippant_correction() -> None:
    grave = _task(
        "My father passed away at home this morning. We would like the service on Thursday at the chapel."
    )
    assert _texts(grave, level=0.5, seeds=40) == {
        "My father passed away at home this morning. We would like the service on Friday — sorry, I meant "
        "Thursday at the chapel.",
        "My father passed away at home this morning. We would like the service on Friday, sorry, my mistake, "
        "I meant Thursday at the chapel.",
        "My father passed away at home this morning. We would like the service on Tuesday, sorry, my mistake, "
        "I meant Thursday at the chapel.",
        "My father passed away at home this morning. We would like the service on Tuesday... actually make "
        "that Thursday at the chapel.",
        "My father passed away at home this morning. We would like the service on Wednesday — sorry, I meant "
        "Thursday at the chapel.",
        "My father passed away at home this morning. We would like the service on Wednesday, sorry, my "
        "mistake, I meant Thursday at the chapel.",
    }
    # the same request without the death keeps the light phrasing
    light = _task("We would like the party on Thursday at the chapel.")
    assert "We would like the party on Friday, oops, that's wrong, I meant Thursday at the chapel." in _texts(
        light, level=0.5, seeds=40
    )


def _registers(prompt: str) -> list[tuple[str, str | None, str]]:
    task = _task(prompt)
    out = []
    for i in range(3):
        v = CLASSES.get("register").generate(
            prepare(task), 0.3, rng_for(0, task.id, "register", 0.3, i, 0), i
        )
        out.append((v.details["register"], v.details.get("instead_of"), v.text))
    return out


def test_a_message_about_a_death_is_never_texted() -> None:
    # the texting register ("Can u", "Thanks a bunch") is refused; another register instead
    assert _registers(
        "My grandmother passed away last week. Can you arrange a cremation for next Friday? We need a hearse as well."
    )[2] == (
        "casual_indian",
        "terse_us",
        "Hi team, my grandmother passed away last week. Can you kindly arrange a cremation for next Friday? "
        "We need a hearse as well. Waiting for your reply.",
    )
    # the same request about a party is texted
    assert _registers("Can you arrange a party for next Friday? We need a bouncy castle as well.")[2] == (
        "terse_us",
        None,
        "Can u arrange a party for next Friday? We need a bouncy castle as well.",
    )


def _first_variants(kind: str, prompt: str, levels: tuple[float, ...]) -> set[str]:
    """Every text ``kind`` gives as a task's first variant (index 0) over 12 seeds at ``levels``."""
    task = _task(prompt)
    out = set()
    for seed in range(12):
        for level in levels:
            try:
                v = CLASSES.get(kind).generate(
                    prepare(task), level, rng_for(seed, task.id, kind, level, 0, 0), 0
                )
            except SkipGeneration:
                continue
            out.add(v.text)
    return out


def _reorders(prompt: str) -> set[str]:
    return _first_variants("reorder", prompt, (0.1, 0.3, 0.5))


@pytest.mark.parametrize(
    "prompt",
    [
        # a frequency inside a clause of the question: never "Every day, how long should ..."
        "How long should a sourdough starter rest if it's fed every day?",
        # a count of people opens no order: never "For six adults, reserve a table ..."
        "Reserve a table by the window for Friday evening, for six adults.",
    ],
)
def test_a_phrase_that_would_attach_elsewhere_never_opens_the_sentence(prompt: str) -> None:
    assert _reorders(prompt) == set()


def test_a_place_or_time_of_the_question_itself_still_opens_it() -> None:
    assert _reorders("How much does a lesson cost in Leeds?") == {"In Leeds, how much does a lesson cost?"}
    assert _reorders("Can I bring a friend on Thursday?") == {"On Thursday, can I bring a friend?"}


def test_an_object_with_a_participle_is_never_requested_as_a_thing() -> None:
    # "I'd like X altered" wants work done: never "I would like to request a wedding dress
    # altered"; the formal register rewords the question instead
    assert _registers("I'd like a wedding dress altered, it's a size 12. How much would that cost?")[0] == (
        "formal_british",
        None,
        "I'd like a wedding dress altered, it's a size 12. Could you kindly tell me how much that would cost?",
    )
    # a thing asked for still takes the formal noun opener
    assert _registers("I'd like a refund for the broken kettle, please.")[0] == (
        "formal_british",
        None,
        "I would be grateful for a refund for the broken kettle, please.",
    )


def _paraphrases(prompt: str) -> set[str]:
    return _first_variants("paraphrase", prompt, (0.1, 0.3))


def test_need_becomes_require_only_outside_a_casual_message() -> None:
    # "I'm" marks the message casual: the formal "require" is out of its register
    assert _paraphrases("I'm moving flat on Saturday and need a van for the day. Is that possible?") == {
        "I'm moving flat on Saturday and need a van for the day. Can you tell me whether that is possible?",
        "I'm moving flat on Saturday and need a van for the day. Could you tell me whether that is possible?",
        "I'm moving flat on Saturday and need a van for the day. Do you know whether that is possible?",
        "I'm moving flat on Saturday and need a van for the day. I'd like to know whether that is possible.",
    }
    assert (
        "We are moving flat on Saturday and require a van for the day. Do you know whether that is possible?"
        in _paraphrases("We are moving flat on Saturday and need a van for the day. Is that possible?")
    )


def test_a_question_already_asked_to_be_told_gets_no_second_request() -> None:
    prompt = (
        "We are a small office in Leeds thinking about a water cooler. Do you lend them out free if we "
        "buy the bottles from you? What is the minimum contract length?"
    )
    task = _task(prompt)
    texts = set()
    for seed in range(30):
        for i in range(3):
            for level in (0.3, 0.5):
                v = CLASSES.get("register").generate(
                    prepare(task), level, rng_for(seed, task.id, "register", level, i, 0), i
                )
                texts.add(v.text)
    # never "Could you kindly let me know what X is? I would be grateful if you could let me
    # know." nor "Kindly let me know what X is. Please let me know."
    stacked = [t for t in texts if re.search(r"(?:let me know|tell me|inform me)\b.*\blet me know\.", t)]
    assert stacked == []
    assert (
        "Hello, we are a small office in Leeds thinking about a water cooler. Do you lend them out free if we "
        "buy the bottles from you? Could you kindly let me know what the minimum contract length is? Kind regards."
    ) in texts


def test_a_capability_question_in_a_run_on_stays_a_question() -> None:
    # the "my" of the next clause ("its my sons one") does not make the poster the user's job
    assert _paraphrases(
        "hi can you frame a poster its my sons one from school whats the price for a clip frame"
    ) == {
        "hello any chance you could frame a poster its my sons one from school whats the cost for a clip frame",
        "hello would you be able to frame a poster its my sons one from school whats the cost for a clip frame",
        "hi can you please frame a poster its my sons one from school whats the cost for a clip frame",
        "hi could you frame a poster its my sons one from school whats the cost for a clip frame",
        "hi could you please frame a poster its my sons one from school whats the cost for a clip frame",
        "hi please could you frame a poster its my sons one from school whats the cost for a clip frame",
        "hi would you please frame a poster its my sons one from school whats the cost for a clip frame",
    }
    # a job on something of the user's in the question itself is still asked for
    assert _paraphrases("Can you frame a photo of my dad?") == {"Please frame a photo of my dad."}


def test_an_object_with_a_participle_is_never_looked_for() -> None:
    framed = "I'd like a poster framed, it's 40 x 60 cm. Something in black, nothing too heavy. What would that cost roughly?"
    assert not [t for t in _paraphrases(framed) if "looking for" in t]
    # a thing asked for is still "looked for"
    assert (
        "I'm looking for a poster frame, it's 40 x 60 cm. Something in black, nothing too heavy. "
        "How much would that cost roughly?"
    ) in _paraphrases(framed.replace("poster framed", "poster frame"))
