"""Untrusted text made inert for a terminal or a one-line message: the one owner of that rule.

Prompts, agent outputs, trial and manifest fields and values read from damaged files can hold
control characters: ``ESC [ 2 J`` clears a terminal, ``ESC ] 0 ; ... BEL`` retitles it, a
newline splits a one-line error in two. :func:`printable` shows every non-printable character
as its Python escape (``\\x1b``, ``\\n``, ``\\u2028``) and leaves everything else alone.
Each output format escapes for its own syntax on top of this (Markdown in
:mod:`perturb.report.formats.markdown`, HTML and XML with their escapers).
"""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` with control and other non-printable characters escaped (``\\x1b``, ``\\n``,
    ``\\x07``, ``\\u2028``); printable text, non-ASCII included, is unchanged."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
