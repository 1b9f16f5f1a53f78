"""Single-key terminal input for the interactive review (``termios``; no extra dependency).

The terminal is put in raw *input* mode -- no echo, no line buffering, no signals from keys
(Ctrl-C arrives as a byte and is turned into ``KeyboardInterrupt`` here) -- while output
processing stays on, so rich's ``\\n`` still starts a new line. The previous mode is restored
on exit and while ``$EDITOR`` runs.
"""

from __future__ import annotations

import contextlib
import os
import select
import termios
from collections.abc import Iterator
from typing import Any

from rich.console import Console


class Terminal:
    """Single-key input from a terminal in raw input mode (no echo, no line buffering, no
    signals from keys); output processing is left on so ``\\n`` still starts a new line."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._saved: list[Any] | None = None

    def __enter__(self) -> Terminal:
        self._saved = termios.tcgetattr(self.fd)
        self._raw()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._saved is not None:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)

    def _raw(self) -> None:
        mode = termios.tcgetattr(self.fd)
        mode[0] &= ~(termios.BRKINT | termios.ICRNL | termios.INPCK | termios.ISTRIP | termios.IXON)
        mode[3] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN | termios.ISIG)
        mode[6][termios.VMIN] = 1
        mode[6][termios.VTIME] = 0
        termios.tcsetattr(self.fd, termios.TCSADRAIN, mode)

    @contextlib.contextmanager
    def cooked(self) -> Iterator[None]:
        """The terminal as it was before the review (for running ``$EDITOR``)."""
        assert self._saved is not None
        termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
        try:
            yield
        finally:
            self._raw()

    def _byte(self) -> bytes:
        b = os.read(self.fd, 1)
        if not b:
            raise EOFError
        return b

    def read_key(self) -> str:
        """One key: a character, ``esc``, ``enter``, ``backspace`` or ``sequence`` (an arrow or
        other escape sequence, ignored by the review). Ctrl-C raises
        KeyboardInterrupt; end of input raises EOFError."""
        b = self._byte()
        if b == b"\x03":
            raise KeyboardInterrupt
        if b == b"\x04":
            raise EOFError
        if b in (b"\r", b"\n"):
            return "enter"
        if b in (b"\x7f", b"\x08"):
            return "backspace"
        if b == b"\x1b":
            # An escape sequence (arrow keys, Alt+key) arrives at once; a lone Esc does not.
            if not select.select([self.fd], [], [], 0.05)[0]:
                return "esc"
            nxt = self._byte()
            if nxt in (b"[", b"O"):
                while not (0x40 <= self._byte()[0] <= 0x7E):
                    pass
            return "sequence"
        lead = b[0]
        extra = 3 if lead >= 0xF0 else 2 if lead >= 0xE0 else 1 if lead >= 0xC0 else 0
        for _ in range(extra):
            b += self._byte()
        return b.decode("utf-8", errors="replace")

    def read_line(self, console: Console, prompt: str) -> str | None:
        """A one-line answer edited in place; None if cancelled with Esc."""
        console.print(prompt, end="", markup=False, highlight=False)
        chars: list[str] = []
        while True:
            key = self.read_key()
            if key == "enter":
                console.print()
                return "".join(chars)
            if key == "esc":
                console.print()
                return None
            if key == "backspace":
                if chars:
                    chars.pop()
                    console.file.write("\b \b")
                    console.file.flush()
                continue
            if len(key) == 1 and key.isprintable():
                chars.append(key)
                console.file.write(key)
                console.file.flush()
