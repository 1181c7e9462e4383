"""A request's prompt as a row of blocks, each keyed by the hash of the prefix it ends.

The prompt is read in the order tools -> system -> messages: each tool
definition, each `system` text block (a string `system` is one block) and
each content block of each message (a string `content` is one block). A
block's tokens are the counter applied to its text (a text block's `text`, a
tool result's content, a `tool_use`'s name and compact JSON input, a tool
definition's or any other block's compact JSON without its `cache_control`).
`tool_choice`, thinking settings, `output_config.effort` and the presence of
images are hashed in where `messages` starts, `speed` where `system` starts.
Every cache model (`cache.PromptCache`) reads a request through this one row.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from context_budget._blocks import request_block_text
from context_budget._checks import check_messages, first_bad_value, is_json_data
from context_budget._json import canonical_json
from context_budget._values import short_repr
from context_budget.errors import InvalidRequestError

__all__ = ["DEFAULT_EFFORT", "EFFORTS", "TTLS", "Block", "prompt_row", "request_ttl"]

#: The `cache_control` lifetimes a request may name (Anthropic's format).
TTLS = ("5m", "1h")
#: The `output_config.effort` levels the API takes.
EFFORTS = ("low", "medium", "high", "xhigh", "max")
#: The API's effort when none is given; naming it explicitly is the same request
#: (https://platform.claude.com/docs/en/build-with-claude/effort, 2026-08-21).
DEFAULT_EFFORT = "high"

_THINKING = ("thinking", "redacted_thinking")


@dataclass(frozen=True)
class Block:
    """One block of the prompt row."""

    key: str  # cumulative hash of the prefix up to and including this block
    tokens: int
    eligible: bool  # may carry cache_control
    # the TTLs of its cache_control markers in prefix order: those on blocks inside a
    # tool_result's content first, then the block's own; empty without one
    markers: tuple[str, ...] = field(default=())
    message: int = -1  # the index of the message it belongs to; -1 for tools and system

    @property
    def ttl(self) -> str | None:
        """The TTL of the breakpoint its markers make (the last marker's), None without one."""
        return self.markers[-1] if self.markers else None

    def marked(self, ttl: str) -> Block:
        """This block with one marker of `ttl` (a breakpoint): `replace(self, markers=(ttl,))`,
        several times sooner, every field named (a replay marks a few blocks of each
        request it sends)."""
        return Block(self.key, self.tokens, self.eligible, (ttl,), self.message)


def request_ttl(control: object, where: str) -> str:
    if not isinstance(control, Mapping) or control.get("type") != "ephemeral":
        raise ValueError(
            f"{where}: cache_control must be {{'type': 'ephemeral'}}, got {short_repr(control)}"
        )
    ttl = control.get("ttl", "5m")
    if not isinstance(ttl, str) or ttl not in TTLS:
        raise ValueError(f"{where}: cache_control ttl must be '5m' or '1h', got {short_repr(ttl)}")
    return ttl


def _marker(block: Mapping[str, Any], where: str, refuse: bool) -> str | None:
    """The TTL of `block`'s own `cache_control`, None without one.

    A marker where the API refuses one raises when `refuse`, and is no marker
    otherwise (counting tokens does not need the request to be valid).
    """
    control = block.get("cache_control")
    if control is None:
        return None
    kind = block.get("type")
    if not refuse and (kind in _THINKING or (kind == "text" and block.get("text") == "")):
        return None
    if kind in _THINKING:
        # the API's thinking blocks have no cache_control field at all
        raise InvalidRequestError(f"{where}.{kind}.cache_control: Extra inputs are not permitted")
    if kind == "text" and block.get("text") == "":
        raise InvalidRequestError(
            f"{where}.text: cache_control cannot be set for empty text blocks"
        )
    return request_ttl(control, where)


def _markers(block: Mapping[str, Any], where: str, refuse: bool = True) -> tuple[str, ...]:
    """TTLs of every marker a block holds: inside a tool_result's content, then its own.

    A `cache_control` on a block inside a `tool_result`'s content is how the
    docs' tool runners cache a tool result (tool-runner.md, Go and Java); it
    counts toward the 4 breakpoints, and the model places its breakpoint at
    the end of the enclosing block.
    """
    found: list[str] = []
    content = block.get("content") if block.get("type") == "tool_result" else None
    if isinstance(content, list):
        for number, inner in enumerate(content):
            ttl = _marker(inner, f"{where}.content.{number}", refuse)
            if ttl is not None:
                found.append(ttl)
    own = _marker(block, where, refuse)
    if own is not None:
        found.append(own)
    return tuple(found)


def _unmarked(block: Mapping[str, Any]) -> dict[str, Any]:
    """`block` without its markers (its own and those inside a tool_result's content)."""
    out = {k: v for k, v in block.items() if k != "cache_control"}
    content = out.get("content")
    if out.get("type") == "tool_result" and isinstance(content, list):
        out["content"] = [
            {k: v for k, v in inner.items() if k != "cache_control"}
            if isinstance(inner, Mapping)
            else inner
            for inner in content
        ]
    return out


def _eligible(block: Mapping[str, Any]) -> bool:
    kind = block.get("type")
    if kind in _THINKING:
        return False
    return not (kind == "text" and not block.get("text"))


def _check_data(value: object, where: str) -> None:
    """A tool definition or system block must be JSON data, nested at most `MAX_DEPTH` deep."""
    if isinstance(value, dict) and not is_json_data(value):
        path, problem = first_bad_value(value)
        if len(path) > 60:
            path = path[:57] + "..."
        raise TypeError(f"{where} at {path}: {problem}")


def _settings(request: Mapping[str, Any]) -> dict[str, Any]:
    """The request fields hashed where `messages` starts, checked and normalized.

    Raises:
        TypeError: `tool_choice`, `thinking` or `output_config` is not a dict.
        ValueError: `output_config.effort` is not one of `EFFORTS`.
    """
    for name in ("tool_choice", "thinking", "output_config"):
        value = request.get(name)
        if value is not None and not isinstance(value, Mapping):
            raise TypeError(f"{name} must be a dict, got {short_repr(value)}")
        if isinstance(value, dict):
            _check_data(value, name)
    effort = (request.get("output_config") or {}).get("effort")
    if effort is not None and (not isinstance(effort, str) or effort not in EFFORTS):
        raise ValueError(
            f"output_config.effort must be one of {', '.join(EFFORTS)}, got {short_repr(effort)}"
        )
    if effort == DEFAULT_EFFORT:
        effort = None  # subtle: naming the default is the same prompt as omitting it
    return {
        "tool_choice": request.get("tool_choice"),
        "thinking": request.get("thinking"),
        "effort": effort,
    }


def _kept_thinking_from(thinking: str, messages: Sequence[Mapping[str, Any]]) -> int:
    """The first message whose thinking blocks stay in the prompt.

    Where only the last turn's thinking is kept (`thinking == "last-turn"`),
    that is the last user message that holds anything but tool results (a
    string content counts); elsewhere 0.
    """
    if thinking != "last-turn":
        return 0
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        content = message["content"]
        if message["role"] == "user" and (
            isinstance(content, str) or any(b["type"] != "tool_result" for b in content)
        ):
            return index
    return 0


def _has_image(messages: Sequence[Mapping[str, Any]]) -> bool:
    """True when a dict anywhere in `messages` (checked JSON data: `check_messages`) has
    `"type": "image"`. One loop over a stack of the values still to see: a recursive walk,
    a generator a level, took three times as long, a fifth of a prompt's row."""
    stack: list[Any] = list(messages)
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if value.get("type") == "image":
                return True
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


def prompt_row(
    request: Mapping[str, Any],
    model: str,
    count: Callable[[str], int],
    *,
    thinking: str = "all",
    refuse: bool = True,
) -> list[Block]:
    """The request's prompt as blocks, in the order tools -> system -> messages.

    Each `Block` is keyed by the cumulative hash of everything up to and
    including it (its markers left out), seeded with `model`.

    Args:
        request: `messages.create` arguments.
        model: the model id the hashes start from.
        count: text -> tokens of one block.
        thinking: which earlier thinking the prompt keeps (`"last-turn"` or
            `"all"`; `models.Model.thinking`).
        refuse: False lets a marker where the API refuses one pass (as no
            marker), for counting tokens only.
    """
    tools, system, messages, speed = _parts(request)
    settings = {**_settings(request), "images": _has_image(messages)}
    row = _Row(hashlib.sha256(canonical_json(model).encode()), count, refuse)
    for number, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise TypeError(f"tools[{number}] has type {type(tool).__name__}, not dict")
        _check_data(tool, f"tools[{number}]")
        unmarked = _unmarked(tool)
        row.add(f"tools.{number}", tool, canonical_json(unmarked), unmarked)
    row.digest.update(b"\x01system" + canonical_json(speed).encode())
    for number, block in enumerate(system):
        _check_system_block(block, number)
        row.add(f"system.{number}", block, block["text"], _unmarked(block))
    row.digest.update(b"\x01messages" + canonical_json(settings).encode())
    kept_from = _kept_thinking_from(thinking, messages)
    for index, message in enumerate(messages):
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for number, block in enumerate(blocks):
            stripped = index < kept_from and message["role"] == "assistant"
            if stripped and block["type"] in _THINKING:
                continue  # dropped from the prompt: neither counted nor hashed
            hashed = {**_unmarked(block), "_role": message["role"]}
            where = f"messages.{index}.content.{number}"
            row.add(where, block, request_block_text(block), hashed, index)
    return row.blocks


class _Row:
    """A prompt's blocks as they are added, each keyed by the hash of all up to it."""

    def __init__(self, digest: Any, count: Callable[[str], int], refuse: bool) -> None:
        self.digest = digest
        self.count = count
        self.refuse = refuse
        self.blocks: list[Block] = []

    def add(
        self,
        where: str,
        block: Mapping[str, Any],
        text: str,
        hashed: Mapping[str, Any],
        message: int = -1,
    ) -> None:
        """Add `block` (at `where`, in message `message` or -1), its `text` counted and
        `hashed` (the block without its markers) added to the running hash."""
        markers = _markers(block, where, self.refuse)
        self.digest.update(b"\x00" + canonical_json(hashed).encode())
        tokens = self.count(text)
        self.blocks.append(
            Block(self.digest.hexdigest(), tokens, _eligible(block), markers, message)
        )


def _parts(request: Mapping[str, Any]) -> tuple[list[Any], list[Any], list[Any], str | None]:
    """(tools, system blocks, messages, speed) of a request, checked; a system given as a
    string is one text block.

    Raises:
        TypeError, ValueError: a part of the wrong type, or a malformed message.
    """
    # a part left out or None is none; an empty one of another type is refused below
    tools, system, messages = request.get("tools"), request.get("system"), request.get("messages")
    tools = [] if tools is None else tools
    system = [] if system is None or system == "" else system  # "": no system prompt
    messages = [] if messages is None else messages
    if not isinstance(tools, list):
        raise TypeError(f"tools must be a list of dicts, got {type(tools).__name__}")
    check_messages(messages)
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    if not isinstance(system, list):
        raise TypeError(f"system must be a str or a list of blocks, got {type(system).__name__}")
    speed = request.get("speed")
    if speed is not None and not isinstance(speed, str):
        raise TypeError(f"speed must be a str, got {short_repr(speed)}")
    return tools, system, messages, speed


def _check_system_block(block: object, number: int) -> None:
    """Refuse a system block that is not a text block with text (naming `system[number]`)."""
    if not isinstance(block, dict) or block.get("type") != "text":
        raise TypeError(f"system[{number}] must be a text block, got {short_repr(block)}")
    if "text" not in block:
        raise ValueError(f"system[{number}] (text) has no 'text'")
    if not isinstance(block["text"], str):
        found = type(block["text"]).__name__
        raise TypeError(f"system[{number}] (text) has 'text' of type {found}, not str")
    _check_data(block, f"system[{number}]")
