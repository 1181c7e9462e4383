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
- `"openhands"`: an OpenHands event list;
- `"openai"`: OpenAI Chat Completions messages, a JSON list or an object with
  a `messages` list.

Each reader is a module of `context_budget._transcripts`, whose docstring
says what it reads and what it skips.

With `format="auto"` the shape decides: JSON Lines whose first record has a
Codex record type and a `payload` are codex, other records with a `type` are
claude-code; an object with a `trajectory_format` naming mini-swe-agent is
mini-swe-agent, one with `conversation` is layers, one with `messages` is
openai; a list of events with a `source` and an `action` or `observation` is
openhands, a list is openai when a message has `tool_calls`, a `tool_call_id`
or the role `system` or `developer`, and messages otherwise.

A file of no format, or of a format of records or events (claude-code, codex,
mini-swe-agent, openhands) that holds no conversation, is refused with a
ValueError that says what was found.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from context_budget._transcripts._claude_code import File, read_claude_code
from context_budget._transcripts._codex import RECORD_TYPES as _CODEX_TYPES
from context_budget._transcripts._codex import read_codex
from context_budget._transcripts._common import (
    Transcript,
    checked_layers,
    kind_of,
    loads_json,
    split_lines,
    strict_json,
    try_json,
)
from context_budget._transcripts._openai import SYSTEM_ROLES, read_mini_swe_agent, read_openai
from context_budget._transcripts._openhands import is_events, read_openhands
from context_budget.layers import Layers

__all__ = ["FORMATS", "load_transcript"]

#: The formats `load_transcript` reads; `"auto"` picks one of the others.
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

#: The formats whose file is JSON Lines, one record a line.
_LINES = frozenset({"claude-code", "codex"})
_TOP_KEYS = ("system", "pinned", "conversation")


def _first_record(text: str) -> dict[str, object] | None:
    """The first line of `text` that is not blank, when it is a JSON record with a type."""
    first = next((line for line in split_lines(text) if line.strip()), "")
    try:
        record = json.loads(first)
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) and "type" in record else None


def _record_format(record: dict[str, object]) -> str:
    """The format of a file whose first record is `record`: codex or claude-code."""
    return "codex" if record.get("type") in _CODEX_TYPES and "payload" in record else "claude-code"


def _is_mini_swe_agent(data: dict[str, object]) -> bool:
    name = data.get("trajectory_format")
    return isinstance(name, str) and name.startswith("mini-swe-agent")


def _detect(text: str, data: object, parsed: bool) -> str:
    if not parsed:
        if (record := _first_record(text)) is not None:
            return _record_format(record)
        strict_json(text)  # raises, naming where the JSON breaks
    if isinstance(data, dict) and _is_mini_swe_agent(data):
        return "mini-swe-agent"
    if isinstance(data, dict) and "type" in data and "conversation" not in data:
        return _record_format(data)
    if isinstance(data, dict):  # layers, unless it holds an OpenAI messages list
        return "openai" if "messages" in data and "conversation" not in data else "layers"
    if is_events(data):
        return "openhands"
    if isinstance(data, list):
        openai = any(
            isinstance(message, dict)
            and (
                "tool_calls" in message
                or "tool_call_id" in message
                or message.get("role") in SYSTEM_ROLES
            )
            for message in data
        )
        return "openai" if openai else "messages"
    raise ValueError(
        "no known format: expected a list of messages or events, an object with "
        "'conversation', 'messages' or 'trajectory_format', or JSON Lines records with "
        f"a 'type'; found {kind_of(data)}"
    )


def _check_format(format: str) -> None:
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {format!r}")


