"""The detector: which format a file is in, and the reader that reads it.

With `format="auto"` the shape decides: JSON Lines whose first record has a
Codex record type and a `payload` (or is the bare header of a rollout written
before `session_meta`) are codex, other records with a `type` (or
Claude Code's linking ids) are claude-code; an object with a
`trajectory_format` naming mini-swe-agent is mini-swe-agent, one with
`conversation` is layers, one with `messages` is openai; a list of events
with a `source` and an `action` or `observation` is openhands, and so are
an OpenHands evaluation's instances (an `instance_id` and such events under
`history`), JSON Lines of them or one alone; a list is
openai when a message has `tool_calls`, a `tool_call_id` or the role `system`
or `developer`, and messages otherwise. An SWE-agent trajectory (`.traj`),
which keeps the run's totals and no call's usage, is named and refused.

A new format is one module with a `read` function and one entry here: a test
in `_detected` and a line in `_READERS` (and its name in `FORMATS`).
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from os import PathLike
from pathlib import Path
from typing import Any, BinaryIO, Generic, TypeVar, cast

from context_budget._aside import SPLIT_BYTES, aside, can_fork
from context_budget._values import short_repr
from context_budget.sessions import (
    claude_code,
    codex,
    mini_swe_agent,
    openai_chat,
    openhands,
    openhands_state,
    own,
)
from context_budget.sessions._packed import packed_session, unpacked_session
from context_budget.sessions.copies import without_copies
from context_budget.sessions.session import Session
from context_budget.sessions.skips import Skip, check_skipped
from context_budget.sessions.text import (
    SESSION_SUFFIXES,
    FileSource,
    FormatError,
    Source,
    SourceError,
    agent_meta,
    blanked,
    gc_paused,
    kind_of,
    loads_json,
    not_utf8_lines,
    path_given,
    read_at,
    read_source,
    session_files,
    special_kind,
    split_lines,
    strict_json,
    try_json,
    where_json_breaks,
    whole_characters,
)

__all__ = [
    "BILL_FORMATS",
    "FORMATS",
    "FormatError",
    "InParts",
    "check_format",
    "conversation_left_out",
    "detect_format",
    "distinct_files",
    "read_in_parts",
    "read_paths",
    "read_sources",
    "read_text",
    "session_folder_files",
]

T = TypeVar("T")

#: The formats a session file is read in; `"auto"` picks one of the others.
FORMATS = (
    "auto",
    "messages",
    "layers",
    "claude-code",
    "codex",
    "mini-swe-agent",
    "openhands",
    "openai",
)
#: The formats that record usage, which a bill reads.
BILL_FORMATS = ("auto", "claude-code", "codex", "mini-swe-agent", "openhands")

_NOT_BLANK = re.compile(r"\S")
#: The formats whose file is JSON Lines, one record a line.
_LINES = frozenset({"claude-code", "codex"})
#: A file's name as given: `distinct_files` returns the names it is given, of either kind.
_Named = TypeVar("_Named", str, Path)
#: format -> the reader of a file's parsed JSON (the one-document formats).
_READERS: dict[str, Callable[[object, str], Session]] = {
    "messages": own.read_messages,
    "layers": own.read_layers,
    "mini-swe-agent": mini_swe_agent.read,
    "openhands": openhands.read,
    "openai": openai_chat.read,
}


def _first_object(text: str) -> dict[str, Any] | None:
    """The first line of `text` that is not blank, when it is a JSON object."""
    found = _NOT_BLANK.search(text)  # subtle: the first line that is not blank, found
    start = text.rfind("\n", 0, found.start()) + 1 if found else 0  # without splitting them all
    end = text.find("\n", start)
    first = split_lines(text[start : end if end >= 0 else len(text)])[0]
    try:
        record = loads_json(first, long_numbers=True)  # a record: read as its reader reads it
    except ValueError:  # not JSON: the whole text may still be one document
        return None
    return record if isinstance(record, dict) else None


def _first_record(text: str) -> dict[str, Any] | None:
    """The first line of `text` that is not blank, when it is a JSON record of a session."""
    record = _first_object(text)
    if record is None:
        return None
    known = "type" in record or claude_code.is_session_record(record) or codex.is_rollout(record)
    return record if known else None


#: How many keys of an unknown record its error names before "and N more".
_KEYS_SHOWN = 6


def _unknown_lines(text: str) -> str | None:
    """What JSON Lines of objects no reader takes hold, said plainly; None for text whose
    first line is no JSON object."""
    first = _first_object(text)
    if first is None:
        return None
    said = "JSON Lines of objects in no known format: the first"
    if not first:
        return f"{said} is an empty object"
    keys = sorted(str(key) for key in first)
    more = f" and {len(keys) - _KEYS_SHOWN} more" if len(keys) > _KEYS_SHOWN else ""
    return f"{said} has no 'type' (its keys: {', '.join(keys[:_KEYS_SHOWN])}{more})"


def _totals_only(data: object) -> bool:
    """True for an SWE-agent trajectory (`.traj`): its steps, its history and the run's
    totals (`info.model_stats`), with no call's usage."""
    if not isinstance(data, dict) or not isinstance(data.get("trajectory"), list):
        return False
    info = data.get("info")
    return isinstance(info, dict) and isinstance(info.get("model_stats"), dict)


