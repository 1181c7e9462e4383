"""The incident-report task on `run_agent`, for the simulated model's tests.

Each step sends `system`, `tools` and the history (as the `view` function shows
it: clearing happens on a copy, the way the server clears, so the history
itself is never edited), appends the response as an assistant message, runs
every tool use in order and appends all the results in one user message.
Compaction is the append-only request (`AppendOnlyCompaction`): the history
plus a question at the end, with tools turned off, then a restart from the
task, the summary and the saved notes; it comes every `compact_every` tool
rounds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from context_budget import run_agent
from context_budget.fakes import ScriptedClient, SimulatedModel
from context_budget.harness import AppendOnlyCompaction
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
    """Clear every result but the last `keep`, never a `save_note` result (as the experiment)."""

    def view(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        clearable = [(i, b) for i, b, name in results(history) if name != "save_note"]
        return blank(history, clearable[: max(len(clearable) - keep, 0)], placeholder)

    return view


def restart_message(summary: str, notes: Sequence[str]) -> dict[str, Any]:
    """The first message after compaction: task, summary, and the notes kept so far."""
    text = f"{incidents.TASK}\n\nThis picks up earlier work.\nProgress summary:\n{summary}\n\n"
    text += "Saved notes:\n" + "\n".join(notes)
    return {"role": "user", "content": text}


@dataclass(frozen=True)
class _EveryRounds(AppendOnlyCompaction):
    """`AppendOnlyCompaction` that is due every `rounds` tool rounds since the last restart."""

    rounds: int = 0

    def due(self, rounds: int) -> bool:
        return rounds >= self.rounds


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
    record = Run()

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        step = len(record.responses)
        responder: Responder = model(step) if fresh else model  # type: ignore[call-arg,assignment]
        response = responder(request)
        record.responses.append(response)
        return response

    def restart(summary: str) -> list[dict[str, Any]]:
        record.summaries.append(summary)
        return [restart_message(summary, record.notes)]

    client = ScriptedClient(respond)
    compaction = None
    if compact_every is not None:
        compaction = _EveryRounds(SUMMARY_QUESTION, restart, tools_off=True, rounds=compact_every)
    impls = incidents.tool_impls(record.notes, with_notes=with_notes)
    agent = run_agent(
        incidents.TASK,
        incidents.TOOLS if with_notes else incidents.TOOLS_NO_NOTES,
        {name: lambda arguments, f=function: f(**arguments) for name, function in impls.items()},
        client=client,
        model="simulated",
        context_window=200_000,
        compact_ratio=None,
        compaction=compaction,
        system=incidents.SYSTEM if with_notes else incidents.SYSTEM_NO_NOTES,
        max_tokens=4096,
        edit_history=view,
        max_calls=max_steps,
    )
    record.requests = client.requests
    record.history = list(agent.messages)
    record.answer = agent.text
    record.stop_reason = (
        "max_steps" if agent.stop_reason == "max_calls" else agent.stop_reason or ""
    )
    return record
