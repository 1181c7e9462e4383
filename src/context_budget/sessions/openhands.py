"""OpenHands event lists: the conversation the events record, and the calls they repeat.

A file is a JSON list of events, each with a `source` (`"user"`, `"agent"`,
`"environment"`) and an `action` or an `observation`:

- a user's `message` action is a user message (its `args.content`);
- an agent's action that carries `tool_call_metadata.model_response` gives the
  model's reply, once per response id (OpenHands repeats the same response on
  every action it holds and on each action's observation): an assistant
  message with the reply's text and its `tool_calls` as `tool_use` blocks,
  and one API call, its usage at `model_response.usage` (LiteLLM's shape);
- an agent's `message` action without a response is an assistant message;
- an observation with a `tool_call_metadata.tool_call_id` is the result of
  that call: a user message with a `tool_result` holding its `content`;
- every other event (state changes, empty observations) is skipped and counted.

The cost the file recorded itself is OpenHands' running total,
`llm_metrics.accumulated_cost`, carried on the events after each call: its
last value, and where a list joins several runs (the total falls back to start
again), the last value of each run added up.

The thread is `<file name>/main`.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from context_budget._checks import check_message
from context_budget.layers import Layers
from context_budget.messages import Message
from context_budget.sessions.openai_chat import assistant, text_of
from context_budget.sessions.session import Call, Session, ThreadId
from context_budget.sessions.text import count_of, dollars, epoch, kind_of, object_at, tally
from context_budget.usage import Usage

__all__ = ["is_events", "read"]


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


def _event_message(event: dict[str, Any], fresh: bool, where: str) -> Message | None:
    """The message an event gives; `fresh`: its model response was not seen before."""
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
    if isinstance(metadata.get("model_response"), dict):
        return _reply(metadata["model_response"], where) if fresh else None
    if event.get("action") == "message":
        text = args.get("content", event.get("message"))
        return {"role": "assistant", "content": text_of(text, where)}
    return None


class _Reading:
    """The events read so far: the conversation, the calls, what was skipped, the problems."""

    def __init__(self, thread: ThreadId) -> None:
        self.thread = thread
        self.conversation: list[Message] = []
        self.calls: list[Call] = []
        self.records: list[Call] = []
        self.seen: set[object] = set()  # the model response ids already read
        self.skipped: dict[str, int] = {}
        self.problem: Exception | None = None
        self.usage_problem: Exception | None = None
        self.runs: list[float] = []  # the running cost recorded: its last value in each run

    def event(self, index: int, event: dict[str, Any]) -> None:
        where = f"event {index}"
        self._spent(event, where)
        response = object_at(event, "tool_call_metadata").get("model_response")
        ident = response.get("id") if isinstance(response, dict) else None
        fresh = not (isinstance(ident, str) and ident in self.seen)
        if isinstance(response, dict):
            self._call(index, event, response, fresh)
        if isinstance(ident, str):
            self.seen.add(ident)
        if self.problem is not None:
            return
        try:
            message = _event_message(event, fresh, where)
            if message is not None:
                check_message(message, len(self.conversation))
        except (TypeError, ValueError) as error:
            self.problem = type(error)(f"{where} (openhands): {error}")
            return
        if message is None:
            label = event.get("action", event.get("observation"))
            label = str(label) if isinstance(label, str) else "(none)"
            self.skipped[label] = self.skipped.get(label, 0) + 1
        else:
            self.conversation.append(message)

    def _spent(self, event: dict[str, Any], where: str) -> None:
        """Note the running cost an event recorded (`llm_metrics.accumulated_cost`): a new
        run where it fell."""
        metrics = event.get("llm_metrics")
        if not isinstance(metrics, dict) or self.usage_problem is not None:
            return
        try:
            total = dollars(
                metrics.get("accumulated_cost"), f"{where} llm_metrics.accumulated_cost"
            )
        except ValueError as error:
            self.usage_problem = error
            return
        if total is None:
            return
        if self.runs and total >= self.runs[-1]:
            self.runs[-1] = total
        else:
            self.runs.append(total)

    def _call(
        self, index: int, event: dict[str, Any], response: dict[str, Any], fresh: bool
    ) -> None:
        if self.usage_problem is not None or not isinstance(response.get("usage"), dict):
            return
        where = f"event {index}"
        try:
            call = Call(
                thread=self.thread,
                timestamp=epoch(event.get("timestamp"), f"{where} timestamp"),
                model=str(response.get("model", "unknown")),
                usage=Usage.of(
                    response["usage"], where=f"{where} model_response.usage", strict=False
                ),
            )
        except ValueError as error:
            self.usage_problem = error
            return
        self.records.append(call)
        if fresh:
            self.calls.append(call)


def read(data: object, name: str = "") -> Session:
    """A loaded event list as a `Session`.

    Raises:
        ValueError: not a list; TypeError: an event that is not an object.
    """
    if not isinstance(data, list):
        raise ValueError(f"expected a list of OpenHands events, found {kind_of(data)}")
    reading = _Reading(ThreadId(PurePath(name).stem or "events"))
    for index, event in enumerate(data):
        if not isinstance(event, dict):
            raise TypeError(f"event {index} has type {kind_of(event)}, not an object")
        reading.event(index, event)
    problem = reading.problem
    if problem is None and not reading.conversation:
        problem = ValueError(
            f"OpenHands events with no conversation: {count_of(len(data), 'event')} "
            f"({tally(reading.skipped)}), no message, model response or tool result"
        )
    return Session(
        "openhands",
        Layers("", [], reading.conversation),
        main=reading.thread,
        calls=tuple(reading.calls),
        usage_records=tuple(reading.records),
        skipped=sum(reading.skipped.values()),
        files=(name,) if name else (),
        recorded_cost=sum(reading.runs) if reading.runs else None,
        conversation_error=problem,
        usage_error=reading.usage_problem,
    )
