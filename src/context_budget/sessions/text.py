"""What every session reader shares: files to text, text to JSON, and the place of a problem.

One encoding rule: a file is UTF-8, a byte-order mark at its start is not
part of the text (`decode`). One JSON rule: text that is not JSON, nested too
deeply for the parser or holding a number too long for Python is a
`ValueError` naming the place (`loads_json`, `strict_json`, `json_lines`). A
record a reader reads through a shape (`records`) is read by what it reads:
there a whole number too long for Python's `int` reads as an infinite float
(`loads_json(..., long_numbers=True)`), which no count or time accepts, so the
reader that reads it names it, and one in a field no reader reads is left
alone, as the fast decoder, which skips such a field unread, leaves it.
One folder walk (`session_files`), refusing a folder it cannot read rather
than skipping it.
"""

from __future__ import annotations

import codecs
import gc
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from os import PathLike
from pathlib import Path
from typing import Any, NoReturn

from context_budget._values import short_repr
from context_budget.errors import ContextBudgetError

__all__ = [
    "BLANK",
    "SESSION_SUFFIXES",
    "FileSource",
    "FormatError",
    "Source",
    "SourceError",
    "agent_meta",
    "as_blocks",
    "blanked",
    "check_utf8",
    "count_of",
    "decode",
    "description",
    "dollars",
    "epoch",
    "gc_paused",
    "is_session_name",
    "json_lines",
    "kind_of",
    "line_spans",
    "line_value",
    "loads_json",
    "msgspec_in_use",
    "not_utf8_lines",
    "object_at",
    "path_given",
    "read_at",
    "read_source",
    "session_files",
    "special_kind",
    "split_lines",
    "strict_json",
    "tally",
    "try_json",
    "value_at",
    "where_json_breaks",
    "whole_characters",
]

