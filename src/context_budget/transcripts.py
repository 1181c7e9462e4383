"""Reading the transcripts agents already write, as `Layers`.

`load_transcript(path, format="auto")` reads one file in one of four formats:

- `"messages"`: a JSON list of messages in this package's shapes (the
  `messages` module), the conversation alone;
- `"layers"`: a JSON object `{"system": str, "pinned": [str, ...],
  "conversation": [message, ...]}`, where `system` and `pinned` may be left out;
- `"claude-code"`: a Claude Code session file, JSON Lines, one record a line.
  Records of type `"user"` and `"assistant"` carry an Anthropic `message`;
  consecutive assistant records with the same message id are one message
  (Claude Code writes each block of a reply as a record of its own); every
  other record (summaries, snapshots, metadata) is skipped and counted.
  Sub-agent (sidechain) files read the same way;
- `"openai"`: OpenAI Chat Completions messages, a JSON list or an object with
  a `messages` list (a mini-swe-agent trajectory). `system` and `developer`
  messages go to the system layer, joined by blank lines. An assistant's
  `tool_calls` become `tool_use` blocks (the name, and the arguments parsed
  from their JSON text, or kept as `{"arguments": text}` when they are not a
  JSON object), so they are counted. A `tool` message becomes a user message
  with one `tool_result` for its `tool_call_id`, so a wrong id shows up as a
  broken pair; one without an id stays a shorthand `tool` message.

With `format="auto"` the shape decides: an object with `conversation` is
layers, an object with `messages` is openai, a list is openai when a message
has `tool_calls`, a `tool_call_id` or the role `system` or `developer`, and
messages otherwise; a file whose lines are records with a `type` is
claude-code.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from context_budget.layers import Layers
from context_budget.messages import Message, _bad_scalar, _check_message

__all__ = ["FORMATS", "load_transcript"]

#: The formats `load_transcript` reads; `"auto"` picks one of the others.
FORMATS = ("auto", "messages", "layers", "claude-code", "openai")

_TOP_KEYS = ("system", "pinned", "conversation")
_SYSTEM_ROLES = frozenset({"system", "developer"})
_KINDS = {
    dict: "an object",
    list: "a list",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


@dataclass(frozen=True)
class _Transcript:
    """A file read as layers, with what the reader found on the way.

    Attributes:
        layers: the context.
        format: the format read, one of `FORMATS` but `"auto"`.
        detected: True when `format="auto"` chose it.
        skipped: records skipped as not messages (claude-code only).
    """

    layers: Layers
    format: str
    detected: bool
    skipped: int = 0


def _kind(value: object) -> str:
    return _KINDS.get(type(value), type(value).__name__)


def _loads(text: str) -> object:
    """`json.loads`, with a number too long for Python refused as bad JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # subtle: int("9" * 5000) is refused by Python, not by the parser
        limit = sys.get_int_max_str_digits()
        raise ValueError(f"a number has more than {limit:,} digits, too long to read") from None
    except RecursionError:
        raise ValueError("the JSON is nested too deeply to read") from None


def _json(text: str) -> tuple[object, bool]:
    """(the parsed document, True) or (None, False) when `text` is not one JSON document."""
    try:
        return _loads(text), True
    except json.JSONDecodeError:
        return None, False


