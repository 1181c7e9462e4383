"""Codex CLI rollouts (`rollout-*.jsonl`): the conversation, and the calls its totals record.

Every line is `{"timestamp", "type", "payload"}`. The conversation is in the
`response_item` lines, items of the OpenAI Responses API:

- a `message`: `developer` and `system` ones go to the system layer (with the
  `session_meta` line's `base_instructions`), joined by blank lines; `user`
  and `assistant` ones are messages, their text parts joined by newlines;
- `reasoning`: its summary's text, a `thinking` block (reasoning kept only
  encrypted has no text to count and is left out);
- `function_call` and `custom_tool_call`: a `tool_use` (the call's `call_id`,
  its name, its arguments as for OpenAI tool calls; a custom call's text input
  as `{"input": text}`); `function_call_output` and `custom_tool_call_output`:
  a user message with the `tool_result` for its `call_id`;
- any other item (a shell or web search call) is kept as a block of its own,
  counted by its JSON.

Consecutive assistant items are one assistant message, as they are one reply.
`session_meta`, `turn_context` and `event_msg` lines are skipped as messages.

The calls are in `event_msg` lines whose `payload.type` is `token_count`, at
`payload.info.total_token_usage` (cumulative over the session). A call is one
rise of the cumulative total: its tokens are the difference from the previous
total (an event that repeats the total is not a call). `input_tokens`
includes the cached ones, so the uncached tail is `input_tokens -
cached_input_tokens`. A total that also counts `cache_write_input_tokens`
(GPT-5.6 and later charge for them) has those inside `input_tokens` too: they
become the call's cache writes and leave the uncached tail; without one, the
call wrote nothing. The model is the latest
`turn_context` line's. The thread is `<session id>/main`, the whole id: Codex
ids are time-ordered (UUIDv7), so their first part is shared by every rollout
started in the same minute or so.

A fork starts with its own `session_meta` carrying `forked_from_id`, then
copies its parent's history: the parent's `session_meta` and `token_count`
events, stamped no later than the fork's creation (its first `session_meta`'s
`timestamp`). Those events only move the cumulative total on; the fork's calls
are the rises stamped after its creation. The session id is the first
`session_meta`'s, and so are the instructions.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from context_budget._checks import check_message
from context_budget._json import canonical_json
from context_budget.layers import Layers
from context_budget.messages import Message
from context_budget.sessions.openai_chat import text_of, tool_input
from context_budget.sessions.session import Call, Session, ThreadId
from context_budget.sessions.text import count_of, epoch, json_lines, tally
from context_budget.usage import Usage

__all__ = ["RECORD_TYPES", "is_rollout", "read"]

#: The record types of a rollout; a file whose first record has one of them is a rollout.
RECORD_TYPES = frozenset(
    {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
)

_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
_FIELDS = ("input_tokens", "cached_input_tokens", "output_tokens", "cache_write_input_tokens")
#: The thread of a call read before the rollout's id is known for sure (a fork names its own).
_UNNAMED = ThreadId()


def is_rollout(record: dict[str, Any]) -> bool:
    """True when a file's first record is a rollout's: a Codex record type and a `payload`."""
    kind = record.get("type")
    return isinstance(kind, str) and kind in RECORD_TYPES and "payload" in record


def _output_text(output: object) -> str:
    """A call's output as text: a string, or the `content` of an object, else its JSON."""
    if isinstance(output, str):
        return output
    if isinstance(output, dict) and isinstance(output.get("content"), str):
        return str(output["content"])
    return canonical_json(output)


def _assistant_block(item: dict[str, Any], where: str) -> dict[str, Any] | None:
    """The block an assistant-side item becomes; None for one with nothing to count."""
    kind = item.get("type")
    if kind == "message":
        return {"type": "text", "text": text_of(item.get("content"), where)}
    if kind == "reasoning":
        summary = item.get("summary") or []
        text = text_of(summary, f"{where}, summary") if isinstance(summary, list) else ""
        return {"type": "thinking", "thinking": text} if text else None
    if kind == "function_call":
        arguments = item.get("arguments", "")
        return {
            "type": "tool_use",
            "id": item.get("call_id"),
            "name": item.get("name"),
            "input": tool_input(arguments),
        }
    if kind == "custom_tool_call":
        return {
            "type": "tool_use",
            "id": item.get("call_id"),
            "name": item.get("name"),
            "input": {"input": item.get("input", "")},
        }
    return dict(item)


def _item_message(item: dict[str, Any], conversation: list[Message], where: str) -> Message | None:
    """The message a `response_item` gives (the last one, grown, for an assistant item)."""
    role = item.get("role")
    if item.get("type") == "message" and role != "assistant":
        return {"role": role, "content": text_of(item.get("content"), where)}
    if item.get("type") in _OUTPUTS:
        result = {
            "type": "tool_result",
            "tool_use_id": item.get("call_id"),
            "content": _output_text(item.get("output")),
        }
        return {"role": "user", "content": [result]}
    block = _assistant_block(item, where)
    if block is None:
        return None
    last = conversation[-1] if conversation else None
    if last is not None and last["role"] == "assistant":
        last["content"].append(block)
        return last
    return {"role": "assistant", "content": [block]}


