"""Reading the transcripts agents already write, as `Layers`.

`load_transcript(path, format="auto")` reads a file in one of these formats:

- `"messages"`: a JSON list of messages in this package's shapes (the
  `messages` module), the conversation alone;
- `"layers"`: a JSON object `{"system": str, "pinned": [str, ...],
  "conversation": [message, ...]}`, where `system` and `pinned` may be left out;
- `"claude-code"`: a Claude Code session file, JSON Lines, one record a line.
  Only the main conversation is returned: the records of sub-agents
  (`isSidechain: true`) are threads of their own, kept apart; a sub-agent's own
  file, read alone, gives its thread. `path` may also be a folder holding one
  session file and its sub-agents' `agent-*.jsonl` files;
- `"codex"`: a Codex CLI rollout, JSON Lines of `{"timestamp", "type",
  "payload"}`, the conversation in its `response_item` lines;
- `"mini-swe-agent"`: a mini-swe-agent trajectory, an object with
  `trajectory_format: "mini-swe-agent-1.x"` and OpenAI `messages`, whose last
  message (`role: "exit"`) is the run's final output, not a turn;
- `"openhands"`: an OpenHands event list, or a conversation's state file
  (`base_state.json`), which reads the events beside it; `path` may also be
  the conversation's folder;
- `"openai"`: OpenAI Chat Completions messages, a JSON list or an object with
  a `messages` list.

Each format is read by a module of `context_budget.sessions`, whose docstring
says what it reads and what it skips; this module is its face for the
conversation, as `bills` is for the calls.

A file of no format, or of a format of records or events (claude-code, codex,
mini-swe-agent, openhands) that holds no conversation, is refused with a
ValueError that says what was found.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from context_budget.layers import Layers
from context_budget.sessions import (
    FORMATS,
    check_format,
    decode,
    read_sources,
    read_text,
)
from context_budget.sessions.detect import conversation_left_out, session_folder_files
from context_budget.sessions.openhands_state import conversation_state
from context_budget.sessions.skips import Skip, check_skipped, summary
from context_budget.sessions.text import path_given, read_source

__all__ = ["FORMATS", "load_transcript"]


def load_transcript(
    path: str | Path, format: str = "auto", *, skipped: list[Skip] | None = None
) -> Layers:
    """The context a transcript file holds, as `Layers`.

    A session an agent is still writing ends in a half-written line: where a
    file reads without its last line, it is read so, and that line is added to
    `skipped` (a `Skip` naming its file and line); with no list given, a
    `UserWarning` names it (`1 skipped: 1 half-written line (s.jsonl:30)`).

    Args:
        path: the file, a `str` or a `Path`; for a Claude Code session, also
            a folder holding one session file and its sub-agents' files.
        format: `"auto"` (the default: the file's shape decides) or one of
            `FORMATS`; the module's docstring says what each reads.
        skipped: where to note a half-written last line left out, and a
            folder's entry named as a session file that is no regular file (a
            named pipe, a link to nothing).

    Returns:
        The layers: system (OpenAI and Codex system messages; empty otherwise
        unless the file is layers), pinned records, and the main conversation
        in this package's message shapes (without sub-agents' threads, or a
        mini-swe-agent run's final output).

    Raises:
        OSError: the file cannot be read.
        ValueError: an empty path, the file is not UTF-8 or not valid JSON, its
            shape is none of the formats, or a file of records holds no
            conversation; the error names the file, and the line or the message.
        TypeError: a message has a value of the wrong type; the error names it
            and its file.

    Examples:
        >>> import json, pathlib, tempfile
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> trajectory = folder / "run.traj.json"
        >>> _ = trajectory.write_text(json.dumps({"messages": [
        ...     {"role": "system", "content": "You fix bugs."},
        ...     {"role": "user", "content": "Fix shop.py"},
        ...     {"role": "assistant", "content": None, "tool_calls": [{
        ...         "id": "c1", "type": "function",
        ...         "function": {"name": "bash", "arguments": '{"cmd": "ls"}'},
        ...     }]},
        ...     {"role": "tool", "tool_call_id": "c1", "content": "shop.py"},
        ... ]}))
        >>> layers = load_transcript(trajectory)
        >>> layers.system, [message["role"] for message in layers.conversation]
        ('You fix bugs.', ['user', 'assistant', 'user'])
        >>> layers.conversation[1]["content"][0]["input"]
        {'cmd': 'ls'}
    """
    if not isinstance(path, str | Path):
        raise TypeError(f"path must be a str or a Path, got {type(path).__name__}")
    check_skipped(skipped)
    check_format(format)
    found: list[Skip] = []
    layers = _layers(path_given(path), format, found)
    if skipped is not None:
        skipped.extend(found)
    elif found:
        warnings.warn(f"{summary(found)}; the rest is read", UserWarning, stacklevel=2)
    return layers


def _layers(folder: Path, format: str, skipped: list[Skip]) -> Layers:
    """`load_transcript`'s read of a file or folder, a half-written last line added to
    `skipped`, and a folder's entry named as a session file that is no regular file (a
    named pipe, a link to nothing)."""
    if folder.is_dir() and (state := conversation_state(folder)) is not None:
        folder = state  # an OpenHands conversation: its state file reads its events
    if folder.is_dir():
        files = session_folder_files(folder, skipped)
        if not files:
            raise ValueError(f"{folder}: a folder with no .jsonl file (no Claude Code session)")
        sources = [read_source(file) for file in files]
        return read_sources(sources, format, skipped).conversation().layers
    try:
        text = decode(folder.read_bytes(), str(folder))
        session = read_text(text, format, str(folder), skipped)
        return conversation_left_out(session, skipped).conversation().layers
    except (TypeError, ValueError) as error:
        raise _named(error, str(folder)) from None


def _named(error: TypeError | ValueError, name: str) -> TypeError | ValueError:
    """`error`, its message led by the file's name where it does not name it already."""
    said = str(error)
    if said.startswith(name):
        return error
    try:  # the same kind of error, where it is made from a message alone
        return type(error)(f"{name}: {said}")
    except TypeError:
        return ValueError(f"{name}: {said}")
