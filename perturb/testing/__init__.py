"""Helpers for testing an agent with perturb, offline and on 127.0.0.1 only (docs/testing.md).

* :class:`FakeOpenAIServer`, :class:`Reply` (:mod:`perturb.testing.chat`): a threaded
  chat-completions server that answers scripted replies and records every request, for an agent
  (or an ``openai:`` model adapter, or the LLM judge) to talk to without a network or a key;
  :func:`completion_body`, the response body it sends.
* :func:`make_suite`, :func:`read_trials` (:mod:`perturb.testing.suite`): a frozen suite built on
  disk from tasks and variant texts (every variant accepted, frozen by the real ``perturb
  freeze``), and the lines of a run's ``trials.jsonl``.
* :mod:`perturb.testing.agents` (deterministic Python agents) and :mod:`perturb.testing.tools`
  (an item-store tool suite with its ``tools.toml``), for executor and fault-injection tests.
* :mod:`perturb.testing.browser`: headless Chromium driving for the HTML report's browser test
  and the docs' screenshot script.

perturb's own tests and benchmarks use these; neither imports the other.
"""

from __future__ import annotations

from perturb.testing.chat import FakeOpenAIServer, Reply, completion_body
from perturb.testing.suite import make_suite, read_trials

__all__ = ["FakeOpenAIServer", "Reply", "completion_body", "make_suite", "read_trials"]
