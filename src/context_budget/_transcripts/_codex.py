"""Codex CLI rollouts (`rollout-*.jsonl`): the conversation its `response_item` lines hold.

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
`session_meta`, `turn_context` and `event_msg` lines (the user's and the
agent's messages again, and the `token_count` usage) are skipped and counted.
"""

from __future__ import annotations

from typing import Any

from context_budget._checks import check_message
from context_budget._json import canonical_json
from context_budget._transcripts._common import count_of, json_lines, tally
from context_budget._transcripts._openai import text_of, tool_input
from context_budget.layers import Layers
from context_budget.messages import Message

#: The record types of a rollout; a file whose first record has one of them is a rollout.
RECORD_TYPES = frozenset(
    {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
)

_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})


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


def read_codex(text: str) -> tuple[Layers, int]:
    """The conversation of a rollout's text, and how many lines were skipped."""
    system: list[str] = []
    conversation: list[Message] = []
    skipped: dict[str, int] = {}
    for number, record in json_lines(text):
        where = f"line {number}"
        kind, item = record.get("type"), record.get("payload")
        if kind == "session_meta" and isinstance(item, dict):
            instructions = item.get("base_instructions")
            if isinstance(instructions, dict) and isinstance(instructions.get("text"), str):
                system.append(instructions["text"])
        if kind != "response_item" or not isinstance(item, dict):
            label = kind if isinstance(kind, str) else "(no type)"
            skipped[label] = skipped.get(label, 0) + 1
            continue
        role = item.get("role")
        if item.get("type") == "message" and role in ("developer", "system"):
            system.append(text_of(item.get("content"), where))
            continue
        if item.get("type") == "message" and role != "assistant":
            message: Message = {"role": role, "content": text_of(item.get("content"), where)}
        elif item.get("type") in _OUTPUTS:
            result = {
                "type": "tool_result",
                "tool_use_id": item.get("call_id"),
                "content": _output_text(item.get("output")),
            }
            message = {"role": "user", "content": [result]}
        else:
            block = _assistant_block(item, where)
            if block is None:
                continue
            last = conversation[-1] if conversation else None
            if last is not None and last["role"] == "assistant":
                last["content"].append(block)
                message = last
            else:
                message = {"role": "assistant", "content": [block]}
        try:
            check_message(message, len(conversation))
        except (TypeError, ValueError) as error:
            raise type(error)(f"{where} (codex): {error}") from None
        if not conversation or message is not conversation[-1]:
            conversation.append(message)
    if not conversation:
        total = sum(skipped.values())
        raise ValueError(
            f"a Codex rollout with no conversation: {count_of(total, 'line')} "
            f"({tally(skipped)}), "
            "no response_item message or call"
        )
    return Layers("\n\n".join(system), [], conversation), sum(skipped.values())
