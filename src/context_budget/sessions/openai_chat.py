"""OpenAI Chat Completions messages: the format, and the message shapes other formats reuse.

`read_openai(data)` reads a JSON list of messages or an object with a `messages`
list. `system` and `developer` messages go to the system layer, joined by
blank lines. An assistant's refusal (its `refusal` field, or a content part of
that type) is its text. An assistant's `tool_calls` become `tool_use` blocks (the name,
and the arguments parsed from their JSON text, or kept as `{"arguments":
text}` when they are not a JSON object), so they are counted. A `tool` message
becomes a user message with one `tool_result` for its `tool_call_id`, so a
wrong id shows up as a broken pair; one without an id stays a shorthand `tool`
message. The file records no usage: its session has no calls.

mini-swe-agent trajectories and OpenHands replies are built of these
messages (`assistant`, `text_of`, `tool_input`).
"""

from __future__ import annotations

import json
from typing import Any

from context_budget._checks import check_message
from context_budget.layers import Layers
from context_budget.messages import Message
from context_budget.sessions.session import Session, checked_layers
from context_budget.sessions.text import kind_of

__all__ = [
    "SYSTEM_ROLES",
    "assistant",
    "is_openai",
    "read",
    "read_openai",
    "text_of",
    "tool_input",
]

#: The roles whose messages go to the system layer.
SYSTEM_ROLES = frozenset({"system", "developer"})


def text_of(content: object, where: str) -> str:
    """The text of an OpenAI content: a string, or the text of its text parts (a
    `refusal` part's refusal)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for number, part in enumerate(content):
            key = "refusal" if isinstance(part, dict) and part.get("type") == "refusal" else "text"
            if not isinstance(part, dict) or not isinstance(part.get(key, ""), str):
                raise TypeError(
                    f"{where}, part {number}: expected a text part, found {kind_of(part)}"
                )
            parts.append(part.get(key, ""))
        return "\n".join(parts)
    raise TypeError(f"{where}: content is {kind_of(content)}, not a string or a list of parts")


def _parts(content: object, where: str) -> str | list[Any]:
    """A user's content: a string, or its parts as blocks (text parts as text blocks)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise TypeError(f"{where}: content is {kind_of(content)}, not a string or a list of parts")
    blocks: list[Any] = []
    for number, part in enumerate(content):
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            raise TypeError(f"{where}, part {number}: expected a part with a 'type'")
        blocks.append(
            {"type": "text", "text": part.get("text")} if part["type"] == "text" else part
        )
    return blocks


def tool_input(arguments: object) -> dict[str, Any]:
    """A call's arguments as a `tool_use` input: the JSON object they hold, else kept as text."""
    parsed: object = arguments
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except (ValueError, RecursionError):  # subtle: arguments nested too deeply to parse
            parsed = None
    return parsed if isinstance(parsed, dict) else {"arguments": arguments}


def _tool_use(call: object, where: str) -> dict[str, Any]:
    if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
        raise TypeError(f"{where}: expected a tool call with a 'function', found {kind_of(call)}")
    function = call["function"]
    return {
        "type": "tool_use",
        "id": call.get("id"),
        "name": function.get("name"),
        "input": tool_input(function.get("arguments", "")),
    }


def assistant(message: dict[str, Any], where: str) -> Message:
    """An OpenAI assistant message as this package's: text (a `refusal` after it), then
    one `tool_use` per call."""
    text = text_of(message.get("content"), where)
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal:
        text = f"{text}\n{refusal}" if text else refusal
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise TypeError(f"{where}: tool_calls is {kind_of(calls)}, not a list")
    blocks: list[Any] = [{"type": "text", "text": text}] if text else []
    blocks += [_tool_use(call, f"{where}, tool call {n}") for n, call in enumerate(calls)]
    return {"role": "assistant", "content": blocks if calls else text}


def read_openai(data: object) -> Layers:
    """The layers of OpenAI messages (a list, or an object with `messages`).

    Raises:
        ValueError, TypeError: a bad message, naming it.
    """
    if isinstance(data, dict):
        if "messages" not in data:
            raise ValueError("the object has no 'messages' list")
        data = data["messages"]
    if not isinstance(data, list):
        raise ValueError(f"expected a list of messages, found {kind_of(data)}")
    system: list[str] = []
    conversation: list[Message] = []
    for index, message in enumerate(data):
        where = f"message {index}"
        if not isinstance(message, dict):
            raise TypeError(f"{where} has type {kind_of(message)}, not an object")
        role = message.get("role")
        if _is_system(role):
            system.append(text_of(message.get("content"), where))
            continue
        if role == "assistant":
            converted = assistant(message, where)
        elif role == "tool" and "tool_call_id" in message:
            result = {
                "type": "tool_result",
                "tool_use_id": message["tool_call_id"],
                "content": text_of(message.get("content"), where),
            }
            converted = {"role": "user", "content": [result]}
        elif role in ("tool", "function"):
            converted = {"role": "tool", "content": text_of(message.get("content"), where)}
            if isinstance(message.get("name"), str):
                converted["name"] = message["name"]
        else:
            converted = {"role": role, "content": _parts(message.get("content"), where)}
        check_message(converted, index)  # the file's index: its own message, as `where`
        conversation.append(converted)
    return Layers("\n\n".join(system), [], conversation)


def _is_system(role: object) -> bool:
    """True for a role whose messages go to the system layer (a role may be any JSON value)."""
    return isinstance(role, str) and role in SYSTEM_ROLES


def is_openai(data: object) -> bool:
    """True for a list with a message only OpenAI writes (tool calls, a tool id, a system role)."""
    return isinstance(data, list) and any(
        isinstance(message, dict)
        and (
            "tool_calls" in message or "tool_call_id" in message or _is_system(message.get("role"))
        )
        for message in data
    )


def read(data: object, name: str = "") -> Session:
    """OpenAI messages as a `Session`: the conversation alone, no calls."""
    return Session("openai", checked_layers(read_openai(data)), files=(name,) if name else ())