_KINDS = {
    dict: "an object",
    list: "a list",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


class Source:
    """One file to read: its name as given ("" for text of no file), its text, its task.

    Attributes:
        name: the path as given, or "" for text that came from no file.
        text: the file's text (`decode`d); where the source was made from the
            file's bytes alone, decoded from them when first read.
        description: a sub-agent file's task, from the `.meta.json` beside it, or "".
        agent_type: a sub-agent file's type (`agentType`), from the same file, or "".
        data: the file's bytes as read (a byte-order mark left out), which a
            decoder of bytes reads instead of `text` (`records.records`); b""
            when the text came from no file.
    """

    __slots__ = ("_text", "agent_type", "data", "description", "name")

    def __init__(
        self,
        name: str,
        text: str | None = None,
        description: str = "",
        agent_type: str = "",
        data: bytes = b"",
    ) -> None:
        if text is None and not data:
            text = ""
        self.name = name
        self._text = text
        self.description = description
        self.agent_type = agent_type
        self.data = data

    @property
    def text(self) -> str:
        if self._text is None:  # bytes known to be UTF-8 (`read_source`): decoded when read
            self._text = self.data.decode("utf-8")
        return self._text

    def __repr__(self) -> str:
        return f"Source({self.name!r}, {len(self.data) or len(self.text)} bytes)"

    def loaded(self) -> Source:
        """The source itself: it is read already."""
        return self

    def emptied(self) -> Source:
        """The source with its text and bytes let go (its name and task kept)."""
        return Source(self.name, "", self.description, self.agent_type)


@dataclass(frozen=True)
class FileSource:
    """A file a reader reads when it gets to it (`loaded`), so that a folder's files are
    held in memory one at a time.

    Attributes:
        name: the path as given.
        blank: the lines (from 1) to leave blank, found half-written before.
        description: a sub-agent file's task, from the `.meta.json` beside it, or "".
        agent_type: a sub-agent file's type (`agentType`), from the same file, or "".
    """

    name: str
    blank: tuple[int, ...] = ()
    description: str = ""
    agent_type: str = ""

    def loaded(self) -> Source:
        """The file read now (`read_source`), its `blank` lines left blank.

        Raises:
            SourceError: the file is not UTF-8, or cannot be read, named.
        """
        return read_source(Path(self.name), (self.description, self.agent_type), self.blank)


def blanked(source: Source, numbers: Collection[int]) -> Source:
    """The source with the lines `numbers` (from 1) left blank, every other line in its place."""
    left = set(numbers)
    text = "\n".join(
        "" if number in left else source.text[start:stop]
        for number, (start, stop) in enumerate(line_spans(source.text), start=1)
    )
    data = b"\n".join(
        b"" if number in left else source.data[start:stop]
        for number, (start, stop) in enumerate(line_spans(source.data), start=1)
    )
    return Source(
        source.name, text, source.description, source.agent_type, data if source.data else b""
    )


def kind_of(value: object) -> str:
    """What a JSON value is, in words: `an object`, `a list`, `null`, ..."""
    return _KINDS.get(type(value), type(value).__name__)


def object_at(holder: dict[str, Any], key: str) -> dict[str, Any]:
    """`holder[key]` when it is an object, else an empty one (a field left out or null)."""
    value = holder.get(key)
    return value if isinstance(value, dict) else {}


def whole_characters(raw: bytes) -> bytes:
    """A file's bytes without the start of a character they end in: what a file caught
    while it is written ends with when its last line stops in the middle of a character
    UTF-8 writes in two to four bytes. That line is cut short, so it is half-written in
    any case (a reader skips it as such); any other bytes are given back as they are,
    and bytes that are not UTF-8 are left for the decoder to refuse.

    Example: `"né".encode()[:-1]` is `b"n\\xc3"`, and `whole_characters` of it is `b"n"`.
    """
    if not raw or raw[-1] < 0x80:
        return raw
    lead = len(raw) - 1
    while lead > max(0, len(raw) - 4) and 0x80 <= raw[lead] < 0xC0:
        lead -= 1  # back over the continuation bytes to the byte that starts the character
    try:
        raw[lead:].decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start == 0 and error.reason == "unexpected end of data":
            return raw[:lead]  # the bytes stop inside the character that starts there
    return raw


def decode(raw: bytes, name: str) -> str:
    """The text of a file's bytes: UTF-8, a leading byte-order mark dropped, and the start
    of a character they end in (a last line cut as it was written) left out
    (`whole_characters`).

    Raises:
        ValueError: bytes that are not UTF-8, naming the byte and its offset.
        TypeError: `raw` is not bytes.
    """
    if not isinstance(raw, bytes | bytearray | memoryview):
        raise TypeError(f"raw must be the file's bytes, got {short_repr(raw)}")
    raw = whole_characters(raw)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:  # counted from after the byte-order mark
        at = error.start + (3 if raw.startswith(codecs.BOM_UTF8) else 0)
        raise _not_utf8(raw, at, name) from None


def _not_utf8(raw: bytes, at: int, name: str) -> ValueError:
    """The error for file `name`, whose byte at offset `at` of `raw` is not UTF-8; a file
    that starts with UTF-16's byte-order mark (a copy saved by Windows PowerShell's `>`,
    say) is said to be UTF-16."""
    said = f"{name}: not UTF-8 text (byte {raw[at]:#04x} at offset {at})"
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        said += ": it is UTF-16 (it starts with UTF-16's byte-order mark); save it as UTF-8"
    return ValueError(said)


def check_utf8(raw: bytes, name: str) -> None:
    """Check that a file's bytes are UTF-8 (a leading byte-order mark allowed), as `decode`
    checks them, without making the text: each line that is not ASCII is decoded alone,
    so a file of mostly ASCII lines is checked several times sooner, and a wide character
    widens one line's text, not the whole file's.

    Raises:
        ValueError: bytes that are not UTF-8, naming the byte and its offset, in the
            words of `decode`.
    """
    raw = whole_characters(raw)  # as `decode` reads them
    for _, at in not_utf8_lines(raw):
        raise _not_utf8(raw, at, name)


def not_utf8_lines(raw: bytes) -> Iterator[tuple[int, int]]:
    """(line number from 1, offset of its first bad byte) of each line of a file's bytes
    that is not UTF-8 (a leading byte-order mark allowed), each line that is not ASCII
    decoded alone."""
    at = 3 if raw.startswith(codecs.BOM_UTF8) else 0
    for number, line in enumerate(raw[at:].split(b"\n"), start=1):
        if not line.isascii():
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as error:
                yield number, at + error.start
        at += len(line) + 1


class SourceError(ContextBudgetError, ValueError):
    """A file that cannot be read as text: missing, unreadable, or not UTF-8 (named).

    Attributes:
        file: the file's path as given where its bytes are not UTF-8 (a bill can
            leave out the lines that are not, `not_utf8_lines`); "" otherwise.
    """

    def __init__(self, message: str, file: str = "") -> None:
        super().__init__(message)
        self.file = file


class FormatError(ContextBudgetError, ValueError):
    """A file in no format: not JSON, nor JSON Lines of records, nor a known shape; raised
    too by a reader given a document whose shape is not its format's (`strict_json`, and
    each one-document reader's first check), which a bill told that format skips."""


def msgspec_in_use() -> Any:
    """msgspec, when it is installed and `CONTEXT_BUDGET_NO_FAST` does not turn it off (the
    readers then decode a file's bytes, `records`); else None (they decode its text with
    `json`)."""
    if os.environ.get("CONTEXT_BUDGET_NO_FAST"):
        return None
    try:
        import msgspec
    except ImportError:
        return None
    return msgspec


#: True when the readers decode a file's bytes (`msgspec_in_use`), not its text.
_BYTES_READ = msgspec_in_use() is not None


def read_at(path: str | PathLike[str], start: int = 0, size: int = -1) -> bytes:
    """`size` bytes of a file from byte `start`, to its end where `size` is -1 (by default
    the whole file), the file opened for them alone: with `os.pread` where the system has
    it. A bill reads thousands of files, and a replay a line of every message, so:
    `os.open`, `os.pread` and `os.close` take well under half the time of the buffered
    reader `open` makes, or of `Path.read_bytes`.

    Raises:
        OSError: as `open` raises it (a missing file, a folder, no permission).
    """
    if not hasattr(os, "pread"):
        with open(path, "rb") as file:
            file.seek(start)
            return file.read(size)
    handle = os.open(path, os.O_RDONLY)
    try:
        if size < 0:
            size = max(0, os.fstat(handle).st_size - start)
        found = os.pread(handle, size, start)
        while len(found) < size:  # a short read: the rest, up to the end of the file
            more = os.pread(handle, size - len(found), start + len(found))
            if not more:
                break
            found += more
        return found
    finally:
        os.close(handle)


def read_source(
    path: Path, meta: tuple[str, str] | None = None, blank: Collection[int] = ()
) -> Source:
    """A file read as a `Source`, with the task of its `.meta.json` when it has one
    (`agent_meta`; `meta`, where the caller has read it already), the lines `blank`
    (from 1) left blank before its bytes are checked.

    The start of a character its bytes end in is left out (`whole_characters`: a last
    line cut as it was written, which the readers skip as half-written). Its bytes are
    checked to be UTF-8 now: where the readers decode bytes, line by line
    (`check_utf8`), its text decoded only if it is asked for; else by decoding the text
    they read.

    Raises:
        SourceError: the file is not UTF-8, or cannot be read (named, with the reason).
    """
    try:
        raw = whole_characters(read_at(path))  # a last line cut inside a character
    except PermissionError:
        raise SourceError(f"{path}: permission denied") from None
    except OSError as error:
        raise SourceError(f"{path}: cannot read it: {error.strerror or error}") from None
    if blank:
        left = set(blank)
        lines = raw.split(b"\n")
        raw = b"\n".join(b"" if n in left else line for n, line in enumerate(lines, start=1))
    data = raw[3:] if raw.startswith(codecs.BOM_UTF8) else raw
    text = None  # ASCII, or checked: decoded when read
    if not data.isascii():
        try:
            if _BYTES_READ:
                check_utf8(raw, str(path))
            else:  # `json` reads the text: decoding it checks it, once
                text = decode(raw, str(path))
        except ValueError as error:
            raise SourceError(str(error), str(path)) from None
    return Source(str(path), text, *(agent_meta(path) if meta is None else meta), data=data)


def loads_json(text: str, *, long_numbers: bool = False) -> object:
    """`json.loads`, with nesting too deep or a number too long refused as bad JSON.

    Args:
        text: the JSON.
        long_numbers: read a whole number too long for Python's `int` as an
            (infinite) float instead of refusing it.

    Raises:
        json.JSONDecodeError: text that is not JSON.
        ValueError: nesting too deep to parse, or a number with too many digits.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # subtle: int("9" * 5000) is refused by Python, not by the parser
        if not long_numbers:
            limit = sys.get_int_max_str_digits()
            raise ValueError(f"a number has more than {limit:,} digits, too long to read") from None
    except RecursionError:
        raise ValueError("the JSON is nested too deeply to read") from None
    try:
        return json.loads(text, parse_int=_long_int)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply to read") from None


def _long_int(digits: str) -> int | float:
    """A JSON whole number: an `int`, or a float (infinite) when too long for one."""
    if len(digits.lstrip("-")) <= sys.get_int_max_str_digits():
        return int(digits)
    return float(digits)


#: The parser `json.loads` calls, run by `json_lines` on a line where it stands in the
#: text (typeshed leaves the decoder's `scan_once` out).
_SCAN: Callable[[str, int], tuple[object, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
#: What a blank line of JSON Lines reads as (`value_at`, `line_value`).
BLANK = object()


def try_json(text: str) -> tuple[object, bool]:
    """(the parsed document, True), or (None, False) when `text` is not one JSON document.

    Raises:
        ValueError: JSON nested too deeply or holding a number too long: the
            real problem, not "not JSON".
    """
    try:
        return loads_json(text), True
    except json.JSONDecodeError:
        return None, False


def strict_json(text: str) -> object:
    """One JSON document, or a `FormatError` naming where it breaks (a `ValueError` for
    JSON nested too deeply or holding a number too long, `loads_json`)."""
    try:
        return loads_json(text)
    except json.JSONDecodeError as error:
        raise FormatError(f"not valid JSON: {where_json_breaks(error)}") from None


def where_json_breaks(error: json.JSONDecodeError, *, lines: bool = True) -> str:
    """json's message for `error` with its place: `Expecting value at line 3, column 1`;
    `lines=False` gives the column alone (`at column 9`, for one line of JSON Lines).

    json's message for a string it found no end to ends in "at" already
    (`Unterminated string starting at`): the place follows it, with no second "at".
    """
    at = "" if error.msg.endswith(" at") else " at"
    place = f"line {error.lineno}, column {error.colno}" if lines else f"column {error.colno}"
    return f"{error.msg}{at} {place}"


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold the cyclic garbage collector off while files are read; leave it as it was.

    What a read builds (parsed records, messages, calls) holds no cycles: the
    collector would find nothing to free, yet it walks every object kept so
    far each time enough new ones are made, again and again as a large
    folder is read.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def split_lines(text: str) -> list[str]:
    """The lines of JSON Lines text: split at line feeds only (`line_spans`).

    A JSON string may hold U+2028, U+0085 or a form feed unescaped (JavaScript
    writers leave them so), which `str.splitlines` would take for line ends.
    """
    return [text[start:stop] for start, stop in line_spans(text)]


def line_spans(text: str | bytes) -> Iterator[tuple[int, int]]:
    """Where each line of JSON Lines text (or its UTF-8 bytes) starts and stops, as indexes.

    A line ends at a line feed or at the end of the text, and a carriage return
    just before that end is left out (a file written on Windows). The text
    `"a\r\nb"` has the lines `(0, 1)` and `(3, 4)`; an empty text one empty line.
    In UTF-8 a line feed or a carriage return is never part of another
    character, so the bytes have the same lines as the text.
    """
    feed, ret = ("\n", "\r") if isinstance(text, str) else (b"\n", 13)
    size, start = len(text), 0
    while start <= size:
        end = text.find(feed, start)  # type: ignore[arg-type]
        end = size if end < 0 else end
        yield start, (end - 1 if end > start and text[end - 1] == ret else end)
        start = end + 1


def json_lines(text: str) -> list[tuple[int, dict[str, Any]]]:
    """The records of JSON Lines text, each with its line number (1-based), blank lines aside.

    The lines are those of `split_lines` (`line_spans`), read without cutting
    the text into lines: the usual line, one JSON value with no space around
    it, is parsed where it stands by the parser `json.loads` calls. Any other
    line is cut out and read by `loads_json`, so each line gives what
    `loads_json` gives it (`value_at`).

    Raises:
        ValueError: a line that is not JSON, or not an object, naming the line.
    """
    records = []
    for number, (start, stop) in enumerate(line_spans(text), start=1):
        record = value_at(text, start, stop, number)
        if record is BLANK:
            continue
        if not isinstance(record, dict):
            raise ValueError(
                f"line {number}: expected a record (an object), found {kind_of(record)}"
            )
        records.append((number, record))
    return records


def value_at(
    text: str, start: int, stop: int, number: int, *, long_numbers: bool = False
) -> object:
    """The JSON value of `text[start:stop]`, line `number`, or `BLANK` for a blank line:
    what `line_value` gives the line, parsed where it stands when it can be."""
    try:
        value, end = _SCAN(text, start)
    except (StopIteration, ValueError, RecursionError):  # not JSON here, or too deep or long
        end = -1
    if end == stop:  # one value, the whole line: what `loads_json` makes of the line
        return value
    return line_value(text[start:stop], number, long_numbers=long_numbers)


def line_value(line: str, number: int, *, long_numbers: bool = False) -> object:
    """The JSON value of line `number` of JSON Lines, or `BLANK` for a blank line.

    Raises:
        ValueError: a line that is not JSON, nested too deeply or holding a
            number too long (`loads_json`), named `line <number>: ...`.
    """
    if not line.strip():
        return BLANK
    try:
        return loads_json(line, long_numbers=long_numbers)
    except json.JSONDecodeError as error:
        raise ValueError(f"line {number}: not valid JSON: {error.msg}") from None
    except ValueError as error:
        raise ValueError(f"line {number}: {error}") from None


#: The first and the last instant of the years 1 to 9999 (UTC), as seconds since the epoch.
_EARLIEST = datetime(1, 1, 1, tzinfo=UTC).timestamp()
_LATEST = datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC).timestamp()


def epoch(value: Any, where: str) -> float | None:
    """Seconds since the Unix epoch from an ISO time or a number; None if absent.

    A time without a zone is taken as UTC; what RFC 3339 allows beyond
    `datetime.fromisoformat` (a lower-case `t` or `z`, a leap second) is read
    too (`_rfc_3339`). Times are held to the years 1 to
    9999 in UTC, both whole: a bill writes its days and times from the day
    number (`context_budget.zones`), so an instant of 9999-12-31 stays
    readable in a zone where it is already the year 10000.

    Raises:
        ValueError: a time that is neither, or out of that range, naming `where`.
    """
    if value is None:
        return None
    if isinstance(value, str):  # the common case first: an ISO time
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            moment = _rfc_3339(value, where)
        seconds = (moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)).timestamp()
    elif isinstance(value, int | float) and not isinstance(value, bool):
        try:
            seconds = float(value)
        except OverflowError:
            seconds = float("inf")
    else:
        raise ValueError(f"{where}: a time must be an ISO string or a number, got {value!r:.60}")
    if not _EARLIEST <= seconds <= _LATEST:  # NaN fails too
        raise ValueError(f"{where}: a time outside the years 1 to 9999: {value!r:.60}")
    return seconds


#: A time whose second is 60 (a leap second): what comes before and after the `60`.
_LEAP = re.compile(r"(.*T\d\d:\d\d:)60([.,]\d+)?(.*)")


def _rfc_3339(value: str, where: str) -> datetime:
    """A time `datetime.fromisoformat` refuses yet RFC 3339 allows: a lower-case `t` or
    `z`, or a leap second (`23:59:60`, the next minute's first instant, as POSIX time
    counts it).

    Raises:
        ValueError: anything else, naming `where`.
    """
    text = value.upper()
    leap = _LEAP.fullmatch(text)
    try:
        if leap is None:
            return datetime.fromisoformat(text)
        before = datetime.fromisoformat(f"{leap[1]}59{leap[2] or ''}{leap[3]}")
        return before + timedelta(seconds=1)
    except (ValueError, OverflowError):
        raise ValueError(f"{where}: not an ISO time: {value!r:.60}") from None


def dollars(value: Any, where: str) -> float | None:
    """A cost a file recorded itself, in USD: a number from 0 (below 10**12); None if absent.

    Raises:
        ValueError: anything else, naming `where`.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1e12:
        raise ValueError(
            f"{where}: a cost must be a number of USD from 0, below 1,000,000,000,000, "
            f"got {value!r:.60}"
        )
    return float(value)


def as_blocks(content: str | list[Any]) -> list[Any]:
    """A message's content as a list of blocks (a string becomes one text block)."""
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def count_of(number: int, word: str) -> str:
    """`3 records`, `1 record`: a count and its noun."""
    return f"{number:,} {word}" if number == 1 else f"{number:,} {word}s"


def tally(kinds: dict[str, int]) -> str:
    """`{"summary": 1, "progress": 3}` as "progress 3, summary 1" (most first, then by name)."""
    return ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items(), key=_most))


