"""OpenHands event lists: the conversation the events record, and the calls they repeat.

A file is a JSON list of events, or an evaluation's output (`output.jsonl`:
JSON Lines, an instance a line, each with its `instance_id` and its events
under `history`; each instance a session of its own, `read_instances`). An
event has a `source` (`"user"`, `"agent"`, `"environment"`) and an `action`
or an `observation`:

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
again), the last value of each run added up. An instance whose events carry
none has the total its output kept (`metrics.accumulated_cost`).

The thread is `<file name>/main`; an instance's, `<instance id>/main`. The
folder OpenHands 1.x keeps per conversation (`base_state.json` and its
`events/`) is read by `openhands_state`, which `read` hands a state to.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import PurePath
from typing import Any

from context_budget._checks import check_message
from context_budget.layers import Layers
from context_budget.messages import Message
from context_budget.sessions import openhands_state
from context_budget.sessions.openai_chat import assistant, text_of
from context_budget.sessions.session import Call, Session, ThreadId
from context_budget.sessions.text import (
    FormatError,
    count_of,
    dollars,
    epoch,
    kind_of,
    loads_json,
    object_at,
    split_lines,
    tally,
)
from context_budget.usage import Usage

__all__ = ["is_events", "is_instance", "read", "read_instances"]


def is_events(data: object) -> bool:
    """True when `data` is a non-empty list whose first item is an OpenHands event."""
    if not isinstance(data, list) or not data or not isinstance(data[0], dict):
        return False
    first = data[0]
    return "source" in first and ("action" in first or "observation" in first)


def is_instance(data: object) -> bool:
    """True for an instance of an OpenHands evaluation output: its id and its events."""
    return isinstance(data, dict) and "instance_id" in data and is_events(data.get("history"))


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

    def __init__(self, thread: ThreadId, at: str = "") -> None:
        self.thread = thread
        self.at = at  # where the events are, before an event's number: "line 2 " or ""
        self.conversation: list[Message] = []
        self.calls: list[Call] = []
        self.records: list[Call] = []
        self.seen: set[object] = set()  # the model response ids already read
        self.skipped: dict[str, int] = {}
        self.problem: Exception | None = None
        self.usage_problem: Exception | None = None
        self.runs: list[float] = []  # the running cost recorded: its last value in each run

    def event(self, index: int, event: dict[str, Any]) -> None:
        where = f"{self.at}event {index}"
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
        where = f"{self.at}event {index}"
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
    """A loaded event list, one instance of an evaluation output, or a conversation's state
    (`openhands_state`, its events read from beside the file `name`) as a `Session`.

    Raises:
        FormatError: neither; TypeError: an event that is not an object.
    """
    if isinstance(data, dict) and "instance_id" in data:
        if not isinstance(data.get("history"), list):  # another tool's run of an instance
            held = "history" in data
            found = kind_of(data["history"]) if held else "one with no 'history'"
            raise FormatError(f"expected an instance with a history of events, found {found}")
        return _instance(data, name, "")
    if openhands_state.is_state(data):
        return openhands_state.read(data, name)
    if not isinstance(data, list):
        raise FormatError(f"expected a list of OpenHands events, found {kind_of(data)}")
    return _events(data, name, ThreadId(PurePath(name).stem or "events"), "")


def read_instances(text: str, name: str = "") -> list[Session]:
    """An evaluation output's text (JSON Lines, an instance a line) as a session per
    instance, in the order of its lines; blank lines are passed over.

    Raises:
        FormatError: a first record that is no instance (the text is no evaluation
            output). ValueError: a later line that is no JSON or no instance, or no
            instance at all; TypeError: an event that is not an object. Each names its
            line.
    """
    sessions: list[Session] = []
    for number, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            continue
        try:
            data = loads_json(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"line {number}: not valid JSON: {error.msg}") from None
        if not isinstance(data, dict) or "instance_id" not in data:
            found = (
                kind_of(data) if not isinstance(data, dict) else "an object with no 'instance_id'"
            )
            wrong = FormatError if not sessions else ValueError  # the first: no such output
            raise wrong(f"line {number}: expected an evaluation instance, found {found}")
        sessions.append(_instance(data, name, f"line {number} "))
    if not sessions:
        raise ValueError("an OpenHands evaluation output with no instance: every line is blank")
    return sessions


def _instance(data: dict[str, Any], name: str, at: str) -> Session:
    """One instance of an evaluation output: its `history` read as events, its thread named
    by its `instance_id`."""
    ident, history = data["instance_id"], data.get("history")
    if isinstance(ident, bool) or not isinstance(ident, str | int) or str(ident).strip() == "":
        raise ValueError(f"{at}instance_id: expected a name or a number, got {ident!r:.60}")
    if not isinstance(history, list):
        raise ValueError(
            f"{at}history: expected a list of OpenHands events, found {kind_of(history)}"
        )
    session = _events(history, name, ThreadId(str(ident)), at)
    if session.recorded_cost is not None or session.usage_error is not None:
        return session
    try:
        kept = dollars(
            object_at(data, "metrics").get("accumulated_cost"), f"{at}metrics.accumulated_cost"
        )
    except ValueError as error:
        return replace(session, usage_error=error)
    return replace(session, recorded_cost=kept)


def _events(data: list[Any], name: str, thread: ThreadId, at: str) -> Session:
    """The events of a list read as the session `thread` names; `at` says where they are."""
    reading = _Reading(thread, at)
    for index, event in enumerate(data):
        if not isinstance(event, dict):
            raise TypeError(f"{at}event {index} has type {kind_of(event)}, not an object")
        reading.event(index, event)
    problem = reading.problem
    if problem is None and not reading.conversation:
        problem = ValueError(
            f"{at}OpenHands events with no conversation: {count_of(len(data), 'event')} "
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
