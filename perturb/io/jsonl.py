"""JSONL and file I/O with ``FILE:LINE`` errors, atomic writes and durable appends.

* :func:`read_jsonl` yields ``(line_number, object)`` and raises :class:`InputError` naming
  the file and line for bad UTF-8, bad JSON, a non-object line or a truncated last line. The
  lines are read by :class:`jsonlines.Reader` and written by :class:`jsonlines.Writer`; the
  strict parser (:func:`loads_strict`: duplicate keys, non-finite numbers, huge integers, deep
  nesting, byte-order marks) and the messages are perturb's own.
* :func:`write_atomic` writes a whole file through a temp file in the same directory,
  fsyncs it and renames it over the target, so a reader (or a crash) sees the old or
  the new content, never half of it.
* :class:`Appender` appends one line at a time and makes each line durable before returning,
  the mechanism behind resumable runs and review journals.
"""

from __future__ import annotations

import contextlib
import io
import json
import json.encoder as json_encoder
import math
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args, get_origin

import jsonlines
from pydantic import BaseModel, ValidationError

from perturb.errors import InputError, OutputError
from perturb.io.inert import printable

M = TypeVar("M", bound=BaseModel)


def dumps_line(obj: Any) -> str:
    """One compact JSON line (UTF-8 text as itself, no trailing newline)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """Read a whole regular file, turning OS errors into a one-line :class:`InputError`."""
    with open_regular(path) as fh:
        try:
            return fh.read()
        except OSError as exc:
            raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from None


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def open_regular(path: str | os.PathLike[str]) -> Any:
    """Open ``path`` for binary reading, refusing FIFOs, devices and directories (which would
    block or never end) with a one-line :class:`InputError`."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise InputError(str(path), "no such file (expected an existing file; check the path)") from None
    except IsADirectoryError:
        raise InputError(str(path), "is a directory (expected a file)") from None
    except OSError as exc:
        raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise InputError(str(path), f"is {_kind(mode)}, not a regular file (expected a file)")
    return os.fdopen(fd, "rb")


def read_json(path: str | os.PathLike[str]) -> Any:
    """Read one JSON document with a ``FILE:LINE`` error for malformed content."""
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(str(path), "not valid UTF-8 (expected UTF-8 JSON)", line=line) from None
    return loads_strict(text, str(path))


_SKIPPED_BY_JSONLINES = (b"\xef\xbb\xbf", b"\x1e")


class _Lines:
    """The raw lines of a file, handed to a :class:`jsonlines.Reader` one at a time; remembers
    which line the reader is on (the reader returns values, not line numbers)."""

    def __init__(self, raw_lines: list[bytes]) -> None:
        self.raw_lines = raw_lines
        self.number = 0

    def __iter__(self) -> Iterator[bytes]:
        for number, raw in enumerate(self.raw_lines, start=1):
            self.number = number
            yield raw

    def loads(self, text: str | bytes) -> Any:
        """The strict parser, on the line as written: jsonlines drops one leading byte-order
        mark or RFC 7464 record separator, which perturb refuses like any other stray byte."""
        raw = self.raw_lines[self.number - 1]
        if raw.startswith(_SKIPPED_BY_JSONLINES):
            text = raw.decode("utf-8")  # it decoded already, or jsonlines would not call us
        return _parse(text if isinstance(text, str) else text.decode("utf-8"))