def _detected(data: object) -> str:
    """The format of a file that is one JSON document."""
    if mini_swe_agent.is_trajectory(data):
        return "mini-swe-agent"
    if openhands.is_instance(data):
        return "openhands"
    if _totals_only(data):
        raise FormatError(
            "an SWE-agent trajectory: it keeps the run's totals (info.model_stats) and no "
            "call's usage or messages in a format read here"
        )
    if isinstance(data, dict) and "type" in data and "conversation" not in data:
        return "codex" if codex.is_rollout(data) else "claude-code"
    if openhands_state.is_state(data):
        return "openhands"
    if openhands_state.is_event(data):
        raise FormatError(
            "an OpenHands conversation's event: read with its conversation's "
            f"{openhands_state.STATE_FILE}, from the events folder beside it"
        )
    if own.is_layers(data):
        return "layers"
    if isinstance(data, dict):
        return "openai"
    if openhands.is_events(data):
        return "openhands"
    if isinstance(data, list):
        return "openai" if openai_chat.is_openai(data) else "messages"
    raise FormatError(_no_known_format(data))


def _no_known_format(data: object) -> str:
    """Why `data`, one JSON document, is in no format: what each wants, and what it is
    (an object named by its first keys, as `package.json`'s 'dependencies', 'name', ...)."""
    found = kind_of(data)
    if isinstance(data, dict) and data:
        keys = sorted(map(str, data))
        found += " with the keys " + ", ".join(f"{key!r:.40}" for key in keys[:3])
        found += ", ..." if len(keys) > 3 else ""
    return (
        "no known format: expected a list of messages or events, an object with "
        "'conversation', 'messages' or 'trajectory_format', or JSON Lines records with "
        f"a 'type'; found {found}"
    )