def _most(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def _refuse(error: OSError) -> NoReturn:
    name = error.filename or "a folder"
    reason = "permission denied" if isinstance(error, PermissionError) else error.strerror
    raise ValueError(f"{name}: cannot read the folder: {reason or error}")


#: What the names of a folder's session files end with: JSON Lines (Claude Code, Codex),
#: and the JSON of the one-document formats (trajectories, event lists).
SESSION_SUFFIXES = (".jsonl", ".json")
#: What a sub-agent's metadata file's name ends with: read with its session file, never alone.
_META = ".meta.json"


def special_kind(mode: int) -> str:
    """What a file that is no regular file or folder is, from its `st_mode`: `a FIFO (named
    pipe)`, `a socket`, `a character device`, `a block device`, else `a special file`."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def path_given(given: str | PathLike[str]) -> Path:
    """The path a caller gave, as a `Path`.

    Raises:
        ValueError: an empty path: `Path("")` is `.`, so an unset variable would
            read every session under the folder one is in.
    """
    if not os.fspath(given):
        raise ValueError("an empty path names no file or folder (the folder one is in is '.')")
    return Path(given)


def is_session_name(name: str, suffixes: tuple[str, ...] = SESSION_SUFFIXES) -> bool:
    """Whether a file's `name` is a session file's: it ends with one of `suffixes` and is
    no sub-agent's `.meta.json`."""
    return name.endswith(suffixes) and not name.endswith(_META)


def session_files(
    folder: Path, suffixes: tuple[str, ...] = (".jsonl",), odd: list[Path] | None = None
) -> list[Path]:
    """The files under a folder whose names end with one of `suffixes`, session files
    before sub-agents' (`agent-*`); `.meta.json` files are never among them. Given
    `odd`, the names that end so but are no regular file (a named pipe, a link to
    nothing) are added to it, in order.

    Linked folders are followed, each folder read once however many links lead
    to it (a loop of links ends where it comes back).

    Raises:
        TypeError: `folder` is no path.
        ValueError: a folder or sub-folder that cannot be read, named.
    """
    if not isinstance(folder, str | PathLike):
        raise TypeError(f"folder must be a path, got {short_repr(folder)}")
    found = []
    seen: set[tuple[int, int]] = set()  # (device, inode) of each folder read
    for root, folders, names in os.walk(folder, onerror=_refuse, followlinks=True):
        try:
            info = os.stat(root)
        except OSError as error:
            _refuse(error)
        if (info.st_dev, info.st_ino) in seen:  # reached again through a link
            folders[:] = []
            continue
        seen.add((info.st_dev, info.st_ino))
        found += [
            os.path.join(root, name)  # as text: a folder may hold thousands
            for name in names
            if is_session_name(name, suffixes)
        ]
    files = sorted(
        (name for name in found if os.path.isfile(name)),
        key=lambda name: (os.path.basename(name).startswith("agent-"), name),
    )
    if odd is not None and len(files) < len(found):
        kept = set(files)
        odd += [Path(name) for name in sorted(found) if name not in kept]
    return [Path(name) for name in files]


def description(path: str | PathLike[str]) -> str:
    """The `description` of a sub-agent file's `.meta.json` beside it, or ""."""
    return agent_meta(path)[0]


def _meta_path(path: str | PathLike[str]) -> str:
    """Where the `.meta.json` of the file `path` is: beside it, named by its stem, as
    `Path(path).with_name(Path(path).stem + ".meta.json")` names it.

    A bill asks it of every file it reads: a plain path's is found with string
    steps, without building a `Path` (`PurePath.stem`'s rule: the name up to
    its last dot, where that dot is neither its first nor its last character).

    Raises:
        TypeError, ValueError: as `Path` and `with_name` raise them.
    """
    text = os.fspath(path)
    folder, name = os.path.split(text) if isinstance(text, str) else ("", "")
    if not name or name in (".", "..") or os.altsep is not None:
        whole = Path(path)
        return str(whole.with_name(whole.stem + ".meta.json"))
    dot = name.rfind(".")
    stem = name[:dot] if 0 < dot < len(name) - 1 else name
    return os.path.join(folder, stem + ".meta.json") if folder else stem + ".meta.json"


def agent_meta(path: str | PathLike[str]) -> tuple[str, str]:
    """(`description`, `agentType`) of a sub-agent file's `.meta.json` beside it; "" for each
    it lacks (or when there is none).

    Raises:
        TypeError: `path` is no path.
    """
    if not isinstance(path, str | PathLike):
        raise TypeError(f"path must be a path, got {short_repr(path)}")
    meta = _meta_path(path)
    if not os.path.isfile(meta):  # the usual file: none beside it
        return "", ""
    try:
        data = loads_json(decode(Path(meta).read_bytes(), meta))
    except (OSError, ValueError):
        return "", ""
    if not isinstance(data, dict):
        return "", ""
    described, typed = data.get("description"), data.get("agentType")
    return (
        described if isinstance(described, str) else "",
        typed if isinstance(typed, str) else "",
    )