def iter_jsonl_lines(
    path: str | os.PathLike[str],
    data: bytes | None = None,
    *,
    tolerate_truncated_tail: bool = False,
) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    """Yield ``(line, obj)`` for good lines and ``(line, InputError)`` for bad ones; never raises
    for content. Blank lines are skipped. A last line without its newline that does not parse
    is reported as truncated, or silently dropped with ``tolerate_truncated_tail``.

    The lines are read by :class:`jsonlines.Reader` with :func:`loads_strict`'s parser."""
    name = str(path)
    if data is None:
        data = read_bytes(path)
    ends_clean = data.endswith(b"\n")
    raw_lines = data.split(b"\n")
    if ends_clean:
        raw_lines.pop()
    last_line = len(raw_lines)
    lines = _Lines(raw_lines)
    reader = jsonlines.Reader(lines, loads=lines.loads)
    while True:
        try:
            obj = reader.read(allow_none=True, skip_empty=True)
        except EOFError:
            return
        except jsonlines.InvalidLineError as exc:
            line, cause = exc.lineno, exc.__cause__
            truncated = line == last_line and not ends_clean
            if isinstance(cause, _Reject):
                yield line, InputError(name, cause.message, line=line)
                continue
            if truncated and tolerate_truncated_tail:
                return
            if isinstance(cause, UnicodeDecodeError):
                msg = f"not valid UTF-8 (byte {cause.start + 1} of the line; expected UTF-8 text)"
            elif truncated:
                msg = "truncated last line (no newline and not valid JSON; was the file cut off?)"
            elif isinstance(cause, json.JSONDecodeError):
                msg = f"invalid JSON: {decode_error_text(cause)} (expected one JSON object per line)"
            else:  # pragma: no cover - jsonlines raises only for the causes above
                msg = f"invalid JSON: {exc.message} (expected one JSON object per line)"
            yield line, InputError(name, msg, line=line)
            continue
        if not isinstance(obj, dict):
            yield (
                lines.number,
                InputError(name, f"expected a JSON object, got {_json_type(obj)}", line=lines.number),
            )
            continue
        yield lines.number, obj


def _json_type(obj: Any) -> str:
    if obj is None:
        return "null"
    if isinstance(obj, bool):
        return "a boolean"
    if isinstance(obj, int | float):
        return "a number"
    if isinstance(obj, str):
        return "a string"
    if isinstance(obj, list):
        return "an array"
    return type(obj).__name__


def read_jsonl(
    path: str | os.PathLike[str], *, allow_empty: bool = True, tolerate_truncated_tail: bool = False
) -> list[tuple[int, dict[str, Any]]]:
    """All objects of a JSONL file with their line numbers; the first bad line raises."""
    out: list[tuple[int, dict[str, Any]]] = []
    for line, item in iter_jsonl_lines(path, tolerate_truncated_tail=tolerate_truncated_tail):
        if isinstance(item, InputError):
            raise item
        out.append((line, item))
    if not out and not allow_empty:
        raise InputError(str(path), "file is empty (expected one JSON object per line)")
    return out


def fsync_dir(directory: Path) -> None:
    """fsync a directory so a rename inside it survives a power cut (best effort)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _read_umask() -> int:
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


_UMASK = _read_umask()  # read once at import, before any thread could race on it


def _file_mode(target: Path) -> int:
    """The mode an ordinary ``open(target, "w")`` would give: the existing file's, or 0666 less
    the umask (``mkstemp`` alone would make every file 0600)."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_UMASK


