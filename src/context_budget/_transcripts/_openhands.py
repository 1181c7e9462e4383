"""OpenHands event lists: the conversation the events record.

A file is a JSON list of events, each with a `source` (`"user"`, `"agent"`,
`"environment"`) and an `action` or an `observation`:

- a user's `message` action is a user message (its `args.content`);
- an agent's action that carries `tool_call_metadata.model_response` gives the
  model's reply, once per response id (OpenHands repeats the same response on
  every action it holds and on each action's observation): an assistant
  message with the reply's text and its `tool_calls` as `tool_use` blocks;
- an agent's `message` action without a response is an assistant message;
- an observation with a `tool_call_metadata.tool_call_id` is the result of
  that call: a user message with a `tool_result` holding its `content`;
- every other event (state changes, empty observations) is skipped and counted.
"""

from __future__ import annotations

from typing import Any

from context_budget._checks import check_message
from context_budget._transcripts._common import count_of, kind_of, object_at, tally
from context_budget._transcripts._openai import assistant, text_of
from context_budget.layers import Layers
from context_budget.messages import Message


def is_events(data: object) -> bool:
    """True when `data` is a non-empty list whose first item is an OpenHands event."""
    if not isinstance(data, list) or not data or not isinstance(data[0], dict):
        return False
    first = data[0]
    return "source" in first and ("action" in first or "observation" in first)


def _reply(response: object, where: str) -> Message | None:
    """The assistant message of a LiteLLM model response, or None when it holds no choice."""
    if not isinstance(response, dict):
        return None
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    return assistant(message, where) if isinstance(message, dict) else None


def _event_message(event: dict[str, Any], seen: set[object], where: str) -> Message | None:
    source = event.get("source")
    metadata, args = object_at(event, "tool_call_metadata"), object_at(event, "args")
    if source == "user" and event.get("action") == "message":
        return {
            "role": "user",
            "content": text_of(args.get("content", event.get("message")), where),
        }
    if source != "agent":
        return None
    if "observation" in event:
        if not isinstance(metadata.get("tool_call_id"), str):
            return None
        result = {
            "type": "tool_result",
            "tool_use_id": metadata["tool_call_id"],
            "content": text_of(event.get("content"), where),
        }
        return {"role": "user", "content": [result]}
    response = metadata.get("model_response")
    if isinstance(response, dict):
        response_id = response.get("id")
        if response_id in seen:
            return None
        seen.add(response_id)
        return _reply(response, where)
    if event.get("action") == "message":
        text = args.get("content", event.get("message"))
        return {"role": "assistant", "content": text_of(text, where)}
    return None


def read_openhands(data: object) -> tuple[Layers, int]:
    """The conversation of an event list, and how many events were skipped."""
    if not isinstance(data, list):
        raise ValueError(f"expected a list of OpenHands events, found {kind_of(data)}")
    conversation: list[Message] = []
    seen: set[object] = set()  # the model response ids already read
    skipped: dict[str, int] = {}
    for index, event in enumerate(data):
        where = f"event {index}"
        if not isinstance(event, dict):
            raise TypeError(f"{where} has type {kind_of(event)}, not an object")
        message = _event_message(event, seen, where)
        if message is None:
            label = event.get("action", event.get("observation"))
            label = str(label) if isinstance(label, str) else "(none)"
            skipped[label] = skipped.get(label, 0) + 1
            continue
        try:
            check_message(message, len(conversation))
        except (TypeError, ValueError) as error:
            raise type(error)(f"{where} (openhands): {error}") from None
        conversation.append(message)
    if not conversation:
        raise ValueError(
            f"OpenHands events with no conversation: {count_of(len(data), 'event')} "
            f"({tally(skipped)}), no message, model response or tool result"
        )
    return Layers("", [], conversation), sum(skipped.values())