def detect_format(text: str) -> tuple[str, object]:
    """(the format of a file's text, its parsed JSON or None for JSON Lines).

    Raises:
        FormatError: text that is empty or blank, no JSON document nor JSON
            Lines of records (naming where the JSON breaks), or a shape of no format.
        ValueError: JSON nested too deeply, or a document holding a number too long.
        TypeError: `text` is not a str.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str (a file's text), got {short_repr(text)}")
    if not text or text.isspace():  # what `strip` leaves empty, not copied
        raise FormatError("the file is empty")
    try:
        data, parsed = try_json(text)
    except ValueError:  # too deep, or a number too long: in a document, or in a record
        if _first_record(text) is None:
            raise
        data, parsed = None, False
    if not parsed:
        if (record := _first_record(text)) is not None:
            return ("codex" if codex.is_rollout(record) else "claude-code"), None
        if openhands.is_instance(_first_object(text)):
            return "openhands", None  # an evaluation output: an instance a line
        try:
            strict_json(text)
        except ValueError as error:  # names where the JSON breaks
            raise FormatError(_unknown_lines(text) or str(error)) from None
    return _detected(data), data


def check_format(format: object, formats: Sequence[str] = FORMATS) -> str:
    """`format` when it is one of `formats`; ValueError naming them otherwise."""
    if not isinstance(format, str) or format not in formats:
        raise ValueError(f"format must be one of {', '.join(formats)}; got {format!r}")
    return format


def read_text(
    text: str, format: str = "auto", name: str = "", skipped: list[Skip] | None = None
) -> Session:
    """One file's text read as `format` (`"auto"`: detected) into a `Session`.

    Given `skipped`, a file that cannot be read as it is, but can without its
    last line, is read so (a live session's line still being written) and
    that line is added to `skipped`.

    Raises:
        ValueError, TypeError: the text is in no format, or not in the one
            given; the error names the line, message or event.
        TypeError: `text` or `name` is not a str, or `skipped` no list.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str (a file's text), got {short_repr(text)}")
    if not isinstance(name, str):
        raise TypeError(f"name must be a str (the file's name), got {short_repr(name)}")
    check_format(format)
    check_skipped(skipped)
    return _mending(_read_one, [Source(name, text)], format, skipped)


def _read_one(sources: Sequence[Source], format: str) -> Session:
    source = sources[0]
    chosen, data = detect_format(source.text) if format == "auto" else (format, None)
    told_lines = chosen in _LINES and data is None  # told the format: one document named
    if told_lines and _first_object(source.text) is None:
        document = _one_document(source.text, chosen)
        if document is not None:
            raise ValueError(document)
    return _detected_by(_read_as(source, chosen, data), format)


def _mending(
    read: Callable[[Sequence[Source], str], Session],
    sources: Sequence[Source],
    format: str,
    skipped: list[Skip] | None,
) -> Session:
    """`read(sources, format)`; when it fails and `skipped` is a list, once more with each
    source's half-written last line left blank (added to `skipped`). When that fails too,
    its error where the first named a half-written line (the rest of the file is the
    problem then: it holds several instances, say), else the first error."""
    try:
        return read(sources, format)
    except (TypeError, ValueError) as first:
        if skipped is None:
            raise
        found: list[Skip] = []
        mended = [_complete(source, found) for source in sources]
        if not found:
            raise
        try:
            session = read(mended, format)
        except (TypeError, ValueError) as second:
            if any(f"line {skip.line}:" in str(first) for skip in found):
                raise second from None
            raise first from None
    skipped.extend(found)
    return session


def _read_as(
    source: Source, chosen: str, data: object, later: Source | FileSource | None = None
) -> Session:
    """A source read as `chosen`, from the JSON the detector parsed (`data`) where it did.

    Given `later` (the file, to read again), the JSON Lines formats read their
    calls alone, and the session reads the rest from it when asked
    (`Session.with_messages`).
    """
    messages = later is None
    if chosen == "claude-code":
        return claude_code.read([source], messages=messages)
    if chosen == "codex":
        session = codex.read(source, messages=messages)
        if later is None:
            return session
        return replace(session, read_messages=partial(_codex_messages, later))
    if chosen == "openhands" and data is None:
        whole, data = _document(source.text)
        if not whole:
            return _one_instance(openhands.read_instances(source.text, source.name))
    return _READERS[chosen](data if data is not None else strict_json(source.text), source.name)


def _document(text: str) -> tuple[bool, object]:
    """(True, the document) for text that is one JSON document; (False, None) for JSON Lines
    that start with an object, read as an OpenHands evaluation's instances (an event list
    starts as a list).

    Raises:
        ValueError: text that is neither, naming where its JSON breaks.
    """
    data, parsed = try_json(text)
    if parsed:
        return True, data
    start = _NOT_BLANK.search(text)
    if start is None or text[start.start()] != "{":
        strict_json(text)  # raises, naming where the JSON breaks
    return False, None


def _one_instance(sessions: list[Session]) -> Session:
    """The one session of an evaluation output; ValueError naming its instances when it
    holds several (a bill reads them all, each a session)."""
    if len(sessions) == 1:
        return sessions[0]
    ids = ", ".join(session.main.session for session in sessions[:3])
    more = ", ..." if len(sessions) > 3 else ""
    raise ValueError(
        f"an OpenHands evaluation output of {len(sessions)} instances "
        f"({ids}{more}), each a session: bill and whatif read them all; one is read here "
        "from a file holding that instance alone"
    )


def _codex_messages(given: Source | FileSource) -> Session:
    return codex.read(given.loaded())


def conversation_left_out(session: Session, skipped: list[Skip] | None) -> Session:
    """The session, the half-written files its reader left out of the conversation added to
    `skipped` (when a list): an OpenHands conversation's last event file, still being
    written. (The other lines a reader refuses hold usage, which a conversation does not
    read; a bill adds them all, as `read_paths` does.)"""
    if skipped is not None:
        skipped.extend(s for s in session.bad_lines if s.kind == "half-written line")
    return session


def _detected_by(session: Session, format: str) -> Session:
    return replace(session, detected=format == "auto")


def read_sources(
    sources: Sequence[Source], format: str = "auto", skipped: list[Skip] | None = None
) -> Session:
    """Several files read as one Claude Code session (a session and its sub-agents' files).

    Given `skipped`, a half-written last line is left out as `read_text` leaves it.

    Raises:
        TypeError: `sources` is not a list of `Source`, or `skipped` no list.
        ValueError: no source, a format other than auto or claude-code, or a bad line.
    """
    if not isinstance(sources, Sequence) or isinstance(sources, str | bytes):
        raise TypeError(f"sources must be a list of Source, got {short_repr(sources)}")
    if not all(isinstance(source, Source) for source in sources):
        raise TypeError(f"sources must be a list of Source, got {short_repr(list(sources))}")
    if not sources:
        raise ValueError(f"sources must hold one Source at least, got {short_repr(sources)}")
    check_format(format)
    check_skipped(skipped)
    if len(sources) == 1:
        return read_text(sources[0].text, format, sources[0].name, skipped)
    if format not in ("auto", "claude-code"):
        raise ValueError(
            f"a folder or several files are read as one Claude Code session, not as {format}"
        )
    return _mending(_read_together, sources, format, skipped)


def _read_together(sources: Sequence[Source], format: str) -> Session:
    for source in sources:  # one of another format: named, not read as part of the session
        first = _first_object(source.text)
        if first is not None and codex.is_rollout(first):
            raise ValueError(
                f"{source.name}: a Codex rollout, among files read as one Claude Code "
                "session: give the rollouts one at a time"
            )
        if first is None and (other := _other_document(source.text)) is not None:
            raise ValueError(
                f"{source.name}: {other}, among files read as one Claude Code session (a "
                "session and its sub-agents' files): give it alone"
            )
        if first is None and (document := _one_document(source.text, "claude-code")):
            raise ValueError(f"{source.name}: {document}")
    return _detected_by(claude_code.read(sources), format)


def _other_document(text: str) -> str | None:
    """The format of text that is one JSON document of a format other than Claude Code's
    (an OpenHands event list, a trajectory), or None."""
    try:
        chosen, data = detect_format(text)
    except ValueError:  # no format at all: the reader names its line
        return None
    return chosen if data is not None and chosen != "claude-code" else None


def _kind(path: Path) -> str:
    """What is at `path`: "folder" or "file"; ValueError naming anything else."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if os.path.islink(path):
            target = os.readlink(path)
            raise ValueError(f"{path}: a symbolic link to {target}, which does not exist") from None
        raise ValueError(f"{path}: no such file or folder") from None
    except PermissionError:
        raise ValueError(f"{path}: permission denied") from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise ValueError(f"{path}: a loop of symbolic links, never a file") from None
        raise ValueError(f"{path}: cannot read it: {error.strerror or error}") from None
    if stat.S_ISDIR(mode):
        return "folder"
    if not stat.S_ISREG(mode):
        raise ValueError(f"{path}: {special_kind(mode)}, not a regular file or a folder")
    return "file"


def _files(paths: Sequence[str | PathLike[str]], skipped: list[Skip] | None = None) -> list[Path]:
    """The files the paths name, each once (by its resolved path); of a folder, every file
    of a session format (`SESSION_SUFFIXES`) under it, a name of such a file that is no
    regular file (a named pipe, a link to nothing) skipped. An OpenHands conversation's
    event files (in `events/` beside its state file, or beside it) are left to the state
    file among them, which reads them."""
    found: list[Path] = []
    for given in paths:
        path = path_given(given)
        odd: list[Path] = []
        folder = _kind(path) == "folder"
        if folder and (said := openhands_state.events_folder_error(path)) is not None:
            raise ValueError(said)
        inside = session_files(path, SESSION_SUFFIXES, odd) if folder else [path]
        for name in odd:
            _skip(skipped, _odd_file(name))
        if not inside and not odd:
            raise ValueError(f"{path}: a folder with no session file (.jsonl, .json) in it")
        found += inside
    found = distinct_files(found)
    states = {path.parent for path in found if path.name == openhands_state.STATE_FILE}
    return [path for path in found if not _read_by_state(path, states)] if states else found


def distinct_files(files: Iterable[_Named]) -> list[_Named]:
    """`files` (`Path`s or strings, returned as given) in their order, each once by its
    resolved path: a file named twice, through a link, or both alone and in its folder is
    one file, read once."""
    found: list[_Named] = []
    seen: set[str] = set()
    folders: dict[str, str] = {}  # each folder of the files, resolved
    for file in files:
        if (key := _resolved(file, folders)) not in seen:
            seen.add(key)
            found.append(file)
    return found


def session_folder_files(folder: Path, skipped: list[Skip] | None) -> list[Path]:
    """The `.jsonl` files of a folder read as one session (`text.session_files`), for
    `inspect` and `load_transcript`: [] when it holds none (the caller says so).

    An entry named as such a file that is no regular file (a named pipe, a link to
    nothing) is added to `skipped` (`_odd_file`).

    Raises:
        ValueError: such an entry, with no list given or no other file to read, named.
    """
    odd: list[Path] = []
    files = session_files(folder, odd=odd)
    if odd and (skipped is None or not files):
        raise ValueError(_odd_file(odd[0]).reason)
    if skipped is not None:
        skipped += [_odd_file(name) for name in odd]
    return files


def _odd_file(path: Path) -> Skip:
    """The skip of a folder's entry named as a session file that is no regular file (a
    named pipe, a link to nothing; `text.session_files`'s `odd`): its reason says what
    it is instead."""
    try:
        _kind(path)
    except ValueError as error:
        return Skip("not a session", str(path), None, str(error))
    reason = f"{path}: no regular file as the folder was read"  # replaced since
    return Skip("not a session", str(path), None, reason)


def _resolved(file: str | Path, folders: dict[str, str]) -> str:
    """`file.resolve()`, as text, its folder resolved once for every file in it (`folders`,
    added to): a file that is no link is its resolved folder's entry of its name."""
    name = str(file)
    if os.path.islink(name):
        return os.path.realpath(name)
    parent, own = os.path.split(name)
    held = folders.get(parent)
    if held is None:
        held = folders[parent] = os.path.realpath(parent or ".")
    return os.path.join(held, own)


def _read_by_state(path: Path, states: set[Path]) -> bool:
    """True for an event file that a conversation's state file in `states` reads."""
    if not openhands_state.is_event_name(path.name):
        return False
    if path.parent.name == "events" and path.parent.parent in states:
        return True
    return path.parent in states and not (path.parent / "events").is_dir()


def _no_usage(chosen: str, data: object, name: str) -> str:
    """Why a file detected as `chosen`, a format that records no usage, is no bill's: it
    reads as that format, or (its reader refuses `data`: a `package.json` is an object,
    which the detector takes for layers) it is in no known format."""
    try:
        _READERS[chosen](data, name)
    except (TypeError, ValueError):  # a reader's checks raise both (`check_message`)
        return _no_known_format(data)
    return f"it reads as {chosen}, which records no usage"


def _billed_format(source: Source, format: str) -> str:
    """The format a bill reads a file in: `format`, or the detected one when it records usage.

    Raises:
        ValueError: the file is empty, in no format, in one that records no
            usage, JSON Lines whose first record no session reader writes, or
            one JSON document told a format of JSON Lines.
    """
    if format in _LINES:  # told, yet a file another tool wrote is still named
        first = _first_object(source.text)
        if first is None and (document := _one_document(source.text, format)):
            raise ValueError(f"{source.name}: {document}")
        if first is not None and _written_by_another(first, format):
            writer = _WRITERS[format]
            raise ValueError(
                f"{source.name}: not a {writer} session, though read as one: its first "
                f"record is of type {str(first.get('type'))!r:.40}, which {writer} never writes"
            )
    if format != "auto":
        return format
    formats = ", ".join(BILL_FORMATS[1:])
    try:
        chosen, data = detect_format(source.text)
    except FormatError as error:
        raise ValueError(
            f"{source.name}: not a session in a format bills read ({formats}): {error}"
        ) from None
    except ValueError as error:  # JSON no parser can take: the real problem, named
        raise ValueError(f"{source.name}: {error}") from None
    if chosen not in BILL_FORMATS:
        raise ValueError(
            f"{source.name}: not a session in a format bills read ({formats}): "
            + _no_usage(chosen, data, source.name)
        )
    first = None
    if chosen == "claude-code":  # one record is one JSON document: parsed whole already
        first = data if isinstance(data, dict) else _first_record(source.text)
    if first is not None and not claude_code.is_session_record(first):
        raise ValueError(
            f"{source.name}: not a session in a format bills read ({formats}): its first "
            f"record is of type {str(first.get('type'))!r:.40}, which no session reader writes"
        )
    return chosen


#: Who writes each format of JSON Lines, as an error names them.
_WRITERS = {"claude-code": "Claude Code", "codex": "Codex"}


def _written_by_another(first: dict[str, Any], format: str) -> bool:
    """True when a file told `format` (one of JSON Lines) starts with a record the other
    agent writes, never its own: a Codex record told claude-code, a Claude Code one told
    codex."""
    if format == "claude-code":
        return not claude_code.is_session_record(first)
    return not codex.is_rollout(first) and claude_code.is_session_record(first)


def _one_document(text: str, format: str) -> str | None:
    """Why text that is one JSON document over several lines (a trajectory, an event list)
    is no session in `format`, one of JSON Lines, whose reader would take each of its lines
    for a bad one; None for any other text (a document of one line, which the reader names
    as its line 1, and JSON no parser can take, whose line the reader names)."""
    if "\n" not in text.strip():
        return None
    try:
        data, whole = try_json(text)
    except ValueError:
        return None
    if not whole:
        return None
    return (
        f"no {format} session, though read as one: it is one JSON document "
        f"({kind_of(data)}), not JSON Lines of records"
    )


def _skip(skipped: list[Skip] | None, skip: Skip) -> None:
    """Note `skip` in `skipped`; with no list (a strict read), raise its reason."""
    if skipped is None:
        raise ValueError(skip.reason)
    skipped.append(skip)


def _broken(line: str) -> str | None:
    """Why a line is no JSON at all (cut short, or garbage), and where on it, or None:
    `Unterminated string starting at column 9` (json's message without its place would
    end mid-phrase).

    None too for JSON no parser can take (nested too deeply, a number too
    long): the reader refuses that line itself, naming the real problem.
    """
    try:
        loads_json(line)
    except json.JSONDecodeError as error:
        return where_json_breaks(error, lines=False)
    except ValueError:
        return None
    return None


def _complete(source: Source, skipped: list[Skip] | None) -> Source:
    """The source without a half-written last line (the file is still being written)."""
    number = _half_written(source, skipped)
    return source if number is None else blanked(source, [number])


def _half_written(source: Source, skipped: list[Skip] | None) -> int | None:
    """The number of the source's last line when it is half-written (skipped), else None."""
    text, stop = source.text, len(source.text)
    while stop and text[stop - 1].isspace():  # the text `rstrip` keeps, not copied
        stop -= 1
    start = text.rfind("\n", 0, stop) + 1
    problem = _broken(text[start:stop])
    if problem is None:
        return None
    number = text.count("\n", 0, stop) + 1
    reason = f"{source.name}: line {number}: not valid JSON: {problem}"
    _skip(skipped, Skip("half-written line", source.name, number, reason))
    return number


def _mended(sources: list[Source], skipped: list[Skip] | None) -> list[Source] | None:
    """The sources with every line that is no record left blank and skipped; None if none is.

    A line is no record when it is no JSON at all, or JSON that is not an
    object (`[]`, `42`, `null`): no reader takes either.
    """
    mended, found = [], False
    for source in sources:
        bad = []
        for number, line in enumerate(split_lines(source.text), start=1):
            if line.strip() and (problem := _no_record(line)) is not None:
                reason = f"{source.name}: line {number}: {problem}"
                _skip(skipped, Skip("bad line", source.name, number, reason))
                bad.append(number)
        found = found or bool(bad)
        mended.append(blanked(source, bad) if bad else source)
    return mended if found else None


def _no_record(line: str) -> str | None:
    """Why a line is no record (no JSON, or JSON that is not an object), or None."""
    problem = _broken(line)
    if problem is not None:
        return f"not valid JSON: {problem}"
    try:  # a number too long is read as a reader reads it: nesting too deep is the line's end
        value = loads_json(line, long_numbers=True)
    except ValueError as error:  # JSON nested deeper than any reader parses
        return str(error)
    if isinstance(value, dict):
        return None
    return f"expected a record (an object), found {kind_of(value)}"


#: How much of a file's start and end `_glance` reads at first (bytes).
_GLANCE_BYTES = 1 << 13
#: The longest first or last line `_glance` reads before it leaves the file to be read whole.
_GLANCE_MOST = 1 << 24
#: What `str.isspace` takes for white space among ASCII bytes, which `bytes.rstrip` does not.
_SEPARATORS = frozenset(b"\x1c\x1d\x1e\x1f")


def _glance(path: Path, format: str) -> str | None:
    """The format of a JSON Lines session file whose last line is whole, told from its first
    and last lines alone; None when they cannot tell it so (the file is then read whole).

    What it tells is what reading the whole file tells (`_billed_format`,
    `_half_written`) for such a file: the usual one, which starts with a
    record, holds more lines, and ends in a whole one.
    """
    try:
        with path.open("rb") as file:
            first = _first_line(file)
            last = _last_line(file)
    except OSError:
        return None
    if first is None or last is None:
        return None
    try:
        record = loads_json(first.decode("utf-8"), long_numbers=True)
        last_text = last.decode("utf-8")
    except ValueError:
        return None
    if not isinstance(record, dict) or _broken(last_text) is not None:
        return None
    if format in _LINES and _written_by_another(record, format):
        return None  # read whole, to be named (`_billed_format`)
    if format != "auto":
        return format if format in _LINES else None
    if codex.is_rollout(record):
        return "codex"
    return "claude-code" if claude_code.is_session_record(record) else None


def _first_line(file: BinaryIO) -> bytes | None:
    """The first line of a file that starts with `{` and holds more after that line (not
    white space); None for any other file, or a first line too long to glance at."""
    head = file.read(_GLANCE_BYTES)
    if not head.startswith(b"{"):
        return None
    while (end := head.find(b"\n")) < 0:
        more = file.read(len(head))
        if not more or len(head) >= _GLANCE_MOST:
            return None
        head += more
    rest = head[end + 1 :]
    while not rest.strip():  # only white space so far: is there another line?
        rest = file.read(_GLANCE_BYTES)
        if not rest:
            return None  # one line alone, which may be one document: read whole
    return head[: end - 1] if head[end - 1 : end] == b"\r" else head[:end]


def _last_line(file: BinaryIO) -> bytes | None:
    """A file's last line that is not blank (ASCII white space aside); None where what ends
    it is not plain ASCII, or the line is too long to glance at."""
    size = file.seek(0, 2)
    chunk = b""
    while len(chunk) < min(size, _GLANCE_MOST):
        start = max(0, size - 2 * len(chunk) - _GLANCE_BYTES)
        file.seek(start)
        chunk = file.read(size - start)
        body = chunk.rstrip()
        if body and (body[-1] >= 0x80 or body[-1] in _SEPARATORS):
            return None  # white space `str.isspace` knows, or a character: read whole
        cut = body.rfind(b"\n")
        if cut >= 0 or start == 0:
            return body[cut + 1 :]
    return None


def _taken(
    path: Path, format: str, skipped: list[Skip] | None, glanced: str | None
) -> tuple[str, Source | FileSource] | None:
    """(the format, the source) of a file a bill can read; None when it is skipped.

    A JSON Lines file's source is a `FileSource`, read when its reader gets
    to it; where its first and last lines tell its format (`glanced`, what
    `_glance` told), it is not read before.
    """
    if glanced is not None:
        return glanced, FileSource(str(path), (), *agent_meta(path))
    bad: tuple[int, ...] = ()
    try:
        source = read_source(path)
    except SourceError as error:
        found = _not_text_lines(error, skipped)
        if found is None:
            raise
        if not found:
            return None
        bad, source = found, read_source(path, blank=found)
    try:
        chosen = _billed_format(source, format)
    except ValueError as error:
        _skip(skipped, Skip("not a session", source.name, None, str(error)))
        return None
    if chosen not in _LINES:
        return chosen, source
    number = _half_written(source, skipped)
    blank = bad if number is None else (*bad, number)
    return chosen, FileSource(source.name, blank, source.description, source.agent_type)


def _one_file(given: Source | FileSource, chosen: str, skipped: list[Skip] | None) -> list[Session]:
    """The sessions of one file that is not Claude Code's (an evaluation output holds one
    per instance, its half-written last line skipped), those that record a call."""
    try:
        source = given.loaded()  # SourceError: not UTF-8 or unreadable, named
    except SourceError as error:
        found = _not_text_lines(error, skipped) if chosen in _LINES else None
        if found is None:
            raise
        if not found:
            return []
        return _one_file(_blanking(given, found), chosen, skipped)
    whole, data = True, None
    try:
        if chosen == "openhands":  # parsed once here, and read from what was parsed
            whole, data = _document(source.text)
        if whole:
            sessions = [_read_as(source, chosen, data, later=given)]
        else:
            source = _complete(source, skipped)  # a run still writing its last instance
            sessions = openhands.read_instances(source.text, source.name)
    except FormatError as error:  # a document of another shape: no session in this format
        reason = f"{source.name}: no {chosen} session, though read as one: {error}"
        _skip(skipped, Skip("not a session", source.name, None, reason))
        return []
    except (TypeError, ValueError) as error:
        mended = _mended([source], skipped) if chosen in _LINES or not whole else None
        if mended is None:
            raise ValueError(f"{source.name}: {error}") from None
        return _one_file(mended[0], chosen, skipped)
    kept = [kept for s in sessions if (kept := _lines_left_out(s, skipped)) is not None]
    return [s for s in kept if _billable(s, source.name, not whole, skipped)]


def _lines_left_out(session: Session, skipped: list[Skip] | None) -> Session | None:
    """The session, the lines whose usage its reader refused (`Session.bad_lines`) added to
    `skipped` (with no list, a strict read, the first raises); None when they held all its
    calls (they say why it is left out)."""
    if not session.bad_lines:
        return session
    for skip in session.bad_lines:
        _skip(skipped, skip)
    if not session.calls and session.usage_error is None:
        return None
    return replace(session, bad_lines=())


def _not_text_lines(error: SourceError, skipped: list[Skip] | None) -> tuple[int, ...] | None:
    """The lines of the file `error` names whose bytes are not UTF-8, each added to
    `skipped` as a bad line; () where its first line is among them (a file that is no
    text: skipped whole, as not a session); None where the file is not read so (a strict
    read, or an error of another kind: the caller raises it)."""
    if skipped is None or not error.file:
        return None
    try:
        raw = whole_characters(read_at(error.file))
    except OSError:
        return None
    bad = list(not_utf8_lines(raw))
    if not bad:
        return None
    if bad[0][0] == 1:
        skipped.append(Skip("not a session", error.file, None, str(error)))
        return ()
    for number, at in bad:
        said = f"not UTF-8 text (byte {raw[at]:#04x} at offset {at})"
        skipped.append(Skip("bad line", error.file, number, f"{error.file}: line {number}: {said}"))
    return tuple(number for number, _ in bad)


def _blanking(given: Source | FileSource, lines: tuple[int, ...]) -> FileSource:
    """A file to read again with `lines` left blank too."""
    blank = given.blank if isinstance(given, FileSource) else ()
    return FileSource(given.name, (*blank, *lines), given.description, given.agent_type)


def _billable(session: Session, name: str, instance: bool, skipped: list[Skip] | None) -> bool:
    """True for a session that records a call (or, in a strict read, why its usage is
    refused: `Session.billed` raises it); else False, and a skip noted."""
    if session.usage_error is not None and skipped is not None:
        said = str(session.usage_error)
        where = f"evaluation instance {session.main.session!r}: " if instance else ""
        reason = said if said.startswith(f"{name}: ") else f"{name}: {where}{said}"
        skipped.append(Skip("bad usage", name, None, reason))
        return False
    if session.calls or session.usage_error is not None:
        return True
    kind = "empty rollout" if session.format == "codex" else "no call"
    what = f"evaluation instance {session.main.session!r}" if instance else "file"
    reason = f"{name}: no API call recording usage in this {session.format} {what}"
    _skip(skipped, Skip(kind, name, None, reason))
    return False


def _claude(
    sources: Sequence[Source | FileSource],
    format: str,
    skipped: list[Skip] | None,
    work: claude_code.Work[T] | None = None,
) -> Session | claude_code.Parts[T] | None:
    """The Claude Code files read together, their calls alone (their conversation read
    again when asked for: `Session.with_messages`); None when they record no call. Given
    `work`, done on the read's parts where it is split (`claude_code.read_parts`): then
    the parts, the whole read left to `_claude_kept`."""
    try:
        found = (
            claude_code.read(sources, messages=False)
            if work is None
            else claude_code.read_parts(sources, work)
        )
    except SourceError as error:
        not_text = _not_text_lines(error, skipped)
        if not_text is None:
            raise
        others = [source for source in sources if source.name != error.file]
        if not_text:
            others += [_blanking(s, not_text) for s in sources if s.name == error.file]
        return _claude(others, format, skipped) if others else None
    except ValueError as error:
        mended = _mended([source.loaded() for source in sources], skipped)
        if mended is None:
            named = f"{sources[0].name}: {error}" if len(sources) == 1 else str(error)
            raise ValueError(named) from None
        return _claude(mended, format, skipped)
    if isinstance(found, claude_code.Parts):
        return found
    return _claude_kept(found, sources, format, skipped)


def _claude_kept(
    session: Session,
    sources: Sequence[Source | FileSource],
    format: str,
    skipped: list[Skip] | None,
) -> Session | None:
    """The session the Claude Code files gave, its conversation to be read when asked for,
    the lines its reader refused noted (`_lines_left_out`); None when it records no call."""
    session = _detected_by(session, format)
    session = replace(session, read_messages=partial(_with_messages, sources, format))
    kept = _lines_left_out(session, skipped)
    if kept is None:
        return None
    if kept.calls or kept.usage_error is not None:
        return kept
    named = sources[0].name if len(sources) == 1 else ", ".join(s.name for s in sources[:3])
    reason = f"{named}: Claude Code session(s) with no assistant line with usage"
    _skip(skipped, Skip("no call", sources[0].name, None, reason))
    return None


def _with_messages(sources: Sequence[Source | FileSource], format: str) -> Session:
    return _detected_by(claude_code.read(sources), format)


def read_paths(
    paths: str | PathLike[str] | Sequence[str | PathLike[str]],
    format: str = "auto",
    skipped: list[Skip] | None = None,
) -> list[Session]:
    """The sessions of files and folders (or of one), for a bill: Claude Code files read
    together.

    A file named twice, or inside a folder also named, is read once. A file
    or line no reader can take (`Skip`) is added to `skipped` and the rest
    read; without a list, the first one raises.

    Raises:
        TypeError: `paths` neither a path nor a list of paths, `skipped` neither a
            list nor None.
        ValueError: an unknown `format`, a path missing, unreadable or not a
            file or folder; with `skipped` None, a file or line no reader
            can take (a malformed usage figure among them); each names the path.
    """
    return cast(list[Session], _read_paths(paths, format, skipped, None))  # no work: no parts


@dataclass
class InParts(Generic[T]):
    """A bill's files, all Claude Code's, read on two cores in parts of whole sessions
    that do not touch (`claude_code.read_parts`): what the work gave on each part
    (`mine`, `theirs`), and the sessions `read_paths` gives, read when first asked for
    (`sessions()`)."""

    mine: T
    theirs: T
    _parts: claude_code.Parts[T]
    _sources: Sequence[Source | FileSource]
    _format: str
    _skipped: list[Skip] | None

    def sessions(self) -> list[Session]:
        """The sessions of every file, as `read_paths` gives them (the child's part joined:
        ask once)."""
        session = _claude_kept(self._parts.whole(), self._sources, self._format, self._skipped)
        return _once([] if session is None else [session], self._skipped)


def read_in_parts(
    paths: str | PathLike[str] | Sequence[str | PathLike[str]],
    format: str,
    skipped: list[Skip] | None,
    work: claude_code.Work[T],
) -> list[Session] | InParts[T]:
    """What `read_paths` gives; or, where every file is Claude Code's and the read is split
    in parts that do not touch, `work` done on each part (`InParts`).

    Raises:
        TypeError: what `read_paths` refuses as no path or list of paths.
        ValueError: what `read_paths` refuses (each names the path).
    """
    return _read_paths(paths, format, skipped, work)


def _read_paths(
    paths: str | PathLike[str] | Sequence[str | PathLike[str]],
    format: str,
    skipped: list[Skip] | None,
    work: claude_code.Work[T] | None,
) -> list[Session] | InParts[T]:
    if isinstance(paths, str | PathLike):
        paths = [paths]  # one path, not the letters of one
    elif not isinstance(paths, Sequence) or not all(isinstance(p, str | PathLike) for p in paths):
        raise TypeError(f"paths must be a path or a list of paths, got {short_repr(paths)}")
    check_format(format, BILL_FORMATS)
    check_skipped(skipped)
    with gc_paused():
        files = _files(paths, skipped)
        glances = _glances(files, format)
        claude, sessions = _read_apart(files, glances, format, skipped)
        alone = work if not sessions else None  # parts of whole sessions: Claude Code's alone
        found = _claude(claude, format, skipped, alone) if claude else None
        if isinstance(found, claude_code.Parts):
            return InParts(found.mine, found.theirs, found, claude, format, skipped)
        if found is not None:
            sessions.insert(0, found)
    return _once(sessions, skipped)


#: From how many files a folder's glances are shared with a child (`_glances`): a
#: glance takes some 30 µs, and making the child some milliseconds.
GLANCE_SPLIT = 512


def _glances(files: Sequence[Path], format: str) -> dict[Path, str | None]:
    """Each file's `_glance`: those of the later half told by a forked child (`aside`)
    where the files are many (`GLANCE_SPLIT`), while this process glances at the rest."""
    half = len(files) // 2
    later = files[half:]
    with aside(
        lambda: [_glance(path, format) for path in later], worth=len(files) >= GLANCE_SPLIT
    ) as pending:
        found = [_glance(path, format) for path in files[:half]]
        found += pending.result()
    return dict(zip(files, found, strict=True))


#: What one file gives a bill: a Claude Code file's source, to be read with the others;
#: another file's sessions (none when it is skipped); or None when it is skipped.
_Read = Source | FileSource | list[Session] | None


def _one(path: Path, glanced: str | None, format: str, skipped: list[Skip] | None) -> _Read:
    """What `path` gives a bill (`_taken`, then `_one_file` for a file not Claude Code's)."""
    taken = _taken(path, format, skipped, glanced)
    if taken is None:
        return None
    chosen, source = taken
    return source if chosen == "claude-code" else _one_file(source, chosen, skipped)


def _in_order(
    files: Sequence[Path],
    glances: dict[Path, str | None],
    format: str,
    skipped: list[Skip] | None,
) -> tuple[list[Source | FileSource], list[Session]]:
    """(the Claude Code files' sources, every other file's session), the files read one by
    one in the order given."""
    claude: list[Source | FileSource] = []
    sessions: list[Session] = []
    for path in files:
        _add(_one(path, glances[path], format, skipped), claude, sessions)
    return claude, sessions


#: The share of the bytes of a folder's other files the child reads (`_read_apart`).
_CHILD_SHARE = 0.45


def _cut(files: Sequence[Path], glances: dict[Path, str | None]) -> int | None:
    """How many of `files`, from the first, this process reads when a child reads the rest:
    about (1 - `_CHILD_SHARE`) of the bytes of the files not Claude Code's (read later,
    together); None when they are too few to split (`SPLIT_BYTES`) or one cannot be
    looked at."""
    if len(files) < 2 or not can_fork():
        return None
    try:
        sizes = [0 if glances[path] == "claude-code" else path.stat().st_size for path in files]
    except OSError:
        return None
    total = sum(sizes)
    if total < SPLIT_BYTES:
        return None
    target = total * (1 - _CHILD_SHARE)
    here = cut = 0
    for size in sizes[:-1]:  # the child reads one file at least
        if here + size - target > target - here:
            break  # a file that would take this part further off
        here += size
        cut += 1
    return cut or None


#: What the child sends: how many of its files it read, the skips they gave, and what
#: each gave (a session as `packed_session` packs it; b"" beside a Claude Code source).
_Part = tuple[int, list[Skip], list[tuple[Source | FileSource | Session, bytes]]]


def _part(files: Sequence[Path], glances: dict[Path, str | None], format: str) -> _Part:
    """The child's files read in order, up to the first that raises (this process reads
    that one again, and meets what stopped it)."""
    skips: list[Skip] = []
    found: list[tuple[Source | FileSource | Session, bytes]] = []
    done = 0
    for path in files:
        before = len(skips)
        try:
            read = _one(path, glances[path], format, skips)
        except Exception:
            del skips[before:]  # its skips are noted again when this process reads it
            break
        done += 1
        if isinstance(read, list):
            found.extend(packed_session(session) for session in read)
        elif read is not None:
            found.append((read, b""))
    return done, skips, found


def _read_apart(
    files: Sequence[Path],
    glances: dict[Path, str | None],
    format: str,
    skipped: list[Skip] | None,
) -> tuple[list[Source | FileSource], list[Session]]:
    """What `_in_order` gives, the later files read by a forked child where a folder's
    files not Claude Code's are many (`_cut`) and a skip is a note, not an error.

    The child reads its files as this process would, up to the first that
    raises; this process reads its own, takes the child's sessions and skips
    after its own, and reads the rest itself from the file the child stopped
    at: the sessions, skips and errors come in the order one pass gives them.
    """
    if skipped is None or (cut := _cut(files, glances)) is None:
        return _in_order(files, glances, format, skipped)
    rest = files[cut:]
    with aside(lambda: _part(rest, glances, format)) as pending:
        claude, sessions = _in_order(files[:cut], glances, format, skipped)
        done, skips, found = pending.result()
    skipped.extend(skips)
    for given, data in found:
        _add(
            [unpacked_session(given, data)] if isinstance(given, Session) else given,
            claude,
            sessions,
        )
    more_claude, more = _in_order(rest[done:], glances, format, skipped)
    return claude + more_claude, sessions + more


def _add(read: _Read, claude: list[Source | FileSource], sessions: list[Session]) -> None:
    if isinstance(read, list):
        sessions.extend(read)
    elif read is not None:
        claude.append(read)


def _once(sessions: list[Session], skipped: list[Skip] | None) -> list[Session]:
    """The sessions with what the files hold twice left out: copies of files (`copies`)
    and the history a Codex fork copies from its parent (`codex.without_replays`)."""
    found = []
    for session in codex.without_replays(without_copies(sessions)):
        if session.calls or session.usage_error is not None:
            found.append(session)
            continue
        name = session.files[0] if session.files else ""
        reason = f"{name}: a Codex fork with no call of its own (each copies its parent's)"
        _skip(skipped, Skip("empty rollout", name, None, reason))
    return found
