"""Reading the command's input file and shaping it into `Layers`.

`_read(path, max_bytes)` gives the file's text, refusing what is not a regular
file (a FIFO would hang the read, `/dev/zero` would never end it) and what is
over `max_bytes`; `_load(text, path, format)` reads the text as a session
(`sessions.read_text`, the reader `load_transcript` uses) and checks every
message. `load_paths(paths,
max_bytes, format)` reads what the command was given: one file as above, or a
Claude Code session from several files and folders (a session file and its
sub-agents' `agent-*.jsonl` files; a folder gives every `.jsonl` file under
it), each file held to `max_bytes`. Every problem is an `InputError` whose
text is the one line the command prints after `context-budget: error:`.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from context_budget.errors import InputError
from context_budget.sessions import (
    Session,
    Source,
    agent_meta,
    decode,
    read_sources,
    read_text,
)
from context_budget.sessions.detect import (
    conversation_left_out,
    distinct_files,
    session_folder_files,
)
from context_budget.sessions.openhands_state import conversation_state
from context_budget.sessions.skips import Skip
from context_budget.sessions.text import special_kind

#: The largest file `inspect` reads unless `--max-bytes` says otherwise.
MAX_BYTES = 256 * 1024 * 1024


def _read(path: str, max_bytes: int = MAX_BYTES) -> str:
    """The text of the file at `path`; `InputError` naming the problem otherwise."""
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{path}: is {special_kind(info.st_mode)}, not a regular file")
        if info.st_size > max_bytes:
            raise InputError(
                f"{path}: {info.st_size:,} bytes, over the limit of {max_bytes:,} "
                "(raise it with --max-bytes)"
            )
        with Path(path).open("rb") as file:
            raw = _bounded(file, max_bytes + 1, info.st_size)  # it may grow after the stat
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a file") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read it: {error.strerror or error}") from None
    if len(raw) > max_bytes:
        raise InputError(f"{path}: over the limit of {max_bytes:,} bytes (it grew as it was read)")
    try:
        return decode(raw, path)
    except ValueError as error:
        raise InputError(str(error)) from None


#: The most bytes one read asks for beyond what the file held at its stat.
_PIECE = 1 << 20


def _bounded(file: BinaryIO, limit: int, size: int) -> bytes:
    """Up to `limit` bytes of `file`, which held `size` bytes when last seen.

    Read in pieces of at most `size` bytes (or `_PIECE`, for what it grew by): a
    single `read(limit)` sets aside `limit` bytes first, which a limit such as
    `--max-bytes 1000000000000` cannot have (a `MemoryError`, or an `OverflowError`
    past the machine's sizes).
    """
    pieces: list[bytes] = []
    left = limit
    while left > 0:
        piece = file.read(min(left, max(size, _PIECE)))
        if not piece:
            break
        pieces.append(piece)
        left -= len(piece)
    return b"".join(pieces)


def _load(text: str, path: str, format: str, skipped: list[Skip] | None) -> Session:
    """The file's text read as `format` (or detected), every message checked."""
    try:
        return conversation_left_out(read_text(text, format, path, skipped), skipped).conversation()
    except (TypeError, ValueError) as error:
        raise InputError(f"{path}: {error}") from None


def _files_of(path: str, skipped: list[Skip] | None = None) -> list[str]:
    """The files a path given to the command names: itself, a folder's `.jsonl` files, or an
    OpenHands conversation folder's state file (which reads its events). A folder's entry
    named so that is no regular file (a named pipe, a link to nothing) is added to
    `skipped` (`detect.session_folder_files`); with no list, or when nothing else is
    left, it is the error."""
    try:
        is_folder = os.path.isdir(path)
    except (OSError, ValueError):  # pragma: no cover - defensive: isdir reports these as False
        is_folder = False
    if not is_folder:
        return [path]
    try:
        state = conversation_state(Path(path))
    except ValueError as error:  # a conversation's events folder
        raise InputError(str(error)) from None
    if state is not None:
        return [str(state)]
    try:
        found = [str(file) for file in session_folder_files(Path(path), skipped)]
    except ValueError as error:
        raise InputError(str(error)) from None
    if not found:
        raise InputError(f"{path}: is a directory with no .jsonl file (no Claude Code session)")
    return found


def load_paths(
    paths: list[str], max_bytes: int, format: str, skipped: list[Skip] | None = None
) -> Session:
    """What the command was given, read: one file, or one Claude Code session from several.

    Given `skipped`, a file's half-written last line (a live session's) is left out and
    added to it; without, it is an error as any bad line is.
    """
    given = [name for path in paths for name in _files_of(path, skipped)]
    names = distinct_files(given)  # a file named twice is read once
    if names == paths[:1]:
        return _load(_read(paths[0], max_bytes), paths[0], format, skipped)
    if len(names) == 1:  # a folder that names one file (an OpenHands conversation's state)
        return _load(_read(names[0], max_bytes), names[0], format, skipped)
    files = [Source(name, _read(name, max_bytes), *agent_meta(Path(name))) for name in names]
    try:
        return read_sources(files, format, skipped).conversation()
    except (TypeError, ValueError) as error:
        raise InputError(f"{paths[0]}: {error}" if len(paths) == 1 else str(error)) from None