def _records(text: str) -> bool:
    """True when the first line of `text` that is not blank is a JSON record with a type."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        record = json.loads(first)
    except ValueError:
        return False
    return isinstance(record, dict) and "type" in record


def _detect(text: str, data: object, parsed: bool) -> str:
    if not parsed:
        if _records(text):
            return "claude-code"
        _strict_json(text)  # raises, naming where the JSON breaks
    if isinstance(data, dict) and "type" in data and "conversation" not in data:
        return "claude-code"
    if isinstance(data, dict):  # layers, unless it holds an OpenAI messages list
        return "openai" if "messages" in data and "conversation" not in data else "layers"
    if isinstance(data, list):
        openai = any(
            isinstance(message, dict)
            and (
                "tool_calls" in message
                or "tool_call_id" in message
                or message.get("role") in _SYSTEM_ROLES
            )
            for message in data
        )
        return "openai" if openai else "messages"
    raise ValueError(
        "expected a list of messages, an object with 'conversation' or 'messages', "
        f"or Claude Code records one a line; found {_kind(data)}"
    )


def _parse(text: str, format: str = "auto") -> _Transcript:
    """The text of a transcript file read as `format`; ValueError or TypeError names the place."""
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {format!r}")
    data, parsed = _json(text) if format != "claude-code" else (None, False)
    chosen = _detect(text, data, parsed) if format == "auto" else format
    if chosen != "claude-code" and not parsed:
        data = _strict_json(text)
    if chosen == "messages":
        if not isinstance(data, list):
            raise ValueError(f"expected a list of messages, found {_kind(data)}")
        layers = _checked(Layers("", [], data))
        return _Transcript(layers, chosen, format == "auto")
    if chosen == "layers":
        return _Transcript(_layers(data), chosen, format == "auto")
    if chosen == "openai":
        return _Transcript(_checked(_openai(data)), chosen, format == "auto")
    layers, skipped = _claude_code(text)
    return _Transcript(_checked(layers), chosen, format == "auto", skipped)


def _strict_json(text: str) -> object:
    try:
        return _loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None


def _checked(layers: Layers) -> Layers:
    """The layers, once every message and every string in them is known to be sound."""
    for where, text in [("system", layers.system)] + [
        (f"pinned record {number}", record) for number, record in enumerate(layers.pinned)
    ]:
        if (problem := _bad_scalar(text)) is not None:
            raise ValueError(f"{where}: {problem}")
    for index, message in enumerate(layers.conversation):
        _check_message(message, index)
    return layers


def _layers(data: object) -> Layers:
    if not isinstance(data, dict):
        raise ValueError(
            f"expected an object with system, pinned and conversation, found {_kind(data)}"
        )
    unknown = sorted(str(key) for key in data if key not in _TOP_KEYS)
    if unknown:
        raise ValueError(
            f"unexpected key {unknown[0]!r} in the top-level object "
            "(expected system, pinned, conversation)"
        )
    if "conversation" not in data:
        raise ValueError("the top-level object has no 'conversation'")
    return _checked(Layers(data.get("system", ""), data.get("pinned", []), data["conversation"]))


# ---------------------------------------------------------------- claude code


def _claude_code(text: str) -> tuple[Layers, int]:
    """The messages of a Claude Code session file, and how many records were skipped."""
    messages: list[Message] = []
    ids: list[object] = []  # the API message id of each message, None if it has none
    skipped = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = _loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"line {number}: not valid JSON: {error.msg}") from None
        except ValueError as error:
            raise ValueError(f"line {number}: {error}") from None
        if not isinstance(record, dict):
            raise ValueError(f"line {number}: expected a record (an object), found {_kind(record)}")
        message = record.get("message")
        if record.get("type") not in ("user", "assistant") or not isinstance(message, dict):
            skipped += 1
            continue
        role = message.get("role", record["type"])
        content = message.get("content")
        if content is None:
            raise ValueError(f"line {number}: the {role} message has no content")
        converted: Message = {"role": role, "content": content}
        try:
            _check_message(converted)
        except (TypeError, ValueError) as error:
            raise type(error)(f"line {number}: {error}") from None
        message_id = message.get("id")
        merge = (
            messages
            and role == "assistant"
            and messages[-1]["role"] == "assistant"
            and message_id is not None
            and ids[-1] == message_id
        )
        if merge:
            messages[-1]["content"] = _as_blocks(messages[-1]["content"]) + _as_blocks(content)
        else:
            messages.append(converted)
            ids.append(message_id)
    return Layers("", [], messages), skipped


def _as_blocks(content: str | list[Any]) -> list[Any]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


# ---------------------------------------------------------------- openai


def _text_of(content: object, where: str) -> str:
    """The text of an OpenAI content: a string, or the text of its text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for number, part in enumerate(content):
            if not isinstance(part, dict) or not isinstance(part.get("text", ""), str):
                raise TypeError(
                    f"{where}, part {number}: expected a text part, found {_kind(part)}"
                )
            parts.append(part.get("text", ""))
        return "\n".join(parts)
    raise TypeError(f"{where}: content is {_kind(content)}, not a string or a list of parts")