class _Reading:
    """A rollout's lines read so far: the conversation, the calls, the problems."""

    def __init__(self, name: str) -> None:
        self.session = PurePath(name).stem or "rollout"
        self.model = "unknown"
        self.system: list[str] = []
        self.conversation: list[Message] = []
        self.calls: list[Call] = []
        self.last = (0, 0, 0, 0)
        self.writes_recorded = False  # a total counted `cache_write_input_tokens`
        self.skipped: dict[str, int] = {}
        self.problem: Exception | None = None
        self.usage_problem: Exception | None = None
        self.metas = 0
        self.forked_at: float | None = None  # a fork's creation, seconds since the epoch

    def line(self, number: int, record: dict[str, Any]) -> None:
        kind, payload = record.get("type"), record.get("payload")
        if not isinstance(payload, dict):
            payload = None
        if kind == "session_meta" and payload is not None:
            try:
                self._meta(number, record, payload)
            except ValueError as error:  # a fork's creation time that is not a time
                self.usage_problem = self.usage_problem or error
        elif kind == "turn_context" and payload is not None:
            model = payload.get("model")
            self.model = model if isinstance(model, str) else self.model
        elif kind == "event_msg" and payload is not None and self.usage_problem is None:
            try:
                self._tokens(number, record, payload)
            except ValueError as error:
                self.usage_problem = error
        if kind != "response_item" or payload is None:
            label = kind if isinstance(kind, str) else "(no type)"
            self.skipped[label] = self.skipped.get(label, 0) + 1
        elif self.problem is None:
            try:
                self._item(number, payload)
            except (TypeError, ValueError) as error:
                self.problem = type(error)(f"line {number} (codex): {error}")

    def _meta(self, number: int, record: dict[str, Any], payload: dict[str, Any]) -> None:
        self.metas += 1
        if self.metas > 1:  # a fork's copy of its parent's metadata
            return
        if isinstance(payload.get("id"), str) and payload["id"]:
            self.session = payload["id"]
        if payload.get("forked_from_id"):
            created = payload.get("timestamp", record.get("timestamp"))
            self.forked_at = epoch(created, f"line {number} session_meta timestamp")
        instructions = payload.get("base_instructions")
        if isinstance(instructions, dict) and isinstance(instructions.get("text"), str):
            self.system.append(instructions["text"])

    def _item(self, number: int, item: dict[str, Any]) -> None:
        where = f"line {number}"
        if item.get("type") == "message" and item.get("role") in ("developer", "system"):
            self.system.append(text_of(item.get("content"), where))
            return
        message = _item_message(item, self.conversation, where)
        if message is None:
            return
        check_message(message, len(self.conversation))
        if not self.conversation or message is not self.conversation[-1]:
            self.conversation.append(message)

    def _tokens(self, number: int, record: dict[str, Any], payload: dict[str, Any]) -> None:
        """A `token_count` event's rise of the cumulative total, as a call."""
        info = payload.get("info")
        if (
            payload.get("type") != "token_count"
            or not isinstance(info, dict)
            or info.get("total_token_usage") is None
        ):
            return
        where = f"line {number}"
        usage = info["total_token_usage"]
        read = Usage.of(usage, where=f"{where} total_token_usage", strict=False)
        total = (
            read.prompt_tokens,
            read.cache_read_input_tokens,
            read.output_tokens,
            read.cache_creation_input_tokens,
        )  # in `_FIELDS`' order, each in Codex's own sense
        self.writes_recorded = self.writes_recorded or _FIELDS[3] in usage
        delta = tuple(now - before for now, before in zip(total, self.last, strict=True))
        if any(part < 0 for part in delta):
            raise ValueError(f"{where}: total_token_usage went down: {self.last} -> {total}")
        if not any(delta):
            return
        self.last = total
        rise = Usage.of(dict(zip(_FIELDS, delta, strict=True)), where=f"{where} token_count rise")
        when = epoch(record.get("timestamp"), f"{where} timestamp")
        if self._replayed(when):
            return
        self.calls.append(Call(_UNNAMED, when, self.model, rise))

    def _replayed(self, when: float | None) -> bool:
        """True for a fork's copy of a parent call: stamped no later than the fork's creation."""
        return self.forked_at is not None and (when is None or when <= self.forked_at)


def _recorded(reading: _Reading) -> dict[str, int]:
    """The last cumulative total by field; the write count only where the file kept one."""
    recorded = dict(zip(_FIELDS, reading.last, strict=True))
    if not reading.writes_recorded:
        del recorded[_FIELDS[3]]
    return recorded


def read(text: str, name: str = "") -> Session:
    """A rollout's text as a `Session`.

    Raises:
        ValueError: a line that is not a JSON object, naming it.
    """
    reading = _Reading(name)
    for number, record in json_lines(text):
        reading.line(number, record)
    thread = ThreadId(reading.session)
    calls = tuple(Call(thread, call.timestamp, call.model, call.usage) for call in reading.calls)
    problem = reading.problem
    if problem is None and not reading.conversation:
        problem = ValueError(
            f"a Codex rollout with no conversation: "
            f"{count_of(sum(reading.skipped.values()), 'line')} ({tally(reading.skipped)}), "
            "no response_item message or call"
        )
    return Session(
        "codex",
        Layers("\n\n".join(reading.system), [], reading.conversation),
        main=thread,
        calls=calls,
        usage_records=calls,
        skipped=sum(reading.skipped.values()),
        files=(name,) if name else (),
        recorded_tokens=_recorded(reading),
        conversation_error=problem,
        usage_error=reading.usage_problem,
    )
