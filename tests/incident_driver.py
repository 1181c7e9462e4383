"""A small agent loop for the incident-report tests, in the shape a real harness uses.

Each step sends `system`, `tools` and the history (as the `view` function shows
it: clearing happens on a copy, the way the server clears, so the history
itself is never edited), appends the response as an assistant message, runs
every tool use in order and appends all the results in one user message.
Compaction is the seed's append-only request: the history plus a question at
the end, with tools turned off, then a restart from the task, the summary and
the saved notes.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from context_budget import SimulatedModel
from context_budget.scenarios import incidents

#: The text a cleared result shows (the provider does not document its own).
PLACEHOLDER = "[cleared: this tool result was removed to save context]"

#: The compaction question, added at the end of the history.
SUMMARY_QUESTION = (
    "Stop for a moment. In under 150 words, summarize your progress: which "
    "reports are done, and anything not yet in your notes."
)

Responder = Callable[[dict[str, Any]], dict[str, Any]]
# history -> the messages sent (a new list; the history is not changed)
View = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


@dataclass
class Run:
    """One run: what was sent, what came back, and how it ended."""

    answer: str = ""
    stop_reason: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    responses: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    summaries: list[str] = field(default_factory=list)

    def tool_calls(self, name: str) -> list[dict[str, Any]]:
        """The inputs of every call to tool `name`, in call order."""
        return [
            block["input"]
            for response in self.responses
            for block in response["content"]
            if block["type"] == "tool_use" and block["name"] == name
        ]

    def reads(self) -> list[str]:
        """The file names read, in order, repeats included."""
        return [arguments["path"] for arguments in self.tool_calls("read_file")]


def show_everything(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The naive view: the whole history, as a new list (the loop never edits a message)."""
    return list(history)


def results(history: Sequence[dict[str, Any]]) -> list[tuple[int, int, str]]:
    """Every tool result as (message index, block index, tool name), oldest first."""
    names = {
        block["id"]: block["name"]
        for message in history
        if message["role"] == "assistant" and isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == "tool_use"
    }
    found = []
    for index, message in enumerate(history):
        if message["role"] == "user" and isinstance(message["content"], list):
            for number, block in enumerate(message["content"]):
                if block["type"] == "tool_result":
                    found.append((index, number, names.get(block["tool_use_id"], "")))
    return found


def blank(
    history: list[dict[str, Any]],
    places: Sequence[tuple[int, int]],
    placeholder: str = PLACEHOLDER,
) -> list[dict[str, Any]]:
    """A copy of `history` with the tool results at `places` replaced by `placeholder`.

    Only the messages that change are copied; `history` itself is left as it was.
    """
    view = list(history)
    for index, number in places:
        if view[index] is history[index]:
            view[index] = {**history[index], "content": list(history[index]["content"])}
        view[index]["content"][number] = {**view[index]["content"][number], "content": placeholder}
    return view


def keep_last(keep: int, *, placeholder: str = PLACEHOLDER) -> View:
    """Clear every result but the last `keep`, never a `save_note` result (the seed's set-up)."""

    def view(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        clearable = [(i, b) for i, b, name in results(history) if name != "save_note"]
        return blank(history, clearable[: max(len(clearable) - keep, 0)], placeholder)

    return view


def restart_message(summary: str, notes: Sequence[str]) -> dict[str, Any]:
    """The first message after compaction: task, summary, and the notes kept so far."""
    text = f"{incidents.TASK}\n\nThis picks up earlier work.\nProgress summary:\n{summary}\n\n"
    text += "Saved notes:\n" + "\n".join(notes)
    return {"role": "user", "content": text}


def run(
    model: Responder | Callable[[int], Responder] | None = None,
    *,
    fresh: bool = False,
    with_notes: bool = True,
    view: View = show_everything,
    compact_every: int | None = None,
    max_steps: int = 120,
) -> Run:
    """Run the task to an `end_turn` (or `max_steps` calls).

    Args:
        model: the responder, or with `fresh` a function step -> responder.
        fresh: call `model(step)` to get a new responder for every call.
        with_notes: False for the no-notes variant.
        view: what each request shows of the history.
        compact_every: compact after this many tool rounds since the last restart.
        max_steps: calls allowed, compaction calls included.
    """
    if model is None:
        model = SimulatedModel()
    system = incidents.SYSTEM if with_notes else incidents.SYSTEM_NO_NOTES
    tools = incidents.TOOLS if with_notes else incidents.TOOLS_NO_NOTES
    record = Run()
    impls = incidents.tool_impls(record.notes, with_notes=with_notes)
    record.history.append({"role": "user", "content": incidents.TASK})
    rounds = 0
    for step in range(max_steps):
        responder: Responder = model(step) if fresh else model  # type: ignore[call-arg,assignment]
        request: dict[str, Any] = {
            "model": "simulated",
            "max_tokens": 4096,
            "system": system,
            "tools": copy.deepcopy(tools),
            "messages": view(record.history),
        }
        if compact_every is not None and rounds >= compact_every:
            request["messages"].append({"role": "user", "content": SUMMARY_QUESTION})
            request["tool_choice"] = {"type": "none"}
            response = responder(request)
            record.requests.append(request)
            record.responses.append(response)
            summary = "".join(b["text"] for b in response["content"] if b["type"] == "text")
            record.summaries.append(summary)
            record.history = [restart_message(summary, record.notes)]
            rounds = 0
            continue
        response = responder(request)
        record.requests.append(request)
        record.responses.append(response)
        record.history.append({"role": "assistant", "content": response["content"]})
        if response["stop_reason"] != "tool_use":
            record.stop_reason = response["stop_reason"]
            record.answer = "".join(b["text"] for b in response["content"] if b["type"] == "text")
            return record
        answers = [
            incidents.run_tool(block, impls)
            for block in response["content"]
            if block["type"] == "tool_use"
        ]
        record.history.append({"role": "user", "content": answers})
        rounds += 1
    record.stop_reason = "max_steps"
    return record