def _parse(text: str, format: str = "auto") -> Transcript:
    """The text of a transcript file read as `format`; ValueError or TypeError names the place."""
    _check_format(format)
    data, parsed = try_json(text) if format not in _LINES else (None, False)
    chosen = _detect(text, data, parsed) if format == "auto" else format
    detected = format == "auto"
    if chosen == "claude-code":
        return _parse_files([File("", text)], format)
    if chosen == "codex":
        layers, skipped = read_codex(text)
        return Transcript(checked_layers(layers), chosen, detected, skipped)
    if not parsed:
        data = strict_json(text)
    if chosen == "messages":
        if not isinstance(data, list):
            raise ValueError(f"expected a list of messages, found {kind_of(data)}")
        return Transcript(checked_layers(Layers("", [], data)), chosen, detected)
    if chosen == "layers":
        return Transcript(_layers(data), chosen, detected)
    if chosen == "mini-swe-agent":
        layers, final = read_mini_swe_agent(data)
        if not layers.conversation:
            raise ValueError("a mini-swe-agent trajectory with no conversation: no messages")
        return Transcript(checked_layers(layers), chosen, detected, final=final)
    if chosen == "openhands":
        layers, skipped = read_openhands(data)
        return Transcript(checked_layers(layers), chosen, detected, skipped)
    return Transcript(checked_layers(read_openai(data)), chosen, detected)


def _parse_files(files: Sequence[File], format: str = "auto") -> Transcript:
    """Several Claude Code files (a session and its sub-agents' files) read as one session."""
    _check_format(format)
    if format not in ("auto", "claude-code"):
        raise ValueError(
            f"a folder or several files are read as one Claude Code session, not as {format}"
        )
    session = read_claude_code(files)
    layers = checked_layers(Layers("", [], session.messages))
    for thread in session.threads:
        checked_layers(Layers("", [], thread.messages))
    return Transcript(
        layers,
        "claude-code",
        format == "auto",
        session.skipped,
        session.threads,
        session.boundaries,
        files=tuple(file.name for file in files if file.name),
    )


def _layers(data: object) -> Layers:
    if not isinstance(data, dict):
        raise ValueError(
            f"expected an object with system, pinned and conversation, found {kind_of(data)}"
        )
    unknown = sorted(str(key) for key in data if key not in _TOP_KEYS)
    if unknown:
        raise ValueError(
            f"unexpected key {unknown[0]!r} in the top-level object "
            "(expected system, pinned, conversation)"
        )
    if "conversation" not in data:
        raise ValueError("the top-level object has no 'conversation'")
    return checked_layers(
        Layers(data.get("system", ""), data.get("pinned", []), data["conversation"])
    )


def _read_text(path: Path) -> str:
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"{path}: not UTF-8 text (byte {raw[error.start]:#04x} at offset {error.start})"
        ) from None


def _session_files(folder: Path) -> list[Path]:
    """The `.jsonl` files of a Claude Code folder and its sub-folders, sessions before agents."""
    found = sorted(path for path in folder.rglob("*.jsonl") if path.is_file())
    return sorted(found, key=lambda path: (path.name.startswith("agent-"), str(path)))


def _description(path: Path) -> str:
    """The `description` of a sub-agent file's `.meta.json` beside it, or ""."""
    meta = path.with_name(path.stem + ".meta.json")
    if not meta.is_file():
        return ""
    try:
        data = loads_json(_read_text(meta))
    except (OSError, ValueError):
        return ""
    description = data.get("description") if isinstance(data, dict) else None
    return description if isinstance(description, str) else ""


def _folder(folder: Path, format: str) -> Transcript:
    paths = _session_files(folder)
    if not paths:
        raise ValueError(f"{folder}: a folder with no .jsonl file (no Claude Code session)")
    files = [File(str(path), _read_text(path), _description(path)) for path in paths]
    return _parse_files(files, format)


def load_transcript(path: str | Path, format: str = "auto") -> Layers:
    """The context a transcript file holds, as `Layers`.

    Args:
        path: the file, a `str` or a `Path`; for a Claude Code session, also
            a folder holding one session file and its sub-agents' files.
        format: `"auto"` (the default: the file's shape decides) or one of
            `FORMATS`; the module's docstring says what each reads.

    Returns:
        The layers: system (OpenAI and Codex system messages; empty otherwise
        unless the file is layers), pinned records, and the main conversation
        in this package's message shapes (without sub-agents' threads, or a
        mini-swe-agent run's final output).

    Raises:
        OSError: the file cannot be read.
        ValueError: the file is not UTF-8 or not valid JSON, its shape is
            none of the formats, or a file of records holds no conversation;
            the error names the line or the message.
        TypeError: a message has a value of the wrong type; the error names it.

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
    _check_format(format)
    if Path(path).is_dir():
        return _folder(Path(path), format).layers
    return _parse(_read_text(Path(path)), format).layers