def write_atomic(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write ``data`` to ``path`` atomically: temp file in the same directory, fsync, rename.

    On any failure the temp file is removed and the previous file (if any) is untouched.
    """
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    tmp_name: str | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        os.fchmod(fd, _file_mode(target))
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp_name, target)
        tmp_name = None
        fsync_dir(target.parent)
    except OSError as exc:
        raise OutputError(
            f"{target}: cannot write: {exc.strerror or exc} "
            "(expected a writable directory with free space; the previous file is unchanged)"
        ) from None
    finally:
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)


def write_jsonl_atomic(path: str | os.PathLike[str], objects: Iterable[Any]) -> None:
    """Atomically write ``objects`` as JSONL (one compact line each, trailing newline), the lines
    made by :class:`jsonlines.Writer` with :func:`dumps_line`."""
    buf = io.StringIO()
    with jsonlines.Writer(buf, dumps=dumps_line) as writer:
        writer.write_all(objects)
    write_atomic(path, buf.getvalue())


def write_json_atomic(path: str | os.PathLike[str], obj: Any) -> None:
    """Atomically write pretty, key-stable JSON (2-space indent, trailing newline)."""
    text = json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=False, allow_nan=False)
    write_atomic(path, text + "\n")


class Appender:
    """Append-only JSONL writer whose every :meth:`append` is durable (flush + fsync) on return.

    If the file ends in a partial line (a crash mid-write), that tail is cut off first so
    the next line starts clean. Writes are unbuffered: a line is handed to the OS whole, and a
    write that fails part-way (disk full) is cut back off, so the file never ends in half a
    line. Use as a context manager.
    """

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = True) -> None:
        self.path = Path(path)
        self.fsync = fsync
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "ab+", buffering=0)  # noqa: SIM115 - closed in close()
            self._repair_tail()
            self._size = os.fstat(self._fh.fileno()).st_size
        except OSError as exc:
            raise OutputError(
                f"{self.path}: cannot open for appending: {exc.strerror or exc} "
                "(expected a writable directory)"
            ) from None

    def _repair_tail(self) -> None:
        fh = self._fh
        size = fh.seek(0, os.SEEK_END)
        if size == 0:
            return
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return
        # Find the last newline and truncate everything after it (a torn write).
        chunk = 1 << 16
        pos = size
        cut = 0
        while pos > 0:
            start = max(0, pos - chunk)
            fh.seek(start)
            block = fh.read(pos - start)
            idx = block.rfind(b"\n")
            if idx >= 0:
                cut = start + idx + 1
                break
            pos = start
        fh.truncate(cut)
        fh.flush()
        os.fsync(fh.fileno())

    def append(self, obj: Any) -> None:
        """Write one line and make it durable."""
        self.append_raw((dumps_line(obj) + "\n").encode("utf-8"))

    def append_raw(self, data: bytes) -> None:
        """Write pre-encoded complete lines (each ending in a newline) and make them durable.

        On failure (disk full, I/O error) the file is cut back to where it was, so no part of
        ``data`` stays behind, and :class:`OutputError` is raised."""
        fd = self._fh.fileno()
        start = self._size
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if self.fsync:
                os.fsync(fd)
            self._size = start + len(data)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, start)
            raise OutputError(
                f"{self.path}: cannot append: {exc.strerror or exc} "
                "(expected free space; lines already written are intact)"
            ) from None

    def sync(self) -> None:
        """fsync what was appended so far (for writers created with ``fsync=False`` that
        group their fsyncs; every appended line is already in the OS page cache, so a killed
        process loses nothing, only a power cut could)."""
        try:
            os.fsync(self._fh.fileno())
        except (OSError, ValueError) as exc:
            raise OutputError(f"{self.path}: cannot fsync: {exc} (expected a writable disk)") from None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._fh.close()

    def __enter__(self) -> Appender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --------------------------------------------------------------------------- strict JSON

MAX_DEPTH = 100
"""The deepest nesting of arrays and objects any file perturb reads may have. Python's own
parser and every recursive walk after it (pydantic, canonical JSON) would otherwise fail
with ``RecursionError`` somewhere near 1,000 levels."""

MAX_INT_DIGITS = 4300
"""The longest integer (in digits) a file may hold: Python's ``int`` refuses longer decimal
strings (``sys.get_int_max_str_digits``), so longer ones are rejected up front."""

_BOM = "\ufeff"
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class _Reject(ValueError):
    """Raised inside the parser hooks; turned into an :class:`InputError` by :func:`loads_strict`."""

    def __init__(self, message: str, token: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.token = token
        self.line = line


def _too_deep(text: str) -> int | None:
    """The offset where nesting first exceeds :data:`MAX_DEPTH`, else None."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None
    blanked = _STRING.sub(lambda m: " " * len(m.group()), text)  # same offsets, no brackets
    depth = 0
    for m in _BRACKET.finditer(blanked):
        if m.group() in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return m.start()
        else:
            depth -= 1
    return None


def nesting_exceeds(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether a decoded JSON value (dicts and lists) nests deeper than ``limit`` levels,
    found without recursion (an agent's output may be nested 100,000 deep)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            if depth + 1 > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list | tuple))
    return False


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)  # built in C; a repeated key makes it shorter than the pairs
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                shown = json.dumps(key, ensure_ascii=True)[:60]
                raise _Reject(f"duplicate key {shown} in one object (expected each key once)", f"{shown}")
            seen.add(key)
    return out


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Reject(f"number {text[:40]} is out of range (expected a finite number)", text)
    return value


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Reject(
            f"integer of {len(text.lstrip('-'))} digits (expected at most {MAX_INT_DIGITS} digits)", text[:20]
        )
    return int(text)


def _constant(name: str) -> Any:
    raise _Reject(f"{name} is not JSON (expected a finite number)", name)


def _line_of(text: str, token: str, nth: int) -> int | None:
    """1-based line of the ``nth`` occurrence of ``token`` in ``text`` (best effort)."""
    pos = -1
    for _ in range(nth):
        pos = text.find(token, pos + 1)
        if pos < 0:
            return None
    return text.count("\n", 0, pos) + 1


def _parse(text: str) -> Any:
    """``json.loads`` with the checks of :func:`loads_strict`; raises ``_Reject`` or
    ``json.JSONDecodeError``."""
    if text.startswith(_BOM):
        raise _Reject(
            "starts with a byte-order mark (expected UTF-8 without BOM; re-save it without BOM)", _BOM
        )
    deep = _too_deep(text)
    if deep is not None:
        raise _Reject(
            f"nested deeper than {MAX_DEPTH} levels (expected at most {MAX_DEPTH})",
            "",
            text.count("\n", 0, deep) + 1,
        )
    try:
        return json.loads(
            text, object_pairs_hook=_pairs, parse_float=_float, parse_int=_int, parse_constant=_constant
        )
    except RecursionError:  # pragma: no cover - _too_deep guards it; kept as a net
        raise _Reject(f"nested too deeply (expected at most {MAX_DEPTH} levels)", "") from None


def decode_error_text(exc: json.JSONDecodeError) -> str:
    """``MESSAGE at column N`` for a JSON decode error: the one wording of where a line's JSON
    broke (some of the decoder's messages end in "at" already, e.g. "Invalid control character
    at", which is not repeated)."""
    return f"{exc.msg.removesuffix(' at')} at column {exc.colno}"


def loads_strict(text: str, name: str, line: int | None = None, *, what: str = "one JSON document") -> Any:
    """Parse JSON the way every perturb reader does, with a one-line ``FILE:LINE`` error.

    Beyond the JSON grammar it refuses: a byte-order mark, ``NaN``/``Infinity`` and numbers
    that overflow to infinity (``1e999``), integers longer than :data:`MAX_INT_DIGITS`
    digits, nesting deeper than :data:`MAX_DEPTH`, and a key repeated within one object
    (which plain ``json`` resolves silently as "last one wins"). ``line`` is the line of
    ``text`` in the file (JSONL); for a whole-file document the line is found in ``text``.
    """
    try:
        return _parse(text)
    except _Reject as exc:
        raise InputError(
            name, exc.message, line=line if line is not None else _reject_line(text, exc)
        ) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            name,
            f"invalid JSON: {decode_error_text(exc)} (expected {what})",
            line=exc.lineno if line is None else line,
        ) from None


def _reject_line(text: str, exc: _Reject) -> int | None:
    if exc.line is not None or not exc.token:
        return exc.line
    return _line_of(text, exc.token, 2 if exc.message.startswith("duplicate key") else 1)


_PLAIN = (int, float, bool, int | None, float | None, bool | None)
_TEXT = (str, str | None)
_PLANS: dict[type[BaseModel], tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _plan(cls: type[BaseModel]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A record class's ``(text, tree)`` fields: the string fields, and those that may hold keys
    or strings (every other field holds only numbers or fixed words without a colon). A field
    with a default other than None or an empty list is left out (the screen would count its
    default when the input did not set it); leaving a field out only makes the screen fire."""
    plan = _PLANS.get(cls)
    if plan is not None:
        return plan
    finite = cls.model_config.get("allow_inf_nan") is False
    text: list[str] = []
    tree: list[str] = []
    for name, info in cls.model_fields.items():
        ann = info.annotation
        if info.alias is not None or not (
            info.is_required() or info.default is None or info.default_factory in (list, dict)
        ):
            continue
        if ann in _PLAIN and (finite or ann in (int, bool, int | None, bool | None)):
            continue
        if get_origin(ann) is Literal and all(isinstance(a, str) and ":" not in a for a in get_args(ann)):
            continue
        (text if ann in _TEXT else tree).append(name)
    plan = _PLANS[cls] = (tuple(text), tuple(tree))
    return plan


def _refuse(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON")


_MAKE_ENCODER = getattr(json_encoder, "c_make_encoder", None)
_C_ENCODE = (
    None
    if _MAKE_ENCODER is None
    else _MAKE_ENCODER(None, _refuse, json_encoder.encode_basestring, None, ":", ",", False, False, False)
)
"""CPython's C JSON encoder, compact, ``NaN`` and infinities refused (None elsewhere): a decoded
value's text has one ``:`` per key plus those inside strings (strings are written as themselves
but for quotes, backslashes and control characters)."""


def _json_tally(value: Any) -> tuple[int, int] | None:
    """``(keys plus ":" characters inside strings, objects and arrays)`` over a pydantic record
    (the fields its input set, by :func:`_plan`) or a decoded JSON value; None when it holds a
    non-finite float. A type it does not know counts nothing (so the screen fires rather than
    passing a line). Falsy values (``""``, ``0``, ``[]``, ``{}``, None) add nothing to the
    first count and are skipped. Objects and arrays below a record are counted by the C
    encoder where there is one (every ``[`` and ``{`` of their text, an upper bound)."""
    total = containers = 0
    stack = [value]
    pop, extend = stack.pop, stack.extend
    plans = _PLANS
    encode = _C_ENCODE
    while stack:
        item = pop()
        kind = type(item)
        if kind is str:
            total += item.count(":")
        elif kind is dict or kind is list:
            if encode is not None:
                try:
                    written = "".join(encode(item, 0))
                except ValueError:  # a non-finite float
                    return None
                except TypeError:  # records inside (a list of them): walked instead
                    pass
                else:
                    total += written.count(":")
                    containers += written.count("[") + written.count("{")
                    continue
            containers += 1
            if kind is dict:
                total += len(item) + "".join(item).count(":")
                extend(filter(None, item.values()))
            else:
                extend(filter(None, item))
        elif kind is float:
            if item - item != 0.0:  # inf - inf and nan - nan are nan
                return None
        elif kind is int or kind is bool:
            continue
        else:
            plan = plans.get(kind)
            if plan is None:
                if not isinstance(item, BaseModel):
                    continue
                plan = _plan(kind)
            containers += 1
            text, tree = plan
            get = item.__dict__.__getitem__
            total += len(item.__pydantic_fields_set__)
            if text:
                total += "".join(filter(None, map(get, text))).count(":")
            if tree:
                extend(filter(None, map(get, tree)))
    return total, containers


_LONG_DIGITS = re.compile(rb"(?<![0-9])[0-9]{%d}" % (MAX_INT_DIGITS + 1))
"""A run of more digits than :data:`MAX_INT_DIGITS`. Only a run's first digit may start a match
(the look-behind), so the search is linear in the line: without it every digit of a long run
would start a new attempt (about 4,000x the strict parser's time on a line of 4,300-digit runs)."""


def lenient_is_strict(raw: bytes, value: Any) -> bool:
    """Whether ``value``, decoded from the JSON text ``raw`` by a parser without
    :func:`loads_strict`'s checks (pydantic's ``validate_json``), is what the strict parser
    would have read: ``raw`` has no duplicate key, ``NaN``, ``Infinity``, overflowing number,
    integer over :data:`MAX_INT_DIGITS` digits or nesting over :data:`MAX_DEPTH`.

    A screen, not a parser: False sends the line to the strict parser, which gives the verdict
    and the message. Duplicate keys are found by counting: every key of ``raw`` is followed by
    a ``:`` outside any string, so ``raw.count(b":")`` is its keys plus the colons inside its
    strings; the decoded value holds one fewer key (and no more string colons, when no
    ``\\u003a`` escape spells one) for every key a duplicate replaced, so the two counts are
    equal only when no key was repeated. Then the value is all of ``raw``, and it cannot nest
    deeper than the objects and arrays it holds (``raw``'s brackets are counted only when those
    are more than :data:`MAX_DEPTH`). Records count the fields their input set."""
    if b"\\" in raw and b"\\u003" in raw:
        return False
    if len(raw) > MAX_INT_DIGITS and _LONG_DIGITS.search(raw):
        return False
    tally = _json_tally(value)
    if tally is None or tally[0] != raw.count(b":"):
        return False
    # an empty object or array is not counted: it can be one more level on any path
    return tally[1] < MAX_DEPTH or _too_deep(raw.decode("utf-8")) is None


# --------------------------------------------------------------------------- records


ErrorHint = Callable[[dict[str, Any], str, str], "str | None"]
"""``hint(error, field, message)``: a record-specific message for one pydantic error, or None."""


def error_messages(exc: ValidationError, hint: ErrorHint | None = None) -> list[tuple[str, str]]:
    """``(field, message)`` for every error of a pydantic validation failure: the one
    translator of pydantic errors into perturb's one-line messages (``hint`` lets a reader
    word the errors of its own record, e.g. the task format)."""
    out: list[tuple[str, str]] = []
    for err in exc.errors(include_url=False):
        loc = printable(".".join(str(p) for p in err["loc"] if not str(p).startswith("function-")))
        msg = str(err["msg"])
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, ") :]
        special = hint(dict(err), loc, msg) if hint is not None else None
        if special is not None:
            msg = special
        elif err["type"] == "missing":
            msg = "missing (expected this field)"
        elif err["type"] == "extra_forbidden":
            msg = "unknown field (expected only the fields of the record; see `perturb schema`)"
        elif "input" in err and "(expected" not in msg and err["type"] != "value_error":
            shown = repr(err["input"])
            msg = f"{msg} (got {shown[:60]}{'...' if len(shown) > 60 else ''})"
        out.append((loc or "(record)", printable(msg)))
    return out


def validation_message(exc: ValidationError, hint: ErrorHint | None = None) -> tuple[str, str]:
    """``(field, message)`` of the first error, with how many more there are."""
    messages = error_messages(exc, hint)
    loc, msg = messages[0]
    if len(messages) > 1:
        msg += f" (and {len(messages) - 1} more problem{'s' if len(messages) > 2 else ''})"
    return loc, msg


def validate_record(model: type[M], obj: Any, path: str | os.PathLike[str], line: int | None = None) -> M:
    """``model.model_validate(obj)`` with a one-line ``FILE:LINE: field: message`` error."""
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        field, msg = validation_message(exc)
        raise InputError(str(path), msg, line=line, field=field) from None


def read_model(path: str | os.PathLike[str], model: type[M], what: str) -> M:
    """Read a JSON file holding one ``model`` record; ``what`` names it in errors (e.g.
    "a baseline written by `perturb baseline`")."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(str(path), f"expected a JSON object ({what})")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        field, msg = validation_message(exc)
        raise InputError(str(path), f"{msg}; is this {what}?", field=field) from None


def read_records(path: str | os.PathLike[str], model: type[M]) -> list[M]:
    """Every line of a JSONL file of ``model`` records ([] when the file does not exist)."""
    if not Path(path).exists():
        return []
    return [validate_record(model, obj, path, line) for line, obj in read_jsonl(path)]