def _parts(content: object, where: str) -> str | list[Any]:
    """A user's content: a string, or its parts as blocks (text parts as text blocks)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise TypeError(f"{where}: content is {_kind(content)}, not a string or a list of parts")
    blocks: list[Any] = []
    for number, part in enumerate(content):
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            raise TypeError(f"{where}, part {number}: expected a part with a 'type'")
        blocks.append(
            {"type": "text", "text": part.get("text")} if part["type"] == "text" else part
        )
    return blocks


def _tool_use(call: object, where: str) -> dict[str, Any]:
    if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
        raise TypeError(f"{where}: expected a tool call with a 'function', found {_kind(call)}")
    function = call["function"]
    arguments = function.get("arguments", "")
    parsed: object = arguments
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except (ValueError, RecursionError):  # subtle: arguments nested too deeply to parse
            parsed = None
    tool_input = parsed if isinstance(parsed, dict) else {"arguments": arguments}
    return {
        "type": "tool_use",
        "id": call.get("id"),
        "name": function.get("name"),
        "input": tool_input,
    }


def _openai(data: object) -> Layers:
    if isinstance(data, dict):
        if "messages" not in data:
            raise ValueError("the object has no 'messages' list")
        data = data["messages"]
    if not isinstance(data, list):
        raise ValueError(f"expected a list of messages, found {_kind(data)}")
    system: list[str] = []
    conversation: list[Message] = []
    for index, message in enumerate(data):
        where = f"message {index}"
        if not isinstance(message, dict):
            raise TypeError(f"{where} has type {_kind(message)}, not an object")
        role = message.get("role")
        if role in _SYSTEM_ROLES:
            system.append(_text_of(message.get("content"), where))
            continue
        if role == "assistant":
            text = _text_of(message.get("content"), where)
            calls = message.get("tool_calls") or []
            if not isinstance(calls, list):
                raise TypeError(f"{where}: tool_calls is {_kind(calls)}, not a list")
            blocks: list[Any] = [{"type": "text", "text": text}] if text else []
            blocks += [_tool_use(call, f"{where}, tool call {n}") for n, call in enumerate(calls)]
            converted: Message = {"role": "assistant", "content": blocks if calls else text}
        elif role == "tool" and "tool_call_id" in message:
            result = {
                "type": "tool_result",
                "tool_use_id": message["tool_call_id"],
                "content": _text_of(message.get("content"), where),
            }
            converted = {"role": "user", "content": [result]}
        elif role in ("tool", "function"):
            converted = {"role": "tool", "content": _text_of(message.get("content"), where)}
            if isinstance(message.get("name"), str):
                converted["name"] = message["name"]
        else:
            converted = {"role": role, "content": _parts(message.get("content"), where)}
        try:
            _check_message(converted, len(conversation))
        except (TypeError, ValueError) as error:
            raise type(error)(f"{where} (openai): {error}") from None
        conversation.append(converted)
    return Layers("\n\n".join(system), [], conversation)


def _read_text(path: Path) -> str:
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"{path}: not UTF-8 text (byte {raw[error.start]:#04x} at offset {error.start})"
        ) from None


def load_transcript(path: str | Path, format: str = "auto") -> Layers:
    """The context a transcript file holds, as `Layers`.

    Args:
        path: the file, a `str` or a `Path`.
        format: `"auto"` (the default: the file's shape decides), `"messages"`,
            `"layers"`, `"claude-code"` or `"openai"`; the module's docstring
            says what each reads.

    Returns:
        The layers: system (OpenAI system messages; empty otherwise unless
        the file is layers), pinned records, and the conversation in this
        package's message shapes.

    Raises:
        OSError: the file cannot be read.
        ValueError: the file is not UTF-8 or not valid JSON, or its shape is
            none of the formats; the error names the line or the message.
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
    return _parse(_read_text(Path(path)), format).layers
